//! The page: the cluster as a living picture.

use crate::components::admin::Admin;
use crate::components::broker_card::BrokerCard;
use crate::components::controls::Controls;
use crate::components::event_queue::EventQueue;
use crate::components::help::Help;
use crate::components::invariants::Invariants;
use crate::components::kafka_text::KafkaText;
use crate::components::lesson_panel::LessonArea;
use crate::components::lesson_picker::LessonPicker;
use crate::components::messages::Messages;
use crate::components::network::Network;
use crate::components::partition_table::PartitionTable;
use crate::components::why::{Why, WHY_KINDS};
use crate::components::znode_tree::ZnodeTree;
use crate::hooks::{use_focus_rescue, use_interval, use_page_keys};
use crate::state::{zk_mode_label, Msg, SimState};
use yew::prelude::*;

/// How often the playback timer ticks (wall-clock ms).
pub const TICK_MS: u32 = 50;

/// Properties of [`App`].
#[derive(Properties, PartialEq, Debug, Default)]
pub struct AppProps {
    /// Read the moment from the URL fragment at start, and keep the fragment
    /// up to date as a share link (the page does; mounted tests do not).
    #[prop_or_default]
    pub url_state: bool,
}

/// The state a page starts in: the moment its share link names, or the
/// default cluster (with the reason shown when the link is broken).
fn initial_state(url_state: bool) -> SimState {
    let hash = if url_state {
        web_sys::window()
            .and_then(|w| w.location().hash().ok())
            .unwrap_or_default()
    } else {
        String::new()
    };
    if hash.len() <= 1 {
        return SimState::default_cluster();
    }
    SimState::from_fragment(&hash).unwrap_or_else(|e| {
        let mut s = SimState::default_cluster();
        s.error = Some(e);
        s
    })
}

