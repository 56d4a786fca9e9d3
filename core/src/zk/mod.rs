//! A ZooKeeper ensemble, modelled as one consistent server.
//!
//! What is modelled: a tree of znodes with data, versions and creation zxids;
//! persistent, ephemeral and sequential nodes; sessions that expire or close
//! and take their ephemeral nodes with them; one-shot data, exists and child
//! watches; conditional writes on a version; and atomic multi-ops with a
//! version check (Kafka's `controllerEpochZkVersion` fence). Errors carry
//! ZooKeeper's own names.
//!
//! Simplified, on purpose: there is one server (no quorum, no leader election
//! inside ZooKeeper, no connection loss other than session expiry), and every
//! operation is applied at once. Latency between a client and the ensemble is
//! the simulator's business (`sim.rs`), not this module's.
//!
//! Reads, sessions and watches are here; the write path (multi-ops and their
//! rollback) is in `multi.rs`.

mod data;
mod multi;
mod observed;
mod path_key;

use crate::cow_map::CowMap;
use crate::ids::SessionId;
use crate::time::SimTime;
use crate::vec_map::VecMap;
pub use data::ZnodeData;
pub(crate) use path_key::{KeyTopic, PathKey};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

/// ZooKeeper's error codes, as `KeeperException.Code` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum ZkError {
    /// The node does not exist (`NONODE`).
    #[error("NoNode")]
    NoNode,
    /// The node already exists (`NODEEXISTS`).
    #[error("NodeExists")]
    NodeExists,
    /// The expected version does not match (`BADVERSION`).
    #[error("BadVersion")]
    BadVersion,
    /// The node has children and cannot be deleted (`NOTEMPTY`).
    #[error("NotEmpty")]
    NotEmpty,
    /// The caller's session has expired (`SESSIONEXPIRED`).
    #[error("SessionExpired")]
    SessionExpired,
    /// Ephemeral nodes cannot have children (`NOCHILDRENFOREPHEMERALS`).
    #[error("NoChildrenForEphemerals")]
    NoChildrenForEphemerals,
    /// The path is not a valid absolute path, or an ephemeral node was asked
    /// for without a session (`BADARGUMENTS`).
    #[error("BadArguments")]
    BadArguments,
}

/// How a node is created.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CreateMode {
    /// Stays until deleted.
    Persistent,
    /// Deleted when the owning session ends.
    Ephemeral,
    /// Persistent, with a 10-digit counter from the parent appended to the name.
    PersistentSequential,
    /// Ephemeral, with the counter appended as for `PersistentSequential`.
    EphemeralSequential,
}

/// A node's metadata, as ZooKeeper's `Stat` has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stat {
    /// The zxid of the transaction that created the node (Kafka's broker epoch).
    pub czxid: i64,
    /// The zxid of the last change to the node's data.
    pub mzxid: i64,
    /// The data version (`zkVersion` in Kafka), 0 at creation.
    pub version: i32,
    /// The number of changes to the node's children.
    pub cversion: i32,
    /// The owning session of an ephemeral node ([`Stat::ephemeral_owner`]):
    /// its id, 0 for none (ZooKeeper's own encoding; session ids start at 1),
    /// 8 bytes where an `Option<SessionId>` takes 16.
    #[serde(rename = "ephemeral_owner", with = "owner_serde")]
    owner: u64,
    /// When the node was created (`ctime`): virtual time in ms, read as
    /// ms since the epoch (the simulation starts at 1970-01-01 00:00:00 UTC).
    /// In 32 bits, 4 bytes a znode fewer: 49 days, where the page, scenario
    /// files, share links and lessons stop a run at a day and a minute (a
    /// soak replay's liveness bound can reach further; a later time is held
    /// as the latest these bits say: [`SimTime::as_ms_u32`]).
    #[serde(default)]
    pub ctime_ms: u32,
    /// When the node's data last changed (`mtime`), as `ctime_ms`.
    #[serde(default)]
    pub mtime_ms: u32,
    /// The zxid of the last change to the node's children (`pZxid`; its
    /// `czxid` until a child is created or deleted).
    #[serde(default)]
    pub pzxid: i64,
}

impl Stat {
    /// The owning session of an ephemeral node.
    pub fn ephemeral_owner(&self) -> Option<SessionId> {
        (self.owner != 0).then_some(SessionId(self.owner))
    }
}

/// `Stat::owner` serialized as the `Option<SessionId>` it stands for.
mod owner_serde {
    use crate::ids::SessionId;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(super) fn serialize<S: Serializer>(owner: &u64, s: S) -> Result<S::Ok, S::Error> {
        (*owner != 0).then_some(SessionId(*owner)).serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        Ok(Option::<SessionId>::deserialize(d)?.map_or(0, |s| s.0))
    }
}

const _: () = assert!(std::mem::size_of::<Stat>() == 48);

/// One znode. Its children are not stored in it: they are the nodes whose
/// paths extend its own by one name, read off the ensemble's sorted path map
/// ([`Zk::children`]), as ZooKeeper's `DataNode` children set would list them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Znode {
    /// The node's data (Kafka keeps text, mostly JSON, in every znode).
    pub data: ZnodeData,
    /// The node's metadata.
    pub stat: Stat,
}

impl Znode {
    /// The node read as a partition state znode: its data decoded with its
    /// data version as the state's `zkVersion`
    /// ([`ZnodeData::partition_state`]).
    pub fn partition_state(&self) -> Option<crate::znodes::LeaderIsr> {
        self.data.partition_state(self.stat.version)
    }
}

/// The most nodes a chunk of the ensemble's node map holds (maps elsewhere
/// hold up to 48): a state write after a copy of the ensemble (a timeline's
/// snapshot, a benchmark's settled cluster) copies its chunk, and most
/// writes of a fault touch a chunk of their own.
const NODE_CHUNK: usize = 16;

/// The names of a node's children, in order (ZooKeeper's `getChildren`
/// order here: by name), read off the sorted path map ([`Zk::children`]).
#[derive(Debug, Clone)]
pub struct Children<'a> {
    nodes: &'a CowMap<PathKey, Znode, NODE_CHUNK>,
    /// The parent's path with its trailing `/`.
    prefix: String,
    /// Where the next child is looked for (a path, exclusive or inclusive).
    from: std::ops::Bound<PathKey>,
    done: bool,
}

impl<'a> Iterator for Children<'a> {
    type Item = Cow<'a, str>;

