//! Kafka's `Partition`, on the leader: `makeLeader` (and the records an
//! election lost), the leader's view of its followers
//! (`updateFollowerFetchState`), `maybeExpandIsr`, `maybeShrinkIsr`,
//! `updateIsr` (a conditional write of the state znode) and
//! `maybeIncrementLeaderHW`, which also acknowledges the acks=all records it
//! commits (`DelayedProduce`).

use super::{DataPlane, Env};
use crate::controller::context::LeaderIsr;
use crate::controller::election::BrokerIds;
use crate::fact::Fact;
use crate::ids::{BrokerId, TopicPartition};
use crate::invariants;
use crate::log::Acks;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// What one fetch round tells the leader about a follower.
#[derive(Debug, Clone, Copy)]
pub(super) struct FollowerFetch {
    /// The follower.
    pub follower: BrokerId,
    /// The follower's log end offset after the round.
    pub leo: u64,
    /// The leader's log end offset the round saw.
    pub leader_leo: u64,
    /// The leader's high watermark the round saw.
    pub leader_hw: u64,
}

/// A leader's `isr-expiration` walk that found nothing to shrink: while
/// the leader's start, the data plane's change counts for every leader and
/// for this one ([`DataPlane::changed`], [`DataPlane::changed_for`]) and
/// the lag are the same, a walk up to `until`
/// finds nothing either. Every follower's last-caught-up time the walk
/// reads (its cached session's last round, or the leader's record) only
/// moves forward while nothing changes, and `until` is the earliest time
/// read plus the lag. Kafka walks every time; the result is the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuietWalk {
    incarnation: u32,
    gens: (u64, u64),
    lag: u64,
    until: SimTime,
}

impl QuietWalk {
    /// Whether a walk described by `now_walk` (its `until` not yet known)
    /// at `now` would find nothing, as this one did.
    fn holds_at(&self, now_walk: &QuietWalk, now: SimTime) -> bool {
        self.incarnation == now_walk.incarnation
            && self.gens == now_walk.gens
            && self.lag == now_walk.lag
            && now <= self.until
    }
}

