//! An observer outside [`Sim`]: safety after every step and liveness once
//! faults stop, checked against what a real operator can read of a Kafka
//! cluster, with its own history.
//!
//! The in-sim [`crate::invariants::Checker`] is fed by the simulator's own
//! handlers: a handler that forgets to record a violation hides it. The
//! observer never reads the checker, `Sim::violations()` or the
//! controller's in-memory context. It reads:
//! - ZooKeeper's znodes as observers see them (`/controller`,
//!   `/controller_epoch`, `/brokers/ids`, `/brokers/topics/..` and their
//!   partition state znodes, `/admin/delete_topics`,
//!   `/admin/reassign_partitions`): `zookeeper-shell.sh`;
//! - each broker's answers: its process status (`ps`), its
//!   `ActiveControllerCount` and the controller epoch it stamps on the
//!   requests it sends as controller (JMX and the requests on the wire), the
//!   controller it believes in (`activeControllerId`), its metadata cache (a
//!   Metadata request), the replicas it hosts with their leader epochs and
//!   logs (DescribeLogDirs, ListOffsets, a consumer's fetch), and the highest
//!   controller epoch its ReplicaManager accepted (what it logs with every
//!   request in `state-change.log`);
//! - what producers were told: each record's partition, offset and acks
//!   mode, and whether and when it was acknowledged ([`Sim::produced`], of
//!   which the observer reads nothing else: not the simulator's verdict on
//!   whether a record was lost);
//! - the operator's own commands (the user actions in the trace): a znode
//!   edited by hand starts its history afresh, since Kafka accepts any edit.
//!
//! See `core/docs/observer.md` for each property and its Kafka reference.

use crate::broker::{BrokerStatus, PartitionCache};
use crate::controller::channel::RequestBody;
use crate::ids::{BrokerId, TopicPartition};
use crate::invariants;
use crate::sim::Sim;
use crate::time::SimTime;
use crate::zk_client::paths;
use std::collections::{BTreeMap, BTreeSet};

mod liveness;
#[cfg(test)]
mod tests;

pub use liveness::liveness_bound_ms;

/// No two brokers that are up both lead a partition at the same leader
/// epoch (Kafka: each leader epoch is one controller write naming one
/// leader, `PartitionStateMachine.electLeaderForPartitions`; KIP-101 fences
/// on it).
pub const SINGLE_LEADER_PER_LEADER_EPOCH: &str = "single_leader_per_leader_epoch";

/// Liveness: every running broker agrees on one controller, the one
/// `/controller` names, and that broker acts as controller
/// (`KafkaController.elect`, `onControllerFailover`'s UpdateMetadata to all).
pub const LIVE_ONE_CONTROLLER: &str = "live_one_controller";
/// Liveness: no broker is stuck starting or in controlled shutdown
/// (`KafkaServer.controlledShutdown` gives up after
/// `controlled.shutdown.max.retries`).
pub const LIVE_NO_STUCK_BROKER: &str = "live_no_stuck_broker";
/// Liveness: every running broker is registered in `/brokers/ids` with its
/// current session (`KafkaZkClient.registerBroker`, re-registration after a
/// session expiry).
pub const LIVE_RUNNING_BROKERS_REGISTERED: &str = "live_running_brokers_registered";
/// Liveness: every partition with a running replica in its ISR (or, before
/// its first election, in its assignment) has a running leader that serves
/// it at the leader epoch in ZooKeeper, and every running broker's metadata
/// cache agrees with ZooKeeper (`onBrokerFailure`/`onBrokerStartup` and
/// `PartitionStateMachine.triggerOnlinePartitionStateChange`).
pub const LIVE_PARTITIONS_LED: &str = "live_partitions_led";
/// Liveness: a reassignment whose target replicas all run finishes
/// (`KafkaController.onPartitionReassignment`).
pub const LIVE_REASSIGNMENTS_FINISH: &str = "live_reassignments_finish";
/// Liveness: a topic deletion whose replicas all run finishes
/// (`TopicDeletionManager.resumeDeletions`, `completeDeleteTopic`).
pub const LIVE_DELETIONS_FINISH: &str = "live_deletions_finish";
/// Liveness: every acks=all record acknowledged is still in its partition's
/// log unless an unclean election happened (the same promise as
/// [`invariants::NO_ACKED_RECORD_LOST_CLEAN`], read once the cluster
/// settled).
pub const LIVE_ACKED_RECORDS_READABLE: &str = "live_acked_records_readable";

/// Every property the observer checks: the nine of [`invariants::ALL`],
/// [`SINGLE_LEADER_PER_LEADER_EPOCH`], and the liveness ones.
pub const PROPERTIES: &[&str] = &[
    invariants::SINGLE_CONTROLLER_PER_EPOCH,
    invariants::CONTROLLER_EPOCH_MONOTONIC,
    invariants::NO_STALE_REQUEST_APPLIED,
    invariants::CONTROLLER_AGREEMENT_WHEN_QUIET,
    invariants::LEADER_IN_ISR,
    invariants::ISR_SUBSET_OF_AR,
    invariants::LEADER_EPOCH_MONOTONIC,
    invariants::NO_ACKED_RECORD_LOST_CLEAN,
    invariants::HIGH_WATERMARK_MONOTONIC_CLEAN,
    SINGLE_LEADER_PER_LEADER_EPOCH,
    LIVE_ONE_CONTROLLER,
    LIVE_NO_STUCK_BROKER,
    LIVE_RUNNING_BROKERS_REGISTERED,
    LIVE_PARTITIONS_LED,
    LIVE_REASSIGNMENTS_FINISH,
    LIVE_DELETIONS_FINISH,
    LIVE_ACKED_RECORDS_READABLE,
];

