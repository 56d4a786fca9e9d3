//! Each property catches a violation made by a deliberately wrong edit of
//! what the observer reads (ZooKeeper, a broker's state, a replica's log),
//! and stories that Kafka tells without a fault in its promises give none.

use super::*;
use crate::action::Action;
use crate::controller::context::LeaderIsr;
use crate::log::Acks;
use crate::scenario::Scenario;

/// Three brokers, topic `t` with two partitions of three replicas, settled.
fn cluster() -> Sim {
    let text = r#"{"version":1,"seed":7,"brokers":[0,1,2],
        "topics":[{"name":"t","partitions":2,"replication_factor":3}]}"#;
    let mut sim = Scenario::parse(text).unwrap().build();
    sim.run_until(SimTime(10_000));
    sim
}

fn tp0() -> TopicPartition {
    TopicPartition::new("t", 0)
}

/// Run to `until` with the observer after every step; its findings.
fn run(sim: &mut Sim, o: &mut Observer, until: SimTime) -> Vec<Finding> {
    let mut found = Vec::new();
    while sim.next_event_time().is_some_and(|t| t <= until) {
        sim.step();
        found.extend(o.after_step(sim));
    }
    sim.run_until(until);
    found.extend(o.after_step(sim));
    found
}

fn names(found: &[Finding]) -> Vec<&'static str> {
    found.iter().map(|f| f.property).collect()
}

fn state(sim: &Sim, tp: &TopicPartition) -> LeaderIsr {
    let n = sim.zk().observed(&paths::partition_state(tp)).unwrap();
    n.partition_state().unwrap()
}

/// Write a partition state znode behind everyone's back (not an operator's
/// command the observer knows of: a bug's write).
fn write_state(sim: &mut Sim, tp: &TopicPartition, l: &LeaderIsr) {
    let data = crate::znodes::encode_partition_state(l);
    sim.zk_mut()
        .set_data(None, &paths::partition_state(tp), &data, None)
        .unwrap();
}

fn leader(sim: &Sim, tp: &TopicPartition) -> BrokerId {
    sim.leader_of(tp).unwrap()
}

fn brokers(sim: &mut Sim) -> &mut BTreeMap<BrokerId, crate::broker::Broker> {
    sim.observed_state_mut_for_test().0
}

#[test]
fn a_settled_cluster_gives_no_finding_and_is_live() {
    // Kafka: a cluster that started and elected its controller and leaders.
    let mut sim = cluster();
    let mut o = Observer::new(&sim);
    assert_eq!(run(&mut sim, &mut o, SimTime(20_000)), vec![]);
    assert_eq!(o.liveness(&sim), vec![]);
}

