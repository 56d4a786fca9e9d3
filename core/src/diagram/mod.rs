//! Sequence diagrams of a time window, drawn from the trace.
//!
//! [`Diagram::of`] reads the trace records of `[from_ms, to_ms]` and turns the
//! ones that are messages into arrows between lifelines (ZooKeeper and each
//! broker): watch notifications (ZooKeeper → broker), ZooKeeper writes with
//! their path and each controller event's reads and writes (broker →
//! ZooKeeper), controller requests (LeaderAndIsr, UpdateMetadata, StopReplica)
//! and their responses, ControlledShutdown requests and their answers. A
//! request refused for its stale controller epoch, a failed ZooKeeper write
//! and a message the user dropped are arrows of their own [`Outcome`].
//! Elections, resignations and the user's fault actions are marks on a
//! lifeline. [`Layout::of`] places it all (x per lifeline, y per row, time
//! downwards, at most [`MAX_ROWS`] rows and a count of the rest); [`to_svg`]
//! writes it as a self-contained SVG with words from a [`Labels`]. Labels are
//! data; [`English`] renders them for the CLI, the page in its languages.
//! See `core/docs/diagram.md`.

pub mod svg;
#[cfg(test)]
mod tests;

pub use svg::{svg_for, to_svg, DiagramError};

use crate::controller::channel::ApiError;
use crate::fact::{Fact, ShutdownFailure};
use crate::ids::BrokerId;
use crate::trace::TraceRecord;
use crate::zk::WatchKind;
use crate::zk_client::paths;

/// The most rows (arrows and marks) drawn: the latest ones; the earlier
/// rest are counted.
pub const MAX_ROWS: usize = 150;

/// One end of an arrow: ZooKeeper or a broker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Party {
    /// The ZooKeeper ensemble.
    Zk,
    /// A broker (and the controller it may run).
    Broker(BrokerId),
}

/// A ZooKeeper write named by a fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZkWrite {
    /// `create`.
    Create,
    /// `setData`.
    Set,
    /// `delete`.
    Delete,
}

/// What an arrow carries, as data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// A watch notification, and the controller event it enqueued.
    Watch {
        /// What happened to the path.
        kind: WatchKind,
        /// The watched path.
        path: String,
        /// The event enqueued (`None` when the notification was lost).
        event: Option<&'static str>,
    },
    /// A ZooKeeper write of one path.
    Write {
        /// The operation.
        op: ZkWrite,
        /// The path.
        path: String,
        /// ZooKeeper's error, if it refused.
        error: Option<String>,
    },
    /// A controller event's ZooKeeper traffic.
    Traffic {
        /// The event.
        event: &'static str,
        /// Reads.
        reads: u64,
        /// Writes.
        writes: u64,
    },
    /// A controller request.
    Request {
        /// `LeaderAndIsr`, `UpdateMetadata`, `StopReplica`.
        name: &'static str,
        /// Its controller epoch.
        controller_epoch: i32,
        /// The lowest and highest leader epoch of its partitions, if any.
        leader_epochs: Option<(i32, i32)>,
    },
    /// The answer to a controller request.
    Response {
        /// The request's name.
        name: &'static str,
        /// The error code (`NONE`, `STALE_CONTROLLER_EPOCH`, …).
        error: &'static str,
    },
    /// A ControlledShutdownRequest.
    ShutdownRequest {
        /// The attempt.
        attempt: u64,
        /// The broker's epoch it carries.
        broker_epoch: i64,
    },
    /// The controller's answer to a controlled shutdown.
    ShutdownResponse {
        /// The attempt.
        attempt: u64,
        /// Partitions still led (0 when it succeeded), or `None` on an error.
        remaining: Option<usize>,
    },
    /// A request or response lost on the wire (the trace names its id only).
    Lost {
        /// The message id.
        id: u64,
    },
}

/// How a message fared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// Delivered and applied.
    Delivered,
    /// Delivered and refused (a stale epoch, a ZooKeeper error).
    Rejected,
    /// Lost on the wire.
    Dropped,
}

/// An arrow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arrow {
    /// When it was handled (ms).
    pub time_ms: u64,
    /// The sender.
    pub from: Party,
    /// The receiver.
    pub to: Party,
    /// What it carries.
    pub message: Message,
    /// How it fared.
    pub outcome: Outcome,
}

