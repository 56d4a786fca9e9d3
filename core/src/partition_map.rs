//! An ordered map keyed by [`TopicPartition`] for the maps that hold (nearly)
//! every partition of the cluster: the controller's assignments, leaderships
//! and replica states, ZooKeeper's state znodes as the simulator tracks
//! them, the committed offsets. Kafka numbers a topic's partitions from 0
//! with no gaps, so a partition's entry is found by its number, not searched
//! for: the topics are a short sorted list (the last one used is tried
//! first), and each topic's entries sit in numbered chunks of
//! [`SLOTS`] slots, chunk `p / SLOTS`, slot `p % SLOTS`. A slot holds the
//! value alone: its key is the topic's, the chunk's number and the slot's
//! place, made again when the map is walked (the walks yield owned keys, a
//! reference count's increment each; a stored key cost 16 bytes an entry, a
//! fifth of the controller's and the metadata caches' maps). A lookup is a
//! topic comparison and two indexings, wherever the last lookup was (a
//! [`CowMap`](crate::cow_map::CowMap) searches: fast for walks in key order,
//! a binary search in a chunk of 48 for the controller's walks broker by
//! broker).
//!
//! It shares what its copies have in common as `CowMap` does: each chunk is
//! behind a reference count, cloning the map copies the chunk lists, and a
//! change copies only the chunk it touches (`Rc::make_mut`). It behaves as a
//! `BTreeMap`: iteration in (topic, partition) order, equality of entries,
//! serialized as a map. Partition numbers far apart cost nothing between
//! them: a topic's chunks are a sorted list, searched only when chunk `k` is
//! not at position `k`.

use crate::ids::{Topic, TopicPartition};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Slots per chunk: a change to a shared map copies this many entries.
pub const SLOTS: usize = 32;

/// One chunk's slots, `p % SLOTS` for partition `p`; no longer than its
/// highest entry needs (a topic of three partitions holds three slots). A
/// slot holds the value only: its key is the topic's and the chunk's number
/// and the slot's place (made again when the map is walked).
type Slots<V> = Vec<Option<V>>;

/// One topic's entries: (chunk number, its slots), by chunk number. No
/// chunk is empty, and no topic is kept without a chunk.
#[derive(Clone)]
struct TopicEntries<V> {
    topic: Topic,
    chunks: Vec<(u32, Rc<Slots<V>>)>,
}

impl<V> TopicEntries<V> {
    /// Where chunk `n` is in `chunks`, or where it would go.
    #[inline]
    fn chunk_position(&self, n: u32) -> Result<usize, usize> {
        match self.chunks.get(n as usize) {
            Some((m, _)) if *m == n => Ok(n as usize),
            _ => self.chunks.binary_search_by_key(&n, |(m, _)| *m),
        }
    }
}

/// Chunk number and slot of partition `p`.
#[inline]
fn split(p: u32) -> (u32, usize) {
    (p / SLOTS as u32, p as usize % SLOTS)
}

/// A map by [`TopicPartition`] with partitions found by number (see the
/// module's doc).
#[derive(Clone)]
pub struct PartitionMap<V> {
    /// By topic.
    topics: Vec<TopicEntries<V>>,
    len: usize,
    /// The topic of the last lookup (an index into `topics`): a cache, not
    /// content; a stale one costs a comparison.
    hint: Cell<usize>,
}

impl<V> Default for PartitionMap<V> {
    fn default() -> Self {
        PartitionMap {
            topics: Vec::new(),
            len: 0,
            hint: Cell::new(0),
        }
    }
}

/// Where a walk a slice at a time goes on ([`PartitionMap::walk_slice`]):
/// the key its next slice starts at; none before it starts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resume(Option<TopicPartition>);

/// Where an entry is: topic, chunk (positions in the lists) and slot.
type At = (usize, usize, usize);

