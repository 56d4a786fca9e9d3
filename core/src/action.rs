//! User actions: the fault verbs and admin commands that scenario files,
//! buttons, lessons and tests all use, through the one event queue.

use crate::ids::BrokerId;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Something a person (or a scenario) does to the cluster.
///
/// Its JSON form (`{"action": "kill_broker", "broker": 1}`) is serde's
/// internally tagged enum. `Deserialize` is written by hand ([`Action::from_json`])
/// with exactly the derive's results and messages (a test compares the two on
/// every variant and on broken input): the derive buffered each action through
/// serde's `Content` and was the largest single function in the page's
/// `.wasm` (about 44 KB of 1.6 MB).
#[derive(Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    /// `kill -9`: the process is gone at once; its ZooKeeper session lingers
    /// until it expires.
    KillBroker {
        /// The broker.
        broker: BrokerId,
    },
    /// Start a dead broker.
    StartBroker {
        /// The broker.
        broker: BrokerId,
    },
    /// `kill -15` (`kafka-server-stop.sh`): a clean shutdown that closes the
    /// ZooKeeper session at once.
    ShutdownBroker {
        /// The broker.
        broker: BrokerId,
    },
    /// Stall the process (a long GC pause): no processing, no heartbeats.
    PauseBroker {
        /// The broker.
        broker: BrokerId,
        /// How long.
        duration_ms: u64,
    },
    /// Expire the broker's ZooKeeper session on the server side.
    ExpireSession {
        /// The broker.
        broker: BrokerId,
    },
    /// `zookeeper-shell.sh delete <path>`.
    DeleteZnode {
        /// The znode.
        path: String,
    },
    /// Hold a message on the wire (a request, a response or a watch
    /// notification, by its id) this much longer.
    DelayMessage {
        /// The message id.
        id: u64,
        /// Extra delay.
        delay_ms: u64,
    },
    /// Lose a message on the wire.
    DropMessage {
        /// The message id.
        id: u64,
    },
    /// `kafka-preferred-replica-election.sh --zookeeper`: writes
    /// `/admin/preferred_replica_election` (all partitions when `None`).
    PreferredElection {
        /// The partitions.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        partitions: Option<Vec<crate::ids::TopicPartition>>,
    },
    /// `kafka-leader-election.sh` (admin API, KIP-460).
    ElectLeaders {
        /// PREFERRED or UNCLEAN.
        election_type: crate::controller::event::ElectionType,
        /// The partitions.
        partitions: Vec<crate::ids::TopicPartition>,
    },
    /// A producer writes `records` records to a partition's leader.
    Produce {
        /// The topic.
        topic: String,
        /// The partition.
        partition: u32,
        /// How many records.
        records: u64,
        /// `acks`: 0, 1 or all.
        acks: crate::log::Acks,
    },
    /// Slow a broker's replica fetching by `lag_ms` per fetch round.
    SlowBroker {
        /// The broker.
        broker: BrokerId,
        /// Extra delay per fetch.
        lag_ms: u64,
    },
    /// Undo `slow_broker`.
    HealBroker {
        /// The broker.
        broker: BrokerId,
    },
    /// `kafka-topics.sh --alter --partitions N`: the whole assignment is rewritten.
    AddPartitions {
        /// The topic.
        topic: String,
        /// The new partition count (must be larger).
        count: u32,
    },
    /// `kafka-topics.sh --delete`: writes `/admin/delete_topics/<topic>`.
    DeleteTopic {
        /// The topic.
        topic: String,
    },
    /// `kafka-reassign-partitions.sh --execute`: writes `/admin/reassign_partitions`.
    ReassignPartitions {
        /// The targets.
        partitions: Vec<PartitionTarget>,
    },
    /// `kafka-topics.sh --create`: written to ZooKeeper as Kafka 2.x's admin
    /// client does; the controller picks it up through its TopicChange watch.
    CreateTopic {
        /// The topic name.
        name: String,
        /// An explicit assignment, one replica list per partition.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        assignment: Option<Vec<Vec<BrokerId>>>,
        /// Partitions (with `replication_factor`), placed by Kafka's algorithm.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        partitions: Option<u32>,
        /// Replicas per partition.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        replication_factor: Option<u32>,
    },
    /// `kafka-configs.sh --alter`: a cluster default, or a topic override
    /// when `topic` is given.
    SetConfig {
        /// The config key.
        key: String,
        /// The new value.
        value: serde_json::Value,
        /// The topic, for a topic-level override.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        topic: Option<String>,
    },
    /// `zookeeper-shell.sh set <path> <data>`.
    SetZnode {
        /// The znode.
        path: String,
        /// The new data.
        data: String,
    },
    /// `zookeeper-shell.sh create [-e] [-s] <path> <data>`. An ephemeral
    /// node belongs to the shell's own session, which ends as the
    /// one-command shell exits: the node is created and deleted at once,
    /// and the watches on it fire for both.
    CreateZnode {
        /// The znode (for a sequential node, the prefix of its name).
        path: String,
        /// The data.
        data: String,
        /// `-e`: owned by the shell's session.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        ephemeral: bool,
        /// `-s`: a 10-digit counter from the parent appended to the name.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        sequential: bool,
    },
    /// `kafka-configs.sh --alter --delete-config`: remove a topic's
    /// override (when `topic` is given) or the cluster-wide dynamic
    /// default, which falls back to the value the cluster started with.
    DeleteConfig {
        /// The config key.
        key: String,
        /// The topic, for a topic-level override.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        topic: Option<String>,
    },
}

