//! The built-in scenarios (core/scenarios/) tell the stories they promise.

use kcsim_core::controller::states::PartitionState;
use kcsim_core::report::FinalState;
use kcsim_core::scenario::Scenario;
use kcsim_core::SimTime;

fn run(name: &str) -> FinalState {
    let path = format!("{}/core/scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("scenario file");
    let s = Scenario::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut sim = s.build();
    sim.run_until(SimTime(s.last_action_ms() + 60_000));
    FinalState::of(&sim)
}

fn unavailable(f: &FinalState, topic: &str, p: u32) -> u64 {
    f.partitions
        .iter()
        .find(|x| x.tp.topic == topic && x.tp.partition == p)
        .expect("partition")
        .unavailable_ms
}

#[test]
fn controller_failover_ends_with_epoch_two_and_no_violation() {
    // Kafka: KafkaController.elect after the controller's session expires.
    let f = run("controller-failover");
    assert_eq!(f.controller.epoch, 2);
    assert!(f.violations.is_empty(), "{:?}", f.violations);
    assert!(f
        .partitions
        .iter()
        .all(|p| p.state == PartitionState::OnlinePartition));
}

#[test]
fn controlled_shutdown_costs_nothing_and_kill_costs_a_session_timeout() {
    // Kafka: KafkaController.doControlledShutdown versus onBrokerFailure after expiry.
    let f = run("controlled-shutdown-vs-kill");
    for p in 0..2 {
        assert_eq!(unavailable(&f, "graceful", p), 0);
        let ms = unavailable(&f, "abrupt", p);
        assert!((4_000..=6_200).contains(&ms), "abrupt-{p}: {ms}");
    }
}

#[test]
fn unclean_election_elects_outside_the_isr() {
    // Kafka: OfflinePartitionLeaderElectionStrategy with unclean.leader.election.enable.
    let f = run("unclean-election");
    assert_eq!(f.stats.unclean_elections, 1);
    let p = &f.partitions[0];
    assert_eq!(p.leader.map(|b| b.0), Some(2));
    assert_eq!(p.isr.iter().map(|b| b.0).collect::<Vec<_>>(), vec![2]);
    assert_eq!(
        f.stats.acked_records_lost, 5,
        "the five records broker 1 acknowledged alone"
    );
    assert_eq!(f.lost_records.len(), 5);
}

#[test]
fn zombie_controller_has_its_stale_requests_rejected() {
    // Kafka: ReplicaManager rejects a deposed controller's requests (STALE_CONTROLLER_EPOCH).
    let f = run("zombie-controller");
    assert_eq!(f.controller.epoch, 2);
    assert!(f.stats.stale_requests_rejected >= 1);
    assert!(f.violations.is_empty(), "{:?}", f.violations);
}

#[test]
fn every_built_in_scenario_starts_with_its_leaders_on_their_preferred_replicas() {
    // Kafka: the brokers register, then `kafka-topics.sh --create` at 2 s; the
    // controller's onNewPartitionCreation elects the first live replica of each
    // assignment, the preferred one when every broker is up. The page opens at 3 s.
    let dir = format!("{}/core/scenarios", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("scenario dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    names.sort();
    assert!(names.len() >= 6);
    for path in names {
        let text = std::fs::read_to_string(&path).expect("scenario file");
        let s = Scenario::parse(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let mut sim = s.build();
        sim.run_until(SimTime(3_000));
        let f = FinalState::of(&sim);
        assert!(
            !f.partitions.is_empty(),
            "{path:?}: its topics exist at 3 s"
        );
        for p in &f.partitions {
            assert_eq!(
                p.leader,
                p.replicas.first().copied(),
                "{path:?}: {}-{} led by its preferred replica",
                p.tp.topic,
                p.tp.partition
            );
            assert_eq!(
                p.isr, p.replicas,
                "{path:?}: {}-{} full ISR",
                p.tp.topic, p.tp.partition
            );
            assert_eq!(p.state, PartitionState::OnlinePartition);
        }
    }
}
