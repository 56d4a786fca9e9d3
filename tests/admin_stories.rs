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
            .any(|r| r.details().contains("t-1: ELECTION_NOT_NEEDED")),
        "{results:#?}"
    );
    assert!(results
        .iter()
        .any(|r| r.details().contains(&format!("t-0: NONE (leader {v})"))));
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
        .map(|r| r.details().clone())
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
            .any(|r| r.details().contains(&format!("broker {v} is 1.000"))),
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

#[test]
fn adding_partitions_rewrites_the_assignment_and_creates_them() {
    // Kafka: AdminZkClient.addPartitions rewrites /brokers/topics/<t>;
    // KafkaController.processPartitionModifications → onNewPartitionCreation.
    let mut s = Story::brokers(34, 3);
    s.until(5_000);
    s.create_topic(5_000, "t", &[&[0, 1], &[1, 2]]);
    s.at(
        6_000,
        Action::AddPartitions {
            topic: "t".into(),
            count: 4,
        },
    )
    .until(7_000);
    for p in 0..4 {
        let part = s.partition("t", p);
        assert_eq!(
            part.state,
            kcsim_core::controller::states::PartitionState::OnlinePartition,
            "t-{p}"
        );
        assert_eq!(part.replicas.len(), 2);
    }
    assert_eq!(
        s.partition("t", 0).replicas,
        vec![BrokerId(0), BrokerId(1)],
        "existing partitions keep their replicas"
    );
    s.at(
        8_000,
        Action::AddPartitions {
            topic: "t".into(),
            count: 3,
        },
    )
    .until(8_100);
    assert!(s
        .records("action_failed")
        .iter()
        .any(|r| r.details().contains("would not be an increase")));
    assert_eq!(s.sim.partition_overview().len(), 4, "nothing changed");
    s.assert_no_violations();
}

#[test]
fn deleting_a_topic_pauses_while_a_replica_is_down_and_completes_after_restart() {
    // Kafka: TopicDeletionManager — replicas on dead brokers make the topic ineligible;
    // onBrokerStartup → resumeDeletionForTopics; StopReplica(delete=true) responses
    // complete it, and the znodes go.
    let mut s = Story::brokers(35, 3);
    s.until(5_000);
    let others = s.non_controllers();
    let (x, y) = (others[0], others[1]);
    s.create_topic(5_000, "doomed", &[&[x.0, y.0]]);
    s.at(6_000, Action::KillBroker { broker: y }).until(14_000);
    s.at(
        14_000,
        Action::DeleteTopic {
            topic: "doomed".into(),
        },
    )
    .until(16_000);
    assert!(
        s.sim.zk().node("/brokers/topics/doomed").is_some(),
        "paused: replica on a dead broker"
    );
    assert!(!s.records("topic_deletion_paused").is_empty());
    assert!(s.sim.zk().node("/admin/delete_topics/doomed").is_some());
    s.at(16_000, Action::StartBroker { broker: y })
        .until(20_000);
    assert!(
        s.sim.zk().node("/brokers/topics/doomed").is_none(),
        "completed after the restart"
    );
    assert!(s.sim.zk().node("/config/topics/doomed").is_none());
    assert!(s.sim.zk().node("/admin/delete_topics/doomed").is_none());
    assert_eq!(s.records("topic_deleted").len(), 1);
    for b in [x, y] {
        assert!(
            s.sim.log(b, &tp("doomed", 0)).is_none(),
            "broker {b} deleted its log"
        );
        assert!(
            !s.broker(b)
                .metadata
                .partitions
                .contains_key(&tp("doomed", 0)),
            "broker {b} forgot the topic"
        );
    }
    s.at(
        21_000,
        Action::DeleteTopic {
            topic: "doomed".into(),
        },
    )
    .until(21_100);
    assert!(s
        .records("action_failed")
        .iter()
        .any(|r| r.details().contains("does not exist")));
    s.assert_no_violations();
}

