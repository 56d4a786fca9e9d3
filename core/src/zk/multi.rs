//! ZooKeeper's write path: `multi`, every operation of which is applied as
//! one transaction (the server's `PrepRequestProcessor` checks, then
//! `DataTree.processTxn` applies), all or nothing; a failed multi-op is
//! rolled back and fires no watch. The single-operation writes in the parent
//! module are one-operation multi-ops.

use super::{
    parent_of, valid_path, Befores, CreateMode, Op, OpResult, PathKey, SessionId, Stat, Trigger,
    WatchKind, WatchedEvent, Zk, ZkError, Znode, ZnodeData,
};
use crate::ids::TopicPartition;
use crate::time::SimTime;
use crate::znodes::LeaderIsr;

/// The inverse of one applied change, for rolling back a failed multi-op.
#[derive(Debug)]
pub(super) enum Undo {
    Created {
        path: String,
        parent: (i32, i64),
    },
    Deleted {
        path: String,
        node: Znode,
        parent: (i32, i64),
    },
    SetData {
        key: PathKey,
        data: ZnodeData,
        stat: Stat,
    },
}

impl Zk {
    /// Apply all operations atomically: either every one succeeds, or none is
    /// applied and the error names the index of the first that failed.
    pub fn multi(
        &mut self,
        caller: Option<SessionId>,
        ops: &[Op],
    ) -> Result<Vec<OpResult>, (usize, ZkError)> {
        let mut results = Vec::with_capacity(ops.len());
        self.transaction(caller, |zk, undo| {
            for (i, op) in ops.iter().enumerate() {
                results.push(zk.apply(caller, op, undo).map_err(|e| (i, e))?);
            }
            Ok(())
        })?;
        Ok(results)
    }

    /// A partition's state znode set to `l` (Kafka's
    /// `TopicPartitionStateZNode.encode` of it), if its version is `version`
    /// (`None`: any), after a check that the node at `check`'s path has
    /// `check`'s version if one is given: [`Zk::multi`] of `[Check, SetData]`
    /// (or of the `SetData` alone), the same transaction with the same
    /// effects and errors (the index 1 for the set after a check), its key
    /// made from the partition and its data from the numbers, where the
    /// multi-op parses both from texts (the path is still written once, for
    /// the watches): every controller election's and every leader's ISR
    /// write.
    pub(crate) fn set_partition_state(
        &mut self,
        caller: Option<SessionId>,
        check: Option<(&str, i32)>,
        tp: &TopicPartition,
        l: &LeaderIsr,
        version: Option<i32>,
    ) -> Result<Stat, (usize, ZkError)> {
        let key = super::state_key_of(tp);
        if key.held().is_none() && !self.partition_watched() {
            return self.set_unwatched_partition_state(caller, check, key, l, version);
        }
        let mut stat = None;
        self.transaction(caller, |zk, undo| {
            let at = match check {
                Some((path, v)) => {
                    zk.apply_check(path, v).map_err(|e| (0, e))?;
                    1
                }
                None => 0,
            };
            // The path's text, for the watches.
            let path = crate::zk_client::paths::partition_state(tp);
            let data = ZnodeData::of_partition_state(l);
            stat = Some(
                zk.apply_set(path, key, data, version, undo)
                    .map_err(|e| (at, e))?,
            );
            Ok(())
        })?;
        stat.ok_or((0, ZkError::BadArguments))
    }

