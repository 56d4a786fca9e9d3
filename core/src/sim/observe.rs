//! What an operator can read off the cluster, and the invariants checked
//! against it after every step: the state znodes followed per partition,
//! availability as a client feels it, and the checker's records.

use super::*;
use crate::broker::Broker;
use crate::ids::BrokerId;
use crate::time::SimTime;
use crate::zk_client::paths;

/// The most room a step's list of changed partitions keeps for the next
/// step (a Kafka-scale start-up's would otherwise hold megabytes).
const KEPT_ROOM: usize = 4096;

/// A partition as ZooKeeper and the active controller describe it: the one
/// projection the final-state report (`report::PartitionReport`) and the
/// page's view (`view::PartitionView`) both build on. It serializes as their
/// leading fields: `topic`, `partition`, `state`, `replicas`, `isr`,
/// `leader`, `leader_epoch`, `controller_epoch`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionOverview {
    /// The partition (`topic` and `partition`).
    #[serde(flatten)]
    pub tp: crate::ids::TopicPartition,
    /// The active controller's PartitionStateMachine state for it
    /// (`NonExistentPartition` if no running controller knows it).
    pub state: crate::controller::states::PartitionState,
    /// Assigned replicas from `/brokers/topics/<t>`, preferred first.
    pub replicas: Vec<BrokerId>,
    /// ISR from the state znode (empty without one).
    pub isr: Vec<BrokerId>,
    /// Leader from the state znode, `None` where Kafka writes −1.
    pub leader: Option<BrokerId>,
    /// Leader epoch from the state znode (−1 without one).
    pub leader_epoch: i32,
    /// Controller epoch that wrote the state znode (−1 without one).
    pub controller_epoch: i32,
}

/// Whether a partition has a serving leader, and for how long it has not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Availability {
    /// Some running (or shutting-down) broker serves as its leader.
    pub available: bool,
    /// When `available` last changed.
    pub since: SimTime,
    /// Unavailable time before `since`.
    pub unavailable_ms: u64,
}

impl Sim {
    /// Whether nothing is in progress: no work event pending, no controller
    /// busy or with queued events, no request queued or on the wire, and no
    /// running broker yet to learn that its session expired.
    pub fn is_quiet(&self) -> bool {
        debug_assert_eq!(
            self.work_queued,
            self.queue.values().filter(|e| e.is_work()).count() as u64
        );
        // The cheap checks first: this runs after every step, and while
        // anything is in flight the walk over the brokers' sessions is moot.
        self.work_queued == 0
            && self.stopped.is_none()
            && self.channels.is_empty()
            && self.held.values().all(|(_, h)| h.is_empty())
            && self
                .brokers
                .values()
                .all(|b| b.controller.current.is_none() && b.controller.queue.is_empty())
            && self
                .brokers
                .values()
                .filter(|b| b.is_up())
                .all(|b| b.zk_client.session.is_some_and(|s| self.zk.is_alive(s)))
    }

    pub(super) fn check_invariants(&mut self) {
        let quiet = self.is_quiet();
        let (epoch, controller) = (self.controller_epoch(), self.controller_id());
        self.checker
            .check_controllers(self.now, &self.brokers, epoch, controller, quiet);
    }

    /// Follow the state znodes: which broker each partition's leader is.
    pub(super) fn note_zk_changes(&mut self) {
        let changed = self.zk.take_changed_keys();
        // The topic of the last state znode read off its key: a controller
        // event's writes run topic by topic.
        let mut last: Option<(crate::zk::KeyTopic, crate::ids::Topic)> = None;
        for key in &changed {
            // A partition's path held as numbers: its topic and number
            // without writing the path out and parsing it back.
            if let Some((name, p, state)) = key.as_partition() {
                if !state {
                    continue;
                }
                let topic = match &last {
                    Some((n, t)) if *n == name => t.clone(),
                    _ => {
                        let t = crate::ids::Topic::from(name.as_str());
                        last = Some((name, t.clone()));
                        t
                    }
                };
                self.note_state_change(crate::ids::TopicPartition::new(topic, p), key);
                continue;
            }
            let path = key.text();
            let Some(rest) = path.strip_prefix("/brokers/topics/") else {
                continue;
            };
            let Some((topic, below)) = rest.split_once('/') else {
                // The topic's assignment changed (created, rewritten or deleted).
                let topic = rest;
                let node = self.zk.observed_key(key);
                let gone = node.is_none();
                let decoded = node
                    .and_then(|n| crate::znodes::decode_topic_assignment(&n.data.text()))
                    .map(|a| std::rc::Rc::new(a.into_iter().collect()));
                match decoded {
                    Some(a) => self.assignments.insert(topic.to_string(), a),
                    None => self.assignments.remove(topic),
                };
                if gone {
                    // Deleted: nothing kept per partition outlives the topic.
                    let keep = |tp: &crate::ids::TopicPartition| tp.topic != *topic;
                    self.state_znodes.retain(|tp, _| keep(tp));
                    self.availability_changed.retain(keep);
                    self.data.forget_topic(topic);
                }
                continue;
            };
            // `<topic>/partitions/<p>/state`, nothing more or less.
            let Some(p) = below
                .strip_prefix("partitions/")
                .and_then(|b| b.strip_suffix("/state"))
                .filter(|p| !p.contains('/'))
            else {
                continue;
            };
            let Ok(p) = p.parse::<u32>() else { continue };
            self.note_state_change(crate::ids::TopicPartition::new(topic, p), key);
        }
    }

