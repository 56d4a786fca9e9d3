//! The admin tools at run time (AdminZkClient and the scripts): topic
//! creation, adding partitions, deletion, reassignment, preferred election
//! and configuration, all written to ZooKeeper for the controller to act on.

use super::*;
use crate::controller::event::ControllerEvent;
use crate::ids::BrokerId;
use crate::zk_client::paths;
use std::collections::{BTreeMap, BTreeSet};

impl Sim {
    /// `kafka-configs.sh --alter`: a cluster default or a topic override.
    /// Turning unclean election on makes the controller elect the offline
    /// partitions it covers (UncleanLeaderElectionEnable events).
    pub(super) fn set_config(&mut self, key: &str, value: &serde_json::Value, topic: Option<&str>) {
        match topic {
            None => {
                let was = self.config.unclean_leader_election_enable;
                if let Err(e) = self.config.set_dynamic(key, value) {
                    return self.note("user", "action_failed", e.to_string());
                }
                if key == "unclean.leader.election.enable"
                    && !was
                    && self.config.unclean_leader_election_enable
                {
                    self.enqueue_on_controller(ControllerEvent::UncleanLeaderElectionEnable);
                }
            }
            Some(t) => {
                if !Config::TOPIC_KEYS.contains(&key) {
                    return self.note(
                        "user",
                        "action_failed",
                        format!("{key} is not a topic-level config key"),
                    );
                }
                let mut probe = self.config.clone();
                if let Err(e) = probe.set(key, value) {
                    return self.note("user", "action_failed", e.to_string());
                }
                let path = paths::topic_config(t);
                if self.zk.node(&paths::topic(t)).is_none() {
                    return self.note("user", "action_failed", format!("topic {t} does not exist"));
                }
                let mut config: BTreeMap<String, serde_json::Value> = self
                    .zk
                    .node(&path)
                    .and_then(|n| serde_json::from_str::<serde_json::Value>(&n.data).ok())
                    .and_then(|v| v.get("config").and_then(|c| c.as_object().cloned()))
                    .map(|m| m.into_iter().collect())
                    .unwrap_or_default();
                config.insert(key.to_string(), value.clone());
                let data = crate::scenario::topic_config_json(&config);
                let r = if self.zk.node(&path).is_some() {
                    self.zk.set_data(None, &path, &data, None).map(|_| ())
                } else {
                    self.zk
                        .create_recursive(None, &path, &data, crate::zk::CreateMode::Persistent)
                        .map(|_| ())
                };
                if let Err(e) = r {
                    return self.note("zk", "zk_error", format!("set {path}: {e}"));
                }
                // AdminZkClient.changeEntityConfig: then notify the brokers.
                let change =
                    crate::znodes::encode_config_change_notification(&format!("topics/{t}"));
                let (at, seq) = (
                    paths::CONFIG_CHANGE_PREFIX,
                    crate::zk::CreateMode::PersistentSequential,
                );
                if let Err(e) = self.zk.create_recursive(None, at, &change, seq) {
                    self.note("zk", "zk_error", format!("create {at}: {e}"));
                }
                if key == "unclean.leader.election.enable"
                    && crate::config::parse_bool(value) == Some(true)
                {
                    self.enqueue_on_controller(ControllerEvent::TopicUncleanLeaderElectionEnable(
                        t.to_string(),
                    ));
                }
            }
        }
    }

