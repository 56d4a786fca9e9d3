//! The built-in lessons, in the order of the article they follow. Each is a
//! file in `core/lessons/`, read with the same parser as a teacher's file;
//! `kcsim lesson check` plays each one in `cargo xtask test`.
//!
//! Native builds (the CLI, the tests) carry the files ([`FILES`]). The
//! WebAssembly build does not: the page fetches `lessons/<id>.json` (trunk
//! copies `core/lessons/` into `dist/`) and reads each with the same
//! [`Lesson::parse`], which keeps the `.wasm` about 32 KB (gzip) smaller.

#[cfg(not(target_arch = "wasm32"))]
use super::{Lesson, LessonError};

/// Every built-in lesson's id, in course order: the file is
/// `core/lessons/<id>.json` (and `lessons/<id>.json` beside the page).
pub const IDS: &[&str] = &[
    "controller-race",
    "controller-epoch",
    "controller-duties",
    "event-queue",
    "failover-triggers",
    "graceful-shutdown",
    "election-order",
    "unclean-election",
    "reassignment",
    "preferred-election",
    "controlled-shutdown-election",
];

/// Every built-in lesson's file, by id, in course order ([`IDS`]'s order).
#[cfg(not(target_arch = "wasm32"))]
pub const FILES: &[(&str, &str)] = &[
    (
        "controller-race",
        include_str!("../../lessons/controller-race.json"),
    ),
    (
        "controller-epoch",
        include_str!("../../lessons/controller-epoch.json"),
    ),
    (
        "controller-duties",
        include_str!("../../lessons/controller-duties.json"),
    ),
    (
        "event-queue",
        include_str!("../../lessons/event-queue.json"),
    ),
    (
        "failover-triggers",
        include_str!("../../lessons/failover-triggers.json"),
    ),
    (
        "graceful-shutdown",
        include_str!("../../lessons/graceful-shutdown.json"),
    ),
    (
        "election-order",
        include_str!("../../lessons/election-order.json"),
    ),
    (
        "unclean-election",
        include_str!("../../lessons/unclean-election.json"),
    ),
    (
        "reassignment",
        include_str!("../../lessons/reassignment.json"),
    ),
    (
        "preferred-election",
        include_str!("../../lessons/preferred-election.json"),
    ),
    (
        "controlled-shutdown-election",
        include_str!("../../lessons/controlled-shutdown-election.json"),
    ),
];

/// A built-in lesson by id, parsed.
#[cfg(not(target_arch = "wasm32"))]
pub fn lesson(id: &str) -> Option<Result<Lesson, LessonError>> {
    FILES
        .iter()
        .find(|(i, _)| *i == id)
        .map(|(_, text)| Lesson::parse(text))
}

/// Every built-in lesson, parsed, in course order (a broken one is left out;
/// tests check that none is).
#[cfg(not(target_arch = "wasm32"))]
pub fn all() -> Vec<Lesson> {
    FILES
        .iter()
        .filter_map(|(_, text)| Lesson::parse(text).ok())
        .collect()
}
