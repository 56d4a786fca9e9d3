//! Structure-aware fuzz targets for every way into the core (issue 14,
//! `docs/inputs.md`): the scenario parser, the lesson parser, the console,
//! the share-link decoder and the trace-file decoder.
//!
//! Each input comes from its own seed ([`input_seed`]), drawn by the core's
//! own generator, so a crash is reproduced by that seed alone
//! (`kcsim fuzz --target T --seed S --inputs 1`). Inputs are mostly
//! valid-looking: a document generated from the format's schema (or a
//! built-in file), then mutated ([`gen::Gen`]); a few are random bytes.
//! An accepted input is run, with a bound on its work: a scenario for at
//! most [`RUN_MS`] of virtual time and [`MAX_STEPS`] steps, a lesson's
//! "show me" path only when it is that short, a share link's actions and
//! time capped the same way, a trace file replayed only when it runs to at
//! most [`RUN_MS`].
//!
//! Native tooling only (feature `fuzz`, which `cli` turns on): the page never
//! links it.

mod console;
pub mod gen;

use crate::lesson::{self, Lesson};
use crate::scenario::{self, Scenario};
use crate::share_link;
use crate::time::SimTime;
use crate::timeline::Timeline;
use crate::trace_file;
use gen::Gen;
use serde_json::Value;
use std::fmt;

/// The most virtual time an accepted input runs for (ms).
pub const RUN_MS: u64 = 60_000;
/// The most simulation steps an accepted scenario runs for.
pub const MAX_STEPS: u64 = 200_000;

/// A fuzz target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    /// `Scenario::parse`, then build and run.
    Scenario,
    /// `Lesson::parse`, then its scenario and its "show me" path.
    Lesson,
    /// `console::Session::execute` on a live timeline.
    Console,
    /// `share_link::read`/`decode`, then the replay the page does.
    ShareLink,
    /// `trace_file::parse`, then `trace_file::replay`.
    TraceFile,
}

