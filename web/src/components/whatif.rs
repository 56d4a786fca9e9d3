//! What if…: fork the run at the time cursor into two runs that differ in one
//! setting and play them side by side, in step. The core builds the two runs
//! and compares them ([`kcsim_core::whatif`]); this file draws its
//! [`Comparison`] and drives the two runs' clock.

use crate::components::broker_card::status_short;
use crate::el::{
    self, attrs, change, click, dynamic, el, eld, elo, els, flag, input, input_ev, keydown, list,
    num, on, opt, s, st, string, submit, tag, text, Val,
};
use crate::i18n::{use_lang, Lang};
use crate::state::{zk_mode_label, SPEEDS};
use kcsim_core::whatif::{Comparison, PartitionCell, Setting, Variation, WhatIf, WhatIfError};
use kcsim_core::{BrokerId, SimTime};
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;
use yew::virtual_dom::{Attributes, Listeners};

/// The two runs, shared between renders and changed in place (cloning them
/// with their snapshots on every tick would cost more than running them).
#[derive(Debug, Clone)]
pub struct Runs(pub Rc<RefCell<WhatIf>>);

impl PartialEq for Runs {
    fn eq(&self, other: &Runs) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// What the panes show and drive: the runs' clock, nothing of Kafka's.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    runs: Runs,
    /// The core's comparison of the two runs now.
    pub comparison: Rc<Comparison>,
    /// Whether time runs.
    pub playing: bool,
    /// Index into [`SPEEDS`].
    pub speed: usize,
    /// The end of the scrub bar.
    pub horizon_ms: u64,
    /// Virtual time owed by ticks shorter than a millisecond.
    carry: f64,
}

/// What the panes' controls send.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WhatIfMsg {
    /// Wall-clock ms passed.
    Tick(u64),
    /// Play or pause.
    TogglePlay,
    /// To the next moment either run has something to do.
    Step,
    /// 100 ms back.
    StepBack,
    /// Pick a speed (index into [`SPEEDS`]).
    SetSpeed(usize),
    /// Move both runs to this time.
    Seek(u64),
}

impl Model {
    /// The panes for these runs, paused at the fork, at the page's speed.
    pub fn new(what_if: WhatIf, speed: usize) -> Model {
        Model::from_runs(Runs(Rc::new(RefCell::new(what_if))), speed)
    }

    /// The panes for runs already shared.
    pub fn from_runs(runs: Runs, speed: usize) -> Model {
        let (comparison, now) = {
            let w = runs.0.borrow();
            (Rc::new(w.comparison()), w.now().as_ms())
        };
        Model {
            runs,
            comparison,
            playing: false,
            speed: speed.min(SPEEDS.len() - 1),
            horizon_ms: now.saturating_add(30_000),
            carry: 0.0,
        }
    }

    /// Now, in both runs.
    pub fn now_ms(&self) -> u64 {
        self.comparison.time_ms
    }

    fn with_runs(&self, f: impl FnOnce(&mut WhatIf)) -> Model {
        let mut next = self.clone();
        let mut w = self.runs.0.borrow_mut();
        f(&mut w);
        next.comparison = Rc::new(w.comparison());
        next.horizon_ms = next.horizon_ms.max(w.now().as_ms());
        next
    }

    /// Apply one message.
    pub fn apply(&self, msg: WhatIfMsg) -> Model {
        match msg {
            WhatIfMsg::Tick(_) if !self.playing => self.clone(),
            WhatIfMsg::Tick(wall_ms) => {
                let speed = SPEEDS.get(self.speed).map_or(1.0, |s| s.0);
                let owed = self.carry + wall_ms as f64 * speed;
                let whole = owed.floor();
                let to = self.now_ms().saturating_add(whole as u64);
                let mut next = self.with_runs(|w| w.seek(SimTime(to)));
                next.carry = owed - whole;
                next
            }
            WhatIfMsg::TogglePlay => Model {
                playing: !self.playing,
                ..self.clone()
            },
            WhatIfMsg::Step => self.with_runs(|w| {
                w.step();
            }),
            WhatIfMsg::StepBack => {
                let to = self.now_ms().saturating_sub(100);
                self.with_runs(|w| w.seek(SimTime(to)))
            }
            WhatIfMsg::SetSpeed(i) => Model {
                speed: i.min(SPEEDS.len() - 1),
                ..self.clone()
            },
            WhatIfMsg::Seek(ms) => self.with_runs(|w| w.seek(SimTime(ms))),
        }
    }
}

