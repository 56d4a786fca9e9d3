//! The PartitionStateMachine (Kafka 2.4.0's `PartitionStateMachine.scala`,
//! `ZkPartitionStateMachine`): its start-up at failover,
//! `triggerOnlinePartitionStateChange`, and `handleStateChanges` with the
//! leader elections it runs (`initializeLeaderAndIsrForPartitions`,
//! `electLeaderForPartitions`).

use super::batch::RequestBatch;
use super::context::LeaderIsr;
use super::election::{self, BrokerBits, BrokerSet, ElectionResult, Strategy};
use super::states::{PartitionState, PartitionStateChangeError};
use super::{ControllerError, Env, KafkaController};
use crate::fact::Fact;
use crate::ids::{BrokerId, TopicPartition};
use crate::kafka_zk::{fenced, read_leader_isr};
use crate::partition_map::PartitionMap;
use crate::zk::{CreateMode, Op, ZkError};
use crate::zk_client::paths;
use crate::znodes::encode_partition_state;
use std::collections::BTreeMap;

/// How one partition's transition ended.
pub type TransitionResult = Result<(), PartitionStateChangeError>;

/// A partition's outcome by its position in the list asked about (a
/// failure boxed: 16 bytes a partition).
type Outcome = (u32, Result<(), Box<PartitionStateChangeError>>);

/// The broker sets one state-machine call's elections ask about.
struct ElectionSets {
    live: BrokerBits,
    live_or_shutting_down: BrokerBits,
    shutting_down: BrokerBits,
}

impl KafkaController {
    /// `partitionStateMachine.startup()`'s `initializePartitionState`, from
    /// where `read` is: `slice` partitions at a time (false), true when
    /// done, the states in the context. Its
    /// `triggerOnlinePartitionStateChange` follows
    /// ([`KafkaController::begin_online_state_change`]).
    pub(super) fn partition_states_from(
        &mut self,
        read: &mut PartitionStatesRead,
        slice: Option<usize>,
    ) -> bool {
        // `is_replica_online(b, false)` is membership of the live brokers
        // not shutting down.
        let online: BrokerBits = self.ctx.live_broker_ids().into_iter().collect();
        let PartitionStatesRead { at, states } = read;
        let leadership = &self.ctx.leadership;
        let done = self.ctx.assignments.walk_slice(at, slice, |tp, _| {
            let state = match leadership.get(tp) {
                None => PartitionState::NewPartition,
                Some(l) if l.leader.is_some_and(|b| online.has(b)) => {
                    PartitionState::OnlinePartition
                }
                Some(_) => PartitionState::OfflinePartition,
            };
            states.insert(tp.clone(), state);
        });
        if !done {
            return false;
        }
        let states = std::mem::take(states);
        if self.ctx.partition_states.is_empty() {
            // A new controller's context starts empty: the map built.
            self.ctx.partition_states = states;
        } else {
            for (tp, state) in &states {
                self.ctx.partition_states.insert(tp, *state);
            }
        }
        true
    }

    /// `triggerOnlinePartitionStateChange`: every New or Offline partition
    /// (of one topic, or all) not queued for deletion → Online, with the
    /// offline strategy and unclean election left to the topic config.
    pub(super) fn trigger_online_partition_state_change(
        &mut self,
        env: &mut Env<'_>,
        topic: Option<&str>,
    ) -> Result<(), ControllerError> {
        // Nobody reads the per-partition outcomes here: not gathering them
        // saves a map of every partition moved (200,000 at a large start-up).
        if let Some(mut run) = self.begin_online_state_change(env, topic) {
            self.online_from(env, &mut run, None, None)?;
        }
        Ok(())
    }

    /// `triggerOnlinePartitionStateChange` as a run to go on with
    /// ([`KafkaController::online_from`]), `None` when no partition moves.
    pub(super) fn begin_online_state_change(
        &mut self,
        env: &mut Env<'_>,
        topic: Option<&str>,
    ) -> Option<OnlineRun> {
        let tps = self.online_candidates(topic);
        if tps.is_empty() {
            return None;
        }
        let strategy = Strategy::Offline {
            allow_unclean: false,
        };
        Some(self.begin_online(env, &tps, Some(strategy)))
    }

