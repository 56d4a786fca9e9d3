//! ControllerBrokerRequestBatch: state transitions add requests here; one
//! `send` turns them into LeaderAndIsr, then UpdateMetadata, then StopReplica.
//!
//! Additions are appended and put in partition order once, when the batch is
//! sent (a later addition for the same broker and partition replaces an
//! earlier one, as Kafka's maps do): a failover adds tens of thousands of
//! entries, and sorting them once costs far less than keeping maps sorted.

use super::channel::{
    PartitionStateInfo, RequestBody, SharedState, LEADER_DURING_DELETE, NO_LEADER,
};
use super::context::{ControllerContext, LeaderIsr};
use super::{Env, RequestDraft};
use crate::broker::PartitionCache;
use crate::ids::{BrokerId, TopicPartition};
use std::collections::{BTreeMap, BTreeSet};

/// Requests being gathered during one state-machine call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestBatch {
    /// LeaderAndIsr entries per broker, in the order added: at the broker's
    /// index for ids below [`BY_ID`] (found without a search: a failover
    /// adds one per replica), in the map for any other id.
    leader_and_isr_by_id: Vec<Vec<SharedState>>,
    /// LeaderAndIsr entries for ids from [`BY_ID`] on (none a live broker
    /// has: scenarios allow ids up to 1,000; kept all the same).
    leader_and_isr: BTreeMap<BrokerId, Vec<SharedState>>,
    update_metadata_brokers: BTreeSet<BrokerId>,
    /// UpdateMetadata goes to every live or shutting-down broker (what
    /// `addLeaderAndIsrRequestForBrokers` adds). The set of live brokers
    /// does not change while a batch is gathered (no state-machine call
    /// changes it), so the set is read once, when the batch is sent.
    update_metadata_to_all_live: bool,
    /// How many brokers were live when that was asked (checked in debug builds).
    live_when_added: usize,
    /// Partitions for UpdateMetadata, in the order added (duplicates too).
    update_metadata_partitions: Vec<TopicPartition>,
    /// The LeaderAndIsr states built, one per addition, in the order
    /// added: an UpdateMetadata state equal to one of them is that state,
    /// shared (a failover's start-up batch names each partition once, in
    /// partition order, and its UpdateMetadata states are the same ones).
    leader_and_isr_states: Vec<SharedState>,
    /// Whether each of those states not marked new is, by its adder's
    /// word, what the context holds for its partition when the batch is
    /// sent (see [`RequestBatch::states_stay_current`]).
    states_current: bool,
    /// StopReplica entries per broker with their `delete` flag, in the order added.
    stop_replica: BTreeMap<BrokerId, Vec<(TopicPartition, bool)>>,
    /// Where the sending is ([`RequestBatch::send_from`]).
    sending: Sending,
    /// The UpdateMetadata states built so far, while it is sent.
    update_metadata_states: Vec<SharedState>,
    /// The first of `leader_and_isr_states` not yet walked past, while the
    /// UpdateMetadata states are built.
    built_at: usize,
}

/// Where a [`RequestBatch`] being sent is: its requests go in this order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Sending {
    /// Still gathering.
    #[default]
    NotYet,
    /// LeaderAndIsr requests: the next list by broker id below [`BY_ID`],
    /// then the map's.
    LeaderAndIsr(usize),
    /// UpdateMetadata: its partitions sorted, each once.
    UpdateMetadataStart,
    /// UpdateMetadata: its states built up to this position in its
    /// partitions, then the requests.
    UpdateMetadata(usize),
    /// StopReplica requests, a broker at a time.
    StopReplica,
}

/// Broker ids below this have their LeaderAndIsr list at their index.
const BY_ID: u32 = 4096;

/// No replicas (a partition with no assignment).
pub static NO_REPLICAS: crate::broker::ReplicaIds = crate::broker::ReplicaIds::new();

/// The wire form of a partition's leadership: the ISR and the replicas as a
/// [`ReplicaLists`](crate::broker::ReplicaLists) (in place for up to three
/// replicas and an ISR among them: a few words, no allocation).
pub fn partition_info(
    tp: &TopicPartition,
    l: &LeaderIsr,
    replicas: &[BrokerId],
    is_new: bool,
) -> PartitionStateInfo {
    PartitionStateInfo {
        tp: tp.clone(),
        controller_epoch: l.controller_epoch,
        leader: l.leader.map_or(NO_LEADER, |b| b.0 as i32),
        leader_epoch: l.leader_epoch,
        lists: crate::broker::ReplicaLists::new(replicas, &l.isr),
        zk_version: l.zk_version,
        is_new,
    }
}

/// What [`partition_info`] builds for `tp`, with its leader then set to
/// `leader` if given: the state `known` holds for `tp` if that is equal
/// field for field (shared, nothing built), else a new one.
fn shared_info(
    known: Option<&PartitionCache>,
    tp: &TopicPartition,
    l: &LeaderIsr,
    replicas: &[BrokerId],
    is_new: bool,
    leader: Option<i32>,
) -> SharedState {
    if let Some(same) = known
        .and_then(|k| k.shared(tp))
        .filter(|s| s.tp == *tp && is_partition_info(s, l, replicas, is_new, leader))
    {
        return std::rc::Rc::clone(same);
    }
    let mut info = partition_info(tp, l, replicas, is_new);
    if let Some(leader) = leader {
        info.leader = leader;
    }
    std::rc::Rc::new(info)
}

