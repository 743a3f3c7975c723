//! The workspace core without any face: scenarios a user walks through — a tab in a
//! worktree, a split, closing, a program exiting (closed, held, the last one), a
//! restore, the journal of who asked — driven through `WorkspaceCore::apply` with real
//! shells, no egui.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tern_testkit::eventually;

use tern_core::config::Config;
use tern_core::pipeline::{PaneId, Pipeline, PipelineConfig};
use tern_core::workspace::split_tree::Axis;
use tern_core::workspace::{Command, Effect, Outcome, Source, WorkspaceCore};

fn core() -> WorkspaceCore {
    let pipeline = Pipeline::start(PipelineConfig::default(), Arc::new(|| {})).expect("pipeline");
    let mut config = Config::default();
    config.shell.program = Some("/bin/sh".into());
    WorkspaceCore::new(Arc::new(pipeline), config)
}

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tern-wscore-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("folder");
    dir
}

fn open(core: &mut WorkspaceCore, path: &Path) -> PaneId {
    let opened = core.apply(
        Source::Chrome,
        Command::OpenGroup {
            name: "wt".into(),
            path: path.to_path_buf(),
            repo: None,
            start: None,
            size: None,
        },
    );
    match opened {
        Ok(Outcome::Pane(p)) => p,
        other => panic!("open group: {other:?}"),
    }
}

fn pane(result: Result<Outcome, String>) -> PaneId {
    match result {
        Ok(Outcome::Pane(p)) => p,
        other => panic!("expected a pane: {other:?}"),
    }
}

/// Feeds the core the pipeline's events until `done` holds.
fn pump(core: &mut WorkspaceCore, what: &str, done: impl Fn(&mut WorkspaceCore) -> bool) {
    eventually(what, Duration::from_secs(20), || {
        if done(core) {
            return true;
        }
        if let Some(event) = core.pipeline().wait_event(Duration::from_millis(50)) {
            core.on_event(&event);
        }
        false
    });
}

fn new_tab(cwd: Option<PathBuf>, program: &[&str]) -> Command {
    Command::NewTab {
        group: None,
        cwd,
        title: None,
        program: program.iter().map(|s| s.to_string()).collect(),
        size: None,
    }
}

#[test]
fn a_tab_joins_the_worktree_that_holds_its_folder_and_a_new_folder_gets_a_group() {
    let mut core = core();
    let wt = folder("join");
    std::fs::create_dir_all(wt.join("src")).expect("src");
    let first = open(&mut core, &wt);
    let inside = pane(core.apply(Source::Msg, new_tab(Some(wt.join("src")), &[])));
    assert_eq!(
        core.ws().groups.len(),
        1,
        "a folder inside the worktree joins it"
    );
    assert_eq!(core.ws().groups[0].tabs.len(), 2);
    assert_eq!(core.ws().focused_pane(), Some(inside));
    let elsewhere = folder("join-other");
    let other = pane(core.apply(Source::Key, new_tab(Some(elsewhere.clone()), &[])));
    assert_eq!(
        core.ws().groups.len(),
        2,
        "a folder no group holds gets its own"
    );
    assert_eq!(core.ws().groups[1].path, elsewhere);
    assert_eq!(core.ws().locate(other).map(|l| l.group), Some(1));
    assert!(core.ws().locate(first).is_some());
    let opened: Vec<Effect> = core.take_effects();
    assert_eq!(
        opened,
        vec![
            Effect::Opened(first),
            Effect::Opened(inside),
            Effect::Opened(other)
        ]
    );
}

#[test]
fn split_then_close_leaves_the_other_pane_focused() {
    let mut core = core();
    let first = open(&mut core, &folder("split"));
    let second = pane(core.apply(
        Source::Key,
        Command::Split {
            pane: None,
            axis: Axis::Horizontal,
            cwd: None,
            program: Vec::new(),
            size: None,
        },
    ));
    assert_eq!(core.ws().active_tab().map(|t| t.layout.len()), Some(2));
    assert_eq!(core.ws().focused_pane(), Some(second));
    core.take_effects();
    core.apply(Source::Msg, Command::Close(second))
        .expect("close");
    assert_eq!(core.take_effects(), vec![Effect::Closed(second)]);
    assert_eq!(core.ws().focused_pane(), Some(first));
    assert!(core.record(second).is_none(), "the registry forgot it");
}

