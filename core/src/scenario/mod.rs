//! Scenario files (version 1): a seed, brokers, configuration, topics and
//! timed actions. Parsing is strict: an unknown field, a wrong type or a
//! reference to something that does not exist is an error that names the
//! field (`actions[3].broker: no broker 7 in this cluster`).
//!
//! See `docs/scenario-format.md` for the format. The `actions` list is
//! parsed in [`actions`].

pub(crate) mod actions;
pub mod builtin;
pub mod write;

pub(crate) use actions::over;
pub use actions::{check_action, Budget, ACTION_NAMES};

use crate::action::Action;
use crate::admin;
use crate::config::Config;
use crate::ids::BrokerId;
use crate::sim::Sim;
use crate::time::SimTime;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// Replica placement (AdminUtils), at its old paths.
pub use crate::admin::{assign_replicas_from, assign_replicas_rack_unaware, assign_replicas_with};
/// The topic znode encoders, at their old paths.
pub use crate::znodes::{topic_config_json, topic_znode_json};

/// The scenario format version this build reads.
pub const VERSION: u64 = 1;

/// The latest virtual time a scenario may name: one day. Further than that a
/// run would take hours of wall time (heartbeats and fetches never stop).
pub const MAX_TIME_MS: u64 = 86_400_000;

/// The largest scenario file read, in bytes.
pub const MAX_SCENARIO_BYTES: usize = 4 * 1024 * 1024;
/// The most timed actions a scenario may have.
pub const MAX_ACTIONS: usize = 10_000;
/// The most brokers a scenario may start: the page's largest cluster.
pub const MAX_BROKERS: usize = crate::summary::MAX_BROKERS as usize;
/// The largest broker id: Kafka's `reserved.broker.max.id` default.
pub const MAX_BROKER_ID: u32 = 1000;
/// The most topics a scenario may declare and create, in all.
pub const MAX_TOPICS: u64 = crate::summary::MAX_TOPICS as u64;
/// The most partitions one topic may have (`partitions`, an assignment's
/// rows, `add_partitions`' count).
pub const MAX_PARTITIONS_PER_TOPIC: u64 = crate::summary::MAX_PARTITIONS_PER_TOPIC as u64;
/// The most partitions a scenario's topics may have in all (Kafka's
/// guideline for a ZooKeeper-era cluster).
pub const MAX_PARTITIONS: u64 = crate::summary::MAX_PARTITIONS;
/// The most replicas (partitions times replication factor) a scenario's
/// topics may have in all: 200,000 partitions at replication factor 5.
pub const MAX_REPLICAS: u64 = 1_000_000;
/// The largest data an action may write to a znode: ZooKeeper's
/// `jute.maxbuffer` default (0xfffff bytes).
pub const MAX_ZNODE_DATA_BYTES: usize = 0xfffff;

/// A scenario error: the field (as a JSON path) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    /// Where, e.g. `actions[3].broker`; `(file)` for malformed JSON.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ScenarioError {}

pub(crate) fn err<T>(
    field: impl Into<String>,
    message: impl Into<String>,
) -> Result<T, ScenarioError> {
    Err(ScenarioError {
        field: field.into(),
        message: message.into(),
    })
}

/// A topic as a scenario declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicSpec {
    /// The name.
    pub name: String,
    /// Either an explicit assignment, or partitions and replication factor
    /// placed by Kafka's rack-unaware algorithm.
    pub placement: Placement,
    /// Topic-level config overrides.
    pub config: BTreeMap<String, Value>,
}

/// How a topic's replicas are placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// `partitions` and `replication_factor`.
    Count {
        /// Number of partitions.
        partitions: u32,
        /// Replicas per partition.
        replication_factor: u32,
    },
    /// One replica list per partition, preferred replica first.
    Assignment(Vec<Vec<BrokerId>>),
}

/// A parsed, checked scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The seed of every random choice.
    pub seed: u64,
    /// Broker ids, all started at time 0.
    pub brokers: Vec<BrokerId>,
    /// The cluster configuration.
    pub config: Config,
    /// Topics that exist in ZooKeeper before the brokers start.
    pub topics: Vec<TopicSpec>,
    /// Timed actions, in file order.
    pub actions: Vec<(SimTime, Action)>,
}

