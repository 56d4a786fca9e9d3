//! Property tests: random seeds and random fault schedules never violate an
//! invariant. A failure prints the seed and the schedule that reproduce it.

use kcsim_core::{Action, BrokerId, Config, Sim, SimTime};
use proptest::prelude::*;

fn action(n: u32) -> impl Strategy<Value = Action> {
    let b = (0..n).prop_map(BrokerId);
    prop_oneof![
        b.clone().prop_map(|broker| Action::KillBroker { broker }),
        b.clone().prop_map(|broker| Action::StartBroker { broker }),
        b.clone()
            .prop_map(|broker| Action::ShutdownBroker { broker }),
        (b.clone(), 100u64..15_000).prop_map(|(broker, duration_ms)| Action::PauseBroker {
            broker,
            duration_ms
        }),
        b.prop_map(|broker| Action::ExpireSession { broker }),
        Just(Action::DeleteZnode {
            path: "/controller".into()
        }),
    ]
}

fn schedule() -> impl Strategy<Value = (u64, u32, Vec<(u64, Action)>)> {
    (any::<u64>(), 2u32..6).prop_flat_map(|(seed, n)| {
        (
            Just(seed),
            Just(n),
            prop::collection::vec((0u64..60_000, action(n)), 0..12),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn invariants_hold_under_random_faults((seed, n, actions) in schedule()) {
        // Kafka: controller election and fencing (KafkaController.elect,
        // registerControllerAndIncrementControllerEpoch, ReplicaManager epoch checks).
        let brokers: Vec<BrokerId> = (0..n).map(BrokerId).collect();
        let mut sim = Sim::new(seed, Config::default(), &brokers);
        for (t, a) in &actions {
            sim.schedule_action(SimTime(*t), a.clone()).unwrap();
        }
        sim.run_until(SimTime(120_000));
        prop_assert!(sim.violations().is_empty(), "seed {seed}, {n} brokers, {actions:?}: {:#?}", sim.violations());
        // The epoch only grows, and a live controller holds the latest one.
        if let Some(c) = sim.active_controller() {
            prop_assert_eq!(c.controller.ctx.epoch <= sim.controller_epoch(), true);
        }
    }
}
