//! The page's model: a timeline over the core, the playback settings, and
//! what the user is looking at. Pure: every change goes through
//! [`SimState::apply`], which the tests call natively. The front end computes
//! no Kafka behaviour of its own: everything shown comes from the core's
//! [`ClusterView`] and trace.

use crate::i18n::Lang;
pub use crate::notice::Notice;
use crate::notice::PageError;
use crate::share::{self, Moment, UserAct};
use crate::ZkMode;
use kcsim_core::lesson::{Probe, Probed};
use kcsim_core::scenario::Scenario;
use kcsim_core::timeline::Timeline;
use kcsim_core::trace::{Records, TraceRecord};
use kcsim_core::{Action, ClusterView, SimTime};
use std::cell::RefCell;
use std::rc::Rc;
use yew::Reducible;

/// A built-in scenario: its name, a sentence, and the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltIn {
    /// Short id.
    pub id: &'static str,
    /// Title shown in the picker.
    pub title: &'static str,
    /// The title in Chinese.
    pub title_zh: &'static str,
    /// What it shows and, in the same sentence, what to try first.
    pub about: &'static str,
    /// The sentence in Chinese.
    pub about_zh: &'static str,
    /// The scenario JSON (`None`: the generated default cluster).
    pub json: Option<&'static str>,
}

/// Every built-in scenario, the default cluster first.
pub const SCENARIOS: &[BuiltIn] = &[
    BuiltIn {
        id: "default",
        title: "Default cluster",
        title_zh: "默认集群",
        about: "Four brokers, two topics, a record every two seconds: try kill -9 on the controller's card first, then press n to watch its session expire (6 s later) and the others race for /controller.",
        about_zh: "四个 broker、两个主题，每两秒写入一条消息：先在控制器所在 broker 的卡片上点 kill -9，再按 n，看它的会话在 6 秒后过期、其余 broker 竞选 /controller。",
        json: None,
    },
    BuiltIn {
        id: "controller-failover",
        title: "Controller failover",
        title_zh: "控制器故障转移",
        about: "Brokers 0 and 1, the controller among them, die at 10 s: press n from there to watch broker 2 wait out their session timeout and win /controller with epoch 2.",
        about_zh: "broker 0 和 1（其中一个是控制器）在 10 秒时宕机：从那里按 n，看 broker 2 等到它们的会话超时后以纪元 2 赢得 /controller。",
        json: Some(include_str!("../../core/scenarios/controller-failover.json")),
    },
    BuiltIn {
        id: "zombie-controller",
        title: "Zombie controller",
        title_zh: "僵尸控制器",
        about: "The controller stalls mid-event at 11.1 s for 10 s, longer than its 6 s session timeout: press n from there to see broker 1 take over with epoch 2 and, at 21 s, reject the woken zombie's requests (STALE_CONTROLLER_EPOCH).",
        about_zh: "控制器在 11.1 秒处理事件时卡顿 10 秒，超过 6 秒的会话超时：从那里按 n，看 broker 1 以纪元 2 接任，并在 21 秒拒绝醒来的僵尸控制器的请求（STALE_CONTROLLER_EPOCH）。",
        json: Some(include_str!("../../core/scenarios/zombie-controller.json")),
    },
    BuiltIn {
        id: "unclean-election",
        title: "Clean versus unclean election",
        title_zh: "干净选举与 unclean 选举",
        about: "The ISR shrinks to leader 1, which is killed at 15 s, so payments-0 goes offline when its session expires: scrub to 29 s and turn on unclean election for payments to bring it back, losing acknowledged records.",
        about_zh: "ISR 收缩到只剩 leader 1，它在 15 秒被 kill，会话过期后 payments-0 下线：拖到 29 秒，为 payments 打开 unclean 选举让它恢复，代价是丢失已确认的消息。",
        json: Some(include_str!("../../core/scenarios/unclean-election.json")),
    },
    BuiltIn {
        id: "controlled-shutdown-vs-kill",
        title: "Controlled shutdown versus kill -9",
        title_zh: "受控关闭与 kill -9",
        about: "At 10 s broker 1 stops gracefully and broker 2 is killed: press n from there and compare the partitions' unavailable time (graceful 0 s, abrupt about a session timeout).",
        about_zh: "10 秒时 broker 1 优雅关闭、broker 2 被 kill：从那里按 n，比较各分区的不可用时间（优雅关闭 0 秒，强杀约一个会话超时）。",
        json: Some(include_str!("../../core/scenarios/controlled-shutdown-vs-kill.json")),
    },
    BuiltIn {
        id: "preferred-election",
        title: "Preferred election and auto-rebalance",
        title_zh: "优先副本选举与自动再平衡",
        about: "Broker 1 dies at 8 s and restarts at 20 s without its leaderships: watch the preferred election by hand at 30 s give orders-0 back, then play on past 300 s to the periodic auto-rebalance check for the rest.",
        about_zh: "broker 1 在 8 秒宕机、20 秒重启后不再担任 leader：看 30 秒时手动的优先副本选举把 orders-0 还给它，再播放过 300 秒，看定期的自动再平衡检查处理其余分区。",
        json: Some(include_str!("../../core/scenarios/preferred-election.json")),
    },
    BuiltIn {
        id: "reassignment",
        title: "Reassignment",
        title_zh: "分区重分配",
        about: "orders-0 moves from brokers [0,1] to [2,3] at 10 s: press n from there to watch the new replicas added, the leader moved and the old replicas deleted.",
        about_zh: "orders-0 在 10 秒从 broker [0,1] 迁到 [2,3]：从那里按 n，看新副本加入、leader 迁移、旧副本被删除。",
        json: Some(include_str!("../../core/scenarios/reassignment.json")),
    },
];

/// The Kafka-scale cluster: in the picker, but not in [`SCENARIOS`] (whose
/// every entry the tests run natively at the page's scale).
pub const KAFKA_SCALE: BuiltIn = BuiltIn {
    id: "kafka-scale",
    title: "Kafka-scale: 100 brokers, 200,000 partitions",
    title_zh: "Kafka 规模：100 个 broker、200,000 个分区",
    about: "Kafka's guideline for a ZooKeeper-era cluster, 20 topics of 10,000 partitions at replication factor 3 (loading takes a while): play until every partition has a leader (offline 0), then kill -9 the controller in the broker grid and play on and watch the offline partitions rise and fall in the chart as its session expires and the new controller elects leaders.",
    about_zh: "Kafka 对基于 ZooKeeper 的集群的建议上限：20 个主题、每个 10,000 个分区、副本因子 3（加载需要一些时间）：先播放到每个分区都有 leader（离线为 0），再在 broker 网格里对控制器 kill -9 并继续播放，看图表中离线分区数在它的会话过期、新控制器选出 leader 时先升后降。",
    json: Some(include_str!("../../core/scenarios/large/kafka-scale.json")),
};

/// Large-cluster mode from this many partitions: aggregated brokers, a
/// virtualized partition table, nothing per partition drawn per frame.
pub const LARGE_FROM: u64 = 1_000;

/// A built-in scenario by id ([`SCENARIOS`] and [`KAFKA_SCALE`]).
pub fn builtin(id: &str) -> Option<&'static BuiltIn> {
    SCENARIOS
        .iter()
        .chain(std::iter::once(&KAFKA_SCALE))
        .find(|s| s.id == id)
}

/// The id a sized cluster is shown and linked under (`size-B-T-P-R`).
pub fn shape_id(s: &kcsim_core::summary::Shape) -> String {
    format!(
        "size-{}-{}-{}-{}",
        s.brokers, s.topics, s.partitions, s.replication_factor
    )
}

/// The shape a `size-B-T-P-R` id names.
pub fn shape_of(id: &str) -> Option<kcsim_core::summary::Shape> {
    let mut n = id
        .strip_prefix("size-")?
        .split('-')
        .map(|x| x.parse::<u32>());
    let shape = kcsim_core::summary::Shape {
        brokers: n.next()?.ok()?,
        topics: n.next()?.ok()?,
        partitions: n.next()?.ok()?,
        replication_factor: n.next()?.ok()?,
    };
    n.next().is_none().then_some(shape)
}

/// Partitions a scenario declares (its topics and `create_topic` actions).
pub fn declared_partitions(s: &Scenario) -> u64 {
    use kcsim_core::scenario::Placement;
    let topics: u64 = s
        .topics
        .iter()
        .map(|t| match &t.placement {
            Placement::Count { partitions, .. } => u64::from(*partitions),
            Placement::Assignment(a) => a.len() as u64,
        })
        .sum();
    let created: u64 = s
        .actions
        .iter()
        .map(|(_, a)| match a {
            Action::CreateTopic {
                assignment,
                partitions,
                ..
            } => assignment
                .as_ref()
                .map_or(partitions.map_or(0, u64::from), |a| a.len() as u64),
            Action::AddPartitions { count, .. } => u64::from(*count),
            _ => 0,
        })
        .sum();
    topics + created
}

/// The picture of the timeline now: the full [`ClusterView`], or in
/// large-cluster mode the core's summary followed forward and the light view.
fn picture(
    large: bool,
    cache: &RefCell<kcsim_core::summary::SummaryCache>,
    t: &Timeline,
) -> ClusterView {
    if large {
        let mut c = cache.borrow_mut();
        c.refresh(t);
        kcsim_core::summary::light_view(t.sim(), &c)
    } else {
        ClusterView::of(t.sim())
    }
}

/// The default classroom cluster (the core's built-in `default`).
pub fn default_scenario() -> Scenario {
    kcsim_core::scenario::builtin::default_cluster()
}

/// Playback speeds: virtual ms per wall-clock ms.
pub const SPEEDS: &[(f64, &str)] = &[
    (0.05, "1/20×"),
    (0.2, "1/5×"),
    (1.0, "1×"),
    (5.0, "5×"),
    (20.0, "20×"),
    (100.0, "100×"),
];

/// Auto-follow: how long (wall-clock ms, at 1×; shorter at faster speeds)
/// each new piece of controller work (an event started or queued, a request
/// or watch notification put on the wire) stays on screen before the next
/// change is shown.
pub const FOLLOW_DWELL_MS: f64 = 1_000.0;

/// Auto-follow: the speed (virtual ms per wall-clock ms) time creeps at while
/// new controller work is held on screen (never faster than the chosen
/// speed), so that messages on the wire are seen moving.
pub const FOLLOW_CREEP: f64 = 0.02;

/// Auto-follow: up to this many pieces of controller work on screen, each
/// new one is held for [`FOLLOW_DWELL_MS`]; with more, for that share of it.
pub const FOLLOW_AT_ONCE: f64 = 4.0;

/// What auto-follow says while it slows playback down.
pub const FOLLOW_STATUS: &str = "slowed down: the controller is at work";