impl DataPlane {
    /// Kafka's `Partition.makeLeader`: the leader's view of its followers
    /// starts afresh, and every acknowledged record its log lacks is lost.
    /// `current_epoch` is the leader epoch in the partition's state znode.
    pub(super) fn become_leader(
        &mut self,
        env: &mut Env,
        broker: BrokerId,
        tp: &TopicPartition,
        leader_epoch: i32,
        current_epoch: Option<i32>,
    ) {
        let now = env.now;
        let Some(local) = env
            .brokers
            .get_mut(&broker)
            .and_then(|b| b.replicas.get_mut(tp))
        else {
            return;
        };
        local.view.reset(&local.isr(), now);
        // A LeaderAndIsr that arrives late (its broker was paused, say) makes
        // the broker believe it leads, but leadership has already moved on:
        // only the current leader epoch decides what is lost.
        if current_epoch.is_some_and(|e| leader_epoch < e) {
            return;
        }
        // Its log is there: the request's partitions taken have one.
        let key = (broker, tp.clone());
        let empty = crate::log::Log::default();
        let log = self.logs.get(&key).unwrap_or(&empty);
        let committed = self.partition_hw.get(tp).copied().unwrap_or(0);
        let unclean = self.unclean_partitions.contains(tp);
        let mut lost = 0;
        for r in self
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
                    env.out.found(invariants::NO_ACKED_RECORD_LOST_CLEAN, d);
                }
            }
        }
        if lost > 0 {
            env.out.acked_records_lost += lost;
            env.out.note(
                crate::trace::Label::numbered("broker-", broker.0),
                "records_lost",
                Fact::RecordsLost {
                    lost,
                    tp: tp.clone(),
                    broker,
                },
            );
        }
        // The committed offset survives a clean election; an unclean one cuts it.
        let leo = log.log_end_offset();
        let hw = if unclean {
            log.high_watermark.min(leo)
        } else {
            log.high_watermark.max(committed.min(leo))
        };
        if let Some(l) = self.logs.get_mut_if(&key, |l| l.high_watermark != hw) {
            l.high_watermark = hw;
        }
        if committed > hw && !unclean {
            let d = format!(
                "{tp}: high watermark would go from {committed} to {hw} at a clean leader change"
            );
            env.out.found(invariants::HIGH_WATERMARK_MONOTONIC_CLEAN, d);
        }
        if unclean {
            self.partition_hw.insert(tp.clone(), hw);
            self.unclean_partitions.remove(tp);
        }
        self.advance_hw(env, broker, tp);
    }

    /// The leader learns from a fetch how far a follower's log reaches:
    /// `Partition.updateFollowerFetchState`, then `maybeExpandIsr` and
    /// `maybeIncrementLeaderHW`. Returns whether the leader's view of the
    /// follower was up to date already, the follower in the ISR (the fetch
    /// only marked it caught up).
    pub(super) fn follower_fetched(
        &mut self,
        env: &mut Env,
        leader: BrokerId,
        tp: &TopicPartition,
        fetched: FollowerFetch,
    ) -> bool {
        let FollowerFetch {
            follower,
            leo,
            leader_leo,
            leader_hw,
        } = fetched;
        let now = env.now;
        let Some(b) = env.brokers.get_mut(&leader) else {
            return false;
        };
        // What the fetch changes in the leader's view; the replica is
        // written (its chunk copied) only if something does.
        let mut seen = None;
        let needs = |local: &crate::broker::LocalPartition| {
            let moved = local.view.leo(&follower) != Some(leo);
            let caught = leo >= leader_leo && local.view.caught_up(&follower) != Some(now);
            let in_isr = local.isr_contains(&follower);
            let expand = !in_isr && local.replicas().contains(&follower) && leo >= leader_hw;
            let isr = expand.then(|| {
                let mut isr = BrokerIds::from(&local.isr()[..]);
                isr.push(follower);
                isr
            });
            seen = Some((moved, isr, in_isr));
            moved || caught
        };
        if let Some(local) = b.replicas.get_mut_if(tp, needs) {
            local.view.set_leo(follower, leo);
            if leo >= leader_leo {
                local.view.set_caught_up(follower, now);
            }
        }
        let Some((moved, expand_to, in_isr)) = seen else {
            return false;
        };
        let expand = expand_to.is_some();
        if let Some(isr) = expand_to {
            if self.write_isr(env, leader, tp, isr) {
                env.out.isr_expands += 1;
            }
        }
        if moved || expand {
            self.advance_hw(env, leader, tp);
        }
        !moved && in_isr
    }

    /// The leader's high watermark: the smallest log end offset in the ISR.
    /// Records produced with acks=all are acknowledged once it passes them.
    pub(super) fn advance_hw(&mut self, env: &mut Env, leader: BrokerId, tp: &TopicPartition) {
        let Some(local) = env.brokers.get(&leader).and_then(|b| b.replicas.get(tp)) else {
            return;
        };
        let key = (leader, tp.clone());
        let Some(log) = self.logs.get(&key) else {
            return;
        };
        let mut hw = log.log_end_offset();
        for r in &local.isr() {
            if *r != leader {
                hw = hw.min(local.view.leo(r).unwrap_or(0));
            }
        }
        if hw <= log.high_watermark {
            return;
        }
        // The followers learn the new high watermark at their next fetch.
        let replicas = crate::broker::ReplicaIds::from(local.replicas());
        self.touch(leader, tp, &replicas);
        if let Some(l) = self.logs.get_mut(&key) {
            l.high_watermark = hw;
        }
        let committed = self.partition_hw.get_or_insert_with(tp.clone(), || 0);
        *committed = (*committed).max(hw);
        if self.produced.is_empty() {
            return;
        }
        let now = env.now;
        let log = self.logs.get(&key);
        for r in self.produced.iter_mut().filter(|r| {
            &r.tp == tp && r.acks == Acks::All && r.acked_at.is_none() && r.lost.is_none()
        }) {
            if r.offset < hw && log.is_some_and(|l| l.has(r.offset, r.id)) {
                r.acked_at = Some(now);
            }
        }
    }

    /// `Partition.maybeShrinkIsr` for every partition the broker leads.
    ///
    /// Kafka checks every partition; here, when the broker's cached fetch
    /// sessions show every (partition, ISR follower) pair it leads caught up
    /// within `replica.lag.time.max.ms`, no partition can shrink and none is
    /// looked at (the count of those pairs is made by a walk once, then
    /// kept as requests and ISR writes change it). Otherwise every
    /// partition is checked, with each follower's last-caught-up time as
    /// its cached session gives it ([`DataPlane::caught_up_walk`]) or, when
    /// that is not within the lag, the later of it and what the leader
    /// recorded.
    pub(super) fn maybe_shrink_isr(&mut self, env: &mut Env, broker: BrokerId) {
        let now = env.now;
        let lag = env.config.replica_lag_time_max_ms;
        let Some(b) = env.brokers.get(&broker) else {
            return;
        };
        let incarnation = b.incarnation;
        if let Some(&(counted_in, slots)) = self.leader_slots.get(&broker) {
            let covered = counted_in == incarnation
                && !self.full_fetches_only
                && self.covered_slots(env, broker, lag) == slots;
            if covered {
                return;
            }
        }
        // The last walk found nothing, nothing but time has changed since,
        // and no pair can have passed the lag yet: this walk would find
        // nothing either (every follower's last-caught-up time it would
        // read is at least the one that walk read).
        let quiet = QuietWalk {
            incarnation,
            gens: self.walk_gens_of(broker),
            lag,
            until: SimTime::ZERO,
        };
        if self
            .quiet_walks
            .get(&broker)
            .is_some_and(|q| q.holds_at(&quiet, now))
            && self.skip_quiet_walk()
        {
            return;
        }
        let mut slots = 0;
        let mut shrinks = Vec::new();
        // The earliest last-caught-up time read of a pair that stays.
        let mut earliest = SimTime(u64::MAX);
        let mut caught_up = self.caught_up_walk(broker, incarnation);
        for (tp, p) in &b.replicas {
            if p.leader != broker.0 as i32 {
                continue;
            }
            let mut out = BTreeSet::new();
            p.with_isr(|isr| {
                for r in isr.iter().copied().filter(|r| *r != broker) {
                    slots += 1;
                    // The follower's cached session, when it holds the
                    // partition and ran within the lag, is enough (its time
                    // can only be later than the one the leader recorded):
                    // the leader's view, a block of its own, is read only
                    // for the others.
                    let recent = |t: crate::time::SimTime| now.since(t) <= lag;
                    let t = caught_up.at(|| p.view.caught_up(&r), r, tp, recent);
                    match t {
                        Some(t) if now.since(t) <= lag => earliest = earliest.min(t),
                        _ => {
                            out.insert(r);
                        }
                    }
                }
            });
            if !out.is_empty() {
                shrinks.push((
                    tp.clone(),
                    p.isr()
                        .iter()
                        .copied()
                        .filter(|r| !out.contains(r))
                        .collect::<BrokerIds>(),
                ));
            }
        }
        self.leader_slots.insert(broker, (incarnation, slots));
        if shrinks.is_empty() {
            // The earliest moment a pair of this walk can pass the lag.
            let until = earliest.plus_ms(lag);
            self.quiet_walks
                .insert(broker, QuietWalk { until, ..quiet });
            return;
        }
        self.quiet_walks.remove(&broker);
        for (tp, isr) in shrinks {
            if self.write_isr(env, broker, &tp, isr) {
                self.changed_for(broker);
                env.out.isr_shrinks += 1;
                self.advance_hw(env, broker, &tp);
            }
        }
    }

    /// A walk a [`QuietWalk`] says would find nothing is skipped.
    #[cfg(not(test))]
    fn skip_quiet_walk(&mut self) -> bool {
        true
    }

    /// Tests: counted, and walked all the same when `walk_every_time`.
    #[cfg(test)]
    fn skip_quiet_walk(&mut self) -> bool {
        self.quiet_skips += 1;
        !self.walk_every_time
    }

    /// The (partition it leads, ISR follower) pairs of `broker` changed by
    /// `by`: its count, if it has one made in this start, follows; one made
    /// in an earlier start is dropped (the next `isr-expiration` counts
    /// again).
    pub(super) fn change_leader_slots(&mut self, env: &Env, broker: BrokerId, by: i64) {
        let incarnation = env.incarnation(broker);
        let Some((counted_in, slots)) = self.leader_slots.get_mut(&broker) else {
            return;
        };
        match slots.checked_add_signed(by) {
            Some(n) if *counted_in == incarnation => *slots = n,
            _ => {
                self.leader_slots.remove(&broker);
            }
        }
    }

    /// A leader writes a new ISR for a partition it leads (same leader epoch,
    /// conditional on its cached zkVersion; on a mismatch it skips, as
    /// Kafka 2.x's `Partition.updateIsr` does). Returns whether it wrote.
    /// A follower that leaves the ISR closes its session's cache (its rounds
    /// try to rejoin); the others replicate the partition next round.
    fn write_isr(
        &mut self,
        env: &mut Env,
        leader: BrokerId,
        tp: &TopicPartition,
        isr: BrokerIds,
    ) -> bool {
        let now = env.now;
        let Some(b) = env.brokers.get(&leader) else {
            return false;
        };
        let Some(session) = b.zk_client.session else {
            return false;
        };
        let Some(local) = b.replicas.get(tp) else {
            return false;
        };
        // What the write needs of the replica, read before it changes: its
        // replicas and old ISR in place (six ids: replication factor 3's).
        let (cached_zk_version, old) = (local.zk_version, local.isr());
        let replicas: BrokerIds = local
            .replicas()
            .iter()
            .copied()
            .chain(old.iter().copied())
            .collect();
        let before = local.led_slots(leader);
        let new = LeaderIsr {
            leader: Some(leader),
            leader_epoch: local.leader_epoch,
            isr: isr[..].into(),
            zk_version: local.zk_version,
            controller_epoch: local.controller_epoch,
        };
        let stat =
            match env
                .zk
                .set_partition_state(Some(session), None, tp, &new, Some(cached_zk_version))
            {
                Ok(stat) => stat,
                Err((_, e)) => {
                    env.out.note(
                        crate::trace::Label::numbered("broker-", leader.0),
                        "isr_update_skipped",
                        Fact::IsrUpdateSkipped {
                            tp: tp.clone(),
                            cached_zk_version,
                            error: e,
                        },
                    );
                    return false;
                }
            };
        let old = old.to_vec();
        let mut after = 0;
        if let Some(b) = env.brokers.get_mut(&leader) {
            if let Some(p) = b.replicas.get_mut(tp) {
                p.set_isr(&isr);
                p.zk_version = stat.version;
                after = p.led_slots(leader);
            }
            b.isr_change_set.insert(tp.clone());
            b.last_isr_change = now;
        }
        let kind = if isr.len() > old.len() {
            "isr_expanded"
        } else {
            "isr_shrunk_by_leader"
        };
        env.out.note(
            crate::trace::Label::numbered("broker-", leader.0),
            kind,
            Fact::LeaderUpdatedIsr {
                tp: tp.clone(),
                leader,
                old,
                isr: isr.to_vec(),
                zk_version: stat.version,
            },
        );
        self.change_leader_slots(env, leader, after as i64 - before as i64);
        for &r in replicas.iter() {
            if isr.contains(&r) {
                self.touch(leader, tp, &[r]);
            } else if r != leader {
                self.close_session_cache(env, leader, r);
            }
        }
        true
    }
}
