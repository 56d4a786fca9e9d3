//! Kafka's `ReplicaFetcherThread` (and `AbstractFetcherThread`): one fetch
//! session per (follower, leader broker) pair, a round every
//! `replica.fetch.wait.max.ms` or at once when the leader gets new records,
//! slowed by a `slow_broker` fault; each round truncates the follower to
//! where its log agrees with the leader's (what OffsetsForLeaderEpoch finds)
//! and copies the rest.
//!
//! Rounds are incremental, as with Kafka 1.1+'s fetch sessions (KIP-227,
//! `FetchSession`/`FetchSessionHandler`): after a full round that finds
//! every partition of the session level and the follower in every ISR, the
//! session is cached ([`SessionCache`]) and a round replicates only the
//! partitions marked dirty since (new records, a high watermark that moved);
//! an idle round does no work per partition.
//!
//! Modelling note — `lastCaughtUpTimeMs`. In Kafka every fetch of a caught-up
//! follower sets, per partition, the leader's `Replica.lastCaughtUpTimeMs`
//! (`Replica.updateFetchState`), and `Partition.maybeShrinkIsr` compares it
//! with `replica.lag.time.max.ms`. Here an idle partition of a cached session
//! is caught up at every round by construction, so the session keeps one
//! time for all of them (`caught_up_at`, its last round with the leader up)
//! and the leader's per-partition `last_caught_up` is the later of what it
//! recorded and that time ([`DataPlane::caught_up_walk`]). The per-partition
//! value is written back when the cache closes: a LeaderAndIsr or
//! StopReplica applied by either broker, an ISR shrink of the follower, the
//! follower stopping, a partition leaving the ISR. A restarted leader has
//! lost its view, and nothing is written back. `isr-expiration` skips its
//! per-partition scan when the leader's cached, recent sessions account for
//! every (partition, ISR follower) pair it leads. The times are exactly
//! those full fetches give (`DataPlane::set_full_fetches_only` runs the
//! same story the old way, and the stories compare the traces).

use super::partition::FollowerFetch;
use super::{DataPlane, Env, FollowUp, FETCH_WAIT_MAX_MS};
use crate::broker::{BrokerStatus, LocalPartition};
use crate::ids::{BrokerId, TopicPartition};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::sync::Arc;

/// What a leader caches of an incremental fetch session (KIP-227's
/// `FetchSession`), once a full round found every partition in it idle.
///
/// Invariant while it exists: every member the leader leads has the
/// follower in its ISR, and a round would change nothing for a member
/// outside `dirty` except setting the follower's `lastCaughtUpTimeMs` to the
/// round's time. So a round replicates only `dirty`, and the follower's
/// last-caught-up time for every other member is `caught_up_at`, computed
/// when read ([`DataPlane::caught_up_walk`]) or written back when the cache
/// closes. Whatever could break the invariant closes the cache (a
/// LeaderAndIsr or StopReplica on either broker, an ISR shrink, a restart)
/// or marks the partition dirty (a produce, a high watermark that moved).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionCache {
    /// The follower's start the cache belongs to.
    follower_incarnation: u32,
    /// The leader's start the cache belongs to.
    leader_incarnation: u32,
    /// The partitions the follower fetches from the leader, sorted (shared,
    /// not copied, by the timeline's snapshots).
    #[serde(with = "shared_list")]
    members: Arc<[TopicPartition]>,
    /// How many members the leader leads (each with the follower in its ISR).
    led: u64,
    /// The session's last round (with the leader up): every member was
    /// caught up then.
    caught_up_at: SimTime,
    /// Members the next round must replicate.
    dirty: BTreeSet<TopicPartition>,
    /// Whether the session is parked ([`super::park`]): its last round is
    /// then at most one round's interval ago.
    #[serde(default)]
    parked: bool,
    /// Whether a partition of the session changed since its last round (a
    /// LeaderAndIsr or StopReplica applied by either broker): the next
    /// round is a full one, but the members still in the cache skip it (see
    /// [`DataPlane::resync_session_cache`]). `led` is not kept meanwhile,
    /// and `isr-expiration` does not count the session as covering.
    #[serde(default)]
    resync: bool,
    /// The members the leader did not lead at the session's last full
    /// round (sorted): a round does nothing with them, and they stay so
    /// while they are members (the leader taking one is a LeaderAndIsr
    /// that removes it from the cache). `led` and these make up the
    /// members (a cache read back without them, from before they were
    /// kept, is closed at its first change, as all were then).
    #[serde(default)]
    not_led: Vec<TopicPartition>,
    /// The members' partition numbers, as a filter (derived from
    /// `members`: not serialized, not compared).
    #[serde(skip)]
    numbers: NumberMask,
}

