//! The four leader-election strategies as pure functions (Kafka's
//! Election.scala and PartitionLeaderElectionAlgorithms, 2.4.0).
//!
//! Each takes the assignment (AR, preferred replica first), the ISR as read
//! from ZooKeeper, and the sets of live and shutting-down brokers, and
//! returns the leader (or none), the new ISR and the LeaderAndIsr
//! recipients. Nothing is written here: the state machine computes, checks,
//! then applies.

use crate::ids::{comma_list, ids_text, BrokerId};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeSet;

/// How many ids [`BrokerIds`] keeps in place before it allocates.
const INLINE_IDS: usize = 6;

/// A short list of broker ids (an AR, an ISR, LeaderAndIsr recipients): up
/// to six are kept in place, so an election allocates nothing; longer lists
/// go to the heap. Reads as a slice, compares, prints and serializes as a
/// list, exactly as a `Vec<BrokerId>` does.
#[derive(Clone)]
pub struct BrokerIds(IdsRepr);

#[derive(Clone)]
enum IdsRepr {
    Inline {
        len: u8,
        ids: [BrokerId; INLINE_IDS],
    },
    Heap(Vec<BrokerId>),
}

impl BrokerIds {
    /// No ids.
    pub const fn new() -> BrokerIds {
        BrokerIds(IdsRepr::Inline {
            len: 0,
            ids: [BrokerId(0); INLINE_IDS],
        })
    }

    /// Add `id` at the end.
    #[inline]
    pub fn push(&mut self, id: BrokerId) {
        match &mut self.0 {
            IdsRepr::Inline { len, ids } => {
                if usize::from(*len) < INLINE_IDS {
                    ids[usize::from(*len)] = id;
                    *len += 1;
                } else {
                    self.spill(id);
                }
            }
            IdsRepr::Heap(v) => v.push(id),
        }
    }
}

impl BrokerIds {
    #[cold]
    fn spill(&mut self, id: BrokerId) {
        let mut v = self.to_vec();
        v.push(id);
        self.0 = IdsRepr::Heap(v);
    }
}

impl Default for BrokerIds {
    fn default() -> BrokerIds {
        BrokerIds::new()
    }
}

impl std::ops::Deref for BrokerIds {
    type Target = [BrokerId];
    #[inline]
    fn deref(&self) -> &[BrokerId] {
        match &self.0 {
            IdsRepr::Inline { len, ids } => &ids[..usize::from(*len)],
            IdsRepr::Heap(v) => v,
        }
    }
}

impl FromIterator<BrokerId> for BrokerIds {
    #[inline]
    fn from_iter<I: IntoIterator<Item = BrokerId>>(iter: I) -> BrokerIds {
        let mut out = BrokerIds::new();
        for id in iter {
            out.push(id);
        }
        out
    }
}

impl From<&[BrokerId]> for BrokerIds {
    #[inline]
    fn from(ids: &[BrokerId]) -> BrokerIds {
        if ids.len() <= INLINE_IDS {
            let mut inline = [BrokerId(0); INLINE_IDS];
            inline[..ids.len()].copy_from_slice(ids);
            BrokerIds(IdsRepr::Inline {
                len: ids.len() as u8,
                ids: inline,
            })
        } else {
            BrokerIds(IdsRepr::Heap(ids.to_vec()))
        }
    }
}

impl From<Vec<BrokerId>> for BrokerIds {
    fn from(ids: Vec<BrokerId>) -> BrokerIds {
        if ids.len() <= INLINE_IDS {
            ids.into_iter().collect()
        } else {
            BrokerIds(IdsRepr::Heap(ids))
        }
    }
}

impl<'a> IntoIterator for &'a BrokerIds {
    type Item = &'a BrokerId;
    type IntoIter = std::slice::Iter<'a, BrokerId>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl PartialEq for BrokerIds {
    fn eq(&self, other: &BrokerIds) -> bool {
        **self == **other
    }
}

impl Eq for BrokerIds {}

impl PartialEq<Vec<BrokerId>> for BrokerIds {
    fn eq(&self, other: &Vec<BrokerId>) -> bool {
        **self == **other
    }
}

