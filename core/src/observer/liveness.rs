//! Liveness: once faults stop, within [`liveness_bound_ms`] the cluster
//! settles. Each property names what Kafka does that makes it settle, and
//! where Kafka itself stays stuck the property leaves that case out.

use super::*;
use crate::data_plane::{FETCH_WAIT_MAX_MS, ISR_PROPAGATION_BLACKOUT_MS, ISR_PROPAGATION_CHECK_MS};

/// How long a partition's state znode must have stayed the same before the
/// brokers' caches must agree with it: a controller that just changed it
/// (an auto preferred-leader election, an ISR change it propagated) has its
/// UpdateMetadata on the wire for a few network round trips.
const SETTLE_MS: u64 = 5_000;

/// How long after the last fault ends liveness must hold. The sum, each
/// term the longest its step can take with the sim's configuration:
/// - `zookeeper.session.timeout.ms`: a killed broker's session expires,
///   and `/controller` or `/brokers/ids/<id>` with it;
/// - `sim.broker.startup.ms` + its jitter: a broker started last registers;
/// - `(controlled.shutdown.max.retries + 1)` times the sum of
///   `controller.socket.timeout.ms` and `controlled.shutdown.retry.backoff.ms`:
///   a controlled shutdown under way when the faults stopped runs out its
///   attempts;
/// - `1.5 × replica.lag.time.max.ms` (the lag, then the `isr-expiration`
///   task that runs every half of it) + the ISR propagation black-out and
///   check interval + a fetch wait: a leader drops a dead follower or takes
///   back a caught-up one, and the controller hears of it
///   (`ReplicaManager.maybePropagateIsrChanges`) and tells every broker;
/// - the controller's work: 10 s, plus 4 × per partition its ZooKeeper
///   read and write and its request cost (a failover re-reads and
///   re-elects every partition, and a reassignment or a deletion takes a
///   few such rounds), plus 20 network and ZooKeeper round trips.
pub fn liveness_bound_ms(sim: &Sim) -> u64 {
    let c = sim.config();
    let partitions = sim
        .zk()
        .observed_children(paths::TOPICS)
        .filter_map(|t| sim.zk().observed(&paths::topic(&t)))
        .filter_map(|n| crate::znodes::decode_topic_assignment(&n.data.text()))
        .map(|a| a.len() as u64)
        .sum::<u64>();
    let session = c.zookeeper_session_timeout_ms;
    let startup = c.sim_broker_startup_ms + c.sim_broker_startup_jitter_ms;
    let shutdown = (c.controlled_shutdown_max_retries + 1)
        * (c.controller_socket_timeout_ms + c.controlled_shutdown_retry_backoff_ms);
    let isr = c.replica_lag_time_max_ms * 3 / 2
        + ISR_PROPAGATION_BLACKOUT_MS
        + ISR_PROPAGATION_CHECK_MS
        + FETCH_WAIT_MAX_MS;
    let per_partition_us = c.sim_controller_zk_read_cost_us
        + c.sim_controller_zk_write_cost_us
        + c.sim_controller_request_partition_cost_us;
    let round_trip = 2 * (c.sim_zk_latency_ms + c.sim_network_latency_ms + c.sim_network_jitter_ms);
    let controller = 10_000 + 4 * partitions * per_partition_us / 1_000 + 20 * round_trip;
    session + startup + shutdown + isr + controller
}

pub(super) fn check(o: &Observer, sim: &Sim) -> Vec<Finding> {
    let mut reported = BTreeSet::new();
    let mut out = Out {
        now: sim.now().as_ms(),
        reported: &mut reported,
        findings: Vec::new(),
    };
    // A running broker whose registration the operator deleted or rewrote
    // by hand is, to the controller, not a live broker (Kafka re-registers
    // only at start-up and after a session expiry): it is left out.
    let running: BTreeSet<BrokerId> = sim
        .brokers()
        .values()
        .filter(|b| b.status == BrokerStatus::Running)
        .filter(|b| registered(sim, b) || !o.hand_edited.contains(&paths::broker(b.id)))
        .map(|b| b.id)
        .collect();
    brokers(o, sim, &mut out);
    records(o, sim, &mut out);
    if o.notifications_lost.is_empty() && o.controller_edits.is_empty() {
        controller(sim, &running, &mut out);
        partitions(o, sim, &running, &mut out);
        admin(o, sim, &running, &mut out);
    }
    out.findings
}

