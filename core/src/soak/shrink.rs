//! The shrinker: a failing schedule reduced to a minimal one that still
//! fails. Actions are dropped in chunks (ddmin, Zeller and Hildebrandt
//! 2002) down to single ones, then parameters are simplified: earlier
//! times, smaller counts and durations, fewer topics, partitions, replicas
//! and brokers, default config. Every candidate goes through the scenario
//! file format (written and parsed back), so the result is a valid scenario
//! file and a candidate the format refuses is never tried. Deterministic:
//! candidates are tried in a fixed order.

use crate::action::Action;
use crate::config::Config;
use crate::ids::BrokerId;
use crate::scenario::write::scenario_json;
use crate::scenario::{Placement, Scenario};
use crate::time::SimTime;

/// `scenario` written and parsed back, if the format accepts it.
fn normalized(s: &Scenario) -> Option<Scenario> {
    Scenario::parse(&scenario_json(s)).ok()
}

struct Shrinker<'a> {
    fails: &'a mut dyn FnMut(&Scenario) -> bool,
    budget: usize,
    tries: usize,
}

impl Shrinker<'_> {
    /// True (and counted) when `c` is a valid scenario that still fails.
    fn try_it(&mut self, c: &Scenario) -> Option<Scenario> {
        if self.tries >= self.budget {
            return None;
        }
        let c = normalized(c)?;
        self.tries += 1;
        (self.fails)(&c).then_some(c)
    }

    fn ddmin(&mut self, s: &mut Scenario) -> bool {
        let mut changed = false;
        let mut n = 2usize;
        while !s.actions.is_empty() && self.tries < self.budget {
            let len = s.actions.len();
            let n_now = n.min(len);
            let chunk = len.div_ceil(n_now);
            let mut reduced = false;
            for i in 0..n_now {
                let (lo, hi) = (i * chunk, ((i + 1) * chunk).min(len));
                if lo >= hi {
                    continue;
                }
                let mut c = s.clone();
                c.actions.drain(lo..hi);
                if let Some(c) = self.try_it(&c) {
                    *s = c;
                    changed = true;
                    reduced = true;
                    n = (n_now - 1).max(2);
                    break;
                }
            }
            if !reduced {
                if n_now >= len {
                    break;
                }
                n = (n_now * 2).min(len);
            }
        }
        changed
    }

    /// Try each simpler variant in order; take the first that still fails,
    /// and start over from it. True when anything changed.
    fn simplify(&mut self, s: &mut Scenario) -> bool {
        let mut changed = false;
        'again: while self.tries < self.budget {
            for c in variants(s) {
                if let Some(c) = self.try_it(&c) {
                    if c != *s {
                        *s = c;
                        changed = true;
                        continue 'again;
                    }
                }
            }
            break;
        }
        changed
    }
}

/// A minimal variant of `scenario` for which `fails` still holds, trying at
/// most `budget` candidates. `fails(scenario)` is expected to hold.
pub fn shrink(
    scenario: &Scenario,
    fails: &mut dyn FnMut(&Scenario) -> bool,
    budget: usize,
) -> Scenario {
    let mut s = normalized(scenario).unwrap_or_else(|| scenario.clone());
    let mut sh = Shrinker {
        fails,
        budget,
        tries: 0,
    };
    loop {
        let a = sh.ddmin(&mut s);
        let b = sh.simplify(&mut s);
        if !(a || b) || sh.tries >= sh.budget {
            break;
        }
    }
    s
}