impl Scenario {
    /// Parse and check a scenario file's text.
    pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
        if text.len() > MAX_SCENARIO_BYTES {
            return err(
                "(file)",
                actions::over(
                    "bytes",
                    text.len() as u64,
                    MAX_SCENARIO_BYTES as u64,
                    "MAX_SCENARIO_BYTES",
                ),
            );
        }
        let value = read_root(
            text,
            "scenario",
            VERSION,
            &["version", "seed", "brokers", "config", "topics", "actions"],
        )?;
        let root = object(&value, "(root)")?;
        let seed = match root.get("seed") {
            None => 0,
            Some(v) => v
                .as_u64()
                .ok_or_else(|| bad("seed", "a non-negative whole number", v))?,
        };
        let brokers = parse_brokers(root.get("brokers").ok_or_else(|| missing("brokers"))?)?;
        let mut config = Config::default();
        if let Some(c) = root.get("config") {
            for (k, v) in object(c, "config")? {
                config.set(k, v).map_err(|e| ScenarioError {
                    field: format!("config.{k}"),
                    message: e.to_string(),
                })?;
            }
        }
        let topics = match root.get("topics") {
            None => Vec::new(),
            Some(t) => parse_topics(t, &brokers)?,
        };
        // What the declared topics and the create_topic/add_partitions
        // actions come to, checked before anything is built.
        let mut budget = Budget::default();
        for (i, t) in topics.iter().enumerate() {
            let (p, rf) = match &t.placement {
                Placement::Count {
                    partitions,
                    replication_factor,
                } => (u64::from(*partitions), u64::from(*replication_factor)),
                Placement::Assignment(a) => {
                    (a.len() as u64, a.first().map_or(0, |r| r.len() as u64))
                }
            };
            budget
                .add_topic(&t.name, p, rf)
                .or_else(|m| err(format!("topics[{i}]"), m))?;
        }
        // Topics declared, and topics that create_topic actions will create.
        let mut topic_names: Vec<String> = topics.iter().map(|t| t.name.clone()).collect();
        if let Some(list) = root.get("actions").and_then(Value::as_array) {
            for a in list {
                if a.get("action").and_then(Value::as_str) == Some("create_topic") {
                    if let Some(n) = a.get("name").and_then(Value::as_str) {
                        topic_names.push(n.to_string());
                    }
                }
            }
        }
        let actions = match root.get("actions") {
            None => Vec::new(),
            Some(a) => actions::parse_actions(a, &brokers, &topic_names)?,
        };
        for (i, (_, a)) in actions.iter().enumerate() {
            budget
                .add_action(a)
                .or_else(|m| err(format!("actions[{i}]"), m))?;
        }
        Ok(Scenario {
            seed,
            brokers,
            config,
            topics,
            actions,
        })
    }

    /// The time of the last action (0 without actions).
    pub fn last_action_ms(&self) -> u64 {
        self.actions
            .iter()
            .map(|(t, _)| t.as_ms())
            .max()
            .unwrap_or(0)
    }

    /// A simulation of this scenario at time 0, its actions scheduled.
    pub fn build(&self) -> Sim {
        let mut sim = Sim::new(self.seed, self.config.clone(), &self.brokers);
        let mut placement_rng = crate::rng::Rng::new(self.seed ^ 0x7069_6b61_6661_6b61);
        for t in &self.topics {
            let assignment = match &t.placement {
                Placement::Assignment(a) => a.clone(),
                Placement::Count {
                    partitions,
                    replication_factor,
                } => assign_replicas_rack_unaware(
                    *partitions,
                    *replication_factor,
                    &self.brokers,
                    &mut placement_rng,
                ),
            };
            // Names are unique and ZooKeeper is empty, so nothing refuses it.
            let _ =
                admin::create_topic_with_assignment(sim.zk_mut(), &t.name, &assignment, &t.config);
        }
        for (at, a) in &self.actions {
            // Checked at parse time: every broker exists and no time is negative.
            let _ = sim.schedule_action(*at, a.clone());
        }
        sim
    }
}

