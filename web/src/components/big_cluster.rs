//! Large-cluster mode: the brokers as an aggregated grid with the core's
//! counts, the controller queues by depth, leaders per broker and offline
//! partitions over time, and the partitions as a virtualized, filterable
//! table. Nothing here is O(partitions) per frame except the table's filter,
//! which the core runs ([`SummaryCache::filter`]) and the page memoises per
//! change; only the rows in sight are drawn.

use crate::components::big_chart::{Chart, ChartAt};
use crate::components::event_queue::{current_event, waiting_event};
use crate::el::{
    attrs, change, class, click, dynamic, el, eld, elo, flag as bool_attr, input, input_ev,
    input_ref, list, num, on, prop, s, scroll as on_scroll, st, string, submit, tag, text, Attr,
};
use crate::i18n::{use_lang, Lang};
use crate::state::Msg;
use kcsim_core::controller::states::PartitionState;
use kcsim_core::summary::{
    Filter, Shape, ShapeError, SummaryCache, NOT_PREFERRED, UNAVAILABLE, UNDER_MIN_ISR,
    UNDER_REPLICATED,
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

/// With more brokers than this the grid's cells are compact.
pub const COMPACT_FROM: usize = 30;

/// `n` as a compact cell writes it: in thousands from `from` on (2.1k,
/// 19k), the exact count in the cell's title.
pub fn short(n: u32, from: u32) -> String {
    match n {
        n if n < from => n.to_string(),
        n if n < 10_000 => format!("{}.{}k", n / 1_000, n % 1_000 / 100),
        n => format!("{}k", n / 1_000),
    }
}

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
    // A new controller is brought into the grid's view (at 100 brokers
    // the compact grid shows them all at 1280 x 720, not in a smaller
    // window): the class sees the ★ move.
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
    // Many brokers: compact cells, so that a hundred fit in the grid's
    // window at 1280 x 720.
    let compact = props.brokers.len() > COMPACT_FROM;
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
                list(if compact {
                    // Two short lines: the id (the controller starred) and
                    // the under-replicated count, then the leaders (or a
                    // dead broker's offline replicas); the title has all.
                    vec![
                        el(
                            "span",
                            attrs!("class" = "cell-top"),
                            list(vec![
                                el("span", attrs!("class" = "cell-id"), string(format!("{id}{}", if is_ctl { "★" } else { "" }))),
                                count(urp, attrs!("class" = "cell-urp"), short(urp, 1_000)),
                            ]),
                        ),
                        if off > 0 {
                            el("span", attrs!("class" = "cell-off"), string(format!("off {}", short(off, 10_000))))
                        } else {
                            el("span", attrs!("class" = "cell-n"), string(format!("L{}", short(l, 10_000))))
                        },
                    ]
                } else {
                    vec![
                        el("span", attrs!("class" = "cell-id"), string(format!("{id}{}", if is_ctl { " ★" } else { "" }))),
                        el("span", attrs!("class" = "cell-n"), string(format!("L{l} F{f}"))),
                        count(off, attrs!("class" = "cell-off"), format!("off {off}")),
                        count(urp, attrs!("class" = "cell-urp"), format!("URP {urp}")),
                        count(umi, attrs!("class" = "cell-umi"), format!("<min {umi}")),
                    ]
                }),
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
                                text(if compact {
                                    t(" · L leader, off offline replicas, violet under-replicated, ★ controller; a broker's title has all its counts", " · L leader，off 离线副本，紫色为副本不足，★ 控制器；悬停 broker 可见全部计数")
                                } else {
                                    t(" · L leader, F follower, off offline replicas, URP under-replicated, <min under min.insync.replicas", " · L leader，F follower，off 离线副本，URP 副本不足，<min 低于 min.insync.replicas")
                                }),
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
                        Attributes::Static(if compact {
                            attrs!("role" = "list", "class" = "broker-grid compact")
                        } else {
                            attrs!("role" = "list", "class" = "broker-grid")
                        }),
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
                    el("td", attrs!("class" = "flags"), string(tags(r.flags))),
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
                        // (The header: up to two lines, when a narrow
                        // window wraps "leader epoch".)
                        n * ROW_H + 2 * ROW_H
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
mod grid_tests {
    use super::short;

    #[test]
    fn a_compact_cell_writes_large_counts_in_thousands() {
        assert_eq!(short(999, 1_000), "999");
        assert_eq!(short(2_149, 1_000), "2.1k");
        assert_eq!(short(9_999, 10_000), "9999");
        assert_eq!(short(19_354, 10_000), "19k");
        assert_eq!(short(1_000, 1_000), "1.0k");
        assert_eq!(short(200_000, 1_000), "200k");
    }
}
