//! Benchmarks: figures, not timed tests (issue 13, "Benchmarks").
//!
//! The measurement code lives here once and runs natively (`kcsim bench`,
//! driven by `cargo xtask bench`) and in WebAssembly (`tests/bench_wasm.rs`,
//! in headless Chromium). The core reads no clock and no memory counter:
//! the driver injects both through a [`Host`] (a millisecond clock, the
//! bytes in use, the peak bytes and a way to reset the peak). Everything
//! else is deterministic: a seed picks the faults, the produce traffic and
//! the seek targets, so two runs do the same work and differ only in time.
//!
//! Each measurement is a [`Measurement`]: its name, its inputs, its figures
//! with their units, how many runs the figures are the median of, and
//! whether the run reached its end state (e.g. after a failover: every
//! partition has a live leader, every live broker has applied the new
//! controller's requests, nothing is in flight). Beside each figure of wall
//! time, [`Floor`] times one plain pass over as many bytes as the state
//! holds (summing a byte buffer): the memory-bandwidth floor, and the ratio
//! says how far the work is from it.
//!
//! Wall time counts only the simulator's own work: the harness's checks
//! between steps (is the cluster quiet yet? does every partition have a
//! leader?) are outside the timed spans.

use crate::action::Action;
use crate::controller::election;
use crate::ids::BrokerId;
use crate::log::Acks;
use crate::rng::Rng;
use crate::scenario::Scenario;
use crate::sim::Sim;
use crate::time::SimTime;
use crate::timeline::Timeline;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// What the driver measures with: the only clock and memory readings the
/// benchmarks use.
pub struct Host<'a> {
    /// `"native"` or `"wasm"`: printed with every measurement.
    pub platform: &'static str,
    /// A monotonic clock, in milliseconds.
    pub clock_ms: &'a dyn Fn() -> f64,
    /// Bytes in use now (resident set natively, the WebAssembly memory's
    /// size in the browser).
    pub bytes_in_use: &'a dyn Fn() -> u64,
    /// The peak bytes in use since the last [`Host::reset_peak`] (VmHWM
    /// natively; in WebAssembly memory only grows, so it is the size now).
    pub peak_bytes: &'a dyn Fn() -> u64,
    /// Reset the peak to the bytes in use now (natively
    /// `echo 5 > /proc/self/clear_refs`; a no-op in WebAssembly).
    pub reset_peak: &'a dyn Fn(),
}

impl std::fmt::Debug for Host<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("platform", &self.platform)
            .finish_non_exhaustive()
    }
}

/// The names of the measurements, in the order they run.
pub const NAMES: [&str; 10] = [
    "startup",
    "failover",
    "broker_failure",
    "steady_idle",
    "steady_produce",
    "controlled_shutdown",
    "hard_kill",
    "elections",
    "seek",
    "floor",
];

/// The size knobs of a run. [`Options::default`] is the full run of issue
/// 13; [`Options::quick`] checks the harness in seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Seed of every random choice (placement, traffic, faults, seek targets).
    pub seed: u64,
    /// Brokers of the failover cluster.
    pub brokers: u32,
    /// Partition counts of the failover cluster (one cluster per count):
    /// start-up, controller failover and broker failure run on each.
    pub partitions: Vec<u32>,
    /// Replication factor of every benchmark cluster.
    pub replication_factor: u32,
    /// Repetitions of the failover and broker failure (each on a clone of
    /// the started cluster), for clusters of at most `many_runs_up_to`
    /// partitions (200,000 by default: the goals are medians at Kafka's
    /// scale, and a single run there pays first touches of memory the later
    /// runs reuse); larger ones run once.
    pub runs: u32,
    /// See `runs`.
    pub many_runs_up_to: u32,
    /// Brokers of the controlled-shutdown cluster.
    pub shutdown_brokers: u32,
    /// Partitions of the controlled-shutdown cluster (with 20 brokers and
    /// RF 3, 200,000 partitions put 10,000 leaders on each broker).
    pub shutdown_partitions: u32,
    /// Partitions of the steady-state cluster (on `brokers` brokers); 0
    /// runs it on the first failover cluster.
    pub steady_partitions: u32,
    /// Virtual time simulated by each steady-state run, in ms.
    pub steady_ms: u64,
    /// Produce requests per virtual second in the "light traffic" run (each
    /// of 10 records, acks=all, to a random partition).
    pub produce_per_s: u32,
    /// Elections per strategy per repetition.
    pub elections: u32,
    /// Length of the seek benchmark's run of the default cluster, in ms.
    pub seek_run_ms: u64,
    /// Seeks timed.
    pub seeks: u32,
    /// Virtual time allowed after a fault for the cluster to settle, in ms.
    pub settle_ms: u64,
    /// The largest buffer the floor passes over (larger states are covered
    /// by passing over it again), in bytes.
    pub floor_chunk_bytes: usize,
    /// Run only the measurements whose names start with one of these
    /// (empty: all).
    pub only: Vec<String>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            seed: 1,
            brokers: 100,
            partitions: vec![20_000, 200_000],
            replication_factor: 3,
            runs: 3,
            many_runs_up_to: 200_000,
            shutdown_brokers: 20,
            shutdown_partitions: 200_000,
            steady_partitions: 0,
            steady_ms: 60_000,
            produce_per_s: 100,
            elections: 1_000_000,
            seek_run_ms: 3_600_000,
            seeks: 21,
            settle_ms: 120_000,
            floor_chunk_bytes: 64 << 20,
            only: Vec::new(),
        }
    }
}

/// The usage text of the options [`Options::parse`] reads.
pub const USAGE: &str = "\
options (sizes are knobs; develop small):
  --quick                 tiny sizes, to check the harness (seconds)
  --only NAME             run only measurements starting with NAME (repeatable):
                          startup failover broker_failure steady_idle steady_produce
                          controlled_shutdown hard_kill elections seek
  --brokers B             brokers of the failover cluster (default 100)
  --partitions P[,P...]   its partition counts (default 20000,200000)
  --rf R                  replication factor (default 3)
  --runs N                repetitions of failover/broker failure (median; default 3)
  --many-runs-up-to P     above P partitions run once (default 200000)
  --shutdown-brokers B    controlled-shutdown (and hard_kill) cluster's brokers (default 20)
  --shutdown-partitions P its partitions (default 200000: 10000 leaders per broker)
  --steady-partitions P   steady-state cluster (default: the first --partitions)
  --steady-ms T           virtual ms per steady-state run (default 60000)
  --produce-per-s N       light traffic: produce requests per virtual s (default 100)
  --elections N           elections per strategy per repetition (default 1000000)
  --seek-run-ms T         length of the seek benchmark's run (default 3600000)
  --seeks N               seeks timed (default 21)
  --settle-ms T           virtual ms allowed to settle after a fault (default 120000)
  --floor-chunk-mb M      the floor's buffer, in MiB (default 64)
  --seed S                seed (default 1)";

impl Options {
    /// Tiny sizes: the harness end to end in seconds (not figures to quote).
    pub fn quick() -> Options {
        Options {
            brokers: 6,
            partitions: vec![60],
            runs: 2,
            many_runs_up_to: 1_000,
            shutdown_brokers: 4,
            shutdown_partitions: 40,
            steady_ms: 10_000,
            produce_per_s: 20,
            elections: 20_000,
            seek_run_ms: 120_000,
            seeks: 5,
            settle_ms: 60_000,
            floor_chunk_bytes: 1 << 20,
            ..Options::default()
        }
    }

