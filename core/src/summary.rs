//! Large clusters at a glance: per-broker counts, one row per partition that
//! a table can window and filter, and the leaders per broker and offline
//! partitions over time. These are Kafka's own health figures (the broker
//! metrics `LeaderCount`, `UnderReplicatedPartitions`,
//! `UnderMinIsrPartitionCount`, the controller's `OfflinePartitionsCount` and
//! `PreferredReplicaImbalanceCount`), computed here so that the page only
//! draws them.
//!
//! [`SummaryCache::refresh`] follows a run forward incrementally: it decodes
//! only the state znodes changed since the last refresh (and rebuilds from
//! ZooKeeper when a topic's assignment or config changed, time went back, or
//! the actions changed). The per-refresh cost is then a pass over the rows
//! with no parsing, however large the cluster.

use crate::controller::states::PartitionState;
use crate::ids::{BrokerId, TopicPartition};
use crate::sim::Sim;
use crate::time::SimTime;
use crate::timeline::Timeline;
use crate::view::ClusterView;
use crate::zk_client::paths;
use crate::znodes::decode_topic_assignment;
use crate::Action;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The largest cluster the page's cluster settings open: Kafka's guideline
/// for a ZooKeeper-era cluster (200,000 partitions; 4,000 per broker with
/// 50 brokers or more), with up to 100 brokers.
pub const MAX_BROKERS: u32 = 100;
/// See [`MAX_BROKERS`].
pub const MAX_PARTITIONS: u64 = 200_000;
/// `kafka-topics.sh --create` in a scenario takes at most this many
/// partitions per topic.
pub const MAX_PARTITIONS_PER_TOPIC: u32 = 100_000;
/// At most this many topics in a sized cluster.
pub const MAX_TOPICS: u32 = 1_000;

/// A partition is under-replicated: its ISR is smaller than its assigned
/// replicas (Kafka's `Partition.isUnderReplicated`).
pub const UNDER_REPLICATED: u8 = 1;
/// Its ISR is smaller than `min.insync.replicas` (`Partition.isUnderMinIsr`).
pub const UNDER_MIN_ISR: u8 = 2;
/// No running broker leads it (the controller's `OfflinePartitionsCount`).
pub const UNAVAILABLE: u8 = 4;
/// It has a leader other than its preferred replica (what
/// `PreferredReplicaImbalanceCount` counts and auto-rebalance corrects).
pub const NOT_PREFERRED: u8 = 8;

/// One partition as the large-cluster table shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionRow {
    /// Index into [`SummaryCache::topics`].
    pub topic: u32,
    /// The partition number.
    pub partition: u32,
    /// Assigned replicas, preferred first, and the ISR from the state
    /// znode ([`PartitionRow::replicas`], [`PartitionRow::isr`]): in place,
    /// 16 bytes, for up to three replicas and an ISR among them (two heap
    /// lists took 22.7 MiB and 400,000 blocks at 200,000 partitions).
    lists: crate::replica_lists::ReplicaLists,
    /// Leader from the state znode.
    pub leader: Option<BrokerId>,
    /// Leader epoch from the state znode (−1 without one).
    pub leader_epoch: i32,
    /// When its state znode last changed.
    pub changed_at_ms: Option<u64>,
    /// [`UNDER_REPLICATED`], [`UNDER_MIN_ISR`], [`UNAVAILABLE`], [`NOT_PREFERRED`].
    pub flags: u8,
}

impl PartitionRow {
    /// Assigned replicas, preferred first.
    pub fn replicas(&self) -> &[BrokerId] {
        self.lists.replicas()
    }

    /// The ISR from the state znode.
    pub fn isr(&self) -> crate::broker::ReplicaIds {
        self.lists.isr()
    }
}

/// One broker's counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokerCounts {
    /// The broker.
    pub id: BrokerId,
    /// Whether its process runs (running or shutting down).
    pub up: bool,
    /// Partitions whose state znode names it leader, while it is up
    /// (`LeaderCount`).
    pub leader: u32,
    /// Replicas it hosts and does not lead, while it is up.
    pub follower: u32,
    /// Replicas it hosts while it is down (Kafka's `OfflineReplica`).
    pub offline: u32,
    /// Partitions it leads whose ISR is short of their replicas
    /// (its `UnderReplicatedPartitions` gauge).
    pub under_replicated: u32,
    /// Partitions it leads whose ISR is short of `min.insync.replicas`
    /// (its `UnderMinIsrPartitionCount` gauge).
    pub under_min_isr: u32,
    /// Partitions whose preferred replica it is (the first of their
    /// assigned replicas), up or down: what it leads once a preferred
    /// replica election (or the auto leader rebalance) has given each
    /// partition back to its preferred replica, with the ISR caught up.
    pub preferred: u32,
}