/// Simpler versions of one action (smaller numbers, shorter lists).
fn simpler_actions(a: &Action) -> Vec<Action> {
    let mut out = Vec::new();
    let mut smaller = |v: u64, min: u64, make: &dyn Fn(u64) -> Action| {
        for c in [min, v / 2] {
            if c >= min && c < v {
                out.push(make(c));
            }
        }
    };
    match a {
        Action::PauseBroker {
            broker,
            duration_ms,
        } => smaller(*duration_ms, 1, &|d| Action::PauseBroker {
            broker: *broker,
            duration_ms: d,
        }),
        Action::SlowBroker { broker, lag_ms } => smaller(*lag_ms, 1, &|l| Action::SlowBroker {
            broker: *broker,
            lag_ms: l,
        }),
        Action::DelayMessage { id, delay_ms } => smaller(*delay_ms, 0, &|d| Action::DelayMessage {
            id: *id,
            delay_ms: d,
        }),
        Action::Produce {
            topic,
            partition,
            records,
            acks,
        } => smaller(*records, 1, &|r| Action::Produce {
            topic: topic.clone(),
            partition: *partition,
            records: r,
            acks: *acks,
        }),
        Action::ElectLeaders {
            election_type,
            partitions,
        } if partitions.len() > 1 => {
            for i in 0..partitions.len() {
                let mut p = partitions.clone();
                p.remove(i);
                out.push(Action::ElectLeaders {
                    election_type: *election_type,
                    partitions: p,
                });
            }
        }
        Action::PreferredElection {
            partitions: Some(p),
        } if p.len() > 1 => {
            for i in 0..p.len() {
                let mut q = p.clone();
                q.remove(i);
                out.push(Action::PreferredElection {
                    partitions: Some(q),
                });
            }
        }
        Action::ReassignPartitions { partitions } => {
            for i in 0..partitions.len() {
                if partitions.len() > 1 {
                    let mut p = partitions.clone();
                    p.remove(i);
                    out.push(Action::ReassignPartitions { partitions: p });
                }
                if partitions[i].replicas.len() > 1 {
                    let mut p = partitions.clone();
                    p[i].replicas.pop();
                    out.push(Action::ReassignPartitions { partitions: p });
                }
            }
        }
        Action::CreateTopic {
            name,
            assignment: None,
            partitions: Some(p),
            replication_factor: Some(r),
        } => {
            if *p > 1 {
                out.push(Action::CreateTopic {
                    name: name.clone(),
                    assignment: None,
                    partitions: Some(1),
                    replication_factor: Some(*r),
                });
            }
            if *r > 1 {
                out.push(Action::CreateTopic {
                    name: name.clone(),
                    assignment: None,
                    partitions: Some(*p),
                    replication_factor: Some(1),
                });
            }
        }
        _ => {}
    }
    out
}

/// Every one-step simplification of `s`, cheapest-to-run first.
fn variants(s: &Scenario) -> Vec<Scenario> {
    let mut out = Vec::new();
    // Earlier times: to the previous action's time (or 0), or halfway.
    for i in 0..s.actions.len() {
        let t = s.actions[i].0.as_ms();
        let prev = if i == 0 {
            0
        } else {
            s.actions[i - 1].0.as_ms()
        };
        for c in [prev, prev + (t - prev.min(t)) / 2] {
            if c < t {
                let mut v = s.clone();
                v.actions[i].0 = SimTime(c);
                out.push(v);
            }
        }
    }
    // The lowest broker instead of another.
    if let Some(first) = s.brokers.iter().min().copied() {
        for i in 0..s.actions.len() {
            if s.actions[i].1.broker().is_some_and(|b| b != first) {
                let mut v = s.clone();
                v.actions[i].1.set_broker(first);
                out.push(v);
            }
        }
    }
    // Simpler actions.
    for i in 0..s.actions.len() {
        for a in simpler_actions(&s.actions[i].1) {
            let mut v = s.clone();
            v.actions[i].1 = a;
            out.push(v);
        }
    }
    // Fewer topics, partitions, replicas; no topic config.
    for i in 0..s.topics.len() {
        let mut v = s.clone();
        v.topics.remove(i);
        out.push(v);
        let t = &s.topics[i];
        if !t.config.is_empty() {
            let mut v = s.clone();
            v.topics[i].config.clear();
            out.push(v);
        }
        if let Placement::Count {
            partitions,
            replication_factor,
        } = t.placement
        {
            if partitions > 1 {
                for p in [1, partitions - 1] {
                    let mut v = s.clone();
                    v.topics[i].placement = Placement::Count {
                        partitions: p,
                        replication_factor,
                    };
                    out.push(v);
                }
            }
            if replication_factor > 1 {
                let mut v = s.clone();
                v.topics[i].placement = Placement::Count {
                    partitions,
                    replication_factor: replication_factor - 1,
                };
                out.push(v);
            }
        }
    }
    // Fewer brokers: drop one that nothing names (a topic placed by count
    // must still fit).
    for b in s.brokers.iter().rev() {
        if !names_broker(s, *b) {
            let mut v = s.clone();
            v.brokers.retain(|x| x != b);
            out.push(v);
        }
    }
    // Kafka's default for each config key.
    let defaults = Config::default();
    for k in Config::KEYS {
        if s.config.get(k) != defaults.get(k) {
            if let Some(d) = defaults.get(k) {
                let mut v = s.clone();
                let _ = v.config.set(k, &d);
                out.push(v);
            }
        }
    }
    out
}

/// Whether an action or an explicit assignment names broker `b`.
fn names_broker(s: &Scenario, b: BrokerId) -> bool {
    let in_topics = s.topics.iter().any(|t| match &t.placement {
        Placement::Assignment(a) => a.iter().any(|r| r.contains(&b)),
        Placement::Count { .. } => false,
    });
    in_topics
        || s.actions.iter().any(|(_, a)| match a {
            Action::ReassignPartitions { partitions } => {
                partitions.iter().any(|p| p.replicas.contains(&b))
            }
            Action::CreateTopic {
                assignment: Some(a),
                ..
            } => a.iter().any(|r| r.contains(&b)),
            other => other.broker() == Some(b),
        })
}
