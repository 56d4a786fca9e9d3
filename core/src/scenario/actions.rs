//! The `actions` list of a scenario file: each timed action parsed into an
//! [`Action`], strictly (an unknown field, a wrong type or a reference to a
//! broker, topic or partition the scenario does not have is an error that
//! names the field). The actions are kcsim's own, each standing for what an
//! operator or the network does to a Kafka 2.4 cluster: a broker killed or
//! shut down (`kafka-server-stop`), a session expired, a topic created,
//! deleted or given partitions (`kafka-topics`), an election
//! (`kafka-leader-election`), a reassignment (`kafka-reassign-partitions`).

use super::{
    bad, broker_id, check_topic_name, err, known_keys, missing, object, parse_placement, Placement,
    ScenarioError, MAX_ACTIONS, MAX_BROKERS, MAX_PARTITIONS, MAX_PARTITIONS_PER_TOPIC,
    MAX_REPLICAS, MAX_TIME_MS, MAX_TOPICS, MAX_ZNODE_DATA_BYTES,
};
use crate::action::Action;
use crate::config::{parse_u64, Config};
use crate::ids::BrokerId;
use crate::time::SimTime;
use serde_json::{Map, Value};

pub(crate) fn parse_actions(
    v: &Value,
    brokers: &[BrokerId],
    topics: &[String],
) -> Result<Vec<(SimTime, Action)>, ScenarioError> {
    let list = v
        .as_array()
        .ok_or_else(|| bad("actions", "a list of actions", v))?;
    if list.len() > MAX_ACTIONS {
        return err(
            "actions",
            over(
                "actions",
                list.len() as u64,
                MAX_ACTIONS as u64,
                "MAX_ACTIONS",
            ),
        );
    }
    let mut out = Vec::new();
    for (i, a) in list.iter().enumerate() {
        let f = format!("actions[{i}]");
        let obj = object(a, &f)?;
        let at_v = obj
            .get("at_ms")
            .ok_or_else(|| missing(&format!("{f}.at_ms")))?;
        let at = at_v.as_u64().filter(|t| *t <= MAX_TIME_MS).ok_or_else(|| {
            bad(
                &format!("{f}.at_ms"),
                "a time in ms from 0 to 86400000 (one day)",
                at_v,
            )
        })?;
        let name_v = obj
            .get("action")
            .ok_or_else(|| missing(&format!("{f}.action")))?;
        let name = name_v
            .as_str()
            .ok_or_else(|| bad(&format!("{f}.action"), "an action name", name_v))?;
        let broker = |key: &str| -> Result<BrokerId, ScenarioError> {
            let fb = format!("{f}.{key}");
            let bv = obj.get(key).ok_or_else(|| missing(&fb))?;
            let id = broker_id(bv, &fb)?;
            if !brokers.contains(&id) {
                return err(fb, format!("no broker {id} in this cluster"));
            }
            Ok(id)
        };
        let text = |key: &str| -> Result<String, ScenarioError> {
            let fk = format!("{f}.{key}");
            let tv = obj.get(key).ok_or_else(|| missing(&fk))?;
            tv.as_str()
                .map(str::to_string)
                .ok_or_else(|| bad(&fk, "a string", tv))
        };
        // An optional `topic`, which must be one of the scenario's.
        let optional_topic = || -> Result<Option<String>, ScenarioError> {
            let Some(t) = obj.get("topic") else {
                return Ok(None);
            };
            let name = t
                .as_str()
                .ok_or_else(|| bad(&format!("{f}.topic"), "a topic name", t))?;
            if !topics.iter().any(|x| x == name) {
                return err(
                    format!("{f}.topic"),
                    format!("no topic {name:?} in this scenario"),
                );
            }
            Ok(Some(name.to_string()))
        };
        let (action, keys): (Action, &[&str]) = match name {
            "kill_broker" => (
                Action::KillBroker {
                    broker: broker("broker")?,
                },
                &["broker"],
            ),
            "start_broker" => (
                Action::StartBroker {
                    broker: broker("broker")?,
                },
                &["broker"],
            ),
            "shutdown_broker" => (
                Action::ShutdownBroker {
                    broker: broker("broker")?,
                },
                &["broker"],
            ),
            "expire_session" => (
                Action::ExpireSession {
                    broker: broker("broker")?,
                },
                &["broker"],
            ),
            "pause_broker" => {
                let fd = format!("{f}.duration_ms");
                let dv = obj.get("duration_ms").ok_or_else(|| missing(&fd))?;
                let duration_ms = parse_u64(dv)
                    .filter(|d| *d > 0)
                    .ok_or_else(|| bad(&fd, "a duration in ms greater than 0", dv))?;
                (
                    Action::PauseBroker {
                        broker: broker("broker")?,
                        duration_ms,
                    },
                    &["broker", "duration_ms"],
                )
            }
            "delete_znode" => {
                let path = text("path")?;
                check_path(&path, &format!("{f}.path"))?;
                (Action::DeleteZnode { path }, &["path"])
            }
            "set_znode" => {
                let path = text("path")?;
                check_path(&path, &format!("{f}.path"))?;
                (
                    Action::SetZnode {
                        path,
                        data: text("data")?,
                    },
                    &["path", "data"],
                )
            }
            "create_znode" => {
                let path = text("path")?;
                check_path(&path, &format!("{f}.path"))?;
                if path == "/" {
                    return err(format!("{f}.path"), "the root znode always exists");
                }
                let flag = |key: &str| -> Result<bool, ScenarioError> {
                    match obj.get(key) {
                        None => Ok(false),
                        Some(v) => v
                            .as_bool()
                            .ok_or_else(|| bad(&format!("{f}.{key}"), "true or false", v)),
                    }
                };
                (
                    Action::CreateZnode {
                        path,
                        data: text("data")?,
                        ephemeral: flag("ephemeral")?,
                        sequential: flag("sequential")?,
                    },
                    &["path", "data", "ephemeral", "sequential"],
                )
            }
            "delete_config" => {
                let key = text("key")?;
                let topic = optional_topic()?;
                let keys = if topic.is_some() {
                    Config::TOPIC_KEYS
                } else {
                    Config::DYNAMIC_KEYS
                };
                if !keys.contains(&key.as_str()) {
                    return err(
                        format!("{f}.key"),
                        format!(
                            "{key:?} has no dynamic value to delete; expected one of {}",
                            keys.join(", ")
                        ),
                    );
                }
                (Action::DeleteConfig { key, topic }, &["key", "topic"])
            }
            "produce" => {
                let topic = text("topic")?;
                if !topics.contains(&topic) {
                    return err(
                        format!("{f}.topic"),
                        format!("no topic {topic:?} in this scenario"),
                    );
                }
                let fp = format!("{f}.partition");
                let pv = obj.get("partition").ok_or_else(|| missing(&fp))?;
                let partition = pv
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| bad(&fp, "a partition number", pv))?;
                let fr = format!("{f}.records");
                let rv = obj.get("records").ok_or_else(|| missing(&fr))?;
                let records = rv
                    .as_u64()
                    .filter(|n| (1..=1_000_000).contains(n))
                    .ok_or_else(|| bad(&fr, "a record count from 1 to 1000000", rv))?;
                let acks = match obj.get("acks") {
                    None => crate::log::Acks::All,
                    Some(a) => match (a.as_str(), a.as_i64()) {
                        (Some("all"), _) | (Some("-1"), _) | (_, Some(-1)) => crate::log::Acks::All,
                        (Some("1"), _) | (_, Some(1)) => crate::log::Acks::Leader,
                        (Some("0"), _) | (_, Some(0)) => crate::log::Acks::None,
                        _ => return Err(bad(&format!("{f}.acks"), "0, 1 or \"all\"", a)),
                    },
                };
                (
                    Action::Produce {
                        topic,
                        partition,
                        records,
                        acks,
                    },
                    &["topic", "partition", "records", "acks"],
                )
            }
            "add_partitions" => {
                let topic = text("topic")?;
                if !topics.contains(&topic) {
                    return err(
                        format!("{f}.topic"),
                        format!("no topic {topic:?} in this scenario"),
                    );
                }
                let fc = format!("{f}.count");
                let cv = obj.get("count").ok_or_else(|| missing(&fc))?;
                let count = cv
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .filter(|n| (1..=100_000).contains(n))
                    .ok_or_else(|| bad(&fc, "a partition count from 1 to 100000", cv))?;
                (Action::AddPartitions { topic, count }, &["topic", "count"])
            }
            "delete_topic" => {
                let topic = text("topic")?;
                if !topics.contains(&topic) {
                    return err(
                        format!("{f}.topic"),
                        format!("no topic {topic:?} in this scenario"),
                    );
                }
                (Action::DeleteTopic { topic }, &["topic"])
            }
            "reassign_partitions" => {
                let fp = format!("{f}.partitions");
                let pv = obj.get("partitions").ok_or_else(|| missing(&fp))?;
                let list = pv.as_array().filter(|l| !l.is_empty()).ok_or_else(|| {
                    bad(&fp, "a non-empty list of {topic, partition, replicas}", pv)
                })?;
                let mut targets = Vec::new();
                for (i, e) in list.iter().enumerate() {
                    let fi = format!("{fp}[{i}]");
                    let eo = object(e, &fi)?;
                    known_keys(eo, &fi, &["topic", "partition", "replicas"])?;
                    let tp = parse_tp(eo, &fi, topics)?;
                    let rv = eo
                        .get("replicas")
                        .ok_or_else(|| missing(&format!("{fi}.replicas")))?;
                    let ids = rv.as_array().filter(|r| !r.is_empty()).ok_or_else(|| {
                        bad(
                            &format!("{fi}.replicas"),
                            "a non-empty list of broker ids",
                            rv,
                        )
                    })?;
                    let mut replicas = Vec::new();
                    for (j, b) in ids.iter().enumerate() {
                        let fb = format!("{fi}.replicas[{j}]");
                        let id = broker_id(b, &fb)?;
                        if !brokers.contains(&id) {
                            return err(fb, format!("no broker {id} in this cluster"));
                        }
                        if replicas.contains(&id) {
                            return err(fb, format!("duplicate replica {id}"));
                        }
                        replicas.push(id);
                    }
                    targets.push(crate::action::PartitionTarget {
                        topic: tp.topic.to_string(),
                        partition: tp.partition,
                        replicas,
                    });
                }
                (
                    Action::ReassignPartitions {
                        partitions: targets,
                    },
                    &["partitions"],
                )
            }
            "slow_broker" => {
                let fl = format!("{f}.lag_ms");
                let lv = obj.get("lag_ms").ok_or_else(|| missing(&fl))?;
                let lag_ms = lv
                    .as_u64()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| bad(&fl, "a lag in ms greater than 0", lv))?;
                (
                    Action::SlowBroker {
                        broker: broker("broker")?,
                        lag_ms,
                    },
                    &["broker", "lag_ms"],
                )
            }
            "heal_broker" => (
                Action::HealBroker {
                    broker: broker("broker")?,
                },
                &["broker"],
            ),
            "preferred_election" => {
                let partitions = match obj.get("partitions") {
                    None => None,
                    Some(v) => Some(parse_tp_list(v, &format!("{f}.partitions"), topics)?),
                };
                (Action::PreferredElection { partitions }, &["partitions"])
            }
            "elect_leaders" => {
                let ft = format!("{f}.election_type");
                let tv = obj.get("election_type").ok_or_else(|| missing(&ft))?;
                let election_type = match tv.as_str() {
                    Some("PREFERRED") => crate::controller::event::ElectionType::Preferred,
                    Some("UNCLEAN") => crate::controller::event::ElectionType::Unclean,
                    _ => return Err(bad(&ft, "PREFERRED or UNCLEAN", tv)),
                };
                let fp = format!("{f}.partitions");
                let pv = obj.get("partitions").ok_or_else(|| missing(&fp))?;
                let partitions = parse_tp_list(pv, &fp, topics)?;
                (
                    Action::ElectLeaders {
                        election_type,
                        partitions,
                    },
                    &["election_type", "partitions"],
                )
            }
            "delay_message" | "drop_message" => {
                let fi = format!("{f}.id");
                let iv = obj.get("id").ok_or_else(|| missing(&fi))?;
                let id = iv.as_u64().ok_or_else(|| bad(&fi, "a message id", iv))?;
                if name == "drop_message" {
                    (Action::DropMessage { id }, &["id"])
                } else {
                    let fd = format!("{f}.delay_ms");
                    let dv = obj.get("delay_ms").ok_or_else(|| missing(&fd))?;
                    let delay_ms = dv.as_u64().ok_or_else(|| bad(&fd, "a delay in ms", dv))?;
                    (Action::DelayMessage { id, delay_ms }, &["id", "delay_ms"])
                }
            }
            "create_topic" => {
                let name = text("name")?;
                check_topic_name(&name, &format!("{f}.name"))?;
                let placement = parse_placement(obj, &f, brokers)?;
                let action = match placement {
                    Placement::Assignment(a) => Action::CreateTopic {
                        name,
                        assignment: Some(a),
                        partitions: None,
                        replication_factor: None,
                    },
                    Placement::Count {
                        partitions,
                        replication_factor,
                    } => Action::CreateTopic {
                        name,
                        assignment: None,
                        partitions: Some(partitions),
                        replication_factor: Some(replication_factor),
                    },
                };
                (
                    action,
                    &["name", "assignment", "partitions", "replication_factor"],
                )
            }
            "set_config" => {
                let key = text("key")?;
                let fv = format!("{f}.value");
                let value = obj.get("value").ok_or_else(|| missing(&fv))?.clone();
                let topic = optional_topic()?;
                if topic.is_some() && !Config::TOPIC_KEYS.contains(&key.as_str()) {
                    return err(
                        format!("{f}.key"),
                        format!(
                            "{key:?} is not a topic-level key; expected one of {}",
                            Config::TOPIC_KEYS.join(", ")
                        ),
                    );
                }
                let mut probe = Config::default();
                probe.set(&key, &value).map_err(|e| ScenarioError {
                    field: match e {
                        crate::config::ConfigError::UnknownKey(_)
                        | crate::config::ConfigError::Static { .. }
                        | crate::config::ConfigError::NotSet(_) => format!("{f}.key"),
                        crate::config::ConfigError::BadValue { .. } => format!("{f}.value"),
                    },
                    message: e.to_string(),
                })?;
                (
                    Action::SetConfig { key, value, topic },
                    &["key", "value", "topic"],
                )
            }
            other => {
                return err(
                    format!("{f}.action"),
                    format!(
                        "unknown action {other:?}; expected one of {}",
                        ACTION_NAMES.join(", ")
                    ),
                )
            }
        };
        let mut allowed = vec!["at_ms", "action"];
        allowed.extend_from_slice(keys);
        known_keys(obj, &f, &allowed)?;
        check_action(&action).or_else(|m| err(f.clone(), m))?;
        out.push((SimTime(at), action));
    }
    Ok(out)
}

