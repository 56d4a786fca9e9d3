//! The page.

use crate::components::broker_card::BrokerCard;
use crate::components::controller_znode::ControllerZnode;
use crate::state::SimState;
use yew::prelude::*;

/// The whole simulator page.
#[component]
pub fn App() -> Html {
    let state = use_reducer(SimState::default_cluster);
    let view = state.view();
    let controller_json = view.znode("/controller").map(|z| z.data.clone());
    html! {
        <main class="kcsim">
            <header>
                <h1>{ "kcsim" }</h1>
                <p class="subtitle">{ "Kafka 2.x's ZooKeeper-era controller, simulated" }</p>
                <p class="clock">{ format!("t = {} ms", view.time_ms) }</p>
            </header>
            <section class="brokers" aria-label="Brokers">
                { for view.brokers.iter().map(|b| html! { <BrokerCard key={b.id.0} broker={b.clone()} /> }) }
            </section>
            <ControllerZnode data={controller_json} epoch={view.controller_epoch} />
        </main>
    }
}