/// Which partition numbers, modulo 256, a list of partitions has: two lists
/// whose masks do not meet have no partition in common, which tells most
/// sessions apart from a request's few partitions without reading the
/// session's members. A mask read back from a file (or made by `default`)
/// is full: it may meet anything. Derived data: every mask compares equal.
#[derive(Clone, Copy)]
pub(super) struct NumberMask([u64; 4]);

impl Default for NumberMask {
    fn default() -> NumberMask {
        NumberMask([u64::MAX; 4])
    }
}

equal_whatever_it_holds!(NumberMask);

impl std::fmt::Debug for NumberMask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NumberMask")
    }
}

impl NumberMask {
    /// The mask of `tps`.
    pub(super) fn of<'a>(tps: impl IntoIterator<Item = &'a TopicPartition>) -> NumberMask {
        let mut words = [0u64; 4];
        for tp in tps {
            let n = tp.partition % 256;
            if let Some(w) = words.get_mut(n as usize / 64) {
                *w |= 1 << (n % 64);
            }
        }
        NumberMask(words)
    }

    /// Whether the two lists may have a partition in common.
    pub(super) fn meets(&self, other: &NumberMask) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }
}

impl SessionCache {
    /// Whether `tp` is in the session.
    fn has(&self, tp: &TopicPartition) -> bool {
        self.members.binary_search(tp).is_ok()
    }

    /// The topic's logs went: its members need a real round. Returns
    /// whether the session has any.
    pub(super) fn touch_topic(&mut self, topic: &str) -> bool {
        let mut touched = false;
        for tp in self.members.iter() {
            if tp.topic == topic {
                self.dirty.insert(tp.clone());
                touched = true;
            }
        }
        touched
    }
}

/// A leader's cached sessions, read follower by follower for partitions
/// taken in order ([`DataPlane::caught_up_walk`]).
pub(super) struct CaughtUpWalk<'a> {
    data: &'a DataPlane,
    leader: BrokerId,
    incarnation: u32,
    /// Per follower asked about so far, in the order asked: its session (none without a
    /// cached session of this start of the leader), when the session last
    /// ran (looked up when first needed), and how far the walk is in its
    /// members.
    followers: Vec<(BrokerId, Option<&'a SessionCache>, Option<SimTime>, usize)>,
    /// Each follower's place in `followers` plus one, by id (0: not asked
    /// about yet), for ids below [`PLACES_BY_ID`]: a walk asks about two
    /// followers per partition, and an index is cheaper than a search.
    by_id: Vec<u32>,
}

/// The broker ids [`CaughtUpWalk`] finds by index; larger ones are searched.
const PLACES_BY_ID: usize = 4096;

impl<'a> CaughtUpWalk<'a> {
    /// Where `follower` is in `followers`, its session looked up when it
    /// is first asked about.
    fn place(&mut self, follower: BrokerId) -> usize {
        let id = follower.0 as usize;
        let known = match self.by_id.get(id) {
            Some(&p) => p.checked_sub(1).map(|p| p as usize),
            None if id < PLACES_BY_ID => {
                self.by_id.resize(id + 1, 0);
                None
            }
            None => self.followers.iter().position(|f| f.0 == follower),
        };
        if let Some(i) = known {
            return i;
        }
        let session = self
            .data
            .session_caches
            .get(&(self.leader, follower))
            .filter(|c| c.leader_incarnation == self.incarnation);
        let i = self.followers.len();
        self.followers.push((follower, session, None, 0));
        if let Some(slot) = self.by_id.get_mut(id) {
            *slot = u32::try_from(i + 1).unwrap_or(0);
        }
        i
    }

    /// When `follower` was last caught up with the leader's log of `tp`,
    /// given `recorded`, the time the leader's replica of it records: the
    /// later of that and what a lookup of its session would answer. When
    /// the session's time alone is `enough`, it is the answer and
    /// `recorded` is not read (the leader's view of the replica is not
    /// touched): the later time is as enough. Partitions asked about in
    /// ascending order are found in step; one out of order is searched for.
    pub(super) fn at(
        &mut self,
        recorded: impl FnOnce() -> Option<SimTime>,
        follower: BrokerId,
        tp: &TopicPartition,
        enough: impl FnOnce(SimTime) -> bool,
    ) -> Option<SimTime> {
        let i = self.place(follower);
        let (leader, data) = (self.leader, self.data);
        let Some((_, Some(c), last, from)) = self.followers.get_mut(i) else {
            return recorded();
        };
        let c: &'a SessionCache = c;
        let members = &c.members[..];
        let rest = members.get(*from..).unwrap_or(&[]);
        // In step, the next member is most often `tp` itself.
        let found = if rest.first() == Some(tp) {
            Ok(0)
        } else {
            rest.binary_search(tp)
        };
        let has = match found {
            Ok(j) => {
                *from += j + 1;
                true
            }
            // Before every member left: out of order, so maybe one passed.
            Err(0) if *from > 0 => members
                .get(..*from)
                .unwrap_or(&[])
                .binary_search(tp)
                .is_ok(),
            Err(j) => {
                *from += j;
                false
            }
        };
        if !has {
            return recorded();
        }
        let last = *last.get_or_insert_with(|| data.session_caught_up(leader, follower, c));
        if enough(last) {
            return Some(last);
        }
        recorded().max(Some(last))
    }
}

