//! A broker's process: `kafka-server-start.sh`, `kafka-server-stop.sh` and
//! `kill`. The console is one host running every broker, so it names a
//! broker as the quickstart's multi-broker set-up does: broker N is started
//! from `config/server-N.properties`; `kill`'s pid is the broker id; and
//! `kafka-server-stop.sh`, which in Kafka signals every broker on the host
//! (`kill -s TERM` on each Kafka process), takes a kcsim option
//! `--broker N` to stop one (without it, the console says so).

use super::{Cluster, Reply};
use crate::action::Action;
use crate::ids::BrokerId;

fn broker(c: &Cluster, id: &str) -> Option<BrokerId> {
    let id = BrokerId(id.parse::<u32>().ok()?);
    c.view.brokers.iter().any(|b| b.id == id).then_some(id)
}

fn silent(action: Action, error_prefix: String) -> Reply {
    Reply::Act {
        actions: vec![action],
        done: String::new(),
        error_prefix,
    }
}

/// `kafka-server-start.sh config/server-N.properties`.
pub fn start(args: &[String], c: &Cluster) -> Reply {
    let [file] = args else {
        return Reply::Usage(
            "USAGE: kafka-server-start.sh [-daemon] server.properties [--override property=value]*\n(the console: kafka-server-start.sh config/server-ID.properties)\n"
                .into(),
        );
    };
    let name = file.rsplit('/').next().unwrap_or(file);
    let id = name
        .strip_prefix("server-")
        .and_then(|s| s.strip_suffix(".properties"));
    match id {
        Some(id) => match broker(c, id) {
            Some(b) => silent(
                Action::StartBroker { broker: b },
                format!("kafka-server-start.sh: broker {id}: "),
            ),
            None => Reply::Usage(format!("kafka-server-start.sh: no broker {id} in this cluster\n")),
        },
        None => Reply::Usage(format!(
            "kafka-server-start.sh: {file}: the console starts broker ID from config/server-ID.properties\n"
        )),
    }
}

/// `kafka-server-stop.sh --broker N`: a controlled shutdown (SIGTERM).
pub fn stop(args: &[String], c: &Cluster) -> Reply {
    match args {
        [flag, id] if flag == "--broker" => match broker(c, id) {
            Some(b) => silent(
                Action::ShutdownBroker { broker: b },
                format!("kafka-server-stop.sh: broker {id}: "),
            ),
            None => Reply::Usage(format!("kafka-server-stop.sh: no broker {id} in this cluster\n")),
        },
        _ => Reply::Usage(
            "kafka-server-stop.sh: every broker runs on this one host; stop one with kafka-server-stop.sh --broker ID\n"
                .into(),
        ),
    }
}

/// `kill -9 N` (`kill -KILL`, `-s KILL`) and `kill N` / `kill -15 N`
/// (`-TERM`, `-s TERM`), N being a broker id.
pub fn kill(args: &[String], c: &Cluster) -> Reply {
    let (signal, pids) = match args {
        [s, rest @ ..] if s == "-s" => match rest.split_first() {
            Some((sig, pids)) => (sig.as_str(), pids),
            None => return kill_usage(),
        },
        [s, rest @ ..] if s.starts_with('-') => (&s[1..], rest),
        rest => ("TERM", rest),
    };
    let hard = match signal.trim_start_matches("SIG") {
        "9" | "KILL" => true,
        "15" | "TERM" => false,
        other => {
            return Reply::Usage(format!(
                "bash: kill: {other}: invalid signal specification (the console sends 9 or 15)\n"
            ))
        }
    };
    let [pid] = pids else {
        return kill_usage();
    };
    let Some(b) = broker(c, pid) else {
        return Reply::Usage(if pid.parse::<u32>().is_ok() {
            format!("bash: kill: ({pid}) - No such process\n")
        } else {
            format!("bash: kill: {pid}: arguments must be process or job IDs\n")
        });
    };
    let action = if hard {
        Action::KillBroker { broker: b }
    } else {
        Action::ShutdownBroker { broker: b }
    };
    silent(action, format!("bash: kill: ({pid}) - "))
}

fn kill_usage() -> Reply {
    Reply::Usage("kill: usage: kill [-s sigspec | -sigspec] pid (a broker id)\n".into())
}