#[test]
fn reassigning_a_partition_away_from_its_leader_moves_the_leader() {
    // Kafka 2.4 (KIP-455): onPartitionReassignment — RS = TRS + ORS, new replicas join the
    // ISR, the leader not in TRS moves with ReassignPartitionLeaderElectionStrategy, the
    // removed replicas are stopped and deleted, RS = TRS; /admin/reassign_partitions goes.
    let mut s = Story::brokers(36, 4);
    s.until(5_000);
    s.create_topic(5_000, "t", &[&[0, 1]]).until(6_000);
    let before = s.partition("t", 0);
    assert_eq!(before.leader, Some(BrokerId(0)));
    let target = vec![BrokerId(2), BrokerId(3)];
    s.at(
        6_000,
        Action::ReassignPartitions {
            partitions: vec![kcsim_core::action::PartitionTarget {
                topic: "t".into(),
                partition: 0,
                replicas: target.clone(),
            }],
        },
    )
    .until(9_000);
    let notes = s.records("reassignment");
    assert!(
        notes
            .iter()
            .any(|r| r.details() == "t-0: replicas [2,3,0,1], adding [2,3], removing [0,1]"),
        "RS = TRS ++ ORS while adding: {notes:#?}"
    );
    let after = s.partition("t", 0);
    assert_eq!(after.replicas, target);
    assert_eq!(
        after.leader,
        Some(BrokerId(2)),
        "first target replica in the ISR"
    );
    let mut isr = after.isr.clone();
    isr.sort();
    assert_eq!(isr, target);
    assert!(after.leader_epoch > before.leader_epoch);
    assert!(s.sim.zk().node("/admin/reassign_partitions").is_none());
    assert_eq!(s.records("reassignment_completed").len(), 1);
    for b in [0, 1] {
        assert!(
            s.sim.log(BrokerId(b), &tp("t", 0)).is_none(),
            "broker {b}'s replica was deleted"
        );
    }
    s.assert_no_violations();
}

#[test]
fn a_bad_reassignment_changes_nothing() {
    let mut s = Story::brokers(37, 3);
    s.until(5_000);
    s.create_topic(5_000, "t", &[&[0, 1]]).until(6_000);
    let before = kcsim_core::report::FinalState::of(&s.sim).zk;
    s.at(
        6_000,
        Action::ReassignPartitions {
            partitions: vec![kcsim_core::action::PartitionTarget {
                topic: "t".into(),
                partition: 7,
                replicas: vec![BrokerId(1)],
            }],
        },
    )
    .until(6_001);
    assert!(s
        .records("action_failed")
        .iter()
        .any(|r| r.details().contains("t-7 does not exist")));
    assert_eq!(kcsim_core::report::FinalState::of(&s.sim).zk, before);
}

#[test]
fn a_reassignment_naming_a_broker_twice_or_none_is_refused_by_the_controller() {
    // Kafka 2.4: KafkaController.validateReassignment answers
    // INVALID_REPLICA_ASSIGNMENT for an empty target or one with duplicate
    // replica ids; the partition keeps its replicas. Written straight to
    // /admin/reassign_partitions (the tools refuse such a list before it).
    let mut s = Story::brokers(39, 3);
    s.until(5_000);
    s.create_topic(5_000, "t", &[&[0, 1], &[1, 2], &[2, 0]])
        .until(6_000);
    s.at(
        6_000,
        Action::CreateZnode {
            path: "/admin/reassign_partitions".into(),
            data: r#"{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2,1]},{"topic":"t","partition":1,"replicas":[]},{"topic":"t","partition":2,"replicas":[0,1]}]}"#.into(),
            ephemeral: false,
            sequential: false,
        },
    )
    .until(20_000);
    let refused: Vec<String> = s
        .records("reassignment_failed")
        .iter()
        .map(|r| r.details())
        .collect();
    assert!(
        refused
            .iter()
            .any(|d| d == "reassignment of t-0 to [1,2,1]: INVALID_REPLICA_ASSIGNMENT"),
        "{refused:#?}"
    );
    assert!(
        refused
            .iter()
            .any(|d| d == "reassignment of t-1 to []: INVALID_REPLICA_ASSIGNMENT"),
        "{refused:#?}"
    );
    assert!(!refused.iter().any(|d| d.contains("t-2")), "{refused:#?}");
    assert_eq!(s.partition("t", 0).replicas, vec![BrokerId(0), BrokerId(1)]);
    assert_eq!(s.partition("t", 1).replicas, vec![BrokerId(1), BrokerId(2)]);
    assert_eq!(s.partition("t", 2).replicas, vec![BrokerId(0), BrokerId(1)]);
    s.assert_no_violations();
}