/// Cluster-wide totals.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// Partitions.
    pub partitions: u32,
    /// Replicas.
    pub replicas: u32,
    /// Partitions with no running leader (`OfflinePartitionsCount`).
    pub offline: u32,
    /// Under-replicated partitions.
    pub under_replicated: u32,
    /// Partitions under `min.insync.replicas`.
    pub under_min_isr: u32,
    /// Partitions led by another than the preferred replica.
    pub not_preferred: u32,
}

/// What the counts are now.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Virtual time in ms.
    pub time_ms: u64,
    /// Per broker, by id.
    pub brokers: Vec<BrokerCounts>,
    /// Cluster-wide.
    pub totals: Totals,
}

impl Counts {
    /// The balanced level of leaders: the fewest and the most partitions
    /// any running broker is the preferred replica of
    /// ([`BrokerCounts::preferred`]; one level when they are equal, as
    /// `kafka-topics.sh --create`'s round robin makes them). Kafka's
    /// preferred replica election and auto leader rebalance move each
    /// partition's leadership back to its preferred replica when it is alive
    /// and in the ISR, so that is what each running broker leads after one;
    /// a dead broker's share stays with the others. `None` with no broker up.
    pub fn balanced_leaders(&self) -> Option<(u32, u32)> {
        let mut up = self.brokers.iter().filter(|b| b.up).map(|b| b.preferred);
        let first = up.next()?;
        Some(up.fold((first, first), |(lo, hi), p| (lo.min(p), hi.max(p))))
    }

    /// Whether the counts add up: every partition is led by one running
    /// broker or offline, and every replica is a leader, a follower or
    /// offline.
    pub fn add_up(&self) -> bool {
        let leaders: u32 = self.brokers.iter().map(|b| b.leader).sum();
        let replicas: u32 = self
            .brokers
            .iter()
            .map(|b| b.leader + b.follower + b.offline)
            .sum();
        leaders + self.totals.offline == self.totals.partitions && replicas == self.totals.replicas
    }
}

/// One moment of the series: leaders per broker (in [`Counts::brokers`]
/// order) and offline partitions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeriesPoint {
    /// Virtual time in ms.
    pub time_ms: u64,
    /// Leaders per broker.
    pub leaders: Vec<u32>,
    /// Offline partitions.
    pub offline: u32,
}

/// At most this many points are kept; past it every other one is dropped.
pub const SERIES_CAP: usize = 2_000;

/// Which rows the table shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Only this topic (index into [`SummaryCache::topics`]).
    pub topic: Option<u32>,
    /// Only partitions with a replica on this broker.
    pub broker: Option<BrokerId>,
    /// Only partitions in this state (as a running controller has it: none
    /// when no running controller knows them).
    pub state: Option<PartitionState>,
    /// Only partitions with all these flags.
    pub flags: u8,
    /// Only partitions whose state znode changed within this many ms.
    pub changed_within_ms: Option<u64>,
}

