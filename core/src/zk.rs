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

use crate::ids::SessionId;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};
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
    /// The owning session of an ephemeral node.
    pub ephemeral_owner: Option<SessionId>,
}

/// One znode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Znode {
    /// The node's data (Kafka keeps text, mostly JSON, in every znode).
    pub data: String,
    /// The node's metadata.
    pub stat: Stat,
    children: BTreeSet<String>,
}

impl Znode {
    /// The names of the node's children, in order.
    pub fn children(&self) -> impl Iterator<Item = &str> {
        self.children.iter().map(String::as_str)
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

/// The inverse of one applied change, for rolling back a failed multi-op.
#[derive(Debug)]
enum Undo {
    Created {
        path: String,
        parent_cversion: i32,
    },
    Deleted {
        path: String,
        node: Znode,
        parent_cversion: i32,
    },
    SetData {
        path: String,
        data: String,
        stat: Stat,
    },
}

/// The ensemble: a tree of znodes, sessions and watches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Zk {
    nodes: BTreeMap<String, Znode>,
    sessions: BTreeMap<SessionId, Session>,
    next_session: u64,
    zxid: i64,
    /// Data and exists watches: path → sessions.
    data_watches: BTreeMap<String, BTreeSet<SessionId>>,
    /// Child watches: path → sessions.
    child_watches: BTreeMap<String, BTreeSet<SessionId>>,
    /// Notifications fired and not yet collected by the simulator.
    fired: Vec<WatchedEvent>,
    /// Watch triggers of the multi-op being applied; they fire only if it commits.
    #[serde(skip)]
    triggers: Vec<(String, Trigger)>,
    /// Paths whose data or existence changed since the last `take_changed`.
    #[serde(skip)]
    changed: Vec<String>,
    /// How far into its writer's work the operation being applied is, in µs.
    #[serde(skip)]
    op_offset_us: u64,
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

fn name_of(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
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
            data: String::new(),
            stat: Stat {
                czxid: 0,
                mzxid: 0,
                version: 0,
                cversion: 0,
                ephemeral_owner: None,
            },
            children: BTreeSet::new(),
        };
        let mut nodes = BTreeMap::new();
        nodes.insert("/".to_string(), root);
        Zk {
            nodes,
            sessions: BTreeMap::new(),
            next_session: 1,
            zxid: 0,
            data_watches: BTreeMap::new(),
            child_watches: BTreeMap::new(),
            fired: Vec::new(),
            triggers: Vec::new(),
            changed: Vec::new(),
            op_offset_us: 0,
        }
    }

    // ----- sessions -------------------------------------------------------

    /// Open a session with the given timeout.
    pub fn open_session(&mut self, now: SimTime, timeout_ms: u64) -> SessionId {
        let id = SessionId(self.next_session);
        self.next_session += 1;
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
        self.nodes.get(path)
    }

    /// Every node, in path order.
    pub fn nodes(&self) -> impl Iterator<Item = (&str, &Znode)> {
        self.nodes.iter().map(|(p, n)| (p.as_str(), n))
    }

    /// `getData`: the data and stat; with `watch`, a data watch is left for
    /// that session when the node exists.
    pub fn get_data(
        &mut self,
        path: &str,
        watch: Option<SessionId>,
    ) -> Result<(String, Stat), ZkError> {
        self.check_session(watch)?;
        let node = self.nodes.get(path).ok_or(ZkError::NoNode)?;
        let out = (node.data.clone(), node.stat);
        if let Some(s) = watch {
            self.data_watches
                .entry(path.to_string())
                .or_default()
                .insert(s);
        }
        Ok(out)
    }

    /// `exists`: the stat if the node exists; with `watch`, a watch is left
    /// either way, so the session also hears of the node's creation.
    pub fn exists(
        &mut self,
        path: &str,
        watch: Option<SessionId>,
    ) -> Result<Option<Stat>, ZkError> {
        self.check_session(watch)?;
        if let Some(s) = watch {
            self.data_watches
                .entry(path.to_string())
                .or_default()
                .insert(s);
        }
        Ok(self.nodes.get(path).map(|n| n.stat))
    }

