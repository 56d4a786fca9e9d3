//! The TopicDeletionManager (Kafka 2.4.0's `TopicDeletionManager.scala`):
//! topics queued under `/admin/delete_topics`, their replicas taken through
//! OfflineReplica → ReplicaDeletionStarted → ReplicaDeletionSuccessful →
//! NonExistentReplica, deletion paused while a topic is ineligible (a
//! replica offline, a reassignment in progress) and resumed after.

use super::batch::RequestBatch;
use super::states::{PartitionState, ReplicaState};
use super::{ControllerError, Env, KafkaController};
use crate::fact::Fact;
use crate::ids::{BrokerId, TopicPartition};
use crate::kafka_zk::fenced_delete_children;
use crate::zk::{Op, ZkError};
use crate::zk_client::paths;
use std::collections::BTreeSet;

impl KafkaController {
    /// `processTopicDeletion`.
    pub(super) fn process_topic_deletion(
        &mut self,
        env: &mut Env<'_>,
    ) -> Result<(), ControllerError> {
        let queued = crate::kafka_zk::get_topic_deletions(env.client, env.zk)?;
        let (known, unknown): (Vec<String>, Vec<String>) = queued
            .into_iter()
            .partition(|t| self.ctx.all_topics.contains(t));
        self.remove_deletion_requests(env, &unknown)?;
        if !env.config.delete_topic_enable {
            self.remove_deletion_requests(env, &known)?;
            env.note("topic_deletion", Fact::DeletionDisabled);
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
                .any(|tp| tp.topic == t)
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
            env.note(
                "topic_deletion",
                Fact::TopicsQueuedForDeletion { topics: new },
            );
        }
        self.resume_deletions(env)
    }

