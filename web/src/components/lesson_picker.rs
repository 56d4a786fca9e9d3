//! Choosing a lesson: the header's "Lessons" button opens the list of the
//! built-in lessons (each with the learner's progress, remembered in
//! `localStorage`), "Open a lesson file…" and the presentation mode toggle.

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
    let list = lessons.iter().enumerate().map(|(i, &l)| {
        let code = lang.code();
        let saved = load_progress(&l.id);
        let status = match saved {
            Progress::New => String::new(),
            Progress::Done => t("✓ completed", "✓ 已完成").to_string(),
            Progress::At(k) => lang.f(|| format!("at step {}", k + 1), || format!("进行到第 {} 步", k + 1)),
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
                Callback::from(move |_: MouseEvent| emit.emit(LessonMsg::Continue(l.clone(), Origin::BuiltIn, k)))
            };
            let fresh = {
                let emit = emit_and_close.clone();
                Callback::from(move |_: MouseEvent| emit.emit(LessonMsg::Open(l.clone(), Origin::BuiltIn)))
            };
            html! {
                <div class="lesson-offer" role="group">
                    <button class="continue" onclick={cont}>{ lang.f(|| format!("Continue at step {}", k + 1), || format!("从第 {} 步继续", k + 1)) }</button>
                    <button onclick={fresh}>{ t("Start over", "从头开始") }</button>
                </div>
            }
        });
        html! {
            <li class="lesson-item" data-lesson={l.id.clone()}>
                <button class="lesson-open" {onclick}>{ l.title.get(code) }</button>
                if !status.is_empty() { <span class="lesson-status">{ status }</span> }
                <p class="lesson-summary">{ l.summary.get(code) }</p>
                { for offered }
            </li>
        }
    });
    html! {
        <>
            <button class="lessons-button" aria-expanded={open.to_string()} aria-label={t("Lessons", "课程")} onclick={toggle.clone()}>{ t("Lessons", "课程") }</button>
            if *open {
                <div class="lesson-picker" role="dialog" aria-label={t("Lessons", "课程")} onkeydown={on_key}>
                    <div class="picker-head">
                        <h2>{ t("Lessons", "课程") }</h2>
                        <button aria-label={t("Close the lessons list", "关闭课程列表")} onclick={toggle}>{ "×" }</button>
                    </div>
                    // At the top: a refused file's message is seen at once.
                    if let Some(e) = &*file_error {
                        <p class="lesson-file-error" role="alert">{ lang.f(|| format!("This lesson file does not read: {e}"), || format!("无法读取这个课程文件：{e}")) }</p>
                    }
                    if entries.is_none() {
                        <p class="lesson-loading" role="status">{ t("Loading the lessons…", "正在载入课程…") }</p>
                    }
                    if !broken.is_empty() {
                        <p class="lesson-file-error" role="alert">{ lang.f(
                            || format!("Some built-in lessons did not load: {}", broken.join("; ")),
                            || format!("有的内置课程未能载入：{}", broken.join("；"))) }</p>
                    }
                    <ol class="lesson-list">{ for list }</ol>
                    <p><button class="present-button" aria-pressed={props.present.to_string()} aria-label={t("Presentation mode (p)", "演示模式 (p)")} onclick={present}>{ t("Presentation mode", "投影演示模式") }</button>
                        { t(" large type for a projector (key p)", " 投影用的大字号（快捷键 p）") }</p>
                    <label class="lesson-file">{ t("Open a lesson file…", "打开课程文件…") }
                        <input type="file" accept=".json,application/json" aria-label={t("Open a lesson file", "打开课程文件")} onchange={on_file} />
                    </label>
                </div>
            }
        </>
    }
}
