use super::*;
use crate::state::Msg;
use kcsim_core::lesson::builtin;
use kcsim_core::{Action, BrokerId};

fn race() -> Rc<Lesson> {
    Rc::new(builtin::lesson("controller-race").unwrap().unwrap())
}

fn open() -> SimState {
    SimState::default_cluster().apply(Msg::Lesson(LessonMsg::Open(race(), Origin::BuiltIn)))
}

fn run(s: &SimState) -> &LessonRun {
    s.lesson.as_deref().expect("a lesson")
}

/// Play at 20× until the current checkpoint passes (or `max` ticks).
fn play_until_passed(mut s: SimState, max: usize) -> SimState {
    s = s.apply(Msg::SetSpeed(4));
    if !s.playing {
        s = s.apply(Msg::TogglePlay);
    }
    for _ in 0..max {
        if run(&s).passed() {
            break;
        }
        s = s.apply(Msg::Tick(50));
    }
    s
}

#[test]
fn opening_a_lesson_loads_its_scenario_at_its_start() {
    let s = open();
    assert_eq!(s.now_ms(), race().start_ms);
    assert_eq!(s.scenario, "default");
    let r = run(&s);
    assert_eq!((r.step, r.done), (0, false));
    assert!(r.can_next(), "the first step has no checkpoint");
}

#[test]
fn a_checkpoint_passes_however_the_learner_gets_there_and_playback_pauses() {
    let s = open().apply(Msg::Lesson(LessonMsg::Next));
    assert_eq!(run(&s).step, 1);
    assert!(!run(&s).can_next(), "waits for the controller's death");
    let c = s.view().controller.expect("a controller");
    // By the broker's own button (Msg::Act), not "show me".
    let s = s
        .apply(Msg::TogglePlay)
        .apply(Msg::Act(Action::KillBroker { broker: c }));
    let r = run(&s);
    assert!(r.passed() && r.can_next());
    assert_eq!(
        r.moments[1].passed,
        Some(At {
            t_ms: 3_000,
            acts: 1
        })
    );
    assert!(!s.playing, "paused at the moment it passed");
}

#[test]
fn show_me_acts_through_the_page_path_then_plays_until_the_checkpoint() {
    let s = open()
        .apply(Msg::Lesson(LessonMsg::Next))
        .apply(Msg::Lesson(LessonMsg::ShowMe));
    assert!(run(&s).passed());
    assert_eq!(s.user_acts().len(), 1, "recorded like a button press");
    let s = s.apply(Msg::Lesson(LessonMsg::Next));
    assert_eq!(run(&s).step, 2);
    let s = s.apply(Msg::Lesson(LessonMsg::ShowMe));
    assert!(s.playing, "no actions: it just plays");
    let s = play_until_passed(s, 2_000);
    assert!(run(&s).passed());
    assert!(s.view().controller_epoch >= 2);
    assert!(!s.playing);
    let s = s.apply(Msg::Lesson(LessonMsg::Next));
    assert!(run(&s).done);
    assert_eq!(run(&s).progress(), Progress::Done);
}

#[test]
fn back_rewind_and_restart_go_to_their_moments() {
    let s = open()
        .apply(Msg::Lesson(LessonMsg::Next))
        .apply(Msg::Seek(4_000))
        .apply(Msg::Lesson(LessonMsg::ShowMe));
    let passed = run(&s).moments[1].passed.unwrap();
    assert_eq!(
        passed,
        At {
            t_ms: 4_000,
            acts: 1
        }
    );
    let s = s
        .apply(Msg::Lesson(LessonMsg::Next))
        .apply(Msg::Seek(6_000));
    // Rewind: back to the moment step 1's checkpoint passed.
    let r = s.apply(Msg::Lesson(LessonMsg::Rewind));
    assert_eq!((r.now_ms(), run(&r).step), (4_000, 1));
    assert!(run(&r).passed() && run(&r).can_next());
    assert_eq!(r.user_acts().len(), 1, "the kill is kept");
    assert!(!r.playing);
    // Back: to the moment step 1 started (3 s, before the kill).
    let b = s.apply(Msg::Lesson(LessonMsg::Back));
    assert_eq!((b.now_ms(), run(&b).step), (3_000, 1));
    assert!(!run(&b).passed());
    assert_eq!(b.user_acts().len(), 0, "the kill came after: dropped");
    assert!(b.view().controller.is_some());
    // Restart: step 0 at the start.
    let z = s.apply(Msg::Lesson(LessonMsg::Restart));
    assert_eq!((z.now_ms(), run(&z).step), (race().start_ms, 0));
    assert!(z.user_acts().is_empty());
    // Leave: the cluster stays.
    let l = s.apply(Msg::Lesson(LessonMsg::Leave));
    assert!(l.lesson.is_none());
    assert_eq!(l.now_ms(), 6_000);
}

