//! The simulator: one event queue ordered by (time, insertion sequence), and
//! the routing of every event to ZooKeeper, a broker, or a controller.

use crate::action::Action;
use crate::broker::{register_broker, Broker, BrokerStatus};
use crate::config::Config;
use crate::controller::channel::{ControlRequest, RequestStatus};
use crate::controller::event::{ControllerEvent, ControllerState, ElectionTrigger, ElectionType};
use crate::controller::{parse_controller_id, Env, InProgress, Outbox, Timer};
use crate::ids::{BrokerId, SessionId};
use crate::invariants::{self, Violation};
use crate::rng::Rng;
use crate::time::SimTime;
use crate::trace::TraceRecord;
use crate::zk::{CreateMode, WatchKind, WatchedEvent, Zk};
use crate::zk_client::paths;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Everything that can happen at a moment of virtual time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SimEvent {
    /// A started broker registers in ZooKeeper.
    Register {
        /// The broker.
        broker: BrokerId,
        /// Which start of it.
        incarnation: u32,
    },
    /// A broker's ZooKeeper client sends a heartbeat.
    Heartbeat {
        /// The broker.
        broker: BrokerId,
        /// Which start of it.
        incarnation: u32,
    },
    /// The ensemble checks whether a session has timed out.
    SessionDeadline {
        /// The session.
        session: SessionId,
    },
    /// A watch notification reaches a broker's client.
    Notify {
        /// The message id (shared with requests).
        id: u64,
        /// When ZooKeeper sent it.
        sent_at: SimTime,
        /// The broker.
        broker: BrokerId,
        /// Which start of it.
        incarnation: u32,
        /// The notification.
        watched: WatchedEvent,
    },
    /// The controller event thread finishes its current event.
    ControllerDone {
        /// The broker.
        broker: BrokerId,
        /// Which start of it.
        incarnation: u32,
    },
    /// A controller request reaches its broker.
    RequestArrives {
        /// The request id.
        id: u64,
    },
    /// A response reaches the controller.
    ResponseArrives {
        /// The request id.
        id: u64,
    },
    /// A paused broker wakes up.
    Resume {
        /// The broker.
        broker: BrokerId,
        /// Which start of it.
        incarnation: u32,
    },
    /// A ControlledShutdownRequest reaches the controller it was sent to.
    ShutdownRequestArrives {
        /// The broker shutting down.
        from: BrokerId,
        /// The controller it was sent to.
        to: BrokerId,
        /// The sender's broker epoch.
        broker_epoch: i64,
        /// When it was sent.
        sent_at: SimTime,
    },
    /// The answer to a ControlledShutdownRequest reaches the broker.
    ShutdownReply {
        /// The broker shutting down.
        broker: BrokerId,
        /// Which start of it.
        incarnation: u32,
        /// Partitions it still leads, or the error.
        result: Result<Vec<crate::ids::TopicPartition>, String>,
    },
    /// A broker in controlled shutdown makes attempt number `attempt`.
    ShutdownAttempt {
        /// The broker.
        broker: BrokerId,
        /// Which start of it.
        incarnation: u32,
        /// 1, 2, … (past `controlled.shutdown.max.retries`: give up and exit).
        attempt: u64,
    },
    /// A follower's fetch session with a leader broker: one fetch round.
    Fetch {
        /// The follower.
        follower: BrokerId,
        /// The leader broker it fetches from.
        leader: BrokerId,
    },
    /// A broker's periodic tasks: `isr-expiration` (every
    /// `replica.lag.time.max.ms / 2`) or `isr-change-propagation` (2500 ms).
    BrokerTask {
        /// The broker.
        broker: BrokerId,
        /// Which start of it.
        incarnation: u32,
        /// Which task.
        task: BrokerTask,
    },
    /// A controller timer fires.
    Timer {
        /// The broker.
        broker: BrokerId,
        /// Which start of it.
        incarnation: u32,
        /// The controller epoch that set it.
        epoch: i32,
        /// Which timer.
        timer: Timer,
    },
}

impl SimEvent {
    /// The broker whose process handles this event, if one does.
    fn held_by(&self) -> Option<BrokerId> {
        match self {
            SimEvent::Heartbeat { broker, .. }
            | SimEvent::Notify { broker, .. }
            | SimEvent::ControllerDone { broker, .. }
            | SimEvent::ShutdownReply { broker, .. }
            | SimEvent::ShutdownAttempt { broker, .. }
            | SimEvent::Timer { broker, .. } => Some(*broker),
            SimEvent::ShutdownRequestArrives { to, .. } => Some(*to),
            SimEvent::Fetch { follower, .. } => Some(*follower),
            SimEvent::BrokerTask { broker, .. } => Some(*broker),
            _ => None,
        }
    }

    /// Events that count as work in progress (not a periodic timer).
    fn is_work(&self) -> bool {
        !matches!(
            self,
            SimEvent::Heartbeat { .. }
                | SimEvent::SessionDeadline { .. }
                | SimEvent::Timer { .. }
                | SimEvent::BrokerTask { .. }
                | SimEvent::Fetch { .. }
        )
    }
}

/// Counters reported in the final state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Controller events processed, on all brokers.
    pub events_processed: u64,
    /// Requests rejected for a stale controller epoch.
    pub stale_requests_rejected: u64,
    /// Unclean leader elections.
    pub unclean_elections: u64,
    /// Acknowledged records lost to leader changes.
    pub acked_records_lost: u64,
    /// ISR shrinks written by partition leaders.
    pub isr_shrinks: u64,
    /// ISR expansions written by partition leaders.
    pub isr_expands: u64,
}

/// The per-(controller, broker) request channel: a FIFO with one in flight.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Channel {
    /// The target's broker epoch when the channel was made.
    pub broker_epoch: i64,
    /// Requests waiting.
    pub queue: VecDeque<u64>,
    /// The request on the wire, if any.
    pub in_flight: Option<u64>,
}

