//! `cargo xtask fuzz [kcsim fuzz options]`: build `kcsim` in the `fuzz`
//! profile (optimized, panics unwind so each is caught with its input) and
//! run `kcsim fuzz` with the options given (see `core/docs/inputs.md`).
//!
//! `cargo xtask test` runs [`stage`]: a fixed number of inputs per target,
//! from a fixed seed, in the debug build the native stage already made, so
//! it is deterministic and costs about a minute.

use crate::{cmd, root, run, Result};
use std::path::PathBuf;

/// Inputs per target in `cargo xtask test` (deterministic: seed 1).
pub const CI_INPUTS: &str = "1000";

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}

/// `cargo xtask fuzz [...]`.
pub fn fuzz(args: &[String]) -> Result<()> {
    let mut c = cmd("cargo");
    c.args([
        "build",
        "--locked",
        "--profile",
        "fuzz",
        "-p",
        "kcsim-core",
        "--features",
        "cli",
        "--bin",
        "kcsim",
    ]);
    run(c)?;
    let mut c = cmd(&target_dir().join("fuzz/kcsim").to_string_lossy());
    c.arg("fuzz").args(args);
    run(c)
}

/// The `fuzz` stage of `cargo xtask test`.
pub fn stage() -> Result<()> {
    let mut c = cmd("cargo");
    c.args([
        "run",
        "--locked",
        "-q",
        "-p",
        "kcsim-core",
        "--features",
        "cli",
        "--bin",
        "kcsim",
        "--",
        "fuzz",
        "--inputs",
        CI_INPUTS,
        "--seed",
        "1",
    ]);
    run(c)
}
