//! Broker membership on the controller (Kafka 2.4.0's `KafkaController`):
//! `onBrokerFailure`, `onReplicasBecomeOffline`, `onBrokerStartup` and
//! `doControlledShutdown`.

use super::batch::RequestBatch;
use super::channel::ControlledShutdownError;
use super::election::Strategy;
use super::replica_state_machine::ReplicaRun;
use super::states::{PartitionState, ReplicaState};
use super::{ControllerError, Env, KafkaController};
use crate::ids::{BrokerId, TopicPartition};
use crate::zk_client::paths;
use std::collections::BTreeSet;

impl KafkaController {
    /// `onBrokerFailure`.
    pub(super) fn on_broker_failure(
        &mut self,
        env: &mut Env<'_>,
        dead: &BTreeSet<BrokerId>,
    ) -> Result<(), ControllerError> {
        for b in dead {
            self.ctx.shutting_down.remove(b);
        }
        let replicas = self.replicas_on(dead);
        self.on_replicas_become_offline(env, &replicas)?;
        for b in dead {
            env.client.unregister_data_handler(&paths::broker(*b));
        }
        Ok(())
    }

    /// `onReplicasBecomeOffline`.
    pub(super) fn on_replicas_become_offline(
        &mut self,
        env: &mut Env<'_>,
        replicas: &[(TopicPartition, BrokerId)],
    ) -> Result<(), ControllerError> {
        let (deleting, rest): (Vec<_>, Vec<_>) = replicas
            .iter()
            .cloned()
            .partition(|(tp, _)| self.ctx.topics_to_be_deleted.contains(tp.topic.as_str()));
        // `isReplicaOnline(leader, tp, false)`: live and not shutting down,
        // as a bitmap (one load a partition, not two tree walks).
        use super::election::{BrokerBits, BrokerSet};
        let online: BrokerBits = self.ctx.live_broker_ids().into_iter().collect();
        let without_leader: Vec<TopicPartition> = self
            .ctx
            .leadership
            .iter()
            .filter(|(tp, l)| {
                !l.leader.is_some_and(|b| online.has(b))
                    && !self.ctx.topics_to_be_deleted.contains(tp.topic.as_str())
            })
            .map(|(tp, _)| tp)
            .collect();
        self.handle_partition_state_changes(
            env,
            &without_leader,
            PartitionState::OfflinePartition,
            None,
        )?;
        self.trigger_online_partition_state_change(env, None)?;
        self.handle_replica_state_changes(env, &rest, ReplicaState::OfflineReplica)?;
        if !deleting.is_empty() {
            self.fail_replica_deletion(env, &deleting)?;
        }
        if without_leader.is_empty() {
            let live = self.ctx.live_or_shutting_down();
            self.send_update_metadata(env, &live, Vec::new());
        }
        Ok(())
    }

    /// `onBrokerStartup`.
    pub(super) fn on_broker_startup(
        &mut self,
        env: &mut Env<'_>,
        new: &BTreeSet<BrokerId>,
    ) -> Result<(), ControllerError> {
        // Not as its event's last call: in one piece.
        let may_stop = env.may_stop.take();
        let result = self.broker_startup_from(env, BrokerStartupPiece::Start(new.clone()));
        env.may_stop = may_stop;
        result
    }

