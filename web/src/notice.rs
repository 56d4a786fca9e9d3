//! What the page tells the user happened (a restart of the scenario), kept
//! as data in the model and put in words, in the page's language, when shown.

use crate::i18n::Lang;
use crate::state::zk_mode_label;
use crate::ZkMode;

/// Something that happened that the page says in a banner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notice {
    /// Changing the controller's ZooKeeper access restarted the scenario
    /// from the beginning, dropping this many user actions.
    ZkRestart {
        /// The access the new cluster runs with.
        mode: ZkMode,
        /// How many of the user's actions were dropped.
        dropped: usize,
    },
}

impl Notice {
    /// The notice in words.
    pub fn text(self, lang: Lang) -> String {
        match self {
            Notice::ZkRestart { mode, dropped } => {
                let label = zk_mode_label(mode);
                lang.f(
                    || {
                        let dropped = match dropped {
                            0 => String::new(),
                            1 => " Your action was dropped.".to_string(),
                            n => format!(" Your {n} actions were dropped."),
                        };
                        format!(
                            "ZooKeeper access is part of the cluster's starting configuration: \
                             the scenario restarted from the beginning with {label} (a new cluster).{dropped}"
                        )
                    },
                    || {
                        let dropped = match dropped {
                            0 => String::new(),
                            n => format!("你的 {n} 个操作已被丢弃。"),
                        };
                        format!(
                            "ZooKeeper 访问方式属于集群的启动配置：场景已用 {label} 从头重新开始（一个新集群）。{dropped}"
                        )
                    },
                )
            }
        }
    }

    /// The banner shown after acting in the past at `t_ms`.
    pub fn fork(t_ms: u64, lang: Lang) -> String {
        let s = t_ms as f64 / 1000.0;
        lang.f(
            || format!("You acted at {s:.3} s, in the past: the future after it was recomputed (a fork). Undo takes it back."),
            || format!("你在过去的 {s:.3} 秒处做了操作：其后的未来已重新计算（分叉）。撤销可以取消它。"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_restart_notice_reads_in_both_languages() {
        let n = Notice::ZkRestart {
            mode: ZkMode::Sync,
            dropped: 2,
        };
        assert!(n.text(Lang::En).ends_with("Your 2 actions were dropped."));
        assert!(n.text(Lang::Zh).contains("sync — Kafka 1.0"));
        assert!(n.text(Lang::Zh).ends_with("你的 2 个操作已被丢弃。"));
        assert!(Notice::fork(1500, Lang::Zh).contains("1.500 秒"));
    }
}

/// An error the page shows, kept as data and put in words in the page's
/// language when shown: the core's refusals are the core's data (an
/// [`kcsim_core::sim::ActionError`], or the trace record of an action the
/// cluster refused or ignored), rendered by [`crate::i18n`].
#[derive(Debug, Clone, PartialEq)]
pub enum PageError {
    /// The core refused an action before changing anything.
    Action(kcsim_core::sim::ActionError),
    /// The cluster refused or ignored an action: what its trace says.
    Refused(Box<kcsim_core::fact::Fact>),
    /// Nothing to undo.
    NothingToUndo,
    /// A lesson's "show me" is for the controller, and there is none now.
    NoController,
    /// A problem the page found itself (a share link, a lesson file, a form
    /// field), in English: the field names and Kafka's messages in it are
    /// the files' and Kafka's own.
    Text(String),
}

impl PageError {
    /// The error in words.
    pub fn text(&self, lang: Lang) -> String {
        match self {
            PageError::Action(e) => crate::i18n::errors::action_error_text(e, lang),
            PageError::Refused(f) => crate::i18n::facts::fact_text(f, lang),
            PageError::NothingToUndo => lang.t("nothing to undo", "没有可以撤销的操作").to_string(),
            PageError::NoController => lang.f(
                || kcsim_core::lesson::NoController.to_string(),
                || "这一步的操作针对控制器，但此刻 /controller 没有指向任何 broker：继续播放，直到选出新的控制器".to_string(),
            ),
            PageError::Text(s) => s.clone(),
        }
    }

    /// The error in English (tests, and the CLI's words).
    pub fn en(&self) -> String {
        self.text(Lang::En)
    }
}

impl From<String> for PageError {
    fn from(s: String) -> PageError {
        PageError::Text(s)
    }
}
