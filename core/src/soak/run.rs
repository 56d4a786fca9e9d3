//! The runner: a schedule stepped through with a check after every step,
//! then "faults stop" — an operator heals what is still degraded — and a
//! bound of quiet virtual time, after which the liveness checks run.

use crate::action::Action;
use crate::broker::BrokerStatus;
use crate::fact::Fact;
use crate::scenario::Scenario;
use crate::sim::Sim;
use crate::time::SimTime;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Something a check found wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The property that failed (an invariant's name, `panic`, …).
    pub property: String,
    /// When, in ms of virtual time.
    pub time_ms: u64,
    /// What was wrong.
    pub detail: String,
}

/// A check the runner calls: after every step (safety) and once after the
/// quiet period (liveness). `kcsim_core::observer::Observer` plugs in here
/// (its `after_step`, `liveness` and `liveness_bound_ms`).
pub trait Check {
    /// After every step of the simulation.
    fn after_step(&mut self, sim: &Sim) -> Vec<Finding>;
    /// Once, when the faults have stopped and the quiet period is over.
    fn after_quiet(&mut self, sim: &Sim) -> Vec<Finding>;
    /// How long the quiet period lasts, in ms of virtual time from the
    /// moment the faults stop.
    fn liveness_bound_ms(&self, _sim: &Sim) -> u64 {
        DEFAULT_LIVENESS_BOUND_MS
    }
}

/// The quiet period when a check does not say: two minutes of virtual time,
/// longer than a session timeout (up to 18 s here), a controlled shutdown's
/// retries (3 × 5 s back-off plus the 30 s socket timeout) and a broker's
/// restart together.
pub const DEFAULT_LIVENESS_BOUND_MS: u64 = 120_000;

/// The observer outside `Sim` ([`crate::observer`]) as a soak check: safety
/// after every step from what an operator can read, liveness once the faults
/// stop, over the observer's own bound.
#[derive(Debug)]
pub struct ObserverChecks(crate::observer::Observer);

impl ObserverChecks {
    /// For a new simulation.
    pub fn new(sim: &Sim) -> ObserverChecks {
        ObserverChecks(crate::observer::Observer::new(sim))
    }
}

fn finding_of(f: crate::observer::Finding) -> Finding {
    Finding {
        property: f.property.to_string(),
        time_ms: f.time_ms,
        detail: f.detail,
    }
}

impl Check for ObserverChecks {
    fn after_step(&mut self, sim: &Sim) -> Vec<Finding> {
        self.0.after_step(sim).into_iter().map(finding_of).collect()
    }

    fn after_quiet(&mut self, sim: &Sim) -> Vec<Finding> {
        self.0.liveness(sim).into_iter().map(finding_of).collect()
    }

    fn liveness_bound_ms(&self, sim: &Sim) -> u64 {
        crate::observer::liveness_bound_ms(sim)
    }
}

/// Every check a soak run makes: the simulator's own ([`SimChecks`]) and the
/// observer's ([`ObserverChecks`]), the quiet period the longer of theirs.
#[derive(Debug)]
pub struct AllChecks {
    sim: SimChecks,
    observer: ObserverChecks,
}

impl AllChecks {
    /// For a new simulation.
    pub fn new(sim: &Sim) -> AllChecks {
        AllChecks {
            sim: SimChecks::new(sim),
            observer: ObserverChecks::new(sim),
        }
    }
}

impl Check for AllChecks {
    fn after_step(&mut self, sim: &Sim) -> Vec<Finding> {
        let mut found = self.sim.after_step(sim);
        found.extend(self.observer.after_step(sim));
        found
    }

    fn after_quiet(&mut self, sim: &Sim) -> Vec<Finding> {
        let mut found = self.sim.after_quiet(sim);
        found.extend(self.observer.after_quiet(sim));
        found
    }

    fn liveness_bound_ms(&self, sim: &Sim) -> u64 {
        self.sim
            .liveness_bound_ms(sim)
            .max(self.observer.liveness_bound_ms(sim))
    }
}

/// The checks available inside the core today: the simulator's own
/// invariants ([`Sim::violations`], new ones after every step) and two
/// liveness checks once the faults stop (every running broker knows the one
/// controller `/controller` names; no broker is stuck shutting down). The
/// observer (outside `Sim`) replaces or joins it.
///
/// A watch notification lost on the wire (`drop_message`) leaves its
/// broker's view stale until something else makes it read the znode again,
/// as in Kafka, whose watches are one-shot and set again only by the read
/// that handles the notification. (Real ZooKeeper does not lose a
/// notification inside a session, so this is a fault beyond ZooKeeper's own
/// failure modes.) A broker's stale belief about the controller after it
/// lost a `/controller` notification is therefore not a finding; the
/// operator's healing bounces such brokers once the faults stop, and the
/// liveness checks hold them to agreement after that.
///
/// Records of a topic an operator asked to delete carry no promise: a
/// deletion stopped halfway (its `/admin/delete_topics` znode deleted by
/// hand) leaves replicas whose logs are already gone, and a later leader
/// among them has lost what was acknowledged, in Kafka as here. Losses and
/// high-watermark drops in such topics are not findings.
///
/// A partition state an operator wrote by hand (`set_znode` on
/// `/brokers/topics/<t>/partitions/<p>/state`) carries the leader epoch the
/// operator read, which the controller may have raised since: a leader
/// epoch going down there is the operator's doing, not a finding.
#[derive(Debug, Default)]
pub struct SimChecks {
    seen: usize,
    read: usize,
    lost_controller_watch: bool,
    deleted_topics: std::collections::BTreeSet<String>,
    hand_written_states: std::collections::BTreeSet<String>,
}

