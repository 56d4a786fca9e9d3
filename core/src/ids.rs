//! Newtype ids, so a broker id is never confused with a session id.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A broker's `broker.id`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(transparent)]
pub struct BrokerId(pub u32);

impl fmt::Display for BrokerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A ZooKeeper session id, unique for the life of the ensemble.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(transparent)]
pub struct SessionId(pub u64);

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:x}", self.0)
    }
}

/// A topic's name, shared: every copy of one name on a thread points at one
/// string (names are interned, [`Topic::from`]), so a copy costs no
/// allocation and two copies compare equal without reading the bytes.
/// Compares, orders and prints as the name. A thin pointer (8 bytes, the
/// name's string one hop further): every per-partition map is keyed by a
/// [`TopicPartition`], so its size is paid millions of times at Kafka scale.
#[derive(Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct Topic(std::rc::Rc<Box<str>>);

/// The topic names in use on this thread, sorted. A name is dropped from
/// the table once nothing else holds it (checked when the table has doubled
/// since the last sweep), so a long fuzz or soak run does not keep every
/// name it ever made.
struct TopicNames {
    names: Vec<std::rc::Rc<Box<str>>>,
    swept_at: usize,
}

thread_local! {
    static TOPIC_NAMES: std::cell::RefCell<TopicNames> =
        const { std::cell::RefCell::new(TopicNames { names: Vec::new(), swept_at: 0 }) };
}

impl Topic {
    /// The one shared string for `name` on this thread.
    fn intern(name: &str) -> Topic {
        TOPIC_NAMES.with(|t| {
            let mut t = t.borrow_mut();
            match t.names.binary_search_by(|n| (***n).cmp(name)) {
                Ok(i) => Topic(t.names[i].clone()),
                Err(i) => {
                    let rc = std::rc::Rc::new(Box::<str>::from(name));
                    t.names.insert(i, rc.clone());
                    if t.names.len() >= 2 * t.swept_at.max(32) {
                        // The new name is held by `rc` too, so it stays.
                        t.names.retain(|n| std::rc::Rc::strong_count(n) > 1);
                        t.swept_at = t.names.len();
                    }
                    Topic(rc)
                }
            }
        })
    }
}

impl<'de> Deserialize<'de> for Topic {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Topic, D::Error> {
        let name = String::deserialize(d)?;
        Ok(Topic::intern(&name))
    }
}

impl Ord for Topic {
    fn cmp(&self, other: &Topic) -> std::cmp::Ordering {
        // Every copy of one name shares its string (interned): equal
        // without reading it (the maps compare partitions of one topic all
        // day); two strings are two names, ordered by their bytes.
        if std::rc::Rc::ptr_eq(&self.0, &other.0) {
            std::cmp::Ordering::Equal
        } else {
            self.as_str().cmp(other.as_str())
        }
    }
}

impl PartialOrd for Topic {
    fn partial_cmp(&self, other: &Topic) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Topic {
    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0[..]
    }
}

impl fmt::Debug for Topic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Topic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::ops::Deref for Topic {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Topic {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Topic {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Topic {
    fn from(s: &str) -> Topic {
        Topic::intern(s)
    }
}

impl From<&Topic> for Topic {
    fn from(t: &Topic) -> Topic {
        t.clone()
    }
}

impl From<String> for Topic {
    fn from(s: String) -> Topic {
        Topic::intern(&s)
    }
}

impl From<&String> for Topic {
    fn from(s: &String) -> Topic {
        Topic::intern(s)
    }
}

impl From<Topic> for String {
    fn from(t: Topic) -> String {
        t.0.to_string()
    }
}

impl PartialEq<str> for Topic {
    fn eq(&self, other: &str) -> bool {
        **self.0 == *other
    }
}

impl PartialEq<&str> for Topic {
    fn eq(&self, other: &&str) -> bool {
        **self.0 == **other
    }
}

impl PartialEq<String> for Topic {
    fn eq(&self, other: &String) -> bool {
        **self.0 == **other
    }
}

impl PartialEq<&String> for Topic {
    fn eq(&self, other: &&String) -> bool {
        **self.0 == ***other
    }
}

impl PartialEq<Topic> for str {
    fn eq(&self, other: &Topic) -> bool {
        *self == **other.0
    }
}

impl PartialEq<Topic> for &str {
    fn eq(&self, other: &Topic) -> bool {
        **self == **other.0
    }
}

impl PartialEq<Topic> for String {
    fn eq(&self, other: &Topic) -> bool {
        **self == **other.0
    }
}

/// A topic partition, ordered by topic name and then partition number.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TopicPartition {
    /// The topic name.
    pub topic: Topic,
    /// The partition number, from 0.
    pub partition: u32,
}

// The key of every per-partition map: a thin topic pointer and the number,
// two words (16 bytes natively, 8 in WebAssembly), not three as with a
// `Rc<str>` topic.
const _: () = assert!(std::mem::size_of::<TopicPartition>() == 2 * std::mem::size_of::<usize>());

impl TopicPartition {
    /// `topic`-`partition`.
    pub fn new(topic: impl Into<Topic>, partition: u32) -> TopicPartition {
        TopicPartition {
            topic: topic.into(),
            partition,
        }
    }
}

impl fmt::Display for TopicPartition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.topic, self.partition)
    }
}

