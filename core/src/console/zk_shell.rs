//! `zookeeper-shell.sh localhost:2181 CMD ARGS…`: Kafka 2.4's script runs
//! ZooKeeper 3.5.6's `ZooKeeperMain` with the rest of the line as one
//! command. Read in `apache/zookeeper` at tag release-3.5.6: `ZooKeeperMain`
//! (`usage`, `processCmd`), the `cli` package's `LsCommand`, `GetCommand`,
//! `StatCommand`, `CreateCommand`, `SetCommand`, `DeleteCommand`,
//! `StatPrinter` and `CliWrapperException` (the error lines), and
//! `common/PathUtils.validatePath`. The console prints the command's answer
//! only (not the connection's `WATCHER::` lines, whose place in the real
//! output races).

use super::{Cluster, Reply};
use crate::action::Action;
use crate::zk::Znode;

/// One command of the shell: its name and `getOptionStr`.
pub(super) const COMMANDS: &[(&str, &str)] = &[
    ("create", "[-s] [-e] [-c] [-t ttl] path [data] [acl]"),
    ("delete", "[-v version] path"),
    ("get", "[-s] [-w] path"),
    ("ls", "[-s] [-w] [-R] path"),
    ("set", "[-s] [-v version] path data"),
    ("stat", "[-w] path"),
];

/// ZooKeeperMain's `usage` (the console's commands, sorted as it sorts them).
fn usage_lines() -> String {
    let mut s = "ZooKeeper -server host:port cmd args\n".to_string();
    for (name, opts) in COMMANDS {
        s.push_str(&format!("\t{name} {opts}\n"));
    }
    s
}

/// A command's `getUsageStr`, which `CliParseException` carries.
fn command_usage(name: &str) -> Reply {
    let opts = COMMANDS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("", |(_, o)| o);
    Reply::Usage(format!("{name} {opts}\n"))
}

/// `PathUtils.validatePath`'s message for a path ZooKeeper refuses.
pub fn invalid_path(path: &str) -> Option<String> {
    if path.is_empty() {
        return Some("Path length must be > 0".into());
    }
    if !path.starts_with('/') {
        return Some("Path must start with / character".into());
    }
    if path == "/" {
        return None;
    }
    if path.ends_with('/') {
        return Some("Path must not end with / character".into());
    }
    let chars: Vec<char> = path.chars().collect();
    let at = |i: usize| chars.get(i).copied();
    let mut reason = None;
    for i in 1..chars.len() {
        let (c, last) = (chars[i], chars[i - 1]);
        let ends_segment = matches!(at(i + 1), None | Some('/'));
        let code = u32::from(c);
        if c == '\0' {
            reason = Some(format!("null character not allowed @{i}"));
        } else if c == '/' && last == '/' {
            reason = Some(format!("empty node name specified @{i}"));
        } else if c == '.' && last == '.' {
            if i >= 2 && at(i - 2) == Some('/') && ends_segment {
                reason = Some(format!("relative paths not allowed @{i}"));
            }
        } else if c == '.' {
            if last == '/' && ends_segment {
                reason = Some(format!("relative paths not allowed @{i}"));
            }
        } else if (0x01..=0x1f).contains(&code)
            || (0x7f..=0x9f).contains(&code)
            || (0xd800..=0xf8ff).contains(&code)
            || code >= 0xfff0
        {
            // Java's chars: anything beyond the BMP is a surrogate pair.
            reason = Some(format!("invalid character @{i}"));
        }
        if reason.is_some() {
            break;
        }
    }
    reason.map(|r| format!("Invalid path string \"{path}\" caused by {r}"))
}

/// The command's options (`-s`, `-v 3`, bundled `-se`) and its other words,
/// as commons-cli's PosixParser reads them.
struct Parsed<'a> {
    flags: Vec<char>,
    version: Option<&'a str>,
    args: Vec<&'a str>,
}

