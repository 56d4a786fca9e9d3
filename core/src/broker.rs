//! A broker: its process lifecycle, ZooKeeper registration, the
//! `KafkaController` it runs, and how it answers controller requests
//! (KafkaApis and ReplicaManager's epoch checks, the metadata cache).

pub use crate::controller::channel::ApiError;
use crate::controller::channel::{
    ControlRequest, PartitionStateInfo, RequestBody, SharedStates, NO_LEADER,
};
use crate::controller::KafkaController;
use crate::cow_map::CowMap;
use crate::data_plane::replica_map::ReplicaMap;
use crate::ids::{BrokerId, TopicPartition};
use crate::partition_map::PartitionMap;
use crate::time::SimTime;
use crate::zk_client::ZkClient;

pub use crate::replica_lists::{ReplicaIds, ReplicaLists};
use serde::{Deserialize, Serialize};

/// Where a broker process is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BrokerStatus {
    /// Started, not yet registered in ZooKeeper.
    Starting,
    /// Registered and working.
    Running,
    /// In (controlled) shutdown: still serving until it exits.
    ShuttingDown,
    /// Stalled (a long GC pause): no processing, no heartbeats.
    Paused,
    /// No process.
    Dead,
}

impl BrokerStatus {
    /// The name used in JSON and the UI.
    pub fn as_str(self) -> &'static str {
        match self {
            BrokerStatus::Starting => "starting",
            BrokerStatus::Running => "running",
            BrokerStatus::ShuttingDown => "shutting_down",
            BrokerStatus::Paused => "paused",
            BrokerStatus::Dead => "dead",
        }
    }
}

/// A partition as the broker's ReplicaManager and metadata cache know it.
/// Prints as its fields did before its lists were packed (see the Debug).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "StoredPartition", into = "StoredPartition")]
pub struct LocalPartition {
    /// The leader, −1 for none.
    pub leader: i32,
    /// The leader epoch last applied.
    pub leader_epoch: i32,
    /// The assigned replicas and the ISR last applied (read with
    /// [`LocalPartition::replicas`] and [`LocalPartition::isr`]): in place, in
    /// 16 bytes, for up to three replicas and an ISR among them, so a hosted
    /// replica of the usual replication factors holds no heap allocation and
    /// copying a chunk of them is a plain copy.
    lists: ReplicaLists,
    /// The state znode version the broker last knew (a leader writes ISR
    /// changes conditionally on it).
    pub zk_version: i32,
    /// The controller epoch that wrote the leadership.
    pub controller_epoch: i32,
    /// As leader: its view of its followers ([`LeaderView`]).
    pub view: LeaderView,
}

/// A leader's view of its followers of one partition (Kafka's `Partition`'s
/// remote replicas): each follower's log end offset at its last fetch, and
/// when each last fetched up to the log end, as recorded per partition (an
/// idle fetch session keeps a later time for all its partitions:
/// `DataPlane::caught_up_at`). Only a leader's replica has one: a
/// follower's (two of every three replicas) holds a null pointer, and the
/// copies of a chunk of replicas share the views until one is written.
/// An empty view and none compare, print and serialize alike.
#[derive(Clone, Default)]
pub struct LeaderView(Option<std::rc::Rc<Followers>>);

/// How many followers a [`LeaderView`] holds in place (the ISR a view
/// starts from names the leader too: three at replication factor 3).
const FEW_FOLLOWERS: usize = 3;

/// What [`LeaderView`] holds: up to [`FEW_FOLLOWERS`] brokers in place, each
/// with its log end offset and its caught-up time if known (56 bytes, where
/// two maps took 80), more in two maps.
#[derive(Clone)]
enum Followers {
    Few {
        len: u8,
        /// Bit `i`: `leo[i]` is known; bit `FEW_FOLLOWERS + i`: `caught_up[i]`.
        known: u8,
        ids: [BrokerId; FEW_FOLLOWERS],
        leo: [u64; FEW_FOLLOWERS],
        /// In ms, 32 bits ([`crate::time::ms_u32`]: 49 days, where every
        /// way in stops a run at a day and a minute; a later time saturates).
        caught_up: [u32; FEW_FOLLOWERS],
    },
    Many(Box<(ReplicaMap<u64>, ReplicaMap<SimTime>)>),
}

impl Default for Followers {
    fn default() -> Followers {
        Followers::Few {
            len: 0,
            known: 0,
            ids: [BrokerId(0); FEW_FOLLOWERS],
            leo: [0; FEW_FOLLOWERS],
            caught_up: [0; FEW_FOLLOWERS],
        }
    }
}

impl Followers {
    /// The brokers held in place (none in the long form).
    #[inline]
    fn few_ids(&self) -> &[BrokerId] {
        match self {
            Followers::Few { len, ids, .. } => ids.get(..usize::from(*len)).unwrap_or(&[]),
            Followers::Many(_) => &[],
        }
    }

    /// Where `follower` is among the few, if it is there and its value of
    /// kind `bit` (0 the offset, `FEW_FOLLOWERS` the time) is known.
    #[inline]
    fn few_known(&self, follower: &BrokerId, bit: usize) -> Option<usize> {
        let Followers::Few { known, .. } = self else {
            return None;
        };
        let i = self.few_ids().iter().position(|b| b == follower)?;
        (known >> (bit + i) & 1 == 1).then_some(i)
    }

    #[inline]
    fn leo(&self, follower: &BrokerId) -> Option<u64> {
        match self {
            Followers::Few { leo, .. } => leo.get(self.few_known(follower, 0)?).copied(),
            Followers::Many(m) => m.0.get(follower).copied(),
        }
    }

    #[inline]
    fn caught_up(&self, follower: &BrokerId) -> Option<SimTime> {
        match self {
            Followers::Few { caught_up, .. } => caught_up
                .get(self.few_known(follower, FEW_FOLLOWERS)?)
                .map(|&ms| SimTime(u64::from(ms))),
            Followers::Many(m) => m.1.get(follower).copied(),
        }
    }

    /// Record `follower`'s offset and/or time.
    fn set(&mut self, follower: BrokerId, new_leo: Option<u64>, new_caught_up: Option<SimTime>) {
        let held = self.few_ids().iter().position(|b| *b == follower);
        if let Followers::Few {
            len,
            known,
            ids,
            leo,
            caught_up,
        } = self
        {
            let n = usize::from(*len);
            let at = match held {
                Some(i) => Some(i),
                None => ids.get_mut(n).map(|free| {
                    *free = follower;
                    *len += 1;
                    n
                }),
            };
            if let Some(i) = at {
                if let (Some(v), Some(slot)) = (new_leo, leo.get_mut(i)) {
                    *slot = v;
                    *known |= 1 << i;
                }
                if let (Some(t), Some(slot)) = (new_caught_up, caught_up.get_mut(i)) {
                    *slot = t.as_ms_u32();
                    *known |= 1 << (FEW_FOLLOWERS + i);
                }
                return;
            }
            *self = Followers::Many(Box::new(self.maps()));
        }
        if let Followers::Many(m) = self {
            if let Some(v) = new_leo {
                m.0.insert(follower, v);
            }
            if let Some(t) = new_caught_up {
                m.1.insert(follower, t);
            }
        }
    }

