//! Topic creation and partition modifications on the controller (Kafka
//! 2.4.0's `KafkaController`: `processTopicChange`, `onNewPartitionCreation`,
//! `processPartitionModifications`), and the `/brokers/topics/<t>` znode the
//! controller writes back. Topic deletion is in
//! [`super::topic_deletion_manager`], reassignment in [`super::reassignment`].

use super::election::Strategy;
use super::replica_state_machine::ReplicaRun;
use super::states::{PartitionState, ReplicaState};
use super::{ControllerError, Env, KafkaController};
use crate::fact::Fact;
use crate::ids::{BrokerId, TopicPartition};
use crate::kafka_zk::fenced;
use crate::zk::Op;
use crate::zk_client::paths;
use std::collections::{BTreeMap, BTreeSet};

/// The reassignment types and codecs, at their old paths.
pub use super::reassignment::{decode_reassignment, reassignment_json, Reassignment};
/// The topic znode encoder, at its old path.
pub use crate::znodes::topic_znode_json_full;

impl KafkaController {
    fn topic_assignment_znode(&self, topic: &str) -> String {
        // Inserted one by one: a collect into a map sorts, and brings its own
        // copy of the sort into the page's .wasm.
        let mut replicas: BTreeMap<u32, Vec<BrokerId>> = BTreeMap::new();
        for tp in self.ctx.partitions_of(topic) {
            replicas.insert(tp.partition, self.ctx.assignments[&tp].to_vec());
        }
        let mut reassigning: BTreeMap<u32, Reassignment> = BTreeMap::new();
        for (tp, r) in self.ctx.reassigning.iter() {
            if tp.topic == topic {
                reassigning.insert(tp.partition, r.clone());
            }
        }
        topic_znode_json_full(&replicas, &reassigning)
    }

    /// Write the topic's assignment znode from the context (fenced).
    pub(super) fn write_topic_assignment(
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
        fenced(env.client, env.zk, self.ctx.epoch_zk_version, op).map(|_| ())
    }

    // ----- adding partitions ---------------------------------------------------

    /// `processPartitionModifications`.
    pub(super) fn process_partition_modifications(
        &mut self,
        env: &mut Env<'_>,
        topic: &str,
    ) -> Result<(), ControllerError> {
        let known: BTreeSet<TopicPartition> = self.ctx.partitions_of(topic).collect();
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
            env.note(
                "add_partitions_skipped",
                Fact::AddPartitionsSkipped {
                    topic: topic.to_string(),
                    partitions: added.to_vec(),
                },
            );
            return self.write_topic_assignment(env, topic);
        }
        env.note(
            "partitions_added",
            Fact::NewPartitions {
                partitions: added.to_vec(),
            },
        );
        self.on_new_partition_creation(env, &added)
    }

    // ----- topic creation ---------------------------------------------------

    /// `processTopicChange`: new topics get their assignment read and their
    /// partitions created; deleted ones leave the context.
    pub(super) fn process_topic_change(
        &mut self,
        env: &mut Env<'_>,
    ) -> Result<(), ControllerError> {
        let topics: BTreeSet<String> = env
            .client
            .get_children(env.zk, paths::TOPICS)?
            .into_iter()
            .collect();
        let new: Vec<String> = topics.difference(&self.ctx.all_topics).cloned().collect();
        let deleted: Vec<String> = self.ctx.all_topics.difference(&topics).cloned().collect();
        self.ctx.all_topics = topics;
        for t in &deleted {
            self.ctx.assignments.retain(|tp, _| tp.topic != t);
            self.ctx.leadership.retain(|tp, _| tp.topic != t);
            self.ctx.partition_states.retain(|tp, _| tp.topic != t);
            self.ctx
                .replica_states
                .retain_partitions(|tp| tp.topic != t);
        }
        // The new topics' assignments, then `onNewPartitionCreation`: its
        // event's last call, so the reading is its first piece.
        let read = TopicsRead {
            new,
            deleted,
            next: 0,
            added: Vec::new(),
        };
        self.new_partitions_from(env, NewPartitionsPiece::Topics(Box::new(read)))
    }

    /// `onNewPartitionCreation`: New, NewReplica, Online (first live replica
    /// leads), OnlineReplica. Called as its event's last call (a TopicChange
    /// or a PartitionModifications): it may stop between its calls
    /// ([`NewPartitionsPiece`]).
    pub(super) fn on_new_partition_creation(
        &mut self,
        env: &mut Env<'_>,
        tps: &[TopicPartition],
    ) -> Result<(), ControllerError> {
        self.new_partitions_from(env, NewPartitionsPiece::Partitions(tps.to_vec()))
    }

    /// `onNewPartitionCreation` from `piece` on. Between its calls, when
    /// `env.may_stop`, it stops and says where
    /// ([`KafkaController::stopped_at`]); a call under way that stopped
    /// inside hands back its own piece.
    pub(super) fn new_partitions_from(
        &mut self,
        env: &mut Env<'_>,
        mut piece: NewPartitionsPiece,
    ) -> Result<(), ControllerError> {
        use NewPartitionsPiece::*;
        loop {
            piece = match piece {
                Topics(mut read) => {
                    // Topics at a time, until `slice` partitions were read.
                    let slice = env.may_stop.unwrap_or(usize::MAX);
                    let start = read.added.len();
                    while read.added.len() - start < slice {
                        let Some(t) = read.new.get(read.next) else {
                            break;
                        };
                        let added = self.read_topic_assignment(env, t)?;
                        read.added.extend(added);
                        read.next += 1;
                    }
                    if read.next < read.new.len() {
                        Topics(read)
                    } else {
                        let TopicsRead {
                            new,
                            deleted,
                            added,
                            ..
                        } = *read;
                        env.note(
                            "topic_change",
                            Fact::TopicChange {
                                new,
                                deleted,
                                partitions: added.len() as u64,
                            },
                        );
                        if added.is_empty() {
                            return Ok(());
                        }
                        Partitions(added)
                    }
                }
                Partitions(tps) => {
                    let replicas: Vec<(TopicPartition, BrokerId)> = tps
                        .iter()
                        .flat_map(|tp| {
                            self.ctx
                                .assignments
                                .get(tp)
                                .map(|a| a.to_vec())
                                .unwrap_or_default()
                                .into_iter()
                                .map(move |r| (tp.clone(), r))
                        })
                        .collect();
                    // `handleStateChanges(..., NewPartition)`: the
                    // transitions checked, then made a slice at a time.
                    let target = PartitionState::NewPartition;
                    // (Its batch stays empty: a partition going New asks
                    // no broker anything.)
                    let (_, valid, _) = self.valid_transitions(env, &tps, target, None);
                    NewStates(Box::new(NewStatesRun {
                        tps,
                        replicas,
                        valid,
                        at: 0,
                    }))
                }
                NewStates(mut run) => {
                    let slice = env.may_stop.unwrap_or(usize::MAX);
                    let end = run.valid.len().min(run.at.saturating_add(slice));
                    for tp in run.valid.get(run.at..end).unwrap_or(&[]) {
                        self.set_partition_state(env, tp, PartitionState::NewPartition);
                    }
                    run.at = end;
                    if end < run.valid.len() {
                        NewStates(run)
                    } else {
                        let NewStatesRun { tps, replicas, .. } = *run;
                        NewReplicas(tps, replicas)
                    }
                }
                NewReplicas(tps, replicas) => {
                    if replicas.is_empty() {
                        Online(tps, replicas)
                    } else {
                        let run = ReplicaRun::new(replicas.clone(), ReplicaState::NewReplica);
                        NewReplicasUnderWay(tps, replicas, Box::new(run))
                    }
                }
                NewReplicasUnderWay(tps, replicas, mut run) => {
                    if self.replicas_from(env, &mut run, env.may_stop)? {
                        Online(tps, replicas)
                    } else {
                        NewReplicasUnderWay(tps, replicas, run)
                    }
                }
                Online(tps, replicas) => {
                    let strategy = Strategy::Offline {
                        allow_unclean: false,
                    };
                    let run = self.begin_online(env, &tps, Some(strategy));
                    OnlineUnderWay(Box::new(run), replicas)
                }
                OnlineUnderWay(mut run, replicas) => {
                    // Its outcomes are not read: none gathered.
                    if self.online_from(env, &mut run, None, env.may_stop)? {
                        OnlineReplicas(replicas)
                    } else {
                        OnlineUnderWay(run, replicas)
                    }
                }
                OnlineReplicas(replicas) => {
                    if replicas.is_empty() {
                        return Ok(());
                    }
                    let run = ReplicaRun::new(replicas, ReplicaState::OnlineReplica);
                    OnlineReplicasUnderWay(Box::new(run))
                }
                OnlineReplicasUnderWay(mut run) => {
                    if self.replicas_from(env, &mut run, env.may_stop)? {
                        return Ok(());
                    }
                    OnlineReplicasUnderWay(run)
                }
            };
            if env.may_stop.is_some() {
                self.stopped_at = Some(super::Piece::NewPartitions(piece));
                return Ok(());
            }
        }
    }
}