/// Every action name a scenario may use.
pub const ACTION_NAMES: &[&str] = &[
    "kill_broker",
    "start_broker",
    "shutdown_broker",
    "pause_broker",
    "expire_session",
    "delete_znode",
    "set_znode",
    "set_config",
    "delete_config",
    "create_znode",
    "create_topic",
    "delay_message",
    "drop_message",
    "preferred_election",
    "elect_leaders",
    "produce",
    "slow_broker",
    "heal_broker",
    "add_partitions",
    "delete_topic",
    "reassign_partitions",
];

/// A list of `{"topic": …, "partition": …}`; topics must be known to the scenario.
fn parse_tp_list(
    v: &Value,
    field: &str,
    topics: &[String],
) -> Result<Vec<crate::ids::TopicPartition>, ScenarioError> {
    let list = v
        .as_array()
        .ok_or_else(|| bad(field, "a list of {topic, partition}", v))?;
    let mut out = Vec::new();
    for (i, p) in list.iter().enumerate() {
        let fi = format!("{field}[{i}]");
        let obj = object(p, &fi)?;
        known_keys(obj, &fi, &["topic", "partition"])?;
        out.push(parse_tp(obj, &fi, topics)?);
    }
    Ok(out)
}

/// The `topic` and `partition` fields of an object; the topic must be known.
fn parse_tp(
    obj: &Map<String, Value>,
    field: &str,
    topics: &[String],
) -> Result<crate::ids::TopicPartition, ScenarioError> {
    let tv = obj
        .get("topic")
        .ok_or_else(|| missing(&format!("{field}.topic")))?;
    let topic = tv
        .as_str()
        .ok_or_else(|| bad(&format!("{field}.topic"), "a topic name", tv))?;
    if !topics.iter().any(|t| t == topic) {
        return err(
            format!("{field}.topic"),
            format!("no topic {topic:?} in this scenario"),
        );
    }
    let pv = obj
        .get("partition")
        .ok_or_else(|| missing(&format!("{field}.partition")))?;
    let partition = pv
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| bad(&format!("{field}.partition"), "a partition number", pv))?;
    Ok(crate::ids::TopicPartition::new(topic, partition))
}

