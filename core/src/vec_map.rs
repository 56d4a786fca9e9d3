//! A small ordered map kept as one sorted vector, for maps that hold a few
//! entries (one per broker, one per paused broker, one per console file) and
//! are not on a path where a 200,000-partition cluster inserts or removes by
//! the thousand. It behaves as the `BTreeMap` it replaces: iteration in key
//! order, a later insert of a key replaces its value, equality of entries,
//! `Debug` and serde as a map. What it is for is the `.wasm`: each `BTreeMap`
//! key and value type brings its own copy of the B-tree's code (insert with
//! its splits, remove with its merges and steals, clone, drop, ranges: 4 to 8
//! KB each after wasm-opt); this one's code is a binary search and a vector's
//! insert and remove. A lookup is a binary search (as fast as a B-tree's for a
//! few hundred entries); an insert or a remove moves the entries after it.

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Borrow;
use std::marker::PhantomData;

/// A map of a few entries, sorted by key in one vector (see the module).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VecMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K, V> Default for VecMap<K, V> {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
        }
    }
}

impl<K, V> VecMap<K, V> {
    /// An empty map.
    pub const fn new() -> Self {
        Self {
            entries: Vec::new(),
        }
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every entry removed.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// The entries in key order.
    pub fn iter(
        &self,
    ) -> impl DoubleEndedIterator<Item = (&K, &V)> + ExactSizeIterator + Clone + '_ {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The entries in key order, values writable.
    pub fn iter_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = (&K, &mut V)> + ExactSizeIterator + '_ {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator + Clone + '_ {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The values in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator + Clone + '_ {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The values in key order, writable.
    pub fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut V> + ExactSizeIterator {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    /// The first entry (the smallest key).
    pub fn first_key_value(&self) -> Option<(&K, &V)> {
        self.entries.first().map(|(k, v)| (k, v))
    }

    /// The last entry (the largest key).
    pub fn last_key_value(&self) -> Option<(&K, &V)> {
        self.entries.last().map(|(k, v)| (k, v))
    }

    /// Keeps the entries `keep` says yes to, visited in key order.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
    }
}

impl<K: Ord, V> VecMap<K, V> {
    /// Where `key` is, or where it would go.
    #[inline]
    fn position<Q>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.entries.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    /// The value of `key`.
    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let i = self.position(key).ok()?;
        self.entries.get(i).map(|(_, v)| v)
    }

    /// The value of `key`, writable.
    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let i = self.position(key).ok()?;
        self.entries.get_mut(i).map(|(_, v)| v)
    }

    /// Whether `key` has an entry.
    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.position(key).is_ok()
    }

    /// Sets `key`'s value; the value it had, if any (the key kept is the
    /// one already there, as `BTreeMap::insert` keeps it).
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.position(&key) {
            Ok(i) => self
                .entries
                .get_mut(i)
                .map(|(_, v)| std::mem::replace(v, value)),
            Err(i) => {
                self.entries.insert(i, (key, value));
                None
            }
        }
    }

    /// `key`'s value, made by `make` first if it has none.
    pub fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        let i = match self.position(&key) {
            Ok(i) => i,
            Err(i) => {
                self.entries.insert(i, (key, make()));
                i
            }
        };
        // `i` was found or inserted just above.
        &mut self.entries[i].1
    }

    /// Removes `key`'s entry; its value, if it had one.
    pub fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let i = self.position(key).ok()?;
        Some(self.entries.remove(i).1)
    }

    /// Removes `key`'s entry; the key and value, if it had one.
    pub fn remove_entry<Q>(&mut self, key: &Q) -> Option<(K, V)>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let i = self.position(key).ok()?;
        Some(self.entries.remove(i))
    }

    /// The entries whose keys are at or after `from`, in key order.
    pub fn iter_from<Q>(
        &self,
        from: &Q,
    ) -> impl DoubleEndedIterator<Item = (&K, &V)> + ExactSizeIterator + Clone + '_
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let i = self.position(from).unwrap_or_else(|i| i);
        self.entries
            .get(i..)
            .unwrap_or_default()
            .iter()
            .map(|(k, v)| (k, v))
    }
}

impl<'a, K, V> IntoIterator for &'a VecMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (K, V)>, fn(&'a (K, V)) -> (&'a K, &'a V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

impl<K, V> IntoIterator for VecMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

/// As `BTreeMap`'s: the entries in order, a later key's value replacing an
/// earlier one's.
impl<K: Ord, V> FromIterator<(K, V)> for VecMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut map = Self::new();
        map.extend(iter);
        map
    }
}

