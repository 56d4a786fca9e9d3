//! Topic administration on the controller: adding partitions
//! (PartitionModifications), topic deletion (TopicDeletionManager) and
//! partition reassignment, in Kafka 2.4's KIP-455 form (replicas, adding
//! and removing lists persisted in `/brokers/topics/<t>`), entered through
//! `/admin/reassign_partitions`.

use super::batch::RequestBatch;
use super::election::Strategy;
use super::states::{PartitionState, ReplicaState};
use super::{fenced, fenced_delete, ids_text, ControllerError, Env, KafkaController};
use crate::ids::{BrokerId, TopicPartition};
use crate::zk::{Op, ZkError};
use crate::zk_client::paths;
use crate::znodes::encode_partition_state;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// A partition's reassignment in progress (KIP-455's ReplicaAssignment).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reassignment {
    /// Replicas being added.
    pub adding: Vec<BrokerId>,
    /// Replicas being removed.
    pub removing: Vec<BrokerId>,
}

/// The `/brokers/topics/<t>` data with adding and removing replicas (version 2).
pub fn topic_znode_json_full(
    replicas: &BTreeMap<u32, Vec<BrokerId>>,
    reassigning: &BTreeMap<u32, Reassignment>,
) -> String {
    let list = |m: Vec<(u32, &Vec<BrokerId>)>| -> String {
        let parts: Vec<String> = m
            .iter()
            .map(|(p, r)| format!("\"{p}\":{}", ids_text(r.iter())))
            .collect();
        format!("{{{}}}", parts.join(","))
    };
    let partitions = list(replicas.iter().map(|(p, r)| (*p, r)).collect());
    let adding = list(
        reassigning
            .iter()
            .filter(|(_, r)| !r.adding.is_empty())
            .map(|(p, r)| (*p, &r.adding))
            .collect(),
    );
    let removing = list(
        reassigning
            .iter()
            .filter(|(_, r)| !r.removing.is_empty())
            .map(|(p, r)| (*p, &r.removing))
            .collect(),
    );
    format!(
        r#"{{"version":2,"partitions":{partitions},"adding_replicas":{adding},"removing_replicas":{removing}}}"#
    )
}

/// `/admin/reassign_partitions` (the codecs live with the other znode codecs).
pub use crate::znodes::decode_reassign_partitions as decode_reassignment;
pub use crate::znodes::encode_reassign_partitions as reassignment_json;

impl KafkaController {
    fn topic_assignment_znode(&self, topic: &str) -> String {
        let replicas: BTreeMap<u32, Vec<BrokerId>> = self
            .ctx
            .partitions_of(topic)
            .map(|tp| (tp.partition, self.ctx.assignments[tp].clone()))
            .collect();
        let reassigning: BTreeMap<u32, Reassignment> = self
            .ctx
            .reassigning
            .iter()
            .filter(|(tp, _)| tp.topic == topic)
            .map(|(tp, r)| (tp.partition, r.clone()))
            .collect();
        topic_znode_json_full(&replicas, &reassigning)
    }

    /// Write the topic's assignment znode from the context (fenced).
    fn write_topic_assignment(
        &mut self,
        env: &mut Env<'_>,
        topic: &str,
    ) -> Result<(), ControllerError> {
        let data = self.topic_assignment_znode(topic);
        let op = Op::SetData {
            path: paths::topic(topic),
            data,
            version: None,
        };
        fenced(env, self.ctx.epoch_zk_version, op).map(|_| ())
    }

    // ----- adding partitions ---------------------------------------------------

