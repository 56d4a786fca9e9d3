//! The benchmarks of `kcsim_core::bench`, compiled to WebAssembly and run in
//! headless Chromium. Only `cargo xtask bench` runs this file (optimized, with
//! `-- --nocapture` so the JSON lines reach it); `cargo xtask test` does not
//! build it for the browser, and natively it is empty.
//!
//! The options come from `KCSIM_BENCH_ARGS` at compile time (the page has no
//! command line): the same `--name value` options as `kcsim bench`.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The page's clock: `performance.now()`, in ms.
fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// The WebAssembly memory's size in bytes (it only grows: it is a peak).
fn memory_bytes() -> u64 {
    (core::arch::wasm32::memory_size::<0>() as u64) * 65_536
}

#[wasm_bindgen_test]
fn bench_in_the_browser() {
    let args: Vec<String> = option_env!("KCSIM_BENCH_ARGS")
        .unwrap_or("--quick")
        .split_whitespace()
        .map(String::from)
        .collect();
    let options = kcsim_core::bench::Options::parse(&args).expect("bench options");
    let host = kcsim_core::bench::Host {
        platform: "wasm",
        clock_ms: &now_ms,
        bytes_in_use: &memory_bytes,
        peak_bytes: &memory_bytes,
        reset_peak: &|| {},
    };
    let mut emit = |m: &kcsim_core::bench::Measurement| {
        console_log!("KCSIM_BENCH {}", m.to_json());
    };
    let all = kcsim_core::bench::run(&host, &options, &mut emit).expect("the benchmarks ran");
    assert!(
        all.iter().all(|m| m.ok),
        "every measurement reached its end state"
    );
}
