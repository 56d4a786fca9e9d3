//! The `KafkaController` every broker runs, and its single event thread.
//!
//! Each broker has one. Only the one named in `/controller` is active; the
//! others still process the election events (Startup, ControllerChange,
//! Reelect, RegisterBrokerAndReelect, Expire) and keep `activeControllerId`.
//!
//! Handlers take an [`Env`] (the time, the broker's ZooKeeper client, the
//! ensemble and the configuration) and push what they send into an
//! [`Outbox`]; the simulator delivers it. ZooKeeper operations are applied
//! at the start of an event; the event then occupies the event thread for a
//! cost in virtual time (a base cost plus a cost per ZooKeeper write), and
//! the requests it queued go out when it finishes.

pub mod backlog;
pub mod batch;
pub mod brokers;
pub mod channel;
pub mod channel_manager;
pub mod context;
pub mod election;
pub mod event;
pub mod partition_state_machine;
pub mod partitions;
pub mod reassignment;
pub mod rebalance;
pub mod replica_state_machine;
pub mod replica_states;
pub mod states;
pub mod topic_deletion_manager;
pub mod topics;

use crate::config::Config;
use crate::fact::{ElectionCode, ElectionLabel, Fact};
use crate::ids::BrokerId;
use crate::kafka_zk::{
    fenced, get_controller_id, read_brokers_with_epochs, register_broker,
    register_controller_and_increment_epoch,
};
use crate::time::SimTime;
use crate::zk::{Op, Zk};
use crate::zk_client::{paths, ZkClient};
use channel::{ControlledShutdownError, PartitionStateInfo, RequestBody};
use context::ControllerContext;
use event::{ControllerEvent, ControllerState};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, VecDeque};

/// Why a controller operation stopped (raised by [`crate::kafka_zk`]).
pub use crate::kafka_zk::ControllerError;
/// The `/controller` znode codecs, at their old paths.
pub use crate::znodes::{controller_znode_json, parse_controller_id};

/// A request the controller has decided to send; the simulator queues it on
/// the per-broker channel when the current event finishes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestDraft {
    /// The target broker.
    pub to: BrokerId,
    /// The target's broker epoch as the controller knows it.
    pub broker_epoch: i64,
    /// The controller epoch to stamp on it.
    pub controller_epoch: i32,
    /// The request.
    pub body: RequestBody,
    /// When it is handed to its channel, in µs into the event that built it.
    #[serde(default)]
    pub sent_at_us: u64,
}

/// A timer the controller asks the simulator to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Timer {
    /// Enqueue AutoPreferredReplicaLeaderElection (kafkaScheduler).
    AutoLeaderRebalance,
}

/// What one event produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outbox {
    /// Requests to send when the event finishes.
    pub requests: Vec<RequestDraft>,
    /// Timers to start: (delay in ms, timer).
    pub timers: Vec<(u64, Timer)>,
    /// Trace lines: (kind, details).
    pub notes: Vec<Note>,
    /// The broker's new epoch, when it re-registered.
    pub new_broker_epoch: Option<i64>,
    /// Unclean leader elections made.
    pub unclean_elections: u64,
    /// The partitions those unclean elections were for.
    pub unclean_partitions: Vec<crate::ids::TopicPartition>,
    /// Answers to ControlledShutdown requests: (broker, remaining partitions or error).
    pub shutdown_replies: Vec<(
        BrokerId,
        Result<Vec<crate::ids::TopicPartition>, ControlledShutdownError>,
    )>,
}

/// A trace line an event writes, and how far into the event (µs) it is
/// written: the trace says it when the event reaches it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    /// µs into the event.
    pub at_us: u64,
    /// The trace kind (a name from the code: a label, not a string of its
    /// own per note, of which a large start-up writes 400,000).
    pub kind: crate::trace::Label,
    /// What happened, held as the trace record will hold it (16 bytes for
    /// a start-up's first leaders and state changes; serialised as its
    /// English sentence).
    #[serde(rename = "details")]
    pub fact: crate::trace::HeldFact,
}

