//! Broker processes and their ZooKeeper sessions: start, register,
//! heartbeat, session expiry (and the client noticing it), pause and resume,
//! and the end of a clean shutdown.

use super::*;
use crate::broker::BrokerStatus;
use crate::controller::event::ControllerEvent;
use crate::fact::Fact;
use crate::ids::{BrokerId, SessionId};

impl Sim {
    pub(super) fn start_broker(&mut self, broker: BrokerId) {
        self.lifecycle_changing(broker);
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        b.restart_process();
        let incarnation = b.incarnation;
        let delay = self.config.sim_broker_startup_ms
            + self.rng.below(self.config.sim_broker_startup_jitter_ms + 1);
        self.push(
            self.now.plus_ms(delay),
            SimEvent::Register {
                broker,
                incarnation,
            },
        );
    }

    pub(super) fn register(&mut self, broker: BrokerId) {
        let now = self.now;
        let timeout = self.config.zookeeper_session_timeout_ms;
        let session = self.zk.open_session(now, timeout);
        self.lifecycle_changing(broker);
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        b.zk_client.session = Some(session);
        let result = crate::kafka_zk::register_broker(&mut b.zk_client, &mut self.zk, broker, now);
        match result {
            Ok(epoch) => {
                b.broker_epoch = epoch;
                b.status = BrokerStatus::Running;
                b.controller.put(ControllerEvent::Startup, now);
                let incarnation = b.incarnation;
                self.note(
                    crate::trace::Label::numbered("broker-", broker.0),
                    "registered",
                    Fact::Registered {
                        broker,
                        epoch,
                        session,
                    },
                );
                self.push(
                    now.plus_ms(timeout / 3),
                    SimEvent::Heartbeat {
                        broker,
                        incarnation,
                    },
                );
                self.push(now.plus_ms(timeout), SimEvent::SessionDeadline { session });
                self.start_broker_tasks(broker);
                self.kick(broker);
            }
            Err(e) => {
                b.status = BrokerStatus::Dead;
                b.exit = Some(crate::broker::BrokerExit::StartupFailed);
                b.zk_client.session = None;
                let _ = self.zk.close_session(session);
                self.note(
                    crate::trace::Label::numbered("broker-", broker.0),
                    "startup_failed",
                    Fact::StartupFailed { broker, error: e },
                );
            }
        }
    }

    pub(super) fn heartbeat(&mut self, broker: BrokerId, incarnation: u32) {
        let now = self.now;
        let Some(b) = self.brokers.get(&broker) else {
            return;
        };
        if b.incarnation != incarnation || !b.is_up() {
            return;
        }
        let Some(session) = b.zk_client.session else {
            return;
        };
        match self.zk.heartbeat(session, now) {
            Ok(()) => {
                let at = now.plus_ms(self.config.zookeeper_session_timeout_ms / 3);
                self.push(
                    at,
                    SimEvent::Heartbeat {
                        broker,
                        incarnation,
                    },
                );
            }
            Err(_) => self.session_expired_noticed(broker),
        }
    }

    pub(super) fn session_deadline(&mut self, session: SessionId) {
        let Some(s) = self.zk.session(session) else {
            return;
        };
        if s.state != crate::zk::SessionState::Alive {
            return;
        }
        let due = s.expires_at();
        if due > self.now {
            self.push(due, SimEvent::SessionDeadline { session });
            return;
        }
        let owner = self.owner_of(session);
        let _ = self.zk.expire_session(session);
        let timeout_ms = self.config.zookeeper_session_timeout_ms;
        self.note(
            "zk",
            "session_expired",
            Fact::SessionExpired {
                session,
                owner,
                timeout_ms,
            },
        );
    }

    pub(super) fn owner_of(&self, session: SessionId) -> Option<BrokerId> {
        self.brokers
            .values()
            .find(|b| b.zk_client.session == Some(session))
            .map(|b| b.id)
    }

