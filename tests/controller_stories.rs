//! Scenario stories of controller election, failover, resignation and fencing.
//! Each names the Kafka behaviour it mirrors.

use kcsim::Story;
use kcsim_core::broker::BrokerStatus;
use kcsim_core::config::Config;
use kcsim_core::controller::controller_znode_json;
use kcsim_core::controller::event::ControllerEvent;
use kcsim_core::{Action, BrokerId, SimTime};

#[test]
fn first_election_one_winner_epoch_one_everyone_agrees() {
    // Kafka: KafkaController.elect + KafkaZkClient.registerControllerAndIncrementControllerEpoch
    // (2.1+: /controller_epoch created with 0 and raised to 1 in the same multi).
    let mut s = Story::brokers(42, 3);
    s.until(5_000);
    let c = s.controller();
    assert_eq!(s.epoch(), 1);
    let node = s.sim.zk().node("/controller").expect("/controller");
    assert!(
        node.stat.ephemeral_owner().is_some(),
        "/controller is ephemeral"
    );
    let json: serde_json::Value = serde_json::from_str(&node.data.text()).unwrap();
    assert_eq!(json["version"], 1);
    assert_eq!(json["brokerid"], c.0);
    assert!(
        json["timestamp"].is_string(),
        "the timestamp is a string: {json}"
    );
    assert_eq!(s.sim.zk().node("/controller_epoch").unwrap().data, "1");
    assert_eq!(
        s.sim.zk().node("/controller_epoch").unwrap().stat.version,
        1,
        "zkVersion 1 with epoch 1"
    );
    assert_eq!(s.broker(c).controller.ctx.epoch, 1);
    assert_eq!(s.broker(c).controller.ctx.epoch_zk_version, 1);
    s.assert_everyone_agrees();
    assert_eq!(s.records("elected").len(), 1, "exactly one broker won");
    s.assert_no_violations();
}

#[test]
fn brokers_starting_together_race_and_the_first_to_try_wins() {
    // Kafka: KafkaController.elect — the create-and-increment multi is atomic, so
    // exactly one contender's succeeds; the others read the winner and stop.
    let mut winners = std::collections::BTreeSet::new();
    for seed in 0..24 {
        let mut s = Story::brokers(seed, 3);
        s.until(5_000);
        let c = s.controller();
        winners.insert(c);
        let first_registered = s.records("registered")[0].actor.clone();
        assert_eq!(
            first_registered,
            format!("broker-{c}"),
            "seed {seed}: the first to register wins"
        );
        assert_eq!(s.records("elected").len(), 1, "seed {seed}");
        assert_eq!(s.epoch(), 1, "seed {seed}: no extra epochs from the race");
        s.assert_everyone_agrees();
        s.assert_no_violations();
    }
    assert!(
        winners.len() > 1,
        "the seed decides the race: winners {winners:?}"
    );
}

#[test]
fn controller_killed_new_one_after_the_session_timeout_epoch_two() {
    // Kafka: the dead controller's /controller lingers until its ZooKeeper session
    // expires (zookeeper.session.timeout.ms); the deletion fires Reelect everywhere.
    let mut s = Story::brokers(7, 3);
    s.until(10_000);
    let old = s.controller();
    s.at(10_000, Action::KillBroker { broker: old })
        .until(14_000);
    assert_eq!(
        s.controller(),
        old,
        "/controller still names the dead broker before the timeout"
    );
    s.until(30_000);
    let new = s.controller();
    assert_ne!(new, old);
    assert_eq!(s.epoch(), 2);
    let elected = s
        .first_after("elected", 10_000)
        .expect("a new election")
        .time_ms;
    assert!(
        (14_000..=16_100).contains(&elected),
        "elected at {elected}: after the 6 s session timeout"
    );
    assert!(s.sim.zk().node(&format!("/brokers/ids/{old}")).is_none());
    s.assert_everyone_agrees();
    for b in s.running() {
        assert_eq!(
            s.broker(b).controller_epoch_seen,
            2,
            "broker {b} heard from the new controller"
        );
    }
    s.assert_no_violations();
}

