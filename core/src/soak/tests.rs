use super::generate::{verb_of, WEIGHTS};
use super::*;
use crate::action::Action;
use crate::fact::Fact;
use crate::scenario::{Scenario, ACTION_NAMES};
use crate::sim::Sim;
use std::collections::BTreeSet;

#[test]
fn every_verb_is_weighted_and_every_weight_is_a_verb() {
    let weighted: BTreeSet<&str> = WEIGHTS.iter().map(|(n, _)| *n).collect();
    let names: BTreeSet<&str> = ACTION_NAMES.iter().copied().collect();
    assert_eq!(weighted, names);
    assert!(WEIGHTS.iter().all(|(_, w)| *w > 0));
}

#[test]
fn schedules_draw_every_verb_and_parse_back_unchanged() {
    // Over many seeds every Action variant appears (verb_of matches on the
    // enum, so a new variant does not compile until it is named there, and
    // then fails here until the generator draws it), and every schedule is
    // a scenario file that parses back to itself.
    let mut seen = BTreeSet::new();
    for seed in 0..2_000 {
        let s = generate(seed);
        let text = scenario_json(&s);
        let back = Scenario::parse(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(back, s, "seed {seed}");
        for (_, a) in &s.actions {
            seen.insert(verb_of(a));
        }
    }
    let names: BTreeSet<&str> = ACTION_NAMES.iter().copied().collect();
    assert_eq!(seen, names);
}

#[test]
fn a_seed_gives_one_schedule() {
    assert_eq!(generate_json(11), generate_json(11));
    assert_ne!(generate_json(11), generate_json(12));
}

#[test]
fn drops_and_delays_hit_a_message_on_the_wire() {
    // The generator reads the message off its probe run; replayed from the
    // file, the same message is on the wire at that moment.
    let (mut hit, mut missed) = (0, 0);
    for seed in 0..200 {
        let s = generate(seed);
        if !s
            .actions
            .iter()
            .any(|(_, a)| matches!(a, Action::DropMessage { .. } | Action::DelayMessage { .. }))
        {
            continue;
        }
        let mut sim = s.build();
        sim.run_until(crate::SimTime(s.last_action_ms()));
        for r in sim.trace() {
            match (r.kind.as_ref(), &*r.fact()) {
                ("message_dropped" | "message_delayed", _) => hit += 1,
                (_, Fact::NoSuchMessage { .. }) => missed += 1,
                _ => {}
            }
        }
    }
    assert!(hit > 20 && missed * 10 < hit, "hit {hit}, missed {missed}");
}

/// A check that fails when the user has killed brokers twice.
struct TwoKills {
    read: usize,
    kills: usize,
}

impl Check for TwoKills {
    fn after_step(&mut self, sim: &Sim) -> Vec<Finding> {
        for r in sim.trace().iter_from(self.read) {
            if let Fact::UserAction(Action::KillBroker { .. }) = *r.fact() {
                self.kills += 1;
            }
        }
        self.read = sim.trace().len();
        if self.kills >= 2 {
            vec![Finding {
                property: "two kills".into(),
                time_ms: sim.now().as_ms(),
                detail: String::new(),
            }]
        } else {
            Vec::new()
        }
    }
    fn after_quiet(&mut self, _: &Sim) -> Vec<Finding> {
        Vec::new()
    }
}

#[test]
fn the_shrinker_reduces_a_long_schedule_to_the_two_actions_that_fail() {
    let (seed, s) = (0..)
        .map(|seed| (seed, generate(seed)))
        .find(|(_, s)| {
            s.actions.len() >= 15
                && s.actions
                    .iter()
                    .filter(|(_, a)| matches!(a, Action::KillBroker { .. }))
                    .count()
                    >= 3
        })
        .expect("some seed has a long schedule");
    let opts = RunOptions {
        heal: false,
        ..RunOptions::default()
    };
    let mut fails = |c: &Scenario| {
        run(c, |_| TwoKills { read: 0, kills: 0 }, &opts)
            .findings
            .iter()
            .any(|f| f.property == "two kills")
    };
    assert!(fails(&s), "seed {seed}");
    let small = shrink(&s, &mut fails, 5_000);
    assert_eq!(small.actions.len(), 2, "{}", scenario_json(&small));
    assert!(small
        .actions
        .iter()
        .all(|(t, a)| matches!(a, Action::KillBroker { .. }) && t.as_ms() == 0));
    assert!(small.topics.is_empty(), "{}", scenario_json(&small));
    assert_eq!(small.brokers.len(), 1, "{}", scenario_json(&small));
    // Shrinking is deterministic.
    assert_eq!(shrink(&s, &mut fails, 5_000), small);
}

struct Panics;

impl Check for Panics {
    fn after_step(&mut self, sim: &Sim) -> Vec<Finding> {
        assert!(sim.now().as_ms() < 3_000, "boom");
        Vec::new()
    }
    fn after_quiet(&mut self, _: &Sim) -> Vec<Finding> {
        Vec::new()
    }
}

#[test]
fn a_panic_is_a_finding_not_a_crash() {
    let s = generate(3);
    let out = run(&s, |_| Panics, &RunOptions::default());
    assert_eq!(out.findings.len(), 1);
    assert_eq!(out.findings[0].property, "panic");
    assert!(out.findings[0].detail.contains("boom"));
}

#[test]
fn a_quiet_cluster_passes_and_heals_what_was_killed() {
    // Kafka: a killed broker restarted re-registers and the controller
    // (KafkaController.onBrokerStartup) brings its replicas back.
    let s = Scenario::parse(
        r#"{"version":1,"brokers":[0,1,2],"topics":[{"name":"t","partitions":2,"replication_factor":3}],
           "actions":[{"at_ms":5000,"action":"kill_broker","broker":1},
                      {"at_ms":6000,"action":"slow_broker","broker":2,"lag_ms":30000}]}"#,
    )
    .expect("valid");
    let out = run(&s, SimChecks::new, &RunOptions::default());
    assert!(out.findings.is_empty(), "{:?}", out.findings);
    assert!(out.end_ms >= 6_001 + run::DEFAULT_LIVENESS_BOUND_MS);
}

