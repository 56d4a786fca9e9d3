//! The sequence diagram pane: the core's layout of a window of the trace
//! ([`kcsim_core::diagram`]) drawn as Yew `<svg>` elements (never parsed
//! markup: paths and topic names are user text), each arrow a button that
//! moves the time cursor to its moment; "Download SVG" writes the core's
//! [`to_svg`] in the page's language; the trace downloads as JSON lines and
//! loads back ([`crate::trace_io`]).

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
        None => html! {},
        Some(LoadStatus::Identical(n)) => html! {
            <p class="trace-status ok" role="status">{ lang.f(
                || format!("Trace loaded: the replay reproduces its {n} lines byte for byte."),
                || format!("已载入 trace：重放逐字节重现了它的 {n} 行。")) }</p>
        },
        Some(LoadStatus::Differs(n)) => html! {
            <p class="trace-status differs" role="alert">{ lang.f(
                || format!("Trace loaded, but the replay differs from the file from line {n} on: what you see is the replay, not the file."),
                || format!("已载入 trace，但重放从第 {n} 行起与文件不同：你看到的是重放的结果，而不是文件的内容。")) }</p>
        },
        Some(LoadStatus::Refused(e)) => html! {
            <p class="trace-status refused" role="alert">{ lang.f(
                || format!("Trace not loaded: {e}"),
                || format!("trace 未载入：{e}")) }</p>
        },
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
    let heads = d.lifelines.iter().zip(&l.xs).map(|(life, x)| {
        let x = *x;
        let controller = life.controller_epoch.is_some();
        html! {
            <g class={classes!("head", controller.then_some("controller"))}>
                <rect x={(x - (COLUMN / 2 - 8)).to_string()} y={(l.head_y - 15).to_string()} width={(COLUMN - 16).to_string()} height="30" rx="4" />
                <text x={x.to_string()} y={(l.head_y + 4).to_string()} text-anchor="middle">{ labels.lifeline(life) }</text>
            </g>
        }
    });
    let lives = l.xs.iter().map(|x| {
        html! {
            <line class="life" x1={x.to_string()} y1={TOP.to_string()} x2={x.to_string()} y2={l.foot_y.to_string()} />
        }
    });
    let rows = l.rows.iter().map(|(y, row)| {
        let y = *y;
        let t = row.time_ms();
        let (onclick, onkeydown) = seek(t);
        let time = labels.time(t);
        let now = (t == to_ms).then_some("now");
        match row {
            Row::Arrow(a) => {
                let shape = l.arrow_shape(y, a);
                let label = labels.arrow(a);
                let aria = lang.f(
                    || format!("{time}: {label} ({}). Go to this moment", labels.outcome(a.outcome)),
                    || format!("{time}：{label}（{}）。跳到这一刻", labels.outcome(a.outcome)),
                );
                let head = shape.head.then_some("url(#kc-head)");
                let body = html! { <>
                    if let Some((x1, ly, x2)) = shape.line {
                        <line class="hit" x1={x1.to_string()} y1={ly.to_string()} x2={l.x_of(a.to).to_string()} y2={ly.to_string()} />
                        <line x1={x1.to_string()} y1={ly.to_string()} x2={x2.to_string()} y2={ly.to_string()} marker-end={head} />
                        if !shape.path.is_empty() { <path d={shape.path.clone()} /> }
                    } else {
                        <path d={shape.path.clone()} marker-end={head} />
                    }
                    <text x={shape.label.0.to_string()} y={shape.label.1.to_string()}>{ label }</text>
                </> };
                html! {
                    <g class={classes!("arrow", message_class(&a.message), outcome_class(a.outcome), now)} data-time-ms={t.to_string()}
                        tabindex="0" role="button" aria-label={aria} {onclick} {onkeydown}>
                        <text class="time" x="8" y={(y + 4).to_string()}>{ time.clone() }</text>
                        { body }
                    </g>
                }
            }
            Row::Mark(m) => {
                let x = l.x_of(m.on);
                let label = labels.mark(m);
                let aria = lang.f(
                    || format!("{time}: {label}. Go to this moment"),
                    || format!("{time}：{label}。跳到这一刻"),
                );
                html! {
                    <g class={classes!("mark", now)} data-time-ms={t.to_string()} tabindex="0" role="button" aria-label={aria} {onclick} {onkeydown}>
                        <text class="time" x="8" y={(y + 4).to_string()}>{ time.clone() }</text>
                        <rect x={(x - 6).to_string()} y={(y - 6).to_string()} width="12" height="12" />
                        <text x={(x + 10).to_string()} y={(y + 4).to_string()}>{ label }</text>
                    </g>
                }
            }
        }
    });
    let legend_y = l.foot_y + 42;
    let legend = [Outcome::Delivered, Outcome::Rejected, Outcome::Dropped]
        .into_iter()
        .zip(0u32..)
        .map(|(o, i)| {
            let y = legend_y + i * 18;
            html! {
                <g class={classes!("arrow", "request", outcome_class(o))}>
                    <line x1="70" y1={y.to_string()} x2="110" y2={y.to_string()} />
                    <text x="120" y={(y + 4).to_string()}>{ labels.outcome(o) }</text>
                </g>
            }
        });
    let mark_y = legend_y + 54;
    html! {
        <section id="p-diagram" class="panel diagram-pane" aria-label={lang.t("Sequence diagram", "时序图")}>
            <h2>{ lang.t("Sequence diagram", "时序图") }</h2>
            <div class="diagram-tools">
                <label>{ lang.t("window: ", "窗口：") }
                    <select aria-label={lang.t("Diagram window: seconds before the time cursor", "时序图窗口：时间游标之前的秒数")} onchange={on_window}>
                        { for WINDOWS_S.iter().map(|s| html! {
                            <option value={s.to_string()} selected={*s == *window_s}>{ lang.f(|| format!("the last {s} s before the cursor"), || format!("时间游标之前的 {s} 秒")) }</option>
                        }) }
                        <option value="0" selected={*window_s == 0}>{ lang.t("from … to … (seconds)", "自定义起止（秒）") }</option>
                    </select>
                </label>
                if *window_s == 0 {
                    <label>{ lang.t("from ", "从 ") }
                        <input class="diagram-from" type="number" min="0" step="0.001" size="7" value={format!("{}", custom.0 as f64 / 1000.0)}
                            aria-label={lang.t("Diagram from (s)", "时序图起点（秒）")} onchange={on_custom(0)} />
                    </label>
                    <label>{ lang.t("to ", "到 ") }
                        <input class="diagram-to" type="number" min="0" step="0.001" size="7" value={format!("{}", custom.1 as f64 / 1000.0)}
                            aria-label={lang.t("Diagram to (s)", "时序图终点（秒）")} onchange={on_custom(1)} />
                    </label>
                    if custom.1 > now_ms {
                        <span class="quiet">{ lang.f(|| format!("(the trace ends at the cursor, {})", labels.time(now_ms)), || format!("（trace 只到时间游标处，{}）", labels.time(now_ms))) }</span>
                    }
                }
                <button class="svg-download" aria-label={lang.t("Download the diagram as SVG", "把时序图下载为 SVG")} onclick={on_svg}>{ lang.t("Download SVG", "下载 SVG") }</button>
                <button class="trace-download" disabled={!can_export} onclick={on_trace}
                    aria-label={lang.t("Download the trace as JSON lines (as kcsim run --trace writes it)", "把 trace 下载为 JSON lines（与 kcsim run --trace 的格式相同）")}
                    title={(!can_export).then(|| lang.t("a lesson's own cluster cannot be saved as a trace", "课程自带的集群不能保存为 trace").to_string())}>
                    { lang.t("Download trace", "下载 trace") }</button>
                <label class="trace-load">{ lang.t("Load trace: ", "载入 trace：") }
                    <input type="file" accept=".jsonl,.json,.txt" aria-label={lang.t("Load a trace file to replay", "载入要重放的 trace 文件")} onchange={on_file} />
                </label>
            </div>
            { status_html }
            <p class="quiet diagram-hint">{ lang.t(
                "Time flows downward. Click an arrow (or focus it and press Enter) to move the time cursor there.",
                "时间自上而下。点击一个箭头（或用键盘聚焦后按 Enter），时间游标就移到那一刻。") }</p>
            <div class="diagram-scroll" ref={scroller.clone()}>
                // The heads stay in view while the rows scroll under them.
                <svg class="sequence heads" width={l.width.to_string()} height={TOP.to_string()} viewBox={format!("0 0 {} {TOP}", l.width)}
                    role="group" aria-label={labels.title(d.from_ms, d.to_ms)}>
                    <rect class="backdrop" width={l.width.to_string()} height={TOP.to_string()} />
                    <text class="title" x="12" y="24">{ labels.title(d.from_ms, d.to_ms) }</text>
                    { for heads }
                </svg>
                <svg class="sequence" width={l.width.to_string()} height={(l.height - TOP).to_string()} viewBox={format!("0 {TOP} {} {}", l.width, l.height - TOP)}>
                    <defs>
                        <marker id="kc-head" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse">
                            <path d="M0,0 L10,5 L0,10 z" />
                        </marker>
                    </defs>
                    { for lives }
                    { for rows }
                    if l.rows.is_empty() {
                        <text x="70" y={(l.foot_y - 12).to_string()}>{ labels.empty() }</text>
                    }
                    if l.not_drawn > 0 {
                        <text class="more" x="70" y={(l.foot_y + 20).to_string()}>{ labels.not_drawn(l.not_drawn) }</text>
                    }
                    { for legend }
                    <g class="mark">
                        <rect x="84" y={(mark_y - 6).to_string()} width="12" height="12" />
                        <text x="120" y={(mark_y + 4).to_string()}>{ labels.legend_mark() }</text>
                    </g>
                </svg>
            </div>
        </section>
    }
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
