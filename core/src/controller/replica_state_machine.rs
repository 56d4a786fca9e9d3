//! The ReplicaStateMachine (Kafka 2.4.0's `ReplicaStateMachine.scala`,
//! `ZkReplicaStateMachine`): its start-up at failover, `handleStateChanges`
//! grouped by broker, and `removeReplicasFromIsr`.

use super::batch::RequestBatch;
use super::context::LeaderIsr;
use super::replica_states::{PartitionReplicaStates, ReplicaStates};
use super::states::{ReplicaState, ReplicaStateChangeError};
use super::{ControllerError, Env, KafkaController};
use crate::fact::Fact;
use crate::ids::{BrokerId, TopicPartition};
use crate::kafka_zk::read_leader_isr;
use std::collections::BTreeSet;

impl KafkaController {
    /// Every replica hosted on one of `brokers`.
    pub(super) fn replicas_on(
        &self,
        brokers: &BTreeSet<BrokerId>,
    ) -> Vec<(TopicPartition, BrokerId)> {
        use super::election::{BrokerBits, BrokerSet};
        // Membership as one load a replica, not a tree walk.
        let brokers: BrokerBits = brokers.iter().copied().collect();
        let mut out = Vec::new();
        for (tp, replicas) in &self.ctx.assignments {
            for r in replicas {
                if brokers.has(*r) {
                    out.push((tp.clone(), *r));
                }
            }
        }
        out
    }

    /// `replicaStateMachine.startup()`: `initializeReplicaState` (every
    /// replica `OnlineReplica` if its broker is live and not shutting down,
    /// else `ReplicaDeletionIneligible`), then `handleStateChanges` of the
    /// online ones to `OnlineReplica` and of the others to `OfflineReplica`.
    /// This is `initializeReplicaState`; it returns how many online
    /// replicas each broker has (`None` if no replica is online), for
    /// [`KafkaController::online_replica_requests`], and the replicas not
    /// online, for the last call ([`super::FailoverPiece::OfflineReplicas`]).
    pub(super) fn initialize_replica_states(
        &mut self,
    ) -> (Option<Vec<usize>>, Vec<(TopicPartition, BrokerId)>) {
        use super::election::{BrokerBits, BrokerSet};
        let online_brokers: BrokerBits = self.ctx.live_broker_ids().into_iter().collect();
        let mut offline = Vec::new();
        let mut any_online = false;
        let mut states = Vec::with_capacity(self.ctx.assignments.len());
        // Online replicas per broker (ids below 4096; others are not
        // counted): at most the LeaderAndIsr entries each will get.
        let mut online_per_broker: Vec<usize> = Vec::new();
        for (tp, rs) in &self.ctx.assignments {
            let mut these = PartitionReplicaStates::new();
            for r in rs {
                let state = if online_brokers.has(*r) {
                    any_online = true;
                    let i = r.0 as usize;
                    if i < 4096 {
                        if online_per_broker.len() <= i {
                            online_per_broker.resize(i + 1, 0);
                        }
                        online_per_broker[i] += 1;
                    }
                    ReplicaState::OnlineReplica
                } else {
                    offline.push((tp.clone(), *r));
                    ReplicaState::ReplicaDeletionIneligible
                };
                // A replica named twice gets the same state both times.
                these.set(*r, state);
            }
            states.push((tp.clone(), these));
        }
        if self.ctx.replica_states.is_empty() {
            // A new controller's context starts empty: build the map in one go.
            self.ctx.replica_states = ReplicaStates::from_sorted(states);
        } else {
            for (tp, these) in states {
                for (r, state) in these.iter() {
                    self.ctx.replica_states.set(&tp, r, state);
                }
            }
        }
        (any_online.then_some(online_per_broker), offline)
    }

