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
use crate::partition_map::{PartitionMap, Resume};
use crate::zk::ZkError;
use crate::zk_client::paths;
use crate::znodes::decode_topic_assignment_ids;

/// `initializeControllerContext`'s reading of the assignments under way
/// ([`KafkaController::assignments_from`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssignmentRead {
    /// Every topic, in order.
    topics: Vec<String>,
    /// The first not yet read.
    next: usize,
    /// The assignments read so far (a map built as they are read: no list
    /// of 200,000 beside it at a Kafka-scale failover).
    entries: PartitionMap<crate::broker::ReplicaIds>,
}

/// The reading of every partition's leadership under way
/// ([`KafkaController::leaderships_from`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LeadershipRead {
    /// Where it goes on in the assignments.
    at: Resume,
    /// What was read so far (a map built as they are read).
    read: PartitionMap<crate::znodes::LeaderIsr>,
}

impl KafkaController {
    // ----- context ------------------------------------------------------------

    /// The start of `initializeControllerContext`'s reading of every topic's
    /// assignment (`getFullReplicaAssignmentForTopics`, re-arming the
    /// per-topic watches): the context's assignments and leaderships
    /// emptied, the topics listed.
    pub(super) fn begin_assignments(&mut self) -> AssignmentRead {
        self.ctx.assignments = PartitionMap::new();
        self.ctx.leadership = PartitionMap::new();
        AssignmentRead {
            topics: self.ctx.all_topics.iter().cloned().collect(),
            next: 0,
            entries: PartitionMap::new(),
        }
    }

    /// The assignments read from where `read` is, a topic at a time. With
    /// `slice`, it stops after a topic once that many partitions were read
    /// since it was called (Ok(false)); Ok(true) when done, the assignments
    /// in the context. Their leaderships are read next
    /// ([`KafkaController::leaderships_from`]).
    pub(super) fn assignments_from(
        &mut self,
        env: &mut Env<'_>,
        read: &mut AssignmentRead,
        slice: Option<usize>,
    ) -> Result<bool, ControllerError> {
        let slice = slice.unwrap_or(usize::MAX);
        let start = read.entries.len();
        while let Some(topic) = read.topics.get(read.next) {
            if read.entries.len() - start >= slice {
                return Ok(false);
            }
            match self.read_topic_assignment_entries(env, topic) {
                Ok(entries) => {
                    for (tp, replicas) in entries {
                        read.entries.insert(tp, replicas);
                    }
                }
                Err(e) => {
                    // What was read stays.
                    self.ctx.assignments = std::mem::take(&mut read.entries);
                    return Err(e);
                }
            }
            read.next += 1;
        }
        self.ctx.assignments = std::mem::take(&mut read.entries);
        Ok(true)
    }

    /// Every assigned partition's leadership (`updateLeaderAndIsrCache`),
    /// read from where `read` is: `slice` partitions at a time (Ok(false)),
    /// Ok(true) when done, the leaderships in the context.
    pub(super) fn leaderships_from(
        &mut self,
        env: &mut Env<'_>,
        read: &mut LeadershipRead,
        slice: Option<usize>,
    ) -> Result<bool, ControllerError> {
        let mut tps = Vec::new();
        let done =
            (self.ctx.assignments).walk_slice(&mut read.at, slice, |tp, _| tps.push(tp.clone()));
        // Read as one batch (`getTopicPartitionStates`), in partition order.
        let states = read_leader_isrs(env.client, env.zk, &tps)?;
        for (tp, l) in tps.into_iter().zip(states) {
            if let Some(l) = l {
                read.read.insert(tp, l);
            }
        }
        if done {
            self.ctx.leadership = std::mem::take(&mut read.read);
        }
        Ok(done)
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
    ) -> Result<Vec<(TopicPartition, crate::broker::ReplicaIds)>, ControllerError> {
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
            .map(|(p, replicas)| (TopicPartition::new(&topic, p), replicas.into()))
            .collect();
        for (p, r) in crate::znodes::decode_reassigning(&data) {
            self.ctx
                .reassigning
                .insert(TopicPartition::new(&topic, p), r);
        }
        Ok(out)
    }

    // ----- ISR change notifications -------------------------------------------

    /// `processIsrChangeNotification` from where `run` is (from the start
    /// without one): refresh the cache for the partitions named, tell every
    /// broker, and delete the notifications (always). By pieces when the
    /// event may stop: the notifications read, then the partitions' states
    /// read a slice at a time (all before any is applied, as one read of
    /// them all fails or succeeds whole), applied a slice at a time, and the
    /// UpdateMetadata batch sent by pieces.
    pub(super) fn isr_change_from(
        &mut self,
        env: &mut Env<'_>,
        run: Option<Box<IsrChangeRun>>,
    ) -> Result<(), ControllerError> {
        let mut run = match run {
            Some(run) => run,
            None => {
                let run = self.begin_isr_change(env)?;
                if env.may_stop.is_some() && !run.children.is_empty() {
                    self.stopped_at = Some(super::Piece::IsrChange(run));
                    return Ok(());
                }
                run
            }
        };
        let result = self.isr_change_pieces(env, &mut run);
        if result == Ok(false) {
            self.stopped_at = Some(super::Piece::IsrChange(run));
            return Ok(());
        }
        fenced_delete_children(
            env.client,
            env.zk,
            self.ctx.epoch_zk_version,
            paths::ISR_CHANGE_NOTIFICATION,
            &run.children,
        )?;
        result.map(|_| ())
    }