/// A moment marked on one lifeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MarkKind {
    /// This broker became the controller.
    Elected {
        /// The new controller epoch.
        epoch: i32,
    },
    /// This broker stopped being the controller.
    Resigned,
    /// The user acted on this broker (kill -9, a pause, …).
    UserAction(crate::action::Action),
    /// The broker's ZooKeeper session expired.
    SessionExpired,
}

/// A mark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    /// When (ms).
    pub time_ms: u64,
    /// On whose lifeline.
    pub on: Party,
    /// What.
    pub kind: MarkKind,
}

/// One row of the diagram.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Row {
    /// An arrow.
    Arrow(Arrow),
    /// A mark.
    Mark(Mark),
}

impl Row {
    /// When.
    pub fn time_ms(&self) -> u64 {
        match self {
            Row::Arrow(a) => a.time_ms,
            Row::Mark(m) => m.time_ms,
        }
    }
}

/// A lifeline, as the window opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lifeline {
    /// Whose.
    pub party: Party,
    /// The controller epoch it holds when the window opens, if it is the
    /// controller then.
    pub controller_epoch: Option<i32>,
}

/// A sequence diagram of a window of the trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagram {
    /// The window's start (ms).
    pub from_ms: u64,
    /// The window's end (ms, inclusive).
    pub to_ms: u64,
    /// ZooKeeper first, then the brokers in id order.
    pub lifelines: Vec<Lifeline>,
    /// Every row of the window, in trace order.
    pub rows: Vec<Row>,
}

/// Which broker a trace actor (`broker-3`, `controller-3`) is.
fn actor_broker(actor: &str) -> Option<BrokerId> {
    let id = actor
        .strip_prefix("broker-")
        .or_else(|| actor.strip_prefix("controller-"))?;
    id.parse::<u32>().ok().map(BrokerId)
}

