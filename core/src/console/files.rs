//! The console's virtual files: real tools read JSON files
//! (`--reassignment-json-file`, `--topics-to-move-json-file`,
//! `--path-to-json-file`), so a console [`super::Session`] keeps a few small
//! text files in memory, written and read with a tiny subset of the shell:
//! `echo TEXT > NAME` (`>>` appends), `cat NAME`, `ls [NAME…]`, `rm NAME…`.
//! The files belong to the session, not to the cluster: they are not
//! actions, not recorded, not undone.

use crate::vec_map::VecMap;

/// At most this many files in a session.
pub const MAX_FILES: usize = 64;
/// At most this many bytes in one file.
pub const MAX_FILE_BYTES: usize = 64 * 1024;
/// At most this many bytes in a file's name.
pub const MAX_NAME_BYTES: usize = 255;

/// What a file command printed, and whether it succeeded; `None` when the
/// line is not a file command.
pub fn run(files: &mut VecMap<String, String>, words: &[String]) -> Option<(String, bool)> {
    let (cmd, args) = words.split_first()?;
    Some(match cmd.as_str() {
        "echo" => echo(files, args),
        "cat" => cat(files, args),
        "ls" => ls(files, args),
        "rm" => rm(files, args),
        _ => return None,
    })
}

/// `echo WORDS… [> NAME | >> NAME]` (the redirection may be glued to the
/// name: `>NAME`).
fn echo(files: &mut VecMap<String, String>, args: &[String]) -> (String, bool) {
    let mut text = Vec::new();
    let mut target: Option<(&str, bool)> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (append, rest) = if let Some(r) = a.strip_prefix(">>") {
            (true, r)
        } else if let Some(r) = a.strip_prefix('>') {
            (false, r)
        } else {
            text.push(a.as_str());
            continue;
        };
        let name = if rest.is_empty() {
            match it.next() {
                Some(n) => n.as_str(),
                None => {
                    return (
                        "bash: syntax error near unexpected token `newline'\n".into(),
                        false,
                    )
                }
            }
        } else {
            rest
        };
        target = Some((name, append));
    }
    let line = format!("{}\n", text.join(" "));
    let Some((name, append)) = target else {
        return (line, true);
    };
    if name.len() > MAX_NAME_BYTES {
        return (format!("bash: {name}: File name too long\n"), false);
    }
    let before = if append {
        files.get(name).map_or("", String::as_str)
    } else {
        ""
    };
    if before.len() + line.len() > MAX_FILE_BYTES {
        return (
            format!("bash: {name}: File too large (the console keeps files up to {MAX_FILE_BYTES} bytes)\n"),
            false,
        );
    }
    if !files.contains_key(name) && files.len() >= MAX_FILES {
        return (
            format!("bash: {name}: No space left on device (the console keeps up to {MAX_FILES} files; rm one)\n"),
            false,
        );
    }
    let content = format!("{before}{line}");
    files.insert(name.to_string(), content);
    (String::new(), true)
}

fn no_such(tool: &str, name: &str) -> String {
    match tool {
        "cat" => format!("cat: {name}: No such file or directory\n"),
        "ls" => format!("ls: cannot access '{name}': No such file or directory\n"),
        _ => format!("rm: cannot remove '{name}': No such file or directory\n"),
    }
}

/// `cat NAME…`: the files, one after the other.
fn cat(files: &VecMap<String, String>, args: &[String]) -> (String, bool) {
    let mut out = String::new();
    let mut ok = true;
    for name in args {
        match files.get(name) {
            Some(text) => out.push_str(text),
            None => {
                out.push_str(&no_such("cat", name));
                ok = false;
            }
        }
    }
    (out, ok)
}

/// `ls [NAME…]`: the names, one a line, sorted (as GNU ls prints to a pipe).
fn ls(files: &VecMap<String, String>, args: &[String]) -> (String, bool) {
    if args.is_empty() {
        let names: String = files.keys().map(|n| format!("{n}\n")).collect();
        return (names, true);
    }
    let mut missing = String::new();
    let mut found = String::new();
    for name in args {
        if files.contains_key(name) {
            found.push_str(&format!("{name}\n"));
        } else {
            missing.push_str(&no_such("ls", name));
        }
    }
    let ok = missing.is_empty();
    (format!("{missing}{found}"), ok)
}

/// `rm NAME…`.
fn rm(files: &mut VecMap<String, String>, args: &[String]) -> (String, bool) {
    if args.is_empty() {
        return ("rm: missing operand\n".into(), false);
    }
    let mut out = String::new();
    for name in args {
        if files.remove(name).is_none() {
            out.push_str(&no_such("rm", name));
        }
    }
    let ok = out.is_empty();
    (out, ok)
}

/// What `Utils.readFileAsString` gives a tool for `name`: the text, or the
/// `NoSuchFileException` it throws (the name is its message).
pub fn read<'a>(files: &'a VecMap<String, String>, name: &str) -> Result<&'a str, String> {
    files
        .get(name)
        .map(String::as_str)
        .ok_or_else(|| name.to_string())
}