/// `t-p` for `/brokers/topics/<t>/partitions/<p>/state`.
fn state_path_partition(path: &str) -> Option<String> {
    let rest = path.strip_prefix("/brokers/topics/")?;
    let (topic, rest) = rest.split_once("/partitions/")?;
    let p = rest.strip_suffix("/state")?;
    Some(format!("{topic}-{p}"))
}

impl SimChecks {
    /// For a new simulation.
    pub fn new(_sim: &Sim) -> SimChecks {
        SimChecks::default()
    }
}

impl SimChecks {
    /// A data-plane violation ("<topic>-<partition>: …") in a topic an
    /// operator asked to delete.
    fn in_deleted_topic(&self, v: &crate::invariants::Violation) -> bool {
        use crate::invariants::{HIGH_WATERMARK_MONOTONIC_CLEAN, NO_ACKED_RECORD_LOST_CLEAN};
        if v.invariant != NO_ACKED_RECORD_LOST_CLEAN
            && v.invariant != HIGH_WATERMARK_MONOTONIC_CLEAN
        {
            return false;
        }
        let tp = v.detail.split(':').next().unwrap_or("");
        let topic = tp.rsplit_once('-').map_or(tp, |(t, _)| t);
        self.deleted_topics.contains(topic)
    }
}

impl Check for SimChecks {
    fn after_step(&mut self, sim: &Sim) -> Vec<Finding> {
        let trace = sim.trace();
        if trace.len() > self.read {
            for r in trace.iter_from(self.read) {
                match &*r.fact() {
                    Fact::WatchNotificationLost { path, .. }
                        if path == crate::zk_client::paths::CONTROLLER =>
                    {
                        self.lost_controller_watch = true;
                    }
                    Fact::UserAction(Action::DeleteTopic { topic }) => {
                        self.deleted_topics.insert(topic.clone());
                    }
                    Fact::UserAction(Action::SetZnode { path, .. }) => {
                        if let Some(tp) = state_path_partition(path) {
                            self.hand_written_states.insert(tp);
                        }
                    }
                    Fact::UserAction(Action::CreateZnode { path, .. }) => {
                        if let Some(t) = path.strip_prefix("/admin/delete_topics/") {
                            self.deleted_topics.insert(t.to_string());
                        }
                    }
                    _ => {}
                }
            }
            self.read = trace.len();
        }
        let v = sim.violations();
        if v.len() <= self.seen {
            return Vec::new();
        }
        let lost = self.lost_controller_watch;
        let new = v[self.seen..]
            .iter()
            .filter(|v| {
                !(lost && v.invariant == crate::invariants::CONTROLLER_AGREEMENT_WHEN_QUIET)
            })
            .filter(|v| !self.in_deleted_topic(v))
            .filter(|v| {
                !(v.invariant == crate::invariants::LEADER_EPOCH_MONOTONIC
                    && self
                        .hand_written_states
                        .contains(v.detail.split(':').next().unwrap_or("")))
            })
            .map(|v| Finding {
                property: v.invariant.clone(),
                time_ms: v.time_ms,
                detail: v.detail.clone(),
            })
            .collect();
        self.seen = v.len();
        new
    }

    fn after_quiet(&mut self, sim: &Sim) -> Vec<Finding> {
        let now = sim.now().as_ms();
        let mut out = Vec::new();
        // Kafka: KafkaController.elect / ControllerChangeHandler — once
        // faults stop, some broker wins /controller and every running broker
        // learns it through its watch.
        let running: Vec<_> = sim
            .brokers()
            .values()
            .filter(|b| b.status == BrokerStatus::Running)
            .collect();
        if !running.is_empty() {
            let c = sim.controller_id();
            let c_running = c.is_some_and(|c| running.iter().any(|b| b.id == c));
            if !c_running {
                out.push(Finding {
                    property: "liveness: one controller".into(),
                    time_ms: now,
                    detail: format!("/controller names {c:?}, which is not a running broker"),
                });
            } else {
                for b in &running {
                    if b.controller.active_controller_id != c {
                        out.push(Finding {
                            property: "liveness: one controller".into(),
                            time_ms: now,
                            detail: format!(
                                "broker {} believes the controller is {:?}; /controller names {c:?}",
                                b.id, b.controller.active_controller_id
                            ),
                        });
                    }
                }
            }
        }
        // Kafka: KafkaServer.controlledShutdown gives up after its retries
        // and the process exits; a broker never stays in shutdown.
        for b in sim.brokers().values() {
            if b.status == BrokerStatus::ShuttingDown {
                out.push(Finding {
                    property: "liveness: shutdown ends".into(),
                    time_ms: now,
                    detail: format!("broker {} is still shutting down", b.id),
                });
            }
        }
        out
    }
}

