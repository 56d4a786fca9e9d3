use super::*;
use crate::scenario::builtin;
use crate::time::SimTime;

fn run(name: &str, to_ms: u64) -> (crate::trace::Records, Vec<BrokerId>) {
    let s = builtin::scenario(name).expect("built in");
    let mut sim = s.build();
    sim.run_until(SimTime(to_ms));
    (sim.trace().clone(), s.brokers.clone())
}

fn arrows(d: &Diagram) -> Vec<&Arrow> {
    d.rows
        .iter()
        .filter_map(|r| match r {
            Row::Arrow(a) => Some(a),
            Row::Mark(_) => None,
        })
        .collect()
}

fn b(id: u32) -> Party {
    Party::Broker(BrokerId(id))
}

#[test]
fn a_broker_failure_is_a_watch_then_requests_with_the_controllers_epoch() {
    // Kafka: KafkaController.onBrokerFailure — the /brokers/ids child watch
    // fires at the controller (BrokerChange), which sends LeaderAndIsr for
    // the partitions that moved and UpdateMetadata to every live broker,
    // each stamped with its controller epoch. In controller-failover, brokers
    // 0 and 1 are killed at 10 s; broker 2 wins /controller (epoch 2) when
    // the first session expires, then handles the second broker's failure.
    let (trace, brokers) = run("controller-failover", 16_000);
    let d = Diagram::of(&trace, &brokers, 15_100, 16_000);
    assert_eq!(d.lifelines.len(), 4, "ZooKeeper and three brokers");
    assert_eq!(d.lifelines[0].party, Party::Zk);
    let controller: Vec<_> = d
        .lifelines
        .iter()
        .filter(|l| l.controller_epoch.is_some())
        .map(|l| (l.party, l.controller_epoch))
        .collect();
    assert_eq!(
        controller,
        vec![(b(2), Some(2))],
        "broker 2 leads with epoch 2"
    );
    let a = arrows(&d);
    let watch = a
        .iter()
        .position(|a| {
            a.from == Party::Zk
                && a.to == b(2)
                && matches!(&a.message, Message::Watch { path, event: Some("BrokerChange"), .. } if path == "/brokers/ids")
        })
        .expect("the /brokers/ids watch fires at the controller");
    let after = &a[watch..];
    let lai = after
        .iter()
        .find(|a| {
            matches!(
                a.message,
                Message::Request {
                    name: "LeaderAndIsr",
                    ..
                }
            )
        })
        .expect("a LeaderAndIsr follows");
    assert_eq!(lai.from, b(2));
    // It carries the leader epochs the controller just wrote (the
    // isr_shrunk and leader_elected records of the same event).
    let written: Vec<i32> = trace
        .iter()
        .filter(|r| r.time_ms >= a[watch].time_ms && r.time_ms <= lai.time_ms)
        .filter_map(|r| match &*r.fact() {
            Fact::IsrShrunk { leader_epoch, .. } | Fact::LeaderElected { leader_epoch, .. } => {
                Some(*leader_epoch)
            }
            _ => None,
        })
        .collect();
    assert!(!written.is_empty(), "the controller wrote leader epochs");
    assert!(matches!(
        lai.message,
        Message::Request {
            name: "LeaderAndIsr",
            controller_epoch: 2,
            ..
        }
    ));
    for e in written {
        assert!(
            after.iter().any(|a| matches!(a.message,
                Message::Request { name: "LeaderAndIsr", leader_epochs: Some((lo, hi)), .. } if lo <= e && e <= hi)),
            "a LeaderAndIsr carries leader epoch {e}"
        );
    }
    let live = [b(2)];
    for p in live {
        assert!(
            after.iter().any(|a| a.to == p
                && matches!(
                    a.message,
                    Message::Request {
                        name: "UpdateMetadata",
                        controller_epoch: 2,
                        ..
                    }
                )),
            "UpdateMetadata with epoch 2 to live broker {p:?}"
        );
    }
    assert!(
        !after.iter().any(|a| matches!(a.message, Message::Request { .. })
            && (a.to == b(0) || a.to == b(1))),
        "nothing is handled by the dead brokers"
    );
    // Every request is answered.
    let requests = a
        .iter()
        .filter(|a| matches!(a.message, Message::Request { .. }))
        .count();
    let responses = a
        .iter()
        .filter(|a| matches!(a.message, Message::Response { .. }))
        .count();
    assert_eq!(requests, responses);
}

