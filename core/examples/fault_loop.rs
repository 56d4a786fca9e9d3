//! A fault repeated on clones of one settled cluster, for profiling
//! (`perf record`): the wall time of the steps before the mark (the new
//! controller's election, or the victim's `/brokers/ids` znode gone) and
//! after it, in two functions that a profile tells apart
//! (`before_mark`, `after_mark`).
//!
//! `cargo run --profile perf -p kcsim-core --example fault_loop -- failover|broker|shutdown [PARTITIONS] [RUNS] [BROKERS] [RF]`
//! (`FRESH=1`: each run on a cluster settled anew; `PIECES=1`: each moment's
//! events a piece at a time, as the page and `kcsim bench` play them)
//!
//! Wall time is read here, in the benchmark driver, only to report speed.

use kcsim_core::action::Action;
use kcsim_core::ids::BrokerId;
use kcsim_core::sim::Sim;
use kcsim_core::time::SimTime;

/// This thread's time on a CPU so far, ms (`/proc/thread-self/schedstat`;
/// NaN where there is none): on a shared machine, less noisy than wall time.
fn cpu_ms() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(f64::NAN, |ns| ns / 1e6)
}

/// Minor page faults of this process so far (`/proc/self/stat`, field 10;
/// 0 where there is none): first touches of memory the kernel must zero.
fn minor_faults() -> u64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            let rest = s.get(s.rfind(')')? + 2..)?;
            rest.split_whitespace().nth(7)?.parse().ok()
        })
        .unwrap_or(0)
}

fn quiet_and_applied(sim: &Sim) -> bool {
    let epoch = sim.controller_epoch();
    sim.controller_id().is_some()
        && sim.is_quiet()
        && sim
            .brokers()
            .values()
            .filter(|b| b.is_up())
            .all(|b| b.controller_epoch_seen == epoch)
}

/// PIECES=1: the events at each moment are taken a piece at a time
/// (`Sim::step_piece`), as the page and `kcsim bench` play them, before the
/// moment's end (`run_until`).
fn by_pieces() -> bool {
    std::env::var_os("PIECES").is_some_and(|v| !v.is_empty())
}

/// Everything at `t`, by pieces if `pieces`.
fn run_to(sim: &mut Sim, t: SimTime, pieces: bool) {
    if pieces {
        while sim.next_event_time().is_some_and(|e| e <= t) {
            sim.step_piece();
        }
    }
    sim.run_until(t);
}

#[inline(never)]
fn before_mark(sim: &mut Sim, mark: &dyn Fn(&Sim) -> bool, deadline: SimTime) {
    let pieces = by_pieces();
    while let Some(t) = sim.next_event_time() {
        if t > deadline {
            return;
        }
        run_to(sim, t, pieces);
        if mark(sim) {
            return;
        }
    }
}

#[inline(never)]
fn after_mark(sim: &mut Sim, deadline: SimTime, gone: BrokerId) {
    let pieces = by_pieces();
    while let Some(t) = sim.next_event_time() {
        if t > deadline {
            return;
        }
        run_to(sim, t, pieces);
        if quiet_and_applied(sim) && !sim.brokers().get(&gone).is_some_and(|b| b.is_up()) {
            return;
        }
    }
}