#[test]
fn bad_commands_get_a_clear_error_and_change_nothing() {
    let mut core = core();
    let first = open(&mut core, &folder("bad"));
    let before = core.ws().clone();
    core.take_effects();
    let err = core
        .apply(Source::Msg, Command::Close(PaneId(999)))
        .unwrap_err();
    assert_eq!(err, "no pane 999");
    let err = core
        .apply(Source::Msg, Command::Focus(PaneId(999)))
        .unwrap_err();
    assert_eq!(err, "no pane 999");
    let err = core
        .apply(Source::Msg, new_tab(Some("/nonexistent/tern".into()), &[]))
        .unwrap_err();
    assert!(err.contains("is not a folder"), "{err}");
    let err = core.apply(Source::Key, Command::MoveTab(-1)).unwrap_err();
    assert!(err.contains("first"), "{err}");
    assert_eq!(*core.ws(), before, "nothing changed");
    assert!(core.record(first).is_some());
    // Each refusal is reported to the face, once.
    let statuses = core
        .take_effects()
        .into_iter()
        .filter(|e| matches!(e, Effect::Status(_)))
        .count();
    assert_eq!(statuses, 4);
}

/// The size a new pane starts at is part of the command that starts it (issue 44: no
/// size set on the core by hand before `apply`), so the journal keeps it and a replay
/// into a fresh core starts the pane at the same size. Catches a size set beside the
/// command (the pane would start at the pipeline's 80x24, here and in the replay).
#[test]
fn a_new_pane_starts_at_the_size_its_command_carries_and_replays_at_it() {
    let mut core = core();
    let dir = folder("sized");
    open(&mut core, &dir);
    let size = Some(tern_core::model::TermSize::new(50, 7));
    let tab = new_tab(Some(dir), &["sh", "-c", "stty size; exec sleep 60"]).sized(size);
    let sized = pane(core.apply(Source::Key, tab));
    let shows = |core: &WorkspaceCore, pane: PaneId| {
        tern_testkit::eventually(
            "the program reads its size",
            Duration::from_secs(20),
            || {
                core.pipeline()
                    .dump_screen(pane)
                    .and_then(|d| d.rows.into_iter().find(|r| !r.trim().is_empty()))
                    .map(|r| r.trim().to_owned())
            },
        )
    };
    assert_eq!(
        shows(&core, sized),
        "7 50",
        "the pty got the command's size"
    );
    let applied = core.journal().last().expect("journalled").change.clone();
    assert!(
        matches!(&applied, Command::NewTab { size: s, .. } if *s == size),
        "the journal keeps the size: {applied:?}"
    );
    let mut fresh = self::core();
    for again in core.journal() {
        fresh
            .apply(again.source, again.change.clone())
            .expect("replays");
    }
    let replayed = fresh.ws().focused_pane().expect("the replayed tab");
    assert_eq!(
        shows(&fresh, replayed),
        "7 50",
        "the replay starts it at that size"
    );
}

#[test]
fn an_exiting_program_closes_its_pane_and_the_last_one_says_so() {
    let mut core = core();
    let first = open(&mut core, &folder("exit"));
    let quick = pane(core.apply(Source::Msg, new_tab(None, &["sh", "-c", "exit 4"])));
    assert!(core.record(quick).is_some_and(|r| r.explicit));
    pump(&mut core, "the program's pane closes", |c| {
        c.record(quick).is_none()
    });
    let effects = core.take_effects();
    assert!(effects.contains(&Effect::Closed(quick)), "{effects:?}");
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::LastExited { .. })),
        "another pane is open: {effects:?}"
    );
    // The last pane going with its program ends the workspace with its status.
    core.apply(
        Source::Msg,
        Command::SendText {
            pane: first,
            text: "exit 7\n".into(),
        },
    )
    .expect("typed");
    pump(&mut core, "the shell exits", |c| c.record(first).is_none());
    assert!(
        core.take_effects()
            .contains(&Effect::LastExited { code: 7 })
    );
    let exits: Vec<_> = core
        .journal()
        .filter(|a| a.source == Source::Exit)
        .map(|a| a.command)
        .collect();
    assert_eq!(
        exits,
        ["close", "close"],
        "the exit policy acts through commands"
    );
}