    /// The partitions `triggerOnlinePartitionStateChange` moves: New or
    /// Offline (of one topic, or all), not queued for deletion.
    fn online_candidates(&self, topic: Option<&str>) -> Vec<TopicPartition> {
        self.ctx
            .partition_states
            .iter()
            .filter(|(tp, s)| {
                matches!(
                    s,
                    PartitionState::NewPartition | PartitionState::OfflinePartition
                ) && topic.is_none_or(|t| tp.topic == t)
                    && !self.ctx.topics_to_be_deleted.contains(tp.topic.as_str())
            })
            .map(|(tp, _)| tp)
            .collect()
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
        let mut results = BTreeMap::new();
        self.change_partition_states(env, tps, target, strategy, Some(&mut results))?;
        Ok(results)
    }

    /// `handle_partition_state_changes`, writing each partition's outcome
    /// to `results` if given (the same changes, notes and requests either way).
    fn change_partition_states(
        &mut self,
        env: &mut Env<'_>,
        tps: &[TopicPartition],
        target: PartitionState,
        strategy: Option<Strategy>,
        mut results: Option<&mut BTreeMap<TopicPartition, TransitionResult>>,
    ) -> Result<(), ControllerError> {
        let (batch, valid, valid_new) =
            self.valid_transitions(env, tps, target, results.as_deref_mut());
        match target {
            PartitionState::NewPartition
            | PartitionState::OfflinePartition
            | PartitionState::NonExistentPartition => {
                for tp in &valid {
                    self.set_partition_state(env, tp, target);
                    if let Some(results) = results.as_deref_mut() {
                        results.insert(tp.clone(), Ok(()));
                    }
                }
                batch.send(&self.ctx, &self.ctx.topics_to_be_deleted, env);
                Ok(())
            }
            PartitionState::OnlinePartition => {
                let mut run = self.online_run(env, batch, valid, valid_new, strategy);
                self.online_from(env, &mut run, results, None).map(|_| ())
            }
        }
    }

    /// `handleStateChanges(tps, OnlinePartition)` without outcomes, as a run
    /// that may stop every `slice` znode writes and state changes when the
    /// event may stop ([`KafkaController::online_from`]).
    pub(super) fn begin_online(
        &mut self,
        env: &mut Env<'_>,
        tps: &[TopicPartition],
        strategy: Option<Strategy>,
    ) -> OnlineRun {
        self.begin_online_noting(env, tps, strategy, None)
    }

    /// [`KafkaController::begin_online`] writing the outcomes of the
    /// partitions that may not go online to `results` if given (the rest
    /// are written by [`KafkaController::online_from`] given them too).
    pub(super) fn begin_online_noting(
        &mut self,
        env: &mut Env<'_>,
        tps: &[TopicPartition],
        strategy: Option<Strategy>,
        results: Option<&mut BTreeMap<TopicPartition, TransitionResult>>,
    ) -> OnlineRun {
        let target = PartitionState::OnlinePartition;
        let (batch, valid, valid_new) = self.valid_transitions(env, tps, target, results);
        self.online_run(env, batch, valid, valid_new, strategy)
    }

    /// The start of `doHandleStateChanges`: the batch, and the partitions
    /// that may go to `target` (the others noted, and their outcomes
    /// written), with whether each was New.
    pub(super) fn valid_transitions(
        &mut self,
        env: &mut Env<'_>,
        tps: &[TopicPartition],
        target: PartitionState,
        mut results: Option<&mut BTreeMap<TopicPartition, TransitionResult>>,
    ) -> (RequestBatch, Vec<TopicPartition>, Vec<bool>) {
        let mut batch = RequestBatch::default();
        // Its LeaderAndIsr states are each partition's leadership as written,
        // with its assignment (new ones marked so); nothing after changes
        // either but a second election of the same partition (which the
        // batch then sees).
        batch.states_stay_current();
        let mut valid = Vec::with_capacity(tps.len());
        // Whether each valid one is New (nothing changes the states between
        // this loop and the elections that ask).
        let mut valid_new: Vec<bool> = Vec::with_capacity(tps.len());
        for tp in tps {
            // Looked up first: a state held already is read without making
            // its chunk (shared with a copy of the context) writable.
            let current = match self.ctx.partition_states.get(tp) {
                Some(s) => *s,
                None => {
                    let s = PartitionState::NonExistentPartition;
                    self.ctx.partition_states.insert(tp.clone(), s);
                    s
                }
            };
            if target.can_follow(current) {
                valid.push(tp.clone());
                valid_new.push(current == PartitionState::NewPartition);
            } else {
                let e = PartitionStateChangeError::InvalidTransition {
                    tp: tp.clone(),
                    from: current,
                    to: target,
                };
                env.note(
                    "invalid_transition",
                    Fact::PartitionStateChangeFailed(e.clone()),
                );
                if let Some(results) = results.as_deref_mut() {
                    results.insert(tp.clone(), Err(e));
                }
            }
        }
        (batch, valid, valid_new)
    }