impl<V: Clone> PartitionMap<V> {
    /// An empty map.
    pub fn new() -> Self {
        PartitionMap::default()
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Where `topic` is in `topics`, or where it would go.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn topic_position(&self, topic: &Topic) -> Result<usize, usize> {
        let h = self.hint.get();
        if self.topics.get(h).is_some_and(|t| t.topic == *topic) {
            return Ok(h);
        }
        self.topic_search(topic)
    }

    /// [`PartitionMap::topic_position`] when the hint is not `topic`.
    fn topic_search(&self, topic: &Topic) -> Result<usize, usize> {
        let at = self.topics.binary_search_by(|t| t.topic.cmp(topic));
        if let Ok(i) = at {
            self.hint.set(i);
        }
        at
    }

    /// Where `key`'s entry is, if it has one.
    #[inline]
    fn locate(&self, key: &TopicPartition) -> Option<At> {
        let t = self.topic_position(&key.topic).ok()?;
        let entries = self.topics.get(t)?;
        let (n, s) = split(key.partition);
        let c = entries.chunk_position(n).ok()?;
        let (_, slots) = entries.chunks.get(c)?;
        slots.get(s)?.as_ref()?;
        Some((t, c, s))
    }

    fn at(&self, (t, c, s): At) -> Option<&V> {
        self.topics.get(t)?.chunks.get(c)?.1.get(s)?.as_ref()
    }

    /// The entry at `at`, to change (its chunk copied first if shared).
    fn at_mut(&mut self, (t, c, s): At) -> Option<&mut V> {
        let (_, slots) = self.topics.get_mut(t)?.chunks.get_mut(c)?;
        Rc::make_mut(slots).get_mut(s)?.as_mut()
    }

    /// The value for `key`.
    #[inline]
    pub fn get(&self, key: &TopicPartition) -> Option<&V> {
        self.at(self.locate(key)?)
    }

    /// Whether `key` has a value.
    pub fn contains_key(&self, key: &TopicPartition) -> bool {
        self.locate(key).is_some()
    }

    /// The value for `key`, to change (its chunk is copied first if another
    /// copy of the map shares it).
    pub fn get_mut(&mut self, key: &TopicPartition) -> Option<&mut V> {
        let at = self.locate(key)?;
        self.at_mut(at)
    }

    /// The value for `key`, to change, only if `needs` says the present one
    /// must change: a shared chunk is not copied for a value left as it is.
    pub fn get_mut_if(
        &mut self,
        key: &TopicPartition,
        needs: impl FnOnce(&V) -> bool,
    ) -> Option<&mut V> {
        let at = self.locate(key)?;
        if !self.at(at).is_some_and(needs) {
            return None;
        }
        self.at_mut(at)
    }

    /// Set `key`'s value to what `make` returns from the present one
    /// (`None` to leave it as it is, or absent): a shared chunk is copied
    /// only for a value that is set. Whether one was.
    pub fn insert_with(
        &mut self,
        key: &TopicPartition,
        make: impl FnOnce(Option<&V>) -> Option<V>,
    ) -> bool {
        match self.locate(key) {
            Some(at) => {
                let Some(v) = make(self.at(at)) else {
                    return false;
                };
                if let Some(old) = self.at_mut(at) {
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

    /// The last chunk's slots, when `key` is of the last topic, in its last
    /// chunk, after that chunk's last slot, and no copy shares the chunk:
    /// where an entry inserted in key order goes (its slot is empty).
    #[inline]
    fn append_slots(&mut self, key: &TopicPartition) -> Option<&mut Slots<V>> {
        let last = self.topics.last_mut()?;
        let (n, s) = split(key.partition);
        let (m, slots) = last.chunks.last_mut()?;
        if *m != n || s < slots.len() || last.topic != key.topic {
            return None;
        }
        Rc::get_mut(slots)
    }

    /// The slot for `key`, made (with its topic and chunk) if missing:
    /// where it is, and whether it holds an entry.
    fn slot_for_insert(&mut self, key: &TopicPartition) -> (At, bool) {
        let t = match self.topic_position(&key.topic) {
            Ok(t) => t,
            Err(t) => {
                self.topics.insert(
                    t,
                    TopicEntries {
                        topic: key.topic.clone(),
                        chunks: Vec::new(),
                    },
                );
                self.hint.set(t);
                t
            }
        };
        let (n, s) = split(key.partition);
        let entries = &mut self.topics[t];
        let c = match entries.chunk_position(n) {
            Ok(c) => c,
            Err(c) => {
                entries.chunks.insert(c, (n, Rc::new(Vec::new())));
                c
            }
        };
        let held = entries.chunks[c].1.get(s).is_some_and(Option::is_some);
        ((t, c, s), held)
    }

    /// Set the value for `key`; returns the one it replaced.
    pub fn insert(&mut self, key: TopicPartition, value: V) -> Option<V> {
        // Built in key order (a new controller's maps, a start-up's): the
        // entry goes after the last one of the last chunk, which nothing
        // else holds, without a search or a copy-on-write check.
        if let Some(slots) = self.append_slots(&key) {
            put(slots, key.partition as usize % SLOTS, value);
            self.len += 1;
            return None;
        }
        let ((t, c, s), held) = self.slot_for_insert(&key);
        let slots = Rc::make_mut(&mut self.topics[t].chunks[c].1);
        if held {
            return slots
                .get_mut(s)
                .and_then(Option::as_mut)
                .map(|v| std::mem::replace(v, value));
        }
        put(slots, s, value);
        self.len += 1;
        None
    }

    /// The value for `key`, to change, made with `make` first if there is
    /// none.
    pub fn get_or_insert_with(&mut self, key: TopicPartition, make: impl FnOnce() -> V) -> &mut V {
        let ((t, c, s), held) = self.slot_for_insert(&key);
        let slots = Rc::make_mut(&mut self.topics[t].chunks[c].1);
        if !held {
            put(slots, s, make());
            self.len += 1;
        }
        match &mut slots[s] {
            Some(v) => v,
            None => unreachable_slot(),
        }
    }

    /// Remove `key`'s entry; returns its value.
    pub fn remove(&mut self, key: &TopicPartition) -> Option<V> {
        let at = self.locate(key)?;
        self.remove_at(at)
    }

    fn remove_at(&mut self, (t, c, s): At) -> Option<V> {
        let entries = self.topics.get_mut(t)?;
        let (_, slots) = entries.chunks.get_mut(c)?;
        let slots = Rc::make_mut(slots);
        let old = slots.get_mut(s)?.take()?;
        self.len -= 1;
        while slots.last().is_some_and(Option::is_none) {
            slots.pop();
        }
        if slots.is_empty() {
            entries.chunks.remove(c);
            if entries.chunks.is_empty() {
                self.topics.remove(t);
            }
        }
        Some(old)
    }

    /// Every entry in key order.
    pub fn iter(&self) -> Iter<'_, V> {
        Iter::new(&self.topics)
    }

    /// The entries from `key` on (every entry whose key is not less), in
    /// key order: where a walk a slice at a time goes on.
    pub fn iter_from(&self, key: &TopicPartition) -> Iter<'_, V> {
        let at = match self.topic_position(&key.topic) {
            Ok(t) => {
                let (n, s) = split(key.partition);
                match self.topics.get(t).map(|e| e.chunk_position(n)) {
                    Some(Ok(c)) => (t, c, s),
                    Some(Err(c)) => (t, c, 0),
                    None => (t, 0, 0),
                }
            }
            Err(t) => (t, 0, 0),
        };
        self.iter().starting_at((at.0, at.1), at.2)
    }

    /// Up to `slice` entries (all if `None`) from where `at` is, handed to
    /// `f` in key order; `at` is left where the next slice starts. Whether
    /// the walk reached the end (a long controller event walks the context's
    /// partitions a slice at a time between its pieces).
    pub fn walk_slice(
        &self,
        at: &mut Resume,
        slice: Option<usize>,
        mut f: impl FnMut(&TopicPartition, &V),
    ) -> bool {
        let mut it = match &at.0 {
            Some(key) => self.iter_from(key),
            None => self.iter(),
        };
        for (k, v) in it.by_ref().take(slice.map_or(usize::MAX, |n| n.max(1))) {
            f(&k, v);
        }
        at.0 = it.next().map(|(k, _)| k);
        at.0.is_none()
    }

    /// Every key in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = TopicPartition> + Clone + '_ {
        self.iter().map(|(k, _)| k)
    }

    /// Every value in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + Clone {
        self.iter().map(|(_, v)| v)
    }

    /// Keep only the entries for which `keep` holds.
    pub fn retain(&mut self, mut keep: impl FnMut(&TopicPartition, &V) -> bool) {
        let gone: Vec<TopicPartition> = self
            .iter()
            .filter(|(k, v)| !keep(k, v))
            .map(|(k, _)| k)
            .collect();
        for k in gone {
            self.remove(&k);
        }
    }

    /// How many entries this holds in chunks that `other` does not share:
    /// what a snapshot costs beside the map it was taken from.
    pub fn unshared_entries(&self, other: Option<&Self>) -> usize {
        let Some(other) = other else {
            return self.len;
        };
        self.unshared_chunks(other)
            .map(|(_, _, slots)| slots.iter().filter(|s| s.is_some()).count())
            .sum()
    }

    /// This map's chunks that `old` does not share (compared by identity),
    /// with their topics and numbers, in key order: one walk of both maps'
    /// topics and chunk numbers side by side.
    fn unshared_chunks<'a>(
        &'a self,
        old: &'a Self,
    ) -> impl Iterator<Item = (&'a Topic, u32, &'a Slots<V>)> + 'a {
        let mut old_topics = old.topics.iter().peekable();
        self.topics.iter().flat_map(move |t| {
            while old_topics.next_if(|o| o.topic < t.topic).is_some() {}
            let mut old_chunks = old_topics
                .peek()
                .filter(|o| o.topic == t.topic)
                .map_or(&[][..], |o| &o.chunks[..])
                .iter()
                .peekable();
            t.chunks.iter().filter_map(move |(n, slots)| {
                while old_chunks.next_if(|(m, _)| m < n).is_some() {}
                let shared = old_chunks
                    .peek()
                    .is_some_and(|(m, o)| m == n && Rc::ptr_eq(o, slots));
                (!shared).then_some((&t.topic, *n, &**slots))
            })
        })
    }

    /// The entries of this map that may differ from `old`'s, in key order:
    /// those of every chunk that `old` does not share with it (its
    /// copy-on-write chunks are compared by identity, not by content). A
    /// shared chunk cannot change while `old` holds it, so every entry
    /// inserted or changed since `old` was cloned from this map is here;
    /// entries removed are not, and unchanged neighbours of a changed one
    /// may be. What follows a map forward (the page's summary of a large
    /// cluster) walks the chunks changed since its last look, not every entry.
    pub fn changed_from<'a>(
        &'a self,
        old: &'a Self,
    ) -> impl Iterator<Item = (TopicPartition, &'a V)> + 'a {
        self.unshared_chunks(old).flat_map(|(topic, n, slots)| {
            let mut part = Part {
                topic: Some(topic),
                first: n * SLOTS as u32,
                slots,
            };
            std::iter::from_fn(move || part.next())
        })
    }

    /// How many chunks.
    pub fn chunk_count(&self) -> usize {
        self.topics.iter().map(|t| t.chunks.len()).sum()
    }

    /// A map of `entries`, which must be in ascending key order (checked:
    /// otherwise they are inserted one by one).
    pub fn from_sorted(entries: Vec<(TopicPartition, V)>) -> Self {
        let mut m = PartitionMap::new();
        if !entries.windows(2).all(|w| w[0].0 < w[1].0) {
            for (k, v) in entries {
                m.insert(k, v);
            }
            return m;
        }
        m.len = entries.len();
        // The chunk being filled: its number and slots.
        let mut chunk: Option<(u32, Slots<V>)> = None;
        for (k, v) in entries {
            let (n, s) = split(k.partition);
            let same_topic = m
                .topics
                .last()
                .is_some_and(|t| t.topic.cmp(&k.topic).is_eq());
            if let (true, Some((c, slots))) = (same_topic, chunk.as_mut()) {
                if *c == n {
                    put(slots, s, v);
                    continue;
                }
            }
            if let (Some((c, slots)), Some(t)) = (chunk.take(), m.topics.last_mut()) {
                t.chunks.push((c, Rc::new(slots)));
            }
            if !same_topic {
                m.topics.push(TopicEntries {
                    topic: k.topic.clone(),
                    chunks: Vec::new(),
                });
            }
            let mut slots = Vec::with_capacity(SLOTS);
            put(&mut slots, s, v);
            chunk = Some((n, slots));
        }
        if let (Some((c, slots)), Some(t)) = (chunk.take(), m.topics.last_mut()) {
            t.chunks.push((c, Rc::new(slots)));
        }
        m
    }
}

