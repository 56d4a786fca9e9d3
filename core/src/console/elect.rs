//! `kafka-leader-election.sh`, as Kafka 2.4's LeaderElectionCommand
//! (core/src/main/scala/kafka/admin/LeaderElectionCommand.scala at tag
//! 2.4.0): `validate` for what is refused, `electLeaders` for what is
//! printed. And `kafka-preferred-replica-election.sh --zookeeper`, as
//! PreferredReplicaLeaderElectionCommand.scala (2.4.0): `run` and
//! `ZkCommand.electPreferredLeaders`.

use super::opts::{self, Spec};
use super::{Cluster, Reply};
use crate::action::Action;
use crate::controller::event::ElectionType;
use crate::fact::{ElectionCode, ElectionLabel, Fact};
use crate::ids::TopicPartition;
use crate::trace::Records;

pub(super) const SPEC: Spec = &[
    ("bootstrap-server", true),
    ("admin.config", true),
    ("path-to-json-file", true),
    ("topic", true),
    ("partition", true),
    ("all-topic-partitions", false),
    ("election-type", true),
    ("help", false),
];

/// What the JVM prints for the `AdminCommandFailedException` the command
/// throws out of `main`.
const FAILED: &str = "Exception in thread \"main\" kafka.common.AdminCommandFailedException: ";

/// Java's `ElectionType.toString`.
fn type_name(t: ElectionType) -> &'static str {
    match t {
        ElectionType::Preferred => "PREFERRED",
        ElectionType::Unclean => "UNCLEAN",
    }
}

/// `LeaderElectionCommand.validate`, in its order.
fn validate(o: &opts::Parsed) -> Result<(), String> {
    // Each missing option is put in front of the list.
    let mut missing = Vec::new();
    for name in ["bootstrap-server", "election-type"] {
        if !o.has(name) {
            missing.insert(0, name);
        }
    }
    if !missing.is_empty() {
        return Err(format!(
            "Missing required option(s): {}",
            missing.join(", ")
        ));
    }
    let exclusive = ["topic", "all-topic-partitions", "path-to-json-file"];
    if exclusive.iter().filter(|n| o.has(n)).count() != 1 {
        return Err(format!(
            "One and only one of the following options is required: {}",
            exclusive.join(", ")
        ));
    }
    match (o.has("topic"), o.has("partition")) {
        (true, false) => Err("Missing required option(s): partition".into()),
        (false, true) => Err("Option partition is only allowed if topic is used".into()),
        _ => Ok(()),
    }
}

/// The partitions of a `{"partitions": [{"topic": …, "partition": …}]}`
/// document (the console takes the document itself, not a file's path).
/// `Err` carries the message of Kafka's `AdminOperationException`.
fn election_data(json: &str, what: &str) -> Result<Vec<TopicPartition>, String> {
    let empty = || format!("{what} is empty");
    let v: serde_json::Value = serde_json::from_str(json).map_err(|_| empty())?;
    let Some(list) = v.get("partitions") else {
        return Err(if what.starts_with("Preferred") {
            empty()
        } else {
            format!("{what} is missing \"partitions\" field")
        });
    };
    let mut out: Vec<TopicPartition> = Vec::new();
    let mut dup = Vec::new();
    for p in list.as_array().into_iter().flatten() {
        let topic = p.get("topic").and_then(|t| t.as_str());
        let partition = p
            .get("partition")
            .and_then(|n| n.as_u64())
            .and_then(|n| u32::try_from(n).ok());
        let (Some(topic), Some(partition)) = (topic, partition) else {
            return Err(empty());
        };
        let tp = TopicPartition::new(topic, partition);
        if out.contains(&tp) {
            dup.push(tp.to_string());
        } else {
            out.push(tp);
        }
    }
    if !dup.is_empty() {
        return Err(format!(
            "{what} contains duplicate partitions: {}",
            dup.join(",")
        ));
    }
    Ok(out)
}

/// What `--path-to-json-file V` reads: the session's file `V`, or, as
/// kcsim's shortcut, `V` itself when it is a JSON document (starts with
/// `{`). `Err` is what the JVM prints for the `NoSuchFileException`.
fn json_file<'a>(c: &'a Cluster, value: &'a str) -> Result<&'a str, String> {
    match super::files::read(c.files, value) {
        Ok(text) => Ok(text),
        Err(_) if value.trim_start().starts_with('{') => Ok(value),
        Err(name) => Err(format!(
            "Exception in thread \"main\" java.nio.file.NoSuchFileException: {name}\n"
        )),
    }
}

fn exists(c: &Cluster, tp: &TopicPartition) -> bool {
    c.view.partitions.iter().any(|p| p.overview.tp == *tp)
}

