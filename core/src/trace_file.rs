//! Trace files: the JSON lines `kcsim run --trace` writes and the page
//! downloads and loads back ([`write`], [`parse`]). One serializer for both.
//!
//! The first line is the scenario record (`"kind":"scenario"`, at time 0): the
//! scenario file as a JSON object, the user's actions taken on top of it (each
//! with whether it forked the future) and the time the trace runs to, so the
//! file replays ([`Header::replay`]). Every further line is one
//! [`TraceRecord`]. See `core/docs/cli.md` and `core/docs/diagram.md`.

use crate::action::Action;
use crate::scenario::Scenario;
use crate::time::SimTime;
use crate::timeline::Timeline;
use crate::trace::TraceRecord;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

/// The largest trace file read (bytes).
pub const MAX_TRACE_BYTES: usize = 64 * 1024 * 1024;
/// The most lines a trace file may have.
pub const MAX_TRACE_LINES: usize = 1_000_000;
/// The most user actions a scenario record may carry.
pub const MAX_ACTS: usize = 10_000;

/// The latest time a trace may run to: a day of virtual time plus a minute.
pub const MAX_UNTIL_MS: u64 = crate::scenario::MAX_TIME_MS + 60_000;

/// One action the user took on top of the scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserAct {
    /// When (virtual ms).
    pub at_ms: u64,
    /// Whether it was taken in the past, dropping the later scripted steps.
    pub fork: bool,
    /// What.
    pub action: Action,
}

/// What the first line of a trace file says: how to replay it.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// The scenario file, as a JSON object ([`crate::scenario`]'s format).
    pub scenario: Value,
    /// The user's actions, in the order taken.
    pub acts: Vec<UserAct>,
    /// The time the trace runs to (ms).
    pub until_ms: u64,
}

/// A trace file read back.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceFile {
    /// Its first line.
    pub header: Header,
    /// The records after it (each keeps its text as a `Fact::Text`).
    pub records: Vec<TraceRecord>,
}

/// What is wrong with a trace file: the line (1-based; 0 for the file as a
/// whole) and the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceFileError {
    /// The line, from 1 (0: the whole file).
    pub line: usize,
    /// The field (`time_ms`, `scenario.actions[2].broker`, `(line)`).
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TraceFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.field, self.message)
        } else {
            write!(f, "line {}: {}: {}", self.line, self.field, self.message)
        }
    }
}

impl std::error::Error for TraceFileError {}

fn fail<T>(line: usize, field: &str, message: impl Into<String>) -> Result<T, TraceFileError> {
    Err(TraceFileError {
        line,
        field: field.to_string(),
        message: message.into(),
    })
}

#[derive(Serialize)]
struct HeaderLine<'a> {
    time_ms: u64,
    actor: &'static str,
    kind: &'static str,
    details: String,
    scenario: &'a Value,
    acts: &'a [UserAct],
    until_ms: u64,
}

/// The English `details` of a scenario record.
fn header_details(h: &Header) -> String {
    format!(
        "the scenario and {} action(s) of the user, replayed to {} ms",
        h.acts.len(),
        h.until_ms
    )
}

/// The trace file: the scenario record, then one line per record, each
/// ending in a newline. `kcsim run --trace` and the page both write this.
pub fn write(header: &Header, trace: &crate::trace::Records) -> String {
    let first = HeaderLine {
        time_ms: 0,
        actor: "user",
        kind: "scenario",
        details: header_details(header),
        scenario: &header.scenario,
        acts: &header.acts,
        until_ms: header.until_ms,
    };
    let mut out = serde_json::to_string(&first).unwrap_or_default();
    out.push('\n');
    for r in trace {
        out.push_str(&r.to_json_line());
        out.push('\n');
    }
    out
}

impl Header {
    /// The header of a scenario file's text run to `until_ms`, with no user
    /// action (what `kcsim run` writes).
    pub fn of_file(text: &str, until_ms: u64) -> Result<Header, TraceFileError> {
        let scenario: Value = serde_json::from_str(text)
            .or_else(|e| fail(0, "(scenario)", format!("malformed JSON: {e}")))?;
        Ok(Header {
            scenario,
            acts: Vec::new(),
            until_ms,
        })
    }

    /// The scenario it names, parsed and checked.
    pub fn parse_scenario(&self) -> Result<Scenario, TraceFileError> {
        Scenario::parse(&self.scenario.to_string()).map_err(|e| TraceFileError {
            line: 1,
            field: format!("scenario.{}", e.field),
            message: e.message,
        })
    }

