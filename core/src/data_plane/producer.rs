//! The producer and the leader's side of a produce request
//! (`ReplicaManager.appendRecords`, `Partition.appendRecordsToLeader` with
//! its `min.insync.replicas` check for acks=all), and the ledger of every
//! record produced: acks=1 records are acknowledged at once, acks=all ones
//! when the high watermark passes them (`DelayedProduce`), acks=0 ones never.

use super::{DataPlane, Env};
use crate::fact::Fact;
use crate::ids::{BrokerId, TopicPartition};
use crate::log::{Acks, LogRecord, ProducedRecord};
use crate::zk_client::paths;

impl DataPlane {
    /// A producer writes `count` records to the partition's leader;
    /// `leader` is the partition's leader per its state znode, which the
    /// producer's metadata names.
    pub fn produce(
        &mut self,
        env: &mut Env,
        tp: &TopicPartition,
        count: u64,
        acks: Acks,
        leader: Option<BrokerId>,
    ) {
        self.changed();
        let now = env.now;
        let serving = leader.filter(|l| {
            env.brokers.get(l).is_some_and(|b| {
                b.is_up() && b.replicas.get(tp).is_some_and(|p| p.leader == l.0 as i32)
            })
        });
        let Some(leader) = serving else {
            let fact = match leader {
                None => Fact::ProduceNoLeader { tp: tp.clone() },
                Some(broker) => Fact::ProduceNotLeader {
                    tp: tp.clone(),
                    broker,
                },
            };
            return env.out.note("producer", "produce_failed", fact);
        };
        let Some(local) = env
            .brokers
            .get(&leader)
            .and_then(|b| b.replicas.get(tp))
            .cloned()
        else {
            return;
        };
        if acks == Acks::All {
            let min_isr = min_insync_replicas(env, &tp.topic);
            if (local.isr_len() as u64) < min_isr {
                let fact = Fact::ProduceNotEnoughReplicas {
                    tp: tp.clone(),
                    isr: local.isr().to_vec(),
                    min_isr,
                };
                return env.out.note("producer", "produce_failed", fact);
            }
        }
        let log = self
            .logs
            .get_or_insert_with((leader, tp.clone()), Default::default);
        let first = log.log_end_offset();
        let mut new = Vec::new();
        for i in 0..count {
            let id = self.next_record_id + i;
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
                acked_at: match acks {
                    Acks::Leader => Some(now),
                    Acks::None | Acks::All => None,
                },
                lost: None,
            });
        }
        self.next_record_id += count;
        self.touch(leader, tp, local.replicas());
        self.produced.extend(new);
        env.out.note(
            "producer",
            "produced",
            Fact::Produced {
                count,
                tp: tp.clone(),
                leader,
                first,
                acks,
            },
        );
        self.advance_hw(env, leader, tp);
        // Followers waiting in a fetch at the leader are answered at once.
        let followers: Vec<BrokerId> = local
            .replicas()
            .iter()
            .copied()
            .filter(|r| *r != leader)
            .collect();
        for f in followers {
            if self.slow_lag(f) == 0 && self.fetch_sessions.contains_key(&(f, leader)) {
                self.ensure_fetch_session(env, f, leader, 1);
            }
        }
    }
}

/// `min.insync.replicas` for a topic: its override, or the cluster's.
fn min_insync_replicas(env: &Env, topic: &str) -> u64 {
    env.zk
        .node(&paths::topic_config(topic))
        .and_then(|n| serde_json::from_str::<serde_json::Value>(&n.data.text()).ok())
        .and_then(|v| {
            v.get("config")?
                .get("min.insync.replicas")
                .and_then(crate::config::parse_u64)
        })
        .unwrap_or(env.config.min_insync_replicas)
}