impl Reducible for Model {
    type Action = WhatIfMsg;

    fn reduce(self: Rc<Self>, action: WhatIfMsg) -> Rc<Self> {
        Rc::new(self.apply(action))
    }
}

/// A side's setting in words.
pub fn setting_text(s: &Setting, lang: Lang) -> String {
    match s {
        Setting::Unclean {
            topic: Some(t),
            enabled,
        } => lang.f(
            || format!("unclean.leader.election.enable={enabled} for {t}"),
            || format!("{t} 的 unclean.leader.election.enable={enabled}"),
        ),
        Setting::Unclean {
            topic: None,
            enabled,
        } => lang.f(
            || format!("unclean.leader.election.enable={enabled} (cluster default)"),
            || format!("unclean.leader.election.enable={enabled}（集群默认）"),
        ),
        Setting::ZkMode { mode } => lang.f(
            || format!("ZooKeeper access {}", zk_mode_label(*mode)),
            || format!("ZooKeeper 访问 {}", zk_mode_label(*mode)),
        ),
        Setting::Kill9 { broker } => lang.f(
            || format!("kill -9 broker {broker}"),
            || format!("kill -9 broker {broker}（强杀）"),
        ),
        Setting::Kill15 { broker } => lang.f(
            || format!("kill -15 broker {broker} (controlled shutdown)"),
            || format!("kill -15 broker {broker}（受控关闭）"),
        ),
    }
}

/// Why a what-if could not be built, in words.
pub fn error_text(e: &WhatIfError, lang: Lang) -> String {
    match lang {
        Lang::En => e.to_string(),
        Lang::Zh => match e {
            WhatIfError::TooLate { at, max } => format!("无法在 {at} ms 分叉：最晚为 {max} ms"),
            WhatIfError::UnknownBroker(b) => format!("集群中没有 broker {b}"),
            WhatIfError::BrokerNotRunning { broker, status, at } => format!(
                "broker {broker} 在 {at} ms 时{}，没有在运行：无法 kill 或关闭",
                crate::components::broker_card::status_word(status, lang)
            ),
            WhatIfError::UnknownTopic { topic, at } => {
                format!("{at} ms 时没有主题 {topic:?}")
            }
            WhatIfError::Refused { side, action, fact } => format!(
                "{side} 侧拒绝了 {action}：{}",
                crate::i18n::facts::fact_text(fact, lang)
            ),
        },
    }
}

/// Properties of [`WhatIfLauncher`].
#[derive(Properties, PartialEq, Debug)]
pub struct LauncherProps {
    /// The brokers and their statuses now.
    pub brokers: Vec<(BrokerId, String)>,
    /// The topics now.
    pub topics: Vec<String>,
    /// The time cursor.
    pub now_ms: u64,
    /// Fork with this variation.
    pub on_fork: Callback<Variation>,
    /// Why the last fork failed, in the page's language.
    #[prop_or_default]
    pub error: Option<String>,
    /// Whether the panes are open: the launcher folds away when they open,
    /// so closing them returns the header as it was.
    #[prop_or_default]
    pub panes_open: bool,
}

