//! The diagram as SVG text: self-contained (inline style, no script, no
//! external reference), every piece of text escaped.

use super::{Diagram, English, Labels, Layout, Message, Outcome, Row};
use crate::scenario::Scenario;
use crate::time::SimTime;
use std::fmt::Write as _;

/// Why a diagram could not be drawn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiagramError {
    /// The window ends before it starts.
    #[error("--from {from} ms is after --to {to} ms")]
    Reversed {
        /// The start.
        from: u64,
        /// The end.
        to: u64,
    },
    /// The window ends too late.
    #[error("--to {to} ms is past the last time simulated ({max} ms)")]
    TooLate {
        /// The end asked for.
        to: u64,
        /// The latest.
        max: u64,
    },
}

/// Escape text for SVG (XML) content and attributes: `& < > " '`.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// The CSS class of an outcome (`delivered`, `rejected`, `dropped`).
pub fn outcome_class(o: Outcome) -> &'static str {
    match o {
        Outcome::Delivered => "delivered",
        Outcome::Rejected => "rejected",
        Outcome::Dropped => "dropped",
    }
}

/// The CSS class of a message's family, for its colour.
pub fn message_class(m: &Message) -> &'static str {
    match m {
        Message::Watch { .. } => "watch",
        Message::Write { .. } | Message::Traffic { .. } => "zk",
        Message::Request { .. } | Message::ShutdownRequest { .. } => "request",
        Message::Response { .. } | Message::ShutdownResponse { .. } => "response",
        Message::Lost { .. } => "lost",
    }
}

const STYLE: &str = "text{font-family:sans-serif;font-size:12px;fill:#1f2328}\
.title{font-size:15px;font-weight:bold}\
.head rect{fill:#eef2f7;stroke:#57606a}.head text{font-size:11px}\
.head.controller rect{fill:#fff4d6;stroke:#9a6700;stroke-width:2}\
.life{stroke:#8c959f;stroke-dasharray:4 4}\
.time{fill:#57606a;font-size:11px}\
.arrow line,.arrow path{stroke-width:1.6;fill:none}\
.watch line,.watch path{stroke:#0969da}.zk line,.zk path{stroke:#8250df}\
.request line,.request path{stroke:#1a7f37}.response line,.response path{stroke:#57606a;stroke-dasharray:6 3}\
.rejected line,.rejected path{stroke:#cf222e;stroke-width:2.4}\
.dropped line,.dropped path{stroke:#8c959f;stroke-dasharray:2 3}\
.rejected text{fill:#cf222e}.dropped text{fill:#6e7781;font-style:italic}\
.mark rect{fill:#fff4d6;stroke:#9a6700}\
.more{fill:#9a6700;font-weight:bold}";