/// Fill slot `s` of `slots`, lengthening them if they are shorter (by a
/// whole chunk's room at once: a topic's partitions are mostly added in
/// order, one slot at a time).
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn put<V>(slots: &mut Slots<V>, s: usize, entry: V) {
    if s == slots.len() && slots.len() < slots.capacity() {
        slots.push(Some(entry));
        return;
    }
    put_slow(slots, s, entry);
}

/// [`put`] when the slots must grow or the slot is not the next one.
fn put_slow<V>(slots: &mut Slots<V>, s: usize, entry: V) {
    if s == slots.len() {
        slots.reserve_exact(SLOTS.saturating_sub(slots.len()).max(1));
        slots.push(Some(entry));
        return;
    }
    if slots.len() < s {
        slots.reserve_exact(SLOTS.saturating_sub(slots.len()).max(s + 1 - slots.len()));
        slots.resize_with(s, || None);
        slots.push(Some(entry));
        return;
    }
    if let Some(slot) = slots.get_mut(s) {
        *slot = Some(entry);
    }
}

/// A slot just filled is empty: cannot happen.
#[cold]
#[allow(clippy::panic)]
fn unreachable_slot() -> ! {
    panic!("PartitionMap: a slot just filled is empty")
}

/// The key of partition `p` of `topic`.
#[inline]
fn key_of(topic: &Topic, p: u32) -> TopicPartition {
    TopicPartition {
        topic: topic.clone(),
        partition: p,
    }
}

