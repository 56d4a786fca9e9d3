//! Parked fetch sessions: an idle cached session (KIP-227, nothing marked)
//! has no event in the simulator's queue; its rounds happen "virtually".
//!
//! A round of an idle cached session only moves the session's last-caught-up
//! time and schedules the next round `replica.fetch.wait.max.ms` (plus a slow
//! broker's lag) later. Rather than one queue event per session per round,
//! such a session is *parked*: it keeps the place in the queue its next round
//! would have had, and its last round is computed when read. Whatever could
//! make a round do more (a mark, a closed cache, a new round scheduled
//! sooner, a slowed follower, a broker that stops, pauses or restarts) wakes
//! it first: its round goes into the queue at exactly the place it would
//! have had, and runs as before.
//!
//! The place. The queue is ordered by (time, push order). A real push takes
//! the next number of the simulator's counter (`seq`); a virtual push (a
//! parked round scheduling its next one) takes `(seq, sub)`, the next of a
//! second counter that restarts at each real push: it sorts after every
//! real push before it and before every real push after it, as the real
//! push would have. Parked sessions whose next rounds are at the same time,
//! with the same interval and in consecutive places form a [`Group`]; the
//! simulator advances groups (a virtual round each) in queue order before it
//! processes anything after them, so a group costs one step per round
//! however many sessions it holds. See `core/docs/data-plane.md`.

use crate::ids::BrokerId;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A place in the simulator's event queue: (time, real push number, virtual
/// push number after it; 0 for a real push).
pub type QueueKey = (SimTime, u64, u64);

/// A session: (follower, leader).
type Session = (BrokerId, BrokerId);

/// Parked sessions whose next rounds are consecutive in the queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Group {
    /// When the next round of every member is due.
    next: SimTime,
    /// Milliseconds between rounds.
    every: u64,
    /// The members' real push number: member `i` is at `(next, base, start + i)`.
    base: u64,
    /// The first member's virtual push number.
    start: u64,
    /// The members, in queue order.
    members: Vec<Session>,
}

impl Group {
    fn key(&self) -> QueueKey {
        (self.next, self.base, self.start)
    }

    /// Whether `other` (advanced after it) follows it directly in the queue.
    fn followed_by(&self, other: &Group) -> bool {
        self.next == other.next
            && self.every == other.every
            && self.base == other.base
            && self.start + self.members.len() as u64 == other.start
    }
}

/// The parked sessions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parking {
    /// Group ids by the place of their first member.
    by_key: BTreeMap<QueueKey, u64>,
    /// The groups, by id.
    groups: BTreeMap<u64, Group>,
    /// Each parked session's group.
    member_of: BTreeMap<Session, u64>,
    /// The next group id.
    next_id: u64,
    /// Sessions woken since the simulator last looked, with their round's
    /// place (the simulator queues them at once).
    #[serde(skip)]
    woken: Vec<(QueueKey, Session)>,
}

impl Parking {
    /// How many sessions are parked.
    pub fn len(&self) -> usize {
        self.member_of.len()
    }

    /// Whether no session is parked.
    pub fn is_empty(&self) -> bool {
        self.member_of.is_empty()
    }

    /// Park `session`, whose next round is at `key` (a virtual push just
    /// made), every `every` ms.
    pub fn park(&mut self, session: Session, key: QueueKey, every: u64) {
        let (next, base, start) = key;
        let g = Group {
            next,
            every,
            base,
            start,
            members: vec![session],
        };
        if let Some((_, &id)) = self.by_key.range(..key).next_back() {
            if let Some(prev) = self.groups.get_mut(&id) {
                if prev.followed_by(&g) {
                    prev.members.push(session);
                    self.member_of.insert(session, id);
                    return;
                }
            }
        }
        let id = self.next_id;
        self.next_id += 1;
        self.by_key.insert(key, id);
        self.groups.insert(id, g);
        self.member_of.insert(session, id);
    }

    /// When a parked session's next round is due, and when its last round was.
    pub(super) fn rounds(&self, session: Session) -> Option<(SimTime, SimTime)> {
        let g = self.groups.get(self.member_of.get(&session)?)?;
        Some((g.next, SimTime(g.next.0.saturating_sub(g.every))))
    }

    /// When a parked session's last round was.
    pub(super) fn last_round(&self, session: Session) -> Option<SimTime> {
        self.rounds(session).map(|(_, last)| last)
    }

