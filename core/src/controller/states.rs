//! The partition and replica states, each with Kafka's table of valid
//! previous states (`validPreviousStates` in PartitionStateMachine.scala and
//! ReplicaStateMachine.scala, 2.4.0).

use super::ids_text;
use crate::ids::{BrokerId, TopicPartition};
use crate::zk::ZkError;
use serde::{Deserialize, Serialize};

/// A partition's state in the controller's PartitionStateMachine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum PartitionState {
    /// Replicas assigned, no leader or ISR yet.
    NewPartition,
    /// A leader has been elected.
    OnlinePartition,
    /// The leader died, or election failed.
    OfflinePartition,
    /// Never created, or deleted.
    NonExistentPartition,
}

impl PartitionState {
    /// Every state, in Kafka's byte order.
    pub const ALL: [PartitionState; 4] = [
        PartitionState::NewPartition,
        PartitionState::OnlinePartition,
        PartitionState::OfflinePartition,
        PartitionState::NonExistentPartition,
    ];

    /// Kafka's name.
    pub fn name(self) -> &'static str {
        match self {
            PartitionState::NewPartition => "NewPartition",
            PartitionState::OnlinePartition => "OnlinePartition",
            PartitionState::OfflinePartition => "OfflinePartition",
            PartitionState::NonExistentPartition => "NonExistentPartition",
        }
    }

    /// The states a partition may move here from.
    pub fn valid_previous_states(self) -> &'static [PartitionState] {
        use PartitionState::*;
        match self {
            NewPartition => &[NonExistentPartition],
            OnlinePartition => &[NewPartition, OnlinePartition, OfflinePartition],
            OfflinePartition => &[NewPartition, OnlinePartition, OfflinePartition],
            NonExistentPartition => &[OfflinePartition],
        }
    }

    /// Whether `from → self` is a valid transition.
    pub fn can_follow(self, from: PartitionState) -> bool {
        self.valid_previous_states().contains(&from)
    }
}

impl std::fmt::Display for PartitionState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A replica's state in the controller's ReplicaStateMachine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ReplicaState {
    /// Just assigned (reassignment, partition addition).
    NewReplica,
    /// Serving, as leader or follower.
    OnlineReplica,
    /// Its broker is down (or it is being deleted).
    OfflineReplica,
    /// StopReplica(delete) sent.
    ReplicaDeletionStarted,
    /// The broker deleted it.
    ReplicaDeletionSuccessful,
    /// Deletion failed or cannot proceed.
    ReplicaDeletionIneligible,
    /// Gone.
    NonExistentReplica,
}

impl ReplicaState {
    /// Every state, in Kafka's byte order (1 to 7).
    pub const ALL: [ReplicaState; 7] = [
        ReplicaState::NewReplica,
        ReplicaState::OnlineReplica,
        ReplicaState::OfflineReplica,
        ReplicaState::ReplicaDeletionStarted,
        ReplicaState::ReplicaDeletionSuccessful,
        ReplicaState::ReplicaDeletionIneligible,
        ReplicaState::NonExistentReplica,
    ];

