//! Cluster configuration: Kafka's keys with Kafka 2.4's defaults, plus the
//! simulator's own `sim.*` keys for what is a property of hardware in a real
//! cluster (latencies, start-up time, how long the controller spends on work).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How the controller talks to ZooKeeper (`sim.controller.zk.mode`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ZkMode {
    /// Kafka 1.1 and later: reads and writes pipelined asynchronously
    /// (KAFKA-5642), so each costs a fraction of a round trip.
    #[default]
    Async,
    /// Kafka 1.0: one synchronous round trip per read and per write.
    Sync,
}

impl ZkMode {
    /// The name used in configuration and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            ZkMode::Async => "async",
            ZkMode::Sync => "sync",
        }
    }

    /// Parse `async` or `sync`.
    pub fn parse(s: &str) -> Option<ZkMode> {
        match s {
            "async" => Some(ZkMode::Async),
            "sync" => Some(ZkMode::Sync),
            _ => None,
        }
    }
}

/// Why a configuration key or value was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The key is not one the simulator knows.
    #[error("unknown config key {0:?}")]
    UnknownKey(String),
    /// The key exists but cannot change while the cluster runs.
    #[error("Cannot update these configs dynamically: Set({key}): {why}; set it in the cluster's starting configuration instead")]
    Static {
        /// The key.
        key: String,
        /// Why it is fixed at start-up.
        why: &'static str,
    },
    /// A `--delete-config` of a key that has no dynamic value (a topic
    /// override or a cluster-wide dynamic default) to remove.
    #[error("Invalid config(s): {0}")]
    NotSet(String),
    /// The value has the wrong type or is out of range.
    #[error("config key {key:?} wants {want}, got {got}")]
    BadValue {
        /// The key.
        key: String,
        /// What the key accepts.
        want: &'static str,
        /// What was given.
        got: String,
    },
}

/// Every setting the simulator reads. Field names are Kafka's keys with dots
/// replaced by underscores; [`Config::KEYS`] lists the keys themselves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// `zookeeper.session.timeout.ms` (Kafka 2.4: 6000; 2.5+: 18000).
    pub zookeeper_session_timeout_ms: u64,
    /// `unclean.leader.election.enable` (default false).
    pub unclean_leader_election_enable: bool,
    /// `auto.leader.rebalance.enable` (default true).
    pub auto_leader_rebalance_enable: bool,
    /// `leader.imbalance.check.interval.seconds` (default 300).
    pub leader_imbalance_check_interval_seconds: u64,
    /// `leader.imbalance.per.broker.percentage` (default 10).
    pub leader_imbalance_per_broker_percentage: u64,
    /// `controlled.shutdown.enable` (default true).
    pub controlled_shutdown_enable: bool,
    /// `controlled.shutdown.max.retries` (default 3).
    pub controlled_shutdown_max_retries: u64,
    /// `controlled.shutdown.retry.backoff.ms` (default 5000).
    pub controlled_shutdown_retry_backoff_ms: u64,
    /// `replica.lag.time.max.ms` (Kafka 2.4: 10000).
    pub replica_lag_time_max_ms: u64,
    /// `min.insync.replicas` (default 1).
    pub min_insync_replicas: u64,
    /// `delete.topic.enable` (default true).
    pub delete_topic_enable: bool,
    /// `sim.zk.latency.ms`: one way between a broker and ZooKeeper.
    pub sim_zk_latency_ms: u64,
    /// `sim.network.latency.ms`: one way between two brokers.
    pub sim_network_latency_ms: u64,
    /// `sim.network.jitter.ms`: up to this much is added to each network or
    /// ZooKeeper delivery, drawn from the seeded generator.
    pub sim_network_jitter_ms: u64,
    /// `sim.broker.startup.ms`: from `start_broker` to registering in ZooKeeper.
    pub sim_broker_startup_ms: u64,
    /// `sim.broker.startup.jitter.ms`: up to this much more start-up time,
    /// drawn per start, so brokers started together race for `/controller`.
    pub sim_broker_startup_jitter_ms: u64,
    /// `sim.controller.event.cost.ms`: the controller's time for any event.
    pub sim_controller_event_cost_ms: u64,
    /// `sim.controller.zk.write.cost.ms`: extra controller time per ZooKeeper
    /// write made while handling an event (the event thread waits on each).
    pub sim_controller_zk_write_cost_ms: u64,
    /// `sim.controller.zk.mode`: `async` (Kafka 1.1+, pipelined ZooKeeper
    /// access, the default) or `sync` (Kafka 1.0, one round trip at a time).
    pub sim_controller_zk_mode: ZkMode,
    /// `sim.controller.zk.read.cost.us`: controller time per ZooKeeper read
    /// in `async` mode (96 µs: see the `cost` module).
    pub sim_controller_zk_read_cost_us: u64,
    /// `sim.controller.zk.write.cost.us`: controller time per ZooKeeper write
    /// in `async` mode (140 µs: see the `cost` module).
    pub sim_controller_zk_write_cost_us: u64,
    /// `sim.controller.request.partition.cost.us`: controller time per
    /// partition state put into a request it builds (21 µs).
    pub sim_controller_request_partition_cost_us: u64,
    /// `sim.controller.request.cost.ms`: extra controller time per request
    /// queued while handling an event.
    pub sim_controller_request_cost_ms: u64,
    /// `controller.socket.timeout.ms` (default 30000): how long a broker waits
    /// for the controller before an attempt of controlled shutdown fails.
    pub controller_socket_timeout_ms: u64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            zookeeper_session_timeout_ms: 6000,
            unclean_leader_election_enable: false,
            auto_leader_rebalance_enable: true,
            leader_imbalance_check_interval_seconds: 300,
            leader_imbalance_per_broker_percentage: 10,
            controlled_shutdown_enable: true,
            controlled_shutdown_max_retries: 3,
            controlled_shutdown_retry_backoff_ms: 5000,
            replica_lag_time_max_ms: 10000,
            min_insync_replicas: 1,
            delete_topic_enable: true,
            sim_zk_latency_ms: 2,
            sim_network_latency_ms: 1,
            sim_network_jitter_ms: 1,
            sim_broker_startup_ms: 1000,
            sim_broker_startup_jitter_ms: 500,
            sim_controller_event_cost_ms: 1,
            sim_controller_zk_write_cost_ms: 0,
            sim_controller_zk_mode: ZkMode::Async,
            sim_controller_zk_read_cost_us: 96,
            sim_controller_zk_write_cost_us: 140,
            sim_controller_request_partition_cost_us: 21,
            sim_controller_request_cost_ms: 0,
            controller_socket_timeout_ms: 30000,
        }
    }
}

