//! `kafka-configs.sh`, as Kafka 2.4's ConfigCommand
//! (core/src/main/scala/kafka/admin/ConfigCommand.scala at tag 2.4.0):
//! `checkArgs` for the usage errors, `alterConfig` and `describeConfig`
//! (the ZooKeeper path, for topics) and `alterBrokerConfig` (the admin
//! client's path, for the brokers' cluster-wide default).

use super::opts::{self, Spec};
use super::{Cluster, Reply};
use crate::action::Action;

pub(super) const SPEC: Spec = &[
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
    let zk = o.has("zookeeper");
    match (t.as_str(), name, o.has("alter")) {
        ("topics", Some(topic), true) => alter_topic(&o, args, c, topic),
        ("topics", Some(topic), false) => Reply::Print(describe_topic(c, topic)),
        // describeConfig without a name: every topic with an override.
        ("topics", None, false) => Reply::Print(
            c.view
                .topics
                .iter()
                .filter(|t| !t.configs.is_empty())
                .map(|t| describe_topic(c, &t.name))
                .collect(),
        ),
        ("brokers", None, true) if !zk => alter_default(&o, args, c),
        ("brokers", None, true) => {
            // Dynamic broker configs go through ZooKeeper only before any
            // broker runs; kcsim's brokers are registered from the start.
            let keys = match o.value("add-config").map(configs_to_add) {
                Some(Ok(p)) => p.into_iter().map(|(k, _)| k).collect(),
                Some(Err(r)) => return r,
                None => Vec::new(),
            };
            if keys.is_empty() {
                // Only deletions: alterConfig checks them against
                // /config/brokers/<default>.
                return match alter_default(&o, args, c) {
                    Reply::Act {
                        actions,
                        error_prefix,
                        ..
                    } => Reply::Act {
                        actions,
                        done: "Completed Updating config for entity: default brokers.\n".into(),
                        error_prefix,
                    },
                    other => other,
                };
            }
            failed(&format!(
                "requirement failed: --bootstrap-server option must be specified to update broker configs Set({}). for default cluster if any broker is running. Broker configuration updates using ZooKeeper are supported for bootstrapping before brokers are started to enable encrypted password configs to be stored in ZooKeeper.",
                keys.join(", ")
            ))
        }
        ("brokers", _, false) => describe_brokers(&o, args, c, name),
        _ => Reply::Usage(
            "kcsim: kafka-configs.sh is simulated for --entity-type topics (--alter, --describe) and --entity-type brokers (--entity-default --alter, --describe)\n"
                .into(),
        ),
    }
}

/// `describeConfig` of a topic: `Configs for topic 'T' are k=v,…`.
fn describe_topic(c: &Cluster, topic: &str) -> String {
    let kv: Vec<String> = topic_configs(c, topic)
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    format!("Configs for topic '{topic}' are {}\n", kv.join(","))
}

