//! Lesson mode: the page follows a lesson ([`kcsim_core::lesson::Lesson`])
//! step by step. Pure, like [`crate::state`]: every change goes through
//! [`apply`] (the lesson's own messages) or [`after`] (called by
//! [`SimState::apply`] after every other change, to check the current step's
//! checkpoint with the core's [`kcsim_core::lesson::Condition::holds`]).
//!
//! Rewinding (back one step, back to the last checkpoint) rebuilds the
//! timeline from the lesson's scenario and the user's actions recorded up to
//! that moment, as a share link replays, and seeks to its time.

pub mod builtins;
mod link;
mod words;

pub use link::{append_link, from_link, minified, needs_builtins, split_link, LessonLink};
pub use words::{condition_words, target_selectors};

use crate::share::UserAct;
use crate::state::{Msg, SimState, SCENARIOS};
use kcsim_core::lesson::{Condition, Lesson, Start, Step};
use std::rc::Rc;

/// A moment of a lesson: the virtual time and how many of the user's actions
/// had been taken (the rest are dropped when the lesson rewinds to it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct At {
    /// Virtual time (ms).
    pub t_ms: u64,
    /// The number of user actions taken so far.
    pub acts: usize,
}

/// Where a lesson came from: what its share link carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A built-in lesson (`&l=<id>`).
    BuiltIn,
    /// A teacher's file (`&lf=<the JSON, minified>`).
    File(Rc<String>),
}

/// When a step started and when its checkpoint passed (`None`: not known,
/// e.g. for the steps before the one a link opened at).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StepMoments {
    /// When the learner reached the step.
    pub started: Option<At>,
    /// When its checkpoint passed.
    pub passed: Option<At>,
}

/// A lesson being followed.
#[derive(Debug, Clone, PartialEq)]
pub struct LessonRun {
    /// The lesson.
    pub lesson: Rc<Lesson>,
    /// Where it came from.
    pub origin: Origin,
    /// The current step's index.
    pub step: usize,
    /// Each step's moments.
    pub moments: Vec<StepMoments>,
    /// Whether the learner went past the last step.
    pub done: bool,
}

impl LessonRun {
    /// A lesson at its first step, started at `at`.
    pub fn new(lesson: Rc<Lesson>, origin: Origin, at: At) -> LessonRun {
        let mut moments = vec![StepMoments::default(); lesson.steps.len()];
        moments[0].started = Some(at);
        LessonRun {
            lesson,
            origin,
            step: 0,
            moments,
            done: false,
        }
    }

    /// The current step.
    pub fn current(&self) -> &Step {
        &self.lesson.steps[self.step]
    }

    /// Whether the current step's checkpoint has passed.
    pub fn passed(&self) -> bool {
        self.moments[self.step].passed.is_some()
    }

    /// Whether "Next" is enabled: the step has no checkpoint, or it passed.
    pub fn can_next(&self) -> bool {
        !self.done && (self.current().checkpoint.is_none() || self.passed())
    }

    /// The latest checkpoint passed at a known moment, at or before the
    /// current step: where "rewind to the last checkpoint" goes.
    pub fn last_checkpoint(&self) -> Option<(usize, At)> {
        (0..=self.step)
            .rev()
            .find_map(|i| self.moments[i].passed.map(|at| (i, at)))
    }

    /// What the learner's progress is, for saving.
    pub fn progress(&self) -> Progress {
        if self.done {
            Progress::Done
        } else {
            Progress::At(self.step)
        }
    }

    /// Forget the moments of step `from` and every later one.
    fn forget_from(&mut self, from: usize) {
        for m in self.moments.iter_mut().skip(from) {
            *m = StepMoments::default();
        }
    }
}

/// A learner's progress through one lesson, remembered in `localStorage`
/// under [`progress_key`]: the highest step reached, or done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Not started.
    New,
    /// Reached this step (0-based).
    At(usize),
    /// Finished.
    Done,
}

impl Progress {
    /// Read a stored value (`done` or a step index); anything else is
    /// [`Progress::New`].
    pub fn parse(v: Option<&str>) -> Progress {
        match v.map(str::trim) {
            Some("done") => Progress::Done,
            Some(n) => n.parse().map_or(Progress::New, Progress::At),
            None => Progress::New,
        }
    }

    /// The stored value (`None` for [`Progress::New`]).
    pub fn value(self) -> Option<String> {
        match self {
            Progress::New => None,
            Progress::At(i) => Some(i.to_string()),
            Progress::Done => Some("done".to_string()),
        }
    }

