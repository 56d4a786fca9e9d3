//! Share links: the URL fragment carries the whole moment — the built-in
//! scenario, the controller's ZooKeeper access profile, the user's actions
//! (with whether each forked the future) and the time cursor — so a link
//! replays to exactly what its author saw:
//! `#s=zombie-controller&t=21402&zk=sync&a=<percent-encoded JSON>`.
//! `zk=` is left out for `async`, the default, so links made before it
//! existed still mean what they meant. `lang=zh` carries the page's
//! language when it is 中文 (English, the default, is left out the same way);
//! it is not part of the simulation, and a link's language wins over the
//! browser's remembered choice.
//!
//! The page's way in is decoded and checked here, in the core, as every
//! other way in is (`docs/inputs.md`): the link's length, each key, each
//! action's fields and numbers ([`crate::scenario::check_action`]), the
//! number of actions and what they would create in all
//! ([`crate::scenario::Budget`]). The page maps what reads to its own types
//! (its language, its state) and shows the problems.

use crate::action::Action;
use crate::config::ZkMode;
use crate::scenario::{self, Budget};

/// One action the user took, as the link (and a trace file) records it.
pub use crate::trace_file::UserAct;

/// The longest share-link fragment read, in bytes. Longer, nothing in it is
/// read (browsers themselves keep URLs to about 2 MB).
pub const MAX_LINK_BYTES: usize = 256 * 1024;
/// The most actions a share link may carry; the rest are skipped.
pub const MAX_LINK_ACTS: usize = 1_000;
/// The longest scenario id (`s=`) read, in bytes.
pub const MAX_SCENARIO_ID_BYTES: usize = 64;
/// The latest time a link can name: the timeline runs no further (a day of
/// virtual time, and a minute past it).
pub const LATEST_MS: u64 = scenario::MAX_TIME_MS + 60_000;
/// The page's languages, by the code a link spells them with.
pub const LANGS: [&str; 2] = ["en", "zh"];

/// What a link says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moment {
    /// The built-in scenario id.
    pub scenario: String,
    /// The time cursor.
    pub t_ms: u64,
    /// The controller's ZooKeeper access the cluster started with (`zk=`;
    /// absent means `async`).
    pub zk: ZkMode,
    /// The page's language code (`lang=`, one of [`LANGS`]), if the link
    /// names one.
    pub lang: Option<String>,
    /// The user's actions, in the order taken.
    pub acts: Vec<UserAct>,
}

/// Percent-encode everything but unreserved characters.
pub fn pct_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Undo [`pct_encode`].
pub fn pct_decode(s: &str) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3).ok_or("a % escape is cut short")?;
            out.push(
                u8::from_str_radix(hex, 16).map_err(|_| format!("%{hex} is not a valid escape"))?,
            );
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "the actions are not valid text".to_string())
}

/// The fragment (without `#`) for a moment.
pub fn encode(m: &Moment) -> String {
    let mut out = format!("s={}&t={}", pct_encode(&m.scenario), m.t_ms);
    if m.zk != ZkMode::Async {
        out.push_str("&zk=");
        out.push_str(m.zk.as_str());
    }
    if let Some(lang) = m.lang.as_deref().filter(|l| *l != "en") {
        out.push_str("&lang=");
        out.push_str(&pct_encode(lang));
    }
    if !m.acts.is_empty() {
        let json = serde_json::to_string(&m.acts).unwrap_or_default();
        out.push_str("&a=");
        out.push_str(&pct_encode(&json));
    }
    out
}

/// What could be read from a link, and what could not. Every problem is
/// listed, each saying what the page does instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkRead {
    /// The built-in scenario id (`s=`), if given.
    pub scenario: Option<String>,
    /// The time cursor (`t=`), if given and readable; clamped to
    /// [`LATEST_MS`]. Without it the scenario opens at its start.
    pub t_ms: Option<u64>,
    /// The controller's ZooKeeper access (`async` unless `zk=sync`).
    pub zk: ZkMode,
    /// The page's language code (`lang=`, one of [`LANGS`]), if given.
    pub lang: Option<String>,
    /// The actions that read, each with its index in the link's list.
    pub acts: Vec<(usize, UserAct)>,
    /// What is wrong, in plain words.
    pub problems: Vec<String>,
}

/// Read a fragment (with or without `#`): everything that reads, and every
/// problem with the rest.
pub fn read(fragment: &str) -> LinkRead {
    let fragment = fragment.trim_start_matches('#');
    let mut out = LinkRead {
        scenario: None,
        t_ms: None,
        zk: ZkMode::Async,
        lang: None,
        acts: Vec::new(),
        problems: Vec::new(),
    };
    if fragment.len() > MAX_LINK_BYTES {
        out.problems.push(format!(
            "the link is {} bytes, over the limit of {MAX_LINK_BYTES} bytes (MAX_LINK_BYTES); nothing in it is read",
            fragment.len()
        ));
        return out;
    }
    for part in fragment.split('&').filter(|p| !p.is_empty()) {
        let Some((k, v)) = part.split_once('=') else {
            out.problems
                .push(format!("{:?} is not key=value; ignored", cut(part)));
            continue;
        };
        match k {
            "s" => match pct_decode(v) {
                Ok(id) if id.len() > MAX_SCENARIO_ID_BYTES => out.problems.push(format!(
                    "the scenario (s=) is {} bytes, over the limit of {MAX_SCENARIO_ID_BYTES} bytes (MAX_SCENARIO_ID_BYTES); ignored",
                    id.len()
                )),
                Ok(id) => out.scenario = Some(id),
                Err(e) => out.problems.push(format!("the scenario (s=): {e}")),
            },
            "t" => match v.parse::<u64>() {
                Ok(t) if t > LATEST_MS => {
                    out.problems.push(format!(
                        "t={t} is past the latest time the page runs to ({LATEST_MS} ms); clamped to {LATEST_MS} ms"
                    ));
                    out.t_ms = Some(LATEST_MS);
                }
                Ok(t) => out.t_ms = Some(t),
                Err(_) => out.problems.push(format!(
                    "t={:?} is not a time in ms; the scenario opens at its start",
                    cut(v)
                )),
            },
            "zk" => match pct_decode(v) {
                Ok(mode) => match ZkMode::parse(&mode) {
                    Some(m) => out.zk = m,
                    None => out.problems.push(format!(
                        "zk={:?} is not a ZooKeeper access mode (async or sync); async is used",
                        cut(&mode)
                    )),
                },
                Err(e) => out.problems.push(format!("zk=: {e}; async is used")),
            },
            "lang" => match pct_decode(v).ok().filter(|c| LANGS.contains(&c.as_str())) {
                Some(c) => out.lang = Some(c),
                None => out.problems.push(format!(
                    "lang={:?} is not a language of the page (en or zh); ignored",
                    cut(v)
                )),
            },
            "a" => read_actions(v, &mut out),
            other => out
                .problems
                .push(format!("unknown key {:?}; ignored", cut(other))),
        }
    }
    out
}

