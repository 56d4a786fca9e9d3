//! Every named invariant, holding or violated, with a jump to the first violation.

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
    html! {
        <section id="p-invariants" class="panel invariants" aria-label="Invariants">
            <h2>{ "Invariants" }</h2>
            if props.acked_records_lost > 0 {
                <p class="lesson" role="alert">{ format!("{} acknowledged record(s) lost: a producer was told they were safe.", props.acked_records_lost) }</p>
            }
            <ul>
                { for props.invariants.iter().map(|i| {
                    let (class, mark) = if i.first_violation_ms.is_some() { ("violated", "✗") } else { ("holds", "✓") };
                    let jump = i.first_violation_ms.map(|t| {
                        let cb = props.on_msg.clone();
                        html! {
                            <button class="jump" aria-label={format!("Jump to the first violation of {} at {} ms", i.name, t)}
                                onclick={Callback::from(move |_: MouseEvent| cb.emit(Msg::Seek(t)))}>{ format!("jump to {:.3} s", t as f64 / 1000.0) }</button>
                        }
                    });
                    html! {
                        <li class={class} title={i.meaning.clone()}>
                            <span class="mark" aria-hidden="true">{ mark }</span>
                            <code>{ &i.name }</code>
                            <span class="verdict">{ if i.first_violation_ms.is_some() { " violated" } else { " holds" } }</span>
                            { for jump }
                            { for i.detail.iter().map(|d| html! { <div class="detail">{ d }</div> }) }
                        </li>
                    }
                }) }
            </ul>
        </section>
    }
}
