//! The simulator: one event queue ordered by (time, insertion sequence), and
//! the routing of every event to ZooKeeper, a broker, or a controller.

use crate::action::Action;
use crate::broker::{Broker, BrokerStatus};
use crate::config::Config;
use crate::controller::channel::ControlRequest;
use crate::controller::channel_manager::ControllerChannelManager;
use crate::controller::event::ControllerEvent;
use crate::controller::{parse_controller_id, Timer};
use crate::data_plane::park::QueueKey;
use crate::ids::{BrokerId, SessionId};
use crate::invariants::{Checker, Violation};
use crate::rng::Rng;
use crate::time::SimTime;
use crate::trace::TraceRecord;
use crate::vec_map::VecMap;
use crate::zk::{CreateMode, WatchedEvent, Zk};
use crate::zk_client::paths;
use serde::{Deserialize, Serialize};

mod admin;
mod assignment;
mod data;
mod event_thread;
mod faults;
mod lifecycle;
mod observe;
mod shutdown;
mod wire;

pub use crate::data_plane::BrokerTask;
pub use observe::{Availability, PartitionOverview};
use std::collections::BTreeMap;

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
    /// The controller event in progress has request batches due to leave.
    ControllerSend {
        /// The broker.
        broker: BrokerId,
        /// Which start of it.
        incarnation: u32,
    },
    /// Writes a controller made partway through an event become visible to
    /// observers (nothing to route: the step notes what changed).
    ZkVisible,
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
    /// A broker's ControlledShutdownRequest times out
    /// (`controller.socket.timeout.ms`) unless answered by then.
    ShutdownTimeout {
        /// The broker shutting down.
        broker: BrokerId,
        /// Which start of it.
        incarnation: u32,
        /// The request.
        id: u64,
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
            | SimEvent::ControllerSend { broker, .. }
            | SimEvent::ShutdownTimeout { broker, .. }
            | SimEvent::ShutdownAttempt { broker, .. }
            | SimEvent::Timer { broker, .. } => Some(*broker),
            SimEvent::Fetch { follower, .. } => Some(*follower),
            SimEvent::BrokerTask { broker, .. } => Some(*broker),
            // Registration is checked against the broker's status itself;
            // ZooKeeper's own deadlines and the wire are nobody's process.
            SimEvent::Register { .. }
            | SimEvent::SessionDeadline { .. }
            | SimEvent::ZkVisible
            | SimEvent::RequestArrives { .. }
            | SimEvent::ResponseArrives { .. }
            | SimEvent::Resume { .. } => None,
        }
    }

    /// The message id, for a message on the wire (a watch notification, a
    /// request or its response).
    pub(crate) fn message_id(&self) -> Option<u64> {
        match self {
            SimEvent::Notify { id, .. }
            | SimEvent::RequestArrives { id }
            | SimEvent::ResponseArrives { id } => Some(*id),
            SimEvent::Register { .. }
            | SimEvent::Heartbeat { .. }
            | SimEvent::SessionDeadline { .. }
            | SimEvent::ControllerDone { .. }
            | SimEvent::ControllerSend { .. }
            | SimEvent::ZkVisible
            | SimEvent::Resume { .. }
            | SimEvent::ShutdownTimeout { .. }
            | SimEvent::ShutdownAttempt { .. }
            | SimEvent::Fetch { .. }
            | SimEvent::BrokerTask { .. }
            | SimEvent::Timer { .. } => None,
        }
    }

    /// Events that count as work in progress (not a periodic timer).
    pub(super) fn is_work(&self) -> bool {
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

/// The whole simulated cluster.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sim {
    now: SimTime,
    /// Real pushes so far (the queue's order at equal times).
    seq: u64,
    /// Virtual pushes (parked fetch rounds) since the last real push:
    /// see [`crate::data_plane::park`].
    #[serde(default)]
    sub: u64,
    queue: BTreeMap<QueueKey, SimEvent>,
    /// How many events in `queue` are work ([`SimEvent::is_work`]), so that
    /// [`Sim::is_quiet`] does not walk the queue at every step.
    #[serde(default)]
    work_queued: u64,
    /// Set when every partition's availability may have changed (a
    /// broker's status did).
    availability_dirty: bool,
    /// Partitions whose leader changed since the last availability update,
    /// as they came (one may be there twice; sorted and made unique when
    /// used, and empty between steps).
    availability_changed: Vec<crate::ids::TopicPartition>,
    /// Each partition's leader per its state znode, when that znode last
    /// changed, and its availability as a client feels it (one map: they
    /// change together, and one key per partition instead of two).
    state_znodes: StateZnodes,
    /// Each topic's assignment per its znode: topic → partition → replicas
    /// (shared by clones until the topic's znode changes).
    assignments: BTreeMap<String, std::rc::Rc<assignment::TopicAssignment>>,
    /// The data plane: replica logs, produced records, fetch sessions.
    data: crate::data_plane::DataPlane,
    actions: BTreeMap<(SimTime, u64), Action>,
    action_seq: u64,
    rng: Rng,
    config: Config,
    /// The configuration the cluster started with (its `server.properties`).
    starting_config: Config,
    /// The cluster-wide dynamic defaults set while it runs
    /// (`kafka-configs.sh --entity-default --add-config`), by key.
    dynamic_defaults: BTreeMap<String, serde_json::Value>,
    zk: Zk,
    brokers: BTreeMap<BrokerId, Broker>,
    /// Every controller's request channels and the requests on the wire.
    channels: ControllerChannelManager,
    /// When each session's latest watch notification arrives (they arrive
    /// in order).
    last_notify: VecMap<SessionId, SimTime>,
    /// The next message id (requests and watch notifications share them).
    next_message_id: u64,
    /// Events held while their broker is paused, with the pause start.
    held: VecMap<BrokerId, (SimTime, Vec<(SimTime, SimEvent)>)>,
    trace: crate::trace::Records,
    stats: Stats,
    /// Metadata caches that brokers share (a cache of work, not state).
    #[serde(skip)]
    metadata_memo: crate::broker::MetadataMemo,
    /// The last UpdateMetadata's leader-epoch span (a cache of work, not state).
    #[serde(skip)]
    epoch_span_memo: crate::controller::channel::EpochSpanMemo,
    /// The invariant checker.
    pub(crate) checker: Checker,
    /// `/controller`'s and `/controller_epoch`'s values as last read (a
    /// cache of work, not state).
    #[serde(skip)]
    controller_memo: ControllerMemo,
    /// A step whose controller event stopped between its pieces
    /// ([`Sim::step_piece`]): nothing else happens until it goes on.
    #[serde(skip)]
    stopped: Option<Box<Stopped>>,
    /// Set for the one `kick` that may leave its event unfinished (the one
    /// that ends a step taken by [`Sim::step_piece`]), with the most work a
    /// piece does ([`crate::controller::Env::may_stop`]).
    #[serde(skip)]
    may_stop: Option<usize>,
    /// The brokers whose status or incarnation the step under way changed,
    /// with both as they were before it ([`Sim::lifecycle_changing`]);
    /// empty between steps.
    #[serde(skip)]
    changing: Vec<(BrokerId, (BrokerStatus, u32))>,
}