    /// The notifications listed (each read by [`KafkaController::isr_change_pieces`]).
    fn begin_isr_change(
        &mut self,
        env: &mut Env<'_>,
    ) -> Result<Box<IsrChangeRun>, ControllerError> {
        let children = env
            .client
            .get_children(env.zk, paths::ISR_CHANGE_NOTIFICATION)?;
        Ok(Box::new(IsrChangeRun {
            children,
            states: Vec::new(),
            tps: Vec::new(),
            stage: IsrChangeStage::Notifications(0),
            batch: RequestBatch::default(),
        }))
    }

    /// The reads, the updates and the batch from where `run` is: Ok(true)
    /// when done, Ok(false) when it stopped after a slice.
    fn isr_change_pieces(
        &mut self,
        env: &mut Env<'_>,
        run: &mut IsrChangeRun,
    ) -> Result<bool, ControllerError> {
        let slice = env.may_stop;
        loop {
            let len = run.tps.len();
            let upto = |k: usize| k + slice.map_or(len, |n| n.max(1)).min(len - k);
            match run.stage {
                IsrChangeStage::Notifications(k) if k < run.children.len() => {
                    // Notifications read until a slice of partitions is
                    // decoded (each names a broker's batch of changes).
                    let mut k = k;
                    let mut decoded = 0;
                    while let Some(c) = run.children.get(k) {
                        if slice.is_some_and(|n| decoded >= n.max(1)) {
                            break;
                        }
                        let path = format!("{}/{c}", paths::ISR_CHANGE_NOTIFICATION);
                        if let Ok((data, _)) = env.client.get_data(env.zk, &path) {
                            let named = super::rebalance::decode_partition_list(&data);
                            let named = named.unwrap_or_default();
                            decoded += named.len();
                            run.tps.extend(named);
                        }
                        k += 1;
                    }
                    run.stage = IsrChangeStage::Notifications(k);
                }
                IsrChangeStage::Notifications(_) => {
                    // The partitions named, once each, in order, that the
                    // context knows.
                    crate::sort::sort(&mut run.tps);
                    run.tps.dedup();
                    let ctx = &self.ctx;
                    run.tps.retain(|tp| ctx.assignments.contains_key(tp));
                    run.states.reserve_exact(run.tps.len());
                    run.stage = IsrChangeStage::Read(0);
                    if run.tps.is_empty() {
                        continue;
                    }
                }
                IsrChangeStage::Read(k) if k < len => {
                    let to = upto(k);
                    let states = read_leader_isrs(env.client, env.zk, &run.tps[k..to])?;
                    run.states.extend(states);
                    run.stage = IsrChangeStage::Read(to);
                }
                IsrChangeStage::Read(_) => {
                    run.stage = IsrChangeStage::Apply(0);
                    continue;
                }
                IsrChangeStage::Apply(k) if k < len => {
                    let to = upto(k);
                    for (tp, l) in run.tps[k..to].iter().zip(&run.states[k..to]) {
                        if let Some(l) = l {
                            // Written only if it changed: an unchanged one
                            // leaves its chunk shared with a copy of the
                            // context.
                            self.ctx.set_leadership(tp, l);
                        }
                    }
                    run.stage = IsrChangeStage::Apply(to);
                }
                IsrChangeStage::Apply(_) => {
                    if len == 0 {
                        return Ok(true);
                    }
                    run.batch
                        .add_update_metadata_to_all_live(&self.ctx, &run.tps);
                    run.stage = IsrChangeStage::Send;
                    continue;
                }
                IsrChangeStage::Send => {
                    let deleting = &self.ctx.topics_to_be_deleted;
                    if !run.batch.send_from(&self.ctx, deleting, env, slice) {
                        return Ok(false);
                    }
                    env.note(
                        "isr_change",
                        crate::fact::Fact::IsrChangesSent {
                            partitions: std::mem::take(&mut run.tps),
                        },
                    );
                    return Ok(true);
                }
            }
            if slice.is_some() {
                return Ok(false);
            }
        }
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

/// `processIsrChangeNotification` under way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IsrChangeRun {
    /// The notifications read (deleted at the end).
    children: Vec<String>,
    /// The partitions they name (once read: those the context knows, once
    /// each, in order).
    tps: Vec<TopicPartition>,
    /// Their states read so far, in the same order.
    states: Vec<Option<crate::znodes::LeaderIsr>>,
    /// Where it is.
    stage: IsrChangeStage,
    /// The UpdateMetadata batch.
    batch: RequestBatch,
}

/// Where an [`IsrChangeRun`] is, with the next position in its list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IsrChangeStage {
    /// Reading the notifications.
    Notifications(usize),
    /// Reading the states.
    Read(usize),
    /// Applying them to the context.
    Apply(usize),
    /// Sending the batch.
    Send,
}
