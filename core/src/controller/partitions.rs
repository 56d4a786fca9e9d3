//! The controller context's partitions, as Kafka 2.4.0's `KafkaController`
//! reads them from ZooKeeper (`initializeControllerContext`, the
//! `PartitionModificationsHandler` registration, `getTopicPartitionStates`),
//! and ISR change notifications (`processIsrChangeNotification`). The state
//! machines live in [`super::partition_state_machine`] and
//! [`super::replica_state_machine`]; topic creation in [`super::topics`].

use super::batch::RequestBatch;
use super::{ControllerError, Env, KafkaController};
use crate::ids::TopicPartition;
use crate::kafka_zk::{fenced_delete_children, read_leader_isrs};
use crate::partition_map::PartitionMap;
use crate::zk::ZkError;
use crate::zk_client::paths;
use crate::znodes::decode_topic_assignment_ids;
use std::collections::BTreeSet;

impl KafkaController {
    // ----- context ------------------------------------------------------------

    /// Read every topic's assignment (re-arming the per-topic watches) and
    /// every partition's state znode into the context.
    /// The assignments of every topic (`initializeControllerContext`'s
    /// `getFullReplicaAssignmentForTopics`); their leaderships are read next
    /// ([`KafkaController::read_leaderships`]).
    pub(super) fn read_assignments(&mut self, env: &mut Env<'_>) -> Result<(), ControllerError> {
        self.ctx.assignments = PartitionMap::new();
        self.ctx.leadership = PartitionMap::new();
        let topics: Vec<String> = self.ctx.all_topics.iter().cloned().collect();
        // The assignments in topic and partition order, built in one go.
        let mut assignments = Vec::new();
        let mut failed = None;
        for topic in &topics {
            match self.read_topic_assignment_entries(env, topic) {
                // The first topic's list is kept as it is (not copied).
                Ok(entries) if assignments.is_empty() => assignments = entries,
                Ok(entries) => assignments.extend(entries),
                Err(e) => {
                    // What was read stays, as if inserted one by one.
                    failed = Some(e);
                    break;
                }
            }
        }
        self.ctx.assignments = PartitionMap::from_sorted(assignments);
        match failed {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Every assigned partition's leadership (`updateLeaderAndIsrCache`).
    pub(super) fn read_leaderships(&mut self, env: &mut Env<'_>) -> Result<(), ControllerError> {
        // Read as one batch (`getTopicPartitionStates`), in partition order,
        // so the map is built in one go.
        let tps: Vec<TopicPartition> = self.ctx.assignments.keys().cloned().collect();
        let states = read_leader_isrs(env.client, env.zk, &tps)?;
        // Sized once (a collect through the filter would grow it by doubling).
        let mut leadership = Vec::with_capacity(states.iter().flatten().count());
        for (tp, l) in tps.into_iter().zip(states) {
            if let Some(l) = l {
                leadership.push((tp, l));
            }
        }
        self.ctx.leadership = PartitionMap::from_sorted(leadership);
        Ok(())
    }

    /// Register the PartitionModificationsHandler for `topic` and read its assignment.
    pub(super) fn read_topic_assignment(
        &mut self,
        env: &mut Env<'_>,
        topic: &str,
    ) -> Result<Vec<TopicPartition>, ControllerError> {
        let entries = self.read_topic_assignment_entries(env, topic)?;
        let mut out = Vec::with_capacity(entries.len());
        for (tp, replicas) in entries {
            self.ctx.assignments.insert(tp.clone(), replicas);
            out.push(tp);
        }
        Ok(out)
    }

    /// `read_topic_assignment` without changing the assignments: the
    /// topic's partitions with their replicas, in the znode's order (the
    /// reassignments in it are recorded).
    fn read_topic_assignment_entries(
        &mut self,
        env: &mut Env<'_>,
        topic: &str,
    ) -> Result<Vec<(TopicPartition, super::election::BrokerIds)>, ControllerError> {
        let path = paths::topic(topic);
        env.client.register_data_handler(&path);
        let data = match env.client.get_data(env.zk, &path) {
            Ok((d, _)) => d,
            Err(ZkError::NoNode) => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        // One shared name for every partition of the topic.
        let topic = crate::ids::Topic::from(topic);
        let out = decode_topic_assignment_ids(&data)
            .unwrap_or_default()
            .into_iter()
            .map(|(p, replicas)| (TopicPartition::new(&topic, p), replicas))
            .collect();
        for (p, r) in crate::znodes::decode_reassigning(&data) {
            self.ctx
                .reassigning
                .insert(TopicPartition::new(&topic, p), r);
        }
        Ok(out)
    }

    // ----- ISR change notifications -------------------------------------------

    /// `processIsrChangeNotification`: refresh the cache for the partitions
    /// named, tell every broker, and delete the notifications (always).
    pub(super) fn process_isr_change_notification(
        &mut self,
        env: &mut Env<'_>,
    ) -> Result<(), ControllerError> {
        let children = env
            .client
            .get_children(env.zk, paths::ISR_CHANGE_NOTIFICATION)?;
        let mut tps = BTreeSet::new();
        for c in &children {
            let path = format!("{}/{c}", paths::ISR_CHANGE_NOTIFICATION);
            if let Ok((data, _)) = env.client.get_data(env.zk, &path) {
                tps.extend(super::rebalance::decode_partition_list(&data).unwrap_or_default());
            }
        }
        let tps: Vec<TopicPartition> = tps
            .into_iter()
            .filter(|tp| self.ctx.assignments.contains_key(tp))
            .collect();
        let result = (|| {
            let states = read_leader_isrs(env.client, env.zk, &tps)?;
            for (tp, l) in tps.iter().zip(states) {
                if let Some(l) = l {
                    // Written only if it changed: an unchanged one leaves its
                    // chunk shared with a copy of the context.
                    self.ctx.set_leadership(tp, &l);
                }
            }
            if !tps.is_empty() {
                let mut batch = RequestBatch::default();
                batch.add_update_metadata_to_all_live(&self.ctx, &tps);
                batch.send(&self.ctx, &self.ctx.topics_to_be_deleted, env);
                env.note(
                    "isr_change",
                    crate::fact::Fact::IsrChangesSent {
                        partitions: tps.to_vec(),
                    },
                );
            }
            Ok(())
        })();
        fenced_delete_children(
            env.client,
            env.zk,
            self.ctx.epoch_zk_version,
            paths::ISR_CHANGE_NOTIFICATION,
            &children,
        )?;
        result
    }

    /// Failover deletes every pending ISR change notification (fenced).
    pub(super) fn delete_isr_change_notifications(
        &mut self,
        env: &mut Env<'_>,
    ) -> Result<(), ControllerError> {
        let children = env
            .client
            .get_children(env.zk, paths::ISR_CHANGE_NOTIFICATION)?;
        fenced_delete_children(
            env.client,
            env.zk,
            self.ctx.epoch_zk_version,
            paths::ISR_CHANGE_NOTIFICATION,
            &children,
        )
    }
}