impl Env<'_> {
    /// Write a trace line at this moment of the event.
    pub fn note(&mut self, kind: &'static str, fact: crate::fact::Fact) {
        self.out.notes.push(Note {
            at_us: self.client.meter.elapsed_us,
            kind: crate::trace::Label::of_static(kind),
            fact: fact.into(),
        });
    }
}

/// What a handler may touch.
#[derive(Debug)]
pub struct Env<'a> {
    /// Now.
    pub now: SimTime,
    /// This broker's id.
    pub me: BrokerId,
    /// This broker's ZooKeeper client.
    pub client: &'a mut ZkClient,
    /// The ensemble.
    pub zk: &'a mut Zk,
    /// The cluster configuration.
    pub config: &'a Config,
    /// What the handler produces.
    pub out: &'a mut Outbox,
    /// Whether a long event may stop between its pieces
    /// ([`KafkaController::stopped_at`]), and the most znode writes or state
    /// changes a piece that is a run of them does: the simulator's choice,
    /// so that the page can draw while a large failover runs (Kafka's event
    /// thread runs the event in one go; so does the simulation, in virtual
    /// time).
    pub may_stop: Option<usize>,
    /// Partition states this broker already holds (its metadata cache), if
    /// any: a state the controller builds that is equal, field for field,
    /// to the one held for its partition is that one, shared, not a copy.
    /// Memory only (what is sent is what the controller built from its
    /// context): a new controller's failover and a broker's start-up send
    /// every partition's state, almost all unchanged, and each copy would
    /// stay in every cache the request reaches.
    pub known_states: Option<&'a crate::broker::PartitionCache>,
}

/// An event waiting in the queue, with when it was enqueued.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueuedEvent {
    /// The event.
    pub event: ControllerEvent,
    /// When it was enqueued.
    pub enqueued_at: SimTime,
}

/// The event being processed and when it finishes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InProgress {
    /// The event.
    pub event: ControllerEvent,
    /// When processing started.
    pub started_at: SimTime,
    /// When processing finishes and its requests go out.
    pub done_at: SimTime,
    /// The requests it will send: they leave from the front, a few at a
    /// time (shared by copies of the simulation until taken).
    pub requests: backlog::Backlog<RequestDraft>,
    /// The trace lines it has yet to write.
    #[serde(default)]
    pub notes: backlog::Backlog<Note>,
    /// ControlledShutdown answers it will send.
    pub shutdown_replies: Vec<(
        BrokerId,
        Result<Vec<crate::ids::TopicPartition>, ControlledShutdownError>,
    )>,
}

/// One broker's `KafkaController`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KafkaController {
    /// `activeControllerId`: the controller this broker believes in.
    pub active_controller_id: Option<BrokerId>,
    /// The FIFO of events (ControllerEventManager).
    pub queue: VecDeque<QueuedEvent>,
    /// The event the event thread is working on.
    pub current: Option<InProgress>,
    /// The `ControllerState` gauge.
    pub state: ControllerState,
    /// The in-memory context (empty unless active).
    pub ctx: ControllerContext,
    /// Events processed on this broker.
    pub events_processed: u64,
    /// Where the event in hand stopped between its pieces, if it did (only
    /// while the simulator's step is unfinished: nothing else happens in
    /// between, so where it stops changes nothing; see
    /// [`crate::sim::Sim::step_piece`]).
    #[serde(skip)]
    pub stopped_at: Option<Piece>,
}

/// Where an event stopped between its pieces: what it does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// `onControllerFailover`.
    Failover(FailoverPiece),
    /// `onNewPartitionCreation` (a TopicChange or a PartitionModifications).
    NewPartitions(topics::NewPartitionsPiece),
    /// `onBrokerStartup` (a BrokerChange with new brokers only).
    BrokerStartup(brokers::BrokerStartupPiece),
    /// `doControlledShutdown` (a ControlledShutdown).
    Shutdown(brokers::ShutdownPiece),
    /// `checkAndTriggerAutoLeaderRebalance` (an
    /// AutoPreferredReplicaLeaderElection).
    Rebalance(Box<rebalance::RebalanceRun>),
    /// `processIsrChangeNotification` (an IsrChangeNotification).
    IsrChange(Box<partitions::IsrChangeRun>),
}

