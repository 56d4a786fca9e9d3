//! Kafka's `ReplicaFetcherThread` (and `AbstractFetcherThread`): one fetch
//! session per (follower, leader broker) pair, a round every
//! `replica.fetch.wait.max.ms` or at once when the leader gets new records,
//! slowed by a `slow_broker` fault; each round truncates the follower to
//! where its log agrees with the leader's (what OffsetsForLeaderEpoch finds)
//! and copies the rest.

use super::partition::FollowerFetch;
use super::{DataPlane, Env, FollowUp, FETCH_WAIT_MAX_MS};
use crate::broker::BrokerStatus;
use crate::ids::{BrokerId, TopicPartition};

impl DataPlane {
    /// Make sure `follower` has a fetch round from `leader` coming, at the
    /// latest after `rtt_factor` network hops. A slowed (or cut-off) follower
    /// waits its extra lag first, its first round included: a follower that
    /// cannot fetch does not fetch once just because it starts following a
    /// new leader.
    pub(super) fn ensure_fetch_session(
        &mut self,
        env: &mut Env,
        follower: BrokerId,
        leader: BrokerId,
        rtt_factor: u64,
    ) {
        let lag = self.slow_lag(follower);
        let at = env
            .now
            .plus_ms((env.config.sim_network_latency_ms * rtt_factor + 1).saturating_add(lag));
        match self.fetch_sessions.get(&(follower, leader)) {
            Some(t) if *t <= at => {}
            _ => {
                self.fetch_sessions.insert((follower, leader), at);
                env.out.schedule(at, FollowUp::Fetch { follower, leader });
            }
        }
    }

    /// One fetch round of `follower` from `leader` for every partition it follows there.
    pub fn fetch(&mut self, env: &mut Env, follower: BrokerId, leader: BrokerId) {
        let now = env.now;
        if self.fetch_sessions.get(&(follower, leader)) != Some(&now) {
            return; // superseded by a sooner or later round
        }
        let Some(f) = env.brokers.get(&follower).filter(|b| b.is_up()) else {
            self.fetch_sessions.remove(&(follower, leader));
            return;
        };
        let following: Vec<TopicPartition> = f
            .replicas
            .iter()
            .filter(|(_, p)| p.leader == leader.0 as i32)
            .map(|(tp, _)| tp.clone())
            .collect();
        if following.is_empty() {
            self.fetch_sessions.remove(&(follower, leader));
            return;
        }
        let leader_up = env.brokers.get(&leader).is_some_and(|b| match b.status {
            BrokerStatus::Running | BrokerStatus::ShuttingDown => true,
            BrokerStatus::Starting | BrokerStatus::Paused | BrokerStatus::Dead => false,
        });
        if leader_up {
            for tp in &following {
                self.replicate(env, follower, leader, tp);
            }
        }
        let lag = self.slow_lag(follower);
        let next = now.plus_ms(FETCH_WAIT_MAX_MS.saturating_add(lag));
        self.fetch_sessions.insert((follower, leader), next);
        env.out.schedule(next, FollowUp::Fetch { follower, leader });
    }

    /// Bring `follower`'s log of `tp` level with `leader`'s, and tell the leader.
    fn replicate(
        &mut self,
        env: &mut Env,
        follower: BrokerId,
        leader: BrokerId,
        tp: &TopicPartition,
    ) {
        let leads = env
            .brokers
            .get(&leader)
            .and_then(|b| b.replicas.get(tp))
            .is_some_and(|p| p.leader == leader.0 as i32);
        if !leads {
            return;
        }
        let lkey = (leader, tp.clone());
        let fkey = (follower, tp.clone());
        let (leader_leo, hw, leader_last) = match self.logs.get(&lkey) {
            Some(l) => (
                l.log_end_offset(),
                l.high_watermark,
                l.records.last().copied(),
            ),
            None => (0, 0, None),
        };
        let in_sync = self.logs.get(&fkey).is_some_and(|f| {
            f.log_end_offset() == leader_leo && f.records.last().copied() == leader_last
        });
        if !in_sync {
            // Truncate to where the logs agree, then copy what the leader has beyond.
            let leader_log = self.logs.get(&lkey).cloned().unwrap_or_default();
            let flog = self.logs.entry(fkey.clone()).or_default();
            let keep = flog.common_prefix(&leader_log);
            let dropped = flog.truncate_to(keep);
            flog.records
                .extend_from_slice(&leader_log.records[keep as usize..]);
            if !dropped.is_empty() {
                env.out.note(
                    format!("broker-{follower}"),
                    "log_truncated",
                    crate::fact::Fact::LogTruncated {
                        tp: tp.clone(),
                        follower,
                        dropped: dropped.len() as u64,
                        offset: keep,
                        leader,
                    },
                );
            }
        }
        let flog = self.logs.entry(fkey).or_default();
        let leo = flog.log_end_offset();
        flog.high_watermark = flog.high_watermark.max(hw.min(leo));
        let fetched = FollowerFetch {
            follower,
            leo,
            leader_leo,
            leader_hw: hw,
        };
        self.follower_fetched(env, leader, tp, fetched);
    }
}
