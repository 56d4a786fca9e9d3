//! A trace's records in order, held in blocks of at most [`BLOCK`] records
//! rather than one contiguous list. A Kafka-scale start-up writes 600,000
//! records (18.5 MiB); one list grown as it fills is copied into a
//! larger block each time and leaves the smaller one free, and in the page
//! WebAssembly's memory never shrinks: those freed blocks, each larger than
//! anything else the simulation allocates, cost the page about 21 MiB of its
//! 209 after a 200,000-partition start-up. Blocks of a fixed size are never
//! copied and any freed one fits the next.

use super::TraceRecord;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// How many records a block holds (64 KiB of 32-byte records).
pub const BLOCK: usize = 2048;

/// Records in order (see the module's notes). Every block but the last
/// holds exactly [`BLOCK`] records and the last at least one, so the `i`th
/// record is at block `i / BLOCK`, place `i % BLOCK`. Compares, prints and
/// serialises as the list of its records.
#[derive(Clone, Default)]
pub struct Records {
    blocks: Vec<Vec<TraceRecord>>,
    len: usize,
}

impl Records {
    /// No records.
    pub fn new() -> Records {
        Records::default()
    }

    /// How many records.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Append `r`. The first block grows as a list does, up to [`BLOCK`]
    /// (a short trace holds no more than it needs); later ones are made
    /// whole.
    pub fn push(&mut self, r: TraceRecord) {
        match self.blocks.last_mut() {
            Some(last) if last.len() < BLOCK => {
                if last.len() == last.capacity() {
                    let want = (last.len() * 2).clamp(16, BLOCK);
                    last.reserve_exact(want - last.len());
                }
                last.push(r);
            }
            _ => {
                let mut block = Vec::with_capacity(if self.blocks.is_empty() { 16 } else { BLOCK });
                block.push(r);
                self.blocks.push(block);
            }
        }
        self.len += 1;
    }

    /// The `i`th record.
    pub fn get(&self, i: usize) -> Option<&TraceRecord> {
        self.blocks.get(i / BLOCK)?.get(i % BLOCK)
    }

    /// The first record.
    pub fn first(&self) -> Option<&TraceRecord> {
        self.blocks.first()?.first()
    }

    /// The last record.
    pub fn last(&self) -> Option<&TraceRecord> {
        self.blocks.last()?.last()
    }

    /// Keep the first `n` records.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.len {
            return;
        }
        self.blocks.truncate(n.div_ceil(BLOCK));
        if let Some(last) = self.blocks.last_mut() {
            last.truncate(n - (n - 1) / BLOCK * BLOCK);
        }
        self.len = n;
    }

    /// The records in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            inner: self.blocks.iter().flatten(),
            left: self.len,
        }
    }

    /// The records from the `from`th on, in order.
    pub fn iter_from(&self, from: usize) -> Iter<'_> {
        let first = from / BLOCK;
        let blocks = self.blocks.get(first..).unwrap_or(&[]);
        let mut inner = blocks.iter().flatten();
        // Within the first block only (a slice's iterator skips in one step).
        if let Some(before) = (from % BLOCK).checked_sub(1) {
            inner.nth(before);
        }
        Iter {
            inner,
            left: self.len.saturating_sub(from),
        }
    }

    /// The records as one list.
    pub fn to_vec(&self) -> Vec<TraceRecord> {
        self.iter().cloned().collect()
    }
}

/// The records of a [`Records`], in order.
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    inner: std::iter::Flatten<std::slice::Iter<'a, Vec<TraceRecord>>>,
    left: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a TraceRecord;

    fn next(&mut self) -> Option<&'a TraceRecord> {
        let r = self.inner.next()?;
        self.left -= 1;
        Some(r)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let r = self.inner.next_back()?;
        self.left -= 1;
        Some(r)
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Records {
    type Item = &'a TraceRecord;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl IntoIterator for Records {
    type Item = TraceRecord;
    type IntoIter = std::iter::Flatten<std::vec::IntoIter<Vec<TraceRecord>>>;

    fn into_iter(self) -> Self::IntoIter {
        self.blocks.into_iter().flatten()
    }
}

impl Extend<TraceRecord> for Records {
    fn extend<I: IntoIterator<Item = TraceRecord>>(&mut self, records: I) {
        for r in records {
            self.push(r);
        }
    }
}

impl FromIterator<TraceRecord> for Records {
    fn from_iter<I: IntoIterator<Item = TraceRecord>>(records: I) -> Records {
        let mut out = Records::new();
        out.extend(records);
        out
    }
}

impl From<Vec<TraceRecord>> for Records {
    fn from(records: Vec<TraceRecord>) -> Records {
        records.into_iter().collect()
    }
}

impl PartialEq for Records {
    fn eq(&self, other: &Records) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl Eq for Records {}

impl fmt::Debug for Records {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for Records {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Records {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Records, D::Error> {
        Vec::<TraceRecord>::deserialize(d).map(Records::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fact::Fact;

    fn record(i: usize) -> TraceRecord {
        TraceRecord::new(
            crate::time::SimTime(i as u64),
            "user",
            "note",
            Fact::Text(format!("{i}")),
        )
    }

    /// Pushes, truncations, reads from a place and by index answer as one
    /// list does, across block boundaries; two lists of the same records
    /// compare equal however they were made. (The trace Kafka's controller
    /// and brokers write, in order: what the timeline keeps and cuts back
    /// when it seeks.)
    #[test]
    fn records_answer_as_one_list() {
        let mut rng = crate::rng::Rng::new(5);
        let mut records = Records::new();
        let mut list: Vec<TraceRecord> = Vec::new();
        let mut next = 0;
        for round in 0..60 {
            match rng.below(4) {
                0 => {
                    let n = rng.below(list.len() as u64 + 1) as usize;
                    records.truncate(n);
                    list.truncate(n);
                }
                _ => {
                    let n = rng.below(3 * BLOCK as u64) as usize;
                    for _ in 0..n {
                        records.push(record(next));
                        list.push(record(next));
                        next += 1;
                    }
                }
            }
            assert_eq!(records.len(), list.len(), "round {round}");
            assert_eq!(records.to_vec(), list, "round {round}");
            assert_eq!(records.first(), list.first());
            assert_eq!(records.last(), list.last());
            assert!(records
                .blocks
                .iter()
                .rev()
                .skip(1)
                .all(|b| b.len() == BLOCK));
            assert!(records.blocks.last().is_none_or(|b| !b.is_empty()));
            for _ in 0..8 {
                let at = rng.below(list.len() as u64 + 2) as usize;
                assert_eq!(records.get(at), list.get(at), "round {round} at {at}");
                let from: Vec<&TraceRecord> = records.iter_from(at).collect();
                let want: Vec<&TraceRecord> = list.iter().skip(at).collect();
                assert_eq!(from, want, "round {round} from {at}");
                assert_eq!(records.iter_from(at).len(), want.len());
                let back: Vec<&TraceRecord> = records.iter().rev().take(at).collect();
                let want: Vec<&TraceRecord> = list.iter().rev().take(at).collect();
                assert_eq!(back, want);
            }
            assert_eq!(records, Records::from(list.clone()));
        }
    }
}
