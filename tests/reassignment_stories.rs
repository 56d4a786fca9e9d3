//! Scenario stories of partition reassignment as Kafka 2.4 runs it (KIP-455 on
//! the controller, entered through `/admin/reassign_partitions`). Each names
//! the Kafka behaviour it mirrors.

use kcsim::Story;
use kcsim_core::action::PartitionTarget;
use kcsim_core::controller::channel::RequestBody;
use kcsim_core::{Action, BrokerId, SimTime, TopicPartition};
use std::collections::{BTreeMap, BTreeSet};

fn tp(t: &str, p: u32) -> TopicPartition {
    TopicPartition::new(t, p)
}

fn reassign(topic: &str, partition: u32, replicas: &[BrokerId]) -> Action {
    Action::ReassignPartitions {
        partitions: vec![PartitionTarget {
            topic: topic.into(),
            partition,
            replicas: replicas.to_vec(),
        }],
    }
}

/// Run to `ms` one step at a time and return every controller request queued
/// on the way, by id: (recipient, body).
fn requests_until(s: &mut Story, ms: u64) -> BTreeMap<u64, (BrokerId, RequestBody)> {
    let mut seen = BTreeMap::new();
    while s.sim.next_event_time().is_some_and(|t| t <= SimTime(ms)) {
        if !s.sim.step() {
            break;
        }
        for (id, r) in s.sim.requests() {
            seen.entry(*id).or_insert_with(|| (r.to, r.body.clone()));
        }
    }
    s.until(ms);
    seen
}

/// The brokers sent a LeaderAndIsr for `tp` whose replica list is `replicas`.
fn leader_and_isr_recipients(
    seen: &BTreeMap<u64, (BrokerId, RequestBody)>,
    tp: &TopicPartition,
    replicas: &[BrokerId],
) -> BTreeSet<BrokerId> {
    seen.values()
        .filter(|(_, body)| match body {
            RequestBody::LeaderAndIsr { partitions } => partitions
                .iter()
                .any(|p| &p.tp == tp && *p.replicas() == *replicas),
            _ => false,
        })
        .map(|(to, _)| *to)
        .collect()
}

#[test]
fn move_reassigned_partition_leader_if_required_sends_the_epoch_bump_to_the_target_replicas() {
    // Kafka: KafkaController.moveReassignedPartitionLeaderIfRequired — when the leader is in
    // TRS and alive, updateLeaderEpochAndSendRequest(tp, ReplicaAssignment(TRS)) sends the
    // LeaderAndIsr to TRS only; a removed replica hears only StopReplica.
    let mut s = Story::brokers(40, 4);
    s.until(5_000);
    let others = s.non_controllers();
    let (x, y, z) = (others[0], others[1], others[2]);
    s.create_topic(5_000, "t", &[&[x.0, y.0]]).until(6_000);
    assert_eq!(s.partition("t", 0).leader, Some(x));
    s.at(6_000, reassign("t", 0, &[x, z]));
    let seen = requests_until(&mut s, 9_000);
    let after = s.partition("t", 0);
    assert_eq!(after.replicas, vec![x, z], "completed");
    assert_eq!(after.leader, Some(x), "the leader stayed");
    let recipients = leader_and_isr_recipients(&seen, &tp("t", 0), &[x, z]);
    assert_eq!(
        recipients,
        [x, z].into_iter().collect::<BTreeSet<_>>(),
        "LeaderAndIsr with RS = TRS goes to TRS, not to the removed replica {y}"
    );
    assert!(
        seen.values().any(|(to, body)| *to == y
            && matches!(body, RequestBody::StopReplica { delete: true, partitions } if partitions.contains(&tp("t", 0)))),
        "the removed replica is stopped and deleted"
    );
    s.assert_no_violations();
}

#[test]
fn on_broker_startup_resumes_a_reassignment_when_any_target_replica_restarts() {
    // Kafka 2.4: KafkaController.onBrokerStartup → maybeResumeReassignments with
    // `assignment.targetReplicas.exists(newBrokersSet.contains)`: a restarted broker that
    // stays in the target (not only one being added) runs onPartitionReassignment again,
    // whose phase A bumps the leader epoch and re-sends LeaderAndIsr to every replica.
    let mut s = Story::brokers(41, 4);
    s.until(5_000);
    let others = s.non_controllers();
    let (a, b, d) = (others[0], others[1], others[2]);
    s.create_topic(5_000, "t", &[&[a.0, b.0]]);
    // d dies, then t-0 is reassigned from [a,b] to [b,d]: adding [d], removing [a].
    s.at(6_000, Action::KillBroker { broker: d })
        .at(14_000, reassign("t", 0, &[b, d]))
        .at(16_000, Action::KillBroker { broker: b })
        .until(24_000);
    let waiting = |s: &Story| {
        s.records("reassignment")
            .iter()
            .filter(|r| {
                r.details()
                    .starts_with(&format!("t-0: waiting for [{d}] to join ISR"))
            })
            .count()
    };
    assert_eq!(waiting(&s), 1, "phase A ran once; d is down");
    let epoch = s.partition("t", 0).leader_epoch;
    // b (a target replica, not an adding one) comes back.
    s.at(24_000, Action::StartBroker { broker: b })
        .until(30_000);
    assert_eq!(
        waiting(&s),
        2,
        "b's start-up resumed the reassignment: phase A again"
    );
    assert_eq!(
        s.partition("t", 0).leader_epoch,
        epoch + 1,
        "phase A bumped the leader epoch"
    );
    // d's return lets it finish.
    s.at(30_000, Action::StartBroker { broker: d })
        .until(40_000);
    assert_eq!(s.partition("t", 0).replicas, vec![b, d]);
    s.assert_no_violations();
}

