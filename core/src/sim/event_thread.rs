//! The controller's event thread as the simulator drives it: watch
//! notifications become controller events, the thread takes one event at a
//! time (ControllerEventManager), charges its cost, and hands what it sent
//! to the channel manager when the event ends.

use super::*;
use crate::controller::event::{ControllerEvent, ControllerState, ElectionTrigger, ElectionType};
use crate::controller::{
    Env, InProgress, KafkaController, Note, Outbox, QueuedEvent, RequestDraft,
};
use crate::cost::{CostModel, Meter};
use crate::fact::Fact;
use crate::ids::BrokerId;
use crate::zk::{WatchKind, WatchedEvent};
use crate::zk_client::paths;

impl Sim {
    pub(super) fn notify(&mut self, broker: BrokerId, incarnation: u32, watched: WatchedEvent) {
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        if b.incarnation != incarnation
            || !b.is_up()
            || b.zk_client.session != Some(watched.session)
        {
            return;
        }
        let child = watched.kind == WatchKind::NodeChildrenChanged;
        if !b.zk_client.handles(&watched.path, child) {
            return;
        }
        let event = match (watched.path.as_str(), watched.kind) {
            (paths::CONTROLLER, WatchKind::NodeDeleted) => ControllerEvent::Reelect,
            (paths::CONTROLLER, _) => ControllerEvent::ControllerChange,
            (paths::BROKER_IDS, _) => ControllerEvent::BrokerChange,
            (paths::TOPICS, _) => ControllerEvent::TopicChange,
            (paths::DELETE_TOPICS, _) => ControllerEvent::TopicDeletion,
            (paths::ISR_CHANGE_NOTIFICATION, _) => ControllerEvent::IsrChangeNotification,
            (paths::REASSIGN_PARTITIONS, WatchKind::NodeCreated) => {
                ControllerEvent::ZkPartitionReassignment
            }
            (paths::PREFERRED_REPLICA_ELECTION, WatchKind::NodeCreated) => {
                ControllerEvent::ReplicaLeaderElection {
                    partitions: None,
                    election_type: ElectionType::Preferred,
                    trigger: ElectionTrigger::Zk,
                }
            }
            (p, WatchKind::NodeDataChanged) if p.starts_with("/brokers/ids/") => {
                match p["/brokers/ids/".len()..].parse() {
                    Ok(id) => ControllerEvent::BrokerModifications(BrokerId(id)),
                    Err(_) => return,
                }
            }
            (p, WatchKind::NodeDataChanged)
                if p.starts_with("/brokers/topics/") && p.ends_with("/state") =>
            {
                let parts: Vec<&str> = p["/brokers/topics/".len()..].split('/').collect();
                match parts.as_slice() {
                    [t, "partitions", n, "state"] => match n.parse() {
                        Ok(n) => ControllerEvent::PartitionReassignmentIsrChange(
                            crate::ids::TopicPartition::new(*t, n),
                        ),
                        Err(_) => return,
                    },
                    _ => return,
                }
            }
            (p, WatchKind::NodeDataChanged)
                if p.starts_with("/brokers/topics/")
                    && !p["/brokers/topics/".len()..].contains('/') =>
            {
                ControllerEvent::PartitionModifications(p["/brokers/topics/".len()..].to_string())
            }
            _ => return,
        };
        let now = self.now;
        b.controller.put(event.clone(), now);
        self.note(
            crate::trace::Label::numbered("broker-", broker.0),
            "watch_fired",
            Fact::WatchFired {
                kind: watched.kind,
                path: watched.path.clone(),
                event: event.name(),
            },
        );
        self.kick(broker);
    }

    /// If the event thread is idle and has work, take the next event.
    pub(super) fn kick(&mut self, broker: BrokerId) {
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        if !b.is_up() || b.controller.current.is_some() {
            return;
        }
        let Some(queued) = b.controller.queue.pop_front() else {
            return;
        };
        b.controller.state = queued.event.state();
        // Only the kick that ends its step may leave the event unfinished
        // (see `Sim::step_piece`).
        let may_stop = std::mem::take(&mut self.may_stop);
        let Some(((), out)) = self.in_controller(broker, may_stop, |controller, env| {
            controller.process(env, &queued.event)
        }) else {
            return;
        };
        self.processed_or_stopped(broker, queued, out);
    }