impl PartialEq<BrokerIds> for Vec<BrokerId> {
    fn eq(&self, other: &BrokerIds) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for BrokerIds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for BrokerIds {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for BrokerIds {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<BrokerIds, D::Error> {
        Vec::<BrokerId>::deserialize(d).map(BrokerIds::from)
    }
}

/// A set of brokers an election asks about (live, shutting down).
pub trait BrokerSet {
    /// Whether `id` is in the set.
    fn has(&self, id: BrokerId) -> bool;
    /// The members in id order.
    fn members(&self) -> BrokerIds;
}

impl BrokerSet for BTreeSet<BrokerId> {
    #[inline]
    fn has(&self, id: BrokerId) -> bool {
        self.contains(&id)
    }
    fn members(&self) -> BrokerIds {
        self.iter().copied().collect()
    }
}

/// Ids below this live in [`BrokerBits`]' bitmap (8 KiB at most); larger
/// ones in its ordered set.
const BITMAP_IDS: u32 = 1 << 16;

/// A set of brokers as a bitmap: membership is one load, not a tree walk.
/// The controller builds one per state-machine call for its elections.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BrokerBits {
    words: Vec<u64>,
    beyond: BTreeSet<BrokerId>,
}

impl BrokerBits {
    /// Add `id`.
    pub fn insert(&mut self, id: BrokerId) {
        if id.0 < BITMAP_IDS {
            let i = id.0 as usize;
            if self.words.len() <= i / 64 {
                self.words.resize(i / 64 + 1, 0);
            }
            self.words[i / 64] |= 1 << (i % 64);
        } else {
            self.beyond.insert(id);
        }
    }
}

impl FromIterator<BrokerId> for BrokerBits {
    fn from_iter<I: IntoIterator<Item = BrokerId>>(iter: I) -> BrokerBits {
        let mut out = BrokerBits::default();
        for id in iter {
            out.insert(id);
        }
        out
    }
}

impl BrokerSet for BrokerBits {
    #[inline]
    fn has(&self, id: BrokerId) -> bool {
        if id.0 < BITMAP_IDS {
            let i = id.0 as usize;
            self.words
                .get(i / 64)
                .is_some_and(|w| (w >> (i % 64)) & 1 == 1)
        } else {
            self.beyond.contains(&id)
        }
    }
    fn members(&self) -> BrokerIds {
        let mut out = BrokerIds::new();
        for (n, w) in self.words.iter().enumerate() {
            let mut w = *w;
            while w != 0 {
                let bit = w.trailing_zeros();
                out.push(BrokerId(n as u32 * 64 + bit));
                w &= w - 1;
            }
        }
        for id in &self.beyond {
            out.push(*id);
        }
        out
    }
}

/// Which strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Strategy {
    /// `OfflinePartitionLeaderElectionStrategy(allowUnclean)`.
    Offline {
        /// Unclean election is allowed outright (admin UNCLEAN elections).
        allow_unclean: bool,
    },
    /// `ReassignPartitionLeaderElectionStrategy`.
    Reassign,
    /// `PreferredReplicaPartitionLeaderElectionStrategy`.
    Preferred,
    /// `ControlledShutdownPartitionLeaderElectionStrategy`.
    ControlledShutdown,
}

impl Strategy {
    /// Kafka's class name.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Offline { .. } => "OfflinePartitionLeaderElectionStrategy",
            Strategy::Reassign => "ReassignPartitionLeaderElectionStrategy",
            Strategy::Preferred => "PreferredReplicaPartitionLeaderElectionStrategy",
            Strategy::ControlledShutdown => "ControlledShutdownPartitionLeaderElectionStrategy",
        }
    }
}

/// What an election decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ElectionResult {
    /// The new leader, or `None` when the strategy finds none.
    pub leader: Option<BrokerId>,
    /// The new ISR (meaningful only with a leader).
    pub isr: BrokerIds,
    /// Brokers to send LeaderAndIsr to.
    pub recipients: BrokerIds,
    /// Whether the leader came from outside the ISR (an unclean election).
    pub unclean: bool,
    /// Why, in one sentence a student can follow.
    pub why: ElectionWhy,
}