    /// Kafka's name.
    pub fn name(self) -> &'static str {
        match self {
            ReplicaState::NewReplica => "NewReplica",
            ReplicaState::OnlineReplica => "OnlineReplica",
            ReplicaState::OfflineReplica => "OfflineReplica",
            ReplicaState::ReplicaDeletionStarted => "ReplicaDeletionStarted",
            ReplicaState::ReplicaDeletionSuccessful => "ReplicaDeletionSuccessful",
            ReplicaState::ReplicaDeletionIneligible => "ReplicaDeletionIneligible",
            ReplicaState::NonExistentReplica => "NonExistentReplica",
        }
    }

    /// The states a replica may move here from (2.4.0; 2.2 allowed
    /// ReplicaDeletionIneligible only from ReplicaDeletionStarted).
    pub fn valid_previous_states(self) -> &'static [ReplicaState] {
        use ReplicaState::*;
        match self {
            NewReplica => &[NonExistentReplica],
            OnlineReplica => &[
                NewReplica,
                OnlineReplica,
                OfflineReplica,
                ReplicaDeletionIneligible,
            ],
            OfflineReplica => &[
                NewReplica,
                OnlineReplica,
                OfflineReplica,
                ReplicaDeletionIneligible,
            ],
            ReplicaDeletionStarted => &[OfflineReplica],
            ReplicaDeletionSuccessful => &[ReplicaDeletionStarted],
            ReplicaDeletionIneligible => &[OfflineReplica, ReplicaDeletionStarted],
            NonExistentReplica => &[ReplicaDeletionSuccessful],
        }
    }

    /// Whether `from → self` is a valid transition.
    pub fn can_follow(self, from: ReplicaState) -> bool {
        self.valid_previous_states().contains(&from)
    }
}

impl std::fmt::Display for ReplicaState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Why one partition's state change failed in
/// `PartitionStateMachine.handleStateChanges` (Kafka logs it and the
/// partition keeps its state). The text is what the trace shows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PartitionStateChangeError {
    /// The target state may not follow the current one.
    #[error("invalid state transition of {tp} from {from} to {to}")]
    InvalidTransition {
        /// The partition.
        tp: TopicPartition,
        /// Its current state.
        from: PartitionState,
        /// The state asked for.
        to: PartitionState,
    },
    /// New → Online with no assigned replica alive.
    #[error("no assigned replica of {tp} is alive (AR {}); it stays NewPartition", ids_text(.replicas))]
    NoLiveReplica {
        /// The partition.
        tp: TopicPartition,
        /// Its assigned replicas.
        replicas: Vec<BrokerId>,
    },
    /// New → Online: creating the state znode failed.
    #[error("error while creating the state znode of {tp}: {error}")]
    StateZnodeNotCreated {
        /// The partition.
        tp: TopicPartition,
        /// ZooKeeper's answer.
        error: ZkError,
    },
    /// An election found no state znode.
    #[error("LeaderAndIsr information doesn't exist for partition {tp}")]
    NoLeaderAndIsr {
        /// The partition.
        tp: TopicPartition,
    },
    /// An election found the state znode written by a newer controller.
    #[error("leader and isr path written by another controller (epoch {written_by}) while this controller has epoch {epoch}; aborting the election of {tp}")]
    WrittenByNewerController {
        /// The partition.
        tp: TopicPartition,
        /// The controller epoch in the state znode.
        written_by: i32,
        /// This controller's epoch.
        epoch: i32,
    },
    /// The election strategy found no leader.
    #[error("failed to elect leader for partition {tp} under strategy {strategy}: {why}")]
    NoLeaderElected {
        /// The partition.
        tp: TopicPartition,
        /// The strategy's name.
        strategy: &'static str,
        /// Why it found none.
        why: super::election::ElectionWhy,
    },
}

/// Why one replica's state change was refused in
/// `ReplicaStateMachine.handleStateChanges` (Kafka logs it and the replica
/// keeps its state). The text is what the trace shows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplicaStateChangeError {
    /// The target state may not follow the current one.
    #[error(
        "invalid state transition of replica {replica} for partition {tp} from {from} to {to}"
    )]
    InvalidTransition {
        /// The partition.
        tp: TopicPartition,
        /// The replica's broker.
        replica: BrokerId,
        /// Its current state.
        from: ReplicaState,
        /// The state asked for.
        to: ReplicaState,
    },
    /// → NewReplica for the partition's leader.
    #[error("replica {replica} for partition {tp} cannot be moved to NewReplica state as it is being requested to become leader")]
    NewReplicaIsLeader {
        /// The partition.
        tp: TopicPartition,
        /// The replica's broker.
        replica: BrokerId,
    },
}
