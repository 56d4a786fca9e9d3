//! The ReplicaStateMachine's states, kept by partition: one entry per
//! partition holding its replicas' states side by side, sorted by broker
//! (up to three in place, in 16 bytes, on the heap beyond: a reassignment's
//! partition, which names its old and new replicas), instead of one map entry per
//! replica. It reads, iterates, compares, prints and serializes exactly as
//! the map by `(partition, broker)` it replaces.

use super::states::ReplicaState;
use crate::ids::{BrokerId, TopicPartition};
use crate::partition_map::PartitionMap;
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How many replicas' states a partition keeps in place before it allocates.
const INLINE_REPLICAS: usize = 3;

#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<PartitionReplicaStates>() == 16);

/// One partition's replicas' states, sorted by broker id; never empty
/// inside [`ReplicaStates`].
#[derive(Clone)]
pub struct PartitionReplicaStates(Repr);

#[derive(Clone)]
enum Repr {
    Inline {
        len: u8,
        brokers: [BrokerId; INLINE_REPLICAS],
        states: [ReplicaState; INLINE_REPLICAS],
    },
    Heap(Box<(Vec<BrokerId>, Vec<ReplicaState>)>),
}

impl PartitionReplicaStates {
    /// No replicas.
    pub const fn new() -> PartitionReplicaStates {
        PartitionReplicaStates(Repr::Inline {
            len: 0,
            brokers: [BrokerId(0); INLINE_REPLICAS],
            states: [ReplicaState::NonExistentReplica; INLINE_REPLICAS],
        })
    }

    /// The brokers (ascending) and their replicas' states, side by side.
    #[inline]
    pub fn parts(&self) -> (&[BrokerId], &[ReplicaState]) {
        match &self.0 {
            Repr::Inline {
                len,
                brokers,
                states,
            } => {
                let n = usize::from(*len);
                (&brokers[..n], &states[..n])
            }
            Repr::Heap(h) => (&h.0, &h.1),
        }
    }

    /// How many replicas.
    pub fn len(&self) -> usize {
        self.parts().0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The state of the replica on `broker`.
    #[inline]
    pub fn get(&self, broker: BrokerId) -> Option<ReplicaState> {
        let (brokers, states) = self.parts();
        let i = brokers.binary_search(&broker).ok()?;
        states.get(i).copied()
    }

    /// The replicas in broker order with their states.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (BrokerId, ReplicaState)> + '_ {
        let (brokers, states) = self.parts();
        brokers.iter().copied().zip(states.iter().copied())
    }

    /// Set the state of the replica on `broker`; returns the one it replaced.
    pub fn set(&mut self, broker: BrokerId, state: ReplicaState) -> Option<ReplicaState> {
        let at = self.parts().0.binary_search(&broker);
        match (&mut self.0, at) {
            (Repr::Inline { states, .. }, Ok(i)) => {
                states.get_mut(i).map(|s| std::mem::replace(s, state))
            }
            (Repr::Heap(h), Ok(i)) => h.1.get_mut(i).map(|s| std::mem::replace(s, state)),
            (
                Repr::Inline {
                    len,
                    brokers,
                    states,
                },
                Err(i),
            ) if usize::from(*len) < INLINE_REPLICAS => {
                // Shifted one by one (a few in place: a loop, where
                // `copy_within` calls `memmove`).
                let n = usize::from(*len);
                for j in (i..n).rev() {
                    brokers[j + 1] = brokers[j];
                    states[j + 1] = states[j];
                }
                brokers[i] = broker;
                states[i] = state;
                *len += 1;
                None
            }
            (Repr::Inline { .. }, Err(i)) => {
                let (b, s) = self.parts();
                let (mut b, mut s) = (b.to_vec(), s.to_vec());
                b.insert(i, broker);
                s.insert(i, state);
                self.0 = Repr::Heap(Box::new((b, s)));
                None
            }
            (Repr::Heap(h), Err(i)) => {
                h.0.insert(i, broker);
                h.1.insert(i, state);
                None
            }
        }
    }

    /// Remove the replica on `broker`; returns its state.
    pub fn remove(&mut self, broker: BrokerId) -> Option<ReplicaState> {
        let i = self.parts().0.binary_search(&broker).ok()?;
        match &mut self.0 {
            Repr::Inline {
                len,
                brokers,
                states,
            } => {
                let n = usize::from(*len);
                let old = states.get(i).copied();
                for j in i + 1..n {
                    brokers[j - 1] = brokers[j];
                    states[j - 1] = states[j];
                }
                *len -= 1;
                old
            }
            Repr::Heap(h) => {
                h.0.remove(i);
                Some(h.1.remove(i))
            }
        }
    }
}

impl Default for PartitionReplicaStates {
    fn default() -> PartitionReplicaStates {
        PartitionReplicaStates::new()
    }
}

