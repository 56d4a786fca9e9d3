//! The lesson's narration (title, step k of n, the step's text, what it
//! waits for, the hint, the article note) and its controls, the highlight of
//! the part of the page the step points at, and presentation mode's folded
//! panels.

use crate::components::lesson_picker::save_progress;
use crate::hooks::use_style_sheet;
use crate::i18n::use_lang;
use crate::lesson::{condition_words, target_selectors, LessonMsg, LessonRun};
use crate::state::Msg;
use gloo_timers::callback::Timeout;
use std::rc::Rc;
use yew::prelude::*;

/// After this long on a step (wall-clock ms) whose checkpoint has not
/// passed, the hint shows by itself.
pub const HINT_AFTER_MS: u32 = 30_000;

/// The panels presentation mode folds away: id, name in English and Chinese.
pub const FOLDED: &[(&str, &str, &str)] = &[
    ("p-kafka-text", "Kafka's tools", "Kafka 工具输出"),
    ("p-admin", "Admin tools", "管理工具"),
    ("p-messages", "Messages list", "消息列表"),
    ("p-invariants", "Invariants", "不变式"),
    ("p-zookeeper", "ZooKeeper tree", "ZooKeeper 树"),
];

/// Properties of [`LessonArea`].
#[derive(Properties, PartialEq, Debug)]
pub struct LessonAreaProps {
    /// The lesson being followed, if any.
    pub run: Option<Rc<LessonRun>>,
    /// Presentation mode.
    pub present: bool,
    /// Where input goes.
    pub on_msg: Callback<Msg>,
}

/// The CSS that highlights `selectors` (an outline and a gentle pulse, no
/// pulse for those who prefer reduced motion).
fn highlight_css(selectors: &[String]) -> String {
    if selectors.is_empty() {
        return String::new();
    }
    let s = selectors.join(", ");
    // A table row is tinted and outlined inside itself: an outline around
    // it would cross the rows and headers beside it.
    let rows: Vec<&str> = selectors
        .iter()
        .map(String::as_str)
        .filter(|x| x.contains(" tr["))
        .collect();
    let rows_css = if rows.is_empty() {
        String::new()
    } else {
        format!(
            "\n{} {{ outline-offset: -3px; box-shadow: none; animation: none; background: var(--point-glow) !important; }}",
            rows.join(", ")
        )
    };
    format!(
        "{s} {{ outline: 5px solid var(--point) !important; outline-offset: 3px; \
         box-shadow: 0 0 0 10px var(--point-glow); animation: kcsim-point 1.6s ease-in-out infinite; \
         position: relative; z-index: 2; }}{rows_css}\n\
         @media (prefers-reduced-motion: reduce) {{ {s} {{ animation: none; }} }}"
    )
}

/// The CSS that folds presentation mode's secondary panels to their titles,
/// except `open` ones (unfolded by hand, or pointed at).
fn fold_css(open: &[&str]) -> String {
    FOLDED
        .iter()
        .filter(|(id, _, _)| !open.contains(id))
        .map(|(id, _, _)| {
            format!("main.present #{id} > :not(h2) {{ display: none !important; }}\n")
        })
        .collect()
}

/// Bring the first element `selector` matches into view, below the lesson
/// panel (sticky at the top in presentation mode), unless it is in view.
fn scroll_to(selector: &str) {
    let Some(w) = web_sys::window() else { return };
    let Some(d) = w.document() else { return };
    let Some(el) = d.query_selector(selector).ok().flatten() else {
        return;
    };
    let vh = w
        .inner_height()
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(720.0);
    let top = d
        .query_selector("main.present .lesson-top")
        .ok()
        .flatten()
        .map_or(0.0, |p| p.get_bounding_client_rect().bottom().max(0.0));
    let r = el.get_bounding_client_rect();
    if r.top() >= top && r.bottom() <= vh {
        return;
    }
    let room = (vh - top - r.height()).max(0.0);
    w.scroll_by_with_x_and_y(0.0, r.top() - top - room / 2.0);
}

/// What a step waits for: the author's words when the lesson gives them,
/// else the condition put in words.
fn goal_words(
    step: &kcsim_core::lesson::Step,
    c: &kcsim_core::lesson::Condition,
    lang: crate::i18n::Lang,
) -> String {
    match &step.goal {
        Some(g) => g.get(lang.code()).to_string(),
        None => condition_words(c, lang),
    }
}

