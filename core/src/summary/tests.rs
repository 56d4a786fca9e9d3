use super::*;
use crate::timeline::Timeline;

fn shape(brokers: u32, topics: u32, partitions: u32, rf: u32) -> Shape {
    Shape {
        brokers,
        topics,
        partitions,
        replication_factor: rf,
    }
}

fn timeline(s: Shape, extra: Vec<(SimTime, Action)>) -> Timeline {
    let mut scenario = s.scenario().expect("a valid shape");
    scenario.actions.extend(extra);
    Timeline::new(&scenario)
}

fn fresh(t: &Timeline) -> SummaryCache {
    let mut c = SummaryCache::default();
    c.refresh(t);
    c
}

#[test]
fn a_new_cluster_is_led_by_its_preferred_replicas_and_nothing_is_under_replicated() {
    // Kafka: onNewPartitionCreation elects the first live replica of each
    // assignment; every broker's LeaderCount is its share, and
    // UnderReplicatedPartitions, OfflinePartitionsCount and
    // PreferredReplicaImbalanceCount are all 0.
    let mut t = timeline(shape(5, 2, 20, 3), vec![]);
    t.seek(SimTime(5_000));
    let c = fresh(&t);
    let n = &c.counts;
    assert_eq!(n.totals.partitions, 40);
    assert_eq!(n.totals.replicas, 120);
    assert_eq!(n.totals.offline, 0);
    assert_eq!(n.totals.under_replicated, 0);
    assert_eq!(n.totals.under_min_isr, 0);
    assert_eq!(n.totals.not_preferred, 0);
    assert!(n.add_up());
    assert_eq!(n.brokers.iter().map(|b| b.leader).sum::<u32>(), 40);
    assert!(n.brokers.iter().all(|b| b.leader > 0 && b.offline == 0));
    assert!(c.rows.iter().all(|r| r.flags == 0));
    assert!((0..40).all(|i| c.state_of(i) == Some(PartitionState::OnlinePartition)));
    let online = Filter {
        state: Some(PartitionState::OnlinePartition),
        ..Filter::default()
    };
    assert_eq!(c.filter(&online, 5_000).len(), 40);
}

#[test]
fn a_killed_broker_s_partitions_go_offline_then_to_other_leaders_and_shrink_their_isr() {
    // Kafka: after kill -9 the broker's replicas are OfflineReplica and the
    // partitions it led have no live leader (OfflinePartitionsCount) until
    // its session expires and the controller's onBrokerFailure elects new
    // leaders; then those partitions are led by a non-preferred replica
    // (PreferredReplicaImbalanceCount) and, once the leaders drop the dead
    // follower from the ISR (replica.lag.time.max.ms), under-replicated
    // (UnderReplicatedPartitions, counted by each leader).
    let s = shape(4, 1, 12, 3);
    let mut probe = timeline(s, vec![]);
    probe.seek(SimTime(5_000));
    let controller = probe.sim().controller_id().expect("a controller");
    let victim = BrokerId((controller.0 + 1) % 4);
    let mut t = timeline(
        s,
        vec![(SimTime(6_000), Action::KillBroker { broker: victim })],
    );
    let mut c = SummaryCache::default();
    t.seek(SimTime(6_500));
    c.refresh(&t);
    let led_before = probe
        .sim()
        .brokers()
        .keys()
        .position(|b| *b == victim)
        .map(|i| fresh(&probe).counts.brokers[i].leader)
        .unwrap_or(0);
    assert!(led_before > 0);
    assert_eq!(
        c.counts.totals.offline, led_before,
        "its partitions offline"
    );
    let v = c.counts.brokers.iter().find(|b| b.id == victim).unwrap();
    assert!(!v.up && v.leader == 0 && v.follower == 0 && v.offline == 9);
    assert!(c.counts.add_up());
    t.seek(SimTime(40_000));
    c.refresh(&t);
    assert_eq!(c.counts.totals.offline, 0, "new leaders elected");
    assert_eq!(c.counts.totals.not_preferred, led_before);
    assert_eq!(
        c.counts.totals.under_replicated, 9,
        "every partition it hosted"
    );
    assert!(c.counts.add_up());
    let urp: u32 = c.counts.brokers.iter().map(|b| b.under_replicated).sum();
    assert_eq!(urp, 9);
    // The series shows the shape: offline up, then back to 0.
    assert!(c.series.iter().any(|p| p.offline == led_before));
    assert_eq!(c.series.last().map(|p| p.offline), Some(0));
    let unavailable = Filter {
        flags: UNAVAILABLE,
        ..Filter::default()
    };
    assert!(c.filter(&unavailable, 40_000).is_empty());
    let on_victim = Filter {
        broker: Some(victim),
        flags: UNDER_REPLICATED,
        ..Filter::default()
    };
    assert_eq!(c.filter(&on_victim, 40_000).len(), 9);
    let recent = Filter {
        changed_within_ms: Some(60_000),
        ..Filter::default()
    };
    assert!(c.filter(&recent, 40_000).len() >= 9);
}