#[test]
fn a_new_controller_is_marked_where_it_wins() {
    // Kafka: KafkaController.elect — the winner of /controller increments
    // the controller epoch; the diagram marks it on its lifeline, after its
    // create of /controller.
    let (trace, brokers) = run("controller-failover", 16_000);
    let d = Diagram::of(&trace, &brokers, 9_000, 16_000);
    assert_eq!(
        d.lifelines
            .iter()
            .find(|l| l.controller_epoch.is_some())
            .map(|l| l.party),
        Some(b(1)),
        "broker 1 was the controller (epoch 1) as the window opens"
    );
    let i = d
        .rows
        .iter()
        .position(|r| matches!(r, Row::Mark(Mark { on, kind: MarkKind::Elected { epoch: 2 }, .. }) if *on == b(2)))
        .expect("broker 2's election is marked");
    assert!(i > 0);
    assert!(
        matches!(&d.rows[i - 1], Row::Arrow(Arrow { from, to: Party::Zk, message: Message::Write { path, .. }, .. }) if *from == b(2) && path == "/controller")
    );
    assert!(d.rows.iter().any(|r| matches!(
        r,
        Row::Mark(Mark {
            kind: MarkKind::UserAction(crate::Action::KillBroker { .. }),
            ..
        })
    )));
}

#[test]
fn a_zombie_controllers_stale_request_is_drawn_rejected() {
    // Kafka: KafkaApis.handleLeaderAndIsrRequest / ReplicaManager.becomeLeaderOrFollower
    // — a request with a controller epoch older than the one the broker has
    // seen is answered STALE_CONTROLLER_EPOCH. In zombie-controller, broker
    // 0 is paused past its session; broker 1 takes over with epoch 2; broker
    // 0 wakes up still believing it leads with epoch 1 and sends LeaderAndIsr.
    let (trace, brokers) = run("zombie-controller", 22_000);
    let d = Diagram::of(&trace, &brokers, 21_000, 22_000);
    assert_eq!(
        d.lifelines
            .iter()
            .find(|l| l.controller_epoch.is_some())
            .map(|l| (l.party, l.controller_epoch)),
        Some((b(1), Some(2)))
    );
    let a = arrows(&d);
    let stale = a
        .iter()
        .find(|a| a.outcome == Outcome::Rejected && matches!(a.message, Message::Request { .. }))
        .expect("a rejected request");
    assert_eq!((stale.from, stale.to), (b(0), b(1)));
    // The zombie sends the leader epoch it wrote itself (isr_shrunk at
    // 21.404 s: leader epoch 1), which ZooKeeper no longer holds.
    assert_eq!(
        stale.message,
        Message::Request {
            name: "LeaderAndIsr",
            controller_epoch: 1,
            leader_epochs: Some((1, 1)),
        }
    );
    assert_eq!(
        English.arrow(stale),
        "LeaderAndIsr (controller epoch 1, leader epoch 1)"
    );
    assert!(a.iter().any(|a| a.from == b(1)
        && a.message
            == Message::Response {
                name: "LeaderAndIsr",
                error: "STALE_CONTROLLER_EPOCH"
            }));
    assert!(
        d.rows.iter().any(
            |r| matches!(r, Row::Mark(Mark { kind: MarkKind::Resigned, on, .. }) if *on == b(0))
        ),
        "the zombie resigns"
    );
}