#[test]
fn hold_keeps_the_pane_with_its_status() {
    let mut core = core();
    core.set_hold(true);
    open(&mut core, &folder("hold"));
    let quick = pane(core.apply(Source::Msg, new_tab(None, &["sh", "-c", "exit 5"])));
    pump(&mut core, "the program exits", |c| {
        c.record(quick).is_some_and(|r| r.exit.is_some())
    });
    let r = core.record(quick).expect("held");
    assert_eq!(r.exit.as_ref().map(|e| e.code), Some(5));
    assert!(!r.explicit, "no longer running");
    assert!(core.ws().locate(quick).is_some(), "still in its tab");
    let listed = core.list(|_| None);
    let info = listed.iter().find(|p| p.id == quick.0).expect("listed");
    assert_eq!(info.exit_status, Some(5));
    assert_eq!(info.activity, tern_core::ipc::Activity::Exited);
}

#[test]
fn a_saved_workspace_comes_back_with_its_groups_tabs_and_splits() {
    let mut core = core();
    let a = folder("restore-a");
    let b = folder("restore-b");
    open(&mut core, &a);
    core.apply(
        Source::Key,
        Command::Split {
            pane: None,
            axis: Axis::Vertical,
            cwd: None,
            program: Vec::new(),
            size: None,
        },
    )
    .expect("split");
    core.apply(Source::Msg, new_tab(Some(b.clone()), &[]))
        .expect("tab");
    let state = core.session_state(false);

    let mut again = self::core();
    restore(&mut again, &state);
    assert_eq!(again.ws().groups.len(), 2);
    assert_eq!(again.ws().groups[0].path, a);
    assert_eq!(again.ws().groups[1].path, b);
    assert_eq!(
        again.ws().groups[0].tabs[0].layout.len(),
        2,
        "the split came back"
    );
    assert_eq!(again.ws().active, core.ws().active);
    for p in again.ws().all_panes() {
        assert!(again.record(p).is_some(), "pane {p:?} is registered");
    }
    // A saved folder that is gone restores in the home folder, not nowhere.
    let mut gone = state.clone();
    if let tern_core::session::SavedLayout::Leaf(p) = &mut gone.worktrees[1].tabs[0].layout {
        p.cwd = "/nonexistent/tern".into();
    }
    let mut third = self::core();
    restore(&mut third, &gone);
    assert_eq!(third.ws().all_panes().len(), 3);
}

/// A notification goes to the desktop as the person's view says: not while the window
/// has focus and shows the pane (the default `Unfocused`), and when sent while the
/// window is unfocused the face is asked for the user's attention. The headless face
/// never says it sees anything. Catches routing that ignores what the face sees, or
/// that lost the attention request when the routing moved out of the window.
#[test]
fn a_notification_reaches_the_desktop_only_when_its_pane_is_out_of_sight() {
    let mut core = core();
    let p = open(&mut core, &folder("notify"));
    pump(&mut core, "the pane has a title", |c| c.record(p).is_some());
    let attention = |effects: &[Effect]| {
        effects
            .iter()
            .filter(|e| matches!(e, Effect::Attention { .. }))
            .count()
    };
    // Seen: focused window, pane on screen. The title that follows marks the
    // notification as routed.
    core.set_seen(true, [p]);
    core.pipeline()
        .feed(p, b"\x1b]9;while you watch\x07\x1b]2;seen-1\x07");
    pump(&mut core, "the first title", |c| {
        c.pane_title(p) == "seen-1"
    });
    assert_eq!(core.notifications_sent(), 0, "seen: not sent");
    assert_eq!(attention(&core.take_effects()), 0);
    // Focused window, the pane in another tab: sent, no attention asked.
    core.set_seen(true, []);
    core.pipeline()
        .feed(p, b"\x1b]9;Build finished\x07\x1b]2;hidden\x07");
    pump(&mut core, "the hidden title", |c| {
        c.pane_title(p) == "hidden"
    });
    assert_eq!(core.notifications_sent(), 1, "out of sight: sent");
    assert_eq!(attention(&core.take_effects()), 0, "the window has focus");
    // Unfocused: sent, and the face asked for attention.
    core.set_seen(false, []);
    core.pipeline().feed(
        p,
        b"\x1b]9;Agent needs your permission\x07\x1b]2;seen-2\x07",
    );
    pump(&mut core, "the second title", |c| {
        c.pane_title(p) == "seen-2"
    });
    assert_eq!(core.notifications_sent(), 2, "unfocused: sent");
    assert_eq!(attention(&core.take_effects()), 1, "and attention asked");
}

