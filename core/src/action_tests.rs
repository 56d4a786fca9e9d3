//! Differential test: the hand-written `Deserialize` for [`Action`] against
//! the serde derive it replaced (kept here, as `Derived`, with the same
//! attributes), on every variant and on broken input of every kind: the same
//! actions and the same error messages.

use super::*;
use serde_json::json;

// The enum exactly as it was derived before (field docs left out).
mod old {
    use super::*;
    #[derive(Debug, Serialize, Deserialize)]
    #[serde(tag = "action", rename_all = "snake_case")]
    #[allow(dead_code)]
    pub enum Action {
        KillBroker {
            broker: BrokerId,
        },
        StartBroker {
            broker: BrokerId,
        },
        ShutdownBroker {
            broker: BrokerId,
        },
        PauseBroker {
            broker: BrokerId,
            duration_ms: u64,
        },
        ExpireSession {
            broker: BrokerId,
        },
        DeleteZnode {
            path: String,
        },
        DelayMessage {
            id: u64,
            delay_ms: u64,
        },
        DropMessage {
            id: u64,
        },
        PreferredElection {
            #[serde(default, skip_serializing_if = "Option::is_none")]
            partitions: Option<Vec<crate::ids::TopicPartition>>,
        },
        ElectLeaders {
            election_type: crate::controller::event::ElectionType,
            partitions: Vec<crate::ids::TopicPartition>,
        },
        Produce {
            topic: String,
            partition: u32,
            records: u64,
            acks: crate::log::Acks,
        },
        SlowBroker {
            broker: BrokerId,
            lag_ms: u64,
        },
        HealBroker {
            broker: BrokerId,
        },
        AddPartitions {
            topic: String,
            count: u32,
        },
        DeleteTopic {
            topic: String,
        },
        ReassignPartitions {
            partitions: Vec<PartitionTarget>,
        },
        CreateTopic {
            name: String,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            assignment: Option<Vec<Vec<BrokerId>>>,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            partitions: Option<u32>,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            replication_factor: Option<u32>,
        },
        SetConfig {
            key: String,
            value: serde_json::Value,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            topic: Option<String>,
        },
        SetZnode {
            path: String,
            data: String,
        },
        CreateZnode {
            path: String,
            data: String,
            #[serde(default, skip_serializing_if = "std::ops::Not::not")]
            ephemeral: bool,
            #[serde(default, skip_serializing_if = "std::ops::Not::not")]
            sequential: bool,
        },
        DeleteConfig {
            key: String,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            topic: Option<String>,
        },
    }
}
use old::Action as Derived;

/// Both readers on one input: Ok(the action re-serialized) or Err(message).
fn both(v: &Value) -> (Result<Value, String>, Result<Value, String>) {
    let new = Action::from_json(v.clone())
        .map(|a| serde_json::to_value(a).expect("serializes"))
        .map_err(|e| e.to_string());
    let old = serde_json::from_value::<Derived>(v.clone())
        .map(|a| serde_json::to_value(a).expect("serializes"))
        .map_err(|e| e.to_string());
    (new, old)
}

