//! Messages on the wire: controller requests through their per-broker
//! channels (ControllerChannelManager's one-in-flight FIFO with 100 ms
//! resend), their responses, and the verbs that delay or drop a message.

use super::*;
use crate::broker::BrokerStatus;
use crate::controller::channel::{
    ApiError, ControlledShutdownError, RequestBody, RequestStatus, ResponseError,
};
use crate::controller::event::ControllerEvent;
use crate::data_plane::park::QueueKey;
use crate::fact::Fact;
use crate::ids::BrokerId;
use crate::invariants;

impl Sim {
    /// Put the next queued request of a channel on the wire, if none is there.
    pub(super) fn pump(&mut self, from: BrokerId, to: BrokerId) {
        if !matches!(
            self.status(from),
            BrokerStatus::Running | BrokerStatus::ShuttingDown
        ) {
            return;
        }
        let Some(id) = self.channels.take_next(from, to) else {
            return;
        };
        let at = self.now.plus_ms(self.net_delay());
        if let Some(r) = self.channels.get_mut(id) {
            r.status = RequestStatus::InFlight;
            r.sent_at = Some(self.now);
            r.arrives_at = Some(at);
        }
        self.push(at, SimEvent::RequestArrives { id });
    }

    pub(super) fn request_arrives(&mut self, id: u64) {
        let Some(req) = self.channels.get(id) else {
            return;
        };
        if matches!(req.body, RequestBody::ControlledShutdown { .. }) {
            let req = req.clone();
            return self.shutdown_request_arrives(&req);
        }
        let to = req.to;
        match self.status(to) {
            BrokerStatus::Paused => {
                let now = self.now;
                if let Some((_, held)) = self.held.get_mut(&to) {
                    held.push((now, SimEvent::RequestArrives { id }));
                }
                return;
            }
            BrokerStatus::Dead | BrokerStatus::Starting => {
                // The sender thread retries forever (after a 100 ms back-off)
                // until the broker is removed from the channel manager.
                if self.channels.is_in_flight(id) {
                    let at = self.now.plus_ms(100 + self.net_delay());
                    if let Some(r) = self.channels.get_mut(id) {
                        r.sent_at = Some(self.now.plus_ms(100));
                        r.arrives_at = Some(at);
                    }
                    self.push(at, SimEvent::RequestArrives { id });
                } else {
                    self.channels.remove(id);
                }
                return;
            }
            BrokerStatus::Running | BrokerStatus::ShuttingDown => {}
        }
        // Out of the table while the broker handles it, then back (nothing
        // in between reads the table): its partitions are not copied.
        let Some(req) = self.channels.remove(id) else {
            return;
        };
        let Some(b) = self.brokers.get_mut(&to) else {
            self.channels.insert(req);
            return;
        };
        let seen_before = b.controller_epoch_seen;
        // Which of a LeaderAndIsr's partitions the broker took (the others
        // it ignored, and so does its data plane).
        let mut taken = Default::default();
        let error = b.handle_request_taking(&req, &mut self.metadata_memo, &mut taken);
        let applied = error == ApiError::None;
        if applied && req.controller_epoch < seen_before {
            self.checker.record(self.now, invariants::NO_STALE_REQUEST_APPLIED, format!(
                "broker {to} applied {} with controller epoch {} after applying epoch {seen_before}",
                req.body.name(), req.controller_epoch
            ));
        }
        if error == ApiError::StaleControllerEpoch {
            self.stats.stale_requests_rejected += 1;
        }
        if applied {
            self.after_request_applied(to, &req, &taken);
        }
        let kind = if applied {
            "request_applied"
        } else {
            "request_rejected"
        };
        let leader_epochs = self.epoch_span_memo.leader_epochs(&req.body);
        self.note(
            crate::trace::Label::numbered("broker-", to.0),
            kind,
            Fact::RequestHandled {
                request: req.body.name(),
                from: req.from,
                epoch: req.controller_epoch,
                leader_epochs,
                error,
            },
        );
        self.channels.insert(req);
        let at = self.now.plus_ms(self.net_delay());
        if let Some(r) = self.channels.get_mut(id) {
            r.status = RequestStatus::Responding;
            r.error = Some(ResponseError::Api(error));
            r.arrives_at = Some(at);
        }
        self.push(at, SimEvent::ResponseArrives { id });
    }