/// How the runner runs.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// At most this many steps (a cluster that never lets virtual time pass
    /// is a failure, `runaway`, not a hang).
    pub max_steps: u64,
    /// Heal when the faults stop (restart dead brokers, heal slowed ones)
    /// and check liveness after the quiet period; otherwise stop after the
    /// last action.
    pub heal: bool,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            max_steps: 20_000_000,
            heal: true,
        }
    }
}

/// What a run found.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// What the checks found; the run stops at the first step that finds
    /// anything, so these are the first failures.
    pub findings: Vec<Finding>,
    /// Virtual time at the end, in ms.
    pub end_ms: u64,
    /// Steps taken.
    pub steps: u64,
}

/// What an operator does once the faults stop: start every dead broker
/// (killed, or shut down cleanly) and heal every slowed one. A paused
/// broker wakes on its own; a broker in controlled shutdown finishes it
/// (and stays down: liveness asks only that it does not hang).
///
/// A broker that lost a watch notification is bounced (killed and started
/// again), as an operator restarts a broker with a stale view: its new
/// process reads every znode it watches afresh.
pub fn healing(sim: &Sim) -> Vec<Action> {
    let mut out = Vec::new();
    let mut stale = std::collections::BTreeSet::new();
    for r in sim.trace() {
        if let Fact::WatchNotificationLost { broker, .. } = &*r.fact() {
            stale.insert(*broker);
        }
    }
    for b in sim.brokers().values() {
        if stale.contains(&b.id) && b.status != BrokerStatus::Dead {
            out.push(Action::KillBroker { broker: b.id });
            out.push(Action::StartBroker { broker: b.id });
            continue;
        }
        if sim.slow_lag(b.id) > 0 {
            out.push(Action::HealBroker { broker: b.id });
        }
        if b.status == BrokerStatus::Dead {
            out.push(Action::StartBroker { broker: b.id });
        }
    }
    out
}

/// Run `scenario` with the check `new_check` makes for its simulation.
/// Never panics: a panic in the core is the finding `panic`.
pub fn run<C: Check>(
    scenario: &Scenario,
    new_check: impl Fn(&Sim) -> C,
    opts: &RunOptions,
) -> Outcome {
    let mut out = Outcome::default();
    let result = catch_unwind(AssertUnwindSafe(|| {
        run_inner(scenario, &new_check, opts, &mut out);
    }));
    if let Err(p) = result {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string());
        out.findings.push(Finding {
            property: "panic".into(),
            time_ms: out.end_ms,
            detail: msg,
        });
    }
    out
}

fn run_inner<C: Check>(
    scenario: &Scenario,
    new_check: &impl Fn(&Sim) -> C,
    opts: &RunOptions,
    out: &mut Outcome,
) {
    let mut sim = scenario.build();
    let mut check = new_check(&sim);
    let last = SimTime(scenario.last_action_ms());
    if !steps_until(&mut sim, &mut check, last, opts, out) {
        return;
    }
    if !opts.heal {
        return;
    }
    let stop = last.plus_ms(1);
    for a in healing(&sim) {
        let _ = sim.schedule_action(stop, a);
    }
    let end = stop.plus_ms(check.liveness_bound_ms(&sim));
    if !steps_until(&mut sim, &mut check, end, opts, out) {
        return;
    }
    sim.run_until(end);
    out.end_ms = sim.now().as_ms();
    out.findings.extend(check.after_quiet(&sim));
}

/// Step to `until` (inclusive), checking after every step; false when a
/// check found something or the step budget ran out.
fn steps_until<C: Check>(
    sim: &mut Sim,
    check: &mut C,
    until: SimTime,
    opts: &RunOptions,
    out: &mut Outcome,
) -> bool {
    while sim.next_event_time().is_some_and(|t| t <= until) {
        sim.step();
        out.steps += 1;
        out.end_ms = sim.now().as_ms();
        let found = check.after_step(sim);
        if !found.is_empty() {
            out.findings.extend(found);
            return false;
        }
        if out.steps >= opts.max_steps {
            out.findings.push(Finding {
                property: "runaway".into(),
                time_ms: out.end_ms,
                detail: format!("{} steps without reaching {} ms", out.steps, until.as_ms()),
            });
            return false;
        }
    }
    true
}
