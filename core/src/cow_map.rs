//! An ordered map whose copies share what they have in common: the entries
//! are kept in key-ordered chunks (short sorted vectors) behind reference
//! counts, so cloning the map copies only the list of chunks, and a change
//! to a copy copies only the chunk it touches (`Rc::make_mut`). The
//! simulator's large sparse maps (a broker's hosted replicas, ZooKeeper's
//! znodes, each broker's replica logs) use it, so that a
//! snapshot of a simulation (the timeline's, or a benchmark's clone before a
//! fault) costs a little per chunk instead of a whole copy; and a chunk holds
//! its entries side by side, with none of a tree's per-node overhead. Walks
//! over sorted keys (`replace_sorted`, `update_sorted`) search each key only
//! after the previous one, and conditional writes (`get_mut_if`,
//! `insert_with`) copy a chunk only when a value really changes.
//!
//! It behaves as a `BTreeMap`: iteration is in key order, equality compares
//! the entries (never how they are chunked), and it serializes as a map.
//! The maps that hold every partition of the cluster (the controller's, the
//! metadata caches, the committed offsets) are
//! [`PartitionMap`](crate::partition_map::PartitionMap)s instead: the same
//! sharing, with a partition found by its number rather than searched for.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::rc::Rc;

/// The most entries a chunk holds before it is split in two: small enough
/// that a fault's scattered changes copy few entries besides their own,
/// large enough that a clone copies few chunks.
const CHUNK_MAX: usize = 48;

/// One chunk: entries sorted by key.
type Chunk<K, V> = Vec<(K, V)>;

/// An ordered map in shared, copy-on-write chunks (see the module's doc).
#[derive(Clone)]
pub struct CowMap<K, V, const MAX: usize = CHUNK_MAX> {
    /// The chunks, in key order; only the first may be empty (when the
    /// whole map is).
    chunks: Vec<Rc<Chunk<K, V>>>,
    /// `bounds[i]` is the lowest key chunk `i + 1` may hold; chunk `i`
    /// holds the keys from `bounds[i - 1]` (from the lowest for chunk 0)
    /// up to `bounds[i]`, exclusive.
    bounds: Vec<K>,
    len: usize,
    /// Where the last lookup found its key (chunk, position): most walks
    /// look keys up in key order, and the next is then the entry after
    /// ([`CowMap::locate_hinted`]). A cache, not content: it takes no part
    /// in equality, and a stale one is never used.
    hint: std::cell::Cell<(usize, usize)>,
}

impl<K, V, const MAX: usize> Default for CowMap<K, V, MAX> {
    fn default() -> Self {
        CowMap {
            chunks: Vec::new(),
            bounds: Vec::new(),
            len: 0,
            hint: std::cell::Cell::new((0, 0)),
        }
    }
}

/// How many of `items`' first entries satisfy `below` (which holds for a
/// prefix of them, as for `partition_point`), searched by doubling steps
/// from the start: a few comparisons when the answer is small, twice a
/// binary search's at worst.
fn gallop<T>(items: &[T], mut below: impl FnMut(&T) -> bool) -> usize {
    let mut hi = 1;
    while hi <= items.len() && items.get(hi - 1).is_some_and(&mut below) {
        hi *= 2;
    }
    let lo = hi / 2;
    let hi = hi.min(items.len());
    lo + items.get(lo..hi).unwrap_or(&[]).partition_point(below)
}

/// Where `key` is in `chunk`: `Ok(index)` or `Err(where it would go)`.
fn find<K: Borrow<Q>, V, Q: Ord + ?Sized>(chunk: &[(K, V)], key: &Q) -> Result<usize, usize> {
    chunk.binary_search_by(|(k, _)| k.borrow().cmp(key))
}

impl<K: Ord + Clone, V: Clone, const MAX: usize> CowMap<K, V, MAX> {
    /// An empty map.
    pub fn new() -> Self {
        CowMap::default()
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Which chunk holds (or would hold) `key`.
    fn chunk_of<Q>(&self, key: &Q) -> usize
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.bounds.partition_point(|b| b.borrow() <= key)
    }