/// One valid example of each variant, every field given.
fn examples() -> Vec<Value> {
    vec![
        json!({"action": "kill_broker", "broker": 1}),
        json!({"action": "start_broker", "broker": 1}),
        json!({"action": "shutdown_broker", "broker": 1}),
        json!({"action": "pause_broker", "broker": 1, "duration_ms": 5000}),
        json!({"action": "expire_session", "broker": 2}),
        json!({"action": "delete_znode", "path": "/controller"}),
        json!({"action": "delay_message", "id": 7, "delay_ms": 100}),
        json!({"action": "drop_message", "id": 7}),
        json!({"action": "preferred_election", "partitions": [{"topic": "t", "partition": 0}]}),
        json!({"action": "elect_leaders", "election_type": "Unclean", "partitions": [{"topic": "t", "partition": 1}]}),
        json!({"action": "produce", "topic": "t", "partition": 0, "records": 3, "acks": "All"}),
        json!({"action": "slow_broker", "broker": 1, "lag_ms": 200}),
        json!({"action": "heal_broker", "broker": 1}),
        json!({"action": "add_partitions", "topic": "t", "count": 4}),
        json!({"action": "delete_topic", "topic": "t"}),
        json!({"action": "reassign_partitions", "partitions": [{"topic": "t", "partition": 0, "replicas": [1, 2]}]}),
        json!({"action": "create_topic", "name": "n", "assignment": [[1, 2], [2, 1]], "partitions": 2, "replication_factor": 2}),
        json!({"action": "set_config", "key": "unclean.leader.election.enable", "value": true, "topic": "t"}),
        json!({"action": "set_znode", "path": "/a", "data": "x"}),
        json!({"action": "create_znode", "path": "/a", "data": "x", "ephemeral": true, "sequential": true}),
        json!({"action": "delete_config", "key": "k", "topic": "t"}),
    ]
}

/// Values of every JSON kind, most of them wrong for any given field.
fn odd_values() -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(0),
        json!(-1),
        json!(1.5),
        json!(5_000_000_000u64),
        json!(u64::MAX),
        json!("x"),
        json!("All"),
        json!("Preferred"),
        json!([]),
        json!([1]),
        json!([[1, 2]]),
        json!([{"topic": "t", "partition": 0}]),
        json!([{"topic": "t", "partition": 0, "replicas": [1]}]),
        json!([{"topic": 1, "partition": 0}]),
        json!({}),
        json!({"All": null}),
        json!({"a": 1, "b": 2}),
    ]
}

fn check(v: &Value, seen: &mut usize) {
    let (new, old) = both(v);
    assert_eq!(new, old, "input {v}");
    *seen += 1;
}

#[test]
fn hand_written_deserialize_matches_the_derive() {
    let mut seen = 0;
    for top in odd_values() {
        check(&top, &mut seen);
    }
    for ex in examples() {
        check(&ex, &mut seen);
        let Value::Object(map) = &ex else {
            unreachable!()
        };
        let keys: Vec<String> = map.keys().cloned().collect();
        // The tag: missing, of every kind, unknown.
        for tag in odd_values().into_iter().chain([json!("nope"), Value::Null]) {
            let mut m = map.clone();
            m.insert("action".into(), tag.clone());
            check(&Value::Object(m.clone()), &mut seen);
            m.remove("action");
            check(&Value::Object(m), &mut seen);
        }
        // An unknown field is ignored.
        let mut m = map.clone();
        m.insert("zzz".into(), json!(1));
        m.insert("aaa".into(), json!("x"));
        check(&Value::Object(m), &mut seen);
        for k in keys.iter().filter(|k| *k != "action") {
            // Each field missing, and of every kind.
            let mut m = map.clone();
            m.remove(k);
            check(&Value::Object(m), &mut seen);
            for bad in odd_values() {
                let mut m = map.clone();
                m.insert(k.clone(), bad);
                check(&Value::Object(m), &mut seen);
            }
            // Two fields wrong at once, or one wrong and one missing: which
            // error wins depends on the order the derive reads them in.
            for k2 in keys.iter().filter(|k2| *k2 != "action" && *k2 != k) {
                for bad in [json!("x"), json!(-1), json!(null)] {
                    let mut m = map.clone();
                    m.insert(k.clone(), bad.clone());
                    m.insert(k2.clone(), json!([1.5]));
                    check(&Value::Object(m.clone()), &mut seen);
                    m.remove(k2);
                    check(&Value::Object(m), &mut seen);
                }
            }
        }
        // The array form serde also reads: the tag, then the fields in
        // declaration order; every length, and a wrong element.
        let name = map["action"].clone();
        let derived = serde_json::to_value(Action::from_json(ex.clone()).expect("valid"))
            .expect("serializes");
        let fields: Vec<Value> = declared_order(&derived, map);
        for n in 0..=fields.len() + 1 {
            let mut arr = vec![name.clone()];
            arr.extend(fields.iter().take(n).cloned());
            if n > fields.len() {
                arr.push(json!(9));
            }
            check(&Value::Array(arr.clone()), &mut seen);
            if n > 0 && n <= fields.len() {
                arr[n] = json!("wrong");
                check(&Value::Array(arr), &mut seen);
            }
        }
    }
    check(&json!([]), &mut seen);
    check(&json!([null]), &mut seen);
    check(&json!(["nope", 1]), &mut seen);
    assert!(seen > 2000, "{seen} inputs");
}