// Written out and not inlined (as `Fact`'s): the derived `clone` is
// `#[inline]`, and the page carried it in each place an action is copied.
// Field by field, as the derive does.
impl Clone for Action {
    #[inline(never)]
    fn clone(&self) -> Self {
        match self {
            Action::KillBroker { broker } => Action::KillBroker { broker: *broker },
            Action::StartBroker { broker } => Action::StartBroker { broker: *broker },
            Action::ShutdownBroker { broker } => Action::ShutdownBroker { broker: *broker },
            Action::PauseBroker {
                broker,
                duration_ms,
            } => Action::PauseBroker {
                broker: *broker,
                duration_ms: *duration_ms,
            },
            Action::ExpireSession { broker } => Action::ExpireSession { broker: *broker },
            Action::DeleteZnode { path } => Action::DeleteZnode { path: path.clone() },
            Action::DelayMessage { id, delay_ms } => Action::DelayMessage {
                id: *id,
                delay_ms: *delay_ms,
            },
            Action::DropMessage { id } => Action::DropMessage { id: *id },
            Action::PreferredElection { partitions } => Action::PreferredElection {
                partitions: partitions.clone(),
            },
            Action::ElectLeaders {
                election_type,
                partitions,
            } => Action::ElectLeaders {
                election_type: *election_type,
                partitions: partitions.clone(),
            },
            Action::Produce {
                topic,
                partition,
                records,
                acks,
            } => Action::Produce {
                topic: topic.clone(),
                partition: *partition,
                records: *records,
                acks: *acks,
            },
            Action::SlowBroker { broker, lag_ms } => Action::SlowBroker {
                broker: *broker,
                lag_ms: *lag_ms,
            },
            Action::HealBroker { broker } => Action::HealBroker { broker: *broker },
            Action::AddPartitions { topic, count } => Action::AddPartitions {
                topic: topic.clone(),
                count: *count,
            },
            Action::DeleteTopic { topic } => Action::DeleteTopic {
                topic: topic.clone(),
            },
            Action::ReassignPartitions { partitions } => Action::ReassignPartitions {
                partitions: partitions.clone(),
            },
            Action::CreateTopic {
                name,
                assignment,
                partitions,
                replication_factor,
            } => Action::CreateTopic {
                name: name.clone(),
                assignment: assignment.clone(),
                partitions: *partitions,
                replication_factor: *replication_factor,
            },
            Action::SetConfig { key, value, topic } => Action::SetConfig {
                key: key.clone(),
                value: value.clone(),
                topic: topic.clone(),
            },
            Action::SetZnode { path, data } => Action::SetZnode {
                path: path.clone(),
                data: data.clone(),
            },
            Action::CreateZnode {
                path,
                data,
                ephemeral,
                sequential,
            } => Action::CreateZnode {
                path: path.clone(),
                data: data.clone(),
                ephemeral: *ephemeral,
                sequential: *sequential,
            },
            Action::DeleteConfig { key, topic } => Action::DeleteConfig {
                key: key.clone(),
                topic: topic.clone(),
            },
        }
    }
}

