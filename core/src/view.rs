//! What the UI and the CLI show: a serializable picture of the cluster at one
//! moment, computed from the simulation and nothing else.

pub use crate::broker::BrokerExit;
use crate::broker::BrokerStatus;
use crate::controller::channel::{RequestBody, RequestStatus};
use crate::ids::{comma_list, BrokerId, TopicPartition};
use crate::invariants;
use crate::projection::{topic_config_overrides, topic_unclean_override};
use crate::sim::{PartitionOverview, Sim, SimEvent};
use crate::zk_client::paths;
use serde::{Deserialize, Serialize};

/// One broker as drawn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokerView {
    /// `broker.id`.
    pub id: BrokerId,
    /// `running`, `starting`, `shutting_down`, `paused` or `dead`.
    pub status: String,
    /// The broker's `activeControllerId`.
    pub active_controller_id: Option<BrokerId>,
    /// Whether this broker's process runs and believes it is the controller.
    pub is_active_controller: bool,
    /// A zombie controller: it believes it is the controller, but `/controller`
    /// names another broker (or none) for an epoch at least as new as its own.
    /// A broker in the middle of winning an election (its epoch already newer
    /// than what ZooKeeper shows yet) is not one.
    #[serde(default)]
    pub is_zombie_controller: bool,
    /// The controller epoch in its context, when it believes it is controller.
    pub controller_context_epoch: i32,
    /// The highest controller epoch the broker has accepted.
    pub controller_epoch_seen: i32,
    /// The broker epoch (czxid of its registration), −1 if never registered.
    pub broker_epoch: i64,
    /// Whether `/brokers/ids/<id>` exists.
    pub registered: bool,
    /// When its ZooKeeper session expires if no heartbeat comes (a live session
    /// that a dead or paused broker still holds).
    pub session_expires_at_ms: Option<u64>,
    /// Partitions it leads by its own replica state (for a broker that is
    /// down: what its process held when it stopped, not what is true now).
    pub leader_of: usize,
    /// Partitions whose state znode (`/brokers/topics/<t>/partitions/<p>/state`)
    /// names it as leader: what the cluster, and a new controller, go by.
    pub leader_of_in_zk: usize,
    /// Whether the ZooKeeper session of its last process is alive: while it
    /// is, its ephemeral `/brokers/ids/<id>` (and `/controller`, if it held
    /// it) exist, even for a broker killed with `kill -9` or paused.
    pub session_alive: bool,
    /// How its last process ended while it is down: `clean` (kill -15, the
    /// session closed at once), `killed` (kill -9, the session lingers until
    /// it expires: see `session_alive`, `session_expires_at_ms`) or
    /// `startup_failed`; `None` while it runs.
    pub exit: Option<BrokerExit>,
    /// Partitions it hosts.
    pub replicas: usize,
    /// Extra fetch lag from `slow_broker`.
    pub slowed_ms: u64,
}

/// One znode as drawn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZnodeView {
    /// Full path.
    pub path: String,
    /// Data as stored.
    pub data: String,
    /// Whether the node is ephemeral.
    pub ephemeral: bool,
    /// Data version.
    pub version: i32,
    /// Depth in the tree (0 for children of `/`).
    pub depth: usize,
    /// Sessions watching it (data, exists or child watches).
    pub watchers: usize,
}

/// One partition as drawn: its [`PartitionOverview`] (from ZooKeeper and the
/// active controller) with what the page adds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionView {
    /// `topic`, `partition`, `state`, `replicas`, `isr`, `leader`,
    /// `leader_epoch` and `controller_epoch`.
    #[serde(flatten)]
    pub overview: PartitionOverview,
    /// Each replica's log end offset (in `replicas` order; `None` without a log).
    pub log_end_offsets: Vec<Option<u64>>,
    /// The committed offset.
    pub high_watermark: u64,
    /// Whether a running broker leads it now.
    pub available: bool,
    /// Time without a serving leader so far.
    pub unavailable_ms: u64,
    /// Whether its topic is queued for deletion.
    pub deleting: bool,
    /// Whether it is being reassigned.
    pub reassigning: bool,
    /// When its leader, ISR or epochs last changed.
    pub changed_at_ms: Option<u64>,
    /// The running controller whose PartitionStateMachine holds `state`.
    /// `None`: no running controller knows the partition (none is elected,
    /// or the controller has not read it yet), so `state` reads
    /// `NonExistentPartition` only by default; what ZooKeeper holds (the
    /// state znode's `leader`, `isr` and epochs) is still true.
    pub state_known_by: Option<BrokerId>,
    /// The leader and ISR the active controller has cached.
    pub controller_cache: Option<CachedLeadership>,
    /// The leader and ISR each running broker's metadata cache holds.
    pub broker_caches: Vec<(BrokerId, CachedLeadership)>,
}

