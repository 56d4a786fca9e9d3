//! Preferred and unclean elections on request (ZooKeeper's
//! `/admin/preferred_replica_election`, the admin API of KIP-460) and the
//! auto leader rebalance (Kafka 2.4.0 `processReplicaLeaderElection`,
//! `onReplicaElection`, `checkAndTriggerAutoLeaderRebalance`).

use super::election::Strategy;
use super::event::{ControllerEvent, ElectionTrigger, ElectionType};
use super::{ControllerError, Env, KafkaController};
use crate::fact::{ElectionCode, ElectionLabel, Fact};
use crate::ids::{BrokerId, TopicPartition};
use crate::kafka_zk::fenced_delete;
use crate::zk::ZkError;
use crate::zk_client::paths;
use std::collections::BTreeMap;

/// The `/admin/preferred_replica_election` data (its encoder lives with the
/// other znode codecs).
pub use crate::znodes::decode_partition_list;
pub use crate::znodes::encode_preferred_replica_election as preferred_election_json;

impl KafkaController {
    /// `processReplicaLeaderElection`.
    pub(super) fn process_replica_leader_election(
        &mut self,
        env: &mut Env<'_>,
        partitions: Option<Vec<TopicPartition>>,
        election_type: ElectionType,
        trigger: ElectionTrigger,
    ) -> Result<(), ControllerError> {
        let requested = match (partitions, trigger) {
            (Some(p), _) => p,
            (None, _) => {
                env.client
                    .register_data_handler(paths::PREFERRED_REPLICA_ELECTION);
                if env
                    .client
                    .exists(env.zk, paths::PREFERRED_REPLICA_ELECTION)?
                    .is_none()
                {
                    return Ok(());
                }
                match env
                    .client
                    .get_data(env.zk, paths::PREFERRED_REPLICA_ELECTION)
                {
                    Ok((data, _)) => decode_partition_list(&data).unwrap_or_default(),
                    Err(ZkError::NoNode) => return Ok(()),
                    Err(e) => return Err(e.into()),
                }
            }
        };
        let results = self.on_replica_election(env, &requested, election_type, trigger)?;
        let label = match election_type {
            ElectionType::Preferred => ElectionLabel::Preferred,
            ElectionType::Unclean => ElectionLabel::Unclean,
        };
        for (tp, code) in results {
            env.note("election_result", Fact::ElectionResult { label, tp, code });
        }
        if trigger == ElectionTrigger::Zk {
            // Delete the znode (fenced) and re-arm the creation watch.
            let epoch_zk_version = self.ctx.epoch_zk_version;
            fenced_delete(
                env.client,
                env.zk,
                epoch_zk_version,
                paths::PREFERRED_REPLICA_ELECTION.to_string(),
            )?;
            env.client
                .exists(env.zk, paths::PREFERRED_REPLICA_ELECTION)?;
        }
        Ok(())
    }

    /// `onReplicaElection`: classify, elect, and map each partition's result
    /// to Kafka's error name (or the new leader).
    fn on_replica_election(
        &mut self,
        env: &mut Env<'_>,
        requested: &[TopicPartition],
        election_type: ElectionType,
        trigger: ElectionTrigger,
    ) -> Result<BTreeMap<TopicPartition, ElectionCode>, ControllerError> {
        let mut e = self.begin_replica_election(env, requested, election_type, trigger);
        self.replica_election_from(env, &mut e, None)?;
        Ok(self.election_codes(e))
    }

