//! A broker: its process lifecycle, ZooKeeper registration, the
//! `KafkaController` it runs, and how it answers controller requests
//! (KafkaApis and ReplicaManager's epoch checks, the metadata cache).

pub use crate::controller::channel::ApiError;
use crate::controller::channel::{ControlRequest, RequestBody, NO_LEADER};
use crate::controller::KafkaController;
use crate::data_plane::replica_map::ReplicaMap;
use crate::ids::{BrokerId, TopicPartition};
use crate::time::SimTime;
use crate::zk_client::ZkClient;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Where a broker process is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BrokerStatus {
    /// Started, not yet registered in ZooKeeper.
    Starting,
    /// Registered and working.
    Running,
    /// In (controlled) shutdown: still serving until it exits.
    ShuttingDown,
    /// Stalled (a long GC pause): no processing, no heartbeats.
    Paused,
    /// No process.
    Dead,
}

impl BrokerStatus {
    /// The name used in JSON and the UI.
    pub fn as_str(self) -> &'static str {
        match self {
            BrokerStatus::Starting => "starting",
            BrokerStatus::Running => "running",
            BrokerStatus::ShuttingDown => "shutting_down",
            BrokerStatus::Paused => "paused",
            BrokerStatus::Dead => "dead",
        }
    }
}

/// A partition as the broker's ReplicaManager and metadata cache know it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalPartition {
    /// The leader, −1 for none.
    pub leader: i32,
    /// The leader epoch last applied.
    pub leader_epoch: i32,
    /// The ISR last applied.
    pub isr: Vec<BrokerId>,
    /// The assigned replicas.
    pub replicas: Vec<BrokerId>,
    /// The state znode version the broker last knew (a leader writes ISR
    /// changes conditionally on it).
    pub zk_version: i32,
    /// The controller epoch that wrote the leadership.
    pub controller_epoch: i32,
    /// As leader: each follower's log end offset at its last fetch.
    #[serde(default)]
    pub follower_leo: ReplicaMap<u64>,
    /// As leader: when each follower last fetched up to the log end, as
    /// recorded per partition (an idle fetch session keeps a later time for
    /// all its partitions: `DataPlane::caught_up_at`).
    #[serde(default)]
    pub last_caught_up: ReplicaMap<SimTime>,
}

impl LocalPartition {
    fn from_info(p: &crate::controller::channel::PartitionStateInfo) -> LocalPartition {
        LocalPartition {
            leader: p.leader,
            leader_epoch: p.leader_epoch,
            isr: p.isr.clone(),
            replicas: p.replicas.clone(),
            zk_version: p.zk_version,
            controller_epoch: p.controller_epoch,
            follower_leo: ReplicaMap::new(),
            last_caught_up: ReplicaMap::new(),
        }
    }
}

/// The broker's metadata cache (filled by UpdateMetadata).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetadataCache {
    /// The controller id from the last UpdateMetadata.
    pub controller_id: Option<BrokerId>,
    /// Live brokers from the last UpdateMetadata.
    pub live_brokers: Vec<BrokerId>,
    /// Partition leadership from UpdateMetadata.
    pub partitions: BTreeMap<TopicPartition, LocalPartition>,
}

/// How a broker's last process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BrokerExit {
    /// A clean exit (`kill -15`, `kafka-server-stop.sh`, after a controlled
    /// shutdown that worked or not): the ZooKeeper session was closed, so its
    /// ephemeral znodes went at once.
    Clean,
    /// `kill -9`: the session lingers, and `/brokers/ids/<id>` (and
    /// `/controller` if it held it) with it, until ZooKeeper expires it.
    Killed,
    /// It failed to start (`/brokers/ids/<id>` still held by its previous
    /// session); its new session was closed.
    StartupFailed,
}

