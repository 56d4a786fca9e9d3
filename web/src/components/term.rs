//! Kafka's terms explain themselves: `<Term name={TermId::Isr}>{ "ISR" }</Term>`
//! draws the term with a dotted underline, focusable, and shows a sentence or
//! two about it on hover and on keyboard focus (a `role="tooltip"` the term
//! is `aria-describedby` while it shows), in the page's language. The help lists the same
//! explanations. Facts as in Kafka 2.4 (see the spec); Chinese wording as the
//! course's article has it (控制器, 控制器的纪元, 临时节点, 优先副本, …).

use crate::i18n::{use_lang, Lang};
use std::sync::atomic::{AtomicU32, Ordering};
use yew::prelude::*;

/// A Kafka term the page explains.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TermId {
    /// The controller.
    Controller,
    /// `controller_epoch`.
    ControllerEpoch,
    /// `activeControllerId`.
    ActiveControllerId,
    /// The broker epoch (KIP-380).
    BrokerEpoch,
    /// Assigned replicas.
    Ar,
    /// In-sync replicas.
    Isr,
    /// Log end offset.
    Leo,
    /// High watermark.
    Hw,
    /// A partition's leader epoch.
    LeaderEpoch,
    /// The preferred replica.
    PreferredReplica,
    /// `OnlinePartition`.
    OnlinePartition,
    /// `OfflinePartition`.
    OfflinePartition,
    /// `NewPartition`.
    NewPartition,
    /// `NonExistentPartition`.
    NonExistentPartition,
    /// Unclean leader election.
    UncleanElection,
    /// An ephemeral znode.
    EphemeralZnode,
    /// The ZooKeeper session timeout.
    SessionTimeout,
    /// A znode's data version.
    ZkVersion,
    /// The LeaderAndIsr request.
    LeaderAndIsr,
    /// The UpdateMetadata request.
    UpdateMetadata,
    /// The StopReplica request.
    StopReplica,
    /// The ControlledShutdown request.
    ControlledShutdown,
}

impl TermId {
    /// Every term, in the order the help lists them.
    pub const ALL: [TermId; 22] = [
        TermId::Controller,
        TermId::ControllerEpoch,
        TermId::ActiveControllerId,
        TermId::BrokerEpoch,
        TermId::Ar,
        TermId::Isr,
        TermId::Leo,
        TermId::Hw,
        TermId::LeaderEpoch,
        TermId::PreferredReplica,
        TermId::OnlinePartition,
        TermId::OfflinePartition,
        TermId::NewPartition,
        TermId::NonExistentPartition,
        TermId::UncleanElection,
        TermId::EphemeralZnode,
        TermId::SessionTimeout,
        TermId::ZkVersion,
        TermId::LeaderAndIsr,
        TermId::UpdateMetadata,
        TermId::StopReplica,
        TermId::ControlledShutdown,
    ];