    /// Rebuild the run: the scenario, each user action taken at its time as
    /// it was (forking or not), then on to `until_ms`.
    pub fn replay(&self) -> Result<Timeline, TraceFileError> {
        let scenario = self.parse_scenario()?;
        let mut t = Timeline::new(&scenario);
        for (i, a) in self.acts.iter().enumerate() {
            let at = SimTime(a.at_ms);
            t.seek(at);
            let r = if a.fork {
                t.intervene(at, a.action.clone())
            } else {
                t.insert(at, a.action.clone())
            };
            if let Err(e) = r {
                return fail(1, &format!("acts[{i}]"), e.to_string());
            }
        }
        t.seek(SimTime(self.until_ms));
        Ok(t)
    }
}

fn line_object(line: usize, text: &str) -> Result<Map<String, Value>, TraceFileError> {
    let v: Value = serde_json::from_str(text)
        .or_else(|e| fail(line, "(line)", format!("malformed JSON: {e}")))?;
    match v {
        Value::Object(m) => Ok(m),
        _ => fail(line, "(line)", "expected a JSON object"),
    }
}

fn known(line: usize, m: &Map<String, Value>, allowed: &[&str]) -> Result<(), TraceFileError> {
    for k in m.keys() {
        if !allowed.contains(&k.as_str()) {
            // At most 40 bytes of the name, cut at a character boundary.
            let cut = (0..=k.len().min(40)).rev().find(|i| k.is_char_boundary(*i));
            let k = &k[..cut.unwrap_or(0)];
            return fail(line, k, "unknown field");
        }
    }
    Ok(())
}

fn get_u64(line: usize, m: &Map<String, Value>, key: &str) -> Result<u64, TraceFileError> {
    match m.get(key) {
        None => fail(line, key, "is required"),
        Some(v) => v.as_u64().map_or_else(
            || fail(line, key, "expected a non-negative whole number"),
            Ok,
        ),
    }
}

fn get_str<'a>(
    line: usize,
    m: &'a Map<String, Value>,
    key: &str,
) -> Result<&'a str, TraceFileError> {
    match m.get(key) {
        None => fail(line, key, "is required"),
        Some(v) => v
            .as_str()
            .map_or_else(|| fail(line, key, "expected a string"), Ok),
    }
}

fn parse_header(text: &str) -> Result<Header, TraceFileError> {
    let m = line_object(1, text)?;
    known(
        1,
        &m,
        &[
            "time_ms", "actor", "kind", "details", "scenario", "acts", "until_ms",
        ],
    )?;
    if get_str(1, &m, "kind")? != "scenario" {
        return fail(
            1,
            "kind",
            "the first line must be the scenario record (\"kind\":\"scenario\"): this file cannot be replayed",
        );
    }
    if get_u64(1, &m, "time_ms")? != 0 {
        return fail(1, "time_ms", "the scenario record is at time 0");
    }
    if get_str(1, &m, "actor")? != "user" {
        return fail(1, "actor", "the scenario record's actor is \"user\"");
    }
    get_str(1, &m, "details")?;
    let until_ms = get_u64(1, &m, "until_ms")?;
    if until_ms > MAX_UNTIL_MS {
        return fail(1, "until_ms", format!("at most {MAX_UNTIL_MS} ms"));
    }
    let scenario = match m.get("scenario") {
        None => return fail(1, "scenario", "is required"),
        Some(v @ Value::Object(_)) => v.clone(),
        Some(_) => return fail(1, "scenario", "expected a scenario object"),
    };
    let acts = match m.get("acts") {
        None => return fail(1, "acts", "is required"),
        Some(Value::Array(list)) => {
            if list.len() > MAX_ACTS {
                return fail(1, "acts", format!("at most {MAX_ACTS} actions"));
            }
            let mut acts = Vec::with_capacity(list.len());
            let mut budget = crate::scenario::Budget::default();
            for (i, a) in list.iter().enumerate() {
                let act: UserAct = serde_json::from_value(a.clone())
                    .or_else(|e| fail(1, &format!("acts[{i}]"), e.to_string()))?;
                if act.at_ms > until_ms {
                    return fail(1, &format!("acts[{i}].at_ms"), "after until_ms");
                }
                crate::scenario::check_action(&act.action)
                    .and_then(|()| budget.add_action(&act.action))
                    .or_else(|m| fail(1, &format!("acts[{i}]"), m))?;
                acts.push(act);
            }
            acts
        }
        Some(_) => return fail(1, "acts", "expected an array"),
    };
    let header = Header {
        scenario,
        acts,
        until_ms,
    };
    header.parse_scenario()?;
    Ok(header)
}