    /// Go on with the event that stopped between its pieces, one piece (or
    /// to its end unless `may_stop`); then, once it ended, the rest of its
    /// step. Returns whether the step is finished.
    pub(super) fn go_on(&mut self, may_stop: Option<usize>) -> bool {
        let Some(stopped) = self.stopped.take() else {
            return true;
        };
        let Stopped {
            broker,
            queued,
            mut out,
            statuses,
        } = *stopped;
        // Its meter and what it produced go on from where they were.
        self.with_env(broker, &mut out, may_stop, |controller, env| {
            controller.go_on(env, &queued.event)
        });
        self.processed_or_stopped(broker, queued, out);
        match self.stopped.as_mut() {
            Some(s) => {
                s.statuses = statuses;
                false
            }
            None => {
                self.end_step(statuses, false);
                true
            }
        }
    }

    /// The event `kick` took has been processed, or stopped between its
    /// pieces (then it is kept, and nothing else happens until it goes on).
    fn processed_or_stopped(&mut self, broker: BrokerId, queued: QueuedEvent, mut out: Outbox) {
        let now = self.now;
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        if b.controller.stopped_at.is_some() {
            self.stopped = Some(Box::new(Stopped {
                broker,
                queued,
                out,
                statuses: Vec::new(),
            }));
            return;
        }
        let event = queued.event;
        if let Some(epoch) = out.new_broker_epoch {
            b.broker_epoch = epoch;
        }
        let meter = b.zk_client.meter;
        self.stats.unclean_elections += out.unclean_elections;
        self.data
            .mark_unclean(std::mem::take(&mut out.unclean_partitions));
        let done_at = now.plus_ms(meter.elapsed_ms());
        let epoch = b.controller.ctx.epoch;
        let active = b.controller.is_active(broker);
        let incarnation = b.incarnation;
        debug_assert!(
            out.requests
                .windows(2)
                .all(|w| w[0].sent_at_us <= w[1].sent_at_us),
            "requests are built in the order they are sent"
        );
        b.controller.current = Some(InProgress {
            event: event.clone(),
            started_at: now,
            done_at,
            requests: out.requests.into(),
            notes: out.notes.into(),
            shutdown_replies: out.shutdown_replies,
        });
        self.stats.events_processed += 1;
        self.note(
            crate::trace::Label::numbered("controller-", broker.0),
            "event",
            Fact::EventProcessed {
                event: event.name(),
                queued_ms: now.since(queued.enqueued_at),
                reads: meter.reads,
                writes: meter.writes,
                requests: meter.requests,
                took_ms: done_at.since(now),
            },
        );
        // Kafka's scheduler counts a task's delay from when the work that
        // schedules it is done.
        for (delay, timer) in out.timers {
            self.push(
                done_at.plus_ms(delay),
                SimEvent::Timer {
                    broker,
                    incarnation,
                    epoch,
                    timer,
                },
            );
        }
        if !active {
            self.channels.remove_all_from(broker);
        }
        self.schedule_controller_work(broker);
    }

