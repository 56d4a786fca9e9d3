//! The console: a terminal pane where a learner types what people type at a
//! ZooKeeper-era cluster (`kafka-topics.sh …`, `zookeeper-shell.sh …`,
//! `kill -9 2`). Enter sends the line to the page's reducer
//! ([`Msg::Console`]), which runs it through the core's console and applies
//! its actions as the buttons do; the answers are Kafka's own text (not
//! translated), the pane's chrome is in both languages. ↑/↓ walk the
//! commands typed in this page; Tab completes (the core's
//! `console::complete`): one candidate completes the word, several extend it
//! to their common prefix and are listed at once. Tab on an empty line and
//! Shift+Tab move focus as usual; Escape leaves the line for the scrollback.

use crate::el::{
    attrs, class, click, dynamic, el, eld, elo as eld_on, focusin, input_ref, keydown, list, num,
    on, s, st, string, tag, text,
};
use crate::i18n::use_lang;
use crate::state::Msg;
use kcsim_core::console::complete::complete;
use kcsim_core::ClusterView;
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;
use yew::virtual_dom::Listeners;

/// How many commands the scrollback keeps (the oldest go first).
pub const SCROLLBACK: usize = 200;

/// How many commands ↑ can recall.
pub const HISTORY: usize = 100;

/// The longest line the prompt takes.
pub const MAX_LINE: usize = 4_000;

/// One command in the scrollback and what it printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Virtual time when it was typed.
    pub at_ms: u64,
    /// The line as typed.
    pub line: String,
    /// What the tool printed (Kafka's text).
    pub text: String,
    /// False for a usage error or a refusal (nothing changed).
    pub ok: bool,
}

/// Properties of [`Console`].
#[derive(Properties, PartialEq, Debug)]
pub struct ConsoleProps {
    /// The scrollback, oldest first.
    pub entries: Rc<Vec<Entry>>,
    /// The cluster now (what Tab completes from).
    pub view: ClusterView,
    /// Where a typed line goes.
    pub on_msg: Callback<Msg>,
}

/// Where ↑/↓ are in the history: the line being walked to, and what was
/// typed before walking (restored past the newest).
#[derive(Default)]
struct Recall {
    lines: Vec<String>,
    at: Option<usize>,
    draft: String,
}

impl Recall {
    /// The line ↑ (`back`) or ↓ shows, if it moves.
    fn walk(&mut self, back: bool, typed: &str) -> Option<String> {
        let last = self.lines.len().checked_sub(1)?;
        let to = match (self.at, back) {
            (None, true) => {
                self.draft = typed.to_string();
                Some(last)
            }
            (None, false) => return None,
            (Some(i), true) => Some(i.saturating_sub(1)),
            (Some(i), false) if i >= last => None,
            (Some(i), false) => Some(i + 1),
        };
        self.at = to;
        match to {
            Some(i) => self.lines.get(i).cloned(),
            None => Some(std::mem::take(&mut self.draft)),
        }
    }

    fn push(&mut self, line: &str) {
        self.at = None;
        self.draft.clear();
        if line.trim().is_empty() || self.lines.last().is_some_and(|l| l == line) {
            return;
        }
        self.lines.push(line.to_string());
        let over = self.lines.len().saturating_sub(HISTORY);
        self.lines.drain(..over);
    }
}

/// The byte index in `s` of a UTF-16 offset (the browser's cursor position).
fn byte_index(s: &str, utf16: u32) -> usize {
    let mut units = 0u32;
    for (i, c) in s.char_indices() {
        if units >= utf16 {
            return i;
        }
        units += c.len_utf16() as u32;
    }
    s.len()
}

fn seconds(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// Put focus on the console's prompt (the page's `c` key).
pub fn focus_prompt() {
    use wasm_bindgen::JsCast;
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("console-line"))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = el.focus();
    }
}

