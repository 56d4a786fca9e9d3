//! Determinism and time travel: one seed and one list of actions give one
//! trace, byte for byte; seeking back and replaying gives identical views.

use kcsim_core::report::FinalState;
use kcsim_core::scenario::Scenario;
use kcsim_core::timeline::Timeline;
use kcsim_core::{Action, BrokerId, ClusterView, SimTime};

const SCENARIO: &str = r#"{ "version": 1, "seed": 1234, "brokers": [0, 1, 2, 3],
  "topics": [ { "name": "orders", "partitions": 6, "replication_factor": 3 } ],
  "actions": [
    { "at_ms": 8000, "action": "kill_broker", "broker": 1 },
    { "at_ms": 9000, "action": "pause_broker", "broker": 2, "duration_ms": 8000 },
    { "at_ms": 20000, "action": "start_broker", "broker": 1 },
    { "at_ms": 25000, "action": "delete_znode", "path": "/controller" },
    { "at_ms": 30000, "action": "shutdown_broker", "broker": 3 } ] }"#;

fn trace_text(records: &[kcsim_core::trace::TraceRecord]) -> String {
    records.iter().map(|r| r.to_json_line() + "\n").collect()
}

#[test]
fn same_scenario_twice_gives_the_same_trace_and_state() {
    let s = Scenario::parse(SCENARIO).unwrap();
    let mut a = s.build();
    let mut b = s.build();
    a.run_until(SimTime(60_000));
    b.run_until(SimTime(60_000));
    assert_eq!(trace_text(a.trace()), trace_text(b.trace()));
    assert_eq!(FinalState::of(&a).to_json(), FinalState::of(&b).to_json());
    assert!(a.trace().len() > 50);
}

#[test]
fn a_different_seed_changes_the_run() {
    let s = Scenario::parse(SCENARIO).unwrap();
    let mut other = s.clone();
    other.seed = 99;
    let mut a = s.build();
    let mut b = other.build();
    a.run_until(SimTime(60_000));
    b.run_until(SimTime(60_000));
    assert_ne!(trace_text(a.trace()), trace_text(b.trace()));
}

fn snapshot(t: &Timeline) -> (ClusterView, String) {
    (ClusterView::of(t.sim()), FinalState::of(t.sim()).to_json())
}

#[test]
fn playing_within_a_frame_budget_stops_between_milliseconds_and_changes_nothing() {
    // The page's playback runs `run_within` with a wall-clock deadline; here
    // the deadline is "three more milliseconds of events". Where it stops
    // must not change what the cluster does (Kafka's behaviour is the
    // events'; the budget only decides when the page looks).
    let s = Scenario::parse(SCENARIO).unwrap();
    let mut budgeted = Timeline::new(&s);
    let mut calls = 0;
    loop {
        calls += 1;
        let mut left = 3;
        let mut more = || {
            left -= 1;
            left >= 0
        };
        if budgeted.run_within(SimTime(40_000), &mut more) {
            break;
        }
        let now = budgeted.now();
        assert!(now < SimTime(40_000), "stopped early at {now:?}");
        assert!(
            budgeted.sim().next_event_time().is_none_or(|n| n > now),
            "every event of the millisecond it stopped at ran"
        );
        assert!(calls < 100_000, "no progress");
    }
    assert!(calls > 50, "the budget split the run ({calls} calls)");
    assert_eq!(budgeted.now(), SimTime(40_000));
    let mut plain = Timeline::new(&s);
    plain.seek(SimTime(40_000));
    assert_eq!(trace_text(budgeted.trace()), trace_text(plain.trace()));
    assert_eq!(snapshot(&budgeted), snapshot(&plain));
    // Backward it is a seek.
    assert!(budgeted.run_within(SimTime(12_345), &mut || false));
    plain.seek(SimTime(12_345));
    assert_eq!(snapshot(&budgeted), snapshot(&plain));
}

#[test]
fn seeking_back_and_forth_gives_identical_views_and_traces() {
    let s = Scenario::parse(SCENARIO).unwrap();
    let mut t = Timeline::new(&s);
    let moments = [3_000, 8_500, 12_345, 16_000, 21_000, 26_000, 40_000];
    let mut seen = Vec::new();
    for m in moments {
        t.seek(SimTime(m));
        seen.push((snapshot(&t), t.trace().len()));
    }
    let full_trace = trace_text(t.trace());
    for (m, want) in moments.iter().zip(&seen).rev() {
        t.seek(SimTime(*m));
        assert_eq!((snapshot(&t), t.trace().len()), *want, "back at {m}");
    }
    t.seek(SimTime(40_000));
    assert_eq!(
        trace_text(t.trace()),
        full_trace,
        "forward again: the same trace"
    );
    // A straight run agrees with the timeline.
    let mut straight = s.build();
    straight.run_until(SimTime(40_000));
    assert_eq!(FinalState::of(&straight).to_json(), snapshot(&t).1);
}

