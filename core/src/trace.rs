//! The trace: one record per thing that happened, in order. It is a product:
//! the CLI writes it as JSON lines, the UI's timeline reads it, tests diff it.
//! The simulation and the timeline hold it as [`Records`] (blocks of a fixed
//! size, never one list grown by copying).

use crate::fact::Fact;
use crate::time::SimTime;
use held::Held;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;
use std::sync::Mutex;

mod held;
mod records;

pub use records::{Iter, Records, BLOCK};

/// A short text shared by every record that names it: a trace record's
/// actor and kind (`controller-12`, `leader_elected`). A large cluster's
/// trace holds a record per partition per state change, and a text per
/// record cost more than the record's own fields; a label is the 4-byte
/// number of its text in one table of the labels seen so far (a few hundred
/// at most: the kinds are the simulator's own words, the actors its brokers;
/// each text is stored once and kept for the life of the process). It reads
/// as a `&str` ([`Label::as_str`], `Deref`), compares with strings, and
/// prints, debugs, orders and serialises as its text.
#[derive(Clone)]
pub struct Label(u32);

/// The texts of the labels, each once, by number, and the numbers in the
/// texts' order (a sorted vector, searched by halves: no map type of its
/// own in the page's `.wasm`).
struct Labels {
    texts: Vec<&'static str>,
    sorted: Vec<u32>,
}

static LABELS: Mutex<Labels> = Mutex::new(Labels {
    texts: Vec::new(),
    sorted: Vec::new(),
});

fn labels() -> std::sync::MutexGuard<'static, Labels> {
    // A panic elsewhere cannot leave the table half-written: a text is
    // pushed and numbered in one step below.
    LABELS.lock().unwrap_or_else(|e| e.into_inner())
}

impl Label {
    /// The text.
    pub fn as_str(&self) -> &'static str {
        labels()
            .texts
            .get(self.0 as usize)
            .copied()
            .unwrap_or_default()
    }
}

thread_local! {
    /// The labels of the last few `&'static str` texts named
    /// ([`Label::of_static`]), by address and length: a static text never
    /// moves or changes, so the same address is the same text.
    static STATIC_LABELS: std::cell::RefCell<[(usize, usize, u32); 4]> =
        const { std::cell::RefCell::new([(0, 0, 0); 4]) };
}

impl Label {
    /// The label of a text that lives as long as the program (a kind named
    /// in the code): found by its address among the last few such texts
    /// before the table is read, for the controller's notes (a large
    /// start-up's event names two kinds 400,000 times).
    pub fn of_static(s: &'static str) -> Label {
        let key = (s.as_ptr() as usize, s.len());
        STATIC_LABELS.with(|cache| {
            let mut cache = cache.borrow_mut();
            if let Some(&(_, _, id)) = cache.iter().find(|&&(p, l, _)| (p, l) == key && p != 0) {
                return Label(id);
            }
            let label = Label::from(s);
            cache.rotate_right(1);
            cache[0] = (key.0, key.1, label.0);
            label
        })
    }
}