#[test]
fn following_a_run_forward_agrees_with_reading_it_afresh() {
    // Kafka: the state znodes are the truth a new controller reads
    // (KafkaZkClient.getTopicPartitionStates); following their changes one
    // by one must give what reading them all gives.
    let s = shape(4, 2, 10, 3);
    let mut t = timeline(
        s,
        vec![
            (
                SimTime(6_000),
                Action::KillBroker {
                    broker: BrokerId(0),
                },
            ),
            (
                SimTime(30_000),
                Action::StartBroker {
                    broker: BrokerId(0),
                },
            ),
        ],
    );
    let mut c = SummaryCache::default();
    let mut ms = 0;
    while ms < 45_000 {
        ms += 250;
        t.seek(SimTime(ms));
        c.refresh(&t);
        assert!(c.counts.add_up(), "at {ms} ms");
    }
    let f = fresh(&t);
    assert_eq!(c.rows, f.rows);
    assert_eq!(c.counts, f.counts);
    // Event by event through a controller failover too: writes become
    // visible to observers after they are made.
    let mut t = timeline(
        s,
        vec![(
            SimTime(6_000),
            Action::KillBroker {
                broker: BrokerId(0),
            },
        )],
    );
    t.seek(SimTime(5_000));
    let mut e = SummaryCache::default();
    e.refresh(&t);
    while t.now() < SimTime(25_000) && t.step() {
        e.refresh(&t);
    }
    assert_eq!(e.rows, fresh(&t).rows);
    assert_eq!(e.counts, fresh(&t).counts);
    assert_eq!(e.counts.totals.offline, 0);
    // Step by step through every kind of change a row's counts have (a
    // leader lost and moved, ISR shrunk and grown, a broker shut down and
    // back, the preferred leaders restored): the counts followed row by row
    // are at every step those of a fresh read, and so is the series.
    let mut t = timeline(
        shape(5, 2, 40, 3),
        vec![
            (
                SimTime(6_000),
                Action::KillBroker {
                    broker: BrokerId(1),
                },
            ),
            (
                SimTime(9_000),
                Action::ShutdownBroker {
                    broker: BrokerId(3),
                },
            ),
            (
                SimTime(20_000),
                Action::StartBroker {
                    broker: BrokerId(1),
                },
            ),
            (
                SimTime(21_000),
                Action::StartBroker {
                    broker: BrokerId(3),
                },
            ),
            (
                SimTime(35_000),
                Action::PreferredElection { partitions: None },
            ),
            (
                SimTime(90_000),
                Action::PreferredElection { partitions: None },
            ),
        ],
    );
    t.seek(SimTime(3_000));
    let mut e = SummaryCache::default();
    e.refresh(&t);
    let mut steps = 0;
    let (mut offline, mut moved, mut short) = (false, false, false);
    // The series' version changes exactly when the series does (the page
    // redraws its chart only then).
    let mut drawn = (e.series.clone(), e.series_version);
    let mut redraws = 0;
    while t.now() < SimTime(45_000) && t.step() {
        e.refresh(&t);
        assert_eq!(
            e.series != drawn.0,
            e.series_version != drawn.1,
            "at {:?}",
            t.now()
        );
        redraws += usize::from(e.series_version != drawn.1);
        drawn = (e.series.clone(), e.series_version);
        let f = fresh(&t);
        assert_eq!(e.counts, f.counts, "at {:?}", t.now());
        assert_eq!(e.rows, f.rows, "at {:?}", t.now());
        offline |= e.counts.totals.offline > 0;
        moved |= e.counts.totals.not_preferred > 0;
        short |= e.counts.totals.under_replicated > 0;
        steps += 1;
    }
    assert!(
        steps > 100 && offline && moved && short,
        "{steps} {offline} {moved} {short}"
    );
    assert_eq!(e.counts.totals.not_preferred, 0);
    let f = fresh(&t);
    let last = |c: &SummaryCache| c.series.last().map(|p| (p.leaders.clone(), p.offline));
    assert_eq!(last(&e), last(&f));
    assert!(
        e.series.len() > 5,
        "the failover's shape: {} points",
        e.series.len()
    );
    assert_eq!(e.rebuilds, 1, "followed forward without a rebuild");
    assert!(
        redraws > 5 && redraws * 4 < steps,
        "{redraws} series changes in {steps} steps"
    );
    // The page's buttons act now: an action added at the present moment
    // leaves what was followed valid (no rebuild of every row), and the
    // counts follow it; one added in the past forks the run (a rebuild).
    let now = t.now();
    // (The run has a later action: the kill goes before it.)
    t.insert(
        now,
        Action::KillBroker {
            broker: BrokerId(2),
        },
    )
    .expect("a kill now");
    // The class's first action: the series starts again there, with the
    // counts of that moment.
    e.refresh(&t);
    assert_eq!(e.series.len(), 1);
    assert!(e.series[0].time_ms >= now.as_ms());
    assert_eq!(e.series[0].offline, e.counts.totals.offline);
    while t.now() < now.plus_ms(15_000) && t.step() {
        e.refresh(&t);
        assert_eq!(e.series != drawn.0, e.series_version != drawn.1);
        drawn = (e.series.clone(), e.series_version);
        let f = fresh(&t);
        assert_eq!(e.counts, f.counts, "at {:?}", t.now());
        assert_eq!(e.rows, f.rows, "at {:?}", t.now());
    }
    assert_eq!(e.rebuilds, 1, "an action now needs no rebuild");
    assert!(e.counts.brokers.iter().any(|b| !b.up && b.offline > 0));
    let at = t.now();
    t.insert(
        SimTime(at.as_ms() - 5_000),
        Action::StartBroker {
            broker: BrokerId(2),
        },
    )
    .expect("a start in the past");
    e.refresh(&t);
    assert_eq!(e.rebuilds, 2, "an action in the past forks the run");
    assert_eq!(e.counts, fresh(&t).counts);
    // Topics were created at 2 s: one rebuild before, one when they appeared.
    assert_eq!(c.rebuilds, 2);
    // Going back rebuilds and forgets the later points.
    t.seek(SimTime(10_000));
    c.refresh(&t);
    assert_eq!(c.rows, fresh(&t).rows);
    assert!(c.series.iter().all(|p| p.time_ms <= 10_000));
}