    /// Follow one partition's state znode (at `key`), changed.
    fn note_state_change(&mut self, tp: crate::ids::TopicPartition, key: &crate::zk::PathKey) {
        let state = self.zk.observed_key(key).and_then(|n| n.partition_state());
        // One search for the record read and then written (its chunk is
        // copied here if shared, as the write would copy it).
        let mut seen = self.state_znodes.get_mut(&tp);
        let last_epoch = seen.as_ref().and_then(|s| s.leader_epoch());
        if let Some(l) = &state {
            let ar = self
                .assignments
                .get(tp.topic.as_str())
                .and_then(|a| a.get(tp.partition));
            // The leader expands the ISR from its own assignment (its
            // last LeaderAndIsr's, Partition.maybeExpandIsr), which a
            // reassignment completed without a leader move leaves old.
            let widened: Option<Vec<crate::ids::BrokerId>> = ar
                .filter(|a| l.isr.iter().any(|r| !a.contains(r)))
                .map(|a| {
                    let mut v = a.to_vec();
                    if let Some(lp) = l
                        .leader
                        .and_then(|b| self.brokers.get(&b))
                        .and_then(|b| b.replicas.get(&tp))
                    {
                        v.extend(lp.replicas().iter().copied());
                    }
                    v
                });
            let ar = widened.as_deref().or(ar);
            self.checker
                .check_partition(self.now, &tp, l, ar, last_epoch);
        }
        let leader = state.as_ref().and_then(|l| l.leader);
        // A state that cannot be read keeps the last epoch read.
        let leader_epoch = state.map(|l| l.leader_epoch).or(last_epoch);
        match seen.take() {
            Some(seen) => {
                seen.set_state(leader, self.now, leader_epoch);
            }
            None => {
                let seen = super::StateSeen::new(leader, self.now, leader_epoch);
                self.state_znodes.insert(tp.clone(), seen);
            }
        }
        self.availability_changed.push(tp);
    }

    /// Recompute which partitions are available: the leader in ZooKeeper is
    /// a broker whose process runs (running or shutting down, not paused or
    /// dead). Unavailable means no leader, or a leader that died, stalled or
    /// exited, which is what a client feels.
    pub(super) fn update_availability(&mut self) {
        if self.availability_dirty {
            return self.update_all_availability();
        }
        let mut changed = std::mem::take(&mut self.availability_changed);
        changed.sort_unstable();
        changed.dedup();
        self.availability_dirty = false;
        let now = self.now;
        let brokers = &self.brokers;
        for tp in changed.drain(..) {
            let Some(seen) = self.state_znodes.get_mut(&tp) else {
                continue;
            };
            let available = seen
                .leader()
                .is_some_and(|b| brokers.get(&b).is_some_and(|x| x.is_up()));
            if let Some(a) = next_availability(seen.availability(), available, now) {
                seen.set_availability(Some(a));
            }
        }
        // Given back empty, with its room for the next step's changes
        // (unless a large step left much more room than most steps need).
        if changed.capacity() <= KEPT_ROOM {
            self.availability_changed = changed;
        }
    }

    /// `update_availability` when a broker's status changed: every partition
    /// may have. The same updates, walking the leaders and the availability
    /// records side by side (both in partition order) with each broker's
    /// status read once, instead of three lookups per partition.
    fn update_all_availability(&mut self) {
        use crate::controller::election::{BrokerBits, BrokerSet};
        self.availability_changed.clear();
        self.availability_dirty = false;
        let now = self.now;
        let up: BrokerBits = self
            .brokers
            .iter()
            .filter(|(_, b)| b.is_up())
            .map(|(id, _)| *id)
            .collect();
        // Read, then write only what changed: the records live in shared
        // copy-on-write chunks (a snapshot keeps the others).
        let mut updates = Vec::new();
        for (tp, seen) in &self.state_znodes {
            let available = seen.leader().is_some_and(|b| up.has(b));
            if let Some(a) = next_availability(seen.availability(), available, now) {
                updates.push((tp, a));
            }
        }
        for (tp, a) in updates {
            if let Some(seen) = self.state_znodes.get_mut(&tp) {
                seen.set_availability(Some(a));
            }
        }
    }

