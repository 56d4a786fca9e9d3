//! Kafka's `KafkaZkClient`: the broker's and the controller's ZooKeeper
//! operations, each over a broker's [`ZkClient`] and the ensemble ([`Zk`]),
//! taking what it needs as arguments. The broker registers itself here
//! (`registerBroker`); the controller elects itself
//! (`registerControllerAndIncrementControllerEpoch`), fences its writes by
//! the `/controller_epoch` version and reads brokers and partition states.
//! The znode data they read and write is encoded in [`crate::znodes`].

use crate::ids::{decimal, BrokerId, TopicPartition};
use crate::time::SimTime;
use crate::vec_map::VecMap;
use crate::zk::{CreateMode, Op, OpResult, Zk, ZkError};
use crate::zk_client::{paths, ZkClient};
use crate::znodes::{broker_znode_json, controller_znode_json, parse_controller_id, LeaderIsr};
use serde::{Deserialize, Serialize};

/// Why a controller operation stopped: what KafkaZkClient raises.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum ControllerError {
    /// Another controller bumped `/controller_epoch` (Kafka's ControllerMovedException).
    #[error("ControllerMovedException: {0}")]
    ControllerMoved(String),
    /// A ZooKeeper error the handler did not expect.
    #[error("KeeperException: {0}")]
    Zk(#[from] ZkError),
}

/// `registerBroker`: a checked ephemeral create of `/brokers/ids/<id>`.
/// Returns the broker epoch (the node's czxid). A node left by another,
/// still-live session is `NodeExists`, as in Kafka 2.x, where the broker then
/// fails to start.
pub fn register_broker(
    client: &mut ZkClient,
    zk: &mut Zk,
    id: BrokerId,
    now: SimTime,
) -> Result<i64, ZkError> {
    let path = paths::broker(id);
    let op = Op::Create {
        path: path.clone(),
        data: broker_znode_json(id, now.as_ms()),
        mode: CreateMode::Ephemeral,
    };
    match client.write(zk, op) {
        Ok(OpResult::Created(_)) => {}
        Ok(_) => return Err(ZkError::BadArguments),
        Err(ZkError::NodeExists) => {
            let owned_by_us = zk
                .node(&path)
                .is_some_and(|n| n.stat.ephemeral_owner() == client.session);
            if !owned_by_us {
                return Err(ZkError::NodeExists);
            }
        }
        Err(e) => return Err(e),
    }
    zk.node(&path).map(|n| n.stat.czxid).ok_or(ZkError::NoNode)
}

/// `getControllerId`: read `/controller` (re-arming the watch when a handler
/// is registered); `None` when there is no controller.
pub fn get_controller_id(client: &mut ZkClient, zk: &mut Zk) -> Result<Option<BrokerId>, ZkError> {
    match client.get_node(zk, paths::CONTROLLER) {
        Ok(node) => Ok(parse_controller_id(&node.data.text())),
        Err(ZkError::NoNode) => Ok(None),
        Err(e) => Err(e),
    }
}

