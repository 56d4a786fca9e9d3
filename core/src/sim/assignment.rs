//! A topic's assignment as the simulator follows it from the topic's znode:
//! each partition's replicas, held flat (three vectors for the whole topic
//! instead of a map node entry and a heap block per partition).

use crate::ids::BrokerId;
use serde::{Deserialize, Serialize};

/// Partition → replicas of one topic, in partition order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct TopicAssignment {
    /// The partitions, ascending, each once.
    partitions: Vec<u32>,
    /// Where each partition's replicas end in `replicas`.
    ends: Vec<u32>,
    replicas: Vec<BrokerId>,
}

impl TopicAssignment {
    /// How many partitions it assigns.
    pub(super) fn len(&self) -> usize {
        self.partitions.len()
    }

    /// The replicas of `partition`, if assigned.
    pub(super) fn get(&self, partition: u32) -> Option<&[BrokerId]> {
        // Partitions are numbered from 0 without gaps in every topic Kafka
        // writes: look there first, then search.
        let i = match self.partitions.get(partition as usize) {
            Some(p) if *p == partition => partition as usize,
            _ => self.partitions.binary_search(&partition).ok()?,
        };
        let start = match i {
            0 => 0,
            _ => self.ends[i - 1] as usize,
        };
        self.replicas.get(start..self.ends[i] as usize)
    }
}

/// From a decoded znode's (partition, replicas) pairs in any order; a
/// partition named twice keeps its last replicas (as a map's insert would).
impl FromIterator<(u32, Vec<BrokerId>)> for TopicAssignment {
    fn from_iter<I: IntoIterator<Item = (u32, Vec<BrokerId>)>>(iter: I) -> TopicAssignment {
        let mut pairs: Vec<(u32, Vec<BrokerId>)> = iter.into_iter().collect();
        if !pairs.windows(2).all(|w| w[0].0 < w[1].0) {
            // Stable: of a partition named twice, the later pair stays later.
            crate::sort::sort_by_key(&mut pairs, |(p, _)| *p);
            let mut kept: Vec<(u32, Vec<BrokerId>)> = Vec::with_capacity(pairs.len());
            for pair in pairs {
                match kept.last_mut() {
                    Some(last) if last.0 == pair.0 => *last = pair,
                    _ => kept.push(pair),
                }
            }
            pairs = kept;
        }
        let mut a = TopicAssignment {
            partitions: Vec::with_capacity(pairs.len()),
            ends: Vec::with_capacity(pairs.len()),
            replicas: Vec::with_capacity(pairs.iter().map(|(_, r)| r.len()).sum()),
        };
        for (p, r) in pairs {
            a.partitions.push(p);
            a.replicas.extend(r);
            a.ends.push(a.replicas.len() as u32);
        }
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn ids(v: &[u32]) -> Vec<BrokerId> {
        v.iter().copied().map(BrokerId).collect()
    }

    /// Against a map built from the same pairs: every lookup, dense or not,
    /// in order or not, with a partition named twice and empty replica lists.
    #[test]
    fn answers_as_a_map_of_the_same_pairs_would() {
        let cases: Vec<Vec<(u32, Vec<BrokerId>)>> = vec![
            vec![],
            (0..50)
                .map(|p| (p, ids(&[p % 5, (p + 1) % 5, (p + 2) % 5])))
                .collect(),
            vec![
                (3, ids(&[1])),
                (0, ids(&[2, 3])),
                (7, ids(&[])),
                (1, ids(&[4, 5, 6, 7])),
            ],
            vec![
                (0, ids(&[1, 2])),
                (1, ids(&[3])),
                (0, ids(&[9])),
                (2, ids(&[5, 6])),
            ],
            vec![(5, ids(&[1])), (6, ids(&[2])), (7, ids(&[3]))],
            vec![
                (1, ids(&[1])),
                (2, ids(&[2])),
                (3, ids(&[3])),
                (0, ids(&[0])),
            ],
        ];
        for pairs in cases {
            let model: BTreeMap<u32, Vec<BrokerId>> = pairs.iter().cloned().collect();
            let a: TopicAssignment = pairs.iter().cloned().collect();
            assert_eq!(a.len(), model.len(), "{pairs:?}");
            for p in 0..60 {
                assert_eq!(
                    a.get(p),
                    model.get(&p).map(Vec::as_slice),
                    "partition {p} of {pairs:?}"
                );
            }
            assert_eq!(a.get(u32::MAX), None);
            let copy = a.clone();
            assert_eq!(copy, a);
        }
        let one: TopicAssignment = [(0, ids(&[1]))].into_iter().collect();
        let other: TopicAssignment = [(0, ids(&[2]))].into_iter().collect();
        assert_ne!(one, other, "different replicas compare unequal");
    }
}
