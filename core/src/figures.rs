//! Kafka's published controller figures, and the same measurements made on
//! the simulator, in virtual time.
//!
//! Each [`Published`] figure names the cluster shape of its source (spec §10)
//! and what was timed; [`measure`] builds that shape, does the same thing to
//! it and returns how long the controller's event thread was busy, from the
//! simulator's own meter. Virtual time is deterministic, so these figures are
//! the same on every machine and a test may assert them.

use crate::cost::ZkMode;
use crate::ids::BrokerId;
use crate::scenario::Scenario;
use crate::sim::Sim;
use crate::time::SimTime;
use crate::Action;

/// A cluster shape: `topics` topics of `partitions_per_topic` partitions
/// each, at `replication_factor`, on brokers `0..brokers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Brokers.
    pub brokers: u32,
    /// Topics.
    pub topics: u32,
    /// Partitions per topic.
    pub partitions_per_topic: u32,
    /// Replication factor.
    pub replication_factor: u32,
}

impl Shape {
    /// All partitions.
    pub fn partitions(&self) -> u64 {
        u64::from(self.topics) * u64::from(self.partitions_per_topic)
    }

    /// The same shape with the partition count divided by `k` (fewer topics,
    /// or fewer partitions per topic when there is one topic): for tests
    /// that check the scaling without paying for the full size.
    pub fn scaled_down(&self, k: u32) -> Shape {
        let k = k.max(1);
        if self.topics >= k {
            Shape {
                topics: self.topics / k,
                ..*self
            }
        } else {
            Shape {
                partitions_per_topic: (self.partitions_per_topic / k).max(1),
                ..*self
            }
        }
    }
}

/// What is timed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// The controller moves (`/controller` deleted, every broker stays up);
    /// the new controller's failover event, from "successfully elected" to
    /// the end of `onControllerFailover`: reading every topic and partition
    /// state, then LeaderAndIsr and UpdateMetadata for everything.
    Failover,
    /// `kill -9` of the controller: the same, plus the elections and ISR
    /// shrinks for the partitions the dead broker hosted, in the same event.
    FailoverAfterKill,
    /// `kafka-server-stop.sh` of a broker that is not the controller; the
    /// controller's ControlledShutdown event (`doControlledShutdown`).
    ControlledShutdown,
}

impl Work {
    /// A short name.
    pub fn name(self) -> &'static str {
        match self {
            Work::Failover => "controller failover",
            Work::FailoverAfterKill => "controller failover after kill -9 of it",
            Work::ControlledShutdown => "controlled shutdown of one broker",
        }
    }
}

/// One of Kafka's published figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Published {
    /// The spec's id (§10), e.g. "F5".
    pub id: &'static str,
    /// What was timed.
    pub work: Work,
    /// The cluster it was timed on.
    pub shape: Shape,
    /// Kafka 1.0 (synchronous ZooKeeper access), seconds, if published.
    pub kafka_1_0_s: Option<f64>,
    /// Kafka 1.1 (asynchronous ZooKeeper access), seconds, if published.
    pub kafka_1_1_s: Option<f64>,
    /// Where the figure comes from, and what is assumed about the shape.
    pub source: &'static str,
}

/// The figures the cost model is calibrated against.
pub const PUBLISHED: &[Published] = &[
    Published {
        id: "F5",
        work: Work::Failover,
        shape: Shape {
            brokers: 5,
            topics: 2_000,
            partitions_per_topic: 50,
            replication_factor: 1,
        },
        kafka_1_0_s: Some(28.0),
        kafka_1_1_s: Some(14.0),
        source: "Confluent, \"Apache Kafka Supports 200K Partitions Per Cluster\" (2018): \
                 2,000 topics x 50 partitions; 5 brokers and RF 1 as in the same topic shape's \
                 KAFKA-5642 and KAFKA-6082 runs (F6, F7); the source does not say whether the \
                 old controller hosted partitions, so this row times the failover itself",
    },
    Published {
        id: "(none)",
        work: Work::FailoverAfterKill,
        shape: Shape {
            brokers: 5,
            topics: 2_000,
            partitions_per_topic: 50,
            replication_factor: 1,
        },
        kafka_1_0_s: None,
        kafka_1_1_s: None,
        source: "the F5 cluster with the controller killed: a fifth of the partitions lose \
                 their only replica and are handled in the same event",
    },
    Published {
        id: "F2/F4",
        work: Work::ControlledShutdown,
        shape: Shape {
            brokers: 5,
            topics: 1,
            partitions_per_topic: 25_000,
            replication_factor: 2,
        },
        kafka_1_0_s: Some(30.0),
        kafka_1_1_s: Some(3.0),
        source: "same blog: one topic of 25,000 partitions at RF 2, 10,000 partitions per broker \
                 (5 brokers); 1.0 took 6.5 min, 30 s once its logging overhead was fixed",
    },
];

