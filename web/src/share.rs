//! Share links: the URL fragment carries the whole moment — the built-in
//! scenario, the controller's ZooKeeper access profile, the user's actions
//! (with whether each forked the future) and the time cursor — so a link
//! replays to exactly what its author saw:
//! `#s=zombie-controller&t=21402&zk=sync&a=<percent-encoded JSON>`.
//!
//! The link is decoded and checked in the core ([`kcsim_core::share_link`]:
//! every key, every action, the limits); this module maps the page's
//! language to and from the link's language code.

use crate::i18n::Lang;
use crate::ZkMode;
use kcsim_core::share_link as core_link;

/// One action the user took, as the link (and a trace file) records it.
pub use kcsim_core::trace_file::UserAct;

#[cfg(test)]
use kcsim_core::Action;

/// The latest time a link can name: the timeline runs no further (a day of
/// virtual time, and a minute past it).
pub const LATEST_MS: u64 = core_link::LATEST_MS;

/// What a link says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moment {
    /// The built-in scenario id.
    pub scenario: String,
    /// The time cursor.
    pub t_ms: u64,
    /// The controller's ZooKeeper access the cluster started with (`zk=`;
    /// absent means `async`).
    pub zk: ZkMode,
    /// The page's language (`lang=`), if the link names one.
    pub lang: Option<Lang>,
    /// The user's actions, in the order taken.
    pub acts: Vec<UserAct>,
}

/// The fragment (without `#`) for a moment.
pub fn encode(m: &Moment) -> String {
    core_link::encode(&core_link::Moment {
        scenario: m.scenario.clone(),
        t_ms: m.t_ms,
        zk: m.zk,
        lang: m.lang.map(|l| l.code().to_string()),
        acts: m.acts.clone(),
    })
}

/// What could be read from a link, and what could not. Every problem is
/// listed, each saying what the page does instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkRead {
    /// The built-in scenario id (`s=`), if given.
    pub scenario: Option<String>,
    /// The time cursor (`t=`), if given and readable; clamped to
    /// [`LATEST_MS`]. Without it the scenario opens at its start.
    pub t_ms: Option<u64>,
    /// The controller's ZooKeeper access (`async` unless `zk=sync`).
    pub zk: ZkMode,
    /// The page's language (`lang=`), if given and known.
    pub lang: Option<Lang>,
    /// The actions that read, each with its index in the link's list.
    pub acts: Vec<(usize, UserAct)>,
    /// What is wrong, in plain words.
    pub problems: Vec<String>,
}

/// The page's language for a code the core accepted (`en`, `zh`).
fn lang_of(code: Option<&str>) -> Option<Lang> {
    code.and_then(|c| Lang::ALL.into_iter().find(|l| l.code() == c))
}

/// Read a fragment (with or without `#`): everything that reads, and every
/// problem with the rest.
pub fn read(fragment: &str) -> LinkRead {
    let r = core_link::read(fragment);
    LinkRead {
        lang: lang_of(r.lang.as_deref()),
        scenario: r.scenario,
        t_ms: r.t_ms,
        zk: r.zk,
        acts: r.acts,
        problems: r.problems,
    }
}

