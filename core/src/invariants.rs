//! Named invariants, checked after every step of the simulation.

use crate::broker::{Broker, BrokerStatus};
use crate::controller::context::LeaderIsr;
use crate::ids::{BrokerId, TopicPartition};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// At most one broker acts as controller for any controller epoch.
pub const SINGLE_CONTROLLER_PER_EPOCH: &str = "single_controller_per_epoch";
/// `/controller_epoch` never goes down.
pub const CONTROLLER_EPOCH_MONOTONIC: &str = "controller_epoch_monotonic";
/// No broker applies a request whose controller epoch is older than one it applied.
pub const NO_STALE_REQUEST_APPLIED: &str = "no_stale_request_applied";
/// Once nothing is pending, every running broker's `activeControllerId` is
/// `/controller`'s brokerid.
pub const CONTROLLER_AGREEMENT_WHEN_QUIET: &str = "controller_agreement_when_quiet";

/// A partition's leader is in its ISR (an unclean election makes the ISR `[leader]`).
pub const LEADER_IN_ISR: &str = "leader_in_isr";
/// A partition's ISR is a subset of its assigned replicas.
pub const ISR_SUBSET_OF_AR: &str = "isr_subset_of_ar";
/// A partition's leader epoch never goes down.
pub const LEADER_EPOCH_MONOTONIC: &str = "leader_epoch_monotonic";

/// No acks=all record acknowledged to a producer is lost without an unclean election.
pub const NO_ACKED_RECORD_LOST_CLEAN: &str = "no_acked_record_lost_clean";
/// A partition's committed offset (high watermark) goes down only through an unclean election.
pub const HIGH_WATERMARK_MONOTONIC_CLEAN: &str = "high_watermark_monotonic_clean";

/// Every invariant, with a sentence that says what it means.
pub const ALL: &[(&str, &str)] = &[
    (SINGLE_CONTROLLER_PER_EPOCH, "at most one broker acts as controller for any controller epoch"),
    (CONTROLLER_EPOCH_MONOTONIC, "/controller_epoch never goes down"),
    (NO_STALE_REQUEST_APPLIED, "no broker applies a request older than the newest controller epoch it has applied"),
    (CONTROLLER_AGREEMENT_WHEN_QUIET, "once nothing is pending, every running broker's activeControllerId equals /controller's brokerid"),
    (LEADER_IN_ISR, "every partition's leader is in its ISR"),
    (ISR_SUBSET_OF_AR, "every partition's ISR is a subset of its assigned replicas (a leaderless ISR may keep its sole member)"),
    (LEADER_EPOCH_MONOTONIC, "no partition's leader epoch ever goes down"),
    (NO_ACKED_RECORD_LOST_CLEAN, "no acks=all record acknowledged to a producer is lost without an unclean election"),
    (HIGH_WATERMARK_MONOTONIC_CLEAN, "a partition's high watermark goes down only through an unclean election"),
];

/// A violation: which invariant, when it first failed, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// The invariant's name.
    pub invariant: String,
    /// When it was first seen violated.
    pub time_ms: u64,
    /// What was wrong.
    pub detail: String,
}

/// The state checker (TigerBeetle's StateChecker, stateright's `always`): it
/// reads what an operator could read after every step and records the first
/// moment each invariant breaks. An invariant that holds again may be
/// recorded again when it next breaks.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checker {
    /// Every violation recorded, in order.
    violations: Vec<Violation>,
    /// The invariants broken right now (recorded once until they hold again).
    violated_now: BTreeSet<String>,
    /// The highest `/controller_epoch` seen.
    last_controller_epoch: i64,
    /// Violations found inside a handler, recorded after the step.
    #[serde(skip)]
    found: Vec<(&'static str, String)>,
}

impl Checker {
    /// Violations so far.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// Record `invariant` as broken at `now`, unless it already is.
    pub fn record(&mut self, now: SimTime, invariant: &str, detail: String) {
        debug_assert!(
            ALL.iter().any(|(name, _)| *name == invariant),
            "{invariant} is a named invariant"
        );
        if self.violated_now.insert(invariant.to_string()) {
            self.violations.push(Violation {
                invariant: invariant.to_string(),
                time_ms: now.as_ms(),
                detail,
            });
        }
    }

    /// `invariant` holds again.
    pub fn clear(&mut self, invariant: &str) {
        self.violated_now.remove(invariant);
    }

    /// Note a violation found in the middle of a handler; it is recorded
    /// when the step ends ([`Checker::record_found`]).
    pub fn found(&mut self, invariant: &'static str, detail: String) {
        self.found.push((invariant, detail));
    }

