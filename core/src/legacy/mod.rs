//! Before the controller: the historical design in which every broker watched
//! ZooKeeper itself, run on the same cluster, assignment, seed and faults as
//! the controller design, and counted side by side with it ([`compare`]).
//!
//! The model follows Kafka's first replication design ("Kafka Replication
//! Detailed Design", V1, 2011–2012), as the V2 and V3 design documents that
//! replaced it describe it: each broker registers `/brokers/ids/<id>`, watches
//! `/brokers/ids` and the leader and ISR znodes of every partition it hosts,
//! and on every change re-reads ZooKeeper and acts on its own; a partition's
//! leader is whoever creates its ephemeral `leader` znode first. What is
//! modelled, what is simplified and what is a guess is written down in
//! `core/docs/before-the-controller.md`.
//!
//! The ZooKeeper is the core's own ([`crate::zk::Zk`]): the same sessions,
//! one-shot watches, ephemeral nodes, conditional writes and counters. A
//! broker's ZooKeeper work is charged at the core's cost model
//! ([`crate::cost::CostModel`]) and a notification reaches a broker after
//! `sim.zk.latency.ms` (plus up to `sim.network.jitter.ms`, from the seed).
//! Time is in microseconds inside, like the cost model.

mod compare;
#[cfg(test)]
mod tests;

pub use compare::{
    compare, until_ms, CompareError, Comparison, Counts, Segment, MAX_REPLICAS, SETTLE_MS,
};

use crate::action::Action;
use crate::cost::CostModel;
use crate::ids::{BrokerId, SessionId, TopicPartition};
use crate::rng::Rng;
use crate::scenario::Scenario;
use crate::zk::{CreateMode, WatchKind, WatchedEvent, Zk, ZkCounters, ZkError};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// `/brokers/ids`, as in every Kafka version.
pub const BROKER_IDS: &str = "/brokers/ids";
/// `/brokers/topics`: one child per topic, its data the assignment.
pub const TOPICS: &str = "/brokers/topics";

/// The V1 layout of a partition's znodes: `/brokers/topics/<t>/<p>`.
pub fn partition_path(tp: &TopicPartition) -> String {
    format!("/brokers/topics/{}/{}", tp.topic, tp.partition)
}

/// The partition's leader znode (ephemeral, data: the leader's id).
pub fn leader_path(tp: &TopicPartition) -> String {
    format!("{}/leader", partition_path(tp))
}

/// The partition's ISR znode (persistent, data: the ISR as a JSON list).
pub fn isr_path(tp: &TopicPartition) -> String {
    format!("{}/isr", partition_path(tp))
}

/// A conflicting decision: two or more live broker processes that, at the
/// same virtual moment, each believe they lead one partition (split brain).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conflict {
    /// The partition.
    pub partition: TopicPartition,
    /// The brokers that believed they led it when the conflict began.
    pub brokers: Vec<BrokerId>,
    /// When it began (ms).
    pub from_ms: u64,
    /// When it ended (ms); `None`: still going at the end of the run.
    pub to_ms: Option<u64>,
}

/// Follows which live processes believe they lead which partitions, and
/// records every stretch of time in which two or more do. Used for both
/// designs, so they are measured alike.
#[derive(Debug, Clone, Default)]
pub struct ConflictTracker {
    open: BTreeMap<TopicPartition, usize>,
    /// Every conflict so far, in the order they began.
    pub conflicts: Vec<Conflict>,
}

impl ConflictTracker {
    /// Look at the beliefs at `now_ms`; returns how many conflicts began now.
    pub fn observe(
        &mut self,
        now_ms: u64,
        beliefs: &BTreeMap<TopicPartition, BTreeSet<BrokerId>>,
    ) -> u64 {
        let mut began = 0;
        let ended: Vec<TopicPartition> = self
            .open
            .keys()
            .filter(|tp| beliefs.get(*tp).is_none_or(|b| b.len() < 2))
            .cloned()
            .collect();
        for tp in ended {
            if let Some(i) = self.open.remove(&tp) {
                if let Some(c) = self.conflicts.get_mut(i) {
                    c.to_ms = Some(now_ms);
                }
            }
        }
        for (tp, who) in beliefs {
            if who.len() >= 2 && !self.open.contains_key(tp) {
                self.open.insert(tp.clone(), self.conflicts.len());
                self.conflicts.push(Conflict {
                    partition: tp.clone(),
                    brokers: who.iter().copied().collect(),
                    from_ms: now_ms,
                    to_ms: None,
                });
                began += 1;
            }
        }
        began
    }
}