fn all_partitions(c: &Cluster) -> Vec<TopicPartition> {
    let mut all: Vec<TopicPartition> = c
        .view
        .partitions
        .iter()
        .map(|p| p.overview.tp.clone())
        .collect();
    crate::sort::sort(&mut all);
    all
}

/// The class of the exception the admin client raises for an error code.
fn exception(code: &ElectionCode) -> &'static str {
    match code {
        ElectionCode::Elected(_) | ElectionCode::NotNeeded => "",
        ElectionCode::UnknownTopicOrPartition => {
            "org.apache.kafka.common.errors.UnknownTopicOrPartitionException"
        }
        ElectionCode::TopicBeingDeleted => "org.apache.kafka.common.errors.InvalidTopicException",
        ElectionCode::PreferredLeaderNotAvailable(_) => {
            "org.apache.kafka.common.errors.PreferredLeaderNotAvailableException"
        }
        ElectionCode::EligibleLeadersNotAvailable(_) => {
            "org.apache.kafka.common.errors.EligibleLeadersNotAvailableException"
        }
        ElectionCode::UnknownServerError => "org.apache.kafka.common.errors.UnknownServerException",
        ElectionCode::NotController => "org.apache.kafka.common.errors.NotControllerException",
    }
}

/// What `electLeaders` prints for the results, partition by partition.
pub fn report(t: ElectionType, results: &[(TopicPartition, ElectionCode)]) -> String {
    let t = type_name(t);
    let mut succeeded = Vec::new();
    let mut noop = 0;
    let mut failed = Vec::new();
    for (tp, code) in results {
        match code {
            ElectionCode::Elected(_) => succeeded.push(tp.to_string()),
            ElectionCode::NotNeeded => noop += 1,
            other => failed.push((tp, other)),
        }
    }
    let mut out = String::new();
    if !succeeded.is_empty() {
        out.push_str(&format!(
            "Successfully completed leader election ({t}) for partitions {}\n",
            succeeded.join(", ")
        ));
    }
    if noop > 0 {
        // 2.4 lists the succeeded partitions here, not the no-ops.
        out.push_str(&format!(
            "Valid replica already elected for partitions {}\n",
            succeeded.join(", ")
        ));
    }
    if !failed.is_empty() {
        for (tp, code) in &failed {
            out.push_str(&format!(
                "Error completing leader election ({t}) for partition: {tp}: {}: {}\n",
                exception(code),
                crate::view::election_code_meaning(code.code())
            ));
        }
        out.push_str(&format!(
            "{FAILED}{} replica(s) could not be elected\n",
            failed.len()
        ));
    }
    out
}

/// The results of the election requested by the `elect_leaders` action
/// applied at `at_ms`, if the controller answered at that moment.
pub fn results(trace: &Records, at_ms: u64) -> Vec<(TopicPartition, ElectionCode)> {
    let Some(i) = trace
        .iter()
        .rposition(|r| r.time_ms == at_ms && r.actor == "user" && r.kind == "elect_leaders")
    else {
        return Vec::new();
    };
    trace
        .iter_from(i + 1)
        .take_while(|r| r.time_ms == at_ms)
        .filter_map(|r| match &*r.fact() {
            Fact::ElectionResult { label, tp, code } if *label != ElectionLabel::AutoRebalance => {
                Some((tp.clone(), code.clone()))
            }
            _ => None,
        })
        .collect()
}

/// `kafka-leader-election.sh ARGS`.
pub fn leader_election(args: &[String], c: &Cluster) -> Reply {
    let o = match opts::parse(args, SPEC) {
        Ok(o) => o,
        Err(e) => return Reply::Usage(opts::usage(&e, SPEC)),
    };
    if args.is_empty() || o.has("help") {
        return Reply::Usage(opts::usage("This tool attempts to elect a new leader for a set of topic partitions. The type of elections supported are preferred replicas and unclean replicas.", SPEC));
    }
    if let Err(e) = validate(&o) {
        return Reply::Usage(format!("{FAILED}{e}\n"));
    }
    let election_type = match o.value("election-type").unwrap_or_default() {
        t if t.eq_ignore_ascii_case("preferred") => ElectionType::Preferred,
        t if t.eq_ignore_ascii_case("unclean") => ElectionType::Unclean,
        t => {
            return Reply::Usage(opts::usage(
                &format!("Cannot parse argument '{t}' of option election-type"),
                SPEC,
            ))
        }
    };
    let partitions = if let Some(topic) = o.value("topic") {
        let p = o.value("partition").unwrap_or_default();
        let Ok(p) = p.parse::<u32>() else {
            return Reply::Usage(opts::usage(
                &format!("Cannot parse argument '{p}' of option partition"),
                SPEC,
            ));
        };
        vec![TopicPartition::new(topic, p)]
    } else if let Some(path) = o.value("path-to-json-file") {
        let json = match json_file(c, path) {
            Ok(j) => j,
            Err(e) => return Reply::Usage(e),
        };
        match election_data(json, "Replica election data") {
            Ok(ps) => ps,
            Err(e) => {
                return Reply::Usage(format!(
                    "Exception in thread \"main\" kafka.admin.AdminOperationException: {e}\n"
                ))
            }
        }
    } else {
        // --all-topic-partitions: the admin client sends no list and the
        // controller takes every partition it knows.
        all_partitions(c)
    };
    // A partition the cluster does not have is answered at once, by the
    // broker the request reaches, with UNKNOWN_TOPIC_OR_PARTITION.
    let unknown: Vec<_> = partitions
        .iter()
        .filter(|tp| !exists(c, tp))
        .map(|tp| (tp.clone(), ElectionCode::UnknownTopicOrPartition))
        .collect();
    if !unknown.is_empty() {
        return Reply::Usage(report(election_type, &unknown));
    }
    Reply::Elect {
        action: Action::ElectLeaders {
            election_type,
            partitions,
        },
        election_type,
    }
}