/// Whether marking `follower` caught up at `at` changes the leader's
/// replica `p`: the leader leads it and has no time for the follower as late.
fn caught_up_needs(p: &LocalPartition, leader: BrokerId, follower: BrokerId, at: SimTime) -> bool {
    p.leader == leader.0 as i32 && p.view.caught_up(&follower).is_none_or(|t| t < at)
}

/// A shared list, (de)serialized as a plain list.
mod shared_list {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::sync::Arc;

    pub fn serialize<T: Serialize, S: Serializer>(v: &Arc<[T]>, s: S) -> Result<S::Ok, S::Error> {
        v[..].serialize(s)
    }

    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Arc<[T]>, D::Error> {
        Vec::<T>::deserialize(d).map(Into::into)
    }
}

/// Where a member of a session stands after a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Member {
    /// The leader does not lead it: a round does nothing with it.
    NotLed,
    /// Level with the leader and in the ISR: a round only marks it caught up.
    Idle,
    /// In the ISR, but the next round has something to copy or tell.
    Pending,
    /// Out of the ISR: every round tries to expand it.
    OutOfIsr,
}

impl DataPlane {
    /// Make sure `follower` has a fetch round from `leader` coming, at the
    /// latest after `rtt_factor` network hops. A slowed (or cut-off) follower
    /// waits its extra lag first, its first round included: a follower that
    /// cannot fetch does not fetch once just because it starts following a
    /// new leader.
    pub(super) fn ensure_fetch_session(
        &mut self,
        env: &mut Env,
        follower: BrokerId,
        leader: BrokerId,
        rtt_factor: u64,
    ) {
        self.wake(follower, leader);
        let lag = self.slow_lag(follower);
        let at = env
            .now
            .plus_ms((env.config.sim_network_latency_ms * rtt_factor + 1).saturating_add(lag));
        match self.fetch_sessions.get(&(follower, leader)) {
            Some(t) if *t <= at => {}
            _ => {
                self.fetch_sessions.insert((follower, leader), at);
                env.out.schedule(at, FollowUp::Fetch { follower, leader });
            }
        }
    }

