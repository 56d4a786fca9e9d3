//! The schedule generator: a seed gives a cluster and a list of timed
//! actions, as a [`Scenario`] (so it serializes to a scenario file that
//! `kcsim run` accepts, and a failure is reproduced from the file alone).
//!
//! Every choice comes from the core's own generator ([`Rng`]), so one seed
//! gives one schedule on every platform. Two kinds of action need to know
//! the cluster at their moment — which message is on the wire
//! (`drop_message`, `delay_message`) and what a partition's state znode
//! holds (an operator's ISR edit) — so the generator runs a *probe*
//! simulation of the schedule so far and reads them off it, as an operator
//! with `zookeeper-shell` and a packet filter would.

use crate::action::{Action, PartitionTarget};
use crate::config::Config;
use crate::controller::event::ElectionType;
use crate::ids::{BrokerId, TopicPartition};
use crate::log::Acks;
use crate::rng::Rng;
use crate::scenario::write::scenario_json;
use crate::scenario::{Placement, Scenario, TopicSpec};
use crate::sim::Sim;
use crate::time::SimTime;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The last moment an action may be scheduled, in ms of virtual time.
pub const LAST_ACTION_MS: u64 = 60_000;

/// The verbs the generator draws, and their weights (out of the sum). The
/// fault verbs come first and weigh most, the way incidents happen: processes
/// die or stall, sessions expire, watch notifications and requests are lost
/// or late, while producers keep writing and operators run admin tools and
/// edit znodes in the middle of it.
pub const WEIGHTS: &[(&str, u64)] = &[
    ("kill_broker", 12),
    ("start_broker", 10),
    ("shutdown_broker", 6),
    ("pause_broker", 8),
    ("expire_session", 7),
    ("drop_message", 8),
    ("delay_message", 6),
    ("produce", 14),
    ("slow_broker", 3),
    ("heal_broker", 2),
    ("delete_znode", 4),
    ("set_znode", 4),
    ("create_znode", 3),
    ("preferred_election", 2),
    ("elect_leaders", 3),
    ("reassign_partitions", 3),
    ("create_topic", 2),
    ("delete_topic", 2),
    ("add_partitions", 2),
    ("set_config", 3),
    ("delete_config", 2),
];

/// Every verb has a weight: this match fails to compile when an [`Action`]
/// variant is added, and the test `every_verb_is_weighted` fails when its
/// name is missing from [`WEIGHTS`].
pub fn verb_of(a: &Action) -> &'static str {
    match a {
        Action::KillBroker { .. }
        | Action::StartBroker { .. }
        | Action::ShutdownBroker { .. }
        | Action::PauseBroker { .. }
        | Action::ExpireSession { .. }
        | Action::DeleteZnode { .. }
        | Action::DelayMessage { .. }
        | Action::DropMessage { .. }
        | Action::PreferredElection { .. }
        | Action::ElectLeaders { .. }
        | Action::Produce { .. }
        | Action::SlowBroker { .. }
        | Action::HealBroker { .. }
        | Action::AddPartitions { .. }
        | Action::DeleteTopic { .. }
        | Action::ReassignPartitions { .. }
        | Action::CreateTopic { .. }
        | Action::SetConfig { .. }
        | Action::SetZnode { .. }
        | Action::CreateZnode { .. }
        | Action::DeleteConfig { .. } => a.name(),
    }
}

/// What the generator knows of a topic it declared or created.
#[derive(Debug, Clone)]
struct TopicInfo {
    name: String,
    partitions: u32,
}

struct Gen {
    rng: Rng,
    brokers: Vec<BrokerId>,
    topics: Vec<TopicInfo>,
    created: u32,
    probe: Sim,
}

