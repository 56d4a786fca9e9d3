// Starts the page: loads the wasm-bindgen module and the .wasm that trunk
// built. It is its own file (trunk hashes it and gives it an integrity
// attribute) so that dist/index.html has no inline script and the page's
// Content-Security-Policy can say `script-src 'self'` (core/docs/web-security.md).
// trunk's `pattern_script` (Trunk.toml) writes the two hashed file names
// into <meta name="kcsim-app">; this module is deferred, so that element is
// parsed before it runs.
const app = document.querySelector('meta[name="kcsim-app"]');
if (app === null) {
  throw new Error('kcsim: <meta name="kcsim-app"> is missing: was dist/index.html built by trunk with Trunk.toml?');
}
const { js, wasm } = app.dataset;
// The module is checked against its modulepreload's integrity hash by the
// browser. Chromium ignores the integrity of a preload "as=fetch", so the
// .wasm's hash (trunk's, on that preload) is given to the fetch itself: a
// .wasm that does not match is refused.
const preload = [...document.querySelectorAll('link[rel="preload"]')].find((l) => l.getAttribute('href') === wasm);
const { default: init } = await import(js);
const exports = await init({ module_or_path: fetch(wasm, { integrity: preload?.integrity ?? '' }) });
// How many bytes of WebAssembly memory the page holds (it only grows): read
// by the end-to-end tests, which print it beside their other figures.
globalThis.kcsimWasmBytes = () => exports.memory.buffer.byteLength;
