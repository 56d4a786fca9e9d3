//! The lesson's narration (title, step k of n, the step's text, what it
//! waits for, the hint, the article note) and its controls, the highlight of
//! the part of the page the step points at, and presentation mode's folded
//! panels.

use crate::components::lesson_picker::save_progress;
use crate::el::{attrs, class, click, el, eld, elo, flag, list, on as on_, s, st, string, text};
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

/// Bring the first element `selector` matches into view, below the
/// narration and the clock (sticky at the top while a lesson runs), unless
/// it is in view.
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
    // The narration and the clock stay at the top while a lesson runs
    // (`position: sticky`, lesson.css): once scrolled, they cover the top of
    // the window by their height.
    let top = d
        .query_selector(".lesson-top")
        .ok()
        .flatten()
        .map_or(0.0, |p| p.get_bounding_client_rect().height().max(0.0));
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
    let cb = on.clone();
    let onclick = Callback::from(move |_: MouseEvent| cb.emit(Msg::Lesson(m.clone())));
    elo(
        "button",
        &["data-act", "aria-label", "title", "disabled"],
        Box::new([
            s(act),
            st(aria.to_string()),
            st(aria.to_string()),
            flag("disabled", disabled),
        ]),
        on_(Box::new([click(onclick)])),
        string(label.to_string()),
    )
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
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    let fold_bar = props.present.then(|| {
        let mut children = vec![el(
            "span",
            &[],
            text(lang.t("Folded for the projector:", "投影时折叠：")),
        )];
        children.extend(FOLDED.iter().map(|(id, en, zh)| {
            let is_open = open.contains(id);
            let unfolded = unfolded.clone();
            let id: &'static str = id;
            let onclick = Callback::from(move |_: MouseEvent| {
                let mut v = (*unfolded).clone();
                if let Some(i) = v.iter().position(|x| *x == id) {
                    v.remove(i);
                } else {
                    v.push(id);
                }
                unfolded.set(v);
            });
            elo(
                "button",
                &["aria-pressed", "aria-controls"],
                Box::new([st(is_open.to_string()), s(id)]),
                on_(Box::new([click(onclick)])),
                text(lang.t(en, zh)),
            )
        }));
        children.push(elo(
            "button",
            &["aria-label", "class"],
            Box::new([
                s(lang.t("Leave presentation mode (p)", "退出演示模式 (p)")),
                s("present-off"),
            ]),
            on_(Box::new([click({
                let on = props.on_msg.clone();
                Callback::from(move |_: MouseEvent| {
                    on.emit(Msg::Lesson(LessonMsg::SetPresent(false)))
                })
            })])),
            text(lang.t("Leave presentation", "退出投影")),
        ));
        eld(
            "div",
            &["role", "aria-label", "class"],
            Box::new([
                s("group"),
                s(lang.t("Folded panels", "已折叠的面板")),
                s("fold-bar"),
            ]),
            list(children),
        )
    });
    let Some(r) = run else {
        return list(fold_bar.into_iter().collect());
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
    let mut children = vec![
        el(
            "div",
            attrs!("class" = "lesson-head"),
            list(vec![
                el("h2", &[], string(r.lesson.title.get(code).to_string())),
                el("span", attrs!("class" = "lesson-step"), string(progress)),
            ]),
        ),
        el(
            "p",
            attrs!("aria-live" = "polite", "class" = "lesson-text"),
            string(if r.done {
                r.lesson.summary.get(code).to_string()
            } else {
                step.text.get(code).to_string()
            }),
        ),
        list(if r.done {
            Vec::new()
        } else {
            vec![eld(
                "p",
                &["aria-live", "class"],
                Box::new([
                    s("polite"),
                    class(classes!(
                        "lesson-wait",
                        (r.passed() || step.checkpoint.is_none()).then_some("reached")
                    )),
                ]),
                string(waits),
            )]
        }),
        list(if *hint && !r.done {
            vec![el(
                "p",
                attrs!("role" = "note", "class" = "lesson-hint"),
                list(vec![text(t("Hint: ", "提示：")), string(hint_text)]),
            )]
        } else {
            Vec::new()
        }),
        eld(
            "div",
            &["role", "aria-label", "class"],
            Box::new([
                s("group"),
                s(t("Lesson controls", "课程控制")),
                s("lesson-controls"),
            ]),
            list(vec![
                btn(
                    t("◀ Back", "◀ 上一步"),
                    t("Back one step", "回到上一步"),
                    false,
                    LessonMsg::Back,
                    on,
                ),
                btn(
                    t("Show me", "演示"),
                    t("Show me", "演示"),
                    !waiting,
                    LessonMsg::ShowMe,
                    on,
                ),
                elo(
                    "button",
                    &["data-act", "aria-label", "aria-pressed", "disabled"],
                    Box::new([
                        s("hint"),
                        s(t("Hint", "提示")),
                        st(hint.to_string()),
                        flag("disabled", r.done),
                    ]),
                    on_(Box::new([click(toggle_hint)])),
                    text(t("Hint", "提示")),
                ),
                el(
                    "span",
                    attrs!("class" = "lesson-next"),
                    btn(
                        if r.step + 1 == n {
                            t("Finish ✓", "完成 ✓")
                        } else {
                            t("Next ▶", "下一步 ▶")
                        },
                        t("Next step", "下一步"),
                        !r.can_next(),
                        LessonMsg::Next,
                        on,
                    ),
                ),
                btn(
                    t("⟲ Last checkpoint", "⟲ 上个检查点"),
                    t("Rewind to the last checkpoint", "回到上一个检查点"),
                    r.last_checkpoint().is_none(),
                    LessonMsg::Rewind,
                    on,
                ),
                btn(
                    t("Restart", "重新开始"),
                    t("Restart lesson", "重新开始课程"),
                    false,
                    LessonMsg::Restart,
                    on,
                ),
                btn(
                    t("Leave", "退出"),
                    t("Leave lesson", "退出课程"),
                    false,
                    LessonMsg::Leave,
                    on,
                ),
                elo(
                    "button",
                    &["aria-pressed", "aria-label", "class"],
                    Box::new([
                        st(props.present.to_string()),
                        s(t("Presentation mode (p)", "演示模式 (p)")),
                        s("present-button"),
                    ]),
                    on_(Box::new([click({
                        let on = on.clone();
                        let p = props.present;
                        Callback::from(move |_: MouseEvent| {
                            on.emit(Msg::Lesson(LessonMsg::SetPresent(!p)))
                        })
                    })])),
                    text(t("Present", "投影")),
                ),
            ]),
        ),
        list(if let Some(note) = &r.lesson.article_note {
            vec![el(
                "details",
                attrs!("class" = "lesson-note"),
                list(vec![
                    el("summary", &[], text(t("About the article", "关于原文"))),
                    el("p", &[], string(note.get(code).to_string())),
                ]),
            )]
        } else {
            Vec::new()
        }),
    ];
    children.extend(fold_bar);
    eld(
        "section",
        &["id", "aria-label", "class"],
        Box::new([
            s("p-lesson"),
            s(t("Lesson", "课程")),
            class(classes!("panel", "lesson-panel", r.done.then_some("done"))),
        ]),
        list(children),
    )
}
