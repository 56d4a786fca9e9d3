//! The data plane, as far as the controller's choices show in it: producers
//! write to the leader, followers fetch from their leader broker, leaders
//! grow and shrink the ISR themselves and propagate the changes through
//! `/isr_change_notification`, followers truncate to a new leader's log, and
//! a ledger records the acknowledged records that an election lost.
//!
//! Simplified, on purpose: one fetch session per (follower, leader broker)
//! pair, one round every `replica.fetch.wait.max.ms` (500 ms) or sooner after
//! a produce; a fetch copies what the follower lacks at once; divergence is
//! found exactly from record ids (what Kafka's OffsetsForLeaderEpoch exchange
//! finds from leader epochs).

use crate::broker::BrokerStatus;
use crate::controller::channel::{ControlRequest, RequestBody};
use crate::controller::context::LeaderIsr;
use crate::ids::{BrokerId, TopicPartition};
use crate::invariants;
use crate::log::{Acks, Log, LogRecord, ProducedRecord};
use crate::sim::{BrokerTask, Sim, SimEvent};
use crate::zk::CreateMode;
use crate::zk_client::paths;
use std::collections::BTreeSet;

/// Kafka's `replica.fetch.wait.max.ms` default: how long a follower's fetch
/// waits at the leader when there is nothing new.
pub const FETCH_WAIT_MAX_MS: u64 = 500;
/// `ReplicaManager.IsrChangePropagationBlackOut`.
pub const ISR_PROPAGATION_BLACKOUT_MS: u64 = 5_000;
/// `ReplicaManager.IsrChangePropagationInterval`.
pub const ISR_PROPAGATION_INTERVAL_MS: u64 = 60_000;
/// How often the `isr-change-propagation` task runs.
pub const ISR_PROPAGATION_CHECK_MS: u64 = 2_500;

impl Sim {
    /// Start a broker's periodic tasks (at registration).
    pub(crate) fn start_broker_tasks(&mut self, broker: BrokerId) {
        let incarnation = self.incarnation_of(broker);
        let lag = self.config().replica_lag_time_max_ms / 2;
        self.schedule(
            self.now().plus_ms(lag),
            SimEvent::BrokerTask {
                broker,
                incarnation,
                task: BrokerTask::IsrExpiration,
            },
        );
        self.schedule(
            self.now().plus_ms(ISR_PROPAGATION_CHECK_MS),
            SimEvent::BrokerTask {
                broker,
                incarnation,
                task: BrokerTask::IsrChangePropagation,
            },
        );
    }

    pub(crate) fn broker_task(&mut self, broker: BrokerId, task: BrokerTask) {
        let incarnation = self.incarnation_of(broker);
        match task {
            BrokerTask::IsrExpiration => {
                self.maybe_shrink_isr(broker);
                let lag = self.config().replica_lag_time_max_ms / 2;
                self.schedule(
                    self.now().plus_ms(lag),
                    SimEvent::BrokerTask {
                        broker,
                        incarnation,
                        task,
                    },
                );
            }
            BrokerTask::IsrChangePropagation => {
                self.maybe_propagate_isr_changes(broker);
                self.schedule(
                    self.now().plus_ms(ISR_PROPAGATION_CHECK_MS),
                    SimEvent::BrokerTask {
                        broker,
                        incarnation,
                        task,
                    },
                );
            }
        }
    }

    /// What a broker does after it applied a controller request.
    pub(crate) fn after_request_applied(&mut self, broker: BrokerId, req: &ControlRequest) {
        match &req.body {
            RequestBody::LeaderAndIsr { partitions } => {
                for p in partitions {
                    let applied = self
                        .broker(broker)
                        .and_then(|b| b.replicas.get(&p.tp))
                        .is_some_and(|l| l.leader_epoch == p.leader_epoch);
                    if !applied {
                        continue;
                    }
                    self.data.logs.entry((broker, p.tp.clone())).or_default();
                    if p.leader == broker.0 as i32 {
                        self.become_leader(broker, &p.tp, p.leader_epoch);
                    } else if p.leader >= 0 {
                        self.ensure_fetch_session(broker, BrokerId(p.leader as u32), 2);
                    }
                }
            }
            RequestBody::StopReplica {
                partitions,
                delete: true,
            } => {
                for tp in partitions {
                    self.data.logs.remove(&(broker, tp.clone()));
                }
            }
            RequestBody::StopReplica { .. }
            | RequestBody::UpdateMetadata { .. }
            | RequestBody::ControlledShutdown { .. } => {}
        }
    }