    /// The further of two: done beats any step, a later step an earlier.
    pub fn max(self, other: Progress) -> Progress {
        match (self, other) {
            (Progress::Done, _) | (_, Progress::Done) => Progress::Done,
            (Progress::At(a), Progress::At(b)) => Progress::At(a.max(b)),
            (Progress::At(a), Progress::New) | (Progress::New, Progress::At(a)) => Progress::At(a),
            (Progress::New, Progress::New) => Progress::New,
        }
    }
}

/// The `localStorage` key of a lesson's progress.
pub fn progress_key(id: &str) -> String {
    format!("kcsim.lesson.{id}")
}

/// What the learner does in lesson mode.
#[derive(Debug, Clone, PartialEq)]
pub enum LessonMsg {
    /// Open a lesson at its start (its scenario, at `start_ms`).
    Open(Rc<Lesson>, Origin),
    /// Open a lesson and go through its "show me" path up to this step
    /// (continuing where the learner left off).
    Continue(Rc<Lesson>, Origin, usize),
    /// Go on to the next step (or finish the lesson).
    Next,
    /// Do the step's "show me" actions now, then play until the checkpoint
    /// holds.
    ShowMe,
    /// Back one step, to the moment it started.
    Back,
    /// Back to the moment the last checkpoint passed.
    Rewind,
    /// Start the lesson again.
    Restart,
    /// Leave lesson mode (the cluster stays as it is).
    Leave,
    /// Presentation mode on or off.
    SetPresent(bool),
}

/// The built-in scenario id a lesson's scenario is shown under (the
/// default cluster for a scenario written into the lesson).
pub fn scenario_id(lesson: &Lesson) -> &'static str {
    match &lesson.start {
        Start::BuiltIn(n) => SCENARIOS
            .iter()
            .find(|b| b.id == n.as_str())
            .map_or("default", |b| b.id),
        Start::Inline(_) => "default",
    }
}

/// The lesson's scenario at its `start_ms`, nobody having acted.
pub fn start_state(lesson: &Lesson) -> SimState {
    SimState::from_scenario(&lesson.scenario(), scenario_id(lesson), lesson.start_ms)
}

fn now(s: &SimState) -> At {
    At {
        t_ms: s.now_ms(),
        acts: s.user_acts().len(),
    }
}

/// Keep the learner's playback settings across a rebuilt state.
fn keep_settings(from: &SimState, mut to: SimState) -> SimState {
    to.speed = from.speed;
    to.follow = from.follow;
    to.present = from.present;
    to.marks = from.marks.clone();
    to.playing = false;
    to
}

/// The state at moment `at` of the lesson `s` is following: the lesson's
/// scenario with the first `at.acts` user actions replayed, at `at.t_ms`.
fn rebuild(s: &SimState, lesson: &Lesson, at: At) -> SimState {
    let acts: Vec<(usize, UserAct)> = s
        .user_acts()
        .iter()
        .take(at.acts)
        .cloned()
        .enumerate()
        .collect();
    let mut problems = Vec::new();
    let mut n = keep_settings(
        s,
        start_state(lesson).replay(acts, Some(at.t_ms), &mut problems),
    );
    if !problems.is_empty() {
        n.error = Some(problems.join("; ").into());
    }
    n
}

fn with_run(mut s: SimState, run: LessonRun) -> SimState {
    s.lesson = Some(Rc::new(run));
    s
}

