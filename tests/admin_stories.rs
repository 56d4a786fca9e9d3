//! Scenario stories of admin flows: preferred elections (ZooKeeper and admin API),
//! auto leader rebalance. Each names the Kafka behaviour it mirrors.

use kcsim::Story;
use kcsim_core::controller::event::ElectionType;
use kcsim_core::{Action, BrokerId, TopicPartition};

fn tp(t: &str, p: u32) -> TopicPartition {
    TopicPartition::new(t, p)
}

/// A topic whose partition 0 prefers a non-controller broker v, after v was
/// killed and restarted: leadership stayed with a.
fn restarted_preferred(seed: u64) -> (Story, BrokerId, BrokerId) {
    let mut s = Story::brokers(seed, 3);
    s.until(5_000);
    let others = s.non_controllers();
    let (v, a) = (others[0], others[1]);
    let c = s.controller();
    s.create_topic(5_000, "t", &[&[v.0, a.0, c.0], &[a.0, v.0, c.0]]);
    s.at(6_000, Action::KillBroker { broker: v })
        .at(14_000, Action::StartBroker { broker: v })
        .until(20_000);
    assert_eq!(
        s.partition("t", 0).leader,
        Some(a),
        "not given back on restart"
    );
    (s, v, a)
}

#[test]
fn preferred_election_through_zookeeper_brings_the_leader_home() {
    // Kafka: /admin/preferred_replica_election → ReplicaLeaderElection (ZkTriggered),
    // PreferredReplicaPartitionLeaderElectionStrategy; the znode is deleted afterwards.
    let (mut s, v, _a) = restarted_preferred(30);
    s.at(20_000, Action::PreferredElection { partitions: None })
        .until(21_000);
    assert_eq!(s.partition("t", 0).leader, Some(v));
    assert!(
        s.sim
            .zk()
            .node("/admin/preferred_replica_election")
            .is_none(),
        "the controller deleted it"
    );
    let results = s.records("election_result");
    assert!(
        results
            .iter()
            .any(|r| r.details.contains("t-1: ELECTION_NOT_NEEDED")),
        "{results:#?}"
    );
    assert!(results
        .iter()
        .any(|r| r.details.contains(&format!("t-0: NONE (leader {v})"))));
    // The watch was re-armed: a second election works too.
    s.at(
        22_000,
        Action::PreferredElection {
            partitions: Some(vec![tp("t", 0)]),
        },
    )
    .until(23_000);
    assert!(s
        .sim
        .zk()
        .node("/admin/preferred_replica_election")
        .is_none());
    s.assert_no_violations();
}

#[test]
fn admin_elections_report_kafkas_error_codes() {
    // Kafka: KafkaController.onReplicaElection results (KIP-460): ELECTION_NOT_NEEDED,
    // PREFERRED_LEADER_NOT_AVAILABLE, ELIGIBLE_LEADERS_NOT_AVAILABLE, UNKNOWN_TOPIC_OR_PARTITION.
    let (mut s, v, _a) = restarted_preferred(31);
    s.at(20_000, Action::KillBroker { broker: v }).until(30_000);
    s.at(
        30_000,
        Action::ElectLeaders {
            election_type: ElectionType::Preferred,
            partitions: vec![tp("t", 0), tp("t", 1), tp("t", 9)],
        },
    )
    .until(30_500);
    s.at(
        30_500,
        Action::ElectLeaders {
            election_type: ElectionType::Unclean,
            partitions: vec![tp("t", 0)],
        },
    )
    .until(31_000);
    let results: Vec<String> = s
        .records("election_result")
        .iter()
        .map(|r| r.details.clone())
        .collect();
    let has = |needle: &str| results.iter().any(|r| r.contains(needle));
    assert!(
        has("PREFERRED election of t-0: PREFERRED_LEADER_NOT_AVAILABLE"),
        "{results:#?}"
    );
    assert!(
        has("PREFERRED election of t-1: ELECTION_NOT_NEEDED"),
        "{results:#?}"
    );
    assert!(
        has("PREFERRED election of t-9: UNKNOWN_TOPIC_OR_PARTITION"),
        "{results:#?}"
    );
    assert!(
        has("UNCLEAN election of t-0: ELECTION_NOT_NEEDED"),
        "the leader is live: {results:#?}"
    );
}

#[test]
fn auto_rebalance_brings_leaders_home_after_the_check_interval() {
    // Kafka: checkAndTriggerAutoLeaderRebalance — first 5 s after failover, then every
    // leader.imbalance.check.interval.seconds (300); a broker whose imbalance ratio is
    // above 10 % gets preferred elections for the partitions it prefers.
    let (mut s, v, a) = restarted_preferred(32);
    s.until(290_000);
    assert_eq!(s.partition("t", 0).leader, Some(a), "not yet");
    s.until(320_000);
    assert_eq!(
        s.partition("t", 0).leader,
        Some(v),
        "brought home by the periodic check"
    );
    let imbalance = s.records("imbalance");
    assert!(
        imbalance
            .iter()
            .any(|r| r.details.contains(&format!("broker {v} is 1.000"))),
        "{imbalance:#?}"
    );
    s.assert_no_violations();
}

#[test]
fn auto_rebalance_can_be_turned_off() {
    // Kafka: auto.leader.rebalance.enable=false schedules no check.
    let config = kcsim_core::Config {
        auto_leader_rebalance_enable: false,
        ..Default::default()
    };
    let mut s = Story::with_config(33, 3, config);
    s.until(5_000);
    let others = s.non_controllers();
    let (v, a) = (others[0], others[1]);
    s.create_topic(5_000, "t", &[&[v.0, a.0]]);
    s.at(6_000, Action::KillBroker { broker: v })
        .at(14_000, Action::StartBroker { broker: v })
        .until(400_000);
    assert_eq!(s.partition("t", 0).leader, Some(a));
    assert!(s.records("imbalance").is_empty());
}