/// Whether `/brokers/ids/<id>` exists and belongs to the broker's current
/// session.
fn registered(sim: &Sim, b: &crate::broker::Broker) -> bool {
    let owner = sim
        .zk()
        .observed(&paths::broker(b.id))
        .and_then(|n| n.stat.ephemeral_owner());
    owner.is_some() && owner == b.zk_client.session
}

/// No broker is stuck starting or shutting down, and every running broker
/// is registered with its current session.
fn brokers(o: &Observer, sim: &Sim, out: &mut Out) {
    for b in sim.brokers().values() {
        // Kafka: KafkaServer.startup registers or fails (NodeExists) and
        // exits; controlledShutdown gives up after its retries and exits.
        if matches!(
            b.status,
            BrokerStatus::Starting | BrokerStatus::ShuttingDown
        ) {
            out.find(
                LIVE_NO_STUCK_BROKER,
                b.id.to_string(),
                format!("broker {} is still {}", b.id, b.status.as_str()),
            );
        }
        if b.status != BrokerStatus::Running || o.hand_edited.contains(&paths::broker(b.id)) {
            continue;
        }
        // Kafka: KafkaZkClient.registerBroker at start-up, and again from
        // the session-expiry handler (ZooKeeperClient re-creates its
        // session and KafkaServer re-registers).
        if !registered(sim, b) {
            let node = sim.zk().observed(&paths::broker(b.id));
            out.find(
                LIVE_RUNNING_BROKERS_REGISTERED,
                b.id.to_string(),
                format!(
                    "broker {} runs but /brokers/ids/{} {}",
                    b.id,
                    b.id,
                    if node.is_some() {
                        "belongs to another session"
                    } else {
                        "does not exist"
                    }
                ),
            );
        }
    }
}

/// Every running broker agrees on the controller `/controller` names, in
/// its controller module and its metadata cache, and that broker acts.
fn controller(sim: &Sim, running: &BTreeSet<BrokerId>, out: &mut Out) {
    if running.is_empty() {
        return;
    }
    // Kafka: a broker that finds /controller gone runs elect()
    // (ControllerChangeHandler.handleDeletion → Reelect); the winner sends
    // UpdateMetadata to every live broker (onControllerFailover).
    let Some(c) = sim.controller_id() else {
        out.find(
            LIVE_ONE_CONTROLLER,
            String::new(),
            "brokers run but /controller does not exist".into(),
        );
        return;
    };
    let acts = sim
        .brokers()
        .get(&c)
        .is_some_and(|b| b.status == BrokerStatus::Running && b.controller.is_active(c));
    if !acts {
        out.find(
            LIVE_ONE_CONTROLLER,
            String::new(),
            format!("/controller names broker {c}, which does not run as controller"),
        );
    }
    let disagree: Vec<String> = sim
        .brokers()
        .values()
        .filter(|b| running.contains(&b.id))
        .filter(|b| {
            b.controller.active_controller_id != Some(c) || b.metadata.controller_id != Some(c)
        })
        .map(|b| {
            format!(
                "broker {} believes {:?} and its metadata names {:?}",
                b.id,
                b.controller.active_controller_id.map(|x| x.0),
                b.metadata.controller_id.map(|x| x.0)
            )
        })
        .collect();
    if !disagree.is_empty() {
        out.find(
            LIVE_ONE_CONTROLLER,
            String::new(),
            format!("/controller names {c} but {}", disagree.join(", ")),
        );
    }
}

/// Topics being deleted, from `/admin/delete_topics`.
fn deleting(sim: &Sim) -> BTreeSet<String> {
    sim.zk()
        .observed_children(paths::DELETE_TOPICS)
        .map(std::borrow::Cow::into_owned)
        .collect()
}

