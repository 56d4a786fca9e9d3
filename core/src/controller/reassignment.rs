//! Partition reassignment on the controller, in Kafka 2.4.0's KIP-455 form
//! (`KafkaController.onPartitionReassignment` and its helpers): replicas,
//! adding and removing lists persisted in `/brokers/topics/<t>`, entered
//! through `/admin/reassign_partitions` (`ZkPartitionReassignment`), resumed
//! by `PartitionReassignmentIsrChange`, at failover and on broker start-up.

use super::batch::RequestBatch;
use super::election::Strategy;
use super::states::{PartitionState, ReplicaState};
use super::{ControllerError, Env, KafkaController};
use crate::fact::Fact;
use crate::ids::{BrokerId, TopicPartition};
use crate::kafka_zk::{fenced, fenced_delete, read_leader_isr};
use crate::zk::{Op, ZkError};
use crate::zk_client::paths;
use crate::znodes::encode_partition_state;
use std::collections::BTreeSet;

/// `/admin/reassign_partitions` (the codecs live with the other znode codecs).
pub use crate::znodes::decode_reassign_partitions as decode_reassignment;
pub use crate::znodes::encode_reassign_partitions as reassignment_json;
/// A partition's reassignment in progress, as the topic znode carries it
/// (defined with the znode codecs).
pub use crate::znodes::Reassignment;

impl KafkaController {
    /// A partition's full assignment (`partitionFullReplicaAssignment`): RS
    /// with the adding and removing replicas (empty when not reassigning).
    fn full_assignment(&self, tp: &TopicPartition) -> (Vec<BrokerId>, Reassignment) {
        (
            self.ctx
                .assignments
                .get(tp)
                .map(|a| a.to_vec())
                .unwrap_or_default(),
            self.ctx.reassigning.get(tp).cloned().unwrap_or_default(),
        )
    }

    /// Keep a full assignment in the context (`updatePartitionFullReplicaAssignment`).
    fn set_full_assignment(
        &mut self,
        tp: &TopicPartition,
        replicas: Vec<BrokerId>,
        r: Reassignment,
    ) {
        self.ctx.assignments.insert(tp.clone(), replicas.into());
        if r.adding.is_empty() && r.removing.is_empty() {
            self.ctx.reassigning.remove(tp);
        } else {
            self.ctx.reassigning.insert(tp.clone(), r);
        }
    }

    /// `ZkPartitionReassignment`: read `/admin/reassign_partitions` and start
    /// or supersede each partition's reassignment. Returns the partitions
    /// whose reassignment was (re)started without error.
    pub(super) fn process_zk_partition_reassignment(
        &mut self,
        env: &mut Env<'_>,
    ) -> Result<BTreeSet<TopicPartition>, ControllerError> {
        let mut started = BTreeSet::new();
        env.client.register_data_handler(paths::REASSIGN_PARTITIONS);
        if env
            .client
            .exists(env.zk, paths::REASSIGN_PARTITIONS)?
            .is_none()
        {
            return Ok(started);
        }
        let entries = match env.client.get_data(env.zk, paths::REASSIGN_PARTITIONS) {
            Ok((d, _)) => decode_reassignment(&d).unwrap_or_default(),
            Err(ZkError::NoNode) => return Ok(started),
            Err(e) => return Err(e.into()),
        };
        let mut failed = Vec::new();
        for (tp, target) in entries {
            let error = if self.ctx.topics_to_be_deleted.contains(tp.topic.as_str())
                || !self.ctx.assignments.contains_key(&tp)
            {
                Some("UNKNOWN_TOPIC_OR_PARTITION")
            } else if target.is_empty()
                || target
                    .iter()
                    .enumerate()
                    .any(|(i, b)| target.get(..i).is_some_and(|before| before.contains(b)))
            {
                Some("INVALID_REPLICA_ASSIGNMENT")
            } else {
                None
            };
            match error {
                Some(e) => {
                    env.note(
                        "reassignment_failed",
                        Fact::ReassignmentRefused {
                            tp: tp.clone(),
                            target: target.clone(),
                            code: e,
                        },
                    );
                    failed.push(tp);
                }
                None => {
                    let (replicas, r) = self.reassign_to(&tp, &target);
                    match self.on_partition_reassignment(env, &tp, replicas, r) {
                        Ok(()) => {
                            started.insert(tp);
                        }
                        Err(e @ ControllerError::ControllerMoved(_)) => return Err(e),
                        Err(e) => {
                            env.note(
                                "reassignment_failed",
                                Fact::ReassignmentFailed {
                                    tp: tp.clone(),
                                    error: e,
                                },
                            );
                            failed.push(tp);
                        }
                    }
                }
            }
        }
        for tp in failed {
            self.remove_from_zk_reassignment(env, &tp, None)?;
        }
        Ok(started)
    }

