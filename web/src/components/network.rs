//! The wire: ZooKeeper and the brokers as nodes, and every request,
//! response and watch notification on its way between them as a moving
//! dot, labelled with its type and controller epoch. Click one to inspect it.
//!
//! Dots travel from the edge of one node to the edge of the other, never
//! across a node; each label is put beside its dot where it covers no node,
//! no node's status and no other label (see [`place_label`]).

use crate::el::{self, attrs, click, el, eld, elo, leaf, list, on, s, st, string, text, Val};
use kcsim_core::view::{BrokerView, MessageView};
use kcsim_core::BrokerId;
use std::f64::consts::{PI, TAU};
use yew::prelude::*;

/// Properties of [`Network`].
#[derive(Properties, PartialEq, Debug)]
pub struct NetworkProps {
    /// The brokers.
    pub brokers: Vec<BrokerView>,
    /// Messages queued or on the wire.
    pub messages: Vec<MessageView>,
    /// `/controller`'s brokerid.
    pub controller: Option<BrokerId>,
    /// Now.
    pub now_ms: u64,
}

/// The picture's width, in its own units.
pub const W: f64 = 340.0;
/// The picture's height.
pub const H: f64 = 230.0;
/// ZooKeeper's box: centre and half sizes.
const ZK: (f64, f64) = (W / 2.0, 34.0);
const ZK_HALF: (f64, f64) = (56.0, 20.0);
/// A broker's circle.
const R: f64 = 24.0;
const BROKER_Y: f64 = H - 62.0;
/// Where a broker's status is written, below its circle.
const STATUS_DY: f64 = R + 17.0;
/// A label's font size and the width of one of its (monospace) characters.
const LABEL_PX: f64 = 13.0;
const CHAR_W: f64 = LABEL_PX * 0.62;

/// A box: left, top, width, height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect(pub f64, pub f64, pub f64, pub f64);

impl Rect {
    fn overlaps(&self, o: &Rect) -> bool {
        self.0 < o.0 + o.2 && o.0 < self.0 + self.2 && self.1 < o.1 + o.3 && o.1 < self.1 + self.3
    }
    fn inside_picture(&self) -> bool {
        self.0 >= 0.0 && self.1 >= 0.0 && self.0 + self.2 <= W && self.1 + self.3 <= H
    }
}

/// Where a node sits: ZooKeeper at the top centre, brokers in a row below.
pub fn position(node: &str, brokers: &[BrokerId]) -> (f64, f64) {
    if node == "zk" {
        return ZK;
    }
    let id: u32 = node.trim_start_matches("broker-").parse().unwrap_or(0);
    let n = brokers.len().max(1) as f64;
    let i = brokers.iter().position(|b| b.0 == id).unwrap_or(0) as f64;
    let x = 52.0 + (W - 104.0) * if n > 1.0 { i / (n - 1.0) } else { 0.5 };
    (x, BROKER_Y)
}

/// What a label must not cover: ZooKeeper's box, every broker's circle and
/// the status written under it (each broker's id and status).
pub fn obstacles(brokers: &[(BrokerId, String)]) -> Vec<Rect> {
    let ids: Vec<BrokerId> = brokers.iter().map(|(id, _)| *id).collect();
    let mut v = vec![Rect(
        ZK.0 - ZK_HALF.0 - 2.0,
        ZK.1 - ZK_HALF.1 - 2.0,
        2.0 * ZK_HALF.0 + 4.0,
        2.0 * ZK_HALF.1 + 4.0,
    )];
    for (id, status) in brokers {
        let (x, y) = position(&format!("broker-{id}"), &ids);
        v.push(Rect(x - R - 3.0, y - R - 3.0, 2.0 * R + 6.0, 2.0 * R + 6.0));
        // As wide as the longest way it is written (the English).
        let status = crate::components::broker_card::status_short(status, crate::i18n::Lang::En);
        let w = status.len() as f64 * 7.0 + 4.0;
        v.push(Rect(x - w / 2.0, y + STATUS_DY - 12.0, w, 15.0));
    }
    v
}

/// How far from a node's centre its edge is, along the unit direction (ux, uy).
fn edge(node: &str, ux: f64, uy: f64) -> f64 {
    if node == "zk" {
        let tx = if ux.abs() > 1e-9 {
            ZK_HALF.0 / ux.abs()
        } else {
            f64::INFINITY
        };
        let ty = if uy.abs() > 1e-9 {
            ZK_HALF.1 / uy.abs()
        } else {
            f64::INFINITY
        };
        tx.min(ty) + 14.0
    } else {
        R + 8.0
    }
}

