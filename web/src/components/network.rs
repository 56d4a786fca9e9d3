//! The wire: ZooKeeper and the brokers as nodes, and every request,
//! response and watch notification on its way between them as a moving
//! dot, labelled with its type and controller epoch. Click one to inspect it.

use kcsim_core::view::{BrokerView, MessageView};
use kcsim_core::BrokerId;
use yew::prelude::*;

/// Properties of [`Network`].
#[derive(Properties, PartialEq, Debug)]
pub struct NetworkProps {
    /// The brokers.
    pub brokers: Vec<BrokerView>,
    /// Messages queued or on the wire.
    pub messages: Vec<MessageView>,
    /// `/controller`'s brokerid.
    pub controller: Option<BrokerId>,
    /// Now.
    pub now_ms: u64,
}

const W: f64 = 520.0;
const H: f64 = 250.0;

/// Where a node sits: ZooKeeper at the top centre, brokers on an arc below.
fn position(node: &str, brokers: &[BrokerView]) -> (f64, f64) {
    if node == "zk" {
        return (W / 2.0, 36.0);
    }
    let id: u32 = node.trim_start_matches("broker-").parse().unwrap_or(0);
    let n = brokers.len().max(1) as f64;
    let i = brokers.iter().position(|b| b.id.0 == id).unwrap_or(0) as f64;
    let x = 60.0 + (W - 120.0) * if n > 1.0 { i / (n - 1.0) } else { 0.5 };
    (x, H - 50.0)
}

/// The network picture.
#[component]
pub fn Network(props: &NetworkProps) -> Html {
    let selected = use_state(|| None::<u64>);
    let inflight: Vec<&MessageView> = props.messages.iter().filter(|m| !m.queued).collect();
    let detail = (*selected).and_then(|id| props.messages.iter().find(|m| m.id == id));
    html! {
        <section class="panel network" aria-label="Messages on the wire">
            <h2>{ "On the wire" }</h2>
            <svg viewBox={format!("0 0 {W} {H}")} role="img" aria-label="ZooKeeper, the brokers and the messages between them">
                { for props.brokers.iter().map(|b| {
                    let (x, y) = position(&format!("broker-{}", b.id), &props.brokers);
                    html! { <line class="link" x1={(W / 2.0).to_string()} y1="36" x2={x.to_string()} y2={y.to_string()} /> }
                }) }
                <g class="node zk">
                    <rect x={(W / 2.0 - 48.0).to_string()} y="16" width="96" height="40" rx="8" />
                    <text x={(W / 2.0).to_string()} y="41" text-anchor="middle">{ "ZooKeeper" }</text>
                </g>
                { for props.brokers.iter().map(|b| {
                    let (x, y) = position(&format!("broker-{}", b.id), &props.brokers);
                    let class = classes!(
                        "node", "broker-node", format!("status-{}", b.status),
                        (props.controller == Some(b.id)).then_some("controller")
                    );
                    html! {
                        <g {class}>
                            <circle cx={x.to_string()} cy={y.to_string()} r="26" />
                            <text x={x.to_string()} y={(y + 5.0).to_string()} text-anchor="middle">{ b.id.to_string() }</text>
                            <text class="sub" x={x.to_string()} y={(y + 44.0).to_string()} text-anchor="middle">{ b.status.replace('_', " ") }</text>
                        </g>
                    }
                }) }
                { for inflight.iter().map(|m| {
                    let (x1, y1) = position(&m.from, &props.brokers);
                    let (x2, y2) = position(&m.to, &props.brokers);
                    let total = m.arrives_at_ms.saturating_sub(m.sent_at_ms).max(1) as f64;
                    let f = (props.now_ms.saturating_sub(m.sent_at_ms) as f64 / total).clamp(0.0, 1.0);
                    // Messages between two brokers bow below the line so both directions show.
                    let bow = if m.from != "zk" && m.to != "zk" { 40.0 * (f * std::f64::consts::PI).sin() } else { 0.0 };
                    let (mut x, mut y) = (x1 + (x2 - x1) * f, y1 + (y2 - y1) * f + bow);
                    if m.from == m.to {
                        // A controller's request to its own broker loops out and back.
                        let a = f * std::f64::consts::TAU;
                        x += 38.0 * a.sin();
                        y -= 38.0 * (1.0 - a.cos()) / 2.0 + 30.0;
                    }
                    let id = m.id;
                    let onclick = {
                        let selected = selected.clone();
                        Callback::from(move |_: MouseEvent| selected.set(Some(id)))
                    };
                    let label = match m.controller_epoch {
                        Some(e) => format!("{} e{e}", short(&m.kind)),
                        None => "watch".to_string(),
                    };
                    let class = classes!("msg", m.kind.replace(' ', "-").to_lowercase(), (*selected == Some(id)).then_some("selected"));
                    html! {
                        <g {class} {onclick} role="button" aria-label={format!("Inspect message {id}: {} from {} to {}", m.kind, m.from, m.to)}>
                            <circle cx={x.to_string()} cy={y.to_string()} r="7" />
                            <text x={(x + 9.0).to_string()} y={(y - 6.0).to_string()}>{ label }</text>
                        </g>
                    }
                }) }
            </svg>
            { for detail.map(|m| html! {
                <div class="inspect" role="status">
                    <strong>{ format!("#{} {}", m.id, m.kind) }</strong>
                    { format!(" {} → {}", m.from, m.to) }
                    { m.controller_epoch.map(|e| format!(" · controller epoch {e}")).unwrap_or_default() }
                    { format!(" · sent {:.3} s · arrives {:.3} s", m.sent_at_ms as f64 / 1000.0, m.arrives_at_ms as f64 / 1000.0) }
                    <div class="summary">{ &m.summary }</div>
                </div>
            }) }
        </section>
    }
}

fn short(kind: &str) -> String {
    kind.replace("LeaderAndIsr", "LAI")
        .replace("UpdateMetadata", "UM")
        .replace("StopReplica", "SR")
        .replace(" response", "↩")
}
