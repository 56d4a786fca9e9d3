//! The page's sources against its Content-Security-Policy
//! (core/docs/web-security.md): what the policy would refuse at run time is
//! refused here at `cargo test`, on every path, not only those the
//! end-to-end test (tests/e2e/csp.test.mjs) walks.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every line of web/src/ (this file left out: it names what it looks for).
fn source_lines() -> Vec<(String, usize, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 20, "web/src/ was read: {files:?}");
    let mut lines = Vec::new();
    for f in files.iter().filter(|f| !f.ends_with("csp_tests.rs")) {
        let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        for (i, l) in text.lines().enumerate() {
            if !l.trim_start().starts_with("//") {
                lines.push((f.display().to_string(), i + 1, l.to_string()));
            }
        }
    }
    lines
}

#[test]
fn no_text_becomes_markup() {
    // Trusted Types (require-trusted-types-for 'script') would throw on these
    // at run time; no user text (lesson files, topic names, console input,
    // share links) may ever be parsed as HTML.
    let sinks = [
        "from_html_unchecked",
        "inner_html",
        "outer_html",
        "insert_adjacent_html",
        "innerHTML",
        "document_write",
        "write_with_str",
        "VRaw",
    ];
    let found: Vec<_> = source_lines()
        .into_iter()
        .filter(|(_, _, l)| sinks.iter().any(|s| l.contains(s)))
        .collect();
    assert!(found.is_empty(), "HTML sinks in web/src: {found:#?}");
}

#[test]
fn no_inline_style_element_or_attribute() {
    // style-src 'self': a <style> element and a style="…" attribute are
    // refused; `~style={…}` (the style property, the CSSOM) and
    // hooks::use_style_sheet (a constructed sheet) are what the page uses.
    let found: Vec<_> = source_lines()
        .into_iter()
        .filter(|(_, _, l)| {
            l.contains("<style")
                || l.contains("set_attribute(\"style\"")
                || l.match_indices("style={").any(|(i, _)| {
                    let before = l[..i].chars().next_back();
                    before.is_some_and(char::is_whitespace)
                })
        })
        .collect();
    assert!(found.is_empty(), "inline style in web/src: {found:#?}");
}

#[test]
fn the_index_carries_the_policy_and_trunk_injects_no_inline_loader() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let index = std::fs::read_to_string(root.join("index.html")).expect("index.html");
    let trunk = std::fs::read_to_string(root.join("Trunk.toml")).expect("Trunk.toml");
    let policy = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; \
                  connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; \
                  object-src 'none'; require-trusted-types-for 'script'; trusted-types 'none'";
    let meta = format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\" />");
    let at = index.find(&meta).expect("index.html carries the policy");
    assert!(
        index.find("<link").is_some_and(|l| l > at),
        "the policy comes before the first <link>"
    );
    assert!(
        trunk.contains("pattern_script = \"<meta name=\\\"kcsim-app\\\""),
        "Trunk.toml replaces trunk's inline loader"
    );
    assert!(trunk.contains("no_autoreload = true"));
    assert!(index.contains("<script data-trunk src=\"web/js/boot.js\" type=\"module\""));
}