    /// The Online transition's run: the new partitions apart from the
    /// others, and `initializeLeaderAndIsrForPartitions`' first pass over
    /// the new ones (those with no live replica fail here, noted).
    fn online_run(
        &mut self,
        env: &mut Env<'_>,
        batch: RequestBatch,
        mut valid: Vec<TopicPartition>,
        valid_new: Vec<bool>,
        strategy: Option<Strategy>,
    ) -> OnlineRun {
        // The new partitions stay in `valid` (in order), the others move to
        // `existing` (in order): no second full-size list.
        let mut existing = Vec::new();
        let mut is_new = valid_new.into_iter();
        valid.retain(|tp| {
            let is_new = is_new.next().unwrap_or(false);
            if !is_new {
                existing.push(tp.clone());
            }
            is_new
        });
        let new = valid;
        let strategy = strategy.unwrap_or(Strategy::Offline {
            allow_unclean: false,
        });
        let mut run = OnlineRun {
            batch,
            strategy,
            out: Vec::new(),
            to_create: Vec::new(),
            topics: Vec::new(),
            per_broker: Vec::new(),
            stage: OnlineStage::Mark(0),
            new,
            existing,
            elected: Vec::new(),
            retry: Vec::new(),
        };
        if !run.new.is_empty() {
            self.first_leaders(env, &mut run);
        }
        run
    }