    /// Read `--name value` options (see [`USAGE`]); `--quick` first sets the
    /// quick sizes, whatever its position, and later options override them.
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let mut o = if args.iter().any(|a| a == "--quick") {
            Options::quick()
        } else {
            Options::default()
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if a == "--quick" {
                continue;
            }
            let v = it.next().ok_or_else(|| format!("{a} needs a value"))?;
            let num = |v: &str| -> Result<u64, String> {
                v.replace('_', "")
                    .parse::<u64>()
                    .map_err(|_| format!("{a} {v:?}: not a number"))
            };
            let small = |v: &str| -> Result<u32, String> {
                num(v).and_then(|n| u32::try_from(n).map_err(|_| format!("{a} {v}: too large")))
            };
            match a.as_str() {
                "--only" => {
                    if !NAMES.iter().any(|n| n.starts_with(v.as_str())) {
                        return Err(format!("--only {v}: no such measurement ({USAGE})"));
                    }
                    o.only.push(v.clone());
                }
                "--brokers" => o.brokers = small(v)?,
                "--partitions" => {
                    o.partitions = v
                        .split(',')
                        .map(|p| small(p.trim()))
                        .collect::<Result<_, _>>()?
                }
                "--rf" => o.replication_factor = small(v)?,
                "--runs" => o.runs = small(v)?.max(1),
                "--many-runs-up-to" => o.many_runs_up_to = small(v)?,
                "--shutdown-brokers" => o.shutdown_brokers = small(v)?,
                "--shutdown-partitions" => o.shutdown_partitions = small(v)?,
                "--steady-partitions" => o.steady_partitions = small(v)?,
                "--steady-ms" => o.steady_ms = num(v)?.max(1),
                "--produce-per-s" => o.produce_per_s = small(v)?,
                "--elections" => o.elections = small(v)?.max(1),
                "--seek-run-ms" => o.seek_run_ms = num(v)?.max(2),
                "--seeks" => o.seeks = small(v)?.max(1),
                "--settle-ms" => o.settle_ms = num(v)?,
                "--floor-chunk-mb" => {
                    o.floor_chunk_bytes = usize::try_from(num(v)?.max(1) << 20)
                        .map_err(|_| format!("{a} {v}: too large"))?
                }
                "--seed" => o.seed = num(v)?,
                _ => return Err(format!("unknown option {a}\n{USAGE}")),
            }
        }
        for (what, brokers, partitions) in [
            (
                "--brokers",
                o.brokers,
                o.partitions.iter().copied().max().unwrap_or(1),
            ),
            (
                "--shutdown-brokers",
                o.shutdown_brokers,
                o.shutdown_partitions,
            ),
            ("--steady-partitions", o.brokers, o.steady_partitions.max(1)),
        ] {
            check_shape(brokers, partitions, o.replication_factor.max(1))
                .map_err(|e| format!("{what}: {e}"))?;
        }
        if o.brokers < o.replication_factor || o.shutdown_brokers < o.replication_factor {
            return Err("every cluster needs at least --rf brokers".into());
        }
        if o.replication_factor == 0 || o.partitions.contains(&0) {
            return Err("partitions and --rf must be at least 1".into());
        }
        Ok(o)
    }

    fn wants(&self, name: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|o| name.starts_with(o.as_str()))
    }
}

/// One figure: a value and its unit.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// Its name, e.g. `wall_ms`.
    pub name: &'static str,
    /// The value (a median when the measurement has several runs).
    pub value: f64,
    /// Its unit, e.g. `ms`, `bytes`, `1/s`.
    pub unit: &'static str,
}

/// One measurement, printed as one JSON line.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// Which ([`NAMES`]).
    pub name: &'static str,
    /// `native` or `wasm`.
    pub platform: &'static str,
    /// Its inputs (sizes, seed...).
    pub inputs: Map<String, Value>,
    /// How many runs the figures are the medians of.
    pub runs: u32,
    /// The figures.
    pub figures: Vec<Figure>,
    /// Whether every run reached the end state it waits for.
    pub ok: bool,
    /// What the figures mean, in a sentence.
    pub note: String,
}

impl Measurement {
    /// A figure by name.
    pub fn figure(&self, name: &str) -> Option<f64> {
        self.figures
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.value)
    }

    /// The JSON object: `name`, `platform`, `inputs`, `runs`, `ok`,
    /// `figures` (name → value), `units` (name → unit), `note`.
    pub fn to_json(&self) -> Value {
        let mut figures = Map::new();
        let mut units = Map::new();
        for f in &self.figures {
            let v = if f.value.is_finite() {
                json!((f.value * 1000.0).round() / 1000.0)
            } else {
                Value::Null
            };
            figures.insert(f.name.to_string(), v);
            units.insert(f.name.to_string(), json!(f.unit));
        }
        json!({
            "name": self.name,
            "platform": self.platform,
            "inputs": self.inputs,
            "runs": self.runs,
            "ok": self.ok,
            "figures": figures,
            "units": units,
            "note": self.note,
        })
    }

    /// The key that pairs a native measurement with its WebAssembly twin:
    /// the name and the inputs.
    pub fn key(&self) -> String {
        format!("{} {}", self.name, Value::Object(self.inputs.clone()))
    }
}

/// The median of some figures (the mean of the middle two for an even
/// count; NaN for none).
pub fn median(xs: &[f64]) -> f64 {
    quantile(xs, 0.5)
}

