//! The data plane, as far as the controller's choices show in it: producers
//! write to the leader, followers fetch from their leader broker, leaders
//! grow and shrink the ISR themselves and propagate the changes through
//! `/isr_change_notification`, followers truncate to a new leader's log, and
//! a ledger records the acknowledged records that an election lost.
//!
//! [`DataPlane`] owns the state (replica logs, the ledger of produced
//! records, fetch sessions, slowed brokers, each partition's committed
//! offset) and is driven like the controller: each call takes an [`Env`]
//! with what it reads and writes elsewhere (the brokers' partition state,
//! ZooKeeper for ISR writes, the configuration, the time) and pushes into an
//! [`Outbox`] what must happen next (fetch rounds and broker tasks to
//! schedule, trace lines, invariant violations, counters). The simulator
//! routes its events here and applies the outbox; this module knows nothing
//! of the simulator.
//!
//! Its parts, named for the Kafka classes they model:
//! - [`replica_manager`]: `ReplicaManager` — applying LeaderAndIsr and
//!   StopReplica(delete) to the logs, the `isr-expiration` and
//!   `isr-change-propagation` tasks;
//! - [`partition`]: `Partition` — `makeLeader`, the leader's view of its
//!   followers, `maybeExpandIsr`/`maybeShrinkIsr`/`updateIsr` and
//!   `maybeIncrementLeaderHW` (with `DelayedProduce`'s acknowledgement of
//!   acks=all records);
//! - [`replica_fetcher`]: `ReplicaFetcherThread`/`AbstractFetcherThread` —
//!   fetch sessions, fetch rounds and truncation;
//! - [`producer`]: the producer and `ReplicaManager.appendRecords` on the
//!   leader (`Partition.appendRecordsToLeader`'s `min.insync.replicas` check).
//!
//! Simplified, on purpose: one fetch session per (follower, leader broker)
//! pair, one round every `replica.fetch.wait.max.ms` (500 ms) or sooner after
//! a produce; a fetch copies what the follower lacks at once; divergence is
//! found exactly from record ids (what Kafka's OffsetsForLeaderEpoch exchange
//! finds from leader epochs).
//!
//! Fetch sessions are incremental (KIP-227): an idle round costs nothing per
//! partition, and the leader's per-partition last-caught-up times of an idle
//! session are kept once per session (see [`replica_fetcher`] and
//! `core/docs/data-plane.md`); what the cluster does is the same as with
//! full fetches.

pub mod park;
pub mod partition;
pub mod producer;
pub mod replica_fetcher;
pub mod replica_logs;
pub mod replica_manager;
pub mod replica_map;

use crate::broker::Broker;
use crate::config::Config;
use crate::ids::{BrokerId, TopicPartition};
use crate::log::{Log, ProducedRecord};
use crate::time::SimTime;
use crate::vec_map::VecMap;
use crate::zk::Zk;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Kafka's `replica.fetch.wait.max.ms` default: how long a follower's fetch
/// waits at the leader when there is nothing new.
pub const FETCH_WAIT_MAX_MS: u64 = 500;
/// `ReplicaManager.IsrChangePropagationBlackOut`.
pub const ISR_PROPAGATION_BLACKOUT_MS: u64 = 5_000;
/// `ReplicaManager.IsrChangePropagationInterval`.
pub const ISR_PROPAGATION_INTERVAL_MS: u64 = 60_000;
/// How often the `isr-change-propagation` task runs.
pub const ISR_PROPAGATION_CHECK_MS: u64 = 2_500;

/// A broker's periodic task (its `ReplicaManager`'s scheduler).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum BrokerTask {
    /// `isr-expiration`: the leader drops followers that lag too long.
    IsrExpiration,
    /// `isr-change-propagation`: write `/isr_change_notification/isr_change_<seq>`.
    IsrChangePropagation,
}

