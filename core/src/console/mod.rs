//! The console: one command line as a person types it at a ZooKeeper-era
//! cluster (`kafka-topics.sh …`, `zookeeper-shell.sh …`, `kill -9 2`, …),
//! turned into the same [`Action`]s every other way in uses, or into an
//! answer in Kafka 2.4's output format read from the [`ClusterView`].
//!
//! [`interpret`] is pure: it reads the cluster and says what to do.
//! [`execute`] does it on a [`Timeline`] at the current time, as the page
//! does (`Timeline::insert`), and takes an action the cluster refused back
//! (`Timeline::undo`), so a refused or malformed command changes nothing.
//! The command list is in `docs/console.md`.

mod broker;
pub mod complete;
mod configs;
mod elect;
pub mod files;
mod opts;
mod reassign;
mod topics;
mod zk_shell;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tools_tests;

use crate::action::Action;
use crate::sim::Sim;
use crate::time::SimTime;
use crate::timeline::Timeline;
use crate::vec_map::VecMap;
use crate::view::ClusterView;

/// What a command line comes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// Print this (a read-only command's answer).
    Print(String),
    /// A malformed, unknown or refused command: print this (the tool's
    /// usage error or its error line), change nothing.
    Usage(String),
    /// Do these actions, in order, at the current time; print `done` when
    /// the cluster accepts them, or `error_prefix` and the refusal when it
    /// does not.
    Act {
        /// The actions.
        actions: Vec<Action>,
        /// What the tool prints on success.
        done: String,
        /// What the tool prints before a refusal's reason.
        error_prefix: String,
    },
    /// Let virtual time pass (the console's `sleep`).
    Sleep(u64),
    /// Ask the controller for an election (`kafka-leader-election.sh`):
    /// do the action, then print the results the trace holds at that
    /// moment, as the tool prints them.
    Elect {
        /// The `elect_leaders` action.
        action: Action,
        /// Its election type (the tool prints it).
        election_type: crate::controller::event::ElectionType,
    },
}

/// What the cluster is, as a command reads it: the page's view and the
/// simulation behind it (for what the view does not carry, such as a
/// znode's full `stat`).
#[derive(Debug)]
pub struct Cluster<'a> {
    /// The view.
    pub view: &'a ClusterView,
    /// The simulation.
    pub sim: &'a Sim,
    /// The session's virtual files (what `--…-json-file` options read).
    pub files: &'a VecMap<String, String>,
}

/// The console's own `help`.
pub const HELP: &str = "\
Commands (Kafka 2.4's tools, against this simulated cluster; see docs/console.md):
  kafka-topics.sh --bootstrap-server localhost:9092 | --zookeeper localhost:2181
      --list
      --describe [--topic T] [--under-replicated-partitions | --unavailable-partitions |
                 --under-min-isr-partitions | --at-min-isr-partitions]
      --create --topic T --partitions N --replication-factor R
      --alter --topic T --partitions N
      --delete --topic T
  kafka-reassign-partitions.sh --zookeeper localhost:2181
      --generate --topics-to-move-json-file FILE --broker-list 0,1,2
      --execute --reassignment-json-file FILE
      --verify --reassignment-json-file FILE
  kafka-leader-election.sh --bootstrap-server localhost:9092 --election-type preferred|unclean
      --topic T --partition P | --all-topic-partitions | --path-to-json-file FILE
  kafka-preferred-replica-election.sh --zookeeper localhost:2181 [--path-to-json-file FILE]
  kafka-configs.sh --zookeeper localhost:2181 --entity-type topics [--entity-name T]
      --describe | --alter [--add-config k=v[,k2=v2]] [--delete-config k[,k2]]
  kafka-configs.sh --bootstrap-server localhost:9092 --entity-type brokers
      --entity-default --alter [--add-config k=v] [--delete-config k]
      --entity-default --describe | --entity-name ID --describe
  zookeeper-shell.sh localhost:2181
      ls [-s] PATH | get [-s] PATH | stat PATH | set [-v V] PATH DATA | delete [-v V] PATH
      create [-e] [-s] PATH DATA
  kafka-server-start.sh config/server-ID.properties   start broker ID
  kafka-server-stop.sh --broker ID                    controlled shutdown of broker ID
  kill -9 ID | kill -15 ID                            a broker's process (its pid is its broker id)
  sleep SECONDS                                       let virtual time pass
  echo TEXT > FILE | echo TEXT >> FILE                write a file (the JSON the tools read)
  cat FILE | ls | rm FILE                             read, list, remove the console's files
  help
";