/// Follows a run and keeps its rows, counts and series.
#[derive(Debug, Clone, Default)]
pub struct SummaryCache {
    /// Topic names, in order.
    pub topics: Vec<String>,
    /// Every partition, in (topic, partition) order.
    pub rows: Vec<PartitionRow>,
    /// The counts at the last refresh.
    pub counts: Counts,
    /// Leaders per broker and offline partitions over time, one point per
    /// refresh at which they changed (a jump forward draws a straight line).
    pub series: Vec<SeriesPoint>,
    /// Changes whenever [`SummaryCache::series`] does (a point added,
    /// replaced or dropped, the series started again): what a drawing of it
    /// depends on.
    pub series_version: u64,
    /// Changes whenever the series changes other than at its end (started
    /// again at a fork, every other point dropped at [`SERIES_CAP`]): while
    /// it stays, the points before the last one are those drawn before, and
    /// a drawing of them may be kept.
    pub series_base: u64,
    /// Whether the series started at an action taken at the present (the
    /// class's first), since it last started again.
    series_from_action: bool,
    /// The most leaders any broker has and the most offline partitions
    /// over the series' first `.0` points (every point but the last, which a
    /// point at its time replaces, or all of them).
    peaks_upto: (usize, (u32, u32)),
    /// Whether [`SummaryCache::topics`] are in name order (as ZooKeeper
    /// lists children), so that a topic is found by bisection.
    sorted: bool,
    /// Each topic's assignment and config znode (mzxid, mzxid).
    signature: Vec<(String, i64, i64)>,
    min_isr: Vec<u64>,
    at: Option<SimTime>,
    /// ZooKeeper's zxid and whether a write was pending at the last refresh:
    /// with neither changed, no state znode can have changed since.
    zk_mark: (i64, bool),
    /// The brokers and whether each was up at the last count.
    brokers: Vec<(BrokerId, bool)>,
    /// Broker id → its place in [`SummaryCache::brokers`].
    slots: Vec<Option<usize>>,
    /// The state znodes as read at the last refresh.
    state_mark: Option<crate::sim::StateMark>,
    actions: Vec<(SimTime, Action)>,
    /// Full rebuilds so far (tests check that following forward needs none).
    pub rebuilds: u64,
    /// Changes with every recount of the rows: what a filter's result
    /// depends on besides the time and the controller's states.
    pub generation: u64,
    /// The running controller's PartitionStateMachine states at the last
    /// refresh (its map's copy, sharing every chunk; none without a running
    /// controller): the state column is of the same moment as the rows,
    /// not of the controller's work in progress (a long event run by pieces
    /// between two refreshes).
    controller_states: Option<crate::partition_map::PartitionMap<PartitionState>>,
}

fn topic_signature(sim: &Sim) -> Vec<(String, i64, i64)> {
    let zk = sim.zk();
    zk.observed_children(paths::TOPICS)
        .map(|t| {
            let m = |p: &str| zk.observed(p).map_or(-1, |n| n.stat.mzxid);
            (
                t.to_string(),
                m(&paths::topic(&t)),
                m(&paths::topic_config(&t)),
            )
        })
        .collect()
}

fn topic_min_isr(sim: &Sim, topic: &str) -> u64 {
    sim.zk()
        .observed(&paths::topic_config(topic))
        .and_then(|n| serde_json::from_str::<serde_json::Value>(&n.data.text()).ok())
        .and_then(|v| {
            v.get("config")?
                .get("min.insync.replicas")
                .and_then(crate::config::parse_u64)
        })
        .unwrap_or(sim.config().min_insync_replicas)
}

/// `peaks` (most leaders of a broker, most offline) with point `p`'s.
fn peaks_with((l, o): (u32, u32), p: &SeriesPoint) -> (u32, u32) {
    (
        l.max(p.leaders.iter().copied().max().unwrap_or(0)),
        o.max(p.offline),
    )
}

impl SummaryCache {
    /// Follow `t` to its current moment.
    pub fn refresh(&mut self, t: &Timeline) {
        self.refresh_sim(t.sim(), t.actions());
    }