impl Gen {
    fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.rng.below(xs.len() as u64) as usize].clone()
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.rng.below(100) < percent
    }

    fn broker(&mut self) -> BrokerId {
        let b = self.brokers.clone();
        self.pick(&b)
    }

    /// A broker in one of these states in the probe, else any broker.
    fn broker_in(&mut self, states: &[crate::broker::BrokerStatus]) -> BrokerId {
        let fit: Vec<BrokerId> = self
            .probe
            .brokers()
            .values()
            .filter(|b| states.contains(&b.status))
            .map(|b| b.id)
            .collect();
        if fit.is_empty() || self.chance(10) {
            self.broker()
        } else {
            self.pick(&fit)
        }
    }

    fn topic(&mut self) -> TopicInfo {
        let t = self.topics.clone();
        self.pick(&t)
    }

    fn tp(&mut self) -> TopicPartition {
        let t = self.topic();
        let p = self.rng.below(u64::from(t.partitions)) as u32;
        TopicPartition::new(t.name, p)
    }

    fn tps(&mut self) -> Vec<TopicPartition> {
        let n = self.rng.between(1, 3);
        let mut out: Vec<TopicPartition> = Vec::new();
        for _ in 0..n {
            let tp = self.tp();
            if !out.contains(&tp) {
                out.push(tp);
            }
        }
        out
    }

    /// `k` distinct brokers in a random order.
    fn replicas(&mut self, k: u32) -> Vec<BrokerId> {
        let mut pool = self.brokers.clone();
        let mut out = Vec::new();
        for _ in 0..k.min(pool.len() as u32) {
            let i = self.rng.below(pool.len() as u64) as usize;
            out.push(pool.remove(i));
        }
        out
    }

    fn verb(&mut self) -> &'static str {
        let total: u64 = WEIGHTS.iter().map(|(_, w)| w).sum();
        let mut x = self.rng.below(total);
        for (name, w) in WEIGHTS {
            if x < *w {
                return name;
            }
            x -= w;
        }
        WEIGHTS[0].0
    }

    /// A message still on the wire after `at` (one of the next few to
    /// arrive), if any: one arriving at `at` arrives before an action at
    /// `at` (an action comes after everything at its millisecond).
    fn message_on_the_wire(&mut self, at: SimTime) -> Option<u64> {
        let ids: Vec<u64> = self
            .probe
            .pending()
            .filter(|(t, _)| *t > at)
            .filter_map(|(_, e)| e.message_id())
            .take(8)
            .collect();
        if ids.is_empty() {
            None
        } else {
            Some(self.pick(&ids))
        }
    }

    /// An action of `verb` at `at` (the probe has run to just before it).
    fn action(&mut self, verb: &str, at: SimTime) -> Option<Action> {
        use crate::broker::BrokerStatus as S;
        Some(match verb {
            "kill_broker" => Action::KillBroker {
                broker: self.broker_in(&[S::Running, S::Paused, S::ShuttingDown, S::Starting]),
            },
            "start_broker" => Action::StartBroker {
                broker: self.broker_in(&[S::Dead]),
            },
            "shutdown_broker" => Action::ShutdownBroker {
                broker: self.broker_in(&[S::Running]),
            },
            "pause_broker" => Action::PauseBroker {
                broker: self.broker_in(&[S::Running, S::ShuttingDown]),
                duration_ms: *[200, 1_000, 3_000, 7_000, 12_000, 20_000]
                    .get(self.rng.below(6) as usize)
                    .unwrap_or(&1_000),
            },
            "expire_session" => Action::ExpireSession {
                broker: self.broker_in(&[S::Running, S::Paused]),
            },
            "drop_message" => Action::DropMessage {
                id: self.message_on_the_wire(at)?,
            },
            "delay_message" => Action::DelayMessage {
                id: self.message_on_the_wire(at)?,
                delay_ms: *[5, 50, 500, 3_000, 10_000]
                    .get(self.rng.below(5) as usize)
                    .unwrap_or(&50),
            },
            "produce" => {
                let tp = self.tp();
                let acks = match self.rng.below(10) {
                    0 => Acks::None,
                    1..=3 => Acks::Leader,
                    _ => Acks::All,
                };
                Action::Produce {
                    topic: tp.topic.to_string(),
                    partition: tp.partition,
                    records: self.rng.between(1, 20),
                    acks,
                }
            }
            "slow_broker" => Action::SlowBroker {
                broker: self.broker(),
                lag_ms: *[500, 5_000, 30_000]
                    .get(self.rng.below(3) as usize)
                    .unwrap_or(&500),
            },
            "heal_broker" => Action::HealBroker {
                broker: self.broker(),
            },
            "delete_znode" => self.delete_znode(),
            "set_znode" => self.set_znode(),
            "create_znode" => self.create_znode(),
            "preferred_election" => Action::PreferredElection {
                partitions: if self.chance(50) {
                    None
                } else {
                    Some(self.tps())
                },
            },
            "elect_leaders" => Action::ElectLeaders {
                election_type: if self.chance(70) {
                    ElectionType::Preferred
                } else {
                    ElectionType::Unclean
                },
                partitions: self.tps(),
            },
            "reassign_partitions" => {
                let n = self.rng.between(1, 2);
                let mut partitions: Vec<PartitionTarget> = Vec::new();
                for _ in 0..n {
                    let tp = self.tp();
                    if partitions
                        .iter()
                        .any(|p| p.topic == tp.topic.as_str() && p.partition == tp.partition)
                    {
                        continue;
                    }
                    let k = self.rng.between(1, 3) as u32;
                    partitions.push(PartitionTarget {
                        topic: tp.topic.to_string(),
                        partition: tp.partition,
                        replicas: self.replicas(k),
                    });
                }
                Action::ReassignPartitions { partitions }
            }
            "create_topic" => {
                let name = format!("new{}", self.created);
                self.created += 1;
                let partitions = self.rng.between(1, 3) as u32;
                let rf = self.rng.between(1, (self.brokers.len() as u64).min(3)) as u32;
                self.topics.push(TopicInfo {
                    name: name.clone(),
                    partitions,
                });
                if self.chance(30) {
                    let assignment = (0..partitions).map(|_| self.replicas(rf)).collect();
                    Action::CreateTopic {
                        name,
                        assignment: Some(assignment),
                        partitions: None,
                        replication_factor: None,
                    }
                } else {
                    Action::CreateTopic {
                        name,
                        assignment: None,
                        partitions: Some(partitions),
                        replication_factor: Some(rf),
                    }
                }
            }
            "delete_topic" => Action::DeleteTopic {
                topic: self.topic().name,
            },
            "add_partitions" => {
                let t = self.topic();
                Action::AddPartitions {
                    count: t.partitions + self.rng.between(1, 2) as u32,
                    topic: t.name,
                }
            }
            "set_config" => {
                let topic = self.chance(40).then(|| self.topic().name);
                let (key, value) = match (self.rng.below(5), &topic) {
                    (0 | 1, _) => ("unclean.leader.election.enable", json!(self.chance(40))),
                    (2 | 3, _) => ("min.insync.replicas", json!(self.rng.between(1, 3))),
                    // A static key: kafka-configs.sh refuses it.
                    (_, None) => (
                        "leader.imbalance.per.broker.percentage",
                        json!(self.rng.between(0, 50)),
                    ),
                    (_, Some(_)) => ("unclean.leader.election.enable", json!(false)),
                };
                Action::SetConfig {
                    key: key.to_string(),
                    value,
                    topic,
                }
            }
            "delete_config" => {
                let topic = self.chance(50).then(|| self.topic().name);
                let key = if topic.is_some() || self.chance(50) {
                    "unclean.leader.election.enable"
                } else {
                    "min.insync.replicas"
                };
                let keys = if topic.is_some() {
                    Config::TOPIC_KEYS
                } else {
                    Config::DYNAMIC_KEYS
                };
                let key = if keys.contains(&key) { key } else { keys[0] };
                Action::DeleteConfig {
                    key: key.to_string(),
                    topic,
                }
            }
            _ => return None,
        })
    }

    /// `zookeeper-shell delete`: mostly `/controller` (the documented way
    /// to move the controller), sometimes an admin znode an operator wants
    /// to cancel, rarely a broker's registration or a topic's state.
    fn delete_znode(&mut self) -> Action {
        // Not a partition's state znode: a leader epoch that restarts at 0
        // breaks "leader epochs only grow" by the operator's hand, not the
        // controller's.
        let path = match self.rng.below(10) {
            0..=4 => "/controller".to_string(),
            5 | 6 => "/admin/reassign_partitions".to_string(),
            7 => "/admin/preferred_replica_election".to_string(),
            8 => format!("/admin/delete_topics/{}", self.topic().name),
            _ => format!("/brokers/ids/{}", self.broker()),
        };
        Action::DeleteZnode { path }
    }

    /// `zookeeper-shell set`: an operator shrinking a partition's ISR to its
    /// leader (read from ZooKeeper now), rewriting a topic's assignment or
    /// config, or the admin znodes; rarely garbage.
    fn set_znode(&mut self) -> Action {
        let tp = self.tp();
        let state_path = format!(
            "/brokers/topics/{}/partitions/{}/state",
            tp.topic, tp.partition
        );
        match self.rng.below(10) {
            0..=3 => {
                let current = self
                    .probe
                    .zk()
                    .observed(&state_path)
                    .and_then(|n| n.partition_state());
                if let Some(mut l) = current {
                    if let Some(leader) = l.leader {
                        l.isr = vec![leader].into();
                    }
                    return Action::SetZnode {
                        data: crate::znodes::encode_partition_state(&l),
                        path: state_path,
                    };
                }
                // No state yet: move the controller instead (rewriting
                // /controller_epoch lower breaks fencing by hand).
                Action::DeleteZnode {
                    path: "/controller".to_string(),
                }
            }
            4 | 5 => {
                // Partitions added by hand: the assignment as it is, one
                // more partition at the end (rewriting existing partitions'
                // replicas would put ISR members outside the assignment by
                // the operator's hand).
                let t = self.topic();
                let path = format!("/brokers/topics/{}", t.name);
                let current = self
                    .probe
                    .zk()
                    .observed(&path)
                    .and_then(|n| crate::znodes::decode_topic_assignment(&n.data.text()));
                match current {
                    Some(a) if !a.is_empty() => {
                        let mut assignment: Vec<Vec<BrokerId>> =
                            a.into_iter().map(|(_, r)| r).collect();
                        let rf = assignment[0].len() as u32;
                        assignment.push(self.replicas(rf));
                        if let Some(info) = self.topics.iter_mut().find(|i| i.name == t.name) {
                            info.partitions = info.partitions.max(assignment.len() as u32);
                        }
                        Action::SetZnode {
                            path,
                            data: crate::znodes::topic_znode_json(&assignment),
                        }
                    }
                    _ => Action::DeleteZnode {
                        path: "/controller".to_string(),
                    },
                }
            }
            6 => Action::SetZnode {
                path: format!("/config/topics/{}", tp.topic),
                data: format!(
                    r#"{{"version":1,"config":{{"unclean.leader.election.enable":"{}"}}}}"#,
                    self.chance(30)
                ),
            },
            7 => Action::SetZnode {
                path: "/admin/reassign_partitions".to_string(),
                data: crate::znodes::encode_reassign_partitions(&[(tp, self.replicas(2))]),
            },
            8 => Action::SetZnode {
                path: "/admin/preferred_replica_election".to_string(),
                data: crate::znodes::encode_preferred_replica_election(&[tp]),
            },
            _ => Action::SetZnode {
                path: state_path,
                data: "garbage".to_string(),
            },
        }
    }

    /// `zookeeper-shell create`: the admin znodes by hand, a config change
    /// notification (sequential), or an ephemeral `/controller` that lives
    /// only as long as the shell.
    fn create_znode(&mut self) -> Action {
        let tp = self.tp();
        let (path, data, ephemeral, sequential) = match self.rng.below(6) {
            0 => (
                "/admin/reassign_partitions".to_string(),
                crate::znodes::encode_reassign_partitions(&[(tp, self.replicas(2))]),
                false,
                false,
            ),
            1 => (
                "/admin/preferred_replica_election".to_string(),
                crate::znodes::encode_preferred_replica_election(&[tp]),
                false,
                false,
            ),
            2 => (
                format!("/admin/delete_topics/{}", tp.topic),
                String::new(),
                false,
                false,
            ),
            3 => (
                "/config/changes/config_change_".to_string(),
                crate::znodes::encode_config_change_notification(&format!("topics/{}", tp.topic)),
                false,
                true,
            ),
            4 => (
                "/controller".to_string(),
                crate::znodes::controller_znode_json(self.broker(), 0),
                true,
                false,
            ),
            _ => (
                "/isr_change_notification/isr_change_".to_string(),
                crate::znodes::encode_isr_change_notification(&[tp]),
                false,
                true,
            ),
        };
        Action::CreateZnode {
            path,
            data,
            ephemeral,
            sequential,
        }
    }
}