    /// One fetch round of `follower` from `leader` for every partition it
    /// follows there: a full fetch, or an incremental one (KIP-227) that
    /// replicates only what changed while the session's cache holds.
    pub fn fetch(&mut self, env: &mut Env, follower: BrokerId, leader: BrokerId) {
        self.changed_for(leader);
        let now = env.now;
        match self.parking.rounds((follower, leader)) {
            // An earlier event of the session, due at the same moment as its
            // parked round but before it in the queue, runs the round.
            Some((next, _)) if next == now => {
                self.unpark(follower, leader, false);
            }
            Some(_) => return, // superseded by its parked rounds
            None => match self.fetch_sessions.get(&(follower, leader)) {
                Some(t) if *t == now => {}
                // The round was due while the follower was paused: its event
                // was held and comes now (a GC pause only delays the fetcher
                // thread). Without this the session kept a due time in the
                // past and no later round was ever scheduled.
                Some(t) if *t < now => {}
                _ => return, // superseded by a sooner or later round
            },
        }
        let Some(f) = env.brokers.get(&follower).filter(|b| b.is_up()) else {
            self.close_session_cache(env, leader, follower);
            self.fetch_sessions.remove(&(follower, leader));
            return;
        };
        let follower_incarnation = f.incarnation;
        let leader_incarnation = env.incarnation(leader);
        let leader_up = env.brokers.get(&leader).is_some_and(|b| match b.status {
            BrokerStatus::Running | BrokerStatus::ShuttingDown => true,
            BrokerStatus::Starting | BrokerStatus::Paused | BrokerStatus::Dead => false,
        });
        let (cached, resync) = match self.session_caches.get(&(leader, follower)) {
            Some(c) => (
                !self.full_fetches_only
                    && c.follower_incarnation == follower_incarnation
                    && c.leader_incarnation == leader_incarnation,
                c.resync,
            ),
            None => (false, false),
        };
        let mut idle = false;
        if cached && !resync {
            if leader_up {
                self.incremental_round(env, follower, leader);
                idle = self
                    .session_caches
                    .get(&(leader, follower))
                    .is_some_and(|c| c.dirty.is_empty());
            }
        } else {
            // A cache kept through a change is taken out for the round (the
            // full round sees no cache, as after a close); any other closes.
            let kept = if cached {
                self.session_caches.remove(&(leader, follower))
            } else {
                self.close_session_cache(env, leader, follower);
                None
            };
            let following: Vec<TopicPartition> = env
                .brokers
                .get(&follower)
                .map(|f| {
                    f.replicas
                        .iter()
                        .filter(|(_, p)| p.leader == leader.0 as i32)
                        .map(|(tp, _)| tp.clone())
                        .collect()
                })
                .unwrap_or_default();
            if following.is_empty() || !leader_up {
                // What the close would have written back.
                if let Some(c) = &kept {
                    Self::mark_all_caught_up(env, leader, follower, &c.members, c.caught_up_at);
                }
            }
            if following.is_empty() {
                self.fetch_sessions.remove(&(follower, leader));
                return;
            }
            if leader_up {
                let (known, skipped) = match &kept {
                    Some(c) => self.resync_round(env, follower, leader, &following, c),
                    None => (
                        following
                            .iter()
                            .map(|tp| self.replicate(env, follower, leader, tp))
                            .collect(),
                        Vec::new(),
                    ),
                };
                self.open_session_cache(
                    env,
                    follower,
                    leader,
                    following,
                    &known,
                    (follower_incarnation, leader_incarnation),
                );
                if !skipped.is_empty() && !self.session_caches.contains_key(&(leader, follower)) {
                    // No cache now: the skipped members are written as the
                    // full round would have written them.
                    Self::mark_all_caught_up(env, leader, follower, &skipped, now);
                }
                idle = self
                    .session_caches
                    .get(&(leader, follower))
                    .is_some_and(|c| c.dirty.is_empty());
            }
        }
        let lag = self.slow_lag(follower);
        let every = FETCH_WAIT_MAX_MS.saturating_add(lag);
        let next = now.plus_ms(every);
        self.fetch_sessions.insert((follower, leader), next);
        if idle {
            // Nothing marked: the next rounds only move `caught_up_at`.
            if let Some(c) = self.session_caches.get_mut(&(leader, follower)) {
                c.parked = true;
            }
            env.out.schedule(
                next,
                FollowUp::Park {
                    follower,
                    leader,
                    every,
                },
            );
        } else {
            env.out.schedule(next, FollowUp::Fetch { follower, leader });
        }
    }

    /// The full round of a session whose cache was kept through a change
    /// (`c`, taken out of the map): each of `following` still in the cache
    /// and not marked is idle and skipped (the new cache gives it this
    /// round's time); every other is replicated, an old member after its
    /// cached time is written back (as a close writes it). Members gone from
    /// `following` get their cached time too. Returns where each of
    /// `following` stands ([`DataPlane::replicate`]) and the skipped ones.
    fn resync_round(
        &mut self,
        env: &mut Env,
        follower: BrokerId,
        leader: BrokerId,
        following: &[TopicPartition],
        c: &SessionCache,
    ) -> (Vec<Option<Member>>, Vec<TopicPartition>) {
        let at = c.caught_up_at;
        let mut known = Vec::with_capacity(following.len());
        let mut skipped = Vec::new();
        let mut left = Vec::new();
        let members = &c.members[..];
        let mut i = 0;
        for tp in following {
            while let Some(m) = members.get(i).filter(|m| *m < tp) {
                left.push(m.clone());
                i += 1;
            }
            let member = members.get(i).is_some_and(|m| m == tp);
            if member {
                i += 1;
            }
            if member && !c.dirty.contains(tp) {
                if c.not_led.binary_search(tp).is_ok() {
                    // Still not led: the round does nothing with it.
                    known.push(Some(Member::NotLed));
                    continue;
                }
                known.push(Some(Member::Idle));
                skipped.push(tp.clone());
                continue;
            }
            if member {
                self.mark_caught_up(env, leader, follower, tp, at);
            }
            known.push(self.replicate(env, follower, leader, tp));
        }
        for m in members.get(i..).unwrap_or(&[]) {
            left.push(m.clone());
        }
        Self::mark_all_caught_up(env, leader, follower, &left, at);
        (known, skipped)
    }

    /// Take a parked session out of the parking, writing down its true next
    /// and last rounds; with `queue`, its next round is queued at its place.
    fn unpark(&mut self, follower: BrokerId, leader: BrokerId, queue: bool) {
        self.changed_for(leader);
        let rounds = if queue {
            self.parking.wake((follower, leader))
        } else {
            let r = self.parking.rounds((follower, leader));
            self.parking.unpark((follower, leader));
            r
        };
        let Some((next, last)) = rounds else {
            return;
        };
        self.fetch_sessions.insert((follower, leader), next);
        if let Some(c) = self.session_caches.get_mut(&(leader, follower)) {
            c.caught_up_at = last;
            c.parked = false;
        }
    }