/// The "What if…" control: pick the variation, fork at the time cursor.
#[component]
pub fn WhatIfLauncher(props: &LauncherProps) -> Html {
    let lang = use_lang();
    let t = |en: &'static str, zh: &'static str| lang.t(en, zh);
    let kind = use_state(|| "unclean".to_string());
    let scope = use_state(String::new);
    let broker = use_state(|| None::<u32>);
    let on_kind = {
        let kind = kind.clone();
        Callback::from(move |e: Event| {
            kind.set(e.target_unchecked_into::<HtmlSelectElement>().value())
        })
    };
    let on_scope = {
        let scope = scope.clone();
        Callback::from(move |e: Event| {
            scope.set(e.target_unchecked_into::<HtmlSelectElement>().value())
        })
    };
    let on_broker = {
        let broker = broker.clone();
        Callback::from(move |e: Event| {
            broker.set(
                e.target_unchecked_into::<HtmlSelectElement>()
                    .value()
                    .parse()
                    .ok(),
            )
        })
    };
    let chosen_broker = (*broker)
        .or_else(|| props.brokers.first().map(|(b, _)| b.0))
        .unwrap_or(0);
    let variation = match kind.as_str() {
        "kill" => Variation::Kill {
            broker: BrokerId(chosen_broker),
        },
        "zk" => Variation::ZkMode,
        _ => Variation::Unclean {
            topic: (!scope.is_empty()).then(|| (*scope).clone()),
        },
    };
    let fork = {
        let cb = props.on_fork.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            cb.emit(variation.clone());
        })
    };
    let at = format!("{:.3} s", props.now_ms as f64 / 1000.0);
    let details = use_node_ref();
    {
        let details = details.clone();
        use_effect_with(props.panes_open, move |open| {
            if *open {
                if let Some(el) = details.cast::<web_sys::Element>() {
                    let _ = el.remove_attribute("open");
                }
            }
        });
    }
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    let option = |value: Val, selected: bool, h: Html| {
        eld(
            "option",
            &["value", "selected"],
            Box::new([value, flag("selected", selected)]),
            h,
        )
    };
    let select = |aria: &'static str, cb: Callback<Event>, options: Vec<Html>| {
        elo(
            "select",
            &["aria-label"],
            Box::new([s(aria)]),
            on(Box::new([change(cb)])),
            list(options),
        )
    };
    let scope_label = list(if *kind == "unclean" {
        let mut options = vec![option(
            s(""),
            scope.is_empty(),
            text(t("the cluster default", "集群默认")),
        )];
        options.extend(props.topics.iter().map(|tp| {
            option(
                st(tp.clone()),
                *scope == *tp,
                string(lang.f(|| format!("topic {tp}"), || format!("主题 {tp}"))),
            )
        }));
        vec![el(
            "label",
            &[],
            list(vec![
                text(t("for ", "范围 ")),
                select(
                    t("Where unclean election is set", "unclean 选举的设置范围"),
                    on_scope,
                    options,
                ),
            ]),
        )]
    } else {
        Vec::new()
    });
    let broker_label = list(if *kind == "kill" {
        vec![el(
            "label",
            &[],
            list(vec![
                text("broker "),
                select(
                    t("The broker to kill or stop", "要 kill 或关闭的 broker"),
                    on_broker,
                    props
                        .brokers
                        .iter()
                        .map(|(b, status)| {
                            option(
                                num(b.0.into()),
                                b.0 == chosen_broker,
                                string(format!("{b} ({})", status_short(status, lang))),
                            )
                        })
                        .collect(),
                ),
            ]),
        )]
    } else {
        Vec::new()
    });
    tag(
        "details",
        details,
        Attributes::Static(attrs!("class" = "whatif-launch")),
        Listeners::None,
        list(vec![
            eld(
                "summary",
                &["aria-label"],
                Box::new([s(t(
                    "What if…: fork the run into two side by side",
                    "假如……：把运行分叉成并排的两份",
                ))]),
                text(t("What if…", "假如……")),
            ),
            els(
                "form",
                attrs!("class" = "whatif-form"),
                on(Box::new([submit(fork)])),
                list(vec![
                    el(
                        "label",
                        &[],
                        list(vec![
                            text(t("differ in ", "差别 ")),
                            select(
                                t("What the two runs differ in", "两份运行的差别"),
                                on_kind,
                                vec![
                                    option(
                                        s("unclean"),
                                        *kind == "unclean",
                                        text(t(
                                            "unclean election off / on",
                                            "unclean 选举 关 / 开",
                                        )),
                                    ),
                                    option(
                                        s("kill"),
                                        *kind == "kill",
                                        text(t(
                                            "kill -9 / kill -15 of a broker",
                                            "kill -9 / kill -15 一个 broker",
                                        )),
                                    ),
                                    option(
                                        s("zk"),
                                        *kind == "zk",
                                        text(t(
                                            "ZooKeeper access: Kafka 1.1+ / 1.0",
                                            "ZooKeeper 访问：Kafka 1.1+ / 1.0",
                                        )),
                                    ),
                                ],
                            ),
                        ]),
                    ),
                    scope_label,
                    broker_label,
                    list(if *kind == "zk" {
                        vec![el(
                            "p",
                            attrs!("class" = "whatif-note"),
                            text(t(
                                "A static setting: the two runs differ from time 0, with the same actions.",
                                "这是静态配置：两份运行从 0 时刻起就不同，操作相同。",
                            )),
                        )]
                    } else {
                        Vec::new()
                    }),
                    eld(
                        "button",
                        &["type", "aria-label", "class"],
                        Box::new([
                            s("submit"),
                            st(lang.f(
                                || format!("Fork here, at {at}"),
                                || format!("在此刻（{at}）分叉"),
                            )),
                            s("whatif-fork"),
                        ]),
                        string(lang.f(|| format!("fork at {at}"), || format!("在 {at} 分叉"))),
                    ),
                    list(if let Some(e) = &props.error {
                        vec![el(
                            "p",
                            attrs!("role" = "alert", "class" = "whatif-error"),
                            string(e.clone()),
                        )]
                    } else {
                        Vec::new()
                    }),
                ]),
            ),
        ]),
    )
}