    /// `onBrokerStartup` from `piece` on, as its event's last call: between
    /// its parts, and inside its replica changes, elections and first
    /// leaders (a part under way that stopped inside hands back its own
    /// piece), when `env.may_stop`, it stops and says where
    /// ([`KafkaController::stopped_at`]).
    pub(super) fn broker_startup_from(
        &mut self,
        env: &mut Env<'_>,
        mut piece: BrokerStartupPiece,
    ) -> Result<(), ControllerError> {
        use BrokerStartupPiece::*;
        loop {
            piece = match piece {
                Start(new) => {
                    // Old brokers learn of the new ones: no partition
                    // states (nothing changed).
                    let existing: BTreeSet<BrokerId> = self
                        .ctx
                        .live_or_shutting_down()
                        .difference(&new)
                        .copied()
                        .collect();
                    self.send_update_metadata(env, &existing, Vec::new());
                    let all = self.ctx.leadership.len();
                    Metadata(new, Box::new(MetadataBuild::with_capacity(all)))
                }
                Metadata(new, mut build) => {
                    if self.metadata_from(&mut build, env.may_stop) {
                        // The new brokers get every partition's state.
                        let states = std::mem::take(&mut build.states).into();
                        self.send_shared_update_metadata(env, &new, states);
                        let replicas = self.replicas_on(&new);
                        // What follows needs only their topics: the list
                        // itself (600,000 replicas at a large start-up) goes
                        // to the replica changes, not copied.
                        let topics = topics_of(&replicas);
                        if replicas.is_empty() {
                            Online(new, topics)
                        } else {
                            let online = ReplicaState::OnlineReplica;
                            let run = ReplicaRun::new(replicas, online);
                            ReplicasUnderWay(new, topics, Box::new(run))
                        }
                    } else {
                        Metadata(new, build)
                    }
                }
                ReplicasUnderWay(new, topics, mut run) => {
                    if self.replicas_from(env, &mut run, env.may_stop)? {
                        Online(new, topics)
                    } else {
                        ReplicasUnderWay(new, topics, run)
                    }
                }
                Online(new, topics) => match self.begin_online_state_change(env, None) {
                    Some(run) => OnlineUnderWay(new, topics, Box::new(run)),
                    None => Rest(new, topics),
                },
                OnlineUnderWay(new, topics, mut run) => {
                    // Nobody reads the per-partition outcomes here.
                    if self.online_from(env, &mut run, None, env.may_stop)? {
                        Rest(new, topics)
                    } else {
                        OnlineUnderWay(new, topics, run)
                    }
                }
                Rest(new, topics) => return self.broker_startup_rest(env, &new, &topics),
            };
            if env.may_stop.is_some() {
                self.stopped_at = Some(super::Piece::BrokerStartup(piece));
                return Ok(());
            }
        }
    }

    /// The new brokers' UpdateMetadata states (every partition's, in
    /// partition order), from where `build` is: [`STATES_PER_SLICE`] times
    /// `slice` partitions at a time (false), true when every one is built.
    fn metadata_from(&self, build: &mut MetadataBuild, slice: Option<usize>) -> bool {
        let assignments = &self.ctx.assignments;
        let states = &mut build.states;
        let slice = slice.map(|n| n.saturating_mul(STATES_PER_SLICE));
        self.ctx
            .leadership
            .walk_slice(&mut build.at, slice, |tp, l| {
                let replicas = assignments.get(tp).unwrap_or(&super::batch::NO_REPLICAS);
                let info = super::batch::partition_info(tp, l, replicas, false);
                states.push(std::rc::Rc::new(info));
            })
    }

    /// `onBrokerStartup` after `triggerOnlinePartitionStateChange`.
    fn broker_startup_rest(
        &mut self,
        env: &mut Env<'_>,
        new: &BTreeSet<BrokerId>,
        topics: &BTreeSet<String>,
    ) -> Result<(), ControllerError> {
        // maybeResumeReassignments: Kafka 2.4 resumes every reassignment whose
        // target replicas (RS minus the removing ones, not only the adding
        // ones) include a new broker; onPartitionReassignment runs again.
        self.maybe_resume_reassignments(env, |_, target| target.iter().any(|b| new.contains(b)))?;
        self.resume_deletion_for_topics(env, topics)?;
        for b in new {
            env.client.register_data_handler(&paths::broker(*b));
        }
        Ok(())
    }

    // ----- controlled shutdown ------------------------------------------------

