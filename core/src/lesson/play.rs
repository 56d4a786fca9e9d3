//! Playing a lesson's "show me" path headless: what `kcsim lesson check`
//! does, and what the page does when the learner presses "show me" at every
//! step. Each step's actions are done at the current moment (after
//! everything already at that moment, keeping the scenario's later actions,
//! as the page does at the live edge); then time runs in small slices until
//! the checkpoint holds, or the step's `within_ms` runs out.

use super::Lesson;
use crate::time::SimTime;
use crate::timeline::Timeline;
use crate::view::ClusterView;
use std::fmt;

/// How far time runs between two checks of a checkpoint (virtual ms): the
/// page checks on every tick, which at 1× is 50 ms.
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
                loop {
                    // The view is costly in a large cluster: built only
                    // when the condition reads it.
                    let fresh;
                    let view = if c.reads_view() {
                        fresh = ClusterView::of(tl.sim());
                        &fresh
                    } else {
                        &stale
                    };
                    if c.holds(view, tl.trace()) {
                        break Some(tl.now().as_ms());
                    }
                    if tl.now().as_ms() >= deadline {
                        return Err(PlayError::NotReached {
                            step: i,
                            from_ms: now.as_ms(),
                            until_ms: tl.now().as_ms(),
                        });
                    }
                    tl.seek(SimTime(tl.now().as_ms() + SLICE_MS));
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
