//! Stories of one long controller event seen from outside: its ZooKeeper
//! writes and its requests happen in Kafka's order and at their moments, not
//! all when the event starts or ends. Each names the Kafka behaviour it mirrors.

use kcsim::Story;
use kcsim_core::config::Config;
use kcsim_core::cost::ZkMode;
use kcsim_core::{Action, BrokerId, SimTime, TopicPartition};

/// Three brokers (the controller `c`, `v` and `a`), 300 partitions on v and a
/// (leaders alternating), in Kafka 1.0's synchronous mode so that the event
/// handling v's death takes long enough to watch. v is killed at 10 s.
fn broker_failure() -> (Story, BrokerId, BrokerId, u64) {
    let config = Config {
        sim_controller_zk_mode: ZkMode::Sync,
        ..Config::default()
    };
    let mut s = Story::with_config(50, 3, config);
    s.until(5_000);
    let others = s.non_controllers();
    let (v, a) = (others[0], others[1]);
    let assignment: Vec<Vec<u32>> = (0..300)
        .map(|p| {
            if p % 2 == 0 {
                vec![v.0, a.0]
            } else {
                vec![a.0, v.0]
            }
        })
        .collect();
    let refs: Vec<&[u32]> = assignment.iter().map(Vec::as_slice).collect();
    s.create_topic(5_000, "t", &refs).until(10_000);
    s.at(10_000, Action::KillBroker { broker: v });
    // Run to the start of the BrokerChange that handles v's death.
    let c = s.controller();
    let start = loop {
        assert!(s.sim.step(), "the failure is handled");
        let current = s.broker(c).controller.current.as_ref();
        if let Some(e) = current.filter(|e| e.event.name() == "BrokerChange") {
            if e.started_at.as_ms() > 10_000 {
                break e.started_at.as_ms();
            }
        }
    };
    (s, v, a, start)
}

#[test]
fn on_replicas_become_offline_writes_new_leaders_first_then_shrinks_isrs_over_the_event() {
    // Kafka: KafkaController.onReplicasBecomeOffline — the partitions the dead
    // broker led are elected first (PartitionStateMachine, one batch of
    // conditional writes), then its follower replicas go Offline
    // (ReplicaStateMachine.removeReplicasFromIsr, another batch). Observers see
    // each write when the event thread makes it.
    let (mut s, v, a, start) = broker_failure();
    let c = s.controller();
    let end = s
        .broker(c)
        .controller
        .current
        .as_ref()
        .map(|e| e.done_at.as_ms());
    let end = end.expect("in progress");
    assert!(end - start > 100, "a long event: {start}..{end}");
    let led = TopicPartition::new("t", 0); // v led it
    let followed = TopicPartition::new("t", 1); // a leads, v follows
    let (mut leader_moved, mut isr_shrunk) = (None, None);
    while s.sim.now().as_ms() <= end {
        let now = s.sim.now().as_ms();
        let overview = s.sim.partition_overview();
        let find = |tp: &TopicPartition| overview.iter().find(|p| p.tp == *tp).cloned();
        if leader_moved.is_none() && find(&led).is_some_and(|p| p.leader == Some(a)) {
            leader_moved = Some(now);
        }
        if isr_shrunk.is_none() && find(&followed).is_some_and(|p| !p.isr.contains(&v)) {
            isr_shrunk = Some(now);
        }
        assert!(s.sim.step());
    }
    let moved = leader_moved.expect("the new leader is written during the event");
    let shrunk = isr_shrunk.expect("the ISR shrink is written during the event");
    assert!(moved > start, "not at the event's start ({start}): {moved}");
    assert!(
        moved < shrunk,
        "leaders first ({moved}), then ISRs ({shrunk})"
    );
    assert!(shrunk <= end, "by the event's end ({end}): {shrunk}");
}

#[test]
fn the_new_leaders_learn_before_the_isr_shrinks_are_done() {
    // Kafka: each state-machine call ends with sendRequestsToBrokers, so the
    // new leaders' LeaderAndIsr leaves before the ISR shrinks of the same
    // BrokerChange event are written (ControllerBrokerRequestBatch).
    let (mut s, _v, a, start) = broker_failure();
    let c = s.controller();
    let end = s
        .broker(c)
        .controller
        .current
        .as_ref()
        .map(|e| e.done_at.as_ms());
    let end = end.expect("in progress");
    s.sim.run_until(SimTime(end + 100));
    let applied = s
        .records("request_applied")
        .into_iter()
        .find(|r| {
            r.time_ms > start
                && r.actor == format!("broker-{a}")
                && r.details().starts_with("LeaderAndIsr")
        })
        .map(|r| r.time_ms)
        .expect("a gets its LeaderAndIsr");
    assert!(
        applied < end,
        "a leads before the event ends ({end}): LeaderAndIsr applied at {applied}"
    );
}

#[test]
fn the_trace_says_elected_when_zookeeper_shows_the_new_controller() {
    // Kafka: KafkaController.elect logs "successfully elected as the controller"
    // right after registerControllerAndIncrementControllerEpoch returns, so an
    // operator reading the log and `get /controller` sees the two together.
    let mut s = Story::brokers(51, 3);
    s.until(5_000);
    let old = s.controller();
    s.at(5_000, Action::KillBroker { broker: old });
    let seen = s.records("elected").len();
    while s.records("elected").len() == seen {
        assert!(s.sim.now().as_ms() < 20_000, "a new controller is elected");
        assert!(s.sim.step());
    }
    let line = s.records("elected")[seen].clone();
    let winner = s
        .sim
        .controller_id()
        .expect("/controller exists when the trace says so");
    assert!(
        line.details()
            .starts_with(&format!("broker {winner} successfully elected")),
        "{} while /controller names {winner}",
        line.details()
    );
    assert_eq!(s.epoch(), 2, "and /controller_epoch shows the new epoch");
}