/// What [`Sim::controller_id`] and [`Sim::controller_epoch`] last read off
/// their znodes (both read after every step). Each value is kept with the
/// ensemble's [`Zk::observed_stamp`] then: while that is the same, so is
/// what observers see, and the value is used again without a lookup. After
/// other writes, it is kept with the node's `czxid` and `mzxid` too: a
/// write of the node changes its `mzxid` (a new node, its `czxid`), so the
/// value is used again for the node it was read from without parsing it.
/// A cache of work: two simulations are equal whatever it holds.
#[derive(Debug, Clone, Default)]
struct ControllerMemo {
    id: Memo<Option<BrokerId>>,
    epoch: Memo<i32>,
}

/// A value read from what observers see of a znode: the
/// [`Zk::observed_stamp`] then, the node's `czxid` and `mzxid` (none when it
/// did not exist), and the value.
type Memo<T> = std::cell::Cell<Option<((i64, u64), Option<(i64, i64)>, T)>>;

/// `parse` of the data of the node at `path` as observers see it now
/// (`absent` without one), taken from `memo` when it was read at the same
/// stamp or off the node as it is, and kept there otherwise.
fn read_memo<T: Copy>(
    memo: &Memo<T>,
    zk: &Zk,
    path: &str,
    parse: impl FnOnce(&str) -> T,
    absent: T,
) -> T {
    let stamp = zk.observed_stamp();
    let last = memo.get();
    if let Some((at, _, value)) = last {
        if at == stamp {
            return value;
        }
    }
    let node = zk.observed(path);
    let seen = node.map(|n| (n.stat.czxid, n.stat.mzxid));
    let value = match (last, node) {
        (Some((_, Some(was), value)), Some(_)) if Some(was) == seen => value,
        (_, Some(n)) => parse(&n.data.text()),
        (_, None) => absent,
    };
    memo.set(Some((stamp, seen, value)));
    value
}

equal_whatever_it_holds!(ControllerMemo);

/// The most znode writes, elections or state changes a piece of a long
/// controller event does where it is a run of them, and the most partitions
/// it reads where it walks the context ([`Sim::step_piece`]): 1,024 elections
/// take about 5 ms natively, a walk of 1,024 partitions well under one.
pub const PIECE: usize = 1_024;

/// A step left unfinished: the controller event it started stopped between
/// its pieces ([`crate::controller::KafkaController::stopped_at`]).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stopped {
    /// Whose event thread.
    broker: BrokerId,
    /// The event, as it was queued.
    queued: crate::controller::QueuedEvent,
    /// What it has produced so far.
    out: crate::controller::Outbox,
    /// The brokers' statuses before the step (what the end of the step
    /// compares with).
    statuses: Vec<(BrokerStatus, u32)>,
}

/// The simulator's record of every partition's state znode.
type StateZnodes = crate::partition_map::PartitionMap<StateSeen>;

/// The state znodes as followed at one moment ([`Sim::state_mark`]).
#[derive(Clone, Default)]
pub struct StateMark(StateZnodes);

impl std::fmt::Debug for StateMark {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StateMark({} partitions)", self.0.len())
    }
}

