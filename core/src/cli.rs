//! The `kcsim` command-line tool: the same core, headless.
//!
//! Its arguments are parsed by clap (native only: the `cli` feature, which
//! the page never enables), so every subcommand has `--help`, a mistyped
//! subcommand or option gets a suggestion, and `kcsim completions SHELL`
//! prints a shell completion script. See `docs/cli.md`.
//!
//! Exit codes: 0 on success; 2 on bad input (a usage error, or one line on
//! stderr that names the file and the field); 1 when the work itself fails.

use crate::controller::election;
use crate::controller::states::{PartitionState, ReplicaState};
use crate::ids::BrokerId;
use crate::lesson::{self, Lesson};
use crate::report::FinalState;
use crate::scenario::Scenario;
use crate::time::SimTime;
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use std::collections::BTreeSet;
use std::io::Write;

/// How long `run` goes on after the last action, without `--until-ms`.
pub const RUN_AFTER_LAST_ACTION_MS: u64 = 60_000;

/// A failure: the exit code and the one-line message.
#[derive(Debug)]
struct Failure(i32, String);

/// kcsim: Apache Kafka 2.x's ZooKeeper-era controller, simulated headless.
#[derive(Debug, Parser)]
#[command(name = "kcsim", version, about, long_about = None)]
#[command(
    after_help = "Every subcommand has --help. Exit codes: 0 success, 1 the work failed, 2 bad input."
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Run a scenario file and print its final state as JSON.
    Run(RunArgs),
    /// Run one of Kafka's four leader-election strategies on the given inputs.
    Elect(ElectArgs),
    /// Print a state machine's table of valid previous states.
    Transitions {
        /// Which state machine.
        #[arg(long, value_enum)]
        machine: Machine,
    },
    /// Benchmarks (issue 13): start-up, controller failover, broker failure,
    /// controlled shutdown, steady state, elections, timeline seek; one JSON
    /// line per measurement, then a table (sizes are options: see `kcsim bench --help`).
    #[command(after_help = crate::bench::USAGE)]
    Bench {
        /// Print only the JSON lines (no table).
        #[arg(long)]
        json: bool,
        /// Options as `--name value` (see below).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        options: Vec<String>,
    },
    /// Kafka's published controller figures next to the simulator's.
    Figures {
        /// Divide every shape's partition count (and Kafka's figure) by K.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
        scale: u32,
    },
    /// Lessons: check that each one's "show me" path passes its checkpoints.
    Lesson {
        #[command(subcommand)]
        command: LessonCmd,
    },
    /// Read console commands from stdin, one per line, and print the answers.
    Console {
        /// The scenario to start from (default: the built-in `default` cluster).
        scenario: Option<String>,
    },
    /// Draw a sequence diagram (SVG) of a time window of a scenario's run.
    Diagram {
        /// The scenario file.
        file: String,
        /// The window's start, in ms of virtual time.
        #[arg(long, value_name = "T", default_value_t = 0, value_parser = until_ms)]
        from: u64,
        /// The window's end, in ms of virtual time.
        #[arg(long, value_name = "T", value_parser = until_ms)]
        to: u64,
        /// Write the SVG to this file (default: stdout).
        #[arg(short, long, value_name = "OUT.svg")]
        output: Option<String>,
    },
    /// Run a scenario the pre-0.8 way (every broker watching ZooKeeper) and
    /// the controller's way, and count both (docs/before-the-controller.md).
    Legacy {
        /// The scenario file.
        file: String,
        /// Print the comparison as one JSON document instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Simulation testing: run random fault schedules (seeds S..S+N) with
    /// the checks after every step and once the faults stop; print each
    /// failure shrunk to a minimal scenario file (docs/simulation-testing.md).
    Soak(SoakArgs),
    /// Fuzz every way in (docs/inputs.md): generated, mutated scenario and
    /// lesson files, console lines, share links and trace files; prints each
    /// target's counts; exit 1 on any crash (each written to a file).
    Fuzz(FuzzArgs),
    /// Print a completion script for a shell.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Args)]
struct RunArgs {
    /// The scenario file (docs/scenario-format.md).
    file: String,
    /// Run to this virtual time in ms (at most one day plus a minute);
    /// default: 60 000 ms after the last action.
    #[arg(long, value_name = "T", value_parser = until_ms)]
    until_ms: Option<u64>,
    /// Write the trace as JSON lines to this file.
    #[arg(long, value_name = "OUT.jsonl")]
    trace: Option<String>,
    /// Run as the page plays: a long controller event by pieces
    /// (`Sim::step_piece_of`), of at most N znode writes, elections, state
    /// changes, partitions walked or requests' entries where a piece is a
    /// run of them (default 1024, the page's). The trace and the final
    /// state are the same; this is for checking that they are.
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "1024")]
    by_pieces: Option<usize>,
}

