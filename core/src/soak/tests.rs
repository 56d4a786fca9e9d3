use super::generate::{verb_of, WEIGHTS};
use super::*;
use crate::action::Action;
use crate::fact::Fact;
use crate::scenario::{Scenario, ACTION_NAMES};
use crate::sim::Sim;
use std::collections::BTreeSet;

#[test]
fn every_verb_is_weighted_and_every_weight_is_a_verb() {
    let weighted: BTreeSet<&str> = WEIGHTS.iter().map(|(n, _)| *n).collect();
    let names: BTreeSet<&str> = ACTION_NAMES.iter().copied().collect();
    assert_eq!(weighted, names);
    assert!(WEIGHTS.iter().all(|(_, w)| *w > 0));
}

#[test]
fn schedules_draw_every_verb_and_parse_back_unchanged() {
    // Over many seeds every Action variant appears (verb_of matches on the
    // enum, so a new variant does not compile until it is named there, and
    // then fails here until the generator draws it), and every schedule is
    // a scenario file that parses back to itself.
    let mut seen = BTreeSet::new();
    for seed in 0..2_000 {
        let s = generate(seed);
        let text = scenario_json(&s);
        let back = Scenario::parse(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(back, s, "seed {seed}");
        for (_, a) in &s.actions {
            seen.insert(verb_of(a));
        }
    }
    let names: BTreeSet<&str> = ACTION_NAMES.iter().copied().collect();
    assert_eq!(seen, names);
}

#[test]
fn a_seed_gives_one_schedule() {
    assert_eq!(generate_json(11), generate_json(11));
    assert_ne!(generate_json(11), generate_json(12));
}

#[test]
fn drops_and_delays_hit_a_message_on_the_wire() {
    // The generator reads the message off its probe run; replayed from the
    // file, the same message is on the wire at that moment.
    let (mut hit, mut missed) = (0, 0);
    for seed in 0..200 {
        let s = generate(seed);
        if !s
            .actions
            .iter()
            .any(|(_, a)| matches!(a, Action::DropMessage { .. } | Action::DelayMessage { .. }))
        {
            continue;
        }
        let mut sim = s.build();
        sim.run_until(crate::SimTime(s.last_action_ms()));
        for r in sim.trace() {
            match (r.kind.as_ref(), &r.fact) {
                ("message_dropped" | "message_delayed", _) => hit += 1,
                (_, Fact::NoSuchMessage { .. }) => missed += 1,
                _ => {}
            }
        }
    }
    assert!(hit > 20 && missed * 10 < hit, "hit {hit}, missed {missed}");
}

/// A check that fails when the user has killed brokers twice.
struct TwoKills {
    read: usize,
    kills: usize,
}

impl Check for TwoKills {
    fn after_step(&mut self, sim: &Sim) -> Vec<Finding> {
        for r in &sim.trace()[self.read..] {
            if let Fact::UserAction(Action::KillBroker { .. }) = r.fact {
                self.kills += 1;
            }
        }
        self.read = sim.trace().len();
        if self.kills >= 2 {
            vec![Finding {
                property: "two kills".into(),
                time_ms: sim.now().as_ms(),
                detail: String::new(),
            }]
        } else {
            Vec::new()
        }
    }
    fn after_quiet(&mut self, _: &Sim) -> Vec<Finding> {
        Vec::new()
    }
}

#[test]
fn the_shrinker_reduces_a_long_schedule_to_the_two_actions_that_fail() {
    let (seed, s) = (0..)
        .map(|seed| (seed, generate(seed)))
        .find(|(_, s)| {
            s.actions.len() >= 15
                && s.actions
                    .iter()
                    .filter(|(_, a)| matches!(a, Action::KillBroker { .. }))
                    .count()
                    >= 3
        })
        .expect("some seed has a long schedule");
    let opts = RunOptions {
        heal: false,
        ..RunOptions::default()
    };
    let mut fails = |c: &Scenario| {
        run(c, |_| TwoKills { read: 0, kills: 0 }, &opts)
            .findings
            .iter()
            .any(|f| f.property == "two kills")
    };
    assert!(fails(&s), "seed {seed}");
    let small = shrink(&s, &mut fails, 5_000);
    assert_eq!(small.actions.len(), 2, "{}", scenario_json(&small));
    assert!(small
        .actions
        .iter()
        .all(|(t, a)| matches!(a, Action::KillBroker { .. }) && t.as_ms() == 0));
    assert!(small.topics.is_empty(), "{}", scenario_json(&small));
    assert_eq!(small.brokers.len(), 1, "{}", scenario_json(&small));
    // Shrinking is deterministic.
    assert_eq!(shrink(&s, &mut fails, 5_000), small);
}

struct Panics;

impl Check for Panics {
    fn after_step(&mut self, sim: &Sim) -> Vec<Finding> {
        assert!(sim.now().as_ms() < 3_000, "boom");
        Vec::new()
    }
    fn after_quiet(&mut self, _: &Sim) -> Vec<Finding> {
        Vec::new()
    }
}

#[test]
fn a_panic_is_a_finding_not_a_crash() {
    let s = generate(3);
    let out = run(&s, |_| Panics, &RunOptions::default());
    assert_eq!(out.findings.len(), 1);
    assert_eq!(out.findings[0].property, "panic");
    assert!(out.findings[0].detail.contains("boom"));
}

#[test]
fn a_quiet_cluster_passes_and_heals_what_was_killed() {
    // Kafka: a killed broker restarted re-registers and the controller
    // (KafkaController.onBrokerStartup) brings its replicas back.
    let s = Scenario::parse(
        r#"{"version":1,"brokers":[0,1,2],"topics":[{"name":"t","partitions":2,"replication_factor":3}],
           "actions":[{"at_ms":5000,"action":"kill_broker","broker":1},
                      {"at_ms":6000,"action":"slow_broker","broker":2,"lag_ms":30000}]}"#,
    )
    .expect("valid");
    let out = run(&s, SimChecks::new, &RunOptions::default());
    assert!(out.findings.is_empty(), "{:?}", out.findings);
    assert!(out.end_ms >= 6_001 + run::DEFAULT_LIVENESS_BOUND_MS);
}
