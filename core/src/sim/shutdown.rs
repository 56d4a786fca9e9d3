//! Controlled shutdown, the broker's side (KafkaServer.controlledShutdown):
//! attempts, ControlledShutdownRequest to the controller, retries after
//! `controlled.shutdown.retry.backoff.ms`, and the clean or unclean exit.

use super::*;
use crate::broker::BrokerStatus;
use crate::controller::event::ControllerEvent;
use crate::ids::BrokerId;
use crate::time::SimTime;
use crate::zk_client::paths;

impl Sim {
    pub(super) fn begin_controlled_shutdown(&mut self, broker: BrokerId) {
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        b.status = BrokerStatus::ShuttingDown;
        if !self.config.controlled_shutdown_enable {
            self.finish_shutdown(broker);
            return;
        }
        self.note(
            format!("broker-{broker}"),
            "controlled_shutdown",
            format!("broker {broker} starts controlled shutdown"),
        );
        self.shutdown_attempt(broker, 1);
    }

    pub(super) fn shutdown_attempt(&mut self, broker: BrokerId, attempt: u64) {
        let max = self.config.controlled_shutdown_max_retries;
        if attempt > max {
            self.note(format!("broker-{broker}"), "unclean_shutdown", format!("broker {broker}: controlled shutdown failed {max} time(s); proceeding to do an unclean shutdown"));
            self.finish_shutdown(broker);
            return;
        }
        let now = self.now;
        let controller = self.controller_id();
        let registered = controller.is_some_and(|c| self.zk.node(&paths::broker(c)).is_some());
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        b.shutdown_attempt = attempt;
        let (incarnation, epoch) = (b.incarnation, b.broker_epoch);
        match controller.filter(|_| registered) {
            None => {
                self.note(format!("broker-{broker}"), "controlled_shutdown", format!("attempt {attempt}: no controller registered in ZooKeeper; retrying after the back-off"));
                let at = now.plus_ms(self.config.controlled_shutdown_retry_backoff_ms);
                self.push(
                    at,
                    SimEvent::ShutdownAttempt {
                        broker,
                        incarnation,
                        attempt: attempt + 1,
                    },
                );
            }
            Some(c) => {
                self.note(format!("broker-{broker}"), "controlled_shutdown", format!("attempt {attempt}: ControlledShutdownRequest to controller {c} (broker epoch {epoch})"));
                let at = now.plus_ms(self.net_delay());
                self.push(
                    at,
                    SimEvent::ShutdownRequestArrives {
                        from: broker,
                        to: c,
                        broker_epoch: epoch,
                        sent_at: now,
                    },
                );
            }
        }
    }

    pub(super) fn shutdown_request_arrives(
        &mut self,
        from: BrokerId,
        to: BrokerId,
        broker_epoch: i64,
        sent_at: SimTime,
    ) {
        if self.brokers.get(&to).is_some_and(|b| b.is_up()) {
            if let Some(b) = self.brokers.get_mut(&to) {
                b.controller.put(
                    ControllerEvent::ControlledShutdown {
                        broker: from,
                        broker_epoch,
                    },
                    self.now,
                );
            }
            self.kick(to);
        } else {
            // Nobody answers: the broker's request times out.
            let incarnation = self.incarnation(from);
            let at = sent_at.plus_ms(self.config.controller_socket_timeout_ms);
            let result = Err(format!(
                "IOException: no answer from controller {to} within controller.socket.timeout.ms"
            ));
            self.push(
                at,
                SimEvent::ShutdownReply {
                    broker: from,
                    incarnation,
                    result,
                },
            );
        }
    }

    pub(super) fn reply_to_shutdown(
        &mut self,
        to: BrokerId,
        result: Result<Vec<crate::ids::TopicPartition>, String>,
    ) {
        let incarnation = self.incarnation(to);
        let at = self.now.plus_ms(self.net_delay());
        self.push(
            at,
            SimEvent::ShutdownReply {
                broker: to,
                incarnation,
                result,
            },
        );
    }

    pub(super) fn shutdown_reply(
        &mut self,
        broker: BrokerId,
        result: Result<Vec<crate::ids::TopicPartition>, String>,
    ) {
        let attempt = self.brokers.get(&broker).map_or(0, |b| b.shutdown_attempt);
        match result {
            Ok(remaining) if remaining.is_empty() => {
                self.note(
                    format!("broker-{broker}"),
                    "controlled_shutdown",
                    format!("attempt {attempt}: controlled shutdown succeeded"),
                );
                self.finish_shutdown(broker);
            }
            other => {
                let why = match other {
                    Ok(remaining) => {
                        let v: Vec<String> = remaining.iter().map(|t| t.to_string()).collect();
                        format!("remaining partitions to move: [{}]", v.join(","))
                    }
                    Err(e) => e,
                };
                let backoff = self.config.controlled_shutdown_retry_backoff_ms;
                self.note(
                    format!("broker-{broker}"),
                    "controlled_shutdown_retry",
                    format!("attempt {attempt} failed ({why}); retrying in {backoff} ms"),
                );
                let incarnation = self.incarnation(broker);
                self.push(
                    self.now.plus_ms(backoff),
                    SimEvent::ShutdownAttempt {
                        broker,
                        incarnation,
                        attempt: attempt + 1,
                    },
                );
            }
        }
    }
}