#[test]
fn controller_session_expired_it_resigns_reregisters_and_someone_wins_epoch_two() {
    // Kafka: ZooKeeperClient re-initialises; clearAndPut(Expire) then RegisterBrokerAndReelect,
    // which re-registers /brokers/ids/<id> with a new czxid (KIP-380 broker epoch).
    let mut s = Story::brokers(3, 3);
    s.until(5_000);
    let old = s.controller();
    let old_epoch = s.broker(old).broker_epoch;
    s.at(5_000, Action::ExpireSession { broker: old })
        .until(20_000);
    assert_eq!(s.epoch(), 2);
    assert!(
        s.broker(old).broker_epoch > old_epoch,
        "re-registered with a new czxid"
    );
    assert!(s
        .records("session_reinitialized")
        .iter()
        .any(|r| r.actor == format!("broker-{old}")));
    assert_eq!(s.broker(old).status, BrokerStatus::Running);
    s.assert_everyone_agrees();
    s.assert_no_violations();
}

#[test]
fn deleting_controller_by_hand_triggers_reelection() {
    // Kafka: ControllerChangeHandler.handleDeletion → Reelect on every broker.
    let mut s = Story::brokers(11, 3);
    s.until(5_000);
    s.at(
        5_000,
        Action::DeleteZnode {
            path: "/controller".into(),
        },
    )
    .until(6_000);
    assert_eq!(s.epoch(), 2, "a new round of election bumps the epoch");
    let resigned = s.records("resign");
    assert!(resigned.len() <= 1);
    s.assert_everyone_agrees();
    s.assert_no_violations();
}

#[test]
fn writing_another_brokerid_makes_the_old_controller_resign() {
    // Kafka: ControllerChangeHandler.handleDataChange → ControllerChange → maybeResign.
    // The broker now named believes it is active without running failover (no
    // new epoch), as in Kafka 2.x.
    let mut s = Story::brokers(5, 3);
    s.until(5_000);
    let old = s.controller();
    let other = BrokerId((old.0 + 1) % 3);
    let data = controller_znode_json(other, 5_000);
    s.at(
        5_000,
        Action::SetZnode {
            path: "/controller".into(),
            data,
        },
    )
    .until(6_000);
    assert_eq!(s.controller(), other);
    assert_eq!(s.epoch(), 1, "no election happened");
    let old_ctl = &s.broker(old).controller;
    assert!(!old_ctl.is_active(old));
    assert_eq!(
        old_ctl.ctx.epoch, 0,
        "the old controller's context was cleared"
    );
    assert!(
        !s.broker(old)
            .zk_client
            .child_handlers
            .contains("/brokers/ids"),
        "its handlers are gone"
    );
    assert!(s
        .records("resign")
        .iter()
        .any(|r| r.actor == format!("controller-{old}")));
    s.assert_everyone_agrees();
}

#[test]
fn clean_shutdown_of_the_controller_moves_it_at_once() {
    // Kafka: KafkaServer.shutdown closes the ZooKeeper session, so /controller
    // and /brokers/ids/<id> go at once, not after the session timeout.
    let mut s = Story::brokers(9, 3);
    s.until(5_000);
    let old = s.controller();
    s.at(5_000, Action::ShutdownBroker { broker: old })
        .until(5_200);
    assert_ne!(s.controller(), old);
    assert_eq!(s.epoch(), 2);
    let elected = s.first_after("elected", 5_000).unwrap().time_ms;
    assert!(
        elected < 5_100,
        "re-elected within milliseconds, at {elected}"
    );
    assert_eq!(s.broker(old).status, BrokerStatus::Dead);
    assert!(
        s.records("resign").iter().any(
            |r| r.actor == format!("controller-{old}") && r.details().contains("shutting down")
        ),
        "the shutdown resignation is traced"
    );
    s.until(20_000);
    s.assert_everyone_agrees();
    s.assert_no_violations();
}

