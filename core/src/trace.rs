//! The trace: one record per thing that happened, in order. It is a product:
//! the CLI writes it as JSON lines, the UI's timeline reads it, tests diff it.

use crate::fact::Fact;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// One line of the trace. It serialises as
/// `{"time_ms":..,"actor":..,"kind":..,"details":..}`, the details in English;
/// a line read back keeps its text as a [`Fact::Text`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(from = "TraceLine")]
pub struct TraceRecord {
    /// Virtual time in ms.
    pub time_ms: u64,
    /// Who acted: `user`, `zk`, `broker-<id>`, `controller-<id>`.
    pub actor: String,
    /// A stable, machine-readable kind (snake_case).
    pub kind: String,
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
            actor: l.actor,
            kind: l.kind,
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
            actor: actor.into(),
            kind: kind.into(),
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