/// The pieces of `onControllerFailover` after the handlers are registered,
/// in Kafka 2.4's order: a failover over 200,000 partitions takes a tenth of
/// a second of the simulator's wall time, so the page may draw between them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailoverPiece {
    /// `initializeControllerContext` to its reading of the assignments.
    Context,
    /// That reading under way, a few topics at a time.
    Assignments(Box<partitions::AssignmentRead>),
    /// The rest of it: the leaderships read, a slice of partitions at a time.
    Leaderships(Box<partitions::LeadershipRead>),
    /// The reassignments found, and the topic deletion manager's start.
    TopicDeletion,
    /// `sendUpdateMetadataRequest` to every live broker.
    UpdateMetadata,
    /// `replicaStateMachine.startup()`: the replicas' states, a slice of
    /// partitions at a time.
    ReplicaStates(Box<replica_state_machine::ReplicaStatesRead>),
    /// `replicaStateMachine.startup()`: the online replicas' requests,
    /// gathered a slice at a time and sent; then the replicas not online.
    OnlineReplicas(
        Box<replica_state_machine::OnlineReplicaRequests>,
        Vec<(crate::ids::TopicPartition, BrokerId)>,
    ),
    /// `replicaStateMachine.startup()`'s last call: the replicas on brokers
    /// that are not live go to `OfflineReplica`.
    OfflineReplicas(Vec<(crate::ids::TopicPartition, BrokerId)>),
    /// That under way (a broker's replicas at a time).
    OfflineUnderWay(Box<replica_state_machine::ReplicaRun>),
    /// `partitionStateMachine.startup()`: the states, a slice of partitions
    /// at a time.
    PartitionStates(Box<partition_state_machine::PartitionStatesRead>),
    /// The partitions its `triggerOnlinePartitionStateChange` moves online.
    BeginElections,
    /// That under way (elections, a new partition's first leader: a slice
    /// at a time).
    Elections(Box<partition_state_machine::OnlineRun>),
    /// Reassignments, deletions, a preferred election written meanwhile.
    Rest,
}

impl KafkaController {
    /// Whether this broker believes it is the active controller.
    pub fn is_active(&self, me: BrokerId) -> bool {
        self.active_controller_id == Some(me)
    }

    /// `ControllerEventManager.put`.
    pub fn put(&mut self, event: ControllerEvent, now: SimTime) {
        self.queue.push_back(QueuedEvent {
            event,
            enqueued_at: now,
        });
    }

    /// `clearAndPut`: drop every queued event (preempting it), then enqueue
    /// this one. Returns the preempted events.
    pub fn clear_and_put(&mut self, event: ControllerEvent, now: SimTime) -> Vec<QueuedEvent> {
        let dropped = self.queue.drain(..).collect();
        self.put(event, now);
        dropped
    }