    /// Take `session` out of its group; returns the place of its next round.
    /// The group splits in two around it: the smaller part moves to a new
    /// group (its members' group ids are rewritten), the larger one keeps
    /// the group, so waking sessions one by one out of a large group costs
    /// the smaller side each time, not the whole tail.
    pub(super) fn unpark(&mut self, session: Session) -> Option<QueueKey> {
        let id = self.member_of.remove(&session)?;
        let g = self.groups.get_mut(&id)?;
        let i = g.members.iter().position(|s| *s == session)?;
        let key = (g.next, g.base, g.start + i as u64);
        let g_key = g.key();
        let (next, every, base, start) = (g.next, g.every, g.base, g.start);
        let after = g.members.len() - i - 1;
        // The part that moves to a new group (in queue order) and its first
        // member's place.
        let (moved, moved_start) = if after <= i {
            let tail: Vec<Session> = g.members.split_off(i + 1);
            g.members.pop();
            (tail, key.2 + 1)
        } else {
            let mut head: Vec<Session> = g.members.split_off(i + 1);
            std::mem::swap(&mut head, &mut g.members);
            head.pop();
            g.start = key.2 + 1;
            let kept = g.key();
            self.by_key.remove(&g_key);
            self.by_key.insert(kept, id);
            (head, start)
        };
        if self.groups.get(&id).is_some_and(|g| g.members.is_empty()) {
            if let Some(g) = self.groups.remove(&id) {
                self.by_key.remove(&g.key());
            }
        }
        if !moved.is_empty() {
            let moved_id = self.next_id;
            self.next_id += 1;
            let t = Group {
                next,
                every,
                base,
                start: moved_start,
                members: moved,
            };
            for s in &t.members {
                self.member_of.insert(*s, moved_id);
            }
            self.by_key.insert(t.key(), moved_id);
            self.groups.insert(moved_id, t);
        }
        Some(key)
    }

    /// Wake `session`: its next round goes into the queue at its place.
    /// Returns when that round is due, and when its last round was.
    pub(super) fn wake(&mut self, session: Session) -> Option<(SimTime, SimTime)> {
        let rounds = self.rounds(session)?;
        let key = self.unpark(session)?;
        self.woken.push((key, session));
        Some(rounds)
    }

    /// The parked sessions in which `broker` fetches or is fetched from.
    pub(super) fn sessions_of(&self, broker: BrokerId) -> Vec<Session> {
        self.member_of
            .keys()
            .filter(|(f, l)| *f == broker || *l == broker)
            .copied()
            .collect()
    }

    /// Every parked session.
    pub(super) fn sessions(&self) -> Vec<Session> {
        self.member_of.keys().copied().collect()
    }

    /// Sessions woken since last asked, with the places of their rounds.
    pub fn take_woken(&mut self) -> Vec<(QueueKey, BrokerId, BrokerId)> {
        std::mem::take(&mut self.woken)
            .into_iter()
            .map(|(k, (f, l))| (k, f, l))
            .collect()
    }

