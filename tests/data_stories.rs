//! Stories of the data plane: ISR shrink and expansion by the leader, ISR change
//! notifications, and Aphyr's unclean-election data loss. Each names the Kafka
//! behaviour it mirrors.

use kcsim::Story;
use kcsim_core::log::Acks;
use kcsim_core::{Action, BrokerId, SimTime, TopicPartition};
use serde_json::json;

fn produce(s: &mut Story, ms: u64, topic: &str, records: u64, acks: Acks) {
    s.at(
        ms,
        Action::Produce {
            topic: topic.into(),
            partition: 0,
            records,
            acks,
        },
    );
}

#[test]
fn a_slow_follower_drops_out_of_the_isr_and_every_broker_hears_of_it() {
    // Kafka: Partition.maybeShrinkIsr after replica.lag.time.max.ms (10 s in 2.4),
    // ReplicaManager.maybePropagateIsrChanges → /isr_change_notification/isr_change_<seq>,
    // KafkaController.processIsrChangeNotification → UpdateMetadata to all brokers.
    let mut s = Story::brokers(40, 3);
    s.until(5_000);
    let c = s.controller();
    let others = s.non_controllers();
    let (l, f) = (others[0], others[1]);
    s.create_topic(5_000, "t", &[&[l.0, f.0, c.0]]).until(7_000);
    assert_eq!(s.partition("t", 0).isr.len(), 3);
    s.at(
        7_000,
        Action::SlowBroker {
            broker: f,
            lag_ms: 1_000_000,
        },
    )
    .until(26_000);
    let p = s.partition("t", 0);
    assert!(
        !p.isr.contains(&f),
        "the leader dropped the slow follower: {:?}",
        p.isr
    );
    assert_eq!(
        p.leader_epoch, 0,
        "the leader keeps its leader epoch when it shrinks the ISR"
    );
    assert!(s.sim.stats().isr_shrinks >= 1);
    let shrink = s.records("isr_shrunk_by_leader")[0].time_ms;
    assert!(
        (17_000..=22_600).contains(&shrink),
        "after 10 s without catching up, checked every 5 s: {shrink}"
    );
    s.until(32_000);
    let propagated = s.records("isr_change_propagated");
    assert!(!propagated.is_empty(), "a notification was written");
    let at = propagated[0].time_ms;
    assert!(
        at > shrink + 5_000 && at <= shrink + 7_600,
        "once the last change is 5 s old, checked every 2.5 s: {at}"
    );
    let tp = TopicPartition::new("t", 0);
    for b in [0, 1, 2] {
        let meta = &s.broker(BrokerId(b)).metadata.partitions[&tp];
        assert!(
            !meta.isr().contains(&f),
            "broker {b}'s metadata cache learned the new ISR"
        );
    }
    assert!(s.sim.zk().node("/isr_change_notification").is_some());
    assert!(
        s.sim
            .zk()
            .children("/isr_change_notification")
            .next()
            .is_none(),
        "the controller deleted it"
    );
    s.at(32_000, Action::HealBroker { broker: f }).until(35_000);
    assert!(
        s.partition("t", 0).isr.contains(&f),
        "healed, it caught up and rejoined"
    );
    assert!(s.sim.stats().isr_expands >= 1);
    s.assert_no_violations();
}

/// Aphyr's case up to the leader's death: the follower y is cut off, the ISR
/// shrinks to the leader x, x acknowledges more records alone, then x dies.
fn aphyr(seed: u64, unclean: bool) -> (Story, BrokerId, BrokerId) {
    let mut s = Story::brokers(seed, 3);
    s.until(5_000);
    let others = s.non_controllers();
    let (x, y) = (others[0], others[1]);
    s.create_topic(5_000, "t", &[&[x.0, y.0]]);
    produce(&mut s, 6_000, "t", 5, Acks::All);
    s.until(6_500);
    assert_eq!(
        s.sim.high_watermark(&TopicPartition::new("t", 0)),
        5,
        "both replicas have the first five"
    );
    s.at(
        7_000,
        Action::SlowBroker {
            broker: y,
            lag_ms: 1_000_000,
        },
    )
    .until(25_000);
    assert_eq!(s.partition("t", 0).isr, vec![x], "ISR shrank to the leader");
    produce(&mut s, 25_000, "t", 5, Acks::All);
    s.until(25_100);
    let acked = s
        .sim
        .produced()
        .iter()
        .filter(|r| r.acked_at.is_some())
        .count();
    assert_eq!(
        acked, 10,
        "with ISR [x] and min.insync.replicas 1, x acknowledges alone"
    );
    if unclean {
        s.at(
            26_000,
            Action::SetConfig {
                key: "unclean.leader.election.enable".into(),
                value: json!(true),
                topic: Some("t".into()),
            },
        );
    }
    s.at(27_000, Action::KillBroker { broker: x }).until(45_000);
    (s, x, y)
}

