//! Checkpoint conditions: declarative tests of the simulated cluster, read
//! from what the page shows ([`ClusterView`]) and the trace up to the time
//! cursor. Each is a JSON object with one key (`{"controller_epoch_at_least":
//! 2}`); `all`, `any` and `not` combine them.

use super::{check_broker, check_topic, parse_tp, LessonError};
use crate::controller::states::PartitionState;
use crate::ids::{BrokerId, TopicPartition};
use crate::scenario::{bad, broker_id, err, known_keys, missing, object};
use crate::trace::Records;
use crate::view::ClusterView;
use serde_json::{Map, Value};

/// A checkpoint: a condition on the cluster at the time cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    /// Every one holds.
    All(Vec<Condition>),
    /// At least one holds.
    Any(Vec<Condition>),
    /// It does not hold.
    Not(Box<Condition>),
    /// `/controller_epoch` (as observers see it) is at least this.
    ControllerEpochAtLeast(i32),
    /// `/controller` names this broker (`None`: no `/controller` znode).
    Controller(Option<BrokerId>),
    /// The broker `/controller` names is in this state (false without
    /// `/controller`): `{"controller_status": "dead"}` holds once the
    /// controller is killed, until its session expires.
    ControllerStatus(String),
    /// A broker's process is in this state (`starting`, `running`,
    /// `shutting_down`, `paused`, `dead`).
    BrokerStatus {
        /// The broker.
        broker: BrokerId,
        /// The state, as [`crate::broker::BrokerStatus::as_str`] spells it.
        status: String,
    },
    /// The partition's leader in ZooKeeper (`None`: no leader, −1).
    Leader {
        /// The partition.
        partition: TopicPartition,
        /// The leader.
        broker: Option<BrokerId>,
    },
    /// The partition's ISR in ZooKeeper is exactly this (in any order).
    Isr {
        /// The partition.
        partition: TopicPartition,
        /// The replicas.
        replicas: Vec<BrokerId>,
    },
    /// The active controller's state for the partition.
    PartitionState {
        /// The partition.
        partition: TopicPartition,
        /// The state.
        state: PartitionState,
    },
    /// Whether a running broker serves as the partition's leader.
    Available {
        /// The partition.
        partition: TopicPartition,
        /// Available or not.
        available: bool,
    },
    /// The partition's high watermark (as its leader knows it) is at least
    /// this: the records before it are committed, so `acks=all` producers
    /// have their acknowledgement.
    HighWatermarkAtLeast {
        /// The partition.
        partition: TopicPartition,
        /// The offset.
        offset: u64,
    },
    /// The partition's leader epoch in ZooKeeper is at least this.
    LeaderEpochAtLeast {
        /// The partition.
        partition: TopicPartition,
        /// The epoch.
        epoch: i32,
    },
    /// At least `at_least` trace records up to now match: this kind, from
    /// this actor (`user`, `zk`, `broker-<id>`, `controller-<id>`) if given,
    /// whose English sentence contains this text if given.
    Trace {
        /// The trace kind.
        kind: String,
        /// The actor.
        actor: Option<String>,
        /// Text the English sentence contains.
        contains: Option<String>,
        /// How many.
        at_least: usize,
    },
    /// Acknowledged records lost, at least this many.
    RecordsLostAtLeast(u64),
    /// Unclean leader elections made, at least this many.
    UncleanElectionsAtLeast(u64),
    /// Requests brokers rejected for a stale controller epoch, at least this many.
    StaleRequestsRejectedAtLeast(u64),
    /// The znode exists.
    ZnodeExists(String),
    /// The znode does not exist.
    ZnodeAbsent(String),
    /// The znode exists and its data contains this text.
    ZnodeDataContains {
        /// The path.
        path: String,
        /// The text.
        text: String,
    },
    /// Some controller's event queue (this broker's, if given) holds at least
    /// this many events waiting behind the one being processed.
    QueueWaitingAtLeast {
        /// The broker.
        broker: Option<BrokerId>,
        /// How many.
        events: usize,
    },
    /// Virtual time is at least this.
    TimeAtLeastMs(u64),
}

/// The condition names a lesson file may use.
pub const NAMES: &[&str] = &[
    "all",
    "any",
    "not",
    "controller_epoch_at_least",
    "controller",
    "controller_status",
    "broker_status",
    "leader",
    "isr",
    "partition_state",
    "available",
    "leader_epoch_at_least",
    "high_watermark_at_least",
    "trace",
    "records_lost_at_least",
    "unclean_elections_at_least",
    "stale_requests_rejected_at_least",
    "znode_exists",
    "znode_absent",
    "znode_data_contains",
    "queue_waiting_at_least",
    "time_at_least_ms",
];