/// A property found broken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The property's name (one of [`PROPERTIES`]).
    pub property: &'static str,
    /// When it was found broken.
    pub time_ms: u64,
    /// What was wrong.
    pub detail: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at {} ms: {}",
            self.property, self.time_ms, self.detail
        )
    }
}

/// A partition as last seen in ZooKeeper.
#[derive(Debug, Clone, Default)]
struct PartitionSeen {
    /// The state znode's mzxid when last decoded (−1: none).
    mzxid: i64,
    leader: Option<BrokerId>,
    isr: Vec<BrokerId>,
    /// −1 without a state znode.
    leader_epoch: i32,
    /// The highest leader epoch seen in this topic's life.
    max_leader_epoch: i32,
    /// When the state znode last changed, as the observer saw it.
    changed_at: SimTime,
    /// When an unclean election of it was seen (a leader outside the ISR
    /// before it).
    unclean_at: Vec<SimTime>,
    /// The serving leader's high watermark, highest seen since the last
    /// unclean election.
    hw: Option<u64>,
    /// The serving leader last checked for lost records: (broker, its
    /// start, leader epoch, log end offset, acknowledged records known).
    checked: Option<(BrokerId, u32, i32, u64, usize)>,
}

/// A topic as last seen in ZooKeeper.
#[derive(Debug, Clone, Default)]
struct TopicSeen {
    /// The topic znode's czxid: a topic created again is another topic.
    czxid: i64,
    mzxid: i64,
    assignment: BTreeMap<u32, Vec<BrokerId>>,
    /// Replicas being added or removed, per partition (KIP-455 fields).
    reassigning: BTreeSet<u32>,
    /// Bumped whenever the topic's history starts afresh (re-created, or
    /// its znodes edited by hand): brokers' answers from before are not
    /// compared with those after.
    generation: u64,
}

/// A record acknowledged to its producer.
#[derive(Debug, Clone, Copy)]
struct Acked {
    id: u64,
    offset: u64,
    all: bool,
    produced_at: SimTime,
}

/// One start of a broker, as its answers showed it.
#[derive(Debug, Clone, Default)]
struct BrokerSeen {
    incarnation: u32,
    controller_epoch_seen: i32,
    /// Hosted replicas: leader epoch, with the topic generation.
    replicas: BTreeMap<TopicPartition, (i32, u64)>,
    /// The metadata cache as last read (a cheap shared copy).
    cache: Option<PartitionCache>,
    /// Its cached states: (controller epoch, leader epoch, generation).
    cached: BTreeMap<TopicPartition, (i32, i32, u64)>,
}

/// The observer: its own history of what it read, and what it reported.
#[derive(Debug, Clone, Default)]
pub struct Observer {
    /// `(zxid, pending)` at the last scan of ZooKeeper.
    zk_seen: Option<(i64, bool)>,
    max_controller_epoch: i32,
    /// Which broker acted as controller in each epoch.
    epoch_owner: BTreeMap<i32, BrokerId>,
    topics: BTreeMap<String, TopicSeen>,
    partitions: BTreeMap<TopicPartition, PartitionSeen>,
    next_generation: u64,
    brokers: BTreeMap<BrokerId, BrokerSeen>,
    /// Acknowledged records not yet seen lost, by partition.
    acked: BTreeMap<TopicPartition, Vec<Acked>>,
    /// acks=all records produced and not yet acknowledged: id → partition.
    unacked: BTreeMap<u64, TopicPartition>,
    /// acks=all records seen lost without an unclean election: (partition,
    /// offset, when).
    lost: Vec<(TopicPartition, u64, SimTime)>,
    /// The next record id not yet read from the producers' ledger.
    next_record: u64,
    /// Watch notifications the operator's fault injection lost: (when,
    /// path, broker). Liveness narrows after one (see [`liveness`]).
    notifications_lost: Vec<(u64, String, BrokerId)>,
    /// The operator's own edits of `/controller` (other than deleting it)
    /// or `/controller_epoch`: (when, path). Liveness narrows after one.
    controller_edits: Vec<(u64, String)>,
    /// Every path the operator edited by hand (set, created or deleted).
    /// Liveness leaves out what depends on one: Kafka does not repair a
    /// hand edit of a broker's registration or of a partition's state
    /// (nothing watches them), so it stays as the operator left it.
    hand_edited: BTreeSet<String>,
    /// What the operator last wrote by hand (set or create), by path.
    hand_written: BTreeMap<String, String>,
    /// Topics the operator ever asked to delete. Their records carry no
    /// promise: a deletion stopped halfway (its `/admin/delete_topics`
    /// znode deleted by hand) leaves replicas whose logs are already gone,
    /// and a later leader among them lacks what was acknowledged, in Kafka
    /// as here.
    deletion_asked: BTreeSet<String>,
    /// Reassignments Kafka 2.4 does not finish on its own (see
    /// [`liveness`]): begun while the partition had no state znode yet, so
    /// the controller's read of it armed no watch; or written into an
    /// existing `/admin/reassign_partitions`, whose data changes no handler
    /// reads.
    stalled_reassignments: BTreeSet<TopicPartition>,
    /// Topic deletions Kafka 2.4 does not finish on its own (see
    /// [`liveness`]): under way when a broker refused a StopReplica as
    /// `STALE_BROKER_EPOCH`.
    stalled_deletions: BTreeSet<String>,
    /// `/controller_epoch`'s data when the operator deleted
    /// `/admin/reassign_partitions` by hand, until the next controller.
    reassign_watch_lost: Option<String>,
    /// Partitions being reassigned when last seen (listed in
    /// `/admin/reassign_partitions` or with replicas being added or removed).
    last_reassigning: BTreeSet<TopicPartition>,
    /// Partitions a reassignment left without a leader (see [`liveness`]),
    /// until they have one again.
    leaderless_after_reassignment: BTreeSet<TopicPartition>,
    /// Trace records already read for the operator's own commands.
    trace_seen: usize,
    /// (property, subject) already reported: each is reported once.
    reported: BTreeSet<(&'static str, String)>,
}

/// `/controller_epoch`'s data as ZooKeeper holds it (empty without one).
fn controller_epoch_data(sim: &Sim) -> String {
    sim.zk()
        .observed(paths::CONTROLLER_EPOCH)
        .map(|n| n.data.to_string())
        .unwrap_or_default()
}

/// Findings of one check, reported once per subject.
struct Out<'a> {
    now: u64,
    reported: &'a mut BTreeSet<(&'static str, String)>,
    findings: Vec<Finding>,
}