    /// The client learns its session expired: Kafka's ZooKeeperClient
    /// re-initialises: `clearAndPut(Expire)`, a new session, then
    /// `RegisterBrokerAndReelect`.
    pub(super) fn session_expired_noticed(&mut self, broker: BrokerId) {
        let now = self.now;
        let timeout = self.config.zookeeper_session_timeout_ms;
        let new_session = self.zk.open_session(now, timeout);
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        let preempted = b.controller.clear_and_put(ControllerEvent::Expire, now);
        b.zk_client.session = Some(new_session);
        let preempted_shutdowns: Vec<BrokerId> = preempted
            .iter()
            .filter_map(|q| match q.event {
                ControllerEvent::ControlledShutdown { broker: from, .. } => Some(from),
                _ => None,
            })
            .collect();
        b.controller
            .put(ControllerEvent::RegisterBrokerAndReelect, now);
        let incarnation = b.incarnation;
        let names: Vec<&'static str> = preempted.iter().map(|q| q.event.name()).collect();
        self.note(
            crate::trace::Label::numbered("broker-", broker.0),
            "session_reinitialized",
            Fact::SessionReinitialized {
                preempted: names,
                new_session,
            },
        );
        for from in preempted_shutdowns {
            let err = crate::controller::channel::ControlledShutdownError::Preempted;
            self.reply_to_shutdown(broker, from, Err(err));
        }
        self.push(
            now.plus_ms(timeout / 3),
            SimEvent::Heartbeat {
                broker,
                incarnation,
            },
        );
        self.push(
            now.plus_ms(timeout),
            SimEvent::SessionDeadline {
                session: new_session,
            },
        );
        self.kick(broker);
    }

    pub(super) fn resume(&mut self, broker: BrokerId, incarnation: u32) {
        let now = self.now;
        self.lifecycle_changing(broker);
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        if b.incarnation != incarnation || b.status != BrokerStatus::Paused {
            return;
        }
        b.status = b.status_before_pause;
        b.paused_until = None;
        let Some((paused_at, held)) = self.held.remove(&broker) else {
            return;
        };
        self.note(
            crate::trace::Label::numbered("broker-", broker.0),
            "resumed",
            Fact::Resumed {
                broker,
                after_ms: now.since(paused_at),
            },
        );
        // The event thread stalled too: the event in progress ends that much
        // later, and its remaining request batches leave that much later. An
        // event due to end at the very moment of the pause is stalled too
        // (the pause, an action, came before its end, an event, and the end
        // was held: dropped below, it is scheduled again here).
        let stall = now.since(paused_at);
        let stretched = self
            .brokers
            .get_mut(&broker)
            .and_then(|b| b.controller.current.as_mut())
            .filter(|c| c.done_at >= paused_at)
            .map(|c| {
                c.started_at = c.started_at.plus_ms(stall);
                c.done_at = c.done_at.plus_ms(stall);
            })
            .is_some();
        for (_, ev) in held {
            match ev {
                SimEvent::ControllerDone { .. } | SimEvent::ControllerSend { .. } => {}
                other => self.push(now, other),
            }
        }
        if stretched {
            self.schedule_controller_work(broker);
        }
        // The ZooKeeper client pings at once and may learn its session is gone.
        self.push(
            now,
            SimEvent::Heartbeat {
                broker,
                incarnation,
            },
        );
        for to in self.channels.targets(broker) {
            self.pump(broker, to);
        }
    }

    pub(super) fn is_process_alive(&self, broker: BrokerId) -> bool {
        !matches!(self.status(broker), BrokerStatus::Dead)
    }

    /// A clean shutdown (KafkaServer.shutdown): the controller resigns, then
    /// the ZooKeeper session closes, deleting the broker's ephemeral znodes.
    pub(super) fn finish_shutdown(&mut self, broker: BrokerId) {
        let now = self.now;
        self.write_unwritten_notes(broker);
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        let was_active = b.controller.is_active(broker);
        b.controller
            .clear_and_put(ControllerEvent::ShutdownEventThread, now);
        b.controller.queue.clear();
        b.controller.current = None;
        if was_active {
            b.controller.active_controller_id = None;
            if let Some(((), out)) = self.in_controller(broker, None, |controller, env| {
                controller.resign_for_shutdown(env)
            }) {
                self.write_notes(broker, out.notes);
            }
        }
        self.lifecycle_changing(broker);
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        if let Some(s) = b.zk_client.session.take() {
            let _ = self.zk.close_session(s);
        }
        b.status = BrokerStatus::Dead;
        b.exit = Some(crate::broker::BrokerExit::Clean);
        // The process is gone, and its metadata cache with it (as at a kill).
        b.metadata = crate::broker::MetadataCache::default();
        self.channels.remove_all_from(broker);
        self.fail_shutdown_requests_to(
            broker,
            &format!("controller {broker} shut down and closed its connections"),
        );
        self.note(
            crate::trace::Label::numbered("broker-", broker.0),
            "shutdown_complete",
            Fact::ShutdownComplete { broker, was_active },
        );
    }
}