    /// Kafka's `Partition.makeLeader`: the leader's view of its followers
    /// starts afresh, and every acknowledged record its log lacks is lost.
    fn become_leader(&mut self, broker: BrokerId, tp: &TopicPartition, leader_epoch: i32) {
        let now = self.now();
        let Some(local) = self.broker_mut(broker).and_then(|b| b.replicas.get_mut(tp)) else {
            return;
        };
        local.follower_leo.clear();
        local.last_caught_up = local.isr.iter().map(|r| (*r, now)).collect();
        // A LeaderAndIsr that arrives late (its broker was paused, say) makes
        // the broker believe it leads, but leadership has already moved on:
        // only the current leader epoch decides what is lost.
        if self
            .current_leader_epoch(tp)
            .is_some_and(|e| leader_epoch < e)
        {
            return;
        }
        let log = self
            .data
            .logs
            .entry((broker, tp.clone()))
            .or_default()
            .clone();
        let committed = self.data.partition_hw.get(tp).copied().unwrap_or(0);
        let unclean = self.data.unclean_partitions.contains(tp);
        let mut lost = 0;
        for r in self
            .data
            .produced
            .iter_mut()
            .filter(|r| &r.tp == tp && r.acked_at.is_some() && r.lost.is_none())
        {
            if !log.has(r.offset, r.id) {
                r.lost = Some((
                    now,
                    format!(
                        "broker {broker} became leader of {tp} (leader epoch {leader_epoch}) with a log of {} records that lacks offset {}{}",
                        log.log_end_offset(),
                        r.offset,
                        if unclean { " after an unclean election" } else { "" }
                    ),
                ));
                lost += 1;
                if r.acks == Acks::All && !unclean {
                    let d = format!("{tp}: acknowledged acks=all record at offset {} lost without an unclean election", r.offset);
                    self.checker
                        .found(invariants::NO_ACKED_RECORD_LOST_CLEAN, d);
                }
            }
        }
        if lost > 0 {
            self.stats_mut().acked_records_lost += lost;
            self.trace_note(format!("broker-{broker}"), "records_lost", format!("{lost} acknowledged record(s) of {tp} lost: broker {broker} leads with a log that lacks them"));
        }
        // The committed offset survives a clean election; an unclean one cuts it.
        let leo = log.log_end_offset();
        let hw = if unclean {
            log.high_watermark.min(leo)
        } else {
            log.high_watermark.max(committed.min(leo))
        };
        if let Some(l) = self.data.logs.get_mut(&(broker, tp.clone())) {
            l.high_watermark = hw;
        }
        if committed > hw && !unclean {
            let d = format!(
                "{tp}: high watermark would go from {committed} to {hw} at a clean leader change"
            );
            self.checker
                .found(invariants::HIGH_WATERMARK_MONOTONIC_CLEAN, d);
        }
        if unclean {
            self.data.partition_hw.insert(tp.clone(), hw);
            self.data.unclean_partitions.remove(tp);
        }
        self.advance_hw(broker, tp);
    }

