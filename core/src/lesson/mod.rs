//! Lessons (version 1): a starting scenario and an ordered list of steps,
//! each narrating in English and Chinese, perhaps pointing at a part of the
//! page, perhaps offering "show me" (actions that perform it), perhaps
//! waiting for a checkpoint: a declarative condition on the simulated
//! cluster ([`Condition`]) that the core evaluates, so it passes however the
//! learner got there (a button, a key, a console command, scrubbing).
//!
//! A lesson is data: `core/docs/lesson-format.md` documents the file; the
//! built-in lessons are files in `core/lessons/` ([`builtin`]). Parsing is as
//! strict as a scenario file's: an unknown field, a wrong type, a missing
//! translation or a broker, topic or partition the cluster does not have is an
//! error naming the field (`steps[2].checkpoint.leader.broker: no broker 7 in
//! this cluster`). [`play`] walks a lesson's "show me" path headless, as
//! `kcsim lesson check` does.

pub mod builtin;
mod condition;
mod play;

pub use condition::Condition;
pub use play::{play, PlayError, Probe, Probed, StepOutcome, SLICE_MS};

use crate::action::Action;
use crate::ids::{BrokerId, TopicPartition};
use crate::scenario::{self, bad, err, known_keys, missing, object, Scenario, ScenarioError};
use serde_json::{Map, Value};

/// The lesson format version this build reads.
pub const VERSION: u64 = 1;
/// The largest lesson file read, in bytes (a lesson in a share link is
/// bounded by this too).
pub const MAX_BYTES: usize = 256 * 1024;
/// The most steps a lesson may have.
pub const MAX_STEPS: usize = 100;
/// How long "show me" plays for a checkpoint when a step names no
/// `within_ms`: a minute of virtual time.
pub const DEFAULT_WITHIN_MS: u64 = 60_000;
/// Where a lesson opens when it names no `start_ms`: 3 s, a controller
/// elected and the topics' leaders in place (as the page opens a scenario).
pub const DEFAULT_START_MS: u64 = 3_000;

/// A lesson error: the field (as a JSON path) and what is wrong with it. The
/// same shape as a scenario file's errors; an error inside the inline
/// scenario names its field under `scenario.`.
pub type LessonError = ScenarioError;

/// Text in both of the page's languages.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Text {
    /// English.
    pub en: String,
    /// 中文.
    pub zh: String,
}

impl Text {
    /// The text for a language code (`en`, `zh`); English for any other.
    pub fn get(&self, lang: &str) -> &str {
        if lang == "zh" {
            &self.zh
        } else {
            &self.en
        }
    }
}

/// Where the lesson starts: a built-in scenario by name, or one inline.
#[derive(Debug, Clone, PartialEq)]
pub enum Start {
    /// A built-in scenario ([`scenario::builtin::NAMES`]).
    BuiltIn(String),
    /// A scenario written into the lesson.
    Inline(Box<Scenario>),
}

/// A part of the page a step points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The `/controller` znode (and the summary that names the controller).
    Controller,
    /// All the broker cards.
    Brokers,
    /// One broker's card.
    Broker(BrokerId),
    /// The controllers' event queues.
    EventQueue,
    /// The partition table.
    Partitions,
    /// One partition's row.
    Partition(TopicPartition),
    /// The wire: requests and watch notifications in flight.
    Wire,
    /// The Why panel.
    Why,
    /// The invariants.
    Invariants,
    /// Kafka's own words (`kafka-topics.sh --describe`, `zookeeper-shell.sh`).
    KafkaText,
    /// The znode tree.
    Znodes,
    /// The admin tools.
    Admin,
    /// The time controls.
    Time,
}

impl Target {
    /// The spelling in lesson files: `controller`, `brokers`, `broker:2`,
    /// `queue`, `partitions`, `partition:orders-0`, `wire`, `why`,
    /// `invariants`, `kafka-text`, `znodes`, `admin`, `time`.
    pub fn parse(s: &str) -> Option<Target> {
        Some(match s {
            "controller" => Target::Controller,
            "brokers" => Target::Brokers,
            "queue" => Target::EventQueue,
            "partitions" => Target::Partitions,
            "wire" => Target::Wire,
            "why" => Target::Why,
            "invariants" => Target::Invariants,
            "kafka-text" => Target::KafkaText,
            "znodes" => Target::Znodes,
            "admin" => Target::Admin,
            "time" => Target::Time,
            _ => {
                if let Some(b) = s.strip_prefix("broker:") {
                    Target::Broker(BrokerId(b.parse().ok()?))
                } else if let Some(p) = s.strip_prefix("partition:") {
                    Target::Partition(parse_tp(p)?)
                } else {
                    return None;
                }
            }
        })
    }
}

