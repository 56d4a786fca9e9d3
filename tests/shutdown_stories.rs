//! Stories of controlled shutdown racing the controller: a broker in
//! controlled shutdown always finishes, cleanly or not, whatever happens to
//! the controller it asked. Each names the Kafka behaviour it mirrors.

use kcsim::Story;
use kcsim_core::broker::BrokerStatus;
use kcsim_core::config::Config;
use kcsim_core::{Action, BrokerId};

/// Three brokers with a topic whose partitions all have a replica on every
/// broker; the controller's events take `event_cost_ms` each.
fn cluster(seed: u64, event_cost_ms: u64) -> (Story, BrokerId, BrokerId, BrokerId) {
    let config = Config {
        sim_controller_event_cost_ms: event_cost_ms,
        ..Config::default()
    };
    let mut s = Story::with_config(seed, 3, config);
    s.until(5_000);
    let c = s.controller();
    let others = s.non_controllers();
    let (v, a) = (others[0], others[1]);
    s.create_topic(5_000, "t", &[&[v.0, a.0, c.0], &[a.0, v.0, c.0]])
        .until(8_000);
    (s, v, a, c)
}

/// The time of the broker's `shutdown_complete` record.
fn exit_time(s: &Story, b: BrokerId) -> Option<u64> {
    s.records("shutdown_complete")
        .into_iter()
        .find(|r| r.actor == format!("broker-{b}"))
        .map(|r| r.time_ms)
}

#[test]
fn the_controller_dies_while_processing_the_shutdown_request_and_the_broker_still_exits() {
    // Kafka: KafkaServer.controlledShutdown — an IOException (the controller's
    // socket closes when its process dies) fails the attempt; the broker backs
    // off controlled.shutdown.retry.backoff.ms and asks again, here the new
    // controller once the old one's session has expired.
    let (mut s, v, _a, c) = cluster(40, 50);
    s.at(8_000, Action::ShutdownBroker { broker: v })
        .at(8_020, Action::KillBroker { broker: c })
        .until(60_000);
    assert_eq!(s.broker(v).status, BrokerStatus::Dead, "the broker exited");
    let exit = exit_time(&s, v).expect("shutdown_complete");
    assert!(exit < 25_000, "within the retries, not never: {exit}");
    let retries = s.records("controlled_shutdown_retry");
    assert!(
        retries
            .first()
            .is_some_and(|r| r.time_ms < 8_100 && r.details().contains("IOException")),
        "the first attempt fails at once with the connection: {retries:?}"
    );
    s.assert_no_violations();
}

#[test]
fn controller_and_broker_stopped_a_millisecond_apart_both_exit() {
    // Kafka: a controller shutting down stops its socket server; requests it
    // held fail on the sender's side, which retries (KafkaServer.controlledShutdown)
    // and finds the next controller.
    let (mut s, v, _a, c) = cluster(41, 20);
    s.at(8_000, Action::ShutdownBroker { broker: c })
        .at(8_001, Action::ShutdownBroker { broker: v })
        .until(60_000);
    assert_eq!(s.broker(c).status, BrokerStatus::Dead);
    assert_eq!(s.broker(v).status, BrokerStatus::Dead);
    assert!(exit_time(&s, c).is_some() && exit_time(&s, v).is_some());
    s.assert_no_violations();
}

#[test]
fn a_shutdown_request_to_a_killed_controller_fails_at_once() {
    // Kafka: connecting to a dead process is refused at once (NetworkClient
    // sees the disconnection); the attempt fails and the broker backs off,
    // rather than waiting controller.socket.timeout.ms.
    let (mut s, v, _a, c) = cluster(42, 1);
    s.at(8_000, Action::KillBroker { broker: c })
        .at(8_100, Action::ShutdownBroker { broker: v })
        .until(8_500);
    assert_eq!(
        s.sim.controller_id(),
        Some(c),
        "its session lingers, so /controller still names it"
    );
    let first = s
        .first_after("controlled_shutdown_retry", 8_000)
        .expect("the first attempt failed");
    assert!(
        first.time_ms < 8_200,
        "refused at once, not after 30 s: {}",
        first.time_ms
    );
    s.until(40_000);
    assert_eq!(s.broker(v).status, BrokerStatus::Dead);
}