/// Something the data plane asks to happen later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FollowUp {
    /// A fetch round of `follower` from `leader`.
    Fetch {
        /// The follower.
        follower: BrokerId,
        /// The leader broker it fetches from.
        leader: BrokerId,
    },
    /// The next round of an idle cached session, `every` ms after this
    /// one: parked rather than queued ([`park`]).
    Park {
        /// The follower.
        follower: BrokerId,
        /// The leader broker it fetches from.
        leader: BrokerId,
        /// Milliseconds between its rounds.
        every: u64,
    },
    /// A broker's periodic task.
    Task {
        /// The broker.
        broker: BrokerId,
        /// Which start of it (a task of an earlier start is ignored).
        incarnation: u32,
        /// Which task.
        task: BrokerTask,
    },
}

/// What one call into the data plane produced, in order.
#[derive(Debug, Default)]
pub struct Outbox {
    /// Follow-ups to schedule: (when, what).
    pub follow_ups: Vec<(SimTime, FollowUp)>,
    /// Trace lines: (actor, kind, fact).
    pub notes: Vec<(crate::trace::Label, &'static str, crate::fact::Fact)>,
    /// Invariant violations found: (invariant, details).
    pub violations: Vec<(&'static str, String)>,
    /// Acknowledged records lost to leader changes.
    pub acked_records_lost: u64,
    /// ISR shrinks written by partition leaders.
    pub isr_shrinks: u64,
    /// ISR expansions written by partition leaders.
    pub isr_expands: u64,
}

impl Outbox {
    fn note(
        &mut self,
        actor: impl Into<crate::trace::Label>,
        kind: &'static str,
        fact: crate::fact::Fact,
    ) {
        self.notes.push((actor.into(), kind, fact));
    }

    fn found(&mut self, invariant: &'static str, details: String) {
        self.violations.push((invariant, details));
    }

    fn schedule(&mut self, at: SimTime, follow_up: FollowUp) {
        self.follow_ups.push((at, follow_up));
    }
}

/// What a data-plane call may read and touch outside the data plane.
#[derive(Debug)]
pub struct Env<'a> {
    /// Now.
    pub now: SimTime,
    /// The cluster configuration.
    pub config: &'a Config,
    /// The brokers: their status, sessions and partition state (a leader's
    /// view of its followers and the ISR it last wrote live there).
    pub brokers: &'a mut BTreeMap<BrokerId, Broker>,
    /// The ensemble, for a leader's ISR writes and change notifications.
    pub zk: &'a mut Zk,
    /// What the call produces.
    pub out: &'a mut Outbox,
}

impl Env<'_> {
    /// Which start of the broker this is (0 for an unknown broker).
    fn incarnation(&self, b: BrokerId) -> u32 {
        self.brokers.get(&b).map_or(0, |x| x.incarnation)
    }
}

/// The state of the data plane, across all brokers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataPlane {
    /// Replica logs, by (broker, partition); they survive restarts.
    logs: replica_logs::ReplicaLogs,
    /// Every produced record and its fate.
    produced: Vec<ProducedRecord>,
    /// The id of the next record produced.
    next_record_id: u64,
    /// Fetch sessions: (follower, leader) → when the next round is due.
    fetch_sessions: BTreeMap<(BrokerId, BrokerId), SimTime>,
    /// Brokers slowed by `slow_broker`, with the extra lag per fetch.
    slow_brokers: VecMap<BrokerId, u64>,
    /// The committed offset (high watermark) per partition.
    partition_hw: crate::partition_map::PartitionMap<u64>,
    /// Partitions whose latest election was unclean, until the leader takes over.
    unclean_partitions: BTreeSet<TopicPartition>,
    /// KIP-227 fetch session caches, by (leader, follower): what the leader
    /// knows of an idle session, so that an idle round costs nothing per
    /// partition (see [`replica_fetcher`]).
    #[serde(default)]
    session_caches: BTreeMap<(BrokerId, BrokerId), replica_fetcher::SessionCache>,
    /// Per leader, as last counted by its `isr-expiration` task: (its
    /// incarnation, the (partition it leads, ISR follower) pairs).
    #[serde(default)]
    leader_slots: VecMap<BrokerId, (u32, u64)>,
    /// Bumped by every call that can change what any leader's
    /// `isr-expiration` walk finds other than time passing (see
    /// [`DataPlane::changed`]).
    #[serde(default)]
    walk_gen: u64,
    /// The same per leader, by broker id ([`DataPlane::changed_for`]).
    #[serde(default)]
    walk_gens: Vec<u64>,
    /// Per leader, its last `isr-expiration` walk that found nothing to
    /// shrink, while nothing else changed ([`partition::QuietWalk`]).
    #[serde(default)]
    quiet_walks: VecMap<BrokerId, partition::QuietWalk>,
    /// Tests: walk every time all the same (no [`partition::QuietWalk`]
    /// skip), to compare with the skip.
    #[cfg(test)]
    #[serde(skip)]
    pub(crate) walk_every_time: bool,
    /// Tests: the walks a [`partition::QuietWalk`] said could be skipped.
    #[cfg(test)]
    #[serde(skip)]
    pub(crate) quiet_skips: u64,
    /// Partitions replicated by fetch rounds so far: the rounds' per-partition work.
    #[serde(default)]
    partitions_fetched: u64,
    /// Full fetches only, as before Kafka 1.1 (no KIP-227 sessions): every
    /// round replicates every partition. Observably the same; slower.
    #[serde(default)]
    full_fetches_only: bool,
    /// Idle cached sessions with no event queued ([`park`]).
    #[serde(default)]
    parking: park::Parking,
}