/// Why a strategy chose its leader (or none), as data; [`std::fmt::Display`]
/// gives the sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ElectionWhy {
    /// Offline: the first live replica in AR that is in the ISR.
    OfflineClean {
        /// AR.
        assignment: BrokerIds,
        /// The ISR.
        isr: BrokerIds,
    },
    /// Offline, unclean: no live ISR member; the first live replica in AR.
    OfflineUnclean {
        /// The ISR.
        isr: BrokerIds,
        /// AR.
        assignment: BrokerIds,
        /// The leader.
        leader: BrokerId,
    },
    /// Offline, unclean allowed: no replica in AR is live.
    NoLiveReplicaInAr {
        /// AR.
        assignment: BrokerIds,
    },
    /// Offline, unclean off: no ISR member is live.
    NoLiveReplicaInIsr {
        /// The ISR.
        isr: BrokerIds,
    },
    /// Reassignment: the first live target replica in the ISR.
    ReassignTarget {
        /// The target replicas.
        target: BrokerIds,
        /// The ISR.
        isr: BrokerIds,
    },
    /// Reassignment: no target replica is live and in the ISR.
    ReassignNone {
        /// The target replicas.
        target: BrokerIds,
        /// The ISR.
        isr: BrokerIds,
    },
    /// Preferred: `AR[0]` is live and in the ISR.
    PreferredChosen {
        /// The preferred replica.
        leader: BrokerId,
        /// AR.
        assignment: BrokerIds,
        /// The ISR.
        isr: BrokerIds,
    },
    /// Preferred: `AR[0]` is not live.
    PreferredNotLive {
        /// The preferred replica.
        replica: BrokerId,
    },
    /// Preferred: `AR[0]` is not in the ISR.
    PreferredNotInIsr {
        /// The preferred replica.
        replica: BrokerId,
        /// The ISR.
        isr: BrokerIds,
    },
    /// The partition has no replicas.
    NoReplicas,
    /// Controlled shutdown: the first replica in AR in the ISR and not shutting down.
    ShutdownChosen {
        /// AR.
        assignment: BrokerIds,
        /// The ISR.
        isr: BrokerIds,
        /// The brokers shutting down.
        shutting_down: BrokerIds,
    },
    /// Controlled shutdown: every live ISR member is shutting down.
    ShutdownLeaderStays {
        /// The ISR.
        isr: BrokerIds,
    },
}

impl std::fmt::Display for ElectionWhy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ElectionWhy::OfflineClean { assignment, isr } => write!(
                f,
                "first live replica in AR {} that is in ISR {}",
                ids_text(assignment),
                set(isr)
            ),
            ElectionWhy::OfflineUnclean {
                isr,
                assignment,
                leader,
            } => write!(
                f,
                "no live replica in ISR {}; unclean election on: first live replica in AR {}, ISR becomes [{leader}]",
                set(isr),
                ids_text(assignment)
            ),
            ElectionWhy::NoLiveReplicaInAr { assignment } => {
                write!(f, "no live replica in AR {}", ids_text(assignment))
            }
            ElectionWhy::NoLiveReplicaInIsr { isr } => {
                write!(f, "no live replica in ISR {}; unclean election off", set(isr))
            }
            ElectionWhy::ReassignTarget { target, isr } => write!(
                f,
                "first live replica of the target {} that is in ISR {}",
                ids_text(target),
                set(isr)
            ),
            ElectionWhy::ReassignNone { target, isr } => write!(
                f,
                "no replica of the target {} is live and in ISR {}",
                ids_text(target),
                set(isr)
            ),
            ElectionWhy::PreferredChosen {
                leader,
                assignment,
                isr,
            } => write!(
                f,
                "preferred replica {leader} (first in AR {}) is live and in ISR {}",
                ids_text(assignment),
                set(isr)
            ),
            ElectionWhy::PreferredNotLive { replica } => {
                write!(f, "preferred replica {replica} is not live")
            }
            ElectionWhy::PreferredNotInIsr { replica, isr } => {
                write!(f, "preferred replica {replica} is not in ISR {}", set(isr))
            }
            ElectionWhy::NoReplicas => f.write_str("the partition has no replicas"),
            ElectionWhy::ShutdownChosen {
                assignment,
                isr,
                shutting_down,
            } => write!(
                f,
                "first replica in AR {} that is in ISR {} and not shutting down {}",
                ids_text(assignment),
                set(isr),
                set(shutting_down)
            ),
            ElectionWhy::ShutdownLeaderStays { isr } => write!(
                f,
                "every live ISR member of {} is shutting down; the leader stays",
                set(isr)
            ),
        }
    }
}