/// What the controls say while playback is behind real time.
pub const BEHIND_STATUS: &str = "behind real time: simulating a busy moment";

/// The wall-clock ms a playback tick may spend simulating before it lets
/// the page draw and answer input (the rest of the virtual time it owed is
/// dropped: playback slows down instead of freezing).
pub const TICK_BUDGET_MS: f64 = 10.0;

/// How long the controls keep saying playback is behind after the last
/// tick that was (wall-clock ms).
pub const BEHIND_HOLD_MS: f64 = 1_000.0;

/// Whether a tick that started when this was made may simulate on
/// ([`TICK_BUDGET_MS`]); the core reads no clock, the page passes this in.
/// Off the browser (the reducer's native tests) there is no wall clock and
/// no budget.
fn frame_budget() -> impl FnMut() -> bool {
    #[cfg(target_arch = "wasm32")]
    {
        let end = js_sys::Date::now() + TICK_BUDGET_MS;
        move || js_sys::Date::now() < end
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        || true
    }
}

/// One piece of controller work on screen, told apart from every other.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Work {
    /// A request (or its response) or a watch notification, by message id.
    Message(u64),
    /// The event a broker's controller is processing: broker, name, when done.
    Current(u32, &'static str, u64),
    /// An event waiting in a broker's controller queue: broker, name, when
    /// enqueued.
    Waiting(u32, &'static str, u64),
}

/// The controller work in progress, queued or on the wire right now.
fn work_of(sim: &kcsim_core::sim::Sim) -> Vec<Work> {
    let mut w: Vec<Work> = sim.requests().keys().map(|id| Work::Message(*id)).collect();
    for (_, e) in sim.pending() {
        if let kcsim_core::sim::SimEvent::Notify { id, .. } = e {
            w.push(Work::Message(*id));
        }
    }
    for b in sim.brokers().values() {
        if b.status == kcsim_core::broker::BrokerStatus::Dead {
            continue;
        }
        if let Some(c) = &b.controller.current {
            w.push(Work::Current(b.id.0, c.event.name(), c.done_at.as_ms()));
        }
        for q in &b.controller.queue {
            w.push(Work::Waiting(b.id.0, q.event.name(), q.enqueued_at.as_ms()));
        }
    }
    kcsim_core::sort::sort(&mut w);
    w
}

/// The controller's ZooKeeper access profiles (`sim.controller.zk.mode`) and
/// what the page calls them.
pub const ZK_MODES: &[(ZkMode, &str)] = &[
    (ZkMode::Async, "async — Kafka 1.1+"),
    (ZkMode::Sync, "sync — Kafka 1.0"),
];

/// What the page calls a ZooKeeper access profile.
pub fn zk_mode_label(mode: ZkMode) -> &'static str {
    ZK_MODES
        .iter()
        .find(|(m, _)| *m == mode)
        .map_or(mode.as_str(), |(_, label)| label)
}

/// Trace kinds that "jump to the next interesting event" stops at, besides
/// every kind the Why panel shows ([`is_interesting`]).
pub const INTERESTING: &[&str] = &[
    "elected",
    "resign",
    "leader_elected",
    "unclean_leader_elected",
    "election_failed",
    "request_rejected",
    "session_expired",
    "isr_shrunk",
    "isr_shrunk_by_leader",
    "records_lost",
    "controlled_shutdown",
    "shutdown_complete",
    "topic_deleted",
    "reassignment_completed",
    "startup_failed",
];

/// Whether "next event" stops at this trace record: every user action and
/// every controller decision (each has a Why line), and the moments listed in
/// [`INTERESTING`].
pub fn is_interesting(kind: &str) -> bool {
    INTERESTING.contains(&kind) || crate::components::why::WHY_KINDS.contains(&kind)
}

/// The Why lines shown: how many.
pub const WHY_LINES: usize = 14;

/// [`SimState::why_lines`]'s last answer and the actions it was for.
#[derive(Default)]
struct Recent {
    actions: Vec<(SimTime, Action)>,
    /// How many records of the trace it has read.
    read: usize,
    /// The newest `n` of the kinds among them, newest first.
    found: Vec<TraceRecord>,
}

impl std::fmt::Debug for Recent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Recent({} of {} records read)",
            self.found.len(),
            self.read
        )
    }
}

/// What the page shows and drives.
#[derive(Debug)]
pub struct SimState {
    /// The timeline, changed in place (cloning it, snapshots and all, on every
    /// tick would cost more than the simulation); `version` tells states apart.
    timeline: Rc<RefCell<Timeline>>,
    version: u64,
    view: Rc<ClusterView>,
    /// Large-cluster mode ([`LARGE_FROM`]).
    pub large: bool,
    /// In large-cluster mode: the core's summary, followed forward.
    summary: Rc<RefCell<kcsim_core::summary::SummaryCache>>,
    /// What [`SimState::why_lines`] found last, to look only at the records
    /// added since (the timeline's, shared as it is).
    recent: Rc<RefCell<Recent>>,
    /// Which built-in scenario is loaded.
    pub scenario: &'static str,
    /// The controller's ZooKeeper access the cluster started with: the
    /// scenario's own unless the user chose another ([`Msg::SetZkMode`]).
    pub zk_mode: ZkMode,
    /// Set when changing the starting configuration restarted the scenario
    /// (what happened, put in words in the page's language when shown).
    pub notice: Option<Notice>,
    /// Whether time runs.
    pub playing: bool,
    /// Index into [`SPEEDS`].
    pub speed: usize,
    /// The furthest time reached (the end of the scrub bar).
    pub horizon_ms: u64,
    /// The last error, shown until dismissed.
    pub error: Option<PageError>,
    /// Set when the user acted in the past: the future was recomputed.
    pub forked_at: Option<u64>,
    /// Virtual time owed by ticks shorter than a millisecond.
    carry: f64,
    /// The user's actions, for the share link.
    acts: Rc<Vec<UserAct>>,
    /// Whether playback slows down by itself around controller work (on
    /// unless the user turns it off).
    pub follow: bool,
    /// Whether the last tick was slowed down by auto-follow (the controls
    /// say so while playing).
    pub slowed: bool,
    /// Wall-clock ms that [`SimState::behind`] still holds for.
    behind_hold: f64,
    /// Wall-clock ms the controller work on screen is still held for.
    hold: f64,
    /// The controller work on screen at the end of the last tick.
    work: Rc<Vec<Work>>,
    /// Marked moments (ms, ascending): shown on the scrub bar; playing
    /// pauses when it reaches one.
    pub marks: Rc<Vec<u64>>,
    /// The lesson being followed, if one is ([`crate::lesson`]).
    pub lesson: Option<Rc<crate::lesson::LessonRun>>,
    /// Presentation mode (large type, the lesson's narration on top).
    pub present: bool,
    /// The scenario the run started from (what a what-if that differs from
    /// time 0 rebuilds from).
    start: Rc<Scenario>,
    /// The console's scrollback, oldest first ([`Msg::Console`]).
    pub console: Rc<Vec<crate::components::console::Entry>>,
    /// The console's session: its files (`echo … > plan.json`), which are
    /// the terminal's, not the cluster's (not actions, not undone).
    console_session: Rc<kcsim_core::console::Session>,
}

// Written out and not inlined: the derived `clone` is `#[inline]`, and
// `apply_plain`'s dozen `..self.clone()` each carried a copy of it.
impl Clone for SimState {
    #[inline(never)]
    fn clone(&self) -> Self {
        SimState {
            timeline: self.timeline.clone(),
            version: self.version,
            view: self.view.clone(),
            large: self.large,
            summary: self.summary.clone(),
            recent: self.recent.clone(),
            scenario: self.scenario,
            zk_mode: self.zk_mode,
            notice: self.notice,
            playing: self.playing,
            speed: self.speed,
            horizon_ms: self.horizon_ms,
            error: self.error.clone(),
            forked_at: self.forked_at,
            carry: self.carry,
            acts: self.acts.clone(),
            follow: self.follow,
            slowed: self.slowed,
            behind_hold: self.behind_hold,
            hold: self.hold,
            work: self.work.clone(),
            marks: self.marks.clone(),
            lesson: self.lesson.clone(),
            present: self.present,
            start: self.start.clone(),
            console: self.console.clone(),
            console_session: self.console_session.clone(),
        }
    }
}

/// See [`SimState::run_key`].
pub type RunKey = (&'static str, ZkMode, usize, Vec<(SimTime, Action)>);

impl PartialEq for SimState {
    fn eq(&self, other: &SimState) -> bool {
        Rc::ptr_eq(&self.timeline, &other.timeline)
            && self.version == other.version
            && self.view == other.view
            && self.large == other.large
            && self.scenario == other.scenario
            && self.zk_mode == other.zk_mode
            && self.notice == other.notice
            && self.playing == other.playing
            && self.speed == other.speed
            && self.horizon_ms == other.horizon_ms
            && self.error == other.error
            && self.forked_at == other.forked_at
            && self.follow == other.follow
            && self.slowed == other.slowed
            && self.behind() == other.behind()
            && self.marks == other.marks
            && self.lesson == other.lesson
            && self.present == other.present
            && self.console == other.console
            && self.console_session == other.console_session
    }
}

/// Everything that changes the model.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    /// Wall-clock time passed (ms); advances virtual time when playing.
    Tick(u64),
    /// Play or pause.
    TogglePlay,
    /// Process exactly one more event.
    Step,
    /// Go back a little (100 ms of virtual time).
    StepBack,
    /// Pick a speed (index into [`SPEEDS`]).
    SetSpeed(usize),
    /// Move the time cursor.
    Seek(u64),
    /// Run to the next interesting trace record.
    NextInteresting,
    /// Do something to the cluster now.
    Act(Action),
    /// Take the last action back.
    Undo,
    /// Load a built-in scenario by id (with its own ZooKeeper access).
    Load(String),
    /// Restart the current scenario from the beginning with this ZooKeeper
    /// access (a static setting: a new cluster, the user's actions dropped).
    SetZkMode(ZkMode),
    /// Forget the shown error.
    DismissError,
    /// Show an error found before reaching the core (a malformed form field).
    Error(String),
    /// Turn auto-follow (slowing down around controller work) on or off.
    SetFollow(bool),
    /// Mark the current moment (playing pauses when it reaches a mark).
    Mark,
    /// Remove the mark at this time.
    Unmark(u64),
    /// Lesson mode: open, follow, rewind or leave a lesson ([`crate::lesson`]).
    Lesson(crate::lesson::LessonMsg),
    /// Run one console line ([`SimState::console_line`]).
    Console(String),
    /// Show another moment: a trace file loaded ([`crate::trace_io::load`]).
    Replace(Rc<SimState>),
}