/// `topic-partition`, split at the last `-`.
pub(crate) fn parse_tp(s: &str) -> Option<TopicPartition> {
    let (t, p) = s.rsplit_once('-')?;
    if t.is_empty() {
        return None;
    }
    Some(TopicPartition::new(t, p.parse().ok()?))
}

/// One step of a lesson.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// What the step says.
    pub text: Text,
    /// The part of the page it points at.
    pub point_at: Option<Target>,
    /// "Show me": the actions that perform the step, done at the current
    /// moment through the same path as the page's buttons; then time plays
    /// until the checkpoint holds. [`Step::actions_now`] gives them.
    pub show_me: Vec<ShowMe>,
    /// What the step waits for (none: the learner reads and goes on).
    pub checkpoint: Option<Condition>,
    /// The checkpoint in the author's words, for people ("the new controller
    /// won with epoch 2"); without it the page words the condition itself.
    pub goal: Option<Text>,
    /// A hint, shown after a while or on request.
    pub hint: Option<Text>,
    /// How much virtual time "show me" may play for the checkpoint.
    pub within_ms: u64,
}

/// One "show me" action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShowMe {
    /// The action (its broker, when `on_controller`, is filled in when it
    /// is done).
    pub action: Action,
    /// Written `"broker": "controller"`: done to whichever broker
    /// `/controller` names at that moment, so "kill the controller" does
    /// what it says however the learner got there.
    pub on_controller: bool,
}

impl Step {
    /// The step's "show me" actions as they are done now, in a cluster
    /// whose `/controller` names `controller`; an error (in English, for
    /// the CLI; the page says it in its own words) when an action is for
    /// the controller and there is none.
    pub fn actions_now(&self, controller: Option<BrokerId>) -> Result<Vec<Action>, NoController> {
        self.show_me
            .iter()
            .map(|s| {
                if !s.on_controller {
                    return Ok(s.action.clone());
                }
                let c = controller.ok_or(NoController)?;
                let mut a = s.action.clone();
                a.set_broker(c);
                Ok(a)
            })
            .collect()
    }
}

/// A "show me" action is for the controller, and no broker is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("this step's action is for the controller, and /controller names no broker now: play on until one is elected")]
pub struct NoController;

/// A parsed, checked lesson.
#[derive(Debug, Clone, PartialEq)]
pub struct Lesson {
    /// Short id: lower-case letters, digits and `-` (share links and saved
    /// progress use it).
    pub id: String,
    /// The title.
    pub title: Text,
    /// One or two sentences: what the lesson teaches.
    pub summary: Text,
    /// Where the article this course follows is imprecise or out of date on
    /// this lesson's subject, if it is.
    pub article_note: Option<Text>,
    /// The starting scenario.
    pub start: Start,
    /// The virtual time the lesson opens at.
    pub start_ms: u64,
    /// The steps, in order.
    pub steps: Vec<Step>,
}

impl Lesson {
    /// The starting scenario, built.
    pub fn scenario(&self) -> Scenario {
        match &self.start {
            Start::BuiltIn(n) => scenario::builtin::scenario(n).unwrap_or_else(|| {
                // Names are checked at parse time.
                scenario::builtin::default_cluster()
            }),
            Start::Inline(s) => (**s).clone(),
        }
    }

