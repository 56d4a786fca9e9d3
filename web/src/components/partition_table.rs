//! Partitions: state, AR with the preferred replica marked, ISR, leader,
//! epochs, logs and the high watermark; cluster and per-topic unclean election
//! toggles, auto-rebalance shown read-only (a static config), and produce
//! buttons.

use crate::components::term::{term, TermId};
use crate::el::{self, attrs, click, el, eld, elo, list, on, s, st, string, text, Attr};
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

/// A partition's state cell when no running controller holds its state
/// (the large cluster's table draws it too).
pub(crate) fn no_controller_state(lang: Lang) -> Html {
    let t = |en: &'static str, zh: &'static str| lang.t(en, zh);
    eld(
        "td",
        &["title", "class"],
        Box::new([
            s(t("no running controller holds this partition's state (the one /controller names may be paused, dead or a zombie); leader and ISR are what ZooKeeper's state znode holds", "没有运行中的控制器持有这个分区的状态（/controller 指向的控制器可能已暂停、宕机或成了僵尸）；leader 和 ISR 取自 ZooKeeper 中的 state 节点")),
            s("pstate no-controller"),
        ]),
        text(t("no active controller", "无活动控制器")),
    )
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
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    let td = |cls: &'static [Attr], h: Html| el("td", cls, h);
    let pstate = if p.state_known_by.is_some() {
        td(
            attrs!("class" = "pstate"),
            list(vec![
                list(vec![
                    if let Some(t_id) = TermId::of_partition_state(p.state.name()) {
                        term(t_id, text(p.state.name()))
                    } else {
                        text(p.state.name())
                    },
                ]),
                text(if p.deleting {
                    t(" (deleting)", "（删除中）")
                } else if p.reassigning {
                    t(" (reassigning)", "（重分配中）")
                } else {
                    ""
                }),
            ]),
        )
    } else {
        no_controller_state(lang)
    };
    let replicas = p
        .replicas
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let leo = p.log_end_offsets.get(i).copied().flatten();
            let class = classes!(
                "replica",
                (i == 0).then_some("preferred"),
                (p.leader == Some(*r)).then_some("leader"),
                (!p.isr.contains(r)).then_some("out-of-isr"),
            );
            let title = {
                let leo = leo.map_or("-".into(), |l| l.to_string());
                lang.f(
                    || {
                        format!(
                            "broker {r}{}; log end offset {leo}",
                            if i == 0 { " (preferred)" } else { "" }
                        )
                    },
                    || {
                        format!(
                            "broker {r}{}；LEO {leo}",
                            if i == 0 { "（优先副本）" } else { "" }
                        )
                    },
                )
            };
            eld(
                "span",
                &["title", "class"],
                Box::new([st(title), el::class(class)]),
                list(vec![
                    string(r.to_string()),
                    text(if i == 0 { "*" } else { "" }),
                    el(
                        "sub",
                        &[],
                        string(leo.map_or("-".into(), |l| l.to_string())),
                    ),
                ]),
            )
        })
        .collect();
    let button = crate::el::labelled_button;
    eld(
        "tr",
        &["data-partition", "class"],
        Box::new([
            st(p.tp.to_string()),
            el::class(classes!(
                "partition",
                state_class,
                (!p.available).then_some("unavailable"),
                // Leader, ISR or epochs changed in the last second of virtual time.
                p.changed_at_ms
                    .is_some_and(|t| now_ms.saturating_sub(t) < 1_000)
                    .then_some("changed")
            )),
        ]),
        list(vec![
            td(attrs!("class" = "tp"), string(p.tp.to_string())),
            list(vec![pstate]),
            td(attrs!("class" = "replicas"), list(replicas)),
            td(attrs!("class" = "isr"), string(ids_text(&p.isr))),
            td(
                attrs!("class" = "leader"),
                string(
                    p.leader
                        .map_or(t("none", "无").to_string(), |l| l.to_string()),
                ),
            ),
            td(
                attrs!("class" = "leader-epoch"),
                string(p.leader_epoch.to_string()),
            ),
            td(attrs!("class" = "hw"), string(p.high_watermark.to_string())),
            td(
                attrs!("class" = "missing extra"),
                string(if missing.is_empty() {
                    "-".to_string()
                } else {
                    comma_list(missing)
                }),
            ),
            td(
                attrs!("class" = "ctrl-epoch extra"),
                string(p.controller_epoch.to_string()),
            ),
            td(
                attrs!("class" = "unavail-time extra"),
                string(format!("{:.1} s", p.unavailable_ms as f64 / 1000.0)),
            ),
            td(
                attrs!("class" = "row-actions extra"),
                list(vec![
                    button(
                        lang.f(
                            || format!("Produce 5 records to {} with acks=all", p.tp),
                            || format!("以 acks=all 向 {} 写入 5 条消息", p.tp),
                        ),
                        produce,
                        "+5 acks=all",
                    ),
                    button(
                        lang.f(
                            || format!("Produce 5 records to {} with acks=1", p.tp),
                            || format!("以 acks=1 向 {} 写入 5 条消息", p.tp),
                        ),
                        produce1,
                        "+5 acks=1",
                    ),
                ]),
            ),
            td(attrs!("class" = "caches extra all-only"), caches(p, lang)),
        ]),
    )
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
        eld(
            "span",
            &["title", "class"],
            Box::new([
                s(if stale {
                    lang.t("behind the state znode", "落后于 state 节点")
                } else {
                    lang.t("up to date", "最新")
                }),
                el::class(classes!("cache", stale.then_some("stale"))),
            ]),
            string(format!("{who}: {} [{isr}] ", c.leader)),
        )
    };
    let mut v: Vec<Html> = p
        .controller_cache
        .iter()
        .map(|c| show("ctrl".to_string(), c))
        .collect();
    v.extend(
        p.broker_caches
            .iter()
            .map(|(b, c)| show(format!("b{b}"), c)),
    );
    list(v)
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
    let topics = v.topics.iter().map(|topic| {
        let t = topic.name.as_str();
        // The topic's own override as the core read it; without one the button shows off.
        let on_ = topic.unclean_leader_election_enable == Some(true);
        let toggle = {
            let cb = props.on_msg.clone();
            let topic = topic.name.clone();
            Callback::from(move |_: MouseEvent| {
                cb.emit(Msg::Act(Action::SetConfig {
                    key: "unclean.leader.election.enable".into(),
                    value: json!(!on_),
                    topic: Some(topic.clone()),
                }))
            })
        };
        let th = |h: Html| el("th", &[], h);
        let extra = |h: Html| el("th", attrs!("class" = "extra"), h);
        let heads = vec![
            th(text(lang.t("partition", "分区"))),
            th(text(lang.t("state", "状态"))),
            eld(
                "th",
                &["title"],
                Box::new([s(lang.t(
                    "assigned replicas; * the preferred one, the log end offset below each",
                    "分配的副本；* 为优先副本，下标为各副本的 LEO",
                ))]),
                list(vec![
                    term(TermId::Ar, text("AR")),
                    text(" ("),
                    term(
                        TermId::PreferredReplica,
                        text(lang.t("*preferred", "*优先")),
                    ),
                    text(")"),
                ]),
            ),
            th(term(TermId::Isr, text("ISR"))),
            th(text("leader")),
            th(term(TermId::LeaderEpoch, text("leader epoch"))),
            th(term(TermId::Hw, text("HW"))),
            extra(text(lang.t("not in ISR", "不在 ISR"))),
            extra(term(
                TermId::ControllerEpoch,
                text(lang.t("ctrl epoch", "控制器纪元")),
            )),
            extra(text(lang.t("unavailable", "不可用"))),
            el(
                "th",
                attrs!("class" = "extra produce"),
                text(lang.t("produce", "写入")),
            ),
            el(
                "th",
                attrs!("class" = "extra all-only"),
                text(lang.t("cached by controller / brokers", "控制器 / broker 的缓存")),
            ),
        ];
        el(
            "div",
            attrs!("class" = "topic"),
            list(vec![
                el(
                    "h3",
                    &[],
                    list(vec![
                        string(lang.f(|| format!("topic {t}"), || format!("主题 {t}"))),
                        elo(
                            "button",
                            &["aria-pressed", "aria-label"],
                            Box::new([
                                st(on_.to_string()),
                                st(lang.f(
                                    || {
                                        format!(
                                            "Toggle unclean.leader.election.enable for topic {t}"
                                        )
                                    },
                                    || format!("切换主题 {t} 的 unclean.leader.election.enable"),
                                )),
                            ]),
                            on(Box::new([click(toggle)])),
                            string(lang.f(
                                || format!("unclean election: {}", on_off(on_)),
                                || format!("unclean 选举：{}", on_off(on_)),
                            )),
                        ),
                    ]),
                ),
                el(
                    "div",
                    attrs!("class" = "table-scroll"),
                    el(
                        "table",
                        &[],
                        list(vec![
                            el("thead", &[], el("tr", &[], list(heads))),
                            el(
                                "tbody",
                                &[],
                                list(
                                    v.partitions
                                        .iter()
                                        .filter(|p| p.tp.topic == t)
                                        .map(|p| row(p, v.time_ms, &props.on_msg, lang))
                                        .collect(),
                                ),
                            ),
                        ]),
                    ),
                ),
            ]),
        )
    });
    let mut children = vec![
        el("h2", &[], text(t("Partitions", "分区"))),
        el(
            "div",
            attrs!("class" = "toggles"),
            list(vec![
                elo(
                    "button",
                    &["aria-pressed", "aria-label"],
                    Box::new([
                        st(v.unclean_enabled.to_string()),
                        s(t(
                            "Toggle unclean.leader.election.enable for the cluster",
                            "切换集群的 unclean.leader.election.enable",
                        )),
                    ]),
                    on(Box::new([click(cluster_unclean)])),
                    string(lang.f(
                        || format!("cluster unclean election: {}", on_off(v.unclean_enabled)),
                        || format!("集群 unclean 选举：{}", on_off(v.unclean_enabled)),
                    )),
                ),
                // auto.leader.rebalance.enable is a static broker config in Kafka 2.4:
                // shown, not toggled (the core refuses to change it at run time).
                eld(
                    "span",
                    &["role", "aria-label", "title", "class"],
                    Box::new([
                        s("note"),
                        s("auto.leader.rebalance.enable (static)"),
                        s(t("auto.leader.rebalance.enable is a static broker config in Kafka 2.4: it is read from server.properties at start-up and cannot change while the cluster runs. Set it in the scenario's config.",
                            "auto.leader.rebalance.enable 在 Kafka 2.4 中是静态的 broker 配置：启动时从 server.properties 读取，集群运行期间不能修改。请在场景的配置中设置。")),
                        s("static-config"),
                    ]),
                    string(lang.f(
                        || format!("auto-rebalance: {} (static)", on_off(v.auto_rebalance_enabled)),
                        || format!("自动再平衡：{}（静态）", on_off(v.auto_rebalance_enabled)),
                    )),
                ),
                elo(
                    "button",
                    &["aria-label"],
                    Box::new([s(t(
                        "Run a preferred replica election for every partition",
                        "为所有分区执行优先副本选举",
                    ))]),
                    on(Box::new([click(preferred)])),
                    text(t("preferred election", "优先副本选举")),
                ),
                elo(
                    "button",
                    &["aria-pressed", "aria-label", "class"],
                    Box::new([
                        st(all.to_string()),
                        s(t(
                            "Show every column (not in ISR, controller epoch, unavailable time, produce, caches)",
                            "显示所有列（不在 ISR 中、控制器纪元、不可用时间、写入、缓存）",
                        )),
                        s("more-columns"),
                    ]),
                    on(Box::new([click(toggle_all)])),
                    text(if *all {
                        t("fewer columns", "收起列")
                    } else {
                        t("more columns, produce", "更多列、写入")
                    }),
                ),
            ]),
        ),
    ];
    children.extend(topics);
    eld(
        "section",
        &["id", "aria-label", "class"],
        Box::new([
            s("p-partitions"),
            s(t("Partitions", "分区")),
            el::class(classes!(
                "panel",
                "partitions",
                all.then_some("all-columns")
            )),
        ]),
        list(children),
    )
}