    /// [`Zk::set_partition_state`] of a partition's state znode (`key`)
    /// when no watch is on any partition's path: the same transaction, its
    /// steps written out for its one change. Nothing to roll back (it fails
    /// before it changes anything), no watch to fire, one path changed, one
    /// before-image kept if observers see the change later.
    fn set_unwatched_partition_state(
        &mut self,
        caller: Option<SessionId>,
        check: Option<(&str, i32)>,
        key: PathKey,
        l: &LeaderIsr,
        version: Option<i32>,
    ) -> Result<Stat, (usize, ZkError)> {
        self.counters.writes += 1;
        self.check_session(caller).map_err(|e| (0, e))?;
        let at = match check {
            Some((path, v)) => {
                if let Err(e) = self.apply_check(path, v) {
                    return Err((0, self.failed(e)));
                }
                1
            }
            None => 0,
        };
        let zxid = self.zxid + 1;
        let now_ms = self.now.as_ms_u32();
        let Some(node) = self.find_mut(&key) else {
            return Err((at, self.failed(ZkError::NoNode)));
        };
        if version.is_some_and(|v| v != node.stat.version) {
            return Err((at, self.failed(ZkError::BadVersion)));
        }
        let before = Znode {
            data: std::mem::replace(&mut node.data, ZnodeData::of_partition_state(l)),
            stat: node.stat,
        };
        node.stat.version += 1;
        node.stat.mzxid = zxid;
        node.stat.mtime_ms = now_ms;
        let stat = node.stat;
        self.zxid = zxid;
        let visible = self.visible_at();
        if let Some(at) = visible {
            self.note_moment(at, zxid - 1);
            self.defer_one(at, key.clone(), Some(Box::new(before)));
        }
        self.path_changed(key, visible);
        Ok(stat)
    }

    /// `key`'s path changed: reported now, or once observers see it at
    /// `visible`.
    fn path_changed(&mut self, key: PathKey, visible: Option<SimTime>) {
        match visible {
            Some(at) => self
                .deferred_changed
                .get_or_insert_with(at, Vec::new)
                .push(key),
            None => self.changed.push(key),
        }
    }

    /// A failed transaction's error, counted.
    fn failed(&mut self, e: ZkError) -> ZkError {
        match e {
            ZkError::NodeExists => self.counters.node_exists += 1,
            ZkError::BadVersion => self.counters.bad_version += 1,
            _ => {}
        }
        e
    }

    /// One multi-op's transaction: `body` applies its operations (each
    /// pushing its inverse onto the list it is given) or names the first that
    /// failed, and then it commits (its watches fire, observers see it when
    /// its writer's work reaches it) or is rolled back.
    fn transaction(
        &mut self,
        caller: Option<SessionId>,
        body: impl FnOnce(&mut Zk, &mut Vec<Undo>) -> Result<(), (usize, ZkError)>,
    ) -> Result<(), (usize, ZkError)> {
        self.counters.writes += 1;
        self.check_session(caller).map_err(|e| (0, e))?;
        let start_zxid = self.zxid;
        self.triggers.clear();
        self.zxid += 1;
        // The list's room kept from one transaction to the next (empty:
        // each transaction leaves it so).
        let mut undo = std::mem::take(&mut self.undo.0);
        if let Err((i, e)) = body(self, &mut undo) {
            let e = self.failed(e);
            self.rollback(&mut undo);
            self.undo.0 = undo;
            self.zxid = start_zxid;
            self.triggers.clear();
            return Err((i, e));
        }
        if let Some(at) = self.visible_at() {
            self.note_moment(at, start_zxid);
            self.defer(at, &mut undo);
        }
        undo.clear();
        self.undo.0 = undo;
        self.flush_triggers();
        Ok(())
    }

    /// When observers see the operation being applied: later than now when
    /// its writer is partway through its work.
    fn visible_at(&self) -> Option<SimTime> {
        let at = self.now.plus_us_ceil(self.op_offset_us);
        (at > self.now).then_some(at)
    }

    /// `at` has a pending change from the transaction after `zxid`
    /// ([`Zk::moment_zxids`]): recorded if `at` is after every recorded
    /// moment. A moment before the last recorded one is not: that later
    /// moment, recorded first and so with a smaller zxid, stays pending as
    /// long as it does, and the first recorded moment's zxid is no larger.
    fn note_moment(&mut self, at: SimTime, zxid: i64) {
        let Some(moments) = &mut self.moment_zxids.0 else {
            return;
        };
        if moments.back().is_none_or(|(last, _)| *last < at) {
            moments.push_back((at, zxid));
        }
    }

