//! ControllerBrokerRequestBatch: state transitions add requests here; one
//! `send` turns them into LeaderAndIsr, then UpdateMetadata, then StopReplica.

use super::channel::{PartitionStateInfo, RequestBody, LEADER_DURING_DELETE, NO_LEADER};
use super::context::{ControllerContext, LeaderIsr};
use super::{Env, RequestDraft};
use crate::ids::{BrokerId, TopicPartition};
use std::collections::{BTreeMap, BTreeSet};

/// Requests being gathered during one state-machine call.
#[derive(Debug, Default)]
pub struct RequestBatch {
    leader_and_isr: BTreeMap<BrokerId, BTreeMap<TopicPartition, PartitionStateInfo>>,
    update_metadata_brokers: BTreeSet<BrokerId>,
    update_metadata_partitions: BTreeSet<TopicPartition>,
    stop_replica: BTreeMap<BrokerId, BTreeMap<TopicPartition, bool>>,
}

/// The wire form of a partition's leadership.
pub fn partition_info(
    tp: &TopicPartition,
    l: &LeaderIsr,
    replicas: &[BrokerId],
    is_new: bool,
) -> PartitionStateInfo {
    PartitionStateInfo {
        tp: tp.clone(),
        controller_epoch: l.controller_epoch,
        leader: l.leader.map_or(NO_LEADER, |b| b.0 as i32),
        leader_epoch: l.leader_epoch,
        isr: l.isr.clone(),
        zk_version: l.zk_version,
        replicas: replicas.to_vec(),
        is_new,
    }
}

impl RequestBatch {
    /// `addLeaderAndIsrRequestForBrokers`: LeaderAndIsr to `brokers`, and
    /// UpdateMetadata for the partition to every live or shutting-down broker.
    pub fn add_leader_and_isr(
        &mut self,
        ctx: &ControllerContext,
        brokers: &[BrokerId],
        tp: &TopicPartition,
        l: &LeaderIsr,
        is_new: bool,
    ) {
        let replicas = ctx.assignments.get(tp).cloned().unwrap_or_default();
        for b in brokers {
            let entry = self.leader_and_isr.entry(*b).or_default();
            // An entry already marked new stays new.
            let was_new = entry.get(tp).is_some_and(|p| p.is_new);
            entry.insert(
                tp.clone(),
                partition_info(tp, l, &replicas, is_new || was_new),
            );
        }
        self.add_update_metadata(&ctx.live_or_shutting_down(), std::slice::from_ref(tp));
    }

    /// `addUpdateMetadataRequestForBrokers`.
    pub fn add_update_metadata(
        &mut self,
        brokers: &BTreeSet<BrokerId>,
        partitions: &[TopicPartition],
    ) {
        self.update_metadata_brokers.extend(brokers.iter().copied());
        self.update_metadata_partitions
            .extend(partitions.iter().cloned());
    }

    /// `addStopReplicaRequestForBrokers`.
    pub fn add_stop_replica(&mut self, brokers: &[BrokerId], tp: &TopicPartition, delete: bool) {
        for b in brokers {
            let e = self.stop_replica.entry(*b).or_default();
            let d = e.get(tp).copied().unwrap_or(false) || delete;
            e.insert(tp.clone(), d);
        }
    }

    /// Whether nothing has been added.
    pub fn is_empty(&self) -> bool {
        self.leader_and_isr.is_empty()
            && self.update_metadata_brokers.is_empty()
            && self.stop_replica.is_empty()
    }

    /// `sendRequestsToBrokers`: LeaderAndIsr, then UpdateMetadata, then
    /// StopReplica; only to live or shutting-down brokers.
    ///
    /// Building each request costs the event thread time (charged on the
    /// client's meter), and each leaves for its channel as soon as it is
    /// built: a batch sent early in an event reaches brokers before the
    /// event's later work is done.
    pub fn send(self, ctx: &ControllerContext, deleting: &BTreeSet<String>, env: &mut Env<'_>) {
        let epoch = ctx.epoch;
        let push = |env: &mut Env<'_>, to: BrokerId, body: RequestBody, partitions: usize| {
            env.client.meter.request(partitions as u64);
            env.out.requests.push(RequestDraft {
                to,
                broker_epoch: ctx.live_brokers.get(&to).copied().unwrap_or(-1),
                controller_epoch: epoch,
                body,
                sent_at_us: env.client.meter.elapsed_us,
            });
        };
        for (to, parts) in self.leader_and_isr {
            if ctx.live_brokers.contains_key(&to) {
                let n = parts.len();
                let body = RequestBody::LeaderAndIsr {
                    partitions: parts.into_values().collect(),
                };
                push(env, to, body, n);
            }
        }
        if !self.update_metadata_brokers.is_empty() {
            let partitions: super::channel::SharedStates = self
                .update_metadata_partitions
                .iter()
                .filter_map(|tp| {
                    let l = ctx.leadership.get(tp)?;
                    let replicas = ctx.assignments.get(tp).cloned().unwrap_or_default();
                    let mut info = partition_info(tp, l, &replicas, false);
                    if deleting.contains(tp.topic.as_str()) {
                        info.leader = LEADER_DURING_DELETE;
                    }
                    Some(std::rc::Rc::new(info))
                })
                .collect();
            let live: Vec<BrokerId> = ctx.live_or_shutting_down().into_iter().collect();
            // The partition states are built once and shared by every
            // broker's request.
            let mut states = partitions.len();
            for to in self.update_metadata_brokers {
                if ctx.live_brokers.contains_key(&to) {
                    let body = RequestBody::UpdateMetadata {
                        partitions: partitions.clone(),
                        live_brokers: live.clone(),
                    };
                    push(env, to, body, std::mem::take(&mut states));
                }
            }
        }
        for (to, parts) in self.stop_replica {
            if !ctx.live_brokers.contains_key(&to) {
                continue;
            }
            for delete in [false, true] {
                let list: Vec<TopicPartition> = parts
                    .iter()
                    .filter(|(_, d)| **d == delete)
                    .map(|(tp, _)| tp.clone())
                    .collect();
                if !list.is_empty() {
                    let n = list.len();
                    let body = RequestBody::StopReplica {
                        partitions: list,
                        delete,
                    };
                    push(env, to, body, n);
                }
            }
        }
    }
}