/// Read a fragment strictly: the moment, or every problem (joined by `; `).
pub fn decode(fragment: &str) -> Result<Moment, String> {
    core_link::decode(fragment).map(|m| Moment {
        lang: lang_of(m.lang.as_deref()),
        scenario: m.scenario,
        t_ms: m.t_ms,
        zk: m.zk,
        acts: m.acts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kcsim_core::share_link::pct_encode;
    use kcsim_core::BrokerId;

    #[test]
    fn a_moment_round_trips() {
        let m = Moment {
            scenario: "zombie-controller".into(),
            t_ms: 21_402,
            zk: ZkMode::Async,
            lang: None,
            acts: vec![
                UserAct {
                    at_ms: 9_000,
                    fork: true,
                    action: Action::KillBroker {
                        broker: BrokerId(2),
                    },
                },
                UserAct {
                    at_ms: 9_500,
                    fork: false,
                    action: Action::DeleteZnode {
                        path: "/controller".into(),
                    },
                },
            ],
        };
        let f = encode(&m);
        assert!(f.starts_with("s=zombie-controller&t=21402&a=%5B%7B"), "{f}");
        assert!(!f.contains('{') && !f.contains('"') && !f.contains(' '));
        assert_eq!(decode(&format!("#{f}")), Ok(m));
    }

    #[test]
    fn the_zookeeper_mode_is_in_the_link_only_when_sync() {
        let m = Moment {
            scenario: "controller-failover".into(),
            t_ms: 9_000,
            zk: ZkMode::Sync,
            lang: None,
            acts: vec![],
        };
        let f = encode(&m);
        assert_eq!(f, "s=controller-failover&t=9000&zk=sync");
        assert_eq!(decode(&f), Ok(m.clone()));
        let with_acts = Moment {
            acts: vec![UserAct {
                at_ms: 4_000,
                fork: false,
                action: Action::KillBroker {
                    broker: BrokerId(1),
                },
            }],
            ..m
        };
        let f = encode(&with_acts);
        assert!(
            f.starts_with("s=controller-failover&t=9000&zk=sync&a=%5B"),
            "{f}"
        );
        assert_eq!(decode(&f), Ok(with_acts));
        // async is the default: left out, and a link without zk= (every link
        // made before the setting existed) reads as async.
        let plain = encode(&Moment {
            scenario: "default".into(),
            t_ms: 3_000,
            zk: ZkMode::Async,
            lang: None,
            acts: vec![],
        });
        assert_eq!(plain, "s=default&t=3000");
        assert_eq!(decode("s=default&t=3000").map(|m| m.zk), Ok(ZkMode::Async));
        assert_eq!(
            decode("s=default&t=3000&zk=async").map(|m| m.zk),
            Ok(ZkMode::Async),
            "written out by hand, async is accepted too"
        );
    }

    #[test]
    fn the_language_round_trips_and_english_is_left_out() {
        let zh = Moment {
            scenario: "default".into(),
            t_ms: 3_000,
            zk: ZkMode::Sync,
            lang: Some(Lang::Zh),
            acts: vec![UserAct {
                at_ms: 3_000,
                fork: false,
                action: Action::KillBroker {
                    broker: BrokerId(0),
                },
            }],
        };
        let f = encode(&zh);
        assert!(
            f.starts_with("s=default&t=3000&zk=sync&lang=zh&a=%5B"),
            "{f}"
        );
        assert_eq!(decode(&f), Ok(zh.clone()));
        let plain = Moment {
            lang: None,
            acts: vec![],
            ..zh.clone()
        };
        assert_eq!(encode(&plain), "s=default&t=3000&zk=sync");
        assert_eq!(
            encode(&Moment {
                lang: Some(Lang::En),
                ..plain.clone()
            }),
            "s=default&t=3000&zk=sync",
            "English, the default, is left out"
        );
        assert_eq!(
            decode("s=default&lang=en").map(|m| m.lang),
            Ok(Some(Lang::En))
        );
        assert_eq!(decode("s=default").map(|m| m.lang), Ok(None));
        assert_eq!(read("#s=default&t=1&lang=zh").lang, Some(Lang::Zh));
    }

    #[test]
    fn a_bad_language_is_reported_and_ignored() {
        for bad in ["fr", "", "zh-CN", "ZH", "%ZZ", "%E4%B8%AD"] {
            let r = read(&format!("s=default&t=1&lang={bad}"));
            assert_eq!(r.lang, None, "{bad}");
            assert_eq!(
                r.problems,
                [format!(
                    "lang={bad:?} is not a language of the page (en or zh); ignored"
                )]
            );
            assert_eq!((r.scenario.as_deref(), r.t_ms), (Some("default"), Some(1)));
        }
        assert!(decode("s=default&lang=fr").is_err());
    }

    #[test]
    fn broken_links_say_what_is_wrong() {
        let problems = |f: &str| read(f).problems;
        assert_eq!(
            problems("s=x&t=soon"),
            ["t=\"soon\" is not a time in ms; the scenario opens at its start"]
        );
        assert_eq!(
            problems("s=x&t=1&a=%ZZ"),
            ["the actions (a=): %ZZ is not a valid escape; no action is replayed"]
        );
        assert_eq!(
            problems("s=x&t=1&a=%5"),
            ["the actions (a=): a % escape is cut short; no action is replayed"]
        );
        assert_eq!(
            problems("s=x&t=1&a=%7B%7D"),
            ["the actions (a=) are not a list of actions; no action is replayed"]
        );
        assert_eq!(problems("s=x&t=1&z=2"), ["unknown key \"z\"; ignored"]);
        for bad in ["fast", "SYNC", ""] {
            assert_eq!(
                problems(&format!("s=x&t=1&zk={bad}")),
                [format!(
                    "zk={bad:?} is not a ZooKeeper access mode (async or sync); async is used"
                )]
            );
        }
        assert_eq!(
            problems("s=x&t=1&oops"),
            ["\"oops\" is not key=value; ignored"]
        );
        assert_eq!(decode("t=5"), Err("no scenario (s=…)".to_string()));
    }

    #[test]
    fn a_link_naming_only_a_scenario_reads_without_a_problem() {
        let r = read("#s=zombie-controller");
        assert_eq!(r.scenario.as_deref(), Some("zombie-controller"));
        assert_eq!(r.t_ms, None, "the scenario's start");
        assert!(r.problems.is_empty() && r.acts.is_empty());
    }

    #[test]
    fn every_problem_is_reported_not_only_the_first() {
        let r = read("s=controller-failover&t=soon&zk=fast&z=2&oops");
        assert_eq!(r.scenario.as_deref(), Some("controller-failover"));
        assert_eq!(r.zk, ZkMode::Async);
        assert_eq!(
            r.problems,
            [
                "t=\"soon\" is not a time in ms; the scenario opens at its start",
                "zk=\"fast\" is not a ZooKeeper access mode (async or sync); async is used",
                "unknown key \"z\"; ignored",
                "\"oops\" is not key=value; ignored",
            ]
        );
        assert_eq!(
            decode("s=x&t=soon&zk=fast").unwrap_err(),
            "t=\"soon\" is not a time in ms; the scenario opens at its start; \
             zk=\"fast\" is not a ZooKeeper access mode (async or sync); async is used"
        );
    }

    #[test]
    fn a_time_past_the_end_is_clamped_and_says_so() {
        let r = read(&format!("s=default&t={}", LATEST_MS + 1));
        assert_eq!(r.t_ms, Some(LATEST_MS));
        assert_eq!(
            r.problems,
            [format!(
                "t={} is past the latest time the page runs to ({LATEST_MS} ms); clamped to {LATEST_MS} ms",
                LATEST_MS + 1
            )]
        );
        let r = read(&format!("s=default&t={LATEST_MS}"));
        assert_eq!(
            (r.t_ms, r.problems.len()),
            (Some(LATEST_MS), 0),
            "the end itself is fine"
        );
    }

    #[test]
    fn a_malformed_action_list_says_which_action_and_what_is_wrong() {
        let list = r#"[{"at_ms":1,"action":{"action":"kill_broker","broker":1}},
            {"at_ms":2,"fork":false,"action":{"action":"kill_broker"}},
            {"at_ms":3,"fork":false,"action":{"action":"explode"}},
            5,
            {"fork":false,"action":{"action":"kill_broker","broker":1}},
            {"at_ms":4,"fork":false},
            {"at_ms":4,"fork":false,"action":{"action":"kill_broker","broker":"one"}},
            {"at_ms":4,"fork":true,"action":{"action":"start_broker","broker":1}}]"#;
        let r = read(&format!("s=default&t=5000&a={}", pct_encode(list)));
        assert_eq!(
            r.problems,
            [
                "action 1 of 8 does not say whether it was taken in the past (fork, true or false); skipped",
                "action 2 of 8 is a kill_broker at 2 ms without its field \"broker\"; skipped",
                "action 3 of 8 names \"explode\", which is not an action this page knows; skipped",
                "action 4 of 8 is not an action (an object with at_ms, fork and action); skipped",
                "action 5 of 8 has no time (at_ms, a whole number of ms); skipped",
                "action 6 of 8 does not say what was done (action); skipped",
                "action 7 of 8 is a kill_broker at 4 ms that does not read: invalid type: string \"one\", expected u32; skipped",
            ]
        );
        assert!(
            r.problems.iter().all(|p| !p.contains("line 1 column")),
            "no parser positions"
        );
        assert_eq!(r.acts.len(), 1, "the one that reads is kept");
        assert_eq!(r.acts[0].0, 7);
        assert_eq!(
            r.acts[0].1.action,
            Action::StartBroker {
                broker: BrokerId(1)
            }
        );
    }
}