/// Where a broker's process is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Process {
    /// No process (never started, killed, or exited).
    Down,
    /// Started, not yet registered.
    Starting,
    /// Running.
    Up,
    /// Stalled (a GC pause) until this time (µs).
    Paused {
        /// When it resumes (µs).
        until_us: u64,
    },
}

/// One piece of ZooKeeper work a broker does on its ZooKeeper event thread.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    /// Register `/brokers/ids/<id>`, then read the brokers and the topics.
    Register,
    /// Re-read `/brokers/topics` (and re-arm the watch); read new topics.
    ReadTopics,
    /// Read a topic's assignment; read the partitions it hosts.
    ReadTopic(String),
    /// Re-read `/brokers/ids` (and re-arm the watch); leaders fix their ISRs.
    ReadBrokers,
    /// Read a partition's leader and ISR; race for leadership if it has none.
    ReadPartition(TopicPartition),
    /// The leader znode is gone: read the ISR, race if in it.
    Elect(TopicPartition),
    /// Try to create the ephemeral leader znode.
    TryLead(TopicPartition),
    /// Re-read the leader znode.
    ReadLeader(TopicPartition),
    /// Re-read the ISR znode.
    ReadIsr(TopicPartition),
    /// As leader, write the ISR (conditional on its version); the attempt number.
    UpdateIsr(TopicPartition, u32),
}

/// The most attempts of one conditional ISR write.
const MAX_ISR_ATTEMPTS: u32 = 5;

#[derive(Debug, Clone)]
struct LBroker {
    process: Process,
    incarnation: u32,
    session: Option<SessionId>,
    inbox: VecDeque<Step>,
    busy_until_us: u64,
    run_pending: bool,
    /// Partitions this process believes it leads.
    leads: BTreeSet<TopicPartition>,
    /// `/brokers/ids` as it last read it.
    registered: BTreeSet<BrokerId>,
    /// Each hosted partition's ISR as it last read it, with its version.
    isr: BTreeMap<TopicPartition, (Vec<BrokerId>, i32)>,
    /// The topics it has read.
    topics: BTreeSet<String>,
    last_delivery_us: u64,
}

#[derive(Debug, Clone)]
enum Ev {
    Action(Action),
    Started {
        broker: BrokerId,
        incarnation: u32,
    },
    Deliver {
        broker: BrokerId,
        incarnation: u32,
        event: WatchedEvent,
    },
    Run {
        broker: BrokerId,
        incarnation: u32,
    },
    Expire {
        session: SessionId,
    },
    NoticeExpiry {
        broker: BrokerId,
        incarnation: u32,
    },
    Resume {
        broker: BrokerId,
        incarnation: u32,
    },
}

/// What a watched path is to the brokers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Watched {
    Leader,
    Isr,
}

/// A run of the historical design.
#[derive(Debug, Clone)]
pub struct Legacy {
    zk: Zk,
    base: ZkCounters,
    now_us: u64,
    seq: u64,
    queue: BTreeMap<(u64, u64), Ev>,
    brokers: BTreeMap<BrokerId, LBroker>,
    assignment: BTreeMap<TopicPartition, Vec<BrokerId>>,
    /// Where `create_topic` actions placed their replicas, by topic name
    /// (as the controller design placed them).
    placements: BTreeMap<String, Vec<Vec<BrokerId>>>,
    paths: BTreeMap<String, (TopicPartition, Watched)>,
    rng: Rng,
    cost: CostModel,
    zk_latency_us: u64,
    jitter_us: u64,
    startup_us: u64,
    startup_jitter_us: u64,
    session_timeout_ms: u64,
    tracker: ConflictTracker,
    not_modelled: Vec<(u64, Action)>,
}

fn encode_isr(isr: &[BrokerId]) -> String {
    serde_json::to_string(&isr.iter().map(|b| b.0).collect::<Vec<u32>>()).unwrap_or_default()
}

fn decode_isr(data: &str) -> Vec<BrokerId> {
    serde_json::from_str::<Vec<u32>>(data)
        .map(|v| v.into_iter().map(BrokerId).collect())
        .unwrap_or_default()
}

/// A partition's replicas as its topic znode in `zk` assigns them.
fn replicas_of(zk: &Zk, tp: &TopicPartition) -> Option<Vec<BrokerId>> {
    crate::admin::topic_assignment(zk, &tp.topic)?
        .into_iter()
        .find(|(p, _)| *p == tp.partition)
        .map(|(_, r)| r)
}

