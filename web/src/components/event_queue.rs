//! Each controller's single-threaded FIFO event queue and ControllerState.

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
    html! {
        <section id="p-queues" class="panel queues" aria-label="Controller event queues">
            <h2>{ "Controller event queues" }</h2>
            { for props.queues.iter().map(|q| {
                let busy = q.current.is_some() || !q.waiting.is_empty();
                html! {
                    <div class={classes!("queue", busy.then_some("busy"))} data-broker={q.broker.to_string()}>
                        <span class="queue-owner">{ format!("broker {} · {}", q.broker, q.state) }</span>
                        <ol class="queue-events">
                            { for q.current.iter().map(|(name, done)| html! {
                                <li class="event current">{ format!("▶ {name} (done in {} ms)", done.saturating_sub(props.now_ms)) }</li>
                            }) }
                            { for q.waiting.iter().map(|(name, at)| html! {
                                <li class="event waiting">{ format!("{name} (waiting {} ms)", props.now_ms.saturating_sub(*at)) }</li>
                            }) }
                            if !busy { <li class="event idle">{ "idle" }</li> }
                        </ol>
                    </div>
                }
            }) }
        </section>
    }
}
