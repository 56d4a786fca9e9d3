//! A lesson in a share link: `&l=<built-in id>&st=<step>` or, for a
//! teacher's own lesson, `&lf=<percent-encoded lesson JSON>` (at most
//! [`kcsim_core::lesson::MAX_BYTES`] once decoded), and `&present=1` for
//! presentation mode; beside the usual `s=`, `t=`, `a=` ([`crate::share`]).
//! A finished lesson is written with `st=` one past its last step.

use super::{after, start_state, At, LessonRun, Origin};
use crate::share::{pct_decode, pct_encode, LinkRead};
use crate::state::SimState;
use kcsim_core::lesson::{builtin, Lesson, MAX_BYTES};
use std::rc::Rc;

/// The lesson keys of a link, as written (read with [`split_link`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LessonLink {
    /// `l=`: a built-in lesson's id.
    pub id: Option<String>,
    /// `lf=`: a lesson file, still percent-encoded.
    pub file: Option<String>,
    /// `st=`: the step, as written.
    pub step: Option<String>,
    /// `present=1`.
    pub present: bool,
    /// What is wrong with these keys, in plain words.
    pub problems: Vec<String>,
}

/// Take the lesson keys (`l`, `lf`, `st`, `present`) out of a fragment:
/// what they say, and the rest of the fragment for [`crate::share::read`].
pub fn split_link(fragment: &str) -> (LessonLink, String) {
    let mut out = LessonLink::default();
    let mut rest = Vec::new();
    for part in fragment.trim_start_matches('#').split('&') {
        match part.split_once('=') {
            Some(("l", v)) => match pct_decode(v) {
                Ok(id) => out.id = Some(id),
                Err(e) => out.problems.push(format!("the lesson (l=): {e}")),
            },
            Some(("lf", v)) => out.file = Some(v.to_string()),
            Some(("st", v)) => out.step = Some(v.to_string()),
            Some(("present", "1")) => out.present = true,
            Some(("present", "0")) => out.present = false,
            Some(("present", v)) => out.problems.push(format!(
                "present={v:?} is not 1 (presentation mode) or 0; ignored"
            )),
            _ => rest.push(part),
        }
    }
    (out, rest.join("&"))
}

/// Add the lesson keys for `run` (and `present=1`) to a fragment.
pub fn append_link(fragment: &mut String, run: Option<&LessonRun>, present: bool) {
    if let Some(r) = run {
        match &r.origin {
            Origin::BuiltIn => {
                fragment.push_str("&l=");
                fragment.push_str(&pct_encode(&r.lesson.id));
            }
            Origin::File(text) => {
                fragment.push_str("&lf=");
                fragment.push_str(&pct_encode(text));
            }
        }
        let st = if r.done { r.lesson.steps.len() } else { r.step };
        fragment.push_str(&format!("&st={st}"));
    }
    if present {
        fragment.push_str("&present=1");
    }
}

/// The lesson a link names, or `None` with the reason in `problems`.
fn lesson_of(ll: &LessonLink, problems: &mut Vec<String>) -> Option<(Lesson, Origin)> {
    match (&ll.id, &ll.file) {
        (None, None) => {
            if let Some(st) = &ll.step {
                problems.push(format!("st={st} without a lesson (l= or lf=); ignored"));
            }
            None
        }
        (id, Some(file)) => {
            if id.is_some() {
                problems.push("both l= and lf=; the lesson file (lf=) is used".to_string());
            }
            let text = match pct_decode(file) {
                Ok(t) => t,
                Err(e) => {
                    problems.push(format!("the lesson file (lf=): {e}; no lesson opens"));
                    return None;
                }
            };
            if text.len() > MAX_BYTES {
                problems.push(format!(
                    "the lesson file (lf=) is {} bytes, more than a lesson may be ({MAX_BYTES}); no lesson opens",
                    text.len()
                ));
                return None;
            }
            match Lesson::parse(&text) {
                Ok(l) => Some((l, Origin::File(Rc::new(minified(&text))))),
                Err(e) => {
                    problems.push(format!("the lesson file (lf=): {e}; no lesson opens"));
                    None
                }
            }
        }
        (Some(id), None) => match super::builtins::lesson(id) {
            // Still being fetched: the page opens the link's scenario, and
            // opens the link again once they are here (see [`needs_builtins`]).
            None => None,
            Some(Some(Ok(l))) => Some((l, Origin::BuiltIn)),
            Some(Some(Err(e))) => {
                problems.push(format!(
                    "the built-in lesson {id:?} does not read ({e}); no lesson opens"
                ));
                None
            }
            Some(None) => {
                problems.push(format!(
                    "no built-in lesson {id:?} (l=); no lesson opens (the lessons are {})",
                    builtin::IDS.join(", ")
                ));
                None
            }
        },
    }
}

/// Whether a fragment names a built-in lesson (`l=` without `lf=`) that the
/// page has not fetched yet: the page then fetches the lessons and opens the
/// link again ([`super::builtins::load`]).
pub fn needs_builtins(fragment: &str) -> bool {
    let (ll, _) = split_link(fragment);
    ll.id.is_some() && ll.file.is_none() && super::builtins::entries().is_none()
}

/// A lesson file's JSON without its white space (what `lf=` carries).
pub fn minified(text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text)
        .map_or_else(|_| text.to_string(), |v| v.to_string())
}

/// The page a link with a lesson opens: the lesson's scenario with the
/// link's actions replayed, at its time, on its step. `None` when the link
/// names no lesson or the lesson does not open (the reason is then in
/// `problems`, and the page opens the link's scenario as usual).
pub fn from_link(ll: &LessonLink, link: &LinkRead, problems: &mut Vec<String>) -> Option<SimState> {
    problems.extend(ll.problems.iter().cloned());
    let (lesson, origin) = lesson_of(ll, problems)?;
    let n = lesson.steps.len();
    let (step, done) = match ll.step.as_deref().map(str::parse::<usize>) {
        None => (0, false),
        Some(Ok(k)) if k < n => (k, false),
        Some(Ok(k)) if k == n => (n - 1, true),
        Some(_) => {
            problems.push(format!(
                "st={} is not a step of this lesson (0 to {}); it opens at its first step",
                ll.step.as_deref().unwrap_or_default(),
                n - 1
            ));
            (0, false)
        }
    };
    let start = start_state(&lesson);
    let start_at = At {
        t_ms: start.now_ms(),
        acts: 0,
    };
    let mut s = start.replay(link.acts.clone(), link.t_ms, problems);
    let mut run = LessonRun::new(Rc::new(lesson), origin, start_at);
    if step > 0 {
        run.moments[0].started = None;
        run.step = step;
        run.moments[step].started = Some(At {
            t_ms: s.now_ms(),
            acts: s.user_acts().len(),
        });
    }
    run.done = done;
    s.lesson = Some(Rc::new(run));
    s.present = ll.present;
    let prev = s.clone();
    let mut s = after(&prev, s);
    if !problems.is_empty() {
        s.error = Some(format!("broken share link: {}", problems.join("; ")).into());
    }
    Some(s)
}
