//! Hooks: the playback timer.

use gloo_timers::callback::Interval;
use yew::prelude::*;

/// Call `tick` every `period_ms` while `active`; the interval is owned by the
/// hook and dropped on cleanup (never leaked).
#[hook]
pub fn use_interval(active: bool, period_ms: u32, tick: Callback<()>) {
    use_effect_with(active, move |active| {
        let interval = active.then(|| Interval::new(period_ms, move || tick.emit(())));
        move || drop(interval)
    });
}