enum Slot<'a> {
    Ms(&'a mut u64, u64, u64),
    Bool(&'a mut bool),
    Mode(&'a mut ZkMode),
}

impl Config {
    /// Every key the simulator accepts, in documentation order.
    pub const KEYS: &'static [&'static str] = &[
        "zookeeper.session.timeout.ms",
        "unclean.leader.election.enable",
        "auto.leader.rebalance.enable",
        "leader.imbalance.check.interval.seconds",
        "leader.imbalance.per.broker.percentage",
        "controlled.shutdown.enable",
        "controlled.shutdown.max.retries",
        "controlled.shutdown.retry.backoff.ms",
        "replica.lag.time.max.ms",
        "min.insync.replicas",
        "delete.topic.enable",
        "sim.zk.latency.ms",
        "sim.network.latency.ms",
        "sim.network.jitter.ms",
        "sim.broker.startup.ms",
        "sim.broker.startup.jitter.ms",
        "sim.controller.event.cost.ms",
        "sim.controller.zk.write.cost.ms",
        "sim.controller.zk.mode",
        "sim.controller.zk.read.cost.us",
        "sim.controller.zk.write.cost.us",
        "sim.controller.request.partition.cost.us",
        "sim.controller.request.cost.ms",
        "controller.socket.timeout.ms",
    ];

    /// Keys that may also be set per topic (in `/config/topics/<t>`).
    pub const TOPIC_KEYS: &'static [&'static str] =
        &["unclean.leader.election.enable", "min.insync.replicas"];

    /// The broker keys Kafka 2.4 can change while it runs
    /// (`DynamicBrokerConfig.AllDynamicConfigs`, through `kafka-configs.sh
    /// --alter --entity-type brokers`). Of the keys this simulator knows only
    /// these two are in it, as topic-config synonyms
    /// (`DynamicLogConfig.ReconfigurableConfigs`); every other key is static,
    /// read from `server.properties` at start-up.
    pub const DYNAMIC_KEYS: &'static [&'static str] =
        &["unclean.leader.election.enable", "min.insync.replicas"];

    /// Change `key` while the cluster runs, as `kafka-configs.sh --alter`
    /// can: refused for an unknown key, a static one (a `sim.*` key is fixed
    /// too: it describes the hardware) or a bad value. On error nothing
    /// changes.
    pub fn set_dynamic(&mut self, key: &str, value: &Value) -> Result<(), ConfigError> {
        if self.get(key).is_none() {
            return Err(ConfigError::UnknownKey(key.to_string()));
        }
        if !Config::DYNAMIC_KEYS.contains(&key) {
            let why = if key.starts_with("sim.") {
                "it describes the simulated hardware, fixed when the cluster starts"
            } else {
                "it is a static broker config in Kafka 2.4 (not in DynamicBrokerConfig), read at start-up"
            };
            return Err(ConfigError::Static {
                key: key.to_string(),
                why,
            });
        }
        self.set(key, value)
    }

    fn slot(&mut self, key: &str) -> Option<Slot<'_>> {
        const DAY: u64 = 86_400_000;
        Some(match key {
            "zookeeper.session.timeout.ms" => {
                Slot::Ms(&mut self.zookeeper_session_timeout_ms, 1, DAY)
            }
            "unclean.leader.election.enable" => {
                Slot::Bool(&mut self.unclean_leader_election_enable)
            }
            "auto.leader.rebalance.enable" => Slot::Bool(&mut self.auto_leader_rebalance_enable),
            "leader.imbalance.check.interval.seconds" => Slot::Ms(
                &mut self.leader_imbalance_check_interval_seconds,
                1,
                DAY / 1000,
            ),
            "leader.imbalance.per.broker.percentage" => {
                Slot::Ms(&mut self.leader_imbalance_per_broker_percentage, 0, 100)
            }
            "controlled.shutdown.enable" => Slot::Bool(&mut self.controlled_shutdown_enable),
            "controlled.shutdown.max.retries" => {
                Slot::Ms(&mut self.controlled_shutdown_max_retries, 0, 100)
            }
            "controlled.shutdown.retry.backoff.ms" => {
                Slot::Ms(&mut self.controlled_shutdown_retry_backoff_ms, 0, DAY)
            }
            "replica.lag.time.max.ms" => Slot::Ms(&mut self.replica_lag_time_max_ms, 1, DAY),
            "min.insync.replicas" => Slot::Ms(&mut self.min_insync_replicas, 1, 1000),
            "delete.topic.enable" => Slot::Bool(&mut self.delete_topic_enable),
            "sim.zk.latency.ms" => Slot::Ms(&mut self.sim_zk_latency_ms, 0, 60_000),
            "sim.network.latency.ms" => Slot::Ms(&mut self.sim_network_latency_ms, 0, 60_000),
            "sim.network.jitter.ms" => Slot::Ms(&mut self.sim_network_jitter_ms, 0, 60_000),
            "sim.broker.startup.ms" => Slot::Ms(&mut self.sim_broker_startup_ms, 0, DAY),
            "sim.broker.startup.jitter.ms" => {
                Slot::Ms(&mut self.sim_broker_startup_jitter_ms, 0, DAY)
            }
            "sim.controller.event.cost.ms" => {
                Slot::Ms(&mut self.sim_controller_event_cost_ms, 0, 60_000)
            }
            "sim.controller.zk.write.cost.ms" => {
                Slot::Ms(&mut self.sim_controller_zk_write_cost_ms, 0, 60_000)
            }
            "sim.controller.zk.mode" => Slot::Mode(&mut self.sim_controller_zk_mode),
            "sim.controller.zk.read.cost.us" => {
                Slot::Ms(&mut self.sim_controller_zk_read_cost_us, 0, 60_000_000)
            }
            "sim.controller.request.partition.cost.us" => Slot::Ms(
                &mut self.sim_controller_request_partition_cost_us,
                0,
                60_000_000,
            ),
            "sim.controller.zk.write.cost.us" => {
                Slot::Ms(&mut self.sim_controller_zk_write_cost_us, 0, 60_000_000)
            }
            "sim.controller.request.cost.ms" => {
                Slot::Ms(&mut self.sim_controller_request_cost_ms, 0, 60_000)
            }
            "controller.socket.timeout.ms" => {
                Slot::Ms(&mut self.controller_socket_timeout_ms, 1, DAY)
            }
            _ => return None,
        })
    }

    /// Set `key` to `value`. Numbers may be given as JSON numbers or as
    /// decimal strings, booleans as JSON booleans or "true"/"false", as in a
    /// `server.properties` file. On error nothing changes.
    pub fn set(&mut self, key: &str, value: &Value) -> Result<(), ConfigError> {
        let bad = |want: &'static str| ConfigError::BadValue {
            key: key.to_string(),
            want,
            got: value.to_string(),
        };
        match self
            .slot(key)
            .ok_or_else(|| ConfigError::UnknownKey(key.to_string()))?
        {
            Slot::Bool(b) => {
                *b = parse_bool(value).ok_or_else(|| bad("true or false"))?;
            }
            Slot::Ms(n, lo, hi) => {
                let v = parse_u64(value).filter(|v| (lo..=hi).contains(v));
                *n = v.ok_or_else(|| bad("a whole number in range"))?;
            }
            Slot::Mode(m) => {
                let v = value.as_str().and_then(ZkMode::parse);
                *m = v.ok_or_else(|| bad("\"async\" or \"sync\""))?;
            }
        }
        Ok(())
    }

    /// The value of `key` as JSON, or `None` for an unknown key.
    pub fn get(&self, key: &str) -> Option<Value> {
        let mut copy = self.clone();
        Some(match copy.slot(key)? {
            Slot::Bool(b) => Value::Bool(*b),
            Slot::Ms(n, _, _) => Value::from(*n),
            Slot::Mode(m) => Value::from(m.as_str()),
        })
    }
}

