//! The page: the cluster as a living picture.

use crate::components::admin::Admin;
use crate::components::broker_card::BrokerCard;
use crate::components::console::Console;
use crate::components::controls::Controls;
use crate::components::diagram::DiagramPane;
use crate::components::event_queue::EventQueue;
use crate::components::help::Help;
use crate::components::invariants::Invariants;
use crate::components::kafka_text::KafkaText;
use crate::components::lesson_panel::LessonArea;
use crate::components::lesson_picker::LessonPicker;
use crate::components::messages::Messages;
use crate::components::network::Network;
use crate::components::partition_table::PartitionTable;
use crate::components::term::{term, TermId};
use crate::components::whatif::{self, Runs, WhatIfLauncher, WhatIfPanes};
use crate::components::why::Why;
use crate::components::znode_tree::ZnodeTree;
use crate::el::{
    attrs, change, class, click, dynamic, el, eld, elo, els, flag, input, list, on, s, string, tag,
    text,
};
use crate::hooks::{use_focus_rescue, use_interval, use_page_keys};
use crate::i18n::Lang;
use crate::notice::Notice;
use crate::state::{zk_mode_label, Msg, SimState};
use yew::prelude::*;
use yew::virtual_dom::Listeners;

/// How often the playback timer ticks (wall-clock ms).
pub const TICK_MS: u32 = 50;

/// How often it ticks while playback is behind real time (about a frame;
/// each tick simulates for at most `state::TICK_BUDGET_MS`).
pub const BEHIND_TICK_MS: u32 = 16;

/// Properties of [`App`].
#[derive(Properties, PartialEq, Debug, Default)]
pub struct AppProps {
    /// Read the moment from the URL fragment at start, and keep the fragment
    /// up to date as a share link (the page does; mounted tests do not).
    #[prop_or_default]
    pub url_state: bool,
}

/// Where the browser remembers the chosen language.
pub const LANG_KEY: &str = "kcsim.lang";

/// The language a page opens in: the share link's, else the remembered
/// choice, else English. (Mounted tests, without a share link, use English.)
fn initial_lang(url_state: bool) -> Lang {
    if !url_state {
        return Lang::En;
    }
    let hash = web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    crate::share::read(&hash)
        .lang
        .or_else(|| {
            crate::hooks::storage()
                .and_then(|s| s.get_item(LANG_KEY).ok().flatten())
                .and_then(|c| Lang::from_code(&c))
        })
        .unwrap_or_default()
}

/// The page's share link as it opened (`""` for mounted tests).
fn start_fragment(url_state: bool) -> String {
    if url_state {
        web_sys::window()
            .and_then(|w| w.location().hash().ok())
            .unwrap_or_default()
    } else {
        String::new()
    }
}

/// The state a page starts in: the moment its share link names, or the
/// default cluster (with the reason shown when the link is broken).
fn initial_state(hash: &str) -> SimState {
    if hash.len() <= 1 {
        return SimState::default_cluster();
    }
    SimState::from_fragment(hash).unwrap_or_else(|e| {
        let mut s = SimState::default_cluster();
        s.error = Some(e.into());
        s
    })
}

