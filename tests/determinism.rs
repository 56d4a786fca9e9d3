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

fn trace_text(records: &kcsim_core::trace::Records) -> String {
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

/// A timeline of `s` whose snapshots may weigh three times what a whole
/// copy of its cluster at 10 s weighs: past that, it lets half go.
fn tight_timeline(s: &Scenario) -> Timeline {
    let mut t = Timeline::new(s);
    t.seek(SimTime(10_000));
    let budget = 3 * Timeline::snapshot_weight_of(t.sim(), None);
    let mut tight = Timeline::new(s);
    tight.set_snapshot_budget(budget);
    tight
}

#[test]
fn snapshots_let_go_of_while_playing_are_freed_a_piece_at_a_time() {
    // Not a Kafka behaviour: the page's frames. Past its budget the timeline
    // lets every other snapshot go at once; freeing them all in one frame
    // froze a 200,000-partition page for tens of milliseconds, so playback
    // frees one per piece of its work, and what it plays is unchanged.
    let s = Scenario::parse(SCENARIO).unwrap();
    let mut small = tight_timeline(&s);
    let (mut most, mut one_by_one, mut last) = (0, 0, 0);
    while !small.run_within(SimTime(40_000), &mut || false) {
        let now = small.retired_count();
        one_by_one += usize::from(now + 1 == last);
        assert!(
            now <= last || last == 0,
            "freed, not piled up: {last} -> {now}"
        );
        most = most.max(now);
        last = now;
    }
    assert!(most >= 2, "half the snapshots let go at once: {most}");
    assert!(one_by_one >= 2, "freed one per call: {one_by_one}");
    let mut plain = Timeline::new(&s);
    plain.seek(SimTime(40_000));
    assert_eq!(trace_text(small.trace()), trace_text(plain.trace()));
    assert_eq!(snapshot(&small), snapshot(&plain));
    // A seek frees what is left at once.
    small.seek(SimTime(45_000));
    assert_eq!(small.retired_count(), 0);
}

#[test]
fn a_long_seek_and_a_copy_hold_no_snapshot_let_go_of() {
    // Not a Kafka behaviour: the timeline's memory. A seek far ahead passes
    // the budget again and again; what it lets go of is freed as it goes, not
    // held to its end (an hour of the default cluster held hundreds of copies
    // of it, 330 MiB, and the bench's next seek spent 40 ms freeing them).
    // A copy of a timeline carries none of what the original let go of.
    let s = Scenario::parse(SCENARIO).unwrap();
    let mut long = tight_timeline(&s);
    long.seek(SimTime(60_000));
    assert!(long.snapshot_count() <= 4, "{}", long.snapshot_count());
    assert_eq!(long.retired_count(), 0);
    let mut playing = tight_timeline(&s);
    let mut most = 0;
    let mut copy = None;
    while !playing.run_within(SimTime(40_000), &mut || false) {
        if playing.retired_count() > most {
            most = playing.retired_count();
            copy = Some(playing.clone());
        }
    }
    let mut copy = copy.expect("playback let snapshots go");
    assert!(most >= 2, "{most}");
    assert_eq!(copy.retired_count(), 0);
    // The copy plays on to what the original reaches.
    copy.seek(SimTime(40_000));
    assert_eq!(trace_text(copy.trace()), trace_text(playing.trace()));
    assert_eq!(snapshot(&copy), snapshot(&playing));
}

#[test]
fn playing_within_a_frame_budget_stops_between_events_and_changes_nothing() {
    // The page's playback runs `run_within` with a wall-clock deadline; here
    // the deadline is "three more events". Where it stops must not change
    // what the cluster does (Kafka's behaviour is the events'; the budget
    // only decides when the page looks): between milliseconds, and between
    // two events of one millisecond (a broker's fetch rounds to every
    // leader fall due together; at 200,000 partitions one such millisecond
    // was 35 ms of work, a frozen frame, until it could stop inside it).
    let s = Scenario::parse(SCENARIO).unwrap();
    let mut budgeted = Timeline::new(&s);
    let (mut calls, mut inside) = (0, 0);
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
        let left_at_now = budgeted.sim().next_event_time().is_some_and(|n| n <= now);
        inside += usize::from(left_at_now && !budgeted.mid_step());
        assert!(calls < 100_000, "no progress");
    }
    assert!(calls > 50, "the budget split the run ({calls} calls)");
    assert!(
        inside > 10,
        "it stopped inside a millisecond ({inside} times)"
    );
    assert_eq!(budgeted.now(), SimTime(40_000));
    let mut plain = Timeline::new(&s);
    plain.seek(SimTime(40_000));
    assert_eq!(trace_text(budgeted.trace()), trace_text(plain.trace()));
    assert_eq!(snapshot(&budgeted), snapshot(&plain));
    // A budget that stops after every event, then a seek from where it
    // stopped, lands where a plain seek does.
    let mut stepped = Timeline::new(&s);
    while !stepped.run_within(SimTime(21_000), &mut || false) {
        if stepped.now() >= SimTime(20_000) {
            break;
        }
    }
    stepped.seek(SimTime(40_000));
    assert_eq!(trace_text(stepped.trace()), trace_text(plain.trace()));
    assert_eq!(snapshot(&stepped), snapshot(&plain));
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

/// Acting on a paused moment keeps what that moment showed: the action comes
/// after everything at or before its millisecond, as a pause there shows it.
/// Before session 28 an action at T came before the events at T, so a
/// student who paused on a change (auto-follow rests on the milliseconds
/// things happen at) and acted saw that change undone by the replay.
/// Kafka: the controller's event thread (ControllerEventManager) takes an
/// event only after the one before it is done; here a user's action is one
/// more input after what the cluster has already done.
#[test]
fn acting_at_a_paused_moment_keeps_everything_that_moment_showed() {
    let s = Scenario::parse(SCENARIO).unwrap();
    let mut run = s.build();
    run.run_until(SimTime(30_000));
    // The milliseconds something was written at, a spread of them.
    let mut moments: Vec<u64> = run.trace().iter().map(|r| r.time_ms).collect();
    moments.dedup();
    let step = (moments.len() / 40).max(1);
    let moments: Vec<u64> = moments.into_iter().step_by(step).collect();
    assert!(moments.len() >= 30, "{} moments", moments.len());
    let mut t = Timeline::new(&s);
    let mut changed_at_the_moment = 0;
    for (i, m) in moments.into_iter().enumerate() {
        t.seek(SimTime(m));
        let shown = trace_text(t.trace());
        let view = snapshot(&t);
        // Broker 0 stays up through the scenario.
        let kill = Action::KillBroker {
            broker: BrokerId(0),
        };
        t.intervene(SimTime(m), kill.clone()).unwrap();
        let after = trace_text(t.trace());
        assert!(
            after.starts_with(&shown),
            "at {m} ms the action undid what the moment showed:\nshown ended {:?}\nafter: {:?}",
            shown.lines().last(),
            &after[shown.len().saturating_sub(400).min(after.len())..]
                .lines()
                .take(8)
                .collect::<Vec<_>>()
        );
        if after.len() > shown.len() {
            changed_at_the_moment += 1;
        }
        if i % 4 == 0 {
            // Acted on the live simulation (no replay), the run goes on as a
            // fresh run of the scenario with that action does.
            t.seek(SimTime(m + 2_000));
            let mut fresh = s.clone();
            fresh.actions.retain(|(at, _)| at.as_ms() <= m);
            fresh.actions.push((SimTime(m), kill.clone()));
            let mut straight = fresh.build();
            straight.run_until(SimTime(m + 2_000));
            assert_eq!(
                FinalState::of(&straight).to_json(),
                snapshot(&t).1,
                "at {m} ms"
            );
            assert_eq!(
                trace_text(straight.trace()),
                trace_text(t.trace()),
                "at {m} ms"
            );
        }
        // Undo: the moment as it was.
        assert!(t.undo().is_some());
        t.seek(SimTime(m));
        assert_eq!(snapshot(&t), view, "undone at {m} ms");
        assert_eq!(trace_text(t.trace()), shown, "undone at {m} ms");
    }
    assert!(changed_at_the_moment > 0, "the kill wrote nothing");
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

/// How often a run by pieces stopped.
#[derive(Debug, Default)]
struct Stops {
    /// In a failover.
    failover: usize,
    /// In a creation of partitions.
    creation: usize,
    /// In a BrokerChange's start-up of new brokers.
    startup: usize,
    /// In a controlled shutdown.
    shutdown: usize,
    /// In an auto leader rebalance.
    rebalance: usize,
    /// Of those, with its elections under way.
    rebalance_in_run: usize,
    /// In an ISR change notification's handling.
    isr_change: usize,
    /// Of those, inside its reads or its updates of the states.
    isr_change_in_run: usize,
    /// Inside a run of first leaders, elections or replica changes (or at
    /// its start).
    in_run: usize,
    /// Inside a failover's walk over the context's partitions (a read, or
    /// the online replicas' requests gathered).
    in_walk: usize,
    /// Inside a start-up's building of the new brokers' UpdateMetadata
    /// states (every partition's).
    in_startup_metadata: usize,
    /// While a batch of requests was being sent.
    sending: usize,
}

/// Run `sim` to `end` one piece of at most `slice` writes at a time
/// (`Sim::step_piece_of`), checking that nothing happens while a step is
/// unfinished; says where steps stopped.
fn run_by_pieces(sim: &mut kcsim_core::Sim, end: SimTime, slice: usize) -> Stops {
    use kcsim_core::controller::brokers::{BrokerStartupPiece, ShutdownPiece};
    use kcsim_core::controller::topics::NewPartitionsPiece;
    use kcsim_core::controller::{FailoverPiece, Piece};
    let mut stops = Stops::default();
    while sim.next_event_time().is_some_and(|t| t <= end) {
        let before = sim.now();
        sim.step_piece_of(slice);
        if sim.mid_step() {
            let at = sim
                .brokers()
                .values()
                .find_map(|b| b.controller.stopped_at.as_ref());
            // A batch's sending under way shows in the piece (`RequestBatch`'s
            // `sending`, past `NotYet`).
            let text = format!("{at:?}");
            stops.sending += usize::from(
                [
                    "LeaderAndIsr(",
                    "UpdateMetadataStart",
                    "UpdateMetadata(",
                    "StopReplica",
                ]
                .iter()
                .any(|s| text.contains(&format!("sending: {s}"))),
            );
            match at {
                Some(Piece::Failover(p)) => {
                    stops.failover += 1;
                    stops.in_run += usize::from(matches!(
                        p,
                        FailoverPiece::Elections(_) | FailoverPiece::OfflineUnderWay(_)
                    ));
                    stops.in_walk += usize::from(matches!(
                        p,
                        FailoverPiece::Assignments(_)
                            | FailoverPiece::Leaderships(_)
                            | FailoverPiece::ReplicaStates(_)
                            | FailoverPiece::OnlineReplicas(..)
                            | FailoverPiece::PartitionStates(_)
                    ));
                }
                Some(Piece::NewPartitions(p)) => {
                    stops.creation += 1;
                    stops.in_run += usize::from(matches!(
                        p,
                        NewPartitionsPiece::OnlineUnderWay(..)
                            | NewPartitionsPiece::NewReplicasUnderWay(..)
                            | NewPartitionsPiece::OnlineReplicasUnderWay(_)
                    ));
                }
                Some(Piece::BrokerStartup(p)) => {
                    stops.startup += 1;
                    stops.in_startup_metadata +=
                        usize::from(matches!(p, BrokerStartupPiece::Metadata(..)));
                    stops.in_run += usize::from(matches!(
                        p,
                        BrokerStartupPiece::OnlineUnderWay(..)
                            | BrokerStartupPiece::ReplicasUnderWay(..)
                    ));
                }
                Some(Piece::Shutdown(p)) => {
                    stops.shutdown += 1;
                    stops.in_run += usize::from(matches!(
                        p,
                        ShutdownPiece::Elections(..) | ShutdownPiece::OfflineUnderWay(..)
                    ));
                }
                Some(Piece::Rebalance(_)) => {
                    stops.rebalance += 1;
                    let in_run = usize::from(text.contains("under_way: Some"));
                    stops.in_run += in_run;
                    stops.rebalance_in_run += in_run;
                }
                Some(Piece::IsrChange(_)) => {
                    stops.isr_change += 1;
                    stops.isr_change_in_run += usize::from(
                        text.contains("stage: Read(") || text.contains("stage: Apply("),
                    );
                }
                None => panic!("a step stopped, but no controller says where"),
            }
            assert_eq!(
                sim.now(),
                sim.next_event_time().expect("an unfinished step is next"),
                "time stands still"
            );
            assert!(sim.now() >= before);
            assert!(!sim.is_quiet(), "an unfinished step is work in flight");
        }
    }
    sim.run_until(end);
    stops
}

/// The scenarios the piecewise run is compared on: every built-in one but
/// the 200,000-partition cluster, and this file's with two seeds. In each,
/// the topics are in ZooKeeper before the brokers start, so the first
/// controller's failover elects every leader.
fn piece_scenarios() -> Vec<(String, Scenario)> {
    let mut all: Vec<(String, Scenario)> = kcsim_core::scenario::builtin::NAMES
        .iter()
        .filter(|n| **n != "kafka-scale")
        .map(|n| {
            (
                n.to_string(),
                kcsim_core::scenario::builtin::scenario(n).expect("a built-in scenario"),
            )
        })
        .collect();
    let this = Scenario::parse(SCENARIO).expect("this file's scenario");
    all.push(("determinism".into(), this.clone()));
    let mut other_seed = this;
    other_seed.seed = 77;
    all.push(("determinism, seed 77".into(), other_seed));
    all.push((
        "rebalance".into(),
        Scenario::parse(REBALANCE).expect("a rebalance"),
    ));
    all
}

/// A broker back after a kill -9 is the preferred leader of partitions that
/// others lead: the auto leader rebalance, checked every 10 s, moves them.
const REBALANCE: &str = r#"{ "version": 1, "seed": 5, "brokers": [0, 1, 2, 3],
  "config": { "leader.imbalance.check.interval.seconds": 10 },
  "topics": [ { "name": "orders", "partitions": 40, "replication_factor": 3 } ],
  "actions": [
    { "at_ms": 8000, "action": "kill_broker", "broker": 1 },
    { "at_ms": 20000, "action": "start_broker", "broker": 1 } ] }"#;

#[test]
fn a_long_event_run_by_pieces_gives_the_same_trace_and_state_as_in_one_go() {
    // Kafka: ControllerEventManager runs one event at a time, to its end;
    // onControllerFailover is one event, and so is a TopicChange with its
    // onNewPartitionCreation. The simulator may stop between their pieces
    // so that the page can draw while a large one runs: nothing else
    // happens meanwhile, so the run is the same byte for byte.
    let mut stopped_somewhere = 0;
    let mut created_somewhere = 0;
    let mut started_somewhere = 0;
    let mut shut_somewhere = 0;
    let mut rebalanced_somewhere = 0;
    let mut isr_changed_somewhere = 0;
    // Stops inside the ISR changes' reads and updates, by slice size.
    let mut isr_in_run = [0; 3];
    let mut rebalance_in_run = [0; 3];
    // Stops with a run of first leaders or elections next, inside a walk,
    // and inside a batch's sending, by slice size.
    let mut in_a_run = [0; 3];
    let mut in_a_walk = [0; 3];
    let mut sending = [0; 3];
    let mut startup_metadata = [0; 3];
    for (name, s) in piece_scenarios() {
        let end = SimTime(s.last_action_ms() + 30_000);
        let mut whole = s.build();
        whole.run_until(end);
        // Pieces of the page's size, and of one or three writes.
        for (k, slice) in [kcsim_core::sim::PIECE, 1, 3].into_iter().enumerate() {
            let mut pieces = s.build();
            let stops = run_by_pieces(&mut pieces, end, slice);
            let name = format!("{name}, pieces of {slice}");
            assert_eq!(
                trace_text(pieces.trace()),
                trace_text(whole.trace()),
                "{name}"
            );
            assert_eq!(
                FinalState::of(&pieces).to_json(),
                FinalState::of(&whole).to_json(),
                "{name}"
            );
            assert!(pieces == whole, "{name}: the whole state is the same");
            // Every failover stopped at each of its boundaries (eleven, or
            // nine when no replica is online, and more inside its walks and
            // runs);
            // every creation of partitions (a new topic's, or partitions
            // added) at its four, and more inside its first leaders.
            let count = |kind: &str| {
                whole
                    .trace()
                    .iter()
                    .filter(|r| r.kind.as_str() == kind)
                    .count()
            };
            let failovers = count("failover");
            assert!(
                stops.failover >= 9 * failovers && (failovers > 0 || stops.failover == 0),
                "{name}: {stops:?}, {failovers} failovers"
            );
            let creations = whole
                .trace()
                .iter()
                .filter(|r| match &*r.fact() {
                    kcsim_core::fact::Fact::TopicChange { partitions, .. } => *partitions > 0,
                    _ => r.kind.as_str() == "partitions_added",
                })
                .count();
            assert!(
                stops.creation >= 4 * creations && (creations > 0 || stops.creation == 0),
                "{name}: {stops:?}, {creations} creations"
            );
            stopped_somewhere += usize::from(stops.failover > 0);
            started_somewhere += usize::from(stops.startup > 0);
            shut_somewhere += usize::from(stops.shutdown > 0);
            rebalanced_somewhere += usize::from(stops.rebalance > 1);
            isr_changed_somewhere += usize::from(stops.isr_change > 2);
            isr_in_run[k] += stops.isr_change_in_run;
            rebalance_in_run[k] += stops.rebalance_in_run;
            created_somewhere += usize::from(stops.creation > 0);
            in_a_run[k] += stops.in_run;
            in_a_walk[k] += stops.in_walk;
            sending[k] += stops.sending;
            startup_metadata[k] += stops.in_startup_metadata;
        }
    }
    assert!(
        stopped_somewhere >= 5,
        "the scenarios fail over ({stopped_somewhere})"
    );
    assert!(created_somewhere >= 1, "a scenario creates partitions");
    assert!(
        started_somewhere >= 1,
        "a scenario starts brokers under a controller"
    );
    assert!(shut_somewhere >= 1, "a scenario shuts a broker down");
    assert!(
        rebalanced_somewhere >= 1,
        "a scenario's auto rebalance stops between its pieces"
    );
    assert!(
        isr_changed_somewhere >= 3,
        "ISR change notifications stop between their pieces ({isr_changed_somewhere})"
    );
    assert!(
        rebalance_in_run[1] >= rebalance_in_run[0] + 5,
        "small pieces stop inside the rebalance's elections: {rebalance_in_run:?}"
    );
    assert!(
        isr_in_run[1] >= isr_in_run[0] + 10,
        "small pieces stop inside the ISR changes' reads and updates: {isr_in_run:?}"
    );
    assert!(
        in_a_run[1] >= in_a_run[0] + 10 && in_a_run[2] > in_a_run[0],
        "small pieces stop inside the runs: {in_a_run:?}"
    );
    assert!(
        in_a_walk[1] >= in_a_walk[0] + 10 && in_a_walk[2] > in_a_walk[0],
        "small pieces stop inside the walks: {in_a_walk:?}"
    );
    assert!(
        sending[1] >= sending[0] + 10 && sending[2] > sending[0],
        "small pieces stop inside a batch's sending: {sending:?}"
    );
    // A piece of one builds 32 states: the rebalance scenario's restarted
    // broker gets its 40 partitions' states in two.
    assert!(
        startup_metadata[1] > startup_metadata[0],
        "small pieces stop inside the new brokers' UpdateMetadata states: {startup_metadata:?}"
    );
}

#[test]
fn an_unfinished_step_is_finished_before_anything_else() {
    // Kafka: an event in progress keeps the event thread until it ends; an
    // action taken meanwhile (here a kill -9 at the moment of the failover)
    // comes after it.
    let s = kcsim_core::scenario::builtin::scenario("controller-failover").unwrap();
    // Step by pieces to the first unfinished step, counting the steps begun.
    let to_first_stop = || {
        let mut sim = s.build();
        let mut steps = 0;
        loop {
            steps += usize::from(!sim.mid_step());
            assert!(sim.step_piece(), "the scenario has a failover");
            if sim.mid_step() {
                return (sim, steps);
            }
        }
    };
    let (mut sim, steps) = to_first_stop();
    let at = sim.now();
    let mut whole = s.build();
    for _ in 0..steps {
        whole.step();
    }
    // `step` finishes it, as one step of the plain run does.
    assert!(sim.step());
    assert!(!sim.mid_step());
    assert_eq!(trace_text(sim.trace()), trace_text(whole.trace()));
    assert!(sim == whole);
    // An action scheduled while a step is unfinished finishes it first.
    let (mut again, _) = to_first_stop();
    let victim = again.brokers().keys().next().copied().unwrap();
    again
        .schedule_action(at, Action::KillBroker { broker: victim })
        .unwrap();
    assert!(!again.mid_step());
    assert_eq!(trace_text(again.trace()), trace_text(whole.trace()));
    // A refused one changes nothing: the step stays unfinished.
    let (mut refused, _) = to_first_stop();
    let unknown = Action::KillBroker {
        broker: BrokerId(4242),
    };
    assert!(refused.schedule_action(at, unknown).is_err());
    assert!(refused.mid_step());
}

#[test]
fn the_page_playback_stops_between_a_failovers_pieces_and_changes_nothing() {
    // Kafka: onControllerFailover is one event; the page's budget only
    // decides when it looks. A budget of one piece stops inside the event.
    let s = kcsim_core::scenario::builtin::scenario("controller-failover").unwrap();
    let end = SimTime(s.last_action_ms() + 30_000);
    let mut budgeted = Timeline::new(&s);
    let mut mid = 0;
    let mut calls = 0;
    while !budgeted.run_within(end, &mut || false) {
        calls += 1;
        mid += usize::from(budgeted.mid_step());
        assert!(calls < 1_000_000, "no progress");
    }
    assert!(mid >= 4, "stopped inside the failover ({mid} times)");
    let mut plain = Timeline::new(&s);
    plain.seek(end);
    assert_eq!(trace_text(budgeted.trace()), trace_text(plain.trace()));
    assert_eq!(snapshot(&budgeted), snapshot(&plain));
}

#[test]
fn acting_where_playback_stopped_inside_a_moment_is_acting_after_it() {
    // Kafka: onControllerFailover is one event; the page's budget only
    // decides when it looks. A student who acts while the page is stopped
    // between two pieces of the failover, or between two events of one
    // millisecond, acts on the live simulation (no replay): the step is
    // finished and the rest of that millisecond runs, then the action, as
    // a fresh run with the action at that millisecond does.
    let s = kcsim_core::scenario::builtin::scenario("controller-failover").unwrap();
    let end = SimTime(s.last_action_ms() + 5_000);
    let victim = *s.brokers.last().unwrap();
    let kill = Action::KillBroker { broker: victim };
    let mut budgeted = Timeline::new(&s);
    let (mut mid, mut inside, mut calls) = (0, 0, 0);
    while !budgeted.run_within(end, &mut || false) {
        calls += 1;
        assert!(calls < 1_000_000, "no progress");
        let now = budgeted.now();
        let is_mid = budgeted.mid_step();
        let is_inside = !is_mid && budgeted.sim().next_event_time().is_some_and(|n| n <= now);
        // A sample of each kind of stop.
        let pick = (is_mid && mid % 7 == 0) || (is_inside && inside % 50 == 0);
        mid += usize::from(is_mid);
        inside += usize::from(is_inside);
        if !pick {
            continue;
        }
        let mut acted = budgeted.clone();
        acted.intervene(now, kill.clone()).unwrap();
        acted.seek(end);
        let mut fresh = s.clone();
        fresh.actions.retain(|(at, _)| *at <= now);
        fresh.actions.push((now, kill.clone()));
        let mut straight = fresh.build();
        straight.run_until(end);
        let at = now.as_ms();
        assert_eq!(
            trace_text(straight.trace()),
            trace_text(acted.trace()),
            "at {at} ms (mid-step {is_mid})"
        );
        assert_eq!(
            FinalState::of(&straight).to_json(),
            snapshot(&acted).1,
            "at {at} ms"
        );
    }
    assert!(
        mid >= 4 && inside >= 50,
        "stops: {mid} inside a step, {inside} inside a millisecond"
    );
}