/// Whether `info` is what [`partition_info`] builds for its partition from
/// `l`, `replicas` and `is_new`, with its leader then set to `leader` if
/// given: equal field for field, without building it.
fn is_partition_info(
    info: &PartitionStateInfo,
    l: &LeaderIsr,
    replicas: &[BrokerId],
    is_new: bool,
    leader: Option<i32>,
) -> bool {
    let leader = leader.unwrap_or_else(|| l.leader.map_or(NO_LEADER, |b| b.0 as i32));
    info.controller_epoch == l.controller_epoch
        && info.leader == leader
        && info.leader_epoch == l.leader_epoch
        && info.lists.with_isr(|isr| isr == &l.isr[..])
        && info.zk_version == l.zk_version
        && info.replicas() == replicas
        && info.is_new == is_new
}

impl RequestBatch {
    /// `addLeaderAndIsrRequestForBrokers`: LeaderAndIsr to `brokers`, and
    /// UpdateMetadata for the partition to every live or shutting-down broker.
    pub fn add_leader_and_isr(
        &mut self,
        ctx: &ControllerContext,
        brokers: &[BrokerId],
        tp: &TopicPartition,
        l: &LeaderIsr,
        is_new: bool,
    ) {
        let replicas = ctx.assignments.get(tp).unwrap_or(&NO_REPLICAS);
        self.add_leader_and_isr_with_replicas(ctx, brokers, tp, l, replicas, is_new);
    }

    /// `add_leader_and_isr` with the partition's assigned replicas already
    /// looked up (`replicas` is `ctx.assignments[tp]`, or empty if none).
    pub fn add_leader_and_isr_with_replicas(
        &mut self,
        ctx: &ControllerContext,
        brokers: &[BrokerId],
        tp: &TopicPartition,
        l: &LeaderIsr,
        replicas: &[BrokerId],
        is_new: bool,
    ) {
        self.add_leader_and_isr_known(ctx, brokers, tp, l, replicas, is_new, None);
    }

    /// `add_leader_and_isr_with_replicas`, the partition's state shared with
    /// an equal one in `known` if it holds one ([`Env::known_states`]).
    #[allow(clippy::too_many_arguments)]
    pub fn add_leader_and_isr_known(
        &mut self,
        ctx: &ControllerContext,
        brokers: &[BrokerId],
        tp: &TopicPartition,
        l: &LeaderIsr,
        replicas: &[BrokerId],
        is_new: bool,
        known: Option<&PartitionCache>,
    ) {
        // Built once and shared by each broker's list.
        if let Some((last, rest)) = brokers.split_last() {
            let info = shared_info(known, tp, l, replicas, is_new, None);
            for b in rest {
                self.leader_and_isr_list(*b).push(std::rc::Rc::clone(&info));
            }
            self.leader_and_isr_states.push(std::rc::Rc::clone(&info));
            self.leader_and_isr_list(*last).push(info);
        }
        self.add_update_metadata_to_all_live(ctx, std::slice::from_ref(tp));
    }

    /// Room for `n` more LeaderAndIsr entries to `to` (what a caller that
    /// knows how many it will add can ask, so the list is not grown and
    /// copied as it fills; nothing is added).
    pub fn reserve_leader_and_isr(&mut self, to: BrokerId, n: usize) {
        if n > 0 {
            self.leader_and_isr_list(to).reserve(n);
        }
    }

    /// Room for `n` more partitions for UpdateMetadata (as
    /// [`RequestBatch::reserve_leader_and_isr`]; nothing is added).
    pub fn reserve_update_metadata(&mut self, n: usize) {
        self.update_metadata_partitions.reserve(n);
        self.leader_and_isr_states.reserve(n);
    }

    /// The adder's word that every LeaderAndIsr state of this batch not
    /// marked new is built from its partition's leadership and assignment
    /// as the context holds them when the batch is sent, unless the
    /// partition is added twice (a failover's start-up batch; the state
    /// machines' batches, whose states are the leaderships just written or
    /// read): an UpdateMetadata state is then that state, taken without
    /// looking the partition up again (checked in debug builds). A batch
    /// with a partition added twice, or out of order, looks every state up.
    pub fn states_stay_current(&mut self) {
        self.states_current = true;
    }

    /// The LeaderAndIsr list of `to`.
    fn leader_and_isr_list(&mut self, to: BrokerId) -> &mut Vec<SharedState> {
        if to.0 < BY_ID {
            let i = to.0 as usize;
            if self.leader_and_isr_by_id.len() <= i {
                self.leader_and_isr_by_id.resize_with(i + 1, Vec::new);
            }
            if let Some(list) = self.leader_and_isr_by_id.get_mut(i) {
                return list;
            }
        }
        self.leader_and_isr.entry(to).or_default()
    }

    /// `addUpdateMetadataRequestForBrokers` to every live or shutting-down broker.
    pub fn add_update_metadata_to_all_live(
        &mut self,
        ctx: &ControllerContext,
        partitions: &[TopicPartition],
    ) {
        if !ctx.live_brokers.is_empty() {
            debug_assert!(
                !self.update_metadata_to_all_live || self.live_when_added == ctx.live_brokers.len(),
                "the live brokers changed while a request batch was gathered"
            );
            self.update_metadata_to_all_live = true;
            self.live_when_added = ctx.live_brokers.len();
        }
        self.update_metadata_partitions
            .extend(partitions.iter().cloned());
    }