impl Out<'_> {
    fn find(&mut self, property: &'static str, subject: String, detail: String) {
        if self.reported.insert((property, subject)) {
            self.findings.push(Finding {
                property,
                time_ms: self.now,
                detail,
            });
        }
    }
}

fn ids(v: &[BrokerId]) -> Vec<u32> {
    v.iter().map(|b| b.0).collect()
}

impl Observer {
    /// An observer of `sim`, taking what it reads now as its starting point.
    pub fn new(sim: &Sim) -> Observer {
        let mut o = Observer::default();
        let _ = o.after_step(sim);
        o.reported.clear();
        o
    }

    /// Safety, after every `Sim::step`: what it finds broken for the first
    /// time (each property is reported once per partition, broker or epoch).
    pub fn after_step(&mut self, sim: &Sim) -> Vec<Finding> {
        let mut reported = std::mem::take(&mut self.reported);
        let mut out = Out {
            now: sim.now().as_ms(),
            reported: &mut reported,
            findings: Vec::new(),
        };
        let edited = self.hand_edits(sim);
        self.scan_zk(sim, &edited, &mut out);
        self.note_stalled_admin(sim);
        self.check_controllers(sim, &mut out);
        self.check_brokers(sim, &mut out);
        self.read_producers(sim);
        self.check_records(sim, &mut out);
        let findings = out.findings;
        self.reported = reported;
        findings
    }

    /// Liveness, once faults have stopped and the sim has run
    /// [`liveness_bound_ms`] more (see [`liveness`] for each property).
    ///
    /// After a lost watch notification ([`Observer::lost_notifications`])
    /// only the properties that need no watch are checked: no stuck broker,
    /// running brokers registered, acknowledged records readable. Kafka's
    /// ZooKeeper watches are one-shot and re-armed only by the read that a
    /// notification triggers (`ZooKeeperClient`'s handlers;
    /// `KafkaController.processIsrChangeNotification` is the only reader of
    /// `/isr_change_notification`), so Kafka itself stays blind to that
    /// path after such a loss: a controller never elected, an ISR change
    /// never propagated, a deletion or reassignment never picked up.
    ///
    /// The same narrowing follows an operator's edit of `/controller`
    /// (other than deleting it) or of `/controller_epoch`: Kafka wedges on
    /// them itself. A `/controller` naming another broker is believed by
    /// every broker, but `KafkaController.processControllerChange` only
    /// resigns, it never takes over, and the ephemeral node's owner lives on;
    /// a lower `/controller_epoch` gives the next controller an epoch the
    /// brokers already accepted, so `ReplicaManager` rejects its requests as
    /// stale.
    ///
    /// More cases where Kafka 2.4 waits for a broker start or a
    /// controller failover, and liveness leaves them out:
    /// - a reassignment begun while its partition had no state znode (not
    ///   yet elected): `isReassignmentComplete` reads the missing znode, and
    ///   a read of a missing znode arms no ZooKeeper watch, so the
    ///   `PartitionReassignmentIsrChangeHandler` never fires when the
    ///   partition is elected later; `onBrokerStartup` resumes only
    ///   reassignments whose target includes the new broker. A topic
    ///   deletion of that topic waits with it (a reassignment in progress
    ///   makes the topic ineligible);
    /// - a reassignment written into an existing `/admin/reassign_partitions`
    ///   by hand: `PartitionReassignmentHandler` handles only the znode's
    ///   creation; and one created after the operator deleted that znode by
    ///   hand, until the next controller: the deletion consumed the watch and
    ///   the handler, doing nothing on a deletion, did not re-arm it;
    /// - a reassignment of a topic being deleted whose partition has no live
    ///   leader: no leader is elected for a topic queued for deletion
    ///   (`triggerOnlinePartitionStateChange`), so the ISR never grows and
    ///   the reassignment and the deletion wait for each other;
    /// - a topic deletion under way when a broker refused a StopReplica as
    ///   `STALE_BROKER_EPOCH`. `processBrokerChange` runs `onBrokerStartup`
    ///   for new brokers before it records a bounced broker's new epoch, so
    ///   a deletion resumed there sends the bounced broker a StopReplica
    ///   with its old epoch; by the time the refusal comes back the replica
    ///   is `OnlineReplica` again, `failReplicaDeletion`'s transition is
    ///   invalid, the topic is marked ineligible, and nothing resumes it.
    /// - a partition a reassignment left without a leader: a reassignment
    ///   complete at once whose target replica the controller does not yet
    ///   count as live (it re-registered, its BrokerChange still queued)
    ///   fails to move the leader (`moveReassignedPartitionLeaderIfRequired`),
    ///   then takes the old leader out of the ISR (B4), leaving leader -1
    ///   and the partition `OnlinePartition` in the controller's memory, so
    ///   `onBrokerStartup`'s `triggerOnlinePartitionStateChange` (Offline
    ///   and New partitions only) does not elect it. Kafka's auto leader
    ///   rebalance does, at its next check, up to
    ///   `leader.imbalance.check.interval.seconds` (300 s) later, beyond the
    ///   bound;
    /// - And a topic deletion whose `/admin/delete_topics/<t>` was deleted
    ///   by hand goes on in the controller's memory: the topic's partitions
    ///   are not expected to be led.
    pub fn liveness(&self, sim: &Sim) -> Vec<Finding> {
        liveness::check(self, sim)
    }