    /// The value for `key`.
    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.get_hinted(key, &self.hint)
    }

    /// Whether `key` has a value.
    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.get(key).is_some()
    }

    /// The value for `key`, to change (its chunk is copied first if another
    /// copy of the map shares it).
    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let (c, i) = self.locate_hinted(key, &self.hint)?;
        let chunk = self.chunks.get_mut(c)?;
        Rc::make_mut(chunk).get_mut(i).map(|(_, v)| v)
    }

    /// Where `key` is, starting from where `hint` says the last hinted
    /// lookup found its key (a chunk and a position in it): the entry there
    /// if it is `key`; if `key` comes after it, a search forward from there
    /// (the rest of that chunk when `key` is within it, else a galloping
    /// search over the following chunks' bounds), so a walk in key order,
    /// dense or sparse, finds each key near the last; otherwise the full
    /// search. A stale hint (after changes, or from another copy) costs a
    /// comparison and never a wrong answer: an entry is used only if its key
    /// is `key`, and the forward search relies only on the map's order.
    /// Where the key was found is remembered in `hint`. Returns its chunk
    /// and its index there ([`CowMap::get_at`] reads it again).
    pub fn locate_hinted<Q>(
        &self,
        key: &Q,
        hint: &std::cell::Cell<(usize, usize)>,
    ) -> Option<(usize, usize)>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let (c, at) = self.position_hinted(key, hint);
        at.ok().map(|i| (c, i))
    }

    /// [`CowMap::locate_hinted`]'s search, answering for a key with no
    /// entry too: the chunk that holds or would hold `key`, and `Ok(index)`
    /// or `Err(where it would go)` in it (chunk 0, `Err(0)`, in a map with
    /// no chunk). Only a found key is remembered in `hint`.
    fn position_hinted<Q>(
        &self,
        key: &Q,
        hint: &std::cell::Cell<(usize, usize)>,
    ) -> (usize, Result<usize, usize>)
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let in_chunk = |c: usize| self.chunks.get(c).map_or(Err(0), |chunk| find(chunk, key));
        let (c, i) = hint.get();
        let ahead = match self.chunks.get(c).and_then(|chunk| chunk.get(i)) {
            Some((k, _)) => match k.borrow().cmp(key) {
                std::cmp::Ordering::Equal => return (c, Ok(i)),
                std::cmp::Ordering::Less => true,
                std::cmp::Ordering::Greater => false,
            },
            None => false,
        };
        let (c, at) = if !ahead {
            let c = self.chunk_of(key);
            (c, in_chunk(c))
        } else if self
            .chunks
            .get(c)
            .and_then(|chunk| chunk.last())
            .is_some_and(|(last, _)| key <= last.borrow())
        {
            // `key` is after entry `i` of chunk `c` and not after its last.
            let rest = self
                .chunks
                .get(c)
                .and_then(|chunk| chunk.get(i + 1..))
                .unwrap_or(&[]);
            let at = find(rest, key);
            (c, at.map(|j| i + 1 + j).map_err(|j| i + 1 + j))
        } else {
            // Beyond chunk `c`: how many of the bounds from `bounds[c]` on
            // are at most `key`, by doubling steps, then a binary search in
            // the last step.
            let rest = self.bounds.get(c..).unwrap_or(&[]);
            let n = gallop(rest, |b| b.borrow() <= key);
            (c + n, in_chunk(c + n))
        };
        if let Ok(i) = at {
            hint.set((c, i));
        }
        (c, at)
    }

    /// The value at `place` if the entry there has `key`: a place
    /// [`CowMap::locate_hinted`] gave, perhaps before changes that moved
    /// entries (then `None`, never another key's value).
    pub fn get_at<Q>(&self, key: &Q, place: (usize, usize)) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Eq + ?Sized,
    {
        let (k, v) = self.chunks.get(place.0)?.get(place.1)?;
        (k.borrow() == key).then_some(v)
    }

    /// [`CowMap::get_at`], to change (the chunk is copied first if another
    /// copy of the map shares it).
    pub fn get_mut_at<Q>(&mut self, key: &Q, place: (usize, usize)) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Eq + ?Sized,
    {
        self.get_at(key, place)?;
        let chunk = self.chunks.get_mut(place.0)?;
        Rc::make_mut(chunk).get_mut(place.1).map(|(_, v)| v)
    }

    /// [`CowMap::get`] with a hint ([`CowMap::locate_hinted`]).
    pub fn get_hinted<Q>(&self, key: &Q, hint: &std::cell::Cell<(usize, usize)>) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let (c, i) = self.locate_hinted(key, hint)?;
        self.chunks.get(c)?.get(i).map(|(_, v)| v)
    }

    /// Change the value for `key` with `change`, then remove the entry if
    /// `change` returned `false`: one search for both. Returns whether
    /// there was an entry.
    pub fn update_or_remove<Q>(&mut self, key: &Q, change: impl FnOnce(&mut V) -> bool) -> bool
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        // Hinted: the paths a moment made visible are mostly in key order.
        let (c, Ok(i)) = self.position_hinted(key, &self.hint) else {
            return false;
        };
        let Some(chunk) = self.chunks.get_mut(c) else {
            return false;
        };
        if Rc::make_mut(chunk)
            .get_mut(i)
            .is_none_or(|(_, v)| change(v))
        {
            return true;
        }
        self.remove_at(c, i);
        true
    }

    /// The stored key equal to `key`, and its value.
    pub fn get_key_value<Q>(&self, key: &Q) -> Option<(&K, &V)>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let (c, i) = self.locate_hinted(key, &self.hint)?;
        self.chunks.get(c)?.get(i).map(|(k, v)| (k, v))
    }

    /// The value for `key`, to change, if `needs` says it must change: its
    /// chunk is copied (when shared) only then.
    pub fn get_mut_if<Q>(&mut self, key: &Q, needs: impl FnOnce(&V) -> bool) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let (c, i) = self.locate_hinted(key, &self.hint)?;
        let chunk = self.chunks.get_mut(c)?;
        if !chunk.get(i).is_some_and(|(_, v)| needs(v)) {
            return None;
        }
        Rc::make_mut(chunk).get_mut(i).map(|(_, v)| v)
    }

    /// One search for `key`: `make` gets its value (if any) and returns the
    /// value to set, or `None` to leave the map as it is (nothing copied,
    /// no chunk split). Returns whether it set one. An existing entry keeps
    /// its key, as with [`CowMap::insert`].
    pub fn insert_with(&mut self, key: &K, make: impl FnOnce(Option<&V>) -> Option<V>) -> bool {
        match self.locate_hinted(key, &self.hint) {
            Some((c, i)) => {
                let Some(chunk) = self.chunks.get_mut(c) else {
                    return false;
                };
                let Some(v) = make(chunk.get(i).map(|(_, v)| v)) else {
                    return false;
                };
                if let Some((_, old)) = Rc::make_mut(chunk).get_mut(i) {
                    *old = v;
                }
                true
            }
            None => match make(None) {
                Some(v) => {
                    self.insert(key.clone(), v);
                    true
                }
                None => false,
            },
        }
    }

    /// Where `key` is, looking only from `at` (a chunk and a position in
    /// it) on, unless `key` comes before `prev` or is `prev` again (then
    /// from the start): `Some((chunk, index))` if it has an entry. `at`
    /// moves past it.
    fn seek<Q>(&self, at: &mut (usize, usize), prev: Option<&Q>, key: &Q) -> Option<(usize, usize)>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        if prev.is_some_and(|p| p >= key) {
            *at = (0, 0);
        }
        // The chunks from `at`'s on whose bounds are at most `key`, by
        // doubling steps (the next key is mostly in this chunk or the next).
        let rest = self.bounds.get(at.0..).unwrap_or(&[]);
        let step = gallop(rest, |b| b.borrow() <= key);
        if step > 0 {
            *at = (at.0 + step, 0);
        }
        let chunk = self.chunks.get(at.0)?;
        let tail = chunk.get(at.1..).unwrap_or(&[]);
        match find(tail, key) {
            Ok(j) => {
                let i = at.1 + j;
                at.1 = i + 1;
                Some((at.0, i))
            }
            Err(j) => {
                at.1 += j;
                None
            }
        }
    }

    /// For each of `keys`, in ascending order: `f` gets its value (`None`
    /// for a key without one) and may give a new one. A new value for a key
    /// with an entry replaces it there (its chunk copied first if shared;
    /// chunks with nothing replaced stay shared); the new values of keys
    /// without one are handed back with the key's place in `keys`, for the
    /// caller to insert. The keys and the map are walked in step: each key
    /// is looked for only in what follows the previous one (keys out of
    /// order or repeated are still found, from the start again); one walk
    /// instead of a search per key.
    pub fn replace_sorted<'k, Q>(
        &mut self,
        keys: impl IntoIterator<Item = &'k Q>,
        mut f: impl FnMut(Option<&V>) -> Option<V>,
    ) -> Vec<(usize, V)>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized + 'k,
    {
        let mut at = (0, 0);
        let mut prev: Option<&Q> = None;
        let mut new = Vec::new();
        for (n, key) in keys.into_iter().enumerate() {
            let found = self.seek(&mut at, prev, key);
            prev = Some(key);
            let entry = found.and_then(|(c, i)| Some((c, i, self.chunks.get(c)?.get(i)?)));
            match (f(entry.map(|(_, _, (_, v))| v)), entry) {
                (Some(v), Some((c, i, _))) => {
                    if let Some((_, old)) = self
                        .chunks
                        .get_mut(c)
                        .and_then(|chunk| Rc::make_mut(chunk).get_mut(i))
                    {
                        *old = v;
                    }
                }
                (Some(v), None) => new.push((n, v)),
                (None, _) => {}
            }
        }
        new
    }

    /// For each of `keys`, in ascending order, that has an entry: if
    /// `needs` says its value must change, `change` changes it (its chunk
    /// is copied first if shared; chunks with nothing to change stay
    /// shared). Walked in step as [`CowMap::replace_sorted`].
    pub fn update_sorted<'k, Q>(
        &mut self,
        keys: impl IntoIterator<Item = &'k Q>,
        mut needs: impl FnMut(&V) -> bool,
        mut change: impl FnMut(&mut V),
    ) where
        K: Borrow<Q>,
        Q: Ord + ?Sized + 'k,
    {
        let mut at = (0, 0);
        let mut prev: Option<&Q> = None;
        for key in keys {
            let found = self.seek(&mut at, prev, key);
            prev = Some(key);
            let Some((c, i)) = found else {
                continue;
            };
            let Some(chunk) = self.chunks.get_mut(c) else {
                continue;
            };
            if chunk.get(i).is_some_and(|(_, v)| needs(v)) {
                if let Some((_, v)) = Rc::make_mut(chunk).get_mut(i) {
                    change(v);
                }
            }
        }
    }

    /// The chunk that `key` goes in (split first if it is full and `key`
    /// would be new in it), and where in it.
    fn slot_for_insert(&mut self, key: &K) -> (usize, Result<usize, usize>) {
        if self.chunks.is_empty() {
            self.chunks.push(Rc::new(Vec::new()));
        }
        let (c, at) = self.position_hinted(key, &self.hint);
        if at.is_ok() || self.chunks[c].len() < MAX {
            return (c, at);
        }
        let chunk = Rc::make_mut(&mut self.chunks[c]);
        let right: Chunk<K, V> = chunk.drain(chunk.len() / 2..).collect();
        chunk.shrink_to_fit();
        let Some((mid, _)) = right.first() else {
            return (c, at);
        };
        self.bounds.insert(c, mid.clone());
        self.chunks.insert(c + 1, Rc::new(right));
        let c = self.chunk_of(key);
        (c, find(&self.chunks[c], key))
    }

    /// Make room for one more entry in `chunk`, a little at a time (a
    /// chunk's vector stays close to its length).
    fn reserve(chunk: &mut Chunk<K, V>) {
        if chunk.len() == chunk.capacity() {
            chunk.reserve_exact((chunk.len() / 4).max(2));
        }
    }

    /// Set the value for `key`; returns the one it replaced.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        let (c, at) = self.slot_for_insert(&key);
        let chunk = Rc::make_mut(&mut self.chunks[c]);
        match at {
            Ok(i) => chunk.get_mut(i).map(|(_, v)| std::mem::replace(v, value)),
            Err(i) => {
                Self::reserve(chunk);
                chunk.insert(i, (key, value));
                self.len += 1;
                // Keys inserted in order: the next is searched from here.
                self.hint.set((c, i));
                None
            }
        }
    }

    /// The value for `key`, to change, made with `make` first if there is
    /// none (`BTreeMap`'s `entry(key).or_insert_with(make)`).
    pub fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        let (c, at) = self.slot_for_insert(&key);
        let chunk = Rc::make_mut(&mut self.chunks[c]);
        let i = match at {
            Ok(i) => i,
            Err(i) => {
                Self::reserve(chunk);
                chunk.insert(i, (key, make()));
                self.len += 1;
                self.hint.set((c, i));
                i
            }
        };
        &mut chunk[i].1
    }

    /// Remove `key`; returns its value.
    pub fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let c = self.chunk_of(key);
        let i = find(self.chunks.get(c)?, key).ok()?;
        self.remove_at(c, i)
    }

    /// Remove the entry at position `i` of chunk `c` (found by a search),
    /// dropping the chunk if it is left empty; returns its value.
    fn remove_at(&mut self, c: usize, i: usize) -> Option<V> {
        let chunk = Rc::make_mut(self.chunks.get_mut(c)?);
        if i >= chunk.len() {
            return None;
        }
        let (_, old) = chunk.remove(i);
        self.len -= 1;
        if chunk.is_empty() && self.chunks.len() > 1 {
            // Its range goes to the chunk before it (or, for the first, to
            // the one after it, which becomes the first).
            self.chunks.remove(c);
            self.bounds.remove(c.saturating_sub(1));
        }
        Some(old)
    }

    /// Every entry, in key order.
    pub fn iter(&self) -> Iter<'_, K, V> {
        Iter {
            chunks: self.chunks.iter(),
            front: [].iter(),
            back: [].iter(),
        }
    }

    /// Every key, in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + Clone {
        self.iter().map(|(k, _)| k)
    }

    /// Every value, in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + Clone {
        self.iter().map(|(_, v)| v)
    }

    /// The first entry.
    pub fn first_key_value(&self) -> Option<(&K, &V)> {
        self.iter().next()
    }

    /// The entries from `from` on, in key order.
    pub fn range_from<'a, Q>(&'a self, from: Bound<&Q>) -> Iter<'a, K, V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let (c, start) = match from {
            Bound::Included(k) => {
                let c = self.chunk_of(k);
                let chunk = self.chunks.get(c).map_or(&[][..], |c| &c[..]);
                (c, chunk.partition_point(|(x, _)| x.borrow() < k))
            }
            Bound::Excluded(k) => {
                let c = self.chunk_of(k);
                let chunk = self.chunks.get(c).map_or(&[][..], |c| &c[..]);
                (c, chunk.partition_point(|(x, _)| x.borrow() <= k))
            }
            Bound::Unbounded => (0, 0),
        };
        self.iter_at(c, start)
    }

    /// The entries from position `i` of chunk `c` on.
    fn iter_at(&self, c: usize, i: usize) -> Iter<'_, K, V> {
        let first = self.chunks.get(c).map_or(&[][..], |c| &c[..]);
        Iter {
            chunks: self.chunks.get(c + 1..).unwrap_or(&[]).iter(),
            front: first.get(i..).unwrap_or(&[]).iter(),
            back: [].iter(),
        }
    }

    /// [`CowMap::range_from`] `Included(key)`, found from `hint` (where an
    /// earlier lookup found its key, [`CowMap::get_hinted`]): a key a little
    /// after it is found within its chunk or by doubling steps over the
    /// chunks after it, not by a search of the whole map. `hint` moves to
    /// `key` if it has an entry.
    pub fn range_from_hinted<Q>(
        &self,
        key: &Q,
        hint: &std::cell::Cell<(usize, usize)>,
    ) -> Iter<'_, K, V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let (c, Ok(i) | Err(i)) = self.position_hinted(key, hint);
        self.iter_at(c, i)
    }

    /// Keep only the entries for which `keep` holds (chunks with nothing to
    /// drop stay shared).
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &V) -> bool) {
        let gone: Vec<K> = self
            .iter()
            .filter(|(k, v)| !keep(k, v))
            .map(|(k, _)| k.clone())
            .collect();
        for k in gone {
            self.remove(&k);
        }
    }

    /// How many entries this map holds in chunks that `other` does not
    /// share (all of them without `other`): what keeping this copy beside
    /// `other` costs. Pointer identity only decides membership, so the
    /// count is the same on every run.
    pub fn unshared_entries(&self, other: Option<&Self>) -> usize {
        let Some(other) = other else {
            return self.len;
        };
        // Both lists are in key order and a shared chunk holds the same keys
        // in both: one walk side by side, keys compared only where the
        // chunks differ (no set of addresses built).
        let mut theirs = other.chunks.iter().peekable();
        let mut unshared = 0;
        for c in &self.chunks {
            let Some((first, _)) = c.first() else {
                continue;
            };
            while let Some(t) = theirs.peek() {
                if Rc::ptr_eq(t, c) || t.first().is_some_and(|(k, _)| k >= first) {
                    break;
                }
                theirs.next();
            }
            if theirs.peek().is_some_and(|t| Rc::ptr_eq(t, c)) {
                theirs.next();
            } else {
                unshared += c.len();
            }
        }
        unshared
    }

    /// How many chunks (for tests and measurements).
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }
}