    /// Run, in queue order, every virtual round placed before `before`:
    /// each schedules the group's next round with virtual pushes after real
    /// push `seq` (`sub` counts them).
    pub fn advance(&mut self, before: QueueKey, seq: u64, sub: &mut u64) {
        while let Some((&key, &id)) = self.by_key.first_key_value() {
            if key >= before {
                break;
            }
            self.by_key.remove(&key);
            let Some(mut g) = self.groups.remove(&id) else {
                continue;
            };
            g.next = g.next.plus_ms(g.every);
            g.base = seq;
            g.start = *sub + 1;
            *sub += g.members.len() as u64;
            let new_key = g.key();
            let prev = self
                .by_key
                .range(..new_key)
                .next_back()
                .map(|(_, &p)| p)
                .filter(|p| self.groups.get(p).is_some_and(|h| h.followed_by(&g)));
            match prev.and_then(|p| self.groups.get_mut(&p).map(|h| (p, h))) {
                // The smaller of the two groups joins the larger: only its
                // members' group ids are rewritten.
                Some((p, h)) if h.members.len() >= g.members.len() => {
                    for s in &g.members {
                        self.member_of.insert(*s, p);
                    }
                    h.members.append(&mut g.members);
                }
                Some((p, h)) => {
                    for s in &h.members {
                        self.member_of.insert(*s, id);
                    }
                    let h_key = h.key();
                    h.members.append(&mut g.members);
                    std::mem::swap(&mut h.members, &mut g.members);
                    g.start = h.start;
                    self.groups.remove(&p);
                    self.by_key.insert(h_key, id);
                    self.groups.insert(id, g);
                }
                None => {
                    self.by_key.insert(new_key, id);
                    self.groups.insert(id, g);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(f: u32, l: u32) -> Session {
        (BrokerId(f), BrokerId(l))
    }

    #[test]
    fn a_group_keeps_its_members_places_round_after_round() {
        let mut p = Parking::default();
        // Three sessions parked one after another in the same step.
        p.park(s(1, 2), (SimTime(500), 7, 1), 500);
        p.park(s(1, 3), (SimTime(500), 7, 2), 500);
        p.park(s(1, 4), (SimTime(500), 7, 3), 500);
        assert_eq!(p.groups.len(), 1);
        let mut sub = 0;
        // Real push 9 happened; the group's round at 500 runs before (600, 9, 0).
        p.advance((SimTime(600), 9, 0), 9, &mut sub);
        assert_eq!(sub, 3);
        assert_eq!(p.rounds(s(1, 3)), Some((SimTime(1_000), SimTime(500))));
        // Waking the middle one gives its exact place and splits the group.
        assert_eq!(p.wake(s(1, 3)), Some((SimTime(1_000), SimTime(500))));
        assert_eq!(
            p.take_woken(),
            vec![((SimTime(1_000), 9, 2), BrokerId(1), BrokerId(3))]
        );
        assert_eq!(p.groups.len(), 2);
        // Advanced together again, the two parts become one group.
        p.advance((SimTime(1_001), 0, 0), 10, &mut sub);
        assert_eq!(p.groups.len(), 1);
        assert_eq!(p.len(), 2);
        assert_eq!(p.rounds(s(1, 4)), Some((SimTime(1_500), SimTime(1_000))));
    }

    /// The same parked sessions, one queue place each, advanced one by one:
    /// what the simulator did before sessions were parked in groups.
    #[derive(Default)]
    struct OneByOne {
        places: BTreeMap<Session, (QueueKey, u64)>,
    }

    impl OneByOne {
        fn advance(&mut self, before: QueueKey, seq: u64, sub: &mut u64) {
            loop {
                let first = self
                    .places
                    .iter()
                    .filter(|(_, (k, _))| *k < before)
                    .min_by_key(|(_, (k, _))| *k)
                    .map(|(s, (k, every))| (*s, *k, *every));
                let Some((session, key, every)) = first else {
                    break;
                };
                *sub += 1;
                self.places
                    .insert(session, ((key.0.plus_ms(every), seq, *sub), every));
            }
        }
    }

    #[test]
    fn groups_split_and_merge_yet_every_session_keeps_the_place_it_would_have_alone() {
        // Kafka: each ReplicaFetcherThread round schedules the next one
        // replica.fetch.wait.max.ms later (kcsim: data-plane.md, "Parked
        // sessions"). Random parks, wakes and advances over sessions with two
        // intervals; after every operation each parked session's next round,
        // last round and place equal those of the one-by-one model.
        for seed in 0..200 {
            let mut rng = crate::rng::Rng::new(seed);
            let mut p = Parking::default();
            let mut model = OneByOne::default();
            let (mut now, mut seq) = (0u64, 1u64);
            // Odd seeds: more sessions, so larger groups split on either
            // side of a woken member and merge either way round.
            let count: u32 = if seed % 2 == 0 { 10 } else { 40 };
            let sessions: Vec<Session> = (0..count).map(|i| s(i % 5, 10 + i / 5)).collect();
            for _ in 0..300 {
                match rng.below(4) {
                    0 => {
                        // A fetch round (a real event) parks some sessions,
                        // each with a virtual push.
                        seq += 1;
                        let mut sub = 0;
                        for _ in 0..rng.between(1, 4) {
                            let session = sessions[rng.below(u64::from(count)) as usize];
                            if model.places.contains_key(&session) {
                                continue;
                            }
                            let every = if rng.below(3) == 0 { 700 } else { 500 };
                            sub += 1;
                            let key = (SimTime(now + every), seq, sub);
                            p.park(session, key, every);
                            model.places.insert(session, (key, every));
                        }
                    }
                    1 => {
                        let session = sessions[rng.below(u64::from(count)) as usize];
                        let woken = p.wake(session);
                        let expected = model.places.remove(&session);
                        assert_eq!(
                            woken,
                            expected.map(|((t, _, _), every)| (t, SimTime(t.0 - every))),
                            "seed {seed}"
                        );
                        let places: Vec<QueueKey> =
                            p.take_woken().into_iter().map(|(k, _, _)| k).collect();
                        assert_eq!(
                            places,
                            expected.map(|(k, _)| k).into_iter().collect::<Vec<_>>()
                        );
                    }
                    _ => {
                        // The simulator is about to process a real event at
                        // `before`: every round placed before it runs first.
                        now += rng.below(1_500);
                        seq += 1;
                        let before = (SimTime(now), seq, 0);
                        let (mut sub, mut sub_model) = (0, 0);
                        p.advance(before, seq, &mut sub);
                        model.advance(before, seq, &mut sub_model);
                        assert_eq!(sub, sub_model, "seed {seed}: as many virtual pushes");
                    }
                }
                assert_eq!(p.len(), model.places.len(), "seed {seed}");
                for (session, ((t, _, _), every)) in &model.places {
                    assert_eq!(
                        p.rounds(*session),
                        Some((*t, SimTime(t.0 - every))),
                        "seed {seed}: {session:?}"
                    );
                }
                assert!(
                    p.groups.len() <= p.len().max(1),
                    "seed {seed}: no empty group"
                );
                assert!(p.groups.values().all(|g| !g.members.is_empty()));
                // Every member's group id names the group that holds it, and
                // every group is found by its first member's place.
                for (id, g) in &p.groups {
                    assert!(g.members.iter().all(|m| p.member_of.get(m) == Some(id)));
                    assert_eq!(p.by_key.get(&g.key()), Some(id), "seed {seed}");
                }
                assert_eq!(p.by_key.len(), p.groups.len(), "seed {seed}");
            }
        }
    }
}
