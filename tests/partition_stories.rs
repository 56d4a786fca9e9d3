//! Scenario stories of partitions: elections, broker failure and start-up,
//! unclean election, controlled shutdown versus kill -9. Each names the Kafka
//! behaviour it mirrors.

use kcsim::Story;
use kcsim_core::broker::BrokerStatus;
use kcsim_core::controller::states::{PartitionState, ReplicaState};
use kcsim_core::{Action, BrokerId, TopicPartition};
use serde_json::json;

fn ids(v: &[BrokerId]) -> Vec<u32> {
    v.iter().map(|b| b.0).collect()
}

#[test]
fn a_new_topic_is_led_by_its_first_live_replica_and_followers_join_the_isr() {
    // Kafka: PartitionStateMachine.initializeLeaderAndIsrForPartitions (New → Online),
    // then Partition.maybeExpandIsr on the leader as followers catch up.
    let mut s = Story::brokers(4, 3);
    s.until(5_000);
    s.create_topic(5_000, "t", &[&[2, 0, 1], &[1, 2, 0]])
        .until(6_000);
    let p0 = s.partition("t", 0);
    assert_eq!(p0.state, PartitionState::OnlinePartition);
    assert_eq!(p0.leader, Some(BrokerId(2)));
    assert_eq!(p0.leader_epoch, 0, "the leader epoch starts at 0");
    let mut isr = ids(&p0.isr);
    isr.sort();
    assert_eq!(isr, vec![0, 1, 2], "every follower caught up and joined");
    assert_eq!(s.partition("t", 1).leader, Some(BrokerId(1)));
    let c = s.controller();
    let ctx = &s.broker(c).controller.ctx;
    for r in [0, 1, 2] {
        assert_eq!(
            ctx.replica_states
                .get(&TopicPartition::new("t", 0), BrokerId(r)),
            Some(ReplicaState::OnlineReplica)
        );
    }
    for b in [0, 1, 2] {
        let meta = &s.broker(BrokerId(b)).metadata.partitions[&TopicPartition::new("t", 0)];
        assert_eq!(
            meta.leader, 2,
            "broker {b}'s metadata cache learned the leader"
        );
    }
    s.assert_no_violations();
}

#[test]
fn leader_dies_the_new_leader_is_chosen_in_ar_order_not_isr_order() {
    // Kafka: KafkaController.onBrokerFailure → OfflinePartitionLeaderElectionStrategy:
    // the first replica in AR order that is live and in the ISR; the ISR keeps its order.
    let mut s = Story::brokers(8, 3);
    s.until(5_000);
    let c = s.controller();
    let others = s.non_controllers();
    let (x, y) = (others[0], others[1]);
    s.create_topic(5_000, "t", &[&[x.0, c.0, y.0]]);
    s.force_isr(6_000, "t", 0, &[x.0, y.0, c.0]);
    s.at(7_000, Action::KillBroker { broker: x }).until(20_000);
    let p = s.partition("t", 0);
    assert_eq!(p.leader, Some(c), "AR [x, c, y] puts c before y");
    assert_eq!(
        ids(&p.isr),
        vec![y.0, c.0],
        "ISR order kept, the dead leader removed"
    );
    assert_eq!(p.leader_epoch, 1);
    assert_eq!(p.state, PartitionState::OnlinePartition);
    let unavailable = s.sim.unavailable_ms(&TopicPartition::new("t", 0));
    assert!(
        (4_000..=6_200).contains(&unavailable),
        "unavailable for about a session timeout: {unavailable} ms"
    );
    s.assert_no_violations();
}

#[test]
fn a_follower_dies_the_leader_stays_and_the_isr_shrinks() {
    // Kafka: ReplicaStateMachine OfflineReplica → removeReplicasFromIsr, leader epoch +1.
    let mut s = Story::brokers(9, 3);
    s.until(5_000);
    let c = s.controller();
    let others = s.non_controllers();
    s.create_topic(5_000, "t", &[&[c.0, others[0].0, others[1].0]])
        .until(6_000);
    s.at(6_000, Action::KillBroker { broker: others[1] })
        .until(15_000);
    let p = s.partition("t", 0);
    assert_eq!(p.leader, Some(c));
    assert!(!p.isr.contains(&others[1]));
    assert_eq!(p.isr.len(), 2);
    assert_eq!(
        p.leader_epoch, 1,
        "the controller's ISR write bumps the leader epoch"
    );
    assert_eq!(s.sim.unavailable_ms(&TopicPartition::new("t", 0)), 0);
    let ctx = &s.broker(c).controller.ctx;
    assert_eq!(
        ctx.replica_states
            .get(&TopicPartition::new("t", 0), others[1]),
        Some(ReplicaState::OfflineReplica)
    );
}