#[derive(Debug, Args)]
struct SoakArgs {
    /// How many schedules.
    #[arg(long, default_value_t = 100)]
    schedules: u64,
    /// The first seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Worker threads (default: every core).
    #[arg(long)]
    jobs: Option<usize>,
    /// Where failing schedules are written, as SEED.json.
    #[arg(long, value_name = "DIR", default_value = "target/soak-failures")]
    out: String,
    /// At most this many runs to shrink one failure.
    #[arg(long, value_name = "RUNS", default_value_t = 2_000)]
    shrink_budget: usize,
    /// Run one scenario file with the soak's checks and healing instead.
    #[arg(long, value_name = "FILE")]
    replay: Option<String>,
}

#[derive(Debug, Args)]
struct FuzzArgs {
    /// One target (scenario, lesson, console, share-link, trace-file);
    /// default: all of them.
    #[arg(long, value_name = "T", value_parser = fuzz_target)]
    target: Option<crate::fuzz::Target>,
    /// Inputs per target (default 1000 unless --seconds is given).
    #[arg(long, value_name = "N", conflicts_with = "seconds")]
    inputs: Option<u64>,
    /// Seconds of wall time per target instead of a number of inputs.
    #[arg(long, value_name = "S")]
    seconds: Option<u64>,
    /// The first input's seed (input i has seed X + i).
    #[arg(long, value_name = "X", default_value_t = 1)]
    seed: u64,
    /// Where crash files go.
    #[arg(long, value_name = "DIR", default_value = "fuzz-crashes")]
    crash_dir: String,
}

fn fuzz_target(v: &str) -> Result<crate::fuzz::Target, String> {
    crate::fuzz::Target::parse(v).ok_or_else(|| {
        format!(
            "{v:?} is not a fuzz target; the targets are {}",
            crate::fuzz::Target::ALL.map(|t| t.name()).join(", ")
        )
    })
}

#[derive(Debug, Args)]
struct ElectArgs {
    /// The strategy.
    #[arg(long, value_enum)]
    strategy: Strategy,
    /// The assigned replicas, in order (for `reassign`, the target replicas).
    #[arg(long, value_name = "IDS", value_parser = id_list)]
    assignment: Ids,
    /// The in-sync replicas.
    #[arg(long, value_name = "IDS", value_parser = id_list, default_value = "")]
    isr: Ids,
    /// The registered brokers, shutting-down ones included.
    #[arg(long, value_name = "IDS", value_parser = id_list, default_value = "")]
    live: Ids,
    /// The brokers shutting down.
    #[arg(long, value_name = "IDS", value_parser = id_list, default_value = "")]
    shutting_down: Ids,
    /// Allow an unclean election (`offline` only).
    #[arg(long)]
    unclean: bool,
}

