//! A partition's short lists of broker ids as they are held by the
//! hundred thousand: [`ReplicaIds`] (one list, three ids in place, 16
//! bytes: the controller's assignments and the ISR of its leaderships) and
//! [`ReplicaLists`] (a partition's assigned replicas and its ISR together in
//! 16 bytes: a hosted replica's, and a LeaderAndIsr or UpdateMetadata
//! request's, which the metadata caches share). Both read as slices and
//! compare, print and serialize as the lists they hold.

use crate::controller::election::BrokerIds;
use crate::ids::BrokerId;
use serde::{Deserialize, Serialize};

/// A partition's assigned replicas and its ISR, as a hosted replica holds
/// them: up to three replicas in place and the ISR as their places (its
/// length and each member's place in two bits: the ISR is a list among the
/// replicas, in its own order), 16 bytes in all; a longer list, or an ISR
/// naming a broker that is not a replica, as two lists on the heap.
#[derive(Clone)]
pub struct ReplicaLists(ListsRepr);

#[derive(Clone)]
enum ListsRepr {
    Few {
        len: u8,
        /// The ISR's length in bits 6 and 7, its `i`th member's place
        /// among the replicas in bits `2i` and `2i + 1`.
        isr: u8,
        ids: [BrokerId; 3],
    },
    // The box keeps the long form one word wide, so the whole is 16 bytes.
    #[allow(clippy::box_collection)]
    Many(Box<(ReplicaIds, ReplicaIds)>),
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<ReplicaLists>() == 16);

impl ReplicaLists {
    /// `replicas` and `isr`.
    pub fn new(replicas: &[BrokerId], isr: &[BrokerId]) -> ReplicaLists {
        ReplicaLists::few(replicas, isr).unwrap_or_else(|| {
            ReplicaLists(ListsRepr::Many(Box::new((
                ReplicaIds::from(replicas),
                ReplicaIds::from(isr),
            ))))
        })
    }

    fn few(replicas: &[BrokerId], isr: &[BrokerId]) -> Option<ReplicaLists> {
        let mut ids = [BrokerId(0); 3];
        ids.get_mut(..replicas.len())?.copy_from_slice(replicas);
        if isr.len() > 3 {
            return None;
        }
        let mut code = (isr.len() as u8) << 6;
        for (i, b) in isr.iter().enumerate() {
            let at = replicas.iter().position(|r| r == b)?;
            code |= (at as u8) << (2 * i);
        }
        Some(ReplicaLists(ListsRepr::Few {
            len: replicas.len() as u8,
            isr: code,
            ids,
        }))
    }

    /// The assigned replicas.
    #[inline]
    pub fn replicas(&self) -> &[BrokerId] {
        match &self.0 {
            ListsRepr::Few { len, ids, .. } => ids.get(..usize::from(*len)).unwrap_or(&[]),
            ListsRepr::Many(m) => &m.0,
        }
    }

    /// The in-place ISR's members, in order: member `i` is the replica at
    /// the place in bits `2i` and `2i + 1` of `isr`.
    #[inline]
    fn few_isr(isr: u8, ids: &[BrokerId; 3]) -> impl Iterator<Item = BrokerId> + '_ {
        (0..usize::from(isr >> 6))
            .filter_map(move |i| ids.get(usize::from(isr >> (2 * i) & 3)).copied())
    }

    /// The ISR.
    #[inline]
    pub fn isr(&self) -> ReplicaIds {
        match &self.0 {
            ListsRepr::Few { isr, ids, .. } => {
                let mut out = [BrokerId(0); 3];
                for (slot, b) in out.iter_mut().zip(Self::few_isr(*isr, ids)) {
                    *slot = b;
                }
                ReplicaIds(IdsRepr::Inline {
                    len: isr >> 6,
                    ids: out,
                })
            }
            ListsRepr::Many(m) => m.1.clone(),
        }
    }

    /// `f` of the ISR: the replicas' own ids when the ISR is their first
    /// members in their order (a healthy partition's), a copy otherwise.
    #[inline]
    pub fn with_isr<R>(&self, f: impl FnOnce(&[BrokerId]) -> R) -> R {
        if let ListsRepr::Few { isr, ids, .. } = &self.0 {
            let n = usize::from(isr >> 6);
            if isr & 0x3F == 0b10_01_00 & ((1u8 << (2 * n)) - 1) {
                return f(ids.get(..n).unwrap_or(&[]));
            }
        }
        f(&self.isr())
    }

    /// How many in the ISR.
    #[inline]
    pub fn isr_len(&self) -> usize {
        match &self.0 {
            ListsRepr::Few { isr, .. } => usize::from(isr >> 6),
            ListsRepr::Many(m) => m.1.len(),
        }
    }

    /// Whether `b` is in the ISR.
    #[inline]
    pub fn isr_contains(&self, b: &BrokerId) -> bool {
        match &self.0 {
            ListsRepr::Few { isr, ids, .. } => Self::few_isr(*isr, ids).any(|r| r == *b),
            ListsRepr::Many(m) => m.1.contains(b),
        }
    }
}