    /// Run `f` as `broker`'s controller, with its environment (`may_stop`:
    /// whether a long event may stop between its pieces, and their size).
    /// The event thread's meter starts afresh; what the controller produced
    /// comes back in the [`Outbox`].
    pub(super) fn in_controller<R>(
        &mut self,
        broker: BrokerId,
        may_stop: Option<usize>,
        f: impl FnOnce(&mut KafkaController, &mut Env<'_>) -> R,
    ) -> Option<(R, Outbox)> {
        let b = self.brokers.get_mut(&broker)?;
        b.zk_client.meter = Meter::start(CostModel::of(&self.config));
        let mut out = Outbox::default();
        let r = self.with_env(broker, &mut out, may_stop, f)?;
        Some((r, out))
    }

    /// Run `f` as `broker`'s controller with its [`Env`] writing to `out`
    /// (the one place the environment is built).
    fn with_env<R>(
        &mut self,
        broker: BrokerId,
        out: &mut Outbox,
        may_stop: Option<usize>,
        f: impl FnOnce(&mut KafkaController, &mut Env<'_>) -> R,
    ) -> Option<R> {
        let b = self.brokers.get_mut(&broker)?;
        let mut env = Env {
            now: self.now,
            me: broker,
            client: &mut b.zk_client,
            zk: &mut self.zk,
            config: &self.config,
            out,
            may_stop,
            known_states: Some(&b.metadata.partitions),
        };
        Some(f(&mut b.controller, &mut env))
    }

    /// Schedule the in-progress event's next moment: its next request batch
    /// leaving, or its end.
    pub(super) fn schedule_controller_work(&mut self, broker: BrokerId) {
        let Some(b) = self.brokers.get(&broker) else {
            return;
        };
        let Some(c) = &b.controller.current else {
            return;
        };
        let incarnation = b.incarnation;
        let at = |us: u64| c.started_at.plus_us_ceil(us);
        let next_request = c.requests.front().map(|r| at(r.sent_at_us));
        let next_note = c.notes.front().map(|n| at(n.at_us));
        let next_send = next_request
            .into_iter()
            .chain(next_note)
            .min()
            .filter(|t| *t < c.done_at);
        let done_at = c.done_at;
        match next_send {
            Some(at) => self.push(
                at,
                SimEvent::ControllerSend {
                    broker,
                    incarnation,
                },
            ),
            None => self.push(
                done_at,
                SimEvent::ControllerDone {
                    broker,
                    incarnation,
                },
            ),
        }
    }

    /// The event in progress has built requests that are due to leave: hand
    /// them to the channel manager (`sendRequestsToBrokers`).
    pub(super) fn controller_send(&mut self, broker: BrokerId) {
        let now = self.now;
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        let Some(c) = b.controller.current.as_mut() else {
            return;
        };
        let started_at = c.started_at;
        let reached = |us: u64| started_at.plus_us_ceil(us) <= now;
        let due = c
            .requests
            .iter()
            .take_while(|r| reached(r.sent_at_us))
            .count();
        let due_notes = c.notes.iter().take_while(|n| reached(n.at_us)).count();
        if due == 0 && due_notes == 0 {
            // Stale: the event was stretched by a pause; its moments are
            // scheduled again.
            return;
        }
        let drafts: Vec<RequestDraft> = c.requests.take(due);
        let notes: Vec<Note> = c.notes.take(due_notes);
        self.write_notes(broker, notes);
        self.release_requests(broker, drafts);
        self.schedule_controller_work(broker);
    }

    /// The event in progress stops (its process died or exits): what it has
    /// done so far is said now.
    pub(super) fn write_unwritten_notes(&mut self, broker: BrokerId) {
        let notes = self
            .brokers
            .get_mut(&broker)
            .and_then(|b| b.controller.current.as_mut())
            .map(|c| std::mem::take(&mut c.notes))
            .unwrap_or_default();
        self.write_notes(broker, notes);
    }

    /// Write an event's trace lines now.
    pub(super) fn write_notes(&mut self, broker: BrokerId, notes: impl IntoIterator<Item = Note>) {
        let actor = crate::trace::Label::numbered("controller-", broker.0);
        let time_ms = self.now.as_ms();
        for n in notes {
            self.record(TraceRecord::held_at_ms(
                time_ms,
                actor.clone(),
                n.kind,
                n.fact,
            ));
        }
    }

    /// Put drafts on their channels (only an active controller sends, and
    /// only to brokers it holds live), then let each channel send.
    fn release_requests(
        &mut self,
        broker: BrokerId,
        drafts: impl IntoIterator<Item = RequestDraft>,
    ) {
        let now = self.now;
        let Some(b) = self.brokers.get(&broker) else {
            return;
        };
        if !b.controller.is_active(broker) {
            return;
        }
        // Channels to brokers no longer live are removed with their queues;
        // the channels with a request to put on the wire are pumped.
        let live = &b.controller.ctx.live_brokers;
        let ready = self
            .channels
            .release(broker, drafts, live, &mut self.next_message_id, now);
        for to in ready {
            self.pump(broker, to);
        }
    }

    pub(super) fn controller_done(&mut self, broker: BrokerId) {
        let now = self.now;
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        if b.controller
            .current
            .as_ref()
            .is_none_or(|c| c.done_at > now)
        {
            // Stale: the event was stretched by a pause.
            return;
        }
        let Some(done) = b.controller.current.take() else {
            return;
        };
        b.controller.state = ControllerState::Idle;
        self.write_notes(broker, done.notes);
        for (to, result) in done.shutdown_replies {
            self.reply_to_shutdown(broker, to, result);
        }
        self.release_requests(broker, done.requests);
        self.kick(broker);
    }

    pub(super) fn enqueue_on_controller(&mut self, event: ControllerEvent) {
        let now = self.now;
        let Some(id) = self.active_controller().map(|b| b.id) else {
            return;
        };
        if let Some(b) = self.brokers.get_mut(&id) {
            b.controller.put(event, now);
        }
        self.kick(id);
    }
}