impl SimState {
    /// The default cluster, run until its first controller is elected.
    pub fn default_cluster() -> SimState {
        SimState::load("default")
            .unwrap_or_else(|e| panic!("the built-in default scenario is valid: {e}"))
    }

    /// A built-in scenario at 3 s (a controller elected, leaders in place).
    pub fn load(id: &str) -> Result<SimState, String> {
        SimState::load_with(id, None)
    }

    /// A built-in scenario at 3 s, its controller's ZooKeeper access set to
    /// `zk` (`None`: the scenario's own, `async` unless it says otherwise).
    pub fn load_with(id: &str, zk: Option<ZkMode>) -> Result<SimState, String> {
        if let Some(shape) = shape_of(id) {
            let mut scenario = shape.scenario().map_err(|e| format!("{id}: {e}"))?;
            if let Some(mode) = zk {
                scenario.config.sim_controller_zk_mode = mode;
            }
            // The id outlives the state (links and the picker show it).
            let id: &'static str = Box::leak(shape_id(&shape).into_boxed_str());
            return Ok(SimState::from_scenario(&scenario, id, 3_000));
        }
        let b = builtin(id).ok_or_else(|| format!("no built-in scenario {id:?}"))?;
        let mut scenario = match b.json {
            None => default_scenario(),
            Some(text) => Scenario::parse(text).map_err(|e| format!("{}: {e}", b.id))?,
        };
        if let Some(mode) = zk {
            scenario.config.sim_controller_zk_mode = mode;
        }
        Ok(SimState::from_scenario(&scenario, b.id, 3_000))
    }

    /// A scenario value at `start_ms`, shown under the built-in id `id`.
    pub(crate) fn from_scenario(scenario: &Scenario, id: &'static str, start_ms: u64) -> SimState {
        let zk_mode = scenario.config.sim_controller_zk_mode;
        let mut timeline = Timeline::new(scenario);
        timeline.seek(SimTime(start_ms));
        let large = declared_partitions(scenario) >= LARGE_FROM;
        let summary = Rc::new(RefCell::new(kcsim_core::summary::SummaryCache::default()));
        let view = picture(large, &summary, &timeline);
        SimState {
            large,
            summary,
            recent: Rc::default(),
            horizon_ms: timeline.now().as_ms(),
            timeline: Rc::new(RefCell::new(timeline)),
            version: 0,
            view: Rc::new(view),
            scenario: id,
            zk_mode,
            notice: None,
            playing: false,
            speed: 2,
            error: None,
            forked_at: None,
            carry: 0.0,
            acts: Rc::new(Vec::new()),
            follow: true,
            slowed: false,
            behind_hold: 0.0,
            hold: 0.0,
            work: Rc::new(Vec::new()),
            marks: Rc::new(Vec::new()),
            lesson: None,
            present: false,
            start: Rc::new(scenario.clone()),
            console: Rc::new(Vec::new()),
            console_session: Rc::default(),
        }
    }

    /// Fork the run at the time cursor into two that differ in `v`
    /// ([`kcsim_core::whatif`]); the run itself is not changed.
    pub fn what_if(
        &self,
        v: kcsim_core::whatif::Variation,
    ) -> Result<kcsim_core::whatif::WhatIf, kcsim_core::whatif::WhatIfError> {
        let t = self.timeline.borrow();
        kcsim_core::whatif::WhatIf::fork(&self.start, &t, t.now(), v)
    }

    /// The share-link fragment for this moment.
    pub fn share_fragment(&self) -> String {
        self.share_fragment_in(None)
    }

    /// The share-link fragment for this moment, with the page's language
    /// (which is not part of the simulation: the page keeps it beside).
    pub fn share_fragment_in(&self, lang: Option<Lang>) -> String {
        let mut f = share::encode(&Moment {
            scenario: self.scenario.to_string(),
            t_ms: self.now_ms(),
            zk: self.zk_mode,
            lang,
            acts: self.acts.to_vec(),
        });
        crate::lesson::append_link(&mut f, self.lesson.as_deref(), self.present);
        f
    }

    /// The moment a share link names: its scenario, its actions replayed as
    /// they were taken, and its time (without one, the scenario's start).
    /// A link opens whatever it can: every problem with it is listed in
    /// `error` ("broken share link: …; …"), each saying what the page did
    /// instead (the default cluster for an unknown scenario, an action that
    /// does not read or that the cluster refuses skipped, a time clamped).
    /// `Err` only if not even the default cluster opens.
    pub fn from_fragment(fragment: &str) -> Result<SimState, String> {
        let (lesson_link, fragment) = crate::lesson::split_link(fragment);
        let mut link = share::read(&fragment);
        let mut problems = std::mem::take(&mut link.problems);
        if let Some(s) = crate::lesson::from_link(&lesson_link, &link, &mut problems) {
            return Ok(s);
        }
        let named = link.scenario.unwrap_or_else(|| {
            problems.insert(
                0,
                "no scenario (s=…); the default cluster opens".to_string(),
            );
            "default".to_string()
        });
        let s = match SimState::load_with(&named, Some(link.zk)) {
            Ok(s) => s,
            Err(e) => {
                let dropped = match link.acts.len() {
                    0 => String::new(),
                    n => format!(", without the link's {n} action(s)"),
                };
                problems.insert(
                    0,
                    format!("{e}; the default cluster opens at its start{dropped}"),
                );
                let mut s = SimState::load_with("default", Some(link.zk))
                    .map_err(|e| format!("broken share link: {e}"))?;
                s.error = Some(PageError::Text(format!(
                    "broken share link: {}",
                    problems.join("; ")
                )));
                return Ok(s);
            }
        };
        let mut s = s.replay(link.acts, link.t_ms, &mut problems);
        s.present = lesson_link.present;
        if !problems.is_empty() {
            s.error = Some(PageError::Text(format!(
                "broken share link: {}",
                problems.join("; ")
            )));
        }
        Ok(s)
    }

    /// The user's actions, in the order taken.
    pub(crate) fn user_acts(&self) -> &[UserAct] {
        &self.acts
    }

    /// Replay a link's actions (each with its index in the link) as they were
    /// taken, then seek to `t_ms` if given; each action the cluster refuses
    /// is skipped and listed in `problems`.
    pub(crate) fn replay(
        self,
        link_acts: Vec<(usize, UserAct)>,
        t_ms: Option<u64>,
        problems: &mut Vec<String>,
    ) -> SimState {
        let mut s = self;
        let mut acts = Vec::new();
        for (i, a) in link_acts {
            let at = SimTime(a.at_ms);
            let action = a.action.clone();
            let described = action.describe();
            let fork = a.fork;
            s = s.with_timeline(|t| {
                t.seek(at);
                let r = if fork {
                    t.intervene(at, action)
                } else {
                    t.insert(at, action)
                };
                r.map_err(PageError::Action)
            });
            if let Some(e) = s.error.take().map(|e| e.en()) {
                problems.push(format!(
                    "action {} ({described} at {} ms): {e}; skipped",
                    i + 1,
                    a.at_ms
                ));
                continue;
            }
            if fork {
                s.forked_at = Some(a.at_ms);
                s.horizon_ms = a.at_ms;
            }
            acts.push(a);
        }
        s.acts = Rc::new(acts);
        if let Some(t_ms) = t_ms {
            s = s.with_timeline(|t| {
                t.seek(SimTime(t_ms));
                Ok(())
            });
        }
        s
    }

    /// The ZooKeeper access the simulated controller runs with, as the
    /// core's configuration says.
    pub fn running_zk_mode(&self) -> ZkMode {
        self.timeline.borrow().sim().config().sim_controller_zk_mode
    }

    /// In large-cluster mode: the core's summary at this moment (rows,
    /// counts, series), and the state's version (which changes with it).
    pub fn summary(&self) -> (Rc<RefCell<kcsim_core::summary::SummaryCache>>, u64) {
        (self.summary.clone(), self.version)
    }

    /// Run `f` over the simulation now.
    pub fn with_sim<R>(&self, f: impl FnOnce(&kcsim_core::Sim) -> R) -> R {
        f(self.timeline.borrow().sim())
    }

    /// The current picture.
    pub fn view(&self) -> &ClusterView {
        &self.view
    }

    /// What determines the run, and so its trace: the scenario it started
    /// from (its name, its ZooKeeper access, and by identity) and the
    /// actions in it. Two states with the same key have the same trace up to
    /// the earlier of their times.
    pub fn run_key(&self) -> RunKey {
        (
            self.scenario,
            self.running_zk_mode(),
            Rc::as_ptr(&self.start) as usize,
            self.actions(),
        )
    }

    /// Run `f` over the trace up to now.
    pub fn with_trace<R>(&self, f: impl FnOnce(&Records) -> R) -> R {
        f(self.timeline.borrow().trace())
    }

    /// The last `n` trace records of the given kinds, newest first.
    pub fn recent(&self, kinds: &[&str], n: usize) -> Vec<TraceRecord> {
        self.with_trace(|t| {
            t.iter()
                .rev()
                .filter(|r| kinds.contains(&r.kind.as_str()))
                .take(n)
                .cloned()
                .collect()
        })
    }

    /// The newest [`WHY_LINES`] Why lines (`recent(WHY_KINDS, WHY_LINES)`),
    /// read from the trace records added since the last time: with the same
    /// actions, the trace is the one read, longer (the run is deterministic;
    /// seeking back shortens it, acting or undoing changes the actions, and
    /// either makes it read the whole trace again).
    pub fn why_lines(&self) -> Vec<TraceRecord> {
        let tl = self.timeline.borrow();
        let (t, actions) = (tl.trace(), tl.actions());
        let mut c = self.recent.borrow_mut();
        if c.read > t.len() || c.actions.as_slice() != actions {
            *c = Recent {
                actions: actions.to_vec(),
                read: 0,
                found: Vec::new(),
            };
        }
        let kinds = crate::components::why::WHY_KINDS;
        let mut found: Vec<TraceRecord> = t
            .iter_from(c.read)
            .rev()
            .filter(|r| kinds.contains(&r.kind.as_str()))
            .take(WHY_LINES)
            .cloned()
            .collect();
        let room = WHY_LINES.saturating_sub(found.len());
        found.extend(c.found.iter().take(room).cloned());
        c.read = t.len();
        c.found = found.clone();
        found
    }

    /// The actions, in order.
    pub fn actions(&self) -> Vec<(SimTime, Action)> {
        self.timeline.borrow().actions().to_vec()
    }

    /// The scenario as started, with the actions done up to now (the
    /// scenario's own and the user's): what "Before the controller" compares.
    pub fn scenario_so_far(&self) -> Scenario {
        let now = self.now_ms();
        let mut s = (*self.start).clone();
        s.actions = self
            .actions()
            .into_iter()
            .filter(|(t, _)| t.as_ms() <= now)
            .collect();
        s
    }