/// The entries of a [`CowMap`], in key order.
#[derive(Clone)]
pub struct Iter<'a, K, V> {
    /// The chunks not yet entered from either end.
    chunks: std::slice::Iter<'a, Rc<Chunk<K, V>>>,
    /// The rest of the chunk entered from the front.
    front: std::slice::Iter<'a, (K, V)>,
    /// The rest of the chunk entered from the back.
    back: std::slice::Iter<'a, (K, V)>,
}

impl<K, V> std::fmt::Debug for Iter<'_, K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Iter").finish_non_exhaustive()
    }
}

impl<'a, K, V> Iterator for Iter<'a, K, V> {
    type Item = (&'a K, &'a V);

    #[inline]
    fn next(&mut self) -> Option<(&'a K, &'a V)> {
        loop {
            if let Some((k, v)) = self.front.next() {
                return Some((k, v));
            }
            match self.chunks.next() {
                Some(c) => self.front = c.iter(),
                None => return self.back.next().map(|(k, v)| (k, v)),
            }
        }
    }
}

impl<K, V> DoubleEndedIterator for Iter<'_, K, V> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        loop {
            if let Some((k, v)) = self.back.next_back() {
                return Some((k, v));
            }
            match self.chunks.next_back() {
                Some(c) => self.back = c.iter(),
                None => return self.front.next_back().map(|(k, v)| (k, v)),
            }
        }
    }
}