#[test]
fn shapes_are_checked_as_kafka_checks_them() {
    // Kafka: AdminUtils.assignReplicasToBrokers throws
    // InvalidReplicationFactorException for a factor above the brokers or
    // not above 0; the guideline is 200,000 partitions per cluster.
    assert!(shape(100, 20, 10_000, 3).check().is_ok());
    assert_eq!(shape(0, 1, 1, 1).check(), Err(ShapeError::Brokers(0)));
    assert_eq!(shape(101, 1, 1, 1).check(), Err(ShapeError::Brokers(101)));
    assert_eq!(shape(3, 0, 1, 1).check(), Err(ShapeError::Topics(0)));
    assert_eq!(
        shape(3, 1, 100_001, 1).check(),
        Err(ShapeError::Partitions(100_001))
    );
    assert_eq!(
        shape(3, 3, 100_000, 1).check(),
        Err(ShapeError::Total(300_000))
    );
    assert_eq!(
        shape(3, 1, 1, 0).check(),
        Err(ShapeError::ReplicationFactorZero)
    );
    let e = shape(3, 1, 1, 4).check().unwrap_err();
    assert_eq!(
        e.to_string(),
        "Replication factor: 4 larger than available brokers: 3."
    );
    assert!(shape(3, 1, 1, 4).scenario().is_err());
    let sc = shape(3, 2, 5, 2).scenario().unwrap();
    assert_eq!(sc.brokers.len(), 3);
    assert_eq!(sc.actions.len(), 2);
}

