//! A trace record's fact as held in memory. A large cluster's trace holds a
//! record per partition per state change, first leader and (while its
//! brokers register) election that found no live replica: those facts are
//! held inline, every other fact boxed whole (the rarer per-partition facts,
//! leader elections and ISR changes, too: a failover writes one per
//! partition the dead broker led, a few thousand; packing them cost the
//! page's `.wasm` more than they saved). Each fact has exactly one
//! form here, so two held facts are equal exactly when their facts are.

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
    /// Any other fact.
    Other(Box<Fact>),
}

/// How many replicas [`Held::NoLiveReplica`] holds inline.
const FEW: usize = 4;

/// How many replicas [`Held::Initialized`] holds inline.
const FEW_AR: usize = 3;

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
            f => Held::Other(Box::new(f)),
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
