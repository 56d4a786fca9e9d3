//! What a trace record says happened, as data: one variant per kind of
//! sentence, with typed fields. The core never writes the words into the
//! trace; [`Fact::english`] (in [`crate::words`]) renders the English the CLI
//! prints, and the page renders the same fact in its own languages.
//!
//! A record's `kind` is stored beside its fact (some facts serve several
//! kinds: an admin error is `zk_error` or `action_failed`).

use crate::action::Action;
use crate::admin::AdminError;
use crate::config::ConfigError;
use crate::controller::channel::{ApiError, ControlledShutdownError};
use crate::controller::election::ElectionWhy;
use crate::controller::states::{
    PartitionState, PartitionStateChangeError, ReplicaStateChangeError,
};
use crate::ids::{BrokerId, SessionId, TopicPartition};
use crate::kafka_zk::ControllerError;
use crate::log::Acks;
use crate::zk::{WatchKind, ZkError};

/// A ZooKeeper operation named in a [`Fact::ZkOpFailed`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZkOp {
    /// `create`.
    Create,
    /// `set`.
    Set,
    /// `delete`.
    Delete,
}

impl ZkOp {
    /// ZooKeeper's verb (`create`, `set`, `delete`).
    pub fn verb(self) -> &'static str {
        match self {
            ZkOp::Create => "create",
            ZkOp::Set => "set",
            ZkOp::Delete => "delete",
        }
    }
}

/// Which election an `election_result` line reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElectionLabel {
    /// Refused before any election (a broker that is not the controller).
    Unlabelled,
    /// A PREFERRED election on request.
    Preferred,
    /// An UNCLEAN election on request.
    Unclean,
    /// A PREFERRED election of the auto leader rebalance.
    AutoRebalance,
}

/// An election's result for one partition: Kafka's error code (and, on
/// success, the leader elected).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ElectionCode {
    /// `NONE`: elected (the leader, when known).
    Elected(Option<BrokerId>),
    /// `ELECTION_NOT_NEEDED`.
    NotNeeded,
    /// `UNKNOWN_TOPIC_OR_PARTITION`.
    UnknownTopicOrPartition,
    /// `INVALID_TOPIC_EXCEPTION`: the topic is being deleted.
    TopicBeingDeleted,
    /// `PREFERRED_LEADER_NOT_AVAILABLE`, with the state machine's reason
    /// (boxed: the reason is large and rare, and an inline one would make
    /// every [`Fact`], so every trace record, larger).
    PreferredLeaderNotAvailable(Box<PartitionStateChangeError>),
    /// `ELIGIBLE_LEADERS_NOT_AVAILABLE`, with the state machine's reason
    /// (boxed, as above).
    EligibleLeadersNotAvailable(Box<PartitionStateChangeError>),
    /// `UNKNOWN_SERVER_ERROR`.
    UnknownServerError,
    /// `NOT_CONTROLLER`.
    NotController,
}

impl ElectionCode {
    /// Kafka's error name.
    pub fn code(&self) -> &'static str {
        match self {
            ElectionCode::Elected(_) => "NONE",
            ElectionCode::NotNeeded => "ELECTION_NOT_NEEDED",
            ElectionCode::UnknownTopicOrPartition => "UNKNOWN_TOPIC_OR_PARTITION",
            ElectionCode::TopicBeingDeleted => "INVALID_TOPIC_EXCEPTION",
            ElectionCode::PreferredLeaderNotAvailable(_) => "PREFERRED_LEADER_NOT_AVAILABLE",
            ElectionCode::EligibleLeadersNotAvailable(_) => "ELIGIBLE_LEADERS_NOT_AVAILABLE",
            ElectionCode::UnknownServerError => "UNKNOWN_SERVER_ERROR",
            ElectionCode::NotController => "NOT_CONTROLLER",
        }
    }
}

/// What a controlled shutdown attempt came to when it did not succeed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShutdownFailure {
    /// The controller answered with partitions the broker still leads.
    Remaining(Vec<TopicPartition>),
    /// The attempt failed.
    Error(ControlledShutdownError),
}

/// What happened, as data. Each variant is one shape of sentence.
#[derive(Debug, PartialEq, Eq)]
pub enum Fact {
    /// A trace line read back with only its text (deserialisation only; the
    /// simulator never writes it).
    Text(String),