impl<'a, K: Ord + Clone, V: Clone, const MAX: usize> IntoIterator for &'a CowMap<K, V, MAX> {
    type Item = (&'a K, &'a V);
    type IntoIter = Iter<'a, K, V>;
    fn into_iter(self) -> Iter<'a, K, V> {
        self.iter()
    }
}

impl<K: Ord + Clone, V: Clone + PartialEq, const MAX: usize> PartialEq for CowMap<K, V, MAX> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl<K: Ord + Clone, V: Clone + Eq, const MAX: usize> Eq for CowMap<K, V, MAX> {}

impl<K: Ord + Clone + std::fmt::Debug, V: Clone + std::fmt::Debug, const MAX: usize> std::fmt::Debug
    for CowMap<K, V, MAX>
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: Ord + Clone, V: Clone, const MAX: usize> FromIterator<(K, V)> for CowMap<K, V, MAX> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut m = CowMap::new();
        for (k, v) in iter {
            m.insert(k, v);
        }
        m
    }
}

impl<K: Ord + Clone, V: Clone, const MAX: usize> CowMap<K, V, MAX> {
    /// A map of `entries`: when they are in strictly ascending key order (a
    /// map's, or a sorted walk's), cut into half-full chunks at once,
    /// without a search each (the controller's context, built whole at a
    /// failover); otherwise inserted one by one, as `collect` does.
    pub fn from_sorted(entries: Vec<(K, V)>) -> Self {
        if !entries.windows(2).all(|w| w[0].0 < w[1].0) {
            return entries.into_iter().collect();
        }
        let mut m = CowMap::new();
        m.len = entries.len();
        let mut rest = entries.into_iter().peekable();
        while rest.peek().is_some() {
            let chunk: Chunk<K, V> = rest.by_ref().take(MAX / 2).collect();
            if let (false, Some((k, _))) = (m.chunks.is_empty(), chunk.first()) {
                m.bounds.push(k.clone());
            }
            m.chunks.push(Rc::new(chunk));
        }
        m
    }
}