    /// Keep what observers see of the paths a committed multi-op changed
    /// until `at`: the nodes as they were before it.
    fn defer(&mut self, at: SimTime, undo: &mut Vec<Undo>) {
        // A node whose data was set still exists unless an operation after
        // it deleted it (a create of it would have failed the multi-op).
        let any_deleted = undo.iter().any(|u| matches!(u, Undo::Deleted { .. }));
        for u in undo.drain(..) {
            let (key, before) = match u {
                Undo::Created { path, .. } => (PathKey::from(path.as_str()), None),
                Undo::Deleted { path, node, .. } => {
                    (PathKey::from(path.as_str()), Some(Box::new(node)))
                }
                Undo::SetData { key, data, stat } => {
                    let exists = !any_deleted || self.find(&key).is_some();
                    let before = exists.then(|| Box::new(Znode { data, stat }));
                    (key, before)
                }
            };
            // Indexed by moment through `deferred_changed`, where
            // `flush_triggers` puts this path (its data trigger) next.
            self.pend(at, key, before);
        }
        self.note_visible(at);
    }

    /// [`Zk::defer`] of one change, of `key` (before it: `before`).
    fn defer_one(&mut self, at: SimTime, key: PathKey, before: Option<Box<Znode>>) {
        self.pend(at, key, before);
        self.note_visible(at);
    }

    /// `key`'s node as it was, `before`, kept for observers until `at` if
    /// no earlier change of it at `at` is kept already.
    fn pend(&mut self, at: SimTime, key: PathKey, before: Option<Box<Znode>>) {
        let mut before = Some(before);
        let (held, len) = (key.held().is_some(), self.pending.len());
        let entries = self
            .pending
            .get_or_insert_with(key, || Befores::One((at, before.take().flatten())));
        // One before-image per path and moment: the first change's.
        if let Some(before) = before {
            if entries.last_at() != Some(at) {
                entries.push((at, before));
            }
        }
        if held && self.pending.len() > len {
            self.pending_held.step(true);
        }
    }

    /// Changes become visible at `at`: in the list of such moments.
    fn note_visible(&mut self, at: SimTime) {
        match self.new_visible.last() {
            Some(last) if *last >= at => {
                if let Err(i) = self.new_visible.binary_search(&at) {
                    self.new_visible.insert(i, at);
                }
            }
            _ => self.new_visible.push(at),
        }
    }

    fn apply(
        &mut self,
        caller: Option<SessionId>,
        op: &Op,
        undo: &mut Vec<Undo>,
    ) -> Result<OpResult, ZkError> {
        match op {
            Op::Check { path, version } => {
                self.apply_check(path, *version)?;
                Ok(OpResult::Checked)
            }
            Op::Create { path, data, mode } => {
                let (created, parent) = self.apply_create(caller, path, data, *mode)?;
                undo.push(Undo::Created {
                    path: created.clone(),
                    parent,
                });
                Ok(OpResult::Created(created))
            }
            Op::SetData {
                path,
                data,
                version,
            } => {
                let key = PathKey::from(path.as_str());
                let data = ZnodeData::from(data.as_str());
                self.apply_set(path.clone(), key, data, *version, undo)
                    .map(OpResult::SetData)
            }
            Op::Delete { path, version } => {
                let (node, parent) = self.apply_delete(path, *version)?;
                undo.push(Undo::Deleted {
                    path: path.clone(),
                    node,
                    parent,
                });
                Ok(OpResult::Deleted)
            }
        }
    }

    /// A check: the node at `path` exists with this version.
    fn apply_check(&self, path: &str, version: i32) -> Result<(), ZkError> {
        let node = self
            .nodes
            .get_hinted(&PathKey::from(path), &self.check_hint.0)
            .ok_or(ZkError::NoNode)?;
        if node.stat.version != version {
            return Err(ZkError::BadVersion);
        }
        Ok(())
    }