/// The rows one trace record draws.
fn rows_of(r: &TraceRecord, out: &mut Vec<Row>) {
    let t = r.time_ms;
    let me = actor_broker(&r.actor);
    let arrow = |from: Party, to: Party, message: Message, outcome: Outcome| {
        Row::Arrow(Arrow {
            time_ms: t,
            from,
            to,
            message,
            outcome,
        })
    };
    let mark = |on: BrokerId, kind: MarkKind| {
        Row::Mark(Mark {
            time_ms: t,
            on: Party::Broker(on),
            kind,
        })
    };
    match &*r.fact() {
        Fact::WatchFired { kind, path, event } => {
            if let Some(b) = me {
                out.push(arrow(
                    Party::Zk,
                    Party::Broker(b),
                    Message::Watch {
                        kind: *kind,
                        path: path.clone(),
                        event: Some(event),
                    },
                    Outcome::Delivered,
                ));
            }
        }
        Fact::WatchNotificationLost {
            kind, path, broker, ..
        } => out.push(arrow(
            Party::Zk,
            Party::Broker(*broker),
            Message::Watch {
                kind: *kind,
                path: path.clone(),
                event: None,
            },
            Outcome::Dropped,
        )),
        Fact::RequestHandled {
            request,
            from,
            epoch,
            leader_epochs,
            error,
        } => {
            if let Some(to) = me {
                let outcome = if *error == ApiError::None {
                    Outcome::Delivered
                } else {
                    Outcome::Rejected
                };
                out.push(arrow(
                    Party::Broker(*from),
                    Party::Broker(to),
                    Message::Request {
                        name: request,
                        controller_epoch: *epoch,
                        leader_epochs: *leader_epochs,
                    },
                    outcome,
                ));
                out.push(arrow(
                    Party::Broker(to),
                    Party::Broker(*from),
                    Message::Response {
                        name: request,
                        error: error.name(),
                    },
                    Outcome::Delivered,
                ));
            }
        }
        Fact::EventProcessed {
            event,
            reads,
            writes,
            ..
        } if reads + writes > 0 => {
            if let Some(b) = me {
                out.push(arrow(
                    Party::Broker(b),
                    Party::Zk,
                    Message::Traffic {
                        event,
                        reads: *reads,
                        writes: *writes,
                    },
                    Outcome::Delivered,
                ));
            }
        }
        Fact::Registered { broker, .. } => out.push(arrow(
            Party::Broker(*broker),
            Party::Zk,
            Message::Write {
                op: ZkWrite::Create,
                path: paths::broker(*broker),
                error: None,
            },
            Outcome::Delivered,
        )),
        Fact::Elected { broker, epoch, .. } => {
            out.push(arrow(
                Party::Broker(*broker),
                Party::Zk,
                Message::Write {
                    op: ZkWrite::Create,
                    path: paths::CONTROLLER.to_string(),
                    error: None,
                },
                Outcome::Delivered,
            ));
            out.push(mark(*broker, MarkKind::Elected { epoch: *epoch }));
        }
        Fact::LeaderUpdatedIsr { tp, leader, .. } => out.push(arrow(
            Party::Broker(*leader),
            Party::Zk,
            Message::Write {
                op: ZkWrite::Set,
                path: paths::partition_state(tp),
                error: None,
            },
            Outcome::Delivered,
        )),
        Fact::IsrUpdateSkipped { tp, error, .. } => {
            if let Some(b) = me {
                out.push(arrow(
                    Party::Broker(b),
                    Party::Zk,
                    Message::Write {
                        op: ZkWrite::Set,
                        path: paths::partition_state(tp),
                        error: Some(format!("{error:?}")),
                    },
                    Outcome::Rejected,
                ));
            }
        }
        Fact::IsrChangePropagated { path, .. } => {
            if let Some(b) = me {
                out.push(arrow(
                    Party::Broker(b),
                    Party::Zk,
                    Message::Write {
                        op: ZkWrite::Create,
                        path: path.clone(),
                        error: None,
                    },
                    Outcome::Delivered,
                ));
            }
        }
        Fact::ZkOpFailed { op, path, error } => {
            if let Some(b) = me {
                let op = match op {
                    crate::fact::ZkOp::Create => ZkWrite::Create,
                    crate::fact::ZkOp::Set => ZkWrite::Set,
                    crate::fact::ZkOp::Delete => ZkWrite::Delete,
                };
                out.push(arrow(
                    Party::Broker(b),
                    Party::Zk,
                    Message::Write {
                        op,
                        path: path.clone(),
                        error: Some(format!("{error:?}")),
                    },
                    Outcome::Rejected,
                ));
            }
        }
        Fact::ShutdownRequestSent {
            attempt,
            controller,
            broker_epoch,
        } => {
            if let Some(b) = me {
                out.push(arrow(
                    Party::Broker(b),
                    Party::Broker(*controller),
                    Message::ShutdownRequest {
                        attempt: *attempt,
                        broker_epoch: *broker_epoch,
                    },
                    Outcome::Delivered,
                ));
            }
        }
        Fact::ShutdownSucceeded { attempt } => {
            if let Some(b) = me {
                let row = shutdown_answer(t, b, *attempt, Some(0), out);
                out.push(row);
            }
        }
        Fact::ShutdownRetry {
            attempt, failure, ..
        } => {
            if let Some(b) = me {
                let remaining = match failure {
                    ShutdownFailure::Remaining(p) => Some(p.len()),
                    ShutdownFailure::Error(_) => None,
                };
                let row = shutdown_answer(t, b, *attempt, remaining, out);
                out.push(row);
            }
        }
        Fact::RequestLost { id } | Fact::ShutdownRequestLost { id } => {
            // The trace names the message only by id: drawn on the wire
            // between the controller and ZooKeeper would be false, so it is
            // a mark-like arrow from nobody: shown on the lifeline of the
            // controller at the time, if known (see `Diagram::of`).
            out.push(arrow(
                Party::Zk,
                Party::Zk,
                Message::Lost { id: *id },
                Outcome::Dropped,
            ));
        }
        Fact::ResignSessionExpired { broker, .. }
        | Fact::Resign { broker }
        | Fact::ResignAfterError { broker }
        | Fact::ResignForShutdown { broker } => out.push(mark(*broker, MarkKind::Resigned)),
        Fact::SessionExpired { owner: Some(b), .. } => out.push(mark(*b, MarkKind::SessionExpired)),
        Fact::UserAction(a) => {
            if let Some(b) = a.broker() {
                out.push(mark(b, MarkKind::UserAction(a.clone())));
            }
        }
        _ => {}
    }
}

/// The answer to a controlled shutdown, from the controller that got the
/// attempt's request (the last one sent, in the rows so far; else the
/// broker itself, which then answers nothing to nobody: drawn as a self
/// arrow).
fn shutdown_answer(
    t: u64,
    broker: BrokerId,
    attempt: u64,
    remaining: Option<usize>,
    so_far: &[Row],
) -> Row {
    let controller = so_far.iter().rev().find_map(|r| match r {
        Row::Arrow(Arrow {
            from: Party::Broker(b),
            to,
            message: Message::ShutdownRequest { .. },
            ..
        }) if *b == broker => Some(*to),
        _ => None,
    });
    Row::Arrow(Arrow {
        time_ms: t,
        from: controller.unwrap_or(Party::Broker(broker)),
        to: Party::Broker(broker),
        message: Message::ShutdownResponse { attempt, remaining },
        outcome: if remaining == Some(0) {
            Outcome::Delivered
        } else {
            Outcome::Rejected
        },
    })
}