/// The console pane.
#[component]
pub fn Console(props: &ConsoleProps) -> Html {
    let lang = use_lang();
    let t = |en: &'static str, zh: &'static str| lang.t(en, zh);
    let input = use_node_ref();
    let log = use_node_ref();
    let recall = use_mut_ref(Recall::default);
    let candidates = use_state_eq(Vec::<String>::new);
    let open = use_state_eq(|| false);
    {
        // Keep the newest answer in sight.
        let log = log.clone();
        let n = (
            props.entries.len(),
            props.entries.last().cloned(),
            candidates.len(),
        );
        use_effect_with(n, move |_| {
            if let Some(el) = log.cast::<web_sys::Element>() {
                el.set_scroll_top(el.scroll_height());
            }
        });
    }
    let onkeydown = {
        let (input, log, recall, candidates) = (
            input.clone(),
            log.clone(),
            recall.clone(),
            candidates.clone(),
        );
        let on_msg = props.on_msg.clone();
        let view = props.view.clone();
        Callback::from(move |e: KeyboardEvent| {
            let Some(el) = input.cast::<HtmlInputElement>() else {
                return;
            };
            let value = el.value();
            if e.key() != "Tab" {
                candidates.set(Vec::new());
            }
            match e.key().as_str() {
                "Enter" => {
                    e.prevent_default();
                    recall.borrow_mut().push(&value);
                    el.set_value("");
                    on_msg.emit(Msg::Console(value));
                }
                "ArrowUp" | "ArrowDown" => {
                    e.prevent_default();
                    let shown = recall.borrow_mut().walk(e.key() == "ArrowUp", &value);
                    if let Some(line) = shown {
                        el.set_value(&line);
                        let end = line.encode_utf16().count() as u32;
                        let _ = el.set_selection_range(end, end);
                    }
                }
                "Tab" if !e.shift_key() && !value.trim().is_empty() => {
                    e.prevent_default();
                    let cursor = el
                        .selection_start()
                        .ok()
                        .flatten()
                        .unwrap_or(value.encode_utf16().count() as u32);
                    let (before, after) = value.split_at(byte_index(&value, cursor));
                    let c = complete(before, &view);
                    el.set_value(&format!("{}{after}", c.line));
                    let end = c.line.encode_utf16().count() as u32;
                    let _ = el.set_selection_range(end, end);
                    candidates.set(c.candidates);
                }
                "Escape" => {
                    e.prevent_default();
                    if let Some(l) = log.cast::<web_sys::HtmlElement>() {
                        let _ = l.focus();
                    }
                }
                _ => {}
            }
        })
    };
    let reveal = {
        // The scrollback opens when focus comes in: show its newest lines.
        let log = log.clone();
        Callback::from(move |_: FocusEvent| {
            if let Some(el) = log.cast::<web_sys::Element>() {
                el.set_scroll_top(el.scroll_height());
            }
        })
    };
    let toggle = {
        let open = open.clone();
        Callback::from(move |_: MouseEvent| open.set(!*open))
    };
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    let mut log_children = vec![el(
        "p",
        attrs!("class" = "console-hint"),
        text(t(
            "Kafka 2.4's tools against this cluster. Enter runs, Tab completes, ↑/↓ recall, Esc leaves the line (then u undoes); help lists the commands.",
            "在这个集群上运行 Kafka 2.4 的工具。Enter 执行，Tab 补全，↑/↓ 翻历史，Esc 离开输入行（之后按 u 撤销）；help 列出全部命令。",
        )),
    )];
    log_children.extend(props.entries.iter().map(|e| {
        eld(
            "div",
            &["class"],
            Box::new([class(classes!(
                "console-entry",
                (!e.ok).then_some("failed")
            ))]),
            list(vec![
                el(
                    "pre",
                    attrs!("class" = "console-cmd"),
                    list(vec![
                        el(
                            "span",
                            attrs!("class" = "console-at"),
                            string(format!("[{}] ", seconds(e.at_ms))),
                        ),
                        string(format!("$ {}", e.line)),
                    ]),
                ),
                list(if e.text.is_empty() {
                    Vec::new()
                } else {
                    vec![el(
                        "pre",
                        attrs!("class" = "console-out"),
                        string(e.text.trim_end_matches('\n').to_string()),
                    )]
                }),
            ]),
        )
    }));
    log_children.push(list(if candidates.is_empty() {
        Vec::new()
    } else {
        vec![eld(
            "pre",
            &["aria-label", "class"],
            Box::new([s(t("Completions", "补全候选")), s("console-candidates")]),
            string(candidates.join("  ")),
        )]
    }));
    eld_on(
        "section",
        &["id", "aria-label", "class"],
        Box::new([
            s("p-console"),
            s(t("Console", "控制台")),
            class(classes!("panel", "console", open.then_some("open"))),
        ]),
        on(Box::new([focusin(reveal)])),
        list(vec![
            tag(
                "div",
                log,
                dynamic(
                    &["role", "aria-live", "tabindex", "aria-label", "class"],
                    Box::new([
                        s("log"),
                        s("polite"),
                        s("0"),
                        s(t("Console output", "控制台输出")),
                        s("console-log"),
                    ]),
                ),
                Listeners::None,
                list(log_children),
            ),
            el(
                "div",
                attrs!("class" = "console-bar"),
                list(vec![
                    el("h2", &[], text(t("Console", "控制台"))),
                    el(
                        "label",
                        attrs!("for" = "console-line", "aria-hidden" = "true", "class" = "console-sign"),
                        text("$"),
                    ),
                    input_ref(
                        None,
                        input,
                        dynamic(
                            &[
                                "id",
                                "type",
                                "maxlength",
                                "autocomplete",
                                "autocapitalize",
                                "spellcheck",
                                "aria-label",
                                "placeholder",
                            ],
                            Box::new([
                                s("console-line"),
                                s("text"),
                                num(MAX_LINE as u64),
                                s("off"),
                                s("off"),
                                s("false"),
                                s(t(
                                    "Console command line (Enter runs, Tab completes, ↑/↓ history, Esc leaves)",
                                    "控制台命令行（Enter 执行，Tab 补全，↑/↓ 翻历史，Esc 离开）",
                                )),
                                s(t(
                                    "kafka-topics.sh --bootstrap-server localhost:9092 --describe, kill -9 ID, help …",
                                    "kafka-topics.sh --bootstrap-server localhost:9092 --describe、kill -9 ID、help …",
                                )),
                            ]),
                        ),
                        on(Box::new([keydown(onkeydown)])),
                    ),
                    eld_on(
                        "button",
                        &["aria-pressed", "aria-label", "title", "class"],
                        Box::new([
                            st((*open).to_string()),
                            s(t("Keep the console's output open", "保持显示控制台输出")),
                            s(t(
                                "Keep the console's output open (it opens by itself while you type)",
                                "保持显示控制台输出（输入时会自动展开）",
                            )),
                            s("console-toggle"),
                        ]),
                        on(Box::new([click(toggle)])),
                        text(if *open {
                            t("output ▾", "输出 ▾")
                        } else {
                            t("output ▴", "输出 ▴")
                        }),
                    ),
                ]),
            ),
        ]),
    )
}

