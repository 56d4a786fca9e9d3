//! What the UI and the CLI show: a serializable picture of the cluster.

use crate::broker::BrokerStatus;
use crate::ids::BrokerId;
use crate::sim::Sim;
use serde::{Deserialize, Serialize};

/// One broker as drawn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokerView {
    /// `broker.id`.
    pub id: BrokerId,
    /// `running`, `starting`, `shutting_down`, `paused` or `dead`.
    pub status: String,
    /// The broker's `activeControllerId`.
    pub active_controller_id: Option<BrokerId>,
    /// Whether this broker believes it is the controller.
    pub is_active_controller: bool,
    /// The highest controller epoch the broker has accepted.
    pub controller_epoch_seen: i32,
    /// The broker epoch (czxid of its registration), −1 if never registered.
    pub broker_epoch: i64,
    /// When its ZooKeeper session expires if no heartbeat comes, if it has a live one.
    pub session_expires_at_ms: Option<u64>,
}

/// One znode as drawn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZnodeView {
    /// Full path.
    pub path: String,
    /// Data as stored.
    pub data: String,
    /// Whether the node is ephemeral.
    pub ephemeral: bool,
    /// Data version.
    pub version: i32,
}

/// The whole picture at one moment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterView {
    /// Virtual time in ms.
    pub time_ms: u64,
    /// `/controller`'s brokerid.
    pub controller: Option<BrokerId>,
    /// `/controller_epoch`.
    pub controller_epoch: i32,
    /// Brokers by id.
    pub brokers: Vec<BrokerView>,
    /// Every znode, in path order.
    pub znodes: Vec<ZnodeView>,
}

impl ClusterView {
    /// The view of `sim` now.
    pub fn of(sim: &Sim) -> ClusterView {
        let zk = sim.zk();
        let brokers = sim
            .brokers()
            .values()
            .map(|b| BrokerView {
                id: b.id,
                status: b.status.as_str().to_string(),
                active_controller_id: b.controller.active_controller_id,
                is_active_controller: b.status != BrokerStatus::Dead
                    && b.controller.is_active(b.id),
                controller_epoch_seen: b.controller_epoch_seen,
                broker_epoch: b.broker_epoch,
                session_expires_at_ms: b
                    .zk_client
                    .session
                    .and_then(|s| zk.session(s))
                    .filter(|s| s.state == crate::zk::SessionState::Alive)
                    .map(|s| s.expires_at().as_ms()),
            })
            .collect();
        let znodes = zk
            .nodes()
            .map(|(p, n)| ZnodeView {
                path: p.to_string(),
                data: n.data.clone(),
                ephemeral: n.stat.ephemeral_owner.is_some(),
                version: n.stat.version,
            })
            .collect();
        ClusterView {
            time_ms: sim.now().as_ms(),
            controller: sim.controller_id(),
            controller_epoch: sim.controller_epoch(),
            brokers,
            znodes,
        }
    }

    /// The data of the znode at `path`, if it exists.
    pub fn znode(&self, path: &str) -> Option<&ZnodeView> {
        self.znodes.iter().find(|z| z.path == path)
    }
}