#[test]
fn the_built_in_scenarios_give_no_finding_and_settle() {
    // Kafka: controller failover, controlled shutdown versus kill, preferred
    // and unclean elections, reassignment and a zombie controller keep
    // every promise (the unclean election loses records, which is allowed).
    for name in [
        "controller-failover",
        "controlled-shutdown-vs-kill",
        "preferred-election",
        "reassignment",
        "unclean-election",
        "zombie-controller",
    ] {
        let path = format!("{}/scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(path).unwrap();
        let s = Scenario::parse(&text).unwrap();
        let mut sim = s.build();
        let mut o = Observer::new(&sim);
        let end = SimTime(s.last_action_ms());
        let until = end.plus_ms(liveness_bound_ms(&sim));
        let found = run(&mut sim, &mut o, until);
        assert_eq!(found, vec![], "{name}");
        assert_eq!(o.liveness(&sim), vec![], "{name}");
    }
}

#[test]
fn stories_with_faults_admin_work_and_produce_give_no_finding() {
    // Kafka: kill and restart of the controller and of leaders, session
    // expiry, a pause, acks=all and acks=1 traffic, a reassignment, a topic
    // deletion and its re-creation: every safety promise holds, and the
    // cluster settles once the faults stop.
    let mut sim = cluster();
    let mut o = Observer::new(&sim);
    let c = sim.controller_id().unwrap();
    let other = BrokerId((c.0 + 1) % 3);
    let plan = vec![
        (
            11_000,
            Action::Produce {
                topic: "t".into(),
                partition: 0,
                records: 5,
                acks: Acks::All,
            },
        ),
        (
            11_500,
            Action::Produce {
                topic: "t".into(),
                partition: 1,
                records: 5,
                acks: Acks::Leader,
            },
        ),
        (12_000, Action::KillBroker { broker: c }),
        (
            13_000,
            Action::Produce {
                topic: "t".into(),
                partition: 0,
                records: 5,
                acks: Acks::All,
            },
        ),
        (20_000, Action::StartBroker { broker: c }),
        (26_000, Action::ExpireSession { broker: other }),
        (
            30_000,
            Action::PauseBroker {
                broker: other,
                duration_ms: 4_000,
            },
        ),
        (
            40_000,
            Action::ReassignPartitions {
                partitions: vec![crate::action::PartitionTarget {
                    topic: "t".into(),
                    partition: 1,
                    replicas: vec![BrokerId(2), BrokerId(0)],
                }],
            },
        ),
        (
            41_000,
            Action::Produce {
                topic: "t".into(),
                partition: 1,
                records: 3,
                acks: Acks::All,
            },
        ),
        (50_000, Action::DeleteTopic { topic: "t".into() }),
        (
            70_000,
            Action::CreateTopic {
                name: "t".into(),
                assignment: None,
                partitions: Some(2),
                replication_factor: Some(2),
            },
        ),
        (
            75_000,
            Action::Produce {
                topic: "t".into(),
                partition: 0,
                records: 2,
                acks: Acks::All,
            },
        ),
        (76_000, Action::ShutdownBroker { broker: other }),
    ];
    for (t, a) in plan {
        sim.schedule_action(SimTime(t), a).unwrap();
    }
    let until = SimTime(76_000).plus_ms(liveness_bound_ms(&sim));
    assert_eq!(run(&mut sim, &mut o, until), vec![]);
    assert_eq!(o.liveness(&sim), vec![]);
    assert!(sim.violations().is_empty());
}

#[test]
fn a_controller_epoch_that_goes_down_is_found() {
    // Kafka: /controller_epoch is only incremented, conditionally.
    let mut sim = cluster();
    let mut o = Observer::new(&sim);
    sim.zk_mut()
        .set_data(None, paths::CONTROLLER_EPOCH, "0", None)
        .unwrap();
    assert_eq!(
        names(&o.after_step(&sim)),
        vec![invariants::CONTROLLER_EPOCH_MONOTONIC]
    );
}

#[test]
fn an_operators_own_edit_of_the_controller_epoch_is_not_a_finding() {
    // Kafka accepts any `zookeeper-shell.sh set`: the observer takes the
    // operator's edit as the znode's new starting point.
    let mut sim = cluster();
    let mut o = Observer::new(&sim);
    let at = sim.now().plus_ms(1);
    sim.schedule_action(
        at,
        Action::SetZnode {
            path: paths::CONTROLLER_EPOCH.into(),
            data: "0".into(),
        },
    )
    .unwrap();
    sim.step();
    assert_eq!(o.after_step(&sim), vec![]);
}

#[test]
fn two_controllers_with_one_epoch_are_found() {
    // Kafka: KafkaController.elect — one winner per epoch.
    let mut sim = cluster();
    let mut o = Observer::new(&sim);
    let c = sim.controller_id().unwrap();
    let other = BrokerId((c.0 + 1) % 3);
    let ctx = sim.brokers()[&c].controller.ctx.clone();
    let b = brokers(&mut sim).get_mut(&other).unwrap();
    b.controller.active_controller_id = Some(other);
    b.controller.ctx = ctx;
    let found = o.after_step(&sim);
    assert!(
        names(&found).contains(&invariants::SINGLE_CONTROLLER_PER_EPOCH),
        "{found:?}"
    );
}

#[test]
fn a_broker_going_back_to_an_older_controller_epoch_is_found() {
    // Kafka: ReplicaManager rejects a request with an older controllerEpoch.
    let mut sim = cluster();
    let mut o = Observer::new(&sim);
    brokers(&mut sim)
        .get_mut(&BrokerId(1))
        .unwrap()
        .controller_epoch_seen = 0;
    assert_eq!(
        names(&o.after_step(&sim)),
        vec![invariants::NO_STALE_REQUEST_APPLIED]
    );
}

#[test]
fn a_hosted_replica_going_back_to_an_older_leader_epoch_is_found() {
    // Kafka: becomeLeaderOrFollower applies only newer leader epochs.
    let mut sim = cluster();
    let tp = tp0();
    let l = leader(&sim, &tp);
    let follower = BrokerId((l.0 + 1) % 3);
    // A new leader epoch first (the leader leaves), so there is one to go back from.
    sim.schedule_action(SimTime(10_001), Action::ShutdownBroker { broker: l })
        .unwrap();
    sim.run_until(SimTime(20_000));
    let mut o = Observer::new(&sim);
    let rep = brokers(&mut sim)
        .get_mut(&follower)
        .unwrap()
        .replicas
        .get_mut(&tp)
        .unwrap();
    rep.leader_epoch -= 1;
    assert_eq!(
        names(&o.after_step(&sim)),
        vec![invariants::NO_STALE_REQUEST_APPLIED]
    );
}

#[test]
fn a_metadata_cache_going_back_to_an_older_state_is_found() {
    // Kafka: MetadataCache holds only states of requests that passed the
    // controller epoch check: a stale UpdateMetadata would show here.
    let mut sim = cluster();
    let tp = tp0();
    let l = leader(&sim, &tp);
    let watcher = BrokerId((l.0 + 1) % 3);
    let old = sim.brokers()[&watcher].metadata.clone();
    sim.schedule_action(SimTime(10_001), Action::ShutdownBroker { broker: l })
        .unwrap();
    sim.run_until(SimTime(20_000));
    let mut o = Observer::new(&sim);
    brokers(&mut sim).get_mut(&watcher).unwrap().metadata = old;
    let found = o.after_step(&sim);
    assert!(
        names(&found).contains(&invariants::NO_STALE_REQUEST_APPLIED),
        "{found:?}"
    );
}

#[test]
fn disagreement_on_the_controller_when_quiet_is_found() {
    // Kafka: ControllerChangeHandler keeps every broker's activeControllerId.
    let mut sim = cluster();
    let mut o = Observer::new(&sim);
    assert!(sim.is_quiet());
    brokers(&mut sim)
        .get_mut(&BrokerId(1))
        .unwrap()
        .controller
        .active_controller_id = Some(BrokerId(9));
    assert_eq!(
        names(&o.after_step(&sim)),
        vec![invariants::CONTROLLER_AGREEMENT_WHEN_QUIET]
    );
}

#[test]
fn a_leader_outside_its_isr_and_an_isr_outside_the_assignment_are_found() {
    // Kafka: Election.scala picks from the ISR; the ISR holds assigned replicas.
    let mut sim = cluster();
    let mut o = Observer::new(&sim);
    let tp = tp0();
    let mut l = state(&sim, &tp);
    let leader = l.leader;
    l.isr = l
        .isr
        .iter()
        .copied()
        .filter(|r| Some(*r) != leader)
        .collect();
    l.isr = l.isr.iter().copied().chain([BrokerId(7)]).collect();
    write_state(&mut sim, &tp, &l);
    assert_eq!(
        names(&o.after_step(&sim)),
        vec![invariants::LEADER_IN_ISR, invariants::ISR_SUBSET_OF_AR]
    );
}

#[test]
fn a_leader_epoch_that_goes_down_in_zookeeper_is_found() {
    // Kafka: every election writes leaderEpoch + 1.
    let mut sim = cluster();
    let mut o = Observer::new(&sim);
    let tp = tp0();
    let mut l = state(&sim, &tp);
    l.leader_epoch -= 1;
    write_state(&mut sim, &tp, &l);
    assert_eq!(
        names(&o.after_step(&sim)),
        vec![invariants::LEADER_EPOCH_MONOTONIC]
    );
}

/// Produce acks=all records to t-0 and let them be acknowledged.
fn with_acked_records() -> (Sim, Observer) {
    let mut sim = cluster();
    let mut o = Observer::new(&sim);
    let a = Action::Produce {
        topic: "t".into(),
        partition: 0,
        records: 4,
        acks: Acks::All,
    };
    sim.schedule_action(SimTime(10_001), a).unwrap();
    assert_eq!(run(&mut sim, &mut o, SimTime(15_000)), vec![]);
    assert!(sim.produced().iter().all(|r| r.acked_at.is_some()));
    (sim, o)
}

#[test]
fn an_acknowledged_record_missing_from_the_leaders_log_is_found() {
    // Kafka: acks=all is acknowledged once every ISR member has the record,
    // so a clean leader always has it.
    let (mut sim, mut o) = with_acked_records();
    let tp = tp0();
    let l = leader(&sim, &tp);
    let log = sim
        .observed_state_mut_for_test()
        .1
        .log_mut_for_test(l, &tp)
        .unwrap();
    log.records.truncate(2);
    log.high_watermark = 2;
    let found = o.after_step(&sim);
    assert!(
        names(&found).contains(&invariants::NO_ACKED_RECORD_LOST_CLEAN),
        "{found:?}"
    );
    // Offsets 2 and 3 are gone.
    assert_eq!(
        names(&o.liveness(&sim)),
        vec![LIVE_ACKED_RECORDS_READABLE, LIVE_ACKED_RECORDS_READABLE]
    );
}

#[test]
fn a_record_lost_to_an_unclean_election_is_not_a_finding() {
    // Kafka: unclean.leader.election.enable trades acknowledged records for
    // availability: a leader from outside the ISR may lack them.
    let (mut sim, mut o) = with_acked_records();
    let tp = tp0();
    let old = state(&sim, &tp);
    let new_leader = BrokerId((old.leader.unwrap().0 + 1) % 3);
    // The ISR shrinks to the leader, then a replica outside it is elected.
    let shrunk = LeaderIsr {
        isr: vec![old.leader.unwrap()].into(),
        ..old.clone()
    };
    write_state(&mut sim, &tp, &shrunk);
    assert_eq!(o.after_step(&sim), vec![]);
    let unclean = LeaderIsr {
        leader: Some(new_leader),
        isr: vec![new_leader].into(),
        leader_epoch: old.leader_epoch + 1,
        ..old
    };
    write_state(&mut sim, &tp, &unclean);
    let (bs, data) = sim.observed_state_mut_for_test();
    for b in bs.values_mut() {
        if let Some(p) = b.replicas.get_mut(&tp) {
            p.leader = new_leader.0 as i32;
            p.leader_epoch += 1;
        }
    }
    let log = data.log_mut_for_test(new_leader, &tp).unwrap();
    log.records.truncate(1);
    log.high_watermark = 1;
    assert_eq!(o.after_step(&sim), vec![]);
    assert_eq!(
        o.liveness(&sim)
            .iter()
            .filter(|f| f.property == LIVE_ACKED_RECORDS_READABLE)
            .count(),
        0
    );
}

#[test]
fn a_high_watermark_that_goes_down_is_found() {
    // Kafka: the high watermark is the committed offset; it only grows
    // without an unclean election.
    let (mut sim, mut o) = with_acked_records();
    let tp = tp0();
    let l = leader(&sim, &tp);
    let log = sim
        .observed_state_mut_for_test()
        .1
        .log_mut_for_test(l, &tp)
        .unwrap();
    log.high_watermark -= 1;
    assert_eq!(
        names(&o.after_step(&sim)),
        vec![invariants::HIGH_WATERMARK_MONOTONIC_CLEAN]
    );
}

#[test]
fn two_leaders_at_one_leader_epoch_are_found() {
    // Kafka: one leader per leader epoch (KIP-101's fencing rests on it).
    let mut sim = cluster();
    let mut o = Observer::new(&sim);
    let tp = tp0();
    let l = leader(&sim, &tp);
    let other = BrokerId((l.0 + 1) % 3);
    brokers(&mut sim)
        .get_mut(&other)
        .unwrap()
        .replicas
        .get_mut(&tp)
        .unwrap()
        .leader = other.0 as i32;
    assert_eq!(
        names(&o.after_step(&sim)),
        vec![SINGLE_LEADER_PER_LEADER_EPOCH]
    );
}

#[test]
fn each_liveness_property_catches_a_wedged_cluster() {
    // Kafka: what each liveness property expects of a settled cluster
    // (see liveness.rs); here each is broken by hand.
    let base = cluster();
    let o = Observer::new(&base);
    let c = base.controller_id().unwrap();
    let other = BrokerId((c.0 + 1) % 3);
    let check = |sim: &Sim| names(&o.liveness(sim));

    let mut sim = base.clone();
    brokers(&mut sim)
        .get_mut(&other)
        .unwrap()
        .metadata
        .controller_id = None;
    assert_eq!(check(&sim), vec![LIVE_ONE_CONTROLLER]);

    let mut sim = base.clone();
    sim.zk_mut().delete(None, paths::CONTROLLER, None).unwrap();
    assert_eq!(check(&sim), vec![LIVE_ONE_CONTROLLER]);

    let mut sim = base.clone();
    brokers(&mut sim).get_mut(&other).unwrap().status = BrokerStatus::ShuttingDown;
    assert!(check(&sim).contains(&LIVE_NO_STUCK_BROKER));

    let mut sim = base.clone();
    sim.zk_mut()
        .delete(None, &paths::broker(other), None)
        .unwrap();
    assert_eq!(check(&sim), vec![LIVE_RUNNING_BROKERS_REGISTERED]);

    // A partition with running ISR members but no leader.
    let mut sim = base.clone();
    let mut o2 = o.clone();
    let tp = tp0();
    let l = LeaderIsr {
        leader: None,
        ..state(&sim, &tp)
    };
    write_state(&mut sim, &tp, &l);
    o2.after_step(&sim);
    assert_eq!(names(&o2.liveness(&sim)), vec![LIVE_PARTITIONS_LED]);

    // A running broker whose cache misses a partition, long after ZooKeeper settled.
    let mut sim = base.clone();
    sim.run_until(SimTime(20_000));
    let tp1 = TopicPartition::new("t", 1);
    let states: Vec<crate::controller::channel::PartitionStateInfo> = sim.brokers()[&c]
        .metadata
        .partitions
        .iter()
        .filter(|(tp, _)| *tp != tp1)
        .map(|(_, p)| p.clone())
        .collect();
    let mut fresh = crate::broker::Broker::new(other);
    let req = crate::controller::channel::ControlRequest {
        id: 1,
        from: c,
        to: other,
        controller_epoch: sim.controller_epoch(),
        broker_epoch: -1,
        body: RequestBody::UpdateMetadata {
            partitions: states.into_iter().map(std::rc::Rc::new).collect(),
            live_brokers: vec![],
        },
        status: crate::controller::channel::RequestStatus::InFlight,
        queued_at: SimTime::ZERO,
        sent_at: None,
        arrives_at: None,
        error: None,
    };
    fresh.handle_request(&req);
    brokers(&mut sim).get_mut(&other).unwrap().metadata = fresh.metadata;
    assert_eq!(check(&sim), vec![LIVE_PARTITIONS_LED]);

    let mut sim = base.clone();
    let data =
        crate::znodes::encode_reassign_partitions(&[(tp0(), vec![BrokerId(0), BrokerId(1)])]);
    sim.zk_mut()
        .create(
            None,
            paths::REASSIGN_PARTITIONS,
            &data,
            crate::zk::CreateMode::Persistent,
        )
        .unwrap();
    assert_eq!(check(&sim), vec![LIVE_REASSIGNMENTS_FINISH]);

    let mut sim = base.clone();
    sim.zk_mut()
        .create(
            None,
            "/admin/delete_topics/t",
            "",
            crate::zk::CreateMode::Persistent,
        )
        .unwrap();
    assert_eq!(check(&sim), vec![LIVE_DELETIONS_FINISH]);
}

#[test]
fn liveness_leaves_out_what_kafka_itself_leaves_stuck() {
    // Kafka: an offline partition (its only ISR member dead) stays offline
    // without unclean election (Election.offlinePartitionLeaderElection),
    // and a deletion with a replica on a dead broker waits for it
    // (TopicDeletionManager's ineligible topics).
    let text = r#"{"version":1,"seed":3,"brokers":[0,1,2],
        "topics":[{"name":"t","assignment":[[1,2]]}]}"#;
    let mut sim = Scenario::parse(text).unwrap().build();
    let mut o = Observer::new(&sim);
    sim.schedule_action(
        SimTime(10_000),
        Action::KillBroker {
            broker: BrokerId(2),
        },
    )
    .unwrap();
    sim.schedule_action(
        SimTime(30_000),
        Action::KillBroker {
            broker: BrokerId(1),
        },
    )
    .unwrap();
    sim.schedule_action(SimTime(40_000), Action::DeleteTopic { topic: "t".into() })
        .unwrap();
    let until = SimTime(40_000).plus_ms(liveness_bound_ms(&sim));
    assert_eq!(run(&mut sim, &mut o, until), vec![]);
    assert_eq!(o.liveness(&sim), vec![]);
    assert!(sim.zk().observed("/admin/delete_topics/t").is_some());
}