    /// The end of the scrub bar: a minute past the last action, or the
    /// furthest time reached.
    pub fn scrub_end_ms(&self) -> u64 {
        let last = self
            .actions()
            .iter()
            .map(|(t, _)| t.as_ms())
            .max()
            .unwrap_or(0);
        self.horizon_ms.max(last.saturating_add(60_000))
    }

    /// Whether there is an intervention to undo.
    pub fn can_undo(&self) -> bool {
        self.timeline.borrow().can_undo()
    }

    /// Whether a tick in the last [`BEHIND_HOLD_MS`] of wall time stopped
    /// short of the virtual time it owed because simulating took longer
    /// than [`TICK_BUDGET_MS`] (a busy moment of a large cluster; the
    /// controls say so while playing, without flickering between ticks).
    pub fn behind(&self) -> bool {
        self.behind_hold > 0.0
    }

    /// Now.
    pub fn now_ms(&self) -> u64 {
        self.view.time_ms
    }

    fn with_timeline(&self, f: impl FnOnce(&mut Timeline) -> Result<(), PageError>) -> SimState {
        let done = f(&mut self.timeline.borrow_mut());
        self.after_timeline(done)
    }

    /// [`SimState::with_timeline`]'s state after its change (one copy, not
    /// one per closure).
    #[inline(never)]
    fn after_timeline(&self, done: Result<(), PageError>) -> SimState {
        let mut next = self.clone();
        let tl = self.timeline.borrow();
        match done {
            Ok(()) => {
                next.view = Rc::new(picture(self.large, &self.summary, &tl));
                next.horizon_ms = next.horizon_ms.max(tl.now().as_ms());
                next.version += 1;
            }
            // Failing operations check before they change anything: the
            // state is kept and the error is shown.
            Err(e) => next.error = Some(e),
        }
        next
    }

    /// Apply one message, returning the new state; a running lesson's
    /// checkpoint is checked after every change ([`crate::lesson::after`]).
    pub fn apply(&self, msg: Msg) -> SimState {
        let typed = matches!(msg, Msg::Console(_));
        let mut next = match msg {
            Msg::Lesson(m) => crate::lesson::apply(self, m),
            // Playback tests the checkpoint itself, as it runs.
            Msg::Tick(_) => self.apply_plain(msg),
            other => crate::lesson::after(self, self.apply_plain(other)),
        };
        // The console's scrollback outlives a new cluster (a scenario or a
        // lesson loaded), as a terminal's does.
        if !typed {
            next.console = self.console.clone();
            next.console_session = self.console_session.clone();
        }
        next
    }

    /// Run one console line: the core's console reads it and answers
    /// (`console::Session::execute`, the one call into it); the actions it took are
    /// taken back and applied again through [`Msg::Act`], one by one, so a
    /// console action is recorded, forks the future, is undone and replayed
    /// exactly as a button's. `sleep` moves time as [`Msg::Seek`] does. A
    /// refused or malformed command changes nothing. `clear` empties the
    /// scrollback (the terminal's, not Kafka's).
    fn console_line(&self, line: &str) -> SimState {
        use crate::components::console::{Entry, SCROLLBACK};
        let at = self.timeline.borrow().now();
        let push = |s: &mut SimState, text: String, ok: bool| {
            let mut log = (*self.console).clone();
            log.push(Entry {
                at_ms: at.as_ms(),
                line: line.to_string(),
                text,
                ok,
            });
            let over = log.len().saturating_sub(SCROLLBACK);
            log.drain(..over);
            s.console = Rc::new(log);
        };
        if line.trim() == "clear" {
            return SimState {
                console: Rc::new(Vec::new()),
                ..self.clone()
            };
        }
        let before = self.timeline.borrow().actions().to_vec();
        let mut answer = None;
        let mut session = (*self.console_session).clone();
        let mut next = self.with_timeline(|t| {
            answer = Some(session.execute(t, line));
            Ok(())
        });
        next.console_session = Rc::new(session);
        let Some(answer) = answer else {
            return next;
        };
        // What it added: after every action already at `at`, in order.
        let taken: Vec<Action> = {
            let mut tl = self.timeline.borrow_mut();
            let from = before.iter().take_while(|(t, _)| *t <= at).count();
            let added = tl.actions().len().saturating_sub(before.len());
            let taken: Vec<Action> = tl
                .actions()
                .get(from..from + added)
                .unwrap_or_default()
                .iter()
                .map(|(_, a)| a.clone())
                .collect();
            for _ in 0..added {
                tl.undo();
            }
            taken
        };
        let (mut text, mut ok) = (answer.text, answer.ok);
        for (applied, action) in taken.into_iter().enumerate() {
            next = next.apply_plain(Msg::Act(action));
            if let Some(e) = next.error.take() {
                // Not expected (the same action at the same moment): undo
                // what was applied and say why.
                for _ in 0..applied {
                    next = next.apply_plain(Msg::Undo);
                }
                text = format!("{}\n", e.en());
                ok = false;
                break;
            }
        }
        push(&mut next, text, ok);
        next
    }

    fn apply_plain(&self, msg: Msg) -> SimState {
        match msg {
            Msg::Tick(wall_ms) => self.tick(wall_ms as f64, &mut frame_budget()),
            Msg::Replace(s) => (*s).clone(),
            Msg::TogglePlay => SimState {
                playing: !self.playing,
                ..self.clone()
            },
            Msg::Step => self.with_timeline(|t| {
                t.step();
                Ok(())
            }),
            Msg::StepBack => {
                let to = SimTime(self.now_ms().saturating_sub(100));
                self.with_timeline(|t| {
                    t.seek(to);
                    Ok(())
                })
            }
            Msg::SetSpeed(i) => SimState {
                speed: i.min(SPEEDS.len() - 1),
                ..self.clone()
            },
            Msg::Seek(ms) => self.with_timeline(|t| {
                t.seek(SimTime(ms));
                Ok(())
            }),
            Msg::NextInteresting => self.with_timeline(|t| {
                let from = t.trace().len();
                let limit = t.now().plus_ms(600_000);
                while t.now() < limit {
                    if !t.step() {
                        break;
                    }
                    if t.trace().iter_from(from).any(|r| is_interesting(&r.kind)) {
                        break;
                    }
                }
                Ok(())
            }),
            Msg::Act(action) => {
                let at = self.timeline.borrow().now();
                // Acting before the furthest moment reached forks the future;
                // acting at the live edge keeps the scenario's later steps.
                let in_past = at.as_ms() < self.horizon_ms;
                let name = action.name();
                let last_action = action.clone();
                // A new action replaces whatever error was shown, so that its
                // own outcome decides whether it is recorded.
                let this = SimState {
                    error: None,
                    ..self.clone()
                };
                let mut next = this.with_timeline(|t| {
                    let r = if in_past {
                        t.intervene(at, action)
                    } else {
                        t.insert(at, action)
                    };
                    r.map_err(PageError::Action)
                });
                if next.error.is_none() {
                    next.error = next.with_trace(|t| refusal(t, at.as_ms(), name));
                }
                if next.error.is_none() {
                    // The restart notice is about the cluster before this.
                    next.notice = None;
                    let mut acts = (*self.acts).clone();
                    acts.push(UserAct {
                        at_ms: at.as_ms(),
                        fork: in_past,
                        action: last_action,
                    });
                    next.acts = Rc::new(acts);
                }
                if next.error.is_none() && in_past {
                    next.forked_at = Some(at.as_ms());
                    next.horizon_ms = at.as_ms();
                }
                next
            }
            Msg::Undo => {
                let mut next = self.with_timeline(|t| match t.undo() {
                    Some(_) => Ok(()),
                    None => Err(PageError::NothingToUndo),
                });
                if next.error.is_none() {
                    let mut acts = (*self.acts).clone();
                    acts.pop();
                    next.acts = Rc::new(acts);
                }
                next
            }
            Msg::Load(id) => match SimState::load(&id) {
                Ok(s) => s,
                Err(e) => SimState {
                    error: Some(e.into()),
                    ..self.clone()
                },
            },
            Msg::SetZkMode(mode) if mode == self.zk_mode => self.clone(),
            Msg::SetZkMode(mode) => match SimState::load_with(self.scenario, Some(mode)) {
                Ok(mut s) => {
                    s.notice = Some(Notice::ZkRestart {
                        mode,
                        dropped: self.acts.len(),
                    });
                    s
                }
                Err(e) => SimState {
                    error: Some(e.into()),
                    ..self.clone()
                },
            },
            Msg::DismissError => SimState {
                error: None,
                ..self.clone()
            },
            Msg::Error(e) => SimState {
                error: Some(e.into()),
                ..self.clone()
            },
            Msg::SetFollow(follow) => SimState {
                follow,
                slowed: self.slowed && follow,
                hold: 0.0,
                ..self.clone()
            },
            Msg::Mark => {
                let now = self.now_ms();
                let mut marks = (*self.marks).clone();
                if let Err(i) = marks.binary_search(&now) {
                    marks.insert(i, now);
                }
                SimState {
                    marks: Rc::new(marks),
                    ..self.clone()
                }
            }
            Msg::Unmark(at) => SimState {
                marks: Rc::new(self.marks.iter().copied().filter(|m| *m != at).collect()),
                ..self.clone()
            },
            Msg::Lesson(m) => crate::lesson::apply(self, m),
            Msg::Console(line) => self.console_line(&line),
        }
    }

