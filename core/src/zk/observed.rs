//! What observers see: a change that a writer (a controller event) makes
//! partway through its work is applied to the tree at once, so the writer
//! reads its own writes, but the page, the checker and the report see it only
//! when the writer's work reaches it, so ZooKeeper changes in the order and at
//! the moments Kafka's controller makes its writes.

use super::{PathKey, SimTime, Zk, Znode};
use std::borrow::Cow;

impl Zk {
    /// Move the ensemble's clock to `now`: changes due by then become
    /// visible, and the paths they changed are reported by `take_changed`.
    pub fn set_now(&mut self, now: SimTime) {
        debug_assert!(now >= self.now, "the ensemble's clock only moves forward");
        self.now = now;
        while let Some(at) = self.deferred_changed.first_key_value().map(|(t, _)| *t) {
            if at > now {
                break;
            }
            // Every path with a before-image for `at` is among these (a
            // path without one, or listed twice, finds nothing more to drop).
            let paths = self.deferred_changed.remove(&at).unwrap_or_default();
            self.visible_flushes.0 += 1;
            for path in &paths {
                let len = self.pending.len();
                self.pending
                    .update_or_remove(path, |entries| entries.retain_after(now));
                if self.pending.len() < len && path.held().is_some() {
                    self.pending_held.step(false);
                }
            }
            if self.changed.is_empty() {
                self.changed = paths;
            } else {
                self.changed.extend(paths);
            }
        }
        match &mut self.moment_zxids.0 {
            Some(moments) => {
                while moments.front().is_some_and(|(at, _)| *at <= now) {
                    moments.pop_front();
                }
            }
            // Known again from an ensemble with nothing pending.
            None if self.pending.is_empty() && self.deferred_changed.is_empty() => {
                self.moment_zxids = super::MomentZxids::known();
            }
            None => {}
        }
    }

    /// The moments at which changes made since the last call become visible
    /// (the simulator wakes up then).
    pub fn take_new_visible(&mut self) -> Vec<SimTime> {
        std::mem::take(&mut self.new_visible)
    }

    /// What observers see is the same at two calls that give the same
    /// stamp: they were made on the same ensemble (a copy, or one read back,
    /// has stamps of its own), no transaction was made in between (or one
    /// was, and rolled back) and no pending change became visible. For
    /// readers that keep what they read (the simulator's reads of
    /// `/controller` after every step).
    pub fn observed_stamp(&self) -> (i64, u64) {
        (self.zxid, self.visible_flushes.0)
    }

    /// Whether some write is made but not yet visible to observers.
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The node at `path` as observers see it now.
    pub fn observed(&self, path: &str) -> Option<&Znode> {
        self.observed_key(&PathKey::from(path))
    }

    /// The state znode of a topic's partition as observers see it now:
    /// [`Zk::observed`] of its path, without writing the path out.
    pub fn observed_partition_state(&self, topic: &str, partition: u32) -> Option<&Znode> {
        self.observed_key(&super::partition_state_key(topic, partition))
    }

    /// [`Zk::observed`] of the path `key` stands for.
    pub(crate) fn observed_key(&self, key: &PathKey) -> Option<&Znode> {
        if key.held().is_some() && self.pending_held() == 0 {
            return self.find(key);
        }
        let node = self.find(key);
        // Changed last before every pending write: none of them is its.
        if let (Some(n), Some(first)) = (node, self.first_moment_zxid()) {
            if n.stat.mzxid <= first {
                return node;
            }
        }
        match self.pending.get(key).and_then(|e| e.first()) {
            Some((_, before)) => before.as_deref(),
            None => node,
        }
    }

    /// The least zxid of [`Zk::moment_zxids`], if known (every pending
    /// write's is above it).
    fn first_moment_zxid(&self) -> Option<i64> {
        let moments = self.moment_zxids.0.as_ref()?;
        match moments.front() {
            Some((_, z)) => Some(*z),
            // Nothing pending: no write is above any zxid.
            None => self.pending.is_empty().then_some(i64::MAX),
        }
    }

