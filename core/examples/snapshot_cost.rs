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
    // `KILL_AT=S`: kill -9 the controller at S virtual seconds, as the
    // page's button does (`Timeline::insert` now); `SUMMARY=1`: follow the
    // page's large-cluster summary after every call, timed.
    let mut kill_at = std::env::var("KILL_AT")
        .ok()
        .and_then(|s| s.parse::<u64>().ok());
    let mut summary =
        std::env::var_os("SUMMARY").map(|_| kcsim_core::summary::SummaryCache::default());
    let (mut draws, mut draw_total, mut draw_longest) = (0u64, 0.0f64, 0.0f64);
    while t.now() < end {
        if kill_at.is_some_and(|k| t.now() >= SimTime(k * 1_000)) {
            kill_at = None;
            let now = t.now();
            if let Some(c) = t.sim().controller_id() {
                let t0 = std::time::Instant::now();
                t.insert(now, kcsim_core::action::Action::KillBroker { broker: c })
                    .expect("the kill");
                println!(
                    "  kill -9 of {c:?} at {} ms: {:.1} ms",
                    now.as_ms(),
                    t0.elapsed().as_secs_f64() * 1e3
                );
            }
        }
        if let Some(c) = summary.as_mut() {
            let t0 = std::time::Instant::now();
            c.refresh(&t);
            let took = t0.elapsed().as_secs_f64() * 1e3;
            draws += 1;
            draw_total += took;
            if took > draw_longest {
                draw_longest = took;
            }
            if took > 8.0 {
                println!(
                    "  summary {took:.1} ms at {} ms (rebuilds {})",
                    t.now().as_ms(),
                    c.rebuilds
                );
            }
        }
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
    if let Some(c) = summary {
        println!(
            "summary: {draws} refreshes, {draw_total:.0} ms in all, the longest {draw_longest:.1} ms, {} rebuilds, {} points in the series from {} ms",
            c.rebuilds,
            c.series.len(),
            c.series.first().map_or(0, |p| p.time_ms)
        );
    }
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