impl PartialEq for PartitionReplicaStates {
    fn eq(&self, other: &PartitionReplicaStates) -> bool {
        self.parts() == other.parts()
    }
}

impl Eq for PartitionReplicaStates {}

impl std::fmt::Debug for PartitionReplicaStates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// The ReplicaStateMachine's states by partition (see the module's doc).
/// A partition's entry is removed with its last replica, so two of these
/// are equal exactly when they hold the same replicas in the same states.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ReplicaStates(PartitionMap<PartitionReplicaStates>);

impl ReplicaStates {
    /// No states.
    pub fn new() -> ReplicaStates {
        ReplicaStates::default()
    }

    /// From each partition's replicas' states, the partitions in ascending
    /// order (partitions without replicas are left out).
    pub fn from_sorted(
        mut entries: Vec<(TopicPartition, PartitionReplicaStates)>,
    ) -> ReplicaStates {
        entries.retain(|(_, r)| !r.is_empty());
        ReplicaStates(PartitionMap::from_sorted(entries))
    }

    /// From each partition's replicas' states, none empty.
    pub fn from_map(entries: PartitionMap<PartitionReplicaStates>) -> ReplicaStates {
        debug_assert!(entries.iter().all(|(_, r)| !r.is_empty()));
        ReplicaStates(entries)
    }

    /// Whether no replica has a state.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many replicas have a state.
    pub fn len(&self) -> usize {
        self.0.values().map(PartitionReplicaStates::len).sum()
    }

    /// The state of the replica of `tp` on `broker`.
    #[inline]
    pub fn get(&self, tp: &TopicPartition, broker: BrokerId) -> Option<ReplicaState> {
        self.0.get(tp)?.get(broker)
    }

    /// The states of `tp`'s replicas.
    pub fn of_partition(&self, tp: &TopicPartition) -> Option<&PartitionReplicaStates> {
        self.0.get(tp)
    }

    /// Set the state of the replica of `tp` on `broker`. Its partition's
    /// chunk is copied (when shared) only if the state changes.
    pub fn set(&mut self, tp: &TopicPartition, broker: BrokerId, state: ReplicaState) {
        self.0.insert_with(tp, |current| {
            if current.is_some_and(|c| c.get(broker) == Some(state)) {
                return None;
            }
            let mut r = current.cloned().unwrap_or_default();
            r.set(broker, state);
            Some(r)
        });
    }

    /// Remove the replica of `tp` on `broker` (and the partition's entry
    /// with its last replica); returns its state.
    pub fn remove(&mut self, tp: &TopicPartition, broker: BrokerId) -> Option<ReplicaState> {
        let r = self.0.get_mut_if(tp, |r| r.get(broker).is_some())?;
        let old = r.remove(broker);
        if r.is_empty() {
            self.0.remove(tp);
        }
        old
    }

    /// Keep only the partitions `keep` accepts.
    pub fn retain_partitions(&mut self, mut keep: impl FnMut(&TopicPartition) -> bool) {
        self.0.retain(|tp, _| keep(tp));
    }

    /// Every replica's state in (partition, broker) order.
    pub fn iter(&self) -> impl Iterator<Item = ((TopicPartition, BrokerId), ReplicaState)> + '_ {
        self.0
            .iter()
            .flat_map(|(tp, r)| r.iter().map(move |(b, s)| ((tp.clone(), b), s)))
    }
}

