//! The controller's events and states, named as Kafka 2.4 names them
//! (`ControllerEvent` subclasses in KafkaController.scala, `ControllerState`).

use crate::ids::BrokerId;
use serde::{Deserialize, Serialize};

/// One event of the controller's FIFO queue (Kafka's `ControllerEvent`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ControllerEvent {
    /// Enqueued by `KafkaController.startup()`: watch `/controller`, then elect.
    Startup,
    /// `/controller` was created or its data changed: maybe resign.
    ControllerChange,
    /// `/controller` was deleted: maybe resign, then elect.
    Reelect,
    /// A new ZooKeeper session exists: re-register the broker, then re-elect.
    RegisterBrokerAndReelect,
    /// The ZooKeeper session is about to be re-created (`clearAndPut`).
    Expire,
    /// The event thread is stopping (`clearAndPut` from `close()`).
    ShutdownEventThread,
    /// The children of `/brokers/ids` changed.
    BrokerChange,
    /// The data of `/brokers/ids/<id>` changed.
    BrokerModifications(BrokerId),
    /// The children of `/brokers/topics` changed.
    TopicChange,
    /// The data of `/brokers/topics/<topic>` changed.
    PartitionModifications(String),
    /// The children of `/admin/delete_topics` changed.
    TopicDeletion,
    /// The children of `/isr_change_notification` changed.
    IsrChangeNotification,
    /// `/admin/reassign_partitions` was created.
    ZkPartitionReassignment,
    /// A leader election asked for through `/admin/preferred_replica_election`
    /// (partitions `None`: read the znode) or the admin API (KIP-460).
    ReplicaLeaderElection {
        /// The partitions, when the admin API names them.
        partitions: Option<Vec<crate::ids::TopicPartition>>,
        /// PREFERRED or UNCLEAN.
        election_type: ElectionType,
        /// Who asked.
        trigger: ElectionTrigger,
    },
    /// The scheduler's periodic imbalance check.
    AutoPreferredReplicaLeaderElection,
    /// A broker asked to shut down in a controlled way.
    ControlledShutdown {
        /// The broker shutting down.
        broker: BrokerId,
        /// Its broker epoch as it sent it.
        broker_epoch: i64,
    },
    /// The response to a LeaderAndIsr request arrived.
    LeaderAndIsrResponseReceived {
        /// The broker that answered.
        broker: BrokerId,
    },
    /// The answer to a StopReplica(delete=true) for a topic being deleted.
    TopicDeletionStopReplicaResponseReceived {
        /// The broker that answered.
        broker: BrokerId,
        /// The partitions it was asked to delete.
        partitions: Vec<crate::ids::TopicPartition>,
        /// The broker's error, if any.
        error: Option<super::channel::ApiError>,
    },
    /// The state znode of a partition being reassigned changed (its leader changed the ISR).
    PartitionReassignmentIsrChange(crate::ids::TopicPartition),
    /// `unclean.leader.election.enable` was turned on for the cluster.
    UncleanLeaderElectionEnable,
    /// `unclean.leader.election.enable` was turned on for one topic.
    TopicUncleanLeaderElectionEnable(String),
}

