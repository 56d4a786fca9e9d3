//! A small map keyed by replica: what a leader keeps per follower of one
//! partition (at most the replication factor's worth of entries), as a
//! sorted inline list rather than a tree. It serializes as a map, as the
//! `BTreeMap` it replaces did.

use crate::ids::BrokerId;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;

/// Values by replica, sorted by broker id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaMap<V>(Vec<(BrokerId, V)>);

impl<V> Default for ReplicaMap<V> {
    fn default() -> Self {
        ReplicaMap(Vec::new())
    }
}

impl<V: Copy> ReplicaMap<V> {
    /// An empty map.
    pub fn new() -> Self {
        ReplicaMap::default()
    }

    /// The value for `replica`.
    pub fn get(&self, replica: &BrokerId) -> Option<&V> {
        self.0
            .binary_search_by_key(replica, |(r, _)| *r)
            .ok()
            .map(|i| &self.0[i].1)
    }

    /// Set the value for `replica`; returns the one it replaced.
    pub fn insert(&mut self, replica: BrokerId, value: V) -> Option<V> {
        match self.0.binary_search_by_key(&replica, |(r, _)| *r) {
            Ok(i) => Some(std::mem::replace(&mut self.0[i].1, value)),
            Err(i) => {
                self.0.insert(i, (replica, value));
                None
            }
        }
    }

    /// Remove every entry.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The entries, by broker id.
    pub fn iter(&self) -> impl Iterator<Item = (BrokerId, V)> + '_ {
        self.0.iter().copied()
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

impl<V: Serialize> Serialize for ReplicaMap<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(r, v)| (r, v)))
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
}