/// The calls of `onNewPartitionCreation` after the first, each with what it
/// is given: a topic of 200,000 partitions takes most of a second of the
/// simulator's wall time, so the page may draw between them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NewPartitionsPiece {
    /// A TopicChange's new topics' assignments read, a few topics at a time
    /// (`processTopicChange`, before its `onNewPartitionCreation`).
    Topics(Box<TopicsRead>),
    /// The partitions go to `NewPartition`: the transitions checked.
    Partitions(Vec<TopicPartition>),
    /// Those made, a slice at a time.
    NewStates(Box<NewStatesRun>),
    /// Their replicas go to `NewReplica`.
    NewReplicas(Vec<TopicPartition>, Vec<(TopicPartition, BrokerId)>),
    /// That under way (a broker's replicas at a time).
    NewReplicasUnderWay(
        Vec<TopicPartition>,
        Vec<(TopicPartition, BrokerId)>,
        Box<ReplicaRun>,
    ),
    /// The partitions go to `OnlinePartition` (their first leaders).
    Online(Vec<TopicPartition>, Vec<(TopicPartition, BrokerId)>),
    /// That under way (its first leaders' znodes written a slice at a time).
    OnlineUnderWay(
        Box<super::partition_state_machine::OnlineRun>,
        Vec<(TopicPartition, BrokerId)>,
    ),
    /// The replicas go to `OnlineReplica`.
    OnlineReplicas(Vec<(TopicPartition, BrokerId)>),
    /// That under way.
    OnlineReplicasUnderWay(Box<ReplicaRun>),
}

/// A TopicChange's reading of its new topics under way
/// ([`NewPartitionsPiece::Topics`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicsRead {
    /// The new topics, in order.
    new: Vec<String>,
    /// The topics deleted.
    deleted: Vec<String>,
    /// The first new topic not yet read.
    next: usize,
    /// The new topics' partitions read so far.
    added: Vec<TopicPartition>,
}

/// `handleStateChanges(..., NewPartition)` of a creation under way
/// ([`NewPartitionsPiece::NewStates`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewStatesRun {
    /// The partitions created.
    tps: Vec<TopicPartition>,
    /// Their replicas.
    replicas: Vec<(TopicPartition, BrokerId)>,
    /// Those that may go to `NewPartition`.
    valid: Vec<TopicPartition>,
    /// The first of them not yet moved.
    at: usize,
}
