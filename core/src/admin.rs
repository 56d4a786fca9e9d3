//! The admin side of ZooKeeper (Kafka's `AdminZkClient` and `AdminUtils`, as
//! the scripts use them with `--zookeeper`): validate a request, then write
//! what the controller acts on — topic creation, partition addition, the
//! deletion marker, a reassignment, a preferred election, a topic config
//! override. Each is a function over the ensemble returning what it wrote or
//! an [`AdminError`]; scenarios (topics that exist before the brokers start)
//! and actions at run time go through the same functions.

use crate::action::PartitionTarget;
use crate::config::{Config, ConfigError};
use crate::ids::{BrokerId, TopicPartition};
use crate::rng::Rng;
use crate::zk::{CreateMode, Zk, ZkError};
use crate::zk_client::paths;
use crate::znodes::{
    decode_topic_assignment, encode_config_change_notification, encode_preferred_replica_election,
    encode_reassign_partitions, topic_config_json, topic_znode_json,
};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Why an admin request was refused or failed. The text is the exception
/// the tool reports.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AdminError {
    /// A topic name Kafka's `Topic.validate` refuses; the text is the
    /// exception's message.
    #[error("InvalidTopicException: {0}")]
    InvalidTopic(String),
    /// Creating a topic that exists.
    #[error("TopicExistsException: topic '{0}' already exists")]
    TopicExists(String),
    /// Creating a topic with more replicas than registered brokers.
    #[error("InvalidReplicationFactorException: replication factor: {replication_factor} larger than available brokers: {available}")]
    InvalidReplicationFactor {
        /// The replication factor asked for.
        replication_factor: u32,
        /// Registered brokers.
        available: usize,
    },
    /// Adding partitions to a topic whose replication factor exceeds the
    /// registered brokers.
    #[error("InvalidReplicationFactorException: replication factor {replication_factor} larger than available brokers {available}")]
    InvalidReplicationFactorForNewPartitions {
        /// The topic's replication factor.
        replication_factor: u32,
        /// Registered brokers.
        available: usize,
    },
    /// A topic that does not exist (adding partitions, deleting).
    #[error("UnknownTopicOrPartitionException: topic {0} does not exist")]
    UnknownTopic(String),
    /// A partition count that is not an increase.
    #[error("InvalidPartitionsException: topic {topic} currently has {current} partitions, {requested} would not be an increase")]
    InvalidPartitions {
        /// The topic.
        topic: String,
        /// Its partitions now.
        current: u32,
        /// The count asked for.
        requested: u32,
    },
    /// Deleting a topic already marked for deletion.
    #[error("TopicAlreadyMarkedForDeletionException: topic {0} is already marked for deletion")]
    TopicAlreadyMarkedForDeletion(String),
    /// `/admin/reassign_partitions` exists.
    #[error("there is an existing assignment running")]
    ReassignmentInProgress,
    /// A reassignment of a partition that does not exist.
    #[error("UnknownTopicOrPartitionException: {0} does not exist; nothing written")]
    UnknownPartition(TopicPartition),
    /// A reassignment target with no or duplicate replicas.
    #[error("InvalidReplicaAssignmentException: {tp}: duplicate or no replicas in {:?}; nothing written", replicas.iter().map(|b| b.0).collect::<Vec<_>>())]
    InvalidReplicaAssignment {
        /// The partition.
        tp: TopicPartition,
        /// The target replicas.
        replicas: Vec<BrokerId>,
    },
    /// A reassignment target naming a broker that does not exist.
    #[error("{tp}: broker {broker} does not exist; nothing written")]
    UnknownBroker {
        /// The partition.
        tp: TopicPartition,
        /// The broker.
        broker: BrokerId,
    },
    /// `/admin/preferred_replica_election` exists.
    #[error("there is an existing preferred replica election in progress")]
    PreferredElectionInProgress,
    /// A key that is not a topic-level config.
    #[error("{0} is not a topic-level config key")]
    NotTopicConfig(String),
    /// A config value refused.
    #[error(transparent)]
    InvalidConfig(#[from] ConfigError),
    /// A config override for a topic that does not exist.
    #[error("topic {0} does not exist")]
    TopicDoesNotExist(String),
    /// A ZooKeeper operation failed.
    #[error("{op} {path}: {error}")]
    Zk {
        /// `create` or `set`.
        op: &'static str,
        /// The path.
        path: String,
        /// The error.
        error: ZkError,
    },
}

