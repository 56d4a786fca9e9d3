//! The trace: one record per thing that happened, in order. It is a product:
//! the CLI writes it as JSON lines, the UI's timeline reads it, tests diff it.

use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// One line of the trace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceRecord {
    /// Virtual time in ms.
    pub time_ms: u64,
    /// Who acted: `user`, `zk`, `broker-<id>`, `controller-<id>`.
    pub actor: String,
    /// A stable, machine-readable kind (snake_case).
    pub kind: String,
    /// A human-readable sentence.
    pub details: String,
}

impl TraceRecord {
    /// A record at `time`.
    pub fn new(
        time: SimTime,
        actor: impl Into<String>,
        kind: impl Into<String>,
        details: impl Into<String>,
    ) -> TraceRecord {
        TraceRecord {
            time_ms: time.as_ms(),
            actor: actor.into(),
            kind: kind.into(),
            details: details.into(),
        }
    }

    /// The record as one JSON line (no newline).
    pub fn to_json_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}