pub(super) const PREFERRED_SPEC: Spec = &[
    ("path-to-json-file", true),
    ("zookeeper", true),
    ("bootstrap-server", true),
    ("admin.config", true),
    ("help", false),
];

const DEPRECATED: &str =
    "This tool is deprecated. Please use kafka-leader-election tool. Tracking issue: KAFKA-8405\n";

/// Scala's `Set.toString`.
fn scala_set(ps: &[TopicPartition]) -> String {
    let names: Vec<String> = ps.iter().map(ToString::to_string).collect();
    format!("Set({})", names.join(", "))
}

/// `kafka-preferred-replica-election.sh ARGS`.
pub fn preferred(args: &[String], c: &Cluster) -> Reply {
    let usage = |m: &str| Reply::Usage(format!("{DEPRECATED}{}", opts::usage(m, PREFERRED_SPEC)));
    let o = match opts::parse(args, PREFERRED_SPEC) {
        Ok(o) => o,
        Err(e) => return usage(&e),
    };
    if args.is_empty() || o.has("help") {
        return usage("This tool helps to causes leadership for each partition to be transferred back to the 'preferred replica', it can be used to balance leadership among the servers.");
    }
    if o.has("zookeeper") && o.has("bootstrap-server") {
        return usage(&opts::cant_combine("zookeeper", "bootstrap-server"));
    }
    if !o.has("zookeeper") {
        if o.has("bootstrap-server") {
            // The admin client's path is kafka-leader-election.sh's.
            return Reply::Usage(format!(
                "{DEPRECATED}kcsim: with --bootstrap-server, use kafka-leader-election.sh --election-type preferred\n"
            ));
        }
        return usage("Exactly one of '[bootstrap-server]' or '[zookeeper]' must be provided");
    }
    let failed = "Exception in thread \"main\" kafka.common.AdminCommandFailedException: Admin command failed\nCaused by: kafka.admin.AdminOperationException: ";
    let from_user = match o.value("path-to-json-file") {
        None => None,
        Some(path) => match json_file(c, path)
            .map_err(|e| format!("{DEPRECATED}{e}"))
            .and_then(|json| election_data(json, "Preferred replica election data").map_err(|e| format!("{DEPRECATED}Exception in thread \"main\" kafka.admin.AdminOperationException: {e}\n")))
        {
            Ok(ps) => Some(ps),
            Err(e) => return Reply::Usage(e),
        },
    };
    let mut text = DEPRECATED.to_string();
    text.push_str("Warning: --zookeeper is deprecated and will be removed in a future version of Kafka.\nUse --bootstrap-server instead to specify a broker to connect to.\n");
    let error_prefix = format!("{text}{failed}");
    let (valid, invalid): (Vec<_>, Vec<_>) = match &from_user {
        Some(ps) => ps.iter().cloned().partition(|tp| exists(c, tp)),
        None => (all_partitions(c), Vec::new()),
    };
    let names: Vec<String> = valid.iter().map(ToString::to_string).collect();
    text.push_str(&format!(
        "Created preferred replica election path with {}\n",
        names.join(",")
    ));
    text.push_str(&format!(
        "Successfully started preferred replica election for partitions {}\n",
        scala_set(&valid)
    ));
    for p in &invalid {
        text.push_str(&format!(
            "Skipping preferred replica leader election for partition {p} since it doesn't exist.\n"
        ));
    }
    Reply::Act {
        actions: vec![Action::PreferredElection {
            partitions: from_user.map(|_| valid),
        }],
        done: text,
        error_prefix,
    }
}