    /// The offsets and the times, as maps.
    fn maps(&self) -> (ReplicaMap<u64>, ReplicaMap<SimTime>) {
        if let Followers::Many(m) = self {
            return (m.0.clone(), m.1.clone());
        }
        let mut maps = (ReplicaMap::new(), ReplicaMap::new());
        for id in self.few_ids() {
            if let Some(l) = self.leo(id) {
                maps.0.insert(*id, l);
            }
            if let Some(t) = self.caught_up(id) {
                maps.1.insert(*id, t);
            }
        }
        maps
    }
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Followers>() == 56);

impl LeaderView {
    /// `follower`'s log end offset at its last fetch.
    #[inline]
    pub fn leo(&self, follower: &BrokerId) -> Option<u64> {
        self.0.as_ref()?.leo(follower)
    }

    /// When `follower` last fetched up to the log end, as recorded.
    #[inline]
    pub fn caught_up(&self, follower: &BrokerId) -> Option<SimTime> {
        self.0.as_ref()?.caught_up(follower)
    }

    fn followers(&mut self) -> &mut Followers {
        std::rc::Rc::make_mut(self.0.get_or_insert_with(Default::default))
    }

    /// Record `follower`'s log end offset.
    pub fn set_leo(&mut self, follower: BrokerId, leo: u64) {
        self.followers().set(follower, Some(leo), None);
    }

    /// Record when `follower` last fetched up to the log end.
    pub fn set_caught_up(&mut self, follower: BrokerId, at: SimTime) {
        self.followers().set(follower, None, Some(at));
    }

    /// A new leader's view (`Partition.makeLeader`): no follower's log end
    /// offset known, every ISR member caught up now.
    pub fn reset(&mut self, isr: &[BrokerId], now: SimTime) {
        if isr.is_empty() {
            self.0 = None;
            return;
        }
        let mut ids = [BrokerId(0); FEW_FOLLOWERS];
        let distinct = isr.iter().enumerate().all(|(i, r)| !isr[..i].contains(r));
        let f = match ids.get_mut(..isr.len()).filter(|_| distinct) {
            // In place at once.
            Some(few) => {
                few.copy_from_slice(isr);
                Followers::Few {
                    len: isr.len() as u8,
                    known: ((1u8 << isr.len()) - 1) << FEW_FOLLOWERS,
                    ids,
                    leo: [0; FEW_FOLLOWERS],
                    caught_up: [now.as_ms_u32(); FEW_FOLLOWERS],
                }
            }
            None => {
                let mut f = Followers::default();
                for r in isr {
                    f.set(*r, None, Some(now));
                }
                f
            }
        };
        // A view no copy shares is rewritten where it is.
        match self.0.as_mut().and_then(std::rc::Rc::get_mut) {
            Some(mine) => *mine = f,
            None => self.0 = Some(std::rc::Rc::new(f)),
        }
    }

    fn parts(&self) -> (ReplicaMap<u64>, ReplicaMap<SimTime>) {
        self.0.as_ref().map_or_else(Default::default, |f| f.maps())
    }

    fn of(leo: ReplicaMap<u64>, caught_up: ReplicaMap<SimTime>) -> LeaderView {
        LeaderView((!leo.is_empty() || !caught_up.is_empty()).then(|| {
            let mut f = Followers::default();
            for (r, v) in leo.iter() {
                f.set(r, Some(v), None);
            }
            for (r, t) in caught_up.iter() {
                f.set(r, None, Some(t));
            }
            std::rc::Rc::new(f)
        }))
    }
}

impl PartialEq for LeaderView {
    fn eq(&self, other: &LeaderView) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => std::rc::Rc::ptr_eq(a, b) || a.maps() == b.maps(),
            _ => self.parts() == other.parts(),
        }
    }
}

impl Eq for LeaderView {}

impl std::fmt::Debug for LeaderView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (leo, caught_up) = self.parts();
        f.debug_struct("LeaderView")
            .field("follower_leo", &leo)
            .field("last_caught_up", &caught_up)
            .finish()
    }
}

/// [`LocalPartition`] as it is (de)serialized: the leader's view as two maps.
#[derive(Clone, Serialize, Deserialize)]
struct StoredPartition {
    leader: i32,
    leader_epoch: i32,
    isr: ReplicaIds,
    replicas: ReplicaIds,
    zk_version: i32,
    controller_epoch: i32,
    #[serde(default)]
    follower_leo: ReplicaMap<u64>,
    #[serde(default)]
    last_caught_up: ReplicaMap<SimTime>,
}

impl From<StoredPartition> for LocalPartition {
    fn from(s: StoredPartition) -> LocalPartition {
        LocalPartition {
            leader: s.leader,
            leader_epoch: s.leader_epoch,
            lists: ReplicaLists::new(&s.replicas, &s.isr),
            zk_version: s.zk_version,
            controller_epoch: s.controller_epoch,
            view: LeaderView::of(s.follower_leo, s.last_caught_up),
        }
    }
}

impl From<LocalPartition> for StoredPartition {
    fn from(p: LocalPartition) -> StoredPartition {
        let (follower_leo, last_caught_up) = p.view.parts();
        StoredPartition {
            leader: p.leader,
            leader_epoch: p.leader_epoch,
            isr: p.isr(),
            replicas: ReplicaIds::from(p.replicas()),
            zk_version: p.zk_version,
            controller_epoch: p.controller_epoch,
            follower_leo,
            last_caught_up,
        }
    }
}

impl std::fmt::Debug for LocalPartition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalPartition")
            .field("leader", &self.leader)
            .field("leader_epoch", &self.leader_epoch)
            .field("isr", &self.isr())
            .field("replicas", &ReplicaIds::from(self.replicas()))
            .field("zk_version", &self.zk_version)
            .field("controller_epoch", &self.controller_epoch)
            .field("view", &self.view)
            .finish()
    }
}

impl LocalPartition {
    /// How many (partition it leads, ISR follower) pairs this replica
    /// gives broker `id`: its ISR's other members if `id` leads it, else
    /// none (what `isr-expiration` checks; see [`Taken::led_slots`]).
    pub fn led_slots(&self, id: BrokerId) -> u64 {
        self.lists.with_isr(|isr| led_slots(id, self.leader, isr))
    }

    /// A partition's state as a broker holds it.
    pub fn new(
        leader: i32,
        leader_epoch: i32,
        replicas: &[BrokerId],
        isr: &[BrokerId],
        zk_version: i32,
        controller_epoch: i32,
    ) -> LocalPartition {
        LocalPartition {
            leader,
            leader_epoch,
            lists: ReplicaLists::new(replicas, isr),
            zk_version,
            controller_epoch,
            view: LeaderView::default(),
        }
    }

    /// The assigned replicas.
    #[inline]
    pub fn replicas(&self) -> &[BrokerId] {
        self.lists.replicas()
    }

    /// The ISR last applied.
    #[inline]
    pub fn isr(&self) -> ReplicaIds {
        self.lists.isr()
    }

    /// `f` of the ISR, without a copy when it is the replicas in order.
    #[inline]
    pub fn with_isr<R>(&self, f: impl FnOnce(&[BrokerId]) -> R) -> R {
        self.lists.with_isr(f)
    }

    /// How many in the ISR.
    #[inline]
    pub fn isr_len(&self) -> usize {
        self.lists.isr_len()
    }

    /// Whether `b` is in the ISR.
    #[inline]
    pub fn isr_contains(&self, b: &BrokerId) -> bool {
        self.lists.isr_contains(b)
    }

    /// Set the ISR.
    pub fn set_isr(&mut self, isr: &[BrokerId]) {
        self.lists = ReplicaLists::new(self.lists.replicas(), isr);
    }

