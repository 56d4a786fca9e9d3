//! Kafka's `ReplicaManager`, its data-plane side: what a broker does with
//! its logs after it applied a LeaderAndIsr or StopReplica(delete)
//! (`becomeLeaderOrFollower`, `stopReplicas`), and its two scheduled tasks,
//! `isr-expiration` (`maybeShrinkIsr`) and `isr-change-propagation`
//! (`maybePropagateIsrChanges`).

use super::{
    BrokerTask, DataPlane, Env, FollowUp, ISR_PROPAGATION_BLACKOUT_MS, ISR_PROPAGATION_CHECK_MS,
    ISR_PROPAGATION_INTERVAL_MS,
};
use crate::broker::Taken;
use crate::controller::channel::{ControlRequest, RequestBody};
use crate::ids::{BrokerId, TopicPartition};
use crate::zk::CreateMode;
use crate::zk_client::paths;

impl DataPlane {
    /// Start a broker's periodic tasks (at registration).
    pub fn start_broker_tasks(&mut self, env: &mut Env, broker: BrokerId) {
        self.changed();
        let incarnation = env.incarnation(broker);
        let lag = env.config.replica_lag_time_max_ms / 2;
        env.out.schedule(
            env.now.plus_ms(lag),
            FollowUp::Task {
                broker,
                incarnation,
                task: BrokerTask::IsrExpiration,
            },
        );
        env.out.schedule(
            env.now.plus_ms(ISR_PROPAGATION_CHECK_MS),
            FollowUp::Task {
                broker,
                incarnation,
                task: BrokerTask::IsrChangePropagation,
            },
        );
    }

    /// Run one of a running broker's periodic tasks, and schedule its next run.
    pub fn broker_task(&mut self, env: &mut Env, broker: BrokerId, task: BrokerTask) {
        let incarnation = env.incarnation(broker);
        let every = match task {
            BrokerTask::IsrExpiration => {
                self.maybe_shrink_isr(env, broker);
                env.config.replica_lag_time_max_ms / 2
            }
            BrokerTask::IsrChangePropagation => {
                maybe_propagate_isr_changes(env, broker);
                ISR_PROPAGATION_CHECK_MS
            }
        };
        env.out.schedule(
            env.now.plus_ms(every),
            FollowUp::Task {
                broker,
                incarnation,
                task,
            },
        );
    }

    /// What a broker does after it applied a controller request.
    /// `state_leader_epoch` gives a partition's leader epoch in its state
    /// znode, as last observed: a leader that is already stale loses nothing.
    pub fn after_request_applied(
        &mut self,
        env: &mut Env,
        broker: BrokerId,
        req: &ControlRequest,
        taken: &Taken,
        state_leader_epoch: impl Fn(&TopicPartition) -> Option<i32>,
    ) {
        // Its hosted replicas changed; the sessions the request touches
        // count their own leaders' changes.
        self.changed_for(broker);
        let (led_slots, taken) = (taken.led_slots, &taken.partitions[..]);
        let changed: Vec<&TopicPartition> = match &req.body {
            RequestBody::LeaderAndIsr { partitions } => partitions
                .iter()
                .zip(taken)
                .filter(|(_, taken)| **taken)
                .map(|(p, _)| &p.tp)
                .collect(),
            RequestBody::StopReplica { partitions, .. } => partitions.iter().collect(),
            _ => Vec::new(),
        };
        if !changed.is_empty() {
            // The broker's fetch sessions, as leader or follower, that hold a
            // partition it changed drop it from their caches and have a full
            // round next, in which the members left in the cache (idle) are
            // skipped (Kafka's sessions add and remove partitions
            // incrementally: `FetchSession.update`).
            let taken = matches!(req.body, RequestBody::LeaderAndIsr { .. });
            self.close_session_caches_holding(env, broker, &changed, taken);
        }
        // The request changed the pairs its `isr-expiration` counts by
        // `led_slots`: the count is kept (no walk of every hosted replica to
        // make it again), unless it was made in another start.
        if led_slots != 0 {
            self.change_leader_slots(env, broker, led_slots);
        }
        match &req.body {
            RequestBody::LeaderAndIsr { partitions } => {
                // Kafka: becomeLeaderOrFollower makes a broker leader or
                // follower only of the partitions it took; the others keep
                // their leader's view of its followers and their fetchers.
                // The leaders whose sessions with this broker were already
                // closed and given a round (once is enough: nothing in this
                // call opens, parks or reschedules them again).
                let mut followed: Vec<BrokerId> = Vec::new();
                for (p, _) in partitions.iter().zip(taken).filter(|(_, taken)| **taken) {
                    let key = (broker, p.tp.clone());
                    if !self.logs.contains_key(&key) {
                        self.logs.insert(key.clone(), Default::default());
                    }
                    let tp = &key.1;
                    if p.leader == broker.0 as i32 {
                        let current = state_leader_epoch(tp);
                        self.become_leader(env, broker, tp, p.leader_epoch, current);
                    } else if p.leader >= 0 {
                        // The session with the new leader gains the partition.
                        let leader = BrokerId(p.leader as u32);
                        if !followed.contains(&leader) {
                            followed.push(leader);
                            self.resync_session_cache(env, leader, broker, &|_| false, true);
                            self.ensure_fetch_session(env, broker, leader, 2);
                        }
                    }
                }
            }
            RequestBody::StopReplica {
                partitions,
                delete: true,
            } => {
                for tp in partitions {
                    self.logs.remove(&(broker, tp.clone()));
                }
            }
            RequestBody::StopReplica { .. }
            | RequestBody::UpdateMetadata { .. }
            | RequestBody::ControlledShutdown { .. } => {}
        }
    }
}

/// `ReplicaManager.maybePropagateIsrChanges`.
fn maybe_propagate_isr_changes(env: &mut Env, broker: BrokerId) {
    let now = env.now;
    let Some(b) = env.brokers.get(&broker) else {
        return;
    };
    if b.isr_change_set.is_empty() {
        return;
    }
    let quiet = now.since(b.last_isr_change) > ISR_PROPAGATION_BLACKOUT_MS;
    let overdue = now.since(b.last_isr_propagation) > ISR_PROPAGATION_INTERVAL_MS;
    if !(quiet || overdue) {
        return;
    }
    let Some(session) = b.zk_client.session else {
        return;
    };
    let tps: Vec<TopicPartition> = b.isr_change_set.iter().cloned().collect();
    let data = crate::znodes::encode_isr_change_notification(&tps);
    let path = format!("{}/isr_change_", paths::ISR_CHANGE_NOTIFICATION);
    match env.zk.create(
        Some(session),
        &path,
        &data,
        CreateMode::PersistentSequential,
    ) {
        Ok(created) => {
            if let Some(b) = env.brokers.get_mut(&broker) {
                b.isr_change_set.clear();
                b.last_isr_propagation = now;
            }
            env.out.note(
                crate::trace::Label::numbered("broker-", broker.0),
                "isr_change_propagated",
                crate::fact::Fact::IsrChangePropagated {
                    path: created,
                    data,
                },
            );
        }
        Err(e) => env.out.note(
            crate::trace::Label::numbered("broker-", broker.0),
            "zk_error",
            crate::fact::Fact::ZkOpFailed {
                op: crate::fact::ZkOp::Create,
                path,
                error: e,
            },
        ),
    }
}
