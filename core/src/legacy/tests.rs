//! Stories of the historical design against the controller design.

use super::*;
use crate::time::SimTime;

/// Four brokers, six partitions of replication factor 3, placed by hand.
fn cluster(actions: &str) -> Scenario {
    let text = format!(
        r#"{{ "version": 1, "seed": 3, "brokers": [0, 1, 2, 3],
          "topics": [ {{ "name": "t", "assignment": [[0,1,2],[1,2,3],[2,3,0],[3,0,1],[0,2,3],[1,3,0]] }} ],
          "actions": [ {actions} ] }}"#
    );
    match Scenario::parse(&text) {
        Ok(s) => s,
        Err(e) => panic!("the test scenario parses: {e}"),
    }
}

fn hosted_by(s: &Scenario, b: BrokerId) -> (u64, u64) {
    let l = Legacy::new(s);
    let p = l.assignment.values().filter(|r| r.contains(&b)).count() as u64;
    let r = l.assignment.values().next().map_or(0, |r| r.len() as u64);
    (p, r)
}

#[test]
fn killing_a_broker_wakes_every_replica_of_its_partitions_and_every_broker() {
    // Kafka (pre-0.8 design, "Kafka replication detailed design V2",
    // differences from V1): every broker watches /brokers/ids and the leader
    // and ISR znodes of the partitions it hosts, so a broker's death wakes
    // them all (the herd effect).
    // Kafka: KafkaController.onBrokerFailure — in the controller design only
    // the controller's BrokerChange watch on /brokers/ids fires.
    for victim in 0..4u32 {
        let s = cluster(&format!(
            r#"{{ "at_ms": 10000, "action": "kill_broker", "broker": {victim} }}"#
        ));
        // Who the victim leads in the historical design before it dies.
        let mut before = Legacy::new(&s);
        before.run_until(9_999);
        let led = before
            .leaders()
            .values()
            .filter(|b| **b == BrokerId(victim))
            .count() as u64;
        let controller = {
            let mut sim = s.build();
            sim.run_until(SimTime(9_999));
            sim.controller_id()
        };
        let (p, r) = hosted_by(&s, BrokerId(victim));
        let c = match compare(&s) {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        };
        let kill = &c.segments[1];
        assert_eq!(kill.from_ms, 10_000);
        // The formula derived in docs/before-the-controller.md.
        let n = 4;
        assert_eq!(
            kill.legacy.watch_notifications,
            (n - 1) + p * (r - 1) + led * (r - 1),
            "victim {victim}: P={p} R={r} led={led}"
        );
        assert_eq!(kill.legacy.zk_writes, p + led * (r - 1), "victim {victim}");
        assert_eq!(kill.legacy.failed_races, led * (r - 2), "victim {victim}");
        if controller == Some(BrokerId(victim)) {
            // The controller died: every other broker's /controller watch
            // fires too, and the new controller's failover follows.
            assert!(kill.controller.watch_notifications >= n - 1);
        } else {
            assert_eq!(kill.controller.watch_notifications, 1, "victim {victim}");
        }
        assert!(kill.legacy.watch_notifications > kill.controller.watch_notifications);
        assert_eq!(
            kill.legacy.conflicting_decisions, 0,
            "a dead process believes nothing"
        );
    }
}

