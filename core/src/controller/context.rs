//! What the active controller holds in memory (Kafka's ControllerContext).

use super::election::BrokerIds;
use super::states::{PartitionState, ReplicaState};
use crate::cow_map::CowMap;
use crate::ids::{BrokerId, TopicPartition};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The leadership the controller caches, as the state znode carries it
/// (defined with the znode codecs).
pub use crate::znodes::LeaderIsr;

/// The controller's in-memory view of the cluster. The per-partition maps
/// are copy-on-write ([`CowMap`]): a copy of the context (a timeline
/// snapshot's, a benchmark's) shares them chunk by chunk.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControllerContext {
    /// The controller epoch (`/controller_epoch`'s value when elected).
    pub epoch: i32,
    /// The version of `/controller_epoch`: the fencing token.
    pub epoch_zk_version: i32,
    /// Live or shutting-down brokers with their broker epochs (czxid).
    pub live_brokers: BTreeMap<BrokerId, i64>,
    /// Brokers in controlled shutdown.
    pub shutting_down: BTreeSet<BrokerId>,
    /// Every topic.
    pub all_topics: BTreeSet<String>,
    /// The replica assignment, preferred replica first (up to six replicas
    /// in place; serializes as a list).
    pub assignments: CowMap<TopicPartition, BrokerIds>,
    /// Leadership read from or written to the state znodes.
    pub leadership: CowMap<TopicPartition, LeaderIsr>,
    /// The PartitionStateMachine's states.
    pub partition_states: CowMap<TopicPartition, PartitionState>,
    /// The ReplicaStateMachine's states, by partition and broker.
    pub replica_states: CowMap<(TopicPartition, BrokerId), ReplicaState>,
    /// Topics queued for deletion (`topicsToBeDeleted`).
    pub topics_to_be_deleted: BTreeSet<String>,
    /// Partitions with a reassignment in progress.
    pub partitions_being_reassigned: BTreeSet<TopicPartition>,
    /// Adding and removing replicas of partitions being reassigned (KIP-455).
    pub reassigning: BTreeMap<TopicPartition, super::reassignment::Reassignment>,
    /// Topics whose deletion has started (`topicsWithDeletionStarted`).
    pub topics_with_deletion_started: BTreeSet<String>,
    /// Topics whose deletion is paused (`topicsIneligibleForDeletion`).
    pub topics_ineligible_for_deletion: BTreeSet<String>,
}

impl ControllerContext {
    /// `liveBrokerIds`: live and not shutting down.
    pub fn live_broker_ids(&self) -> BTreeSet<BrokerId> {
        self.live_brokers
            .keys()
            .copied()
            .filter(|b| !self.shutting_down.contains(b))
            .collect()
    }

    /// `liveOrShuttingDownBrokerIds`.
    pub fn live_or_shutting_down(&self) -> BTreeSet<BrokerId> {
        self.live_brokers.keys().copied().collect()
    }

    /// `isReplicaOnline` (log directories are not modelled, so only the broker counts).
    pub fn is_replica_online(&self, broker: BrokerId, include_shutting_down: bool) -> bool {
        self.live_brokers.contains_key(&broker)
            && (include_shutting_down || !self.shutting_down.contains(&broker))
    }

    /// Partitions of one topic, in partition order.
    pub fn partitions_of<'a>(&'a self, topic: &'a str) -> impl Iterator<Item = &'a TopicPartition> {
        self.assignments.keys().filter(move |tp| tp.topic == topic)
    }
}
