//! The `kcsim` binary as a user runs it: exit codes, stdout, stderr.
#![cfg(feature = "cli")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests panic on purpose

use std::path::PathBuf;
use std::process::Command;

fn kcsim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kcsim"))
        .args(args)
        .output()
        .expect("kcsim runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn write(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

const GOOD: &str = r#"{ "version": 1, "seed": 42, "brokers": [0, 1, 2],
  "config": { "zookeeper.session.timeout.ms": 6000 },
  "topics": [ { "name": "orders", "partitions": 3, "replication_factor": 3 },
              { "name": "audit", "assignment": [[1, 2], [2, 0]], "config": {} } ],
  "actions": [ { "at_ms": 10000, "action": "kill_broker", "broker": 0 } ] }"#;

#[test]
fn run_prints_the_final_state_and_writes_a_trace() {
    let file = write("good.json", GOOD);
    let trace = file.with_extension("jsonl");
    let (code, out, err) = kcsim(&[
        "run",
        file.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
    assert_eq!(v["version"], 1);
    assert_eq!(v["time_ms"], 70_000, "60 s after the last action");
    assert!(v["controller"]["epoch"].as_i64().unwrap() >= 1);
    assert_eq!(v["brokers"][0]["status"], "dead");
    assert_eq!(
        v["brokers"][0]["active_controller_id"],
        serde_json::Value::Null
    );
    assert!(v["zk"]["/controller_epoch"].is_string());
    assert_eq!(v["violations"], serde_json::json!([]));
    let lines = std::fs::read_to_string(&trace).unwrap();
    assert!(lines.lines().count() > 10);
    for line in lines.lines() {
        let r: serde_json::Value = serde_json::from_str(line).expect("JSON lines");
        for key in ["time_ms", "actor", "kind", "details"] {
            assert!(r.get(key).is_some(), "{key} in {line}");
        }
    }
}

#[test]
fn until_ms_stops_early_and_runs_are_deterministic() {
    let file = write("det.json", GOOD);
    let (_, a, _) = kcsim(&["run", file.to_str().unwrap(), "--until-ms", "12000"]);
    let (_, b, _) = kcsim(&["run", file.to_str().unwrap(), "--until-ms", "12000"]);
    assert_eq!(a, b);
    let v: serde_json::Value = serde_json::from_str(&a).unwrap();
    assert_eq!(v["time_ms"], 12_000);
}

#[test]
fn bad_input_gives_exit_2_and_names_the_field() {
    let cases: &[(&str, &str, &str)] = &[
        ("malformed", "{ \"version\": 1, ", "(file): malformed JSON"),
        ("unknown-action", r#"{"version":1,"brokers":[0],"actions":[{"at_ms":1,"action":"explode","broker":0}]}"#, "actions[0].action: unknown action \"explode\""),
        ("unknown-broker", r#"{"version":1,"brokers":[0,1],"actions":[{"at_ms":1,"action":"kill_broker","broker":7}]}"#, "actions[0].broker: no broker 7 in this cluster"),
        ("negative-time", r#"{"version":1,"brokers":[0],"actions":[{"at_ms":-5,"action":"kill_broker","broker":0}]}"#, "actions[0].at_ms: expected a time in ms"),
        ("too-late", r#"{"version":1,"brokers":[0],"actions":[{"at_ms":18446744073709551615,"action":"kill_broker","broker":0}]}"#, "actions[0].at_ms: expected a time in ms from 0 to 86400000"),
        ("duplicate-broker", r#"{"version":1,"brokers":[0,1,1]}"#, "brokers[2]: duplicate broker id 1"),
        ("unknown-config", r#"{"version":1,"brokers":[0],"config":{"no.such":1}}"#, "config.no.such: unknown config key"),
        ("unknown-field", r#"{"version":1,"brokers":[0],"colour":"red"}"#, "colour: unknown field"),
        ("unknown-action-field", r#"{"version":1,"brokers":[0],"actions":[{"at_ms":1,"action":"kill_broker","broker":0,"force":true}]}"#, "actions[0].force: unknown field"),
        ("bad-version", r#"{"version":9,"brokers":[0]}"#, "version: unsupported scenario version 9"),
        ("missing-brokers", r#"{"version":1}"#, "brokers: is required"),
        ("rf-too-big", r#"{"version":1,"brokers":[0,1],"topics":[{"name":"t","partitions":1,"replication_factor":3}]}"#, "topics[0].replication_factor: replication factor 3 is larger than the 2 available brokers"),
        ("dup-replica", r#"{"version":1,"brokers":[0,1],"topics":[{"name":"t","assignment":[[0,0]]}]}"#, "topics[0].assignment[0][1]: duplicate replica 0"),
        ("bad-topic-name", r#"{"version":1,"brokers":[0],"topics":[{"name":"a b","partitions":1,"replication_factor":1}]}"#, "topics[0].name: InvalidTopicException: Topic name \"a b\" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'"),
        ("create-dup-replica", r#"{"version":1,"brokers":[0,1],"actions":[{"at_ms":1,"action":"create_topic","name":"t","assignment":[[0,0]]}]}"#, "actions[0].assignment[0][1]: duplicate replica 0 in partition 0"),
        ("create-unknown-broker", r#"{"version":1,"brokers":[0,1],"actions":[{"at_ms":1,"action":"create_topic","name":"t","assignment":[[0,5]]}]}"#, "actions[0].assignment[0][1]: no broker 5 in this cluster"),
        ("add-partitions-unknown-topic", r#"{"version":1,"brokers":[0],"actions":[{"at_ms":1,"action":"add_partitions","topic":"nope","count":3}]}"#, "actions[0].topic: no topic \"nope\" in this scenario"),
        ("reassign-dup-replica", r#"{"version":1,"brokers":[0,1],"topics":[{"name":"t","partitions":1,"replication_factor":1}],"actions":[{"at_ms":1,"action":"reassign_partitions","partitions":[{"topic":"t","partition":0,"replicas":[1,1]}]}]}"#, "actions[0].partitions[0].replicas[1]: duplicate replica 1"),
        ("reassign-unknown-topic", r#"{"version":1,"brokers":[0,1],"actions":[{"at_ms":1,"action":"reassign_partitions","partitions":[{"topic":"x","partition":0,"replicas":[1]}]}]}"#, "actions[0].partitions[0].topic: no topic \"x\" in this scenario"),
        ("elect-bad-type", r#"{"version":1,"brokers":[0],"topics":[{"name":"t","partitions":1,"replication_factor":1}],"actions":[{"at_ms":1,"action":"elect_leaders","election_type":"FASTEST","partitions":[{"topic":"t","partition":0}]}]}"#, "actions[0].election_type: expected PREFERRED or UNCLEAN"),
        ("produce-bad-acks", r#"{"version":1,"brokers":[0],"topics":[{"name":"t","partitions":1,"replication_factor":1}],"actions":[{"at_ms":1,"action":"produce","topic":"t","partition":0,"records":1,"acks":"2"}]}"#, "actions[0].acks: expected 0, 1 or"),
        ("set-config-unknown-key", r#"{"version":1,"brokers":[0],"actions":[{"at_ms":1,"action":"set_config","key":"no.such","value":1}]}"#, "actions[0].key: unknown config key"),
        ("zero-pause", r#"{"version":1,"brokers":[0],"actions":[{"at_ms":1,"action":"pause_broker","broker":0,"duration_ms":0}]}"#, "actions[0].duration_ms: expected a duration"),
    ];
    for (name, text, want) in cases {
        let file = write(&format!("{name}.json"), text);
        let (code, out, err) = kcsim(&["run", file.to_str().unwrap()]);
        assert_eq!(code, 2, "{name}: exit 2 (stderr {err})");
        assert!(out.is_empty(), "{name}: nothing on stdout");
        assert_eq!(err.lines().count(), 1, "{name}: one line: {err}");
        assert!(
            err.contains(file.to_str().unwrap()),
            "{name}: names the file: {err}"
        );
        assert!(
            err.contains(want),
            "{name}: {err:?} should contain {want:?}"
        );
        assert!(!err.contains("panicked"), "{name}");
    }
}

#[test]
fn usage_errors_and_missing_files_exit_2() {
    assert_eq!(kcsim(&[]).0, 2);
    assert_eq!(kcsim(&["fly"]).0, 2);
    assert_eq!(kcsim(&["run"]).0, 2);
    assert_eq!(kcsim(&["run", "/no/such/file.json"]).0, 2);
    assert_eq!(kcsim(&["run", "x.json", "--until-ms", "soon"]).0, 2);
}

#[test]
fn elect_prints_kafkas_outcome_for_each_strategy() {
    // Kafka: PartitionLeaderElectionAlgorithmsTest cases, through the CLI.
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "--strategy",
                "offline",
                "--assignment",
                "2,4",
                "--isr",
                "2,4",
                "--live",
                "4",
            ],
            r#"{"leader":4,"isr":[4],"recipients":[4]}"#,
        ),
        (
            &[
                "--strategy",
                "offline",
                "--assignment",
                "2,4",
                "--isr",
                "2",
                "--live",
                "4",
            ],
            r#"{"leader":null,"isr":[2],"recipients":[4]}"#,
        ),
        (
            &[
                "--strategy",
                "offline",
                "--assignment",
                "2,4",
                "--isr",
                "2",
                "--live",
                "4",
                "--unclean",
            ],
            r#"{"leader":4,"isr":[4],"recipients":[4]}"#,
        ),
        (
            &[
                "--strategy",
                "reassign",
                "--assignment",
                "2,4",
                "--isr",
                "2,4",
                "--live",
                "4",
            ],
            r#"{"leader":4,"isr":[2,4],"recipients":[2,4]}"#,
        ),
        (
            &[
                "--strategy",
                "preferred",
                "--assignment",
                "2,4",
                "--isr",
                "4",
                "--live",
                "2,4",
            ],
            r#"{"leader":null,"isr":[4],"recipients":[2,4]}"#,
        ),
        (
            &[
                "--strategy",
                "controlled-shutdown",
                "--assignment",
                "2,4",
                "--isr",
                "2,4",
                "--live",
                "2,4",
                "--shutting-down",
                "2",
            ],
            r#"{"leader":4,"isr":[4],"recipients":[2,4]}"#,
        ),
    ];
    for (args, want) in cases {
        let mut all = vec!["elect"];
        all.extend_from_slice(args);
        let (code, out, err) = kcsim(&all);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert_eq!(out.trim(), *want, "{args:?}");
    }
    assert_eq!(
        kcsim(&["elect", "--strategy", "fastest", "--assignment", "1"]).0,
        2
    );
    assert_eq!(
        kcsim(&["elect", "--strategy", "offline", "--assignment", "1,x"]).0,
        2
    );
}

#[test]
fn transitions_prints_the_valid_previous_states_in_kafkas_order() {
    // Kafka: PartitionStateMachine / ReplicaStateMachine validPreviousStates (2.4.0).
    let (code, out, _) = kcsim(&["transitions", "--machine", "partition"]);
    assert_eq!(code, 0);
    assert!(out.starts_with(r#"{"NewPartition":["NonExistentPartition"],"OnlinePartition":["NewPartition","OnlinePartition","OfflinePartition"]"#), "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["NonExistentPartition"],
        serde_json::json!(["OfflinePartition"])
    );
    let (_, out, _) = kcsim(&["transitions", "--machine", "replica"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v.as_object().unwrap().len(), 7);
    assert_eq!(
        v["ReplicaDeletionIneligible"],
        serde_json::json!(["OfflineReplica", "ReplicaDeletionStarted"])
    );
    assert_eq!(kcsim(&["transitions", "--machine", "broker"]).0, 2);
}

/// Every built-in lesson, through the binary as a teacher runs it: `cargo
/// xtask test` runs this, so a lesson whose "show me" path stops reaching a
/// checkpoint fails the build.
#[test]
fn lesson_check_plays_every_built_in_lesson_and_every_lesson_file() {
    let (code, out, err) = kcsim(&["lesson", "check", "--builtin"]);
    assert_eq!(code, 0, "{err}");
    for (id, _) in kcsim_core::lesson::builtin::FILES {
        assert!(out.contains(&format!("(built-in) {id}: {id}")), "{out}");
    }
    assert!(out.contains("checkpoint passed at"), "{out}");
    // Every file in core/lessons is built in, and a file on disk is read
    // and played the same way.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/lessons");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().to_string())
        .filter(|p| p.ends_with(".json"))
        .collect();
    files.sort();
    assert_eq!(
        files.len(),
        kcsim_core::lesson::builtin::FILES.len(),
        "every file in core/lessons is built in"
    );
    let one = files
        .iter()
        .find(|f| f.ends_with("controller-race.json"))
        .unwrap();
    let (code, out, err) = kcsim(&["lesson", "check", one]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("controller-race.json: controller-race ("),
        "{out}"
    );
}

#[test]
fn lesson_check_names_the_field_or_the_step_that_fails() {
    let bad = write(
        "bad-lesson.json",
        r#"{"version":1,"id":"x","title":{"en":"T","zh":"题"},"summary":{"en":"S"},"scenario":"default","steps":[]}"#,
    );
    let (code, out, err) = kcsim(&["lesson", "check", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(
        err.starts_with("kcsim: ") && err.contains("bad-lesson.json: summary.zh: is required"),
        "{err}"
    );
    // Kafka: zookeeper.session.timeout.ms: the killed controller's
    // /controller lingers 6 s, so no new epoch within 2 s.
    let slow = write(
        "slow-lesson.json",
        r#"{"version":1,"id":"x","title":{"en":"T","zh":"题"},"summary":{"en":"S","zh":"概"},"scenario":"default",
            "steps":[{"text":{"en":"a","zh":"甲"},"show_me":[{"action":"kill_broker","broker":1}],
                      "checkpoint":{"controller_epoch_at_least":2},"within_ms":2000}]}"#,
    );
    let (code, _, err) = kcsim(&["lesson", "check", slow.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("steps[0].checkpoint: not reached between 3000 ms and 5000 ms"),
        "{err}"
    );
    let (code, _, err) = kcsim(&["lesson", "verify"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unrecognized subcommand 'verify'") && err.contains("Usage: kcsim lesson"),
        "{err}"
    );
}

#[test]
fn every_subcommand_has_help_and_typos_get_suggestions() {
    for sub in [
        "run",
        "elect",
        "transitions",
        "bench",
        "figures",
        "lesson",
        "console",
        "legacy",
        "diagram",
        "completions",
    ] {
        let (code, out, err) = kcsim(&[sub, "--help"]);
        assert_eq!(code, 0, "{sub} --help: {err}");
        assert!(out.contains(&format!("Usage: kcsim {sub}")), "{sub}: {out}");
    }
    let (code, out, err) = kcsim(&["lesson", "check", "--help"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("--builtin"), "{out}");
    // A mistyped subcommand or value is a usage error with a suggestion.
    let (code, out, err) = kcsim(&["rum", "x.json"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.contains("tip: a similar subcommand exists: 'run'"),
        "{err}"
    );
    let (code, _, err) = kcsim(&["elect", "--strategy", "prefered", "--assignment", "1"]);
    assert_eq!(code, 2);
    assert!(err.contains("a similar value exists: 'preferred'"), "{err}");
    let (code, _, err) = kcsim(&["run", "x.json", "--util-ms", "5"]);
    assert_eq!(code, 2);
    assert!(err.contains("--until-ms"), "{err}");
    let (code, _, err) = kcsim(&["bench", "--brokers", "101"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--brokers: brokers: 101 is not from 1 to 100"),
        "{err}"
    );
}

#[test]
fn completions_are_printed_for_each_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let (code, out, err) = kcsim(&["completions", shell]);
        assert_eq!(code, 0, "{shell}: {err}");
        // Every subcommand is offered.
        for sub in ["run", "elect", "lesson", "console", "completions"] {
            assert!(out.contains(sub), "{shell} completions lack {sub}");
        }
    }
    assert_eq!(kcsim(&["completions", "tcsh"]).0, 2);
}

fn console(args: &[&str], stdin: &str) -> (i32, String, String) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_kcsim"))
        .arg("console")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("kcsim runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

// Formats: TopicCommand.scala (2.4.0) for describe and create,
// LeaderElectionCommand.scala (2.4.0) for an unknown partition.
#[test]
fn console_reads_commands_from_stdin_and_answers_each() {
    let (code, out, err) = console(
        &[],
        "kafka-topics.sh --bootstrap-server localhost:9092 --describe --topic audit\n\
         kafka-topics.sh --describe\n\
         kill -9 3\n\
         sleep 10\n\
         kafka-topics.sh --zookeeper localhost:2181 --describe --topic audit --unavailable-partitions\n\
         kafka-topics.sh --zookeeper localhost:2181 --create --topic pay --partitions 1 --replication-factor 1\n\
         kafka-leader-election.sh --bootstrap-server localhost:9092 --election-type preferred --topic nosuch --partition 0\n",
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "Topic: audit\tPartitionCount: 2\tReplicationFactor: 2\tConfigs: \n\
         \tTopic: audit\tPartition: 0\tLeader: 3\tReplicas: 3,2\tIsr: 3,2\n\
         \tTopic: audit\tPartition: 1\tLeader: 0\tReplicas: 0,3\tIsr: 0,3\n\
         Exception in thread \"main\" java.lang.IllegalArgumentException: Only one of --bootstrap-server or --zookeeper must be specified\n\
         Options: --bootstrap-server <v> --zookeeper <v> --list --describe --create --alter --delete --topic <v> --partitions <v> --replication-factor <v> --under-replicated-partitions --unavailable-partitions --under-min-isr-partitions --at-min-isr-partitions --help\n\
         Created topic pay.\n\
         Error completing leader election (PREFERRED) for partition: nosuch-0: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: refused: the partition does not exist\n\
         Exception in thread \"main\" kafka.common.AdminCommandFailedException: 1 replica(s) could not be elected\n"
    );
}

// Kafka: KafkaController.onPartitionReassignment, started by
// ReassignPartitionsCommand.executeAssignment (2.4.0) from a JSON file that
// an earlier line wrote: one console session spans all of stdin.
#[test]
fn console_keeps_its_files_across_lines() {
    let (code, out, err) = console(
        &[],
        "echo '{\"version\":1,\"partitions\":[{\"topic\":\"audit\",\"partition\":1,\"replicas\":[1,2]}]}' > r.json\n\
         kafka-reassign-partitions.sh --zookeeper localhost:2181 --execute --reassignment-json-file r.json\n\
         sleep 30\n\
         kafka-reassign-partitions.sh --zookeeper localhost:2181 --verify --reassignment-json-file r.json\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.ends_with(
            "Successfully started reassignment of partitions.\n\
             Status of partition reassignment: \n\
             Reassignment of partition audit-1 completed successfully\n"
        ),
        "{out}"
    );
}

#[test]
fn console_refuses_a_missing_scenario_file() {
    let (code, _, err) = console(&["/nonexistent/s.json"], "");
    assert_eq!(code, 2);
    assert!(
        err.starts_with("kcsim: /nonexistent/s.json: cannot read"),
        "{err}"
    );
}

#[test]
fn legacy_counts_the_historical_design_beside_the_controller() {
    // Kafka (pre-0.8 design, cwiki "Kafka Replication Design V2",
    // "Differences between V1 and V2"): without a controller every broker
    // watches ZooKeeper itself, so a topic's creation and a broker's death
    // wake many brokers where KafkaController.onBrokerFailure is woken once.
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/controller-failover.json"
    );
    let (code, out, err) = kcsim(&["legacy", file, "--json"]);
    assert_eq!(code, 0, "{err}");
    let c: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let n = |design: &str| c[design]["watch_notifications"].as_u64().unwrap();
    assert!(n("legacy") > n("controller"), "{out}");
    let (code, table, err) = kcsim(&["legacy", file]);
    assert_eq!(code, 0, "{err}");
    assert!(
        table.contains("| total | before the controller | "),
        "{table}"
    );
    assert!(
        table.contains(&format!(
            "| total | before the controller | {} |",
            n("legacy")
        )),
        "{table}"
    );
    let bad = write("legacy-bad.json", r#"{"version":1,"brokers":[]}"#);
    let (code, out, err) = kcsim(&["legacy", bad.to_str().unwrap()]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.starts_with("kcsim: ") && err.contains("legacy-bad.json"),
        "{err}"
    );
}

#[test]
fn diagram_writes_the_pages_svg_of_a_window() {
    // Kafka: KafkaController.onControllerFailover / ReplicaManager.becomeLeaderOrFollower:
    // in the zombie scenario the new controller's requests carry epoch 2 and
    // the old controller's LeaderAndIsr with epoch 1 is rejected
    // (STALE_CONTROLLER_EPOCH), which the diagram draws as rejected.
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/zombie-controller.json"
    );
    let (code, svg, err) = kcsim(&["diagram", file, "--from", "15000", "--to", "25000"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("controller epoch 2"), "{svg}");
    assert!(svg.contains("STALE_CONTROLLER_EPOCH"), "{svg}");
    assert!(svg.contains("<g class=\"arrow request rejected\""), "{svg}");
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("cli")
        .join("z.svg");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let (code, stdout, err) = kcsim(&[
        "diagram",
        file,
        "--from",
        "15000",
        "--to",
        "25000",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!((code, stdout.as_str()), (0, ""), "{err}");
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        svg,
        "the same bytes to a file"
    );
    let (code, _, err) = kcsim(&["diagram", file, "--from", "5", "--to", "4"]);
    assert_eq!(code, 2);
    assert_eq!(err.trim(), "kcsim: --from 5 ms is after --to 4 ms");
    assert_eq!(kcsim(&["diagram", file]).0, 2, "--to is required");
}
