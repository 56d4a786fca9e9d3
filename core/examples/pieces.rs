//! Scratch: the longest stretches between two points where the page may draw.
use kcsim_core::action::Action;
use kcsim_core::sim::Sim;
use kcsim_core::time::SimTime;

fn where_(sim: &Sim) -> String {
    sim.brokers()
        .values()
        .find_map(|b| {
            b.controller
                .stopped_at
                .as_ref()
                .map(|p| format!("{p:?}").chars().take_while(|c| *c != '(').collect())
        })
        .unwrap_or_else(|| "end of ms".into())
}

fn run(sim: &mut Sim, until: SimTime, label: &str) {
    let mut stretch = 0.0;
    let mut last_where = "start".to_string();
    while let Some(t) = sim.next_event_time().filter(|t| *t <= until) {
        let kinds: Vec<String> = sim
            .pending()
            .take_while(|(e, _)| *e <= t)
            .map(|(_, ev)| format!("{ev:?}").chars().take(60).collect())
            .collect();
        while sim.next_event_time().is_some_and(|e| e <= t) {
            let first: String = sim
                .pending()
                .next()
                .map(|(_, ev)| format!("{ev:?}").chars().take(50).collect())
                .unwrap_or_default();
            let first = if sim.pending_actions().next().is_some_and(|(a, _)| a <= t) {
                "an action".to_string()
            } else {
                first
            };
            let t0 = std::time::Instant::now();
            sim.step_piece();
            let one = t0.elapsed().as_secs_f64() * 1e3;
            stretch += one;
            if one > 5.0 && std::env::var_os("STEPS").is_some() {
                println!("  step {:.1} ms: {first}", one);
            }
            if sim.mid_step() {
                if stretch > 10.0 {
                    println!(
                        "{label} t={} {:.1} ms: {} -> {}",
                        t.as_ms(),
                        stretch,
                        last_where,
                        where_(sim)
                    );
                }
                last_where = where_(sim);
                stretch = 0.0;
            }
        }
        let t0 = std::time::Instant::now();
        sim.run_until(t);
        stretch += t0.elapsed().as_secs_f64() * 1e3;
        if stretch > 10.0 {
            println!(
                "{label} t={} {:.1} ms: {} -> end of ms; {} events: {:?}",
                t.as_ms(),
                stretch,
                last_where,
                kinds.len(),
                &kinds[..kinds.len().min(4)]
            );
        }
        last_where = "start of ms".into();
        stretch = 0.0;
    }
}

#[allow(clippy::disallowed_methods)]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let partitions: u32 = args.first().map_or(200_000, |a| a.parse().unwrap());
    let scenario = kcsim_core::bench::cluster(1, 100, partitions, 3).expect("cluster");
    let mut sim = scenario.build();
    run(&mut sim, SimTime(70_000), "startup");
    let c = sim.controller_id().unwrap();
    let at = sim.now().plus_ms(1000);
    sim.schedule_action(at, Action::KillBroker { broker: c })
        .unwrap();
    run(&mut sim, at.plus_ms(30_000), "failover");
}