    /// Record what handlers found during this step.
    pub fn record_found(&mut self, now: SimTime) {
        for (name, detail) in std::mem::take(&mut self.found) {
            self.record(now, name, detail);
        }
    }

    /// The controller invariants: one controller per epoch, the epoch only
    /// grows, and (when `quiet`) every running broker agrees with
    /// `/controller`.
    pub fn check_controllers(
        &mut self,
        now: SimTime,
        brokers: &BTreeMap<BrokerId, Broker>,
        zk_epoch: i32,
        zk_controller: Option<BrokerId>,
        quiet: bool,
    ) {
        let acting = || {
            brokers
                .values()
                .filter(|b| b.is_up() && b.controller.is_active(b.id) && b.controller.ctx.epoch > 0)
        };
        // This runs after every step: with one acting controller (or none),
        // as almost always, nothing is built.
        let shared_epoch = if acting().nth(1).is_some() {
            let mut by_epoch: BTreeMap<i32, Vec<BrokerId>> = BTreeMap::new();
            for b in acting() {
                by_epoch
                    .entry(b.controller.ctx.epoch)
                    .or_default()
                    .push(b.id);
            }
            by_epoch.into_iter().find(|(_, v)| v.len() > 1)
        } else {
            None
        };
        match shared_epoch {
            Some((epoch, v)) => {
                let d = format!("brokers {v:?} all act as controller with epoch {epoch}");
                self.record(now, SINGLE_CONTROLLER_PER_EPOCH, d);
            }
            None => self.clear(SINGLE_CONTROLLER_PER_EPOCH),
        }
        let epoch = i64::from(zk_epoch);
        if epoch < self.last_controller_epoch {
            let d = format!(
                "/controller_epoch went from {} to {epoch}",
                self.last_controller_epoch
            );
            self.record(now, CONTROLLER_EPOCH_MONOTONIC, d);
        } else {
            self.clear(CONTROLLER_EPOCH_MONOTONIC);
        }
        self.last_controller_epoch = self.last_controller_epoch.max(epoch);
        if !quiet {
            return;
        }
        let disagree: Vec<String> = brokers
            .values()
            .filter(|b| {
                b.status == BrokerStatus::Running
                    && b.controller.active_controller_id != zk_controller
            })
            .map(|b| {
                format!(
                    "broker {} believes {:?}",
                    b.id,
                    b.controller.active_controller_id.map(|x| x.0)
                )
            })
            .collect();
        if disagree.is_empty() {
            self.clear(CONTROLLER_AGREEMENT_WHEN_QUIET);
        } else {
            let d = format!(
                "/controller names {:?} but {}",
                zk_controller.map(|x| x.0),
                disagree.join(", ")
            );
            self.record(now, CONTROLLER_AGREEMENT_WHEN_QUIET, d);
        }
    }

    /// The partition invariants on a state znode just written: leader in ISR,
    /// ISR ⊆ AR (when the assignment `ar` is known), leader epoch only grows
    /// (from `last_epoch`, the epoch of the last state seen in that znode:
    /// the simulator keeps it with its record of the znode, and forgets it
    /// with a deleted topic, so a re-created one starts afresh).
    pub fn check_partition(
        &mut self,
        now: SimTime,
        tp: &TopicPartition,
        l: &LeaderIsr,
        ar: Option<&[BrokerId]>,
        last_epoch: Option<i32>,
    ) {
        if let Some(leader) = l.leader {
            if !l.isr.contains(&leader) {
                let d = format!(
                    "{tp}: leader {leader} is not in ISR {:?}",
                    l.isr.iter().map(|b| b.0).collect::<Vec<_>>()
                );
                self.record(now, LEADER_IN_ISR, d);
            }
        }
        if let Some(ar) = ar {
            if let Some(stray) = isr_stray(l.leader, &l.isr, ar) {
                let d = format!("{tp}: ISR member {stray} is not an assigned replica");
                self.record(now, ISR_SUBSET_OF_AR, d);
            }
        }
        if let Some(last) = last_epoch.filter(|e| l.leader_epoch < *e) {
            let d = format!("{tp}: leader epoch went from {last} to {}", l.leader_epoch);
            self.record(now, LEADER_EPOCH_MONOTONIC, d);
        }
    }
}