impl std::ops::Deref for PartitionView {
    type Target = PartitionOverview;

    fn deref(&self) -> &PartitionOverview {
        &self.overview
    }
}

/// One topic as drawn, in the order of the partitions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicView {
    /// Its name.
    pub name: String,
    /// Its `unclean.leader.election.enable` override from
    /// `/config/topics/<t>`, as the controller reads it (`None`: no override,
    /// the cluster setting applies).
    pub unclean_leader_election_enable: Option<bool>,
    /// Its config overrides as `kafka-topics.sh --describe` lists them
    /// (`key=value,…`).
    pub configs: String,
}

/// A cached copy of a partition's leadership.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CachedLeadership {
    /// The leader, −1 for none.
    pub leader: i32,
    /// The leader epoch.
    pub leader_epoch: i32,
    /// The ISR.
    pub isr: Vec<BrokerId>,
}

/// An event in a controller's queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueView {
    /// The broker whose event thread it is.
    pub broker: BrokerId,
    /// Kafka's ControllerState gauge.
    pub state: String,
    /// The event being processed, with when it finishes.
    pub current: Option<(String, u64)>,
    /// The events waiting, oldest first, with when they were enqueued.
    pub waiting: Vec<(String, u64)>,
}

/// A message on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageView {
    /// Its id (for delay and drop).
    pub id: u64,
    /// `LeaderAndIsr`, `UpdateMetadata`, `StopReplica`, a response, or `watch`.
    pub kind: String,
    /// From (`zk` or `broker-<id>`).
    pub from: String,
    /// To.
    pub to: String,
    /// The controller epoch it carries (requests).
    pub controller_epoch: Option<i32>,
    /// When it left.
    pub sent_at_ms: u64,
    /// When it arrives.
    pub arrives_at_ms: u64,
    /// Whether it is queued (not yet on the wire).
    pub queued: bool,
    /// A one-line summary.
    pub summary: String,
}

/// One named invariant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvariantView {
    /// Its name.
    pub name: String,
    /// What it says.
    pub meaning: String,
    /// When it was first violated, if ever.
    pub first_violation_ms: Option<u64>,
    /// How.
    pub detail: Option<String>,
}

/// The whole picture at one moment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterView {
    /// Virtual time in ms.
    pub time_ms: u64,
    /// `/controller`'s brokerid.
    pub controller: Option<BrokerId>,
    /// `/controller_epoch`.
    pub controller_epoch: i32,
    /// Brokers by id.
    pub brokers: Vec<BrokerView>,
    /// Every znode, in path order.
    pub znodes: Vec<ZnodeView>,
    /// Every partition.
    pub partitions: Vec<PartitionView>,
    /// Every topic that has partitions, in the order of `partitions`.
    pub topics: Vec<TopicView>,
    /// Every running broker's controller event queue.
    pub queues: Vec<QueueView>,
    /// Messages queued or on the wire.
    pub messages: Vec<MessageView>,
    /// Every invariant.
    pub invariants: Vec<InvariantView>,
    /// Unclean elections so far.
    pub unclean_elections: u64,
    /// Acknowledged records lost so far.
    pub acked_records_lost: u64,
    /// Stale-epoch rejections so far.
    pub stale_requests_rejected: u64,
    /// The cluster-wide `unclean.leader.election.enable`.
    pub unclean_enabled: bool,
    /// `auto.leader.rebalance.enable`.
    pub auto_rebalance_enabled: bool,
}