/// Every partition with a running replica in its ISR has a leader that
/// serves it, and that every running broker knows.
fn partitions(o: &Observer, sim: &Sim, running: &BTreeSet<BrokerId>, out: &mut Out) {
    // Kafka: KafkaController.processTopicDeletion only adds topics to
    // delete; a deletion whose /admin/delete_topics/<t> the operator
    // removed by hand goes on in the controller's memory, and the topic's
    // partitions stay leaderless (TopicDeletionManager.onTopicDeletion)
    // until it completes.
    let mut deleting = deleting(sim);
    deleting.extend(
        o.deletion_asked
            .iter()
            .filter(|t| {
                o.hand_edited
                    .contains(&format!("{}/{t}", paths::DELETE_TOPICS))
            })
            .cloned(),
    );
    let now = sim.now();
    for (name, topic) in &o.topics {
        if deleting.contains(name) {
            continue;
        }
        for (p, ar) in &topic.assignment {
            let tp = TopicPartition::new(name.as_str(), *p);
            // Kafka: nothing watches a partition's state znode; one the
            // operator wrote by hand (garbage, or a leader that was never
            // told) stays as written until the controller next changes it.
            if o.hand_edited.contains(&paths::partition_state(&tp))
                || o.hand_edited.contains(&paths::topic(name))
            {
                continue;
            }
            let Some(seen) = o.partitions.get(&tp) else {
                continue;
            };
            if o.leaderless_after_reassignment.contains(&tp) {
                continue;
            }
            // Kafka: an offline partition (no live ISR member) stays
            // offline without unclean election; a new one without a state
            // znode is elected from its live assigned replicas.
            // Elections pick from the assignment (an ISR member outside it,
            // which a reassignment can leave, is never elected).
            let eligible: Vec<BrokerId> = if seen.leader_epoch < 0 {
                ar.clone()
            } else {
                seen.isr
                    .iter()
                    .copied()
                    .filter(|r| ar.contains(r))
                    .collect()
            };
            if !eligible.iter().any(|r| running.contains(r)) {
                continue;
            }
            let Some(leader) = seen.leader.filter(|l| running.contains(l)) else {
                out.find(
                    LIVE_PARTITIONS_LED,
                    tp.to_string(),
                    format!(
                        "{tp}: running replicas in its ISR {:?} but leader {:?}",
                        ids(&eligible),
                        seen.leader.map(|l| l.0)
                    ),
                );
                continue;
            };
            if now.since(seen.changed_at) < SETTLE_MS {
                continue;
            }
            if o.serving_leader(sim, &tp).is_none() {
                out.find(
                    LIVE_PARTITIONS_LED,
                    tp.to_string(),
                    format!(
                        "{tp}: ZooKeeper names leader {leader} at leader epoch {}, which it does not serve",
                        seen.leader_epoch
                    ),
                );
                continue;
            }
            // Kafka: every LeaderAndIsr change is followed by an
            // UpdateMetadata to every live broker
            // (ControllerBrokerRequestBatch.sendRequestsToBrokers).
            let stale: Vec<String> = running
                .iter()
                .filter_map(|b| sim.brokers().get(b))
                .filter(|b| {
                    b.metadata.partitions.get(&tp).is_none_or(|c| {
                        c.leader != leader.0 as i32
                            || c.leader_epoch != seen.leader_epoch
                            || !same_set(&c.isr(), &seen.isr)
                    })
                })
                .map(|b| match b.metadata.partitions.get(&tp) {
                    Some(c) => format!(
                        "broker {} caches leader {} epoch {} ISR {:?}",
                        b.id,
                        c.leader,
                        c.leader_epoch,
                        ids(&c.isr())
                    ),
                    None => format!("broker {} does not know it", b.id),
                })
                .collect();
            if !stale.is_empty() {
                out.find(
                    LIVE_PARTITIONS_LED,
                    tp.to_string(),
                    format!(
                        "{tp}: ZooKeeper has leader {leader} epoch {} ISR {:?} but {}",
                        seen.leader_epoch,
                        ids(&seen.isr),
                        stale.join(", ")
                    ),
                );
            }
        }
    }
}

/// Whether two replica lists hold the same brokers (an ISR is a set: the
/// leader appends a follower it takes back, the controller writes it in
/// the order it has).
fn same_set(a: &[BrokerId], b: &[BrokerId]) -> bool {
    a.len() == b.len() && a.iter().all(|x| b.contains(x))
}