    fn next(&mut self) -> Option<Cow<'a, str>> {
        use std::ops::Bound;
        while !self.done {
            let nodes: &'a CowMap<PathKey, Znode, NODE_CHUNK> = self.nodes;
            let Some((key, _)) = nodes.range_from::<PathKey>(self.from.as_ref()).next() else {
                break;
            };
            let text = key.text();
            let Some(rest) = text.strip_prefix(self.prefix.as_str()) else {
                break;
            };
            match rest.find('/') {
                // A deeper node: under a child already listed (a node's
                // parent sorts before it); skip that child's whole subtree,
                // the paths from `<child>/` up to `<child>0` ('0' follows '/').
                Some(i) => {
                    let mut skip = String::with_capacity(self.prefix.len() + i + 1);
                    skip.push_str(&self.prefix);
                    skip.push_str(&rest[..i]);
                    skip.push('0');
                    self.from = Bound::Included(PathKey::from(skip.as_str()));
                }
                None => {
                    let name = match text {
                        Cow::Borrowed(t) => Cow::Borrowed(&t[self.prefix.len()..]),
                        Cow::Owned(ref t) => Cow::Owned(t[self.prefix.len()..].to_string()),
                    };
                    self.from = Bound::Excluded(key.clone());
                    return Some(name);
                }
            }
        }
        self.done = true;
        None
    }
}

/// Lookups of many nodes as one walk of the sorted path map (how this
/// ensemble serves a batch of pipelined reads, such as Kafka's
/// `getTopicPartitionStates`): a lookup at or after the previous one steps
/// forward from where that one ended, and one far ahead is searched for from
/// there (a slice of a large topic's partitions by number is sparse in path
/// order); one before it is a fresh search. Reads as [`Zk::node`] does: no
/// watch, not counted.
#[derive(Debug, Clone)]
pub struct NodeCursor<'a> {
    nodes: &'a CowMap<PathKey, Znode, NODE_CHUNK>,
    /// Positioned at the first path at or after `at` (`None` before the first lookup).
    iter: Option<std::iter::Peekable<crate::cow_map::Iter<'a, PathKey, Znode>>>,
    /// The path last looked up.
    at: Option<PathKey>,
    /// The topic of the last [`NodeCursor::partition_state`], its keys'
    /// part (`None`: none yet, or not held as a partition key).
    topic: Option<path_key::TopicKey>,
    /// Where the last search found its path ([`CowMap::range_from_hinted`]):
    /// a lookup too far ahead to step to is searched for from there.
    hint: std::cell::Cell<(usize, usize)>,
}

impl<'a> NodeCursor<'a> {
    /// How many paths a lookup steps over before searching afresh (a
    /// partition's state znode is two paths after the one before it).
    const STEPS: usize = 8;

    /// The node at `path`, if any.
    pub fn get(&mut self, path: &str) -> Option<&'a Znode> {
        self.get_key(PathKey::from(path))
    }

    /// The state znode of a topic's partition
    /// (`/brokers/topics/<topic>/partitions/<partition>/state`), if any:
    /// [`NodeCursor::get`] of that path, without writing it out.
    pub fn partition_state(&mut self, topic: &str, partition: u32) -> Option<&'a Znode> {
        // The topic's part of the key made once for its run of partitions.
        if !self.topic.is_some_and(|t| t.is(topic)) {
            self.topic = path_key::TopicKey::new(topic);
        }
        let key = self
            .topic
            .and_then(|t| t.partition(partition, true))
            .unwrap_or_else(|| partition_state_key(topic, partition));
        self.get_key(key)
    }

    fn get_key(&mut self, key: PathKey) -> Option<&'a Znode> {
        let mut found = None;
        let mut walked = false;
        let ahead = self.at.as_ref().is_some_and(|at| key >= *at);
        if let Some(iter) = self.iter.as_mut().filter(|_| ahead) {
            for _ in 0..Self::STEPS {
                // One comparison a step: before the path, or at it or past it.
                let Some((k, n)) = iter.peek() else {
                    walked = true;
                    break;
                };
                match (*k).cmp(&key) {
                    std::cmp::Ordering::Less => {
                        iter.next();
                    }
                    std::cmp::Ordering::Equal => {
                        walked = true;
                        found = Some(*n);
                        break;
                    }
                    std::cmp::Ordering::Greater => {
                        walked = true;
                        break;
                    }
                }
            }
        }
        if !walked {
            let mut iter = self.nodes.range_from_hinted(&key, &self.hint).peekable();
            found = iter.peek().and_then(|(k, n)| (**k == key).then_some(*n));
            self.iter = Some(iter);
        }
        self.at = Some(key);
        found
    }
}

/// What happened to a watched path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum WatchKind {
    /// A node appeared where an exists watch was set.
    NodeCreated,
    /// The node was deleted.
    NodeDeleted,
    /// The node's data changed.
    NodeDataChanged,
    /// A child was created or deleted.
    NodeChildrenChanged,
}

/// A watch notification, addressed to the session that set the watch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatchedEvent {
    /// The session that set the watch.
    pub session: SessionId,
    /// The watched path.
    pub path: String,
    /// What happened.
    pub kind: WatchKind,
    /// How far into the writer's work the change happened, in µs (a
    /// controller event's writes are spread over its run).
    #[serde(default)]
    pub offset_us: u64,
}

/// One operation of a multi-op.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Op {
    /// Create a node.
    Create {
        /// Path (for sequential nodes, the prefix).
        path: String,
        /// Data.
        data: String,
        /// Mode.
        mode: CreateMode,
    },
    /// Set a node's data if its version matches (`None`: any version).
    SetData {
        /// Path.
        path: String,
        /// New data.
        data: String,
        /// Expected version.
        version: Option<i32>,
    },
    /// Delete a node if its version matches (`None`: any version).
    Delete {
        /// Path.
        path: String,
        /// Expected version.
        version: Option<i32>,
    },
    /// Succeed only if the node exists with this version.
    Check {
        /// Path.
        path: String,
        /// Expected version.
        version: i32,
    },
}

/// The result of one successful operation of a multi-op.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum OpResult {
    /// The node was created at this path.
    Created(String),
    /// The data was set; the node's new stat.
    SetData(Stat),
    /// The node was deleted.
    Deleted,
    /// The check passed.
    Checked,
}

/// Where a session is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SessionState {
    /// Heartbeats arrive; the session is usable.
    Alive,
    /// The server expired it after `timeout_ms` without a heartbeat.
    Expired,
    /// The client closed it.
    Closed,
}