impl std::fmt::Debug for ReplicaStates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Serialize for ReplicaStates {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for ReplicaStates {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ReplicaStates, D::Error> {
        struct StatesVisitor;
        impl<'de> Visitor<'de> for StatesVisitor {
            type Value = ReplicaStates;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a map of (partition, broker) to replica state")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ReplicaStates, A::Error> {
                let mut out = ReplicaStates::new();
                while let Some(((tp, broker), state)) =
                    map.next_entry::<(TopicPartition, BrokerId), ReplicaState>()?
                {
                    out.set(&tp, broker, state);
                }
                Ok(out)
            }
        }
        d.deserialize_map(StatesVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cow_map::CowMap;
    use std::collections::BTreeMap;

    type Old = CowMap<(TopicPartition, BrokerId), ReplicaState>;

    /// Checks the new form against the old map and a `BTreeMap` model:
    /// the same entries in the same order, the same lookups, the same
    /// `Debug` text and the same serialization.
    fn assert_same(
        new: &ReplicaStates,
        old: &Old,
        model: &BTreeMap<(TopicPartition, BrokerId), ReplicaState>,
    ) {
        let entries: Vec<((TopicPartition, BrokerId), ReplicaState)> = new
            .iter()
            .map(|((tp, b), s)| ((tp.clone(), b), s))
            .collect();
        let old_entries: Vec<((TopicPartition, BrokerId), ReplicaState)> =
            old.iter().map(|(k, s)| (k.clone(), *s)).collect();
        let model_entries: Vec<((TopicPartition, BrokerId), ReplicaState)> =
            model.iter().map(|(k, s)| (k.clone(), *s)).collect();
        assert_eq!(entries, old_entries);
        assert_eq!(entries, model_entries);
        assert_eq!(new.len(), model.len());
        assert_eq!(new.is_empty(), model.is_empty());
        assert_eq!(format!("{new:?}"), format!("{old:?}"));
        assert_eq!(format!("{new:#?}"), format!("{old:#?}"));
        // JSON has no tuple keys: both forms are refused alike.
        assert_eq!(
            serde_json::to_string(new).map_err(|e| e.to_string()),
            serde_json::to_string(old).map_err(|e| e.to_string())
        );
        for ((tp, b), s) in model {
            assert_eq!(new.get(tp, *b), Some(*s));
            let of = new.of_partition(tp).map(|r| r.iter().collect::<Vec<_>>());
            let want: Vec<(BrokerId, ReplicaState)> = model
                .iter()
                .filter(|((t, _), _)| t == tp)
                .map(|((_, b), s)| (*b, *s))
                .collect();
            assert_eq!(of, Some(want));
        }
    }

    /// Seeded sets, removes and topic removals applied to the new form,
    /// the old per-replica map and a `BTreeMap` leave all three alike
    /// (partitions with up to nine replicas, past the three kept in place),
    /// and a clone changed apart from its original leaves the original as
    /// it was and compares unequal to it.
    #[test]
    fn states_by_partition_behave_as_the_map_by_replica() {
        let mut new = ReplicaStates::new();
        let mut old = Old::new();
        let mut model = BTreeMap::new();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut saved = None;
        for step in 0..30_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let topic = ["a", "b", "c"][(x % 3) as usize];
            let tp = TopicPartition::new(topic, ((x >> 8) % 40) as u32);
            let b = BrokerId(((x >> 16) % 9) as u32);
            let s = ReplicaState::ALL[((x >> 24) % 7) as usize];
            match (x >> 32) % 100 {
                0..=59 => {
                    new.set(&tp, b, s);
                    old.insert((tp.clone(), b), s);
                    model.insert((tp, b), s);
                }
                60..=98 => {
                    let got = new.remove(&tp, b);
                    assert_eq!(got, old.remove(&(tp.clone(), b)));
                    assert_eq!(got, model.remove(&(tp, b)));
                }
                _ => {
                    new.retain_partitions(|tp| tp.topic != topic);
                    old.retain(|(tp, _), _| tp.topic != topic);
                    model.retain(|(tp, _), _| tp.topic != topic);
                }
            }
            if step % 1_000 == 0 {
                assert_same(&new, &old, &model);
            }
            if step == 15_000 {
                saved = Some((new.clone(), old.clone(), model.clone()));
            }
        }
        assert_same(&new, &old, &model);
        let Some((saved_new, saved_old, saved_model)) = saved else {
            panic!("no copy taken");
        };
        assert_same(&saved_new, &saved_old, &saved_model);
        assert_eq!(saved_new == new, saved_model == model);

        // Built whole from sorted partitions, as a failover does.
        let mut by_tp: BTreeMap<TopicPartition, PartitionReplicaStates> = BTreeMap::new();
        for ((tp, b), s) in &model {
            by_tp.entry(tp.clone()).or_default().set(*b, *s);
        }
        by_tp.insert(TopicPartition::new("z", 0), PartitionReplicaStates::new());
        let whole = ReplicaStates::from_sorted(by_tp.into_iter().collect());
        assert_same(&whole, &old, &model);
        assert!(whole == new);

        // A clone changed apart: the original keeps its states.
        let mut changed = whole.clone();
        let Some(((tp, b), s)) = model.iter().next().map(|(k, s)| (k.clone(), *s)) else {
            panic!("empty model");
        };
        let other = if s == ReplicaState::OnlineReplica {
            ReplicaState::OfflineReplica
        } else {
            ReplicaState::OnlineReplica
        };
        changed.set(&tp, b, other);
        assert_same(&whole, &old, &model);
        assert_ne!(changed, whole);
        changed.set(&tp, b, s);
        assert_eq!(changed, whole);
        changed.remove(&tp, b);
        assert_ne!(changed, whole);
        assert_same(&whole, &old, &model);
        // Removing a partition's last replica removes the partition: equal
        // to a map that never held it.
        let mut one = ReplicaStates::new();
        one.set(&tp, b, s);
        one.remove(&tp, b);
        assert_eq!(one, ReplicaStates::new());
        assert!(one.of_partition(&tp).is_none());
    }
}
