//! A trace record's fact as held in memory. A large cluster's trace holds a
//! record per partition per state change, leader election and ISR change:
//! those facts are held small (the partition, then their numbers as 32-bit
//! words in one box), every other fact boxed whole. Each fact has exactly one
//! form here, so two held facts are equal exactly when their facts are.

use crate::controller::election::{BrokerIds, ElectionWhy};
use crate::controller::states::{PartitionState, PartitionStateChangeError};
use crate::fact::Fact;
use crate::ids::{BrokerId, TopicPartition};
use std::borrow::Cow;

/// A fact as held (40 bytes, 48 with its tag, on 64-bit targets).
#[derive(Clone, PartialEq, Eq)]
pub(super) enum Held {
    /// [`Fact::PartitionStateChanged`].
    StateChanged {
        tp: TopicPartition,
        from: PartitionState,
        to: PartitionState,
    },
    /// [`Fact::PartitionStateChangeFailed`] with
    /// [`PartitionStateChangeError::NoLiveReplica`] and at most
    /// [`FEW`] replicas (a cluster's start-up writes one for each partition
    /// whose replicas have not registered yet): inline, no box.
    NoLiveReplica {
        tp: TopicPartition,
        len: u8,
        replicas: [u32; FEW],
    },
    /// [`Fact::LeaderInitialized`] with at most [`FEW_AR`] replicas and
    /// its ISR those of them marked in `isr` (in the replicas' order, as the
    /// controller chooses it: the live replicas of AR): inline, no box.
    Initialized {
        tp: TopicPartition,
        /// Whether there is a leader.
        led: bool,
        leader: u32,
        len: u8,
        replicas: [u32; FEW_AR],
        /// Bit `i`: `replicas[i]` is in the ISR.
        isr: u8,
    },
    /// One of the per-partition facts [`pack`] knows: its partition, and its
    /// shape and numbers as words.
    Packed {
        tp: TopicPartition,
        words: Box<[u32]>,
    },
    /// Any other fact.
    Other(Box<Fact>),
}

/// How many replicas [`Held::NoLiveReplica`] holds inline.
const FEW: usize = 4;

/// How many replicas [`Held::Initialized`] holds inline.
const FEW_AR: usize = 3;

/// The shapes of [`Held::Packed`], its first word.
const LEADER_ELECTED: u32 = 1;
const LEADER_INITIALIZED: u32 = 2;
const NO_LIVE_REPLICA: u32 = 3;
const LEADER_UPDATED_ISR: u32 = 4;
const ISR_SHRUNK: u32 = 5;

/// The reasons of a [`Fact::LeaderElected`] that [`pack`] knows (the ones
/// that chose a leader, written by the hundred thousand).
const OFFLINE_CLEAN: u32 = 0;
const OFFLINE_UNCLEAN: u32 = 1;
const REASSIGN_TARGET: u32 = 2;
const PREFERRED_CHOSEN: u32 = 3;
const SHUTDOWN_CHOSEN: u32 = 4;

impl From<Fact> for Held {
    fn from(f: Fact) -> Held {
        match f {
            Fact::PartitionStateChanged { tp, from, to } => Held::StateChanged { tp, from, to },
            Fact::PartitionStateChangeFailed(PartitionStateChangeError::NoLiveReplica {
                tp,
                replicas,
            }) if replicas.len() <= FEW => {
                let mut inline = [0; FEW];
                for (slot, b) in inline.iter_mut().zip(&replicas) {
                    *slot = b.0;
                }
                Held::NoLiveReplica {
                    tp,
                    len: replicas.len() as u8,
                    replicas: inline,
                }
            }
            Fact::LeaderInitialized {
                leader,
                tp,
                replicas,
                isr,
            } if replicas.len() <= FEW_AR && isr_bits(&replicas, &isr).is_some() => {
                let mut inline = [0; FEW_AR];
                for (slot, b) in inline.iter_mut().zip(&replicas) {
                    *slot = b.0;
                }
                Held::Initialized {
                    tp,
                    led: leader.is_some(),
                    leader: leader.map_or(0, |b| b.0),
                    len: replicas.len() as u8,
                    replicas: inline,
                    isr: isr_bits(&replicas, &isr).unwrap_or(0),
                }
            }
            f => match pack(&f) {
                Some(words) => match f {
                    Fact::LeaderElected { tp, .. }
                    | Fact::LeaderInitialized { tp, .. }
                    | Fact::PartitionStateChangeFailed(
                        PartitionStateChangeError::NoLiveReplica { tp, .. },
                    )
                    | Fact::LeaderUpdatedIsr { tp, .. }
                    | Fact::IsrShrunk { tp, .. } => Held::Packed { tp, words },
                    f => Held::Other(Box::new(f)),
                },
                None => Held::Other(Box::new(f)),
            },
        }
    }
}

