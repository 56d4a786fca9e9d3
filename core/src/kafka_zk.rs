//! Kafka's `KafkaZkClient`: the broker's and the controller's ZooKeeper
//! operations, each over a broker's [`ZkClient`] and the ensemble ([`Zk`]),
//! taking what it needs as arguments. The broker registers itself here
//! (`registerBroker`); the controller elects itself
//! (`registerControllerAndIncrementControllerEpoch`), fences its writes by
//! the `/controller_epoch` version and reads brokers and partition states.
//! The znode data they read and write is encoded in [`crate::znodes`].

use crate::ids::{BrokerId, TopicPartition};
use crate::time::SimTime;
use crate::zk::{CreateMode, Op, OpResult, Zk, ZkError};
use crate::zk_client::{paths, ZkClient};
use crate::znodes::{
    broker_znode_json, controller_znode_json, decode_partition_state, parse_controller_id,
    LeaderIsr,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Why a controller operation stopped: what KafkaZkClient raises.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum ControllerError {
    /// Another controller bumped `/controller_epoch` (Kafka's ControllerMovedException).
    #[error("ControllerMovedException: {0}")]
    ControllerMoved(String),
    /// A ZooKeeper error the handler did not expect.
    #[error("KeeperException: {0}")]
    Zk(#[from] ZkError),
}

/// `registerBroker`: a checked ephemeral create of `/brokers/ids/<id>`.
/// Returns the broker epoch (the node's czxid). A node left by another,
/// still-live session is `NodeExists`, as in Kafka 2.x, where the broker then
/// fails to start.
pub fn register_broker(
    client: &mut ZkClient,
    zk: &mut Zk,
    id: BrokerId,
    now: SimTime,
) -> Result<i64, ZkError> {
    let path = paths::broker(id);
    let op = Op::Create {
        path: path.clone(),
        data: broker_znode_json(id, now.as_ms()),
        mode: CreateMode::Ephemeral,
    };
    match client.write(zk, op) {
        Ok(OpResult::Created(_)) => {}
        Ok(_) => return Err(ZkError::BadArguments),
        Err(ZkError::NodeExists) => {
            let owned_by_us = zk
                .node(&path)
                .is_some_and(|n| n.stat.ephemeral_owner == client.session);
            if !owned_by_us {
                return Err(ZkError::NodeExists);
            }
        }
        Err(e) => return Err(e),
    }
    zk.node(&path).map(|n| n.stat.czxid).ok_or(ZkError::NoNode)
}

/// `getControllerId`: read `/controller` (re-arming the watch when a handler
/// is registered); `None` when there is no controller.
pub fn get_controller_id(client: &mut ZkClient, zk: &mut Zk) -> Result<Option<BrokerId>, ZkError> {
    match client.get_data(zk, paths::CONTROLLER) {
        Ok((data, _)) => Ok(parse_controller_id(&data)),
        Err(ZkError::NoNode) => Ok(None),
        Err(e) => Err(e),
    }
}

/// `registerControllerAndIncrementControllerEpoch`: create `/controller` for
/// `me` and bump `/controller_epoch` in one multi. Returns the new epoch and
/// the epoch znode's version (the fencing token).
pub fn register_controller_and_increment_epoch(
    client: &mut ZkClient,
    zk: &mut Zk,
    me: BrokerId,
    now: SimTime,
) -> Result<(i32, i32), ControllerError> {
    let (cur_epoch, cur_version) = match client.get_data(zk, paths::CONTROLLER_EPOCH) {
        Ok((data, stat)) => (data.trim().parse::<i32>().unwrap_or(0), stat.version),
        Err(ZkError::NoNode) => {
            let create = Op::Create {
                path: paths::CONTROLLER_EPOCH.into(),
                data: "0".into(),
                mode: CreateMode::Persistent,
            };
            match client.write(zk, create) {
                Ok(_) => (0, 0),
                Err(ZkError::NodeExists) => {
                    let (data, stat) = client.get_data(zk, paths::CONTROLLER_EPOCH)?;
                    (data.trim().parse::<i32>().unwrap_or(0), stat.version)
                }
                Err(e) => return Err(e.into()),
            }
        }
        Err(e) => return Err(e.into()),
    };
    let new_epoch = cur_epoch + 1;
    let ops = [
        Op::Create {
            path: paths::CONTROLLER.into(),
            data: controller_znode_json(me, now.as_ms()),
            mode: CreateMode::Ephemeral,
        },
        Op::SetData {
            path: paths::CONTROLLER_EPOCH.into(),
            data: new_epoch.to_string(),
            version: Some(cur_version),
        },
    ];
    match client.multi(zk, &ops) {
        Ok(results) => match results.get(1) {
            Some(OpResult::SetData(stat)) => Ok((new_epoch, stat.version)),
            _ => Err(ZkError::BadArguments.into()),
        },
        Err((_, ZkError::NodeExists | ZkError::BadVersion)) => {
            // The check path: our multi may have committed with its reply lost.
            let owner = get_controller_id(client, zk)?;
            let (data, stat) = client.get_data(zk, paths::CONTROLLER_EPOCH)?;
            if owner == Some(me) && data.trim() == new_epoch.to_string() {
                Ok((new_epoch, stat.version))
            } else {
                Err(ControllerError::ControllerMoved(format!(
                    "controller moved to {} while broker {} tried to become controller with epoch {new_epoch}",
                    owner.map_or("nobody".into(), |b| format!("broker {b}")),
                    me
                )))
            }
        }
        Err((_, e)) => Err(e.into()),
    }
}

/// A controller write fenced by the `/controller_epoch` version
/// (KafkaZkClient.wrapRequestWithControllerEpochCheck).
pub fn fenced(
    client: &mut ZkClient,
    zk: &mut Zk,
    epoch_zk_version: i32,
    op: Op,
) -> Result<OpResult, ControllerError> {
    let check = Op::Check {
        path: paths::CONTROLLER_EPOCH.into(),
        version: epoch_zk_version,
    };
    match client.multi(zk, &[check, op]) {
        Ok(mut r) => r.pop().ok_or(ControllerError::Zk(ZkError::BadArguments)),
        Err((0, ZkError::BadVersion)) => Err(ControllerError::ControllerMoved(format!(
            "controller epoch zkVersion check fails: expected zkVersion {epoch_zk_version}"
        ))),
        Err((_, e)) => Err(e.into()),
    }
}

/// A fenced delete that treats a node already gone as done (the controller's
/// clean-up of notifications, admin requests and its own znodes).
pub fn fenced_delete(
    client: &mut ZkClient,
    zk: &mut Zk,
    epoch_zk_version: i32,
    path: String,
) -> Result<(), ControllerError> {
    match fenced(
        client,
        zk,
        epoch_zk_version,
        Op::Delete {
            path,
            version: None,
        },
    ) {
        Ok(_) | Err(ControllerError::Zk(ZkError::NoNode)) => Ok(()),
        Err(e) => Err(e),
    }
}

/// `getAllBrokerAndEpochsInCluster`: every registered broker with its czxid.
pub fn read_brokers_with_epochs(
    client: &mut ZkClient,
    zk: &mut Zk,
) -> Result<BTreeMap<BrokerId, i64>, ZkError> {
    let mut out = BTreeMap::new();
    let children = client.get_children(zk, paths::BROKER_IDS)?;
    for id in crate::ids::broker_ids(&children) {
        if let Some(node) = zk.node(&paths::broker(id)) {
            out.insert(id, node.stat.czxid);
        }
    }
    Ok(out)
}

/// `getTopicPartitionStates` for one partition: its state znode (no watch),
/// `None` when it does not exist or does not decode.
pub fn read_leader_isr(
    client: &mut ZkClient,
    zk: &mut Zk,
    tp: &TopicPartition,
) -> Result<Option<LeaderIsr>, ZkError> {
    match client.get_data(zk, &paths::partition_state(tp)) {
        Ok((data, stat)) => Ok(decode_partition_state(&data, stat.version)),
        Err(ZkError::NoNode) => Ok(None),
        Err(e) => Err(e),
    }
}

/// `getTopicDeletions`: the topics queued in `/admin/delete_topics` (re-arming
/// the child watch when its handler is registered).
pub fn get_topic_deletions(
    client: &mut ZkClient,
    zk: &mut Zk,
) -> Result<std::collections::BTreeSet<String>, ZkError> {
    Ok(client
        .get_children(zk, paths::DELETE_TOPICS)?
        .into_iter()
        .collect())
}