const STATUSES: &[&str] = &["starting", "running", "shutting_down", "paused", "dead"];

impl Condition {
    /// Whether evaluating it reads the cluster view (every condition but
    /// `trace` does), so a caller may skip building a fresh view.
    pub fn reads_view(&self) -> bool {
        match self {
            Condition::All(cs) | Condition::Any(cs) => cs.iter().any(Condition::reads_view),
            Condition::Not(c) => c.reads_view(),
            Condition::Trace { .. } => false,
            _ => true,
        }
    }

    /// Whether its answer can change with the clock alone, no event having
    /// run (`time_at_least_ms`).
    pub fn reads_time(&self) -> bool {
        match self {
            Condition::All(cs) | Condition::Any(cs) => cs.iter().any(Condition::reads_time),
            Condition::Not(c) => c.reads_time(),
            Condition::TimeAtLeastMs(_) => true,
            _ => false,
        }
    }

    /// Whether it holds for this view of the cluster and this trace (the
    /// trace up to the view's time).
    pub fn holds(&self, view: &ClusterView, trace: &Records) -> bool {
        let part = |tp: &TopicPartition| view.partitions.iter().find(|p| p.overview.tp == *tp);
        match self {
            Condition::All(cs) => cs.iter().all(|c| c.holds(view, trace)),
            Condition::Any(cs) => cs.iter().any(|c| c.holds(view, trace)),
            Condition::Not(c) => !c.holds(view, trace),
            Condition::ControllerEpochAtLeast(e) => view.controller_epoch >= *e,
            Condition::Controller(b) => view.controller == *b,
            Condition::ControllerStatus(status) => view.controller.is_some_and(|c| {
                view.brokers
                    .iter()
                    .any(|b| b.id == c && b.status == *status)
            }),
            Condition::BrokerStatus { broker, status } => view
                .brokers
                .iter()
                .any(|b| b.id == *broker && b.status == *status),
            Condition::Leader { partition, broker } => {
                part(partition).is_some_and(|p| p.overview.leader == *broker)
            }
            Condition::Isr {
                partition,
                replicas,
            } => part(partition).is_some_and(|p| {
                let mut a = p.overview.isr.clone();
                let mut b = replicas.clone();
                crate::sort::sort(&mut a);
                crate::sort::sort(&mut b);
                a == b
            }),
            Condition::PartitionState { partition, state } => {
                part(partition).is_some_and(|p| p.overview.state == *state)
            }
            Condition::Available {
                partition,
                available,
            } => part(partition).is_some_and(|p| p.available == *available),
            Condition::HighWatermarkAtLeast { partition, offset } => {
                part(partition).is_some_and(|p| p.high_watermark >= *offset)
            }
            Condition::LeaderEpochAtLeast { partition, epoch } => {
                part(partition).is_some_and(|p| p.overview.leader_epoch >= *epoch)
            }
            Condition::Trace {
                kind,
                actor,
                contains,
                at_least,
            } => {
                trace
                    .iter()
                    .filter(|r| {
                        r.kind == *kind
                            && actor.as_ref().is_none_or(|a| r.actor == *a)
                            && contains
                                .as_ref()
                                .is_none_or(|t| r.details().contains(t.as_str()))
                    })
                    .take(*at_least)
                    .count()
                    >= *at_least
            }
            Condition::RecordsLostAtLeast(n) => view.acked_records_lost >= *n,
            Condition::UncleanElectionsAtLeast(n) => view.unclean_elections >= *n,
            Condition::StaleRequestsRejectedAtLeast(n) => view.stale_requests_rejected >= *n,
            Condition::ZnodeExists(p) => view.znode(p).is_some(),
            Condition::ZnodeAbsent(p) => view.znode(p).is_none(),
            Condition::ZnodeDataContains { path, text } => view
                .znode(path)
                .is_some_and(|z| z.data.contains(text.as_str())),
            Condition::QueueWaitingAtLeast { broker, events } => view
                .queues
                .iter()
                .any(|q| broker.is_none_or(|b| q.broker == b) && q.waiting.len() >= *events),
            Condition::TimeAtLeastMs(t) => view.time_ms >= *t,
        }
    }