    /// Parse and check a lesson file's text.
    pub fn parse(text: &str) -> Result<Lesson, LessonError> {
        if text.len() > MAX_BYTES {
            return err(
                "(file)",
                format!(
                    "a lesson file may be at most {MAX_BYTES} bytes; this one is {}",
                    text.len()
                ),
            );
        }
        let value = scenario::read_root(
            text,
            "lesson",
            VERSION,
            &[
                "version",
                "id",
                "title",
                "summary",
                "article_note",
                "scenario",
                "start_ms",
                "steps",
            ],
        )?;
        let root = object(&value, "(root)")?;
        let id_v = root.get("id").ok_or_else(|| missing("id"))?;
        let id = id_v
            .as_str()
            .filter(|s| {
                !s.is_empty()
                    && s.len() <= 64
                    && s.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            })
            .ok_or_else(|| {
                bad(
                    "id",
                    "an id of 1 to 64 lower-case letters, digits and -",
                    id_v,
                )
            })?
            .to_string();
        let title = text_field(root, "title", "title")?;
        let summary = text_field(root, "summary", "summary")?;
        let article_note = match root.get("article_note") {
            None => None,
            Some(_) => Some(text_field(root, "article_note", "article_note")?),
        };
        let sv = root.get("scenario").ok_or_else(|| missing("scenario"))?;
        let start = match sv {
            Value::String(name) => {
                if scenario::builtin::scenario(name).is_none() {
                    return err(
                        "scenario",
                        format!(
                            "no built-in scenario {name:?}; the built-ins are {}",
                            scenario::builtin::NAMES.join(", ")
                        ),
                    );
                }
                Start::BuiltIn(name.clone())
            }
            Value::Object(_) => {
                Start::Inline(Box::new(Scenario::parse(&sv.to_string()).map_err(|e| {
                    ScenarioError {
                        field: if e.field.starts_with('(') {
                            "scenario".to_string()
                        } else {
                            format!("scenario.{}", e.field)
                        },
                        message: e.message,
                    }
                })?))
            }
            _ => {
                return Err(bad(
                    "scenario",
                    "a built-in scenario's name or a scenario object",
                    sv,
                ))
            }
        };
        let start_ms = match root.get("start_ms") {
            None => DEFAULT_START_MS,
            Some(v) => v
                .as_u64()
                .filter(|t| *t <= scenario::MAX_TIME_MS)
                .ok_or_else(|| bad("start_ms", "a time in ms from 0 to 86400000", v))?,
        };
        let mut lesson = Lesson {
            id,
            title,
            summary,
            article_note,
            start,
            start_ms,
            steps: Vec::new(),
        };
        let sc = lesson.scenario();
        let mut names = topic_names(&sc);
        let steps_v = root.get("steps").ok_or_else(|| missing("steps"))?;
        let list = steps_v
            .as_array()
            .ok_or_else(|| bad("steps", "a list of steps", steps_v))?;
        if list.is_empty() {
            return err("steps", "a lesson needs at least one step");
        }
        if list.len() > MAX_STEPS {
            return err(
                "steps",
                format!(
                    "a lesson may have at most {MAX_STEPS} steps; this one has {}",
                    list.len()
                ),
            );
        }
        for (i, s) in list.iter().enumerate() {
            lesson
                .steps
                .push(parse_step(s, &format!("steps[{i}]"), &sc, &mut names)?);
        }
        Ok(lesson)
    }
}

/// The topics a scenario has or will create.
fn topic_names(sc: &Scenario) -> Vec<String> {
    let mut names: Vec<String> = sc.topics.iter().map(|t| t.name.clone()).collect();
    for (_, a) in &sc.actions {
        if let Action::CreateTopic { name, .. } = a {
            names.push(name.clone());
        }
    }
    names
}

fn text_field(obj: &Map<String, Value>, key: &str, field: &str) -> Result<Text, LessonError> {
    let v = obj.get(key).ok_or_else(|| missing(field))?;
    let o = object(v, field)?;
    known_keys(o, field, &["en", "zh"])?;
    let one = |lang: &str| -> Result<String, LessonError> {
        let f = format!("{field}.{lang}");
        let t = o.get(lang).ok_or_else(|| ScenarioError {
            field: f.clone(),
            message: "is required: every text is written in English (en) and Chinese (zh)"
                .to_string(),
        })?;
        match t.as_str() {
            Some(s) if !s.trim().is_empty() => Ok(s.to_string()),
            _ => Err(bad(&f, "a non-empty string", t)),
        }
    };
    Ok(Text {
        en: one("en")?,
        zh: one("zh")?,
    })
}

