use super::*;
use crate::scenario::Scenario;

fn scenario(text: &str) -> Scenario {
    Scenario::parse(text).unwrap_or_else(|e| panic!("built-in scenario parses: {e}"))
}

fn unclean_scenario() -> Scenario {
    scenario(include_str!("../../scenarios/unclean-election.json"))
}

fn shutdown_scenario() -> Scenario {
    scenario(include_str!(
        "../../scenarios/controlled-shutdown-vs-kill.json"
    ))
}

fn at(s: &Scenario, ms: u64) -> Timeline {
    let mut t = Timeline::new(s);
    t.seek(SimTime(ms));
    t
}

fn tp(topic: &str, p: u32) -> TopicPartition {
    TopicPartition::new(topic, p)
}

fn row<'a>(c: &'a Comparison, tp: &TopicPartition) -> &'a PartitionRow {
    c.partitions
        .iter()
        .find(|r| &r.tp == tp)
        .unwrap_or_else(|| panic!("{tp:?} is compared"))
}

/// The two runs share every action before the fork, have nothing after it,
/// and differ in exactly the one action at it, which is `a` in A and `b` in B;
/// the trace before the fork is the original run's in both.
fn assert_differ_only_at(w: &WhatIf, original: &Timeline, a: &Action, b: &Action) {
    let fork = w.at();
    let before: Vec<_> = original
        .actions()
        .iter()
        .filter(|(t, _)| *t <= fork)
        .cloned()
        .collect();
    for (side, run, extra) in [("A", w.a(), a), ("B", w.b(), b)] {
        let mut want = before.clone();
        want.push((fork, extra.clone()));
        assert_eq!(run.actions(), &want[..], "side {side}'s actions");
        let mut orig = original.clone();
        orig.seek(fork);
        let early = |tr: &crate::trace::Records| -> Vec<crate::trace::TraceRecord> {
            tr.iter()
                .filter(|r| r.time_ms < fork.as_ms())
                .cloned()
                .collect()
        };
        assert_eq!(
            early(run.trace()),
            early(orig.trace()),
            "side {side}'s trace before the fork"
        );
    }
    assert!(
        original.actions().iter().any(|(t, _)| *t > fork),
        "the scenario had later steps, which both runs drop"
    );
}

// Kafka: PartitionLeaderElectionAlgorithms.offlinePartitionLeaderElection
// (an ISR member that is alive, else, only with unclean.leader.election.enable,
// the first live replica in AR order). payments-0's ISR shrank to [1]; broker 1
// died at 15 s and its session expired; broker 2 (out of sync) came back at
// 25 s. Forked at 27 s: with unclean off the partition stays offline; with it
// on, broker 2 leads and the records only broker 1 had are lost.
#[test]
fn unclean_off_keeps_the_partition_offline_on_elects_an_out_of_sync_replica_and_loses_records() {
    let s = unclean_scenario();
    let original = at(&s, 27_000);
    let v = Variation::Unclean {
        topic: Some("payments".into()),
    };
    let mut w = WhatIf::fork(&s, &original, SimTime(27_000), v).expect("a valid what-if");
    let set = |enabled: bool| Action::SetConfig {
        key: UNCLEAN_KEY.into(),
        value: serde_json::Value::Bool(enabled),
        topic: Some("payments".into()),
    };
    assert_differ_only_at(&w, &original, &set(false), &set(true));
    let p = tp("payments", 0);
    // Just before the fork the two runs are the same.
    w.seek(SimTime(26_999));
    let c0 = w.comparison();
    assert!(
        !c0.any_difference(),
        "no difference before the fork: {c0:?}"
    );
    let r0 = row(&c0, &p);
    assert_eq!(
        r0.a.as_ref().map(|c| c.available),
        Some(false),
        "offline at the fork"
    );

    w.seek(SimTime(40_000));
    let c = w.comparison();
    assert_eq!(c.time_ms, 40_000);
    assert_eq!(c.at_ms, 27_000);
    let r = row(&c, &p);
    let (a, b) = (r.a.as_ref().expect("in A"), r.b.as_ref().expect("in B"));
    assert_eq!(a.leader, None, "unclean off: no leader");
    assert!(!a.available);
    assert_eq!(
        b.leader,
        Some(BrokerId(2)),
        "unclean on: the out-of-sync replica leads"
    );
    assert!(b.available);
    assert_eq!(b.isr, vec![BrokerId(2)]);
    assert!(r.leader_differs && r.isr_differs && r.available_differs && r.unavailable_differs);
    assert!(a.unavailable_ms > b.unavailable_ms);
    assert_eq!(c.a.acked_records_lost, 0, "nothing lost while offline");
    assert_eq!(
        c.b.acked_records_lost, 5,
        "the five acks=all records only broker 1 had"
    );
    assert_eq!((c.a.unclean_elections, c.b.unclean_elections), (0, 1));
    assert!(
        c.differs.acked_records_lost && c.differs.unclean_elections && c.differs.unavailable_ms
    );
    assert_eq!(
        c.settings,
        vec![
            Setting::Unclean {
                topic: Some("payments".into()),
                enabled: false
            },
            Setting::Unclean {
                topic: Some("payments".into()),
                enabled: true
            },
        ]
    );
    // Going back before the fork shows them equal again.
    w.seek(SimTime(26_999));
    assert_eq!(w.comparison(), c0);
}