    /// `processPartitionModifications`.
    pub(super) fn process_partition_modifications(
        &mut self,
        env: &mut Env<'_>,
        topic: &str,
    ) -> Result<(), ControllerError> {
        let known: BTreeSet<TopicPartition> = self.ctx.partitions_of(topic).cloned().collect();
        let before = self.ctx.assignments.clone();
        let all = self.read_topic_assignment(env, topic)?;
        let added: Vec<TopicPartition> = all.into_iter().filter(|tp| !known.contains(tp)).collect();
        // Existing partitions keep the assignment the controller knows.
        for tp in &known {
            if let Some(a) = before.get(tp) {
                self.ctx.assignments.insert(tp.clone(), a.clone());
            }
        }
        if added.is_empty() {
            return Ok(());
        }
        if self.ctx.topics_to_be_deleted.contains(topic) {
            for tp in &added {
                self.ctx.assignments.remove(tp);
            }
            env.out.note("add_partitions_skipped", format!("skipping adding partitions {} for topic {topic} since it is currently being deleted", tps(&added)));
            return self.write_topic_assignment(env, topic);
        }
        env.out.note(
            "partitions_added",
            format!("new partitions to be added: {}", tps(&added)),
        );
        self.on_new_partition_creation(env, &added)
    }

    // ----- topic deletion (TopicDeletionManager) ----------------------------------

    /// `processTopicDeletion`.
    pub(super) fn process_topic_deletion(
        &mut self,
        env: &mut Env<'_>,
    ) -> Result<(), ControllerError> {
        let queued: BTreeSet<String> = env
            .client
            .get_children(env.zk, paths::DELETE_TOPICS)?
            .into_iter()
            .collect();
        let epoch_zk_version = self.ctx.epoch_zk_version;
        let (known, unknown): (Vec<String>, Vec<String>) = queued
            .into_iter()
            .partition(|t| self.ctx.all_topics.contains(t));
        for t in &unknown {
            fenced_delete(
                env,
                epoch_zk_version,
                format!("{}/{t}", paths::DELETE_TOPICS),
            )?;
        }
        if !env.config.delete_topic_enable {
            for t in &known {
                fenced_delete(
                    env,
                    epoch_zk_version,
                    format!("{}/{t}", paths::DELETE_TOPICS),
                )?;
            }
            env.out.note(
                "topic_deletion",
                "delete.topic.enable is false: deletion requests removed".to_string(),
            );
            return Ok(());
        }
        let new: Vec<String> = known
            .into_iter()
            .filter(|t| !self.ctx.topics_to_be_deleted.contains(t))
            .collect();
        if new.is_empty() {
            return Ok(());
        }
        for t in &new {
            if self.ctx.reassigning.keys().any(|tp| &tp.topic == t) {
                self.ctx.topics_ineligible_for_deletion.insert(t.clone());
            }
            self.ctx.topics_to_be_deleted.insert(t.clone());
        }
        env.out.note(
            "topic_deletion",
            format!("topics queued for deletion: {new:?}"),
        );
        self.resume_deletions(env)
    }

    /// `resumeDeletions`.
    pub(super) fn resume_deletions(&mut self, env: &mut Env<'_>) -> Result<(), ControllerError> {
        let topics: Vec<String> = self.ctx.topics_to_be_deleted.iter().cloned().collect();
        for t in topics {
            let replicas: Vec<(TopicPartition, BrokerId)> = self.replicas_of_topic(&t);
            let state = |s: ReplicaState| {
                replicas
                    .iter()
                    .filter(|r| self.ctx.replica_states.get(r) == Some(&s))
                    .count()
            };
            if !replicas.is_empty()
                && state(ReplicaState::ReplicaDeletionSuccessful) == replicas.len()
            {
                self.complete_delete_topic(env, &t)?;
                continue;
            }
            if replicas.is_empty() {
                self.complete_delete_topic(env, &t)?;
                continue;
            }
            if state(ReplicaState::ReplicaDeletionStarted) == 0
                && state(ReplicaState::ReplicaDeletionIneligible) > 0
            {
                let retry: Vec<(TopicPartition, BrokerId)> = replicas
                    .iter()
                    .filter(|r| {
                        self.ctx.replica_states.get(*r)
                            == Some(&ReplicaState::ReplicaDeletionIneligible)
                    })
                    .cloned()
                    .collect();
                self.handle_replica_state_changes(env, &retry, ReplicaState::OfflineReplica)?;
            }
            let replicas = self.replicas_of_topic(&t);
            let started = replicas.iter().any(|r| {
                self.ctx.replica_states.get(r) == Some(&ReplicaState::ReplicaDeletionStarted)
            });
            if !started && !self.ctx.topics_ineligible_for_deletion.contains(&t) {
                self.on_topic_deletion(env, &t)?;
            }
        }
        Ok(())
    }

