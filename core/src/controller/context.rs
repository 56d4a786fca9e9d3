//! What the active controller holds in memory (Kafka's ControllerContext).

use super::replica_states::ReplicaStates;
use super::states::PartitionState;
use crate::ids::{BrokerId, TopicPartition};
use crate::partition_map::PartitionMap;
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The leadership the controller caches, as the state znode carries it
/// (defined with the znode codecs).
pub use crate::znodes::LeaderIsr;

/// The controller's in-memory view of the cluster. The per-partition maps
/// find a partition by its number and are copy-on-write ([`PartitionMap`]):
/// a copy of the context (a timeline snapshot's, a benchmark's) shares them
/// chunk by chunk.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControllerContext {
    /// The controller epoch (`/controller_epoch`'s value when elected).
    pub epoch: i32,
    /// The version of `/controller_epoch`: the fencing token.
    pub epoch_zk_version: i32,
    /// Live or shutting-down brokers with their broker epochs (czxid).
    pub live_brokers: VecMap<BrokerId, i64>,
    /// Brokers in controlled shutdown.
    pub shutting_down: BTreeSet<BrokerId>,
    /// Every topic.
    pub all_topics: BTreeSet<String>,
    /// The replica assignment, preferred replica first (up to three
    /// replicas in place; serializes as a list).
    pub assignments: PartitionMap<crate::broker::ReplicaIds>,
    /// Leadership read from or written to the state znodes.
    pub leadership: PartitionMap<LeaderIsr>,
    /// The PartitionStateMachine's states.
    pub partition_states: PartitionMap<PartitionState>,
    /// The ReplicaStateMachine's states, by partition and broker (held by
    /// partition; reads, prints and serializes as a map by both).
    pub replica_states: ReplicaStates,
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

    /// Set `tp`'s leadership to `l`, written only if it differs (an equal
    /// one leaves its chunk shared with a copy of the context).
    pub fn set_leadership(&mut self, tp: &TopicPartition, l: &LeaderIsr) {
        self.leadership
            .insert_with(tp, |held| (held != Some(l)).then(|| l.clone()));
    }

    /// Partitions of one topic, in partition order.
    pub fn partitions_of<'a>(
        &'a self,
        topic: &'a str,
    ) -> impl Iterator<Item = TopicPartition> + 'a {
        (self.assignments.iter_from(&TopicPartition::new(topic, 0)))
            .map(|(tp, _)| tp)
            .take_while(move |tp| tp.topic == topic)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broker::ReplicaIds;

    /// The assignments are held as `ReplicaIds` (in place up to three, on
    /// the heap beyond): they serialize and print exactly as the map of
    /// `Vec<BrokerId>` they replace, read back equal, and a clone changed
    /// apart from its original leaves the original as it was.
    #[test]
    fn assignments_serialize_and_print_as_lists_of_ids() {
        let lists: Vec<Vec<BrokerId>> = vec![
            vec![],
            vec![BrokerId(3), BrokerId(1), BrokerId(2)],
            (0..6).map(BrokerId).collect(),
            (0..9).rev().map(BrokerId).collect(),
        ];
        let mut ctx = ControllerContext::default();
        let mut model: Vec<(TopicPartition, Vec<BrokerId>)> = Vec::new();
        for (p, l) in lists.iter().enumerate() {
            let tp = TopicPartition::new("t", p as u32);
            ctx.assignments.insert(tp.clone(), ReplicaIds::from(&l[..]));
            model.push((tp, l.clone()));
        }
        let old: crate::cow_map::CowMap<TopicPartition, Vec<BrokerId>> =
            crate::cow_map::CowMap::from_sorted(model.clone());
        assert_eq!(format!("{:?}", ctx.assignments), format!("{old:?}"));
        let entries: Vec<(TopicPartition, &ReplicaIds)> = ctx.assignments.iter().collect();
        let json = serde_json::to_string(&entries).expect("serializes");
        assert_eq!(json, serde_json::to_string(&model).expect("serializes"));
        let back: Vec<(TopicPartition, ReplicaIds)> = serde_json::from_str(&json).expect("reads");
        assert_eq!(PartitionMap::from_sorted(back), ctx.assignments);

        let mut changed = ctx.clone();
        let tp = TopicPartition::new("t", 3);
        if let Some(a) = changed.assignments.get_mut(&tp) {
            *a = a.iter().copied().filter(|r| *r != BrokerId(4)).collect();
        }
        if let Some((_, l)) = model.get_mut(3) {
            l.retain(|r| *r != BrokerId(4));
        }
        let original: Vec<Vec<BrokerId>> = ctx.assignments.values().map(|a| a.to_vec()).collect();
        assert_eq!(original, lists);
        let now: Vec<(TopicPartition, Vec<BrokerId>)> = changed
            .assignments
            .iter()
            .map(|(tp, a)| (tp.clone(), a.to_vec()))
            .collect();
        assert_eq!(now, model);
        assert_ne!(changed, ctx);
    }
}