    /// The node of `key` (at `path`) given `data`, if its version is
    /// `version` (`None`: any).
    fn apply_set(
        &mut self,
        path: String,
        key: PathKey,
        data: ZnodeData,
        version: Option<i32>,
        undo: &mut Vec<Undo>,
    ) -> Result<Stat, ZkError> {
        let zxid = self.zxid;
        let now_ms = self.now.as_ms_u32();
        let node = self.find_mut(&key).ok_or(ZkError::NoNode)?;
        if version.is_some_and(|v| v != node.stat.version) {
            return Err(ZkError::BadVersion);
        }
        undo.push(Undo::SetData {
            key: key.clone(),
            data: std::mem::replace(&mut node.data, data),
            stat: node.stat,
        });
        node.stat.version += 1;
        node.stat.mzxid = zxid;
        node.stat.mtime_ms = now_ms;
        let stat = node.stat;
        self.fire_data(path, key, WatchKind::NodeDataChanged);
        Ok(stat)
    }

    fn apply_create(
        &mut self,
        caller: Option<SessionId>,
        path: &str,
        data: &str,
        mode: CreateMode,
    ) -> Result<(String, (i32, i64)), ZkError> {
        if !valid_path(path) || path == "/" {
            return Err(ZkError::BadArguments);
        }
        let owner = match mode {
            CreateMode::Ephemeral | CreateMode::EphemeralSequential => {
                Some(caller.ok_or(ZkError::BadArguments)?)
            }
            CreateMode::Persistent | CreateMode::PersistentSequential => None,
        };
        let parent_path = parent_of(path).ok_or(ZkError::BadArguments)?.to_string();
        let parent_key = PathKey::from(parent_path.as_str());
        let parent = self.nodes.get_mut(&parent_key).ok_or(ZkError::NoNode)?;
        if parent.stat.ephemeral_owner().is_some() {
            return Err(ZkError::NoChildrenForEphemerals);
        }
        let full = match mode {
            CreateMode::PersistentSequential | CreateMode::EphemeralSequential => {
                format!("{path}{:010}", parent.stat.cversion)
            }
            CreateMode::Persistent | CreateMode::Ephemeral => path.to_string(),
        };
        let cversion = parent.stat.cversion;
        let key = PathKey::from(full.as_str());
        if self.nodes.contains_key(&key) {
            return Err(ZkError::NodeExists);
        }
        let zxid = self.zxid;
        let parent = self.nodes.get_mut(&parent_key).ok_or(ZkError::NoNode)?;
        let before = (cversion, parent.stat.pzxid);
        parent.stat.cversion += 1;
        parent.stat.pzxid = zxid;
        let now_ms = self.now.as_ms_u32();
        self.nodes.insert(
            key.clone(),
            Znode {
                data: ZnodeData::from(data),
                stat: Stat {
                    czxid: zxid,
                    mzxid: zxid,
                    version: 0,
                    cversion: 0,
                    owner: owner.map_or(0, |o| o.0),
                    ctime_ms: now_ms,
                    mtime_ms: now_ms,
                    pzxid: zxid,
                },
            },
        );
        if let Some(s) = owner.and_then(|o| self.sessions.get_mut(&o)) {
            s.owned.insert(full.clone());
        }
        self.fire_data(full.clone(), key, WatchKind::NodeCreated);
        self.fire_children(&parent_path);
        Ok((full, before))
    }

    pub(super) fn apply_delete(
        &mut self,
        path: &str,
        version: Option<i32>,
    ) -> Result<(Znode, (i32, i64)), ZkError> {
        let key = PathKey::from(path);
        let node = self.nodes.get(&key).ok_or(ZkError::NoNode)?;
        if path == "/" {
            return Err(ZkError::BadArguments);
        }
        if version.is_some_and(|v| v != node.stat.version) {
            return Err(ZkError::BadVersion);
        }
        if self.has_children(path) {
            return Err(ZkError::NotEmpty);
        }
        let node = self.nodes.remove(&key).ok_or(ZkError::NoNode)?;
        if let Some(s) = node
            .stat
            .ephemeral_owner()
            .and_then(|o| self.sessions.get_mut(&o))
        {
            s.owned.remove(path);
        }
        let parent_path = parent_of(path).unwrap_or("/").to_string();
        let mut before = (0, 0);
        let zxid = self.zxid;
        if let Some(parent) = self.nodes.get_mut(&PathKey::from(&*parent_path)) {
            before = (parent.stat.cversion, parent.stat.pzxid);
            parent.stat.cversion += 1;
            parent.stat.pzxid = zxid;
        }
        self.fire_data(path.to_string(), key, WatchKind::NodeDeleted);
        self.triggers
            .push((path.to_string(), None, Trigger::ChildOfDeleted));
        self.fire_children(&parent_path);
        Ok((node, before))
    }

