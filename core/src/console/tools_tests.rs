//! The console's session files, `kafka-reassign-partitions.sh`,
//! `kafka-configs.sh --delete-config` and brokers' `--describe`, and
//! `zookeeper-shell.sh stat` / `create`: golden outputs against the format
//! strings of Kafka 2.4.0 and ZooKeeper 3.5.6 (each test names the file and
//! the code it mirrors), and malformed forms that change nothing.

use super::*;
use crate::ids::BrokerId;
use crate::scenario::builtin;

/// The default cluster where the page opens it (3 s).
fn cluster() -> Timeline {
    let mut t = Timeline::new(&builtin::default_cluster());
    t.seek(SimTime(3_000));
    t
}

/// What must not change when a command is refused: the recorded actions,
/// the time and the whole view.
fn state(t: &Timeline) -> (Vec<(SimTime, Action)>, SimTime, ClusterView) {
    (t.actions().to_vec(), t.now(), ClusterView::of(t.sim()))
}

/// The last action recorded at the current time (the one a command applied).
fn applied_now(t: &Timeline) -> Option<Action> {
    t.actions()
        .iter()
        .rev()
        .find(|(at, _)| *at == t.now())
        .map(|(_, a)| a.clone())
}

fn run(s: &mut Session, t: &mut Timeline, line: &str) -> Answer {
    s.execute(t, line)
}

fn ok(s: &mut Session, t: &mut Timeline, line: &str) -> String {
    let a = s.execute(t, line);
    assert!(a.ok, "{line}: {a:?}");
    a.text
}

const RP: &str = "kafka-reassign-partitions.sh --zookeeper localhost:2181";
const ZS: &str = "zookeeper-shell.sh localhost:2181";

// ----- files ------------------------------------------------------------