#[test]
fn a_dropped_watch_notification_is_its_own_kind() {
    // Kafka: ZooKeeper delivers each watch once; if the notification is
    // lost the handler never hears of the change.
    let s = builtin::scenario("controller-failover").expect("built in");
    let mut t = crate::timeline::Timeline::new(&s);
    t.seek(SimTime(15_010));
    let view = crate::view::ClusterView::of(t.sim());
    let watch = view
        .messages
        .iter()
        .find(|m| m.kind == "watch")
        .map(|m| m.id)
        .expect("the /controller watch notification is on the wire");
    t.insert(SimTime(15_010), crate::Action::DropMessage { id: watch })
        .expect("dropped");
    t.seek(SimTime(16_000));
    let d = Diagram::of(t.trace(), &s.brokers, 15_000, 16_000);
    assert!(arrows(&d).iter().any(|a| a.outcome == Outcome::Dropped));
}

#[test]
fn rows_past_the_cap_are_counted_not_drawn() {
    // The layout caps what it draws and says how much it left out.
    let mut s = builtin::scenario("controller-failover").expect("built in");
    for (at, broker) in [(50_000, 2), (70_000, 2), (90_000, 0), (110_000, 0)] {
        let action = if at % 40_000 == 10_000 {
            crate::Action::KillBroker {
                broker: BrokerId(broker),
            }
        } else {
            crate::Action::StartBroker {
                broker: BrokerId(broker),
            }
        };
        s.actions.push((SimTime(at), action));
    }
    let mut sim = s.build();
    sim.run_until(SimTime(130_000));
    let d = Diagram::of(sim.trace(), &s.brokers, 0, 130_000);
    let total = d.rows.len();
    assert!(total > MAX_ROWS, "{total} rows");
    let l = Layout::of(d);
    assert_eq!(l.rows.len(), MAX_ROWS);
    assert_eq!(l.not_drawn, total - MAX_ROWS);
    let ys: Vec<u32> = l.rows.iter().map(|(y, _)| *y).collect();
    assert!(ys.windows(2).all(|w| w[0] < w[1]), "time flows downward");
    let times: Vec<u64> = l.rows.iter().map(|(_, r)| r.time_ms()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
    let svg = to_svg(&l, &English);
    assert!(svg.contains(&format!("{} earlier rows not drawn", total - MAX_ROWS)));
    let all = Diagram::of(sim.trace(), &s.brokers, 0, 130_000);
    assert_eq!(
        all.rows.last().map(Row::time_ms),
        times.last().copied(),
        "the latest are drawn"
    );
}

/// A small checker of the SVG's XML: tags balance, attributes are quoted,
/// text holds no raw `<` and every `&` starts an entity.
fn check_xml(s: &str) -> Vec<String> {
    let mut stack: Vec<String> = Vec::new();
    let mut opened = Vec::new();
    let mut rest = s.trim_end();
    while let Some(lt) = rest.find('<') {
        let text = &rest[..lt];
        check_text(text);
        let gt = rest[lt..].find('>').expect("a tag ends") + lt;
        let tag = &rest[lt + 1..gt];
        rest = &rest[gt + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name), "closing {name}");
            continue;
        }
        let self_closing = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let name = tag.split_whitespace().next().expect("a name").to_string();
        // Attributes: name="value" pairs.
        let mut attrs = tag[name.len()..].trim();
        while !attrs.is_empty() {
            let eq = attrs.find("=\"").expect("a quoted attribute");
            let end = attrs[eq + 2..].find('"').expect("closing quote") + eq + 2;
            check_text(&attrs[eq + 2..end]);
            attrs = attrs[end + 1..].trim();
        }
        opened.push(name.clone());
        if !self_closing {
            stack.push(name);
        }
    }
    assert!(rest.is_empty(), "nothing after the root: {rest:?}");
    assert!(stack.is_empty(), "unclosed: {stack:?}");
    opened
}

fn check_text(t: &str) {
    assert!(!t.contains('<'));
    for (i, _) in t.match_indices('&') {
        let ent = &t[i..];
        assert!(
            ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                .iter()
                .any(|e| ent.starts_with(e)),
            "a bare & in {t:?}"
        );
    }
}

