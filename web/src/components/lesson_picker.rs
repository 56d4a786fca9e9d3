//! Choosing a lesson: the header's "Lessons" button opens the list of the
//! built-in lessons (each with the learner's progress, remembered in
//! `localStorage`), "Open a lesson file…" and the presentation mode toggle.

use crate::el::{
    attrs, change, click, dynamic, el, eld, elo, els, input, keydown, list, on, s, st, string, text,
};
use crate::i18n::use_lang;
use crate::lesson::{builtins, minified, progress_key, LessonMsg, Origin, Progress};
use crate::state::Msg;
use kcsim_core::lesson::{Lesson, MAX_BYTES};
use std::rc::Rc;
use yew::prelude::*;

/// A lesson's saved progress.
pub fn load_progress(id: &str) -> Progress {
    let v = crate::hooks::storage().and_then(|s| s.get_item(&progress_key(id)).ok().flatten());
    Progress::parse(v.as_deref())
}

/// Save a lesson's progress (it only grows: the highest step reached, or done).
pub fn save_progress(id: &str, p: Progress) {
    let best = load_progress(id).max(p);
    if let (Some(s), Some(v)) = (crate::hooks::storage(), best.value()) {
        let _ = s.set_item(&progress_key(id), &v);
    }
}

/// Properties of [`LessonPicker`].
#[derive(Properties, PartialEq, Debug)]
pub struct LessonPickerProps {
    /// Presentation mode.
    pub present: bool,
    /// Where input goes.
    pub on_msg: Callback<Msg>,
}