    /// `wall_ms` of wall-clock time passed while playing: virtual time runs
    /// at the chosen speed, except that (with auto-follow on) every new piece
    /// of controller work is held on screen for [`FOLLOW_DWELL_MS`] (divided
    /// by the speed above 1×) while time creeps at [`FOLLOW_CREEP`], never
    /// past the next change; playing pauses at a mark, and where a lesson
    /// step's checkpoint first holds ([`Probe`]: at the moments the core's
    /// `lesson::play` tests it, however long the frames). Simulates while
    /// `more` says so (at least one event, or one piece of a long one).
    pub(crate) fn tick(&self, wall_ms: f64, more: &mut dyn FnMut() -> bool) -> SimState {
        if !self.playing {
            return self.clone();
        }
        let plain = SPEEDS[self.speed].0;
        let dwell = FOLLOW_DWELL_MS / plain.max(1.0);
        let creep = plain.min(FOLLOW_CREEP);
        let mut next = self.clone();
        let mut wall = wall_ms;
        let start = self.now_ms();
        let mark = self.marks.iter().copied().find(|m| *m > start);
        let mut reached_mark = false;
        let mut slowed = false;
        let mut behind = false;
        // A lesson step's checkpoint, tested at the core's moments as time
        // runs: playback pauses at the first where it holds.
        let mut probe =
            crate::lesson::pending(self).map(|c| Probe::new(c, &self.timeline.borrow()));
        let mut held = false;
        let (large, summary) = (self.large, &self.summary);
        let mut run = |t: &mut Timeline, to: u64, more: &mut dyn FnMut() -> bool| match &mut probe {
            Some(p) => p.run(t, SimTime(to), more, &mut |t| picture(large, summary, t)),
            None if t.run_within(SimTime(to), more) => Probed::Reached,
            None => Probed::Stopped,
        };
        {
            let mut tl = self.timeline.borrow_mut();
            let t = &mut *tl;
            // Whatever is on screen and was not at the end of the last tick
            // (the user stepped, sought or acted) is new.
            // With many pieces on screen at once (a large failover's batches
            // to every broker and their answers) each new one is held the
            // shorter, so that a burst is held about as long as a few pieces
            // are: a 1,000-partition failover took two minutes at 1×.
            let noticed = |t: &Timeline, seen: &[Work], hold: &mut f64| -> Vec<Work> {
                let now = work_of(t.sim());
                if self.follow && now.iter().any(|w| seen.binary_search(w).is_err()) {
                    *hold = dwell * (FOLLOW_AT_ONCE / now.len().max(1) as f64).min(1.0);
                }
                now
            };
            // A step the last tick left unfinished (a large failover event
            // runs by pieces: `Sim::step_piece`) is finished first; until it
            // is, the page keeps what it drew at the last whole step.
            let began_mid_step = t.mid_step();
            if began_mid_step && !t.run_within(t.now(), more) {
                behind = true;
                next.carry = 0.0;
                wall = 0.0;
            }
            let mut work = noticed(t, &self.work, &mut next.hold);
            let mut first = !began_mid_step;
            while wall > 0.0 && !reached_mark {
                if !std::mem::take(&mut first) && !more() {
                    behind = true;
                    next.carry = 0.0;
                    break;
                }
                let now = t.now().as_ms();
                let upcoming = t.sim().next_event_time().map(|n| n.as_ms().max(now + 1));
                let limit = mark.unwrap_or(u64::MAX);
                if self.follow && next.hold > 0.0 && !work.is_empty() {
                    // Hold the new work on screen, creeping up to the change.
                    slowed = true;
                    let used = wall.min(next.hold);
                    next.hold -= used;
                    wall -= used;
                    let owed = next.carry + used * creep;
                    let whole = owed.floor() as u64;
                    next.carry = owed - whole as f64;
                    let cap = upcoming.map_or(u64::MAX, |n| n - 1).min(limit);
                    let to = (now + whole).min(cap);
                    // (No event runs before `to`; a checkpoint on the clock
                    // may pass.)
                    if to > now && stops(run(t, to, more), &mut behind, &mut held, &mut next.carry)
                    {
                        break;
                    }
                    reached_mark = to == limit && to > now;
                    continue;
                }
                next.hold = 0.0;
                // (Rounding: the wall time left after stepping to events
                // should not lose a millisecond to floating point.)
                let owed = next.carry + wall * plain;
                let whole = (owed + 1e-9).floor() as u64;
                let target = (now + whole).min(limit);
                match upcoming.filter(|n| self.follow && *n <= target) {
                    Some(n) => {
                        // Run to the next change and look at it.
                        if stops(run(t, n, more), &mut behind, &mut held, &mut next.carry) {
                            break;
                        }
                        wall -= ((n - now) as f64 - next.carry).max(0.0) / plain;
                        next.carry = 0.0;
                        work = noticed(t, &work, &mut next.hold);
                        // (New work is held from here: the next turn.)
                        if next.hold > 0.0 && !work.is_empty() {
                            slowed = true;
                        }
                        reached_mark = n == limit;
                    }
                    None => {
                        if target > now
                            && stops(
                                run(t, target, more),
                                &mut behind,
                                &mut held,
                                &mut next.carry,
                            )
                        {
                            break;
                        }
                        next.carry = if target == limit && whole > 0 {
                            0.0
                        } else {
                            (owed - whole as f64).max(0.0)
                        };
                        reached_mark = target == limit && target > now;
                        wall = 0.0;
                    }
                }
            }
            // Slowed down while new work is held on screen, not while old
            // work merely stays there (requests to a broker killed -9 wait
            // unanswered through its session timeout, at the plain speed).
            next.slowed = slowed || (self.follow && next.hold > 0.0 && !work.is_empty());
            next.behind_hold = if behind {
                BEHIND_HOLD_MS
            } else {
                (self.behind_hold - wall_ms).max(0.0)
            };
            next.work = Rc::new(work);
            if !t.mid_step() && (t.now().as_ms() != start || began_mid_step) {
                next.view = Rc::new(picture(self.large, &self.summary, t));
                next.horizon_ms = next.horizon_ms.max(t.now().as_ms());
                next.version += 1;
            }
        }
        if reached_mark || held {
            next.playing = false;
            next.carry = 0.0;
        }
        if held {
            next.hold = 0.0;
            next = crate::lesson::pass(next);
        }
        next
    }

    /// Run time forward to `until_ms` in one go (no frames), stopping where
    /// a lesson step's pending checkpoint first holds ([`Probe`], tested at
    /// the moments playback and `kcsim lesson check` test it), which passes
    /// the step. Continue (a link to a later step) follows the "show me"
    /// path with it.
    pub(crate) fn probe_to(&self, until_ms: u64) -> SimState {
        let Some(c) = crate::lesson::pending(self).cloned() else {
            return self.clone();
        };
        let (large, summary) = (self.large, &self.summary);
        let mut held = false;
        let next = self.with_timeline(|t| {
            let mut probe = Probe::new(&c, t);
            let run = probe.run(t, SimTime(until_ms), &mut || true, &mut |t| {
                picture(large, summary, t)
            });
            held = matches!(run, Probed::Held(_));
            Ok(())
        });
        if held {
            crate::lesson::pass(next)
        } else {
            next
        }
    }
}

/// Whether a tick stops after a run to a moment: `more` said stop (the
/// page is behind: the fraction of a millisecond owed is dropped), or a
/// lesson's checkpoint held.
fn stops(p: Probed, behind: &mut bool, held: &mut bool, carry: &mut f64) -> bool {
    match p {
        Probed::Reached => false,
        Probed::Stopped => {
            *behind = true;
            *carry = 0.0;
            true
        }
        Probed::Held(_) => {
            *held = true;
            true
        }
    }
}

/// What the core said when it refused an action at run time (a broker not
/// running, a topic that exists, …), from the trace right after the action.
fn refusal(trace: &Records, at_ms: u64, name: &str) -> Option<PageError> {
    kcsim_core::trace::refusal(trace, at_ms, name)
        .map(|r| PageError::Refused(Box::new(r.fact().into_owned())))
}

impl Reducible for SimState {
    type Action = Msg;

