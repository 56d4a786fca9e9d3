//! Controller-to-broker requests (ControllerChannelManager and
//! ControllerBrokerRequestBatch in Kafka).

use crate::broker::{ReplicaIds, ReplicaLists};
use crate::ids::{BrokerId, TopicPartition};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Kafka writes −1 for "no leader" in state znodes and requests.
pub const NO_LEADER: i32 = -1;
/// Kafka's `LeaderDuringDelete`: UpdateMetadata tells brokers to drop the partition.
pub const LEADER_DURING_DELETE: i32 = -2;

/// The partition states of an UpdateMetadata, shared by every broker's copy
/// of the request (and by the metadata caches built from it).
pub type SharedStates = std::rc::Rc<[std::rc::Rc<PartitionStateInfo>]>;

/// One partition's state in a LeaderAndIsr, shared by every broker's copy of
/// the batch that carries it (built once per partition, not once per
/// recipient: a failover's start-up batch names each partition to all its
/// online replicas).
pub type SharedState = std::rc::Rc<PartitionStateInfo>;

/// One partition's leadership as carried in LeaderAndIsr and UpdateMetadata.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "StoredInfo", into = "StoredInfo")]
pub struct PartitionStateInfo {
    /// The partition.
    pub tp: TopicPartition,
    /// The controller epoch that wrote this leadership.
    pub controller_epoch: i32,
    /// The leader, −1 for none, −2 while the topic is being deleted.
    pub leader: i32,
    /// The leader epoch.
    pub leader_epoch: i32,
    /// The in-sync replicas and the assigned replicas (preferred first),
    /// read with [`PartitionStateInfo::isr`] and
    /// [`PartitionStateInfo::replicas`]: both in 16 bytes for up to three
    /// replicas and an ISR among them, no allocation per request entry for
    /// the usual replication factors; serialized as two lists.
    pub lists: ReplicaLists,
    /// The state znode's version.
    pub zk_version: i32,
    /// Whether the replica is new (LeaderAndIsr only).
    pub is_new: bool,
}

impl PartitionStateInfo {
    /// The in-sync replicas.
    #[inline]
    pub fn isr(&self) -> ReplicaIds {
        self.lists.isr()
    }

    /// The assigned replicas, preferred first.
    #[inline]
    pub fn replicas(&self) -> &[BrokerId] {
        self.lists.replicas()
    }
}

/// [`PartitionStateInfo`] as it is (de)serialized: its lists apart, as
/// Kafka's request carries them (its Debug prints them so too).
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename = "PartitionStateInfo")]
struct StoredInfo {
    tp: TopicPartition,
    controller_epoch: i32,
    leader: i32,
    leader_epoch: i32,
    isr: ReplicaIds,
    zk_version: i32,
    replicas: ReplicaIds,
    is_new: bool,
}

impl From<StoredInfo> for PartitionStateInfo {
    fn from(s: StoredInfo) -> PartitionStateInfo {
        PartitionStateInfo {
            tp: s.tp,
            controller_epoch: s.controller_epoch,
            leader: s.leader,
            leader_epoch: s.leader_epoch,
            lists: ReplicaLists::new(&s.replicas, &s.isr),
            zk_version: s.zk_version,
            is_new: s.is_new,
        }
    }
}

impl From<PartitionStateInfo> for StoredInfo {
    fn from(p: PartitionStateInfo) -> StoredInfo {
        StoredInfo {
            isr: p.isr(),
            replicas: ReplicaIds::from(p.replicas()),
            tp: p.tp,
            controller_epoch: p.controller_epoch,
            leader: p.leader,
            leader_epoch: p.leader_epoch,
            zk_version: p.zk_version,
            is_new: p.is_new,
        }
    }
}

impl std::fmt::Debug for PartitionStateInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PartitionStateInfo")
            .field("tp", &self.tp)
            .field("controller_epoch", &self.controller_epoch)
            .field("leader", &self.leader)
            .field("leader_epoch", &self.leader_epoch)
            .field("isr", &self.isr())
            .field("zk_version", &self.zk_version)
            .field("replicas", &ReplicaIds::from(self.replicas()))
            .field("is_new", &self.is_new)
            .finish()
    }
}