#[test]
fn the_bound_is_the_sum_its_doc_gives_for_kafkas_defaults() {
    // Kafka 2.4 defaults: 6 s session, 3 × (30 s + 5 s) controlled shutdown
    // retries plus the first attempt, 10 s replica lag.
    let sim = cluster();
    let c = sim.config();
    let startup = c.sim_broker_startup_ms + c.sim_broker_startup_jitter_ms;
    let rt = 2 * (c.sim_zk_latency_ms + c.sim_network_latency_ms + c.sim_network_jitter_ms);
    let per = c.sim_controller_zk_read_cost_us
        + c.sim_controller_zk_write_cost_us
        + c.sim_controller_request_partition_cost_us;
    let expected = 6_000
        + startup
        + 4 * 35_000
        + 15_000
        + 5_000
        + 2_500
        + 500
        + 10_000
        + 4 * 2 * per / 1_000
        + 20 * rt;
    assert_eq!(liveness_bound_ms(&sim), expected);
}

#[test]
fn liveness_is_not_promised_after_an_operator_forges_the_controller() {
    // Kafka: `zookeeper-shell.sh set /controller` naming a broker that is
    // not the controller leaves the cluster without one
    // (processControllerChange only resigns; the ephemeral node's owner
    // session lives on): only the checks that need no controller remain.
    let mut sim = cluster();
    let mut o = Observer::new(&sim);
    let c = sim.controller_id().unwrap();
    let other = BrokerId((c.0 + 1) % 3);
    let data = crate::znodes::controller_znode_json(other, 10_000);
    sim.schedule_action(
        SimTime(10_001),
        Action::SetZnode {
            path: paths::CONTROLLER.into(),
            data,
        },
    )
    .unwrap();
    let until = SimTime(10_001).plus_ms(liveness_bound_ms(&sim));
    assert_eq!(run(&mut sim, &mut o, until), vec![]);
    assert_eq!(o.controller_edits().len(), 1);
    assert_eq!(o.liveness(&sim), vec![]);
    brokers(&mut sim).get_mut(&other).unwrap().status = BrokerStatus::Starting;
    assert_eq!(names(&o.liveness(&sim)), vec![LIVE_NO_STUCK_BROKER]);
}