#[test]
fn continue_follows_the_show_me_path_to_the_step() {
    let s = SimState::default_cluster().apply(Msg::Lesson(LessonMsg::Continue(
        race(),
        Origin::BuiltIn,
        2,
    )));
    let r = run(&s);
    assert_eq!(r.step, 2);
    assert!(s.view().controller_epoch < 2 || r.passed());
    // Back from it knows step 1's moment.
    let b = s.apply(Msg::Lesson(LessonMsg::Back));
    assert_eq!(run(&b).step, 1);
}

#[test]
fn every_builtin_lesson_passes_by_show_me() {
    for l in builtin::all() {
        let n = l.steps.len();
        let s = SimState::default_cluster().apply(Msg::Lesson(LessonMsg::Continue(
            Rc::new(l.clone()),
            Origin::BuiltIn,
            n,
        )));
        assert!(
            run(&s).done,
            "{}: reached step {} at {} ms, error {:?}",
            l.id,
            run(&s).step,
            s.now_ms(),
            s.error
        );
    }
}

#[test]
fn the_link_carries_the_lesson_the_step_and_presentation_mode() {
    let s = open()
        .apply(Msg::Lesson(LessonMsg::Next))
        .apply(Msg::Lesson(LessonMsg::ShowMe))
        .apply(Msg::Lesson(LessonMsg::SetPresent(true)));
    let f = s.share_fragment();
    assert!(f.contains("&l=controller-race&st=1&present=1"), "{f}");
    let again = SimState::from_fragment(&f).unwrap();
    assert_eq!(again.error, None);
    assert!(again.present);
    assert_eq!(run(&again).step, 1);
    assert!(
        run(&again).passed(),
        "the controller is dead at that moment"
    );
    assert_eq!(again.view(), s.view());
    assert_eq!(again.share_fragment(), f);
    // A teacher's file rides along as lf=.
    let text = builtin::FILES[0].1.replace("controller-race", "my-race");
    let lesson = Rc::new(Lesson::parse(&text).unwrap());
    let s = SimState::default_cluster().apply(Msg::Lesson(LessonMsg::Open(
        lesson,
        Origin::File(Rc::new(minified(&text))),
    )));
    let f = s.share_fragment();
    assert!(f.contains("&lf=%7B") && f.contains("&st=0"), "{f}");
    let again = SimState::from_fragment(&f).unwrap();
    assert_eq!(again.error, None);
    assert_eq!(run(&again).lesson.id, "my-race");
    assert_eq!(again.share_fragment(), f);
}

#[test]
fn presentation_mode_survives_loading_a_scenario_and_is_in_the_link_alone() {
    let s = SimState::default_cluster()
        .apply(Msg::Lesson(LessonMsg::SetPresent(true)))
        .apply(Msg::Load("zombie-controller".into()));
    assert!(s.present);
    assert!(s.share_fragment().ends_with("&present=1"));
    assert!(
        SimState::from_fragment(&s.share_fragment())
            .unwrap()
            .present
    );
}

fn broken(f: &str) -> (SimState, String) {
    let s = SimState::from_fragment(f).unwrap();
    let e = s
        .error
        .as_ref()
        .map(crate::notice::PageError::en)
        .unwrap_or_default();
    (s, e)
}

#[test]
fn a_broken_lesson_link_opens_what_it_can_and_says_what_is_wrong() {
    let (s, e) = broken("s=default&t=5000&l=nope&st=1");
    assert!(s.lesson.is_none());
    assert_eq!(s.now_ms(), 5_000, "the rest of the link opens");
    assert!(e.contains("no built-in lesson \"nope\" (l=)"), "{e}");
    let (s, e) = broken("s=default&l=controller-race&st=9");
    assert_eq!(run(&s).step, 0);
    assert!(
        e.contains("st=9 is not a step of this lesson (0 to 2)"),
        "{e}"
    );
    let (s, e) = broken("s=default&l=controller-race&st=x");
    assert_eq!(run(&s).step, 0);
    assert!(e.contains("st=x"), "{e}");
    let (s, e) = broken("s=default&lf=%7B%22version%22%3A1%7D");
    assert!(s.lesson.is_none());
    assert!(e.contains("the lesson file (lf=): id: is required"), "{e}");
    let (_, e) = broken("s=default&lf=%ZZ");
    assert!(
        e.contains("the lesson file (lf=): %ZZ is not a valid escape"),
        "{e}"
    );
    let (_, e) = broken("s=default&st=2");
    assert!(e.contains("st=2 without a lesson"), "{e}");
    let (s, e) = broken("s=default&present=yes");
    assert!(!s.present);
    assert!(e.contains("present=\"yes\""), "{e}");
}

