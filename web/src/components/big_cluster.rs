//! Large-cluster mode: the brokers as an aggregated grid with the core's
//! counts, the controller queues by depth, leaders per broker and offline
//! partitions over time, and the partitions as a virtualized, filterable
//! table. Nothing here is O(partitions) per frame except the table's filter,
//! which the core runs ([`SummaryCache::filter`]) and the page memoises per
//! change; only the rows in sight are drawn.

use crate::components::event_queue::{current_event, waiting_event};
use crate::el::{
    attrs, change, class, click, dynamic, el, eld, elo, flag as bool_attr, input, input_ev,
    input_ref, leaf, list, num, on, prop, s, scroll as on_scroll, shared, st, string, submit, tag,
    text, Attr,
};
use crate::i18n::{use_lang, Lang};
use crate::state::Msg;
use kcsim_core::controller::states::PartitionState;
use kcsim_core::summary::{
    Filter, SeriesPoint, Shape, ShapeError, SummaryCache, NOT_PREFERRED, UNAVAILABLE,
    UNDER_MIN_ISR, UNDER_REPLICATED,
};
use kcsim_core::view::{BrokerView, QueueView};
use kcsim_core::{Action, BrokerId};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;
use yew::virtual_dom::{Attributes, Listeners};

/// The table's row height (px) and the height of its window.
pub const ROW_H: u32 = 24;
/// See [`ROW_H`].
pub const VIEW_H: u32 = 384;

/// What the picker calls a sized cluster.
pub fn shape_title(s: &Shape, lang: Lang) -> String {
    let (b, t, p, r) = (s.brokers, s.topics, s.partitions, s.replication_factor);
    lang.f(
        || format!("Sized: {b} brokers, {t} × {p} partitions, RF {r}"),
        || format!("自定规模：{b} 个 broker、{t} × {p} 个分区、副本因子 {r}"),
    )
}

/// What the picker says about a sized cluster.
pub fn shape_about(s: &Shape, lang: Lang) -> String {
    let total = u64::from(s.topics) * u64::from(s.partitions);
    lang.f(
        || format!("{total} partitions created at 2 s once the brokers have registered: play until every partition has a leader (offline 0), then kill -9 the controller in the broker grid and watch the chart."),
        || format!("{total} 个分区在 broker 注册后于 2 秒创建：先播放到每个分区都有 leader（离线为 0），再在 broker 网格里对控制器 kill -9 并观察图表。"),
    )
}

/// The core's refusal of a shape, in the page's language.
pub fn shape_error(e: &ShapeError, lang: Lang) -> String {
    use kcsim_core::summary::{MAX_BROKERS, MAX_PARTITIONS, MAX_PARTITIONS_PER_TOPIC, MAX_TOPICS};
    match *e {
        ShapeError::Brokers(n) => lang.f(
            || format!("brokers: {n} is not from 1 to {MAX_BROKERS}"),
            || format!("broker 数：{n} 不在 1 到 {MAX_BROKERS} 之间"),
        ),
        ShapeError::Topics(n) => lang.f(
            || format!("topics: {n} is not from 1 to {MAX_TOPICS}"),
            || format!("主题数：{n} 不在 1 到 {MAX_TOPICS} 之间"),
        ),
        ShapeError::Partitions(n) => lang.f(
            || format!("partitions per topic: {n} is not from 1 to {MAX_PARTITIONS_PER_TOPIC}"),
            || format!("每个主题的分区数：{n} 不在 1 到 {MAX_PARTITIONS_PER_TOPIC} 之间"),
        ),
        ShapeError::Total(n) => lang.f(
            || format!("{n} partitions in all: more than the {MAX_PARTITIONS} Kafka's guideline allows a ZooKeeper-era cluster"),
            || format!("共 {n} 个分区：超过 Kafka 对基于 ZooKeeper 的集群建议的 {MAX_PARTITIONS} 个"),
        ),
        ShapeError::ReplicationFactorZero => lang.f(
            || "Replication factor must be larger than 0.".to_string(),
            || "副本因子必须大于 0（Replication factor must be larger than 0.）".to_string(),
        ),
        ShapeError::ReplicationFactor {
            replication_factor: r,
            brokers: b,
        } => lang.f(
            || format!("Replication factor: {r} larger than available brokers: {b}."),
            || format!("副本因子 {r} 大于可用的 broker 数 {b}（Replication factor: {r} larger than available brokers: {b}.）"),
        ),
    }
}

/// Properties of [`ClusterSize`].
#[derive(Properties, PartialEq, Debug)]
pub struct ClusterSizeProps {
    /// Where the chosen shape goes ([`Msg::Load`] of its id).
    pub on_msg: Callback<Msg>,
    /// The sized cluster shown, if one is: the form starts at its shape.
    #[prop_or_default]
    pub current: Option<Shape>,
}

/// The cluster settings: brokers, topics, partitions per topic and RF,
/// checked by the core; a refusal shows under the form and changes nothing.
#[component]
pub fn ClusterSize(props: &ClusterSizeProps) -> Html {
    let lang = use_lang();
    let t = |en: &'static str, zh: &'static str| lang.t(en, zh);
    let error = use_state(|| None::<ShapeError>);
    let refs: [NodeRef; 4] = [
        use_node_ref(),
        use_node_ref(),
        use_node_ref(),
        use_node_ref(),
    ];
    let onsubmit = {
        let refs = refs.clone();
        let error = error.clone();
        let on_msg = props.on_msg.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let v = |r: &NodeRef| {
                r.cast::<web_sys::HtmlInputElement>()
                    .map(|i| i.value().trim().parse::<u32>().unwrap_or(0))
                    .unwrap_or(0)
            };
            let shape = Shape {
                brokers: v(&refs[0]),
                topics: v(&refs[1]),
                partitions: v(&refs[2]),
                replication_factor: v(&refs[3]),
            };
            match shape.check() {
                Ok(()) => {
                    error.set(None);
                    on_msg.emit(Msg::Load(crate::state::shape_id(&shape)));
                }
                Err(e) => error.set(Some(e)),
            }
        })
    };
    // The form starts at the cluster shown, or at a 20-broker one.
    let start = props.current.unwrap_or(Shape {
        brokers: 20,
        topics: 2,
        partitions: 1_000,
        replication_factor: 3,
    });
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    let field = |r: &NodeRef,
                 label: &'static str,
                 label_zh: &'static str,
                 value: u32,
                 name: &'static str| {
        el(
            "label",
            &[],
            list(vec![
                text(lang.t(label, label_zh)),
                input_ref(
                    Some(AttrValue::from(value.to_string())),
                    r.clone(),
                    dynamic(
                        &["type", "min", "name", "size"],
                        Box::new([s("number"), s("0"), s(name), s("6")]),
                    ),
                    Listeners::None,
                ),
            ]),
        )
    };
    el(
        "details",
        attrs!("class" = "cluster-size"),
        list(vec![
            el("summary", &[], text(t("Cluster size…", "集群规模…"))),
            elo(
                "form",
                &["aria-label", "class"],
                Box::new([s(t("Cluster size", "集群规模")), s("size-form")]),
                on(Box::new([submit(onsubmit)])),
                list(vec![
                    field(&refs[0], "brokers ", "broker 数 ", start.brokers, "brokers"),
                    field(&refs[1], "topics ", "主题数 ", start.topics, "topics"),
                    field(&refs[2], "partitions per topic ", "每主题分区数 ", start.partitions, "partitions"),
                    field(&refs[3], "replication factor ", "副本因子 ", start.replication_factor, "rf"),
                    el("button", attrs!("type" = "submit"), text(t("open this cluster", "打开此集群"))),
                    el(
                        "p",
                        attrs!("class" = "hint"),
                        text(t("Up to 100 brokers and 200,000 partitions (Kafka's guideline for a ZooKeeper-era cluster); from 1,000 partitions the page shows the cluster in aggregate.", "最多 100 个 broker、200,000 个分区（Kafka 对基于 ZooKeeper 的集群的建议）；从 1,000 个分区起页面以汇总方式显示集群。")),
                    ),
                    list(if let Some(e) = *error {
                        vec![el(
                            "p",
                            attrs!("role" = "alert", "class" = "form-error"),
                            string(shape_error(&e, lang)),
                        )]
                    } else {
                        Vec::new()
                    }),
                ]),
            ),
        ]),
    )
}