impl AdminError {
    /// Whether ZooKeeper failed (rather than the request being refused).
    pub fn is_zk(&self) -> bool {
        matches!(self, AdminError::Zk { .. })
    }
}

/// What a topic config change wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigChanged {
    /// The `/config/topics/<t>` data written.
    pub data: String,
    /// The change notification could not be written (the override was).
    pub notification_error: Option<AdminError>,
}

/// Registered brokers: the children of `/brokers/ids`, in their order.
pub fn registered_brokers(zk: &Zk) -> Vec<BrokerId> {
    zk.children(paths::BROKER_IDS)
        .filter_map(|c| c.parse().ok())
        .map(BrokerId)
        .collect()
}

/// A topic's assignment from `/brokers/topics/<t>`, in partition order.
pub fn topic_assignment(zk: &Zk, topic: &str) -> Option<Vec<(u32, Vec<BrokerId>)>> {
    let n = zk.node(&paths::topic(topic))?;
    decode_topic_assignment(&n.data.text())
}

/// `getAllPartitions`: every partition of every topic znode, topics in
/// `/brokers/topics` order, partitions in partition order.
pub fn all_partitions(zk: &Zk) -> Vec<TopicPartition> {
    let mut out = Vec::new();
    for topic in zk.children(paths::TOPICS) {
        let Some(node) = zk.node(&paths::topic(&topic)) else {
            continue;
        };
        for (p, _) in decode_topic_assignment(&node.data.text()).unwrap_or_default() {
            out.push(TopicPartition::new(&*topic, p));
        }
    }
    out
}

/// The longest topic name Kafka accepts (`Topic.MAX_NAME_LENGTH`).
pub const MAX_TOPIC_NAME_LENGTH: usize = 249;

/// Kafka 2.4's `Topic.validate`: a topic name is 1 to 249 characters of
/// ASCII alphanumerics, '.', '_' and '-', and neither "." nor "..". The error
/// carries Kafka's message. Every way into the core (scenario files, actions
/// from the page, share links, lessons) goes through this, by way of the
/// admin functions below.
pub fn validate_topic_name(name: &str) -> Result<(), AdminError> {
    let refuse = |m: String| Err(AdminError::InvalidTopic(m));
    if name.is_empty() {
        return refuse("Topic name is illegal, it can't be empty".to_string());
    }
    if name == "." || name == ".." {
        return refuse("Topic name cannot be \".\" or \"..\"".to_string());
    }
    // Java's String.length(): UTF-16 code units.
    if name.encode_utf16().count() > MAX_TOPIC_NAME_LENGTH {
        return refuse(format!(
            "Topic name is illegal, it can't be longer than {MAX_TOPIC_NAME_LENGTH} characters, topic name: {name}"
        ));
    }
    let legal = |c: char| c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-';
    if !name.chars().all(legal) {
        return refuse(format!(
            "Topic name \"{name}\" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'"
        ));
    }
    Ok(())
}

/// `AdminZkClient.validateTopicCreate`'s checks of the name: `Topic.validate`,
/// then the topic must not exist, then (for a name with '.' or '_') it must
/// not collide with an existing topic's name once '.' and '_' are taken as
/// the same (metric names cannot tell them apart).
fn validate_topic_create(zk: &Zk, name: &str) -> Result<(), AdminError> {
    validate_topic_name(name)?;
    if zk.node(&paths::topic(name)).is_some() {
        return Err(AdminError::TopicExists(name.to_string()));
    }
    if name.contains(['.', '_']) {
        let unified = |t: &str| t.replace('.', "_");
        let colliding: Vec<_> = zk
            .children(paths::TOPICS)
            .filter(|t| unified(t) == unified(name))
            .collect();
        if !colliding.is_empty() {
            return Err(AdminError::InvalidTopic(format!(
                "Topic '{name}' collides with existing topics: {}",
                colliding.join(", ")
            )));
        }
    }
    Ok(())
}