/// A chunk's place: topic and chunk (positions in the lists). A place that
/// exists, or the end `(topics, 0)`: no chunk is empty and no topic is
/// without a chunk, so each place has one name.
type Place = (usize, usize);

/// The entries of a [`PartitionMap`] in key order, both ways: the slots of
/// its chunks one after another, the empty ones skipped, each entry's key
/// made from its topic and its partition number. The chunk being read from
/// each end is held as a slice; the chunks between are places.
#[derive(Clone)]
pub struct Iter<'a, V> {
    topics: &'a [TopicEntries<V>],
    /// What is left of the chunk read from the front.
    front: Part<'a, V>,
    /// The chunks between the two ends' (from the first, up to the second).
    mid: (Place, Place),
    /// What is left of the chunk read from the back.
    back: Part<'a, V>,
}

/// The slots left of a chunk, the first of them partition `first` of
/// `topic`.
struct Part<'a, V> {
    topic: Option<&'a Topic>,
    first: u32,
    slots: &'a [Option<V>],
}

impl<V> Clone for Part<'_, V> {
    fn clone(&self) -> Self {
        Part { ..*self }
    }
}

impl<V> Default for Part<'_, V> {
    fn default() -> Self {
        Part {
            topic: None,
            first: 0,
            slots: &[],
        }
    }
}

impl<'a, V> Part<'a, V> {
    #[inline]
    fn next(&mut self) -> Option<(TopicPartition, &'a V)> {
        while let Some((head, rest)) = self.slots.split_first() {
            let p = self.first;
            self.slots = rest;
            self.first = self.first.wrapping_add(1);
            if let (Some(v), Some(t)) = (head, self.topic) {
                return Some((key_of(t, p), v));
            }
        }
        None
    }

