//! `kafka-reassign-partitions.sh`, as Kafka 2.4's ReassignPartitionsCommand
//! (core/src/main/scala/kafka/admin/ReassignPartitionsCommand.scala at tag
//! 2.4.0): `validateAndParseArgs` for the usage errors, `generateAssignment`,
//! `executeAssignment` (with `printCurrentAssignment` and `parseAndValidate`),
//! `verifyAssignment` (with `checkIfPartitionReassignmentSucceeded`),
//! `formatAsReassignmentJson`, and `main`'s `Partitions reassignment failed
//! due to` for an exception. The JSON files are the session's virtual files.

use super::opts::{self, Spec};
use super::{files, Cluster, Reply};
use crate::action::{Action, PartitionTarget};
use crate::ids::{BrokerId, TopicPartition};
use crate::rng::Rng;
use crate::zk_client::paths;
use serde_json::Value;

pub(super) const SPEC: Spec = &[
    ("bootstrap-server", true),
    ("command-config", true),
    ("zookeeper", true),
    ("generate", false),
    ("execute", false),
    ("verify", false),
    ("reassignment-json-file", true),
    ("topics-to-move-json-file", true),
    ("broker-list", true),
    ("disable-rack-aware", false),
    ("throttle", true),
    ("replica-alter-log-dirs-throttle", true),
    ("timeout", true),
    ("help", false),
];

const HELP: &str = "This tool helps to moves topic partitions between replicas.";

/// The largest reassignment the console takes from a file.
const MAX_PARTITIONS: usize = 10_000;

/// A Java exception, as `main` prints it: its message, then the first line
/// of `Utils.stackTrace` (the `at …` frames are left out).
struct Thrown {
    class: &'static str,
    message: String,
}

const ADMIN_FAILED: &str = "kafka.common.AdminCommandFailedException";
const ADMIN_OPERATION: &str = "kafka.admin.AdminOperationException";
const JSON_MAPPING: &str = "com.fasterxml.jackson.databind.JsonMappingException";

fn thrown(class: &'static str, message: impl Into<String>) -> Thrown {
    Thrown {
        class,
        message: message.into(),
    }
}

impl Thrown {
    fn reply(&self) -> Reply {
        Reply::Usage(format!(
            "Partitions reassignment failed due to {m}\n{c}: {m}\n",
            m = self.message,
            c = self.class
        ))
    }
}

/// `kafka-reassign-partitions.sh ARGS`.
pub fn run(args: &[String], c: &Cluster) -> Reply {
    let o = match opts::parse(args, SPEC) {
        Ok(o) => o,
        Err(e) => return Reply::Usage(opts::usage(&e, SPEC)),
    };
    if args.is_empty() || o.has("help") {
        return Reply::Usage(opts::usage(HELP, SPEC));
    }
    if let Err(m) = validate(&o) {
        return Reply::Usage(opts::usage(&m, SPEC));
    }
    if o.has("verify") {
        // The header is printed before the file is read.
        let header = "Status of partition reassignment: \n";
        match verify(&o, c) {
            Ok(text) => Reply::Print(format!("{header}{text}")),
            Err(t) => match t.reply() {
                Reply::Usage(text) => Reply::Usage(format!("{header}{text}")),
                other => other,
            },
        }
    } else if o.has("generate") {
        generate(&o, c)
            .map(Reply::Print)
            .unwrap_or_else(|t| t.reply())
    } else {
        execute(&o, c).unwrap_or_else(|t| t.reply())
    }
}

