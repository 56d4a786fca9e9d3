//! What one timeline snapshot of a large cluster costs, part by part: its
//! weighing against the snapshot before it
//! (`Timeline::snapshot_weight_of`), the clone itself, and the drop of a
//! snapshot the timeline lets go of. The page takes one at every interval
//! of virtual time, in one piece; at 100 × 200,000 a frame waits for it.
//!
//! `cargo run --profile perf -p kcsim-core --example snapshot_cost -- [PARTITIONS]`
//! (100 brokers, RF 3; the cluster settles for 60 s of virtual time, then
//! five snapshots a virtual second apart, `ROUNDS=N` of them).
//! `TIMELINE=S` instead plays a timeline for S virtual seconds as the page
//! does (`Timeline::run_within`, one piece of work per call) and prints
//! every call over 8 ms that took or let go of snapshots.
//!
//! Wall time is read here, in the driver, only to report speed.

use kcsim_core::sim::Sim;
use kcsim_core::time::SimTime;
use kcsim_core::timeline::Timeline;

#[allow(clippy::disallowed_methods)]
fn ms(f: impl FnOnce()) -> f64 {
    let t0 = std::time::Instant::now();
    f();
    t0.elapsed().as_secs_f64() * 1e3
}

/// The page's playback: one call to `run_within` per piece of work.
#[allow(clippy::disallowed_methods)]
fn play(scenario: &kcsim_core::scenario::Scenario, seconds: u64) {
    let mut t = Timeline::new(scenario);
    let end = SimTime(seconds * 1_000);
    let (mut calls, mut total, mut longest) = (0u64, 0.0f64, 0.0f64);
    while t.now() < end {
        let before = t.snapshot_count();
        let t0 = std::time::Instant::now();
        t.run_within(end, &mut || false);
        let took = t0.elapsed().as_secs_f64() * 1e3;
        calls += 1;
        total += took;
        longest = longest.max(took);
        let after = t.snapshot_count();
        if took > 8.0 && after != before {
            println!(
                "  {took:.1} ms at {} ms: snapshots {before} -> {after}",
                t.now().as_ms()
            );
        }
    }
    println!("{calls} calls, {total:.0} ms in all, the longest {longest:.1} ms");
}

fn main() {
    let partitions: u32 = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(200_000);
    let scenario = kcsim_core::bench::cluster(1, 100, partitions, 3).expect("a cluster");
    if let Some(seconds) = std::env::var("TIMELINE").ok().and_then(|s| s.parse().ok()) {
        return play(&scenario, seconds);
    }
    let mut sim = scenario.build();
    sim.run_until(SimTime(60_000));
    let mut previous: Option<Sim> = None;
    let rounds: u64 = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    for k in 0..rounds {
        sim.run_until(SimTime(61_000 + k * 1_000));
        // The timeline takes the trace out before it copies.
        drop(sim.take_trace());
        let mut weight = 0;
        let weigh = ms(|| weight = Timeline::snapshot_weight_of(&sim, previous.as_ref()));
        let mut copy = None;
        let clone = ms(|| copy = Some(sim.clone()));
        let unshared = ms(|| {
            std::hint::black_box(sim.unshared_entries(previous.as_ref()));
        });
        let old = previous.take();
        let drop = ms(move || std::mem::drop(old));
        previous = copy;
        println!(
            "snapshot at {} s: weigh {weigh:.1} ms (of which unshared entries {unshared:.1}), \
             clone {clone:.1} ms, drop of the one before {drop:.1} ms; weight {} MiB",
            sim.now().as_ms() / 1_000,
            weight >> 20
        );
    }
}