    /// `handleStateChanges(…, OnlinePartition)` from where `run` is: the new
    /// partitions' znodes, their states, the other partitions' elections,
    /// the batch sent. With `slice`, it stops after that many znode writes
    /// and state changes (Ok(false)); Ok(true) when done.
    pub(super) fn online_from(
        &mut self,
        env: &mut Env<'_>,
        run: &mut OnlineRun,
        mut results: Option<&mut BTreeMap<TopicPartition, TransitionResult>>,
        slice: Option<usize>,
    ) -> Result<bool, ControllerError> {
        let slice = slice.unwrap_or(usize::MAX);
        let mut done = 0usize;
        let epoch_zk_version = self.ctx.epoch_zk_version;
        loop {
            if done >= slice {
                return Ok(false);
            }
            match run.stage {
                OnlineStage::Topics(k) => match run.topics.get(k) {
                    Some(topic) => {
                        create_parent(env, epoch_zk_version, paths::partitions(topic))?;
                        run.stage = OnlineStage::Topics(k + 1);
                        done += 1;
                    }
                    None => run.stage = OnlineStage::Partitions(0),
                },
                OnlineStage::Partitions(k) => match run.to_create.get(k) {
                    Some(i) => {
                        if let Some(tp) = run.new.get(*i as usize) {
                            let mut path = paths::partitions(&tp.topic);
                            path.push('/');
                            crate::znodes::push_int(&mut path, i64::from(tp.partition));
                            create_parent(env, epoch_zk_version, path)?;
                        }
                        run.stage = OnlineStage::Partitions(k + 1);
                        done += 1;
                    }
                    None => {
                        // Room, once, for what the writes below add if they
                        // all succeed: each broker's LeaderAndIsr entries (one
                        // per ISR member) and the notes (`leader_elected`
                        // here, `partition_state` after), instead of lists
                        // doubled as they fill (a 200,000-partition
                        // start-up's notes alone were an 88 MB reallocation).
                        for (i, n) in (0u32..).zip(&run.per_broker) {
                            run.batch.reserve_leader_and_isr(BrokerId(i), *n);
                        }
                        env.out
                            .notes
                            .reserve_exact(run.to_create.len().saturating_mul(2));
                        run.stage = OnlineStage::States(0);
                    }
                },
                OnlineStage::States(k) => match run.to_create.get(k).copied() {
                    Some(i) => {
                        self.first_leader(env, run, i, epoch_zk_version)?;
                        run.stage = OnlineStage::States(k + 1);
                        done += 1;
                    }
                    None => run.stage = OnlineStage::Mark(0),
                },
                OnlineStage::Mark(k) => match run.out.get(k) {
                    Some((i, r)) => {
                        let (i, r) = (*i, r.clone());
                        if let Some(tp) = run.new.get(i as usize).cloned() {
                            if r.is_ok() {
                                self.set_partition_state(env, &tp, PartitionState::OnlinePartition);
                            }
                            if let Some(results) = results.as_deref_mut() {
                                results.insert(tp, r.map_err(|e| *e));
                            }
                        }
                        run.stage = OnlineStage::Mark(k + 1);
                        done += 1;
                    }
                    None => run.stage = OnlineStage::Existing(0),
                },
                OnlineStage::Existing(k) => match run.existing.get(k..) {
                    Some(rest) if !rest.is_empty() => {
                        // Their first round a slice at a time (each
                        // partition's election is its own).
                        let n = rest.len().min(slice - done);
                        let tps = &rest[..n];
                        let retry = self.elect_round(
                            env,
                            &mut run.batch,
                            tps,
                            run.strategy,
                            &mut run.elected,
                        )?;
                        run.retry.extend(retry);
                        run.stage = OnlineStage::Existing(k + n);
                        done += n;
                    }
                    _ => {
                        let retry = std::mem::take(&mut run.retry);
                        self.elect_again(
                            env,
                            &mut run.batch,
                            retry,
                            run.strategy,
                            &mut run.elected,
                        )?;
                        run.stage = OnlineStage::Elected(0);
                    }
                },
                OnlineStage::Elected(k) => match run.elected.get(k) {
                    Some((tp, r)) => {
                        let (tp, r) = (tp.clone(), r.clone());
                        if r.is_ok() {
                            self.set_partition_state(env, &tp, PartitionState::OnlinePartition);
                        }
                        if let Some(results) = results.as_deref_mut() {
                            results.insert(tp, r);
                        }
                        run.stage = OnlineStage::Elected(k + 1);
                        done += 1;
                    }
                    None => run.stage = OnlineStage::Send,
                },
                OnlineStage::Send => {
                    // By pieces too: a batch for 200,000 partitions.
                    let left = (slice != usize::MAX).then_some(slice - done);
                    let deleting = &self.ctx.topics_to_be_deleted;
                    return Ok(run.batch.send_from(&self.ctx, deleting, env, left));
                }
            }
        }
    }

    pub(super) fn set_partition_state(
        &mut self,
        env: &mut Env<'_>,
        tp: &TopicPartition,
        state: PartitionState,
    ) {
        // Written only if it changes (an unchanged state leaves its chunk
        // shared with a copy of the context).
        let mut old = None;
        self.ctx.partition_states.insert_with(tp, |held| {
            old = held.copied();
            (old != Some(state)).then_some(state)
        });
        if old != Some(state) {
            env.note(
                "partition_state",
                Fact::PartitionStateChanged {
                    tp: tp.clone(),
                    from: old.unwrap_or(PartitionState::NonExistentPartition),
                    to: state,
                },
            );
        }
    }