#[test]
fn auto_rebalance_waits_while_a_reassignment_runs() {
    // Kafka: checkAndTriggerAutoLeaderRebalance skips every candidate while any
    // partition of the cluster is being reassigned.
    let mut s = Story::brokers(38, 4);
    s.until(5_000);
    let c = s.controller();
    let others = s.non_controllers();
    let (v, a, d) = (others[0], others[1], others[2]);
    s.create_topic(5_000, "t", &[&[v.0, a.0]]);
    s.create_topic(5_000, "u", &[&[a.0, c.0]]);
    s.at(6_000, Action::KillBroker { broker: v })
        .at(14_000, Action::StartBroker { broker: v });
    // d goes down, and u-0 is reassigned onto it: the reassignment cannot finish.
    s.at(20_000, Action::KillBroker { broker: d });
    s.at(
        30_000,
        Action::ReassignPartitions {
            partitions: vec![kcsim_core::action::PartitionTarget {
                topic: "u".into(),
                partition: 0,
                replicas: vec![a, d],
            }],
        },
    );
    s.until(320_000);
    assert!(
        !s.broker(c)
            .controller
            .ctx
            .partitions_being_reassigned
            .is_empty(),
        "u-0 is still being reassigned"
    );
    assert_eq!(
        s.partition("t", 0).leader,
        Some(a),
        "no preferred election while reassigning"
    );
    assert!(!s.records("imbalance").is_empty(), "the check ran");
    // Once d is back the reassignment completes, and the next check brings t-0 home.
    s.at(320_000, Action::StartBroker { broker: d })
        .until(330_000);
    assert!(s
        .broker(c)
        .controller
        .ctx
        .partitions_being_reassigned
        .is_empty());
    s.until(620_000);
    assert_eq!(s.partition("t", 0).leader, Some(v));
    s.assert_no_violations();
}

#[test]
fn create_topic_partition_states_raw_creates_partitions_once_then_each_partition_then_each_state() {
    // Kafka: KafkaZkClient.createTopicPartitionStatesRaw — `/brokers/topics/<t>/partitions`
    // once per topic, then `/partitions/<p>` for every partition, then every `/state`:
    // 1 + 2N fenced writes for a topic of N partitions, in that order.
    // Every controller write costs 1 ms and nothing else (reads, requests) costs anything, so the
    // TopicChange event's length is its number of ZooKeeper writes.
    let config = kcsim_core::Config {
        sim_controller_event_cost_ms: 0,
        sim_controller_zk_write_cost_ms: 1,
        sim_controller_zk_write_cost_us: 0,
        sim_controller_zk_read_cost_us: 0,
        sim_controller_request_partition_cost_us: 0,
        sim_controller_request_cost_ms: 0,
        ..Default::default()
    };
    let mut s = Story::with_config(39, 3, config);
    s.until(5_000);
    let c = s.controller();
    s.create_topic(5_000, "t", &[&[0, 1], &[1, 2], &[2, 0], &[0, 2]]);
    let mut writes = None;
    while s.sim.now().as_ms() < 6_000 && writes.is_none() {
        assert!(s.sim.step());
        if let Some(cur) = &s.broker(c).controller.current {
            if cur.event.name() == "TopicChange" {
                writes = Some(cur.done_at.as_ms() - cur.started_at.as_ms());
            }
        }
    }
    assert_eq!(writes, Some(1 + 2 * 4), "1 + 2N writes for N = 4");
    s.until(6_000);
    let czxid = |p: &str| {
        s.sim
            .zk()
            .node(p)
            .unwrap_or_else(|| panic!("{p} exists"))
            .stat
            .czxid
    };
    let partitions = czxid("/brokers/topics/t/partitions");
    let nodes: Vec<i64> = (0..4)
        .map(|p| czxid(&format!("/brokers/topics/t/partitions/{p}")))
        .collect();
    let states: Vec<i64> = (0..4)
        .map(|p| czxid(&format!("/brokers/topics/t/partitions/{p}/state")))
        .collect();
    assert!(
        nodes.iter().all(|n| *n > partitions),
        "{partitions} {nodes:?}"
    );
    let last_node = nodes.iter().max().copied().unwrap_or_default();
    assert!(
        states.iter().all(|st| *st > last_node),
        "every partition znode before any state znode: {nodes:?} {states:?}"
    );
    for p in 0..4 {
        assert_eq!(
            s.partition("t", p).state,
            kcsim_core::controller::states::PartitionState::OnlinePartition
        );
    }
    s.assert_no_violations();
}