fn check_path(path: &str, field: &str) -> Result<(), ScenarioError> {
    if !path.starts_with('/') || (path.len() > 1 && path.ends_with('/')) || path.contains("//") {
        return err(field, format!("{path:?} is not an absolute znode path"));
    }
    Ok(())
}

/// `"{value} {what}, over the limit of {limit} ({name})"`: one message
/// for every limit (one format, so the page's code stays small).
pub(crate) fn over(what: &str, value: u64, limit: u64, name: &str) -> String {
    format!("{value} {what}, over the limit of {limit} ({name})")
}

/// The limits on one action's own numbers and sizes, whichever way it came
/// in (a scenario or lesson file, a share link, a trace file): the checks a
/// scenario file's parser makes field by field, for an [`Action`] that was
/// deserialized directly. It does not know the cluster (which brokers and
/// topics exist): the simulation refuses those when the action is taken.
pub fn check_action(action: &Action) -> Result<(), String> {
    // (what, value, lowest, highest, the limit's name)
    let mut checks: Vec<(&str, u64, u64, u64, &str)> = Vec::new();
    let day = "ms (MAX_TIME_MS, one day)";
    let per_topic = "partitions (MAX_PARTITIONS_PER_TOPIC)";
    let brokers = "replicas (MAX_BROKERS)";
    let all = "partitions (MAX_PARTITIONS)";
    let b = MAX_BROKERS as u64;
    match action {
        Action::PauseBroker { duration_ms, .. } => {
            checks.push(("a pause of", *duration_ms, 1, MAX_TIME_MS, day));
        }
        Action::DelayMessage { delay_ms, .. } => {
            checks.push(("a delay of", *delay_ms, 0, MAX_TIME_MS, day));
        }
        Action::SlowBroker { lag_ms, .. } => {
            checks.push(("a lag of", *lag_ms, 0, MAX_TIME_MS, day));
        }
        Action::SetZnode { data, .. } | Action::CreateZnode { data, .. } => checks.push((
            "data of",
            data.len() as u64,
            0,
            MAX_ZNODE_DATA_BYTES as u64,
            "bytes (MAX_ZNODE_DATA_BYTES, ZooKeeper's jute.maxbuffer)",
        )),
        Action::Produce { records, .. } => {
            checks.push(("a produce of", *records, 1, 1_000_000, "records"));
        }
        Action::AddPartitions { count, .. } => {
            checks.push((
                "a topic of",
                u64::from(*count),
                1,
                MAX_PARTITIONS_PER_TOPIC,
                per_topic,
            ));
        }
        Action::CreateTopic {
            assignment,
            partitions,
            replication_factor,
            ..
        } => {
            if let Some(p) = partitions {
                checks.push((
                    "a topic of",
                    u64::from(*p),
                    1,
                    MAX_PARTITIONS_PER_TOPIC,
                    per_topic,
                ));
            }
            if let Some(rf) = replication_factor {
                checks.push(("a partition of", u64::from(*rf), 1, b, brokers));
            }
            for row in assignment.iter().flatten() {
                checks.push(("a partition of", row.len() as u64, 1, b, brokers));
            }
            if let Some(a) = assignment {
                checks.push((
                    "a topic of",
                    a.len() as u64,
                    1,
                    MAX_PARTITIONS_PER_TOPIC,
                    per_topic,
                ));
            }
        }
        Action::ReassignPartitions { partitions } => {
            checks.push((
                "a reassignment of",
                partitions.len() as u64,
                0,
                MAX_PARTITIONS,
                all,
            ));
            for t in partitions {
                checks.push(("a partition of", t.replicas.len() as u64, 1, b, brokers));
            }
        }
        Action::ElectLeaders { partitions, .. } => {
            checks.push((
                "an election of",
                partitions.len() as u64,
                0,
                MAX_PARTITIONS,
                all,
            ));
        }
        Action::PreferredElection {
            partitions: Some(p),
        } => checks.push(("an election of", p.len() as u64, 0, MAX_PARTITIONS, all)),
        _ => {}
    }
    for (what, value, lo, hi, name) in checks {
        if !(lo..=hi).contains(&value) {
            return Err(format!("{what} {value} {name} is not from {lo} to {hi}"));
        }
    }
    Ok(())
}