/// Properties of [`WhatIfPanes`].
#[derive(Properties, PartialEq, Debug)]
pub struct PanesProps {
    /// The runs, as forked (the panes take them over).
    pub runs: Runs,
    /// The page's speed, to start at.
    pub speed: usize,
    /// Close the panes (the page is as it was).
    pub on_close: Callback<()>,
}

fn leader_text(c: Option<&PartitionCell>, lang: Lang) -> String {
    match c {
        None => lang.t("(no such partition)", "（无此分区）").to_string(),
        Some(c) => c
            .leader
            .map_or_else(|| lang.t("none", "无").to_string(), |b| b.to_string()),
    }
}

fn secs(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// One side of the comparison.
fn pane(c: &Comparison, side: usize, lang: Lang) -> Html {
    let t = |en: &'static str, zh: &'static str| lang.t(en, zh);
    let (letter, sum, other) = if side == 0 {
        ("A", &c.a, &c.b)
    } else {
        ("B", &c.b, &c.a)
    };
    let setting = c
        .settings
        .get(side)
        .map(|s| setting_text(s, lang))
        .unwrap_or_default();
    let role = if side == 0 {
        t("as is", "原样")
    } else {
        t("the variation", "变化")
    };
    let diff = |d: bool| d.then_some("diff");
    let differs_title = t("differs from the other run", "与另一份运行不同");
    let title = |d: bool| d.then_some(differs_title);
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    let marked = |tag: &'static str, d: bool, class: Classes, h: Html| {
        eld(
            tag,
            &["title", "class"],
            Box::new([opt(title(d)), el::class(class)]),
            h,
        )
    };
    let brokers = c
        .brokers
        .iter()
        .map(|b| {
            let s = if side == 0 { &b.a } else { &b.b };
            let word = s
                .as_deref()
                .map_or_else(|| "—".to_string(), |s| status_short(s, lang));
            marked(
                "li",
                b.differs,
                classes!(s.clone(), diff(b.differs)),
                string(format!(
                    "{}{} {word}",
                    if c.a.controller == Some(b.id) && side == 0
                        || c.b.controller == Some(b.id) && side == 1
                    {
                        "★ "
                    } else {
                        ""
                    },
                    b.id
                )),
            )
        })
        .collect();
    let rows = c
        .partitions
        .iter()
        .map(|r| {
            let cell = if side == 0 {
                r.a.as_ref()
            } else {
                r.b.as_ref()
            };
            let isr = cell.map_or_else(String::new, |c| {
                format!(
                    "[{}]",
                    c.isr
                        .iter()
                        .map(|b| b.to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                )
            });
            let avail = cell.is_some_and(|c| c.available);
            eld(
                "tr",
                &["data-tp"],
                Box::new([st(format!("{}-{}", r.tp.topic, r.tp.partition))]),
                list(vec![
                    el(
                        "th",
                        attrs!("scope" = "row"),
                        string(format!("{}-{}", r.tp.topic, r.tp.partition)),
                    ),
                    marked(
                        "td",
                        r.leader_differs,
                        classes!("leader", diff(r.leader_differs)),
                        string(leader_text(cell, lang)),
                    ),
                    marked(
                        "td",
                        r.isr_differs,
                        classes!("isr", diff(r.isr_differs)),
                        string(isr),
                    ),
                    marked(
                        "td",
                        r.available_differs,
                        classes!("avail", (!avail).then_some("no"), diff(r.available_differs)),
                        text(if avail {
                            t("yes", "是")
                        } else {
                            t("no", "否")
                        }),
                    ),
                    marked(
                        "td",
                        r.unavailable_differs,
                        classes!("unavail", diff(r.unavailable_differs)),
                        string(cell.map(|c| secs(c.unavailable_ms)).unwrap_or_default()),
                    ),
                ]),
            )
        })
        .collect();
    let total = |d: bool, class: Classes, dt: &'static str, dd: String| {
        marked(
            "div",
            d,
            class,
            list(vec![el("dt", &[], text(dt)), el("dd", &[], string(dd))]),
        )
    };
    eld(
        "section",
        &["aria-label", "data-side", "class"],
        Box::new([
            st(format!("{letter}: {setting}")),
            s(letter),
            el::class(classes!(
                "whatif-pane",
                format!("side-{}", letter.to_ascii_lowercase())
            )),
        ]),
        list(vec![
            el(
                "h3",
                &[],
                list(vec![
                    el(
                        "span",
                        attrs!("class" = "side-letter"),
                        string(format!("{letter} · {role}")),
                    ),
                    text(" "),
                    el("span", attrs!("class" = "setting"), string(setting.clone())),
                ]),
            ),
            eld(
                "ul",
                &["aria-label", "class"],
                Box::new([s(t("Brokers", "Broker")), s("whatif-brokers")]),
                list(brokers),
            ),
            el(
                "table",
                attrs!("class" = "whatif-table"),
                list(vec![
                    el(
                        "thead",
                        &[],
                        el(
                            "tr",
                            &[],
                            list(
                                [
                                    t("partition", "分区"),
                                    "leader",
                                    "ISR",
                                    t("available", "可用"),
                                    t("unavailable", "不可用时间"),
                                ]
                                .into_iter()
                                .map(|h| el("th", &[], text(h)))
                                .collect(),
                            ),
                        ),
                    ),
                    el("tbody", &[], list(rows)),
                ]),
            ),
            eld(
                "dl",
                &["aria-label", "class"],
                Box::new([s(t("Totals so far", "至今的合计")), s("whatif-summary")]),
                list(vec![
                    total(
                        c.differs.unavailable_ms,
                        classes!("unavailable-total", diff(c.differs.unavailable_ms)),
                        t("unavailable, all partitions", "所有分区不可用时间"),
                        secs(sum.unavailable_ms),
                    ),
                    total(
                        c.differs.acked_records_lost,
                        classes!(
                            "records-lost",
                            diff(c.differs.acked_records_lost),
                            (sum.acked_records_lost > other.acked_records_lost).then_some("worse")
                        ),
                        t("acknowledged records lost", "丢失的已确认消息"),
                        sum.acked_records_lost.to_string(),
                    ),
                    total(
                        c.differs.unclean_elections,
                        classes!("unclean-count", diff(c.differs.unclean_elections)),
                        t("unclean elections", "unclean 选举次数"),
                        sum.unclean_elections.to_string(),
                    ),
                    total(
                        c.differs.controller,
                        classes!("controller", diff(c.differs.controller)),
                        t("controller", "控制器"),
                        sum.controller
                            .map_or_else(|| t("none", "无").to_string(), |b| format!("broker {b}")),
                    ),
                ]),
            ),
        ]),
    )
}