    /// The term's name, as the help lists it.
    pub fn name(self, l: Lang) -> &'static str {
        match self {
            TermId::Controller => l.t("Controller", "控制器"),
            TermId::ControllerEpoch => l.t("Controller epoch", "控制器的纪元（controller_epoch）"),
            TermId::ActiveControllerId => "activeControllerId",
            TermId::BrokerEpoch => l.t("Broker epoch", "broker epoch"),
            TermId::Ar => "AR",
            TermId::Isr => "ISR",
            TermId::Leo => "LEO",
            TermId::Hw => "HW",
            TermId::LeaderEpoch => l.t("Leader epoch", "leader epoch"),
            TermId::PreferredReplica => l.t("Preferred replica", "优先副本"),
            TermId::OnlinePartition => "OnlinePartition",
            TermId::OfflinePartition => "OfflinePartition",
            TermId::NewPartition => "NewPartition",
            TermId::NonExistentPartition => "NonExistentPartition",
            TermId::UncleanElection => l.t("Unclean election", "unclean leader 选举"),
            TermId::EphemeralZnode => l.t("Ephemeral znode", "临时节点"),
            TermId::SessionTimeout => l.t("Session timeout", "会话超时"),
            TermId::ZkVersion => "zkVersion",
            TermId::LeaderAndIsr => "LeaderAndIsr",
            TermId::UpdateMetadata => "UpdateMetadata",
            TermId::StopReplica => "StopReplica",
            TermId::ControlledShutdown => "ControlledShutdown",
        }
    }

    /// The panel the term is seen in (the help links there).
    pub fn panel(self) -> &'static str {
        match self {
            TermId::Controller | TermId::ActiveControllerId | TermId::BrokerEpoch => "p-brokers",
            TermId::SessionTimeout => "p-brokers",
            TermId::ControllerEpoch | TermId::EphemeralZnode | TermId::ZkVersion => "p-zookeeper",
            TermId::LeaderAndIsr | TermId::UpdateMetadata | TermId::StopReplica => "p-wire",
            TermId::ControlledShutdown => "p-wire",
            _ => "p-partitions",
        }
    }

    /// The term in a sentence or two.
    pub fn explain(self, l: Lang) -> &'static str {
        match self {
            TermId::Controller => l.t(
                "The one broker that managed to create the ephemeral /controller znode. It manages every partition's and replica's state, elects partition leaders and tells the brokers (LeaderAndIsr, UpdateMetadata).",
                "成功在 ZooKeeper 中创建临时节点 /controller 的那个 broker，任意时刻集群中有且仅有一个。它管理所有分区和副本的状态，为分区选举 leader，并通知各 broker（LeaderAndIsr、UpdateMetadata）。",
            ),
            TermId::ControllerEpoch => l.t(
                "controller_epoch, kept in the persistent /controller_epoch znode: 1 for the first controller, incremented on every election. Every controller request carries it, and a broker rejects one older than the newest it accepted (STALE_CONTROLLER_EPOCH), so a zombie controller is fenced.",
                "controller_epoch，存放在持久节点 /controller_epoch 中：第一个控制器为 1，每选出一个新的控制器就加 1。每个控制器请求都携带它，broker 拒绝小于已接受最新值的请求（STALE_CONTROLLER_EPOCH），僵尸控制器因此被隔离。",
            ),
            TermId::ActiveControllerId => l.t(
                "A broker's in-memory idea of which broker is the controller, read from /controller when its watch fires, so it can lag; -1 means none.",
                "每个 broker 在内存中保存的当前控制器的 brokerid，在 /controller 的监听器触发时读取，因此可能滞后；-1 表示没有控制器。",
            ),
            TermId::BrokerEpoch => l.t(
                "The czxid of the broker's /brokers/ids/<id> znode (KIP-380), new on every registration. A broker rejects controller requests carrying an older broker epoch (STALE_BROKER_EPOCH), meant for its previous incarnation.",
                "broker 的 /brokers/ids/<id> 节点的 czxid（KIP-380），每次注册都会更新。broker 会拒绝携带旧 broker epoch 的控制器请求（STALE_BROKER_EPOCH），那是发给它上一次启动的。",
            ),
            TermId::Ar => l.t(
                "Assigned replicas: all of a partition's replicas, in the order stored in /brokers/topics/<topic>; the order changes only with a reassignment, and the first is the preferred replica.",
                "分区的所有副本（Assigned Replicas），顺序即 /brokers/topics/<topic> 中的分配顺序，只有重分配时才会改变；第一个副本就是优先副本。",
            ),
            TermId::Isr => l.t(
                "In-sync replicas: the leader itself and the followers that caught up with it within replica.lag.time.max.ms (10000 ms in 2.4). A clean election picks the first live replica in AR order that is in the ISR; acks=all waits for all of them.",
                "ISR 集合：leader 本身，以及在 replica.lag.time.max.ms（2.4 中为 10000 ms）内追上 leader 的 follower。选举时按 AR 的顺序找第一个存活且在 ISR 中的副本；acks=all 要等 ISR 中所有副本都写入。",
            ),
            TermId::Leo => l.t(
                "Log end offset: the offset at which a replica will write its next record.",
                "日志末端位移（Log End Offset）：副本下一条消息将要写入的位移。",
            ),
            TermId::Hw => l.t(
                "High watermark: the offset up to which every ISR replica has the records; records below it are committed and readable by consumers.",
                "高水位（High Watermark）：ISR 中所有副本都已拥有的消息位移；它之前的消息已提交，消费者可以读取。",
            ),
            TermId::LeaderEpoch => l.t(
                "The partition's leadership generation, in its state znode: every controller write there (an election, an ISR removal) adds 1; an ISR change the leader writes itself keeps it.",
                "分区 leader 的代数，存在分区的 state 节点中：控制器每次写这个节点（选举 leader、从 ISR 中移除副本）都加 1；leader 自己写入的 ISR 变更不改变它。",
            ),
            TermId::PreferredReplica => l.t(
                "The first replica in AR. A preferred election makes it leader again if it is alive and in the ISR, by hand or by the auto.leader.rebalance.enable check (every 300 s, for a broker with more than 10% of its partitions led elsewhere).",
                "AR 集合中的第一个副本。优先副本选举在它存活且在 ISR 中时让它重新成为 leader：可以手动触发，也可以由 auto.leader.rebalance.enable 的定时检查触发（每 300 秒，针对超过 10% 的分区由别人担任 leader 的 broker）。",
            ),
            TermId::OnlinePartition => l.t(
                "Partition state: a leader has been elected and the partition serves reads and writes.",
                "分区状态：已经选出 leader，分区可以读写。",
            ),
            TermId::OfflinePartition => l.t(
                "Partition state: its leader died or no leader could be elected (no live ISR replica, unclean election off); the partition is unavailable.",
                "分区状态：leader 下线，或选不出 leader（ISR 中没有存活副本且未开启 unclean 选举）；分区不可用。",
            ),
            TermId::NewPartition => l.t(
                "Partition state: replicas are assigned but no leader or ISR exists yet; the controller moves it to OnlinePartition by electing the first live replica.",
                "分区状态：副本已分配，但还没有 leader 和 ISR；控制器选出第一个存活的副本后将它转为 OnlinePartition。",
            ),
            TermId::NonExistentPartition => l.t(
                "Partition state: never created, or deleted.",
                "分区状态：从未创建，或已被删除。",
            ),
            TermId::UncleanElection => l.t(
                "With no live ISR replica and unclean.leader.election.enable true (false by default), the first live replica in AR order becomes leader though it is outside the ISR: the partition comes back, acknowledged records can be lost.",
                "ISR 中没有存活副本、且 unclean.leader.election.enable 为 true（默认 false）时，从 AR 列表中找第一个存活的副本作为 leader，即使它不在 ISR 中：分区恢复可用，但已确认的消息可能丢失。",
            ),
            TermId::EphemeralZnode => l.t(
                "A znode that lives as long as the ZooKeeper session that created it, such as /controller and /brokers/ids/<id>.",
                "临时（EPHEMERAL）节点：与创建它的 ZooKeeper 会话同生共死，例如 /controller 和 /brokers/ids/<id>。",
            ),
            TermId::SessionTimeout => l.t(
                "zookeeper.session.timeout.ms (6000 in 2.4): how long ZooKeeper waits without a heartbeat before expiring a session and deleting its ephemeral znodes.",
                "zookeeper.session.timeout.ms（2.4 中为 6000）：ZooKeeper 收不到心跳多久之后让会话过期，并删除它的临时节点。",
            ),
            TermId::ZkVersion => l.t(
                "A znode's data version, one higher on every write. The controller's writes are conditional on it (and on /controller_epoch's), so a write based on a stale read fails.",
                "znode 的数据版本，每写一次加 1。控制器的写入以它（以及 /controller_epoch 的版本）为条件，基于过期读取的写入会失败。",
            ),
            TermId::LeaderAndIsr => l.t(
                "The controller's request telling the replicas of some partitions their leader, leader epoch, ISR and AR: each becomes leader or follower.",
                "控制器发给副本所在 broker 的请求，告诉它们分区的 leader、leader epoch、ISR 和 AR：收到后各自成为 leader 或 follower。",
            ),
            TermId::UpdateMetadata => l.t(
                "The controller's request updating every live broker's metadata cache: the live brokers and each partition's leader and ISR.",
                "控制器发给所有存活 broker 的请求，更新它们的元数据缓存：存活的 broker，以及每个分区的 leader 和 ISR。",
            ),
            TermId::StopReplica => l.t(
                "The controller's request telling a broker to stop a replica (stop fetching), and to delete its log when the topic is deleted or the replica reassigned away.",
                "控制器发给 broker 的请求，让它停止某个副本（停止拉取）；主题被删除或副本被重分配走时还会删除其日志。",
            ),
            TermId::ControlledShutdown => l.t(
                "A broker stopping gracefully (kill -15) asks the controller to move its leaderships away first, so its partitions stay available.",
                "broker 优雅关闭（kill -15）时先请求控制器把它上面的 leader 副本迁走，从而减少分区的不可用时间。",
            ),
        }
    }

    /// The partition state a Kafka state name names.
    pub fn of_partition_state(name: &str) -> Option<TermId> {
        match name {
            "OnlinePartition" => Some(TermId::OnlinePartition),
            "OfflinePartition" => Some(TermId::OfflinePartition),
            "NewPartition" => Some(TermId::NewPartition),
            "NonExistentPartition" => Some(TermId::NonExistentPartition),
            _ => None,
        }
    }

    /// The request a message kind (`LeaderAndIsr`, `StopReplica response`, …) is.
    pub fn of_request(kind: &str) -> Option<TermId> {
        let name = kind.split(' ').next().unwrap_or_default();
        match name {
            "LeaderAndIsr" => Some(TermId::LeaderAndIsr),
            "UpdateMetadata" => Some(TermId::UpdateMetadata),
            "StopReplica" => Some(TermId::StopReplica),
            "ControlledShutdown" => Some(TermId::ControlledShutdown),
            _ => None,
        }
    }
}