#[test]
fn a_shutdown_request_to_a_stalled_controller_times_out() {
    // Kafka: a stalled (GC-paused) process accepts the connection but does not
    // answer; the broker's request times out after controller.socket.timeout.ms.
    let (mut s, v, _a, c) = cluster(43, 1);
    s.at(
        8_000,
        Action::PauseBroker {
            broker: c,
            duration_ms: 120_000,
        },
    )
    .at(8_100, Action::ShutdownBroker { broker: v })
    .until(38_000);
    assert!(
        s.first_after("controlled_shutdown_retry", 8_000).is_none(),
        "still waiting before the 30 s timeout"
    );
    s.until(38_500);
    let first = s
        .first_after("controlled_shutdown_retry", 8_000)
        .expect("timed out");
    assert!(
        (38_100..38_200).contains(&first.time_ms),
        "after controller.socket.timeout.ms: {}",
        first.time_ms
    );
}

#[test]
fn the_shutdown_request_is_on_the_wire_and_can_be_dropped_or_delayed() {
    // Kafka: ControlledShutdownRequest is a request like the others, on the
    // broker's connection to the controller; losing it fails the attempt
    // (IOException) and the broker retries after the back-off.
    let (mut s, v, _a, c) = cluster(44, 1);
    s.at(8_000, Action::ShutdownBroker { broker: v })
        .until(8_000);
    let req = s
        .sim
        .requests()
        .values()
        .find(|r| r.body.name() == "ControlledShutdown")
        .cloned()
        .expect("the request is listed on the wire");
    assert_eq!((req.from, req.to), (v, c));
    s.at(8_000, Action::DropMessage { id: req.id }).until(8_100);
    let retry = s
        .first_after("controlled_shutdown_retry", 8_000)
        .expect("the attempt failed");
    assert!(
        retry.details().contains("IOException"),
        "{}",
        retry.details()
    );
    assert_eq!(s.broker(v).status, BrokerStatus::ShuttingDown);
    s.until(13_000);
    let id = s
        .sim
        .requests()
        .values()
        .find(|r| r.body.name() == "ControlledShutdown")
        .map(|r| r.id)
        .expect("attempt 2 after the 5 s back-off");
    s.at(
        13_000,
        Action::DelayMessage {
            id,
            delay_ms: 2_000,
        },
    )
    .until(20_000);
    let exit = exit_time(&s, v).expect("the second attempt succeeded");
    assert!(
        (15_000..15_200).contains(&exit),
        "attempt 2 at 13 s, delayed 2 s: exit at {exit}"
    );
}

#[test]
fn a_broker_that_exited_leaves_no_request_timeout_behind() {
    // Kafka: KafkaServer.controlledShutdown sends its request through a
    // NetworkClient whose deadline (controller.socket.timeout.ms) ends with
    // the answer; once the broker has exited, nothing of it is left to fire.
    // So the cluster is quiet long before the 30 s timeout would have passed.
    let (mut s, v, _a, _c) = cluster(43, 1);
    s.at(8_000, Action::ShutdownBroker { broker: v })
        .until(9_000);
    let exit = exit_time(&s, v).expect("shutdown_complete");
    assert!(exit < 9_000, "the shutdown was answered at once: {exit}");
    let timeout = Config::default().controller_socket_timeout_ms;
    let mut quiet_at = None;
    while s.sim.now().as_ms() < 8_000 + timeout {
        if s.sim.is_quiet() {
            quiet_at = Some(s.sim.now().as_ms());
            break;
        }
        let next = s.sim.now().as_ms() + 100;
        s.until(next);
    }
    assert!(
        quiet_at.is_some(),
        "quiet before the request's timeout would have fired"
    );
    s.assert_no_violations();
}