#[test]
fn a_leaderless_isr_keeps_one_member_outside_the_assignment() {
    // Kafka: KafkaController.doRemoveReplicasFromIsr never empties an ISR:
    // a reassignment that drops the sole ISR member from the assignment
    // leaves it there with no leader (found by kcsim soak, seed 18974). Two
    // such members, or one beside a leader, are still found.
    let mut sim = cluster();
    let mut o = Observer::new(&sim);
    let tp = tp0();
    let mut l = state(&sim, &tp);
    l.leader = None;
    l.isr = vec![BrokerId(7)].into();
    write_state(&mut sim, &tp, &l);
    assert_eq!(names(&o.after_step(&sim)), Vec::<&str>::new());
    l.isr = vec![BrokerId(7), BrokerId(8)].into();
    write_state(&mut sim, &tp, &l);
    assert_eq!(
        names(&o.after_step(&sim)),
        vec![invariants::ISR_SUBSET_OF_AR]
    );
}

#[test]
fn the_controller_and_its_epoch_are_read_again_after_every_write_of_their_znodes() {
    // Kafka: KafkaController.elect writes /controller (who is active) and
    // /controller_epoch (its epoch); the simulator reads both after every
    // step, reusing a value only for the znode it was read from.
    let mut sim = cluster();
    let (c, e) = (sim.controller_id().unwrap(), sim.controller_epoch());
    let other = BrokerId((c.0 + 1) % 3);
    let copy = sim.clone();
    let data = |b: BrokerId| format!(r#"{{"version":1,"brokerid":{},"timestamp":"1"}}"#, b.0);
    sim.zk_mut().delete(None, paths::CONTROLLER, None).unwrap();
    assert_eq!(sim.controller_id(), None);
    let persistent = crate::zk::CreateMode::Persistent;
    sim.zk_mut()
        .create(None, paths::CONTROLLER, &data(other), persistent)
        .unwrap();
    assert_eq!(sim.controller_id(), Some(other));
    sim.zk_mut()
        .set_data(None, paths::CONTROLLER, &data(c), None)
        .unwrap();
    assert_eq!(sim.controller_id(), Some(c));
    sim.zk_mut()
        .set_data(None, paths::CONTROLLER_EPOCH, &(e + 5).to_string(), None)
        .unwrap();
    assert_eq!(sim.controller_epoch(), e + 5);
    sim.zk_mut()
        .set_data(None, paths::CONTROLLER_EPOCH, "not a number", None)
        .unwrap();
    assert_eq!(sim.controller_epoch(), 0);
    sim.zk_mut()
        .delete(None, paths::CONTROLLER_EPOCH, None)
        .unwrap();
    assert_eq!(sim.controller_epoch(), 0);
    // The copy made before those writes still reads what it holds.
    assert_eq!(
        (copy.controller_id(), copy.controller_epoch()),
        (Some(c), e)
    );
}