    /// The operator's edits of `/controller` (other than deleting it) and
    /// `/controller_epoch` so far: (time in ms, path).
    pub fn controller_edits(&self) -> &[(u64, String)] {
        &self.controller_edits
    }

    /// The watch notifications lost so far by fault injection
    /// (`drop_message` on a notification): (time in ms, path, broker).
    pub fn lost_notifications(&self) -> &[(u64, String, BrokerId)] {
        &self.notifications_lost
    }

    /// Paths the operator edited by hand since the last step.
    fn hand_edits(&mut self, sim: &Sim) -> Vec<String> {
        use crate::action::Action;
        let trace = sim.trace();
        if trace.len() < self.trace_seen {
            // Someone took the trace: read on from its new start.
            self.trace_seen = 0;
        }
        let mut edited = Vec::new();
        for r in trace.iter().skip(self.trace_seen) {
            if let crate::fact::Fact::WatchNotificationLost { path, broker, .. } = &*r.fact() {
                self.notifications_lost
                    .push((r.time_ms, path.clone(), *broker));
            }
            if let crate::fact::Fact::UserAction(Action::DeleteTopic { topic }) = &*r.fact() {
                self.deletion_asked.insert(topic.clone());
            }
            if let crate::fact::Fact::UserAction(
                Action::SetZnode { path, .. } | Action::CreateZnode { path, .. },
            ) = &*r.fact()
            {
                if let Some(topic) = path.strip_prefix("/admin/delete_topics/") {
                    self.deletion_asked.insert(topic.to_string());
                }
            }
            if let crate::fact::Fact::UserAction(
                Action::SetZnode { path, data } | Action::CreateZnode { path, data, .. },
            ) = &*r.fact()
            {
                self.hand_written.insert(path.clone(), data.clone());
            }
            // Kafka: PartitionReassignmentHandler handles only the creation
            // of /admin/reassign_partitions; a change of its data waits for
            // the next creation or controller failover.
            if let crate::fact::Fact::UserAction(Action::SetZnode { path, data }) = &*r.fact() {
                if path == paths::REASSIGN_PARTITIONS {
                    let named = crate::znodes::decode_reassign_partitions(data).unwrap_or_default();
                    self.stalled_reassignments
                        .extend(named.into_iter().map(|(tp, _)| tp));
                }
            }
            // Kafka: PartitionReassignmentHandler does nothing on the
            // znode's deletion, so the watch it consumes is not re-armed
            // (the controller re-arms it only when it deletes the znode
            // itself): a reassignment created next goes unseen.
            if let crate::fact::Fact::UserAction(Action::DeleteZnode { path }) = &*r.fact() {
                if path == paths::REASSIGN_PARTITIONS {
                    self.reassign_watch_lost = Some(controller_epoch_data(sim));
                }
            }
            // Kafka: a StopReplica refused as STALE_BROKER_EPOCH fails the
            // replica's deletion (TopicDeletionManager.failReplicaDeletion);
            // see `liveness` for when nothing resumes it.
            if let crate::fact::Fact::RequestHandled {
                request: "StopReplica",
                error: crate::broker::ApiError::StaleBrokerEpoch,
                ..
            } = &*r.fact()
            {
                self.stalled_deletions.extend(
                    sim.zk()
                        .observed_children(paths::DELETE_TOPICS)
                        .map(std::borrow::Cow::into_owned),
                );
            }
            if let crate::fact::Fact::UserAction(
                Action::SetZnode { path, .. }
                | Action::DeleteZnode { path }
                | Action::CreateZnode { path, .. },
            ) = &*r.fact()
            {
                edited.push(path.clone());
                self.hand_edited.insert(path.clone());
                // Kafka can wedge on these itself (see `liveness`); deleting
                // /controller is an ordinary re-election.
                let deleting_controller = path == paths::CONTROLLER
                    && matches!(
                        *r.fact(),
                        crate::fact::Fact::UserAction(Action::DeleteZnode { .. })
                    );
                if (path == paths::CONTROLLER || path == paths::CONTROLLER_EPOCH)
                    && !deleting_controller
                {
                    self.controller_edits.push((r.time_ms, path.clone()));
                }
            }
        }
        self.trace_seen = trace.len();
        edited
    }