    fn from_info(p: &crate::controller::channel::PartitionStateInfo) -> LocalPartition {
        LocalPartition {
            leader: p.leader,
            leader_epoch: p.leader_epoch,
            lists: p.lists.clone(),
            zk_version: p.zk_version,
            controller_epoch: p.controller_epoch,
            view: LeaderView::default(),
        }
    }
}

/// The broker's metadata cache (filled by UpdateMetadata).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetadataCache {
    /// The controller id from the last UpdateMetadata.
    pub controller_id: Option<BrokerId>,
    /// Live brokers from the last UpdateMetadata.
    pub live_brokers: Vec<BrokerId>,
    /// Partition leadership from UpdateMetadata.
    pub partitions: PartitionCache,
}

/// Partition states cached by a broker, as a persistent map: copies share
/// what they have in common, chunk by chunk ([`PartitionMap`]). Every broker of a
/// cluster holds the same states (the controller sends each
/// UpdateMetadata's states to all of them), so in the simulator they hold
/// one copy between them: a change copies only the chunks it touches, and
/// brokers that apply the same request to the same cache end up sharing the
/// result ([`MetadataMemo`]). What a broker sees is exactly what its own map
/// would hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionCache {
    map: std::rc::Rc<PartitionMap<CachedPartition>>,
}

/// A partition's state in a metadata cache: the state as the UpdateMetadata
/// carried it, shared with the request and with every other broker's cache.
pub type CachedPartition = std::rc::Rc<PartitionStateInfo>;

impl Default for PartitionCache {
    fn default() -> PartitionCache {
        PartitionCache {
            map: std::rc::Rc::new(PartitionMap::new()),
        }
    }
}

impl PartitionCache {
    /// The cached state of `tp`.
    pub fn get(&self, tp: &TopicPartition) -> Option<&PartitionStateInfo> {
        self.map.get(tp).map(|p| &**p)
    }

    /// The cached state of `tp` as shared ([`CachedPartition`]).
    pub fn shared(&self, tp: &TopicPartition) -> Option<&CachedPartition> {
        self.map.get(tp)
    }

    /// Whether `tp` is cached.
    pub fn contains_key(&self, tp: &TopicPartition) -> bool {
        self.get(tp).is_some()
    }

    /// How many partitions are cached.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Every cached partition, in partition order.
    pub fn iter(&self) -> impl Iterator<Item = (TopicPartition, &PartitionStateInfo)> {
        self.map.iter().map(|(tp, p)| (tp, &**p))
    }

    /// The cache after an UpdateMetadata's partition states: a partition
    /// marked for deletion is dropped, any other replaced. A state the cache
    /// holds already (the same shared one: the controller builds a state
    /// equal to the cached one as that one) is left where it is, so the
    /// chunk holding it stays shared with the cache it came from (a new
    /// controller's full UpdateMetadata changes a few partitions of all).
    fn updated(&self, partitions: &[CachedPartition]) -> PartitionCache {
        let mut map = (*self.map).clone();
        for p in partitions {
            if p.leader < NO_LEADER {
                map.remove(&p.tp);
            } else {
                map.insert_with(&p.tp, |held| {
                    (!held.is_some_and(|h| std::rc::Rc::ptr_eq(h, p))).then(|| p.clone())
                });
            }
        }
        PartitionCache {
            map: std::rc::Rc::new(map),
        }
    }

    #[cfg(test)]
    /// A cache holding `states` (as an UpdateMetadata with them leaves an
    /// empty one).
    pub(crate) fn of_states(states: &[CachedPartition]) -> PartitionCache {
        PartitionCache::default().updated(states)
    }

    #[cfg(test)]
    /// Whether two caches are the same copy (not merely equal), or both
    /// empty (as every broker's is when it starts).
    fn same_copy(&self, other: &PartitionCache) -> bool {
        std::rc::Rc::ptr_eq(&self.map, &other.map) || (self.is_empty() && other.is_empty())
    }
}

impl std::ops::Index<&TopicPartition> for PartitionCache {
    type Output = PartitionStateInfo;
    /// The cached state of `tp`; panics if it is not cached (tests only).
    #[allow(clippy::panic)]
    fn index(&self, tp: &TopicPartition) -> &PartitionStateInfo {
        match self.get(tp) {
            Some(p) => p,
            None => panic!("{tp} is not in the metadata cache"),
        }
    }
}

/// The caches that the last UpdateMetadata requests produced: a broker that
/// applies the same request (the same shared states) to the same cache gets
/// the same result without building it again. A request whose states name
/// every partition of the cache it is applied to (a full UpdateMetadata, as
/// a new controller or a broker's start-up sends) replaces all of it, so its
/// result depends on the request alone: every broker whose cache it covers
/// gets the one result, whatever it held before. It holds no cache alive
/// (weak references only; a result that no broker holds any more is built
/// again), and it is a cache of work, not state: two simulations are equal
/// whatever their memos hold.
#[derive(Debug, Clone, Default)]
pub struct MetadataMemo {
    recent: std::collections::VecDeque<MemoEntry>,
}

/// The cache a request was applied to (and whether the request named every
/// partition of it), the request's states, and the cache it made.
type MemoEntry = (
    WeakCache,
    bool,
    std::rc::Weak<[std::rc::Rc<PartitionStateInfo>]>,
    WeakCache,
);

type WeakCache = std::rc::Weak<PartitionMap<CachedPartition>>;

equal_whatever_it_holds!(MetadataMemo);

impl MetadataMemo {
    /// How many results it remembers.
    const SIZE: usize = 8;

    /// Whether `partitions` name every partition `base` holds (in strict
    /// partition order, as the controller's batches send them; a request in
    /// any other order is not looked at and counts as not covering). Then
    /// Kafka's `MetadataCache.updateMetadata`, which copies the cache and
    /// replaces or removes each partition the request names, leaves nothing
    /// of `base`: the result is the request's states alone.
    fn covers(base: &PartitionCache, partitions: &SharedStates) -> bool {
        if base.is_empty() {
            return true;
        }
        if base.len() > partitions.len() || !partitions.windows(2).all(|w| w[0].tp < w[1].tp) {
            return false;
        }
        let mut named = partitions.iter().map(|p| &p.tp).peekable();
        base.map.iter().all(|(tp, _)| {
            while named.next_if(|n| **n < tp).is_some() {}
            named.next_if(|n| **n == tp).is_some()
        })
    }

    fn apply(&mut self, base: &PartitionCache, partitions: &SharedStates) -> PartitionCache {
        if partitions.is_empty() {
            return base.clone();
        }
        let same_states = |p: &std::rc::Weak<[std::rc::Rc<PartitionStateInfo>]>| {
            p.upgrade()
                .is_some_and(|p| std::rc::Rc::ptr_eq(&p, partitions))
        };
        // The same request applied to the same cache.
        let hit = self.recent.iter().find_map(|(b, _, p, r)| {
            let same_base = b
                .upgrade()
                .is_some_and(|b| std::rc::Rc::ptr_eq(&b, &base.map));
            (same_base && same_states(p)).then(|| r.upgrade()).flatten()
        });
        if let Some(map) = hit {
            return PartitionCache { map };
        }
        // The same request covering the cache it was applied to, and this one.
        let covered = Self::covers(base, partitions);
        if covered {
            let hit = self
                .recent
                .iter()
                .find_map(|(_, c, p, r)| (*c && same_states(p)).then(|| r.upgrade()).flatten());
            if let Some(map) = hit {
                return PartitionCache { map };
            }
        }
        let result = base.updated(partitions);
        self.recent.retain(|(b, c, p, r)| {
            (*c || b.strong_count() > 0) && p.strong_count() > 0 && r.strong_count() > 0
        });
        if self.recent.len() >= Self::SIZE {
            self.recent.pop_front();
        }
        self.recent.push_back((
            std::rc::Rc::downgrade(&base.map),
            covered,
            std::rc::Rc::downgrade(partitions),
            std::rc::Rc::downgrade(&result.map),
        ));
        result
    }
}