    /// `ReplicaAssignment.reassignTo(target)`: RS = target ++ (origin not in
    /// target), adding = RS − origin, removing = RS − target, where origin is
    /// the current RS minus the replicas it is still adding.
    fn reassign_to(
        &self,
        tp: &TopicPartition,
        target: &[BrokerId],
    ) -> (Vec<BrokerId>, Reassignment) {
        let (current, r) = self.full_assignment(tp);
        let origin: Vec<BrokerId> = current
            .iter()
            .copied()
            .filter(|b| !r.adding.contains(b))
            .collect();
        let mut replicas: Vec<BrokerId> = Vec::new();
        for b in target.iter().chain(origin.iter()) {
            if !replicas.contains(b) {
                replicas.push(*b);
            }
        }
        let adding = replicas
            .iter()
            .copied()
            .filter(|b| !origin.contains(b))
            .collect();
        let removing = replicas
            .iter()
            .copied()
            .filter(|b| !target.contains(b))
            .collect();
        (replicas, Reassignment { adding, removing })
    }

    /// `onPartitionReassignment(tp, reassignment)`: phase U (update), then A
    /// while the target is not all in the ISR, B once it is. A partition
    /// with no adding or removing replicas (a reassignment to the current
    /// replicas) is complete at once and runs phase B.
    fn on_partition_reassignment(
        &mut self,
        env: &mut Env<'_>,
        tp: &TopicPartition,
        replicas: Vec<BrokerId>,
        r: Reassignment,
    ) -> Result<(), ControllerError> {
        if !self.ctx.assignments.contains_key(tp) {
            // Kafka would fail here (the partition has no leadership info); the
            // event has no effect.
            env.note(
                "reassignment_failed",
                Fact::ReassignmentOfMissingPartition { tp: tp.clone() },
            );
            return Ok(());
        }
        // While a reassignment is in progress, deletion is not allowed (a
        // no-op unless the topic is already queued for deletion).
        self.mark_topic_ineligible_for_deletion(env, &tp.topic, "topic reassignment in progress");
        self.update_current_reassignment(env, tp, &replicas, &r)?;
        let target: Vec<BrokerId> = replicas
            .iter()
            .copied()
            .filter(|b| !r.removing.contains(b))
            .collect();
        if !self.is_reassignment_complete(env, tp, &target, &r)? {
            // A1. Bump the leader epoch and tell every replica of RS.
            self.update_leader_epoch_and_send(env, tp, &replicas)?;
            // A2. The adding replicas → NewReplica.
            for b in &r.adding {
                self.handle_replica_state_changes(
                    env,
                    &[(tp.clone(), *b)],
                    ReplicaState::NewReplica,
                )?;
            }
            env.note(
                "reassignment",
                Fact::ReassignmentWaiting {
                    tp: tp.clone(),
                    adding: r.adding.to_vec(),
                    isr: self
                        .ctx
                        .leadership
                        .get(tp)
                        .map(|l| l.isr.to_vec())
                        .unwrap_or_default(),
                },
            );
            return Ok(());
        }
        // B1. The adding replicas → OnlineReplica.
        let adding: Vec<(TopicPartition, BrokerId)> =
            r.adding.iter().map(|b| (tp.clone(), *b)).collect();
        self.handle_replica_state_changes(env, &adding, ReplicaState::OnlineReplica)?;
        // B2. RS = TRS, AR = RR = [] in memory.
        self.set_full_assignment(tp, target.clone(), Reassignment::default());
        // B3. moveReassignedPartitionLeaderIfRequired.
        let leader = self.ctx.leadership.get(tp).and_then(|l| l.leader);
        match leader {
            Some(l) if target.contains(&l) && self.ctx.is_replica_online(l, false) => {
                // updateLeaderEpochAndSendRequest(tp, ReplicaAssignment(TRS)):
                // the LeaderAndIsr goes to the target replicas only.
                self.update_leader_epoch_and_send(env, tp, &target)?;
            }
            _ => {
                let out = self.handle_partition_state_changes(
                    env,
                    std::slice::from_ref(tp),
                    PartitionState::OnlinePartition,
                    Some(Strategy::Reassign),
                )?;
                if let Some(Err(e)) = out.get(tp) {
                    env.note(
                        "reassignment",
                        Fact::ReassignmentLeaderMoveFailed {
                            tp: tp.clone(),
                            error: Box::new(e.clone()),
                        },
                    );
                }
            }
        }
        // B4, B5. The removing replicas are stopped and deleted.
        let removing: Vec<(TopicPartition, BrokerId)> =
            r.removing.iter().map(|b| (tp.clone(), *b)).collect();
        self.stop_removed_replicas(env, &removing)?;
        // B6. RS = TRS, AR = RR = [] in ZooKeeper.
        self.write_topic_assignment(env, &tp.topic)?;
        // B7. removePartitionFromReassigningPartitions.
        env.client
            .unregister_data_handler(&paths::partition_state(tp));
        self.remove_from_zk_reassignment(env, tp, Some(&target))?;
        self.ctx.partitions_being_reassigned.remove(tp);
        // B8. UpdateMetadata for the partition to every broker.
        let mut batch = RequestBatch::default();
        batch.add_update_metadata_to_all_live(&self.ctx, std::slice::from_ref(tp));
        batch.send(&self.ctx, &self.ctx.topics_to_be_deleted, env);
        env.note(
            "reassignment_completed",
            Fact::ReassignmentCompleted {
                tp: tp.clone(),
                target: target.clone(),
            },
        );
        // Deletion of the topic, if queued, may go on (resumeDeletionForTopics
        // clears the ineligible mark).
        let mut topics: BTreeSet<String> = BTreeSet::new();
        topics.insert(tp.topic.to_string());
        self.resume_deletion_for_topics(env, &topics)
    }