    /// How long a partition has been without a serving leader, in all.
    pub fn unavailable_ms(&self, tp: &crate::ids::TopicPartition) -> u64 {
        self.availability_of(tp)
            .map_or(0, |a| self.unavailable_for(a))
    }

    /// A partition's availability record, once it has had a leader.
    fn availability_of(&self, tp: &crate::ids::TopicPartition) -> Option<Availability> {
        self.state_znodes.get(tp).and_then(|s| s.availability())
    }

    /// The unavailable time a record says, up to now.
    fn unavailable_for(&self, a: Availability) -> u64 {
        a.unavailable_ms
            + if a.available {
                0
            } else {
                self.now.since(a.since)
            }
    }

    /// Unavailable time summed over all partitions.
    pub fn total_unavailable_ms(&self) -> u64 {
        self.state_znodes
            .values()
            .filter_map(|s| s.availability())
            .map(|a| self.unavailable_for(a))
            .sum()
    }

    /// Whether the partition has a serving leader now.
    pub fn is_available(&self, tp: &crate::ids::TopicPartition) -> bool {
        self.availability_of(tp).is_some_and(|a| a.available)
    }

    /// The broker that is up and believes it is the controller, if any (the
    /// newest epoch wins when a zombie is still up).
    pub fn active_controller(&self) -> Option<&Broker> {
        self.brokers
            .values()
            .filter(|b| b.is_up() && b.controller.is_active(b.id))
            .max_by_key(|b| b.controller.ctx.epoch)
    }

    /// Every partition, from ZooKeeper's topic and state znodes.
    pub fn partition_overview(&self) -> Vec<PartitionOverview> {
        self.partition_overviews().collect()
    }

    /// Every partition as [`Sim::partition_overview`] lists them, one at a
    /// time: a check over all of them (a benchmark's "settled?") holds one
    /// partition's lists at a time, not a copy of every partition's (30 MiB
    /// at 200,000 partitions, more than any step of the simulation adds).
    pub fn partition_overviews(&self) -> impl Iterator<Item = PartitionOverview> + '_ {
        use crate::controller::states::PartitionState;
        use crate::znodes::decode_topic_assignment;
        let ctx = self.active_controller().map(|b| &b.controller.ctx);
        self.zk
            .observed_children(paths::TOPICS)
            .filter_map(move |topic| {
                let node = self.zk.observed(&paths::topic(&topic))?;
                let assignment = decode_topic_assignment(&node.data.text()).unwrap_or_default();
                Some((topic, assignment))
            })
            .flat_map(move |(topic, assignment)| {
                assignment.into_iter().map(move |(p, replicas)| {
                    let tp = crate::ids::TopicPartition::new(&*topic, p);
                    let state_node = self.zk.observed_partition_state(&topic, p);
                    let l = state_node.and_then(|n| n.partition_state());
                    let state = ctx
                        .and_then(|c| c.partition_states.get(&tp).copied())
                        .unwrap_or(PartitionState::NonExistentPartition);
                    PartitionOverview {
                        state,
                        replicas,
                        isr: l.as_ref().map(|l| l.isr.to_vec()).unwrap_or_default(),
                        leader: l.as_ref().and_then(|l| l.leader),
                        leader_epoch: l.as_ref().map_or(-1, |l| l.leader_epoch),
                        controller_epoch: l.as_ref().map_or(-1, |l| l.controller_epoch),
                        tp,
                    }
                })
            })
    }
}

/// A partition's availability record after its leader was found
/// `available` (or not) at `now`, when that changes anything: tracking
/// starts when a partition first has a serving leader; the time without one
/// adds up from then.
fn next_availability(
    record: Option<Availability>,
    available: bool,
    now: SimTime,
) -> Option<Availability> {
    match record {
        Some(a) if a.available != available => {
            let mut a = a;
            if !a.available {
                a.unavailable_ms += now.since(a.since);
            }
            a.available = available;
            a.since = now;
            Some(a)
        }
        Some(_) => None,
        None => available.then_some(Availability {
            available,
            since: now,
            unavailable_ms: 0,
        }),
    }
}

#[cfg(test)]
impl Sim {
    /// Test-only: the brokers and the data plane, to break what the
    /// observer (`crate::observer`) reads and see that it notices.
    pub(crate) fn observed_state_mut_for_test(
        &mut self,
    ) -> (
        &mut std::collections::BTreeMap<BrokerId, Broker>,
        &mut crate::data_plane::DataPlane,
    ) {
        (&mut self.brokers, &mut self.data)
    }
}