/// Whether the legacy model acts on this action (the rest are listed as not
/// modelled in the comparison).
pub fn is_modelled(action: &Action) -> bool {
    matches!(
        action,
        Action::KillBroker { .. }
            | Action::StartBroker { .. }
            | Action::ShutdownBroker { .. }
            | Action::PauseBroker { .. }
            | Action::ExpireSession { .. }
            | Action::CreateTopic { .. }
    )
}

impl Legacy {
    /// The historical design over the scenario's cluster: the same brokers,
    /// the same replica assignment (read from the controller design's
    /// ZooKeeper as the scenario builds it), the same configuration, seed
    /// and actions.
    pub fn new(scenario: &Scenario) -> Legacy {
        let built = scenario.build();
        let mut assignment = BTreeMap::new();
        for tp in crate::admin::all_partitions(built.zk()) {
            let replicas = replicas_of(built.zk(), &tp).unwrap_or_default();
            assignment.insert(tp, replicas);
        }
        // Topics created by actions and placed by Kafka's algorithm: where
        // the controller design put them.
        let mut placements = BTreeMap::new();
        let placed_by_count: Vec<(u64, &str)> = scenario
            .actions
            .iter()
            .filter_map(|(t, a)| match a {
                Action::CreateTopic {
                    name,
                    assignment: None,
                    ..
                } => Some((t.as_ms(), name.as_str())),
                _ => None,
            })
            .collect();
        if let Some(last) = placed_by_count.iter().map(|(t, _)| *t).max() {
            let mut sim = built;
            sim.run_until(crate::time::SimTime(last));
            for (_, name) in placed_by_count {
                if let Some(a) = crate::admin::topic_assignment(sim.zk(), name) {
                    placements.insert(name.to_string(), a.into_iter().map(|(_, r)| r).collect());
                }
            }
        }
        let mut l = Legacy::empty(scenario, placements);
        let mut topics: BTreeMap<String, Vec<Vec<BrokerId>>> = BTreeMap::new();
        for (tp, r) in assignment {
            topics.entry(tp.topic.to_string()).or_default().push(r);
        }
        for (name, a) in topics {
            l.create_topic(&name, &a);
        }
        l.base = l.zk.counters();
        // Actions first: at one instant they come before every event.
        for (at, a) in &scenario.actions {
            l.push(at.as_ms().saturating_mul(1000), Ev::Action(a.clone()));
        }
        for id in scenario.brokers.clone() {
            l.start(id);
        }
        l
    }

    /// Write a topic as the admin tool does: its assignment, then each
    /// partition's ISR (its replicas; nobody leads it yet).
    fn create_topic(&mut self, name: &str, assignment: &[Vec<BrokerId>]) {
        let path = format!("{TOPICS}/{name}");
        let data = crate::znodes::topic_znode_json(assignment);
        if self
            .zk
            .create_recursive(None, &path, &data, CreateMode::Persistent)
            .is_err()
        {
            return;
        }
        for (p, replicas) in assignment.iter().enumerate() {
            let tp = TopicPartition::new(name, p as u32);
            let _ = self.zk.create_recursive(
                None,
                &isr_path(&tp),
                &encode_isr(replicas),
                CreateMode::Persistent,
            );
            self.paths
                .insert(leader_path(&tp), (tp.clone(), Watched::Leader));
            self.paths.insert(isr_path(&tp), (tp.clone(), Watched::Isr));
            self.assignment.insert(tp, replicas.clone());
        }
        self.route(self.now_us);
    }