impl Diagram {
    /// The diagram of `[from_ms, to_ms]` of `trace`, with a lifeline for
    /// ZooKeeper and for each of `brokers` (and any other broker the window
    /// names).
    pub fn of(
        trace: &crate::trace::Records,
        brokers: &[BrokerId],
        from_ms: u64,
        to_ms: u64,
    ) -> Diagram {
        // Who is the controller as the window opens, and with what epoch.
        let mut controller: Option<(BrokerId, i32)> = None;
        let mut rows = Vec::new();
        let mut before = Vec::new();
        for r in trace.iter().take_while(|r| r.time_ms <= to_ms) {
            if r.time_ms < from_ms {
                before.clear();
                rows_of(r, &mut before);
                for row in &before {
                    if let Row::Mark(m) = row {
                        match (&m.kind, m.on) {
                            (MarkKind::Elected { epoch }, Party::Broker(b)) => {
                                controller = Some((b, *epoch))
                            }
                            (MarkKind::Resigned, Party::Broker(b))
                                if controller.is_some_and(|(c, _)| c == b) =>
                            {
                                controller = None
                            }
                            _ => {}
                        }
                    }
                }
                continue;
            }
            rows_of(r, &mut rows);
        }
        // A lost request is shown on the lifeline of the controller that
        // sent it: the one marked last, as far as the trace says.
        let mut current = controller.map(|(b, _)| b);
        for row in &mut rows {
            match row {
                Row::Mark(Mark {
                    on: Party::Broker(b),
                    kind: MarkKind::Elected { .. },
                    ..
                }) => current = Some(*b),
                Row::Arrow(a) if matches!(a.message, Message::Lost { .. }) => {
                    if let Some(c) = current {
                        a.from = Party::Broker(c);
                        a.to = Party::Broker(c);
                    }
                }
                _ => {}
            }
        }
        let mut ids: Vec<BrokerId> = brokers.to_vec();
        for row in &rows {
            let parties = match row {
                Row::Arrow(a) => [a.from, a.to],
                Row::Mark(m) => [m.on, m.on],
            };
            for p in parties {
                if let Party::Broker(b) = p {
                    ids.push(b);
                }
            }
        }
        crate::sort::sort(&mut ids);
        ids.dedup();
        let mut lifelines = vec![Lifeline {
            party: Party::Zk,
            controller_epoch: None,
        }];
        lifelines.extend(ids.into_iter().map(|b| Lifeline {
            party: Party::Broker(b),
            controller_epoch: controller.and_then(|(c, e)| (c == b).then_some(e)),
        }));
        Diagram {
            from_ms,
            to_ms,
            lifelines,
            rows,
        }
    }
}

/// Where everything goes, in SVG user units (pixels at 100 %).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The diagram laid out.
    pub diagram: Diagram,
    /// The x of each lifeline (same order as `diagram.lifelines`).
    pub xs: Vec<u32>,
    /// The rows drawn (the last [`MAX_ROWS`]), each with its y.
    pub rows: Vec<(u32, Row)>,
    /// Earlier rows left out.
    pub not_drawn: usize,
    /// The width of the whole picture.
    pub width: u32,
    /// The height of the whole picture.
    pub height: u32,
    /// The y of the lifeline heads' middle.
    pub head_y: u32,
    /// The y where the lifelines end.
    pub foot_y: u32,
}

/// The horizontal distance between lifelines.
pub const COLUMN: u32 = 190;
/// The vertical distance between rows.
pub const ROW: u32 = 30;
/// The left margin (the time column).
pub const LEFT: u32 = 70;
/// The space right of the last lifeline: a self-addressed arrow's or a
/// mark's label there runs past its column (the longest, a LeaderAndIsr
/// with its epochs, is about this wide).
pub const RIGHT: u32 = 240;
/// The space above the first row: title and lifeline heads.
pub const TOP: u32 = 96;
/// The space below the last row: the "not drawn" line and the legend.
pub const BOTTOM: u32 = 110;