#[test]
fn intervening_in_the_past_forks_the_future_like_a_fresh_run() {
    let s = Scenario::parse(SCENARIO).unwrap();
    let mut t = Timeline::new(&s);
    t.seek(SimTime(40_000));
    t.intervene(
        SimTime(15_000),
        Action::KillBroker {
            broker: BrokerId(0),
        },
    )
    .unwrap();
    assert_eq!(t.now(), SimTime(15_000));
    assert_eq!(
        t.actions().len(),
        3,
        "the two actions after 15 s were dropped, one added"
    );
    t.seek(SimTime(40_000));
    let mut fresh = s.clone();
    fresh.actions.truncate(2);
    fresh.actions.push((
        SimTime(15_000),
        Action::KillBroker {
            broker: BrokerId(0),
        },
    ));
    let mut straight = fresh.build();
    straight.run_until(SimTime(40_000));
    assert_eq!(FinalState::of(&straight).to_json(), snapshot(&t).1);
    assert_eq!(trace_text(straight.trace()), trace_text(t.trace()));
    // Seeking back before the intervention and forward again gives the same
    // run: a snapshot taken before it does not bring back the dropped actions.
    t.seek(SimTime(14_000));
    t.seek(SimTime(40_000));
    assert_eq!(FinalState::of(&straight).to_json(), snapshot(&t).1);
    assert_eq!(trace_text(straight.trace()), trace_text(t.trace()));
    // Undo takes the intervention back.
    let undone = t.undo().unwrap();
    assert_eq!(
        undone.1,
        Action::KillBroker {
            broker: BrokerId(0)
        }
    );
    // Undo restores the future the intervention dropped.
    assert_eq!(t.actions().len(), 5);
    let mut straight = s.build();
    straight.run_until(SimTime(40_000));
    assert_eq!(FinalState::of(&straight).to_json(), snapshot(&t).1);
    assert!(t.undo().is_none(), "nothing more to undo");
}

#[test]
fn an_action_for_an_unknown_broker_changes_nothing() {
    let s = Scenario::parse(SCENARIO).unwrap();
    let mut t = Timeline::new(&s);
    t.seek(SimTime(10_000));
    let before = snapshot(&t);
    assert!(t
        .intervene(
            SimTime(5_000),
            Action::KillBroker {
                broker: BrokerId(9)
            }
        )
        .is_err());
    assert_eq!(snapshot(&t), before);
    assert_eq!(t.actions().len(), 5);
}

#[test]
fn snapshots_stay_bounded_on_a_long_run() {
    let s = Scenario::parse(SCENARIO).unwrap();
    let mut t = Timeline::new(&s);
    t.seek(SimTime(3_600_000));
    assert!(
        t.snapshot_count() <= kcsim_core::timeline::MAX_SNAPSHOTS,
        "{}",
        t.snapshot_count()
    );
    t.seek(SimTime(1_000_000));
    let mut straight = s.build();
    straight.run_until(SimTime(1_000_000));
    assert_eq!(FinalState::of(&straight).to_json(), snapshot(&t).1);
}

#[test]
fn a_big_cluster_keeps_fewer_snapshots_and_seeks_to_the_same_states() {
    // Not a Kafka behaviour: the timeline's memory. A snapshot holds what it
    // does not share with the one before it, so the snapshots hold at most a
    // budget of (estimated) bytes;
    // seeking back replays from an older one and must still give the very
    // states a straight run gives.
    let s = Scenario::parse(SCENARIO).unwrap();
    let mut t = Timeline::new(&s);
    t.seek(SimTime(10_000));
    let one = Timeline::snapshot_weight_of(t.sim(), None);
    let budget = 3 * one;
    let mut small = Timeline::new(&s);
    small.set_snapshot_budget(budget);
    let moments = [3_000, 12_345, 21_000, 40_000, 8_500, 26_000];
    for m in moments {
        t.seek(SimTime(m));
        small.seek(SimTime(m));
        assert_eq!(snapshot(&small), snapshot(&t), "at {m}");
        assert_eq!(trace_text(small.trace()), trace_text(t.trace()), "at {m}");
        assert!(
            small.snapshot_weight() <= budget || small.snapshot_count() <= 2,
            "{} weight in {} snapshots",
            small.snapshot_weight(),
            small.snapshot_count()
        );
    }
    assert!(
        small.snapshot_count() < t.snapshot_count(),
        "{} snapshots against {}",
        small.snapshot_count(),
        t.snapshot_count()
    );
}

#[test]
fn a_snapshot_weighs_the_new_partitions_and_the_changes_not_yet_visible() {
    // Not a Kafka behaviour: the timeline's memory at Kafka scale. Right
    // after a topic is created its partitions are in the topic's znode but
    // the controller has not written their state znodes yet, and the
    // controller's long creation event (KafkaController.onNewPartitionCreation)
    // leaves many ZooKeeper writes that observers do not see yet. A snapshot
    // copies both; the estimate that keeps snapshots within the budget must
    // count them, or a 200,000-partition page runs out of memory.
    let shape = kcsim_core::summary::Shape {
        brokers: 6,
        topics: 2,
        partitions: 3_000,
        replication_factor: 3,
    };
    let s = shape.scenario().unwrap();
    let mut t = Timeline::new(&s);
    let mut saw_pending = false;
    let mut saw_unwritten = false;
    for ms in (1_000..=30_000).step_by(250) {
        t.seek(SimTime(ms));
        let sim = t.sim();
        let written = sim.state_changes().count();
        assert!(sim.partition_count() >= written);
        if sim.partition_count() == 6_000 && written < 6_000 {
            saw_unwritten = true;
        }
        let pending = sim.zk_unshared_pending(None);
        let weight = Timeline::snapshot_weight_of(sim, None);
        assert_eq!(
            weight,
            kcsim_core::timeline::BYTES_PER_BROKER * sim.brokers().len()
                + kcsim_core::timeline::BYTES_PER_PARTITION * sim.partition_count().max(1)
                + kcsim_core::timeline::BYTES_PER_ENTRY * sim.unshared_entries(None)
                + kcsim_core::timeline::BYTES_PER_PENDING * pending,
            "at {ms}: {pending} pending changes"
        );
        saw_pending |= pending > 1_000;
    }
    assert!(
        saw_unwritten,
        "partitions assigned before their state znodes"
    );
    assert!(saw_pending, "the creation's writes not yet visible");
}
