//! Partitions: state, AR with the preferred replica marked, ISR, leader,
//! epochs, logs and the high watermark; cluster and per-topic unclean election
//! toggles, auto-rebalance shown read-only (a static config), and produce
//! buttons.

use crate::state::Msg;
use kcsim_core::ids::{comma_list, ids_text};
use kcsim_core::log::Acks;
use kcsim_core::view::PartitionView;
use kcsim_core::{Action, BrokerId, ClusterView};
use serde_json::json;
use yew::prelude::*;

/// Properties of [`PartitionTable`].
#[derive(Properties, PartialEq, Debug)]
pub struct PartitionTableProps {
    /// The whole view (partitions, topic configs, cluster settings).
    pub view: ClusterView,
    /// Where actions go.
    pub on_msg: Callback<Msg>,
}

fn row(p: &PartitionView, now_ms: u64, on_msg: &Callback<Msg>) -> Html {
    let produce_with = |acks: Acks| {
        let cb = on_msg.clone();
        let (topic, partition) = (p.tp.topic.clone(), p.tp.partition);
        Callback::from(move |_: MouseEvent| {
            cb.emit(Msg::Act(Action::Produce {
                topic: topic.clone(),
                partition,
                records: 5,
                acks,
            }))
        })
    };
    let (produce, produce1) = (produce_with(Acks::All), produce_with(Acks::Leader));
    let missing: Vec<&BrokerId> = p.replicas.iter().filter(|r| !p.isr.contains(r)).collect();
    let state_class = p.state.name().to_lowercase();
    html! {
        <tr class={classes!(
            "partition",
            state_class,
            (!p.available).then_some("unavailable"),
            // Leader, ISR or epochs changed in the last second of virtual time.
            p.changed_at_ms.is_some_and(|t| now_ms.saturating_sub(t) < 1_000).then_some("changed")
        )} data-partition={p.tp.to_string()}>
            <td class="tp">{ p.tp.to_string() }</td>
            if p.state_known_by.is_some() {
                <td class="pstate">{ p.state.name() }{ if p.deleting { " (deleting)" } else if p.reassigning { " (reassigning)" } else { "" } }</td>
            } else {
                <td class="pstate no-controller" title="no running controller holds this partition's state; leader and ISR are what ZooKeeper's state znode holds">{ "no controller" }</td>
            }
            <td class="replicas">
                { for p.replicas.iter().enumerate().map(|(i, r)| {
                    let leo = p.log_end_offsets.get(i).copied().flatten();
                    let class = classes!(
                        "replica",
                        (i == 0).then_some("preferred"),
                        (p.leader == Some(*r)).then_some("leader"),
                        (!p.isr.contains(r)).then_some("out-of-isr"),
                    );
                    html! { <span class={class} title={format!("broker {r}{}; log end offset {}", if i == 0 { " (preferred)" } else { "" }, leo.map_or("-".into(), |l| l.to_string()))}>
                        { r.to_string() }{ if i == 0 { "*" } else { "" } }<sub>{ leo.map_or("-".into(), |l| l.to_string()) }</sub>
                    </span> }
                }) }
            </td>
            <td class="isr">{ ids_text(&p.isr) }</td>
            <td class="leader">{ p.leader.map_or("none".to_string(), |l| l.to_string()) }</td>
            <td class="leader-epoch">{ p.leader_epoch }</td>
            <td class="hw">{ p.high_watermark }</td>
            <td class="missing extra">{ if missing.is_empty() { "-".to_string() } else { comma_list(missing) } }</td>
            <td class="ctrl-epoch extra">{ p.controller_epoch }</td>
            <td class="unavail-time extra">{ format!("{:.1} s", p.unavailable_ms as f64 / 1000.0) }</td>
            <td class="row-actions extra">
                <button aria-label={format!("Produce 5 records to {} with acks=all", p.tp)} onclick={produce}>{ "+5 acks=all" }</button>
                <button aria-label={format!("Produce 5 records to {} with acks=1", p.tp)} onclick={produce1}>{ "+5 acks=1" }</button>
            </td>
            <td class="caches extra all-only">{ caches(p) }</td>
        </tr>
    }
}

/// Who holds which copy of the leadership: the controller's cache and each
/// running broker's metadata cache; copies behind ZooKeeper's are marked stale.
fn caches(p: &PartitionView) -> Html {
    let truth = (
        p.leader.map_or(-1, |b| b.0 as i32),
        p.leader_epoch,
        p.isr.clone(),
    );
    let show = |who: String, c: &kcsim_core::view::CachedLeadership| {
        let stale = (c.leader, c.leader_epoch, c.isr.clone()) != truth;
        let isr = comma_list(&c.isr);
        html! {
            <span class={classes!("cache", stale.then_some("stale"))} title={if stale { "behind the state znode" } else { "up to date" }}>
                { format!("{who}: {} [{isr}] ", c.leader) }
            </span>
        }
    };
    html! {
        <>
            { for p.controller_cache.iter().map(|c| show("ctrl".to_string(), c)) }
            { for p.broker_caches.iter().map(|(b, c)| show(format!("b{b}"), c)) }
        </>
    }
}

