//! # kcsim-web: the browser simulator
//!
//! A Yew front end over [`kcsim_core`]. The model lives in [`state`] (a pure
//! reducer, tested natively); components in [`components`] only draw what the
//! core's [`kcsim_core::ClusterView`] says and send actions back.

#![forbid(unsafe_code)]

pub mod app;
pub mod components;
#[cfg(all(test, not(target_arch = "wasm32")))]
mod csp_tests;
mod el;
pub mod hooks;
pub mod i18n;
pub mod lesson;
pub mod notice;
pub mod share;
pub mod state;
pub mod trace_io;

pub use app::App;
/// The controller's ZooKeeper access profile (`sim.controller.zk.mode`). The
/// one place this crate names the core module it lives in.
pub use kcsim_core::cost::ZkMode;

/// Mount the app into `root` (used by the browser tests).
pub fn mount(root: web_sys::Element) -> yew::AppHandle<App> {
    yew::Renderer::<App>::with_root(root).render()
}