    /// Make sure `follower` has a fetch round from `leader` coming, at the
    /// latest after `rtt_factor` network hops. A slowed (or cut-off) follower
    /// waits its extra lag first, its first round included: a follower that
    /// cannot fetch does not fetch once just because it starts following a
    /// new leader.
    fn ensure_fetch_session(&mut self, follower: BrokerId, leader: BrokerId, rtt_factor: u64) {
        let lag = self.slow_lag(follower);
        let at = self
            .now()
            .plus_ms((self.config().sim_network_latency_ms * rtt_factor + 1).saturating_add(lag));
        match self.data.fetch_sessions.get(&(follower, leader)) {
            Some(t) if *t <= at => {}
            _ => {
                self.data.fetch_sessions.insert((follower, leader), at);
                self.schedule(at, SimEvent::Fetch { follower, leader });
            }
        }
    }

    /// One fetch round of `follower` from `leader` for every partition it follows there.
    pub(crate) fn fetch(&mut self, follower: BrokerId, leader: BrokerId) {
        let now = self.now();
        if self.data.fetch_sessions.get(&(follower, leader)) != Some(&now) {
            return; // superseded by a sooner or later round
        }
        let Some(f) = self.broker(follower).filter(|b| b.is_up()) else {
            self.data.fetch_sessions.remove(&(follower, leader));
            return;
        };
        let following: Vec<TopicPartition> = f
            .replicas
            .iter()
            .filter(|(_, p)| p.leader == leader.0 as i32)
            .map(|(tp, _)| tp.clone())
            .collect();
        if following.is_empty() {
            self.data.fetch_sessions.remove(&(follower, leader));
            return;
        }
        let leader_up = self.broker(leader).is_some_and(|b| {
            b.status == BrokerStatus::Running || b.status == BrokerStatus::ShuttingDown
        });
        if leader_up {
            for tp in &following {
                self.replicate(follower, leader, tp);
            }
        }
        let lag = self.data.slow_brokers.get(&follower).copied().unwrap_or(0);
        let next = now.plus_ms(FETCH_WAIT_MAX_MS.saturating_add(lag));
        self.data.fetch_sessions.insert((follower, leader), next);
        self.schedule(next, SimEvent::Fetch { follower, leader });
    }

    fn replicate(&mut self, follower: BrokerId, leader: BrokerId, tp: &TopicPartition) {
        let now = self.now();
        let leads = self
            .broker(leader)
            .and_then(|b| b.replicas.get(tp))
            .is_some_and(|p| p.leader == leader.0 as i32);
        if !leads {
            return;
        }
        let lkey = (leader, tp.clone());
        let fkey = (follower, tp.clone());
        let (leader_leo, hw, leader_last) = match self.data.logs.get(&lkey) {
            Some(l) => (
                l.log_end_offset(),
                l.high_watermark,
                l.records.last().copied(),
            ),
            None => (0, 0, None),
        };
        let in_sync = self.data.logs.get(&fkey).is_some_and(|f| {
            f.log_end_offset() == leader_leo && f.records.last().copied() == leader_last
        });
        if !in_sync {
            // Truncate to where the logs agree, then copy what the leader has beyond.
            let leader_log = self.data.logs.get(&lkey).cloned().unwrap_or_default();
            let flog = self.data.logs.entry(fkey.clone()).or_default();
            let keep = flog.common_prefix(&leader_log);
            let dropped = flog.truncate_to(keep);
            flog.records
                .extend_from_slice(&leader_log.records[keep as usize..]);
            if !dropped.is_empty() {
                self.trace_note(
                    format!("broker-{follower}"),
                    "log_truncated",
                    format!("{tp}: follower {follower} truncates {} record(s) from offset {keep} to match leader {leader}'s log", dropped.len()),
                );
            }
        }
        let flog = self.data.logs.entry(fkey).or_default();
        let leo = flog.log_end_offset();
        flog.high_watermark = flog.high_watermark.max(hw.min(leo));
        let Some(local) = self.broker_mut(leader).and_then(|b| b.replicas.get_mut(tp)) else {
            return;
        };
        let moved = local.follower_leo.insert(follower, leo) != Some(leo);
        if leo >= leader_leo {
            local.last_caught_up.insert(follower, now);
        }
        let expand =
            !local.isr.contains(&follower) && local.replicas.contains(&follower) && leo >= hw;
        if expand {
            let mut isr = local.isr.clone();
            isr.push(follower);
            if self.write_isr(leader, tp, isr) {
                self.stats_mut().isr_expands += 1;
            }
        }
        if moved || expand {
            self.advance_hw(leader, tp);
        }
    }

