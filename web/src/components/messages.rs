//! Requests and watch notifications on the wire: inspect, delay, drop.

use crate::components::term::{term, TermId};
use crate::el::{attrs, class, el, eld, leaf, list, num, s, st, string, text};
use crate::i18n::{use_lang, Lang};
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
    let lang = use_lang();
    let n = props.messages.len();
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    let items = props
        .messages
        .iter()
        .take(40)
        .map(|m| {
            let id = m.id;
            let delay = {
                let cb = props.on_msg.clone();
                Callback::from(move |_: MouseEvent| {
                    cb.emit(Msg::Act(Action::DelayMessage {
                        id,
                        delay_ms: 2_000,
                    }))
                })
            };
            let drop = {
                let cb = props.on_msg.clone();
                Callback::from(move |_: MouseEvent| cb.emit(Msg::Act(Action::DropMessage { id })))
            };
            let total = m.arrives_at_ms.saturating_sub(m.sent_at_ms).max(1);
            let done = props.now_ms.saturating_sub(m.sent_at_ms).min(total);
            let pct = if m.queued { 0 } else { done * 100 / total };
            let epoch = m
                .controller_epoch
                .map(|e| format!(" · {} {e}", lang.t("epoch", "纪元")))
                .unwrap_or_default();
            let button = crate::el::labelled_button;
            eld(
                "li",
                &["data-message", "class"],
                Box::new([
                    num(id),
                    class(classes!(
                        "message",
                        m.kind.replace(' ', "-").to_ascii_lowercase(),
                        m.queued.then_some("queued")
                    )),
                ]),
                list(vec![
                    el(
                        "div",
                        attrs!("class" = "message-head"),
                        list(vec![
                            el(
                                "strong",
                                &[],
                                list(vec![list(vec![
                                    if let Some(t_id) = TermId::of_request(&m.kind) {
                                        term(t_id, string(m.kind.clone()))
                                    } else {
                                        string(m.kind.clone())
                                    },
                                ])]),
                            ),
                            el(
                                "span",
                                &[],
                                string(format!(" #{id} {} → {}{epoch}", m.from, m.to)),
                            ),
                            el("span", attrs!("class" = "when"), string(when(m, lang))),
                        ]),
                    ),
                    leaf(
                        "progress",
                        &["max", "aria-label", "value"],
                        Box::new([
                            s("100"),
                            st(lang.f(
                                || format!("message {id} progress"),
                                || format!("消息 {id} 的进度"),
                            )),
                            num(pct),
                        ]),
                    ),
                    el(
                        "div",
                        attrs!("class" = "summary"),
                        string(m.summary.clone()),
                    ),
                    list(if m.queued {
                        Vec::new()
                    } else {
                        vec![
                            button(
                                lang.f(
                                    || format!("Delay message {id} by 2 s"),
                                    || format!("将消息 {id} 延迟 2 秒"),
                                ),
                                delay,
                                lang.t("delay 2 s", "延迟 2 秒"),
                            ),
                            button(
                                lang.f(
                                    || format!("Drop message {id}"),
                                    || format!("丢弃消息 {id}"),
                                ),
                                drop,
                                lang.t("drop", "丢弃"),
                            ),
                        ]
                    }),
                ]),
            )
        })
        .collect();
    eld(
        "section",
        &["id", "aria-label", "class"],
        Box::new([
            s("p-messages"),
            s(lang.t("Messages in flight", "传输中的消息")),
            s("panel messages"),
        ]),
        list(vec![
            el(
                "h2",
                &[],
                string(lang.f(|| format!("In flight ({n})"), || format!("传输中（{n}）"))),
            ),
            list(if props.messages.is_empty() {
                vec![el(
                    "p",
                    attrs!("class" = "quiet"),
                    text(lang.t("nothing on the wire", "线路上没有消息")),
                )]
            } else {
                Vec::new()
            }),
            el("ul", &[], list(items)),
        ]),
    )
}

/// When a message arrives, after a separator: " · queued" (waiting for its
/// connection) or " · arrives 1.234 s".
pub fn when(m: &MessageView, lang: Lang) -> String {
    let s = m.arrives_at_ms as f64 / 1000.0;
    if m.queued {
        lang.t(" · queued", " · 排队中").to_string()
    } else {
        lang.f(
            || format!(" · arrives {s:.3} s"),
            || format!(" · {s:.3} 秒到达"),
        )
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
        assert_eq!(
            format!("epoch 2{}", when(&msg(true), Lang::En)),
            "epoch 2 · queued"
        );
        assert_eq!(when(&msg(false), Lang::En), " · arrives 1.250 s");
        assert_eq!(when(&msg(false), Lang::Zh), " · 1.250 秒到达");
    }
}