/// How a broker's last process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BrokerExit {
    /// A clean exit (`kill -15`, `kafka-server-stop.sh`, after a controlled
    /// shutdown that worked or not): the ZooKeeper session was closed, so its
    /// ephemeral znodes went at once.
    Clean,
    /// `kill -9`: the session lingers, and `/brokers/ids/<id>` (and
    /// `/controller` if it held it) with it, until ZooKeeper expires it.
    Killed,
    /// It failed to start (`/brokers/ids/<id>` still held by its previous
    /// session); its new session was closed.
    StartupFailed,
}

/// What a broker did with a controller request it applied, for its data
/// plane ([`Broker::handle_request_taking`]).
#[derive(Debug, Default)]
pub struct Taken {
    /// For a LeaderAndIsr, which of its partitions the broker took, in the
    /// request's order (the others it ignored, and so must its data plane).
    pub partitions: Vec<bool>,
    /// How many more (partition it leads, ISR follower) pairs
    /// ([`LocalPartition::led_slots`]) its replicas give it than before
    /// the request (a LeaderAndIsr or StopReplica changes them), so that
    /// the data plane's count of them need not be made again by a walk of
    /// every hosted replica.
    pub led_slots: i64,
}

/// The pairs of [`LocalPartition::led_slots`] of a partition with this
/// leader and ISR.
pub fn led_slots(id: BrokerId, leader: i32, isr: &[BrokerId]) -> u64 {
    if leader != id.0 as i32 {
        return 0;
    }
    isr.iter().filter(|r| **r != id).count() as u64
}

/// `after - before`, as a signed count.
fn slot_change(before: u64, after: u64) -> i64 {
    after as i64 - before as i64
}

/// One broker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Broker {
    /// `broker.id`.
    pub id: BrokerId,
    /// Process status.
    pub status: BrokerStatus,
    /// What the status was before a pause.
    pub status_before_pause: BrokerStatus,
    /// Counts starts, so that timers of an earlier process are ignored.
    pub incarnation: u32,
    /// The broker epoch: czxid of its `/brokers/ids/<id>` (−1 before registering).
    pub broker_epoch: i64,
    /// The ZooKeeper client.
    pub zk_client: ZkClient,
    /// The controller this broker runs.
    pub controller: KafkaController,
    /// ReplicaManager's `controllerEpoch`: the highest controller epoch accepted.
    pub controller_epoch_seen: i32,
    /// Replicas this broker hosts (from LeaderAndIsr), in partition order;
    /// copies of the broker share them chunk by chunk ([`CowMap`]).
    pub replicas: CowMap<TopicPartition, LocalPartition>,
    /// The metadata cache.
    pub metadata: MetadataCache,
    /// While paused: until when.
    pub paused_until: Option<SimTime>,
    /// The controlled-shutdown attempt under way (0: none).
    pub shutdown_attempt: u64,
    /// Its ControlledShutdownRequest on the wire or at the controller, if any.
    #[serde(default)]
    pub shutdown_request: Option<u64>,
    /// Partitions whose ISR this broker changed and has not yet propagated.
    pub isr_change_set: std::collections::BTreeSet<TopicPartition>,
    /// When it last changed an ISR.
    pub last_isr_change: SimTime,
    /// When it last wrote an ISR change notification.
    pub last_isr_propagation: SimTime,
    /// How its last process ended, while it is down (`None` once started
    /// again, or never started).
    #[serde(default)]
    pub exit: Option<BrokerExit>,
}

impl Broker {
    /// A broker that has never been started.
    pub fn new(id: BrokerId) -> Broker {
        Broker {
            id,
            status: BrokerStatus::Dead,
            status_before_pause: BrokerStatus::Dead,
            incarnation: 0,
            broker_epoch: -1,
            zk_client: ZkClient::default(),
            controller: KafkaController::default(),
            controller_epoch_seen: 0,
            replicas: CowMap::new(),
            metadata: MetadataCache::default(),
            paused_until: None,
            shutdown_attempt: 0,
            shutdown_request: None,
            isr_change_set: std::collections::BTreeSet::new(),
            last_isr_change: SimTime::ZERO,
            last_isr_propagation: SimTime::ZERO,
            exit: None,
        }
    }

    /// A fresh process for this broker: everything in memory is gone.
    pub fn restart_process(&mut self) {
        let incarnation = self.incarnation + 1;
        *self = Broker::new(self.id);
        self.incarnation = incarnation;
        self.status = BrokerStatus::Starting;
    }

    /// Whether the process runs and processes events (running or shutting down).
    pub fn is_up(&self) -> bool {
        matches!(
            self.status,
            BrokerStatus::Running | BrokerStatus::ShuttingDown
        )
    }

    /// Handle a controller request (KafkaApis, then ReplicaManager). Returns
    /// the top-level error, [`ApiError::None`] when accepted.
    pub fn handle_request(&mut self, req: &ControlRequest) -> ApiError {
        self.handle_request_with(req, &mut MetadataMemo::default())
    }

    /// Whether this broker takes a LeaderAndIsr's state of one partition.
    /// Kafka: `ReplicaManager.becomeLeaderOrFollower` takes a partition only
    /// when the request's leader epoch is higher than the one the broker has
    /// (an equal one "matches the current leader epoch" and is ignored, as a
    /// new controller's start-up requests are) and the broker is one of its
    /// replicas.
    /// `local` is the broker's replica of the partition, if it has one.
    fn takes(id: BrokerId, local: Option<&LocalPartition>, p: &PartitionStateInfo) -> bool {
        local.is_none_or(|l| p.leader_epoch > l.leader_epoch) && p.replicas().contains(&id)
    }

    /// [`Broker::handle_request`], sharing metadata caches through `memo`
    /// with the brokers that applied the same UpdateMetadata before it.
    pub fn handle_request_with(
        &mut self,
        req: &ControlRequest,
        memo: &mut MetadataMemo,
    ) -> ApiError {
        self.handle_request_taking(req, memo, &mut Taken::default())
    }