#[test]
fn rows_are_found_by_position_as_an_index_beside_them_found_them() {
    // Kafka: none (the page's bookkeeping of the state znodes, Kafka's
    // /brokers/topics/<t>/partitions/<p>/state). The rows are found by
    // bisection instead of a map beside them: compared with such a map,
    // built as before (the last row of a partition wins), on a cluster of
    // several topics (names of different lengths, partitions past 9 and 99),
    // before and after a failover, in a clone as well.
    let mut scenario = shape(5, 3, 120, 3).scenario().expect("a valid shape");
    for (name, n) in [("a", 3), ("t00x", 11), ("zz", 1)] {
        scenario.actions.push((
            SimTime(2_500),
            Action::CreateTopic {
                name: name.to_string(),
                assignment: None,
                partitions: Some(n),
                replication_factor: Some(2),
            },
        ));
    }
    scenario.actions.push((
        SimTime(8_000),
        Action::KillBroker {
            broker: BrokerId(1),
        },
    ));
    let mut t = Timeline::new(&scenario);
    let mut c = SummaryCache::default();
    for ms in [1_000, 3_000, 5_000, 8_000, 8_300, 12_000, 30_000] {
        t.seek(SimTime(ms));
        c.refresh(&t);
        let copy = c.clone();
        let model: std::collections::BTreeMap<TopicPartition, usize> = c
            .rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                (
                    TopicPartition::new(c.topics[r.topic as usize].as_str(), r.partition),
                    i,
                )
            })
            .collect();
        for (tp, &i) in &model {
            assert_eq!(c.position(tp), Some(i), "{tp} at {ms} ms");
            assert_eq!(copy.position(tp), Some(i), "{tp} in the clone");
        }
        for (topic, p) in [
            ("a", 3),
            ("b", 0),
            ("t00", 120),
            ("t00x", 11),
            ("", 0),
            ("zzz", 0),
        ] {
            let tp = TopicPartition::new(topic, p);
            assert_eq!(c.position(&tp), model.get(&tp).copied(), "{tp}");
        }
        // Every row's state as the controller has it, read in one walk.
        for s in PartitionState::ALL {
            let f = Filter {
                state: Some(s),
                ..Filter::default()
            };
            let want: Vec<u32> = (0..c.rows.len())
                .filter(|&i| c.state_of(i) == Some(s))
                .map(|i| i as u32)
                .collect();
            assert_eq!(c.filter(&f, ms), want, "{s:?} at {ms} ms");
        }
        if ms >= 3_000 {
            assert_eq!(model.len(), 3 * 120 + 3 + 11 + 1);
        }
    }
    assert_eq!(c.rows, fresh(&t).rows);
}

#[test]
fn the_series_version_changes_exactly_when_the_series_does() {
    // Kafka: none (the page's chart of the counts, redrawn only when its
    // series changes).
    let mut c = SummaryCache::default();
    c.counts.brokers = (0..2)
        .map(|b| BrokerCounts {
            id: BrokerId(b),
            up: true,
            leader: 0,
            follower: 0,
            offline: 0,
            under_replicated: 0,
            under_min_isr: 0,
            preferred: 0,
        })
        .collect();
    let push = |c: &mut SummaryCache, ms: u64, leaders: [u32; 2], offline: u32| {
        let (before, v) = (c.series.clone(), c.series_version);
        c.counts.time_ms = ms;
        for (b, l) in c.counts.brokers.iter_mut().zip(leaders) {
            b.leader = l;
        }
        c.counts.totals.offline = offline;
        let base = c.series_base;
        c.push_point();
        assert_eq!(c.series != before, c.series_version != v, "at {ms}");
        // The base stays exactly when every point but the last is still
        // there, first to last (a drawing of them may then be kept).
        let kept = before.len().saturating_sub(1);
        assert_eq!(
            c.series_base == base,
            c.series.get(..kept) == Some(&before[..kept]),
            "at {ms}"
        );
        // The peaks are the series' own (a replaced point's are gone).
        let l = c
            .series
            .iter()
            .flat_map(|p| p.leaders.iter().copied())
            .max();
        let o = c.series.iter().map(|p| p.offline).max();
        assert_eq!(
            c.series_peaks(),
            (l.unwrap_or(0), o.unwrap_or(0)),
            "at {ms}"
        );
        c.series.len()
    };
    assert_eq!(push(&mut c, 1_000, [1, 1], 0), 1);
    // Unchanged counts add nothing.
    assert_eq!(push(&mut c, 1_100, [1, 1], 0), 1);
    assert_eq!(push(&mut c, 1_200, [0, 1], 1), 2);
    // Counts at the same moment replace its point; back to the point
    // before, the replaced one goes and nothing is added.
    assert_eq!(push(&mut c, 1_200, [0, 5], 7), 2);
    assert_eq!(c.series_peaks(), (5, 7));
    assert_eq!(push(&mut c, 1_200, [0, 2], 0), 2);
    assert_eq!(
        c.series_peaks(),
        (2, 0),
        "the replaced point's peaks are gone"
    );
    assert_eq!(push(&mut c, 1_200, [1, 1], 0), 1);
    assert_eq!(push(&mut c, 1_200, [1, 1], 0), 1);
    // Past the cap every other point goes.
    for k in 0..SERIES_CAP as u64 {
        push(&mut c, 2_000 + k, [(k % 2) as u32, 1], 0);
    }
    assert!(c.series.len() <= SERIES_CAP);
}