/// The whole simulated cluster.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sim {
    now: SimTime,
    seq: u64,
    queue: BTreeMap<(SimTime, u64), SimEvent>,
    /// ControlledShutdown answers to send from the current handler.
    pending_replies: Vec<(BrokerId, String)>,
    /// Per-partition availability as a client feels it.
    availability: BTreeMap<crate::ids::TopicPartition, Availability>,
    availability_dirty: bool,
    /// Partitions whose leader changed since the last availability update.
    availability_changed: BTreeSet<crate::ids::TopicPartition>,
    /// When each partition's state znode last changed.
    state_changed_at: BTreeMap<crate::ids::TopicPartition, SimTime>,
    /// Each topic's assignment per its znode: topic → partition → replicas.
    assignments: BTreeMap<String, BTreeMap<u32, Vec<BrokerId>>>,
    /// Each partition's leader per its state znode.
    leaders: BTreeMap<crate::ids::TopicPartition, Option<BrokerId>>,
    /// Each partition's last leader epoch seen in its state znode.
    leader_epochs: BTreeMap<crate::ids::TopicPartition, i32>,
    /// Replica logs, by (broker, partition); they survive restarts.
    pub(crate) logs: BTreeMap<(BrokerId, crate::ids::TopicPartition), crate::log::Log>,
    /// Every produced record and its fate.
    pub(crate) produced: Vec<crate::log::ProducedRecord>,
    pub(crate) next_record_id: u64,
    /// Fetch sessions: (follower, leader) → when the next round is due.
    pub(crate) fetch_sessions: BTreeMap<(BrokerId, BrokerId), SimTime>,
    /// Brokers slowed by `slow_broker`, with the extra lag per fetch.
    pub(crate) slow_brokers: BTreeMap<BrokerId, u64>,
    /// The committed offset (high watermark) per partition.
    pub(crate) partition_hw: BTreeMap<crate::ids::TopicPartition, u64>,
    /// Partitions whose latest election was unclean, until the leader takes over.
    pub(crate) unclean_partitions: BTreeSet<crate::ids::TopicPartition>,
    /// Violations found inside a handler, recorded after the step.
    #[serde(skip)]
    pub(crate) violations_to_record: Vec<(String, String)>,
    actions: BTreeMap<(SimTime, u64), Action>,
    action_seq: u64,
    rng: Rng,
    config: Config,
    zk: Zk,
    brokers: BTreeMap<BrokerId, Broker>,
    requests: BTreeMap<u64, ControlRequest>,
    next_request: u64,
    channels: BTreeMap<(BrokerId, BrokerId), Channel>,
    /// Events held while their broker is paused, with the pause start.
    held: BTreeMap<BrokerId, (SimTime, Vec<(SimTime, SimEvent)>)>,
    trace: Vec<TraceRecord>,
    stats: Stats,
    violations: Vec<Violation>,
    violated_now: BTreeSet<String>,
    last_controller_epoch: i64,
}

/// Why an action was refused before it changed anything.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    /// No such broker.
    #[error("no broker {0} in this cluster")]
    UnknownBroker(BrokerId),
    /// The action is for a time already past.
    #[error("time {at} ms is before the simulation's current time {now} ms")]
    InThePast {
        /// Requested time.
        at: u64,
        /// Current time.
        now: u64,
    },
}

impl Sim {
    /// A cluster of `brokers` (all started at time 0) with `config`, seeded.
    pub fn new(seed: u64, config: Config, brokers: &[BrokerId]) -> Sim {
        let mut sim = Sim {
            now: SimTime::ZERO,
            seq: 0,
            queue: BTreeMap::new(),
            pending_replies: Vec::new(),
            availability: BTreeMap::new(),
            availability_dirty: false,
            availability_changed: BTreeSet::new(),
            state_changed_at: BTreeMap::new(),
            assignments: BTreeMap::new(),
            leaders: BTreeMap::new(),
            leader_epochs: BTreeMap::new(),
            logs: BTreeMap::new(),
            produced: Vec::new(),
            next_record_id: 0,
            fetch_sessions: BTreeMap::new(),
            slow_brokers: BTreeMap::new(),
            partition_hw: BTreeMap::new(),
            unclean_partitions: BTreeSet::new(),
            violations_to_record: Vec::new(),
            actions: BTreeMap::new(),
            action_seq: 0,
            rng: Rng::new(seed),
            config,
            zk: Zk::new(),
            brokers: brokers.iter().map(|b| (*b, Broker::new(*b))).collect(),
            requests: BTreeMap::new(),
            next_request: 1,
            channels: BTreeMap::new(),
            held: BTreeMap::new(),
            trace: Vec::new(),
            stats: Stats::default(),
            violations: Vec::new(),
            violated_now: BTreeSet::new(),
            last_controller_epoch: 0,
        };
        for p in paths::TOP_LEVEL {
            let _ = sim.zk.create_recursive(None, p, "", CreateMode::Persistent);
        }
        for b in brokers {
            sim.start_broker(*b);
        }
        sim
    }

    // ----- reading ----------------------------------------------------------

    /// Now.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The ensemble.
    pub fn zk(&self) -> &Zk {
        &self.zk
    }

    /// Mutable access to the ensemble, for setting up a cluster's initial znodes.
    pub fn zk_mut(&mut self) -> &mut Zk {
        &mut self.zk
    }

    /// Brokers by id.
    pub fn brokers(&self) -> &BTreeMap<BrokerId, Broker> {
        &self.brokers
    }

    /// Requests not yet answered, by id.
    pub fn requests(&self) -> &BTreeMap<u64, ControlRequest> {
        &self.requests
    }

    /// The trace so far.
    pub fn trace(&self) -> &[TraceRecord] {
        &self.trace
    }

    /// Counters.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Invariant violations so far.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// When the next action or event happens, if any.
    pub fn next_event_time(&self) -> Option<SimTime> {
        let a = self.actions.keys().next().map(|(t, _)| *t);
        let e = self.queue.keys().next().map(|(t, _)| *t);
        match (a, e) {
            (Some(a), Some(e)) => Some(a.min(e)),
            (a, e) => a.or(e),
        }
    }

    /// Pending events in order (time, event).
    pub fn pending(&self) -> impl Iterator<Item = (SimTime, &SimEvent)> {
        self.queue.iter().map(|((t, _), e)| (*t, e))
    }

    /// `/controller`'s brokerid, if the node exists.
    pub fn controller_id(&self) -> Option<BrokerId> {
        self.zk
            .node(paths::CONTROLLER)
            .and_then(|n| parse_controller_id(&n.data))
    }

    /// `/controller_epoch`'s value (0 if absent).
    pub fn controller_epoch(&self) -> i32 {
        self.zk
            .node(paths::CONTROLLER_EPOCH)
            .and_then(|n| n.data.trim().parse().ok())
            .unwrap_or(0)
    }

    // ----- driving ----------------------------------------------------------

    /// Schedule a user action at `at` (not before now).
    pub fn schedule_action(&mut self, at: SimTime, action: Action) -> Result<(), ActionError> {
        if at < self.now {
            return Err(ActionError::InThePast {
                at: at.as_ms(),
                now: self.now.as_ms(),
            });
        }
        if let Some(b) = action.broker() {
            if !self.brokers.contains_key(&b) {
                return Err(ActionError::UnknownBroker(b));
            }
        }
        self.action_seq += 1;
        self.actions.insert((at, self.action_seq), action);
        Ok(())
    }

    /// User actions not yet applied, in order.
    pub fn pending_actions(&self) -> impl Iterator<Item = (SimTime, &Action)> {
        self.actions.iter().map(|((t, _), a)| (*t, a))
    }

    /// Forget every pending action (the timeline replaces them when the
    /// future is recomputed).
    pub fn clear_pending_actions(&mut self) {
        self.actions.clear();
    }