    /// `onReplicaElection`'s start: the partitions classified (those that
    /// need no election, or cannot have one, with their results), and the
    /// others' Online transition begun.
    fn begin_replica_election(
        &mut self,
        env: &mut Env<'_>,
        requested: &[TopicPartition],
        election_type: ElectionType,
        trigger: ElectionTrigger,
    ) -> ReplicaElection {
        let mut results = BTreeMap::new();
        let mut to_elect = Vec::new();
        for tp in requested {
            let Some(ar) = self.ctx.assignments.get(tp) else {
                results.insert(tp.clone(), ElectionCode::UnknownTopicOrPartition);
                continue;
            };
            if self.ctx.topics_to_be_deleted.contains(tp.topic.as_str()) {
                results.insert(tp.clone(), ElectionCode::TopicBeingDeleted);
                continue;
            }
            let leader = self.ctx.leadership.get(tp).and_then(|l| l.leader);
            let not_needed = match election_type {
                ElectionType::Preferred => leader.is_some() && leader == ar.first().copied(),
                ElectionType::Unclean => {
                    leader.is_some_and(|l| self.ctx.is_replica_online(l, false))
                }
            };
            if not_needed {
                results.insert(tp.clone(), ElectionCode::NotNeeded);
            } else {
                to_elect.push(tp.clone());
            }
        }
        let mut outcome = BTreeMap::new();
        let run = (!to_elect.is_empty()).then(|| {
            let strategy = match election_type {
                ElectionType::Preferred => Strategy::Preferred,
                ElectionType::Unclean => Strategy::Offline {
                    allow_unclean: trigger == ElectionTrigger::AdminClient,
                },
            };
            let run = self.begin_online_noting(env, &to_elect, Some(strategy), Some(&mut outcome));
            Box::new(run)
        });
        ReplicaElection {
            election_type,
            results,
            to_elect,
            outcome,
            run,
        }
    }

    /// `onReplicaElection`'s elections from where `e` is (`handleStateChanges(…,
    /// OnlinePartition)`), stopping after `slice` writes and state changes
    /// if given: whether they are done.
    fn replica_election_from(
        &mut self,
        env: &mut Env<'_>,
        e: &mut ReplicaElection,
        slice: Option<usize>,
    ) -> Result<bool, ControllerError> {
        match e.run.as_mut() {
            Some(run) => self.online_from(env, run, Some(&mut e.outcome), slice),
            None => Ok(true),
        }
    }

    /// `onReplicaElection`'s end: every requested partition's result.
    fn election_codes(&self, e: ReplicaElection) -> BTreeMap<TopicPartition, ElectionCode> {
        let ReplicaElection {
            election_type,
            mut results,
            to_elect,
            outcome,
            ..
        } = e;
        for tp in to_elect {
            let r = match outcome.get(&tp) {
                Some(Ok(())) => {
                    ElectionCode::Elected(self.ctx.leadership.get(&tp).and_then(|l| l.leader))
                }
                Some(Err(why)) => match election_type {
                    ElectionType::Preferred => {
                        ElectionCode::PreferredLeaderNotAvailable(Box::new(why.clone()))
                    }
                    ElectionType::Unclean => {
                        ElectionCode::EligibleLeadersNotAvailable(Box::new(why.clone()))
                    }
                },
                None => ElectionCode::UnknownServerError,
            };
            results.insert(tp, r);
        }
        results
    }

    /// The per-broker imbalance ratios: preferred replica → (partitions not
    /// led by it that have leadership info, partitions it is preferred for).
    pub fn imbalance(&self) -> BTreeMap<BrokerId, (Vec<TopicPartition>, usize)> {
        let mut out: BTreeMap<BrokerId, (Vec<TopicPartition>, usize)> = BTreeMap::new();
        for (tp, ar) in &self.ctx.assignments {
            if self.ctx.topics_to_be_deleted.contains(tp.topic.as_str()) {
                continue;
            }
            let Some(preferred) = ar.first().copied() else {
                continue;
            };
            let e = out.entry(preferred).or_default();
            e.1 += 1;
            if let Some(l) = self.ctx.leadership.get(&tp) {
                if l.leader != Some(preferred) {
                    e.0.push(tp.clone());
                }
            }
        }
        out
    }