/// A file's JSON root: an object with only these keys, and `version` the
/// one this build reads (scenario and lesson files alike).
pub(crate) fn read_root(
    text: &str,
    what: &str,
    version: u64,
    allowed: &[&str],
) -> Result<Value, ScenarioError> {
    let value: Value =
        serde_json::from_str(text).or_else(|e| err("(file)", format!("malformed JSON: {e}")))?;
    let root = object(&value, "(root)")?;
    known_keys(root, "", allowed)?;
    let v = root.get("version").ok_or_else(|| missing("version"))?;
    if v.as_u64() != Some(version) {
        return err(
            "version",
            format!("unsupported {what} version {v}; this build reads version {version}"),
        );
    }
    Ok(value)
}

pub(crate) fn object<'a>(
    v: &'a Value,
    field: &str,
) -> Result<&'a Map<String, Value>, ScenarioError> {
    v.as_object().ok_or_else(|| bad(field, "an object", v))
}

pub(crate) fn missing(field: &str) -> ScenarioError {
    ScenarioError {
        field: field.to_string(),
        message: "is required".to_string(),
    }
}

pub(crate) fn bad(field: &str, want: &str, got: &Value) -> ScenarioError {
    let mut shown = got.to_string();
    if shown.len() > 40 {
        // At a character boundary: the value may be any text.
        let cut = (0..=40).rev().find(|i| shown.is_char_boundary(*i));
        shown.truncate(cut.unwrap_or(0));
        shown.push('…');
    }
    ScenarioError {
        field: field.to_string(),
        message: format!("expected {want}, got {shown}"),
    }
}

pub(crate) fn known_keys(
    obj: &Map<String, Value>,
    prefix: &str,
    allowed: &[&str],
) -> Result<(), ScenarioError> {
    for k in obj.keys() {
        if !allowed.contains(&k.as_str()) {
            let field = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            return err(
                field,
                format!("unknown field; expected one of {}", allowed.join(", ")),
            );
        }
    }
    Ok(())
}

pub(crate) fn broker_id(v: &Value, field: &str) -> Result<BrokerId, ScenarioError> {
    v.as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .map(BrokerId)
        .ok_or_else(|| bad(field, "a broker id (a whole number from 0)", v))
}

fn parse_brokers(v: &Value) -> Result<Vec<BrokerId>, ScenarioError> {
    let list = v
        .as_array()
        .ok_or_else(|| bad("brokers", "a list of broker ids", v))?;
    if list.is_empty() {
        return err("brokers", "a cluster needs at least one broker");
    }
    if list.len() > MAX_BROKERS {
        return err(
            "brokers",
            actions::over(
                "brokers",
                list.len() as u64,
                MAX_BROKERS as u64,
                "MAX_BROKERS",
            ),
        );
    }
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (i, b) in list.iter().enumerate() {
        let id = broker_id(b, &format!("brokers[{i}]"))?;
        // KafkaConfig.validateValues: a configured broker.id is at most
        // reserved.broker.max.id (1000 by default; the ids above it are
        // generated ones).
        if id.0 > MAX_BROKER_ID {
            return err(
                format!("brokers[{i}]"),
                format!("broker.id {id}: broker.id must be equal or greater than -1 and not greater than reserved.broker.max.id ({MAX_BROKER_ID})"),
            );
        }
        if !seen.insert(id) {
            return err(format!("brokers[{i}]"), format!("duplicate broker id {id}"));
        }
        out.push(id);
    }
    Ok(out)
}

/// Kafka's `Topic.validate`, the same check as every other way in
/// ([`admin::validate_topic_name`]), with Kafka's message.
fn check_topic_name(name: &str, field: &str) -> Result<(), ScenarioError> {
    admin::validate_topic_name(name).map_err(|e| ScenarioError {
        field: field.to_string(),
        message: e.to_string(),
    })
}