/// At most 40 characters of what a problem quotes.
fn cut(s: &str) -> String {
    if s.chars().count() <= 40 {
        s.to_string()
    } else {
        let mut c: String = s.chars().take(40).collect();
        c.push('…');
        c
    }
}

/// The `a=` list: each action that reads is kept; each that does not is a
/// problem naming it.
fn read_actions(v: &str, out: &mut LinkRead) {
    let json = match pct_decode(v) {
        Ok(j) => j,
        Err(e) => {
            return out
                .problems
                .push(format!("the actions (a=): {e}; no action is replayed"))
        }
    };
    let list = match serde_json::from_str::<serde_json::Value>(&json) {
        Ok(serde_json::Value::Array(list)) => list,
        Ok(_) | Err(_) => {
            return out.problems.push(
                "the actions (a=) are not a list of actions; no action is replayed".to_string(),
            )
        }
    };
    let n = list.len();
    if n > MAX_LINK_ACTS {
        out.problems.push(format!(
            "the link has {n} actions, over the limit of {MAX_LINK_ACTS} (MAX_LINK_ACTS); the first {MAX_LINK_ACTS} are read"
        ));
    }
    let mut budget = Budget::default();
    for (i, item) in list.into_iter().take(MAX_LINK_ACTS).enumerate() {
        let read = read_act(item).and_then(|act| {
            budget
                .add_action(&act.action)
                .map_err(|e| format!("is a {} at {} ms: {e}", act.action.name(), act.at_ms))?;
            Ok(act)
        });
        match read {
            Ok(act) => out.acts.push((i, act)),
            Err(e) => out
                .problems
                .push(format!("action {} of {n} {e}; skipped", i + 1)),
        }
    }
}

/// One entry of the `a=` list, with a plain message for what is wrong.
fn read_act(item: serde_json::Value) -> Result<UserAct, String> {
    let serde_json::Value::Object(mut obj) = item else {
        return Err("is not an action (an object with at_ms, fork and action)".to_string());
    };
    let at_ms = obj
        .get("at_ms")
        .and_then(serde_json::Value::as_u64)
        .ok_or("has no time (at_ms, a whole number of ms)")?;
    if at_ms > LATEST_MS {
        return Err(format!(
            "is at {at_ms} ms, past the latest time the page runs to ({LATEST_MS} ms)"
        ));
    }
    let fork = obj
        .get("fork")
        .and_then(serde_json::Value::as_bool)
        .ok_or("does not say whether it was taken in the past (fork, true or false)")?;
    let action = obj
        .remove("action")
        .ok_or("does not say what was done (action)")?;
    let name = action
        .get("action")
        .and_then(serde_json::Value::as_str)
        .map(str::to_string)
        .ok_or("does not name its action (action.action, e.g. kill_broker)")?;
    if !scenario::ACTION_NAMES.contains(&name.as_str()) {
        return Err(format!(
            "names {:?}, which is not an action this page knows",
            cut(&name)
        ));
    }
    let action: Action = serde_json::from_value(action).map_err(|e| {
        let e = e.to_string();
        match e
            .strip_prefix("missing field `")
            .and_then(|f| f.strip_suffix('`'))
        {
            Some(field) => format!("is a {name} at {at_ms} ms without its field {field:?}"),
            None => format!(
                "is a {name} at {at_ms} ms that does not read: {}",
                e.replace('`', "")
            ),
        }
    })?;
    scenario::check_action(&action).map_err(|e| format!("is a {name} at {at_ms} ms: {e}"))?;
    Ok(UserAct {
        at_ms,
        fork,
        action,
    })
}

/// Read a fragment strictly: the moment, or every problem (joined by `; `).
pub fn decode(fragment: &str) -> Result<Moment, String> {
    let r = read(fragment);
    let mut problems = r.problems;
    if r.scenario.is_none() {
        problems.insert(0, "no scenario (s=…)".to_string());
    }
    match (r.scenario, problems.is_empty()) {
        (Some(scenario), true) => Ok(Moment {
            scenario,
            t_ms: r.t_ms.unwrap_or(0),
            zk: r.zk,
            lang: r.lang,
            acts: r.acts.into_iter().map(|(_, a)| a).collect(),
        }),
        _ => Err(problems.join("; ")),
    }
}

pub mod lesson;
#[cfg(test)]
mod tests;
