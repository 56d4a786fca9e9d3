//! The timeline: the truth is the seed, the configuration and the list of
//! timed actions; everything else is recomputed from them.
//!
//! Snapshots are taken at boundaries of virtual time (every
//! `interval_ms`, having processed everything strictly before the boundary).
//! Seeking back restores the nearest snapshot at or before the target and
//! replays; intervening at a past time drops the later actions and the later
//! snapshots, adds the new action and recomputes. The number of snapshots is
//! bounded: past [`MAX_SNAPSHOTS`], every other one is dropped and the
//! interval doubles.

use crate::action::Action;
use crate::scenario::Scenario;
use crate::sim::{ActionError, Sim};
use crate::time::SimTime;
use crate::trace::Records;

/// The most snapshots kept at once.
pub const MAX_SNAPSHOTS: usize = 128;
/// How much memory the snapshots may hold at once, in bytes as
/// [`Timeline::snapshot_weight_of`] estimates them: 512 MiB (a browser's
/// WebAssembly has 4 GiB at most). A snapshot shares the chunks of the large
/// per-partition maps ([`crate::cow_map`]) with the one before it, so it
/// weighs what it copies whole (about [`BYTES_PER_BROKER`] a broker and
/// [`BYTES_PER_PARTITION`] a partition) plus the chunks that changed since
/// the snapshot before it. A small cluster keeps [`MAX_SNAPSHOTS`]; one of
/// 200,000 partitions at RF 3 that changes little between snapshots about
/// thirty (`kcsim bench`'s `snapshots_in_budget`; each really holds 6 to
/// 25 MiB there, so the estimate still errs on the side of memory); seeking
/// back replays longer instead of running out of memory.
pub const SNAPSHOT_BUDGET: usize = 512 << 20;
/// What a copy of the simulation copies whole, per broker, in bytes: what
/// does not grow with the partitions (each broker's controller, client and
/// fetcher state, the data plane's per-pair sessions). Measured with a
/// counting allocator (docs/benchmarks.md, session 11): a clone of a settled
/// 100-broker cluster allocates 3.2 MiB at 20,000 partitions and 1.3 MiB at
/// 200,000 before the topic is created; 32 KiB a broker covers both.
pub const BYTES_PER_BROKER: usize = 32 << 10;
/// What a copy of the simulation copies whole, per partition, in bytes
/// (measured with a counting allocator, session 11: a clone of the
/// 100-broker, 200,000-partition cluster allocates 5.7 to 7.2 MiB settled
/// and 12.2 MiB at most, during the start-up's creation event: 64 B a
/// partition covers it with [`BYTES_PER_BROKER`]). Was 420 before the
/// controller's context and ZooKeeper's pending changes were shared chunk
/// by chunk: 80 MiB a snapshot where 7 were copied.
pub const BYTES_PER_PARTITION: usize = 64;
/// What an entry of a shared per-partition map (a znode, a hosted replica,
/// a replica log…) weighs in a chunk a snapshot does not share, in bytes
/// (an average: a znode with its path and data about 200, a log 70; a
/// snapshot of the 200,000 start-up at 78 to 89 s, when 100,000 to 190,000
/// entries a second change, holds about 100 each).
pub const BYTES_PER_ENTRY: usize = 120;
/// What a change ZooKeeper's observers do not see yet weighs in a copy, in
/// bytes per [`crate::sim::Sim::zk_unshared_pending`] entry (measured with a
/// counting allocator, session 11: 102 MiB for 388,000 paths' before-images
/// and 2 × 54,321 moments' path lists at 22.5 s of the 100-broker,
/// 200,000-partition start-up, 215 B an entry).
pub const BYTES_PER_PENDING: usize = 220;
/// The first snapshot interval.
pub const DEFAULT_INTERVAL_MS: u64 = 1_000;

#[derive(Debug, Clone)]
struct Snapshot {
    /// The state after everything strictly before `sim.now()`, trace taken out.
    sim: Sim,
    /// How long the trace was at that moment.
    trace_len: usize,
    /// Its weight against the budget ([`Timeline::snapshot_weight`]).
    weight: usize,
}

/// A replayable run.
#[derive(Debug)]
pub struct Timeline {
    actions: Vec<(SimTime, Action)>,
    snapshots: Vec<Snapshot>,
    interval_ms: u64,
    /// [`SNAPSHOT_BUDGET`], unless changed.
    snapshot_budget: usize,
    sim: Sim,
    trace: Records,
    /// Each intervention: its time, and the later actions it dropped.
    undo_stack: Vec<(SimTime, Vec<(SimTime, Action)>)>,
    /// Snapshots let go of and not yet freed: [`Timeline::run_within`]
    /// frees them one per piece of its work (at 200,000 partitions freeing
    /// one takes milliseconds, and half the snapshots go at once).
    retired: Vec<Sim>,
}