#[test]
fn aphyr_unclean_election_on_loses_acknowledged_records() {
    // Kafka: OfflinePartitionLeaderElectionStrategy with unclean election elects y, which
    // lacks offsets 5..9; y's leadership makes those acknowledged records lost, and x
    // truncates them when it returns as a follower.
    let (mut s, x, y) = aphyr(41, true);
    let p = s.partition("t", 0);
    assert_eq!(p.leader, Some(y));
    assert_eq!(s.sim.stats().unclean_elections, 1);
    assert_eq!(s.sim.stats().acked_records_lost, 5);
    let report = kcsim_core::report::FinalState::of(&s.sim);
    let offsets: Vec<u64> = report.lost_records.iter().map(|r| r.offset).collect();
    assert_eq!(offsets, vec![5, 6, 7, 8, 9]);
    assert!(
        report.lost_records[0].reason.contains("unclean"),
        "{}",
        report.lost_records[0].reason
    );
    assert_eq!(
        s.sim.high_watermark(&TopicPartition::new("t", 0)),
        5,
        "the committed offset went back"
    );
    s.at(45_000, Action::StartBroker { broker: x })
        .until(50_000);
    assert!(
        !s.records("log_truncated").is_empty(),
        "x truncated the records y never had"
    );
    assert_eq!(
        s.sim
            .log(x, &TopicPartition::new("t", 0))
            .unwrap()
            .log_end_offset(),
        5
    );
    s.assert_no_violations();
}

#[test]
fn aphyr_unclean_election_off_stays_offline_and_loses_nothing() {
    // Kafka: with unclean.leader.election.enable=false the partition stays offline with
    // ISR [x] until x returns; no acknowledged record is lost.
    let (mut s, x, _y) = aphyr(41, false);
    let p = s.partition("t", 0);
    assert_eq!(p.leader, None);
    assert_eq!(p.isr, vec![x]);
    assert_eq!(s.sim.stats().acked_records_lost, 0);
    s.at(45_000, Action::StartBroker { broker: x })
        .until(50_000);
    assert_eq!(
        s.partition("t", 0).leader,
        Some(x),
        "x, the last ISR member, leads again"
    );
    assert_eq!(s.sim.stats().acked_records_lost, 0);
    assert_eq!(s.sim.high_watermark(&TopicPartition::new("t", 0)), 10);
    s.assert_no_violations();
}

#[test]
fn acks_all_is_refused_below_min_insync_replicas() {
    // Kafka: Partition.appendRecordsToLeader — NOT_ENOUGH_REPLICAS when the ISR is
    // smaller than min.insync.replicas for acks=all.
    let mut s = Story::brokers(42, 3);
    s.until(5_000);
    let others = s.non_controllers();
    let (x, y) = (others[0], others[1]);
    s.create_topic(5_000, "t", &[&[x.0, y.0]]);
    s.at(
        5_500,
        Action::SetConfig {
            key: "min.insync.replicas".into(),
            value: json!(2),
            topic: Some("t".into()),
        },
    );
    s.at(
        6_000,
        Action::SlowBroker {
            broker: y,
            lag_ms: 1_000_000,
        },
    )
    .until(25_000);
    produce(&mut s, 25_000, "t", 3, Acks::All);
    produce(&mut s, 25_000, "t", 3, Acks::Leader);
    s.until(25_100);
    let failed = s.records("produce_failed");
    assert_eq!(failed.len(), 1, "{failed:#?}");
    assert!(failed[0].details().contains("NOT_ENOUGH_REPLICAS"));
    assert_eq!(
        s.sim.produced().len(),
        3,
        "only the acks=1 records were appended"
    );
}