    /// `markTopicIneligibleForDeletion`: a no-op unless the topic is already
    /// queued for deletion.
    pub(super) fn mark_topic_ineligible_for_deletion(
        &mut self,
        env: &mut Env<'_>,
        topic: &str,
        reason: &'static str,
    ) {
        if self.ctx.topics_to_be_deleted.contains(topic)
            && self
                .ctx
                .topics_ineligible_for_deletion
                .insert(topic.to_string())
        {
            env.note(
                "topic_deletion_paused",
                Fact::DeletionHalted {
                    topic: topic.to_string(),
                    reason,
                },
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
                    .filter(|(tp, b)| self.ctx.replica_states.get(tp, *b) == Some(s))
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
                    .filter(|(tp, b)| {
                        self.ctx.replica_states.get(tp, *b)
                            == Some(ReplicaState::ReplicaDeletionIneligible)
                    })
                    .cloned()
                    .collect();
                self.handle_replica_state_changes(env, &retry, ReplicaState::OfflineReplica)?;
            }
            let replicas = self.replicas_of_topic(&t);
            let started = replicas.iter().any(|(tp, b)| {
                self.ctx.replica_states.get(tp, *b) == Some(ReplicaState::ReplicaDeletionStarted)
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
                self.ctx.assignments[&tp]
                    .iter()
                    .map(move |r| (tp.clone(), *r))
            })
            .collect()
    }

    /// `onTopicDeletion`.
    fn on_topic_deletion(&mut self, env: &mut Env<'_>, topic: &str) -> Result<(), ControllerError> {
        let parts: Vec<TopicPartition> = self.ctx.partitions_of(topic).collect();
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
        batch.add_update_metadata_to_all_live(&self.ctx, &parts);
        batch.send(&self.ctx, &self.ctx.topics_to_be_deleted, env);
        // startReplicaDeletion: the live replicas are `allLiveReplicas()`, on
        // `liveBrokerIds`, which leaves out brokers in controlled shutdown.
        let replicas = self.replicas_of_topic(topic);
        let (live, dead): (Vec<_>, Vec<_>) = replicas
            .into_iter()
            .partition(|(_, r)| self.ctx.is_replica_online(*r, false));
        let live: Vec<_> = live
            .into_iter()
            .filter(|(tp, b)| {
                self.ctx.replica_states.get(tp, *b) != Some(ReplicaState::ReplicaDeletionSuccessful)
            })
            .collect();
        self.handle_replica_state_changes(env, &dead, ReplicaState::ReplicaDeletionIneligible)?;
        self.handle_replica_state_changes(env, &live, ReplicaState::OfflineReplica)?;
        self.handle_replica_state_changes(env, &live, ReplicaState::ReplicaDeletionStarted)?;
        if !dead.is_empty() {
            self.ctx
                .topics_ineligible_for_deletion
                .insert(topic.to_string());
            env.note(
                "topic_deletion_paused",
                Fact::DeletionPausedDeadReplicas {
                    topic: topic.to_string(),
                    brokers: dead.iter().map(|(_, r)| *r).collect(),
                },
            );
        } else {
            env.note(
                "topic_deletion",
                Fact::StopReplicaDeleteSent {
                    topic: topic.to_string(),
                },
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
        error: Option<super::channel::ApiError>,
    ) -> Result<(), ControllerError> {
        let replicas: Vec<(TopicPartition, BrokerId)> = partitions
            .iter()
            .filter(|tp| {
                self.ctx
                    .topics_with_deletion_started
                    .contains(tp.topic.as_str())
            })
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
                        .insert(tp.topic.to_string());
                }
                env.note(
                    "topic_deletion_paused",
                    Fact::ReplicaDeletionFailed { broker, error: e },
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
        crate::sort::sort_by_key(&mut doomed, |p| std::cmp::Reverse(p.matches('/').count()));
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
            .retain_partitions(|tp| tp.topic != topic);
        env.note(
            "topic_deleted",
            Fact::TopicDeleted {
                topic: topic.to_string(),
            },
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
        env.note(
            "topic_deletion",
            Fact::DeletionResumed {
                topics: queued.clone(),
            },
        );
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
            .filter(|(tp, b)| {
                self.ctx.replica_states.get(tp, *b) == Some(ReplicaState::ReplicaDeletionStarted)
                    || self.ctx.replica_states.get(tp, *b) == Some(ReplicaState::OfflineReplica)
            })
            .cloned()
            .collect();
        for (tp, _) in replicas {
            self.ctx
                .topics_ineligible_for_deletion
                .insert(tp.topic.to_string());
        }
        self.handle_replica_state_changes(env, &started, ReplicaState::ReplicaDeletionIneligible)?;
        self.resume_deletions(env)
    }

    /// `deleteTopicDeletions`: remove `/admin/delete_topics/<t>` for each
    /// topic, fenced by the controller's epoch znode version.
    fn remove_deletion_requests<'a>(
        &mut self,
        env: &mut Env<'_>,
        topics: impl IntoIterator<Item = &'a String>,
    ) -> Result<(), ControllerError> {
        fenced_delete_children(
            env.client,
            env.zk,
            self.ctx.epoch_zk_version,
            paths::DELETE_TOPICS,
            topics,
        )
    }

    /// At failover: topics queued for deletion, and which are ineligible.
    pub(super) fn initialize_topic_deletion(
        &mut self,
        env: &mut Env<'_>,
    ) -> Result<(), ControllerError> {
        // Kafka: TopicDeletionManager.init queues every topic listed, known
        // or not; resumeDeletions then completes one without replicas (all of
        // its none are ReplicaDeletionSuccessful) and its znode goes.
        let queued = crate::kafka_zk::get_topic_deletions(env.client, env.zk)?;
        // With delete.topic.enable=false, init queues nothing and removes
        // the requests instead.
        if !env.config.delete_topic_enable {
            if !queued.is_empty() {
                self.remove_deletion_requests(env, &queued)?;
                env.note("topic_deletion", Fact::DeletionDisabled);
            }
            return Ok(());
        }
        for t in queued {
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
}
