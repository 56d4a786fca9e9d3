//! Generators: valid-looking documents drawn from the formats' schemas, and
//! the mutations that make them wrong in the ways people and programs do
//! (wrong types, missing and extra fields, huge and negative numbers,
//! unknown brokers, unicode, deep nesting, truncation, duplicated keys,
//! sizes over the limits, and random bytes).

use crate::config::Config;
use crate::rng::Rng;
use crate::scenario::ACTION_NAMES;
use serde_json::{json, Map, Value};

/// A small helper over the core's generator.
#[derive(Debug)]
pub struct Gen {
    rng: Rng,
}

impl Gen {
    /// A generator for one input.
    pub fn new(seed: u64) -> Gen {
        Gen {
            rng: Rng::new(seed),
        }
    }

    /// A number in `lo..=hi`.
    pub fn int(&mut self, lo: u64, hi: u64) -> u64 {
        if lo == 0 && hi == u64::MAX {
            return self.rng.next_u64();
        }
        self.rng.between(lo, hi)
    }

    /// True with probability `pct` percent.
    pub fn chance(&mut self, pct: u64) -> bool {
        self.rng.below(100) < pct
    }

    /// One of `items` (the first when empty is impossible by construction).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.rng.below(items.len() as u64) as usize]
    }

    /// An index below `n` (0 for 0).
    pub fn index(&mut self, n: usize) -> usize {
        self.rng.below(n as u64) as usize
    }

    /// A number that is often a boundary.
    pub fn edgy_number(&mut self) -> Value {
        match self.int(0, 13) {
            0 => json!(0),
            1 => json!(-1),
            2 => json!(u64::MAX),
            3 => json!(i64::MIN),
            4 => json!(u64::from(u32::MAX)),
            5 => json!(u64::from(u32::MAX) + 1),
            6 => json!(1.5),
            7 => json!(1e300),
            8 => json!(-0.0),
            9 => json!(86_400_001),
            10 => json!(100_001),
            11 => json!(200_001),
            12 => json!(1_000_001),
            _ => json!(self.int(0, 1000)),
        }
    }

    /// A string that is often awkward.
    pub fn edgy_string(&mut self) -> String {
        match self.int(0, 11) {
            0 => String::new(),
            1 => "主题-分区".to_string(),
            2 => "\u{0}\u{7f}\u{feff}".to_string(),
            3 => "x".repeat(self.int(200, 5000) as usize),
            4 => "../../etc/passwd".to_string(),
            5 => "<script>alert(1)</script>".to_string(),
            6 => "/controller".to_string(),
            7 => "orders".to_string(),
            8 => "a.b_c".to_string(),
            9 => "🦀".repeat(self.int(1, 300) as usize),
            10 => "%ZZ%".to_string(),
            _ => format!("t{}", self.int(0, 9)),
        }
    }

    /// A random value of any JSON type.
    pub fn any_value(&mut self, depth: u32) -> Value {
        match self.int(0, if depth > 3 { 4 } else { 6 }) {
            0 => Value::Null,
            1 => json!(self.chance(50)),
            2 => self.edgy_number(),
            3 => json!(self.int(0, 20)),
            4 => json!(self.edgy_string()),
            5 => Value::Array(
                (0..self.int(0, 3))
                    .map(|_| self.any_value(depth + 1))
                    .collect(),
            ),
            _ => {
                let mut m = Map::new();
                for _ in 0..self.int(0, 3) {
                    let k = self.edgy_string();
                    m.insert(k, self.any_value(depth + 1));
                }
                Value::Object(m)
            }
        }
    }

    // ----- scenarios ------------------------------------------------------

    /// A valid-looking scenario file as a JSON value: mostly valid.
    pub fn scenario(&mut self) -> Value {
        let n = self.int(1, 5);
        let brokers: Vec<u64> = if self.chance(97) {
            (0..n).collect()
        } else {
            (0..n).map(|_| self.int(0, 20)).collect()
        };
        let mut topics = Vec::new();
        let mut names = Vec::new();
        let n_topics = if self.chance(90) { self.int(1, 3) } else { 0 };
        for i in 0..n_topics {
            let name = if self.chance(98) {
                format!("t{i}")
            } else {
                self.edgy_string()
            };
            names.push(name.clone());
            topics.push(self.topic(&name, &brokers));
        }
        let mut actions = Vec::new();
        for _ in 0..self.int(0, 8) {
            let a = self.action(&brokers, &mut names);
            actions.push(a);
        }
        let mut root = Map::new();
        root.insert("version".into(), json!(1));
        if self.chance(80) {
            root.insert("seed".into(), json!(self.int(0, 1000)));
        }
        root.insert("brokers".into(), json!(brokers));
        if self.chance(30) {
            let mut c = Map::new();
            for _ in 0..self.int(1, 3) {
                let k = *self.pick(Config::KEYS);
                c.insert(k.to_string(), self.config_value(k));
            }
            root.insert("config".into(), Value::Object(c));
        }
        if !topics.is_empty() || self.chance(20) {
            root.insert("topics".into(), Value::Array(topics));
        }
        if !actions.is_empty() || self.chance(20) {
            root.insert("actions".into(), Value::Array(actions));
        }
        Value::Object(root)
    }

    /// A plausible value for a config key.
    pub fn config_value(&mut self, key: &str) -> Value {
        if self.chance(2) {
            return self.any_value(3);
        }
        if key.ends_with(".enable") {
            json!(self.chance(50))
        } else if key == "sim.controller.zk.mode" {
            json!(if self.chance(50) { "sync" } else { "async" })
        } else if key == "min.insync.replicas" || key.ends_with(".retries") {
            json!(self.int(1, 3))
        } else {
            json!(self.int(0, 10_000))
        }
    }

    fn topic(&mut self, name: &str, brokers: &[u64]) -> Value {
        let mut t = Map::new();
        t.insert("name".into(), json!(name));
        if self.chance(75) {
            t.insert("partitions".into(), json!(self.int(1, 6)));
            t.insert(
                "replication_factor".into(),
                json!(self.int(1, brokers.len() as u64)),
            );
        } else {
            let rf = self.int(1, brokers.len() as u64) as usize;
            let rows: Vec<Value> = (0..self.int(1, 4))
                .map(|p| {
                    json!((0..rf)
                        .map(|j| brokers[(p as usize + j) % brokers.len()])
                        .collect::<Vec<_>>())
                })
                .collect();
            t.insert("assignment".into(), Value::Array(rows));
        }
        if self.chance(15) {
            let k = *self.pick(Config::TOPIC_KEYS);
            let v = self.config_value(k);
            t.insert("config".into(), json!({ k: v }));
        }
        Value::Object(t)
    }

    fn broker(&mut self, brokers: &[u64]) -> Value {
        if self.chance(99) {
            json!(*self.pick(brokers))
        } else {
            json!(self.int(0, 1000))
        }
    }

    fn tp(&mut self, names: &[String]) -> Value {
        let topic = if names.is_empty() || self.chance(1) {
            "nope".to_string()
        } else {
            self.pick(names).clone()
        };
        json!({ "topic": topic, "partition": self.int(0, 5) })
    }

    /// One timed action of a scenario file (`at_ms`, `action` and its
    /// fields), valid-looking.
    pub fn action(&mut self, brokers: &[u64], names: &mut Vec<String>) -> Value {
        let name = *self.pick(ACTION_NAMES);
        let mut a = Map::new();
        a.insert("at_ms".into(), json!(self.int(0, 20_000)));
        a.insert("action".into(), json!(name));
        let topic = |g: &mut Gen, names: &[String]| -> Value {
            if names.is_empty() || g.chance(1) {
                json!("nope")
            } else {
                json!(g.pick(names))
            }
        };
        match name {
            "kill_broker" | "start_broker" | "shutdown_broker" | "expire_session"
            | "heal_broker" => {
                a.insert("broker".into(), self.broker(brokers));
            }
            "pause_broker" => {
                a.insert("broker".into(), self.broker(brokers));
                a.insert("duration_ms".into(), json!(self.int(1, 20_000)));
            }
            "slow_broker" => {
                a.insert("broker".into(), self.broker(brokers));
                a.insert("lag_ms".into(), json!(self.int(1, 20_000)));
            }
            "delete_znode" | "set_znode" | "create_znode" => {
                let paths = [
                    "/controller",
                    "/brokers/ids/1",
                    "/brokers/topics/t0",
                    "/brokers/topics/t0/partitions/0/state",
                    "/admin/delete_topics/t0",
                    "/admin/reassign_partitions",
                    "/admin/preferred_replica_election",
                    "/isr_change_notification/isr_change_0000000001",
                    "/config/topics/t0",
                    "/controller_epoch",
                    "/x",
                    "/x/y",
                    "/",
                    "",
                    "relative",
                    "/a//b",
                    "/a/",
                ];
                let path = if self.chance(90) {
                    *self.pick(&paths[..12])
                } else {
                    *self.pick(&paths)
                };
                a.insert("path".into(), json!(path));
                if name != "delete_znode" {
                    let data = match self.int(0, 5) {
                        0 => r#"{"version":1,"brokerid":2,"timestamp":"1"}"#.to_string(),
                        1 => r#"{"version":1,"partitions":[{"topic":"t0","partition":0}]}"#
                            .to_string(),
                        2 => r#"{"controller_epoch":9,"leader":0,"version":1,"leader_epoch":9,"isr":[0,1]}"#
                            .to_string(),
                        3 => self.int(0, 99).to_string(),
                        4 => self.edgy_string(),
                        _ => "{".to_string(),
                    };
                    a.insert("data".into(), json!(data));
                }
                if name == "create_znode" {
                    if self.chance(30) {
                        a.insert("ephemeral".into(), json!(self.chance(50)));
                    }
                    if self.chance(30) {
                        a.insert("sequential".into(), json!(self.chance(50)));
                    }
                }
            }
            "set_config" | "delete_config" => {
                let on_topic = self.chance(40);
                let key = if on_topic {
                    *self.pick(Config::TOPIC_KEYS)
                } else if self.chance(70) {
                    *self.pick(Config::DYNAMIC_KEYS)
                } else {
                    *self.pick(Config::KEYS)
                };
                a.insert("key".into(), json!(key));
                if name == "set_config" {
                    let v = self.config_value(key);
                    a.insert("value".into(), v);
                }
                if on_topic {
                    a.insert("topic".into(), topic(self, names));
                }
            }
            "create_topic" => {
                let n = format!("new{}", self.int(0, 5));
                names.push(n.clone());
                let t = self.topic(&n, brokers);
                if let Value::Object(t) = t {
                    for (k, v) in t {
                        if k != "config" {
                            a.insert(k, v);
                        }
                    }
                }
            }
            "delay_message" => {
                a.insert("id".into(), json!(self.int(0, 200)));
                a.insert("delay_ms".into(), json!(self.int(0, 20_000)));
            }
            "drop_message" => {
                a.insert("id".into(), json!(self.int(0, 200)));
            }
            "preferred_election" if self.chance(50) => {
                let l: Vec<Value> = (0..self.int(1, 3)).map(|_| self.tp(names)).collect();
                a.insert("partitions".into(), Value::Array(l));
            }
            "elect_leaders" => {
                a.insert(
                    "election_type".into(),
                    json!(if self.chance(50) {
                        "PREFERRED"
                    } else {
                        "UNCLEAN"
                    }),
                );
                let l: Vec<Value> = (0..self.int(1, 3)).map(|_| self.tp(names)).collect();
                a.insert("partitions".into(), Value::Array(l));
            }
            "produce" => {
                a.insert("topic".into(), topic(self, names));
                a.insert("partition".into(), json!(self.int(0, 4)));
                a.insert("records".into(), json!(self.int(1, 500)));
                let acks = [json!("all"), json!(1), json!(0), json!(-1), json!("1")];
                a.insert("acks".into(), self.pick(&acks).clone());
            }
            "add_partitions" => {
                a.insert("topic".into(), topic(self, names));
                a.insert("count".into(), json!(self.int(1, 10)));
            }
            "delete_topic" => {
                a.insert("topic".into(), topic(self, names));
            }
            "reassign_partitions" => {
                let l: Vec<Value> = (0..self.int(1, 3))
                    .map(|_| {
                        let mut tp = self.tp(names);
                        let rf = self.int(1, brokers.len() as u64) as usize;
                        let first = self.index(brokers.len());
                        let reps: Vec<Value> = (0..rf)
                            .map(|j| json!(brokers[(first + j) % brokers.len()]))
                            .collect();
                        if let Value::Object(m) = &mut tp {
                            m.insert("replicas".into(), Value::Array(reps));
                        }
                        tp
                    })
                    .collect();
                a.insert("partitions".into(), Value::Array(l));
            }
            _ => {}
        }
        Value::Object(a)
    }

    // ----- mutations ------------------------------------------------------

    /// Apply 0 to 3 structural mutations to a JSON value.
    pub fn mutate_value(&mut self, v: &mut Value) {
        let n = if self.chance(50) { 0 } else { self.int(1, 3) };
        for _ in 0..n {
            let n = count_nodes(v);
            let target = self.index(n);
            let mut k = 0;
            self.mutate_at(v, target, &mut k);
        }
    }

    fn mutate_at(&mut self, v: &mut Value, target: usize, k: &mut usize) -> bool {
        if *k == target {
            self.mutate_node(v);
            return true;
        }
        *k += 1;
        match v {
            Value::Array(items) => {
                for i in items.iter_mut() {
                    if self.mutate_at(i, target, k) {
                        return true;
                    }
                }
            }
            Value::Object(m) => {
                for (_, i) in m.iter_mut() {
                    if self.mutate_at(i, target, k) {
                        return true;
                    }
                }
            }
            _ => {}
        }
        false
    }

    fn mutate_node(&mut self, v: &mut Value) {
        match self.int(0, 9) {
            // A wrong type, an edgy number or string in its place.
            0 => *v = self.any_value(2),
            1 => *v = self.edgy_number(),
            2 => *v = json!(self.edgy_string()),
            // Deep nesting.
            3 => {
                let depth = self.int(20, 300);
                let mut x = v.take();
                for _ in 0..depth {
                    x = Value::Array(vec![x]);
                }
                *v = x;
            }
            // A field removed, or an unknown one added.
            4 | 5 => match v {
                Value::Object(m) if !m.is_empty() && self.chance(50) => {
                    let i = self.index(m.len());
                    if let Some(key) = m.keys().nth(i).cloned() {
                        m.remove(&key);
                    }
                }
                Value::Object(m) => {
                    let k = if self.chance(50) {
                        self.edgy_string()
                    } else {
                        "extra".to_string()
                    };
                    m.insert(k, self.any_value(2));
                }
                Value::Array(items) if !items.is_empty() => {
                    let i = self.index(items.len());
                    items.remove(i);
                }
                _ => *v = Value::Null,
            },
            // An element duplicated, or the list made long.
            6 => match v {
                Value::Array(items) if !items.is_empty() => {
                    let i = self.index(items.len());
                    let copies = if self.chance(10) {
                        self.int(50, 2000)
                    } else {
                        1
                    };
                    let item = items[i].clone();
                    for _ in 0..copies {
                        items.push(item.clone());
                    }
                }
                _ => *v = json!(self.int(0, 10)),
            },
            // A number nudged off by one.
            7 => {
                if let Some(n) = v.as_u64() {
                    *v = if self.chance(50) {
                        json!(n.saturating_add(1))
                    } else if n == 0 {
                        json!(-1)
                    } else {
                        json!(n - 1)
                    };
                } else {
                    *v = self.edgy_number();
                }
            }
            // An unknown broker id.
            8 => *v = json!(self.int(5, 1_000_000)),
            _ => *v = Value::Null,
        }
    }

    /// Text-level mutations: truncation, a duplicated key, characters
    /// changed or inserted, whitespace padding past a size limit.
    pub fn mutate_text(&mut self, text: &mut String, over_limit: usize) {
        if self.chance(50) {
            return;
        }
        match self.int(0, 99) {
            0..=59 => {}
            60..=69 => {
                let cut = self.index(text.len() + 1);
                let cut = (0..=cut)
                    .rev()
                    .find(|i| text.is_char_boundary(*i))
                    .unwrap_or(0);
                text.truncate(cut);
            }
            70..=74 => {
                // A duplicated key: serde_json keeps the last.
                if let Some(i) = text.find('{') {
                    text.insert_str(i + 1, r#""version":1,"#);
                }
            }
            75..=89 => {
                let mut chars: Vec<char> = text.chars().collect();
                for _ in 0..self.int(1, 4) {
                    let i = self.index(chars.len() + 1);
                    let c = *self.pick(&[
                        '{',
                        '}',
                        '[',
                        ']',
                        '"',
                        ',',
                        ':',
                        '0',
                        '9',
                        '-',
                        '\\',
                        '\u{0}',
                        'é',
                        '中',
                        '\u{10ffff}',
                        'e',
                        '.',
                    ]);
                    if i < chars.len() && self.chance(50) {
                        chars[i] = c;
                    } else {
                        chars.insert(i.min(chars.len()), c);
                    }
                }
                *text = chars.into_iter().collect();
            }
            90..=97 => {
                let n = self.int(1, 4);
                for _ in 0..n {
                    let at = self.index(text.len() + 1);
                    let at = (0..=at)
                        .rev()
                        .find(|i| text.is_char_boundary(*i))
                        .unwrap_or(0);
                    let piece = self.edgy_string();
                    text.insert_str(at, &serde_json::to_string(&piece).unwrap_or_default());
                }
            }
            98 => {
                // Over the size limit (rarely: it is large).
                let pad = over_limit.saturating_sub(text.len()) + 1;
                text.push_str(&" ".repeat(pad));
            }
            _ => *text = self.random_text(),
        }
    }

    /// Random bytes, read as text (invalid UTF-8 replaced).
    pub fn random_text(&mut self) -> String {
        let n = self.int(0, 300) as usize;
        let bytes: Vec<u8> = (0..n).map(|_| self.int(0, 255) as u8).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

fn count_nodes(v: &Value) -> usize {
    1 + match v {
        Value::Array(items) => items.iter().map(count_nodes).sum(),
        Value::Object(m) => m.values().map(count_nodes).sum(),
        _ => 0,
    }
}