#[test]
fn start_replica_deletion_treats_replicas_on_shutting_down_brokers_as_dead() {
    // Kafka: TopicDeletionManager.startReplicaDeletion takes the live replicas from
    // ControllerContext.allLiveReplicas(), i.e. replicasOnBrokers(liveBrokerIds), and
    // liveBrokerIds leaves out shuttingDownBrokerIds: a replica on a broker in controlled
    // shutdown goes to ReplicaDeletionIneligible and the topic is marked ineligible
    // ("offline replicas"); deletion resumes when that broker starts again.
    use kcsim_core::controller::states::ReplicaState;
    let mut s = Story::brokers(43, 3);
    s.until(5_000);
    let c = s.controller();
    let others = s.non_controllers();
    let (x, y) = (others[0], others[1]);
    // pin-0 can only be led by x once y is gone, so x's controlled shutdown retries
    // and x stays in shuttingDownBrokerIds for a while.
    s.create_topic(5_000, "pin", &[&[x.0, y.0]]);
    s.create_topic(5_000, "doomed", &[&[c.0, x.0]]);
    s.at(6_000, Action::KillBroker { broker: y }).until(14_000);
    s.at(14_000, Action::ShutdownBroker { broker: x });
    s.until(14_500);
    assert!(
        s.broker(c).controller.ctx.shutting_down.contains(&x),
        "x is in controlled shutdown"
    );
    s.at(
        14_500,
        Action::DeleteTopic {
            topic: "doomed".into(),
        },
    )
    .until(16_000);
    assert!(
        s.broker(c).controller.ctx.shutting_down.contains(&x),
        "x is still shutting down"
    );
    assert!(
        s.sim.zk().node("/brokers/topics/doomed").is_some(),
        "paused: x's replica is not live while x shuts down"
    );
    let ctx = &s.broker(c).controller.ctx;
    // c's replica was deleted; x's went Ineligible, and the retry after c's response
    // (retryDeletionForIneligibleReplicas) moved it back to OfflineReplica.
    assert_eq!(
        ctx.replica_states.get(&tp("doomed", 0), c),
        Some(ReplicaState::ReplicaDeletionSuccessful)
    );
    assert_eq!(
        ctx.replica_states.get(&tp("doomed", 0), x),
        Some(ReplicaState::OfflineReplica)
    );
    assert!(ctx.topics_ineligible_for_deletion.contains("doomed"));
    assert!(
        s.sim.log(x, &tp("doomed", 0)).is_some(),
        "no StopReplica(delete=true) went to x"
    );
    // Once x is back, deletion resumes and completes.
    s.until(40_000);
    s.at(40_000, Action::StartBroker { broker: x })
        .until(50_000);
    assert!(s.sim.zk().node("/brokers/topics/doomed").is_none());
    assert!(s.sim.log(x, &tp("doomed", 0)).is_none());
    s.assert_no_violations();
}

#[test]
fn a_topic_config_change_writes_a_config_change_notification() {
    // Kafka: AdminZkClient.changeTopicConfig → changeEntityConfig →
    // KafkaZkClient.createConfigChangeNotification: /config/topics/<t>, then a persistent
    // sequential /config/changes/config_change_<seq> with {"version":2,"entity_path":"topics/<t>"}.
    let mut s = Story::brokers(31, 3);
    s.until(5_000);
    s.create_topic(5_000, "t", &[&[0, 1]]);
    s.at(
        6_000,
        Action::SetConfig {
            key: "min.insync.replicas".into(),
            value: serde_json::json!(2),
            topic: Some("t".into()),
        },
    )
    .at(
        7_000,
        Action::SetConfig {
            key: "unclean.leader.election.enable".into(),
            value: serde_json::json!(true),
            topic: Some("t".into()),
        },
    )
    .until(8_000);
    let zk = s.sim.zk();
    assert_eq!(
        zk.node("/config/topics/t").unwrap().data,
        r#"{"version":1,"config":{"min.insync.replicas":"2","unclean.leader.election.enable":"true"}}"#
    );
    let changes: Vec<_> = zk.children("/config/changes").collect();
    assert_eq!(
        changes,
        vec!["config_change_0000000000", "config_change_0000000001"]
    );
    for c in changes {
        assert_eq!(
            zk.node(&format!("/config/changes/{c}")).unwrap().data,
            r#"{"version":2,"entity_path":"topics/t"}"#
        );
    }
    // A refused change writes nothing.
    s.at(
        9_000,
        Action::SetConfig {
            key: "min.insync.replicas".into(),
            value: serde_json::json!("lots"),
            topic: Some("t".into()),
        },
    )
    .until(9_500);
    assert_eq!(s.sim.zk().children("/config/changes").count(), 2);
}

