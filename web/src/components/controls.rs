//! Time: play, pause, step, speed, the scrub bar, jump to the next
//! interesting event, undo, the scenario picker and the controller's
//! ZooKeeper access (part of the starting configuration).

use crate::el::{
    attrs, change, class, click, dblclick, dynamic, el, eld, elo, flag, input, input_ev, list, num,
    on, prop, s, st, string, text,
};
use crate::i18n::{use_lang, Lang};
use crate::state::{Msg, BEHIND_STATUS, FOLLOW_STATUS, SCENARIOS, SPEEDS, ZK_MODES};
use crate::ZkMode;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;
use yew::virtual_dom::Attributes;

/// Properties of [`Controls`].
#[derive(Properties, PartialEq, Debug)]
pub struct ControlsProps {
    /// Now.
    pub now_ms: u64,
    /// The end of the scrub bar.
    pub horizon_ms: u64,
    /// Whether time runs.
    pub playing: bool,
    /// Index into `SPEEDS`.
    pub speed: usize,
    /// The loaded scenario.
    pub scenario: &'static str,
    /// The controller's ZooKeeper access the cluster started with.
    pub zk_mode: ZkMode,
    /// Whether there is an action to undo.
    pub can_undo: bool,
    /// Whether auto-follow is on.
    pub follow: bool,
    /// Whether auto-follow is slowing playback down now.
    pub slowed: bool,
    /// Whether playback is behind real time (simulating took longer than
    /// a tick's wall-clock budget).
    #[prop_or_default]
    pub behind: bool,
    /// Marked moments (ms), shown on the scrub bar.
    pub marks: Vec<u64>,
    /// The lesson being followed: its title (in the page's language) and
    /// whether it sets up its own cluster (then no built-in scenario is
    /// loaded, whatever the picker's last choice).
    #[prop_or_default]
    pub lesson: Option<(AttrValue, bool)>,
    /// Where input goes.
    pub on_msg: Callback<Msg>,
}

/// The ZooKeeper access picker's tooltip.
fn zk_mode_title(l: Lang) -> &'static str {
    l.t(
        "How the controller reads and writes ZooKeeper \
    (sim.controller.zk.mode). It is part of the cluster's starting configuration: changing it \
    restarts the scenario from the beginning and drops your actions. sync is Kafka 1.0, one \
    round trip per read and per write; async is Kafka 1.1+, pipelined. With many partitions a \
    controller failover takes about twice as long in sync, a controlled shutdown about ten times.",
        "控制器读写 ZooKeeper 的方式（sim.controller.zk.mode）。它属于集群的启动配置：\
    修改后场景从头重新开始，你的操作会被丢弃。sync 即 Kafka 1.0，每次读写各一次往返；\
    async 即 Kafka 1.1+，流水线方式。分区很多时，sync 下控制器故障转移约慢一倍，受控关闭约慢十倍。",
    )
}

/// The follow status while auto-follow slows playback down.
pub fn follow_status(l: Lang) -> &'static str {
    l.t(FOLLOW_STATUS, "已放慢：控制器正在工作")
}

/// The status while playback is behind real time.
pub fn behind_status(l: Lang) -> &'static str {
    l.t(BEHIND_STATUS, "落后于实时：正在模拟繁忙的时刻")
}

/// The playback speed's `<label>` and `<select>` (the time bar's and
/// What if…'s): `set` gets the chosen index into [`SPEEDS`].
pub(crate) fn speed_select(lang: Lang, speed: usize, set: Callback<usize>) -> Html {
    let t = |en: &'static str, zh: &'static str| lang.t(en, zh);
    let on_speed = Callback::from(move |e: Event| {
        let v = e.target_unchecked_into::<HtmlSelectElement>().value();
        if let Ok(i) = v.parse::<usize>() {
            set.emit(i);
        }
    });
    el(
        "label",
        &[],
        list(vec![
            text(t("speed ", "速度 ")),
            elo(
                "select",
                &["aria-label"],
                Box::new([s(t("Playback speed", "播放速度"))]),
                on(Box::new([change(on_speed)])),
                list(
                    SPEEDS
                        .iter()
                        .enumerate()
                        .map(|(i, (_, name))| {
                            eld(
                                "option",
                                &["value", "selected"],
                                Box::new([num(i as u64), flag("selected", i == speed)]),
                                text(name),
                            )
                        })
                        .collect(),
                ),
            ),
        ]),
    )
}