    // ----- the user -------------------------------------------------------
    /// The user's action, as done.
    UserAction(Action),
    /// `kill -9` of a broker with no process.
    NoProcessToKill {
        /// The broker.
        broker: BrokerId,
    },
    /// Starting a broker that runs.
    AlreadyRunning {
        /// The broker.
        broker: BrokerId,
    },
    /// Stopping or pausing a broker that does not run.
    NotRunning {
        /// The broker.
        broker: BrokerId,
    },
    /// Expiring the session of a broker without one.
    NoLiveSession {
        /// The broker.
        broker: BrokerId,
    },
    /// An election asked for with no active controller.
    NoControllerForElection,
    /// A message id that is not on the wire.
    NoSuchMessage {
        /// The message id.
        id: u64,
    },
    /// A message held longer.
    MessageDelayed {
        /// The message id.
        id: u64,
        /// When it now arrives (ms).
        arrives_at_ms: u64,
    },
    /// A watch notification lost.
    WatchNotificationLost {
        /// The message id.
        id: u64,
        /// What happened to the path.
        kind: WatchKind,
        /// The watched path.
        path: String,
        /// The broker it was for.
        broker: BrokerId,
    },
    /// A ControlledShutdownRequest (or its answer) lost.
    ShutdownRequestLost {
        /// The message id.
        id: u64,
    },
    /// A controller request (or its answer) lost; the controller resends.
    RequestLost {
        /// The message id.
        id: u64,
    },
    /// An admin request refused, or its ZooKeeper write failed.
    AdminFailed(AdminError),
    /// A cluster config change refused.
    ConfigRefused(ConfigError),
    /// A ZooKeeper operation failed.
    ZkOpFailed {
        /// The operation.
        op: ZkOp,
        /// The path.
        path: String,
        /// ZooKeeper's answer.
        error: ZkError,
    },
    /// `/brokers/topics/<topic>` created.
    TopicCreated {
        /// The topic.
        topic: String,
        /// The znode's data.
        data: String,
    },
    /// `/brokers/topics/<topic>` rewritten with more partitions.
    PartitionsAdded {
        /// The topic.
        topic: String,
        /// The znode's data.
        data: String,
    },

    // ----- ZooKeeper and broker lifecycle ---------------------------------
    /// A broker registered.
    Registered {
        /// The broker.
        broker: BrokerId,
        /// Its broker epoch (the znode's czxid).
        epoch: i64,
        /// Its session.
        session: SessionId,
    },
    /// A broker could not register and exits.
    StartupFailed {
        /// The broker.
        broker: BrokerId,
        /// ZooKeeper's answer.
        error: ZkError,
    },
    /// A session expired without heartbeats.
    SessionExpired {
        /// The session.
        session: SessionId,
        /// The broker that held it.
        owner: Option<BrokerId>,
        /// `zookeeper.session.timeout.ms`.
        timeout_ms: u64,
    },
    /// A session expired by the user's request.
    SessionExpiredByRequest {
        /// The broker.
        broker: BrokerId,
    },
    /// A broker learned its session expired and opened a new one.
    SessionReinitialized {
        /// The queued events dropped.
        preempted: Vec<&'static str>,
        /// The new session.
        new_session: SessionId,
    },
    /// A paused broker resumed.
    Resumed {
        /// The broker.
        broker: BrokerId,
        /// How long it was paused (ms).
        after_ms: u64,
    },
    /// A broker shut down cleanly.
    ShutdownComplete {
        /// The broker.
        broker: BrokerId,
        /// Whether it was the controller (so `/controller` went too).
        was_active: bool,
    },
    /// A broker starts its controlled shutdown.
    ShutdownStarted {
        /// The broker.
        broker: BrokerId,
    },
    /// Controlled shutdown given up after its retries.
    ShutdownGaveUp {
        /// The broker.
        broker: BrokerId,
        /// `controlled.shutdown.max.retries`.
        max: u64,
    },
    /// A shutdown attempt found no registered controller.
    ShutdownNoController {
        /// The attempt.
        attempt: u64,
    },
    /// A ControlledShutdownRequest sent.
    ShutdownRequestSent {
        /// The attempt.
        attempt: u64,
        /// The controller.
        controller: BrokerId,
        /// The broker's epoch.
        broker_epoch: i64,
    },
    /// A controlled shutdown attempt succeeded.
    ShutdownSucceeded {
        /// The attempt.
        attempt: u64,
    },
    /// A controlled shutdown attempt failed; another follows.
    ShutdownRetry {
        /// The attempt.
        attempt: u64,
        /// What it came to.
        failure: ShutdownFailure,
        /// `controlled.shutdown.retry.backoff.ms`.
        backoff_ms: u64,
    },

