//! Share links: the URL fragment carries the whole moment — the built-in
//! scenario, the controller's ZooKeeper access profile, the user's actions
//! (with whether each forked the future) and the time cursor — so a link
//! replays to exactly what its author saw:
//! `#s=zombie-controller&t=21402&zk=sync&a=<percent-encoded JSON>`.
//! `zk=` is left out for `async`, the default, so links made before it
//! existed still mean what they meant.

use crate::ZkMode;
use kcsim_core::Action;
use serde::{Deserialize, Serialize};

/// One action the user took, as the link records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserAct {
    /// When (virtual ms).
    pub at_ms: u64,
    /// Whether it was taken in the past, dropping the later scripted steps.
    pub fork: bool,
    /// What.
    pub action: Action,
}

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
    /// The user's actions, in the order taken.
    pub acts: Vec<UserAct>,
}

fn pct_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn pct_decode(s: &str) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3).ok_or("a % escape is cut short")?;
            out.push(
                u8::from_str_radix(hex, 16).map_err(|_| format!("%{hex} is not a valid escape"))?,
            );
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "the actions are not valid text".to_string())
}

/// The fragment (without `#`) for a moment.
pub fn encode(m: &Moment) -> String {
    let mut out = format!("s={}&t={}", pct_encode(&m.scenario), m.t_ms);
    if m.zk != ZkMode::Async {
        out.push_str("&zk=");
        out.push_str(m.zk.as_str());
    }
    if !m.acts.is_empty() {
        let json = serde_json::to_string(&m.acts).unwrap_or_default();
        out.push_str("&a=");
        out.push_str(&pct_encode(&json));
    }
    out
}

/// Read a fragment (with or without `#`). Errors say what is wrong.
pub fn decode(fragment: &str) -> Result<Moment, String> {
    let fragment = fragment.trim_start_matches('#');
    let (mut scenario, mut t_ms, mut zk, mut acts) = (None, None, ZkMode::Async, Vec::new());
    for part in fragment.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| format!("{part:?} is not key=value"))?;
        match k {
            "s" => scenario = Some(pct_decode(v)?),
            "t" => {
                t_ms = Some(
                    v.parse::<u64>()
                        .map_err(|_| format!("t={v:?} is not a time in ms"))?,
                )
            }
            "zk" => {
                let mode = pct_decode(v)?;
                zk = ZkMode::parse(&mode).ok_or_else(|| {
                    format!("zk={mode:?} is not a ZooKeeper access mode (async or sync)")
                })?;
            }
            "a" => {
                let json = pct_decode(v)?;
                acts = serde_json::from_str(&json)
                    .map_err(|e| format!("the actions do not read: {e}"))?;
            }
            other => return Err(format!("unknown key {other:?}")),
        }
    }
    Ok(Moment {
        scenario: scenario.ok_or("no scenario (s=…)")?,
        t_ms: t_ms.ok_or("no time (t=…)")?,
        zk,
        acts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kcsim_core::BrokerId;

    #[test]
    fn a_moment_round_trips() {
        let m = Moment {
            scenario: "zombie-controller".into(),
            t_ms: 21_402,
            zk: ZkMode::Async,
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
    fn broken_links_say_what_is_wrong() {
        assert_eq!(decode("s=x"), Err("no time (t=…)".to_string()));
        assert_eq!(decode("t=5"), Err("no scenario (s=…)".to_string()));
        assert_eq!(
            decode("s=x&t=soon"),
            Err("t=\"soon\" is not a time in ms".to_string())
        );
        assert_eq!(
            decode("s=x&t=1&a=%ZZ"),
            Err("%ZZ is not a valid escape".to_string())
        );
        assert_eq!(
            decode("s=x&t=1&a=%5"),
            Err("a % escape is cut short".to_string())
        );
        assert!(decode("s=x&t=1&a=%5B1%5D")
            .unwrap_err()
            .starts_with("the actions do not read"));
        assert_eq!(decode("s=x&t=1&z=2"), Err("unknown key \"z\"".to_string()));
        assert_eq!(
            decode("s=x&t=1&zk=fast"),
            Err("zk=\"fast\" is not a ZooKeeper access mode (async or sync)".to_string())
        );
        assert_eq!(
            decode("s=x&t=1&zk=SYNC"),
            Err("zk=\"SYNC\" is not a ZooKeeper access mode (async or sync)".to_string())
        );
        assert_eq!(
            decode("s=x&t=1&zk="),
            Err("zk=\"\" is not a ZooKeeper access mode (async or sync)".to_string())
        );
        assert_eq!(
            decode("s=x&t=1&oops"),
            Err("\"oops\" is not key=value".to_string())
        );
    }
}
