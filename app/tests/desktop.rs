//! The window as a desktop citizen, through the real window code (egui_kittest, real
//! ptys): a pane closes when its program exits (its tab, then the window, which sets
//! the status `tern -e` exits with), `--hold` and `exit_behavior` keep it; closing a
//! tab or the window over a running program asks first (the window's close request is
//! cancelled until answered); `tern msg` requests open, list, type into, focus and
//! close panes; Ctrl+0 returns to the configured text size.

use std::time::Duration;

use egui::{Key, Modifiers, ViewportCommand, ViewportEvent, ViewportId};
use egui_kittest::Harness;
use tern::desktop::Desktop;
use tern::window::app::{Launch, TernApp};
use tern_core::ipc::{Activity, Reply, Request};
use tern_core::model::TermSize;
use tern_core::pipeline::SpawnSpec;

mod common;
use common::Slot;
use tern::window::app::TestView as _;

const CTRL_SHIFT: Modifiers = Modifiers {
    alt: false,
    ctrl: true,
    shift: true,
    mac_cmd: false,
    command: true,
};

/// One pane running `sh -c script`, with the real default exit behaviour (no hold).
fn launch(script: &str, desktop: Desktop) -> Launch {
    Launch {
        desktop,
        ..Launch::new(SpawnSpec::command("sh", &["-c", script]).size(TermSize::new(80, 24)))
    }
}

fn harness(launch: Launch) -> Harness<'static, Slot> {
    common::app_harness(launch, egui::vec2(1000.0, 600.0))
}

fn app<'a>(h: &'a Harness<'_, Slot>) -> &'a TernApp {
    h.state().as_ref().expect("the app started")
}

fn app_mut<'a>(h: &'a mut Harness<'_, Slot>) -> &'a mut TernApp {
    h.state_mut().as_mut().expect("the app started")
}

fn step_until(h: &mut Harness<'_, Slot>, what: &str, done: impl Fn(&Harness<'_, Slot>) -> bool) {
    if common::step_until_or(h, Duration::from_secs(30), done) {
        return;
    }
    panic!("{what}: panes {:?}", app(h).pane_infos());
}

fn panes(h: &Harness<'_, Slot>) -> usize {
    app(h).core().ws().all_panes().len()
}

/// Whether the last frame asked the window to close / cancelled a close.
fn sent(h: &Harness<'_, Slot>, wanted: &ViewportCommand) -> bool {
    h.output()
        .viewport_output
        .get(&ViewportId::ROOT)
        .is_some_and(|v| v.commands.contains(wanted))
}

#[test]
fn the_last_pane_exiting_closes_the_window_with_its_status() {
    // The app then sends `ViewportCommand::Close`; that the real window goes and
    // `tern -e` exits 3 is proven through the binary in `desktop_xvfb.rs` (in kittest
    // the command is not reliably in the last frame's output).
    let desktop = Desktop::default();
    let mut h = harness(launch("exit 3", desktop.clone()));
    step_until(&mut h, "the pane closed", |h| panes(h) == 0);
    assert_eq!(
        desktop.exit_status(),
        Some(3),
        "tern -e exits with the status"
    );
}

#[test]
fn a_pane_exiting_beside_others_closes_only_itself() {
    let mut h = harness(launch("exec sh", Desktop::default()));
    step_until(&mut h, "the shell's view", |h| app(h).view().is_some());
    h.key_press_modifiers(CTRL_SHIFT, Key::D);
    step_until(&mut h, "two panes", |h| panes(h) == 2);
    let second = app(&h).pane().expect("focused");
    app(&h).core().pipeline().write(second, b"exit 5\n");
    step_until(&mut h, "the exited pane closed", |h| panes(h) == 1);
    assert!(!sent(&h, &ViewportCommand::Close), "the window stays");
    assert_ne!(app(&h).pane(), Some(second));
}