/// A title with a spinner frame before it (an agent at work) is named without the
/// frame; one that is only a frame falls back to the program or the folder. Catches a
/// face that shows the raw title (each frame would change the tab's text).
#[test]
fn a_spinner_frame_in_a_title_is_not_part_of_the_panes_name() {
    let mut core = core();
    let p = open(&mut core, &folder("spinner"));
    pump(&mut core, "the pane has a record", |c| {
        c.record(p).is_some()
    });
    core.pipeline()
        .feed(p, "\x1b]2;⠙ Claude Code\x07".as_bytes());
    pump(&mut core, "the title", |c| {
        c.record(p).is_some_and(|r| r.title == "⠙ Claude Code")
    });
    assert_eq!(core.pane_title(p), "Claude Code");
    core.pipeline()
        .feed(p, "\x1b]2;✳ Claude Code\x07".as_bytes());
    pump(&mut core, "the idle title", |c| {
        c.pane_title(p) == "✳ Claude Code"
    });
    core.pipeline().feed(p, "\x1b]2;⠋\x07".as_bytes());
    pump(&mut core, "a frame alone", |c| {
        c.record(p).is_some_and(|r| r.title == "⠋")
    });
    assert_ne!(core.pane_title(p), "⠋");
    assert!(!core.pane_title(p).is_empty());
}

/// A session save is due when the layout changes, not on every wake-up; with
/// `restore_last_screen` it waits (without blocking) for every pane's screen and
/// carries it. Both faces save by this schedule. Catches a schedule that saves on
/// every call, misses a split, or saves before the screens came.
#[test]
fn a_session_save_is_due_when_the_layout_changes_and_carries_the_screens() {
    use tern_core::workspace::SaveSchedule;
    let mut core = core();
    let mut config = core.config().clone();
    config.session.restore_last_screen = true;
    core.set_config(config);
    let p = open(&mut core, &folder("saves"));
    core.pipeline().feed(p, b"screen-marker-1\r\n");
    let mut saves = SaveSchedule::default();
    let state = eventually("a save due", Duration::from_secs(20), || saves.due(&core));
    let text = ron::to_string(&state).expect("ron");
    assert!(
        text.contains("screen-marker-1"),
        "the screen is saved: {text}"
    );
    assert!(saves.due(&core).is_none(), "nothing changed: nothing due");
    core.apply(
        Source::Key,
        Command::Split {
            pane: Some(p),
            axis: Axis::Horizontal,
            cwd: None,
            program: Vec::new(),
            size: None,
        },
    )
    .expect("split");
    let state = eventually("the split's save due", Duration::from_secs(20), || {
        saves.due(&core)
    });
    assert_eq!(state.worktrees.len(), 1);
    assert_eq!(
        ron::to_string(&state).expect("ron").matches("cwd:").count(),
        2,
        "two panes"
    );
}

/// A pane started before the workspace (the window's first) is adopted into its
/// folder's group as a tab, once: adopting it again is refused and changes nothing.
#[test]
fn an_early_pane_is_adopted_once() {
    let mut core = core();
    let dir = folder("adopt");
    let spec = core.config().spawn_spec(Some(dir.clone()));
    let early = core.pipeline().spawn(&spec).expect("spawn");
    let adopt = || Command::Adopt {
        pane: early,
        path: dir.clone(),
        launched: None,
    };
    assert_eq!(
        core.apply(Source::Start, adopt()).map(|o| pane(Ok(o))),
        Ok(early)
    );
    assert_eq!(core.ws().focused_pane(), Some(early));
    assert!(core.record(early).is_some(), "registered");
    let before = core.ws().all_panes();
    let again = core.apply(Source::Start, adopt());
    assert!(again.is_err(), "{again:?}");
    assert_eq!(core.ws().all_panes(), before, "nothing else changed");
}