/// The sine, to within a millionth (far under a pixel): `x` brought into
/// [-π, π], then its Taylor series to the 15th power. The page's only
/// trigonometry is these arcs, and the library sine's general argument
/// reduction costs the `.wasm` about 6 KB.
fn sine(x: f64) -> f64 {
    if !x.is_finite() {
        return 0.0;
    }
    let x = x - TAU * (x / TAU + 0.5).floor();
    let x2 = x * x;
    let mut term = 1.0;
    for k in (1..=7).rev() {
        let k = f64::from(k);
        term = 1.0 - x2 / ((2.0 * k) * (2.0 * k + 1.0)) * term;
    }
    x * term
}

/// Where a message's dot is, a fraction `f` of the way: from the edge of the
/// sender to the edge of the receiver. Between brokers it arcs above the row
/// (higher from right to left, so both directions show), clear of the
/// brokers in between; to itself it loops above its broker.
pub fn dot(from: &str, to: &str, f: f64, brokers: &[BrokerId]) -> (f64, f64) {
    let (x1, y1) = position(from, brokers);
    let (x2, y2) = position(to, brokers);
    if from == to {
        let a = f * TAU;
        return (
            x1 + 34.0 * sine(a),
            y1 - R - 8.0 - 34.0 * (1.0 - sine(a + PI / 2.0)) / 2.0,
        );
    }
    if from != "zk" && to != "zk" {
        // Out of the top of the sender, over the row, into the top of the
        // receiver: higher from right to left, so both directions show.
        let rise = if x2 > x1 { 40.0 } else { 64.0 };
        let top = y1 - R - 8.0;
        return (x1 + (x2 - x1) * f, top - rise * sine(f * PI));
    }
    let (dx, dy) = (x2 - x1, y2 - y1);
    let len = (dx * dx + dy * dy).sqrt().max(1e-9);
    let (ux, uy) = (dx / len, dy / len);
    let (s, e) = (edge(from, ux, uy), len - edge(to, -ux, -uy));
    let d = s + (e - s).max(0.0) * f;
    (x1 + ux * d, y1 + uy * d)
}

/// A label's box beside its dot at (x, y): to the right or left, above or
/// below, the first that stays in the picture and covers no node and no label
/// already placed; else the first that covers no node.
pub fn place_label(x: f64, y: f64, text: &str, nodes: &[Rect], placed: &[Rect]) -> Rect {
    let w = text.chars().count() as f64 * CHAR_W + 2.0;
    let h = LABEL_PX + 1.0;
    let candidates = [
        Rect(x + 9.0, y - 6.0 - h, w, h),
        Rect(x - 9.0 - w, y - 6.0 - h, w, h),
        Rect(x + 9.0, y + 6.0, w, h),
        Rect(x - 9.0 - w, y + 6.0, w, h),
        Rect(x - w / 2.0, y - 10.0 - h, w, h),
        Rect(x - w / 2.0, y + 10.0, w, h),
    ];
    let clear_of_nodes = |r: &Rect| r.inside_picture() && !nodes.iter().any(|n| n.overlaps(r));
    candidates
        .iter()
        .find(|r| clear_of_nodes(r) && !placed.iter().any(|p| p.overlaps(r)))
        .or_else(|| candidates.iter().find(|r| clear_of_nodes(r)))
        .copied()
        .unwrap_or(candidates[0])
}