#[test]
fn acks_1_records_can_be_lost_even_in_a_clean_election() {
    // Kafka: acks=1 is acknowledged by the leader alone; a clean failover to an ISR
    // member that had not fetched them yet loses them (no unclean election needed).
    let mut s = Story::brokers(43, 3);
    s.until(5_000);
    let others = s.non_controllers();
    let (x, y) = (others[0], others[1]);
    s.create_topic(5_000, "t", &[&[x.0, y.0]]).until(7_000);
    produce(&mut s, 7_000, "t", 4, Acks::Leader);
    s.at(7_000, Action::KillBroker { broker: x }).until(20_000);
    assert_eq!(s.partition("t", 0).leader, Some(y));
    assert_eq!(s.sim.stats().unclean_elections, 0);
    assert_eq!(
        s.sim.stats().acked_records_lost,
        4,
        "acks=1 records the follower never fetched"
    );
    s.assert_no_violations();
}

#[test]
fn a_late_leader_and_isr_to_a_stalled_broker_loses_nothing() {
    // Kafka: ReplicaManager applies a LeaderAndIsr whose leader epoch is newer than its
    // own, even one delayed by a GC pause; leadership has moved on in ZooKeeper
    // (a higher leader epoch), so what the stale "leader" lacks is not lost.
    // Found by the property test (seed 17971814718278665087).
    let text = r#"{"version":1,"seed":17971814718278665087,"brokers":[0,1,2],
        "topics":[{"name":"t","partitions":4,"replication_factor":3}],
        "actions":[{"at_ms":4011,"action":"pause_broker","broker":1,"duration_ms":5223},
                   {"at_ms":4621,"action":"produce","topic":"t","partition":0,"records":1,"acks":"all"}]}"#;
    let s = kcsim_core::scenario::Scenario::parse(text).unwrap();
    let mut sim = s.build();
    sim.run_until(kcsim_core::SimTime(12_000));
    let r = &sim.produced()[0];
    assert!(r.acked_at.is_some(), "acknowledged once the ISR had it");
    assert_eq!(r.lost, None);
    assert_eq!(sim.stats().acked_records_lost, 0);
    assert!(sim.violations().is_empty(), "{:#?}", sim.violations());
    assert_eq!(sim.high_watermark(&TopicPartition::new("t", 0)), 1);
}

#[test]
fn a_follower_cut_off_from_fetching_stays_out_of_a_new_leaders_isr() {
    // Kafka: ReplicaManager.makeFollowers → ReplicaFetcherManager.addFetcherForPartitions;
    // a follower whose fetches never reach the leader never catches up, so
    // Partition.maybeExpandIsr never adds it to the new leader's ISR.
    let mut s = Story::brokers(44, 3);
    s.until(5_000);
    let c = s.controller();
    let others = s.non_controllers();
    let (l, f) = (others[0], others[1]);
    s.create_topic(5_000, "t", &[&[l.0, f.0, c.0]]);
    produce(&mut s, 6_000, "t", 3, Acks::All);
    s.at(
        7_000,
        Action::SlowBroker {
            broker: f,
            lag_ms: 1_000_000,
        },
    )
    .until(26_000);
    assert_eq!(
        s.partition("t", 0).isr,
        vec![l, c],
        "the leader dropped the cut-off follower"
    );
    // The leader dies; c, the other ISR member, takes over and f follows c.
    s.at(27_000, Action::KillBroker { broker: l }).until(40_000);
    let p = s.partition("t", 0);
    assert_eq!(p.leader, Some(c), "a clean election of the last ISR member");
    assert!(
        !p.isr.contains(&f),
        "f cannot fetch, so it does not join the new leader's ISR: {:?}",
        p.isr
    );
    assert!(
        s.records("isr_expanded").is_empty(),
        "no ISR expansion while f is cut off: {:#?}",
        s.records("isr_expanded")
    );
    // Healed, it fetches from c at once and rejoins.
    s.at(40_000, Action::HealBroker { broker: f }).until(41_000);
    assert!(
        s.partition("t", 0).isr.contains(&f),
        "healed, it caught up with c and rejoined: {:?}",
        s.partition("t", 0).isr
    );
    s.assert_no_violations();
}