    /// If the session is parked, queue its next round at its place: whatever
    /// is about to change it finds it as an unparked session would be.
    pub(super) fn wake(&mut self, follower: BrokerId, leader: BrokerId) {
        self.unpark(follower, leader, true);
    }

    /// When a cached session's last round was (a parked one's is computed).
    fn session_caught_up(&self, leader: BrokerId, follower: BrokerId, c: &SessionCache) -> SimTime {
        if !c.parked {
            // Only a session marked parked is ever in the parking.
            return c.caught_up_at;
        }
        self.parking
            .last_round((follower, leader))
            .unwrap_or(c.caught_up_at)
    }

    /// A round of a cached session: replicate the dirty members; every
    /// other member is caught up as of now without being touched.
    fn incremental_round(&mut self, env: &mut Env, follower: BrokerId, leader: BrokerId) {
        let now = env.now;
        let key = (leader, follower);
        let Some(c) = self.session_caches.get_mut(&key) else {
            return;
        };
        let dirty = std::mem::take(&mut c.dirty);
        let before = c.caught_up_at;
        let mut known = Vec::with_capacity(dirty.len());
        for tp in &dirty {
            // Caught up as of the last round, as a full fetch would have recorded.
            self.mark_caught_up(env, leader, follower, tp, before);
            known.push(self.replicate(env, follower, leader, tp));
        }
        let mut pending = Vec::new();
        let mut out_of_isr = false;
        for (tp, known) in dirty.iter().zip(known) {
            match known.unwrap_or_else(|| self.member(env, follower, leader, tp)) {
                Member::NotLed | Member::Idle => {}
                Member::Pending => pending.push(tp.clone()),
                Member::OutOfIsr => out_of_isr = true,
            }
        }
        if out_of_isr {
            // Back to full rounds; every member was caught up now.
            if let Some(c) = self.session_caches.remove(&key) {
                Self::mark_all_caught_up(env, leader, follower, &c.members, now);
            }
        } else if let Some(c) = self.session_caches.get_mut(&key) {
            c.caught_up_at = now;
            c.dirty.extend(pending);
        }
    }

    /// After a full round with the leader up: cache the session if no
    /// member is out of the ISR. `known` says where members stand, where
    /// the round saw it ([`DataPlane::replicate`]).
    fn open_session_cache(
        &mut self,
        env: &Env,
        follower: BrokerId,
        leader: BrokerId,
        members: Vec<TopicPartition>,
        known: &[Option<Member>],
        (follower_incarnation, leader_incarnation): (u32, u32),
    ) {
        if self.full_fetches_only {
            return;
        }
        let mut led = 0;
        let mut dirty = BTreeSet::new();
        let mut not_led = Vec::new();
        for (i, tp) in members.iter().enumerate() {
            let seen = known.get(i).copied().flatten();
            match seen.unwrap_or_else(|| self.member(env, follower, leader, tp)) {
                Member::NotLed => not_led.push(tp.clone()),
                Member::Idle => led += 1,
                Member::Pending => {
                    led += 1;
                    dirty.insert(tp.clone());
                }
                Member::OutOfIsr => return,
            }
        }
        self.session_caches.insert(
            (leader, follower),
            SessionCache {
                follower_incarnation,
                leader_incarnation,
                numbers: NumberMask::of(&members),
                members: members.into(),
                led,
                caught_up_at: env.now,
                dirty,
                parked: false,
                resync: false,
                not_led,
            },
        );
    }

    /// Where a member stands: what the next round would do with it.
    fn member(
        &self,
        env: &Env,
        follower: BrokerId,
        leader: BrokerId,
        tp: &TopicPartition,
    ) -> Member {
        let Some(p) = env.brokers.get(&leader).and_then(|b| b.replicas.get(tp)) else {
            return Member::NotLed;
        };
        if p.leader != leader.0 as i32 {
            return Member::NotLed;
        }
        if !p.isr_contains(&follower) {
            return Member::OutOfIsr;
        }
        let (Some(l), Some(f)) = (self.log(leader, tp), self.log(follower, tp)) else {
            return Member::Pending;
        };
        let leo = f.log_end_offset();
        let level = leo == l.log_end_offset() && f.records.last() == l.records.last();
        let idle = level
            && f.high_watermark >= l.high_watermark.min(leo)
            && p.view.leo(&follower) == Some(leo);
        if idle {
            Member::Idle
        } else {
            Member::Pending
        }
    }