    fn replicas_of_topic(&self, topic: &str) -> Vec<(TopicPartition, BrokerId)> {
        self.ctx
            .partitions_of(topic)
            .flat_map(|tp| {
                self.ctx.assignments[tp]
                    .iter()
                    .map(move |r| (tp.clone(), *r))
            })
            .collect()
    }

    /// `onTopicDeletion`.
    fn on_topic_deletion(&mut self, env: &mut Env<'_>, topic: &str) -> Result<(), ControllerError> {
        let parts: Vec<TopicPartition> = self.ctx.partitions_of(topic).cloned().collect();
        if !self.ctx.topics_with_deletion_started.contains(topic) {
            self.handle_partition_state_changes(
                env,
                &parts,
                PartitionState::OfflinePartition,
                None,
            )?;
            self.handle_partition_state_changes(
                env,
                &parts,
                PartitionState::NonExistentPartition,
                None,
            )?;
            self.ctx
                .topics_with_deletion_started
                .insert(topic.to_string());
        }
        // Brokers drop the topic from their metadata (leader −2).
        let mut batch = RequestBatch::default();
        batch.add_update_metadata(&self.ctx.live_or_shutting_down(), &parts);
        batch.send(&self.ctx, &self.ctx.topics_to_be_deleted, env.out);
        // startReplicaDeletion
        let replicas = self.replicas_of_topic(topic);
        let (live, dead): (Vec<_>, Vec<_>) = replicas
            .into_iter()
            .partition(|(_, r)| self.ctx.is_replica_online(*r, true));
        let live: Vec<_> = live
            .into_iter()
            .filter(|r| {
                self.ctx.replica_states.get(r) != Some(&ReplicaState::ReplicaDeletionSuccessful)
            })
            .collect();
        self.handle_replica_state_changes(env, &dead, ReplicaState::ReplicaDeletionIneligible)?;
        self.handle_replica_state_changes(env, &live, ReplicaState::OfflineReplica)?;
        self.handle_replica_state_changes(env, &live, ReplicaState::ReplicaDeletionStarted)?;
        if !dead.is_empty() {
            self.ctx
                .topics_ineligible_for_deletion
                .insert(topic.to_string());
            env.out.note(
                "topic_deletion_paused",
                format!(
                    "deletion of topic {topic} paused: replicas on dead brokers {}",
                    ids_text(dead.iter().map(|(_, r)| r))
                ),
            );
        } else {
            env.out.note(
                "topic_deletion",
                format!("StopReplica(delete=true) sent for every replica of {topic}"),
            );
        }
        Ok(())
    }

    /// `TopicDeletionStopReplicaResponseReceived`: replicas deleted, or failed.
    pub(super) fn process_topic_deletion_stop_replica_response(
        &mut self,
        env: &mut Env<'_>,
        broker: BrokerId,
        partitions: &[TopicPartition],
        error: Option<&str>,
    ) -> Result<(), ControllerError> {
        let replicas: Vec<(TopicPartition, BrokerId)> = partitions
            .iter()
            .filter(|tp| self.ctx.topics_with_deletion_started.contains(&tp.topic))
            .map(|tp| (tp.clone(), broker))
            .collect();
        if replicas.is_empty() {
            return Ok(());
        }
        match error {
            None => self.handle_replica_state_changes(
                env,
                &replicas,
                ReplicaState::ReplicaDeletionSuccessful,
            )?,
            Some(e) => {
                self.handle_replica_state_changes(
                    env,
                    &replicas,
                    ReplicaState::ReplicaDeletionIneligible,
                )?;
                for (tp, _) in &replicas {
                    self.ctx
                        .topics_ineligible_for_deletion
                        .insert(tp.topic.clone());
                }
                env.out.note(
                    "topic_deletion_paused",
                    format!("replica deletion failed on broker {broker}: {e}"),
                );
            }
        }
        self.resume_deletions(env)
    }