    /// Process the next action or event. An action at time T comes before
    /// every event at T, so a replay from any snapshot taken before T gives
    /// the same order. Returns false when nothing is left.
    pub fn step(&mut self) -> bool {
        let statuses: Vec<BrokerStatus> = self.brokers.values().map(|b| b.status).collect();
        let next_action = self.actions.keys().next().map(|(t, _)| *t);
        let next_event = self.queue.keys().next().map(|(t, _)| *t);
        match (next_action, next_event) {
            (Some(a), e) if e.is_none_or(|e| a <= e) => {
                let Some(((t, _), action)) = self.actions.pop_first() else {
                    return false;
                };
                self.now = t;
                self.apply_action(action);
            }
            (_, Some(_)) => {
                let Some(((t, _), ev)) = self.queue.pop_first() else {
                    return false;
                };
                self.now = t;
                self.handle(ev);
            }
            (_, None) => return false,
        }
        self.route_watches();
        self.note_zk_changes();
        if self.brokers.values().map(|b| b.status).ne(statuses) {
            self.availability_dirty = true;
        }
        self.update_availability();
        for (name, detail) in std::mem::take(&mut self.violations_to_record) {
            self.record_violation(&name, detail);
        }
        self.check_invariants();
        true
    }

    /// Process everything at or before `until`, then set the clock to it.
    pub fn run_until(&mut self, until: SimTime) {
        while self.next_event_time().is_some_and(|t| t <= until) {
            self.step();
        }
        if until > self.now {
            self.now = until;
        }
    }

    /// Process everything strictly before `until`, then set the clock to it.
    pub fn run_before(&mut self, until: SimTime) {
        while self.next_event_time().is_some_and(|t| t < until) {
            self.step();
        }
        if until > self.now {
            self.now = until;
        }
    }

    /// Take the trace records written so far (the timeline keeps them).
    pub fn take_trace(&mut self) -> Vec<TraceRecord> {
        std::mem::take(&mut self.trace)
    }

    fn push(&mut self, at: SimTime, ev: SimEvent) {
        self.seq += 1;
        self.queue.insert((at, self.seq), ev);
    }

    fn note(&mut self, actor: impl Into<String>, kind: &str, details: impl Into<String>) {
        self.trace
            .push(TraceRecord::new(self.now, actor, kind, details));
    }

    fn jitter(&mut self) -> u64 {
        self.rng.below(self.config.sim_network_jitter_ms + 1)
    }

    fn zk_delay(&mut self) -> u64 {
        self.config.sim_zk_latency_ms + self.jitter()
    }

    fn net_delay(&mut self) -> u64 {
        self.config.sim_network_latency_ms + self.jitter()
    }

    fn incarnation(&self, b: BrokerId) -> u32 {
        self.brokers.get(&b).map_or(0, |x| x.incarnation)
    }

    /// Whether this start of the broker is still in controlled shutdown.
    fn is_shutting_down(&self, b: BrokerId, incarnation: u32) -> bool {
        self.incarnation(b) == incarnation && self.status(b) == BrokerStatus::ShuttingDown
    }

    fn status(&self, b: BrokerId) -> BrokerStatus {
        self.brokers
            .get(&b)
            .map_or(BrokerStatus::Dead, |x| x.status)
    }

    // ----- routing ----------------------------------------------------------

    fn handle(&mut self, ev: SimEvent) {
        // A paused process handles nothing: hold its events until it wakes.
        if let Some(b) = ev.held_by() {
            if self.status(b) == BrokerStatus::Paused {
                let now = self.now;
                if let Some((_, held)) = self.held.get_mut(&b) {
                    held.push((now, ev));
                }
                return;
            }
        }
        match ev {
            SimEvent::Register {
                broker,
                incarnation,
            } => {
                if self.incarnation(broker) == incarnation
                    && self.status(broker) == BrokerStatus::Starting
                {
                    self.register(broker);
                }
            }
            SimEvent::Heartbeat {
                broker,
                incarnation,
            } => self.heartbeat(broker, incarnation),
            SimEvent::SessionDeadline { session } => self.session_deadline(session),
            SimEvent::Notify {
                broker,
                incarnation,
                watched,
                ..
            } => self.notify(broker, incarnation, watched),
            SimEvent::ControllerDone {
                broker,
                incarnation,
            } => {
                if self.incarnation(broker) == incarnation {
                    self.controller_done(broker);
                }
            }
            SimEvent::RequestArrives { id } => self.request_arrives(id),
            SimEvent::ResponseArrives { id } => self.response_arrives(id),
            SimEvent::Resume {
                broker,
                incarnation,
            } => self.resume(broker, incarnation),
            SimEvent::Fetch { follower, leader } => self.fetch(follower, leader),
            SimEvent::BrokerTask {
                broker,
                incarnation,
                task,
            } => {
                if self.incarnation(broker) == incarnation
                    && self.brokers.get(&broker).is_some_and(|b| b.is_up())
                {
                    self.broker_task(broker, task);
                }
            }
            SimEvent::ShutdownRequestArrives {
                from,
                to,
                broker_epoch,
                sent_at,
            } => self.shutdown_request_arrives(from, to, broker_epoch, sent_at),
            SimEvent::ShutdownReply {
                broker,
                incarnation,
                result,
            } => {
                if self.is_shutting_down(broker, incarnation) {
                    self.shutdown_reply(broker, result);
                }
            }
            SimEvent::ShutdownAttempt {
                broker,
                incarnation,
                attempt,
            } => {
                if self.is_shutting_down(broker, incarnation) {
                    self.shutdown_attempt(broker, attempt);
                }
            }
            SimEvent::Timer {
                broker,
                incarnation,
                epoch,
                timer,
            } => {
                let Some(b) = self.brokers.get_mut(&broker) else {
                    return;
                };
                if b.incarnation != incarnation
                    || !b.is_up()
                    || !b.controller.is_active(broker)
                    || b.controller.ctx.epoch != epoch
                {
                    return;
                }
                match timer {
                    Timer::AutoLeaderRebalance => {
                        b.controller.put(
                            ControllerEvent::AutoPreferredReplicaLeaderElection,
                            self.now,
                        );
                    }
                }
                self.kick(broker);
            }
        }
    }

    /// Send every watch notification ZooKeeper fired to its session's broker.
    fn route_watches(&mut self) {
        for watched in self.zk.take_fired() {
            let owner = self
                .brokers
                .values()
                .find(|b| b.zk_client.session == Some(watched.session))
                .map(|b| (b.id, b.incarnation));
            if let Some((broker, incarnation)) = owner {
                let at = self.now.plus_ms(self.zk_delay());
                let id = self.next_request;
                self.next_request += 1;
                let sent_at = self.now;
                self.push(
                    at,
                    SimEvent::Notify {
                        id,
                        sent_at,
                        broker,
                        incarnation,
                        watched,
                    },
                );
            }
        }
    }