    /// Write a cached session's last-caught-up time into the leader's view
    /// of the partition (what a full round would have written). A replica
    /// whose recorded time is already as late is left alone (and its chunk
    /// of the leader's map shared).
    fn mark_caught_up(
        &self,
        env: &mut Env,
        leader: BrokerId,
        follower: BrokerId,
        tp: &TopicPartition,
        at: SimTime,
    ) {
        let needs = |p: &LocalPartition| caught_up_needs(p, leader, follower, at);
        if let Some(p) = env
            .brokers
            .get_mut(&leader)
            .and_then(|b| b.replicas.get_mut_if(tp, needs))
        {
            p.view.set_caught_up(follower, at);
        }
    }

    /// [`DataPlane::mark_caught_up`] for every one of `tps` (sorted), in one
    /// walk of the leader's replicas.
    fn mark_all_caught_up(
        env: &mut Env,
        leader: BrokerId,
        follower: BrokerId,
        tps: &[TopicPartition],
        at: SimTime,
    ) {
        if let Some(b) = env.brokers.get_mut(&leader) {
            b.replicas.update_sorted(
                tps.iter(),
                |p| caught_up_needs(p, leader, follower, at),
                |p| {
                    p.view.set_caught_up(follower, at);
                },
            );
        }
    }

    /// Close a session's cache, writing back what it kept lazily.
    pub(super) fn close_session_cache(
        &mut self,
        env: &mut Env,
        leader: BrokerId,
        follower: BrokerId,
    ) {
        self.wake(follower, leader);
        let Some(c) = self.session_caches.remove(&(leader, follower)) else {
            return;
        };
        if c.leader_incarnation != env.incarnation(leader) {
            return; // the leader restarted: its view of the partitions is gone
        }
        Self::mark_all_caught_up(env, leader, follower, &c.members, c.caught_up_at);
    }

    /// Close every session cache in which `broker` is the leader or the
    /// follower and that holds one of `tps`.
    ///
    /// `taken` says the request is a LeaderAndIsr that `broker` took for
    /// each of `tps`: each it leads now has its leader's view reset next
    /// ([`DataPlane::become_leader`]), and the others it no longer leads, so
    /// the sessions it leads need not write their times back into them.
    pub(super) fn close_session_caches_holding(
        &mut self,
        env: &mut Env,
        broker: BrokerId,
        tps: &[&TopicPartition],
        taken: bool,
    ) {
        // Whether a cache and `tps` meet: each member's partition number is
        // looked up in a bitmap of `tps`' numbers first (members of other
        // partitions, most of them, cost one load), then found in `tps`.
        let mut sorted_tps;
        let tps: &[&TopicPartition] = if tps.is_sorted() {
            tps
        } else {
            sorted_tps = tps.to_vec();
            sorted_tps.sort();
            &sorted_tps
        };
        let highest = tps.iter().map(|tp| tp.partition).max().unwrap_or(0);
        let numbers: Option<Vec<u64>> = (highest < 1 << 20).then(|| {
            let mut bits = vec![0u64; highest as usize / 64 + 1];
            for tp in tps {
                bits[tp.partition as usize / 64] |= 1 << (tp.partition % 64);
            }
            bits
        });
        let may_hold = |tp: &TopicPartition| {
            numbers.as_ref().is_none_or(|bits| {
                bits.get(tp.partition as usize / 64)
                    .is_some_and(|w| (w >> (tp.partition % 64)) & 1 == 1)
            })
        };
        // When every one of `tps` is of one topic (a request's partitions
        // mostly are), the bitmap of their numbers answers alone.
        let one_topic = tps
            .first()
            .map(|f| &f.topic)
            .filter(|t| numbers.is_some() && tps.iter().all(|tp| tp.topic == **t));
        let holds = |m: &TopicPartition| match one_topic {
            // The bitmap first: most members of a large session are not
            // among `tps`, and a topic's name is compared only after.
            Some(t) => may_hold(m) && m.topic == *t,
            None => may_hold(m) && tps.binary_search(&m).is_ok(),
        };
        let mask = NumberMask::of(tps.iter().copied());
        // The member loop chosen once per cache, not per member: `holds`
        // called per member instead (as `resync_session_cache` calls it)
        // made a 100 x 200,000 failover 3 % dearer, so its two tests are
        // written out again in each branch.
        let meets = |c: &SessionCache| {
            c.numbers.meets(&mask)
                && match one_topic {
                    Some(t) => c.members.iter().any(|m| may_hold(m) && m.topic == *t),
                    None => c
                        .members
                        .iter()
                        .any(|m| may_hold(m) && tps.binary_search(&m).is_ok()),
                }
        };
        // The sessions `broker` leads, then the one it follows from each
        // other leader (skipping from leader to leader), in key order.
        let mut keys: Vec<(BrokerId, BrokerId)> = self
            .session_caches
            .range((broker, BrokerId(0))..=(broker, BrokerId(u32::MAX)))
            .filter(|(_, c)| meets(c))
            .map(|(k, _)| *k)
            .collect();
        // A cached session always has its round due (`fetch_sessions`: a
        // round that drops the due time closes the cache first), so the
        // leaders `broker` fetches from are read there, in order.
        for &(_, l) in self
            .fetch_sessions
            .range((broker, BrokerId(0))..=(broker, BrokerId(u32::MAX)))
            .map(|(k, _)| k)
        {
            if l != broker {
                if let Some(c) = self.session_caches.get(&(l, broker)) {
                    if meets(c) {
                        keys.push((l, broker));
                    }
                }
            }
        }
        keys.sort_unstable();
        for (l, f) in keys {
            self.resync_session_cache(env, l, f, &holds, !(taken && l == broker));
        }
    }