    /// `addUpdateMetadataRequestForBrokers`.
    pub fn add_update_metadata(
        &mut self,
        brokers: &BTreeSet<BrokerId>,
        partitions: &[TopicPartition],
    ) {
        self.update_metadata_brokers.extend(brokers.iter().copied());
        self.update_metadata_partitions
            .extend(partitions.iter().cloned());
    }

    /// `addStopReplicaRequestForBrokers`.
    pub fn add_stop_replica(&mut self, brokers: &[BrokerId], tp: &TopicPartition, delete: bool) {
        for b in brokers {
            self.stop_replica
                .entry(*b)
                .or_default()
                .push((tp.clone(), delete));
        }
    }

    /// Whether nothing has been added.
    pub fn is_empty(&self) -> bool {
        self.leader_and_isr_by_id.iter().all(Vec::is_empty)
            && self.leader_and_isr.values().all(Vec::is_empty)
            && self.update_metadata_brokers.is_empty()
            && !self.update_metadata_to_all_live
            && self.stop_replica.is_empty()
    }

    /// `sendRequestsToBrokers`: LeaderAndIsr, then UpdateMetadata, then
    /// StopReplica; only to live or shutting-down brokers.
    ///
    /// Building each request costs the event thread time (charged on the
    /// client's meter), and each leaves for its channel as soon as it is
    /// built: a batch sent early in an event reaches brokers before the
    /// event's later work is done.
    pub fn send(mut self, ctx: &ControllerContext, deleting: &BTreeSet<String>, env: &mut Env<'_>) {
        self.send_from(ctx, deleting, env, None);
    }

    /// [`RequestBatch::send`] from where the sending is. With `slice`, it
    /// stops once about that many partitions' entries went into requests
    /// since it was called, between two requests or inside an
    /// UpdateMetadata's partitions (false); true when every request is
    /// sent (the batch is then empty). A long controller event sends a
    /// batch for 200,000 partitions by pieces this way: the requests, their
    /// order and their times are the ones a single send makes.
    pub fn send_from(
        &mut self,
        ctx: &ControllerContext,
        deleting: &BTreeSet<String>,
        env: &mut Env<'_>,
        slice: Option<usize>,
    ) -> bool {
        let slice = slice.map_or(usize::MAX, |n| n.max(1));
        let mut done = 0usize;
        let epoch = ctx.epoch;
        let push = |env: &mut Env<'_>, to: BrokerId, body: RequestBody, partitions: usize| {
            env.client.meter.request(partitions as u64);
            env.out.requests.push(RequestDraft {
                to,
                broker_epoch: ctx.live_brokers.get(&to).copied().unwrap_or(-1),
                controller_epoch: epoch,
                body,
                sent_at_us: env.client.meter.elapsed_us,
            });
        };
        loop {
            if done >= slice {
                return false;
            }
            match self.sending {
                Sending::NotYet => {
                    debug_assert!(
                        !self.update_metadata_to_all_live
                            || self.live_when_added == ctx.live_brokers.len(),
                        "the live brokers changed while a request batch was gathered"
                    );
                    self.sending = Sending::LeaderAndIsr(0);
                }
                // In broker order: the listed ids are all below the map's.
                Sending::LeaderAndIsr(i) => {
                    let (to, parts) = match self.leader_and_isr_by_id.get_mut(i) {
                        Some(parts) => {
                            self.sending = Sending::LeaderAndIsr(i + 1);
                            (BrokerId(i as u32), std::mem::take(parts))
                        }
                        None => match self.leader_and_isr.pop_first() {
                            Some(next) => next,
                            None => {
                                self.leader_and_isr_by_id = Vec::new();
                                self.sending = Sending::UpdateMetadataStart;
                                continue;
                            }
                        },
                    };
                    // (A list reserved and never added to is no request.)
                    if !parts.is_empty() && ctx.live_brokers.contains_key(&to) {
                        let partitions = in_partition_order(
                            parts,
                            |p| &p.tp,
                            |kept, earlier| {
                                // An entry already marked new stays new (the kept
                                // state is copied first if other brokers' lists
                                // share it: only this broker's entry changes).
                                if earlier.is_new && !kept.is_new {
                                    std::rc::Rc::make_mut(kept).is_new = true;
                                }
                            },
                        );
                        let n = partitions.len();
                        done = done.saturating_add(n);
                        push(env, to, RequestBody::LeaderAndIsr { partitions }, n);
                    }
                }
                Sending::UpdateMetadataStart => {
                    if !self.update_metadata_to_all_live && self.update_metadata_brokers.is_empty()
                    {
                        self.sending = Sending::StopReplica;
                        continue;
                    }
                    let tps = &mut self.update_metadata_partitions;
                    tps.sort_unstable();
                    tps.dedup();
                    // The LeaderAndIsr states, if in partition order and each once
                    // (else none is looked at): a state equal to one of them is
                    // shared, not built again.
                    let built = &mut self.leader_and_isr_states;
                    if !built.windows(2).all(|w| w[0].tp < w[1].tp) {
                        built.clear();
                    }
                    self.built_at = 0;
                    self.update_metadata_states.reserve_exact(tps.len());
                    self.sending = Sending::UpdateMetadata(0);
                }
                Sending::UpdateMetadata(at) => {
                    let tps = &self.update_metadata_partitions;
                    let end = tps.len().min(at.saturating_add(slice - done));
                    for tp in tps.get(at..end).unwrap_or(&[]) {
                        let state = update_metadata_state(
                            &self.leader_and_isr_states,
                            &mut self.built_at,
                            self.states_current,
                            ctx,
                            deleting,
                            tp,
                            env.known_states,
                        );
                        self.update_metadata_states.extend(state);
                    }
                    done += end - at;
                    self.sending = Sending::UpdateMetadata(end);
                    if end < tps.len() {
                        continue;
                    }
                    let partitions: super::channel::SharedStates =
                        std::mem::take(&mut self.update_metadata_states).into();
                    let live: Vec<BrokerId> = ctx.live_or_shutting_down().into_iter().collect();
                    // Only live or shutting-down brokers get it: with every live
                    // broker asked for, that is exactly the live ones.
                    let recipients: Vec<BrokerId> = if self.update_metadata_to_all_live {
                        live.clone()
                    } else {
                        std::mem::take(&mut self.update_metadata_brokers)
                            .into_iter()
                            .filter(|to| ctx.live_brokers.contains_key(to))
                            .collect()
                    };
                    // The partition states are built once and shared by every
                    // broker's request.
                    let mut states = partitions.len();
                    for to in recipients {
                        let body = RequestBody::UpdateMetadata {
                            partitions: partitions.clone(),
                            live_brokers: live.clone(),
                        };
                        push(env, to, body, std::mem::take(&mut states));
                    }
                    // Freed now: the rest of the batch is reset once sent.
                    self.update_metadata_partitions = Vec::new();
                    self.leader_and_isr_states = Vec::new();
                    self.sending = Sending::StopReplica;
                }
                Sending::StopReplica => {
                    let Some((to, parts)) = self.stop_replica.pop_first() else {
                        *self = RequestBatch::default();
                        return true;
                    };
                    if !ctx.live_brokers.contains_key(&to) {
                        continue;
                    }
                    let parts = in_partition_order(
                        parts,
                        |(tp, _)| tp,
                        |kept, earlier| {
                            // Once asked to delete, the replica is deleted.
                            kept.1 |= earlier.1;
                        },
                    );
                    done = done.saturating_add(parts.len());
                    for delete in [false, true] {
                        let list: Vec<TopicPartition> = parts
                            .iter()
                            .filter(|(_, d)| *d == delete)
                            .map(|(tp, _)| tp.clone())
                            .collect();
                        if !list.is_empty() {
                            let n = list.len();
                            let body = RequestBody::StopReplica {
                                partitions: list,
                                delete,
                            };
                            push(env, to, body, n);
                        }
                    }
                }
            }
        }
    }
}