    /// [`Broker::handle_request_with`], saying in `taken`, for a
    /// LeaderAndIsr it applies, which of its partitions the broker took
    /// (the others it ignored, and so must its data plane), and for a
    /// LeaderAndIsr or StopReplica how the pairs of [`Taken::led_slots`]
    /// changed (added to what `taken` holds).
    pub fn handle_request_taking(
        &mut self,
        req: &ControlRequest,
        memo: &mut MetadataMemo,
        taken: &mut Taken,
    ) -> ApiError {
        // KIP-380: a request meant for an earlier registration of this broker.
        if req.broker_epoch != -1 && req.broker_epoch < self.broker_epoch {
            return ApiError::StaleBrokerEpoch;
        }
        if req.controller_epoch < self.controller_epoch_seen {
            return ApiError::StaleControllerEpoch;
        }
        self.controller_epoch_seen = req.controller_epoch;
        match &req.body {
            RequestBody::LeaderAndIsr { partitions } => {
                let id = self.id;
                let (mut before, mut after) = (0u64, 0u64);
                // Whether it takes `p` over `l`, counting the pairs each gives.
                let mut take = |l: Option<&LocalPartition>, p: &PartitionStateInfo| {
                    let take = Self::takes(id, l, p);
                    if take {
                        before += l.map_or(0, |l| l.led_slots(id));
                        after += p.lists.with_isr(|isr| led_slots(id, p.leader, isr));
                    }
                    take
                };
                let taken_list = &mut taken.partitions;
                if partitions.windows(2).all(|w| w[0].tp < w[1].tp) {
                    // In partition order, each once (as the controller sends
                    // them): which it takes is read in one walk of its map.
                    if partitions.len().saturating_mul(4) >= self.replicas.len() {
                        // Most of the map (a new controller's requests,
                        // which it mostly does not take): the map and the
                        // request are merged, entry by entry, with no
                        // search; what it takes is written after.
                        let from = taken_list.len();
                        let mut local = self.replicas.iter().peekable();
                        for p in partitions {
                            while local.next_if(|(tp, _)| **tp < p.tp).is_some() {}
                            let l = local.peek().filter(|(tp, _)| **tp == p.tp).map(|e| e.1);
                            taken_list.push(take(l, p));
                        }
                        let took = taken_list.get(from..).unwrap_or(&[]);
                        for (p, take) in partitions.iter().zip(took) {
                            if *take {
                                self.replicas
                                    .insert(p.tp.clone(), LocalPartition::from_info(p));
                            }
                        }
                    } else {
                        // Those it has are replaced where they are, in one
                        // walk of its map; the new ones are inserted after.
                        let mut ps = partitions.iter();
                        let new =
                            self.replicas
                                .replace_sorted(partitions.iter().map(|p| &p.tp), |l| {
                                    let p = ps.next()?;
                                    let took = take(l, p);
                                    taken_list.push(took);
                                    took.then(|| LocalPartition::from_info(p))
                                });
                        for (n, local) in new {
                            if let Some(p) = partitions.get(n) {
                                self.replicas.insert(p.tp.clone(), local);
                            }
                        }
                    }
                } else {
                    for p in partitions {
                        // One search per partition: whether it takes it,
                        // and where it goes.
                        let took = self.replicas.insert_with(&p.tp, |l| {
                            take(l, p).then(|| LocalPartition::from_info(p))
                        });
                        taken_list.push(took);
                    }
                }
                taken.led_slots += slot_change(before, after);
            }
            RequestBody::UpdateMetadata {
                partitions,
                live_brokers,
            } => {
                self.metadata.controller_id = Some(req.from);
                self.metadata.live_brokers = live_brokers.clone();
                self.metadata.partitions = memo.apply(&self.metadata.partitions, partitions);
            }
            RequestBody::StopReplica { partitions, .. } => {
                let mut before = 0;
                for tp in partitions {
                    if let Some(l) = self.replicas.remove(tp) {
                        before += l.led_slots(self.id);
                    }
                }
                taken.led_slots += slot_change(before, 0);
            }
            // Addressed to the controller's event queue, never handled here.
            RequestBody::ControlledShutdown { .. } => {}
        }
        ApiError::None
    }
}

/// The registration znode's data, at its old path (encoded in [`crate::znodes`]).
pub use crate::znodes::broker_znode_json;

#[cfg(test)]
mod tests {

    /// A leader's view answers as two maps of its followers' offsets and
    /// times would, through every kind of change, with three followers in
    /// place and past them; views built by changes and read back from their
    /// maps compare equal. (Kafka: `Partition`'s remote replicas, their
    /// `logEndOffset` and `lastCaughtUpTimeMs`, read by `maybeShrinkIsr` and
    /// the high watermark.)
    #[test]
    fn a_leader_view_reads_as_its_followers_maps() {
        use std::collections::BTreeMap;
        let mut rng = crate::rng::Rng::new(11);
        for round in 0..300 {
            let mut view = LeaderView::default();
            let mut leo: BTreeMap<BrokerId, u64> = BTreeMap::new();
            let mut at: BTreeMap<BrokerId, SimTime> = BTreeMap::new();
            let brokers = 2 + round % 5;
            for step in 0..12u64 {
                let b = BrokerId(rng.below(brokers as u64) as u32);
                match rng.below(5) {
                    0 => {
                        let mut isr: Vec<BrokerId> = (0..brokers as u32)
                            .map(BrokerId)
                            .filter(|_| rng.below(2) == 0)
                            .collect();
                        if let (0, Some(first)) = (rng.below(4), isr.first().copied()) {
                            isr.push(first);
                        }
                        view.reset(&isr, SimTime(step));
                        leo.clear();
                        at = isr.iter().map(|r| (*r, SimTime(step))).collect();
                    }
                    1 | 2 => {
                        view.set_leo(b, step * 10);
                        leo.insert(b, step * 10);
                    }
                    _ => {
                        view.set_caught_up(b, SimTime(step));
                        at.insert(b, SimTime(step));
                    }
                }
                for r in (0..brokers as u32).map(BrokerId) {
                    assert_eq!(
                        view.leo(&r),
                        leo.get(&r).copied(),
                        "round {round} step {step}"
                    );
                    assert_eq!(view.caught_up(&r), at.get(&r).copied());
                }
                let (l, t) = view.parts();
                assert_eq!(
                    l.iter().collect::<Vec<_>>(),
                    leo.iter().map(|(b, v)| (*b, *v)).collect::<Vec<_>>()
                );
                assert_eq!(
                    t.iter().collect::<Vec<_>>(),
                    at.iter().map(|(b, v)| (*b, *v)).collect::<Vec<_>>()
                );
                let back = LeaderView::of(l, t);
                assert_eq!(back, view);
                assert_eq!(format!("{back:?}"), format!("{view:?}"));
            }
        }
    }
    use super::*;
    use crate::controller::channel::{PartitionStateInfo, RequestStatus, LEADER_DURING_DELETE};

    fn request(epoch: i32, broker_epoch: i64, body: RequestBody) -> ControlRequest {
        ControlRequest {
            id: 1,
            from: BrokerId(0),
            to: BrokerId(1),
            controller_epoch: epoch,
            broker_epoch,
            body,
            status: RequestStatus::InFlight,
            queued_at: SimTime::ZERO,
            sent_at: None,
            arrives_at: None,
            error: None,
        }
    }

    fn um() -> RequestBody {
        RequestBody::UpdateMetadata {
            partitions: Vec::new().into(),
            live_brokers: vec![BrokerId(0), BrokerId(1)],
        }
    }

    #[test]
    fn stale_controller_epochs_are_rejected_and_newer_ones_accepted() {
        // Kafka: ReplicaManager rejects requests with a smaller controllerEpoch
        // (STALE_CONTROLLER_EPOCH) and accepts equal or larger ones.
        let mut b = Broker::new(BrokerId(1));
        b.broker_epoch = 10;
        assert_eq!(b.handle_request(&request(2, 10, um())), ApiError::None);
        assert_eq!(b.controller_epoch_seen, 2);
        assert_eq!(b.metadata.controller_id, Some(BrokerId(0)));
        assert_eq!(
            b.handle_request(&request(1, 10, um())),
            ApiError::StaleControllerEpoch
        );
        assert_eq!(b.handle_request(&request(2, 10, um())), ApiError::None);
        assert_eq!(b.handle_request(&request(3, 10, um())), ApiError::None);
        assert_eq!(b.controller_epoch_seen, 3);
    }