impl DataPlane {
    /// Replica logs and committed offsets held in chunks `other` does not
    /// share (see [`crate::cow_map::CowMap::unshared_entries`]).
    pub fn unshared_entries(&self, other: Option<&DataPlane>) -> usize {
        self.logs.unshared_entries(other.map(|o| &o.logs))
            + self
                .partition_hw
                .unshared_entries(other.map(|o| &o.partition_hw))
    }

    /// A replica's log, if it has one.
    pub fn log(&self, broker: BrokerId, tp: &TopicPartition) -> Option<&Log> {
        self.logs.get(&(broker, tp.clone()))
    }

    /// Test-only: a replica's log, to break it.
    #[cfg(test)]
    pub(crate) fn log_mut_for_test(
        &mut self,
        broker: BrokerId,
        tp: &TopicPartition,
    ) -> Option<&mut Log> {
        self.logs.get_mut(&(broker, tp.clone()))
    }

    /// The partition's high watermark: the committed offset.
    pub fn high_watermark(&self, tp: &TopicPartition) -> u64 {
        self.partition_hw.get(tp).copied().unwrap_or(0)
    }

    /// Every produced record and its fate.
    pub fn produced(&self) -> &[ProducedRecord] {
        &self.produced
    }

    /// How many partitions fetch rounds have replicated so far: an idle
    /// round (a KIP-227 incremental fetch with nothing new) adds nothing.
    pub fn partitions_fetched(&self) -> u64 {
        self.partitions_fetched
    }

    /// Something other than time passing may change what any leader's
    /// `isr-expiration` walk finds: a produce, a broker slowed or healed, a
    /// broker's tasks started, a topic forgotten, full fetches switched on.
    /// The changes of one leader's walk count for it alone
    /// ([`DataPlane::changed_for`]); the `isr-expiration` task counts only
    /// the ISRs it writes.
    pub(crate) fn changed(&mut self) {
        self.walk_gen = self.walk_gen.wrapping_add(1);
    }

    /// Something other than time passing may change what `leader`'s
    /// `isr-expiration` walk finds: its hosted replicas (a request it
    /// applied, an ISR it wrote), or a session it leads (a round, a cache
    /// opened, changed or closed, a parked session woken).
    pub(crate) fn changed_for(&mut self, leader: BrokerId) {
        let i = leader.0 as usize;
        if i >= self.walk_gens.len() {
            if leader.0 > crate::scenario::MAX_BROKER_ID {
                // No such broker passes validation; count it for all.
                self.changed();
                return;
            }
            self.walk_gens.resize(i + 1, 0);
        }
        if let Some(gen) = self.walk_gens.get_mut(i) {
            *gen = gen.wrapping_add(1);
        }
    }

    /// The change counts a walk of `leader` is valid for: every leader's,
    /// and its own.
    fn walk_gens_of(&self, leader: BrokerId) -> (u64, u64) {
        (
            self.walk_gen,
            self.walk_gens.get(leader.0 as usize).copied().unwrap_or(0),
        )
    }

