//! A [`Scenario`] written back as a scenario file (docs/scenario-format.md),
//! so that `Scenario::parse(&scenario_json(&s)) == Ok(s)` for every scenario
//! the soak's generator and shrinker make (`crate::soak`).

use crate::action::Action;
use crate::config::Config;
use crate::controller::event::ElectionType;
use crate::ids::TopicPartition;
use crate::scenario::{Placement, Scenario};
use serde_json::{json, Map, Value};

fn tp_list(ps: &[TopicPartition]) -> Value {
    Value::Array(
        ps.iter()
            .map(|p| json!({"topic": p.topic.as_str(), "partition": p.partition}))
            .collect(),
    )
}

/// One action as a scenario file's `actions` entry (without `at_ms`).
pub fn action_json(a: &Action) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("action".into(), json!(a.name()));
    let mut put = |k: &str, v: Value| {
        m.insert(k.to_string(), v);
    };
    match a {
        Action::KillBroker { broker }
        | Action::StartBroker { broker }
        | Action::ShutdownBroker { broker }
        | Action::ExpireSession { broker }
        | Action::HealBroker { broker } => put("broker", json!(broker.0)),
        Action::PauseBroker {
            broker,
            duration_ms,
        } => {
            put("broker", json!(broker.0));
            put("duration_ms", json!(duration_ms));
        }
        Action::SlowBroker { broker, lag_ms } => {
            put("broker", json!(broker.0));
            put("lag_ms", json!(lag_ms));
        }
        Action::DeleteZnode { path } => put("path", json!(path)),
        Action::SetZnode { path, data } => {
            put("path", json!(path));
            put("data", json!(data));
        }
        Action::CreateZnode {
            path,
            data,
            ephemeral,
            sequential,
        } => {
            put("path", json!(path));
            put("data", json!(data));
            if *ephemeral {
                put("ephemeral", json!(true));
            }
            if *sequential {
                put("sequential", json!(true));
            }
        }
        Action::DelayMessage { id, delay_ms } => {
            put("id", json!(id));
            put("delay_ms", json!(delay_ms));
        }
        Action::DropMessage { id } => put("id", json!(id)),
        Action::PreferredElection { partitions } => {
            if let Some(p) = partitions {
                put("partitions", tp_list(p));
            }
        }
        Action::ElectLeaders {
            election_type,
            partitions,
        } => {
            put(
                "election_type",
                json!(match election_type {
                    ElectionType::Preferred => "PREFERRED",
                    ElectionType::Unclean => "UNCLEAN",
                }),
            );
            put("partitions", tp_list(partitions));
        }
        Action::Produce {
            topic,
            partition,
            records,
            acks,
        } => {
            put("topic", json!(topic));
            put("partition", json!(partition));
            put("records", json!(records));
            put("acks", json!(acks.as_str()));
        }
        Action::AddPartitions { topic, count } => {
            put("topic", json!(topic));
            put("count", json!(count));
        }
        Action::DeleteTopic { topic } => put("topic", json!(topic)),
        Action::ReassignPartitions { partitions } => put(
            "partitions",
            Value::Array(
                partitions
                    .iter()
                    .map(|p| {
                        json!({
                            "topic": p.topic,
                            "partition": p.partition,
                            "replicas": p.replicas.iter().map(|b| b.0).collect::<Vec<_>>(),
                        })
                    })
                    .collect(),
            ),
        ),
        Action::CreateTopic {
            name,
            assignment,
            partitions,
            replication_factor,
        } => {
            put("name", json!(name));
            if let Some(a) = assignment {
                put(
                    "assignment",
                    json!(a
                        .iter()
                        .map(|r| r.iter().map(|b| b.0).collect::<Vec<_>>())
                        .collect::<Vec<_>>()),
                );
            }
            if let Some(p) = partitions {
                put("partitions", json!(p));
            }
            if let Some(r) = replication_factor {
                put("replication_factor", json!(r));
            }
        }
        Action::SetConfig { key, value, topic } => {
            put("key", json!(key));
            put("value", value.clone());
            if let Some(t) = topic {
                put("topic", json!(t));
            }
        }
        Action::DeleteConfig { key, topic } => {
            put("key", json!(key));
            if let Some(t) = topic {
                put("topic", json!(t));
            }
        }
    }
    m
}

/// The scenario as a scenario file's JSON value: only the config keys that
/// differ from Kafka's defaults are written.
pub fn scenario_value(s: &Scenario) -> Value {
    let defaults = Config::default();
    let mut config = Map::new();
    for k in Config::KEYS {
        let v = s.config.get(k);
        if v != defaults.get(k) {
            if let Some(v) = v {
                config.insert((*k).to_string(), v);
            }
        }
    }
    let topics: Vec<Value> = s
        .topics
        .iter()
        .map(|t| {
            let mut m = Map::new();
            m.insert("name".into(), json!(t.name));
            match &t.placement {
                Placement::Count {
                    partitions,
                    replication_factor,
                } => {
                    m.insert("partitions".into(), json!(partitions));
                    m.insert("replication_factor".into(), json!(replication_factor));
                }
                Placement::Assignment(a) => {
                    m.insert(
                        "assignment".into(),
                        json!(a
                            .iter()
                            .map(|r| r.iter().map(|b| b.0).collect::<Vec<_>>())
                            .collect::<Vec<_>>()),
                    );
                }
            }
            if !t.config.is_empty() {
                m.insert(
                    "config".into(),
                    Value::Object(t.config.clone().into_iter().collect()),
                );
            }
            Value::Object(m)
        })
        .collect();
    let actions: Vec<Value> = s
        .actions
        .iter()
        .map(|(t, a)| {
            let mut m = Map::new();
            m.insert("at_ms".into(), json!(t.as_ms()));
            m.extend(action_json(a));
            Value::Object(m)
        })
        .collect();
    let mut root = Map::new();
    root.insert("version".into(), json!(crate::scenario::VERSION));
    root.insert("seed".into(), json!(s.seed));
    root.insert(
        "brokers".into(),
        json!(s.brokers.iter().map(|b| b.0).collect::<Vec<_>>()),
    );
    if !config.is_empty() {
        root.insert("config".into(), Value::Object(config));
    }
    if !topics.is_empty() {
        root.insert("topics".into(), Value::Array(topics));
    }
    root.insert("actions".into(), Value::Array(actions));
    Value::Object(root)
}

/// The scenario as the text of a scenario file, one action per line.
pub fn scenario_json(s: &Scenario) -> String {
    let v = scenario_value(s);
    let mut out = String::from("{");
    let mut first = true;
    if let Value::Object(root) = &v {
        let order = ["version", "seed", "brokers", "config", "topics", "actions"];
        for (k, val) in order.iter().filter_map(|k| root.get(*k).map(|v| (*k, v))) {
            if !first {
                out.push(',');
            }
            first = false;
            out.push_str(&format!("\n  {}: ", json!(k)));
            if k == "actions" || k == "topics" {
                let list = val.as_array().map(Vec::as_slice).unwrap_or(&[]);
                if list.is_empty() {
                    out.push_str("[]");
                    continue;
                }
                out.push('[');
                for (i, a) in list.iter().enumerate() {
                    out.push_str(if i == 0 { "\n    " } else { ",\n    " });
                    out.push_str(&a.to_string());
                }
                out.push_str("\n  ]");
            } else {
                out.push_str(&val.to_string());
            }
        }
    }
    out.push_str("\n}\n");
    out
}