    fn next_back(&mut self) -> Option<(TopicPartition, &'a V)> {
        while let Some((last, rest)) = self.slots.split_last() {
            self.slots = rest;
            if let (Some(v), Some(t)) = (last, self.topic) {
                return Some((key_of(t, self.first.wrapping_add(rest.len() as u32)), v));
            }
        }
        None
    }
}

impl<V> std::fmt::Debug for Iter<'_, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Iter").finish_non_exhaustive()
    }
}

impl<'a, V> Iter<'a, V> {
    fn new(topics: &'a [TopicEntries<V>]) -> Self {
        let mut iter = Iter {
            topics,
            front: Part::default(),
            mid: ((0, 0), (topics.len(), 0)),
            back: Part::default(),
        };
        iter.mid.0 = iter.settled(0, 0);
        iter
    }

    /// Chunk `c` of topic `t`, or the next place if there is no such chunk.
    fn settled(&self, t: usize, c: usize) -> Place {
        match self.topics.get(t) {
            Some(e) if c < e.chunks.len() => (t, c),
            Some(_) => self.settled(t + 1, 0),
            None => (self.topics.len(), 0),
        }
    }

    /// The whole of the chunk at `at`, from slot `s`.
    fn part(&self, (t, c): Place, s: usize) -> Part<'a, V> {
        let topics: &'a [TopicEntries<V>] = self.topics;
        match topics
            .get(t)
            .and_then(|e| Some((&e.topic, e.chunks.get(c)?)))
        {
            Some((topic, (n, slots))) => Part {
                topic: Some(topic),
                first: n * SLOTS as u32 + s as u32,
                slots: slots.get(s..).unwrap_or(&[]),
            },
            None => Part::default(),
        }
    }

    /// The walk from slot `s` of chunk `at` on.
    fn starting_at(mut self, at: Place, s: usize) -> Self {
        let at = self.settled(at.0, at.1);
        if at.0 < self.topics.len() {
            self.front = self.part(at, s);
            self.mid.0 = self.settled(at.0, at.1 + 1);
        } else {
            self.mid.0 = at;
        }
        self
    }
}

impl<'a, V> Iterator for Iter<'a, V> {
    type Item = (TopicPartition, &'a V);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(entry) = self.front.next() {
                return Some(entry);
            }
            if self.mid.0 == self.mid.1 {
                return self.back.next();
            }
            let at = self.mid.0;
            self.front = self.part(at, 0);
            self.mid.0 = self.settled(at.0, at.1 + 1);
        }
    }
}

impl<V> DoubleEndedIterator for Iter<'_, V> {
    fn next_back(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(entry) = self.back.next_back() {
                return Some(entry);
            }
            if self.mid.0 == self.mid.1 {
                return self.front.next_back();
            }
            // The place before the end of the middle (which is not empty).
            let (t, c) = self.mid.1;
            let at = if c > 0 {
                (t, c - 1)
            } else {
                let t = t.checked_sub(1)?;
                (t, self.topics.get(t)?.chunks.len().checked_sub(1)?)
            };
            self.back = self.part(at, 0);
            self.mid.1 = at;
        }
    }
}

impl<'a, V: Clone> IntoIterator for &'a PartitionMap<V> {
    type Item = (TopicPartition, &'a V);
    type IntoIter = Iter<'a, V>;
    fn into_iter(self) -> Iter<'a, V> {
        self.iter()
    }
}

impl<V: Clone + PartialEq> PartialEq for PartitionMap<V> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl<V: Clone + Eq> Eq for PartitionMap<V> {}

impl<V: Clone + std::fmt::Debug> std::fmt::Debug for PartitionMap<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<V: Clone> FromIterator<(TopicPartition, V)> for PartitionMap<V> {
    fn from_iter<I: IntoIterator<Item = (TopicPartition, V)>>(iter: I) -> Self {
        let mut m = PartitionMap::new();
        for (k, v) in iter {
            m.insert(k, v);
        }
        m
    }
}

impl<V: Clone> std::ops::Index<&TopicPartition> for PartitionMap<V> {
    type Output = V;
    #[allow(clippy::panic)]
    fn index(&self, key: &TopicPartition) -> &V {
        match self.get(key) {
            Some(v) => v,
            None => panic!("no entry for the key"),
        }
    }
}

