//! Tab completion for the console, as a shell completes: command names,
//! each tool's option names, and the values the cluster knows (topic names,
//! broker ids, partition numbers, znode paths for `zookeeper-shell.sh`).
//!
//! [`complete`] is pure: it reads the line up to the cursor and the
//! [`ClusterView`] and says what the line becomes. One candidate completes
//! the word (followed by a blank, or by `/` for a znode with children, as
//! bash does for a directory); several extend the word to their longest
//! common prefix and are all listed at once (bash lists them on the second
//! Tab; the page shows them on the first, so a learner sees the choices).
//! A word with quotes or backslashes is left alone.

use crate::view::ClusterView;

/// The commands the console knows, as [`super::interpret`] names them.
pub const COMMANDS: &[&str] = &[
    "help",
    "kafka-configs.sh",
    "kafka-leader-election.sh",
    "kafka-preferred-replica-election.sh",
    "kafka-reassign-partitions.sh",
    "kafka-server-start.sh",
    "kafka-server-stop.sh",
    "kafka-topics.sh",
    "kill",
    "sleep",
    "zookeeper-shell.sh",
];

/// The `zookeeper-shell.sh` commands the console runs (the shell's own
/// table, `zk_shell::COMMANDS`).
pub fn zk_commands() -> impl Iterator<Item = &'static str> {
    super::zk_shell::COMMANDS.iter().map(|(name, _)| *name)
}

/// The signals `kill` takes here (`kill -l` lists more; the console sends 9
/// or 15).
const SIGNALS: &[&str] = &["-9", "-15", "-KILL", "-TERM", "-s"];

/// Each tool's options (without the leading `--`) and whether each takes a
/// value: the very table the tool's parser reads, so the two cannot drift.
fn options(cmd: &str) -> super::opts::Spec {
    match cmd {
        "kafka-topics.sh" => super::topics::SPEC,
        "kafka-leader-election.sh" => super::elect::SPEC,
        "kafka-preferred-replica-election.sh" => super::elect::PREFERRED_SPEC,
        "kafka-configs.sh" => super::configs::SPEC,
        "kafka-reassign-partitions.sh" => super::reassign::SPEC,
        // kcsim's own option (see `broker.rs`).
        "kafka-server-stop.sh" => &[("broker", true)],
        _ => &[],
    }
}

/// What Tab makes of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// The text up to the cursor, completed (the rest of the line follows
    /// it unchanged).
    pub line: String,
    /// Every candidate when more than one matches (sorted), else empty.
    pub candidates: Vec<String>,
}

/// Complete the word that ends at the cursor: `before` is the line up to
/// the cursor.
pub fn complete(before: &str, view: &ClusterView) -> Completion {
    let unchanged = || Completion {
        line: before.to_string(),
        candidates: Vec::new(),
    };
    // The word being completed starts after the last blank.
    let start = before
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map_or(0, |(i, c)| i + c.len_utf8());
    let (head, partial) = before.split_at(start);
    if partial.contains(['\'', '"', '\\']) {
        return unchanged();
    }
    let Ok(prev) = super::words(head) else {
        return unchanged();
    };
    let (stem, candidates) = candidates(&prev, partial, view);
    let mut matching: Vec<String> = candidates
        .into_iter()
        .filter(|c| c.starts_with(stem))
        .collect();
    crate::sort::sort(&mut matching);
    matching.dedup();
    let keep = &partial[..partial.len() - stem.len()];
    match matching.as_slice() {
        [] => unchanged(),
        [one] => {
            let end = if one.ends_with('/') || one.ends_with('=') || one.ends_with(',') {
                ""
            } else {
                " "
            };
            Completion {
                line: format!("{head}{keep}{one}{end}"),
                candidates: Vec::new(),
            }
        }
        many => {
            let common = common_prefix(many);
            Completion {
                line: format!("{head}{keep}{common}"),
                candidates: many.to_vec(),
            }
        }
    }
}

