//! The large-cluster mode's chart: leaders per broker and offline
//! partitions over time, from the class's first action (the failover and
//! the rebalance as shapes a class can see), drawn as step lines in three
//! stacked SVG layers.

use crate::components::big_cluster::Summary;
use crate::el::{attrs, el, eld, leaf, list, num, prop, s, shared, st, string, text};
use crate::i18n::{use_lang, Lang};
use kcsim_core::controller::event::ElectionType;
use kcsim_core::fact::Fact;
use kcsim_core::summary::{SeriesPoint, SummaryCache};
use kcsim_core::{Action, BrokerId};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The chart's drawing size, in SVG user units (the SVG is stretched to
/// its box; its lines keep their width).
pub const CHART_W: u32 = 560;
/// See [`CHART_W`].
pub const CHART_H: u32 = 110;

/// One step line of the chart: `points` (time, value), in time order, from
/// `t0` at the left to `t1` at the right and from 0 at the bottom to `max`
/// near the top, in whole user units. Each column of the drawing gets at
/// most three vertical strokes that cover every value its points take (what
/// a stroke per point would have covered) and end at its last value, and a
/// value that does not change draws nothing: however many points the series
/// holds, a line is at most a few commands per column, all integers.
pub fn step_path(points: impl Iterator<Item = (u64, u32)>, t0: u64, t1: u64, max: u32) -> String {
    step_path_to(points, t0, t1, max, t1)
}

/// [`step_path`] ending at time `end` instead of the right edge (the part
/// of a line before a later part drawn on its own).
pub fn step_path_to(
    points: impl Iterator<Item = (u64, u32)>,
    t0: u64,
    t1: u64,
    max: u32,
    end: u64,
) -> String {
    let span = t1.saturating_sub(t0).max(1);
    let x = |ms: u64| column(t0, span, ms);
    let y = |v: u32| row(v, max);
    let mut d = String::new();
    // The column being drawn: its x, the y the line entered it at, the
    // lowest and highest y its points reach, and the last.
    let mut col: Option<(u32, u32, u32, u32, u32)> = None;
    let flush = |d: &mut String, (cx, entry, lo, hi, last): (u32, u32, u32, u32, u32)| {
        if lo == hi && last == entry {
            return;
        }
        push_num(d, 'H', cx);
        let mut at = entry;
        for to in [lo, hi, last] {
            if to != at {
                push_num(d, 'V', to);
                at = to;
            }
        }
    };
    for (ms, v) in points {
        let (px, py) = (x(ms), y(v));
        match col {
            None => {
                push_num(&mut d, 'M', px);
                push_num(&mut d, ',', py);
                col = Some((px, py, py, py, py));
            }
            Some((cx, entry, lo, hi, _)) if cx == px => {
                col = Some((cx, entry, lo.min(py), hi.max(py), py));
            }
            Some(c) => {
                flush(&mut d, c);
                let entry = c.4;
                col = Some((px, entry, entry.min(py), entry.max(py), py));
            }
        }
    }
    if let Some(c) = col {
        flush(&mut d, c);
    } else {
        // No point: no line (a path must start with a move).
        return d;
    }
    push_num(&mut d, 'H', x(end));
    d
}

/// The drawing's row of value `v` on a scale from 0 to `max`: 0 at
/// CHART_H − 6, `max` (and above) at 3. (A line at 0 stands clear of the
/// frame: at CHART_H − 2 a dead broker's line ran along the bottom border,
/// seen as a second border in the dark theme.)
pub fn row(v: u32, max: u32) -> u32 {
    let max = u64::from(max.max(1));
    let v = u64::from(v).min(max);
    (u64::from(CHART_H - 6) - (v * u64::from(CHART_H - 9) + max / 2) / max) as u32
}

/// The drawing's column of time `ms` on an axis from `t0` over `span` ms
/// (the left edge before `t0`, the right one past its end).
fn column(t0: u64, span: u64, ms: u64) -> u32 {
    // (Virtual times are far below u64::MAX / CHART_W.)
    (ms.saturating_sub(t0)
        .min(span)
        .saturating_mul(u64::from(CHART_W))
        / span.max(1)) as u32
}

/// The top of a chart's scale for values up to `peak`: the smallest of 1 to
/// 10, then of 10, 12, 15, 20, 25, 30, 40, 50, 60, 80 times a power of ten,
/// that holds it. The scale changes only when a value passes its top (a
/// failover raising the busiest broker's leaders one by one does not draw
/// every line again at each), and its top is a round number to read.
pub fn nice_max(peak: u32) -> u32 {
    if peak <= 10 {
        return peak.max(1);
    }
    let mut unit: u64 = 1;
    loop {
        for k in [10u64, 12, 15, 20, 25, 30, 40, 50, 60, 80] {
            let top = k.saturating_mul(unit);
            if top >= u64::from(peak) {
                return u32::try_from(top).unwrap_or(u32::MAX);
            }
        }
        unit = unit.saturating_mul(10);
    }
}

/// `c` and `n` in decimal (the chart's paths hold thousands of numbers: this
/// skips the formatting machinery).
fn push_num(d: &mut String, c: char, n: u32) {
    d.push(c);
    d.push_str(kcsim_core::ids::decimal(n, &mut [0u8; 10]));
}

/// The chart's time span for `elapsed` ms since its first point: the
/// smallest of 1, 1.5, 2, 3, 4, 6, 8, 10, 15 … s that holds it. Between two
/// spans the drawing's time axis stands still (the lines grow to the right,
/// a column at a time), so a line is drawn again only when its points change.
/// Each span is at most 1.5 times the one before: right after a step the
/// lines fill two thirds of the width or more (1, 2, 5 left half of it empty),
/// for seven steps a decade instead of three.
pub fn chart_span(elapsed: u64) -> u64 {
    let mut unit: u64 = 100;
    loop {
        for k in [10, 15, 20, 30, 40, 60, 80] {
            let span = unit.saturating_mul(k);
            if elapsed <= span || span == u64::MAX {
                return span;
            }
        }
        unit = unit.saturating_mul(10);
    }
}