fn parse_record(line: usize, text: &str, after_ms: u64) -> Result<TraceRecord, TraceFileError> {
    let m = line_object(line, text)?;
    known(line, &m, &["time_ms", "actor", "kind", "details"])?;
    let time_ms = get_u64(line, &m, "time_ms")?;
    if time_ms < after_ms {
        return fail(
            line,
            "time_ms",
            format!("{time_ms} is before the line above ({after_ms} ms)"),
        );
    }
    let actor = get_str(line, &m, "actor")?.into();
    let kind = get_str(line, &m, "kind")?.into();
    let details = get_str(line, &m, "details")?.to_string();
    Ok(TraceRecord::at_ms(
        time_ms,
        actor,
        kind,
        crate::fact::Fact::Text(details),
    ))
}

/// Read a trace file, strictly: the scenario record first, then records in
/// time order, every field known and of its type, within the size limits.
pub fn parse(text: &str) -> Result<TraceFile, TraceFileError> {
    if text.len() > MAX_TRACE_BYTES {
        return fail(
            0,
            "(file)",
            format!(
                "{} bytes; a trace file is at most {MAX_TRACE_BYTES} bytes",
                text.len()
            ),
        );
    }
    let mut lines = text.lines();
    let Some(first) = lines.next() else {
        return fail(0, "(file)", "empty: no scenario record");
    };
    let header = parse_header(first)?;
    let mut records = Vec::new();
    let mut last_ms = 0;
    for (i, l) in lines.enumerate() {
        let line = i + 2;
        if line > MAX_TRACE_LINES {
            return fail(0, "(file)", format!("more than {MAX_TRACE_LINES} lines"));
        }
        let r = parse_record(line, l, last_ms)?;
        if r.time_ms > header.until_ms {
            return fail(line, "time_ms", "after the scenario record's until_ms");
        }
        last_ms = r.time_ms;
        records.push(r);
    }
    Ok(TraceFile { header, records })
}

/// The first line (1-based) where two trace files differ, or `None` when
/// they are byte for byte the same.
pub fn first_difference(a: &str, b: &str) -> Option<usize> {
    if a == b {
        return None;
    }
    let mut la = a.split('\n');
    let mut lb = b.split('\n');
    let mut n = 1;
    loop {
        match (la.next(), lb.next()) {
            (Some(x), Some(y)) if x == y => n += 1,
            _ => return Some(n),
        }
    }
}

/// A trace file read and replayed: the run rebuilt, and the first line where
/// its own trace differs from the file (`None`: identical).
#[derive(Debug)]
pub struct Replayed {
    /// The file, read.
    pub file: TraceFile,
    /// The run rebuilt from its scenario record.
    pub timeline: Timeline,
    /// The first line that differs, if any.
    pub differs_at: Option<usize>,
}