/// The summary a state holds, compared by identity and version (it holds
/// the controller's partition states of its moment too).
#[derive(Clone, Debug)]
pub struct Summary(pub Rc<RefCell<SummaryCache>>, pub u64);

impl PartialEq for Summary {
    fn eq(&self, o: &Summary) -> bool {
        Rc::ptr_eq(&self.0, &o.0) && self.1 == o.1
    }
}

/// Properties of [`BigCluster`].
#[derive(Properties, PartialEq, Debug)]
pub struct BigClusterProps {
    /// The core's summary.
    pub summary: Summary,
    /// The brokers (light view).
    pub brokers: Vec<BrokerView>,
    /// Every running broker's controller queue.
    pub queues: Vec<QueueView>,
    /// `/controller`.
    pub controller: Option<BrokerId>,
    /// Now.
    pub now_ms: u64,
    /// Actions.
    pub on_msg: Callback<Msg>,
}

fn status_word(s: &str, lang: Lang) -> &'static str {
    match s {
        "running" => lang.t("running", "运行中"),
        "starting" => lang.t("starting", "启动中"),
        "shutting_down" => lang.t("shutting down", "关闭中"),
        "paused" => lang.t("paused", "已暂停"),
        _ => lang.t("dead", "已停止"),
    }
}

/// The large-cluster panels.
#[component]
pub fn BigCluster(props: &BigClusterProps) -> Html {
    let lang = use_lang();
    let t = |en: &'static str, zh: &'static str| lang.t(en, zh);
    let selected = use_state(|| None::<BrokerId>);
    let cache = props.summary.0.borrow();
    let counts = &cache.counts;
    let tot = &counts.totals;
    let now = props.now_ms;
    let act = |a: Action| {
        let on_msg = props.on_msg.clone();
        Callback::from(move |_: MouseEvent| on_msg.emit(Msg::Act(a.clone())))
    };
    let sel = (*selected).and_then(|id| props.brokers.iter().find(|b| b.id == id));
    // A new controller is brought into the grid's view (at 100 brokers the
    // grid shows a third of them): the class sees the ★ move.
    let grid = use_node_ref();
    let controller = props
        .brokers
        .iter()
        .find(|b| b.is_active_controller && props.controller == Some(b.id))
        .map(|b| b.id);
    {
        let grid = grid.clone();
        use_effect_with(controller, move |ctl| {
            let found = ctl
                .zip(grid.cast::<web_sys::Element>())
                .and_then(|(id, g)| {
                    let cell = g
                        .query_selector(&format!(".cell[data-broker=\"{}\"]", id.0))
                        .ok()??;
                    Some((g, cell))
                });
            if let Some((g, cell)) = found {
                let (gr, cr) = (
                    g.get_bounding_client_rect(),
                    cell.get_bounding_client_rect(),
                );
                if cr.top() < gr.top() || cr.bottom() > gr.bottom() {
                    // The grid alone scrolls, the cell to its middle (not
                    // `scrollIntoView`, which scrolls the page too).
                    let by = cr.top() - gr.top() - (gr.height() - cr.height()) / 2.0;
                    g.set_scroll_top(g.scroll_top() + by as i32);
                }
            }
        });
    }
    let leaders_sum: u32 = counts.brokers.iter().map(|b| b.leader).sum();
    let add_up = counts.add_up();
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction; the components with `html!`): the order of each
    // element's attributes is `html!`'s, `class` last.
    let cells: Vec<Html> = props
        .brokers
        .iter()
        .map(|b| {
            let c = counts.brokers.iter().find(|c| c.id == b.id);
            let (l, f, off, urp, umi) = c.map_or((0, 0, 0, 0, 0), |c| (c.leader, c.follower, c.offline, c.under_replicated, c.under_min_isr));
            let is_ctl = b.is_active_controller && props.controller == Some(b.id);
            let id = b.id;
            let selected = selected.clone();
            let label = lang.f(
                || format!("broker {id}, {}{}: leads {l}, follows {f}, {off} offline replicas, {urp} under-replicated, {umi} under min ISR", status_word(&b.status, Lang::En), if is_ctl { ", controller" } else { "" }),
                || format!("broker {id}，{}{}：leader {l}，follower {f}，离线副本 {off}，副本不足 {urp}，低于最小 ISR {umi}", status_word(&b.status, Lang::Zh), if is_ctl { "，控制器" } else { "" }));
            let count = |n: u32, class: &'static [Attr], text: String| {
                list(if n > 0 { vec![el("span", class, string(text))] } else { Vec::new() })
            };
            elo(
                "button",
                &["role", "data-broker", "data-leader", "data-offline", "aria-label", "title", "aria-pressed", "class"],
                Box::new([
                    s("listitem"),
                    num(id.0.into()),
                    num(l.into()),
                    num(off.into()),
                    st(label.clone()),
                    st(label),
                    st((Some(id) == *selected).to_string()),
                    class(classes!("cell", b.status.clone(), is_ctl.then_some("controller"), (Some(id) == *selected).then_some("selected"))),
                ]),
                on(Box::new([click(Callback::from(move |_| selected.set(Some(id))))])),
                list(vec![
                    el("span", attrs!("class" = "cell-id"), string(format!("{id}{}", if is_ctl { " ★" } else { "" }))),
                    el("span", attrs!("class" = "cell-n"), string(format!("L{l} F{f}"))),
                    count(off, attrs!("class" = "cell-off"), format!("off {off}")),
                    count(urp, attrs!("class" = "cell-urp"), format!("URP {urp}")),
                    count(umi, attrs!("class" = "cell-umi"), format!("<min {umi}")),
                ]),
            )
        })
        .collect();
    let button = |enabled: bool, a: Action, h: Html| {
        elo(
            "button",
            &["disabled"],
            Box::new([bool_attr("disabled", !enabled)]),
            on(Box::new([click(act(a))])),
            h,
        )
    };
    let status_of = |id: BrokerId| {
        props
            .brokers
            .iter()
            .find(|b| b.id == id)
            .map(|b| b.status.as_str())
            .unwrap_or("dead")
    };
    let actions = el(
        "div",
        attrs!("class" = "big-actions"),
        list(vec![
            list(if let Some(c) = props.controller {
                vec![elo(
                    "button",
                    &["disabled", "class"],
                    Box::new([
                        bool_attr(
                            "disabled",
                            !crate::components::broker_card::offered(status_of(c)).kill,
                        ),
                        s("kill-controller"),
                    ]),
                    on(Box::new([click(act(Action::KillBroker { broker: c }))])),
                    string(lang.f(
                        || format!("kill -9 the controller (broker {c})"),
                        || format!("kill -9 控制器（broker {c}）"),
                    )),
                )]
            } else {
                Vec::new()
            }),
            list(if let Some(b) = sel {
                let o = crate::components::broker_card::offered(&b.status);
                vec![
                    el(
                        "span",
                        attrs!("class" = "sel"),
                        string(lang.f(
                            || format!("broker {} ({}):", b.id, status_word(&b.status, Lang::En)),
                            || format!("broker {}（{}）：", b.id, status_word(&b.status, Lang::Zh)),
                        )),
                    ),
                    button(o.kill, Action::KillBroker { broker: b.id }, text("kill -9")),
                    button(
                        o.stop,
                        Action::ShutdownBroker { broker: b.id },
                        text(t("stop (controlled shutdown)", "停止（受控关闭）")),
                    ),
                    button(
                        o.start,
                        Action::StartBroker { broker: b.id },
                        text(t("start", "启动")),
                    ),
                    button(
                        true,
                        Action::PreferredElection { partitions: None },
                        text(t("preferred election (all)", "优先副本选举（全部）")),
                    ),
                ]
            } else {
                vec![el(
                    "span",
                    attrs!("class" = "sel muted"),
                    text(t(
                        "select a broker in the grid for its buttons",
                        "在网格中选择一个 broker 以显示其按钮",
                    )),
                )]
            }),
        ]),
    );
    el(
        "div",
        attrs!("class" = "big"),
        list(vec![
            eld(
                "section",
                &["id", "aria-label", "class"],
                Box::new([s("p-brokers"), s(t("Brokers", "Broker")), s("panel big-brokers")]),
                list(vec![
                    el(
                        "h2",
                        &[],
                        list(vec![
                            text(t("Brokers", "Broker")),
                            el(
                                "span",
                                attrs!("class" = "big-legend"),
                                text(t(" · L leader, F follower, off offline replicas, URP under-replicated, <min under min.insync.replicas", " · L leader，F follower，off 离线副本，URP 副本不足，<min 低于 min.insync.replicas")),
                            ),
                        ]),
                    ),
                    eld(
                        "p",
                        &["data-partitions", "data-offline", "data-leaders", "data-replicas", "data-urp", "data-add-up", "aria-live", "class"],
                        Box::new([
                            st(tot.partitions.to_string()),
                            st(tot.offline.to_string()),
                            st(leaders_sum.to_string()),
                            st(tot.replicas.to_string()),
                            st(tot.under_replicated.to_string()),
                            st(add_up.to_string()),
                            s("off"),
                            s("big-totals"),
                        ]),
                        list(vec![
                            string(lang.f(
                                || format!("{} partitions, {} replicas · led {} · offline {} · under-replicated {} · under min ISR {} · not on the preferred leader {}",
                                    tot.partitions, tot.replicas, leaders_sum, tot.offline, tot.under_replicated, tot.under_min_isr, tot.not_preferred),
                                || format!("{} 个分区、{} 个副本 · 有 leader {} · 离线 {} · 副本不足 {} · 低于最小 ISR {} · 不在优先副本上 {}",
                                    tot.partitions, tot.replicas, leaders_sum, tot.offline, tot.under_replicated, tot.under_min_isr, tot.not_preferred))),
                            eld(
                                "span",
                                &["class"],
                                Box::new([class(classes!("add-up", (!add_up).then_some("bad")))]),
                                text(if add_up { t(" · the counts add up (led + offline = partitions)", " · 计数相符（有 leader + 离线 = 分区数）") } else { t(" · the counts do not add up", " · 计数不相符") }),
                            ),
                        ]),
                    ),
                    tag(
                        "div",
                        grid,
                        Attributes::Static(attrs!("role" = "list", "class" = "broker-grid")),
                        Listeners::None,
                        list(cells),
                    ),
                    actions,
                ]),
            ),
            html! { <BigQueues queues={props.queues.clone()} now_ms={now} /> },
            html! { <BigTable summary={props.summary.clone()} now_ms={now} /> },
            {
                // The broker picked in the grid: its line stands out.
                let line = (*selected).and_then(|id| {
                    counts.brokers.iter().position(|b| b.id == id).map(|i| (id, i))
                });
                html! { <Chart summary={props.summary.clone()} at={ChartAt::of(&cache, now)} selected={line} /> }
            },
        ]),
    )
}