/// One broker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Broker {
    /// `broker.id`.
    pub id: BrokerId,
    /// Process status.
    pub status: BrokerStatus,
    /// What the status was before a pause.
    pub status_before_pause: BrokerStatus,
    /// Counts starts, so that timers of an earlier process are ignored.
    pub incarnation: u32,
    /// The broker epoch: czxid of its `/brokers/ids/<id>` (−1 before registering).
    pub broker_epoch: i64,
    /// The ZooKeeper client.
    pub zk_client: ZkClient,
    /// The controller this broker runs.
    pub controller: KafkaController,
    /// ReplicaManager's `controllerEpoch`: the highest controller epoch accepted.
    pub controller_epoch_seen: i32,
    /// Replicas this broker hosts (from LeaderAndIsr).
    pub replicas: BTreeMap<TopicPartition, LocalPartition>,
    /// The metadata cache.
    pub metadata: MetadataCache,
    /// While paused: until when.
    pub paused_until: Option<SimTime>,
    /// The controlled-shutdown attempt under way (0: none).
    pub shutdown_attempt: u64,
    /// Its ControlledShutdownRequest on the wire or at the controller, if any.
    #[serde(default)]
    pub shutdown_request: Option<u64>,
    /// Partitions whose ISR this broker changed and has not yet propagated.
    pub isr_change_set: std::collections::BTreeSet<TopicPartition>,
    /// When it last changed an ISR.
    pub last_isr_change: SimTime,
    /// When it last wrote an ISR change notification.
    pub last_isr_propagation: SimTime,
    /// How its last process ended, while it is down (`None` once started
    /// again, or never started).
    #[serde(default)]
    pub exit: Option<BrokerExit>,
}

impl Broker {
    /// A broker that has never been started.
    pub fn new(id: BrokerId) -> Broker {
        Broker {
            id,
            status: BrokerStatus::Dead,
            status_before_pause: BrokerStatus::Dead,
            incarnation: 0,
            broker_epoch: -1,
            zk_client: ZkClient::default(),
            controller: KafkaController::default(),
            controller_epoch_seen: 0,
            replicas: BTreeMap::new(),
            metadata: MetadataCache::default(),
            paused_until: None,
            shutdown_attempt: 0,
            shutdown_request: None,
            isr_change_set: std::collections::BTreeSet::new(),
            last_isr_change: SimTime::ZERO,
            last_isr_propagation: SimTime::ZERO,
            exit: None,
        }
    }

    /// A fresh process for this broker: everything in memory is gone.
    pub fn restart_process(&mut self) {
        let incarnation = self.incarnation + 1;
        *self = Broker::new(self.id);
        self.incarnation = incarnation;
        self.status = BrokerStatus::Starting;
    }

    /// Whether the process runs and processes events (running or shutting down).
    pub fn is_up(&self) -> bool {
        matches!(
            self.status,
            BrokerStatus::Running | BrokerStatus::ShuttingDown
        )
    }

    /// Handle a controller request (KafkaApis, then ReplicaManager). Returns
    /// the top-level error, [`ApiError::None`] when accepted.
    pub fn handle_request(&mut self, req: &ControlRequest) -> ApiError {
        // KIP-380: a request meant for an earlier registration of this broker.
        if req.broker_epoch != -1 && req.broker_epoch < self.broker_epoch {
            return ApiError::StaleBrokerEpoch;
        }
        if req.controller_epoch < self.controller_epoch_seen {
            return ApiError::StaleControllerEpoch;
        }
        self.controller_epoch_seen = req.controller_epoch;
        match &req.body {
            RequestBody::LeaderAndIsr { partitions } => {
                for p in partitions {
                    let newer = self
                        .replicas
                        .get(&p.tp)
                        .is_none_or(|l| p.leader_epoch > l.leader_epoch);
                    if newer && p.replicas.contains(&self.id) {
                        self.replicas
                            .insert(p.tp.clone(), LocalPartition::from_info(p));
                    }
                }
            }
            RequestBody::UpdateMetadata {
                partitions,
                live_brokers,
            } => {
                self.metadata.controller_id = Some(req.from);
                self.metadata.live_brokers = live_brokers.clone();
                for p in partitions {
                    if p.leader < NO_LEADER {
                        self.metadata.partitions.remove(&p.tp);
                    } else {
                        self.metadata
                            .partitions
                            .insert(p.tp.clone(), LocalPartition::from_info(p));
                    }
                }
            }
            RequestBody::StopReplica { partitions, .. } => {
                for tp in partitions {
                    self.replicas.remove(tp);
                }
            }
            // Addressed to the controller's event queue, never handled here.
            RequestBody::ControlledShutdown { .. } => {}
        }
        ApiError::None
    }
}