    /// Reassignments begun before their partition's first election: listed
    /// in `/admin/reassign_partitions` while a controller is active and the
    /// partition has no state znode.
    ///
    /// Listed after the operator deleted `/admin/reassign_partitions` by
    /// hand, under the same controller.
    ///
    /// And reassignments of a topic being deleted whose partition has no
    /// live leader: Kafka elects no leader for a topic queued for deletion
    /// (`PartitionStateMachine.triggerOnlinePartitionStateChange`), so the
    /// ISR never grows, the reassignment never completes, and the deletion
    /// waits for it (a reassignment in progress makes its topic ineligible).
    fn note_stalled_admin(&mut self, sim: &Sim) {
        let zk = sim.zk();
        if self
            .reassign_watch_lost
            .as_ref()
            .is_some_and(|e| *e != controller_epoch_data(sim))
        {
            self.reassign_watch_lost = None;
        }
        let listed = zk
            .observed(paths::REASSIGN_PARTITIONS)
            .and_then(|n| crate::znodes::decode_reassign_partitions(&n.data.text()))
            .unwrap_or_default();
        let controller = zk.observed(paths::CONTROLLER).is_some();
        for (tp, _) in &listed {
            if (controller && zk.observed(&paths::partition_state(tp)).is_none())
                || self.reassign_watch_lost.is_some()
            {
                self.stalled_reassignments.insert(tp.clone());
            }
        }
        self.last_reassigning = listed.iter().map(|(tp, _)| tp.clone()).collect();
        for (name, t) in &self.topics {
            self.last_reassigning.extend(
                t.reassigning
                    .iter()
                    .map(|p| TopicPartition::new(name.as_str(), *p)),
            );
        }
        for topic in zk.observed_children(paths::DELETE_TOPICS) {
            let Some(seen) = self.topics.get(&*topic) else {
                continue;
            };
            let reassigning = seen
                .reassigning
                .iter()
                .map(|p| TopicPartition::new(&*topic, *p))
                .chain(
                    listed
                        .iter()
                        .filter(|(tp, _)| tp.topic.as_str() == topic)
                        .map(|(tp, _)| tp.clone()),
                );
            for tp in reassigning {
                let led = self
                    .partitions
                    .get(&tp)
                    .and_then(|p| p.leader)
                    .is_some_and(|l| {
                        zk.observed(&format!("{}/{}", paths::BROKER_IDS, l.0))
                            .is_some()
                    });
                if !led {
                    self.stalled_reassignments.insert(tp);
                }
            }
        }
    }

    /// Forget a topic's history: a new generation begins.
    fn restart_topic(&mut self, topic: &str) {
        self.partitions.retain(|tp, _| tp.topic != topic);
        self.acked.retain(|tp, _| tp.topic != topic);
        self.unacked.retain(|_, tp| tp.topic != topic);
        self.next_generation += 1;
        if let Some(t) = self.topics.get_mut(topic) {
            t.generation = self.next_generation;
        }
    }