#[test]
fn a_shutdown_request_lost_while_its_broker_is_paused_is_retried_when_it_wakes() {
    // Kafka: KafkaServer.controlledShutdown — a broken connection to the
    // controller is an IOException of the attempt; after the back-off the
    // broker tries again, and after controlled.shutdown.max.retries it shuts
    // down anyway. A GC pause only delays that. Found by `kcsim soak` (seed
    // 1099): the request lost while its broker was paused was never
    // answered, and the broker stayed in controlled shutdown forever.
    // Three brokers; two shut down, then the last one, which leads
    // partitions nobody else can take: its attempts fail and are retried.
    let mut s = Story::brokers(7, 3);
    let b = BrokerId(2);
    s.create_topic(2_000, "t", &[&[0, 1, 2], &[1, 2, 0]]);
    s.at(
        8_000,
        Action::ShutdownBroker {
            broker: BrokerId(0),
        },
    );
    s.at(
        9_000,
        Action::ShutdownBroker {
            broker: BrokerId(1),
        },
    );
    s.at(40_000, Action::ShutdownBroker { broker: b });
    s.until(40_000);
    while s.broker(b).shutdown_attempt < 2 || s.broker(b).shutdown_request.is_none() {
        assert!(s.sim.step(), "the second attempt comes");
        assert!(s.sim.now().as_ms() < 60_000);
    }
    let id = s.broker(b).shutdown_request.expect("attempt 2 on the wire");
    let t = s.sim.now().as_ms();
    s.at(
        t,
        Action::PauseBroker {
            broker: b,
            duration_ms: 1,
        },
    );
    s.at(t, Action::DropMessage { id });
    s.until(t + 60_000);
    assert_eq!(
        s.broker(b).status,
        BrokerStatus::Dead,
        "the shutdown went on after the pause and ended"
    );
}

#[test]
fn a_shutdown_request_lost_while_its_broker_is_paused_is_retried_and_the_broker_exits() {
    // Kafka: KafkaServer.controlledShutdown retries an attempt whose
    // connection broke (IOException) after controlled.shutdown.retry.backoff.ms
    // and, past controlled.shutdown.max.retries, shuts down anyway: a GC
    // pause in the middle only delays it. A request lost while its broker was
    // paused once left the broker shutting down for ever.
    let mut s = kcsim::Story::brokers(5, 3);
    s.until(5_000);
    let c = s.controller();
    let b = kcsim_core::BrokerId((c.0 + 1) % 3);
    s.sim
        .schedule_action(
            kcsim_core::SimTime(6_000),
            kcsim_core::Action::ShutdownBroker { broker: b },
        )
        .unwrap();
    let id = loop {
        assert!(s.sim.step(), "the broker asks the controller");
        let request = s.sim.requests().values().find(|r| {
            r.from == b
                && matches!(
                    r.body,
                    kcsim_core::controller::channel::RequestBody::ControlledShutdown { .. }
                )
        });
        if let Some(r) = request {
            break r.id;
        }
    };
    let now = s.sim.now();
    for (at, a) in [
        (
            now,
            kcsim_core::Action::DelayMessage {
                id,
                delay_ms: 20_000,
            },
        ),
        (
            now,
            kcsim_core::Action::PauseBroker {
                broker: b,
                duration_ms: 10_000,
            },
        ),
        (now.plus_ms(5), kcsim_core::Action::DropMessage { id }),
    ] {
        s.sim.schedule_action(at, a).unwrap();
    }
    s.until(200_000);
    assert_eq!(
        s.sim.brokers()[&b].status,
        kcsim_core::broker::BrokerStatus::Dead,
        "the broker retried after its pause and exited"
    );
}