impl ClusterView {
    /// The view of `sim` now.
    pub fn of(sim: &Sim) -> ClusterView {
        let zk = sim.zk();
        let watches = zk.watches();
        let overview = sim.partition_overview();
        let leads_in_zk = |b: BrokerId| overview.iter().filter(|p| p.leader == Some(b)).count();
        let brokers = sim
            .brokers()
            .values()
            .map(|b| {
                let leads = b
                    .replicas
                    .values()
                    .filter(|p| p.leader == b.id.0 as i32)
                    .count();
                broker_view(sim, b, leads, leads_in_zk(b.id))
            })
            .collect();
        let znodes = zk
            .observed_nodes()
            .into_iter()
            .filter(|(p, _)| *p != "/")
            .map(|(p, n)| ZnodeView {
                path: p.to_string(),
                data: n.data.to_string(),
                ephemeral: n.stat.ephemeral_owner().is_some(),
                version: n.stat.version,
                depth: p.matches('/').count() - 1,
                watchers: watches.iter().filter(|(wp, _, _)| **wp == *p).count(),
            })
            .collect();
        let active = sim.active_controller();
        let ctx = active.map(|b| &b.controller.ctx);
        let partitions: Vec<PartitionView> = overview
            .into_iter()
            .map(|p| PartitionView {
                state_known_by: active
                    .filter(|b| b.controller.ctx.partition_states.contains_key(&p.tp))
                    .map(|b| b.id),
                log_end_offsets: p.log_end_offsets(sim),
                high_watermark: sim.high_watermark(&p.tp),
                available: sim.is_available(&p.tp),
                unavailable_ms: sim.unavailable_ms(&p.tp),
                deleting: ctx.is_some_and(|c| c.topics_to_be_deleted.contains(p.tp.topic.as_str())),
                reassigning: ctx.is_some_and(|c| c.partitions_being_reassigned.contains(&p.tp)),
                changed_at_ms: sim.state_changed_at(&p.tp).map(|t| t.as_ms()),
                controller_cache: ctx.and_then(|c| c.leadership.get(&p.tp)).map(|l| {
                    CachedLeadership {
                        leader: l.leader.map_or(-1, |b| b.0 as i32),
                        leader_epoch: l.leader_epoch,
                        isr: l.isr.to_vec(),
                    }
                }),
                broker_caches: sim
                    .brokers()
                    .values()
                    .filter(|b| b.is_up())
                    .filter_map(|b| {
                        let m = b.metadata.partitions.get(&p.tp)?;
                        Some((
                            b.id,
                            CachedLeadership {
                                leader: m.leader,
                                leader_epoch: m.leader_epoch,
                                isr: m.isr().to_vec(),
                            },
                        ))
                    })
                    .collect(),
                overview: p,
            })
            .collect();
        let mut names: Vec<&str> = partitions.iter().map(|p| p.tp.topic.as_str()).collect();
        names.dedup();
        let topics = names
            .into_iter()
            .map(|t| {
                let config = zk.observed(&paths::topic_config(t)).map(|n| n.data.text());
                let config = config.as_deref();
                TopicView {
                    name: t.to_string(),
                    unclean_leader_election_enable: config.and_then(topic_unclean_override),
                    configs: config
                        .and_then(topic_config_overrides)
                        .map(|m| {
                            let kv = m
                                .iter()
                                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()));
                            comma_list(kv)
                        })
                        .unwrap_or_default(),
                }
            })
            .collect();
        let queues = queue_views(sim);
        let mut messages: Vec<MessageView> = sim
            .requests()
            .values()
            .map(|r| {
                let responding = r.status == RequestStatus::Responding;
                let summary = match &r.body {
                    RequestBody::LeaderAndIsr { partitions } => partitions
                        .iter()
                        .map(|p| {
                            format!(
                                "{} leader {} epoch {} ISR [{}]",
                                p.tp,
                                p.leader,
                                p.leader_epoch,
                                comma_list(&p.isr())
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("; "),
                    RequestBody::UpdateMetadata {
                        partitions,
                        live_brokers,
                    } => {
                        format!(
                            "{} partition(s), live brokers [{}]",
                            partitions.len(),
                            comma_list(live_brokers)
                        )
                    }
                    RequestBody::StopReplica { partitions, delete } => format!(
                        "{} partition(s){}",
                        partitions.len(),
                        if *delete { ", delete" } else { "" }
                    ),
                    RequestBody::ControlledShutdown { broker, remaining } if responding => {
                        let v: Vec<String> = remaining.iter().map(|t| t.to_string()).collect();
                        format!("broker {broker}: remaining partitions [{}]", v.join(","))
                    }
                    RequestBody::ControlledShutdown { broker, .. } => {
                        format!(
                            "broker {broker} asks to shut down (broker epoch {})",
                            r.broker_epoch
                        )
                    }
                };
                MessageView {
                    id: r.id,
                    kind: if responding {
                        format!("{} response", r.body.name())
                    } else {
                        r.body.name().to_string()
                    },
                    from: if responding {
                        format!("broker-{}", r.to)
                    } else {
                        format!("broker-{}", r.from)
                    },
                    to: if responding {
                        format!("broker-{}", r.from)
                    } else {
                        format!("broker-{}", r.to)
                    },
                    controller_epoch: Some(r.controller_epoch),
                    sent_at_ms: r.sent_at.unwrap_or(r.queued_at).as_ms(),
                    arrives_at_ms: r.arrives_at.map_or(0, |t| t.as_ms()),
                    queued: r.status == RequestStatus::Queued,
                    summary: match (&r.error, responding) {
                        (Some(e), true) => e.to_string(),
                        _ => summary,
                    },
                }
            })
            .collect();
        for (at, e) in sim.pending() {
            if let SimEvent::Notify {
                id,
                sent_at,
                broker,
                watched,
                ..
            } = e
            {
                messages.push(MessageView {
                    id: *id,
                    kind: "watch".to_string(),
                    from: "zk".to_string(),
                    to: format!("broker-{broker}"),
                    controller_epoch: None,
                    sent_at_ms: sent_at.as_ms(),
                    arrives_at_ms: at.as_ms(),
                    queued: false,
                    summary: format!("{:?} on {}", watched.kind, watched.path),
                });
            }
        }
        crate::sort::sort_by_key(&mut messages, |m| m.id);
        let invariants = invariant_views(sim);
        ClusterView {
            time_ms: sim.now().as_ms(),
            controller: sim.controller_id(),
            controller_epoch: sim.controller_epoch(),
            brokers,
            znodes,
            partitions,
            topics,
            queues,
            messages,
            invariants,
            unclean_elections: sim.stats().unclean_elections,
            acked_records_lost: sim.stats().acked_records_lost,
            stale_requests_rejected: sim.stats().stale_requests_rejected,
            unclean_enabled: sim.config().unclean_leader_election_enable,
            auto_rebalance_enabled: sim.config().auto_leader_rebalance_enable,
        }
    }

    /// The znode at `path`, if it exists.
    pub fn znode(&self, path: &str) -> Option<&ZnodeView> {
        self.znodes.iter().find(|z| z.path == path)
    }

    /// `kafka-topics.sh --describe` for every topic, in Kafka 2.4's format
    /// (as `--bootstrap-server` prints it, with no filter).
    pub fn describe(&self) -> String {
        self.describe_with(&DescribeOptions::default())
    }

    /// `kafka-topics.sh --describe` with its options, in Kafka 2.4's format
    /// (TopicCommand's `TopicDescription` and `PartitionDescription`).
    pub fn describe_with(&self, o: &DescribeOptions) -> String {
        let live: Vec<BrokerId> = self
            .brokers
            .iter()
            .filter(|b| b.registered)
            .map(|b| b.id)
            .collect();
        let mut out = String::new();
        for topic in &self.topics {
            let t = topic.name.as_str();
            if o.topics
                .as_ref()
                .is_some_and(|ts| !ts.iter().any(|n| n == t))
            {
                continue;
            }
            let parts: Vec<&PartitionView> =
                self.partitions.iter().filter(|p| p.tp.topic == t).collect();
            // Only ZooKeeper mode reads /admin/delete_topics (the admin
            // client's path passes `markedForDeletion = false`).
            let deleting =
                o.zookeeper && self.znode(&format!("/admin/delete_topics/{t}")).is_some();
            let marked = if deleting {
                "\tMarkedForDeletion: true"
            } else {
                ""
            };
            let rf = parts.first().map_or(0, |p| p.replicas.len());
            let config = &topic.configs;
            let filtered = o.under_replicated || o.unavailable || o.under_min_isr || o.at_min_isr;
            if !filtered {
                out.push_str(&format!(
                    "Topic: {t}\tPartitionCount: {}\tReplicationFactor: {rf}\tConfigs: {config}{marked}\n",
                    parts.len()
                ));
            }
            // The admin client's path reads the topic's config (so the
            // min-ISR filters see `min.insync.replicas`); ZooKeeper mode
            // passes none (and refuses those two filters).
            let min_isr = if o.zookeeper {
                None
            } else {
                Some(
                    config
                        .split(',')
                        .find_map(|kv| kv.strip_prefix("min.insync.replicas="))
                        .and_then(|v| v.parse::<usize>().ok())
                        .unwrap_or(o.default_min_isr),
                )
            };
            for p in parts {
                let has_leader = p.leader.is_some();
                let show = !filtered
                    || (o.under_replicated && p.isr.len() < p.replicas.len())
                    || (o.unavailable && p.leader.is_none_or(|l| !live.contains(&l)))
                    || (o.under_min_isr
                        && (!has_leader || min_isr.is_some_and(|m| p.isr.len() < m)))
                    || (o.at_min_isr && min_isr == Some(p.isr.len()));
                if !show {
                    continue;
                }
                let leader = p.leader.map_or("none".to_string(), |l| l.to_string());
                out.push_str(&format!(
                    "\tTopic: {t}\tPartition: {}\tLeader: {leader}\tReplicas: {}\tIsr: {}{marked}\n",
                    p.tp.partition,
                    comma_list(&p.replicas),
                    comma_list(&p.isr)
                ));
            }
        }
        out
    }

    /// `zookeeper-shell.sh localhost:2181 get /controller`, as it prints.
    pub fn zookeeper_shell_get_controller(&self) -> String {
        match self.znode(paths::CONTROLLER) {
            Some(z) => format!("{}\n", z.data),
            None => "Node does not exist: /controller\n".to_string(),
        }
    }

    /// A partition.
    pub fn partition(&self, tp: &TopicPartition) -> Option<&PartitionView> {
        self.partitions.iter().find(|p| p.tp == *tp)
    }
}

/// `kafka-topics.sh --describe`'s options ([`ClusterView::describe_with`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DescribeOptions {
    /// `--topic`: only these topics (`None`: all).
    pub topics: Option<Vec<String>>,
    /// `--zookeeper` rather than `--bootstrap-server`.
    pub zookeeper: bool,
    /// `--under-replicated-partitions`.
    pub under_replicated: bool,
    /// `--unavailable-partitions`.
    pub unavailable: bool,
    /// `--under-min-isr-partitions` (admin client only).
    pub under_min_isr: bool,
    /// `--at-min-isr-partitions` (admin client only).
    pub at_min_isr: bool,
    /// The cluster's `min.insync.replicas`, for a topic without an override.
    pub default_min_isr: usize,
}