#[cfg(test)]
mod through_the_reducer {
    //! The console is a client of the page's reducer: what it does is what
    //! the buttons do.
    use crate::state::{Msg, SimState};
    use kcsim_core::lesson::builtin;
    use kcsim_core::{Action, BrokerId};
    use std::rc::Rc;

    fn typed(s: &SimState, line: &str) -> SimState {
        s.apply(Msg::Console(line.to_string()))
    }

    fn last(s: &SimState) -> &super::Entry {
        s.console.last().expect("an entry")
    }

    #[test]
    fn kill_9_typed_is_the_kill_button() {
        // Kafka: kill -9 of the controller's process (the kill_broker
        // action): its session lingers, the others race for /controller.
        let s = SimState::default_cluster();
        let c = s.view().controller.expect("a controller");
        let typed = typed(&s, &format!("kill -9 {c}"));
        let pressed = SimState::default_cluster().apply(Msg::Act(Action::KillBroker { broker: c }));
        assert_eq!(typed.view(), pressed.view());
        assert_eq!(typed.actions(), pressed.actions());
        assert_eq!(typed.share_fragment(), pressed.share_fragment());
        assert!(
            typed.share_fragment().contains("&a="),
            "recorded for the link"
        );
        let e = last(&typed);
        assert!(e.ok && e.text.is_empty(), "{e:?}");
        assert_eq!(e.at_ms, 3_000);
        // Undo (the page's u) takes it back; the link replays it.
        let undone = typed.apply(Msg::Undo);
        assert_eq!(undone.view(), s.view());
        assert_eq!(undone.share_fragment(), s.share_fragment());
        let replayed = SimState::from_fragment(&typed.share_fragment()).unwrap();
        assert_eq!(replayed.view(), typed.view());
        assert_eq!(replayed.error, None);
    }