    // ----- the wire and the event thread ----------------------------------
    /// A broker handled a controller request (applied or rejected).
    RequestHandled {
        /// The request's name.
        request: &'static str,
        /// The controller that sent it.
        from: BrokerId,
        /// Its controller epoch.
        epoch: i32,
        /// The lowest and highest leader epoch of the partitions it carries
        /// (LeaderAndIsr, UpdateMetadata; `None` when it carries none).
        leader_epochs: Option<(i32, i32)>,
        /// The broker's answer.
        error: ApiError,
    },
    /// A watch fired and enqueued a controller event.
    WatchFired {
        /// What happened to the path.
        kind: WatchKind,
        /// The path.
        path: String,
        /// The event enqueued.
        event: &'static str,
    },
    /// The controller's event thread processed an event.
    EventProcessed {
        /// The event.
        event: &'static str,
        /// How long it waited in the queue (ms).
        queued_ms: u64,
        /// ZooKeeper reads.
        reads: u64,
        /// ZooKeeper writes.
        writes: u64,
        /// Requests sent.
        requests: u64,
        /// How long it took (ms).
        took_ms: u64,
    },

    // ----- the data plane ---------------------------------------------------
    /// Acknowledged records lost to a leader change.
    RecordsLost {
        /// How many.
        lost: u64,
        /// The partition.
        tp: TopicPartition,
        /// The new leader.
        broker: BrokerId,
    },
    /// A partition leader wrote a new ISR.
    LeaderUpdatedIsr {
        /// The partition.
        tp: TopicPartition,
        /// The leader.
        leader: BrokerId,
        /// The ISR before.
        old: Vec<BrokerId>,
        /// The ISR written.
        isr: Vec<BrokerId>,
        /// The state znode's new version.
        zk_version: i32,
    },
    /// A partition leader's ISR write was refused (stale zkVersion).
    IsrUpdateSkipped {
        /// The partition.
        tp: TopicPartition,
        /// The leader's cached zkVersion.
        cached_zk_version: i32,
        /// ZooKeeper's answer.
        error: ZkError,
    },
    /// A broker wrote an ISR change notification.
    IsrChangePropagated {
        /// The sequential znode created.
        path: String,
        /// Its data.
        data: String,
    },
    /// A produce refused: the partition has no leader.
    ProduceNoLeader {
        /// The partition.
        tp: TopicPartition,
    },
    /// A produce refused: the broker asked does not lead.
    ProduceNotLeader {
        /// The partition.
        tp: TopicPartition,
        /// The broker asked.
        broker: BrokerId,
    },
    /// An `acks=all` produce refused: the ISR is too small.
    ProduceNotEnoughReplicas {
        /// The partition.
        tp: TopicPartition,
        /// The ISR.
        isr: Vec<BrokerId>,
        /// `min.insync.replicas`.
        min_isr: u64,
    },
    /// Records appended at the leader.
    Produced {
        /// How many.
        count: u64,
        /// The partition.
        tp: TopicPartition,
        /// The leader.
        leader: BrokerId,
        /// The first offset.
        first: u64,
        /// The acks asked for.
        acks: Acks,
    },
    /// A follower truncated its log to match the leader's.
    LogTruncated {
        /// The partition.
        tp: TopicPartition,
        /// The follower.
        follower: BrokerId,
        /// Records dropped.
        dropped: u64,
        /// The offset truncated to.
        offset: u64,
        /// The leader.
        leader: BrokerId,
    },

