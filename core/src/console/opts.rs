//! A small option reader in the manner of joptsimple, which Kafka 2.4's
//! tools use: `--name value` or `--name=value`, options in any order, an
//! unknown option or a missing value refused with joptsimple's words.

use std::collections::BTreeMap;

/// The options a tool accepts: name and whether it takes a value.
pub type Spec = &'static [(&'static str, bool)];

/// The options given, by name (a flag's list is empty), and the words that
/// are not options.
#[derive(Debug, Default)]
pub struct Parsed {
    values: BTreeMap<&'static str, Vec<String>>,
    /// The words that are not options, in order.
    pub rest: Vec<String>,
}

impl Parsed {
    /// Whether the option was given.
    pub fn has(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    /// All the option's values, in order (empty if not given).
    pub fn values(&self, name: &str) -> &[String] {
        self.values.get(name).map_or(&[], Vec::as_slice)
    }

    /// The option's (last) value.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values
            .get(name)
            .and_then(|v| v.last())
            .map(String::as_str)
    }
}

/// Read `args` against `spec`. `Err` carries joptsimple's message.
pub fn parse(args: &[String], spec: Spec) -> Result<Parsed, String> {
    let mut out = Parsed::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let Some(body) = a.strip_prefix("--") else {
            out.rest.push(a.clone());
            continue;
        };
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let Some(&(known, takes)) = spec.iter().find(|(n, _)| *n == name) else {
            return Err(format!("{name} is not a recognized option"));
        };
        let entry = out.values.entry(known).or_default();
        if takes {
            let v = match inline {
                Some(v) => v,
                None => it
                    .next()
                    .cloned()
                    .ok_or_else(|| format!("Option {known} requires an argument"))?,
            };
            entry.push(v);
        } else if inline.is_some() {
            return Err(format!("Option {known} does not take an argument"));
        }
    }
    Ok(out)
}

/// `CommandLineUtils.printUsageAndDie`'s first line, then the tool's
/// options (abridged: their names, not joptsimple's table).
pub fn usage(message: &str, spec: Spec) -> String {
    let mut s = format!("{message}\nOptions:");
    for (name, takes) in spec {
        s.push_str(&format!(" --{name}{}", if *takes { " <v>" } else { "" }));
    }
    s.push('\n');
    s
}

/// `Missing required argument "[name]"`, as `CommandLineUtils.checkRequiredArgs`
/// prints it (an option spec prints as its names in brackets).
pub fn missing(name: &str) -> String {
    format!("Missing required argument \"[{name}]\"")
}

/// `Option "[a]" can't be used with option "[b]"`, as
/// `CommandLineUtils.checkInvalidArgs` prints it.
pub fn cant_combine(used: &str, with: &str) -> String {
    format!("Option \"[{used}]\" can't be used with option \"[{with}]\"")
}