    /// Follow `sim` (run with `actions`) to its current moment.
    pub fn refresh_sim(&mut self, sim: &Sim, actions: &[(SimTime, Action)]) {
        let now = sim.now();
        let signature = topic_signature(sim);
        // Actions only added at or after the last look (the page's buttons
        // act now) leave what was followed valid; any other change of the
        // actions (an intervention in the past, an undo) forks the run.
        let appended = |at: SimTime| {
            // Every action followed is still there, in order, and every
            // other is at or after `at`.
            let mut old = self.actions.iter().peekable();
            for a in actions {
                if old.peek() == Some(&a) {
                    old.next();
                } else if a.0 < at {
                    return false;
                }
            }
            old.peek().is_none()
        };
        let same_actions = actions == self.actions.as_slice();
        let fork = self
            .at
            .is_none_or(|at| now < at || (!same_actions && !appended(at)));
        let full = fork || signature != self.signature;
        let mark = (sim.zk().zxid(), sim.zk().has_pending());
        let brokers: Vec<(BrokerId, bool)> =
            sim.brokers().values().map(|b| (b.id, b.is_up())).collect();
        // Broker changes (one started, stopped or died) change every row's
        // counts: then all are counted again, else only the rows read.
        let recount = full || brokers != self.brokers;
        let mut changed = Vec::new();
        // The series is of one run from the class's first action: it starts
        // again where the run forks (acting in the past, an undo) and at the
        // first action taken at the present (a 200,000-partition start-up's
        // 200,000 offline partitions would dwarf a failover's 2,000 on the
        // same scale), not at the later ones, so a failover's shape stays
        // on the chart when the class then shuts a broker down.
        let first_action = !fork && !same_actions && !self.series_from_action;
        if fork || first_action {
            self.series.clear();
            self.peaks_upto = (0, (0, 0));
            self.series_version += 1;
            self.series_base += 1;
            // (Acting in the past or an undo is the class's doing too; a
            // seek back is not.)
            self.series_from_action = self.at.is_some() && !same_actions;
        }
        if !same_actions {
            self.actions = actions.to_vec();
        }
        if full {
            self.rebuild(sim, signature);
            self.state_mark = Some(sim.state_mark());
        } else if mark.0 != self.zk_mark.0 || self.zk_mark.1 {
            // A write was made, or one made earlier may have become visible
            // (`SimEvent::ZkVisible`): read the states changed since, found
            // among the records changed since the last look (not by a walk
            // of every partition).
            let since = self.at.unwrap_or(SimTime(0));
            let found: Vec<(TopicPartition, SimTime)> = sim
                .state_changes_since(self.state_mark.as_ref())
                .filter(|(_, at)| *at >= since)
                .collect();
            for (tp, at) in found {
                if let Some(i) = self.position(&tp) {
                    if !recount {
                        self.count_row(i, false);
                    }
                    self.read_state(sim, i, &tp, Some(at));
                    changed.push(i);
                }
            }
            self.state_mark = Some(sim.state_mark());
        }
        self.zk_mark = mark;
        self.at = Some(now);
        // (A copy only when the states changed since the last one: comparing
        // the chunks' identities walks their list without writing to it.)
        match sim
            .active_controller()
            .map(|b| &b.controller.ctx.partition_states)
        {
            None => self.controller_states = None,
            Some(live) => {
                let same = self
                    .controller_states
                    .as_ref()
                    .is_some_and(|c| c.len() == live.len() && live.unshared_entries(Some(c)) == 0);
                if !same {
                    self.controller_states = Some(live.clone());
                }
            }
        }
        if recount {
            self.brokers = brokers;
            self.generation += 1;
            self.recount(sim);
        } else if !changed.is_empty() {
            for i in changed {
                self.set_flags(i);
                self.count_row(i, true);
            }
            self.generation += 1;
            self.counts.time_ms = now.as_ms();
            self.push_point();
        } else {
            self.counts.time_ms = now.as_ms();
            if self.series.is_empty() {
                // Started again (a fork, the first action): it starts with the
                // counts then.
                self.push_point();
            }
        }
    }

    fn rebuild(&mut self, sim: &Sim, signature: Vec<(String, i64, i64)>) {
        self.rebuilds += 1;
        self.topics.clear();
        self.rows.clear();
        self.min_isr.clear();
        for (ti, (topic, _, _)) in signature.iter().enumerate() {
            self.topics.push(topic.clone());
            self.min_isr.push(topic_min_isr(sim, topic));
            let Some(node) = sim.zk().observed(&paths::topic(topic)) else {
                continue;
            };
            let mut parts = decode_topic_assignment(&node.data.text()).unwrap_or_default();
            // In partition order (the decoder's already), so that the rows
            // are in (topic, partition) order and found by bisection. The
            // crate's sort: a list in order costs one look, and the `.wasm`
            // has no copy of the standard sort for these pairs.
            crate::sort::sort_by_key(&mut parts, |(p, _)| *p);
            for (p, replicas) in parts {
                let tp = TopicPartition::new(topic.as_str(), p);
                let i = self.rows.len();
                self.rows.push(PartitionRow {
                    topic: ti as u32,
                    partition: p,
                    lists: crate::replica_lists::ReplicaLists::new(&replicas, &[]),
                    leader: None,
                    leader_epoch: -1,
                    changed_at_ms: None,
                    flags: 0,
                });
                let changed = sim.state_changed_at(&tp);
                self.read_state(sim, i, &tp, changed);
            }
        }
        self.signature = signature;
        self.sorted = self.topics.is_sorted();
    }