    fn rollback(&mut self, undo: &mut Vec<Undo>) {
        for u in undo.drain(..).rev() {
            match u {
                Undo::Created { path, parent } => {
                    if let Some(node) = self.nodes.remove(&PathKey::from(&*path)) {
                        if let Some(s) = node
                            .stat
                            .ephemeral_owner()
                            .and_then(|o| self.sessions.get_mut(&o))
                        {
                            s.owned.remove(&path);
                        }
                    }
                    self.restore_parent(&path, parent);
                }
                Undo::Deleted { path, node, parent } => {
                    if let Some(s) = node
                        .stat
                        .ephemeral_owner()
                        .and_then(|o| self.sessions.get_mut(&o))
                    {
                        s.owned.insert(path.clone());
                    }
                    self.nodes.insert(PathKey::from(path.as_str()), node);
                    self.restore_parent(&path, parent);
                }
                Undo::SetData { key, data, stat } => {
                    if let Some(node) = self.nodes.get_mut(&key) {
                        node.data = data;
                        node.stat = stat;
                    }
                }
            }
        }
    }

    fn restore_parent(&mut self, path: &str, (cversion, pzxid): (i32, i64)) {
        let parent_path = parent_of(path).unwrap_or("/");
        if let Some(parent) = self.nodes.get_mut(&PathKey::from(parent_path)) {
            parent.stat.cversion = cversion;
            parent.stat.pzxid = pzxid;
        }
    }

    /// Mark the operations that follow as made `offset_us` into their
    /// writer's work (a controller event in progress); 0 for "now".
    pub fn set_op_offset_us(&mut self, offset_us: u64) {
        self.op_offset_us = offset_us;
    }

    /// `key`: `path`'s, for the list of paths changed by moment.
    fn fire_data(&mut self, path: String, key: PathKey, kind: WatchKind) {
        self.triggers.push((path, Some(key), Trigger::Data(kind)));
    }

    fn fire_children(&mut self, path: &str) {
        self.triggers
            .push((path.to_string(), None, Trigger::Children));
    }

    /// Turn the committed changes' triggers into notifications. Each watch
    /// fires once and is gone.
    pub(super) fn flush_triggers(&mut self) {
        // Drained, and given back empty with its room for the next write.
        let mut triggers = std::mem::take(&mut self.triggers);
        for (path, key, trigger) in triggers.drain(..) {
            // Whether a data trigger's path is held as a partition's key.
            let mut partition = false;
            if matches!(trigger, Trigger::Data(_)) {
                let key = key.unwrap_or_else(|| PathKey::from(path.as_str()));
                partition = key.held().is_none();
                let visible = self.visible_at();
                self.path_changed(key, visible);
            }
            let (map, kind) = match trigger {
                Trigger::Data(kind) => (&mut self.data_watches, kind),
                Trigger::ChildOfDeleted => (&mut self.child_watches, WatchKind::NodeDeleted),
                Trigger::Children => (&mut self.child_watches, WatchKind::NodeChildrenChanged),
            };
            if let Some(set) = map.remove(&path) {
                if partition {
                    self.partition_watches.step(false);
                }
                for session in set {
                    self.counters.notifications += 1;
                    self.fired.push(WatchedEvent {
                        offset_us: self.op_offset_us,
                        session,
                        path: path.clone(),
                        kind,
                    });
                }
            }
        }
        self.triggers = triggers;
    }
}
