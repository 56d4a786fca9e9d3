//! A broker: id, status, what it believes about the controller, and the
//! things a person can do to it.

use crate::components::term::{term, TermId};
use crate::el::{self, attrs, click, el, eld, elo, flag, list, num, on, s, st, string, text};
use crate::i18n::{use_lang, Lang};
use crate::state::Msg;
use kcsim_core::broker::BrokerExit;
use kcsim_core::view::BrokerView;
use kcsim_core::Action;
use yew::prelude::*;

/// Properties of [`BrokerCard`].
#[derive(Properties, PartialEq, Debug)]
pub struct BrokerCardProps {
    /// The broker to draw.
    pub broker: BrokerView,
    /// Now, for the session countdown.
    pub now_ms: u64,
    /// Where actions go.
    pub on_msg: Callback<Msg>,
}

/// One broker card.
/// Which of a broker's process actions its state offers (the core refuses
/// the others, with a message): kill -9 (and pause, expire, cut off) while
/// it runs or shuts down, a controlled shutdown while it runs, a start once
/// it is dead. The cards and the large cluster's grid offer the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Offered {
    /// kill -9, pause, expire session, cut off fetching.
    pub kill: bool,
    /// A controlled shutdown (kill -15).
    pub stop: bool,
    /// A start.
    pub start: bool,
}

/// What a broker in `status` offers ([`Offered`]).
pub(crate) fn offered(status: &str) -> Offered {
    Offered {
        kill: status == "running" || status == "shutting_down",
        stop: status == "running",
        start: status == "dead",
    }
}