fn btn(label: &str, aria: &str, disabled: bool, m: LessonMsg, on: &Callback<Msg>) -> Html {
    let act = match &m {
        LessonMsg::Back => "back",
        LessonMsg::ShowMe => "show-me",
        LessonMsg::Next => "next",
        LessonMsg::Rewind => "rewind",
        LessonMsg::Restart => "restart",
        LessonMsg::Leave => "leave",
        LessonMsg::Open(..) | LessonMsg::Continue(..) | LessonMsg::SetPresent(_) => "",
    };
    let on = on.clone();
    let onclick = Callback::from(move |_: MouseEvent| on.emit(Msg::Lesson(m.clone())));
    html! { <button data-act={act} aria-label={aria.to_string()} title={aria.to_string()} {disabled} {onclick}>{ label.to_string() }</button> }
}

/// The lesson area: the narration and its controls when a lesson runs, and
/// presentation mode's bar of folded panels.
#[component]
pub fn LessonArea(props: &LessonAreaProps) -> Html {
    let lang = use_lang();
    let unfolded = use_state(Vec::<&'static str>::new);
    let hint = use_state(|| false);
    let run = props.run.clone();
    let key = run
        .as_ref()
        .map(|r| (r.lesson.id.clone(), r.step, r.done, r.passed()));
    {
        // A new step hides the hint and starts its clock.
        let hint = hint.clone();
        let waits = run
            .as_ref()
            .is_some_and(|r| !r.done && !r.passed() && r.current().checkpoint.is_some());
        use_effect_with((key.clone(), waits), move |(_, waits)| {
            hint.set(false);
            let h = hint.clone();
            let t = waits.then(|| Timeout::new(HINT_AFTER_MS, move || h.set(true)));
            move || drop(t)
        });
    }
    {
        // Remember how far the learner got.
        let progress = run.as_ref().map(|r| (r.lesson.id.clone(), r.progress()));
        use_effect_with(progress, |p| {
            if let Some((id, p)) = p {
                save_progress(id, *p);
            }
        });
    }
    let selectors = run
        .as_ref()
        .filter(|r| !r.done)
        .and_then(|r| r.current().point_at.as_ref())
        .map(target_selectors)
        .unwrap_or_default();
    {
        let first = selectors.first().cloned();
        let step = key.as_ref().map(|k| (k.0.clone(), k.1, k.2));
        use_effect_with((step, first, props.present), |(_, first, _)| {
            if let Some(s) = first {
                scroll_to(s);
            }
        });
    }
    let mut open: Vec<&str> = (*unfolded).clone();
    for (id, _, _) in FOLDED {
        if selectors.iter().any(|s| s.starts_with(&format!("#{id}"))) {
            open.push(id);
        }
    }
    // Both through the CSSOM: the page's policy refuses <style> elements.
    use_style_sheet(if props.present {
        fold_css(&open)
    } else {
        String::new()
    });
    use_style_sheet(highlight_css(&selectors));
    let fold_bar = props.present.then(|| {
        html! {
            <div class="fold-bar" role="group" aria-label={lang.t("Folded panels", "已折叠的面板")}>
                <span>{ lang.t("Folded for the projector:", "投影时折叠：") }</span>
                { for FOLDED.iter().map(|(id, en, zh)| {
                    let is_open = open.contains(id);
                    let unfolded = unfolded.clone();
                    let id: &'static str = id;
                    let onclick = Callback::from(move |_: MouseEvent| {
                        let mut v = (*unfolded).clone();
                        if let Some(i) = v.iter().position(|x| *x == id) { v.remove(i); } else { v.push(id); }
                        unfolded.set(v);
                    });
                    html! { <button aria-pressed={is_open.to_string()} aria-controls={id} {onclick}>{ lang.t(en, zh) }</button> }
                }) }
                <button class="present-off" aria-label={lang.t("Leave presentation mode (p)", "退出演示模式 (p)")}
                    onclick={ let on = props.on_msg.clone(); Callback::from(move |_: MouseEvent| on.emit(Msg::Lesson(LessonMsg::SetPresent(false)))) }>
                    { lang.t("Leave presentation", "退出投影") }
                </button>
            </div>
        }
    });
    let Some(r) = run else {
        return html! { <>{ for fold_bar }</> };
    };
    let on = &props.on_msg;
    let n = r.lesson.steps.len();
    let step = r.current();
    let code = lang.code();
    let progress = if r.done {
        lang.t("lesson complete ✓", "课程完成 ✓").to_string()
    } else {
        lang.f(
            || format!("step {} of {n}", r.step + 1),
            || format!("第 {} 步，共 {n} 步", r.step + 1),
        )
    };
    let waits = match (&step.checkpoint, r.passed()) {
        (None, _) => lang
            .t("Read, then go on with Next.", "读完后按“下一步”继续。")
            .to_string(),
        (Some(c), false) => {
            let w = goal_words(step, c, lang);
            lang.f(|| format!("Waiting for: {w}"), || format!("等待：{w}"))
        }
        (Some(c), true) => {
            let w = goal_words(step, c, lang);
            lang.f(
                || format!("✓ reached: {w}. Next ▶ goes on."),
                || format!("✓ 已达成：{w}。按“下一步 ▶”继续。"),
            )
        }
    };
    let hint_text = step.hint.as_ref().map_or_else(
        || {
            lang.t(
                "Press Show me to see it done, then watch what changes.",
                "按“演示”看它如何完成，再观察哪些地方变化了。",
            )
            .to_string()
        },
        |h| h.get(code).to_string(),
    );
    let toggle_hint = {
        let hint = hint.clone();
        Callback::from(move |_: MouseEvent| hint.set(!*hint))
    };
    let waiting = !r.done && !r.passed() && step.checkpoint.is_some();
    let t = |en: &'static str, zh: &'static str| lang.t(en, zh);
    html! {
        <section id="p-lesson" class={classes!("panel", "lesson-panel", r.done.then_some("done"))} aria-label={t("Lesson", "课程")}>
            <div class="lesson-head">
                <h2>{ r.lesson.title.get(code) }</h2>
                <span class="lesson-step">{ progress }</span>
            </div>
            <p class="lesson-text" aria-live="polite">
                { if r.done { r.lesson.summary.get(code).to_string() } else { step.text.get(code).to_string() } }
            </p>
            if !r.done {
                <p class={classes!("lesson-wait", (r.passed() || step.checkpoint.is_none()).then_some("reached"))} aria-live="polite">{ waits }</p>
            }
            if *hint && !r.done {
                <p class="lesson-hint" role="note">{ t("Hint: ", "提示：") }{ hint_text }</p>
            }
            <div class="lesson-controls" role="group" aria-label={t("Lesson controls", "课程控制")}>
                { btn(t("◀ Back", "◀ 上一步"), t("Back one step", "回到上一步"), false, LessonMsg::Back, on) }
                { btn(t("Show me", "演示"), t("Show me", "演示"), !waiting, LessonMsg::ShowMe, on) }
                <button data-act="hint" aria-label={t("Hint", "提示")} aria-pressed={hint.to_string()} disabled={r.done} onclick={toggle_hint}>{ t("Hint", "提示") }</button>
                <span class="lesson-next">{ btn(if r.step + 1 == n { t("Finish ✓", "完成 ✓") } else { t("Next ▶", "下一步 ▶") }, t("Next step", "下一步"), !r.can_next(), LessonMsg::Next, on) }</span>
                { btn(t("⟲ Last checkpoint", "⟲ 上个检查点"), t("Rewind to the last checkpoint", "回到上一个检查点"), r.last_checkpoint().is_none(), LessonMsg::Rewind, on) }
                { btn(t("Restart", "重新开始"), t("Restart lesson", "重新开始课程"), false, LessonMsg::Restart, on) }
                { btn(t("Leave", "退出"), t("Leave lesson", "退出课程"), false, LessonMsg::Leave, on) }
                <button class="present-button" aria-pressed={props.present.to_string()} aria-label={t("Presentation mode (p)", "演示模式 (p)")}
                    onclick={ let on = on.clone(); let p = props.present; Callback::from(move |_: MouseEvent| on.emit(Msg::Lesson(LessonMsg::SetPresent(!p)))) }>
                    { t("Present", "投影") }
                </button>
            </div>
            if let Some(note) = &r.lesson.article_note {
                <details class="lesson-note">
                    <summary>{ t("About the article", "关于原文") }</summary>
                    <p>{ note.get(code) }</p>
                </details>
            }
            { for fold_bar }
        </section>
    }
}