#[test]
fn a_re_created_topic_starts_empty_and_inherits_nothing_from_the_deleted_one() {
    // Kafka: TopicDeletionManager.completeDeleteTopic deletes the topic's znodes after
    // every replica's StopReplica(delete=true) (ReplicaManager.stopReplica removes the
    // log); a topic created again under the same name is a new topic, with new logs,
    // leader epoch 0 and high watermark 0 (Partition.makeLeader on an empty log).
    let mut s = Story::brokers(45, 3);
    s.until(5_000);
    let others = s.non_controllers();
    let (a, b) = (others[0], others[1]);
    let tp = TopicPartition::new("t", 0);
    s.create_topic(5_000, "t", &[&[a.0, b.0]]);
    produce(&mut s, 6_000, "t", 5, Acks::All);
    s.until(6_500);
    assert_eq!(s.sim.high_watermark(&tp), 5);
    // A failover and back, so the old topic's leader epoch is above 0.
    s.at(7_000, Action::KillBroker { broker: a }).until(16_000);
    assert_eq!(s.partition("t", 0).leader, Some(b));
    assert_eq!(s.partition("t", 0).leader_epoch, 1);
    s.at(16_000, Action::StartBroker { broker: a })
        .until(20_000);
    s.at(20_000, Action::DeleteTopic { topic: "t".into() })
        .until(30_000);
    assert!(
        s.sim.zk().node("/brokers/topics/t").is_none(),
        "deletion completed"
    );
    assert!(s.sim.log(a, &tp).is_none() && s.sim.log(b, &tp).is_none());
    s.create_topic(30_000, "t", &[&[a.0, b.0]]).until(32_000);
    let p = s.partition("t", 0);
    assert_eq!(p.leader, Some(a));
    assert_eq!(p.leader_epoch, 0, "a new topic starts at leader epoch 0");
    assert_eq!(s.sim.high_watermark(&tp), 0, "and at high watermark 0");
    assert_eq!(s.sim.log(a, &tp).unwrap().log_end_offset(), 0);
    assert!(
        s.sim.produced().iter().all(|r| r.lost.is_none()),
        "nothing of the old topic is reported lost: {:#?}",
        s.sim.produced()
    );
    assert_eq!(s.sim.stats().acked_records_lost, 0);
    produce(&mut s, 32_000, "t", 3, Acks::All);
    s.until(33_000);
    assert_eq!(s.sim.high_watermark(&tp), 3);
    assert_eq!(s.sim.produced().len(), 3, "only the new topic's records");
    assert!(s.sim.produced().iter().all(|r| r.acked_at.is_some()));
    assert!(
        s.sim.unavailable_ms(&tp) == 0,
        "the new topic has been available throughout"
    );
    s.assert_no_violations();
}

/// A story of fetch sessions: three brokers, six partitions led two by each,
/// an idle stretch, a produce to two partitions, then a follower slowed
/// until its leaders drop it from their ISRs. Returns the story and the
/// partitions fetched by 20 s (settled), 25 s (idle), 27 s (after the produce).
fn fetch_sessions_story(full_fetches_only: bool) -> (Story, [u64; 3]) {
    fetch_sessions_story_of([0, 1, 2], full_fetches_only)
}

/// [`fetch_sessions_story`] with the brokers named `ids` (the slowed
/// follower is the third).
fn fetch_sessions_story_of(ids: [u32; 3], full_fetches_only: bool) -> (Story, [u64; 3]) {
    let mut s = Story {
        sim: kcsim_core::Sim::new(7, kcsim_core::config::Config::default(), &ids.map(BrokerId)),
    };
    s.sim.set_full_fetches_only(full_fetches_only);
    s.until(5_000);
    let [a, b, c] = ids;
    s.create_topic(
        5_000,
        "t",
        &[
            &[a, b, c],
            &[b, c, a],
            &[c, a, b],
            &[a, c, b],
            &[b, a, c],
            &[c, b, a],
        ],
    );
    let fetched = |s: &Story| s.sim.data_plane().partitions_fetched();
    s.until(20_000);
    let settled = fetched(&s);
    s.until(25_000);
    let idle = fetched(&s);
    for partition in [1, 4] {
        s.at(
            25_000,
            Action::Produce {
                topic: "t".into(),
                partition,
                records: 1,
                acks: Acks::All,
            },
        );
    }
    s.until(27_000);
    let produced = fetched(&s);
    s.at(
        27_000,
        Action::SlowBroker {
            broker: BrokerId(c),
            lag_ms: 1_000_000,
        },
    )
    .until(60_000);
    (s, [settled, idle, produced])
}

