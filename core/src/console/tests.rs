//! The console: parse → action or answer, usage errors, and Kafka 2.4's
//! output formats (each test names the Kafka source file it checks).

use super::*;
use crate::ids::BrokerId;
use crate::scenario::builtin;

/// The default cluster where the page opens it (3 s: a controller, both
/// topics created and led by their preferred replicas).
fn cluster() -> Timeline {
    let mut t = Timeline::new(&builtin::default_cluster());
    t.seek(SimTime(3_000));
    t
}

fn reply(t: &Timeline, line: &str) -> Reply {
    let view = ClusterView::of(t.sim());
    interpret(
        line,
        &Cluster {
            view: &view,
            sim: t.sim(),
            files: &Default::default(),
        },
    )
}

fn usage_text(r: Reply) -> String {
    match r {
        Reply::Usage(s) => s,
        other => panic!("expected a usage error, got {other:?}"),
    }
}

fn printed(r: Reply) -> String {
    match r {
        Reply::Print(s) => s,
        other => panic!("expected an answer, got {other:?}"),
    }
}

fn actions(r: Reply) -> Vec<Action> {
    match r {
        Reply::Act { actions, .. } => actions,
        Reply::Elect { action, .. } => vec![action],
        other => panic!("expected actions, got {other:?}"),
    }
}

const BS: &str = "kafka-topics.sh --bootstrap-server localhost:9092";
const ZK: &str = "kafka-topics.sh --zookeeper localhost:2181";