    /// Process one event (KafkaController.process). Errors a handler raises
    /// are handled here as Kafka does: a ControllerMovedException leads to
    /// `maybeResign`; anything else is logged and the event's effect is lost.
    pub fn process(&mut self, env: &mut Env<'_>, event: &ControllerEvent) {
        self.events_processed += 1;
        if !self.is_active(env.me) && !event.runs_when_not_active() {
            if let ControllerEvent::ReplicaLeaderElection {
                partitions: Some(ps),
                ..
            } = event
            {
                for tp in ps {
                    env.note(
                        "election_result",
                        Fact::ElectionResult {
                            label: ElectionLabel::Unlabelled,
                            tp: tp.clone(),
                            code: ElectionCode::NotController,
                        },
                    );
                }
            }
            if let ControllerEvent::ControlledShutdown { broker, .. } = event {
                env.out
                    .shutdown_replies
                    .push((*broker, Err(ControlledShutdownError::NotController)));
            }
            env.note(
                "skipped",
                Fact::EventSkipped {
                    event: event.name(),
                },
            );
            return;
        }
        let result = match event {
            ControllerEvent::Startup => self.process_startup(env),
            ControllerEvent::ControllerChange => self.maybe_resign(env),
            ControllerEvent::Reelect => self.process_reelect(env),
            ControllerEvent::RegisterBrokerAndReelect => self.process_register_and_reelect(env),
            ControllerEvent::Expire => {
                self.process_expire(env);
                Ok(())
            }
            ControllerEvent::ShutdownEventThread => Ok(()),
            ControllerEvent::BrokerChange => self.process_broker_change(env),
            ControllerEvent::ControlledShutdown {
                broker,
                broker_epoch,
            } => self.controlled_shutdown_from(
                env,
                brokers::ShutdownPiece::Start(*broker, *broker_epoch),
            ),
            ControllerEvent::UncleanLeaderElectionEnable => {
                self.trigger_online_partition_state_change(env, None)
            }
            ControllerEvent::TopicUncleanLeaderElectionEnable(topic) => {
                self.trigger_online_partition_state_change(env, Some(topic))
            }
            // Log directories are not modelled, so a LeaderAndIsr response
            // never reports KAFKA_STORAGE_ERROR and there is nothing to do.
            ControllerEvent::LeaderAndIsrResponseReceived { .. } => Ok(()),
            ControllerEvent::TopicChange => self.process_topic_change(env),
            ControllerEvent::IsrChangeNotification => self.isr_change_from(env, None),
            ControllerEvent::ReplicaLeaderElection {
                partitions,
                election_type,
                trigger,
            } => self.process_replica_leader_election(
                env,
                partitions.clone(),
                *election_type,
                *trigger,
            ),
            ControllerEvent::AutoPreferredReplicaLeaderElection => self.auto_rebalance(env, None),
            ControllerEvent::PartitionModifications(topic) => {
                self.process_partition_modifications(env, topic)
            }
            ControllerEvent::TopicDeletion => self.process_topic_deletion(env),
            ControllerEvent::TopicDeletionStopReplicaResponseReceived {
                broker,
                partitions,
                error,
            } => {
                self.process_topic_deletion_stop_replica_response(env, *broker, partitions, *error)
            }
            ControllerEvent::ZkPartitionReassignment => {
                self.process_zk_partition_reassignment(env).map(|_| ())
            }
            ControllerEvent::PartitionReassignmentIsrChange(tp) => {
                self.process_partition_reassignment_isr_change(env, tp)
            }
            // Endpoints never change in this simulator, so there is nothing to do.
            ControllerEvent::BrokerModifications(_) => {
                env.note(
                    "unmodelled",
                    Fact::Unmodelled {
                        event: event.name(),
                    },
                );
                Ok(())
            }
        };
        if self.stopped_at.is_none() {
            self.conclude(env, event, result);
        }
    }

    /// The AutoPreferredReplicaLeaderElection event from where it stopped
    /// (from the start without `run`), rescheduled when it ends however it
    /// ends (the `finally` of Kafka's handler).
    fn auto_rebalance(
        &mut self,
        env: &mut Env<'_>,
        run: Option<Box<rebalance::RebalanceRun>>,
    ) -> Result<(), ControllerError> {
        let r = self.auto_rebalance_from(env, run);
        if r != Ok(false) {
            env.out.timers.push((
                env.config.leader_imbalance_check_interval_seconds * 1000,
                Timer::AutoLeaderRebalance,
            ));
        }
        r.map(|_| ())
    }

    /// Go on with the event that stopped between its pieces
    /// ([`KafkaController::stopped_at`]), to its end or its next stop.
    pub fn go_on(&mut self, env: &mut Env<'_>, event: &ControllerEvent) {
        let Some(piece) = self.stopped_at.take() else {
            return;
        };
        let result = match piece {
            Piece::Failover(piece) => self.failover_from(env, piece),
            Piece::NewPartitions(piece) => self.new_partitions_from(env, piece),
            Piece::BrokerStartup(piece) => self.broker_startup_from(env, piece),
            Piece::Shutdown(piece) => self.controlled_shutdown_from(env, piece),
            Piece::Rebalance(run) => self.auto_rebalance(env, Some(run)),
            Piece::IsrChange(run) => self.isr_change_from(env, Some(run)),
        };
        if self.stopped_at.is_none() {
            self.conclude(env, event, result);
        }
    }