#[test]
fn a_dead_broker_holds_no_metadata_cache_and_a_restart_fills_a_new_one() {
    // Kafka: MetadataCache lives in the broker's process (KafkaServer.startup
    // creates it empty; UpdateMetadata fills it), so kill -9 and a controlled
    // shutdown's exit lose it; the restarted process learns everything again.
    let mut s = Story::brokers(7, 3);
    s.create_topic(6_000, "t", &[&[0, 1, 2], &[1, 2, 0], &[2, 0, 1]])
        .until(10_000);
    let c = s.controller();
    let victim = s.running().into_iter().find(|b| *b != c).unwrap();
    let stopped = s
        .running()
        .into_iter()
        .find(|b| *b != c && *b != victim)
        .unwrap();
    let full = s.broker(victim).metadata.partitions.len();
    assert!(full > 0, "a running broker caches every partition");
    assert_eq!(s.broker(victim).metadata.controller_id, Some(c));
    s.at(10_000, Action::KillBroker { broker: victim })
        .at(10_000, Action::ShutdownBroker { broker: stopped })
        .until(12_000);
    for b in [victim, stopped] {
        assert_eq!(s.broker(b).status, BrokerStatus::Dead, "broker {b}");
        assert!(s.broker(b).metadata.partitions.is_empty(), "broker {b}");
        assert_eq!(s.broker(b).metadata.controller_id, None, "broker {b}");
    }
    s.until(30_000)
        .at(30_000, Action::StartBroker { broker: victim })
        .at(30_000, Action::StartBroker { broker: stopped })
        .until(45_000);
    for b in [victim, stopped] {
        assert_eq!(s.broker(b).status, BrokerStatus::Running, "broker {b}");
        assert_eq!(s.broker(b).metadata.partitions.len(), full, "broker {b}");
        assert_eq!(s.broker(b).metadata.controller_id, Some(c), "broker {b}");
    }
    s.assert_everyone_agrees();
    s.assert_no_violations();
}

#[test]
fn restarting_a_killed_broker_before_its_session_expires_fails() {
    // Kafka 2.x: KafkaZkClient.checkedEphemeralCreate throws NodeExistsException when
    // /brokers/ids/<id> belongs to another session; the broker fails to start.
    let mut s = Story::brokers(1, 3);
    s.until(5_000);
    let c = s.controller();
    let victim = BrokerId((c.0 + 1) % 3);
    s.at(5_000, Action::KillBroker { broker: victim })
        .at(5_100, Action::StartBroker { broker: victim })
        .until(8_000);
    assert_eq!(s.broker(victim).status, BrokerStatus::Dead);
    assert_eq!(s.records("startup_failed").len(), 1);
    s.at(20_000, Action::StartBroker { broker: victim })
        .until(25_000);
    assert_eq!(
        s.broker(victim).status,
        BrokerStatus::Running,
        "fine once the old session expired"
    );
    s.assert_everyone_agrees();
}

#[test]
fn zombie_controller_wakes_and_its_stale_requests_are_rejected() {
    // Kafka: a controller paused past its session timeout ("zombie") still sends what
    // it was working on with its old epoch; brokers that accepted the new epoch answer
    // STALE_CONTROLLER_EPOCH (ReplicaManager controllerEpoch check).
    // A slow controller, so the pause lands mid-event.
    let config = Config {
        sim_controller_event_cost_ms: 400,
        ..Config::default()
    };
    let mut s = kcsim::Story::with_config(21, 3, config);
    s.until(5_000);
    let zombie = s.controller();
    let victim = BrokerId((zombie.0 + 1) % 3);
    s.at(6_000, Action::KillBroker { broker: victim });
    // Step until the controller is working on the BrokerChange for the dead broker.
    while !matches!(
        s.broker(zombie)
            .controller
            .current
            .as_ref()
            .map(|c| &c.event),
        Some(ControllerEvent::BrokerChange)
    ) {
        assert!(s.sim.step(), "the BrokerChange happens");
        assert!(s.sim.now() < SimTime(20_000));
    }
    let t = s.sim.now().as_ms();
    s.at(
        t,
        Action::PauseBroker {
            broker: zombie,
            duration_ms: 10_000,
        },
    );
    s.until(t + 9_000);
    let new = s.controller();
    assert_ne!(
        new, zombie,
        "a new controller took over while the zombie slept"
    );
    assert_eq!(s.epoch(), 2);
    assert!(
        s.broker(zombie).controller.is_active(zombie),
        "the zombie still believes it is the controller"
    );
    s.until(t + 12_000);
    assert!(
        s.sim.stats().stale_requests_rejected >= 1,
        "its stale requests were rejected"
    );
    let rejected = s.records("request_rejected");
    assert!(
        rejected.iter().any(|r| r.details().contains(&format!(
            "from controller {zombie} (epoch 1): STALE_CONTROLLER_EPOCH"
        ))),
        "{rejected:#?}"
    );
    s.until(t + 30_000);
    assert!(
        !s.broker(zombie).controller.is_active(zombie),
        "the zombie learned and resigned"
    );
    // Kafka: processExpire → onControllerResignation when it wakes; the trace says so.
    let resigned = s.records("resign");
    assert!(
        resigned
            .iter()
            .any(|r| r.actor == format!("controller-{zombie}")
                && r.time_ms > t + 10_000
                && r.details().contains("session expired")),
        "{resigned:#?}"
    );
    s.assert_everyone_agrees();
    s.assert_no_violations();
}