#[test]
fn an_idle_fetch_round_replicates_no_partition_and_a_produce_only_what_changed() {
    // Kafka: FetchSession / KIP-227 (Kafka 1.1+). A follower's incremental
    // fetch carries only the partitions that changed, and the leader's
    // response only those with new records or a new high watermark: an idle
    // session's round touches no partition.
    let (s, [settled, idle, produced]) = fetch_sessions_story(false);
    assert!(settled > 0, "the first rounds are full fetches");
    assert_eq!(
        idle, settled,
        "5 idle seconds, 10 rounds per session: nothing replicated"
    );
    // Two partitions, two followers each, two rounds each: one brings the
    // record, the next the high watermark it advanced (the follower learns
    // the leader's high watermark in the fetch after the one that moved it).
    assert_eq!(produced - idle, 2 * 2 * 2);
    s.assert_no_violations();
    // Before Kafka 1.1 every round fetched every partition it follows.
    let (_, [full_settled, full_idle, _]) = fetch_sessions_story(true);
    assert!(
        full_idle - full_settled >= 5 * 2 * 12,
        "full fetches: every partition, every round"
    );
}

#[test]
fn incremental_fetch_sessions_detect_lag_at_exactly_the_time_full_fetches_do() {
    // Kafka: Partition.maybeShrinkIsr drops a follower whose lastCaughtUpTimeMs
    // (Replica.updateFetchState) is older than replica.lag.time.max.ms, checked
    // every replica.lag.time.max.ms / 2 by isr-expiration. An incremental
    // session keeps that time for all its idle partitions at once; the shrinks
    // (and every other trace line) come at the same moments as with full fetches.
    let (incremental, _) = fetch_sessions_story(false);
    let (full, _) = fetch_sessions_story(true);
    let shrinks = |s: &Story| -> Vec<(u64, String)> {
        s.records("isr_shrunk_by_leader")
            .iter()
            .map(|r| (r.time_ms, r.details().clone()))
            .collect()
    };
    let got = shrinks(&incremental);
    assert_eq!(
        got.len(),
        4,
        "broker 2 leaves the ISR of the 4 partitions it follows: {got:?}"
    );
    assert!(
        got.iter().all(|(t, _)| (37_000..=43_000).contains(t)),
        "{got:?}"
    );
    assert_eq!(got, shrinks(&full));
    let lines = |s: &Story| -> Vec<String> {
        s.sim
            .trace()
            .iter()
            .map(|r| format!("{} {} {} {}", r.time_ms, r.actor, r.kind, r.details()))
            .collect()
    };
    assert_eq!(lines(&incremental), lines(&full));
    assert!(
        incremental.sim.data_plane().partitions_fetched() * 3
            < full.sim.data_plane().partitions_fetched(),
        "the same story for a fraction of the work"
    );
}

#[test]
fn fetch_sessions_of_brokers_with_large_ids_detect_lag_as_full_fetches_do() {
    // Kafka: Partition.maybeShrinkIsr drops a follower whose
    // lastCaughtUpTimeMs is older than replica.lag.time.max.ms, whatever
    // the brokers' ids (broker.id is any non-negative int); the leader's
    // isr-expiration reads the times an incremental session keeps by
    // follower, here ids far apart (looked up by search, not by place).
    let ids = [1_000, 70_000, 4_000_000];
    let (incremental, _) = fetch_sessions_story_of(ids, false);
    let (full, _) = fetch_sessions_story_of(ids, true);
    let lines = |s: &Story| -> Vec<String> {
        s.sim
            .trace()
            .iter()
            .map(|r| format!("{} {} {} {}", r.time_ms, r.actor, r.kind, r.details()))
            .collect()
    };
    assert_eq!(
        incremental.records("isr_shrunk_by_leader").len(),
        4,
        "broker 4000000 leaves the ISR of the 4 partitions it follows"
    );
    assert_eq!(lines(&incremental), lines(&full));
    incremental.assert_no_violations();
}