    #[test]
    fn requests_for_an_earlier_registration_are_rejected() {
        // Kafka: KafkaApis.isBrokerEpochStale (KIP-380); −1 skips the check.
        let mut b = Broker::new(BrokerId(1));
        b.broker_epoch = 10;
        assert_eq!(
            b.handle_request(&request(1, 9, um())),
            ApiError::StaleBrokerEpoch
        );
        assert_eq!(b.controller_epoch_seen, 0, "nothing applied");
        assert_eq!(b.handle_request(&request(1, -1, um())), ApiError::None);
    }

    /// A full UpdateMetadata whose states are mostly the cached ones
    /// themselves (a new controller's, which shares every unchanged state
    /// with the cache) replaces the few that changed and leaves the chunks
    /// of the rest shared with the cache before it.
    // Kafka: MetadataCache.updateMetadata replaces each partition state the
    // request names; the result is the request's states.
    #[test]
    fn a_full_update_metadata_of_the_cached_states_copies_only_what_changed() {
        let state = |p: u32, leader: i32| {
            std::rc::Rc::new(PartitionStateInfo {
                tp: TopicPartition::new("t", p),
                controller_epoch: 1,
                leader,
                leader_epoch: 1,
                lists: ReplicaLists::new(&[BrokerId(1), BrokerId(2)], &[BrokerId(1)]),
                zk_version: 0,
                is_new: false,
            })
        };
        let first: Vec<CachedPartition> = (0..500).map(|p| state(p, 1)).collect();
        let cache = PartitionCache::of_states(&first);
        let mut again = first.clone();
        again[260] = state(260, 2);
        let next = cache.updated(&again);
        assert_eq!(next.len(), 500);
        assert_eq!(next[&TopicPartition::new("t", 260)].leader, 2);
        assert!((0..500).all(|p| next[&TopicPartition::new("t", p)] == *again[p as usize]));
        let unshared = next.map.unshared_entries(Some(&cache.map));
        assert!(
            unshared <= crate::partition_map::SLOTS,
            "{unshared} entries copied for one changed state"
        );
    }

    #[test]
    fn leader_and_isr_applies_only_newer_leader_epochs_for_hosted_replicas() {
        // Kafka: ReplicaManager.becomeLeaderOrFollower ignores leader epochs <= the local one.
        let tp = TopicPartition::new("t", 0);
        let state = |leader_epoch: i32, leader: i32, replicas: Vec<u32>| PartitionStateInfo {
            tp: tp.clone(),
            controller_epoch: 1,
            leader,
            leader_epoch,
            lists: crate::broker::ReplicaLists::new(
                &replicas.into_iter().map(BrokerId).collect::<Vec<_>>(),
                &[BrokerId(1)],
            ),
            zk_version: 0,
            is_new: false,
        };
        let mut b = Broker::new(BrokerId(1));
        let lai = |s| RequestBody::LeaderAndIsr {
            partitions: vec![std::rc::Rc::new(s)],
        };
        b.handle_request(&request(1, -1, lai(state(3, 1, vec![1, 2]))));
        b.handle_request(&request(1, -1, lai(state(3, 2, vec![1, 2]))));
        assert_eq!(b.replicas[&tp].leader, 1, "equal leader epoch ignored");
        b.handle_request(&request(1, -1, lai(state(4, 2, vec![1, 2]))));
        assert_eq!(b.replicas[&tp].leader, 2);
        let other = TopicPartition::new("t", 1);
        let mut s = state(1, 2, vec![2, 3]);
        s.tp = other.clone();
        b.handle_request(&request(1, -1, lai(s)));
        assert!(
            !b.replicas.contains_key(&other),
            "not a replica of this broker"
        );
    }

    #[test]
    fn a_leader_and_isr_is_applied_partition_by_partition_in_any_order() {
        // Kafka: ReplicaManager.becomeLeaderOrFollower takes each partition
        // of the request whose leader epoch is newer than the local one; the
        // order of the request's partitions changes nothing, and a partition
        // listed twice is taken once (the second entry's epoch is no newer).
        let state = |p: u32, leader_epoch: i32| PartitionStateInfo {
            tp: TopicPartition::new("t", p),
            controller_epoch: 1,
            leader: 1,
            leader_epoch,
            lists: crate::broker::ReplicaLists::new(&[BrokerId(1), BrokerId(2)], &[BrokerId(1)]),
            zk_version: 0,
            is_new: false,
        };
        let lai = |partitions: Vec<PartitionStateInfo>| RequestBody::LeaderAndIsr {
            partitions: partitions.into_iter().map(std::rc::Rc::new).collect(),
        };
        let apply = |b: &mut Broker, partitions: Vec<PartitionStateInfo>| {
            let mut taken = Taken::default();
            let req = request(1, -1, lai(partitions));
            b.handle_request_taking(&req, &mut MetadataMemo::default(), &mut taken);
            taken.partitions
        };
        let mut sorted = Broker::new(BrokerId(1));
        let mut shuffled = Broker::new(BrokerId(1));
        let first: Vec<PartitionStateInfo> = (0..100).map(|p| state(p, 2)).collect();
        apply(&mut sorted, first.clone());
        apply(&mut shuffled, first);
        let second: Vec<PartitionStateInfo> =
            (0..200).map(|p| state(p, 2 + p as i32 % 2)).collect();
        let mut reordered: Vec<PartitionStateInfo> = second.iter().rev().cloned().collect();
        reordered.push(state(7, 3));
        let taken = apply(&mut sorted, second);
        let taken_reordered = apply(&mut shuffled, reordered);
        assert_eq!(sorted.replicas, shuffled.replicas);
        assert_eq!(taken.iter().filter(|t| **t).count(), 150);
        let mut expected: Vec<bool> = taken.iter().rev().copied().collect();
        expected.push(false);
        assert_eq!(taken_reordered, expected);
        assert_eq!(
            sorted.replicas[&TopicPartition::new("t", 7)].leader_epoch,
            3
        );
        assert_eq!(
            sorted.replicas[&TopicPartition::new("t", 8)].leader_epoch,
            2
        );
        // A few partitions of many (read by search, not by merge), in
        // order and shuffled, one of them new to the broker.
        let few: Vec<PartitionStateInfo> =
            [3, 50, 51, 120, 250].iter().map(|p| state(*p, 5)).collect();
        let taken = apply(&mut sorted, few.clone());
        let taken_reordered = apply(&mut shuffled, few.iter().rev().cloned().collect());
        assert_eq!(taken, vec![true; 5]);
        assert_eq!(taken_reordered, taken);
        assert_eq!(sorted.replicas, shuffled.replicas);
        assert_eq!(sorted.replicas.len(), 201);
        assert_eq!(
            sorted.replicas[&TopicPartition::new("t", 51)].leader_epoch,
            5
        );
    }