#[test]
fn hold_keeps_the_pane_with_a_line_saying_how_it_ended() {
    let desktop = Desktop {
        hold: true,
        ..Desktop::default()
    };
    let mut h = harness(launch("exit 3", desktop.clone()));
    step_until(&mut h, "the exit is shown", |h| app(h).exited().is_some());
    assert_eq!(app(&h).exited(), Some("[process exited with status 3]"));
    for _ in 0..10 {
        h.step();
    }
    assert_eq!(panes(&h), 1, "held");
    assert!(!sent(&h, &ViewportCommand::Close));
    let infos = app(&h).pane_infos();
    assert_eq!(infos[0].activity, Activity::Exited);
    assert_eq!(infos[0].exit_status, Some(3));
}

#[test]
fn hold_on_failure_closes_after_success_and_holds_after_failure() {
    let on_failure = || Desktop {
        overrides: vec!["exit_behavior=HoldOnFailure".into()],
        ..Desktop::default()
    };
    let ok = on_failure();
    let mut h = harness(launch("exit 0", ok.clone()));
    step_until(&mut h, "closed after success", |h| panes(h) == 0);
    assert_eq!(ok.exit_status(), Some(0));

    let mut h = harness(launch("exit 1", on_failure()));
    step_until(&mut h, "held after failure", |h| app(h).exited().is_some());
    h.step();
    assert_eq!(panes(&h), 1);
}

/// Types a line into the focused pane.
fn type_line(h: &mut Harness<'_, Slot>, text: &str) {
    h.event(egui::Event::Text(text.into()));
    h.key_press(Key::Enter);
    h.step();
}

/// A shell running `sleep 300` (as the process table shows it).
fn running_sleep(h: &mut Harness<'_, Slot>) {
    step_until(h, "the shell's view", |h| app(h).view().is_some());
    type_line(h, "sleep 300");
    step_until(h, "sleep runs", |h| {
        let p = app(h).pane().expect("focused");
        app(h)
            .core()
            .record(p)
            .is_some_and(|u| u.foreground.as_deref() == Some("sleep"))
    });
}

#[test]
fn closing_a_tab_with_a_running_program_asks_first() {
    let mut h = harness(launch("exec sh", Desktop::default()));
    step_until(&mut h, "the shell's view", |h| app(h).view().is_some());
    h.key_press_modifiers(CTRL_SHIFT, Key::T);
    step_until(&mut h, "a second tab", |h| panes(h) == 2);
    running_sleep(&mut h);
    let close_tab = Modifiers::CTRL | Modifiers::SHIFT | Modifiers::ALT;
    h.key_press_modifiers(close_tab, Key::W);
    h.step();
    assert_eq!(app(&h).close_question(), Some("close-tab"));
    assert_eq!(panes(&h), 2, "nothing closed yet");
    h.key_press(Key::Escape);
    h.step();
    assert_eq!(app(&h).close_question(), None);
    assert_eq!(panes(&h), 2, "cancel keeps the tab");
    h.key_press_modifiers(close_tab, Key::W);
    h.step();
    h.key_press(Key::Enter);
    step_until(&mut h, "closed after confirming", |h| panes(h) == 1);
    // A tab whose shell waits at its prompt closes without a question.
    h.key_press_modifiers(CTRL_SHIFT, Key::T);
    step_until(&mut h, "another tab", |h| panes(h) == 2);
    step_until(&mut h, "its shell is at the prompt", |h| {
        let p = app(h).pane().expect("focused");
        app(h)
            .core()
            .record(p)
            .is_some_and(|u| u.looked_up && u.foreground.is_none())
    });
    h.key_press_modifiers(close_tab, Key::W);
    step_until(&mut h, "closed at once", |h| panes(h) == 1);
    assert_eq!(app(&h).close_question(), None);
}

/// The window manager's close button.
fn request_window_close(h: &mut Harness<'_, Slot>) {
    h.input_mut()
        .viewports
        .entry(ViewportId::ROOT)
        .or_default()
        .events
        .push(ViewportEvent::Close);
    h.step();
}