/// Ids as a Scala set prints them: `{1,2}`.
fn set(v: &[BrokerId]) -> String {
    format!("{{{}}}", comma_list(v))
}

/// Offline election: the first replica in AR order that is live and in the
/// ISR; if none and unclean election is allowed, the first live replica
/// (ISR becomes exactly `[leader]`). `unclean_allowed` is consulted only when
/// no ISR member is live, as Kafka reads the topic config only then.
pub fn offline<L: BrokerSet + ?Sized>(
    assignment: &[BrokerId],
    isr: &[BrokerId],
    live: &L,
    unclean_allowed: impl FnOnce() -> bool,
) -> ElectionResult {
    let live_replicas: BrokerIds = assignment
        .iter()
        .copied()
        .filter(|r| live.has(*r))
        .collect();
    let clean = live_replicas.iter().copied().find(|r| isr.contains(r));
    if let Some(leader) = clean {
        let new_isr = isr.iter().copied().filter(|r| live.has(*r)).collect();
        return ElectionResult {
            leader: Some(leader),
            isr: new_isr,
            recipients: live_replicas,
            unclean: false,
            why: ElectionWhy::OfflineClean {
                assignment: assignment.into(),
                isr: isr.into(),
            },
        };
    }
    let allowed = unclean_allowed();
    match live_replicas.first().copied().filter(|_| allowed) {
        Some(leader) => ElectionResult {
            leader: Some(leader),
            isr: [leader].into_iter().collect(),
            recipients: live_replicas,
            unclean: true,
            why: ElectionWhy::OfflineUnclean {
                isr: isr.into(),
                assignment: assignment.into(),
                leader,
            },
        },
        None => ElectionResult {
            leader: None,
            isr: isr.into(),
            recipients: live_replicas,
            unclean: false,
            why: if allowed {
                ElectionWhy::NoLiveReplicaInAr {
                    assignment: assignment.into(),
                }
            } else {
                ElectionWhy::NoLiveReplicaInIsr { isr: isr.into() }
            },
        },
    }
}

/// Reassignment election: the first target replica that is live and in the
/// ISR. The ISR is unchanged; every target replica is a recipient.
pub fn reassign<L: BrokerSet + ?Sized>(
    target: &[BrokerId],
    isr: &[BrokerId],
    live: &L,
) -> ElectionResult {
    let leader = target
        .iter()
        .copied()
        .find(|r| live.has(*r) && isr.contains(r));
    ElectionResult {
        leader,
        isr: isr.into(),
        recipients: target.into(),
        unclean: false,
        why: match leader {
            Some(_) => ElectionWhy::ReassignTarget {
                target: target.into(),
                isr: isr.into(),
            },
            None => ElectionWhy::ReassignNone {
                target: target.into(),
                isr: isr.into(),
            },
        },
    }
}

/// Preferred election: `AR[0]`, only if live and in the ISR; no fallback.
pub fn preferred<L: BrokerSet + ?Sized>(
    assignment: &[BrokerId],
    isr: &[BrokerId],
    live: &L,
) -> ElectionResult {
    let head = assignment.first().copied();
    let leader = head.filter(|r| live.has(*r) && isr.contains(r));
    ElectionResult {
        leader,
        isr: isr.into(),
        recipients: assignment.into(),
        unclean: false,
        why: match (leader, head) {
            (Some(l), _) => ElectionWhy::PreferredChosen {
                leader: l,
                assignment: assignment.into(),
                isr: isr.into(),
            },
            (None, Some(h)) if !live.has(h) => ElectionWhy::PreferredNotLive { replica: h },
            (None, Some(h)) => ElectionWhy::PreferredNotInIsr {
                replica: h,
                isr: isr.into(),
            },
            (None, None) => ElectionWhy::NoReplicas,
        },
    }
}

