//! `kcsim soak` as a user runs it: deterministic output, exit codes, and a
//! failing file reproduced with `--replay`.
#![cfg(feature = "cli")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests panic on purpose

use std::path::PathBuf;
use std::process::Command;

fn kcsim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kcsim"))
        .args(args)
        .output()
        .expect("kcsim runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// The summary line without its wall time.
fn without_wall_time(s: &str) -> String {
    s.lines()
        .map(|l| {
            l.split(" h of virtual time")
                .next()
                .unwrap_or(l)
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn soak_runs_schedules_in_seed_order_and_passes() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("soak");
    let out = dir.to_str().unwrap();
    let args = [
        "soak",
        "--schedules",
        "6",
        "--seed",
        "40",
        "--jobs",
        "2",
        "--out",
        out,
    ];
    let (code, a, err) = kcsim(&args);
    assert_eq!(code, 0, "{a}{err}");
    assert!(
        a.contains("soak: 6 schedules (seeds 40..46), 0 failing"),
        "{a}"
    );
    let (_, b, _) = kcsim(&[
        "soak",
        "--schedules",
        "6",
        "--seed",
        "40",
        "--jobs",
        "1",
        "--out",
        out,
    ]);
    assert_eq!(without_wall_time(&a), without_wall_time(&b));
}

#[test]
fn replay_runs_one_file_with_the_checks() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("soak-replay");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("one.json");
    std::fs::write(&p, kcsim_core::soak::generate_json(3)).unwrap();
    let (code, out, err) = kcsim(&["soak", "--replay", p.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("replay: 0 finding(s)"), "{out}");
    let (code, _, err) = kcsim(&["soak", "--replay", "/nonexistent.json"]);
    assert_eq!(code, 2, "{err}");
}