/// What the simulator follows of a partition's state znode: the leader it
/// names, when it last changed, whether the partition is available and for
/// how long it was not (tracked from the first time it had a serving
/// leader), and the leader epoch of the last state read from it (what the
/// checker's "leader epoch only grows" compares with, and the data plane's
/// truncation reads). Held in 28 bytes (where the plain fields took 48):
/// its times as milliseconds in 32 bits, which hold 49 days of virtual time
/// (the page, scenario files, share links and lessons stop a run at a day and
/// a minute; a soak replay's liveness bound can reach further, and a later
/// time is held as the latest one these bits can say). Serialized and
/// printed as the plain fields.
#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "StoredSeen", into = "StoredSeen")]
struct StateSeen {
    leader: Option<BrokerId>,
    leader_epoch: i32,
    changed_at: u32,
    since: u32,
    unavailable_ms: u32,
    epoch_known: bool,
    availability: Seen,
}

/// Whether a partition has been available, and is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    NotYet,
    Available,
    Unavailable,
}

impl StateSeen {
    fn new(leader: Option<BrokerId>, changed_at: SimTime, leader_epoch: Option<i32>) -> StateSeen {
        let mut seen = StateSeen {
            leader: None,
            leader_epoch: 0,
            changed_at: 0,
            since: 0,
            unavailable_ms: 0,
            epoch_known: false,
            availability: Seen::NotYet,
        };
        seen.set_state(leader, changed_at, leader_epoch);
        seen
    }

    /// A change of the state znode read: its leader, when, and the epoch
    /// read (the availability record is left as it is).
    fn set_state(
        &mut self,
        leader: Option<BrokerId>,
        changed_at: SimTime,
        leader_epoch: Option<i32>,
    ) {
        self.leader = leader;
        self.changed_at = changed_at.as_ms_u32();
        self.leader_epoch = leader_epoch.unwrap_or(0);
        self.epoch_known = leader_epoch.is_some();
    }

    /// The leader its state names.
    fn leader(&self) -> Option<BrokerId> {
        self.leader
    }

    /// When it last changed.
    fn changed_at(&self) -> SimTime {
        SimTime(u64::from(self.changed_at))
    }

    /// The leader epoch last read.
    fn leader_epoch(&self) -> Option<i32> {
        self.epoch_known.then_some(self.leader_epoch)
    }

    /// The availability record, once the partition has had a leader.
    fn availability(&self) -> Option<Availability> {
        let available = match self.availability {
            Seen::NotYet => return None,
            Seen::Available => true,
            Seen::Unavailable => false,
        };
        Some(Availability {
            available,
            since: SimTime(u64::from(self.since)),
            unavailable_ms: u64::from(self.unavailable_ms),
        })
    }

    fn set_availability(&mut self, a: Option<Availability>) {
        match a {
            None => {
                self.availability = Seen::NotYet;
                self.since = 0;
                self.unavailable_ms = 0;
            }
            Some(a) => {
                self.availability = if a.available {
                    Seen::Available
                } else {
                    Seen::Unavailable
                };
                self.since = a.since.as_ms_u32();
                self.unavailable_ms = crate::time::ms_u32(a.unavailable_ms);
            }
        }
    }
}

/// [`StateSeen`] as it is (de)serialized and printed.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename = "StateSeen")]
struct StoredSeen {
    leader: Option<BrokerId>,
    changed_at: SimTime,
    availability: Option<Availability>,
    leader_epoch: Option<i32>,
}

impl From<StoredSeen> for StateSeen {
    fn from(s: StoredSeen) -> StateSeen {
        let mut seen = StateSeen::new(s.leader, s.changed_at, s.leader_epoch);
        seen.set_availability(s.availability);
        seen
    }
}

impl From<StateSeen> for StoredSeen {
    fn from(s: StateSeen) -> StoredSeen {
        StoredSeen {
            leader: s.leader(),
            changed_at: s.changed_at(),
            availability: s.availability(),
            leader_epoch: s.leader_epoch(),
        }
    }
}

impl std::fmt::Debug for StateSeen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = StoredSeen::from(*self);
        f.debug_struct("StateSeen")
            .field("leader", &s.leader)
            .field("changed_at", &s.changed_at)
            .field("availability", &s.availability)
            .field("leader_epoch", &s.leader_epoch)
            .finish()
    }
}

const _: () = assert!(std::mem::size_of::<StateSeen>() == 28);

#[cfg(test)]
mod state_seen_tests {
    use super::*;