fn common_prefix(words: &[String]) -> String {
    let Some(first) = words.first() else {
        return String::new();
    };
    let mut len = first.len();
    for w in words {
        len = first
            .char_indices()
            .zip(w.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map_or(0, |((i, a), _)| i + a.len_utf8())
            .min(len);
    }
    first[..len].to_string()
}

/// The part of `partial` being completed and every candidate for it (not yet
/// filtered), given the words before it.
fn candidates<'p>(prev: &[String], partial: &'p str, view: &ClusterView) -> (&'p str, Vec<String>) {
    let topics = || -> Vec<String> { view.topics.iter().map(|t| t.name.clone()).collect() };
    let brokers = || -> Vec<String> { view.brokers.iter().map(|b| b.id.0.to_string()).collect() };
    let Some((cmd, args)) = prev.split_first() else {
        // The command itself; `bin/kafka-to` completes the name after the `/`.
        let (_, name) = partial.rsplit_once('/').unwrap_or(("", partial));
        return (name, COMMANDS.iter().map(|c| c.to_string()).collect());
    };
    let cmd = cmd.rsplit('/').next().unwrap_or(cmd);
    let last = args.last().map(String::as_str);
    match cmd {
        "kill" => {
            if partial.starts_with('-') && args.is_empty() {
                (partial, SIGNALS.iter().map(|s| s.to_string()).collect())
            } else if last == Some("-s") {
                (partial, vec!["KILL".into(), "TERM".into()])
            } else {
                (partial, brokers())
            }
        }
        "kafka-server-start.sh" if args.is_empty() => (
            partial,
            view.brokers
                .iter()
                .map(|b| format!("config/server-{}.properties", b.id.0))
                .collect(),
        ),
        "zookeeper-shell.sh" => match args.len() {
            0 => (partial, vec!["localhost:2181".into()]),
            1 => (partial, zk_commands().map(str::to_string).collect()),
            2 => (partial, znode_paths(partial, view)),
            _ => (partial, Vec::new()),
        },
        _ => {
            let opts = options(cmd);
            let value_of = last
                .and_then(|l| l.strip_prefix("--"))
                .filter(|o| opts.iter().any(|(name, valued)| name == o && *valued));
            match value_of {
                Some(opt) => values(opt, args, partial, view, topics, brokers),
                None if partial.is_empty() || partial.starts_with('-') => (
                    partial,
                    opts.iter()
                        .filter(|(o, _)| !args.iter().any(|a| a.strip_prefix("--") == Some(o)))
                        .map(|(o, _)| format!("--{o}"))
                        .collect(),
                ),
                None => (partial, Vec::new()),
            }
        }
    }
}

/// The values an option's argument can take.
fn values<'p>(
    opt: &str,
    args: &[String],
    partial: &'p str,
    view: &ClusterView,
    topics: impl Fn() -> Vec<String>,
    brokers: impl Fn() -> Vec<String>,
) -> (&'p str, Vec<String>) {
    match opt {
        "bootstrap-server" => (partial, vec!["localhost:9092".into()]),
        "zookeeper" => (partial, vec!["localhost:2181".into()]),
        "topic" | "entity-name" => {
            // `--topic a,b`: complete the name after the last comma.
            let (_, name) = partial.rsplit_once(',').unwrap_or(("", partial));
            (name, topics())
        }
        "partition" => {
            let topic = args
                .windows(2)
                .find(|w| w.first().map(String::as_str) == Some("--topic"))
                .and_then(|w| w.get(1));
            let partitions = view
                .partitions
                .iter()
                .filter(|p| topic.is_none_or(|t| *t == p.overview.tp.topic))
                .map(|p| p.overview.tp.partition.to_string());
            let mut ps: Vec<String> = partitions.collect();
            crate::sort::sort_by_key(&mut ps, |p| p.parse::<u32>().unwrap_or(u32::MAX));
            ps.dedup();
            (partial, ps)
        }
        "election-type" => (partial, vec!["preferred".into(), "unclean".into()]),
        "entity-type" => (partial, vec!["brokers".into(), "topics".into()]),
        "add-config" | "delete-config" => (
            partial,
            vec![
                "min.insync.replicas=".into(),
                "unclean.leader.election.enable=".into(),
            ],
        ),
        "broker" => (partial, brokers()),
        _ => (partial, Vec::new()),
    }
}

