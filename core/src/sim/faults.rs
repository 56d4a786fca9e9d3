//! The user's verbs (Action): kill, start, stop, pause, expire a session,
//! delay or drop a message, edit a znode, and the admin tools; each is
//! checked here and routed to the part of the cluster it acts on.

use super::*;
use crate::broker::BrokerStatus;
use crate::fact::{Fact, ZkOp};

impl Sim {
    pub(super) fn apply_action(&mut self, action: Action) {
        let now = self.now;
        self.note("user", action.name(), Fact::UserAction(action.clone()));
        match action {
            Action::KillBroker { broker } => {
                if !self.is_process_alive(broker) {
                    return self.note("user", "action_ignored", Fact::NoProcessToKill { broker });
                }
                self.write_unwritten_notes(broker);
                self.lifecycle_changing(broker);
                if let Some(b) = self.brokers.get_mut(&broker) {
                    // The process and all it held in memory are gone; its
                    // ZooKeeper session lives on until it times out.
                    b.status = BrokerStatus::Dead;
                    b.exit = Some(crate::broker::BrokerExit::Killed);
                    b.controller = crate::controller::KafkaController::default();
                    // Its metadata cache too: nothing reads a dead broker's,
                    // and after a failover it would keep the whole old copy
                    // alive beside the one the live brokers share.
                    b.metadata = crate::broker::MetadataCache::default();
                }
                // What it held while paused comes now, to a dead process, as
                // it would have come had it not been paused: each handler
                // deals with a dead broker (a fetch round due to the follower
                // ends its session, so a restart schedules a new one). Its
                // controller's own work ends with the controller.
                if let Some((_, held)) = self.held.remove(&broker) {
                    for (_, ev) in held {
                        match ev {
                            SimEvent::ControllerDone { .. } | SimEvent::ControllerSend { .. } => {}
                            other => self.push(now, other),
                        }
                    }
                }
                self.channels.remove_all_from(broker);
                // A ControlledShutdownRequest of its own dies with it.
                if let Some(id) = self.brokers.get(&broker).and_then(|b| b.shutdown_request) {
                    self.shutdown_request_done(broker, id);
                }
                self.fail_shutdown_requests_to(
                    broker,
                    &format!("connection to controller {broker} reset: its process died"),
                );
            }
            Action::StartBroker { broker } => {
                if self.status(broker) != BrokerStatus::Dead {
                    return self.note("user", "action_ignored", Fact::AlreadyRunning { broker });
                }
                self.start_broker(broker);
            }
            Action::ShutdownBroker { broker } => {
                if !matches!(self.status(broker), BrokerStatus::Running) {
                    return self.note("user", "action_ignored", Fact::NotRunning { broker });
                }
                self.begin_controlled_shutdown(broker);
            }
            Action::DelayMessage { id, delay_ms } => self.delay_message(id, delay_ms),
            Action::AddPartitions { topic, count } => self.add_partitions(&topic, count),
            Action::DeleteTopic { topic } => self.delete_topic(&topic),
            Action::ReassignPartitions { partitions } => self.reassign_partitions(partitions),
            Action::Produce {
                topic,
                partition,
                records,
                acks,
            } => self.produce(
                &crate::ids::TopicPartition::new(topic, partition),
                records,
                acks,
            ),
            Action::SlowBroker { broker, lag_ms } => self.set_slow(broker, lag_ms),
            Action::HealBroker { broker } => self.set_slow(broker, 0),
            Action::PreferredElection { partitions } => self.write_preferred_election(partitions),
            Action::ElectLeaders {
                election_type,
                partitions,
            } => {
                if self.active_controller().is_none() {
                    return self.note("user", "action_failed", Fact::NoControllerForElection);
                }
                self.enqueue_on_controller(crate::controller::rebalance::elect_leaders_event(
                    partitions,
                    election_type,
                ));
            }
            Action::DropMessage { id } => self.drop_message(id),
            Action::CreateTopic {
                name,
                assignment,
                partitions,
                replication_factor,
            } => self.create_topic(&name, assignment, partitions, replication_factor),
            Action::SetConfig { key, value, topic } => {
                self.set_config(&key, &value, topic.as_deref())
            }
            Action::PauseBroker {
                broker,
                duration_ms,
            } => {
                if !matches!(
                    self.status(broker),
                    BrokerStatus::Running | BrokerStatus::ShuttingDown
                ) {
                    return self.note("user", "action_ignored", Fact::NotRunning { broker });
                }
                self.lifecycle_changing(broker);
                if let Some(b) = self.brokers.get_mut(&broker) {
                    b.status_before_pause = b.status;
                    b.status = BrokerStatus::Paused;
                    b.paused_until = Some(now.plus_ms(duration_ms));
                    let incarnation = b.incarnation;
                    self.held.insert(broker, (now, Vec::new()));
                    self.push(
                        now.plus_ms(duration_ms),
                        SimEvent::Resume {
                            broker,
                            incarnation,
                        },
                    );
                }
            }
            Action::ExpireSession { broker } => {
                let session = self.brokers.get(&broker).and_then(|b| b.zk_client.session);
                match session.map(|s| self.zk.expire_session(s)) {
                    Some(Ok(())) => self.note(
                        "zk",
                        "session_expired",
                        Fact::SessionExpiredByRequest { broker },
                    ),
                    _ => self.note("user", "action_ignored", Fact::NoLiveSession { broker }),
                }
            }
            Action::DeleteZnode { path } => {
                if let Err(error) = self.zk.delete(None, &path, None) {
                    let op = ZkOp::Delete;
                    self.note("zk", "zk_error", Fact::ZkOpFailed { op, path, error });
                }
            }
            Action::SetZnode { path, data } => {
                if let Err(error) = self.zk.set_data(None, &path, &data, None) {
                    let op = ZkOp::Set;
                    self.note("zk", "zk_error", Fact::ZkOpFailed { op, path, error });
                }
            }
            Action::CreateZnode {
                path,
                data,
                ephemeral,
                sequential,
            } => {
                use crate::zk::CreateMode;
                let mode = match (ephemeral, sequential) {
                    (false, false) => CreateMode::Persistent,
                    (false, true) => CreateMode::PersistentSequential,
                    (true, false) => CreateMode::Ephemeral,
                    (true, true) => CreateMode::EphemeralSequential,
                };
                // The shell's own session: opened for the command and
                // closed as the one-command shell exits.
                let session = ephemeral.then(|| {
                    self.zk
                        .open_session(now, self.config.zookeeper_session_timeout_ms)
                });
                let created = self.zk.create(session, &path, &data, mode);
                if let Some(s) = session {
                    let _ = self.zk.close_session(s);
                }
                if let Err(error) = created {
                    let op = ZkOp::Create;
                    self.note("zk", "zk_error", Fact::ZkOpFailed { op, path, error });
                }
            }
            Action::DeleteConfig { key, topic } => self.delete_config(&key, topic.as_deref()),
        }
    }
}