/// What a list of topics and actions creates in all, checked against
/// [`MAX_TOPICS`], [`MAX_PARTITIONS`] and [`MAX_REPLICAS`] before anything
/// is built, so that no file or link can make the page allocate more than
/// the largest cluster it opens. Topics it was not told about (a built-in
/// scenario's, under a share link) count from nothing, replication factor 1.
#[derive(Debug, Clone, Default)]
pub struct Budget {
    /// Each topic: name, partitions, replication factor.
    topics: Vec<(String, u64, u64)>,
    partitions: u64,
    replicas: u64,
}

impl Budget {
    /// A topic of `partitions` at `replication_factor`.
    pub fn add_topic(
        &mut self,
        name: &str,
        partitions: u64,
        replication_factor: u64,
    ) -> Result<(), String> {
        let n = self.topics.len() as u64 + 1;
        if n > MAX_TOPICS {
            return Err(over("topics in all", n, MAX_TOPICS, "MAX_TOPICS"));
        }
        let rf = replication_factor.max(1);
        self.topics.push((name.to_string(), partitions, rf));
        self.grow(partitions, rf)
    }

    fn grow(&mut self, partitions: u64, rf: u64) -> Result<(), String> {
        self.partitions = self.partitions.saturating_add(partitions);
        self.replicas = self.replicas.saturating_add(partitions.saturating_mul(rf));
        if self.partitions > MAX_PARTITIONS {
            return Err(over(
                "partitions in all",
                self.partitions,
                MAX_PARTITIONS,
                "MAX_PARTITIONS",
            ));
        }
        if self.replicas > MAX_REPLICAS {
            return Err(over(
                "replicas in all",
                self.replicas,
                MAX_REPLICAS,
                "MAX_REPLICAS",
            ));
        }
        Ok(())
    }

    /// What an action creates: a topic, or partitions added to one.
    pub fn add_action(&mut self, action: &Action) -> Result<(), String> {
        match action {
            Action::CreateTopic {
                name,
                assignment,
                partitions,
                replication_factor,
            } => {
                let (p, rf) = match assignment {
                    Some(a) => (a.len() as u64, a.first().map_or(1, |r| r.len() as u64)),
                    None => (
                        u64::from(partitions.unwrap_or(1)),
                        u64::from(replication_factor.unwrap_or(1)),
                    ),
                };
                self.add_topic(name, p, rf)
            }
            Action::AddPartitions { topic, count } => {
                let count = u64::from(*count);
                let (had, rf) = match self.topics.iter_mut().rev().find(|t| t.0 == *topic) {
                    Some(t) => {
                        let was = (t.1, t.2);
                        t.1 = t.1.max(count);
                        was
                    }
                    None => {
                        // A topic the budget was not told about: counted
                        // once, as if it had none.
                        self.topics.push((topic.clone(), count, 1));
                        (0, 1)
                    }
                };
                self.grow(count.saturating_sub(had), rf)
            }
            _ => Ok(()),
        }
    }
}