    /// The row of `tp`: the rows are in (topic, partition) order and the
    /// topics in name order, so two bisections find it (the last of equal
    /// rows, should a topic znode name a partition twice), with no index
    /// beside the rows.
    pub fn position(&self, tp: &TopicPartition) -> Option<usize> {
        let name = tp.topic.as_str();
        let ti = if self.sorted {
            self.topics
                .binary_search_by(|t| t.as_str().cmp(name))
                .ok()?
        } else {
            self.topics.iter().position(|t| t == name)?
        } as u32;
        let key = (ti, tp.partition);
        let end = self.rows.partition_point(|r| (r.topic, r.partition) <= key);
        let i = end.checked_sub(1)?;
        let r = self.rows.get(i)?;
        ((r.topic, r.partition) == key).then_some(i)
    }

    /// Where the row `i`'s partition is found (`i`, or a later row of the
    /// same partition).
    fn position_of_row(&self, i: usize) -> Option<usize> {
        let r = self.rows.get(i)?;
        let topic = self.topics.get(r.topic as usize)?;
        self.position(&TopicPartition::new(topic.as_str(), r.partition))
    }

    fn read_state(&mut self, sim: &Sim, i: usize, tp: &TopicPartition, at: Option<SimTime>) {
        let l = sim
            .zk()
            .observed(&paths::partition_state(tp))
            .and_then(|n| n.partition_state());
        let Some(row) = self.rows.get_mut(i) else {
            return;
        };
        let isr = l.as_ref().map_or(&[][..], |l| &l.isr[..]);
        row.lists = crate::replica_lists::ReplicaLists::new(row.replicas(), isr);
        row.leader = l.as_ref().and_then(|l| l.leader);
        row.leader_epoch = l.as_ref().map_or(-1, |l| l.leader_epoch);
        row.changed_at_ms = at.map(|t| t.as_ms());
    }

    /// Flags, states and counts from the rows: one pass, no parsing.
    fn recount(&mut self, sim: &Sim) {
        // Broker id → its place in the counts, by direct index.
        self.slots.clear();
        for (s, (id, _)) in self.brokers.iter().enumerate() {
            let i = id.0 as usize;
            if self.slots.len() <= i {
                self.slots.resize(i + 1, None);
            }
            self.slots[i] = Some(s);
        }
        self.counts = Counts {
            time_ms: sim.now().as_ms(),
            brokers: (self.brokers.iter())
                .map(|(id, up)| BrokerCounts {
                    id: *id,
                    up: *up,
                    leader: 0,
                    follower: 0,
                    offline: 0,
                    under_replicated: 0,
                    under_min_isr: 0,
                    preferred: 0,
                })
                .collect(),
            totals: Totals::default(),
        };
        for i in 0..self.rows.len() {
            self.set_flags(i);
            self.count_row(i, true);
        }
        self.push_point();
    }

    /// The place in the counts of broker `b`'s, and whether it is up.
    fn slot(&self, b: BrokerId) -> Option<(usize, bool)> {
        let s = self.slots.get(b.0 as usize).copied().flatten()?;
        Some((s, self.brokers.get(s)?.1))
    }

    /// Row `i`'s flags from its state, its topic's `min.insync.replicas`
    /// and whether its leader is up.
    fn set_flags(&mut self, i: usize) {
        let available = self.available(i);
        let Some(row) = self.rows.get(i) else { return };
        let min_isr = self.min_isr.get(row.topic as usize).copied().unwrap_or(1);
        let mut flags = 0;
        if row.leader.is_some() && row.lists.isr_len() < row.replicas().len() {
            flags |= UNDER_REPLICATED;
        }
        if row.leader.is_some() && (row.lists.isr_len() as u64) < min_isr {
            flags |= UNDER_MIN_ISR;
        }
        if !available {
            flags |= UNAVAILABLE;
        }
        if row.leader.is_some() && row.leader != row.replicas().first().copied() {
            flags |= NOT_PREFERRED;
        }
        if let Some(row) = self.rows.get_mut(i) {
            row.flags = flags;
        }
    }

    /// Whether row `i`'s leader is a broker that is up.
    fn available(&self, i: usize) -> bool {
        (self.rows.get(i))
            .and_then(|r| r.leader)
            .and_then(|b| self.slot(b))
            .is_some_and(|(_, up)| up)
    }

