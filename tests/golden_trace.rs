//! The golden trace: one scenario's trace fingerprint, pinned. The browser
//! test checks the same file, so native and WebAssembly runs must agree byte
//! for byte. When behaviour changes on purpose, rewrite it with
//! `KCSIM_UPDATE_GOLDEN=1 cargo test -p kcsim --test golden_trace` and say why
//! in the commit.

#[test]
fn the_zombie_scenario_trace_matches_the_pinned_fingerprint() {
    let got = kcsim::golden_fingerprint();
    let path = format!(
        "{}/tests/golden/zombie-controller.trace",
        env!("CARGO_MANIFEST_DIR")
    );
    if std::env::var_os("KCSIM_UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, format!("{got}\n")).expect("golden written");
    }
    let want = std::fs::read_to_string(&path).expect("the golden file");
    assert_eq!(
        got,
        want.trim(),
        "the trace changed; if on purpose, update the golden file"
    );
}