#[test]
fn the_persistent_top_level_paths_exist_from_time_zero() {
    // Kafka: KafkaZkClient.createTopLevelPaths creates ZkData.PersistentZkPaths at start-up.
    let s = Story::brokers(32, 1);
    for p in [
        "/consumers",
        "/brokers/ids",
        "/brokers/topics",
        "/config/changes",
        "/admin/delete_topics",
        "/brokers/seqid",
        "/isr_change_notification",
        "/latest_producer_id_block",
        "/log_dir_event_notification",
        "/config/topics",
        "/config/clients",
        "/config/users",
        "/config/brokers",
    ] {
        assert!(s.sim.zk().node(p).is_some(), "{p} exists at time 0");
    }
}

#[test]
fn a_static_broker_config_cannot_change_at_run_time() {
    // Kafka: DynamicBrokerConfig.validateConfigs — "Cannot update these configs
    // dynamically" for a key outside DynamicBrokerConfig.AllDynamicConfigs
    // (auto.leader.rebalance.enable, zookeeper.session.timeout.ms, ...); a key in it
    // (unclean.leader.election.enable, min.insync.replicas) changes at run time.
    let mut s = Story::brokers(33, 3);
    s.until(5_000);
    let before = s.sim.config().clone();
    for (i, (key, value)) in [
        ("auto.leader.rebalance.enable", serde_json::json!(false)),
        ("zookeeper.session.timeout.ms", serde_json::json!(18_000)),
        ("replica.lag.time.max.ms", serde_json::json!(30_000)),
        ("sim.network.latency.ms", serde_json::json!(50)),
    ]
    .into_iter()
    .enumerate()
    {
        let at = 5_000 + 100 * i as u64;
        s.at(
            at,
            Action::SetConfig {
                key: key.into(),
                value,
                topic: None,
            },
        )
        .until(at + 50);
        let failed = s
            .first_after("action_failed", at)
            .map(|r| r.details().clone());
        assert!(
            failed.as_deref().is_some_and(|d| d.contains(key)),
            "{key} refused with a message naming it: {failed:?}"
        );
        assert_eq!(s.sim.config(), &before, "{key}: nothing changed");
    }
    s.at(
        6_000,
        Action::SetConfig {
            key: "unclean.leader.election.enable".into(),
            value: serde_json::json!(true),
            topic: None,
        },
    )
    .at(
        6_000,
        Action::SetConfig {
            key: "min.insync.replicas".into(),
            value: serde_json::json!(2),
            topic: None,
        },
    )
    .until(6_500);
    assert!(s.sim.config().unclean_leader_election_enable);
    assert_eq!(s.sim.config().min_insync_replicas, 2);
    assert_eq!(s.records("action_failed").len(), 4);
}

#[test]
fn a_static_broker_config_is_still_set_in_the_starting_configuration() {
    // Kafka: a static config is read from server.properties at start-up (KafkaConfig).
    let text = r#"{"version":1,"brokers":[0,1],
        "config":{"auto.leader.rebalance.enable":false,"zookeeper.session.timeout.ms":18000}}"#;
    let sim = kcsim_core::scenario::Scenario::parse(text).unwrap().build();
    assert!(!sim.config().auto_leader_rebalance_enable);
    assert_eq!(sim.config().zookeeper_session_timeout_ms, 18_000);
}

const ILLEGAL_CHARS: &str = "Topic name \"my topic/!\" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'";
const EMPTY: &str = "Topic name is illegal, it can't be empty";

