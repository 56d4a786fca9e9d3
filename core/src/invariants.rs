//! Named invariants, checked after every step of the simulation.

use serde::{Deserialize, Serialize};

/// At most one broker acts as controller for any controller epoch.
pub const SINGLE_CONTROLLER_PER_EPOCH: &str = "single_controller_per_epoch";
/// `/controller_epoch` never goes down.
pub const CONTROLLER_EPOCH_MONOTONIC: &str = "controller_epoch_monotonic";
/// No broker applies a request whose controller epoch is older than one it applied.
pub const NO_STALE_REQUEST_APPLIED: &str = "no_stale_request_applied";
/// Once nothing is pending, every running broker's `activeControllerId` is
/// `/controller`'s brokerid.
pub const CONTROLLER_AGREEMENT_WHEN_QUIET: &str = "controller_agreement_when_quiet";

/// A partition's leader is in its ISR (an unclean election makes the ISR [leader]).
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
    (ISR_SUBSET_OF_AR, "every partition's ISR is a subset of its assigned replicas"),
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
