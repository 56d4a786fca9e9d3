//! Virtual time. The core never reads a clock: every handler is given `now`.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Milliseconds of virtual time since the simulation started.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct SimTime(pub u64);

impl SimTime {
    /// The start of every simulation.
    pub const ZERO: SimTime = SimTime(0);

    /// Milliseconds since the start.
    pub fn as_ms(self) -> u64 {
        self.0
    }

    /// This time plus `ms` milliseconds, saturating rather than overflowing.
    pub fn plus_ms(self, ms: u64) -> SimTime {
        SimTime(self.0.saturating_add(ms))
    }

    /// The moment `us` microseconds after this one, rounded up to the whole
    /// millisecond (how far into a controller event a piece of its work is).
    pub fn plus_us_ceil(self, us: u64) -> SimTime {
        self.plus_ms(us.div_ceil(1000))
    }

    /// Milliseconds from `earlier` to `self`, or 0 if `earlier` is later.
    pub fn since(self, earlier: SimTime) -> u64 {
        self.0.saturating_sub(earlier.0)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ms", self.0)
    }
}