    fn empty(scenario: &Scenario, placements: BTreeMap<String, Vec<Vec<BrokerId>>>) -> Legacy {
        let config = &scenario.config;
        let mut zk = Zk::new();
        let _ = zk.create_recursive(None, BROKER_IDS, "", CreateMode::Persistent);
        let _ = zk.create_recursive(None, TOPICS, "", CreateMode::Persistent);
        let mut brokers = BTreeMap::new();
        for id in &scenario.brokers {
            brokers.insert(
                *id,
                LBroker {
                    process: Process::Down,
                    incarnation: 0,
                    session: None,
                    inbox: VecDeque::new(),
                    busy_until_us: 0,
                    run_pending: false,
                    leads: BTreeSet::new(),
                    registered: BTreeSet::new(),
                    isr: BTreeMap::new(),
                    topics: BTreeSet::new(),
                    last_delivery_us: 0,
                },
            );
        }
        Legacy {
            base: zk.counters(),
            zk,
            now_us: 0,
            seq: 0,
            queue: BTreeMap::new(),
            brokers,
            assignment: BTreeMap::new(),
            placements,
            paths: BTreeMap::new(),
            rng: Rng::new(scenario.seed ^ 0x6c65_6761_6379),
            cost: CostModel::of(config),
            zk_latency_us: config.sim_zk_latency_ms.saturating_mul(1000),
            jitter_us: config.sim_network_jitter_ms.saturating_mul(1000),
            startup_us: config.sim_broker_startup_ms.saturating_mul(1000),
            startup_jitter_us: config.sim_broker_startup_jitter_ms.saturating_mul(1000),
            session_timeout_ms: config.zookeeper_session_timeout_ms,
            tracker: ConflictTracker::default(),
            not_modelled: Vec::new(),
        }
    }

    fn push(&mut self, at_us: u64, ev: Ev) {
        self.seq += 1;
        self.queue.insert((at_us, self.seq), ev);
    }

    /// Now, in ms.
    pub fn now_ms(&self) -> u64 {
        self.now_us / 1000
    }

    /// When the next event is due, in ms (rounded down).
    pub fn next_ms(&self) -> Option<u64> {
        self.queue.keys().next().map(|(t, _)| t / 1000)
    }

    /// The ZooKeeper requests and notifications since time 0 (the topics'
    /// znodes, there before the brokers start, not counted).
    pub fn counters(&self) -> ZkCounters {
        let c = self.zk.counters();
        let b = self.base;
        ZkCounters {
            reads: c.reads - b.reads,
            writes: c.writes - b.writes,
            notifications: c.notifications - b.notifications,
            node_exists: c.node_exists - b.node_exists,
            bad_version: c.bad_version - b.bad_version,
        }
    }

    /// How many partitions exist (topics created by actions included).
    pub fn partitions(&self) -> usize {
        self.assignment.len()
    }

    /// The ensemble, for inspection.
    pub fn zk(&self) -> &Zk {
        &self.zk
    }

    /// Every conflicting decision so far.
    pub fn conflicts(&self) -> &[Conflict] {
        &self.tracker.conflicts
    }

    /// The actions this model does not act on, with their times (ms).
    pub fn not_modelled(&self) -> &[(u64, Action)] {
        &self.not_modelled
    }

    /// A broker's process.
    pub fn process(&self, broker: BrokerId) -> Option<Process> {
        self.brokers.get(&broker).map(|b| b.process)
    }

    /// Each partition's leader as its ZooKeeper leader znode says.
    pub fn leaders(&self) -> BTreeMap<TopicPartition, BrokerId> {
        self.assignment
            .keys()
            .filter_map(|tp| {
                let n = self.zk.node(&leader_path(tp))?;
                Some((tp.clone(), BrokerId(n.data.text().parse().ok()?)))
            })
            .collect()
    }

    /// For each partition, the live processes that believe they lead it.
    pub fn beliefs(&self) -> BTreeMap<TopicPartition, BTreeSet<BrokerId>> {
        let mut out: BTreeMap<TopicPartition, BTreeSet<BrokerId>> = BTreeMap::new();
        for (id, b) in &self.brokers {
            if matches!(b.process, Process::Up | Process::Paused { .. }) {
                for tp in &b.leads {
                    out.entry(tp.clone()).or_default().insert(*id);
                }
            }
        }
        out
    }

    /// Process everything due at or before `until_ms`.
    pub fn run_until(&mut self, until_ms: u64) {
        while self.next_ms().is_some_and(|t| t <= until_ms) {
            self.step();
        }
    }

    /// Process the next event; returns how many conflicts began with it
    /// (`None` when nothing is left).
    pub fn step(&mut self) -> Option<u64> {
        let ((at, _), ev) = self.queue.pop_first()?;
        self.now_us = at;
        self.zk.set_now(crate::time::SimTime(at / 1000));
        self.handle(ev);
        let beliefs = self.beliefs();
        Some(self.tracker.observe(self.now_ms(), &beliefs))
    }

    fn start(&mut self, id: BrokerId) {
        let delay = self
            .startup_us
            .saturating_add(self.rng.below(self.startup_jitter_us.saturating_add(1)));
        let at = self.now_us.saturating_add(delay);
        let Some(b) = self.brokers.get_mut(&id) else {
            return;
        };
        b.incarnation += 1;
        b.process = Process::Starting;
        let incarnation = b.incarnation;
        self.push(
            at,
            Ev::Started {
                broker: id,
                incarnation,
            },
        );
    }

