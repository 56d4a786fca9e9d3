//! A broker's ZooKeeper client (Kafka's ZooKeeperClient and KafkaZkClient).
//!
//! Kafka's client keeps a map of handlers by path and, on every read of a
//! path that has a handler, asks ZooKeeper to leave a watch. That is how the
//! one-shot watches are re-armed: a handler re-reads what changed. This
//! client does the same, so whether a watch is set follows from which
//! handlers are registered, never from a flag at the call site.

use crate::cost::Meter;
use crate::ids::SessionId;
use crate::zk::{Op, OpResult, Stat, Zk, ZkError, Znode};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The znode paths Kafka's handlers watch.
pub mod paths {
    /// `/controller`.
    pub const CONTROLLER: &str = "/controller";
    /// `/controller_epoch`.
    pub const CONTROLLER_EPOCH: &str = "/controller_epoch";
    /// `/brokers/ids`.
    pub const BROKER_IDS: &str = "/brokers/ids";
    /// `/brokers/topics`.
    pub const TOPICS: &str = "/brokers/topics";
    /// `/admin/delete_topics`.
    pub const DELETE_TOPICS: &str = "/admin/delete_topics";
    /// `/admin/reassign_partitions`.
    pub const REASSIGN_PARTITIONS: &str = "/admin/reassign_partitions";
    /// `/admin/preferred_replica_election`.
    pub const PREFERRED_REPLICA_ELECTION: &str = "/admin/preferred_replica_election";
    /// `/isr_change_notification`.
    pub const ISR_CHANGE_NOTIFICATION: &str = "/isr_change_notification";
    /// `/config/topics`.
    pub const CONFIG_TOPICS: &str = "/config/topics";
    /// `/config/changes`: where `config_change_<seq>` notifications go.
    pub const CONFIG_CHANGES: &str = "/config/changes";
    /// The prefix of a config change notification (persistent sequential).
    pub const CONFIG_CHANGE_PREFIX: &str = "/config/changes/config_change_";

    /// The persistent paths every broker creates at start-up
    /// (KafkaZkClient.createTopLevelPaths: ZkData.PersistentZkPaths in
    /// Kafka 2.4, in its order), whether or not this simulator uses them.
    pub const TOP_LEVEL: &[&str] = &[
        "/consumers",
        BROKER_IDS,
        TOPICS,
        CONFIG_CHANGES,
        DELETE_TOPICS,
        "/brokers/seqid",
        ISR_CHANGE_NOTIFICATION,
        "/latest_producer_id_block",
        "/log_dir_event_notification",
        CONFIG_TOPICS,
        "/config/clients",
        "/config/users",
        "/config/brokers",
    ];

    /// `/brokers/ids/<id>`.
    pub fn broker(id: crate::ids::BrokerId) -> String {
        format!("{BROKER_IDS}/{id}")
    }

    /// `/brokers/topics/<topic>`.
    pub fn topic(topic: &str) -> String {
        format!("{TOPICS}/{topic}")
    }

    /// `/brokers/topics/<topic>/partitions`, built piece by piece (the bytes
    /// `format!` wrote).
    pub fn partitions(topic: &str) -> String {
        let mut path = String::with_capacity(TOPICS.len() + topic.len() + 24);
        path.push_str(TOPICS);
        path.push('/');
        path.push_str(topic);
        path.push_str("/partitions");
        path
    }

    /// `/brokers/topics/<topic>/partitions/<p>/state`.
    pub fn partition_state(tp: &crate::ids::TopicPartition) -> String {
        // Written piece by piece (the same bytes as `format!`, a tenth of
        // the instructions): every state znode read and write names one.
        let topic: &str = &tp.topic;
        let mut path = String::with_capacity(TOPICS.len() + topic.len() + 28);
        path.push_str(TOPICS);
        path.push('/');
        path.push_str(topic);
        path.push_str("/partitions/");
        crate::znodes::push_int(&mut path, i64::from(tp.partition));
        path.push_str("/state");
        path
    }