    /// The packed record reads back, and serializes, as its plain fields
    /// did: through a change of leader, each availability and none, and a
    /// state with no epoch read. (What the page's availability and the
    /// checker's "leader epoch only grows" read: `Sim::note_state_change`.)
    #[test]
    fn a_state_seen_reads_and_serializes_as_its_fields() {
        let availabilities = [
            None,
            Some(Availability {
                available: true,
                since: SimTime(7_000),
                unavailable_ms: 0,
            }),
            Some(Availability {
                available: false,
                since: SimTime(86_400_000),
                unavailable_ms: 1_234,
            }),
        ];
        for leader in [None, Some(BrokerId(3))] {
            for epoch in [None, Some(0), Some(-1), Some(41)] {
                for a in availabilities {
                    let plain = StoredSeen {
                        leader,
                        changed_at: SimTime(5_000),
                        availability: a,
                        leader_epoch: epoch,
                    };
                    let seen = StateSeen::from(plain);
                    assert_eq!(seen.leader(), leader);
                    assert_eq!(seen.changed_at(), SimTime(5_000));
                    assert_eq!(seen.availability(), a);
                    assert_eq!(seen.leader_epoch(), epoch);
                    let json = serde_json::to_value(seen).expect("serializes");
                    assert_eq!(
                        json,
                        serde_json::json!({
                            "leader": leader,
                            "changed_at": 5_000,
                            "availability": a,
                            "leader_epoch": epoch,
                        })
                    );
                    let back: StateSeen = serde_json::from_value(json).expect("reads");
                    assert_eq!(back, seen);
                    assert_eq!(
                        format!("{seen:?}"),
                        format!(
                            "StateSeen {{ leader: {leader:?}, changed_at: {:?}, availability: {a:?}, leader_epoch: {epoch:?} }}",
                            SimTime(5_000)
                        )
                    );
                }
            }
        }
        // Past 49 days of virtual time (only a soak replay's liveness bound
        // can go there), the latest time 32 bits say.
        let far = StateSeen::new(None, SimTime(u64::from(u32::MAX) + 5), None);
        assert_eq!(far.changed_at(), SimTime(u64::from(u32::MAX)));
    }
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
    /// The action's own numbers or sizes are over a limit, or its time is
    /// past [`crate::scenario::MAX_TIME_MS`] (`scenario::check_action`,
    /// the check every way in makes).
    #[error("{0}")]
    Invalid(String),
    /// The run already holds [`crate::scenario::MAX_ACTIONS`] actions.
    #[error(
        "this run already holds {limit} actions, the limit (MAX_ACTIONS); start a new run to go on"
    )]
    TooManyActions {
        /// The limit.
        limit: usize,
    },
}

impl Sim {
    /// A cluster of `brokers` (all started at time 0) with `config`, seeded.
    pub fn new(seed: u64, config: Config, brokers: &[BrokerId]) -> Sim {
        let mut sim = Sim {
            now: SimTime::ZERO,
            seq: 0,
            sub: 0,
            queue: BTreeMap::new(),
            work_queued: 0,
            availability_dirty: false,
            availability_changed: Vec::new(),
            state_znodes: StateZnodes::new(),
            assignments: BTreeMap::new(),
            data: crate::data_plane::DataPlane::default(),
            actions: BTreeMap::new(),
            action_seq: 0,
            rng: Rng::new(seed),
            starting_config: config.clone(),
            dynamic_defaults: BTreeMap::new(),
            config,
            zk: Zk::new(),
            brokers: BTreeMap::new(),
            channels: ControllerChannelManager::default(),
            last_notify: VecMap::new(),
            next_message_id: 1,
            held: VecMap::new(),
            trace: crate::trace::Records::new(),
            stats: Stats::default(),
            metadata_memo: crate::broker::MetadataMemo::default(),
            epoch_span_memo: crate::controller::channel::EpochSpanMemo::default(),
            checker: Checker::default(),
            controller_memo: ControllerMemo::default(),
            stopped: None,
            changing: Vec::new(),
            may_stop: None,
        };
        // Inserted one by one: a collect sorts, with a copy of the sort of
        // its own in the page's .wasm.
        for b in brokers {
            sim.brokers.insert(*b, Broker::new(*b));
        }
        for p in paths::TOP_LEVEL {
            let _ = sim.zk.create_recursive(None, p, "", CreateMode::Persistent);
        }
        for b in brokers {
            sim.start_broker(*b);
        }
        sim
    }

    // ----- reading ----------------------------------------------------------

    /// The configuration the cluster started with.
    pub fn starting_config(&self) -> &Config {
        &self.starting_config
    }

