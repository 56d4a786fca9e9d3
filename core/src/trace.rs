//! The trace: one record per thing that happened, in order. It is a product:
//! the CLI writes it as JSON lines, the UI's timeline reads it, tests diff it.

use crate::fact::Fact;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};
use std::fmt;

/// How many bytes a [`Label`] keeps inline.
const INLINE: usize = 22;

/// A short text held inline when it fits: a trace record's actor and kind
/// (`controller-12`, `leader_elected`). A large cluster's trace holds a
/// record per partition per state change, and two small heap strings per
/// record cost more than the record's own fields; a label costs nothing
/// beyond its 24 bytes unless it is longer than 22 bytes. It reads as a
/// `&str` ([`Label::as_str`], `Deref`), compares with strings, and prints,
/// debugs and serialises as its text.
#[derive(Clone)]
pub struct Label(Repr);

#[derive(Clone)]
enum Repr {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(Box<str>),
}

impl Label {
    /// The text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            // Only whole UTF-8 strings are ever stored inline.
            Repr::Inline { len, bytes } => {
                std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default()
            }
            Repr::Heap(s) => s,
        }
    }
}

impl From<&str> for Label {
    fn from(s: &str) -> Label {
        if s.len() <= INLINE {
            let mut bytes = [0; INLINE];
            bytes[..s.len()].copy_from_slice(s.as_bytes());
            Label(Repr::Inline {
                len: s.len() as u8,
                bytes,
            })
        } else {
            Label(Repr::Heap(s.into()))
        }
    }
}

impl From<String> for Label {
    fn from(s: String) -> Label {
        if s.len() <= INLINE {
            Label::from(s.as_str())
        } else {
            Label(Repr::Heap(s.into_boxed_str()))
        }
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
        self.as_str() == other.as_str()
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
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(from = "TraceLine")]
pub struct TraceRecord {
    /// Virtual time in ms.
    pub time_ms: u64,
    /// Who acted: `user`, `zk`, `broker-<id>`, `controller-<id>`.
    pub actor: Label,
    /// A stable, machine-readable kind (snake_case).
    pub kind: Label,
    /// What happened, as data: the page renders it in its languages, and
    /// [`TraceRecord::details`] in English when asked (a large cluster's
    /// failover writes a record per partition: rendering each one eagerly
    /// would cost more than simulating it).
    pub fact: Fact,
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
        TraceRecord {
            time_ms: l.time_ms,
            actor: l.actor.into(),
            kind: l.kind.into(),
            fact: Fact::Text(l.details),
        }
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
        TraceRecord {
            time_ms: time.as_ms(),
            actor: Label::from(actor.into()),
            kind: Label::from(kind.into()),
            fact,
        }
    }

    /// The fact in English ([`Fact::english`]), as the trace file writes it.
    pub fn details(&self) -> String {
        self.fact.english()
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
pub fn refusal<'a>(trace: &'a [TraceRecord], at_ms: u64, name: &str) -> Option<&'a TraceRecord> {
    let i = trace
        .iter()
        .rposition(|r| r.time_ms == at_ms && r.actor == "user" && r.kind == name)?;
    trace[i + 1..]
        .iter()
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

    #[test]
    fn a_label_reads_compares_and_serialises_as_its_text_short_or_long() {
        // Not a Kafka behaviour: the trace's actor and kind are stored
        // inline when short, and must read exactly as the strings they were.
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
        assert!(matches!(Label::from(long).0, Repr::Heap(_)));
        assert!(matches!(
            Label::from("partition_state").0,
            Repr::Inline { .. }
        ));
    }
}