/// What the chart's drawing depends on besides the language: the series'
/// version and base, its first time and span, the scales, the last action
/// and the column of now.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ChartAt {
    /// [`SummaryCache::series_version`].
    pub version: u64,
    /// [`SummaryCache::series_base`].
    pub base: u64,
    /// The series' first time (ms): the left edge.
    pub t0: u64,
    /// [`chart_span`]: the right edge is `t0 + span`.
    pub span: u64,
    /// The drawing's column of now (the lines are hidden right of it).
    pub now_x: u32,
    /// The last action's time (ms; `t0` without one): the lines before it
    /// are drawn once, those after it as they grow.
    pub split: u64,
    /// The leaders' and the offline partitions' scales ([`nice_max`]).
    pub max_l: u32,
    /// See [`ChartAt::max_l`].
    pub max_o: u32,
    /// How many actions the series marks: a second action at the last one's
    /// millisecond (two brokers started at once) moves no other field, and
    /// its mark and label must still be drawn.
    pub marks: usize,
    /// The balanced level of leaders, fewest and most
    /// ([`kcsim_core::summary::Counts::balanced_leaders`]: a running
    /// broker's preferred share), inside the leaders' scale.
    pub balanced: Option<(u32, u32)>,
}

impl ChartAt {
    /// The chart of `cache`'s series at `now_ms`.
    pub fn of(cache: &SummaryCache, now_ms: u64) -> ChartAt {
        let t0 = cache.series.first().map_or(0, |p| p.time_ms);
        let span = chart_span(now_ms.saturating_sub(t0));
        let (peak_l, peak_o) = cache.series_peaks();
        let balanced = cache.counts.balanced_leaders();
        // The actions marked: how many, and the last one's time.
        let (marks, last_action) = cache
            .series_actions()
            .fold((0, None), |(n, _), t| (n + 1, Some(t)));
        ChartAt {
            version: cache.series_version,
            base: cache.series_base,
            t0,
            span,
            now_x: column(t0, span, now_ms),
            split: last_action.unwrap_or(t0).max(t0),
            max_l: nice_max(peak_l.max(balanced.map_or(0, |b| b.1))),
            max_o: nice_max(peak_o),
            marks,
            balanced,
        }
    }
}

/// Properties of [`Chart`].
#[derive(Properties, Debug)]
pub struct ChartProps {
    /// The core's summary.
    pub summary: Summary,
    /// Where the drawing stands.
    pub at: ChartAt,
    /// The broker picked in the grid, and its line's place (its place in
    /// the counts): drawn over the others.
    pub selected: Option<(BrokerId, usize)>,
}

/// The chart is drawn again only when its drawing changes (not at every
/// tick: a hundred lines of up to a few thousand commands each).
impl PartialEq for ChartProps {
    fn eq(&self, o: &ChartProps) -> bool {
        Rc::ptr_eq(&self.summary.0, &o.summary.0) && self.at == o.at && self.selected == o.selected
    }
}

/// A summary cache compared by identity.
struct SameCache(Rc<RefCell<SummaryCache>>);

impl PartialEq for SameCache {
    fn eq(&self, o: &SameCache) -> bool {
        Rc::ptr_eq(&self.0, &o.0)
    }
}

/// One part of the chart's lines (before the last action, or since).
struct ChartLines {
    /// One step line per broker (none: an empty string).
    leaders: Vec<AttrValue>,
    /// Offline partitions.
    offline: AttrValue,
}

/// The lines of `series` from `from` (a time in ms) on, starting with the
/// value before it, to `end` (ms; the right edge: `t1`), or, with `before`,
/// the lines of the points before `from`, ending there.
fn chart_lines(series: &[SeriesPoint], at: &ChartAt, from: u64, before: bool) -> ChartLines {
    let t1 = at.t0 + at.span.max(1);
    let cut = series.partition_point(|p| p.time_ms < from);
    let (part, carry, end): (&[SeriesPoint], Option<&SeriesPoint>, u64) = if before {
        (&series[..cut], None, from)
    } else {
        (
            &series[cut..],
            cut.checked_sub(1).and_then(|i| series.get(i)),
            t1,
        )
    };
    let line = |val: &dyn Fn(&SeriesPoint) -> u32, max: u32| {
        AttrValue::from(step_path_to(
            carry
                .map(|p| (from, val(p)))
                .into_iter()
                .chain(part.iter().map(|p| (p.time_ms, val(p)))),
            at.t0,
            t1,
            max,
            end,
        ))
    };
    let brokers = series.last().map_or(0, |p| p.leaders.len());
    ChartLines {
        leaders: (0..brokers)
            .map(|b| line(&|p| p.leaders.get(b).copied().unwrap_or(0), at.max_l))
            .collect(),
        offline: line(&|p| p.offline, at.max_o),
    }
}

/// An action's mark on the chart in a word or two and the broker it acted
/// on (the mark's title says it in full).
fn mark_word(a: &Action, lang: Lang) -> (&'static str, Option<BrokerId>) {
    let (en, zh, b): (&'static str, &'static str, Option<BrokerId>) = match a {
        Action::KillBroker { broker } => ("kill -9", "kill -9", Some(*broker)),
        Action::ShutdownBroker { broker } => ("stop", "停止", Some(*broker)),
        Action::StartBroker { broker } => ("start", "启动", Some(*broker)),
        Action::PauseBroker { broker, .. } => ("pause", "暂停", Some(*broker)),
        Action::ExpireSession { broker } => ("expire", "会话过期", Some(*broker)),
        Action::SlowBroker { broker, .. } => ("slow", "减慢", Some(*broker)),
        Action::HealBroker { broker } => ("heal", "恢复", Some(*broker)),
        Action::PreferredElection { .. }
        | Action::ElectLeaders {
            election_type: ElectionType::Preferred,
            ..
        } => ("preferred election", "优先副本选举", None),
        Action::ElectLeaders { .. } => ("unclean election", "unclean 选举", None),
        Action::ReassignPartitions { .. } => ("reassign", "重分配", None),
        // (Rare in a large cluster; the title says which.)
        _ => ("admin", "管理", None),
    };
    (lang.t(en, zh), b)
}

