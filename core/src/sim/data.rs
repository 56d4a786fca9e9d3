//! Routing to the data plane ([`crate::data_plane`]): the simulator hands it
//! the time, the configuration, the brokers and the ensemble, and turns what
//! it reports back into events, trace lines, violations and counters.

use super::{Sim, SimEvent, StateZnodes};
use crate::broker::Taken;
use crate::controller::channel::ControlRequest;
use crate::data_plane::park::QueueKey;
use crate::data_plane::{BrokerTask, DataPlane, Env, FollowUp, Outbox};
use crate::ids::{BrokerId, TopicPartition};
use crate::log::{Acks, Log, ProducedRecord};

impl Sim {
    /// Run `f` on the data plane, then apply what it produced.
    fn with_data<R>(&mut self, f: impl FnOnce(&mut DataPlane, &mut Env, &StateZnodes) -> R) -> R {
        let mut out = Outbox::default();
        let r = {
            let mut env = Env {
                now: self.now,
                config: &self.config,
                brokers: &mut self.brokers,
                zk: &mut self.zk,
                out: &mut out,
            };
            f(&mut self.data, &mut env, &self.state_znodes)
        };
        for (at, follow_up) in out.follow_ups {
            let ev = match follow_up {
                FollowUp::Fetch { follower, leader } => SimEvent::Fetch { follower, leader },
                FollowUp::Park {
                    follower,
                    leader,
                    every,
                } => {
                    // A virtual push: the place the round's event would have had.
                    self.sub += 1;
                    let key = (at, self.seq, self.sub);
                    self.data.parking_mut().park((follower, leader), key, every);
                    continue;
                }
                FollowUp::Task {
                    broker,
                    incarnation,
                    task,
                } => SimEvent::BrokerTask {
                    broker,
                    incarnation,
                    task,
                },
            };
            self.push(at, ev);
        }
        for (actor, kind, fact) in out.notes {
            self.note(actor, kind, fact);
        }
        for (invariant, details) in out.violations {
            self.checker.found(invariant, details);
        }
        self.stats.acked_records_lost += out.acked_records_lost;
        self.stats.isr_shrinks += out.isr_shrinks;
        self.stats.isr_expands += out.isr_expands;
        self.queue_woken();
        r
    }

    /// Queue the rounds of the sessions woken from the parking, each at the
    /// place its event would have had.
    pub(super) fn queue_woken(&mut self) {
        for (key, follower, leader) in self.data.parking_mut().take_woken() {
            self.enqueue(key, SimEvent::Fetch { follower, leader });
        }
    }

    /// Run the parked rounds placed before `before` in the queue.
    pub(super) fn advance_parked(&mut self, before: QueueKey) {
        let seq = self.seq;
        self.data.parking_mut().advance(before, seq, &mut self.sub);
    }

    /// Start a broker's periodic tasks (at registration).
    pub(super) fn start_broker_tasks(&mut self, broker: BrokerId) {
        self.with_data(|d, env, _| d.start_broker_tasks(env, broker));
    }

    /// A running broker's periodic task is due.
    pub(super) fn broker_task(&mut self, broker: BrokerId, task: BrokerTask) {
        self.with_data(|d, env, _| d.broker_task(env, broker, task));
    }

    /// A follower's fetch round is due.
    pub(super) fn fetch(&mut self, follower: BrokerId, leader: BrokerId) {
        self.with_data(|d, env, _| d.fetch(env, follower, leader));
    }

    /// What a broker does with its logs after it applied a controller request.
    /// `taken` says, for a LeaderAndIsr, which partitions the broker took.
    pub(super) fn after_request_applied(
        &mut self,
        broker: BrokerId,
        req: &ControlRequest,
        taken: &Taken,
    ) {
        self.with_data(|d, env, seen| {
            d.after_request_applied(env, broker, req, taken, |tp| {
                seen.get(tp).and_then(|s| s.leader_epoch())
            })
        });
    }

    /// A producer writes `count` records to the partition's leader.
    pub(super) fn produce(&mut self, tp: &TopicPartition, count: u64, acks: Acks) {
        let leader = self.leader_of(tp);
        self.with_data(|d, env, _| d.produce(env, tp, count, acks, leader));
    }

    /// Slow a broker's fetching by `lag_ms` per round (0 heals it).
    pub(super) fn set_slow(&mut self, broker: BrokerId, lag_ms: u64) {
        self.with_data(|d, env, _| d.set_slow(env, broker, lag_ms));
    }

    /// The data plane.
    pub fn data_plane(&self) -> &DataPlane {
        &self.data
    }

    /// Tests: the data plane, to change how it works.
    #[cfg(test)]
    pub(crate) fn data_plane_mut_for_test(&mut self) -> &mut DataPlane {
        &mut self.data
    }

    /// Fetch as before Kafka 1.1 (every round carries every partition) or
    /// with KIP-227 incremental fetch sessions (the default): see
    /// [`DataPlane::set_full_fetches_only`]. Switch it before the run starts;
    /// a session cached already stays until something changes it.
    pub fn set_full_fetches_only(&mut self, on: bool) {
        self.data.set_full_fetches_only(on);
    }

    /// A replica's log, if it has one.
    pub fn log(&self, broker: BrokerId, tp: &TopicPartition) -> Option<&Log> {
        self.data.log(broker, tp)
    }

    /// The partition's high watermark: the committed offset.
    pub fn high_watermark(&self, tp: &TopicPartition) -> u64 {
        self.data.high_watermark(tp)
    }

    /// Every produced record and its fate.
    pub fn produced(&self) -> &[ProducedRecord] {
        self.data.produced()
    }

    /// The extra fetch lag of a broker slowed by `slow_broker` (0 if none).
    pub fn slow_lag(&self, broker: BrokerId) -> u64 {
        self.data.slow_lag(broker)
    }
}