    #[test]
    fn replica_ids_read_compare_and_serialize_as_a_list_in_place_or_not() {
        // Kafka: a hosted replica's ISR and assigned replicas are ordered
        // lists (Partition.inSyncReplicas, assignment); here each length up
        // to past the in-place three is checked against a plain Vec.
        for n in 0..6u32 {
            let v: Vec<BrokerId> = (0..n).map(|i| BrokerId(10 - i)).collect();
            let ids = ReplicaIds::from(&v[..]);
            let copy = ids.clone();
            assert_eq!(&ids[..], &v[..]);
            assert_eq!(&copy[..], &v[..]);
            assert_eq!(v.iter().copied().collect::<ReplicaIds>(), ids);
            assert_eq!(format!("{ids:?}"), format!("{v:?}"));
            let json = serde_json::to_string(&ids).unwrap();
            assert_eq!(json, serde_json::to_string(&v).unwrap());
            assert_eq!(serde_json::from_str::<ReplicaIds>(&json).unwrap(), ids);
            assert_eq!(ids.contains(&BrokerId(10)), n > 0);
            assert_ne!(ids, ReplicaIds::from(&[BrokerId(99)][..]));
        }
        assert_eq!(std::mem::size_of::<ReplicaIds>(), 16);
    }

    #[test]
    fn a_leader_view_reads_as_two_plain_maps_and_copies_do_not_see_each_others_writes() {
        // Kafka: Partition.makeLeader resets the leader's remote replicas
        // (no follower's log end offset known, the ISR caught up now) and
        // updateFollowerFetchState records each follower's; here a view and
        // its copies are checked against two plain maps.
        type Model = (BTreeMap<BrokerId, u64>, BTreeMap<BrokerId, SimTime>);
        use std::collections::BTreeMap;
        let same = |v: &LeaderView, m: &Model| {
            (0..8).all(|r| {
                let r = BrokerId(r);
                v.leo(&r) == m.0.get(&r).copied() && v.caught_up(&r) == m.1.get(&r).copied()
            })
        };
        let mut v = LeaderView::default();
        let mut m: Model = Default::default();
        assert!(same(&v, &m));
        assert_eq!(v, LeaderView::of(ReplicaMap::new(), ReplicaMap::new()));
        v.reset(&[BrokerId(3), BrokerId(1)], SimTime(5));
        m.1 = [(BrokerId(3), SimTime(5)), (BrokerId(1), SimTime(5))].into();
        assert!(same(&v, &m));
        let (copy, copy_model) = (v.clone(), m.clone());
        v.set_leo(BrokerId(1), 7);
        v.set_caught_up(BrokerId(2), SimTime(9));
        v.set_leo(BrokerId(5), 1);
        m.0.insert(BrokerId(1), 7);
        m.1.insert(BrokerId(2), SimTime(9));
        m.0.insert(BrokerId(5), 1);
        assert!(same(&v, &m));
        assert!(same(&copy, &copy_model), "the copy is unchanged");
        assert_ne!(v, copy);
        // Times in place are 32-bit ms: the last moment a run reaches reads
        // back exactly; a later one saturates (no way in gets there).
        let mut t = LeaderView::default();
        t.reset(&[BrokerId(1)], SimTime(86_460_000));
        assert_eq!(t.caught_up(&BrokerId(1)), Some(SimTime(86_460_000)));
        t.set_caught_up(BrokerId(1), SimTime(u64::from(u32::MAX) + 5));
        assert_eq!(
            t.caught_up(&BrokerId(1)),
            Some(SimTime(u64::from(u32::MAX)))
        );
        // An empty view and none are equal, and serialize alike.
        let mut emptied = copy.clone();
        emptied.reset(&[], SimTime(6));
        assert!(emptied.0.is_none());
        assert_eq!(emptied, LeaderView::default());
        // A replica serializes its view as the two maps it replaced.
        let p = LocalPartition {
            view: v.clone(),
            ..LocalPartition::new(1, 2, &[BrokerId(1), BrokerId(2)], &[BrokerId(1)], 3, 4)
        };
        let json = serde_json::to_value(&p).unwrap();
        assert_eq!(json["follower_leo"], serde_json::json!({"1": 7, "5": 1}));
        assert_eq!(json["last_caught_up"]["2"], serde_json::json!(9));
        let back: LocalPartition = serde_json::from_value(json).unwrap();
        assert_eq!(back, p);
        let bare = LocalPartition {
            view: LeaderView::default(),
            ..p.clone()
        };
        let json = serde_json::to_value(&bare).unwrap();
        assert_eq!(json["follower_leo"], serde_json::json!({}));
        assert_eq!(
            serde_json::from_value::<LocalPartition>(json).unwrap(),
            bare
        );
    }

    #[test]
    fn brokers_applying_the_same_update_metadata_share_one_cache() {
        // Kafka: MetadataCache.updateMetadata — every broker caches the partition
        // states of each UpdateMetadata the controller sends it; a removed topic's
        // partitions (LeaderDuringDelete) leave the cache.
        let info = |tp: &TopicPartition, leader: i32| PartitionStateInfo {
            tp: tp.clone(),
            controller_epoch: 1,
            leader,
            leader_epoch: 1,
            lists: crate::broker::ReplicaLists::new(&[BrokerId(1), BrokerId(2)], &[BrokerId(1)]),
            zk_version: 0,
            is_new: false,
        };
        let tps: Vec<TopicPartition> = (0..200).map(|p| TopicPartition::new("t", p)).collect();
        let all: crate::controller::channel::SharedStates =
            tps.iter().map(|tp| std::rc::Rc::new(info(tp, 1))).collect();
        let body =
            |partitions: &crate::controller::channel::SharedStates| RequestBody::UpdateMetadata {
                partitions: partitions.clone(),
                live_brokers: vec![BrokerId(1), BrokerId(2)],
            };
        let mut memo = MetadataMemo::default();
        let (mut a, mut b, mut c) = (
            Broker::new(BrokerId(1)),
            Broker::new(BrokerId(2)),
            Broker::new(BrokerId(3)),
        );
        for x in [&mut a, &mut b] {
            assert_eq!(
                x.handle_request_with(&request(1, -1, body(&all)), &mut memo),
                ApiError::None
            );
        }
        assert!(a.metadata.partitions.same_copy(&b.metadata.partitions));
        assert_eq!(a.metadata.partitions.len(), 200);
        assert_eq!(b.metadata.partitions[&tps[7]].leader, 1);
        // One partition moves to broker 2, another is being deleted: only a and b get it.
        let change: crate::controller::channel::SharedStates = vec![
            std::rc::Rc::new(info(&tps[7], 2)),
            std::rc::Rc::new(info(&tps[9], LEADER_DURING_DELETE)),
        ]
        .into();
        c.handle_request_with(&request(1, -1, body(&change)), &mut memo);
        for x in [&mut a, &mut b] {
            x.handle_request_with(&request(1, -1, body(&change)), &mut memo);
        }
        assert!(a.metadata.partitions.same_copy(&b.metadata.partitions));
        assert_eq!(a.metadata.partitions[&tps[7]].leader, 2);
        assert!(!b.metadata.partitions.contains_key(&tps[9]));
        assert_eq!(a.metadata.partitions.len(), 199);
        // c never had the full list: it holds only what it was sent.
        assert_eq!(c.metadata.partitions.len(), 1);
        assert_eq!(c.metadata.partitions[&tps[7]].leader, 2);
        // Most of the cache at once, a deletion among them: the cache holds
        // what a plain map given the same states would.
        let most: crate::controller::channel::SharedStates = tps
            .iter()
            .filter(|tp| tp.partition % 4 != 1)
            .map(|tp| {
                let leader = match tp.partition {
                    20 => LEADER_DURING_DELETE,
                    p => 1 + p as i32 % 3,
                };
                std::rc::Rc::new(info(tp, leader))
            })
            .collect();
        let mut model: std::collections::BTreeMap<TopicPartition, i32> = a
            .metadata
            .partitions
            .iter()
            .map(|(tp, p)| (tp.clone(), p.leader))
            .collect();
        for p in most.iter() {
            if p.leader < NO_LEADER {
                model.remove(&p.tp);
            } else {
                model.insert(p.tp.clone(), p.leader);
            }
        }
        let before = a.metadata.partitions.clone();
        let mut e = a.clone();
        e.handle_request_with(&request(1, -1, body(&most)), &mut memo);
        let got: Vec<(TopicPartition, i32)> = e
            .metadata
            .partitions
            .iter()
            .map(|(tp, p)| (tp.clone(), p.leader))
            .collect();
        assert_eq!(got, model.into_iter().collect::<Vec<_>>());
        assert_eq!(
            a.metadata.partitions, before,
            "the copy it came from is unchanged"
        );
        // Without the memo the same requests give equal caches.
        let mut d = Broker::new(BrokerId(4));
        d.handle_request(&request(1, -1, body(&all)));
        d.handle_request(&request(1, -1, body(&change)));
        assert_eq!(d.metadata, a.metadata);
        let order: Vec<u32> = d
            .metadata
            .partitions
            .iter()
            .map(|(tp, _)| tp.partition)
            .take(3)
            .collect();
        assert_eq!(order, vec![0, 1, 2], "iteration is in partition order");
    }