/// The UpdateMetadata state of `tp` (none without a leadership): one of the
/// LeaderAndIsr states `built` where it is the same, walked beside the
/// partitions in order from `built_at`; `current`: the adder's word that
/// they stay current ([`RequestBatch::states_stay_current`]).
fn update_metadata_state(
    built: &[SharedState],
    built_at: &mut usize,
    current: bool,
    ctx: &ControllerContext,
    deleting: &BTreeSet<String>,
    tp: &TopicPartition,
    known: Option<&PartitionCache>,
) -> Option<SharedState> {
    let mut next_built = |pred: &dyn Fn(&SharedState) -> bool| {
        let s = built.get(*built_at).filter(|s| pred(s))?;
        *built_at += 1;
        Some(std::rc::Rc::clone(s))
    };
    while next_built(&|s| s.tp < *tp).is_some() {}
    let deleted = deleting.contains(tp.topic.as_str());
    if current && !deleted {
        if let Some(same) = next_built(&|s| s.tp == *tp && !s.is_new) {
            debug_assert!(
                ctx.leadership.get(tp).is_some_and(|l| {
                    let replicas = ctx.assignments.get(tp).unwrap_or(&NO_REPLICAS);
                    is_partition_info(&same, l, replicas, false, None)
                }),
                "a state said to stay current changed: {same:?}"
            );
            return Some(same);
        }
    }
    let l = ctx.leadership.get(tp)?;
    let replicas = ctx.assignments.get(tp).unwrap_or(&NO_REPLICAS);
    let leader = deleted.then_some(LEADER_DURING_DELETE);
    // Compared field by field before a state is built: an equal one is
    // shared, and nothing is built.
    match next_built(&|s| s.tp == *tp) {
        Some(same) if is_partition_info(&same, l, replicas, false, leader) => Some(same),
        _ => Some(shared_info(known, tp, l, replicas, false, leader)),
    }
}