fn parse<'a>(words: &'a [String], flags: &str, valued: &str) -> Result<Parsed<'a>, String> {
    let mut out = Parsed {
        flags: Vec::new(),
        version: None,
        args: Vec::new(),
    };
    let mut it = words.iter();
    while let Some(w) = it.next() {
        let Some(body) = w.strip_prefix('-').filter(|b| !b.is_empty()) else {
            out.args.push(w);
            continue;
        };
        for (i, c) in body.char_indices() {
            if valued.contains(c) {
                let rest = &body[i + c.len_utf8()..];
                let v = if rest.is_empty() {
                    it.next().map(String::as_str).ok_or_else(|| {
                        format!("org.apache.commons.cli.MissingArgumentException: Missing argument for option: {c}")
                    })?
                } else {
                    rest
                };
                if c == 'v' {
                    out.version = Some(v);
                }
                out.flags.push(c);
                break;
            }
            if !flags.contains(c) {
                return Err(format!(
                    "org.apache.commons.cli.UnrecognizedOptionException: Unrecognized option: -{c}"
                ));
            }
            out.flags.push(c);
        }
    }
    Ok(out)
}

/// ZooKeeper's `Stat`, as `StatPrinter` prints it.
fn stat_lines(node: &Znode, num_children: usize) -> String {
    let s = &node.stat;
    format!(
        "cZxid = 0x{:x}\nctime = {}\nmZxid = 0x{:x}\nmtime = {}\npZxid = 0x{:x}\ncversion = {}\ndataVersion = {}\naclVersion = 0\nephemeralOwner = 0x{:x}\ndataLength = {}\nnumChildren = {}\n",
        s.czxid,
        java_date(u64::from(s.ctime_ms)),
        s.mzxid,
        java_date(u64::from(s.mtime_ms)),
        s.pzxid,
        s.cversion,
        s.version,
        s.ephemeral_owner().map_or(0, |o| o.0),
        node.data.len(),
        num_children
    )
}

/// `java.util.Date.toString` in UTC (`Thu Jan 01 00:00:03 UTC 1970`) of
/// virtual time read as ms since the epoch.
pub fn java_date(ms: u64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let secs = ms / 1000;
    let days = secs / 86_400;
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days, for days since 1970-01-01.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{} {} {:02} {:02}:{:02}:{:02} UTC {year}",
        DAYS[(days % 7) as usize],
        MONTHS.get((month - 1) as usize).copied().unwrap_or("Jan"),
        day,
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The znodes as ZooKeeper's clients see them now.
fn observed<'a>(c: &'a Cluster, path: &str) -> Option<&'a Znode> {
    c.sim
        .zk()
        .observed_nodes()
        .into_iter()
        .find(|(p, _)| *p == path)
        .map(|(_, n)| n)
}

