//! The admin tools at run time (AdminZkClient and the scripts): topic
//! creation, adding partitions, deletion, reassignment, preferred election
//! and configuration. The checks and the writes are [`crate::admin`]'s; this
//! routes each action there and notes what came of it.

use super::*;
use crate::admin::{self, AdminError};
use crate::controller::event::ControllerEvent;
use crate::fact::Fact;
use crate::ids::BrokerId;
use std::collections::BTreeMap;

impl Sim {
    /// Note an admin request refused (`action_failed`) or failed in
    /// ZooKeeper (`zk_error`).
    fn note_admin_error(&mut self, e: AdminError) {
        if e.is_zk() {
            self.note("zk", "zk_error", Fact::AdminFailed(e));
        } else {
            self.note("user", "action_failed", Fact::AdminFailed(e));
        }
    }

    /// `kafka-configs.sh --alter`: a cluster default or a topic override.
    /// Turning unclean election on makes the controller elect the offline
    /// partitions it covers (UncleanLeaderElectionEnable events).
    pub(super) fn set_config(&mut self, key: &str, value: &serde_json::Value, topic: Option<&str>) {
        match topic {
            None => {
                let was = self.config.unclean_leader_election_enable;
                if let Err(e) = self.config.set_dynamic(key, value) {
                    return self.note("user", "action_failed", Fact::ConfigRefused(e));
                }
                self.dynamic_defaults.insert(key.to_string(), value.clone());
                if key == "unclean.leader.election.enable"
                    && !was
                    && self.config.unclean_leader_election_enable
                {
                    self.enqueue_on_controller(ControllerEvent::UncleanLeaderElectionEnable);
                }
            }
            Some(t) => {
                match admin::change_topic_config(&mut self.zk, &self.config, t, key, value) {
                    Ok(changed) => {
                        if let Some(e) = changed.notification_error {
                            self.note_admin_error(e);
                        }
                    }
                    Err(e) => return self.note_admin_error(e),
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

    /// `kafka-configs.sh --alter --delete-config`: a topic override is
    /// removed from `/config/topics/<t>` (with a change notification); a
    /// cluster-wide dynamic default is dropped and the key falls back to the
    /// starting configuration. A key with nothing to remove is refused, as
    /// ConfigCommand refuses it (`Invalid config(s)`).
    pub(super) fn delete_config(&mut self, key: &str, topic: Option<&str>) {
        match topic {
            None => {
                if self.dynamic_defaults.remove(key).is_none() {
                    let e = crate::config::ConfigError::NotSet(key.to_string());
                    return self.note("user", "action_failed", Fact::ConfigRefused(e));
                }
                if let Some(v) = self.starting_config.get(key) {
                    // The starting value was valid when the cluster started.
                    let _ = self.config.set(key, &v);
                }
            }
            Some(t) => match admin::delete_topic_config(&mut self.zk, t, key) {
                Ok(changed) => {
                    if let Some(e) = changed.notification_error {
                        self.note_admin_error(e);
                    }
                }
                Err(e) => self.note_admin_error(e),
            },
        }
    }

    /// `AdminZkClient.createTopic`: with the assignment given, or placed on
    /// the registered brokers.
    pub(super) fn create_topic(
        &mut self,
        name: &str,
        assignment: Option<Vec<Vec<BrokerId>>>,
        partitions: Option<u32>,
        replication_factor: Option<u32>,
    ) {
        let no_overrides = BTreeMap::new();
        let r = match assignment {
            Some(a) => admin::create_topic_with_assignment(&mut self.zk, name, &a, &no_overrides),
            None => admin::create_topic(
                &mut self.zk,
                name,
                partitions.unwrap_or(1),
                replication_factor.unwrap_or(1),
                &no_overrides,
                &mut self.rng,
            ),
        };
        match r {
            Ok(data) => self.note(
                "zk",
                "topic_created",
                Fact::TopicCreated {
                    topic: name.to_string(),
                    data,
                },
            ),
            Err(e) => self.note_admin_error(e),
        }
    }

    /// `kafka-preferred-replica-election.sh --zookeeper`.
    pub(super) fn write_preferred_election(
        &mut self,
        partitions: Option<Vec<crate::ids::TopicPartition>>,
    ) {
        if let Err(e) = admin::write_preferred_election(&mut self.zk, partitions) {
            self.note_admin_error(e);
        }
    }

    /// `AdminZkClient.addPartitions`.
    pub(super) fn add_partitions(&mut self, topic: &str, count: u32) {
        match admin::add_partitions(&mut self.zk, topic, count) {
            Ok(data) => self.note(
                "zk",
                "partitions_added",
                Fact::PartitionsAdded {
                    topic: topic.to_string(),
                    data,
                },
            ),
            Err(e) => self.note_admin_error(e),
        }
    }

    /// `AdminZkClient.deleteTopic`.
    pub(super) fn delete_topic(&mut self, topic: &str) {
        if let Err(e) = admin::delete_topic(&mut self.zk, topic) {
            self.note_admin_error(e);
        }
    }

    /// `kafka-reassign-partitions.sh --execute`: every broker named must be
    /// one of the cluster's.
    pub(super) fn reassign_partitions(&mut self, targets: Vec<crate::action::PartitionTarget>) {
        let brokers = &self.brokers;
        let r = admin::reassign_partitions(&mut self.zk, targets, |b| brokers.contains_key(&b));
        if let Err(e) = r {
            self.note_admin_error(e);
        }
    }
}