    /// `doControlledShutdown` from `piece` on, then its answer to the broker
    /// (the partitions it still leads, or why not; an error raised answers
    /// with the error too). Between its parts, and inside its elections and
    /// replica changes, when `env.may_stop`, it stops and says where
    /// ([`KafkaController::stopped_at`]).
    pub(super) fn controlled_shutdown_from(
        &mut self,
        env: &mut Env<'_>,
        piece: ShutdownPiece,
    ) -> Result<(), ControllerError> {
        let id = piece.broker();
        match self.shutdown_pieces(env, piece) {
            Ok(Some(reply)) => {
                env.out.shutdown_replies.push((id, reply));
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(e) => {
                env.out.shutdown_replies.push((id, Err(e.clone().into())));
                Err(e)
            }
        }
    }

    /// The parts of `doControlledShutdown`: its answer, or `None` when it
    /// stopped.
    #[allow(clippy::type_complexity)]
    fn shutdown_pieces(
        &mut self,
        env: &mut Env<'_>,
        mut piece: ShutdownPiece,
    ) -> Result<Option<Result<Vec<TopicPartition>, ControlledShutdownError>>, ControllerError> {
        use ShutdownPiece::*;
        loop {
            piece = match piece {
                Start(id, broker_epoch) => match self.shutdown_start(env, id, broker_epoch) {
                    Ok((led, followed)) => {
                        let strategy = Strategy::ControlledShutdown;
                        let run = self.begin_online(env, &led, Some(strategy));
                        Elections(id, followed, Box::new(run))
                    }
                    Err(refused) => return Ok(Some(Err(refused))),
                },
                Elections(id, followed, mut run) => {
                    // Its outcomes are not read: the partitions it still
                    // leads are read from the context at the end.
                    if self.online_from(env, &mut run, None, env.may_stop)? {
                        Followed(id, followed)
                    } else {
                        Elections(id, followed, run)
                    }
                }
                Followed(id, followed) => {
                    if followed.is_empty() {
                        Remaining(id)
                    } else {
                        let mut batch = RequestBatch::default();
                        for tp in &followed {
                            batch.add_stop_replica(&[id], tp, false);
                        }
                        batch.send(&self.ctx, &self.ctx.topics_to_be_deleted, env);
                        let replicas: Vec<(TopicPartition, BrokerId)> =
                            followed.iter().map(|tp| (tp.clone(), id)).collect();
                        let run = ReplicaRun::new(replicas, ReplicaState::OfflineReplica);
                        OfflineUnderWay(id, Box::new(run))
                    }
                }
                OfflineUnderWay(id, mut run) => {
                    if self.replicas_from(env, &mut run, env.may_stop)? {
                        Remaining(id)
                    } else {
                        OfflineUnderWay(id, run)
                    }
                }
                Remaining(id) => return Ok(Some(Ok(self.still_led(env, id)))),
            };
            if env.may_stop.is_some() {
                self.stopped_at = Some(super::Piece::Shutdown(piece));
                return Ok(None);
            }
        }
    }

    /// `doControlledShutdown`'s start: the broker's epoch checked, the
    /// broker marked shutting down; the partitions with a replica on it,
    /// another replica and a leadership, whose topic is not being deleted,
    /// split into those it leads and those it follows (each in partition
    /// order).
    #[allow(clippy::type_complexity)]
    fn shutdown_start(
        &mut self,
        env: &mut Env<'_>,
        id: BrokerId,
        broker_epoch: i64,
    ) -> Result<(Vec<TopicPartition>, Vec<TopicPartition>), ControlledShutdownError> {
        if let Some(cached) = self.ctx.live_brokers.get(&id) {
            if broker_epoch != -1 && broker_epoch < *cached {
                return Err(ControlledShutdownError::StaleBrokerEpoch {
                    broker: id,
                    broker_epoch,
                    current: *cached,
                });
            }
        } else {
            return Err(ControlledShutdownError::BrokerNotAvailable(id));
        }
        self.ctx.shutting_down.insert(id);
        env.note(
            "controlled_shutdown",
            crate::fact::Fact::ShuttingDownBroker {
                broker: id,
                all: self.ctx.shutting_down.iter().copied().collect(),
            },
        );
        let mut led = Vec::new();
        let mut followed = Vec::new();
        for (tp, a) in &self.ctx.assignments {
            if !a.contains(&id) || a.len() <= 1 {
                continue;
            }
            let Some(l) = self.ctx.leadership.get(&tp) else {
                continue;
            };
            if self.ctx.topics_to_be_deleted.contains(tp.topic.as_str()) {
                continue;
            }
            if l.leader == Some(id) {
                led.push(tp.clone());
            } else {
                followed.push(tp.clone());
            }
        }
        Ok((led, followed))
    }

    /// The partitions the broker still leads at the end, noted.
    fn still_led(&mut self, env: &mut Env<'_>, id: BrokerId) -> Vec<TopicPartition> {
        let remaining: Vec<TopicPartition> = self
            .ctx
            .leadership
            .iter()
            .filter(|(tp, l)| {
                l.leader == Some(id)
                    && self.ctx.assignments.get(tp).is_some_and(|a| a.len() > 1)
                    && !self.ctx.topics_to_be_deleted.contains(tp.topic.as_str())
            })
            .map(|(tp, _)| tp)
            .collect();
        env.note(
            "controlled_shutdown",
            crate::fact::Fact::StillLeads {
                broker: id,
                partitions: remaining.clone(),
            },
        );
        remaining
    }
}

/// The parts of `onBrokerStartup`, each with what it is given: at a large
/// start-up its `triggerOnlinePartitionStateChange` writes the first leaders
/// of every partition, so the page may draw between them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BrokerStartupPiece {
    /// From the start, for these new brokers.
    Start(BTreeSet<BrokerId>),
    /// Their replicas going online (a broker's at a time); with the topics
    /// they are replicas of, whose deletions resume at the end.
    ReplicasUnderWay(BTreeSet<BrokerId>, BTreeSet<String>, Box<ReplicaRun>),
    /// `triggerOnlinePartitionStateChange` next.
    Online(BTreeSet<BrokerId>, BTreeSet<String>),
    /// That under way.
    OnlineUnderWay(
        BTreeSet<BrokerId>,
        BTreeSet<String>,
        Box<super::partition_state_machine::OnlineRun>,
    ),
    /// The reassignments and deletions to resume, the brokers' handlers.
    Rest(BTreeSet<BrokerId>, BTreeSet<String>),
    /// The new brokers' UpdateMetadata states being built: at 200,000
    /// partitions, 200,000 states (tens of milliseconds of the simulator's
    /// work), so the page may draw between slices of them.
    Metadata(BTreeSet<BrokerId>, Box<MetadataBuild>),
}