/// Reassignments and topic deletions that can finish, finished.
fn admin(o: &Observer, sim: &Sim, running: &BTreeSet<BrokerId>, out: &mut Out) {
    let zk = sim.zk();
    let all_run = |rs: &[BrokerId]| rs.iter().all(|r| running.contains(r));
    let deleting = deleting(sim);
    // Kafka: onPartitionReassignment waits until every target replica is in
    // the ISR, so a reassignment to a dead broker waits for it; one whose
    // targets all run (and whose topic is not being deleted) completes and
    // leaves /admin/reassign_partitions.
    let listed = zk
        .observed(paths::REASSIGN_PARTITIONS)
        .and_then(|n| crate::znodes::decode_reassign_partitions(&n.data.text()))
        .unwrap_or_default();
    for (tp, target) in listed {
        let Some(topic) = o.topics.get(tp.topic.as_str()) else {
            continue;
        };
        let Some(current) = topic.assignment.get(&tp.partition) else {
            continue;
        };
        // Kafka: a partition whose state znode the operator wrote by hand
        // (garbage, say) cannot be moved: the reassignment waits, as here.
        if deleting.contains(tp.topic.as_str())
            || o.stalled_reassignments.contains(&tp)
            || !all_run(&target)
            || !all_run(current)
            || o.hand_edited.contains(&paths::partition_state(&tp))
        {
            continue;
        }
        out.find(
            LIVE_REASSIGNMENTS_FINISH,
            tp.to_string(),
            format!(
                "{tp}: reassignment to {:?} is still in /admin/reassign_partitions though all its replicas run",
                ids(&target)
            ),
        );
    }
    for (name, topic) in &o.topics {
        for p in &topic.reassigning {
            let ar = topic.assignment.get(p).map(Vec::as_slice).unwrap_or(&[]);
            let hand_edited =
                o.hand_edited
                    .contains(&paths::partition_state(&TopicPartition::new(
                        name.as_str(),
                        *p,
                    )));
            let stalled = o
                .stalled_reassignments
                .contains(&TopicPartition::new(name.as_str(), *p));
            if !deleting.contains(name) && all_run(ar) && !hand_edited && !stalled {
                out.find(
                    LIVE_REASSIGNMENTS_FINISH,
                    format!("{name}-{p}"),
                    format!("{name}-{p}: the topic znode still lists replicas being added or removed though all of {:?} run", ids(ar)),
                );
            }
        }
    }
    // Kafka: TopicDeletionManager deletes a topic once every replica
    // answered StopReplica(delete); a replica on a dead broker makes it
    // ineligible until the broker is back (onBrokerStartup resumes it).
    for name in &deleting {
        let Some(topic) = o.topics.get(name) else {
            out.find(
                LIVE_DELETIONS_FINISH,
                name.clone(),
                format!("/admin/delete_topics/{name} names a topic that does not exist"),
            );
            continue;
        };
        // A partition state the operator wrote by hand (garbage, say) can
        // stop the deletion's state changes, in Kafka as here.
        let hand_edited = o.hand_edited.iter().any(|p| {
            p.strip_prefix(&paths::topic(name))
                .is_some_and(|rest| rest.starts_with("/partitions/"))
        });
        // Kafka: a reassignment in progress makes its topic ineligible for
        // deletion (onPartitionReassignment); one that waits forever (see
        // `Observer::liveness`) holds the deletion with it. A deletion
        // stalled by a stale broker epoch waits too.
        let stalled = o.stalled_deletions.contains(name)
            || o.stalled_reassignments
                .iter()
                .any(|tp| tp.topic.as_str() == name.as_str());
        if topic.assignment.values().all(|ar| all_run(ar)) && !hand_edited && !stalled {
            out.find(
                LIVE_DELETIONS_FINISH,
                name.clone(),
                format!("topic {name} is still being deleted though all its replicas run"),
            );
        }
    }
}

/// Every acks=all record acknowledged is still readable from its serving
/// leader, unless an unclean election happened after it was produced.
fn records(o: &Observer, sim: &Sim, out: &mut Out) {
    for (tp, offset, at) in &o.lost {
        out.find(
            LIVE_ACKED_RECORDS_READABLE,
            format!("{tp} {offset}"),
            format!(
                "{tp}: acknowledged acks=all record at offset {offset} was lost at {} ms without an unclean election",
                at.as_ms()
            ),
        );
    }
    for (tp, acked) in &o.acked {
        if o.deletion_asked.contains(tp.topic.as_str()) {
            continue;
        }
        let Some(seen) = o.partitions.get(tp) else {
            continue;
        };
        let Some((leader, _, _)) = o.serving_leader(sim, tp) else {
            continue;
        };
        let empty = crate::log::Log::default();
        let log = sim.log(leader, tp).unwrap_or(&empty);
        for r in acked.iter().filter(|r| r.all && !log.has(r.offset, r.id)) {
            if seen.unclean_at.iter().any(|t| *t >= r.produced_at) {
                continue;
            }
            out.find(
                LIVE_ACKED_RECORDS_READABLE,
                format!("{tp} {}", r.offset),
                format!(
                    "{tp}: acknowledged acks=all record at offset {} is not in leader {leader}'s log",
                    r.offset
                ),
            );
        }
    }
}