    /// ZooKeeper: the controller epoch, topics and partition state znodes.
    fn scan_zk(&mut self, sim: &Sim, edited: &[String], out: &mut Out) {
        let zk = sim.zk();
        let key = (zk.zxid(), zk.has_pending());
        if edited.is_empty() && self.zk_seen.is_some_and(|(z, p)| z == key.0 && !p) {
            return;
        }
        self.zk_seen = Some(key);
        let now = sim.now();
        // The operator's own edits start their znodes' histories afresh.
        for path in edited {
            if path == paths::CONTROLLER_EPOCH {
                self.max_controller_epoch = sim.controller_epoch();
                self.epoch_owner.clear();
            } else if let Some(rest) = path.strip_prefix("/brokers/topics/") {
                let topic = rest.split('/').next().unwrap_or_default().to_string();
                self.restart_topic(&topic);
            }
        }
        // Kafka: KafkaController.registerControllerAndIncrementControllerEpoch
        // increments /controller_epoch with a conditional write: it only grows.
        let epoch = sim.controller_epoch();
        if epoch < self.max_controller_epoch {
            out.find(
                invariants::CONTROLLER_EPOCH_MONOTONIC,
                String::new(),
                format!(
                    "/controller_epoch went from {} to {epoch}",
                    self.max_controller_epoch
                ),
            );
        }
        self.max_controller_epoch = self.max_controller_epoch.max(epoch);

        // Topics: a vanished or re-created topic starts afresh.
        let names: BTreeSet<String> = zk
            .observed_children(paths::TOPICS)
            .map(std::borrow::Cow::into_owned)
            .collect();
        let gone: Vec<String> = self
            .topics
            .keys()
            .filter(|t| !names.contains(*t))
            .cloned()
            .collect();
        for t in gone {
            self.restart_topic(&t);
            self.topics.remove(&t);
        }
        for name in &names {
            let Some(node) = zk.observed(&paths::topic(name)) else {
                continue;
            };
            let (czxid, mzxid) = (node.stat.czxid, node.stat.mzxid);
            let known = self.topics.get(name).map(|t| (t.czxid, t.mzxid));
            if known.is_some_and(|(c, _)| c != czxid) {
                self.restart_topic(name);
            }
            if known != Some((czxid, mzxid)) {
                let assignment = crate::znodes::decode_topic_assignment(&node.data.text())
                    .unwrap_or_default()
                    .into_iter()
                    .collect();
                let reassigning = crate::znodes::decode_reassigning(&node.data.text())
                    .into_iter()
                    .map(|(p, _)| p)
                    .collect();
                if known.is_none() {
                    self.next_generation += 1;
                }
                let generation = self
                    .topics
                    .get(name)
                    .map_or(self.next_generation, |t| t.generation);
                self.topics.insert(
                    name.clone(),
                    TopicSeen {
                        czxid,
                        mzxid,
                        assignment,
                        reassigning,
                        generation,
                    },
                );
            }
        }

        // Partition state znodes.
        let edited_tps: BTreeSet<&str> = edited.iter().map(String::as_str).collect();
        for (name, topic) in &self.topics {
            for (p, ar) in &topic.assignment {
                let tp = TopicPartition::new(name.as_str(), *p);
                let path = paths::partition_state(&tp);
                let node = zk.observed(&path);
                let mzxid = node.map_or(-1, |n| n.stat.mzxid);
                let seen = self.partitions.entry(tp.clone()).or_insert(PartitionSeen {
                    mzxid: -1,
                    leader_epoch: -1,
                    max_leader_epoch: -1,
                    changed_at: now,
                    ..PartitionSeen::default()
                });
                if seen.mzxid == mzxid {
                    continue;
                }
                seen.mzxid = mzxid;
                seen.changed_at = now;
                let state = node.and_then(|n| n.partition_state());
                let Some(l) = state else {
                    seen.leader = None;
                    seen.isr.clear();
                    seen.leader_epoch = -1;
                    continue;
                };
                // The operator's own text, though it becomes visible only
                // after the writes of the controller's event in progress
                // that came before it.
                let by_hand = edited_tps.contains(path.as_str())
                    || node.is_some_and(|n| {
                        self.hand_written.get(&path).is_some_and(|h| n.data == *h)
                    });
                if !by_hand {
                    // Kafka: Election.scala and PartitionStateMachine: the
                    // leader is chosen from the ISR (an unclean election
                    // makes the ISR [leader]); a leader's own ISR updates
                    // (Partition.updateIsr) keep it.
                    if let Some(leader) = l.leader.filter(|x| !l.isr.contains(x)) {
                        out.find(
                            invariants::LEADER_IN_ISR,
                            tp.to_string(),
                            format!("{tp}: leader {leader} is not in ISR {:?}", ids(&l.isr)),
                        );
                    }
                    // Kafka: the ISR holds assigned replicas, but for a
                    // sole member of a leaderless ISR (see `isr_stray`),
                    // and for a moment while a reassignment runs: one that
                    // supersedes another writes the new assignment before it
                    // takes the replicas it no longer needs out of the ISR
                    // (updateCurrentReassignment, U1 before U3).
                    // And the leader expands the ISR from its own
                    // assignment, the one its last LeaderAndIsr carried
                    // (Partition.maybeExpandIsr): a reassignment that
                    // completes without one (its leader move failed) leaves
                    // it the old assignment, and the leader may take back a
                    // replica already dropped from it.
                    let leader_ar: &[BrokerId] = l
                        .leader
                        .and_then(|b| sim.brokers().get(&b))
                        .and_then(|b| b.replicas.get(&tp))
                        .map_or(&[], |lp| lp.replicas());
                    let stray = invariants::isr_stray(l.leader, &l.isr, ar)
                        .filter(|_| !topic.reassigning.contains(p))
                        .and_then(|_| {
                            l.isr
                                .iter()
                                .copied()
                                .find(|r| !ar.contains(r) && !leader_ar.contains(r))
                        });
                    if let Some(stray) = stray {
                        out.find(
                            invariants::ISR_SUBSET_OF_AR,
                            tp.to_string(),
                            format!(
                                "{tp}: ISR member {stray} is not an assigned replica of {:?}",
                                ids(ar)
                            ),
                        );
                    }
                    // Kafka: every election writes leaderEpoch + 1; ISR
                    // updates keep it.
                    if l.leader_epoch < seen.leader_epoch {
                        out.find(
                            invariants::LEADER_EPOCH_MONOTONIC,
                            tp.to_string(),
                            format!(
                                "{tp}: leader epoch went from {} to {}",
                                seen.leader_epoch, l.leader_epoch
                            ),
                        );
                    }
                    // An unclean election, as ZooKeeper shows it: a new leader
                    // epoch whose leader was not in the ISR before.
                    if l.leader_epoch > seen.leader_epoch && seen.leader_epoch >= 0 {
                        if let Some(leader) = l.leader {
                            if !seen.isr.contains(&leader) {
                                seen.unclean_at.push(now);
                                seen.hw = None;
                            }
                        }
                    }
                } else {
                    seen.max_leader_epoch = -1;
                }
                let reassigning =
                    self.last_reassigning.contains(&tp) || topic.reassigning.contains(p);
                if l.leader.is_some() {
                    self.leaderless_after_reassignment.remove(&tp);
                } else if reassigning {
                    self.leaderless_after_reassignment.insert(tp.clone());
                }
                seen.leader = l.leader;
                seen.isr = l.isr.to_vec();
                seen.leader_epoch = l.leader_epoch;
                seen.max_leader_epoch = seen.max_leader_epoch.max(l.leader_epoch);
            }
        }
    }