/// The znodes under the parent of `partial` (`/bro` → `/brokers/`); a node
/// with children gets a trailing `/`.
fn znode_paths(partial: &str, view: &ClusterView) -> Vec<String> {
    let Some(cut) = partial.rfind('/') else {
        return vec!["/".into()];
    };
    let dir = &partial[..=cut];
    let has_children = |p: &str| {
        let prefix = format!("{p}/");
        view.znodes.iter().any(|z| z.path.starts_with(&prefix))
    };
    view.znodes
        .iter()
        .filter_map(|z| {
            let rest = z.path.strip_prefix(dir)?;
            (!rest.is_empty() && !rest.contains('/')).then_some(&z.path)
        })
        .map(|p| {
            if has_children(p) {
                format!("{p}/")
            } else {
                p.clone()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::builtin::default_cluster;
    use crate::time::SimTime;
    use crate::timeline::Timeline;

    /// The default cluster at 3 s: brokers 0–3, topics `audit` and `orders`.
    fn view() -> ClusterView {
        let mut t = Timeline::new(&default_cluster());
        t.seek(SimTime(3_000));
        ClusterView::of(t.sim())
    }

    fn tab(line: &str) -> Completion {
        complete(line, &view())
    }

    fn list(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn one_command_name_completes_with_a_blank() {
        assert_eq!(tab("kafka-to").line, "kafka-topics.sh ");
        assert_eq!(tab("zoo").line, "zookeeper-shell.sh ");
        assert_eq!(tab("bin/kafka-to").line, "bin/kafka-topics.sh ");
        assert!(tab("kafka-to").candidates.is_empty());
    }

    #[test]
    fn several_command_names_extend_to_their_common_prefix_and_are_listed() {
        let c = tab("kafka-server-st");
        assert_eq!(c.line, "kafka-server-st");
        assert_eq!(
            c.candidates,
            list(&["kafka-server-start.sh", "kafka-server-stop.sh"])
        );
        let c = tab("kafka-p");
        assert_eq!(c.line, "kafka-preferred-replica-election.sh ");
        let c = tab("k");
        assert_eq!(c.line, "k");
        assert_eq!(c.candidates.len(), 8, "{:?}", c.candidates);
    }

    #[test]
    fn nothing_matching_leaves_the_line_alone() {
        assert_eq!(
            tab("kafka-console-producer"),
            Completion {
                line: "kafka-console-producer".into(),
                candidates: Vec::new()
            }
        );
        assert_eq!(tab("'kafka-to").line, "'kafka-to", "a quoted word");
        assert_eq!(tab("kill -9 \"1").line, "kill -9 \"1");
    }

    #[test]
    fn kafka_topics_options_complete() {
        // TopicCommandOptions: --describe, --delete; --under-… reports.
        assert_eq!(
            tab("kafka-topics.sh --bootstrap-server localhost:9092 --desc").line,
            "kafka-topics.sh --bootstrap-server localhost:9092 --describe "
        );
        let c = tab("kafka-topics.sh --de");
        assert_eq!(c.line, "kafka-topics.sh --de");
        assert_eq!(c.candidates, list(&["--delete", "--describe"]));
        let c = tab("kafka-topics.sh --describe --un");
        assert_eq!(c.line, "kafka-topics.sh --describe --un");
        assert_eq!(
            c.candidates,
            list(&[
                "--unavailable-partitions",
                "--under-min-isr-partitions",
                "--under-replicated-partitions"
            ])
        );
        // An option already given is not offered again.
        let c = tab("kafka-topics.sh --describe --");
        assert!(!c.candidates.contains(&"--describe".to_string()));
        assert!(c.candidates.contains(&"--topic".to_string()));
    }

    #[test]
    fn kafka_topics_values_are_the_clusters() {
        assert_eq!(
            tab("kafka-topics.sh --bootstrap").line,
            "kafka-topics.sh --bootstrap-server "
        );
        assert_eq!(
            tab("kafka-topics.sh --bootstrap-server ").line,
            "kafka-topics.sh --bootstrap-server localhost:9092 "
        );
        assert_eq!(
            tab("kafka-topics.sh --zookeeper l").line,
            "kafka-topics.sh --zookeeper localhost:2181 "
        );
        assert_eq!(
            tab("kafka-topics.sh --describe --topic or").line,
            "kafka-topics.sh --describe --topic orders "
        );
        let c = tab("kafka-topics.sh --describe --topic ");
        assert_eq!(c.candidates, list(&["audit", "orders"]));
        // A comma-separated list completes its last name.
        assert_eq!(
            tab("kafka-topics.sh --describe --topic orders,a").line,
            "kafka-topics.sh --describe --topic orders,audit "
        );
    }

    #[test]
    fn kafka_leader_election_options_and_values_complete() {
        // LeaderElectionCommandOptions: --election-type PREFERRED|UNCLEAN,
        // --topic and --partition.
        assert_eq!(
            tab("kafka-leader-election.sh --elec").line,
            "kafka-leader-election.sh --election-type "
        );
        assert_eq!(
            tab("kafka-leader-election.sh --election-type p").line,
            "kafka-leader-election.sh --election-type preferred "
        );
        assert_eq!(
            tab("kafka-leader-election.sh --all").line,
            "kafka-leader-election.sh --all-topic-partitions "
        );
        let c = tab("kafka-leader-election.sh --topic orders --partition ");
        let orders: Vec<String> = view()
            .partitions
            .iter()
            .filter(|p| p.overview.tp.topic == "orders")
            .map(|p| p.overview.tp.partition.to_string())
            .collect();
        assert_eq!(c.candidates, orders);
        assert!(c.candidates.len() > 1);
    }

    #[test]
    fn kafka_configs_options_and_values_complete() {
        // ConfigCommandOptions: --entity-type topics|brokers, --entity-name,
        // --add-config k=v.
        assert_eq!(
            tab("kafka-configs.sh --entity-t").line,
            "kafka-configs.sh --entity-type "
        );
        assert_eq!(
            tab("kafka-configs.sh --entity-type t").line,
            "kafka-configs.sh --entity-type topics "
        );
        assert_eq!(
            tab("kafka-configs.sh --entity-type topics --entity-name au").line,
            "kafka-configs.sh --entity-type topics --entity-name audit "
        );
        assert_eq!(
            tab("kafka-configs.sh --alter --add-config unc").line,
            "kafka-configs.sh --alter --add-config unclean.leader.election.enable=",
            "no blank after '=': the value follows"
        );
    }

    #[test]
    fn broker_ids_complete_for_kill_start_and_stop() {
        let c = tab("kill -9 ");
        assert_eq!(c.candidates, list(&["0", "1", "2", "3"]));
        assert_eq!(tab("kill -9 2").line, "kill -9 2 ");
        assert_eq!(tab("kill -K").line, "kill -KILL ");
        assert_eq!(tab("kill -s T").line, "kill -s TERM ");
        assert_eq!(tab("kill -1").line, "kill -15 ");
        assert_eq!(
            tab("kafka-server-start.sh config/server-1").line,
            "kafka-server-start.sh config/server-1.properties "
        );
        assert_eq!(
            tab("kafka-server-stop.sh --b").line,
            "kafka-server-stop.sh --broker "
        );
        assert_eq!(
            tab("kafka-server-stop.sh --broker 3").line,
            "kafka-server-stop.sh --broker 3 "
        );
    }

    #[test]
    fn zookeeper_shell_completes_its_server_commands_and_znode_paths() {
        assert_eq!(
            tab("zookeeper-shell.sh ").line,
            "zookeeper-shell.sh localhost:2181 "
        );
        assert_eq!(
            tab("zookeeper-shell.sh localhost:2181 g").line,
            "zookeeper-shell.sh localhost:2181 get "
        );
        // A znode with children completes like a directory.
        assert_eq!(
            tab("zookeeper-shell.sh localhost:2181 ls /bro").line,
            "zookeeper-shell.sh localhost:2181 ls /brokers/"
        );
        assert_eq!(
            tab("zookeeper-shell.sh localhost:2181 get /controller_").line,
            "zookeeper-shell.sh localhost:2181 get /controller_epoch "
        );
        let c = tab("zookeeper-shell.sh localhost:2181 ls /brokers/ids/");
        assert_eq!(
            c.candidates,
            list(&[
                "/brokers/ids/0",
                "/brokers/ids/1",
                "/brokers/ids/2",
                "/brokers/ids/3"
            ])
        );
        let c = tab("zookeeper-shell.sh localhost:2181 get /c");
        assert!(c.candidates.contains(&"/controller".to_string()));
        assert!(c.candidates.contains(&"/controller_epoch".to_string()));
        assert!(c.candidates.contains(&"/config/".to_string()));
    }

    #[test]
    fn the_rest_of_the_line_is_not_read() {
        // The page passes the text before the cursor.
        assert_eq!(tab("kill -9 ").line, "kill -9 ");
        assert_eq!(tab("").candidates.len(), COMMANDS.len());
        assert_eq!(tab("sleep ").candidates, Vec::<String>::new());
        assert_eq!(tab("help ").candidates, Vec::<String>::new());
    }

    #[test]
    fn reassignment_tool_and_shell_stat_complete_from_their_own_tables() {
        // ReassignPartitionsCommand.ReassignPartitionsCommandOptions (2.4):
        // the options come from the table the console's parser reads.
        assert_eq!(
            tab("kafka-reassign-partitions.sh --zookeeper localhost:2181 --gen").line,
            "kafka-reassign-partitions.sh --zookeeper localhost:2181 --generate "
        );
        let c = tab("kafka-reassign-partitions.sh --zookeeper localhost:2181 --re");
        assert_eq!(
            c.line,
            "kafka-reassign-partitions.sh --zookeeper localhost:2181 --re"
        );
        assert_eq!(
            c.candidates,
            list(&[
                "--reassignment-json-file",
                "--replica-alter-log-dirs-throttle"
            ])
        );
        // ZooKeeperMain's commands (3.5.6): stat and create too.
        assert_eq!(
            tab("zookeeper-shell.sh localhost:2181 st").line,
            "zookeeper-shell.sh localhost:2181 stat "
        );
        assert_eq!(
            tab("zookeeper-shell.sh localhost:2181 cr").line,
            "zookeeper-shell.sh localhost:2181 create "
        );
    }

    #[test]
    fn everything_completed_is_something_the_console_knows() {
        // Every command name, every option and every zookeeper-shell command
        // completed here is one `interpret` reads (none is refused as
        // unknown), so the two lists cannot drift apart unseen.
        let mut t = Timeline::new(&default_cluster());
        t.seek(SimTime(3_000));
        let v = ClusterView::of(t.sim());
        let files = crate::vec_map::VecMap::new();
        let cluster = super::super::Cluster {
            view: &v,
            sim: t.sim(),
            files: &files,
        };
        let said = |line: &str| match super::super::interpret(line, &cluster) {
            super::super::Reply::Print(s) | super::super::Reply::Usage(s) => s,
            _ => String::new(),
        };
        for c in COMMANDS {
            assert!(!said(c).contains("command not found"), "{c}");
            for (o, valued) in options(c) {
                let line = format!("{c} --{o}");
                let out = said(&line);
                assert!(!out.contains("is not a recognized option"), "{line}: {out}");
                if *c != "kafka-server-stop.sh" {
                    // joptsimple's words for an option missing its value.
                    assert_eq!(
                        *valued,
                        out.contains("requires an argument"),
                        "{line}: {out}"
                    );
                }
            }
        }
        for z in zk_commands() {
            let data = if z == "set" { " x" } else { "" };
            let out = said(&format!(
                "zookeeper-shell.sh localhost:2181 {z} /controller{data}"
            ));
            assert!(!out.starts_with("ZooKeeper -server"), "{z}: {out}");
        }
    }
}