/// The time bar.
#[component]
pub fn Controls(props: &ControlsProps) -> Html {
    let lang = use_lang();
    let t = |en: &'static str, zh: &'static str| lang.t(en, zh);
    let send = |m: Msg| {
        let cb = props.on_msg.clone();
        Callback::from(move |_: MouseEvent| cb.emit(m.clone()))
    };
    let on_seek = {
        let cb = props.on_msg.clone();
        Callback::from(move |e: InputEvent| {
            let v = e.target_unchecked_into::<HtmlInputElement>().value();
            if let Ok(ms) = v.parse::<u64>() {
                cb.emit(Msg::Seek(ms));
            }
        })
    };
    let on_scenario = {
        let cb = props.on_msg.clone();
        Callback::from(move |e: Event| {
            cb.emit(Msg::Load(
                e.target_unchecked_into::<HtmlSelectElement>().value(),
            ))
        })
    };
    let on_zk_mode = {
        let cb = props.on_msg.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            if let Some(mode) = ZkMode::parse(&v) {
                cb.emit(Msg::SetZkMode(mode));
            }
        })
    };
    let on_follow = {
        let cb = props.on_msg.clone();
        Callback::from(move |e: Event| {
            cb.emit(Msg::SetFollow(
                e.target_unchecked_into::<HtmlInputElement>().checked(),
            ))
        })
    };
    let max = props.horizon_ms.max(props.now_ms).max(1);
    let pct = |ms: u64| ms.min(max) as f64 * 100.0 / max as f64;
    let about = match &props.lesson {
        // The scenario's own hint would contradict the lesson's steps.
        Some((title, own)) => lang.f(
            || {
                format!(
                    "Lesson “{title}”{}: follow the narration above.",
                    if *own { ", on its own cluster" } else { "" }
                )
            },
            || {
                format!(
                    "课程“{title}”{}：请按上方的讲解操作。",
                    if *own {
                        "（使用课程自带的集群）"
                    } else {
                        ""
                    }
                )
            },
        ),
        None => match crate::state::shape_of(props.scenario) {
            Some(sh) => crate::components::big_cluster::shape_about(&sh, lang),
            None => crate::state::builtin(props.scenario)
                .map(|s| lang.t(s.about, s.about_zh).to_string())
                .unwrap_or_default(),
        },
    };
    let own_cluster = props.lesson.as_ref().is_some_and(|(_, own)| *own);
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    let button = |aria: &'static str, m: Msg, label: &'static str| {
        elo(
            "button",
            &["aria-label"],
            Box::new([s(aria)]),
            on(Box::new([click(send(m))])),
            text(label),
        )
    };
    let marks = props
        .marks
        .iter()
        .map(|m| {
            let at = format!("{:.3} s", *m as f64 / 1000.0);
            elo(
                "button",
                &["style", "aria-label", "title", "class"],
                Box::new([
                    prop(format!("left: {:.3}%", pct(*m))),
                    st(lang.f(
                        || format!("Go to the mark at {at}"),
                        || format!("跳到 {at} 处的标记"),
                    )),
                    st(lang.f(
                        || format!("mark at {at} (double-click to remove)"),
                        || format!("{at} 处的标记（双击删除）"),
                    )),
                    s("mark"),
                ]),
                on(Box::new([
                    click(send(Msg::Seek(*m))),
                    dblclick(send(Msg::Unmark(*m))),
                ])),
                Html::default(),
            )
        })
        .collect();
    let first_row = el(
        "div",
        attrs!("class" = "control-row"),
        list(vec![
            elo(
                "button",
                &["aria-label", "class"],
                Box::new([
                    s(if props.playing {
                        t("Pause (space)", "暂停（空格）")
                    } else {
                        t("Play (space)", "播放（空格）")
                    }),
                    s("play"),
                ]),
                on(Box::new([click(send(Msg::TogglePlay))])),
                text(if props.playing {
                    t("‖ pause", "‖ 暂停")
                } else {
                    t("▶ play", "▶ 播放")
                }),
            ),
            button(
                t("Step back 100 ms (left arrow)", "后退 100 ms（←）"),
                Msg::StepBack,
                t("◀ back", "◀ 后退"),
            ),
            button(
                t("Step one event (right arrow)", "前进一个事件（→）"),
                Msg::Step,
                t("step ▶", "单步 ▶"),
            ),
            button(
                t(
                    "Jump to the next interesting event (n)",
                    "跳到下一个关键事件（n）",
                ),
                Msg::NextInteresting,
                t("next event ▶▶", "下一事件 ▶▶"),
            ),
            speed_select(lang, props.speed, props.on_msg.reform(Msg::SetSpeed)),
            elo(
                "button",
                &["aria-label", "disabled"],
                Box::new([
                    s(t("Undo the last action (u)", "撤销上一个操作（u）")),
                    flag("disabled", !props.can_undo),
                ]),
                on(Box::new([click(send(Msg::Undo))])),
                text(t("undo", "撤销")),
            ),
            el(
                "span",
                attrs!("aria-live" = "off", "class" = "clock"),
                string(format!("t = {:.3} s", props.now_ms as f64 / 1000.0)),
            ),
            elo(
                "button",
                &["aria-label", "title"],
                Box::new([
                    s(t("Mark this moment (m)", "标记此刻（m）")),
                    s(t(
                        "Playing pauses when it reaches a mark",
                        "播放到标记处会暂停",
                    )),
                ]),
                on(Box::new([click(send(Msg::Mark))])),
                text(t("mark", "标记")),
            ),
            el(
                "div",
                attrs!("class" = "scrub-wrap"),
                list(vec![
                    input(
                        Some(AttrValue::from(props.now_ms.to_string())),
                        None,
                        dynamic(
                            &["type", "min", "max", "step", "aria-label", "class"],
                            Box::new([
                                s("range"),
                                s("0"),
                                num(max),
                                s("1"),
                                s(t("Timeline: scrub back and forth", "时间轴：来回拖动")),
                                s("scrub"),
                            ]),
                        ),
                        on(Box::new([input_ev(on_seek)])),
                    ),
                    el("div", attrs!("class" = "marks"), list(marks)),
                ]),
            ),
        ]),
    );
    let mut scenarios = vec![list(if own_cluster {
        vec![el(
            "option",
            attrs!(
                "value" = "",
                "selected" = "selected",
                "disabled" = "disabled"
            ),
            text(t("the lesson's own cluster", "课程自带的集群")),
        )]
    } else {
        Vec::new()
    })];
    scenarios.extend(
        SCENARIOS
            .iter()
            .chain(std::iter::once(&crate::state::KAFKA_SCALE))
            .map(|sc| {
                eld(
                    "option",
                    &["value", "selected"],
                    Box::new([
                        s(sc.id),
                        flag("selected", !own_cluster && sc.id == props.scenario),
                    ]),
                    text(lang.t(sc.title, sc.title_zh)),
                )
            }),
    );
    scenarios.push(list(
        if let (false, Some(sh)) = (own_cluster, crate::state::shape_of(props.scenario)) {
            vec![eld(
                "option",
                &["value", "selected"],
                Box::new([s(props.scenario), s("selected")]),
                string(crate::components::big_cluster::shape_title(&sh, lang)),
            )]
        } else {
            Vec::new()
        },
    ));
    let second_row = el(
        "div",
        attrs!("class" = "control-row second"),
        list(vec![
            el(
                "label",
                &[],
                list(vec![
                    text(t("scenario ", "场景 ")),
                    elo(
                        "select",
                        &["aria-label"],
                        Box::new([s(t("Scenario", "场景"))]),
                        on(Box::new([change(on_scenario)])),
                        list(scenarios),
                    ),
                ]),
            ),
            eld(
                "label",
                &["title", "class"],
                Box::new([s(zk_mode_title(lang)), s("zk-mode")]),
                list(vec![
                    text(t("ZooKeeper access ", "ZooKeeper 访问 ")),
                    elo(
                        "select",
                        &["aria-label", "title"],
                        Box::new([
                            s(t("ZooKeeper access", "ZooKeeper 访问方式")),
                            s(zk_mode_title(lang)),
                        ]),
                        on(Box::new([change(on_zk_mode)])),
                        list(
                            ZK_MODES
                                .iter()
                                .map(|(m, label)| {
                                    eld(
                                        "option",
                                        &["value", "selected"],
                                        Box::new([s(m.as_str()), flag("selected", *m == props.zk_mode)]),
                                        text(label),
                                    )
                                })
                                .collect(),
                        ),
                    ),
                ]),
            ),
            eld(
                "label",
                &["title", "class"],
                Box::new([
                    s(t("Slow down by itself while the controller is at work, so that each event and message stays on screen", "控制器工作时自动放慢，让每个事件和消息都在屏幕上停留")),
                    s("follow"),
                ]),
                list(vec![
                    input(
                        None,
                        Some(props.follow),
                        Attributes::Static(attrs!("type" = "checkbox")),
                        on(Box::new([change(on_follow)])),
                    ),
                    text(t(" auto-follow", " 自动跟随")),
                ]),
            ),
            eld(
                "span",
                &["role", "aria-live", "class"],
                Box::new([
                    s("status"),
                    s("polite"),
                    class(classes!(
                        "follow-status",
                        (!(props.playing && (props.slowed || props.behind))).then_some("idle")
                    )),
                ]),
                text(match (props.playing, props.behind, props.slowed) {
                    (true, true, _) => behind_status(lang),
                    (true, false, true) => follow_status(lang),
                    _ => "",
                }),
            ),
            el("span", attrs!("class" = "about"), string(about)),
        ]),
    );
    eld(
        "section",
        &["aria-label", "class"],
        Box::new([s(t("Time controls", "时间控制")), s("controls")]),
        list(vec![first_row, second_row]),
    )
}