/// The two runs side by side with one set of time controls; a close button
/// returns to the page as it was.
#[component]
pub fn WhatIfPanes(props: &PanesProps) -> Html {
    let lang = use_lang();
    let t = |en: &'static str, zh: &'static str| lang.t(en, zh);
    let runs = props.runs.clone();
    let speed0 = props.speed;
    // The panes take the runs over: they were forked for them alone.
    let model = use_reducer(move || Model::from_runs(runs, speed0));
    {
        let model = model.clone();
        crate::hooks::use_interval(
            model.playing,
            crate::app::TICK_MS,
            Callback::from(move |_| {
                model.dispatch(WhatIfMsg::Tick(u64::from(crate::app::TICK_MS)))
            }),
        );
    }
    let root = use_node_ref();
    {
        let root = root.clone();
        use_effect_with((), move |_| {
            if let Some(el) = root.cast::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
        });
    }
    let send = |m: WhatIfMsg| {
        let model = model.clone();
        Callback::from(move |_: MouseEvent| model.dispatch(m))
    };
    let close = {
        let cb = props.on_close.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    // The panes' keys: the page's keys act on the page behind, so every
    // shortcut is taken here (and Escape closes).
    let on_key = {
        let model = model.clone();
        let cb = props.on_close.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.ctrl_key() || e.alt_key() || e.meta_key() {
                return;
            }
            if let Some(el) = e
                .target()
                .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            {
                let input_type = wasm_bindgen::JsCast::dyn_ref::<HtmlInputElement>(&el)
                    .map(|i| i.type_())
                    .unwrap_or_default();
                if crate::hooks::key_belongs_to_target(
                    &el.tag_name(),
                    &input_type,
                    false,
                    crate::hooks::keyboard_focus(&el),
                    &e.key(),
                ) {
                    return;
                }
            }
            let m = match e.key().as_str() {
                " " => Some(WhatIfMsg::TogglePlay),
                "ArrowRight" => Some(WhatIfMsg::Step),
                "ArrowLeft" => Some(WhatIfMsg::StepBack),
                "Escape" => {
                    cb.emit(());
                    None
                }
                "n" | "u" | "m" | "p" | "?" => None,
                _ => return,
            };
            e.prevent_default();
            if let Some(m) = m {
                model.dispatch(m);
            }
        })
    };
    let on_seek = {
        let model = model.clone();
        Callback::from(move |e: InputEvent| {
            if let Ok(ms) = e
                .target_unchecked_into::<HtmlInputElement>()
                .value()
                .parse::<u64>()
            {
                model.dispatch(WhatIfMsg::Seek(ms));
            }
        })
    };
    let c = &*model.comparison;
    let now = model.now_ms();
    let max = model.horizon_ms.max(now).max(1);
    let at = format!("{:.3} s", c.at_ms as f64 / 1000.0);
    let from_start = c
        .settings
        .iter()
        .any(|s| matches!(s, Setting::ZkMode { .. }));
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    let button = |aria: &'static str, m: WhatIfMsg, label: &'static str| {
        elo(
            "button",
            &["aria-label"],
            Box::new([s(aria)]),
            on(Box::new([click(send(m))])),
            text(label),
        )
    };
    tag(
        "div",
        root,
        dynamic(
            &["role", "aria-modal", "aria-label", "tabindex", "class"],
            Box::new([
                s("dialog"),
                s("true"),
                s(t("What if: two runs side by side", "假如：并排的两份运行")),
                s("-1"),
                s("whatif-overlay"),
            ]),
        ),
        on(Box::new([keydown(on_key)])),
        list(vec![
            el(
                "div",
                attrs!("class" = "whatif-head"),
                list(vec![
                    el("h2", &[], text(t("What if…", "假如……"))),
                    el(
                        "p",
                        attrs!("class" = "whatif-fork-at"),
                        string(if from_start {
                            lang.f(|| format!("Both runs replay the actions up to {at}, each from time 0: the ZooKeeper access is fixed when the cluster starts, so they differ from the start."),
                                   || format!("两份运行都重放 {at} 之前的操作，各自从 0 时刻开始：ZooKeeper 访问方式在集群启动时确定，所以从一开始就不同。"))
                        } else {
                            lang.f(|| format!("Forked at {at}: the same run until then, one setting apart after; later scripted steps are left out of both."),
                                   || format!("在 {at} 分叉：之前完全相同，之后只差一个设置；之后的脚本步骤两边都不执行。"))
                        }),
                    ),
                    elo(
                        "button",
                        &["aria-label", "class"],
                        Box::new([
                            s(t(
                                "Close the what-if and return to the page (Escape)",
                                "关闭假如视图，回到页面（Esc）",
                            )),
                            s("whatif-close"),
                        ]),
                        on(Box::new([click(close)])),
                        text(t("close ×", "关闭 ×")),
                    ),
                ]),
            ),
            eld(
                "div",
                &["aria-label", "role", "class"],
                Box::new([
                    s(t("Time controls for both runs", "两份运行共用的时间控制")),
                    s("group"),
                    s("control-row whatif-controls"),
                ]),
                list(vec![
                    elo(
                        "button",
                        &["aria-label", "class"],
                        Box::new([
                            s(if model.playing {
                                t("Pause both runs (space)", "暂停两份运行（空格）")
                            } else {
                                t("Play both runs (space)", "播放两份运行（空格）")
                            }),
                            s("play"),
                        ]),
                        on(Box::new([click(send(WhatIfMsg::TogglePlay))])),
                        text(if model.playing {
                            t("‖ pause", "‖ 暂停")
                        } else {
                            t("▶ play", "▶ 播放")
                        }),
                    ),
                    button(
                        t("Step back 100 ms (left arrow)", "后退 100 ms（←）"),
                        WhatIfMsg::StepBack,
                        t("◀ back", "◀ 后退"),
                    ),
                    button(
                        t(
                            "Step to the next event in either run (right arrow)",
                            "前进到任一运行的下一个事件（→）",
                        ),
                        WhatIfMsg::Step,
                        t("step ▶", "单步 ▶"),
                    ),
                    super::controls::speed_select(lang, model.speed, {
                        let model = model.clone();
                        Callback::from(move |i| model.dispatch(WhatIfMsg::SetSpeed(i)))
                    }),
                    el(
                        "span",
                        attrs!("aria-live" = "off", "class" = "clock"),
                        string(format!("t = {:.3} s", now as f64 / 1000.0)),
                    ),
                    input(
                        Some(AttrValue::from(now.to_string())),
                        None,
                        dynamic(
                            &["type", "min", "max", "step", "aria-label", "class"],
                            Box::new([
                                s("range"),
                                s("0"),
                                num(max),
                                s("1"),
                                s(t(
                                    "Time in both runs: scrub back and forth",
                                    "两份运行的时间：来回拖动",
                                )),
                                s("scrub"),
                            ]),
                        ),
                        on(Box::new([input_ev(on_seek)])),
                    ),
                ]),
            ),
            el(
                "div",
                attrs!("class" = "whatif-panes"),
                list(vec![pane(c, 0, lang), pane(c, 1, lang)]),
            ),
            el(
                "p",
                attrs!("class" = "whatif-legend"),
                text(t(
                    "Highlighted: differs between the two runs. ★ the controller.",
                    "高亮：两份运行不同之处。★ 控制器。",
                )),
            ),
        ]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use kcsim_core::scenario::Scenario;
    use kcsim_core::timeline::Timeline;

    fn unclean_fork() -> Model {
        let s = Scenario::parse(include_str!(
            "../../../core/scenarios/unclean-election.json"
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        let mut t = Timeline::new(&s);
        t.seek(SimTime(27_000));
        let w = WhatIf::fork(
            &s,
            &t,
            SimTime(27_000),
            Variation::Unclean {
                topic: Some("payments".into()),
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        Model::new(w, 2)
    }

    // Kafka: PartitionLeaderElectionAlgorithms.offlinePartitionLeaderElection;
    // the panes only drive the clock and show the core's comparison.
    #[test]
    fn the_panes_play_both_runs_in_step_and_show_the_cores_comparison() {
        let m = unclean_fork();
        assert_eq!(m.now_ms(), 27_000);
        let m = m.apply(WhatIfMsg::Tick(1_000));
        assert_eq!(m.now_ms(), 27_000, "paused");
        let m = m.apply(WhatIfMsg::TogglePlay).apply(WhatIfMsg::SetSpeed(4));
        let mut m = m;
        for _ in 0..10 {
            m = m.apply(WhatIfMsg::Tick(50));
        }
        assert_eq!(m.now_ms(), 27_000 + 10 * 50 * SPEEDS[4].0 as u64);
        let m = m.apply(WhatIfMsg::Seek(40_000));
        let c = &m.comparison;
        assert_eq!(c.b.acked_records_lost, 5);
        assert_eq!(c.a.acked_records_lost, 0);
        assert!(c.partitions.iter().any(|r| r.leader_differs));
        let back = m.apply(WhatIfMsg::StepBack);
        assert_eq!(back.now_ms(), 39_900);
        let stepped = back.apply(WhatIfMsg::Step);
        assert!(stepped.now_ms() > 39_900);
    }

    // Kafka: KafkaController.doControlledShutdown against onBrokerFailure;
    // the page forks its own run at the time cursor and is left as it was.
    #[test]
    fn the_page_forks_its_run_at_the_cursor_and_keeps_it() {
        use crate::state::{Msg, SimState};
        let s = SimState::load("controlled-shutdown-vs-kill")
            .unwrap_or_else(|e| panic!("{e}"))
            .apply(Msg::Seek(5_000));
        let before = s.view().clone();
        let w = s
            .what_if(Variation::Kill {
                broker: BrokerId(1),
            })
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(w.at(), SimTime(5_000));
        assert_eq!(s.view(), &before);
        assert_eq!(s.now_ms(), 5_000);
        // A static setting: rebuilt from the page's own starting scenario.
        let z = s
            .what_if(Variation::ZkMode)
            .unwrap_or_else(|e| panic!("{e}"));
        s.with_trace(|t| assert_eq!(z.a().trace(), t, "side A is the page's run"));
        assert_eq!(
            s.what_if(Variation::Kill {
                broker: BrokerId(9)
            })
            .err(),
            Some(WhatIfError::UnknownBroker(BrokerId(9)))
        );
    }

    #[test]
    fn every_setting_and_error_reads_in_both_languages() {
        let b = BrokerId(1);
        let settings = [
            Setting::Unclean {
                topic: Some("t".into()),
                enabled: true,
            },
            Setting::Unclean {
                topic: None,
                enabled: false,
            },
            Setting::ZkMode {
                mode: crate::ZkMode::Sync,
            },
            Setting::Kill9 { broker: b },
            Setting::Kill15 { broker: b },
        ];
        for s in &settings {
            let (en, zh) = (setting_text(s, Lang::En), setting_text(s, Lang::Zh));
            assert!(!en.is_empty() && !zh.is_empty());
        }
        assert!(setting_text(&settings[4], Lang::Zh).contains("受控关闭"));
        let e = WhatIfError::BrokerNotRunning {
            broker: b,
            status: "dead".into(),
            at: 5,
        };
        assert!(error_text(&e, Lang::Zh).contains("已宕机"));
        assert!(error_text(&e, Lang::En).contains("broker 1 is dead"));
    }
}