    /// `completeDeleteTopic`.
    fn complete_delete_topic(
        &mut self,
        env: &mut Env<'_>,
        topic: &str,
    ) -> Result<(), ControllerError> {
        env.client.unregister_data_handler(&paths::topic(topic));
        let replicas = self.replicas_of_topic(topic);
        self.handle_replica_state_changes(env, &replicas, ReplicaState::NonExistentReplica)?;
        self.ctx.topics_to_be_deleted.remove(topic);
        self.ctx.topics_with_deletion_started.remove(topic);
        self.ctx.topics_ineligible_for_deletion.remove(topic);
        // Delete the topic's znodes, deepest first, in one fenced multi.
        let mut doomed: Vec<String> = env
            .zk
            .nodes()
            .map(|(p, _)| p.to_string())
            .filter(|p| {
                p == &paths::topic(topic) || p.starts_with(&format!("{}/", paths::topic(topic)))
            })
            .collect();
        doomed.sort_by_key(|p| std::cmp::Reverse(p.matches('/').count()));
        for p in [
            paths::topic_config(topic),
            format!("{}/{topic}", paths::DELETE_TOPICS),
        ] {
            if env.zk.node(&p).is_some() {
                doomed.push(p);
            }
        }
        let mut ops = vec![Op::Check {
            path: paths::CONTROLLER_EPOCH.into(),
            version: self.ctx.epoch_zk_version,
        }];
        ops.extend(doomed.into_iter().map(|path| Op::Delete {
            path,
            version: None,
        }));
        match env.client.multi(env.zk, &ops) {
            Ok(_) => {}
            Err((0, ZkError::BadVersion)) => {
                return Err(ControllerError::ControllerMoved(
                    "controller epoch zkVersion check fails".into(),
                ))
            }
            Err((_, e)) => return Err(e.into()),
        }
        self.ctx.all_topics.remove(topic);
        self.ctx.assignments.retain(|tp, _| tp.topic != topic);
        self.ctx.leadership.retain(|tp, _| tp.topic != topic);
        self.ctx.partition_states.retain(|tp, _| tp.topic != topic);
        self.ctx
            .replica_states
            .retain(|(tp, _), _| tp.topic != topic);
        env.out.note(
            "topic_deleted",
            format!("deletion of topic {topic} successfully completed"),
        );
        Ok(())
    }

    /// `resumeDeletionForTopics`: clear the ineligible mark and retry.
    pub(super) fn resume_deletion_for_topics(
        &mut self,
        env: &mut Env<'_>,
        topics: &BTreeSet<String>,
    ) -> Result<(), ControllerError> {
        let queued: Vec<String> = topics
            .iter()
            .filter(|t| self.ctx.topics_to_be_deleted.contains(*t))
            .cloned()
            .collect();
        if queued.is_empty() {
            return Ok(());
        }
        for t in &queued {
            self.ctx.topics_ineligible_for_deletion.remove(t);
        }
        env.out
            .note("topic_deletion", format!("resuming deletion of {queued:?}"));
        self.resume_deletions(env)
    }

