//! # kcsim-core: Kafka's ZooKeeper-era controller, simulated
//!
//! A deterministic, virtual-time simulation of Apache Kafka 2.x's controller:
//! a ZooKeeper ensemble ([`zk`]), brokers ([`broker`]) that register in it and
//! race for `/controller`, and the controller each broker runs
//! ([`controller`]) with its single-threaded FIFO event queue. Everything is
//! driven by one seeded generator and one event queue ([`sim`]), so a seed and
//! a list of actions always give the same trace, natively and in WebAssembly.
//!
//! Where to find Kafka in it: KafkaZkClient's operations in [`kafka_zk`], every
//! znode's bytes in [`znodes`], AdminZkClient in [`admin`]; in [`controller`]
//! the event manager and `process` (`mod.rs`), the partition and replica state
//! machines, the four election strategies, the channel manager, topic deletion
//! and reassignment; ReplicaManager, Partition and the fetcher in
//! [`data_plane`]; the controller's clock in [`cost`], fitted to Kafka's
//! published figures ([`figures`]); the invariants and their checker in
//! [`invariants`]. Data moves one way: an [`Action`] enters [`sim`], which
//! routes it; components return what they want sent and scheduled; the checker
//! and the view ([`view`], [`report`]) read the result. The trace ([`trace`])
//! says what happened as data ([`fact::Fact`]); [`words`] renders its English.
//!
//! A tour:
//!
//! ```
//! use kcsim_core::{Sim, Config, BrokerId, SimTime};
//!
//! // Three brokers start together and race for /controller.
//! let mut sim = Sim::new(42, Config::default(), &[BrokerId(0), BrokerId(1), BrokerId(2)]);
//! sim.run_until(SimTime(5_000));
//! let winner = sim.controller_id().expect("someone won");
//! assert_eq!(sim.controller_epoch(), 1);
//! // Every broker learned who won, through its watch on /controller.
//! for b in sim.brokers().values() {
//!     assert_eq!(b.controller.active_controller_id, Some(winner));
//! }
//! assert!(sim.violations().is_empty());
//! ```

#![forbid(unsafe_code)]

/// `PartialEq` and `Eq` for a cache of work or bookkeeping kept beside the
/// state (a lookup hint, a memo, a count): any two compare equal, so two
/// simulations holding the same state are equal whatever their caches hold.
macro_rules! equal_whatever_it_holds {
    ($($t:ty),+ $(,)?) => {
        $(
            impl PartialEq for $t {
                fn eq(&self, _: &$t) -> bool {
                    true
                }
            }

            impl Eq for $t {}
        )+
    };
}

pub mod action;
pub mod admin;
pub mod bench;
pub mod broker;
#[cfg(feature = "cli")]
pub mod cli;
pub mod config;
pub mod console;
pub mod controller;
pub mod cost;
pub mod cow_map;
pub mod data_plane;
pub mod diagram;
pub mod fact;
pub mod figures;
#[cfg(feature = "fuzz")]
pub mod fuzz;
pub mod ids;
pub mod invariants;
pub mod kafka_zk;
pub mod legacy;
pub mod lesson;
pub mod log;
pub mod observer;
pub mod partition_map;
pub mod projection;
pub mod replica_lists;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod share_link;
pub mod sim;
pub mod soak;
pub mod sort;
pub mod summary;
pub mod time;
pub mod timeline;
pub mod trace;
pub mod trace_file;
pub mod vec_map;
pub mod view;
pub mod whatif;
pub mod words;
pub mod zk;
pub mod zk_client;
pub mod znodes;

pub use action::Action;
pub use config::Config;
pub use fact::Fact;
pub use ids::{BrokerId, SessionId, TopicPartition};
pub use sim::Sim;
pub use time::SimTime;
pub use view::ClusterView;
