//! Partitions: state, AR with the preferred replica marked, ISR, leader,
//! epochs, logs and the high watermark; cluster and per-topic unclean election
//! toggles, auto-rebalance shown read-only (a static config), and produce
//! buttons.

use crate::components::term::{Term, TermId};
use crate::i18n::{use_lang, Lang};
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

fn row(p: &PartitionView, now_ms: u64, on_msg: &Callback<Msg>, lang: Lang) -> Html {
    let t = |en: &'static str, zh: &'static str| lang.t(en, zh);
    let produce_with = |acks: Acks| {
        let cb = on_msg.clone();
        let (topic, partition) = (p.tp.topic.to_string(), p.tp.partition);
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
    let state_class = p.state.name().to_ascii_lowercase();
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
                <td class="pstate">
                    if let Some(term) = TermId::of_partition_state(p.state.name()) { <Term name={term}>{ p.state.name() }</Term> } else { { p.state.name() } }
                    { if p.deleting { t(" (deleting)", "（删除中）") } else if p.reassigning { t(" (reassigning)", "（重分配中）") } else { "" } }
                </td>
            } else {
                <td class="pstate no-controller" title={t("no running controller holds this partition's state (the one /controller names may be paused, dead or a zombie); leader and ISR are what ZooKeeper's state znode holds", "没有运行中的控制器持有这个分区的状态（/controller 指向的控制器可能已暂停、宕机或成了僵尸）；leader 和 ISR 取自 ZooKeeper 中的 state 节点")}>{ t("no active controller", "无活动控制器") }</td>
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
                    html! { <span class={class} title={{ let leo = leo.map_or("-".into(), |l| l.to_string()); lang.f(
                        || format!("broker {r}{}; log end offset {leo}", if i == 0 { " (preferred)" } else { "" }),
                        || format!("broker {r}{}；LEO {leo}", if i == 0 { "（优先副本）" } else { "" })) }}>
                        { r.to_string() }{ if i == 0 { "*" } else { "" } }<sub>{ leo.map_or("-".into(), |l| l.to_string()) }</sub>
                    </span> }
                }) }
            </td>
            <td class="isr">{ ids_text(&p.isr) }</td>
            <td class="leader">{ p.leader.map_or(t("none", "无").to_string(), |l| l.to_string()) }</td>
            <td class="leader-epoch">{ p.leader_epoch }</td>
            <td class="hw">{ p.high_watermark }</td>
            <td class="missing extra">{ if missing.is_empty() { "-".to_string() } else { comma_list(missing) } }</td>
            <td class="ctrl-epoch extra">{ p.controller_epoch }</td>
            <td class="unavail-time extra">{ format!("{:.1} s", p.unavailable_ms as f64 / 1000.0) }</td>
            <td class="row-actions extra">
                <button aria-label={lang.f(|| format!("Produce 5 records to {} with acks=all", p.tp), || format!("以 acks=all 向 {} 写入 5 条消息", p.tp))} onclick={produce}>{ "+5 acks=all" }</button>
                <button aria-label={lang.f(|| format!("Produce 5 records to {} with acks=1", p.tp), || format!("以 acks=1 向 {} 写入 5 条消息", p.tp))} onclick={produce1}>{ "+5 acks=1" }</button>
            </td>
            <td class="caches extra all-only">{ caches(p, lang) }</td>
        </tr>
    }
}