    /// `/config/topics/<topic>`.
    pub fn topic_config(topic: &str) -> String {
        format!("{CONFIG_TOPICS}/{topic}")
    }
}

const TOPICS_SLASH: &str = "/brokers/topics/";
const PARTITIONS_SLASH: &str = "/partitions/";

/// One broker's client: its session and its registered handlers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZkClient {
    /// The current session, if connected.
    pub session: Option<SessionId>,
    /// Paths with a data/exists handler (`ZNodeChangeHandler`).
    pub data_handlers: BTreeSet<String>,
    /// Paths with a child handler (`ZNodeChildChangeHandler`).
    pub child_handlers: BTreeSet<String>,
    /// The controller event thread's clock for the event in progress: every
    /// read and write through this client is charged on it.
    #[serde(skip)]
    pub meter: Meter,
    /// Whether a data handler is registered under the last topic's
    /// partitions asked about by [`ZkClient::get_partition_state`]: a
    /// cache, forgotten by every change to `data_handlers` (made through
    /// the register and unregister methods only).
    #[serde(skip)]
    pub(crate) partition_handlers: PartitionHandlers,
}

/// [`ZkClient::partition_handlers`]: a cache, not state, so two clients
/// are equal whatever it holds.
#[derive(Debug, Clone, Default)]
pub(crate) struct PartitionHandlers(Option<(crate::ids::Topic, bool)>);

equal_whatever_it_holds!(PartitionHandlers);

impl ZkClient {
    fn data_watch(&self, path: &str) -> Option<SessionId> {
        self.session.filter(|_| self.data_handlers.contains(path))
    }

    fn child_watch(&self, path: &str) -> Option<SessionId> {
        self.session.filter(|_| self.child_handlers.contains(path))
    }

    fn live(&self, zk: &Zk) -> Result<SessionId, ZkError> {
        self.session
            .filter(|s| zk.is_alive(*s))
            .ok_or(ZkError::SessionExpired)
    }

    /// `getData`, watching if a handler is registered for the path.
    pub fn get_data(&mut self, zk: &mut Zk, path: &str) -> Result<(String, Stat), ZkError> {
        self.live(zk)?;
        self.meter.read();
        zk.get_data(path, self.data_watch(path))
    }

