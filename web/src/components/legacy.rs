//! "Before the controller (historical design)": the core runs the current
//! scenario, with the actions done so far, both in Kafka's pre-0.8 design
//! (every broker watching ZooKeeper itself) and in the controller design, and
//! this panel shows its counts side by side. It computes nothing itself.

use crate::el::{attrs, class, click, el, eld, elo, list, on, s, string, text};
use crate::i18n::{facts::fact_text, use_lang, Lang};
use crate::state::SimState;
use kcsim_core::fact::Fact;
use kcsim_core::legacy::{compare, CompareError, Comparison, Counts};
use std::collections::BTreeMap;
use yew::prelude::*;

/// Where the page's copy of the model's documentation is served.
pub const DOCS_HREF: &str = "before-the-controller.md";

/// Properties of [`Legacy`].
#[derive(Properties, PartialEq, Debug)]
pub struct LegacyProps {
    /// The page: the scenario as started, with the actions done up to now,
    /// is built from it on a click (not on every frame).
    pub state: SimState,
}

/// What the last click computed, and for which moment.
#[derive(Debug, Clone, PartialEq)]
struct Run {
    at_ms: u64,
    result: Result<Comparison, CompareError>,
}

fn error_text(e: &CompareError, lang: Lang) -> String {
    match e {
        CompareError::TooLarge { replicas, max } => lang.f(
            || format!("This cluster has {replicas} replicas; the comparison runs clusters of up to {max}."),
            || format!("这个集群有 {replicas} 个副本；对比最多支持 {max} 个副本的集群。"),
        ),
    }
}

fn seconds(ms: u64) -> String {
    format!("{:.1}", ms as f64 / 1000.0)
}