#[test]
fn on_partition_reassignment_to_the_current_replicas_still_runs_phase_b() {
    // Kafka 2.4: reassignTo(current replicas) has no adding or removing replicas, so
    // isReassignmentComplete is true and onPartitionReassignment runs phase B:
    // moveReassignedPartitionLeaderIfRequired bumps the leader epoch (leader stays),
    // the assignment is written to /brokers/topics/<t>, the entry leaves
    // /admin/reassign_partitions, UpdateMetadata goes out and deletion is resumed.
    let mut s = Story::brokers(42, 3);
    s.until(5_000);
    let others = s.non_controllers();
    let (x, y) = (others[0], others[1]);
    s.create_topic(5_000, "t", &[&[x.0, y.0]]).until(6_000);
    let before = s.partition("t", 0);
    let topic_version = s
        .sim
        .zk()
        .node("/brokers/topics/t")
        .expect("topic znode")
        .stat
        .version;
    s.at(6_000, reassign("t", 0, &[x, y]));
    let seen = requests_until(&mut s, 8_000);
    let after = s.partition("t", 0);
    assert_eq!(after.replicas, vec![x, y]);
    assert_eq!(after.leader, Some(x));
    assert_eq!(
        after.leader_epoch,
        before.leader_epoch + 1,
        "updateLeaderEpochAndSendRequest"
    );
    assert_eq!(
        s.sim
            .zk()
            .node("/brokers/topics/t")
            .expect("topic znode")
            .stat
            .version,
        topic_version + 1,
        "B6 rewrote the assignment"
    );
    assert!(s.sim.zk().node("/admin/reassign_partitions").is_none());
    assert_eq!(s.records("reassignment_completed").len(), 1);
    assert_eq!(
        leader_and_isr_recipients(&seen, &tp("t", 0), &[x, y]),
        [x, y].into_iter().collect::<BTreeSet<_>>()
    );
    let c = s.controller();
    assert!(s
        .broker(c)
        .controller
        .ctx
        .partitions_being_reassigned
        .is_empty());
    // Nothing is left behind: the topic can still be deleted.
    s.at(8_000, Action::DeleteTopic { topic: "t".into() })
        .until(12_000);
    assert!(
        s.sim.zk().node("/brokers/topics/t").is_none(),
        "deleted: {:#?}",
        s.records("topic_deletion_paused")
    );
    s.assert_no_violations();
}

#[test]
fn mark_topic_ineligible_for_deletion_is_a_no_op_for_a_topic_not_yet_queued() {
    // Kafka 2.4: KafkaController.processTopicDeletion calls
    // TopicDeletionManager.markTopicIneligibleForDeletion for topics with a reassignment in
    // progress *before* enqueueTopicsForDeletion, and markTopicIneligibleForDeletion only
    // marks topics already in topicsToBeDeleted (onPartitionReassignment's call is the same
    // no-op for a topic not queued). So deleting a topic while one of its partitions is
    // being reassigned starts at once: StopReplica(delete=true) to every replica of RS.
    let mut s = Story::brokers(44, 4);
    s.until(5_000);
    let c = s.controller();
    let others = s.non_controllers();
    let (a, b, d) = (others[0], others[1], others[2]);
    s.create_topic(5_000, "t", &[&[a.0, b.0]]).until(5_900);
    // d stalls (shorter than the session timeout): it stays registered and live, but
    // cannot catch up, so the reassignment to [a,d] stays in phase A.
    s.at(
        5_900,
        Action::PauseBroker {
            broker: d,
            duration_ms: 4_000,
        },
    )
    .at(6_000, reassign("t", 0, &[a, d]))
    .until(6_500);
    assert!(s
        .broker(c)
        .controller
        .ctx
        .partitions_being_reassigned
        .contains(&tp("t", 0)));
    s.at(6_500, Action::DeleteTopic { topic: "t".into() })
        .until(8_000);
    let ctx = &s.broker(c).controller.ctx;
    assert!(ctx.topics_to_be_deleted.contains("t"));
    assert!(
        !ctx.topics_ineligible_for_deletion.contains("t"),
        "not paused by the reassignment"
    );
    assert!(ctx.topics_with_deletion_started.contains("t"));
    assert!(
        s.records("topic_deletion_paused").is_empty(),
        "{:#?}",
        s.records("topic_deletion_paused")
    );
    for r in [a, b] {
        assert!(
            s.sim.log(r, &tp("t", 0)).is_none(),
            "broker {r} deleted its replica while d is still stalled"
        );
    }
    // d wakes, answers its StopReplica(delete=true), and the topic is gone.
    s.until(15_000);
    assert!(s.sim.zk().node("/brokers/topics/t").is_none());
    assert!(s.sim.zk().node("/admin/delete_topics/t").is_none());
    assert!(s.sim.log(d, &tp("t", 0)).is_none());
    assert!(s.records("error").is_empty(), "{:#?}", s.records("error"));
    s.assert_no_violations();
}