    /// The leader's high watermark: the smallest log end offset in the ISR.
    fn advance_hw(&mut self, leader: BrokerId, tp: &TopicPartition) {
        let Some(local) = self
            .brokers_ref()
            .get(&leader)
            .and_then(|b| b.replicas.get(tp))
        else {
            return;
        };
        let key = (leader, tp.clone());
        let Some(log) = self.data.logs.get(&key) else {
            return;
        };
        let mut hw = log.log_end_offset();
        for r in &local.isr {
            if *r != leader {
                hw = hw.min(local.follower_leo.get(r).copied().unwrap_or(0));
            }
        }
        if hw <= log.high_watermark {
            return;
        }
        if let Some(l) = self.data.logs.get_mut(&key) {
            l.high_watermark = hw;
        }
        let committed = self.data.partition_hw.entry(tp.clone()).or_insert(0);
        *committed = (*committed).max(hw);
        if self.data.produced.is_empty() {
            return;
        }
        let now = self.now();
        let log = self.data.logs.get(&key);
        for r in self.data.produced.iter_mut().filter(|r| {
            &r.tp == tp && r.acks == Acks::All && r.acked_at.is_none() && r.lost.is_none()
        }) {
            if r.offset < hw && log.is_some_and(|l| l.has(r.offset, r.id)) {
                r.acked_at = Some(now);
            }
        }
    }

    /// A leader writes a new ISR for a partition it leads (same leader epoch,
    /// conditional on its cached zkVersion; on a mismatch it skips, as
    /// Kafka 2.x's `Partition.updateIsr` does). Returns whether it wrote.
    fn write_isr(&mut self, leader: BrokerId, tp: &TopicPartition, isr: Vec<BrokerId>) -> bool {
        let now = self.now();
        let Some(b) = self.broker(leader) else {
            return false;
        };
        let Some(session) = b.zk_client.session else {
            return false;
        };
        let Some(local) = b.replicas.get(tp).cloned() else {
            return false;
        };
        let new = LeaderIsr {
            leader: Some(leader),
            leader_epoch: local.leader_epoch,
            isr: isr.clone(),
            zk_version: local.zk_version,
            controller_epoch: local.controller_epoch,
        };
        let data = crate::znodes::encode_partition_state(&new);
        match self.zk_mut().set_data(
            Some(session),
            &paths::partition_state(tp),
            &data,
            Some(local.zk_version),
        ) {
            Ok(stat) => {
                let old = local.isr.clone();
                if let Some(b) = self.broker_mut(leader) {
                    if let Some(p) = b.replicas.get_mut(tp) {
                        p.isr = isr.clone();
                        p.zk_version = stat.version;
                    }
                    b.isr_change_set.insert(tp.clone());
                    b.last_isr_change = now;
                }
                let kind = if isr.len() > old.len() {
                    "isr_expanded"
                } else {
                    "isr_shrunk_by_leader"
                };
                self.trace_note(
                    format!("broker-{leader}"),
                    kind,
                    format!(
                        "{tp}: leader {leader} updates ISR from {} to {} (zkVersion {})",
                        ids(&old),
                        ids(&isr),
                        stat.version
                    ),
                );
                true
            }
            Err(e) => {
                self.trace_note(
                    format!("broker-{leader}"),
                    "isr_update_skipped",
                    format!("{tp}: cached zkVersion {} not equal to that in ZooKeeper ({e}), skip updating ISR", local.zk_version),
                );
                false
            }
        }
    }