#[test]
fn the_series_starts_at_the_first_action_goes_on_through_the_next_and_again_at_a_fork() {
    // Kafka: none (the page's chart of the run from the class's first action:
    // a start-up's offline partitions, all of them, would dwarf a failover's;
    // a failover's shape stays on it when the class then shuts a broker
    // down; acting in the past forks the run, and the chart starts again at
    // the fork). An action that changes no partition at once (a preferred
    // election is a znode written for the controller to read later) still
    // leaves the chart a first point, and is marked as any other.
    let mut t = timeline(shape(4, 1, 8, 3), Vec::new());
    let mut c = SummaryCache::default();
    while t.now() < SimTime(20_000) && t.step() {
        c.refresh(&t);
    }
    assert!(c.series.len() > 1, "the start-up's points");
    // The scenario's own actions (its topics' creation) so far.
    let marked: Vec<u64> = c.series_actions().collect();
    assert_eq!(
        marked,
        t.actions()
            .iter()
            .map(|(at, _)| at.as_ms())
            .filter(|at| *at <= t.now().as_ms())
            .collect::<Vec<_>>()
    );
    let rebuilds = c.rebuilds;
    let now = t.now();
    t.insert(now, Action::PreferredElection { partitions: None })
        .expect("an election now");
    c.refresh(&t);
    assert_eq!(c.rebuilds, rebuilds, "an action now needs no rebuild");
    assert_eq!(c.series.len(), 1);
    assert_eq!(c.series[0].time_ms, now.as_ms());
    assert_eq!(c.series[0].offline, 0);
    assert_eq!(c.series[0].leaders.iter().sum::<u32>(), 8);
    assert_eq!(c.series_actions().collect::<Vec<_>>(), [now.as_ms()]);
    // The next actions: the series goes on.
    while t.now() < SimTime(25_000) && t.step() {
        c.refresh(&t);
    }
    let now = t.now();
    let before = c.series.clone();
    let base = c.series_base;
    t.insert(
        now,
        Action::KillBroker {
            broker: BrokerId(1),
        },
    )
    .expect("a kill now");
    c.refresh(&t);
    assert_eq!(c.rebuilds, rebuilds);
    t.seek(SimTime(40_000));
    c.refresh(&t);
    assert_eq!(c.rebuilds, rebuilds);
    assert_eq!(c.series_base, base, "only added to at its end");
    assert!(
        c.series.len() > before.len(),
        "the failure's points were added"
    );
    assert_eq!(
        &c.series[..before.len() - 1],
        &before[..before.len() - 1],
        "the run before the action is kept"
    );
    assert!(c.series.iter().any(|p| p.offline > 0));
    assert_eq!(c.series_actions().count(), 2);
    // An action in the past forks the run: the series starts again, with
    // the counts of that moment, and only the actions since are marked.
    t.intervene(
        SimTime(30_000),
        Action::StartBroker {
            broker: BrokerId(1),
        },
    )
    .expect("a start in the past");
    c.refresh(&t);
    assert_eq!(c.rebuilds, rebuilds + 1);
    assert_ne!(c.series_base, base);
    assert_eq!(c.series.len(), 1);
    assert_eq!(c.series[0].time_ms, 30_000);
    assert_eq!(c.series[0].offline, c.counts.totals.offline);
    assert_eq!(c.series_actions().collect::<Vec<_>>(), [30_000]);
    // The next action at the present goes on from the fork.
    let base = c.series_base;
    let now = t.now();
    t.insert(now, Action::PreferredElection { partitions: None })
        .expect("an election now");
    c.refresh(&t);
    assert_eq!(c.series_base, base);
    assert_eq!(c.series[0].time_ms, 30_000);
}

