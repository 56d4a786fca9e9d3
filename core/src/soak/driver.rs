//! `kcsim soak`: many schedules on all cores (one simulation per thread),
//! results printed in seed order so the output is the same on every run;
//! each failure shrunk and written as a scenario file. Native only (the
//! `cli` feature): it reads the wall clock and starts threads.

use super::{generate, run, scenario_json, shrink, AllChecks, Finding, RunOptions};
use crate::scenario::Scenario;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// What `kcsim soak` is asked to do.
#[derive(Debug, Clone)]
pub struct SoakOptions {
    /// How many schedules.
    pub schedules: u64,
    /// The first seed; schedules use seeds `seed..seed + schedules`.
    pub seed: u64,
    /// Worker threads.
    pub jobs: usize,
    /// Where failing schedules are written, as `<seed>.json`.
    pub out_dir: String,
    /// At most this many runs to shrink one failure.
    pub shrink_budget: usize,
}

/// One schedule's result (plain data, so it crosses threads).
#[derive(Debug, Clone)]
struct Done {
    virtual_ms: u64,
    failure: Option<Failed>,
}

#[derive(Debug, Clone)]
struct Failed {
    finding: Finding,
    actions_before: usize,
    actions_after: usize,
    shrunk_json: String,
}

/// The checks every soak run uses: the simulator's own and the observer's.
fn run_checked(s: &Scenario) -> super::Outcome {
    run(s, AllChecks::new, &RunOptions::default())
}

fn one(seed: u64, shrink_budget: usize) -> Done {
    let s = generate(seed);
    let out = run_checked(&s);
    let Some(first) = out.findings.first().cloned() else {
        return Done {
            virtual_ms: out.end_ms,
            failure: None,
        };
    };
    let property = first.property.clone();
    let mut fails = |c: &Scenario| {
        run_checked(c)
            .findings
            .iter()
            .any(|f| f.property == property)
    };
    let small = shrink(&s, &mut fails, shrink_budget);
    let finding = run_checked(&small)
        .findings
        .into_iter()
        .find(|f| f.property == property)
        .unwrap_or(first);
    Done {
        virtual_ms: out.end_ms,
        failure: Some(Failed {
            finding,
            actions_before: s.actions.len(),
            actions_after: small.actions.len(),
            shrunk_json: scenario_json(&small),
        }),
    }
}

/// Run the soak; returns the number of failures. Progress goes to `err`,
/// failures and the summary to `out`.
#[allow(clippy::disallowed_methods)] // the wall time of the summary line
pub fn soak(o: &SoakOptions, out: &mut dyn Write, err: &mut dyn Write) -> u64 {
    let started = std::time::Instant::now();
    // A panic in the core is a finding; its message is in the report, so
    // the default hook's copy on stderr (once per shrinking run) is noise.
    std::panic::set_hook(Box::new(|_| {}));
    let n = o.schedules;
    let next = AtomicU64::new(0);
    let results: Mutex<Vec<Option<Done>>> = Mutex::new(vec![None; n as usize]);
    let jobs = o.jobs.max(1);
    let mut failures = 0u64;
    let mut virtual_ms = 0u64;
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let d = one(o.seed.wrapping_add(i), o.shrink_budget);
                if let Ok(mut r) = results.lock() {
                    r[i as usize] = Some(d);
                }
            });
        }
        // Print what is done, in seed order, as it completes.
        let mut cursor = 0u64;
        let step = (n / 10).max(1);
        while cursor < n {
            let ready: Vec<Done> = match results.lock() {
                Ok(mut r) => {
                    let mut v = Vec::new();
                    while cursor < n {
                        match r[cursor as usize].take() {
                            Some(d) => {
                                v.push(d);
                                cursor += 1;
                            }
                            None => break,
                        }
                    }
                    v
                }
                Err(_) => break,
            };
            let first_index = cursor - ready.len() as u64;
            for (k, d) in ready.into_iter().enumerate() {
                let i = first_index + k as u64;
                virtual_ms += d.virtual_ms;
                if let Some(f) = d.failure {
                    failures += 1;
                    report(o, o.seed.wrapping_add(i), &f, out);
                }
                if (i + 1) % step == 0 || i + 1 == n {
                    let _ = writeln!(
                        err,
                        "soak: {}/{n} schedules, {failures} failing, {:.0} s",
                        i + 1,
                        started.elapsed().as_secs_f64()
                    );
                }
            }
            if cursor < n {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
        }
    });
    let _ = std::panic::take_hook();
    let _ = writeln!(
        out,
        "soak: {n} schedules (seeds {}..{}), {failures} failing, {:.1} h of virtual time, {:.1} s wall time on {jobs} threads",
        o.seed,
        o.seed.wrapping_add(n),
        virtual_ms as f64 / 3_600_000.0,
        started.elapsed().as_secs_f64()
    );
    failures
}

fn report(o: &SoakOptions, seed: u64, f: &Failed, out: &mut dyn Write) {
    let path = format!("{}/{seed}.json", o.out_dir.trim_end_matches('/'));
    let written = std::fs::create_dir_all(&o.out_dir)
        .and_then(|()| std::fs::write(&path, &f.shrunk_json))
        .is_ok();
    let _ = writeln!(
        out,
        "FAIL seed {seed}: {} at {} ms: {}",
        f.finding.property, f.finding.time_ms, f.finding.detail
    );
    let _ = writeln!(
        out,
        "  shrunk from {} to {} actions{}",
        f.actions_before,
        f.actions_after,
        if written {
            format!("; written to {path}; reproduce: kcsim soak --replay {path}")
        } else {
            String::new()
        }
    );
    let _ = write!(out, "{}", f.shrunk_json);
}

/// `kcsim soak --replay FILE`: one scenario with the soak's checks and
/// healing; prints each finding; returns how many.
pub fn replay(s: &Scenario, out: &mut dyn Write) -> usize {
    let o = run_checked(s);
    for f in &o.findings {
        let _ = writeln!(out, "{} at {} ms: {}", f.property, f.time_ms, f.detail);
    }
    let _ = writeln!(
        out,
        "replay: {} finding(s), {} steps, {} ms of virtual time",
        o.findings.len(),
        o.steps,
        o.end_ms
    );
    o.findings.len()
}
