//! What the controller's work costs in virtual time.
//!
//! Kafka's controller does everything on one event thread, so the time an
//! event occupies that thread is the sum of what it waits on: ZooKeeper reads
//! and writes, and building the requests it sends. The simulator charges each
//! of them as it happens, in the event's own order, on a [`Meter`] that the
//! broker's ZooKeeper client and the request batch both advance; a request
//! batch leaves when the meter says the state-machine call that built it is
//! done, and the event ends when the meter stops.
//!
//! The rates come from Kafka's published figures (spec §10, derivation in
//! `core/docs/cost-model.md`):
//!
//! | profile | ZooKeeper read | ZooKeeper write | per partition in a request |
//! |---|---|---|---|
//! | `async` (Kafka 1.1+, pipelined) | 96 µs | 140 µs | 21 µs |
//! | `sync` (Kafka 1.0, one at a time) | 233 µs | 2 700 µs | 21 µs |
//!
//! so that a failover over 100 000 partitions takes about 14 s (`async`) or
//! 28 s (`sync`), and a controlled shutdown of a broker with 10 000 partitions
//! about 3 s or 30 s.

use crate::config::Config;
/// The ZooKeeper access profile is a setting, so it lives with the
/// configuration; re-exported at its old path.
pub use crate::config::ZkMode;
use serde::{Deserialize, Serialize};

/// Kafka 1.0's synchronous ZooKeeper read, in µs (spec §10 F5: 28 s for a
/// failover of 100 000 partitions, of which request building is the same as
/// in 1.1 and the rest is reading 102 000 znodes one by one).
pub const SYNC_READ_US: u64 = 233;
/// Kafka 1.0's synchronous ZooKeeper write, in µs (spec §10 F4: a controlled
/// shutdown of 10 000 partitions took 30 s once 1.0's logging overhead was
/// fixed; F11's design estimate was 2 ms per write).
pub const SYNC_WRITE_US: u64 = 2_700;

/// The rates in force for one cluster, in µs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CostModel {
    /// Every event, however small (`sim.controller.event.cost.ms`).
    pub event_us: u64,
    /// One ZooKeeper read (getData, exists, getChildren).
    pub zk_read_us: u64,
    /// One ZooKeeper write or multi.
    pub zk_write_us: u64,
    /// One partition's state put into a request being built.
    pub request_partition_us: u64,
    /// One request queued (`sim.controller.request.cost.ms`).
    pub request_us: u64,
}

impl CostModel {
    /// The rates a configuration asks for.
    pub fn of(config: &Config) -> CostModel {
        let (read, write) = match config.sim_controller_zk_mode {
            ZkMode::Async => (
                config.sim_controller_zk_read_cost_us,
                config.sim_controller_zk_write_cost_us,
            ),
            ZkMode::Sync => (SYNC_READ_US, SYNC_WRITE_US),
        };
        CostModel {
            event_us: config.sim_controller_event_cost_ms.saturating_mul(1000),
            zk_read_us: read,
            zk_write_us: write
                .saturating_add(config.sim_controller_zk_write_cost_ms.saturating_mul(1000)),
            request_partition_us: config.sim_controller_request_partition_cost_us,
            request_us: config.sim_controller_request_cost_ms.saturating_mul(1000),
        }
    }
}

/// The event thread's clock for the event in progress: what it has done so
/// far and the virtual time that took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meter {
    /// The rates.
    pub model: CostModel,
    /// Time spent so far in this event, in µs.
    pub elapsed_us: u64,
    /// ZooKeeper reads made.
    pub reads: u64,
    /// ZooKeeper writes (and multis) made.
    pub writes: u64,
    /// Partition states put into requests.
    pub request_partitions: u64,
    /// Requests built.
    pub requests: u64,
}

impl Meter {
    /// A fresh meter for a new event: the event's own cost is already spent.
    pub fn start(model: CostModel) -> Meter {
        Meter {
            model,
            elapsed_us: model.event_us,
            ..Meter::default()
        }
    }

    /// A ZooKeeper read.
    pub fn read(&mut self) {
        self.reads += 1;
        self.elapsed_us = self.elapsed_us.saturating_add(self.model.zk_read_us);
    }

    /// A ZooKeeper write (a multi counts once: one round trip).
    pub fn write(&mut self) {
        self.writes += 1;
        self.elapsed_us = self.elapsed_us.saturating_add(self.model.zk_write_us);
    }

    /// A request built with `partitions` partition states in it.
    pub fn request(&mut self, partitions: u64) {
        self.requests += 1;
        self.request_partitions += partitions;
        let us = partitions
            .saturating_mul(self.model.request_partition_us)
            .saturating_add(self.model.request_us);
        self.elapsed_us = self.elapsed_us.saturating_add(us);
    }

    /// The time so far, in whole milliseconds (rounded up: an event that
    /// did anything takes at least its own cost).
    pub fn elapsed_ms(&self) -> u64 {
        self.elapsed_us.div_ceil(1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_meter_charges_each_kind_of_work_at_its_rate() {
        let model = CostModel::of(&Config::default());
        assert_eq!(
            (model.zk_read_us, model.zk_write_us, model.event_us),
            (96, 140, 1000)
        );
        let mut m = Meter::start(model);
        m.read();
        m.write();
        m.request(10);
        assert_eq!(m.elapsed_us, 1000 + 96 + 140 + 210);
        assert_eq!(m.elapsed_ms(), 2);
        let sync = CostModel::of(&Config {
            sim_controller_zk_mode: ZkMode::Sync,
            ..Config::default()
        });
        assert_eq!((sync.zk_read_us, sync.zk_write_us), (233, 2_700));
    }
}
