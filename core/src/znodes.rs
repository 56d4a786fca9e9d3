//! Encoding and decoding of Kafka's znode data (ZkData.scala).

//!
//! Kafka 2.4 writes its JSON with Jackson, which keeps a Scala `Map`'s
//! insertion order and a case class's constructor order; serde_json would sort
//! the keys, so the encoders here write the bytes themselves, key by key.

use crate::ids::{BrokerId, TopicPartition};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// A partition's leadership as the controller caches it
/// (`LeaderIsrAndControllerEpoch` with the state znode's version).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaderIsr {
    /// The leader, or `None` where Kafka writes −1.
    pub leader: Option<BrokerId>,
    /// The leader epoch.
    pub leader_epoch: i32,
    /// The in-sync replicas, in ISR order (in place up to three; compares,
    /// prints and serializes as a list).
    pub isr: crate::broker::ReplicaIds,
    /// The state znode's data version.
    pub zk_version: i32,
    /// The controller epoch that wrote it.
    pub controller_epoch: i32,
}

/// A partition's reassignment in progress (KIP-455's ReplicaAssignment).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reassignment {
    /// Replicas being added.
    pub adding: Vec<BrokerId>,
    /// Replicas being removed.
    pub removing: Vec<BrokerId>,
}

/// A JSON string literal (quoted and escaped).
fn json_str(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// `{"version":1,"partitions":[{"topic":…,"partition":…},…]}`, the body of
/// the ISR change and preferred election znodes.
fn encode_partition_list(partitions: &[TopicPartition]) -> String {
    let list: Vec<String> = partitions
        .iter()
        .map(|tp| {
            format!(
                r#"{{"topic":{},"partition":{}}}"#,
                json_str(&tp.topic),
                tp.partition
            )
        })
        .collect();
    format!(r#"{{"version":1,"partitions":[{}]}}"#, list.join(","))
}

/// `/isr_change_notification/isr_change_<seq>` (IsrChangeNotificationSequenceZNode.encode).
pub fn encode_isr_change_notification(partitions: &[TopicPartition]) -> String {
    encode_partition_list(partitions)
}

/// `/admin/preferred_replica_election` (PreferredReplicaElectionZNode.encode).
pub fn encode_preferred_replica_election(partitions: &[TopicPartition]) -> String {
    encode_partition_list(partitions)
}

/// Decode a `partitions` list of `{topic, partition}` objects (the ISR change
/// and preferred election znodes).
///
/// Read as JSON values would be read (any valid JSON; the last of repeated
/// keys counts; every entry needs a string `topic` and a `partition` that is
/// a whole number from 0 to 2^32 − 1, else there is no list), without
/// building them: an ISR change notification names tens of thousands.
pub fn decode_partition_list(data: &str) -> Option<Vec<TopicPartition>> {
    let list: list_json::Document = serde_json::from_str(data).ok()?;
    let entries = list.0?;
    let mut topic: Option<crate::ids::Topic> = None;
    entries
        .into_iter()
        .map(|e| {
            let (list_json::Loose::Str(t), list_json::Loose::Num(p)) = (e.topic?, e.partition?)
            else {
                return None;
            };
            // One shared name for a topic's run of entries.
            let name = match &topic {
                Some(n) if n.as_str() == t => n.clone(),
                _ => {
                    let n = crate::ids::Topic::from(t.as_str());
                    topic = Some(n.clone());
                    n
                }
            };
            Some(TopicPartition::new(&name, u32::try_from(p).ok()?))
        })
        .collect()
}

/// What [`decode_partition_list`] reads, value by value as a JSON value
/// would hold it (kept only where the list needs it).
mod list_json {
    use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
    use serde::Deserialize;
    use std::fmt;

    /// A value passed over (as `serde::de::IgnoredAny`, but read as a JSON
    /// value is, nesting limit and all).
    struct Skip;

    impl<'de> Deserialize<'de> for Skip {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Skip, D::Error> {
            d.deserialize_any(LooseVisitor).map(|_| Skip)
        }
    }

    /// A value: a string, a whole number of at least 0, or anything else.
    pub(super) enum Loose {
        Str(String),
        Num(u64),
        Other,
    }

    /// The document: its last `partitions` if that is an array (`None`
    /// when it has none, is not an object, or the array is something else).
    pub(super) struct Document(pub(super) Option<Vec<Entry>>);

    /// An entry of the array: its last `topic` and `partition` (`None`
    /// each when missing; both `None` when the entry is not an object).
    #[derive(Default)]
    pub(super) struct Entry {
        pub(super) topic: Option<Loose>,
        pub(super) partition: Option<Loose>,
    }

    /// The `partitions` value: an array of entries, or something else.
    struct List(Option<Vec<Entry>>);

    struct LooseVisitor;

    impl<'de> Visitor<'de> for LooseVisitor {
        type Value = Loose;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_str<E>(self, v: &str) -> Result<Loose, E> {
            Ok(Loose::Str(v.to_string()))
        }
        fn visit_string<E>(self, v: String) -> Result<Loose, E> {
            Ok(Loose::Str(v))
        }
        fn visit_u64<E>(self, v: u64) -> Result<Loose, E> {
            Ok(Loose::Num(v))
        }
        fn visit_i64<E>(self, v: i64) -> Result<Loose, E> {
            // (A JSON value holds a non-negative one as a whole number.)
            Ok(u64::try_from(v).map_or(Loose::Other, Loose::Num))
        }
        fn visit_f64<E>(self, _: f64) -> Result<Loose, E> {
            Ok(Loose::Other)
        }
        fn visit_bool<E>(self, _: bool) -> Result<Loose, E> {
            Ok(Loose::Other)
        }
        fn visit_unit<E>(self) -> Result<Loose, E> {
            Ok(Loose::Other)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Loose, A::Error> {
            while seq.next_element::<Skip>()?.is_some() {}
            Ok(Loose::Other)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Loose, A::Error> {
            while map.next_entry::<Skip, Skip>()?.is_some() {}
            Ok(Loose::Other)
        }
    }

    impl<'de> Deserialize<'de> for Loose {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Loose, D::Error> {
            d.deserialize_any(LooseVisitor)
        }
    }

    /// Visits a value that is kept only if it is an object or an array.
    macro_rules! others {
        ($out:ty, $none:expr) => {
            fn visit_str<E>(self, _: &str) -> Result<$out, E> {
                Ok($none)
            }
            fn visit_u64<E>(self, _: u64) -> Result<$out, E> {
                Ok($none)
            }
            fn visit_i64<E>(self, _: i64) -> Result<$out, E> {
                Ok($none)
            }
            fn visit_f64<E>(self, _: f64) -> Result<$out, E> {
                Ok($none)
            }
            fn visit_bool<E>(self, _: bool) -> Result<$out, E> {
                Ok($none)
            }
            fn visit_unit<E>(self) -> Result<$out, E> {
                Ok($none)
            }
        };
    }

    struct EntryVisitor;

    impl<'de> Visitor<'de> for EntryVisitor {
        type Value = Entry;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("any JSON value")
        }
        others!(Entry, Entry::default());
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Entry, A::Error> {
            while seq.next_element::<Skip>()?.is_some() {}
            Ok(Entry::default())
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entry, A::Error> {
            let mut e = Entry::default();
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                match &*key {
                    "topic" => e.topic = Some(map.next_value()?),
                    "partition" => e.partition = Some(map.next_value()?),
                    _ => {
                        map.next_value::<Skip>()?;
                    }
                }
            }
            Ok(e)
        }
    }

    impl<'de> Deserialize<'de> for Entry {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Entry, D::Error> {
            d.deserialize_any(EntryVisitor)
        }
    }

    struct ListVisitor;

    impl<'de> Visitor<'de> for ListVisitor {
        type Value = List;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("any JSON value")
        }
        others!(List, List(None));
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<List, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
            while let Some(e) = seq.next_element::<Entry>()? {
                out.push(e);
            }
            Ok(List(Some(out)))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<List, A::Error> {
            while map.next_entry::<Skip, Skip>()?.is_some() {}
            Ok(List(None))
        }
    }

    impl<'de> Deserialize<'de> for List {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<List, D::Error> {
            d.deserialize_any(ListVisitor)
        }
    }

    struct DocumentVisitor;

    impl<'de> Visitor<'de> for DocumentVisitor {
        type Value = Document;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("any JSON value")
        }
        others!(Document, Document(None));
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Document, A::Error> {
            while seq.next_element::<Skip>()?.is_some() {}
            Ok(Document(None))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Document, A::Error> {
            let mut list = None;
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == "partitions" {
                    list = map.next_value::<List>()?.0;
                } else {
                    map.next_value::<Skip>()?;
                }
            }
            Ok(Document(list))
        }
    }

    impl<'de> Deserialize<'de> for Document {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Document, D::Error> {
            d.deserialize_any(DocumentVisitor)
        }
    }
}

/// `/admin/reassign_partitions` (ReassignPartitionsZNode.encode: version 1,
/// then each entry's topic, partition and replicas).
pub fn encode_reassign_partitions(entries: &[(TopicPartition, Vec<BrokerId>)]) -> String {
    let list: Vec<String> = entries
        .iter()
        .map(|(tp, r)| {
            let r: Vec<String> = r.iter().map(|b| b.to_string()).collect();
            format!(
                r#"{{"topic":{},"partition":{},"replicas":[{}]}}"#,
                json_str(&tp.topic),
                tp.partition,
                r.join(",")
            )
        })
        .collect();
    format!(r#"{{"version":1,"partitions":[{}]}}"#, list.join(","))
}

/// Decode `/admin/reassign_partitions`.
pub fn decode_reassign_partitions(data: &str) -> Option<Vec<(TopicPartition, Vec<BrokerId>)>> {
    let v: Value = serde_json::from_str(data).ok()?;
    v.get("partitions")?
        .as_array()?
        .iter()
        .map(|p| {
            let tp = TopicPartition::new(
                p.get("topic")?.as_str()?,
                u32::try_from(p.get("partition")?.as_u64()?).ok()?,
            );
            let r = p
                .get("replicas")?
                .as_array()?
                .iter()
                .map(|b| b.as_u64().and_then(|n| u32::try_from(n).ok()).map(BrokerId))
                .collect::<Option<Vec<_>>>()?;
            Some((tp, r))
        })
        .collect()
}

/// `/config/changes/config_change_<seq>` (ConfigEntityChangeNotificationSequenceZNode.encode):
/// `entity_path` is `<entity type>/<sanitized name>`, e.g. `topics/t`.
pub fn encode_config_change_notification(entity_path: &str) -> String {
    format!(r#"{{"version":2,"entity_path":{}}}"#, json_str(entity_path))
}

/// Decode `/brokers/topics/<t>`: partition number → replicas, in partition order.
/// Returns `None` for data that is not a topic znode.
pub fn decode_topic_assignment(data: &str) -> Option<Vec<(u32, Vec<BrokerId>)>> {
    if let Some(out) = fast::topic_assignment(data) {
        return Some(out.into_iter().map(|(p, r)| (p, r.to_vec())).collect());
    }
    decode_topic_assignment_json(data)
}

/// [`decode_topic_assignment`] with each partition's replicas as the
/// controller keeps them.
pub fn decode_topic_assignment_ids(
    data: &str,
) -> Option<Vec<(u32, crate::controller::election::BrokerIds)>> {
    if let Some(out) = fast::topic_assignment(data) {
        return Some(out);
    }
    Some(
        decode_topic_assignment_json(data)?
            .into_iter()
            .map(|(p, r)| (p, r.into()))
            .collect(),
    )
}

/// `decode_topic_assignment` through a general JSON parse (any data).
fn decode_topic_assignment_json(data: &str) -> Option<Vec<(u32, Vec<BrokerId>)>> {
    let v: Value = serde_json::from_str(data).ok()?;
    let parts = v.get("partitions")?.as_object()?;
    let mut out = Vec::new();
    for (p, replicas) in parts {
        let p: u32 = p.parse().ok()?;
        let ids = replicas
            .as_array()?
            .iter()
            .map(|b| b.as_u64().and_then(|n| u32::try_from(n).ok()).map(BrokerId))
            .collect::<Option<Vec<_>>>()?;
        out.push((p, ids));
    }
    crate::sort::sort_by_key(&mut out, |(p, _)| *p);
    Some(out)
}

/// Decode the `adding_replicas` and `removing_replicas` of a version-2 topic znode.
pub fn decode_reassigning(data: &str) -> Vec<(u32, Reassignment)> {
    // What every topic znode without a reassignment ends with: data ending so
    // is either not JSON (nothing) or an object whose last word on both keys
    // (the one a JSON object keeps) is empty. Skips parsing the whole znode.
    if data.ends_with(r#","adding_replicas":{},"removing_replicas":{}}"#) {
        return Vec::new();
    }
    let Ok(v) = serde_json::from_str::<Value>(data) else {
        return Vec::new();
    };
    let list = |key: &str| -> std::collections::BTreeMap<u32, Vec<BrokerId>> {
        // Inserted one by one (a collect would sort, with a copy of the sort
        // of its own in the page's .wasm).
        let mut out = std::collections::BTreeMap::new();
        for (p, r) in v.get(key).and_then(Value::as_object).into_iter().flatten() {
            let ids = r.as_array().and_then(|a| {
                a.iter()
                    .map(|b| b.as_u64().and_then(|n| u32::try_from(n).ok()).map(BrokerId))
                    .collect::<Option<Vec<_>>>()
            });
            if let (Ok(p), Some(ids)) = (p.parse::<u32>(), ids) {
                out.insert(p, ids);
            }
        }
        out
    };
    let adding = list("adding_replicas");
    let removing = list("removing_replicas");
    let parts: std::collections::BTreeSet<u32> =
        adding.keys().chain(removing.keys()).copied().collect();
    parts
        .into_iter()
        .map(|p| {
            let r = Reassignment {
                adding: adding.get(&p).cloned().unwrap_or_default(),
                removing: removing.get(&p).cloned().unwrap_or_default(),
            };
            (p, r)
        })
        .collect()
}

/// The overrides a `/config/topics/<t>` znode holds (its `config` object),
/// or `None` for data that is not such a znode.
pub fn topic_config_overrides(data: &str) -> Option<Map<String, Value>> {
    let v: Value = serde_json::from_str(data).ok()?;
    v.get("config")?.as_object().cloned()
}

/// A topic's `unclean.leader.election.enable` override from its
/// `/config/topics/<t>` data, read as the controller reads it when an
/// election needs it (`None`: no override, the cluster setting applies).
pub fn topic_unclean_override(data: &str) -> Option<bool> {
    let config = topic_config_overrides(data)?;
    crate::config::parse_bool(config.get("unclean.leader.election.enable")?)
}

/// The `/controller` znode's data, as Kafka writes it (ZkData ControllerZNode.encode).
pub fn controller_znode_json(broker: BrokerId, timestamp_ms: u64) -> String {
    format!(r#"{{"version":1,"brokerid":{broker},"timestamp":"{timestamp_ms}"}}"#)
}

/// The broker id in `/controller`'s data (ControllerZNode.decode reads only `brokerid`).
pub fn parse_controller_id(data: &str) -> Option<BrokerId> {
    if let Some(id) = fast::controller_id(data) {
        return id;
    }
    parse_controller_id_json(data)
}

/// `parse_controller_id` through a general JSON parse (any data).
fn parse_controller_id_json(data: &str) -> Option<BrokerId> {
    let v: serde_json::Value = serde_json::from_str(data).ok()?;
    let id = v.get("brokerid")?.as_i64()?;
    u32::try_from(id).ok().map(BrokerId)
}

/// The broker registration JSON (version 4), as KafkaZkClient writes it.
pub fn broker_znode_json(id: BrokerId, timestamp_ms: u64) -> String {
    let port = 9092 + id.0;
    format!(
        concat!(
            r#"{{"listener_security_protocol_map":{{"PLAINTEXT":"PLAINTEXT"}},"#,
            r#""endpoints":["PLAINTEXT://broker{id}:{port}"],"jmx_port":-1,"host":"broker{id}","#,
            r#""timestamp":"{ts}","port":{port},"version":4}}"#
        ),
        id = id,
        port = port,
        ts = timestamp_ms
    )
}

/// The topic znode's data (`/brokers/topics/<t>`), Kafka 2.4's version 2.
pub fn topic_znode_json(assignment: &[Vec<BrokerId>]) -> String {
    let parts: Vec<String> = assignment
        .iter()
        .enumerate()
        .map(|(p, r)| format!("\"{p}\":{}", crate::ids::ids_text(r)))
        .collect();
    format!(
        r#"{{"version":2,"partitions":{{{}}},"adding_replicas":{{}},"removing_replicas":{{}}}}"#,
        parts.join(",")
    )
}

/// The topic config znode's data (`/config/topics/<t>`).
pub fn topic_config_json(config: &BTreeMap<String, Value>) -> String {
    let entries: Vec<String> = config
        .iter()
        .map(|(k, v)| {
            // Kafka stores every config value as a string.
            let s = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            format!("{}:{}", Value::String(k.clone()), Value::String(s))
        })
        .collect();
    format!(r#"{{"version":1,"config":{{{}}}}}"#, entries.join(","))
}

/// The `/brokers/topics/<t>` data with adding and removing replicas (version 2).
pub fn topic_znode_json_full(
    replicas: &BTreeMap<u32, Vec<BrokerId>>,
    reassigning: &BTreeMap<u32, Reassignment>,
) -> String {
    let list = |m: Vec<(u32, &Vec<BrokerId>)>| -> String {
        let parts: Vec<String> = m
            .iter()
            .map(|(p, r)| format!("\"{p}\":{}", crate::ids::ids_text(r.iter())))
            .collect();
        format!("{{{}}}", parts.join(","))
    };
    let partitions = list(replicas.iter().map(|(p, r)| (*p, r)).collect());
    let adding = list(
        reassigning
            .iter()
            .filter(|(_, r)| !r.adding.is_empty())
            .map(|(p, r)| (*p, &r.adding))
            .collect(),
    );
    let removing = list(
        reassigning
            .iter()
            .filter(|(_, r)| !r.removing.is_empty())
            .map(|(p, r)| (*p, &r.removing))
            .collect(),
    );
    format!(
        r#"{{"version":2,"partitions":{partitions},"adding_replicas":{adding},"removing_replicas":{removing}}}"#
    )
}
/// Encode a partition `state` znode (TopicPartitionStateZNode.encode).
pub fn encode_partition_state(l: &LeaderIsr) -> String {
    let mut out = String::with_capacity(80 + 11 * l.isr.len());
    write_partition_state(
        &mut out,
        i64::from(l.controller_epoch),
        l.leader.map_or(-1, |b| i64::from(b.0)),
        i64::from(l.leader_epoch),
        &mut l.isr.iter().map(|b| i64::from(b.0)),
    );
    out
}

/// Append a partition state znode's text written from its numbers (the
/// leader −1 for none): the one writer of that format, for
/// [`encode_partition_state`] and for a znode's data kept as numbers
/// ([`crate::zk::ZnodeData`]). Written piece by piece: the bytes `format!`
/// wrote, without its machinery or a string per ISR member (every state
/// znode write).
pub(crate) fn write_partition_state(
    out: &mut String,
    controller_epoch: i64,
    leader: i64,
    leader_epoch: i64,
    isr: &mut dyn Iterator<Item = i64>,
) {
    out.push_str(r#"{"controller_epoch":"#);
    push_int(out, controller_epoch);
    out.push_str(r#","leader":"#);
    push_int(out, leader);
    out.push_str(r#","version":1,"leader_epoch":"#);
    push_int(out, leader_epoch);
    out.push_str(r#","isr":["#);
    for (i, b) in isr.enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_int(out, b);
    }
    out.push_str("]}");
}

/// Append `v` in decimal, as `Display` writes it.
pub(crate) fn push_int(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    let mut n = v.unsigned_abs();
    let mut digits = [0u8; 20];
    let mut len = 0;
    for slot in digits.iter_mut() {
        *slot = b'0' + (n % 10) as u8;
        len += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for d in digits.iter().take(len).rev() {
        out.push(char::from(*d));
    }
}

/// Decode a partition `state` znode; `zk_version` is the node's data version.
pub fn decode_partition_state(data: &str, zk_version: i32) -> Option<LeaderIsr> {
    if let Some(decoded) = fast::partition_state(data, zk_version) {
        return decoded;
    }
    decode_partition_state_json(data, zk_version)
}

/// The integers of a state znode's data when it is exactly what
/// [`encode_partition_state`] writes (plain integers, no spacing, keys in
/// its order; the ids in `u32`'s range): controller epoch, leader, leader
/// epoch, ISR. Printing them as `encode_partition_state` does gives `data`
/// back byte for byte. `None` for any other text.
pub(crate) fn partition_state_numbers(
    data: &str,
) -> Option<(i64, i64, i64, crate::controller::election::BrokerIds)> {
    fast::partition_state_numbers(data)
}

/// `decode_partition_state` through a general JSON parse (any data).
fn decode_partition_state_json(data: &str, zk_version: i32) -> Option<LeaderIsr> {
    let v: Value = serde_json::from_str(data).ok()?;
    let leader = v.get("leader")?.as_i64()?;
    let isr = v
        .get("isr")?
        .as_array()?
        .iter()
        .map(|b| b.as_u64().and_then(|n| u32::try_from(n).ok()).map(BrokerId))
        .collect::<Option<crate::controller::election::BrokerIds>>()?
        .into();
    Some(LeaderIsr {
        leader: u32::try_from(leader).ok().map(BrokerId),
        leader_epoch: i32::try_from(v.get("leader_epoch")?.as_i64()?).ok()?,
        isr,
        zk_version,
        controller_epoch: i32::try_from(v.get("controller_epoch")?.as_i64()?).ok()?,
    })
}

/// Decoders for exactly the bytes the encoders above write (no whitespace,
/// keys in the encoders' order, plain integers): a failover reads tens of
/// thousands of state znodes and each topic's znode, and a general JSON parse
/// into a `Value` tree was most of that work. Anything else (other spacing or
/// key order, escapes, numbers out of range, duplicate partitions) is `None`
/// here, and the caller decodes it through serde_json, so the result never
/// depends on which path ran.
mod fast {
    use super::{BrokerId, LeaderIsr};
    use crate::controller::election::BrokerIds;

    /// A cursor over the bytes.
    struct Cursor<'a> {
        b: &'a [u8],
        at: usize,
    }

    impl Cursor<'_> {
        fn lit(&mut self, s: &str) -> Option<()> {
            let s = s.as_bytes();
            if self.b.get(self.at..self.at + s.len())? == s {
                self.at += s.len();
                Some(())
            } else {
                None
            }
        }

        fn peek(&self) -> Option<u8> {
            self.b.get(self.at).copied()
        }

        /// A JSON integer (`-?(0|[1-9][0-9]*)`) of at most 18 digits.
        fn int(&mut self) -> Option<i64> {
            let negative = self.peek() == Some(b'-');
            if negative {
                self.at += 1;
            }
            let n = self.digits(18)? as i64;
            // serde_json reads `-0` as a float: left to it.
            if negative && n == 0 {
                return None;
            }
            Some(if negative { -n } else { n })
        }

        /// The digits of a JSON integer without its sign (`0|[1-9][0-9]*`),
        /// at most `most` of them (at most 19, so that they fit).
        fn digits(&mut self, most: usize) -> Option<u64> {
            let start = self.at;
            let mut n: u64 = 0;
            while let Some(d @ b'0'..=b'9') = self.peek() {
                n = n * 10 + u64::from(d - b'0');
                self.at += 1;
                if self.at - start > most {
                    return None;
                }
            }
            let digits = self.at - start;
            if digits == 0 || (digits > 1 && self.b.get(start) == Some(&b'0')) {
                return None;
            }
            Some(n)
        }

        /// One byte, `b`.
        fn byte(&mut self, b: u8) -> Option<()> {
            if self.peek()? == b {
                self.at += 1;
                Some(())
            } else {
                None
            }
        }

        /// A JSON integer in `u32`'s range: `Some` exactly where
        /// `u32::try_from(self.int()?)` is (no sign, no leading zero,
        /// at most 10 digits), read without the sign's and the 18 digits'
        /// checks.
        fn uint(&mut self) -> Option<u32> {
            u32::try_from(self.digits(10)?).ok()
        }

        /// A broker id: an integer in `u32`'s range.
        fn id(&mut self) -> Option<BrokerId> {
            self.uint().map(BrokerId)
        }

        /// `[id,id,…]`, each id added to `out` by `push`.
        fn ids_into<T>(&mut self, mut out: T, push: fn(&mut T, BrokerId)) -> Option<T> {
            self.byte(b'[')?;
            if self.peek() == Some(b']') {
                self.at += 1;
                return Some(out);
            }
            loop {
                push(&mut out, self.id()?);
                match self.peek()? {
                    b',' => self.at += 1,
                    b']' => {
                        self.at += 1;
                        return Some(out);
                    }
                    _ => return None,
                }
            }
        }

        fn done(&self) -> bool {
            self.at == self.b.len()
        }
    }

    /// `{"controller_epoch":…,"leader":…,"version":1,"leader_epoch":…,"isr":[…]}`;
    /// `Some(result)` is what the general decoder returns for these bytes.
    pub(super) fn partition_state(data: &str, zk_version: i32) -> Option<Option<LeaderIsr>> {
        let (controller_epoch, leader, leader_epoch, isr) = partition_state_numbers(data)?;
        Some((|| {
            Some(LeaderIsr {
                leader: u32::try_from(leader).ok().map(BrokerId),
                leader_epoch: i32::try_from(leader_epoch).ok()?,
                isr: isr.into(),
                zk_version,
                controller_epoch: i32::try_from(controller_epoch).ok()?,
            })
        })())
    }

    /// The integers of `partition_state`'s text, as written.
    pub(super) fn partition_state_numbers(data: &str) -> Option<(i64, i64, i64, BrokerIds)> {
        let mut c = Cursor {
            b: data.as_bytes(),
            at: 0,
        };
        c.lit(r#"{"controller_epoch":"#)?;
        let controller_epoch = c.int()?;
        c.lit(r#","leader":"#)?;
        let leader = c.int()?;
        c.lit(r#","version":1,"leader_epoch":"#)?;
        let leader_epoch = c.int()?;
        c.lit(r#","isr":"#)?;
        let isr = c.ids_into(BrokerIds::new(), BrokerIds::push)?;
        c.lit("}")?;
        if !c.done() {
            return None;
        }
        Some((controller_epoch, leader, leader_epoch, isr))
    }

    /// `{"version":1,"brokerid":…,"timestamp":"…"}` with the timestamp in
    /// plain digits (what `controller_znode_json` writes); `Some(result)` is
    /// what the general decoder returns for these bytes.
    pub(super) fn controller_id(data: &str) -> Option<Option<BrokerId>> {
        let mut c = Cursor {
            b: data.as_bytes(),
            at: 0,
        };
        c.lit(r#"{"version":1,"brokerid":"#)?;
        let id = c.int()?;
        c.lit(r#","timestamp":""#)?;
        while let Some(b'0'..=b'9') = c.peek() {
            c.at += 1;
        }
        c.lit(r#""}"#)?;
        if !c.done() {
            return None;
        }
        Some(u32::try_from(id).ok().map(BrokerId))
    }

    /// `{"version":N,"partitions":{"0":[…],…}}`, with or without
    /// `,"adding_replicas":{…},"removing_replicas":{…}` after the partitions;
    /// partition numbers written plainly (no leading zeros), each once.
    /// Partitions in increasing order only (as Kafka and the simulator
    /// write them); any other order is left to the general decoder.
    pub(super) fn topic_assignment(data: &str) -> Option<Vec<(u32, BrokerIds)>> {
        let mut c = Cursor {
            b: data.as_bytes(),
            at: 0,
        };
        c.lit(r#"{"version":"#)?;
        c.int()?;
        c.lit(r#","partitions":{"#)?;
        let mut out: Vec<(u32, BrokerIds)> = Vec::new();
        if c.peek() == Some(b'}') {
            c.at += 1;
        } else {
            loop {
                c.byte(b'"')?;
                let p = c.uint()?;
                c.byte(b'"')?;
                c.byte(b':')?;
                if out.last().is_some_and(|(last, _)| *last >= p) {
                    return None;
                }
                out.push((p, c.ids_into(BrokerIds::new(), BrokerIds::push)?));
                match c.peek()? {
                    b',' => c.at += 1,
                    b'}' => {
                        c.at += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        // The rest must be a well-formed end: the reassignment maps (read
        // by `decode_reassigning`) are skipped over only when they are empty.
        if c.lit(r#","adding_replicas":{},"removing_replicas":{}"#)
            .is_none()
            && c.peek() != Some(b'}')
        {
            return None;
        }
        c.lit("}")?;
        if !c.done() {
            return None;
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_znodes_and_their_paths_are_the_bytes_format_wrote() {
        // Kafka: TopicPartitionStateZNode.encode (Jackson's key order) and
        // TopicPartitionStateZNode.path; written by hand now, compared with
        // the `format!` they replace over edge values.
        let ints = [
            0i64,
            1,
            9,
            10,
            99,
            100,
            -1,
            -2,
            -10,
            i64::from(i32::MAX),
            i64::from(i32::MIN),
            i64::from(u32::MAX),
            i64::MAX,
            i64::MIN,
        ];
        for v in ints {
            let mut s = String::from("x");
            push_int(&mut s, v);
            assert_eq!(s, format!("x{v}"));
        }
        let isrs: [&[u32]; 4] = [
            &[],
            &[0],
            &[3, 10, 4_294_967_295],
            &[1, 2, 3, 4, 5, 6, 7, 8],
        ];
        for (n, isr) in isrs.iter().enumerate() {
            for (leader, epoch) in [(None, 0), (Some(0), i32::MAX), (Some(u32::MAX), i32::MIN)] {
                let l = LeaderIsr {
                    leader: leader.map(BrokerId),
                    leader_epoch: epoch,
                    isr: isr.iter().copied().map(BrokerId).collect(),
                    zk_version: 1,
                    controller_epoch: -(n as i32),
                };
                let ids: Vec<String> = isr.iter().map(|b| b.to_string()).collect();
                let old = format!(
                    r#"{{"controller_epoch":{},"leader":{},"version":1,"leader_epoch":{},"isr":[{}]}}"#,
                    l.controller_epoch,
                    leader.map_or(-1, i64::from),
                    l.leader_epoch,
                    ids.join(",")
                );
                assert_eq!(encode_partition_state(&l), old);
            }
        }
        for (topic, p) in [("t", 0u32), ("orders.v2_x-y", 17), ("页", u32::MAX)] {
            let tp = TopicPartition::new(topic, p);
            assert_eq!(
                crate::zk_client::paths::partition_state(&tp),
                format!("/brokers/topics/{topic}/partitions/{p}/state")
            );
            assert_eq!(
                crate::zk_client::paths::partitions(topic),
                format!("/brokers/topics/{topic}/partitions")
            );
        }
    }

    #[test]
    fn partition_state_round_trips_with_no_leader_as_minus_one() {
        // Kafka: TopicPartitionStateZNode — leader −1 means no leader.
        let l = LeaderIsr {
            leader: None,
            leader_epoch: 4,
            isr: vec![BrokerId(2)].into(),
            zk_version: 7,
            controller_epoch: 3,
        };
        let json = encode_partition_state(&l);
        assert_eq!(
            json,
            r#"{"controller_epoch":3,"leader":-1,"version":1,"leader_epoch":4,"isr":[2]}"#
        );
        assert_eq!(decode_partition_state(&json, 7), Some(l));
        assert_eq!(decode_partition_state("{}", 0), None);
    }

    #[test]
    fn topic_assignment_decodes_in_partition_order() {
        let a =
            decode_topic_assignment(r#"{"version":2,"partitions":{"10":[1],"2":[2,0]}}"#).unwrap();
        assert_eq!(
            a,
            vec![(2, vec![BrokerId(2), BrokerId(0)]), (10, vec![BrokerId(1)])]
        );
        assert_eq!(decode_topic_assignment("[]"), None);
    }

    fn tp(t: &str, p: u32) -> TopicPartition {
        TopicPartition::new(t, p)
    }

    #[test]
    fn isr_change_notification_has_kafka_2_4s_bytes() {
        // Kafka: IsrChangeNotificationSequenceZNode.encode (KafkaZkClientTest.testPropagateIsrChanges).
        assert_eq!(
            encode_isr_change_notification(&[tp("topic-a", 0), tp("topic-b", 0)]),
            r#"{"version":1,"partitions":[{"topic":"topic-a","partition":0},{"topic":"topic-b","partition":0}]}"#
        );
    }

    #[test]
    fn reassign_partitions_has_kafka_2_4s_bytes() {
        // Kafka: ReassignPartitionsZNode.encode (ReassignPartitionsZNodeTest).
        assert_eq!(
            encode_reassign_partitions(&[(tp("foo", 0), vec![BrokerId(1), BrokerId(2)])]),
            r#"{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[1,2]}]}"#
        );
    }

    #[test]
    fn preferred_replica_election_has_kafka_2_4s_bytes() {
        // Kafka: PreferredReplicaElectionZNode.encode.
        assert_eq!(
            encode_preferred_replica_election(&[tp("t", 1)]),
            r#"{"version":1,"partitions":[{"topic":"t","partition":1}]}"#
        );
    }

    #[test]
    fn config_change_notification_has_kafka_2_4s_bytes() {
        // Kafka: ConfigEntityChangeNotificationSequenceZNode.encode, as
        // AdminZkClient.changeTopicConfig writes it.
        assert_eq!(
            encode_config_change_notification("topics/t"),
            r#"{"version":2,"entity_path":"topics/t"}"#
        );
    }

    #[test]
    fn partition_lists_decode_what_they_encode() {
        let entries = vec![(tp("a\"b", 3), vec![BrokerId(2), BrokerId(0)])];
        let json = encode_reassign_partitions(&entries);
        assert_eq!(decode_reassign_partitions(&json), Some(entries));
        let tps = vec![tp("x", 0), tp("y", 7)];
        assert_eq!(
            decode_partition_list(&encode_isr_change_notification(&tps)),
            Some(tps)
        );
        assert_eq!(
            decode_partition_list(r#"{"partitions":[{"topic":1}]}"#),
            None
        );
    }

    /// The partition list read as JSON values (what `decode_partition_list`
    /// did before it read them without building them).
    fn partition_list_by_values(data: &str) -> Option<Vec<TopicPartition>> {
        let v: Value = serde_json::from_str(data).ok()?;
        v.get("partitions")?
            .as_array()?
            .iter()
            .map(|p| {
                let topic = p.get("topic")?.as_str()?;
                let partition = u32::try_from(p.get("partition")?.as_u64()?).ok()?;
                Some(TopicPartition::new(topic, partition))
            })
            .collect()
    }

    /// Kafka: IsrChangeNotificationSequenceZNode.decode and
    /// PreferredReplicaElectionZNode.decode read the same `partitions`
    /// list; the simulator's reader answers as reading JSON values does,
    /// on what the encoders write, on every near miss of it (repeated
    /// keys, wrong types, numbers out of range, nesting, bad JSON), and on
    /// random mutations of both.
    #[test]
    fn partition_lists_read_as_json_values_read_them() {
        let good = encode_isr_change_notification(&[tp("x", 0), tp("x", 1), tp("y\"\u{e9}", 7)]);
        let mut inputs: Vec<String> = vec![
            good.clone(),
            r#"{"partitions":[]}"#.into(),
            r#"{"version":1,"partitions":[{"topic":"a","partition":4294967295}]}"#.into(),
            r#"{"partitions":[{"topic":"a","partition":4294967296}]}"#.into(),
            r#"{"partitions":[{"topic":"a","partition":-0}]}"#.into(),
            r#"{"partitions":[{"topic":"a","partition":-1}]}"#.into(),
            r#"{"partitions":[{"topic":"a","partition":1.0}]}"#.into(),
            r#"{"partitions":[{"topic":"a","partition":1e2}]}"#.into(),
            r#"{"partitions":[{"topic":"a","partition":"1"}]}"#.into(),
            r#"{"partitions":[{"topic":"a","topic":"b","partition":1}]}"#.into(),
            r#"{"partitions":[{"topic":3,"topic":"b","partition":1}]}"#.into(),
            r#"{"partitions":[{"topic":"b","topic":3,"partition":1}]}"#.into(),
            r#"{"partitions":[{"topic":"a","partition":1,"partition":2}]}"#.into(),
            r#"{"partitions":[{"topic":"a","partition":1,"x":{"y":[1,{"z":null}]}}]}"#.into(),
            r#"{"partitions":[{"partition":1}]}"#.into(),
            r#"{"partitions":[{"topic":"a"}]}"#.into(),
            r#"{"partitions":[["topic","a"]]}"#.into(),
            r#"{"partitions":[null]}"#.into(),
            r#"{"partitions":{"topic":"a","partition":1}}"#.into(),
            r#"{"partitions":7,"partitions":[{"topic":"a","partition":1}]}"#.into(),
            r#"{"partitions":[{"topic":"a","partition":1}],"partitions":7}"#.into(),
            r#"{"partitions":[{"topic":"a","partition":1}]} x"#.into(),
            r#"[{"partitions":[]}]"#.into(),
            r#""partitions""#.into(),
            "null".into(),
            "".into(),
            format!("{}{}", "[".repeat(200), "]".repeat(200)),
            format!(
                r#"{{"partitions":[{{"topic":"a","partition":1,"x":{}1{}}}]}}"#,
                "[".repeat(130),
                "]".repeat(130)
            ),
        ];
        // Random mutations: a character dropped, doubled or replaced.
        let mut rng = crate::rng::Rng::new(41);
        for _ in 0..3_000 {
            let base = inputs[rng.below(inputs.len() as u64) as usize].clone();
            let mut chars: Vec<char> = base.chars().collect();
            if chars.is_empty() {
                continue;
            }
            let at = rng.below(chars.len() as u64) as usize;
            let pool = [
                '"', ',', ':', '{', '}', '[', ']', '1', '-', 'a', ' ', '.', 'e',
            ];
            match rng.below(3) {
                0 => {
                    chars.remove(at);
                }
                1 => chars.insert(at, chars[at]),
                _ => chars[at] = pool[rng.below(pool.len() as u64) as usize],
            }
            inputs.push(chars.into_iter().collect());
        }
        let (mut read, mut refused) = (0, 0);
        for i in &inputs {
            let want = partition_list_by_values(i);
            read += usize::from(want.as_ref().is_some_and(|l| !l.is_empty()));
            refused += usize::from(want.is_none());
            assert_eq!(decode_partition_list(i), want, "{i}");
        }
        assert!(
            read > 20 && refused > 1_000,
            "{read} lists, {refused} refused"
        );
    }

    /// Inputs for the decoders: what the encoders write, and near misses of it.
    fn decoder_inputs() -> Vec<String> {
        let mut out = vec![
            encode_partition_state(&LeaderIsr {
                leader: Some(BrokerId(3)),
                leader_epoch: 12,
                isr: vec![BrokerId(3), BrokerId(1), BrokerId(2)].into(),
                zk_version: 0,
                controller_epoch: 2,
            }),
            encode_partition_state(&LeaderIsr {
                leader: None,
                leader_epoch: 0,
                isr: crate::broker::ReplicaIds::new(),
                zk_version: 0,
                controller_epoch: 1,
            }),
            r#"{"controller_epoch":1,"leader":4294967296,"version":1,"leader_epoch":0,"isr":[1]}"#.into(),
            r#"{"controller_epoch":1,"leader":2,"version":1,"leader_epoch":2147483648,"isr":[1]}"#.into(),
            r#"{"controller_epoch":1,"leader":2,"version":1,"leader_epoch":0,"isr":[-1]}"#.into(),
            r#"{"controller_epoch":1,"leader":2,"version":1,"leader_epoch":0,"isr":[4294967296]}"#.into(),
            r#"{"controller_epoch":1,"leader":02,"version":1,"leader_epoch":0,"isr":[1]}"#.into(),
            r#"{"controller_epoch":1,"leader":2.0,"version":1,"leader_epoch":0,"isr":[1]}"#.into(),
            r#"{"controller_epoch":1, "leader":2,"version":1,"leader_epoch":0,"isr":[1]}"#.into(),
            r#"{"leader":2,"controller_epoch":1,"version":1,"leader_epoch":0,"isr":[1,2]}"#.into(),
            r#"{"controller_epoch":1,"leader":2,"version":1,"leader_epoch":0,"isr":[1,2],"leader":3}"#.into(),
            r#"{"controller_epoch":1,"leader":2,"version":1,"leader_epoch":0,"isr":[1,]}"#.into(),
            r#"{"controller_epoch":1,"leader":-,"version":1,"leader_epoch":0,"isr":[1]}"#.into(),
            r#"{"controller_epoch":1,"leader":1234567890123456789012,"version":1,"leader_epoch":0,"isr":[1]}"#.into(),
            topic_znode_json(&[vec![BrokerId(1), BrokerId(2)], vec![BrokerId(2), BrokerId(0)]]),
            topic_znode_json(&[]),
            topic_znode_json_full(
                &BTreeMap::from([(0, vec![BrokerId(1)]), (1, vec![BrokerId(2), BrokerId(3)])]),
                &BTreeMap::from([(
                    1,
                    Reassignment {
                        adding: vec![BrokerId(3)],
                        removing: vec![BrokerId(4)],
                    },
                )]),
            ),
            r#"{"version":1,"partitions":{"1":[1],"0":[2]}}"#.into(),
            r#"{"version":1,"partitions":{"1":[1],"01":[2]}}"#.into(),
            r#"{"version":1,"partitions":{"1":[1],"1":[2]}}"#.into(),
            r#"{"version":1,"partitions":{"+1":[1]}}"#.into(),
            r#"{"version":1,"partitions":{"-1":[1]}}"#.into(),
            r#"{"version":1,"partitions":{"4294967296":[1]}}"#.into(),
            r#"{"version":1,"partitions":{"4294967295":[4294967295]}}"#.into(),
            r#"{"version":1,"partitions":{"12345678901":[1]}}"#.into(),
            r#"{"version":1,"partitions":{"0":[-0]}}"#.into(),
            r#"{"version":1,"partitions":{"0":[00]}}"#.into(),
            r#"{"version":1,"partitions":{"0":[0,01234567890]}}"#.into(),
            r#"{"version":1,"partitions":{"0":[1],"1":[]}}"#.into(),
            r#"{"version":1,"partitions":{"0":[1]"#.into(),
            r#"{"version":1,"partitions":{"0":[1]},"partitions":{"1":[2]}}"#.into(),
            r#"{"version":2,"partitions":{"0":[1]},"adding_replicas":{},"removing_replicas":{}}x"#.into(),
            r#"{"version":2,"partitions":{"0":[1]},"adding_replicas":{"0":[2]},"removing_replicas":{}}"#.into(),
            r#"{"adding_replicas":{"0":[2]},"version":2,"partitions":{"0":[1]},"adding_replicas":{},"removing_replicas":{}}"#.into(),
            r#"{"a":"\\","adding_replicas":{},"removing_replicas":{}}"#.into(),
            r#"{"a":"x,\"adding_replicas\":{},\"removing_replicas\":{}}"#.into(),
            "{}".into(),
            "[]".into(),
            String::new(),
        ];
        out.extend([
            controller_znode_json(BrokerId(7), 0),
            controller_znode_json(BrokerId(0), 1_700_000_000_123),
            r#"{"version":1,"brokerid":-1,"timestamp":"5"}"#.into(),
            r#"{"version":1,"brokerid":-0,"timestamp":"5"}"#.into(),
            r#"{"controller_epoch":1,"leader":-0,"version":1,"leader_epoch":0,"isr":[1]}"#.into(),
            r#"{"controller_epoch":-0,"leader":1,"version":1,"leader_epoch":0,"isr":[1]}"#.into(),
            r#"{"version":1,"partitions":{"0":[-0]}}"#.into(),
            r#"{"version":1,"brokerid":4294967296,"timestamp":"5"}"#.into(),
            r#"{"version":1,"brokerid":2,"timestamp":""}"#.into(),
            r#"{"version":1,"brokerid":2,"timestamp":"5","brokerid":3}"#.into(),
            r#"{"version":2,"brokerid":2,"timestamp":"5"}"#.into(),
            r#"{"version":1,"brokerid":2,"timestamp":"5x"}"#.into(),
            r#"{"version":1,"brokerid":2,"timestamp":5}"#.into(),
        ]);
        // Every prefix of three encodings, and each with one byte changed.
        let seeds = [
            out[0].clone(),
            out[14].clone(),
            controller_znode_json(BrokerId(12), 98765),
        ];
        for seed in seeds {
            for n in 0..seed.len() {
                out.push(seed[..n].to_string());
                for b in [b'0', b'9', b'-', b',', b' ', b'}', b']', b'"'] {
                    let mut v = seed.clone().into_bytes();
                    v[n] = b;
                    if let Ok(s) = String::from_utf8(v) {
                        out.push(s);
                    }
                }
            }
        }
        out
    }

    #[test]
    fn the_fast_decoders_agree_with_the_general_ones_on_every_input() {
        // Kafka: TopicPartitionStateZNode.decode and TopicZNode.decode read
        // the JSON Kafka wrote; the fast path must read the same.
        for data in decoder_inputs() {
            assert_eq!(
                decode_partition_state(&data, 5),
                decode_partition_state_json(&data, 5),
                "{data}"
            );
            assert_eq!(
                decode_topic_assignment(&data),
                decode_topic_assignment_json(&data),
                "{data}"
            );
            assert_eq!(
                decode_topic_assignment_ids(&data)
                    .map(|a| a.into_iter().map(|(p, r)| (p, r.to_vec())).collect()),
                decode_topic_assignment_json(&data),
                "{data}"
            );
            let general = || -> Vec<(u32, Reassignment)> {
                let v = format!("{data} ");
                decode_reassigning(&v)
            };
            assert_eq!(decode_reassigning(&data), general(), "{data}");
            assert_eq!(
                parse_controller_id(&data),
                parse_controller_id_json(&data),
                "{data}"
            );
        }
        assert!(fast::controller_id(&controller_znode_json(BrokerId(3), 1234)).is_some());
        assert!(fast::partition_state(&decoder_inputs()[0], 0).is_some());
        assert!(fast::topic_assignment(&decoder_inputs()[14]).is_some());
        // Out of order, repeated, more replicas than a `BrokerIds` keeps in place.
        for data in [
            r#"{"version":2,"partitions":{"10":[1],"2":[2,0],"3":[]}}"#,
            r#"{"version":2,"partitions":{"1":[1],"1":[2,0]}}"#,
            r#"{"version":2,"partitions":{"0":[1,2,3,4,5,6,7],"1":[7,6,5,4,3,2,1,0]}}"#,
        ] {
            assert!(decode_topic_assignment_json(data).is_some(), "{data}");
            assert_eq!(
                decode_topic_assignment(data),
                decode_topic_assignment_json(data),
                "{data}"
            );
            assert_eq!(
                decode_topic_assignment_ids(data)
                    .map(|a| a.into_iter().map(|(p, r)| (p, r.to_vec())).collect()),
                decode_topic_assignment_json(data),
                "{data}"
            );
        }
    }
}