#[derive(Debug, Subcommand)]
enum LessonCmd {
    /// Parse each lesson and play its "show me" path headless.
    Check {
        /// Lesson files (docs/lesson-format.md).
        #[arg(required_unless_present = "builtin")]
        files: Vec<String>,
        /// Check every built-in lesson too.
        #[arg(long)]
        builtin: bool,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Machine {
    Partition,
    Replica,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Strategy {
    Offline,
    Reassign,
    Preferred,
    ControlledShutdown,
}

/// Comma-separated broker ids, as `--isr 2,4` gives them.
#[derive(Debug, Clone)]
struct Ids(Vec<BrokerId>);

fn id_list(v: &str) -> Result<Ids, String> {
    if v.trim().is_empty() {
        return Ok(Ids(Vec::new()));
    }
    v.split(',')
        .map(|x| {
            x.trim()
                .parse::<u32>()
                .map(BrokerId)
                .map_err(|_| format!("{x:?} is not a broker id"))
        })
        .collect::<Result<_, _>>()
        .map(Ids)
}

fn until_ms(v: &str) -> Result<u64, String> {
    v.parse::<u64>()
        .ok()
        .filter(|t| *t <= crate::scenario::MAX_TIME_MS + RUN_AFTER_LAST_ACTION_MS)
        .ok_or_else(|| format!("{v:?} is not a time in ms up to one day"))
}

/// Run the tool with these arguments (without the program name); returns
/// the exit code. Output goes to stdout, errors to stderr.
pub fn main(args: Vec<String>) -> i32 {
    let cli = match Cli::try_parse_from(std::iter::once("kcsim".to_string()).chain(args)) {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with exit 0; a usage error to
            // stderr with exit 2 (clap's own choice, and ours).
            let _ = e.print();
            return e.exit_code();
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match dispatch(cli.command, &mut out) {
        Ok(()) => 0,
        Err(Failure(code, msg)) => {
            eprintln!("kcsim: {msg}");
            code
        }
    }
}

fn dispatch(command: Cmd, out: &mut dyn Write) -> Result<(), Failure> {
    match command {
        Cmd::Run(a) => run(a, out),
        Cmd::Elect(a) => elect(a, out),
        Cmd::Transitions { machine } => transitions(machine, out),
        Cmd::Bench { json, options } => bench(json, &options, out),
        Cmd::Figures { scale } => figures(scale, out),
        Cmd::Lesson {
            command: LessonCmd::Check { files, builtin },
        } => lesson_check(&files, builtin, out),
        Cmd::Console { scenario } => console(scenario.as_deref(), out),
        Cmd::Legacy { file, json } => legacy(&file, json, out),
        Cmd::Diagram {
            file,
            from,
            to,
            output,
        } => diagram(&file, from, to, output.as_deref(), out),
        Cmd::Soak(a) => soak(a, out),
        Cmd::Fuzz(a) => fuzz(&a, out),
        Cmd::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "kcsim", out);
            Ok(())
        }
    }
}

/// `kcsim fuzz`: each target for a number of inputs or seconds; a crash
/// file per crash; exit 1 if any. Wall-clock reads are this driver's only
/// (`--seconds`, the times printed).
#[allow(clippy::disallowed_methods)]
fn fuzz(a: &FuzzArgs, out: &mut dyn Write) -> Result<(), Failure> {
    use crate::fuzz::{self, Corpus, Target};
    if !cfg!(panic = "unwind") {
        return Err(Failure(
            2,
            "kcsim fuzz catches panics: build it with panic=unwind (`cargo xtask fuzz` does)"
                .to_string(),
        ));
    }
    let targets: Vec<Target> = a.target.map_or(Target::ALL.to_vec(), |t| vec![t]);
    let corpus = Corpus::new();
    // Panics are caught and reported with their input: keep the default
    // hook from printing each one.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut crashes = 0u64;
    let mut failures = Vec::new();
    for t in targets {
        let started = std::time::Instant::now();
        let limit = a.inputs.unwrap_or(1000);
        let more = |n: u64| match a.seconds {
            Some(s) => started.elapsed().as_secs() < s,
            None => n < limit,
        };
        let c = fuzz::fuzz(t, a.seed, &corpus, more, |crash| {
            let _ = std::fs::create_dir_all(&a.crash_dir);
            let path = format!(
                "{}/{}-{}.txt",
                a.crash_dir, crash.input.target, crash.input.seed
            );
            if let Err(e) = std::fs::write(&path, crash.file_text()) {
                failures.push(format!("{path}: cannot write: {e}"));
            }
            failures.push(format!(
                "crash: {} seed {}: {} (input in {path})",
                crash.input.target,
                crash.input.seed,
                crash.message.lines().next().unwrap_or("")
            ));
        });
        crashes += c.crashes;
        let _ = writeln!(
            out,
            "fuzz {:<10} {:>8} inputs  {:>8} accepted  {:>8} rejected  {} crashes  ({:.1} s)",
            t.name(),
            c.tried,
            c.accepted,
            c.rejected,
            c.crashes,
            started.elapsed().as_secs_f64()
        );
        for f in failures.drain(..) {
            let _ = writeln!(out, "  {f}");
        }
    }
    std::panic::set_hook(hook);
    if crashes > 0 {
        return Err(Failure(
            1,
            format!("{crashes} crash(es); see {}", a.crash_dir),
        ));
    }
    Ok(())
}

/// Read and parse a scenario file; the error names the file and the field.
fn read_scenario(file: &str) -> Result<Scenario, Failure> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| Failure(2, format!("{file}: cannot read: {e}")))?;
    Scenario::parse(&text).map_err(|e| Failure(2, format!("{file}: {e}")))
}

