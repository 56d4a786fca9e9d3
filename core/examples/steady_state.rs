//! Steady state: virtual seconds simulated per wall second for an idle
//! cluster and for one under light produce traffic (one record to each of a
//! few partitions every second), with the fetch rounds' per-partition work.
//!
//! `cargo run --profile perf -p kcsim-core --example steady_state -- [BROKERS] [PARTITIONS] [SECONDS] [idle]`
//! (with `idle`, only the idle run)
//!
//! Wall time is read here, in the benchmark driver, only to report speed.

use kcsim_core::action::Action;
use kcsim_core::log::Acks;
use kcsim_core::scenario::Scenario;
use kcsim_core::time::SimTime;

#[allow(clippy::disallowed_methods)]
fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .take(3)
        .map(|a| a.parse().expect("a whole number"))
        .collect();
    let brokers = args.first().copied().unwrap_or(20);
    let partitions = args.get(1).copied().unwrap_or(20_000);
    let seconds = args.get(2).copied().unwrap_or(300);
    let ids: Vec<String> = (0..brokers).map(|b| b.to_string()).collect();
    let text = format!(
        r#"{{"version":1,"seed":1,"brokers":[{}],"topics":[{{"name":"big","partitions":{partitions},"replication_factor":3}}]}}"#,
        ids.join(",")
    );
    let mut sim = Scenario::parse(&text).expect("the scenario").build();
    let settle = SimTime(30_000);
    sim.run_until(settle);
    let measure = |sim: &mut kcsim_core::sim::Sim, from: SimTime, what: &str| {
        let fetched = sim.data_plane().partitions_fetched();
        let until = from.plus_ms(seconds * 1_000);
        let started = std::time::Instant::now();
        sim.run_until(until);
        let wall = started.elapsed().as_secs_f64();
        let fetched = sim.data_plane().partitions_fetched() - fetched;
        println!(
            r#"{{"bench":"steady_state","traffic":"{what}","brokers":{brokers},"partitions":{partitions},"virtual_s":{seconds},"wall_s":{wall:.4},"virtual_s_per_wall_s":{:.1},"partitions_fetched":{fetched}}}"#,
            seconds as f64 / wall
        );
        until
    };
    let after_idle = measure(&mut sim, settle, "none");
    if std::env::args().nth(4).as_deref() == Some("idle") {
        return;
    }
    // Light traffic: one record to each of 3 partitions every second.
    for s in 0..seconds {
        for k in 0..3u64 {
            let partition = ((s * 3 + k) * 7_919 % partitions) as u32;
            sim.schedule_action(
                after_idle.plus_ms(s * 1_000 + 100 + k),
                Action::Produce {
                    topic: "big".into(),
                    partition,
                    records: 1,
                    acks: Acks::All,
                },
            )
            .expect("a produce action");
        }
    }
    measure(&mut sim, after_idle, "3 records/s");
}