/// A partition's result of a preferred or unclean election (the admin API,
/// the ZooKeeper znode or the auto rebalance), read from an
/// `election_result` trace line, with what Kafka's code means.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ElectionOutcome {
    /// The partition.
    pub partition: String,
    /// Kafka's error code: `NONE`, `ELECTION_NOT_NEEDED`, ….
    pub code: String,
    /// Whether the election happened and elected a leader. Kafka reports a
    /// success as the error code `NONE` ("no error").
    pub success: bool,
    /// The code in words, for a reader who does not know Kafka's codes.
    pub meaning: String,
    /// The leader elected (on success).
    pub leader: Option<BrokerId>,
}

/// A broker as the page shows it; `leader_of` is how many partitions it
/// believes it leads, `leader_of_in_zk` how many the state znodes say it does
/// (the caller counts them, from what it already has).
pub(crate) fn broker_view(
    sim: &Sim,
    b: &crate::broker::Broker,
    leader_of: usize,
    leader_of_in_zk: usize,
) -> BrokerView {
    let zk = sim.zk();
    let dead = b.status == BrokerStatus::Dead;
    let session = b
        .zk_client
        .session
        .and_then(|s| zk.session(s))
        .filter(|s| s.state == crate::zk::SessionState::Alive);
    BrokerView {
        id: b.id,
        status: b.status.as_str().to_string(),
        active_controller_id: if dead {
            None
        } else {
            b.controller.active_controller_id
        },
        is_active_controller: !dead && b.controller.is_active(b.id),
        is_zombie_controller: !dead
            && b.controller.is_active(b.id)
            && sim.controller_id() != Some(b.id)
            && b.controller.ctx.epoch <= sim.controller_epoch(),
        controller_context_epoch: b.controller.ctx.epoch,
        controller_epoch_seen: b.controller_epoch_seen,
        broker_epoch: b.broker_epoch,
        registered: zk.observed(&paths::broker(b.id)).is_some(),
        session_expires_at_ms: session.map(|s| s.expires_at().as_ms()),
        session_alive: session.is_some(),
        exit: if dead { b.exit } else { None },
        leader_of,
        leader_of_in_zk,
        replicas: b.replicas.len(),
        slowed_ms: sim.slow_lag(b.id),
    }
}

