//! Simulation testing (issue 14, "Schedules"): random but reproducible fault
//! schedules, run with checks after every step and once the faults stop,
//! and shrunk to a minimal schedule when one fails.
//!
//! - [`generate`]: a seed gives a [`Scenario`](crate::scenario::Scenario):
//!   a cluster and timed actions drawn from every verb a scenario file
//!   accepts, weighted the way incidents happen ([`generate::WEIGHTS`]).
//! - [`run`]: step the simulation through the actions with a [`Check`]
//!   after every step, then heal what an operator would heal, run for a
//!   bound of virtual time and check again ([`Check::after_quiet`]).
//! - [`shrink`]: a failing schedule reduced to a minimal one that still
//!   fails the same property.
//!
//! See `docs/simulation-testing.md`.

#[cfg(feature = "cli")]
pub mod driver;
pub mod generate;
pub mod run;
pub mod shrink;

pub use crate::scenario::write::scenario_json;
pub use generate::{generate, generate_json};
pub use run::{run, AllChecks, Check, Finding, ObserverChecks, Outcome, RunOptions, SimChecks};
pub use shrink::shrink;

#[cfg(test)]
mod tests;
