//! Controlled shutdown, the broker's side (KafkaServer.controlledShutdown):
//! attempts, ControlledShutdownRequest to the controller, retries after
//! `controlled.shutdown.retry.backoff.ms`, and the clean or unclean exit.

use super::*;
use crate::broker::BrokerStatus;
use crate::controller::channel::{
    ApiError, ControlRequest, ControlledShutdownError, RequestBody, RequestStatus, ResponseError,
};
use crate::controller::event::ControllerEvent;
use crate::fact::{Fact, ShutdownFailure};
use crate::ids::BrokerId;
use crate::ids::TopicPartition;
use crate::zk_client::paths;

impl Sim {
    pub(super) fn begin_controlled_shutdown(&mut self, broker: BrokerId) {
        self.lifecycle_changing(broker);
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        b.status = BrokerStatus::ShuttingDown;
        if !self.config.controlled_shutdown_enable {
            self.finish_shutdown(broker);
            return;
        }
        self.note(
            crate::trace::Label::numbered("broker-", broker.0),
            "controlled_shutdown",
            Fact::ShutdownStarted { broker },
        );
        self.shutdown_attempt(broker, 1);
    }

    pub(super) fn shutdown_attempt(&mut self, broker: BrokerId, attempt: u64) {
        let max = self.config.controlled_shutdown_max_retries;
        if attempt > max {
            self.note(
                crate::trace::Label::numbered("broker-", broker.0),
                "unclean_shutdown",
                Fact::ShutdownGaveUp { broker, max },
            );
            self.finish_shutdown(broker);
            return;
        }
        let now = self.now;
        // The broker reads /controller itself (KafkaServer.controlledShutdown).
        let controller = self
            .zk
            .node(paths::CONTROLLER)
            .and_then(|n| crate::znodes::parse_controller_id(&n.data.text()));
        let registered = controller.is_some_and(|c| self.zk.node(&paths::broker(c)).is_some());
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        b.shutdown_attempt = attempt;
        let (incarnation, epoch) = (b.incarnation, b.broker_epoch);
        match controller.filter(|_| registered) {
            None => {
                self.note(
                    crate::trace::Label::numbered("broker-", broker.0),
                    "controlled_shutdown",
                    Fact::ShutdownNoController { attempt },
                );
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
                self.note(
                    crate::trace::Label::numbered("broker-", broker.0),
                    "controlled_shutdown",
                    Fact::ShutdownRequestSent {
                        attempt,
                        controller: c,
                        broker_epoch: epoch,
                    },
                );
                let id = self.message_id();
                let at = now.plus_ms(self.net_delay());
                self.channels.insert(ControlRequest {
                    id,
                    from: broker,
                    to: c,
                    controller_epoch: -1,
                    broker_epoch: epoch,
                    body: RequestBody::ControlledShutdown {
                        broker,
                        remaining: Vec::new(),
                    },
                    status: RequestStatus::InFlight,
                    queued_at: now,
                    sent_at: Some(now),
                    arrives_at: Some(at),
                    error: None,
                });
                if let Some(b) = self.brokers.get_mut(&broker) {
                    b.shutdown_request = Some(id);
                }
                self.push(at, SimEvent::RequestArrives { id });
                // The broker's NetworkClient gives up on an unanswered request.
                self.push(
                    now.plus_ms(self.config.controller_socket_timeout_ms),
                    SimEvent::ShutdownTimeout {
                        broker,
                        incarnation,
                        id,
                    },
                );
            }
        }
    }

    /// A ControlledShutdownRequest reaches the controller's broker. A dead or
    /// starting process refuses the connection at once; a running one queues
    /// the ControlledShutdown event (a stalled one holds the request, and the
    /// sender's timeout decides).
    pub(super) fn shutdown_request_arrives(&mut self, req: &ControlRequest) {
        let to = req.to;
        match self.status(to) {
            BrokerStatus::Dead | BrokerStatus::Starting => {
                self.fail_shutdown_request(
                    req.id,
                    ControlledShutdownError::Io(format!("connection to controller {to} refused")),
                );
            }
            BrokerStatus::Paused => {
                let now = self.now;
                if let Some((_, held)) = self.held.get_mut(&to) {
                    held.push((now, SimEvent::RequestArrives { id: req.id }));
                }
            }
            BrokerStatus::Running | BrokerStatus::ShuttingDown => {
                if let Some(b) = self.brokers.get_mut(&to) {
                    b.controller.put(
                        ControllerEvent::ControlledShutdown {
                            broker: req.from,
                            broker_epoch: req.broker_epoch,
                        },
                        self.now,
                    );
                }
                self.kick(to);
            }
        }
    }

    /// The controller `from` answers `to`'s ControlledShutdownRequest.
    pub(super) fn reply_to_shutdown(
        &mut self,
        from: BrokerId,
        to: BrokerId,
        result: Result<Vec<TopicPartition>, ControlledShutdownError>,
    ) {
        let Some(id) = self.brokers.get(&to).and_then(|b| b.shutdown_request) else {
            return;
        };
        let at = self.now.plus_ms(self.net_delay());
        let Some(r) = self.channels.get_mut(id).filter(|r| r.to == from) else {
            return;
        };
        r.status = RequestStatus::Responding;
        r.arrives_at = Some(at);
        match result {
            Ok(remaining) => {
                r.error = Some(ResponseError::Api(ApiError::None));
                r.body = RequestBody::ControlledShutdown {
                    broker: to,
                    remaining,
                };
            }
            Err(e) => r.error = Some(ResponseError::ControlledShutdown(e)),
        }
        self.push(at, SimEvent::ResponseArrives { id });
    }

