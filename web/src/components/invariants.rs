//! Every named invariant, holding or violated, with a jump to the first violation.

use crate::el::{attrs, class, click, el, eld, elo, list, on, s, st, string, text};
use crate::i18n::{use_lang, Lang};
use crate::state::Msg;
use kcsim_core::view::InvariantView;
use yew::prelude::*;

/// Properties of [`Invariants`].
#[derive(Properties, PartialEq, Debug)]
pub struct InvariantsProps {
    /// Every invariant.
    pub invariants: Vec<InvariantView>,
    /// Acknowledged records lost so far.
    pub acked_records_lost: u64,
    /// Where a jump goes.
    pub on_msg: Callback<Msg>,
}

/// The invariant checker.
#[component]
pub fn Invariants(props: &InvariantsProps) -> Html {
    let lang = use_lang();
    let lost = props.acked_records_lost;
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    let items = props
        .invariants
        .iter()
        .map(|i| {
            let (cls, mark) = if i.first_violation_ms.is_some() {
                ("violated", "✗")
            } else {
                ("holds", "✓")
            };
            let jump = i.first_violation_ms.map(|t| {
                let cb = props.on_msg.clone();
                elo(
                    "button",
                    &["aria-label", "class"],
                    Box::new([
                        st(lang.f(
                            || format!("Jump to the first violation of {} at {} ms", i.name, t),
                            || format!("跳到 {} 在 {} ms 处的首次违反", i.name, t),
                        )),
                        s("jump"),
                    ]),
                    on(Box::new([click(Callback::from(move |_: MouseEvent| {
                        cb.emit(Msg::Seek(t))
                    }))])),
                    string(lang.f(
                        || format!("jump to {:.3} s", t as f64 / 1000.0),
                        || format!("跳到 {:.3} 秒", t as f64 / 1000.0),
                    )),
                )
            });
            let mut children = vec![
                el(
                    "span",
                    attrs!("aria-hidden" = "true", "class" = "mark"),
                    text(mark),
                ),
                el("code", &[], string(display_name(&i.name, lang))),
                el(
                    "span",
                    attrs!("class" = "verdict"),
                    text(if i.first_violation_ms.is_some() {
                        lang.t(" violated", " 已违反")
                    } else {
                        lang.t(" holds", " 成立")
                    }),
                ),
            ];
            children.extend(jump);
            children.extend(
                i.detail
                    .iter()
                    .map(|d| el("div", attrs!("class" = "detail"), string(d.clone()))),
            );
            eld(
                "li",
                &["title", "class"],
                Box::new([
                    st(meaning(&i.name, lang)
                        .map_or_else(|| i.meaning.clone(), |m| format!("{} — {m}", i.name))),
                    class(cls.into()),
                ]),
                list(children),
            )
        })
        .collect();
    eld(
        "section",
        &["id", "aria-label", "class"],
        Box::new([
            s("p-invariants"),
            s(lang.t("Invariants", "不变量")),
            s("panel invariants"),
        ]),
        list(vec![
            el("h2", &[], text(lang.t("Invariants", "不变量"))),
            list(if props.acked_records_lost > 0 {
                vec![el(
                    "p",
                    attrs!("role" = "alert", "class" = "lesson"),
                    string(lang.f(
                        || format!("{lost} acknowledged record(s) lost: a producer was told they were safe."),
                        || format!("丢失了 {lost} 条已确认的消息：生产者曾被告知它们已安全写入。"),
                    )),
                )]
            } else {
                Vec::new()
            }),
            el("ul", &[], list(items)),
        ]),
    )
}

/// An invariant's short name on the page: the core's identifier in English,
/// words in Chinese (the identifier then in the title).
pub fn display_name(name: &str, l: Lang) -> String {
    let zh = match name {
        "single_controller_per_epoch" => "每个纪元至多一个控制器",
        "controller_epoch_monotonic" => "控制器纪元只增不减",
        "no_stale_request_applied" => "不应用过期请求",
        "controller_agreement_when_quiet" => "静止时对控制器看法一致",
        "leader_in_isr" => "leader 在 ISR 中",
        "isr_subset_of_ar" => "ISR ⊆ AR",
        "leader_epoch_monotonic" => "leader epoch 只增不减",
        "no_acked_record_lost_clean" => "干净选举不丢已确认消息",
        "high_watermark_monotonic_clean" => "干净选举下 HW 不回退",
        other => other,
    };
    l.t(name, zh).to_string()
}

/// What an invariant means, in Chinese (`None`: the core's English is used).
pub fn meaning(name: &str, l: Lang) -> Option<&'static str> {
    if l == Lang::En {
        return None;
    }
    Some(match name {
        "single_controller_per_epoch" => "任一控制器纪元内，至多一个 broker 以控制器身份行事",
        "controller_epoch_monotonic" => "/controller_epoch 永不减小",
        "no_stale_request_applied" => "broker 不会应用纪元比它已应用的最新控制器纪元更旧的请求",
        "controller_agreement_when_quiet" => "没有待处理的工作时，每个运行中 broker 的 activeControllerId 都等于 /controller 中的 brokerid",
        "leader_in_isr" => "每个分区的 leader 都在其 ISR 中",
        "isr_subset_of_ar" => "每个分区的 ISR 都是其 AR 的子集",
        "leader_epoch_monotonic" => "分区的 leader epoch 永不减小",
        "no_acked_record_lost_clean" => "没有 unclean 选举时，已向生产者确认的 acks=all 消息不会丢失",
        "high_watermark_monotonic_clean" => "分区的高水位只会因 unclean 选举而回退",
        _ => return None,
    })
}