    /// `Partition.maybeShrinkIsr` for every partition the broker leads.
    fn maybe_shrink_isr(&mut self, broker: BrokerId) {
        let now = self.now();
        let lag = self.config().replica_lag_time_max_ms;
        let Some(b) = self.broker(broker) else { return };
        let mut shrinks = Vec::new();
        for (tp, p) in &b.replicas {
            if p.leader != broker.0 as i32 {
                continue;
            }
            let out: BTreeSet<BrokerId> = p
                .isr
                .iter()
                .copied()
                .filter(|r| {
                    *r != broker && p.last_caught_up.get(r).is_none_or(|t| now.since(*t) > lag)
                })
                .collect();
            if !out.is_empty() {
                shrinks.push((
                    tp.clone(),
                    p.isr
                        .iter()
                        .copied()
                        .filter(|r| !out.contains(r))
                        .collect::<Vec<_>>(),
                ));
            }
        }
        for (tp, isr) in shrinks {
            if self.write_isr(broker, &tp, isr) {
                self.stats_mut().isr_shrinks += 1;
                self.advance_hw(broker, &tp);
            }
        }
    }

    /// `ReplicaManager.maybePropagateIsrChanges`.
    fn maybe_propagate_isr_changes(&mut self, broker: BrokerId) {
        let now = self.now();
        let Some(b) = self.broker(broker) else { return };
        if b.isr_change_set.is_empty() {
            return;
        }
        let quiet = now.since(b.last_isr_change) > ISR_PROPAGATION_BLACKOUT_MS;
        let overdue = now.since(b.last_isr_propagation) > ISR_PROPAGATION_INTERVAL_MS;
        if !(quiet || overdue) {
            return;
        }
        let Some(session) = b.zk_client.session else {
            return;
        };
        let tps: Vec<TopicPartition> = b.isr_change_set.iter().cloned().collect();
        let data = crate::znodes::encode_isr_change_notification(&tps);
        let path = format!("{}/isr_change_", paths::ISR_CHANGE_NOTIFICATION);
        match self.zk_mut().create(
            Some(session),
            &path,
            &data,
            CreateMode::PersistentSequential,
        ) {
            Ok(created) => {
                if let Some(b) = self.broker_mut(broker) {
                    b.isr_change_set.clear();
                    b.last_isr_propagation = now;
                }
                self.trace_note(
                    format!("broker-{broker}"),
                    "isr_change_propagated",
                    format!("{created} = {data}"),
                );
            }
            Err(e) => self.trace_note(
                format!("broker-{broker}"),
                "zk_error",
                format!("create {path}: {e}"),
            ),
        }
    }

    /// A producer writes `count` records to the partition's leader.
    pub(crate) fn produce(&mut self, tp: &TopicPartition, count: u64, acks: Acks) {
        let now = self.now();
        let leader = self.leader_of(tp);
        let serving = leader.filter(|l| {
            self.broker(*l).is_some_and(|b| {
                b.is_up() && b.replicas.get(tp).is_some_and(|p| p.leader == l.0 as i32)
            })
        });
        let Some(leader) = serving else {
            let why = match leader {
                None => "LEADER_NOT_AVAILABLE: the partition has no leader".to_string(),
                Some(l) => format!("NOT_LEADER_FOR_PARTITION: broker {l} does not serve as leader"),
            };
            return self.trace_note("producer", "produce_failed", format!("{tp}: {why}"));
        };
        let Some(local) = self
            .broker(leader)
            .and_then(|b| b.replicas.get(tp))
            .cloned()
        else {
            return;
        };
        if acks == Acks::All {
            let min_isr = self.min_insync_replicas(&tp.topic);
            if (local.isr.len() as u64) < min_isr {
                let d = format!("{tp}: NOT_ENOUGH_REPLICAS: ISR {} is smaller than min.insync.replicas {min_isr}", ids(&local.isr));
                return self.trace_note("producer", "produce_failed", d);
            }
        }
        let log = self.data.logs.entry((leader, tp.clone())).or_default();
        let first = log.log_end_offset();
        let mut new = Vec::new();
        for i in 0..count {
            let id = self.data.next_record_id + i;
            log.records.push(LogRecord {
                leader_epoch: local.leader_epoch,
                id,
            });
            new.push(ProducedRecord {
                id,
                tp: tp.clone(),
                offset: first + i,
                acks,
                produced_at: now,
                acked_at: if acks == Acks::Leader {
                    Some(now)
                } else {
                    None
                },
                lost: None,
            });
        }
        self.data.next_record_id += count;
        self.data.produced.extend(new);
        self.trace_note(
            "producer",
            "produced",
            format!(
                "{count} record(s) to {tp} on leader {leader} at offsets {first}..{} (acks={})",
                first + count,
                acks.as_str()
            ),
        );
        self.advance_hw(leader, tp);
        // Followers waiting in a fetch at the leader are answered at once.
        let followers: Vec<BrokerId> = local
            .replicas
            .iter()
            .copied()
            .filter(|r| *r != leader)
            .collect();
        for f in followers {
            let lag = self.data.slow_brokers.get(&f).copied().unwrap_or(0);
            if lag == 0 && self.data.fetch_sessions.contains_key(&(f, leader)) {
                self.ensure_fetch_session(f, leader, 1);
            }
        }
    }

