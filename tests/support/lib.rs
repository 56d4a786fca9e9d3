//! Shared helpers for the cross-crate tests in `tests/`: a small story DSL
//! that reads like the story it tells.

#![forbid(unsafe_code)]

use kcsim_core::broker::{Broker, BrokerStatus};
use kcsim_core::config::Config;
use kcsim_core::trace::TraceRecord;
use kcsim_core::{Action, BrokerId, Sim, SimTime};

/// Broker ids `0..n`.
pub fn brokers(n: u32) -> Vec<BrokerId> {
    (0..n).map(BrokerId).collect()
}

/// A cluster of `n` brokers with default config.
pub fn cluster(seed: u64, n: u32) -> Sim {
    Sim::new(seed, Config::default(), &brokers(n))
}

/// A story: a cluster, things done to it at times, and questions about it.
#[derive(Debug)]
pub struct Story {
    /// The simulation being told.
    pub sim: Sim,
}

impl Story {
    /// `n` brokers started together at time 0.
    pub fn brokers(seed: u64, n: u32) -> Story {
        Story {
            sim: cluster(seed, n),
        }
    }

    /// `n` brokers with a config tweak.
    pub fn with_config(seed: u64, n: u32, config: Config) -> Story {
        Story {
            sim: Sim::new(seed, config, &brokers(n)),
        }
    }

    /// Run until `ms`.
    pub fn until(&mut self, ms: u64) -> &mut Story {
        self.sim.run_until(SimTime(ms));
        self
    }

    /// Do `action` at `ms` (and run up to just before it).
    pub fn at(&mut self, ms: u64, action: Action) -> &mut Story {
        self.sim
            .schedule_action(SimTime(ms), action)
            .expect("a valid action");
        self
    }

    /// `/controller`'s broker id, which must exist.
    pub fn controller(&self) -> BrokerId {
        self.sim.controller_id().expect("/controller exists")
    }

    /// `/controller_epoch`.
    pub fn epoch(&self) -> i32 {
        self.sim.controller_epoch()
    }

    /// A broker.
    pub fn broker(&self, id: BrokerId) -> &Broker {
        &self.sim.brokers()[&id]
    }

    /// Ids of running brokers.
    pub fn running(&self) -> Vec<BrokerId> {
        self.sim
            .brokers()
            .values()
            .filter(|b| b.status == BrokerStatus::Running)
            .map(|b| b.id)
            .collect()
    }

    /// Assert every running broker's activeControllerId is /controller's id.
    pub fn assert_everyone_agrees(&self) {
        let c = self.sim.controller_id();
        for b in self
            .sim
            .brokers()
            .values()
            .filter(|b| b.status == BrokerStatus::Running)
        {
            assert_eq!(
                b.controller.active_controller_id, c,
                "broker {} agrees on the controller",
                b.id
            );
        }
    }

    /// Assert no invariant was violated.
    pub fn assert_no_violations(&self) {
        assert!(
            self.sim.violations().is_empty(),
            "violations: {:#?}",
            self.sim.violations()
        );
    }

    /// Trace records of a kind.
    pub fn records(&self, kind: &str) -> Vec<&TraceRecord> {
        self.sim.trace().iter().filter(|r| r.kind == kind).collect()
    }

    /// The first trace record of a kind at or after `ms`.
    pub fn first_after(&self, kind: &str, ms: u64) -> Option<&TraceRecord> {
        self.sim
            .trace()
            .iter()
            .find(|r| r.kind == kind && r.time_ms >= ms)
    }
}

impl Story {
    /// A partition as ZooKeeper and the active controller describe it.
    pub fn partition(&self, topic: &str, p: u32) -> kcsim_core::sim::PartitionOverview {
        self.sim
            .partition_overview()
            .into_iter()
            .find(|x| x.tp.topic == topic && x.tp.partition == p)
            .unwrap_or_else(|| panic!("partition {topic}-{p} exists"))
    }

    /// Create a topic with an explicit assignment at `ms`.
    pub fn create_topic(&mut self, ms: u64, name: &str, assignment: &[&[u32]]) -> &mut Story {
        let a = assignment
            .iter()
            .map(|r| r.iter().copied().map(BrokerId).collect())
            .collect();
        self.at(
            ms,
            Action::CreateTopic {
                name: name.into(),
                assignment: Some(a),
                partitions: None,
                replication_factor: None,
            },
        )
    }

    /// Overwrite a partition's ISR in its state znode (keeping leader and epochs), by hand.
    pub fn force_isr(&mut self, ms: u64, topic: &str, p: u32, isr: &[u32]) -> &mut Story {
        self.until(ms);
        let tp = kcsim_core::TopicPartition::new(topic, p);
        let path = format!("/brokers/topics/{topic}/partitions/{p}/state");
        let node = self.sim.zk().node(&path).expect("state znode");
        let mut l = node.data.partition_state(node.stat.version).expect("state");
        l.isr = isr.iter().copied().map(BrokerId).collect();
        let data = kcsim_core::znodes::encode_partition_state(&l);
        let _ = tp;
        self.at(ms, Action::SetZnode { path, data })
    }

    /// Brokers other than the controller, in id order.
    pub fn non_controllers(&self) -> Vec<BrokerId> {
        let c = self.controller();
        self.sim
            .brokers()
            .keys()
            .copied()
            .filter(|b| *b != c)
            .collect()
    }
}

/// FNV-1a (64-bit) of a run's trace as JSON lines: a fingerprint that must be
/// the same natively and in WebAssembly.
pub fn trace_fingerprint(records: &kcsim_core::trace::Records) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for r in records {
        for b in r.to_json_line().bytes().chain(std::iter::once(b'\n')) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{h:016x} {}", records.len())
}

/// The scenario whose fingerprint is pinned in `tests/golden/zombie-controller.trace`.
pub const GOLDEN_SCENARIO: &str = include_str!("../../core/scenarios/zombie-controller.json");

/// Run the golden scenario to 40 s and fingerprint its trace.
pub fn golden_fingerprint() -> String {
    let s =
        kcsim_core::scenario::Scenario::parse(GOLDEN_SCENARIO).expect("the golden scenario parses");
    let mut sim = s.build();
    sim.run_until(SimTime(40_000));
    trace_fingerprint(sim.trace())
}
