//! What the final-state report ([`crate::report`]) and the page's view
//! ([`crate::view`]) read off the simulation the same way, written once: the
//! per-partition projection is [`Sim::partition_overview`]; here are the
//! derivations both build on top of it, and the topic config overrides as the
//! core reads them.

use crate::sim::{PartitionOverview, Sim};
use serde_json::{Map, Value};

impl PartitionOverview {
    /// Each assigned replica's log end offset, in `replicas` order (`None`
    /// for a replica without a log).
    pub fn log_end_offsets(&self, sim: &Sim) -> Vec<Option<u64>> {
        self.replicas
            .iter()
            .map(|r| sim.log(*r, &self.tp).map(|l| l.log_end_offset()))
            .collect()
    }
}

/// The overrides a `/config/topics/<t>` znode holds (its `config` object),
/// or `None` for data that is not such a znode.
pub fn topic_config_overrides(data: &str) -> Option<Map<String, Value>> {
    let v: Value = serde_json::from_str(data).ok()?;
    v.get("config")?.as_object().cloned()
}

/// A topic's `unclean.leader.election.enable` override from its
/// `/config/topics/<t>` data, read as the controller reads it when an
/// election needs it (`None`: no override, the cluster setting applies).
pub fn topic_unclean_override(data: &str) -> Option<bool> {
    let config = topic_config_overrides(data)?;
    crate::config::parse_bool(config.get("unclean.leader.election.enable")?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_overrides_read_as_the_controller_reads_them() {
        let data = r#"{"version":1,"config":{"unclean.leader.election.enable":"true"}}"#;
        assert_eq!(topic_unclean_override(data), Some(true));
        assert_eq!(
            topic_unclean_override(r#"{"version":1,"config":{}}"#),
            None,
            "no override"
        );
        assert_eq!(topic_unclean_override("not json"), None);
        assert_eq!(
            topic_config_overrides(data).map(|m| m.len()),
            Some(1),
            "one override"
        );
    }
}