/// Properties of [`BigQueues`].
#[derive(Properties, PartialEq, Debug)]
pub struct BigQueuesProps {
    /// Every running broker's queue.
    pub queues: Vec<QueueView>,
    /// Now.
    pub now_ms: u64,
}

/// The controller queues with work, by depth; each event's waiting time.
#[component]
pub fn BigQueues(props: &BigQueuesProps) -> Html {
    let lang = use_lang();
    let busy: Vec<&QueueView> = props
        .queues
        .iter()
        .filter(|q| q.current.is_some() || !q.waiting.is_empty())
        .collect();
    let idle = props.queues.len() - busy.len();
    const SHOWN: usize = 8;
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    let mut children = vec![el(
        "h2",
        &[],
        text(lang.t("Controller event queues", "控制器事件队列")),
    )];
    children.extend(busy.iter().map(|q| {
        let depth = q.waiting.len() + usize::from(q.current.is_some());
        let more = q.waiting.len().saturating_sub(SHOWN);
        let mut events: Vec<Html> = q
            .current
            .iter()
            .map(|(name, done)| current_event(lang, name, *done, props.now_ms))
            .collect();
        events.extend(
            q.waiting
                .iter()
                .take(SHOWN)
                .map(|(name, at)| waiting_event(lang, name, *at, props.now_ms)),
        );
        events.push(list(if more > 0 {
            vec![el(
                "li",
                attrs!("class" = "event more"),
                string(lang.f(
                    || format!("… and {more} more"),
                    || format!("……还有 {more} 个"),
                )),
            )]
        } else {
            Vec::new()
        }));
        eld(
            "div",
            &["data-broker", "data-depth", "class"],
            Box::new([st(q.broker.to_string()), num(depth as u64), s("queue busy")]),
            list(vec![
                crate::components::event_queue::queue_owner(lang, q.broker, &q.state, Some(depth)),
                el("ol", attrs!("class" = "queue-events"), list(events)),
            ]),
        )
    }));
    children.push(el(
        "p",
        attrs!("class" = "muted"),
        string(lang.f(
            || format!("{idle} queue(s) idle"),
            || format!("{idle} 个队列空闲"),
        )),
    ));
    eld(
        "section",
        &["id", "aria-label", "class"],
        Box::new([
            s("p-queues"),
            s(lang.t("Controller event queues", "控制器事件队列")),
            s("panel queues big-queues"),
        ]),
        list(children),
    )
}

/// The chart's drawing size, in SVG user units (the SVG is stretched to
/// its box; its lines keep their width).
pub const CHART_W: u32 = 560;
/// See [`CHART_W`].
pub const CHART_H: u32 = 110;

/// One step line of the chart: `points` (time, value), in time order, from
/// `t0` at the left to `t1` at the right and from 0 at the bottom to `max`
/// near the top, in whole user units. Each column of the drawing gets at
/// most three vertical strokes that cover every value its points take (what
/// a stroke per point would have covered) and end at its last value, and a
/// value that does not change draws nothing: however many points the series
/// holds, a line is at most a few commands per column, all integers.
pub fn step_path(points: impl Iterator<Item = (u64, u32)>, t0: u64, t1: u64, max: u32) -> String {
    step_path_to(points, t0, t1, max, t1)
}

/// [`step_path`] ending at time `end` instead of the right edge (the part
/// of a line before a later part drawn on its own).
pub fn step_path_to(
    points: impl Iterator<Item = (u64, u32)>,
    t0: u64,
    t1: u64,
    max: u32,
    end: u64,
) -> String {
    let span = t1.saturating_sub(t0).max(1);
    let x = |ms: u64| column(t0, span, ms);
    let max = u64::from(max.max(1));
    // Value 0 at CHART_H − 2, `max` at 2.
    let y = |v: u32| {
        let v = u64::from(v).min(max);
        (u64::from(CHART_H - 2) - (v * u64::from(CHART_H - 4) + max / 2) / max) as u32
    };
    let mut d = String::new();
    // The column being drawn: its x, the y the line entered it at, the
    // lowest and highest y its points reach, and the last.
    let mut col: Option<(u32, u32, u32, u32, u32)> = None;
    let flush = |d: &mut String, (cx, entry, lo, hi, last): (u32, u32, u32, u32, u32)| {
        if lo == hi && last == entry {
            return;
        }
        push_num(d, 'H', cx);
        let mut at = entry;
        for to in [lo, hi, last] {
            if to != at {
                push_num(d, 'V', to);
                at = to;
            }
        }
    };
    for (ms, v) in points {
        let (px, py) = (x(ms), y(v));
        match col {
            None => {
                push_num(&mut d, 'M', px);
                push_num(&mut d, ',', py);
                col = Some((px, py, py, py, py));
            }
            Some((cx, entry, lo, hi, _)) if cx == px => {
                col = Some((cx, entry, lo.min(py), hi.max(py), py));
            }
            Some(c) => {
                flush(&mut d, c);
                let entry = c.4;
                col = Some((px, entry, entry.min(py), entry.max(py), py));
            }
        }
    }
    if let Some(c) = col {
        flush(&mut d, c);
    } else {
        // No point: no line (a path must start with a move).
        return d;
    }
    push_num(&mut d, 'H', x(end));
    d
}