/// Split a line into words as a POSIX shell does for plain commands:
/// blanks separate, single quotes keep everything, double quotes keep all
/// but `\"` and `\\`, a backslash outside quotes escapes the next
/// character. `Err` for an unterminated quote.
pub fn words(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => return Err("unexpected EOF while looking for matching `''".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => cur.push(c),
                            Some(c) => {
                                cur.push('\\');
                                cur.push(c);
                            }
                            None => {
                                return Err("unexpected EOF while looking for matching `\"'".into())
                            }
                        },
                        Some(c) => cur.push(c),
                        None => return Err("unexpected EOF while looking for matching `\"'".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    cur.push(c);
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    Ok(out)
}

/// What one command line asks for, against the cluster as it is.
pub fn interpret(line: &str, cluster: &Cluster) -> Reply {
    let words = match words(line) {
        Ok(w) => w,
        Err(e) => return Reply::Usage(format!("bash: {e}\n")),
    };
    let Some((cmd, args)) = words.split_first() else {
        return Reply::Print(String::new());
    };
    // `bin/kafka-topics.sh` and `./kafka-topics.sh` are the same script.
    let name = cmd.rsplit('/').next().unwrap_or(cmd);
    match name {
        "kafka-topics.sh" => topics::run(args, cluster),
        "zookeeper-shell.sh" => zk_shell::run(args, cluster),
        "kafka-leader-election.sh" => elect::leader_election(args, cluster),
        "kafka-preferred-replica-election.sh" => elect::preferred(args, cluster),
        "kafka-configs.sh" => configs::run(args, cluster),
        "kafka-reassign-partitions.sh" => reassign::run(args, cluster),
        "kafka-server-start.sh" => broker::start(args, cluster),
        "kafka-server-stop.sh" => broker::stop(args, cluster),
        "kill" => broker::kill(args, cluster),
        "sleep" => sleep(args),
        "help" => Reply::Print(HELP.to_string()),
        _ => Reply::Usage(format!(
            "{name}: command not found (type help for the commands this console knows)\n"
        )),
    }
}

/// `sleep SECONDS` (fractions allowed, as GNU sleep; at most a day).
fn sleep(args: &[String]) -> Reply {
    let [s] = args else {
        return Reply::Usage("sleep: usage: sleep SECONDS\n".into());
    };
    match crate::time::parse_seconds_ms(s, 86_400) {
        Some(ms) => Reply::Sleep(ms),
        None => Reply::Usage(format!("sleep: invalid time interval '{s}'\n")),
    }
}

/// The longest command line the console reads, in characters: room for
/// `echo '…' > FILE` of the largest file ([`files::MAX_FILE_BYTES`]) and its
/// quoting. (The page's input box stops sooner, at 4,000.)
pub const MAX_LINE_CHARS: usize = 2 * files::MAX_FILE_BYTES;

/// What [`execute`] printed, and whether the command was accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The text, each line ending in `\n` (empty for a silent command).
    pub text: String,
    /// False for a usage error or a refusal (nothing changed).
    pub ok: bool,
}

/// Run one command line on the timeline at its current time, in a fresh
/// [`Session`] (no files).
pub fn execute(timeline: &mut Timeline, line: &str) -> Answer {
    Session::default().execute(timeline, line)
}

/// One console's state between lines: its virtual files (see
/// [`files`]). `kcsim console` keeps one for the whole of standard input,
/// the page one per pane.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Session {
    files: VecMap<String, String>,
}

impl Session {
    /// The session's files, by name.
    pub fn files(&self) -> &VecMap<String, String> {
        &self.files
    }

    /// Run one command line on the timeline at its current time: a file
    /// command (`echo … > F`, `cat`, `ls`, `rm`) on the session's files,
    /// anything else as [`interpret`] says, reading those files.
    pub fn execute(&mut self, timeline: &mut Timeline, line: &str) -> Answer {
        let chars = line.chars().count();
        if chars > MAX_LINE_CHARS {
            return Answer {
                text: format!(
                    "kcsim: the line is {chars} characters, over the limit of {MAX_LINE_CHARS} (MAX_LINE_CHARS); nothing was run\n"
                ),
                ok: false,
            };
        }
        if let Ok(w) = words(line) {
            if let Some((text, ok)) = files::run(&mut self.files, &w) {
                return Answer { text, ok };
            }
        }
        let view = ClusterView::of(timeline.sim());
        let reply = interpret(
            line,
            &Cluster {
                view: &view,
                sim: timeline.sim(),
                files: &self.files,
            },
        );
        apply(timeline, reply)
    }
}

/// Do what a command line came to.
fn apply(timeline: &mut Timeline, reply: Reply) -> Answer {
    match reply {
        Reply::Print(text) => Answer { text, ok: true },
        Reply::Usage(text) => Answer { text, ok: false },
        Reply::Sleep(ms) => {
            let to = SimTime(timeline.now().as_ms().saturating_add(ms));
            timeline.seek(to);
            Answer {
                text: String::new(),
                ok: true,
            }
        }
        Reply::Elect {
            action,
            election_type,
        } => {
            let at = timeline.now();
            let name = action.name();
            let refused = match timeline.insert(at, action) {
                Err(e) => Some(e.to_string()),
                Ok(()) => {
                    let why = refusal(timeline.trace(), at.as_ms(), name);
                    if why.is_some() {
                        timeline.undo();
                    }
                    why
                }
            };
            if let Some(why) = refused {
                // The admin client's request did not reach a controller.
                return Answer {
                    text: format!("Error while making request\n{why}\n"),
                    ok: false,
                };
            }
            let results = elect::results(timeline.trace(), at.as_ms());
            Answer {
                text: elect::report(election_type, &results),
                ok: true,
            }
        }
        Reply::Act {
            actions,
            done,
            error_prefix,
        } => {
            let mut applied = 0;
            for action in actions {
                let at = timeline.now();
                let name = action.name();
                let refused = match timeline.insert(at, action) {
                    Err(e) => Some(e.to_string()),
                    Ok(()) => {
                        applied += 1;
                        refusal(timeline.trace(), at.as_ms(), name)
                    }
                };
                if let Some(why) = refused {
                    for _ in 0..applied {
                        timeline.undo();
                    }
                    return Answer {
                        text: format!("{error_prefix}{why}\n"),
                        ok: false,
                    };
                }
            }
            Answer {
                text: done,
                ok: true,
            }
        }
    }
}

/// The reason the action applied at `at_ms` was refused, if it was.
fn refusal(trace: &crate::trace::Records, at_ms: u64, name: &str) -> Option<String> {
    crate::trace::refusal(trace, at_ms, name).map(|r| r.details())
}