    /// How many paths with changes not yet visible are not a partition's.
    fn pending_held(&self) -> usize {
        self.pending_held.get(|| {
            self.pending
                .iter()
                .filter(|(k, _)| k.held().is_some())
                .count()
        })
    }

    /// The names of the children of the node at `path`, if observers see
    /// that node now (none otherwise), in order.
    pub fn observed_children<'a>(&'a self, path: &str) -> super::Children<'a> {
        let mut c = self.children(path);
        if self.observed(path).is_none() {
            c.done = true;
        }
        c
    }

    /// Every node as observers see it now, in path order.
    pub fn observed_nodes(&self) -> Vec<(Cow<'_, str>, &Znode)> {
        if self.pending.is_empty() {
            return self.nodes().collect();
        }
        let mut out: Vec<(Cow<'_, str>, &Znode)> = self
            .nodes
            .iter()
            .filter(|(p, _)| !self.pending.contains_key(*p))
            .map(|(p, n)| (p.text(), n))
            .collect();
        for (p, entries) in self.pending.iter() {
            if let Some((_, Some(before))) = entries.first() {
                out.push((p.text(), before));
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::{CreateMode, Op};
    use super::*;

    #[test]
    fn a_write_partway_through_its_writers_work_is_seen_when_the_work_reaches_it() {
        // Kafka: the controller's ZooKeeper writes happen one after another as
        // its event runs; others see each when it is made.
        let mut zk = Zk::new();
        let s = zk.open_session(SimTime::ZERO, 6000);
        zk.create(Some(s), "/a", "0", CreateMode::Persistent)
            .unwrap();
        zk.set_now(SimTime(100));
        zk.take_changed();
        zk.set_op_offset_us(2_500);
        let op = Op::SetData {
            path: "/a".into(),
            data: "1".into(),
            version: None,
        };
        zk.multi(Some(s), &[op]).unwrap();
        zk.create(Some(s), "/b", "new", CreateMode::Persistent)
            .unwrap();
        zk.set_op_offset_us(0);
        assert_eq!(
            zk.node("/a").unwrap().data,
            "1",
            "the writer sees its write"
        );
        assert_eq!(zk.observed("/a").unwrap().data, "0", "observers do not yet");
        assert!(zk.observed("/b").is_none());
        assert!(zk.observed_nodes().iter().all(|(p, _)| *p != "/b"));
        assert!(zk.take_changed().is_empty());
        assert_eq!(zk.take_new_visible(), vec![SimTime(103)]);
        zk.set_now(SimTime(103));
        assert_eq!(zk.observed("/a").unwrap().data, "1");
        assert_eq!(zk.observed("/b").unwrap().data, "new");
        assert_eq!(zk.take_changed(), vec!["/a".to_string(), "/b".to_string()]);
    }

    #[test]
    fn the_moments_writes_become_visible_are_given_once_each_in_order() {
        // Kafka: two writers' work overlaps (a controller event and a
        // leader's ISR update), so their writes become visible out of the
        // order they were made; the simulator wakes at each moment once.
        let mut zk = Zk::new();
        let s = zk.open_session(SimTime::ZERO, 6000);
        zk.create(Some(s), "/a", "0", CreateMode::Persistent)
            .unwrap();
        zk.set_now(SimTime(100));
        let mut moments = Vec::new();
        for (offset_ms, take) in [
            (5, false),
            (2, false),
            (5, false),
            (9, false),
            (1, true),
            (3, true),
            (3, false),
            (1, true),
        ] {
            zk.set_op_offset_us(offset_ms * 1000);
            let op = Op::SetData {
                path: "/a".into(),
                data: offset_ms.to_string(),
                version: None,
            };
            zk.multi(Some(s), &[op]).unwrap();
            if take {
                moments.push(zk.take_new_visible());
            }
        }
        let t = |ms: &[u64]| ms.iter().map(|m| SimTime(100 + m)).collect::<Vec<_>>();
        assert_eq!(moments, vec![t(&[1, 2, 5, 9]), t(&[3]), t(&[1, 3])]);
        assert!(zk.take_new_visible().is_empty());
    }

    #[test]
    fn what_observers_see_is_found_without_the_pending_search_only_where_it_is_the_same() {
        // Kafka: observers see each of the controller's writes when its
        // event reaches it, and each leader's ISR write at once. A node last
        // changed before every pending write is seen without searching the
        // pending changes; random writes, immediate and partway through
        // (in and out of time order), creates, deletes, state writes from
        // numbers and a round trip through serde must leave every path
        // seen as an ensemble that always searches sees it.
        use crate::ids::{BrokerId, TopicPartition};
        use crate::znodes::LeaderIsr;
        let paths: Vec<String> = (0..6)
            .map(|p| format!("/brokers/topics/t/partitions/{p}/state"))
            .chain(["/controller".to_string(), "/x".to_string()])
            .collect();
        let mut fast_paths = 0;
        for seed in 0..40 {
            let mut rng = crate::rng::Rng::new(seed);
            let mut zk = Zk::new();
            let s = zk.open_session(SimTime::ZERO, 600_000);
            for p in &paths[..4] {
                zk.create_recursive(Some(s), p, "{}", CreateMode::Persistent)
                    .unwrap();
            }
            let mut now = 10;
            zk.set_now(SimTime(now));
            for step in 0..200 {
                let offset_us = match rng.below(3) {
                    0 => 0,
                    _ => rng.below(20_000),
                };
                zk.set_op_offset_us(offset_us);
                let p = paths[rng.below(paths.len() as u64) as usize].clone();
                match rng.below(6) {
                    0 => {
                        let _ = zk.create(Some(s), &p, "c", CreateMode::Persistent);
                    }
                    1 => {
                        let _ = zk.delete(Some(s), &p, None);
                    }
                    2 => {
                        let n = (step % 6) as u32;
                        let l = LeaderIsr {
                            leader: Some(BrokerId(1)),
                            leader_epoch: step,
                            isr: [BrokerId(1)].into_iter().collect(),
                            zk_version: 0,
                            controller_epoch: 1,
                        };
                        let tp = TopicPartition {
                            topic: "t".into(),
                            partition: n,
                        };
                        let _ = zk.set_partition_state(Some(s), None, &tp, &l, None);
                    }
                    3 => {
                        now += rng.below(8);
                        zk.set_op_offset_us(0);
                        zk.set_now(SimTime(now));
                    }
                    4 if rng.below(10) == 0 => {
                        let text = serde_json::to_string(&zk).unwrap();
                        zk = serde_json::from_str(&text).unwrap();
                    }
                    _ => {
                        let op = Op::SetData {
                            path: p,
                            data: step.to_string(),
                            version: None,
                        };
                        let _ = zk.multi(Some(s), &[op]);
                    }
                }
                zk.set_op_offset_us(0);
                let mut searching = zk.clone();
                searching.moment_zxids.0 = None;
                for p in &paths {
                    let key = PathKey::from(p.as_str());
                    assert_eq!(
                        zk.observed_key(&key),
                        searching.observed_key(&key),
                        "seed {seed}, step {step}, {p}"
                    );
                    let first = zk.first_moment_zxid();
                    if zk.has_pending()
                        && zk
                            .find(&key)
                            .zip(first)
                            .is_some_and(|(n, z)| n.stat.mzxid <= z)
                    {
                        fast_paths += 1;
                    }
                }
                zk.take_changed();
                zk.take_new_visible();
            }
        }
        // The search was skipped while changes were pending, many times.
        assert!(fast_paths > 1_000, "{fast_paths}");
    }

    #[test]
    fn the_observed_stamp_changes_whenever_what_observers_see_may_have() {
        // Kafka: the controller's writes are seen when its event reaches
        // them; the simulator reads `/controller` after every step again only
        // when this stamp moved, so it must move at every committed write and
        // at every moment a pending write becomes visible, and not for reads
        // or a write that failed.
        let mut zk = Zk::new();
        let s = zk.open_session(SimTime::ZERO, 6000);
        zk.create(Some(s), "/a", "0", CreateMode::Persistent)
            .unwrap();
        zk.set_now(SimTime(100));
        let s0 = zk.observed_stamp();
        assert_eq!(zk.observed("/a").unwrap().data, "0");
        assert!(zk.set_data(Some(s), "/a", "x", Some(99)).is_err());
        assert_eq!(zk.observed_stamp(), s0, "reads and a failed write");
        zk.set_op_offset_us(2_500);
        zk.set_data(Some(s), "/a", "1", None).unwrap();
        zk.set_op_offset_us(0);
        let s1 = zk.observed_stamp();
        assert_ne!(s1, s0, "a committed write");
        assert_eq!(zk.observed("/a").unwrap().data, "0");
        zk.set_now(SimTime(102));
        assert_eq!(zk.observed_stamp(), s1, "nothing became visible");
        zk.set_now(SimTime(103));
        let s2 = zk.observed_stamp();
        assert_ne!(s2, s1, "the write became visible");
        assert_eq!(zk.observed("/a").unwrap().data, "1");
        // Another ensemble (a copy, or one read back) never gives the same
        // stamp, whatever its zxid: a reader keeping values by the stamp
        // reads it again.
        let copy = zk.clone();
        let back: Zk = serde_json::from_str(&serde_json::to_string(&zk).unwrap()).unwrap();
        assert_ne!(copy.observed_stamp(), s2);
        assert_ne!(back.observed_stamp(), s2);
        assert_ne!(back.observed_stamp(), copy.observed_stamp());
        assert_eq!(zk.observed_stamp(), s2);
    }

    #[test]
    fn a_path_changed_several_times_at_one_moment_is_reported_each_time() {
        // Kafka: every write fires its own watch and is its own change, even
        // when a controller event rewrites a node within one millisecond;
        // observers see the node as it was until that moment, then as the
        // last write left it. A session's ephemeral node deleted partway
        // through leaves no before-image, and is reported at the same moment.
        let mut zk = Zk::new();
        let s = zk.open_session(SimTime::ZERO, 6000);
        let s2 = zk.open_session(SimTime::ZERO, 6000);
        zk.create(Some(s), "/a", "0", CreateMode::Persistent)
            .unwrap();
        zk.create(Some(s2), "/b", "e", CreateMode::Ephemeral)
            .unwrap();
        zk.set_now(SimTime(10));
        zk.take_changed();
        zk.set_op_offset_us(500);
        let set = |d: &str| Op::SetData {
            path: "/a".into(),
            data: d.into(),
            version: None,
        };
        zk.multi(Some(s), &[set("1"), set("2")]).unwrap();
        zk.set_data(Some(s), "/a", "3", None).unwrap();
        zk.expire_session(s2).unwrap();
        zk.set_op_offset_us(0);
        zk.set_now(SimTime(10));
        assert_eq!(zk.observed("/a").unwrap().data, "0");
        assert!(zk.observed("/b").is_none());
        assert!(zk.take_changed().is_empty());
        assert!(zk.has_pending());
        zk.set_now(SimTime(11));
        assert_eq!(zk.observed("/a").unwrap().data, "3");
        assert_eq!(zk.take_changed(), vec!["/a", "/a", "/a", "/b"]);
        assert!(!zk.has_pending());
    }

    #[test]
    fn what_observers_see_follows_a_model_of_the_writes_through_clones() {
        // Kafka: a controller event's writes are made one after another (each
        // seen when made), so a node changed twice is seen as it was, then
        // after each change in turn. Checked against a plain model: per path,
        // the data observers see at each moment, in an ensemble and in a copy
        // taken halfway (copies share the pending changes' chunks).
        use std::collections::BTreeMap;
        let mut zk = Zk::new();
        let s = zk.open_session(SimTime::ZERO, 6000);
        let mut seen: BTreeMap<String, Option<String>> = BTreeMap::new();
        // Other paths and partitions' (held as numbers: the lookups of the
        // others skip the pending changes while none of them has one).
        let name = |k: u64| match k % 3 {
            0 => format!("/brokers/topics/t/partitions/{k}"),
            _ => format!("/n{k:03}"),
        };
        zk.create_recursive(
            Some(s),
            "/brokers/topics/t/partitions",
            "",
            CreateMode::Persistent,
        )
        .unwrap();
        for i in 0..200 {
            let p = name(i);
            zk.create(Some(s), &p, "v0", CreateMode::Persistent)
                .unwrap();
            seen.insert(p, Some("v0".into()));
        }
        zk.set_now(SimTime(10));
        // At 10 ms plus i µs·100: node i created, rewritten or deleted.
        let mut later: Vec<(SimTime, String, Option<String>)> = Vec::new();
        for i in 0..600u64 {
            let p = name((i * 7) % 250);
            zk.set_op_offset_us(i * 100);
            let at = SimTime(10).plus_us_ceil(i * 100);
            let now_there = zk.node(&p).is_some();
            let after = match (now_there, i % 3) {
                (false, _) => {
                    zk.create(Some(s), &p, &format!("c{i}"), CreateMode::Persistent)
                        .unwrap();
                    Some(format!("c{i}"))
                }
                (true, 0) => {
                    zk.delete(Some(s), &p, None).unwrap();
                    None
                }
                (true, _) => {
                    zk.set_data(Some(s), &p, &format!("s{i}"), None).unwrap();
                    Some(format!("s{i}"))
                }
            };
            later.push((at, p, after));
        }
        zk.set_op_offset_us(0);
        let observed = |zk: &Zk, seen: &BTreeMap<String, Option<String>>| {
            for (p, data) in seen {
                assert_eq!(zk.observed(p).map(|n| n.data.to_string()), *data, "{p}");
            }
            let all: Vec<(String, String)> = zk
                .observed_nodes()
                .into_iter()
                .filter(|(p, _)| {
                    p.starts_with("/n") || p.starts_with("/brokers/topics/t/partitions/")
                })
                .map(|(p, n)| (p.to_string(), n.data.to_string()))
                .collect();
            let model: Vec<(String, String)> = seen
                .iter()
                .filter_map(|(p, d)| d.clone().map(|d| (p.clone(), d)))
                .collect();
            assert_eq!(all, model);
        };
        let mut copy: Option<(Zk, BTreeMap<String, Option<String>>)> = None;
        for ms in 10..=80 {
            zk.set_now(SimTime(ms));
            for (at, p, after) in &later {
                if *at == SimTime(ms) {
                    seen.insert(p.clone(), after.clone());
                }
            }
            observed(&zk, &seen);
            let held = zk
                .pending
                .iter()
                .filter(|(k, _)| k.held().is_some())
                .count();
            assert_eq!(zk.pending_held(), held);
            // A deserialized copy counts its own.
            let back: Zk = serde_json::from_str(&serde_json::to_string(&zk).unwrap()).unwrap();
            observed(&back, &seen);
            assert_eq!(back.pending_held(), held);
            if ms == 40 {
                copy = Some((zk.clone(), seen.clone()));
            }
            if let Some((c, c_seen)) = copy.as_ref() {
                observed(c, c_seen);
            }
        }
        assert!(!zk.has_pending());
        let (mut c, mut c_seen) = copy.unwrap();
        assert!(c.has_pending());
        c.set_now(SimTime(80));
        for (_, p, after) in &later {
            c_seen.insert(p.clone(), after.clone());
        }
        observed(&c, &c_seen);
        assert!(!c.has_pending());
        assert_eq!(c, zk);
    }
}