    #[test]
    fn typing_in_the_past_forks_the_future_as_a_button_does() {
        // Kafka: a controlled shutdown (kill -15 sends SIGTERM) at 10 s.
        let at = |s: SimState| s.apply(Msg::Seek(20_000)).apply(Msg::Seek(10_000));
        let typed = typed(&at(SimState::default_cluster()), "kill -15 2");
        let pressed = at(SimState::default_cluster()).apply(Msg::Act(Action::ShutdownBroker {
            broker: BrokerId(2),
        }));
        assert_eq!(typed.forked_at, Some(10_000));
        assert_eq!(typed.forked_at, pressed.forked_at);
        assert_eq!(typed.share_fragment(), pressed.share_fragment());
        assert_eq!(
            typed.apply(Msg::Seek(20_000)).view(),
            pressed.apply(Msg::Seek(20_000)).view()
        );
    }

    #[test]
    fn a_malformed_or_refused_command_changes_nothing() {
        // Kafka: TopicCommand's checkArgs refuses two actions; a broker
        // already running cannot be started again.
        let s = SimState::default_cluster();
        let link = s.share_fragment();
        for (line, says) in [
            (
                "kafka-topics.sh --bootstrap-server localhost:9092 --list --describe",
                "exactly one action",
            ),
            (
                "kafka-server-start.sh config/server-0.properties",
                "broker 0 is already running",
            ),
            ("kill -9 42", "No such process"),
            ("kafak-topics.sh --list", "command not found"),
            (
                "kafka-topics.sh --describe --topic 'orders",
                "unexpected EOF",
            ),
        ] {
            let n = typed(&s, line);
            assert_eq!(n.share_fragment(), link, "{line}");
            assert_eq!(n.view(), s.view(), "{line}");
            assert!(!n.can_undo(), "{line}: nothing to undo");
            assert_eq!(n.error, None, "{line}: the answer is in the console");
            let e = last(&n);
            assert!(!e.ok && e.text.contains(says), "{line}: {e:?}");
        }
    }

    #[test]
    fn describe_prints_kafkas_text_and_sleep_moves_time() {
        // Kafka: TopicCommand's describe output, as the page's own panel shows it.
        let s = SimState::default_cluster();
        let d = typed(
            &s,
            "kafka-topics.sh --bootstrap-server localhost:9092 --describe",
        );
        assert_eq!(last(&d).text, s.view().describe());
        assert!(last(&d)
            .text
            .contains("\tTopic: orders\tPartition: 0\tLeader: "));
        let slept = typed(&d, "sleep 2.5");
        assert_eq!(slept.now_ms(), 5_500);
        assert_eq!(slept.view(), d.apply(Msg::Seek(5_500)).view());
        assert_eq!(slept.console.len(), 2, "both commands in the scrollback");
    }

