//! The page's model: a simulation and how far it has run. Pure: every change
//! goes through [`SimState::reduce`], which the tests call natively.

use kcsim_core::{BrokerId, ClusterView, Config, Sim, SimTime};
use std::rc::Rc;
use yew::Reducible;

/// The default classroom cluster's brokers.
pub const DEFAULT_BROKERS: [BrokerId; 3] = [BrokerId(0), BrokerId(1), BrokerId(2)];
/// The default seed.
pub const DEFAULT_SEED: u64 = 42;

/// What the page shows and drives.
#[derive(Debug, Clone, PartialEq)]
pub struct SimState {
    sim: Sim,
    view: ClusterView,
}

/// Everything that changes the model.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    /// Run virtual time forward by this many ms.
    Advance(u64),
}

impl SimState {
    /// The default cluster, run until its first controller is elected.
    pub fn default_cluster() -> SimState {
        let mut sim = Sim::new(DEFAULT_SEED, Config::default(), &DEFAULT_BROKERS);
        sim.run_until(SimTime(3_000));
        let view = ClusterView::of(&sim);
        SimState { sim, view }
    }

    /// The current picture.
    pub fn view(&self) -> &ClusterView {
        &self.view
    }

    /// Apply one message, returning the new state.
    pub fn apply(&self, msg: Msg) -> SimState {
        let mut sim = self.sim.clone();
        match msg {
            Msg::Advance(ms) => sim.run_until(sim.now().plus_ms(ms)),
        }
        let view = ClusterView::of(&sim);
        SimState { sim, view }
    }
}

impl Reducible for SimState {
    type Action = Msg;

    fn reduce(self: Rc<Self>, action: Msg) -> Rc<Self> {
        Rc::new(self.apply(action))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_cluster_has_an_elected_controller() {
        // Kafka: KafkaController.elect — the first broker to create /controller wins, epoch 1.
        let s = SimState::default_cluster();
        let v = s.view();
        assert_eq!(v.brokers.len(), 3);
        let c = v.controller.expect("a controller");
        assert_eq!(v.controller_epoch, 1);
        let json = &v.znode("/controller").expect("/controller exists").data;
        assert!(json.contains(&format!("\"brokerid\":{c}")), "{json}");
        assert!(v.brokers.iter().all(|b| b.active_controller_id == Some(c)));
    }

    #[test]
    fn advancing_moves_virtual_time() {
        let s = SimState::default_cluster();
        let t = s.view().time_ms;
        assert_eq!(s.apply(Msg::Advance(250)).view().time_ms, t + 250);
    }
}