/// One step. A topic its "show me" creates is known from then on (`topics`
/// grows), so this step's checkpoint and later steps may name it.
fn parse_step(
    v: &Value,
    f: &str,
    sc: &Scenario,
    topics: &mut Vec<String>,
) -> Result<Step, LessonError> {
    let o = object(v, f)?;
    known_keys(
        o,
        f,
        &[
            "text",
            "point_at",
            "show_me",
            "checkpoint",
            "goal",
            "hint",
            "within_ms",
        ],
    )?;
    let text = text_field(o, "text", &format!("{f}.text"))?;
    let point_at = match o.get("point_at") {
        None => None,
        Some(p) => {
            let fp = format!("{f}.point_at");
            let t = p
                .as_str()
                .and_then(Target::parse)
                .ok_or_else(|| bad(&fp, "a part of the page (controller, brokers, broker:<id>, queue, partitions, partition:<topic>-<n>, wire, why, invariants, kafka-text, znodes, admin, time)", p))?;
            Some((t, fp))
        }
    };
    let show_me = match o.get("show_me") {
        None => Vec::new(),
        Some(list) => {
            let fs = format!("{f}.show_me");
            let arr = list
                .as_array()
                .ok_or_else(|| bad(&fs, "a list of actions", list))?;
            // A "show me" action is a scenario action done now: the same
            // parser checks it, with its time filled in.
            let mut timed = Vec::new();
            let mut on_controller = Vec::new();
            for (i, a) in arr.iter().enumerate() {
                let mut obj = object(a, &format!("{fs}[{i}]"))?.clone();
                // `"broker": "controller"`: checked as the cluster's first
                // broker, done to the controller of the moment.
                let c = obj.get("broker").and_then(Value::as_str) == Some("controller");
                if c {
                    if let Some(b) = sc.brokers.first() {
                        obj.insert("broker".into(), Value::from(b.0));
                    }
                }
                on_controller.push(c);
                if obj.contains_key("at_ms") {
                    return err(
                        format!("{fs}[{i}].at_ms"),
                        "unknown field: a \"show me\" action happens when the learner asks",
                    );
                }
                obj.insert("at_ms".into(), Value::from(0u64));
                timed.push(Value::Object(obj));
            }
            scenario::actions::parse_actions(&Value::Array(timed), &sc.brokers, topics)
                .map_err(|e| ScenarioError {
                    field: e.field.replacen("actions", &fs, 1),
                    message: e.message,
                })?
                .into_iter()
                .zip(on_controller)
                .map(|((_, action), on_controller)| ShowMe {
                    action,
                    on_controller,
                })
                .collect::<Vec<_>>()
        }
    };
    for s in &show_me {
        if let Action::CreateTopic { name, .. } = &s.action {
            if !topics.contains(name) {
                topics.push(name.clone());
            }
        }
    }
    let point_at = match point_at {
        None => None,
        Some((t, fp)) => {
            check_target(&t, sc, topics, &fp)?;
            Some(t)
        }
    };
    let checkpoint = match o.get("checkpoint") {
        None => None,
        Some(c) => Some(Condition::parse(
            c,
            &format!("{f}.checkpoint"),
            &sc.brokers,
            topics,
        )?),
    };
    let goal = match o.get("goal") {
        None => None,
        Some(_) => Some(text_field(o, "goal", &format!("{f}.goal"))?),
    };
    if goal.is_some() && checkpoint.is_none() {
        return err(
            format!("{f}.goal"),
            "only a step with a checkpoint has a goal to describe",
        );
    }
    let hint = match o.get("hint") {
        None => None,
        Some(_) => Some(text_field(o, "hint", &format!("{f}.hint"))?),
    };
    let within_ms = match o.get("within_ms") {
        None => DEFAULT_WITHIN_MS,
        Some(w) => w
            .as_u64()
            .filter(|t| (1..=scenario::MAX_TIME_MS).contains(t))
            .ok_or_else(|| {
                bad(
                    &format!("{f}.within_ms"),
                    "a time in ms from 1 to 86400000",
                    w,
                )
            })?,
    };
    if checkpoint.is_none() && o.contains_key("within_ms") {
        return err(
            format!("{f}.within_ms"),
            "only a step with a checkpoint waits for one",
        );
    }
    Ok(Step {
        text,
        point_at,
        show_me,
        checkpoint,
        goal,
        hint,
        within_ms,
    })
}

fn check_target(t: &Target, sc: &Scenario, topics: &[String], f: &str) -> Result<(), LessonError> {
    match t {
        Target::Broker(b) => check_broker(*b, &sc.brokers, f),
        Target::Partition(tp) => check_topic(tp, topics, f),
        _ => Ok(()),
    }
}

pub(crate) fn check_broker(b: BrokerId, brokers: &[BrokerId], f: &str) -> Result<(), LessonError> {
    if brokers.contains(&b) {
        Ok(())
    } else {
        err(f, format!("no broker {b} in this cluster"))
    }
}

pub(crate) fn check_topic(
    tp: &TopicPartition,
    topics: &[String],
    f: &str,
) -> Result<(), LessonError> {
    if topics.iter().any(|t| tp.topic == t) {
        Ok(())
    } else {
        err(
            f,
            format!("no topic {:?} in this lesson's scenario", tp.topic),
        )
    }
}

#[cfg(test)]
mod tests;