impl Target {
    /// Every target, in the order they run.
    pub const ALL: [Target; 5] = [
        Target::Scenario,
        Target::Lesson,
        Target::Console,
        Target::ShareLink,
        Target::TraceFile,
    ];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Target::Scenario => "scenario",
            Target::Lesson => "lesson",
            Target::Console => "console",
            Target::ShareLink => "share-link",
            Target::TraceFile => "trace-file",
        }
    }

    /// The target a name names.
    pub fn parse(s: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == s)
    }

    fn salt(self) -> u64 {
        match self {
            Target::Scenario => 0x5c3e_0001,
            Target::Lesson => 0x1e55_0002,
            Target::Console => 0xc025_0003,
            Target::ShareLink => 0x5a4e_0004,
            Target::TraceFile => 0x7ace_0005,
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The seed of input `i` of a run seeded `seed`: `seed + i`, so that input
/// alone is re-run by `--seed <seed + i> --inputs 1`.
pub fn input_seed(seed: u64, i: u64) -> u64 {
    seed.wrapping_add(i)
}

/// What one input came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The way in accepted it (and it ran, bounded).
    Accepted,
    /// The way in refused it with a message.
    Rejected,
    /// A property failed without a panic (a refused console command that
    /// changed the simulation): what went wrong.
    Failed(String),
}

/// One input of a target: its text (what would be written to a crash
/// file) and how to run it.
#[derive(Debug, Clone)]
pub struct Input {
    /// The target.
    pub target: Target,
    /// Its seed.
    pub seed: u64,
    /// The input as text (console inputs: one command line per line).
    pub text: String,
}

/// Things built once and shared by every input: the trace files and the
/// console's starting timeline.
#[derive(Debug)]
pub struct Corpus {
    traces: Vec<String>,
    console_start: Timeline,
}

impl Default for Corpus {
    fn default() -> Self {
        Corpus::new()
    }
}

impl Corpus {
    /// Build the shared inputs (independent of any seed).
    pub fn new() -> Corpus {
        let mut traces = Vec::new();
        for s in 0..8u64 {
            let mut g = Gen::new(0xba5e_0000 + s);
            let v = g.scenario();
            if let Ok(sc) = Scenario::parse(&v.to_string()) {
                let until_ms = 3_000 + 1_000 * s;
                let header = trace_file::Header {
                    scenario: v,
                    acts: Vec::new(),
                    until_ms,
                };
                let mut t = Timeline::new(&sc);
                t.seek(SimTime(until_ms));
                traces.push(trace_file::write(&header, t.trace()));
            }
        }
        let mut console_start = Timeline::new(&scenario::builtin::default_cluster());
        console_start.seek(SimTime(3_000));
        Corpus {
            traces,
            console_start,
        }
    }
}

/// Generate input `seed` of `target`.
pub fn generate(target: Target, seed: u64, corpus: &Corpus) -> Input {
    let mut g = Gen::new(seed ^ target.salt());
    let text = match target {
        Target::Scenario => {
            if g.chance(3) {
                g.random_text()
            } else {
                let mut v = if g.chance(10) {
                    let name = *g.pick(&scenario::builtin::NAMES[1..7]);
                    scenario::builtin::file(name)
                        .and_then(|t| serde_json::from_str(t).ok())
                        .unwrap_or(Value::Null)
                } else {
                    g.scenario()
                };
                g.mutate_value(&mut v);
                let mut text = v.to_string();
                g.mutate_text(&mut text, scenario::MAX_SCENARIO_BYTES);
                text
            }
        }
        Target::Lesson => {
            if g.chance(3) {
                g.random_text()
            } else {
                let (_, file) = *g.pick(lesson::builtin::FILES);
                let mut v: Value = serde_json::from_str(file).unwrap_or(Value::Null);
                if g.chance(30) {
                    if let Value::Object(m) = &mut v {
                        m.insert("scenario".into(), g.scenario());
                    }
                } else if g.chance(20) {
                    if let Value::Object(m) = &mut v {
                        let name = *g.pick(scenario::builtin::NAMES);
                        m.insert("scenario".into(), Value::String(name.to_string()));
                    }
                }
                g.mutate_value(&mut v);
                let mut text = v.to_string();
                g.mutate_text(&mut text, lesson::MAX_BYTES);
                text
            }
        }
        Target::Console => {
            let n = g.int(1, 6);
            let lines: Vec<String> = (0..n)
                .map(|_| {
                    if g.chance(2) {
                        // Over the line limit (the page's box stops sooner).
                        "x".repeat(crate::console::MAX_LINE_CHARS + 1)
                    } else {
                        console::line(&mut g).replace(['\n', '\r'], " ")
                    }
                })
                .collect();
            lines.join("\n")
        }
        Target::ShareLink => share_link_text(&mut g),
        Target::TraceFile => {
            if g.chance(3) || corpus.traces.is_empty() {
                g.random_text()
            } else {
                let base = g.pick(&corpus.traces).clone();
                mutate_trace(&mut g, &base)
            }
        }
    };
    Input { target, seed, text }
}

fn share_link_text(g: &mut Gen) -> String {
    if g.chance(3) {
        return g.random_text();
    }
    let scenario = if g.chance(90) {
        g.pick(&scenario::builtin::NAMES[..7]).to_string()
    } else {
        g.edgy_string()
    };
    let brokers = [0u64, 1, 2];
    let mut names = vec!["orders".to_string(), "t0".to_string()];
    let acts: Vec<Value> = (0..g.int(0, 5))
        .map(|_| {
            let mut a = g.action(&brokers, &mut names);
            let at = a.get("at_ms").cloned().unwrap_or(Value::Null);
            if let Value::Object(m) = &mut a {
                m.remove("at_ms");
            }
            serde_json::json!({"at_ms": at, "fork": g.chance(30), "action": a})
        })
        .collect();
    let mut acts = Value::Array(acts);
    g.mutate_value(&mut acts);
    let mut json = acts.to_string();
    g.mutate_text(&mut json, share_link::MAX_LINK_BYTES);
    let mut parts = vec![
        format!("s={}", share_link::pct_encode(&scenario)),
        format!("t={}", g.int(0, 30_000)),
    ];
    if g.chance(30) {
        parts.push(format!("zk={}", g.pick(&["sync", "async", "SYNC", "%ZZ"])));
    }
    if g.chance(20) {
        parts.push(format!("lang={}", g.pick(&["zh", "en", "fr", "%E4%B8%AD"])));
    }
    if json != "[]" {
        parts.push(format!("a={}", share_link::pct_encode(&json)));
    }
    // The lesson keys (read by `share_link::lesson`): a built-in's id, or a
    // built-in lesson's file mutated, and a step.
    if g.chance(20) {
        if g.chance(50) {
            let id = g.pick(crate::lesson::builtin::IDS).to_string();
            parts.push(format!("l={}", share_link::pct_encode(&id)));
        } else {
            let mut text = g.pick(crate::lesson::builtin::FILES).1.to_string();
            g.mutate_text(&mut text, crate::lesson::MAX_BYTES + 16);
            parts.push(format!("lf={}", share_link::pct_encode(&text)));
        }
        parts.push(format!("st={}", g.pick(&["0", "1", "2", "9", "-1", "x"])));
    }
    if g.chance(10) {
        parts.push(format!("present={}", g.pick(&["1", "0", "yes"])));
    }
    // Fragment-level mutations.
    for _ in 0..g.int(0, 2) {
        match g.int(0, 7) {
            0 => parts.push(format!(
                "t={}",
                g.pick(&["-1", "1e9", "18446744073709551616", "soon"])
            )),
            1 => parts.push(format!("s={}", g.pick(&["default", "", "%", "%ZZ"]))),
            2 => parts.push("oops".to_string()),
            3 => parts.push(format!("{}={}", g.edgy_string(), g.edgy_string())),
            4 => {
                if !parts.is_empty() {
                    let i = g.index(parts.len());
                    parts.remove(i);
                }
            }
            5 => parts.push(format!(
                "a={}",
                g.pick(&["%5B", "%", "%7B%7D", "null", "%5B5%5D"])
            )),
            6 => parts.push(format!("t={}", crate::share_link::LATEST_MS)),
            _ => {
                let i = g.index(parts.len());
                let j = g.index(parts.len());
                parts.swap(i, j);
            }
        }
    }
    let mut f = parts.join("&");
    if g.chance(50) {
        f.insert(0, '#');
    }
    f
}

fn mutate_trace(g: &mut Gen, base: &str) -> String {
    let mut lines: Vec<String> = base.lines().map(str::to_string).collect();
    for _ in 0..g.int(0, 3) {
        if lines.is_empty() {
            break;
        }
        let i = if g.chance(50) {
            0
        } else {
            g.index(lines.len())
        };
        match g.int(0, 6) {
            0 | 1 => {
                let mut v: Value = serde_json::from_str(&lines[i]).unwrap_or(Value::Null);
                if i == 0 && g.chance(40) {
                    // User actions in the header, valid-looking.
                    let brokers = [0u64, 1, 2];
                    let mut names = vec!["t0".to_string()];
                    let acts: Vec<Value> = (0..g.int(1, 4))
                        .map(|_| {
                            let mut a = g.action(&brokers, &mut names);
                            let at = a.get("at_ms").cloned().unwrap_or(Value::Null);
                            if let Value::Object(m) = &mut a {
                                m.remove("at_ms");
                            }
                            let at = at.as_u64().map_or(0, |t| t % 3_000);
                            serde_json::json!({"at_ms": at, "fork": g.chance(30), "action": a})
                        })
                        .collect();
                    if let Value::Object(m) = &mut v {
                        m.insert("acts".into(), Value::Array(acts));
                    }
                }
                g.mutate_value(&mut v);
                lines[i] = v.to_string();
            }
            2 => {
                lines.remove(i);
            }
            3 => {
                let j = g.index(lines.len());
                lines.swap(i, j);
            }
            4 => {
                let l = lines[i].clone();
                lines.insert(i, l);
            }
            5 => {
                let mut l = lines[i].clone();
                g.mutate_text(&mut l, 1 << 20);
                lines[i] = l;
            }
            _ => lines.truncate(i),
        }
    }
    let mut text = lines.join("\n");
    if g.chance(10) {
        g.mutate_text(&mut text, 1 << 20);
    }
    text
}

/// Run a timeline forward to `until` (ms), by at most [`MAX_STEPS`] steps.
fn run_bounded(t: &mut Timeline, until: u64) {
    let until = SimTime(until.min(RUN_MS));
    let mut steps = 0;
    while t.now() < until && steps < MAX_STEPS {
        if !t.step() {
            break;
        }
        steps += 1;
    }
}

/// Run one input: parse it the way its way in does and, if accepted, run
/// it (bounded). Panics are the caller's to catch.
pub fn run(input: &Input, corpus: &Corpus) -> Outcome {
    match input.target {
        Target::Scenario => match Scenario::parse(&input.text) {
            Ok(s) => {
                let mut sim = s.build();
                let until = SimTime((s.last_action_ms() + 10_000).min(RUN_MS));
                let mut steps = 0;
                while sim.now() < until && steps < MAX_STEPS && sim.step() {
                    steps += 1;
                }
                Outcome::Accepted
            }
            Err(_) => Outcome::Rejected,
        },
        Target::Lesson => match Lesson::parse(&input.text) {
            Ok(l) => {
                let sc = l.scenario();
                let total: u64 = l
                    .start_ms
                    .saturating_add(l.steps.iter().map(|s| s.within_ms).sum::<u64>());
                let big = matches!(&l.start, lesson::Start::BuiltIn(n) if n == "kafka-scale");
                if total <= RUN_MS && !big {
                    let _ = lesson::play(&l);
                } else {
                    let _ = sc.build();
                }
                Outcome::Accepted
            }
            Err(_) => Outcome::Rejected,
        },
        Target::Console => run_console(input, corpus),
        Target::ShareLink => {
            // The page takes the lesson keys out first, and reads a lesson
            // file the link carries as the core reads any lesson file.
            let (keys, rest) = share_link::lesson::split(&input.text);
            let mut problems = Vec::new();
            if let Some(share_link::lesson::Chosen::File(l, min)) =
                share_link::lesson::choose(&keys, &mut problems)
            {
                let _ = share_link::lesson::step(keys.step.as_deref(), l.steps.len());
                if Lesson::parse(&min).ok().map(|m| m.id) != Some(l.id) {
                    return Outcome::Failed(
                        "a lesson file and its minified text read differently".to_string(),
                    );
                }
            }
            let r = share_link::read(&rest);
            let strict = share_link::decode(&rest);
            if strict.is_ok() != (r.problems.is_empty() && r.scenario.is_some()) {
                return Outcome::Failed(
                    "decode and read disagree on whether the link is whole".to_string(),
                );
            }
            // What the page does: open the named built-in (or the default
            // cluster), replay the actions as taken, seek to the time.
            let name = r.scenario.as_deref().unwrap_or("default");
            let sc = match scenario::builtin::scenario(name) {
                Some(s) if name != "kafka-scale" => s,
                _ => scenario::builtin::default_cluster(),
            };
            let mut t = Timeline::new(&sc);
            for (_, a) in &r.acts {
                let at = SimTime(a.at_ms.min(RUN_MS));
                run_bounded(&mut t, at.as_ms());
                let at = at.max(t.now());
                let _ = if a.fork {
                    t.intervene(at, a.action.clone())
                } else {
                    t.insert(at, a.action.clone())
                };
            }
            run_bounded(&mut t, r.t_ms.unwrap_or(0));
            if strict.is_ok() {
                Outcome::Accepted
            } else {
                Outcome::Rejected
            }
        }
        Target::TraceFile => match trace_file::parse(&input.text) {
            Ok(f) => {
                if f.header.until_ms <= RUN_MS {
                    let _ = trace_file::replay(&input.text);
                }
                Outcome::Accepted
            }
            Err(_) => Outcome::Rejected,
        },
    }
}

/// The simulation state a refused command must leave as it was (the
/// session's files are not the simulation's: `rm a b` removes `a` and fails
/// on a missing `b`, as rm does).
fn state_of(t: &Timeline) -> String {
    let last = t
        .trace()
        .last()
        .map(|r| r.to_json_line())
        .unwrap_or_default();
    format!(
        "{} {} {:?} {} {}",
        t.now().as_ms(),
        t.trace().len(),
        t.actions(),
        last,
        serde_json::to_string(&crate::report::FinalState::of(t.sim())).unwrap_or_default()
    )
}

fn run_console(input: &Input, corpus: &Corpus) -> Outcome {
    let mut t = corpus.console_start.clone();
    let mut session = crate::console::Session::default();
    let mut all_ok = true;
    for line in input.text.split('\n') {
        // Bound each input's work: no sleep past the run's virtual time.
        if t.now().as_ms() > RUN_MS {
            break;
        }
        let before = state_of(&t);
        let a = session.execute(&mut t, line);
        if !a.ok {
            all_ok = false;
            let after = state_of(&t);
            if before != after {
                return Outcome::Failed(format!(
                    "the refused command {:?} changed the simulation (it answered {:?})",
                    cut(line),
                    cut(&a.text)
                ));
            }
        }
    }
    if all_ok {
        Outcome::Accepted
    } else {
        Outcome::Rejected
    }
}

fn cut(s: &str) -> String {
    let mut c: String = s.chars().take(200).collect();
    if c.len() < s.len() {
        c.push('…');
    }
    c
}

/// Counts for one target.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// Inputs tried.
    pub tried: u64,
    /// Accepted by the way in.
    pub accepted: u64,
    /// Refused with a message.
    pub rejected: u64,
    /// Panics and failed properties.
    pub crashes: u64,
}