/// The registration znode's data, at its old path (encoded in [`crate::znodes`]).
pub use crate::znodes::broker_znode_json;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::channel::{PartitionStateInfo, RequestStatus};

    fn request(epoch: i32, broker_epoch: i64, body: RequestBody) -> ControlRequest {
        ControlRequest {
            id: 1,
            from: BrokerId(0),
            to: BrokerId(1),
            controller_epoch: epoch,
            broker_epoch,
            body,
            status: RequestStatus::InFlight,
            queued_at: SimTime::ZERO,
            sent_at: None,
            arrives_at: None,
            error: None,
        }
    }

    fn um() -> RequestBody {
        RequestBody::UpdateMetadata {
            partitions: vec![],
            live_brokers: vec![BrokerId(0), BrokerId(1)],
        }
    }

    #[test]
    fn stale_controller_epochs_are_rejected_and_newer_ones_accepted() {
        // Kafka: ReplicaManager rejects requests with a smaller controllerEpoch
        // (STALE_CONTROLLER_EPOCH) and accepts equal or larger ones.
        let mut b = Broker::new(BrokerId(1));
        b.broker_epoch = 10;
        assert_eq!(b.handle_request(&request(2, 10, um())), ApiError::None);
        assert_eq!(b.controller_epoch_seen, 2);
        assert_eq!(b.metadata.controller_id, Some(BrokerId(0)));
        assert_eq!(
            b.handle_request(&request(1, 10, um())),
            ApiError::StaleControllerEpoch
        );
        assert_eq!(b.handle_request(&request(2, 10, um())), ApiError::None);
        assert_eq!(b.handle_request(&request(3, 10, um())), ApiError::None);
        assert_eq!(b.controller_epoch_seen, 3);
    }

    #[test]
    fn requests_for_an_earlier_registration_are_rejected() {
        // Kafka: KafkaApis.isBrokerEpochStale (KIP-380); −1 skips the check.
        let mut b = Broker::new(BrokerId(1));
        b.broker_epoch = 10;
        assert_eq!(
            b.handle_request(&request(1, 9, um())),
            ApiError::StaleBrokerEpoch
        );
        assert_eq!(b.controller_epoch_seen, 0, "nothing applied");
        assert_eq!(b.handle_request(&request(1, -1, um())), ApiError::None);
    }

    #[test]
    fn leader_and_isr_applies_only_newer_leader_epochs_for_hosted_replicas() {
        // Kafka: ReplicaManager.becomeLeaderOrFollower ignores leader epochs <= the local one.
        let tp = TopicPartition::new("t", 0);
        let state = |leader_epoch: i32, leader: i32, replicas: Vec<u32>| PartitionStateInfo {
            tp: tp.clone(),
            controller_epoch: 1,
            leader,
            leader_epoch,
            isr: vec![BrokerId(1)],
            zk_version: 0,
            replicas: replicas.into_iter().map(BrokerId).collect(),
            is_new: false,
        };
        let mut b = Broker::new(BrokerId(1));
        let lai = |s| RequestBody::LeaderAndIsr {
            partitions: vec![s],
        };
        b.handle_request(&request(1, -1, lai(state(3, 1, vec![1, 2]))));
        b.handle_request(&request(1, -1, lai(state(3, 2, vec![1, 2]))));
        assert_eq!(b.replicas[&tp].leader, 1, "equal leader epoch ignored");
        b.handle_request(&request(1, -1, lai(state(4, 2, vec![1, 2]))));
        assert_eq!(b.replicas[&tp].leader, 2);
        let other = TopicPartition::new("t", 1);
        let mut s = state(1, 2, vec![2, 3]);
        s.tp = other.clone();
        b.handle_request(&request(1, -1, lai(s)));
        assert!(
            !b.replicas.contains_key(&other),
            "not a replica of this broker"
        );
    }
}
