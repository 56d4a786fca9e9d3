//! Every fact in both languages (a module of [`super`], kept in its own file).

use super::*;
use kcsim_core::controller::channel::ApiError;
use kcsim_core::controller::states::{PartitionState, ReplicaState};
use kcsim_core::ids::{SessionId, TopicPartition};
use kcsim_core::log::Acks;
use kcsim_core::zk::{WatchKind, ZkError};
use kcsim_core::BrokerId;

/// The number of [`Fact`] variants (bump it with [`variant`]).
const VARIANTS: usize = 88;

/// Each variant's index: the match has no catch-all, so a new variant must
/// be added here, and then to the samples.
fn variant(f: &Fact) -> usize {
    match f {
        Fact::Text(_) => 0,
        Fact::UserAction(_) => 1,
        Fact::NoProcessToKill { .. } => 2,
        Fact::AlreadyRunning { .. } => 3,
        Fact::NotRunning { .. } => 4,
        Fact::NoLiveSession { .. } => 5,
        Fact::NoControllerForElection => 6,
        Fact::NoSuchMessage { .. } => 7,
        Fact::MessageDelayed { .. } => 8,
        Fact::WatchNotificationLost { .. } => 9,
        Fact::ShutdownRequestLost { .. } => 10,
        Fact::RequestLost { .. } => 11,
        Fact::AdminFailed(_) => 12,
        Fact::ConfigRefused(_) => 13,
        Fact::ZkOpFailed { .. } => 14,
        Fact::TopicCreated { .. } => 15,
        Fact::PartitionsAdded { .. } => 16,
        Fact::Registered { .. } => 17,
        Fact::StartupFailed { .. } => 18,
        Fact::SessionExpired { .. } => 19,
        Fact::SessionExpiredByRequest { .. } => 20,
        Fact::SessionReinitialized { .. } => 21,
        Fact::Resumed { .. } => 22,
        Fact::ShutdownComplete { .. } => 23,
        Fact::ShutdownStarted { .. } => 24,
        Fact::ShutdownGaveUp { .. } => 25,
        Fact::ShutdownNoController { .. } => 26,
        Fact::ShutdownRequestSent { .. } => 27,
        Fact::ShutdownSucceeded { .. } => 28,
        Fact::ShutdownRetry { .. } => 29,
        Fact::RequestHandled { .. } => 30,
        Fact::WatchFired { .. } => 31,
        Fact::EventProcessed { .. } => 32,
        Fact::RecordsLost { .. } => 33,
        Fact::LeaderUpdatedIsr { .. } => 34,
        Fact::IsrUpdateSkipped { .. } => 35,
        Fact::IsrChangePropagated { .. } => 36,
        Fact::ProduceNoLeader { .. } => 37,
        Fact::ProduceNotLeader { .. } => 38,
        Fact::ProduceNotEnoughReplicas { .. } => 39,
        Fact::Produced { .. } => 40,
        Fact::LogTruncated { .. } => 41,
        Fact::AlreadyElected { .. } => 42,
        Fact::Elected { .. } => 43,
        Fact::ElectedInstead { .. } => 44,
        Fact::ElectedAndResigned { .. } => 45,
        Fact::ElectionError { .. } => 46,
        Fact::FailoverDone { .. } => 47,
        Fact::ResignSessionExpired { .. } => 48,
        Fact::Resign { .. } => 49,
        Fact::ResignAfterError { .. } => 50,
        Fact::ResignForShutdown { .. } => 51,
        Fact::ControllerMoved(_) => 52,
        Fact::EventError { .. } => 53,
        Fact::EventSkipped { .. } => 54,
        Fact::Unmodelled { .. } => 55,
        Fact::BrokerChange { .. } => 56,
        Fact::IsrChangesSent { .. } => 57,
        Fact::PartitionStateChanged { .. } => 58,
        Fact::PartitionStateChangeFailed(_) => 59,
        Fact::ReplicaStateChangeFailed(_) => 60,
        Fact::LeaderInitialized { .. } => 61,
        Fact::LeaderElected { .. } => 62,
        Fact::ElectionGaveUp { .. } => 63,
        Fact::ElectionResult { .. } => 64,
        Fact::Imbalance { .. } => 65,
        Fact::IsrShrunk { .. } => 66,
        Fact::IsrShrinkFenced { .. } => 67,
        Fact::ShuttingDownBroker { .. } => 68,
        Fact::StillLeads { .. } => 69,
        Fact::TopicChange { .. } => 70,
        Fact::NewPartitions { .. } => 71,
        Fact::AddPartitionsSkipped { .. } => 72,
        Fact::DeletionDisabled => 73,
        Fact::TopicsQueuedForDeletion { .. } => 74,
        Fact::DeletionHalted { .. } => 75,
        Fact::DeletionPausedDeadReplicas { .. } => 76,
        Fact::StopReplicaDeleteSent { .. } => 77,
        Fact::ReplicaDeletionFailed { .. } => 78,
        Fact::TopicDeleted { .. } => 79,
        Fact::DeletionResumed { .. } => 80,
        Fact::ReassignmentRefused { .. } => 81,
        Fact::ReassignmentFailed { .. } => 82,
        Fact::ReassignmentOfMissingPartition { .. } => 83,
        Fact::ReassignmentStarted { .. } => 84,
        Fact::ReassignmentWaiting { .. } => 85,
        Fact::ReassignmentLeaderMoveFailed { .. } => 86,
        Fact::ReassignmentCompleted { .. } => 87,
    }
}

