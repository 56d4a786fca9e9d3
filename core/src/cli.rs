//! The `kcsim` command-line tool: the same core, headless.
//!
//! ```text
//! kcsim run FILE.json [--until-ms T] [--trace OUT.jsonl]
//! ```
//!
//! Exit codes: 0 on success; 2 on bad input, with one line on stderr that
//! names the file and the field. See `docs/cli.md`.

use crate::report::FinalState;
use crate::scenario::Scenario;
use crate::time::SimTime;
use std::io::Write;

/// How long `run` goes on after the last action, without `--until-ms`.
pub const RUN_AFTER_LAST_ACTION_MS: u64 = 60_000;

const USAGE: &str = "usage: kcsim run FILE.json [--until-ms T] [--trace OUT.jsonl]";

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
                        .map_err(|_| usage(&format!("--until-ms: {v:?} is not a time in ms")))?,
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
    let until = until.unwrap_or(scenario.last_action_ms() + RUN_AFTER_LAST_ACTION_MS);
    let mut sim = scenario.build();
    sim.run_until(SimTime(until));
    if let Some(path) = trace {
        let mut lines = String::new();
        for r in sim.trace() {
            lines.push_str(&r.to_json_line());
            lines.push('\n');
        }
        std::fs::write(&path, lines)
            .map_err(|e| Failure(1, format!("{path}: cannot write the trace: {e}")))?;
    }
    let _ = writeln!(out, "{}", FinalState::of(&sim).to_json());
    Ok(())
}
