//! Console command lines: Kafka's tools, zookeeper-shell, the file commands,
//! with valid-looking and mutated arguments.

use super::gen::Gen;

const TOPICS: &[&str] = &["orders", "t0", "new", "__consumer_offsets", "a.b", "a_b"];
const PATHS: &[&str] = &[
    "/",
    "/controller",
    "/controller_epoch",
    "/brokers",
    "/brokers/ids",
    "/brokers/ids/1",
    "/brokers/topics",
    "/brokers/topics/orders",
    "/brokers/topics/orders/partitions/0/state",
    "/admin/delete_topics",
    "/admin/reassign_partitions",
    "/admin/preferred_replica_election",
    "/config/topics/orders",
    "/isr_change_notification",
    "/x",
    "/x/y",
    "relative",
    "/a//b",
];

fn broker(g: &mut Gen) -> String {
    if g.chance(85) {
        g.int(0, 3).to_string()
    } else {
        g.pick(&["-1", "99", "4294967296", "x", "", "1.5"])
            .to_string()
    }
}

fn topic(g: &mut Gen) -> String {
    if g.chance(90) {
        g.pick(TOPICS).to_string()
    } else {
        g.edgy_string()
    }
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn reassignment_json(g: &mut Gen) -> String {
    let parts: Vec<String> = (0..g.int(1, 3))
        .map(|_| {
            let reps: Vec<String> = (0..g.int(1, 3)).map(|_| broker(g)).collect();
            format!(
                r#"{{"topic":"{}","partition":{},"replicas":[{}]}}"#,
                topic(g),
                g.int(0, 3),
                reps.join(",")
            )
        })
        .collect();
    format!(r#"{{"version":1,"partitions":[{}]}}"#, parts.join(","))
}

fn election_json(g: &mut Gen) -> String {
    let parts: Vec<String> = (0..g.int(1, 3))
        .map(|_| format!(r#"{{"topic":"{}","partition":{}}}"#, topic(g), g.int(0, 3)))
        .collect();
    format!(r#"{{"partitions":[{}]}}"#, parts.join(","))
}

/// One valid-looking command line.
pub fn command(g: &mut Gen) -> String {
    let zk = "--zookeeper localhost:2181";
    match g.int(0, 17) {
        0 => format!(
            "kafka-topics.sh {zk} --create --topic {} --partitions {} --replication-factor {}",
            topic(g),
            g.int(1, 8),
            g.int(1, 4)
        ),
        1 => format!(
            "kafka-topics.sh --bootstrap-server localhost:9092 --create --topic {} --replica-assignment {}",
            topic(g),
            (0..g.int(1, 3))
                .map(|_| format!("{}:{}", broker(g), broker(g)))
                .collect::<Vec<_>>()
                .join(",")
        ),
        2 => {
            let extra = *g.pick(&[
                "",
                " --under-replicated-partitions",
                " --unavailable-partitions",
                " --under-min-isr-partitions",
                " --at-min-isr-partitions",
                " --topics-with-overrides",
            ]);
            if g.chance(50) {
                format!("kafka-topics.sh {zk} --describe{extra}")
            } else {
                format!("kafka-topics.sh {zk} --describe --topic {}{extra}", topic(g))
            }
        }
        3 => format!("kafka-topics.sh {zk} --list"),
        4 => format!(
            "kafka-topics.sh {zk} --alter --topic {} --partitions {}",
            topic(g),
            g.int(1, 12)
        ),
        5 => format!("kafka-topics.sh {zk} --delete --topic {}", topic(g)),
        6 => {
            let p = g.pick(PATHS).to_string();
            let sub = match g.int(0, 7) {
                0 => format!("ls {p}"),
                1 => format!("ls -s {p}"),
                2 => format!("get {p}"),
                3 => format!("stat {p}"),
                4 => format!("set {p} {}", quote(&g.edgy_string())),
                5 => format!("delete {p}"),
                6 => format!("create {} {p} {}", g.pick(&["", "-e", "-s", "-e -s"]), quote("{}")),
                _ => format!("set -v {} {p} 1", g.int(0, 3)),
            };
            format!("zookeeper-shell.sh localhost:2181 {sub}")
        }
        7 => {
            let kind = *g.pick(&["preferred", "unclean", "PREFERRED", "bogus"]);
            let scope = match g.int(0, 2) {
                0 => "--all-topic-partitions".to_string(),
                1 => format!("--topic {} --partition {}", topic(g), g.int(0, 3)),
                _ => "--path-to-json-file elect.json".to_string(),
            };
            format!("kafka-leader-election.sh --bootstrap-server localhost:9092 --election-type {kind} {scope}")
        }
        8 => {
            if g.chance(50) {
                format!("kafka-preferred-replica-election.sh {zk}")
            } else {
                format!("kafka-preferred-replica-election.sh {zk} --path-to-json-file elect.json")
            }
        }
        9 => {
            let key = *g.pick(&[
                "min.insync.replicas",
                "unclean.leader.election.enable",
                "retention.ms",
                "sim.zk.latency.ms",
            ]);
            let value = *g.pick(&["1", "2", "true", "false", "-1", "x", "99999999999999999999"]);
            match g.int(0, 4) {
                0 => format!("kafka-configs.sh {zk} --entity-type topics --entity-name {} --alter --add-config {key}={value}", topic(g)),
                1 => format!("kafka-configs.sh {zk} --entity-type topics --entity-name {} --alter --delete-config {key}", topic(g)),
                2 => format!("kafka-configs.sh {zk} --entity-type topics --entity-name {} --describe", topic(g)),
                3 => format!("kafka-configs.sh {zk} --entity-type brokers --entity-default --alter --add-config {key}={value}"),
                _ => format!("kafka-configs.sh {zk} --entity-type brokers --entity-name {} --describe", broker(g)),
            }
        }
        10 => match g.int(0, 2) {
            0 => format!("kafka-reassign-partitions.sh {zk} --reassignment-json-file r.json --execute"),
            1 => format!("kafka-reassign-partitions.sh {zk} --reassignment-json-file r.json --verify"),
            _ => format!(
                "kafka-reassign-partitions.sh {zk} --topics-to-move-json-file m.json --broker-list {},{} --generate",
                broker(g),
                broker(g)
            ),
        },
        11 => format!("kafka-server-start.sh config/server-{}.properties", broker(g)),
        12 => format!("kafka-server-stop.sh --broker {}", broker(g)),
        13 => format!("kill -{} {}", g.pick(&["9", "15", "1", "STOP"]), broker(g)),
        14 => format!(
            "sleep {}",
            g.pick(&["0", "0.5", "1", "3", "10", "-1", "nan", "inf", "1e3"])
        ),
        15 => {
            let (file, body) = match g.int(0, 2) {
                0 => ("r.json", reassignment_json(g)),
                1 => ("elect.json", election_json(g)),
                _ => (
                    "m.json",
                    format!(r#"{{"topics":[{{"topic":"{}"}}],"version":1}}"#, topic(g)),
                ),
            };
            let op = if g.chance(80) { ">" } else { ">>" };
            format!("echo {} {op} {file}", quote(&body))
        }
        16 => match g.int(0, 3) {
            0 => "ls".to_string(),
            1 => format!("cat {}", g.pick(&["r.json", "elect.json", "nope"])),
            2 => format!("rm {}", g.pick(&["r.json", "elect.json", "nope"])),
            _ => "help".to_string(),
        },
        _ => format!("bin/kafka-topics.sh {zk} --describe --topic {}", topic(g)),
    }
}

/// A command line, mutated more often than not.
pub fn line(g: &mut Gen) -> String {
    let mut words: Vec<String> = command(g).split(' ').map(str::to_string).collect();
    if g.chance(60) {
        return words.join(" ");
    }
    for _ in 0..g.int(1, 3) {
        let i = g.index(words.len());
        match g.int(0, 8) {
            0 => {
                words.remove(i);
            }
            1 => {
                let w = words[i].clone();
                words.insert(i, w);
            }
            2 => {
                words[i] = g
                    .pick(&[
                        "-1",
                        "0",
                        "2147483648",
                        "18446744073709551616",
                        "1e309",
                        "NaN",
                        "",
                        "''",
                        "\"",
                        "'",
                        "\\",
                        "--",
                        "--help",
                    ])
                    .to_string()
            }
            3 => words[i] = quote(&g.edgy_string()),
            4 => words.push(
                g.pick(&["--topic", "--partitions", "--if-exists", "-s", "|", ">"])
                    .to_string(),
            ),
            5 => words[i] = format!("{}{}", words[i], g.pick(&["'", "\"", "\\", "é", "\u{0}"])),
            6 => words.truncate(i.max(1)),
            7 => words[i] = g.int(0, u64::MAX).to_string(),
            _ => words[i] = g.random_text().replace(['\n', '\r'], " "),
        }
        if words.is_empty() {
            words.push(String::new());
        }
    }
    words.join(" ")
}