/// How many columns apart two actions of one kind may be and still share a
/// label: a class clicking "start" on two brokers one after the other while
/// the page plays lands them a column or two apart once the span is a
/// minute, and one label for both needs one lane, not two.
const LABEL_GROUP_COLUMNS: u32 = 8;

/// The labels of the chart's marks (column, action, in order): the actions
/// of one kind within `LABEL_GROUP_COLUMNS` of the first in one label
/// ("start #3 #7", two brokers started together), each label with the
/// first one's column, its text and its title (the actions in full).
pub fn mark_labels(marks: &[(u32, Action)], lang: Lang) -> Vec<(u32, String, String)> {
    let mut out: Vec<(u32, String, String)> = Vec::new();
    let mut last: Option<(u32, &str)> = None;
    for (x, a) in marks {
        let (word, b) = mark_word(a, lang);
        let full = crate::i18n::facts::fact_text(&Fact::UserAction(a.clone()), lang);
        let near =
            |(lx, lw): (u32, &str)| lw == word && x.saturating_sub(lx) <= LABEL_GROUP_COLUMNS;
        match out.last_mut() {
            Some((_, text, title)) if last.is_some_and(near) => {
                if let Some(b) = b {
                    text.push_str(&format!(" #{b}"));
                }
                title.push_str(lang.t("; ", "；"));
                title.push_str(&full);
            }
            _ => out.push((
                *x,
                b.map_or_else(|| word.to_string(), |b| format!("{word} #{b}")),
                full,
            )),
        }
        if !last.is_some_and(near) {
            last = Some((*x, word));
        }
    }
    out
}

/// Lanes of action labels above the chart.
const LANES: usize = 3;

/// Where each label goes: for labels of `widths` (in the drawing's units)
/// at columns `xs` (in order), the lane of each (none: no room) and
/// whether it hangs left of its mark (at the right edge). A label starts
/// at its mark and is put in the lowest lane where it overlaps no other.
pub fn label_lanes(xs: &[u32], widths: &[u32]) -> Vec<Option<(usize, bool)>> {
    let mut ends = [0u32; LANES];
    xs.iter()
        .zip(widths)
        .map(|(&x, &w)| {
            let left = x + w > CHART_W;
            let (from, to) = if left {
                (x.saturating_sub(w), x)
            } else {
                (x, x + w)
            };
            let lane = ends.iter().position(|&e| e <= from)?;
            ends[lane] = to.saturating_add(3);
            Some((lane, left))
        })
        .collect()
}

/// A label's width in the drawing's units, at the smallest width the chart
/// is laid out at (a 1024-px window: 340 px for 560 units), in the label's
/// font (0.72 rem: about 7 px a Latin letter, 12 a Chinese one), with its
/// padding.
fn label_width(label: &str) -> u32 {
    let px: u32 = 6 + label
        .chars()
        .map(|c| if c.is_ascii() { 7 } else { 12 })
        .sum::<u32>();
    px * CHART_W / 340
}

/// Seconds, as the chart's axis writes them.
fn secs(ms: u64) -> String {
    if ms % 1000 == 0 {
        format!("{}", ms / 1000)
    } else {
        format!("{:.1}", ms as f64 / 1000.0)
    }
}

