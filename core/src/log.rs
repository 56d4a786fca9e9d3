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
    pub records: Vec<LogRecord>,
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
            .zip(&leader.records)
            .take_while(|(a, b)| a == b)
            .count() as u64
    }

    /// Drop every record from `offset` on; returns the dropped ones.
    pub fn truncate_to(&mut self, offset: u64) -> Vec<LogRecord> {
        let at = (offset as usize).min(self.records.len());
        let dropped = self.records.split_off(at);
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