fn run(a: RunArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let file = &a.file;
    let text = std::fs::read_to_string(file)
        .map_err(|e| Failure(2, format!("{file}: cannot read: {e}")))?;
    let scenario = Scenario::parse(&text).map_err(|e| Failure(2, format!("{file}: {e}")))?;
    let until = a.until_ms.unwrap_or(
        scenario
            .last_action_ms()
            .saturating_add(RUN_AFTER_LAST_ACTION_MS),
    );
    let mut sim = scenario.build();
    if let Some(slice) = a.by_pieces {
        while sim.next_event_time().is_some_and(|t| t <= SimTime(until)) {
            sim.step_piece_of(slice);
        }
    }
    sim.run_until(SimTime(until));
    if let Some(path) = a.trace {
        let header = crate::trace_file::Header::of_file(&text, until)
            .map_err(|e| Failure(2, format!("{file}: {e}")))?;
        let lines = crate::trace_file::write(&header, sim.trace());
        std::fs::write(&path, lines)
            .map_err(|e| Failure(1, format!("{path}: cannot write the trace: {e}")))?;
    }
    let _ = writeln!(out, "{}", FinalState::of(&sim).to_json());
    Ok(())
}

/// `kcsim soak`: exit 1 when any schedule fails.
fn soak(a: SoakArgs, out: &mut dyn Write) -> Result<(), Failure> {
    if let Some(file) = a.replay {
        let scenario = read_scenario(&file)?;
        return match crate::soak::driver::replay(&scenario, out) {
            0 => Ok(()),
            n => Err(Failure(1, format!("{file}: {n} finding(s)"))),
        };
    }
    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    let o = crate::soak::driver::SoakOptions {
        schedules: a.schedules,
        seed: a.seed,
        jobs,
        out_dir: a.out,
        shrink_budget: a.shrink_budget,
    };
    match crate::soak::driver::soak(&o, out, &mut std::io::stderr()) {
        0 => Ok(()),
        n => Err(Failure(
            1,
            format!("{n} of {} schedules failed", a.schedules),
        )),
    }
}

/// `kcsim elect`: run one election strategy on the given inputs. `--live`
/// lists registered brokers (shutting-down ones included, as Kafka's tests
/// pass them); the offline, reassign and preferred strategies do not count
/// a shutting-down broker as live.
fn elect(a: ElectArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let assignment = a.assignment.0;
    let isr = a.isr.0;
    let registered: BTreeSet<BrokerId> = a.live.0.into_iter().collect();
    let shutting: BTreeSet<BrokerId> = a.shutting_down.0.into_iter().collect();
    let live: BTreeSet<BrokerId> = registered.difference(&shutting).copied().collect();
    let unclean = a.unclean;
    let r = match a.strategy {
        Strategy::Offline => election::offline(&assignment, &isr, &live, || unclean),
        Strategy::Reassign => election::reassign(&assignment, &isr, &live),
        Strategy::Preferred => election::preferred(&assignment, &isr, &live),
        Strategy::ControlledShutdown => {
            let all: BTreeSet<BrokerId> = registered.union(&shutting).copied().collect();
            election::controlled_shutdown(&assignment, &isr, &all, &shutting)
        }
    };
    let _ = writeln!(
        out,
        r#"{{"leader":{},"isr":{},"recipients":{}}}"#,
        serde_json::json!(r.leader),
        serde_json::json!(r.isr),
        serde_json::json!(r.recipients)
    );
    Ok(())
}

/// `kcsim diagram FILE --from T --to T [-o OUT.svg]`: the page's sequence
/// diagram of that window, as SVG (docs/diagram.md).
fn diagram(
    file: &str,
    from: u64,
    to: u64,
    output: Option<&str>,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let scenario = read_scenario(file)?;
    let svg =
        crate::diagram::svg_for(&scenario, from, to).map_err(|e| Failure(2, e.to_string()))?;
    match output {
        Some(path) => std::fs::write(path, svg)
            .map_err(|e| Failure(1, format!("{path}: cannot write the diagram: {e}")))?,
        None => {
            let _ = out.write_all(svg.as_bytes());
        }
    }
    Ok(())
}