/// A crash: the input and what happened.
#[derive(Debug, Clone)]
pub struct Crash {
    /// The input.
    pub input: Input,
    /// The panic message or the failed property.
    pub message: String,
}

impl Crash {
    /// The crash file's text: how to re-run it, what happened, the input.
    pub fn file_text(&self) -> String {
        format!(
            "# kcsim fuzz --target {} --seed {} --inputs 1\n# {}\n{}",
            self.input.target,
            self.input.seed,
            self.message.replace('\n', "\n# "),
            self.input.text
        )
    }
}

/// Run inputs `seed`, `seed + 1`, … of `target` while `more(tried)` says
/// so, catching each panic; calls `crashed` for each crash as it happens.
pub fn fuzz(
    target: Target,
    seed: u64,
    corpus: &Corpus,
    mut more: impl FnMut(u64) -> bool,
    mut crashed: impl FnMut(&Crash),
) -> Counts {
    let mut c = Counts::default();
    while more(c.tried) {
        let input = generate(target, input_seed(seed, c.tried), corpus);
        c.tried += 1;
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&input, corpus)));
        let failure = match r {
            Ok(Outcome::Accepted) => {
                c.accepted += 1;
                None
            }
            Ok(Outcome::Rejected) => {
                c.rejected += 1;
                None
            }
            Ok(Outcome::Failed(m)) => Some(m),
            Err(p) => Some(
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .map_or_else(|| "panic".to_string(), |m| format!("panic: {m}")),
            ),
        };
        if let Some(message) = failure {
            c.crashes += 1;
            crashed(&Crash { input, message });
        }
    }
    c
}

#[cfg(test)]
mod tests;
