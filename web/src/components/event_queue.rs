//! Each controller's single-threaded FIFO event queue and ControllerState.

use crate::el::{attrs, class, el, eld, list, s, st, string, text};
use crate::i18n::{use_lang, Lang};
use kcsim_core::view::QueueView;
use yew::prelude::*;

/// Properties of [`EventQueue`].
#[derive(Properties, PartialEq, Debug)]
pub struct EventQueueProps {
    /// Every running broker's queue.
    pub queues: Vec<QueueView>,
    /// Now.
    pub now_ms: u64,
}

/// The event queues; the active controller's first and highlighted.
#[component]
pub fn EventQueue(props: &EventQueueProps) -> Html {
    let lang = use_lang();
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    let mut children = vec![el(
        "h2",
        &[],
        text(lang.t("Controller event queues", "控制器事件队列")),
    )];
    children.extend(props.queues.iter().map(|q| {
        let busy = q.current.is_some() || !q.waiting.is_empty();
        let mut events: Vec<Html> = q
            .current
            .iter()
            .map(|(name, done)| current_event(lang, name, *done, props.now_ms))
            .collect();
        events.extend(
            q.waiting
                .iter()
                .map(|(name, at)| waiting_event(lang, name, *at, props.now_ms)),
        );
        events.push(list(if busy {
            Vec::new()
        } else {
            vec![el(
                "li",
                attrs!("class" = "event idle"),
                text(lang.t("idle", "空闲")),
            )]
        }));
        eld(
            "div",
            &["data-broker", "class"],
            Box::new([
                st(q.broker.to_string()),
                class(classes!("queue", busy.then_some("busy"))),
            ]),
            list(vec![
                queue_owner(lang, q.broker, &q.state, None),
                el("ol", attrs!("class" = "queue-events"), list(events)),
            ]),
        )
    }));
    eld(
        "section",
        &["id", "aria-label", "class"],
        Box::new([
            s("p-queues"),
            s(lang.t("Controller event queues", "控制器事件队列")),
            s("panel queues"),
        ]),
        list(children),
    )
}

/// A queue's owner and its thread's `ControllerState` (Kafka's name for
/// what the event in progress is doing: a Reelect runs as ControllerChange),
/// with the queue's depth when given.
pub(crate) fn queue_owner(
    lang: Lang,
    broker: kcsim_core::BrokerId,
    state: &str,
    depth: Option<usize>,
) -> Html {
    let depth = depth.map(|d| lang.f(|| format!(" · depth {d}"), || format!(" · 深度 {d}")));
    eld(
        "span",
        &["title", "class"],
        Box::new([
            s(lang.t(
                "Kafka's ControllerState: what this broker's controller thread is doing (the event in progress runs as this state)",
                "Kafka 的 ControllerState：这个 broker 的控制器线程正在做什么（正在处理的事件以这个状态运行）",
            )),
            s("queue-owner"),
        ]),
        string(lang.f(
            || format!("broker {broker} · state {state}{}", depth.clone().unwrap_or_default()),
            || format!("broker {broker} · 状态 {state}{}", depth.clone().unwrap_or_default()),
        )),
    )
}

/// An event queue's event in progress, and when it is done.
pub(crate) fn current_event(lang: Lang, name: &str, done: u64, now_ms: u64) -> Html {
    let ms = done.saturating_sub(now_ms);
    el(
        "li",
        attrs!("class" = "event current"),
        string(lang.f(
            || format!("▶ {name} (finishes in {ms} ms)"),
            || format!("▶ {name}（{ms} ms 后完成）"),
        )),
    )
}

/// An event queue's waiting event, and how long it has waited.
pub(crate) fn waiting_event(lang: Lang, name: &str, at: u64, now_ms: u64) -> Html {
    let ms = now_ms.saturating_sub(at);
    el(
        "li",
        attrs!("class" = "event waiting"),
        string(lang.f(
            || format!("{name} (waiting {ms} ms)"),
            || format!("{name}（已等待 {ms} ms）"),
        )),
    )
}
