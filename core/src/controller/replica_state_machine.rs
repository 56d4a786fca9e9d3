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
use crate::partition_map::Resume;
use std::collections::BTreeSet;

impl KafkaController {
    /// Every replica hosted on one of `brokers`.
    pub(super) fn replicas_on(
        &self,
        brokers: &BTreeSet<BrokerId>,
    ) -> Vec<(TopicPartition, BrokerId)> {
        use super::election::{BrokerBits, BrokerSet};
        let several = brokers.len() > 1;
        // Membership as one load a replica, not a tree walk.
        let brokers: BrokerBits = brokers.iter().copied().collect();
        // Several brokers' replicas (a start-up's: 600,000 at 100 x 200,000,
        // which growing by doubling held room for a million, 24 MiB) are
        // counted first and the list sized once; one broker's (a failure, a
        // shutdown: a share of them) are not worth a second walk.
        let mut out = Vec::new();
        if several {
            let n: usize = self
                .ctx
                .assignments
                .values()
                .map(|replicas| replicas.iter().filter(|r| brokers.has(**r)).count())
                .sum();
            out.reserve_exact(n);
        }
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
    /// This is `initializeReplicaState`, from where `read` is: `slice`
    /// partitions at a time (false), true when done, the states in the
    /// context and in `read` what the next pieces need
    /// ([`ReplicaStatesRead::outcome`]).
    pub(super) fn replica_states_from(
        &mut self,
        read: &mut ReplicaStatesRead,
        slice: Option<usize>,
    ) -> bool {
        use super::election::{BrokerBits, BrokerSet};
        let online_brokers: BrokerBits = self.ctx.live_broker_ids().into_iter().collect();
        let ReplicaStatesRead {
            at,
            states,
            offline,
            online_per_broker,
            any_online,
        } = read;
        let done = self.ctx.assignments.walk_slice(at, slice, |tp, rs| {
            let mut these = PartitionReplicaStates::new();
            for r in rs {
                let state = if online_brokers.has(*r) {
                    *any_online = true;
                    let i = r.0 as usize;
                    // Online replicas per broker (ids below 4096; others
                    // are not counted): at most the LeaderAndIsr entries
                    // each will get.
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
            if !these.is_empty() {
                states.insert(tp.clone(), these);
            }
        });
        if !done {
            return false;
        }
        let states = std::mem::take(states);
        if self.ctx.replica_states.is_empty() {
            // A new controller's context starts empty: the map built.
            self.ctx.replica_states = ReplicaStates::from_map(states);
        } else {
            for (tp, these) in &states {
                for (r, state) in these.iter() {
                    self.ctx.replica_states.set(&tp, r, state);
                }
            }
        }
        true
    }

    /// `replicaStateMachine.startup()`'s `handleStateChanges(online,
    /// OnlineReplica)` after [`KafkaController::replica_states_from`]: its
    /// start, given how many online replicas each broker has.
    pub(super) fn begin_online_replica_requests(
        &self,
        online_per_broker: &[usize],
    ) -> OnlineReplicaRequests {
        let mut batch = RequestBatch::default();
        // Built from the context below, not new, and sent right after.
        batch.states_stay_current();
        for (i, n) in online_per_broker.iter().enumerate() {
            batch.reserve_leader_and_isr(BrokerId(i as u32), *n);
        }
        // At most one UpdateMetadata partition per partition.
        batch.reserve_update_metadata(self.ctx.assignments.len());
        OnlineReplicaRequests {
            at: Resume::default(),
            batch,
            built: false,
        }
    }

    /// That call from where `run` is: its requests gathered `slice`
    /// partitions at a time, then sent (false until it is done; with a
    /// slice, the send is a piece of its own).
    ///
    /// `handleStateChanges(online, OnlineReplica)`, walked by partition
    /// instead of through `handle_replica_state_changes`: every online
    /// replica was just set to OnlineReplica, a valid previous state of
    /// itself, and it stays there; each gets a LeaderAndIsr for its
    /// partition where the partition has a leadership. One call per
    /// partition for all its online replicas: the same LeaderAndIsr
    /// entries, and the partition named once for UpdateMetadata. The
    /// batch puts each broker's entries in partition order and sends each
    /// partition's UpdateMetadata state once, so the requests are the ones
    /// the general path builds, without its three ordered-map lookups per
    /// replica.
    pub(super) fn online_replica_requests_from(
        &mut self,
        env: &mut Env<'_>,
        run: &mut OnlineReplicaRequests,
        slice: Option<usize>,
    ) -> bool {
        use super::election::{BrokerBits, BrokerSet};
        if !run.built {
            let online_brokers: BrokerBits = self.ctx.live_broker_ids().into_iter().collect();
            let ctx = &self.ctx;
            let batch = &mut run.batch;
            // The leaderships walked beside the assignments, from the slice's first.
            let mut leadership = None;
            let mut to = Vec::new();
            let known = env.known_states;
            let done = ctx.assignments.walk_slice(&mut run.at, slice, |tp, rs| {
                let ls = leadership.get_or_insert_with(|| ctx.leadership.iter_from(tp).peekable());
                while ls.next_if(|(k, _)| k < tp).is_some() {}
                let Some(l) = ls.next_if(|(k, _)| k == tp).map(|(_, l)| l) else {
                    return;
                };
                to.clear();
                to.extend(rs.iter().copied().filter(|r| online_brokers.has(*r)));
                if !to.is_empty() {
                    batch.add_leader_and_isr_known(ctx, &to, tp, l, rs, false, known);
                }
            });
            if !done {
                return false;
            }
            run.built = true;
            if slice.is_some() {
                return false;
            }
        }
        // By pieces too: its UpdateMetadata names every partition.
        let deleting = &self.ctx.topics_to_be_deleted;
        run.batch.send_from(&self.ctx, deleting, env, slice)
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
    /// replicas at a time (checked first, then changed). With `slice`, it
    /// stops once that many replicas changed since it was called (Ok(false));
    /// Ok(true) when done, the batch sent.
    pub(super) fn replicas_from(
        &mut self,
        env: &mut Env<'_>,
        run: &mut ReplicaRun,
        slice: Option<usize>,
    ) -> Result<bool, ControllerError> {
        let slice = slice.map_or(usize::MAX, |n| n.max(1));
        let mut done = 0usize;
        let target = run.target;
        loop {
            if done >= slice {
                return Ok(false);
            }
            if run.at == run.valid.len() {
                // The next broker's replicas, checked.
                let Some((_, broker)) = run.by_broker.get(run.next) else {
                    break;
                };
                let broker = *broker;
                let end = run.by_broker[run.next..]
                    .iter()
                    .position(|(_, b)| *b != broker)
                    .map_or(run.by_broker.len(), |n| run.next + n);
                run.valid.clear();
                run.valid.reserve(end - run.next);
                run.at = 0;
                run.broker = broker;
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
                        run.valid.push(tp);
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
                run.next = end;
                continue;
            }
            // Its valid ones changed, a slice at a time: each replica's
            // transition is its own (its state, its partition's znode),
            // so where they are cut changes nothing.
            let end = run.valid.len().min(run.at.saturating_add(slice - done));
            let tps = &run.valid[run.at..end];
            self.do_replica_transitions(env, &mut run.batch, run.broker, tps, target)?;
            done += end - run.at;
            run.at = end;
        }
        // By pieces too, with what is left of the slice.
        let left = (slice != usize::MAX).then_some(slice - done);
        let deleting = &self.ctx.topics_to_be_deleted;
        Ok(run.batch.send_from(&self.ctx, deleting, env, left))
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
                            .get_or_insert_with(tp.clone(), crate::broker::ReplicaIds::new);
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
                // Nearly all have a leadership: room for all of them.
                let mut with = Vec::with_capacity(tps.len());
                let mut without = Vec::new();
                for tp in tps {
                    if self.ctx.leadership.contains_key(tp) {
                        with.push(tp.clone());
                    } else {
                        without.push(tp.clone());
                    }
                }
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
        let mut out = Vec::with_capacity(tps.len());
        for tp in tps {
            for _ in 0..100 {
                // Read just before its write (see `elect_round`).
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

/// `initializeReplicaState` under way ([`KafkaController::replica_states_from`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplicaStatesRead {
    /// Where it goes on in the assignments.
    at: Resume,
    /// The states so far, of partitions with replicas (a map built as they
    /// are found).
    states: crate::partition_map::PartitionMap<PartitionReplicaStates>,
    /// The replicas not online so far.
    offline: Vec<(TopicPartition, BrokerId)>,
    /// Online replicas per broker id so far (ids below 4096).
    online_per_broker: Vec<usize>,
    /// Whether any replica is online.
    any_online: bool,
}

impl ReplicaStatesRead {
    /// What the read found: how many online replicas each broker has
    /// (`None` if no replica is online), for
    /// [`KafkaController::begin_online_replica_requests`], and the replicas
    /// not online, for the start-up's last call
    /// ([`super::FailoverPiece::OfflineReplicas`]).
    pub(super) fn outcome(self) -> (Option<Vec<usize>>, Vec<(TopicPartition, BrokerId)>) {
        (
            self.any_online.then_some(self.online_per_broker),
            self.offline,
        )
    }
}

/// The online replicas' requests at a failover under way
/// ([`KafkaController::online_replica_requests_from`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnlineReplicaRequests {
    /// Where it goes on in the assignments.
    at: Resume,
    /// The requests so far.
    batch: RequestBatch,
    /// Whether every partition is in the batch (it is sent next).
    built: bool,
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
    /// The first whose broker's replicas are not yet checked.
    next: usize,
    /// The broker whose replicas are being changed.
    broker: BrokerId,
    /// Its replicas' partitions that may go to the target, in the order given.
    valid: Vec<TopicPartition>,
    /// The first of them not yet changed.
    at: usize,
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
            broker: BrokerId(0),
            valid: Vec::new(),
            at: 0,
            target,
        }
    }
}
