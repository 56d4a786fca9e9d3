//! The `kcsim` command-line tool: the same core, headless.
//!
//! ```text
//! kcsim run FILE.json [--until-ms T] [--trace OUT.jsonl]
//! kcsim elect --strategy offline|reassign|preferred|controlled-shutdown
//!             --assignment 2,4 --isr 2,4 --live 4 [--shutting-down 2] [--unclean]
//! kcsim transitions --machine partition|replica
//! ```
//!
//! Exit codes: 0 on success; 2 on bad input, with one line on stderr that
//! names the file and the field. See `docs/cli.md`.

use crate::controller::election;
use crate::controller::states::{PartitionState, ReplicaState};
use crate::ids::BrokerId;
use crate::lesson::{self, Lesson};
use crate::report::FinalState;
use crate::scenario::Scenario;
use crate::time::SimTime;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

/// How long `run` goes on after the last action, without `--until-ms`.
pub const RUN_AFTER_LAST_ACTION_MS: u64 = 60_000;

const USAGE: &str = "usage: kcsim run FILE.json [--until-ms T] [--trace OUT.jsonl]
       kcsim elect --strategy offline|reassign|preferred|controlled-shutdown --assignment IDS --isr IDS --live IDS [--shutting-down IDS] [--unclean]
       kcsim transitions --machine partition|replica
       kcsim bench [--brokers B] [--partitions P]
       kcsim figures [--scale K]
       kcsim lesson check FILE.json... | --builtin
       kcsim console [SCENARIO.json]";

/// A failure: the exit code and the one-line message.
#[derive(Debug)]
struct Failure(i32, String);

fn usage(msg: &str) -> Failure {
    Failure(2, format!("{msg}\n{USAGE}"))
}

/// Run the tool with these arguments (without the program name); returns
/// the exit code. Output goes to stdout, errors to stderr.
pub fn main(args: Vec<String>) -> i32 {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match dispatch(&args, &mut out) {
        Ok(()) => 0,
        Err(Failure(code, msg)) => {
            eprintln!("kcsim: {msg}");
            code
        }
    }
}

fn dispatch(args: &[String], out: &mut dyn Write) -> Result<(), Failure> {
    match args.first().map(String::as_str) {
        Some("run") => run(&args[1..], out),
        Some("elect") => elect(&args[1..], out),
        Some("transitions") => transitions(&args[1..], out),
        Some("bench") => bench(&args[1..], out),
        Some("figures") => figures(&args[1..], out),
        Some("lesson") => lesson(&args[1..], out),
        Some("console") => console(&args[1..], out),
        Some("--help" | "-h" | "help") => {
            let _ = writeln!(out, "{USAGE}");
            Ok(())
        }
        Some(other) => Err(usage(&format!("unknown command {other:?}"))),
        None => Err(usage("no command given")),
    }
}

fn run(args: &[String], out: &mut dyn Write) -> Result<(), Failure> {
    let mut file = None;
    let mut until = None;
    let mut trace = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--until-ms" => {
                let v = it.next().ok_or_else(|| usage("--until-ms needs a value"))?;
                until = Some(
                    v.parse::<u64>()
                        .ok()
                        .filter(|t| *t <= crate::scenario::MAX_TIME_MS + RUN_AFTER_LAST_ACTION_MS)
                        .ok_or_else(|| {
                            usage(&format!(
                                "--until-ms: {v:?} is not a time in ms up to one day"
                            ))
                        })?,
                );
            }
            "--trace" => {
                trace = Some(
                    it.next()
                        .ok_or_else(|| usage("--trace needs a file"))?
                        .clone(),
                )
            }
            flag if flag.starts_with("--") => return Err(usage(&format!("unknown option {flag}"))),
            path if file.is_none() => file = Some(path.to_string()),
            extra => return Err(usage(&format!("unexpected argument {extra:?}"))),
        }
    }
    let file = file.ok_or_else(|| usage("run needs a scenario file"))?;
    let text = std::fs::read_to_string(&file)
        .map_err(|e| Failure(2, format!("{file}: cannot read: {e}")))?;
    let scenario = Scenario::parse(&text).map_err(|e| Failure(2, format!("{file}: {e}")))?;
    let until = until.unwrap_or(
        scenario
            .last_action_ms()
            .saturating_add(RUN_AFTER_LAST_ACTION_MS),
    );
    let mut sim = scenario.build();
    sim.run_until(SimTime(until));
    if let Some(path) = trace {
        let header = crate::trace_file::Header::of_file(&text, until)
            .map_err(|e| Failure(2, format!("{file}: {e}")))?;
        let lines = crate::trace_file::write(&header, sim.trace());
        std::fs::write(&path, lines)
            .map_err(|e| Failure(1, format!("{path}: cannot write the trace: {e}")))?;
    }
    let _ = writeln!(out, "{}", FinalState::of(&sim).to_json());
    Ok(())
}