#[test]
fn an_expired_session_that_has_not_noticed_leads_beside_the_new_leader() {
    // Kafka (pre-0.8 design, "Kafka replication detailed design V2": V1 has
    // split brain): ZooKeeper deletes the expired broker's ephemeral leader
    // znodes at once, other replicas race and one creates a new one, while
    // the expired broker learns of its expiry only on its next ping: for that
    // time two brokers each believe they lead the partition.
    let s = cluster(r#"{ "at_ms": 10000, "action": "expire_session", "broker": 1 }"#);
    let mut before = Legacy::new(&s);
    before.run_until(9_999);
    let led: Vec<TopicPartition> = before
        .leaders()
        .into_iter()
        .filter(|(_, b)| *b == BrokerId(1))
        .map(|(tp, _)| tp)
        .collect();
    assert!(
        !led.is_empty(),
        "broker 1 leads something before its session expires"
    );
    let mut l = Legacy::new(&s);
    l.run_until(10_100);
    let beliefs = l.beliefs();
    for tp in &led {
        let who = &beliefs[tp];
        assert!(
            who.contains(&BrokerId(1)),
            "{tp}: the old leader still believes"
        );
        assert_eq!(who.len(), 2, "{tp}: and a new leader has won the race");
    }
    // A third of the session timeout later it notices, re-registers and
    // follows: the conflict is over.
    l.run_until(12_100);
    assert!(l.beliefs().values().all(|who| who.len() == 1));
    let conflicts = l.conflicts();
    assert_eq!(conflicts.len(), led.len());
    for c in conflicts {
        assert!(c.brokers.contains(&BrokerId(1)));
        assert_eq!(
            c.to_ms,
            Some(12_000),
            "noticed at the next ping, 6000/3 ms later"
        );
    }
    let c = match compare(&s) {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(c.segments[1].legacy.conflicting_decisions, led.len() as u64);
    assert_eq!(
        c.legacy.split_brain_ms,
        2_000 * led.len() as u64
            - c.legacy_conflicts
                .iter()
                .map(|x| x.from_ms - 10_000)
                .sum::<u64>()
    );
}

#[test]
fn a_killed_broker_restarted_too_soon_fails_and_a_clean_stop_wakes_the_herd_at_once() {
    // Kafka (pre-0.8 design): /brokers/ids/<id> is ephemeral, so a broker
    // restarted while its old session lingers cannot register; with no
    // controller there is no controlled shutdown: kill -15 closes the session
    // and its leader znodes go at once.
    let s = cluster(
        r#"{ "at_ms": 10000, "action": "kill_broker", "broker": 0 },
           { "at_ms": 11000, "action": "start_broker", "broker": 0 },
           { "at_ms": 30000, "action": "shutdown_broker", "broker": 3 }"#,
    );
    let mut l = Legacy::new(&s);
    l.run_until(13_000);
    assert_eq!(
        l.process(BrokerId(0)),
        Some(Process::Down),
        "NodeExists at registration"
    );
    l.run_until(30_000);
    let before = l.counters().notifications;
    l.run_until(30_050);
    assert!(
        l.counters().notifications > before,
        "the herd wakes within ms of a clean stop"
    );
    assert!(l.leaders().values().all(|b| *b != BrokerId(3)));
}

#[test]
fn actions_the_historical_design_has_no_counterpart_for_are_listed() {
    // Kafka (pre-0.8 design): no preferred election, no reassignment tool.
    let s = cluster(
        r#"{ "at_ms": 10000, "action": "preferred_election" },
           { "at_ms": 11000, "action": "produce", "topic": "t", "partition": 0, "records": 1 }"#,
    );
    let c = match compare(&s) {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(c.not_modelled.len(), 2);
    assert_eq!(
        c.segments.len(),
        1,
        "no stretch starts at an action not modelled"
    );
}

#[test]
fn the_same_scenario_gives_the_same_comparison() {
    // Determinism: the seed, the configuration and the actions decide everything.
    let mut s = crate::scenario::builtin::default_cluster();
    s.actions.retain(|(t, _)| t.as_ms() < 8_000);
    s.actions.push((
        SimTime(9_000),
        Action::KillBroker {
            broker: BrokerId(2),
        },
    ));
    s.actions.push((
        SimTime(20_000),
        Action::StartBroker {
            broker: BrokerId(2),
        },
    ));
    let a = compare(&s);
    let b = compare(&s);
    assert_eq!(a, b);
    let a = match a {
        Ok(a) => a,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(a.segments.len(), 4, "start-up, topics created, kill, start");
    assert!(a.legacy.watch_notifications > a.controller.watch_notifications);
}

#[test]
fn a_cluster_too_large_is_refused_with_its_size() {
    // Bad input gets a clear error and no run.
    let s = match Scenario::parse(
        r#"{ "version": 1, "brokers": [0, 1, 2],
             "topics": [ { "name": "big", "partitions": 700, "replication_factor": 3 } ] }"#,
    ) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(
        compare(&s),
        Err(CompareError::TooLarge {
            replicas: 2_100,
            max: MAX_REPLICAS
        })
    );
}

#[test]
fn a_stalled_leader_whose_session_expired_still_believes_until_it_resumes() {
    // Kafka (pre-0.8 design, "Kafka replication detailed design V2": V1 has
    // split brain): a GC stall longer than zookeeper.session.timeout.ms lets
    // ZooKeeper expire the session and another replica take the leader
    // znode; the stalled broker still believes it leads until, resumed, its
    // client is told the session is gone.
    let s = cluster(
        r#"{ "at_ms": 10000, "action": "pause_broker", "broker": 1, "duration_ms": 8000 }"#,
    );
    let mut before = Legacy::new(&s);
    before.run_until(9_999);
    let led = before
        .leaders()
        .values()
        .filter(|b| **b == BrokerId(1))
        .count();
    assert!(led > 0);
    let c = match compare(&s) {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(c.legacy_conflicts.len(), led);
    for x in &c.legacy_conflicts {
        // Expired at 16 s, new leader within ms; resumed at 18 s, told one
        // ZooKeeper round trip (2 × 2 ms) later.
        assert!((16_000..16_100).contains(&x.from_ms), "{x:?}");
        assert_eq!(x.to_ms, Some(18_004), "{x:?}");
    }
}

#[test]
fn topics_created_by_actions_are_placed_where_the_controller_design_placed_them() {
    // Kafka (pre-0.8 design): the admin tool writes the assignment; brokers
    // hear of the new topic through their /brokers/topics watch and race for
    // the leaders of the partitions they host.
    let s = match Scenario::parse(
        r#"{ "version": 1, "seed": 9, "brokers": [0, 1, 2],
             "actions": [ { "at_ms": 2000, "action": "create_topic", "name": "x", "partitions": 5, "replication_factor": 2 } ] }"#,
    ) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    let mut sim = s.build();
    sim.run_until(SimTime(2_000));
    let want = crate::admin::topic_assignment(sim.zk(), "x");
    let mut l = Legacy::new(&s);
    l.run_until(5_000);
    let got: Vec<(u32, Vec<BrokerId>)> = l
        .assignment
        .iter()
        .map(|(tp, r)| (tp.partition, r.clone()))
        .collect();
    assert_eq!(Some(got), want);
    assert_eq!(l.leaders().len(), 5, "every partition has a leader");
    for (tp, leader) in l.leaders() {
        assert!(l.assignment[&tp].contains(&leader));
    }
}