/// Shrunk schedules `kcsim soak` once failed on, each a case where Kafka 2.4
/// itself leaves the cluster waiting (the observer now leaves it out) or a
/// simulator bug (fixed): (seed, why, schedule). All pass every check now.
const FOUND: &[(u64, &str, &str)] = &[
    (
        2081,
        // Kafka: isReassignmentComplete reads the missing state znode of a
        // partition not yet elected; a read of a missing znode arms no watch,
        // so PartitionReassignmentIsrChangeHandler never fires after the
        // election, and onBrokerStartup resumes only reassignments whose
        // target holds the new broker.
        "a reassignment begun before the partition's first election waits",
        r#"{"version":1,"seed":2202151270832086,"brokers":[0,1],"topics":[{"name":"t0","partitions":2,"replication_factor":1}],"actions":[{"action":"reassign_partitions","at_ms":0,"partitions":[{"partition":1,"replicas":[0],"topic":"t0"}]}]}"#,
    ),
    (
        6457,
        // Kafka: PartitionReassignmentHandler handles only the creation of
        // /admin/reassign_partitions; a change of its data is not read.
        "a reassignment written into an existing /admin/reassign_partitions waits",
        r#"{"version":1,"seed":385531104813660,"brokers":[2,3,5],"topics":[{"name":"t0","partitions":1,"replication_factor":1}],"actions":[{"action":"create_topic","at_ms":2160,"name":"new0","partitions":1,"replication_factor":1},{"action":"reassign_partitions","at_ms":2160,"partitions":[{"partition":0,"replicas":[5],"topic":"t0"}]},{"action":"set_znode","at_ms":2166,"data":"{\"version\":1,\"partitions\":[{\"topic\":\"new0\",\"partition\":0,\"replicas\":[3,2]}]}","path":"/admin/reassign_partitions"}]}"#,
    ),
    (
        7172,
        // Kafka: the handler does nothing on the znode's deletion, so the watch
        // it consumed is not re-armed and the next creation goes unseen.
        "a reassignment created after /admin/reassign_partitions was deleted by hand waits",
        r#"{"version":1,"seed":425815879910654,"brokers":[2,3,4,5],"topics":[{"name":"t0","partitions":1,"replication_factor":1}],"actions":[{"action":"reassign_partitions","at_ms":1985,"partitions":[{"partition":0,"replicas":[2,5],"topic":"t0"}]},{"action":"delete_znode","at_ms":1989,"path":"/admin/reassign_partitions"},{"action":"create_znode","at_ms":1989,"data":"{\"version\":1,\"partitions\":[{\"topic\":\"t0\",\"partition\":0,\"replicas\":[3,4]}]}","path":"/admin/reassign_partitions"}]}"#,
    ),
    (
        5455,
        // Kafka: triggerOnlinePartitionStateChange elects no leader for a topic
        // queued for deletion, so the offline partition's reassignment never
        // completes, and the reassignment keeps the topic ineligible.
        "a deletion and a reassignment of a leaderless partition wait for each other",
        r#"{"version":1,"seed":2523138293006000,"brokers":[1,2,3,4,6],"config":{"sim.network.jitter.ms":9},"topics":[{"name":"t0","partitions":1,"replication_factor":1},{"name":"t1","partitions":1,"replication_factor":1}],"actions":[{"action":"kill_broker","at_ms":2374,"broker":1},{"action":"create_znode","at_ms":2914,"data":"{\"version\":1,\"partitions\":[{\"topic\":\"t1\",\"partition\":0,\"replicas\":[2,4]}]}","path":"/admin/reassign_partitions"},{"action":"kill_broker","at_ms":11044,"broker":2},{"action":"delete_topic","at_ms":11044,"topic":"t1"},{"action":"kill_broker","at_ms":22272,"broker":6}]}"#,
    ),
    (
        4752,
        // Kafka: processBrokerChange runs onBrokerStartup for a new broker
        // before it records a bounced broker's epoch; the deletion it resumes
        // sends the bounced broker a StopReplica with its old epoch, refused
        // after the replica is OnlineReplica again: the topic stays ineligible.
        "a deletion refused as STALE_BROKER_EPOCH waits",
        r#"{"version":1,"seed":4087698425861936,"brokers":[0,1,2],"config":{"zookeeper.session.timeout.ms":3000},"topics":[{"name":"t0","partitions":2,"replication_factor":2},{"name":"t1","partitions":1,"replication_factor":1},{"name":"t2","partitions":4,"replication_factor":2}],"actions":[{"action":"expire_session","at_ms":9214,"broker":1},{"action":"kill_broker","at_ms":18266,"broker":2},{"action":"reassign_partitions","at_ms":38039,"partitions":[{"partition":2,"replicas":[1,0,2],"topic":"t2"}]},{"action":"kill_broker","at_ms":40061,"broker":1},{"action":"delay_message","at_ms":42065,"delay_ms":2500,"id":97},{"action":"delete_topic","at_ms":42065,"topic":"t0"}]}"#,
    ),
    (
        9244,
        // Kafka: processTopicDeletion only adds deletions; one whose
        // /admin/delete_topics/<t> was deleted by hand goes on in memory and
        // its partitions stay leaderless.
        "a deletion whose request was deleted by hand goes on",
        r#"{"version":1,"seed":229991370280073,"brokers":[0,1],"topics":[{"name":"t0","partitions":2,"replication_factor":1}],"actions":[{"action":"delete_znode","at_ms":1449,"path":"/brokers/ids/1"},{"action":"delete_topic","at_ms":1449,"topic":"t0"},{"action":"delete_znode","at_ms":1456,"path":"/admin/delete_topics/t0"}]}"#,
    ),
    (
        14691,
        // Kafka: TopicDeletionManager.init with delete.topic.enable=false
        // removes the requests and deletes nothing (a simulator bug, fixed).
        "a deletion requested with deletion disabled as the controller fails over",
        r#"{"version":1,"seed":159453206562158,"brokers":[1,2,3],"config":{"delete.topic.enable":false},"topics":[{"name":"t0","partitions":1,"replication_factor":3}],"actions":[{"action":"delete_znode","at_ms":59032,"path":"/controller"},{"action":"kill_broker","at_ms":59032,"broker":1},{"action":"delete_topic","at_ms":59032,"topic":"t0"}]}"#,
    ),
    (
        18974,
        // Kafka: updateCurrentReassignment writes the new assignment (U1)
        // before it takes unneeded replicas out of the ISR (U3), and
        // doRemoveReplicasFromIsr never empties an ISR.
        "a superseding reassignment leaves the ISR outside the assignment for a moment",
        r#"{"version":1,"seed":2669646760790836,"brokers":[0,1,2,3],"topics":[{"name":"t0","partitions":1,"replication_factor":3}],"actions":[{"action":"shutdown_broker","at_ms":2033,"broker":3},{"action":"reassign_partitions","at_ms":2033,"partitions":[{"partition":0,"replicas":[3,1,2],"topic":"t0"}]},{"action":"delete_znode","at_ms":2042,"path":"/admin/reassign_partitions"},{"action":"reassign_partitions","at_ms":2042,"partitions":[{"partition":0,"replicas":[3],"topic":"t0"}]},{"action":"create_topic","at_ms":2042,"name":"new1","partitions":3,"replication_factor":1},{"action":"kill_broker","at_ms":9180,"broker":1}]}"#,
    ),
    (
        29726,
        // Kafka: nothing checks a state znode the operator writes; it becomes
        // visible after the writes of the controller's event in progress.
        "a partition state written by hand mid-event",
        r#"{"version":1,"seed":3586141625847616,"brokers":[1,2],"config":{"unclean.leader.election.enable":true,"zookeeper.session.timeout.ms":3000},"topics":[{"name":"t0","partitions":4,"replication_factor":2}],"actions":[{"action":"kill_broker","at_ms":6948,"broker":2},{"action":"shutdown_broker","at_ms":6948,"broker":1},{"action":"start_broker","at_ms":8171,"broker":1},{"action":"kill_broker","at_ms":10184,"broker":1},{"action":"reassign_partitions","at_ms":10184,"partitions":[{"partition":2,"replicas":[1],"topic":"t0"}]},{"action":"start_broker","at_ms":306459,"broker":2},{"action":"set_znode","at_ms":307903,"data":"{\"controller_epoch\":2,\"leader\":1,\"version\":1,\"leader_epoch\":4,\"isr\":[1]}","path":"/brokers/topics/t0/partitions/2/state"}]}"#,
    ),
    (
        321,
        // Kafka: a reassignment complete at once whose target the controller
        // does not yet count as live fails to move the leader
        // (moveReassignedPartitionLeaderIfRequired), then takes the old leader
        // out of the ISR: leader -1, OnlinePartition in memory, which
        // triggerOnlinePartitionStateChange skips; the auto leader rebalance
        // elects it up to 300 s later. (proptest, PROPTEST_RNG_SEED=321)
        "a reassignment leaves its partition leaderless until the auto rebalance",
        r#"{"version":1,"seed":14096562918010000549,"brokers":[0,1],"topics":[{"name":"t","partitions":4,"replication_factor":2}],"actions":[{"at_ms":4000,"action":"create_topic","name":"late","partitions":3,"replication_factor":2},{"at_ms":40252,"action":"pause_broker","broker":1,"duration_ms":13088},{"at_ms":53341,"action":"reassign_partitions","partitions":[{"topic":"t","partition":0,"replicas":[1]}]}]}"#,
    ),
    (
        16110357620582857770,
        // Kafka: Partition.maybeExpandIsr expands the ISR from the leader's own
        // assignment (its last LeaderAndIsr's); a reassignment completed without
        // a leader move leaves it the old one, so the leader takes back a
        // dropped replica; elections pick from the assignment, so that ISR
        // member is never elected. (proptest, the fixed seed)
        "a leader takes a dropped replica back into the ISR from its old assignment",
        r#"{"version":1,"seed":16110357620582857770,"brokers":[0,1],"topics":[{"name":"t","partitions":4,"replication_factor":2}],"actions":[{"at_ms":4000,"action":"create_topic","name":"late","partitions":3,"replication_factor":2},{"at_ms":12482,"action":"pause_broker","broker":0,"duration_ms":8302},{"at_ms":17005,"action":"shutdown_broker","broker":1},{"at_ms":17005,"action":"reassign_partitions","partitions":[{"topic":"t","partition":1,"replicas":[1]}]}]}"#,
    ),
];

#[test]
fn schedules_the_soak_once_failed_on_pass_every_check() {
    for (seed, why, text) in FOUND {
        let s = Scenario::parse(text).expect("valid");
        let out = run(&s, AllChecks::new, &RunOptions::default());
        assert!(
            out.findings.is_empty(),
            "seed {seed} ({why}): {:?}",
            out.findings
        );
    }
}