    /// `failReplicaDeletion` for replicas that went offline during deletion.
    pub(super) fn fail_replica_deletion(
        &mut self,
        env: &mut Env<'_>,
        replicas: &[(TopicPartition, BrokerId)],
    ) -> Result<(), ControllerError> {
        let started: Vec<(TopicPartition, BrokerId)> = replicas
            .iter()
            .filter(|r| {
                self.ctx.replica_states.get(*r) == Some(&ReplicaState::ReplicaDeletionStarted)
                    || self.ctx.replica_states.get(*r) == Some(&ReplicaState::OfflineReplica)
            })
            .cloned()
            .collect();
        for (tp, _) in replicas {
            self.ctx
                .topics_ineligible_for_deletion
                .insert(tp.topic.clone());
        }
        self.handle_replica_state_changes(env, &started, ReplicaState::ReplicaDeletionIneligible)?;
        self.resume_deletions(env)
    }

    /// At failover: topics queued for deletion, and which are ineligible.
    pub(super) fn initialize_topic_deletion(
        &mut self,
        env: &mut Env<'_>,
    ) -> Result<(), ControllerError> {
        let queued: BTreeSet<String> = env
            .client
            .get_children(env.zk, paths::DELETE_TOPICS)?
            .into_iter()
            .collect();
        for t in queued
            .into_iter()
            .filter(|t| self.ctx.all_topics.contains(t))
        {
            let offline = self
                .replicas_of_topic(&t)
                .iter()
                .any(|(_, r)| !self.ctx.is_replica_online(*r, false));
            if offline || self.ctx.reassigning.keys().any(|tp| tp.topic == t) {
                self.ctx.topics_ineligible_for_deletion.insert(t.clone());
            }
            self.ctx.topics_to_be_deleted.insert(t);
        }
        Ok(())
    }

    // ----- reassignment (KIP-455, Kafka 2.4) ------------------------------------