#[test]
fn a_lost_watch_notification_leaves_a_broker_behind_and_the_checker_says_so() {
    // Kafka relies on ZooKeeper delivering every watch notification within a session
    // (ControllerChangeHandler); lose one and a broker never learns the new controller.
    let mut s = Story::brokers(17, 3);
    s.until(5_000);
    s.at(
        5_000,
        Action::DeleteZnode {
            path: "/controller".into(),
        },
    );
    // Step until the deletion's notifications are on the wire.
    while !s
        .sim
        .pending()
        .any(|(_, e)| matches!(e, kcsim_core::sim::SimEvent::Notify { .. }))
    {
        assert!(s.sim.step());
    }
    let (id, victim) = s
        .sim
        .pending()
        .find_map(|(_, e)| match e {
            kcsim_core::sim::SimEvent::Notify { id, broker, .. } => Some((*id, *broker)),
            _ => None,
        })
        .unwrap();
    let now = s.sim.now().as_ms();
    s.at(now, Action::DropMessage { id }).until(20_000);
    assert_eq!(s.records("message_dropped").len(), 1);
    let b = s.broker(victim);
    assert_ne!(
        b.controller.active_controller_id,
        s.sim.controller_id(),
        "broker {victim} never heard"
    );
    assert!(
        s.sim
            .violations()
            .iter()
            .any(|v| v.invariant == kcsim_core::invariants::CONTROLLER_AGREEMENT_WHEN_QUIET),
        "{:#?}",
        s.sim.violations()
    );
}

#[test]
fn a_delayed_request_arrives_later_and_a_dropped_one_is_resent() {
    // Kafka: ControllerChannelManager's RequestSendThread resends after a 100 ms
    // back-off when the connection fails.
    let mut s = Story::brokers(18, 3);
    s.until(1_000);
    while s
        .sim
        .requests()
        .values()
        .all(|r| r.status != kcsim_core::controller::channel::RequestStatus::InFlight)
    {
        assert!(s.sim.step());
    }
    let r = s
        .sim
        .requests()
        .values()
        .find(|r| r.status == kcsim_core::controller::channel::RequestStatus::InFlight)
        .unwrap()
        .clone();
    let was = r.arrives_at.unwrap().as_ms();
    let now = s.sim.now().as_ms();
    s.at(
        now,
        Action::DelayMessage {
            id: r.id,
            delay_ms: 3_000,
        },
    );
    s.sim.step();
    assert_eq!(
        s.sim.requests()[&r.id].arrives_at,
        Some(SimTime(was + 3_000))
    );
    s.at(now + 10, Action::DropMessage { id: r.id });
    s.until(now + 10);
    assert!(s.records("message_dropped")[0]
        .details()
        .contains("resends"));
    s.until(now + 200);
    assert!(
        !s.sim.requests().contains_key(&r.id),
        "resent, delivered and answered long before the delay"
    );
    s.until(20_000);
    s.assert_everyone_agrees();
}