/// Read a trace file, rebuild its run, and compare the rebuilt trace with it.
pub fn replay(text: &str) -> Result<Replayed, TraceFileError> {
    let file = parse(text)?;
    let timeline = file.header.replay()?;
    let again = write(&file.header, timeline.trace());
    let differs_at = first_difference(text, &again);
    Ok(Replayed {
        file,
        timeline,
        differs_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::BrokerId;
    use crate::scenario::builtin;

    fn header(name: &str, acts: Vec<UserAct>, until_ms: u64) -> Header {
        let text = builtin::file(name).expect("a built-in file");
        let mut h = Header::of_file(text, until_ms).expect("JSON");
        h.acts = acts;
        h
    }

    fn written(h: &Header) -> String {
        let t = h.replay().expect("replays");
        write(h, t.trace())
    }

    #[test]
    fn export_reload_reexport_is_byte_identical() {
        // Kafka: the controller is deterministic given its inputs (here: the
        // seed, the scenario and the user's actions, a fork among them).
        let acts = vec![
            UserAct {
                at_ms: 12_000,
                fork: false,
                action: Action::KillBroker {
                    broker: BrokerId(1),
                },
            },
            UserAct {
                at_ms: 9_000,
                fork: true,
                action: Action::ShutdownBroker {
                    broker: BrokerId(2),
                },
            },
        ];
        let h = header("controller-failover", acts, 40_000);
        let text = written(&h);
        assert!(text.starts_with("{\"time_ms\":0,\"actor\":\"user\",\"kind\":\"scenario\","));
        let r = replay(&text).expect("reads back");
        assert_eq!(r.differs_at, None);
        assert_eq!(r.file.header, h);
        assert_eq!(r.file.records.len(), text.lines().count() - 1);
        let again = write(&r.file.header, r.timeline.trace());
        assert_eq!(again, text);
    }

    #[test]
    fn an_edited_trace_loads_and_names_the_first_line_that_differs() {
        // Kafka: the same inputs give the same run; a hand-edited record does not.
        let text = written(&header("zombie-controller", vec![], 25_000));
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        lines[7] = lines[7].replace("\"details\":\"", "\"details\":\"edited ");
        let edited = lines.join("\n") + "\n";
        let r = replay(&edited).expect("still loads");
        assert_eq!(r.differs_at, Some(8));
        assert_eq!(first_difference("a\nb\n", "a\nb\n"), None);
        assert_eq!(first_difference("a\nb\n", "a\nb\nc\n"), Some(3));
    }

    fn err(text: &str) -> String {
        parse(text).map(|_| ()).expect_err("refused").to_string()
    }

    #[test]
    fn malformed_files_are_refused_naming_line_and_field() {
        let good = written(&header("zombie-controller", vec![], 8_000));
        let first = good.lines().next().expect("a header");
        assert_eq!(err(""), "(file): empty: no scenario record");
        assert!(err("not json\n").starts_with("line 1: (line): malformed JSON"));
        assert_eq!(
            err("{\"time_ms\":0,\"actor\":\"zk\",\"kind\":\"elected\",\"details\":\"x\"}\n"),
            "line 1: kind: the first line must be the scenario record (\"kind\":\"scenario\"): this file cannot be replayed"
        );
        assert_eq!(
            err(&first.replace("\"until_ms\":8000", "\"until_ms\":\"soon\"")),
            "line 1: until_ms: expected a non-negative whole number"
        );
        assert!(
            err(&first.replace("\"brokers\":[0,1,2]", "\"brokers\":[0,1,2],\"colour\":1"))
                .starts_with("line 1: scenario.colour: unknown field")
        );
        assert!(
            err(&first.replace("\"acts\":[]", "\"acts\":[{\"at_ms\":1}]"))
                .starts_with("line 1: acts[0]: missing field")
        );
        let mut lines: Vec<String> = good.lines().map(str::to_string).collect();
        let t: u64 = serde_json::from_str::<Value>(&lines[2]).expect("JSON")["time_ms"]
            .as_u64()
            .expect("a time");
        let at = |t: u64, rest: &str| {
            format!("{{\"time_ms\":{t},\"actor\":\"zk\",\"kind\":\"x\"{rest}}}")
        };
        lines.insert(3, at(t, ""));
        assert_eq!(err(&lines.join("\n")), "line 4: details: is required");
        lines[3] = at(t, ",\"details\":\"\",\"extra\":2");
        assert_eq!(err(&lines.join("\n")), "line 4: extra: unknown field");
        // kcsim: the core never panics on input: an unknown field's name is
        // quoted cut at a character boundary (found by fuzzing).
        lines[3] = at(t, &format!(",\"details\":\"\",\"é{}\":2", "🦀".repeat(20)));
        assert_eq!(
            err(&lines.join("\n")),
            format!("line 4: é{}: unknown field", "🦀".repeat(9))
        );
        lines[3] = at(t.saturating_sub(1), ",\"details\":\"\"");
        assert!(err(&lines.join("\n")).starts_with("line 4: time_ms: ") && t > 0);
        lines[3] = at(9_000, ",\"details\":\"\"");
        assert_eq!(
            err(&lines.join("\n")),
            "line 4: time_ms: after the scenario record's until_ms"
        );
        lines[3] = "[1,2]".to_string();
        assert_eq!(
            err(&lines.join("\n")),
            "line 4: (line): expected a JSON object"
        );
        let huge = " ".repeat(MAX_TRACE_BYTES + 1);
        assert!(err(&huge).starts_with("(file): "));
    }

    #[test]
    fn a_refused_action_is_an_error_of_the_scenario_record() {
        let h = header(
            "zombie-controller",
            vec![UserAct {
                at_ms: 5_000,
                fork: false,
                action: Action::KillBroker {
                    broker: BrokerId(9),
                },
            }],
            8_000,
        );
        let e = h.replay().expect_err("no broker 9");
        assert_eq!(
            e.to_string(),
            "line 1: acts[0]: no broker 9 in this cluster"
        );
    }
}