/// Closing a pane whose shell runs a program asks first (the program's name); the
/// shell alone, or `confirm_on_close: false`, closes without asking. The rule is the
/// core's, so both faces' close questions agree. Catches a question for an idle shell,
/// or none for a running program.
#[test]
fn closing_a_running_program_asks_and_an_idle_shell_does_not() {
    let mut core = core();
    let p = open(&mut core, &folder("confirm"));
    pump(&mut core, "the shell starts", |c| {
        c.pipeline().process_info(p).is_some()
    });
    assert_eq!(core.programs_to_confirm(&[p], true), Vec::<String>::new());
    core.apply(
        Source::Key,
        Command::SendText {
            pane: p,
            text: "sleep 600\n".into(),
        },
    )
    .expect("send");
    // The shell runs sleep in front of it.
    pump(&mut core, "sleep runs", |c| {
        !c.programs_to_confirm(&[p], true).is_empty()
    });
    assert_eq!(core.programs_to_confirm(&[p], true), ["sleep"]);
    let mut config = core.config().clone();
    config.confirm_on_close = false;
    core.set_config(config);
    assert!(
        core.programs_to_confirm(&[p], true).is_empty(),
        "config off"
    );
}

/// An agent's report goes through `apply` like every change (the journal shows it): it
/// decides the pane's activity in the core's one rule, the conversation it names is
/// kept and saved, "next waiting" reaches it, and a report for a pane that is gone is
/// refused with its id. Catches a report path beside `apply` (no journal entry) and a
/// list that reads another rule than `WorkspaceCore::activity`.
#[test]
fn an_agents_report_is_a_command_that_decides_the_one_activity_and_is_saved() {
    use tern_core::agent::{AgentKind, AgentReport, AgentSession, SessionNews};
    use tern_core::pipeline::activity::{ActivitySource, ActivityState};
    let mut core = core();
    let a = open(&mut core, &folder("report-a"));
    let b = pane(core.apply(Source::Key, new_tab(None, &[])));
    let session = AgentSession::new(AgentKind::Claude, "3f0c2a9e-1b2c-4d5e-8f90-123456789abc")
        .expect("a safe id");
    let report = AgentReport {
        state: Some(ActivityState::Waiting),
        reason: Some("Allow Bash?".into()),
        via: ActivitySource::Hook,
        session: SessionNews::Current(session.clone()),
    };
    core.apply(Source::Msg, Command::Report { pane: a, report })
        .expect("reported");
    let last = core.journal().last().expect("journalled");
    assert_eq!((last.source, last.command), (Source::Msg, "report"));
    let activity = core.activity(a).expect("known");
    assert_eq!(
        (
            activity.state,
            activity.source,
            activity.wait_text.as_deref()
        ),
        (
            ActivityState::Waiting,
            ActivitySource::Hook,
            Some("Allow Bash?")
        )
    );
    let listed = core.list(|_| None);
    let entry = listed.iter().find(|p| p.id == a.0).expect("listed");
    assert_eq!(entry.activity, ActivityState::Waiting);
    assert_eq!(entry.agent_session.as_ref(), Some(&session));
    // The session file carries the conversation.
    let saved = core.session_state(false);
    let panes: Vec<_> = saved.worktrees[0]
        .tabs
        .iter()
        .flat_map(|t| t.layout.panes())
        .collect();
    assert!(
        panes.iter().any(|p| p.agent.as_ref() == Some(&session)),
        "{panes:?}"
    );
    // Next waiting: from the other tab, the reporting pane.
    assert_eq!(core.ws().focused_pane(), Some(b));
    assert_eq!(
        core.apply(Source::Key, Command::FocusNextWaiting),
        Ok(Outcome::Pane(a))
    );
    assert_eq!(core.ws().focused_pane(), Some(a));
    // A pane that is gone: refused, named.
    core.apply(Source::Key, Command::Close(b)).expect("closed");
    let gone = AgentReport {
        state: Some(ActivityState::Running),
        reason: None,
        via: ActivitySource::Hook,
        session: SessionNews::None,
    };
    let err = core
        .apply(
            Source::Msg,
            Command::Report {
                pane: b,
                report: gone,
            },
        )
        .expect_err("refused");
    assert!(err.contains(&format!("no pane {}", b.0)), "{err}");
}

/// Start-up with a saved session, as both faces start.
fn restore(core: &mut WorkspaceCore, state: &tern_core::session::SessionState) {
    let start = tern_core::workspace::Start {
        session: Some(state.clone()),
        last_screen: false,
        dir: std::env::temp_dir(),
        started: None,
        program: Vec::new(),
        size: None,
    };
    core.apply(Source::Start, Command::Start(Box::new(start)))
        .expect("started");
}