    /// `replicaStateMachine.startup()`'s `handleStateChanges(online,
    /// OnlineReplica)` after [`KafkaController::initialize_replica_states`],
    /// given the online replicas per broker it counted.
    pub(super) fn online_replica_requests(
        &mut self,
        env: &mut Env<'_>,
        online_per_broker: &[usize],
    ) {
        use super::election::{BrokerBits, BrokerSet};
        let online_brokers: BrokerBits = self.ctx.live_broker_ids().into_iter().collect();
        {
            // `handleStateChanges(online, OnlineReplica)`, walked by partition
            // instead of through `handle_replica_state_changes`: every online
            // replica was just set to OnlineReplica, a valid previous state of
            // itself, and it stays there; each gets a LeaderAndIsr for its
            // partition where the partition has a leadership. One call per
            // partition for all its online replicas: the same LeaderAndIsr
            // entries, and the partition named once for UpdateMetadata. The
            // batch puts each broker's entries in partition order and sends
            // each partition's UpdateMetadata state once, so the requests are
            // the ones the general path builds, without its three ordered-map
            // lookups per replica.
            let mut batch = RequestBatch::default();
            // Built from the context below, not new, and sent right after.
            batch.states_stay_current();
            for (i, n) in online_per_broker.iter().enumerate() {
                batch.reserve_leader_and_isr(BrokerId(i as u32), *n);
            }
            // At most one UpdateMetadata partition per partition.
            batch.reserve_update_metadata(self.ctx.assignments.len());
            let mut leadership = self.ctx.leadership.iter().peekable();
            let mut to = Vec::new();
            for (tp, rs) in &self.ctx.assignments {
                while leadership.next_if(|(k, _)| *k < tp).is_some() {}
                let Some(l) = leadership.next_if(|(k, _)| *k == tp).map(|(_, l)| l) else {
                    continue;
                };
                to.clear();
                to.extend(rs.iter().copied().filter(|r| online_brokers.has(*r)));
                if !to.is_empty() {
                    batch.add_leader_and_isr_with_replicas(&self.ctx, &to, tp, l, rs, false);
                }
            }
            batch.send(&self.ctx, &self.ctx.topics_to_be_deleted, env);
        }
    }

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
        let mut run = ReplicaRun::new(replicas.to_vec(), target);
        self.replicas_from(env, &mut run, None).map(|_| ())
    }

    /// `handleStateChanges` of replicas from where `run` is, a broker's
    /// replicas at a time. With `slice`, it stops once that many replicas
    /// changed since it was called, after a broker's (Ok(false)); Ok(true)
    /// when done, the batch sent.
    pub(super) fn replicas_from(
        &mut self,
        env: &mut Env<'_>,
        run: &mut ReplicaRun,
        slice: Option<usize>,
    ) -> Result<bool, ControllerError> {
        let slice = slice.unwrap_or(usize::MAX);
        let mut done = 0usize;
        let target = run.target;
        while run.next < run.by_broker.len() {
            if done >= slice {
                return Ok(false);
            }
            let broker = run.by_broker[run.next].1;
            let end = run.by_broker[run.next..]
                .iter()
                .position(|(_, b)| *b != broker)
                .map_or(run.by_broker.len(), |n| run.next + n);
            let mut valid = Vec::with_capacity(end - run.next);
            for (tp, _) in &run.by_broker[run.next..end] {
                let tp = tp.clone();
                // Looked up first: an existing state needs no slot made
                // (nor its chunk copied) until it changes.
                let current = match self.ctx.replica_states.get(&tp, broker) {
                    Some(s) => s,
                    None => {
                        let s = ReplicaState::NonExistentReplica;
                        self.ctx.replica_states.set(&tp, broker, s);
                        s
                    }
                };
                if target.can_follow(current) {
                    valid.push(tp);
                } else {
                    let e = ReplicaStateChangeError::InvalidTransition {
                        tp: tp.clone(),
                        replica: broker,
                        from: current,
                        to: target,
                    };
                    env.note("invalid_transition", Fact::ReplicaStateChangeFailed(e));
                }
            }
            done = done.saturating_add(end - run.next);
            run.next = end;
            self.do_replica_transitions(env, &mut run.batch, broker, &valid, target)?;
        }
        let batch = std::mem::take(&mut run.batch);
        batch.send(&self.ctx, &self.ctx.topics_to_be_deleted, env);
        Ok(true)
    }

    fn set_replica_state(&mut self, tp: &TopicPartition, broker: BrokerId, state: ReplicaState) {
        self.ctx.replica_states.set(tp, broker, state);
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
                    if let Some(l) = self.ctx.leadership.get(tp) {
                        if l.leader == Some(broker) {
                            let e = ReplicaStateChangeError::NewReplicaIsLeader {
                                tp: tp.clone(),
                                replica: broker,
                            };
                            env.note("invalid_transition", Fact::ReplicaStateChangeFailed(e));
                            continue;
                        }
                        batch.add_leader_and_isr(&self.ctx, &[broker], tp, l, true);
                    }
                    self.set_replica_state(tp, broker, target);
                }
            }
            ReplicaState::OnlineReplica => {
                for tp in tps {
                    let from = self.ctx.replica_states.get(tp, broker);
                    if from == Some(ReplicaState::NewReplica) {
                        let a = self
                            .ctx
                            .assignments
                            .get_or_insert_with(tp.clone(), super::election::BrokerIds::new);
                        if !a.contains(&broker) {
                            a.push(broker);
                        }
                    } else if let Some(l) = self.ctx.leadership.get(tp) {
                        batch.add_leader_and_isr(&self.ctx, &[broker], tp, l, false);
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
                    if !self.ctx.topics_to_be_deleted.contains(tp.topic.as_str()) {
                        // One lookup of the assignment for the recipients and
                        // the entries' replicas.
                        let replicas =
                            (self.ctx.assignments.get(&tp)).unwrap_or(&super::batch::NO_REPLICAS);
                        let recipients: super::election::BrokerIds =
                            replicas.iter().copied().filter(|r| *r != broker).collect();
                        batch.add_leader_and_isr_with_replicas(
                            &self.ctx,
                            &recipients,
                            &tp,
                            &l,
                            replicas,
                            false,
                        );
                    }
                    self.set_replica_state(&tp, broker, target);
                }
                for tp in without {
                    batch.add_update_metadata_to_all_live(&self.ctx, std::slice::from_ref(&tp));
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
                        *a = a.iter().copied().filter(|r| *r != broker).collect();
                    }
                    self.ctx.replica_states.remove(tp, broker);
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
                // Read just before its write (see `elect_leader_for_partitions`).
                let Some(current) = read_leader_isr(env.client, env.zk, tp)? else {
                    break;
                };
                if current.controller_epoch > self.ctx.epoch {
                    env.note(
                        "isr_shrink_failed",
                        Fact::IsrShrinkFenced {
                            tp: tp.clone(),
                            epoch: current.controller_epoch,
                            broker,
                        },
                    );
                    break;
                }
                if !current.isr.contains(&broker) {
                    // Most often what the context holds already (a broker
                    // shut down in a controlled way left every ISR): then
                    // nothing is written, and no shared chunk copied.
                    self.ctx.set_leadership(tp, &current);
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
                    env.note(
                        "isr_shrunk",
                        Fact::IsrShrunk {
                            tp: tp.clone(),
                            broker,
                            leader: written.leader,
                            isr: written.isr.to_vec(),
                            leader_epoch: written.leader_epoch,
                        },
                    );
                    out.push((tp.clone(), written));
                    break;
                }
            }
        }
        Ok(out)
    }
}