/// Leaders per broker and offline partitions over time, as step lines,
/// from the series' first time (the class's first action, else the first
/// look; or the run's last fork) over a span that grows in steps; what is
/// right of now is hidden. The actions taken are marked.
#[component]
pub fn Chart(props: &ChartProps) -> Html {
    let lang = use_lang();
    let at = props.at;
    let ChartAt {
        t0, span, now_x, ..
    } = at;
    let t1 = t0 + span.max(1);
    // The lines are made again only when their points, the span or the
    // scales change (now moving right moves the cover alone); a version is
    // a cache's own, so the cache (a new one with each cluster) is part of
    // the key. The lines before the last action are made once (a
    // 200,000-partition start-up's thousand points, a hundred lines, made
    // again at every frame of the failover that follows cost the page
    // frames: the reason the chart once started again at every action);
    // those since it as they grow.
    let cache_key = || SameCache(props.summary.0.clone());
    let past = use_memo(
        (
            cache_key(),
            at.base,
            t0,
            span,
            at.split,
            at.max_l,
            at.max_o,
            at.marks,
        ),
        |_| {
            let cache = props.summary.0.borrow();
            let marks: Vec<(u32, Action)> = cache
                .series_marks()
                // (Inside the frame: a mark at an edge is seen.)
                .map(|(ms, a)| (column(t0, span, ms).clamp(3, CHART_W - 3), a.clone()))
                .collect();
            (chart_lines(&cache.series, &at, at.split, true), marks)
        },
    );
    let recent = use_memo(
        (cache_key(), at.version, span, at.split, at.max_l, at.max_o),
        |_| chart_lines(&props.summary.0.borrow().series, &at, at.split, false),
    );
    let (offline_now, peak) = {
        let cache = props.summary.0.borrow();
        (
            cache.series.last().map_or(0, |p| p.offline),
            cache.series_peaks().1,
        )
    };
    let (max_l, brokers) = (at.max_l, recent.leaders.len());
    let (w, h) = (CHART_W, CHART_H);
    // A line's part before the last action and its part since, each a path.
    let paths = |class: &'static str, ds: &[AttrValue]| -> Vec<Html> {
        ds.iter()
            .map(|d| leaf("path", &["d", "class"], Box::new([shared(d), s(class)])))
            .collect()
    };
    // The actions, as dashed vertical lines (one per column).
    let marked = || -> Vec<Html> {
        let mut xs: Vec<u32> = past.1.iter().map(|(x, _)| *x).collect();
        xs.dedup();
        xs.iter()
            .map(|x| {
                leaf(
                    "path",
                    &["d", "class"],
                    Box::new([st(format!("M{x},0V{h}")), s("mark")]),
                )
            })
            .collect()
    };
    // And what each was, above the chart: a word and the broker's id, the
    // whole action as its title, in lanes so that no two overlap.
    let labels = mark_labels(&past.1, lang);
    let xs: Vec<u32> = labels.iter().map(|l| l.0).collect();
    let widths: Vec<u32> = labels.iter().map(|l| label_width(&l.1)).collect();
    let lanes = label_lanes(&xs, &widths);
    let used = lanes
        .iter()
        .flatten()
        .map(|(l, _)| l + 1)
        .max()
        .unwrap_or(0);
    let mark_labels = eld(
        "div",
        &["class"],
        Box::new([s([
            "chart-marks",
            "chart-marks lanes-1",
            "chart-marks lanes-2",
            "chart-marks lanes-3",
        ][used.min(LANES)])]),
        list(
            labels
                .into_iter()
                .zip(lanes)
                .filter_map(|((x, label, title), lane)| {
                    let (lane, left) = lane?;
                    // (Per mille of the width, through the CSSOM.)
                    let at = u64::from(x) * 1000 / u64::from(CHART_W);
                    let (side, at) = if left {
                        ("right", 1000 - at)
                    } else {
                        ("left", at)
                    };
                    let place = format!("{side}: {}.{}%", at / 10, at % 10);
                    Some(eld(
                        "span",
                        &["style", "title", "class"],
                        Box::new([
                            prop(place),
                            st(title),
                            s(match (lane, left) {
                                (0, false) => "mark-label lane-0",
                                (1, false) => "mark-label lane-1",
                                (_, false) => "mark-label lane-2",
                                (0, true) => "mark-label lane-0 left",
                                (1, true) => "mark-label lane-1 left",
                                (_, true) => "mark-label lane-2 left",
                            }),
                        ]),
                        string(label),
                    ))
                })
                .collect(),
        ),
    );
    // The picked broker's line, its part before the last action and since.
    let picked = props
        .selected
        .and_then(|(_, i)| Some((past.0.leaders.get(i)?, recent.leaders.get(i)?)));
    let picked_said =
        props
            .selected
            .filter(|(_, i)| *i < brokers)
            .map_or_else(String::new, |(id, _)| {
                lang.f(
                    || format!("; bold: broker {id}"),
                    || format!("；粗线：broker\u{a0}{id}"),
                )
            });
    // The balanced level: a pale band at a running broker's preferred
    // share (two when the shares differ).
    let (even, even_said) = at.balanced.map_or((Vec::new(), String::new()), |(lo, hi)| {
        let levels = if lo == hi { vec![lo] } else { vec![lo, hi] };
        let said = if lo == hi {
            lo.to_string()
        } else {
            format!("{lo}–{hi}")
        };
        (
            levels
                .into_iter()
                .map(|v| {
                    leaf(
                        "path",
                        &["d", "class"],
                        Box::new([st(format!("M0,{}H{w}", row(v, max_l))), s("even")]),
                    )
                })
                .collect(),
            lang.f(
                || format!("; green band: a running broker's preferred share, {said}, what a preferred election restores"),
                || format!("；绿色带：运行中 broker 的优先副本份额 {said}，即优先副本选举恢复到的水平"),
            ),
        )
    });
    let marks_said = if past.1.is_empty() {
        String::new()
    } else {
        lang.t(
            "; dashed: the actions taken, named above (#n: broker n)",
            "；虚线：你的操作，名称在图上方（#n：broker n）",
        )
        .to_string()
    };
    // The lines run to the right edge; a card-coloured cover hides them
    // right of now, so that moving now moves one rectangle.
    let future = leaf(
        "rect",
        &["x", "y", "width", "height", "class"],
        Box::new([
            num(u64::from(now_x)),
            s("0"),
            num(u64::from(w.saturating_sub(now_x))),
            num(u64::from(h)),
            s("future"),
        ]),
    );
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last. A chart is three drawings stacked, each its
    // own layer for the browser (CSS `will-change`): the lines before the
    // last action (a 100-broker start-up's, long), the picked broker's
    // part of them, and what changes as time runs (the lines since, the
    // cover of the future). The browser then paints again only the layer
    // that changed: one stack, a hundred long lines painted again at every
    // frame of a failover, cost frames at 100 x 200,000.
    let layer = |class: &'static str, paths: Vec<Html>| {
        eld(
            "svg",
            &["viewBox", "preserveAspectRatio", "aria-hidden", "class"],
            Box::new([st(format!("0 0 {w} {h}")), s("none"), s("true"), s(class)]),
            list(paths),
        )
    };
    // The scale's top and zero written at the left edge (the eye reads a
    // line's height against them).
    let chart = |class: &'static str, aria: String, top: u32, layers: [Html; 3]| {
        let mut children: Vec<Html> = layers.into();
        children.push(el(
            "span",
            attrs!("aria-hidden" = "true", "class" = "y-top"),
            string(top.to_string()),
        ));
        children.push(el(
            "span",
            attrs!("aria-hidden" = "true", "class" = "y-zero"),
            text("0"),
        ));
        eld(
            "div",
            &["role", "aria-label", "class"],
            Box::new([s("img"), st(aria), s(class)]),
            list(children),
        )
    };
    eld(
        "section",
        &["id", "aria-label", "class"],
        Box::new([
            s("p-chart"),
            s(lang.t(
                "Leaders per broker and offline partitions over time",
                "每个 broker 的 leader 数与离线分区数随时间变化",
            )),
            s("panel big-chart"),
        ]),
        list(vec![
            el("h2", &[], text(lang.t("Over time", "随时间的变化"))),
            el(
                "figure",
                &[],
                list(vec![
                    el(
                        "figcaption",
                        &[],
                        string(lang.f(
                            || {
                                format!(
                                    "leaders per broker (one line each, 0 to {max_l}{even_said}{picked_said}{marks_said})"
                                )
                            },
                            || {
                                format!(
                                    "每个 broker 的 leader 数（每条线一个 broker，0 到 {max_l}{even_said}{picked_said}{marks_said}）"
                                )
                            },
                        )),
                    ),
                    mark_labels,
                    chart(
                        "chart leaders",
                        lang.f(
                            || format!("{brokers} lines, from {} s to now", secs(t0)),
                            || format!("{brokers} 条线，从 {} 秒到现在", secs(t0)),
                        ),
                        max_l,
                        [
                            layer(
                                "layer past",
                                paths("line", &past.0.leaders)
                                    .into_iter()
                                    .chain(marked())
                                    .collect(),
                            ),
                            layer(
                                "layer picked",
                                even.into_iter()
                                    .chain(picked.map_or_else(Vec::new, |(old, _)| {
                                        paths("line picked", std::slice::from_ref(old))
                                    }))
                                    .collect(),
                            ),
                            layer(
                                "layer recent",
                                paths("line", &recent.leaders)
                                    .into_iter()
                                    .chain(picked.map_or_else(Vec::new, |(_, new)| {
                                        paths("line picked", std::slice::from_ref(new))
                                    }))
                                    .chain([future.clone()])
                                    .collect(),
                            ),
                        ],
                    ),
                ]),
            ),
            el(
                "figure",
                &[],
                list(vec![
                    el(
                        "figcaption",
                        &[],
                        string(lang.f(
                            || format!("offline partitions (now {offline_now}, peak {peak})"),
                            || format!("离线分区（当前 {offline_now}，峰值 {peak}）"),
                        )),
                    ),
                    chart(
                        "chart offline",
                        lang.f(
                            || format!("offline partitions: now {offline_now}, peak {peak}"),
                            || format!("离线分区：当前 {offline_now}，峰值 {peak}"),
                        ),
                        at.max_o,
                        [
                            layer(
                                "layer past",
                                paths("line offline", std::slice::from_ref(&past.0.offline))
                                    .into_iter()
                                    .chain(marked())
                                    .collect(),
                            ),
                            layer("layer picked", Vec::new()),
                            layer(
                                "layer recent",
                                paths("line offline", std::slice::from_ref(&recent.offline))
                                    .into_iter()
                                    .chain([future])
                                    .collect(),
                            ),
                        ],
                    ),
                    el(
                        "div",
                        attrs!("aria-hidden" = "true", "class" = "chart-axis"),
                        list(
                            // The ends and the quarters between.
                            (0..=4u64)
                                .map(|q| t0 + (t1 - t0) * q / 4)
                                .map(|ms| {
                                    let at = secs(ms);
                                    el(
                                        "span",
                                        &[],
                                        string(lang.f(|| format!("{at} s"), || format!("{at} 秒"))),
                                    )
                                })
                                .collect(),
                        ),
                    ),
                ]),
            ),
        ]),
    )
}