    /// A change applied by the leader or the follower (a LeaderAndIsr or a
    /// StopReplica) touched the session: KIP-227's sessions add and remove
    /// partitions rather than start over (`FetchSession.update`). The
    /// members `changed` says (the partitions the request changed) leave
    /// the cache, their last-caught-up time written back as a close would
    /// (unless `write_back` says the leader's views of them are reset or
    /// not led);
    /// the others stay, and the next round, a full one, skips them: by the
    /// cache's invariant each is idle, so a full round would only have set
    /// its time, which the cache still gives lazily; a member the leader
    /// did not lead (`not_led`) still is not, and a round does nothing with
    /// it. Without that invariant to lean on (another start, full fetches
    /// only, a cache read back without its `not_led`) the cache is closed
    /// as before.
    pub(super) fn resync_session_cache(
        &mut self,
        env: &mut Env,
        leader: BrokerId,
        follower: BrokerId,
        changed: &dyn Fn(&TopicPartition) -> bool,
        write_back: bool,
    ) {
        self.wake(follower, leader);
        let key = (leader, follower);
        let keep = self.session_caches.get(&key).is_some_and(|c| {
            !self.full_fetches_only
                && c.leader_incarnation == env.incarnation(leader)
                && c.follower_incarnation == env.incarnation(follower)
                && (c.resync || c.led + c.not_led.len() as u64 == c.members.len() as u64)
        });
        if !keep {
            self.close_session_cache(env, leader, follower);
            return;
        }
        let Some(c) = self.session_caches.get_mut(&key) else {
            return;
        };
        c.resync = true;
        if !c.members.iter().any(changed) {
            return;
        }
        let (mut gone, mut kept) = (Vec::new(), Vec::with_capacity(c.members.len()));
        for m in c.members.iter() {
            if changed(m) {
                gone.push(m.clone());
            } else {
                kept.push(m.clone());
            }
        }
        c.members = kept.into();
        if !c.not_led.is_empty() {
            c.not_led.retain(|m| !changed(m));
        }
        if write_back {
            let at = c.caught_up_at;
            Self::mark_all_caught_up(env, leader, follower, &gone, at);
        }
    }

    /// The partition's records or high watermark at `leader` changed: the
    /// sessions of its followers replicate it next round.
    pub(super) fn touch(&mut self, leader: BrokerId, tp: &TopicPartition, replicas: &[BrokerId]) {
        self.changed_for(leader);
        for r in replicas {
            if *r == leader {
                continue;
            }
            if let Some(c) = self.session_caches.get_mut(&(leader, *r)) {
                if c.has(tp) {
                    c.dirty.insert(tp.clone());
                    self.wake(*r, leader);
                }
            }
        }
    }