/// `ReplicaStateMachine.handleStateChanges` under way
/// ([`KafkaController::replicas_from`]): a replica state change of every
/// replica of 200,000 partitions takes a tenth of a second of the simulator's
/// wall time, so the event may stop between brokers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaRun {
    /// The call's requests so far.
    batch: RequestBatch,
    /// The replicas, grouped by broker in broker order, each group in the
    /// order given.
    by_broker: Vec<(TopicPartition, BrokerId)>,
    /// The first not yet changed.
    next: usize,
    /// Where they go.
    target: ReplicaState,
}

impl ReplicaRun {
    /// The call's start: the replicas grouped (a stable sort by broker).
    pub(super) fn new(
        mut by_broker: Vec<(TopicPartition, BrokerId)>,
        target: ReplicaState,
    ) -> ReplicaRun {
        let mut batch = RequestBatch::default();
        if target == ReplicaState::OfflineReplica {
            // Its LeaderAndIsr states are each partition's leadership as
            // written or read, with its assignment, not new; nothing after
            // changes either but a second addition for the same partition
            // (which the batch then sees).
            batch.states_stay_current();
        }
        by_broker.sort_by_key(|(_, r)| *r);
        ReplicaRun {
            batch,
            by_broker,
            next: 0,
            target,
        }
    }
}
