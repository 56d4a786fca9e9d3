//! Playing a lesson's "show me" path headless: what `kcsim lesson check`
//! does, and what the page does when the learner presses "show me" at every
//! step. Each step's actions are done at the current moment (after
//! everything already at that moment, keeping the scenario's later actions,
//! as the page does at the live edge); then time runs until the checkpoint
//! holds at one of the moments a [`Probe`] tests (the page's playback tests
//! the same moments), or the step's `within_ms` runs out.

use super::{Condition, Lesson};
use crate::time::SimTime;
use crate::timeline::Timeline;
use crate::view::ClusterView;
use std::fmt;

/// How far apart (virtual ms) a checkpoint is tested while time runs: at
/// every multiple of it ([`Probe`]), here and on the page alike.
pub const SLICE_MS: u64 = 10;

/// What became of one step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepOutcome {
    /// The step's index.
    pub step: usize,
    /// When its checkpoint passed (`None`: the step has none).
    pub passed_at_ms: Option<u64>,
}

/// Why a lesson's path failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayError {
    /// A "show me" action was refused.
    Refused {
        /// The step.
        step: usize,
        /// The core's reason.
        reason: String,
    },
    /// The checkpoint already held before "show me" did anything: the step
    /// would teach nothing.
    AlreadyHeld {
        /// The step.
        step: usize,
        /// When.
        at_ms: u64,
    },
    /// The checkpoint did not hold within the step's `within_ms`.
    NotReached {
        /// The step.
        step: usize,
        /// When the step started.
        from_ms: u64,
        /// When the check gave up.
        until_ms: u64,
    },
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayError::Refused { step, reason } => {
                write!(f, "steps[{step}].show_me: refused: {reason}")
            }
            PlayError::AlreadyHeld { step, at_ms } => write!(
                f,
                "steps[{step}].checkpoint: already holds at {at_ms} ms, before \"show me\" acts"
            ),
            PlayError::NotReached {
                step,
                from_ms,
                until_ms,
            } => write!(
                f,
                "steps[{step}].checkpoint: not reached between {from_ms} ms and {until_ms} ms"
            ),
        }
    }
}

impl std::error::Error for PlayError {}

/// Play every step's "show me" and wait for its checkpoint, in order.
/// Returns each step's outcome, or the first failure.
pub fn play(lesson: &Lesson) -> Result<Vec<StepOutcome>, PlayError> {
    let mut tl = Timeline::new(&lesson.scenario());
    tl.seek(SimTime(lesson.start_ms));
    let mut out = Vec::new();
    for (i, step) in lesson.steps.iter().enumerate() {
        let now = tl.now();
        // A `trace` condition does not read the view: it is given this one.
        let stale = ClusterView::of(tl.sim());
        if let Some(c) = &step.checkpoint {
            if !step.show_me.is_empty() && c.holds(&stale, tl.trace()) {
                return Err(PlayError::AlreadyHeld {
                    step: i,
                    at_ms: now.as_ms(),
                });
            }
        }
        let actions =
            step.actions_now(tl.sim().controller_id())
                .map_err(|e| PlayError::Refused {
                    step: i,
                    reason: e.to_string(),
                })?;
        for a in actions {
            let name = a.name();
            tl.insert(now, a).map_err(|e| PlayError::Refused {
                step: i,
                reason: e.to_string(),
            })?;
            // A refusal the core only finds when it acts (a topic that
            // already exists) is in the trace at this moment.
            if let Some(r) = crate::trace::refusal(tl.trace(), now.as_ms(), name) {
                return Err(PlayError::Refused {
                    step: i,
                    reason: r.details(),
                });
            }
        }
        let passed_at_ms = match &step.checkpoint {
            None => None,
            Some(c) => {
                let deadline = now.as_ms().saturating_add(step.within_ms);
                if c.holds(&ClusterView::of(tl.sim()), tl.trace()) {
                    Some(now.as_ms())
                } else {
                    let mut probe = Probe::new(c, &tl);
                    match probe.run(&mut tl, SimTime(deadline), &mut || true, &mut |t| {
                        ClusterView::of(t.sim())
                    }) {
                        Probed::Held(at) => Some(at.as_ms()),
                        Probed::Reached | Probed::Stopped => {
                            return Err(PlayError::NotReached {
                                step: i,
                                from_ms: now.as_ms(),
                                until_ms: tl.now().as_ms(),
                            })
                        }
                    }
                }
            }
        };
        out.push(StepOutcome {
            step: i,
            passed_at_ms,
        });
    }
    Ok(out)
}