impl<K: Ord, V> Extend<(K, V)> for VecMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl<K: std::fmt::Debug, V: std::fmt::Debug> std::fmt::Debug for VecMap<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: Serialize, V: Serialize> Serialize for VecMap<K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de, K: Ord + Deserialize<'de>, V: Deserialize<'de>> Deserialize<'de> for VecMap<K, V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct MapVisitor<K, V>(PhantomData<(K, V)>);

        impl<'de, K: Ord + Deserialize<'de>, V: Deserialize<'de>> Visitor<'de> for MapVisitor<K, V> {
            type Value = VecMap<K, V>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a map")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut map = VecMap::new();
                while let Some((k, v)) = access.next_entry()? {
                    map.insert(k, v);
                }
                Ok(map)
            }
        }

        d.deserialize_map(MapVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::VecMap;
    use crate::rng::Rng;
    use std::collections::BTreeMap;

    /// Random inserts, removes and lookups against a `BTreeMap`: the same
    /// answers, the same entries in the same order, the same JSON and `Debug`.
    #[test]
    fn behaves_as_a_btreemap() {
        for seed in 0..40u64 {
            let mut rng = Rng::new(seed);
            let mut want: BTreeMap<u32, u64> = BTreeMap::new();
            let mut got: VecMap<u32, u64> = VecMap::new();
            let span = 1 + rng.below(60) as u32;
            for step in 0..400u64 {
                let k = rng.below(u64::from(span)) as u32;
                match rng.below(7) {
                    0..=2 => assert_eq!(got.insert(k, step), want.insert(k, step)),
                    3 => assert_eq!(got.remove(&k), want.remove(&k)),
                    4 => assert_eq!(got.remove_entry(&k), want.remove_entry(&k)),
                    5 => {
                        *got.get_or_insert_with(k, || step) += 1;
                        *want.entry(k).or_insert(step) += 1;
                    }
                    _ => {
                        if let (Some(g), Some(w)) = (got.get_mut(&k), want.get_mut(&k)) {
                            *g += 3;
                            *w += 3;
                        }
                    }
                }
                assert_eq!(got.get(&k), want.get(&k));
                assert_eq!(got.contains_key(&k), want.contains_key(&k));
                assert_eq!(got.len(), want.len());
                assert_eq!(got.is_empty(), want.is_empty());
                assert!(got.iter().eq(want.iter()));
                assert!(got.iter().rev().eq(want.iter().rev()));
                assert!(got.iter_from(&k).eq(want.range(k..)));
                assert_eq!(got.first_key_value(), want.first_key_value());
                assert_eq!(got.last_key_value(), want.last_key_value());
            }
            assert!(got.keys().eq(want.keys()));
            assert!(got.values().eq(want.values()));
            assert_eq!(
                serde_json::to_string(&got).unwrap(),
                serde_json::to_string(&want).unwrap()
            );
            assert_eq!(format!("{got:?}"), format!("{want:?}"));
            assert_eq!(format!("{got:#?}"), format!("{want:#?}"));
            let json = serde_json::to_string(&want).unwrap();
            let back: VecMap<u32, u64> = serde_json::from_str(&json).unwrap();
            assert_eq!(back, got);
            got.retain(|k, v| {
                *v += 1;
                k % 3 != 0
            });
            want.retain(|k, v| {
                *v += 1;
                k % 3 != 0
            });
            assert!(got.iter().eq(want.iter()));
            let pairs: Vec<(u32, u64)> = (0..50).map(|i| (rng.below(20) as u32, i)).collect();
            let got: VecMap<u32, u64> = pairs.iter().copied().collect();
            let want: BTreeMap<u32, u64> = pairs.iter().copied().collect();
            assert!(got.iter().eq(want.iter()));
            assert!(got.clone().into_iter().eq(want.into_iter()));
        }
    }

    /// A JSON object with a key twice reads as `BTreeMap` reads it: the later
    /// value wins; a string where a map is wanted is refused by both.
    #[test]
    fn reads_json_as_a_btreemap_does() {
        let json = r#"{"b":1,"a":2,"b":3}"#;
        let got: VecMap<String, u32> = serde_json::from_str(json).unwrap();
        let want: BTreeMap<String, u32> = serde_json::from_str(json).unwrap();
        assert!(got.iter().eq(want.iter()));
        let bad = serde_json::from_str::<VecMap<String, u32>>("\"x\"").unwrap_err();
        let want_bad = serde_json::from_str::<BTreeMap<String, u32>>("\"x\"").unwrap_err();
        assert_eq!(bad.to_string(), want_bad.to_string());
    }
}
