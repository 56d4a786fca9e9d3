//! The sequence diagram pane: the core's layout of a window of the trace
//! ([`kcsim_core::diagram`]) drawn as Yew `<svg>` elements (never parsed
//! markup: paths and topic names are user text), each arrow a button that
//! moves the time cursor to its moment; "Download SVG" writes the core's
//! [`to_svg`] in the page's language; the trace downloads as JSON lines and
//! loads back ([`crate::trace_io`]).

use crate::el::{
    attrs, change, class, click, dynamic, el, el0, eld, elo, flag, input, keydown, leaf, list, num,
    on, opt, opt_st, s, st, string, tag, text,
};
use crate::i18n::facts::fact_text;
use crate::i18n::{use_lang, Lang};
use crate::state::{Msg, SimState};
use crate::trace_io;
use kcsim_core::diagram::svg::{message_class, outcome_class};
use kcsim_core::diagram::{
    leader_epoch_shown, to_svg, watch_name, write_verb, Arrow, Diagram, English, Labels, Layout,
    Lifeline, Mark, MarkKind, Message, Outcome, Party, Row, COLUMN, TOP,
};
use kcsim_core::fact::Fact;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;
use yew::virtual_dom::{Attributes, Listeners};

/// The windows offered: the last N seconds before the time cursor.
pub const WINDOWS_S: &[u64] = &[5, 10, 30, 60];

/// The diagram's words in the page's language.
#[derive(Debug, Clone, Copy)]
pub struct PageLabels(pub Lang);

impl Labels for PageLabels {
    fn title(&self, from_ms: u64, to_ms: u64) -> String {
        match self.0 {
            Lang::En => English.title(from_ms, to_ms),
            Lang::Zh => format!("时序图：{} 至 {}", self.time(from_ms), self.time(to_ms)),
        }
    }
    fn lifeline(&self, l: &Lifeline) -> String {
        match (self.0, l.party, l.controller_epoch) {
            (Lang::Zh, Party::Broker(b), Some(e)) => format!("broker {b}（控制器，纪元 {e}）"),
            _ => English.lifeline(l),
        }
    }
    fn arrow(&self, a: &Arrow) -> String {
        if self.0 == Lang::En {
            return English.arrow(a);
        }
        match &a.message {
            Message::Watch {
                kind,
                path,
                event: None,
            } => format!("{} {path}（丢失）", watch_name(*kind)),
            Message::Write {
                op,
                path,
                error: Some(e),
            } => format!("{} {path}：{e}", write_verb(*op)),
            Message::Traffic {
                event,
                reads,
                writes,
            } => format!("{event}：读 {reads} 次，写 {writes} 次"),
            Message::Request {
                name,
                controller_epoch,
                leader_epochs,
            } => match leader_epoch_shown(name, *leader_epochs) {
                Some(Ok(e)) => {
                    format!("{name}（控制器纪元 {controller_epoch}，leader epoch {e}）")
                }
                Some(Err((lo, hi))) => {
                    format!("{name}（控制器纪元 {controller_epoch}，leader epoch {lo}–{hi}）")
                }
                None => format!("{name}（控制器纪元 {controller_epoch}）"),
            },
            Message::Response { name, error } => format!("{name}Response：{error}"),
            Message::ShutdownRequest {
                attempt,
                broker_epoch,
            } => format!("ControlledShutdown 第 {attempt} 次（broker epoch {broker_epoch}）"),
            Message::ShutdownResponse { attempt, remaining } => match remaining {
                Some(0) => format!("ControlledShutdownResponse 第 {attempt} 次：NONE"),
                Some(n) => {
                    format!("ControlledShutdownResponse 第 {attempt} 次：仍是 {n} 个分区的 leader")
                }
                None => format!("ControlledShutdown 第 {attempt} 次失败"),
            },
            Message::Lost { id } => format!("消息 #{id} 丢失；控制器会重发"),
            _ => English.arrow(a),
        }
    }
    fn mark(&self, m: &Mark) -> String {
        match (&m.kind, self.0) {
            (MarkKind::UserAction(a), lang) => match lang {
                Lang::En => format!("user: {}", fact_text(&Fact::UserAction(a.clone()), lang)),
                Lang::Zh => format!("用户：{}", fact_text(&Fact::UserAction(a.clone()), lang)),
            },
            (_, Lang::En) => English.mark(m),
            (MarkKind::Elected { epoch }, Lang::Zh) => format!("成为控制器，纪元 {epoch}"),
            (MarkKind::Resigned, Lang::Zh) => "退位，不再是控制器".to_string(),
            (MarkKind::SessionExpired, Lang::Zh) => "ZooKeeper 会话已过期".to_string(),
        }
    }
    fn not_drawn(&self, n: usize) -> String {
        match self.0 {
            Lang::En => English.not_drawn(n),
            Lang::Zh => format!("还有 {n} 行更早的记录没有画出：请选一个更短的时间窗口"),
        }
    }
    fn outcome(&self, o: Outcome) -> String {
        match (self.0, o) {
            (Lang::En, _) => English.outcome(o),
            (Lang::Zh, Outcome::Delivered) => "已送达".to_string(),
            (Lang::Zh, Outcome::Rejected) => "被拒绝（过期的纪元、ZooKeeper 错误）".to_string(),
            (Lang::Zh, Outcome::Dropped) => "在线路上丢失".to_string(),
        }
    }
    fn legend_mark(&self) -> String {
        match self.0 {
            Lang::En => English.legend_mark(),
            Lang::Zh => "生命线上的变化（控制器、用户操作）".to_string(),
        }
    }
    fn empty(&self) -> String {
        match self.0 {
            Lang::En => English.empty(),
            Lang::Zh => "这段时间里没有消息".to_string(),
        }
    }
}