    fn reduce(self: Rc<Self>, action: Msg) -> Rc<Self> {
        Rc::new(self.apply(action))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kcsim_core::BrokerId;

    #[test]
    fn a_sized_cluster_opens_in_large_cluster_mode_with_counts_that_add_up() {
        // Kafka: onNewPartitionCreation leads every partition by its
        // preferred replica; LeaderCount per broker sums to the partitions.
        let s = SimState::load("size-6-2-600-3").expect("a valid shape");
        assert!(s.large);
        assert_eq!(s.scenario, "size-6-2-600-3");
        assert!(s.view().partitions.is_empty(), "no per-partition view");
        assert!(s.view().controller.is_some());
        let (cache, _) = s.summary();
        let c = cache.borrow();
        assert_eq!(c.counts.totals.partitions, 1_200);
        assert_eq!(c.rows.len(), 1_200);
        assert!(c.counts.add_up());
        assert_eq!(
            s.view().brokers.iter().map(|b| b.leader_of).sum::<usize>(),
            1_200
        );
        drop(c);
        // The link carries the shape; a bad shape is the core's refusal.
        assert!(s.share_fragment().contains("s=size-6-2-600-3"));
        let e = SimState::load("size-3-1-10-4").err().unwrap_or_default();
        assert!(e.contains("Replication factor: 4 larger than available brokers: 3."));
        // Small clusters keep the full view.
        assert!(!SimState::default_cluster().large);
        let kafka_scale = Scenario::parse(KAFKA_SCALE.json.unwrap_or_default()).unwrap();
        assert_eq!(declared_partitions(&kafka_scale), 200_000);
        assert_eq!(kafka_scale.brokers.len(), 100);
    }

    #[test]
    fn every_built_in_scenario_loads() {
        for s in SCENARIOS {
            let st = SimState::load(s.id).unwrap_or_else(|e| panic!("{}: {e}", s.id));
            assert!(
                st.view().controller.is_some(),
                "{} has a controller at 3 s",
                s.id
            );
        }
        assert!(SimState::load("nope").is_err());
    }

    #[test]
    fn every_built_in_scenario_opens_with_its_topics_led_by_their_preferred_replicas() {
        // Kafka: brokers register, then `kafka-topics.sh --create`; the
        // controller's onNewPartitionCreation elects the first live replica
        // of each assignment (PartitionLeaderElectionAlgorithms.offlinePartitionLeaderElection),
        // which is the preferred one when every broker is up.
        for s in SCENARIOS {
            let st = SimState::load(s.id).unwrap_or_else(|e| panic!("{}: {e}", s.id));
            let v = st.view();
            assert!(
                !v.partitions.is_empty(),
                "{}: its topics exist at the start",
                s.id
            );
            for p in &v.partitions {
                let o = &p.overview;
                assert_eq!(
                    o.leader,
                    o.replicas.first().copied(),
                    "{}: {}-{} is led by its preferred replica at the start",
                    s.id,
                    o.tp.topic,
                    o.tp.partition
                );
                assert_eq!(
                    o.isr, o.replicas,
                    "{}: {}-{} has its full ISR",
                    s.id, o.tp.topic, o.tp.partition
                );
            }
        }
    }

    #[test]
    fn the_default_cluster_has_an_elected_controller_and_its_topics() {
        // Kafka: KafkaController.elect — one broker holds /controller, epoch 1.
        let s = SimState::default_cluster();
        let v = s.view();
        assert_eq!(v.brokers.len(), 4);
        let c = v.controller.expect("a controller");
        assert_eq!(v.controller_epoch, 1);
        assert!(v
            .znode("/controller")
            .unwrap()
            .data
            .contains(&format!("\"brokerid\":{c}")));
        assert_eq!(v.partitions.len(), 6);
    }

    #[test]
    fn ticks_advance_only_while_playing_and_at_the_chosen_speed() {
        // The timeline is shared and changed in place, so each step builds on the last.
        let s = SimState::default_cluster();
        let t = s.now_ms();
        let s = s.apply(Msg::Tick(100));
        assert_eq!(s.now_ms(), t, "paused");
        let s = s.apply(Msg::TogglePlay).apply(Msg::Tick(100));
        assert_eq!(s.now_ms(), t + 100, "1×");
        let s = s.apply(Msg::SetSpeed(4)).apply(Msg::Tick(100));
        assert_eq!(s.now_ms(), t + 2_100, "20×");
        let s = s
            .apply(Msg::SetSpeed(0))
            .apply(Msg::Tick(10))
            .apply(Msg::Tick(10));
        assert_eq!(s.now_ms(), t + 2_101, "slow motion carries fractions");
    }

    #[test]
    fn acting_in_the_past_forks_and_undo_takes_it_back() {
        let s = SimState::default_cluster().apply(Msg::Seek(20_000));
        let before = s.view().clone();
        let back = s.apply(Msg::Seek(10_000));
        let killed = back.apply(Msg::Act(Action::KillBroker {
            broker: BrokerId(0),
        }));
        assert_eq!(killed.forked_at, Some(10_000));
        assert_eq!(killed.view().brokers[0].status, "dead");
        let undone = killed.apply(Msg::Undo).apply(Msg::Seek(20_000));
        assert_eq!(undone.view(), &before, "undo restores the original future");
    }

    #[test]
    fn acting_at_the_live_edge_keeps_the_scripted_future() {
        let s = SimState::default_cluster();
        let scripted = s.actions().len();
        let killed = s.apply(Msg::Act(Action::KillBroker {
            broker: BrokerId(3),
        }));
        assert_eq!(killed.forked_at, None, "not a fork");
        assert_eq!(
            killed.actions().len(),
            scripted + 1,
            "the produce traffic goes on"
        );
        assert!(killed.can_undo());
        assert_eq!(killed.apply(Msg::Undo).actions().len(), scripted);
    }

    #[test]
    fn a_bad_action_shows_an_error_and_keeps_the_state() {
        let s = SimState::default_cluster();
        let bad = s.apply(Msg::Act(Action::KillBroker {
            broker: BrokerId(9),
        }));
        assert!(bad
            .error
            .as_ref()
            .map(PageError::en)
            .as_deref()
            .unwrap_or_default()
            .contains("no broker 9"));
        assert_eq!(bad.view(), s.view());
        assert!(bad.apply(Msg::DismissError).error.is_none());
    }

    #[test]
    fn a_refused_action_is_reported_from_the_trace() {
        let s = SimState::default_cluster();
        let again = s.apply(Msg::Act(Action::StartBroker {
            broker: BrokerId(0),
        }));
        assert_eq!(
            again.error.as_ref().map(PageError::en).as_deref(),
            Some("broker 0 is already running")
        );
    }

    #[test]
    fn a_share_link_replays_the_same_moment() {
        let s = SimState::load("controller-failover")
            .unwrap()
            .apply(Msg::Seek(20_000))
            .apply(Msg::Seek(9_000))
            .apply(Msg::Act(Action::KillBroker {
                broker: BrokerId(2),
            }))
            .apply(Msg::Seek(12_000))
            .apply(Msg::Act(Action::DeleteZnode {
                path: "/controller".into(),
            }))
            .apply(Msg::Seek(15_000));
        let link = s.share_fragment();
        let again = SimState::from_fragment(&link).unwrap();
        assert_eq!(again.view(), s.view(), "{link}");
        assert_eq!(again.actions(), s.actions());
        assert_eq!(again.forked_at, Some(9_000));
        assert_eq!(again.share_fragment(), link);
        let undone = again.apply(Msg::Undo);
        assert!(
            !undone.share_fragment().contains("DeleteZnode")
                && !undone.share_fragment().contains("delete_znode")
        );
    }

    #[test]
    fn a_broken_share_link_opens_what_it_can_and_says_what_is_wrong() {
        let s = SimState::from_fragment("s=nope&t=1").unwrap();
        assert_eq!(s.scenario, "default");
        assert_eq!(
            s.error.as_ref().map(PageError::en).as_deref(),
            Some("broken share link: no built-in scenario \"nope\"; the default cluster opens at its start")
        );
        let s = SimState::from_fragment("s=controller-failover&t=x").unwrap();
        assert_eq!(s.scenario, "controller-failover", "the scenario it names");
        assert_eq!(s.now_ms(), 3_000, "at its start");
        assert_eq!(
            s.error.as_ref().map(PageError::en).as_deref(),
            Some("broken share link: t=\"x\" is not a time in ms; the scenario opens at its start")
        );
        let bad = share::encode(&Moment {
            scenario: "default".into(),
            t_ms: 5_000,
            zk: ZkMode::Async,
            lang: None,
            acts: vec![
                UserAct {
                    at_ms: 4_000,
                    fork: false,
                    action: Action::KillBroker {
                        broker: BrokerId(9),
                    },
                },
                UserAct {
                    at_ms: 4_500,
                    fork: false,
                    action: Action::KillBroker {
                        broker: BrokerId(1),
                    },
                },
            ],
        });
        let s = SimState::from_fragment(&bad).unwrap();
        assert_eq!(
            s.error.as_ref().map(PageError::en).as_deref(),
            Some("broken share link: action 1 (kill -9 broker 9 at 4000 ms): no broker 9 in this cluster; skipped")
        );
        assert_eq!(s.now_ms(), 5_000);
        assert_eq!(
            s.view().brokers[1].status,
            "dead",
            "the second action replayed"
        );
        assert!(s.can_undo());
        let undone = s.apply(Msg::Undo);
        assert_eq!(undone.view().brokers[1].status, "running");
    }

    #[test]
    fn a_link_naming_only_a_scenario_opens_it_at_its_start() {
        let s = SimState::from_fragment("#s=zombie-controller").unwrap();
        assert_eq!(s.error, None, "nothing wrong with it");
        assert_eq!(s.scenario, "zombie-controller");
        let start = SimState::load("zombie-controller").unwrap();
        assert_eq!(s.now_ms(), start.now_ms());
        assert_eq!(s.view(), start.view());
        assert_eq!(s.share_fragment(), "s=zombie-controller&t=3000");
    }

    #[test]
    fn a_link_with_several_problems_lists_them_all() {
        let s = SimState::from_fragment("s=controller-failover&t=soon&zk=fast&extra=1").unwrap();
        assert_eq!(s.scenario, "controller-failover");
        assert_eq!(s.zk_mode, ZkMode::Async);
        assert_eq!(
            s.error.as_ref().map(PageError::en).as_deref(),
            Some(
                "broken share link: t=\"soon\" is not a time in ms; the scenario opens at its start; \
                 zk=\"fast\" is not a ZooKeeper access mode (async or sync); async is used; \
                 unknown key \"extra\"; ignored"
            )
        );
        let s = SimState::from_fragment("t=4000").unwrap();
        assert_eq!(s.scenario, "default");
        assert_eq!(s.now_ms(), 4_000, "the time still applies");
        assert_eq!(
            s.error.as_ref().map(PageError::en).as_deref(),
            Some("broken share link: no scenario (s=…); the default cluster opens")
        );
    }

    #[test]
    fn switching_the_zookeeper_mode_restarts_the_scenario_with_it() {
        // sim.controller.zk.mode is static: the core takes it only in the
        // starting configuration, so the page starts a new cluster with it.
        let s = SimState::load("controller-failover").unwrap();
        assert_eq!(s.zk_mode, ZkMode::Async, "the scenario's own");
        assert_eq!(s.running_zk_mode(), ZkMode::Async);
        let scripted = s.actions();
        let acted = s
            .apply(Msg::Seek(9_000))
            .apply(Msg::Seek(5_000))
            .apply(Msg::Act(Action::KillBroker {
                broker: BrokerId(2),
            }));
        assert_eq!(acted.forked_at, Some(5_000));
        let sync = acted.apply(Msg::SetZkMode(ZkMode::Sync));
        assert_eq!(sync.error, None);
        assert_eq!(sync.scenario, "controller-failover", "the same scenario");
        assert_eq!(sync.zk_mode, ZkMode::Sync);
        assert_eq!(
            sync.running_zk_mode(),
            ZkMode::Sync,
            "the mode is in the sim's config"
        );
        assert_eq!(sync.now_ms(), 3_000, "from the start");
        assert_eq!(sync.actions(), scripted, "the user's action is dropped");
        assert_eq!(sync.forked_at, None);
        assert!(!sync.can_undo());
        assert_eq!(
            sync.share_fragment(),
            "s=controller-failover&t=3000&zk=sync"
        );
        let notice = sync
            .notice
            .expect("the page says what happened")
            .text(Lang::En);
        assert!(notice.contains("starting configuration"), "{notice}");
        assert!(notice.contains("sync — Kafka 1.0"), "{notice}");
        assert!(notice.contains("Your action was dropped."), "{notice}");
        // Choosing the mode already in use changes nothing.
        let kept = sync
            .apply(Msg::Seek(4_000))
            .apply(Msg::Act(Action::KillBroker {
                broker: BrokerId(0),
            }));
        assert_eq!(kept.notice, None, "acting clears the restart notice");
        let same = kept.apply(Msg::SetZkMode(ZkMode::Sync));
        assert_eq!(same, kept);
        assert!(same.can_undo());
        // And back to async: a new cluster again.
        let back = kept.apply(Msg::SetZkMode(ZkMode::Async));
        assert_eq!(back.running_zk_mode(), ZkMode::Async);
        assert_eq!(back.share_fragment(), "s=controller-failover&t=3000");
        assert!(back
            .notice
            .unwrap()
            .text(Lang::En)
            .contains("async — Kafka 1.1+"));
        let fresh = SimState::load("default")
            .unwrap()
            .apply(Msg::SetZkMode(ZkMode::Sync));
        assert!(
            !fresh.notice.unwrap().text(Lang::En).contains("dropped"),
            "nothing to drop"
        );
    }

    #[test]
    fn loading_a_scenario_resets_the_zookeeper_mode_to_its_own() {
        // The mode belongs to the scenario's starting configuration: another
        // scenario starts with its own (async for every built-in one).
        let sync = SimState::default_cluster().apply(Msg::SetZkMode(ZkMode::Sync));
        assert_eq!(sync.running_zk_mode(), ZkMode::Sync);
        let other = sync.apply(Msg::Load("zombie-controller".into()));
        assert_eq!(other.scenario, "zombie-controller");
        assert_eq!(other.zk_mode, ZkMode::Async);
        assert_eq!(other.running_zk_mode(), ZkMode::Async);
        assert_eq!(other.notice, None);
        let again = other.apply(Msg::Load("default".into()));
        assert_eq!(again.running_zk_mode(), ZkMode::Async);
    }

    #[test]
    fn every_built_in_scenario_elects_a_controller_in_sync_mode_too() {
        for s in SCENARIOS {
            let st = SimState::load_with(s.id, Some(ZkMode::Sync))
                .unwrap_or_else(|e| panic!("{}: {e}", s.id));
            assert_eq!(st.running_zk_mode(), ZkMode::Sync, "{}", s.id);
            assert!(st.view().controller.is_some(), "{} in sync mode", s.id);
        }
    }

    #[test]
    fn a_share_link_carries_the_zookeeper_mode() {
        let s = SimState::load("controller-failover")
            .unwrap()
            .apply(Msg::SetZkMode(ZkMode::Sync))
            .apply(Msg::Seek(6_000))
            .apply(Msg::Act(Action::KillBroker {
                broker: BrokerId(1),
            }))
            .apply(Msg::Seek(20_000));
        let link = s.share_fragment();
        assert!(link.contains("&zk=sync&"), "{link}");
        let again = SimState::from_fragment(&link).unwrap();
        assert_eq!(again.running_zk_mode(), ZkMode::Sync);
        assert_eq!(again.zk_mode, ZkMode::Sync);
        assert_eq!(again.view(), s.view(), "{link}");
        assert_eq!(again.share_fragment(), link);
        let odd = SimState::from_fragment("s=default&t=3000&zk=1.0").unwrap();
        assert_eq!(
            odd.error.as_ref().map(PageError::en).as_deref(),
            Some("broken share link: zk=\"1.0\" is not a ZooKeeper access mode (async or sync); async is used")
        );
        assert_eq!(odd.zk_mode, ZkMode::Async);
    }

    /// Kill the default cluster's controller in `mode` and run to the new
    /// controller's election: when its failover (the Reelect event) will be
    /// done, and the cluster 30 s later.
    fn failover(mode: ZkMode) -> (u64, ClusterView) {
        let s = SimState::default_cluster().apply(Msg::SetZkMode(mode));
        let old = s.view().controller.expect("a controller");
        let mut s = s.apply(Msg::Act(Action::KillBroker { broker: old }));
        while s.view().controller_epoch < 2 {
            assert!(s.now_ms() < 20_000, "no new controller in {mode:?}");
            s = s.apply(Msg::NextInteresting);
        }
        let new = s.view().controller.expect("a new controller");
        let done = s
            .view()
            .queues
            .iter()
            .find(|q| q.broker == new)
            .and_then(|q| q.current.clone())
            .filter(|(event, _)| event == "Reelect")
            .map(|(_, done)| done)
            .expect("the new controller is in its failover");
        (done, s.apply(Msg::Seek(30_000)).view().clone())
    }

    #[test]
    fn a_sync_failover_has_the_same_outcome_later() {
        // Kafka 1.0 read each znode in its own round trip (KAFKA-5642 made
        // them asynchronous in 1.1): the same election, finished later.
        let (async_done, async_view) = failover(ZkMode::Async);
        let (sync_done, sync_view) = failover(ZkMode::Sync);
        assert!(
            sync_done > async_done,
            "sync done at {sync_done} ms, async at {async_done} ms"
        );
        assert_eq!(sync_view.controller, async_view.controller);
        assert_eq!(sync_view.controller_epoch, async_view.controller_epoch);
        let leadership = |v: &ClusterView| {
            v.partitions
                .iter()
                .map(|p| p.overview.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(leadership(&sync_view), leadership(&async_view));
    }

    #[test]
    fn next_interesting_stops_at_an_election() {
        let s = SimState::load("controller-failover")
            .unwrap()
            .apply(Msg::Seek(10_000));
        let n = s.apply(Msg::NextInteresting);
        assert!(n.now_ms() > 10_000);
        assert!(!n.recent(INTERESTING, 1).is_empty());
        assert!(
            n.recent(INTERESTING, 1)[0].time_ms > 10_000,
            "it stopped at one after 10 s"
        );
    }

    use crate::components::why::WHY_KINDS;

    /// The newest record "next event" would stop at, and the newest Why line.
    fn last_stop_and_why(s: &SimState) -> (TraceRecord, TraceRecord) {
        let stop = s.with_trace(|t| {
            t.iter()
                .rev()
                .find(|r| is_interesting(&r.kind))
                .cloned()
                .expect("a stop")
        });
        (stop, s.recent(WHY_KINDS, 1)[0].clone())
    }

    #[test]
    fn recent_records_read_incrementally_match_a_full_scan() {
        // Kafka: none (the page's own bookkeeping). The newest Why lines,
        // read from the records added since the last read, are what a scan
        // of the whole trace finds, through steps forward, seeking back,
        // an action and its undo.
        let plain = |s: &SimState, n: usize| -> Vec<TraceRecord> {
            s.with_trace(|t| {
                t.iter()
                    .rev()
                    .filter(|r| WHY_KINDS.contains(&r.kind.as_str()))
                    .take(n)
                    .cloned()
                    .collect()
            })
        };
        let mut s = SimState::load("zombie-controller").expect("a built-in");
        let broker = s.view().brokers[0].id;
        let msgs = [
            Msg::Seek(4_000),
            Msg::Seek(6_500),
            Msg::Step,
            Msg::Seek(20_000),
            Msg::Seek(5_000),
            Msg::Act(Action::KillBroker { broker }),
            Msg::Seek(12_000),
            Msg::Undo,
            Msg::Seek(30_000),
            Msg::StepBack,
        ];
        for m in msgs {
            s = s.apply(m);
            for _ in 0..2 {
                assert_eq!(s.why_lines(), plain(&s, WHY_LINES), "at {} ms", s.now_ms());
            }
        }
        assert!(!s.why_lines().is_empty());
    }

    #[test]
    fn next_event_stops_at_a_kill_and_why_says_it() {
        // The zombie-controller scenario kills broker 2 at 6 s.
        let s = SimState::load("zombie-controller")
            .unwrap()
            .apply(Msg::Seek(5_900));
        let n = s.apply(Msg::NextInteresting);
        assert_eq!(n.now_ms(), 6_000, "stopped at the kill, not after it");
        let (stop, why) = last_stop_and_why(&n);
        assert_eq!((stop.kind.as_str(), stop.time_ms), ("kill_broker", 6_000));
        assert_eq!(why, stop, "the kill is the newest Why line");
        assert_eq!(why.details(), "kill -9 broker 2");
    }

    #[test]
    fn a_users_action_is_a_why_line() {
        let s = SimState::default_cluster();
        let broker = s.view().brokers[0].id;
        for action in [
            Action::KillBroker { broker },
            Action::StartBroker { broker },
            Action::PauseBroker {
                broker,
                duration_ms: 1_000,
            },
            Action::ExpireSession { broker },
            Action::ShutdownBroker { broker },
            Action::SetConfig {
                key: "unclean.leader.election.enable".into(),
                value: serde_json::json!(true),
                topic: None,
            },
            Action::DeleteTopic {
                topic: "audit".into(),
            },
        ] {
            let s = SimState::default_cluster().apply(Msg::Act(action.clone()));
            let why = s.recent(WHY_KINDS, 3);
            assert!(
                why.iter()
                    .any(|r| r.kind == action.name() && r.details() == action.describe()),
                "{action:?}: {why:#?}"
            );
        }
    }

    #[test]
    fn next_event_stops_at_the_zombies_resignation() {
        // Kafka: the zombie wakes, its session has expired (processExpire), and
        // it resigns (onControllerResignation) before re-registering.
        let mut s = SimState::load("zombie-controller")
            .unwrap()
            .apply(Msg::Seek(21_100));
        let zombie_resigned = |s: &SimState| {
            s.with_trace(|t| {
                t.iter()
                    .find(|r| r.kind == "resign" && r.actor == "controller-0")
                    .cloned()
            })
        };
        assert!(zombie_resigned(&s).is_none(), "not yet at 21.1 s");
        let mut stops = 0;
        while zombie_resigned(&s).is_none() {
            s = s.apply(Msg::NextInteresting);
            stops += 1;
            assert!(
                stops < 20 && s.now_ms() < 30_000,
                "it resigns soon after waking"
            );
        }
        let resign = zombie_resigned(&s).unwrap();
        assert_eq!(s.now_ms(), resign.time_ms, "stopped at the resignation");
        let (stop, why) = last_stop_and_why(&s);
        assert_eq!(stop, resign);
        assert_eq!(why, resign, "the resignation is the newest Why line");
        assert!(
            resign.details().contains("session expired"),
            "{}",
            resign.details()
        );
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod properties {
    use super::*;
    use kcsim_core::BrokerId;
    use proptest::prelude::*;

    fn msg() -> impl Strategy<Value = Msg> {
        let b = (0u32..6).prop_map(BrokerId);
        prop_oneof![
            (1u64..400).prop_map(Msg::Tick),
            Just(Msg::TogglePlay),
            Just(Msg::Step),
            Just(Msg::StepBack),
            (0usize..8).prop_map(Msg::SetSpeed),
            (0u64..200_000).prop_map(Msg::Seek),
            Just(Msg::NextInteresting),
            Just(Msg::Undo),
            b.clone()
                .prop_map(|broker| Msg::Act(Action::KillBroker { broker })),
            b.clone()
                .prop_map(|broker| Msg::Act(Action::StartBroker { broker })),
            b.clone()
                .prop_map(|broker| Msg::Act(Action::ShutdownBroker { broker })),
            b.prop_map(|broker| Msg::Act(Action::PauseBroker {
                broker,
                duration_ms: 9_000
            })),
            (0u64..400).prop_map(|id| Msg::Act(Action::DropMessage { id })),
            prop::sample::select(
                SCENARIOS
                    .iter()
                    .map(|s| s.id.to_string())
                    .collect::<Vec<_>>()
            )
            .prop_map(Msg::Load),
            prop::sample::select(ZK_MODES.iter().map(|(m, _)| *m).collect::<Vec<_>>())
                .prop_map(Msg::SetZkMode),
            prop::sample::select(vec![
                "kill -9 1",
                "kill -15 2",
                "kafka-server-start.sh config/server-1.properties",
                "kafka-topics.sh --zookeeper localhost:2181 --delete --topic audit",
                "kafka-topics.sh --list --describe",
                "zookeeper-shell.sh localhost:2181 delete /controller",
                "sleep 3",
                "'",
            ])
            .prop_map(|l| Msg::Console(l.to_string())),
        ]
    }

    proptest! {
        #![proptest_config({
            // Fixed unless PROPTEST_RNG_SEED asks for other cases.
            let mut c = ProptestConfig::with_cases(48);
            if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
                c.rng_seed = proptest::test_runner::RngSeed::Fixed(0x6b63_7369_6d00_0002);
            }
            c
        })]

        #[test]
        fn any_sequence_of_clicks_keeps_a_consistent_page(msgs in prop::collection::vec(msg(), 1..25)) {
            // No panic reaches the page: every message gives a state, errors are messages.
            let mut s = SimState::default_cluster();
            for m in msgs {
                s = s.apply(m);
                prop_assert_eq!(s.view().brokers.is_empty(), false);
                prop_assert!(s.now_ms() <= kcsim_core::scenario::MAX_TIME_MS + 60_000);
            }
        }
    }
}

#[cfg(test)]
mod act_after_error {
    use super::*;