/// The `q` quantile (0 to 1) by linear interpolation; NaN for none.
pub fn quantile(xs: &[f64], q: f64) -> f64 {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let pos = q.clamp(0.0, 1.0) * (v.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let (a, b) = (v.get(lo).copied(), v.get(hi).copied());
    match (a, b) {
        (Some(a), Some(b)) => a + (b - a) * (pos - lo as f64),
        _ => f64::NAN,
    }
}

/// The memory-bandwidth floor: one plain pass over a byte buffer.
#[derive(Debug)]
pub struct Floor {
    buf: Vec<u8>,
}

impl Floor {
    /// A buffer of `bytes` (written once, so its pages are really there).
    pub fn new(bytes: usize) -> Floor {
        let buf = (0..bytes.max(8)).map(|i| (i % 251) as u8).collect();
        Floor { buf }
    }

    /// Its size.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether it is empty (never: at least 8 bytes).
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Sum `bytes` bytes (passing over the buffer as often as needed) and
    /// return the milliseconds it took, by `host`'s clock.
    pub fn pass_ms(&self, host: &Host<'_>, bytes: u64) -> f64 {
        let chunk = self.buf.len() as u64;
        let t0 = (host.clock_ms)();
        let mut left = bytes.max(1);
        let mut sum = 0u64;
        while left > 0 {
            let n = usize::try_from(left.min(chunk)).unwrap_or(self.buf.len());
            sum = sum.wrapping_add(sum_bytes(&self.buf[..n]));
            left -= n as u64;
        }
        std::hint::black_box(sum);
        (host.clock_ms)() - t0
    }
}

fn sum_bytes(b: &[u8]) -> u64 {
    let words = b.chunks_exact(8);
    let tail: u64 = words.remainder().iter().map(|&x| u64::from(x)).sum();
    let body = words.fold(0u64, |acc, w| {
        let mut a = [0u8; 8];
        a.copy_from_slice(w);
        acc.wrapping_add(u64::from_le_bytes(a))
    });
    std::hint::black_box(body).wrapping_add(tail)
}

/// The benchmark cluster: brokers `0..brokers`, default configuration
/// (Kafka 2.4's defaults), seeded; the partitions in topics `big` (up to
/// [`crate::summary::MAX_PARTITIONS_PER_TOPIC`]), `big-1`, `big-2`… of at most
/// that many each, as a scenario file allows.
pub fn cluster(seed: u64, brokers: u32, partitions: u32, rf: u32) -> Result<Scenario, String> {
    check_shape(brokers, partitions, rf)?;
    let per_topic = crate::summary::MAX_PARTITIONS_PER_TOPIC;
    let mut topics = Vec::new();
    let mut left = partitions;
    while left > 0 {
        let n = left.min(per_topic);
        let name = if topics.is_empty() {
            "big".to_string()
        } else {
            format!("big-{}", topics.len())
        };
        topics.push(format!(
            r#"{{"name":"{name}","partitions":{n},"replication_factor":{rf}}}"#
        ));
        left -= n;
    }
    let text = format!(
        r#"{{"version":1,"seed":{seed},"brokers":[{}],"topics":[{}]}}"#,
        crate::ids::comma_list((0..brokers).map(BrokerId)),
        topics.join(",")
    );
    Scenario::parse(&text).map_err(|e| e.to_string())
}

/// A benchmark cluster's shape, checked as the page's cluster settings check
/// one ([`crate::summary::Shape`]): up to 100 brokers and 200,000 partitions.
fn check_shape(brokers: u32, partitions: u32, rf: u32) -> Result<(), String> {
    let per_topic = crate::summary::MAX_PARTITIONS_PER_TOPIC;
    // The shape below rounds the last topic up to a full one, so the total
    // is checked on its own first: the error names the partitions asked for.
    if u64::from(partitions) > crate::summary::MAX_PARTITIONS {
        return Err(crate::summary::ShapeError::Total(partitions.into()).to_string());
    }
    let shape = crate::summary::Shape {
        brokers,
        topics: partitions.div_ceil(per_topic).max(1),
        partitions: partitions.min(per_topic),
        replication_factor: rf,
    };
    shape.check().map_err(|e| e.to_string())
}

/// Whether the cluster has settled: a controller, nothing in flight, every
/// running broker has applied the current controller epoch's requests, and
/// every partition has a running leader not in `gone` and no ISR holds a
/// broker of `gone`. Cheap checks first: the per-partition one only runs
/// once the cheap ones pass.
fn settled(sim: &Sim, gone: &BTreeSet<BrokerId>) -> bool {
    let epoch = sim.controller_epoch();
    let idle = sim.is_quiet();
    if sim.controller_id().is_none() || !idle {
        return false;
    }
    let brokers = sim.brokers();
    if gone
        .iter()
        .any(|b| brokers.get(b).is_some_and(|b| b.is_up()))
    {
        return false;
    }
    if !brokers
        .values()
        .filter(|b| b.is_up())
        .all(|b| b.controller_epoch_seen == epoch)
    {
        return false;
    }
    every_partition_served(sim, gone)
}

/// Whether every partition of the cluster has a running leader not in
/// `gone` and no ISR naming a broker of `gone`, per its state znode as
/// observers see it, read in place: no topic's assignment is decoded (at
/// 100,000 partitions a topic, the two decoded lists a walk of the
/// partitions' overviews held at once came to 10 MiB, which the failover's
/// peak counted as the cluster's). A partition assigned with no state znode
/// yet is not served.
fn every_partition_served(sim: &Sim, gone: &BTreeSet<BrokerId>) -> bool {
    use crate::zk_client::paths;
    let brokers = sim.brokers();
    let zk = sim.zk();
    let mut served = 0usize;
    for topic in zk.observed_children(paths::TOPICS) {
        for p in zk.observed_children(&paths::partitions(&topic)) {
            let state = p
                .parse::<u32>()
                .ok()
                .and_then(|p| zk.observed_partition_state(&topic, p))
                .and_then(|n| n.partition_state());
            let Some(l) = state else {
                return false;
            };
            let leader_up = l
                .leader
                .is_some_and(|b| !gone.contains(&b) && brokers.get(&b).is_some_and(|b| b.is_up()));
            if !leader_up || l.isr.iter().any(|r| gone.contains(r)) {
                return false;
            }
            served += 1;
        }
    }
    served == sim.partition_count()
}

/// What a run to a settled state found.
#[derive(Debug, Clone, Copy)]
struct Settle {
    /// Wall time of the simulator's steps, ms.
    wall_ms: f64,
    /// Wall time after `mark` first held, ms (NaN if it never did).
    wall_after_mark_ms: f64,
    /// The longest wall time of one event, or of one piece of a step that
    /// stops between pieces (`Sim::step_piece`), ms: the page may draw
    /// between two such moments (`Timeline::run_within`), never inside one,
    /// so this is the longest a frame can wait while the run plays.
    longest_moment_ms: f64,
    /// Virtual time when settled (or when given up).
    at: SimTime,
    /// Virtual time when `mark` first held.
    mark_at: Option<SimTime>,
    /// Whether it settled before the deadline.
    ok: bool,
}

/// Step `sim` one virtual millisecond at a time (everything due at the next
/// event's time) until `settled(gone)` or `deadline`; the checks between
/// steps are outside the timed spans.
fn run_to_settled(
    host: &Host<'_>,
    sim: &mut Sim,
    gone: &BTreeSet<BrokerId>,
    not_before: SimTime,
    deadline: SimTime,
    mark: &dyn Fn(&Sim) -> bool,
) -> Settle {
    let mut wall = 0.0;
    let mut longest: f64 = 0.0;
    let mut mark_wall = None;
    let mut mark_at = None;
    while let Some(t) = sim.next_event_time() {
        if t > deadline {
            break;
        }
        // The events at `t` by pieces, as the page plays them: it may draw
        // between two events and where a step stops between pieces
        // (`Sim::step_piece`), so the longest of them is the longest a
        // frame can wait.
        while sim.next_event_time().is_some_and(|e| e <= t) {
            let t0 = (host.clock_ms)();
            sim.step_piece();
            let took = (host.clock_ms)() - t0;
            wall += took;
            longest = longest.max(took);
        }
        let t0 = (host.clock_ms)();
        sim.run_until(t);
        let took = (host.clock_ms)() - t0;
        wall += took;
        longest = longest.max(took);
        if mark_at.is_none() && mark(sim) {
            mark_at = Some(sim.now());
            mark_wall = Some(wall);
        }
        if sim.now() >= not_before && mark_at.is_some() && settled(sim, gone) {
            return Settle {
                wall_ms: wall,
                wall_after_mark_ms: mark_wall.map_or(f64::NAN, |m| wall - m),
                longest_moment_ms: longest,
                at: sim.now(),
                mark_at,
                ok: true,
            };
        }
    }
    Settle {
        wall_ms: wall,
        wall_after_mark_ms: mark_wall.map_or(f64::NAN, |m| wall - m),
        longest_moment_ms: longest,
        at: sim.now(),
        mark_at,
        ok: false,
    }
}

fn fig(name: &'static str, value: f64, unit: &'static str) -> Figure {
    Figure { name, value, unit }
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// Memory and floor figures for a state of `state_bytes`, beside `wall_ms`.
fn floor_figures(
    host: &Host<'_>,
    floor: &Floor,
    peak: u64,
    state_bytes: u64,
    wall_ms: f64,
) -> Vec<Figure> {
    // The median of three passes: one stray pause should not make the floor.
    let passes: Vec<f64> = (0..3).map(|_| floor.pass_ms(host, state_bytes)).collect();
    let floor_ms = median(&passes);
    vec![
        fig("peak_mb", mb(peak), "MiB"),
        fig("state_mb", mb(state_bytes), "MiB"),
        fig("floor_ms", floor_ms, "ms"),
        fig("floor_ratio", wall_ms / floor_ms.max(1e-6), "x"),
    ]
}

/// A running benchmark: the host, the options and a baseline.
struct Bench<'h, 'e> {
    host: &'h Host<'h>,
    o: &'h Options,
    /// The floor's buffer, made before anything else and held to the end:
    /// its pages are in use all the while, so a peak less its size is the
    /// benchmarks' own. (Made after a peak was read and freed after, as it
    /// was until 2026-12-03, it stayed in a WebAssembly memory, which never
    /// shrinks, and every later measurement's peak counted it: 64 MiB.)
    floor: Floor,
    /// Bytes in use with the floor's buffer made.
    baseline: u64,
    emit: &'e mut dyn FnMut(&Measurement),
    all: Vec<Measurement>,
}

impl Bench<'_, '_> {
    /// [`floor_figures`] with this run's host and floor size.
    fn floor_figures(&self, peak: u64, state: u64, wall_ms: f64) -> Vec<Figure> {
        floor_figures(self.host, &self.floor, peak, state, wall_ms)
    }

    /// The host's peak since its last reset, less the floor's buffer.
    fn peak(&self) -> u64 {
        (self.host.peak_bytes)().saturating_sub(self.floor.len() as u64)
    }

    /// Bytes in use above the baseline (the state the benchmark built).
    fn state_bytes(&self) -> u64 {
        (self.host.bytes_in_use)().saturating_sub(self.baseline)
    }

    fn push(&mut self, m: Measurement) {
        (self.emit)(&m);
        self.all.push(m);
    }

    fn measurement(
        &self,
        name: &'static str,
        inputs: Value,
        runs: u32,
        figures: Vec<Figure>,
        ok: bool,
        note: &str,
    ) -> Measurement {
        let inputs = match inputs {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        Measurement {
            name,
            platform: self.host.platform,
            inputs,
            runs,
            figures,
            ok,
            note: note.to_string(),
        }
    }

    /// Start a cluster and run it until settled; the start-up measurement.
    fn start(&mut self, brokers: u32, partitions: u32, report: bool) -> Result<Sim, String> {
        let o = self.o;
        let scenario = cluster(o.seed, brokers, partitions, o.replication_factor)?;
        (self.host.reset_peak)();
        let t0 = (self.host.clock_ms)();
        let mut sim = scenario.build();
        let build_ms = (self.host.clock_ms)() - t0;
        let s = run_to_settled(
            self.host,
            &mut sim,
            &BTreeSet::new(),
            SimTime(0),
            SimTime(o.settle_ms),
            &|_| true,
        );
        let peak = self.peak();
        let state = self.state_bytes();
        // The trace leaves the cluster, as the timeline takes it out of its
        // snapshots: the faults' runs below start from clones without it.
        drop(sim.take_trace());
        if report && o.wants("startup") {
            let wall = build_ms + s.wall_ms;
            let mut figures = vec![
                fig("wall_ms", wall, "ms"),
                fig("virtual_ms", s.at.as_ms() as f64, "ms"),
                fig("longest_moment_ms", s.longest_moment_ms, "ms"),
            ];
            figures.extend(self.floor_figures(peak, state, wall));
            figures.extend(self.clone_figures(&sim));
            let m = self.measurement(
                "startup",
                self.inputs(brokers, partitions),
                1,
                figures,
                s.ok,
                "topic in ZooKeeper, every broker started at 0: until a controller, every partition led, every request applied",
            );
            self.push(m);
        }
        if !s.ok {
            return Err(format!(
                "{brokers} brokers, {partitions} partitions did not settle within {} ms of virtual time",
                o.settle_ms
            ));
        }
        Ok(sim)
    }

    /// What a copy of the settled cluster costs (a timeline snapshot, a
    /// fault's run below): the wall time of one clone (median of 5), the
    /// bytes in use that holding 5 clones added, per clone (the resident
    /// set: memory the allocator had free is reused, so this is a lower
    /// bound; a counting allocator gives the exact figure, see
    /// docs/benchmarks.md), and the timeline's estimate of a snapshot of it
    /// (`Timeline::snapshot_weight_of`) beside a snapshot of the same state
    /// (the least: what a clone copies whole) and beside none (the most:
    /// nothing shared), with how many such snapshots fit its budget.
    fn clone_figures(&self, sim: &Sim) -> Vec<Figure> {
        const CLONES: usize = 5;
        let before = (self.host.bytes_in_use)();
        let mut times = Vec::new();
        let mut held = Vec::new();
        for _ in 0..CLONES {
            let t0 = (self.host.clock_ms)();
            held.push(sim.clone());
            times.push((self.host.clock_ms)() - t0);
        }
        let bytes = (self.host.bytes_in_use)().saturating_sub(before) / CLONES as u64;
        // A snapshot beside one of the same state shares every chunk (the
        // least it weighs); beside none, it shares nothing (the most).
        let least = held
            .first()
            .map_or(0, |c| Timeline::snapshot_weight_of(sim, Some(c)));
        drop(held);
        let most = Timeline::snapshot_weight_of(sim, None);
        let budget = crate::timeline::SNAPSHOT_BUDGET;
        vec![
            fig("clone_ms", median(&times), "ms"),
            fig("clone_mb", mb(bytes), "MiB"),
            fig("snapshot_least_mb", mb(least as u64), "MiB"),
            fig("snapshot_most_mb", mb(most as u64), "MiB"),
            fig(
                "snapshots_in_budget_least",
                (budget / most.max(1)) as f64,
                "snapshots",
            ),
            fig(
                "snapshots_in_budget_most",
                (budget / least.max(1)) as f64,
                "snapshots",
            ),
        ]
    }

    fn inputs(&self, brokers: u32, partitions: u32) -> Value {
        json!({"brokers": brokers, "partitions": partitions, "rf": self.o.replication_factor, "seed": self.o.seed})
    }

    /// Apply `action` one second after `started`'s settling on clones of it,
    /// `runs` times, and run each to settled; the medians.
    #[allow(clippy::too_many_arguments)]
    fn fault(
        &mut self,
        name: &'static str,
        started: &Sim,
        action: Action,
        gone: BTreeSet<BrokerId>,
        mark: &dyn Fn(&Sim) -> bool,
        inputs: Value,
        note: &str,
        mark_label: (&'static str, &'static str),
    ) {
        let o = self.o;
        let partitions = started.partition_overviews().count() as u32;
        let runs = if partitions <= o.many_runs_up_to {
            o.runs
        } else {
            1
        };
        let mut walls = Vec::new();
        let mut longest = Vec::new();
        let mut after_mark = Vec::new();
        let mut virt = Vec::new();
        let mut virt_after_mark = Vec::new();
        let mut ok = true;
        let mut peak = 0;
        let mut state = 0;
        for _ in 0..runs {
            (self.host.reset_peak)();
            let mut sim = started.clone();
            let at = SimTime(sim.now().as_ms() + 1_000);
            if sim.schedule_action(at, action.clone()).is_err() {
                ok = false;
                break;
            }
            let s = run_to_settled(
                self.host,
                &mut sim,
                &gone,
                at,
                SimTime(at.as_ms() + o.settle_ms),
                mark,
            );
            ok &= s.ok;
            walls.push(s.wall_ms);
            longest.push(s.longest_moment_ms);
            after_mark.push(s.wall_after_mark_ms);
            virt.push((s.at.as_ms() - at.as_ms()) as f64);
            virt_after_mark.push(
                s.mark_at
                    .map_or(f64::NAN, |m| s.at.as_ms().saturating_sub(m.as_ms()) as f64),
            );
            peak = peak.max(self.peak());
            state = state.max(self.state_bytes());
            drop(sim);
        }
        let wall = median(&walls);
        let mut figures = vec![
            fig("wall_ms", wall, "ms"),
            fig(mark_label.0, median(&after_mark), "ms"),
            fig("virtual_ms", median(&virt), "ms"),
            fig(mark_label.1, median(&virt_after_mark), "ms"),
            fig("longest_moment_ms", median(&longest), "ms"),
        ];
        figures.extend(self.floor_figures(peak, state, wall));
        let m = self.measurement(name, inputs, runs, figures, ok, note);
        self.push(m);
    }

    fn failover_cluster(&mut self, partitions: u32) -> Result<(), String> {
        let o = self.o;
        let needs_cluster = ["startup", "failover", "broker_failure"]
            .iter()
            .any(|n| o.wants(n))
            || (o.wants("steady") && self.steady_on(partitions));
        if !needs_cluster {
            return Ok(());
        }
        let started = self.start(o.brokers, partitions, true)?;
        if o.wants("steady") && self.steady_on(partitions) {
            self.steady(&started, partitions);
        }
        let controller = started
            .controller_id()
            .ok_or("no controller after start-up")?;
        let epoch = started.controller_epoch();
        if o.wants("failover") {
            self.fault(
                "failover",
                &started,
                Action::KillBroker { broker: controller },
                BTreeSet::from([controller]),
                &move |s: &Sim| s.controller_epoch() > epoch,
                self.inputs(o.brokers, partitions),
                "kill -9 of the controller until every partition has a live leader and every broker applied the new controller's requests; wall_ms/virtual_ms from the kill (includes waiting out zookeeper.session.timeout.ms), *_from_election_ms from the moment the new controller was elected",
                ("wall_from_election_ms", "virtual_from_election_ms"),
            );
        }
        if o.wants("broker_failure") {
            let victim = started
                .brokers()
                .keys()
                .copied()
                .find(|b| *b != controller)
                .ok_or("no broker besides the controller")?;
            let leads = started
                .partition_overviews()
                .filter(|p| p.leader == Some(victim))
                .count();
            let path = format!("/brokers/ids/{}", victim.0);
            let mut inputs = self.inputs(o.brokers, partitions);
            inputs["victim_leads"] = json!(leads);
            self.fault(
                "broker_failure",
                &started,
                Action::KillBroker { broker: victim },
                BTreeSet::from([victim]),
                &move |s: &Sim| s.zk().observed(&path).is_none(),
                inputs,
                "kill -9 of a broker that is not the controller: new leaders for the partitions it led, ISR shrinks for those it followed; *_from_expiry_ms from the moment its session expired (its /brokers/ids znode gone)",
                ("wall_from_expiry_ms", "virtual_from_expiry_ms"),
            );
        }
        Ok(())
    }

    fn steady_on(&self, partitions: u32) -> bool {
        let o = self.o;
        let first = o.partitions.first().copied().unwrap_or(0);
        if o.steady_partitions == 0 {
            partitions == first
        } else {
            partitions == o.steady_partitions
        }
    }

    /// Virtual seconds per wall second on a settled cluster, idle and with
    /// light produce traffic.
    fn steady(&mut self, started: &Sim, partitions: u32) {
        let o = self.o;
        for traffic in [false, true] {
            let name = if traffic {
                "steady_produce"
            } else {
                "steady_idle"
            };
            if !o.wants(name) {
                continue;
            }
            let mut sim = started.clone();
            let from = sim.now().as_ms();
            let until = from + o.steady_ms;
            let mut rng = Rng::new(o.seed ^ 0x0074_7261_6666_6963);
            let mut requests = 0u64;
            if traffic && o.produce_per_s > 0 {
                let every = (1_000 / u64::from(o.produce_per_s)).max(1);
                let mut t = from + every;
                while t <= until {
                    let p = rng.below(u64::from(partitions)) as u32;
                    let _ = sim.schedule_action(
                        SimTime(t),
                        Action::Produce {
                            topic: "big".into(),
                            partition: p,
                            records: 10,
                            acks: Acks::All,
                        },
                    );
                    requests += 1;
                    t += every;
                }
            }
            (self.host.reset_peak)();
            let t0 = (self.host.clock_ms)();
            sim.run_until(SimTime(until));
            let wall = (self.host.clock_ms)() - t0;
            let peak = self.peak();
            let mut figures = vec![
                fig("wall_ms", wall, "ms"),
                fig("virtual_ms", o.steady_ms as f64, "ms"),
                fig(
                    "virtual_s_per_wall_s",
                    o.steady_ms as f64 / wall.max(1e-6),
                    "s/s",
                ),
            ];
            let state = self.state_bytes();
            figures.extend(self.floor_figures(peak, state, wall));
            let mut inputs = self.inputs(o.brokers, partitions);
            inputs["steady_ms"] = json!(o.steady_ms);
            if traffic {
                inputs["produce_per_s"] = json!(o.produce_per_s);
                inputs["records_per_request"] = json!(10);
                inputs["acks"] = json!("all");
            }
            let ok = sim.violations().is_empty()
                && (!traffic || sim.produced().len() as u64 >= requests.min(1));
            let note = if traffic {
                "a settled cluster with light traffic: produce requests of 10 records (acks=all) to random partitions"
            } else {
                "a settled cluster, no faults, no traffic: heartbeats and idle fetch rounds only"
            };
            let m = self.measurement(name, inputs, 1, figures, ok, note);
            self.push(m);
        }
    }

    /// The controlled shutdown (kill -15) of the broker that leads the most
    /// partitions in the shutdown cluster, and the hard kill (kill -9) of
    /// the same broker: issue 13's "broker failure and controlled shutdown
    /// of a 10,000-partition broker" at that shape.
    fn controlled_shutdown(&mut self) -> Result<(), String> {
        let o = self.o;
        if !o.wants("controlled_shutdown") && !o.wants("hard_kill") {
            return Ok(());
        }
        let started = self.start(o.shutdown_brokers, o.shutdown_partitions, false)?;
        let controller = started.controller_id().ok_or("no controller")?;
        // Counted in one pass, not kept as a list of every partition: the
        // runs below measure their peaks with this in memory.
        let mut led: BTreeMap<BrokerId, usize> = BTreeMap::new();
        for p in started.partition_overviews() {
            if let Some(l) = p.leader {
                *led.entry(l).or_default() += 1;
            }
        }
        let leads = |b: BrokerId| led.get(&b).copied().unwrap_or(0);
        let victim = started
            .brokers()
            .keys()
            .copied()
            .filter(|b| *b != controller)
            .max_by_key(|b| (leads(*b), std::cmp::Reverse(*b)))
            .ok_or("no broker besides the controller")?;
        let mut inputs = self.inputs(o.shutdown_brokers, o.shutdown_partitions);
        inputs["victim_leads"] = json!(leads(victim));
        let path = format!("/brokers/ids/{}", victim.0);
        let gone = move |s: &Sim| s.zk().observed(&path).is_none();
        if o.wants("controlled_shutdown") {
            self.fault(
                "controlled_shutdown",
                &started,
                Action::ShutdownBroker { broker: victim },
                BTreeSet::from([victim]),
                &gone,
                inputs.clone(),
                "kill -15 (controlled shutdown) of a broker that is not the controller, until it has exited, every partition has a live leader and the ISRs no longer hold it, nothing in flight (Sim::is_quiet); *_from_deregistration_ms from the moment its /brokers/ids znode was gone",
                ("wall_from_deregistration_ms", "virtual_from_deregistration_ms"),
            );
        }
        if o.wants("hard_kill") {
            self.fault(
                "hard_kill",
                &started,
                Action::KillBroker { broker: victim },
                BTreeSet::from([victim]),
                &gone,
                inputs,
                "kill -9 of the broker controlled_shutdown shuts down (the same cluster and broker): new leaders for the partitions it led, ISR shrinks for those it followed; *_from_expiry_ms from the moment its session expired (its /brokers/ids znode gone)",
                ("wall_from_expiry_ms", "virtual_from_expiry_ms"),
            );
        }
        Ok(())
    }

    /// The four election functions on seeded inputs, elections per second.
    fn elections(&mut self) {
        let o = self.o;
        if !o.wants("elections") {
            return;
        }
        let brokers = 100u32;
        let inputs_n = 4_096usize;
        let mut rng = Rng::new(o.seed ^ 0x0065_6c65_6374);
        let mut cases = Vec::with_capacity(inputs_n);
        for _ in 0..inputs_n {
            let first = rng.below(u64::from(brokers)) as u32;
            let step = 1 + rng.below(u64::from(brokers - 1)) as u32;
            let ar: Vec<BrokerId> = (0..o.replication_factor.min(brokers))
                .map(|i| BrokerId((first + i * step) % brokers))
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            let keep = 1 + rng.below(ar.len() as u64) as usize;
            let isr: Vec<BrokerId> = ar.iter().copied().take(keep).collect();
            cases.push((ar, isr));
        }
        // Five brokers down, one shutting down; the sets are of the kind the
        // controller passes its elections.
        let live: election::BrokerBits = (5..brokers).map(BrokerId).collect();
        let shutting: election::BrokerBits = [BrokerId(5)].into_iter().collect();
        let clock = self.host.clock_ms;
        let reps = if o.runs > 1 { 5 } else { 1 };
        type One<'a> = &'a dyn Fn(&[BrokerId], &[BrokerId]) -> usize;
        let offline: One =
            &|ar, isr| usize::from(election::offline(ar, isr, &live, || false).leader.is_some());
        let controlled: One = &|ar, isr| {
            usize::from(
                election::controlled_shutdown(ar, isr, &live, &shutting)
                    .leader
                    .is_some(),
            )
        };
        let preferred: One =
            &|ar, isr| usize::from(election::preferred(ar, isr, &live).leader.is_some());
        let reassign: One =
            &|ar, isr| usize::from(election::reassign(ar, isr, &live).leader.is_some());
        let strategies: [(&'static str, One); 4] = [
            ("offline_per_s", offline),
            ("controlled_shutdown_per_s", controlled),
            ("preferred_per_s", preferred),
            ("reassign_per_s", reassign),
        ];
        let mut figures = Vec::new();
        let mut total_ms = 0.0;
        for (label, f) in strategies {
            let mut rates = Vec::new();
            for _ in 0..reps {
                let t0 = clock();
                let mut led = 0usize;
                for i in 0..o.elections as usize {
                    let (ar, isr) = &cases[i % inputs_n];
                    led += f(std::hint::black_box(ar), std::hint::black_box(isr));
                }
                std::hint::black_box(led);
                let ms = clock() - t0;
                total_ms += ms;
                rates.push(f64::from(o.elections) / (ms.max(1e-6) / 1_000.0));
            }
            figures.push(fig(label, median(&rates), "1/s"));
        }
        let all = f64::from(o.elections) * 4.0 * f64::from(reps) / (total_ms.max(1e-6) / 1_000.0);
        figures.insert(0, fig("elections_per_s", all, "1/s"));
        let m = self.measurement(
            "elections",
            json!({"elections": o.elections, "distinct_inputs": inputs_n, "brokers": brokers, "rf": o.replication_factor, "live": brokers - 5, "seed": o.seed}),
            reps,
            figures,
            true,
            "election::{offline, controlled_shutdown, preferred, reassign} alone on seeded AR/ISR inputs (each result's explanation included)",
        );
        self.push(m);
    }

    /// Seek a run of the default cluster with seeded faults and traffic to
    /// random earlier moments; each seek starts from a clone at the end.
    fn seek(&mut self) {
        let o = self.o;
        if !o.wants("seek") {
            return;
        }
        let (scenario, faults) = seek_scenario(o.seed, o.seek_run_ms);
        (self.host.reset_peak)();
        let t0 = (self.host.clock_ms)();
        let mut tl = Timeline::new(&scenario);
        tl.seek(SimTime(o.seek_run_ms));
        let build_ms = (self.host.clock_ms)() - t0;
        let mut rng = Rng::new(o.seed ^ 0x7365_656b);
        let mut times = Vec::new();
        for _ in 0..o.seeks {
            let mut copy = tl.clone();
            let target = SimTime(rng.below(o.seek_run_ms));
            let t0 = (self.host.clock_ms)();
            copy.seek(target);
            times.push((self.host.clock_ms)() - t0);
            std::hint::black_box(copy.now());
        }
        let peak = self.peak();
        let med = median(&times);
        let mut figures = vec![
            fig("seek_median_ms", med, "ms"),
            fig("seek_p90_ms", quantile(&times, 0.9), "ms"),
            fig("seek_max_ms", quantile(&times, 1.0), "ms"),
            fig("run_ms", build_ms, "ms"),
            fig("snapshots", tl.snapshot_count() as f64, "count"),
        ];
        let state = self.state_bytes();
        figures.extend(self.floor_figures(peak, state, med));
        let m = self.measurement(
            "seek",
            json!({"scenario": "default", "run_ms": o.seek_run_ms, "faults": faults, "seeks": o.seeks, "seed": o.seed}),
            o.seeks,
            figures,
            tl.now() == SimTime(o.seek_run_ms),
            "Timeline::seek from the end of the run to a seeded random earlier moment (each from a fresh clone); run_ms is the run itself",
        );
        self.push(m);
    }
}

/// The page's default cluster run for `run_ms` with produce traffic (its
/// own, a record every 2 s, continued to the end) and a seeded fault every
/// two minutes (kill -9 and restart, pause, session expiry, controlled
/// shutdown and restart, a slow follower). Returns it and the fault count.
pub fn seek_scenario(seed: u64, run_ms: u64) -> (Scenario, u64) {
    let mut s = crate::scenario::builtin::default_cluster();
    let brokers = s.brokers.clone();
    let last = s.last_action_ms();
    let mut t = last + 2_000;
    let mut i = 0u32;
    while t < run_ms {
        s.actions.push((
            SimTime(t),
            Action::Produce {
                topic: "orders".into(),
                partition: i % 4,
                records: 1,
                acks: Acks::All,
            },
        ));
        i += 1;
        t += 2_000;
    }
    let mut rng = Rng::new(seed ^ 0x6661_756c_7473);
    let mut faults = 0u64;
    let mut t = 30_000;
    while t + 60_000 < run_ms && !brokers.is_empty() {
        let b = brokers[rng.below(brokers.len() as u64) as usize];
        let back = SimTime(t + 30_000);
        let at = SimTime(t);
        match rng.below(5) {
            0 => {
                s.actions.push((at, Action::KillBroker { broker: b }));
                s.actions.push((back, Action::StartBroker { broker: b }));
            }
            1 => s.actions.push((
                at,
                Action::PauseBroker {
                    broker: b,
                    duration_ms: 8_000,
                },
            )),
            2 => s.actions.push((at, Action::ExpireSession { broker: b })),
            3 => {
                s.actions.push((at, Action::ShutdownBroker { broker: b }));
                s.actions.push((back, Action::StartBroker { broker: b }));
            }
            _ => {
                s.actions.push((
                    at,
                    Action::SlowBroker {
                        broker: b,
                        lag_ms: 15_000,
                    },
                ));
                s.actions.push((back, Action::HealBroker { broker: b }));
            }
        }
        faults += 1;
        t += 120_000;
    }
    s.actions.sort_by_key(|(t, _)| *t);
    (s, faults)
}

/// Run the benchmarks `o` asks for; `emit` gets each measurement as it is
/// made (print it at once: the large ones take a while). Returns them all,
/// or the first failure to build or settle a cluster.
pub fn run(
    host: &Host<'_>,
    o: &Options,
    emit: &mut dyn FnMut(&Measurement),
) -> Result<Vec<Measurement>, String> {
    let floor = Floor::new(o.floor_chunk_bytes);
    let baseline = (host.bytes_in_use)();
    let mut b = Bench {
        host,
        o,
        floor,
        baseline,
        emit,
        all: Vec::new(),
    };
    b.elections();
    b.seek();
    for &p in &o.partitions {
        b.failover_cluster(p)?;
    }
    if o.steady_partitions != 0 && !o.partitions.contains(&o.steady_partitions) && o.wants("steady")
    {
        let started = b.start(o.brokers, o.steady_partitions, false)?;
        b.steady(&started, o.steady_partitions);
    }
    b.controlled_shutdown()?;
    // The floor alone, over its own buffer: memory bandwidth in GB/s.
    if o.wants("floor") {
        let bytes = b.floor.len() as u64;
        let times: Vec<f64> = (0..5).map(|_| b.floor.pass_ms(host, bytes)).collect();
        let ms = median(&times);
        let m = b.measurement(
            "floor",
            json!({"bytes": bytes}),
            5,
            vec![
                fig("pass_ms", ms, "ms"),
                fig("gb_per_s", bytes as f64 / (ms.max(1e-6) * 1e6), "GB/s"),
            ],
            true,
            "one plain pass (a sum) over the floor's own buffer: the memory bandwidth every floor_ratio is relative to",
        );
        b.push(m);
    }
    Ok(b.all)
}

/// The short table for people: one line per measurement, its main figures.
pub fn table(ms: &[Measurement]) -> String {
    let mut out = String::from(
        "| measurement | platform | inputs | runs | ok | wall / rate | virtual | peak MiB | floor ratio |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for m in ms {
        let inputs: Vec<String> = m
            .inputs
            .iter()
            .filter(|(k, _)| k.as_str() != "seed")
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let f = |n: &str| m.figure(n);
        let main = match m.name {
            "elections" => f("elections_per_s").map(|v| format!("{:.2} M elections/s", v / 1e6)),
            "seek" => f("seek_median_ms").map(|v| {
                format!(
                    "median {v:.2} ms, p90 {:.2} ms",
                    f("seek_p90_ms").unwrap_or(f64::NAN)
                )
            }),
            "steady_idle" | "steady_produce" => {
                f("virtual_s_per_wall_s").map(|v| format!("{v:.1} virtual s / wall s"))
            }
            "floor" => f("gb_per_s").map(|v| format!("{v:.2} GB/s")),
            _ => f("wall_ms").map(|v| {
                let after = m
                    .figures
                    .get(1)
                    .filter(|x| x.name.starts_with("wall_from"))
                    .map(|x| format!(" ({:.1} ms {})", x.value, &x.name[5..x.name.len() - 3]))
                    .unwrap_or_default();
                format!("{v:.1} ms{after}")
            }),
        }
        .unwrap_or_else(|| "—".into());
        let virt = f("virtual_ms").map_or("—".into(), |v| format!("{:.1} s", v / 1000.0));
        let peak = f("peak_mb").map_or("—".into(), |v| format!("{v:.0}"));
        let ratio = f("floor_ratio").map_or("—".into(), |v| {
            if v < 10.0 {
                format!("{v:.2}×")
            } else {
                format!("{v:.0}×")
            }
        });
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            m.name,
            m.platform,
            inputs.join(" "),
            m.runs,
            if m.ok { "yes" } else { "NO" },
            main,
            virt,
            peak,
            ratio
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_and_ignore_nan() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(quantile(&[1.0, f64::NAN, 11.0], 0.9), 10.0);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn options_parse_sizes_and_refuse_unknowns() {
        let args = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        let o = Options::parse(&args("--partitions 2_000,20000 --quick --only fail")).unwrap();
        assert_eq!(o.partitions, vec![2_000, 20_000]);
        assert_eq!(o.brokers, Options::quick().brokers);
        assert_eq!(o.only, vec!["fail".to_string()]);
        assert!(Options::parse(&args("--only nothing")).is_err());
        assert!(Options::parse(&args("--brokers")).is_err());
        assert!(Options::parse(&args("--frobs 3")).is_err());
        assert!(Options::parse(&args("--brokers 2")).is_err());
    }

    #[test]
    fn a_cluster_over_the_limit_is_refused_naming_the_partitions_asked_for() {
        // 250,000 is cut into three topics; the refusal names 250,000, not
        // the 300,000 of three full topics.
        let e = cluster(1, 100, 250_000, 3).unwrap_err();
        assert!(e.contains("250000") || e.contains("250,000"), "{e}");
        assert!(!e.contains("300"), "{e}");
        let e = cluster(1, 101, 1_000, 3).unwrap_err();
        assert!(e.contains("101"), "{e}");
        assert!(cluster(1, 100, 200_000, 3).is_ok());
    }

    #[test]
    fn the_floor_sums_every_byte_it_is_asked_for() {
        assert_eq!(sum_bytes(&[1, 2, 3]), 6);
        let words: Vec<u8> = (0..16).collect();
        let expect = u64::from_le_bytes([0, 1, 2, 3, 4, 5, 6, 7])
            .wrapping_add(u64::from_le_bytes([8, 9, 10, 11, 12, 13, 14, 15]));
        assert_eq!(sum_bytes(&words), expect);
    }

    /// The harness end to end at tiny sizes, with a fake clock (no timing is
    /// asserted): every measurement is there, with its figures, and every
    /// fault settled.
    // Kafka: KafkaController.onControllerFailover and onBrokerFailure elect a
    // live leader for every partition the failed broker led and shrink the ISRs
    // it was in; a controlled shutdown (ControlledShutdownLeaderSelector) moves
    // its leaders away before it exits.
    #[test]
    fn the_harness_runs_and_every_fault_settles() {
        let ticks = std::cell::Cell::new(0.0);
        let clock = || {
            ticks.set(ticks.get() + 0.25);
            ticks.get()
        };
        let host = Host {
            platform: "test",
            clock_ms: &clock,
            bytes_in_use: &|| 1 << 20,
            peak_bytes: &|| 2 << 20,
            reset_peak: &|| {},
        };
        let mut o = Options::quick();
        o.elections = 2_000;
        o.seek_run_ms = 100_000;
        o.seeks = 3;
        o.floor_chunk_bytes = 4_096;
        let mut emitted = 0;
        let all = run(&host, &o, &mut |_| emitted += 1).unwrap();
        assert_eq!(emitted, all.len());
        let names: Vec<&str> = all.iter().map(|m| m.name).collect();
        assert_eq!(
            names,
            [
                "elections",
                "seek",
                "startup",
                "steady_idle",
                "steady_produce",
                "failover",
                "broker_failure",
                "controlled_shutdown",
                "hard_kill",
                "floor"
            ]
        );
        for m in &all {
            assert!(m.ok, "{} reached its end state", m.name);
            let j = m.to_json();
            for k in [
                "name", "platform", "inputs", "runs", "ok", "figures", "units", "note",
            ] {
                assert!(j.get(k).is_some(), "{}: {k}", m.name);
            }
            for f in &m.figures {
                assert!(
                    f.value.is_finite() && f.value >= 0.0,
                    "{} {}",
                    m.name,
                    f.name
                );
                assert_eq!(j["units"][f.name], f.unit);
            }
        }
        let get = |n: &str, f: &str| all.iter().find(|m| m.name == n).and_then(|m| m.figure(f));
        // The failover waited for the dead controller's ZooKeeper session to
        // expire (some seconds: the session's deadline counts from its last
        // heartbeat), then a new controller was elected and settled after.
        let session = 6_000.0;
        let waited = get("failover", "virtual_ms").unwrap()
            - get("failover", "virtual_from_election_ms").unwrap();
        assert!(waited > 1_000.0 && waited <= session + 1_000.0, "{waited}");
        let waited = get("broker_failure", "virtual_ms").unwrap()
            - get("broker_failure", "virtual_from_expiry_ms").unwrap();
        assert!(waited > 1_000.0 && waited <= session + 1_000.0, "{waited}");
        // A controlled shutdown closes its session at once: no timeout to wait;
        // a hard kill of the same broker waits for it.
        assert!(get("controlled_shutdown", "virtual_ms").unwrap() < 1_000.0);
        let waited = get("hard_kill", "virtual_ms").unwrap()
            - get("hard_kill", "virtual_from_expiry_ms").unwrap();
        assert!(waited > 1_000.0 && waited <= session + 1_000.0, "{waited}");
        assert!(get("startup", "virtual_ms").unwrap() > 0.0);
        // The longest moment is one of the timed spans the wall time adds up
        // (the fake clock makes each the same): more than none, less than all.
        for n in [
            "startup",
            "failover",
            "broker_failure",
            "controlled_shutdown",
            "hard_kill",
        ] {
            let longest = get(n, "longest_moment_ms").unwrap();
            assert!(longest > 0.0 && longest < get(n, "wall_ms").unwrap(), "{n}");
        }
        assert_eq!(get("steady_idle", "virtual_ms"), Some(10_000.0));
        assert!(get("elections", "elections_per_s").unwrap() > 0.0);
        assert!(get("seek", "seek_p90_ms").unwrap() >= get("seek", "seek_median_ms").unwrap());
        let leads = |n: &str| {
            all.iter()
                .find(|m| m.name == n)
                .and_then(|m| m.inputs.get("victim_leads")?.as_u64())
        };
        assert!(leads("controlled_shutdown").is_some_and(|n| n > 0));
        assert_eq!(leads("hard_kill"), leads("controlled_shutdown"));
        let t = table(&all);
        assert_eq!(t.lines().count(), 2 + all.len());
    }

    /// `settled`'s walk of the state znodes answers as the check over every
    /// partition's overview (its assignment, leader and ISR) it replaced, at
    /// every moment of a start-up, a topic's creation, a kill -9 and a
    /// controlled shutdown, for no broker gone, the brokers that fail, and a
    /// running one (named gone, it is in ISRs while every leader serves).
    // Kafka: KafkaController.onBrokerFailure and the controlled shutdown
    // leave every partition with a live leader and no ISR naming the broker
    // gone; a new topic's partitions have no state znode until the
    // controller's onNewPartitionCreation writes them.
    #[test]
    fn the_settled_walk_reads_the_state_znodes_as_the_overviews_say() {
        fn by_overviews(sim: &Sim, gone: &BTreeSet<BrokerId>) -> bool {
            let brokers = sim.brokers();
            sim.partition_overviews().all(|p| {
                p.leader.is_some_and(|l| {
                    !gone.contains(&l) && brokers.get(&l).is_some_and(|b| b.is_up())
                }) && !p.isr.iter().any(|r| gone.contains(r))
            })
        }
        let mut sim = cluster(3, 5, 70, 3).unwrap().build();
        while sim.now() < SimTime(20_000) {
            let Some(t) = sim.next_event_time() else {
                break;
            };
            sim.run_until(t);
        }
        let controller = sim.controller_id().unwrap();
        let others: Vec<BrokerId> = sim
            .brokers()
            .keys()
            .copied()
            .filter(|b| *b != controller)
            .collect();
        let at = |ms: u64| SimTime(sim.now().as_ms() + ms);
        let actions = [
            (
                at(100),
                Action::CreateTopic {
                    name: "late".to_string(),
                    assignment: None,
                    partitions: Some(12),
                    replication_factor: Some(3),
                },
            ),
            (at(5_000), Action::KillBroker { broker: others[0] }),
            (at(20_000), Action::ShutdownBroker { broker: others[1] }),
        ];
        let end = at(35_000);
        for (t, a) in actions {
            sim.schedule_action(t, a).unwrap();
        }
        let gones = [
            BTreeSet::new(),
            BTreeSet::from([others[0], others[1]]),
            BTreeSet::from([others[2]]),
        ];
        let mut answers = [[0usize; 2]; 3];
        while sim.now() < end {
            let Some(t) = sim.next_event_time() else {
                break;
            };
            sim.run_until(t);
            for (gone, count) in gones.iter().zip(&mut answers) {
                let walked = every_partition_served(&sim, gone);
                assert_eq!(
                    walked,
                    by_overviews(&sim, gone),
                    "at {} ms",
                    sim.now().as_ms()
                );
                count[usize::from(walked)] += 1;
            }
        }
        // Each gone set saw both answers, but a running broker named gone,
        // which is always in some ISR: never served.
        assert!(answers[0].iter().all(|n| *n > 0), "{answers:?}");
        assert!(answers[1].iter().all(|n| *n > 0), "{answers:?}");
        assert_eq!(answers[2][1], 0, "{answers:?}");
    }

    #[test]
    fn the_seek_scenario_is_seeded_and_sorted() {
        let (a, n) = seek_scenario(7, 3_600_000);
        let (b, _) = seek_scenario(7, 3_600_000);
        assert_eq!(a, b);
        assert!(n >= 4);
        assert!(a.actions.windows(2).all(|w| w[0].0 <= w[1].0));
        assert!(a.last_action_ms() < 3_600_000 && a.last_action_ms() > 3_500_000);
    }
}