#[test]
fn closing_the_window_with_a_running_program_is_cancelled_until_answered() {
    let mut h = harness(launch("exec sh", Desktop::default()));
    running_sleep(&mut h);
    request_window_close(&mut h);
    assert!(sent(&h, &ViewportCommand::CancelClose), "close cancelled");
    assert_eq!(app(&h).close_question(), Some("close-window"));
    h.key_press(Key::Escape);
    h.step();
    assert_eq!(app(&h).close_question(), None);
    assert_eq!(panes(&h), 1);
    request_window_close(&mut h);
    assert!(sent(&h, &ViewportCommand::CancelClose));
    // (A key press is two events, so two frames: the Close is sent in the first.)
    h.key_press(Key::Enter);
    h.step();
    assert_eq!(app(&h).close_question(), None, "answered");
    // Confirmed: the close that follows is not cancelled again.
    request_window_close(&mut h);
    assert!(!sent(&h, &ViewportCommand::CancelClose));
}

#[test]
fn closing_the_window_over_idle_shells_does_not_ask() {
    let mut h = harness(launch("exec sh", Desktop::default()));
    step_until(&mut h, "the shell is looked up", |h| {
        let p = app(h).pane().expect("focused");
        app(h).core().record(p).is_some_and(|u| u.looked_up)
    });
    request_window_close(&mut h);
    assert!(!sent(&h, &ViewportCommand::CancelClose));
    assert_eq!(app(&h).close_question(), None);
}

#[test]
fn msg_requests_open_list_type_focus_and_close_panes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = dir.path().canonicalize().expect("canonical");
    let mut h = harness(launch("exec sh", Desktop::default()));
    step_until(&mut h, "the shell's view", |h| app(h).view().is_some());
    let first = app(&h).pane().expect("focused").0;
    let reply = app_mut(&mut h).msg_request(Request::NewTab {
        cwd: Some(folder.clone()),
        title: Some("agent".into()),
        command: vec!["cat".into()],
    });
    let Ok(Reply::Pane { pane }) = reply else {
        panic!("{reply:?}")
    };
    h.step();
    let infos = app(&h).pane_infos();
    let info = infos.iter().find(|i| i.id == pane).expect("listed");
    assert_eq!(info.cwd.as_deref(), Some(folder.as_path()));
    // `cat` waits for input, silent: idle, as the window's mark says (one rule; a
    // program in front is not "running" by being there).
    assert_eq!(info.activity, Activity::Idle);
    assert!(info.focused, "the new tab is shown");
    assert_eq!(
        app(&h)
            .core()
            .tab_title(app(&h).core().ws().active_tab().unwrap()),
        "agent"
    );
    // send-text reaches the program: cat echoes it back.
    let sent_text = app_mut(&mut h).msg_request(Request::SendText {
        pane,
        text: "over the socket\n".into(),
    });
    assert_eq!(sent_text, Ok(Reply::Done {}));
    step_until(&mut h, "cat echoed", |h| {
        app(h).view().is_some_and(|v| {
            v.dump()
                .rows
                .iter()
                .filter(|r| *r == "over the socket")
                .count()
                == 2
        })
    });
    // Focus moves back; close removes the pane; unknown ids are errors.
    assert_eq!(
        app_mut(&mut h).msg_request(Request::Focus { pane: first }),
        Ok(Reply::Done {})
    );
    assert_eq!(app(&h).pane().map(|p| p.0), Some(first));
    assert_eq!(
        app_mut(&mut h).msg_request(Request::Close { pane }),
        Ok(Reply::Done {})
    );
    h.step();
    assert!(app(&h).pane_infos().iter().all(|i| i.id != pane));
    assert_eq!(
        app_mut(&mut h).msg_request(Request::Focus { pane: 999 }),
        Err("no pane 999".into())
    );
    let bad_dir = app_mut(&mut h).msg_request(Request::NewTab {
        cwd: Some(folder.join("missing")),
        title: None,
        command: Vec::new(),
    });
    assert!(bad_dir.is_err_and(|e| e.contains("is not a folder")));
}

