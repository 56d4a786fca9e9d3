//! `zookeeper-shell.sh localhost:2181 CMD PATH …`: Kafka 2.4's script runs
//! ZooKeeper 3.5.6's `ZooKeeperMain` with the rest of the line as one
//! command. The console prints the command's answer only (not the
//! connection's `WATCHER::` lines, whose place in the real output races).

use super::{Cluster, Reply};
use crate::action::Action;

/// ZooKeeperMain's usage, for a command it does not know (the console's
/// subset of its list).
const USAGE: &str = "ZooKeeper -server host:port cmd args
\tdelete path [version]
\tget [-s] [-w] path
\tls [-s] [-w] [-R] path
\tset [-s] [-v version] path data
";

fn usage() -> Reply {
    Reply::Usage(USAGE.to_string())
}

/// `zookeeper-shell.sh SERVER CMD ARGS`.
pub fn run(args: &[String], c: &Cluster) -> Reply {
    let Some((_server, rest)) = args.split_first() else {
        return Reply::Usage(
            "USAGE: zookeeper-shell.sh zookeeper_host:port[/path] [args...]\n".into(),
        );
    };
    let Some((cmd, rest)) = rest.split_first() else {
        // The real script would open an interactive shell.
        return Reply::Usage("zookeeper-shell.sh: the console runs one command at a time: zookeeper-shell.sh localhost:2181 ls /\n".into());
    };
    let (path, extra) = match rest.split_first() {
        Some((p, e)) => (p.as_str(), e),
        None => return usage(),
    };
    if !path.starts_with('/') {
        return Reply::Usage("Path must start with / character\n".into());
    }
    let path = if path.len() > 1 {
        path.trim_end_matches('/')
    } else {
        path
    };
    let node = c.view.znode(path);
    let root = path == "/";
    let exists = root || node.is_some();
    let absent = || Reply::Print(format!("Node does not exist: {path}\n"));
    match (cmd.as_str(), extra) {
        ("ls", []) => {
            if !exists {
                return absent();
            }
            let prefix = if root {
                "/".to_string()
            } else {
                format!("{path}/")
            };
            let children: Vec<&str> = c
                .view
                .znodes
                .iter()
                .filter_map(|z| z.path.strip_prefix(&prefix))
                .filter(|rest| !rest.is_empty() && !rest.contains('/'))
                .collect();
            // ZooKeeper 3.5 prints the children as a Java List.
            Reply::Print(format!("[{}]\n", children.join(", ")))
        }
        ("get", []) => match node {
            // Kafka creates its persistent paths with null data.
            Some(z) if z.data.is_empty() => Reply::Print("null\n".into()),
            Some(z) => Reply::Print(format!("{}\n", z.data)),
            None if root => Reply::Print("null\n".into()),
            None => absent(),
        },
        ("delete", []) => {
            if !exists {
                return absent();
            }
            let prefix = format!("{path}/");
            if root || c.view.znodes.iter().any(|z| z.path.starts_with(&prefix)) {
                return Reply::Print(format!("Node not empty: {path}\n"));
            }
            Reply::Act {
                actions: vec![Action::DeleteZnode {
                    path: path.to_string(),
                }],
                done: String::new(),
                error_prefix: String::new(),
            }
        }
        ("set", [data]) => {
            if !exists {
                return absent();
            }
            Reply::Act {
                actions: vec![Action::SetZnode {
                    path: path.to_string(),
                    data: data.clone(),
                }],
                done: String::new(),
                error_prefix: String::new(),
            }
        }
        _ => usage(),
    }
}
