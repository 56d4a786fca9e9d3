//! What an event in progress has yet to hand out (its requests, its trace
//! lines), oldest first.

use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// Items built once, when the controller processes an event, then only
/// taken from the front as the event's virtual time passes. Held behind an
/// `Rc`, so a copy of the simulation (a timeline snapshot) shares them
/// instead of copying them: a 200,000-partition topic's creation leaves
/// hundreds of thousands for tens of virtual seconds. Taking moves an item
/// out when nothing shares the list, and copies it otherwise. Compares,
/// prints and serializes as the list of the items not yet taken.
#[derive(Clone)]
pub struct Backlog<T> {
    items: Rc<Vec<Option<T>>>,
    next: usize,
}

/// The fewest taken items worth a compaction (below it, the slots cost less
/// than moving the rest).
const COMPACT_FROM: usize = 1024;

impl<T> Default for Backlog<T> {
    fn default() -> Self {
        Backlog {
            items: Rc::new(Vec::new()),
            next: 0,
        }
    }
}

impl<T> From<Vec<T>> for Backlog<T> {
    fn from(v: Vec<T>) -> Self {
        Backlog {
            items: Rc::new(v.into_iter().map(Some).collect()),
            next: 0,
        }
    }
}

impl<T: Clone> Backlog<T> {
    /// The items not yet taken, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.items.get(self.next..).unwrap_or(&[]).iter().flatten()
    }

    /// The oldest item not yet taken.
    pub fn front(&self) -> Option<&T> {
        self.iter().next()
    }

    /// Take the `n` oldest items (fewer if there are not as many).
    pub fn take(&mut self, n: usize) -> Vec<T> {
        let end = self.next.saturating_add(n).min(self.items.len());
        let range = self.next..end;
        self.next = end;
        match Rc::get_mut(&mut self.items) {
            Some(items) => {
                let taken = items
                    .get_mut(range)
                    .unwrap_or(&mut [])
                    .iter_mut()
                    .filter_map(Option::take)
                    .collect();
                // Once half the list is taken, its emptied slots go: a
                // start-up's 400,000 trace lines would otherwise keep their
                // slots (13 MB at 200,000 partitions) until the event ends,
                // the start-up's peak. Each compaction at least halves the
                // list, so the moves cost at most one per item in all.
                if end >= COMPACT_FROM && end >= items.len() / 2 {
                    items.drain(..end);
                    items.shrink_to_fit();
                    self.next = 0;
                }
                taken
            }
            None => self
                .items
                .get(range)
                .unwrap_or(&[])
                .iter()
                .flatten()
                .cloned()
                .collect(),
        }
    }
}

impl<T: Clone> IntoIterator for Backlog<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(mut self) -> Self::IntoIter {
        let n = self.items.len();
        self.take(n).into_iter()
    }
}

impl<T: Clone + PartialEq> PartialEq for Backlog<T> {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl<T: Clone + Eq> Eq for Backlog<T> {}

impl<T: Clone + std::fmt::Debug> std::fmt::Debug for Backlog<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Clone + Serialize> Serialize for Backlog<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Backlog<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<T>::deserialize(d).map(Backlog::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn a_backlog_takes_prints_and_serializes_as_the_deque_it_replaces() {
        let items: Vec<String> = (0..10).map(|i| format!("r{i}")).collect();
        let mut b = Backlog::from(items.clone());
        let mut d: VecDeque<String> = items.into();
        let copy = b.clone();
        for n in [0, 3, 1, 4, 5] {
            assert_eq!(b.take(n), d.drain(..n.min(d.len())).collect::<Vec<_>>());
            assert_eq!(format!("{b:?}"), format!("{d:?}"));
            assert_eq!(
                serde_json::to_string(&b).unwrap(),
                serde_json::to_string(&d).unwrap()
            );
            assert_eq!(b.front(), d.front());
        }
        // The copy taken before is untouched, and reads back equal.
        assert_eq!(copy.iter().count(), 10);
        let back: Backlog<String> =
            serde_json::from_str(&serde_json::to_string(&copy).unwrap()).unwrap();
        assert_eq!(back, copy);
        assert_ne!(back, b);
        // Long enough to be compacted as it is taken, alone and while a copy
        // shares it: it still reads as the deque, and so does the copy.
        let items: Vec<u32> = (0..5_000).collect();
        let mut b = Backlog::from(items.clone());
        let mut d: VecDeque<u32> = items.into();
        let mut copies = Vec::new();
        for (i, n) in [700, 900, 1, 1_500, 333, 0, 800, 900, 2_000]
            .into_iter()
            .enumerate()
        {
            if i == 4 {
                copies.push((b.clone(), d.clone()));
            }
            assert_eq!(b.take(n), d.drain(..n.min(d.len())).collect::<Vec<_>>());
            assert!(b.iter().eq(d.iter()));
            assert_eq!(b.front(), d.front());
        }
        assert!(b.items.len() < 5_000, "the taken slots are gone");
        for (c, cd) in copies {
            assert!(c.iter().eq(cd.iter()));
            assert_eq!(c.into_iter().collect::<Vec<_>>(), Vec::from(cd));
        }
        // Not shared any more: taken by moving out; the rest as a list.
        let mut alone = Backlog::from(vec![1, 2, 3]);
        assert_eq!(alone.take(1), vec![1]);
        assert_eq!(alone.into_iter().collect::<Vec<_>>(), vec![2, 3]);
    }
}