    /// New → Online (`initializeLeaderAndIsrForPartitions`), its first pass:
    /// the first live replica leads, every live replica is in the ISR,
    /// leader epoch 0. The znodes are then created as
    /// `KafkaZkClient.createTopicPartitionStatesRaw` does, each a fenced
    /// write: `/brokers/topics/<t>/partitions` once per topic, then
    /// `/partitions/<p>` for every partition, then every `/state` (1 + 2N
    /// writes for one topic of N partitions: [`KafkaController::online_from`]).
    /// The results of the first two steps are ignored, as in Kafka; only the
    /// state znode's creation decides whether the partition goes Online.
    fn first_leaders(&mut self, env: &mut Env<'_>, run: &mut OnlineRun) {
        // Each outcome in order, by its position in `run.new` (a failure
        // boxed: 16 bytes a partition, not a copy of the partition and its
        // error). The positions of the partitions with a live replica: their
        // leadership is worked out again when its znode is written (nothing
        // in between changes the context), so a large start-up does not hold
        // every partition's leadership and replicas twice (about 96 bytes a
        // partition, alive with the requests being built). Each broker's
        // LeaderAndIsr entries (one per ISR member) are counted on the way.
        // (Counted by broker id in a list, no map type of its own; an id
        // past 65,535 is not reserved for, only grown into.)
        run.out.reserve_exact(run.new.len());
        run.to_create.reserve_exact(run.new.len());
        for (i, tp) in (0u32..).zip(&run.new) {
            let (replicas, live) = self.initial_isr(tp);
            if live.is_empty() {
                let e = PartitionStateChangeError::NoLiveReplica {
                    tp: tp.clone(),
                    replicas: replicas.to_vec(),
                };
                run.out.push((i, election_failed(env, e).map_err(Box::new)));
                continue;
            }
            for b in live.iter() {
                let i = b.0 as usize;
                if i < 65_536 {
                    if run.per_broker.len() <= i {
                        run.per_broker.resize(i + 1, 0);
                    }
                    if let Some(n) = run.per_broker.get_mut(i) {
                        *n += 1;
                    }
                }
            }
            run.to_create.push(i);
        }
        if run.to_create.is_empty() {
            return;
        }
        let mut topics: Vec<&str> = run
            .to_create
            .iter()
            .filter_map(|i| run.new.get(*i as usize))
            .map(|tp| tp.topic.as_str())
            .collect();
        // Runs of one topic's partitions shrink to a name first (cheap), then
        // the few names left are sorted and made unique.
        topics.dedup();
        crate::sort::sort(&mut topics);
        topics.dedup();
        run.topics = topics.into_iter().map(str::to_string).collect();
        run.stage = OnlineStage::Topics(0);
    }

