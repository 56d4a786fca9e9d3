//! The `?` help: the page's parts and Kafka's terms, a sentence each, each
//! linking to the panel it names; then the keys.

use crate::components::term::TermId;
use crate::el::{attrs, click, el, eld, elo, list, on, s, st, text};
use crate::i18n::use_lang;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// A part of the page: its name (English, Chinese), the panel's id, and
/// what it shows (English, Chinese).
pub const PARTS: &[(&str, &str, &str, &str, &str)] = &[
    ("Broker cards", "broker 卡片", "p-brokers",
        "each broker's status, the controller it believes in (activeControllerId), the highest controller epoch it accepted, its broker epoch and what it leads; the buttons kill it (kill -9), stop it (controlled shutdown), start it, pause it (a GC stall) or expire its session.",
        "每个 broker 的状态、它认定的控制器（activeControllerId）、它接受过的最大控制器纪元、它的 broker epoch 以及它担任 leader 的分区；按钮可以杀死它（kill -9）、停止它（受控关闭）、启动它、暂停它（GC 停顿）或让它的会话过期。"),
    ("Event queues", "事件队列", "p-queues",
        "each broker's controller event queue (ControllerEventManager): the controller handles one event at a time, the rest wait, and Kafka's ControllerState says what it is doing.",
        "每个 broker 的控制器事件队列（ControllerEventManager）：控制器按 FIFO 顺序一次处理一个事件，其余事件排队等待，Kafka 的 ControllerState 表示它正在做什么。"),
    ("The wire", "网络线路", "p-wire",
        "requests (LeaderAndIsr, UpdateMetadata, StopReplica) and ZooKeeper watch notifications as moving dots, labelled with their type (a request also with its controller epoch); click one to inspect it, or delay or drop it in the list below.",
        "请求（LeaderAndIsr、UpdateMetadata、StopReplica）和 ZooKeeper 监听通知以移动的圆点表示，标注其类型（请求还标注控制器纪元）；点击可查看详情，也可以在下方列表中延迟或丢弃它。"),
    ("Why", "为什么", "p-why",
        "every action taken and every controller decision (elections, refusals, resignations) with its reason, from the trace.",
        "每个操作和控制器的每个决策（选举、拒绝、退位）及其原因，取自跟踪记录。"),
    ("Partitions", "分区", "p-partitions",
        "each partition's state, AR (preferred replica marked, each replica's LEO), ISR, leader, epochs, HW and time without a leader; unclean election, preferred election and produce are here.",
        "每个分区的状态、AR（标出优先副本和各副本的 LEO）、ISR、leader、纪元、HW 以及没有 leader 的时长；unclean 选举、优先副本选举和写入消息也在这里。"),
    ("Kafka's tools", "Kafka 自带工具", "p-kafka-text",
        "what kafka-topics.sh --describe and zookeeper-shell.sh get /controller print at this moment.",
        "此刻 kafka-topics.sh --describe 和 zookeeper-shell.sh get /controller 的输出。"),
    ("Admin tools", "管理工具", "p-admin",
        "kafka-topics.sh --create, --alter --partitions and --delete, and kafka-reassign-partitions.sh, as forms.",
        "以表单形式提供 kafka-topics.sh --create、--alter --partitions、--delete 和 kafka-reassign-partitions.sh。"),
    ("Console", "控制台", "p-console",
        "docked at the bottom: type what people type at a real cluster (kafka-topics.sh, kafka-configs.sh, kafka-leader-election.sh, zookeeper-shell.sh, kill -9, sleep, help) and read Kafka's own answers; a command acts as the buttons do (u undoes it). Tab completes, ↑/↓ recall, Esc leaves the line.",
        "停靠在页面底部：输入人们在真实集群上输入的命令（kafka-topics.sh、kafka-configs.sh、kafka-leader-election.sh、zookeeper-shell.sh、kill -9、sleep、help），读 Kafka 自己的输出；命令的效果与按钮相同（按 u 撤销）。Tab 补全，↑/↓ 翻历史，Esc 离开输入行。"),
    ("ZooKeeper tree", "ZooKeeper 节点树", "p-zookeeper",
        "every znode, ephemeral ones and watches marked: /controller, /controller_epoch, /brokers/ids, the partitions' state.",
        "所有 znode，标出临时节点和监听器：/controller、/controller_epoch、/brokers/ids、各分区的 state。"),
    ("Invariants", "不变量", "p-invariants",
        "what must always hold (at most one controller per epoch, the leader in its ISR, no acks=all record lost without an unclean election, …), each holding or violated, with a jump to its first violation.",
        "必须始终成立的条件（每个纪元至多一个控制器、leader 在 ISR 中、没有 unclean 选举就不丢失 acks=all 的消息……），逐条显示成立或已违反，并可跳到首次违反处。"),
    ("Time controls", "时间控制", "p-time",
        "the scenario and what to try first, play and pause, one event forward, 100 ms back, speed, the next interesting event, and a scrub bar; acting in the past forks the future.",
        "场景及建议先尝试的操作、播放和暂停、前进一个事件、后退 100 ms、速度、下一个关键事件以及时间轴；在过去的时刻操作会让未来分叉。"),
];

