//! The PartitionStateMachine and ReplicaStateMachine (Kafka 2.4.0), and the
//! controller flows built on them: failover start-up, broker failure and
//! start-up, and controlled shutdown.

use super::batch::RequestBatch;
use super::context::LeaderIsr;
use super::election::{self, ElectionResult, Strategy};
use super::states::{PartitionState, ReplicaState};
use super::{fenced, fenced_delete, ids_text, ControllerError, Env, KafkaController};
use crate::ids::{BrokerId, TopicPartition};
use crate::zk::{CreateMode, Op, OpResult, ZkError};
use crate::zk_client::paths;
use crate::znodes::{decode_partition_state, decode_topic_assignment, encode_partition_state};
use std::collections::{BTreeMap, BTreeSet};

/// How one partition's transition ended.
pub type TransitionResult = Result<(), String>;

fn tps_text(tps: &[TopicPartition]) -> String {
    let v: Vec<String> = tps.iter().map(|t| t.to_string()).collect();
    format!("[{}]", v.join(","))
}

impl KafkaController {
    // ----- context ------------------------------------------------------------

    /// Read every topic's assignment (re-arming the per-topic watches) and
    /// every partition's state znode into the context.
    pub(super) fn read_partitions(&mut self, env: &mut Env<'_>) -> Result<(), ControllerError> {
        self.ctx.assignments.clear();
        self.ctx.leadership.clear();
        let topics: Vec<String> = self.ctx.all_topics.iter().cloned().collect();
        for topic in &topics {
            self.read_topic_assignment(env, topic)?;
        }
        let tps: Vec<TopicPartition> = self.ctx.assignments.keys().cloned().collect();
        for tp in tps {
            if let Some(l) = read_leader_isr(env, &tp)? {
                self.ctx.leadership.insert(tp, l);
            }
        }
        Ok(())
    }