    /// Add row `i` (its flags set) to the counts, or take it away: a
    /// refresh takes a row's old state away and adds its new one, so the
    /// counts follow the rows read without a pass over them all.
    fn count_row(&mut self, i: usize, add: bool) {
        let leader = self.rows.get(i).and_then(|r| r.leader);
        let leader_slot = leader.and_then(|b| self.slot(b)).map(|(s, _)| s);
        let Some(row) = self.rows.get(i) else { return };
        let flags = row.flags;
        let by = |x: &mut u32, n: u32| {
            *x = if add {
                x.saturating_add(n)
            } else {
                x.saturating_sub(n)
            }
        };
        let bump = |x: &mut u32| by(x, 1);
        let totals = &mut self.counts.totals;
        bump(&mut totals.partitions);
        by(&mut totals.replicas, row.replicas().len() as u32);
        if flags & UNAVAILABLE != 0 {
            bump(&mut totals.offline);
        } else {
            if flags & UNDER_REPLICATED != 0 {
                bump(&mut totals.under_replicated);
            }
            if flags & UNDER_MIN_ISR != 0 {
                bump(&mut totals.under_min_isr);
            }
        }
        if flags & NOT_PREFERRED != 0 {
            bump(&mut totals.not_preferred);
        }
        let preferred = row.replicas().first().and_then(|p| self.slot(*p));
        if let Some(b) = preferred.and_then(|(s, _)| self.counts.brokers.get_mut(s)) {
            bump(&mut b.preferred);
        }
        for r in row.replicas() {
            let Some((s, up)) = self.slot(*r) else {
                continue;
            };
            let Some(b) = self.counts.brokers.get_mut(s) else {
                continue;
            };
            if !up {
                bump(&mut b.offline);
            } else if Some(s) == leader_slot {
                bump(&mut b.leader);
                if flags & UNDER_REPLICATED != 0 {
                    bump(&mut b.under_replicated);
                }
                if flags & UNDER_MIN_ISR != 0 {
                    bump(&mut b.under_min_isr);
                }
            } else {
                bump(&mut b.follower);
            }
        }
    }

    /// The series' point for the counts now (a point at the same time
    /// replaces the last; one equal to the last is not kept).
    fn push_point(&mut self) {
        let point = SeriesPoint {
            time_ms: self.counts.time_ms,
            leaders: self.counts.brokers.iter().map(|b| b.leader).collect(),
            offline: self.counts.totals.offline,
        };
        let before = self.series.len();
        self.series.retain(|p| p.time_ms < point.time_ms);
        let same = self
            .series
            .last()
            .is_some_and(|p| p.leaders == point.leaders && p.offline == point.offline);
        if !same {
            self.series.push(point);
        }
        if !same || self.series.len() != before {
            self.series_version += 1;
        }
        if self.series.len() > SERIES_CAP {
            let last = self.series.pop();
            let mut k = 0;
            self.series.retain(|_| {
                k += 1;
                k % 2 == 1
            });
            self.series.extend(last);
            self.series_base += 1;
            // (A peak may have been among the points dropped.)
            self.peaks_upto = (0, (0, 0));
        }
        // Only the last point is ever replaced: the points before it are
        // folded in once.
        let (mut k, mut peaks) = self.peaks_upto;
        let keep = self.series.len().saturating_sub(1);
        while k < keep {
            if let Some(p) = self.series.get(k) {
                peaks = peaks_with(peaks, p);
            }
            k += 1;
        }
        self.peaks_upto = (k, peaks);
    }

    /// The most leaders any broker has, and the most offline partitions,
    /// at any point of [`SummaryCache::series`] (its scales).
    pub fn series_peaks(&self) -> (u32, u32) {
        let (k, peaks) = self.peaks_upto;
        self.series
            .get(k.min(self.series.len())..)
            .unwrap_or_default()
            .iter()
            .fold(peaks, peaks_with)
    }

