//! Where the page cannot draw: the start-up of a 100-broker cluster, then a
//! kill -9 of its controller (or of another broker), played as the page plays (an event
//! at a time, a step that stops between pieces stopped there:
//! `Sim::step_piece`), printing every stretch of simulation between two
//! points where the page may draw that took over 10 ms of wall time, and
//! what it ran (the piece of a failover it started and ended at, or the
//! event; "end of ms" is the millisecond's close, its parked fetch rounds).
//! `STEPS=1` prints every step over 5 ms;
//! `VICTIM=broker` kills a broker that is not the controller;
//! `SHUTDOWN=1` shuts it down (a controlled shutdown) instead of killing it;
//! `RESTART=1` then starts it again and plays on past the auto rebalance;
//! `BROKERS=N` sizes the cluster (100 by default; the bench's controlled
//! shutdown is 20 brokers); `SUMMARY=1` also times the page's large-cluster
//! summary followed to every point where the page may draw
//! (`SummaryCache::refresh_sim` and `light_view`, what a tick's picture
//! costs besides its simulation) and prints their spread per phase.
//!
//! `cargo run --profile perf -p kcsim-core --example stretches -- [PARTITIONS | BUILT-IN]`
//! (100 brokers, a topic of PARTITIONS at RF 3 in ZooKeeper before they
//! start; or a built-in scenario such as `kafka-scale`)
//!
//! Wall time is read here, in the driver, only to report speed.

use kcsim_core::action::Action;
use kcsim_core::sim::Sim;
use kcsim_core::time::SimTime;

/// The first `n` characters of `x`'s `Debug` form, without formatting the
/// rest (an event can carry a request for 200,000 partitions).
fn brief(x: &dyn std::fmt::Debug, n: usize) -> String {
    struct Upto(String, usize);
    impl std::fmt::Write for Upto {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            for c in s.chars() {
                if self.0.chars().count() >= self.1 {
                    return Err(std::fmt::Error);
                }
                self.0.push(c);
            }
            Ok(())
        }
    }
    let mut w = Upto(String::new(), n);
    let _ = std::fmt::write(&mut w, format_args!("{x:?}"));
    w.0
}

/// The failover piece a stopped step is at, or "end of ms".
fn at_piece(sim: &Sim) -> String {
    sim.brokers()
        .values()
        .find_map(|b| {
            let p = b.controller.stopped_at.as_ref()?;
            // The piece's kind and its next step: `Failover(Elections`.
            let mut opened = 0;
            Some(
                brief(p, 200)
                    .chars()
                    .take_while(|c| {
                        opened += usize::from(*c == '(' || *c == ' ');
                        opened < 2
                    })
                    .collect(),
            )
        })
        .unwrap_or_else(|| "end of ms".into())
}

/// The first pending action or event, briefly.
fn next_thing(sim: &Sim, t: SimTime) -> String {
    if sim.pending_actions().next().is_some_and(|(a, _)| a <= t) {
        return "an action".into();
    }
    let Some((_, ev)) = sim.pending().next() else {
        return String::new();
    };
    let mut what: String = brief(ev, 60);
    // A controller's kick: the event at the head of its queue too.
    if let Some(head) = sim
        .brokers()
        .values()
        .filter(|b| what.contains(&format!("broker: {:?}", b.id)))
        .find_map(|b| b.controller.queue.front())
    {
        let name: String = brief(&head.event, 40);
        what = format!("{what} (queue head: {name})");
    }
    what
}

/// The page's picture of a large cluster, followed and timed (`SUMMARY=1`).
#[derive(Default)]
struct Picture {
    cache: kcsim_core::summary::SummaryCache,
    /// Wall ms of each refresh and light view.
    times: Vec<f64>,
}

impl Picture {
    #[allow(clippy::disallowed_methods)]
    fn draw(&mut self, sim: &Sim) {
        let t0 = std::time::Instant::now();
        self.cache.refresh_sim(sim, &[]);
        let view = kcsim_core::summary::light_view(sim, &self.cache);
        std::hint::black_box(view);
        self.times.push(t0.elapsed().as_secs_f64() * 1e3);
    }