#[test]
fn illegal_topic_names_are_refused_from_an_action_with_kafkas_message() {
    // Kafka: AdminZkClient.validateTopicCreate → Topic.validate throws
    // InvalidTopicException before anything is written.
    let mut s = Story::brokers(60, 3);
    s.until(5_000);
    let before = kcsim_core::report::FinalState::of(&s.sim).zk;
    let mut at = 5_000;
    for (name, message) in [
        ("my topic/!", ILLEGAL_CHARS),
        ("", EMPTY),
        (".", "Topic name cannot be \".\" or \"..\""),
        ("..", "Topic name cannot be \".\" or \"..\""),
    ] {
        for placed in [false, true] {
            let action = if placed {
                Action::CreateTopic {
                    name: name.into(),
                    assignment: None,
                    partitions: Some(2),
                    replication_factor: Some(2),
                }
            } else {
                Action::CreateTopic {
                    name: name.into(),
                    assignment: Some(vec![vec![BrokerId(0), BrokerId(1)]]),
                    partitions: None,
                    replication_factor: None,
                }
            };
            s.at(at, action).until(at + 10);
            let failed = s
                .first_after("action_failed", at)
                .map(|r| r.details().clone());
            assert_eq!(
                failed.as_deref(),
                Some(format!("InvalidTopicException: {message}").as_str()),
                "{name:?}"
            );
            at += 10;
        }
    }
    assert!(s.records("topic_created").is_empty());
    assert_eq!(
        kcsim_core::report::FinalState::of(&s.sim).zk,
        before,
        "nothing written"
    );
    // A topic config change names the topic too (AdminZkClient.validateTopicConfig).
    s.at(
        at,
        Action::SetConfig {
            key: "unclean.leader.election.enable".into(),
            value: serde_json::json!(true),
            topic: Some("my topic/!".into()),
        },
    )
    .until(at + 10);
    let failed = s
        .first_after("action_failed", at)
        .map(|r| r.details().clone());
    assert_eq!(
        failed,
        Some(format!("InvalidTopicException: {ILLEGAL_CHARS}"))
    );
    s.assert_no_violations();
}

#[test]
fn a_topic_name_of_249_characters_is_accepted_and_250_refused() {
    // Kafka: Topic.MAX_NAME_LENGTH = 249.
    let mut s = Story::brokers(61, 3);
    s.until(5_000);
    let long = "a".repeat(249);
    let too_long = "b".repeat(250);
    s.at(
        5_000,
        Action::CreateTopic {
            name: too_long.clone(),
            assignment: None,
            partitions: Some(1),
            replication_factor: Some(1),
        },
    )
    .until(5_010);
    let failed = s
        .first_after("action_failed", 5_000)
        .map(|r| r.details().clone());
    assert_eq!(
        failed,
        Some(format!(
            "InvalidTopicException: Topic name is illegal, it can't be longer than 249 characters, topic name: {too_long}"
        ))
    );
    s.at(
        5_010,
        Action::CreateTopic {
            name: long.clone(),
            assignment: None,
            partitions: Some(1),
            replication_factor: Some(1),
        },
    )
    .until(6_000);
    assert!(s.first_after("action_failed", 5_010).is_none());
    assert!(s.partition(&long, 0).leader.is_some(), "created and led");
    assert!(s
        .sim
        .zk()
        .node(&format!("/brokers/topics/{too_long}"))
        .is_none());
    s.assert_no_violations();
}

#[test]
fn a_topic_name_colliding_in_metric_names_is_refused() {
    // Kafka: validateTopicCreate — a name with '.' or '_' may not equal an existing
    // topic's once '.' and '_' are the same.
    let mut s = Story::brokers(62, 3);
    s.until(5_000);
    s.create_topic(5_000, "a.b", &[&[0]]).until(5_010);
    s.create_topic(5_010, "a_b", &[&[0]]).until(5_020);
    let failed = s
        .first_after("action_failed", 5_010)
        .map(|r| r.details().clone());
    assert_eq!(
        failed.as_deref(),
        Some("InvalidTopicException: Topic 'a_b' collides with existing topics: a.b")
    );
    assert!(s.sim.zk().node("/brokers/topics/a_b").is_none());
}