/// What clients have asked of the ensemble and what it sent back, counted
/// (the simulator's bookkeeping, not a ZooKeeper feature): the measure of
/// ZooKeeper load that `legacy::compare` puts side by side for the two
/// designs. Session expiry and heartbeats are not requests and not counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZkCounters {
    /// `getData`, `exists` and `getChildren` requests.
    pub reads: u64,
    /// Write requests: every create, setData, delete and multi-op, applied or refused.
    pub writes: u64,
    /// Watch notifications fired (one per session and watch).
    pub notifications: u64,
    /// Writes refused with `NodeExists` (a lost race to create a node).
    pub node_exists: u64,
    /// Writes refused with `BadVersion` (a conditional write that lost).
    pub bad_version: u64,
}

/// A client session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    /// The session id.
    pub id: SessionId,
    /// The negotiated timeout.
    pub timeout_ms: u64,
    /// When the server last heard from the client.
    pub last_heard: SimTime,
    /// Alive, expired or closed.
    pub state: SessionState,
    /// Ephemeral nodes this session owns.
    owned: BTreeSet<String>,
}

impl Session {
    /// When the server will expire this session if it hears nothing more.
    pub fn expires_at(&self) -> SimTime {
        self.last_heard.plus_ms(self.timeout_ms)
    }
}

/// The ensemble: a tree of znodes, sessions and watches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Zk {
    /// Every node by path, in path order; copies of the ensemble share
    /// them chunk by chunk ([`CowMap`]).
    nodes: CowMap<PathKey, Znode, NODE_CHUNK>,
    sessions: VecMap<SessionId, Session>,
    next_session: u64,
    zxid: i64,
    /// Data and exists watches: path → sessions.
    data_watches: BTreeMap<String, BTreeSet<SessionId>>,
    /// How many of `data_watches`' paths are a partition's (held as one
    /// [`PathKey::Partition`]): while none is (Kafka 2.x watches a state
    /// znode only while its partition is being reassigned), a write of a
    /// partition's state znode needs no watch lookup, so its path is not
    /// written out.
    #[serde(skip)]
    partition_watches: HeldCount,
    /// Child watches: path → sessions.
    child_watches: BTreeMap<String, BTreeSet<SessionId>>,
    /// Notifications fired and not yet collected by the simulator.
    fired: Vec<WatchedEvent>,
    /// Watch triggers of the multi-op being applied; they fire only if it commits.
    #[serde(skip)]
    /// With the path's key for data triggers (the changed paths by moment
    /// hold keys).
    triggers: Vec<(String, Option<PathKey>, Trigger)>,
    /// Paths whose data or existence changed since the last `take_changed`
    /// (their keys: the simulator reads a partition's off its numbers).
    #[serde(skip)]
    changed: Vec<PathKey>,
    /// How far into its writer's work the operation being applied is, in µs.
    #[serde(skip)]
    op_offset_us: u64,
    /// The ensemble's clock, as the simulator last set it.
    #[serde(default)]
    now: SimTime,
    /// Changes a writer made partway through its work that observers do not
    /// see yet: path → (when they see it, the node as it was before), in order.
    /// Compact because a Kafka-scale topic creation leaves hundreds of
    /// thousands of them for tens of seconds: the path in the key itself, the
    /// before-image boxed (a created node has none) in a list sized to what
    /// it holds (mostly one).
    #[serde(default)]
    pending: CowMap<PathKey, Befores>,
    /// How many of `pending`'s paths are not a partition's (see
    /// [`HeldCount`]): while none is, a lookup of such a path (the
    /// simulator's reads of `/controller` and `/controller_epoch` after every
    /// step) need not search `pending`.
    #[serde(skip)]
    pending_held: HeldCount,
    /// Whether each session is alive, by its id − 1 (ids are handed out in
    /// order from 1): `sessions`' states for [`Zk::is_alive`], which the
    /// simulator asks of every running broker's session after each quiet
    /// step. Used only while it covers every id handed out (not in a
    /// deserialized ensemble, which reads `sessions`).
    #[serde(skip)]
    alive: Alive,
    /// Changed paths to report once observers see them, by that moment, in
    /// the order they changed (a path changed twice at one moment is there
    /// twice). Also the index of `pending` by moment: every path given a
    /// before-image for a moment is among that moment's changed paths (a
    /// committed multi-op's paths with a before-image are those of its
    /// data triggers), so one list serves both.
    #[serde(default)]
    deferred_changed: CowMap<SimTime, Vec<PathKey>>,
    /// Moments with a pending change, each recorded with the zxid before
    /// its first transaction (every pending write's zxid is above it) if
    /// later than every moment recorded before ([`Zk::note_moment`]): the
    /// first moment's zxid is then the least, and a node last changed at or
    /// before it has no pending change, so observers see it without a search
    /// of `pending`. In time order, so each is added at the end and taken
    /// from the front. `None` in a copy or a deserialized ensemble until
    /// nothing is pending.
    #[serde(skip)]
    moment_zxids: MomentZxids,
    /// A transaction's list of inverses, kept empty between transactions
    /// for its room.
    #[serde(skip)]
    undo: UndoRoom,
    /// Moments at which pending changes become visible, not yet taken, in
    /// order and each once (a set, as a list: a writer's moments come in
    /// order, so each is added at the end).
    #[serde(default)]
    new_visible: Vec<SimTime>,
    /// How many times changes became visible to observers ([`Zk::set_now`]):
    /// with the zxid, what [`Zk::observed_stamp`] gives.
    #[serde(skip)]
    visible_flushes: Flushes,
    /// Requests and notifications so far.
    #[serde(default)]
    counters: Tally,
    /// Where the last hinted lookup in `nodes` found its path: a reader's
    /// `getData` of a state znode, then the write of it, then the
    /// bookkeeping of that write look up the same path one after another.
    #[serde(skip)]
    hint: Hint,
    /// The same for a multi-op's `check` (Kafka's `/controller_epoch`
    /// fence, one before every controller write), kept apart so that it
    /// does not push out the written path's.
    #[serde(skip)]
    check_hint: Hint,
    /// The same for paths other than a partition's, four of them chosen by
    /// the path's length: the simulator reads `/controller` and
    /// `/controller_epoch` after every step, between other lookups.
    #[serde(skip)]
    other_hints: [Hint; 4],
    /// Where each partition's znodes were last found in `nodes`, by a hash
    /// of the path ([`Places`]).
    #[serde(skip)]
    places: Places,
}

