//! A small map keyed by replica: what a leader keeps per follower of one
//! partition (at most the replication factor's worth of entries), as a
//! sorted list. Up to [`INLINE`] entries are kept in place, so that a
//! hosted replica (`broker::LocalPartition`) of the usual replication
//! factors holds no heap allocation and copying it is a plain copy; larger
//! maps go to the heap. It serializes as a map, as the `BTreeMap` it
//! replaces did.

use crate::ids::BrokerId;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;

/// How many entries a [`ReplicaMap`] keeps in place before it allocates:
/// a leader's view of its replicas at replication factor 3.
pub const INLINE: usize = 3;

/// Values by replica, sorted by broker id.
#[derive(Clone)]
pub struct ReplicaMap<V>(Repr<V>);

#[derive(Clone)]
enum Repr<V> {
    /// Nothing yet (no value to fill the slots with).
    Empty,
    /// Up to [`INLINE`] entries; those past `len` are stale.
    Inline {
        len: u8,
        ids: [BrokerId; INLINE],
        vals: [V; INLINE],
    },
    /// More.
    Heap(Vec<(BrokerId, V)>),
}

impl<V> Default for ReplicaMap<V> {
    fn default() -> Self {
        ReplicaMap(Repr::Empty)
    }
}

impl<V: Copy> ReplicaMap<V> {
    /// An empty map.
    pub fn new() -> Self {
        ReplicaMap::default()
    }

    /// How many entries.
    #[inline]
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Empty => 0,
            Repr::Inline { len, .. } => usize::from(*len),
            Repr::Heap(v) => v.len(),
        }
    }

    /// Where `replica` is, or would go.
    #[inline]
    fn find(&self, replica: BrokerId) -> Result<usize, usize> {
        match &self.0 {
            Repr::Empty => Err(0),
            Repr::Inline { len, ids, .. } => ids[..usize::from(*len)].binary_search(&replica),
            Repr::Heap(v) => v.binary_search_by_key(&replica, |(r, _)| *r),
        }
    }

    /// The value for `replica`.
    #[inline]
    pub fn get(&self, replica: &BrokerId) -> Option<&V> {
        let i = self.find(*replica).ok()?;
        match &self.0 {
            Repr::Empty => None,
            Repr::Inline { vals, .. } => vals.get(i),
            Repr::Heap(v) => v.get(i).map(|(_, x)| x),
        }
    }

    /// Set the value for `replica`; returns the one it replaced.
    pub fn insert(&mut self, replica: BrokerId, value: V) -> Option<V> {
        let at = self.find(replica);
        match (&mut self.0, at) {
            (Repr::Inline { vals, .. }, Ok(i)) => Some(std::mem::replace(&mut vals[i], value)),
            (Repr::Heap(v), Ok(i)) => Some(std::mem::replace(&mut v[i].1, value)),
            (Repr::Empty, _) => {
                self.0 = Repr::Inline {
                    len: 1,
                    ids: [replica; INLINE],
                    vals: [value; INLINE],
                };
                None
            }
            (Repr::Inline { len, ids, vals }, Err(i)) if usize::from(*len) < INLINE => {
                let n = usize::from(*len);
                ids.copy_within(i..n, i + 1);
                vals.copy_within(i..n, i + 1);
                ids[i] = replica;
                vals[i] = value;
                *len += 1;
                None
            }
            (Repr::Inline { len, ids, vals }, Err(i)) => {
                let n = usize::from(*len);
                let mut v: Vec<(BrokerId, V)> = Vec::with_capacity(n + 1);
                v.extend(ids[..n].iter().copied().zip(vals[..n].iter().copied()));
                v.insert(i, (replica, value));
                self.0 = Repr::Heap(v);
                None
            }
            (Repr::Heap(v), Err(i)) => {
                v.insert(i, (replica, value));
                None
            }
        }
    }

    /// Remove every entry.
    pub fn clear(&mut self) {
        self.0 = Repr::Empty;
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entries, by broker id.
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = (BrokerId, V)> + '_ {
        let (ids, vals, heap): (&[BrokerId], &[V], &[(BrokerId, V)]) = match &self.0 {
            Repr::Empty => (&[], &[], &[]),
            Repr::Inline { len, ids, vals } => {
                let n = usize::from(*len);
                (&ids[..n], &vals[..n], &[])
            }
            Repr::Heap(v) => (&[], &[], v),
        };
        ids.iter()
            .copied()
            .zip(vals.iter().copied())
            .chain(heap.iter().copied())
    }
}