    /// The controllers: one per epoch, and agreement once nothing is pending.
    fn check_controllers(&mut self, sim: &Sim, out: &mut Out) {
        // Kafka: only the broker that created /controller and incremented
        // /controller_epoch acts with that epoch (KafkaController.elect);
        // seen both in ActiveControllerCount with the epoch a controller
        // stamps on its requests, and in the requests on the wire.
        let mut acting: BTreeMap<i32, BrokerId> = BTreeMap::new();
        for b in sim.brokers().values() {
            if b.is_up() && b.controller.is_active(b.id) && b.controller.ctx.epoch > 0 {
                let epoch = b.controller.ctx.epoch;
                if let Some(other) = acting.insert(epoch, b.id).filter(|o| *o != b.id) {
                    out.find(
                        invariants::SINGLE_CONTROLLER_PER_EPOCH,
                        epoch.to_string(),
                        format!(
                            "brokers {other} and {} both act as controller with epoch {epoch}",
                            b.id
                        ),
                    );
                }
            }
        }
        let sent = sim
            .requests()
            .values()
            .filter(|r| !matches!(r.body, RequestBody::ControlledShutdown { .. }))
            .map(|r| (r.controller_epoch, r.from));
        for (epoch, from) in acting.into_iter().chain(sent) {
            let owner = *self.epoch_owner.entry(epoch).or_insert(from);
            if owner != from {
                out.find(
                    invariants::SINGLE_CONTROLLER_PER_EPOCH,
                    epoch.to_string(),
                    format!(
                        "brokers {owner} and {from} both acted as controller with epoch {epoch}"
                    ),
                );
            }
        }
        // Kafka: every broker's controller module watches /controller
        // (ControllerChangeHandler) and re-reads activeControllerId; once no
        // notification, request or event is pending, all agree with it.
        // A broker that lost a notification of /controller (fault
        // injection) is left out: its one-shot watch is gone, and Kafka's
        // broker stays with what it last read until it reads /controller
        // again (ZooKeeperClient re-arms a watch only on a read).
        let zk_controller = sim.controller_id();
        let any_disagree = sim.brokers().values().any(|b| {
            b.status == BrokerStatus::Running && b.controller.active_controller_id != zk_controller
        });
        // (Whether the sim is quiet is asked only when it matters: it walks
        // the queue in debug builds.)
        if any_disagree && sim.is_quiet() {
            let blind: BTreeSet<BrokerId> = self
                .notifications_lost
                .iter()
                .filter(|(_, path, _)| path == paths::CONTROLLER)
                .map(|(_, _, b)| *b)
                .collect();
            let disagree: Vec<String> = sim
                .brokers()
                .values()
                .filter(|b| {
                    !blind.contains(&b.id)
                        && b.status == BrokerStatus::Running
                        && b.controller.active_controller_id != zk_controller
                })
                .map(|b| {
                    let believes = b.controller.active_controller_id.map(|x| x.0);
                    format!("broker {} believes {believes:?}", b.id)
                })
                .collect();
            if !disagree.is_empty() {
                out.find(
                    invariants::CONTROLLER_AGREEMENT_WHEN_QUIET,
                    String::new(),
                    format!(
                        "/controller names {:?} but {}",
                        zk_controller.map(|x| x.0),
                        disagree.join(", ")
                    ),
                );
            }
        }
    }

    /// The brokers' answers: nothing older than what each already showed,
    /// and one leader per leader epoch.
    fn check_brokers(&mut self, sim: &Sim, out: &mut Out) {
        let mut leaders: BTreeMap<(&TopicPartition, i32), BrokerId> = BTreeMap::new();
        for b in sim.brokers().values() {
            let seen = self.brokers.entry(b.id).or_default();
            if seen.incarnation != b.incarnation {
                // A new process: everything it held in memory is new.
                *seen = BrokerSeen {
                    incarnation: b.incarnation,
                    ..BrokerSeen::default()
                };
            }
            if !b.is_up() {
                continue;
            }
            // Kafka: ReplicaManager rejects a request whose controller epoch
            // is older than one it accepted (STALE_CONTROLLER_EPOCH).
            if b.controller_epoch_seen < seen.controller_epoch_seen {
                out.find(
                    invariants::NO_STALE_REQUEST_APPLIED,
                    format!("broker {}", b.id),
                    format!(
                        "broker {} accepted controller epoch {} after {}",
                        b.id, b.controller_epoch_seen, seen.controller_epoch_seen
                    ),
                );
            }
            seen.controller_epoch_seen = seen.controller_epoch_seen.max(b.controller_epoch_seen);
            // Kafka: ReplicaManager.becomeLeaderOrFollower applies only a
            // newer leader epoch to a hosted replica.
            for (tp, lp) in &b.replicas {
                let Some(generation) =
                    generation_of(&self.topics, &self.partitions, tp, lp.leader_epoch)
                else {
                    continue;
                };
                if lp.leader == b.id.0 as i32 {
                    if let Some(other) = leaders.insert((tp, lp.leader_epoch), b.id) {
                        out.find(
                            SINGLE_LEADER_PER_LEADER_EPOCH,
                            tp.to_string(),
                            format!(
                                "{tp}: brokers {other} and {} both lead at leader epoch {}",
                                b.id, lp.leader_epoch
                            ),
                        );
                    }
                }
                let now_seen = (lp.leader_epoch, generation);
                let last = match seen.replicas.get_mut(tp) {
                    Some(v) => Some(std::mem::replace(v, now_seen)),
                    None => seen.replicas.insert(tp.clone(), now_seen),
                };
                if let Some((e, _)) = last.filter(|(e, g)| *g == generation && lp.leader_epoch < *e)
                {
                    out.find(
                        invariants::NO_STALE_REQUEST_APPLIED,
                        format!("broker {} {tp}", b.id),
                        format!(
                            "broker {} hosts {tp} at leader epoch {} after {e}",
                            b.id, lp.leader_epoch
                        ),
                    );
                }
            }
            // Kafka: MetadataCache.updateMetadata takes only requests that
            // passed the controller epoch check, which carry the states the
            // controller read from ZooKeeper: no cached state goes back.
            if seen.cache.as_ref() == Some(&b.metadata.partitions) {
                continue;
            }
            seen.cache = Some(b.metadata.partitions.clone());
            let mut cached = BTreeMap::new();
            for (tp, p) in b.metadata.partitions.iter() {
                let Some(generation) =
                    generation_of(&self.topics, &self.partitions, &tp, p.leader_epoch)
                else {
                    continue;
                };
                if let Some((ce, le, _)) = seen.cached.get(&tp).filter(|(_, _, g)| *g == generation)
                {
                    if p.leader_epoch < *le || p.controller_epoch < *ce {
                        out.find(
                            invariants::NO_STALE_REQUEST_APPLIED,
                            format!("broker {} cache {tp}", b.id),
                            format!(
                                "broker {}'s metadata for {tp} went from leader epoch {le} (controller epoch {ce}) to {} ({})",
                                b.id, p.leader_epoch, p.controller_epoch
                            ),
                        );
                    }
                }
                cached.insert(tp.clone(), (p.controller_epoch, p.leader_epoch, generation));
            }
            seen.cached = cached;
        }
    }
}