/// A position in a [`CowMap`] for [`CowMap::get_hinted`]: a cache, not
/// state (a stale one is never used: a hit needs the key itself), so two
/// ensembles are equal whatever their hints.
#[derive(Debug, Clone, Default)]
struct Hint(std::cell::Cell<(usize, usize)>);

equal_whatever_it_holds!(Hint);

/// Where the partitions' znodes (nearly every znode of a large cluster)
/// were last found in a [`CowMap`], each in the slot of its path's hash
/// ([`PathKey::partition_hash`]), so that looking one up again is one
/// comparison instead of a search: the controller reads and writes a state
/// znode, a leader writes its ISR, the simulator reads what observers see,
/// each by partition number, which in path order (`0, 1, 10, 100, …`) is
/// far from the last. A cache, not state: a place is used only if the entry
/// there has the key (after a change that moved entries, or when two paths
/// share a slot, the search runs and the slot is set again), so two
/// ensembles are equal whatever it holds, and copies of an ensemble (the
/// timeline's snapshots, the one restored from them) share one table: a
/// place one copy found is right for the others wherever their maps have
/// not moved apart, and checked anyway. The table has at least as many
/// slots as the map has entries (about 4 MiB at 200,000 partitions).
#[derive(Default, Clone)]
struct Places(std::rc::Rc<std::cell::Cell<Vec<(u32, u32)>>>);

impl std::fmt::Debug for Places {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Places")
    }
}

equal_whatever_it_holds!(Places);

/// A slot with no place: no chunk has this index.
const NO_PLACE: (u32, u32) = (u32::MAX, u32::MAX);

impl Places {
    /// The slot of `hash` in a table of `len` (a power of two) slots.
    fn slot(hash: u64, len: usize) -> usize {
        (hash >> (64 - len.trailing_zeros().max(1))) as usize & (len - 1)
    }

    /// Where the key of `hash` was last found, if anywhere.
    fn get(&self, hash: u64) -> Option<(usize, usize)> {
        let table = self.0.take();
        let place = table.get(Self::slot(hash, table.len().max(1))).copied();
        self.0.set(table);
        place
            .filter(|p| *p != NO_PLACE)
            .map(|(c, i)| (c as usize, i as usize))
    }

    /// Remember `place` for the key of `hash`, in a map of `entries`
    /// entries (the table grows, empty, to at least that many slots).
    fn set(&self, hash: u64, place: (usize, usize), entries: usize) {
        let mut table = self.0.take();
        if table.len() < entries {
            let len = entries.next_power_of_two().max(1024);
            table = vec![NO_PLACE; len];
        }
        let len = table.len();
        if let (Ok(c), Ok(i), Some(slot)) = (
            u32::try_from(place.0),
            u32::try_from(place.1),
            table.get_mut(Self::slot(hash, len)),
        ) {
            *slot = (c, i);
        }
        self.0.set(table);
    }
}

/// [`Zk::undo`]: empty between transactions (a copy gets none of its room),
/// so two ensembles are equal whatever it holds.
#[derive(Debug, Default)]
struct UndoRoom(Vec<multi::Undo>);

impl Clone for UndoRoom {
    fn clone(&self) -> UndoRoom {
        UndoRoom::default()
    }
}

equal_whatever_it_holds!(UndoRoom);

/// [`Zk::moment_zxids`]: derived from the history of writes, a cache, so
/// two ensembles are equal whatever it holds. A copy (a timeline's
/// snapshot) and a deserialized ensemble do not know it (`None`) until no
/// change is pending: a snapshot holds no list of its own.
#[derive(Debug, Default)]
struct MomentZxids(Option<std::collections::VecDeque<(SimTime, i64)>>);

impl MomentZxids {
    /// Known, with no moment: an ensemble with nothing pending.
    fn known() -> MomentZxids {
        MomentZxids(Some(std::collections::VecDeque::new()))
    }
}

impl Clone for MomentZxids {
    fn clone(&self) -> MomentZxids {
        MomentZxids(None)
    }
}

equal_whatever_it_holds!(MomentZxids);

/// [`Zk::visible_flushes`]: a count of work done, not state, so two
/// ensembles are equal whatever it holds. Each ensemble (each copy, and one
/// read back) counts from its own base, so that [`Zk::observed_stamp`] of
/// one never equals another's: a reader that keeps a value by the stamp
/// reads again after the ensemble was swapped for another, even one with
/// the same zxid.
#[derive(Debug)]
struct Flushes(u64);

/// How many ensembles' counts have been started (each from its number
/// times 2^32: four billion flushes apart).
static FLUSH_BASES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Default for Flushes {
    fn default() -> Flushes {
        let n = FLUSH_BASES.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        Flushes(n << 32)
    }
}

impl Clone for Flushes {
    fn clone(&self) -> Flushes {
        Flushes::default()
    }
}

equal_whatever_it_holds!(Flushes);

/// A count kept beside a map, or `None` when not known (a deserialized
/// ensemble's, until first needed): a cache, not state, so two ensembles are
/// equal whatever it holds.
#[derive(Debug, Clone, Default)]
struct HeldCount(std::cell::Cell<Option<usize>>);

equal_whatever_it_holds!(HeldCount);

impl HeldCount {
    /// The count, from `count` if not known.
    fn get(&self, count: impl FnOnce() -> usize) -> usize {
        match self.0.get() {
            Some(n) => n,
            None => {
                let n = count();
                self.0.set(Some(n));
                n
            }
        }
    }

    /// Not known any more (counted again when next needed).
    fn forget(&self) {
        self.0.set(None);
    }

    /// One more (`true`) or one fewer, if known.
    fn step(&self, up: bool) {
        if let Some(n) = self.0.get() {
            self.0
                .set(Some(if up { n + 1 } else { n.saturating_sub(1) }));
        }
    }
}

/// [`Zk::alive`]: a cache, not state, so two ensembles are equal whatever
/// it holds.
#[derive(Debug, Clone, Default)]
struct Alive(Vec<bool>);

equal_whatever_it_holds!(Alive);

impl Alive {
    /// Where session `id`'s flag is (ids are handed out from 1).
    fn slot(id: SessionId) -> Option<usize> {
        id.0.checked_sub(1).and_then(|i| usize::try_from(i).ok())
    }
}

/// What observers see of a path until a moment: the node as it was before
/// a change they do not see yet (`None`: there was none).
type BeforeImage = (SimTime, Option<Box<Znode>>);