/// A copy holds no snapshot let go of (the original frees its own): a
/// copy of a timeline an hour long held hundreds of copies of the cluster
/// only to free them at its first seek.
impl Clone for Timeline {
    fn clone(&self) -> Timeline {
        Timeline {
            actions: self.actions.clone(),
            snapshots: self.snapshots.clone(),
            interval_ms: self.interval_ms,
            snapshot_budget: self.snapshot_budget,
            sim: self.sim.clone(),
            trace: self.trace.clone(),
            undo_stack: self.undo_stack.clone(),
            retired: Vec::new(),
        }
    }
}

/// `t`, or the latest moment a timeline runs to (the last action's latest
/// time plus a minute) if `t` is later.
fn within_reach(t: SimTime) -> SimTime {
    SimTime(t.as_ms().min(crate::scenario::MAX_TIME_MS + 60_000))
}

impl Timeline {
    /// A timeline at time 0 for this scenario.
    pub fn new(scenario: &Scenario) -> Timeline {
        let sim = scenario.build();
        let mut t = Timeline {
            actions: scenario.actions.clone(),
            snapshots: Vec::new(),
            interval_ms: DEFAULT_INTERVAL_MS,
            snapshot_budget: SNAPSHOT_BUDGET,
            sim,
            trace: Records::new(),
            undo_stack: Vec::new(),
            retired: Vec::new(),
        };
        t.snapshot();
        t
    }

    /// The simulation at the current time.
    pub fn sim(&self) -> &Sim {
        &self.sim
    }

    /// Now.
    pub fn now(&self) -> SimTime {
        self.sim.now()
    }

    /// The actions, in order.
    pub fn actions(&self) -> &[(SimTime, Action)] {
        &self.actions
    }

    /// Whether there is an intervention to undo.
    pub fn can_undo(&self) -> bool {
        !self.undo_stack.is_empty()
    }

    /// The trace up to now.
    pub fn trace(&self) -> &Records {
        &self.trace
    }

    /// How many snapshots are held.
    pub fn snapshot_count(&self) -> usize {
        self.snapshots.len()
    }

    /// How many snapshots were let go of and are not yet freed (playback
    /// frees one per piece of its work).
    pub fn retired_count(&self) -> usize {
        self.retired.len()
    }

    fn collect_trace(&mut self) {
        let new = self.sim.take_trace();
        self.trace.extend(new);
    }

    fn snapshot(&mut self) {
        self.collect_trace();
        let now = self.sim.now();
        if self.snapshots.last().is_some_and(|s| s.sim.now() >= now) {
            return;
        }
        let weight = Self::snapshot_weight_of(&self.sim, self.snapshots.last().map(|s| &s.sim));
        self.snapshots.push(Snapshot {
            sim: self.sim.clone(),
            trace_len: self.trace.len(),
            weight,
        });
        while self.snapshots.len() > 2 && self.over_budget() {
            // Keep the first (time 0) and every other one after it; the
            // others are freed later, a piece at a time.
            let all = std::mem::take(&mut self.snapshots);
            for (i, s) in all.into_iter().enumerate() {
                if i % 2 == 0 {
                    self.snapshots.push(s);
                } else {
                    self.retired.push(s.sim);
                }
            }
            self.interval_ms = self.interval_ms.saturating_mul(2);
            self.reweigh();
        }
    }

    fn over_budget(&self) -> bool {
        self.snapshots.len() > MAX_SNAPSHOTS || self.snapshot_weight() > self.snapshot_budget
    }

    /// Weigh every snapshot again against the one before it (after some
    /// were dropped, a snapshot shares less with its new predecessor).
    fn reweigh(&mut self) {
        for i in 0..self.snapshots.len() {
            let prev = i.checked_sub(1).and_then(|p| self.snapshots.get(p));
            let w = Self::snapshot_weight_of(&self.snapshots[i].sim, prev.map(|p| &p.sim));
            self.snapshots[i].weight = w;
        }
    }

    /// What a snapshot of `sim` holds in memory beside `previous` (the
    /// snapshot before it), estimated in bytes: what a clone copies whole,
    /// [`BYTES_PER_BROKER`] a broker and [`BYTES_PER_PARTITION`] a partition, plus [`BYTES_PER_ENTRY`] for each
    /// entry of the shared per-partition maps in a chunk `previous` does not
    /// share (all of them without `previous`), plus [`BYTES_PER_PENDING`] for
    /// each entry of ZooKeeper's changes not yet visible, counted the same way.
    pub fn snapshot_weight_of(sim: &Sim, previous: Option<&Sim>) -> usize {
        BYTES_PER_BROKER
            .saturating_mul(sim.brokers().len())
            .saturating_add(BYTES_PER_PARTITION.saturating_mul(sim.partition_count().max(1)))
            .saturating_add(BYTES_PER_ENTRY.saturating_mul(sim.unshared_entries(previous)))
            .saturating_add(BYTES_PER_PENDING.saturating_mul(sim.zk_unshared_pending(previous)))
    }

