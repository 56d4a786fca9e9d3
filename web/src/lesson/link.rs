//! A lesson in a share link: `&l=<built-in id>&st=<step>` or, for a
//! teacher's own lesson, `&lf=<percent-encoded lesson JSON>` (at most
//! [`kcsim_core::lesson::MAX_BYTES`] once decoded), and `&present=1` for
//! presentation mode; beside the usual `s=`, `t=`, `a=` ([`crate::share`]).
//! A finished lesson is written with `st=` one past its last step.

use super::{after, start_state, At, LessonRun, Origin};
use crate::share::LinkRead;
use crate::state::SimState;
use kcsim_core::lesson::{builtin, Lesson};
use kcsim_core::share_link::lesson::{self as core_link, Chosen, LessonRef};
use std::rc::Rc;

/// The lesson keys of a link, as written (read by the core:
/// [`kcsim_core::share_link::lesson::split`]).
pub use core_link::LessonKeys as LessonLink;
pub use core_link::{minified, split as split_link};

/// Add the lesson keys for `run` (and `present=1`) to a fragment.
pub fn append_link(fragment: &mut String, run: Option<&LessonRun>, present: bool) {
    let lesson = run.map(|r| {
        let which = match &r.origin {
            Origin::BuiltIn => LessonRef::BuiltIn(&r.lesson.id),
            Origin::File(text) => LessonRef::File(text),
        };
        let st = if r.done { r.lesson.steps.len() } else { r.step };
        (which, st)
    });
    core_link::append(fragment, lesson, present);
}

/// The lesson a link names, or `None` with the reason in `problems`: the
/// core chooses and reads a file ([`core_link::choose`]), the page looks up
/// the built-in lessons it fetched.
fn lesson_of(ll: &LessonLink, problems: &mut Vec<String>) -> Option<(Lesson, Origin)> {
    match core_link::choose(ll, problems)? {
        Chosen::File(l, text) => Some((*l, Origin::File(Rc::new(text)))),
        Chosen::BuiltIn(id) => match super::builtins::lesson(id) {
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

/// The page a link with a lesson opens: the lesson's scenario with the
/// link's actions replayed, at its time, on its step. `None` when the link
/// names no lesson or the lesson does not open (the reason is then in
/// `problems`, and the page opens the link's scenario as usual).
pub fn from_link(ll: &LessonLink, link: &LinkRead, problems: &mut Vec<String>) -> Option<SimState> {
    problems.extend(ll.problems.iter().cloned());
    let (lesson, origin) = lesson_of(ll, problems)?;
    let n = lesson.steps.len();
    let (step, done, problem) = core_link::step(ll.step.as_deref(), n);
    problems.extend(problem);
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