fn parse_topics(v: &Value, brokers: &[BrokerId]) -> Result<Vec<TopicSpec>, ScenarioError> {
    let list = v
        .as_array()
        .ok_or_else(|| bad("topics", "a list of topics", v))?;
    if list.len() as u64 > MAX_TOPICS {
        return err(
            "topics",
            actions::over("topics", list.len() as u64, MAX_TOPICS, "MAX_TOPICS"),
        );
    }
    let mut names = BTreeSet::new();
    let mut out = Vec::new();
    for (i, t) in list.iter().enumerate() {
        let f = format!("topics[{i}]");
        let obj = object(t, &f)?;
        known_keys(
            obj,
            &f,
            &[
                "name",
                "partitions",
                "replication_factor",
                "assignment",
                "config",
            ],
        )?;
        let name_v = obj
            .get("name")
            .ok_or_else(|| missing(&format!("{f}.name")))?;
        let name = name_v
            .as_str()
            .ok_or_else(|| bad(&format!("{f}.name"), "a string", name_v))?;
        check_topic_name(name, &format!("{f}.name"))?;
        if !names.insert(name.to_string()) {
            return err(
                format!("{f}.name"),
                format!("topic {name:?} is declared twice"),
            );
        }
        // AdminZkClient.validateTopicCreate: '.' and '_' collide in metric names.
        let unified = name.replace('.', "_");
        let colliding: Vec<&str> = names
            .iter()
            .filter(|n| n.as_str() != name && n.replace('.', "_") == unified)
            .map(String::as_str)
            .collect();
        if !colliding.is_empty() {
            return err(
                format!("{f}.name"),
                format!(
                    "InvalidTopicException: Topic '{name}' collides with existing topics: {}",
                    colliding.join(", ")
                ),
            );
        }
        let placement = parse_placement(obj, &f, brokers)?;
        let mut config = BTreeMap::new();
        if let Some(c) = obj.get("config") {
            for (k, val) in object(c, &format!("{f}.config"))? {
                if !Config::TOPIC_KEYS.contains(&k.as_str()) {
                    return err(
                        format!("{f}.config.{k}"),
                        format!(
                            "unknown topic config key; expected one of {}",
                            Config::TOPIC_KEYS.join(", ")
                        ),
                    );
                }
                let mut probe = Config::default();
                probe.set(k, val).map_err(|e| ScenarioError {
                    field: format!("{f}.config.{k}"),
                    message: e.to_string(),
                })?;
                config.insert(k.clone(), val.clone());
            }
        }
        out.push(TopicSpec {
            name: name.to_string(),
            placement,
            config,
        });
    }
    Ok(out)
}

fn parse_placement(
    obj: &Map<String, Value>,
    f: &str,
    brokers: &[BrokerId],
) -> Result<Placement, ScenarioError> {
    match (
        obj.get("assignment"),
        obj.get("partitions"),
        obj.get("replication_factor"),
    ) {
        (Some(a), None, None) => {
            let rows = a
                .as_array()
                .ok_or_else(|| bad(&format!("{f}.assignment"), "a list of replica lists", a))?;
            if rows.is_empty() {
                return err(
                    format!("{f}.assignment"),
                    "a topic needs at least one partition",
                );
            }
            if rows.len() as u64 > MAX_PARTITIONS_PER_TOPIC {
                return err(
                    format!("{f}.assignment"),
                    actions::over(
                        "partitions",
                        rows.len() as u64,
                        MAX_PARTITIONS_PER_TOPIC,
                        "MAX_PARTITIONS_PER_TOPIC",
                    ),
                );
            }
            let mut out = Vec::new();
            for (p, row) in rows.iter().enumerate() {
                let rf = format!("{f}.assignment[{p}]");
                let ids = row
                    .as_array()
                    .ok_or_else(|| bad(&rf, "a list of broker ids", row))?;
                if ids.is_empty() {
                    return err(rf, "a partition needs at least one replica");
                }
                let mut seen = BTreeSet::new();
                let mut replicas = Vec::new();
                for (j, b) in ids.iter().enumerate() {
                    let id = broker_id(b, &format!("{rf}[{j}]"))?;
                    if !brokers.contains(&id) {
                        return err(
                            format!("{rf}[{j}]"),
                            format!("no broker {id} in this cluster"),
                        );
                    }
                    if !seen.insert(id) {
                        return err(
                            format!("{rf}[{j}]"),
                            format!("duplicate replica {id} in partition {p}"),
                        );
                    }
                    replicas.push(id);
                }
                if let Some(first) = out.first().map(Vec::len) {
                    if first != replicas.len() {
                        return err(rf, format!("partition {p} has {} replicas but partition 0 has {first}; all partitions need the same replication factor", replicas.len()));
                    }
                }
                out.push(replicas);
            }
            Ok(Placement::Assignment(out))
        }
        (None, Some(p), Some(r)) => {
            let partitions = p
                .as_u64()
                .filter(|n| (1..=MAX_PARTITIONS_PER_TOPIC).contains(n))
                .ok_or_else(|| {
                    bad(
                        &format!("{f}.partitions"),
                        "a whole number from 1 to 100000 (MAX_PARTITIONS_PER_TOPIC)",
                        p,
                    )
                })?;
            let rf = r.as_u64().filter(|n| *n >= 1).ok_or_else(|| {
                bad(
                    &format!("{f}.replication_factor"),
                    "a whole number from 1",
                    r,
                )
            })?;
            if rf > brokers.len() as u64 {
                return err(
                    format!("{f}.replication_factor"),
                    format!(
                        "replication factor {rf} is larger than the {} available brokers",
                        brokers.len()
                    ),
                );
            }
            Ok(Placement::Count {
                partitions: partitions as u32,
                replication_factor: rf as u32,
            })
        }
        (Some(_), _, _) => err(
            f,
            "give either assignment, or partitions and replication_factor, not both",
        ),
        (None, None, _) => err(
            format!("{f}.partitions"),
            "is required (or give an assignment)",
        ),
        (None, Some(_), None) => err(
            format!("{f}.replication_factor"),
            "is required with partitions",
        ),
    }
}