/// A row of the totals table: its class, its label and how to read the number.
type Row = (&'static str, String, fn(&Counts) -> String);

/// The rows of the totals table.
fn rows(lang: Lang) -> Vec<Row> {
    vec![
        (
            "notifications",
            lang.t("watch notifications", "监听器通知（watch）")
                .to_string(),
            |c| c.watch_notifications.to_string(),
        ),
        (
            "reads",
            lang.t("ZooKeeper reads", "ZooKeeper 读请求").to_string(),
            |c| c.zk_reads.to_string(),
        ),
        (
            "writes",
            lang.t("ZooKeeper writes", "ZooKeeper 写请求").to_string(),
            |c| c.zk_writes.to_string(),
        ),
        (
            "races",
            lang.t("lost races (NodeExists)", "竞争失败（NodeExists）")
                .to_string(),
            |c| c.failed_races.to_string(),
        ),
        (
            "bad-version",
            lang.t("BadVersion retries", "BadVersion 重试").to_string(),
            |c| c.bad_version_retries.to_string(),
        ),
        (
            "conflicts",
            lang.t("conflicting decisions (split brain)", "冲突的决定（脑裂）")
                .to_string(),
            |c| c.conflicting_decisions.to_string(),
        ),
        (
            "split-ms",
            lang.t("time in split brain (s)", "处于脑裂的时间（秒）")
                .to_string(),
            |c| seconds(c.split_brain_ms),
        ),
    ]
}

/// The panel.
#[component]
pub fn Legacy(props: &LegacyProps) -> Html {
    let lang = use_lang();
    let run = use_state(|| None::<Run>);
    let onclick = {
        let run = run.clone();
        let state = props.state.clone();
        Callback::from(move |_: MouseEvent| {
            run.set(Some(Run {
                at_ms: state.now_ms(),
                result: compare(&state.scenario_so_far()),
            }));
        })
    };
    let t = |en: &'static str, zh: &'static str| lang.t(en, zh);
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    let result = match &*run {
        None => Html::default(),
        Some(Run {
            at_ms,
            result: Err(e),
        }) => el(
            "p",
            attrs!("role" = "alert", "class" = "legacy-error"),
            string(format!(
                "{} ({} {} s)",
                error_text(e, lang),
                t("at", "时间"),
                seconds(*at_ms)
            )),
        ),
        Some(Run {
            at_ms,
            result: Ok(c),
        }) => view_comparison(c, *at_ms, lang),
    };
    let title = t(
        "Before the controller (historical design)",
        "控制器出现之前（历史设计）",
    );
    eld(
        "section",
        &["id", "aria-label", "class"],
        Box::new([s("p-legacy"), s(title), s("panel legacy")]),
        list(vec![
            el("h2", &[], text(title)),
            el("p", attrs!("class" = "legacy-badge"), text(t("Historical: Kafka's first replication design (before 0.8), replaced by the controller. Not how Kafka 2.4 works.",
                "历史设计：Kafka 最早的副本复制设计（0.8 之前），后来被控制器取代。Kafka 2.4 并不这样工作。"))),
            el("p", attrs!("class" = "legacy-explain"), text(t(
                "Before the controller, every broker watched ZooKeeper itself: /brokers/ids and the leader and ISR znodes of every partition it hosts. One change wakes every broker watching it (the herd effect); each re-reads ZooKeeper and acts on its own, racing to create a partition's ephemeral leader znode, so ZooKeeper carries the load of all of them. A broker whose session expired leads on until it notices, beside the new leader (split brain). With a controller, only the controller watches the cluster's state (every broker still watches /controller), decides, and tells the brokers.",
                "在控制器出现之前，每个 broker 都自己监听 ZooKeeper：/brokers/ids，以及它所承载的每个分区的 leader 和 ISR 节点。一次变化会唤醒所有监听它的 broker（羊群效应）；每个 broker 都重新读取 ZooKeeper 并各自行动，争相创建分区的 leader 临时节点，于是 ZooKeeper 要承受所有 broker 的负载。会话已过期的 broker 在察觉之前仍以 leader 自居，与新 leader 并存（脑裂）。有了控制器之后，只有控制器监听集群状态（每个 broker 仍监听 /controller 节点）、做出决策并通知各个 broker。"))),
            el(
                "p",
                attrs!("class" = "legacy-actions"),
                list(vec![
                    elo(
                        "button",
                        &["aria-label", "class"],
                        Box::new([
                            s(t(
                                "Compare the two designs on this cluster and the actions done so far",
                                "就当前集群和目前为止的操作比较两种设计",
                            )),
                            s("legacy-run"),
                        ]),
                        on(Box::new([click(onclick)])),
                        text(t("Compare the designs up to now", "比较两种设计（截至此刻）")),
                    ),
                    eld(
                        "a",
                        &["href", "target", "rel", "class"],
                        Box::new([
                            s(DOCS_HREF),
                            s("_blank"),
                            s("noopener noreferrer"),
                            s("legacy-docs"),
                        ]),
                        text(t("How it is modelled", "建模方式说明")),
                    ),
                ]),
            ),
            result,
        ]),
    )
}

fn view_comparison(c: &Comparison, at_ms: u64, lang: Lang) -> Html {
    let t = |en: &'static str, zh: &'static str| lang.t(en, zh);
    let head_legacy = t("before the controller", "控制器之前");
    let head_ctl = t("controller design", "控制器设计");
    let stretch_label = |actions: &[kcsim_core::Action]| -> String {
        if actions.is_empty() {
            t("start-up", "启动").to_string()
        } else {
            actions
                .iter()
                .map(|a| fact_text(&Fact::UserAction(a.clone()), lang))
                .collect::<Vec<_>>()
                .join(t("; ", "；"))
        }
    };
    let mut not_modelled: BTreeMap<&'static str, usize> = BTreeMap::new();
    for (_, a) in &c.not_modelled {
        *not_modelled.entry(a.name()).or_default() += 1;
    }
    let until = c.until_ms;
    let (brokers, partitions) = (c.brokers, c.partitions);
    let col = |h: Html| el("th", attrs!("scope" = "col"), h);
    let td = |h: Html| el("td", &[], h);
    let hist = |h: Html| el("span", attrs!("class" = "hist"), h);
    let totals = rows(lang)
        .into_iter()
        .map(|(key, label, get)| {
            eld(
                "tr",
                &["class"],
                Box::new([class(key.into())]),
                list(vec![
                    el("th", attrs!("scope" = "row"), string(label)),
                    el("td", attrs!("class" = "hist"), string(get(&c.legacy))),
                    td(string(get(&c.controller))),
                ]),
            )
        })
        .collect();
    let pair = |a: u64, b: u64| {
        td(list(vec![
            hist(string(a.to_string())),
            text(" / "),
            string(b.to_string()),
        ]))
    };
    let segments = c
        .segments
        .iter()
        .map(|s| {
            el(
                "tr",
                &[],
                list(vec![
                    td(string(seconds(s.from_ms))),
                    el(
                        "td",
                        attrs!("class" = "what"),
                        string(stretch_label(&s.actions)),
                    ),
                    pair(
                        s.legacy.watch_notifications,
                        s.controller.watch_notifications,
                    ),
                    pair(s.legacy.zk_requests(), s.controller.zk_requests()),
                    pair(
                        s.legacy.conflicting_decisions,
                        s.controller.conflicting_decisions,
                    ),
                ]),
            )
        })
        .collect();
    el(
        "div",
        attrs!("aria-live" = "polite", "class" = "legacy-result"),
        list(vec![
            el(
                "p",
                attrs!("class" = "legacy-scope"),
                string(lang.f(
                    || format!("Computed at {} s: {brokers} brokers, {partitions} partitions, both designs run to {} s (the last fault, a session timeout, then 10 s).", seconds(at_ms), seconds(until)),
                    || format!("于 {} 秒计算：{brokers} 个 broker，{partitions} 个分区，两种设计都运行到 {} 秒（最后一次故障之后，再加一个会话超时和 10 秒）。", seconds(at_ms), seconds(until)),
                )),
            ),
            el(
                "table",
                attrs!("class" = "legacy-totals"),
                list(vec![
                    el("caption", &[], text(t("Totals", "合计"))),
                    el(
                        "thead",
                        &[],
                        el(
                            "tr",
                            &[],
                            list(vec![
                                col(text(t("count", "计数"))),
                                el("th", attrs!("scope" = "col", "class" = "hist"), text(head_legacy)),
                                col(text(head_ctl)),
                            ]),
                        ),
                    ),
                    el("tbody", &[], list(totals)),
                ]),
            ),
            el(
                "table",
                attrs!("class" = "legacy-segments"),
                list(vec![
                    el(
                        "caption",
                        &[],
                        text(t("Per fault (historical / controller)", "按故障（历史 / 控制器）")),
                    ),
                    el(
                        "thead",
                        &[],
                        el(
                            "tr",
                            &[],
                            list(vec![
                                col(text(t("from (s)", "起始（秒）"))),
                                col(text(t("what happened", "发生了什么"))),
                                col(text(t("notifications", "通知"))),
                                col(text(t("ZooKeeper requests", "ZooKeeper 请求"))),
                                col(text(t("split brain", "脑裂"))),
                            ]),
                        ),
                    ),
                    el("tbody", &[], list(segments)),
                ]),
            ),
            list(if not_modelled.is_empty() {
                Vec::new()
            } else {
                vec![el(
                    "p",
                    attrs!("class" = "legacy-unmodelled"),
                    list(vec![
                        text(t("Not modelled in the historical design (they run in the controller design only): ", "历史设计中未建模的操作（只在控制器设计中执行）：")),
                        string(
                            not_modelled
                                .iter()
                                .map(|(name, n)| format!("{name} ×{n}"))
                                .collect::<Vec<_>>()
                                .join(", "),
                        ),
                    ]),
                )]
            }),
        ]),
    )
}