thread_local! {
    /// The labels of texts made of a prefix named in the code and a number
    /// ([`Label::numbered`]): per prefix (by address and length), the label
    /// of each number below [`NUMBERED_MAX`] once named.
    static NUMBERED_LABELS: std::cell::RefCell<Vec<NumberedLabels>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// One prefix's labels in [`NUMBERED_LABELS`]: its address and length, and
/// by number the label of each number named so far.
type NumberedLabels = (usize, usize, Vec<Option<Label>>);

/// The numbers [`Label::numbered`] keeps the labels of (broker ids are
/// small); a larger one is written out and looked up each time.
const NUMBERED_MAX: u32 = 4096;

impl Label {
    /// The label of `prefix` followed by `n` (`broker-3`): kept per prefix
    /// and number once named, so that the data plane's and the controller's
    /// notes (one per ISR write, one per event) neither write the text out
    /// nor search the table each time.
    pub fn numbered(prefix: &'static str, n: u32) -> Label {
        if n >= NUMBERED_MAX {
            return Label::from(format!("{prefix}{n}"));
        }
        let key = (prefix.as_ptr() as usize, prefix.len());
        NUMBERED_LABELS.with(|cache| {
            let mut cache = cache.borrow_mut();
            let at = match cache.iter().position(|(p, l, _)| (*p, *l) == key) {
                Some(at) => at,
                None => {
                    cache.push((key.0, key.1, Vec::new()));
                    cache.len() - 1
                }
            };
            let Some((_, _, labels)) = cache.get_mut(at) else {
                return Label::from(format!("{prefix}{n}"));
            };
            let i = n as usize;
            if let Some(Some(label)) = labels.get(i) {
                return label.clone();
            }
            let label = Label::from(format!("{prefix}{n}"));
            if labels.len() <= i {
                labels.resize(i + 1, None);
            }
            if let Some(slot) = labels.get_mut(i) {
                *slot = Some(label.clone());
            }
            label
        })
    }
}

impl From<&str> for Label {
    fn from(s: &str) -> Label {
        let mut l = labels();
        let texts = &l.texts;
        let at = l
            .sorted
            .binary_search_by(|&id| texts.get(id as usize).copied().unwrap_or_default().cmp(s));
        match at {
            Ok(i) => Label(l.sorted.get(i).copied().unwrap_or_default()),
            Err(i) => {
                let text: &'static str = Box::leak(Box::from(s));
                let id = u32::try_from(l.texts.len()).unwrap_or(u32::MAX);
                l.texts.push(text);
                l.sorted.insert(i, id);
                Label(id)
            }
        }
    }
}

impl From<String> for Label {
    fn from(s: String) -> Label {
        Label::from(s.as_str())
    }
}

impl From<&String> for Label {
    fn from(s: &String) -> Label {
        Label::from(s.as_str())
    }
}

impl From<Label> for String {
    fn from(l: Label) -> String {
        l.as_str().to_string()
    }
}

impl std::ops::Deref for Label {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Label {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for Label {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq for Label {
    fn eq(&self, other: &Label) -> bool {
        // One number per text.
        self.0 == other.0
    }
}

impl Eq for Label {}

impl PartialOrd for Label {
    fn partial_cmp(&self, other: &Label) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Label {
    fn cmp(&self, other: &Label) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for Label {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.as_str().hash(h);
    }
}

impl PartialEq<str> for Label {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Label {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Label {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<Label> for str {
    fn eq(&self, other: &Label) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Label> for &str {
    fn eq(&self, other: &Label) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Label> for String {
    fn eq(&self, other: &Label) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Serialize for Label {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Label {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Label, D::Error> {
        String::deserialize(d).map(Label::from)
    }
}

/// One line of the trace. It serialises as
/// `{"time_ms":..,"actor":..,"kind":..,"details":..}`, the details in English;
/// a line read back keeps its text as a [`Fact::Text`].
///
/// A record is 64 bytes: its actor and kind are [`Label`]s, and its fact is
/// held compactly ([`TraceRecord::fact`] gives it back): the facts a large
/// cluster writes by the hundred thousand at start-up (a partition's state
/// change, its first leader, an election that found no live replica)
/// inline, every other fact boxed whole.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(from = "TraceLine")]
pub struct TraceRecord {
    /// Virtual time in ms.
    pub time_ms: u64,
    /// Who acted: `user`, `zk`, `broker-<id>`, `controller-<id>`.
    pub actor: Label,
    /// A stable, machine-readable kind (snake_case).
    pub kind: Label,
    /// What happened, as data (read it with [`TraceRecord::fact`]): the page
    /// renders it in its languages, and [`TraceRecord::details`] in English
    /// when asked (a large cluster's failover writes a record per partition:
    /// rendering each one eagerly would cost more than simulating it).
    held: HeldFact,
}

/// A fact held as a trace record holds it: 16 bytes for the facts a large
/// cluster writes by the hundred thousand, the rest boxed whole. For those
/// who keep facts before they become records (a controller's event keeps
/// its trace lines until the event reaches them). Serialises as the fact
/// does (its English sentence) and reads back as [`Fact::Text`].
#[derive(Clone, PartialEq, Eq)]
pub struct HeldFact(Held);

impl HeldFact {
    /// The fact (borrowed when held whole, rebuilt otherwise).
    pub fn fact(&self) -> Cow<'_, Fact> {
        self.0.fact()
    }
}

impl From<Fact> for HeldFact {
    fn from(f: Fact) -> HeldFact {
        HeldFact(Held::from(f))
    }
}

impl fmt::Debug for HeldFact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.fact(), f)
    }
}

impl Serialize for HeldFact {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.fact().serialize(s)
    }
}

impl<'de> Deserialize<'de> for HeldFact {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<HeldFact, D::Error> {
        Fact::deserialize(d).map(HeldFact::from)
    }
}

impl fmt::Debug for TraceRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TraceRecord")
            .field("time_ms", &self.time_ms)
            .field("actor", &self.actor)
            .field("kind", &self.kind)
            .field("fact", &self.fact())
            .finish()
    }
}

/// A trace line as written, borrowed from its record.
#[derive(Serialize)]
struct TraceLineOut<'a> {
    time_ms: u64,
    actor: &'a str,
    kind: &'a str,
    details: String,
}

impl Serialize for TraceRecord {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        TraceLineOut {
            time_ms: self.time_ms,
            actor: &self.actor,
            kind: &self.kind,
            details: self.details(),
        }
        .serialize(s)
    }
}

/// A trace line as written: the text only.
#[derive(Deserialize)]
struct TraceLine {
    time_ms: u64,
    actor: String,
    kind: String,
    details: String,
}

impl From<TraceLine> for TraceRecord {
    fn from(l: TraceLine) -> TraceRecord {
        TraceRecord::at_ms(
            l.time_ms,
            Label::from(l.actor),
            Label::from(l.kind),
            Fact::Text(l.details),
        )
    }
}

impl TraceRecord {
    /// A record at `time`.
    pub fn new(
        time: SimTime,
        actor: impl Into<String>,
        kind: impl Into<String>,
        fact: Fact,
    ) -> TraceRecord {
        TraceRecord::at_ms(
            time.as_ms(),
            Label::from(actor.into()),
            Label::from(kind.into()),
            fact,
        )
    }

    /// A record at `time_ms`.
    pub fn at_ms(time_ms: u64, actor: Label, kind: Label, fact: Fact) -> TraceRecord {
        TraceRecord::held_at_ms(time_ms, actor, kind, HeldFact::from(fact))
    }

    /// A record at `time_ms` of a fact already held.
    pub fn held_at_ms(time_ms: u64, actor: Label, kind: Label, held: HeldFact) -> TraceRecord {
        TraceRecord {
            time_ms,
            actor,
            kind,
            held,
        }
    }

    /// What happened, as data (borrowed when held whole, rebuilt from its
    /// compact form otherwise).
    pub fn fact(&self) -> Cow<'_, Fact> {
        self.held.fact()
    }

    /// The fact in English ([`Fact::english`]), as the trace file writes it.
    pub fn details(&self) -> String {
        self.fact().english()
    }

    /// The record as one JSON line (no newline).
    pub fn to_json_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// How the cluster answered the user's action `name` done at `at_ms`, when
/// it refused or ignored it: the `action_failed`, `action_ignored` or
/// `zk_error` record right after the action's own (the page, the console and
/// `kcsim lesson check` all ask this).
pub fn refusal<'a>(trace: &'a Records, at_ms: u64, name: &str) -> Option<&'a TraceRecord> {
    let i = trace
        .iter()
        .rposition(|r| r.time_ms == at_ms && r.actor == "user" && r.kind == name)?;
    trace
        .iter_from(i + 1)
        .take_while(|r| r.time_ms == at_ms)
        .find(|r| {
            matches!(
                r.kind.as_str(),
                "action_failed" | "action_ignored" | "zk_error"
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::election::{BrokerIds, ElectionWhy};
    use crate::controller::states::{PartitionState, PartitionStateChangeError};
    use crate::ids::{BrokerId, TopicPartition};

    #[test]
    fn a_label_reads_compares_and_serialises_as_its_text_short_or_long() {
        // Not a Kafka behaviour: the trace's actor and kind are numbers in a
        // table of texts, and must read exactly as the strings they were.
        let long = "a_kind_name_longer_than_twenty_two_bytes";
        for text in ["", "zk", "controller-4294967295x", long, "ünïcode-ßtring"] {
            let l = Label::from(text);
            assert_eq!(l.as_str(), text);
            let owned = text.to_string();
            assert_eq!(l, text);
            assert_eq!(text, l);
            assert_eq!(l, owned);
            assert_eq!(owned, l);
            assert_eq!(format!("{l}|{l:?}"), format!("{text}|{text:?}"));
            assert_eq!(
                serde_json::to_string(&l).unwrap(),
                serde_json::to_string(text).unwrap()
            );
            let back: Label = serde_json::from_str(&serde_json::to_string(text).unwrap()).unwrap();
            assert_eq!(back, l);
        }
        let (a, b) = (Label::from("broker-1"), Label::from("broker-2"));
        assert!(a < b);
        assert_eq!(Label::from(long).0, Label::from(long.to_string()).0);
    }

    #[test]
    fn a_numbered_label_is_the_label_of_its_text_however_often_it_is_named() {
        // Not a Kafka behaviour: the data plane names its actor by prefix
        // and broker id on every ISR write, from a kept table; each must be
        // the label of the text written out, for small and large numbers,
        // and for two prefixes that share a number.
        for round in 0..3 {
            for n in [0u32, 1, 7, 63, 64, 4_095, 4_096, 1_000_000, u32::MAX] {
                for prefix in ["broker-", "controller-"] {
                    let l = Label::numbered(prefix, n);
                    let text = format!("{prefix}{n}");
                    assert_eq!(l.as_str(), text, "round {round}");
                    assert_eq!(l.0, Label::from(text.as_str()).0);
                }
            }
        }
        assert_ne!(
            Label::numbered("broker-", 3),
            Label::numbered("controller-", 3)
        );
        assert_ne!(Label::numbered("broker-", 3), Label::numbered("broker-", 4));
    }

    #[test]
    fn a_record_gives_back_exactly_the_fact_it_was_given() {
        // Not a Kafka behaviour: the trace holds its per-partition facts
        // compactly, and must read back each one as it was written.
        let tp = TopicPartition::new("t", 7);
        let ids = |v: &[u32]| -> BrokerIds { v.iter().map(|&b| BrokerId(b)).collect() };
        let whys = vec![
            ElectionWhy::OfflineClean {
                assignment: ids(&[3, 1, 2]),
                isr: ids(&[1]),
            },
            ElectionWhy::OfflineUnclean {
                isr: ids(&[]),
                assignment: ids(&[4, 5, 6, 7, 8, 9, 10, 11]),
                leader: BrokerId(9),
            },
            ElectionWhy::ReassignTarget {
                target: ids(&[1, 2]),
                isr: ids(&[2, 1, 0]),
            },
            ElectionWhy::PreferredChosen {
                leader: BrokerId(u32::MAX),
                assignment: ids(&[u32::MAX]),
                isr: ids(&[u32::MAX, 0]),
            },
            ElectionWhy::ShutdownChosen {
                assignment: ids(&[1, 2, 3]),
                isr: ids(&[1, 2]),
                shutting_down: ids(&[1]),
            },
            ElectionWhy::NoReplicas,
            ElectionWhy::NoLiveReplicaInAr {
                assignment: ids(&[1]),
            },
        ];
        let mut facts: Vec<Fact> = whys
            .into_iter()
            .zip([0, -1, i32::MAX, 5, 6, 7, 8])
            .map(|(why, leader_epoch)| Fact::LeaderElected {
                leader: BrokerId(2),
                tp: tp.clone(),
                why,
                leader_epoch,
            })
            .collect();
        facts.extend([
            Fact::PartitionStateChanged {
                tp: tp.clone(),
                from: PartitionState::NewPartition,
                to: PartitionState::OnlinePartition,
            },
            Fact::PartitionStateChangeFailed(PartitionStateChangeError::NoLiveReplica {
                tp: tp.clone(),
                replicas: vec![BrokerId(4), BrokerId(0)],
            }),
            Fact::PartitionStateChangeFailed(PartitionStateChangeError::NoLiveReplica {
                tp: tp.clone(),
                replicas: vec![],
            }),
            Fact::PartitionStateChangeFailed(PartitionStateChangeError::NoLiveReplica {
                tp: tp.clone(),
                replicas: (0..5).map(BrokerId).collect(),
            }),
            Fact::PartitionStateChangeFailed(PartitionStateChangeError::NoLeaderAndIsr {
                tp: tp.clone(),
            }),
            Fact::LeaderInitialized {
                leader: Some(BrokerId(3)),
                tp: tp.clone(),
                replicas: vec![BrokerId(3), BrokerId(1)],
                isr: vec![BrokerId(3)],
            },
            Fact::LeaderInitialized {
                leader: None,
                tp: tp.clone(),
                replicas: vec![BrokerId(0)],
                isr: vec![],
            },
            Fact::LeaderInitialized {
                leader: Some(BrokerId(2)),
                tp: tp.clone(),
                replicas: vec![BrokerId(1), BrokerId(2), BrokerId(3)],
                isr: vec![BrokerId(3), BrokerId(2)],
            },
            Fact::LeaderInitialized {
                leader: Some(BrokerId(1)),
                tp: tp.clone(),
                replicas: vec![BrokerId(1), BrokerId(2), BrokerId(3)],
                isr: vec![BrokerId(1), BrokerId(3)],
            },
            Fact::LeaderInitialized {
                leader: Some(BrokerId(1)),
                tp: tp.clone(),
                replicas: vec![BrokerId(1), BrokerId(2), BrokerId(3), BrokerId(4)],
                isr: vec![BrokerId(1)],
            },
            Fact::LeaderInitialized {
                leader: Some(BrokerId(1)),
                tp: tp.clone(),
                replicas: vec![BrokerId(1), BrokerId(1)],
                isr: vec![BrokerId(1), BrokerId(1), BrokerId(1)],
            },
            Fact::LeaderUpdatedIsr {
                tp: tp.clone(),
                leader: BrokerId(1),
                old: vec![BrokerId(1)],
                isr: vec![BrokerId(1), BrokerId(0)],
                zk_version: -1,
            },
            Fact::IsrShrunk {
                tp: tp.clone(),
                broker: BrokerId(2),
                leader: None,
                isr: vec![BrokerId(2)],
                leader_epoch: 3,
            },
            Fact::IsrShrunk {
                tp: tp.clone(),
                broker: BrokerId(2),
                leader: Some(BrokerId(0)),
                isr: vec![BrokerId(0), BrokerId(1)],
                leader_epoch: i32::MIN,
            },
            // Numbers at the edges of the inline forms.
            Fact::LeaderInitialized {
                leader: Some(BrokerId(1)),
                tp: TopicPartition::new("t", 65_536),
                replicas: vec![BrokerId(1)],
                isr: vec![BrokerId(1)],
            },
            Fact::LeaderInitialized {
                leader: Some(BrokerId(65_534)),
                tp: TopicPartition::new("u", 65_535),
                replicas: vec![BrokerId(65_534), BrokerId(0)],
                isr: vec![BrokerId(65_534)],
            },
            Fact::LeaderInitialized {
                leader: Some(BrokerId(65_535)),
                tp: tp.clone(),
                replicas: vec![BrokerId(1)],
                isr: vec![],
            },
            Fact::LeaderInitialized {
                leader: None,
                tp: tp.clone(),
                replicas: vec![BrokerId(1), BrokerId(65_536)],
                isr: vec![BrokerId(1)],
            },
            Fact::LeaderInitialized {
                leader: Some(BrokerId(65_535)),
                tp: TopicPartition::new("u", u32::MAX),
                replicas: vec![BrokerId(65_535), BrokerId(7), BrokerId(65_535)],
                isr: vec![BrokerId(7), BrokerId(65_535)],
            },
            Fact::PartitionStateChangeFailed(PartitionStateChangeError::NoLiveReplica {
                tp: TopicPartition::new("u", 65_535),
                replicas: vec![BrokerId(65_534)],
            }),
            Fact::PartitionStateChangeFailed(PartitionStateChangeError::NoLiveReplica {
                tp: TopicPartition::new("u", 65_536),
                replicas: vec![BrokerId(1), BrokerId(65_536)],
            }),
            Fact::PartitionStateChanged {
                tp: TopicPartition::new("u", u32::MAX),
                from: PartitionState::OfflinePartition,
                to: PartitionState::NonExistentPartition,
            },
            Fact::Text("words".into()),
            Fact::Resign {
                broker: BrokerId(1),
            },
        ]);
        let mut compact = 0;
        let mut initialized = Vec::new();
        for fact in facts {
            let r = TraceRecord::new(SimTime(5), "controller-1", "leader_elected", fact.clone());
            assert_eq!(*r.fact(), fact);
            assert_eq!(r.details(), fact.english());
            assert_eq!(r, r.clone());
            let other = TraceRecord::new(
                SimTime(5),
                "controller-1",
                "leader_elected",
                Fact::DeletionDisabled,
            );
            assert_ne!(r, other);
            compact += usize::from(!matches!(r.held.0, Held::Other(_)));
            if let Fact::LeaderInitialized { .. } = fact {
                initialized.push(matches!(r.held.0, Held::Initialized { .. }));
            }
            if let Fact::PartitionStateChangeFailed(PartitionStateChangeError::NoLiveReplica {
                replicas,
                ..
            }) = &fact
            {
                // A few replicas inline, more in a box.
                assert_eq!(
                    matches!(r.held.0, Held::NoLiveReplica { .. }),
                    replicas.len() <= 3 && replicas.iter().all(|b| b.0 < 65_536)
                );
            }
        }
        // The state change, two elections that found no live replica (the
        // third has 5 replicas) and three first leaders (up to three
        // replicas, the ISR among them in their order); the rest, leader
        // elections and ISR changes among them, boxed whole.
        assert_eq!(compact, 11);
        // First leaders inline: up to three replicas, the ISR among them in
        // their order, the leader one of them, the ids below 65,536.
        assert_eq!(
            initialized,
            [true, true, false, true, false, false, true, true, false, false, true]
        );
        if cfg!(target_pointer_width = "64") {
            assert_eq!(std::mem::size_of::<TraceRecord>(), 32);
        }
    }

    #[test]
    fn records_of_many_topics_keep_their_own_topic() {
        // The inline forms name a topic by its label, looked up through a
        // one-topic cache: records of alternating topics, and of a topic
        // whose name was dropped and made again, each give back their own.
        let names = ["a", "b", "a", "orders", "b", "b", "a"];
        let records: Vec<(Fact, TraceRecord)> = names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let fact = Fact::PartitionStateChanged {
                    tp: TopicPartition::new(*name, i as u32),
                    from: PartitionState::NewPartition,
                    to: PartitionState::OnlinePartition,
                };
                let r = TraceRecord::new(SimTime(1), "controller-1", "state", fact.clone());
                (fact, r)
            })
            .collect();
        for (fact, r) in &records {
            assert_eq!(*r.fact(), *fact);
        }
        let same_partition = |name: &str| {
            TraceRecord::new(
                SimTime(1),
                "controller-1",
                "state",
                Fact::PartitionStateChanged {
                    tp: TopicPartition::new(name, 0),
                    from: PartitionState::NewPartition,
                    to: PartitionState::OnlinePartition,
                },
            )
        };
        assert_eq!(same_partition("a"), records[0].1);
        assert_ne!(same_partition("b"), records[0].1);
        let fresh = format!("gone-{}", names.len());
        let first = same_partition(&fresh);
        // Nothing else holds the name now but the label table.
        let again = same_partition(&fresh);
        assert_eq!(first, again);
        assert_eq!(again.fact().into_owned(), first.fact().into_owned());
    }

    #[test]
    fn static_texts_get_the_label_of_their_text_through_the_cache() {
        // More texts than the cache holds, named again in another order;
        // one text at two addresses is one label.
        let texts: [&'static str; 6] = ["k-one", "k-two", "k-three", "k-four", "k-five", "k-six"];
        let first: Vec<Label> = texts.iter().map(|t| Label::of_static(t)).collect();
        for (t, l) in texts.iter().zip(&first).rev() {
            assert_eq!(Label::of_static(t), *l);
            assert_eq!(l.as_str(), *t);
            assert_eq!(*l, Label::from(*t));
        }
        let leaked: &'static str = Box::leak(String::from("k-two").into_boxed_str());
        assert_eq!(Label::of_static(leaked), first[1]);
        assert_ne!(first[0], first[1]);
    }

    #[test]
    fn a_controller_note_serialises_as_before_and_reads_back_as_text() {
        // Kafka: the controller's trace lines of an event in progress travel
        // with its state (a copy of the simulation serialised): the kind as
        // its text, the fact as its English sentence.
        let fact = Fact::LeaderInitialized {
            leader: Some(BrokerId(2)),
            tp: TopicPartition::new("orders", 70_000),
            replicas: vec![BrokerId(2), BrokerId(1)],
            isr: vec![BrokerId(2)],
        };
        let note = crate::controller::Note {
            at_us: 17,
            kind: Label::of_static("leader_elected"),
            fact: fact.clone().into(),
        };
        let json = serde_json::to_string(&note).unwrap_or_default();
        assert_eq!(
            json,
            format!(
                r#"{{"at_us":17,"kind":"leader_elected","details":{}}}"#,
                serde_json::Value::String(fact.english())
            )
        );
        let back: crate::controller::Note =
            serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back.kind, note.kind);
        assert_eq!(*back.fact.fact(), Fact::Text(fact.english()));
        assert_eq!(*note.fact.fact(), fact);
    }
}