#[test]
fn ctrl_0_goes_back_to_the_configured_size() {
    let desktop = Desktop {
        overrides: vec!["font.size=20".into()],
        ..Desktop::default()
    };
    let mut h = harness(launch("exec sh", desktop));
    step_until(&mut h, "the shell's view", |h| app(h).view().is_some());
    assert_eq!(app(&h).font_size(), 20.0, "-o font.size applies");
    h.key_press_modifiers(Modifiers::CTRL, Key::Equals);
    h.step();
    assert!(app(&h).font_size() > 20.0, "zoomed in");
    h.key_press_modifiers(Modifiers::CTRL, Key::Num0);
    h.step();
    assert_eq!(
        app(&h).font_size(),
        20.0,
        "back to the configured 20, not 15"
    );
}

/// Keys and `tern msg` reach the workspace through the same code: the core's
/// `apply`, whose journal records every change with who asked. A key handler or a
/// socket request that changed the workspace beside it (as `tern msg` once did, with
/// its own new-tab and split) leaves no entry and fails here; so does a request that
/// never reaches the window's loop (the socket is the real one).
#[test]
fn keys_and_msg_requests_reach_the_same_command_code() {
    use tern_core::workspace::Source;
    let dir = tempfile::tempdir().expect("temp dir");
    let waker = tern::desktop::LateWaker::default();
    let remote = tern::desktop::Ipc::bind(&dir.path().join("tern.sock"), waker).expect("bind");
    let socket = remote.path().to_owned();
    let desktop = Desktop {
        ipc: Some(std::sync::Arc::new(remote)),
        ..Desktop::default()
    };
    let mut h = harness(launch("exec sh", desktop));
    step_until(&mut h, "the shell's view", |h| app(h).view().is_some());
    let journal = |h: &Harness<'_, Slot>| -> Vec<(Source, &'static str)> {
        app(h)
            .core()
            .journal()
            .filter(|a| a.result.is_ok())
            .map(|a| (a.source, a.command))
            .collect()
    };
    // The first pane joined its group through the core too (it was started before
    // the window: adopted by the core's start-up).
    assert_eq!(journal(&h).first(), Some(&(Source::Start, "start")));
    h.key_press_modifiers(CTRL_SHIFT, Key::T);
    step_until(&mut h, "a second tab", |h| panes(h) == 2);
    h.key_press_modifiers(CTRL_SHIFT, Key::D);
    step_until(&mut h, "a split", |h| panes(h) == 3);
    let by_keys = journal(&h);
    assert!(by_keys.contains(&(Source::Key, "new-tab")), "{by_keys:?}");
    assert!(by_keys.contains(&(Source::Key, "split")), "{by_keys:?}");

    // The same two through the socket, answered by the window's loop.
    let client = std::thread::spawn(move || {
        let tab = tern_core::ipc::client::send(
            &socket,
            Request::NewTab {
                cwd: None,
                title: None,
                command: Vec::new(),
            },
        );
        let split = tern_core::ipc::client::send(
            &socket,
            Request::Split {
                pane: None,
                direction: tern_core::ipc::SplitDirection::Down,
                cwd: None,
                command: Vec::new(),
            },
        );
        (tab, split)
    });
    step_until(&mut h, "two more panes by tern msg", |h| panes(h) == 5);
    while !client.is_finished() {
        h.step();
    }
    let (tab, split) = client.join().expect("client thread");
    assert!(matches!(tab, Ok(Reply::Pane { .. })), "{tab:?}");
    assert!(matches!(split, Ok(Reply::Pane { .. })), "{split:?}");
    let all = journal(&h);
    assert!(all.contains(&(Source::Msg, "new-tab")), "{all:?}");
    assert!(all.contains(&(Source::Msg, "split")), "{all:?}");
}