/// The drawing's column of time `ms` on an axis from `t0` over `span` ms
/// (the left edge before `t0`, the right one past its end).
fn column(t0: u64, span: u64, ms: u64) -> u32 {
    // (Virtual times are far below u64::MAX / CHART_W.)
    (ms.saturating_sub(t0)
        .min(span)
        .saturating_mul(u64::from(CHART_W))
        / span.max(1)) as u32
}

/// The top of a chart's scale for values up to `peak`: the smallest of 1 to
/// 10, then of 10, 12, 15, 20, 25, 30, 40, 50, 60, 80 times a power of ten,
/// that holds it. The scale changes only when a value passes its top (a
/// failover raising the busiest broker's leaders one by one does not draw
/// every line again at each), and its top is a round number to read.
pub fn nice_max(peak: u32) -> u32 {
    if peak <= 10 {
        return peak.max(1);
    }
    let mut unit: u64 = 1;
    loop {
        for k in [10u64, 12, 15, 20, 25, 30, 40, 50, 60, 80] {
            let top = k.saturating_mul(unit);
            if top >= u64::from(peak) {
                return u32::try_from(top).unwrap_or(u32::MAX);
            }
        }
        unit = unit.saturating_mul(10);
    }
}

/// `c` and `n` in decimal (the chart's paths hold thousands of numbers: this
/// skips the formatting machinery).
fn push_num(d: &mut String, c: char, n: u32) {
    d.push(c);
    d.push_str(kcsim_core::ids::decimal(n, &mut [0u8; 10]));
}

/// The chart's time span for `elapsed` ms since its first point: the
/// smallest of 1, 2, 5, 10, 20, 50 … s that holds it. Between two
/// spans the drawing's time axis stands still (the lines grow to the right,
/// a column at a time), so a line is drawn again only when its points change.
pub fn chart_span(elapsed: u64) -> u64 {
    let mut unit: u64 = 1_000;
    loop {
        for k in [1, 2, 5] {
            let span = unit.saturating_mul(k);
            if elapsed <= span || span == u64::MAX {
                return span;
            }
        }
        unit = unit.saturating_mul(10);
    }
}

/// What the chart's drawing depends on besides the language: the series'
/// version and base, its first time and span, the scales, the last action
/// and the column of now.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ChartAt {
    /// [`SummaryCache::series_version`].
    pub version: u64,
    /// [`SummaryCache::series_base`].
    pub base: u64,
    /// The series' first time (ms): the left edge.
    pub t0: u64,
    /// [`chart_span`]: the right edge is `t0 + span`.
    pub span: u64,
    /// The drawing's column of now (the lines are hidden right of it).
    pub now_x: u32,
    /// The last action's time (ms; `t0` without one): the lines before it
    /// are drawn once, those after it as they grow.
    pub split: u64,
    /// The leaders' and the offline partitions' scales ([`nice_max`]).
    pub max_l: u32,
    /// See [`ChartAt::max_l`].
    pub max_o: u32,
}

impl ChartAt {
    /// The chart of `cache`'s series at `now_ms`.
    pub fn of(cache: &SummaryCache, now_ms: u64) -> ChartAt {
        let t0 = cache.series.first().map_or(0, |p| p.time_ms);
        let span = chart_span(now_ms.saturating_sub(t0));
        let (peak_l, peak_o) = cache.series_peaks();
        ChartAt {
            version: cache.series_version,
            base: cache.series_base,
            t0,
            span,
            now_x: column(t0, span, now_ms),
            split: cache.series_actions().last().unwrap_or(t0).max(t0),
            max_l: nice_max(peak_l),
            max_o: nice_max(peak_o),
        }
    }
}

/// Properties of [`Chart`].
#[derive(Properties, Debug)]
pub struct ChartProps {
    /// The core's summary.
    pub summary: Summary,
    /// Where the drawing stands.
    pub at: ChartAt,
    /// The broker picked in the grid, and its line's place (its place in
    /// the counts): drawn over the others.
    pub selected: Option<(BrokerId, usize)>,
}

/// The chart is drawn again only when its drawing changes (not at every
/// tick: a hundred lines of up to a few thousand commands each).
impl PartialEq for ChartProps {
    fn eq(&self, o: &ChartProps) -> bool {
        Rc::ptr_eq(&self.summary.0, &o.summary.0) && self.at == o.at && self.selected == o.selected
    }
}

/// A summary cache compared by identity.
struct SameCache(Rc<RefCell<SummaryCache>>);

impl PartialEq for SameCache {
    fn eq(&self, o: &SameCache) -> bool {
        Rc::ptr_eq(&self.0, &o.0)
    }
}

/// One part of the chart's lines (before the last action, or since).
struct ChartLines {
    /// One step line per broker (none: an empty string).
    leaders: Vec<AttrValue>,
    /// Offline partitions.
    offline: AttrValue,
}

/// The lines of `series` from `from` (a time in ms) on, starting with the
/// value before it, to `end` (ms; the right edge: `t1`), or, with `before`,
/// the lines of the points before `from`, ending there.
fn chart_lines(series: &[SeriesPoint], at: &ChartAt, from: u64, before: bool) -> ChartLines {
    let t1 = at.t0 + at.span.max(1);
    let cut = series.partition_point(|p| p.time_ms < from);
    let (part, carry, end): (&[SeriesPoint], Option<&SeriesPoint>, u64) = if before {
        (&series[..cut], None, from)
    } else {
        (
            &series[cut..],
            cut.checked_sub(1).and_then(|i| series.get(i)),
            t1,
        )
    };
    let line = |val: &dyn Fn(&SeriesPoint) -> u32, max: u32| {
        AttrValue::from(step_path_to(
            carry
                .map(|p| (from, val(p)))
                .into_iter()
                .chain(part.iter().map(|p| (p.time_ms, val(p)))),
            at.t0,
            t1,
            max,
            end,
        ))
    };
    let brokers = series.last().map_or(0, |p| p.leaders.len());
    ChartLines {
        leaders: (0..brokers)
            .map(|b| line(&|p| p.leaders.get(b).copied().unwrap_or(0), at.max_l))
            .collect(),
        offline: line(&|p| p.offline, at.max_o),
    }
}

/// Seconds, as the chart's axis writes them.
fn secs(ms: u64) -> String {
    if ms % 1000 == 0 {
        format!("{}", ms / 1000)
    } else {
        format!("{:.1}", ms as f64 / 1000.0)
    }
}

