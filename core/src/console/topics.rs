//! `kafka-topics.sh`, as Kafka 2.4's TopicCommand
//! (core/src/main/scala/kafka/admin/TopicCommand.scala at tag 2.4.0):
//! `TopicCommandOptions.checkArgs` for what is refused, the
//! `ZookeeperTopicService` and `AdminClientTopicService` for what is printed.

use super::opts::{self, cant_combine, missing, Parsed, Spec};
use super::{Cluster, Reply};
use crate::action::Action;
use crate::admin;
use crate::view::DescribeOptions;

pub(super) const SPEC: Spec = &[
    ("bootstrap-server", true),
    ("zookeeper", true),
    ("list", false),
    ("describe", false),
    ("create", false),
    ("alter", false),
    ("delete", false),
    ("topic", true),
    ("partitions", true),
    ("replication-factor", true),
    ("under-replicated-partitions", false),
    ("unavailable-partitions", false),
    ("under-min-isr-partitions", false),
    ("at-min-isr-partitions", false),
    ("help", false),
];

const ACTIONS: [&str; 5] = ["create", "list", "alter", "describe", "delete"];
const REPORTS: [&str; 4] = [
    "under-replicated-partitions",
    "unavailable-partitions",
    "under-min-isr-partitions",
    "at-min-isr-partitions",
];

/// TopicCommand's `catch`: every failure after the arguments are checked.
const ERROR: &str = "Error while executing topic command : ";

fn usage(message: &str) -> Reply {
    Reply::Usage(opts::usage(message, SPEC))
}

/// An exception's message without the class name our admin errors carry
/// (Kafka prints `e.getMessage`).
fn message(e: impl std::fmt::Display) -> String {
    let s = e.to_string();
    match s.split_once(": ") {
        Some((class, rest)) if class.ends_with("Exception") && !class.contains(' ') => {
            rest.to_string()
        }
        _ => s,
    }
}

/// `TopicCommandOptions.checkArgs`, in its order.
fn check(o: &Parsed, args: &[String]) -> Result<(), String> {
    if args.is_empty() {
        return Err("Create, delete, describe, or change a topic.".into());
    }
    if o.has("help") {
        return Err("This tool helps to create, delete, describe, or change a topic.".into());
    }
    if ACTIONS.iter().filter(|a| o.has(a)).count() != 1 {
        return Err(
            "Command must include exactly one action: --list, --describe, --create, --alter or --delete"
                .into(),
        );
    }
    if o.has("bootstrap-server") == o.has("zookeeper") {
        // Thrown from checkArgs, outside main's try: the JVM prints it.
        return Err("Exception in thread \"main\" java.lang.IllegalArgumentException: Only one of --bootstrap-server or --zookeeper must be specified".into());
    }
    if !o.has("list") && !o.has("describe") && !o.has("topic") {
        return Err(missing("topic"));
    }
    if o.has("create") && o.has("zookeeper") {
        for r in ["partitions", "replication-factor"] {
            if !o.has(r) {
                return Err(missing(r));
            }
        }
    }
    if o.has("alter") && !o.has("partitions") {
        // Required with --bootstrap-server; with --zookeeper, --alter without
        // it (or a config) does nothing, so the console asks for it too.
        return Err(missing("partitions"));
    }
    let others = |allowed: &[&str]| {
        ACTIONS
            .iter()
            .find(|a| o.has(a) && !allowed.contains(a))
            .copied()
    };
    if o.has("partitions") {
        if let Some(a) = others(&["alter", "create"]) {
            return Err(cant_combine("partitions", a));
        }
    }
    if o.has("replication-factor") {
        if let Some(a) = others(&["create"]) {
            return Err(cant_combine("replication-factor", a));
        }
    }
    for r in REPORTS {
        if !o.has(r) {
            continue;
        }
        if let Some(a) = others(&["describe"]) {
            return Err(cant_combine(r, a));
        }
        if let Some(other) = REPORTS.iter().find(|x| **x != r && o.has(x)) {
            return Err(cant_combine(r, other));
        }
        if r.contains("min-isr") && o.has("zookeeper") {
            return Err(cant_combine(r, "zookeeper"));
        }
    }
    Ok(())
}

fn number(o: &Parsed, name: &str) -> Result<Option<i64>, String> {
    o.value(name)
        .map(|v| {
            v.parse::<i64>()
                .map_err(|_| format!("Cannot parse argument '{v}' of option {name}"))
        })
        .transpose()
}