/// The cluster's starting configuration: Kafka's defaults with a few keys
/// drawn (unclean election, min.insync.replicas, the session timeout, the
/// controller's ZooKeeper mode, rebalancing).
fn config(rng: &mut Rng, brokers: usize) -> Config {
    let mut c = Config::default();
    let mut set = |k: &str, v: Value| {
        let _ = c.set(k, &v);
    };
    if rng.below(100) < 20 {
        set("unclean.leader.election.enable", json!(true));
    }
    if rng.below(100) < 30 {
        set(
            "min.insync.replicas",
            json!(rng.between(1, (brokers as u64).min(3))),
        );
    }
    match rng.below(4) {
        0 => set("zookeeper.session.timeout.ms", json!(18_000)),
        1 => set("zookeeper.session.timeout.ms", json!(3_000)),
        _ => {}
    }
    if rng.below(100) < 25 {
        set("sim.controller.zk.mode", json!("sync"));
    }
    if rng.below(100) < 30 {
        set("leader.imbalance.check.interval.seconds", json!(20));
    }
    if rng.below(100) < 15 {
        set("auto.leader.rebalance.enable", json!(false));
    }
    if rng.below(100) < 10 {
        set("delete.topic.enable", json!(false));
    }
    if rng.below(100) < 20 {
        set("controlled.shutdown.max.retries", json!(rng.between(0, 2)));
    }
    if rng.below(100) < 20 {
        set("sim.network.jitter.ms", json!(rng.between(0, 20)));
    }
    c
}