/// Leaders per broker and offline partitions over time, as step lines,
/// from the series' first time (the class's first action, else the first
/// look; or the run's last fork) over a span that grows in steps; what is
/// right of now is hidden. The actions taken are marked.
#[component]
pub fn Chart(props: &ChartProps) -> Html {
    let lang = use_lang();
    let at = props.at;
    let ChartAt {
        t0, span, now_x, ..
    } = at;
    let t1 = t0 + span.max(1);
    // The lines are made again only when their points, the span or the
    // scales change (now moving right moves the cover alone); a version is
    // a cache's own, so the cache (a new one with each cluster) is part of
    // the key. The lines before the last action are made once (a
    // 200,000-partition start-up's thousand points, a hundred lines, made
    // again at every frame of the failover that follows cost the page
    // frames: the reason the chart once started again at every action);
    // those since it as they grow.
    let cache_key = || SameCache(props.summary.0.clone());
    let past = use_memo(
        (cache_key(), at.base, t0, span, at.split, at.max_l, at.max_o),
        |_| {
            let cache = props.summary.0.borrow();
            let marks: Vec<u32> = {
                let mut m: Vec<u32> = cache
                    .series_actions()
                    // (Inside the frame: a mark at an edge is seen.)
                    .map(|ms| column(t0, span, ms).clamp(3, CHART_W - 3))
                    .collect();
                m.dedup();
                m
            };
            (chart_lines(&cache.series, &at, at.split, true), marks)
        },
    );
    let recent = use_memo(
        (cache_key(), at.version, span, at.split, at.max_l, at.max_o),
        |_| chart_lines(&props.summary.0.borrow().series, &at, at.split, false),
    );
    let (offline_now, peak) = {
        let cache = props.summary.0.borrow();
        (
            cache.series.last().map_or(0, |p| p.offline),
            cache.series_peaks().1,
        )
    };
    let (max_l, brokers) = (at.max_l, recent.leaders.len());
    let (w, h) = (CHART_W, CHART_H);
    // A line's part before the last action and its part since, each a path.
    let paths = |class: &'static str, ds: &[AttrValue]| -> Vec<Html> {
        ds.iter()
            .map(|d| leaf("path", &["d", "class"], Box::new([shared(d), s(class)])))
            .collect()
    };
    // The actions, as dashed vertical lines.
    let marked = || -> Vec<Html> {
        past.1
            .iter()
            .map(|x| {
                leaf(
                    "path",
                    &["d", "class"],
                    Box::new([st(format!("M{x},0V{h}")), s("mark")]),
                )
            })
            .collect()
    };
    // The picked broker's line, its part before the last action and since.
    let picked = props
        .selected
        .and_then(|(_, i)| Some((past.0.leaders.get(i)?, recent.leaders.get(i)?)));
    let picked_said =
        props
            .selected
            .filter(|(_, i)| *i < brokers)
            .map_or_else(String::new, |(id, _)| {
                lang.f(
                    || format!("; bold: broker {id}"),
                    || format!("；粗线：broker\u{a0}{id}"),
                )
            });
    let marks_said = if past.1.is_empty() {
        String::new()
    } else {
        lang.t("; dashed: the actions taken", "；虚线：你的操作")
            .to_string()
    };
    // The lines run to the right edge; a card-coloured cover hides them
    // right of now, so that moving now moves one rectangle.
    let future = leaf(
        "rect",
        &["x", "y", "width", "height", "class"],
        Box::new([
            num(u64::from(now_x)),
            s("0"),
            num(u64::from(w.saturating_sub(now_x))),
            num(u64::from(h)),
            s("future"),
        ]),
    );
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last. A chart is three drawings stacked, each its
    // own layer for the browser (CSS `will-change`): the lines before the
    // last action (a 100-broker start-up's, long), the picked broker's
    // part of them, and what changes as time runs (the lines since, the
    // cover of the future). The browser then paints again only the layer
    // that changed: one stack, a hundred long lines painted again at every
    // frame of a failover, cost frames at 100 x 200,000.
    let layer = |class: &'static str, paths: Vec<Html>| {
        eld(
            "svg",
            &["viewBox", "preserveAspectRatio", "aria-hidden", "class"],
            Box::new([st(format!("0 0 {w} {h}")), s("none"), s("true"), s(class)]),
            list(paths),
        )
    };
    // The scale's top and zero written at the left edge (the eye reads a
    // line's height against them).
    let chart = |class: &'static str, aria: String, top: u32, layers: [Html; 3]| {
        let mut children: Vec<Html> = layers.into();
        children.push(el(
            "span",
            attrs!("aria-hidden" = "true", "class" = "y-top"),
            string(top.to_string()),
        ));
        children.push(el(
            "span",
            attrs!("aria-hidden" = "true", "class" = "y-zero"),
            text("0"),
        ));
        eld(
            "div",
            &["role", "aria-label", "class"],
            Box::new([s("img"), st(aria), s(class)]),
            list(children),
        )
    };
    eld(
        "section",
        &["id", "aria-label", "class"],
        Box::new([
            s("p-chart"),
            s(lang.t(
                "Leaders per broker and offline partitions over time",
                "每个 broker 的 leader 数与离线分区数随时间变化",
            )),
            s("panel big-chart"),
        ]),
        list(vec![
            el("h2", &[], text(lang.t("Over time", "随时间的变化"))),
            el(
                "figure",
                &[],
                list(vec![
                    el(
                        "figcaption",
                        &[],
                        string(lang.f(
                            || {
                                format!(
                                    "leaders per broker (one line each, 0 to {max_l}{picked_said}{marks_said})"
                                )
                            },
                            || {
                                format!(
                                    "每个 broker 的 leader 数（每条线一个 broker，0 到 {max_l}{picked_said}{marks_said}）"
                                )
                            },
                        )),
                    ),
                    chart(
                        "chart leaders",
                        lang.f(
                            || format!("{brokers} lines, from {} s to now", secs(t0)),
                            || format!("{brokers} 条线，从 {} 秒到现在", secs(t0)),
                        ),
                        max_l,
                        [
                            layer(
                                "layer past",
                                paths("line", &past.0.leaders)
                                    .into_iter()
                                    .chain(marked())
                                    .collect(),
                            ),
                            layer(
                                "layer picked",
                                picked.map_or_else(Vec::new, |(old, _)| {
                                    paths("line picked", std::slice::from_ref(old))
                                }),
                            ),
                            layer(
                                "layer recent",
                                paths("line", &recent.leaders)
                                    .into_iter()
                                    .chain(picked.map_or_else(Vec::new, |(_, new)| {
                                        paths("line picked", std::slice::from_ref(new))
                                    }))
                                    .chain([future.clone()])
                                    .collect(),
                            ),
                        ],
                    ),
                ]),
            ),
            el(
                "figure",
                &[],
                list(vec![
                    el(
                        "figcaption",
                        &[],
                        string(lang.f(
                            || format!("offline partitions (now {offline_now}, peak {peak})"),
                            || format!("离线分区（当前 {offline_now}，峰值 {peak}）"),
                        )),
                    ),
                    chart(
                        "chart offline",
                        lang.f(
                            || format!("offline partitions: now {offline_now}, peak {peak}"),
                            || format!("离线分区：当前 {offline_now}，峰值 {peak}"),
                        ),
                        at.max_o,
                        [
                            layer(
                                "layer past",
                                paths("line offline", std::slice::from_ref(&past.0.offline))
                                    .into_iter()
                                    .chain(marked())
                                    .collect(),
                            ),
                            layer("layer picked", Vec::new()),
                            layer(
                                "layer recent",
                                paths("line offline", std::slice::from_ref(&recent.offline))
                                    .into_iter()
                                    .chain([future])
                                    .collect(),
                            ),
                        ],
                    ),
                    el(
                        "div",
                        attrs!("aria-hidden" = "true", "class" = "chart-axis"),
                        list(
                            // The ends and the quarters between.
                            (0..=4u64)
                                .map(|q| t0 + (t1 - t0) * q / 4)
                                .map(|ms| {
                                    let at = secs(ms);
                                    el(
                                        "span",
                                        &[],
                                        string(lang.f(|| format!("{at} s"), || format!("{at} 秒"))),
                                    )
                                })
                                .collect(),
                        ),
                    ),
                ]),
            ),
        ]),
    )
}

/// Properties of [`BigTable`].
#[derive(Properties, PartialEq, Debug)]
pub struct BigTableProps {
    /// The core's summary.
    pub summary: Summary,
    /// Now.
    pub now_ms: u64,
}

fn state_name(s: PartitionState) -> &'static str {
    match s {
        PartitionState::NewPartition => "NewPartition",
        PartitionState::OnlinePartition => "OnlinePartition",
        PartitionState::OfflinePartition => "OfflinePartition",
        PartitionState::NonExistentPartition => "NonExistentPartition",
    }
}

/// How a filter control changes the filter, given its value.
type SetFilter = dyn Fn(&mut Filter, String);