impl PartialEq for ReplicaLists {
    fn eq(&self, other: &ReplicaLists) -> bool {
        self.replicas() == other.replicas() && self.isr() == other.isr()
    }
}

impl Eq for ReplicaLists {}

impl std::fmt::Debug for ReplicaLists {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplicaLists")
            .field("replicas", &self.replicas())
            .field("isr", &self.isr())
            .finish()
    }
}

/// A short list of broker ids held per partition (the controller's
/// assignments and the ISR of its leaderships; a hosted replica's and a
/// request's lists are a [`ReplicaLists`]): up to three in place, in 16
/// bytes; a longer list goes to the heap. Reads as a
/// slice, and compares, prints and serializes as a list, as [`BrokerIds`]
/// does (which keeps six in place, in 32 bytes: the controller's elections
/// work on it, where lists of a reassignment's replicas are common).
#[derive(Clone)]
pub struct ReplicaIds(IdsRepr);

#[derive(Clone)]
// The box keeps the long form one word wide, so the whole is 16 bytes.
#[allow(clippy::box_collection)]
enum IdsRepr {
    Inline { len: u8, ids: [BrokerId; 3] },
    Heap(Box<Vec<BrokerId>>),
}

impl ReplicaIds {
    /// No ids.
    pub const fn new() -> ReplicaIds {
        ReplicaIds(IdsRepr::Inline {
            len: 0,
            ids: [BrokerId(0); 3],
        })
    }
}

impl ReplicaIds {
    /// `id` added at the end.
    pub fn push(&mut self, id: BrokerId) {
        match &mut self.0 {
            IdsRepr::Inline { len, ids } => match ids.get_mut(usize::from(*len)) {
                Some(free) => {
                    *free = id;
                    *len += 1;
                }
                None => {
                    let mut v = ids.to_vec();
                    v.push(id);
                    self.0 = IdsRepr::Heap(Box::new(v));
                }
            },
            IdsRepr::Heap(v) => v.push(id),
        }
    }
}

impl Default for ReplicaIds {
    fn default() -> ReplicaIds {
        ReplicaIds::new()
    }
}

impl std::ops::Deref for ReplicaIds {
    type Target = [BrokerId];
    #[inline]
    fn deref(&self) -> &[BrokerId] {
        match &self.0 {
            IdsRepr::Inline { len, ids } => ids.get(..usize::from(*len)).unwrap_or(&[]),
            IdsRepr::Heap(v) => v,
        }
    }
}

impl From<&[BrokerId]> for ReplicaIds {
    #[inline]
    fn from(from: &[BrokerId]) -> ReplicaIds {
        let mut ids = [BrokerId(0); 3];
        match ids.get_mut(..from.len()) {
            Some(to) => {
                to.copy_from_slice(from);
                ReplicaIds(IdsRepr::Inline {
                    len: from.len() as u8,
                    ids,
                })
            }
            None => ReplicaIds(IdsRepr::Heap(Box::new(from.to_vec()))),
        }
    }
}

impl From<BrokerIds> for ReplicaIds {
    fn from(from: BrokerIds) -> ReplicaIds {
        ReplicaIds::from(&from[..])
    }
}

impl From<Vec<BrokerId>> for ReplicaIds {
    fn from(from: Vec<BrokerId>) -> ReplicaIds {
        ReplicaIds::from(&from[..])
    }
}

