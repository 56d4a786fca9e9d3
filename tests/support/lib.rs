//! Shared helpers for the cross-crate tests in `tests/`.

#![forbid(unsafe_code)]

use kcsim_core::{BrokerId, Config, Sim};

/// Broker ids `0..n`.
pub fn brokers(n: u32) -> Vec<BrokerId> {
    (0..n).map(BrokerId).collect()
}

/// A cluster of `n` brokers with default config.
pub fn cluster(seed: u64, n: u32) -> Sim {
    Sim::new(seed, Config::default(), &brokers(n))
}