/// The partitions, filtered by the core, drawn only where the window is.
#[component]
pub fn BigTable(props: &BigTableProps) -> Html {
    let lang = use_lang();
    let t = |en: &'static str, zh: &'static str| lang.t(en, zh);
    let filter = use_state(Filter::default);
    let scroll = use_state(|| 0u32);
    let within_s = use_state(|| 10u64);
    let version = props.summary.1;
    let shown = {
        let cache = props.summary.0.clone();
        // Run again only when its result can differ: the rows changed, time
        // moved (for "changed in the last N s"), or the state did (for a
        // state filter, read from the controller).
        let f = (*filter).clone();
        let generation = props.summary.0.borrow().generation;
        let now = if f.changed_within_ms.is_some() {
            props.now_ms
        } else {
            0
        };
        let v = if f.state.is_some() { version } else { 0 };
        use_memo((f, (generation, v), now), move |(f, _, now)| {
            let cache = cache.borrow();
            cache.filter(f, *now)
        })
    };
    let cache = props.summary.0.borrow();
    let set = |g: Rc<SetFilter>| {
        let filter = filter.clone();
        let scroll = scroll.clone();
        Callback::from(move |e: Event| {
            let v = e
                .target_unchecked_into::<web_sys::HtmlInputElement>()
                .value();
            let checked = e
                .target_dyn_into::<web_sys::HtmlInputElement>()
                .map(|i| i.checked());
            let mut f = (*filter).clone();
            g(
                &mut f,
                if checked == Some(true) {
                    format!("on:{v}")
                } else {
                    v
                },
            );
            filter.set(f);
            scroll.set(0);
        })
    };
    let on_topic = set(Rc::new(|f, v| f.topic = v.parse().ok()));
    let on_broker = set(Rc::new(|f, v| {
        f.broker = v.trim().parse().ok().map(BrokerId)
    }));
    let on_state = set(Rc::new(|f, v| {
        f.state = PartitionState::ALL
            .iter()
            .copied()
            .find(|s| state_name(*s) == v)
    }));
    let flag = |bit: u8| {
        set(Rc::new(move |f, v| {
            if v.starts_with("on:") {
                f.flags |= bit;
            } else {
                f.flags &= !bit;
            }
        }))
    };
    let on_changed = {
        let within = *within_s;
        set(Rc::new(move |f, v| {
            f.changed_within_ms = v.starts_with("on:").then_some(within * 1000);
        }))
    };
    let on_within = {
        let within_s = within_s.clone();
        let filter = filter.clone();
        Callback::from(move |e: Event| {
            let v: u64 = e
                .target_unchecked_into::<web_sys::HtmlInputElement>()
                .value()
                .parse()
                .unwrap_or(10);
            within_s.set(v);
            if filter.changed_within_ms.is_some() {
                let mut f = (*filter).clone();
                f.changed_within_ms = Some(v * 1000);
                filter.set(f);
            }
        })
    };
    let onscroll = {
        let scroll = scroll.clone();
        Callback::from(move |e: Event| {
            let top = e.target_unchecked_into::<web_sys::Element>().scroll_top();
            scroll.set(top.max(0) as u32);
        })
    };
    let n = shown.len() as u32;
    let first = (*scroll / ROW_H).min(n);
    let last = (first + VIEW_H / ROW_H + 4).min(n);
    let ids = |v: &[BrokerId]| {
        v.iter()
            .map(|b| b.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let tags = |fl: u8| {
        let mut v = Vec::new();
        if fl & UNAVAILABLE != 0 {
            v.push(t("offline", "离线"));
        }
        if fl & UNDER_REPLICATED != 0 {
            v.push("URP");
        }
        if fl & UNDER_MIN_ISR != 0 {
            v.push("<min ISR");
        }
        if fl & NOT_PREFERRED != 0 {
            v.push(t("not preferred", "非优先"));
        }
        v.join(" ")
    };
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    let check = |bit: u8, cls: &'static str, en: &'static str, zh: &'static str| {
        eld(
            "label",
            &["class"],
            Box::new([class(cls.into())]),
            list(vec![
                input(
                    None,
                    Some(filter.flags & bit != 0),
                    Attributes::Static(attrs!("type" = "checkbox")),
                    on(Box::new([change(flag(bit))])),
                ),
                text(lang.t(en, zh)),
            ]),
        )
    };
    let select = |aria: &'static str, cb: Callback<Event>, all: bool, options: Vec<Html>| {
        let mut v = vec![eld(
            "option",
            &["value", "selected"],
            Box::new([s(""), bool_attr("selected", all)]),
            text(t("all", "全部")),
        )];
        v.extend(options);
        elo(
            "select",
            &["aria-label"],
            Box::new([s(aria)]),
            on(Box::new([change(cb)])),
            list(v),
        )
    };
    let topics = cache
        .topics
        .iter()
        .enumerate()
        .map(|(i, name)| {
            eld(
                "option",
                &["value", "selected"],
                Box::new([
                    num(i as u64),
                    bool_attr("selected", filter.topic == Some(i as u32)),
                ]),
                string(name.clone()),
            )
        })
        .collect();
    let states = PartitionState::ALL
        .iter()
        .map(|st| {
            eld(
                "option",
                &["value", "selected"],
                Box::new([
                    s(state_name(*st)),
                    bool_attr("selected", filter.state == Some(*st)),
                ]),
                text(state_name(*st)),
            )
        })
        .collect();
    let filters = el(
        "div",
        attrs!("class" = "filters"),
        list(vec![
            el(
                "label",
                &[],
                list(vec![
                    text(t("topic ", "主题 ")),
                    select(
                        t("Filter by topic", "按主题筛选"),
                        on_topic,
                        filter.topic.is_none(),
                        topics,
                    ),
                ]),
            ),
            el(
                "label",
                &[],
                list(vec![
                    text(t("broker ", "broker ")),
                    input(
                        None,
                        None,
                        dynamic(
                            &["type", "min", "size", "aria-label", "class"],
                            Box::new([
                                s("number"),
                                s("0"),
                                s("3"),
                                s(t(
                                    "Filter by a broker hosting a replica",
                                    "按承载副本的 broker 筛选",
                                )),
                                s("f-broker"),
                            ]),
                        ),
                        // As it is typed (not on Enter or leaving the field).
                        on(Box::new([input_ev(Callback::from(
                            move |e: InputEvent| on_broker.emit(e.into()),
                        ))])),
                    ),
                ]),
            ),
            el(
                "label",
                &[],
                list(vec![
                    text(t("state ", "状态 ")),
                    select(
                        t("Filter by state", "按状态筛选"),
                        on_state,
                        filter.state.is_none(),
                        states,
                    ),
                ]),
            ),
            check(UNDER_REPLICATED, "f-urp", "under-replicated", "副本不足"),
            check(UNDER_MIN_ISR, "f-umi", "under min ISR", "低于最小 ISR"),
            check(
                UNAVAILABLE,
                "f-offline",
                "offline (no live leader)",
                "离线（无存活 leader）",
            ),
            check(
                NOT_PREFERRED,
                "f-np",
                "not on the preferred leader",
                "不在优先副本上",
            ),
            el(
                "span",
                attrs!("class" = "f-changed-wrap"),
                list(vec![
                    el(
                        "label",
                        attrs!("class" = "f-changed"),
                        list(vec![
                            input(
                                None,
                                Some(filter.changed_within_ms.is_some()),
                                Attributes::Static(attrs!("type" = "checkbox")),
                                on(Box::new([change(on_changed)])),
                            ),
                            text(t("changed in the last ", "最近 ")),
                        ]),
                    ),
                    input(
                        Some(AttrValue::from(within_s.to_string())),
                        None,
                        dynamic(
                            &["type", "min", "size", "aria-label"],
                            Box::new([s("number"), s("1"), s("3"), s(t("seconds", "秒"))]),
                        ),
                        on(Box::new([input_ev(Callback::from(
                            move |e: InputEvent| on_within.emit(e.into()),
                        ))])),
                    ),
                    text(t(" s", " 秒内有变化")),
                ]),
            ),
        ]),
    );
    let heads = [
        t("partition", "分区"),
        "leader",
        "AR",
        "ISR",
        t("leader epoch", "leader 纪元"),
        t("state", "状态"),
        t("flags", "标记"),
        t("changed", "变化于"),
    ]
    .into_iter()
    .map(|h| el("th", &[], text(h)))
    .collect();
    let rows = (first..last)
        .filter_map(|k| shown.get(k as usize))
        .filter_map(|&i| cache.rows.get(i as usize).map(|r| (i, r)))
        .map(|(i, r)| {
            let state = cache.state_of(i as usize);
            let topic = cache
                .topics
                .get(r.topic as usize)
                .cloned()
                .unwrap_or_default();
            let ar = match r.replicas().split_first() {
                Some((p, rest)) if !rest.is_empty() => format!("{p}*,{}", ids(rest)),
                Some((p, _)) => format!("{p}*"),
                None => String::new(),
            };
            let td = |h: Html| el("td", &[], h);
            eld(
                "tr",
                &["style", "class"],
                Box::new([
                    prop(format!("height: {ROW_H}px")),
                    class(classes!((r.flags & UNAVAILABLE != 0).then_some("offline"))),
                ]),
                list(vec![
                    td(string(format!("{topic}-{}", r.partition))),
                    td(string(r.leader.map_or("-1".to_string(), |b| b.to_string()))),
                    td(string(ar)),
                    td(string(ids(&r.isr()))),
                    td(string(r.leader_epoch.to_string())),
                    match state {
                        Some(state) => td(text(state_name(state))),
                        None => crate::components::partition_table::no_controller_state(lang),
                    },
                    td(string(tags(r.flags))),
                    td(string(r.changed_at_ms.map_or(String::new(), |c| {
                        format!("{:.1} s", c as f64 / 1000.0)
                    }))),
                ]),
            )
        })
        .collect();
    eld(
        "section",
        &["id", "aria-label", "class"],
        Box::new([
            s("p-partitions"),
            s(t("Partitions", "分区")),
            s("panel big-table"),
        ]),
        list(vec![
            el(
                "h2",
                &[],
                list(vec![
                    text(t("Partitions", "分区")),
                    eld(
                        "span",
                        &["data-shown", "class"],
                        Box::new([num(n.into()), s("big-count")]),
                        string(lang.f(
                            || format!(" · {n} of {} shown", cache.rows.len()),
                            || format!(" · 显示 {n} / {}", cache.rows.len()),
                        )),
                    ),
                ]),
            ),
            filters,
            elo(
                "div",
                &["tabindex", "style", "aria-label", "class"],
                Box::new([
                    s("0"),
                    prop(format!("height: {VIEW_H}px")),
                    s(t(
                        "Partitions (scroll with the arrow keys)",
                        "分区（用方向键滚动）",
                    )),
                    s("vtable"),
                ]),
                on(Box::new([on_scroll(onscroll)])),
                eld(
                    "div",
                    &["style"],
                    Box::new([prop(format!(
                        "height: {}px; position: relative",
                        n * ROW_H + ROW_H
                    ))]),
                    eld(
                        "table",
                        &["style"],
                        Box::new([prop(format!(
                            "position: absolute; top: {}px",
                            first * ROW_H
                        ))]),
                        list(vec![
                            el("thead", &[], el("tr", &[], list(heads))),
                            el("tbody", &[], list(rows)),
                        ]),
                    ),
                ),
            ),
        ]),
    )
}