/// `validateAndParseArgs`, in its order.
fn validate(o: &opts::Parsed) -> Result<(), String> {
    let actions = ["generate", "execute", "verify"];
    if actions.iter().filter(|a| o.has(a)).count() != 1 {
        return Err(
            "Command must include exactly one action: --generate, --execute or --verify".into(),
        );
    }
    if !o.has("zookeeper") {
        return Err(opts::missing("zookeeper"));
    }
    let (used, invalid): (&str, &[&str]) = if o.has("verify") {
        if !o.has("reassignment-json-file") {
            return Err("If --verify option is used, command must include --reassignment-json-file that was used during the --execute option".into());
        }
        (
            "verify",
            &[
                "throttle",
                "replica-alter-log-dirs-throttle",
                "topics-to-move-json-file",
                "disable-rack-aware",
                "broker-list",
            ],
        )
    } else if o.has("generate") {
        if !(o.has("topics-to-move-json-file") && o.has("broker-list")) {
            return Err("If --generate option is used, command must include both --topics-to-move-json-file and --broker-list options".into());
        }
        (
            "generate",
            &[
                "throttle",
                "replica-alter-log-dirs-throttle",
                "reassignment-json-file",
            ],
        )
    } else {
        if !o.has("reassignment-json-file") {
            return Err("If --execute option is used, command must include --reassignment-json-file that was output during the --generate option".into());
        }
        (
            "execute",
            &[
                "topics-to-move-json-file",
                "disable-rack-aware",
                "broker-list",
            ],
        )
    };
    if let Some(bad) = invalid.iter().find(|n| o.has(n)) {
        return Err(opts::cant_combine(used, bad));
    }
    for name in ["throttle", "replica-alter-log-dirs-throttle", "timeout"] {
        if let Some(v) = o.value(name) {
            if v.parse::<i64>().is_err() {
                return Err(format!("Cannot parse argument '{v}' of option {name}"));
            }
        }
    }
    Ok(())
}

/// The option's file, as `Utils.readFileAsString` reads it.
fn read<'a>(o: &opts::Parsed, c: &'a Cluster, name: &str) -> Result<&'a str, Thrown> {
    let path = o.value(name).unwrap_or_default();
    files::read(c.files, path).map_err(|p| thrown("java.nio.file.NoSuchFileException", p))
}

/// `Json.parseFull` and the `version` field (1 when absent).
fn parse_versioned(text: &str) -> Result<Value, Thrown> {
    let js: Value = serde_json::from_str(text)
        .map_err(|_| thrown(ADMIN_OPERATION, "The input string is not a valid JSON"))?;
    let version = match js.as_object().and_then(|m| m.get("version")) {
        None => 1,
        Some(v) => v
            .as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .ok_or_else(|| thrown(JSON_MAPPING, format!("Expected `Int` value, received {v}")))?,
    };
    if version != 1 {
        return Err(thrown(
            ADMIN_OPERATION,
            format!("Not supported version field value {version}"),
        ));
    }
    Ok(js)
}

/// `JsonValue.asJsonObject` / `asJsonArray`.
fn object(v: &Value) -> Result<&serde_json::Map<String, Value>, Thrown> {
    v.as_object()
        .ok_or_else(|| thrown(JSON_MAPPING, format!("Expected JSON object, received {v}")))
}

fn array(v: &Value) -> Result<&Vec<Value>, Thrown> {
    let a = v
        .as_array()
        .ok_or_else(|| thrown(JSON_MAPPING, format!("Expected JSON array, received {v}")))?;
    if a.len() > MAX_PARTITIONS {
        return Err(thrown(
            ADMIN_FAILED,
            format!("kcsim: at most {MAX_PARTITIONS} entries in a file"),
        ));
    }
    Ok(a)
}

/// `JsonObject.apply`: the field, or Kafka's error for a missing one.
fn field<'a>(obj: &'a serde_json::Map<String, Value>, name: &str) -> Result<&'a Value, Thrown> {
    obj.get(name)
        .ok_or_else(|| thrown(JSON_MAPPING, format!("No such field exists: `{name}`")))
}

fn as_string(v: &Value) -> Result<String, Thrown> {
    v.as_str().map(str::to_string).ok_or_else(|| {
        thrown(
            JSON_MAPPING,
            format!("Expected `String` value, received {v}"),
        )
    })
}

fn as_int(v: &Value) -> Result<i64, Thrown> {
    v.as_i64()
        .filter(|n| i32::try_from(*n).is_ok())
        .ok_or_else(|| thrown(JSON_MAPPING, format!("Expected `Int` value, received {v}")))
}

/// `parseTopicsData`: the `topic` of each entry of `topics`.
fn parse_topics(text: &str) -> Result<Vec<String>, Thrown> {
    let js = parse_versioned(text)?;
    let Some(list) = object(&js)?.get("topics") else {
        return Ok(Vec::new());
    };
    array(list)?
        .iter()
        .map(|t| as_string(field(object(t)?, "topic")?))
        .collect()
}

/// One entry of a reassignment file: the partition (its number as given)
/// and the replicas.
type Entry = (String, i64, Vec<i64>);