/// `kafka-topics.sh ARGS`.
pub fn run(args: &[String], c: &Cluster) -> Reply {
    let o = match opts::parse(args, SPEC) {
        Ok(o) => o,
        Err(e) => return usage(&e),
    };
    if let Err(e) = check(&o, args) {
        return usage(&e);
    }
    let (partitions, rf) = match (number(&o, "partitions"), number(&o, "replication-factor")) {
        (Ok(p), Ok(r)) => (p, r),
        (Err(e), _) | (_, Err(e)) => return usage(&e),
    };
    let zookeeper = o.has("zookeeper");
    // `--topic` is a whitelist; the console takes names, comma-separated.
    let wanted: Option<Vec<String>> = o
        .value("topic")
        .map(|t| t.split(',').map(str::to_string).collect());
    let existing: Vec<&str> = c.view.topics.iter().map(|t| t.name.as_str()).collect();
    let found: Vec<&str> = existing
        .iter()
        .copied()
        .filter(|t| wanted.as_ref().is_none_or(|w| w.iter().any(|n| n == t)))
        .collect();
    // ensureTopicExists
    let requested = o.value("topic").unwrap_or_default();
    let must_exist = o.has("alter") || o.has("delete") || (o.has("describe") && zookeeper);
    if must_exist && wanted.is_some() && found.is_empty() {
        return Reply::Usage(format!(
            "{ERROR}Topic '{requested}' does not exist as expected\n"
        ));
    }
    let marked = |t: &str| c.view.znode(&format!("/admin/delete_topics/{t}")).is_some();
    if o.has("list") {
        let mut out = String::new();
        for t in &found {
            // Only ZookeeperTopicService says so.
            if zookeeper && marked(t) {
                out.push_str(&format!("{t} - marked for deletion\n"));
            } else {
                out.push_str(&format!("{t}\n"));
            }
        }
        return Reply::Print(out);
    }
    if o.has("describe") {
        let d = DescribeOptions {
            topics: wanted,
            zookeeper,
            under_replicated: o.has("under-replicated-partitions"),
            unavailable: o.has("unavailable-partitions"),
            under_min_isr: o.has("under-min-isr-partitions"),
            at_min_isr: o.has("at-min-isr-partitions"),
            default_min_isr: usize::try_from(c.sim.config().min_insync_replicas)
                .unwrap_or(usize::MAX),
        };
        return Reply::Print(c.view.describe_with(&d));
    }
    if o.has("create") {
        let name = requested.to_string();
        if let Err(e) = admin::validate_topic_name(&name) {
            return Reply::Usage(format!("{ERROR}{}\n", message(e)));
        }
        if existing.contains(&name.as_str()) {
            return Reply::Usage(format!("{ERROR}Topic '{name}' already exists.\n"));
        }
        // Without them the admin client's path leaves the broker's
        // num.partitions and default.replication.factor (both 1) to apply.
        let p = partitions.unwrap_or(1);
        let r = rf.unwrap_or(1);
        if !(1..=i64::from(i16::MAX)).contains(&r) {
            return Reply::Usage(format!(
                "{ERROR}The replication factor must be between 1 and {} inclusive\n",
                i16::MAX
            ));
        }
        let Some(p) = u32::try_from(p).ok().filter(|p| *p > 0 && *p <= 100_000) else {
            return Reply::Usage(format!("{ERROR}The partitions must be greater than 0\n"));
        };
        let mut done = String::new();
        if name.contains('.') || name.contains('_') {
            done.push_str("WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. To avoid issues it is best to use either, but not both.\n");
        }
        // Only ZookeeperTopicService prints it; the admin client's path is silent.
        if zookeeper {
            done.push_str(&format!("Created topic {name}.\n"));
        }
        return Reply::Act {
            actions: vec![Action::CreateTopic {
                name,
                assignment: None,
                partitions: Some(p),
                replication_factor: Some(r as u32),
            }],
            done,
            error_prefix: ERROR.into(),
        };
    }
    if o.has("alter") {
        let Some(count) = partitions.and_then(|p| u32::try_from(p).ok()) else {
            return Reply::Usage(format!("{ERROR}The partitions must be greater than 0\n"));
        };
        // kcsim's limit (docs/inputs.md): the count is the new total, and
        // every partition of it is simulated.
        let most = crate::scenario::MAX_PARTITIONS_PER_TOPIC;
        if u64::from(count) > most {
            return Reply::Usage(format!(
                "{ERROR}kcsim: at most {most} partitions per topic (MAX_PARTITIONS_PER_TOPIC); {count} asked for\n"
            ));
        }
        let actions = found
            .iter()
            .map(|t| Action::AddPartitions {
                topic: t.to_string(),
                count,
            })
            .collect();
        let done = if zookeeper {
            "WARNING: If partitions are increased for a topic that has a key, the partition logic or ordering of the messages will be affected\nAdding partitions succeeded!\n".repeat(found.len())
        } else {
            String::new()
        };
        return Reply::Act {
            actions,
            done,
            error_prefix: ERROR.into(),
        };
    }
    // --delete
    let mut done = String::new();
    let mut actions = Vec::new();
    for t in &found {
        if marked(t) && zookeeper {
            done.push_str(&format!("Topic {t} is already marked for deletion.\n"));
            continue;
        }
        actions.push(Action::DeleteTopic {
            topic: t.to_string(),
        });
        if zookeeper {
            done.push_str(&format!(
                "Topic {t} is marked for deletion.\nNote: This will have no impact if delete.topic.enable is not set to true.\n"
            ));
        }
    }
    Reply::Act {
        actions,
        done,
        error_prefix: ERROR.into(),
    }
}