/// The "Lessons" and "Present" buttons, and the list of lessons.
#[component]
pub fn LessonPicker(props: &LessonPickerProps) -> Html {
    let lang = use_lang();
    let t = |en: &'static str, zh: &'static str| lang.t(en, zh);
    let open = use_state(|| false);
    // The lesson offered to continue: (index in the list, saved step).
    let offer = use_state(|| None::<(usize, usize)>);
    let file_error = use_state(|| None::<String>);
    // The built-in lessons: fetched the first time the list opens
    // ([`builtins`]); `None` until they have arrived.
    let entries = use_state(|| builtins::entries().map(Rc::new));
    let toggle = {
        let open = open.clone();
        let offer = offer.clone();
        let entries = entries.clone();
        Callback::from(move |_: MouseEvent| {
            offer.set(None);
            open.set(!*open);
            if entries.is_none() {
                let entries = entries.clone();
                builtins::load(move || entries.set(builtins::entries().map(Rc::new)));
            }
        })
    };
    let lessons: Vec<&Lesson> = entries
        .iter()
        .flat_map(|e| e.iter())
        .filter_map(|(_, r)| r.as_ref().ok())
        .collect();
    let broken: Vec<&str> = entries
        .iter()
        .flat_map(|e| e.iter())
        .filter_map(|(_, r)| r.as_ref().err().map(String::as_str))
        .collect();
    let present = {
        let on = props.on_msg.clone();
        let p = props.present;
        Callback::from(move |_: MouseEvent| on.emit(Msg::Lesson(LessonMsg::SetPresent(!p))))
    };
    let emit_and_close = {
        let on = props.on_msg.clone();
        let open = open.clone();
        let offer = offer.clone();
        let file_error = file_error.clone();
        Callback::from(move |m: LessonMsg| {
            open.set(false);
            offer.set(None);
            file_error.set(None);
            on.emit(Msg::Lesson(m));
        })
    };
    let on_file = {
        let emit = emit_and_close.clone();
        let file_error = file_error.clone();
        Callback::from(move |e: Event| {
            let emit = emit.clone();
            let file_error = file_error.clone();
            crate::hooks::read_chosen_file(&e, MAX_BYTES, move |text| match text {
                Err(size) => file_error.set(Some(format!(
                    "(file): a lesson file may be at most {MAX_BYTES} bytes; this one is {size}"
                ))),
                Ok(text) => match Lesson::parse(&text) {
                    Ok(l) => emit.emit(LessonMsg::Open(
                        Rc::new(l),
                        Origin::File(Rc::new(minified(&text))),
                    )),
                    Err(e) => file_error.set(Some(e.to_string())),
                },
            });
        })
    };
    let on_key = {
        let open = open.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" {
                e.stop_propagation();
                open.set(false);
            }
        })
    };
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    let items = lessons.iter().enumerate().map(|(i, &l)| {
        let code = lang.code();
        let saved = load_progress(&l.id);
        let status = match saved {
            Progress::New => String::new(),
            Progress::Done => t("✓ completed", "✓ 已完成").to_string(),
            Progress::At(k) => lang.f(
                || format!("at step {}", k + 1),
                || format!("进行到第 {} 步", k + 1),
            ),
        };
        let onclick = {
            let emit = emit_and_close.clone();
            let offer = offer.clone();
            let l = Rc::new(l.clone());
            Callback::from(move |_: MouseEvent| match saved {
                Progress::At(k) if k > 0 => offer.set(Some((i, k))),
                _ => emit.emit(LessonMsg::Open(l.clone(), Origin::BuiltIn)),
            })
        };
        let offered = offer.filter(|(j, _)| *j == i).map(|(_, k)| {
            let l = Rc::new(l.clone());
            let cont = {
                let emit = emit_and_close.clone();
                let l = l.clone();
                Callback::from(move |_: MouseEvent| {
                    emit.emit(LessonMsg::Continue(l.clone(), Origin::BuiltIn, k))
                })
            };
            let fresh = {
                let emit = emit_and_close.clone();
                Callback::from(move |_: MouseEvent| {
                    emit.emit(LessonMsg::Open(l.clone(), Origin::BuiltIn))
                })
            };
            el(
                "div",
                attrs!("role" = "group", "class" = "lesson-offer"),
                list(vec![
                    els(
                        "button",
                        attrs!("class" = "continue"),
                        on(Box::new([click(cont)])),
                        string(lang.f(
                            || format!("Continue at step {}", k + 1),
                            || format!("从第 {} 步继续", k + 1),
                        )),
                    ),
                    els(
                        "button",
                        &[],
                        on(Box::new([click(fresh)])),
                        text(t("Start over", "从头开始")),
                    ),
                ]),
            )
        });
        let mut children = vec![
            els(
                "button",
                attrs!("class" = "lesson-open"),
                on(Box::new([click(onclick)])),
                string(l.title.get(code).to_string()),
            ),
            list(if status.is_empty() {
                Vec::new()
            } else {
                vec![el(
                    "span",
                    attrs!("class" = "lesson-status"),
                    string(status),
                )]
            }),
            el(
                "p",
                attrs!("class" = "lesson-summary"),
                string(l.summary.get(code).to_string()),
            ),
        ];
        children.extend(offered);
        eld(
            "li",
            &["data-lesson", "class"],
            Box::new([st(l.id.clone()), s("lesson-item")]),
            list(children),
        )
    });
    let button = elo(
        "button",
        &["aria-expanded", "aria-label", "class"],
        Box::new([
            st(open.to_string()),
            s(t("Lessons", "课程")),
            s("lessons-button"),
        ]),
        on(Box::new([click(toggle.clone())])),
        text(t("Lessons", "课程")),
    );
    let picker = list(if *open {
        let alert = |message: String| {
            el(
                "p",
                attrs!("role" = "alert", "class" = "lesson-file-error"),
                string(message),
            )
        };
        vec![elo(
            "div",
            &["role", "aria-label", "class"],
            Box::new([s("dialog"), s(t("Lessons", "课程")), s("lesson-picker")]),
            on(Box::new([keydown(on_key)])),
            list(vec![
                el(
                    "div",
                    attrs!("class" = "picker-head"),
                    list(vec![
                        el("h2", &[], text(t("Lessons", "课程"))),
                        elo(
                            "button",
                            &["aria-label"],
                            Box::new([s(t("Close the lessons list", "关闭课程列表"))]),
                            on(Box::new([click(toggle)])),
                            text("×"),
                        ),
                    ]),
                ),
                // At the top: a refused file's message is seen at once.
                list(if let Some(e) = &*file_error {
                    vec![alert(lang.f(
                        || format!("This lesson file does not read: {e}"),
                        || format!("无法读取这个课程文件：{e}"),
                    ))]
                } else {
                    Vec::new()
                }),
                list(if entries.is_none() {
                    vec![el(
                        "p",
                        attrs!("role" = "status", "class" = "lesson-loading"),
                        text(t("Loading the lessons…", "正在载入课程…")),
                    )]
                } else {
                    Vec::new()
                }),
                list(if broken.is_empty() {
                    Vec::new()
                } else {
                    vec![alert(lang.f(
                        || format!("Some built-in lessons did not load: {}", broken.join("; ")),
                        || format!("有的内置课程未能载入：{}", broken.join("；")),
                    ))]
                }),
                el("ol", attrs!("class" = "lesson-list"), list(items.collect())),
                el(
                    "p",
                    &[],
                    list(vec![
                        elo(
                            "button",
                            &["aria-pressed", "aria-label", "class"],
                            Box::new([
                                st(props.present.to_string()),
                                s(t("Presentation mode (p)", "演示模式 (p)")),
                                s("present-button"),
                            ]),
                            on(Box::new([click(present)])),
                            text(t("Presentation mode", "投影演示模式")),
                        ),
                        text(t(
                            " large type for a projector (key p)",
                            " 投影用的大字号（快捷键 p）",
                        )),
                    ]),
                ),
                el(
                    "label",
                    attrs!("class" = "lesson-file"),
                    list(vec![
                        text(t("Open a lesson file…", "打开课程文件…")),
                        input(
                            None,
                            None,
                            dynamic(
                                &["type", "accept", "aria-label"],
                                Box::new([
                                    s("file"),
                                    s(".json,application/json"),
                                    s(t("Open a lesson file", "打开课程文件")),
                                ]),
                            ),
                            on(Box::new([change(on_file)])),
                        ),
                    ]),
                ),
            ]),
        )]
    } else {
        Vec::new()
    });
    list(vec![button, picker])
}