/// Apply a lesson message.
pub fn apply(s: &SimState, m: LessonMsg) -> SimState {
    let run = s.lesson.as_deref();
    match (m, run) {
        (LessonMsg::SetPresent(present), _) => {
            let mut n = s.clone();
            n.present = present;
            n
        }
        (LessonMsg::Open(lesson, origin), _) => {
            let n = keep_settings(s, start_state(&lesson));
            let at = now(&n);
            let n = with_run(n, LessonRun::new(lesson, origin, at));
            after(s, n)
        }
        (LessonMsg::Continue(lesson, origin, step), _) => fast_forward(s, lesson, origin, step),
        (LessonMsg::Leave, _) => {
            let mut n = s.clone();
            n.lesson = None;
            n
        }
        (_, None) => s.clone(),
        (LessonMsg::Restart, Some(r)) => {
            apply(s, LessonMsg::Open(r.lesson.clone(), r.origin.clone()))
        }
        (LessonMsg::Next, Some(r)) if r.can_next() => {
            let mut r = r.clone();
            if r.step + 1 < r.lesson.steps.len() {
                r.step += 1;
                r.forget_from(r.step);
                r.moments[r.step].started = Some(now(s));
            } else {
                r.done = true;
            }
            after(s, with_run(s.clone(), r))
        }
        (LessonMsg::ShowMe, Some(r)) if !r.done && !r.passed() => {
            let mut n = s.clone();
            let actions = match r.current().actions_now(s.view().controller) {
                Ok(a) => a,
                Err(_) => {
                    n.error = Some(crate::notice::PageError::NoController);
                    return n;
                }
            };
            for a in actions {
                n = n.apply(Msg::Act(a));
                if n.error.is_some() {
                    return n;
                }
            }
            let passed = n.lesson.as_deref().is_some_and(LessonRun::passed);
            n.playing = !passed;
            n
        }
        (LessonMsg::Back, Some(r)) if r.done => {
            let mut r = r.clone();
            r.done = false;
            with_run(s.clone(), r)
        }
        (LessonMsg::Back, Some(r)) if r.step == 0 => apply(s, LessonMsg::Restart),
        (LessonMsg::Back, Some(r)) => {
            let k = r.step - 1;
            match r.moments[k].started {
                Some(at) => {
                    let mut r = r.clone();
                    r.step = k;
                    r.forget_from(k);
                    r.moments[k].started = Some(at);
                    after(s, with_run(rebuild(s, &r.lesson, at), r))
                }
                // Not known (the lesson opened from a link at a later step):
                // the "show me" path up to that step.
                None => fast_forward(s, r.lesson.clone(), r.origin.clone(), k),
            }
        }
        (LessonMsg::Rewind, Some(r)) => match r.last_checkpoint() {
            Some((j, at)) => {
                let mut r = r.clone();
                let started = r.moments[j].started;
                r.step = j;
                r.done = false;
                r.forget_from(j);
                r.moments[j] = StepMoments {
                    started,
                    passed: Some(at),
                };
                with_run(rebuild(s, &r.lesson, at), r)
            }
            None => s.clone(),
        },
        (LessonMsg::Next | LessonMsg::ShowMe, Some(_)) => s.clone(),
    }
}

/// After any change but a playback tick: the presentation mode carries
/// over, and when the current step's checkpoint holds for the first time it
/// is marked passed (now, with the actions taken so far) and playback
/// pauses there. (A tick tests the checkpoint itself, at the moments the
/// core's [`kcsim_core::lesson::Probe`] tests: [`pending`], [`pass`].)
pub fn after(prev: &SimState, mut next: SimState) -> SimState {
    next.present = prev.present;
    let Some(c) = pending(&next) else {
        return next;
    };
    if next.with_trace(|t| c.holds(next.view(), t)) {
        next = pass(next);
    }
    next
}

/// The checkpoint the current step waits for, if it has one not yet passed.
pub fn pending(s: &SimState) -> Option<&Condition> {
    s.lesson
        .as_deref()
        .filter(|r| !r.done && !r.passed())
        .and_then(|r| r.current().checkpoint.as_ref())
}

/// Mark the current step's checkpoint passed now, and pause.
pub fn pass(mut s: SimState) -> SimState {
    if let Some(run) = &s.lesson {
        let mut r = (**run).clone();
        r.moments[r.step].passed = Some(now(&s));
        s.lesson = Some(Rc::new(r));
        s.playing = false;
    }
    s
}

/// Open `lesson` and follow its "show me" path up to step `to` (each step's
/// actions, then time until its checkpoint holds, tested where playback and
/// `kcsim lesson check` test it, or its `within_ms` runs out, then Next).
/// Stops early at a step that does not pass.
pub fn fast_forward(s: &SimState, lesson: Rc<Lesson>, origin: Origin, to: usize) -> SimState {
    let mut n = apply(s, LessonMsg::Open(lesson, origin));
    loop {
        let Some(r) = n.lesson.clone() else { return n };
        if r.step >= to || r.done {
            break;
        }
        // A step without a checkpoint is acted on, not waited for (as the
        // core's `lesson::play` does).
        if r.current().checkpoint.is_none() {
            if !r.current().show_me.is_empty() {
                n = apply(&n, LessonMsg::ShowMe);
                n.playing = false;
            }
        } else if !r.passed() {
            n = apply(&n, LessonMsg::ShowMe);
            if n.error.is_none() {
                // Time in one go to where the checkpoint first holds (the
                // moments playback tests: `Probe`), or to `within_ms`.
                let deadline = n.now_ms().saturating_add(r.current().within_ms);
                n = n.probe_to(deadline);
            }
        }
        let before = n.lesson.as_deref().map(|r| r.step);
        n = apply(&n, LessonMsg::Next);
        if n.lesson.as_deref().map(|r| r.step) == before {
            break;
        }
    }
    n.playing = false;
    n
}

#[cfg(test)]
mod tests;