/// Properties of [`Term`].
#[derive(Properties, PartialEq, Debug)]
pub struct TermProps {
    /// Which term.
    pub name: TermId,
    /// How it is written here.
    #[prop_or_default]
    pub children: Html,
}

/// `<Term name={name}>{ child }</Term>`, built in one place rather than
/// inline at each of the page's terms (the same component node).
#[inline(never)]
pub fn term(name: TermId, child: Html) -> Html {
    html! { <Term {name}>{ child }</Term> }
}

static NEXT_ID: AtomicU32 = AtomicU32::new(0);

/// A term with its explanation on hover and on focus.
#[component]
pub fn Term(props: &TermProps) -> Html {
    let lang = use_lang();
    let id = use_state(|| format!("term-{}", NEXT_ID.fetch_add(1, Ordering::Relaxed)));
    let node = use_node_ref();
    // Where the tooltip goes (fixed, under the term), while it shows: fixed
    // so that no scrolling panel clips it.
    let at = use_state_eq(|| None::<(f64, f64)>);
    let show = {
        let (node, at) = (node.clone(), at.clone());
        move || {
            if let Some(el) = node.cast::<web_sys::Element>() {
                let r = el.get_bounding_client_rect();
                let width = web_sys::window()
                    .and_then(|w| w.inner_width().ok())
                    .and_then(|v| v.as_f64())
                    .unwrap_or(1280.0);
                // Keep a 20em-wide tip (about 320 px) inside the window.
                let left = r.left().min(width - 340.0).max(4.0);
                at.set(Some((left, r.bottom() + 4.0)));
            }
        }
    };
    let on_enter = {
        let show = show.clone();
        Callback::from(move |_: MouseEvent| show())
    };
    let on_focus = Callback::from(move |_: FocusEvent| show());
    let hide = {
        let at = at.clone();
        move || at.set(None)
    };
    let on_leave = {
        let hide = hide.clone();
        Callback::from(move |_: MouseEvent| hide())
    };
    let on_blur = Callback::from(move |_: FocusEvent| hide());
    // The tip is in the page only while it shows, so the text around a term
    // reads the same with or without it.
    // It is drawn in <body> (a portal), so no panel's text includes it.
    let body = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body());
    let tip = at.zip(body).map(|((x, y), body)| {
        create_portal(
            html! {
                <span id={(*id).clone()} role="tooltip" class="term-tip" lang={lang.code()} ~style={format!("left: {x:.0}px; top: {y:.0}px")}>
                    { props.name.explain(lang) }
                </span>
            },
            body.into(),
        )
    });
    html! {
        <span class="term" tabindex="0" ref={node} aria-describedby={at.is_some().then(|| (*id).clone())}
            data-term={format!("{:?}", props.name)}
            onmouseenter={on_enter} onmouseleave={on_leave} onfocus={on_focus} onblur={on_blur}>
            { props.children.clone() }
            { for tip }
        </span>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_term_is_explained_in_a_sentence_or_two_in_both_languages() {
        for t in TermId::ALL {
            for l in Lang::ALL {
                let e = t.explain(l);
                let ends = e.ends_with('.') || e.ends_with('。');
                assert!(ends, "{t:?} {l:?}: {e}");
                let sentences = e.matches(". ").count() + e.matches('。').count();
                assert!(sentences <= 2, "{t:?} {l:?}: one or two sentences");
            }
            assert!(!t.name(Lang::Zh).is_empty());
        }
        assert_eq!(
            TermId::of_request("StopReplica response"),
            Some(TermId::StopReplica)
        );
        assert_eq!(
            TermId::of_partition_state("OfflinePartition"),
            Some(TermId::OfflinePartition)
        );
    }

    #[test]
    fn a_term_built_once_is_the_html_macros() {
        // The builder makes the node `html!` makes: the same component, the
        // same name, the same text.
        assert_eq!(
            term(TermId::Isr, crate::el::text("ISR")),
            html! { <Term name={TermId::Isr}>{ "ISR" }</Term> }
        );
        assert_ne!(
            term(TermId::Isr, crate::el::text("ISR")),
            html! { <Term name={TermId::Hw}>{ "ISR" }</Term> }
        );
        assert_ne!(
            term(TermId::Isr, crate::el::text("ISR")),
            html! { <Term name={TermId::Isr}>{ "HW" }</Term> }
        );
    }

    #[test]
    fn the_facts_are_kafka_2_4s() {
        let en = |t: TermId| t.explain(Lang::En);
        assert!(en(TermId::Isr).contains("the leader itself"));
        assert!(en(TermId::PreferredReplica).starts_with("The first replica in AR"));
        assert!(en(TermId::ControllerEpoch).contains("/controller_epoch"));
        assert!(
            en(TermId::BrokerEpoch).contains("czxid")
                && en(TermId::BrokerEpoch).contains("KIP-380")
        );
        assert!(TermId::Isr.explain(Lang::Zh).contains("leader 本身"));
    }
}
