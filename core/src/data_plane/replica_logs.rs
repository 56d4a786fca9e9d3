//! The replica logs of every broker, by (broker, partition): one shared,
//! copy-on-write map of partitions per broker ([`CowMap`]), so that a lookup
//! searches the broker's own logs (a few thousand at Kafka scale) rather
//! than every log of the cluster. It reads, compares and serializes as the
//! single map keyed by (broker, partition) it replaces.

use crate::cow_map::CowMap;
use crate::ids::{BrokerId, TopicPartition};
use crate::log::Log;
use crate::vec_map::VecMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;

/// A (broker, partition) key.
pub type LogKey = (BrokerId, TopicPartition);

/// Replica logs by broker, then partition.
#[derive(Clone, Default)]
pub struct ReplicaLogs {
    by_broker: VecMap<BrokerId, CowMap<TopicPartition, Log>>,
}

impl ReplicaLogs {
    /// The log of `key`.
    pub fn get(&self, key: &LogKey) -> Option<&Log> {
        self.by_broker.get(&key.0)?.get(&key.1)
    }

    /// Whether `key` has a log.
    pub fn contains_key(&self, key: &LogKey) -> bool {
        self.get(key).is_some()
    }

    /// The log of `key`, to change.
    pub fn get_mut(&mut self, key: &LogKey) -> Option<&mut Log> {
        self.by_broker.get_mut(&key.0)?.get_mut(&key.1)
    }

    /// The log of `key`, to change, if `needs` says it must (see
    /// [`CowMap::get_mut_if`]).
    pub fn get_mut_if(
        &mut self,
        key: &LogKey,
        needs: impl FnOnce(&Log) -> bool,
    ) -> Option<&mut Log> {
        self.by_broker.get_mut(&key.0)?.get_mut_if(&key.1, needs)
    }

    /// Set the log of `key`; returns the one it replaced.
    pub fn insert(&mut self, key: LogKey, log: Log) -> Option<Log> {
        self.by_broker
            .get_or_insert_with(key.0, CowMap::default)
            .insert(key.1, log)
    }

    /// The log of `key`, to change, made with `make` first if there is none.
    pub fn get_or_insert_with(&mut self, key: LogKey, make: impl FnOnce() -> Log) -> &mut Log {
        self.by_broker
            .get_or_insert_with(key.0, CowMap::default)
            .get_or_insert_with(key.1, make)
    }

    /// Remove the log of `key`; returns it.
    pub fn remove(&mut self, key: &LogKey) -> Option<Log> {
        self.by_broker.get_mut(&key.0)?.remove(&key.1)
    }

    /// Keep only the logs for which `keep` holds.
    pub fn retain(&mut self, mut keep: impl FnMut(BrokerId, &TopicPartition, &Log) -> bool) {
        for (b, logs) in self.by_broker.iter_mut() {
            logs.retain(|tp, log| keep(*b, tp, log));
        }
    }

    /// Every log, by broker then partition.
    pub fn iter(&self) -> impl Iterator<Item = ((BrokerId, &TopicPartition), &Log)> {
        self.by_broker
            .iter()
            .flat_map(|(b, logs)| logs.iter().map(move |(tp, log)| ((*b, tp), log)))
    }

    /// How many logs.
    pub fn len(&self) -> usize {
        self.by_broker.values().map(CowMap::len).sum()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many logs this holds in chunks that `other` does not share (see
    /// [`CowMap::unshared_entries`]).
    pub fn unshared_entries(&self, other: Option<&Self>) -> usize {
        self.by_broker
            .iter()
            .map(|(b, logs)| logs.unshared_entries(other.and_then(|o| o.by_broker.get(b))))
            .sum()
    }
}

impl PartialEq for ReplicaLogs {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for ReplicaLogs {}

impl std::fmt::Debug for ReplicaLogs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Serialize for ReplicaLogs {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for ReplicaLogs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let m = BTreeMap::<LogKey, Log>::deserialize(d)?;
        let mut logs = ReplicaLogs::default();
        for (k, v) in m {
            logs.insert(k, v);
        }
        Ok(logs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The logs by broker read as one map by (broker, partition) would.
    #[test]
    fn it_reads_as_one_map_by_broker_and_partition() {
        let mut logs = ReplicaLogs::default();
        let mut one: BTreeMap<LogKey, Log> = BTreeMap::new();
        for b in [3u32, 1, 2] {
            for p in [5u32, 0, 9] {
                let log = Log {
                    records: Default::default(),
                    high_watermark: u64::from(b * 10 + p),
                };
                let key = (BrokerId(b), TopicPartition::new("t", p));
                logs.insert(key.clone(), log.clone());
                one.insert(key, log);
            }
        }
        let key = (BrokerId(2), TopicPartition::new("t", 9));
        assert_eq!(logs.get(&key).map(|l| l.high_watermark), Some(29));
        assert!(logs.remove(&key).is_some() && one.remove(&key).is_some());
        logs.retain(|b, tp, _| b.0 != 3 || tp.partition != 0);
        one.retain(|(b, tp), _| b.0 != 3 || tp.partition != 0);
        assert!(logs.iter().eq(one.iter().map(|((b, tp), l)| ((*b, tp), l))));
        assert_eq!(logs.len(), one.len());
        if let Some(l) = logs.get_mut_if(&(BrokerId(1), TopicPartition::new("t", 5)), |l| {
            l.high_watermark == 15
        }) {
            l.high_watermark = 0;
        }
        assert_eq!(
            logs.get(&(BrokerId(1), TopicPartition::new("t", 5)))
                .map(|l| l.high_watermark),
            Some(0)
        );
        let mut other = logs.clone();
        assert_eq!(other.unshared_entries(Some(&logs)), 0);
        assert_eq!(logs.unshared_entries(None), logs.len());
        other.get_or_insert_with((BrokerId(7), TopicPartition::new("u", 0)), Log::default);
        assert_ne!(other, logs);
        other.remove(&(BrokerId(7), TopicPartition::new("u", 0)));
        assert_eq!(other, logs, "an emptied broker's map compares as none");
    }
}