    /// The cluster-wide dynamic defaults set while the cluster runs, by key.
    pub fn dynamic_defaults(&self) -> &BTreeMap<String, serde_json::Value> {
        &self.dynamic_defaults
    }

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
        self.channels.requests()
    }

    /// The trace so far.
    pub fn trace(&self) -> &crate::trace::Records {
        &self.trace
    }

    /// Counters.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Invariant violations so far.
    pub fn violations(&self) -> &[Violation] {
        self.checker.violations()
    }

    /// When the next action or event happens, if any (now, while a step is
    /// unfinished: [`Sim::step_piece`]).
    pub fn next_event_time(&self) -> Option<SimTime> {
        if self.stopped.is_some() {
            return Some(self.now);
        }
        let a = self.actions.keys().next().map(|(t, _)| *t);
        let e = self.queue.keys().next().map(|k| k.0);
        match (a, e) {
            (Some(a), Some(e)) => Some(a.min(e)),
            (a, e) => a.or(e),
        }
    }

    /// Pending events in order (time, event).
    pub fn pending(&self) -> impl Iterator<Item = (SimTime, &SimEvent)> {
        self.queue.iter().map(|((t, _, _), e)| (*t, e))
    }

    /// `/controller`'s brokerid, if the node exists, as observers see it now.
    pub fn controller_id(&self) -> Option<BrokerId> {
        let memo = &self.controller_memo.id;
        read_memo(memo, &self.zk, paths::CONTROLLER, parse_controller_id, None)
    }

    /// `/controller_epoch`'s value (0 if absent), as observers see it now.
    pub fn controller_epoch(&self) -> i32 {
        let memo = &self.controller_memo.epoch;
        let parse = |text: &str| text.trim().parse().unwrap_or(0);
        read_memo(memo, &self.zk, paths::CONTROLLER_EPOCH, parse, 0)
    }

    // ----- driving ----------------------------------------------------------

    /// Schedule a user action at `at` (not before now). A step left
    /// unfinished ([`Sim::step_piece`]) is finished first when the action is
    /// taken.
    pub fn schedule_action(&mut self, at: SimTime, action: Action) -> Result<(), ActionError> {
        if at < self.now {
            return Err(ActionError::InThePast {
                at: at.as_ms(),
                now: self.now.as_ms(),
            });
        }
        self.check_new_action(at, &action)?;
        self.finish_step();
        self.action_seq += 1;
        self.actions.insert((at, self.action_seq), action);
        Ok(())
    }

    /// Whether this cluster takes `action` at `at`: its broker exists, its
    /// own numbers and sizes are within the limits every way in shares
    /// ([`crate::scenario::check_action`]) and `at` is within
    /// [`crate::scenario::MAX_TIME_MS`]. Changes nothing.
    pub fn check_new_action(&self, at: SimTime, action: &Action) -> Result<(), ActionError> {
        if let Some(b) = action.broker() {
            if !self.brokers.contains_key(&b) {
                return Err(ActionError::UnknownBroker(b));
            }
        }
        let limit = crate::scenario::MAX_TIME_MS;
        if at.as_ms() > limit {
            return Err(ActionError::Invalid(crate::scenario::over(
                "ms for an action's time",
                at.as_ms(),
                limit,
                "MAX_TIME_MS, one day",
            )));
        }
        crate::scenario::check_action(action).map_err(ActionError::Invalid)
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

    /// Forget the pending actions later than `at` (an intervention at `at`
    /// drops the future it replaces).
    pub fn drop_pending_actions_after(&mut self, at: SimTime) {
        self.actions.retain(|(t, _), _| *t <= at);
    }

    /// Process the next action or event. An action at time T comes after
    /// every event at T (those its own handling schedules at T aside, and
    /// those of an earlier action at T included): what a pause at T shows
    /// is everything at or before T (`run_until`), and an action taken
    /// there acts on that state, in a replay from any snapshot taken before
    /// T as well (before session 28 it came before the events at T: a
    /// student who paused on a change and acted saw the change undone).
    /// Returns false when nothing is left. A step left unfinished by
    /// [`Sim::step_piece`] is finished instead.
    pub fn step(&mut self) -> bool {
        if self.stopped.is_some() {
            return self.go_on(None);
        }
        self.step_from_queue(None)
    }

    /// One piece of work: as [`Sim::step`], except that a long controller
    /// event (a failover: [`crate::controller::FailoverPiece`]) may stop
    /// between its pieces, leaving the step unfinished; the next call goes
    /// on with it, one piece at a time. Nothing else happens in between and
    /// virtual time stands still, so where a step stops changes nothing:
    /// stepping by pieces gives the trace and state that [`Sim::step`]
    /// gives. The page plays by pieces to draw while such an event runs.
    /// Returns false when nothing is left.
    pub fn step_piece(&mut self) -> bool {
        self.step_piece_of(PIECE)
    }

    /// [`Sim::step_piece`] with pieces of at most `slice` znode writes or
    /// state changes where a piece is a run of them (the default, [`PIECE`],
    /// a few milliseconds of the simulator's work; the tests stop far more
    /// often). The run is the same whatever the size.
    pub fn step_piece_of(&mut self, slice: usize) -> bool {
        let slice = slice.max(1);
        if self.stopped.is_some() {
            self.go_on(Some(slice));
            return true;
        }
        self.step_from_queue(Some(slice))
    }

    /// Whether a step stopped between pieces ([`Sim::step_piece`]): the
    /// state is then partway through a controller event.
    pub fn mid_step(&self) -> bool {
        self.stopped.is_some()
    }

    /// Finish a step left unfinished by [`Sim::step_piece`], if any.
    pub fn finish_step(&mut self) {
        while self.stopped.is_some() {
            self.go_on(None);
        }
    }

    fn step_from_queue(&mut self, by_pieces: Option<usize>) -> bool {
        let next_action = self.actions.keys().next().map(|(t, _)| *t);
        let next_key = self.queue.keys().next().copied();
        let next_event = next_key.map(|k| k.0);
        // Parked fetch rounds placed before what comes next run first (an
        // action at T comes after every event at T: [`Sim::step`]).
        match (next_action, next_key) {
            (Some(a), e) if e.is_none_or(|e| a < e.0) => self.advance_parked((a.plus_ms(1), 0, 0)),
            (_, Some(k)) => self.advance_parked(k),
            (_, None) => {}
        }
        // A fetch round or a broker's periodic task works on the data plane
        // only: it changes no broker's status, no session, no controller and
        // no request channel, so the checks on those (which walk every
        // broker) cannot change at it and are skipped. Its ZooKeeper writes
        // (ISR changes) are followed as any other's.
        let data_plane_only = next_event.is_some()
            && next_action.is_none_or(|a| next_event.is_some_and(|e| e <= a))
            && matches!(
                self.queue.first_key_value(),
                Some((_, SimEvent::Fetch { .. } | SimEvent::BrokerTask { .. }))
            );
        // What the step's end compares: the brokers whose status or
        // incarnation the step changes, each noted before the change
        // ([`Sim::lifecycle_changing`]). Debug builds also keep every
        // broker's pair, to check that no change went unnoted.
        self.changing.clear();
        let statuses: Vec<(BrokerStatus, u32)> = if data_plane_only || !cfg!(debug_assertions) {
            Vec::new()
        } else {
            self.brokers
                .values()
                .map(|b| (b.status, b.incarnation))
                .collect()
        };
        match (next_action, next_event) {
            (Some(a), e) if e.is_none_or(|e| a < e) => {
                let Some(((t, _), action)) = self.actions.pop_first() else {
                    return false;
                };
                self.now = t;
                self.zk.set_now(t);
                self.apply_action(action);
            }
            (_, Some(_)) => {
                let Some(((t, _, _), ev)) = self.queue.pop_first() else {
                    return false;
                };
                self.unqueued(&ev);
                self.now = t;
                self.zk.set_now(t);
                // The events whose handling ends with the event thread
                // taking an event (`kick` last): nothing of the step comes
                // between that event and the end of the step.
                let ends_with_kick = match &ev {
                    SimEvent::Register { .. }
                    | SimEvent::Notify { .. }
                    | SimEvent::ControllerDone { .. }
                    | SimEvent::Timer { .. } => true,
                    // A ControlledShutdown request reaching the controller.
                    SimEvent::RequestArrives { id } => self.channels.get(*id).is_some_and(|r| {
                        matches!(
                            r.body,
                            crate::controller::channel::RequestBody::ControlledShutdown { .. }
                        )
                    }),
                    _ => false,
                };
                self.may_stop = by_pieces.filter(|_| ends_with_kick);
                self.handle(ev);
                self.may_stop = None;
                if let Some(stopped) = self.stopped.as_mut() {
                    stopped.statuses = statuses;
                    return true;
                }
            }
            (_, None) => return false,
        }
        self.end_step(statuses, data_plane_only);
        true
    }

    /// What every step does once its action or event is handled: watches,
    /// visibility, availability, invariants.
    fn end_step(&mut self, statuses: Vec<(BrokerStatus, u32)>, data_plane_only: bool) {
        self.route_watches();
        // Wake up when the writes made partway through an event become
        // visible, so the checker and availability follow them then.
        for at in self.zk.take_new_visible() {
            self.push(at, SimEvent::ZkVisible);
        }
        self.note_zk_changes();
        let changing = std::mem::take(&mut self.changing);
        if !data_plane_only {
            // The brokers whose status or incarnation differs from before
            // the step, in id order, and whether a status does.
            let mut status_changed = false;
            let mut changed: Vec<BrokerId> = changing
                .iter()
                .filter_map(|(id, before)| {
                    let b = self.brokers.get(id)?;
                    status_changed |= b.status != before.0;
                    ((b.status, b.incarnation) != *before).then_some(*id)
                })
                .collect();
            changed.sort_unstable();
            #[cfg(debug_assertions)]
            {
                let every: Vec<BrokerId> = self
                    .brokers
                    .values()
                    .zip(&statuses)
                    .filter(|(b, s)| (b.status, b.incarnation) != **s)
                    .map(|(b, _)| b.id)
                    .collect();
                let any_status = self
                    .brokers
                    .values()
                    .map(|b| b.status)
                    .ne(statuses.iter().map(|s| s.0));
                debug_assert_eq!(changed, every, "a broker's change went unnoted");
                debug_assert_eq!(status_changed, any_status, "a status change went unnoted");
            }
            #[cfg(not(debug_assertions))]
            let _ = statuses;
            if status_changed {
                self.availability_dirty = true;
            }
            // A broker that stopped, paused, woke or restarted: the parked
            // sessions it takes part in run their rounds as events again.
            if !self.data.parking().is_empty() {
                for b in changed {
                    self.data.wake_sessions_of(b);
                }
                self.queue_woken();
            }
        }
        self.update_availability();
        self.checker.record_found(self.now);
        if !data_plane_only {
            self.check_invariants();
        }
    }

    /// Note broker `broker`'s status and incarnation before the step under
    /// way changes either (every change to them comes here first): the
    /// step's end compares only these brokers, where it walked every broker
    /// before and after each step (at 100 brokers, a third of a controller
    /// failover's work after the election).
    pub(super) fn lifecycle_changing(&mut self, broker: BrokerId) {
        if self.changing.iter().any(|(b, _)| *b == broker) {
            return;
        }
        if let Some(b) = self.brokers.get(&broker) {
            self.changing.push((broker, (b.status, b.incarnation)));
        }
    }

    /// Process everything at or before `until`, then set the clock to it.
    pub fn run_until(&mut self, until: SimTime) {
        while self.next_event_time().is_some_and(|t| t <= until) {
            self.step();
        }
        self.advance_parked((until.plus_ms(1), 0, 0));
        if until > self.now {
            self.now = until;
            self.zk.set_now(until);
        }
    }

    /// Process everything strictly before `until`, then set the clock to it.
    pub fn run_before(&mut self, until: SimTime) {
        while self.next_event_time().is_some_and(|t| t < until) {
            self.step();
        }
        self.advance_parked((until, 0, 0));
        if until > self.now {
            self.now = until;
            self.zk.set_now(until);
        }
    }

    /// Take the trace records written so far (the timeline keeps them).
    pub fn take_trace(&mut self) -> crate::trace::Records {
        std::mem::take(&mut self.trace)
    }

    /// A fresh id for a message on the wire.
    fn message_id(&mut self) -> u64 {
        let id = self.next_message_id;
        self.next_message_id += 1;
        id
    }

    fn push(&mut self, at: SimTime, ev: SimEvent) {
        debug_assert!(at >= self.now, "an event is never scheduled in the past");
        self.seq += 1;
        self.sub = 0;
        self.enqueue((at, self.seq, 0), ev);
    }

    /// Put `ev` in the queue at `key`, counting it if it is work.
    fn enqueue(&mut self, key: QueueKey, ev: SimEvent) {
        self.work_queued += u64::from(ev.is_work());
        self.queue.insert(key, ev);
    }

    /// Take the first queued event that `wanted` picks off the queue.
    fn take_queued(&mut self, wanted: impl Fn(&SimEvent) -> bool) -> Option<(QueueKey, SimEvent)> {
        let key = self
            .queue
            .iter()
            .find_map(|(k, e)| wanted(e).then_some(*k))?;
        let ev = self.queue.remove(&key)?;
        self.unqueued(&ev);
        Some((key, ev))
    }

    /// `ev` left the queue.
    fn unqueued(&mut self, ev: &SimEvent) {
        self.work_queued -= u64::from(ev.is_work()).min(self.work_queued);
    }

    fn note(
        &mut self,
        actor: impl Into<crate::trace::Label>,
        kind: &'static str,
        fact: crate::fact::Fact,
    ) {
        let kind = crate::trace::Label::of_static(kind);
        let time_ms = self.now.as_ms();
        self.record(TraceRecord::at_ms(time_ms, actor.into(), kind, fact));
    }

    /// Append a record to the trace.
    fn record(&mut self, r: TraceRecord) {
        self.trace.push(r);
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
            SimEvent::ControllerSend {
                broker,
                incarnation,
            } => {
                if self.incarnation(broker) == incarnation {
                    self.controller_send(broker);
                }
            }
            SimEvent::ZkVisible => {}
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
            SimEvent::ShutdownTimeout {
                broker,
                incarnation,
                id,
            } => {
                if self.is_shutting_down(broker, incarnation) {
                    self.shutdown_timeout(broker, id);
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
                // Sent when the writer's work reached the change, and never
                // before an earlier notification of the same session:
                // ZooKeeper delivers a client's watch events in order.
                let sent = self.now.plus_us_ceil(watched.offset_us);
                let earliest = self.last_notify.get(&watched.session).copied();
                let at = sent
                    .plus_ms(self.zk_delay())
                    .max(earliest.unwrap_or(SimTime::ZERO));
                self.last_notify.insert(watched.session, at);
                let id = self.message_id();
                let sent_at = sent;
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
}

impl Sim {
    /// When the partition's state znode (leader, ISR, epochs) last changed.
    pub fn state_changed_at(&self, tp: &crate::ids::TopicPartition) -> Option<SimTime> {
        self.state_znodes.get(tp).map(StateSeen::changed_at)
    }

    /// When each partition's state znode last changed, in partition order
    /// (what [`crate::summary::SummaryCache`] follows incrementally).
    pub fn state_changes(
        &self,
    ) -> impl Iterator<Item = (crate::ids::TopicPartition, SimTime)> + '_ {
        self.state_znodes.iter().map(|(tp, s)| (tp, s.changed_at()))
    }

    /// A mark of the state znodes as followed now, for
    /// [`Sim::state_changes_since`]: a copy that shares every record with
    /// the simulation (one pointer per 32 partitions).
    pub fn state_mark(&self) -> StateMark {
        StateMark(self.state_znodes.clone())
    }

    /// [`Sim::state_changes`] of the partitions whose record may have
    /// changed since `mark` was taken, of this simulation or of one it was
    /// copied from or to (every record changed since is among them, and
    /// some unchanged): a walk of what changed, not of every partition.
    /// Without a mark, every partition.
    pub fn state_changes_since<'a>(
        &'a self,
        mark: Option<&'a StateMark>,
    ) -> Box<dyn Iterator<Item = (crate::ids::TopicPartition, SimTime)> + 'a> {
        match mark {
            Some(m) => Box::new(
                self.state_znodes
                    .changed_from(&m.0)
                    .map(|(tp, s)| (tp, s.changed_at())),
            ),
            None => Box::new(self.state_changes()),
        }
    }

    /// The partition's leader per its state znode.
    pub fn leader_of(&self, tp: &crate::ids::TopicPartition) -> Option<BrokerId> {
        self.state_znodes.get(tp).and_then(|s| s.leader)
    }

    /// How many partitions the cluster has: assigned in the topics' znodes
    /// (a new topic's partitions count before the controller has written
    /// their state znodes), or with a state znode, whichever is more.
    pub fn partition_count(&self) -> usize {
        let assigned: usize = self.assignments.values().map(|a| a.len()).sum();
        assigned.max(self.state_znodes.len())
    }

    /// ZooKeeper's changes not yet visible to observers that this
    /// simulation holds in chunks `other` does not share
    /// ([`crate::zk::Zk::unshared_pending`]).
    pub fn zk_unshared_pending(&self, other: Option<&Sim>) -> usize {
        self.zk.unshared_pending(other.map(|o| &o.zk))
    }

    /// The entries of the shared per-partition maps ([`crate::cow_map`]:
    /// znodes, hosted replicas, replica logs, the per-partition maps here)
    /// that this simulation holds in chunks `other` does not share (all of
    /// them without `other`): what keeping a copy of it beside `other`
    /// costs in those maps. Everything else a clone copies whole.
    pub fn unshared_entries(&self, other: Option<&Sim>) -> usize {
        let brokers: usize = self
            .brokers
            .iter()
            .map(|(id, b)| {
                let theirs = other.and_then(|o| o.brokers.get(id)).map(|b| &b.replicas);
                b.replicas.unshared_entries(theirs)
            })
            .sum();
        brokers
            + self.zk.unshared_nodes(other.map(|o| &o.zk))
            + self.data.unshared_entries(other.map(|o| &o.data))
            + self
                .state_znodes
                .unshared_entries(other.map(|o| &o.state_znodes))
            + self
                .assignments
                .iter()
                .filter(|(topic, a)| {
                    !other
                        .and_then(|o| o.assignments.get(*topic))
                        .is_some_and(|theirs| std::rc::Rc::ptr_eq(a, theirs))
                })
                .map(|(_, a)| a.len())
                .sum::<usize>()
    }
}