/// An ISR member that is not an assigned replica, which breaks
/// [`ISR_SUBSET_OF_AR`]. Kafka: a replica leaves the ISR before a
/// reassignment drops it from the assignment (ReplicaStateMachine's
/// OfflineReplica), except that the controller never empties an ISR
/// (`KafkaController.doRemoveReplicasFromIsr` keeps a sole member and
/// writes no leader): a leaderless partition may keep one stray member,
/// which no election can pick (elections choose from the assignment).
pub fn isr_stray(leader: Option<BrokerId>, isr: &[BrokerId], ar: &[BrokerId]) -> Option<BrokerId> {
    if leader.is_none() && isr.len() == 1 {
        return None;
    }
    isr.iter().copied().find(|r| !ar.contains(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(leader_epoch: i32) -> LeaderIsr {
        LeaderIsr {
            leader: Some(BrokerId(1)),
            leader_epoch,
            isr: [BrokerId(1), BrokerId(2)]
                .into_iter()
                .collect::<crate::broker::ReplicaIds>(),
            zk_version: 0,
            controller_epoch: 1,
        }
    }

    // Kafka: the leader epoch in a partition's state znode only grows
    // (PartitionStateMachine / KafkaController.doRemoveReplicasFromIsr bump
    // it from the value read); the epoch compared with is the one the
    // simulator last read from that znode, none for a new or re-created topic.
    #[test]
    fn a_leader_epoch_below_the_last_one_read_is_a_violation_once() {
        let tp = TopicPartition::new("t", 0);
        let ar = [BrokerId(1), BrokerId(2)];
        let mut c = Checker::default();
        c.check_partition(SimTime(1), &tp, &state(0), Some(&ar), None);
        c.check_partition(SimTime(2), &tp, &state(3), Some(&ar), Some(0));
        c.check_partition(SimTime(3), &tp, &state(3), Some(&ar), Some(3));
        assert!(c.violations().is_empty(), "{:?}", c.violations());
        c.check_partition(SimTime(4), &tp, &state(2), Some(&ar), Some(3));
        c.check_partition(SimTime(5), &tp, &state(1), Some(&ar), Some(2));
        assert_eq!(c.violations().len(), 1, "{:?}", c.violations());
        let v = &c.violations()[0];
        assert_eq!(v.invariant, LEADER_EPOCH_MONOTONIC);
        assert_eq!(v.time_ms, 4);
        assert_eq!(v.detail, "t-0: leader epoch went from 3 to 2");
    }

    /// Brokers 1..=n running; `acting` lists (broker, epoch) of those that
    /// believe they are the controller.
    fn brokers(n: u32, acting: &[(u32, i32)]) -> BTreeMap<BrokerId, Broker> {
        (1..=n)
            .map(|i| {
                let mut b = Broker::new(BrokerId(i));
                b.status = BrokerStatus::Running;
                if let Some((_, epoch)) = acting.iter().find(|(a, _)| *a == i) {
                    b.controller.active_controller_id = Some(BrokerId(i));
                    b.controller.ctx.epoch = *epoch;
                }
                (BrokerId(i), b)
            })
            .collect()
    }

    // Kafka: the controller epoch fences a zombie controller
    // (KafkaController.elect bumps /controller_epoch; brokers reject an older
    // one): two brokers acting as controller with one epoch is the split
    // brain the epoch exists to prevent; with different epochs it is a
    // zombie that the epoch fences, not a violation.
    #[test]
    fn two_controllers_with_one_epoch_are_a_violation_and_different_epochs_are_not() {
        let mut c = Checker::default();
        let now = SimTime(10);
        c.check_controllers(now, &brokers(4, &[(2, 3)]), 3, Some(BrokerId(2)), false);
        c.check_controllers(
            now,
            &brokers(4, &[(2, 3), (4, 4)]),
            4,
            Some(BrokerId(4)),
            false,
        );
        c.check_controllers(now, &brokers(4, &[]), 4, None, false);
        assert!(c.violations().is_empty(), "{:?}", c.violations());
        let split = brokers(4, &[(1, 2), (2, 5), (3, 5), (4, 2)]);
        c.check_controllers(SimTime(20), &split, 5, Some(BrokerId(3)), false);
        c.check_controllers(SimTime(21), &split, 5, Some(BrokerId(3)), false);
        assert_eq!(c.violations().len(), 1, "{:?}", c.violations());
        let v = &c.violations()[0];
        assert_eq!(v.invariant, SINGLE_CONTROLLER_PER_EPOCH);
        assert_eq!(v.time_ms, 20);
        // The lowest epoch shared, its brokers in id order.
        assert_eq!(
            v.detail,
            "brokers [BrokerId(1), BrokerId(4)] all act as controller with epoch 2"
        );
        // Held again once one of them stops acting; a later split is new.
        c.check_controllers(
            SimTime(30),
            &brokers(4, &[(3, 5)]),
            5,
            Some(BrokerId(3)),
            false,
        );
        c.check_controllers(SimTime(40), &split, 5, Some(BrokerId(3)), false);
        assert_eq!(c.violations().len(), 2, "{:?}", c.violations());
    }
}