    // ----- the controller ---------------------------------------------------
    /// Another broker already is the controller.
    AlreadyElected {
        /// The controller.
        controller: BrokerId,
    },
    /// This broker won the election.
    Elected {
        /// The broker.
        broker: BrokerId,
        /// The new controller epoch.
        epoch: i32,
        /// `/controller_epoch`'s version.
        zk_version: i32,
    },
    /// Another broker won the race.
    ElectedInstead {
        /// The winner.
        winner: BrokerId,
        /// This broker.
        me: BrokerId,
        /// ControllerMovedException's message.
        why: String,
    },
    /// The winner already resigned; another round follows.
    ElectedAndResigned {
        /// ControllerMovedException's message.
        why: String,
    },
    /// Electing or becoming controller failed.
    ElectionError {
        /// This broker.
        broker: BrokerId,
        /// The error.
        error: ControllerError,
    },
    /// Failover done.
    FailoverDone {
        /// The controller epoch.
        epoch: i32,
    },
    /// The controller resigns: its session expired with `/controller`.
    ResignSessionExpired {
        /// This broker.
        broker: BrokerId,
        /// The epoch it held.
        epoch: i32,
    },
    /// The controller resigns: `/controller` names another broker.
    Resign {
        /// This broker.
        broker: BrokerId,
    },
    /// The controller resigns after an error (triggerControllerMove).
    ResignAfterError {
        /// This broker.
        broker: BrokerId,
    },
    /// The controller resigns as its broker shuts down.
    ResignForShutdown {
        /// This broker.
        broker: BrokerId,
    },
    /// A controller write was fenced: ControllerMovedException.
    ControllerMoved(String),
    /// An event failed.
    EventError {
        /// The event (`None` when resigning after a move).
        event: Option<&'static str>,
        /// The error.
        error: ControllerError,
    },
    /// An event ignored by a broker that is not the controller.
    EventSkipped {
        /// The event.
        event: &'static str,
    },
    /// An event the simulator does not model.
    Unmodelled {
        /// The event.
        event: &'static str,
    },
    /// The brokers changed.
    BrokerChange {
        /// Newly registered.
        new: Vec<BrokerId>,
        /// Gone.
        dead: Vec<BrokerId>,
        /// Re-registered with a newer epoch.
        bounced: Vec<BrokerId>,
        /// All live brokers.
        live: Vec<BrokerId>,
    },
    /// ISR change notifications handled.
    IsrChangesSent {
        /// The partitions.
        partitions: Vec<TopicPartition>,
    },
    /// A partition's state changed.
    PartitionStateChanged {
        /// The partition.
        tp: TopicPartition,
        /// The state before.
        from: PartitionState,
        /// The state now.
        to: PartitionState,
    },
    /// A partition state change failed (`invalid_transition`,
    /// `election_failed`).
    PartitionStateChangeFailed(PartitionStateChangeError),
    /// A replica state change refused.
    ReplicaStateChangeFailed(ReplicaStateChangeError),
    /// A new partition's first leader.
    LeaderInitialized {
        /// The leader (`None`: -1).
        leader: Option<BrokerId>,
        /// The partition.
        tp: TopicPartition,
        /// AR.
        replicas: Vec<BrokerId>,
        /// ISR.
        isr: Vec<BrokerId>,
    },
    /// A leader elected (clean or unclean).
    LeaderElected {
        /// The leader.
        leader: BrokerId,
        /// The partition.
        tp: TopicPartition,
        /// The strategy's reason.
        why: ElectionWhy,
        /// The new leader epoch.
        leader_epoch: i32,
    },
    /// Elections that kept conflicting were given up.
    ElectionGaveUp {
        /// The partitions.
        partitions: Vec<TopicPartition>,
        /// Rounds tried.
        rounds: u64,
    },
    /// An election's result, as Kafka reports it.
    ElectionResult {
        /// Which election.
        label: ElectionLabel,
        /// The partition.
        tp: TopicPartition,
        /// The result.
        code: ElectionCode,
    },
    /// A broker's leader imbalance ratio.
    Imbalance {
        /// The preferred replica.
        broker: BrokerId,
        /// Partitions not led by it.
        not_preferred: u64,
        /// Partitions it is preferred for.
        total: u64,
    },
    /// The controller removed an offline replica from an ISR.
    IsrShrunk {
        /// The partition.
        tp: TopicPartition,
        /// The offline replica.
        broker: BrokerId,
        /// The leader now.
        leader: Option<BrokerId>,
        /// The ISR now.
        isr: Vec<BrokerId>,
        /// The leader epoch now.
        leader_epoch: i32,
    },
    /// An ISR shrink fenced by a newer controller's write.
    IsrShrinkFenced {
        /// The partition.
        tp: TopicPartition,
        /// The epoch that wrote it.
        epoch: i32,
        /// The replica.
        broker: BrokerId,
    },
    /// The controller accepts a controlled shutdown.
    ShuttingDownBroker {
        /// The broker.
        broker: BrokerId,
        /// All brokers shutting down.
        all: Vec<BrokerId>,
    },
    /// The partitions a shutting-down broker still leads.
    StillLeads {
        /// The broker.
        broker: BrokerId,
        /// The partitions.
        partitions: Vec<TopicPartition>,
    },

    // ----- topics ------------------------------------------------------------
    /// The controller's view of `/brokers/topics` changed.
    TopicChange {
        /// New topics.
        new: Vec<String>,
        /// Deleted topics.
        deleted: Vec<String>,
        /// Partitions with a new assignment.
        partitions: u64,
    },
    /// Partitions added to a topic.
    NewPartitions {
        /// The partitions.
        partitions: Vec<TopicPartition>,
    },
    /// Partitions not added: the topic is being deleted.
    AddPartitionsSkipped {
        /// The topic.
        topic: String,
        /// The partitions.
        partitions: Vec<TopicPartition>,
    },
    /// `delete.topic.enable` is false.
    DeletionDisabled,
    /// Topics queued for deletion.
    TopicsQueuedForDeletion {
        /// The topics.
        topics: Vec<String>,
    },
    /// A topic's deletion halted.
    DeletionHalted {
        /// The topic.
        topic: String,
        /// Why.
        reason: &'static str,
    },
    /// A topic's deletion paused: replicas on dead brokers.
    DeletionPausedDeadReplicas {
        /// The topic.
        topic: String,
        /// The brokers.
        brokers: Vec<BrokerId>,
    },
    /// StopReplica(delete=true) sent for a topic.
    StopReplicaDeleteSent {
        /// The topic.
        topic: String,
    },
    /// A broker failed to delete replicas.
    ReplicaDeletionFailed {
        /// The broker.
        broker: BrokerId,
        /// Its answer.
        error: ApiError,
    },
    /// A topic deleted.
    TopicDeleted {
        /// The topic.
        topic: String,
    },
    /// Deletion resumed.
    DeletionResumed {
        /// The topics.
        topics: Vec<String>,
    },