/// A path's before-images, oldest first, never empty once made: one (a
/// path changed at one moment, nearly all of them) in place, more in a
/// boxed list. 24 bytes, as a `Vec`, without the `Vec`'s heap block.
/// Compares and serializes as the list.
#[derive(Debug, Clone)]
enum Befores {
    One(BeforeImage),
    Many(Box<[BeforeImage]>),
}

impl PartialEq for Befores {
    fn eq(&self, other: &Befores) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Befores {}

impl Befores {
    fn as_slice(&self) -> &[BeforeImage] {
        match self {
            Befores::One(b) => std::slice::from_ref(b),
            Befores::Many(v) => v,
        }
    }

    /// The oldest.
    fn first(&self) -> Option<&BeforeImage> {
        self.as_slice().first()
    }

    /// The newest's moment.
    fn last_at(&self) -> Option<SimTime> {
        self.as_slice().last().map(|(at, _)| *at)
    }

    /// Add a newer one.
    fn push(&mut self, b: BeforeImage) {
        let mut v = match std::mem::replace(self, Befores::Many(Box::new([]))) {
            Befores::One(first) => vec![first],
            Befores::Many(v) => v.into_vec(),
        };
        v.push(b);
        *self = Befores::Many(v.into_boxed_slice());
    }

    /// Drop those visible by `now`; whether any is left.
    fn retain_after(&mut self, now: SimTime) -> bool {
        match self {
            Befores::One((at, _)) => *at > now,
            Befores::Many(v) => {
                if v.iter().any(|(at, _)| *at <= now) {
                    let mut kept = std::mem::take(v).into_vec();
                    kept.retain(|(at, _)| *at > now);
                    *v = kept.into_boxed_slice();
                }
                !v.is_empty()
            }
        }
    }
}

impl Serialize for Befores {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Befores {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Befores, D::Error> {
        let mut v = Vec::<BeforeImage>::deserialize(d)?;
        Ok(match (v.len(), v.pop()) {
            (1, Some(b)) => Befores::One(b),
            (_, last) => {
                v.extend(last);
                Befores::Many(v.into_boxed_slice())
            }
        })
    }
}

/// The counters as a field of the ensemble: bookkeeping about it, not part
/// of its state, so two ensembles holding the same tree, sessions and
/// watches are equal whatever was asked of them (a refused multi-op leaves
/// the ensemble as it was).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
#[serde(transparent)]
struct Tally(ZkCounters);

equal_whatever_it_holds!(Tally);

impl std::ops::Deref for Tally {
    type Target = ZkCounters;
    fn deref(&self) -> &ZkCounters {
        &self.0
    }
}

impl std::ops::DerefMut for Tally {
    fn deref_mut(&mut self) -> &mut ZkCounters {
        &mut self.0
    }
}

/// Which watches a change triggers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trigger {
    /// Data/exists watches on the path, with this kind.
    Data(WatchKind),
    /// Child watches on the path itself, because it was deleted.
    ChildOfDeleted,
    /// Child watches on the path, because a child came or went.
    Children,
}

impl Default for Zk {
    fn default() -> Zk {
        Zk::new()
    }
}

fn parent_of(path: &str) -> Option<&str> {
    if path == "/" {
        return None;
    }
    match path.rfind('/') {
        Some(0) => Some("/"),
        Some(i) => Some(&path[..i]),
        None => None,
    }
}

/// The key of a partition's state znode, its path written out only when it
/// is not held as a partition key ([`PathKey::partition`]).
fn partition_state_key(topic: &str, partition: u32) -> PathKey {
    PathKey::partition(topic, partition, true).unwrap_or_else(|| {
        PathKey::from(format!("/brokers/topics/{topic}/partitions/{partition}/state").as_str())
    })
}

/// The topic whose state znode's key [`state_key_of`] made last, its part
/// of the keys (`None`: not held as numbers), and the last partition's
/// number and key.
type LastStateKey = Option<(crate::ids::Topic, Option<path_key::TopicKey>, u32, PathKey)>;

thread_local! {
    /// The controller reads a state znode and then writes it, and takes a
    /// topic's partitions one after another.
    static LAST_STATE_KEY: std::cell::RefCell<LastStateKey> = const { std::cell::RefCell::new(None) };
}

/// [`partition_state_key`] of `tp`, the topic's part made once for a run
/// of its partitions.
fn state_key_of(tp: &crate::ids::TopicPartition) -> PathKey {
    let make = |topic: Option<path_key::TopicKey>| {
        topic
            .and_then(|t| t.partition(tp.partition, true))
            .unwrap_or_else(|| partition_state_key(&tp.topic, tp.partition))
    };
    LAST_STATE_KEY.with(|last| {
        let mut last = last.borrow_mut();
        match last.as_mut().filter(|(topic, ..)| *topic == tp.topic) {
            Some((_, topic, partition, key)) => {
                if *partition != tp.partition {
                    *key = make(*topic);
                    *partition = tp.partition;
                }
                key.clone()
            }
            None => {
                let topic = path_key::TopicKey::new(&tp.topic);
                let key = make(topic);
                *last = Some((tp.topic.clone(), topic, tp.partition, key.clone()));
                key
            }
        }
    })
}

fn valid_path(path: &str) -> bool {
    path == "/" || (path.starts_with('/') && !path.ends_with('/') && !path.contains("//"))
}

fn join(parent: &str, name: &str) -> String {
    if parent == "/" {
        format!("/{name}")
    } else {
        format!("{parent}/{name}")
    }
}

impl Zk {
    /// An ensemble holding only the root node `/`.
    pub fn new() -> Zk {
        let root = Znode {
            data: ZnodeData::empty(),
            stat: Stat {
                czxid: 0,
                mzxid: 0,
                version: 0,
                cversion: 0,
                owner: 0,
                ctime_ms: 0,
                mtime_ms: 0,
                pzxid: 0,
            },
        };
        let mut nodes = CowMap::new();
        nodes.insert(PathKey::from("/"), root);
        Zk {
            nodes,
            sessions: VecMap::new(),
            next_session: 1,
            zxid: 0,
            data_watches: BTreeMap::new(),
            partition_watches: HeldCount(std::cell::Cell::new(Some(0))),
            child_watches: BTreeMap::new(),
            fired: Vec::new(),
            triggers: Vec::new(),
            changed: Vec::new(),
            op_offset_us: 0,
            now: SimTime::ZERO,
            pending: CowMap::new(),
            pending_held: HeldCount(std::cell::Cell::new(Some(0))),
            alive: Alive::default(),
            deferred_changed: CowMap::new(),
            moment_zxids: MomentZxids::known(),
            undo: UndoRoom::default(),
            new_visible: Vec::new(),
            visible_flushes: Flushes::default(),
            counters: Tally::default(),
            hint: Hint::default(),
            check_hint: Hint::default(),
            other_hints: Default::default(),
            places: Places::default(),
        }
    }