#[cfg(test)]
mod limits_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn rack_unaware_placement_matches_kafkas_documented_example() {
        // Kafka: AdminUtils.assignReplicasToBrokers scaladoc — 5 brokers, 10
        // partitions, replication factor 3, fixed start index 0.
        let brokers: Vec<BrokerId> = (0..5).map(BrokerId).collect();
        let a = assign_replicas_with(10, 3, &brokers, 0, 0);
        let ids = |p: usize| a[p].iter().map(|b| b.0).collect::<Vec<_>>();
        assert_eq!(ids(0), vec![0, 1, 2]);
        assert_eq!(ids(4), vec![4, 0, 1]);
        assert_eq!(ids(5), vec![0, 2, 3]);
        assert_eq!(ids(9), vec![4, 1, 2]);
        // Seeded placement: distinct replicas, leaders spread evenly.
        let mut rng = Rng::new(9);
        let a = assign_replicas_rack_unaware(10, 3, &brokers, &mut rng);
        for r in &a {
            assert_eq!(r.iter().collect::<BTreeSet<_>>().len(), 3, "{r:?}");
        }
        for b in &brokers {
            assert_eq!(a.iter().filter(|r| r[0] == *b).count(), 2);
        }
    }

    #[test]
    fn a_bad_value_of_many_byte_characters_is_quoted_cut_short_without_a_panic() {
        // kcsim: the core never panics on input; an error quotes at most 40
        // bytes of the bad value, cut at a character boundary (found by
        // `kcsim fuzz --target scenario --seed 27`).
        let crabs = "🦀".repeat(30);
        let text = format!(r#"{{"version":1,"brokers":[0,"{crabs}"]}}"#);
        let e = Scenario::parse(&text).unwrap_err();
        assert_eq!(e.field, "brokers[1]");
        assert_eq!(
            e.message,
            format!(
                "expected a broker id (a whole number from 0), got \"{}…",
                "🦀".repeat(9)
            )
        );
    }

    #[test]
    fn topic_znode_uses_kafka_2_4s_version_2_layout() {
        let json = topic_znode_json(&[
            vec![BrokerId(1), BrokerId(2)],
            vec![BrokerId(2), BrokerId(0)],
        ]);
        assert_eq!(
            json,
            r#"{"version":2,"partitions":{"0":[1,2],"1":[2,0]},"adding_replicas":{},"removing_replicas":{}}"#
        );
    }
}
