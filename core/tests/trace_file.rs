//! `kcsim run --trace` writes the trace through the same serializer the page
//! downloads with (`kcsim_core::trace_file::write`), and its file replays.
#![cfg(feature = "cli")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests panic on purpose

use kcsim_core::scenario::{builtin, Scenario};
use kcsim_core::timeline::Timeline;
use kcsim_core::trace_file::{self, Header};
use kcsim_core::SimTime;
use std::path::PathBuf;
use std::process::Command;

#[test]
fn kcsim_run_trace_equals_the_pages_serializer_and_replays_byte_for_byte() {
    // Kafka: the controller is deterministic given its inputs; the trace of
    // the zombie controller scenario (epoch fencing) is the same file
    // whether the CLI or the page writes it.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("trace_file");
    std::fs::create_dir_all(&dir).unwrap();
    let text = builtin::file("zombie-controller").unwrap();
    let scenario_path = dir.join("zombie.json");
    std::fs::write(&scenario_path, text).unwrap();
    let trace_path = dir.join("zombie.jsonl");
    let out = Command::new(env!("CARGO_BIN_EXE_kcsim"))
        .args([
            "run",
            scenario_path.to_str().unwrap(),
            "--until-ms",
            "25000",
            "--trace",
            trace_path.to_str().unwrap(),
        ])
        .output()
        .expect("kcsim runs");
    assert!(out.status.success());
    let cli = std::fs::read_to_string(&trace_path).unwrap();

    // What the page writes: the timeline (snapshots, seeks) at 25 s.
    let scenario = Scenario::parse(text).unwrap();
    let mut t = Timeline::new(&scenario);
    t.seek(SimTime(3_000));
    t.seek(SimTime(25_000));
    let page = trace_file::write(&Header::of_file(text, 25_000).unwrap(), t.trace());
    assert_eq!(trace_file::first_difference(&cli, &page), None);

    let r = trace_file::replay(&cli).expect("the CLI's trace reads back");
    assert_eq!(r.differs_at, None);
    assert!(cli.lines().any(|l| l.contains("STALE_CONTROLLER_EPOCH")));
}