/// The whole simulator page.
#[component]
pub fn App(props: &AppProps) -> Html {
    let url_state = props.url_state;
    let hash = use_memo((), move |_| start_fragment(url_state));
    let state = {
        let hash = hash.clone();
        use_reducer_eq(move || initial_state(&hash))
    };
    {
        // A link to a built-in lesson: the page opens the link's scenario
        // while the lessons are fetched, then the link again, lesson and all.
        let state = state.clone();
        use_effect_with((), move |_| {
            if crate::lesson::needs_builtins(&hash) {
                crate::lesson::builtins::load(move || {
                    state.dispatch(Msg::Replace(std::rc::Rc::new(initial_state(&hash))));
                });
            }
        });
    }
    // The language lives beside the simulation: changing it changes no state.
    let lang_state = use_state_eq(move || initial_lang(url_state));
    let lang = *lang_state;
    use_effect_with(lang, |lang| {
        if let Some(root) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            let _ = root.set_attribute("lang", lang.code());
        }
    });
    let set_lang = {
        let lang_state = lang_state.clone();
        Callback::from(move |e: Event| {
            let code = e
                .target_unchecked_into::<web_sys::HtmlSelectElement>()
                .value();
            if let Some(l) = Lang::from_code(&code) {
                if url_state {
                    if let Some(s) = crate::hooks::storage() {
                        let _ = s.set_item(LANG_KEY, l.code());
                    }
                }
                lang_state.set(l);
            }
        })
    };
    let fragment = state.share_fragment_in(Some(lang));
    {
        // Keep the address bar a share link, but not on every tick while playing.
        let playing = state.playing;
        use_effect_with((fragment.clone(), playing), move |(fragment, playing)| {
            if url_state && !*playing {
                if let Some(h) = web_sys::window().and_then(|w| w.history().ok()) {
                    let _ = h.replace_state_with_url(
                        &wasm_bindgen::JsValue::NULL,
                        "",
                        Some(&format!("#{fragment}")),
                    );
                }
            }
        });
    }
    let dark = use_state(|| false);
    let help = use_state(|| false);
    // What if…: the two forked runs (with a count, so each fork starts fresh
    // panes) and why the last fork failed.
    let what_if = use_state(|| None::<(u64, Runs)>);
    let what_if_error = use_state(|| None::<kcsim_core::whatif::WhatIfError>);
    let what_if_count = use_mut_ref(|| 0u64);
    // The admin form whose action or fields caused the error shown, if one
    // did: the error is shown under that form rather than at the top.
    let admin_form = use_state_eq(|| None::<usize>);
    let on_msg = {
        let state = state.clone();
        let admin_form = admin_form.clone();
        Callback::from(move |m: Msg| {
            if matches!(
                m,
                Msg::Act(_)
                    | Msg::Console(_)
                    | Msg::Undo
                    | Msg::Load(_)
                    | Msg::SetZkMode(_)
                    | Msg::Replace(_)
                    | Msg::DismissError
            ) {
                // A new action replaces the error shown, wherever it was.
                state.dispatch(Msg::DismissError);
                admin_form.set(None);
            }
            if m != Msg::DismissError {
                state.dispatch(m);
            }
        })
    };
    let on_admin = {
        let state = state.clone();
        let admin_form = admin_form.clone();
        Callback::from(move |(form, m): (usize, Msg)| {
            state.dispatch(Msg::DismissError);
            state.dispatch(m);
            admin_form.set(Some(form));
        })
    };
    {
        // Behind real time, tick as often as frames come, so the simulation
        // gets most of the time between them and the page still draws.
        let on_msg = on_msg.clone();
        let period = if state.behind() {
            BEHIND_TICK_MS
        } else {
            TICK_MS
        };
        use_interval(
            state.playing,
            period,
            Callback::from(move |_| on_msg.emit(Msg::Tick(u64::from(period)))),
        );
    }
    {
        // On the document, not on <main>: the keys work whatever has focus,
        // the body included (where focus falls when a focused button disables).
        let on_msg = on_msg.clone();
        let help = help.clone();
        let present = state.present;
        let what_if_open = what_if.is_some();
        use_page_keys(Callback::from(move |e: KeyboardEvent| {
            if what_if_open {
                return; // the what-if panes take the keys
            }
            let m = match e.key().as_str() {
                " " => Some(Msg::TogglePlay),
                "ArrowRight" => Some(Msg::Step),
                "ArrowLeft" => Some(Msg::StepBack),
                "n" => Some(Msg::NextInteresting),
                "u" => Some(Msg::Undo),
                "m" => Some(Msg::Mark),
                "p" => Some(Msg::Lesson(crate::lesson::LessonMsg::SetPresent(!present))),
                "c" => {
                    crate::components::console::focus_prompt();
                    None
                }
                "?" => {
                    help.set(!*help);
                    None
                }
                "Escape" => {
                    help.set(false);
                    None
                }
                _ => return,
            };
            e.prevent_default();
            if let Some(m) = m {
                on_msg.emit(m);
            }
        }));
    }
    let root = use_node_ref();
    use_focus_rescue(root.clone());
    {
        let root = root.clone();
        use_effect_with((), move |_| {
            if let Some(el) = root.cast::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
        });
    }
    let view = state.view();
    let now = state.now_ms();
    let why = state.why_lines();
    let toggle_dark = {
        let dark = dark.clone();
        Callback::from(move |_: MouseEvent| dark.set(!*dark))
    };
    let toggle_help = {
        let help = help.clone();
        Callback::from(move |_: MouseEvent| help.set(!*help))
    };
    let close_help = {
        let help = help.clone();
        Callback::from(move |()| help.set(false))
    };
    let dismiss = {
        let on_msg = on_msg.clone();
        Callback::from(move |_: MouseEvent| on_msg.emit(Msg::DismissError))
    };
    let on_fork = {
        let state = state.clone();
        let what_if = what_if.clone();
        let what_if_error = what_if_error.clone();
        Callback::from(move |v| match state.what_if(v) {
            Ok(w) => {
                // The page waits, paused, until the panes close.
                if state.playing {
                    state.dispatch(Msg::TogglePlay);
                }
                let mut n = what_if_count.borrow_mut();
                *n += 1;
                what_if_error.set(None);
                what_if.set(Some((
                    *n,
                    Runs(std::rc::Rc::new(std::cell::RefCell::new(w))),
                )));
            }
            Err(e) => what_if_error.set(Some(e)),
        })
    };
    let close_what_if = {
        let what_if = what_if.clone();
        Callback::from(move |()| what_if.set(None))
    };
    let controller = view
        .controller
        .map_or(lang.t("none", "无").to_string(), |c| format!("broker {c}"));
    let t = |en: &'static str, zh: &'static str| lang.t(en, zh);
    let topics: Vec<String> = view.topics.iter().map(|t| t.name.clone()).collect();
    let stale = view.stale_requests_rejected;
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction; the components with `html!`): the order of each
    // element's attributes is `html!`'s, `class` last.
    let summary = el(
        "p",
        attrs!("aria-live" = "polite", "class" = "summary"),
        list(vec![
            el(
                "span",
                attrs!("class" = "who"),
                list(vec![
                    term(TermId::Controller, text(t("controller", "控制器"))),
                    string(format!("{}{controller} · ", t(": ", "："))),
                    term(
                        TermId::ControllerEpoch,
                        string(format!("{} {}", t("epoch", "纪元"), view.controller_epoch)),
                    ),
                ]),
            ),
            el(
                "span",
                attrs!("class" = "zk-mode-shown"),
                string(format!(
                    " · {} {}",
                    t("ZooKeeper access:", "ZooKeeper 访问："),
                    zk_mode_label(state.running_zk_mode())
                )),
            ),
            // Always there, hidden while zero: the header does not move when it appears.
            eld(
                "span",
                &["class"],
                Box::new([class(classes!("stale", (stale == 0).then_some("none")))]),
                string(lang.f(
                    || format!(" · {stale} stale-epoch requests rejected"),
                    || format!(" · 已拒绝 {stale} 个过期纪元的请求"),
                )),
            ),
        ]),
    );
    let share = list(if url_state {
        vec![eld(
            "label",
            &["title", "class"],
            Box::new([
                s(t(
                    "A link to this moment: it replays to exactly what you see",
                    "指向此刻的链接：打开后精确重放到你现在看到的样子",
                )),
                s("share"),
            ]),
            list(vec![
                text(t("link ", "链接 ")),
                input(
                    Some(AttrValue::from(format!("#{fragment}"))),
                    None,
                    dynamic(
                        &["aria-label", "size", "readonly"],
                        Box::new([
                            s(t("Share link to this moment", "分享此刻的链接")),
                            s("8"),
                            s("readonly"),
                        ]),
                    ),
                    Listeners::None,
                ),
            ]),
        )]
    } else {
        Vec::new()
    });
    let header = el(
        "header",
        &[],
        list(vec![
            el("h1", &[], text("kcsim")),
            el(
                "p",
                attrs!("class" = "subtitle"),
                text(t(
                    "Kafka 2.x's ZooKeeper-era controller, simulated",
                    "模拟 Kafka 2.x 基于 ZooKeeper 的控制器",
                )),
            ),
            summary,
            share,
            html! { <crate::components::big_cluster::ClusterSize on_msg={on_msg.clone()} current={crate::state::shape_of(state.scenario)} /> },
            list(if state.large {
                Vec::new()
            } else {
                vec![html! {
                    <WhatIfLauncher brokers={view.brokers.iter().map(|b| (b.id, b.status.clone())).collect::<Vec<_>>()}
                        topics={topics.clone()} now_ms={now} on_fork={on_fork} panes_open={what_if.is_some()}
                        error={what_if_error.as_ref().map(|e| whatif::error_text(e, lang))} />
                }]
            }),
            html! { <LessonPicker present={state.present} on_msg={on_msg.clone()} /> },
            els(
                "select",
                attrs!(
                    "aria-label" = "Language / 语言",
                    "title" = "Language / 语言",
                    "class" = "lang-switch"
                ),
                on(Box::new([change(set_lang)])),
                list(
                    Lang::ALL
                        .iter()
                        .map(|l| {
                            eld(
                                "option",
                                &["lang", "value", "selected"],
                                Box::new([s(l.code()), s(l.code()), flag("selected", *l == lang)]),
                                text(l.name()),
                            )
                        })
                        .collect(),
                ),
            ),
            elo(
                "button",
                &["aria-label"],
                Box::new([s(t("Toggle dark theme", "切换深色主题"))]),
                on(Box::new([click(toggle_dark)])),
                text(if *dark {
                    t("light", "浅色")
                } else {
                    t("dark", "深色")
                }),
            ),
            elo(
                "button",
                &["aria-label"],
                Box::new([s(t(
                    "Help: the page, its terms and keys (?)",
                    "帮助：页面、术语和快捷键（?）",
                ))]),
                on(Box::new([click(toggle_help)])),
                text("?"),
            ),
        ]),
    );
    let error = list(if let (Some(e), None) = (&state.error, *admin_form) {
        vec![el(
            "div",
            attrs!("role" = "alert", "class" = "error"),
            list(vec![
                string(e.text(lang)),
                elo(
                    "button",
                    &["aria-label"],
                    Box::new([s(t("Dismiss the error", "关闭错误提示"))]),
                    on(Box::new([click(dismiss.clone())])),
                    text("×"),
                ),
            ]),
        )]
    } else {
        Vec::new()
    });
    let notice = list(if let Some(n) = state.notice {
        vec![el(
            "div",
            attrs!("role" = "status", "class" = "notice"),
            string(n.text(lang)),
        )]
    } else {
        Vec::new()
    });
    let fork = list(if let Some(at) = state.forked_at {
        vec![el(
            "div",
            attrs!("role" = "status", "class" = "fork"),
            string(Notice::fork(at, lang)),
        )]
    } else {
        Vec::new()
    });
    let help_pane = list(if *help {
        vec![html! { <Help on_close={close_help} /> }]
    } else {
        Vec::new()
    });
    let panes = list(if let Some((n, runs)) = &*what_if {
        vec![
            html! { <WhatIfPanes key={*n} runs={runs.clone()} speed={state.speed} on_close={close_what_if} /> },
        ]
    } else {
        Vec::new()
    });
    // In presentation mode the narration and the clock stay on screen together.
    let lesson_top = el(
        "div",
        attrs!("class" = "lesson-top"),
        list(vec![
            html! { <LessonArea run={state.lesson.clone()} present={state.present} on_msg={on_msg.clone()} /> },
            el(
                "div",
                attrs!("id" = "p-time"),
                html! {
                    <Controls now_ms={now} horizon_ms={state.scrub_end_ms()} playing={state.playing} speed={state.speed}
                        scenario={state.scenario} zk_mode={state.zk_mode} can_undo={state.can_undo()}
                        follow={state.follow} slowed={state.slowed} behind={state.behind()} marks={state.marks.to_vec()} on_msg={on_msg.clone()}
                        lesson={state.lesson.as_ref().map(|r| (AttrValue::from(r.lesson.title.get(lang.code()).to_string()),
                            matches!(r.lesson.start, kcsim_core::lesson::Start::Inline(_))))} />
                },
            ),
        ]),
    );
    let col = |attrs: &'static [crate::el::Attr], h: Html| el("div", attrs, h);
    let body = if state.large {
        // Large-cluster mode: aggregated, windowed, nothing per partition per frame.
        list(vec![
            html! {
                <crate::components::big_cluster::BigCluster summary={{ let (c, v) = state.summary(); crate::components::big_cluster::Summary(c, v) }}
                    brokers={view.brokers.clone()} queues={view.queues.clone()} controller={view.controller} now_ms={now} on_msg={on_msg.clone()} />
            },
            el(
                "div",
                attrs!("class" = "grid big-lower"),
                list(vec![
                    col(
                        attrs!("class" = "col"),
                        html! { <Why records={why.clone()} /> },
                    ),
                    col(
                        attrs!("class" = "col"),
                        html! { <Invariants invariants={view.invariants.clone()} acked_records_lost={view.acked_records_lost} on_msg={on_msg.clone()} /> },
                    ),
                ]),
            ),
        ])
    } else {
        list(vec![
            eld(
                "section",
                &["id", "aria-label", "class"],
                Box::new([s("p-brokers"), s(t("Brokers", "Broker")), s("brokers")]),
                list(
                    view.brokers
                        .iter()
                        .map(|b| {
                            html! {
                                <BrokerCard key={b.id.0} broker={b.clone()} now_ms={now} on_msg={on_msg.clone()} />
                            }
                        })
                        .collect(),
                ),
            ),
            // Below the brokers, three columns: the controller at work (its
            // queues, then Why), the partitions and Kafka's own words, the wire
            // and ZooKeeper. At 1280×720 the top of each is in the first screen.
            el(
                "div",
                attrs!("class" = "grid"),
                list(vec![
                    col(
                        attrs!("class" = "col col-work"),
                        list(vec![
                            html! { <EventQueue queues={view.queues.clone()} now_ms={now} /> },
                            html! { <Why records={why} /> },
                        ]),
                    ),
                    col(
                        attrs!("class" = "col col-data"),
                        list(vec![
                            html! { <PartitionTable view={view.clone()} on_msg={on_msg.clone()} /> },
                            html! { <KafkaText describe={view.describe()} controller={view.zookeeper_shell_get_controller()} /> },
                            html! { <Admin topics={topics} on_submit={on_admin} error={state.error.as_ref().zip(*admin_form).map(|(e, f)| (f, e.text(lang)))} on_dismiss={dismiss.clone()} /> },
                        ]),
                    ),
                    col(
                        attrs!("class" = "col col-wire"),
                        list(vec![
                            html! { <Network brokers={view.brokers.clone()} messages={view.messages.clone()} controller={view.controller} now_ms={now} /> },
                            html! { <Messages messages={view.messages.clone()} now_ms={now} on_msg={on_msg.clone()} /> },
                            html! { <Invariants invariants={view.invariants.clone()} acked_records_lost={view.acked_records_lost} on_msg={on_msg.clone()} /> },
                            html! {
                                <ZnodeTree znodes={view.znodes.clone()} brokers={view.brokers.iter().map(|b| b.id.0).collect::<Vec<_>>()}
                                    controller={view.controller.map(|c| c.0)} now_ms={now} on_msg={on_msg.clone()} />
                            },
                        ]),
                    ),
                ]),
            ),
            // Docked at the bottom of the window: the cluster stays in sight while typing.
            html! { <Console entries={state.console.clone()} view={view.clone()} on_msg={on_msg.clone()} /> },
            // Who sent what to whom, drawn from the trace.
            html! { <DiagramPane state={(*state).clone()} on_msg={on_msg.clone()} /> },
            // The historical design, below the rest: run on a click.
            html! { <crate::components::legacy::Legacy state={(*state).clone()} /> },
        ])
    };
    let main = tag(
        "main",
        root,
        dynamic(
            &["tabindex", "lang", "class"],
            Box::new([
                s("0"),
                s(lang.code()),
                class(classes!(
                    "kcsim",
                    dark.then_some("dark"),
                    state.present.then_some("present")
                )),
            ]),
        ),
        Listeners::None,
        list(vec![
            header, error, notice, fork, help_pane, panes, lesson_top, body,
        ]),
    );
    html! {
        <ContextProvider<Lang> context={lang}>{ main }</ContextProvider<Lang>>
    }
}