    /// The times (ms) of the actions taken in the run the series shows, in
    /// order: from its first point to the last refresh (the chart marks
    /// them; a later one is not yet taken).
    pub fn series_actions(&self) -> impl Iterator<Item = u64> + '_ {
        self.series_marks().map(|(t, _)| t)
    }

    /// The actions of [`SummaryCache::series_actions`] with what each was
    /// (the chart says which: a kill -9, a controlled shutdown, a start, a
    /// preferred election ...), in order.
    pub fn series_marks(&self) -> impl Iterator<Item = (u64, &Action)> + '_ {
        let from = self.series.first().map_or(u64::MAX, |p| p.time_ms);
        let to = self.at.map_or(0, |t| t.as_ms());
        self.actions
            .iter()
            .map(|(t, a)| (t.as_ms(), a))
            .filter(move |(t, _)| (from..=to).contains(t))
    }

    /// The active controller's PartitionStateMachine state of row `i` at
    /// the last refresh (`None` when no running controller knew it: none
    /// was elected, the one `/controller` names was dead or paused, or it
    /// had not read the partition yet).
    pub fn state_of(&self, i: usize) -> Option<PartitionState> {
        let r = self.rows.get(i)?;
        let topic = self.topics.get(r.topic as usize)?;
        let tp = TopicPartition::new(topic.as_str(), r.partition);
        self.controller_states.as_ref()?.get(&tp).copied()
    }

    /// Every row's state, in order (one pass over the controller's states;
    /// `None` as [`SummaryCache::state_of`]).
    fn states(&self) -> Vec<Option<PartitionState>> {
        let mut out = vec![None; self.rows.len()];
        if !self.sorted {
            // (ZooKeeper lists children in name order: not seen.)
            for (i, o) in out.iter_mut().enumerate() {
                if self.position_of_row(i) == Some(i) {
                    *o = self.state_of(i);
                }
            }
            return out;
        }
        if let Some(states) = &self.controller_states {
            // Both in partition order: walk them together.
            let mut it = states.iter().peekable();
            for (i, r) in self.rows.iter().enumerate() {
                let key = (r.topic, r.partition);
                // Of equal rows only the last has a state (as `position`).
                if self
                    .rows
                    .get(i + 1)
                    .is_some_and(|n| (n.topic, n.partition) == key)
                {
                    continue;
                }
                let Some(topic) = self.topics.get(r.topic as usize) else {
                    continue;
                };
                let at = (topic.as_str(), r.partition);
                while it
                    .peek()
                    .is_some_and(|(k, _)| (k.topic.as_str(), k.partition) < at)
                {
                    it.next();
                }
                if let Some((k, s)) = it.peek() {
                    if (k.topic.as_str(), k.partition) == at {
                        if let Some(o) = out.get_mut(i) {
                            *o = Some(**s);
                        }
                    }
                }
            }
        }
        out
    }

    /// The indices of the rows `f` keeps at `now_ms`, in order (the states
    /// walked only when `f` asks for one).
    pub fn filter(&self, f: &Filter, now_ms: u64) -> Vec<u32> {
        let slot = f.broker;
        let states = f.state.map(|_| self.states());
        self.rows
            .iter()
            .enumerate()
            .filter(|(i, r)| {
                f.topic.is_none_or(|t| r.topic == t)
                    && slot.is_none_or(|b| r.replicas().contains(&b))
                    && f.state
                        .is_none_or(|s| states.as_ref().and_then(|v| v.get(*i)) == Some(&Some(s)))
                    && r.flags & f.flags == f.flags
                    && f.changed_within_ms.is_none_or(|w| {
                        r.changed_at_ms
                            .is_some_and(|c| now_ms.saturating_sub(c) <= w)
                    })
            })
            .map(|(i, _)| i as u32)
            .collect()
    }
}

/// The picture of a large cluster without its per-partition parts: the
/// brokers (their leader counts from `counts`), the controller queues, the
/// invariants and the run's totals. `partitions`, `znodes` and `messages`
/// are left empty (O(partitions) each); `topics` has the names only.
pub fn light_view(sim: &Sim, cache: &SummaryCache) -> ClusterView {
    let counts = &cache.counts;
    let brokers = sim
        .brokers()
        .values()
        .map(|b| {
            let c = counts.brokers.iter().find(|c| c.id == b.id);
            let leads = c.map_or(0, |c| c.leader as usize);
            crate::view::broker_view(sim, b, leads, leads)
        })
        .collect();
    let queues = crate::view::queue_views(sim);
    let invariants = crate::view::invariant_views(sim);
    ClusterView {
        time_ms: sim.now().as_ms(),
        controller: sim.controller_id(),
        controller_epoch: sim.controller_epoch(),
        brokers,
        znodes: Vec::new(),
        partitions: Vec::new(),
        topics: cache
            .topics
            .iter()
            .map(|t| crate::view::TopicView {
                name: t.clone(),
                unclean_leader_election_enable: None,
                configs: String::new(),
            })
            .collect(),
        queues,
        messages: Vec::new(),
        invariants,
        unclean_elections: sim.stats().unclean_elections,
        acked_records_lost: sim.stats().acked_records_lost,
        stale_requests_rejected: sim.stats().stale_requests_rejected,
        unclean_enabled: sim.config().unclean_leader_election_enable,
        auto_rebalance_enabled: sim.config().auto_leader_rebalance_enable,
    }
}