/// The SVG of a laid-out diagram, in the words of `labels`.
pub fn to_svg(layout: &Layout, labels: &dyn Labels) -> String {
    let d = &layout.diagram;
    let mut s = String::new();
    let title = escape(&labels.title(d.from_ms, d.to_ms));
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\">",
        w = layout.width,
        h = layout.height
    );
    let _ = write!(s, "<title>{title}</title><style>{STYLE}</style>");
    s.push_str("<defs><marker id=\"head\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerUnits=\"userSpaceOnUse\" markerWidth=\"10\" markerHeight=\"10\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#444c56\"/></marker></defs>");
    let _ = write!(
        s,
        "<rect width=\"{}\" height=\"{}\" fill=\"#ffffff\"/><text class=\"title\" x=\"12\" y=\"24\">{title}</text>",
        layout.width, layout.height
    );
    for (l, x) in d.lifelines.iter().zip(&layout.xs) {
        let class = if l.controller_epoch.is_some() {
            "head controller"
        } else {
            "head"
        };
        let _ = write!(
            s,
            "<g class=\"{class}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"30\" rx=\"4\"/><text x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{}</text></g><line class=\"life\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"/>",
            x.saturating_sub(super::COLUMN / 2 - 8),
            layout.head_y.saturating_sub(15),
            super::COLUMN - 16,
            layout.head_y + 4,
            escape(&labels.lifeline(l)),
            layout.head_y + 15,
            layout.foot_y
        );
    }
    for (y, row) in &layout.rows {
        let _ = write!(
            s,
            "<text class=\"time\" x=\"8\" y=\"{}\">{}</text>",
            y + 4,
            escape(&labels.time(row.time_ms()))
        );
        match row {
            Row::Arrow(a) => {
                let shape = layout.arrow_shape(*y, a);
                let _ = write!(
                    s,
                    "<g class=\"arrow {} {}\" data-time-ms=\"{}\">",
                    message_class(&a.message),
                    outcome_class(a.outcome),
                    a.time_ms
                );
                let head = if shape.head {
                    " marker-end=\"url(#head)\""
                } else {
                    ""
                };
                if let Some((x1, ly, x2)) = shape.line {
                    let _ = write!(
                        s,
                        "<line x1=\"{x1}\" y1=\"{ly}\" x2=\"{x2}\" y2=\"{ly}\"{head}/>"
                    );
                    if !shape.path.is_empty() {
                        let _ = write!(s, "<path d=\"{}\"/>", shape.path);
                    }
                } else {
                    let _ = write!(s, "<path d=\"{}\"{head}/>", shape.path);
                }
                let _ = write!(
                    s,
                    "<text x=\"{}\" y=\"{}\">{}</text></g>",
                    shape.label.0,
                    shape.label.1,
                    escape(&labels.arrow(a))
                );
            }
            Row::Mark(m) => {
                let x = layout.x_of(m.on);
                let _ = write!(
                    s,
                    "<g class=\"mark\" data-time-ms=\"{}\"><rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\"/><text x=\"{}\" y=\"{}\">{}</text></g>",
                    m.time_ms,
                    x - 6,
                    y - 6,
                    x + 10,
                    y + 4,
                    escape(&labels.mark(m))
                );
            }
        }
    }
    let mut y = layout.foot_y + 20;
    if layout.rows.is_empty() {
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\">{}</text>",
            super::LEFT,
            layout.foot_y - 12,
            escape(&labels.empty())
        );
    }
    if layout.not_drawn > 0 {
        let _ = write!(
            s,
            "<text class=\"more\" x=\"{}\" y=\"{y}\">{}</text>",
            super::LEFT,
            escape(&labels.not_drawn(layout.not_drawn))
        );
    }
    y += 22;
    s.push_str("<g class=\"legend\">");
    for (i, o) in [Outcome::Delivered, Outcome::Rejected, Outcome::Dropped]
        .into_iter()
        .enumerate()
    {
        let ly = y + u32::try_from(i).unwrap_or(0) * 18;
        let _ = write!(
            s,
            "<g class=\"arrow request {}\"><line x1=\"{}\" y1=\"{ly}\" x2=\"{}\" y2=\"{ly}\"/><text x=\"{}\" y=\"{}\">{}</text></g>",
            outcome_class(o),
            super::LEFT,
            super::LEFT + 40,
            super::LEFT + 50,
            ly + 4,
            escape(&labels.outcome(o))
        );
    }
    let ly = y + 54;
    let _ = write!(
        s,
        "<g class=\"mark\"><rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\"/><text x=\"{}\" y=\"{}\">{}</text></g>",
        super::LEFT + 14,
        ly - 6,
        super::LEFT + 50,
        ly + 4,
        escape(&labels.legend_mark())
    );
    s.push_str("</g></svg>\n");
    s
}

/// The SVG of `[from_ms, to_ms]` of a scenario's run, in English: what
/// `kcsim diagram --from T --to T SCENARIO` writes.
pub fn svg_for(scenario: &Scenario, from_ms: u64, to_ms: u64) -> Result<String, DiagramError> {
    if from_ms > to_ms {
        return Err(DiagramError::Reversed {
            from: from_ms,
            to: to_ms,
        });
    }
    let max = crate::trace_file::MAX_UNTIL_MS;
    if to_ms > max {
        return Err(DiagramError::TooLate { to: to_ms, max });
    }
    let mut sim = scenario.build();
    sim.run_until(SimTime(to_ms));
    let diagram = Diagram::of(sim.trace(), &scenario.brokers, from_ms, to_ms);
    Ok(to_svg(&Layout::of(diagram), &English))
}
