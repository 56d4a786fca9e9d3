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
            Some(items) => items
                .get_mut(range)
                .unwrap_or(&mut [])
                .iter_mut()
                .filter_map(Option::take)
                .collect(),
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
        // Not shared any more: taken by moving out; the rest as a list.
        let mut alone = Backlog::from(vec![1, 2, 3]);
        assert_eq!(alone.take(1), vec![1]);
        assert_eq!(alone.into_iter().collect::<Vec<_>>(), vec![2, 3]);
    }
}
