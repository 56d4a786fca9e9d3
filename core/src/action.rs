//! User actions: the fault verbs and admin commands that scenario files,
//! buttons, lessons and tests all use, through the one event queue.

use crate::ids::BrokerId;
use serde::{Deserialize, Serialize};

/// Something a person (or a scenario) does to the cluster.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
