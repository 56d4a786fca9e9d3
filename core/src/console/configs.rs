//! `kafka-configs.sh`, as Kafka 2.4's ConfigCommand
//! (core/src/main/scala/kafka/admin/ConfigCommand.scala at tag 2.4.0):
//! `checkArgs` for the usage errors, `alterConfig` and `describeConfig`
//! (the ZooKeeper path, for topics) and `alterBrokerConfig` (the admin
//! client's path, for the brokers' cluster-wide default).

use super::opts::{self, Spec};
use super::{Cluster, Reply};
use crate::action::Action;

const SPEC: Spec = &[
    ("zookeeper", true),
    ("bootstrap-server", true),
    ("command-config", true),
    ("alter", false),
    ("describe", false),
    ("entity-type", true),
    ("entity-name", true),
    ("entity-default", false),
    ("add-config", true),
    ("delete-config", true),
    ("force", false),
    ("help", false),
];

/// What `main` prints for an `IllegalArgumentException`: its message.
fn failed(message: &str) -> Reply {
    Reply::Usage(format!("{message}\n"))
}

/// `ConfigCommandOptions.checkArgs`, in its order (the entity types
/// kcsim knows: ConfigType.all with `--zookeeper`, the broker types with
/// `--bootstrap-server`).
fn check_args(o: &opts::Parsed) -> Result<(), Reply> {
    let actions = ["alter", "describe"].iter().filter(|n| o.has(n)).count();
    if actions != 1 {
        return Err(Reply::Usage(opts::usage(
            "Command must include exactly one action: --describe, --alter",
            SPEC,
        )));
    }
    if o.has("describe") {
        for other in ["alter", "add-config", "delete-config"] {
            if o.has(other) {
                return Err(Reply::Usage(opts::usage(
                    &opts::cant_combine("describe", other),
                    SPEC,
                )));
            }
        }
    }
    let types = o.values("entity-type");
    let (allowed, connect): (&[&str], _) = if o.has("bootstrap-server") {
        (&["brokers", "broker-loggers"], "--bootstrap-server")
    } else {
        (&["topics", "clients", "users", "brokers"], "--zookeeper")
    };
    if let Some(t) = types.iter().find(|t| !allowed.contains(&t.as_str())) {
        return Err(failed(&format!(
            "Invalid entity-type {t}, --entity-type must be one of {} with the {connect} argument",
            allowed.join(",")
        )));
    }
    if types.is_empty() {
        return Err(failed("At least one --entity-type must be specified"));
    }
    if types.len() > 1 {
        return Err(failed(
            "Only 'users' and 'clients' entity types may be specified together",
        ));
    }
    match (o.has("bootstrap-server"), o.has("zookeeper")) {
        (false, false) => {
            return Err(failed(
                "One of the required --bootstrap-server or --zookeeper arguments must be specified",
            ))
        }
        (true, true) => {
            return Err(failed(
                "Only one of --bootstrap-server or --zookeeper must be specified",
            ))
        }
        (true, false) if !o.has("entity-name") && !o.has("entity-default") => {
            return Err(failed("At least one of --entity-name or --entity-default must be specified with --bootstrap-server"))
        }
        _ => {}
    }
    let t = types[0].as_str();
    if let Some(id) = o.value("entity-name") {
        if (t == "brokers" || t == "broker-loggers") && id.parse::<i32>().is_err() {
            return Err(failed(&format!(
                "The entity name for {t} must be a valid integer broker id , but it is: {id}"
            )));
        }
    }
    if o.has("describe") && t == "broker-loggers" && !o.has("entity-name") {
        return Err(failed(&format!(
            "--entity-name must be specified with --describe of {t}"
        )));
    }
    if o.has("alter") {
        if matches!(t, "users" | "clients" | "brokers") {
            if !o.has("entity-name") && !o.has("entity-default") {
                return Err(failed("--entity-name or --entity-default must be specified with --alter of users, clients or brokers"));
            }
        } else if !o.has("entity-name") {
            return Err(failed(&format!(
                "--entity-name must be specified with --alter of {t}"
            )));
        }
        if !o.has("add-config") && !o.has("delete-config") {
            return Err(failed(
                "At least one of --add-config or --delete-config must be specified with --alter",
            ));
        }
    }
    Ok(())
}