    /// Register the PartitionModificationsHandler for `topic` and read its assignment.
    pub(super) fn read_topic_assignment(
        &mut self,
        env: &mut Env<'_>,
        topic: &str,
    ) -> Result<Vec<TopicPartition>, ControllerError> {
        let path = paths::topic(topic);
        env.client.register_data_handler(&path);
        let data = match env.client.get_data(env.zk, &path) {
            Ok((d, _)) => d,
            Err(ZkError::NoNode) => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        let mut out = Vec::new();
        for (p, replicas) in decode_topic_assignment(&data).unwrap_or_default() {
            let tp = TopicPartition::new(topic, p);
            self.ctx.assignments.insert(tp.clone(), replicas);
            out.push(tp);
        }
        for (p, r) in crate::znodes::decode_reassigning(&data) {
            self.ctx
                .reassigning
                .insert(TopicPartition::new(topic, p), r);
        }
        Ok(out)
    }

    fn replicas_on(&self, brokers: &BTreeSet<BrokerId>) -> Vec<(TopicPartition, BrokerId)> {
        let mut out = Vec::new();
        for (tp, replicas) in &self.ctx.assignments {
            for r in replicas {
                if brokers.contains(r) {
                    out.push((tp.clone(), *r));
                }
            }
        }
        out
    }

    fn all_replicas(&self) -> Vec<(TopicPartition, BrokerId)> {
        self.ctx
            .assignments
            .iter()
            .flat_map(|(tp, rs)| rs.iter().map(move |r| (tp.clone(), *r)))
            .collect()
    }

    // ----- start-up during failover -----------------------------------------

    /// `replicaStateMachine.startup()`.
    pub(super) fn replica_state_machine_startup(
        &mut self,
        env: &mut Env<'_>,
    ) -> Result<(), ControllerError> {
        let mut online = Vec::new();
        let mut offline = Vec::new();
        for (tp, r) in self.all_replicas() {
            if self.ctx.is_replica_online(r, false) {
                self.ctx
                    .replica_states
                    .insert((tp.clone(), r), ReplicaState::OnlineReplica);
                online.push((tp, r));
            } else {
                self.ctx
                    .replica_states
                    .insert((tp.clone(), r), ReplicaState::ReplicaDeletionIneligible);
                offline.push((tp, r));
            }
        }
        self.handle_replica_state_changes(env, &online, ReplicaState::OnlineReplica)?;
        self.handle_replica_state_changes(env, &offline, ReplicaState::OfflineReplica)
    }

    /// `partitionStateMachine.startup()`.
    pub(super) fn partition_state_machine_startup(
        &mut self,
        env: &mut Env<'_>,
    ) -> Result<(), ControllerError> {
        let tps: Vec<TopicPartition> = self.ctx.assignments.keys().cloned().collect();
        for tp in tps {
            let state = match self.ctx.leadership.get(&tp) {
                None => PartitionState::NewPartition,
                Some(l)
                    if l.leader
                        .is_some_and(|b| self.ctx.is_replica_online(b, false)) =>
                {
                    PartitionState::OnlinePartition
                }
                Some(_) => PartitionState::OfflinePartition,
            };
            self.ctx.partition_states.insert(tp, state);
        }
        self.trigger_online_partition_state_change(env, None)
    }

    /// `triggerOnlinePartitionStateChange`: every New or Offline partition
    /// (of one topic, or all) not queued for deletion → Online, with the
    /// offline strategy and unclean election left to the topic config.
    pub(super) fn trigger_online_partition_state_change(
        &mut self,
        env: &mut Env<'_>,
        topic: Option<&str>,
    ) -> Result<(), ControllerError> {
        let tps: Vec<TopicPartition> = self
            .ctx
            .partition_states
            .iter()
            .filter(|(tp, s)| {
                matches!(
                    s,
                    PartitionState::NewPartition | PartitionState::OfflinePartition
                ) && topic.is_none_or(|t| tp.topic == t)
                    && !self.ctx.topics_to_be_deleted.contains(&tp.topic)
            })
            .map(|(tp, _)| tp.clone())
            .collect();
        if tps.is_empty() {
            return Ok(());
        }
        self.handle_partition_state_changes(
            env,
            &tps,
            PartitionState::OnlinePartition,
            Some(Strategy::Offline {
                allow_unclean: false,
            }),
        )
        .map(|_| ())
    }

    // ----- the partition state machine ----------------------------------------

    /// `PartitionStateMachine.handleStateChanges`: one batch for the call.
    pub(super) fn handle_partition_state_changes(
        &mut self,
        env: &mut Env<'_>,
        tps: &[TopicPartition],
        target: PartitionState,
        strategy: Option<Strategy>,
    ) -> Result<BTreeMap<TopicPartition, TransitionResult>, ControllerError> {
        let mut batch = RequestBatch::default();
        let mut results = BTreeMap::new();
        let mut valid = Vec::new();
        for tp in tps {
            let current = *self
                .ctx
                .partition_states
                .entry(tp.clone())
                .or_insert(PartitionState::NonExistentPartition);
            if target.can_follow(current) {
                valid.push(tp.clone());
            } else {
                let msg = format!("invalid state transition of {tp} from {current} to {target}");
                env.out.note("invalid_transition", msg.clone());
                results.insert(tp.clone(), Err(msg));
            }
        }
        match target {
            PartitionState::NewPartition
            | PartitionState::OfflinePartition
            | PartitionState::NonExistentPartition => {
                for tp in &valid {
                    self.set_partition_state(env, tp, target);
                    results.insert(tp.clone(), Ok(()));
                }
            }
            PartitionState::OnlinePartition => {
                let (new, existing): (Vec<TopicPartition>, Vec<TopicPartition>) =
                    valid.into_iter().partition(|tp| {
                        self.ctx.partition_states.get(tp) == Some(&PartitionState::NewPartition)
                    });
                if !new.is_empty() {
                    for (tp, r) in self.initialize_leader_and_isr(env, &mut batch, &new)? {
                        if r.is_ok() {
                            self.set_partition_state(env, &tp, PartitionState::OnlinePartition);
                        }
                        results.insert(tp, r);
                    }
                }
                if !existing.is_empty() {
                    let strategy = strategy.unwrap_or(Strategy::Offline {
                        allow_unclean: false,
                    });
                    for (tp, r) in
                        self.elect_leader_for_partitions(env, &mut batch, &existing, strategy)?
                    {
                        if r.is_ok() {
                            self.set_partition_state(env, &tp, PartitionState::OnlinePartition);
                        }
                        results.insert(tp, r);
                    }
                }
            }
        }
        batch.send(&self.ctx, &self.ctx.topics_to_be_deleted, env);
        Ok(results)
    }

    fn set_partition_state(
        &mut self,
        env: &mut Env<'_>,
        tp: &TopicPartition,
        state: PartitionState,
    ) {
        let old = self.ctx.partition_states.insert(tp.clone(), state);
        if old != Some(state) {
            env.out.note(
                "partition_state",
                format!(
                    "{tp}: {} → {state}",
                    old.unwrap_or(PartitionState::NonExistentPartition)
                ),
            );
        }
    }

    /// New → Online (`initializeLeaderAndIsrForPartitions`): the first live
    /// replica leads, every live replica is in the ISR, leader epoch 0. The
    /// znodes are created as `KafkaZkClient.createTopicPartitionStatesRaw`
    /// does, each a fenced write: `/brokers/topics/<t>/partitions` once per
    /// topic, then `/partitions/<p>` for every partition, then every
    /// `/state` (1 + 2N writes for one topic of N partitions). The results of
    /// the first two steps are ignored, as in Kafka; only the state znode's
    /// creation decides whether the partition goes Online.
    fn initialize_leader_and_isr(
        &mut self,
        env: &mut Env<'_>,
        batch: &mut RequestBatch,
        tps: &[TopicPartition],
    ) -> Result<Vec<(TopicPartition, TransitionResult)>, ControllerError> {
        let mut out = Vec::new();
        let mut to_create: Vec<(TopicPartition, LeaderIsr, Vec<BrokerId>)> = Vec::new();
        for tp in tps {
            let replicas = self.ctx.assignments.get(tp).cloned().unwrap_or_default();
            let live: Vec<BrokerId> = replicas
                .iter()
                .copied()
                .filter(|r| self.ctx.is_replica_online(*r, false))
                .collect();
            let Some(leader) = live.first().copied() else {
                let msg = format!(
                    "no assigned replica of {tp} is alive (AR {}); it stays NewPartition",
                    ids_text(&replicas)
                );
                env.out.note("election_failed", msg.clone());
                out.push((tp.clone(), Err(msg)));
                continue;
            };
            let l = LeaderIsr {
                leader: Some(leader),
                leader_epoch: 0,
                isr: live,
                zk_version: 0,
                controller_epoch: self.ctx.epoch,
            };
            to_create.push((tp.clone(), l, replicas));
        }
        if to_create.is_empty() {
            return Ok(out);
        }
        let epoch_zk_version = self.ctx.epoch_zk_version;
        let topics: BTreeSet<&str> = to_create
            .iter()
            .map(|(tp, _, _)| tp.topic.as_str())
            .collect();
        let parents: Vec<String> = topics
            .iter()
            .map(|t| format!("{}/partitions", paths::topic(t)))
            .chain(to_create.iter().map(|(tp, _, _)| {
                format!("{}/partitions/{}", paths::topic(&tp.topic), tp.partition)
            }))
            .collect();
        for path in parents {
            let create = Op::Create {
                path,
                data: String::new(),
                mode: CreateMode::Persistent,
            };
            match fenced(env, epoch_zk_version, create) {
                Ok(_) | Err(ControllerError::Zk(_)) => {}
                Err(e) => return Err(e),
            }
        }
        for (tp, l, replicas) in to_create {
            let create = Op::Create {
                path: paths::partition_state(&tp),
                data: encode_partition_state(&l),
                mode: CreateMode::Persistent,
            };
            match fenced(env, epoch_zk_version, create) {
                Ok(_) => {
                    let leader = l.leader.map_or_else(|| "-1".to_string(), |b| b.to_string());
                    env.out.note("leader_elected", format!("broker {leader} leads {tp}: first live replica in AR {}; ISR {}, leader epoch 0", ids_text(&replicas), ids_text(&l.isr)));
                    self.ctx.leadership.insert(tp.clone(), l.clone());
                    batch.add_leader_and_isr(&self.ctx, &l.isr, &tp, &l, true);
                    out.push((tp, Ok(())));
                }
                Err(ControllerError::Zk(e)) => {
                    let msg = format!("error while creating the state znode of {tp}: {e}");
                    env.out.note("election_failed", msg.clone());
                    out.push((tp, Err(msg)));
                }
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    /// Offline/Online → Online with a strategy: read the state znode, elect,
    /// write it conditionally on its version; retry on BadVersion.
    fn elect_leader_for_partitions(
        &mut self,
        env: &mut Env<'_>,
        batch: &mut RequestBatch,
        tps: &[TopicPartition],
        strategy: Strategy,
    ) -> Result<Vec<(TopicPartition, TransitionResult)>, ControllerError> {
        let mut out = Vec::new();
        let mut remaining: Vec<TopicPartition> = tps.to_vec();
        let mut rounds = 0;
        while !remaining.is_empty() && rounds < 100 {
            rounds += 1;
            let mut retry = Vec::new();
            for tp in remaining {
                match self.elect_one(env, batch, &tp, strategy)? {
                    Some(r) => out.push((tp, r)),
                    None => retry.push(tp),
                }
            }
            remaining = retry;
        }
        Ok(out)
    }

    /// One election; `None` means BadVersion: read and try again.
    fn elect_one(
        &mut self,
        env: &mut Env<'_>,
        batch: &mut RequestBatch,
        tp: &TopicPartition,
        strategy: Strategy,
    ) -> Result<Option<TransitionResult>, ControllerError> {
        let Some(current) = read_leader_isr(env, tp)? else {
            let msg = format!("LeaderAndIsr information doesn't exist for partition {tp}");
            env.out.note("election_failed", msg.clone());
            return Ok(Some(Err(msg)));
        };
        if current.controller_epoch > self.ctx.epoch {
            let msg = format!(
                "leader and isr path written by another controller (epoch {}) while this controller has epoch {}; aborting the election of {tp}",
                current.controller_epoch, self.ctx.epoch
            );
            env.out.note("election_failed", msg.clone());
            return Ok(Some(Err(msg)));
        }
        let assignment = self.ctx.assignments.get(tp).cloned().unwrap_or_default();
        let live = self.ctx.live_broker_ids();
        let result: ElectionResult = match strategy {
            Strategy::Offline { allow_unclean } => {
                let config = env.config.unclean_leader_election_enable;
                election::offline(&assignment, &current.isr, &live, || {
                    allow_unclean || topic_unclean_enabled(env, &tp.topic).unwrap_or(config)
                })
            }
            Strategy::Reassign => election::reassign(&assignment, &current.isr, &live),
            Strategy::Preferred => election::preferred(&assignment, &current.isr, &live),
            Strategy::ControlledShutdown => election::controlled_shutdown(
                &assignment,
                &current.isr,
                &self.ctx.live_or_shutting_down(),
                &self.ctx.shutting_down,
            ),
        };
        let Some(leader) = result.leader else {
            let msg = format!(
                "failed to elect leader for partition {tp} under strategy {}: {}",
                strategy.name(),
                result.why
            );
            env.out.note("election_failed", msg.clone());
            return Ok(Some(Err(msg)));
        };
        let new = LeaderIsr {
            leader: Some(leader),
            leader_epoch: current.leader_epoch + 1,
            isr: result.isr.clone(),
            zk_version: current.zk_version,
            controller_epoch: self.ctx.epoch,
        };
        match self.write_leader_isr(env, tp, new)? {
            None => Ok(None),
            Some(written) => {
                if result.unclean {
                    env.out.unclean_elections += 1;
                    env.out.unclean_partitions.push(tp.clone());
                }
                let kind = if result.unclean {
                    "unclean_leader_elected"
                } else {
                    "leader_elected"
                };
                env.out.note(
                    kind,
                    format!(
                        "broker {leader} leads {tp}: {}; leader epoch {}",
                        result.why, written.leader_epoch
                    ),
                );
                batch.add_leader_and_isr(&self.ctx, &result.recipients, tp, &written, false);
                Ok(Some(Ok(())))
            }
        }
    }

    /// A fenced conditional write of a state znode. `Ok(None)` on BadVersion.
    fn write_leader_isr(
        &mut self,
        env: &mut Env<'_>,
        tp: &TopicPartition,
        mut l: LeaderIsr,
    ) -> Result<Option<LeaderIsr>, ControllerError> {
        let op = Op::SetData {
            path: paths::partition_state(tp),
            data: encode_partition_state(&l),
            version: Some(l.zk_version),
        };
        match fenced(env, self.ctx.epoch_zk_version, op) {
            Ok(OpResult::SetData(stat)) => {
                l.zk_version = stat.version;
                self.ctx.leadership.insert(tp.clone(), l.clone());
                Ok(Some(l))
            }
            Ok(_) => Err(ControllerError::Zk(ZkError::BadArguments)),
            Err(ControllerError::Zk(ZkError::BadVersion)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    // ----- the replica state machine ------------------------------------------

    /// `ReplicaStateMachine.handleStateChanges`: replicas grouped by broker,
    /// one batch for the call.
    pub(super) fn handle_replica_state_changes(
        &mut self,
        env: &mut Env<'_>,
        replicas: &[(TopicPartition, BrokerId)],
        target: ReplicaState,
    ) -> Result<(), ControllerError> {
        if replicas.is_empty() {
            return Ok(());
        }
        let mut batch = RequestBatch::default();
        let mut by_broker: BTreeMap<BrokerId, Vec<TopicPartition>> = BTreeMap::new();
        for (tp, r) in replicas {
            by_broker.entry(*r).or_default().push(tp.clone());
        }
        for (broker, tps) in by_broker {
            let mut valid = Vec::new();
            for tp in tps {
                let key = (tp.clone(), broker);
                let current = *self
                    .ctx
                    .replica_states
                    .entry(key)
                    .or_insert(ReplicaState::NonExistentReplica);
                if target.can_follow(current) {
                    valid.push(tp);
                } else {
                    env.out.note("invalid_transition", format!("invalid state transition of replica {broker} for partition {tp} from {current} to {target}"));
                }
            }
            self.do_replica_transitions(env, &mut batch, broker, &valid, target)?;
        }
        batch.send(&self.ctx, &self.ctx.topics_to_be_deleted, env);
        Ok(())
    }

    fn set_replica_state(&mut self, tp: &TopicPartition, broker: BrokerId, state: ReplicaState) {
        self.ctx.replica_states.insert((tp.clone(), broker), state);
    }

    fn do_replica_transitions(
        &mut self,
        env: &mut Env<'_>,
        batch: &mut RequestBatch,
        broker: BrokerId,
        tps: &[TopicPartition],
        target: ReplicaState,
    ) -> Result<(), ControllerError> {
        match target {
            ReplicaState::NewReplica => {
                for tp in tps {
                    if let Some(l) = self.ctx.leadership.get(tp).cloned() {
                        if l.leader == Some(broker) {
                            env.out.note("invalid_transition", format!("replica {broker} for partition {tp} cannot be moved to NewReplica state as it is being requested to become leader"));
                            continue;
                        }
                        batch.add_leader_and_isr(&self.ctx, &[broker], tp, &l, true);
                    }
                    self.set_replica_state(tp, broker, target);
                }
            }
            ReplicaState::OnlineReplica => {
                for tp in tps {
                    let from = self.ctx.replica_states.get(&(tp.clone(), broker)).copied();
                    if from == Some(ReplicaState::NewReplica) {
                        let a = self.ctx.assignments.entry(tp.clone()).or_default();
                        if !a.contains(&broker) {
                            a.push(broker);
                        }
                    } else if let Some(l) = self.ctx.leadership.get(tp).cloned() {
                        batch.add_leader_and_isr(&self.ctx, &[broker], tp, &l, false);
                    }
                    self.set_replica_state(tp, broker, target);
                }
            }
            ReplicaState::OfflineReplica => {
                for tp in tps {
                    batch.add_stop_replica(&[broker], tp, false);
                }
                let (with, without): (Vec<TopicPartition>, Vec<TopicPartition>) = tps
                    .iter()
                    .cloned()
                    .partition(|tp| self.ctx.leadership.contains_key(tp));
                let updated = self.remove_replica_from_isr(env, broker, &with)?;
                for (tp, l) in updated {
                    if !self.ctx.topics_to_be_deleted.contains(&tp.topic) {
                        let recipients: Vec<BrokerId> = self
                            .ctx
                            .assignments
                            .get(&tp)
                            .map(|a| a.iter().copied().filter(|r| *r != broker).collect())
                            .unwrap_or_default();
                        batch.add_leader_and_isr(&self.ctx, &recipients, &tp, &l, false);
                    }
                    self.set_replica_state(&tp, broker, target);
                }
                for tp in without {
                    batch.add_update_metadata(
                        &self.ctx.live_or_shutting_down(),
                        std::slice::from_ref(&tp),
                    );
                    self.set_replica_state(&tp, broker, target);
                }
            }
            ReplicaState::ReplicaDeletionStarted => {
                for tp in tps {
                    batch.add_stop_replica(&[broker], tp, true);
                    self.set_replica_state(tp, broker, target);
                }
            }
            ReplicaState::ReplicaDeletionIneligible | ReplicaState::ReplicaDeletionSuccessful => {
                for tp in tps {
                    self.set_replica_state(tp, broker, target);
                }
            }
            ReplicaState::NonExistentReplica => {
                for tp in tps {
                    if let Some(a) = self.ctx.assignments.get_mut(tp) {
                        a.retain(|r| *r != broker);
                    }
                    self.ctx.replica_states.remove(&(tp.clone(), broker));
                }
            }
        }
        Ok(())
    }

    /// `removeReplicasFromIsr`: leader −1 if the replica led, ISR minus the
    /// replica unless that would empty it, leader epoch +1; fenced and
    /// conditional, retried on BadVersion. Returns the partitions checked or
    /// updated with their leadership.
    fn remove_replica_from_isr(
        &mut self,
        env: &mut Env<'_>,
        broker: BrokerId,
        tps: &[TopicPartition],
    ) -> Result<Vec<(TopicPartition, LeaderIsr)>, ControllerError> {
        let mut out = Vec::new();
        for tp in tps {
            for _ in 0..100 {
                let Some(current) = read_leader_isr(env, tp)? else {
                    break;
                };
                if current.controller_epoch > self.ctx.epoch {
                    env.out.note("isr_shrink_failed", format!("leader and isr of {tp} written by another controller (epoch {}); not removing replica {broker}", current.controller_epoch));
                    break;
                }
                if !current.isr.contains(&broker) {
                    self.ctx.leadership.insert(tp.clone(), current.clone());
                    out.push((tp.clone(), current));
                    break;
                }
                let leader = if current.leader == Some(broker) {
                    None
                } else {
                    current.leader
                };
                let isr = if current.isr.len() == 1 {
                    current.isr.clone()
                } else {
                    current
                        .isr
                        .iter()
                        .copied()
                        .filter(|r| *r != broker)
                        .collect()
                };
                let new = LeaderIsr {
                    leader,
                    leader_epoch: current.leader_epoch + 1,
                    isr,
                    zk_version: current.zk_version,
                    controller_epoch: self.ctx.epoch,
                };
                if let Some(written) = self.write_leader_isr(env, tp, new)? {
                    env.out.note(
                        "isr_shrunk",
                        format!(
                            "{tp}: replica {broker} offline; leader {}, ISR {}, leader epoch {}{}",
                            written
                                .leader
                                .map_or("-1 (none)".to_string(), |b| b.to_string()),
                            ids_text(&written.isr),
                            written.leader_epoch,
                            if written.isr.contains(&broker) {
                                " (the controller never empties an ISR)"
                            } else {
                                ""
                            }
                        ),
                    );
                    out.push((tp.clone(), written));
                    break;
                }
            }
        }
        Ok(out)
    }

    // ----- topics ------------------------------------------------------------

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
            self.ctx.assignments.retain(|tp, _| &tp.topic != t);
            self.ctx.leadership.retain(|tp, _| &tp.topic != t);
            self.ctx.partition_states.retain(|tp, _| &tp.topic != t);
            self.ctx.replica_states.retain(|(tp, _), _| &tp.topic != t);
        }
        let mut added = Vec::new();
        for t in &new {
            added.extend(self.read_topic_assignment(env, t)?);
        }
        env.out.note("topic_change", format!("new topics: {new:?}, deleted topics: {deleted:?}, new partition replica assignment for {} partition(s)", added.len()));
        if !added.is_empty() {
            self.on_new_partition_creation(env, &added)?;
        }
        Ok(())
    }

    /// `onNewPartitionCreation`: New, NewReplica, Online (first live replica
    /// leads), OnlineReplica.
    pub(super) fn on_new_partition_creation(
        &mut self,
        env: &mut Env<'_>,
        tps: &[TopicPartition],
    ) -> Result<(), ControllerError> {
        let replicas: Vec<(TopicPartition, BrokerId)> = tps
            .iter()
            .flat_map(|tp| {
                self.ctx
                    .assignments
                    .get(tp)
                    .cloned()
                    .unwrap_or_default()
                    .into_iter()
                    .map(move |r| (tp.clone(), r))
            })
            .collect();
        self.handle_partition_state_changes(env, tps, PartitionState::NewPartition, None)?;
        self.handle_replica_state_changes(env, &replicas, ReplicaState::NewReplica)?;
        self.handle_partition_state_changes(
            env,
            tps,
            PartitionState::OnlinePartition,
            Some(Strategy::Offline {
                allow_unclean: false,
            }),
        )?;
        self.handle_replica_state_changes(env, &replicas, ReplicaState::OnlineReplica)
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
            for tp in &tps {
                if let Some(l) = read_leader_isr(env, tp)? {
                    self.ctx.leadership.insert(tp.clone(), l);
                }
            }
            if !tps.is_empty() {
                let mut batch = RequestBatch::default();
                batch.add_update_metadata(&self.ctx.live_or_shutting_down(), &tps);
                batch.send(&self.ctx, &self.ctx.topics_to_be_deleted, env);
                env.out.note(
                    "isr_change",
                    format!(
                        "ISR changes of {} propagated to every broker",
                        tps_text(&tps)
                    ),
                );
            }
            Ok(())
        })();
        let epoch_zk_version = self.ctx.epoch_zk_version;
        for c in children {
            fenced_delete(
                env,
                epoch_zk_version,
                format!("{}/{c}", paths::ISR_CHANGE_NOTIFICATION),
            )?;
        }
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
        let epoch_zk_version = self.ctx.epoch_zk_version;
        for c in children {
            fenced_delete(
                env,
                epoch_zk_version,
                format!("{}/{c}", paths::ISR_CHANGE_NOTIFICATION),
            )?;
        }
        Ok(())
    }

    // ----- broker failure and start-up ------------------------------------------

    /// `onBrokerFailure`.
    pub(super) fn on_broker_failure(
        &mut self,
        env: &mut Env<'_>,
        dead: &BTreeSet<BrokerId>,
    ) -> Result<(), ControllerError> {
        for b in dead {
            self.ctx.shutting_down.remove(b);
        }
        let replicas = self.replicas_on(dead);
        self.on_replicas_become_offline(env, &replicas)?;
        for b in dead {
            env.client.unregister_data_handler(&paths::broker(*b));
        }
        Ok(())
    }

    /// `onReplicasBecomeOffline`.
    pub(super) fn on_replicas_become_offline(
        &mut self,
        env: &mut Env<'_>,
        replicas: &[(TopicPartition, BrokerId)],
    ) -> Result<(), ControllerError> {
        let (deleting, rest): (Vec<_>, Vec<_>) = replicas
            .iter()
            .cloned()
            .partition(|(tp, _)| self.ctx.topics_to_be_deleted.contains(&tp.topic));
        let without_leader: Vec<TopicPartition> = self
            .ctx
            .leadership
            .iter()
            .filter(|(tp, l)| {
                !l.leader
                    .is_some_and(|b| self.ctx.is_replica_online(b, false))
                    && !self.ctx.topics_to_be_deleted.contains(&tp.topic)
            })
            .map(|(tp, _)| tp.clone())
            .collect();
        self.handle_partition_state_changes(
            env,
            &without_leader,
            PartitionState::OfflinePartition,
            None,
        )?;
        self.trigger_online_partition_state_change(env, None)?;
        self.handle_replica_state_changes(env, &rest, ReplicaState::OfflineReplica)?;
        if !deleting.is_empty() {
            self.fail_replica_deletion(env, &deleting)?;
        }
        if without_leader.is_empty() {
            let live = self.ctx.live_or_shutting_down();
            self.send_update_metadata(env, &live, Vec::new());
        }
        Ok(())
    }

    /// `onBrokerStartup`.
    pub(super) fn on_broker_startup(
        &mut self,
        env: &mut Env<'_>,
        new: &BTreeSet<BrokerId>,
    ) -> Result<(), ControllerError> {
        let existing: BTreeSet<BrokerId> = self
            .ctx
            .live_or_shutting_down()
            .difference(new)
            .copied()
            .collect();
        self.send_update_metadata(env, &existing, Vec::new());
        let all: Vec<TopicPartition> = self.ctx.leadership.keys().cloned().collect();
        let infos = self.partition_infos(&all);
        self.send_update_metadata(env, new, infos);
        let replicas = self.replicas_on(new);
        self.handle_replica_state_changes(env, &replicas, ReplicaState::OnlineReplica)?;
        self.trigger_online_partition_state_change(env, None)?;
        // maybeResumeReassignments: Kafka 2.4 resumes every reassignment whose
        // target replicas (RS minus the removing ones, not only the adding
        // ones) include a new broker; onPartitionReassignment runs again.
        self.maybe_resume_reassignments(env, |_, target| target.iter().any(|b| new.contains(b)))?;
        let topics: BTreeSet<String> = replicas.iter().map(|(tp, _)| tp.topic.clone()).collect();
        self.resume_deletion_for_topics(env, &topics)?;
        for b in new {
            env.client.register_data_handler(&paths::broker(*b));
        }
        Ok(())
    }

    fn partition_infos(&self, tps: &[TopicPartition]) -> Vec<super::channel::PartitionStateInfo> {
        tps.iter()
            .filter_map(|tp| {
                let l = self.ctx.leadership.get(tp)?;
                let replicas = self.ctx.assignments.get(tp).cloned().unwrap_or_default();
                Some(super::batch::partition_info(tp, l, &replicas, false))
            })
            .collect()
    }

    // ----- controlled shutdown ------------------------------------------------

    /// `doControlledShutdown`: returns the partitions the broker still leads.
    pub(super) fn do_controlled_shutdown(
        &mut self,
        env: &mut Env<'_>,
        id: BrokerId,
        broker_epoch: i64,
    ) -> Result<Result<Vec<TopicPartition>, String>, ControllerError> {
        if let Some(cached) = self.ctx.live_brokers.get(&id) {
            if broker_epoch != -1 && broker_epoch < *cached {
                return Ok(Err(format!("StaleBrokerEpochException: received a controlled shutdown request from broker {id} with a stale broker epoch {broker_epoch}; the current epoch is {cached}")));
            }
        } else {
            return Ok(Err(format!(
                "BrokerNotAvailableException: broker id {id} does not exist"
            )));
        }
        self.ctx.shutting_down.insert(id);
        env.out.note(
            "controlled_shutdown",
            format!(
                "shutting down broker {id}; all shutting down brokers: {}",
                ids_text(&self.ctx.shutting_down)
            ),
        );
        let act_on: Vec<TopicPartition> = self
            .ctx
            .assignments
            .iter()
            .filter(|(tp, a)| {
                a.contains(&id)
                    && a.len() > 1
                    && self.ctx.leadership.contains_key(*tp)
                    && !self.ctx.topics_to_be_deleted.contains(&tp.topic)
            })
            .map(|(tp, _)| tp.clone())
            .collect();
        let (led, followed): (Vec<TopicPartition>, Vec<TopicPartition>) =
            act_on.into_iter().partition(|tp| {
                self.ctx
                    .leadership
                    .get(tp)
                    .is_some_and(|l| l.leader == Some(id))
            });
        self.handle_partition_state_changes(
            env,
            &led,
            PartitionState::OnlinePartition,
            Some(Strategy::ControlledShutdown),
        )?;
        if !followed.is_empty() {
            let mut batch = RequestBatch::default();
            for tp in &followed {
                batch.add_stop_replica(&[id], tp, false);
            }
            batch.send(&self.ctx, &self.ctx.topics_to_be_deleted, env);
            let replicas: Vec<(TopicPartition, BrokerId)> =
                followed.iter().map(|tp| (tp.clone(), id)).collect();
            self.handle_replica_state_changes(env, &replicas, ReplicaState::OfflineReplica)?;
        }
        let remaining: Vec<TopicPartition> = self
            .ctx
            .leadership
            .iter()
            .filter(|(tp, l)| {
                l.leader == Some(id)
                    && self.ctx.assignments.get(*tp).is_some_and(|a| a.len() > 1)
                    && !self.ctx.topics_to_be_deleted.contains(&tp.topic)
            })
            .map(|(tp, _)| tp.clone())
            .collect();
        env.out.note(
            "controlled_shutdown",
            format!(
                "broker {id} still leads {} partition(s) {}",
                remaining.len(),
                tps_text(&remaining)
            ),
        );
        Ok(Ok(remaining))
    }
}

/// Read a partition's state znode (no watch).
pub(super) fn read_leader_isr(
    env: &mut Env<'_>,
    tp: &TopicPartition,
) -> Result<Option<LeaderIsr>, ControllerError> {
    match env.client.get_data(env.zk, &paths::partition_state(tp)) {
        Ok((data, stat)) => Ok(decode_partition_state(&data, stat.version)),
        Err(ZkError::NoNode) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The topic's `unclean.leader.election.enable` override from
/// `/config/topics/<t>`, if it sets one.
fn topic_unclean_enabled(env: &mut Env<'_>, topic: &str) -> Option<bool> {
    let (data, _) = env
        .client
        .get_data(env.zk, &paths::topic_config(topic))
        .ok()?;
    let v: serde_json::Value = serde_json::from_str(&data).ok()?;
    crate::config::parse_bool(v.get("config")?.get("unclean.leader.election.enable")?)
}