/// `registerControllerAndIncrementControllerEpoch`: create `/controller` for
/// `me` and bump `/controller_epoch` in one multi. Returns the new epoch and
/// the epoch znode's version (the fencing token).
pub fn register_controller_and_increment_epoch(
    client: &mut ZkClient,
    zk: &mut Zk,
    me: BrokerId,
    now: SimTime,
) -> Result<(i32, i32), ControllerError> {
    let (cur_epoch, cur_version) = match client.get_data(zk, paths::CONTROLLER_EPOCH) {
        Ok((data, stat)) => (data.trim().parse::<i32>().unwrap_or(0), stat.version),
        Err(ZkError::NoNode) => {
            let create = Op::Create {
                path: paths::CONTROLLER_EPOCH.into(),
                data: "0".into(),
                mode: CreateMode::Persistent,
            };
            match client.write(zk, create) {
                Ok(_) => (0, 0),
                Err(ZkError::NodeExists) => {
                    let (data, stat) = client.get_data(zk, paths::CONTROLLER_EPOCH)?;
                    (data.trim().parse::<i32>().unwrap_or(0), stat.version)
                }
                Err(e) => return Err(e.into()),
            }
        }
        Err(e) => return Err(e.into()),
    };
    let new_epoch = cur_epoch + 1;
    let ops = [
        Op::Create {
            path: paths::CONTROLLER.into(),
            data: controller_znode_json(me, now.as_ms()),
            mode: CreateMode::Ephemeral,
        },
        Op::SetData {
            path: paths::CONTROLLER_EPOCH.into(),
            data: new_epoch.to_string(),
            version: Some(cur_version),
        },
    ];
    match client.multi(zk, &ops) {
        Ok(results) => match results.get(1) {
            Some(OpResult::SetData(stat)) => Ok((new_epoch, stat.version)),
            _ => Err(ZkError::BadArguments.into()),
        },
        Err((_, ZkError::NodeExists | ZkError::BadVersion)) => {
            // The check path: our multi may have committed with its reply lost.
            let owner = get_controller_id(client, zk)?;
            let (data, stat) = client.get_data(zk, paths::CONTROLLER_EPOCH)?;
            if owner == Some(me) && data.trim() == new_epoch.to_string() {
                Ok((new_epoch, stat.version))
            } else {
                Err(ControllerError::ControllerMoved(format!(
                    "controller moved to {} while broker {} tried to become controller with epoch {new_epoch}",
                    owner.map_or("nobody".into(), |b| format!("broker {b}")),
                    me
                )))
            }
        }
        Err((_, e)) => Err(e.into()),
    }
}

/// A controller write fenced by the `/controller_epoch` version
/// (KafkaZkClient.wrapRequestWithControllerEpochCheck).
pub fn fenced(
    client: &mut ZkClient,
    zk: &mut Zk,
    epoch_zk_version: i32,
    op: Op,
) -> Result<OpResult, ControllerError> {
    let check = Op::Check {
        path: paths::CONTROLLER_EPOCH.into(),
        version: epoch_zk_version,
    };
    match client.multi(zk, &[check, op]) {
        Ok(mut r) => r.pop().ok_or(ControllerError::Zk(ZkError::BadArguments)),
        Err(e) => Err(fence_failed(epoch_zk_version, e)),
    }
}

/// A partition's state znode set to `l` if its version is `l.zk_version`,
/// fenced as [`fenced`] fences a write (Kafka's `updateLeaderAndIsr`: a
/// `setData` of the state in a multi-op with the controller epoch's check):
/// that multi-op's result, without writing the path and the data out.
pub(crate) fn fenced_set_partition_state(
    client: &mut ZkClient,
    zk: &mut Zk,
    epoch_zk_version: i32,
    tp: &crate::ids::TopicPartition,
    l: &crate::znodes::LeaderIsr,
) -> Result<crate::zk::Stat, ControllerError> {
    let check = Some((paths::CONTROLLER_EPOCH, epoch_zk_version));
    client
        .set_partition_state(zk, check, tp, l, Some(l.zk_version))
        .map_err(|e| fence_failed(epoch_zk_version, e))
}

/// A fenced multi-op's failure: the controller moved if its first
/// operation, the epoch's check, failed on the version.
fn fence_failed(epoch_zk_version: i32, (at, e): (usize, ZkError)) -> ControllerError {
    match (at, e) {
        (0, ZkError::BadVersion) => ControllerError::ControllerMoved(format!(
            "controller epoch zkVersion check fails: expected zkVersion {epoch_zk_version}"
        )),
        (_, e) => e.into(),
    }
}

/// A fenced delete that treats a node already gone as done (the controller's
/// clean-up of notifications, admin requests and its own znodes).
pub fn fenced_delete(
    client: &mut ZkClient,
    zk: &mut Zk,
    epoch_zk_version: i32,
    path: String,
) -> Result<(), ControllerError> {
    match fenced(
        client,
        zk,
        epoch_zk_version,
        Op::Delete {
            path,
            version: None,
        },
    ) {
        Ok(_) | Err(ControllerError::Zk(ZkError::NoNode)) => Ok(()),
        Err(e) => Err(e),
    }
}