#[cfg(test)]
mod chart_tests {
    use super::{
        chart_lines, chart_span, nice_max, push_num, step_path, ChartAt, CHART_H, CHART_W,
    };
    use kcsim_core::summary::{SeriesPoint, Shape, SummaryCache};
    use kcsim_core::timeline::Timeline;
    use kcsim_core::{Action, BrokerId, SimTime};
    use std::collections::BTreeSet;

    #[test]
    fn a_scale_s_top_is_a_round_number_at_or_above_the_peak_and_changes_seldom() {
        let mut tops = Vec::new();
        for peak in 0..=250_000u32 {
            let top = nice_max(peak);
            assert!(top >= peak.max(1), "{peak} -> {top}");
            // Round: 1 to 10, or two leading digits of 10 12 15 20 25 30
            // 40 50 60 80.
            let mut lead = top;
            while lead >= 100 {
                assert_eq!(lead % 10, 0, "{top}");
                lead /= 10;
            }
            assert!(
                top <= 10 || [10, 12, 15, 20, 25, 30, 40, 50, 60, 80].contains(&lead),
                "{top}"
            );
            // Not far above: less than a third more, past 10.
            assert!(
                peak <= 10 || u64::from(top) * 3 < u64::from(peak) * 4,
                "{peak} -> {top}"
            );
            tops.push(top);
        }
        assert!(tops.windows(2).all(|w| w[0] <= w[1]));
        tops.dedup();
        assert!(tops.len() < 60, "{} scales for 250,000 values", tops.len());
    }

    #[test]
    fn a_line_drawn_in_two_parts_covers_what_it_covers_drawn_whole() {
        // Points at every few ms, values going up and down, some sharing a
        // column of the drawing.
        let series: Vec<SeriesPoint> = (0..400u64)
            .map(|i| SeriesPoint {
                time_ms: 1_000 + i * 37 + (i % 3),
                leaders: vec![((i * 7) % 23) as u32, (i / 10) as u32],
                offline: ((i * 13) % 9) as u32,
            })
            .collect();
        for split in [1_000, 1_001, 3_700, 5_555, 9_990, 15_000, 15_801, 16_000] {
            let at = ChartAt {
                version: 0,
                base: 0,
                t0: 1_000,
                span: chart_span(15_000),
                now_x: CHART_W,
                split,
                max_l: 40,
                max_o: 10,
            };
            let whole = chart_lines(&series, &at, at.t0, false);
            let past = chart_lines(&series, &at, split, true);
            let recent = chart_lines(&series, &at, split, false);
            for b in 0..2 {
                let two: BTreeSet<(u32, u32)> = covered(&past.leaders[b])
                    .union(&covered(&recent.leaders[b]))
                    .copied()
                    .collect();
                assert_eq!(two, covered(&whole.leaders[b]), "split {split}, line {b}");
            }
            let two: BTreeSet<(u32, u32)> = covered(&past.offline)
                .union(&covered(&recent.offline))
                .copied()
                .collect();
            assert_eq!(two, covered(&whole.offline), "split {split}");
        }
    }