    /// Fetch as before Kafka 1.1 (`true`: every round carries every
    /// partition, no session is cached) or with KIP-227 incremental fetch
    /// sessions (`false`, the default). What the cluster does is the same
    /// either way; only the simulator's work differs.
    pub fn set_full_fetches_only(&mut self, on: bool) {
        self.changed();
        self.full_fetches_only = on;
        if on {
            self.leader_slots.clear();
            for (f, l) in self.parking.sessions() {
                self.wake(f, l);
            }
        }
    }

    /// The parked sessions ([`park`]).
    pub fn parking(&self) -> &park::Parking {
        &self.parking
    }

    /// The parked sessions, for the simulator to advance and to queue the
    /// rounds of the woken ones.
    pub fn parking_mut(&mut self) -> &mut park::Parking {
        &mut self.parking
    }

    /// A broker's status or start changed: the sessions it takes part in
    /// run their rounds as events again.
    pub fn wake_sessions_of(&mut self, broker: BrokerId) {
        // Each session woken counts as a change for its leader (`unpark`).
        for (f, l) in self.parking.sessions_of(broker) {
            self.wake(f, l);
        }
    }

    /// The extra fetch lag of a broker slowed by `slow_broker` (0 if none).
    pub fn slow_lag(&self, broker: BrokerId) -> u64 {
        self.slow_brokers.get(&broker).copied().unwrap_or(0)
    }

    /// The controller elected these partitions' leaders uncleanly: their
    /// next leader's log decides what survives, high watermark included.
    pub fn mark_unclean(&mut self, partitions: impl IntoIterator<Item = TopicPartition>) {
        // Read when the next leader takes over (a request applied, counted
        // as a change then), not by `isr-expiration`.
        self.unclean_partitions.extend(partitions);
    }

    /// Slow a broker's fetching by `lag_ms` per round (0 heals it).
    pub fn set_slow(&mut self, env: &mut Env, broker: BrokerId, lag_ms: u64) {
        self.changed();
        if lag_ms == 0 {
            self.slow_brokers.remove(&broker);
            // Its next fetch round comes at the normal pace again.
            let leaders: Vec<BrokerId> = self
                .fetch_sessions
                .keys()
                .filter(|(f, _)| *f == broker)
                .map(|(_, l)| *l)
                .collect();
            for l in leaders {
                self.ensure_fetch_session(env, broker, l, 2);
            }
        } else {
            self.slow_brokers.insert(broker, lag_ms);
            // Its parked rounds come at the new pace from the next one on.
            let parked: Vec<(BrokerId, BrokerId)> = self
                .parking
                .sessions_of(broker)
                .into_iter()
                .filter(|(f, _)| *f == broker)
                .collect();
            for (f, l) in parked {
                self.wake(f, l);
            }
        }
    }