#[component]
pub fn BrokerCard(props: &BrokerCardProps) -> Html {
    let lang = use_lang();
    let t = |en: &'static str, zh: &'static str| lang.t(en, zh);
    let b = &props.broker;
    let id = b.id;
    let mut class = classes!("broker", format!("status-{}", b.status));
    if b.is_active_controller {
        class.push("controller");
    }
    let zombie = b.is_zombie_controller;
    if zombie {
        class.push("zombie");
    }
    let act = |a: Action| {
        let cb = props.on_msg.clone();
        Callback::from(move |_: MouseEvent| cb.emit(Msg::Act(a.clone())))
    };
    let Offered {
        kill: up,
        stop,
        start,
    } = offered(&b.status);
    let countdown = b.session_expires_at_ms.filter(|_| b.status == "dead" || b.status == "paused").map(|expires| {
        let left = expires.saturating_sub(props.now_ms);
        let s = left as f64 / 1000.0;
        let why = if b.exit == Some(BrokerExit::Killed) {
            lang.f(|| format!("kill -9: /brokers/ids/{id} lingers; session expires in {s:.1} s"),
                || format!("kill -9：/brokers/ids/{id} 仍在；会话 {s:.1} 秒后过期"))
        } else {
            lang.f(|| format!("session expires in {s:.1} s"), || format!("会话 {s:.1} 秒后过期"))
        };
        eld(
            "p",
            &["role", "title", "class"],
            Box::new([
                el::s("status"),
                el::s(t("ZooKeeper keeps a silent session's ephemeral znodes until zookeeper.session.timeout.ms passes: until then the controller still counts this broker as registered",
                    "在 zookeeper.session.timeout.ms 到期之前，ZooKeeper 会保留一个没有心跳的会话的临时节点：在此之前控制器仍认为这个 broker 已注册")),
                el::s("session-countdown"),
            ]),
            string(why),
        )
    });
    // How the last process ended, once nothing is counting down.
    let exit = match (b.exit, countdown.is_some()) {
        (_, true) | (None, false) => None,
        (Some(BrokerExit::Clean), false) => Some(lang.f(
            || format!("exited cleanly: session closed, /brokers/ids/{id} went at once"),
            || format!("已正常退出：会话已关闭，/brokers/ids/{id} 随即删除"),
        )),
        (Some(BrokerExit::Killed), false) => Some(lang.f(
            || format!("killed: its session expired, /brokers/ids/{id} is gone"),
            || format!("已被杀死：会话已过期，/brokers/ids/{id} 已删除"),
        )),
        (Some(BrokerExit::StartupFailed), false) => Some(lang.f(
            || format!("failed to start: /brokers/ids/{id} was still held by its old session"),
            || format!("启动失败：/brokers/ids/{id} 仍被旧会话占用"),
        )),
    };
    let exit = exit.map(|e| {
        el(
            "p",
            attrs!("role" = "status", "class" = "broker-exit"),
            string(e),
        )
    });
    let active = b
        .active_controller_id
        .map_or("-1".to_string(), |c| c.to_string());
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction; the terms with `html!`): the order of each
    // element's attributes is `html!`'s, `class` last.
    let row = |dt: Html, dd: Html| el("div", &[], list(vec![dt, dd]));
    let titled = |title: &'static str, h: Html| eld("dt", &["title"], Box::new([s(title)]), h);
    let mut session_line: Vec<Html> = countdown.into_iter().collect();
    session_line.extend(exit);
    let action = |disabled: bool, aria: String, a: Action, label: &'static str| {
        elo(
            "button",
            &["aria-label", "disabled"],
            Box::new([st(aria), flag("disabled", disabled)]),
            on(Box::new([click(act(a))])),
            text(label),
        )
    };
    eld(
        "article",
        &["data-broker", "aria-label", "tabindex", "class"],
        Box::new([
            num(id.0.into()),
            st(format!("Broker {id}")),
            s("-1"),
            el::class(class),
        ]),
        list(vec![
            el(
                "h3",
                &[],
                list(vec![
                    el("span", attrs!("class" = "broker-name"), string(format!("Broker {id}"))),
                    list(if b.is_active_controller {
                        vec![el(
                            "span",
                            attrs!("class" = "badge controller-badge"),
                            text(if zombie {
                                t("zombie controller", "僵尸控制器")
                            } else {
                                t("controller", "控制器")
                            }),
                        )]
                    } else {
                        Vec::new()
                    }),
                    el("span", attrs!("class" = "broker-status"), string(status_word(&b.status, lang))),
                ]),
            ),
            el(
                "dl",
                &[],
                list(vec![
                    row(
                        el("dt", &[], term(TermId::ActiveControllerId, text("activeControllerId"))),
                        el("dd", attrs!("class" = "active-controller-id"), string(active)),
                    ),
                    row(
                        titled(
                            t("controller epoch seen: the highest controller epoch this broker has accepted a request from", "已见的控制器纪元：这个 broker 接受过的请求中最大的控制器纪元"),
                            term(TermId::ControllerEpoch, text(t("epoch seen", "已见纪元"))),
                        ),
                        el("dd", attrs!("class" = "epoch-seen"), string(b.controller_epoch_seen.to_string())),
                    ),
                    row(
                        el("dt", &[], term(TermId::BrokerEpoch, text("broker epoch"))),
                        el("dd", &[], string(b.broker_epoch.to_string())),
                    ),
                    row(
                        titled(
                            t("partitions whose state znode names it leader (what the cluster goes by) / replicas it hosts", "state 节点中以它为 leader 的分区数（集群以此为准）/ 它承载的副本数"),
                            text(t("leads / hosts", "leader / 副本")),
                        ),
                        el("dd", &[], string(format!("{} / {}", b.leader_of_in_zk, b.replicas))),
                    ),
                    list(if b.slowed_ms > 0 {
                        vec![row(
                            el("dt", &[], text(t("fetch lag", "拉取延迟"))),
                            el("dd", &[], string(format!("+{} ms", b.slowed_ms))),
                        )]
                    } else {
                        Vec::new()
                    }),
                ]),
            ),
            // A line kept for the session countdown, so the card does not grow when it appears.
            el("div", attrs!("class" = "session-line"), list(session_line)),
            el(
                "div",
                attrs!("class" = "broker-actions"),
                list(vec![
                    action(
                        !up,
                        lang.f(|| format!("Kill broker {id} (kill -9)"), || format!("杀死 broker {id}（kill -9）")),
                        Action::KillBroker { broker: id },
                        "kill -9",
                    ),
                    elo(
                        "button",
                        &["aria-label", "title", "disabled"],
                        Box::new([
                            st(lang.f(|| format!("Stop broker {id} (controlled shutdown)"), || format!("停止 broker {id}（受控关闭）"))),
                            s(t("stop (controlled shutdown, kill -15)", "停止（受控关闭，kill -15）")),
                            flag("disabled", !stop),
                        ]),
                        on(Box::new([click(act(Action::ShutdownBroker { broker: id }))])),
                        text(t("stop", "停止")),
                    ),
                    action(
                        !start,
                        lang.f(|| format!("Start broker {id}"), || format!("启动 broker {id}")),
                        Action::StartBroker { broker: id },
                        t("start", "启动"),
                    ),
                    action(
                        !up,
                        lang.f(|| format!("Pause broker {id} for 10 s (GC stall)"), || format!("让 broker {id} 暂停 10 秒（GC 停顿）")),
                        Action::PauseBroker { broker: id, duration_ms: 10_000 },
                        t("pause 10 s", "暂停 10 秒"),
                    ),
                    action(
                        !up,
                        lang.f(|| format!("Expire broker {id}'s ZooKeeper session"), || format!("让 broker {id} 的 ZooKeeper 会话过期")),
                        Action::ExpireSession { broker: id },
                        t("expire session", "会话过期"),
                    ),
                    list(if b.slowed_ms == 0 {
                        vec![action(
                            !up,
                            lang.f(|| format!("Slow broker {id}'s replica fetching"), || format!("切断 broker {id} 的副本拉取")),
                            Action::SlowBroker { broker: id, lag_ms: 1_000_000 },
                            t("cut off fetching", "切断拉取"),
                        )]
                    } else {
                        vec![elo(
                            "button",
                            &["aria-label"],
                            Box::new([st(lang.f(|| format!("Heal broker {id}"), || format!("恢复 broker {id}")))]),
                            on(Box::new([click(act(Action::HealBroker { broker: id }))])),
                            text(t("heal", "恢复")),
                        )]
                    }),
                ]),
            ),
        ]),
    )
}

/// A broker's status in a word or two, short enough to sit under its circle
/// on the wire beside four others ("shutting down" would run into its
/// neighbours' words).
pub fn status_short(status: &str, l: Lang) -> String {
    match status {
        "shutting_down" => l.t("stopping", "关闭中").to_string(),
        "starting" => l.t("starting", "启动中").to_string(),
        other => status_word(other, l),
    }
}

/// A broker status (the core's word, shown as it is) in words, for its title.
pub fn status_word(status: &str, l: Lang) -> String {
    let zh = match status {
        "running" => "运行中",
        "dead" => "已宕机",
        "paused" => "已暂停",
        "shutting_down" => "正在受控关闭",
        "starting" => "正在启动",
        other => other,
    };
    l.t(&status.replace('_', " "), zh).to_string()
}
