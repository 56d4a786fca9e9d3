//! What if: fork a run at a moment into two runs that differ in exactly one
//! setting, play them in step, and compare them as data.
//!
//! Three variations (side A, then side B):
//! - [`Variation::Unclean`]: `unclean.leader.election.enable` set to `false`
//!   versus `true` at the fork, for one topic or as the cluster default,
//!   through the same `set_config` action the page's toggles use.
//! - [`Variation::Kill`]: `kill -9` versus `kill -15` (`kafka-server-stop.sh`,
//!   a controlled shutdown) of the same running broker at the fork.
//! - [`Variation::ZkMode`]: the controller's ZooKeeper access as the run has
//!   it versus the other profile (Kafka 1.1+ `async` against Kafka 1.0
//!   `sync`). `sim.controller.zk.mode` is a static setting, fixed when the
//!   cluster starts, so these two runs differ from time 0, not from the fork:
//!   both are rebuilt from the scenario's start with the same actions.
//!
//! In every variation both runs keep the actions up to the fork and drop the
//! later ones (as acting in the past does on the page): a scripted step after
//! the fork would otherwise act on both runs and could undo the difference
//! (the `unclean-election` scenario turns unclean election on at 30 s).
//!
//! [`compare`] reads two simulations and says, per partition, the leader,
//! ISR, availability and unavailable time in each, the acknowledged records
//! lost and unclean elections in each, and which of these differ.

use crate::action::Action;
use crate::broker::BrokerStatus;
use crate::config::ZkMode;
use crate::fact::Fact;
use crate::ids::{BrokerId, TopicPartition};
use crate::scenario::{Scenario, MAX_TIME_MS};
use crate::sim::Sim;
use crate::time::SimTime;
use crate::timeline::Timeline;
use serde::{Deserialize, Serialize};

/// The config key [`Variation::Unclean`] sets.
pub const UNCLEAN_KEY: &str = "unclean.leader.election.enable";

/// The one setting the two runs differ in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "variation", rename_all = "snake_case")]
pub enum Variation {
    /// `unclean.leader.election.enable` false (A) versus true (B) from the
    /// fork: for `topic` (a topic override), or the cluster default.
    Unclean {
        /// The topic, or `None` for the cluster-wide default.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        topic: Option<String>,
    },
    /// The controller's ZooKeeper access: the run's own profile (A) versus
    /// the other one (B), from time 0.
    ZkMode,
    /// `kill -9` (A) versus `kill -15` (B) of `broker` at the fork.
    Kill {
        /// The broker.
        broker: BrokerId,
    },
}

/// What one side runs with, for the page to label it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "setting", rename_all = "snake_case")]
pub enum Setting {
    /// `unclean.leader.election.enable` as set at the fork.
    Unclean {
        /// The topic, `None` for the cluster default.
        topic: Option<String>,
        /// The value.
        enabled: bool,
    },
    /// The controller's ZooKeeper access profile (from time 0).
    ZkMode {
        /// The profile.
        mode: ZkMode,
    },
    /// `kill -9` of the broker at the fork.
    Kill9 {
        /// The broker.
        broker: BrokerId,
    },
    /// `kill -15` (controlled shutdown) of the broker at the fork.
    Kill15 {
        /// The broker.
        broker: BrokerId,
    },
}

/// Why a what-if could not be built; nothing is changed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WhatIfError {
    /// The fork is past the longest run a scenario may have.
    #[error("cannot fork at {at} ms: the latest moment is {max} ms")]
    TooLate {
        /// The moment asked for.
        at: u64,
        /// The limit.
        max: u64,
    },
    /// No such broker.
    #[error("no broker {0} in this cluster")]
    UnknownBroker(BrokerId),
    /// The broker is not running at the fork, so it cannot be killed or stopped.
    #[error(
        "broker {broker} is {status} at {at} ms, not running: there is nothing to kill or stop"
    )]
    BrokerNotRunning {
        /// The broker.
        broker: BrokerId,
        /// Its status (`dead`, `paused`, `starting`, `shutting_down`).
        status: String,
        /// The fork.
        at: u64,
    },
    /// No such topic at the fork.
    #[error("no topic {topic:?} at {at} ms")]
    UnknownTopic {
        /// The topic.
        topic: String,
        /// The fork.
        at: u64,
    },
    /// The cluster refused the variation's action in one run.
    #[error("side {side} refused {action}: {}", .fact.english())]
    Refused {
        /// `A` or `B`.
        side: char,
        /// The action, as [`Action::describe`] says it.
        action: String,
        /// How the cluster answered.
        fact: Box<Fact>,
    },
}