    /// `broker`'s ControlledShutdownRequest `id` has its outcome: the broker
    /// no longer waits for it, and its timeout goes with it (Kafka's
    /// NetworkClient drops a completed request's deadline; nothing is left to
    /// fire after the process exits).
    pub(super) fn shutdown_request_done(&mut self, broker: BrokerId, id: u64) {
        if let Some(b) = self.brokers.get_mut(&broker) {
            b.shutdown_request = None;
        }
        self.take_queued(|ev| {
            matches!(ev, SimEvent::ShutdownTimeout { broker: b, id: i, .. } if *b == broker && *i == id)
        });
    }

    /// The connection to the controller failed: the broker learns at once
    /// (an IOException in KafkaServer.controlledShutdown).
    pub(super) fn fail_shutdown_request(&mut self, id: u64, why: ControlledShutdownError) {
        let Some(r) = self.channels.remove(id) else {
            return;
        };
        let broker = r.from;
        if self.brokers.get(&broker).and_then(|b| b.shutdown_request) != Some(id) {
            return;
        }
        self.shutdown_request_done(broker, id);
        // A paused broker in shutdown learns of the failure too: its retry
        // timer is held until it wakes.
        let shutting_down = self.brokers.get(&broker).is_some_and(|b| {
            b.status == BrokerStatus::ShuttingDown
                || (b.status == BrokerStatus::Paused
                    && b.status_before_pause == BrokerStatus::ShuttingDown)
        });
        if shutting_down {
            self.shutdown_reply(broker, Err(why));
        }
    }

    /// Every ControlledShutdownRequest still waiting on `controller` fails: its
    /// process died or closed its sockets.
    pub(super) fn fail_shutdown_requests_to(&mut self, controller: BrokerId, why: &str) {
        let waiting: Vec<u64> = self
            .channels
            .requests()
            .values()
            .filter(|r| {
                r.to == controller
                    && r.status != RequestStatus::Responding
                    && matches!(r.body, RequestBody::ControlledShutdown { .. })
            })
            .map(|r| r.id)
            .collect();
        for id in waiting {
            self.fail_shutdown_request(id, ControlledShutdownError::Io(why.to_string()));
        }
    }

    /// The answer to a ControlledShutdownRequest reaches the broker.
    pub(super) fn shutdown_response_arrives(&mut self, req: ControlRequest) {
        let broker = req.from;
        if self.brokers.get(&broker).and_then(|b| b.shutdown_request) != Some(req.id) {
            return;
        }
        self.shutdown_request_done(broker, req.id);
        let result = match (req.error, req.body) {
            (
                Some(ResponseError::Api(ApiError::None)),
                RequestBody::ControlledShutdown { remaining, .. },
            ) => Ok(remaining),
            (Some(ResponseError::ControlledShutdown(e)), _) => Err(e),
            (Some(ResponseError::Api(e)), _) => Err(ControlledShutdownError::Response(e)),
            (None, _) => Err(ControlledShutdownError::Io("no response".to_string())),
        };
        self.shutdown_reply(broker, result);
    }

    /// `controller.socket.timeout.ms` passed without an answer.
    pub(super) fn shutdown_timeout(&mut self, broker: BrokerId, id: u64) {
        if self.brokers.get(&broker).and_then(|b| b.shutdown_request) != Some(id) {
            return;
        }
        // A request or response still on its way is lost with the closed
        // connection: without its entry, its arrival is ignored.
        let to = self.channels.get(id).map(|r| r.to);
        self.fail_shutdown_request(
            id,
            ControlledShutdownError::Io(format!(
                "no answer from controller {} within controller.socket.timeout.ms",
                to.map_or("?".to_string(), |t| t.to_string())
            )),
        );
    }
    pub(super) fn shutdown_reply(
        &mut self,
        broker: BrokerId,
        result: Result<Vec<TopicPartition>, ControlledShutdownError>,
    ) {
        let attempt = self.brokers.get(&broker).map_or(0, |b| b.shutdown_attempt);
        match result {
            Ok(remaining) if remaining.is_empty() => {
                self.note(
                    crate::trace::Label::numbered("broker-", broker.0),
                    "controlled_shutdown",
                    Fact::ShutdownSucceeded { attempt },
                );
                self.finish_shutdown(broker);
            }
            other => {
                let failure = match other {
                    Ok(remaining) => ShutdownFailure::Remaining(remaining),
                    Err(e) => ShutdownFailure::Error(e),
                };
                let backoff = self.config.controlled_shutdown_retry_backoff_ms;
                self.note(
                    crate::trace::Label::numbered("broker-", broker.0),
                    "controlled_shutdown_retry",
                    Fact::ShutdownRetry {
                        attempt,
                        failure,
                        backoff_ms: backoff,
                    },
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
