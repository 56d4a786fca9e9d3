//! Requests and watch notifications on the wire: inspect, delay, drop.

use crate::state::Msg;
use kcsim_core::view::MessageView;
use kcsim_core::Action;
use yew::prelude::*;

/// Properties of [`Messages`].
#[derive(Properties, PartialEq, Debug)]
pub struct MessagesProps {
    /// Messages queued or on the wire.
    pub messages: Vec<MessageView>,
    /// Now.
    pub now_ms: u64,
    /// Where actions go.
    pub on_msg: Callback<Msg>,
}

/// The messages in flight.
#[component]
pub fn Messages(props: &MessagesProps) -> Html {
    html! {
        <section id="p-messages" class="panel messages" aria-label="Messages in flight">
            <h2>{ format!("In flight ({})", props.messages.len()) }</h2>
            if props.messages.is_empty() { <p class="quiet">{ "nothing on the wire" }</p> }
            <ul>
                { for props.messages.iter().take(40).map(|m| {
                    let id = m.id;
                    let delay = {
                        let cb = props.on_msg.clone();
                        Callback::from(move |_: MouseEvent| cb.emit(Msg::Act(Action::DelayMessage { id, delay_ms: 2_000 })))
                    };
                    let drop = {
                        let cb = props.on_msg.clone();
                        Callback::from(move |_: MouseEvent| cb.emit(Msg::Act(Action::DropMessage { id })))
                    };
                    let total = m.arrives_at_ms.saturating_sub(m.sent_at_ms).max(1);
                    let done = props.now_ms.saturating_sub(m.sent_at_ms).min(total);
                    let pct = if m.queued { 0 } else { done * 100 / total };
                    let epoch = m.controller_epoch.map(|e| format!(" · epoch {e}")).unwrap_or_default();
                    html! {
                        <li class={classes!("message", m.kind.replace(' ', "-").to_lowercase(), m.queued.then_some("queued"))} data-message={id.to_string()}>
                            <div class="message-head">
                                <strong>{ &m.kind }</strong>
                                <span>{ format!(" #{id} {} → {}{epoch}", m.from, m.to) }</span>
                                <span class="when">{ when(m) }</span>
                            </div>
                            <progress max="100" value={pct.to_string()} aria-label={format!("message {id} progress")}></progress>
                            <div class="summary">{ &m.summary }</div>
                            if !m.queued {
                                <button aria-label={format!("Delay message {id} by 2 s")} onclick={delay}>{ "delay 2 s" }</button>
                                <button aria-label={format!("Drop message {id}")} onclick={drop}>{ "drop" }</button>
                            }
                        </li>
                    }
                }) }
            </ul>
        </section>
    }
}

/// When a message arrives, after a separator: " · queued" (waiting for its
/// connection) or " · arrives 1.234 s".
pub fn when(m: &MessageView) -> String {
    if m.queued {
        " · queued".to_string()
    } else {
        format!(" · arrives {:.3} s", m.arrives_at_ms as f64 / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(queued: bool) -> MessageView {
        MessageView {
            id: 7,
            kind: "LeaderAndIsr".into(),
            from: "broker-1".into(),
            to: "broker-2".into(),
            controller_epoch: Some(2),
            sent_at_ms: 1_000,
            arrives_at_ms: 1_250,
            queued,
            summary: String::new(),
        }
    }

    #[test]
    fn the_epoch_and_the_arrival_are_separated() {
        assert_eq!(format!("epoch 2{}", when(&msg(true))), "epoch 2 · queued");
        assert_eq!(when(&msg(false)), " · arrives 1.250 s");
    }
}