#[test]
fn the_svg_is_well_formed_with_a_lifeline_per_party_and_a_group_per_arrow() {
    // Kafka: KafkaController.onBrokerFailure (the window of the failover).
    let (trace, brokers) = run("controller-failover", 16_000);
    let d = Diagram::of(&trace, &brokers, 15_100, 16_000);
    let n_arrows = arrows(&d).len();
    let rejected = arrows(&d)
        .iter()
        .filter(|a| a.outcome == Outcome::Rejected)
        .count();
    let l = Layout::of(d);
    let svg = to_svg(&l, &English);
    let tags = check_xml(&svg);
    assert_eq!(tags.first().map(String::as_str), Some("svg"));
    assert!(!tags
        .iter()
        .any(|t| t == "script" || t == "foreignObject" || t == "image"));
    assert!(!svg.contains("href"), "no external reference");
    assert_eq!(svg.matches("class=\"life\"").count(), 4);
    // The legend has three sample arrows of its own.
    assert_eq!(svg.matches("<g class=\"arrow ").count(), n_arrows + 3);
    assert_eq!(svg.matches(" rejected\"").count(), rejected + 1);
    assert!(svg.contains("<title>Sequence diagram, 15.100 s to 16.000 s</title>"));
    assert!(svg.contains("broker 2 (controller, epoch 2)"));
    assert!(svg.contains("NodeChildrenChanged /brokers/ids → BrokerChange"));
    assert!(svg.contains("LeaderAndIsr (controller epoch 2, leader epoch"));
    assert!(svg.contains("dropped on the wire"), "the legend");
}

struct Hostile;

impl Labels for Hostile {
    fn title(&self, _: u64, _: u64) -> String {
        "<script>alert('x')</script> & \"q\"".to_string()
    }
    fn lifeline(&self, _: &Lifeline) -> String {
        "a<b>&c".to_string()
    }
    fn arrow(&self, a: &Arrow) -> String {
        English.arrow(a) + " <i>'&'</i>"
    }
    fn mark(&self, _: &Mark) -> String {
        "\"><script>".to_string()
    }
    fn not_drawn(&self, _: usize) -> String {
        "<".to_string()
    }
    fn outcome(&self, _: Outcome) -> String {
        "&&".to_string()
    }
    fn legend_mark(&self) -> String {
        "'".to_string()
    }
    fn empty(&self) -> String {
        ">".to_string()
    }
}

#[test]
fn every_label_is_escaped() {
    // User text (topic names, paths, the page's words) never becomes markup.
    let (trace, brokers) = run("zombie-controller", 22_000);
    let svg = to_svg(
        &Layout::of(Diagram::of(&trace, &brokers, 17_000, 22_000)),
        &Hostile,
    );
    let tags = check_xml(&svg);
    assert!(!tags.iter().any(|t| t == "script" || t == "i" || t == "b"));
    assert!(svg.contains("&lt;script&gt;alert(&apos;x&apos;)&lt;/script&gt; &amp; &quot;q&quot;"));
    assert!(svg.contains("a&lt;b&gt;&amp;c"));
}

#[test]
fn an_empty_window_says_so() {
    let (trace, brokers) = run("zombie-controller", 5_000);
    let l = Layout::of(Diagram::of(&trace, &brokers, 4_000, 4_100));
    assert!(l.rows.is_empty());
    let svg = to_svg(&l, &English);
    check_xml(&svg);
    assert!(svg.contains("nothing sent in this window"));
}

#[test]
fn svg_for_runs_a_scenario_and_refuses_bad_windows() {
    // Kafka: KafkaController.onBrokerFailure (as above, headless).
    let s = builtin::scenario("zombie-controller").expect("built in");
    let svg = svg_for(&s, 21_000, 22_000).expect("drawn");
    assert!(svg.contains("LeaderAndIsr (controller epoch 1, leader epoch 1)"));
    assert!(svg.contains(" rejected\""));
    assert_eq!(
        svg_for(&s, 5, 4).unwrap_err().to_string(),
        "--from 5 ms is after --to 4 ms"
    );
    assert!(svg_for(&s, 0, u64::MAX).is_err());
    // Deterministic.
    assert_eq!(svg, svg_for(&s, 21_000, 22_000).expect("drawn"));
}