    // ----- reassignment -------------------------------------------------------
    /// A reassignment refused before it started.
    ReassignmentRefused {
        /// The partition.
        tp: TopicPartition,
        /// The target replicas.
        target: Vec<BrokerId>,
        /// Kafka's error name.
        code: &'static str,
    },
    /// A reassignment failed.
    ReassignmentFailed {
        /// The partition.
        tp: TopicPartition,
        /// The error.
        error: ControllerError,
    },
    /// A reassignment of a partition that does not exist.
    ReassignmentOfMissingPartition {
        /// The partition.
        tp: TopicPartition,
    },
    /// A reassignment started: the assignment written.
    ReassignmentStarted {
        /// The partition.
        tp: TopicPartition,
        /// RS.
        replicas: Vec<BrokerId>,
        /// Replicas being added.
        adding: Vec<BrokerId>,
        /// Replicas being removed.
        removing: Vec<BrokerId>,
    },
    /// A reassignment waits for new replicas to join the ISR.
    ReassignmentWaiting {
        /// The partition.
        tp: TopicPartition,
        /// Replicas being added.
        adding: Vec<BrokerId>,
        /// The ISR.
        isr: Vec<BrokerId>,
    },
    /// Moving the leader during a reassignment failed.
    ReassignmentLeaderMoveFailed {
        /// The partition.
        tp: TopicPartition,
        /// Why (boxed: large and rare, see [`ElectionCode`]).
        error: Box<PartitionStateChangeError>,
    },
    /// A reassignment completed.
    ReassignmentCompleted {
        /// The partition.
        tp: TopicPartition,
        /// The target replicas.
        target: Vec<BrokerId>,
    },
}