#[test]
fn words_split_as_a_shell_does() {
    assert_eq!(
        words(r#"set /a '{"x": 1}' "b\"c" d\ e"#).unwrap(),
        vec!["set", "/a", r#"{"x": 1}"#, "b\"c", "d e"]
    );
    assert!(words("get '/a").is_err());
    assert_eq!(words("   ").unwrap(), Vec::<String>::new());
}

// Format: core/src/main/scala/kafka/admin/TopicCommand.scala (2.4.0),
// TopicDescription.printDescription and PartitionDescription.printDescription.
#[test]
fn describe_one_topic_in_kafkas_format() {
    let t = cluster();
    let out = printed(reply(&t, &format!("{BS} --describe --topic audit")));
    assert_eq!(
        out,
        "Topic: audit\tPartitionCount: 2\tReplicationFactor: 2\tConfigs: \n\
         \tTopic: audit\tPartition: 0\tLeader: 3\tReplicas: 3,2\tIsr: 3,2\n\
         \tTopic: audit\tPartition: 1\tLeader: 0\tReplicas: 0,3\tIsr: 0,3\n"
    );
    // With no option, the whole cluster: exactly the page's describe().
    let all = printed(reply(&t, &format!("{BS} --describe")));
    assert_eq!(all, ClusterView::of(t.sim()).describe());
    assert!(all.contains("Topic: orders\t"));
}

// Kafka: TopicCommand.DescribeOptions (2.4.0): a report option prints only
// matching partitions and no topic line.
#[test]
fn describe_filters_follow_the_isr_and_the_leader() {
    let mut t = cluster();
    assert_eq!(
        printed(reply(
            &t,
            &format!("{BS} --describe --under-replicated-partitions")
        )),
        ""
    );
    assert_eq!(
        printed(reply(
            &t,
            &format!("{BS} --describe --unavailable-partitions")
        )),
        ""
    );
    // min.insync.replicas is 1 by default: no partition is under it, and
    // none sits exactly at it while its ISR has three replicas.
    assert_eq!(
        printed(reply(
            &t,
            &format!("{BS} --describe --under-min-isr-partitions")
        )),
        ""
    );
    assert!(execute(&mut t, "kill -9 2").ok);
    assert!(execute(&mut t, "sleep 15").ok);
    let under = printed(reply(
        &t,
        &format!("{BS} --describe --under-replicated-partitions"),
    ));
    assert!(
        !under.is_empty() && !under.contains("PartitionCount"),
        "{under}"
    );
    for line in under.lines() {
        assert!(
            line.starts_with("\tTopic: ") && !line.contains("Isr: 2,"),
            "{line}"
        );
    }
}

// CommandLineUtils.checkInvalidArgs (2.4.0): the min-ISR reports need the
// admin client.
#[test]
fn min_isr_reports_refuse_zookeeper_mode() {
    let t = cluster();
    let e = usage_text(reply(
        &t,
        &format!("{ZK} --describe --at-min-isr-partitions"),
    ));
    assert!(
        e.starts_with(
            "Option \"[at-min-isr-partitions]\" can't be used with option \"[zookeeper]\"\n"
        ),
        "{e}"
    );
}

// TopicCommand.ZookeeperTopicService.listTopics (2.4.0).
#[test]
fn list_and_marked_for_deletion() {
    let mut t = cluster();
    assert_eq!(
        printed(reply(&t, &format!("{BS} --list"))),
        "audit\norders\n"
    );
    let a = execute(&mut t, &format!("{ZK} --delete --topic audit"));
    assert_eq!(
        a.text,
        "Topic audit is marked for deletion.\nNote: This will have no impact if delete.topic.enable is not set to true.\n"
    );
    assert!(a.ok);
    let listed = printed(reply(&t, &format!("{ZK} --list")));
    assert!(
        listed == "audit - marked for deletion\norders\n" || listed == "orders\n",
        "{listed}"
    );
}

// TopicCommand.ZookeeperTopicService.createTopic (2.4.0).
#[test]
fn create_goes_through_the_create_topic_action() {
    let mut t = cluster();
    let r = reply(
        &t,
        &format!("{ZK} --create --topic pay --partitions 3 --replication-factor 2"),
    );
    assert_eq!(
        actions(r),
        vec![Action::CreateTopic {
            name: "pay".into(),
            assignment: None,
            partitions: Some(3),
            replication_factor: Some(2),
        }]
    );
    let a = execute(
        &mut t,
        &format!("{ZK} --create --topic pay --partitions 3 --replication-factor 2"),
    );
    assert_eq!(a.text, "Created topic pay.\n");
    assert!(t.actions().iter().any(|(_, a)| a.name() == "create_topic"));
    // The admin client's path prints nothing on success.
    let a = execute(
        &mut t,
        &format!("{BS} --create --topic ledger --partitions 1 --replication-factor 1"),
    );
    assert_eq!(a.text, "");
    assert!(a.ok);
}

// Kafka: AdminZkClient.validateTopicCreate and Topic.validate (2.4.0).
#[test]
fn refused_creates_change_nothing() {
    let mut t = cluster();
    let before = t.actions().len();
    let a = execute(
        &mut t,
        &format!("{ZK} --create --topic orders --partitions 1 --replication-factor 1"),
    );
    assert_eq!(
        a.text,
        "Error while executing topic command : Topic 'orders' already exists.\n"
    );
    let a = execute(
        &mut t,
        &format!("{ZK} --create --topic 'a b' --partitions 1 --replication-factor 1"),
    );
    assert!(
        a.text.starts_with("Error while executing topic command : "),
        "{}",
        a.text
    );
    assert!(!a.text.contains("InvalidTopicException"), "{}", a.text);
    assert!(!a.ok);
    // More replicas than brokers: the cluster refuses it, and the console
    // takes the action back.
    let a = execute(
        &mut t,
        &format!("{ZK} --create --topic big --partitions 1 --replication-factor 9"),
    );
    assert!(!a.ok, "{}", a.text);
    assert!(
        a.text.starts_with("Error while executing topic command : "),
        "{}",
        a.text
    );
    assert_eq!(t.actions().len(), before);
    assert!(!printed(reply(&t, &format!("{BS} --list"))).contains("big"));
}

// TopicCommand.TopicCommandOptions.checkArgs (2.4.0) and
// CommandLineUtils.checkRequiredArgs.
#[test]
fn topic_usage_errors() {
    let t = cluster();
    let cases = [
        ("kafka-topics.sh", "Create, delete, describe, or change a topic.\n"),
        (BS, "Command must include exactly one action: --list, --describe, --create, --alter or --delete\n"),
        (&format!("{BS} --list --describe"), "Command must include exactly one action"),
        ("kafka-topics.sh --list", "Only one of --bootstrap-server or --zookeeper must be specified"),
        (&format!("{ZK} --create --topic x --partitions 1"), "Missing required argument \"[replication-factor]\"\n"),
        (&format!("{BS} --delete"), "Missing required argument \"[topic]\"\n"),
        (&format!("{BS} --describe --partitions 2"), "Option \"[partitions]\" can't be used with option \"[describe]\"\n"),
        (&format!("{BS} --list --frobnicate"), "frobnicate is not a recognized option\n"),
        (&format!("{BS} --describe --topic"), "Option topic requires an argument\n"),
        (&format!("{BS} --alter --topic orders --partitions x"), "Cannot parse argument 'x' of option partitions\n"),
    ];
    for (line, want) in cases {
        let e = usage_text(reply(&t, line));
        assert!(e.starts_with(want) || e.contains(want), "{line}: {e}");
    }
}

// TopicCommand.ensureTopicExists and alterTopic (2.4.0).
#[test]
fn alter_adds_partitions() {
    let mut t = cluster();
    assert_eq!(
        usage_text(reply(
            &t,
            &format!("{ZK} --alter --topic nope --partitions 3")
        )),
        "Error while executing topic command : Topic 'nope' does not exist as expected\n"
    );
    let a = execute(
        &mut t,
        &format!("{ZK} --alter --topic audit --partitions 3"),
    );
    assert!(a.ok, "{}", a.text);
    assert!(a.text.ends_with("Adding partitions succeeded!\n"));
    let a = execute(
        &mut t,
        &format!("{ZK} --alter --topic audit --partitions 2"),
    );
    assert!(!a.ok, "{}", a.text);
}

// ZooKeeper 3.5.6's ZooKeeperMain (ls prints a Java list; get the data).
#[test]
fn zookeeper_shell_reads() {
    let t = cluster();
    let ls = printed(reply(
        &t,
        "zookeeper-shell.sh localhost:2181 ls /brokers/ids",
    ));
    assert_eq!(
        ls,
        "[0, 1, 2, 3]\n".replace("0, 1, 2, 3", &{
            let v = ClusterView::of(t.sim());
            v.brokers
                .iter()
                .filter(|b| b.registered)
                .map(|b| b.id.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        })
    );
    assert_eq!(
        printed(reply(
            &t,
            "zookeeper-shell.sh localhost:2181 get /controller"
        )),
        ClusterView::of(t.sim()).zookeeper_shell_get_controller()
    );
    assert_eq!(
        printed(reply(&t, "zookeeper-shell.sh localhost:2181 get /nope")),
        "Node does not exist: /nope\n"
    );
    assert_eq!(
        usage_text(reply(&t, "zookeeper-shell.sh localhost:2181 get nope")),
        "Path must start with / character\n"
    );
    assert!(
        usage_text(reply(&t, "zookeeper-shell.sh localhost:2181 frob /"))
            .starts_with("ZooKeeper -server host:port cmd args\n")
    );
}

// Kafka: KafkaController.processControllerChange: deleting /controller
// makes the brokers elect again.
#[test]
fn zookeeper_shell_writes_are_actions() {
    let mut t = cluster();
    assert_eq!(
        actions(reply(
            &t,
            "zookeeper-shell.sh localhost:2181 delete /controller"
        )),
        vec![Action::DeleteZnode {
            path: "/controller".into()
        }]
    );
    assert_eq!(
        printed(reply(
            &t,
            "zookeeper-shell.sh localhost:2181 delete /brokers"
        )),
        "Node not empty: /brokers\n"
    );
    let a = execute(
        &mut t,
        "zookeeper-shell.sh localhost:2181 delete /controller",
    );
    assert!(a.ok && a.text.is_empty(), "{a:?}");
    assert_eq!(
        actions(reply(
            &t,
            r#"zookeeper-shell.sh localhost:2181 set /controller_epoch '7'"#
        )),
        vec![Action::SetZnode {
            path: "/controller_epoch".into(),
            data: "7".into()
        }]
    );
}

#[test]
fn broker_processes() {
    let t = cluster();
    let b2 = BrokerId(2);
    assert_eq!(
        actions(reply(&t, "kill -9 2")),
        vec![Action::KillBroker { broker: b2 }]
    );
    assert_eq!(
        actions(reply(&t, "kill 2")),
        vec![Action::ShutdownBroker { broker: b2 }]
    );
    assert_eq!(
        actions(reply(&t, "kill -s TERM 2")),
        vec![Action::ShutdownBroker { broker: b2 }]
    );
    assert_eq!(
        actions(reply(&t, "kill -SIGKILL 2")),
        vec![Action::KillBroker { broker: b2 }]
    );
    assert_eq!(
        actions(reply(&t, "kafka-server-stop.sh --broker 2")),
        vec![Action::ShutdownBroker { broker: b2 }]
    );
    assert_eq!(
        actions(reply(
            &t,
            "bin/kafka-server-start.sh config/server-2.properties"
        )),
        vec![Action::StartBroker { broker: b2 }]
    );
    assert_eq!(
        usage_text(reply(&t, "kill -9 77")),
        "bash: kill: (77) - No such process\n"
    );
    assert!(usage_text(reply(&t, "kill -HUP 2")).contains("invalid signal"));
    assert!(usage_text(reply(&t, "kafka-server-stop.sh")).contains("--broker ID"));
    assert_eq!(reply(&t, "sleep 1.5"), Reply::Sleep(1_500));
    assert!(usage_text(reply(&t, "sleep -1")).starts_with("sleep: invalid time interval"));
    assert!(printed(reply(&t, "help")).contains("kafka-topics.sh"));
    assert!(usage_text(reply(&t, "kafka-console-producer.sh")).contains("command not found"));
}

#[test]
fn a_second_kill_is_refused_and_changes_nothing() {
    let mut t = cluster();
    assert!(execute(&mut t, "kill -9 1").ok);
    let n = t.actions().len();
    let a = execute(&mut t, "kill -9 1");
    assert!(!a.ok && a.text.starts_with("bash: kill: (1) - "), "{a:?}");
    assert_eq!(t.actions().len(), n);
}

/// Garbled input: never a panic, and a usage error or a read changes nothing.
#[test]
fn garbled_lines_never_panic_or_change_anything() {
    let mut t = cluster();
    let pieces = [
        "kafka-topics.sh",
        "zookeeper-shell.sh",
        "kill",
        "sleep",
        "--topic",
        "--describe",
        "--create",
        "--partitions",
        "-9",
        "'",
        "\"",
        "\\",
        "=",
        "--zookeeper=",
        "localhost:2181",
        "/",
        "//",
        "ls",
        "get",
        "set",
        "delete",
        "ü",
        "\u{0}",
        "999999999999999999999",
        "-1",
        "NaN",
        "inf",
        "--alter",
        "--delete",
        "kafka-server-start.sh",
        "config/server-.properties",
        "--broker",
    ];
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..400 {
        let n = (next() % 7) as usize;
        let line: Vec<&str> = (0..n)
            .map(|_| pieces[(next() % pieces.len() as u64) as usize])
            .collect();
        let line = line.join(if next() % 5 == 0 { "" } else { " " });
        let view = ClusterView::of(t.sim());
        let r = interpret(
            &line,
            &Cluster {
                view: &view,
                sim: t.sim(),
                files: &Default::default(),
            },
        );
        if let Reply::Usage(_) | Reply::Print(_) = r {
            let before = (t.now(), t.actions().len());
            let _ = execute(&mut t, &line);
            assert_eq!((t.now(), t.actions().len()), before, "{line:?}");
        }
    }
}

const LE: &str = "kafka-leader-election.sh --bootstrap-server localhost:9092";
const PE: &str = "kafka-preferred-replica-election.sh --zookeeper localhost:2181";

fn tp(t: &str, p: u32) -> crate::ids::TopicPartition {
    crate::ids::TopicPartition::new(t, p)
}

// Kafka: core/src/main/scala/kafka/admin/LeaderElectionCommand.scala (2.4.0):
// --topic/--partition or every partition, the type as the enum's name.
#[test]
fn leader_election_goes_through_elect_leaders() {
    use crate::controller::event::ElectionType;
    let mut t = cluster();
    let line = format!("{LE} --election-type preferred --topic audit --partition 1");
    assert_eq!(
        actions(reply(&t, &line)),
        vec![Action::ElectLeaders {
            election_type: ElectionType::Preferred,
            partitions: vec![tp("audit", 1)],
        }]
    );
    let all = actions(reply(
        &t,
        &format!("{LE} --election-type UNCLEAN --all-topic-partitions"),
    ));
    let Action::ElectLeaders {
        election_type,
        partitions,
    } = &all[0]
    else {
        panic!("{all:?}")
    };
    assert_eq!(*election_type, ElectionType::Unclean);
    assert_eq!(partitions.len(), ClusterView::of(t.sim()).partitions.len());
    let json = r#"{"partitions": [{"topic": "audit", "partition": 0}]}"#;
    assert_eq!(
        actions(reply(
            &t,
            &format!("{LE} --election-type preferred --path-to-json-file '{json}'")
        )),
        vec![Action::ElectLeaders {
            election_type: ElectionType::Preferred,
            partitions: vec![tp("audit", 0)],
        }]
    );
    // The controller answers later in virtual time: nothing is printed at once.
    let before = t.trace().len();
    let a = execute(&mut t, &line);
    assert!(a.ok);
    assert!(t.trace().len() > before);
}

// Kafka: LeaderElectionCommand.scala (2.4.0), electLeaders' three kinds of
// lines, including 2.4's listing of the succeeded partitions on the no-op line.
#[test]
fn leader_election_report_in_kafkas_words() {
    use crate::controller::event::ElectionType;
    use crate::fact::ElectionCode;
    let r = elect::report(
        ElectionType::Preferred,
        &[
            (tp("a", 0), ElectionCode::Elected(Some(BrokerId(1)))),
            (tp("a", 1), ElectionCode::NotNeeded),
        ],
    );
    assert_eq!(
        r,
        "Successfully completed leader election (PREFERRED) for partitions a-0\n\
         Valid replica already elected for partitions a-0\n"
    );
    let r = elect::report(
        ElectionType::Unclean,
        &[(tp("a", 0), ElectionCode::NotController)],
    );
    assert!(r.starts_with("Error completing leader election (UNCLEAN) for partition: a-0: org.apache.kafka.common.errors.NotControllerException: "));
    assert!(r.ends_with("Exception in thread \"main\" kafka.common.AdminCommandFailedException: 1 replica(s) could not be elected\n"));
}

// Kafka: LeaderElectionCommand.validate (2.4.0), in its order; an unknown
// partition is UNKNOWN_TOPIC_OR_PARTITION. None of them changes anything.
#[test]
fn leader_election_usage_errors_change_nothing() {
    let mut t = cluster();
    let cases = [
        (
            format!("{LE} --topic audit --partition 0"),
            "Exception in thread \"main\" kafka.common.AdminCommandFailedException: Missing required option(s): election-type\n",
        ),
        (
            "kafka-leader-election.sh --all-topic-partitions".to_string(),
            "Exception in thread \"main\" kafka.common.AdminCommandFailedException: Missing required option(s): election-type, bootstrap-server\n",
        ),
        (
            format!("{LE} --election-type preferred --topic audit --partition 0 --all-topic-partitions"),
            "Exception in thread \"main\" kafka.common.AdminCommandFailedException: One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file\n",
        ),
        (
            format!("{LE} --election-type preferred --topic audit"),
            "Exception in thread \"main\" kafka.common.AdminCommandFailedException: Missing required option(s): partition\n",
        ),
        (
            format!("{LE} --election-type preferred --all-topic-partitions --partition 0"),
            "Exception in thread \"main\" kafka.common.AdminCommandFailedException: Option partition is only allowed if topic is used\n",
        ),
        (
            format!("{LE} --election-type preferred --topic nosuch --partition 0"),
            "Error completing leader election (PREFERRED) for partition: nosuch-0: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: refused: the partition does not exist\n\
             Exception in thread \"main\" kafka.common.AdminCommandFailedException: 1 replica(s) could not be elected\n",
        ),
    ];
    let before = t.trace().len();
    for (line, want) in cases {
        let a = execute(&mut t, &line);
        assert!(!a.ok, "{line}");
        assert_eq!(a.text, want, "{line}");
    }
    let a = execute(
        &mut t,
        &format!("{LE} --election-type sideways --all-topic-partitions"),
    );
    assert!(a
        .text
        .starts_with("Cannot parse argument 'sideways' of option election-type\n"));
    assert_eq!(t.trace().len(), before);
}

// Kafka: core/src/main/scala/kafka/admin/PreferredReplicaLeaderElectionCommand.scala
// (2.4.0): run's deprecation lines, writePreferredReplicaElectionData and
// ZkCommand.electPreferredLeaders.
#[test]
fn preferred_replica_election_writes_the_znode() {
    let mut t = cluster();
    let json = r#"{"partitions": [{"topic": "audit", "partition": 0}, {"topic": "nosuch", "partition": 3}]}"#;
    let line = format!("{PE} --path-to-json-file '{json}'");
    assert_eq!(
        actions(reply(&t, &line)),
        vec![Action::PreferredElection {
            partitions: Some(vec![tp("audit", 0)])
        }]
    );
    let a = execute(&mut t, &line);
    assert!(a.ok, "{a:?}");
    assert_eq!(
        a.text,
        "This tool is deprecated. Please use kafka-leader-election tool. Tracking issue: KAFKA-8405\n\
         Warning: --zookeeper is deprecated and will be removed in a future version of Kafka.\n\
         Use --bootstrap-server instead to specify a broker to connect to.\n\
         Created preferred replica election path with audit-0\n\
         Successfully started preferred replica election for partitions Set(audit-0)\n\
         Skipping preferred replica leader election for partition nosuch-3 since it doesn't exist.\n"
    );
    // The znode is still there: a second election is refused, changes nothing.
    let before = t.trace().len();
    let again = execute(&mut t, &line);
    assert!(!again.ok, "{again:?}");
    assert!(again.text.contains("AdminCommandFailedException: Admin command failed\nCaused by: kafka.admin.AdminOperationException: "), "{again:?}");
    assert_eq!(t.trace().len(), before);
    assert_eq!(
        actions(reply(&cluster(), PE)),
        vec![Action::PreferredElection { partitions: None }]
    );
    let u = usage_text(reply(&t, "kafka-preferred-replica-election.sh"));
    assert!(u.contains("preferred replica"), "{u}");
    let u = usage_text(reply(
        &t,
        "kafka-preferred-replica-election.sh --zookeeper z:1 --bootstrap-server b:2",
    ));
    assert!(u.contains("can't be used with option"), "{u}");
    let u = usage_text(reply(&t, &format!("{PE} --path-to-json-file '{{}}'")));
    assert!(
        u.ends_with("Preferred replica election data is empty\n"),
        "{u}"
    );
}

// kafka-configs.sh: ConfigCommand.scala (2.4.0), `alterConfig`,
// `describeConfig`, `alterBrokerConfig` and `checkArgs`.

#[test]
fn configs_alter_and_describe_a_topic_as_config_command() {
    let mut t = cluster();
    let zk = "kafka-configs.sh --zookeeper localhost:2181 --entity-type topics --entity-name audit";
    let a = execute(&mut t, &format!("{zk} --describe"));
    assert_eq!(a.text, "Configs for topic 'audit' are \n");
    let a = execute(
        &mut t,
        &format!(
            "{zk} --alter --add-config unclean.leader.election.enable=true,min.insync.replicas=2"
        ),
    );
    assert!(a.ok, "{}", a.text);
    assert_eq!(
        a.text,
        "Completed Updating config for entity: topic 'audit'.\n"
    );
    let a = execute(&mut t, &format!("{zk} --describe"));
    assert_eq!(
        a.text,
        "Configs for topic 'audit' are min.insync.replicas=2,unclean.leader.election.enable=true\n"
    );
    // A key not there to delete: `Invalid config(s): `.
    let a = execute(
        &mut t,
        &format!("{zk} --alter --delete-config retention.ms"),
    );
    assert!(!a.ok);
    assert_eq!(a.text, "Invalid config(s): retention.ms\n");
}

#[test]
fn configs_refused_key_changes_nothing() {
    let mut t = cluster();
    let before = t.trace().len();
    let a = execute(
        &mut t,
        "kafka-configs.sh --zookeeper localhost:2181 --entity-type topics --entity-name audit --alter --add-config min.insync.replicas=2,no.such.key=1",
    );
    assert!(!a.ok);
    assert!(
        a.text
            .starts_with("Error while executing config command with args '"),
        "{}",
        a.text
    );
    assert_eq!(t.trace().len(), before);
    let v = ClusterView::of(t.sim());
    assert!(v.topics.iter().all(|t| t.configs.is_empty()));
}

#[test]
fn configs_usage_errors_as_check_args() {
    let mut t = cluster();
    let before = t.trace().len();
    let a = execute(
        &mut t,
        "kafka-configs.sh --zookeeper localhost:2181 --entity-name audit --alter --add-config min.insync.replicas=2",
    );
    assert!(!a.ok);
    assert_eq!(a.text, "At least one --entity-type must be specified\n");
    assert_eq!(t.trace().len(), before);
    let r = reply(
        &t,
        "kafka-configs.sh --bootstrap-server localhost:9092 --entity-type topics --entity-name audit --describe",
    );
    assert_eq!(
        usage_text(r),
        "Invalid entity-type topics, --entity-type must be one of brokers,broker-loggers with the --bootstrap-server argument\n"
    );
    let r = reply(
        &t,
        "kafka-configs.sh --zookeeper localhost:2181 --entity-type topics --entity-name audit --alter",
    );
    assert_eq!(
        usage_text(r),
        "At least one of --add-config or --delete-config must be specified with --alter\n"
    );
    let r = reply(
        &t,
        "kafka-configs.sh --zookeeper localhost:2181 --entity-type topics",
    );
    assert!(
        usage_text(r).starts_with("Command must include exactly one action: --describe, --alter\n")
    );
}

#[test]
fn configs_cluster_default_through_the_admin_client() {
    let mut t = cluster();
    let a = execute(
        &mut t,
        "kafka-configs.sh --bootstrap-server localhost:9092 --entity-type brokers --entity-default --alter --add-config unclean.leader.election.enable=true",
    );
    assert!(a.ok, "{}", a.text);
    assert_eq!(
        a.text,
        "Completed updating default config for brokers in the cluster,\n"
    );
    assert!(t.sim().config().unclean_leader_election_enable);
    // Through ZooKeeper only before any broker runs.
    let r = reply(
        &t,
        "kafka-configs.sh --zookeeper localhost:2181 --entity-type brokers --entity-default --alter --add-config min.insync.replicas=2",
    );
    assert!(usage_text(r).starts_with(
        "requirement failed: --bootstrap-server option must be specified to update broker configs Set(min.insync.replicas). for default cluster if any broker is running."
    ));
}

#[test]
fn a_line_over_the_console_limit_is_refused_unread() {
    // kcsim's own limit (docs/inputs.md): the line is not split into words.
    let mut t = cluster();
    let at = format!("help{}", " ".repeat(MAX_LINE_CHARS - 4));
    assert!(execute(&mut t, &at).ok);
    let over = format!("{at} ");
    let before = t.trace().len();
    assert_eq!(
        execute(&mut t, &over),
        Answer {
            text: format!(
                "kcsim: the line is {} characters, over the limit of {MAX_LINE_CHARS} (MAX_LINE_CHARS); nothing was run\n",
                MAX_LINE_CHARS + 1
            ),
            ok: false
        }
    );
    assert_eq!(t.trace().len(), before);
}

#[test]
fn alter_to_more_partitions_than_a_topic_may_have_is_refused_before_anything_is_built() {
    // kcsim's limit (docs/inputs.md), found by `kcsim fuzz --target console`:
    // `--alter --partitions 2147483648` made four billion partitions and ran
    // out of memory. Kafka's TopicCommand passes the count on unchecked.
    let most = crate::scenario::MAX_PARTITIONS_PER_TOPIC;
    let t = cluster();
    match reply(
        &t,
        &format!("{ZK} --alter --topic audit --partitions {most}"),
    ) {
        Reply::Act { actions, .. } => assert_eq!(
            actions,
            [Action::AddPartitions {
                topic: "audit".into(),
                count: most as u32
            }]
        ),
        other => panic!("{other:?}"),
    }
    let mut t = cluster();
    let before = t.trace().len();
    let a = execute(
        &mut t,
        &format!("{ZK} --alter --topic audit --partitions 2147483648"),
    );
    assert_eq!(
        a.text,
        format!("Error while executing topic command : kcsim: at most {most} partitions per topic (MAX_PARTITIONS_PER_TOPIC); 2147483648 asked for\n")
    );
    assert!(!a.ok);
    assert_eq!(t.trace().len(), before);
}