/// The topic generation a broker's state of `tp` at `leader_epoch`
/// belongs to: `None` if ZooKeeper has no such topic, or has never shown
/// that leader epoch in the topic's current life (a leftover of a
/// deleted topic of the same name).
fn generation_of(
    topics: &BTreeMap<String, TopicSeen>,
    partitions: &BTreeMap<TopicPartition, PartitionSeen>,
    tp: &TopicPartition,
    leader_epoch: i32,
) -> Option<u64> {
    let topic = topics.get(tp.topic.as_str())?;
    let seen = partitions.get(tp)?;
    (leader_epoch <= seen.max_leader_epoch).then_some(topic.generation)
}

impl Observer {
    /// What producers were told: newly acknowledged records.
    fn read_producers(&mut self, sim: &Sim) {
        let produced = sim.produced();
        let start = produced.partition_point(|r| r.id < self.next_record);
        for r in &produced[start..] {
            self.next_record = r.id + 1;
            let acked = Acked {
                id: r.id,
                offset: r.offset,
                all: r.acks == crate::log::Acks::All,
                produced_at: r.produced_at,
            };
            if r.acked_at.is_some() {
                self.acked.entry(r.tp.clone()).or_default().push(acked);
            } else if acked.all {
                self.unacked.insert(r.id, r.tp.clone());
            }
        }
        if self.unacked.is_empty() {
            return;
        }
        let mut done = Vec::new();
        for id in self.unacked.keys() {
            match produced.binary_search_by_key(id, |r| r.id) {
                Ok(i) => {
                    if let Some(r) = produced.get(i).filter(|r| r.acked_at.is_some()) {
                        done.push(*id);
                        self.acked.entry(r.tp.clone()).or_default().push(Acked {
                            id: r.id,
                            offset: r.offset,
                            all: true,
                            produced_at: r.produced_at,
                        });
                    }
                }
                // Its topic was deleted.
                Err(_) => done.push(*id),
            }
        }
        for id in done {
            self.unacked.remove(&id);
        }
    }

    /// The serving leader of a partition: the leader ZooKeeper names, up,
    /// and leading it at ZooKeeper's leader epoch.
    fn serving_leader(&self, sim: &Sim, tp: &TopicPartition) -> Option<(BrokerId, u32, i32)> {
        serving(sim, tp, self.partitions.get(tp)?)
    }

    /// Acknowledged records are still in the serving leader's log, and its
    /// high watermark never goes back, unless an unclean election happened.
    fn check_records(&mut self, sim: &Sim, out: &mut Out) {
        for (tp, seen) in self.partitions.iter_mut() {
            if self.deletion_asked.contains(tp.topic.as_str()) {
                continue;
            }
            let Some((leader, incarnation, epoch)) = serving(sim, tp, seen) else {
                continue;
            };
            // A leader without a log serves an empty one.
            let empty = crate::log::Log::default();
            let log = sim.log(leader, tp).unwrap_or(&empty);
            // Kafka: the high watermark is the committed offset; a clean
            // leader (from the ISR) has every committed record and
            // Partition.makeLeader keeps it (KIP-101).
            if let Some(hw) = seen.hw.filter(|hw| log.high_watermark < *hw) {
                out.find(
                    invariants::HIGH_WATERMARK_MONOTONIC_CLEAN,
                    tp.to_string(),
                    format!(
                        "{tp}: leader {leader} serves high watermark {} after {hw} without an unclean election",
                        log.high_watermark
                    ),
                );
            }
            seen.hw = Some(seen.hw.unwrap_or(0).max(log.high_watermark));
            let acked = self.acked.get_mut(tp);
            let count = acked.as_ref().map_or(0, |a| a.len());
            let sig = (leader, incarnation, epoch, log.log_end_offset(), count);
            if seen.checked == Some(sig) || count == 0 {
                continue;
            }
            seen.checked = Some(sig);
            let Some(acked) = acked else { continue };
            let now = sim.now();
            let lost = &mut self.lost;
            acked.retain(|r| {
                if log.has(r.offset, r.id) {
                    return true;
                }
                // Kafka: acks=all is acknowledged once every ISR member has
                // the record; only a leader from outside the ISR (an unclean
                // election) can lack it.
                let unclean = seen
                    .unclean_at
                    .iter()
                    .any(|t| *t >= r.produced_at && *t <= now);
                if r.all && !unclean {
                    lost.push((tp.clone(), r.offset, now));
                    out.find(
                        invariants::NO_ACKED_RECORD_LOST_CLEAN,
                        format!("{tp} {}", r.offset),
                        format!(
                            "{tp}: acks=all record at offset {} was acknowledged but leader {leader} (leader epoch {epoch}) lacks it, without an unclean election",
                            r.offset
                        ),
                    );
                }
                false
            });
            let count = acked.len();
            seen.checked = Some((leader, incarnation, epoch, log.log_end_offset(), count));
        }
    }
}

/// The serving leader of `tp` as `seen` in ZooKeeper: (broker, its start,
/// leader epoch), if that broker is up and leads it at that leader epoch.
fn serving(sim: &Sim, tp: &TopicPartition, seen: &PartitionSeen) -> Option<(BrokerId, u32, i32)> {
    let leader = seen.leader?;
    let b = sim.brokers().get(&leader)?;
    let lp = b.replicas.get(tp)?;
    (b.is_up() && lp.leader == leader.0 as i32 && lp.leader_epoch == seen.leader_epoch).then_some((
        leader,
        b.incarnation,
        seen.leader_epoch,
    ))
}
