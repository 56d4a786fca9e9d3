use super::*;
use crate::timeline::Timeline;
use crate::view::ClusterView;
use crate::SimTime;

fn minimal(steps: &str) -> String {
    format!(
        r#"{{"version":1,"id":"t","title":{{"en":"T","zh":"题"}},"summary":{{"en":"S","zh":"概"}},
            "scenario":"default","steps":{steps}}}"#
    )
}

fn err_field(text: &str) -> String {
    match Lesson::parse(text) {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn every_built_in_lesson_parses_under_its_own_id() {
    // Their "show me" paths are played by `kcsim lesson check --builtin`
    // (core/tests/cli.rs), once.
    assert!(
        builtin::FILES.len() >= 10,
        "the course has at least ten lessons"
    );
    for (id, text) in builtin::FILES {
        let l = Lesson::parse(text).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(l.id, *id, "the registry's id is the file's");
        for (i, st) in l.steps.iter().enumerate() {
            assert_eq!(
                st.checkpoint.is_some(),
                st.goal.is_some(),
                "{id}: steps[{i}]: a built-in checkpoint says its goal in words"
            );
        }
        assert!(builtin::lesson(id).is_some_and(|r| r.is_ok()));
    }
    assert_eq!(builtin::all().len(), builtin::FILES.len());
    let ids: Vec<&str> = builtin::FILES.iter().map(|(id, _)| *id).collect();
    assert_eq!(
        ids,
        builtin::IDS,
        "the page fetches lessons/<id>.json for each of IDS, in this order"
    );
}

#[test]
fn errors_name_the_field() {
    let cases: &[(&str, &str)] = &[
        ("{", "(file): malformed JSON"),
        (&minimal("[]"), "steps: a lesson needs at least one step"),
        (
            &minimal(r#"[{"text":{"en":"x"}}]"#),
            "steps[0].text.zh: is required",
        ),
        (
            &minimal(r#"[{"text":{"en":"x","zh":"  "}}]"#),
            "steps[0].text.zh: expected a non-empty string",
        ),
        (
            &minimal(
                r#"[{"text":{"en":"x","zh":"y"},"checkpoint":{"leader":{"partition":"orders-0","broker":7}}}]"#,
            ),
            "steps[0].checkpoint.leader.broker: no broker 7 in this cluster",
        ),
        (
            &minimal(
                r#"[{"text":{"en":"x","zh":"y"},"checkpoint":{"leader":{"partition":"nope-0","broker":1}}}]"#,
            ),
            "steps[0].checkpoint.leader.partition: no topic \"nope\"",
        ),
        (
            &minimal(r#"[{"text":{"en":"x","zh":"y"},"checkpoint":{"controler":1}}]"#),
            "steps[0].checkpoint.controler: unknown condition",
        ),
        (
            &minimal(
                r#"[{"text":{"en":"x","zh":"y"},"checkpoint":{"controller":1,"time_at_least_ms":2}}]"#,
            ),
            "steps[0].checkpoint: a condition is an object with exactly one key",
        ),
        (
            &minimal(
                r#"[{"text":{"en":"x","zh":"y"},"checkpoint":{"all":[{"not":{"broker_status":{"broker":1,"status":"asleep"}}}]}}]"#,
            ),
            "steps[0].checkpoint.all[0].not.broker_status.status: expected one of starting",
        ),
        (
            &minimal(
                r#"[{"text":{"en":"x","zh":"y"},"show_me":[{"action":"kill_broker","broker":9}]}]"#,
            ),
            "steps[0].show_me[0].broker: no broker 9 in this cluster",
        ),
        (
            &minimal(
                r#"[{"text":{"en":"x","zh":"y"},"show_me":[{"at_ms":5,"action":"kill_broker","broker":1}]}]"#,
            ),
            "steps[0].show_me[0].at_ms: unknown field",
        ),
        (
            &minimal(r#"[{"text":{"en":"x","zh":"y"},"point_at":"broker:9"}]"#),
            "steps[0].point_at: no broker 9 in this cluster",
        ),
        (
            &minimal(r#"[{"text":{"en":"x","zh":"y"},"point_at":"the-moon"}]"#),
            "steps[0].point_at: expected a part of the page",
        ),
        (
            &minimal(r#"[{"text":{"en":"x","zh":"y"},"within_ms":5}]"#),
            "steps[0].within_ms: only a step with a checkpoint",
        ),
        (
            &minimal(r#"[{"text":{"en":"x","zh":"y"},"colour":"red"}]"#),
            "steps[0].colour: unknown field",
        ),
        (
            &minimal(r#"[{"text":{"en":"x","zh":"y"}}]"#).replace("\"default\"", "\"nowhere\""),
            "scenario: no built-in scenario \"nowhere\"",
        ),
        (
            &minimal(r#"[{"text":{"en":"x","zh":"y"}}]"#)
                .replace("\"default\"", r#"{"version":1,"brokers":[]}"#),
            "scenario.brokers: a cluster needs at least one broker",
        ),
        (
            &minimal(r#"[{"text":{"en":"x","zh":"y"}}]"#).replace("\"t\"", "\"Bad Id\""),
            "id: expected an id of 1 to 64",
        ),
        (
            &minimal(r#"[{"text":{"en":"x","zh":"y"}}]"#).replace("\"version\":1", "\"version\":2"),
            "version: unsupported lesson version 2",
        ),
    ];
    for (text, want) in cases {
        let got = err_field(text);
        assert!(got.starts_with(want), "{text}\n got: {got}\nwant: {want}");
    }
    let big = minimal(&format!(
        "[{}]",
        vec![r#"{"text":{"en":"x","zh":"y"}}"#; MAX_STEPS + 1].join(",")
    ));
    assert!(err_field(&big).starts_with("steps: a lesson may have at most"));
    let huge = " ".repeat(MAX_BYTES + 1);
    assert!(err_field(&huge).starts_with("(file): a lesson file may be at most"));
}

#[test]
fn an_inline_scenario_is_checked_against_the_steps() {
    let text = r#"{"version":1,"id":"inline","title":{"en":"T","zh":"题"},"summary":{"en":"S","zh":"概"},
        "scenario":{"version":1,"seed":7,"brokers":[1,2],"topics":[{"name":"t","assignment":[[1,2]]}]},
        "steps":[{"text":{"en":"x","zh":"y"},"point_at":"partition:t-0",
                  "checkpoint":{"leader":{"partition":"t-0","broker":1}}}]}"#;
    let l = Lesson::parse(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(l.scenario().brokers, vec![BrokerId(1), BrokerId(2)]);
    assert_eq!(
        l.steps[0].point_at,
        Some(Target::Partition(TopicPartition::new("t", 0)))
    );
    // Broker 3 is not in this cluster, though it is in the default one.
    assert!(err_field(&text.replace("\"broker\":1}", "\"broker\":3}")).contains("no broker 3"));
}

#[test]
fn a_topic_created_by_show_me_may_be_named_from_that_step_on() {
    // Kafka: kafka-topics.sh --create writes /brokers/topics/<t>; the
    // controller's TopicChange makes its partitions Online. A lesson that
    // has the learner create the topic checks those partitions.
    let create = r#"{"text":{"en":"x","zh":"y"},"point_at":"partition:payments-0",
        "show_me":[{"action":"create_topic","name":"payments","partitions":2,"replication_factor":2}],
        "checkpoint":{"partition_state":{"partition":"payments-1","state":"OnlinePartition"}}}"#;
    let later = r#"{"text":{"en":"x","zh":"y"},"checkpoint":{"leader_epoch_at_least":{"partition":"payments-0","epoch":0}}}"#;
    let l =
        Lesson::parse(&minimal(&format!("[{create},{later}]"))).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(l.steps.len(), 2);
    let out = play(&l).unwrap_or_else(|e| panic!("{e}"));
    assert!(out[0].passed_at_ms.is_some());
    // Before the step that creates it, the topic is unknown.
    assert!(err_field(&minimal(&format!("[{later},{create}]")))
        .starts_with("steps[0].checkpoint.leader_epoch_at_least.partition: no topic \"payments\""));
}

#[test]
fn conditions_read_the_cluster_as_it_is_at_the_cursor() {
    // Kafka: KafkaController.elect (the /controller race, /controller_epoch
    // bumped on every election) and onBrokerFailure (a dead leader's
    // partitions move to the next live replica in AR).
    let sc = crate::scenario::builtin::default_cluster();
    let mut tl = Timeline::new(&sc);
    tl.seek(SimTime(3_000));
    let names: Vec<String> = vec!["orders".into(), "audit".into()];
    let c = |j: &str| {
        Condition::parse(
            &serde_json::from_str(j).unwrap_or_default(),
            "c",
            &sc.brokers,
            &names,
        )
        .unwrap_or_else(|e| panic!("{j}: {e}"))
    };
    let holds = |tl: &Timeline, j: &str| c(j).holds(&ClusterView::of(tl.sim()), tl.trace());
    let view = ClusterView::of(tl.sim());
    let first = view
        .controller
        .unwrap_or_else(|| panic!("a controller by 3 s"));
    assert!(holds(&tl, &format!(r#"{{"controller":{}}}"#, first.0)));
    assert!(holds(&tl, r#"{"controller_epoch_at_least":1}"#));
    assert!(!holds(&tl, r#"{"controller_epoch_at_least":2}"#));
    assert!(holds(&tl, r#"{"znode_exists":"/controller"}"#));
    assert!(holds(
        &tl,
        &format!(
            r#"{{"znode_data_contains":{{"path":"/controller","text":"\"brokerid\":{}"}}}}"#,
            first.0
        )
    ));
    assert!(holds(&tl, r#"{"controller_status":"running"}"#));
    assert!(holds(
        &tl,
        r#"{"partition_state":{"partition":"orders-0","state":"OnlinePartition"}}"#
    ));
    assert!(holds(
        &tl,
        r#"{"available":{"partition":"orders-0","available":true}}"#
    ));
    assert!(!holds(
        &tl,
        r#"{"trace":{"kind":"kill_broker","actor":"user"}}"#
    ));
    assert!(holds(&tl, r#"{"time_at_least_ms":3000}"#));
    assert!(!holds(&tl, r#"{"time_at_least_ms":3001}"#));
    let leader = view
        .partition(&TopicPartition::new("orders", 0))
        .and_then(|p| p.overview.leader)
        .unwrap_or_else(|| panic!("orders-0 has a leader"));
    assert!(holds(
        &tl,
        &format!(
            r#"{{"leader":{{"partition":"orders-0","broker":{}}}}}"#,
            leader.0
        )
    ));
    assert!(!holds(
        &tl,
        r#"{"leader":{"partition":"orders-0","broker":null}}"#
    ));

    // kill -9 the controller: dead at once, /controller still there.
    let at = tl.now();
    tl.insert(at, crate::Action::KillBroker { broker: first })
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(holds(&tl, r#"{"controller_status":"dead"}"#));
    assert!(holds(
        &tl,
        &format!(
            r#"{{"broker_status":{{"broker":{},"status":"dead"}}}}"#,
            first.0
        )
    ));
    assert!(holds(
        &tl,
        r#"{"trace":{"kind":"kill_broker","actor":"user"}}"#
    ));
    assert!(!holds(
        &tl,
        r#"{"trace":{"kind":"kill_broker","actor":"user","at_least":2}}"#
    ));
    assert!(holds(&tl, r#"{"not":{"controller_epoch_at_least":2}}"#));
    // The session expires 6 s later; another broker wins with epoch 2.
    tl.seek(SimTime(12_000));
    assert!(holds(&tl, r#"{"controller_epoch_at_least":2}"#));
    assert!(holds(
        &tl,
        r#"{"all":[{"controller_epoch_at_least":2},{"controller_status":"running"}]}"#
    ));
    assert!(!holds(&tl, &format!(r#"{{"controller":{}}}"#, first.0)));
    assert!(holds(
        &tl,
        r#"{"any":[{"controller":null},{"controller_epoch_at_least":2}]}"#
    ));
    // Scrubbing back makes it not hold again: conditions read the cursor.
    tl.seek(SimTime(4_000));
    assert!(!holds(&tl, r#"{"controller_epoch_at_least":2}"#));
}

#[test]
fn play_reports_the_step_that_fails() {
    // Kafka: zookeeper.session.timeout.ms (6 s): a killed controller's
    // /controller lingers, so epoch 2 cannot come within 1 s.
    let text = minimal(
        r#"[{"text":{"en":"x","zh":"y"},"show_me":[{"action":"kill_broker","broker":0}],
             "checkpoint":{"controller_epoch_at_least":2},"within_ms":1000}]"#,
    );
    let l = Lesson::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    match play(&l) {
        Err(PlayError::NotReached { step: 0, .. }) => {}
        other => panic!("{other:?}"),
    }
    // A checkpoint that holds before "show me" acts teaches nothing.
    let text = minimal(
        r#"[{"text":{"en":"x","zh":"y"},"show_me":[{"action":"kill_broker","broker":0}],
             "checkpoint":{"controller_epoch_at_least":1}}]"#,
    );
    let l = Lesson::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(
        play(&l),
        Err(PlayError::AlreadyHeld { step: 0, .. })
    ));
    // A refused action fails the step that does it.
    let text = minimal(
        r#"[{"text":{"en":"x","zh":"y"},"show_me":[{"action":"create_topic","name":"orders","partitions":1,"replication_factor":1}]}]"#,
    );
    let l = Lesson::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        matches!(play(&l), Err(PlayError::Refused { step: 0, .. })),
        "{:?}",
        play(&l)
    );
}

#[test]
fn bad_input_never_panics() {
    // Every prefix and a few mutations of a real lesson: an error or a
    // lesson, never a panic.
    let text = builtin::FILES[0].1;
    for cut in (0..text.len()).step_by(7) {
        if text.is_char_boundary(cut) {
            let _ = Lesson::parse(&text[..cut]);
        }
    }
    for (from, to) in [
        ("\"broker\": 0", "\"broker\": -1"),
        ("2", "\"2\""),
        ("\"en\"", "\"fr\""),
        ("[", "{"),
        ("true", "null"),
    ] {
        let _ = Lesson::parse(&text.replacen(from, to, 1));
        let _ = Lesson::parse(&text.replace(from, to));
    }
}

#[test]
fn the_high_watermark_condition_waits_for_the_acknowledgement() {
    // Kafka: Partition.maybeIncrementLeaderHW: acks=all records are
    // acknowledged when every ISR member has them, so with a dead follower
    // still in the leader's ISR the high watermark does not move.
    let sc = crate::scenario::builtin::default_cluster();
    let names: Vec<String> = vec!["orders".into(), "audit".into()];
    let c = Condition::parse(
        &serde_json::json!({"high_watermark_at_least": {"partition": "orders-0", "offset": 1}}),
        "c",
        &sc.brokers,
        &names,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut tl = Timeline::new(&sc);
    tl.seek(SimTime(5_000));
    assert!(
        !c.holds(&ClusterView::of(tl.sim()), tl.trace()),
        "nothing produced yet"
    );
    // The default cluster produces to orders-0 at 6 s.
    tl.seek(SimTime(7_000));
    assert!(c.holds(&ClusterView::of(tl.sim()), tl.trace()));
}

#[test]
fn show_me_for_the_controller_acts_on_the_controller_of_the_moment() {
    // Kafka: KafkaController.elect: whoever created /controller is the
    // controller; "kill the controller" must hit that broker, whichever it
    // is after the learner's own actions.
    let text = minimal(
        r#"[{"text":{"en":"x","zh":"y"},"show_me":[{"action":"kill_broker","broker":"controller"}],
             "checkpoint":{"controller_status":"dead"}}]"#,
    );
    let l = Lesson::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let step = &l.steps[0];
    assert!(step.show_me[0].on_controller);
    assert_eq!(
        step.actions_now(Some(BrokerId(3))),
        Ok(vec![crate::Action::KillBroker {
            broker: BrokerId(3)
        }])
    );
    assert_eq!(step.actions_now(None), Err(NoController));
    assert!(play(&l).is_ok());
    // Only a broker's action can be for the controller.
    let bad = minimal(
        r#"[{"text":{"en":"x","zh":"y"},"show_me":[{"action":"delete_topic","topic":"orders","broker":"controller"}]}]"#,
    );
    assert!(
        err_field(&bad).starts_with("steps[0].show_me[0].broker: unknown field"),
        "{}",
        err_field(&bad)
    );
    // Any other word is not a broker id.
    let bad = minimal(
        r#"[{"text":{"en":"x","zh":"y"},"show_me":[{"action":"kill_broker","broker":"leader"}]}]"#,
    );
    assert!(
        err_field(&bad).starts_with("steps[0].show_me[0].broker: expected a broker id"),
        "{}",
        err_field(&bad)
    );
}

#[test]
fn a_goal_describes_a_checkpoint_in_both_languages() {
    let ok = minimal(
        r#"[{"text":{"en":"x","zh":"y"},"checkpoint":{"controller_epoch_at_least":2},
             "goal":{"en":"a new controller wins with epoch 2","zh":"新控制器以纪元 2 胜出"}}]"#,
    );
    let l = Lesson::parse(&ok).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        l.steps[0].goal.as_ref().map(|g| g.get("zh")),
        Some("新控制器以纪元 2 胜出")
    );
    let no_zh = minimal(
        r#"[{"text":{"en":"x","zh":"y"},"checkpoint":{"controller_epoch_at_least":2},"goal":{"en":"a"}}]"#,
    );
    assert!(err_field(&no_zh).starts_with("steps[0].goal.zh: is required"));
    let no_checkpoint = minimal(r#"[{"text":{"en":"x","zh":"y"},"goal":{"en":"a","zh":"b"}}]"#);
    assert!(err_field(&no_checkpoint).starts_with("steps[0].goal: only a step with a checkpoint"));
}