/// Parse `--flag value` pairs and bare `--switch`es.
fn flags(
    args: &[String],
    valued: &[&str],
    switches: &[&str],
) -> Result<BTreeMap<String, String>, Failure> {
    let mut out = BTreeMap::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let name = a.as_str();
        if valued.contains(&name) {
            let v = it
                .next()
                .ok_or_else(|| usage(&format!("{name} needs a value")))?;
            out.insert(name.to_string(), v.clone());
        } else if switches.contains(&name) {
            out.insert(name.to_string(), String::new());
        } else {
            return Err(usage(&format!("unexpected argument {name:?}")));
        }
    }
    Ok(out)
}

fn id_list(flag: &str, v: Option<&String>) -> Result<Vec<BrokerId>, Failure> {
    let Some(v) = v else { return Ok(Vec::new()) };
    if v.trim().is_empty() {
        return Ok(Vec::new());
    }
    v.split(',')
        .map(|x| {
            x.trim()
                .parse::<u32>()
                .map(BrokerId)
                .map_err(|_| usage(&format!("{flag}: {x:?} is not a broker id")))
        })
        .collect()
}

/// `kcsim elect`: run one election strategy on the given inputs. `--live`
/// lists registered brokers (shutting-down ones included, as Kafka's tests
/// pass them); the offline, reassign and preferred strategies do not count
/// a shutting-down broker as live.
fn elect(args: &[String], out: &mut dyn Write) -> Result<(), Failure> {
    let f = flags(
        args,
        &[
            "--strategy",
            "--assignment",
            "--isr",
            "--live",
            "--shutting-down",
        ],
        &["--unclean"],
    )?;
    let strategy = f
        .get("--strategy")
        .ok_or_else(|| usage("elect needs --strategy"))?;
    if !f.contains_key("--assignment") {
        return Err(usage("elect needs --assignment"));
    }
    let assignment = id_list("--assignment", f.get("--assignment"))?;
    let isr = id_list("--isr", f.get("--isr"))?;
    let registered: BTreeSet<BrokerId> = id_list("--live", f.get("--live"))?.into_iter().collect();
    let shutting: BTreeSet<BrokerId> = id_list("--shutting-down", f.get("--shutting-down"))?
        .into_iter()
        .collect();
    let live: BTreeSet<BrokerId> = registered.difference(&shutting).copied().collect();
    let unclean = f.contains_key("--unclean");
    let r = match strategy.as_str() {
        "offline" => election::offline(&assignment, &isr, &live, || unclean),
        "reassign" => election::reassign(&assignment, &isr, &live),
        "preferred" => election::preferred(&assignment, &isr, &live),
        "controlled-shutdown" => {
            let all: BTreeSet<BrokerId> = registered.union(&shutting).copied().collect();
            election::controlled_shutdown(&assignment, &isr, &all, &shutting)
        }
        other => return Err(usage(&format!("--strategy: unknown strategy {other:?}"))),
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

/// `kcsim transitions`: the table of valid previous states, in Kafka's order.
fn transitions(args: &[String], out: &mut dyn Write) -> Result<(), Failure> {
    let f = flags(args, &["--machine"], &[])?;
    let entries: Vec<(&str, Vec<&str>)> = match f.get("--machine").map(String::as_str) {
        Some("partition") => PartitionState::ALL
            .iter()
            .map(|s| {
                (
                    s.name(),
                    s.valid_previous_states().iter().map(|p| p.name()).collect(),
                )
            })
            .collect(),
        Some("replica") => ReplicaState::ALL
            .iter()
            .map(|s| {
                (
                    s.name(),
                    s.valid_previous_states().iter().map(|p| p.name()).collect(),
                )
            })
            .collect(),
        Some(other) => return Err(usage(&format!("--machine: unknown machine {other:?}"))),
        None => return Err(usage("transitions needs --machine partition|replica")),
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

/// `kcsim bench [--brokers B] [--partitions P]`: a large cluster's start-up
/// and a controller failover, with figures printed (wall time is read here,
/// outside the simulation, only to report speed).
#[allow(clippy::disallowed_methods)]
fn bench(args: &[String], out: &mut dyn Write) -> Result<(), Failure> {
    let f = flags(args, &["--brokers", "--partitions"], &[])?;
    let num = |k: &str, d: u64| -> Result<u64, Failure> {
        f.get(k).map_or(Ok(d), |v| {
            v.parse()
                .map_err(|_| usage(&format!("{k}: {v:?} is not a number")))
        })
    };
    let brokers = num("--brokers", 6)?.clamp(3, 100);
    let partitions = num("--partitions", 2_000)?.clamp(1, 200_000);
    let text = format!(
        r#"{{"version":1,"seed":1,"brokers":[{}],"topics":[{{"name":"big","partitions":{partitions},"replication_factor":3}}]}}"#,
        crate::ids::comma_list(0..brokers)
    );
    let scenario = Scenario::parse(&text).map_err(|e| Failure(2, e.to_string()))?;
    let started = std::time::Instant::now();
    let mut sim = scenario.build();
    sim.run_until(SimTime(10_000));
    let startup = started.elapsed();
    let events_startup = sim.stats().events_processed;
    let controller = sim
        .controller_id()
        .ok_or_else(|| Failure(1, "no controller elected".into()))?;
    sim.schedule_action(
        SimTime(10_000),
        crate::Action::KillBroker { broker: controller },
    )
    .map_err(|e| Failure(1, e.to_string()))?;
    let t = std::time::Instant::now();
    let mut online_at = None;
    while sim.now() < SimTime(120_000) && sim.step() {
        if online_at.is_none() && sim.controller_epoch() == 2 && sim.is_quiet() {
            online_at = Some(sim.now());
        }
    }
    let failover = t.elapsed();
    let trace_len = sim.trace().len();
    let _ = writeln!(
        out,
        "kcsim bench: {brokers} brokers, {partitions} partitions (RF 3)"
    );
    let _ = writeln!(
        out,
        "  start-up to 10 s virtual: {:.3} s wall, {events_startup} controller events",
        startup.as_secs_f64()
    );
    let _ = writeln!(
        out,
        "  failover of controller {controller} to 120 s virtual: {:.3} s wall; quiet again at {} ms virtual",
        failover.as_secs_f64(),
        online_at.map_or("never".to_string(), |t| t.as_ms().to_string())
    );
    let _ = writeln!(
        out,
        "  trace records: {trace_len}; violations: {}",
        sim.violations().len()
    );
    Ok(())
}

/// `kcsim figures [--scale K]`: Kafka's published controller figures next to
/// the simulator's, for the same cluster shapes (each divided by K). The
/// wall-clock time printed is the tool's, never the simulation's.
#[allow(clippy::disallowed_methods)]
fn figures(args: &[String], out: &mut dyn Write) -> Result<(), Failure> {
    use crate::cost::ZkMode;
    use crate::figures::{measure, PUBLISHED};
    let f = flags(args, &["--scale"], &[])?;
    let scale: u32 = match f.get("--scale") {
        Some(v) => v.parse().ok().filter(|k| *k >= 1).ok_or_else(|| {
            usage(&format!(
                "--scale: {v:?} is not a whole number of at least 1"
            ))
        })?,
        None => 1,
    };
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
fn lesson(args: &[String], out: &mut dyn Write) -> Result<(), Failure> {
    if args.first().map(String::as_str) != Some("check") {
        return Err(usage(
            "lesson needs a subcommand: lesson check FILE.json... | --builtin",
        ));
    }
    let mut lessons: Vec<(String, String)> = Vec::new();
    for a in &args[1..] {
        if a == "--builtin" {
            for (id, text) in lesson::builtin::FILES {
                lessons.push((format!("(built-in) {id}"), (*text).to_string()));
            }
        } else if a.starts_with("--") {
            return Err(usage(&format!("unknown option {a}")));
        } else {
            let text = std::fs::read_to_string(a)
                .map_err(|e| Failure(2, format!("{a}: cannot read: {e}")))?;
            lessons.push((a.clone(), text));
        }
    }
    if lessons.is_empty() {
        return Err(usage("lesson check needs a lesson file or --builtin"));
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
fn console(args: &[String], out: &mut dyn Write) -> Result<(), Failure> {
    let scenario = match args {
        [] => crate::scenario::builtin::default_cluster(),
        [file] if !file.starts_with("--") => {
            let text = std::fs::read_to_string(file)
                .map_err(|e| Failure(2, format!("{file}: cannot read: {e}")))?;
            Scenario::parse(&text).map_err(|e| Failure(2, format!("{file}: {e}")))?
        }
        [flag] => return Err(usage(&format!("unknown option {flag}"))),
        _ => return Err(usage("console takes at most one scenario file")),
    };
    let mut timeline = crate::timeline::Timeline::new(&scenario);
    timeline.seek(SimTime(CONSOLE_START_MS));
    let stdin = std::io::stdin();
    for line in std::io::BufRead::lines(stdin.lock()) {
        let line = line.map_err(|e| Failure(2, format!("stdin: {e}")))?;
        let answer = crate::console::execute(&mut timeline, &line);
        let _ = out.write_all(answer.text.as_bytes());
    }
    Ok(())
}

/// Where `kcsim console` starts, as the page opens a scenario.
pub const CONSOLE_START_MS: u64 = 3_000;