    /// Let the snapshots weigh at most `budget` (see [`SNAPSHOT_BUDGET`]);
    /// applies from the next snapshot.
    pub fn set_snapshot_budget(&mut self, budget: usize) {
        self.snapshot_budget = budget;
    }

    /// What the snapshots weigh together, in estimated bytes (see
    /// [`Timeline::snapshot_weight_of`]).
    pub fn snapshot_weight(&self) -> usize {
        self.snapshots.iter().map(|s| s.weight).sum()
    }

    /// Run forward to `until`, snapshotting at interval boundaries.
    fn advance(&mut self, until: SimTime) {
        // (Playback frees these a piece at a time; other ways forward at once,
        // as they let go of them: a seek an hour ahead halves the snapshots
        // several times, and keeping every one it let go of until its end
        // held them all, hundreds of copies.)
        self.retired.clear();
        self.snapshots_before(until, false);
        self.sim.run_until(until);
        self.collect_trace();
    }

    /// Run forward to each interval boundary up to `until` (everything
    /// strictly before it), snapshotting there. The snapshots let go of on
    /// the way are kept to be freed piece by piece when `playing`, else
    /// freed at once.
    fn snapshots_before(&mut self, until: SimTime, playing: bool) {
        // A snapshot holds whole steps.
        self.sim.finish_step();
        loop {
            let last = self.snapshots.last().map_or(0, |s| s.sim.now().as_ms());
            let boundary = SimTime(last.saturating_add(self.interval_ms));
            if boundary > until || boundary.as_ms() <= last {
                break;
            }
            self.sim.run_before(boundary);
            self.snapshot();
            if !playing {
                self.retired.clear();
            }
        }
    }

    /// Process exactly one more action or event (if any). Returns false when
    /// nothing is left.
    pub fn step(&mut self) -> bool {
        let Some(t) = self.sim.next_event_time() else {
            return false;
        };
        if t > self.sim.now() {
            self.advance(SimTime(t.as_ms() - 1));
        }
        let stepped = self.sim.step();
        self.collect_trace();
        stepped
    }

    /// Go to time `t`: forward by running, backward by restoring a snapshot
    /// and replaying. Going back and forth gives identical states.
    pub fn seek(&mut self, t: SimTime) {
        let t = within_reach(t);
        if t < self.sim.now() {
            self.restore(t);
        }
        self.advance(t);
    }

    /// Run forward towards `t` one event at a time, asking `more` before
    /// each one after the first whether to go on: the page's playback
    /// passes a wall clock deadline here, so that a burst of events is
    /// spread over several frames instead of freezing one (the core reads no
    /// clock; the driver decides). At a large cluster one millisecond can
    /// hold a hundred fetch rounds of a broker that just started, tens of
    /// milliseconds of work together, so it may stop between two events of
    /// one millisecond too, as [`Timeline::step`] does. A long controller
    /// event (a failover) is run by pieces ([`Sim::step_piece`]), `more`
    /// asked before each. Returns true when `t` was reached; false when
    /// `more` said stop: between two events (the clock at the last one's
    /// time, perhaps with events of that millisecond left) or in the middle
    /// of a step ([`Sim::mid_step`]). Where it stops does not change what
    /// happens: running on later gives the same trace and state as one
    /// [`Timeline::seek`]. Backward (`t` before now) it is
    /// [`Timeline::seek`].
    pub fn run_within(&mut self, t: SimTime, more: &mut dyn FnMut() -> bool) -> bool {
        let t = within_reach(t);
        if t < self.sim.now() {
            self.seek(t);
            return true;
        }
        let mut first = true;
        loop {
            if !self.retired.is_empty() {
                // A snapshot let go of, freed as a piece of work.
                if !first && !more() {
                    return false;
                }
                first = false;
                self.retired.pop();
                continue;
            }
            let n = if self.sim.mid_step() {
                self.sim.now()
            } else {
                match self.sim.next_event_time().filter(|n| *n <= t) {
                    Some(n) => n.max(self.sim.now()),
                    None => break,
                }
            };
            if !first && !more() {
                return false;
            }
            first = false;
            if !self.sim.mid_step() {
                // The snapshots due before `n`, as `advance` takes them.
                self.snapshots_before(n, true);
            }
            // The events at `n`, by pieces: after a piece that left its
            // step unfinished, and between two events, ask `more`.
            let mut stop = false;
            while self.sim.next_event_time().is_some_and(|e| e <= n) {
                self.sim.step_piece();
                if self.sim.mid_step() {
                    break;
                }
                if self.sim.next_event_time().is_some_and(|e| e <= n) && !more() {
                    stop = true;
                    break;
                }
            }
            if !stop && !self.sim.mid_step() {
                self.sim.run_until(n);
            }
            self.collect_trace();
            if stop {
                return false;
            }
        }
        self.advance(t);
        true
    }

