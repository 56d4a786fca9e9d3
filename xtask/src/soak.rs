//! `cargo xtask soak --schedules N [--seed S] [--jobs J]`: build `kcsim` in
//! the `soak` profile (optimized, unwinding: a panic in the core is one
//! schedule's finding) and run `kcsim soak`; and the `soak` stage of
//! `cargo xtask test`, a fixed few hundred schedules
//! (docs/simulation-testing.md).

use super::{kcsim, run, usage, Result};

/// The schedules `cargo xtask test` runs: fixed, so CI runs the same ones.
pub const CI_SCHEDULES: u64 = 300;
/// The first seed of CI's schedules.
pub const CI_SEED: u64 = 0x6b63_7369_6d00_0014;

fn kcsim_soak(args: &[String]) -> Result<()> {
    let mut c = kcsim("soak", &["soak"]);
    c.args(args);
    run(c)
}

/// `cargo xtask soak [kcsim soak options]`.
pub fn soak(args: &[String]) -> Result<()> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        return Err(usage());
    }
    kcsim_soak(args)
}

/// The `soak` stage of `cargo xtask test`.
pub fn stage_soak() -> Result<()> {
    kcsim_soak(&[
        "--schedules".to_string(),
        CI_SCHEDULES.to_string(),
        "--seed".to_string(),
        CI_SEED.to_string(),
    ])
}