/// The example's field values in the variant's declaration order (the
/// serializer writes the fields in that order; serde_json's map sorts keys,
/// so the order is taken from the field list of the derive's own output).
fn declared_order(_derived: &Value, map: &serde_json::Map<String, Value>) -> Vec<Value> {
    let name = map["action"].as_str().expect("a tag");
    let order: &[&str] = match name {
        "pause_broker" => &["broker", "duration_ms"],
        "delay_message" => &["id", "delay_ms"],
        "elect_leaders" => &["election_type", "partitions"],
        "produce" => &["topic", "partition", "records", "acks"],
        "slow_broker" => &["broker", "lag_ms"],
        "add_partitions" => &["topic", "count"],
        "create_topic" => &["name", "assignment", "partitions", "replication_factor"],
        "set_config" => &["key", "value", "topic"],
        "set_znode" => &["path", "data"],
        "create_znode" => &["path", "data", "ephemeral", "sequential"],
        "delete_config" => &["key", "topic"],
        _ => &[],
    };
    if order.is_empty() {
        return map
            .iter()
            .filter(|(k, _)| *k != "action")
            .map(|(_, v)| v.clone())
            .collect();
    }
    order.iter().map(|k| map[*k].clone()).collect()
}

/// Inside a trace file's act (a struct holding an action), the messages are
/// the derive's too.
#[test]
fn inside_a_struct_the_messages_are_the_same() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Old {
        action: Derived,
    }
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct New {
        action: Action,
    }
    for v in [
        json!({"action": {"action": "kill_broker"}}),
        json!({"action": {"action": "kill_broker", "broker": "x"}}),
        json!({"action": {"action": "nope"}}),
        json!({"action": 3}),
    ] {
        let old = serde_json::from_value::<Old>(v.clone()).map_err(|e| e.to_string());
        let new = serde_json::from_value::<New>(v.clone()).map_err(|e| e.to_string());
        assert_eq!(new.err(), old.err(), "input {v}");
    }
}

/// `Action`'s `Clone` is written out (for the `.wasm`'s size): every
/// variant, with every field given and with the optional ones left out,
/// cloned, equals the original and writes the same JSON.
#[test]
fn a_cloned_action_equals_the_original() {
    let mut seen = 0;
    let mut inputs = examples();
    inputs.extend([
        json!({"action": "preferred_election"}),
        json!({"action": "create_topic", "name": "n"}),
        json!({"action": "set_config", "key": "k", "value": {"a": [1, 2.5, "x"]}}),
        json!({"action": "delete_config", "key": "k"}),
        // Fields of one type told apart (a swap would still compare equal
        // where the examples give them the same value).
        json!({"action": "create_znode", "path": "/a", "data": "x", "ephemeral": true, "sequential": false}),
        json!({"action": "create_topic", "name": "n", "partitions": 3, "replication_factor": 2}),
    ]);
    for v in inputs {
        let a = Action::from_json(v.clone()).expect("valid");
        let c = a.clone();
        assert_eq!(c, a, "{v}");
        assert_eq!(
            serde_json::to_value(&c).expect("serializes"),
            serde_json::to_value(&a).expect("serializes"),
            "{v}"
        );
        seen += 1;
    }
    assert_eq!(seen, 27);
    let names: std::collections::BTreeSet<_> = examples()
        .iter()
        .map(|v| Action::from_json(v.clone()).expect("valid").name())
        .collect();
    assert_eq!(names.len(), 21, "every variant");
}