    /// A deleted topic takes its data with it: every replica log left of it,
    /// its high watermark, its unclean-election marker and the ledger of
    /// records produced to it. A topic created again under the same name is
    /// a new topic (Kafka: `TopicDeletionManager.completeDeleteTopic`, after
    /// `ReplicaManager.stopReplica(deletePartition = true)` on every replica).
    pub fn forget_topic(&mut self, topic: &str) {
        self.changed();
        // Its logs go: the next round of a session that still lists one of
        // its partitions replicates it as a full fetch would.
        let mut touched = Vec::new();
        for (k, c) in self.session_caches.iter_mut() {
            if c.touch_topic(topic) {
                touched.push(*k);
            }
        }
        for (l, f) in touched {
            self.wake(f, l);
        }
        self.logs.retain(|_, tp, _| tp.topic != topic);
        self.partition_hw.retain(|tp, _| tp.topic != topic);
        self.unclean_partitions.retain(|tp| tp.topic != topic);
        self.produced.retain(|r| r.tp.topic != topic);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::Acks;

    fn env<'a>(
        config: &'a Config,
        brokers: &'a mut BTreeMap<BrokerId, Broker>,
        zk: &'a mut Zk,
        out: &'a mut Outbox,
    ) -> Env<'a> {
        Env {
            now: SimTime(1_000),
            config,
            brokers,
            zk,
            out,
        }
    }

    #[test]
    fn a_produce_without_a_leader_only_reports_the_failure() {
        let (config, mut zk, mut out) = (Config::default(), Zk::new(), Outbox::default());
        let mut brokers = BTreeMap::new();
        let mut data = DataPlane::default();
        let tp = TopicPartition::new("t", 0);
        data.produce(
            &mut env(&config, &mut brokers, &mut zk, &mut out),
            &tp,
            3,
            Acks::All,
            None,
        );
        assert!(data.produced().is_empty());
        assert!(out.follow_ups.is_empty() && out.violations.is_empty());
        let notes: Vec<(String, &str, String)> = out
            .notes
            .iter()
            .map(|(a, k, f)| (a.to_string(), *k, f.english()))
            .collect();
        assert_eq!(
            notes,
            vec![(
                "producer".to_string(),
                "produce_failed",
                "t-0: LEADER_NOT_AVAILABLE: the partition has no leader".to_string()
            )]
        );
    }

    /// Broker 1, with a live ZooKeeper session and nothing hosted yet, and
    /// an ensemble holding the state znodes of `tps`, under the default
    /// configuration: what a leader's `isr-expiration` walk needs.
    fn leader_with_states(tps: &[&TopicPartition]) -> (Config, Zk, Broker) {
        let mut zk = Zk::new();
        let session = zk.open_session(SimTime::ZERO, 6_000);
        for tp in tps {
            let path = crate::zk_client::paths::partition_state(tp);
            let created = zk.create_recursive(None, &path, "{}", crate::zk::CreateMode::Persistent);
            assert!(created.is_ok());
        }
        let mut b = Broker::new(BrokerId(1));
        b.zk_client.session = Some(session);
        (Config::default(), zk, b)
    }

    /// Broker ids from numbers.
    fn ids(v: &[u32]) -> Vec<BrokerId> {
        v.iter().map(|&i| BrokerId(i)).collect()
    }

    #[test]
    fn isr_expiration_drops_exactly_the_followers_not_caught_up_within_the_lag() {
        // Kafka: Partition.maybeShrinkIsr (2.x) drops from the ISR every
        // follower whose lastCaughtUpTimeMs is more than
        // replica.lag.time.max.ms ago (one caught up exactly that long ago
        // stays), writing the smaller ISR to the partition's state znode.
        let tp = TopicPartition::new("t", 0);
        let (config, mut zk, mut b) = leader_with_states(&[&tp]);
        let lag = config.replica_lag_time_max_ms;
        let now = SimTime(3 * lag);
        let mut out = Outbox::default();
        let mut p = crate::broker::LocalPartition::new(
            1,
            0,
            &ids(&[1, 2, 3, 4, 5]),
            &ids(&[1, 2, 3, 4, 5]),
            0,
            1,
        );
        // 2 caught up recently, 3 exactly `lag` ago, 4 just before that;
        // 5 never (no time recorded).
        p.view.set_caught_up(BrokerId(2), SimTime(now.0 - 1));
        p.view.set_caught_up(BrokerId(3), SimTime(now.0 - lag));
        p.view.set_caught_up(BrokerId(4), SimTime(now.0 - lag - 1));
        b.replicas.insert(tp.clone(), p);
        let mut brokers = BTreeMap::from([(BrokerId(1), b)]);
        let mut data = DataPlane::default();
        let mut env = Env {
            now,
            config: &config,
            brokers: &mut brokers,
            zk: &mut zk,
            out: &mut out,
        };
        data.maybe_shrink_isr(&mut env, BrokerId(1));
        let isr = brokers
            .get(&BrokerId(1))
            .and_then(|b| b.replicas.get(&tp))
            .map(|p| p.isr().to_vec());
        assert_eq!(isr, Some(ids(&[1, 2, 3])));
        assert_eq!(out.isr_shrinks, 1);
        let kinds: Vec<&str> = out.notes.iter().map(|(_, k, _)| *k).collect();
        assert_eq!(kinds, vec!["isr_shrunk_by_leader"]);
    }

    #[test]
    fn a_quiet_isr_expiration_walk_is_skipped_only_until_a_pair_can_expire_or_something_changes() {
        // Kafka: ReplicaManager.maybeShrinkIsr walks every partition the
        // broker leads at each run of `isr-expiration`. A walk that found
        // nothing is not repeated while nothing but time changed and no
        // follower can yet be more than replica.lag.time.max.ms behind; the
        // ISRs are those Kafka's walks give.
        let (t0, t1) = (TopicPartition::new("t", 0), TopicPartition::new("t", 1));
        let (config, mut zk, mut b) = leader_with_states(&[&t0, &t1]);
        let lag = config.replica_lag_time_max_ms;
        let now = SimTime(3 * lag);
        let mut out = Outbox::default();
        let mut p =
            crate::broker::LocalPartition::new(1, 0, &ids(&[1, 2, 3]), &ids(&[1, 2, 3]), 0, 1);
        // 2 caught up just now; 3 can stay until 100 ms from now.
        p.view.set_caught_up(BrokerId(2), SimTime(now.0 - 1));
        p.view
            .set_caught_up(BrokerId(3), SimTime(now.0 - lag + 100));
        b.replicas.insert(t0.clone(), p);
        let mut brokers = BTreeMap::from([(BrokerId(1), b)]);
        let mut data = DataPlane::default();
        let isr = |brokers: &BTreeMap<BrokerId, Broker>, tp: &TopicPartition| {
            brokers
                .get(&BrokerId(1))
                .and_then(|b| b.replicas.get(tp))
                .map(|p| p.isr().to_vec())
        };
        let mut walk =
            |data: &mut DataPlane, brokers: &mut BTreeMap<BrokerId, Broker>, at: SimTime| {
                let mut env = Env {
                    now: at,
                    config: &config,
                    brokers,
                    zk: &mut zk,
                    out: &mut out,
                };
                data.maybe_shrink_isr(&mut env, BrokerId(1));
            };
        walk(&mut data, &mut brokers, now);
        assert_eq!(
            (isr(&brokers, &t0), data.quiet_skips),
            (Some(ids(&[1, 2, 3])), 0)
        );
        // Up to the moment 3 is exactly `lag` behind: skipped, nothing shrinks.
        walk(&mut data, &mut brokers, now.plus_ms(100));
        assert_eq!(
            (isr(&brokers, &t0), data.quiet_skips),
            (Some(ids(&[1, 2, 3])), 1)
        );
        // A partition with a follower long behind arrives (as a LeaderAndIsr
        // applied would bring it): the next walk is not skipped.
        let mut q = crate::broker::LocalPartition::new(1, 0, &ids(&[1, 2]), &ids(&[1, 2]), 0, 1);
        q.view.set_caught_up(BrokerId(2), SimTime(now.0 - 2 * lag));
        if let Some(b) = brokers.get_mut(&BrokerId(1)) {
            b.replicas.insert(t1.clone(), q);
        }
        data.changed();
        walk(&mut data, &mut brokers, now.plus_ms(50));
        assert_eq!((isr(&brokers, &t1), data.quiet_skips), (Some(ids(&[1])), 1));
        assert_eq!(isr(&brokers, &t0), Some(ids(&[1, 2, 3])));
        // The walk that shrank remembers nothing; the one after it finds
        // nothing and is remembered; past 3's last moment the walk runs and
        // drops it.
        walk(&mut data, &mut brokers, now.plus_ms(60));
        walk(&mut data, &mut brokers, now.plus_ms(100));
        assert_eq!(data.quiet_skips, 2);
        walk(&mut data, &mut brokers, now.plus_ms(101));
        assert_eq!(
            (isr(&brokers, &t0), data.quiet_skips),
            (Some(ids(&[1, 2])), 2)
        );
        assert_eq!(out.isr_shrinks, 2);
    }

    /// The trace of `sim` run to `end`, with every `isr-expiration` walk
    /// made (`every`) or quiet ones skipped, and how many were skippable.
    fn traced(mut sim: crate::sim::Sim, end: SimTime, every: bool) -> (Vec<String>, u64) {
        sim.data_plane_mut_for_test().walk_every_time = every;
        sim.run_until(end);
        let lines = sim.trace().iter().map(|r| format!("{r:?}")).collect();
        (lines, sim.data_plane().quiet_skips)
    }

    #[test]
    fn skipping_quiet_isr_expiration_walks_changes_nothing_in_random_runs() {
        // Kafka: ReplicaManager.maybeShrinkIsr walks every led partition at
        // each isr-expiration run. Random runs go with quiet walks skipped
        // and with every walk made, and their traces are the same record
        // for record: the soak's schedules (kills, pauses, slow brokers,
        // dropped messages, produce traffic, restarts, reassignments on
        // small clusters), then larger clusters whose followers die, pause,
        // slow down and come back while the other sessions idle, with
        // session timeouts and lags drawn long and short (where the skip
        // applies most).
        let mut skipped = 0;
        for seed in 0..150 {
            let s = crate::soak::generate::generate(seed);
            let end = SimTime(s.last_action_ms() + 40_000);
            let ((skipping, n), (walking, _)) =
                (traced(s.build(), end, false), traced(s.build(), end, true));
            assert_eq!(skipping, walking, "soak seed {seed}");
            skipped += n;
        }
        let soak_skipped = skipped;
        for seed in 0..80 {
            let mut rng = crate::rng::Rng::new(seed);
            let brokers = rng.between(4, 7) as u32;
            let partitions = rng.between(30, 120) as u32;
            let Ok(mut s) = crate::bench::cluster(seed, brokers, partitions, 3) else {
                panic!("cluster {seed}");
            };
            // Dead followers go unnoticed by the controller for longer.
            s.config.zookeeper_session_timeout_ms = rng.between(6_000, 40_000);
            s.config.replica_lag_time_max_ms = rng.between(4_000, 30_000);
            let mut sim = s.build();
            let mut at = 15_000;
            for _ in 0..rng.between(3, 7) {
                at += rng.between(500, 12_000);
                let broker = BrokerId(rng.below(u64::from(brokers)) as u32);
                let action = match rng.below(6) {
                    0 | 1 => crate::action::Action::KillBroker { broker },
                    2 => crate::action::Action::StartBroker { broker },
                    3 => crate::action::Action::PauseBroker {
                        broker,
                        duration_ms: rng.between(2_000, 16_000),
                    },
                    4 => crate::action::Action::SlowBroker {
                        broker,
                        lag_ms: rng.between(1_000, 14_000),
                    },
                    _ => crate::action::Action::Produce {
                        topic: "big".into(),
                        partition: rng.below(u64::from(partitions)) as u32,
                        records: 3,
                        acks: Acks::All,
                    },
                };
                // An action the cluster refuses (a broker already up) is left out.
                let _ = sim.schedule_action(SimTime(at), action);
            }
            let end = SimTime(at + 40_000);
            let ((skipping, n), (walking, _)) =
                (traced(sim.clone(), end, false), traced(sim, end, true));
            assert_eq!(skipping, walking, "cluster seed {seed}");
            skipped += n;
        }
        assert!(
            soak_skipped >= 10 && skipped >= soak_skipped + 50,
            "walks skipped: {soak_skipped} in the soak's runs, {skipped} in all"
        );
    }

    #[test]
    fn broker_tasks_come_back_as_follow_ups_for_that_start_of_the_broker() {
        let (config, mut zk, mut out) = (Config::default(), Zk::new(), Outbox::default());
        let mut b = Broker::new(BrokerId(1));
        b.incarnation = 2;
        let mut brokers = BTreeMap::from([(BrokerId(1), b)]);
        let mut data = DataPlane::default();
        data.start_broker_tasks(
            &mut env(&config, &mut brokers, &mut zk, &mut out),
            BrokerId(1),
        );
        let task = |task| FollowUp::Task {
            broker: BrokerId(1),
            incarnation: 2,
            task,
        };
        assert_eq!(
            out.follow_ups,
            vec![
                (
                    SimTime(1_000 + config.replica_lag_time_max_ms / 2),
                    task(BrokerTask::IsrExpiration)
                ),
                (
                    SimTime(1_000 + ISR_PROPAGATION_CHECK_MS),
                    task(BrokerTask::IsrChangePropagation)
                ),
            ]
        );
    }
}
