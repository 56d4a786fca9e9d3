//! What the final-state report and the page's view read off the simulation
//! the same way, written once: the per-partition projection is
//! [`Sim::partition_overview`]; here are the derivations both build on top of
//! it. (The topic config overrides they show are decoded in
//! [`crate::znodes`].)

use crate::sim::{PartitionOverview, Sim};

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

/// The topic config decoders, at their old paths (they live with the other
/// znode codecs).
pub use crate::znodes::{topic_config_overrides, topic_unclean_override};

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
