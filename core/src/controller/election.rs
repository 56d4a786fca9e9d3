//! The four leader-election strategies as pure functions (Kafka's
//! Election.scala and PartitionLeaderElectionAlgorithms, 2.4.0).
//!
//! Each takes the assignment (AR, preferred replica first), the ISR as read
//! from ZooKeeper, and the sets of live and shutting-down brokers, and
//! returns the leader (or none), the new ISR and the LeaderAndIsr
//! recipients. Nothing is written here: the state machine computes, checks,
//! then applies.

use crate::ids::{comma_list, ids_text, BrokerId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

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
    pub isr: Vec<BrokerId>,
    /// Brokers to send LeaderAndIsr to.
    pub recipients: Vec<BrokerId>,
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
        assignment: Vec<BrokerId>,
        /// The ISR.
        isr: Vec<BrokerId>,
    },
    /// Offline, unclean: no live ISR member; the first live replica in AR.
    OfflineUnclean {
        /// The ISR.
        isr: Vec<BrokerId>,
        /// AR.
        assignment: Vec<BrokerId>,
        /// The leader.
        leader: BrokerId,
    },
    /// Offline, unclean allowed: no replica in AR is live.
    NoLiveReplicaInAr {
        /// AR.
        assignment: Vec<BrokerId>,
    },
    /// Offline, unclean off: no ISR member is live.
    NoLiveReplicaInIsr {
        /// The ISR.
        isr: Vec<BrokerId>,
    },
    /// Reassignment: the first live target replica in the ISR.
    ReassignTarget {
        /// The target replicas.
        target: Vec<BrokerId>,
        /// The ISR.
        isr: Vec<BrokerId>,
    },
    /// Reassignment: no target replica is live and in the ISR.
    ReassignNone {
        /// The target replicas.
        target: Vec<BrokerId>,
        /// The ISR.
        isr: Vec<BrokerId>,
    },
    /// Preferred: `AR[0]` is live and in the ISR.
    PreferredChosen {
        /// The preferred replica.
        leader: BrokerId,
        /// AR.
        assignment: Vec<BrokerId>,
        /// The ISR.
        isr: Vec<BrokerId>,
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
        isr: Vec<BrokerId>,
    },
    /// The partition has no replicas.
    NoReplicas,
    /// Controlled shutdown: the first replica in AR in the ISR and not shutting down.
    ShutdownChosen {
        /// AR.
        assignment: Vec<BrokerId>,
        /// The ISR.
        isr: Vec<BrokerId>,
        /// The brokers shutting down.
        shutting_down: Vec<BrokerId>,
    },
    /// Controlled shutdown: every live ISR member is shutting down.
    ShutdownLeaderStays {
        /// The ISR.
        isr: Vec<BrokerId>,
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
pub fn offline(
    assignment: &[BrokerId],
    isr: &[BrokerId],
    live: &BTreeSet<BrokerId>,
    unclean_allowed: impl FnOnce() -> bool,
) -> ElectionResult {
    let live_replicas: Vec<BrokerId> = assignment
        .iter()
        .copied()
        .filter(|r| live.contains(r))
        .collect();
    let clean = assignment
        .iter()
        .copied()
        .find(|r| live.contains(r) && isr.contains(r));
    if let Some(leader) = clean {
        let new_isr = isr.iter().copied().filter(|r| live.contains(r)).collect();
        return ElectionResult {
            leader: Some(leader),
            isr: new_isr,
            recipients: live_replicas,
            unclean: false,
            why: ElectionWhy::OfflineClean {
                assignment: assignment.to_vec(),
                isr: isr.to_vec(),
            },
        };
    }
    let allowed = unclean_allowed();
    match assignment
        .iter()
        .copied()
        .find(|r| live.contains(r))
        .filter(|_| allowed)
    {
        Some(leader) => ElectionResult {
            leader: Some(leader),
            isr: vec![leader],
            recipients: live_replicas,
            unclean: true,
            why: ElectionWhy::OfflineUnclean {
                isr: isr.to_vec(),
                assignment: assignment.to_vec(),
                leader,
            },
        },
        None => ElectionResult {
            leader: None,
            isr: isr.to_vec(),
            recipients: live_replicas.clone(),
            unclean: false,
            why: if allowed {
                ElectionWhy::NoLiveReplicaInAr {
                    assignment: assignment.to_vec(),
                }
            } else {
                ElectionWhy::NoLiveReplicaInIsr { isr: isr.to_vec() }
            },
        },
    }
}

/// Reassignment election: the first target replica that is live and in the
/// ISR. The ISR is unchanged; every target replica is a recipient.
pub fn reassign(
    target: &[BrokerId],
    isr: &[BrokerId],
    live: &BTreeSet<BrokerId>,
) -> ElectionResult {
    let leader = target
        .iter()
        .copied()
        .find(|r| live.contains(r) && isr.contains(r));
    ElectionResult {
        leader,
        isr: isr.to_vec(),
        recipients: target.to_vec(),
        unclean: false,
        why: match leader {
            Some(_) => ElectionWhy::ReassignTarget {
                target: target.to_vec(),
                isr: isr.to_vec(),
            },
            None => ElectionWhy::ReassignNone {
                target: target.to_vec(),
                isr: isr.to_vec(),
            },
        },
    }
}

/// Preferred election: `AR[0]`, only if live and in the ISR; no fallback.
pub fn preferred(
    assignment: &[BrokerId],
    isr: &[BrokerId],
    live: &BTreeSet<BrokerId>,
) -> ElectionResult {
    let head = assignment.first().copied();
    let leader = head.filter(|r| live.contains(r) && isr.contains(r));
    ElectionResult {
        leader,
        isr: isr.to_vec(),
        recipients: assignment.to_vec(),
        unclean: false,
        why: match (leader, head) {
            (Some(l), _) => ElectionWhy::PreferredChosen {
                leader: l,
                assignment: assignment.to_vec(),
                isr: isr.to_vec(),
            },
            (None, Some(h)) if !live.contains(&h) => ElectionWhy::PreferredNotLive { replica: h },
            (None, Some(h)) => ElectionWhy::PreferredNotInIsr {
                replica: h,
                isr: isr.to_vec(),
            },
            (None, None) => ElectionWhy::NoReplicas,
        },
    }
}

/// Controlled-shutdown election: the first replica in AR order that is live
/// or shutting down, in the ISR, and not shutting down. The new ISR drops
/// every shutting-down broker; recipients are the live-or-shutting-down replicas.
pub fn controlled_shutdown(
    assignment: &[BrokerId],
    isr: &[BrokerId],
    live_or_shutting_down: &BTreeSet<BrokerId>,
    shutting_down: &BTreeSet<BrokerId>,
) -> ElectionResult {
    let candidates: Vec<BrokerId> = assignment
        .iter()
        .copied()
        .filter(|r| live_or_shutting_down.contains(r))
        .collect();
    let leader = assignment
        .iter()
        .copied()
        .find(|r| candidates.contains(r) && isr.contains(r) && !shutting_down.contains(r));
    ElectionResult {
        leader,
        isr: isr
            .iter()
            .copied()
            .filter(|r| !shutting_down.contains(r))
            .collect(),
        recipients: candidates,
        unclean: false,
        why: match leader {
            Some(_) => ElectionWhy::ShutdownChosen {
                assignment: assignment.to_vec(),
                isr: isr.to_vec(),
                shutting_down: shutting_down.iter().copied().collect(),
            },
            None => ElectionWhy::ShutdownLeaderStays { isr: isr.to_vec() },
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
            (r.leader, r.isr.clone(), r.unclean),
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
            (r.leader, r.isr.clone(), r.recipients.clone()),
            (Some(BrokerId(3)), ids(&[1, 2, 3]), ids(&[3, 1]))
        );
        let r = preferred(&ids(&[1, 2, 3]), &ids(&[1, 3]), &live);
        assert_eq!(
            (r.leader, r.isr.clone(), r.recipients.clone()),
            (Some(BrokerId(1)), ids(&[1, 3]), ids(&[1, 2, 3]))
        );
        let r = controlled_shutdown(
            &ids(&[1, 2, 3]),
            &ids(&[1, 2, 3]),
            &setof(&[1, 2, 3]),
            &setof(&[1]),
        );
        assert_eq!(
            (r.leader, r.isr.clone(), r.recipients.clone()),
            (Some(BrokerId(2)), ids(&[2, 3]), ids(&[1, 2, 3]))
        );
    }
}