/// The network picture.
#[component]
pub fn Network(props: &NetworkProps) -> Html {
    let lang = crate::i18n::use_lang();
    let selected = use_state(|| None::<u64>);
    let inflight: Vec<&MessageView> = props.messages.iter().filter(|m| !m.queued).collect();
    let detail = (*selected).and_then(|id| props.messages.iter().find(|m| m.id == id));
    let ids: Vec<BrokerId> = props.brokers.iter().map(|b| b.id).collect();
    let nodes = obstacles(
        &props
            .brokers
            .iter()
            .map(|b| (b.id, b.status.clone()))
            .collect::<Vec<_>>(),
    );
    let mut placed: Vec<Rect> = Vec::new();
    let dots: Vec<Html> = inflight
        .iter()
        .map(|m| {
            let total = m.arrives_at_ms.saturating_sub(m.sent_at_ms).max(1) as f64;
            let f = (props.now_ms.saturating_sub(m.sent_at_ms) as f64 / total).clamp(0.0, 1.0);
            let (x, y) = dot(&m.from, &m.to, f, &ids);
            let id = m.id;
            let onclick = {
                let selected = selected.clone();
                Callback::from(move |_: MouseEvent| selected.set(Some(id)))
            };
            let label = match m.controller_epoch {
                Some(e) => format!("{} e{e}", short(&m.kind)),
                None => "watch".to_string(),
            };
            let r = place_label(x, y, &label, &nodes, &placed);
            placed.push(r);
            let class = classes!(
                "msg",
                m.kind.replace(' ', "-").to_ascii_lowercase(),
                (*selected == Some(id)).then_some("selected")
            );
            elo(
                "g",
                &["role", "aria-label", "class"],
                Box::new([
                    s("button"),
                    st(lang.f(
                        || {
                            format!(
                                "Inspect message {id}: {} from {} to {}",
                                m.kind, m.from, m.to
                            )
                        },
                        || format!("查看消息 {id}：{}，从 {} 到 {}", m.kind, m.from, m.to),
                    )),
                    el::class(class),
                ]),
                on(Box::new([click(onclick)])),
                list(vec![
                    leaf(
                        "circle",
                        &["cx", "cy", "r"],
                        Box::new([at(x), at(y), s("7")]),
                    ),
                    eld(
                        "text",
                        &["x", "y"],
                        Box::new([at(r.0 + 1.0), at(r.1 + r.3 - 3.0)]),
                        string(label),
                    ),
                ]),
            )
        })
        .collect();
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    let mut picture: Vec<Html> = props
        .brokers
        .iter()
        .map(|b| {
            let (x, y) = position(&format!("broker-{}", b.id), &ids);
            leaf(
                "line",
                &["x1", "y1", "x2", "y2", "class"],
                Box::new([at(ZK.0), at(ZK.1), at(x), at(y), s("link")]),
            )
        })
        .collect();
    picture.push(el(
        "g",
        attrs!("class" = "node zk"),
        list(vec![
            leaf(
                "rect",
                &["x", "y", "width", "height", "rx"],
                Box::new([
                    at(ZK.0 - ZK_HALF.0),
                    at(ZK.1 - ZK_HALF.1),
                    at(2.0 * ZK_HALF.0),
                    at(2.0 * ZK_HALF.1),
                    s("8"),
                ]),
            ),
            eld(
                "text",
                &["x", "y", "text-anchor"],
                Box::new([at(ZK.0), at(ZK.1 + 6.0), s("middle")]),
                text("ZooKeeper"),
            ),
        ]),
    ));
    picture.extend(props.brokers.iter().map(|b| {
        let (x, y) = position(&format!("broker-{}", b.id), &ids);
        let class = classes!(
            "node",
            "broker-node",
            format!("status-{}", b.status),
            (props.controller == Some(b.id)).then_some("controller")
        );
        eld(
            "g",
            &["class"],
            Box::new([el::class(class)]),
            list(vec![
                leaf(
                    "circle",
                    &["cx", "cy", "r"],
                    Box::new([at(x), at(y), at(R)]),
                ),
                eld(
                    "text",
                    &["x", "y", "text-anchor"],
                    Box::new([at(x), at(y + 6.0), s("middle")]),
                    string(b.id.to_string()),
                ),
                eld(
                    "text",
                    &["x", "y", "text-anchor", "class"],
                    Box::new([at(x), at(y + STATUS_DY), s("middle"), s("sub")]),
                    string(crate::components::broker_card::status_short(
                        &b.status, lang,
                    )),
                ),
            ]),
        )
    }));
    picture.extend(dots);
    let mut children = vec![
        el("h2", &[], text(lang.t("On the wire", "网络线路"))),
        eld(
            "svg",
            &["viewBox", "role", "aria-label"],
            Box::new([
                st(format!("0 0 {W} {H}")),
                s("img"),
                s(lang.t(
                    "ZooKeeper, the brokers and the messages between them",
                    "ZooKeeper、各 broker 以及它们之间的消息",
                )),
            ]),
            list(picture),
        ),
    ];
    children.extend(detail.map(|m| {
        el(
            "div",
            attrs!("role" = "status", "class" = "inspect"),
            list(vec![
                el("strong", &[], string(format!("#{} {}", m.id, m.kind))),
                string(format!(" {} → {}", m.from, m.to)),
                string(
                    m.controller_epoch
                        .map(|e| format!(" · {} {e}", lang.t("controller epoch", "控制器纪元")))
                        .unwrap_or_default(),
                ),
                string({
                    let (s, a) = (
                        m.sent_at_ms as f64 / 1000.0,
                        m.arrives_at_ms as f64 / 1000.0,
                    );
                    lang.f(
                        || format!(" · sent {s:.3} s · arrives {a:.3} s"),
                        || format!(" · {s:.3} 秒发出 · {a:.3} 秒到达"),
                    )
                }),
                el(
                    "div",
                    attrs!("class" = "summary"),
                    string(m.summary.to_string()),
                ),
            ]),
        )
    }));
    eld(
        "section",
        &["id", "aria-label", "class"],
        Box::new([
            s("p-wire"),
            s(lang.t("Messages on the wire", "线路上的消息")),
            s("panel network"),
        ]),
        list(children),
    )
}