/// `kcsim legacy FILE [--json]`: the historical design and the controller's,
/// counted on the same scenario; a Markdown table for people, or the
/// `Comparison` as JSON.
fn legacy(file: &str, json: bool, out: &mut dyn Write) -> Result<(), Failure> {
    use crate::legacy::Counts;
    let scenario = read_scenario(file)?;
    let c = crate::legacy::compare(&scenario).map_err(|e| Failure(2, format!("{file}: {e}")))?;
    if json {
        let text = serde_json::to_string(&c).map_err(|e| Failure(1, e.to_string()))?;
        let _ = writeln!(out, "{text}");
        return Ok(());
    }
    let row = |out: &mut dyn Write, what: &str, design: &str, n: &Counts| {
        let _ = writeln!(
            out,
            "| {what} | {design} | {} | {} | {} | {} | {} | {} | {} |",
            n.watch_notifications,
            n.zk_reads,
            n.zk_writes,
            n.failed_races,
            n.bad_version_retries,
            n.conflicting_decisions,
            n.split_brain_ms
        );
    };
    let _ = writeln!(
        out,
        "{file}: {} brokers, {} partitions, to {} ms (historical design: docs/before-the-controller.md)",
        c.brokers, c.partitions, c.until_ms
    );
    let _ = writeln!(
        out,
        "| stretch | design | watch notifications | ZooKeeper reads | ZooKeeper writes | lost races | BadVersion retries | conflicting decisions | split-brain ms |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|");
    for s in &c.segments {
        let what = if s.actions.is_empty() {
            format!("{}–{} ms: start-up", s.from_ms, s.to_ms)
        } else {
            let acts: Vec<String> = s.actions.iter().map(|a| a.describe()).collect();
            format!("{}–{} ms: {}", s.from_ms, s.to_ms, acts.join("; "))
        };
        row(out, &what, "before the controller", &s.legacy);
        row(out, "", "controller", &s.controller);
    }
    row(out, "total", "before the controller", &c.legacy);
    row(out, "", "controller", &c.controller);
    for (at, a) in &c.not_modelled {
        let _ = writeln!(
            out,
            "not modelled in the historical design: {at} ms {}",
            a.describe()
        );
    }
    Ok(())
}

/// `kcsim transitions`: the table of valid previous states, in Kafka's order.
fn transitions(machine: Machine, out: &mut dyn Write) -> Result<(), Failure> {
    let entries: Vec<(&str, Vec<&str>)> = match machine {
        Machine::Partition => PartitionState::ALL
            .iter()
            .map(|s| {
                (
                    s.name(),
                    s.valid_previous_states().iter().map(|p| p.name()).collect(),
                )
            })
            .collect(),
        Machine::Replica => ReplicaState::ALL
            .iter()
            .map(|s| {
                (
                    s.name(),
                    s.valid_previous_states().iter().map(|p| p.name()).collect(),
                )
            })
            .collect(),
    };
    let body: Vec<String> = entries
        .iter()
        .map(|(k, v)| {
            format!(
                "{}:{}",
                serde_json::Value::from(*k),
                serde_json::Value::from(v.clone())
            )
        })
        .collect();
    let _ = writeln!(out, "{{{}}}", body.join(","));
    Ok(())
}

/// `kcsim bench [--json] [OPTIONS]`: the benchmarks of [`crate::bench`],
/// driven natively: the wall clock and the process's memory (VmRSS, VmHWM)
/// are read here, outside the simulation, only to report speed and size.
#[allow(clippy::disallowed_methods)]
fn bench(json: bool, args: &[String], out: &mut dyn Write) -> Result<(), Failure> {
    // `--json` may come after the options too.
    let json = json || args.iter().any(|a| a == "--json");
    let args: Vec<String> = args.iter().filter(|a| *a != "--json").cloned().collect();
    let options = crate::bench::Options::parse(&args).map_err(|e| Failure(2, e))?;
    let start = std::time::Instant::now();
    let clock = move || start.elapsed().as_secs_f64() * 1_000.0;
    let in_use = || proc_status_kb("VmRSS:") * 1024;
    let peak = || proc_status_kb("VmHWM:") * 1024;
    // Linux: writing 5 to clear_refs resets the peak resident set size.
    let reset = || {
        let _ = std::fs::write("/proc/self/clear_refs", "5");
    };
    let host = crate::bench::Host {
        platform: "native",
        clock_ms: &clock,
        bytes_in_use: &in_use,
        peak_bytes: &peak,
        reset_peak: &reset,
    };
    let mut emit = |m: &crate::bench::Measurement| {
        let _ = writeln!(out, "{}", m.to_json());
        let _ = out.flush();
    };
    let all = crate::bench::run(&host, &options, &mut emit).map_err(|e| Failure(1, e))?;
    if !json {
        let _ = write!(out, "\n{}", crate::bench::table(&all));
    }
    Ok(())
}

/// A `kB` field of /proc/self/status (0 where there is none, off Linux).
fn proc_status_kb(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(field))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}