    /// Whether a step stopped between pieces ([`Sim::mid_step`]): the page
    /// then keeps what it drew at the last whole step.
    pub fn mid_step(&self) -> bool {
        self.sim.mid_step()
    }

    fn restore(&mut self, t: SimTime) {
        let idx = self
            .snapshots
            .iter()
            .rposition(|s| s.sim.now() <= t)
            .unwrap_or(0);
        if let Some(s) = self.snapshots.get(idx) {
            self.sim = s.sim.clone();
            self.trace.truncate(s.trace_len);
            // A snapshot taken before an intervention holds the actions
            // pending then: give it the current ones.
            self.reschedule();
        }
    }

    /// Act at time `at` (now or in the past): every action after `at` is
    /// dropped, the new one is added, and the run is recomputed to `at`.
    pub fn intervene(&mut self, at: SimTime, action: Action) -> Result<(), ActionError> {
        self.act(at, action, true)
    }

    /// Act at time `at` and keep the scripted actions after it (acting at
    /// the live edge of a scenario that still has steps to come).
    pub fn insert(&mut self, at: SimTime, action: Action) -> Result<(), ActionError> {
        self.act(at, action, false)
    }

    fn act(&mut self, at: SimTime, action: Action, drop_later: bool) -> Result<(), ActionError> {
        // Validate against the current cluster before changing anything:
        // every way in (page buttons, console, lessons, links) comes here.
        self.sim.check_new_action(at, &action)?;
        if self.actions.len() >= crate::scenario::MAX_ACTIONS {
            return Err(ActionError::TooManyActions {
                limit: crate::scenario::MAX_ACTIONS,
            });
        }
        // At the present nothing needs recomputing: the action comes after
        // everything at `at` ([`Sim::step`]), and the simulation holds what a
        // replay to `at` would (the rest of `at`, if playback stopped between
        // two of its events, runs before the action either way); only its
        // pending actions change. In the past (or ahead), the run is
        // recomputed from the snapshot before `at`. (That replay cost
        // 64-74 ms natively at 100 x 200,000, most of a kill -9 click's.)
        let live = at == self.sim.now();
        if live {
            // Checked above, and `at` is not in the past: this cannot fail,
            // and it fails before anything changed if it does.
            self.sim.schedule_action(at, action.clone())?;
        }
        let dropped: Vec<(SimTime, Action)> = if drop_later {
            let d = self
                .actions
                .iter()
                .filter(|(t, _)| *t > at)
                .cloned()
                .collect();
            self.actions.retain(|(t, _)| *t <= at);
            if live {
                self.sim.drop_pending_actions_after(at);
            }
            d
        } else {
            Vec::new()
        };
        // After every action already at `at`, before any later one.
        let pos = self
            .actions
            .iter()
            .position(|(t, _)| *t > at)
            .unwrap_or(self.actions.len());
        self.actions.insert(pos, (at, action));
        self.undo_stack.push((at, dropped));
        self.snapshots.retain(|s| s.sim.now() <= at);
        if !live {
            self.restore(at);
        }
        self.advance(at);
        Ok(())
    }

    /// Take back the last intervention: the run is recomputed without it and
    /// with the actions it had dropped, and the time stays where it is.
    /// `None` when there is nothing to undo.
    pub fn undo(&mut self) -> Option<(SimTime, Action)> {
        let (at, dropped) = self.undo_stack.pop()?;
        let idx = self.actions.iter().rposition(|(t, _)| *t == at)?;
        let last = self.actions.remove(idx);
        self.actions.extend(dropped);
        crate::sort::sort_by_key(&mut self.actions, |(t, _)| *t);
        let now = self.sim.now();
        self.snapshots.retain(|s| s.sim.now() <= last.0);
        self.restore(last.0);
        self.advance(now);
        Some(last)
    }

    /// Give the restored simulation the actions it has not yet applied.
    fn reschedule(&mut self) {
        let from = self.sim.now();
        self.sim.clear_pending_actions();
        for (t, a) in &self.actions {
            if *t >= from {
                // Broker ids were checked when the action was added.
                let _ = self.sim.schedule_action(*t, a.clone());
            }
        }
    }
}