/// Two runs forked at one moment, played in step.
#[derive(Debug, Clone)]
pub struct WhatIf {
    variation: Variation,
    at: SimTime,
    a: Timeline,
    b: Timeline,
    settings: [Setting; 2],
}

impl WhatIf {
    /// Fork `timeline` at `at` into two runs differing in `variation`.
    /// `start` is the scenario the timeline was built from (its seed,
    /// brokers, configuration and topics; its actions are not used: the
    /// timeline's are); only [`Variation::ZkMode`] rebuilds from it. Both
    /// runs end up at `at`. An invalid variation is an error naming what is
    /// wrong, and `timeline` is never changed.
    pub fn fork(
        start: &Scenario,
        timeline: &Timeline,
        at: SimTime,
        variation: Variation,
    ) -> Result<WhatIf, WhatIfError> {
        if at.as_ms() > MAX_TIME_MS {
            return Err(WhatIfError::TooLate {
                at: at.as_ms(),
                max: MAX_TIME_MS,
            });
        }
        let mut base = timeline.clone();
        base.seek(at);
        let (a, b, settings) = match &variation {
            Variation::Unclean { topic } => {
                if let Some(t) = topic {
                    if !base
                        .sim()
                        .partition_overview()
                        .iter()
                        .any(|p| p.tp.topic == t)
                    {
                        return Err(WhatIfError::UnknownTopic {
                            topic: t.clone(),
                            at: at.as_ms(),
                        });
                    }
                }
                let set = |enabled: bool| Action::SetConfig {
                    key: UNCLEAN_KEY.to_string(),
                    value: serde_json::Value::Bool(enabled),
                    topic: topic.clone(),
                };
                let setting = |enabled| Setting::Unclean {
                    topic: topic.clone(),
                    enabled,
                };
                let (a, b) = act_both(base, at, set(false), set(true))?;
                (a, b, [setting(false), setting(true)])
            }
            Variation::Kill { broker } => {
                let status = base
                    .sim()
                    .brokers()
                    .get(broker)
                    .map(|b| b.status)
                    .ok_or(WhatIfError::UnknownBroker(*broker))?;
                if status != BrokerStatus::Running {
                    return Err(WhatIfError::BrokerNotRunning {
                        broker: *broker,
                        status: status.as_str().to_string(),
                        at: at.as_ms(),
                    });
                }
                let (a, b) = act_both(
                    base,
                    at,
                    Action::KillBroker { broker: *broker },
                    Action::ShutdownBroker { broker: *broker },
                )?;
                (
                    a,
                    b,
                    [
                        Setting::Kill9 { broker: *broker },
                        Setting::Kill15 { broker: *broker },
                    ],
                )
            }
            Variation::ZkMode => {
                let mine = base.sim().config().sim_controller_zk_mode;
                let other = match mine {
                    ZkMode::Async => ZkMode::Sync,
                    ZkMode::Sync => ZkMode::Async,
                };
                let run = |mode: ZkMode| {
                    let mut s = start.clone();
                    s.config.sim_controller_zk_mode = mode;
                    s.actions = base
                        .actions()
                        .iter()
                        .filter(|(t, _)| *t <= at)
                        .cloned()
                        .collect();
                    let mut t = Timeline::new(&s);
                    t.seek(at);
                    t
                };
                (
                    run(mine),
                    run(other),
                    [
                        Setting::ZkMode { mode: mine },
                        Setting::ZkMode { mode: other },
                    ],
                )
            }
        };
        Ok(WhatIf {
            variation,
            at,
            a,
            b,
            settings,
        })
    }

    /// The variation.
    pub fn variation(&self) -> &Variation {
        &self.variation
    }

    /// The moment of the fork.
    pub fn at(&self) -> SimTime {
        self.at
    }

    /// Side A (as is: unclean off, kill -9, the run's own ZooKeeper access).
    pub fn a(&self) -> &Timeline {
        &self.a
    }

    /// Side B (the variation).
    pub fn b(&self) -> &Timeline {
        &self.b
    }

    /// What each side runs with.
    pub fn settings(&self) -> &[Setting; 2] {
        &self.settings
    }

    /// Now (both runs are always at the same moment).
    pub fn now(&self) -> SimTime {
        self.a.now()
    }

    /// Move both runs to `t`.
    pub fn seek(&mut self, t: SimTime) {
        self.a.seek(t);
        self.b.seek(t);
    }

