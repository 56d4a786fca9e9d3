//! Unit tests of the ensemble ([`super::Zk`]): node creation and deletion,
//! versions, sequential and ephemeral nodes, sessions, watches, multi-ops.

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
fn get_children_lists_direct_children_by_name_whatever_lies_below_them() {
    // ZooKeeper: getChildren returns a node's child names only (Kafka reads
    // /brokers/topics and /brokers/topics/<t>/partitions this way); the
    // names here sort around '/' ('-' and '.' before it, '0' after), so
    // descendants interleave with siblings in path order.
    let (mut zk, s) = zk_with_session();
    for p in [
        "/t/big/partitions/0/state",
        "/t/big/partitions/10/state",
        "/t/big/partitions/2",
        "/t/big-x/partitions/0/state",
        "/t/big.y",
        "/t/big0",
        "/t/a",
    ] {
        zk.create_recursive(Some(s), p, "", Persistent).unwrap();
    }
    assert_eq!(
        zk.get_children("/t", None).unwrap(),
        vec!["a", "big", "big-x", "big.y", "big0"]
    );
    assert_eq!(
        zk.children("/t/big/partitions").collect::<Vec<_>>(),
        vec!["0", "10", "2"]
    );
    assert_eq!(zk.children("/").collect::<Vec<_>>(), vec!["t"]);
    assert_eq!(zk.children("/t/a").count(), 0);
    assert_eq!(zk.children("/nothing").count(), 0);
    assert_eq!(zk.get_children("/nothing", None), Err(ZkError::NoNode));
    assert_eq!(
        zk.delete(Some(s), "/t/big-x/partitions/0", None),
        Err(ZkError::NotEmpty)
    );
    zk.delete(Some(s), "/t/big0", None).unwrap();
    zk.delete_recursive(Some(s), "/t/big").unwrap();
    assert_eq!(
        zk.get_children("/t", None).unwrap(),
        vec!["a", "big-x", "big.y"]
    );
    // A child's coming and going counts in the parent's cversion.
    assert_eq!(zk.node("/t").unwrap().stat.cversion, 7);
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

// ZooKeeper's Stat (DataTree): ctime and mtime are set at creation, mtime
// and mZxid move with each setData, pZxid with each child created or
// deleted; an ephemeral-sequential node takes its parent's counter and is
// owned by the creating session.
/// A znode's times are held in 32 bits: the last moment a run may reach,
/// exactly; 49 days on (only a soak replay's liveness bound can go there),
/// the latest moment 32 bits say. (ZooKeeper's `Stat.ctime`/`mtime`, which `zookeeper-shell`'s `stat`
/// prints.)
#[test]
fn stat_times_hold_the_last_moment_a_run_reaches() {
    let (mut zk, _) = zk_with_session();
    zk.set_now(SimTime(crate::scenario::MAX_TIME_MS + 60_000));
    zk.create(None, "/a", "x", Persistent).unwrap();
    let day = zk.node("/a").unwrap().stat.ctime_ms;
    assert_eq!(u64::from(day), crate::scenario::MAX_TIME_MS + 60_000);
    zk.set_now(SimTime(u64::from(u32::MAX) + 7));
    zk.set_data(None, "/a", "w", None).unwrap();
    assert_eq!(zk.node("/a").unwrap().stat.mtime_ms, u32::MAX);
}

#[test]
fn stat_times_and_pzxid_follow_zookeeper() {
    let (mut zk, s) = zk_with_session();
    zk.set_now(SimTime(1_500));
    zk.create(None, "/a", "x", Persistent).unwrap();
    let a = zk.node("/a").unwrap().stat;
    assert_eq!((a.ctime_ms, a.mtime_ms, a.pzxid), (1_500, 1_500, a.czxid));
    zk.set_now(SimTime(2_000));
    zk.set_data(None, "/a", "y", None).unwrap();
    let a2 = zk.node("/a").unwrap().stat;
    assert_eq!((a2.ctime_ms, a2.mtime_ms), (1_500, 2_000));
    assert!(a2.mzxid > a.mzxid);
    assert_eq!(a2.pzxid, a.pzxid, "a data change leaves pZxid alone");
    let p = zk
        .create(Some(s), "/a/e-", "", EphemeralSequential)
        .unwrap();
    assert_eq!(p, "/a/e-0000000000");
    assert_eq!(zk.node(&p).unwrap().stat.ephemeral_owner(), Some(s));
    let a3 = zk.node("/a").unwrap().stat;
    assert_eq!(a3.pzxid, zk.node(&p).unwrap().stat.czxid);
    assert_eq!(a3.mzxid, a2.mzxid, "a child leaves mZxid alone");
    zk.close_session(s).unwrap();
    assert!(zk.node(&p).is_none());
    let a4 = zk.node("/a").unwrap().stat;
    assert!(a4.pzxid > a3.pzxid && a4.cversion == 2);
    // A failed multi puts pZxid back with the rest.
    let before = zk.clone();
    let ops = [
        Op::Create {
            path: "/a/b".into(),
            data: String::new(),
            mode: Persistent,
        },
        Op::Check {
            path: "/nope".into(),
            version: 0,
        },
    ];
    assert_eq!(zk.multi(None, &ops), Err((1, ZkError::NoNode)));
    assert_eq!(zk, before);
}

#[test]
fn whether_a_session_is_alive_follows_its_state_through_copies() {
    // Kafka: a session is usable until the server expires it or the client
    // closes it (ZooKeeper's SessionTracker). Checked against the sessions'
    // own states, in an ensemble, a copy and a deserialized copy, for ids
    // handed out and not.
    let mut zk = Zk::new();
    let check = |zk: &Zk| {
        for id in 0..40u64 {
            let want = zk
                .session(SessionId(id))
                .is_some_and(|s| s.state == SessionState::Alive);
            assert_eq!(zk.is_alive(SessionId(id)), want, "{id}");
        }
    };
    check(&zk);
    let mut copies = Vec::new();
    for i in 0..30u64 {
        let s = zk.open_session(SimTime(i), 6000);
        match i % 4 {
            1 => zk.expire_session(SessionId(s.0 - 1)).unwrap_or(()),
            3 => zk.close_session(s).unwrap(),
            _ => {}
        }
        check(&zk);
        if i % 10 == 5 {
            let back: Zk = serde_json::from_str(&serde_json::to_string(&zk).unwrap()).unwrap();
            copies.push((zk.clone(), back));
        }
    }
    for (copy, mut back) in copies {
        check(&copy);
        check(&back);
        let s = back.open_session(SimTime(99), 6000);
        check(&back);
        back.expire_session(s).unwrap();
        check(&back);
    }
}

#[test]
fn a_partition_znode_found_where_it_was_is_the_one_asked_for_after_the_tree_moves() {
    // Not a Kafka behaviour: the ensemble's lookups. Where each partition's
    // znodes were found is remembered by a hash of the path and shared by
    // copies; creations (here partitions added in between, in path order,
    // and a second topic) move entries within and between chunks, and a
    // copy goes its own way. Every lookup must still answer for its own
    // path, in every copy, as a fresh search does.
    let (mut zk, s) = zk_with_session();
    let state = |t: &str, p: u32| format!("/brokers/topics/{t}/partitions/{p}/state");
    let create = |zk: &mut Zk, t: &str, p: u32| {
        zk.create_recursive(Some(s), &state(t, p), &format!("{t}-{p}"), Persistent)
            .unwrap();
    };
    for p in (0..3_000).step_by(2) {
        create(&mut zk, "orders", p);
    }
    let check = |zk: &mut Zk, want: &[(String, u32)]| {
        for (t, p) in want {
            let by_path = zk.node(&state(t, *p)).map(|n| n.data.text().to_string());
            assert_eq!(
                by_path.as_deref(),
                Some(format!("{t}-{p}").as_str()),
                "{t}-{p}"
            );
            let by_number = zk
                .get_partition_state(&crate::ids::TopicPartition::new(t.as_str(), *p))
                .ok()
                .map(|n| n.data.text().to_string());
            assert_eq!(by_number, by_path, "{t}-{p} by number");
        }
    };
    let mut want: Vec<(String, u32)> = (0..3_000)
        .step_by(2)
        .map(|p| ("orders".into(), p))
        .collect();
    check(&mut zk, &want);
    let mut copy = zk.clone();
    for p in (1..3_000).step_by(2) {
        create(&mut zk, "orders", p);
        want.push(("orders".into(), p));
    }
    for p in 0..500 {
        create(&mut zk, "audit", p);
        want.push(("audit".into(), p));
    }
    check(&mut zk, &want);
    // The copy, sharing the places the original found since, still has
    // only its own nodes, and writes land on the right one.
    check(&mut copy, &want[..1_500]);
    assert!(copy.node(&state("orders", 1)).is_none());
    let text = |zk: &Zk, p: u32| {
        zk.node(&state("orders", p))
            .map(|n| n.data.text().to_string())
    };
    zk.set_data(Some(s), &state("orders", 7), "seven", None)
        .unwrap();
    copy.set_data(Some(s), &state("orders", 6), "six", None)
        .unwrap();
    assert_eq!(text(&zk, 7).as_deref(), Some("seven"));
    assert_eq!(text(&zk, 6).as_deref(), Some("orders-6"));
    assert_eq!(text(&copy, 6).as_deref(), Some("six"));
    assert_eq!(text(&copy, 8).as_deref(), Some("orders-8"));
    assert_eq!(text(&copy, 7), None);
}

#[test]
fn a_partition_state_set_from_its_numbers_is_the_multi_op_of_its_texts() {
    // Kafka: KafkaZkClient.updateLeaderAndIsr (a setData of the state znode
    // in a multi-op with the controller epoch's check) and
    // Partition.updateIsr (a conditional setData alone): the write made from
    // the numbers is that multi-op, effect for effect and error for error.
    use crate::ids::{BrokerId, TopicPartition};
    use crate::znodes::{encode_partition_state, LeaderIsr};
    let mut cases = 0;
    for topic in ["t", "a-topic-longer-than-seventeen-bytes"] {
        let tp = TopicPartition {
            topic: topic.into(),
            partition: 3,
        };
        let path = format!("/brokers/topics/{topic}/partitions/3/state");
        let l = |isr: &[u32], zk_version| LeaderIsr {
            leader: isr.first().copied().map(BrokerId),
            leader_epoch: 4,
            isr: isr.iter().copied().map(BrokerId).collect(),
            zk_version,
            controller_epoch: 2,
        };
        let checks = [
            None,
            Some(("/controller_epoch", 0)),
            Some(("/controller_epoch", 5)),
            Some(("/missing", 0)),
        ];
        for exists in [true, false] {
            for check in checks {
                for version in [None, Some(0), Some(3)] {
                    for offset_us in [0, 2_500] {
                        // No watch, a watch on this path, a watch on
                        // another partition's.
                        for watched in [0u8, 1, 2] {
                            for alive in [true, false] {
                                let (mut zk, s) = zk_with_session();
                                let w = zk.open_session(SimTime::ZERO, 6000);
                                zk.create(Some(s), "/controller_epoch", "2", Persistent)
                                    .unwrap();
                                let first = encode_partition_state(&l(&[1, 2], 0));
                                let at = if exists {
                                    path.as_str()
                                } else {
                                    "/elsewhere/x"
                                };
                                zk.create_recursive(Some(s), at, &first, Persistent)
                                    .unwrap();
                                match watched {
                                    1 => {
                                        let _ = zk.get_data(&path, Some(w));
                                    }
                                    2 => {
                                        let other =
                                            format!("/brokers/topics/{topic}/partitions/4/state");
                                        let _ = zk.exists(&other, Some(w));
                                    }
                                    _ => {}
                                }
                                if !alive {
                                    zk.close_session(s).unwrap();
                                }
                                zk.set_now(SimTime(100));
                                zk.take_changed();
                                zk.set_op_offset_us(offset_us);
                                let new = l(&[2, 70_000, 1], version.unwrap_or(0));
                                let mut a = zk.clone();
                                let mut b = zk;
                                let mut ops: Vec<Op> = check
                                    .map(|(p, v)| Op::Check {
                                        path: p.into(),
                                        version: v,
                                    })
                                    .into_iter()
                                    .collect();
                                ops.push(Op::SetData {
                                    path: path.clone(),
                                    data: encode_partition_state(&new),
                                    version,
                                });
                                let want = a.multi(Some(s), &ops).map(|mut r| r.pop());
                                let got = b
                                    .set_partition_state(Some(s), check, &tp, &new, version)
                                    .map(|st| Some(OpResult::SetData(st)));
                                assert_eq!(got, want, "{check:?} {version:?} {exists}");
                                assert!(a == b, "{check:?} {version:?} {exists} {watched}");
                                // Counted alike (equality leaves counters out).
                                assert_eq!(a.counters(), b.counters());
                                assert_eq!(a.take_fired(), b.take_fired());
                                assert_eq!(a.observed(&path), b.observed(&path));
                                for zk in [&mut a, &mut b] {
                                    zk.set_op_offset_us(0);
                                    zk.set_now(SimTime(200));
                                }
                                assert_eq!(a.take_changed(), b.take_changed());
                                assert_eq!(a.observed(&path), b.observed(&path));
                                assert!(a == b);
                                cases += usize::from(want.is_ok());
                            }
                        }
                    }
                }
            }
        }
    }
    // Writes that succeeded, with and without a check, were among them.
    assert!(cases >= 16, "{cases}");
}

#[test]
fn a_watched_state_znode_hears_its_write_however_its_watch_came_and_went() {
    // Kafka: the controller's PartitionReassignmentIsrChangeHandler watches a
    // reassigned partition's state znode (KafkaController.
    // registerPartitionReassignmentIsrChangeHandlers), and a leader's ISR
    // write (Partition.updateIsr) must fire it. A state write made from the
    // numbers skips the watch lookup while no partition's path is watched:
    // through every way a watch comes and goes, it fires exactly what the
    // multi-op of the texts fires.
    use crate::ids::{BrokerId, TopicPartition};
    use crate::znodes::{encode_partition_state, LeaderIsr};
    let tp = |p: u32| TopicPartition {
        topic: "t".into(),
        partition: p,
    };
    let path = |p: u32| format!("/brokers/topics/t/partitions/{p}/state");
    let state = |isr: &[u32]| LeaderIsr {
        leader: Some(BrokerId(1)),
        leader_epoch: 0,
        isr: isr.iter().copied().map(BrokerId).collect(),
        zk_version: 0,
        controller_epoch: 1,
    };
    let (mut zk, s) = zk_with_session();
    let w = zk.open_session(SimTime::ZERO, 6000);
    for p in [3, 4] {
        let first = encode_partition_state(&state(&[1]));
        zk.create_recursive(Some(s), &path(p), &first, Persistent)
            .unwrap();
    }
    let mut isr = 1;
    // Write partition `p`'s state as the multi-op would and as the numbers
    // do; how many notifications fired.
    let mut write = |zk: &mut Zk, p: u32| -> usize {
        isr += 1;
        let l = state(&[1, isr]);
        let mut a = zk.clone();
        let ops = [Op::SetData {
            path: path(p),
            data: encode_partition_state(&l),
            version: None,
        }];
        a.multi(Some(s), &ops).unwrap();
        zk.set_partition_state(Some(s), None, &tp(p), &l, None)
            .unwrap();
        let fired = zk.take_fired();
        assert_eq!(a.take_fired(), fired, "partition {p}, isr {isr}");
        assert!(a == *zk);
        fired.len()
    };
    assert_eq!(write(&mut zk, 3), 0, "no watch yet");
    zk.get_data(&path(3), Some(w)).unwrap();
    assert_eq!(write(&mut zk, 4), 0, "another partition's watch");
    assert_eq!(write(&mut zk, 3), 1, "a getData watch");
    assert_eq!(write(&mut zk, 3), 0, "a watch fires once");
    zk.exists(&path(3), Some(w)).unwrap();
    zk.exists(&path(4), Some(s)).unwrap();
    assert_eq!(write(&mut zk, 3), 1, "an exists watch, another still set");
    assert_eq!(write(&mut zk, 4), 1, "the other");
    zk.get_data(&path(3), Some(w)).unwrap();
    zk.get_data(&path(4), Some(s)).unwrap();
    zk.close_session(w).unwrap();
    assert_eq!(write(&mut zk, 3), 0, "its session's watch ended with it");
    assert_eq!(write(&mut zk, 4), 1, "another session's stayed");
    zk.get_data(&path(3), Some(s)).unwrap();
    let text = serde_json::to_string(&zk).unwrap();
    let mut back: Zk = serde_json::from_str(&text).unwrap();
    assert_eq!(
        write(&mut back, 3),
        1,
        "a watch read back with the ensemble"
    );
    assert_eq!(write(&mut back, 3), 0, "and fired once");
}

#[test]
fn a_state_key_made_from_the_last_topic_is_the_key_of_its_path() {
    // Kafka: the controller reads a partition's state znode
    // (`/brokers/topics/<t>/partitions/<n>/state`, KafkaZkClient.
    // getTopicPartitionStates) and then writes it (updateLeaderAndIsr), a
    // topic's partitions one after another. The key made from the topic
    // part kept from the last call is the key of the path written out,
    // whatever order topics and partitions come in, for names held as
    // numbers and for those held as text.
    let topics = [
        "t",
        "orders",
        "a-topic-longer-than-seventeen-bytes",
        "t2",
        "x_y.z",
    ];
    let mut rng = crate::rng::Rng::new(5);
    for _ in 0..2_000 {
        let topic = topics[rng.below(topics.len() as u64) as usize];
        let partition = match rng.below(4) {
            0 => 0,
            1 => rng.below(12) as u32,
            2 => rng.below(200_000) as u32,
            _ => 999_999_999 + rng.below(2) as u32,
        };
        let tp = crate::ids::TopicPartition::new(topic, partition);
        let path = format!("/brokers/topics/{topic}/partitions/{partition}/state");
        let key = state_key_of(&tp);
        assert!(key == PathKey::from(path.as_str()), "{path}");
        assert_eq!(key.text(), path, "{path}");
    }
}