/// Who holds which copy of the leadership: the controller's cache and each
/// running broker's metadata cache; copies behind ZooKeeper's are marked stale.
fn caches(p: &PartitionView, lang: Lang) -> Html {
    let truth = (
        p.leader.map_or(-1, |b| b.0 as i32),
        p.leader_epoch,
        p.isr.clone(),
    );
    let show = |who: String, c: &kcsim_core::view::CachedLeadership| {
        let stale = (c.leader, c.leader_epoch, c.isr.clone()) != truth;
        let isr = comma_list(&c.isr);
        html! {
            <span class={classes!("cache", stale.then_some("stale"))} title={if stale { lang.t("behind the state znode", "落后于 state 节点") } else { lang.t("up to date", "最新") }}>
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
    let lang = use_lang();
    let t = |en: &'static str, zh: &'static str| lang.t(en, zh);
    let on_off = |on: bool| if on { t("on", "开") } else { t("off", "关") };
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
        <section id="p-partitions" class={classes!("panel", "partitions", all.then_some("all-columns"))} aria-label={t("Partitions", "分区")}>
            <h2>{ t("Partitions", "分区") }</h2>
            <div class="toggles">
                <button aria-pressed={v.unclean_enabled.to_string()} aria-label={t("Toggle unclean.leader.election.enable for the cluster", "切换集群的 unclean.leader.election.enable")} onclick={cluster_unclean}>
                    { lang.f(|| format!("cluster unclean election: {}", on_off(v.unclean_enabled)), || format!("集群 unclean 选举：{}", on_off(v.unclean_enabled))) }
                </button>
                // auto.leader.rebalance.enable is a static broker config in Kafka 2.4:
                // shown, not toggled (the core refuses to change it at run time).
                <span class="static-config" role="note" aria-label="auto.leader.rebalance.enable (static)"
                    title={t("auto.leader.rebalance.enable is a static broker config in Kafka 2.4: it is read from server.properties at start-up and cannot change while the cluster runs. Set it in the scenario's config.",
                        "auto.leader.rebalance.enable 在 Kafka 2.4 中是静态的 broker 配置：启动时从 server.properties 读取，集群运行期间不能修改。请在场景的配置中设置。")}>
                    { lang.f(|| format!("auto-rebalance: {} (static)", on_off(v.auto_rebalance_enabled)), || format!("自动再平衡：{}（静态）", on_off(v.auto_rebalance_enabled))) }
                </span>
                <button aria-label={t("Run a preferred replica election for every partition", "为所有分区执行优先副本选举")} onclick={preferred}>{ t("preferred election", "优先副本选举") }</button>
                <button class="more-columns" aria-pressed={all.to_string()} aria-label={t("Show every column (not in ISR, controller epoch, unavailable time, produce, caches)", "显示所有列（不在 ISR 中、控制器纪元、不可用时间、写入、缓存）")} onclick={toggle_all}>
                    { if *all { t("fewer columns", "收起列") } else { t("more columns, produce", "更多列、写入") } }
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
                        <h3>{ lang.f(|| format!("topic {t}"), || format!("主题 {t}")) }
                            <button aria-pressed={on.to_string()} aria-label={lang.f(|| format!("Toggle unclean.leader.election.enable for topic {t}"), || format!("切换主题 {t} 的 unclean.leader.election.enable"))} onclick={toggle}>
                                { lang.f(|| format!("unclean election: {}", on_off(on)), || format!("unclean 选举：{}", on_off(on))) }
                            </button>
                        </h3>
                        <div class="table-scroll"><table>
                            <thead><tr>
                                <th>{ lang.t("partition", "分区") }</th><th>{ lang.t("state", "状态") }</th>
                                <th title={lang.t("assigned replicas; * the preferred one, the log end offset below each", "分配的副本；* 为优先副本，下标为各副本的 LEO")}>
                                    <Term name={TermId::Ar}>{ "AR" }</Term>{ " (" }<Term name={TermId::PreferredReplica}>{ lang.t("*preferred", "*优先") }</Term>{ ")" }</th>
                                <th><Term name={TermId::Isr}>{ "ISR" }</Term></th>
                                <th>{ "leader" }</th><th><Term name={TermId::LeaderEpoch}>{ "leader epoch" }</Term></th><th><Term name={TermId::Hw}>{ "HW" }</Term></th>
                                <th class="extra">{ lang.t("not in ISR", "不在 ISR") }</th><th class="extra"><Term name={TermId::ControllerEpoch}>{ lang.t("ctrl epoch", "控制器纪元") }</Term></th><th class="extra">{ lang.t("unavailable", "不可用") }</th>
                                <th class="extra produce">{ lang.t("produce", "写入") }</th><th class="extra all-only">{ lang.t("cached by controller / brokers", "控制器 / broker 的缓存") }</th>
                            </tr></thead>
                            <tbody>{ for v.partitions.iter().filter(|p| p.tp.topic == t).map(|p| row(p, v.time_ms, &props.on_msg, lang)) }</tbody>
                        </table></div>
                    </div>
                }
            }) }
        </section>
    }
}