impl FromIterator<BrokerId> for ReplicaIds {
    fn from_iter<I: IntoIterator<Item = BrokerId>>(iter: I) -> ReplicaIds {
        // Straight into the list's own form, as `From<&[BrokerId]>` makes
        // it: in place up to three, on the heap beyond.
        let mut ids = [BrokerId(0); 3];
        let mut len = 0;
        let mut iter = iter.into_iter();
        while let Some(id) = iter.next() {
            match ids.get_mut(len) {
                Some(slot) => {
                    *slot = id;
                    len += 1;
                }
                None => {
                    let mut v = ids.to_vec();
                    v.push(id);
                    v.extend(iter);
                    return ReplicaIds(IdsRepr::Heap(Box::new(v)));
                }
            }
        }
        ReplicaIds(IdsRepr::Inline {
            len: len as u8,
            ids,
        })
    }
}

impl<'a> IntoIterator for &'a ReplicaIds {
    type Item = &'a BrokerId;
    type IntoIter = std::slice::Iter<'a, BrokerId>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl PartialEq for ReplicaIds {
    fn eq(&self, other: &ReplicaIds) -> bool {
        **self == **other
    }
}

impl Eq for ReplicaIds {}

impl std::fmt::Debug for ReplicaIds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for ReplicaIds {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for ReplicaIds {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        BrokerIds::deserialize(d).map(|v| ReplicaIds::from(&v[..]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list collected from ids is the one made from their slice: the same
    /// ids, the same form (in place up to three, on the heap beyond), equal.
    #[test]
    fn collected_ids_are_the_list_made_from_their_slice() {
        for n in 0..7u32 {
            let ids: Vec<BrokerId> = (0..n).map(|i| BrokerId(10 - i)).collect();
            let collected: ReplicaIds = ids.iter().copied().collect();
            let made = ReplicaIds::from(&ids[..]);
            assert_eq!(&collected[..], &ids[..]);
            assert_eq!(collected, made);
            assert_eq!(
                matches!(collected.0, IdsRepr::Inline { .. }),
                matches!(made.0, IdsRepr::Inline { .. })
            );
        }
    }

    /// A hosted replica's assigned replicas and ISR read back as they were
    /// given, in order, whatever their lengths and whether the ISR names
    /// only replicas (in place) or not (on the heap); the two forms compare
    /// by content. (Kafka: `Partition`'s `assignment` and `inSyncReplicas`,
    /// set by `makeLeader`/`makeFollower` and by ISR changes.)
    #[test]
    fn replica_lists_read_back_as_given() {
        let mut rng = crate::rng::Rng::new(5);
        for _ in 0..3_000 {
            let replicas: Vec<BrokerId> = (0..rng.below(6))
                .map(|_| BrokerId(rng.below(8) as u32))
                .collect();
            let isr: Vec<BrokerId> = (0..rng.below(5))
                .map(|_| match (rng.below(4), replicas.is_empty()) {
                    (0, _) | (_, true) => BrokerId(rng.below(10) as u32),
                    _ => replicas[rng.below(replicas.len() as u64) as usize],
                })
                .collect();
            let lists = ReplicaLists::new(&replicas, &isr);
            assert_eq!(lists.replicas(), &replicas[..]);
            assert_eq!(lists.isr().to_vec(), isr);
            assert_eq!(lists.with_isr(|s| s.to_vec()), isr);
            assert_eq!(lists.isr_len(), isr.len());
            for b in (0..10).map(BrokerId) {
                assert_eq!(lists.isr_contains(&b), isr.contains(&b));
            }
            let on_heap = ReplicaLists(ListsRepr::Many(Box::new((
                ReplicaIds::from(&replicas[..]),
                ReplicaIds::from(&isr[..]),
            ))));
            assert_eq!(lists, on_heap);
            let in_place =
                replicas.len() <= 3 && isr.iter().all(|b| replicas.contains(b)) && isr.len() <= 3;
            assert_eq!(matches!(lists.0, ListsRepr::Few { .. }), in_place);
            let mut p = crate::broker::LocalPartition::new(1, 0, &replicas, &[], 0, 0);
            p.set_isr(&isr);
            assert_eq!(
                (p.replicas(), p.isr().to_vec()),
                (&replicas[..], isr.clone())
            );
            // It prints as its two fields did.
            let printed = format!("{p:?}");
            let want = format!(
                "LocalPartition {{ leader: 1, leader_epoch: 0, isr: {isr:?}, replicas: {replicas:?}, zk_version: 0"
            );
            assert!(printed.starts_with(&want), "{printed}");
        }
    }
}