    /// The process is gone: everything it held in memory with it.
    fn stop_process(&mut self, id: BrokerId) -> Option<SessionId> {
        let b = self.brokers.get_mut(&id)?;
        b.process = Process::Down;
        b.incarnation += 1;
        b.inbox.clear();
        b.run_pending = false;
        b.leads.clear();
        b.isr.clear();
        b.registered.clear();
        b.topics.clear();
        b.session.take().filter(|s| self.zk.is_alive(*s))
    }

    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::Action(a) => self.act(a),
            Ev::Started {
                broker,
                incarnation,
            } => {
                if let Some(b) = self.brokers.get_mut(&broker) {
                    if b.incarnation == incarnation && b.process == Process::Starting {
                        b.process = Process::Up;
                        b.inbox.push_back(Step::Register);
                        self.schedule_run(broker);
                    }
                }
            }
            Ev::Deliver {
                broker,
                incarnation,
                event,
            } => self.deliver(broker, incarnation, event),
            Ev::Run {
                broker,
                incarnation,
            } => self.run(broker, incarnation),
            Ev::Expire { session } => {
                if self.zk.is_alive(session) {
                    let _ = self.zk.expire_session(session);
                    self.route(self.now_us);
                }
            }
            Ev::NoticeExpiry {
                broker,
                incarnation,
            } => self.notice_expiry(broker, incarnation),
            Ev::Resume {
                broker,
                incarnation,
            } => {
                let Some(b) = self.brokers.get_mut(&broker) else {
                    return;
                };
                if b.incarnation != incarnation || !matches!(b.process, Process::Paused { .. }) {
                    return;
                }
                b.process = Process::Up;
                b.run_pending = false;
                let alive = b.session.is_some_and(|s| self.zk.is_alive(s));
                if alive {
                    self.schedule_run(broker);
                } else {
                    // Its ZooKeeper client reconnects and is told the session
                    // is gone: one round trip.
                    let at = self
                        .now_us
                        .saturating_add(self.zk_latency_us.saturating_mul(2));
                    self.push(
                        at,
                        Ev::NoticeExpiry {
                            broker,
                            incarnation,
                        },
                    );
                }
            }
        }
    }

    fn act(&mut self, a: Action) {
        let now = self.now_us;
        match &a {
            Action::KillBroker { broker } => {
                if matches!(self.process(*broker), Some(Process::Down) | None) {
                    return;
                }
                // kill -9: the session lingers until ZooKeeper times it out.
                if let Some(s) = self.stop_process(*broker) {
                    let at = now.saturating_add(self.session_timeout_ms.saturating_mul(1000));
                    self.push(at, Ev::Expire { session: s });
                }
            }
            Action::ShutdownBroker { broker } => {
                if self.process(*broker) != Some(Process::Up) {
                    return;
                }
                // No controlled shutdown before the controller: the process
                // exits and its session closes at once.
                if let Some(s) = self.stop_process(*broker) {
                    let _ = self.zk.close_session(s);
                    self.route(now);
                }
            }
            Action::StartBroker { broker } => {
                if self.process(*broker) == Some(Process::Down) {
                    self.start(*broker);
                }
            }
            Action::PauseBroker {
                broker,
                duration_ms,
            } => {
                let timeout = self.session_timeout_ms;
                let Some(b) = self.brokers.get_mut(broker) else {
                    return;
                };
                if b.process != Process::Up {
                    return;
                }
                let until_us = now.saturating_add(duration_ms.saturating_mul(1000));
                b.process = Process::Paused { until_us };
                let incarnation = b.incarnation;
                let session = b.session;
                self.push(
                    until_us,
                    Ev::Resume {
                        broker: *broker,
                        incarnation,
                    },
                );
                if let Some(s) = session.filter(|_| *duration_ms >= timeout) {
                    // No heartbeats while stalled: ZooKeeper expires it.
                    self.push(
                        now.saturating_add(timeout.saturating_mul(1000)),
                        Ev::Expire { session: s },
                    );
                }
            }
            Action::ExpireSession { broker } => {
                let Some(b) = self.brokers.get(broker) else {
                    return;
                };
                let Some(s) = b.session.filter(|s| self.zk.is_alive(*s)) else {
                    return;
                };
                let (process, incarnation) = (b.process, b.incarnation);
                let _ = self.zk.expire_session(s);
                self.route(now);
                if process == Process::Up {
                    // The client hears of it on its next ping, a third of the
                    // session timeout later at most; until then the broker
                    // goes on believing what it believed.
                    let at = now.saturating_add(self.session_timeout_ms.saturating_mul(1000) / 3);
                    self.push(
                        at,
                        Ev::NoticeExpiry {
                            broker: *broker,
                            incarnation,
                        },
                    );
                }
            }
            Action::CreateTopic {
                name, assignment, ..
            } => {
                let placed = assignment
                    .clone()
                    .or_else(|| self.placements.get(name).cloned());
                match placed {
                    Some(a) if self.zk.node(&format!("{TOPICS}/{name}")).is_none() => {
                        self.create_topic(name, &a)
                    }
                    _ => self.not_modelled.push((now / 1000, a.clone())),
                }
            }
            _ => self.not_modelled.push((now / 1000, a)),
        }
    }

    fn notice_expiry(&mut self, broker: BrokerId, incarnation: u32) {
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        if b.incarnation != incarnation || b.process != Process::Up {
            return;
        }
        if b.session.is_some_and(|s| self.zk.is_alive(s)) {
            return;
        }
        // handleNewSession: forget everything, register again, re-read all.
        b.leads.clear();
        b.isr.clear();
        b.registered.clear();
        b.topics.clear();
        b.inbox.clear();
        b.session = None;
        b.inbox.push_back(Step::Register);
        b.run_pending = false;
        self.schedule_run(broker);
    }

    fn deliver(&mut self, broker: BrokerId, incarnation: u32, event: WatchedEvent) {
        let step = if event.path == BROKER_IDS {
            Some(Step::ReadBrokers)
        } else if event.path == TOPICS {
            Some(Step::ReadTopics)
        } else {
            match self.paths.get(&event.path) {
                Some((tp, Watched::Leader)) => Some(match event.kind {
                    WatchKind::NodeDeleted => Step::Elect(tp.clone()),
                    _ => Step::ReadLeader(tp.clone()),
                }),
                Some((tp, Watched::Isr)) => Some(Step::ReadIsr(tp.clone())),
                None => None,
            }
        };
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        if b.incarnation != incarnation || b.session != Some(event.session) {
            return;
        }
        if !matches!(b.process, Process::Up | Process::Paused { .. }) {
            return;
        }
        if let Some(step) = step {
            b.inbox.push_back(step);
        }
        if b.process == Process::Up {
            self.schedule_run(broker);
        }
    }

    fn schedule_run(&mut self, broker: BrokerId) {
        let now = self.now_us;
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        if b.run_pending || b.inbox.is_empty() || b.process != Process::Up {
            return;
        }
        b.run_pending = true;
        let at = b.busy_until_us.max(now);
        let incarnation = b.incarnation;
        self.push(
            at,
            Ev::Run {
                broker,
                incarnation,
            },
        );
    }

    fn run(&mut self, broker: BrokerId, incarnation: u32) {
        let Some(b) = self.brokers.get_mut(&broker) else {
            return;
        };
        if b.incarnation != incarnation || b.process != Process::Up || !b.run_pending {
            return;
        }
        b.run_pending = false;
        let Some(step) = b.inbox.pop_front() else {
            return;
        };
        let mut spent = 0;
        self.do_step(broker, step, &mut spent);
        if let Some(b) = self.brokers.get_mut(&broker) {
            b.busy_until_us = self.now_us.saturating_add(spent);
        }
        self.schedule_run(broker);
    }

    /// Send the notifications ZooKeeper fired to their sessions' brokers,
    /// leaving at `at_us`; a session hears its notifications in order.
    fn route(&mut self, at_us: u64) {
        for event in self.zk.take_fired() {
            let owner = self
                .brokers
                .iter()
                .find(|(_, b)| b.session == Some(event.session))
                .map(|(id, b)| (*id, b.incarnation, b.last_delivery_us));
            let Some((broker, incarnation, last)) = owner else {
                continue;
            };
            let jitter = self.rng.below(self.jitter_us.saturating_add(1));
            let at = at_us
                .saturating_add(self.zk_latency_us)
                .saturating_add(jitter)
                .max(last);
            if let Some(b) = self.brokers.get_mut(&broker) {
                b.last_delivery_us = at;
            }
            self.push(
                at,
                Ev::Deliver {
                    broker,
                    incarnation,
                    event,
                },
            );
        }
    }

    fn session(&self, broker: BrokerId) -> Option<SessionId> {
        self.brokers.get(&broker).and_then(|b| b.session)
    }

    fn read_data(
        &mut self,
        broker: BrokerId,
        path: &str,
        spent: &mut u64,
    ) -> Result<String, ZkError> {
        *spent = spent.saturating_add(self.cost.zk_read_us);
        let s = self.session(broker);
        self.zk.get_data(path, s).map(|(d, _)| d)
    }

    fn read_isr(
        &mut self,
        broker: BrokerId,
        tp: &TopicPartition,
        spent: &mut u64,
    ) -> Vec<BrokerId> {
        *spent = spent.saturating_add(self.cost.zk_read_us);
        let s = self.session(broker);
        match self.zk.get_data(&isr_path(tp), s) {
            Ok((data, stat)) => {
                let isr = decode_isr(&data);
                if let Some(b) = self.brokers.get_mut(&broker) {
                    b.isr.insert(tp.clone(), (isr.clone(), stat.version));
                }
                isr
            }
            Err(_) => Vec::new(),
        }
    }

    /// Read the leader znode, watching it (with `exists` when it is absent,
    /// so its creation is heard of); update what this broker believes.
    fn read_leader(
        &mut self,
        broker: BrokerId,
        tp: &TopicPartition,
        spent: &mut u64,
    ) -> Option<BrokerId> {
        let path = leader_path(tp);
        let leader = match self.read_data(broker, &path, spent) {
            Ok(data) => data.parse().ok().map(BrokerId),
            Err(ZkError::NoNode) => {
                *spent = spent.saturating_add(self.cost.zk_read_us);
                let s = self.session(broker);
                let _ = self.zk.exists(&path, s);
                None
            }
            Err(_) => None,
        };
        if let Some(b) = self.brokers.get_mut(&broker) {
            if leader != Some(broker) {
                b.leads.remove(tp);
            }
        }
        leader
    }

    fn push_front(&mut self, broker: BrokerId, step: Step) {
        if let Some(b) = self.brokers.get_mut(&broker) {
            b.inbox.push_front(step);
        }
    }

    fn do_step(&mut self, broker: BrokerId, step: Step, spent: &mut u64) {
        match step {
            Step::Register => {
                let timeout = self.session_timeout_ms;
                let s = self
                    .zk
                    .open_session(crate::time::SimTime(self.now_us / 1000), timeout);
                if let Some(b) = self.brokers.get_mut(&broker) {
                    b.session = Some(s);
                }
                *spent = spent.saturating_add(self.cost.zk_write_us);
                let path = format!("{BROKER_IDS}/{broker}");
                let r = self
                    .zk
                    .create(Some(s), &path, &broker.to_string(), CreateMode::Ephemeral);
                self.route(self.now_us.saturating_add(*spent));
                if r.is_err() {
                    // Its old session still holds the id: it fails to start.
                    let _ = self.stop_process(broker);
                    let _ = self.zk.close_session(s);
                    return;
                }
                self.push_front(broker, Step::ReadTopics);
                self.push_front(broker, Step::ReadBrokers);
            }
            Step::ReadTopics => {
                *spent = spent.saturating_add(self.cost.zk_read_us);
                let s = self.session(broker);
                let Ok(children) = self.zk.get_children(TOPICS, s) else {
                    return;
                };
                let Some(b) = self.brokers.get(&broker) else {
                    return;
                };
                let new: Vec<String> = children
                    .into_iter()
                    .filter(|t| !b.topics.contains(t))
                    .collect();
                for t in new.into_iter().rev() {
                    self.push_front(broker, Step::ReadTopic(t));
                }
            }
            Step::ReadTopic(name) => {
                let Ok(data) = self.read_data(broker, &format!("{TOPICS}/{name}"), spent) else {
                    return;
                };
                let hosted: Vec<TopicPartition> = crate::znodes::decode_topic_assignment(&data)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|(_, r)| r.contains(&broker))
                    .map(|(p, _)| TopicPartition::new(name.clone(), p))
                    .collect();
                if let Some(b) = self.brokers.get_mut(&broker) {
                    b.topics.insert(name);
                }
                for tp in hosted.into_iter().rev() {
                    self.push_front(broker, Step::ReadPartition(tp));
                }
            }
            Step::ReadBrokers => {
                *spent = spent.saturating_add(self.cost.zk_read_us);
                let s = self.session(broker);
                let Ok(children) = self.zk.get_children(BROKER_IDS, s) else {
                    return;
                };
                let registered: BTreeSet<BrokerId> =
                    crate::ids::broker_ids(children).into_iter().collect();
                let Some(b) = self.brokers.get_mut(&broker) else {
                    return;
                };
                b.registered = registered;
                let fix: Vec<TopicPartition> = b.leads.iter().cloned().collect();
                for tp in fix {
                    if let Some(b) = self.brokers.get_mut(&broker) {
                        b.inbox.push_back(Step::UpdateIsr(tp, 0));
                    }
                }
            }
            Step::ReadPartition(tp) => {
                let leader = self.read_leader(broker, &tp, spent);
                let isr = self.read_isr(broker, &tp, spent);
                match leader {
                    Some(l) if l == broker => {
                        if let Some(b) = self.brokers.get_mut(&broker) {
                            b.leads.insert(tp);
                        }
                    }
                    Some(_) => {}
                    None if isr.contains(&broker) => self.push_front(broker, Step::TryLead(tp)),
                    None => {}
                }
            }
            Step::Elect(tp) => {
                if let Some(b) = self.brokers.get_mut(&broker) {
                    b.leads.remove(&tp);
                }
                let isr = self.read_isr(broker, &tp, spent);
                if isr.contains(&broker) {
                    self.push_front(broker, Step::TryLead(tp));
                } else {
                    // Watch for whoever wins.
                    let _ = self.read_leader(broker, &tp, spent);
                }
            }
            Step::TryLead(tp) => {
                *spent = spent.saturating_add(self.cost.zk_write_us);
                let s = self.session(broker);
                let r = self.zk.create(
                    s,
                    &leader_path(&tp),
                    &broker.to_string(),
                    CreateMode::Ephemeral,
                );
                self.route(self.now_us.saturating_add(*spent));
                match r {
                    Ok(_) => {
                        if let Some(b) = self.brokers.get_mut(&broker) {
                            b.leads.insert(tp.clone());
                        }
                        self.push_front(broker, Step::UpdateIsr(tp, 0));
                    }
                    Err(ZkError::NodeExists) => {
                        // Lost the race: re-read who won, and watch it.
                        if self.read_leader(broker, &tp, spent).is_none() {
                            self.push_front(broker, Step::Elect(tp));
                        }
                    }
                    Err(_) => {}
                }
            }
            Step::ReadLeader(tp) => {
                if self.read_leader(broker, &tp, spent).is_none() {
                    self.push_front(broker, Step::Elect(tp));
                }
            }
            Step::ReadIsr(tp) => {
                let _ = self.read_isr(broker, &tp, spent);
            }
            Step::UpdateIsr(tp, attempt) => self.update_isr(broker, tp, attempt, spent),
        }
    }

    /// As leader, make the ISR the assigned replicas this broker sees
    /// registered (a conditional write on the version it read).
    fn update_isr(&mut self, broker: BrokerId, tp: TopicPartition, attempt: u32, spent: &mut u64) {
        let Some(b) = self.brokers.get(&broker) else {
            return;
        };
        if !b.leads.contains(&tp) {
            return;
        }
        let replicas = self.assignment.get(&tp).cloned().unwrap_or_default();
        let want: Vec<BrokerId> = replicas
            .into_iter()
            .filter(|r| b.registered.contains(r))
            .collect();
        let Some((have, version)) = b.isr.get(&tp).cloned() else {
            let _ = self.read_isr(broker, &tp, spent);
            if attempt < MAX_ISR_ATTEMPTS {
                self.push_front(broker, Step::UpdateIsr(tp, attempt + 1));
            }
            return;
        };
        if have == want || want.is_empty() {
            return;
        }
        *spent = spent.saturating_add(self.cost.zk_write_us);
        let s = self.session(broker);
        let r = self
            .zk
            .set_data(s, &isr_path(&tp), &encode_isr(&want), Some(version));
        self.route(self.now_us.saturating_add(*spent));
        match r {
            Ok(stat) => {
                if let Some(b) = self.brokers.get_mut(&broker) {
                    b.isr.insert(tp, (want, stat.version));
                }
            }
            Err(ZkError::BadVersion) => {
                // Someone wrote it since: read it again and retry.
                let _ = self.read_isr(broker, &tp, spent);
                if attempt < MAX_ISR_ATTEMPTS {
                    self.push_front(broker, Step::UpdateIsr(tp, attempt + 1));
                }
            }
            Err(_) => {}
        }
    }
}