impl Held {
    /// The fact: borrowed when held whole, rebuilt otherwise.
    pub(super) fn fact(&self) -> Cow<'_, Fact> {
        match self {
            Held::StateChanged { tp, from, to } => Cow::Owned(Fact::PartitionStateChanged {
                tp: tp.clone(),
                from: *from,
                to: *to,
            }),
            Held::NoLiveReplica { tp, len, replicas } => Cow::Owned(
                Fact::PartitionStateChangeFailed(PartitionStateChangeError::NoLiveReplica {
                    tp: tp.clone(),
                    replicas: replicas
                        .iter()
                        .take(usize::from(*len))
                        .map(|&b| BrokerId(b))
                        .collect(),
                }),
            ),
            Held::Initialized {
                tp,
                led,
                leader,
                len,
                replicas,
                isr,
            } => {
                let replicas: Vec<BrokerId> = replicas
                    .iter()
                    .take(usize::from(*len))
                    .map(|&b| BrokerId(b))
                    .collect();
                Cow::Owned(Fact::LeaderInitialized {
                    leader: led.then_some(BrokerId(*leader)),
                    tp: tp.clone(),
                    isr: from_bits(&replicas, *isr),
                    replicas,
                })
            }
            Held::Packed { tp, words } => Cow::Owned(unpack(tp, words)),
            Held::Other(f) => Cow::Borrowed(f),
        }
    }
}

/// The ISR as bits over the replicas (bit `i`: `replicas[i]`), when the
/// bits give it back exactly (its members are replicas, in their order).
fn isr_bits(replicas: &[BrokerId], isr: &[BrokerId]) -> Option<u8> {
    let mut bits = 0u8;
    let mut next = 0;
    for b in isr {
        let i = next + replicas.get(next..)?.iter().position(|r| r == b)?;
        bits |= 1u8.checked_shl(u32::try_from(i).ok()?)?;
        next = i + 1;
    }
    (from_bits(replicas, bits) == isr).then_some(bits)
}

/// [`isr_bits`] read back.
fn from_bits(replicas: &[BrokerId], bits: u8) -> Vec<BrokerId> {
    replicas
        .iter()
        .enumerate()
        .filter(|(i, _)| u32::try_from(*i).is_ok_and(|i| i < 8 && bits & (1 << i) != 0))
        .map(|(_, b)| *b)
        .collect()
}

/// Words being written.
struct Writer(Vec<u32>);

impl Writer {
    fn word(&mut self, w: u32) {
        self.0.push(w);
    }

    fn broker(&mut self, b: BrokerId) {
        self.0.push(b.0);
    }

    /// Whether there is a broker, then the broker (0 without).
    fn maybe(&mut self, b: Option<BrokerId>) {
        self.0.push(u32::from(b.is_some()));
        self.0.push(b.map_or(0, |b| b.0));
    }

    /// The length, then the brokers.
    fn list(&mut self, l: &[BrokerId]) -> Option<()> {
        self.0.push(u32::try_from(l.len()).ok()?);
        self.0.extend(l.iter().map(|b| b.0));
        Some(())
    }
}

/// Words being read ([`Writer`]'s, so never short; a short read gives 0s).
struct Reader<'a> {
    words: &'a [u32],
    at: usize,
}

impl Reader<'_> {
    fn word(&mut self) -> u32 {
        let w = self.words.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        w
    }

    fn int(&mut self) -> i32 {
        self.word() as i32
    }

    fn broker(&mut self) -> BrokerId {
        BrokerId(self.word())
    }

    fn maybe(&mut self) -> Option<BrokerId> {
        let some = self.word() == 1;
        let b = self.broker();
        some.then_some(b)
    }

    fn list(&mut self) -> Vec<BrokerId> {
        let len = self.word() as usize;
        let from = self.at.min(self.words.len());
        let to = from.saturating_add(len).min(self.words.len());
        self.at = to;
        self.words[from..to].iter().map(|&b| BrokerId(b)).collect()
    }

    fn ids(&mut self) -> BrokerIds {
        BrokerIds::from(self.list())
    }
}