impl Sim {
    /// Drops the simulation part by part, calling `mark` with each part's
    /// name after it is gone: with a counting allocator, the heap between
    /// two calls is what that part held alone (a part shared with one
    /// dropped later counts with that one). Memory accounting only.
    #[doc(hidden)]
    pub fn drop_parts(self, mark: &mut dyn FnMut(&'static str)) {
        let Sim {
            queue,
            availability_changed,
            state_znodes,
            assignments,
            data,
            actions,
            zk,
            brokers,
            channels,
            held,
            trace,
            checker,
            metadata_memo,
            epoch_span_memo,
            last_notify,
            ..
        } = self;
        mark("start");
        drop(trace);
        mark("trace");
        drop((queue, actions, held, last_notify));
        mark("event queue, actions, held");
        drop(channels);
        mark("controller channels (requests in flight)");
        let mut ctxs = Vec::new();
        let mut replicas = Vec::new();
        let mut metadata = Vec::new();
        let mut rest = Vec::new();
        let mut currents = Vec::new();
        for (_, b) in brokers {
            let Broker {
                controller,
                replicas: r,
                metadata: m,
                zk_client,
                isr_change_set,
                ..
            } = b;
            let crate::controller::KafkaController {
                queue,
                current,
                ctx,
                ..
            } = controller;
            ctxs.push(ctx);
            rest.push((queue, zk_client, isr_change_set));
            currents.push(current);
            replicas.push(r);
            metadata.push(m);
        }
        mark("brokers: scalars");
        drop(currents);
        mark("brokers: the controller's event in progress (its requests and notes)");
        drop(rest);
        mark("brokers: controller queues, zk clients, ISR change sets");
        let mut leadership = Vec::new();
        let mut states = Vec::new();
        let mut replica_states = Vec::new();
        let mut others = Vec::new();
        for c in ctxs {
            let crate::controller::context::ControllerContext {
                assignments,
                leadership: l,
                partition_states,
                replica_states: r,
                ..
            } = c;
            others.push(assignments);
            leadership.push(l);
            states.push(partition_states);
            replica_states.push(r);
        }
        mark("controller context: scalars and sets");
        drop(others);
        mark("controller context: assignments");
        drop(leadership);
        mark("controller context: leadership (LeaderIsr)");
        drop(states);
        mark("controller context: partition states");
        drop(replica_states);
        mark("controller context: replica states");
        drop(replicas);
        mark("brokers: hosted replicas");
        drop((metadata, metadata_memo, epoch_span_memo));
        mark("brokers: metadata caches (and memo)");
        drop(data);
        mark("data plane (replica logs, fetch sessions, high watermarks)");
        drop((availability_changed, state_znodes, assignments));
        mark("sim: availability, state znodes seen, assignments");
        drop(checker);
        mark("invariant checker");
        zk.drop_parts(mark);
    }
}