    #[test]
    fn an_action_after_an_error_is_recorded_in_the_share_link() {
        let s = SimState::default_cluster().apply(Msg::Undo);
        assert!(s.error.is_some(), "nothing to undo");
        let b = kcsim_core::BrokerId(3);
        let next = s.apply(Msg::Act(Action::KillBroker { broker: b }));
        assert!(next.error.is_none(), "{:?}", next.error);
        assert_eq!(next.acts.len(), 1, "the kill is one of the user's actions");
        assert!(
            next.share_fragment().contains("&a="),
            "{}",
            next.share_fragment()
        );
    }
}

#[cfg(test)]
mod follow {
    use super::*;

    /// The ticks (of 50 ms) from `from_ms` until the new controller's
    /// failover (Reelect) is over, and how many of them it was current in.
    fn play_failover(follow: bool) -> (usize, usize, bool) {
        let mut s = SimState::load("controller-failover")
            .unwrap()
            .apply(Msg::Seek(10_000))
            .apply(Msg::SetFollow(follow))
            .apply(Msg::TogglePlay);
        let reelect = |s: &SimState| {
            s.view()
                .queues
                .iter()
                .any(|q| q.current.as_ref().is_some_and(|(e, _)| e == "Reelect"))
        };
        let (mut ticks, mut during, mut said) = (0, 0, false);
        while s.view().controller_epoch < 2 || reelect(&s) {
            s = s.apply(Msg::Tick(50));
            ticks += 1;
            if reelect(&s) {
                during += 1;
                said |= s.slowed;
            }
            assert!(ticks < 5_000, "the failover ends");
        }
        (ticks, during, said)
    }