impl<K: Ord + Clone, V: Clone, Q: Ord + ?Sized, const MAX: usize> std::ops::Index<&Q>
    for CowMap<K, V, MAX>
where
    K: Borrow<Q>,
{
    type Output = V;
    /// The value for `key`; panics if there is none (as `BTreeMap`'s).
    #[allow(clippy::panic)]
    fn index(&self, key: &Q) -> &V {
        match self.get(key) {
            Some(v) => v,
            None => panic!("no entry for the key"),
        }
    }
}

impl<K: Ord + Clone + Serialize, V: Clone + Serialize, const MAX: usize> Serialize
    for CowMap<K, V, MAX>
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de, K, V, const MAX: usize> Deserialize<'de> for CowMap<K, V, MAX>
where
    K: Ord + Clone + Deserialize<'de>,
    V: Clone + Deserialize<'de>,
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let m = BTreeMap::<K, V>::deserialize(d)?;
        Ok(m.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a snapshot costs beside the one before it: the entries in
    /// chunks the other does not hold, counted by a walk side by side, are
    /// those a set of the other's chunk addresses finds, for copies one
    /// change apart, many changes apart (chunks split and merged), either
    /// way round, and against an unrelated map.
    #[test]
    fn unshared_entries_are_those_outside_the_other_s_chunks() {
        fn by_set(a: &CowMap<u32, u64>, b: &CowMap<u32, u64>) -> usize {
            let theirs: std::collections::BTreeSet<*const Chunk<u32, u64>> =
                b.chunks.iter().map(Rc::as_ptr).collect();
            (a.chunks.iter())
                .filter(|c| !theirs.contains(&Rc::as_ptr(c)))
                .map(|c| c.len())
                .sum()
        }
        let mut m: CowMap<u32, u64> = CowMap::new();
        let mut rng = crate::rng::Rng::new(13);
        let mut copies = vec![m.clone()];
        for step in 0..6_000u64 {
            let k = rng.below(5_000) as u32;
            if rng.below(7) < 5 {
                m.insert(k, step);
            } else {
                m.remove(&k);
            }
            if step % 97 == 0 {
                copies.push(m.clone());
            }
        }
        let other: CowMap<u32, u64> = m.iter().map(|(k, v)| (*k, *v)).collect();
        copies.push(other);
        copies.push(m.clone());
        let mut differ = 0;
        for a in &copies {
            for b in copies.iter().step_by(5) {
                let n = a.unshared_entries(Some(b));
                assert_eq!(n, by_set(a, b));
                differ += usize::from(n > 0 && n < a.len());
            }
        }
        assert!(differ > 20, "copies that share some chunks: {differ}");
    }

    /// A map and a `BTreeMap` given the same seeded inserts and removes
    /// hold the same entries in the same order, and a copy taken midway is
    /// unchanged by what follows.
    #[test]
    fn it_behaves_as_a_btree_map_and_copies_do_not_see_later_changes() {
        let mut m: CowMap<u32, u64> = CowMap::new();
        let mut b: BTreeMap<u32, u64> = BTreeMap::new();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut copy = None;
        for step in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let k = (x % 3_000) as u32;
            if x % 5 < 3 {
                assert_eq!(m.insert(k, step), b.insert(k, step));
            } else {
                assert_eq!(m.remove(&k), b.remove(&k));
            }
            if let Some(v) = m.get_mut(&(k + 1)) {
                *v += 1;
                *b.get_mut(&(k + 1)).unwrap() += 1;
            }
            if step == 10_000 {
                copy = Some((m.clone(), b.clone()));
            }
            assert_eq!(m.len(), b.len());
        }
        assert!(m.iter().eq(b.iter()));
        assert!(m.keys().rev().eq(b.keys().rev()));
        assert!(m.chunk_count() > 1);
        for from in [0u32, 1, 77, 1_500, 2_999, 5_000] {
            assert!(m
                .range_from(Bound::Excluded(&from))
                .eq(b.range((Bound::Excluded(from), Bound::Unbounded))));
            assert!(m.range_from(Bound::Included(&from)).eq(b.range(from..)));
        }
        let (mc, bc) = copy.unwrap();
        assert_eq!(mc.unshared_entries(None), mc.len());
        assert_eq!(m.clone().unshared_entries(Some(&m)), 0);
        let mut one_change = m.clone();
        if let Some(v) = one_change.get_mut(&1_500) {
            *v += 1;
        }
        assert!(one_change.unshared_entries(Some(&m)) <= CHUNK_MAX);
        assert!(mc.iter().eq(bc.iter()));
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            serde_json::to_string(&b).unwrap()
        );
        let back: CowMap<u32, u64> =
            serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
        assert_eq!(back, m);
        m.retain(|k, _| k % 2 == 0);
        b.retain(|k, _| k % 2 == 0);
        assert!(m.iter().eq(b.iter()));
        for k in 0..3_000 {
            m.remove(&k);
        }
        assert!(m.is_empty());
        assert_eq!(m.iter().count(), 0);
        m.insert(5, 1);
        assert_eq!(m.get(&5), Some(&1));
        *m.get_or_insert_with(5, || 9) += 1;
        *m.get_or_insert_with(6, || 9) += 1;
        assert_eq!((m.get(&5), m.get(&6), m.len()), (Some(&2), Some(&10), 2));
    }

    /// Keys inserted in ascending order (each searched from the last one
    /// inserted), then removed in the same order while later ones are still
    /// inserted (ZooKeeper's pending changes: written in key order, made
    /// visible in write order), and descending inserts: the map holds what
    /// a `BTreeMap` holds at every step, across chunk splits and copies.
    #[test]
    fn inserts_and_removals_in_key_order_follow_a_btree_map() {
        let mut m: CowMap<u32, u32> = CowMap::new();
        let mut want: BTreeMap<u32, u32> = BTreeMap::new();
        let mut copy = None;
        for k in 0..1_000u32 {
            let key = k * 3;
            assert_eq!(m.insert(key, k), want.insert(key, k));
            *m.get_or_insert_with(key + 1, || k) += 1;
            *want.entry(key + 1).or_insert(k) += 1;
            if k >= 100 {
                let old = (k - 100) * 3;
                let had = m.update_or_remove(&old, |_| false);
                assert_eq!(had, want.remove(&old).is_some());
            }
            if k == 500 {
                copy = Some((m.clone(), want.clone()));
            }
            assert_eq!(m.len(), want.len());
        }
        for k in (0..1_000u32).rev() {
            let key = k * 3 + 2;
            assert_eq!(m.insert(key, k), want.insert(key, k));
        }
        assert!(m.chunk_count() > 10);
        assert!(m.iter().eq(want.iter()));
        for k in 0..3_010 {
            assert_eq!(m.get(&k), want.get(&k), "{k}");
        }
        let (c, c_want) = copy.unwrap();
        assert!(c.iter().eq(c_want.iter()));
    }

    /// The in-step and conditional updates change what a `BTreeMap` would,
    /// and copy no chunk they leave unchanged.
    #[test]
    fn updates_in_step_change_only_what_they_must() {
        let m: CowMap<u32, u64> = (0..2_000u32).map(|k| (k * 3, u64::from(k))).collect();
        let b: BTreeMap<u32, u64> = m.iter().map(|(k, v)| (*k, *v)).collect();
        let keys: Vec<u32> = (0..7_000u32)
            .filter(|k| k % 7 == 0 || k % 11 == 0)
            .collect();
        let (mut m2, mut b2) = (m.clone(), b.clone());
        m2.update_sorted(keys.iter(), |v| v % 2 == 0, |v| *v += 1_000_000);
        for k in &keys {
            if let Some(v) = b2.get_mut(k).filter(|v| **v % 2 == 0) {
                *v += 1_000_000;
            }
        }
        assert!(m2.iter().eq(b2.iter()));
        // Out of order: found all the same.
        let mut m3 = m.clone();
        m3.update_sorted([30u32, 3, 3_000, 6].iter(), |_| true, |v| *v = 7);
        for k in [30u32, 3, 3_000, 6] {
            assert_eq!(m3.get(&k), Some(&7));
        }
        assert_eq!(m3.get(&9), Some(&3));
        let mut seen = Vec::new();
        m3.replace_sorted([0u32, 1, 3, 4, 6, 5_997, 6_000, 2].iter(), |v| {
            seen.push(v.copied());
            None
        });
        assert_eq!(
            seen,
            vec![
                Some(0),
                None,
                Some(7),
                None,
                Some(7),
                Some(1_999),
                None,
                None
            ]
        );
        // A key given twice in a row is found twice (and changed twice).
        let mut seen = Vec::new();
        m3.replace_sorted([3u32, 3, 6, 6, 6].iter(), |v| {
            seen.push(v.copied());
            None
        });
        assert_eq!(seen, vec![Some(7); 5]);
        let mut m5 = m.clone();
        m5.update_sorted([9u32, 9, 12].iter(), |_| true, |v| *v += 100);
        assert_eq!((m5.get(&9), m5.get(&12)), (Some(&203), Some(&104)));
        // Nothing that needs a change: every chunk stays shared.
        let mut m4 = m.clone();
        m4.update_sorted(keys.iter(), |_| false, |v| *v = 0);
        assert!(m4.get_mut_if(&3, |_| false).is_none());
        assert!(!m4.insert_with(&3, |_| None) && !m4.insert_with(&4, |_| None));
        assert_eq!(m4.unshared_entries(Some(&m)), 0);
        assert!(m4.insert_with(&4, |old| old.is_none().then_some(9)));
        assert!(m4.insert_with(&3, |old| old.map(|v| v + 1)));
        if let Some(v) = m4.get_mut_if(&6, |v| *v == 2) {
            *v = 5;
        }
        assert_eq!(
            (m4.get(&4), m4.get(&3), m4.get(&6)),
            (Some(&9), Some(&2), Some(&5))
        );
        assert_eq!(m4.get_key_value(&4), Some((&4, &9)));
        assert_eq!(m4.len(), m.len() + 1);
    }

    /// `replace_sorted` replaces what it finds in place, hands back the new
    /// values of keys without one, and gives `f` what a `BTreeMap` holds,
    /// walking sorted keys with gaps of every size (the seek's doubling
    /// steps over chunks and within one) and out of order.
    #[test]
    fn replacing_in_step_agrees_with_a_btree_map() {
        let m: CowMap<u32, u64> = (0..3_000u32).map(|k| (k * 3, u64::from(k))).collect();
        assert!(m.chunk_count() > 20, "{}", m.chunk_count());
        for step in [1u32, 2, 5, 40, 97, 1_000, 4_000] {
            let keys: Vec<u32> = (0..9_100u32).step_by(step as usize).collect();
            let mut b: BTreeMap<u32, u64> = m.iter().map(|(k, v)| (*k, *v)).collect();
            let mut m2 = m.clone();
            let mut seen = Vec::new();
            // Replace the odd values, add keys that are multiples of 5.
            let new = m2.replace_sorted(keys.iter(), |v| {
                seen.push(v.copied());
                match v {
                    Some(v) => (v % 2 == 1).then_some(v + 1_000_000),
                    None => Some(0),
                }
            });
            let want: Vec<Option<u64>> = keys.iter().map(|k| b.get(k).copied()).collect();
            assert_eq!(seen, want, "values seen, by {step}");
            let mut added = Vec::new();
            for (n, k) in keys.iter().enumerate() {
                match b.get_mut(k) {
                    Some(v) if *v % 2 == 1 => *v += 1_000_000,
                    Some(_) => {}
                    None => added.push((n, 0)),
                }
            }
            assert_eq!(new, added, "handed back, by {step}");
            for (n, v) in new {
                m2.insert(keys[n], v);
                b.insert(keys[n], v);
            }
            assert!(m2.iter().eq(b.iter()), "by {step}");
            // The original is untouched.
            assert_eq!(m.get(&3), Some(&1));
        }
        // Out of order and repeated: found all the same.
        let mut m3 = m.clone();
        let new = m3.replace_sorted([30u32, 3, 3, 9_000, 6, 1].iter(), |v| v.map(|v| v + 10));
        assert!(new.is_empty());
        assert_eq!(
            (m3.get(&3), m3.get(&30), m3.get(&6)),
            (Some(&21), Some(&20), Some(&12))
        );
        // Nothing replaced: every chunk stays shared.
        let mut m4 = m.clone();
        assert!(m4.replace_sorted([3u32, 6, 9].iter(), |_| None).is_empty());
        assert_eq!(m4.unshared_entries(Some(&m)), 0);
    }

    #[test]
    fn string_keys_are_found_by_str() {
        let m: CowMap<String, u8> = (0..500).map(|i| (format!("/n/{i}"), 1)).collect();
        assert!(m.contains_key("/n/42"));
        assert!(!m.contains_key("/n/500"));
        assert_eq!(m["/n/7"], 1);
    }

    #[test]
    fn a_map_built_from_sorted_entries_behaves_as_one_built_by_inserts() {
        for n in [0u32, 1, 23, 24, 25, 48, 49, 1000] {
            let sorted: CowMap<u32, u32> =
                CowMap::from_sorted((0..n).map(|i| (i * 2, i)).collect());
            let mut b: BTreeMap<u32, u32> = (0..n).map(|i| (i * 2, i)).collect();
            let mut m = sorted.clone();
            assert!(m
                .iter()
                .map(|(k, v)| (*k, *v))
                .eq(b.iter().map(|(k, v)| (*k, *v))));
            for i in 0..n * 2 + 3 {
                assert_eq!(m.get(&i), b.get(&i), "{n} {i}");
                if i % 3 == 0 {
                    assert_eq!(m.insert(i, i + 7), b.insert(i, i + 7));
                } else if i % 3 == 1 {
                    assert_eq!(m.remove(&i), b.remove(&i));
                }
            }
            assert_eq!(m.len(), b.len());
            assert!(m
                .iter()
                .map(|(k, v)| (*k, *v))
                .eq(b.iter().map(|(k, v)| (*k, *v))));
            let from: Vec<(u32, u32)> = m
                .range_from(Bound::Included(&n))
                .map(|(k, v)| (*k, *v))
                .collect();
            let want: Vec<(u32, u32)> = b.range(n..).map(|(k, v)| (*k, *v)).collect();
            assert_eq!(from, want);
            // Unsorted input (a repeat: the last wins) is inserted one by one.
            let unsorted: CowMap<u32, u32> =
                CowMap::from_sorted((0..n).rev().chain([0]).map(|i| (i * 2, i)).collect());
            let mut want: BTreeMap<u32, u32> = (0..n).map(|i| (i * 2, i)).collect();
            want.insert(0, 0);
            assert!(unsorted
                .iter()
                .map(|(k, v)| (*k, *v))
                .eq(want.iter().map(|(k, v)| (*k, *v))));
        }
    }

    /// Lookups in key order with gaps of any size (the search forward from
    /// the last key found: within its chunk, or galloping over the chunks
    /// after it) answer as a `BTreeMap` does, for keys present and absent,
    /// and a lookup backwards falls back to the full search.
    #[test]
    fn walks_forward_with_gaps_of_any_size_find_what_a_btree_map_finds() {
        let mut m: CowMap<u32, u32> = CowMap::new();
        let mut want: BTreeMap<u32, u32> = BTreeMap::new();
        // Even keys only, inserted in a scrambled order: chunks of every
        // fill, about a thousand of them.
        let mut x: u32 = 99;
        for _ in 0..40_000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let k = ((x >> 4) % 40_000) * 2;
            m.insert(k, k + 1);
            want.insert(k, k + 1);
        }
        assert!(m.chunk_count() > 500, "{}", m.chunk_count());
        for step in [1u32, 3, 47, 48, 49, 95, 500, 2_001, 9_999, 30_000] {
            let mut k = step % 5;
            while k < 80_010 {
                assert_eq!(m.get(&k), want.get(&k), "{k} by {step}");
                k += step;
            }
        }
        // Random gaps forward, with a step back now and then.
        for _ in 0..20_000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let k = (x >> 3) % 80_010;
            assert_eq!(m.get(&k), want.get(&k), "{k}");
            let k2 = k.saturating_add((x >> 20) % 3_000);
            assert_eq!(m.get(&k2), want.get(&k2), "{k2}");
        }
    }

    /// Hinted lookups and `update_or_remove` answer as a `BTreeMap` does,
    /// whatever the hint (fresh, stale after splits and removals, or taken
    /// in another copy), and a copy taken midway keeps its entries: with
    /// the maps' usual chunks, ZooKeeper's smaller ones, and tiny ones.
    #[test]
    fn hinted_lookups_and_update_or_remove_follow_a_btree_map_through_clones() {
        follow_a_btree_map::<CHUNK_MAX>();
        follow_a_btree_map::<16>();
        follow_a_btree_map::<4>();
    }

    fn follow_a_btree_map<const MAX: usize>() {
        use std::cell::Cell;
        let mut m: CowMap<u32, u32, MAX> = CowMap::new();
        let mut want: BTreeMap<u32, u32> = BTreeMap::new();
        let hint = Cell::new((0, 0));
        let mut x: u32 = 12345;
        let mut copy: Option<(CowMap<u32, u32, MAX>, BTreeMap<u32, u32>)> = None;
        for step in 0..6000u32 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let k = (x >> 8) % 700;
            match step % 5 {
                0 | 1 => {
                    m.insert(k, step);
                    want.insert(k, step);
                }
                2 => {
                    // Keep odd values (incremented), remove even ones.
                    let had = m.update_or_remove(&k, |v| {
                        *v += 1;
                        *v % 2 == 0
                    });
                    assert_eq!(had, want.contains_key(&k));
                    if let Some(v) = want.get_mut(&k) {
                        *v += 1;
                        if *v % 2 != 0 {
                            want.remove(&k);
                        }
                    }
                }
                3 if step % 2 == 0 => {
                    let place = m.locate_hinted(&k, &hint);
                    if let Some(v) = place.and_then(|p| m.get_mut_at(&k, p)) {
                        *v += 10;
                    }
                    if let Some(v) = want.get_mut(&k) {
                        *v += 10;
                    }
                }
                3 => {
                    // Changed only when `needs` says so.
                    if let Some(v) = m.get_mut_if(&k, |v| v % 3 == 0) {
                        *v += 7;
                    }
                    if let Some(v) = want.get_mut(&k).filter(|v| **v % 3 == 0) {
                        *v += 7;
                    }
                }
                _ => {
                    assert_eq!(m.get_hinted(&k, &hint), want.get(&k), "{k}");
                    // Again, now from the hint.
                    assert_eq!(m.get_hinted(&k, &hint), want.get(&k), "{k}");
                    // Walks from the hint's key, a little and far ahead of
                    // it, and behind it.
                    for from in [k, k + 1, k + 30, k + 300, k.saturating_sub(40)] {
                        let got = m.range_from_hinted(&from, &hint).take(4);
                        assert!(
                            got.map(|(k, v)| (*k, *v))
                                .eq(want.range(from..).take(4).map(|(k, v)| (*k, *v))),
                            "from {from}"
                        );
                    }
                }
            }
            assert_eq!(m.len(), want.len());
            if step == 3000 {
                copy = Some((m.clone(), want.clone()));
            }
        }
        assert!(m
            .iter()
            .map(|(k, v)| (*k, *v))
            .eq(want.iter().map(|(k, v)| (*k, *v))));
        let (c, c_want) = copy.unwrap();
        for k in 0..700 {
            assert_eq!(c.get_hinted(&k, &hint), c_want.get(&k));
            assert_eq!(m.get_hinted(&k, &hint), want.get(&k));
        }
        // A walk in key order (each key found at the entry after the last,
        // or at the next chunk's start), forwards and backwards, with its
        // own hint, keys missing from the map included; then the map's own
        // hint (`get`, `insert`, `get_or_insert_with`) through a walk that
        // changes and adds entries as it goes.
        let walk = Cell::new((0, 0));
        for k in (0..700).chain((0..700).rev()) {
            assert_eq!(m.get_hinted(&k, &walk), want.get(&k), "{k}");
        }
        // Sparse walks in key order (a search forward from the last key
        // found, within its chunk or galloping over the next chunks).
        for step in [2u32, 7, 31, 97, 401] {
            let sparse = Cell::new((0, 0));
            for k in (step / 2..800).step_by(step as usize) {
                assert_eq!(m.get_hinted(&k, &sparse), want.get(&k), "{k} by {step}");
            }
        }
        for k in (0..800).step_by(3).chain((0..800).rev()) {
            assert_eq!(m.get(&k), want.get(&k), "{k}");
            if k % 2 == 0 {
                assert_eq!(m.insert(k, k + 1), want.insert(k, k + 1));
            } else {
                *m.get_or_insert_with(k, || 5) += 1;
                *want.entry(k).or_insert(5) += 1;
            }
        }
        assert!(m
            .iter()
            .map(|(k, v)| (*k, *v))
            .eq(want.iter().map(|(k, v)| (*k, *v))));
        assert_eq!(m.len(), want.len());
        assert!(c
            .iter()
            .map(|(k, v)| (*k, *v))
            .eq(c_want.iter().map(|(k, v)| (*k, *v))));
    }
}