/// A coordinate as an attribute value (to a tenth).
#[inline(never)]
fn at(v: f64) -> Val {
    st(fmt(v))
}

fn fmt(v: f64) -> String {
    format!("{v:.1}")
}

fn short(kind: &str) -> String {
    kind.replace("LeaderAndIsr", "LAI")
        .replace("UpdateMetadata", "UM")
        .replace("StopReplica", "SR")
        .replace(" response", "↩")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_small_sine_is_the_sine_to_a_millionth() {
        for i in -4_000..=4_000 {
            let x = f64::from(i) * 0.005;
            let (ours, std) = (sine(x), x.sin());
            assert!((ours - std).abs() < 1e-6, "sin({x}) = {std}, ours {ours}");
        }
        assert_eq!(sine(f64::NAN), 0.0);
        assert_eq!(sine(f64::INFINITY), 0.0);
    }

    fn brokers(n: u32) -> Vec<(BrokerId, String)> {
        (0..n)
            .map(|i| {
                (
                    BrokerId(i),
                    if i == 1 {
                        "shutting_down".into()
                    } else {
                        "running".into()
                    },
                )
            })
            .collect()
    }

    /// The distance from (x, y) to the nearest point of `r`.
    fn distance(x: f64, y: f64, r: &Rect) -> f64 {
        let dx = (r.0 - x).max(0.0).max(x - (r.0 + r.2));
        let dy = (r.1 - y).max(0.0).max(y - (r.1 + r.3));
        (dx * dx + dy * dy).sqrt()
    }

    #[test]
    fn no_label_covers_a_node_and_no_dot_crosses_one() {
        for n in [1, 2, 3, 4, 5, 6] {
            let bs = brokers(n);
            let ids: Vec<BrokerId> = bs.iter().map(|(id, _)| *id).collect();
            let nodes = obstacles(&bs);
            let mut ends: Vec<String> = vec!["zk".into()];
            ends.extend(ids.iter().map(|id| format!("broker-{id}")));
            for from in &ends {
                for to in &ends {
                    if from == "zk" && to == "zk" {
                        continue;
                    }
                    let mut placed = Vec::new();
                    for k in 0..=20 {
                        let f = f64::from(k) / 20.0;
                        let (x, y) = dot(from, to, f, &ids);
                        for id in &ids {
                            let (cx, cy) = position(&format!("broker-{id}"), &ids);
                            let d = ((x - cx).powi(2) + (y - cy).powi(2)).sqrt();
                            assert!(
                                d >= R + 7.0,
                                "{n} brokers, {from}->{to} at {f}: dot {d:.1} from broker {id}"
                            );
                        }
                        assert!(
                            distance(x, y, &nodes[0]) >= 6.0,
                            "{from}->{to} at {f}: dot on ZooKeeper"
                        );
                        let r = place_label(x, y, "UM↩ e12", &nodes, &placed);
                        assert!(
                            !nodes.iter().any(|o| o.overlaps(&r)),
                            "{n} brokers, {from}->{to} at {f}: label {r:?}"
                        );
                        placed.push(r);
                    }
                }
            }
        }
    }
}