impl Action {
    /// The action's name as scenario files spell it.
    pub fn name(&self) -> &'static str {
        match self {
            Action::KillBroker { .. } => "kill_broker",
            Action::StartBroker { .. } => "start_broker",
            Action::ShutdownBroker { .. } => "shutdown_broker",
            Action::PauseBroker { .. } => "pause_broker",
            Action::ExpireSession { .. } => "expire_session",
            Action::DeleteZnode { .. } => "delete_znode",
            Action::SetZnode { .. } => "set_znode",
            Action::CreateZnode { .. } => "create_znode",
            Action::DeleteConfig { .. } => "delete_config",
            Action::SetConfig { .. } => "set_config",
            Action::CreateTopic { .. } => "create_topic",
            Action::AddPartitions { .. } => "add_partitions",
            Action::DeleteTopic { .. } => "delete_topic",
            Action::ReassignPartitions { .. } => "reassign_partitions",
            Action::Produce { .. } => "produce",
            Action::SlowBroker { .. } => "slow_broker",
            Action::HealBroker { .. } => "heal_broker",
            Action::PreferredElection { .. } => "preferred_election",
            Action::ElectLeaders { .. } => "elect_leaders",
            Action::DelayMessage { .. } => "delay_message",
            Action::DropMessage { .. } => "drop_message",
        }
    }

    /// The broker the action is about, if any.
    pub fn broker(&self) -> Option<BrokerId> {
        match self {
            Action::ReassignPartitions { .. }
            | Action::CreateTopic { .. }
            | Action::ElectLeaders { .. }
            | Action::PreferredElection { .. } => None,
            // The rest are small: one list of which carry a broker.
            other => other.clone().broker_mut().copied(),
        }
    }

    /// Point the action at another broker (no change for an action that is
    /// not about a broker).
    pub fn set_broker(&mut self, to: BrokerId) {
        if let Some(b) = self.broker_mut() {
            *b = to;
        }
    }

    /// The broker the action is about, to change it.
    fn broker_mut(&mut self) -> Option<&mut BrokerId> {
        match self {
            Action::KillBroker { broker }
            | Action::StartBroker { broker }
            | Action::ShutdownBroker { broker }
            | Action::PauseBroker { broker, .. }
            | Action::ExpireSession { broker }
            | Action::SlowBroker { broker, .. }
            | Action::HealBroker { broker } => Some(broker),
            Action::DeleteZnode { .. }
            | Action::SetZnode { .. }
            | Action::CreateZnode { .. }
            | Action::DeleteConfig { .. }
            | Action::SetConfig { .. }
            | Action::CreateTopic { .. }
            | Action::AddPartitions { .. }
            | Action::DeleteTopic { .. }
            | Action::ReassignPartitions { .. }
            | Action::Produce { .. }
            | Action::PreferredElection { .. }
            | Action::ElectLeaders { .. }
            | Action::DelayMessage { .. }
            | Action::DropMessage { .. } => None,
        }
    }

    /// A one-line description, as the trace and the UI show it.
    pub fn describe(&self) -> String {
        match self {
            Action::KillBroker { broker } => format!("kill -9 broker {broker}"),
            Action::StartBroker { broker } => format!("start broker {broker}"),
            Action::ShutdownBroker { broker } => format!("kafka-server-stop.sh on broker {broker}"),
            Action::PauseBroker {
                broker,
                duration_ms,
            } => {
                format!("pause broker {broker} for {duration_ms} ms")
            }
            Action::ExpireSession { broker } => {
                format!("expire broker {broker}'s ZooKeeper session")
            }
            Action::DeleteZnode { path } => format!("zookeeper-shell delete {path}"),
            Action::SetZnode { path, data } => format!("zookeeper-shell set {path} {data}"),
            Action::CreateZnode {
                path,
                data,
                ephemeral,
                sequential,
            } => format!(
                "zookeeper-shell create {}{}{path} {data}",
                if *ephemeral { "-e " } else { "" },
                if *sequential { "-s " } else { "" }
            ),
            Action::DeleteConfig { key, topic: None } => format!(
                "kafka-configs.sh --alter --entity-type brokers --entity-default --delete-config {key}"
            ),
            Action::DeleteConfig {
                key,
                topic: Some(t),
            } => format!(
                "kafka-configs.sh --alter --entity-type topics --entity-name {t} --delete-config {key}"
            ),
            Action::DelayMessage { id, delay_ms } => format!("delay message {id} by {delay_ms} ms"),
            Action::AddPartitions { topic, count } => {
                format!("kafka-topics.sh --alter --topic {topic} --partitions {count}")
            }
            Action::DeleteTopic { topic } => format!("kafka-topics.sh --delete --topic {topic}"),
            Action::ReassignPartitions { partitions } => {
                let v: Vec<String> = partitions
                    .iter()
                    .map(|p| {
                        format!(
                            "{}-{} → {:?}",
                            p.topic,
                            p.partition,
                            p.replicas.iter().map(|b| b.0).collect::<Vec<_>>()
                        )
                    })
                    .collect();
                format!("kafka-reassign-partitions.sh --execute: {}", v.join(", "))
            }
            Action::Produce {
                topic,
                partition,
                records,
                acks,
            } => {
                format!(
                    "produce {records} record(s) to {topic}-{partition} with acks={}",
                    acks.as_str()
                )
            }
            Action::SlowBroker { broker, lag_ms } => {
                format!("slow broker {broker}'s fetching by {lag_ms} ms")
            }
            Action::HealBroker { broker } => format!("heal broker {broker}"),
            Action::PreferredElection { partitions: None } => {
                "kafka-preferred-replica-election.sh (all partitions)".to_string()
            }
            Action::PreferredElection {
                partitions: Some(p),
            } => {
                format!(
                    "kafka-preferred-replica-election.sh for {}",
                    crate::ids::comma_list(p)
                )
            }
            Action::ElectLeaders {
                election_type,
                partitions,
            } => format!(
                "kafka-leader-election.sh --election-type {} for {}",
                match election_type {
                    crate::controller::event::ElectionType::Preferred => "preferred",
                    crate::controller::event::ElectionType::Unclean => "unclean",
                },
                crate::ids::comma_list(partitions)
            ),
            Action::DropMessage { id } => format!("drop message {id}"),
            Action::CreateTopic {
                name,
                assignment: Some(a),
                ..
            } => {
                let parts: Vec<String> = a
                    .iter()
                    .map(|r| {
                        r.iter()
                            .map(|b| b.to_string())
                            .collect::<Vec<_>>()
                            .join(":")
                    })
                    .collect();
                format!(
                    "kafka-topics.sh --create --topic {name} --replica-assignment {}",
                    parts.join(",")
                )
            }
            Action::CreateTopic {
                name,
                partitions,
                replication_factor,
                ..
            } => format!(
                "kafka-topics.sh --create --topic {name} --partitions {} --replication-factor {}",
                partitions.unwrap_or(1),
                replication_factor.unwrap_or(1)
            ),
            Action::SetConfig {
                key,
                value,
                topic: None,
            } => {
                format!("kafka-configs.sh --alter --entity-type brokers --entity-default --add-config {key}={}", plain(value))
            }
            Action::SetConfig {
                key,
                value,
                topic: Some(t),
            } => {
                format!("kafka-configs.sh --alter --entity-type topics --entity-name {t} --add-config {key}={}", plain(value))
            }
        }
    }
}