    /// How many znodes `other` does not share with this ensemble (all of
    /// them without `other`; see [`CowMap::unshared_entries`]).
    pub fn unshared_nodes(&self, other: Option<&Zk>) -> usize {
        self.nodes.unshared_entries(other.map(|o| &o.nodes))
    }

    /// The entries of the changes not yet visible to observers (each path's
    /// earlier versions, and the paths by the moment they become visible and
    /// by the moment they are reported) held in chunks `other` does not share
    /// (all of them without `other`). A controller's long event (creating
    /// 200,000 partitions) leaves hundreds of thousands of them for tens of
    /// seconds; a copy shares them chunk by chunk, as it shares the znodes.
    pub fn unshared_pending(&self, other: Option<&Zk>) -> usize {
        self.pending.unshared_entries(other.map(|o| &o.pending))
            + self
                .deferred_changed
                .unshared_entries(other.map(|o| &o.deferred_changed))
    }

    /// How many znodes exist.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Requests and notifications so far.
    pub fn counters(&self) -> ZkCounters {
        self.counters.0
    }

    // ----- sessions -------------------------------------------------------

    /// Open a session with the given timeout.
    pub fn open_session(&mut self, now: SimTime, timeout_ms: u64) -> SessionId {
        // From 1: a node's owner 0 is "none".
        let id = SessionId(self.next_session.max(1));
        self.next_session = id.0 + 1;
        if self.alive.0.len() as u64 + 1 == id.0 {
            self.alive.0.push(true);
        }
        self.sessions.insert(
            id,
            Session {
                id,
                timeout_ms,
                last_heard: now,
                state: SessionState::Alive,
                owned: BTreeSet::new(),
            },
        );
        id
    }

    /// The session with this id, if the ensemble ever knew it.
    pub fn session(&self, id: SessionId) -> Option<&Session> {
        self.sessions.get(&id)
    }

    /// All sessions, by id.
    pub fn sessions(&self) -> impl Iterator<Item = &Session> {
        self.sessions.values()
    }

    /// Whether the session is alive.
    pub fn is_alive(&self, id: SessionId) -> bool {
        let handed_out = self.next_session.saturating_sub(1);
        if handed_out > 0 && self.alive.0.len() as u64 == handed_out {
            return Alive::slot(id)
                .and_then(|i| self.alive.0.get(i))
                .is_some_and(|a| *a);
        }
        self.sessions
            .get(&id)
            .is_some_and(|s| s.state == SessionState::Alive)
    }

    /// A heartbeat from the client. Returns `SessionExpired` if the session is
    /// already over, which is how a client learns of its own expiry.
    pub fn heartbeat(&mut self, id: SessionId, now: SimTime) -> Result<(), ZkError> {
        match self.sessions.get_mut(&id) {
            Some(s) if s.state == SessionState::Alive => {
                s.last_heard = now;
                Ok(())
            }
            _ => Err(ZkError::SessionExpired),
        }
    }

    /// Expire the session: the server has not heard from it in time, or an
    /// operator forced it. Its ephemeral nodes go and its watches are dropped.
    pub fn expire_session(&mut self, id: SessionId) -> Result<(), ZkError> {
        self.end_session(id, SessionState::Expired)
    }

    /// Close the session cleanly, as a client does on a clean exit.
    pub fn close_session(&mut self, id: SessionId) -> Result<(), ZkError> {
        self.end_session(id, SessionState::Closed)
    }

    fn end_session(&mut self, id: SessionId, how: SessionState) -> Result<(), ZkError> {
        let owned = match self.sessions.get_mut(&id) {
            Some(s) if s.state == SessionState::Alive => {
                s.state = how;
                if let Some(a) = Alive::slot(id).and_then(|i| self.alive.0.get_mut(i)) {
                    *a = false;
                }
                std::mem::take(&mut s.owned)
            }
            _ => return Err(ZkError::SessionExpired),
        };
        // The session's own watches die with it, before its nodes are removed,
        // so it is not told about its own ephemeral nodes going away.
        for set in self
            .data_watches
            .values_mut()
            .chain(self.child_watches.values_mut())
        {
            set.remove(&id);
        }
        self.data_watches.retain(|_, s| !s.is_empty());
        self.partition_watches.forget();
        self.child_watches.retain(|_, s| !s.is_empty());
        for path in owned {
            self.zxid += 1;
            let _ = self.apply_delete(&path, None);
        }
        self.flush_triggers();
        Ok(())
    }

    /// Sessions still alive whose deadline is at or before `now`.
    pub fn sessions_due(&self, now: SimTime) -> Vec<SessionId> {
        self.sessions
            .values()
            .filter(|s| s.state == SessionState::Alive && s.expires_at() <= now)
            .map(|s| s.id)
            .collect()
    }

    fn check_session(&self, caller: Option<SessionId>) -> Result<(), ZkError> {
        match caller {
            None => Ok(()),
            Some(id) if self.is_alive(id) => Ok(()),
            Some(_) => Err(ZkError::SessionExpired),
        }
    }

    // ----- reads ----------------------------------------------------------

    /// The node at `path`, without setting a watch.
    pub fn node(&self, path: &str) -> Option<&Znode> {
        self.find(&PathKey::from(path))
    }

    /// The node of `key`: for a partition's path from where it was last
    /// found ([`Places`]), else as a hinted search finds it.
    fn find(&self, key: &PathKey) -> Option<&Znode> {
        let place = self.place_of(key, self.hint_of(key))?;
        self.nodes.get_at(key, place)
    }

    /// [`Zk::find`], to change (a write searches with the one hint of
    /// every key, `Zk::hint`).
    fn find_mut(&mut self, key: &PathKey) -> Option<&mut Znode> {
        let place = self.place_of(key, &self.hint.0)?;
        self.nodes.get_mut_at(key, place)
    }