    /// [`ZkClient::get_data`] answered with the node itself ([`Zk::get_node`]).
    pub fn get_node<'z>(&mut self, zk: &'z mut Zk, path: &str) -> Result<&'z Znode, ZkError> {
        self.live(zk)?;
        self.meter.read();
        zk.get_node(path, self.data_watch(path))
    }

    /// [`ZkClient::get_node`] of a partition's state znode: its path is
    /// written out only when some handler is registered under the topic's
    /// `/brokers/topics/<topic>/partitions/` (one might be this path's, and
    /// the read then leaves a watch).
    pub fn get_partition_state<'z>(
        &mut self,
        zk: &'z mut Zk,
        tp: &crate::ids::TopicPartition,
    ) -> Result<&'z Znode, ZkError> {
        let any = match &self.partition_handlers.0 {
            Some((topic, any)) if *topic == tp.topic => *any,
            _ => {
                let any = self.has_partition_handler(&tp.topic);
                self.partition_handlers.0 = Some((tp.topic.clone(), any));
                any
            }
        };
        if any {
            return self.get_node(zk, &paths::partition_state(tp));
        }
        self.live(zk)?;
        self.meter.read();
        zk.get_partition_state(tp)
    }

    /// A `getData` without a watch whose answer the caller read off the
    /// tree in an ordered walk ([`Zk::cursor`]): checked, charged and
    /// counted as [`ZkClient::get_data`] would be.
    pub fn charge_read(&mut self, zk: &mut Zk) -> Result<(), ZkError> {
        self.live(zk)?;
        self.meter.read();
        zk.count_read();
        Ok(())
    }

    /// Whether a data handler is registered under a topic's
    /// `/brokers/topics/<topic>/partitions/` (the prefix written on the
    /// stack, not the heap, for the names that fit).
    fn has_partition_handler(&self, topic: &str) -> bool {
        let mut buf = [0u8; 96];
        let mut at = 0;
        for part in [TOPICS_SLASH, topic, PARTITIONS_SLASH] {
            let Some(to) = buf.get_mut(at..at + part.len()) else {
                return self
                    .has_data_handler_under(&format!("{TOPICS_SLASH}{topic}{PARTITIONS_SLASH}"));
            };
            to.copy_from_slice(part.as_bytes());
            at += part.len();
        }
        match std::str::from_utf8(buf.get(..at).unwrap_or(&[])) {
            Ok(prefix) => self.has_data_handler_under(prefix),
            Err(_) => {
                self.has_data_handler_under(&format!("{TOPICS_SLASH}{topic}{PARTITIONS_SLASH}"))
            }
        }
    }

    /// Whether a data handler is registered for some path starting with
    /// `prefix` (a read there may leave a watch).
    pub fn has_data_handler_under(&self, prefix: &str) -> bool {
        use std::ops::Bound;
        self.data_handlers
            .range::<str, _>((Bound::Included(prefix), Bound::Unbounded))
            .next()
            .is_some_and(|p| p.starts_with(prefix))
    }

    /// `exists`, watching if a handler is registered for the path.
    pub fn exists(&mut self, zk: &mut Zk, path: &str) -> Result<Option<Stat>, ZkError> {
        self.live(zk)?;
        self.meter.read();
        zk.exists(path, self.data_watch(path))
    }

    /// `getChildren`, watching if a child handler is registered for the path.
    pub fn get_children(&mut self, zk: &mut Zk, path: &str) -> Result<Vec<String>, ZkError> {
        self.live(zk)?;
        self.meter.read();
        zk.get_children(path, self.child_watch(path))
    }

    /// A multi-op in this client's session.
    pub fn multi(&mut self, zk: &mut Zk, ops: &[Op]) -> Result<Vec<OpResult>, (usize, ZkError)> {
        self.write_in_session(zk, |zk, s| zk.multi(Some(s), ops))
    }

    /// [`Zk::set_partition_state`] in this client's session: a multi-op of
    /// a check of `check` (if given) and a partition's state set to `l`.
    pub(crate) fn set_partition_state(
        &mut self,
        zk: &mut Zk,
        check: Option<(&str, i32)>,
        tp: &crate::ids::TopicPartition,
        l: &crate::znodes::LeaderIsr,
        version: Option<i32>,
    ) -> Result<Stat, (usize, ZkError)> {
        self.write_in_session(zk, |zk, s| {
            zk.set_partition_state(Some(s), check, tp, l, version)
        })
    }

    /// One write request in this client's session, made as far into its
    /// writer's work as this client's meter has come.
    fn write_in_session<T>(
        &mut self,
        zk: &mut Zk,
        write: impl FnOnce(&mut Zk, SessionId) -> Result<T, (usize, ZkError)>,
    ) -> Result<T, (usize, ZkError)> {
        let s = self.live(zk).map_err(|e| (0, e))?;
        self.meter.write();
        // Watches this write fires go out when the event thread reaches it.
        zk.set_op_offset_us(self.meter.elapsed_us);
        let r = write(zk, s);
        zk.set_op_offset_us(0);
        r
    }

    /// One write in this client's session.
    pub fn write(&mut self, zk: &mut Zk, op: Op) -> Result<OpResult, ZkError> {
        let mut r = self.multi(zk, &[op]).map_err(|(_, e)| e)?;
        r.pop().ok_or(ZkError::BadArguments)
    }

    /// `registerZNodeChangeHandler` for `path`.
    pub fn register_data_handler(&mut self, path: &str) {
        self.partition_handlers.0 = None;
        self.data_handlers.insert(path.to_string());
    }

    /// `registerZNodeChildChangeHandler` for `path`.
    pub fn register_child_handler(&mut self, path: &str) {
        self.child_handlers.insert(path.to_string());
    }

    /// `unregisterZNodeChangeHandler`.
    pub fn unregister_data_handler(&mut self, path: &str) {
        self.partition_handlers.0 = None;
        self.data_handlers.remove(path);
    }

    /// `unregisterZNodeChildChangeHandler`.
    pub fn unregister_child_handler(&mut self, path: &str) {
        self.child_handlers.remove(path);
    }

    /// Whether a notification for `path` has a handler to go to.
    pub fn handles(&self, path: &str, child: bool) -> bool {
        if child {
            self.child_handlers.contains(path)
        } else {
            self.data_handlers.contains(path)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::TopicPartition;
    use crate::time::SimTime;
    use crate::zk::CreateMode;

    // Kafka: KafkaZkClient.getTopicPartitionStates is a getData of each
    // state znode, which leaves a watch only where a handler is registered
    // for the path (ZooKeeperClient re-arms watches through its handlers).
    // The read by topic and partition must answer, charge, count and watch
    // exactly as the read of the written path does.
    #[test]
    fn a_state_read_by_partition_is_the_read_of_its_path() {
        let mut zk = Zk::new();
        let session = zk.open_session(SimTime::ZERO, 6_000);
        let tps: Vec<TopicPartition> = ["t", "a-b", "a-very-long-topic-name-indeed"]
            .iter()
            .flat_map(|t| (0..12).map(move |p| TopicPartition::new(*t, p)))
            .collect();
        for tp in tps.iter().filter(|tp| tp.partition % 4 != 3) {
            zk.create_recursive(
                None,
                &paths::partition_state(tp),
                &format!("s{}", tp.partition),
                CreateMode::Persistent,
            )
            .unwrap();
        }
        for handler in [None, Some(&tps[5]), Some(&tps[30]), Some(&tps[13])] {
            let mut by_path = ZkClient {
                session: Some(session),
                ..ZkClient::default()
            };
            // A topic's own znode's handler (the controller's) is not one
            // of its partitions'.
            by_path.register_data_handler(&paths::topic("t"));
            let mut by_key = by_path.clone();
            let (mut a, mut b) = (zk.clone(), zk.clone());
            // Each read once before the handler is registered, twice while
            // it is, once after it is gone (the cache follows the handlers).
            for round in 0..4 {
                for client in [&mut by_path, &mut by_key] {
                    match (round, handler) {
                        (1, Some(tp)) => client.register_data_handler(&paths::partition_state(tp)),
                        (3, Some(tp)) => {
                            client.unregister_data_handler(&paths::partition_state(tp))
                        }
                        _ => {}
                    }
                }
                for tp in &tps {
                    let one = by_path
                        .get_node(&mut a, &paths::partition_state(tp))
                        .cloned();
                    let two = by_key.get_partition_state(&mut b, tp).cloned();
                    assert_eq!(one, two, "{tp}");
                    assert_eq!(a.watches(), b.watches(), "{tp}");
                }
            }
            assert_eq!(a.counters(), b.counters());
            assert_eq!(a.watches(), b.watches());
            assert_eq!(by_path.meter.reads, by_key.meter.reads);
            assert_eq!(handler.is_some(), !b.watches().is_empty());
        }
        // A session that is over reads nothing.
        zk.expire_session(session).unwrap();
        let mut client = ZkClient {
            session: Some(session),
            ..ZkClient::default()
        };
        assert_eq!(
            client.get_partition_state(&mut zk, &tps[0]).err(),
            Some(ZkError::SessionExpired)
        );
    }
}