    /// `ZkPartitionReassignment`: read `/admin/reassign_partitions` and start
    /// or supersede each partition's reassignment.
    pub(super) fn process_zk_partition_reassignment(
        &mut self,
        env: &mut Env<'_>,
    ) -> Result<(), ControllerError> {
        env.client.register_data_handler(paths::REASSIGN_PARTITIONS);
        if env
            .client
            .exists(env.zk, paths::REASSIGN_PARTITIONS)?
            .is_none()
        {
            return Ok(());
        }
        let entries = match env.client.get_data(env.zk, paths::REASSIGN_PARTITIONS) {
            Ok((d, _)) => decode_reassignment(&d).unwrap_or_default(),
            Err(ZkError::NoNode) => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        let mut failed = Vec::new();
        for (tp, target) in entries {
            let error = if self.ctx.topics_to_be_deleted.contains(&tp.topic)
                || !self.ctx.assignments.contains_key(&tp)
            {
                Some("UNKNOWN_TOPIC_OR_PARTITION")
            } else if target.is_empty()
                || target.iter().collect::<BTreeSet<_>>().len() != target.len()
            {
                Some("INVALID_REPLICA_ASSIGNMENT")
            } else {
                None
            };
            match error {
                Some(e) => {
                    env.out.note(
                        "reassignment_failed",
                        format!("reassignment of {tp} to {}: {e}", ids_text(&target)),
                    );
                    failed.push(tp);
                }
                None => {
                    if let Err(e) = self.on_partition_reassignment(env, &tp, &target) {
                        if matches!(e, ControllerError::ControllerMoved(_)) {
                            return Err(e);
                        }
                        env.out
                            .note("reassignment_failed", format!("reassignment of {tp}: {e}"));
                        failed.push(tp);
                    }
                }
            }
        }
        for tp in failed {
            self.remove_from_zk_reassignment(env, &tp, None)?;
        }
        Ok(())
    }

    /// `onPartitionReassignment`: phase U (update), then A or B.
    fn on_partition_reassignment(
        &mut self,
        env: &mut Env<'_>,
        tp: &TopicPartition,
        target: &[BrokerId],
    ) -> Result<(), ControllerError> {
        self.ctx
            .topics_ineligible_for_deletion
            .insert(tp.topic.clone());
        let current = self.ctx.assignments.get(tp).cloned().unwrap_or_default();
        let origin: Vec<BrokerId> = match self.ctx.reassigning.get(tp) {
            Some(r) => current
                .iter()
                .copied()
                .filter(|b| !r.adding.contains(b))
                .collect(),
            None => current.clone(),
        };
        if origin == target && !self.ctx.reassigning.contains_key(tp) {
            env.out.note(
                "reassignment",
                format!(
                    "{tp} already has replicas {}; nothing to do",
                    ids_text(target)
                ),
            );
            return self.remove_from_zk_reassignment(env, tp, Some(target));
        }
        // reassignTo: target first, then the origin replicas not in it.
        let mut replicas: Vec<BrokerId> = target.to_vec();
        replicas.extend(origin.iter().copied().filter(|b| !target.contains(b)));
        let adding: Vec<BrokerId> = replicas
            .iter()
            .copied()
            .filter(|b| !origin.contains(b))
            .collect();
        let removing: Vec<BrokerId> = replicas
            .iter()
            .copied()
            .filter(|b| !target.contains(b))
            .collect();
        // Phase U: replicas of a superseded reassignment that are no longer needed go.
        let unneeded: Vec<(TopicPartition, BrokerId)> = current
            .iter()
            .copied()
            .filter(|b| !replicas.contains(b))
            .map(|b| (tp.clone(), b))
            .collect();
        if replicas != current || !self.ctx.reassigning.contains_key(tp) {
            self.ctx.assignments.insert(tp.clone(), replicas.clone());
            self.ctx.reassigning.insert(
                tp.clone(),
                super::topics::Reassignment {
                    adding: adding.clone(),
                    removing: removing.clone(),
                },
            );
            self.write_topic_assignment(env, &tp.topic)?;
            if !unneeded.is_empty() {
                self.stop_removed_replicas(env, &unneeded)?;
            }
            env.out.note(
                "reassignment",
                format!(
                    "{tp}: replicas {}, adding {}, removing {}",
                    ids_text(&replicas),
                    ids_text(&adding),
                    ids_text(&removing)
                ),
            );
        }
        self.ctx.partitions_being_reassigned.insert(tp.clone());
        env.client
            .register_data_handler(&paths::partition_state(tp));
        self.continue_reassignment(env, tp)
    }

    /// Phase A while the target is not all in the ISR, phase B once it is.
    pub(super) fn continue_reassignment(
        &mut self,
        env: &mut Env<'_>,
        tp: &TopicPartition,
    ) -> Result<(), ControllerError> {
        let Some(r) = self.ctx.reassigning.get(tp).cloned() else {
            return Ok(());
        };
        let replicas = self.ctx.assignments.get(tp).cloned().unwrap_or_default();
        let target: Vec<BrokerId> = replicas
            .iter()
            .copied()
            .filter(|b| !r.removing.contains(b))
            .collect();
        // Re-read the ISR (and re-arm the watch on the state znode).
        let isr = match env.client.get_data(env.zk, &paths::partition_state(tp)) {
            Ok((d, stat)) => crate::znodes::decode_partition_state(&d, stat.version)
                .map(|l| l.isr)
                .unwrap_or_default(),
            Err(ZkError::NoNode) => Vec::new(),
            Err(e) => return Err(e.into()),
        };
        if !target.iter().all(|b| isr.contains(b)) {
            // Phase A: bump the leader epoch, tell every replica, start the new ones.
            if !self.ctx.reassignment_started.contains(tp) {
                self.ctx.reassignment_started.insert(tp.clone());
                self.update_leader_epoch_and_send(env, tp, &replicas)?;
                let adding: Vec<(TopicPartition, BrokerId)> =
                    r.adding.iter().map(|b| (tp.clone(), *b)).collect();
                self.handle_replica_state_changes(env, &adding, ReplicaState::NewReplica)?;
                env.out.note(
                    "reassignment",
                    format!(
                        "{tp}: waiting for {} to join ISR {}",
                        ids_text(&r.adding),
                        ids_text(&isr)
                    ),
                );
            }
            return Ok(());
        }
        // Phase B.
        let adding: Vec<(TopicPartition, BrokerId)> =
            r.adding.iter().map(|b| (tp.clone(), *b)).collect();
        self.handle_replica_state_changes(env, &adding, ReplicaState::OnlineReplica)?;
        self.ctx.assignments.insert(tp.clone(), target.clone());
        self.ctx.reassigning.remove(tp);
        let leader = self.ctx.leadership.get(tp).and_then(|l| l.leader);
        match leader {
            Some(l) if target.contains(&l) && self.ctx.is_replica_online(l, false) => {
                self.update_leader_epoch_and_send(env, tp, &replicas)?;
            }
            _ => {
                let out = self.handle_partition_state_changes(
                    env,
                    std::slice::from_ref(tp),
                    PartitionState::OnlinePartition,
                    Some(Strategy::Reassign),
                )?;
                if let Some(Err(e)) = out.get(tp) {
                    env.out
                        .note("reassignment", format!("{tp}: leader move failed: {e}"));
                }
            }
        }
        let removing: Vec<(TopicPartition, BrokerId)> =
            r.removing.iter().map(|b| (tp.clone(), *b)).collect();
        self.stop_removed_replicas(env, &removing)?;
        self.write_topic_assignment(env, &tp.topic)?;
        env.client
            .unregister_data_handler(&paths::partition_state(tp));
        self.remove_from_zk_reassignment(env, tp, Some(&target))?;
        self.ctx.partitions_being_reassigned.remove(tp);
        self.ctx.reassignment_started.remove(tp);
        let mut batch = RequestBatch::default();
        batch.add_update_metadata(&self.ctx.live_or_shutting_down(), std::slice::from_ref(tp));
        batch.send(&self.ctx, &self.ctx.topics_to_be_deleted, env.out);
        env.out.note(
            "reassignment_completed",
            format!("{tp}: reassignment to {} completed", ids_text(&target)),
        );
        let topics: BTreeSet<String> = [tp.topic.clone()].into_iter().collect();
        self.ctx.topics_ineligible_for_deletion.remove(&tp.topic);
        self.resume_deletion_for_topics(env, &topics)
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
            let Some(current) = super::partitions::read_leader_isr(env, tp)? else {
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
            match fenced(env, self.ctx.epoch_zk_version, op) {
                Ok(crate::zk::OpResult::SetData(stat)) => {
                    new.zk_version = stat.version;
                    self.ctx.leadership.insert(tp.clone(), new.clone());
                    let mut batch = RequestBatch::default();
                    batch.add_leader_and_isr(&self.ctx, recipients, tp, &new, false);
                    batch.send(&self.ctx, &self.ctx.topics_to_be_deleted, env.out);
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
                env,
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
            fenced(env, epoch_zk_version, op)?;
        }
        Ok(())
    }

    /// At failover: resume reassignments persisted in the topic znodes
    /// (adding/removing lists), then the ZooKeeper request, if any.
    pub(super) fn initialize_partition_reassignments(
        &mut self,
        env: &mut Env<'_>,
    ) -> Result<(), ControllerError> {
        let pending: Vec<TopicPartition> = self.ctx.reassigning.keys().cloned().collect();
        for tp in pending {
            self.ctx.partitions_being_reassigned.insert(tp.clone());
            env.client
                .register_data_handler(&paths::partition_state(&tp));
            self.continue_reassignment(env, &tp)?;
        }
        self.process_zk_partition_reassignment(env)
    }
}

fn tps(v: &[TopicPartition]) -> String {
    let s: Vec<String> = v.iter().map(|t| t.to_string()).collect();
    format!("[{}]", s.join(","))
}