    /// Where `key`'s node is in `nodes` ([`Zk::find`]); `hint` is left at it.
    fn place_of(
        &self,
        key: &PathKey,
        hint: &std::cell::Cell<(usize, usize)>,
    ) -> Option<(usize, usize)> {
        let Some(hash) = key.partition_hash() else {
            return self.nodes.locate_hinted(key, hint);
        };
        if let Some(place) = self.places.get(hash) {
            if self.nodes.get_at(key, place).is_some() {
                hint.set(place);
                return Some(place);
            }
        }
        let place = self.nodes.locate_hinted(key, hint)?;
        self.places.set(hash, place, self.nodes.len());
        Some(place)
    }

    /// The hint for lookups of `key` (see `Zk::hint`).
    fn hint_of(&self, key: &PathKey) -> &std::cell::Cell<(usize, usize)> {
        match key.held() {
            Some(path) => &self.other_hints[path.len() % 4].0,
            None => &self.hint.0,
        }
    }

    /// The names of the children of the node at `path` in the tree, in order
    /// (none if there is no such node), without setting a watch.
    pub fn children<'a>(&'a self, path: &str) -> Children<'a> {
        let prefix = if path == "/" {
            "/".to_string()
        } else {
            format!("{path}/")
        };
        Children {
            nodes: &self.nodes,
            from: std::ops::Bound::Excluded(PathKey::from(prefix.as_str())),
            prefix,
            done: !self.nodes.contains_key(&PathKey::from(path)),
        }
    }

    /// Whether the node at `path` has children.
    fn has_children(&self, path: &str) -> bool {
        self.children(path).next().is_some()
    }

    /// A cursor for looking up many nodes in path order ([`NodeCursor`]).
    pub fn cursor(&self) -> NodeCursor<'_> {
        NodeCursor {
            nodes: &self.nodes,
            iter: None,
            at: None,
            topic: None,
            hint: std::cell::Cell::new((0, 0)),
        }
    }

    /// Count a `getData` answered off a [`NodeCursor`] walk, as
    /// [`Zk::get_data`] counts one (a read without a watch).
    pub fn count_read(&mut self) {
        self.counters.reads += 1;
    }

    /// Every node, in path order.
    pub fn nodes(&self) -> impl Iterator<Item = (Cow<'_, str>, &Znode)> {
        self.nodes.iter().map(|(p, n)| (p.text(), n))
    }

    /// `getData`: the data and stat; with `watch`, a data watch is left for
    /// that session when the node exists.
    pub fn get_data(
        &mut self,
        path: &str,
        watch: Option<SessionId>,
    ) -> Result<(String, Stat), ZkError> {
        self.get_node(path, watch)
            .map(|node| (node.data.to_string(), node.stat))
    }

    /// [`Zk::get_data`] answered with the node itself, for a reader that
    /// decodes the data in place instead of taking a copy of it.
    pub fn get_node(&mut self, path: &str, watch: Option<SessionId>) -> Result<&Znode, ZkError> {
        self.counters.reads += 1;
        self.check_session(watch)?;
        let key = PathKey::from(path);
        // Found as `Zk::find` finds it; the watch is set only on a node.
        let place = self
            .place_of(&key, self.hint_of(&key))
            .ok_or(ZkError::NoNode)?;
        if let Some(s) = watch {
            self.add_data_watch(path, s);
        }
        self.nodes.get_at(&key, place).ok_or(ZkError::NoNode)
    }

    /// [`Zk::get_node`] of a topic's partition's state znode
    /// (`/brokers/topics/<topic>/partitions/<partition>/state`) without a
    /// watch, its path not written out.
    pub fn get_partition_state(
        &mut self,
        tp: &crate::ids::TopicPartition,
    ) -> Result<&Znode, ZkError> {
        self.counters.reads += 1;
        self.find(&state_key_of(tp)).ok_or(ZkError::NoNode)
    }

    /// `exists`: the stat if the node exists; with `watch`, a watch is left
    /// either way, so the session also hears of the node's creation.
    pub fn exists(
        &mut self,
        path: &str,
        watch: Option<SessionId>,
    ) -> Result<Option<Stat>, ZkError> {
        self.counters.reads += 1;
        self.check_session(watch)?;
        if let Some(s) = watch {
            self.add_data_watch(path, s);
        }
        Ok(self.nodes.get(&PathKey::from(path)).map(|n| n.stat))
    }

    /// `getChildren`: the children's names in order; with `watch`, a child
    /// watch is left for that session.
    pub fn get_children(
        &mut self,
        path: &str,
        watch: Option<SessionId>,
    ) -> Result<Vec<String>, ZkError> {
        self.counters.reads += 1;
        self.check_session(watch)?;
        if !self.nodes.contains_key(&PathKey::from(path)) {
            return Err(ZkError::NoNode);
        }
        let out = self.children(path).map(Cow::into_owned).collect();
        if let Some(s) = watch {
            self.child_watches
                .entry(path.to_string())
                .or_default()
                .insert(s);
        }
        Ok(out)
    }

    /// A data/exists watch on `path` for `session`.
    fn add_data_watch(&mut self, path: &str, session: SessionId) {
        let set = self.data_watches.entry(path.to_string()).or_default();
        if set.is_empty() && PathKey::from(path).held().is_none() {
            self.partition_watches.step(true);
        }
        set.insert(session);
    }

    /// Whether some data/exists watch is on a path held as a partition's
    /// key ([`Zk::partition_watches`]).
    pub(super) fn partition_watched(&self) -> bool {
        self.partition_watches.get(|| {
            self.data_watches
                .keys()
                .filter(|p| PathKey::from(p.as_str()).held().is_none())
                .count()
        }) > 0
    }

    /// Whether `session` has a data/exists watch on `path`.
    pub fn has_data_watch(&self, path: &str, session: SessionId) -> bool {
        self.data_watches
            .get(path)
            .is_some_and(|s| s.contains(&session))
    }

    /// Whether `session` has a child watch on `path`.
    pub fn has_child_watch(&self, path: &str, session: SessionId) -> bool {
        self.child_watches
            .get(path)
            .is_some_and(|s| s.contains(&session))
    }

    /// Every watch left: (path, session, is a child watch), in path order.
    pub fn watches(&self) -> Vec<(String, SessionId, bool)> {
        let mut out = Vec::new();
        for (p, set) in &self.data_watches {
            out.extend(set.iter().map(|s| (p.clone(), *s, false)));
        }
        for (p, set) in &self.child_watches {
            out.extend(set.iter().map(|s| (p.clone(), *s, true)));
        }
        crate::sort::sort(&mut out);
        out
    }

    /// The last transaction id.
    pub fn zxid(&self) -> i64 {
        self.zxid
    }

    /// Paths created, changed or deleted since the last call, in order.
    pub fn take_changed(&mut self) -> Vec<String> {
        std::mem::take(&mut self.changed)
            .iter()
            .map(|k| k.text().into_owned())
            .collect()
    }

    /// [`Zk::take_changed`] as keys, without writing the paths out: a
    /// partition's names its topic and number ([`PathKey::as_partition`]),
    /// and [`Zk::observed_key`] looks it up without parsing a path.
    pub(crate) fn take_changed_keys(&mut self) -> Vec<PathKey> {
        std::mem::take(&mut self.changed)
    }

    /// Notifications fired since the last call, in the order they fired.
    pub fn take_fired(&mut self) -> Vec<WatchedEvent> {
        std::mem::take(&mut self.fired)
    }

    // ----- writes ---------------------------------------------------------

    /// Create a node; returns its path (with the sequence number for
    /// sequential nodes). The parent must exist.
    pub fn create(
        &mut self,
        caller: Option<SessionId>,
        path: &str,
        data: &str,
        mode: CreateMode,
    ) -> Result<String, ZkError> {
        let op = Op::Create {
            path: path.to_string(),
            data: data.to_string(),
            mode,
        };
        match self.multi(caller, &[op]).map_err(|(_, e)| e)?.pop() {
            Some(OpResult::Created(p)) => Ok(p),
            _ => Err(ZkError::BadArguments),
        }
    }

    /// Create a node and any missing persistent parents (Kafka's
    /// `createRecursive`). Existing parents are left alone.
    pub fn create_recursive(
        &mut self,
        caller: Option<SessionId>,
        path: &str,
        data: &str,
        mode: CreateMode,
    ) -> Result<String, ZkError> {
        if !valid_path(path) {
            return Err(ZkError::BadArguments);
        }
        let mut prefix = String::new();
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        for part in parts.iter().take(parts.len().saturating_sub(1)) {
            prefix.push('/');
            prefix.push_str(part);
            if !self.nodes.contains_key(&PathKey::from(&*prefix)) {
                self.create(caller, &prefix, "", CreateMode::Persistent)?;
            }
        }
        self.create(caller, path, data, mode)
    }

    /// Set a node's data, if `version` is `None` or matches.
    pub fn set_data(
        &mut self,
        caller: Option<SessionId>,
        path: &str,
        data: &str,
        version: Option<i32>,
    ) -> Result<Stat, ZkError> {
        let op = Op::SetData {
            path: path.to_string(),
            data: data.to_string(),
            version,
        };
        match self.multi(caller, &[op]).map_err(|(_, e)| e)?.pop() {
            Some(OpResult::SetData(s)) => Ok(s),
            _ => Err(ZkError::BadArguments),
        }
    }

    /// Delete a childless node, if `version` is `None` or matches.
    pub fn delete(
        &mut self,
        caller: Option<SessionId>,
        path: &str,
        version: Option<i32>,
    ) -> Result<(), ZkError> {
        let op = Op::Delete {
            path: path.to_string(),
            version,
        };
        self.multi(caller, &[op]).map_err(|(_, e)| e)?;
        Ok(())
    }

    /// Delete a node and everything under it (Kafka's `deleteRecursive`).
    pub fn delete_recursive(
        &mut self,
        caller: Option<SessionId>,
        path: &str,
    ) -> Result<(), ZkError> {
        if !self.nodes.contains_key(&PathKey::from(path)) {
            return Err(ZkError::NoNode);
        }
        let children: Vec<String> = self.children(path).map(|c| join(path, &c)).collect();
        for child in children {
            self.delete_recursive(caller, &child)?;
        }
        self.delete(caller, path, None)
    }
}