    #[test]
    fn a_full_update_metadata_gives_one_cache_whatever_each_broker_held() {
        // Kafka: MetadataCache.updateMetadata copies the cache, then replaces
        // each partition the request names (removes it for LeaderDuringDelete):
        // a request naming every cached partition leaves nothing of the old
        // cache, and one naming fewer keeps the others.
        let info = |tp: &TopicPartition, leader: i32, epoch: i32| PartitionStateInfo {
            tp: tp.clone(),
            controller_epoch: 1,
            leader,
            leader_epoch: epoch,
            lists: crate::broker::ReplicaLists::new(&[BrokerId(1), BrokerId(2)], &[BrokerId(1)]),
            zk_version: 0,
            is_new: false,
        };
        let tps: Vec<TopicPartition> = (0..300).map(|p| TopicPartition::new("t", p)).collect();
        let states =
            |f: &dyn Fn(u32) -> Option<(i32, i32)>| -> crate::controller::channel::SharedStates {
                tps.iter()
                    .filter_map(|tp| f(tp.partition).map(|(l, e)| std::rc::Rc::new(info(tp, l, e))))
                    .collect()
            };
        let body =
            |partitions: &crate::controller::channel::SharedStates| RequestBody::UpdateMetadata {
                partitions: partitions.clone(),
                live_brokers: vec![BrokerId(1), BrokerId(2)],
            };
        let model_of = |b: &Broker| -> std::collections::BTreeMap<TopicPartition, (i32, i32)> {
            b.metadata
                .partitions
                .iter()
                .map(|(tp, p)| (tp.clone(), (p.leader, p.leader_epoch)))
                .collect()
        };
        let apply = |m: &mut std::collections::BTreeMap<TopicPartition, (i32, i32)>,
                     s: &crate::controller::channel::SharedStates| {
            for p in s.iter() {
                if p.leader < NO_LEADER {
                    m.remove(&p.tp);
                } else {
                    m.insert(p.tp.clone(), (p.leader, p.leader_epoch));
                }
            }
        };
        let mut memo = MetadataMemo::default();
        // Different bases: empty, the first half, all 300 at epoch 1, and
        // all 300 plus one partition the full request does not name.
        let half = states(&|p| (p < 150).then_some((1, 1)));
        let old = states(&|_| Some((2, 1)));
        let extra_tp = TopicPartition::new("u", 0);
        let extra: crate::controller::channel::SharedStates =
            vec![std::rc::Rc::new(info(&extra_tp, 1, 1))].into();
        let mut brokers: Vec<Broker> = (1..=5).map(|i| Broker::new(BrokerId(i))).collect();
        brokers[1].handle_request_with(&request(1, -1, body(&half)), &mut memo);
        brokers[2].handle_request_with(&request(1, -1, body(&old)), &mut memo);
        brokers[3].handle_request_with(&request(1, -1, body(&old)), &mut memo);
        brokers[3].handle_request_with(&request(1, -1, body(&extra)), &mut memo);
        // A copy of broker 2 before the full request (a timeline snapshot).
        let snapshot = brokers[2].clone();
        let snapshot_model = model_of(&snapshot);
        // The full request: new leaders, one partition being deleted, and
        // partitions the half base never had.
        let full = states(&|p| {
            Some(if p == 5 {
                (LEADER_DURING_DELETE, 2)
            } else {
                (1 + p as i32 % 3, 2)
            })
        });
        let mut models: Vec<_> = brokers.iter().map(model_of).collect();
        for (b, m) in brokers.iter_mut().zip(models.iter_mut()) {
            b.handle_request_with(&request(1, -1, body(&full)), &mut memo);
            apply(m, &full);
        }
        for (b, m) in brokers.iter().zip(&models) {
            assert_eq!(&model_of(b), m, "broker {}", b.id);
        }
        assert_eq!(brokers[0].metadata.partitions.len(), 299);
        // Every broker whose cache the request covered shares one result.
        for i in [1, 2, 4] {
            assert!(brokers[0]
                .metadata
                .partitions
                .same_copy(&brokers[i].metadata.partitions));
        }
        // Broker 4 kept the partition the request did not name.
        assert_eq!(brokers[3].metadata.partitions.len(), 300);
        assert_eq!(brokers[3].metadata.partitions[&extra_tp].leader, 1);
        assert!(!brokers[0]
            .metadata
            .partitions
            .same_copy(&brokers[3].metadata.partitions));
        // The snapshot is unchanged.
        assert_eq!(model_of(&snapshot), snapshot_model);
        // Without the memo, the same requests give equal caches.
        let mut alone = Broker::new(BrokerId(9));
        alone.handle_request(&request(1, -1, body(&half)));
        alone.handle_request(&request(1, -1, body(&full)));
        assert_eq!(alone.metadata, brokers[1].metadata);
        // A request not in partition order is applied all the same (and
        // shared only between brokers whose caches were empty or the same).
        let mut reversed: Vec<_> = full.iter().cloned().collect();
        reversed.reverse();
        let reversed: crate::controller::channel::SharedStates = reversed.into();
        let (mut e, mut f, mut g) = (
            brokers[1].clone(),
            Broker::new(BrokerId(7)),
            Broker::new(BrokerId(8)),
        );
        let mut me = model_of(&e);
        e.handle_request_with(&request(1, -1, body(&old)), &mut memo);
        apply(&mut me, &old);
        e.handle_request_with(&request(1, -1, body(&reversed)), &mut memo);
        apply(&mut me, &reversed);
        f.handle_request_with(&request(1, -1, body(&reversed)), &mut memo);
        g.handle_request_with(&request(1, -1, body(&reversed)), &mut memo);
        assert_eq!(model_of(&e), me);
        assert_eq!(f.metadata.partitions, brokers[0].metadata.partitions);
        assert!(f.metadata.partitions.same_copy(&g.metadata.partitions));
    }
}