    /// How an event's handler ended, handled as `KafkaController.process`
    /// does.
    fn conclude(
        &mut self,
        env: &mut Env<'_>,
        event: &ControllerEvent,
        result: Result<(), ControllerError>,
    ) {
        match result {
            Ok(()) => {}
            Err(ControllerError::ControllerMoved(why)) => {
                env.note("controller_moved", Fact::ControllerMoved(why));
                if let Err(error) = self.maybe_resign(env) {
                    env.note("error", Fact::EventError { event: None, error });
                }
            }
            Err(error) => env.note(
                "error",
                Fact::EventError {
                    event: Some(event.name()),
                    error,
                },
            ),
        }
    }

    // ----- election (KafkaController.elect and friends) ----------------------

    fn process_startup(&mut self, env: &mut Env<'_>) -> Result<(), ControllerError> {
        env.client.register_data_handler(paths::CONTROLLER);
        env.client.exists(env.zk, paths::CONTROLLER)?;
        self.elect(env)
    }

    fn process_reelect(&mut self, env: &mut Env<'_>) -> Result<(), ControllerError> {
        self.maybe_resign(env)?;
        self.elect(env)
    }

    fn process_register_and_reelect(&mut self, env: &mut Env<'_>) -> Result<(), ControllerError> {
        // Kafka: _brokerEpoch = zkClient.registerBroker(brokerInfo), a new czxid.
        let epoch = register_broker(env.client, env.zk, env.me, env.now)?;
        env.out.new_broker_epoch = Some(epoch);
        self.process_reelect(env)
    }

    fn process_expire(&mut self, env: &mut Env<'_>) {
        // A controller whose session expired (a zombie waking from a stall,
        // or an expiry by request) learns it here: its /controller znode went
        // with the session, so it resigns before re-registering.
        if self.is_active(env.me) {
            env.note(
                "resign",
                Fact::ResignSessionExpired {
                    broker: env.me,
                    epoch: self.ctx.epoch,
                },
            );
        }
        self.active_controller_id = None;
        self.on_controller_resignation(env);
    }

    /// `getControllerId`: read `/controller` (re-arming the watch).
    fn read_controller_id(&self, env: &mut Env<'_>) -> Result<Option<BrokerId>, ControllerError> {
        Ok(get_controller_id(env.client, env.zk)?)
    }

    fn elect(&mut self, env: &mut Env<'_>) -> Result<(), ControllerError> {
        self.active_controller_id = self.read_controller_id(env)?;
        if let Some(id) = self.active_controller_id {
            // KAFKA-13407 reproduced: this returns even when /controller names
            // this very broker, leaving it "active" without having run failover.
            env.note("elect", Fact::AlreadyElected { controller: id });
            return Ok(());
        }
        match register_controller_and_increment_epoch(env.client, env.zk, env.me, env.now) {
            Ok((epoch, zk_version)) => {
                self.ctx.epoch = epoch;
                self.ctx.epoch_zk_version = zk_version;
                self.active_controller_id = Some(env.me);
                env.note(
                    "elected",
                    Fact::Elected {
                        broker: env.me,
                        epoch,
                        zk_version,
                    },
                );
                self.on_controller_failover(env)
            }
            Err(ControllerError::ControllerMoved(why)) => {
                self.maybe_resign(env)?;
                match self.active_controller_id {
                    Some(winner) => {
                        let me = env.me;
                        env.note("elect", Fact::ElectedInstead { winner, me, why });
                    }
                    None => env.note("elect", Fact::ElectedAndResigned { why }),
                }
                Ok(())
            }
            Err(error) => {
                let broker = env.me;
                env.note("error", Fact::ElectionError { broker, error });
                self.trigger_controller_move(env)
            }
        }
    }

    /// `maybeResign`: re-watch `/controller`, re-read it, and resign if this
    /// broker was active and no longer is.
    fn maybe_resign(&mut self, env: &mut Env<'_>) -> Result<(), ControllerError> {
        let was_active = self.is_active(env.me);
        env.client.register_data_handler(paths::CONTROLLER);
        env.client.exists(env.zk, paths::CONTROLLER)?;
        self.active_controller_id = self.read_controller_id(env)?;
        if was_active && !self.is_active(env.me) {
            env.note("resign", Fact::Resign { broker: env.me });
            self.on_controller_resignation(env);
        }
        Ok(())
    }