/// What one measurement found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Measured {
    /// How long the event took, in virtual ms.
    pub virtual_ms: u64,
    /// ZooKeeper reads it made.
    pub reads: u64,
    /// ZooKeeper writes it made.
    pub writes: u64,
    /// Requests it built.
    pub requests: u64,
    /// Partition states it put into requests.
    pub request_partitions: u64,
}

/// The scenario JSON for a shape, in `mode`.
pub fn scenario_json(shape: &Shape, mode: ZkMode) -> String {
    let brokers = crate::ids::comma_list((0..shape.brokers).map(BrokerId));
    let topics: Vec<String> = (0..shape.topics)
        .map(|t| {
            format!(
                r#"{{"name":"t{t}","partitions":{},"replication_factor":{}}}"#,
                shape.partitions_per_topic, shape.replication_factor
            )
        })
        .collect();
    format!(
        r#"{{"version":1,"seed":7,"brokers":[{brokers}],"config":{{"sim.controller.zk.mode":"{}","sim.broker.startup.jitter.ms":0}},"topics":[{}]}}"#,
        mode.as_str(),
        topics.join(",")
    )
}

/// Build `shape`, let it settle, do `work` to it and time the controller's
/// event that does the work.
pub fn measure(shape: &Shape, work: Work, mode: ZkMode) -> Result<Measured, String> {
    let scenario = Scenario::parse(&scenario_json(shape, mode)).map_err(|e| e.to_string())?;
    let mut sim = scenario.build();
    settle(&mut sim, SimTime(5_000))?;
    let start = sim.now();
    let controller = sim.controller_id().ok_or("no controller elected")?;
    let (action, event) = match work {
        Work::Failover => (
            Action::DeleteZnode {
                path: crate::zk_client::paths::CONTROLLER.to_string(),
            },
            "Reelect",
        ),
        Work::FailoverAfterKill => (Action::KillBroker { broker: controller }, "Reelect"),
        Work::ControlledShutdown => {
            let victim = sim
                .brokers()
                .keys()
                .copied()
                .find(|b| *b != controller)
                .ok_or("no broker to stop")?;
            (
                Action::ShutdownBroker { broker: victim },
                "ControlledShutdown",
            )
        }
    };
    sim.schedule_action(start, action)
        .map_err(|e| e.to_string())?;
    let deadline = start.plus_ms(600_000);
    while sim.now() < deadline && sim.step() {
        let found = sim.brokers().values().find_map(|b| {
            let c = b.controller.current.as_ref()?;
            (c.event.name() == event && c.started_at == sim.now() && c.started_at > start)
                .then_some((c.done_at.since(c.started_at), b.zk_client.meter))
        });
        if let Some((ms, meter)) = found {
            return Ok(Measured {
                virtual_ms: ms,
                reads: meter.reads,
                writes: meter.writes,
                requests: meter.requests,
                request_partitions: meter.request_partitions,
            });
        }
    }
    Err(format!("no {event} event within 600 s of virtual time"))
}

/// Run until `at` least and then until nothing is in progress.
fn settle(sim: &mut Sim, at: SimTime) -> Result<(), String> {
    sim.run_until(at);
    let limit = at.plus_ms(600_000);
    while !sim.is_quiet() {
        match sim.next_event_time() {
            Some(t) if t <= limit => sim.run_until(t),
            _ => return Err("the cluster did not settle".into()),
        }
    }
    Ok(())
}
