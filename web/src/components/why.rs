//! Why: the controller's reasons for every election and refusal, from the trace.

use kcsim_core::trace::TraceRecord;
use yew::prelude::*;

/// Trace kinds that explain a decision.
pub const WHY_KINDS: &[&str] = &[
    "elected",
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
    "resign",
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
    html! {
        <section class="panel why" aria-label="Why">
            <h2>{ "Why" }</h2>
            if props.records.is_empty() { <p class="quiet">{ "nothing decided yet" }</p> }
            <ol>
                { for props.records.iter().map(|r| html! {
                    <li class={classes!("why-line", r.kind.clone())}>
                        <span class="t">{ format!("{:.3} s", r.time_ms as f64 / 1000.0) }</span>
                        <span class="actor">{ &r.actor }</span>
                        <span class="text">{ &r.details }</span>
                    </li>
                }) }
            </ol>
        </section>
    }
}