fn b(i: u32) -> BrokerId {
    BrokerId(i)
}

fn ids(v: &[u32]) -> Vec<BrokerId> {
    v.iter().copied().map(BrokerId).collect()
}

fn tp(p: u32) -> TopicPartition {
    TopicPartition::new("orders", p)
}

fn whys() -> Vec<ElectionWhy> {
    vec![
        ElectionWhy::OfflineClean {
            assignment: ids(&[1, 2]).into(),
            isr: ids(&[2]).into(),
        },
        ElectionWhy::OfflineUnclean {
            isr: ids(&[1]).into(),
            assignment: ids(&[1, 2]).into(),
            leader: b(2),
        },
        ElectionWhy::NoLiveReplicaInAr {
            assignment: ids(&[1, 2]).into(),
        },
        ElectionWhy::NoLiveReplicaInIsr {
            isr: ids(&[1]).into(),
        },
        ElectionWhy::ReassignTarget {
            target: ids(&[2, 3]).into(),
            isr: ids(&[1, 2, 3]).into(),
        },
        ElectionWhy::ReassignNone {
            target: ids(&[2, 3]).into(),
            isr: ids(&[1]).into(),
        },
        ElectionWhy::PreferredChosen {
            leader: b(1),
            assignment: ids(&[1, 2]).into(),
            isr: ids(&[1, 2]).into(),
        },
        ElectionWhy::PreferredNotLive { replica: b(1) },
        ElectionWhy::PreferredNotInIsr {
            replica: b(1),
            isr: ids(&[2]).into(),
        },
        ElectionWhy::NoReplicas,
        ElectionWhy::ShutdownChosen {
            assignment: ids(&[1, 2]).into(),
            isr: ids(&[1, 2]).into(),
            shutting_down: ids(&[1]).into(),
        },
        ElectionWhy::ShutdownLeaderStays {
            isr: ids(&[1]).into(),
        },
    ]
}

fn partition_errors() -> Vec<PartitionStateChangeError> {
    let mut v = vec![
        PartitionStateChangeError::InvalidTransition {
            tp: tp(0),
            from: PartitionState::NonExistentPartition,
            to: PartitionState::OnlinePartition,
        },
        PartitionStateChangeError::NoLiveReplica {
            tp: tp(0),
            replicas: ids(&[1, 2]),
        },
        PartitionStateChangeError::StateZnodeNotCreated {
            tp: tp(0),
            error: ZkError::NodeExists,
        },
        PartitionStateChangeError::NoLeaderAndIsr { tp: tp(0) },
        PartitionStateChangeError::WrittenByNewerController {
            tp: tp(0),
            written_by: 3,
            epoch: 2,
        },
    ];
    v.extend(
        whys()
            .into_iter()
            .map(|why| PartitionStateChangeError::NoLeaderElected {
                tp: tp(0),
                strategy: "OfflinePartitionLeaderElectionStrategy",
                why,
            }),
    );
    v
}