#[test]
fn last_isr_member_dies_offline_with_unclean_off_then_unclean_on_elects_and_loses_the_isr() {
    // Kafka: the controller never empties an ISR (removeReplicasFromIsr keeps size 1);
    // OfflinePartitionLeaderElectionStrategy with unclean disabled finds no leader;
    // TopicUncleanLeaderElectionEnable then elects the first live replica, ISR [leader].
    let mut s = Story::brokers(10, 3);
    s.until(5_000);
    let others = s.non_controllers();
    let (x, y) = (others[0], others[1]);
    s.create_topic(5_000, "t", &[&[x.0, y.0]]);
    s.at(6_000, Action::KillBroker { broker: y }).until(14_000);
    assert_eq!(ids(&s.partition("t", 0).isr), vec![x.0], "y left the ISR");
    s.at(15_000, Action::KillBroker { broker: x }).until(24_000);
    let p = s.partition("t", 0);
    assert_eq!(p.leader, None, "no leader: Kafka writes -1");
    assert_eq!(ids(&p.isr), vec![x.0], "the ISR keeps the dead broker");
    assert_eq!(p.state, PartitionState::OfflinePartition);
    s.at(25_000, Action::StartBroker { broker: y })
        .until(29_000);
    assert_eq!(s.broker(y).status, BrokerStatus::Running);
    assert_eq!(
        s.partition("t", 0).state,
        PartitionState::OfflinePartition,
        "y is live but not in the ISR"
    );
    assert_eq!(s.sim.stats().unclean_elections, 0);
    s.at(
        30_000,
        Action::SetConfig {
            key: "unclean.leader.election.enable".into(),
            value: json!("true"),
            topic: Some("t".into()),
        },
    )
    .until(31_000);
    let p = s.partition("t", 0);
    assert_eq!(p.leader, Some(y));
    assert_eq!(ids(&p.isr), vec![y.0], "unclean: ISR becomes [leader]");
    assert_eq!(p.state, PartitionState::OnlinePartition);
    assert_eq!(s.sim.stats().unclean_elections, 1);
    assert!(s.records("unclean_leader_elected").len() == 1);
    s.assert_no_violations();
}

fn three_partitions_led_by_victim(seed: u64) -> (Story, BrokerId, BrokerId, BrokerId) {
    let mut s = Story::brokers(seed, 3);
    s.until(5_000);
    let c = s.controller();
    let others = s.non_controllers();
    let v = others[0];
    let a = others[1];
    s.create_topic(
        5_000,
        "t",
        &[&[v.0, a.0, c.0], &[v.0, c.0, a.0], &[a.0, v.0, c.0]],
    )
    .until(8_000);
    (s, v, a, c)
}

#[test]
fn controlled_shutdown_moves_leaders_before_the_broker_exits() {
    // Kafka: KafkaController.doControlledShutdown with
    // ControlledShutdownPartitionLeaderElectionStrategy; the broker exits only
    // when no partition with RF > 1 is left on it (KafkaServer.controlledShutdown).
    let (mut s, v, a, _c) = three_partitions_led_by_victim(12);
    s.at(8_000, Action::ShutdownBroker { broker: v })
        .until(9_000);
    assert_eq!(
        s.broker(v).status,
        BrokerStatus::Dead,
        "it exited after one attempt"
    );
    for p in 0..3 {
        let part = s.partition("t", p);
        assert_ne!(part.leader, Some(v), "t-{p} moved");
        assert!(
            !part.isr.contains(&v),
            "t-{p}: the shutting-down broker left the ISR"
        );
        assert_eq!(
            s.sim.unavailable_ms(&TopicPartition::new("t", p)),
            0,
            "t-{p} never lacked a leader"
        );
    }
    assert_eq!(
        s.partition("t", 0).leader,
        Some(a),
        "first in AR, in ISR, not shutting down"
    );
    assert_eq!(s.records("controlled_shutdown_retry").len(), 0);
    s.until(20_000);
    s.assert_no_violations();
}

#[test]
fn kill_9_leaves_the_partitions_it_led_without_a_leader_for_a_session_timeout() {
    // Kafka: without controlled shutdown, only the session expiry (zookeeper.session.timeout.ms)
    // tells the controller; the partitions the broker led wait that long.
    let (mut s, v, _a, _c) = three_partitions_led_by_victim(12);
    s.at(8_000, Action::KillBroker { broker: v }).until(30_000);
    for p in 0..2 {
        let ms = s.sim.unavailable_ms(&TopicPartition::new("t", p));
        assert!(
            (4_000..=6_200).contains(&ms),
            "t-{p} was led by the victim: {ms} ms"
        );
        assert_ne!(s.partition("t", p).leader, Some(v));
    }
    assert_eq!(
        s.sim.unavailable_ms(&TopicPartition::new("t", 2)),
        0,
        "t-2 was led by another broker"
    );
    let report = kcsim_core::report::FinalState::of(&s.sim);
    assert!(report.stats.unavailable_partition_ms >= 8_000);
}