/// A slow follower of a partition on three brokers of four, and optionally a
/// kill -9 of the controller (the fourth broker) while it lags. The time the
/// leader drops it from the ISR.
fn isr_shrink_time(kill_controller_at: Option<u64>) -> u64 {
    let mut s = Story::brokers(41, 4);
    s.until(5_000);
    let c = s.controller();
    let others = s.non_controllers();
    let (l, f, x) = (others[0], others[1], others[2]);
    s.create_topic(5_000, "t", &[&[l.0, f.0, x.0]]).until(7_000);
    assert_eq!(s.partition("t", 0).isr.len(), 3);
    s.at(
        7_000,
        Action::SlowBroker {
            broker: f,
            lag_ms: 1_000_000,
        },
    );
    if let Some(ms) = kill_controller_at {
        s.at(ms, Action::KillBroker { broker: c });
    }
    s.until(40_000);
    let shrinks = s.records("isr_shrunk_by_leader");
    assert_eq!(shrinks.len(), 1, "one shrink, of the slow follower");
    assert!(!s.partition("t", 0).isr.contains(&f));
    shrinks[0].time_ms
}

#[test]
fn a_controller_failover_does_not_restart_the_leaders_lag_clock() {
    // Kafka: ReplicaManager.becomeLeaderOrFollower ignores a partition whose
    // LeaderAndIsr carries the leader epoch the broker already has ("matches
    // the current leader epoch"): the new controller's start-up requests
    // (ReplicaStateMachine.startup after onControllerFailover) leave
    // Partition.makeLeader, and so each follower's lastCaughtUpTimeMs, alone.
    // The leader shrinks the ISR when it would have without the failover.
    let quiet = isr_shrink_time(None);
    let failover = isr_shrink_time(Some(12_000));
    assert!(
        quiet > 12_500,
        "the shrink comes after the failover: {quiet}"
    );
    assert_eq!(failover, quiet, "the failover does not delay the shrink");
}

#[test]
fn a_follower_back_from_a_long_pause_fetches_again_and_rejoins_the_isr() {
    // Kafka: a GC pause only delays the ReplicaFetcherThread; after it the
    // follower fetches again, catches up and the leader takes it back into
    // the ISR (Partition.maybeExpandIsr). The round due during the pause was
    // once held and then ignored, and no later round was ever scheduled.
    let text = r#"{"version":1,"seed":11,"brokers":[0,1,2],
        "topics":[{"name":"t","assignment":[[0,1,2]]}]}"#;
    let mut sim = kcsim_core::scenario::Scenario::parse(text).unwrap().build();
    sim.run_until(SimTime(10_000));
    let tp = kcsim_core::TopicPartition::new("t", 0);
    let leader = sim.leader_of(&tp).unwrap();
    let follower = BrokerId((leader.0 + 1) % 3);
    let isr = |sim: &kcsim_core::Sim| {
        sim.partition_overview()
            .into_iter()
            .find(|p| p.tp == tp)
            .map(|p| p.isr)
            .unwrap_or_default()
    };
    assert!(isr(&sim).contains(&follower));
    sim.schedule_action(
        SimTime(10_000),
        Action::PauseBroker {
            broker: follower,
            duration_ms: 15_000,
        },
    )
    .unwrap();
    sim.run_until(SimTime(24_000));
    assert!(
        !isr(&sim).contains(&follower),
        "the paused follower left the ISR"
    );
    sim.run_until(SimTime(40_000));
    assert!(
        isr(&sim).contains(&follower),
        "the follower fetched again after its pause and rejoined the ISR"
    );
}