/// Controlled-shutdown election: the first replica in AR order that is live
/// or shutting down, in the ISR, and not shutting down. The new ISR drops
/// every shutting-down broker; recipients are the live-or-shutting-down replicas.
pub fn controlled_shutdown<L: BrokerSet + ?Sized, S: BrokerSet + ?Sized>(
    assignment: &[BrokerId],
    isr: &[BrokerId],
    live_or_shutting_down: &L,
    shutting_down: &S,
) -> ElectionResult {
    let candidates: BrokerIds = assignment
        .iter()
        .copied()
        .filter(|r| live_or_shutting_down.has(*r))
        .collect();
    let leader = candidates
        .iter()
        .copied()
        .find(|r| isr.contains(r) && !shutting_down.has(*r));
    ElectionResult {
        leader,
        isr: isr
            .iter()
            .copied()
            .filter(|r| !shutting_down.has(*r))
            .collect(),
        recipients: candidates,
        unclean: false,
        why: match leader {
            Some(_) => ElectionWhy::ShutdownChosen {
                assignment: assignment.into(),
                isr: isr.into(),
                shutting_down: shutting_down.members(),
            },
            None => ElectionWhy::ShutdownLeaderStays { isr: isr.into() },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[u32]) -> Vec<BrokerId> {
        v.iter().copied().map(BrokerId).collect()
    }

    fn setof(v: &[u32]) -> BTreeSet<BrokerId> {
        ids(v).into_iter().collect()
    }

    // Kafka: PartitionLeaderElectionAlgorithmsTest (2.4.0), every case, by name.
    #[test]
    fn kafka_partition_leader_election_algorithms_test() {
        struct Case {
            name: &'static str,
            got: Option<BrokerId>,
            want: Option<u32>,
        }
        let cases = [
            Case {
                name: "testOfflinePartitionLeaderElection",
                got: offline(&ids(&[2, 4]), &ids(&[2, 4]), &setof(&[4]), || false).leader,
                want: Some(4),
            },
            Case {
                name:
                    "testOfflinePartitionLeaderElectionLastIsrOfflineUncleanLeaderElectionDisabled",
                got: offline(&ids(&[2, 4]), &ids(&[2]), &setof(&[4]), || false).leader,
                want: None,
            },
            Case {
                name:
                    "testOfflinePartitionLeaderElectionLastIsrOfflineUncleanLeaderElectionEnabled",
                got: offline(&ids(&[2, 4]), &ids(&[2]), &setof(&[4]), || true).leader,
                want: Some(4),
            },
            Case {
                name: "testReassignPartitionLeaderElection",
                got: reassign(&ids(&[2, 4]), &ids(&[2, 4]), &setof(&[4])).leader,
                want: Some(4),
            },
            Case {
                name: "testReassignPartitionLeaderElectionWithNoLiveIsr",
                got: reassign(&ids(&[2, 4]), &ids(&[2]), &setof(&[])).leader,
                want: None,
            },
            Case {
                name: "testReassignPartitionLeaderElectionWithEmptyIsr",
                got: reassign(&ids(&[2]), &ids(&[]), &setof(&[2])).leader,
                want: None,
            },
            Case {
                name: "testPreferredReplicaPartitionLeaderElection",
                got: preferred(&ids(&[2, 4]), &ids(&[2, 4]), &setof(&[2, 4])).leader,
                want: Some(2),
            },
            Case {
                name: "testPreferredReplicaPartitionLeaderElectionPreferredReplicaInIsrNotLive",
                got: preferred(&ids(&[2, 4]), &ids(&[2]), &setof(&[])).leader,
                want: None,
            },
            Case {
                name: "testPreferredReplicaPartitionLeaderElectionPreferredReplicaNotInIsrLive",
                got: preferred(&ids(&[2, 4]), &ids(&[4]), &setof(&[2, 4])).leader,
                want: None,
            },
            Case {
                name: "testPreferredReplicaPartitionLeaderElectionPreferredReplicaNotInIsrNotLive",
                got: preferred(&ids(&[2, 4]), &ids(&[]), &setof(&[])).leader,
                want: None,
            },
            Case {
                name: "testControlledShutdownPartitionLeaderElection",
                got: controlled_shutdown(
                    &ids(&[2, 4]),
                    &ids(&[2, 4]),
                    &setof(&[2, 4]),
                    &setof(&[2]),
                )
                .leader,
                want: Some(4),
            },
            Case {
                name: "testControlledShutdownPartitionLeaderElectionLastIsrShuttingDown",
                got: controlled_shutdown(&ids(&[2, 4]), &ids(&[2]), &setof(&[2, 4]), &setof(&[2]))
                    .leader,
                want: None,
            },
            Case {
                name: "testControlledShutdownPartitionLeaderElectionAllIsrSimultaneouslyShutdown",
                got: controlled_shutdown(
                    &ids(&[2, 4]),
                    &ids(&[2, 4]),
                    &setof(&[2, 4]),
                    &setof(&[2, 4]),
                )
                .leader,
                want: None,
            },
        ];
        for c in cases {
            assert_eq!(c.got, c.want.map(BrokerId), "{}", c.name);
        }
    }

    #[test]
    fn offline_keeps_ar_order_and_filters_the_isr_to_live() {
        // Kafka: Election.leaderForOffline — leader by AR order, not ISR order.
        let r = offline(&ids(&[1, 2, 3]), &ids(&[3, 2, 1]), &setof(&[2, 3]), || {
            false
        });
        assert_eq!(r.leader, Some(BrokerId(2)));
        assert_eq!(r.isr, ids(&[3, 2]), "ISR order kept, dead member dropped");
        assert_eq!(r.recipients, ids(&[2, 3]));
        assert!(!r.unclean);
        assert_eq!(
            r.why.to_string(),
            "first live replica in AR [1,2,3] that is in ISR {3,2,1}"
        );
    }

    #[test]
    fn unclean_config_is_read_only_when_no_isr_member_is_live() {
        // Kafka: collectUncleanLeaderElectionState reads the topic config only then.
        let mut asked = false;
        offline(&ids(&[1, 2]), &ids(&[1, 2]), &setof(&[2]), || {
            asked = true;
            true
        });
        assert!(!asked);
        let r = offline(&ids(&[1, 2, 3]), &ids(&[1]), &setof(&[3, 2]), || true);
        assert_eq!(
            (r.leader, r.isr.to_vec(), r.unclean),
            (Some(BrokerId(2)), ids(&[2]), true)
        );
        let r = offline(&ids(&[1, 2]), &ids(&[1]), &setof(&[2]), || false);
        assert_eq!(r.leader, None);
        assert_eq!(
            r.why.to_string(),
            "no live replica in ISR {1}; unclean election off"
        );
    }

    #[test]
    fn outcome_table_of_the_spec() {
        // Kafka: Election.scala — ISR and recipients per strategy (spec §4.5).
        let live = setof(&[1, 3]);
        let r = reassign(&ids(&[3, 1]), &ids(&[1, 2, 3]), &live);
        assert_eq!(
            (r.leader, r.isr.to_vec(), r.recipients.to_vec()),
            (Some(BrokerId(3)), ids(&[1, 2, 3]), ids(&[3, 1]))
        );
        let r = preferred(&ids(&[1, 2, 3]), &ids(&[1, 3]), &live);
        assert_eq!(
            (r.leader, r.isr.to_vec(), r.recipients.to_vec()),
            (Some(BrokerId(1)), ids(&[1, 3]), ids(&[1, 2, 3]))
        );
        let r = controlled_shutdown(
            &ids(&[1, 2, 3]),
            &ids(&[1, 2, 3]),
            &setof(&[1, 2, 3]),
            &setof(&[1]),
        );
        assert_eq!(
            (r.leader, r.isr.to_vec(), r.recipients.to_vec()),
            (Some(BrokerId(2)), ids(&[2, 3]), ids(&[1, 2, 3]))
        );
    }
}