fn controller_errors() -> Vec<ControllerError> {
    vec![
        ControllerError::ControllerMoved("controller epoch zkVersion check fails".into()),
        ControllerError::Zk(ZkError::BadVersion),
    ]
}

fn actions() -> Vec<Action> {
    let t = "orders".to_string();
    vec![
        Action::KillBroker { broker: b(1) },
        Action::StartBroker { broker: b(1) },
        Action::ShutdownBroker { broker: b(1) },
        Action::PauseBroker {
            broker: b(1),
            duration_ms: 8000,
        },
        Action::ExpireSession { broker: b(1) },
        Action::DeleteZnode {
            path: "/controller".into(),
        },
        Action::SetZnode {
            path: "/controller".into(),
            data: "{}".into(),
        },
        Action::DelayMessage {
            id: 4,
            delay_ms: 500,
        },
        Action::DropMessage { id: 4 },
        Action::PreferredElection { partitions: None },
        Action::PreferredElection {
            partitions: Some(vec![tp(0)]),
        },
        Action::ElectLeaders {
            election_type: ElectionType::Unclean,
            partitions: vec![tp(0)],
        },
        Action::Produce {
            topic: t.clone(),
            partition: 0,
            records: 1,
            acks: Acks::All,
        },
        Action::SlowBroker {
            broker: b(2),
            lag_ms: 20000,
        },
        Action::HealBroker { broker: b(2) },
        Action::AddPartitions {
            topic: t.clone(),
            count: 4,
        },
        Action::DeleteTopic { topic: t.clone() },
        Action::ReassignPartitions { partitions: vec![] },
        Action::CreateTopic {
            name: t.clone(),
            assignment: None,
            partitions: Some(2),
            replication_factor: Some(3),
        },
        Action::SetConfig {
            key: "unclean.leader.election.enable".into(),
            value: serde_json::Value::Bool(true),
            topic: Some(t),
        },
    ]
}

fn shutdown_errors() -> Vec<ControlledShutdownError> {
    let mut v = vec![
        ControlledShutdownError::StaleBrokerEpoch {
            broker: b(1),
            broker_epoch: 5,
            current: 9,
        },
        ControlledShutdownError::BrokerNotAvailable(b(1)),
        ControlledShutdownError::NotController,
        ControlledShutdownError::Preempted,
        ControlledShutdownError::Io("no response".into()),
        ControlledShutdownError::Response(ApiError::StaleControllerEpoch),
    ];
    v.extend(
        controller_errors()
            .into_iter()
            .map(ControlledShutdownError::Controller),
    );
    v
}