    /// Move both runs to the next moment either has something to do; false
    /// when neither has anything left.
    pub fn step(&mut self) -> bool {
        let next = match (
            self.a.sim().next_event_time(),
            self.b.sim().next_event_time(),
        ) {
            (Some(x), Some(y)) => x.min(y),
            (Some(x), None) | (None, Some(x)) => x,
            (None, None) => return false,
        };
        self.seek(next.max(self.now()));
        true
    }

    /// The two runs compared now.
    pub fn comparison(&self) -> Comparison {
        let mut c = compare(self.a.sim(), self.b.sim());
        c.at_ms = self.at.as_ms();
        c.settings = self.settings.to_vec();
        c
    }
}

/// Add `a` to one copy of `base` and `b` to another, both at `at`, dropping
/// the later actions; an action the cluster refuses is an error.
fn act_both(
    base: Timeline,
    at: SimTime,
    a: Action,
    b: Action,
) -> Result<(Timeline, Timeline), WhatIfError> {
    let mut ta = base.clone();
    let mut tb = base;
    for (side, t, action) in [('A', &mut ta, a), ('B', &mut tb, b)] {
        let described = action.describe();
        let name = action.name();
        t.intervene(at, action).map_err(|e| match e {
            crate::sim::ActionError::UnknownBroker(b) => WhatIfError::UnknownBroker(b),
            other => WhatIfError::Refused {
                side,
                action: described.clone(),
                fact: Box::new(Fact::Text(other.to_string())),
            },
        })?;
        if let Some(r) = crate::trace::refusal(t.trace(), at.as_ms(), name) {
            return Err(WhatIfError::Refused {
                side,
                action: described,
                fact: Box::new(r.fact().into_owned()),
            });
        }
    }
    Ok((ta, tb))
}

/// One partition in one run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionCell {
    /// The leader in its state znode.
    pub leader: Option<BrokerId>,
    /// The ISR in its state znode.
    pub isr: Vec<BrokerId>,
    /// Whether a running broker leads it now.
    pub available: bool,
    /// Time without a serving leader so far.
    pub unavailable_ms: u64,
}

/// One partition in both runs (`None`: the partition does not exist in that run).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionRow {
    /// The partition.
    pub tp: TopicPartition,
    /// Its replicas (AR) in run A, else in run B.
    pub replicas: Vec<BrokerId>,
    /// In run A.
    pub a: Option<PartitionCell>,
    /// In run B.
    pub b: Option<PartitionCell>,
    /// The leaders differ (or the partition exists in one run only).
    pub leader_differs: bool,
    /// The ISRs differ.
    pub isr_differs: bool,
    /// One run serves it and the other does not.
    pub available_differs: bool,
    /// The unavailable times differ.
    pub unavailable_differs: bool,
}

/// One broker in both runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokerRow {
    /// The broker.
    pub id: BrokerId,
    /// Its status in run A (`running`, `dead`, …; `None`: not in that run).
    pub a: Option<String>,
    /// Its status in run B.
    pub b: Option<String>,
    /// The statuses differ.
    pub differs: bool,
}

/// One run's totals.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SideSummary {
    /// `/controller`'s broker.
    pub controller: Option<BrokerId>,
    /// Unavailable time summed over all partitions, so far.
    pub unavailable_ms: u64,
    /// Acknowledged records lost so far.
    pub acked_records_lost: u64,
    /// Unclean leader elections so far.
    pub unclean_elections: u64,
}

/// Which totals differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Differs {
    /// `/controller` names different brokers.
    pub controller: bool,
    /// Summed unavailable time.
    pub unavailable_ms: bool,
    /// Acknowledged records lost.
    pub acked_records_lost: bool,
    /// Unclean elections.
    pub unclean_elections: bool,
}

/// Two runs compared at one moment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Comparison {
    /// Now (run A's time; a [`WhatIf`] keeps both at the same moment).
    pub time_ms: u64,
    /// The fork (0 from [`compare`] alone).
    pub at_ms: u64,
    /// What each side runs with (empty from [`compare`] alone).
    pub settings: Vec<Setting>,
    /// Brokers in id order.
    pub brokers: Vec<BrokerRow>,
    /// Partitions in topic, partition order.
    pub partitions: Vec<PartitionRow>,
    /// Run A's totals.
    pub a: SideSummary,
    /// Run B's totals.
    pub b: SideSummary,
    /// Which totals differ.
    pub differs: Differs,
}

impl Comparison {
    /// Whether anything shown differs.
    pub fn any_difference(&self) -> bool {
        let d = self.differs;
        d.controller
            || d.unavailable_ms
            || d.acked_records_lost
            || d.unclean_elections
            || self.brokers.iter().any(|b| b.differs)
            || self.partitions.iter().any(|p| {
                p.leader_differs || p.isr_differs || p.available_differs || p.unavailable_differs
            })
    }
}