    /// `triggerControllerMove`: resign and delete `/controller` (fenced).
    fn trigger_controller_move(&mut self, env: &mut Env<'_>) -> Result<(), ControllerError> {
        if self.read_controller_id(env)? != Some(env.me) {
            return Ok(());
        }
        let epoch_zk_version = self.ctx.epoch_zk_version;
        env.note("resign", Fact::ResignAfterError { broker: env.me });
        self.active_controller_id = None;
        self.on_controller_resignation(env);
        match fenced(
            env.client,
            env.zk,
            epoch_zk_version,
            Op::Delete {
                path: paths::CONTROLLER.into(),
                version: None,
            },
        ) {
            Ok(_) | Err(ControllerError::ControllerMoved(_)) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// `onControllerFailover`, in Kafka 2.4's order. The partition and replica
    /// state machines arrive with their own module; here the context is read.
    fn on_controller_failover(&mut self, env: &mut Env<'_>) -> Result<(), ControllerError> {
        for p in [
            paths::BROKER_IDS,
            paths::TOPICS,
            paths::DELETE_TOPICS,
            paths::ISR_CHANGE_NOTIFICATION,
        ] {
            env.client.register_child_handler(p);
        }
        for p in [
            paths::PREFERRED_REPLICA_ELECTION,
            paths::REASSIGN_PARTITIONS,
        ] {
            env.client.register_data_handler(p);
            env.client.exists(env.zk, p)?;
        }
        // The new controller reads the full state: pending notifications go.
        self.delete_isr_change_notifications(env)?;
        self.failover_from(env, FailoverPiece::Context)
    }

    /// `onControllerFailover` from `piece` on. Between pieces, when
    /// `env.may_stop`, it stops and says where ([`KafkaController::stopped_at`]):
    /// a run under way that stopped inside hands back its own piece, and
    /// stops there. An error ends it, as it ends Kafka's.
    fn failover_from(
        &mut self,
        env: &mut Env<'_>,
        mut piece: FailoverPiece,
    ) -> Result<(), ControllerError> {
        loop {
            piece = match piece {
                FailoverPiece::Context => {
                    self.initialize_controller_context(env)?;
                    FailoverPiece::Assignments(Box::new(self.begin_assignments()))
                }
                FailoverPiece::Assignments(mut read) => {
                    if self.assignments_from(env, &mut read, env.may_stop)? {
                        FailoverPiece::Leaderships(Box::default())
                    } else {
                        FailoverPiece::Assignments(read)
                    }
                }
                FailoverPiece::Leaderships(mut read) => {
                    if self.leaderships_from(env, &mut read, env.may_stop)? {
                        FailoverPiece::TopicDeletion
                    } else {
                        FailoverPiece::Leaderships(read)
                    }
                }
                FailoverPiece::TopicDeletion => {
                    // Partitions whose persisted assignment has adding or
                    // removing replicas.
                    self.ctx.partitions_being_reassigned =
                        self.ctx.reassigning.keys().cloned().collect();
                    self.initialize_topic_deletion(env)?;
                    FailoverPiece::UpdateMetadata
                }
                FailoverPiece::UpdateMetadata => {
                    // Brokers must learn the live brokers before any LeaderAndIsr.
                    let live = self.ctx.live_or_shutting_down();
                    self.send_update_metadata(env, &live, Vec::new());
                    FailoverPiece::ReplicaStates(Box::default())
                }
                FailoverPiece::ReplicaStates(mut read) => {
                    if !self.replica_states_from(&mut read, env.may_stop) {
                        FailoverPiece::ReplicaStates(read)
                    } else {
                        match read.outcome() {
                            (Some(per_broker), offline) => {
                                let run = self.begin_online_replica_requests(&per_broker);
                                FailoverPiece::OnlineReplicas(Box::new(run), offline)
                            }
                            (None, offline) => FailoverPiece::OfflineReplicas(offline),
                        }
                    }
                }
                FailoverPiece::OnlineReplicas(mut run, offline) => {
                    if self.online_replica_requests_from(env, &mut run, env.may_stop) {
                        FailoverPiece::OfflineReplicas(offline)
                    } else {
                        FailoverPiece::OnlineReplicas(run, offline)
                    }
                }
                FailoverPiece::OfflineReplicas(offline) => {
                    if offline.is_empty() {
                        FailoverPiece::PartitionStates(Box::default())
                    } else {
                        let offline_replica = states::ReplicaState::OfflineReplica;
                        let run = replica_state_machine::ReplicaRun::new(offline, offline_replica);
                        FailoverPiece::OfflineUnderWay(Box::new(run))
                    }
                }
                FailoverPiece::OfflineUnderWay(mut run) => {
                    if self.replicas_from(env, &mut run, env.may_stop)? {
                        FailoverPiece::PartitionStates(Box::default())
                    } else {
                        FailoverPiece::OfflineUnderWay(run)
                    }
                }
                FailoverPiece::PartitionStates(mut read) => {
                    if self.partition_states_from(&mut read, env.may_stop) {
                        FailoverPiece::BeginElections
                    } else {
                        FailoverPiece::PartitionStates(read)
                    }
                }
                FailoverPiece::BeginElections => match self.begin_online_state_change(env, None) {
                    Some(run) => FailoverPiece::Elections(Box::new(run)),
                    None => FailoverPiece::Rest,
                },
                FailoverPiece::Elections(mut run) => {
                    // Nobody reads the per-partition outcomes here.
                    if self.online_from(env, &mut run, None, env.may_stop)? {
                        FailoverPiece::Rest
                    } else {
                        FailoverPiece::Elections(run)
                    }
                }
                FailoverPiece::Rest => {
                    self.initialize_partition_reassignments(env)?;
                    self.resume_deletions(env)?;
                    // A preferred election written while there was no controller.
                    self.process_replica_leader_election(
                        env,
                        None,
                        event::ElectionType::Preferred,
                        event::ElectionTrigger::Zk,
                    )?;
                    env.note(
                        "failover",
                        Fact::FailoverDone {
                            epoch: self.ctx.epoch,
                        },
                    );
                    if env.config.auto_leader_rebalance_enable {
                        env.out.timers.push((5000, Timer::AutoLeaderRebalance));
                    }
                    return Ok(());
                }
            };
            if env.may_stop.is_some() {
                self.stopped_at = Some(Piece::Failover(piece));
                return Ok(());
            }
        }
    }

    fn initialize_controller_context(&mut self, env: &mut Env<'_>) -> Result<(), ControllerError> {
        self.ctx.live_brokers = read_brokers_with_epochs(env.client, env.zk)?;
        self.ctx.shutting_down.clear();
        let topics = env.client.get_children(env.zk, paths::TOPICS)?;
        self.ctx.all_topics = topics.into_iter().collect();
        for b in self.ctx.live_brokers.keys() {
            env.client.register_data_handler(&paths::broker(*b));
        }
        Ok(())
    }

    /// `KafkaController.shutdown()` on a clean broker exit: the event thread
    /// stops and an active controller resigns.
    pub fn resign_for_shutdown(&mut self, env: &mut Env<'_>) {
        env.note("resign", Fact::ResignForShutdown { broker: env.me });
        self.on_controller_resignation(env);
    }

    /// `onControllerResignation`: unregister the controller's handlers, drop
    /// queued requests and clear the context.
    fn on_controller_resignation(&mut self, env: &mut Env<'_>) {
        for p in [
            paths::ISR_CHANGE_NOTIFICATION,
            paths::BROKER_IDS,
            paths::TOPICS,
            paths::DELETE_TOPICS,
        ] {
            env.client.unregister_child_handler(p);
        }
        let controller_handlers: Vec<String> = env
            .client
            .data_handlers
            .iter()
            .filter(|p| p.as_str() != paths::CONTROLLER)
            .cloned()
            .collect();
        for p in controller_handlers {
            env.client.unregister_data_handler(&p);
        }
        self.ctx = ControllerContext::default();
    }

    // ----- brokers ------------------------------------------------------------

    fn process_broker_change(&mut self, env: &mut Env<'_>) -> Result<(), ControllerError> {
        let current = read_brokers_with_epochs(env.client, env.zk)?;
        let known = self.ctx.live_brokers.clone();
        let new: BTreeSet<BrokerId> = current
            .keys()
            .filter(|b| !known.contains_key(b))
            .copied()
            .collect();
        let dead: BTreeSet<BrokerId> = known
            .keys()
            .filter(|b| !current.contains_key(b))
            .copied()
            .collect();
        let bounced: BTreeSet<BrokerId> = current
            .iter()
            .filter(|(b, e)| known.get(b).is_some_and(|k| *e > k))
            .map(|(b, _)| *b)
            .collect();
        env.note(
            "broker_change",
            Fact::BrokerChange {
                new: new.iter().copied().collect(),
                dead: dead.iter().copied().collect(),
                bounced: bounced.iter().copied().collect(),
                live: current.keys().copied().collect(),
            },
        );
        // `new` and `bounced` are brokers of `current`.
        for b in &new {
            if let Some(&e) = current.get(b) {
                self.ctx.live_brokers.insert(*b, e);
            }
        }
        if !new.is_empty() {
            if bounced.is_empty() && dead.is_empty() {
                // The event's last call: it may stop between its pieces.
                return self.broker_startup_from(env, brokers::BrokerStartupPiece::Start(new));
            }
            self.on_broker_startup(env, &new)?;
        }
        if !bounced.is_empty() {
            for b in &bounced {
                self.ctx.live_brokers.remove(b);
            }
            self.on_broker_failure(env, &bounced)?;
            for b in &bounced {
                if let Some(&e) = current.get(b) {
                    self.ctx.live_brokers.insert(*b, e);
                }
            }
            self.on_broker_startup(env, &bounced)?;
        }
        if !dead.is_empty() {
            for b in &dead {
                self.ctx.live_brokers.remove(b);
            }
            self.on_broker_failure(env, &dead)?;
        }
        Ok(())
    }

    /// Queue an UpdateMetadata to each of `targets` that is live or shutting down.
    pub(crate) fn send_update_metadata(
        &mut self,
        env: &mut Env<'_>,
        targets: &BTreeSet<BrokerId>,
        partitions: Vec<PartitionStateInfo>,
    ) {
        // The partition states are built once and shared by every request.
        let partitions = partitions.into_iter().map(std::rc::Rc::new).collect();
        self.send_shared_update_metadata(env, targets, partitions);
    }

    /// [`KafkaController::send_update_metadata`] with its states shared
    /// already.
    pub(crate) fn send_shared_update_metadata(
        &mut self,
        env: &mut Env<'_>,
        targets: &BTreeSet<BrokerId>,
        partitions: channel::SharedStates,
    ) {
        let live: Vec<BrokerId> = self.ctx.live_or_shutting_down().into_iter().collect();
        let mut states = partitions.len() as u64;
        for to in targets {
            if let Some(epoch) = self.ctx.live_brokers.get(to) {
                env.client.meter.request(std::mem::take(&mut states));
                env.out.requests.push(RequestDraft {
                    to: *to,
                    broker_epoch: *epoch,
                    controller_epoch: self.ctx.epoch,
                    body: RequestBody::UpdateMetadata {
                        partitions: partitions.clone(),
                        live_brokers: live.clone(),
                    },
                    sent_at_us: env.client.meter.elapsed_us,
                });
            }
        }
    }
}

/// Broker ids as `[1,2,3]` (the one helper lives in [`crate::ids`]).
pub use crate::ids::ids_text;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controller_znode_round_trips() {
        // Kafka: ControllerZNode.encode writes the timestamp as a string; decode reads brokerid.
        let json = controller_znode_json(BrokerId(3), 12000);
        assert_eq!(json, r#"{"version":1,"brokerid":3,"timestamp":"12000"}"#);
        assert_eq!(parse_controller_id(&json), Some(BrokerId(3)));
        assert_eq!(parse_controller_id(r#"{"brokerid":-1}"#), None);
        assert_eq!(parse_controller_id("not json"), None);
    }
}