/// At least one sample of every variant (and of every nested reason).
fn samples() -> Vec<Fact> {
    let mut v = vec![
        Fact::Text("an old line".into()),
        Fact::NoProcessToKill { broker: b(1) },
        Fact::AlreadyRunning { broker: b(1) },
        Fact::NotRunning { broker: b(1) },
        Fact::NoLiveSession { broker: b(1) },
        Fact::NoControllerForElection,
        Fact::NoSuchMessage { id: 3 },
        Fact::MessageDelayed {
            id: 3,
            arrives_at_ms: 1200,
        },
        Fact::WatchNotificationLost {
            id: 3,
            kind: WatchKind::NodeDeleted,
            path: "/controller".into(),
            broker: b(2),
        },
        Fact::ShutdownRequestLost { id: 3 },
        Fact::RequestLost { id: 3 },
        Fact::ZkOpFailed {
            op: ZkOp::Delete,
            path: "/controller".into(),
            error: ZkError::NoNode,
        },
        Fact::ZkOpFailed {
            op: ZkOp::Create,
            path: "/isr_change_notification/isr_change_".into(),
            error: ZkError::SessionExpired,
        },
        Fact::ZkOpFailed {
            op: ZkOp::Set,
            path: "/x".into(),
            error: ZkError::NoNode,
        },
        Fact::TopicCreated {
            topic: "orders".into(),
            data: "{}".into(),
        },
        Fact::PartitionsAdded {
            topic: "orders".into(),
            data: "{}".into(),
        },
        Fact::Registered {
            broker: b(1),
            epoch: 25,
            session: SessionId(0x100),
        },
        Fact::StartupFailed {
            broker: b(1),
            error: ZkError::NodeExists,
        },
        Fact::SessionExpired {
            session: SessionId(1),
            owner: Some(b(1)),
            timeout_ms: 6000,
        },
        Fact::SessionExpired {
            session: SessionId(1),
            owner: None,
            timeout_ms: 6000,
        },
        Fact::SessionExpiredByRequest { broker: b(1) },
        Fact::SessionReinitialized {
            preempted: vec!["BrokerChange"],
            new_session: SessionId(2),
        },
        Fact::Resumed {
            broker: b(1),
            after_ms: 8000,
        },
        Fact::ShutdownComplete {
            broker: b(1),
            was_active: true,
        },
        Fact::ShutdownComplete {
            broker: b(1),
            was_active: false,
        },
        Fact::ShutdownStarted { broker: b(1) },
        Fact::ShutdownGaveUp {
            broker: b(1),
            max: 3,
        },
        Fact::ShutdownNoController { attempt: 1 },
        Fact::ShutdownRequestSent {
            attempt: 1,
            controller: b(0),
            broker_epoch: 25,
        },
        Fact::ShutdownSucceeded { attempt: 2 },
        Fact::ShutdownRetry {
            attempt: 1,
            failure: ShutdownFailure::Remaining(vec![tp(0), tp(1)]),
            backoff_ms: 5000,
        },
        Fact::RequestHandled {
            request: "LeaderAndIsr",
            from: b(0),
            epoch: 1,
            leader_epochs: Some((2, 3)),
            error: ApiError::StaleControllerEpoch,
        },
        Fact::WatchFired {
            kind: WatchKind::NodeChildrenChanged,
            path: "/brokers/ids".into(),
            event: "BrokerChange",
        },
        Fact::EventProcessed {
            event: "BrokerChange",
            queued_ms: 0,
            reads: 4,
            writes: 2,
            requests: 3,
            took_ms: 12,
        },
        Fact::RecordsLost {
            lost: 2,
            tp: tp(0),
            broker: b(2),
        },
        Fact::LeaderUpdatedIsr {
            tp: tp(0),
            leader: b(1),
            old: ids(&[1, 2]),
            isr: ids(&[1]),
            zk_version: 3,
        },
        Fact::IsrUpdateSkipped {
            tp: tp(0),
            cached_zk_version: 2,
            error: ZkError::BadVersion,
        },
        Fact::IsrChangePropagated {
            path: "/isr_change_notification/isr_change_0000000000".into(),
            data: "{}".into(),
        },
        Fact::ProduceNoLeader { tp: tp(0) },
        Fact::ProduceNotLeader {
            tp: tp(0),
            broker: b(1),
        },
        Fact::ProduceNotEnoughReplicas {
            tp: tp(0),
            isr: ids(&[1]),
            min_isr: 2,
        },
        Fact::Produced {
            count: 1,
            tp: tp(0),
            leader: b(1),
            first: 7,
            acks: Acks::Leader,
        },
        Fact::LogTruncated {
            tp: tp(0),
            follower: b(2),
            dropped: 2,
            offset: 5,
            leader: b(1),
        },
        Fact::AlreadyElected { controller: b(0) },
        Fact::Elected {
            broker: b(0),
            epoch: 2,
            zk_version: 1,
        },
        Fact::ElectedInstead {
            winner: b(1),
            me: b(0),
            why: "controller moved to broker 1".into(),
        },
        Fact::ElectedAndResigned {
            why: "controller moved to nobody".into(),
        },
        Fact::FailoverDone { epoch: 2 },
        Fact::ResignSessionExpired {
            broker: b(0),
            epoch: 1,
        },
        Fact::Resign { broker: b(0) },
        Fact::ResignAfterError { broker: b(0) },
        Fact::ResignForShutdown { broker: b(0) },
        Fact::ControllerMoved("controller epoch zkVersion check fails".into()),
        Fact::EventSkipped {
            event: "BrokerChange",
        },
        Fact::Unmodelled {
            event: "BrokerModifications",
        },
        Fact::BrokerChange {
            new: ids(&[3]),
            dead: ids(&[1]),
            bounced: vec![],
            live: ids(&[0, 2, 3]),
        },
        Fact::IsrChangesSent {
            partitions: vec![tp(0)],
        },
        Fact::PartitionStateChanged {
            tp: tp(0),
            from: PartitionState::OnlinePartition,
            to: PartitionState::OfflinePartition,
        },
        Fact::ReplicaStateChangeFailed(ReplicaStateChangeError::InvalidTransition {
            tp: tp(0),
            replica: b(1),
            from: ReplicaState::NewReplica,
            to: ReplicaState::NewReplica,
        }),
        Fact::ReplicaStateChangeFailed(ReplicaStateChangeError::NewReplicaIsLeader {
            tp: tp(0),
            replica: b(1),
        }),
        Fact::LeaderInitialized {
            leader: Some(b(1)),
            tp: tp(0),
            replicas: ids(&[1, 2]),
            isr: ids(&[1, 2]),
        },
        Fact::LeaderInitialized {
            leader: None,
            tp: tp(0),
            replicas: ids(&[1, 2]),
            isr: vec![],
        },
        Fact::ElectionGaveUp {
            partitions: vec![tp(0)],
            rounds: 10,
        },
        Fact::Imbalance {
            broker: b(1),
            not_preferred: 1,
            total: 2,
        },
        Fact::IsrShrunk {
            tp: tp(0),
            broker: b(1),
            leader: Some(b(2)),
            isr: ids(&[2]),
            leader_epoch: 4,
        },
        Fact::IsrShrunk {
            tp: tp(0),
            broker: b(1),
            leader: None,
            isr: ids(&[1]),
            leader_epoch: 4,
        },
        Fact::IsrShrinkFenced {
            tp: tp(0),
            epoch: 3,
            broker: b(1),
        },
        Fact::ShuttingDownBroker {
            broker: b(1),
            all: ids(&[1]),
        },
        Fact::StillLeads {
            broker: b(1),
            partitions: vec![tp(0)],
        },
        Fact::TopicChange {
            new: vec!["orders".into()],
            deleted: vec![],
            partitions: 2,
        },
        Fact::NewPartitions {
            partitions: vec![tp(2)],
        },
        Fact::AddPartitionsSkipped {
            topic: "orders".into(),
            partitions: vec![tp(2)],
        },
        Fact::DeletionDisabled,
        Fact::TopicsQueuedForDeletion {
            topics: vec!["orders".into()],
        },
        Fact::DeletionHalted {
            topic: "orders".into(),
            reason: "topic reassignment in progress",
        },
        Fact::DeletionPausedDeadReplicas {
            topic: "orders".into(),
            brokers: ids(&[1]),
        },
        Fact::StopReplicaDeleteSent {
            topic: "orders".into(),
        },
        Fact::ReplicaDeletionFailed {
            broker: b(1),
            error: ApiError::StaleControllerEpoch,
        },
        Fact::TopicDeleted {
            topic: "orders".into(),
        },
        Fact::DeletionResumed {
            topics: vec!["orders".into()],
        },
        Fact::ReassignmentRefused {
            tp: tp(0),
            target: ids(&[1, 1]),
            code: "INVALID_REPLICA_ASSIGNMENT",
        },
        Fact::ReassignmentOfMissingPartition { tp: tp(9) },
        Fact::ReassignmentStarted {
            tp: tp(0),
            replicas: ids(&[2, 3, 0, 1]),
            adding: ids(&[2, 3]),
            removing: ids(&[0, 1]),
        },
        Fact::ReassignmentWaiting {
            tp: tp(0),
            adding: ids(&[2, 3]),
            isr: ids(&[0, 1]),
        },
        Fact::ReassignmentCompleted {
            tp: tp(0),
            target: ids(&[2, 3]),
        },
    ];
    v.extend(actions().into_iter().map(Fact::UserAction));
    v.extend(
        super::super::errors::tests::admin_errors()
            .into_iter()
            .map(Fact::AdminFailed),
    );
    v.push(Fact::ConfigRefused(
        kcsim_core::config::ConfigError::UnknownKey("x".into()),
    ));
    v.extend(shutdown_errors().into_iter().map(|e| Fact::ShutdownRetry {
        attempt: 2,
        failure: ShutdownFailure::Error(e),
        backoff_ms: 5000,
    }));
    for error in controller_errors() {
        v.push(Fact::ElectionError {
            broker: b(0),
            error: error.clone(),
        });
        v.push(Fact::EventError {
            event: Some("TopicChange"),
            error: error.clone(),
        });
        v.push(Fact::EventError {
            event: None,
            error: error.clone(),
        });
        v.push(Fact::ReassignmentFailed { tp: tp(0), error });
    }
    for why in whys() {
        v.push(Fact::LeaderElected {
            leader: b(2),
            tp: tp(0),
            why,
            leader_epoch: 5,
        });
    }
    for e in partition_errors() {
        v.push(Fact::PartitionStateChangeFailed(e.clone()));
        v.push(Fact::ReassignmentLeaderMoveFailed {
            tp: tp(0),
            error: Box::new(e.clone()),
        });
        v.push(Fact::ElectionResult {
            label: ElectionLabel::Preferred,
            tp: tp(0),
            code: ElectionCode::PreferredLeaderNotAvailable(Box::new(e.clone())),
        });
        v.push(Fact::ElectionResult {
            label: ElectionLabel::Unclean,
            tp: tp(0),
            code: ElectionCode::EligibleLeadersNotAvailable(Box::new(e)),
        });
    }
    for (label, code) in [
        (
            ElectionLabel::AutoRebalance,
            ElectionCode::Elected(Some(b(1))),
        ),
        (ElectionLabel::Preferred, ElectionCode::Elected(None)),
        (ElectionLabel::Preferred, ElectionCode::NotNeeded),
        (
            ElectionLabel::Preferred,
            ElectionCode::UnknownTopicOrPartition,
        ),
        (ElectionLabel::Unclean, ElectionCode::TopicBeingDeleted),
        (ElectionLabel::Unclean, ElectionCode::UnknownServerError),
        (ElectionLabel::Unlabelled, ElectionCode::NotController),
    ] {
        v.push(Fact::ElectionResult {
            label,
            tp: tp(1),
            code,
        });
    }
    v
}