#[test]
fn garbage_links_do_not_panic() {
    for f in [
        "l=&st=&lf=&present=",
        "lf=%7B%7D&l=%&st=-1",
        "st=99999999999999999999999&l=controller-race",
        "lf=%5B%5D",
        "l=controller-race&st=3&t=1&a=%5B%5D",
        "&&&=&l",
    ] {
        let s = SimState::from_fragment(f).unwrap();
        assert!(!s.view().brokers.is_empty(), "{f}");
    }
    // st= one past the last step: the lesson finished.
    let s = SimState::from_fragment("s=default&l=controller-race&st=3").unwrap();
    assert!(run(&s).done);
}

#[test]
fn progress_reads_back_and_only_grows() {
    for p in [Progress::At(0), Progress::At(7), Progress::Done] {
        assert_eq!(Progress::parse(p.value().as_deref()), p);
    }
    assert_eq!(Progress::parse(Some("junk")), Progress::New);
    assert_eq!(Progress::parse(None), Progress::New);
    assert_eq!(Progress::At(3).max(Progress::At(1)), Progress::At(3));
    assert_eq!(Progress::At(3).max(Progress::Done), Progress::Done);
    assert_eq!(Progress::New.max(Progress::At(0)), Progress::At(0));
    assert_eq!(
        progress_key("controller-race"),
        "kcsim.lesson.controller-race"
    );
}

#[test]
fn every_target_has_an_element_and_every_condition_words_in_both_languages() {
    use crate::i18n::Lang;
    use kcsim_core::lesson::Target;
    for t in [
        "controller",
        "brokers",
        "broker:2",
        "queue",
        "partitions",
        "partition:orders-0",
        "wire",
        "why",
        "invariants",
        "kafka-text",
        "znodes",
        "admin",
        "time",
    ] {
        let sel = target_selectors(&Target::parse(t).unwrap());
        assert!(!sel.is_empty(), "{t}");
    }
    assert_eq!(
        target_selectors(&Target::Broker(BrokerId(2))),
        ["#p-brokers article.broker[data-broker=\"2\"]"]
    );
    for l in builtin::all() {
        for s in &l.steps {
            if let Some(c) = &s.checkpoint {
                let en = condition_words(c, Lang::En);
                let zh = condition_words(c, Lang::Zh);
                assert!(!en.is_empty() && !zh.is_empty() && en != zh, "{en}");
            }
        }
    }
}

/// The page's own path, as a learner at 20× follows it: Show me, then
/// playback ticks until the step's checkpoint passes, then Next.
fn walk_at(lesson: &Rc<Lesson>, speed: usize) -> Result<(), String> {
    let mut s = SimState::default_cluster()
        .apply(Msg::SetSpeed(speed))
        .apply(Msg::Lesson(LessonMsg::Open(
            lesson.clone(),
            Origin::BuiltIn,
        )));
    for _ in 0..200 {
        let r = run(&s).clone();
        if r.done {
            return Ok(());
        }
        if !r.passed() && (r.current().checkpoint.is_some() || !r.current().show_me.is_empty()) {
            s = s.apply(Msg::Lesson(LessonMsg::ShowMe));
            if let Some(e) = &s.error {
                return Err(format!("step {}: {}", r.step, e.en()));
            }
            let mut ticks = 0;
            while s.playing && !run(&s).passed() {
                s = s.apply(Msg::Tick(50));
                ticks += 1;
                if ticks > 2_000 {
                    let tail: Vec<String> = s.with_trace(|t| {
                        t.iter()
                            .filter(|r| {
                                !matches!(
                                    r.kind.as_str(),
                                    "heartbeat"
                                        | "fetch"
                                        | "request_applied"
                                        | "event"
                                        | "watch_fired"
                                        | "produce"
                                        | "produced"
                                )
                            })
                            .rev()
                            .take(25)
                            .map(|r| {
                                format!("{} {} {} {}", r.time_ms, r.actor, r.kind, r.details())
                            })
                            .collect()
                    });
                    return Err(format!(
                        "step {}: not reached by {} ms; {:?}; lost {} unclean {}\n{}",
                        r.step,
                        s.now_ms(),
                        s.view()
                            .partitions
                            .iter()
                            .map(|p| (
                                p.overview.tp.to_string(),
                                p.overview.leader,
                                p.overview.isr.clone(),
                                p.overview.state
                            ))
                            .collect::<Vec<_>>(),
                        s.view().acked_records_lost,
                        s.view().unclean_elections,
                        tail.join("\n")
                    ));
                }
            }
            if r.current().checkpoint.is_some() && !run(&s).passed() {
                return Err(format!(
                    "step {}: playback stopped at {} ms",
                    r.step,
                    s.now_ms()
                ));
            }
        }
        s = s.apply(Msg::Lesson(LessonMsg::Next));
    }
    Err("too many steps".into())
}

