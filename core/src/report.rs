//! The final-state document `kcsim run` prints (version 1). Fields may be
//! added in later versions; none is renamed. See `docs/final-state-format.md`.

use crate::ids::BrokerId;
use crate::invariants::Violation;
use crate::sim::{PartitionOverview, Sim};
use serde::Serialize;
use std::collections::BTreeMap;

/// `controller`: who `/controller` names and the epoch.
#[derive(Debug, Clone, Serialize)]
pub struct ControllerReport {
    /// `/controller`'s brokerid, or null.
    pub broker: Option<BrokerId>,
    /// `/controller_epoch`.
    pub epoch: i32,
}

/// One broker.
#[derive(Debug, Clone, Serialize)]
pub struct BrokerReport {
    /// `broker.id`.
    pub id: BrokerId,
    /// `running`, `starting`, `shutting_down`, `paused` or `dead`.
    pub status: &'static str,
    /// `activeControllerId`, null for −1.
    pub active_controller_id: Option<BrokerId>,
    /// Whether the broker is up and believes it is the controller.
    pub is_active_controller: bool,
}

/// One partition: its [`PartitionOverview`] (from ZooKeeper and the active
/// controller) with what the report adds.
#[derive(Debug, Clone, Serialize)]
pub struct PartitionReport {
    /// `topic`, `partition`, `state`, `replicas`, `isr`, `leader`,
    /// `leader_epoch` and `controller_epoch`.
    #[serde(flatten)]
    pub overview: PartitionOverview,
    /// The active controller's ReplicaStateMachine state per replica (broker id → state).
    pub replica_states: BTreeMap<String, String>,
    /// How long the partition has been without a serving leader, in all.
    pub unavailable_ms: u64,
    /// Each replica's log end offset (broker id → offset; replicas without a log are absent).
    pub log_end_offset: BTreeMap<String, u64>,
    /// The partition's high watermark (committed offset).
    pub high_watermark: u64,
}

impl std::ops::Deref for PartitionReport {
    type Target = PartitionOverview;

    fn deref(&self) -> &PartitionOverview {
        &self.overview
    }
}

/// An acknowledged record that an election lost.
#[derive(Debug, Clone, Serialize)]
pub struct LostRecord {
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: u32,
    /// The offset the record had.
    pub offset: u64,
    /// The producer's acks.
    pub acks: &'static str,
    /// When it was lost.
    pub lost_at_ms: u64,
    /// Why.
    pub reason: String,
}

/// Counters, with the partition unavailability sum.
#[derive(Debug, Clone, Serialize)]
pub struct StatsReport {
    /// Controller events processed, on all brokers.
    pub events_processed: u64,
    /// Requests rejected for a stale controller epoch.
    pub stale_requests_rejected: u64,
    /// Unclean leader elections.
    pub unclean_elections: u64,
    /// Time without a serving leader, summed over all partitions.
    pub unavailable_partition_ms: u64,
    /// Acknowledged records lost to leader changes.
    pub acked_records_lost: u64,
    /// ISR shrinks written by partition leaders.
    pub isr_shrinks: u64,
    /// ISR expansions written by partition leaders.
    pub isr_expands: u64,
    /// Partitions whose leader is not their preferred replica (Kafka's
    /// PreferredReplicaImbalanceCount; partitions without a leader are not counted).
    pub preferred_imbalance_count: u64,
}

/// The final-state document.
#[derive(Debug, Clone, Serialize)]
pub struct FinalState {
    /// Format version (1).
    pub version: u32,
    /// Virtual time in ms.
    pub time_ms: u64,
    /// The controller.
    pub controller: ControllerReport,
    /// Every znode path → its data.
    pub zk: BTreeMap<String, String>,
    /// Brokers in id order.
    pub brokers: Vec<BrokerReport>,
    /// Partitions in topic, partition order.
    pub partitions: Vec<PartitionReport>,
    /// Counters.
    pub stats: StatsReport,
    /// Invariant violations.
    pub violations: Vec<Violation>,
    /// The ledger of acknowledged records lost, and why.
    pub lost_records: Vec<LostRecord>,
}

impl FinalState {
    /// The report of `sim` now.
    pub fn of(sim: &Sim) -> FinalState {
        let zk = sim
            .zk()
            .observed_nodes()
            .into_iter()
            .filter(|(p, _)| *p != "/")
            .map(|(p, n)| (p.to_string(), n.data.to_string()))
            .collect();
        let brokers = sim
            .brokers()
            .values()
            .map(|b| BrokerReport {
                id: b.id,
                status: b.status.as_str(),
                active_controller_id: b.controller.active_controller_id,
                is_active_controller: b.status != crate::broker::BrokerStatus::Dead
                    && b.controller.is_active(b.id),
            })
            .collect();
        let ctx = sim.active_controller().map(|b| &b.controller.ctx);
        let overview = sim.partition_overview();
        let imbalance = overview
            .iter()
            .filter(|p| p.leader.is_some() && p.leader != p.replicas.first().copied())
            .count() as u64;
        let partitions = overview
            .into_iter()
            .map(|p| PartitionReport {
                replica_states: p
                    .replicas
                    .iter()
                    .filter_map(|r| {
                        let s = ctx?.replica_states.get(&p.tp, *r)?;
                        Some((r.to_string(), s.name().to_string()))
                    })
                    .collect(),
                unavailable_ms: sim.unavailable_ms(&p.tp),
                log_end_offset: p
                    .replicas
                    .iter()
                    .zip(p.log_end_offsets(sim))
                    .filter_map(|(r, leo)| Some((r.to_string(), leo?)))
                    .collect(),
                high_watermark: sim.high_watermark(&p.tp),
                overview: p,
            })
            .collect();
        FinalState {
            version: 1,
            time_ms: sim.now().as_ms(),
            controller: ControllerReport {
                broker: sim.controller_id(),
                epoch: sim.controller_epoch(),
            },
            zk,
            brokers,
            partitions,
            stats: StatsReport {
                events_processed: sim.stats().events_processed,
                stale_requests_rejected: sim.stats().stale_requests_rejected,
                unclean_elections: sim.stats().unclean_elections,
                unavailable_partition_ms: sim.total_unavailable_ms(),
                acked_records_lost: sim.stats().acked_records_lost,
                isr_shrinks: sim.stats().isr_shrinks,
                isr_expands: sim.stats().isr_expands,
                preferred_imbalance_count: imbalance,
            },
            lost_records: sim
                .produced()
                .iter()
                .filter_map(|r| {
                    let (at, why) = r.lost.as_ref()?;
                    Some(LostRecord {
                        topic: r.tp.topic.to_string(),
                        partition: r.tp.partition,
                        offset: r.offset,
                        acks: r.acks.as_str(),
                        lost_at_ms: at.as_ms(),
                        reason: why.clone(),
                    })
                })
                .collect(),
            violations: sim.violations().to_vec(),
        }
    }

    /// The document as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}