/// The schedule of `seed`.
pub fn generate(seed: u64) -> Scenario {
    let mut rng = Rng::new(seed ^ 0x736f_616b_5f67_656e);
    let n = rng.between(2, 6) as u32;
    let base = rng.below(2) as u32;
    let brokers: Vec<BrokerId> = (base..base + n).map(BrokerId).collect();
    let config = config(&mut rng, brokers.len());
    let mut topics = Vec::new();
    let mut infos = Vec::new();
    for i in 0..rng.between(1, 3) {
        let name = format!("t{i}");
        let partitions = rng.between(1, 4) as u32;
        let rf = rng.between(1, u64::from(n).min(3)) as u32;
        infos.push(TopicInfo {
            name: name.clone(),
            partitions,
        });
        let mut tconf = BTreeMap::new();
        if rng.below(100) < 15 {
            tconf.insert(
                "unclean.leader.election.enable".to_string(),
                json!(rng.below(2) == 0),
            );
        }
        if rng.below(100) < 15 {
            tconf.insert(
                "min.insync.replicas".to_string(),
                json!(rng.between(1, u64::from(rf))),
            );
        }
        topics.push(TopicSpec {
            name,
            placement: Placement::Count {
                partitions,
                replication_factor: rf,
            },
            config: tconf,
        });
    }
    let sim_seed = rng.next_u64() >> 12;
    let count = rng.between(0, 24);
    let mut times: Vec<u64> = (0..count).map(|_| rng.between(0, LAST_ACTION_MS)).collect();
    times.sort_unstable();
    let mut scenario = Scenario {
        seed: sim_seed,
        brokers: brokers.clone(),
        config,
        topics,
        actions: Vec::new(),
    };
    let probe = scenario.build();
    let mut g = Gen {
        rng,
        brokers,
        topics: infos,
        created: 0,
        probe,
    };
    let mut last = 0;
    for t in times {
        let mut at = SimTime(t.max(last));
        g.probe.run_before(at);
        let mut verb = g.verb();
        if matches!(verb, "drop_message" | "delay_message") {
            // Wait (a few seconds at most) for a message to be on the wire,
            // and act on it a millisecond after it was sent (before its
            // delivery, when the wire takes longer).
            let give_up = at.as_ms() + 5_000;
            while g.message_on_the_wire(at).is_none()
                && g.probe.now().as_ms() < give_up
                && g.probe.step()
            {
                at = at.max(g.probe.now().plus_ms(1));
            }
        }
        let action = loop {
            match g.action(verb, at) {
                Some(a) => break a,
                // No message on the wire: lose a notification another way,
                // by deleting /controller.
                None => verb = "delete_znode",
            }
        };
        last = at.as_ms();
        let _ = g.probe.schedule_action(at, action.clone());
        scenario.actions.push((at, action));
    }
    scenario
}

/// The schedule of `seed` as a scenario file.
pub fn generate_json(seed: u64) -> String {
    scenario_json(&generate(seed))
}