/// Each partition's replicas and cell, by partition, one entry per partition
/// (the last one if the overview named a partition twice, as a map would keep).
type Cells = Vec<(TopicPartition, (Vec<BrokerId>, PartitionCell))>;

fn cells(sim: &Sim) -> Cells {
    let mut out: Cells = sim
        .partition_overview()
        .into_iter()
        .map(|p| {
            let cell = PartitionCell {
                leader: p.leader,
                isr: p.isr.clone(),
                available: sim.is_available(&p.tp),
                unavailable_ms: sim.unavailable_ms(&p.tp),
            };
            (p.tp, (p.replicas, cell))
        })
        .collect();
    crate::sort::sort_by(&mut out, |x, y| x.0.cmp(&y.0));
    // Keep the last of equal partitions (stable sort: the last one given).
    out.reverse();
    out.dedup_by(|later, earlier| later.0 == earlier.0);
    out.reverse();
    out
}

fn summary(sim: &Sim) -> SideSummary {
    SideSummary {
        controller: sim.controller_id(),
        unavailable_ms: sim.total_unavailable_ms(),
        acked_records_lost: sim.stats().acked_records_lost,
        unclean_elections: sim.stats().unclean_elections,
    }
}

/// Compare two runs as they are now: per broker and per partition, each run's
/// values and whether they differ, and each run's totals.
pub fn compare(a: &Sim, b: &Sim) -> Comparison {
    // Both lists are sorted by partition: walk them together, one row per
    // partition either run has.
    let mut pa = cells(a).into_iter().peekable();
    let mut pb = cells(b).into_iter().peekable();
    let mut partitions = Vec::new();
    loop {
        let (ea, eb) = match (pa.peek(), pb.peek()) {
            (None, None) => break,
            (Some(_), None) => (pa.next(), None),
            (None, Some(_)) => (None, pb.next()),
            (Some(x), Some(y)) => match x.0.cmp(&y.0) {
                std::cmp::Ordering::Less => (pa.next(), None),
                std::cmp::Ordering::Greater => (None, pb.next()),
                std::cmp::Ordering::Equal => (pa.next(), pb.next()),
            },
        };
        let (tp, (ra, ca), (rb, cb)) = match (ea, eb) {
            (Some((tp, (r, c))), Some((_, (r2, c2)))) => {
                (tp, (Some(r), Some(c)), (Some(r2), Some(c2)))
            }
            (Some((tp, (r, c))), None) => (tp, (Some(r), Some(c)), (None, None)),
            (None, Some((tp, (r, c)))) => (tp, (None, None), (Some(r), Some(c))),
            (None, None) => break,
        };
        let (xa, xb) = (ca.as_ref(), cb.as_ref());
        partitions.push(PartitionRow {
            replicas: ra.or(rb).unwrap_or_default(),
            leader_differs: xa.map(|c| c.leader) != xb.map(|c| c.leader),
            isr_differs: xa.map(|c| &c.isr) != xb.map(|c| &c.isr),
            available_differs: xa.map(|c| c.available) != xb.map(|c| c.available),
            unavailable_differs: xa.map(|c| c.unavailable_ms) != xb.map(|c| c.unavailable_ms),
            a: ca,
            b: cb,
            tp,
        });
    }
    let mut ids: Vec<BrokerId> = a
        .brokers()
        .keys()
        .chain(b.brokers().keys())
        .copied()
        .collect();
    crate::sort::sort(&mut ids);
    ids.dedup();
    let brokers = ids
        .into_iter()
        .map(|id| {
            let sa = a.brokers().get(&id).map(|x| x.status.as_str().to_string());
            let sb = b.brokers().get(&id).map(|x| x.status.as_str().to_string());
            BrokerRow {
                id,
                differs: sa != sb,
                a: sa,
                b: sb,
            }
        })
        .collect();
    let (sa, sb) = (summary(a), summary(b));
    let differs = Differs {
        controller: sa.controller != sb.controller,
        unavailable_ms: sa.unavailable_ms != sb.unavailable_ms,
        acked_records_lost: sa.acked_records_lost != sb.acked_records_lost,
        unclean_elections: sa.unclean_elections != sb.unclean_elections,
    };
    Comparison {
        time_ms: a.now().as_ms(),
        at_ms: 0,
        settings: Vec::new(),
        brokers,
        partitions,
        a: sa,
        b: sb,
        differs,
    }
}

#[cfg(test)]
mod tests;