    fn notify(&mut self, broker: BrokerId, incarnation: u32, watched: WatchedEvent) {
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
            format!("broker-{broker}"),
            "watch_fired",
            format!(
                "{:?} on {} → enqueue {}",
                watched.kind,
                watched.path,
                event.name()
            ),
        );
        self.kick(broker);
    }

    // ----- the controller event thread --------------------------------------

    /// If the event thread is idle and has work, take the next event.
    fn kick(&mut self, broker: BrokerId) {
        let now = self.now;
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        if !b.is_up() || b.controller.current.is_some() {
            return;
        }
        let Some(queued) = b.controller.queue.pop_front() else {
            return;
        };
        let event = queued.event;
        b.controller.state = event.state();
        b.zk_client.writes = 0;
        let mut out = Outbox::default();
        {
            let mut env = Env {
                now,
                me: broker,
                client: &mut b.zk_client,
                zk: &mut self.zk,
                config: &self.config,
                out: &mut out,
            };
            b.controller.process(&mut env, &event);
        }
        if let Some(epoch) = out.new_broker_epoch {
            b.broker_epoch = epoch;
        }
        let cost = self.config.sim_controller_event_cost_ms
            + b.zk_client.writes * self.config.sim_controller_zk_write_cost_ms
            + (b.zk_client.writes * self.config.sim_controller_zk_write_cost_us).div_ceil(1000)
            + out.requests.len() as u64 * self.config.sim_controller_request_cost_ms;
        self.stats.unclean_elections += out.unclean_elections;
        self.unclean_partitions
            .extend(std::mem::take(&mut out.unclean_partitions));
        let done_at = now.plus_ms(cost);
        let epoch = b.controller.ctx.epoch;
        let active = b.controller.is_active(broker);
        let incarnation = b.incarnation;
        b.controller.current = Some(InProgress {
            event: event.clone(),
            started_at: now,
            done_at,
            requests: out.requests,
            shutdown_replies: out.shutdown_replies,
        });
        self.stats.events_processed += 1;
        let actor = format!("controller-{broker}");
        self.note(
            actor.clone(),
            "event",
            format!(
                "processing {} (queued {} ms)",
                event.name(),
                now.since(queued.enqueued_at)
            ),
        );
        for (kind, details) in out.notes {
            self.note(actor.clone(), &kind, details);
        }
        for (delay, timer) in out.timers {
            self.push(
                now.plus_ms(delay),
                SimEvent::Timer {
                    broker,
                    incarnation,
                    epoch,
                    timer,
                },
            );
        }
        if !active {
            self.drop_channels_from(broker);
        }
        self.push(
            done_at,
            SimEvent::ControllerDone {
                broker,
                incarnation,
            },
        );
    }

    fn controller_done(&mut self, broker: BrokerId) {
        let now = self.now;
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        let Some(done) = b.controller.current.take() else {
            return;
        };
        b.controller.state = ControllerState::Idle;
        let active = b.controller.is_active(broker);
        let live = b.controller.ctx.live_brokers.clone();
        for (to, result) in done.shutdown_replies {
            self.reply_to_shutdown(to, result);
        }
        if active {
            for draft in done.requests {
                let Some(epoch) = live.get(&draft.to).copied() else {
                    continue;
                };
                let id = self.next_request;
                self.next_request += 1;
                self.requests.insert(
                    id,
                    ControlRequest {
                        id,
                        from: broker,
                        to: draft.to,
                        controller_epoch: draft.controller_epoch,
                        broker_epoch: draft.broker_epoch,
                        body: draft.body,
                        status: RequestStatus::Queued,
                        queued_at: now,
                        sent_at: None,
                        arrives_at: None,
                        error: None,
                    },
                );
                let ch = self.channels.entry((broker, draft.to)).or_default();
                if ch.broker_epoch != epoch {
                    // A bounced broker gets a fresh channel: queued requests are lost.
                    let stale: Vec<u64> = ch.queue.drain(..).collect();
                    ch.broker_epoch = epoch;
                    for r in stale {
                        self.requests.remove(&r);
                    }
                }
                if let Some(ch) = self.channels.get_mut(&(broker, draft.to)) {
                    ch.queue.push_back(id);
                }
            }
            // Channels to brokers no longer live are removed with their queues.
            let gone: Vec<(BrokerId, BrokerId)> = self
                .channels
                .keys()
                .filter(|(from, to)| *from == broker && !live.contains_key(to))
                .copied()
                .collect();
            for key in gone {
                self.drop_channel(key);
            }
            let targets: Vec<BrokerId> = self
                .channels
                .keys()
                .filter(|(f, _)| *f == broker)
                .map(|(_, t)| *t)
                .collect();
            for to in targets {
                self.pump(broker, to);
            }
        }
        self.kick(broker);
    }

    fn drop_channel(&mut self, key: (BrokerId, BrokerId)) {
        if let Some(ch) = self.channels.remove(&key) {
            for id in ch.queue {
                self.requests.remove(&id);
            }
        }
    }

    fn drop_channels_from(&mut self, broker: BrokerId) {
        let keys: Vec<_> = self
            .channels
            .keys()
            .filter(|(f, _)| *f == broker)
            .copied()
            .collect();
        for k in keys {
            self.drop_channel(k);
        }
    }

    /// Put the next queued request of a channel on the wire, if none is there.
    fn pump(&mut self, from: BrokerId, to: BrokerId) {
        if !matches!(
            self.status(from),
            BrokerStatus::Running | BrokerStatus::ShuttingDown
        ) {
            return;
        }
        let Some(ch) = self.channels.get_mut(&(from, to)) else {
            return;
        };
        if ch.in_flight.is_some() {
            return;
        }
        let Some(id) = ch.queue.pop_front() else {
            return;
        };
        ch.in_flight = Some(id);
        let at = self.now.plus_ms(self.net_delay());
        if let Some(r) = self.requests.get_mut(&id) {
            r.status = RequestStatus::InFlight;
            r.sent_at = Some(self.now);
            r.arrives_at = Some(at);
        }
        self.push(at, SimEvent::RequestArrives { id });
    }

    fn request_arrives(&mut self, id: u64) {
        let Some(req) = self.requests.get(&id).cloned() else {
            return;
        };
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
                if self
                    .channels
                    .get(&(req.from, to))
                    .is_some_and(|c| c.in_flight == Some(id))
                {
                    let at = self.now.plus_ms(100 + self.net_delay());
                    if let Some(r) = self.requests.get_mut(&id) {
                        r.sent_at = Some(self.now.plus_ms(100));
                        r.arrives_at = Some(at);
                    }
                    self.push(at, SimEvent::RequestArrives { id });
                } else {
                    self.requests.remove(&id);
                }
                return;
            }
            BrokerStatus::Running | BrokerStatus::ShuttingDown => {}
        }
        let Some(b) = self.brokers.get_mut(&to) else {
            return;
        };
        let seen_before = b.controller_epoch_seen;
        let error = b.handle_request(&req);
        let applied = error == "NONE";
        if applied && req.controller_epoch < seen_before {
            self.record_violation(invariants::NO_STALE_REQUEST_APPLIED, format!(
                "broker {to} applied {} with controller epoch {} after applying epoch {seen_before}",
                req.body.name(), req.controller_epoch
            ));
        }
        if error == "STALE_CONTROLLER_EPOCH" {
            self.stats.stale_requests_rejected += 1;
        }
        if applied {
            self.after_request_applied(to, &req);
        }
        let kind = if applied {
            "request_applied"
        } else {
            "request_rejected"
        };
        self.note(
            format!("broker-{to}"),
            kind,
            format!(
                "{} from controller {} (epoch {}): {error}",
                req.body.name(),
                req.from,
                req.controller_epoch
            ),
        );
        let at = self.now.plus_ms(self.net_delay());
        if let Some(r) = self.requests.get_mut(&id) {
            r.status = RequestStatus::Responding;
            r.error = Some(error.to_string());
            r.arrives_at = Some(at);
        }
        self.push(at, SimEvent::ResponseArrives { id });
    }

    fn response_arrives(&mut self, id: u64) {
        let Some(req) = self.requests.remove(&id) else {
            return;
        };
        let from = req.from;
        if let Some(ch) = self.channels.get_mut(&(from, req.to)) {
            if ch.in_flight == Some(id) {
                ch.in_flight = None;
            }
        }
        if self.status(from) == BrokerStatus::Paused {
            // The response waits in the socket until the sender wakes.
            let now = self.now;
            self.requests.insert(id, req);
            if let Some((_, held)) = self.held.get_mut(&from) {
                held.push((now, SimEvent::ResponseArrives { id }));
            }
            return;
        }
        if let crate::controller::channel::RequestBody::StopReplica {
            partitions,
            delete: true,
        } = &req.body
        {
            if let Some(b) = self.brokers.get_mut(&from) {
                if b.is_up() && b.controller.is_active(from) {
                    let error = req.error.clone().filter(|e| e != "NONE");
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

    // ----- brokers and sessions ---------------------------------------------

    fn start_broker(&mut self, broker: BrokerId) {
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

    fn register(&mut self, broker: BrokerId) {
        let now = self.now;
        let timeout = self.config.zookeeper_session_timeout_ms;
        let session = self.zk.open_session(now, timeout);
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        b.zk_client.session = Some(session);
        let mut out = Outbox::default();
        let result = {
            let mut env = Env {
                now,
                me: broker,
                client: &mut b.zk_client,
                zk: &mut self.zk,
                config: &self.config,
                out: &mut out,
            };
            register_broker(&mut env)
        };
        match result {
            Ok(epoch) => {
                b.broker_epoch = epoch;
                b.status = BrokerStatus::Running;
                b.controller.put(ControllerEvent::Startup, now);
                let incarnation = b.incarnation;
                self.note(format!("broker-{broker}"), "registered", format!("registered at /brokers/ids/{broker}, broker epoch (czxid) {epoch}, session {session}"));
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
                b.zk_client.session = None;
                let _ = self.zk.close_session(session);
                self.note(
                    format!("broker-{broker}"),
                    "startup_failed",
                    format!("{e}: /brokers/ids/{broker} is still held by the previous session; the broker exits (wait for the old session to expire, then start it again)"),
                );
            }
        }
    }

    fn heartbeat(&mut self, broker: BrokerId, incarnation: u32) {
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

    fn session_deadline(&mut self, session: SessionId) {
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
        self.note("zk", "session_expired", format!("session {session}{} expired after {} ms without a heartbeat; its ephemeral znodes are deleted", owner.map_or(String::new(), |b| format!(" of broker {b}")), self.config.zookeeper_session_timeout_ms));
    }

    fn owner_of(&self, session: SessionId) -> Option<BrokerId> {
        self.brokers
            .values()
            .find(|b| b.zk_client.session == Some(session))
            .map(|b| b.id)
    }

    /// The client learns its session expired: Kafka's ZooKeeperClient
    /// re-initialises: `clearAndPut(Expire)`, a new session, then
    /// `RegisterBrokerAndReelect`.
    fn session_expired_noticed(&mut self, broker: BrokerId) {
        let now = self.now;
        let timeout = self.config.zookeeper_session_timeout_ms;
        let new_session = self.zk.open_session(now, timeout);
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        let preempted = b.controller.clear_and_put(ControllerEvent::Expire, now);
        b.zk_client.session = Some(new_session);
        for q in &preempted {
            if let ControllerEvent::ControlledShutdown { broker: from, .. } = q.event {
                self.pending_replies.push((
                    from,
                    "ControllerMovedException: the controller's event was preempted".to_string(),
                ));
            }
        }
        b.controller
            .put(ControllerEvent::RegisterBrokerAndReelect, now);
        let incarnation = b.incarnation;
        let names: Vec<&str> = preempted.iter().map(|q| q.event.name()).collect();
        self.note(
            format!("broker-{broker}"),
            "session_reinitialized",
            format!("ZooKeeper session expired; queued events preempted: {names:?}; new session {new_session}"),
        );
        for (to, err) in std::mem::take(&mut self.pending_replies) {
            self.reply_to_shutdown(to, Err(err));
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

    fn resume(&mut self, broker: BrokerId, incarnation: u32) {
        let now = self.now;
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
            format!("broker-{broker}"),
            "resumed",
            format!("broker {broker} resumes after {} ms", now.since(paused_at)),
        );
        for (_, ev) in held {
            match ev {
                SimEvent::ControllerDone { .. } => {
                    let remaining = self
                        .brokers
                        .get(&broker)
                        .and_then(|b| b.controller.current.as_ref())
                        .map_or(0, |c| c.done_at.since(paused_at));
                    if let Some(c) = self
                        .brokers
                        .get_mut(&broker)
                        .and_then(|b| b.controller.current.as_mut())
                    {
                        c.done_at = now.plus_ms(remaining);
                    }
                    self.push(now.plus_ms(remaining), ev);
                }
                other => self.push(now, other),
            }
        }
        // The ZooKeeper client pings at once and may learn its session is gone.
        self.push(
            now,
            SimEvent::Heartbeat {
                broker,
                incarnation,
            },
        );
        let targets: Vec<BrokerId> = self
            .channels
            .keys()
            .filter(|(f, _)| *f == broker)
            .map(|(_, t)| *t)
            .collect();
        for to in targets {
            self.pump(broker, to);
        }
    }

    // ----- actions ----------------------------------------------------------

    fn apply_action(&mut self, action: Action) {
        let now = self.now;
        self.note("user", action.name(), action.describe());
        match action {
            Action::KillBroker { broker } => {
                if !self.is_process_alive(broker) {
                    return self.note(
                        "user",
                        "action_ignored",
                        format!("broker {broker} has no process to kill"),
                    );
                }
                if let Some(b) = self.brokers.get_mut(&broker) {
                    // The process and all it held in memory are gone; its
                    // ZooKeeper session lives on until it times out.
                    b.status = BrokerStatus::Dead;
                    b.controller = crate::controller::KafkaController::default();
                }
                self.held.remove(&broker);
                self.drop_channels_from(broker);
            }
            Action::StartBroker { broker } => {
                if self.status(broker) != BrokerStatus::Dead {
                    return self.note(
                        "user",
                        "action_ignored",
                        format!("broker {broker} is already running"),
                    );
                }
                self.start_broker(broker);
            }
            Action::ShutdownBroker { broker } => {
                if !matches!(self.status(broker), BrokerStatus::Running) {
                    return self.note(
                        "user",
                        "action_ignored",
                        format!("broker {broker} is not running"),
                    );
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
                    return self.note(
                        "user",
                        "action_failed",
                        "NOT_CONTROLLER: no active controller to take the election".to_string(),
                    );
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
                    return self.note(
                        "user",
                        "action_ignored",
                        format!("broker {broker} is not running"),
                    );
                }
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
                    Some(Ok(())) => self.note("zk", "session_expired", format!("broker {broker}'s session expired by request; its ephemeral znodes are deleted")),
                    _ => self.note("user", "action_ignored", format!("broker {broker} has no live session")),
                }
            }
            Action::DeleteZnode { path } => {
                if let Err(e) = self.zk.delete(None, &path, None) {
                    self.note("zk", "zk_error", format!("delete {path}: {e}"));
                }
            }
            Action::SetZnode { path, data } => {
                if let Err(e) = self.zk.set_data(None, &path, &data, None) {
                    self.note("zk", "zk_error", format!("set {path}: {e}"));
                }
            }
        }
    }

    fn is_process_alive(&self, broker: BrokerId) -> bool {
        !matches!(self.status(broker), BrokerStatus::Dead)
    }

    /// A clean shutdown (KafkaServer.shutdown): the controller resigns, then
    /// the ZooKeeper session closes, deleting the broker's ephemeral znodes.
    fn finish_shutdown(&mut self, broker: BrokerId) {
        let now = self.now;
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        let was_active = b.controller.is_active(broker);
        b.controller
            .clear_and_put(ControllerEvent::ShutdownEventThread, now);
        b.controller.queue.clear();
        b.controller.current = None;
        if was_active {
            let mut out = Outbox::default();
            let mut env = Env {
                now,
                me: broker,
                client: &mut b.zk_client,
                zk: &mut self.zk,
                config: &self.config,
                out: &mut out,
            };
            b.controller.active_controller_id = None;
            b.controller.resign_for_shutdown(&mut env);
        }
        if let Some(s) = b.zk_client.session.take() {
            let _ = self.zk.close_session(s);
        }
        b.status = BrokerStatus::Dead;
        self.drop_channels_from(broker);
        self.note(format!("broker-{broker}"), "shutdown_complete", format!("broker {broker} shut down; its session is closed, so /brokers/ids/{broker}{} went at once", if was_active { " and /controller" } else { "" }));
    }

    // ----- invariants -------------------------------------------------------

    fn record_violation(&mut self, invariant: &str, detail: String) {
        if self.violated_now.insert(invariant.to_string()) {
            self.violations.push(Violation {
                invariant: invariant.to_string(),
                time_ms: self.now.as_ms(),
                detail,
            });
        }
    }

    fn clear_violation(&mut self, invariant: &str) {
        self.violated_now.remove(invariant);
    }

    /// Whether nothing is in progress: no work event pending, no controller
    /// busy or with queued events, no request queued or on the wire, and no
    /// running broker yet to learn that its session expired.
    pub fn is_quiet(&self) -> bool {
        let sessions_known = self
            .brokers
            .values()
            .filter(|b| b.is_up())
            .all(|b| b.zk_client.session.is_some_and(|s| self.zk.is_alive(s)));
        sessions_known
            && self.queue.values().all(|e| !e.is_work())
            && self.requests.is_empty()
            && self.held.values().all(|(_, h)| h.is_empty())
            && self
                .brokers
                .values()
                .all(|b| b.controller.current.is_none() && b.controller.queue.is_empty())
    }

    fn check_invariants(&mut self) {
        // single_controller_per_epoch
        let mut acting: BTreeMap<i32, Vec<BrokerId>> = BTreeMap::new();
        for b in self.brokers.values() {
            if b.is_up() && b.controller.is_active(b.id) && b.controller.ctx.epoch > 0 {
                acting.entry(b.controller.ctx.epoch).or_default().push(b.id);
            }
        }
        match acting.iter().find(|(_, v)| v.len() > 1) {
            Some((epoch, v)) => {
                let d = format!("brokers {v:?} all act as controller with epoch {epoch}");
                self.record_violation(invariants::SINGLE_CONTROLLER_PER_EPOCH, d);
            }
            None => self.clear_violation(invariants::SINGLE_CONTROLLER_PER_EPOCH),
        }
        // controller_epoch_monotonic
        let epoch = i64::from(self.controller_epoch());
        if epoch < self.last_controller_epoch {
            let d = format!(
                "/controller_epoch went from {} to {epoch}",
                self.last_controller_epoch
            );
            self.record_violation(invariants::CONTROLLER_EPOCH_MONOTONIC, d);
        } else {
            self.clear_violation(invariants::CONTROLLER_EPOCH_MONOTONIC);
        }
        self.last_controller_epoch = self.last_controller_epoch.max(epoch);
        // controller_agreement_when_quiet
        if self.is_quiet() {
            let zk_id = self.controller_id();
            let disagree: Vec<String> = self
                .brokers
                .values()
                .filter(|b| {
                    b.status == BrokerStatus::Running && b.controller.active_controller_id != zk_id
                })
                .map(|b| {
                    format!(
                        "broker {} believes {:?}",
                        b.id,
                        b.controller.active_controller_id.map(|x| x.0)
                    )
                })
                .collect();
            if disagree.is_empty() {
                self.clear_violation(invariants::CONTROLLER_AGREEMENT_WHEN_QUIET);
            } else {
                let d = format!(
                    "/controller names {:?} but {}",
                    zk_id.map(|x| x.0),
                    disagree.join(", ")
                );
                self.record_violation(invariants::CONTROLLER_AGREEMENT_WHEN_QUIET, d);
            }
        }
    }
}

/// A partition as ZooKeeper and the active controller describe it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionOverview {
    /// The partition.
    pub tp: crate::ids::TopicPartition,
    /// The active controller's state for it (`NonExistentPartition` if no
    /// running controller knows it).
    pub state: crate::controller::states::PartitionState,
    /// Assigned replicas from `/brokers/topics/<t>`.
    pub replicas: Vec<BrokerId>,
    /// ISR from the state znode (empty without one).
    pub isr: Vec<BrokerId>,
    /// Leader from the state znode.
    pub leader: Option<BrokerId>,
    /// Leader epoch from the state znode (−1 without one).
    pub leader_epoch: i32,
    /// Controller epoch that wrote the state znode (−1 without one).
    pub controller_epoch: i32,
}

impl Sim {
    /// The broker that is up and believes it is the controller, if any (the
    /// newest epoch wins when a zombie is still up).
    pub fn active_controller(&self) -> Option<&Broker> {
        self.brokers
            .values()
            .filter(|b| b.is_up() && b.controller.is_active(b.id))
            .max_by_key(|b| b.controller.ctx.epoch)
    }

    /// Every partition, from ZooKeeper's topic and state znodes.
    pub fn partition_overview(&self) -> Vec<PartitionOverview> {
        use crate::controller::states::PartitionState;
        use crate::znodes::{decode_partition_state, decode_topic_assignment};
        let ctx = self.active_controller().map(|b| &b.controller.ctx);
        let mut out = Vec::new();
        let Some(topics) = self.zk.node(paths::TOPICS) else {
            return out;
        };
        for topic in topics.children() {
            let Some(node) = self.zk.node(&paths::topic(topic)) else {
                continue;
            };
            for (p, replicas) in decode_topic_assignment(&node.data).unwrap_or_default() {
                let tp = crate::ids::TopicPartition::new(topic, p);
                let state_node = self.zk.node(&paths::partition_state(&tp));
                let l = state_node.and_then(|n| decode_partition_state(&n.data, n.stat.version));
                let state = ctx
                    .and_then(|c| c.partition_states.get(&tp).copied())
                    .unwrap_or(PartitionState::NonExistentPartition);
                out.push(PartitionOverview {
                    state,
                    replicas,
                    isr: l.as_ref().map(|l| l.isr.clone()).unwrap_or_default(),
                    leader: l.as_ref().and_then(|l| l.leader),
                    leader_epoch: l.as_ref().map_or(-1, |l| l.leader_epoch),
                    controller_epoch: l.as_ref().map_or(-1, |l| l.controller_epoch),
                    tp,
                });
            }
        }
        out
    }
}

/// A broker's periodic task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum BrokerTask {
    /// `isr-expiration`: the leader drops followers that lag too long.
    IsrExpiration,
    /// `isr-change-propagation`: write `/isr_change_notification/isr_change_<seq>`.
    IsrChangePropagation,
}

/// Whether a partition has a serving leader, and for how long it has not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Availability {
    /// Some running (or shutting-down) broker serves as its leader.
    pub available: bool,
    /// When `available` last changed.
    pub since: SimTime,
    /// Unavailable time before `since`.
    pub unavailable_ms: u64,
}

impl Sim {
    /// Follow the state znodes: which broker each partition's leader is.
    fn note_zk_changes(&mut self) {
        for path in self.zk.take_changed() {
            let Some(rest) = path.strip_prefix("/brokers/topics/") else {
                continue;
            };
            let parts: Vec<&str> = rest.split('/').collect();
            if let [topic] = parts.as_slice() {
                // The topic's assignment changed (created, rewritten or deleted).
                let decoded = self
                    .zk
                    .node(&path)
                    .and_then(|n| crate::znodes::decode_topic_assignment(&n.data))
                    .map(|a| a.into_iter().collect());
                match decoded {
                    Some(a) => self.assignments.insert(topic.to_string(), a),
                    None => self.assignments.remove(*topic),
                };
                if self.zk.node(&path).is_none() {
                    // Deleted: nothing kept per partition outlives the topic.
                    let keep = |tp: &crate::ids::TopicPartition| tp.topic != *topic;
                    self.leaders.retain(|tp, _| keep(tp));
                    self.leader_epochs.retain(|tp, _| keep(tp));
                    self.availability.retain(|tp, _| keep(tp));
                    self.availability_changed.retain(keep);
                    self.state_changed_at.retain(|tp, _| keep(tp));
                    self.forget_topic_data(topic);
                }
                continue;
            }
            let [topic, "partitions", p, "state"] = parts.as_slice() else {
                continue;
            };
            let Ok(p) = p.parse::<u32>() else { continue };
            let tp = crate::ids::TopicPartition::new(*topic, p);
            let state = self
                .zk
                .node(&path)
                .and_then(|n| crate::znodes::decode_partition_state(&n.data, n.stat.version));
            if let Some(l) = &state {
                self.check_partition_invariants(&tp, l);
            }
            self.leaders
                .insert(tp.clone(), state.and_then(|l| l.leader));
            self.state_changed_at.insert(tp.clone(), self.now);
            self.availability_changed.insert(tp);
        }
    }

    fn check_partition_invariants(
        &mut self,
        tp: &crate::ids::TopicPartition,
        l: &crate::controller::context::LeaderIsr,
    ) {
        if let Some(leader) = l.leader {
            if !l.isr.contains(&leader) {
                let d = format!(
                    "{tp}: leader {leader} is not in ISR {:?}",
                    l.isr.iter().map(|b| b.0).collect::<Vec<_>>()
                );
                self.record_violation(invariants::LEADER_IN_ISR, d);
            }
        }
        let ar = self
            .assignments
            .get(&tp.topic)
            .and_then(|a| a.get(&tp.partition))
            .cloned();
        if let Some(ar) = ar {
            if let Some(stray) = l.isr.iter().find(|r| !ar.contains(r)) {
                let d = format!("{tp}: ISR member {stray} is not an assigned replica");
                self.record_violation(invariants::ISR_SUBSET_OF_AR, d);
            }
        }
        let last = self.leader_epochs.insert(tp.clone(), l.leader_epoch);
        if last.is_some_and(|e| l.leader_epoch < e) {
            let d = format!(
                "{tp}: leader epoch went from {} to {}",
                last.unwrap_or(0),
                l.leader_epoch
            );
            self.record_violation(invariants::LEADER_EPOCH_MONOTONIC, d);
        }
    }

    /// Recompute which partitions are available: the leader in ZooKeeper is
    /// a broker whose process runs (running or shutting down, not paused or
    /// dead). Unavailable means no leader, or a leader that died, stalled or
    /// exited, which is what a client feels.
    fn update_availability(&mut self) {
        let changed: Vec<crate::ids::TopicPartition> = if self.availability_dirty {
            // A broker's status changed: every partition may have.
            self.availability_changed.clear();
            self.leaders.keys().cloned().collect()
        } else {
            std::mem::take(&mut self.availability_changed)
                .into_iter()
                .collect()
        };
        self.availability_dirty = false;
        let now = self.now;
        for tp in changed {
            let leader = self.leaders.get(&tp).copied().flatten();
            let available = leader.is_some_and(|b| self.brokers.get(&b).is_some_and(|x| x.is_up()));
            match self.availability.get_mut(&tp) {
                Some(a) if a.available != available => {
                    if !a.available {
                        a.unavailable_ms += now.since(a.since);
                    }
                    a.available = available;
                    a.since = now;
                }
                Some(_) => {}
                None => {
                    // Tracking starts when a partition first has a leader.
                    if available {
                        self.availability.insert(
                            tp,
                            Availability {
                                available,
                                since: now,
                                unavailable_ms: 0,
                            },
                        );
                    }
                }
            }
        }
    }

    /// How long a partition has been without a serving leader, in all.
    pub fn unavailable_ms(&self, tp: &crate::ids::TopicPartition) -> u64 {
        self.availability.get(tp).map_or(0, |a| {
            a.unavailable_ms
                + if a.available {
                    0
                } else {
                    self.now.since(a.since)
                }
        })
    }

    /// Unavailable time summed over all partitions.
    pub fn total_unavailable_ms(&self) -> u64 {
        self.availability
            .keys()
            .map(|tp| self.unavailable_ms(tp))
            .sum()
    }

    /// Whether the partition has a serving leader now.
    pub fn is_available(&self, tp: &crate::ids::TopicPartition) -> bool {
        self.availability.get(tp).is_some_and(|a| a.available)
    }

    // ----- controlled shutdown, the broker's side (KafkaServer.controlledShutdown)

    fn begin_controlled_shutdown(&mut self, broker: BrokerId) {
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

    fn shutdown_attempt(&mut self, broker: BrokerId, attempt: u64) {
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

    fn shutdown_request_arrives(
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

    fn reply_to_shutdown(
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

    fn shutdown_reply(
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

    // ----- dynamic configuration ---------------------------------------------

    /// `kafka-configs.sh --alter`: a cluster default or a topic override.
    /// Turning unclean election on makes the controller elect the offline
    /// partitions it covers (UncleanLeaderElectionEnable events).
    fn set_config(&mut self, key: &str, value: &serde_json::Value, topic: Option<&str>) {
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
    fn create_topic(
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
    fn write_preferred_election(&mut self, partitions: Option<Vec<crate::ids::TopicPartition>>) {
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

    fn enqueue_on_controller(&mut self, event: ControllerEvent) {
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

impl Sim {
    fn find_message(&self, id: u64) -> Option<(SimTime, u64)> {
        self.queue.iter().find_map(|(k, e)| match e {
            SimEvent::Notify { id: x, .. }
            | SimEvent::RequestArrives { id: x }
            | SimEvent::ResponseArrives { id: x }
                if *x == id =>
            {
                Some(*k)
            }
            _ => None,
        })
    }

    /// Hold a message on the wire `delay_ms` longer.
    fn delay_message(&mut self, id: u64, delay_ms: u64) {
        let Some(key) = self.find_message(id) else {
            return self.note(
                "user",
                "action_ignored",
                format!("no message {id} is on the wire"),
            );
        };
        let Some(ev) = self.queue.remove(&key) else {
            return;
        };
        let at = key.0.plus_ms(delay_ms);
        if let Some(r) = self.requests.get_mut(&id) {
            r.arrives_at = Some(at);
        }
        self.note(
            "user",
            "message_delayed",
            format!("message {id} now arrives at {} ms", at.as_ms()),
        );
        self.push(at, ev);
    }

    /// Lose a message on the wire. A lost watch notification is gone (the
    /// handler never hears of the change); a lost request or response breaks
    /// the connection, and the controller's sender thread resends the request
    /// after its 100 ms back-off.
    fn drop_message(&mut self, id: u64) {
        let Some(key) = self.find_message(id) else {
            return self.note(
                "user",
                "action_ignored",
                format!("no message {id} is on the wire"),
            );
        };
        let Some(ev) = self.queue.remove(&key) else {
            return;
        };
        match ev {
            SimEvent::Notify {
                watched, broker, ..
            } => {
                let d = format!(
                    "watch notification {id} ({:?} on {} for broker {broker}) lost",
                    watched.kind, watched.path
                );
                self.note("user", "message_dropped", d);
            }
            _ => {
                let at = self.now.plus_ms(100 + self.net_delay());
                if let Some(r) = self.requests.get_mut(&id) {
                    r.status = RequestStatus::InFlight;
                    r.sent_at = Some(self.now.plus_ms(100));
                    r.arrives_at = Some(at);
                    r.error = None;
                }
                self.note(
                    "user",
                    "message_dropped",
                    format!("message {id} lost; the controller resends it after 100 ms"),
                );
                self.push(at, SimEvent::RequestArrives { id });
            }
        }
    }
}

impl Sim {
    /// Which start of the broker this is.
    pub(crate) fn incarnation_of(&self, b: BrokerId) -> u32 {
        self.incarnation(b)
    }

    /// Put an event on the queue.
    pub(crate) fn schedule(&mut self, at: SimTime, ev: SimEvent) {
        self.push(at, ev);
    }

    /// A broker.
    pub(crate) fn broker(&self, b: BrokerId) -> Option<&Broker> {
        self.brokers.get(&b)
    }

    /// All brokers, borrowed apart from the other fields.
    pub(crate) fn brokers_ref(&self) -> &BTreeMap<BrokerId, Broker> {
        &self.brokers
    }

    /// A broker, to change.
    pub(crate) fn broker_mut(&mut self, b: BrokerId) -> Option<&mut Broker> {
        self.brokers.get_mut(&b)
    }

    /// The counters, to change.
    pub(crate) fn stats_mut(&mut self) -> &mut Stats {
        &mut self.stats
    }

    /// Add a trace record now.
    pub(crate) fn trace_note(
        &mut self,
        actor: impl Into<String>,
        kind: &str,
        details: impl Into<String>,
    ) {
        self.note(actor, kind, details);
    }

    /// The partition's leader epoch in its state znode, as last seen.
    pub(crate) fn current_leader_epoch(&self, tp: &crate::ids::TopicPartition) -> Option<i32> {
        self.leader_epochs.get(tp).copied()
    }

    /// When the partition's state znode (leader, ISR, epochs) last changed.
    pub fn state_changed_at(&self, tp: &crate::ids::TopicPartition) -> Option<SimTime> {
        self.state_changed_at.get(tp).copied()
    }

    /// The partition's leader per its state znode.
    pub fn leader_of(&self, tp: &crate::ids::TopicPartition) -> Option<BrokerId> {
        self.leaders.get(tp).copied().flatten()
    }
}

impl Sim {
    fn topic_assignment(&self, topic: &str) -> Option<Vec<(u32, Vec<BrokerId>)>> {
        let n = self.zk.node(&paths::topic(topic))?;
        crate::znodes::decode_topic_assignment(&n.data)
    }

    fn registered_brokers(&self) -> Vec<BrokerId> {
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
    fn add_partitions(&mut self, topic: &str, count: u32) {
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
    fn delete_topic(&mut self, topic: &str) {
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
    fn reassign_partitions(&mut self, targets: Vec<crate::action::PartitionTarget>) {
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