/// The whole simulator page.
#[component]
pub fn App(props: &AppProps) -> Html {
    let url_state = props.url_state;
    let state = use_reducer(move || initial_state(url_state));
    let fragment = state.share_fragment();
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
    // The admin form whose action or fields caused the error shown, if one
    // did: the error is shown under that form rather than at the top.
    let admin_form = use_state_eq(|| None::<usize>);
    let on_msg = {
        let state = state.clone();
        let admin_form = admin_form.clone();
        Callback::from(move |m: Msg| {
            if matches!(
                m,
                Msg::Act(_) | Msg::Undo | Msg::Load(_) | Msg::SetZkMode(_) | Msg::DismissError
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
        let on_msg = on_msg.clone();
        use_interval(
            state.playing,
            TICK_MS,
            Callback::from(move |_| on_msg.emit(Msg::Tick(u64::from(TICK_MS)))),
        );
    }
    {
        // On the document, not on <main>: the keys work whatever has focus,
        // the body included (where focus falls when a focused button disables).
        let on_msg = on_msg.clone();
        let help = help.clone();
        let present = state.present;
        use_page_keys(Callback::from(move |e: KeyboardEvent| {
            let m = match e.key().as_str() {
                " " => Some(Msg::TogglePlay),
                "ArrowRight" => Some(Msg::Step),
                "ArrowLeft" => Some(Msg::StepBack),
                "n" => Some(Msg::NextInteresting),
                "u" => Some(Msg::Undo),
                "m" => Some(Msg::Mark),
                "p" => Some(Msg::Lesson(crate::lesson::LessonMsg::SetPresent(!present))),
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
    let why = state.recent(WHY_KINDS, 14);
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
    let controller = view
        .controller
        .map_or("none".to_string(), |c| format!("broker {c}"));
    let topics: Vec<String> = view.topics.iter().map(|t| t.name.clone()).collect();
    html! {
        <main class={classes!("kcsim", dark.then_some("dark"), state.present.then_some("present"))} tabindex="0" ref={root}>
            <header>
                <h1>{ "kcsim" }</h1>
                <p class="subtitle">{ "Kafka 2.x's ZooKeeper-era controller, simulated" }</p>
                <p class="summary" aria-live="polite">
                    <span class="who">{ format!("controller: {controller} · epoch {}", view.controller_epoch) }</span>
                    <span class="zk-mode-shown">{ format!(" · ZooKeeper access: {}", zk_mode_label(state.running_zk_mode())) }</span>
                    // Always there, hidden while zero: the header does not move when it appears.
                    <span class={classes!("stale", (view.stale_requests_rejected == 0).then_some("none"))}>
                        { format!(" · {} stale-epoch requests rejected", view.stale_requests_rejected) }
                    </span>
                </p>
                if url_state {
                    <label class="share" title="A link to this moment: it replays to exactly what you see">{ "link " }
                        <input readonly=true aria-label="Share link to this moment" value={format!("#{fragment}")} size="12" />
                    </label>
                }
                <LessonPicker present={state.present} on_msg={on_msg.clone()} />
                <button aria-label="Toggle dark theme" onclick={toggle_dark}>{ if *dark { "light" } else { "dark" } }</button>
                <button aria-label="Help: the page, its terms and keys (?)" onclick={toggle_help}>{ "?" }</button>
            </header>
            if let (Some(e), None) = (&state.error, *admin_form) {
                <div class="error" role="alert">{ e }<button aria-label="Dismiss the error" onclick={dismiss.clone()}>{ "×" }</button></div>
            }
            if let Some(n) = &state.notice {
                <div class="notice" role="status">{ n }</div>
            }
            if let Some(t) = state.forked_at {
                <div class="fork" role="status">{ format!("You acted at {:.3} s, in the past: the future after it was recomputed (a fork). Undo takes it back.", t as f64 / 1000.0) }</div>
            }
            if *help {
                <Help on_close={close_help} />
            }
            <LessonArea run={state.lesson.clone()} present={state.present} on_msg={on_msg.clone()} />
            <div id="p-time">
                <Controls now_ms={now} horizon_ms={state.scrub_end_ms()} playing={state.playing} speed={state.speed}
                    scenario={state.scenario} zk_mode={state.zk_mode} can_undo={state.can_undo()}
                    follow={state.follow} slowed={state.slowed} marks={state.marks.to_vec()} on_msg={on_msg.clone()} />
            </div>
            <section id="p-brokers" class="brokers" aria-label="Brokers">
                { for view.brokers.iter().map(|b| html! {
                    <BrokerCard key={b.id.0} broker={b.clone()} now_ms={now} on_msg={on_msg.clone()} />
                }) }
            </section>
            // Below the brokers, three columns: the controller at work (its
            // queues, then Why), the partitions and Kafka's own words, the wire
            // and ZooKeeper. At 1280×720 the top of each is in the first screen.
            <div class="grid">
                <div class="col col-work">
                    <EventQueue queues={view.queues.clone()} now_ms={now} />
                    <Why records={why} />
                </div>
                <div class="col col-data">
                    <PartitionTable view={view.clone()} on_msg={on_msg.clone()} />
                    <KafkaText describe={view.describe()} controller={view.zookeeper_shell_get_controller()} />
                    <Admin topics={topics} on_submit={on_admin} error={state.error.clone().zip(*admin_form).map(|(e, f)| (f, e))} on_dismiss={dismiss.clone()} />
                </div>
                <div class="col col-wire">
                    <Network brokers={view.brokers.clone()} messages={view.messages.clone()} controller={view.controller} now_ms={now} />
                    <Messages messages={view.messages.clone()} now_ms={now} on_msg={on_msg.clone()} />
                    <Invariants invariants={view.invariants.clone()} acked_records_lost={view.acked_records_lost} on_msg={on_msg.clone()} />
                    <ZnodeTree znodes={view.znodes.clone()} brokers={view.brokers.iter().map(|b| b.id.0).collect::<Vec<_>>()}
                        controller={view.controller.map(|c| c.0)} now_ms={now} on_msg={on_msg.clone()} />
                </div>
            </div>
        </main>
    }
}