/// [`fenced_delete`] of each named child of `parent`, in order (Kafka's
/// `deleteIsrChangeNotifications`, `deleteTopicDeletions`: one fenced delete
/// per child, the first failure ends them).
pub fn fenced_delete_children<'a>(
    client: &mut ZkClient,
    zk: &mut Zk,
    epoch_zk_version: i32,
    parent: &str,
    names: impl IntoIterator<Item = &'a String>,
) -> Result<(), ControllerError> {
    for name in names {
        fenced_delete(client, zk, epoch_zk_version, format!("{parent}/{name}"))?;
    }
    Ok(())
}

/// `getAllBrokerAndEpochsInCluster`: every registered broker with its czxid.
pub fn read_brokers_with_epochs(
    client: &mut ZkClient,
    zk: &mut Zk,
) -> Result<VecMap<BrokerId, i64>, ZkError> {
    let mut out = VecMap::new();
    let children = client.get_children(zk, paths::BROKER_IDS)?;
    for id in crate::ids::broker_ids(&children) {
        if let Some(node) = zk.node(&paths::broker(id)) {
            out.insert(id, node.stat.czxid);
        }
    }
    Ok(out)
}

/// `getTopicPartitionStates` for one partition: its state znode (no watch),
/// `None` when it does not exist or does not decode.
pub fn read_leader_isr(
    client: &mut ZkClient,
    zk: &mut Zk,
    tp: &TopicPartition,
) -> Result<Option<LeaderIsr>, ZkError> {
    match client.get_partition_state(zk, tp) {
        Ok(node) => Ok(node.partition_state()),
        Err(ZkError::NoNode) => Ok(None),
        Err(e) => Err(e),
    }
}

/// `getTopicPartitionStates`: the state znodes of `tps` (each `None` as in
/// [`read_leader_isr`]), in the order asked. Kafka pipelines these reads;
/// here they are served as one ordered walk of the tree ([`peek_leader_isrs`])
/// and each is charged, counted and watched as a single read would be.
pub fn read_leader_isrs(
    client: &mut ZkClient,
    zk: &mut Zk,
    tps: &[TopicPartition],
) -> Result<Vec<Option<LeaderIsr>>, ZkError> {
    let mut out = peek_leader_isrs(zk, tps);
    let mut watched = StateHandlers::default();
    // Whether a read was charged: the session is then known to be alive,
    // and nothing in this loop ends it.
    let mut charged = false;
    for (tp, slot) in tps.iter().zip(out.iter_mut()) {
        let walked = slot.take();
        *slot = read_leader_isr_walked(client, zk, tp, walked, &mut watched, &mut charged)?;
    }
    Ok(out)
}

/// Whether the client has data handlers on a topic's state znodes,
/// remembered for the last topic asked about.
#[derive(Debug, Default)]
struct StateHandlers(Option<(crate::ids::Topic, bool)>);

impl StateHandlers {
    fn any(&mut self, client: &ZkClient, topic: &crate::ids::Topic) -> bool {
        match &self.0 {
            Some((t, any)) if t == topic => *any,
            _ => {
                let prefix = format!("{}/{topic}/partitions/", paths::TOPICS);
                let any = client.has_data_handler_under(&prefix);
                self.0 = Some((topic.clone(), any));
                any
            }
        }
    }
}

/// [`read_leader_isr`] of a partition whose state znode was read off the
/// tree by [`peek_leader_isrs`] (`walked`) since the last write to it: the
/// read is charged and counted, and made for real only where a handler
/// would leave a watch.
///
/// `charged`: whether an earlier read of the same batch was charged (the
/// session was alive, and still is): this one is then charged and counted
/// without looking the session up again (what [`ZkClient::charge_read`]
/// does after that look-up).
fn read_leader_isr_walked(
    client: &mut ZkClient,
    zk: &mut Zk,
    tp: &TopicPartition,
    walked: Option<LeaderIsr>,
    handlers: &mut StateHandlers,
    charged: &mut bool,
) -> Result<Option<LeaderIsr>, ZkError> {
    if handlers.any(client, &tp.topic) {
        return read_leader_isr(client, zk, tp);
    }
    if *charged {
        client.meter.read();
        zk.count_read();
    } else {
        client.charge_read(zk)?;
        *charged = true;
    }
    Ok(walked)
}