    /// `min.insync.replicas` for a topic: its override, or the cluster's.
    fn min_insync_replicas(&self, topic: &str) -> u64 {
        self.zk()
            .node(&paths::topic_config(topic))
            .and_then(|n| serde_json::from_str::<serde_json::Value>(&n.data).ok())
            .and_then(|v| {
                v.get("config")?
                    .get("min.insync.replicas")
                    .and_then(crate::config::parse_u64)
            })
            .unwrap_or(self.config().min_insync_replicas)
    }

    /// A deleted topic takes its data with it: every replica log left of it,
    /// its high watermark, its unclean-election marker and the ledger of
    /// records produced to it. A topic created again under the same name is
    /// a new topic (Kafka: `TopicDeletionManager.completeDeleteTopic`, after
    /// `ReplicaManager.stopReplica(deletePartition = true)` on every replica).
    pub(crate) fn forget_topic_data(&mut self, topic: &str) {
        self.data.logs.retain(|(_, tp), _| tp.topic != topic);
        self.data.partition_hw.retain(|tp, _| tp.topic != topic);
        self.data.unclean_partitions.retain(|tp| tp.topic != topic);
        self.data.produced.retain(|r| r.tp.topic != topic);
    }

    /// A replica's log, if it has one.
    pub fn log(&self, broker: BrokerId, tp: &TopicPartition) -> Option<&Log> {
        self.data.logs.get(&(broker, tp.clone()))
    }

    /// The partition's high watermark: the committed offset.
    pub fn high_watermark(&self, tp: &TopicPartition) -> u64 {
        self.data.partition_hw.get(tp).copied().unwrap_or(0)
    }

    /// Every produced record and its fate.
    pub fn produced(&self) -> &[ProducedRecord] {
        &self.data.produced
    }

    /// Slow a broker's fetching by `lag_ms` per round (0 heals it).
    pub(crate) fn set_slow(&mut self, broker: BrokerId, lag_ms: u64) {
        if lag_ms == 0 {
            self.data.slow_brokers.remove(&broker);
            // Its next fetch round comes at the normal pace again.
            let leaders: Vec<BrokerId> = self
                .data
                .fetch_sessions
                .keys()
                .filter(|(f, _)| *f == broker)
                .map(|(_, l)| *l)
                .collect();
            for l in leaders {
                self.ensure_fetch_session(broker, l, 2);
            }
        } else {
            self.data.slow_brokers.insert(broker, lag_ms);
        }
    }
}

fn ids(v: &[BrokerId]) -> String {
    let s: Vec<String> = v.iter().map(|b| b.to_string()).collect();
    format!("[{}]", s.join(","))
}

impl Sim {
    /// The extra fetch lag of a broker slowed by `slow_broker` (0 if none).
    pub fn slow_lag(&self, broker: BrokerId) -> u64 {
        self.data.slow_brokers.get(&broker).copied().unwrap_or(0)
    }
}
