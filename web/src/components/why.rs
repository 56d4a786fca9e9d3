//! Why: the controller's reasons for every election and refusal, from the trace.

use crate::el::{attrs, class, el, eld, list, string, text};
use crate::i18n::facts::{election_meaning_text, fact_text};
use crate::i18n::use_lang;
use kcsim_core::trace::TraceRecord;
use yew::prelude::*;

/// Trace kinds that explain a decision: every user action (what was done,
/// and what came of it when it was refused or ignored) and every decision of
/// a controller (its election and resignation, leader elections, refusals).
/// A produce is not listed: the scenarios produce every few seconds, and a
/// record's fate shows in the partition table and the invariants.
pub const WHY_KINDS: &[&str] = &[
    // The user's actions, as the core names them (`Action::name`), ...
    "kill_broker",
    "start_broker",
    "shutdown_broker",
    "pause_broker",
    "expire_session",
    "delete_znode",
    "set_znode",
    "create_znode",
    "set_config",
    "delete_config",
    "create_topic",
    "add_partitions",
    "delete_topic",
    "reassign_partitions",
    "slow_broker",
    "heal_broker",
    "preferred_election",
    "elect_leaders",
    "delay_message",
    "drop_message",
    // ... and what came of them.
    "action_failed",
    "action_ignored",
    "message_delayed",
    "message_dropped",
    "topic_created",
    "partitions_added",
    // The controllers' decisions.
    "elected",
    "elect",
    "resign",
    "leader_elected",
    "unclean_leader_elected",
    "election_failed",
    "isr_shrunk",
    "records_lost",
    "request_rejected",
    "controlled_shutdown",
    "controlled_shutdown_retry",
    "unclean_shutdown",
    "election_result",
    "startup_failed",
    "session_expired",
    "topic_deleted",
    "reassignment_completed",
];

/// Properties of [`Why`].
#[derive(Properties, PartialEq, Debug)]
pub struct WhyProps {
    /// The latest explanatory trace records, newest first.
    pub records: Vec<TraceRecord>,
}

/// The reasons panel.
#[component]
pub fn Why(props: &WhyProps) -> Html {
    let lang = use_lang();
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    let items = props
        .records
        .iter()
        .map(|r| {
            let mut children = vec![
                el(
                    "span",
                    attrs!("class" = "t"),
                    string(format!("{:.3} s", r.time_ms as f64 / 1000.0)),
                ),
                el(
                    "span",
                    attrs!("class" = "actor"),
                    string(r.actor.to_string()),
                ),
                el(
                    "span",
                    attrs!("class" = "text"),
                    string(fact_text(&r.fact(), lang)),
                ),
            ];
            // Kafka's codes in words: NONE is the success code.
            children.extend(kcsim_core::view::election_outcome(r).map(|o| {
                eld(
                    "span",
                    &["class"],
                    Box::new([class(classes!("meaning", o.success.then_some("success")))]),
                    string(format!(" — {}", election_meaning_text(&o.code, lang))),
                )
            }));
            eld(
                "li",
                &["class"],
                Box::new([class(classes!("why-line", r.kind.to_string()))]),
                list(children),
            )
        })
        .collect();
    el(
        "section",
        attrs!("id" = "p-why", "aria-label" = "Why", "class" = "panel why"),
        list(vec![
            el("h2", &[], text(lang.t("Why", "为什么"))),
            list(if props.records.is_empty() {
                vec![el(
                    "p",
                    attrs!("class" = "quiet"),
                    text(lang.t("nothing decided yet", "还没有任何决策")),
                )]
            } else {
                Vec::new()
            }),
            el("ol", &[], list(items)),
        ]),
    )
}

#[cfg(test)]
mod tests {
    use super::WHY_KINDS;

    #[test]
    fn every_user_action_but_produce_has_a_why_line() {
        for name in kcsim_core::scenario::ACTION_NAMES {
            assert_eq!(
                WHY_KINDS.contains(name),
                *name != "produce",
                "{name}: every action the core notes as `user` is explained, produce aside"
            );
        }
    }
}