impl<V: Copy + PartialEq> PartialEq for ReplicaMap<V> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<V: Copy + Eq> Eq for ReplicaMap<V> {}

impl<V: Copy + std::fmt::Debug> std::fmt::Debug for ReplicaMap<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ReplicaMap")
            .field(&self.iter().collect::<Vec<_>>())
            .finish()
    }
}

impl<V: Copy> FromIterator<(BrokerId, V)> for ReplicaMap<V> {
    fn from_iter<I: IntoIterator<Item = (BrokerId, V)>>(iter: I) -> Self {
        let mut m = ReplicaMap::new();
        for (r, v) in iter {
            m.insert(r, v);
        }
        m
    }
}

impl<V: Serialize + Copy> Serialize for ReplicaMap<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de, V: Deserialize<'de> + Copy> Deserialize<'de> for ReplicaMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let m = BTreeMap::<BrokerId, V>::deserialize(d)?;
        Ok(m.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_keeps_one_value_per_replica_in_broker_order_and_serializes_as_a_map() {
        let mut m: ReplicaMap<u64> = [(BrokerId(3), 7), (BrokerId(1), 5)].into_iter().collect();
        assert_eq!(m.insert(BrokerId(3), 8), Some(7));
        assert_eq!(m.insert(BrokerId(2), 1), None);
        assert_eq!(m.get(&BrokerId(3)), Some(&8));
        assert_eq!(m.get(&BrokerId(4)), None);
        let json = serde_json::to_string(&m).unwrap();
        let old: BTreeMap<BrokerId, u64> =
            [(BrokerId(1), 5), (BrokerId(2), 1), (BrokerId(3), 8)].into();
        assert_eq!(json, serde_json::to_string(&old).unwrap());
        assert_eq!(serde_json::from_str::<ReplicaMap<u64>>(&json).unwrap(), m);
        m.clear();
        assert!(m.is_empty());
    }

    #[test]
    fn past_the_inline_entries_it_spills_to_the_heap_and_still_compares_by_entries() {
        let ids = [5u32, 1, 9, 3, 7, 2];
        let mut m: ReplicaMap<u64> = ReplicaMap::new();
        let mut b: BTreeMap<BrokerId, u64> = BTreeMap::new();
        for (n, id) in ids.into_iter().enumerate() {
            assert_eq!(
                m.insert(BrokerId(id), n as u64),
                b.insert(BrokerId(id), n as u64)
            );
            assert!(m.iter().eq(b.iter().map(|(r, v)| (*r, *v))));
            assert_eq!(m.len(), b.len());
        }
        assert_eq!(m.insert(BrokerId(9), 42), Some(2));
        assert_eq!(m.get(&BrokerId(9)), Some(&42));
        assert_eq!(m.get(&BrokerId(4)), None);
        // The same entries, one map cleared and filled again (stale slots
        // behind its length), compare equal.
        let mut a: ReplicaMap<u64> = [(BrokerId(1), 1), (BrokerId(2), 2), (BrokerId(3), 3)]
            .into_iter()
            .collect();
        a.clear();
        a.insert(BrokerId(1), 1);
        let one: ReplicaMap<u64> = [(BrokerId(1), 1)].into_iter().collect();
        assert_eq!(a, one);
        assert_ne!(a, ReplicaMap::new());
    }
}
