//! One test per limit of a scenario file (docs/inputs.md): at the limit it
//! is accepted, one over it is refused with a message naming the limit and
//! the value. kcsim's own limits (not Kafka's), except where a comment names
//! Kafka's or ZooKeeper's.

use super::*;

fn with(brokers: usize, topics: &str, actions: &str) -> String {
    let ids: Vec<String> = (0..brokers).map(|b| b.to_string()).collect();
    format!(
        r#"{{"version":1,"brokers":[{}],"topics":[{topics}],"actions":[{actions}]}}"#,
        ids.join(",")
    )
}

fn refused(text: &str) -> String {
    match Scenario::parse(text) {
        Ok(_) => "accepted".to_string(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn file_size_limit() {
    let base = with(1, "", "");
    let at = format!("{base}{}", " ".repeat(MAX_SCENARIO_BYTES - base.len()));
    assert!(Scenario::parse(&at).is_ok());
    assert_eq!(
        refused(&format!("{at} ")),
        format!(
            "(file): {} bytes, over the limit of {MAX_SCENARIO_BYTES} (MAX_SCENARIO_BYTES)",
            MAX_SCENARIO_BYTES + 1
        )
    );
}

#[test]
fn action_count_limit() {
    let kill = r#"{"at_ms":1,"action":"kill_broker","broker":0}"#;
    let list = |n: usize| vec![kill; n].join(",");
    assert_eq!(
        Scenario::parse(&with(1, "", &list(MAX_ACTIONS))).map(|s| s.actions.len()),
        Ok(MAX_ACTIONS)
    );
    assert_eq!(
        refused(&with(1, "", &list(MAX_ACTIONS + 1))),
        format!(
            "actions: {} actions, over the limit of {MAX_ACTIONS} (MAX_ACTIONS)",
            MAX_ACTIONS + 1
        )
    );
}

#[test]
fn virtual_time_limit() {
    let at = |t: u64| format!(r#"{{"at_ms":{t},"action":"kill_broker","broker":0}}"#);
    assert!(Scenario::parse(&with(1, "", &at(MAX_TIME_MS))).is_ok());
    assert_eq!(
        refused(&with(1, "", &at(MAX_TIME_MS + 1))),
        "actions[0].at_ms: expected a time in ms from 0 to 86400000 (one day), got 86400001"
    );
    let pause =
        |d: u64| format!(r#"{{"at_ms":0,"action":"pause_broker","broker":0,"duration_ms":{d}}}"#);
    assert!(Scenario::parse(&with(1, "", &pause(MAX_TIME_MS))).is_ok());
    assert_eq!(
        refused(&with(1, "", &pause(MAX_TIME_MS + 1))),
        "actions[0]: a pause of 86400001 ms (MAX_TIME_MS, one day) is not from 1 to 86400000"
    );
}

#[test]
fn broker_limit() {
    assert_eq!(
        Scenario::parse(&with(MAX_BROKERS, "", "")).map(|s| s.brokers.len()),
        Ok(MAX_BROKERS)
    );
    assert_eq!(
        refused(&with(MAX_BROKERS + 1, "", "")),
        format!(
            "brokers: {} brokers, over the limit of {MAX_BROKERS} (MAX_BROKERS)",
            MAX_BROKERS + 1
        )
    );
}

#[test]
fn topic_limit_counts_declared_and_created_topics() {
    let topic = |i: u64| format!(r#"{{"name":"t{i}","partitions":1,"replication_factor":1}}"#);
    let topics = |n: u64| (0..n).map(topic).collect::<Vec<_>>().join(",");
    assert!(Scenario::parse(&with(1, &topics(MAX_TOPICS), "")).is_ok());
    assert_eq!(
        refused(&with(1, &topics(MAX_TOPICS + 1), "")),
        format!(
            "topics: {} topics, over the limit of {MAX_TOPICS} (MAX_TOPICS)",
            MAX_TOPICS + 1
        )
    );
    let create = r#"{"at_ms":1,"action":"create_topic","name":"extra","partitions":1,"replication_factor":1}"#;
    assert_eq!(
        refused(&with(1, &topics(MAX_TOPICS), create)),
        format!(
            "actions[0]: {} topics in all, over the limit of {MAX_TOPICS} (MAX_TOPICS)",
            MAX_TOPICS + 1
        )
    );
}

#[test]
fn partitions_per_topic_limit() {
    let t = |p: u64| format!(r#"{{"name":"t","partitions":{p},"replication_factor":1}}"#);
    assert!(Scenario::parse(&with(1, &t(MAX_PARTITIONS_PER_TOPIC), "")).is_ok());
    assert_eq!(
        refused(&with(1, &t(MAX_PARTITIONS_PER_TOPIC + 1), "")),
        "topics[0].partitions: expected a whole number from 1 to 100000 (MAX_PARTITIONS_PER_TOPIC), got 100001"
    );
    let rows = |n: u64| vec!["[0]"; n as usize].join(",");
    let a = |n: u64| format!(r#"{{"name":"t","assignment":[{}]}}"#, rows(n));
    assert!(Scenario::parse(&with(1, &a(MAX_PARTITIONS_PER_TOPIC), "")).is_ok());
    assert_eq!(
        refused(&with(1, &a(MAX_PARTITIONS_PER_TOPIC + 1), "")),
        "topics[0].assignment: 100001 partitions, over the limit of 100000 (MAX_PARTITIONS_PER_TOPIC)"
    );
}

#[test]
fn total_partition_limit_counts_added_partitions_too() {
    let full = |b: u64| {
        format!(
            r#"{{"name":"a","partitions":{MAX_PARTITIONS_PER_TOPIC},"replication_factor":1}},{{"name":"b","partitions":{b},"replication_factor":1}},{{"name":"c","partitions":1,"replication_factor":1}}"#
        )
    };
    let b = MAX_PARTITIONS - MAX_PARTITIONS_PER_TOPIC - 2;
    let grow = r#"{"at_ms":1,"action":"add_partitions","topic":"c","count":2}"#;
    assert!(Scenario::parse(&with(1, &full(b), grow)).is_ok());
    assert_eq!(
        refused(&with(1, &full(b + 1), grow)),
        format!(
            "actions[0]: {} partitions in all, over the limit of {MAX_PARTITIONS} (MAX_PARTITIONS)",
            MAX_PARTITIONS + 1
        )
    );
}

#[test]
fn replica_limit_refuses_the_largest_cluster_at_full_replication_before_building() {
    // 100 brokers and 100,000 partitions at replication factor 100 would be
    // ten million replicas: refused at parse time, nothing allocated.
    let t =
        |p: u64, rf: u64| format!(r#"{{"name":"a","partitions":{p},"replication_factor":{rf}}}"#);
    assert_eq!(
        refused(&with(MAX_BROKERS, &t(MAX_PARTITIONS_PER_TOPIC, 100), "")),
        "topics[0]: 10000000 replicas in all, over the limit of 1000000 (MAX_REPLICAS)"
    );
    let at = MAX_REPLICAS / 10;
    assert!(Scenario::parse(&with(10, &t(at, 10), "")).is_ok());
    let create =
        r#"{"at_ms":1,"action":"create_topic","name":"b","partitions":1,"replication_factor":1}"#;
    assert_eq!(
        refused(&with(10, &t(at, 10), create)),
        format!(
            "actions[0]: {} replicas in all, over the limit of {MAX_REPLICAS} (MAX_REPLICAS)",
            MAX_REPLICAS + 1
        )
    );
}

#[test]
fn znode_data_limit_is_zookeepers_jute_maxbuffer() {
    // ZooKeeper: jute.maxbuffer (default 0xfffff bytes) bounds a znode's data.
    let set = |n: usize| {
        format!(
            r#"{{"at_ms":1,"action":"set_znode","path":"/x","data":"{}"}}"#,
            "d".repeat(n)
        )
    };
    assert!(Scenario::parse(&with(1, "", &set(MAX_ZNODE_DATA_BYTES))).is_ok());
    assert_eq!(
        refused(&with(1, "", &set(MAX_ZNODE_DATA_BYTES + 1))),
        "actions[0]: data of 1048576 bytes (MAX_ZNODE_DATA_BYTES, ZooKeeper's jute.maxbuffer) is not from 0 to 1048575"
    );
}

#[test]
fn broker_ids_are_at_most_reserved_broker_max_id() {
    // Kafka: KafkaConfig.validateValues requires broker.id <=
    // reserved.broker.max.id (1000 by default). Found by `kcsim fuzz`: the
    // id 4294967295 overflowed the port (9092 + id) of its registration.
    let text = |id: u32| format!(r#"{{"version":1,"brokers":[0,{id}]}}"#);
    assert!(Scenario::parse(&text(MAX_BROKER_ID)).is_ok());
    assert_eq!(
        refused(&text(MAX_BROKER_ID + 1)),
        "brokers[1]: broker.id 1001: broker.id must be equal or greater than -1 and not greater than reserved.broker.max.id (1000)"
    );
    assert!(Scenario::parse(&text(u32::MAX)).is_err());
}

#[test]
fn the_page_and_console_go_through_the_same_limits_and_change_nothing_when_refused() {
    // A button, the console, a lesson step: each reaches the core through
    // Timeline::intervene/insert (or Sim::schedule_action), which check the
    // action as a scenario file's parser does.
    let s = Scenario::parse(&with(3, "", "")).expect("valid");
    let mut t = crate::timeline::Timeline::new(&s);
    let before = t.actions().len();
    let pause = |ms| Action::PauseBroker {
        broker: BrokerId(0),
        duration_ms: ms,
    };
    let e = t
        .intervene(SimTime(10), pause(MAX_TIME_MS + 1))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "a pause of {} ms (MAX_TIME_MS, one day) is not from 1 to {MAX_TIME_MS}",
            MAX_TIME_MS + 1
        )
    );
    let e = t
        .intervene(SimTime(MAX_TIME_MS + 1), pause(10))
        .unwrap_err();
    assert!(e.to_string().contains("MAX_TIME_MS"), "{e}");
    assert_eq!(t.actions().len(), before, "nothing was added");
    assert!(t.intervene(SimTime(10), pause(MAX_TIME_MS)).is_ok());
    let mut sim = s.build();
    assert!(matches!(
        sim.schedule_action(SimTime(1), pause(0)),
        Err(crate::sim::ActionError::Invalid(_))
    ));
}

#[test]
fn a_run_holds_at_most_max_actions() {
    let kill = r#"{"at_ms":1,"action":"kill_broker","broker":0}"#;
    let s = Scenario::parse(&with(1, "", &vec![kill; MAX_ACTIONS - 1].join(","))).expect("valid");
    let mut t = crate::timeline::Timeline::new(&s);
    let start = Action::StartBroker {
        broker: BrokerId(0),
    };
    assert!(t.insert(SimTime(2), start.clone()).is_ok());
    assert_eq!(
        t.insert(SimTime(3), start).unwrap_err(),
        crate::sim::ActionError::TooManyActions { limit: MAX_ACTIONS }
    );
    assert_eq!(t.actions().len(), MAX_ACTIONS);
}
