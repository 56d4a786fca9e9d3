//! Preferred and unclean elections on request (ZooKeeper's
//! `/admin/preferred_replica_election`, the admin API of KIP-460) and the
//! auto leader rebalance (Kafka 2.4.0 `processReplicaLeaderElection`,
//! `onReplicaElection`, `checkAndTriggerAutoLeaderRebalance`).

use super::election::Strategy;
use super::event::{ControllerEvent, ElectionTrigger, ElectionType};
use super::states::PartitionState;
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
        if to_elect.is_empty() {
            return Ok(results);
        }
        let strategy = match election_type {
            ElectionType::Preferred => Strategy::Preferred,
            ElectionType::Unclean => Strategy::Offline {
                allow_unclean: trigger == ElectionTrigger::AdminClient,
            },
        };
        let outcome = self.handle_partition_state_changes(
            env,
            &to_elect,
            PartitionState::OnlinePartition,
            Some(strategy),
        )?;
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
        Ok(results)
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
            if let Some(l) = self.ctx.leadership.get(tp) {
                if l.leader != Some(preferred) {
                    e.0.push(tp.clone());
                }
            }
        }
        out
    }

    /// `checkAndTriggerAutoLeaderRebalance`.
    pub(super) fn check_and_trigger_auto_leader_rebalance(
        &mut self,
        env: &mut Env<'_>,
    ) -> Result<(), ControllerError> {
        let threshold = env.config.leader_imbalance_per_broker_percentage as f64 / 100.0;
        for (broker, (not_preferred, total)) in self.imbalance() {
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
                let results = self.on_replica_election(
                    env,
                    &candidates,
                    ElectionType::Preferred,
                    ElectionTrigger::Auto,
                )?;
                for (tp, code) in results {
                    env.note(
                        "election_result",
                        Fact::ElectionResult {
                            label: ElectionLabel::AutoRebalance,
                            tp,
                            code,
                        },
                    );
                }
            }
        }
        Ok(())
    }
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