impl Layout {
    /// Lay `diagram` out: lifelines left to right, rows top to bottom in
    /// time order, at most [`MAX_ROWS`] of them (the latest: the window's
    /// end is where the page's time cursor is).
    pub fn of(diagram: Diagram) -> Layout {
        let n = u32::try_from(diagram.lifelines.len()).unwrap_or(u32::MAX);
        let xs: Vec<u32> = (0..n)
            .map(|i| LEFT + COLUMN / 2 + i.saturating_mul(COLUMN))
            .collect();
        let not_drawn = diagram.rows.len().saturating_sub(MAX_ROWS);
        let rows: Vec<(u32, Row)> = diagram
            .rows
            .iter()
            .skip(not_drawn)
            .zip(0u32..)
            .map(|(r, i)| (TOP + ROW / 2 + i * ROW, r.clone()))
            .collect();
        let drawn = u32::try_from(rows.len()).unwrap_or(0);
        let foot_y = TOP + drawn.max(1) * ROW + ROW / 2;
        Layout {
            width: LEFT + n.saturating_mul(COLUMN) + RIGHT,
            height: foot_y + BOTTOM,
            head_y: TOP - 22,
            foot_y,
            xs,
            rows,
            not_drawn,
            diagram,
        }
    }

    /// The x of a party's lifeline.
    pub fn x_of(&self, p: Party) -> u32 {
        self.diagram
            .lifelines
            .iter()
            .position(|l| l.party == p)
            .and_then(|i| self.xs.get(i).copied())
            .unwrap_or(LEFT)
    }
}

/// Where one arrow's pieces go (the SVG and the page draw from this).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrowShape {
    /// The line from `(x1, y)` to `(end, y)`; `None` for a message a party
    /// sends itself, drawn as the loop `path`.
    pub line: Option<(u32, u32, u32)>,
    /// The SVG path: the loop of a message to oneself, or the cross where a
    /// dropped message stops (empty when neither).
    pub path: String,
    /// Whether the line ends in an arrowhead (not when dropped).
    pub head: bool,
    /// Where the label starts.
    pub label: (u32, u32),
}

impl Layout {
    /// The shape of arrow `a` drawn at row `y`.
    pub fn arrow_shape(&self, y: u32, a: &Arrow) -> ArrowShape {
        let x1 = self.x_of(a.from);
        let x2 = self.x_of(a.to);
        let dropped = a.outcome == Outcome::Dropped;
        if x1 == x2 {
            return ArrowShape {
                line: None,
                path: format!("M{x1},{} h30 v12 h-30", y.saturating_sub(6)),
                head: true,
                label: (x1 + 36, y + 4),
            };
        }
        let end = if dropped { (x1 + x2) / 2 } else { x2 };
        let path = if dropped {
            let top = y.saturating_sub(4);
            format!(
                "M{},{top} l8,8 M{},{top} l-8,8",
                end.saturating_sub(4),
                end + 4
            )
        } else {
            String::new()
        };
        ArrowShape {
            line: Some((x1, y, end)),
            path,
            head: !dropped,
            label: (x1.min(x2) + 8, y.saturating_sub(4)),
        }
    }
}

/// The words of a diagram: the CLI's English ([`English`]), the page's
/// English and 中文.
pub trait Labels {
    /// The title, for the window.
    fn title(&self, from_ms: u64, to_ms: u64) -> String;
    /// A lifeline's head.
    fn lifeline(&self, l: &Lifeline) -> String;
    /// An arrow's label.
    fn arrow(&self, a: &Arrow) -> String;
    /// A mark's label.
    fn mark(&self, m: &Mark) -> String;
    /// A time on the left (`17.404 s`).
    fn time(&self, ms: u64) -> String {
        format!("{}.{:03} s", ms / 1000, ms % 1000)
    }
    /// The line saying the `n` earliest rows were not drawn.
    fn not_drawn(&self, n: usize) -> String;
    /// A legend entry for an outcome.
    fn outcome(&self, o: Outcome) -> String;
    /// The legend entry for a mark.
    fn legend_mark(&self) -> String;
    /// What an empty window says.
    fn empty(&self) -> String;
}

/// The English words (the CLI's and the page's in English).
#[derive(Debug, Clone, Copy)]
pub struct English;