#[test]
fn controlled_shutdown_that_cannot_move_a_partition_retries_then_exits() {
    // Kafka: the ControlledShutdown strategy fails when the shutting-down broker is
    // the only ISR member; the partition is returned as remaining, the broker retries
    // controlled.shutdown.max.retries times with the back-off, then shuts down uncleanly.
    let mut s = Story::brokers(13, 3);
    s.until(5_000);
    let others = s.non_controllers();
    let (v, a) = (others[0], others[1]);
    s.create_topic(5_000, "t", &[&[v.0, a.0]]);
    s.at(6_000, Action::KillBroker { broker: a }).until(14_000);
    assert_eq!(ids(&s.partition("t", 0).isr), vec![v.0]);
    s.at(15_000, Action::ShutdownBroker { broker: v })
        .until(15_500);
    assert_eq!(s.broker(v).status, BrokerStatus::ShuttingDown);
    assert_eq!(s.partition("t", 0).leader, Some(v), "it keeps leadership");
    s.until(40_000);
    assert_eq!(
        s.records("controlled_shutdown_retry").len(),
        3,
        "three attempts, each failed"
    );
    assert_eq!(s.records("unclean_shutdown").len(), 1);
    assert_eq!(s.broker(v).status, BrokerStatus::Dead);
    let exit = s.records("shutdown_complete")[0].time_ms;
    assert!(
        (30_000..=30_200).contains(&exit),
        "3 attempts × 5 s back-off after 15 s: exit at {exit}"
    );
    assert_eq!(s.partition("t", 0).leader, None);
}

#[test]
fn a_restarted_broker_comes_back_as_a_follower() {
    // Kafka: onBrokerStartup moves its replicas to OnlineReplica; leadership comes
    // back only through a preferred replica election.
    let (mut s, v, a, _c) = three_partitions_led_by_victim(14);
    s.at(8_000, Action::KillBroker { broker: v })
        .at(20_000, Action::StartBroker { broker: v })
        .until(25_000);
    assert_eq!(s.broker(v).status, BrokerStatus::Running);
    let p = s.partition("t", 0);
    assert_eq!(
        p.leader,
        Some(a),
        "the preferred replica v does not get leadership back"
    );
    assert!(p.isr.contains(&v), "it caught up and rejoined the ISR");
    assert_eq!(
        s.broker(v).replicas[&TopicPartition::new("t", 0)].leader,
        a.0 as i32,
        "v follows a"
    );
    s.assert_no_violations();
}

#[test]
fn a_new_controller_reads_partitions_from_zookeeper_on_failover() {
    // Kafka: onControllerFailover → initializeControllerContext reads every state znode;
    // replicaStateMachine.startup and partitionStateMachine.startup elect as needed.
    let mut s = Story::brokers(15, 3);
    s.until(5_000);
    let c = s.controller();
    let others = s.non_controllers();
    s.create_topic(
        5_000,
        "t",
        &[
            &[c.0, others[0].0, others[1].0],
            &[others[0].0, c.0, others[1].0],
        ],
    );
    s.at(8_000, Action::KillBroker { broker: c }).until(20_000);
    let new = s.controller();
    assert_ne!(new, c);
    let ctx = &s.broker(new).controller.ctx;
    assert_eq!(
        ctx.partition_states[&TopicPartition::new("t", 0)],
        PartitionState::OnlinePartition
    );
    assert_eq!(
        ctx.replica_states.get(&TopicPartition::new("t", 0), c),
        Some(ReplicaState::OfflineReplica)
    );
    assert_eq!(
        s.partition("t", 0).leader,
        Some(others[0]),
        "t-0 lost its leader and elected in AR order"
    );
    assert_eq!(
        s.partition("t", 0).controller_epoch,
        2,
        "written by the new controller"
    );
    assert_eq!(
        s.partition("t", 1).leader,
        Some(others[0]),
        "t-1 kept its leader"
    );
    s.assert_no_violations();
}

#[test]
fn brokers_metadata_caches_lag_the_state_znode_until_update_metadata_arrives() {
    // Kafka: every LeaderAndIsr is followed by UpdateMetadata to every broker
    // (ControllerBrokerRequestBatch); until it arrives a broker's cache is stale.
    let mut s = Story::brokers(16, 3);
    s.until(5_000);
    let others = s.non_controllers();
    let (x, y) = (others[0], others[1]);
    s.create_topic(5_000, "t", &[&[x.0, y.0]]).until(6_000);
    s.at(6_000, Action::ShutdownBroker { broker: x });
    // Step until the state znode names y, then look at the caches at once.
    while s.partition("t", 0).leader != Some(y) {
        assert!(s.sim.step());
    }
    let v = kcsim_core::ClusterView::of(&s.sim);
    let p = v.partition(&TopicPartition::new("t", 0)).unwrap();
    let ctrl = p
        .controller_cache
        .as_ref()
        .expect("the controller caches it");
    assert_eq!(
        ctrl.leader, y.0 as i32,
        "the controller wrote it, so its cache is current"
    );
    assert!(
        p.broker_caches.iter().any(|(_, c)| c.leader != y.0 as i32),
        "right after the write, some broker still has the old leader: {:?}",
        p.broker_caches
    );
    s.until(7_000);
    let v = kcsim_core::ClusterView::of(&s.sim);
    let p = v.partition(&TopicPartition::new("t", 0)).unwrap();
    assert!(
        p.broker_caches.iter().all(|(_, c)| c.leader == y.0 as i32),
        "{:?}",
        p.broker_caches
    );
}