/// Entries in partition order, one per partition: the last one added, with
/// `merge(kept, earlier)` folding in what an earlier one for the same
/// partition carried (what a map updated in place would hold).
fn in_partition_order<T>(
    mut entries: Vec<T>,
    tp: impl Fn(&T) -> &TopicPartition,
    merge: impl Fn(&mut T, &T),
) -> Vec<T> {
    // Added in partition order, each once (a failover's start-up adds them
    // so): already what the sort and merge would make.
    if entries.windows(2).all(|w| tp(&w[0]) < tp(&w[1])) {
        // Held as long as the request is: no spare room (shrinking in
        // place moves nothing).
        entries.shrink_to_fit();
        return entries;
    }
    // Stable: entries for one partition stay in the order they were added.
    entries.sort_by(|a, b| tp(a).cmp(tp(b)));
    let mut out: Vec<T> = Vec::with_capacity(entries.len());
    for mut e in entries {
        if let Some(last) = out.last_mut() {
            if tp(last) == tp(&e) {
                merge(&mut e, last);
                *last = e;
                continue;
            }
        }
        out.push(e);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::election::BrokerIds;
    use std::collections::BTreeMap;

    /// What `batch` sends, as an event of controller 7 at time 0 would.
    fn sent(
        batch: RequestBatch,
        ctx: &ControllerContext,
        deleting: &BTreeSet<String>,
    ) -> super::super::Outbox {
        sent_knowing(batch, ctx, deleting, None)
    }

    /// [`sent`] by a controller whose broker holds `known` states.
    fn sent_knowing(
        batch: RequestBatch,
        ctx: &ControllerContext,
        deleting: &BTreeSet<String>,
        known: Option<&PartitionCache>,
    ) -> super::super::Outbox {
        let mut client = crate::zk_client::ZkClient::default();
        let mut zk = crate::zk::Zk::default();
        let config = crate::config::Config::default();
        let mut out = super::super::Outbox::default();
        let mut env = Env {
            now: crate::time::SimTime(0),
            me: BrokerId(7),
            client: &mut client,
            zk: &mut zk,
            config: &config,
            out: &mut out,
            may_stop: None,
            known_states: known,
        };
        batch.send(ctx, deleting, &mut env);
        out
    }

    /// What a map updated in place holds: the last entry added for each
    /// partition, with the `is_new` of any earlier one folded in.
    fn model(entries: &[(TopicPartition, u32, bool)]) -> Vec<(TopicPartition, u32, bool)> {
        let mut map: BTreeMap<TopicPartition, (u32, bool)> = BTreeMap::new();
        for (tp, v, new) in entries {
            let earlier = map.get(tp).is_some_and(|e| e.1);
            map.insert(tp.clone(), (*v, *new || earlier));
        }
        map.into_iter().map(|(tp, (v, n))| (tp, v, n)).collect()
    }

    // In order and each once (the fast path), out of order, and repeated:
    // the same as the map, every time.
    #[test]
    fn in_partition_order_is_what_a_map_updated_in_place_holds() {
        let tp = |t: &str, p: u32| TopicPartition::new(crate::ids::Topic::from(t), p);
        let sorted: Vec<(TopicPartition, u32, bool)> = (0..12)
            .map(|p| (tp(if p < 6 { "a" } else { "b" }, p % 6), p, p % 3 == 0))
            .collect();
        let mut reversed = sorted.clone();
        reversed.reverse();
        let mut repeated = sorted.clone();
        repeated.extend(
            sorted
                .iter()
                .step_by(2)
                .map(|(t, v, _)| (t.clone(), v + 100, false)),
        );
        let mut one_repeat = sorted.clone();
        one_repeat.insert(3, sorted[3].clone());
        for entries in [vec![], sorted, reversed, repeated, one_repeat] {
            let got = in_partition_order(
                entries.clone(),
                |e| &e.0,
                |kept, earlier| kept.2 |= earlier.2,
            );
            assert_eq!(got, model(&entries));
        }
    }

    // Kafka: ControllerBrokerRequestBatch.sendRequestsToBrokers sends one
    // LeaderAndIsr per broker, in broker order (its map of brokers), with
    // each broker's partitions as its map holds them. Ids below and above
    // the indexed range alike: the requests a map of brokers would give.
    #[test]
    fn leader_and_isr_lists_go_out_in_broker_order_whatever_the_id() {
        let tp = |p: u32| TopicPartition::new(crate::ids::Topic::from("t"), p);
        let ids = [7u32, 0, 4095, 4096, 3, 4_000_000_000, 1000, 4097];
        let mut ctx = ControllerContext::default();
        for (n, id) in ids.iter().enumerate() {
            // Every id but the last is live (and so gets its request).
            if n + 1 < ids.len() {
                ctx.live_brokers.insert(BrokerId(*id), 10 + n as i64);
            }
        }
        let l = LeaderIsr {
            leader: Some(BrokerId(7)),
            leader_epoch: 1,
            isr: vec![BrokerId(7)].into(),
            zk_version: 0,
            controller_epoch: 1,
        };
        let mut batch = RequestBatch::default();
        let mut model: BTreeMap<BrokerId, Vec<u32>> = BTreeMap::new();
        batch.reserve_leader_and_isr(BrokerId(4096), 3);
        for p in [5u32, 1, 9, 2] {
            // A different set of recipients for each partition, in no order.
            let to: Vec<BrokerId> = ids
                .iter()
                .enumerate()
                .filter(|(n, _)| (*n as u32 + p) % 3 != 0)
                .map(|(_, id)| BrokerId(*id))
                .collect();
            batch.add_leader_and_isr_with_replicas(&ctx, &to, &tp(p), &l, &NO_REPLICAS, false);
            for b in &to {
                if ctx.live_brokers.contains_key(b) {
                    model.entry(*b).or_default().push(p);
                }
            }
        }
        assert!(!batch.is_empty());
        let out = sent(batch, &ctx, &BTreeSet::new());
        let got: Vec<(BrokerId, i64, Vec<u32>)> = out
            .requests
            .iter()
            .filter_map(|r| match &r.body {
                RequestBody::LeaderAndIsr { partitions } => Some((
                    r.to,
                    r.broker_epoch,
                    partitions.iter().map(|p| p.tp.partition).collect(),
                )),
                _ => None,
            })
            .collect();
        let want: Vec<(BrokerId, i64, Vec<u32>)> = model
            .into_iter()
            .map(|(b, mut ps)| {
                ps.sort_unstable();
                let epoch = ctx.live_brokers.get(&b).copied().unwrap_or(-1);
                (b, epoch, ps)
            })
            .collect();
        assert_eq!(got, want);
        assert_eq!(got.len(), 7, "every live broker got one");
    }

    // Kafka: ControllerBrokerRequestBatch.addLeaderAndIsrRequestForBrokers
    // keeps one entry per broker and partition, `isNew = isNew || alreadyNew`
    // of that broker's earlier entry. A state shared by several brokers'
    // lists and marked new for one of them stays as it was for the others.
    #[test]
    fn a_shared_state_marked_new_for_one_broker_is_new_for_that_broker_only() {
        let tp = |p: u32| TopicPartition::new(crate::ids::Topic::from("t"), p);
        let mut ctx = ControllerContext::default();
        for b in 1..=3 {
            ctx.live_brokers.insert(BrokerId(b), 10 + i64::from(b));
        }
        let l = |epoch: i32| LeaderIsr {
            leader: Some(BrokerId(1)),
            leader_epoch: epoch,
            isr: vec![BrokerId(1), BrokerId(2)].into(),
            zk_version: 0,
            controller_epoch: 1,
        };
        let all = [BrokerId(1), BrokerId(2), BrokerId(3)];
        let replicas = BrokerIds::from(&all[..]);
        // (recipients, partition, leader epoch, is_new), in the order added.
        let adds: Vec<(Vec<BrokerId>, u32, i32, bool)> = vec![
            (vec![BrokerId(2)], 4, 1, true),
            (all.to_vec(), 4, 2, false),
            (all.to_vec(), 1, 3, false),
            (vec![BrokerId(3)], 1, 4, false),
            (vec![BrokerId(1), BrokerId(3)], 0, 5, true),
            (all.to_vec(), 0, 6, false),
        ];
        let mut batch = RequestBatch::default();
        // The model: one map per broker, updated in place as Kafka's is.
        let mut model: BTreeMap<BrokerId, BTreeMap<u32, (i32, bool)>> = BTreeMap::new();
        for (to, p, epoch, new) in &adds {
            batch.add_leader_and_isr_with_replicas(&ctx, to, &tp(*p), &l(*epoch), &replicas, *new);
            for b in to {
                let m = model.entry(*b).or_default();
                let already = m.get(p).is_some_and(|e| e.1);
                m.insert(*p, (*epoch, *new || already));
            }
        }
        let out = sent(batch, &ctx, &BTreeSet::new());
        let got: BTreeMap<BrokerId, BTreeMap<u32, (i32, bool)>> = out
            .requests
            .iter()
            .filter_map(|r| match &r.body {
                RequestBody::LeaderAndIsr { partitions } => Some((
                    r.to,
                    partitions
                        .iter()
                        .map(|p| (p.tp.partition, (p.leader_epoch, p.is_new)))
                        .collect(),
                )),
                _ => None,
            })
            .collect();
        assert_eq!(got, model);
        assert_eq!(got[&BrokerId(2)][&4], (2, true), "new for broker 2");
        assert_eq!(got[&BrokerId(1)][&4], (2, false), "not for broker 1");
        assert_eq!(got[&BrokerId(3)][&4], (2, false), "nor for broker 3");
    }

    // Kafka: ControllerBrokerRequestBatch.sendUpdateMetadataRequests builds
    // each partition's state from the controller's context when the batch
    // is sent. A LeaderAndIsr state equal to it is shared, not copied; one
    // that differs (the leadership changed since it was added, the topic is
    // being deleted, the replica is new) is not.
    #[test]
    fn update_metadata_states_are_the_context_s_and_shared_only_when_equal() {
        let tp =
            |p: u32| TopicPartition::new(crate::ids::Topic::from(if p < 5 { "a" } else { "d" }), p);
        let mut ctx = ControllerContext::default();
        for b in 1..=3 {
            ctx.live_brokers.insert(BrokerId(b), 10 + i64::from(b));
        }
        let all = BrokerIds::from(&[BrokerId(1), BrokerId(2), BrokerId(3)][..]);
        let l = |epoch: i32| LeaderIsr {
            leader: Some(BrokerId(1)),
            leader_epoch: epoch,
            isr: vec![BrokerId(1), BrokerId(2)].into(),
            zk_version: epoch,
            controller_epoch: 1,
        };
        for p in [0, 1, 2, 3, 5] {
            ctx.leadership.insert(tp(p), l(p as i32 + 10));
            ctx.assignments.insert(tp(p), all.clone().into());
        }
        let deleting: BTreeSet<String> = ["d".to_string()].into();
        // (partition, the leadership added, is_new)
        let adds = [
            (0, l(10), false),
            (1, l(11), false),
            (2, l(1), false),
            (3, l(13), true),
            (5, l(15), false),
        ];
        let run = |order: &[usize]| {
            let mut batch = RequestBatch::default();
            for i in order {
                let (p, l, new) = &adds[*i];
                batch.add_leader_and_isr_with_replicas(
                    &ctx,
                    &[BrokerId(2), BrokerId(3)],
                    &tp(*p),
                    l,
                    &all,
                    *new,
                );
            }
            let out = sent(batch, &ctx, &deleting);
            out.requests
        };
        for order in [vec![0, 1, 2, 3, 4], vec![4, 3, 2, 1, 0]] {
            let requests = run(&order);
            let lai: Vec<&SharedState> = requests
                .iter()
                .find_map(|r| match &r.body {
                    RequestBody::LeaderAndIsr { partitions } => Some(partitions.iter().collect()),
                    _ => None,
                })
                .unwrap_or_default();
            let ums: Vec<&crate::controller::channel::SharedStates> = requests
                .iter()
                .filter_map(|r| match &r.body {
                    RequestBody::UpdateMetadata { partitions, .. } => Some(partitions),
                    _ => None,
                })
                .collect();
            assert_eq!(ums.len(), 3, "one UpdateMetadata to each live broker");
            let um = ums[0];
            // The model: each state as the context holds it when sent.
            let want: Vec<PartitionStateInfo> = [0, 1, 2, 3, 5]
                .iter()
                .map(|p| {
                    let mut info = partition_info(&tp(*p), &l(*p as i32 + 10), &all, false);
                    if *p == 5 {
                        info.leader = LEADER_DURING_DELETE;
                    }
                    info
                })
                .collect();
            let got: Vec<PartitionStateInfo> = um.iter().map(|s| (**s).clone()).collect();
            assert_eq!(got, want);
            assert_eq!(lai.len(), 5);
            // Shared only where equal, and only when added in order.
            let shared: Vec<bool> = um
                .iter()
                .zip(&lai)
                .map(|(u, l)| std::rc::Rc::ptr_eq(u, l))
                .collect();
            let in_order = order[0] == 0;
            assert_eq!(shared, vec![in_order, in_order, false, false, false]);
            assert!(ums.iter().all(|u| std::rc::Rc::ptr_eq(u, um)));
        }
    }

    // The in-place comparison is the built state's equality: a state differing
    // from what `partition_info` builds in any one field (or in the leader
    // set for a topic being deleted) is not taken for it.
    #[test]
    fn is_partition_info_is_equality_with_the_built_state() {
        let tp = TopicPartition::new("t", 3);
        let replicas = BrokerIds::from(&[BrokerId(1), BrokerId(2), BrokerId(3)][..]);
        let l = LeaderIsr {
            leader: Some(BrokerId(2)),
            leader_epoch: 7,
            isr: vec![BrokerId(2), BrokerId(3)].into(),
            zk_version: 5,
            controller_epoch: 4,
        };
        let mut variants: Vec<PartitionStateInfo> = Vec::new();
        let base = partition_info(&tp, &l, &replicas, false);
        variants.push(base.clone());
        let mut v = base.clone();
        v.controller_epoch += 1;
        variants.push(v);
        for leader in [NO_LEADER, LEADER_DURING_DELETE, 1, 3] {
            let mut v = base.clone();
            v.leader = leader;
            variants.push(v);
        }
        let mut v = base.clone();
        v.leader_epoch += 1;
        variants.push(v);
        let mut v = base.clone();
        v.lists = crate::broker::ReplicaLists::new(v.replicas(), &[BrokerId(2)]);
        variants.push(v);
        let mut v = base.clone();
        v.zk_version -= 1;
        variants.push(v);
        let mut v = base.clone();
        v.lists =
            crate::broker::ReplicaLists::new(&[BrokerId(1), BrokerId(3), BrokerId(2)], &v.isr());
        variants.push(v);
        let mut v = base.clone();
        v.is_new = true;
        variants.push(v);
        let no_leader = LeaderIsr {
            leader: None,
            ..l.clone()
        };
        for info in &variants {
            for lead in [&l, &no_leader] {
                for is_new in [false, true] {
                    for leader in [None, Some(LEADER_DURING_DELETE)] {
                        let mut built = partition_info(&tp, lead, &replicas, is_new);
                        if let Some(leader) = leader {
                            built.leader = leader;
                        }
                        assert_eq!(
                            is_partition_info(info, lead, &replicas, is_new, leader),
                            *info == built,
                            "{info:?} against {built:?}"
                        );
                    }
                }
            }
        }
    }

    // Kafka: sendUpdateMetadataRequests builds each partition's state from
    // the context when the batch is sent. A batch whose adder vouches its
    // states stay current sends exactly what one that looks them up sends
    // (a topic being deleted and a replica marked new still get their own),
    // sharing the LeaderAndIsr states where they are the same.
    #[test]
    fn states_said_to_stay_current_send_what_the_lookups_send() {
        let tp =
            |p: u32| TopicPartition::new(crate::ids::Topic::from(if p < 6 { "a" } else { "d" }), p);
        let mut ctx = ControllerContext::default();
        for b in 1..=3 {
            ctx.live_brokers.insert(BrokerId(b), 10 + i64::from(b));
        }
        let all = BrokerIds::from(&[BrokerId(1), BrokerId(2), BrokerId(3)][..]);
        for p in 0..8u32 {
            let l = LeaderIsr {
                leader: Some(BrokerId(1 + p % 3)),
                leader_epoch: p as i32,
                isr: vec![BrokerId(1 + p % 3)].into(),
                zk_version: p as i32 * 2,
                controller_epoch: 1,
            };
            ctx.leadership.insert(tp(p), l);
            ctx.assignments.insert(tp(p), all.clone().into());
        }
        let deleting: BTreeSet<String> = ["d".to_string()].into();
        let run = |current: bool| {
            let mut batch = RequestBatch::default();
            if current {
                batch.states_stay_current();
            }
            // Partition 4 has none added (its UpdateMetadata state is looked up).
            for p in [0u32, 1, 2, 3, 5, 6, 7] {
                let (t, l) = (tp(p), &ctx.leadership[&tp(p)]);
                batch.add_leader_and_isr_with_replicas(&ctx, &all[1..], &t, l, &all, p == 2);
            }
            batch.add_update_metadata_to_all_live(&ctx, &[tp(4)]);
            sent(batch, &ctx, &deleting).requests
        };
        let (looked_up, vouched) = (run(false), run(true));
        assert_eq!(vouched, looked_up);
        let um = |requests: &[RequestDraft]| -> Vec<bool> {
            let lai: Vec<SharedState> = requests
                .iter()
                .find_map(|r| match &r.body {
                    RequestBody::LeaderAndIsr { partitions } => Some(partitions.clone()),
                    _ => None,
                })
                .unwrap_or_default();
            requests
                .iter()
                .find_map(|r| match &r.body {
                    RequestBody::UpdateMetadata { partitions, .. } => Some(
                        partitions
                            .iter()
                            .map(|s| lai.iter().any(|l| std::rc::Rc::ptr_eq(l, s)))
                            .collect(),
                    ),
                    _ => None,
                })
                .unwrap_or_default()
        };
        // Shared: 0, 1, 3, 5; not: 2 (new), 4 (none added), 6, 7 (deleting).
        let want = vec![true, true, false, true, false, true, false, false];
        assert_eq!(um(&looked_up), want);
        assert_eq!(um(&vouched), want);
    }

    /// A state equal, field for field, to the one the controller's broker
    /// caches for its partition is that one (the same allocation), in
    /// LeaderAndIsr and in UpdateMetadata; a state that differs in any field
    /// is built anew; and the requests are the ones a controller whose
    /// broker caches nothing sends. (Kafka:
    /// `ControllerBrokerRequestBatch.addLeaderAndIsrRequestForBrokers` and
    /// `addUpdateMetadataRequestForBrokers` build each state from the
    /// controller's context, never from the broker's cache.)
    #[test]
    fn states_equal_to_the_brokers_cached_ones_are_those() {
        let tp = |p: u32| TopicPartition::new(crate::ids::Topic::from("t"), p);
        let all = BrokerIds::from(&[BrokerId(1), BrokerId(2), BrokerId(3)][..]);
        let l = |p: u32| LeaderIsr {
            leader: Some(BrokerId(1 + p % 3)),
            leader_epoch: p as i32,
            isr: vec![BrokerId(1), BrokerId(2)].into(),
            zk_version: 2 * p as i32,
            controller_epoch: 1,
        };
        let mut ctx = ControllerContext::default();
        for b in 1..=3 {
            ctx.live_brokers.insert(BrokerId(b), 10 + i64::from(b));
        }
        for p in 0..6 {
            ctx.leadership.insert(tp(p), l(p));
            ctx.assignments.insert(tp(p), all.clone().into());
        }
        // Cached: 0 to 4 as the context holds them, except 1 (a later
        // leader epoch), 2 (another zkVersion), 3 (marked new); 5 is not cached.
        let cached: Vec<SharedState> = (0..5)
            .map(|p| {
                let mut info = partition_info(&tp(p), &l(p), &all, p == 3);
                match p {
                    1 => info.leader_epoch += 1,
                    2 => info.zk_version += 1,
                    _ => {}
                }
                std::rc::Rc::new(info)
            })
            .collect();
        let known = PartitionCache::of_states(&cached);
        let none = BTreeSet::new();
        let build = |known: Option<&PartitionCache>, with_lai: bool| {
            let mut batch = RequestBatch::default();
            for p in 0..6 {
                if with_lai {
                    batch.add_leader_and_isr_known(&ctx, &all, &tp(p), &l(p), &all, false, known);
                } else {
                    batch.add_update_metadata_to_all_live(&ctx, &[tp(p)]);
                }
            }
            sent_knowing(batch, &ctx, &none, known).requests
        };
        let is_cached = |states: &[SharedState]| -> Vec<bool> {
            states
                .iter()
                .map(|s| cached.iter().any(|c| std::rc::Rc::ptr_eq(c, s)))
                .collect()
        };
        let want = vec![true, false, false, false, true, false];
        for with_lai in [true, false] {
            let requests = build(Some(&known), with_lai);
            assert_eq!(
                requests,
                build(None, with_lai),
                "with LeaderAndIsr: {with_lai}"
            );
            let mut kinds = 0;
            for r in &requests {
                let states: &[SharedState] = match &r.body {
                    RequestBody::LeaderAndIsr { partitions } => partitions,
                    RequestBody::UpdateMetadata { partitions, .. } => partitions,
                    _ => continue,
                };
                kinds += 1;
                assert_eq!(is_cached(states), want, "{r:?}");
            }
            assert_eq!(kinds, if with_lai { 6 } else { 3 });
        }
    }

    // A list reserved and never added to leaves the batch empty.
    #[test]
    fn a_reservation_alone_adds_nothing() {
        let mut batch = RequestBatch::default();
        batch.reserve_leader_and_isr(BrokerId(1), 10);
        assert!(batch.is_empty());
    }
}