/// The shape of a sized cluster (the page's cluster settings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shape {
    /// Brokers, ids 0 to `brokers − 1`.
    pub brokers: u32,
    /// Topics, `t00`, `t01`, …
    pub topics: u32,
    /// Partitions per topic.
    pub partitions: u32,
    /// Replication factor.
    pub replication_factor: u32,
}

/// Why a shape is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ShapeError {
    /// Brokers outside 1 to [`MAX_BROKERS`].
    Brokers(u32),
    /// Topics outside 1 to [`MAX_TOPICS`].
    Topics(u32),
    /// Partitions per topic outside 1 to [`MAX_PARTITIONS_PER_TOPIC`].
    Partitions(u32),
    /// More than [`MAX_PARTITIONS`] partitions in all.
    Total(u64),
    /// Replication factor 0 (Kafka: "Replication factor must be larger than 0.").
    ReplicationFactorZero,
    /// Replication factor above the brokers (Kafka's
    /// `InvalidReplicationFactorException`).
    ReplicationFactor {
        /// Asked for.
        replication_factor: u32,
        /// Brokers available.
        brokers: u32,
    },
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShapeError::Brokers(n) => write!(f, "brokers: {n} is not from 1 to {MAX_BROKERS}"),
            ShapeError::Topics(n) => write!(f, "topics: {n} is not from 1 to {MAX_TOPICS}"),
            ShapeError::Partitions(n) => write!(
                f,
                "partitions per topic: {n} is not from 1 to {MAX_PARTITIONS_PER_TOPIC}"
            ),
            ShapeError::Total(n) => write!(
                f,
                "{n} partitions in all: more than the {MAX_PARTITIONS} Kafka's guideline allows a ZooKeeper-era cluster"
            ),
            ShapeError::ReplicationFactorZero => {
                write!(f, "Replication factor must be larger than 0.")
            }
            ShapeError::ReplicationFactor {
                replication_factor,
                brokers,
            } => write!(
                f,
                "Replication factor: {replication_factor} larger than available brokers: {brokers}."
            ),
        }
    }
}

impl std::error::Error for ShapeError {}

impl Shape {
    /// Check the shape.
    pub fn check(&self) -> Result<(), ShapeError> {
        if !(1..=MAX_BROKERS).contains(&self.brokers) {
            return Err(ShapeError::Brokers(self.brokers));
        }
        if !(1..=MAX_TOPICS).contains(&self.topics) {
            return Err(ShapeError::Topics(self.topics));
        }
        if !(1..=MAX_PARTITIONS_PER_TOPIC).contains(&self.partitions) {
            return Err(ShapeError::Partitions(self.partitions));
        }
        let total = u64::from(self.topics) * u64::from(self.partitions);
        if total > MAX_PARTITIONS {
            return Err(ShapeError::Total(total));
        }
        if self.replication_factor == 0 {
            return Err(ShapeError::ReplicationFactorZero);
        }
        if self.replication_factor > self.brokers {
            return Err(ShapeError::ReplicationFactor {
                replication_factor: self.replication_factor,
                brokers: self.brokers,
            });
        }
        Ok(())
    }

    /// The scenario of this shape: the brokers start together and the
    /// topics are created at 2 s, once they have registered (so each
    /// partition is led by its preferred replica), as the built-in ones are.
    pub fn scenario(&self) -> Result<crate::scenario::Scenario, ShapeError> {
        self.check()?;
        Ok(crate::scenario::Scenario {
            seed: 13,
            brokers: (0..self.brokers).map(BrokerId).collect(),
            config: crate::Config::default(),
            topics: Vec::new(),
            actions: (0..self.topics)
                .map(|i| {
                    (
                        SimTime(2_000),
                        Action::CreateTopic {
                            name: format!("t{i:02}"),
                            assignment: None,
                            partitions: Some(self.partitions),
                            replication_factor: Some(self.replication_factor),
                        },
                    )
                })
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests;