/// A boolean given as JSON `true`/`false` or as the strings "true"/"false".
pub fn parse_bool(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s == "true" => Some(true),
        Value::String(s) if s == "false" => Some(false),
        _ => None,
    }
}

/// A whole number given as a JSON number or a decimal string.
pub fn parse_u64(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_are_kafka_2_4s() {
        // Kafka: KafkaConfig.Defaults in 2.4.0.
        let c = Config::default();
        assert_eq!(c.get("zookeeper.session.timeout.ms"), Some(json!(6000)));
        assert_eq!(c.get("unclean.leader.election.enable"), Some(json!(false)));
        assert_eq!(
            c.get("leader.imbalance.check.interval.seconds"),
            Some(json!(300))
        );
        assert_eq!(
            c.get("controlled.shutdown.retry.backoff.ms"),
            Some(json!(5000))
        );
        assert_eq!(c.get("replica.lag.time.max.ms"), Some(json!(10000)));
    }

    #[test]
    fn every_listed_key_is_settable_and_readable() {
        let mut c = Config::default();
        for key in Config::KEYS {
            let v = c.get(key).unwrap_or_else(|| panic!("{key} readable"));
            c.set(key, &v).unwrap_or_else(|e| panic!("{key}: {e}"));
        }
    }

    #[test]
    fn bad_keys_and_values_are_refused_without_change() {
        let mut c = Config::default();
        let before = c.clone();
        assert_eq!(
            c.set("no.such.key", &json!(1)),
            Err(ConfigError::UnknownKey("no.such.key".into()))
        );
        assert!(c.set("zookeeper.session.timeout.ms", &json!(-5)).is_err());
        assert!(c.set("zookeeper.session.timeout.ms", &json!(0)).is_err());
        assert!(c.set("unclean.leader.election.enable", &json!(1)).is_err());
        assert_eq!(c, before);
        c.set("unclean.leader.election.enable", &json!("true"))
            .unwrap();
        c.set("zookeeper.session.timeout.ms", &json!("18000"))
            .unwrap();
        assert!(c.unclean_leader_election_enable);
        assert_eq!(c.zookeeper_session_timeout_ms, 18000);
    }

    #[test]
    fn only_dynamic_broker_configs_change_at_run_time() {
        // Kafka: DynamicBrokerConfig.validateConfigs refuses a key outside AllDynamicConfigs.
        let mut c = Config::default();
        let before = c.clone();
        for key in Config::KEYS {
            let v = c.get(key).unwrap_or_else(|| panic!("{key} readable"));
            let r = c.set_dynamic(key, &v);
            if Config::DYNAMIC_KEYS.contains(key) {
                assert_eq!(r, Ok(()), "{key}");
            } else {
                let e = r.expect_err(key).to_string();
                assert!(e.contains(key) && e.contains("dynamically"), "{e}");
            }
        }
        assert_eq!(c, before);
        assert_eq!(
            c.set_dynamic("no.such.key", &json!(1)),
            Err(ConfigError::UnknownKey("no.such.key".into()))
        );
        assert!(c.set_dynamic("min.insync.replicas", &json!(0)).is_err());
        c.set_dynamic("min.insync.replicas", &json!(2)).unwrap();
        assert_eq!(c.min_insync_replicas, 2);
    }
}