/// Every broker's controller event queue that is not dead.
pub(crate) fn queue_views(sim: &Sim) -> Vec<QueueView> {
    sim.brokers()
        .values()
        .filter(|b| b.status != BrokerStatus::Dead)
        .map(|b| QueueView {
            broker: b.id,
            state: format!("{:?}", b.controller.state),
            current: b
                .controller
                .current
                .as_ref()
                .map(|c| (c.event.name().to_string(), c.done_at.as_ms())),
            waiting: b
                .controller
                .queue
                .iter()
                .map(|q| (q.event.name().to_string(), q.enqueued_at.as_ms()))
                .collect(),
        })
        .collect()
}

/// Every invariant with its first violation, if any.
pub(crate) fn invariant_views(sim: &Sim) -> Vec<InvariantView> {
    invariants::ALL
        .iter()
        .map(|(name, meaning)| {
            let first = sim.violations().iter().find(|v| v.invariant == *name);
            InvariantView {
                name: name.to_string(),
                meaning: meaning.to_string(),
                first_violation_ms: first.map(|v| v.time_ms),
                detail: first.map(|v| v.detail.clone()),
            }
        })
        .collect()
}

/// What one of Kafka's election result codes means.
pub fn election_code_meaning(code: &str) -> &'static str {
    match code {
        "NONE" => "success: NONE is Kafka's code for no error; the leader was elected",
        "ELECTION_NOT_NEEDED" => {
            "nothing to do: the leader is already the one this election would choose"
        }
        "PREFERRED_LEADER_NOT_AVAILABLE" => {
            "refused: the preferred replica is not live or not in the ISR"
        }
        "ELIGIBLE_LEADERS_NOT_AVAILABLE" => "refused: no live replica can lead",
        "UNKNOWN_TOPIC_OR_PARTITION" => "refused: the partition does not exist",
        "INVALID_TOPIC_EXCEPTION" => "refused: the topic is being deleted",
        "NOT_CONTROLLER" => "refused: the broker asked is not the active controller",
        _ => "failed",
    }
}