/// The partition table.
#[component]
pub fn PartitionTable(props: &PartitionTableProps) -> Html {
    let v = &props.view;
    // The key columns always; the others (not in ISR, controller epoch,
    // unavailable time, produce, the caches) when there is room or when asked.
    let all = use_state(|| false);
    let toggle_all = {
        let all = all.clone();
        Callback::from(move |_: MouseEvent| all.set(!*all))
    };
    let cluster_unclean = {
        let cb = props.on_msg.clone();
        let on = !v.unclean_enabled;
        Callback::from(move |_: MouseEvent| {
            cb.emit(Msg::Act(Action::SetConfig {
                key: "unclean.leader.election.enable".into(),
                value: json!(on),
                topic: None,
            }))
        })
    };
    let preferred = {
        let cb = props.on_msg.clone();
        Callback::from(move |_: MouseEvent| {
            cb.emit(Msg::Act(Action::PreferredElection { partitions: None }))
        })
    };
    html! {
        <section id="p-partitions" class={classes!("panel", "partitions", all.then_some("all-columns"))} aria-label="Partitions">
            <h2>{ "Partitions" }</h2>
            <div class="toggles">
                <button aria-pressed={v.unclean_enabled.to_string()} aria-label="Toggle unclean.leader.election.enable for the cluster" onclick={cluster_unclean}>
                    { format!("cluster unclean election: {}", if v.unclean_enabled { "on" } else { "off" }) }
                </button>
                // auto.leader.rebalance.enable is a static broker config in Kafka 2.4:
                // shown, not toggled (the core refuses to change it at run time).
                <span class="static-config" role="note" aria-label="auto.leader.rebalance.enable (static)"
                    title="auto.leader.rebalance.enable is a static broker config in Kafka 2.4: it is read from server.properties at start-up and cannot change while the cluster runs. Set it in the scenario's config.">
                    { format!("auto-rebalance: {} (static)", if v.auto_rebalance_enabled { "on" } else { "off" }) }
                </span>
                <button aria-label="Run a preferred replica election for every partition" onclick={preferred}>{ "preferred election" }</button>
                <button class="more-columns" aria-pressed={all.to_string()} aria-label="Show every column (not in ISR, controller epoch, unavailable time, produce, caches)" onclick={toggle_all}>
                    { if *all { "fewer columns" } else { "more columns, produce" } }
                </button>
            </div>
            { for v.topics.iter().map(|topic| {
                let t = topic.name.as_str();
                // The topic's own override as the core read it; without one the button shows off.
                let on = topic.unclean_leader_election_enable == Some(true);
                let toggle = {
                    let cb = props.on_msg.clone();
                    let topic = topic.name.clone();
                    Callback::from(move |_: MouseEvent| cb.emit(Msg::Act(Action::SetConfig {
                        key: "unclean.leader.election.enable".into(), value: json!(!on), topic: Some(topic.clone()),
                    })))
                };
                html! {
                    <div class="topic">
                        <h3>{ format!("topic {t}") }
                            <button aria-pressed={on.to_string()} aria-label={format!("Toggle unclean.leader.election.enable for topic {t}")} onclick={toggle}>
                                { format!("unclean election: {}", if on { "on" } else { "off" }) }
                            </button>
                        </h3>
                        <div class="table-scroll"><table>
                            <thead><tr>
                                <th>{ "partition" }</th><th>{ "state" }</th><th title="assigned replicas; * the preferred one, the log end offset below each">{ "AR (*preferred)" }</th><th>{ "ISR" }</th>
                                <th>{ "leader" }</th><th>{ "leader epoch" }</th><th title="high watermark">{ "HW" }</th>
                                <th class="extra">{ "not in ISR" }</th><th class="extra">{ "ctrl epoch" }</th><th class="extra">{ "unavailable" }</th>
                                <th class="extra produce">{ "produce" }</th><th class="extra all-only">{ "cached by controller / brokers" }</th>
                            </tr></thead>
                            <tbody>{ for v.partitions.iter().filter(|p| p.tp.topic == t).map(|p| row(p, v.time_ms, &props.on_msg)) }</tbody>
                        </table></div>
                    </div>
                }
            }) }
        </section>
    }
}