// Kafka: KafkaController.onBrokerFailure vs doControlledShutdown. kill -9 of
// broker 1 (leader of graceful-0 and graceful-1) leaves its partitions without
// a serving leader until its ZooKeeper session expires; kill -15 runs the
// controlled shutdown, which moves the leaders before the broker goes.
#[test]
fn kill_9_leaves_partitions_unavailable_for_a_session_timeout_kill_15_moves_leaders_first() {
    let s = shutdown_scenario();
    let original = at(&s, 5_000);
    let b1 = BrokerId(1);
    let mut w = WhatIf::fork(
        &s,
        &original,
        SimTime(5_000),
        Variation::Kill { broker: b1 },
    )
    .expect("valid");
    assert_differ_only_at(
        &w,
        &original,
        &Action::KillBroker { broker: b1 },
        &Action::ShutdownBroker { broker: b1 },
    );
    w.seek(SimTime(20_000));
    let c = w.comparison();
    let expired_at = w
        .a()
        .trace()
        .iter()
        .find(|r| r.time_ms > 5_000 && r.kind == "session_expired")
        .map(|r| r.time_ms)
        .expect("broker 1's session expires in A");
    assert!(
        w.b()
            .trace()
            .iter()
            .all(|r| r.time_ms <= 5_000 || r.kind != "session_expired"),
        "kill -15 closes the session at once: nothing expires in B"
    );
    for p in [tp("graceful", 0), tp("graceful", 1)] {
        let r = row(&c, &p);
        let (a, b) = (r.a.as_ref().expect("A"), r.b.as_ref().expect("B"));
        // Unavailable from the kill until the session expired and the
        // controller moved the leader.
        assert!(
            a.unavailable_ms >= expired_at - 5_000,
            "{p:?} kill -9: {} ms, session expired at {expired_at} ms",
            a.unavailable_ms
        );
        assert_eq!(b.unavailable_ms, 0, "{p:?} kill -15");
        assert!(r.unavailable_differs);
        assert!(b.available && a.available, "both recover by 20 s");
        assert_ne!(b.leader, Some(b1));
        assert!(!a.isr.contains(&b1) && !b.isr.contains(&b1));
    }
    // The abrupt topic was not touched: the same in both.
    for p in [tp("abrupt", 0), tp("abrupt", 1)] {
        let r = row(&c, &p);
        assert!(
            !r.leader_differs && !r.isr_differs && !r.unavailable_differs,
            "{r:?}"
        );
    }
    assert!(c.a.unavailable_ms > c.b.unavailable_ms);
    let broker1 = c.brokers.iter().find(|b| b.id == b1).expect("broker 1");
    assert_eq!(broker1.a.as_deref(), Some("dead"));
    assert_eq!(broker1.b.as_deref(), Some("dead"));
    assert_eq!(
        c.settings,
        vec![
            Setting::Kill9 { broker: b1 },
            Setting::Kill15 { broker: b1 }
        ]
    );
}

