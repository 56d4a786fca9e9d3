use super::*;
use crate::ids::BrokerId;

fn kill(at_ms: u64, fork: bool, broker: u32) -> UserAct {
    UserAct {
        at_ms,
        fork,
        action: Action::KillBroker {
            broker: BrokerId(broker),
        },
    }
}

fn link_of(acts: &str) -> String {
    format!("s=default&t=5000&a={}", pct_encode(acts))
}

#[test]
fn a_moment_round_trips() {
    let m = Moment {
        scenario: "zombie-controller".into(),
        t_ms: 21_402,
        zk: ZkMode::Sync,
        lang: Some("zh".into()),
        acts: vec![
            kill(9_000, true, 2),
            UserAct {
                at_ms: 9_500,
                fork: false,
                action: Action::DeleteZnode {
                    path: "/controller".into(),
                },
            },
        ],
    };
    let f = encode(&m);
    assert!(
        f.starts_with("s=zombie-controller&t=21402&zk=sync&lang=zh&a=%5B%7B"),
        "{f}"
    );
    assert_eq!(decode(&format!("#{f}")), Ok(m));
    assert_eq!(
        encode(&Moment {
            scenario: "default".into(),
            t_ms: 1,
            zk: ZkMode::Async,
            lang: Some("en".into()),
            acts: vec![],
        }),
        "s=default&t=1",
        "async and English, the defaults, are left out"
    );
}

#[test]
fn only_the_pages_two_language_codes_read() {
    assert_eq!(read("s=default&lang=zh").lang.as_deref(), Some("zh"));
    assert_eq!(read("s=default&lang=en").lang.as_deref(), Some("en"));
    for bad in ["fr", "", "zh-CN", "ZH", "%ZZ"] {
        let r = read(&format!("s=default&lang={bad}"));
        assert_eq!(r.lang, None, "{bad}");
        assert_eq!(
            r.problems,
            [format!(
                "lang={bad:?} is not a language of the page (en or zh); ignored"
            )]
        );
    }
}

#[test]
fn a_link_at_the_length_limit_reads_and_one_byte_over_is_refused() {
    let base = "s=default&t=1&x=";
    let at = format!("{base}{}", "y".repeat(MAX_LINK_BYTES - base.len()));
    assert_eq!(at.len(), MAX_LINK_BYTES);
    let r = read(&at);
    assert_eq!(r.scenario.as_deref(), Some("default"));
    assert_eq!(r.problems, ["unknown key \"x\"; ignored"]);
    let over = format!("{at}y");
    let r = read(&format!("#{over}"));
    assert_eq!(r.scenario, None);
    assert_eq!(
        r.problems,
        [format!(
            "the link is {} bytes, over the limit of {MAX_LINK_BYTES} bytes (MAX_LINK_BYTES); nothing in it is read",
            MAX_LINK_BYTES + 1
        )]
    );
}

#[test]
fn a_scenario_id_over_its_limit_is_refused() {
    let at = "d".repeat(MAX_SCENARIO_ID_BYTES);
    assert_eq!(read(&format!("s={at}")).scenario, Some(at.clone()));
    let r = read(&format!("s={at}d"));
    assert_eq!(r.scenario, None);
    assert_eq!(
        r.problems,
        [format!("the scenario (s=) is {} bytes, over the limit of {MAX_SCENARIO_ID_BYTES} bytes (MAX_SCENARIO_ID_BYTES); ignored", MAX_SCENARIO_ID_BYTES + 1)]
    );
}

#[test]
fn at_most_max_link_acts_actions_are_read() {
    let list = |n: usize| {
        serde_json::to_string(&(0..n).map(|i| kill(i as u64, false, 1)).collect::<Vec<_>>())
            .unwrap_or_default()
    };
    let r = read(&link_of(&list(MAX_LINK_ACTS)));
    assert_eq!((r.acts.len(), r.problems.len()), (MAX_LINK_ACTS, 0));
    let r = read(&link_of(&list(MAX_LINK_ACTS + 1)));
    assert_eq!(r.acts.len(), MAX_LINK_ACTS);
    assert_eq!(
        r.problems,
        [format!(
            "the link has {} actions, over the limit of {MAX_LINK_ACTS} (MAX_LINK_ACTS); the first {MAX_LINK_ACTS} are read",
            MAX_LINK_ACTS + 1
        )]
    );
}

#[test]
fn an_action_past_the_latest_time_is_skipped() {
    let acts = format!(
        r#"[{{"at_ms":{LATEST_MS},"fork":false,"action":{{"action":"kill_broker","broker":1}}}},
            {{"at_ms":{},"fork":false,"action":{{"action":"kill_broker","broker":1}}}}]"#,
        LATEST_MS + 1
    );
    let r = read(&link_of(&acts));
    assert_eq!(r.acts.len(), 1);
    assert_eq!(
        r.problems,
        [format!(
            "action 2 of 2 is at {} ms, past the latest time the page runs to ({LATEST_MS} ms); skipped",
            LATEST_MS + 1
        )]
    );
}

#[test]
fn actions_that_would_create_more_than_the_largest_cluster_are_skipped_before_anything_is_built() {
    // Each topic at the per-topic limit: two fit in MAX_PARTITIONS, the
    // third does not; a fourth asking for 4 billion partitions is refused
    // on its own.
    let topic = |name: &str, p: u64| {
        format!(
            r#"{{"at_ms":1,"fork":false,"action":{{"action":"create_topic","name":"{name}","partitions":{p},"replication_factor":1}}}}"#
        )
    };
    let per = scenario::MAX_PARTITIONS_PER_TOPIC;
    let acts = format!(
        "[{},{},{},{}]",
        topic("a", per),
        topic("b", per),
        topic("c", 1),
        topic("d", u64::from(u32::MAX))
    );
    let r = read(&link_of(&acts));
    assert_eq!(r.acts.len(), 2);
    assert_eq!(
        r.problems,
        [
            format!("action 3 of 4 is a create_topic at 1 ms: {} partitions in all, over the limit of {} (MAX_PARTITIONS); skipped", 2 * per + 1, scenario::MAX_PARTITIONS),
            format!("action 4 of 4 is a create_topic at 1 ms: a topic of {} partitions (MAX_PARTITIONS_PER_TOPIC) is not from 1 to {per}; skipped", u32::MAX),
        ]
    );
}

#[test]
fn an_action_with_an_out_of_range_number_is_skipped() {
    let acts = r#"[{"at_ms":1,"fork":false,"action":{"action":"pause_broker","broker":1,"duration_ms":18446744073709551615}},
        {"at_ms":1,"fork":false,"action":{"action":"produce","topic":"t","partition":0,"records":0,"acks":"All"}}]"#;
    let r = read(&link_of(acts));
    assert_eq!(r.acts.len(), 0);
    assert_eq!(
        r.problems,
        [
            format!("action 1 of 2 is a pause_broker at 1 ms: a pause of 18446744073709551615 ms (MAX_TIME_MS, one day) is not from 1 to {}; skipped", scenario::MAX_TIME_MS),
            "action 2 of 2 is a produce at 1 ms: a produce of 0 records is not from 1 to 1000000; skipped".to_string(),
        ]
    );
}