/// A watch kind's name, as ZooKeeper spells it.
pub fn watch_name(k: WatchKind) -> &'static str {
    match k {
        WatchKind::NodeCreated => "NodeCreated",
        WatchKind::NodeDeleted => "NodeDeleted",
        WatchKind::NodeDataChanged => "NodeDataChanged",
        WatchKind::NodeChildrenChanged => "NodeChildrenChanged",
    }
}

/// The leader epoch a request's label shows: a LeaderAndIsr's (one, or the
/// range `Err((lowest, highest))` when its partitions differ); `None` for the
/// other requests, whose leader epochs only repeat what a LeaderAndIsr said.
pub fn leader_epoch_shown(
    name: &str,
    leader_epochs: Option<(i32, i32)>,
) -> Option<Result<i32, (i32, i32)>> {
    let (lo, hi) = leader_epochs.filter(|_| name == "LeaderAndIsr")?;
    Some(if lo == hi { Ok(lo) } else { Err((lo, hi)) })
}

/// A ZooKeeper write's verb.
pub fn write_verb(op: ZkWrite) -> &'static str {
    match op {
        ZkWrite::Create => "create",
        ZkWrite::Set => "setData",
        ZkWrite::Delete => "delete",
    }
}

impl Labels for English {
    fn title(&self, from_ms: u64, to_ms: u64) -> String {
        format!(
            "Sequence diagram, {} to {}",
            self.time(from_ms),
            self.time(to_ms)
        )
    }
    fn lifeline(&self, l: &Lifeline) -> String {
        match (l.party, l.controller_epoch) {
            (Party::Zk, _) => "ZooKeeper".to_string(),
            (Party::Broker(b), Some(e)) => format!("broker {b} (controller, epoch {e})"),
            (Party::Broker(b), None) => format!("broker {b}"),
        }
    }
    fn arrow(&self, a: &Arrow) -> String {
        match &a.message {
            Message::Watch { kind, path, event } => match event {
                Some(e) => format!("{} {path} → {e}", watch_name(*kind)),
                None => format!("{} {path} (lost)", watch_name(*kind)),
            },
            Message::Write { op, path, error } => match error {
                None => format!("{} {path}", write_verb(*op)),
                Some(e) => format!("{} {path}: {e}", write_verb(*op)),
            },
            Message::Traffic {
                event,
                reads,
                writes,
            } => format!("{event}: {reads} reads, {writes} writes"),
            Message::Request {
                name,
                controller_epoch,
                leader_epochs,
            } => match leader_epoch_shown(name, *leader_epochs) {
                Some(Ok(e)) => {
                    format!("{name} (controller epoch {controller_epoch}, leader epoch {e})")
                }
                Some(Err((lo, hi))) => {
                    format!("{name} (controller epoch {controller_epoch}, leader epochs {lo}–{hi})")
                }
                None => format!("{name} (controller epoch {controller_epoch})"),
            },
            Message::Response { name, error } => format!("{name}Response: {error}"),
            Message::ShutdownRequest {
                attempt,
                broker_epoch,
            } => format!("ControlledShutdown #{attempt} (broker epoch {broker_epoch})"),
            Message::ShutdownResponse { attempt, remaining } => match remaining {
                Some(0) => format!("ControlledShutdownResponse #{attempt}: NONE"),
                Some(n) => {
                    format!("ControlledShutdownResponse #{attempt}: {n} partition(s) still led")
                }
                None => format!("ControlledShutdown #{attempt} failed"),
            },
            Message::Lost { id } => format!("message #{id} lost; the controller resends"),
        }
    }
    fn mark(&self, m: &Mark) -> String {
        match &m.kind {
            MarkKind::Elected { epoch } => format!("becomes the controller, epoch {epoch}"),
            MarkKind::Resigned => "resigns as the controller".to_string(),
            MarkKind::UserAction(a) => format!("user: {}", a.describe()),
            MarkKind::SessionExpired => "ZooKeeper session expired".to_string(),
        }
    }
    fn not_drawn(&self, n: usize) -> String {
        format!("{n} earlier rows not drawn: choose a shorter window")
    }
    fn outcome(&self, o: Outcome) -> String {
        match o {
            Outcome::Delivered => "delivered".to_string(),
            Outcome::Rejected => "rejected (stale epoch, ZooKeeper error)".to_string(),
            Outcome::Dropped => "dropped on the wire".to_string(),
        }
    }
    fn legend_mark(&self) -> String {
        "a change on a lifeline (controller, user action)".to_string()
    }
    fn empty(&self) -> String {
        "nothing sent in this window".to_string()
    }
}