/// A per-partition fact's shape and numbers (not its partition), or `None`
/// for the facts held whole.
fn pack(f: &Fact) -> Option<Box<[u32]>> {
    let mut w = Writer(Vec::with_capacity(12));
    match f {
        Fact::LeaderElected {
            leader,
            why,
            leader_epoch,
            ..
        } => {
            w.word(LEADER_ELECTED);
            w.broker(*leader);
            w.word(*leader_epoch as u32);
            match why {
                ElectionWhy::OfflineClean { assignment, isr } => {
                    w.word(OFFLINE_CLEAN);
                    w.list(assignment)?;
                    w.list(isr)?;
                }
                ElectionWhy::OfflineUnclean {
                    isr,
                    assignment,
                    leader,
                } => {
                    w.word(OFFLINE_UNCLEAN);
                    w.list(isr)?;
                    w.list(assignment)?;
                    w.broker(*leader);
                }
                ElectionWhy::ReassignTarget { target, isr } => {
                    w.word(REASSIGN_TARGET);
                    w.list(target)?;
                    w.list(isr)?;
                }
                ElectionWhy::PreferredChosen {
                    leader,
                    assignment,
                    isr,
                } => {
                    w.word(PREFERRED_CHOSEN);
                    w.broker(*leader);
                    w.list(assignment)?;
                    w.list(isr)?;
                }
                ElectionWhy::ShutdownChosen {
                    assignment,
                    isr,
                    shutting_down,
                } => {
                    w.word(SHUTDOWN_CHOSEN);
                    w.list(assignment)?;
                    w.list(isr)?;
                    w.list(shutting_down)?;
                }
                _ => return None,
            }
        }
        Fact::LeaderInitialized {
            leader,
            replicas,
            isr,
            ..
        } => {
            w.word(LEADER_INITIALIZED);
            w.maybe(*leader);
            w.list(replicas)?;
            w.list(isr)?;
        }
        Fact::PartitionStateChangeFailed(PartitionStateChangeError::NoLiveReplica {
            replicas,
            ..
        }) => {
            w.word(NO_LIVE_REPLICA);
            w.list(replicas)?;
        }
        Fact::LeaderUpdatedIsr {
            leader,
            old,
            isr,
            zk_version,
            ..
        } => {
            w.word(LEADER_UPDATED_ISR);
            w.broker(*leader);
            w.list(old)?;
            w.list(isr)?;
            w.word(*zk_version as u32);
        }
        Fact::IsrShrunk {
            broker,
            leader,
            isr,
            leader_epoch,
            ..
        } => {
            w.word(ISR_SHRUNK);
            w.broker(*broker);
            w.maybe(*leader);
            w.list(isr)?;
            w.word(*leader_epoch as u32);
        }
        _ => return None,
    }
    Some(w.0.into_boxed_slice())
}

/// [`pack`] read back, with its partition.
fn unpack(tp: &TopicPartition, words: &[u32]) -> Fact {
    let mut r = Reader { words, at: 0 };
    let tp = tp.clone();
    match r.word() {
        LEADER_ELECTED => {
            let leader = r.broker();
            let leader_epoch = r.int();
            let why = match r.word() {
                OFFLINE_CLEAN => ElectionWhy::OfflineClean {
                    assignment: r.ids(),
                    isr: r.ids(),
                },
                OFFLINE_UNCLEAN => ElectionWhy::OfflineUnclean {
                    isr: r.ids(),
                    assignment: r.ids(),
                    leader: r.broker(),
                },
                REASSIGN_TARGET => ElectionWhy::ReassignTarget {
                    target: r.ids(),
                    isr: r.ids(),
                },
                PREFERRED_CHOSEN => ElectionWhy::PreferredChosen {
                    leader: r.broker(),
                    assignment: r.ids(),
                    isr: r.ids(),
                },
                _ => ElectionWhy::ShutdownChosen {
                    assignment: r.ids(),
                    isr: r.ids(),
                    shutting_down: r.ids(),
                },
            };
            Fact::LeaderElected {
                leader,
                tp,
                why,
                leader_epoch,
            }
        }
        LEADER_INITIALIZED => Fact::LeaderInitialized {
            leader: r.maybe(),
            tp,
            replicas: r.list(),
            isr: r.list(),
        },
        NO_LIVE_REPLICA => {
            Fact::PartitionStateChangeFailed(PartitionStateChangeError::NoLiveReplica {
                tp,
                replicas: r.list(),
            })
        }
        LEADER_UPDATED_ISR => Fact::LeaderUpdatedIsr {
            tp,
            leader: r.broker(),
            old: r.list(),
            isr: r.list(),
            zk_version: r.int(),
        },
        _ => Fact::IsrShrunk {
            tp,
            broker: r.broker(),
            leader: r.maybe(),
            isr: r.list(),
            leader_epoch: r.int(),
        },
    }
}