    #[test]
    fn after_an_action_the_lines_before_it_are_made_again_only_when_span_or_scale_change() {
        // Kafka: onBrokerFailure moves a dead broker's leaderships to other
        // replicas, one refresh of the page after another; the lines of
        // the first failure, before the second kill, stay as drawn.
        let shape = Shape {
            brokers: 6,
            topics: 2,
            partitions: 300,
            replication_factor: 3,
        };
        let mut t = Timeline::new(&shape.scenario().expect("a valid shape"));
        let mut c = SummaryCache::default();
        while t.now() < SimTime(30_000) && t.step() {
            c.refresh(&t);
        }
        // A kill -9 now, as the page's button does it (a look right after).
        let kill_now = |t: &mut Timeline, c: &mut SummaryCache, b: u32| {
            let now = t.now();
            t.insert(
                now,
                Action::KillBroker {
                    broker: BrokerId(b),
                },
            )
            .expect("a kill now");
            c.refresh(t);
            now
        };
        // The class's first action (the chart starts there): a kill.
        let kill_at = kill_now(&mut t, &mut c, 2);
        while t.now() < kill_at.plus_ms(30_000) && t.step() {
            c.refresh(&t);
        }
        // The next: a kill of another broker, while the first is still down.
        let next_at = kill_now(&mut t, &mut c, 4);
        let mut ats = vec![ChartAt::of(&c, next_at.as_ms())];
        while t.now() < next_at.plus_ms(40_000) && t.step() {
            c.refresh(&t);
            ats.push(ChartAt::of(&c, t.now().as_ms()));
        }
        assert!(ats.iter().all(|a| a.split == next_at.as_ms()));
        assert_eq!(ats.first().map(|a| a.t0), Some(kill_at.as_ms()));
        assert!(
            c.series
                .iter()
                .any(|p| p.time_ms < next_at.as_ms() && p.offline > 0),
            "the first failure kept"
        );
        assert!(
            c.series
                .iter()
                .any(|p| p.time_ms > next_at.as_ms() && p.offline > 0),
            "the second seen"
        );
        let key = |a: &ChartAt| (a.base, a.t0, a.span, a.split, a.max_l, a.max_o);
        let mut past: Vec<_> = ats.iter().map(key).collect();
        past.dedup();
        let mut versions: Vec<u64> = ats.iter().map(|a| a.version).collect();
        versions.dedup();
        let mut spans: Vec<u64> = ats.iter().map(|a| a.span).collect();
        spans.dedup();
        let mut scales: Vec<(u32, u32)> = ats.iter().map(|a| (a.max_l, a.max_o)).collect();
        scales.dedup();
        assert!(versions.len() > 20, "{} versions", versions.len());
        assert!(
            past.len() <= spans.len() + scales.len(),
            "{} drawings of the start-up for {} spans and {} scales",
            past.len(),
            spans.len(),
            scales.len()
        );
        assert!(scales.len() <= 4, "{scales:?}");
    }

    /// The points of the drawing a path of M, H and V commands covers.
    fn covered(d: &str) -> BTreeSet<(u32, u32)> {
        let mut out = BTreeSet::new();
        let (mut x, mut y) = (0u32, 0u32);
        let mut rest = d;
        while let Some(c) = rest.chars().next() {
            let end = rest[1..]
                .find(|ch: char| ch.is_ascii_alphabetic())
                .map_or(rest.len(), |i| i + 1);
            let arg = &rest[1..end];
            match c {
                'M' => {
                    let (a, b) = arg.split_once(',').expect("M x,y");
                    (x, y) = (a.parse().expect("x"), b.parse().expect("y"));
                    out.insert((x, y));
                }
                'H' => {
                    let to: u32 = arg.parse().expect("x");
                    for k in x.min(to)..=x.max(to) {
                        out.insert((k, y));
                    }
                    x = to;
                }
                'V' => {
                    let to: u32 = arg.parse().expect("y");
                    for k in y.min(to)..=y.max(to) {
                        out.insert((x, k));
                    }
                    y = to;
                }
                other => panic!("unexpected command {other}"),
            }
            rest = &rest[end..];
        }
        out
    }

    /// The plain path: a horizontal and a vertical stroke for every point,
    /// at the same whole coordinates.
    fn plain(points: &[(u64, u32)], t0: u64, t1: u64, max: u32) -> String {
        let x = |ms: u64| ((ms - t0) * u64::from(CHART_W) / (t1 - t0)) as u32;
        let y = |v: u32| {
            let (v, m) = (u64::from(v), u64::from(max));
            (u64::from(CHART_H - 2) - (v * u64::from(CHART_H - 4) + m / 2) / m) as u32
        };
        let mut d = String::new();
        for (i, &(ms, v)) in points.iter().enumerate() {
            if i == 0 {
                d.push_str(&format!("M{},{}", x(ms), y(v)));
            } else {
                d.push_str(&format!("H{}V{}", x(ms), y(v)));
            }
        }
        d.push_str(&format!("H{CHART_W}"));
        d
    }

    #[test]
    fn a_step_line_covers_what_a_stroke_per_point_covers_with_few_commands() {
        // 5,000 points over 10 s (many per column), values that rise, fall
        // back within a column and stay flat for long stretches.
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as u32
        };
        let mut points = Vec::new();
        let mut v = 0u32;
        for i in 0..5_000u64 {
            if i % 7 == 0 || (1_000..1_200).contains(&i) {
                v = next() % 4_000;
            }
            points.push((2_000 + i * 2, v));
        }
        let (t0, t1) = (2_000, 12_500);
        let max = points.iter().map(|p| p.1).max().unwrap_or(1);
        let fast = step_path(points.iter().copied(), t0, t1, max);
        let slow = plain(&points, t0, t1, max);
        assert_eq!(covered(&fast), covered(&slow));
        let commands = fast.chars().filter(char::is_ascii_alphabetic).count();
        assert!(
            commands <= 4 * (CHART_W as usize + 1) + 2,
            "{commands} commands"
        );
        // A flat line is one horizontal stroke.
        let flat: Vec<(u64, u32)> = (0..1_000).map(|i| (i, 5)).collect();
        assert_eq!(step_path(flat.iter().copied(), 0, 2_000, 10), "M0,55H560");
        assert_eq!(
            covered(&step_path(flat.iter().copied(), 0, 2_000, 10)),
            covered(&plain(&flat, 0, 2_000, 10))
        );
        for n in [0, 7, 10, 560, 1_000_000, u32::MAX] {
            let mut d = String::new();
            push_num(&mut d, 'V', n);
            assert_eq!(d, format!("V{n}"));
        }
        // No points: no line (a path must start with a move: the browser
        // rejects "H560").
        assert_eq!(step_path(std::iter::empty(), 0, 1, 1), "");
    }

    #[test]
    fn the_span_is_the_smallest_of_1_2_5_10_s_that_holds_the_time_since_the_first_point() {
        let spans: Vec<u64> = [
            1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000,
        ]
        .iter()
        .map(|s| s * 1_000)
        .collect();
        for elapsed in (0..6_000_000u64)
            .step_by(997)
            .chain([9_999, 10_000, 10_001, 20_000, 20_001])
        {
            let span = chart_span(elapsed);
            let k = spans
                .iter()
                .position(|&s| s == span)
                .expect("a span of the list");
            assert!(elapsed <= span, "{elapsed} in {span}");
            assert!(
                k == 0 || elapsed > spans[k - 1],
                "{elapsed}: {span} is not the smallest"
            );
        }
        assert_eq!(chart_span(u64::MAX), u64::MAX);
    }

    #[test]
    fn the_drawing_changes_only_when_the_series_or_the_column_of_now_does() {
        let mut c = SummaryCache::default();
        c.series.push(SeriesPoint {
            time_ms: 71_000,
            leaders: vec![1, 2],
            offline: 0,
        });
        c.series_version = 1;
        // Playing 30 s at a frame a virtual 16 ms: the span goes 1, 2, 5, 10,
        // 20 and 50 s; now moves right a column at a time within each.
        let ats: Vec<ChartAt> = (0..=30_000u64 / 16)
            .map(|f| ChartAt::of(&c, 71_000 + f * 16))
            .collect();
        // The lines are made once a span (six times), the cover moved at
        // most once a column.
        let mut lines: Vec<(u64, u64, u64)> =
            ats.iter().map(|a| (a.version, a.t0, a.span)).collect();
        lines.dedup();
        assert_eq!(lines.len(), 6);
        let mut drawn = ats.clone();
        drawn.dedup();
        assert!(
            drawn.len() <= 6 * (CHART_W as usize + 1),
            "{} drawings for {} frames",
            drawn.len(),
            ats.len()
        );
        for w in ats.windows(2) {
            let (a, b) = (w[0], w[1]);
            assert_eq!(a.t0, 71_000);
            assert!(b.span >= a.span);
            if a.span == b.span {
                assert!(b.now_x >= a.now_x, "{a:?} {b:?}");
            }
            assert!(b.now_x <= CHART_W);
        }
        assert_eq!(ats.last().map(|a| a.span), Some(50_000));
        assert_eq!(ats.last().map(|a| a.now_x), Some(30_000 * CHART_W / 50_000));
        c.series_version += 1;
        assert_ne!(ChartAt::of(&c, 80_000), ats[9_000 / 16]);
    }
}