/// Scroll to the panel with id `id` and give it focus (without touching the
/// address bar, which is the share link).
pub fn jump(id: &str) {
    let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
    else {
        return;
    };
    if !el.has_attribute("tabindex") {
        let _ = el.set_attribute("tabindex", "-1");
    }
    el.scroll_into_view();
    if let Ok(h) = el.dyn_into::<web_sys::HtmlElement>() {
        let _ = h.focus();
    }
}

/// Properties of [`Help`].
#[derive(Properties, PartialEq, Debug)]
pub struct HelpProps {
    /// Close the help (after a link is followed).
    pub on_close: Callback<()>,
}

/// The help dialog.
#[component]
pub fn Help(props: &HelpProps) -> Html {
    let lang = use_lang();
    let t = |en: &'static str, zh: &'static str| lang.t(en, zh);
    let link = |name: &'static str, id: &'static str| {
        let close = props.on_close.clone();
        let onclick = Callback::from(move |e: MouseEvent| {
            e.prevent_default();
            jump(id);
            close.emit(());
        });
        elo(
            "a",
            &["href"],
            Box::new([st(format!("#{id}"))]),
            on(Box::new([click(onclick)])),
            text(name),
        )
    };
    let item = |name: &'static str, id: &'static str, what: &'static str| {
        el(
            "div",
            attrs!("class" = "help-item"),
            list(vec![
                el("dt", &[], link(name, id)),
                el("dd", &[], text(what)),
            ]),
        )
    };
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    let mut keys = Vec::new();
    for (key, en, zh) in [
        ("space", " play / pause · ", " 播放 / 暂停 · "),
        ("→", " one event · ", " 前进一个事件 · "),
        ("←", " back 100 ms · ", " 后退 100 ms · "),
        ("n", " next interesting event · ", " 下一个关键事件 · "),
        ("u", " undo · ", " 撤销 · "),
        (
            "m",
            " mark this moment (playing pauses there) · ",
            " 标记此刻（播放到此处暂停） · ",
        ),
        ("p", " presentation mode · ", " 演示模式 · "),
        ("c", " the console's prompt · ", " 控制台输入行 · "),
        ("?", " this help · ", " 本帮助 · "),
        ("Esc", " close it", " 关闭帮助"),
    ] {
        keys.push(el("kbd", &[], text(key)));
        keys.push(text(t(en, zh)));
    }
    eld(
        "div",
        &["role", "aria-label", "class"],
        Box::new([
            s("dialog"),
            s(t("Help: the page, its terms and keys", "帮助：页面、术语和快捷键")),
            s("help"),
        ]),
        list(vec![
            el("h2", &[], text(t("The page", "页面"))),
            el(
                "dl",
                &[],
                list(
                    PARTS
                        .iter()
                        .map(|(en, zh, id, what, what_zh)| item(lang.t(en, zh), id, lang.t(what, what_zh)))
                        .collect(),
                ),
            ),
            el("h2", &[], text(t("Terms", "术语"))),
            el(
                "dl",
                &[],
                list(
                    TermId::ALL
                        .iter()
                        .map(|term| item(term.name(lang), term.panel(), term.explain(lang)))
                        .collect(),
                ),
            ),
            el("h2", &[], text(t("Keys", "快捷键"))),
            el("p", &[], list(keys)),
            el(
                "p",
                &[],
                text(t("Simplified on purpose: one ZooKeeper server; a controller event applies its ZooKeeper writes to the ensemble when it starts (the page sees each when the event reaches it) and costs virtual time as in Kafka 1.1+ or 1.0; replication copies what a follower lacks in one fetch round. See the README.",
                    "有意做了简化：只有一台 ZooKeeper 服务器；控制器事件开始时就把它的 ZooKeeper 写入应用到集群（页面在事件执行到该处时才看到每次写入），并按 Kafka 1.1+ 或 1.0 的方式消耗虚拟时间；副本复制在一轮拉取中补齐 follower 缺少的数据。详见 README。")),
            ),
        ]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Lang;

    #[test]
    fn every_part_and_term_links_to_a_panel_the_page_has() {
        let ids = [
            "p-brokers",
            "p-queues",
            "p-wire",
            "p-why",
            "p-partitions",
            "p-kafka-text",
            "p-admin",
            "p-console",
            "p-zookeeper",
            "p-invariants",
            "p-time",
        ];
        for (name, _, id, what, what_zh) in PARTS {
            assert!(ids.contains(id), "{name} links to {id}");
            assert!(what.ends_with('.'), "{name}: one sentence");
            assert!(
                what_zh.ends_with('。'),
                "{name}: one sentence in Chinese too"
            );
        }
        for term in TermId::ALL {
            assert!(ids.contains(&term.panel()), "{term:?} links to a panel");
            for l in Lang::ALL {
                assert!(!term.name(l).is_empty());
            }
        }
        for id in ids {
            assert!(PARTS.iter().any(|p| p.2 == id), "a part names {id}");
        }
    }
}