#[test]
fn session_files_echo_cat_ls_rm() {
    let mut t = cluster();
    let mut s = Session::default();
    let before = state(&t);
    assert_eq!(ok(&mut s, &mut t, r#"echo '{"a": 1}' > a.json"#), "");
    assert_eq!(ok(&mut s, &mut t, "echo more >>a.json"), "");
    assert_eq!(ok(&mut s, &mut t, "cat a.json"), "{\"a\": 1}\nmore\n");
    assert_eq!(ok(&mut s, &mut t, "echo x >b.json"), "");
    assert_eq!(ok(&mut s, &mut t, "ls"), "a.json\nb.json\n");
    assert_eq!(ok(&mut s, &mut t, "echo hello  world"), "hello world\n");
    let a = run(&mut s, &mut t, "cat nope.json");
    assert_eq!(
        (a.ok, a.text.as_str()),
        (false, "cat: nope.json: No such file or directory\n")
    );
    assert_eq!(ok(&mut s, &mut t, "rm b.json"), "");
    assert_eq!(ok(&mut s, &mut t, "ls"), "a.json\n");
    assert!(!run(&mut s, &mut t, "rm b.json").ok);
    assert!(!run(&mut s, &mut t, "echo x >").ok);
    // Files are the session's, not the cluster's: nothing recorded.
    assert_eq!(state(&t), before);
    assert_eq!(s.files().len(), 1);
    // A fresh session (the free `execute`) has none.
    assert!(!execute(&mut t, "cat a.json").ok);
}

#[test]
fn session_files_are_size_limited() {
    let mut t = cluster();
    let mut s = Session::default();
    for i in 0..files::MAX_FILES {
        assert!(run(&mut s, &mut t, &format!("echo {i} > f{i}")).ok);
    }
    let a = run(&mut s, &mut t, "echo x > one-too-many");
    assert!(!a.ok && a.text.contains("No space left"), "{a:?}");
    // Overwriting an existing file is fine.
    assert!(run(&mut s, &mut t, "echo y > f0").ok);
    let big = "x".repeat(files::MAX_FILE_BYTES);
    let a = run(&mut s, &mut t, &format!("echo {big} > f1"));
    assert!(!a.ok && a.text.contains("File too large"), "{a:?}");
    assert_eq!(s.files().get("f1").map(String::as_str), Some("1\n"));
    let long = "n".repeat(files::MAX_NAME_BYTES + 1);
    assert!(!run(&mut s, &mut t, &format!("echo x > {long}")).ok);
}

// ----- kafka-reassign-partitions.sh ---------------------------------------

// Format: core/src/main/scala/kafka/admin/ReassignPartitionsCommand.scala
// (2.4.0), generateAssignment's two println calls and
// formatAsReassignmentJson (Jackson's compact JSON, "version" first, then
// topic, partition, replicas, log_dirs).
// Kafka: AdminUtils.assignReplicasToBrokers on the listed brokers that are
// registered (getBrokerMetadatas), with each topic's partition count and
// replication factor.
#[test]
fn generate_proposes_a_deterministic_placement_on_the_listed_brokers() {
    let mut t = cluster();
    let mut s = Session::default();
    let before = state(&t);
    ok(
        &mut s,
        &mut t,
        r#"echo '{"topics":[{"topic":"audit"}],"version":1}' > topics.json"#,
    );
    let line =
        format!("{RP} --generate --topics-to-move-json-file topics.json --broker-list 0,1,2");
    let out = ok(&mut s, &mut t, &line);
    assert_eq!(
        out,
        "Current partition replica assignment\n\
         {\"version\":1,\"partitions\":[{\"topic\":\"audit\",\"partition\":0,\"replicas\":[3,2],\"log_dirs\":[\"any\",\"any\"]},{\"topic\":\"audit\",\"partition\":1,\"replicas\":[0,3],\"log_dirs\":[\"any\",\"any\"]}]}\n\
         \n\
         Proposed partition reassignment configuration\n\
         {\"version\":1,\"partitions\":[{\"topic\":\"audit\",\"partition\":0,\"replicas\":[1,2],\"log_dirs\":[\"any\",\"any\"]},{\"topic\":\"audit\",\"partition\":1,\"replicas\":[2,0],\"log_dirs\":[\"any\",\"any\"]}]}\n"
    );
    // The same proposal every time, and --generate changes nothing.
    assert_eq!(ok(&mut s, &mut t, &line), out);
    assert_eq!(state(&t), before);
    // The proposal for both topics: every replica on a listed broker, each
    // topic's replication factor kept, no broker twice in a partition.
    ok(
        &mut s,
        &mut t,
        r#"echo '{"topics":[{"topic":"orders"},{"topic":"audit"},{"topic":"gone"}]}' > both.json"#,
    );
    let out = ok(
        &mut s,
        &mut t,
        &format!("{RP} --generate --topics-to-move-json-file both.json --broker-list 1,2,3"),
    );
    let proposed = out.lines().last().unwrap_or_default();
    let v: serde_json::Value = serde_json::from_str(proposed).unwrap();
    let parts = v["partitions"].as_array().unwrap();
    assert_eq!(parts.len(), 6, "audit's 2 and orders' 4; gone is skipped");
    for p in parts {
        let r: Vec<u64> = p["replicas"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_u64().unwrap())
            .collect();
        let rf = if p["topic"] == "orders" { 3 } else { 2 };
        assert_eq!(r.len(), rf, "{p}");
        assert!(r.iter().all(|b| (1..=3).contains(b)), "{p}");
        let mut d = r.clone();
        d.sort_unstable();
        d.dedup();
        assert_eq!(d.len(), r.len(), "{p}");
    }
}

// Kafka: ReassignPartitionsCommand.generateAssignment (2.4.0) and main's
// "Partitions reassignment failed due to " + the exception's message.
#[test]
fn generate_errors_in_kafkas_words_change_nothing() {
    let mut t = cluster();
    let mut s = Session::default();
    ok(
        &mut s,
        &mut t,
        r#"echo '{"topics":[{"topic":"orders"}]}' > o.json"#,
    );
    ok(
        &mut s,
        &mut t,
        r#"echo '{"topics":[{"topic":"a"},{"topic":"a"}]}' > d.json"#,
    );
    ok(&mut s, &mut t, "echo 'not json' > bad.json");
    ok(
        &mut s,
        &mut t,
        r#"echo '{"version":2,"topics":[]}' > v2.json"#,
    );
    let before = state(&t);
    let gen = |file: &str, list: &str| {
        format!("{RP} --generate --topics-to-move-json-file {file} --broker-list {list}")
    };
    let cases = [
        (
            gen("o.json", "1,1,2"),
            "Partitions reassignment failed due to Broker list contains duplicate entries: 1\nkafka.common.AdminCommandFailedException: Broker list contains duplicate entries: 1\n",
        ),
        (
            gen("o.json", "1,x"),
            "Partitions reassignment failed due to For input string: \"x\"\njava.lang.NumberFormatException: For input string: \"x\"\n",
        ),
        (
            gen("missing.json", "1,2,3"),
            "Partitions reassignment failed due to missing.json\njava.nio.file.NoSuchFileException: missing.json\n",
        ),
        (
            gen("bad.json", "1,2,3"),
            "Partitions reassignment failed due to The input string is not a valid JSON\nkafka.admin.AdminOperationException: The input string is not a valid JSON\n",
        ),
        (
            gen("v2.json", "1,2,3"),
            "Partitions reassignment failed due to Not supported version field value 2\nkafka.admin.AdminOperationException: Not supported version field value 2\n",
        ),
        (
            gen("d.json", "1,2,3"),
            "Partitions reassignment failed due to List of topics to reassign contains duplicate entries: a\nkafka.common.AdminCommandFailedException: List of topics to reassign contains duplicate entries: a\n",
        ),
        // orders has 3 replicas; broker 9 is not registered, so 2 remain.
        (
            gen("o.json", "1,2,9"),
            "Partitions reassignment failed due to Replication factor: 3 larger than available brokers: 2.\norg.apache.kafka.common.errors.InvalidReplicationFactorException: Replication factor: 3 larger than available brokers: 2.\n",
        ),
    ];
    for (line, want) in cases {
        let a = run(&mut s, &mut t, &line);
        assert_eq!((a.ok, a.text.as_str()), (false, want), "{line}");
        assert_eq!(state(&t), before, "{line}");
    }
}

// Kafka: ReassignPartitionsCommand.validateAndParseArgs (2.4.0), in its order.
#[test]
fn reassign_usage_errors_as_validate_and_parse_args() {
    let mut t = cluster();
    let mut s = Session::default();
    let before = state(&t);
    let first = |a: Answer| {
        assert!(!a.ok, "{a:?}");
        a.text.lines().next().unwrap_or_default().to_string()
    };
    let cases = [
        (
            format!("{RP} --execute --verify --reassignment-json-file r"),
            "Command must include exactly one action: --generate, --execute or --verify",
        ),
        (
            "kafka-reassign-partitions.sh --execute --reassignment-json-file r".to_string(),
            "Missing required argument \"[zookeeper]\"",
        ),
        (
            format!("{RP} --verify"),
            "If --verify option is used, command must include --reassignment-json-file that was used during the --execute option",
        ),
        (
            format!("{RP} --generate --broker-list 1"),
            "If --generate option is used, command must include both --topics-to-move-json-file and --broker-list options",
        ),
        (
            format!("{RP} --execute"),
            "If --execute option is used, command must include --reassignment-json-file that was output during the --generate option",
        ),
        (
            format!("{RP} --verify --reassignment-json-file r --broker-list 1"),
            "Option \"[verify]\" can't be used with option \"[broker-list]\"",
        ),
        (
            format!("{RP} --execute --reassignment-json-file r --broker-list 1"),
            "Option \"[execute]\" can't be used with option \"[broker-list]\"",
        ),
        (
            format!("{RP} --generate --topics-to-move-json-file t --broker-list 1 --throttle 5"),
            "Option \"[generate]\" can't be used with option \"[throttle]\"",
        ),
        (format!("{RP} --frob"), "frob is not a recognized option"),
        (
            "kafka-reassign-partitions.sh".to_string(),
            "This tool helps to moves topic partitions between replicas.",
        ),
    ];
    for (line, want) in cases {
        assert_eq!(first(run(&mut s, &mut t, &line)), want, "{line}");
    }
    assert_eq!(state(&t), before);
}

// Format: ReassignPartitionsCommand.executeAssignment and
// printCurrentAssignment (2.4.0).
// Kafka: KafkaController.onPartitionReassignment: the controller adds the
// target replicas, waits for them to join the ISR, moves the leader and
// drops the old replicas; the tool's --verify then reports the partition
// completed (checkIfPartitionReassignmentSucceeded).
#[test]
fn execute_through_the_console_lets_a_reassignment_finish() {
    let mut t = cluster();
    let mut s = Session::default();
    ok(
        &mut s,
        &mut t,
        r#"echo '{"version":1,"partitions":[{"topic":"audit","partition":0,"replicas":[1,2]}]}' > r.json"#,
    );
    let out = ok(
        &mut s,
        &mut t,
        &format!("{RP} --execute --reassignment-json-file r.json"),
    );
    assert_eq!(
        out,
        "Current partition replica assignment\n\
         \n\
         {\"version\":1,\"partitions\":[{\"topic\":\"audit\",\"partition\":0,\"replicas\":[3,2],\"log_dirs\":[\"any\",\"any\"]},{\"topic\":\"audit\",\"partition\":1,\"replicas\":[0,3],\"log_dirs\":[\"any\",\"any\"]}]}\n\
         \n\
         Save this to use as the --reassignment-json-file option during rollback\n\
         Successfully started reassignment of partitions.\n"
    );
    // The same action as the page's form.
    assert_eq!(
        applied_now(&t),
        Some(Action::ReassignPartitions {
            partitions: vec![crate::action::PartitionTarget {
                topic: "audit".into(),
                partition: 0,
                replicas: vec![BrokerId(1), BrokerId(2)],
            }],
        })
    );
    // Kafka: executeAssignment prints this, and starts nothing, while
    // /admin/reassign_partitions exists.
    let n = t.actions().len();
    assert_eq!(
        ok(
            &mut s,
            &mut t,
            &format!("{RP} --execute --reassignment-json-file r.json")
        ),
        "There is an existing assignment running.\n"
    );
    assert_eq!(t.actions().len(), n);
    let verify = format!("{RP} --verify --reassignment-json-file r.json");
    assert_eq!(
        ok(&mut s, &mut t, &verify),
        "Status of partition reassignment: \nReassignment of partition audit-0 is still in progress\n"
    );
    ok(&mut s, &mut t, "sleep 30");
    assert_eq!(
        ok(&mut s, &mut t, &verify),
        "Status of partition reassignment: \nReassignment of partition audit-0 completed successfully\n"
    );
    let v = ClusterView::of(t.sim());
    let p = v
        .partitions
        .iter()
        .find(|p| p.overview.tp == crate::ids::TopicPartition::new("audit", 0))
        .unwrap();
    assert_eq!(p.overview.replicas, vec![BrokerId(1), BrokerId(2)]);
    assert!(p.overview.leader.is_some_and(|l| [1, 2].contains(&l.0)));
    // A target the cluster does not hold (someone else's plan): failed.
    ok(
        &mut s,
        &mut t,
        r#"echo '{"partitions":[{"topic":"audit","partition":1,"replicas":[2,1]}]}' > other.json"#,
    );
    assert_eq!(
        ok(
            &mut s,
            &mut t,
            &format!("{RP} --verify --reassignment-json-file other.json")
        ),
        "Status of partition reassignment: \nReassignment of partition audit-1 failed\n"
    );
}

// Kafka: ReassignPartitionsCommand.parseAndValidate and
// parsePartitionReassignmentData (2.4.0): each refusal's message; the
// cluster is unchanged.
#[test]
fn execute_refusals_in_kafkas_words_change_nothing() {
    let mut t = cluster();
    let mut s = Session::default();
    let files = [
        ("empty.json", r#"{"version":1,"partitions":[]}"#),
        (
            "norep.json",
            r#"{"partitions":[{"topic":"audit","partition":0,"replicas":[]}]}"#,
        ),
        (
            "dupp.json",
            r#"{"partitions":[{"topic":"audit","partition":0,"replicas":[1,2]},{"topic":"audit","partition":0,"replicas":[2,1]}]}"#,
        ),
        (
            "dupr.json",
            r#"{"partitions":[{"topic":"audit","partition":0,"replicas":[1,1]}]}"#,
        ),
        (
            "nop.json",
            r#"{"partitions":[{"topic":"audit","partition":9,"replicas":[1,2]}]}"#,
        ),
        (
            "notopic.json",
            r#"{"partitions":[{"topic":"nope","partition":0,"replicas":[1]}]}"#,
        ),
        (
            "nob.json",
            r#"{"partitions":[{"topic":"audit","partition":0,"replicas":[1,7]}]}"#,
        ),
        (
            "nofield.json",
            r#"{"partitions":[{"topic":"audit","replicas":[1]}]}"#,
        ),
        (
            "type.json",
            r#"{"partitions":[{"topic":"audit","partition":"0","replicas":[1]}]}"#,
        ),
        (
            "dirs.json",
            r#"{"partitions":[{"topic":"audit","partition":0,"replicas":[1,2],"log_dirs":["any"]}]}"#,
        ),
        ("garbage.json", "{"),
    ];
    for (name, text) in files {
        ok(&mut s, &mut t, &format!("echo '{text}' > {name}"));
    }
    let before = state(&t);
    let failed = |m: &str| {
        format!("Partitions reassignment failed due to {m}\nkafka.common.AdminCommandFailedException: {m}\n")
    };
    let json = |m: &str| {
        format!("Partitions reassignment failed due to {m}\ncom.fasterxml.jackson.databind.JsonMappingException: {m}\n")
    };
    let cases = [
        ("empty.json", failed("Partition reassignment data file is empty")),
        ("norep.json", failed("Partition replica list cannot be empty")),
        (
            "dupp.json",
            failed("Partition reassignment contains duplicate topic partitions: audit-0"),
        ),
        (
            "dupr.json",
            failed("Partition replica lists may not contain duplicate entries: audit-0 contains multiple entries for 1"),
        ),
        (
            "nop.json",
            failed("The proposed assignment contains non-existent partitions: ListBuffer(audit-9)"),
        ),
        (
            "notopic.json",
            failed("The proposed assignment contains non-existent partitions: ListBuffer(nope-0)"),
        ),
        (
            "nob.json",
            failed("The proposed assignment contains non-existent brokerIDs: 7"),
        ),
        ("nofield.json", json("No such field exists: `partition`")),
        ("type.json", json("Expected `Int` value, received \"0\"")),
        (
            "dirs.json",
            failed("Size of replicas list Vector(1, 2) is different from size of log dirs list Vector(any) for partition audit-0"),
        ),
        (
            "garbage.json",
            "Partitions reassignment failed due to The input string is not a valid JSON\nkafka.admin.AdminOperationException: The input string is not a valid JSON\n".to_string(),
        ),
        (
            "absent.json",
            "Partitions reassignment failed due to absent.json\njava.nio.file.NoSuchFileException: absent.json\n".to_string(),
        ),
    ];
    for (file, want) in cases {
        let line = format!("{RP} --execute --reassignment-json-file {file}");
        let a = run(&mut s, &mut t, &line);
        assert_eq!((a.ok, a.text.as_str()), (false, want.as_str()), "{file}");
        assert_eq!(state(&t), before, "{file}");
    }
    // --verify prints its header before it reads the file.
    let a = run(
        &mut s,
        &mut t,
        &format!("{RP} --verify --reassignment-json-file garbage.json"),
    );
    assert!(
        !a.ok && a.text.starts_with("Status of partition reassignment: \nPartitions reassignment failed due to The input string is not a valid JSON\n"),
        "{a:?}"
    );
    assert_eq!(state(&t), before);
}

// Kafka: LeaderElectionCommand.run (2.4.0) reads --path-to-json-file with
// Utils.readFileAsString; a missing file is the JVM's uncaught exception.
#[test]
fn leader_election_reads_its_json_file_from_the_session() {
    let mut t = cluster();
    let mut s = Session::default();
    let le = "kafka-leader-election.sh --bootstrap-server localhost:9092 --election-type preferred";
    ok(
        &mut s,
        &mut t,
        r#"echo '{"partitions":[{"topic":"audit","partition":1}]}' > e.json"#,
    );
    let n = t.actions().len();
    ok(&mut s, &mut t, &format!("{le} --path-to-json-file e.json"));
    assert_eq!(
        applied_now(&t),
        Some(Action::ElectLeaders {
            election_type: crate::controller::event::ElectionType::Preferred,
            partitions: vec![crate::ids::TopicPartition::new("audit", 1)],
        })
    );
    assert_eq!(t.actions().len(), n + 1);
    let before = state(&t);
    let a = run(
        &mut s,
        &mut t,
        &format!("{le} --path-to-json-file nope.json"),
    );
    assert_eq!(
        (a.ok, a.text.as_str()),
        (
            false,
            "Exception in thread \"main\" java.nio.file.NoSuchFileException: nope.json\n"
        )
    );
    assert_eq!(state(&t), before);
}

// ----- kafka-configs.sh ---------------------------------------------------

const CT: &str =
    "kafka-configs.sh --zookeeper localhost:2181 --entity-type topics --entity-name audit";
const CB: &str = "kafka-configs.sh --bootstrap-server localhost:9092 --entity-type brokers";

// Kafka: ConfigCommand.alterConfig (2.4.0): `configs ++= added;
// deleted.foreach(configs.remove)`, a key the topic does not override
// refused as `Invalid config(s): k`; AdminZkClient.changeTopicConfig
// rewrites /config/topics/<t> and notifies the brokers.
#[test]
fn delete_config_removes_a_topic_override() {
    let mut t = cluster();
    let mut s = Session::default();
    ok(
        &mut s,
        &mut t,
        &format!(
            "{CT} --alter --add-config min.insync.replicas=2,unclean.leader.election.enable=true"
        ),
    );
    assert_eq!(
        ok(&mut s, &mut t, &format!("{CT} --describe")),
        "Configs for topic 'audit' are min.insync.replicas=2,unclean.leader.election.enable=true\n"
    );
    assert_eq!(
        ok(
            &mut s,
            &mut t,
            &format!("{CT} --alter --delete-config min.insync.replicas")
        ),
        "Completed Updating config for entity: topic 'audit'.\n"
    );
    assert_eq!(
        applied_now(&t),
        Some(Action::DeleteConfig {
            key: "min.insync.replicas".into(),
            topic: Some("audit".into())
        })
    );
    assert_eq!(
        ok(&mut s, &mut t, &format!("{CT} --describe")),
        "Configs for topic 'audit' are unclean.leader.election.enable=true\n"
    );
    let z = ClusterView::of(t.sim());
    let data = &z.znode("/config/topics/audit").unwrap().data;
    assert!(!data.contains("min.insync.replicas"), "{data}");
    // Every topic with an override, without --entity-name.
    assert_eq!(
        ok(
            &mut s,
            &mut t,
            "kafka-configs.sh --zookeeper localhost:2181 --entity-type topics --describe"
        ),
        "Configs for topic 'audit' are unclean.leader.election.enable=true\n"
    );
    let before = state(&t);
    let a = run(
        &mut s,
        &mut t,
        &format!("{CT} --alter --delete-config min.insync.replicas"),
    );
    assert_eq!(
        (a.ok, a.text.as_str()),
        (false, "Invalid config(s): min.insync.replicas\n")
    );
    assert_eq!(state(&t), before);
}

// Format: ConfigCommand.describeBrokerConfig (2.4.0): the header, then
// `  k=v sensitive=false synonyms={SOURCE:k=v, …}` for the entries whose
// source is DYNAMIC_DEFAULT_BROKER_CONFIG (DYNAMIC_BROKER_CONFIG for one
// broker); describeConfig through ZooKeeper prints Entity.toString
// (`default brokers`, `brokers '1'`).
// Kafka: alterBrokerConfig: deleting the dynamic default brings back the
// broker's static value (DynamicBrokerConfig).
#[test]
fn broker_default_describe_and_delete() {
    let mut t = cluster();
    let mut s = Session::default();
    assert_eq!(
        ok(&mut s, &mut t, &format!("{CB} --entity-default --describe")),
        "Default config for brokers in the cluster are:\n"
    );
    ok(
        &mut s,
        &mut t,
        &format!("{CB} --entity-default --alter --add-config unclean.leader.election.enable=true"),
    );
    assert!(t.sim().config().unclean_leader_election_enable);
    assert_eq!(
        ok(&mut s, &mut t, &format!("{CB} --entity-default --describe")),
        "Default config for brokers in the cluster are:\n  unclean.leader.election.enable=true sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:unclean.leader.election.enable=true, DEFAULT_CONFIG:unclean.leader.election.enable=false}\n"
    );
    assert_eq!(
        ok(
            &mut s,
            &mut t,
            "kafka-configs.sh --zookeeper localhost:2181 --entity-type brokers --entity-default --describe"
        ),
        "Configs for default brokers are unclean.leader.election.enable=true\n"
    );
    assert_eq!(
        ok(&mut s, &mut t, &format!("{CB} --entity-name 1 --describe")),
        "Configs for broker 1 are:\n"
    );
    assert_eq!(
        ok(
            &mut s,
            &mut t,
            &format!(
                "{CB} --entity-default --alter --delete-config unclean.leader.election.enable"
            )
        ),
        "Completed updating default config for brokers in the cluster,\n"
    );
    assert!(!t.sim().config().unclean_leader_election_enable);
    assert!(t.sim().dynamic_defaults().is_empty());
    let before = state(&t);
    for line in [
        format!("{CB} --entity-default --alter --delete-config unclean.leader.election.enable"),
        format!("{CB} --entity-default --alter --delete-config min.insync.replicas,frob"),
        format!("{CB} --entity-name 9 --describe"),
        format!("{CB} --entity-name x --describe"),
    ] {
        let a = run(&mut s, &mut t, &line);
        assert!(!a.ok, "{line}: {a:?}");
        assert_eq!(state(&t), before, "{line}");
    }
    assert_eq!(
        run(
            &mut s,
            &mut t,
            &format!("{CB} --entity-default --alter --delete-config min.insync.replicas,frob")
        )
        .text,
        "Invalid config(s): min.insync.replicas,frob\n"
    );
}

// Kafka: DynamicBrokerConfig: removing a dynamic default falls back to the
// static value from server.properties, not Kafka's default.
#[test]
fn delete_config_of_the_default_returns_to_the_starting_value() {
    let text = r#"{"version":1,"seed":1,"brokers":[0,1,2],
        "config":{"min.insync.replicas":2},
        "topics":[{"name":"t","partitions":1,"replication_factor":3}],
        "actions":[{"at_ms":3000,"action":"set_config","key":"min.insync.replicas","value":"3"},
                   {"at_ms":4000,"action":"delete_config","key":"min.insync.replicas"},
                   {"at_ms":5000,"action":"delete_config","key":"min.insync.replicas"},
                   {"at_ms":6000,"action":"delete_config","key":"unclean.leader.election.enable","topic":"t"}]}"#;
    let sc = crate::scenario::Scenario::parse(text).unwrap();
    let mut t = Timeline::new(&sc);
    t.seek(SimTime(3_500));
    assert_eq!(t.sim().config().min_insync_replicas, 3);
    let mut s = Session::default();
    assert!(ok(&mut s, &mut t, &format!("{CB} --entity-default --describe")).contains(
        "synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:min.insync.replicas=3, STATIC_BROKER_CONFIG:min.insync.replicas=2, DEFAULT_CONFIG:min.insync.replicas=1}"
    ));
    t.seek(SimTime(4_500));
    assert_eq!(t.sim().config().min_insync_replicas, 2);
    t.seek(SimTime(6_500));
    // Nothing left to delete: both later deletions are refused.
    let refused = crate::trace::refusal(t.trace(), 5_000, "delete_config");
    assert!(
        refused.is_some_and(|r| r
            .details()
            .contains("Invalid config(s): min.insync.replicas")),
        "{refused:?}"
    );
    assert!(crate::trace::refusal(t.trace(), 6_000, "delete_config").is_some());
    // Scenario files check the new actions' fields.
    for (bad, field) in [
        (
            r#"{"at_ms":1,"action":"delete_config","key":"sim.zk.latency.ms"}"#,
            "actions[0].key",
        ),
        (
            r#"{"at_ms":1,"action":"delete_config","key":"min.insync.replicas","topic":"x"}"#,
            "actions[0].topic",
        ),
        (
            r#"{"at_ms":1,"action":"create_znode","path":"a","data":""}"#,
            "actions[0].path",
        ),
        (
            r#"{"at_ms":1,"action":"create_znode","path":"/a","data":"","ephemeral":1}"#,
            "actions[0].ephemeral",
        ),
        (
            r#"{"at_ms":1,"action":"create_znode","path":"/a"}"#,
            "actions[0].data",
        ),
    ] {
        let text = format!(
            r#"{{"version":1,"brokers":[0],"topics":[{{"name":"t","partitions":1,"replication_factor":1}}],"actions":[{bad}]}}"#
        );
        let e = crate::scenario::Scenario::parse(&text).unwrap_err();
        assert_eq!(e.field, field, "{bad}: {e}");
    }
}

// ----- zookeeper-shell.sh -------------------------------------------------

// Format: ZooKeeper 3.5.6 cli/StatPrinter.print (the fields, zxids in hex,
// times as java.util.Date.toString), cli/StatCommand.
#[test]
fn stat_prints_zookeepers_stat() {
    let mut t = cluster();
    let mut s = Session::default();
    let zk = t.sim().zk();
    let n = zk.node("/controller").unwrap().clone();
    let out = ok(&mut s, &mut t, &format!("{ZS} stat /controller"));
    let owner = n.stat.ephemeral_owner().map(|o| o.0).unwrap_or(0);
    assert!(owner > 0, "/controller is ephemeral");
    let time = java_date_for(u64::from(n.stat.ctime_ms));
    assert_eq!(
        out,
        format!(
            "cZxid = 0x{cz:x}\nctime = {time}\nmZxid = 0x{cz:x}\nmtime = {time}\npZxid = 0x{cz:x}\ncversion = 0\ndataVersion = 0\naclVersion = 0\nephemeralOwner = 0x{owner:x}\ndataLength = {len}\nnumChildren = 0\n",
            cz = n.stat.czxid,
            len = n.data.len()
        )
    );
    // The broker that won the race registered around 1 s of virtual time.
    assert!(
        time.starts_with("Thu Jan 01 00:00:0") && time.ends_with(" UTC 1970"),
        "{time}"
    );
    let ids = ok(&mut s, &mut t, &format!("{ZS} stat /brokers/ids"));
    assert!(ids.ends_with("numChildren = 4\n"), "{ids}");
    assert!(ids.contains("cversion = 4\n"), "{ids}");
    // `get -s` prints the data, then the stat; `ls -s` the stat right after `]`.
    let get = ok(&mut s, &mut t, &format!("{ZS} get -s /controller_epoch"));
    assert!(get.starts_with("1\ncZxid = 0x"), "{get}");
    let ls = ok(&mut s, &mut t, &format!("{ZS} ls -s /brokers"));
    assert!(ls.starts_with("[ids, seqid, topics]cZxid = 0x"), "{ls}");
    assert!(ls.ends_with("numChildren = 3\n\n"), "{ls}");
    assert_eq!(
        ok(&mut s, &mut t, &format!("{ZS} stat /nope")),
        "Node does not exist: /nope\n"
    );
}

fn java_date_for(ms: u64) -> String {
    zk_shell::java_date(ms)
}

#[test]
fn java_date_matches_javas_date_to_string_in_utc() {
    // Values checked against java.util.Date.toString with TZ=UTC.
    assert_eq!(zk_shell::java_date(0), "Thu Jan 01 00:00:00 UTC 1970");
    assert_eq!(
        zk_shell::java_date(3_723_000),
        "Thu Jan 01 01:02:03 UTC 1970"
    );
    assert_eq!(
        zk_shell::java_date(86_400_000 * 59),
        "Sun Mar 01 00:00:00 UTC 1970"
    );
    assert_eq!(
        zk_shell::java_date(1_577_836_800_000),
        "Wed Jan 01 00:00:00 UTC 2020"
    );
}

// Kafka: the controller watches what the shell changes; ZooKeeper 3.5.6's
// CreateCommand prints `Created PATH` (a sequential node's name with its
// 10-digit counter); an ephemeral node belongs to the shell's session,
// which ends as the one-command shell exits (the node goes with it).
#[test]
fn create_goes_through_create_znode() {
    let mut t = cluster();
    let mut s = Session::default();
    assert_eq!(
        ok(&mut s, &mut t, &format!("{ZS} create /kcsim hello")),
        "Created /kcsim\n"
    );
    assert_eq!(
        applied_now(&t),
        Some(Action::CreateZnode {
            path: "/kcsim".into(),
            data: "hello".into(),
            ephemeral: false,
            sequential: false
        })
    );
    assert_eq!(ok(&mut s, &mut t, &format!("{ZS} get /kcsim")), "hello\n");
    assert_eq!(
        ok(&mut s, &mut t, &format!("{ZS} create -s /kcsim/q- a")),
        "Created /kcsim/q-0000000000\n"
    );
    assert_eq!(
        ok(&mut s, &mut t, &format!("{ZS} create -s /kcsim/q- b")),
        "Created /kcsim/q-0000000001\n"
    );
    assert_eq!(
        ok(&mut s, &mut t, &format!("{ZS} create -e /kcsim/gone x")),
        "Created /kcsim/gone\n"
    );
    assert_eq!(
        ok(&mut s, &mut t, &format!("{ZS} ls /kcsim")),
        "[q-0000000000, q-0000000001]\n"
    );
    // The ephemeral node's create and delete both counted in the parent.
    let st = ok(&mut s, &mut t, &format!("{ZS} stat /kcsim"));
    assert!(
        st.contains("cversion = 4\n") && st.ends_with("numChildren = 2\n"),
        "{st}"
    );
    // `delete -v` checks the version.
    assert_eq!(
        ok(
            &mut s,
            &mut t,
            &format!("{ZS} delete -v 3 /kcsim/q-0000000000")
        ),
        "version No is not valid : /kcsim/q-0000000000\n"
    );
    assert_eq!(
        ok(
            &mut s,
            &mut t,
            &format!("{ZS} delete -v 0 /kcsim/q-0000000000")
        ),
        ""
    );
}

// ZooKeeper 3.5.6: CliWrapperException's lines for KeeperExceptions,
// PathUtils.validatePath's messages, ZooKeeperMain.usage and
// `Command not found`, each command's getUsageStr. None changes anything.
#[test]
fn zookeeper_shell_errors_change_nothing() {
    let mut t = cluster();
    let mut s = Session::default();
    ok(&mut s, &mut t, &format!("{ZS} create /kcsim x"));
    let before = state(&t);
    let cases = [
        (
            format!("{ZS} create /kcsim y"),
            "Node already exists: /kcsim\n",
        ),
        (format!("{ZS} create /a/b y"), "Node does not exist: /a/b\n"),
        (
            format!("{ZS} create /controller/x y"),
            "Ephemerals cannot have children: /controller/x\n",
        ),
        (format!("{ZS} create / y"), "Node already exists: /\n"),
        (format!("{ZS} set /nope y"), "Node does not exist: /nope\n"),
        (
            format!("{ZS} set -v 9 /kcsim y"),
            "version No is not valid : /kcsim\n",
        ),
        (
            format!("{ZS} delete /brokers"),
            "Node not empty: /brokers\n",
        ),
        (
            format!("{ZS} get /brokers/"),
            "Path must not end with / character\n",
        ),
        (
            format!("{ZS} get brokers"),
            "Path must start with / character\n",
        ),
        (
            format!("{ZS} get /a//b"),
            "Invalid path string \"/a//b\" caused by empty node name specified @3\n",
        ),
        (
            format!("{ZS} create /a/../b x"),
            "Invalid path string \"/a/../b\" caused by relative paths not allowed @4\n",
        ),
        (format!("{ZS} stat"), "stat [-w] path\n"),
        (
            format!("{ZS} set /kcsim"),
            "set [-s] [-v version] path data\n",
        ),
        (
            format!("{ZS} create"),
            "create [-s] [-e] [-c] [-t ttl] path [data] [acl]\n",
        ),
        (
            format!("{ZS} get -x /kcsim"),
            "org.apache.commons.cli.UnrecognizedOptionException: Unrecognized option: -x\n",
        ),
    ];
    for (line, want) in cases {
        let a = run(&mut s, &mut t, &line);
        assert_eq!(a.text, want, "{line}");
        assert_eq!(state(&t), before, "{line}");
    }
    let a = run(&mut s, &mut t, &format!("{ZS} frob /"));
    assert!(
        a.text
            .starts_with("ZooKeeper -server host:port cmd args\n\tcreate ")
            && a.text
                .ends_with("\tstat [-w] path\nCommand not found frob\n"),
        "{a:?}"
    );
    for line in [
        format!("{ZS} create -c /c x"),
        format!("{ZS} create -t 10 /c x"),
        format!("{ZS} create /c x world:anyone:r"),
        format!("{ZS} get -w /kcsim"),
        format!("{ZS} ls -R /"),
        format!("{ZS} set -s /kcsim y"),
        format!("{ZS} delete -v x /kcsim"),
    ] {
        let a = run(&mut s, &mut t, &line);
        assert!(!a.ok, "{line}: {a:?}");
        assert_eq!(state(&t), before, "{line}");
    }
}

#[test]
fn help_lists_every_command() {
    let mut t = cluster();
    let help = ok(&mut Session::default(), &mut t, "help");
    for cmd in [
        "kafka-reassign-partitions.sh",
        "--generate",
        "--execute",
        "--verify",
        "--delete-config",
        "--entity-name ID --describe",
        "stat PATH",
        "create [-e] [-s] PATH DATA",
        "echo TEXT > FILE",
        "cat FILE",
        "ls",
        "rm FILE",
    ] {
        assert!(help.contains(cmd), "help lacks {cmd}:\n{help}");
    }
}

/// Garbled lines of the new commands, with files present: never a panic,
/// and whatever fails changes nothing.
#[test]
fn garbled_tool_lines_never_panic_and_failures_change_nothing() {
    let mut t = cluster();
    let mut s = Session::default();
    ok(
        &mut s,
        &mut t,
        r#"echo '{"version":1,"partitions":[{"topic":"audit","partition":0,"replicas":[1,2]}]}' > r.json"#,
    );
    ok(
        &mut s,
        &mut t,
        r#"echo '{"topics":[{"topic":"orders"}]}' > t.json"#,
    );
    let pieces = [
        "kafka-reassign-partitions.sh",
        "kafka-configs.sh",
        "zookeeper-shell.sh localhost:2181",
        "--zookeeper localhost:2181",
        "--bootstrap-server localhost:9092",
        "--generate",
        "--execute",
        "--verify",
        "--reassignment-json-file",
        "--topics-to-move-json-file",
        "--broker-list",
        "r.json",
        "t.json",
        "0,1,2",
        "1,1",
        ",",
        "stat",
        "create",
        "get",
        "ls",
        "-e",
        "-s",
        "-v",
        "/kcsim",
        "/controller",
        "/",
        "//",
        "echo",
        ">",
        "cat",
        "rm",
        "--entity-type brokers",
        "--entity-type topics",
        "--entity-default",
        "--entity-name",
        "audit",
        "--alter",
        "--describe",
        "--delete-config",
        "--add-config",
        "min.insync.replicas",
        "'",
        "ü",
        "-1",
    ];
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..300 {
        let n = (next() % 8) as usize;
        let line: Vec<&str> = (0..n)
            .map(|_| pieces[(next() % pieces.len() as u64) as usize])
            .collect();
        let line = line.join(" ");
        let before = state(&t);
        let a = s.execute(&mut t, &line);
        if !a.ok {
            assert_eq!(state(&t), before, "{line:?}: {a:?}");
        }
    }
}
