//! A broker: id, status, what it believes about the controller, and the
//! things a person can do to it.

use crate::state::Msg;
use kcsim_core::broker::BrokerExit;
use kcsim_core::view::BrokerView;
use kcsim_core::Action;
use yew::prelude::*;

/// Properties of [`BrokerCard`].
#[derive(Properties, PartialEq, Debug)]
pub struct BrokerCardProps {
    /// The broker to draw.
    pub broker: BrokerView,
    /// Now, for the session countdown.
    pub now_ms: u64,
    /// Where actions go.
    pub on_msg: Callback<Msg>,
}

/// One broker card.
#[component]
pub fn BrokerCard(props: &BrokerCardProps) -> Html {
    let b = &props.broker;
    let id = b.id;
    let mut class = classes!("broker", format!("status-{}", b.status));
    if b.is_active_controller {
        class.push("controller");
    }
    let zombie = b.is_zombie_controller;
    if zombie {
        class.push("zombie");
    }
    let act = |a: Action| {
        let cb = props.on_msg.clone();
        Callback::from(move |_: MouseEvent| cb.emit(Msg::Act(a.clone())))
    };
    let up = b.status == "running" || b.status == "shutting_down";
    let countdown = b.session_expires_at_ms.filter(|_| b.status == "dead" || b.status == "paused").map(|t| {
        let left = t.saturating_sub(props.now_ms);
        let why = if b.exit == Some(BrokerExit::Killed) {
            format!("kill -9: /brokers/ids/{id} lingers; session expires in {:.1} s", left as f64 / 1000.0)
        } else {
            format!("session expires in {:.1} s", left as f64 / 1000.0)
        };
        html! { <p class="session-countdown" role="status" title="ZooKeeper keeps a silent session's ephemeral znodes until zookeeper.session.timeout.ms passes: until then the controller still counts this broker as registered">{ why }</p> }
    });
    // How the last process ended, once nothing is counting down.
    let exit = match (b.exit, countdown.is_some()) {
        (_, true) | (None, false) => None,
        (Some(BrokerExit::Clean), false) => Some(format!(
            "exited cleanly: session closed, /brokers/ids/{id} went at once"
        )),
        (Some(BrokerExit::Killed), false) => Some(format!(
            "killed: its session expired, /brokers/ids/{id} is gone"
        )),
        (Some(BrokerExit::StartupFailed), false) => Some(format!(
            "failed to start: /brokers/ids/{id} was still held by its old session"
        )),
    };
    let exit = exit.map(|e| html! { <p class="broker-exit" role="status">{ e }</p> });
    let active = b
        .active_controller_id
        .map_or("-1".to_string(), |c| c.to_string());
    html! {
        <article class={class} data-broker={id.to_string()} aria-label={format!("Broker {id}")} tabindex="-1">
            <h3><span class="broker-name">{ format!("Broker {id}") }</span>
                if b.is_active_controller { <span class="badge controller-badge">{ if zombie { "zombie controller" } else { "controller" } }</span> }
                <span class="broker-status">{ b.status.replace('_', " ") }</span>
            </h3>
            <dl>
                <div><dt title="the controller this broker believes is active (Kafka's ActiveControllerId)">{ "activeControllerId" }</dt><dd class="active-controller-id">{ active }</dd></div>
                <div><dt title="controller epoch seen: the highest controller epoch this broker has accepted a request from">{ "epoch seen" }</dt><dd class="epoch-seen">{ b.controller_epoch_seen }</dd></div>
                <div><dt title="the czxid of its /brokers/ids znode (KIP-380)">{ "broker epoch" }</dt><dd>{ b.broker_epoch }</dd></div>
                <div><dt title="partitions whose state znode names it leader (what the cluster goes by) / replicas it hosts">{ "leads / hosts" }</dt><dd>{ format!("{} / {}", b.leader_of_in_zk, b.replicas) }</dd></div>
                if b.slowed_ms > 0 { <div><dt>{ "fetch lag" }</dt><dd>{ format!("+{} ms", b.slowed_ms) }</dd></div> }
            </dl>
            // A line kept for the session countdown, so the card does not grow when it appears.
            <div class="session-line">{ for countdown }{ for exit }</div>
            <div class="broker-actions">
                <button disabled={!up} aria-label={format!("Kill broker {id} (kill -9)")} onclick={act(Action::KillBroker { broker: id })}>{ "kill -9" }</button>
                <button disabled={b.status != "running"} aria-label={format!("Stop broker {id} (controlled shutdown)")} onclick={act(Action::ShutdownBroker { broker: id })}>{ "stop" }</button>
                <button disabled={b.status != "dead"} aria-label={format!("Start broker {id}")} onclick={act(Action::StartBroker { broker: id })}>{ "start" }</button>
                <button disabled={!up} aria-label={format!("Pause broker {id} for 10 s (GC stall)")} onclick={act(Action::PauseBroker { broker: id, duration_ms: 10_000 })}>{ "pause 10 s" }</button>
                <button disabled={!up} aria-label={format!("Expire broker {id}'s ZooKeeper session")} onclick={act(Action::ExpireSession { broker: id })}>{ "expire session" }</button>
                if b.slowed_ms == 0 {
                    <button disabled={!up} aria-label={format!("Slow broker {id}'s replica fetching")} onclick={act(Action::SlowBroker { broker: id, lag_ms: 1_000_000 })}>{ "cut off fetching" }</button>
                } else {
                    <button aria-label={format!("Heal broker {id}")} onclick={act(Action::HealBroker { broker: id })}>{ "heal" }</button>
                }
            </div>
        </article>
    }
}