    /// `updateCurrentReassignment`: when the assignment changed, write it
    /// (U1, U2) and stop the replicas a superseded reassignment no longer
    /// needs (U3); then watch the state znode and mark the partition as being
    /// reassigned.
    fn update_current_reassignment(
        &mut self,
        env: &mut Env<'_>,
        tp: &TopicPartition,
        replicas: &[BrokerId],
        r: &Reassignment,
    ) -> Result<(), ControllerError> {
        let (current, current_r) = self.full_assignment(tp);
        if current != replicas || &current_r != r {
            self.set_full_assignment(tp, replicas.to_vec(), r.clone());
            self.write_topic_assignment(env, &tp.topic)?;
            let unneeded: Vec<(TopicPartition, BrokerId)> = current
                .iter()
                .copied()
                .filter(|b| !replicas.contains(b))
                .map(|b| (tp.clone(), b))
                .collect();
            if !unneeded.is_empty() {
                self.stop_removed_replicas(env, &unneeded)?;
            }
            env.note(
                "reassignment",
                Fact::ReassignmentStarted {
                    tp: tp.clone(),
                    replicas: replicas.to_vec(),
                    adding: r.adding.to_vec(),
                    removing: r.removing.to_vec(),
                },
            );
        }
        env.client
            .register_data_handler(&paths::partition_state(tp));
        self.ctx.partitions_being_reassigned.insert(tp.clone());
        Ok(())
    }

    /// `isReassignmentComplete`: not being reassigned, or every target
    /// replica is in the ISR read from ZooKeeper (which re-arms the watch on
    /// the state znode).
    fn is_reassignment_complete(
        &mut self,
        env: &mut Env<'_>,
        tp: &TopicPartition,
        target: &[BrokerId],
        r: &Reassignment,
    ) -> Result<bool, ControllerError> {
        if r.adding.is_empty() && r.removing.is_empty() {
            return Ok(true);
        }
        Ok(match read_leader_isr(env.client, env.zk, tp)? {
            Some(l) => target.iter().all(|b| l.isr.contains(b)),
            None => false,
        })
    }

    /// `processPartitionReassignmentIsrChange`: resume the reassignment once
    /// the target replicas are all in the ISR.
    pub(super) fn process_partition_reassignment_isr_change(
        &mut self,
        env: &mut Env<'_>,
        tp: &TopicPartition,
    ) -> Result<(), ControllerError> {
        if !self.ctx.partitions_being_reassigned.contains(tp) {
            return Ok(());
        }
        let (replicas, r) = self.full_assignment(tp);
        let target: Vec<BrokerId> = replicas
            .iter()
            .copied()
            .filter(|b| !r.removing.contains(b))
            .collect();
        if self.is_reassignment_complete(env, tp, &target, &r)? {
            self.on_partition_reassignment(env, tp, replicas, r)
        } else {
            Ok(())
        }
    }

    /// `maybeResumeReassignments`: run `onPartitionReassignment` again with
    /// the current assignment for every partition being reassigned that
    /// `resume` selects (given the partition and its target replicas).
    pub(super) fn maybe_resume_reassignments(
        &mut self,
        env: &mut Env<'_>,
        resume: impl Fn(&TopicPartition, &[BrokerId]) -> bool,
    ) -> Result<(), ControllerError> {
        let tps: Vec<TopicPartition> = self
            .ctx
            .partitions_being_reassigned
            .iter()
            .cloned()
            .collect();
        for tp in tps {
            let (replicas, r) = self.full_assignment(&tp);
            let target: Vec<BrokerId> = replicas
                .iter()
                .copied()
                .filter(|b| !r.removing.contains(b))
                .collect();
            if resume(&tp, &target) {
                self.on_partition_reassignment(env, &tp, replicas, r)?;
            }
        }
        Ok(())
    }

