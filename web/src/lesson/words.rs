//! A lesson's checkpoints in words (both languages) and its pointing targets
//! as the page's elements.

use crate::i18n::Lang;
use kcsim_core::lesson::{Condition, Target};

fn status(s: &str, lang: Lang) -> String {
    let zh = match s {
        "starting" => "启动中",
        "running" => "运行中",
        "shutting_down" => "正在受控关闭",
        "paused" => "暂停（卡住）",
        "dead" => "已停止（进程不在）",
        other => other,
    };
    let en = s.replace('_', " ");
    lang.f(|| en, || zh.to_string())
}

fn ids(list: &[kcsim_core::BrokerId]) -> String {
    let v: Vec<String> = list.iter().map(ToString::to_string).collect();
    format!("[{}]", v.join(","))
}

/// What a checkpoint waits for, in words.
pub fn condition_words(c: &Condition, lang: Lang) -> String {
    let join = |cs: &[Condition], en: &str, zh: &str| {
        let parts: Vec<String> = cs.iter().map(|c| condition_words(c, lang)).collect();
        parts.join(lang.t(en, zh))
    };
    match c {
        Condition::All(cs) => join(cs, " and ", "，并且"),
        Condition::Any(cs) => join(cs, " or ", "，或者"),
        Condition::Not(c) => {
            let w = condition_words(c, lang);
            lang.f(|| format!("not ({w})"), || format!("并非（{w}）"))
        }
        Condition::ControllerEpochAtLeast(e) => lang.f(
            || format!("/controller_epoch reaches {e}"),
            || format!("/controller_epoch 达到 {e}"),
        ),
        Condition::Controller(Some(b)) => lang.f(
            || format!("/controller names broker {b}"),
            || format!("/controller 指向 broker {b}"),
        ),
        Condition::Controller(None) => lang.f(
            || "/controller is gone (no controller)".to_string(),
            || "/controller 不存在（没有控制器）".to_string(),
        ),
        Condition::ControllerStatus(s) => {
            let st = status(s, lang);
            lang.f(
                || format!("the controller's process is {st}"),
                || format!("控制器的进程状态为：{st}"),
            )
        }
        Condition::BrokerStatus { broker, status: s } => {
            let st = status(s, lang);
            lang.f(
                || format!("broker {broker} is {st}"),
                || format!("broker {broker} 的状态为：{st}"),
            )
        }
        Condition::Leader {
            partition,
            broker: Some(b),
        } => lang.f(
            || format!("broker {b} leads {partition}"),
            || format!("broker {b} 成为 {partition} 的 leader"),
        ),
        Condition::Leader {
            partition,
            broker: None,
        } => lang.f(
            || format!("{partition} has no leader (-1)"),
            || format!("{partition} 没有 leader（-1）"),
        ),
        Condition::Isr {
            partition,
            replicas,
        } => {
            let r = ids(replicas);
            lang.f(
                || format!("the ISR of {partition} is {r}"),
                || format!("{partition} 的 ISR 为 {r}"),
            )
        }
        Condition::PartitionState { partition, state } => {
            let st = state.name();
            lang.f(
                || format!("the controller holds {partition} as {st}"),
                || format!("控制器认为 {partition} 处于 {st}"),
            )
        }
        Condition::Available {
            partition,
            available: true,
        } => lang.f(
            || format!("{partition} is available (a running leader serves it)"),
            || format!("{partition} 可用（有运行中的 leader）"),
        ),
        Condition::Available {
            partition,
            available: false,
        } => lang.f(
            || format!("{partition} is unavailable (no running leader)"),
            || format!("{partition} 不可用（没有运行中的 leader）"),
        ),
        Condition::LeaderEpochAtLeast { partition, epoch } => lang.f(
            || format!("the leader epoch of {partition} reaches {epoch}"),
            || format!("{partition} 的 leader epoch 达到 {epoch}"),
        ),
        Condition::HighWatermarkAtLeast { partition, offset } => lang.f(
            || format!("the high watermark of {partition} reaches {offset} (the records before it acknowledged)"),
            || format!("{partition} 的高水位（HW）达到 {offset}（其前的消息均已确认）"),
        ),
        Condition::Trace {
            kind,
            actor,
            contains,
            at_least,
        } => {
            let who_en = actor.as_ref().map_or(String::new(), |a| format!(" by {a}"));
            let who_zh = actor
                .as_ref()
                .map_or(String::new(), |a| format!("（由 {a}）"));
            let with_en = contains
                .as_ref()
                .map_or(String::new(), |t| format!(" mentioning \"{t}\""));
            let with_zh = contains
                .as_ref()
                .map_or(String::new(), |t| format!("，内容含“{t}”"));
            lang.f(
                || format!("the trace shows {kind}{who_en}{with_en} (at least {at_least}×)"),
                || format!("trace 中出现 {kind}{who_zh}{with_zh}（至少 {at_least} 次）"),
            )
        }
        Condition::RecordsLostAtLeast(n) => lang.f(
            || format!("at least {n} acknowledged record(s) lost"),
            || format!("至少丢失 {n} 条已确认的记录"),
        ),
        Condition::UncleanElectionsAtLeast(n) => lang.f(
            || format!("at least {n} unclean leader election(s)"),
            || format!("至少发生 {n} 次 unclean leader 选举"),
        ),
        Condition::StaleRequestsRejectedAtLeast(n) => lang.f(
            || format!("at least {n} request(s) rejected with STALE_CONTROLLER_EPOCH"),
            || format!("至少 {n} 个请求因 STALE_CONTROLLER_EPOCH 被拒绝"),
        ),
        Condition::ZnodeExists(p) => lang.f(
            || format!("the znode {p} exists"),
            || format!("znode {p} 存在"),
        ),
        Condition::ZnodeAbsent(p) => lang.f(
            || format!("the znode {p} is gone"),
            || format!("znode {p} 不存在"),
        ),
        Condition::ZnodeDataContains { path, text } => lang.f(
            || format!("the data of {path} contains {text}"),
            || format!("{path} 的数据包含 {text}"),
        ),
        Condition::QueueWaitingAtLeast {
            broker: Some(b),
            events,
        } => lang.f(
            || format!("broker {b}'s controller event queue has {events}+ events waiting"),
            || format!("broker {b} 的控制器事件队列中至少有 {events} 个事件在等待"),
        ),
        Condition::QueueWaitingAtLeast {
            broker: None,
            events,
        } => lang.f(
            || format!("a controller event queue has {events}+ events waiting"),
            || format!("某个控制器事件队列中至少有 {events} 个事件在等待"),
        ),
        Condition::TimeAtLeastMs(t) => {
            let s = *t as f64 / 1000.0;
            lang.f(
                || format!("time reaches {s} s"),
                || format!("时间到达 {s} 秒"),
            )
        }
    }
}

/// The CSS selectors of the page's elements a step points at.
pub fn target_selectors(t: &Target) -> Vec<String> {
    let panel = |id: &str| vec![format!("#{id}")];
    match t {
        // The header first: it is what scrolling brings into view.
        Target::Controller => vec![
            "header .summary .who".to_string(),
            "#p-zookeeper li[data-path=\"/controller\"]".to_string(),
        ],
        Target::Brokers => panel("p-brokers"),
        Target::Broker(b) => vec![format!("#p-brokers article.broker[data-broker=\"{b}\"]")],
        Target::EventQueue => panel("p-queues"),
        Target::Partitions => panel("p-partitions"),
        Target::Partition(tp) => vec![format!(
            "#p-partitions tr[data-partition=\"{}\"]",
            tp.to_string().replace(['"', '\\'], "")
        )],
        Target::Wire => panel("p-wire"),
        Target::Why => panel("p-why"),
        Target::Invariants => panel("p-invariants"),
        Target::KafkaText => panel("p-kafka-text"),
        Target::Znodes => panel("p-zookeeper"),
        Target::Admin => panel("p-admin"),
        Target::Time => panel("p-time"),
    }
}