#[test]
fn every_builtin_lesson_passes_by_show_me_at_5x_20x_and_100x_playback() {
    // Auto-follow on (the page's default): each tick runs to the next
    // change and holds it on screen; the checkpoint is tested at the
    // core's moments within the tick.
    let mut failed = Vec::new();
    for speed in [3, 4, 5] {
        for l in builtin::all() {
            if let Err(e) = walk_at(&Rc::new(l.clone()), speed) {
                failed.push(format!(
                    "{} at {}: {e}",
                    l.id,
                    crate::state::SPEEDS[speed].1
                ));
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

/// The page's path through `lesson` by Show me at every step: playback at
/// `speed` in ticks of `tick_ms` of wall-clock time, each stopped by its
/// frame budget after `budget` pieces of work (a slow machine), with
/// auto-follow on or off. Returns each step's checkpoint moment.
fn passes_by_ticks(
    lesson: &Rc<Lesson>,
    speed: usize,
    tick_ms: f64,
    budget: usize,
    follow: bool,
) -> Result<Vec<Option<u64>>, String> {
    let mut s = SimState::default_cluster()
        .apply(Msg::SetSpeed(speed))
        .apply(Msg::SetFollow(follow))
        .apply(Msg::Lesson(LessonMsg::Open(
            lesson.clone(),
            Origin::BuiltIn,
        )));
    let mut out = Vec::new();
    while !run(&s).done {
        let r = run(&s).clone();
        if r.current().checkpoint.is_some() || !r.current().show_me.is_empty() {
            s = s.apply(Msg::Lesson(LessonMsg::ShowMe));
            if let Some(e) = &s.error {
                return Err(format!("step {}: {}", r.step, e.en()));
            }
        }
        let mut ticks = 0;
        while s.playing && !run(&s).passed() {
            let mut left = budget;
            s = s.tick(tick_ms, &mut || {
                left = left.saturating_sub(1);
                left > 0
            });
            ticks += 1;
            if ticks > 200_000 {
                return Err(format!("step {}: not passed by {} ms", r.step, s.now_ms()));
            }
        }
        out.push(run(&s).moments[r.step].passed.map(|a| a.t_ms));
        s = s.apply(Msg::Lesson(LessonMsg::Next));
    }
    Ok(out)
}

#[test]
fn playback_passes_each_checkpoint_where_the_core_does_whatever_the_frames() {
    // Kafka: none (the lesson player). The page tests a checkpoint at the
    // moments the core's `lesson::play` tests it (`Probe`), not once per
    // frame: a frame of 20 s of virtual time (100x, a 200 ms frame) or a
    // frame cut short by a slow machine's budget passes at the same moment,
    // and a state that holds for less than a frame is not run past.
    for l in builtin::all() {
        let lesson = Rc::new(l.clone());
        let core: Vec<Option<u64>> = kcsim_core::lesson::play(&lesson)
            .unwrap_or_else(|e| panic!("{}: {e}", l.id))
            .into_iter()
            .map(|o| o.passed_at_ms)
            .collect();
        for (speed, tick_ms, budget, follow) in [
            (4, 16.0, usize::MAX, true),
            (5, 200.0, usize::MAX, false),
            (4, 1000.0, 3, true),
            (3, 250.0, 2, false),
        ] {
            let page = passes_by_ticks(&lesson, speed, tick_ms, budget, follow)
                .unwrap_or_else(|e| panic!("{} at speed {speed}, {tick_ms} ms: {e}", l.id));
            assert_eq!(
                page, core,
                "{} at speed {speed}, {tick_ms} ms ticks, budget {budget}, follow {follow}",
                l.id
            );
        }
        // "Continue" (a link to a later step) follows the same path.
        let s = fast_forward(
            &SimState::default_cluster(),
            lesson.clone(),
            Origin::BuiltIn,
            lesson.steps.len(),
        );
        let moments: Vec<Option<u64>> = run(&s)
            .moments
            .iter()
            .map(|m| m.passed.map(|a| a.t_ms))
            .collect();
        assert_eq!(moments, core, "{} by continue", l.id);
    }
}