    /// When followers were last caught up with `leader`'s logs, as the
    /// leader's `lastCaughtUpTimeMs` for them: what the leader recorded, or
    /// later, what a cached session holds for all its members. The walk is
    /// for partitions asked about in order ([`CaughtUpWalk::at`]); each
    /// follower's session is looked up once.
    ///
    /// `incarnation` is the leader's start, as `env.brokers[leader]` holds it.
    pub(super) fn caught_up_walk(&self, leader: BrokerId, incarnation: u32) -> CaughtUpWalk<'_> {
        CaughtUpWalk {
            data: self,
            leader,
            incarnation,
            followers: Vec::new(),
            by_id: Vec::new(),
        }
    }

    /// The (partition, follower) pairs `leader` leads whose follower a
    /// cached session shows caught up within `lag` of now.
    pub(super) fn covered_slots(&self, env: &Env, leader: BrokerId, lag: u64) -> u64 {
        let incarnation = env.incarnation(leader);
        self.session_caches
            .range((leader, BrokerId(0))..=(leader, BrokerId(u32::MAX)))
            .filter(|((_, f), c)| {
                c.leader_incarnation == incarnation
                    && !c.resync
                    && if c.parked && FETCH_WAIT_MAX_MS.saturating_add(self.slow_lag(*f)) <= lag {
                        // Its last round is at most one interval ago (its next
                        // is not before now): no need to look it up.
                        true
                    } else {
                        env.now.since(self.session_caught_up(leader, *f, c)) <= lag
                    }
            })
            .map(|(_, c)| c.led)
            .sum()
    }

    /// Bring `follower`'s log of `tp` level with `leader`'s, and tell the
    /// leader. Returns where the member stands after it ([`Member`]) when
    /// the round saw it already (not led; or level, in the ISR and with
    /// nothing to tell the leader but the time); `None` otherwise.
    fn replicate(
        &mut self,
        env: &mut Env,
        follower: BrokerId,
        leader: BrokerId,
        tp: &TopicPartition,
    ) -> Option<Member> {
        let leads = env
            .brokers
            .get(&leader)
            .and_then(|b| b.replicas.get(tp))
            .is_some_and(|p| p.leader == leader.0 as i32);
        if !leads {
            return Some(Member::NotLed);
        }
        self.partitions_fetched += 1;
        let lkey = (leader, tp.clone());
        let fkey = (follower, tp.clone());
        let (leader_leo, hw, leader_last, leader_log) = match self.logs.get(&lkey) {
            Some(l) => (
                l.log_end_offset(),
                l.high_watermark,
                l.records.last().copied(),
                true,
            ),
            None => (0, 0, None, false),
        };
        // The follower's log, looked up once when it is level with the
        // leader's and knows its high watermark (the common case).
        let level = |f: &crate::log::Log| f.high_watermark >= hw.min(f.log_end_offset());
        let (in_sync, settled) = match self.logs.get(&fkey) {
            Some(f)
                if f.log_end_offset() == leader_leo && f.records.last().copied() == leader_last =>
            {
                (true, level(f).then(|| f.log_end_offset()))
            }
            _ => (false, None),
        };
        if !in_sync {
            // Truncate to where the logs agree, then copy what the leader has beyond.
            let leader_log = self.logs.get(&lkey).cloned().unwrap_or_default();
            let flog = self.logs.get_or_insert_with(fkey.clone(), Default::default);
            let keep = flog.common_prefix(&leader_log);
            let dropped = flog.truncate_to(keep);
            flog.records
                .extend_from_slice(&leader_log.records[keep as usize..]);
            if !dropped.is_empty() {
                env.out.note(
                    crate::trace::Label::numbered("broker-", follower.0),
                    "log_truncated",
                    crate::fact::Fact::LogTruncated {
                        tp: tp.clone(),
                        follower,
                        dropped: dropped.len() as u64,
                        offset: keep,
                        leader,
                    },
                );
            }
        }
        // The follower's high watermark moves up to the leader's (as far as
        // its log reaches); its log is written (and its chunk copied) only
        // when something changes.
        let leo = match settled {
            Some(leo) => leo,
            None => {
                let flog = self.logs.get_or_insert_with(fkey, Default::default);
                let leo = flog.log_end_offset();
                flog.high_watermark = flog.high_watermark.max(hw.min(leo));
                leo
            }
        };
        let fetched = FollowerFetch {
            follower,
            leo,
            leader_leo,
            leader_hw: hw,
        };
        // Level before the round and the leader's view up to date: the
        // member is idle (what `member` would find), unless the leader has
        // no log of it.
        let idle =
            self.follower_fetched(env, leader, tp, fetched) && settled.is_some() && leader_log;
        idle.then_some(Member::Idle)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mask never says two lists are apart when they share a partition
    /// (checked against the lists themselves), and it does tell apart lists
    /// whose numbers differ modulo 256.
    #[test]
    fn number_masks_meet_whenever_the_lists_share_a_partition() {
        let mut seed = 7u64;
        let mut next = move |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for _ in 0..2_000 {
            let mut list = |len: u64| -> Vec<TopicPartition> {
                let mut v: Vec<TopicPartition> = (0..next(len))
                    .map(|_| {
                        let topic = if next(2) == 0 { "a" } else { "b" };
                        TopicPartition::new(topic, next(2_000) as u32)
                    })
                    .collect();
                v.sort();
                v.dedup();
                v
            };
            let (a, b) = (list(12), list(12));
            let share = a.iter().any(|tp| b.binary_search(tp).is_ok());
            let (ma, mb) = (NumberMask::of(&a), NumberMask::of(&b));
            if share {
                assert!(ma.meets(&mb) && mb.meets(&ma), "{a:?} {b:?}");
            }
            let apart = a
                .iter()
                .all(|x| b.iter().all(|y| x.partition % 256 != y.partition % 256));
            assert_eq!(ma.meets(&mb), !apart, "{a:?} {b:?}");
            assert!(NumberMask::default().meets(&mb) || b.is_empty());
        }
        // Read back (or defaulted), a mask is full; every mask compares equal.
        assert_eq!(NumberMask::default(), NumberMask::of(&[]));
        assert!(!NumberMask::of(&[]).meets(&NumberMask::default()));
    }
}
