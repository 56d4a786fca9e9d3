//! Each controller's single-threaded FIFO event queue and ControllerState.

use crate::i18n::use_lang;
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
    html! {
        <section id="p-queues" class="panel queues" aria-label={lang.t("Controller event queues", "控制器事件队列")}>
            <h2>{ lang.t("Controller event queues", "控制器事件队列") }</h2>
            { for props.queues.iter().map(|q| {
                let busy = q.current.is_some() || !q.waiting.is_empty();
                html! {
                    <div class={classes!("queue", busy.then_some("busy"))} data-broker={q.broker.to_string()}>
                        <span class="queue-owner">{ format!("broker {} · {}", q.broker, q.state) }</span>
                        <ol class="queue-events">
                            { for q.current.iter().map(|(name, done)| html! {
                                <li class="event current">{ { let ms = done.saturating_sub(props.now_ms); lang.f(|| format!("▶ {name} (done in {ms} ms)"), || format!("▶ {name}（{ms} ms 后完成）")) } }</li>
                            }) }
                            { for q.waiting.iter().map(|(name, at)| html! {
                                <li class="event waiting">{ { let ms = props.now_ms.saturating_sub(*at); lang.f(|| format!("{name} (waiting {ms} ms)"), || format!("{name}（已等待 {ms} ms）")) } }</li>
                            }) }
                            if !busy { <li class="event idle">{ lang.t("idle", "空闲") }</li> }
                        </ol>
                    </div>
                }
            }) }
        </section>
    }
}