    #[test]
    fn auto_follow_holds_the_failover_on_screen_and_says_so() {
        // At 1× a tick is 50 ms: the new controller's Reelect event is over
        // in a few virtual ms, so plain playback jumps over it; auto-follow
        // holds each new piece of it (the event, each request batch on the
        // wire) for a second of wall-clock time.
        let (ticks, during, said) = play_failover(true);
        assert!(during >= 20, "Reelect current for {during} ticks of 50 ms");
        assert!(said, "the controls say playback is slowed down");
        assert!(ticks < 400, "bounded: {ticks} ticks for the whole failover");
    }

    #[test]
    fn without_auto_follow_the_failover_passes_at_the_plain_speed() {
        let (ticks, during, said) = play_failover(false);
        assert!(during <= 1, "Reelect current for {during} ticks");
        assert!(!said);
        assert!(ticks <= 200, "{ticks} ticks: 10 s at 1× is 200");
    }

    #[test]
    fn a_tick_over_its_wall_clock_budget_stops_short_says_so_and_changes_nothing() {
        // The failover's events are Kafka's whatever moments the page draws
        // (KafkaController.onControllerFailover runs the same): a tick whose
        // budget runs out stops between two events (perhaps of one
        // millisecond), drops the rest of the time it owed, and says
        // playback is behind.
        let play = || {
            SimState::load("controller-failover")
                .unwrap()
                .apply(Msg::SetFollow(false))
                .apply(Msg::Seek(9_000))
                .apply(Msg::TogglePlay)
                .apply(Msg::SetSpeed(4))
        };
        let s = play();
        let mut left = 3;
        let short = s.tick(1_000.0, &mut || {
            left -= 1;
            left >= 0
        });
        assert!(short.behind(), "behind real time");
        let reached = short.now_ms();
        assert!(reached > 9_000 && reached < 29_000, "stopped at {reached}");
        // An unhurried tick plays on at the plain speed.
        let on = short.tick(50.0, &mut || true);
        assert_eq!(
            on.now_ms(),
            reached + 1_000,
            "20×: 50 ms of wall time is 1 s"
        );
        let plain = play().apply(Msg::Seek(on.now_ms()));
        assert_eq!(
            on.view(),
            plain.view(),
            "the same cluster at the same moment"
        );
        assert_eq!(
            on.timeline.borrow().trace().len(),
            plain.timeline.borrow().trace().len()
        );
        // The controls keep saying so for a second, then stop.
        assert!(on.behind(), "held, not flickering");
        let mut later = on;
        for _ in 0..19 {
            later = later.tick(50.0, &mut || true);
        }
        assert!(!later.behind(), "a second of ticks on time");
    }

    #[test]
    fn auto_follow_holds_a_large_failover_s_pieces_the_shorter_the_more_at_once() {
        // Kafka: onControllerFailover sends LeaderAndIsr and UpdateMetadata
        // batches to every live broker at once, and their answers come back
        // as events (LeaderAndIsrResponseReceived) in the new controller's
        // queue: at 20 brokers and 1,000 partitions, a burst of pieces that
        // held a second each took two minutes at 1×.
        let mut took = Vec::new();
        for follow in [true, false] {
            let mut s = SimState::load("size-20-2-1000-3")
                .unwrap()
                .apply(Msg::Seek(5_000));
            let ctl = s.view().controller.unwrap();
            s = s
                .apply(Msg::Act(kcsim_core::Action::KillBroker { broker: ctl }))
                .apply(Msg::SetFollow(follow))
                .apply(Msg::TogglePlay);
            let mut ticks = 0;
            let idle = |s: &SimState| {
                s.view().controller.is_some_and(|c| c != ctl)
                    && s.view()
                        .queues
                        .iter()
                        .all(|q| q.current.is_none() && q.waiting.is_empty())
                    && s.timeline.borrow().sim().requests().is_empty()
            };
            while !idle(&s) && ticks < 20_000 {
                s = s.apply(Msg::Tick(50));
                ticks += 1;
            }
            assert!(idle(&s), "the failover ends");
            took.push(ticks);
        }
        let (follow, plain) = (took[0], took[1]);
        // Ticks of 50 ms: at most a minute (2,568 ticks before), and still
        // held well beyond the plain speed.
        assert!(follow <= 1_200, "{follow} ticks with auto-follow");
        assert!(
            follow >= 3 * plain,
            "{follow} ticks against {plain} without"
        );
    }

    #[test]
    fn the_controls_say_slowed_down_exactly_while_playback_runs_slower_than_chosen() {
        // Kafka: a broker killed -9 keeps its ZooKeeper session until
        // zookeeper.session.timeout.ms passes (KafkaController's
        // onBrokerFailure only then); requests sent to it meanwhile stay
        // unanswered on screen while time passes at the chosen speed, and
        // the controls must not say "slowed down" then.
        for name in [
            "controller-failover",
            "controlled-shutdown-vs-kill",
            "unclean-election",
            "zombie-controller",
        ] {
            let mut s = SimState::load(name).unwrap().apply(Msg::TogglePlay);
            // Each tick: its start, how far it ran, whether it said slowed.
            let mut ticks = Vec::new();
            for _ in 0..1_200 {
                let before = s.now_ms();
                s = s.apply(Msg::Tick(50));
                if !s.playing {
                    s = s.apply(Msg::TogglePlay);
                    continue;
                }
                ticks.push((before, s.now_ms() - before, s.slowed));
            }
            let (mut slowed, mut plain) = (0, 0);
            for (i, &(at, ran, said)) in ticks.iter().enumerate() {
                if said {
                    // Held in this tick or the next (new work found at a
                    // tick's very end is held from the next; a hold's last
                    // millisecond may leave a tick its whole run): never
                    // two ticks in a row at the full speed.
                    let next = ticks.get(i + 1).filter(|t| t.2).map_or(0, |t| t.1);
                    assert!(
                        ran < 50 || next < 50,
                        "{name}: says slowed at {at} but ran {ran} ms, then {next}"
                    );
                    slowed += 1;
                } else {
                    assert_eq!(
                        ran, 50,
                        "{name}: ran {ran} ms at {at} without saying slowed"
                    );
                    plain += 1;
                }
            }
            assert!(
                slowed > 0 && plain > 0,
                "{name}: {slowed} slowed, {plain} plain"
            );
        }
    }

    #[test]
    fn a_quiet_stretch_passes_at_the_chosen_speed() {
        // Between the failover's auto-rebalance check (20 s) and the
        // restarts (30 s) the controller has nothing to do.
        let mut s = SimState::load("controller-failover")
            .unwrap()
            .apply(Msg::Seek(21_000))
            .apply(Msg::TogglePlay);
        for _ in 0..40 {
            s = s.apply(Msg::Tick(50));
        }
        assert_eq!(s.now_ms(), 23_000, "1×");
        assert!(!s.slowed);
        let s = s.apply(Msg::SetSpeed(4)).apply(Msg::Tick(50));
        assert_eq!(s.now_ms(), 24_000, "20×");
    }

    #[test]
    fn playing_pauses_at_a_mark() {
        let s = SimState::load("controller-failover")
            .unwrap()
            .apply(Msg::Seek(21_000))
            .apply(Msg::Mark)
            .apply(Msg::Seek(20_000))
            .apply(Msg::Mark)
            .apply(Msg::Mark);
        assert_eq!(*s.marks, vec![20_000, 21_000], "sorted, once each");
        let mut s = s.apply(Msg::SetSpeed(3)).apply(Msg::TogglePlay);
        for _ in 0..10 {
            s = s.apply(Msg::Tick(50));
        }
        assert_eq!(s.now_ms(), 21_000, "stopped at the mark, not after it");
        assert!(!s.playing, "paused");
        // Playing on leaves the mark behind; a mark can be taken away.
        let s = s.apply(Msg::TogglePlay).apply(Msg::Tick(50));
        assert_eq!(s.now_ms(), 21_250);
        assert_eq!(*s.apply(Msg::Unmark(20_000)).marks, vec![21_000]);
    }

    #[test]
    fn a_mark_stops_playback_in_the_middle_of_controller_work_too() {
        let s = SimState::load("controller-failover").unwrap();
        let mut s = s
            .apply(Msg::Seek(30_001))
            .apply(Msg::Mark)
            .apply(Msg::Seek(29_000));
        s = s.apply(Msg::TogglePlay);
        for _ in 0..2_000 {
            if !s.playing {
                break;
            }
            s = s.apply(Msg::Tick(50));
        }
        assert_eq!((s.now_ms(), s.playing), (30_001, false));
    }
}