/// `parsePartitionReassignmentData`: the entries, in the file's order and
/// not deduplicated; a `log_dirs` other than `any` is refused (kcsim keeps
/// one log directory per broker).
fn parse_reassignment(text: &str) -> Result<Vec<Entry>, Thrown> {
    let js = parse_versioned(text)?;
    let Some(list) = object(&js)?.get("partitions") else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for p in array(list)? {
        let p = object(p)?;
        let topic = as_string(field(p, "topic")?)?;
        let partition = as_int(field(p, "partition")?)?;
        let replicas: Vec<i64> = array(field(p, "replicas")?)?
            .iter()
            .map(as_int)
            .collect::<Result<_, _>>()?;
        let dirs: Vec<String> = match p.get("log_dirs") {
            Some(d) => array(d)?.iter().map(as_string).collect::<Result<_, _>>()?,
            None => vec!["any".to_string(); replicas.len()],
        };
        if dirs.len() != replicas.len() {
            return Err(thrown(
                ADMIN_FAILED,
                format!(
                    "Size of replicas list {} is different from size of log dirs list {} for partition {topic}-{partition}",
                    scala_list("Vector", replicas.iter()),
                    scala_list("Vector", dirs.iter())
                ),
            ));
        }
        if dirs.iter().any(|d| d != "any") {
            return Err(thrown(
                ADMIN_FAILED,
                "bootstrap-server needs to be provided in order to reassign replica to the specified log directory (and kcsim does not simulate log directories: use \"any\")",
            ));
        }
        out.push((topic, partition, replicas));
    }
    Ok(out)
}

/// Scala's `Seq.toString`.
fn scala_list<T: std::fmt::Display>(kind: &str, items: impl Iterator<Item = T>) -> String {
    let v: Vec<String> = items.map(|i| i.to_string()).collect();
    format!("{kind}({})", v.join(", "))
}

/// `CoreUtils.duplicates`, sorted.
fn duplicates<T: Ord + Clone>(items: &[T]) -> Vec<T> {
    let mut seen = std::collections::BTreeMap::new();
    for i in items {
        *seen.entry(i.clone()).or_insert(0u32) += 1;
    }
    seen.into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(i, _)| i)
        .collect()
}

/// `getReplicaAssignmentForTopics`: every partition of the topics that
/// exist, by topic then partition (Kafka's map has no order; kcsim sorts).
fn current_assignment(c: &Cluster, topics: &[String]) -> Vec<(TopicPartition, Vec<BrokerId>)> {
    let mut names: Vec<&String> = topics.iter().collect();
    crate::sort::sort(&mut names);
    names.dedup();
    let zk = c.sim.zk();
    names
        .into_iter()
        .flat_map(|t| {
            crate::admin::topic_assignment(zk, t)
                .unwrap_or_default()
                .into_iter()
                .map(move |(p, r)| (TopicPartition::new(t, p), r))
        })
        .collect()
}

/// `formatAsReassignmentJson` with no log directories: Jackson's compact
/// JSON, `version` first, each partition's fields in Kafka's order.
pub fn reassignment_json(entries: &[(TopicPartition, Vec<BrokerId>)]) -> String {
    let parts: Vec<String> = entries
        .iter()
        .map(|(tp, replicas)| {
            let r: Vec<String> = replicas.iter().map(|b| b.0.to_string()).collect();
            let dirs = vec!["\"any\""; replicas.len()];
            format!(
                "{{\"topic\":{},\"partition\":{},\"replicas\":[{}],\"log_dirs\":[{}]}}",
                Value::from(tp.topic.as_str()),
                tp.partition,
                r.join(","),
                dirs.join(",")
            )
        })
        .collect();
    format!("{{\"version\":1,\"partitions\":[{}]}}", parts.join(","))
}