#[test]
fn illegal_topic_names_are_refused_from_a_scenario_file_with_kafkas_message() {
    use kcsim_core::scenario::Scenario;
    for (name, message) in [("my topic/!", ILLEGAL_CHARS), ("", EMPTY)] {
        let quoted = serde_json::to_string(name).unwrap();
        let declared = format!(
            r#"{{"version":1,"brokers":[0,1],"topics":[{{"name":{quoted},"partitions":1,"replication_factor":1}}]}}"#
        );
        let e = Scenario::parse(&declared).unwrap_err();
        assert_eq!(e.field, "topics[0].name");
        assert_eq!(e.message, format!("InvalidTopicException: {message}"));
        let created = format!(
            r#"{{"version":1,"brokers":[0,1],"actions":[{{"at_ms":5000,"action":"create_topic","name":{quoted},"partitions":1,"replication_factor":1}}]}}"#
        );
        let e = Scenario::parse(&created).unwrap_err();
        assert_eq!(e.field, "actions[0].name");
        assert_eq!(e.message, format!("InvalidTopicException: {message}"));
    }
    let colliding = r#"{"version":1,"brokers":[0],"topics":[{"name":"a.b","partitions":1,"replication_factor":1},{"name":"a_b","partitions":1,"replication_factor":1}]}"#;
    let e = Scenario::parse(colliding).unwrap_err();
    assert_eq!(e.field, "topics[1].name");
    assert_eq!(
        e.message,
        "InvalidTopicException: Topic 'a_b' collides with existing topics: a.b"
    );
}

#[test]
fn a_deletion_of_a_topic_that_does_not_exist_is_cleared_at_controller_failover() {
    // Kafka: onControllerFailover → TopicDeletionManager.init queues every
    // topic under /admin/delete_topics, known or not, and resumeDeletions
    // completes one without replicas (areAllReplicasInState holds for none):
    // completeDeleteTopic removes /admin/delete_topics/<t>. Found by kcsim
    // soak (seed 4940): the znode stayed for ever.
    let mut s = Story::brokers(5, 1);
    s.at(
        0,
        Action::CreateZnode {
            path: "/admin/delete_topics/ghost".into(),
            data: String::new(),
            ephemeral: false,
            sequential: false,
        },
    );
    s.until(500);
    assert!(s.sim.zk().node("/admin/delete_topics/ghost").is_some());
    s.until(10_000);
    assert!(s.sim.controller_id().is_some());
    assert!(
        s.sim.zk().node("/admin/delete_topics/ghost").is_none(),
        "the new controller completed the deletion of a topic with no replicas"
    );
}

#[test]
fn with_topic_deletion_disabled_a_new_controller_removes_the_request_and_keeps_the_topic() {
    // Kafka: TopicDeletionManager.init, with delete.topic.enable=false,
    // queues nothing and removes the entries under /admin/delete_topics
    // (deleteTopicDeletions). Found by kcsim soak (seeds 14691, 16962): a
    // deletion requested as the controller failed over was carried out, its
    // partitions left leaderless, though deletion was disabled.
    let config = kcsim_core::Config {
        delete_topic_enable: false,
        ..kcsim_core::Config::default()
    };
    let mut s = Story::with_config(3, 3, config);
    s.until(5_000);
    let c = s.controller();
    s.create_topic(5_000, "t", &[&[0, 1, 2]]);
    s.until(10_000);
    s.at(
        10_000,
        Action::DeleteZnode {
            path: "/controller".into(),
        },
    );
    s.at(10_000, Action::DeleteTopic { topic: "t".into() });
    s.until(20_000);
    assert!(s.sim.controller_id().is_some());
    assert_ne!(
        s.epoch(),
        1,
        "a new controller epoch after /controller went ({c} led)"
    );
    assert!(
        s.sim.zk().node("/admin/delete_topics/t").is_none(),
        "the deletion request was removed"
    );
    assert!(
        s.sim.zk().node("/brokers/topics/t").is_some(),
        "the topic stays"
    );
    let p = s.partition("t", 0);
    assert!(p.leader.is_some(), "its partition stays led: {p:?}");
    assert!(
        s.first_after("topic_deletion", 10_000).is_some(),
        "the controller said why it removed the request"
    );
}