    /// Parse one condition (`f` is its field path, for errors).
    pub(crate) fn parse(
        v: &Value,
        f: &str,
        brokers: &[BrokerId],
        topics: &[String],
    ) -> Result<Condition, LessonError> {
        let o = object(v, f)?;
        if o.len() != 1 {
            return err(
                f,
                format!(
                    "a condition is an object with exactly one key, one of {}",
                    NAMES.join(", ")
                ),
            );
        }
        let Some((key, arg)) = o.iter().next() else {
            return Err(missing(f));
        };
        let fk = format!("{f}.{key}");
        let list = |arg: &Value| -> Result<Vec<Condition>, LessonError> {
            let a = arg
                .as_array()
                .filter(|a| !a.is_empty())
                .ok_or_else(|| bad(&fk, "a non-empty list of conditions", arg))?;
            a.iter()
                .enumerate()
                .map(|(i, c)| Condition::parse(c, &format!("{fk}[{i}]"), brokers, topics))
                .collect()
        };
        let count = |arg: &Value| -> Result<u64, LessonError> {
            arg.as_u64()
                .ok_or_else(|| bad(&fk, "a non-negative whole number", arg))
        };
        let broker = |v: &Value, field: &str| -> Result<BrokerId, LessonError> {
            let b = broker_id(v, field)?;
            check_broker(b, brokers, field)?;
            Ok(b)
        };
        let args = |keys: &[&str]| -> Result<&Map<String, Value>, LessonError> {
            let m = object(arg, &fk)?;
            known_keys(m, &fk, keys)?;
            Ok(m)
        };
        let get = |m: &'_ Map<String, Value>, k: &str| -> Result<Value, LessonError> {
            m.get(k)
                .cloned()
                .ok_or_else(|| missing(&format!("{fk}.{k}")))
        };
        let partition = |m: &Map<String, Value>| -> Result<TopicPartition, LessonError> {
            let fp = format!("{fk}.partition");
            let pv = get(m, "partition")?;
            let tp = pv
                .as_str()
                .and_then(parse_tp)
                .ok_or_else(|| bad(&fp, "a partition as <topic>-<n>", &pv))?;
            check_topic(&tp, topics, &fp)?;
            Ok(tp)
        };
        let path = |v: &Value, field: &str| -> Result<String, LessonError> {
            v.as_str()
                .filter(|p| p.starts_with('/'))
                .map(str::to_string)
                .ok_or_else(|| bad(field, "a znode path starting with /", v))
        };
        let text = |v: &Value, field: &str| -> Result<String, LessonError> {
            v.as_str()
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .ok_or_else(|| bad(field, "a non-empty string", v))
        };
        Ok(match key.as_str() {
            "all" => Condition::All(list(arg)?),
            "any" => Condition::Any(list(arg)?),
            "not" => Condition::Not(Box::new(Condition::parse(arg, &fk, brokers, topics)?)),
            "controller_epoch_at_least" => Condition::ControllerEpochAtLeast(
                i32::try_from(count(arg)?).or_else(|_| err(&fk, "too large"))?,
            ),
            "controller" => Condition::Controller(match arg {
                Value::Null => None,
                b => Some(broker(b, &fk)?),
            }),
            "controller_status" => Condition::ControllerStatus(
                arg.as_str()
                    .filter(|s| STATUSES.contains(s))
                    .ok_or_else(|| bad(&fk, &format!("one of {}", STATUSES.join(", ")), arg))?
                    .to_string(),
            ),
            "broker_status" => {
                let m = args(&["broker", "status"])?;
                let status = get(m, "status")?;
                let s = status
                    .as_str()
                    .filter(|s| STATUSES.contains(s))
                    .ok_or_else(|| {
                        bad(
                            &format!("{fk}.status"),
                            &format!("one of {}", STATUSES.join(", ")),
                            &status,
                        )
                    })?;
                Condition::BrokerStatus {
                    broker: broker(&get(m, "broker")?, &format!("{fk}.broker"))?,
                    status: s.to_string(),
                }
            }
            "leader" => {
                let m = args(&["partition", "broker"])?;
                Condition::Leader {
                    partition: partition(m)?,
                    broker: match get(m, "broker")? {
                        Value::Null => None,
                        b => Some(broker(&b, &format!("{fk}.broker"))?),
                    },
                }
            }
            "isr" => {
                let m = args(&["partition", "replicas"])?;
                let fr = format!("{fk}.replicas");
                let rv = get(m, "replicas")?;
                let replicas = rv
                    .as_array()
                    .ok_or_else(|| bad(&fr, "a list of broker ids", &rv))?
                    .iter()
                    .enumerate()
                    .map(|(i, b)| broker(b, &format!("{fr}[{i}]")))
                    .collect::<Result<Vec<_>, _>>()?;
                Condition::Isr {
                    partition: partition(m)?,
                    replicas,
                }
            }
            "partition_state" => {
                let m = args(&["partition", "state"])?;
                let sv = get(m, "state")?;
                let state = PartitionState::ALL
                    .into_iter()
                    .find(|s| sv.as_str() == Some(s.name()))
                    .ok_or_else(|| {
                        bad(
                            &format!("{fk}.state"),
                            "NewPartition, OnlinePartition, OfflinePartition or NonExistentPartition",
                            &sv,
                        )
                    })?;
                Condition::PartitionState {
                    partition: partition(m)?,
                    state,
                }
            }
            "available" => {
                let m = args(&["partition", "available"])?;
                let av = get(m, "available")?;
                Condition::Available {
                    partition: partition(m)?,
                    available: av
                        .as_bool()
                        .ok_or_else(|| bad(&format!("{fk}.available"), "true or false", &av))?,
                }
            }
            "leader_epoch_at_least" => {
                let m = args(&["partition", "epoch"])?;
                let ev = get(m, "epoch")?;
                Condition::LeaderEpochAtLeast {
                    partition: partition(m)?,
                    epoch: ev
                        .as_u64()
                        .and_then(|e| i32::try_from(e).ok())
                        .ok_or_else(|| bad(&format!("{fk}.epoch"), "a leader epoch", &ev))?,
                }
            }
            "high_watermark_at_least" => {
                let m = args(&["partition", "offset"])?;
                let ov = get(m, "offset")?;
                Condition::HighWatermarkAtLeast {
                    partition: partition(m)?,
                    offset: ov
                        .as_u64()
                        .ok_or_else(|| bad(&format!("{fk}.offset"), "an offset", &ov))?,
                }
            }
            "trace" => {
                let m = args(&["kind", "actor", "contains", "at_least"])?;
                let kind = text(&get(m, "kind")?, &format!("{fk}.kind"))?;
                let actor = match m.get("actor") {
                    None => None,
                    Some(a) => Some(text(a, &format!("{fk}.actor"))?),
                };
                let contains = match m.get("contains") {
                    None => None,
                    Some(a) => Some(text(a, &format!("{fk}.contains"))?),
                };
                let at_least = match m.get("at_least") {
                    None => 1,
                    Some(n) => n
                        .as_u64()
                        .filter(|n| (1..=1_000_000).contains(n))
                        .ok_or_else(|| bad(&format!("{fk}.at_least"), "a count from 1", n))?
                        as usize,
                };
                Condition::Trace {
                    kind,
                    actor,
                    contains,
                    at_least,
                }
            }
            "records_lost_at_least" => Condition::RecordsLostAtLeast(count(arg)?),
            "unclean_elections_at_least" => Condition::UncleanElectionsAtLeast(count(arg)?),
            "stale_requests_rejected_at_least" => {
                Condition::StaleRequestsRejectedAtLeast(count(arg)?)
            }
            "znode_exists" => Condition::ZnodeExists(path(arg, &fk)?),
            "znode_absent" => Condition::ZnodeAbsent(path(arg, &fk)?),
            "znode_data_contains" => {
                let m = args(&["path", "text"])?;
                Condition::ZnodeDataContains {
                    path: path(&get(m, "path")?, &format!("{fk}.path"))?,
                    text: text(&get(m, "text")?, &format!("{fk}.text"))?,
                }
            }
            "queue_waiting_at_least" => {
                let m = args(&["broker", "events"])?;
                let ev = get(m, "events")?;
                Condition::QueueWaitingAtLeast {
                    broker: match m.get("broker") {
                        None => None,
                        Some(b) => Some(broker(b, &format!("{fk}.broker"))?),
                    },
                    events: ev
                        .as_u64()
                        .filter(|n| *n >= 1)
                        .ok_or_else(|| bad(&format!("{fk}.events"), "a count from 1", &ev))?
                        as usize,
                }
            }
            "time_at_least_ms" => Condition::TimeAtLeastMs(count(arg)?),
            other => {
                return err(
                    &fk,
                    format!(
                        "unknown condition {other:?}; expected one of {}",
                        NAMES.join(", ")
                    ),
                )
            }
        })
    }
}