/// `kcsim figures [--scale K]`: Kafka's published controller figures next to
/// the simulator's, for the same cluster shapes (each divided by K). The
/// wall-clock time printed is the tool's, never the simulation's.
#[allow(clippy::disallowed_methods)]
fn figures(scale: u32, out: &mut dyn Write) -> Result<(), Failure> {
    use crate::cost::ZkMode;
    use crate::figures::{measure, PUBLISHED};
    let _ = writeln!(
        out,
        "| figure | what | cluster | Kafka 1.0 | kcsim sync | Kafka 1.1+ | kcsim async | reproduce |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|");
    for p in PUBLISHED {
        let shape = p.shape.scaled_down(scale);
        let started = std::time::Instant::now();
        let sync = measure(&shape, p.work, ZkMode::Sync).map_err(|e| Failure(1, e))?;
        let asynchronous = measure(&shape, p.work, ZkMode::Async).map_err(|e| Failure(1, e))?;
        let wall = started.elapsed().as_secs_f64();
        let k = f64::from(scale);
        let kafka = |s: Option<f64>| s.map_or("—".to_string(), |s| format!("{:.1} s", s / k));
        let _ = writeln!(
            out,
            "| {} | {} | {} brokers, {} partitions, RF {} | {} | {:.1} s | {} | {:.1} s | `cargo kcsim figures{}` |",
            p.id,
            p.work.name(),
            shape.brokers,
            shape.partitions(),
            shape.replication_factor,
            kafka(p.kafka_1_0_s),
            sync.virtual_ms as f64 / 1000.0,
            kafka(p.kafka_1_1_s),
            asynchronous.virtual_ms as f64 / 1000.0,
            if scale == 1 { String::new() } else { format!(" --scale {scale}") },
        );
        let _ = writeln!(
            out,
            "<!-- {}: async {} reads, {} writes, {} requests ({} partition states); {wall:.1} s wall for both runs -->",
            p.id, asynchronous.reads, asynchronous.writes, asynchronous.requests, asynchronous.request_partitions
        );
    }
    Ok(())
}

/// `kcsim lesson check FILE... | --builtin`: parse each lesson and play its
/// "show me" path; exit 2 on a malformed file, 1 when a checkpoint is not
/// reached.
fn lesson_check(files: &[String], builtin: bool, out: &mut dyn Write) -> Result<(), Failure> {
    let mut lessons: Vec<(String, String)> = Vec::new();
    if builtin {
        for (id, text) in lesson::builtin::FILES {
            lessons.push((format!("(built-in) {id}"), (*text).to_string()));
        }
    }
    for a in files {
        let text =
            std::fs::read_to_string(a).map_err(|e| Failure(2, format!("{a}: cannot read: {e}")))?;
        lessons.push((a.clone(), text));
    }
    for (name, text) in lessons {
        let lesson = Lesson::parse(&text).map_err(|e| Failure(2, format!("{name}: {e}")))?;
        let steps = lesson::play(&lesson).map_err(|e| Failure(1, format!("{name}: {e}")))?;
        let _ = writeln!(out, "{name}: {} ({} steps)", lesson.id, lesson.steps.len());
        for s in steps {
            let _ = match s.passed_at_ms {
                Some(t) => writeln!(out, "  step {}: checkpoint passed at {t} ms", s.step),
                None => writeln!(out, "  step {}: no checkpoint", s.step),
            };
        }
    }
    Ok(())
}

/// `kcsim console [SCENARIO.json]`: commands from stdin, one per line, each
/// answered as the console answers it (see `docs/console.md`), at the
/// moment the page opens a scenario (3 s).
fn console(file: Option<&str>, out: &mut dyn Write) -> Result<(), Failure> {
    let scenario = match file {
        None => crate::scenario::builtin::default_cluster(),
        Some(file) => read_scenario(file)?,
    };
    let mut timeline = crate::timeline::Timeline::new(&scenario);
    timeline.seek(SimTime(CONSOLE_START_MS));
    let stdin = std::io::stdin();
    let mut session = crate::console::Session::default();
    for line in std::io::BufRead::lines(stdin.lock()) {
        let line = line.map_err(|e| Failure(2, format!("stdin: {e}")))?;
        let answer = session.execute(&mut timeline, &line);
        let _ = out.write_all(answer.text.as_bytes());
    }
    Ok(())
}

/// Where `kcsim console` starts, as the page opens a scenario.
pub const CONSOLE_START_MS: u64 = 3_000;
