//! A trace record's fact as held in memory. A large cluster's trace holds a
//! record per partition per state change, first leader and (while its
//! brokers register) election that found no live replica: those facts are
//! held inline in 16 bytes, every other fact boxed whole (the rarer
//! per-partition facts, leader elections and ISR changes, too: a failover
//! writes one per partition the dead broker led, a few thousand; packing
//! them cost the page's `.wasm` more than they saved). Inline, a topic is
//! the [`Label`] of its name (4 bytes: the name's text once, for the life
//! of the process), the replicas of the two facts that list them are
//! broker ids below 65,536 (a fact with larger ids is boxed), and a first
//! leader is its place among them. Each fact has exactly one form here, so
//! two held facts are equal exactly when their facts are.

use super::Label;
use crate::controller::states::{PartitionState, PartitionStateChangeError};
use crate::fact::Fact;
use crate::ids::{BrokerId, Topic, TopicPartition};
use std::borrow::Cow;
use std::cell::RefCell;

/// A fact as held (16 bytes with its tag on 64-bit targets: the inline
/// forms fit beside the tag, the box after it).
#[derive(Clone, PartialEq, Eq)]
pub(super) enum Held {
    /// [`Fact::PartitionStateChanged`].
    StateChanged {
        topic: Label,
        partition: u32,
        from: PartitionState,
        to: PartitionState,
    },
    /// [`Fact::PartitionStateChangeFailed`] with
    /// [`PartitionStateChangeError::NoLiveReplica`] and at most
    /// [`FEW`] replicas (a cluster's start-up writes one for each partition
    /// whose replicas have not registered yet): inline, no box.
    NoLiveReplica {
        topic: Label,
        partition: u32,
        len: u8,
        replicas: [u16; FEW],
    },
    /// [`Fact::LeaderInitialized`] with at most [`FEW_AR`] replicas and
    /// its ISR those of them marked in `bits` (in the replicas' order, as
    /// the controller chooses it: the live replicas of AR): inline, no box.
    Initialized {
        topic: Label,
        partition: u32,
        replicas: [u16; FEW_AR],
        /// Bits 0 to 2: `replicas[i]` is in the ISR; bits 3 and 4: how many
        /// replicas; bits 5 and 6: the leader's place among them, 3 for no
        /// leader.
        bits: u8,
    },
    /// Any other fact.
    Other(Box<Fact>),
}

/// How many replicas [`Held::NoLiveReplica`] holds inline.
const FEW: usize = 3;

/// How many replicas [`Held::Initialized`] holds inline.
const FEW_AR: usize = 3;

/// [`Held::Initialized`]'s leader place when there is none.
const NO_LEADER: u8 = 3;

thread_local! {
    /// The last topic named and its label: a large cluster's records come
    /// topic by topic, so most records find their label here without
    /// reading the table (the `Topic` held keeps its name interned, so
    /// comparing the two is a pointer comparison).
    static LAST_TOPIC: RefCell<Option<(Topic, Label)>> = const { RefCell::new(None) };
}

/// The label of `topic`'s name.
fn topic_label(topic: &Topic) -> Label {
    LAST_TOPIC.with(|last| {
        let mut last = last.borrow_mut();
        match &*last {
            Some((t, l)) if t == topic => l.clone(),
            _ => {
                let l = Label::from(topic.as_str());
                *last = Some((topic.clone(), l.clone()));
                l
            }
        }
    })
}

/// The partition of `topic`'s label.
fn tp(topic: &Label, partition: u32) -> TopicPartition {
    TopicPartition::new(topic.as_str(), partition)
}

/// `ids` as small numbers in `N` slots, when there are at most `N` and each
/// is below 65,536.
fn small<const N: usize>(ids: &[BrokerId]) -> Option<[u16; N]> {
    if ids.len() > N {
        return None;
    }
    let mut inline = [0; N];
    for (slot, b) in inline.iter_mut().zip(ids) {
        *slot = u16::try_from(b.0).ok()?;
    }
    Some(inline)
}

impl From<Fact> for Held {
    fn from(f: Fact) -> Held {
        match f {
            Fact::PartitionStateChanged { tp, from, to } => Held::StateChanged {
                topic: topic_label(&tp.topic),
                partition: tp.partition,
                from,
                to,
            },
            f => inline(&f).unwrap_or_else(|| Held::Other(Box::new(f))),
        }
    }
}

/// The inline form of a fact that lists replicas, when it has one.
fn inline(f: &Fact) -> Option<Held> {
    match f {
        Fact::PartitionStateChangeFailed(PartitionStateChangeError::NoLiveReplica {
            tp,
            replicas,
        }) => Some(Held::NoLiveReplica {
            replicas: small::<FEW>(replicas)?,
            partition: tp.partition,
            len: replicas.len() as u8,
            topic: topic_label(&tp.topic),
        }),
        Fact::LeaderInitialized {
            leader,
            tp,
            replicas,
            isr,
        } => Some(Held::Initialized {
            replicas: small::<FEW_AR>(replicas)?,
            bits: isr_bits(replicas, isr)?
                | (replicas.len() as u8) << 3
                | match leader {
                    None => NO_LEADER,
                    // A leader that is not a replica is boxed.
                    Some(l) => u8::try_from(replicas.iter().position(|r| r == l)?).ok()?,
                } << 5,
            partition: tp.partition,
            topic: topic_label(&tp.topic),
        }),
        _ => None,
    }
}

impl Held {
    /// The fact: borrowed when held whole, rebuilt otherwise.
    pub(super) fn fact(&self) -> Cow<'_, Fact> {
        match self {
            Held::StateChanged {
                topic,
                partition,
                from,
                to,
            } => Cow::Owned(Fact::PartitionStateChanged {
                tp: tp(topic, *partition),
                from: *from,
                to: *to,
            }),
            Held::NoLiveReplica {
                topic,
                partition,
                len,
                replicas,
            } => Cow::Owned(Fact::PartitionStateChangeFailed(
                PartitionStateChangeError::NoLiveReplica {
                    tp: tp(topic, *partition),
                    replicas: ids(replicas, *len),
                },
            )),
            Held::Initialized {
                topic,
                partition,
                replicas,
                bits,
            } => {
                let replicas = ids(replicas, bits >> 3 & 0b11);
                Cow::Owned(Fact::LeaderInitialized {
                    leader: replicas.get(usize::from(bits >> 5)).copied(),
                    tp: tp(topic, *partition),
                    isr: from_bits(&replicas, bits & 0b111),
                    replicas,
                })
            }
            Held::Other(f) => Cow::Borrowed(f),
        }
    }
}

/// The first `len` of `inline` as broker ids.
fn ids(inline: &[u16], len: u8) -> Vec<BrokerId> {
    inline
        .iter()
        .take(usize::from(len))
        .map(|&b| BrokerId(u32::from(b)))
        .collect()
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