// Written out rather than derived: the derived `clone` is `#[inline]`, and
// the page's `.wasm` carried it twice (once on its own, once inside
// `Box<Fact>`'s clone, 6.5 and 8 KB). Field by field, as the derive does.
#[allow(clippy::clone_on_copy, suspicious_double_ref_op)]
impl Clone for Fact {
    #[inline(never)]
    fn clone(&self) -> Self {
        match self {
            Fact::Text(x) => Fact::Text(x.clone()),
            Fact::UserAction(x) => Fact::UserAction(x.clone()),
            Fact::NoProcessToKill { broker } => Fact::NoProcessToKill {
                broker: broker.clone(),
            },
            Fact::AlreadyRunning { broker } => Fact::AlreadyRunning {
                broker: broker.clone(),
            },
            Fact::NotRunning { broker } => Fact::NotRunning {
                broker: broker.clone(),
            },
            Fact::NoLiveSession { broker } => Fact::NoLiveSession {
                broker: broker.clone(),
            },
            Fact::NoControllerForElection => Fact::NoControllerForElection,
            Fact::NoSuchMessage { id } => Fact::NoSuchMessage { id: id.clone() },
            Fact::MessageDelayed { id, arrives_at_ms } => Fact::MessageDelayed {
                id: id.clone(),
                arrives_at_ms: arrives_at_ms.clone(),
            },
            Fact::WatchNotificationLost {
                id,
                kind,
                path,
                broker,
            } => Fact::WatchNotificationLost {
                id: id.clone(),
                kind: kind.clone(),
                path: path.clone(),
                broker: broker.clone(),
            },
            Fact::ShutdownRequestLost { id } => Fact::ShutdownRequestLost { id: id.clone() },
            Fact::RequestLost { id } => Fact::RequestLost { id: id.clone() },
            Fact::AdminFailed(x) => Fact::AdminFailed(x.clone()),
            Fact::ConfigRefused(x) => Fact::ConfigRefused(x.clone()),
            Fact::ZkOpFailed { op, path, error } => Fact::ZkOpFailed {
                op: op.clone(),
                path: path.clone(),
                error: error.clone(),
            },
            Fact::TopicCreated { topic, data } => Fact::TopicCreated {
                topic: topic.clone(),
                data: data.clone(),
            },
            Fact::PartitionsAdded { topic, data } => Fact::PartitionsAdded {
                topic: topic.clone(),
                data: data.clone(),
            },
            Fact::Registered {
                broker,
                epoch,
                session,
            } => Fact::Registered {
                broker: broker.clone(),
                epoch: epoch.clone(),
                session: session.clone(),
            },
            Fact::StartupFailed { broker, error } => Fact::StartupFailed {
                broker: broker.clone(),
                error: error.clone(),
            },
            Fact::SessionExpired {
                session,
                owner,
                timeout_ms,
            } => Fact::SessionExpired {
                session: session.clone(),
                owner: owner.clone(),
                timeout_ms: timeout_ms.clone(),
            },
            Fact::SessionExpiredByRequest { broker } => Fact::SessionExpiredByRequest {
                broker: broker.clone(),
            },
            Fact::SessionReinitialized {
                preempted,
                new_session,
            } => Fact::SessionReinitialized {
                preempted: preempted.clone(),
                new_session: new_session.clone(),
            },
            Fact::Resumed { broker, after_ms } => Fact::Resumed {
                broker: broker.clone(),
                after_ms: after_ms.clone(),
            },
            Fact::ShutdownComplete { broker, was_active } => Fact::ShutdownComplete {
                broker: broker.clone(),
                was_active: was_active.clone(),
            },
            Fact::ShutdownStarted { broker } => Fact::ShutdownStarted {
                broker: broker.clone(),
            },
            Fact::ShutdownGaveUp { broker, max } => Fact::ShutdownGaveUp {
                broker: broker.clone(),
                max: max.clone(),
            },
            Fact::ShutdownNoController { attempt } => Fact::ShutdownNoController {
                attempt: attempt.clone(),
            },
            Fact::ShutdownRequestSent {
                attempt,
                controller,
                broker_epoch,
            } => Fact::ShutdownRequestSent {
                attempt: attempt.clone(),
                controller: controller.clone(),
                broker_epoch: broker_epoch.clone(),
            },
            Fact::ShutdownSucceeded { attempt } => Fact::ShutdownSucceeded {
                attempt: attempt.clone(),
            },
            Fact::ShutdownRetry {
                attempt,
                failure,
                backoff_ms,
            } => Fact::ShutdownRetry {
                attempt: attempt.clone(),
                failure: failure.clone(),
                backoff_ms: backoff_ms.clone(),
            },
            Fact::RequestHandled {
                request,
                from,
                epoch,
                leader_epochs,
                error,
            } => Fact::RequestHandled {
                request: request.clone(),
                from: from.clone(),
                epoch: epoch.clone(),
                leader_epochs: leader_epochs.clone(),
                error: error.clone(),
            },
            Fact::WatchFired { kind, path, event } => Fact::WatchFired {
                kind: kind.clone(),
                path: path.clone(),
                event: event.clone(),
            },
            Fact::EventProcessed {
                event,
                queued_ms,
                reads,
                writes,
                requests,
                took_ms,
            } => Fact::EventProcessed {
                event: event.clone(),
                queued_ms: queued_ms.clone(),
                reads: reads.clone(),
                writes: writes.clone(),
                requests: requests.clone(),
                took_ms: took_ms.clone(),
            },
            Fact::RecordsLost { lost, tp, broker } => Fact::RecordsLost {
                lost: lost.clone(),
                tp: tp.clone(),
                broker: broker.clone(),
            },
            Fact::LeaderUpdatedIsr {
                tp,
                leader,
                old,
                isr,
                zk_version,
            } => Fact::LeaderUpdatedIsr {
                tp: tp.clone(),
                leader: leader.clone(),
                old: old.clone(),
                isr: isr.clone(),
                zk_version: zk_version.clone(),
            },
            Fact::IsrUpdateSkipped {
                tp,
                cached_zk_version,
                error,
            } => Fact::IsrUpdateSkipped {
                tp: tp.clone(),
                cached_zk_version: cached_zk_version.clone(),
                error: error.clone(),
            },
            Fact::IsrChangePropagated { path, data } => Fact::IsrChangePropagated {
                path: path.clone(),
                data: data.clone(),
            },
            Fact::ProduceNoLeader { tp } => Fact::ProduceNoLeader { tp: tp.clone() },
            Fact::ProduceNotLeader { tp, broker } => Fact::ProduceNotLeader {
                tp: tp.clone(),
                broker: broker.clone(),
            },
            Fact::ProduceNotEnoughReplicas { tp, isr, min_isr } => Fact::ProduceNotEnoughReplicas {
                tp: tp.clone(),
                isr: isr.clone(),
                min_isr: min_isr.clone(),
            },
            Fact::Produced {
                count,
                tp,
                leader,
                first,
                acks,
            } => Fact::Produced {
                count: count.clone(),
                tp: tp.clone(),
                leader: leader.clone(),
                first: first.clone(),
                acks: acks.clone(),
            },
            Fact::LogTruncated {
                tp,
                follower,
                dropped,
                offset,
                leader,
            } => Fact::LogTruncated {
                tp: tp.clone(),
                follower: follower.clone(),
                dropped: dropped.clone(),
                offset: offset.clone(),
                leader: leader.clone(),
            },
            Fact::AlreadyElected { controller } => Fact::AlreadyElected {
                controller: controller.clone(),
            },
            Fact::Elected {
                broker,
                epoch,
                zk_version,
            } => Fact::Elected {
                broker: broker.clone(),
                epoch: epoch.clone(),
                zk_version: zk_version.clone(),
            },
            Fact::ElectedInstead { winner, me, why } => Fact::ElectedInstead {
                winner: winner.clone(),
                me: me.clone(),
                why: why.clone(),
            },
            Fact::ElectedAndResigned { why } => Fact::ElectedAndResigned { why: why.clone() },
            Fact::ElectionError { broker, error } => Fact::ElectionError {
                broker: broker.clone(),
                error: error.clone(),
            },
            Fact::FailoverDone { epoch } => Fact::FailoverDone {
                epoch: epoch.clone(),
            },
            Fact::ResignSessionExpired { broker, epoch } => Fact::ResignSessionExpired {
                broker: broker.clone(),
                epoch: epoch.clone(),
            },
            Fact::Resign { broker } => Fact::Resign {
                broker: broker.clone(),
            },
            Fact::ResignAfterError { broker } => Fact::ResignAfterError {
                broker: broker.clone(),
            },
            Fact::ResignForShutdown { broker } => Fact::ResignForShutdown {
                broker: broker.clone(),
            },
            Fact::ControllerMoved(x) => Fact::ControllerMoved(x.clone()),
            Fact::EventError { event, error } => Fact::EventError {
                event: event.clone(),
                error: error.clone(),
            },
            Fact::EventSkipped { event } => Fact::EventSkipped {
                event: event.clone(),
            },
            Fact::Unmodelled { event } => Fact::Unmodelled {
                event: event.clone(),
            },
            Fact::BrokerChange {
                new,
                dead,
                bounced,
                live,
            } => Fact::BrokerChange {
                new: new.clone(),
                dead: dead.clone(),
                bounced: bounced.clone(),
                live: live.clone(),
            },
            Fact::IsrChangesSent { partitions } => Fact::IsrChangesSent {
                partitions: partitions.clone(),
            },
            Fact::PartitionStateChanged { tp, from, to } => Fact::PartitionStateChanged {
                tp: tp.clone(),
                from: from.clone(),
                to: to.clone(),
            },
            Fact::PartitionStateChangeFailed(x) => Fact::PartitionStateChangeFailed(x.clone()),
            Fact::ReplicaStateChangeFailed(x) => Fact::ReplicaStateChangeFailed(x.clone()),
            Fact::LeaderInitialized {
                leader,
                tp,
                replicas,
                isr,
            } => Fact::LeaderInitialized {
                leader: leader.clone(),
                tp: tp.clone(),
                replicas: replicas.clone(),
                isr: isr.clone(),
            },
            Fact::LeaderElected {
                leader,
                tp,
                why,
                leader_epoch,
            } => Fact::LeaderElected {
                leader: leader.clone(),
                tp: tp.clone(),
                why: why.clone(),
                leader_epoch: leader_epoch.clone(),
            },
            Fact::ElectionGaveUp { partitions, rounds } => Fact::ElectionGaveUp {
                partitions: partitions.clone(),
                rounds: rounds.clone(),
            },
            Fact::ElectionResult { label, tp, code } => Fact::ElectionResult {
                label: label.clone(),
                tp: tp.clone(),
                code: code.clone(),
            },
            Fact::Imbalance {
                broker,
                not_preferred,
                total,
            } => Fact::Imbalance {
                broker: broker.clone(),
                not_preferred: not_preferred.clone(),
                total: total.clone(),
            },
            Fact::IsrShrunk {
                tp,
                broker,
                leader,
                isr,
                leader_epoch,
            } => Fact::IsrShrunk {
                tp: tp.clone(),
                broker: broker.clone(),
                leader: leader.clone(),
                isr: isr.clone(),
                leader_epoch: leader_epoch.clone(),
            },
            Fact::IsrShrinkFenced { tp, epoch, broker } => Fact::IsrShrinkFenced {
                tp: tp.clone(),
                epoch: epoch.clone(),
                broker: broker.clone(),
            },
            Fact::ShuttingDownBroker { broker, all } => Fact::ShuttingDownBroker {
                broker: broker.clone(),
                all: all.clone(),
            },
            Fact::StillLeads { broker, partitions } => Fact::StillLeads {
                broker: broker.clone(),
                partitions: partitions.clone(),
            },
            Fact::TopicChange {
                new,
                deleted,
                partitions,
            } => Fact::TopicChange {
                new: new.clone(),
                deleted: deleted.clone(),
                partitions: partitions.clone(),
            },
            Fact::NewPartitions { partitions } => Fact::NewPartitions {
                partitions: partitions.clone(),
            },
            Fact::AddPartitionsSkipped { topic, partitions } => Fact::AddPartitionsSkipped {
                topic: topic.clone(),
                partitions: partitions.clone(),
            },
            Fact::DeletionDisabled => Fact::DeletionDisabled,
            Fact::TopicsQueuedForDeletion { topics } => Fact::TopicsQueuedForDeletion {
                topics: topics.clone(),
            },
            Fact::DeletionHalted { topic, reason } => Fact::DeletionHalted {
                topic: topic.clone(),
                reason: reason.clone(),
            },
            Fact::DeletionPausedDeadReplicas { topic, brokers } => {
                Fact::DeletionPausedDeadReplicas {
                    topic: topic.clone(),
                    brokers: brokers.clone(),
                }
            }
            Fact::StopReplicaDeleteSent { topic } => Fact::StopReplicaDeleteSent {
                topic: topic.clone(),
            },
            Fact::ReplicaDeletionFailed { broker, error } => Fact::ReplicaDeletionFailed {
                broker: broker.clone(),
                error: error.clone(),
            },
            Fact::TopicDeleted { topic } => Fact::TopicDeleted {
                topic: topic.clone(),
            },
            Fact::DeletionResumed { topics } => Fact::DeletionResumed {
                topics: topics.clone(),
            },
            Fact::ReassignmentRefused { tp, target, code } => Fact::ReassignmentRefused {
                tp: tp.clone(),
                target: target.clone(),
                code: code.clone(),
            },
            Fact::ReassignmentFailed { tp, error } => Fact::ReassignmentFailed {
                tp: tp.clone(),
                error: error.clone(),
            },
            Fact::ReassignmentOfMissingPartition { tp } => {
                Fact::ReassignmentOfMissingPartition { tp: tp.clone() }
            }
            Fact::ReassignmentStarted {
                tp,
                replicas,
                adding,
                removing,
            } => Fact::ReassignmentStarted {
                tp: tp.clone(),
                replicas: replicas.clone(),
                adding: adding.clone(),
                removing: removing.clone(),
            },
            Fact::ReassignmentWaiting { tp, adding, isr } => Fact::ReassignmentWaiting {
                tp: tp.clone(),
                adding: adding.clone(),
                isr: isr.clone(),
            },
            Fact::ReassignmentLeaderMoveFailed { tp, error } => {
                Fact::ReassignmentLeaderMoveFailed {
                    tp: tp.clone(),
                    error: error.clone(),
                }
            }
            Fact::ReassignmentCompleted { tp, target } => Fact::ReassignmentCompleted {
                tp: tp.clone(),
                target: target.clone(),
            },
        }
    }
}