fn plain(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One partition's target replicas in a reassignment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionTarget {
    /// The topic.
    pub topic: String,
    /// The partition.
    pub partition: u32,
    /// The target replicas, preferred first.
    pub replicas: Vec<BrokerId>,
}

/// The variant names, in declaration order (serde's `VARIANTS`, which its
/// "unknown variant" message lists).
const VARIANTS: &[&str] = &[
    "kill_broker",
    "start_broker",
    "shutdown_broker",
    "pause_broker",
    "expire_session",
    "delete_znode",
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
    "create_topic",
    "set_config",
    "set_znode",
    "create_znode",
    "delete_config",
];

type JsonError = serde_json::Error;

impl<'de> Deserialize<'de> for Action {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        Action::from_json(v).map_err(serde::de::Error::custom)
    }
}

/// What serde says a JSON value is, in its "invalid type" messages.
fn unexpected(v: &Value) -> serde::de::Unexpected<'_> {
    use serde::de::Unexpected;
    match v {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Unexpected::Unsigned(u),
            (None, Some(i)) => Unexpected::Signed(i),
            (None, None) => Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// One field's value, as serde reads it.
fn de<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, JsonError> {
    T::deserialize(v)
}

/// A required field, or serde's "missing field" error.
fn req<T>(v: Option<T>, name: &'static str) -> Result<T, JsonError> {
    v.ok_or_else(|| serde::de::Error::missing_field(name))
}

/// An action's fields after its tag: the object's other entries (in the
/// object's order), or, as serde also accepts, the rest of an array
/// `["kill_broker", 1]` (in declaration order).
enum Rest {
    Map(Vec<(String, Value)>),
    Seq(Vec<Value>),
}

impl Rest {
    /// Hand each field present to `f` as serde's derive visits them: an
    /// object's entries in order (unknown ones too, which `f` ignores); an
    /// array's elements against `fields` (name, required) in order, with
    /// serde's "invalid length" errors for too few or too many.
    fn visit(
        self,
        variant: &str,
        fields: &[(&'static str, bool)],
        f: &mut dyn FnMut(&str, Value) -> Result<(), JsonError>,
    ) -> Result<(), JsonError> {
        use serde::de::Error as _;
        match self {
            Rest::Map(entries) => {
                for (k, v) in entries {
                    f(&k, v)?;
                }
                Ok(())
            }
            Rest::Seq(items) => {
                let total = items.len();
                let mut items = items.into_iter();
                let mut taken = 0;
                for (i, (name, required)) in fields.iter().enumerate() {
                    match items.next() {
                        Some(v) => {
                            taken += 1;
                            f(name, v)?;
                        }
                        None if *required => {
                            let n = fields.len();
                            let s = if n == 1 { "" } else { "s" };
                            return Err(JsonError::invalid_length(
                                i,
                                &format!("struct variant Action::{variant} with {n} element{s}")
                                    .as_str(),
                            ));
                        }
                        None => {}
                    }
                }
                if total > taken {
                    let s = if taken == 1 { "" } else { "s" };
                    return Err(JsonError::invalid_length(
                        total,
                        &format!("{taken} element{s} in sequence").as_str(),
                    ));
                }
                Ok(())
            }
        }
    }
}

impl Action {
    /// Reads an action from its JSON form, exactly as serde's derive for an
    /// internally tagged enum (`#[serde(tag = "action", rename_all =
    /// "snake_case")]`) would: the same actions, the same error messages.
    pub fn from_json(v: Value) -> Result<Action, JsonError> {
        use serde::de::Error as _;
        let (tag, rest) = match v {
            Value::Object(map) => {
                let mut tag = None;
                let mut rest = Vec::with_capacity(map.len());
                for (k, v) in map {
                    if k == "action" {
                        tag = Some(variant_of(v)?);
                    } else {
                        rest.push((k, v));
                    }
                }
                (
                    tag.ok_or_else(|| JsonError::missing_field("action"))?,
                    Rest::Map(rest),
                )
            }
            Value::Array(items) => {
                let mut items = items.into_iter();
                let tag = items
                    .next()
                    .ok_or_else(|| JsonError::missing_field("action"))?;
                (variant_of(tag)?, Rest::Seq(items.collect()))
            }
            other => {
                return Err(JsonError::invalid_type(
                    unexpected(&other),
                    &"internally tagged enum Action",
                ))
            }
        };
        Action::read_variant(tag, rest)
    }

    /// The variant numbered `tag` (in [`VARIANTS`]) from its fields.
    fn read_variant(tag: usize, rest: Rest) -> Result<Action, JsonError> {
        // Each variant's fields as serde's derive reads them: a field takes
        // the value it is given (its type's own `Deserialize`, so the same
        // messages), unknown fields are ignored, a missing required field is
        // an error in declaration order, a missing defaulted one its default.
        let mut broker: Option<BrokerId> = None;
        let mut path: Option<String> = None;
        let mut id: Option<u64> = None;
        let mut delay_ms: Option<u64> = None;
        let mut duration_ms: Option<u64> = None;
        let mut lag_ms: Option<u64> = None;
        let mut records: Option<u64> = None;
        let mut partition: Option<u32> = None;
        let mut count: Option<u32> = None;
        let mut topic: Option<String> = None;
        let mut name: Option<String> = None;
        let mut key: Option<String> = None;
        let mut data: Option<String> = None;
        let mut value: Option<Value> = None;
        let mut acks: Option<crate::log::Acks> = None;
        let mut election_type: Option<crate::controller::event::ElectionType> = None;
        let mut tps: Option<Vec<crate::ids::TopicPartition>> = None;
        let mut opt_tps: Option<Option<Vec<crate::ids::TopicPartition>>> = None;
        let mut targets: Option<Vec<PartitionTarget>> = None;
        let mut assignment: Option<Option<Vec<Vec<BrokerId>>>> = None;
        let mut partitions_n: Option<Option<u32>> = None;
        let mut replication_factor: Option<Option<u32>> = None;
        let mut opt_topic: Option<Option<String>> = None;
        let mut ephemeral: Option<bool> = None;
        let mut sequential: Option<bool> = None;
        // Which of the variables above each field name fills depends on
        // the variant: `partitions` is a list of partitions, of targets, or
        // a count; `topic` is required or optional.
        let (variant, fields): (&str, &[(&'static str, bool)]) = match tag {
            0 => ("KillBroker", &[("broker", true)]),
            1 => ("StartBroker", &[("broker", true)]),
            2 => ("ShutdownBroker", &[("broker", true)]),
            3 => ("PauseBroker", &[("broker", true), ("duration_ms", true)]),
            4 => ("ExpireSession", &[("broker", true)]),
            5 => ("DeleteZnode", &[("path", true)]),
            6 => ("DelayMessage", &[("id", true), ("delay_ms", true)]),
            7 => ("DropMessage", &[("id", true)]),
            8 => ("PreferredElection", &[("partitions", false)]),
            9 => (
                "ElectLeaders",
                &[("election_type", true), ("partitions", true)],
            ),
            10 => (
                "Produce",
                &[
                    ("topic", true),
                    ("partition", true),
                    ("records", true),
                    ("acks", true),
                ],
            ),
            11 => ("SlowBroker", &[("broker", true), ("lag_ms", true)]),
            12 => ("HealBroker", &[("broker", true)]),
            13 => ("AddPartitions", &[("topic", true), ("count", true)]),
            14 => ("DeleteTopic", &[("topic", true)]),
            15 => ("ReassignPartitions", &[("partitions", true)]),
            16 => (
                "CreateTopic",
                &[
                    ("name", true),
                    ("assignment", false),
                    ("partitions", false),
                    ("replication_factor", false),
                ],
            ),
            17 => (
                "SetConfig",
                &[("key", true), ("value", true), ("topic", false)],
            ),
            18 => ("SetZnode", &[("path", true), ("data", true)]),
            19 => (
                "CreateZnode",
                &[
                    ("path", true),
                    ("data", true),
                    ("ephemeral", false),
                    ("sequential", false),
                ],
            ),
            _ => ("DeleteConfig", &[("key", true), ("topic", false)]),
        };
        let optional_topic = matches!(tag, 17 | 20);
        rest.visit(variant, fields, &mut |k, v| {
            if !fields.iter().any(|(f, _)| *f == k) {
                return Ok(()); // unknown fields are ignored, as by the derive
            }
            match k {
                "broker" => broker = Some(de(v)?),
                "path" => path = Some(de(v)?),
                "id" => id = Some(de(v)?),
                "delay_ms" => delay_ms = Some(de(v)?),
                "duration_ms" => duration_ms = Some(de(v)?),
                "lag_ms" => lag_ms = Some(de(v)?),
                "records" => records = Some(de(v)?),
                "partition" => partition = Some(de(v)?),
                "count" => count = Some(de(v)?),
                "topic" if optional_topic => opt_topic = Some(de(v)?),
                "topic" => topic = Some(de(v)?),
                "name" => name = Some(de(v)?),
                "key" => key = Some(de(v)?),
                "data" => data = Some(de(v)?),
                "value" => value = Some(de(v)?),
                "acks" => acks = Some(de(v)?),
                "election_type" => election_type = Some(de(v)?),
                "assignment" => assignment = Some(de(v)?),
                "replication_factor" => replication_factor = Some(de(v)?),
                "ephemeral" => ephemeral = Some(de(v)?),
                "sequential" => sequential = Some(de(v)?),
                "partitions" => match tag {
                    8 => opt_tps = Some(de(v)?),
                    9 => tps = Some(de(v)?),
                    15 => targets = Some(de(v)?),
                    _ => partitions_n = Some(de(v)?),
                },
                _ => {}
            }
            Ok(())
        })?;
        Ok(match tag {
            0 => Action::KillBroker {
                broker: req(broker, "broker")?,
            },
            1 => Action::StartBroker {
                broker: req(broker, "broker")?,
            },
            2 => Action::ShutdownBroker {
                broker: req(broker, "broker")?,
            },
            3 => Action::PauseBroker {
                broker: req(broker, "broker")?,
                duration_ms: req(duration_ms, "duration_ms")?,
            },
            4 => Action::ExpireSession {
                broker: req(broker, "broker")?,
            },
            5 => Action::DeleteZnode {
                path: req(path, "path")?,
            },
            6 => Action::DelayMessage {
                id: req(id, "id")?,
                delay_ms: req(delay_ms, "delay_ms")?,
            },
            7 => Action::DropMessage { id: req(id, "id")? },
            8 => Action::PreferredElection {
                partitions: opt_tps.flatten(),
            },
            9 => Action::ElectLeaders {
                election_type: req(election_type, "election_type")?,
                partitions: req(tps, "partitions")?,
            },
            10 => Action::Produce {
                topic: req(topic, "topic")?,
                partition: req(partition, "partition")?,
                records: req(records, "records")?,
                acks: req(acks, "acks")?,
            },
            11 => Action::SlowBroker {
                broker: req(broker, "broker")?,
                lag_ms: req(lag_ms, "lag_ms")?,
            },
            12 => Action::HealBroker {
                broker: req(broker, "broker")?,
            },
            13 => Action::AddPartitions {
                topic: req(topic, "topic")?,
                count: req(count, "count")?,
            },
            14 => Action::DeleteTopic {
                topic: req(topic, "topic")?,
            },
            15 => Action::ReassignPartitions {
                partitions: req(targets, "partitions")?,
            },
            16 => Action::CreateTopic {
                name: req(name, "name")?,
                assignment: assignment.flatten(),
                partitions: partitions_n.flatten(),
                replication_factor: replication_factor.flatten(),
            },
            17 => Action::SetConfig {
                key: req(key, "key")?,
                value: req(value, "value")?,
                topic: opt_topic.flatten(),
            },
            18 => Action::SetZnode {
                path: req(path, "path")?,
                data: req(data, "data")?,
            },
            19 => Action::CreateZnode {
                path: req(path, "path")?,
                data: req(data, "data")?,
                ephemeral: ephemeral.unwrap_or(false),
                sequential: sequential.unwrap_or(false),
            },
            _ => Action::DeleteConfig {
                key: req(key, "key")?,
                topic: opt_topic.flatten(),
            },
        })
    }
}

/// The variant an action's tag names (serde's "variant identifier").
fn variant_of(tag: Value) -> Result<usize, JsonError> {
    use serde::de::Error as _;
    match tag {
        Value::String(s) => VARIANTS
            .iter()
            .position(|v| *v == s)
            .ok_or_else(|| JsonError::unknown_variant(&s, VARIANTS)),
        other => Err(JsonError::invalid_type(
            unexpected(&other),
            &"variant identifier",
        )),
    }
}

#[cfg(test)]
#[path = "action_tests.rs"]
mod tests;