/// `AdminZkClient.createTopic`: place `partitions` × `replication_factor`
/// replicas on the registered brokers (rack-unaware), then
/// [`create_topic_with_assignment`]. Returns the topic znode's data.
pub fn create_topic(
    zk: &mut Zk,
    name: &str,
    partitions: u32,
    replication_factor: u32,
    config: &BTreeMap<String, Value>,
    rng: &mut Rng,
) -> Result<String, AdminError> {
    // Kafka places the replicas first (refusing a replication factor larger
    // than the brokers), then validates; the name is checked here before
    // the placement draws from `rng`, so a refused create changes nothing.
    let registered = registered_brokers(zk);
    if replication_factor as usize > registered.len() {
        return Err(AdminError::InvalidReplicationFactor {
            replication_factor,
            available: registered.len(),
        });
    }
    validate_topic_create(zk, name)?;
    let assignment = assign_replicas_rack_unaware(partitions, replication_factor, &registered, rng);
    create_topic_with_assignment(zk, name, &assignment, config)
}

/// `AdminZkClient.createTopicWithAssignment`: refuse an existing topic, then
/// write the config and the assignment znodes; the controller does the rest.
/// Returns the topic znode's data.
pub fn create_topic_with_assignment(
    zk: &mut Zk,
    name: &str,
    assignment: &[Vec<BrokerId>],
    config: &BTreeMap<String, Value>,
) -> Result<String, AdminError> {
    validate_topic_create(zk, name)?;
    let data = topic_znode_json(assignment);
    // The config znode is written first; if it is already there the
    // assignment is written all the same.
    let _ = zk.create_recursive(
        None,
        &paths::topic_config(name),
        &topic_config_json(config),
        CreateMode::Persistent,
    );
    let path = paths::topic(name);
    match zk.create_recursive(None, &path, &data, CreateMode::Persistent) {
        Ok(_) => Ok(data),
        Err(error) => Err(AdminError::Zk {
            op: "create",
            path,
            error,
        }),
    }
}

/// `AdminZkClient.addPartitions`: keep the existing assignment, place the
/// new partitions starting at partition 0's first replica, and rewrite the
/// whole topic znode. Returns its new data.
pub fn add_partitions(zk: &mut Zk, topic: &str, count: u32) -> Result<String, AdminError> {
    let Some(existing) = topic_assignment(zk, topic) else {
        return Err(AdminError::UnknownTopic(topic.to_string()));
    };
    let current = existing.len() as u32;
    if count <= current {
        return Err(AdminError::InvalidPartitions {
            topic: topic.to_string(),
            current,
            requested: count,
        });
    }
    let brokers = registered_brokers(zk);
    let rf = existing.first().map_or(1, |(_, r)| r.len()) as u32;
    if rf as usize > brokers.len() {
        return Err(AdminError::InvalidReplicationFactorForNewPartitions {
            replication_factor: rf,
            available: brokers.len(),
        });
    }
    let first = existing
        .first()
        .and_then(|(_, r)| r.first().copied())
        .unwrap_or(BrokerId(0));
    let mut sorted = brokers.clone();
    crate::sort::sort(&mut sorted);
    let start = sorted.iter().position(|b| *b >= first).unwrap_or(0) as u64;
    let added = assign_replicas_from(count - current, rf, &brokers, start, start, current);
    let mut all: Vec<Vec<BrokerId>> = existing.into_iter().map(|(_, r)| r).collect();
    all.extend(added);
    let data = topic_znode_json(&all);
    let path = paths::topic(topic);
    match zk.set_data(None, &path, &data, None) {
        Ok(_) => Ok(data),
        Err(error) => Err(AdminError::Zk {
            op: "set",
            path,
            error,
        }),
    }
}

/// `AdminZkClient.deleteTopic`: create `/admin/delete_topics/<topic>`.
/// Returns the path written.
pub fn delete_topic(zk: &mut Zk, topic: &str) -> Result<String, AdminError> {
    if zk.node(&paths::topic(topic)).is_none() {
        return Err(AdminError::UnknownTopic(topic.to_string()));
    }
    let path = format!("{}/{topic}", paths::DELETE_TOPICS);
    match zk.create_recursive(None, &path, "", CreateMode::Persistent) {
        Ok(_) => Ok(path),
        Err(ZkError::NodeExists) => {
            Err(AdminError::TopicAlreadyMarkedForDeletion(topic.to_string()))
        }
        Err(error) => Err(AdminError::Zk {
            op: "create",
            path,
            error,
        }),
    }
}