fn has_cjk(s: &str) -> bool {
    s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

#[test]
fn every_fact_reads_in_english_and_in_chinese() {
    let samples = samples();
    let mut seen = [false; VARIANTS];
    for f in &samples {
        seen[variant(f)] = true;
        let en = fact_text(f, Lang::En);
        assert_eq!(en, f.english(), "English is the core's sentence");
        let zh = fact_text(f, Lang::Zh);
        assert!(has_cjk(&zh), "no Chinese in {zh:?} (for {en:?})");
        assert_ne!(zh, en, "untranslated: {en}");
    }
    let missing: Vec<usize> = (0..VARIANTS).filter(|i| !seen[*i]).collect();
    assert!(missing.is_empty(), "variants without a sample: {missing:?}");
}

#[test]
fn kafkas_own_names_stay_in_the_chinese() {
    let zh = |f: &Fact| fact_text(f, Lang::Zh);
    let rejected = Fact::RequestHandled {
        request: "UpdateMetadata",
        from: b(0),
        epoch: 1,
        leader_epochs: None,
        error: ApiError::StaleControllerEpoch,
    };
    assert!(zh(&rejected).contains("UpdateMetadata"));
    assert!(zh(&rejected).contains("STALE_CONTROLLER_EPOCH"));
    let state = Fact::PartitionStateChanged {
        tp: tp(0),
        from: PartitionState::OnlinePartition,
        to: PartitionState::OfflinePartition,
    };
    assert!(zh(&state).contains("OnlinePartition → OfflinePartition"));
    let kill = Fact::UserAction(Action::KillBroker { broker: b(2) });
    assert_eq!(zh(&kill), "对 broker 2 执行 kill -9");
    let elected = Fact::Elected {
        broker: b(0),
        epoch: 2,
        zk_version: 1,
    };
    assert!(zh(&elected).contains("控制器") && zh(&elected).contains("epoch 2"));
}

#[test]
fn election_codes_have_a_meaning_in_both_languages() {
    for code in [
        "NONE",
        "ELECTION_NOT_NEEDED",
        "PREFERRED_LEADER_NOT_AVAILABLE",
        "ELIGIBLE_LEADERS_NOT_AVAILABLE",
        "UNKNOWN_TOPIC_OR_PARTITION",
        "INVALID_TOPIC_EXCEPTION",
        "NOT_CONTROLLER",
        "UNKNOWN_SERVER_ERROR",
    ] {
        assert_eq!(
            election_meaning_text(code, Lang::En),
            kcsim_core::view::election_code_meaning(code)
        );
        assert!(has_cjk(&election_meaning_text(code, Lang::Zh)), "{code}");
    }
}

// Kafka: AdminZkClient.writeTopicPartitionAssignment writes the whole
// assignment into /brokers/topics/<topic>: the page's Why lines show a
// 5,000-partition topic (~80 KB of JSON) by its start and its size, and a
// small topic's data whole, as the trace has it.
#[test]
fn a_large_topic_s_znode_reads_as_its_size_not_its_whole_json() {
    let parts: Vec<String> = (0..5_000)
        .map(|p| format!("\"{p}\":[{},{},{}]", p % 9, (p + 1) % 9, (p + 2) % 9))
        .collect();
    let data = format!("{{\"version\":2,\"partitions\":{{{}}}}}", parts.join(","));
    for fact in [
        Fact::TopicCreated {
            topic: "t00".into(),
            data: data.clone(),
        },
        Fact::PartitionsAdded {
            topic: "t00".into(),
            data: data.clone(),
        },
    ] {
        let en = fact_text(&fact, Lang::En);
        let zh = fact_text(&fact, Lang::Zh);
        for line in [&en, &zh] {
            assert!(line.chars().count() < 200, "{line}");
            assert!(
                line.contains("/brokers/topics/t00 = {\"version\":2"),
                "{line}"
            );
            assert!(line.contains(&data.len().to_string()), "{line}");
        }
        assert!(en.contains("5000 partitions, replication factor 3"), "{en}");
        assert!(zh.contains("5000 个分区，副本因子 3"), "{zh}");
        assert!(
            fact.english().len() > data.len(),
            "the trace keeps it whole"
        );
    }
    assert!(fact_text(
        &Fact::TopicCreated {
            topic: "t00".into(),
            data: data.clone()
        },
        Lang::Zh
    )
    .starts_with("创建主题"));
    assert!(fact_text(
        &Fact::PartitionsAdded {
            topic: "t00".into(),
            data
        },
        Lang::Zh
    )
    .starts_with("增加分区"));
    let small = Fact::TopicCreated {
        topic: "orders".into(),
        data: r#"{"version":2,"partitions":{"0":[1,2,3]}}"#.into(),
    };
    assert_eq!(fact_text(&small, Lang::En), small.english());
    assert!(fact_text(&small, Lang::Zh).ends_with(r#"{"version":2,"partitions":{"0":[1,2,3]}}"#));
}
