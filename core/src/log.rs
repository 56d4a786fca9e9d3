//! Replica logs and the ledger of produced records: just enough of the data
//! plane to show what the controller's choices cost.
//!
//! A log is a list of records, each with its offset (its index), the leader
//! epoch that wrote it and a run-wide record id. Logs live on disk: they
//! survive a broker's restart, and only StopReplica(delete) or the end of the
//! topic's deletion removes them.

use crate::ids::TopicPartition;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// One record in a log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogRecord {
    /// The leader epoch of the leader that appended it.
    pub leader_epoch: i32,
    /// The run-wide id of the produced record.
    pub id: u64,
}

/// A replica's log.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Log {
    /// Records by offset.
    pub records: Records,
    /// The high watermark as this replica knows it.
    pub high_watermark: u64,
}

impl Log {
    /// The log end offset.
    pub fn log_end_offset(&self) -> u64 {
        self.records.len() as u64
    }

    /// How many leading records this log shares with `leader`: where a
    /// follower truncates to before fetching (the result of Kafka's
    /// OffsetsForLeaderEpoch exchange, KIP-101/279, computed exactly).
    pub fn common_prefix(&self, leader: &Log) -> u64 {
        self.records
            .iter()
            .zip(leader.records.iter())
            .take_while(|(a, b)| a == b)
            .count() as u64
    }

    /// Drop every record from `offset` on; returns the dropped ones.
    pub fn truncate_to(&mut self, offset: u64) -> Vec<LogRecord> {
        let at = (offset as usize).min(self.records.len());
        let dropped = self.records.get(at..).unwrap_or(&[]).to_vec();
        self.records.truncate(at);
        self.high_watermark = self.high_watermark.min(offset);
        dropped
    }

    /// Whether the record with `id` is at `offset`.
    pub fn has(&self, offset: u64, id: u64) -> bool {
        self.records
            .get(offset as usize)
            .is_some_and(|r| r.id == id)
    }
}

/// A log's records, by offset: no allocation until the first record (most
/// replicas of a large cluster never get one), and a single pointer in the
/// log, so an idle replica's log is two words. Reads as a slice, and
/// compares, prints and serializes as the `Vec` it replaces.
#[derive(Clone, Default)]
// The box is the point: one word in the log instead of a `Vec`'s three.
#[allow(clippy::box_collection)]
pub struct Records(Option<Box<Vec<LogRecord>>>);

impl Records {
    /// Append one record.
    pub fn push(&mut self, record: LogRecord) {
        self.0.get_or_insert_with(Default::default).push(record);
    }

    /// Append these records.
    pub fn extend_from_slice(&mut self, records: &[LogRecord]) {
        if !records.is_empty() {
            self.0
                .get_or_insert_with(Default::default)
                .extend_from_slice(records);
        }
    }

    /// Keep the first `len` records (all if there are fewer).
    pub fn truncate(&mut self, len: usize) {
        if len == 0 {
            self.0 = None;
        } else if let Some(v) = &mut self.0 {
            v.truncate(len);
        }
    }
}

impl std::ops::Deref for Records {
    type Target = [LogRecord];
    #[inline]
    fn deref(&self) -> &[LogRecord] {
        self.0.as_deref().map_or(&[], |v| v)
    }
}

impl From<Vec<LogRecord>> for Records {
    fn from(v: Vec<LogRecord>) -> Records {
        Records((!v.is_empty()).then(|| Box::new(v)))
    }
}

impl PartialEq for Records {
    fn eq(&self, other: &Records) -> bool {
        **self == **other
    }
}

impl Eq for Records {}

impl std::fmt::Debug for Records {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for Records {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Records {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<LogRecord>::deserialize(d).map(Records::from)
    }
}

/// How a producer asked to be acknowledged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Acks {
    /// `acks=0`: never acknowledged.
    None,
    /// `acks=1`: acknowledged once the leader has it.
    Leader,
    /// `acks=all`: acknowledged once every ISR member has it.
    All,
}

impl Acks {
    /// As the producer config spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Acks::None => "0",
            Acks::Leader => "1",
            Acks::All => "all",
        }
    }
}

/// A produced record and what became of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProducedRecord {
    /// Run-wide id.
    pub id: u64,
    /// The partition.
    pub tp: TopicPartition,
    /// The offset the leader gave it.
    pub offset: u64,
    /// The producer's acks setting.
    pub acks: Acks,
    /// When it was appended by the leader.
    pub produced_at: SimTime,
    /// When the producer got its acknowledgement.
    pub acked_at: Option<SimTime>,
    /// When and why it was lost, once leadership passed to a log without it.
    pub lost: Option<(SimTime, String)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_read_compare_and_serialize_as_a_vec_would() {
        // Kafka: a follower truncates its log to where it agrees with the
        // leader's (Log.truncateTo) and appends what it fetches; here the
        // records are checked against a plain Vec through the same steps,
        // and after clones.
        let rec = |id: u64| LogRecord {
            leader_epoch: (id % 3) as i32,
            id,
        };
        let mut log = Log::default();
        let mut model: Vec<LogRecord> = Vec::new();
        assert_eq!(log.records.len(), 0);
        assert_eq!(
            serde_json::to_string(&log.records).unwrap(),
            serde_json::to_string(&model).unwrap()
        );
        for id in 0..5 {
            log.records.push(rec(id));
            model.push(rec(id));
        }
        let copy = log.clone();
        assert_eq!(log.truncate_to(3), model.split_off(3));
        assert_eq!(&log.records[..], &model[..]);
        assert_eq!(copy.records.len(), 5, "the copy keeps its records");
        log.records.extend_from_slice(&[rec(9), rec(10)]);
        model.extend_from_slice(&[rec(9), rec(10)]);
        assert_eq!(&log.records[..], &model[..]);
        assert_eq!(format!("{:?}", log.records), format!("{model:?}"));
        let json = serde_json::to_string(&log).unwrap();
        assert_eq!(serde_json::from_str::<Log>(&json).unwrap(), log);
        assert_eq!(log.common_prefix(&copy), 3);
        assert!(log.has(3, 9) && !log.has(5, 0));
        // Emptied, it equals a log that never had records.
        assert_eq!(log.truncate_to(0).len(), 5);
        log.high_watermark = 0;
        assert_eq!(log, Log::default());
        log.records.extend_from_slice(&[]);
        assert!(log.records.0.is_none());
        assert_eq!(Records::from(Vec::new()), Records::default());
    }
}