/// `parseConfigsToBeAdded`: `k=v` pairs split on commas (not inside
/// `[…]`), brackets dropped, blanks trimmed.
fn configs_to_add(s: &str) -> Result<Vec<(String, String)>, Reply> {
    let mut pairs = Vec::new();
    let mut depth = 0u32;
    let mut cur = String::new();
    let mut items = Vec::new();
    for c in s.chars() {
        match c {
            '[' => {
                depth += 1;
                cur.push(c);
            }
            ']' => {
                depth = depth.saturating_sub(1);
                cur.push(c);
            }
            ',' if depth == 0 => items.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    items.push(cur);
    for item in items {
        let parts: Vec<&str> = item.split('=').collect();
        let [k, v] = parts[..] else {
            return Err(failed("requirement failed: Invalid entity config: all configs to be added must be in the format \"key=val\"."));
        };
        let v: String = v.chars().filter(|c| *c != '[' && *c != ']').collect();
        pairs.push((k.trim().to_string(), v.trim().to_string()));
    }
    Ok(pairs)
}

/// The topic's overrides as `fetchEntityConfig` returns them.
fn topic_configs<'a>(c: &'a Cluster, topic: &str) -> Vec<(&'a str, &'a str)> {
    c.view
        .topics
        .iter()
        .find(|t| t.name == topic)
        .map(|t| {
            t.configs
                .split(',')
                .filter(|kv| !kv.is_empty())
                .filter_map(|kv| kv.split_once('='))
                .collect()
        })
        .unwrap_or_default()
}

/// `kafka-configs.sh ARGS`.
pub fn run(args: &[String], c: &Cluster) -> Reply {
    let o = match opts::parse(args, SPEC) {
        Ok(o) => o,
        Err(e) => return Reply::Usage(opts::usage(&e, SPEC)),
    };
    if args.is_empty() || o.has("help") {
        return Reply::Usage(opts::usage(
            "This tool helps to manipulate and describe entity config for a topic, client, user or broker",
            SPEC,
        ));
    }
    if let Err(r) = check_args(&o) {
        return r;
    }
    let t = o.values("entity-type")[0].clone();
    let name = o.value("entity-name");
    match (t.as_str(), name, o.has("alter")) {
        ("topics", Some(topic), true) => alter_topic(&o, args, c, topic),
        ("topics", Some(topic), false) => {
            let kv: Vec<String> = topic_configs(c, topic)
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            Reply::Print(format!(
                "Configs for topic '{topic}' are {}\n",
                kv.join(",")
            ))
        }
        ("brokers", None, true) if o.has("bootstrap-server") => alter_default(&o, args),
        ("brokers", None, true) => {
            // Dynamic broker configs go through ZooKeeper only before any
            // broker runs; kcsim's brokers are registered from the start.
            let keys = match o.value("add-config").map(configs_to_add) {
                Some(Ok(p)) => p.into_iter().map(|(k, _)| k).collect(),
                Some(Err(r)) => return r,
                None => Vec::new(),
            };
            failed(&format!(
                "requirement failed: --bootstrap-server option must be specified to update broker configs Set({}). for default cluster if any broker is running. Broker configuration updates using ZooKeeper are supported for bootstrapping before brokers are started to enable encrypted password configs to be stored in ZooKeeper.",
                keys.join(", ")
            ))
        }
        _ => Reply::Usage(
            "kcsim: kafka-configs.sh is simulated for --entity-type topics --entity-name T (--alter, --describe) and --entity-type brokers --entity-default --alter\n"
                .into(),
        ),
    }
}

/// `alterConfig` for a topic (the ZooKeeper path).
fn alter_topic(o: &opts::Parsed, args: &[String], c: &Cluster, topic: &str) -> Reply {
    let add = match o.value("add-config").map(configs_to_add) {
        Some(Ok(p)) => p,
        Some(Err(r)) => return r,
        None => Vec::new(),
    };
    let delete: Vec<String> = o
        .values("delete-config")
        .iter()
        .flat_map(|v| v.split(','))
        .map(|k| k.trim().to_string())
        .collect();
    let have = topic_configs(c, topic);
    let invalid: Vec<&str> = delete
        .iter()
        .map(String::as_str)
        .filter(|k| !have.iter().any(|(h, _)| h == k))
        .collect();
    if !invalid.is_empty() {
        return failed(&format!("Invalid config(s): {}", invalid.join(",")));
    }
    if !delete.is_empty() {
        // kcsim's set_config writes a value; it has no way to remove one.
        return Reply::Usage(format!(
            "kcsim: --delete-config is not simulated (the override {} stays)\n",
            delete.join(",")
        ));
    }
    Reply::Act {
        actions: set_configs(add, Some(topic)),
        done: format!("Completed Updating config for entity: topic '{topic}'.\n"),
        error_prefix: format!(
            "Error while executing config command with args '{}'\n",
            args.join(" ")
        ),
    }
}

/// One `set_config` per `key=value` pair, for a topic's override or (with
/// no topic) the cluster-wide value.
fn set_configs(add: Vec<(String, String)>, topic: Option<&str>) -> Vec<Action> {
    add.into_iter()
        .map(|(key, value)| Action::SetConfig {
            key,
            value: serde_json::Value::String(value),
            topic: topic.map(str::to_string),
        })
        .collect()
}

/// `alterBrokerConfig` for the cluster-wide default (the admin client).
fn alter_default(o: &opts::Parsed, args: &[String]) -> Reply {
    if o.has("delete-config") {
        return Reply::Usage(
            "kcsim: --delete-config is not simulated (a cluster default stays as set)\n".into(),
        );
    }
    let add = match o.value("add-config").map(configs_to_add) {
        Some(Ok(p)) => p,
        Some(Err(r)) => return r,
        None => Vec::new(),
    };
    Reply::Act {
        actions: set_configs(add, None),
        done: "Completed updating default config for brokers in the cluster,\n".into(),
        error_prefix: format!(
            "Error while executing config command with args '{}'\n",
            args.join(" ")
        ),
    }
}