    fn report(&mut self, label: &str) {
        let t = &mut self.times;
        if t.is_empty() {
            return;
        }
        t.sort_by(f64::total_cmp);
        let at = |q: f64| t[((t.len() - 1) as f64 * q) as usize];
        let sum: f64 = t.iter().sum();
        println!(
            "{label}: the page's picture drawn {} times, median {:.2} ms, p95 {:.2}, max {:.2}, {:.0} ms in all",
            t.len(),
            at(0.5),
            at(0.95),
            at(1.0),
            sum
        );
        t.clear();
    }
}

#[allow(clippy::disallowed_methods)]
fn run(sim: &mut Sim, until: SimTime, label: &str, mut picture: Option<&mut Picture>) {
    let steps = std::env::var_os("STEPS").is_some();
    while let Some(t) = sim.next_event_time().filter(|t| *t <= until) {
        let firsts: Vec<String> = sim
            .pending()
            .take_while(|(e, _)| *e <= t)
            .take(3)
            .map(|(_, ev)| brief(ev, 50))
            .collect();
        let mut from = "start of ms".to_string();
        while sim.next_event_time().is_some_and(|e| e <= t) {
            let what = next_thing(sim, t);
            let t0 = std::time::Instant::now();
            sim.step_piece();
            let one = t0.elapsed().as_secs_f64() * 1e3;
            if steps && one > 5.0 {
                println!("  step {one:.1} ms: {what}");
            }
            // The page may draw after each event and each piece of a
            // step (`Timeline::run_within`).
            if let Some(p) = picture.as_deref_mut() {
                p.draw(sim);
            }
            let to = if sim.mid_step() {
                at_piece(sim)
            } else {
                format!("after {what}")
            };
            if one > 10.0 {
                println!("{label} t={} {one:.1} ms: {from} -> {to}", t.as_ms());
            }
            from = to;
        }
        let t0 = std::time::Instant::now();
        sim.run_until(t);
        let close = t0.elapsed().as_secs_f64() * 1e3;
        if let Some(p) = picture.as_deref_mut() {
            p.draw(sim);
        }
        if close > 10.0 {
            println!(
                "{label} t={} {close:.1} ms: {from} -> end of ms; first events {firsts:?}",
                t.as_ms()
            );
        }
    }
}

#[allow(clippy::disallowed_methods)]
fn main() {
    let arg = std::env::args().nth(1).unwrap_or_else(|| "200000".into());
    let scenario = match kcsim_core::scenario::builtin::scenario(&arg) {
        Some(s) => s,
        None => {
            let partitions: u32 = arg.parse().expect("partitions or a built-in scenario");
            let brokers: u32 = std::env::var("BROKERS")
                .ok()
                .and_then(|b| b.parse().ok())
                .unwrap_or(100);
            kcsim_core::bench::cluster(1, brokers, partitions, 3).expect("cluster")
        }
    };
    let mut sim = scenario.build();
    let mut picture = std::env::var_os("SUMMARY").map(|_| Picture::default());
    run(&mut sim, SimTime(70_000), "start-up", picture.as_mut());
    if let Some(p) = picture.as_mut() {
        p.report("start-up");
    }
    let controller = sim.controller_id().expect("a controller");
    // `VICTIM=broker`: a broker that is not the controller instead.
    let victim = match std::env::var("VICTIM").as_deref() {
        Ok("broker") => *sim
            .brokers()
            .keys()
            .find(|b| **b != controller)
            .expect("another broker"),
        _ => controller,
    };
    let at = sim.now().plus_ms(1_000);
    let (action, label) = if std::env::var_os("SHUTDOWN").is_some() {
        (Action::ShutdownBroker { broker: victim }, "shutdown")
    } else {
        (Action::KillBroker { broker: victim }, "kill -9")
    };
    sim.schedule_action(at, action).expect("the fault");
    run(&mut sim, at.plus_ms(30_000), label, picture.as_mut());
    if let Some(p) = picture.as_mut() {
        p.report(label);
    }
    // `RESTART=1`: the victim starts again and the run goes on past the
    // auto leader rebalance's next check (every 300 s), as the page's
    // e2e test plays it at 20x.
    if std::env::var_os("RESTART").is_some() {
        let at = sim.now().plus_ms(1_000);
        sim.schedule_action(at, Action::StartBroker { broker: victim })
            .expect("the restart");
        run(&mut sim, at.plus_ms(330_000), "restart", picture.as_mut());
        if let Some(p) = picture.as_mut() {
            p.report("restart");
        }
    }
}