/// A config value as Kafka prints it.
fn plain(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The cluster-wide dynamic defaults, sorted by key, as the brokers report
/// them (the value now in force).
fn dynamic_defaults(c: &Cluster) -> Vec<(String, String)> {
    c.sim
        .dynamic_defaults()
        .keys()
        .map(|k| {
            let v = c.sim.config().get(k).map(|v| plain(&v)).unwrap_or_default();
            (k.clone(), v)
        })
        .collect()
}

/// `describeBrokerConfig` (the admin client) and `describeConfig` (ZooKeeper)
/// for `--entity-type brokers`. kcsim has no per-broker dynamic configs, so
/// a broker's own list is empty; the default's lists the dynamic defaults
/// with their synonyms (the starting value is `STATIC_BROKER_CONFIG` when it
/// differs from Kafka's default).
fn describe_brokers(o: &opts::Parsed, args: &[String], c: &Cluster, name: Option<&str>) -> Reply {
    if let Some(id) = name {
        let live = id
            .parse::<u32>()
            .is_ok_and(|id| c.view.brokers.iter().any(|b| b.id.0 == id && b.registered));
        if o.has("zookeeper") {
            return Reply::Print(format!("Configs for brokers '{id}' are \n"));
        }
        if !live {
            // The admin client's request has no broker to go to.
            return Reply::Usage(format!(
                "Error while executing config command with args '{}'\njava.util.concurrent.TimeoutException (kcsim: broker {id} is not running)\n",
                args.join(" ")
            ));
        }
        return Reply::Print(format!("Configs for broker {id} are:\n"));
    }
    let defaults = dynamic_defaults(c);
    if o.has("zookeeper") {
        // Without --entity-default: every brokers entity with a config
        // (getAllEntitiesWithConfig), here the default alone, if set.
        if !o.has("entity-default") && defaults.is_empty() {
            return Reply::Print(String::new());
        }
        let kv: Vec<String> = defaults.iter().map(|(k, v)| format!("{k}={v}")).collect();
        return Reply::Print(format!(
            "Configs for default brokers are {}\n",
            kv.join(",")
        ));
    }
    let kafka_default = crate::config::Config::default();
    let mut out = "Default config for brokers in the cluster are:\n".to_string();
    for (k, v) in defaults {
        let mut synonyms = vec![format!("DYNAMIC_DEFAULT_BROKER_CONFIG:{k}={v}")];
        let start = c.sim.starting_config().get(&k);
        let dflt = kafka_default.get(&k);
        if let Some(s) = start.as_ref().filter(|s| Some(*s) != dflt.as_ref()) {
            synonyms.push(format!("STATIC_BROKER_CONFIG:{k}={}", plain(s)));
        }
        if let Some(d) = &dflt {
            synonyms.push(format!("DEFAULT_CONFIG:{k}={}", plain(d)));
        }
        out.push_str(&format!(
            "  {k}={v} sensitive=false synonyms={{{}}}\n",
            synonyms.join(", ")
        ));
    }
    Reply::Print(out)
}

/// `--delete-config` keys (comma-separated, trimmed).
fn keys_to_delete(o: &opts::Parsed) -> Vec<String> {
    o.values("delete-config")
        .iter()
        .flat_map(|v| v.split(','))
        .map(|k| k.trim().to_string())
        .collect()
}

/// `Invalid config(s): …` for deletions of keys with no dynamic default.
fn invalid_default_deletes(o: &opts::Parsed, c: &Cluster) -> Option<Reply> {
    let invalid: Vec<String> = keys_to_delete(o)
        .into_iter()
        .filter(|k| !c.sim.dynamic_defaults().contains_key(k))
        .collect();
    (!invalid.is_empty()).then(|| failed(&format!("Invalid config(s): {}", invalid.join(","))))
}

/// `alterConfig` for a topic (the ZooKeeper path).
fn alter_topic(o: &opts::Parsed, args: &[String], c: &Cluster, topic: &str) -> Reply {
    let add = match o.value("add-config").map(configs_to_add) {
        Some(Ok(p)) => p,
        Some(Err(r)) => return r,
        None => Vec::new(),
    };
    let delete = keys_to_delete(o);
    let have = topic_configs(c, topic);
    let invalid: Vec<&str> = delete
        .iter()
        .map(String::as_str)
        .filter(|k| !have.iter().any(|(h, _)| h == k))
        .collect();
    if !invalid.is_empty() {
        return failed(&format!("Invalid config(s): {}", invalid.join(",")));
    }
    // `configs ++= added; deleted.foreach(configs.remove)`: adds, then deletes.
    let mut actions = set_configs(add, Some(topic));
    actions.extend(delete_configs(delete, Some(topic)));
    Reply::Act {
        actions,
        done: format!("Completed Updating config for entity: topic '{topic}'.\n"),
        error_prefix: format!(
            "Error while executing config command with args '{}'\n",
            args.join(" ")
        ),
    }
}

/// One `delete_config` per key.
fn delete_configs(keys: Vec<String>, topic: Option<&str>) -> Vec<Action> {
    keys.into_iter()
        .map(|key| Action::DeleteConfig {
            key,
            topic: topic.map(str::to_string),
        })
        .collect()
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

/// `alterBrokerConfig` for the cluster-wide default (the admin client):
/// `old ++ added -- deleted`, a deletion of a key with no dynamic default
/// refused first.
fn alter_default(o: &opts::Parsed, args: &[String], c: &Cluster) -> Reply {
    let add = match o.value("add-config").map(configs_to_add) {
        Some(Ok(p)) => p,
        Some(Err(r)) => return r,
        None => Vec::new(),
    };
    if let Some(r) = invalid_default_deletes(o, c) {
        return r;
    }
    let mut actions = set_configs(add, None);
    actions.extend(delete_configs(keys_to_delete(o), None));
    Reply::Act {
        actions,
        done: "Completed updating default config for brokers in the cluster,\n".into(),
        error_prefix: format!(
            "Error while executing config command with args '{}'\n",
            args.join(" ")
        ),
    }
}