/// The topics of `replicas`, each name copied once, not once per replica
/// (600,000 at a large start-up), and inserted one by one (a collect sorts,
/// with a copy of the sort of its own in the page's .wasm).
fn topics_of(replicas: &[(TopicPartition, BrokerId)]) -> BTreeSet<String> {
    let mut topics: BTreeSet<String> = BTreeSet::new();
    let mut last: Option<&str> = None;
    for (tp, _) in replicas {
        let name = tp.topic.as_str();
        if last != Some(name) && !topics.contains(name) {
            topics.insert(name.to_string());
        }
        last = Some(name);
    }
    topics
}

/// How many partition states [`BrokerStartupPiece::Metadata`] builds per
/// unit of a piece's slice: a state is a copy of a few words, about a
/// thirtieth of an election's work.
const STATES_PER_SLICE: usize = 32;

/// The UpdateMetadata states built so far for the new brokers, and where
/// the walk over the context's leaderships goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataBuild {
    at: crate::partition_map::Resume,
    states: Vec<super::channel::SharedState>,
}

impl MetadataBuild {
    fn with_capacity(n: usize) -> MetadataBuild {
        MetadataBuild {
            at: Default::default(),
            states: Vec::with_capacity(n),
        }
    }
}

/// The parts of `doControlledShutdown`, each with what it is given: a broker
/// leading 10,000 partitions moves their leaders and shrinks the ISRs of
/// 20,000 more, so the page may draw between them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShutdownPiece {
    /// From the start: this broker, with the epoch its request carries.
    Start(BrokerId, i64),
    /// Its led partitions' elections under way (with the partitions it
    /// follows, for what comes next).
    Elections(
        BrokerId,
        Vec<TopicPartition>,
        Box<super::partition_state_machine::OnlineRun>,
    ),
    /// StopReplica for the partitions it follows, then their replicas
    /// offline.
    Followed(BrokerId, Vec<TopicPartition>),
    /// That under way.
    OfflineUnderWay(BrokerId, Box<ReplicaRun>),
    /// The partitions it still leads, its answer.
    Remaining(BrokerId),
}

impl ShutdownPiece {
    /// The broker shutting down.
    fn broker(&self) -> BrokerId {
        match self {
            ShutdownPiece::Start(id, _)
            | ShutdownPiece::Elections(id, ..)
            | ShutdownPiece::Followed(id, _)
            | ShutdownPiece::OfflineUnderWay(id, _)
            | ShutdownPiece::Remaining(id) => *id,
        }
    }
}