    pub(super) fn response_arrives(&mut self, id: u64) {
        let Some(req) = self.channels.remove(id) else {
            return;
        };
        let from = req.from;
        self.channels.complete(from, req.to, id);
        if self.status(from) == BrokerStatus::Paused {
            // The response waits in the socket until the sender wakes.
            let now = self.now;
            self.channels.insert(req);
            if let Some((_, held)) = self.held.get_mut(&from) {
                held.push((now, SimEvent::ResponseArrives { id }));
            }
            return;
        }
        if matches!(req.body, RequestBody::ControlledShutdown { .. }) {
            return self.shutdown_response_arrives(req);
        }
        if let RequestBody::StopReplica {
            partitions,
            delete: true,
        } = &req.body
        {
            if let Some(b) = self.brokers.get_mut(&from) {
                if b.is_up() && b.controller.is_active(from) {
                    let error = match &req.error {
                        Some(ResponseError::Api(e)) if *e != ApiError::None => Some(*e),
                        _ => None,
                    };
                    let event = ControllerEvent::TopicDeletionStopReplicaResponseReceived {
                        broker: req.to,
                        partitions: partitions.clone(),
                        error,
                    };
                    b.controller.put(event, self.now);
                    self.kick(from);
                }
            }
        }
        if let Some(b) = self.brokers.get_mut(&from) {
            if b.is_up() && b.controller.is_active(from) && req.body.name() == "LeaderAndIsr" {
                b.controller.put(
                    ControllerEvent::LeaderAndIsrResponseReceived { broker: req.to },
                    self.now,
                );
                self.kick(from);
            }
        }
        self.pump(from, req.to);
    }

    /// Take message `id` off the wire to act on it; if it is not there, say so.
    fn take_message(&mut self, id: u64) -> Option<(QueueKey, SimEvent)> {
        let taken = self.take_queued(|e| e.message_id() == Some(id));
        if taken.is_none() {
            self.note("user", "action_ignored", Fact::NoSuchMessage { id });
        }
        taken
    }

    /// Hold a message on the wire `delay_ms` longer.
    pub(super) fn delay_message(&mut self, id: u64, delay_ms: u64) {
        let Some((key, ev)) = self.take_message(id) else {
            return;
        };
        let at = key.0.plus_ms(delay_ms);
        if let Some(r) = self.channels.get_mut(id) {
            r.arrives_at = Some(at);
        }
        self.note(
            "user",
            "message_delayed",
            Fact::MessageDelayed {
                id,
                arrives_at_ms: at.as_ms(),
            },
        );
        self.push(at, ev);
    }

    /// Lose a message on the wire. A lost watch notification is gone (the
    /// handler never hears of the change); a lost request or response breaks
    /// the connection, and the controller's sender thread resends the request
    /// after its 100 ms back-off.
    pub(super) fn drop_message(&mut self, id: u64) {
        let Some((_, ev)) = self.take_message(id) else {
            return;
        };
        if let SimEvent::Notify {
            watched, broker, ..
        } = &ev
        {
            let fact = Fact::WatchNotificationLost {
                id,
                kind: watched.kind,
                path: watched.path.clone(),
                broker: *broker,
            };
            return self.note("user", "message_dropped", fact);
        }
        // Otherwise a request or its response (`message_id` picks nothing else).
        debug_assert!(ev.message_id() == Some(id));
        let shutdown_request = self
            .channels
            .get(id)
            .is_some_and(|r| matches!(r.body, RequestBody::ControlledShutdown { .. }));
        if shutdown_request {
            self.note("user", "message_dropped", Fact::ShutdownRequestLost { id });
            let why = "the connection to the controller broke".to_string();
            return self.fail_shutdown_request(id, ControlledShutdownError::Io(why));
        }
        let at = self.now.plus_ms(100 + self.net_delay());
        if let Some(r) = self.channels.get_mut(id) {
            r.status = RequestStatus::InFlight;
            r.sent_at = Some(self.now.plus_ms(100));
            r.arrives_at = Some(at);
            r.error = None;
        }
        self.note("user", "message_dropped", Fact::RequestLost { id });
        self.push(at, SimEvent::RequestArrives { id });
    }
}