#[cfg(test)]
mod tests;

impl Zk {
    /// Drops the ensemble part by part, calling `mark` with each part's name
    /// after it is gone: a counting allocator's heap between two calls is
    /// what that part held (memory accounting; see `core/docs/benchmarks.md`).
    #[doc(hidden)]
    pub fn drop_parts(self, mark: &mut dyn FnMut(&'static str)) {
        let Zk {
            nodes,
            sessions,
            data_watches,
            child_watches,
            fired,
            triggers,
            changed,
            pending,
            deferred_changed,
            new_visible,
            ..
        } = self;
        mark("zk: start");
        drop(nodes);
        mark("zk: znodes (paths, data, Stat)");
        drop((sessions, data_watches, child_watches));
        mark("zk: sessions and watches");
        drop((fired, triggers, changed));
        mark("zk: fired, triggers, changed");
        drop(pending);
        mark("zk: pending changes (path -> before-images)");
        drop((deferred_changed, new_visible));
        mark("zk: changed paths by moment (to report; pending's index)");
    }
}

#[cfg(test)]
mod befores_tests {
    use super::{BeforeImage, Befores, SimTime};

    #[test]
    fn befores_behave_as_a_list() {
        // Against a plain `Vec` model: pushes, drops by moment, equality
        // whatever the form, serialization, and clones that later changes
        // do not reach.
        let img = |t: u64| -> BeforeImage { (SimTime(t), None) };
        for n in 1..6u64 {
            let mut b = Befores::One(img(1));
            let mut model = vec![img(1)];
            for t in 2..=n {
                b.push(img(t * 10));
                model.push(img(t * 10));
            }
            let copy = b.clone();
            assert_eq!(b.as_slice(), &model[..]);
            assert_eq!(b.last_at(), model.last().map(|x| x.0));
            assert_eq!(
                serde_json::to_string(&b).unwrap(),
                serde_json::to_string(&model).unwrap()
            );
            let back: Befores = serde_json::from_str(&serde_json::to_string(&b).unwrap()).unwrap();
            assert_eq!(back, b);
            for now in [0, 1, 15, 25, 1000] {
                let mut c = b.clone();
                model.retain(|x| x.0 > SimTime(now));
                let left = c.retain_after(SimTime(now));
                assert_eq!(left, !model.is_empty());
                if left {
                    assert_eq!(c.as_slice(), &model[..]);
                    assert_eq!(c, Befores::Many(model.clone().into_boxed_slice()));
                }
            }
            assert_eq!(copy.as_slice().len(), n as usize);
        }
        assert_eq!(Befores::One(img(3)), Befores::Many(Box::new([img(3)])));
        assert_eq!(std::mem::size_of::<Befores>(), 24);
    }
}