    /// `checkAndTriggerAutoLeaderRebalance` from where `run` is (from the
    /// start without one), by pieces when the event may stop: the
    /// imbalance read, then broker by broker its ratio noted and, past the
    /// threshold, its preferred elections a slice at a time. Ok(true) when
    /// done, Ok(false) when it stopped ([`KafkaController::stopped_at`]).
    pub(super) fn auto_rebalance_from(
        &mut self,
        env: &mut Env<'_>,
        run: Option<Box<RebalanceRun>>,
    ) -> Result<bool, ControllerError> {
        let mut run = match run {
            Some(run) => run,
            None => {
                let brokers = self.imbalance().into_iter().collect();
                let run = Box::new(RebalanceRun {
                    brokers,
                    next: 0,
                    under_way: None,
                });
                if env.may_stop.is_some() {
                    self.stopped_at = Some(super::Piece::Rebalance(run));
                    return Ok(false);
                }
                run
            }
        };
        let threshold = env.config.leader_imbalance_per_broker_percentage as f64 / 100.0;
        loop {
            if let Some(mut e) = run.under_way.take() {
                if !self.replica_election_from(env, &mut e, env.may_stop)? {
                    run.under_way = Some(e);
                    self.stopped_at = Some(super::Piece::Rebalance(run));
                    return Ok(false);
                }
                for (tp, code) in self.election_codes(*e) {
                    env.note(
                        "election_result",
                        Fact::ElectionResult {
                            label: ElectionLabel::AutoRebalance,
                            tp,
                            code,
                        },
                    );
                }
                continue;
            }
            let Some((broker, (not_preferred, total))) = run.brokers.get_mut(run.next) else {
                return Ok(true);
            };
            let (broker, total) = (*broker, *total);
            let not_preferred = std::mem::take(not_preferred);
            run.next += 1;
            let ratio = not_preferred.len() as f64 / total.max(1) as f64;
            env.note(
                "imbalance",
                Fact::Imbalance {
                    broker,
                    not_preferred: not_preferred.len() as u64,
                    total: total as u64,
                },
            );
            if ratio <= threshold {
                continue;
            }
            let candidates: Vec<TopicPartition> = not_preferred
                .into_iter()
                .filter(|tp| {
                    self.ctx.is_replica_online(broker, false)
                        && self.ctx.partitions_being_reassigned.is_empty()
                        && !self.ctx.topics_to_be_deleted.contains(tp.topic.as_str())
                        && self.ctx.all_topics.contains(tp.topic.as_str())
                })
                .collect();
            if !candidates.is_empty() {
                let e = self.begin_replica_election(
                    env,
                    &candidates,
                    ElectionType::Preferred,
                    ElectionTrigger::Auto,
                );
                run.under_way = Some(Box::new(e));
                if env.may_stop.is_some() {
                    self.stopped_at = Some(super::Piece::Rebalance(run));
                    return Ok(false);
                }
            }
        }
    }
}

/// `onReplicaElection` under way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaElection {
    election_type: ElectionType,
    /// The results of the partitions classified out of an election.
    results: BTreeMap<TopicPartition, ElectionCode>,
    /// The others, in order.
    to_elect: Vec<TopicPartition>,
    /// Their transitions' outcomes so far.
    outcome: BTreeMap<TopicPartition, super::partition_state_machine::TransitionResult>,
    /// Their Online transition (none when nothing is to be elected).
    run: Option<Box<super::partition_state_machine::OnlineRun>>,
}

/// `checkAndTriggerAutoLeaderRebalance` under way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RebalanceRun {
    /// Each broker's partitions not led by it and how many it is preferred
    /// for, read at the start (`imbalance`), in broker order.
    brokers: Vec<(BrokerId, (Vec<TopicPartition>, usize))>,
    /// The next broker to check.
    next: usize,
    /// The elections of the broker checked last, under way.
    under_way: Option<Box<ReplicaElection>>,
}

/// The event the admin API's ElectLeaders request becomes on the controller.
pub fn elect_leaders_event(
    partitions: Vec<TopicPartition>,
    election_type: ElectionType,
) -> ControllerEvent {
    ControllerEvent::ReplicaLeaderElection {
        partitions: Some(partitions),
        election_type,
        trigger: ElectionTrigger::AdminClient,
    }
}