/// Properties of [`DiagramPane`].
#[derive(Properties, PartialEq, Debug)]
pub struct DiagramProps {
    /// The page's state (its trace, its time, its scenario and actions).
    pub state: SimState,
    /// Where the seek and the loaded trace go.
    pub on_msg: Callback<Msg>,
}

/// Offer `text` as a file download named `name`.
fn download(name: &str, text: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let Ok(blob) = web_sys::Blob::new_with_str_sequence(&parts) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    if let Ok(a) = doc.create_element("a") {
        let _ = a.set_attribute("href", &url);
        let _ = a.set_attribute("download", name);
        if let Ok(a) = a.dyn_into::<web_sys::HtmlElement>() {
            a.click();
        }
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

/// What loading a trace file came to, shown in the pane.
#[derive(Debug, Clone, PartialEq)]
enum LoadStatus {
    /// Replayed byte for byte.
    Identical(usize),
    /// Replayed, but differing from this line on.
    Differs(usize),
    /// Not loaded.
    Refused(String),
}

/// The sequence diagram pane.
#[component]
pub fn DiagramPane(props: &DiagramProps) -> Html {
    let lang = use_lang();
    let labels = PageLabels(lang);
    // Seconds before the cursor; 0: the custom window `custom` (ms).
    let window_s = use_state_eq(|| 10u64);
    let custom = use_state_eq(|| (0u64, 10_000u64));
    let status = use_state_eq(|| None::<LoadStatus>);
    let scroller = use_node_ref();
    let state = &props.state;
    let now_ms = state.now_ms();
    let (from_ms, to_ms) = if *window_s == 0 {
        // The trace runs to the time cursor: a window past it ends there.
        (custom.0, custom.1.min(now_ms))
    } else {
        (now_ms.saturating_sub(*window_s * 1000), now_ms)
    };
    let on_custom = |end: usize| {
        let custom = custom.clone();
        Callback::from(move |e: Event| {
            let v = e
                .target_unchecked_into::<web_sys::HtmlInputElement>()
                .value();
            // Seconds, to the millisecond; a field that does not read is ignored.
            if let Some(ms) = kcsim_core::time::parse_seconds_ms(v.trim(), 90_000) {
                custom.set(if end == 0 {
                    (ms, custom.1)
                } else {
                    (custom.0, ms)
                });
            }
        })
    };
    let brokers: Vec<_> = state.view().brokers.iter().map(|b| b.id).collect();
    // The run is a pure function of its start and its actions, so the same
    // window of the same run is the same picture: drawn again only when one
    // of these changes, not on every frame while playing.
    let layout = {
        let state = state.clone();
        use_memo(
            (state.run_key(), brokers.clone(), from_ms, to_ms),
            move |(_, brokers, from_ms, to_ms)| {
                Layout::of(state.with_trace(|t| Diagram::of(t, brokers, *from_ms, *to_ms)))
            },
        )
    };
    let on_window = {
        let window_s = window_s.clone();
        Callback::from(move |e: Event| {
            let v = e
                .target_unchecked_into::<web_sys::HtmlSelectElement>()
                .value();
            if let Ok(s) = v.parse::<u64>() {
                window_s.set(s);
            }
        })
    };
    let scenario = state.scenario;
    let on_svg = {
        let layout = layout.clone();
        Callback::from(move |_: MouseEvent| {
            let d = &layout.diagram;
            download(
                &format!("kcsim-{scenario}-{}-{}ms.svg", d.from_ms, d.to_ms),
                &to_svg(&layout, &labels),
            );
        })
    };
    // Written only when asked for: the whole trace as JSON lines is too much
    // work for every frame.
    let can_export = trace_io::can_export(state);
    let on_trace = {
        let state = state.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(text) = trace_io::export(&state) {
                download(
                    &format!("kcsim-{scenario}-{}ms.jsonl", state.now_ms()),
                    &text,
                );
            }
        })
    };
    let on_file = {
        let status = status.clone();
        let on_msg = props.on_msg.clone();
        Callback::from(move |e: Event| {
            let status = status.clone();
            let on_msg = on_msg.clone();
            let max = kcsim_core::trace_file::MAX_TRACE_BYTES;
            crate::hooks::read_chosen_file(&e, max, move |text| match text {
                Err(size) => status.set(Some(LoadStatus::Refused(format!(
                    "(file): a trace file is at most {max} bytes; this one is {size}"
                )))),
                Ok(text) => match trace_io::load(&text) {
                    Ok(l) => {
                        status.set(Some(match l.differs_at {
                            None => LoadStatus::Identical(text.lines().count()),
                            Some(n) => LoadStatus::Differs(n),
                        }));
                        on_msg.emit(Msg::Replace(Rc::new(l.state)));
                    }
                    Err(e) => status.set(Some(LoadStatus::Refused(e))),
                },
            });
        })
    };
    let status_html = match &*status {
        None => Html::default(),
        Some(LoadStatus::Identical(n)) => el(
            "p",
            attrs!("role" = "status", "class" = "trace-status ok"),
            string(lang.f(
                || format!("Trace loaded: the replay reproduces its {n} lines byte for byte."),
                || format!("已载入 trace：重放逐字节重现了它的 {n} 行。"),
            )),
        ),
        Some(LoadStatus::Differs(n)) => el(
            "p",
            attrs!("role" = "alert", "class" = "trace-status differs"),
            string(lang.f(
                || format!("Trace loaded, but the replay differs from the file from line {n} on: what you see is the replay, not the file."),
                || format!("已载入 trace，但重放从第 {n} 行起与文件不同：你看到的是重放的结果，而不是文件的内容。"),
            )),
        ),
        Some(LoadStatus::Refused(e)) => el(
            "p",
            attrs!("role" = "alert", "class" = "trace-status refused"),
            string(lang.f(|| format!("Trace not loaded: {e}"), || format!("trace 未载入：{e}"))),
        ),
    };
    let seek = |t: u64| {
        let on_msg = props.on_msg.clone();
        (
            {
                let on_msg = on_msg.clone();
                Callback::from(move |_: MouseEvent| on_msg.emit(Msg::Seek(t)))
            },
            Callback::from(move |e: KeyboardEvent| {
                if e.key() == "Enter" || e.key() == " " {
                    e.prevent_default();
                    e.stop_propagation();
                    on_msg.emit(Msg::Seek(t));
                }
            }),
        )
    };
    let l = &*layout;
    let d = &l.diagram;
    {
        // The latest rows are at the bottom: keep them in view as the cursor
        // or the window moves.
        let scroller = scroller.clone();
        use_effect_with((from_ms, to_ms), move |_| {
            if let Some(el) = scroller.cast::<web_sys::Element>() {
                el.set_scroll_top(el.scroll_height());
            }
        });
    }
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    let heads = d.lifelines.iter().zip(&l.xs).map(|(life, x)| {
        let x = *x;
        let controller = life.controller_epoch.is_some();
        eld(
            "g",
            &["class"],
            Box::new([class(classes!("head", controller.then_some("controller")))]),
            list(vec![
                leaf(
                    "rect",
                    &["x", "y", "width", "height", "rx"],
                    Box::new([
                        num((x - (COLUMN / 2 - 8)).into()),
                        num((l.head_y - 15).into()),
                        num((COLUMN - 16).into()),
                        s("30"),
                        s("4"),
                    ]),
                ),
                eld(
                    "text",
                    &["x", "y", "text-anchor"],
                    Box::new([num(x.into()), num((l.head_y + 4).into()), s("middle")]),
                    string(labels.lifeline(life)),
                ),
            ]),
        )
    });
    let lives = l.xs.iter().map(|x| {
        leaf(
            "line",
            &["x1", "y1", "x2", "y2", "class"],
            Box::new([
                num((*x).into()),
                num(TOP.into()),
                num((*x).into()),
                num(l.foot_y.into()),
                s("life"),
            ]),
        )
    });
    let time_cell = |y: u32, time: &String| {
        eld(
            "text",
            &["x", "y", "class"],
            Box::new([s("8"), num((y + 4).into()), s("time")]),
            string(time.clone()),
        )
    };
    let rows = l.rows.iter().map(|(y, row)| {
        let y = *y;
        let t = row.time_ms();
        let (onclick, onkeydown) = seek(t);
        let time = labels.time(t);
        let now = (t == to_ms).then_some("now");
        // Every row is a button that moves the time cursor to its moment.
        let row_button = |aria: String, classes: Classes, body: Vec<Html>| {
            let mut children = vec![time_cell(y, &time)];
            children.extend(body);
            elo(
                "g",
                &["data-time-ms", "tabindex", "role", "aria-label", "class"],
                Box::new([num(t), s("0"), s("button"), st(aria), class(classes)]),
                on(Box::new([click(onclick), keydown(onkeydown)])),
                list(children),
            )
        };
        match row {
            Row::Arrow(a) => {
                let shape = l.arrow_shape(y, a);
                let label = labels.arrow(a);
                let aria = lang.f(
                    || {
                        format!(
                            "{time}: {label} ({}). Go to this moment",
                            labels.outcome(a.outcome)
                        )
                    },
                    || {
                        format!(
                            "{time}：{label}（{}）。跳到这一刻",
                            labels.outcome(a.outcome)
                        )
                    },
                );
                let head = shape.head.then_some("url(#kc-head)");
                let drawn = if let Some((x1, ly, x2)) = shape.line {
                    list(vec![
                        leaf(
                            "line",
                            &["x1", "y1", "x2", "y2", "class"],
                            Box::new([
                                num(x1.into()),
                                num(ly.into()),
                                num(l.x_of(a.to).into()),
                                num(ly.into()),
                                s("hit"),
                            ]),
                        ),
                        leaf(
                            "line",
                            &["x1", "y1", "x2", "y2", "marker-end"],
                            Box::new([
                                num(x1.into()),
                                num(ly.into()),
                                num(x2.into()),
                                num(ly.into()),
                                opt(head),
                            ]),
                        ),
                        list(if shape.path.is_empty() {
                            Vec::new()
                        } else {
                            vec![leaf("path", &["d"], Box::new([st(shape.path.clone())]))]
                        }),
                    ])
                } else {
                    list(vec![leaf(
                        "path",
                        &["d", "marker-end"],
                        Box::new([st(shape.path.clone()), opt(head)]),
                    )])
                };
                let body = list(vec![
                    drawn,
                    eld(
                        "text",
                        &["x", "y"],
                        Box::new([num(shape.label.0.into()), num(shape.label.1.into())]),
                        string(label),
                    ),
                ]);
                row_button(
                    aria,
                    classes!(
                        "arrow",
                        message_class(&a.message),
                        outcome_class(a.outcome),
                        now
                    ),
                    vec![body],
                )
            }
            Row::Mark(m) => {
                let x = l.x_of(m.on);
                let label = labels.mark(m);
                let aria = lang.f(
                    || format!("{time}: {label}. Go to this moment"),
                    || format!("{time}：{label}。跳到这一刻"),
                );
                row_button(
                    aria,
                    classes!("mark", now),
                    vec![
                        leaf(
                            "rect",
                            &["x", "y", "width", "height"],
                            Box::new([num((x - 6).into()), num((y - 6).into()), s("12"), s("12")]),
                        ),
                        eld(
                            "text",
                            &["x", "y"],
                            Box::new([num((x + 10).into()), num((y + 4).into())]),
                            string(label),
                        ),
                    ],
                )
            }
        }
    });
    let legend_y = l.foot_y + 42;
    let legend = [Outcome::Delivered, Outcome::Rejected, Outcome::Dropped]
        .into_iter()
        .zip(0u32..)
        .map(|(o, i)| {
            let y = legend_y + i * 18;
            eld(
                "g",
                &["class"],
                Box::new([class(classes!("arrow", "request", outcome_class(o)))]),
                list(vec![
                    leaf(
                        "line",
                        &["x1", "y1", "x2", "y2"],
                        Box::new([s("70"), num(y.into()), s("110"), num(y.into())]),
                    ),
                    eld(
                        "text",
                        &["x", "y"],
                        Box::new([s("120"), num((y + 4).into())]),
                        string(labels.outcome(o)),
                    ),
                ]),
            )
        });
    let mark_y = legend_y + 54;
    let mut options: Vec<Html> = WINDOWS_S
        .iter()
        .map(|s| {
            eld(
                "option",
                &["value", "selected"],
                Box::new([num(*s), flag("selected", *s == *window_s)]),
                string(lang.f(
                    || format!("the last {s} s before the cursor"),
                    || format!("时间游标之前的 {s} 秒"),
                )),
            )
        })
        .collect();
    options.push(eld(
        "option",
        &["value", "selected"],
        Box::new([s("0"), flag("selected", *window_s == 0)]),
        text(lang.t("from … to … (seconds)", "自定义起止（秒）")),
    ));
    let seconds_field = |name: &'static str, value: u64, aria: &'static str, end: usize| {
        input(
            Some(AttrValue::from(format!("{}", value as f64 / 1000.0))),
            None,
            dynamic(
                &["type", "min", "step", "size", "aria-label", "class"],
                Box::new([s("number"), s("0"), s("0.001"), s("7"), s(aria), s(name)]),
            ),
            on(Box::new([change(on_custom(end))])),
        )
    };
    let custom_fields = list(if *window_s == 0 {
        vec![
            el(
                "label",
                &[],
                list(vec![
                    text(lang.t("from ", "从 ")),
                    seconds_field(
                        "diagram-from",
                        custom.0,
                        lang.t("Diagram from (s)", "时序图起点（秒）"),
                        0,
                    ),
                ]),
            ),
            el(
                "label",
                &[],
                list(vec![
                    text(lang.t("to ", "到 ")),
                    seconds_field(
                        "diagram-to",
                        custom.1,
                        lang.t("Diagram to (s)", "时序图终点（秒）"),
                        1,
                    ),
                ]),
            ),
            list(if custom.1 > now_ms {
                vec![el(
                    "span",
                    attrs!("class" = "quiet"),
                    string(lang.f(
                        || format!("(the trace ends at the cursor, {})", labels.time(now_ms)),
                        || format!("（trace 只到时间游标处，{}）", labels.time(now_ms)),
                    )),
                )]
            } else {
                Vec::new()
            }),
        ]
    } else {
        Vec::new()
    });
    let tools =
        el(
            "div",
            attrs!("class" = "diagram-tools"),
            list(vec![
                el(
                    "label",
                    &[],
                    list(vec![
                        text(lang.t("window: ", "窗口：")),
                        elo(
                            "select",
                            &["aria-label"],
                            Box::new([s(lang.t(
                                "Diagram window: seconds before the time cursor",
                                "时序图窗口：时间游标之前的秒数",
                            ))]),
                            on(Box::new([change(on_window)])),
                            list(options),
                        ),
                    ]),
                ),
                custom_fields,
                elo(
                    "button",
                    &["aria-label", "class"],
                    Box::new([
                        s(lang.t("Download the diagram as SVG", "把时序图下载为 SVG")),
                        s("svg-download"),
                    ]),
                    on(Box::new([click(on_svg)])),
                    text(lang.t("Download SVG", "下载 SVG")),
                ),
                elo(
                    "button",
                    &["aria-label", "title", "disabled", "class"],
                    Box::new([
                        s(lang.t(
                            "Download the trace as JSON lines (as kcsim run --trace writes it)",
                            "把 trace 下载为 JSON lines（与 kcsim run --trace 的格式相同）",
                        )),
                        opt_st((!can_export).then(|| {
                            lang.t(
                                "a lesson's own cluster cannot be saved as a trace",
                                "课程自带的集群不能保存为 trace",
                            )
                            .to_string()
                        })),
                        flag("disabled", !can_export),
                        s("trace-download"),
                    ]),
                    on(Box::new([click(on_trace)])),
                    text(lang.t("Download trace", "下载 trace")),
                ),
                el(
                    "label",
                    attrs!("class" = "trace-load"),
                    list(vec![
                        text(lang.t("Load trace: ", "载入 trace：")),
                        input(
                            None,
                            None,
                            dynamic(
                                &["type", "accept", "aria-label"],
                                Box::new([
                                    s("file"),
                                    s(".jsonl,.json,.txt"),
                                    s(lang.t(
                                        "Load a trace file to replay",
                                        "载入要重放的 trace 文件",
                                    )),
                                ]),
                            ),
                            on(Box::new([change(on_file)])),
                        ),
                    ]),
                ),
            ]),
        );
    let title = labels.title(d.from_ms, d.to_ms);
    let mut head_svg = vec![
        leaf(
            "rect",
            &["width", "height", "class"],
            Box::new([num(l.width.into()), num(TOP.into()), s("backdrop")]),
        ),
        el(
            "text",
            attrs!("x" = "12", "y" = "24", "class" = "title"),
            string(title.clone()),
        ),
    ];
    head_svg.extend(heads);
    let mut rows_svg = vec![el(
        "defs",
        &[],
        el(
            "marker",
            attrs!(
                "id" = "kc-head",
                "viewBox" = "0 0 10 10",
                "refX" = "10",
                "refY" = "5",
                "markerUnits" = "userSpaceOnUse",
                "markerWidth" = "10",
                "markerHeight" = "10",
                "orient" = "auto-start-reverse"
            ),
            el0("path", attrs!("d" = "M0,0 L10,5 L0,10 z")),
        ),
    )];
    rows_svg.extend(lives);
    rows_svg.extend(rows);
    rows_svg.push(list(if l.rows.is_empty() {
        vec![eld(
            "text",
            &["x", "y"],
            Box::new([s("70"), num((l.foot_y - 12).into())]),
            string(labels.empty()),
        )]
    } else {
        Vec::new()
    }));
    rows_svg.push(list(if l.not_drawn > 0 {
        vec![eld(
            "text",
            &["x", "y", "class"],
            Box::new([s("70"), num((l.foot_y + 20).into()), s("more")]),
            string(labels.not_drawn(l.not_drawn)),
        )]
    } else {
        Vec::new()
    }));
    rows_svg.extend(legend);
    rows_svg.push(el(
        "g",
        attrs!("class" = "mark"),
        list(vec![
            leaf(
                "rect",
                &["x", "y", "width", "height"],
                Box::new([s("84"), num((mark_y - 6).into()), s("12"), s("12")]),
            ),
            eld(
                "text",
                &["x", "y"],
                Box::new([s("120"), num((mark_y + 4).into())]),
                string(labels.legend_mark()),
            ),
        ]),
    ));
    eld(
        "section",
        &["id", "aria-label", "class"],
        Box::new([
            s("p-diagram"),
            s(lang.t("Sequence diagram", "时序图")),
            s("panel diagram-pane"),
        ]),
        list(vec![
            el("h2", &[], text(lang.t("Sequence diagram", "时序图"))),
            tools,
            status_html,
            el(
                "p",
                attrs!("class" = "quiet diagram-hint"),
                text(lang.t(
                    "Time flows downward. Click an arrow (or focus it and press Enter) to move the time cursor there.",
                    "时间自上而下。点击一个箭头（或用键盘聚焦后按 Enter），时间游标就移到那一刻。",
                )),
            ),
            tag(
                "div",
                scroller.clone(),
                Attributes::Static(attrs!("class" = "diagram-scroll")),
                Listeners::None,
                list(vec![
                    // The heads stay in view while the rows scroll under them.
                    eld(
                        "svg",
                        &["width", "height", "viewBox", "role", "aria-label", "class"],
                        Box::new([
                            num(l.width.into()),
                            num(TOP.into()),
                            st(format!("0 0 {} {TOP}", l.width)),
                            s("group"),
                            st(title),
                            s("sequence heads"),
                        ]),
                        list(head_svg),
                    ),
                    eld(
                        "svg",
                        &["width", "height", "viewBox", "class"],
                        Box::new([
                            num(l.width.into()),
                            num((l.height - TOP).into()),
                            st(format!("0 {TOP} {} {}", l.width, l.height - TOP)),
                            s("sequence"),
                        ]),
                        list(rows_svg),
                    ),
                ]),
            ),
        ]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use kcsim_core::diagram::Layout;

    #[test]
    fn the_chinese_svg_is_the_cores_with_chinese_words() {
        // Kafka: KafkaController.onBrokerFailure, drawn in the page's 中文.
        let s = SimState::load("zombie-controller").expect("built in");
        let s = s.apply(Msg::Seek(22_000));
        let brokers: Vec<_> = s.view().brokers.iter().map(|b| b.id).collect();
        let l = Layout::of(s.with_trace(|t| Diagram::of(t, &brokers, 21_000, 22_000)));
        let zh = to_svg(&l, &PageLabels(Lang::Zh));
        assert!(zh.contains("时序图：21.000 s 至 22.000 s"));
        assert!(zh.contains("LeaderAndIsr（控制器纪元 1，leader epoch 1）"));
        assert!(zh.contains("broker 1（控制器，纪元 2）"));
        assert!(zh.contains("被拒绝"));
        let en = to_svg(&l, &PageLabels(Lang::En));
        assert_eq!(en, to_svg(&l, &English), "the page's English is the CLI's");
    }
}