/// What a request asks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RequestBody {
    /// Become leader or follower for these partitions.
    LeaderAndIsr {
        /// Per-partition leadership (each state shared by the batch's
        /// requests that name the partition).
        partitions: Vec<SharedState>,
    },
    /// Refresh the metadata cache.
    UpdateMetadata {
        /// Partitions to update (may be empty). One list, shared by every
        /// broker's request of the same batch, as Kafka builds the states once
        /// (`ControllerBrokerRequestBatch.sendUpdateMetadataRequests`).
        partitions: SharedStates,
        /// Every live or shutting-down broker.
        live_brokers: Vec<BrokerId>,
    },
    /// Stop replicas, deleting their logs if `delete`.
    StopReplica {
        /// The partitions.
        partitions: Vec<TopicPartition>,
        /// Whether to delete the logs.
        delete: bool,
    },
    /// ControlledShutdownRequest, from a broker to the controller (not on a
    /// controller channel: the broker's own connection). The answer carries
    /// the partitions the broker still leads.
    ControlledShutdown {
        /// The broker shutting down.
        broker: BrokerId,
        /// In the answer: partitions it still leads (empty: go ahead).
        remaining: Vec<TopicPartition>,
    },
}

impl RequestBody {
    /// The lowest and highest leader epoch of the partitions it carries
    /// (`None` for StopReplica, ControlledShutdown and an empty request).
    pub fn leader_epochs(&self) -> Option<(i32, i32)> {
        fn span(mut epochs: impl Iterator<Item = i32>) -> Option<(i32, i32)> {
            let first = epochs.next()?;
            Some(epochs.fold((first, first), |(lo, hi), e| (lo.min(e), hi.max(e))))
        }
        match self {
            RequestBody::LeaderAndIsr { partitions } => {
                span(partitions.iter().map(|p| p.leader_epoch))
            }
            RequestBody::UpdateMetadata { partitions, .. } => {
                span(partitions.iter().map(|p| p.leader_epoch))
            }
            _ => None,
        }
    }

    /// Kafka's API name.
    pub fn name(&self) -> &'static str {
        match self {
            RequestBody::LeaderAndIsr { .. } => "LeaderAndIsr",
            RequestBody::UpdateMetadata { .. } => "UpdateMetadata",
            RequestBody::StopReplica { .. } => "StopReplica",
            RequestBody::ControlledShutdown { .. } => "ControlledShutdown",
        }
    }
}

/// A weak reference to an UpdateMetadata's shared partition states.
type WeakStates = std::rc::Weak<[std::rc::Rc<PartitionStateInfo>]>;

/// The leader-epoch span of the last UpdateMetadata partition list asked
/// for: every broker's copy of one UpdateMetadata shares its states, and the
/// span of tens of thousands of them is worked out once, not once per broker.
/// A cache of work, not state: two simulations are equal whatever it holds.
#[derive(Debug, Clone, Default)]
pub struct EpochSpanMemo {
    last: Option<(WeakStates, Option<(i32, i32)>)>,
}

equal_whatever_it_holds!(EpochSpanMemo);

impl EpochSpanMemo {
    /// `body.leader_epochs()`.
    pub fn leader_epochs(&mut self, body: &RequestBody) -> Option<(i32, i32)> {
        let RequestBody::UpdateMetadata { partitions, .. } = body else {
            return body.leader_epochs();
        };
        if let Some((states, span)) = &self.last {
            // The same list, still alive (a live weak reference to the same
            // allocation cannot be a new list at a reused address).
            if states.strong_count() > 0
                && std::ptr::addr_eq(states.as_ptr(), std::rc::Rc::as_ptr(partitions))
            {
                return *span;
            }
        }
        let span = body.leader_epochs();
        self.last = Some((std::rc::Rc::downgrade(partitions), span));
        span
    }
}

/// Where a request is on its way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RequestStatus {
    /// Waiting in the controller's per-broker queue.
    Queued,
    /// On the wire to the broker.
    InFlight,
    /// Handled by the broker; the response is on the wire back.
    Responding,
}

/// A broker's top-level answer to a controller request (the codes of
/// Kafka's `Errors` this simulator gives): `NONE` when accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ApiError {
    /// Accepted.
    None,
    /// The request's controller epoch is older than one the broker accepted
    /// (ReplicaManager).
    StaleControllerEpoch,
    /// The request is for an earlier registration of the broker (KIP-380,
    /// KafkaApis.isBrokerEpochStale).
    StaleBrokerEpoch,
}

