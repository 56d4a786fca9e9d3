//! A broker: id, status, what it believes about the controller.

use kcsim_core::view::BrokerView;
use yew::prelude::*;

/// Properties of [`BrokerCard`].
#[derive(Properties, PartialEq, Debug)]
pub struct BrokerCardProps {
    /// The broker to draw.
    pub broker: BrokerView,
}

/// One broker card.
#[component]
pub fn BrokerCard(props: &BrokerCardProps) -> Html {
    let b = &props.broker;
    let mut class = classes!("broker", format!("status-{}", b.status));
    if b.is_active_controller {
        class.push("controller");
    }
    let active = b
        .active_controller_id
        .map_or("-1".to_string(), |c| c.to_string());
    html! {
        <article class={class} data-broker={b.id.to_string()} aria-label={format!("Broker {}", b.id)}>
            <h3>{ format!("Broker {}", b.id) }
                if b.is_active_controller { <span class="badge controller-badge">{ "controller" }</span> }
            </h3>
            <dl>
                <dt>{ "status" }</dt><dd class="broker-status">{ &b.status }</dd>
                <dt>{ "activeControllerId" }</dt><dd class="active-controller-id">{ active }</dd>
                <dt>{ "controller epoch seen" }</dt><dd>{ b.controller_epoch_seen }</dd>
                <dt>{ "broker epoch" }</dt><dd>{ b.broker_epoch }</dd>
            </dl>
        </article>
    }
}