/// `kafka-reassign-partitions.sh --execute`: check every target (the
/// partition exists, its replicas are distinct and non-empty, each broker
/// `is_broker`), then write `/admin/reassign_partitions`, refused while one
/// is running. Returns the data written.
pub fn reassign_partitions(
    zk: &mut Zk,
    targets: Vec<PartitionTarget>,
    is_broker: impl Fn(BrokerId) -> bool,
) -> Result<String, AdminError> {
    if zk.node(paths::REASSIGN_PARTITIONS).is_some() {
        return Err(AdminError::ReassignmentInProgress);
    }
    let mut entries = Vec::new();
    for t in targets {
        let tp = TopicPartition::new(&t.topic, t.partition);
        let exists = topic_assignment(zk, &t.topic)
            .is_some_and(|a| a.iter().any(|(p, _)| *p == t.partition));
        if !exists {
            return Err(AdminError::UnknownPartition(tp));
        }
        let distinct: BTreeSet<BrokerId> = t.replicas.iter().copied().collect();
        if t.replicas.is_empty() || distinct.len() != t.replicas.len() {
            return Err(AdminError::InvalidReplicaAssignment {
                tp,
                replicas: t.replicas,
            });
        }
        if let Some(b) = t.replicas.iter().find(|b| !is_broker(**b)) {
            return Err(AdminError::UnknownBroker { tp, broker: *b });
        }
        entries.push((tp, t.replicas));
    }
    let data = encode_reassign_partitions(&entries);
    match zk.create_recursive(
        None,
        paths::REASSIGN_PARTITIONS,
        &data,
        CreateMode::Persistent,
    ) {
        Ok(_) => Ok(data),
        Err(error) => Err(AdminError::Zk {
            op: "create",
            path: paths::REASSIGN_PARTITIONS.to_string(),
            error,
        }),
    }
}

/// `kafka-preferred-replica-election.sh --zookeeper`: write the znode (all
/// partitions when none are named); refused if one is pending. Returns the
/// data written.
pub fn write_preferred_election(
    zk: &mut Zk,
    partitions: Option<Vec<TopicPartition>>,
) -> Result<String, AdminError> {
    if zk.node(paths::PREFERRED_REPLICA_ELECTION).is_some() {
        return Err(AdminError::PreferredElectionInProgress);
    }
    let all = partitions.unwrap_or_else(|| all_partitions(zk));
    let data = encode_preferred_replica_election(&all);
    match zk.create_recursive(
        None,
        paths::PREFERRED_REPLICA_ELECTION,
        &data,
        CreateMode::Persistent,
    ) {
        Ok(_) => Ok(data),
        Err(error) => Err(AdminError::Zk {
            op: "create",
            path: paths::PREFERRED_REPLICA_ELECTION.to_string(),
            error,
        }),
    }
}

/// `AdminZkClient.changeTopicConfig` (`kafka-configs.sh --alter` on a
/// topic): check the key and value against `config`, merge the override
/// into `/config/topics/<t>`, then write a change notification for the
/// brokers.
pub fn change_topic_config(
    zk: &mut Zk,
    config: &Config,
    topic: &str,
    key: &str,
    value: &Value,
) -> Result<ConfigChanged, AdminError> {
    // AdminZkClient.validateTopicConfig: the name first.
    validate_topic_name(topic)?;
    if !Config::TOPIC_KEYS.contains(&key) {
        return Err(AdminError::NotTopicConfig(key.to_string()));
    }
    let mut probe = config.clone();
    probe.set(key, value)?;
    if zk.node(&paths::topic(topic)).is_none() {
        return Err(AdminError::TopicDoesNotExist(topic.to_string()));
    }
    let mut overrides = topic_overrides(zk, topic);
    overrides.insert(key.to_string(), value.clone());
    write_topic_config(zk, topic, &overrides)
}

/// `kafka-configs.sh --alter --delete-config` on a topic: remove `key`
/// from the overrides in `/config/topics/<t>` (refused if the topic does
/// not override it), then write a change notification for the brokers.
pub fn delete_topic_config(
    zk: &mut Zk,
    topic: &str,
    key: &str,
) -> Result<ConfigChanged, AdminError> {
    validate_topic_name(topic)?;
    if zk.node(&paths::topic(topic)).is_none() {
        return Err(AdminError::TopicDoesNotExist(topic.to_string()));
    }
    let mut overrides = topic_overrides(zk, topic);
    if overrides.remove(key).is_none() {
        return Err(AdminError::InvalidConfig(ConfigError::NotSet(
            key.to_string(),
        )));
    }
    write_topic_config(zk, topic, &overrides)
}