    /// `getChildren`: the children's names in order; with `watch`, a child
    /// watch is left for that session.
    pub fn get_children(
        &mut self,
        path: &str,
        watch: Option<SessionId>,
    ) -> Result<Vec<String>, ZkError> {
        self.check_session(watch)?;
        let node = self.nodes.get(path).ok_or(ZkError::NoNode)?;
        let out = node.children.iter().cloned().collect();
        if let Some(s) = watch {
            self.child_watches
                .entry(path.to_string())
                .or_default()
                .insert(s);
        }
        Ok(out)
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
        out.sort();
        out
    }

    /// The last transaction id.
    pub fn zxid(&self) -> i64 {
        self.zxid
    }

    /// Paths created, changed or deleted since the last call, in order.
    pub fn take_changed(&mut self) -> Vec<String> {
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
            if !self.nodes.contains_key(&prefix) {
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
        let node = self.nodes.get(path).ok_or(ZkError::NoNode)?;
        let children: Vec<String> = node.children.iter().map(|c| join(path, c)).collect();
        for child in children {
            self.delete_recursive(caller, &child)?;
        }
        self.delete(caller, path, None)
    }

    /// Apply all operations atomically: either every one succeeds, or none is
    /// applied and the error names the index of the first that failed.
    pub fn multi(
        &mut self,
        caller: Option<SessionId>,
        ops: &[Op],
    ) -> Result<Vec<OpResult>, (usize, ZkError)> {
        self.check_session(caller).map_err(|e| (0, e))?;
        let start_zxid = self.zxid;
        self.triggers.clear();
        self.zxid += 1;
        let mut undo = Vec::new();
        let mut results = Vec::with_capacity(ops.len());
        for (i, op) in ops.iter().enumerate() {
            match self.apply(caller, op, &mut undo) {
                Ok(r) => results.push(r),
                Err(e) => {
                    self.rollback(undo);
                    self.zxid = start_zxid;
                    self.triggers.clear();
                    return Err((i, e));
                }
            }
        }
        self.flush_triggers();
        Ok(results)
    }

    fn apply(
        &mut self,
        caller: Option<SessionId>,
        op: &Op,
        undo: &mut Vec<Undo>,
    ) -> Result<OpResult, ZkError> {
        match op {
            Op::Check { path, version } => {
                let node = self.nodes.get(path).ok_or(ZkError::NoNode)?;
                if node.stat.version != *version {
                    return Err(ZkError::BadVersion);
                }
                Ok(OpResult::Checked)
            }
            Op::Create { path, data, mode } => {
                let (created, parent_cversion) = self.apply_create(caller, path, data, *mode)?;
                undo.push(Undo::Created {
                    path: created.clone(),
                    parent_cversion,
                });
                Ok(OpResult::Created(created))
            }
            Op::SetData {
                path,
                data,
                version,
            } => {
                let zxid = self.zxid;
                let node = self.nodes.get_mut(path).ok_or(ZkError::NoNode)?;
                if version.is_some_and(|v| v != node.stat.version) {
                    return Err(ZkError::BadVersion);
                }
                undo.push(Undo::SetData {
                    path: path.clone(),
                    data: std::mem::replace(&mut node.data, data.clone()),
                    stat: node.stat,
                });
                node.stat.version += 1;
                node.stat.mzxid = zxid;
                let stat = node.stat;
                self.fire_data(path, WatchKind::NodeDataChanged);
                Ok(OpResult::SetData(stat))
            }
            Op::Delete { path, version } => {
                let (node, parent_cversion) = self.apply_delete(path, *version)?;
                undo.push(Undo::Deleted {
                    path: path.clone(),
                    node,
                    parent_cversion,
                });
                Ok(OpResult::Deleted)
            }
        }
    }

    fn apply_create(
        &mut self,
        caller: Option<SessionId>,
        path: &str,
        data: &str,
        mode: CreateMode,
    ) -> Result<(String, i32), ZkError> {
        if !valid_path(path) || path == "/" {
            return Err(ZkError::BadArguments);
        }
        let owner = match mode {
            CreateMode::Ephemeral => Some(caller.ok_or(ZkError::BadArguments)?),
            _ => None,
        };
        let parent_path = parent_of(path).ok_or(ZkError::BadArguments)?.to_string();
        let parent = self.nodes.get_mut(&parent_path).ok_or(ZkError::NoNode)?;
        if parent.stat.ephemeral_owner.is_some() {
            return Err(ZkError::NoChildrenForEphemerals);
        }
        let full = match mode {
            CreateMode::PersistentSequential => format!("{path}{:010}", parent.stat.cversion),
            _ => path.to_string(),
        };
        let name = name_of(&full).to_string();
        if parent.children.contains(&name) {
            return Err(ZkError::NodeExists);
        }
        let parent_cversion = parent.stat.cversion;
        parent.children.insert(name);
        parent.stat.cversion += 1;
        let zxid = self.zxid;
        self.nodes.insert(
            full.clone(),
            Znode {
                data: data.to_string(),
                stat: Stat {
                    czxid: zxid,
                    mzxid: zxid,
                    version: 0,
                    cversion: 0,
                    ephemeral_owner: owner,
                },
                children: BTreeSet::new(),
            },
        );
        if let Some(s) = owner.and_then(|o| self.sessions.get_mut(&o)) {
            s.owned.insert(full.clone());
        }
        self.fire_data(&full, WatchKind::NodeCreated);
        self.fire_children(&parent_path);
        Ok((full, parent_cversion))
    }

    fn apply_delete(&mut self, path: &str, version: Option<i32>) -> Result<(Znode, i32), ZkError> {
        let node = self.nodes.get(path).ok_or(ZkError::NoNode)?;
        if path == "/" {
            return Err(ZkError::BadArguments);
        }
        if version.is_some_and(|v| v != node.stat.version) {
            return Err(ZkError::BadVersion);
        }
        if !node.children.is_empty() {
            return Err(ZkError::NotEmpty);
        }
        let node = self.nodes.remove(path).ok_or(ZkError::NoNode)?;
        if let Some(s) = node
            .stat
            .ephemeral_owner
            .and_then(|o| self.sessions.get_mut(&o))
        {
            s.owned.remove(path);
        }
        let parent_path = parent_of(path).unwrap_or("/").to_string();
        let mut parent_cversion = 0;
        if let Some(parent) = self.nodes.get_mut(&parent_path) {
            parent.children.remove(name_of(path));
            parent_cversion = parent.stat.cversion;
            parent.stat.cversion += 1;
        }
        self.fire_data(path, WatchKind::NodeDeleted);
        self.triggers
            .push((path.to_string(), Trigger::ChildOfDeleted));
        self.fire_children(&parent_path);
        Ok((node, parent_cversion))
    }

    fn rollback(&mut self, undo: Vec<Undo>) {
        for u in undo.into_iter().rev() {
            match u {
                Undo::Created {
                    path,
                    parent_cversion,
                } => {
                    if let Some(node) = self.nodes.remove(&path) {
                        if let Some(s) = node
                            .stat
                            .ephemeral_owner
                            .and_then(|o| self.sessions.get_mut(&o))
                        {
                            s.owned.remove(&path);
                        }
                    }
                    self.restore_parent(&path, parent_cversion, false);
                }
                Undo::Deleted {
                    path,
                    node,
                    parent_cversion,
                } => {
                    if let Some(s) = node
                        .stat
                        .ephemeral_owner
                        .and_then(|o| self.sessions.get_mut(&o))
                    {
                        s.owned.insert(path.clone());
                    }
                    self.nodes.insert(path.clone(), node);
                    self.restore_parent(&path, parent_cversion, true);
                }
                Undo::SetData { path, data, stat } => {
                    if let Some(node) = self.nodes.get_mut(&path) {
                        node.data = data;
                        node.stat = stat;
                    }
                }
            }
        }
    }

    fn restore_parent(&mut self, path: &str, cversion: i32, child_present: bool) {
        let parent_path = parent_of(path).unwrap_or("/");
        if let Some(parent) = self.nodes.get_mut(parent_path) {
            if child_present {
                parent.children.insert(name_of(path).to_string());
            } else {
                parent.children.remove(name_of(path));
            }
            parent.stat.cversion = cversion;
        }
    }

    /// Mark the operations that follow as made `offset_us` into their
    /// writer's work (a controller event in progress); 0 for "now".
    pub fn set_op_offset_us(&mut self, offset_us: u64) {
        self.op_offset_us = offset_us;
    }

    fn fire_data(&mut self, path: &str, kind: WatchKind) {
        self.triggers.push((path.to_string(), Trigger::Data(kind)));
    }

    fn fire_children(&mut self, path: &str) {
        self.triggers.push((path.to_string(), Trigger::Children));
    }

    /// Turn the committed changes' triggers into notifications. Each watch
    /// fires once and is gone.
    fn flush_triggers(&mut self) {
        for (path, trigger) in std::mem::take(&mut self.triggers) {
            if matches!(trigger, Trigger::Data(_)) {
                self.changed.push(path.clone());
            }
            let (map, kind) = match trigger {
                Trigger::Data(kind) => (&mut self.data_watches, kind),
                Trigger::ChildOfDeleted => (&mut self.child_watches, WatchKind::NodeDeleted),
                Trigger::Children => (&mut self.child_watches, WatchKind::NodeChildrenChanged),
            };
            if let Some(set) = map.remove(&path) {
                for session in set {
                    self.fired.push(WatchedEvent {
                        offset_us: self.op_offset_us,
                        session,
                        path: path.clone(),
                        kind,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CreateMode::*;

    fn zk_with_session() -> (Zk, SessionId) {
        let mut zk = Zk::new();
        let s = zk.open_session(SimTime::ZERO, 6000);
        (zk, s)
    }

    #[test]
    fn create_needs_a_parent_and_refuses_duplicates() {
        // ZooKeeper semantics behind KafkaZkClient's createRecursive retries.
        let (mut zk, s) = zk_with_session();
        let cases: &[(&str, Result<&str, ZkError>)] = &[
            ("/brokers/ids", Err(ZkError::NoNode)),
            ("/brokers", Ok("/brokers")),
            ("/brokers", Err(ZkError::NodeExists)),
            ("/brokers/ids", Ok("/brokers/ids")),
            ("relative", Err(ZkError::BadArguments)),
            ("/trailing/", Err(ZkError::BadArguments)),
        ];
        for (path, want) in cases {
            let got = zk.create(Some(s), path, "", Persistent);
            assert_eq!(got.as_deref().map_err(|e| *e), *want, "create {path}");
        }
    }

    #[test]
    fn versions_count_data_changes_and_guard_conditional_writes() {
        // Kafka: LeaderAndIsr.zkVersion is the state znode's data version.
        let (mut zk, s) = zk_with_session();
        zk.create(Some(s), "/p", "a", Persistent).unwrap();
        assert_eq!(zk.set_data(Some(s), "/p", "b", Some(0)).unwrap().version, 1);
        assert_eq!(
            zk.set_data(Some(s), "/p", "c", Some(0)),
            Err(ZkError::BadVersion)
        );
        assert_eq!(zk.set_data(Some(s), "/p", "c", None).unwrap().version, 2);
        assert_eq!(zk.delete(Some(s), "/p", Some(1)), Err(ZkError::BadVersion));
        assert_eq!(zk.set_data(Some(s), "/q", "x", None), Err(ZkError::NoNode));
        zk.delete(Some(s), "/p", Some(2)).unwrap();
        assert!(zk.node("/p").is_none());
    }

    #[test]
    fn delete_refuses_a_node_with_children_and_recursive_delete_does_not() {
        let (mut zk, s) = zk_with_session();
        zk.create_recursive(Some(s), "/a/b/c", "x", Persistent)
            .unwrap();
        assert_eq!(zk.delete(Some(s), "/a", None), Err(ZkError::NotEmpty));
        zk.delete_recursive(Some(s), "/a").unwrap();
        assert!(zk.node("/a/b").is_none() && zk.node("/a").is_none());
    }

    #[test]
    fn czxid_orders_creations() {
        // Kafka (KIP-380): the broker epoch is the czxid of /brokers/ids/<id>,
        // so a re-registration always has a larger epoch.
        let (mut zk, s) = zk_with_session();
        zk.create(Some(s), "/a", "", Persistent).unwrap();
        zk.create(Some(s), "/b", "", Persistent).unwrap();
        let a = zk.node("/a").unwrap().stat.czxid;
        let b = zk.node("/b").unwrap().stat.czxid;
        assert!(b > a, "{b} > {a}");
        zk.delete(Some(s), "/a", None).unwrap();
        zk.create(Some(s), "/a", "", Persistent).unwrap();
        assert!(zk.node("/a").unwrap().stat.czxid > b);
    }

    #[test]
    fn sequential_nodes_take_the_parents_child_counter() {
        // Kafka: /isr_change_notification/isr_change_<10-digit seq>.
        let (mut zk, s) = zk_with_session();
        zk.create(Some(s), "/n", "", Persistent).unwrap();
        let a = zk
            .create(Some(s), "/n/isr_change_", "1", PersistentSequential)
            .unwrap();
        let b = zk
            .create(Some(s), "/n/isr_change_", "2", PersistentSequential)
            .unwrap();
        assert_eq!(a, "/n/isr_change_0000000000");
        assert_eq!(b, "/n/isr_change_0000000001");
        zk.delete(Some(s), &a, None).unwrap();
        let c = zk
            .create(Some(s), "/n/isr_change_", "3", PersistentSequential)
            .unwrap();
        assert_eq!(
            c, "/n/isr_change_0000000003",
            "deletes advance the counter too"
        );
    }

    #[test]
    fn ephemerals_go_with_their_session_and_cannot_have_children() {
        // Kafka: /controller and /brokers/ids/<id> vanish when the owner's session ends.
        let (mut zk, s) = zk_with_session();
        let t = zk.open_session(SimTime::ZERO, 6000);
        zk.create(Some(s), "/controller", "{}", Ephemeral).unwrap();
        zk.create(Some(t), "/other", "{}", Ephemeral).unwrap();
        assert_eq!(
            zk.create(Some(s), "/controller/x", "", Persistent),
            Err(ZkError::NoChildrenForEphemerals)
        );
        assert_eq!(
            zk.create(None, "/e", "", Ephemeral),
            Err(ZkError::BadArguments)
        );
        zk.expire_session(s).unwrap();
        assert!(zk.node("/controller").is_none());
        assert!(zk.node("/other").is_some());
        assert_eq!(
            zk.create(Some(s), "/y", "", Persistent),
            Err(ZkError::SessionExpired)
        );
        assert_eq!(zk.heartbeat(s, SimTime(10)), Err(ZkError::SessionExpired));
        zk.close_session(t).unwrap();
        assert!(zk.node("/other").is_none());
        assert_eq!(zk.session(t).unwrap().state, SessionState::Closed);
    }

    #[test]
    fn sessions_fall_due_after_their_timeout_without_heartbeats() {
        let (mut zk, s) = zk_with_session();
        assert!(zk.sessions_due(SimTime(5999)).is_empty());
        zk.heartbeat(s, SimTime(2000)).unwrap();
        assert!(zk.sessions_due(SimTime(7999)).is_empty());
        assert_eq!(zk.sessions_due(SimTime(8000)), vec![s]);
    }

    #[test]
    fn watches_fire_once_with_the_right_kind() {
        // Kafka: ZooKeeperClient handlers are one-shot; ControllerChangeHandler
        // re-registers with exists() after every notification.
        let (mut zk, s) = zk_with_session();
        let w = zk.open_session(SimTime::ZERO, 6000);
        assert_eq!(zk.exists("/controller", Some(w)).unwrap(), None);
        zk.create(Some(s), "/controller", "a", Ephemeral).unwrap();
        zk.set_data(Some(s), "/controller", "b", None).unwrap();
        let fired = zk.take_fired();
        assert_eq!(
            fired.len(),
            1,
            "one-shot: only the creation is reported: {fired:?}"
        );
        assert_eq!(fired[0].kind, WatchKind::NodeCreated);

        zk.get_data("/controller", Some(w)).unwrap();
        zk.delete(Some(s), "/controller", None).unwrap();
        assert_eq!(zk.take_fired()[0].kind, WatchKind::NodeDeleted);

        zk.create(Some(s), "/ids", "", Persistent).unwrap();
        zk.get_children("/ids", Some(w)).unwrap();
        zk.create(Some(s), "/ids/1", "", Ephemeral).unwrap();
        zk.create(Some(s), "/ids/2", "", Ephemeral).unwrap();
        let fired = zk.take_fired();
        assert_eq!(fired.len(), 1);
        assert_eq!(
            fired[0],
            WatchedEvent {
                session: w,
                path: "/ids".into(),
                kind: WatchKind::NodeChildrenChanged,
                offset_us: 0,
            }
        );
        assert!(zk.get_data("/nothing", Some(w)).is_err());
        assert!(
            !zk.has_data_watch("/nothing", w),
            "getData on a missing node leaves no watch"
        );
    }

    #[test]
    fn an_expired_session_loses_its_watches_and_others_hear_of_its_ephemerals() {
        let (mut zk, s) = zk_with_session();
        let w = zk.open_session(SimTime::ZERO, 6000);
        zk.create(Some(s), "/ids", "", Persistent).unwrap();
        zk.create(Some(s), "/ids/0", "", Ephemeral).unwrap();
        zk.get_children("/ids", Some(w)).unwrap();
        zk.get_children("/ids", Some(s)).unwrap();
        zk.expire_session(s).unwrap();
        let fired = zk.take_fired();
        assert_eq!(fired.len(), 1, "{fired:?}");
        assert_eq!(fired[0].session, w);
    }

    #[test]
    fn multi_is_all_or_nothing() {
        // Kafka: registerControllerAndIncrementControllerEpoch creates /controller
        // and bumps /controller_epoch in one multi; a BADVERSION undoes the create.
        let (mut zk, s) = zk_with_session();
        let w = zk.open_session(SimTime::ZERO, 6000);
        zk.create(Some(s), "/controller_epoch", "0", Persistent)
            .unwrap();
        zk.exists("/controller", Some(w)).unwrap();
        let zxid = zk.zxid();
        let ops = [
            Op::Create {
                path: "/controller".into(),
                data: "c".into(),
                mode: Ephemeral,
            },
            Op::SetData {
                path: "/controller_epoch".into(),
                data: "1".into(),
                version: Some(7),
            },
        ];
        assert_eq!(zk.multi(Some(s), &ops), Err((1, ZkError::BadVersion)));
        assert!(zk.node("/controller").is_none());
        assert_eq!(zk.node("/").unwrap().stat.cversion, 1);
        assert_eq!(zk.zxid(), zxid);
        assert!(zk.take_fired().is_empty(), "a failed multi fires no watch");
        assert!(
            zk.has_data_watch("/controller", w),
            "and leaves the watch armed"
        );

        let ops = [
            Op::Create {
                path: "/controller".into(),
                data: "c".into(),
                mode: Ephemeral,
            },
            Op::SetData {
                path: "/controller_epoch".into(),
                data: "1".into(),
                version: Some(0),
            },
        ];
        let r = zk.multi(Some(s), &ops).unwrap();
        assert_eq!(
            r[1],
            OpResult::SetData(zk.node("/controller_epoch").unwrap().stat)
        );
        assert_eq!(zk.take_fired().len(), 1);
        // Expiring the session must still find the ephemeral it created in a multi.
        zk.expire_session(s).unwrap();
        assert!(zk.node("/controller").is_none());
    }

    #[test]
    fn a_failed_multi_restores_deleted_and_rewritten_nodes() {
        let (mut zk, s) = zk_with_session();
        zk.create(Some(s), "/a", "1", Ephemeral).unwrap();
        zk.create(Some(s), "/b", "1", Persistent).unwrap();
        let before = zk.clone();
        let ops = [
            Op::Delete {
                path: "/a".into(),
                version: None,
            },
            Op::SetData {
                path: "/b".into(),
                data: "2".into(),
                version: None,
            },
            Op::Check {
                path: "/controller_epoch".into(),
                version: 0,
            },
        ];
        assert_eq!(zk.multi(Some(s), &ops), Err((2, ZkError::NoNode)));
        assert_eq!(zk, before);
    }
}