/// The state znodes of `tps` as they are now, in the order asked, read in
/// one walk of the tree in path order: not charged, counted or watched
/// (see [`read_leader_isrs`]).
pub fn peek_leader_isrs(zk: &Zk, tps: &[TopicPartition]) -> Vec<Option<LeaderIsr>> {
    let order = path_order_by_runs(tps).unwrap_or_else(|| path_order_by_sort(tps));
    let mut out = vec![None; tps.len()];
    let mut cursor = zk.cursor();
    for i in order {
        let tp = &tps[i];
        if let Some(node) = cursor.partition_state(tp.topic.as_str(), tp.partition) {
            out[i] = node.partition_state();
        }
    }
    out
}

/// The positions of `tps` in their state znodes' path order, when each topic
/// is asked for in one run of strictly increasing partitions no sparser than
/// [`DENSE`] (a controller asks for a topic's partitions in order): the runs
/// in their topics' path order, each run's partitions generated in the
/// order of their decimal digits as text. `None` otherwise.
fn path_order_by_runs(tps: &[TopicPartition]) -> Option<Vec<usize>> {
    // The first position of each topic's run, then the end.
    let mut starts: Vec<usize> = Vec::new();
    let mut start = 0;
    while start < tps.len() {
        starts.push(start);
        let topic = &tps[start].topic;
        let mut end = start + 1;
        while end < tps.len() && tps[end].topic == *topic {
            if tps[end].partition <= tps[end - 1].partition {
                return None;
            }
            end += 1;
        }
        if u64::from(tps[end - 1].partition) >= DENSE * (end - start) as u64 + 64 {
            return None;
        }
        start = end;
    }
    let topics = topics_in_path_order(tps);
    if topics.len() != starts.len() {
        // A topic in two runs.
        return None;
    }
    // The runs (their indexes in `starts`) in their topics' path order.
    let mut ranked = vec![0; starts.len()];
    for (k, &start) in starts.iter().enumerate() {
        ranked[topic_rank(&topics, &tps[start].topic)] = k;
    }
    starts.push(tps.len());
    let mut order = Vec::with_capacity(tps.len());
    // The position asked of each partition of the run, `usize::MAX` if none.
    let mut at: Vec<usize> = Vec::new();
    for k in ranked {
        let (start, end) = (starts[k], starts[k + 1]);
        let max = u64::from(tps[end - 1].partition);
        at.clear();
        at.resize(max as usize + 1, usize::MAX);
        for (i, tp) in tps.iter().enumerate().take(end).skip(start) {
            at[tp.partition as usize] = i;
        }
        // 0, then 1..=max in the order of their digits: 1, 10, 100, ..., 2, ...
        let mut n = 0u64;
        loop {
            let i = at[n as usize];
            if i != usize::MAX {
                order.push(i);
            }
            if n == 0 {
                if max == 0 {
                    break;
                }
                n = 1;
            } else if n * 10 <= max {
                n *= 10;
            } else {
                while n % 10 == 9 || n + 1 > max {
                    n /= 10;
                }
                if n == 0 {
                    break;
                }
                n += 1;
            }
        }
    }
    Some(order)
}

/// The topics of `tps`, each once, in their paths' order.
fn topics_in_path_order(tps: &[TopicPartition]) -> Vec<&crate::ids::Topic> {
    let mut topics: Vec<&crate::ids::Topic> = Vec::new();
    for tp in tps {
        if topics.last() != Some(&&tp.topic) {
            topics.push(&tp.topic);
        }
    }
    topics.sort_unstable_by(|a, b| topic_path_order(a, b));
    topics.dedup();
    topics
}

/// `topic`'s place in `topics` (from [`topics_in_path_order`]).
fn topic_rank(topics: &[&crate::ids::Topic], topic: &crate::ids::Topic) -> usize {
    topics
        .binary_search_by(|t| topic_path_order(t, topic))
        .unwrap_or(0)
}

/// How many partition numbers a run may span for each partition asked in
/// it, in [`path_order_by_runs`].
const DENSE: u64 = 4;