#[test]
fn each_mark_of_the_chart_says_which_action_it_was() {
    // Kafka: none of its own (the operator's acts the chart marks: kill -9,
    // kafka-server-stop.sh's controlled shutdown, a start,
    // kafka-preferred-replica-election.sh are different causes of the same
    // leader moves, and the chart must tell them apart). Marked with what
    // each was, in order, from the series' first point to now; a step the
    // scenario has later is not marked before its time.
    let later = Action::StartBroker {
        broker: BrokerId(1),
    };
    let mut t = timeline(shape(4, 1, 8, 3), vec![(SimTime(50_000), later.clone())]);
    let mut c = SummaryCache::default();
    while t.now() < SimTime(20_000) && t.step() {
        c.refresh(&t);
    }
    let act = |t: &mut Timeline, c: &mut SummaryCache, a: Action| {
        let now = t.now();
        t.insert(now, a).expect("an action now");
        c.refresh(t);
        now.as_ms()
    };
    let stop = act(
        &mut t,
        &mut c,
        Action::ShutdownBroker {
            broker: BrokerId(2),
        },
    );
    while t.now() < SimTime(30_000) && t.step() {
        c.refresh(&t);
    }
    let start = act(
        &mut t,
        &mut c,
        Action::StartBroker {
            broker: BrokerId(2),
        },
    );
    let elect = act(
        &mut t,
        &mut c,
        Action::PreferredElection { partitions: None },
    );
    while t.now() < SimTime(40_000) && t.step() {
        c.refresh(&t);
    }
    let kill = act(
        &mut t,
        &mut c,
        Action::KillBroker {
            broker: BrokerId(1),
        },
    );
    let marks: Vec<(u64, Action)> = c.series_marks().map(|(at, a)| (at, a.clone())).collect();
    assert_eq!(
        marks,
        [
            (
                stop,
                Action::ShutdownBroker {
                    broker: BrokerId(2)
                }
            ),
            (
                start,
                Action::StartBroker {
                    broker: BrokerId(2)
                }
            ),
            (elect, Action::PreferredElection { partitions: None }),
            (
                kill,
                Action::KillBroker {
                    broker: BrokerId(1)
                }
            ),
        ]
    );
    assert_eq!(
        c.series_actions().collect::<Vec<_>>(),
        [stop, start, elect, kill]
    );
    while t.now() < SimTime(50_001) && t.step() {
        c.refresh(&t);
    }
    assert_eq!(
        c.series_marks().last().map(|(at, a)| (at, a.clone())),
        Some((50_000, later))
    );
}