#[allow(clippy::disallowed_methods)]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().map_or("failover", String::as_str).to_string();
    let partitions: u32 = args
        .get(1)
        .map_or(20_000, |a| a.parse().expect("partitions"));
    let runs: u32 = args.get(2).map_or(5, |a| a.parse().expect("runs"));
    let default_brokers = if mode == "shutdown" { 20 } else { 100 };
    let brokers: u32 = args
        .get(3)
        .map_or(default_brokers, |a| a.parse().expect("brokers"));
    let rf: u32 = args
        .get(4)
        .map_or(3, |a| a.parse().expect("replication factor"));
    let scenario = kcsim_core::bench::cluster(1, brokers, partitions, rf).expect("cluster");
    let settle = || {
        let mut sim = scenario.build();
        while !(sim.now() > SimTime(1_000) && quiet_and_applied(&sim)) {
            let Some(t) = sim.next_event_time() else {
                break;
            };
            sim.run_until(t);
        }
        sim
    };
    let t0 = std::time::Instant::now();
    let sim = settle();
    eprintln!(
        "settled at {} ms virtual, {:.0} ms wall",
        sim.now().as_ms(),
        t0.elapsed().as_secs_f64() * 1e3
    );
    let controller = sim.controller_id().expect("controller");
    // Counted by walking the overviews (none held: a list of every
    // partition's overview would stay beside the runs, 17.6 MB at 200,000).
    let leads = |b: BrokerId| {
        sim.partition_overviews()
            .filter(|p| p.leader == Some(b))
            .count()
    };
    let (victim, action) = match mode.as_str() {
        "failover" => (controller, Action::KillBroker { broker: controller }),
        "broker" => {
            let v = *sim
                .brokers()
                .keys()
                .find(|b| **b != controller)
                .expect("a broker");
            (v, Action::KillBroker { broker: v })
        }
        _ => {
            let v = sim
                .brokers()
                .keys()
                .copied()
                .filter(|b| *b != controller)
                .max_by_key(|b| (leads(*b), std::cmp::Reverse(*b)))
                .expect("a broker");
            (v, Action::ShutdownBroker { broker: v })
        }
    };
    let epoch = sim.controller_epoch();
    let path = format!("/brokers/ids/{}", victim.0);
    let mark: Box<dyn Fn(&Sim) -> bool> = if mode == "failover" {
        Box::new(move |s: &Sim| s.controller_epoch() > epoch)
    } else {
        Box::new(move |s: &Sim| s.zk().observed(&path).is_none())
    };
    let mut befores = Vec::new();
    let mut afters = Vec::new();
    let mut cpu_befores = Vec::new();
    let mut cpu_afters = Vec::new();
    // FRESH=1: each run on a cluster settled anew, which shares nothing (no
    // copy-on-write copies), instead of on a clone of one settled cluster.
    let fresh = std::env::var_os("FRESH").is_some_and(|v| !v.is_empty());
    for _ in 0..runs {
        let mut s = if fresh { settle() } else { sim.clone() };
        let at = SimTime(s.now().as_ms() + 1_000);
        s.schedule_action(at, action.clone()).expect("action");
        let deadline = SimTime(at.as_ms() + 120_000);
        let fetched0 = s.data_plane().partitions_fetched();
        let faults0 = minor_faults();
        let c0 = cpu_ms();
        let t0 = std::time::Instant::now();
        before_mark(&mut s, &*mark, deadline);
        let t1 = std::time::Instant::now();
        let c1 = cpu_ms();
        let marked = s.now();
        let fetched1 = s.data_plane().partitions_fetched();
        let faults1 = minor_faults();
        after_mark(&mut s, deadline, victim);
        let t2 = std::time::Instant::now();
        let c2 = cpu_ms();
        let fetched2 = s.data_plane().partitions_fetched();
        let faults2 = minor_faults();
        cpu_befores.push(c1 - c0);
        cpu_afters.push(c2 - c1);
        befores.push((t1 - t0).as_secs_f64() * 1e3);
        afters.push((t2 - t1).as_secs_f64() * 1e3);
        eprintln!(
            "{mode}: before mark {:.1} ms ({} virtual ms, {} partitions replicated, {} page faults), after {:.1} ms ({} virtual ms, {} replicated, {} page faults)",
            befores.last().unwrap_or(&0.0),
            marked.as_ms() - at.as_ms(),
            fetched1 - fetched0,
            faults1 - faults0,
            afters.last().unwrap_or(&0.0),
            s.now().as_ms() - marked.as_ms(),
            fetched2 - fetched1,
            faults2 - faults1
        );
        drop(s);
    }
    for v in [&mut befores, &mut afters, &mut cpu_befores, &mut cpu_afters] {
        v.sort_by(f64::total_cmp);
    }
    let m = |v: &[f64]| v.get(v.len() / 2).copied().unwrap_or(f64::NAN);
    println!(
        "{mode} {brokers}x{partitions}: median wall before mark {:.1} ms, after {:.1} ms; CPU {:.1} ms, {:.1} ms",
        m(&befores),
        m(&afters),
        m(&cpu_befores),
        m(&cpu_afters)
    );
}
