//! The trace as a file: the page downloads it in the format `kcsim run
//! --trace` writes (through the core's one serializer,
//! [`kcsim_core::trace_file::write`]) and loads one back, replaying its
//! scenario record's built-in scenario and actions as share links do.

use crate::state::{SimState, SCENARIOS};
use kcsim_core::scenario::{builtin, Scenario};
use kcsim_core::trace_file::{self, Header};
use serde_json::Value;

/// The file text of a built-in scenario.
fn builtin_text(id: &str) -> Option<String> {
    let b = SCENARIOS.iter().find(|s| s.id == id)?;
    Some(match b.json {
        Some(text) => text.to_string(),
        None => builtin::default_text(),
    })
}

/// Whether the page's moment can be written as a trace file (cheap: no
/// scenario parsed, no trace written; the page asks on every render).
pub fn can_export(s: &SimState) -> bool {
    !s.lesson
        .as_ref()
        .is_some_and(|r| matches!(r.lesson.start, kcsim_core::lesson::Start::Inline(_)))
}

/// The scenario record of the page's moment: its built-in scenario's file
/// (with `sim.controller.zk.mode` when the user chose another), the user's
/// actions and the time cursor. `None` for a lesson's own cluster, which is
/// no built-in scenario.
pub fn header(s: &SimState) -> Option<Header> {
    if !can_export(s) {
        return None;
    }
    let text = builtin_text(s.scenario)?;
    let own = Scenario::parse(&text).ok()?.config.sim_controller_zk_mode;
    let mut h = Header::of_file(&text, s.now_ms()).ok()?;
    if s.zk_mode != own {
        let root = h.scenario.as_object_mut()?;
        let config = root
            .entry("config")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        config.as_object_mut()?.insert(
            "sim.controller.zk.mode".to_string(),
            Value::String(s.zk_mode.as_str().to_string()),
        );
    }
    h.acts = s.user_acts().to_vec();
    Some(h)
}

/// The trace up to the time cursor, as a trace file.
pub fn export(s: &SimState) -> Option<String> {
    let h = header(s)?;
    Some(s.with_trace(|t| trace_file::write(&h, t)))
}

/// A trace file loaded into the page.
#[derive(Debug)]
pub struct Loaded {
    /// The page at the file's time, its actions replayed.
    pub state: SimState,
    /// The first line where the replay differs from the file (`None`: byte
    /// for byte the same).
    pub differs_at: Option<usize>,
}

/// Read a trace file (strictly, in the core), find its built-in scenario,
/// replay its actions to its time and compare the replay with the file.
pub fn load(text: &str) -> Result<Loaded, String> {
    let file = trace_file::parse(text).map_err(|e| e.to_string())?;
    let scenario = file.header.parse_scenario().map_err(|e| e.to_string())?;
    let mode = scenario.config.sim_controller_zk_mode;
    let id = SCENARIOS
        .iter()
        .find(|b| {
            builtin_text(b.id)
                .and_then(|t| Scenario::parse(&t).ok())
                .is_some_and(|mut own| {
                    own.config.sim_controller_zk_mode = mode;
                    own == scenario
                })
        })
        .map(|b| b.id)
        .ok_or_else(|| {
            "line 1: scenario: the page replays traces of its built-in scenarios only".to_string()
        })?;
    let s = SimState::load_with(id, Some(mode))?;
    let acts = file.header.acts.iter().cloned().enumerate().collect();
    let mut problems = Vec::new();
    let s = s.replay(acts, Some(file.header.until_ms), &mut problems);
    if !problems.is_empty() {
        return Err(format!("line 1: acts: {}", problems.join("; ")));
    }
    let again = export(&s).ok_or_else(|| "the replay cannot be written".to_string())?;
    Ok(Loaded {
        differs_at: trace_file::first_difference(text, &again),
        state: s,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Msg;
    use kcsim_core::{Action, BrokerId, SimTime};

    fn acted() -> SimState {
        let s = SimState::load("controller-failover").expect("built in");
        let s = s.apply(Msg::Seek(12_000));
        let s = s.apply(Msg::Act(Action::ShutdownBroker {
            broker: BrokerId(2),
        }));
        let s = s.apply(Msg::Seek(9_000));
        let s = s.apply(Msg::Act(Action::PauseBroker {
            broker: BrokerId(1),
            duration_ms: 3_000,
        }));
        s.apply(Msg::Seek(30_000))
    }

    #[test]
    fn export_reload_reexport_is_byte_identical() {
        // Kafka: the controller is deterministic given its inputs — the
        // user's actions (a fork among them) replay to the same trace.
        let s = acted();
        assert_eq!(s.user_acts().len(), 2);
        let text = export(&s).expect("a built-in scenario");
        let l = load(&text).expect("loads");
        assert_eq!(l.differs_at, None);
        assert_eq!(l.state.now_ms(), 30_000);
        assert_eq!(l.state.scenario, "controller-failover");
        assert_eq!(export(&l.state).as_deref(), Some(text.as_str()));
    }

    #[test]
    fn the_pages_trace_is_what_kcsim_run_writes_for_a_built_in_scenario() {
        // Kafka: one run, one trace — the page and `kcsim run --trace`
        // (core/src/cli.rs: Header::of_file, trace_file::write, over
        // Scenario::build and run_until) write the same bytes.
        let text = builtin::file("zombie-controller").expect("built in");
        let scenario = Scenario::parse(text).expect("valid");
        let mut sim = scenario.build();
        sim.run_until(SimTime(25_000));
        let cli = trace_file::write(&Header::of_file(text, 25_000).expect("JSON"), sim.trace());
        let page = SimState::load("zombie-controller")
            .expect("built in")
            .apply(Msg::Seek(25_000));
        assert_eq!(export(&page).as_deref(), Some(cli.as_str()));
    }

    #[test]
    fn the_chosen_zookeeper_mode_travels_in_the_scenario_record() {
        let s = SimState::load("default")
            .expect("built in")
            .apply(Msg::SetZkMode(crate::ZkMode::Sync))
            .apply(Msg::Seek(6_000));
        let text = export(&s).expect("exported");
        assert!(text
            .lines()
            .next()
            .unwrap_or("")
            .contains("\"sim.controller.zk.mode\":\"sync\""));
        let l = load(&text).expect("loads");
        assert_eq!(l.differs_at, None);
        assert_eq!(l.state.zk_mode, crate::ZkMode::Sync);
    }

    #[test]
    fn an_edited_or_foreign_trace_is_marked_or_refused() {
        let s = SimState::load("zombie-controller")
            .expect("built in")
            .apply(Msg::Seek(8_000));
        let text = export(&s).expect("exported");
        let edited = text.replacen("\"actor\":\"broker-0\"", "\"actor\":\"broker-1\"", 1);
        let l = load(&edited).expect("still loads");
        assert!(l.differs_at.is_some_and(|n| n > 1));
        let foreign = text.replace("\"seed\":21", "\"seed\":22");
        assert_eq!(
            load(&foreign).map(|_| ()).expect_err("not built in"),
            "line 1: scenario: the page replays traces of its built-in scenarios only"
        );
        assert!(load("{}").is_err());
    }
}