#[test]
fn zookeeper_delivers_a_sessions_notifications_in_the_order_of_the_changes() {
    // Kafka: ZooKeeper's ordering guarantee — a client sees watch events in the
    // order the changes happened — and ControllerEventManager queues them in that
    // order: a partition addition written before a topic deletion is handled
    // first (PartitionModifications, then TopicDeletion), whatever the jitter.
    for seed in 0..40 {
        let mut s = Story::brokers(seed, 3);
        s.until(5_000);
        s.create_topic(5_000, "t", &[&[0, 1]]).until(6_000);
        s.at(
            6_000,
            Action::AddPartitions {
                topic: "t".into(),
                count: 2,
            },
        )
        .at(6_000, Action::DeleteTopic { topic: "t".into() })
        .until(7_000);
        let order: Vec<&str> = s
            .records("watch_fired")
            .into_iter()
            .filter(|r| r.time_ms >= 6_000 && r.actor == format!("broker-{}", s.controller()))
            .filter_map(|r| {
                if r.details().contains("PartitionModifications") {
                    Some("add")
                } else if r.details().contains("TopicDeletion") {
                    Some("delete")
                } else {
                    None
                }
            })
            .collect();
        let first = |w: &str| order.iter().position(|x| *x == w);
        assert!(
            first("add").is_some() && first("add") < first("delete"),
            "seed {seed}: {order:?}"
        );
    }
}

#[test]
fn a_pause_at_the_moment_an_event_ends_does_not_wedge_the_event_thread() {
    // Kafka: ControllerEventManager's one event thread — an event in progress
    // when the JVM stalls finishes after the stall, and the queue keeps
    // draining (a GC pause delays the controller; it never stops it). Found
    // by `kcsim soak` (seed 2855): a pause that begins exactly when the
    // event in progress ends used to drop the event's end, so the controller
    // never processed anything again and nobody was ever elected.
    let mut s = Story::brokers(4_493_895_894_543_785, 1);
    let b = BrokerId(0);
    s.until(1_766);
    s.at(
        1_766,
        Action::PauseBroker {
            broker: b,
            duration_ms: 20_000,
        },
    );
    // The session expires while paused; on waking the broker processes
    // Expire (1 ms), and a second pause lands exactly when that ends.
    s.until(21_766);
    let busy_until = s
        .broker(b)
        .controller
        .current
        .as_ref()
        .map(|c| c.done_at.as_ms())
        .expect("the broker is processing its Expire event");
    s.at(
        busy_until,
        Action::PauseBroker {
            broker: b,
            duration_ms: 1,
        },
    );
    s.until(60_000);
    assert_eq!(s.broker(b).status, BrokerStatus::Running);
    assert_eq!(
        s.sim.controller_id(),
        Some(b),
        "the broker re-registered and was elected after its pauses"
    );
    s.assert_everyone_agrees();
}

#[test]
fn a_pause_that_starts_as_the_controllers_event_ends_does_not_wedge_the_event_thread() {
    // Kafka: a GC pause only delays the controller's event thread
    // (ControllerEventThread.doWork resumes where it stopped); the event in
    // progress finishes after the pause and the queued ones follow. A pause
    // starting at the very instant the event was due to end (an action at
    // T comes before every event at T) once left the event in progress for
    // ever: its completion was held, then dropped at the resume.
    let mut s = Story::brokers(7, 3);
    s.until(5_000);
    let c = s.controller();
    s.sim
        .schedule_action(
            SimTime(6_000),
            Action::CreateTopic {
                name: "late".into(),
                assignment: None,
                partitions: Some(3),
                replication_factor: Some(2),
            },
        )
        .unwrap();
    let done_at = loop {
        assert!(s.sim.step(), "the controller handles the new topic");
        let current = s.sim.brokers()[&c].controller.current.as_ref();
        if let Some(p) = current.filter(|p| p.done_at > s.sim.now()) {
            break p.done_at;
        }
    };
    s.sim
        .schedule_action(
            done_at,
            Action::PauseBroker {
                broker: c,
                duration_ms: 100,
            },
        )
        .unwrap();
    s.until(20_000);
    let b = &s.sim.brokers()[&c];
    assert!(
        b.controller.current.is_none() && b.controller.queue.is_empty(),
        "the event thread went on after the pause"
    );
    for p in 0..3 {
        let tp = kcsim_core::TopicPartition::new("late", p);
        assert!(s.sim.leader_of(&tp).is_some(), "{tp} has a leader");
    }
}
