//! The two designs side by side: the same scenario run by the controller
//! design (the core's [`crate::Sim`]) and by the historical one
//! ([`super::Legacy`]), their ZooKeeper counters and conflicting decisions cut
//! into the same stretches of time, one per moment the user acted.

use super::{is_modelled, Conflict, ConflictTracker, Legacy};
use crate::action::Action;
use crate::broker::BrokerStatus;
use crate::ids::{BrokerId, TopicPartition};
use crate::scenario::Scenario;
use crate::zk::ZkCounters;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// How long both runs go on after the last action (and its session timeout),
/// so that what it set off has played out.
pub const SETTLE_MS: u64 = 10_000;

/// The largest cluster compared: replicas summed over all partitions (the
/// page runs the comparison on a click, and waits for it).
pub const MAX_REPLICAS: usize = 2_000;

/// What one design did to ZooKeeper, and how often it disagreed with itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Watch notifications ZooKeeper fired.
    pub watch_notifications: u64,
    /// ZooKeeper reads (`getData`, `exists`, `getChildren`).
    pub zk_reads: u64,
    /// ZooKeeper writes (create, setData, delete, multi).
    pub zk_writes: u64,
    /// Creates that lost a race (`NodeExists`).
    pub failed_races: u64,
    /// Conditional writes that lost (`BadVersion`), each then retried.
    pub bad_version_retries: u64,
    /// Conflicting decisions that began: two live brokers believing at once
    /// that they lead one partition.
    pub conflicting_decisions: u64,
    /// How long those conflicts lasted, summed (ms; one still going at the
    /// end of the run counts until then).
    pub split_brain_ms: u64,
}

impl Counts {
    fn add_zk(&mut self, d: ZkCounters) {
        self.watch_notifications += d.notifications;
        self.zk_reads += d.reads;
        self.zk_writes += d.writes;
        self.failed_races += d.node_exists;
        self.bad_version_retries += d.bad_version;
    }

    fn add(&mut self, o: &Counts) {
        self.watch_notifications += o.watch_notifications;
        self.zk_reads += o.zk_reads;
        self.zk_writes += o.zk_writes;
        self.failed_races += o.failed_races;
        self.bad_version_retries += o.bad_version_retries;
        self.conflicting_decisions += o.conflicting_decisions;
        self.split_brain_ms += o.split_brain_ms;
    }

    /// ZooKeeper requests: reads and writes.
    pub fn zk_requests(&self) -> u64 {
        self.zk_reads + self.zk_writes
    }
}

fn delta(now: ZkCounters, before: ZkCounters) -> ZkCounters {
    ZkCounters {
        reads: now.reads.saturating_sub(before.reads),
        writes: now.writes.saturating_sub(before.writes),
        notifications: now.notifications.saturating_sub(before.notifications),
        node_exists: now.node_exists.saturating_sub(before.node_exists),
        bad_version: now.bad_version.saturating_sub(before.bad_version),
    }
}

/// One stretch of the run: from one moment the user acted to the next (the
/// first, before any action, is the start-up).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Segment {
    /// Start (ms).
    pub from_ms: u64,
    /// End (ms): the next segment's start, or the end of the run.
    pub to_ms: u64,
    /// The actions at `from_ms` (empty for the start-up).
    pub actions: Vec<Action>,
    /// The historical design's counts in this stretch.
    pub legacy: Counts,
    /// The controller design's counts in this stretch.
    pub controller: Counts,
}

/// The whole comparison, as data: the page and the CLI put it in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Comparison {
    /// The stretches, in time order.
    pub segments: Vec<Segment>,
    /// The historical design's totals.
    pub legacy: Counts,
    /// The controller design's totals.
    pub controller: Counts,
    /// The historical design's conflicting decisions.
    pub legacy_conflicts: Vec<Conflict>,
    /// The controller design's conflicting decisions.
    pub controller_conflicts: Vec<Conflict>,
    /// Actions the historical model does not act on (ms, action): they run
    /// in the controller design only.
    pub not_modelled: Vec<(u64, Action)>,
    /// Where both runs stopped (ms).
    pub until_ms: u64,
    /// Brokers in the cluster.
    pub brokers: usize,
    /// Partitions in the cluster.
    pub partitions: usize,
}

/// Why a comparison was not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum CompareError {
    /// The cluster is larger than the comparison runs.
    #[error("the cluster has {replicas} replicas; the comparison runs up to {max}")]
    TooLarge {
        /// Replicas in the scenario.
        replicas: usize,
        /// [`MAX_REPLICAS`].
        max: usize,
    },
}

/// Where the comparison stops: the last action the historical model acts on
/// (a pause's end included), then a session timeout, then [`SETTLE_MS`].
pub fn until_ms(scenario: &Scenario) -> u64 {
    let last = scenario
        .actions
        .iter()
        .filter(|(_, a)| is_modelled(a))
        .map(|(t, a)| {
            let extra = match a {
                Action::PauseBroker { duration_ms, .. } => *duration_ms,
                _ => 0,
            };
            t.as_ms().saturating_add(extra)
        })
        .max()
        .unwrap_or(0);
    let startup = scenario
        .config
        .sim_broker_startup_ms
        .saturating_add(scenario.config.sim_broker_startup_jitter_ms);
    last.max(startup)
        .saturating_add(scenario.config.zookeeper_session_timeout_ms)
        .saturating_add(SETTLE_MS)
}