/// [`path_order_by_runs`] for any `tps`: sort keys in path order (the
/// topic's rank among the topics asked for, then the partition's decimal
/// digits as text).
fn path_order_by_sort(tps: &[TopicPartition]) -> Vec<usize> {
    let topics = topics_in_path_order(tps);
    let mut order: Vec<(u64, usize)> = Vec::with_capacity(tps.len());
    let mut last: Option<(&crate::ids::Topic, u64)> = None;
    for (i, tp) in tps.iter().enumerate() {
        let rank = match last {
            Some((t, r)) if *t == tp.topic => r,
            _ => {
                let r = topic_rank(&topics, &tp.topic) as u64;
                last = Some((&tp.topic, r));
                r
            }
        };
        order.push(((rank << 36) | decimal_text_key(tp.partition), i));
    }
    order.sort_unstable();
    let mut positions = Vec::with_capacity(order.len());
    for (_, i) in order {
        positions.push(i);
    }
    positions
}

/// A number (below 2^36) that orders as `n`'s decimal digits do as text:
/// the digits, each plus one, left-aligned in ten base-11 places.
fn decimal_text_key(n: u32) -> u64 {
    let mut buf = [0u8; 10];
    let digits = decimal(n, &mut buf).as_bytes();
    let mut key = 0u64;
    for place in 0..10 {
        key = key * 11 + digits.get(place).map_or(0, |d| u64::from(d - b'0') + 1);
    }
    key
}

/// The order of two topics' paths under `/brokers/topics/` as prefixes of
/// deeper paths: by `<topic>/` (a name with `-` or `.` sorts before its prefix).
fn topic_path_order(a: &crate::ids::Topic, b: &crate::ids::Topic) -> std::cmp::Ordering {
    if a == b {
        return std::cmp::Ordering::Equal;
    }
    let ta = a.as_str().bytes().chain(std::iter::once(b'/'));
    let tb = b.as_str().bytes().chain(std::iter::once(b'/'));
    ta.cmp(tb)
}