/// What [`Probe::run`] came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probed {
    /// Time reached the moment asked for; the checkpoint held at none of
    /// the moments tested on the way.
    Reached,
    /// `more` said stop first (time is somewhere before the moment asked
    /// for; running on later goes on from there).
    Stopped,
    /// The checkpoint held at this moment, where time stopped.
    Held(SimTime),
}

/// A step's checkpoint tested while time runs forward, at every multiple
/// of [`SLICE_MS`] of virtual time, however time is run: in one go here
/// ([`play`]), or in frames of any length on the page, stopped and resumed
/// when a frame's budget runs out. So the moment a checkpoint first holds
/// (where playback pauses, and where the next step starts) does not depend
/// on the machine's speed or the playback's, and a state that holds only
/// briefly (a queue two events deep for a few seconds of a failover) is
/// not run past within one frame.
#[derive(Debug)]
pub struct Probe<'a> {
    condition: &'a Condition,
    /// The last moment tested (or known to be tested by the caller).
    tested_ms: u64,
    /// The view at the last moment tested, while no event has run since.
    view: Option<ClusterView>,
}

impl<'a> Probe<'a> {
    /// A probe of `condition` from where `tl` is: the moments after now,
    /// and now too if events of this moment are left to run (time stopped
    /// between two of them, or in the middle of one). The caller tests the
    /// moment it is at when it is whole.
    pub fn new(condition: &'a Condition, tl: &Timeline) -> Probe<'a> {
        let now = tl.now();
        let unfinished = tl.mid_step() || tl.sim().next_event_time().is_some_and(|e| e <= now);
        Probe {
            condition,
            tested_ms: now.as_ms().saturating_sub(u64::from(unfinished)),
            view: None,
        }
    }

    /// Run `tl` forward to `t` (as [`Timeline::run_within`], asking `more`
    /// between pieces of work), stopping at the first moment tested at
    /// which the condition holds. `view` makes the cluster view the
    /// condition is read against (the page's own picture); it is made only
    /// when the condition reads it and an event ran since the last one.
    pub fn run(
        &mut self,
        tl: &mut Timeline,
        t: SimTime,
        more: &mut dyn FnMut() -> bool,
        view: &mut dyn FnMut(&Timeline) -> ClusterView,
    ) -> Probed {
        let mut first = true;
        loop {
            let next = (self.tested_ms / SLICE_MS + 1).saturating_mul(SLICE_MS);
            if next > t.as_ms() {
                return if tl.run_within(t, more) {
                    Probed::Reached
                } else {
                    Probed::Stopped
                };
            }
            let ran = tl.mid_step()
                || tl
                    .sim()
                    .next_event_time()
                    .is_some_and(|e| e.as_ms() <= next);
            // (A slice with no event to run is no work.)
            if ran && !std::mem::take(&mut first) && !more() {
                return Probed::Stopped;
            }
            if !tl.run_within(SimTime(next), more) {
                return Probed::Stopped;
            }
            self.tested_ms = next;
            // Nothing ran since the last test: the cluster and the trace
            // are as they were, and so is the answer, unless it reads the
            // clock.
            if !ran && self.view.is_some() && !self.condition.reads_time() {
                continue;
            }
            if ran && self.condition.reads_view() {
                self.view = None;
            }
            let v = match &mut self.view {
                Some(v) => {
                    v.time_ms = next;
                    v
                }
                None => self.view.insert(view(tl)),
            };
            if self.condition.holds(v, tl.trace()) {
                return Probed::Held(SimTime(next));
            }
        }
    }
}