#[test]
fn the_balanced_level_is_each_running_broker_s_preferred_share_and_a_preferred_election_restores_it(
) {
    // Kafka: the preferred replica is the first of a partition's assigned
    // replicas; kafka-preferred-replica-election.sh
    // (PreferredReplicaPartitionLeaderElectionStrategy) gives each partition
    // back to it when it is alive and in the ISR, so after one every running
    // broker leads the partitions it is first in the assignment of. A dead
    // broker's share stays with the other replicas, and is not counted.
    let b = BrokerId;
    let custom = Action::CreateTopic {
        name: "x".to_string(),
        assignment: Some(vec![vec![b(0), b(1)], vec![b(0), b(2)], vec![b(0), b(1)]]),
        partitions: None,
        replication_factor: None,
    };
    // t00: 6 partitions over 3 brokers, 2 first in each by the round robin;
    // x: broker 0 first in all 3.
    let mut t = timeline(shape(3, 1, 6, 2), vec![(SimTime(2_000), custom)]);
    t.seek(SimTime(10_000));
    let mut c = fresh(&t);
    let preferred: Vec<u32> = c.counts.brokers.iter().map(|b| b.preferred).collect();
    assert_eq!(preferred, [5, 2, 2]);
    assert_eq!(c.counts.balanced_leaders(), Some((2, 5)));
    let leaders = |c: &SummaryCache| {
        c.counts
            .brokers
            .iter()
            .map(|b| b.leader)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        leaders(&c),
        preferred,
        "created on their preferred replicas"
    );
    // Broker 1 killed: its partitions move to their other replica; the
    // balanced level is the running brokers' shares.
    let now = t.now();
    t.insert(now, Action::KillBroker { broker: b(1) })
        .expect("a kill now");
    while t.now() < SimTime(30_000) && t.step() {
        c.refresh(&t);
    }
    assert_eq!(c.counts.balanced_leaders(), Some((2, 5)));
    assert_eq!(
        c.counts.brokers[1].preferred, 2,
        "still its share, while down"
    );
    let now_led = leaders(&c);
    assert_eq!(now_led[1], 0);
    assert_eq!(now_led.iter().sum::<u32>(), 9, "all led by the others");
    assert!(
        now_led[0] > 5 || now_led[2] > 2,
        "above their share: {now_led:?}"
    );
    // Back, caught up, and a preferred election: each leads its share.
    let now = t.now();
    t.insert(now, Action::StartBroker { broker: b(1) })
        .expect("a start now");
    while t.now() < SimTime(60_000) && t.step() {
        c.refresh(&t);
    }
    assert_ne!(leaders(&c), preferred, "not given back without an election");
    let now = t.now();
    t.insert(now, Action::PreferredElection { partitions: None })
        .expect("an election now");
    while t.now() < SimTime(70_000) && t.step() {
        c.refresh(&t);
    }
    assert_eq!(leaders(&c), preferred);
    assert_eq!(c.counts, fresh(&t).counts, "followed as read afresh");
    // With broker 0 down, the level is the others' (and none with none up).
    let now = t.now();
    t.insert(now, Action::KillBroker { broker: b(0) })
        .expect("a kill now");
    c.refresh(&t);
    assert_eq!(c.counts.balanced_leaders(), Some((2, 2)));
    assert_eq!(Counts::default().balanced_leaders(), None);
}

#[test]
fn with_the_controller_dead_no_row_has_a_controller_state_until_a_new_one_reads_them() {
    // Kafka: the partition states live in the active controller's
    // PartitionStateMachine (ControllerContext), in its process: after kill
    // -9 of the controller nobody holds them until its session expires and
    // the new controller's onControllerFailover initialises them from
    // ZooKeeper. The table says so, as the small cluster's view does
    // (`PartitionView::state_known_by`), rather than NonExistentPartition.
    let mut t = timeline(shape(4, 1, 12, 3), vec![]);
    t.seek(SimTime(5_000));
    let controller = t.sim().controller_id().expect("a controller");
    t.insert(SimTime(5_000), Action::KillBroker { broker: controller })
        .expect("a running broker");
    t.seek(SimTime(6_000));
    let c = fresh(&t);
    let view = ClusterView::of(t.sim());
    assert!(view.partitions.iter().all(|p| p.state_known_by.is_none()));
    assert!((0..12).all(|i| c.state_of(i).is_none()));
    for s in PartitionState::ALL {
        let f = Filter {
            state: Some(s),
            ..Filter::default()
        };
        assert!(c.filter(&f, 6_000).is_empty(), "{s:?}");
    }
    // The new controller has read them.
    t.seek(SimTime(20_000));
    assert_ne!(t.sim().controller_id(), Some(controller));
    let c = fresh(&t);
    assert!((0..12).all(|i| c.state_of(i) == Some(PartitionState::OnlinePartition)));
}

#[test]
fn the_state_column_is_of_the_refresh_s_moment_not_of_the_controller_s_work_since() {
    // Kafka: a controller event runs to completion on the controller's
    // thread (ControllerEventManager); the page draws between the pieces of
    // a long one (onControllerFailover at 200,000 partitions), keeping the
    // rows of the last whole step, and the states beside them must be of
    // that moment too, not the new controller's half-initialised ones.
    let mut t = timeline(shape(4, 1, 12, 3), vec![]);
    t.seek(SimTime(5_000));
    let mut c = fresh(&t);
    let controller = t.sim().controller_id().expect("a controller");
    t.insert(SimTime(5_000), Action::KillBroker { broker: controller })
        .expect("a running broker");
    t.seek(SimTime(6_000));
    // Not refreshed since: still the states drawn at 5 s.
    assert!((0..12).all(|i| c.state_of(i) == Some(PartitionState::OnlinePartition)));
    c.refresh(&t);
    assert!((0..12).all(|i| c.state_of(i).is_none()));
}