#[test]
fn a_follower_killed_while_paused_fetches_again_after_its_restart() {
    // Kafka: a restarted broker is a new process; the LeaderAndIsr of its
    // controller starts its ReplicaFetcherThreads (ReplicaManager.makeFollowers,
    // addFetcherForPartitions) and the leader takes it back into the ISR
    // (Partition.maybeExpandIsr). Found by `kcsim soak` (seed 4823): killed
    // while paused, the follower's held fetch round was dropped with the
    // process, its session still looked due, and after the restart no round
    // was ever scheduled, so it stayed out of every ISR.
    let text = r#"{"version":1,"seed":1,"brokers":[1,2,3],
        "config":{"zookeeper.session.timeout.ms":3000},
        "topics":[{"name":"t","assignment":[[1,2,3],[2,3,1]]}],
        "actions":[
          {"action":"pause_broker","at_ms":10465,"broker":3,"duration_ms":187},
          {"action":"kill_broker","at_ms":10650,"broker":3},
          {"action":"start_broker","at_ms":14000,"broker":3}]}"#;
    let mut sim = kcsim_core::scenario::Scenario::parse(text).unwrap().build();
    sim.run_until(SimTime(13_900));
    let isrs = |sim: &kcsim_core::Sim| -> Vec<Vec<BrokerId>> {
        sim.partition_overview()
            .into_iter()
            .map(|p| p.isr)
            .collect()
    };
    assert!(
        isrs(&sim).iter().all(|isr| !isr.contains(&BrokerId(3))),
        "the killed broker left every ISR: {:?}",
        isrs(&sim)
    );
    sim.run_until(SimTime(30_000));
    assert!(
        isrs(&sim).iter().all(|isr| isr.contains(&BrokerId(3))),
        "the restarted broker fetched and rejoined every ISR: {:?}",
        isrs(&sim)
    );
}

/// Five brokers, 40 partitions at RF 3 (assigned round the brokers), some
/// records, then a controlled shutdown of broker 1 and, once it is done, a
/// produce and a slow follower until its leaders drop it. Returns the story
/// and the partitions fetched from the shutdown until 4 s after it.
fn controlled_shutdown_story(full_fetches_only: bool) -> (Story, u64) {
    let mut s = Story::brokers(13, 5);
    s.sim.set_full_fetches_only(full_fetches_only);
    s.until(5_000);
    let assignment: Vec<Vec<u32>> = (0..40u32)
        .map(|p| (0..3).map(|i| (p + i) % 5).collect())
        .collect();
    let rows: Vec<&[u32]> = assignment.iter().map(Vec::as_slice).collect();
    s.create_topic(5_000, "t", &rows);
    for partition in [3, 17, 29] {
        s.at(
            12_000,
            Action::Produce {
                topic: "t".into(),
                partition,
                records: 2,
                acks: Acks::All,
            },
        );
    }
    s.until(20_000);
    let fetched = s.sim.data_plane().partitions_fetched();
    s.at(
        20_000,
        Action::ShutdownBroker {
            broker: BrokerId(1),
        },
    )
    .until(24_000);
    let during = s.sim.data_plane().partitions_fetched() - fetched;
    for partition in [0, 5, 6] {
        s.at(
            25_000,
            Action::Produce {
                topic: "t".into(),
                partition,
                records: 1,
                acks: Acks::All,
            },
        );
    }
    s.at(
        26_000,
        Action::SlowBroker {
            broker: BrokerId(3),
            lag_ms: 1_000_000,
        },
    )
    .until(60_000);
    (s, during)
}

#[test]
fn a_controlled_shutdown_changes_fetch_sessions_incrementally_with_the_traces_of_full_fetches() {
    // Kafka: FetchSession.update (KIP-227, 1.1+): when a LeaderAndIsr moves
    // some of a follower's partitions to another leader, its fetcher adds
    // and removes those partitions from the sessions; the partitions that
    // did not change stay in them and cost nothing while idle. Every trace
    // line (leader changes, ISR shrinks of the controller and of the
    // leaders, their moments) is what full fetches give.
    let (incremental, during) = controlled_shutdown_story(false);
    let (full, full_during) = controlled_shutdown_story(true);
    let lines = |s: &Story| -> Vec<String> {
        s.sim
            .trace()
            .iter()
            .map(|r| format!("{} {} {} {}", r.time_ms, r.actor, r.kind, r.details()))
            .collect()
    };
    assert_eq!(lines(&incremental), lines(&full));
    assert!(!incremental.records("controlled_shutdown").is_empty());
    assert!(
        !incremental.records("isr_shrunk_by_leader").is_empty(),
        "broker 3 left the ISRs of its leaders"
    );
    // Broker 1 hosted 24 of the 40 partitions; each has one follower left
    // besides its leader. Only those are fetched, at most twice each (the
    // change, then the high watermark it moved); full fetches replicate
    // every partition every round. (Closing each touched session instead
    // fetched 56.)
    assert!(during <= 2 * 24, "incremental {during}");
    assert!(
        during * 10 < full_during,
        "incremental {during}, full {full_during}"
    );
    incremental.assert_no_violations();
}
