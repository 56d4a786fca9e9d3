//! Time: play, pause, step, speed, the scrub bar, jump to the next
//! interesting event, undo, the scenario picker and the controller's
//! ZooKeeper access (part of the starting configuration).

use crate::state::{Msg, FOLLOW_STATUS, SCENARIOS, SPEEDS, ZK_MODES};
use crate::ZkMode;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

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
    /// Marked moments (ms), shown on the scrub bar.
    pub marks: Vec<u64>,
    /// Where input goes.
    pub on_msg: Callback<Msg>,
}

/// The ZooKeeper access picker's tooltip.
const ZK_MODE_TITLE: &str = "How the controller reads and writes ZooKeeper \
    (sim.controller.zk.mode). It is part of the cluster's starting configuration: changing it \
    restarts the scenario from the beginning and drops your actions. sync is Kafka 1.0, one \
    round trip per read and per write; async is Kafka 1.1+, pipelined. With many partitions a \
    controller failover takes about twice as long in sync, a controlled shutdown about ten times.";

/// The time bar.
#[component]
pub fn Controls(props: &ControlsProps) -> Html {
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
    let on_speed = {
        let cb = props.on_msg.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            if let Ok(i) = v.parse::<usize>() {
                cb.emit(Msg::SetSpeed(i));
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
    let about = SCENARIOS
        .iter()
        .find(|s| s.id == props.scenario)
        .map(|s| s.about)
        .unwrap_or_default();
    html! {
        <section class="controls" aria-label="Time controls">
            <div class="control-row">
                <button class="play" aria-label={if props.playing { "Pause (space)" } else { "Play (space)" }} onclick={send(Msg::TogglePlay)}>
                    { if props.playing { "⏸ pause" } else { "▶ play" } }
                </button>
                <button aria-label="Step back 100 ms (left arrow)" onclick={send(Msg::StepBack)}>{ "◀ back" }</button>
                <button aria-label="Step one event (right arrow)" onclick={send(Msg::Step)}>{ "step ▶" }</button>
                <button aria-label="Jump to the next interesting event (n)" onclick={send(Msg::NextInteresting)}>{ "next event ▶▶" }</button>
                <label>{ "speed " }
                    <select aria-label="Playback speed" onchange={on_speed}>
                        { for SPEEDS.iter().enumerate().map(|(i, (_, name))| html! {
                            <option value={i.to_string()} selected={i == props.speed}>{ *name }</option>
                        }) }
                    </select>
                </label>
                <button aria-label="Undo the last action (u)" disabled={!props.can_undo} onclick={send(Msg::Undo)}>{ "undo" }</button>
                <span class="clock" aria-live="off">{ format!("t = {:.3} s", props.now_ms as f64 / 1000.0) }</span>
                <button aria-label="Mark this moment (m)" title="Playing pauses when it reaches a mark" onclick={send(Msg::Mark)}>{ "mark" }</button>
                <div class="scrub-wrap">
                    <input class="scrub" type="range" min="0" max={max.to_string()} step="1" value={props.now_ms.to_string()}
                        aria-label="Timeline: scrub back and forth" oninput={on_seek} />
                    <div class="marks">
                        { for props.marks.iter().map(|m| {
                            let at = format!("{:.3} s", *m as f64 / 1000.0);
                            html! {
                                <button class="mark" style={format!("left: {:.3}%", pct(*m))}
                                    aria-label={format!("Go to the mark at {at}")} title={format!("mark at {at} (double-click to remove)")}
                                    onclick={send(Msg::Seek(*m))} ondblclick={send(Msg::Unmark(*m))}></button>
                            }
                        }) }
                    </div>
                </div>
            </div>
            <div class="control-row second">
                <label>{ "scenario " }
                    <select aria-label="Scenario" onchange={on_scenario}>
                        { for SCENARIOS.iter().map(|s| html! {
                            <option value={s.id} selected={s.id == props.scenario}>{ s.title }</option>
                        }) }
                    </select>
                </label>
                <label class="zk-mode" title={ZK_MODE_TITLE}>{ "ZooKeeper access " }
                    <select aria-label="ZooKeeper access" title={ZK_MODE_TITLE} onchange={on_zk_mode}>
                        { for ZK_MODES.iter().map(|(m, label)| html! {
                            <option value={m.as_str()} selected={*m == props.zk_mode}>{ *label }</option>
                        }) }
                    </select>
                </label>
                <label class="follow" title="Slow down by itself while the controller is at work, so that each event and message stays on screen">
                    <input type="checkbox" checked={props.follow} onchange={on_follow} />{ " auto-follow" }
                </label>
                <span class={classes!("follow-status", (!(props.playing && props.slowed)).then_some("idle"))} role="status" aria-live="polite">
                    { if props.playing && props.slowed { FOLLOW_STATUS } else { "" } }
                </span>
                <span class="about">{ about }</span>
            </div>
        </section>
    }
}