/// A fact serialises as its English sentence (a controller's pending trace
/// lines travel with its state) and reads back as [`Fact::Text`].
impl serde::Serialize for Fact {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.english())
    }
}

impl<'de> serde::Deserialize<'de> for Fact {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Fact, D::Error> {
        String::deserialize(d).map(Fact::Text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::builtin;
    use crate::time::SimTime;

    /// `Fact`'s `Clone` is written out (for the `.wasm`'s size): every fact
    /// the built-in scenarios produce, cloned (alone and boxed, as the
    /// trace holds the rarer ones), equals itself and reads the same.
    #[test]
    fn a_cloned_fact_equals_the_original() {
        let mut seen = 0;
        for name in builtin::NAMES.iter().filter(|n| **n != "kafka-scale") {
            let Some(s) = builtin::scenario(name) else {
                panic!("{name} parses");
            };
            let mut sim = s.build();
            sim.run_until(SimTime(60_000));
            for r in sim.trace() {
                let f = r.fact().into_owned();
                let c = f.clone();
                assert_eq!(c, f, "{name}");
                assert_eq!(c.english(), f.english(), "{name}");
                let b = Box::new(f);
                assert_eq!(b.clone(), b, "{name}");
                seen += 1;
            }
        }
        assert!(seen > 500, "{seen} facts");
        let text = Fact::Text("read back".to_string());
        assert_eq!(text.clone(), text);
    }
}