/// For each partition, the live processes of the controller design that
/// believe they lead it (their ReplicaManager's view).
fn controller_beliefs(sim: &crate::Sim) -> BTreeMap<TopicPartition, BTreeSet<BrokerId>> {
    let mut out: BTreeMap<TopicPartition, BTreeSet<BrokerId>> = BTreeMap::new();
    for (id, b) in sim.brokers() {
        if b.status == BrokerStatus::Dead {
            continue;
        }
        for (tp, p) in &b.replicas {
            if i64::from(p.leader) == i64::from(id.0) {
                out.entry(tp.clone()).or_default().insert(*id);
            }
        }
    }
    out
}

/// Run the scenario both ways and count.
pub fn compare(scenario: &Scenario) -> Result<Comparison, CompareError> {
    let built = scenario.build();
    let partitions = crate::admin::all_partitions(built.zk());
    let at_start: usize = partitions
        .iter()
        .filter_map(|tp| super::replicas_of(built.zk(), tp).map(|r| r.len()))
        .sum();
    let created: usize = scenario
        .actions
        .iter()
        .map(|(_, a)| match a {
            Action::CreateTopic {
                assignment: Some(a),
                ..
            } => a.iter().map(Vec::len).sum(),
            Action::CreateTopic {
                partitions,
                replication_factor,
                ..
            } => (partitions.unwrap_or(0) as usize)
                .saturating_mul(replication_factor.unwrap_or(0) as usize),
            _ => 0,
        })
        .fold(0, usize::saturating_add);
    let replicas = at_start.saturating_add(created);
    if replicas > MAX_REPLICAS {
        return Err(CompareError::TooLarge {
            replicas,
            max: MAX_REPLICAS,
        });
    }
    let until = until_ms(scenario);

    // The stretches: the start-up, then one per distinct time of an action
    // both designs act on.
    let mut starts: Vec<(u64, Vec<Action>)> = Vec::new();
    for (t, a) in scenario.actions.iter().filter(|(_, a)| is_modelled(a)) {
        match starts.last_mut() {
            Some((last, acts)) if *last == t.as_ms() => acts.push(a.clone()),
            _ => starts.push((t.as_ms(), vec![a.clone()])),
        }
    }
    crate::sort::sort_by_key(&mut starts, |(t, _)| *t);
    if starts.first().is_none_or(|(t, _)| *t > 0) {
        starts.insert(0, (0, Vec::new()));
    }
    let mut segments: Vec<Segment> = starts
        .iter()
        .enumerate()
        .map(|(i, (from, actions))| Segment {
            from_ms: *from,
            to_ms: starts.get(i + 1).map_or(until, |(t, _)| *t).max(*from),
            actions: actions.clone(),
            legacy: Counts::default(),
            controller: Counts::default(),
        })
        .collect();
    let index = |t: u64, segs: &[Segment]| -> usize {
        segs.iter().rposition(|s| s.from_ms <= t).unwrap_or(0)
    };

    // The controller design.
    let mut sim = built;
    let mut before = sim.zk().counters();
    let mut tracker = ConflictTracker::default();
    while sim.next_event_time().is_some_and(|t| t.as_ms() <= until) {
        if !sim.step() {
            break;
        }
        let _ = sim.take_trace();
        let now = sim.now().as_ms();
        let c = sim.zk().counters();
        let i = index(now, &segments);
        let began = tracker.observe(now, &controller_beliefs(&sim));
        if let Some(s) = segments.get_mut(i) {
            s.controller.add_zk(delta(c, before));
            s.controller.conflicting_decisions += began;
        }
        before = c;
    }

    // The historical design.
    let mut legacy = Legacy::new(scenario);
    let mut before = legacy.counters();
    while legacy.next_ms().is_some_and(|t| t <= until) {
        let Some(began) = legacy.step() else {
            break;
        };
        let now = legacy.now_ms();
        let c = legacy.counters();
        let i = index(now, &segments);
        if let Some(s) = segments.get_mut(i) {
            s.legacy.add_zk(delta(c, before));
            s.legacy.conflicting_decisions += began;
        }
        before = c;
    }

    for c in legacy.conflicts() {
        let i = index(c.from_ms, &segments);
        if let Some(s) = segments.get_mut(i) {
            s.legacy.split_brain_ms += c.to_ms.unwrap_or(until).saturating_sub(c.from_ms);
        }
    }
    for c in &tracker.conflicts {
        let i = index(c.from_ms, &segments);
        if let Some(s) = segments.get_mut(i) {
            s.controller.split_brain_ms += c.to_ms.unwrap_or(until).saturating_sub(c.from_ms);
        }
    }
    let mut total_legacy = Counts::default();
    let mut total_controller = Counts::default();
    for s in &segments {
        total_legacy.add(&s.legacy);
        total_controller.add(&s.controller);
    }
    let not_modelled = legacy.not_modelled().to_vec();
    Ok(Comparison {
        segments,
        legacy: total_legacy,
        controller: total_controller,
        legacy_conflicts: legacy.conflicts().to_vec(),
        controller_conflicts: tracker.conflicts,
        not_modelled,
        until_ms: until,
        brokers: scenario.brokers.len(),
        partitions: legacy.partitions(),
    })
}