/// The children's names, sorted (LsCommand sorts them).
fn children<'a>(c: &'a Cluster, path: &str) -> Vec<&'a str> {
    let prefix = if path == "/" {
        "/".to_string()
    } else {
        format!("{path}/")
    };
    c.view
        .znodes
        .iter()
        .filter_map(|z| z.path.strip_prefix(&prefix))
        .filter(|rest| !rest.is_empty() && !rest.contains('/'))
        .collect()
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
    let cmd = cmd.as_str();
    let (flags, valued, want) = match cmd {
        "ls" => ("swR", "", 1..=1),
        "get" => ("sw", "", 1..=1),
        "stat" => ("w", "", 1..=1),
        "delete" => ("", "v", 1..=1),
        "set" => ("s", "v", 2..=2),
        "create" => ("sec", "t", 1..=3),
        _ => {
            return Reply::Usage(format!("{}Command not found {cmd}\n", usage_lines()));
        }
    };
    let p = match parse(rest, flags, valued) {
        Ok(p) => p,
        Err(e) => return Reply::Usage(format!("{e}\n")),
    };
    if !want.contains(&p.args.len()) {
        return command_usage(cmd);
    }
    let path = p.args[0];
    let has = |f: char| p.flags.contains(&f);
    let sequential = cmd == "create" && has('s');
    let checked = if sequential {
        format!("{path}1")
    } else {
        path.to_string()
    };
    if let Some(e) = invalid_path(&checked) {
        return Reply::Usage(format!("{e}\n"));
    }
    let unsupported = if cmd == "set" { "s" } else { "wRct" };
    if let Some(f) = p.flags.iter().find(|f| unsupported.contains(**f)) {
        return Reply::Usage(format!(
            "kcsim: {cmd} -{f} is not simulated (the one-command shell exits at once)\n"
        ));
    }
    let version = match p.version.map(str::parse::<i32>) {
        None => None,
        Some(Ok(v)) => Some(v),
        Some(Err(_)) => {
            return Reply::Usage(format!(
                "java.lang.NumberFormatException: For input string: \"{}\"\n",
                p.version.unwrap_or_default()
            ))
        }
    };
    let node = observed(c, path);
    let absent = || Reply::Print(format!("Node does not exist: {path}\n"));
    let bad_version = |n: &Znode| version.is_some_and(|v| v != -1 && v != n.stat.version);
    match cmd {
        "ls" => {
            let Some(n) = node else { return absent() };
            let kids = children(c, path);
            let list = format!("[{}]", kids.join(", "));
            if has('s') {
                // LsCommand appends the stat right after the `]`.
                Reply::Print(format!("{list}{}\n", stat_lines(n, kids.len())))
            } else {
                Reply::Print(format!("{list}\n"))
            }
        }
        "get" => {
            let Some(n) = node else { return absent() };
            // Kafka creates its persistent paths with null data.
            let text = n.data.text();
            let data = if text.is_empty() { "null" } else { &text };
            let stat = if has('s') {
                stat_lines(n, children(c, path).len())
            } else {
                String::new()
            };
            Reply::Print(format!("{data}\n{stat}"))
        }
        "stat" => match node {
            Some(n) => Reply::Print(stat_lines(n, children(c, path).len())),
            None => absent(),
        },
        "delete" => {
            let Some(n) = node else { return absent() };
            if bad_version(n) {
                return Reply::Print(format!("version No is not valid : {path}\n"));
            }
            if path == "/" || !children(c, path).is_empty() {
                return Reply::Print(format!("Node not empty: {path}\n"));
            }
            silent(Action::DeleteZnode {
                path: path.to_string(),
            })
        }
        "set" => {
            let Some(n) = node else { return absent() };
            if bad_version(n) {
                return Reply::Print(format!("version No is not valid : {path}\n"));
            }
            silent(Action::SetZnode {
                path: path.to_string(),
                data: p.args[1].to_string(),
            })
        }
        _ => create(c, path, &p, sequential),
    }
}

fn silent(action: Action) -> Reply {
    Reply::Act {
        actions: vec![action],
        done: String::new(),
        error_prefix: String::new(),
    }
}

/// `create [-s] [-e] path [data]`: `Created PATH` (with a sequential
/// node's counter), or the KeeperException's line.
fn create(c: &Cluster, path: &str, p: &Parsed, sequential: bool) -> Reply {
    if p.args.len() > 2 {
        return Reply::Usage(
            "kcsim: ACLs are not simulated (every znode is world:anyone:cdrwa)\n".into(),
        );
    }
    if path == "/" {
        return Reply::Print("Node already exists: /\n".into());
    }
    let parent_path = match path.rfind('/') {
        Some(0) | None => "/",
        Some(i) => &path[..i],
    };
    let parent = observed(c, parent_path);
    let Some(parent) = parent else {
        return Reply::Print(format!("Node does not exist: {path}\n"));
    };
    if parent.stat.ephemeral_owner().is_some() {
        return Reply::Print(format!("Ephemerals cannot have children: {path}\n"));
    }
    let full = if sequential {
        format!("{path}{:010}", parent.stat.cversion)
    } else {
        path.to_string()
    };
    if observed(c, &full).is_some() {
        return Reply::Print(format!("Node already exists: {full}\n"));
    }
    Reply::Act {
        actions: vec![Action::CreateZnode {
            path: path.to_string(),
            data: p.args.get(1).copied().unwrap_or_default().to_string(),
            ephemeral: p.flags.contains(&'e'),
            sequential,
        }],
        done: format!("Created {full}\n"),
        error_prefix: String::new(),
    }
}