impl ControllerEvent {
    /// Kafka's class name for the event.
    pub fn name(&self) -> &'static str {
        match self {
            ControllerEvent::Startup => "Startup",
            ControllerEvent::ControllerChange => "ControllerChange",
            ControllerEvent::Reelect => "Reelect",
            ControllerEvent::RegisterBrokerAndReelect => "RegisterBrokerAndReelect",
            ControllerEvent::Expire => "Expire",
            ControllerEvent::ShutdownEventThread => "ShutdownEventThread",
            ControllerEvent::BrokerChange => "BrokerChange",
            ControllerEvent::BrokerModifications(_) => "BrokerModifications",
            ControllerEvent::TopicChange => "TopicChange",
            ControllerEvent::PartitionModifications(_) => "PartitionModifications",
            ControllerEvent::TopicDeletion => "TopicDeletion",
            ControllerEvent::IsrChangeNotification => "IsrChangeNotification",
            ControllerEvent::ZkPartitionReassignment => "ZkPartitionReassignment",
            ControllerEvent::ReplicaLeaderElection { .. } => "ReplicaLeaderElection",
            ControllerEvent::AutoPreferredReplicaLeaderElection => {
                "AutoPreferredReplicaLeaderElection"
            }
            ControllerEvent::ControlledShutdown { .. } => "ControlledShutdown",
            ControllerEvent::LeaderAndIsrResponseReceived { .. } => "LeaderAndIsrResponseReceived",
            ControllerEvent::UncleanLeaderElectionEnable => "UncleanLeaderElectionEnable",
            ControllerEvent::TopicDeletionStopReplicaResponseReceived { .. } => {
                "TopicDeletionStopReplicaResponseReceived"
            }
            ControllerEvent::PartitionReassignmentIsrChange(_) => "PartitionReassignmentIsrChange",
            ControllerEvent::TopicUncleanLeaderElectionEnable(_) => {
                "TopicUncleanLeaderElectionEnable"
            }
        }
    }

    /// The `ControllerState` the event thread is in while processing it.
    pub fn state(&self) -> ControllerState {
        use ControllerEvent as E;
        use ControllerState as S;
        match self {
            E::Startup
            | E::ControllerChange
            | E::Reelect
            | E::RegisterBrokerAndReelect
            | E::Expire => S::ControllerChange,
            E::ShutdownEventThread => S::ControllerShutdown,
            E::BrokerChange | E::BrokerModifications(_) => S::BrokerChange,
            E::TopicChange | E::PartitionModifications(_) => S::TopicChange,
            E::TopicDeletion | E::TopicDeletionStopReplicaResponseReceived { .. } => {
                S::TopicDeletion
            }
            E::PartitionReassignmentIsrChange(_) => S::AlterPartitionReassignment,
            E::IsrChangeNotification => S::IsrChange,
            E::ZkPartitionReassignment => S::AlterPartitionReassignment,
            E::ReplicaLeaderElection { .. } => S::ManualLeaderBalance,
            E::AutoPreferredReplicaLeaderElection => S::AutoLeaderBalance,
            E::ControlledShutdown { .. } => S::ControlledShutdown,
            E::LeaderAndIsrResponseReceived { .. } => S::LeaderAndIsrResponseReceived,
            E::UncleanLeaderElectionEnable => S::UncleanLeaderElectionEnable,
            E::TopicUncleanLeaderElectionEnable(_) => S::TopicUncleanLeaderElectionEnable,
        }
    }

    /// Whether Kafka processes the event on a broker that is not the active
    /// controller (KafkaController.process: the election events do).
    pub fn runs_when_not_active(&self) -> bool {
        matches!(
            self,
            ControllerEvent::Startup
                | ControllerEvent::ControllerChange
                | ControllerEvent::Reelect
                | ControllerEvent::RegisterBrokerAndReelect
                | ControllerEvent::Expire
                | ControllerEvent::ShutdownEventThread
        )
    }
}

/// KIP-460's election types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ElectionType {
    /// Move leadership to the preferred replica.
    Preferred,
    /// Elect a leader for partitions that have none, even outside the ISR.
    Unclean,
}

/// Who asked for an election (Kafka's `ElectionTrigger`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ElectionTrigger {
    /// `/admin/preferred_replica_election` (kafka-preferred-replica-election.sh).
    Zk,
    /// The admin API (`kafka-leader-election.sh`).
    AdminClient,
    /// The auto leader rebalance.
    Auto,
}

/// Kafka's `ControllerState` (the value of the `ControllerState` gauge).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, Default)]
pub enum ControllerState {
    /// 0: nothing being processed.
    #[default]
    Idle,
    /// 1: election events.
    ControllerChange,
    /// 2: broker membership.
    BrokerChange,
    /// 3: topic creation and partition addition.
    TopicChange,
    /// 4: topic deletion.
    TopicDeletion,
    /// 5: reassignment (named PartitionReassignment before 2.4).
    AlterPartitionReassignment,
    /// 6: the periodic preferred election.
    AutoLeaderBalance,
    /// 7: an admin-requested election.
    ManualLeaderBalance,
    /// 8: controlled shutdown.
    ControlledShutdown,
    /// 9: ISR change notifications.
    IsrChange,
    /// 10: LeaderAndIsr responses.
    LeaderAndIsrResponseReceived,
    /// 11: log directory failures (not modelled).
    LogDirChange,
    /// 12: the event thread is stopping.
    ControllerShutdown,
    /// 13: cluster-wide unclean election enabled.
    UncleanLeaderElectionEnable,
    /// 14: topic-level unclean election enabled.
    TopicUncleanLeaderElectionEnable,
}

impl ControllerState {
    /// The gauge value.
    pub fn value(self) -> u8 {
        self as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gauge_values_match_kafka() {
        // Kafka: ControllerState.scala (2.4.0) byte values.
        assert_eq!(ControllerState::Idle.value(), 0);
        assert_eq!(ControllerState::BrokerChange.value(), 2);
        assert_eq!(ControllerState::ControlledShutdown.value(), 8);
        assert_eq!(ControllerState::IsrChange.value(), 9);
        assert_eq!(
            ControllerState::TopicUncleanLeaderElectionEnable.value(),
            14
        );
    }

    #[test]
    fn only_election_events_run_on_a_non_controller() {
        // Kafka: KafkaController.process — Startup, ControllerChange, Reelect,
        // RegisterBrokerAndReelect and Expire run regardless of isActive.
        assert!(ControllerEvent::Reelect.runs_when_not_active());
        assert!(ControllerEvent::Expire.runs_when_not_active());
        assert!(!ControllerEvent::BrokerChange.runs_when_not_active());
        assert!(!ControllerEvent::IsrChangeNotification.runs_when_not_active());
        assert_eq!(
            ControllerEvent::Reelect.state(),
            ControllerState::ControllerChange
        );
    }
}