/// `getTopicDeletions`: the topics queued in `/admin/delete_topics` (re-arming
/// the child watch when its handler is registered).
pub fn get_topic_deletions(
    client: &mut ZkClient,
    zk: &mut Zk,
) -> Result<std::collections::BTreeSet<String>, ZkError> {
    Ok(client
        .get_children(zk, paths::DELETE_TOPICS)?
        .into_iter()
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::Topic;

    #[test]
    fn decimal_text_key_orders_as_the_digits_do() {
        let ns = [
            0u32,
            1,
            2,
            9,
            10,
            11,
            19,
            100,
            101,
            999,
            1000,
            12345,
            u32::MAX,
        ];
        for a in ns {
            for b in ns {
                assert_eq!(
                    decimal_text_key(a).cmp(&decimal_text_key(b)),
                    a.to_string().cmp(&b.to_string()),
                    "{a} {b}"
                );
            }
        }
        assert!(decimal_text_key(u32::MAX) < 1 << 36);
    }

    /// The order generated run by run is the sort's (the model), and the
    /// inputs it does not handle fall back to the sort.
    #[test]
    fn path_order_by_runs_is_the_sorts() {
        let names = ["b", "a", "a.c", "ab", "a-b"];
        let run = |name: &str, ps: &mut dyn Iterator<Item = u32>| -> Vec<TopicPartition> {
            let topic = Topic::from(name);
            ps.map(|p| TopicPartition::new(&topic, p)).collect()
        };
        let mut cases: Vec<Vec<TopicPartition>> = Vec::new();
        for max in [0u32, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 1234] {
            cases.push(run("t", &mut (0..=max)));
            cases.push(run("t", &mut (max / 2..=max + 3)));
            cases.push(run("t", &mut (0..=max).filter(|p| p % 3 != 1)));
        }
        let mut many = Vec::new();
        for (k, name) in names.iter().enumerate() {
            many.extend(run(name, &mut (0..=(k as u32 * 37)).filter(|p| p % 2 == 0)));
        }
        cases.push(many.clone());
        cases.push(Vec::new());
        for tps in &cases {
            let by_runs = path_order_by_runs(tps).expect("dense increasing runs");
            assert_eq!(by_runs, path_order_by_sort(tps));
            let mut seen = by_runs.clone();
            seen.sort_unstable();
            assert_eq!(seen, (0..tps.len()).collect::<Vec<_>>());
        }
        // Not in increasing order, a topic in two runs, too sparse.
        let mut back = run("t", &mut (0..10));
        back.swap(3, 4);
        let mut twice = run("t", &mut (0..5));
        twice.extend(run("u", &mut (0..5)));
        twice.extend(run("t", &mut (5..9)));
        let sparse = run("t", &mut [0, 1000].into_iter());
        let repeat = run("t", &mut [0, 1, 1].into_iter());
        for tps in [back, twice, sparse, repeat] {
            assert_eq!(path_order_by_runs(&tps), None);
        }
    }

    // Kafka: KafkaZkClient.getTopicPartitionStates reads every state znode
    // asked for, each as its own getData. ZooKeeper serves reads off its
    // path map; the batch must read exactly
    // what one read per partition would, whatever the order asked and
    // however topic names sort against their paths.
    #[test]
    fn peek_reads_what_single_reads_read() {
        let mut zk = Zk::new();
        let names = ["a", "a-b", "a.c", "ab", "b"];
        let mut tps = Vec::new();
        for (k, name) in names.iter().enumerate() {
            let topic = Topic::from(*name);
            for p in 0..23u32 {
                let tp = TopicPartition::new(&topic, p);
                // Some partitions have no state znode.
                if (p + k as u32) % 5 != 0 {
                    let l = LeaderIsr {
                        leader: Some(BrokerId(p % 3)),
                        leader_epoch: p as i32,
                        isr: vec![BrokerId(p % 3)].into(),
                        zk_version: 0,
                        controller_epoch: 1,
                    };
                    zk.create_recursive(
                        None,
                        &paths::partition_state(&tp),
                        &crate::znodes::encode_partition_state(&l),
                        CreateMode::Persistent,
                    )
                    .unwrap();
                }
                tps.push(tp);
            }
        }
        // Asked in several orders, with repeats and a partition never created.
        tps.push(TopicPartition::new(Topic::from("zz"), 4));
        let mut mixed = tps.clone();
        mixed.reverse();
        mixed.extend(tps.iter().step_by(3).cloned());
        for asked in [tps, mixed] {
            let one_by_one: Vec<Option<LeaderIsr>> = asked
                .iter()
                .map(|tp| {
                    let node = zk.node(&paths::partition_state(tp))?;
                    node.partition_state()
                })
                .collect();
            assert_eq!(peek_leader_isrs(&zk, &asked), one_by_one);
        }
    }

    // Kafka: getTopicPartitionStates is one getData per partition, each a
    // round trip on the controller's session, which must be alive.
    #[test]
    fn a_batch_of_state_reads_is_charged_and_counted_once_a_partition() {
        let mut zk = Zk::new();
        let tps: Vec<TopicPartition> = (0..5).map(|p| TopicPartition::new("t", p)).collect();
        for tp in &tps[..3] {
            let l = LeaderIsr {
                leader: Some(BrokerId(1)),
                leader_epoch: 2,
                isr: vec![BrokerId(1)].into(),
                zk_version: 0,
                controller_epoch: 1,
            };
            zk.create_recursive(
                None,
                &paths::partition_state(tp),
                &crate::znodes::encode_partition_state(&l),
                CreateMode::Persistent,
            )
            .unwrap();
        }
        let mut client = ZkClient {
            session: Some(zk.open_session(crate::time::SimTime::ZERO, 6_000)),
            ..ZkClient::default()
        };
        let before = zk.counters().reads;
        let read = read_leader_isrs(&mut client, &mut zk, &tps).unwrap();
        assert_eq!(read.iter().filter(|l| l.is_some()).count(), 3);
        assert_eq!(client.meter.reads, 5);
        assert_eq!(zk.counters().reads - before, 5);
        let mut one = ZkClient {
            session: client.session,
            ..ZkClient::default()
        };
        read_leader_isr(&mut one, &mut zk, &tps[0]).unwrap();
        assert_eq!(
            client.meter.elapsed_us,
            5 * one.meter.elapsed_us,
            "each read costs what a single read does"
        );
        // A dead session reads nothing.
        let Some(session) = client.session else {
            panic!("no session");
        };
        zk.expire_session(session).unwrap();
        assert_eq!(
            read_leader_isrs(&mut client, &mut zk, &tps),
            Err(ZkError::SessionExpired)
        );
        assert_eq!(client.meter.reads, 5, "nothing more charged");
    }
}
