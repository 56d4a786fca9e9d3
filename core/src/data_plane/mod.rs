//! The data plane: replica logs, the records produced to them, and the
//! state of replication between brokers.

use crate::ids::{BrokerId, TopicPartition};
use crate::log::{Log, ProducedRecord};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The state of the data plane, across all brokers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataPlane {
    /// Replica logs, by (broker, partition); they survive restarts.
    pub(crate) logs: BTreeMap<(BrokerId, TopicPartition), Log>,
    /// Every produced record and its fate.
    pub(crate) produced: Vec<ProducedRecord>,
    /// The id of the next record produced.
    pub(crate) next_record_id: u64,
    /// Fetch sessions: (follower, leader) → when the next round is due.
    pub(crate) fetch_sessions: BTreeMap<(BrokerId, BrokerId), SimTime>,
    /// Brokers slowed by `slow_broker`, with the extra lag per fetch.
    pub(crate) slow_brokers: BTreeMap<BrokerId, u64>,
    /// The committed offset (high watermark) per partition.
    pub(crate) partition_hw: BTreeMap<TopicPartition, u64>,
    /// Partitions whose latest election was unclean, until the leader takes over.
    pub(crate) unclean_partitions: BTreeSet<TopicPartition>,
}
