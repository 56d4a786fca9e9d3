//! The built-in scenarios, by name: the ones the page's picker offers and
//! lessons start from (`"scenario": "zombie-controller"`). The files are in
//! `core/scenarios/`; `default` is generated (a long produce schedule).

use super::Scenario;

/// Every built-in scenario's name, the default cluster first.
pub const NAMES: &[&str] = &[
    "default",
    "controller-failover",
    "zombie-controller",
    "unclean-election",
    "controlled-shutdown-vs-kill",
    "preferred-election",
    "reassignment",
    "kafka-scale",
];

/// The file of a built-in scenario (`None` for `default`, which is generated,
/// and for names that are not built in).
pub fn file(name: &str) -> Option<&'static str> {
    Some(match name {
        "controller-failover" => include_str!("../../scenarios/controller-failover.json"),
        "zombie-controller" => include_str!("../../scenarios/zombie-controller.json"),
        "unclean-election" => include_str!("../../scenarios/unclean-election.json"),
        "controlled-shutdown-vs-kill" => {
            include_str!("../../scenarios/controlled-shutdown-vs-kill.json")
        }
        "preferred-election" => include_str!("../../scenarios/preferred-election.json"),
        "reassignment" => include_str!("../../scenarios/reassignment.json"),
        // In `large/`: it starts while its 200,000 partitions are still
        // being elected, so the 3 s checks on `core/scenarios/*.json` skip it.
        "kafka-scale" => include_str!("../../scenarios/large/kafka-scale.json"),
        _ => return None,
    })
}

/// A built-in scenario by name, parsed (`None`: no such built-in).
pub fn scenario(name: &str) -> Option<Scenario> {
    if name == "default" {
        return Some(default_cluster());
    }
    // The files are checked by tests; a broken one would be `None` here.
    file(name).and_then(|text| Scenario::parse(text).ok())
}

/// The default classroom cluster: four brokers, two topics created once
/// they have registered (at 2 s, as an operator would, so each partition's
/// leader is its preferred replica), a record every two seconds for half an
/// hour.
pub fn default_cluster() -> Scenario {
    Scenario::parse(&default_text()).unwrap_or_else(|_| Scenario {
        seed: 42,
        brokers: vec![],
        config: crate::Config::default(),
        topics: vec![],
        actions: vec![],
    })
}

/// The scenario file of [`default_cluster`] (what a trace file of it carries).
pub fn default_text() -> String {
    let mut actions = String::new();
    for i in 0..900u64 {
        let (topic, partitions) = if i % 3 == 2 {
            ("audit", 2)
        } else {
            ("orders", 4)
        };
        actions.push_str(&format!(
            r#"{}{{"at_ms":{},"action":"produce","topic":"{topic}","partition":{},"records":1,"acks":"all"}}"#,
            if i == 0 { "" } else { "," },
            6_000 + i * 2_000,
            i % partitions
        ));
    }
    format!(
        r#"{{"version":1,"seed":42,"brokers":[0,1,2,3],
            "actions":[{{"at_ms":2000,"action":"create_topic","name":"orders","partitions":4,"replication_factor":3}},
                       {{"at_ms":2000,"action":"create_topic","name":"audit","partitions":2,"replication_factor":2}},
                       {actions}]}}"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_parses() {
        for n in NAMES {
            let s = scenario(n).unwrap_or_else(|| panic!("{n} parses"));
            assert!(!s.brokers.is_empty(), "{n}");
        }
        assert!(scenario("nope").is_none());
    }
}