    /// `AdminZkClient.createTopic`: validate, then write the config and the
    /// assignment znodes. The controller does the rest.
    pub(super) fn create_topic(
        &mut self,
        name: &str,
        assignment: Option<Vec<Vec<BrokerId>>>,
        partitions: Option<u32>,
        replication_factor: Option<u32>,
    ) {
        if self.zk.node(&paths::topic(name)).is_some() {
            return self.note(
                "user",
                "action_failed",
                format!("TopicExistsException: topic '{name}' already exists"),
            );
        }
        let registered: Vec<BrokerId> = self
            .zk
            .node(paths::BROKER_IDS)
            .map(|n| {
                n.children()
                    .filter_map(|c| c.parse().ok())
                    .map(BrokerId)
                    .collect()
            })
            .unwrap_or_default();
        let assignment = match assignment {
            Some(a) => a,
            None => {
                let (p, rf) = (partitions.unwrap_or(1), replication_factor.unwrap_or(1));
                if rf as usize > registered.len() {
                    return self.note(
                        "user",
                        "action_failed",
                        format!("InvalidReplicationFactorException: replication factor: {rf} larger than available brokers: {}", registered.len()),
                    );
                }
                crate::scenario::assign_replicas_rack_unaware(p, rf, &registered, &mut self.rng)
            }
        };
        let data = crate::scenario::topic_znode_json(&assignment);
        let config = crate::scenario::topic_config_json(&BTreeMap::new());
        let _ = self.zk.create_recursive(
            None,
            &paths::topic_config(name),
            &config,
            crate::zk::CreateMode::Persistent,
        );
        match self.zk.create_recursive(
            None,
            &paths::topic(name),
            &data,
            crate::zk::CreateMode::Persistent,
        ) {
            Ok(_) => self.note(
                "zk",
                "topic_created",
                format!("/brokers/topics/{name} = {data}"),
            ),
            Err(e) => self.note(
                "zk",
                "zk_error",
                format!("create /brokers/topics/{name}: {e}"),
            ),
        }
    }

    /// `kafka-preferred-replica-election.sh --zookeeper`: write the znode
    /// (all partitions when none are named); refuse if one is pending.
    pub(super) fn write_preferred_election(
        &mut self,
        partitions: Option<Vec<crate::ids::TopicPartition>>,
    ) {
        if self.zk.node(paths::PREFERRED_REPLICA_ELECTION).is_some() {
            return self.note(
                "user",
                "action_failed",
                "there is an existing preferred replica election in progress".to_string(),
            );
        }
        let all = partitions.unwrap_or_else(|| {
            self.partition_overview()
                .into_iter()
                .map(|p| p.tp)
                .collect()
        });
        let data = crate::controller::rebalance::preferred_election_json(&all);
        if let Err(e) = self.zk.create_recursive(
            None,
            paths::PREFERRED_REPLICA_ELECTION,
            &data,
            crate::zk::CreateMode::Persistent,
        ) {
            self.note(
                "zk",
                "zk_error",
                format!("create {}: {e}", paths::PREFERRED_REPLICA_ELECTION),
            );
        }
    }

    pub(super) fn topic_assignment(&self, topic: &str) -> Option<Vec<(u32, Vec<BrokerId>)>> {
        let n = self.zk.node(&paths::topic(topic))?;
        crate::znodes::decode_topic_assignment(&n.data)
    }