    /// OfflineReplica → DeletionStarted → DeletionSuccessful → NonExistent,
    /// without waiting for the StopReplica responses (2.3/2.4 behaviour).
    fn stop_removed_replicas(
        &mut self,
        env: &mut Env<'_>,
        replicas: &[(TopicPartition, BrokerId)],
    ) -> Result<(), ControllerError> {
        if replicas.is_empty() {
            return Ok(());
        }
        self.handle_replica_state_changes(env, replicas, ReplicaState::OfflineReplica)?;
        self.handle_replica_state_changes(env, replicas, ReplicaState::ReplicaDeletionStarted)?;
        self.handle_replica_state_changes(env, replicas, ReplicaState::ReplicaDeletionSuccessful)?;
        self.handle_replica_state_changes(env, replicas, ReplicaState::NonExistentReplica)
    }

    /// `updateLeaderEpochAndSendRequest`: same leader and ISR, leader epoch + 1,
    /// LeaderAndIsr with the full replica list to `recipients`.
    fn update_leader_epoch_and_send(
        &mut self,
        env: &mut Env<'_>,
        tp: &TopicPartition,
        recipients: &[BrokerId],
    ) -> Result<(), ControllerError> {
        for _ in 0..100 {
            let Some(current) = read_leader_isr(env.client, env.zk, tp)? else {
                return Ok(());
            };
            if current.controller_epoch > self.ctx.epoch {
                return Ok(());
            }
            let mut new = current.clone();
            new.leader_epoch += 1;
            new.controller_epoch = self.ctx.epoch;
            let op = Op::SetData {
                path: paths::partition_state(tp),
                data: encode_partition_state(&new),
                version: Some(current.zk_version),
            };
            match fenced(env.client, env.zk, self.ctx.epoch_zk_version, op) {
                Ok(crate::zk::OpResult::SetData(stat)) => {
                    new.zk_version = stat.version;
                    self.ctx.leadership.insert(tp.clone(), new.clone());
                    let mut batch = RequestBatch::default();
                    batch.add_leader_and_isr(&self.ctx, recipients, tp, &new, false);
                    batch.send(&self.ctx, &self.ctx.topics_to_be_deleted, env);
                    return Ok(());
                }
                Ok(_) => return Ok(()),
                Err(ControllerError::Zk(ZkError::BadVersion)) => continue,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Drop a partition from `/admin/reassign_partitions` (only if its entry
    /// equals `target` when given); delete the node when it empties and
    /// re-arm the creation watch.
    fn remove_from_zk_reassignment(
        &mut self,
        env: &mut Env<'_>,
        tp: &TopicPartition,
        target: Option<&[BrokerId]>,
    ) -> Result<(), ControllerError> {
        let Ok((data, _)) = env.client.get_data(env.zk, paths::REASSIGN_PARTITIONS) else {
            return Ok(());
        };
        let entries = decode_reassignment(&data).unwrap_or_default();
        let keep: Vec<(TopicPartition, Vec<BrokerId>)> = entries
            .into_iter()
            .filter(|(t, r)| !(t == tp && target.is_none_or(|x| x == r.as_slice())))
            .collect();
        let epoch_zk_version = self.ctx.epoch_zk_version;
        if keep.is_empty() {
            fenced_delete(
                env.client,
                env.zk,
                epoch_zk_version,
                paths::REASSIGN_PARTITIONS.to_string(),
            )?;
            env.client.exists(env.zk, paths::REASSIGN_PARTITIONS)?;
        } else {
            let op = Op::SetData {
                path: paths::REASSIGN_PARTITIONS.into(),
                data: reassignment_json(&keep),
                version: None,
            };
            fenced(env.client, env.zk, epoch_zk_version, op)?;
        }
        Ok(())
    }

    /// `initializePartitionReassignments` (2.4): first the ZooKeeper request,
    /// if any; then every other partition whose persisted assignment has
    /// adding or removing replicas.
    pub(super) fn initialize_partition_reassignments(
        &mut self,
        env: &mut Env<'_>,
    ) -> Result<(), ControllerError> {
        let resumed = self.process_zk_partition_reassignment(env)?;
        self.maybe_resume_reassignments(env, |tp, _| !resumed.contains(tp))
    }
}