    /// One new partition's state znode written (the `i`th of `run.new`),
    /// with its first leadership, and its LeaderAndIsr added.
    fn first_leader(
        &mut self,
        env: &mut Env<'_>,
        run: &mut OnlineRun,
        i: u32,
        epoch_zk_version: i32,
    ) -> Result<(), ControllerError> {
        let Some(tp) = run.new.get(i as usize) else {
            return Ok(());
        };
        let (replicas, live) = self.initial_isr(tp);
        let Some(leader) = live.first().copied() else {
            return Ok(());
        };
        let l = LeaderIsr {
            leader: Some(leader),
            leader_epoch: 0,
            isr: live.into(),
            zk_version: 0,
            controller_epoch: self.ctx.epoch,
        };
        let create = Op::Create {
            path: paths::partition_state(tp),
            data: encode_partition_state(&l),
            mode: CreateMode::Persistent,
        };
        match fenced(env.client, env.zk, epoch_zk_version, create) {
            Ok(_) => {
                env.note(
                    "leader_elected",
                    Fact::LeaderInitialized {
                        leader: l.leader,
                        tp: tp.clone(),
                        replicas: replicas.to_vec(),
                        isr: l.isr.to_vec(),
                    },
                );
                self.ctx.leadership.insert(tp.clone(), l.clone());
                run.batch
                    .add_leader_and_isr_with_replicas(&self.ctx, &l.isr, tp, &l, &replicas, true);
                run.out.push((i, Ok(())));
            }
            Err(ControllerError::Zk(e)) => {
                let e = PartitionStateChangeError::StateZnodeNotCreated {
                    tp: tp.clone(),
                    error: e,
                };
                run.out.push((i, election_failed(env, e).map_err(Box::new)));
            }
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// A new partition's assigned replicas and its first ISR: the live
    /// ones among them, in assignment order (the first leads).
    fn initial_isr(
        &self,
        tp: &TopicPartition,
    ) -> (super::election::BrokerIds, super::election::BrokerIds) {
        let replicas: super::election::BrokerIds = (self.ctx.assignments.get(tp))
            .map_or_else(Default::default, |r| r.iter().copied().collect());
        let live = replicas
            .iter()
            .copied()
            .filter(|r| self.ctx.is_replica_online(*r, false))
            .collect();
        (replicas, live)
    }

    /// Offline/Online → Online with a strategy: read the state znode, elect,
    /// write it conditionally on its version; retry on BadVersion. This is
    /// the first round (or a slice of it: each partition's election is its
    /// own): the outcomes added to `out`, and the
    /// partitions whose write met BadVersion returned, to try again
    /// ([`KafkaController::elect_again`]) once the round is over.
    fn elect_round(
        &mut self,
        env: &mut Env<'_>,
        batch: &mut RequestBatch,
        tps: &[TopicPartition],
        strategy: Strategy,
        out: &mut Vec<(TopicPartition, TransitionResult)>,
    ) -> Result<Vec<TopicPartition>, ControllerError> {
        // Nothing here changes which brokers are live or shutting down.
        let sets = ElectionSets {
            live: self.ctx.live_broker_ids().into_iter().collect(),
            live_or_shutting_down: self.ctx.live_brokers.keys().copied().collect(),
            shutting_down: self.ctx.shutting_down.iter().copied().collect(),
        };
        let mut retry = Vec::new();
        out.reserve(tps.len());
        for tp in tps {
            // Read just before its write, as Kafka's retry loop does:
            // the write then finds the node's part of the tree in the
            // cache (a batch read first measured slower here).
            let read = read_leader_isr(env.client, env.zk, tp)?;
            match self.elect_one(env, batch, tp, read, strategy, &sets)? {
                Some(r) => out.push((tp.clone(), r)),
                None => retry.push(tp.clone()),
            }
        }
        Ok(retry)
    }

    /// The rounds after the first, for the partitions whose write met
    /// BadVersion.
    fn elect_again(
        &mut self,
        env: &mut Env<'_>,
        batch: &mut RequestBatch,
        mut remaining: Vec<TopicPartition>,
        strategy: Strategy,
        out: &mut Vec<(TopicPartition, TransitionResult)>,
    ) -> Result<(), ControllerError> {
        let mut rounds = 1;
        while !remaining.is_empty() && rounds < 100 {
            rounds += 1;
            remaining = self.elect_round(env, batch, &remaining, strategy, out)?;
        }
        // Kafka retries until every partition is done; here nothing else
        // writes while an event runs, so one re-read always suffices, and the
        // bound only keeps a bug from spinning forever: say so if it is hit.
        debug_assert!(
            remaining.is_empty(),
            "elections still conflicting after {rounds} rounds"
        );
        if !remaining.is_empty() {
            env.note(
                "election_gave_up",
                Fact::ElectionGaveUp {
                    partitions: remaining.to_vec(),
                    rounds: rounds as u64,
                },
            );
        }
        Ok(())
    }

    /// One election from the state znode as `read`; `None` means
    /// BadVersion: read and try again.
    fn elect_one(
        &mut self,
        env: &mut Env<'_>,
        batch: &mut RequestBatch,
        tp: &TopicPartition,
        read: Option<LeaderIsr>,
        strategy: Strategy,
        sets: &ElectionSets,
    ) -> Result<Option<TransitionResult>, ControllerError> {
        let Some(current) = read else {
            let e = PartitionStateChangeError::NoLeaderAndIsr { tp: tp.clone() };
            return Ok(Some(election_failed(env, e)));
        };
        if current.controller_epoch > self.ctx.epoch {
            let e = PartitionStateChangeError::WrittenByNewerController {
                tp: tp.clone(),
                written_by: current.controller_epoch,
                epoch: self.ctx.epoch,
            };
            return Ok(Some(election_failed(env, e)));
        }
        // Copied (in place up to three ids): the LeaderAndIsr entries below
        // carry it, and the write in between changes only the leadership.
        let replicas = self.ctx.assignments.get(tp).cloned().unwrap_or_default();
        let assignment = &replicas[..];
        let live = &sets.live;
        let result: ElectionResult = match strategy {
            Strategy::Offline { allow_unclean } => {
                let config = env.config.unclean_leader_election_enable;
                election::offline(assignment, &current.isr, live, || {
                    allow_unclean || topic_unclean_enabled(env, &tp.topic).unwrap_or(config)
                })
            }
            Strategy::Reassign => election::reassign(assignment, &current.isr, live),
            Strategy::Preferred => election::preferred(assignment, &current.isr, live),
            Strategy::ControlledShutdown => election::controlled_shutdown(
                assignment,
                &current.isr,
                &sets.live_or_shutting_down,
                &sets.shutting_down,
            ),
        };
        let Some(leader) = result.leader else {
            let e = PartitionStateChangeError::NoLeaderElected {
                tp: tp.clone(),
                strategy: strategy.name(),
                why: result.why,
            };
            return Ok(Some(election_failed(env, e)));
        };
        let new = LeaderIsr {
            leader: Some(leader),
            leader_epoch: current.leader_epoch + 1,
            isr: crate::broker::ReplicaIds::from(&result.isr[..]),
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
                env.note(
                    kind,
                    Fact::LeaderElected {
                        leader,
                        tp: tp.clone(),
                        why: result.why,
                        leader_epoch: written.leader_epoch,
                    },
                );
                batch.add_leader_and_isr_with_replicas(
                    &self.ctx,
                    &result.recipients,
                    tp,
                    &written,
                    &replicas,
                    false,
                );
                Ok(Some(Ok(())))
            }
        }
    }

    /// A fenced conditional write of a state znode. `Ok(None)` on BadVersion.
    pub(super) fn write_leader_isr(
        &mut self,
        env: &mut Env<'_>,
        tp: &TopicPartition,
        mut l: LeaderIsr,
    ) -> Result<Option<LeaderIsr>, ControllerError> {
        match crate::kafka_zk::fenced_set_partition_state(
            env.client,
            env.zk,
            self.ctx.epoch_zk_version,
            tp,
            &l,
        ) {
            Ok(stat) => {
                l.zk_version = stat.version;
                self.ctx.leadership.insert(tp.clone(), l.clone());
                Ok(Some(l))
            }
            Err(ControllerError::Zk(ZkError::BadVersion)) => Ok(None),
            Err(e) => Err(e),
        }
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

/// An election that failed: noted in the trace, and the partition's result.
// The error holds its election's explanation in place (no allocation); it
// is built once per failed election and moved once, so its size costs nothing.
#[allow(clippy::result_large_err)]
fn election_failed(env: &mut Env<'_>, e: PartitionStateChangeError) -> TransitionResult {
    env.note(
        "election_failed",
        Fact::PartitionStateChangeFailed(e.clone()),
    );
    Err(e)
}

/// A parent znode of new partitions' states created, fenced; its result is
/// ignored, as in Kafka, unless the controller moved or its session is gone.
fn create_parent(
    env: &mut Env<'_>,
    epoch_zk_version: i32,
    path: String,
) -> Result<(), ControllerError> {
    let create = Op::Create {
        path,
        data: String::new(),
        mode: CreateMode::Persistent,
    };
    match fenced(env.client, env.zk, epoch_zk_version, create) {
        Ok(_) | Err(ControllerError::Zk(_)) => Ok(()),
        Err(e) => Err(e),
    }
}

/// `initializePartitionState` under way
/// ([`KafkaController::partition_states_from`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartitionStatesRead {
    /// Where it goes on in the assignments.
    at: crate::partition_map::Resume,
    /// The states so far (a map built as they are found).
    states: PartitionMap<PartitionState>,
}

/// `handleStateChanges(…, OnlinePartition)` under way
/// ([`KafkaController::online_from`]): a large start-up writes 400,000
/// znodes in it, so the event may stop every few thousand and go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnlineRun {
    /// The call's requests so far.
    batch: RequestBatch,
    /// How the partitions that were not New elect.
    strategy: Strategy,
    /// The partitions that were New, in order.
    new: Vec<TopicPartition>,
    /// The others, in order.
    existing: Vec<TopicPartition>,
    /// Their outcomes so far, in the order they were elected.
    elected: Vec<(TopicPartition, TransitionResult)>,
    /// Those whose write met BadVersion in the first round.
    retry: Vec<TopicPartition>,
    /// Each new partition's outcome so far, by its position in `new`.
    out: Vec<Outcome>,
    /// The positions in `new` of the partitions with a live replica.
    to_create: Vec<u32>,
    /// Their topics, in order (each `/partitions` znode written first).
    topics: Vec<String>,
    /// How many LeaderAndIsr entries each broker (by id) will get.
    per_broker: Vec<usize>,
    /// Where the run is.
    stage: OnlineStage,
}

/// Where an [`OnlineRun`] is, with the next position in its list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OnlineStage {
    /// Writing the topics' `/partitions` znodes.
    Topics(usize),
    /// Writing the new partitions' znodes.
    Partitions(usize),
    /// Writing their state znodes (their first leaders).
    States(usize),
    /// Moving the new partitions that got a leader to `OnlinePartition`.
    Mark(usize),
    /// Electing the others (their first round).
    Existing(usize),
    /// Moving those elected to `OnlinePartition`.
    Elected(usize),
    /// Sending the batch.
    Send,
}
