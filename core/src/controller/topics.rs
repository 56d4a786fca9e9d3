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
        if known.is_empty() {
            return Ok(());
        }
        // Mark topics with a reassignment in progress ineligible, before they
        // are queued: markTopicIneligibleForDeletion only marks topics already
        // queued, so a fresh deletion is not paused by a reassignment.
        for t in &known {
            if self
                .ctx
                .partitions_being_reassigned
                .iter()
                .any(|tp| &tp.topic == t)
            {
                self.mark_topic_ineligible_for_deletion(env, t, "topic reassignment in progress");
            }
        }
        let new: Vec<String> = known
            .iter()
            .filter(|t| !self.ctx.topics_to_be_deleted.contains(*t))
            .cloned()
            .collect();
        // enqueueTopicsForDeletion: queue them all, then resumeDeletions.
        self.ctx.topics_to_be_deleted.extend(known);
        if !new.is_empty() {
            env.out.note(
                "topic_deletion",
                format!("topics queued for deletion: {new:?}"),
            );
        }
        self.resume_deletions(env)
    }

    /// `markTopicIneligibleForDeletion`: a no-op unless the topic is already
    /// queued for deletion.
    fn mark_topic_ineligible_for_deletion(&mut self, env: &mut Env<'_>, topic: &str, reason: &str) {
        if self.ctx.topics_to_be_deleted.contains(topic)
            && self
                .ctx
                .topics_ineligible_for_deletion
                .insert(topic.to_string())
        {
            env.out.note(
                "topic_deletion_paused",
                format!("halted deletion of topic {topic} due to {reason}"),
            );
        }
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
        batch.send(&self.ctx, &self.ctx.topics_to_be_deleted, env);
        // startReplicaDeletion: the live replicas are `allLiveReplicas()`, on
        // `liveBrokerIds`, which leaves out brokers in controlled shutdown.
        let replicas = self.replicas_of_topic(topic);
        let (live, dead): (Vec<_>, Vec<_>) = replicas
            .into_iter()
            .partition(|(_, r)| self.ctx.is_replica_online(*r, false));
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
                    "deletion of topic {topic} paused: replicas on dead or shutting-down brokers {}",
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
        // removeTopic: the assignments go, with their adding and removing
        // replicas. Kafka 2.4 leaves the topic's partitions in
        // partitionsBeingReassigned (only phase B or a failover clears it), so
        // they stay there too.
        self.ctx.all_topics.remove(topic);
        self.ctx.assignments.retain(|tp, _| tp.topic != topic);
        self.ctx.reassigning.retain(|tp, _| tp.topic != topic);
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
            let reassigning = self
                .ctx
                .partitions_being_reassigned
                .iter()
                .any(|tp| tp.topic == t);
            if offline || reassigning {
                self.ctx.topics_ineligible_for_deletion.insert(t.clone());
            }
            self.ctx.topics_to_be_deleted.insert(t);
        }
        Ok(())
    }

    // ----- reassignment (KIP-455, Kafka 2.4) ------------------------------------

    /// A partition's full assignment (`partitionFullReplicaAssignment`): RS
    /// with the adding and removing replicas (empty when not reassigning).
    fn full_assignment(&self, tp: &TopicPartition) -> (Vec<BrokerId>, Reassignment) {
        (
            self.ctx.assignments.get(tp).cloned().unwrap_or_default(),
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
        self.ctx.assignments.insert(tp.clone(), replicas);
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
                    let (replicas, r) = self.reassign_to(&tp, &target);
                    match self.on_partition_reassignment(env, &tp, replicas, r) {
                        Ok(()) => {
                            started.insert(tp);
                        }
                        Err(e @ ControllerError::ControllerMoved(_)) => return Err(e),
                        Err(e) => {
                            env.out
                                .note("reassignment_failed", format!("reassignment of {tp}: {e}"));
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
            env.out.note(
                "reassignment_failed",
                format!("reassignment of {tp}: the partition does not exist"),
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
            env.out.note(
                "reassignment",
                format!(
                    "{tp}: waiting for {} to join ISR {}",
                    ids_text(&r.adding),
                    ids_text(
                        self.ctx
                            .leadership
                            .get(tp)
                            .map(|l| l.isr.as_slice())
                            .unwrap_or_default()
                    )
                ),
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
                    env.out
                        .note("reassignment", format!("{tp}: leader move failed: {e}"));
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
        batch.add_update_metadata(&self.ctx.live_or_shutting_down(), std::slice::from_ref(tp));
        batch.send(&self.ctx, &self.ctx.topics_to_be_deleted, env);
        env.out.note(
            "reassignment_completed",
            format!("{tp}: reassignment to {} completed", ids_text(&target)),
        );
        // Deletion of the topic, if queued, may go on (resumeDeletionForTopics
        // clears the ineligible mark).
        let topics: BTreeSet<String> = [tp.topic.clone()].into_iter().collect();
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
            env.out.note(
                "reassignment",
                format!(
                    "{tp}: replicas {}, adding {}, removing {}",
                    ids_text(replicas),
                    ids_text(&r.adding),
                    ids_text(&r.removing)
                ),
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
        Ok(match super::partitions::read_leader_isr(env, tp)? {
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

fn tps(v: &[TopicPartition]) -> String {
    let s: Vec<String> = v.iter().map(|t| t.to_string()).collect();
    format!("[{}]", s.join(","))
}