/// Ids (brokers, partitions, anything displayed) joined by commas without
/// spaces, `1,2,3`: how every id list the simulator prints is spelled, bare
/// (as `kafka-topics.sh --describe` prints `Replicas: 1,2`) or inside brackets.
pub fn comma_list<T: fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    let v: Vec<String> = items.into_iter().map(|i| i.to_string()).collect();
    v.join(",")
}

/// Ids as `[1,2,3]`, as Kafka's log lines print a collection of them.
pub fn ids_text<T: fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    format!("[{}]", comma_list(items))
}

/// The broker ids among a `/brokers/ids` listing (children that are not
/// numbers are skipped), in the order given.
pub fn broker_ids<S: AsRef<str>>(children: impl IntoIterator<Item = S>) -> Vec<BrokerId> {
    children
        .into_iter()
        .filter_map(|c| c.as_ref().parse().ok())
        .map(BrokerId)
        .collect()
}

/// `n` in decimal, written at the end of `buf` (for the hot paths that
/// build many numbers: znode paths, the chart's drawing), without the
/// formatting machinery.
pub fn decimal(mut n: u32, buf: &mut [u8; 10]) -> &str {
    let mut i = buf.len();
    loop {
        i -= 1;
        if let Some(d) = buf.get_mut(i) {
            *d = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 || i == 0 {
            break;
        }
    }
    std::str::from_utf8(buf.get(i..).unwrap_or(&[])).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_lists_print_and_decode_one_way() {
        let v = [BrokerId(1), BrokerId(2), BrokerId(3)];
        assert_eq!(comma_list(v), "1,2,3");
        assert_eq!(ids_text(v), "[1,2,3]");
        assert_eq!(ids_text(Vec::<BrokerId>::new()), "[]");
        assert_eq!(broker_ids(["2", "x", "0"]), vec![BrokerId(2), BrokerId(0)]);
        let mut buf = [0u8; 10];
        for n in [0, 7, 10, 99, 4_096, u32::MAX] {
            assert_eq!(decimal(n, &mut buf), n.to_string());
        }
    }

    #[test]
    fn one_name_is_one_string_whichever_way_it_came_in() {
        let a = Topic::from("orders");
        let b = Topic::from(String::from("orders"));
        let c: Topic = serde_json::from_str("\"orders\"").unwrap();
        assert!(std::rc::Rc::ptr_eq(&a.0, &b.0) && std::rc::Rc::ptr_eq(&a.0, &c.0));
        let other = Topic::from("payments");
        assert!(!std::rc::Rc::ptr_eq(&a.0, &other.0));
        assert_eq!(a.cmp(&other), std::cmp::Ordering::Less);
        assert_eq!(other.cmp(&c), std::cmp::Ordering::Greater);
        // Names nobody holds any more leave the table: make many, drop them.
        let held = TOPIC_NAMES.with(|t| t.borrow().names.len());
        for i in 0..1_000 {
            drop(Topic::from(format!("gone-{i}")));
        }
        let after = TOPIC_NAMES.with(|t| t.borrow().names.len());
        assert!(after < held + 200, "{after} names kept (had {held})");
        assert!(std::rc::Rc::ptr_eq(&a.0, &Topic::from("orders").0));
    }
}
