//! The controller's clock against Kafka's published figures (spec §10):
//! virtual time is deterministic, so the figures `kcsim figures` prints can be
//! asserted here, on the same cluster shapes scaled down.

use kcsim_core::cost::{CostModel, ZkMode};
use kcsim_core::figures::{measure, Published, Work, PUBLISHED};
use kcsim_core::Config;

fn published(work: Work) -> &'static Published {
    PUBLISHED
        .iter()
        .find(|p| p.work == work)
        .expect("a published figure")
}

/// Within 10 % of `want` seconds.
fn close(got_ms: u64, want_s: f64) -> bool {
    let got = got_ms as f64 / 1000.0;
    (got - want_s).abs() <= want_s * 0.10
}

#[test]
fn failover_takes_kafka_1_1s_time_async_and_kafka_1_0s_sync() {
    // Kafka: KafkaController.onControllerFailover reads every topic and
    // partition state (initializeControllerContext), then sends LeaderAndIsr and
    // UpdateMetadata for everything; 1.1 pipelined the reads (KAFKA-5642):
    // 100,000 partitions in 14 s instead of 28 s (spec §10 F5). Here at 1/20.
    let p = published(Work::Failover);
    let k = 20;
    let shape = p.shape.scaled_down(k);
    let a = measure(&shape, Work::Failover, ZkMode::Async).unwrap();
    let s = measure(&shape, Work::Failover, ZkMode::Sync).unwrap();
    let want_a = p.kafka_1_1_s.unwrap() / f64::from(k);
    let want_s = p.kafka_1_0_s.unwrap() / f64::from(k);
    assert!(
        close(a.virtual_ms, want_a),
        "async {} ms, want {want_a} s",
        a.virtual_ms
    );
    assert!(
        close(s.virtual_ms, want_s),
        "sync {} ms, want {want_s} s",
        s.virtual_ms
    );
    assert!(
        a.reads >= shape.partitions(),
        "every partition state is read: {} reads",
        a.reads
    );
    // F9: reading ZooKeeper is about 70 % of a failover.
    let read_us = CostModel::of(&Config::default()).zk_read_us;
    let read_share = (a.reads * read_us) as f64 / (a.virtual_ms * 1000) as f64;
    assert!(
        (0.6..0.8).contains(&read_share),
        "reads are {read_share:.2} of it"
    );
}

#[test]
fn failover_time_grows_linearly_with_partitions() {
    // Kafka: failover cost is O(all partitions) (spec §10, structural model).
    let p = published(Work::Failover);
    let small = measure(&p.shape.scaled_down(40), Work::Failover, ZkMode::Async).unwrap();
    let large = measure(&p.shape.scaled_down(20), Work::Failover, ZkMode::Async).unwrap();
    let ratio = large.virtual_ms as f64 / small.virtual_ms as f64;
    assert!(
        (1.8..2.2).contains(&ratio),
        "twice the partitions: ×{ratio:.2}"
    );
}

#[test]
fn controlled_shutdown_takes_3_s_async_and_30_s_sync_for_10000_partitions() {
    // Kafka: doControlledShutdown moves the broker's leaders and shrinks the ISRs
    // it follows in one event, one conditional ZooKeeper write each; 1.1's async
    // writes and batched requests took 10,000 partitions from 30 s to 3 s
    // (spec §10 F2/F4). Here at 1/20.
    let p = published(Work::ControlledShutdown);
    let k = 20;
    let shape = p.shape.scaled_down(k);
    let a = measure(&shape, Work::ControlledShutdown, ZkMode::Async).unwrap();
    let s = measure(&shape, Work::ControlledShutdown, ZkMode::Sync).unwrap();
    let want_a = p.kafka_1_1_s.unwrap() / f64::from(k);
    let want_s = p.kafka_1_0_s.unwrap() / f64::from(k);
    assert!(
        close(a.virtual_ms, want_a),
        "async {} ms, want {want_a} s",
        a.virtual_ms
    );
    assert!(
        close(s.virtual_ms, want_s),
        "sync {} ms, want {want_s} s",
        s.virtual_ms
    );
    let replicas = shape.partitions() * u64::from(shape.replication_factor);
    let on_victim = replicas / u64::from(shape.brokers);
    assert_eq!(
        a.writes, on_victim,
        "one ZooKeeper write per partition on the broker"
    );
}

#[test]
fn events_that_arrive_during_a_long_failover_wait_their_turn() {
    // Kafka: ControllerEventManager runs one event at a time; a TopicChange
    // enqueued while onControllerFailover runs waits until it is done (spec §10:
    // "during all of this the event queue is blocked").
    use kcsim_core::figures::scenario_json;
    use kcsim_core::scenario::Scenario;
    use kcsim_core::{Action, SimTime};
    let shape = published(Work::Failover).shape.scaled_down(40);
    let mut sim = Scenario::parse(&scenario_json(&shape, ZkMode::Sync))
        .unwrap()
        .build();
    sim.run_until(SimTime(20_000));
    let path = "/controller".to_string();
    sim.schedule_action(SimTime(20_000), Action::DeleteZnode { path })
        .unwrap();
    let create = Action::CreateTopic {
        name: "late".into(),
        assignment: None,
        partitions: Some(1),
        replication_factor: Some(1),
    };
    sim.schedule_action(SimTime(20_100), create).unwrap();
    sim.run_until(SimTime(30_000));
    let failover = sim
        .trace()
        .iter()
        .find(|r| r.time_ms >= 20_000 && r.details().starts_with("processing Reelect"))
        .map(|r| r.time_ms)
        .expect("a failover");
    let topic_change = sim
        .trace()
        .iter()
        .find(|r| r.time_ms >= 20_000 && r.details().starts_with("processing TopicChange"))
        .expect("the topic change is processed");
    assert!(
        topic_change.time_ms >= failover + 600,
        "it waited for the failover ({failover} ms) to finish: {}",
        topic_change.details()
    );
    let queued: u64 = topic_change
        .details()
        .split("queued ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("the trace says how long it waited");
    assert!(
        queued + 20_100 >= topic_change.time_ms - 5 && queued >= 500,
        "queued {queued} ms behind the failover"
    );
}