    pub(super) fn registered_brokers(&self) -> Vec<BrokerId> {
        self.zk
            .node(paths::BROKER_IDS)
            .map(|n| {
                n.children()
                    .filter_map(|c| c.parse().ok())
                    .map(BrokerId)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// `AdminZkClient.addPartitions`: keep the existing assignment, place the
    /// new partitions starting at partition 0's first replica, and rewrite
    /// the whole topic znode.
    pub(super) fn add_partitions(&mut self, topic: &str, count: u32) {
        let Some(existing) = self.topic_assignment(topic) else {
            return self.note(
                "user",
                "action_failed",
                format!("UnknownTopicOrPartitionException: topic {topic} does not exist"),
            );
        };
        let current = existing.len() as u32;
        if count <= current {
            return self.note(
                "user",
                "action_failed",
                format!("InvalidPartitionsException: topic {topic} currently has {current} partitions, {count} would not be an increase"),
            );
        }
        let brokers = self.registered_brokers();
        let rf = existing.first().map_or(1, |(_, r)| r.len()) as u32;
        if rf as usize > brokers.len() {
            return self.note("user", "action_failed", format!("InvalidReplicationFactorException: replication factor {rf} larger than available brokers {}", brokers.len()));
        }
        let first = existing
            .first()
            .and_then(|(_, r)| r.first().copied())
            .unwrap_or(BrokerId(0));
        let mut sorted = brokers.clone();
        sorted.sort();
        let start = sorted.iter().position(|b| *b >= first).unwrap_or(0) as u64;
        let added = crate::scenario::assign_replicas_from(
            count - current,
            rf,
            &brokers,
            start,
            start,
            current,
        );
        let mut all: Vec<Vec<BrokerId>> = existing.into_iter().map(|(_, r)| r).collect();
        all.extend(added);
        let data = crate::scenario::topic_znode_json(&all);
        match self.zk.set_data(None, &paths::topic(topic), &data, None) {
            Ok(_) => self.note(
                "zk",
                "partitions_added",
                format!("/brokers/topics/{topic} = {data}"),
            ),
            Err(e) => self.note(
                "zk",
                "zk_error",
                format!("set /brokers/topics/{topic}: {e}"),
            ),
        }
    }

    /// `AdminZkClient.deleteTopic`: create `/admin/delete_topics/<topic>`.
    pub(super) fn delete_topic(&mut self, topic: &str) {
        if self.zk.node(&paths::topic(topic)).is_none() {
            return self.note(
                "user",
                "action_failed",
                format!("UnknownTopicOrPartitionException: topic {topic} does not exist"),
            );
        }
        let path = format!("{}/{topic}", paths::DELETE_TOPICS);
        match self.zk.create_recursive(None, &path, "", crate::zk::CreateMode::Persistent) {
            Ok(_) => {}
            Err(crate::zk::ZkError::NodeExists) => {
                self.note("user", "action_failed", format!("TopicAlreadyMarkedForDeletionException: topic {topic} is already marked for deletion"))
            }
            Err(e) => self.note("zk", "zk_error", format!("create {path}: {e}")),
        }
    }

    /// `kafka-reassign-partitions.sh --execute`: check, then write
    /// `/admin/reassign_partitions` (refused while one is running).
    pub(super) fn reassign_partitions(&mut self, targets: Vec<crate::action::PartitionTarget>) {
        if self.zk.node(paths::REASSIGN_PARTITIONS).is_some() {
            return self.note(
                "user",
                "action_failed",
                "there is an existing assignment running".to_string(),
            );
        }
        let mut entries = Vec::new();
        for t in targets {
            let tp = crate::ids::TopicPartition::new(&t.topic, t.partition);
            let exists = self
                .topic_assignment(&t.topic)
                .is_some_and(|a| a.iter().any(|(p, _)| *p == t.partition));
            if !exists {
                return self.note(
                    "user",
                    "action_failed",
                    format!(
                        "UnknownTopicOrPartitionException: {tp} does not exist; nothing written"
                    ),
                );
            }
            let distinct: BTreeSet<BrokerId> = t.replicas.iter().copied().collect();
            if t.replicas.is_empty() || distinct.len() != t.replicas.len() {
                return self.note("user", "action_failed", format!("InvalidReplicaAssignmentException: {tp}: duplicate or no replicas in {:?}; nothing written", t.replicas.iter().map(|b| b.0).collect::<Vec<_>>()));
            }
            if let Some(b) = t.replicas.iter().find(|b| !self.brokers.contains_key(b)) {
                return self.note(
                    "user",
                    "action_failed",
                    format!("{tp}: broker {b} does not exist; nothing written"),
                );
            }
            entries.push((tp, t.replicas));
        }
        let data = crate::controller::topics::reassignment_json(&entries);
        if let Err(e) = self.zk.create_recursive(
            None,
            paths::REASSIGN_PARTITIONS,
            &data,
            crate::zk::CreateMode::Persistent,
        ) {
            self.note(
                "zk",
                "zk_error",
                format!("create {}: {e}", paths::REASSIGN_PARTITIONS),
            );
        }
    }
}