/// A seed for a topic's proposal: FNV-1a of its name, so `--generate`
/// proposes the same placement each time it is run on the same cluster.
fn topic_seed(topic: &str) -> u64 {
    topic.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// `generateAssignment`.
fn generate(o: &opts::Parsed, c: &Cluster) -> Result<String, Thrown> {
    // `split(',')` drops trailing empty strings; `toInt` refuses blanks.
    let list = o.value("broker-list").unwrap_or_default();
    let mut items: Vec<&str> = list.split(',').collect();
    while items.len() > 1 && items.last() == Some(&"") {
        items.pop();
    }
    let mut ids = Vec::new();
    for s in items {
        let id = s.parse::<i32>().map_err(|_| {
            thrown(
                "java.lang.NumberFormatException",
                format!("For input string: \"{s}\""),
            )
        })?;
        ids.push(id);
    }
    let dup = duplicates(&ids);
    if !dup.is_empty() {
        let d: Vec<String> = dup.iter().map(ToString::to_string).collect();
        return Err(thrown(
            ADMIN_FAILED,
            format!("Broker list contains duplicate entries: {}", d.join(",")),
        ));
    }
    let topics = parse_topics(read(o, c, "topics-to-move-json-file")?)?;
    let dup = duplicates(&topics);
    if !dup.is_empty() {
        return Err(thrown(
            ADMIN_FAILED,
            format!(
                "List of topics to reassign contains duplicate entries: {}",
                dup.join(",")
            ),
        ));
    }
    let current = current_assignment(c, &topics);
    // getBrokerMetadatas: the registered brokers that are in the list.
    let brokers: Vec<BrokerId> = crate::admin::registered_brokers(c.sim.zk())
        .into_iter()
        .filter(|b| i64::from(b.0) <= i64::from(i32::MAX) && ids.contains(&(b.0 as i32)))
        .collect();
    let mut proposed = Vec::new();
    let mut start = 0;
    while start < current.len() {
        let topic = &current[start].0.topic;
        let n = current[start..]
            .iter()
            .take_while(|(tp, _)| tp.topic == *topic)
            .count();
        let rf = current[start].1.len();
        if rf == 0 {
            return Err(thrown(
                "org.apache.kafka.common.errors.InvalidReplicationFactorException",
                "Replication factor must be larger than 0.",
            ));
        }
        if rf > brokers.len() {
            return Err(thrown(
                "org.apache.kafka.common.errors.InvalidReplicationFactorException",
                format!(
                    "Replication factor: {rf} larger than available brokers: {}.",
                    brokers.len()
                ),
            ));
        }
        let mut rng = Rng::new(topic_seed(topic));
        let placement =
            crate::admin::assign_replicas_rack_unaware(n as u32, rf as u32, &brokers, &mut rng);
        for (p, replicas) in placement.into_iter().enumerate() {
            proposed.push((TopicPartition::new(topic, p as u32), replicas));
        }
        start += n;
    }
    Ok(format!(
        "Current partition replica assignment\n{}\n\nProposed partition reassignment configuration\n{}\n",
        reassignment_json(&current),
        reassignment_json(&proposed)
    ))
}

/// `parseAndValidate`: the targets, or Kafka's reason to refuse them.
fn parse_and_validate(text: &str, c: &Cluster) -> Result<Vec<PartitionTarget>, Thrown> {
    let entries = parse_reassignment(text)?;
    if entries.is_empty() {
        return Err(thrown(
            ADMIN_FAILED,
            "Partition reassignment data file is empty",
        ));
    }
    if entries.iter().any(|(_, _, r)| r.is_empty()) {
        return Err(thrown(
            ADMIN_FAILED,
            "Partition replica list cannot be empty",
        ));
    }
    let names: Vec<String> = entries.iter().map(|(t, p, _)| format!("{t}-{p}")).collect();
    let dup = duplicates(&names);
    if !dup.is_empty() {
        return Err(thrown(
            ADMIN_FAILED,
            format!(
                "Partition reassignment contains duplicate topic partitions: {}",
                dup.join(",")
            ),
        ));
    }
    let repeated: Vec<String> = entries
        .iter()
        .filter_map(|(t, p, r)| {
            let d = duplicates(r);
            (!d.is_empty()).then(|| {
                let d: Vec<String> = d.iter().map(ToString::to_string).collect();
                format!("{t}-{p} contains multiple entries for {}", d.join(","))
            })
        })
        .collect();
    if !repeated.is_empty() {
        return Err(thrown(
            ADMIN_FAILED,
            format!(
                "Partition replica lists may not contain duplicate entries: {}",
                repeated.join(". ")
            ),
        ));
    }
    let topics: Vec<String> = entries.iter().map(|(t, _, _)| t.clone()).collect();
    let existing = current_assignment(c, &topics);
    let missing: Vec<&String> = entries
        .iter()
        .zip(&names)
        .filter(|((t, p, _), _)| {
            !existing
                .iter()
                .any(|(tp, _)| tp.topic == *t && i64::from(tp.partition) == *p)
        })
        .map(|(_, n)| n)
        .collect();
    if !missing.is_empty() {
        return Err(thrown(
            ADMIN_FAILED,
            format!(
                "The proposed assignment contains non-existent partitions: {}",
                scala_list("ListBuffer", missing.iter())
            ),
        ));
    }
    let registered = crate::admin::registered_brokers(c.sim.zk());
    let mut unknown: Vec<i64> = entries
        .iter()
        .flat_map(|(_, _, r)| r.iter().copied())
        .filter(|b| !registered.iter().any(|r| i64::from(r.0) == *b))
        .collect();
    crate::sort::sort(&mut unknown);
    unknown.dedup();
    if !unknown.is_empty() {
        let u: Vec<String> = unknown.iter().map(ToString::to_string).collect();
        return Err(thrown(
            ADMIN_FAILED,
            format!(
                "The proposed assignment contains non-existent brokerIDs: {}",
                u.join(",")
            ),
        ));
    }
    // Every partition and broker now names one the cluster has.
    Ok(entries
        .into_iter()
        .map(|(topic, p, r)| PartitionTarget {
            topic,
            partition: u32::try_from(p).unwrap_or_default(),
            replicas: r
                .into_iter()
                .map(|b| BrokerId(u32::try_from(b).unwrap_or_default()))
                .collect(),
        })
        .collect())
}

/// `executeAssignment`.
fn execute(o: &opts::Parsed, c: &Cluster) -> Result<Reply, Thrown> {
    let targets = parse_and_validate(read(o, c, "reassignment-json-file")?, c)?;
    if c.view.znode(paths::REASSIGN_PARTITIONS).is_some() {
        // maybeLimit: without --throttle, nothing more.
        return Ok(Reply::Print(
            "There is an existing assignment running.\n".into(),
        ));
    }
    let topics: Vec<String> = targets.iter().map(|t| t.topic.clone()).collect();
    let mut done = format!(
        "Current partition replica assignment\n\n{}\n\nSave this to use as the --reassignment-json-file option during rollback\n",
        reassignment_json(&current_assignment(c, &topics))
    );
    if o.value("throttle").is_some_and(|t| !t.starts_with('-'))
        || o.value("replica-alter-log-dirs-throttle")
            .is_some_and(|t| !t.starts_with('-'))
    {
        done.push_str("Warning: You must run Verify periodically, until the reassignment completes, to ensure the throttle is removed. You can also alter the throttle by rerunning the Execute command passing a new value.\n");
    }
    done.push_str("Successfully started reassignment of partitions.\n");
    Ok(Reply::Act {
        actions: vec![Action::ReassignPartitions {
            partitions: targets,
        }],
        done,
        error_prefix: "Partitions reassignment failed due to ".into(),
    })
}

/// `verifyAssignment` for partitions (log directories are not simulated):
/// in progress while `/admin/reassign_partitions` names the partition,
/// then completed if the topic's assignment is the target, failed if not.
/// Partitions by topic then number (Kafka's map has no order).
fn verify(o: &opts::Parsed, c: &Cluster) -> Result<String, Thrown> {
    let entries = parse_reassignment(read(o, c, "reassignment-json-file")?)?;
    let running = c
        .view
        .znode(paths::REASSIGN_PARTITIONS)
        .and_then(|z| crate::znodes::decode_reassign_partitions(&z.data))
        .unwrap_or_default();
    // `toMap`: the last entry for a partition wins.
    let mut targets: std::collections::BTreeMap<(String, i64), Vec<i64>> = Default::default();
    for (t, p, r) in entries {
        targets.insert((t, p), r);
    }
    let mut out = String::new();
    for ((topic, p), replicas) in targets {
        let tp = format!("{topic}-{p}");
        let in_progress = running
            .iter()
            .any(|(rtp, _)| rtp.topic == topic && i64::from(rtp.partition) == p);
        let status = if in_progress {
            "is still in progress"
        } else {
            let now = crate::admin::topic_assignment(c.sim.zk(), &topic)
                .unwrap_or_default()
                .into_iter()
                .find(|(q, _)| i64::from(*q) == p)
                .map(|(_, r)| r.iter().map(|b| i64::from(b.0)).collect::<Vec<_>>());
            if now.as_ref() == Some(&replicas) {
                "completed successfully"
            } else {
                "failed"
            }
        };
        out.push_str(&format!("Reassignment of partition {tp} {status}\n"));
    }
    Ok(out)
}