impl<V: Clone + Serialize> Serialize for PartitionMap<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de, V: Clone + Deserialize<'de>> Deserialize<'de> for PartitionMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let m = BTreeMap::<TopicPartition, V>::deserialize(d)?;
        Ok(PartitionMap::from_sorted(m.into_iter().collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use std::collections::BTreeSet;

    /// Keys of three topics (one created late, sorting first), mostly the
    /// low partition numbers a topic has, some far past them.
    fn key(rng: &mut Rng) -> TopicPartition {
        let topic = ["orders", "clicks", "a-late-topic"][rng.below(3) as usize];
        let partition = match rng.below(20) {
            0 => 1_000 + rng.below(100) as u32,
            1 => u32::MAX - rng.below(3) as u32,
            _ => rng.below(300) as u32,
        };
        TopicPartition::new(topic, partition)
    }

    fn assert_same(m: &PartitionMap<u64>, b: &BTreeMap<TopicPartition, u64>) {
        assert_eq!(m.len(), b.len());
        // Both ends at once, in a pattern set by the length, until they meet.
        let (mut mi, mut bi) = (m.iter(), b.iter());
        for step in 0..=b.len() {
            let from_back = (step * 7 + b.len()) % 3 == 0;
            let (got, want) = if from_back {
                (mi.next_back(), bi.next_back())
            } else {
                (mi.next(), bi.next())
            };
            assert_eq!(got, want.map(|(k, v)| (k.clone(), v)), "step {step}");
        }
        assert_eq!((mi.next(), mi.next_back()), (None, None));
        assert!(m.iter().eq(b.iter().map(|(k, v)| (k.clone(), v))));
        assert!(m
            .iter()
            .rev()
            .eq(b.iter().rev().map(|(k, v)| (k.clone(), v))));
        assert_eq!(m.is_empty(), b.is_empty());
        assert_eq!(
            m.iter().next(),
            b.iter().next().map(|(k, v)| (k.clone(), v))
        );
    }

    /// Random inserts, removals and changes (each kind of update) do to the
    /// map what they do to a `BTreeMap`: the same answers, the same entries
    /// in the same order both ways; a copy taken midway is unchanged by
    /// what follows, and the copies share all they have not changed.
    /// (The controller's and ZooKeeper's per-partition maps must read as
    /// the ordered maps they replace: traces and final states print them.)
    #[test]
    fn it_behaves_as_a_btree_map_and_copies_do_not_see_later_changes() {
        let mut rng = Rng::new(7);
        let mut m: PartitionMap<u64> = PartitionMap::new();
        let mut b: BTreeMap<TopicPartition, u64> = BTreeMap::new();
        let mut copy = None;
        for step in 0..30_000u64 {
            let k = key(&mut rng);
            match rng.below(10) {
                0..=3 => assert_eq!(m.insert(k.clone(), step), b.insert(k.clone(), step)),
                4 | 5 => assert_eq!(m.remove(&k), b.remove(&k)),
                6 => {
                    let got = m.get_mut_if(&k, |v| v % 2 == 0).map(|v| {
                        *v += 1;
                        *v
                    });
                    let want = b.get_mut(&k).filter(|v| **v % 2 == 0).map(|v| {
                        *v += 1;
                        *v
                    });
                    assert_eq!(got, want);
                }
                7 => {
                    let got = m.get_mut(&k).map(|v| {
                        *v += 3;
                        *v
                    });
                    let want = b.get_mut(&k).map(|v| {
                        *v += 3;
                        *v
                    });
                    assert_eq!(got, want);
                }
                8 => {
                    let make = |v: Option<&u64>| match v {
                        Some(v) if v % 3 == 0 => None,
                        Some(v) => Some(v + 10),
                        None => Some(step),
                    };
                    let want = make(b.get(&k));
                    if let Some(v) = want {
                        b.insert(k.clone(), v);
                    }
                    assert_eq!(m.insert_with(&k, make), want.is_some());
                }
                _ => {
                    *m.get_or_insert_with(k.clone(), || step) += 1;
                    *b.entry(k.clone()).or_insert(step) += 1;
                }
            }
            assert_eq!(m.get(&k), b.get(&k));
            assert_eq!(m.contains_key(&k), b.contains_key(&k));
            if step == 15_000 {
                copy = Some((m.clone(), b.clone()));
            }
        }
        assert_same(&m, &b);
        assert!(m.chunk_count() > 20);
        let (mc, bc) = copy.unwrap();
        assert_same(&mc, &bc);
        assert_eq!(mc.unshared_entries(None), mc.len());
        assert_eq!(m.clone().unshared_entries(Some(&m)), 0);
        let mut one_change = m.clone();
        if let Some(v) = one_change.get_mut(&TopicPartition::new("orders", 40)) {
            *v += 1;
        }
        assert!(one_change.unshared_entries(Some(&m)) <= SLOTS);
        assert_eq!(format!("{m:?}"), format!("{b:?}"));
        m.retain(|k, v| k.partition % 2 == 0 || *v % 3 == 0);
        b.retain(|k, v| k.partition % 2 == 0 || *v % 3 == 0);
        assert_same(&m, &b);
        let keys: Vec<TopicPartition> = b.keys().cloned().collect();
        for k in &keys {
            m.remove(k);
        }
        assert!(m.is_empty() && m.chunk_count() == 0);
        assert_eq!(m.iter().count() + m.iter().rev().count(), 0);
    }

    /// Inserts in key order (a new controller's maps) take the append path:
    /// with gaps between partitions, a second topic, keys inserted again,
    /// and copies taken along the way (whose shared last chunk must not be
    /// written through), the map still answers as a `BTreeMap` and each
    /// copy keeps what it held.
    #[test]
    fn inserts_in_key_order_match_a_btree_map_and_leave_copies_alone() {
        let mut rng = Rng::new(11);
        let mut m: PartitionMap<u64> = PartitionMap::new();
        let mut b: BTreeMap<TopicPartition, u64> = BTreeMap::new();
        let mut copies = Vec::new();
        for (t, topic) in ["a", "b"].into_iter().enumerate() {
            let mut p = 0u32;
            for step in 0..3_000u64 {
                p += 1 + rng.below(3) as u32;
                let k = TopicPartition::new(topic, p);
                let v = step + 10_000 * t as u64;
                assert_eq!(m.insert(k.clone(), v), b.insert(k.clone(), v));
                if rng.below(5) == 0 {
                    // The same key again: a replacement, not an append.
                    assert_eq!(m.insert(k.clone(), v + 1), b.insert(k, v + 1));
                }
                if rng.below(400) == 0 {
                    copies.push((m.clone(), b.clone()));
                }
            }
        }
        assert_same(&m, &b);
        assert!(copies.len() > 5);
        for (mc, bc) in &copies {
            assert_same(mc, bc);
        }
    }

    /// What a follower of the map reads after each burst of changes
    /// (the page's summary of a large cluster): every entry inserted or
    /// changed since its copy, in key order, no entry it does not hold, and
    /// no more than the changed entries' chunks hold; nothing once nothing
    /// changed.
    #[test]
    fn the_entries_changed_since_a_copy_are_found_by_its_chunks() {
        let mut rng = Rng::new(31);
        let mut m: PartitionMap<u64> = PartitionMap::new();
        for round in 0..400u64 {
            let old = m.clone();
            let before: BTreeMap<TopicPartition, u64> =
                old.iter().map(|(k, v)| (k.clone(), *v)).collect();
            let mut touched: BTreeSet<(Topic, u32)> = BTreeSet::new();
            for i in 0..rng.below(40) {
                let k = key(&mut rng);
                touched.insert((k.topic.clone(), k.partition / SLOTS as u32));
                match rng.below(4) {
                    0 => {
                        m.remove(&k);
                    }
                    1 => {
                        // A write of the value it already holds still counts.
                        if let Some(v) = m.get_mut(&k) {
                            *v += 0;
                        }
                    }
                    _ => {
                        m.insert(k, round * 100 + i);
                    }
                }
            }
            let got: Vec<(TopicPartition, u64)> =
                m.changed_from(&old).map(|(k, v)| (k.clone(), *v)).collect();
            assert!(got.windows(2).all(|w| w[0].0 < w[1].0), "in key order");
            for (k, v) in &got {
                assert_eq!(m.get(k), Some(v), "an entry the map holds");
                assert!(touched.contains(&(k.topic.clone(), k.partition / SLOTS as u32)));
            }
            let found: BTreeSet<&TopicPartition> = got.iter().map(|(k, _)| k).collect();
            for (k, v) in m.iter() {
                if before.get(&k) != Some(v) {
                    assert!(found.contains(&k), "{k:?} changed and was not found");
                }
            }
            assert!(got.len() <= touched.len() * SLOTS);
            assert_eq!(m.changed_from(&m.clone()).count(), 0);
            // What a snapshot costs beside the one before: the same chunks,
            // counted, as a set of the old map's chunk addresses finds.
            let theirs: BTreeSet<*const Slots<u64>> = (old.topics.iter())
                .flat_map(|t| t.chunks.iter().map(|(_, c)| Rc::as_ptr(c)))
                .collect();
            let by_set: usize = (m.topics.iter())
                .flat_map(|t| t.chunks.iter())
                .filter(|(_, c)| !theirs.contains(&Rc::as_ptr(c)))
                .map(|(_, c)| c.iter().flatten().count())
                .sum();
            assert_eq!(m.unshared_entries(Some(&old)), by_set);
            assert_eq!(got.len(), by_set);
        }
        assert!(m.len() > 100);
        // Against an empty map, or from an empty one: all, or nothing.
        assert_eq!(m.changed_from(&PartitionMap::new()).count(), m.len());
        assert_eq!(PartitionMap::<u64>::new().changed_from(&m).count(), 0);
    }

    /// An iterator read from both ends meets in the middle without
    /// repeating or losing an entry.
    #[test]
    fn both_ended_reads_match_a_btree_map() {
        let mut rng = Rng::new(11);
        let mut m: PartitionMap<u64> = PartitionMap::new();
        let mut b: BTreeMap<TopicPartition, u64> = BTreeMap::new();
        for i in 0..3_000u64 {
            let k = key(&mut rng);
            if i % 4 == 3 {
                m.remove(&k);
                b.remove(&k);
            } else {
                m.insert(k.clone(), i);
                b.insert(k, i);
            }
        }
        for pattern in [0b1u64, 0b10, 0b110, 0b1011_0101] {
            let mut it = m.iter();
            // What the front reads, in order, then what the back reads,
            // turned round: the whole map in key order.
            let (mut front, mut back) = (Vec::new(), Vec::new());
            let mut i = 0;
            loop {
                let from_back = (pattern >> (i % 8)) & 1 == 1;
                let next = if from_back { it.next_back() } else { it.next() };
                i += 1;
                match next {
                    Some((k, _)) if from_back => back.push(k.clone()),
                    Some((k, _)) => front.push(k.clone()),
                    None => break,
                }
            }
            front.extend(back.into_iter().rev());
            let all: Vec<TopicPartition> = b.keys().cloned().collect();
            assert_eq!(front, all, "pattern {pattern:b}");
        }
    }

    /// A walk from a key reads what a `BTreeMap`'s range from that key
    /// does, from the front and from the back: keys present or absent,
    /// before, between and after the topics, inside and between chunks.
    /// (The controller walks the context's partitions a slice at a time
    /// from where the last slice stopped.)
    #[test]
    fn walks_from_a_key_match_a_btree_map_range() {
        let mut rng = Rng::new(23);
        let mut m: PartitionMap<u64> = PartitionMap::new();
        let mut b: BTreeMap<TopicPartition, u64> = BTreeMap::new();
        for i in 0..2_000u64 {
            let k = key(&mut rng);
            m.insert(k.clone(), i);
            b.insert(k, i);
        }
        let mut froms: Vec<TopicPartition> = (0..300).map(|_| key(&mut rng)).collect();
        for (topic, p) in [
            ("a", 0),
            ("clicks", 0),
            ("clicks", 31),
            ("clicks", 32),
            ("zzz", 0),
        ] {
            froms.push(TopicPartition::new(topic, p));
        }
        froms.push(TopicPartition::new("orders", u32::MAX));
        for from in &froms {
            let want: Vec<(TopicPartition, &u64)> = (b.range(from.clone()..))
                .map(|(k, v)| (k.clone(), v))
                .collect();
            assert!(m.iter_from(from).eq(want.iter().cloned()), "from {from:?}");
            assert!(
                m.iter_from(from).rev().eq(want.iter().rev().cloned()),
                "back from {from:?}"
            );
        }
        // A walk a slice of 7 at a time, each from the key the last one
        // stopped at, reads the whole map once, and says when it is done.
        let mut walked = Vec::new();
        let mut at = Resume::default();
        let mut slices = 0;
        while !m.walk_slice(&mut at, Some(7), |k, v| walked.push((k.clone(), *v))) {
            slices += 1;
            assert_eq!(walked.len(), 7 * slices);
        }
        assert_eq!(slices, (b.len() - 1) / 7);
        assert!(walked.iter().map(|(k, v)| (k, v)).eq(b.iter()));
    }

    /// A map built from sorted entries is the map built by inserting them;
    /// unsorted entries are inserted one by one. Conditional changes
    /// (`get_mut_if`) change what a `BTreeMap` would and copy no chunk whose
    /// values stay.
    #[test]
    fn built_from_sorted_entries_and_changed_where_needed() {
        let entries: Vec<(TopicPartition, u64)> = ["b", "a"]
            .iter()
            .flat_map(|t| {
                (0..200u32)
                    .filter(|p| p % 7 != 3)
                    .map(move |p| (TopicPartition::new(*t, p), u64::from(p)))
            })
            .collect();
        let built = PartitionMap::from_sorted(entries.clone());
        let inserted: PartitionMap<u64> = entries.iter().cloned().collect();
        let b: BTreeMap<TopicPartition, u64> = entries.iter().cloned().collect();
        assert_same(&built, &b);
        assert_same(&inserted, &b);
        let mut sorted = entries.clone();
        sorted.sort();
        let from_sorted = PartitionMap::from_sorted(sorted);
        assert_same(&from_sorted, &b);
        assert_eq!(from_sorted.chunk_count(), 2 * 200usize.div_ceil(SLOTS));
        let keys: Vec<TopicPartition> = (0..250u32).map(|p| TopicPartition::new("a", p)).collect();
        let seen: Vec<Option<u64>> = keys.iter().map(|k| from_sorted.get(k).copied()).collect();
        let want: Vec<Option<u64>> = keys.iter().map(|k| b.get(k).copied()).collect();
        assert_eq!(seen, want);
        let mut changed = from_sorted.clone();
        for k in &keys {
            if let Some(v) = changed.get_mut_if(k, |v| *v < 40) {
                *v += 1_000;
            }
        }
        let mut b2 = b.clone();
        for k in &keys {
            if let Some(v) = b2.get_mut(k).filter(|v| **v < 40) {
                *v += 1_000;
            }
        }
        assert_same(&changed, &b2);
        // Partitions 0..40 of "a" span two chunks; the rest stay shared.
        assert_eq!(
            changed.unshared_entries(Some(&from_sorted)),
            (0..2 * SLOTS as u32).filter(|p| p % 7 != 3).count()
        );
    }
}