impl ApiError {
    /// Kafka's name for it (`Errors.name`).
    pub fn name(self) -> &'static str {
        match self {
            ApiError::None => "NONE",
            ApiError::StaleControllerEpoch => "STALE_CONTROLLER_EPOCH",
            ApiError::StaleBrokerEpoch => "STALE_BROKER_EPOCH",
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a controlled shutdown attempt failed: the controller's refusal, or
/// the broker's failure to get an answer (the exceptions Kafka reports).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum ControlledShutdownError {
    /// The request carried an older broker epoch than the controller knows (KIP-380).
    #[error("StaleBrokerEpochException: received a controlled shutdown request from broker {broker} with a stale broker epoch {broker_epoch}; the current epoch is {current}")]
    StaleBrokerEpoch {
        /// The broker shutting down.
        broker: BrokerId,
        /// The epoch it sent.
        broker_epoch: i64,
        /// The epoch the controller knows.
        current: i64,
    },
    /// The controller does not know the broker as live.
    #[error("BrokerNotAvailableException: broker id {0} does not exist")]
    BrokerNotAvailable(BrokerId),
    /// The request reached a broker that is not the active controller.
    #[error("ControllerMovedException: this broker is not the controller")]
    NotController,
    /// The controller's event was dropped from its queue (`clearAndPut` on a
    /// session expiry preempts it).
    #[error("ControllerMovedException: the controller's event was preempted")]
    Preempted,
    /// The controller's handling of it failed.
    #[error(transparent)]
    Controller(#[from] crate::kafka_zk::ControllerError),
    /// No answer: the connection broke, timed out or the answer was lost.
    #[error("IOException: {0}")]
    Io(String),
    /// A response carrying a broker's top-level error instead of the
    /// controller's answer.
    #[error("{0}")]
    Response(ApiError),
}

/// What a response carries back: the broker's top-level answer, or the
/// controller's refusal of a ControlledShutdownRequest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ResponseError {
    /// The broker's answer (`NONE` when accepted; also a controlled
    /// shutdown answered with the partitions remaining).
    Api(ApiError),
    /// A ControlledShutdownRequest refused.
    ControlledShutdown(ControlledShutdownError),
}

impl ResponseError {
    /// Whether it is `NONE`.
    pub fn is_none(&self) -> bool {
        *self == ResponseError::Api(ApiError::None)
    }
}

impl std::fmt::Display for ResponseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResponseError::Api(e) => f.write_str(e.name()),
            ResponseError::ControlledShutdown(e) => e.fmt(f),
        }
    }
}

/// A controller-to-broker request, as an object that can be watched,
/// delayed or dropped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControlRequest {
    /// Unique id for the run.
    pub id: u64,
    /// The controller that sent it.
    pub from: BrokerId,
    /// The broker it is for.
    pub to: BrokerId,
    /// The sender's controller epoch.
    pub controller_epoch: i32,
    /// The target's broker epoch as the controller knows it (−1: unknown).
    pub broker_epoch: i64,
    /// What it asks.
    pub body: RequestBody,
    /// Where it is.
    pub status: RequestStatus,
    /// When the controller queued it.
    pub queued_at: SimTime,
    /// When it went on the wire.
    pub sent_at: Option<SimTime>,
    /// When it (or its response) arrives.
    pub arrives_at: Option<SimTime>,
    /// The top-level answer, once handled (`NONE` or an error).
    pub error: Option<ResponseError>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request's partition state serializes and prints with its ISR and
    /// its replicas apart, in the fields' order, whether its lists are held
    /// in place or not (an ISR naming a broker that is not a replica, more
    /// than three replicas), and reads back equal. (Kafka: the
    /// `LeaderAndIsrPartitionState` of a LeaderAndIsr or UpdateMetadata
    /// request, with its `isr` and `replicas`.)
    #[test]
    fn a_partition_state_serializes_its_lists_apart() {
        let ids = |v: &[u32]| v.iter().copied().map(BrokerId).collect::<Vec<_>>();
        for (replicas, isr) in [
            (vec![1, 2, 3], vec![3, 1]),
            (vec![1, 2, 3, 4], vec![4, 2, 1]),
            (vec![1, 2], vec![2, 7]),
            (vec![], vec![]),
        ] {
            let p = PartitionStateInfo {
                tp: TopicPartition::new("t", 4),
                controller_epoch: 2,
                leader: isr.first().map_or(-1, |b| *b as i32),
                leader_epoch: 5,
                lists: ReplicaLists::new(&ids(&replicas), &ids(&isr)),
                zk_version: 6,
                is_new: true,
            };
            assert_eq!(
                (p.replicas(), p.isr().to_vec()),
                (&ids(&replicas)[..], ids(&isr))
            );
            let json = serde_json::to_string(&p).expect("serializes");
            let want = format!(
                "{{\"tp\":{},\"controller_epoch\":2,\"leader\":{},\"leader_epoch\":5,\"isr\":{:?},\"zk_version\":6,\"replicas\":{:?},\"is_new\":true}}",
                serde_json::to_string(&p.tp).expect("serializes"),
                p.leader,
                isr,
                replicas
            );
            assert_eq!(json.replace(' ', ""), want.replace(' ', ""));
            let back: PartitionStateInfo = serde_json::from_str(&json).expect("reads");
            assert_eq!(back, p);
            let printed = format!("{p:?}");
            assert!(
                printed.contains(&format!("isr: {:?}", ids(&isr))),
                "{printed}"
            );
            assert!(
                printed.contains(&format!("replicas: {:?}", ids(&replicas))),
                "{printed}"
            );
        }
    }
}