/// The outcome an `election_result` trace line reports (`None` for any
/// other line).
pub fn election_outcome(record: &crate::trace::TraceRecord) -> Option<ElectionOutcome> {
    let crate::fact::Fact::ElectionResult { tp, code, .. } = &*record.fact() else {
        return None;
    };
    let leader = match code {
        crate::fact::ElectionCode::Elected(leader) => *leader,
        _ => None,
    };
    Some(ElectionOutcome {
        partition: tp.to_string(),
        leader,
        success: matches!(code, crate::fact::ElectionCode::Elected(_)),
        meaning: election_code_meaning(code.code()).to_string(),
        code: code.code().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;
    use crate::time::SimTime;

    #[test]
    fn a_broker_winning_an_election_is_not_a_zombie_and_a_woken_old_controller_is() {
        // Kafka: a zombie controller is one that still acts with an older epoch
        // (KafkaController's controllerEpoch fencing); the winner of an election,
        // while its writes are not yet visible, is the newest, not a zombie.
        let text = include_str!("../scenarios/zombie-controller.json");
        let mut sim = Scenario::parse(text).unwrap().build();
        sim.run_until(SimTime(5_000));
        let old = sim.controller_id().unwrap();
        sim.schedule_action(SimTime(5_000), crate::Action::KillBroker { broker: old })
            .unwrap();
        let mut checked = false;
        while sim.now() < SimTime(20_000) && sim.step() {
            let winning = sim.brokers().values().find(|b| {
                b.controller.is_active(b.id) && sim.controller_id() != Some(b.id) && b.is_up()
            });
            if let Some(w) = winning {
                let v = ClusterView::of(&sim);
                let card = v.brokers.iter().find(|c| c.id == w.id).unwrap();
                assert!(
                    !card.is_zombie_controller,
                    "{} is mid-election at {:?}",
                    w.id,
                    sim.now()
                );
                checked = true;
                break;
            }
        }
        assert!(
            checked,
            "an election was seen before its /controller write was visible"
        );
        // The zombie scenario's paused controller wakes at 21.1 s believing it
        // is still the controller of an older epoch.
        let mut sim = Scenario::parse(text).unwrap().build();
        let mut seen = false;
        while sim.now() < SimTime(23_000) && sim.step() {
            let v = ClusterView::of(&sim);
            seen |= v.brokers.iter().any(|c| c.is_zombie_controller);
        }
        assert!(seen, "the woken old controller is shown as a zombie");
    }

    #[test]
    fn describe_uses_kafka_topics_sh_format() {
        // Kafka: TopicCommand.describe (2.4): "Topic: t\tPartition: 0\tLeader: 1\tReplicas: 1,2\tIsr: 1,2".
        let s = Scenario::parse(
            r#"{"version":1,"seed":3,"brokers":[0,1,2],"config":{"sim.broker.startup.jitter.ms":0},
                "actions":[{"at_ms":4000,"action":"create_topic","name":"t","assignment":[[1,2]]}]}"#,
        )
        .unwrap();
        let mut sim = s.build();
        sim.run_until(SimTime(6_000));
        let v = ClusterView::of(&sim);
        let d = v.describe();
        assert!(
            d.starts_with("Topic: t\tPartitionCount: 1\tReplicationFactor: 2\tConfigs: \n"),
            "{d}"
        );
        assert!(
            d.contains("\tTopic: t\tPartition: 0\tLeader: 1\tReplicas: 1,2\tIsr: 1,2\n"),
            "{d}"
        );
        assert!(v
            .zookeeper_shell_get_controller()
            .starts_with(r#"{"version":1,"brokerid":0,"#));
        assert_eq!(v.invariants.len(), crate::invariants::ALL.len());
    }

    #[test]
    fn each_topic_carries_its_unclean_override_as_the_core_reads_it() {
        // Kafka: the controller reads unclean.leader.election.enable from /config/topics/<t>.
        let s = Scenario::parse(
            r#"{"version":1,"seed":3,"brokers":[0,1],"config":{"sim.broker.startup.jitter.ms":0},
                "actions":[{"at_ms":4000,"action":"create_topic","name":"a","assignment":[[0]]},
                           {"at_ms":4000,"action":"create_topic","name":"b","assignment":[[1]]},
                           {"at_ms":5000,"action":"set_config","topic":"b","key":"unclean.leader.election.enable","value":"true"}]}"#,
        )
        .unwrap();
        let mut sim = s.build();
        sim.run_until(SimTime(6_000));
        let v = ClusterView::of(&sim);
        let topics: Vec<(&str, Option<bool>)> = v
            .topics
            .iter()
            .map(|t| (t.name.as_str(), t.unclean_leader_election_enable))
            .collect();
        assert_eq!(topics, vec![("a", None), ("b", Some(true))]);
        assert!(
            v.describe()
                .contains("Topic: b\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: unclean.leader.election.enable=true\n"),
            "{}",
            v.describe()
        );
    }
}

#[cfg(test)]
mod display_tests {
    use super::*;
    use crate::action::Action;
    use crate::scenario::Scenario;
    use crate::time::SimTime;
    use crate::trace::TraceRecord;

    /// Three brokers, broker 0 the controller; `t-0` on [1, 2] and `solo-0`
    /// on [1] only, created at 4 s.
    fn cluster() -> Sim {
        let s = Scenario::parse(
            r#"{"version":1,"seed":3,"brokers":[0,1,2],"config":{"sim.broker.startup.jitter.ms":0},
                "actions":[{"at_ms":4000,"action":"create_topic","name":"t","assignment":[[1,2]]},
                           {"at_ms":4000,"action":"create_topic","name":"solo","assignment":[[1]]}]}"#,
        )
        .unwrap();
        let mut sim = s.build();
        sim.run_until(SimTime(6_000));
        sim
    }

    fn broker(v: &ClusterView, id: u32) -> &BrokerView {
        v.brokers.iter().find(|b| b.id == BrokerId(id)).unwrap()
    }

    #[test]
    fn without_a_running_controller_no_state_is_known_but_zookeeper_still_holds_the_leader() {
        let mut sim = cluster();
        let v = ClusterView::of(&sim);
        assert_eq!(v.controller, Some(BrokerId(0)));
        let t0 = v.partition(&TopicPartition::new("t", 0)).unwrap();
        assert_eq!(t0.state_known_by, Some(BrokerId(0)));
        assert_eq!(t0.state.to_string(), "OnlinePartition");
        // kill -9 the controller: its session (and /controller) linger for 6 s,
        // but no running broker is the controller.
        sim.schedule_action(
            SimTime(6_000),
            Action::KillBroker {
                broker: BrokerId(0),
            },
        )
        .unwrap();
        sim.run_until(SimTime(7_000));
        let v = ClusterView::of(&sim);
        let t0 = v.partition(&TopicPartition::new("t", 0)).unwrap();
        assert_eq!(t0.state_known_by, None, "no running controller knows it");
        assert_eq!(
            t0.state.to_string(),
            "NonExistentPartition",
            "only by default"
        );
        assert_eq!(
            t0.leader,
            Some(BrokerId(1)),
            "ZooKeeper still holds the leader"
        );
        let zero = broker(&v, 0);
        assert_eq!(zero.status, "dead");
        assert_eq!(zero.exit, Some(BrokerExit::Killed));
        assert!(zero.session_alive, "kill -9: the session lingers");
        assert!(zero.registered, "so /brokers/ids/0 still exists");
        assert!(zero.session_expires_at_ms.is_some());
        // Once the session expires, another broker is elected and reads every partition.
        sim.run_until(SimTime(14_000));
        let v = ClusterView::of(&sim);
        let c = v.controller.expect("a new controller");
        assert_ne!(c, BrokerId(0));
        let t0 = v.partition(&TopicPartition::new("t", 0)).unwrap();
        assert_eq!(t0.state_known_by, Some(c));
        let zero = broker(&v, 0);
        assert!(!zero.session_alive && !zero.registered, "expired");
        assert_eq!(zero.exit, Some(BrokerExit::Killed));
    }

    #[test]
    fn a_clean_exit_closes_the_session_and_leadership_is_counted_both_ways() {
        let mut sim = cluster();
        let v = ClusterView::of(&sim);
        let one = broker(&v, 1);
        assert_eq!((one.leader_of, one.leader_of_in_zk), (2, 2));
        assert!(one.session_alive && one.exit.is_none());
        // kill -15: a controlled shutdown moves t-0 to broker 2; solo-0 has no
        // other replica to move to.
        sim.schedule_action(
            SimTime(6_000),
            Action::ShutdownBroker {
                broker: BrokerId(1),
            },
        )
        .unwrap();
        sim.run_until(SimTime(9_000));
        let v = ClusterView::of(&sim);
        let one = broker(&v, 1);
        assert_eq!(one.status, "dead");
        assert_eq!(one.exit, Some(BrokerExit::Clean));
        assert!(!one.session_alive, "the session closed at once");
        assert!(!one.registered);
        assert_eq!(one.session_expires_at_ms, None);
        assert_eq!(
            v.partition(&TopicPartition::new("t", 0)).unwrap().leader,
            Some(BrokerId(2))
        );
        // solo-0 went offline when broker 1 left (leader -1, Kafka's
        // removeReplicasFromIsr), so the state znodes name it for nothing,
        // while its process's last replica state still says it led solo-0.
        assert_eq!(one.leader_of_in_zk, 0, "per the state znodes");
        assert_eq!(one.leader_of, 1, "per its own, stale, replica state");
        assert_eq!(
            v.partition(&TopicPartition::new("solo", 0)).unwrap().leader,
            None
        );
        assert_eq!(broker(&v, 2).leader_of_in_zk, 1);
        assert_eq!(broker(&v, 2).exit, None, "running");
        // Started again, the exit is forgotten.
        sim.schedule_action(
            SimTime(9_000),
            Action::StartBroker {
                broker: BrokerId(1),
            },
        )
        .unwrap();
        sim.run_until(SimTime(10_000));
        let v = ClusterView::of(&sim);
        assert_eq!(broker(&v, 1).exit, None);
        assert!(broker(&v, 1).session_alive);
    }

    #[test]
    fn an_election_result_of_none_is_a_success() {
        use crate::controller::election::ElectionWhy;
        use crate::controller::states::PartitionStateChangeError;
        use crate::fact::{ElectionCode, ElectionLabel, Fact};
        let r = |label, tp: &str, code| {
            let (topic, partition) = tp.rsplit_once('-').unwrap();
            let tp = TopicPartition::new(topic, partition.parse().unwrap());
            let fact = Fact::ElectionResult { label, tp, code };
            TraceRecord::new(SimTime(1), "controller-0", "election_result", fact)
        };
        let ok = election_outcome(&r(
            ElectionLabel::AutoRebalance,
            "orders-1",
            ElectionCode::Elected(Some(BrokerId(1))),
        ))
        .unwrap();
        assert_eq!(
            r(
                ElectionLabel::AutoRebalance,
                "orders-1",
                ElectionCode::Elected(Some(BrokerId(1)))
            )
            .details(),
            "auto rebalance PREFERRED election of orders-1: NONE (leader 1)"
        );
        assert_eq!(ok.partition, "orders-1");
        assert_eq!(ok.code, "NONE");
        assert!(ok.success);
        assert_eq!(ok.leader, Some(BrokerId(1)));
        assert!(ok.meaning.starts_with("success"), "{}", ok.meaning);
        let not_needed =
            election_outcome(&r(ElectionLabel::Preferred, "t-1", ElectionCode::NotNeeded)).unwrap();
        assert_eq!(
            (not_needed.code.as_str(), not_needed.success),
            ("ELECTION_NOT_NEEDED", false)
        );
        let why = PartitionStateChangeError::NoLeaderElected {
            tp: TopicPartition::new("t", 0),
            strategy: "PreferredReplicaPartitionLeaderElectionStrategy",
            why: ElectionWhy::PreferredNotLive {
                replica: BrokerId(0),
            },
        };
        let refused = election_outcome(&r(
            ElectionLabel::Preferred,
            "t-0",
            ElectionCode::PreferredLeaderNotAvailable(Box::new(why)),
        ))
        .unwrap();
        assert_eq!(refused.code, "PREFERRED_LEADER_NOT_AVAILABLE");
        assert!(!refused.success && refused.leader.is_none());
        let elected = Fact::Elected {
            broker: BrokerId(0),
            epoch: 1,
            zk_version: 0,
        };
        assert!(election_outcome(&TraceRecord::new(SimTime(1), "x", "elected", elected)).is_none());
        // And from a run: the preferred-election scenario's election by hand at 30 s
        // (broker 1, restarted, gets orders-0 back).
        let mut sim = Scenario::parse(include_str!("../scenarios/preferred-election.json"))
            .unwrap()
            .build();
        sim.run_until(SimTime(31_000));
        let outcomes: Vec<ElectionOutcome> =
            sim.trace().iter().filter_map(election_outcome).collect();
        assert!(
            outcomes
                .iter()
                .any(|o| o.success && o.code == "NONE" && o.leader == Some(BrokerId(1))),
            "{outcomes:#?}"
        );
    }
}
