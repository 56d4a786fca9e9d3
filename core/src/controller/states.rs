//! The partition and replica states, each with Kafka's table of valid
//! previous states (`validPreviousStates` in PartitionStateMachine.scala and
//! ReplicaStateMachine.scala, 2.4.0).

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
