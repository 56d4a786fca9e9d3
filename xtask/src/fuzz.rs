//! `cargo xtask fuzz [kcsim fuzz options]`: build `kcsim` in the `fuzz`
//! profile (optimized, panics unwind so each is caught with its input) and
//! run `kcsim fuzz` with the options given (see `core/docs/inputs.md`).
//!
//! `cargo xtask test` runs [`stage`]: a fixed number of inputs per target,
//! from a fixed seed, in the debug build the native stage already made, so
//! it is deterministic and costs about a minute.

use crate::{kcsim, run, Result};

/// Inputs per target in `cargo xtask test` (deterministic: seed 1).
pub const CI_INPUTS: &str = "1000";

/// `cargo xtask fuzz [...]`.
pub fn fuzz(args: &[String]) -> Result<()> {
    let mut c = kcsim("fuzz", &["fuzz"]);
    c.args(args);
    run(c)
}

/// The `fuzz` stage of `cargo xtask test`.
pub fn stage() -> Result<()> {
    run(kcsim(
        "dev",
        &["fuzz", "--inputs", CI_INPUTS, "--seed", "1"],
    ))
}