    #[test]
    fn each_setting_of_a_multi_setting_command_is_one_action() {
        // Kafka: kafka-configs.sh --add-config k=v,k2=v2 writes both keys of
        // /config/topics/T; kcsim applies one set_config per key.
        let s = SimState::default_cluster();
        let n = typed(
            &s,
            "kafka-configs.sh --zookeeper localhost:2181 --entity-type topics --entity-name orders --alter --add-config min.insync.replicas=2,unclean.leader.election.enable=true",
        );
        assert!(last(&n).ok, "{:?}", last(&n));
        assert_eq!(n.user_acts().len(), 2);
        assert_eq!(n.apply(Msg::Undo).user_acts().len(), 1);
        let again = SimState::from_fragment(&n.share_fragment()).unwrap();
        assert_eq!(again.view(), n.view());
    }

    #[test]
    fn a_lesson_checkpoint_passes_when_the_learner_types() {
        // Kafka: the controller's death (kill -9), the controller-race
        // lesson's second step.
        let race = Rc::new(builtin::lesson("controller-race").unwrap().unwrap());
        let s = SimState::default_cluster()
            .apply(Msg::Lesson(crate::lesson::LessonMsg::Open(
                race,
                crate::lesson::Origin::BuiltIn,
            )))
            .apply(Msg::Lesson(crate::lesson::LessonMsg::Next));
        let run = |s: &SimState| s.lesson.clone().expect("a lesson");
        assert!(!run(&s).passed());
        let c = s.view().controller.expect("a controller");
        let n = typed(&s, &format!("kill -9 {c}"));
        assert!(run(&n).passed(), "the checkpoint saw the typed kill");
        assert_eq!(n.user_acts().len(), 1);
    }

    #[test]
    fn the_scrollback_survives_a_new_cluster_and_clear_empties_it() {
        let s = typed(&SimState::default_cluster(), "help");
        assert!(last(&s).text.contains("kafka-topics.sh"));
        let other = s.apply(Msg::Load("zombie-controller".into()));
        assert_eq!(other.console, s.console);
        assert!(typed(&other, "clear").console.is_empty());
        let mut many = other;
        for _ in 0..super::SCROLLBACK + 3 {
            many = typed(&many, "sleep 0");
        }
        assert_eq!(many.console.len(), super::SCROLLBACK, "bounded");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn up_and_down_walk_the_history_and_come_back_to_the_draft() {
        let mut r = Recall::default();
        assert_eq!(r.walk(true, "x"), None, "nothing typed yet");
        r.push("kill -9 1");
        r.push("kill -9 1");
        r.push("  ");
        r.push("help");
        assert_eq!(r.lines, vec!["kill -9 1", "help"], "no repeats, no blanks");
        assert_eq!(r.walk(true, "kafka-").as_deref(), Some("help"));
        assert_eq!(r.walk(true, "help").as_deref(), Some("kill -9 1"));
        assert_eq!(
            r.walk(true, "").as_deref(),
            Some("kill -9 1"),
            "stays at the oldest"
        );
        assert_eq!(r.walk(false, "").as_deref(), Some("help"));
        assert_eq!(
            r.walk(false, "").as_deref(),
            Some("kafka-"),
            "the draft again"
        );
        assert_eq!(r.walk(false, ""), None);
    }

    #[test]
    fn the_history_is_bounded() {
        let mut r = Recall::default();
        for i in 0..HISTORY + 5 {
            r.push(&format!("sleep {i}"));
        }
        assert_eq!(r.lines.len(), HISTORY);
        assert_eq!(r.lines[0], "sleep 5");
    }

    #[test]
    fn a_cursor_in_utf16_units_splits_at_a_character() {
        assert_eq!(byte_index("kill -9 1", 4), 4);
        assert_eq!(byte_index("中文 x", 2), "中文".len());
        assert_eq!(byte_index("ab", 9), 2);
    }
}