// Kafka: sim.controller.zk.mode stands for Kafka 1.0's synchronous ZooKeeper
// writes against 1.1+'s pipelined ones (KAFKA-5642); a static setting, so the
// runs differ from time 0, with the same actions up to the fork.
#[test]
fn zk_mode_runs_the_same_actions_from_time_0_with_the_other_profile() {
    let s = shutdown_scenario();
    let original = at(&s, 12_000);
    let mut w = WhatIf::fork(&s, &original, SimTime(12_000), Variation::ZkMode).expect("valid");
    assert_eq!(w.a().sim().config().sim_controller_zk_mode, ZkMode::Async);
    assert_eq!(w.b().sim().config().sim_controller_zk_mode, ZkMode::Sync);
    let mut ca = w.a().sim().config().clone();
    ca.sim_controller_zk_mode = ZkMode::Sync;
    assert_eq!(&ca, w.b().sim().config(), "no other config differs");
    let kept: Vec<_> = original
        .actions()
        .iter()
        .filter(|(t, _)| t.as_ms() <= 12_000)
        .cloned()
        .collect();
    assert_eq!(w.a().actions(), &kept[..]);
    assert_eq!(w.b().actions(), &kept[..]);
    // Side A is the original run.
    assert_eq!(w.a().trace(), original.trace());
    // Kafka 1.0's synchronous writes make the same controller work take longer:
    // the first leader election for the graceful topic ends later in B.
    let first = |t: &Timeline| {
        t.trace()
            .iter()
            .find(|r| r.kind == "leader_elected" && r.time_ms > 10_000)
            .map(|r| r.time_ms)
    };
    w.seek(SimTime(30_000));
    let (fa, fb) = (first(w.a()), first(w.b()));
    assert!(fa.is_some() && fb.is_some(), "{fa:?} {fb:?}");
    assert!(fb > fa, "sync {fb:?} later than async {fa:?}");
    assert_eq!(
        w.settings(),
        &[
            Setting::ZkMode {
                mode: ZkMode::Async
            },
            Setting::ZkMode { mode: ZkMode::Sync }
        ]
    );
}

// Kafka: a broker that is not running cannot be killed or shut down; an
// unknown broker or topic is named in the error. Nothing is built.
#[test]
fn invalid_variations_are_errors_naming_what_is_wrong() {
    let s = unclean_scenario();
    let t = at(&s, 10_000);
    let kill = |b| Variation::Kill {
        broker: BrokerId(b),
    };
    assert_eq!(
        WhatIf::fork(&s, &t, SimTime(10_000), kill(7)).err(),
        Some(WhatIfError::UnknownBroker(BrokerId(7)))
    );
    // Broker 2 was killed at 6 s.
    let e = WhatIf::fork(&s, &t, SimTime(10_000), kill(2)).err();
    assert_eq!(
        e,
        Some(WhatIfError::BrokerNotRunning {
            broker: BrokerId(2),
            status: "dead".into(),
            at: 10_000
        })
    );
    assert!(e
        .map(|e| e.to_string())
        .is_some_and(|m| m.contains("broker 2 is dead")));
    let e = WhatIf::fork(
        &s,
        &t,
        SimTime(10_000),
        Variation::Unclean {
            topic: Some("nope".into()),
        },
    )
    .err();
    assert_eq!(
        e,
        Some(WhatIfError::UnknownTopic {
            topic: "nope".into(),
            at: 10_000
        })
    );
    assert!(matches!(
        WhatIf::fork(&s, &t, SimTime(MAX_TIME_MS + 1), Variation::ZkMode),
        Err(WhatIfError::TooLate { .. })
    ));
    // The original timeline is where it was.
    assert_eq!(t.now(), SimTime(10_000));
}

// Kafka: the cluster-wide unclean.leader.election.enable (a dynamic broker
// config) applies to every topic without an override.
#[test]
fn cluster_default_unclean_and_stepping_keep_both_runs_at_one_moment() {
    let s = unclean_scenario();
    let t = at(&s, 27_000);
    let mut w =
        WhatIf::fork(&s, &t, SimTime(27_000), Variation::Unclean { topic: None }).expect("valid");
    let mut last = w.now();
    for _ in 0..200 {
        if !w.step() {
            break;
        }
        assert_eq!(w.a().now(), w.b().now());
        assert!(w.now() >= last);
        last = w.now();
    }
    w.seek(SimTime(40_000));
    let c = w.comparison();
    assert_eq!(c.b.unclean_elections, 1);
    assert_eq!(c.a.unclean_elections, 0);
    // Deterministic: forking again gives the same comparison.
    let mut w2 =
        WhatIf::fork(&s, &t, SimTime(27_000), Variation::Unclean { topic: None }).expect("valid");
    w2.seek(SimTime(40_000));
    assert_eq!(w2.comparison(), c);
}