#[cfg(test)]
mod chart_tests {
    use super::{
        chart_lines, chart_span, label_lanes, label_width, mark_labels, nice_max, push_num,
        step_path, ChartAt, CHART_H, CHART_W, LABEL_GROUP_COLUMNS, LANES,
    };
    use crate::i18n::Lang;
    use kcsim_core::summary::{BrokerCounts, SeriesPoint, Shape, SummaryCache};
    use kcsim_core::timeline::Timeline;
    use kcsim_core::{Action, BrokerId, SimTime};
    use std::collections::BTreeSet;

    #[test]
    fn action_labels_stay_in_the_frame_and_never_overlap_in_a_lane() {
        // Two actions in one column, one near it, one at the right edge.
        let xs = [3, 3, 10, 300, 555];
        let widths = [100, 100, 100, 80, 80];
        assert_eq!(
            label_lanes(&xs, &widths),
            [
                Some((0, false)),
                Some((1, false)),
                Some((2, false)),
                Some((0, false)),
                Some((0, true))
            ]
        );
        // A fourth in a crowded column has no room.
        assert_eq!(label_lanes(&[5, 5, 5, 5], &[50; 4])[3], None);
        // Many actions of many widths: in a lane, no two labels meet.
        let mut seed = 3u64;
        let mut next = |n: u32| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as u32 % n
        };
        for _ in 0..200 {
            let mut xs: Vec<u32> = (0..12).map(|_| 3 + next(CHART_W - 5)).collect();
            xs.sort_unstable();
            let widths: Vec<u32> = (0..12).map(|_| 30 + next(150)).collect();
            let lanes = label_lanes(&xs, &widths);
            let mut placed: Vec<(usize, u32, u32)> = Vec::new();
            for ((x, w), lane) in xs.iter().zip(&widths).zip(&lanes) {
                let Some((lane, left)) = *lane else { continue };
                assert!(lane < LANES);
                let (a, b) = if left { (x - w, *x) } else { (*x, x + w) };
                assert!(b <= CHART_W, "{x} {w} {left}");
                assert!(
                    placed
                        .iter()
                        .all(|&(l, c, d)| l != lane || b <= c || d <= a),
                    "{x}+{w} in lane {lane} meets {placed:?}"
                );
                placed.push((lane, a, b));
            }
            assert!(lanes[0].is_some(), "the first always shows");
        }
        // What each was, with the broker's id, in both languages.
        let kill = kcsim_core::Action::KillBroker {
            broker: kcsim_core::BrokerId(7),
        };
        let stop = kcsim_core::Action::ShutdownBroker {
            broker: kcsim_core::BrokerId(12),
        };
        let start = |b| kcsim_core::Action::StartBroker {
            broker: kcsim_core::BrokerId(b),
        };
        let marks = [
            (3, kill.clone()),
            (40, stop.clone()),
            (90, start(7)),
            (90, start(12)),
            (90, kill),
            (95, start(1)),
        ];
        let text = |lang| -> Vec<(u32, String)> {
            mark_labels(&marks, lang)
                .into_iter()
                .map(|(x, t, _)| (x, t))
                .collect()
        };
        let pairs = |v: &[(u32, &str)]| -> Vec<(u32, String)> {
            v.iter().map(|(x, t)| (*x, t.to_string())).collect()
        };
        assert_eq!(
            text(Lang::En),
            pairs(&[
                (3, "kill -9 #7"),
                (40, "stop #12"),
                (90, "start #7 #12"),
                (90, "kill -9 #7"),
                (95, "start #1")
            ])
        );
        assert_eq!(text(Lang::Zh)[1].1, "停止 #12");
        assert_eq!(
            mark_labels(&marks, Lang::En)[2].2,
            "start broker 7; start broker 12"
        );
        assert_eq!(
            mark_labels(&marks, Lang::Zh)[1].2,
            "在 broker 12 上执行 kafka-server-stop.sh"
        );
        assert!(label_width("停止 #12") > label_width("stop #1"));
        // Clicked one after the other while the page plays, a few columns
        // apart: one label at the first's column; farther apart, two.
        let spread = [
            (100, start(2)),
            (100 + LABEL_GROUP_COLUMNS, start(3)),
            (101 + 2 * LABEL_GROUP_COLUMNS, start(4)),
        ];
        let got: Vec<(u32, String)> = mark_labels(&spread, Lang::En)
            .into_iter()
            .map(|(x, t, _)| (x, t))
            .collect();
        assert_eq!(
            got,
            pairs(&[
                (100, "start #2 #3"),
                (101 + 2 * LABEL_GROUP_COLUMNS, "start #4")
            ])
        );
    }

    #[test]
    fn the_leaders_scale_holds_the_balanced_level_the_core_gives() {
        // A broker just back leads nothing yet, the other fewer than the
        // share it will lead after a preferred election: the band is still
        // drawn inside the scale.
        let mut c = SummaryCache::default();
        c.counts.brokers = [(0, true, 30), (1, true, 70), (2, false, 50)]
            .iter()
            .map(|&(id, up, preferred)| BrokerCounts {
                id: BrokerId(id),
                up,
                leader: 0,
                follower: 0,
                offline: 0,
                under_replicated: 0,
                under_min_isr: 0,
                preferred,
            })
            .collect();
        c.series.push(SeriesPoint {
            time_ms: 1_000,
            leaders: vec![12, 0, 0],
            offline: 0,
        });
        let at = ChartAt::of(&c, 2_000);
        assert_eq!(at.balanced, Some((30, 70)), "the running brokers' shares");
        assert_eq!(at.max_l, 80);
        c.counts.brokers.iter_mut().for_each(|b| b.up = false);
        let at = ChartAt::of(&c, 2_000);
        assert_eq!((at.balanced, at.max_l), (None, 12));
    }

    #[test]
    fn a_scale_s_top_is_a_round_number_at_or_above_the_peak_and_changes_seldom() {
        let mut tops = Vec::new();
        for peak in 0..=250_000u32 {
            let top = nice_max(peak);
            assert!(top >= peak.max(1), "{peak} -> {top}");
            // Round: 1 to 10, or two leading digits of 10 12 15 20 25 30
            // 40 50 60 80.
            let mut lead = top;
            while lead >= 100 {
                assert_eq!(lead % 10, 0, "{top}");
                lead /= 10;
            }
            assert!(
                top <= 10 || [10, 12, 15, 20, 25, 30, 40, 50, 60, 80].contains(&lead),
                "{top}"
            );
            // Not far above: less than a third more, past 10.
            assert!(
                peak <= 10 || u64::from(top) * 3 < u64::from(peak) * 4,
                "{peak} -> {top}"
            );
            tops.push(top);
        }
        assert!(tops.windows(2).all(|w| w[0] <= w[1]));
        tops.dedup();
        assert!(tops.len() < 60, "{} scales for 250,000 values", tops.len());
    }

    #[test]
    fn a_line_drawn_in_two_parts_covers_what_it_covers_drawn_whole() {
        // Points at every few ms, values going up and down, some sharing a
        // column of the drawing.
        let series: Vec<SeriesPoint> = (0..400u64)
            .map(|i| SeriesPoint {
                time_ms: 1_000 + i * 37 + (i % 3),
                leaders: vec![((i * 7) % 23) as u32, (i / 10) as u32],
                offline: ((i * 13) % 9) as u32,
            })
            .collect();
        for split in [1_000, 1_001, 3_700, 5_555, 9_990, 15_000, 15_801, 16_000] {
            let at = ChartAt {
                version: 0,
                base: 0,
                t0: 1_000,
                span: chart_span(15_000),
                now_x: CHART_W,
                split,
                max_l: 40,
                max_o: 10,
                marks: 0,
                balanced: None,
            };
            let whole = chart_lines(&series, &at, at.t0, false);
            let past = chart_lines(&series, &at, split, true);
            let recent = chart_lines(&series, &at, split, false);
            for b in 0..2 {
                let two: BTreeSet<(u32, u32)> = covered(&past.leaders[b])
                    .union(&covered(&recent.leaders[b]))
                    .copied()
                    .collect();
                assert_eq!(two, covered(&whole.leaders[b]), "split {split}, line {b}");
            }
            let two: BTreeSet<(u32, u32)> = covered(&past.offline)
                .union(&covered(&recent.offline))
                .copied()
                .collect();
            assert_eq!(two, covered(&whole.offline), "split {split}");
        }
    }

    #[test]
    fn after_an_action_the_lines_before_it_are_made_again_only_when_span_or_scale_change() {
        // Kafka: onBrokerFailure moves a dead broker's leaderships to other
        // replicas, one refresh of the page after another; the lines of
        // the first failure, before the second kill, stay as drawn.
        let (mut t, mut c) = looked_at_until(2, 300, 30_000);
        // The class's first action (the chart starts there): a kill.
        let kill_at = kill_now(&mut t, &mut c, 2);
        while t.now() < kill_at.plus_ms(30_000) && t.step() {
            c.refresh(&t);
        }
        // The next: a kill of another broker, while the first is still down.
        let next_at = kill_now(&mut t, &mut c, 4);
        let mut ats = vec![ChartAt::of(&c, next_at.as_ms())];
        while t.now() < next_at.plus_ms(40_000) && t.step() {
            c.refresh(&t);
            ats.push(ChartAt::of(&c, t.now().as_ms()));
        }
        assert!(ats.iter().all(|a| a.split == next_at.as_ms()));
        assert_eq!(ats.first().map(|a| a.t0), Some(kill_at.as_ms()));
        assert!(
            c.series
                .iter()
                .any(|p| p.time_ms < next_at.as_ms() && p.offline > 0),
            "the first failure kept"
        );
        assert!(
            c.series
                .iter()
                .any(|p| p.time_ms > next_at.as_ms() && p.offline > 0),
            "the second seen"
        );
        let key = |a: &ChartAt| (a.base, a.t0, a.span, a.split, a.max_l, a.max_o, a.marks);
        let mut past: Vec<_> = ats.iter().map(key).collect();
        past.dedup();
        let mut versions: Vec<u64> = ats.iter().map(|a| a.version).collect();
        versions.dedup();
        let mut spans: Vec<u64> = ats.iter().map(|a| a.span).collect();
        spans.dedup();
        let mut scales: Vec<(u32, u32)> = ats.iter().map(|a| (a.max_l, a.max_o)).collect();
        scales.dedup();
        assert!(versions.len() > 20, "{} versions", versions.len());
        assert!(
            past.len() <= spans.len() + scales.len(),
            "{} drawings of the start-up for {} spans and {} scales",
            past.len(),
            spans.len(),
            scales.len()
        );
        assert!(scales.len() <= 4, "{scales:?}");
    }

    #[test]
    fn a_second_action_at_the_last_one_s_millisecond_is_marked_too() {
        // Kafka: each kafka-server-start.sh starts its own broker; a class
        // starting two at one paused moment sees two starts. The marks are
        // made with the lines before the last action, again only when the
        // drawing's key moves: the second action must move it.
        let (mut t, mut c) = looked_at_until(1, 60, 10_000);
        let now = kill_now(&mut t, &mut c, 1);
        let one = ChartAt::of(&c, now.as_ms());
        assert_eq!(kill_now(&mut t, &mut c, 2), now);
        let two = ChartAt::of(&c, now.as_ms());
        assert_eq!(
            (one.base, one.t0, one.span, one.split),
            (two.base, two.t0, two.span, two.split)
        );
        assert_eq!((one.marks, two.marks), (1, 2));
        assert_eq!(c.series_marks().count(), 2);
    }

    /// A 6-broker cluster of `topics` x `partitions` at RF 3 run to
    /// `until_ms`, its summary refreshed at every step (as the page looks).
    fn looked_at_until(topics: u32, partitions: u32, until_ms: u64) -> (Timeline, SummaryCache) {
        let shape = Shape {
            brokers: 6,
            topics,
            partitions,
            replication_factor: 3,
        };
        let mut t = Timeline::new(&shape.scenario().expect("a valid shape"));
        let mut c = SummaryCache::default();
        while t.now() < SimTime(until_ms) && t.step() {
            c.refresh(&t);
        }
        (t, c)
    }

    /// A kill -9 of broker `b` now, as the page's button does it (a look
    /// right after); when.
    fn kill_now(t: &mut Timeline, c: &mut SummaryCache, b: u32) -> SimTime {
        let now = t.now();
        t.insert(
            now,
            Action::KillBroker {
                broker: BrokerId(b),
            },
        )
        .expect("a kill now");
        c.refresh(t);
        now
    }

    /// The points of the drawing a path of M, H and V commands covers.
    fn covered(d: &str) -> BTreeSet<(u32, u32)> {
        let mut out = BTreeSet::new();
        let (mut x, mut y) = (0u32, 0u32);
        let mut rest = d;
        while let Some(c) = rest.chars().next() {
            let end = rest[1..]
                .find(|ch: char| ch.is_ascii_alphabetic())
                .map_or(rest.len(), |i| i + 1);
            let arg = &rest[1..end];
            match c {
                'M' => {
                    let (a, b) = arg.split_once(',').expect("M x,y");
                    (x, y) = (a.parse().expect("x"), b.parse().expect("y"));
                    out.insert((x, y));
                }
                'H' => {
                    let to: u32 = arg.parse().expect("x");
                    for k in x.min(to)..=x.max(to) {
                        out.insert((k, y));
                    }
                    x = to;
                }
                'V' => {
                    let to: u32 = arg.parse().expect("y");
                    for k in y.min(to)..=y.max(to) {
                        out.insert((x, k));
                    }
                    y = to;
                }
                other => panic!("unexpected command {other}"),
            }
            rest = &rest[end..];
        }
        out
    }

    /// The plain path: a horizontal and a vertical stroke for every point,
    /// at the same whole coordinates.
    fn plain(points: &[(u64, u32)], t0: u64, t1: u64, max: u32) -> String {
        let x = |ms: u64| ((ms - t0) * u64::from(CHART_W) / (t1 - t0)) as u32;
        let y = |v: u32| {
            let (v, m) = (u64::from(v), u64::from(max));
            (u64::from(CHART_H - 6) - (v * u64::from(CHART_H - 9) + m / 2) / m) as u32
        };
        let mut d = String::new();
        for (i, &(ms, v)) in points.iter().enumerate() {
            if i == 0 {
                d.push_str(&format!("M{},{}", x(ms), y(v)));
            } else {
                d.push_str(&format!("H{}V{}", x(ms), y(v)));
            }
        }
        d.push_str(&format!("H{CHART_W}"));
        d
    }

    #[test]
    fn a_step_line_covers_what_a_stroke_per_point_covers_with_few_commands() {
        // 5,000 points over 10 s (many per column), values that rise, fall
        // back within a column and stay flat for long stretches.
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as u32
        };
        let mut points = Vec::new();
        let mut v = 0u32;
        for i in 0..5_000u64 {
            if i % 7 == 0 || (1_000..1_200).contains(&i) {
                v = next() % 4_000;
            }
            points.push((2_000 + i * 2, v));
        }
        let (t0, t1) = (2_000, 12_500);
        let max = points.iter().map(|p| p.1).max().unwrap_or(1);
        let fast = step_path(points.iter().copied(), t0, t1, max);
        let slow = plain(&points, t0, t1, max);
        assert_eq!(covered(&fast), covered(&slow));
        let commands = fast.chars().filter(char::is_ascii_alphabetic).count();
        assert!(
            commands <= 4 * (CHART_W as usize + 1) + 2,
            "{commands} commands"
        );
        // A flat line is one horizontal stroke.
        let flat: Vec<(u64, u32)> = (0..1_000).map(|i| (i, 5)).collect();
        assert_eq!(step_path(flat.iter().copied(), 0, 2_000, 10), "M0,53H560");
        assert_eq!(
            covered(&step_path(flat.iter().copied(), 0, 2_000, 10)),
            covered(&plain(&flat, 0, 2_000, 10))
        );
        for n in [0, 7, 10, 560, 1_000_000, u32::MAX] {
            let mut d = String::new();
            push_num(&mut d, 'V', n);
            assert_eq!(d, format!("V{n}"));
        }
        // A line at 0 stands clear of the bottom border (it ran along it
        // at CHART_H - 2), the top one inside the top border.
        for m in [1, 7, 10, 12, 2_000, u32::MAX] {
            assert_eq!(super::row(0, m), CHART_H - 6);
            assert_eq!(super::row(m, m), 3);
            assert_eq!(super::row(m.saturating_add(1), m), 3);
        }
        // No points: no line (a path must start with a move: the browser
        // rejects "H560").
        assert_eq!(step_path(std::iter::empty(), 0, 1, 1), "");
    }

    #[test]
    fn the_span_is_the_smallest_step_that_holds_the_time_since_the_first_point_and_fills_two_thirds(
    ) {
        let spans: Vec<u64> = [1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0]
            .iter()
            .flat_map(|k| [1.0, 10.0, 100.0, 1_000.0].map(|d| (k * d * 1_000.0) as u64))
            .chain([10_000_000])
            .collect::<BTreeSet<u64>>()
            .into_iter()
            .collect();
        for elapsed in (0..6_000_000u64)
            .step_by(997)
            .chain([9_999, 10_000, 10_001, 15_000, 15_001, 20_000, 20_001])
        {
            let span = chart_span(elapsed);
            let k = spans
                .iter()
                .position(|&s| s == span)
                .expect("a span of the list");
            assert!(elapsed <= span, "{elapsed} in {span}");
            assert!(
                k == 0 || elapsed > spans[k - 1],
                "{elapsed}: {span} is not the smallest"
            );
            // At most a third of the width empty (past the first second).
            assert!(
                elapsed <= 1_000 || elapsed * 3 > span * 2,
                "{elapsed} fills less than two thirds of {span}"
            );
        }
        assert_eq!(chart_span(15_001), 20_000);
        assert_eq!(chart_span(u64::MAX), u64::MAX);
    }

    #[test]
    fn the_drawing_changes_only_when_the_series_or_the_column_of_now_does() {
        let mut c = SummaryCache::default();
        c.series.push(SeriesPoint {
            time_ms: 71_000,
            leaders: vec![1, 2],
            offline: 0,
        });
        c.series_version = 1;
        // Playing 30 s at a frame a virtual 16 ms: the span goes 1, 1.5, 2,
        // 3, 4, 6, 8, 10, 15, 20 and 30 s (1, 2, 5, 10, 20 and 50 before
        // the steps were finer); now moves right a column at a time within
        // each.
        let ats: Vec<ChartAt> = (0..=30_000u64 / 16)
            .map(|f| ChartAt::of(&c, 71_000 + f * 16))
            .collect();
        // The lines are made once a span (eleven times), the cover moved at
        // most once a column.
        let mut lines: Vec<(u64, u64, u64)> =
            ats.iter().map(|a| (a.version, a.t0, a.span)).collect();
        lines.dedup();
        assert_eq!(lines.len(), 11);
        let mut drawn = ats.clone();
        drawn.dedup();
        assert!(
            drawn.len() <= 11 * (CHART_W as usize + 1),
            "{} drawings for {} frames",
            drawn.len(),
            ats.len()
        );
        for w in ats.windows(2) {
            let (a, b) = (w[0], w[1]);
            assert_eq!(a.t0, 71_000);
            assert!(b.span >= a.span);
            if a.span == b.span {
                assert!(b.now_x >= a.now_x, "{a:?} {b:?}");
            }
            assert!(b.now_x <= CHART_W);
        }
        assert_eq!(ats.last().map(|a| a.span), Some(30_000));
        assert_eq!(ats.last().map(|a| a.now_x), Some(CHART_W));
        c.series_version += 1;
        assert_ne!(ChartAt::of(&c, 80_000), ats[9_000 / 16]);
    }
}