/// A topic's overrides, as `/config/topics/<t>` holds them (none when the
/// znode is missing or unreadable).
fn topic_overrides(zk: &Zk, topic: &str) -> BTreeMap<String, Value> {
    zk.node(&paths::topic_config(topic))
        .and_then(|n| serde_json::from_str::<Value>(&n.data.text()).ok())
        .and_then(|v| v.get("config").and_then(|c| c.as_object().cloned()))
        .map(|m| {
            // Inserted one by one (a collect sorts, with a copy of the sort
            // of its own in the page's .wasm).
            let mut out = BTreeMap::new();
            for (k, v) in m {
                out.insert(k, v);
            }
            out
        })
        .unwrap_or_default()
}

/// Write a topic's overrides to `/config/topics/<t>` and notify the
/// brokers (`AdminZkClient.changeEntityConfig`).
fn write_topic_config(
    zk: &mut Zk,
    topic: &str,
    overrides: &BTreeMap<String, Value>,
) -> Result<ConfigChanged, AdminError> {
    let path = paths::topic_config(topic);
    let data = topic_config_json(overrides);
    let r = if zk.node(&path).is_some() {
        zk.set_data(None, &path, &data, None).map(|_| ())
    } else {
        zk.create_recursive(None, &path, &data, CreateMode::Persistent)
            .map(|_| ())
    };
    if let Err(error) = r {
        return Err(AdminError::Zk {
            op: "set",
            path,
            error,
        });
    }
    let change = encode_config_change_notification(&format!("topics/{topic}"));
    let at = paths::CONFIG_CHANGE_PREFIX;
    let notification_error = zk
        .create_recursive(None, at, &change, CreateMode::PersistentSequential)
        .err()
        .map(|error| AdminError::Zk {
            op: "create",
            path: at.to_string(),
            error,
        });
    Ok(ConfigChanged {
        data,
        notification_error,
    })
}

/// Kafka's rack-unaware replica placement (AdminUtils.assignReplicasToBrokers
/// without racks): a random start broker and a random shift for the
/// followers, both from the seeded generator, brokers in id order.
pub fn assign_replicas_rack_unaware(
    partitions: u32,
    replication_factor: u32,
    brokers: &[BrokerId],
    rng: &mut Rng,
) -> Vec<Vec<BrokerId>> {
    let n = brokers.len() as u64;
    let start = rng.below(n);
    let shift = rng.below(n);
    assign_replicas_with(partitions, replication_factor, brokers, start, shift)
}

/// The placement with a given start index and follower shift (Kafka's
/// `fixedStartIndex` sets both).
pub fn assign_replicas_with(
    partitions: u32,
    replication_factor: u32,
    brokers: &[BrokerId],
    start: u64,
    shift: u64,
) -> Vec<Vec<BrokerId>> {
    assign_replicas_from(partitions, replication_factor, brokers, start, shift, 0)
}

/// The placement of `partitions` new partitions numbered from
/// `first_partition` (Kafka's `startPartitionId`, used when adding partitions).
pub fn assign_replicas_from(
    partitions: u32,
    replication_factor: u32,
    brokers: &[BrokerId],
    start: u64,
    mut shift: u64,
    first_partition: u32,
) -> Vec<Vec<BrokerId>> {
    let mut ids: Vec<BrokerId> = brokers.to_vec();
    crate::sort::sort(&mut ids);
    let n = ids.len() as u64;
    if n == 0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    let first = u64::from(first_partition);
    for p in first..first + u64::from(partitions) {
        if p > 0 && p % n == 0 {
            shift += 1;
        }
        let first = (p + start) % n;
        let mut replicas = vec![ids[first as usize]];
        for j in 0..u64::from(replication_factor.saturating_sub(1)) {
            let s = 1 + (shift + j) % (n - 1).max(1);
            replicas.push(ids[((first + s) % n) as usize]);
        }
        out.push(replicas);
    }
    out
}
