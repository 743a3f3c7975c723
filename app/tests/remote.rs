//! Remote worktrees through the real window code (egui_kittest, headless): a real sshd
//! of the test's own on 127.0.0.1 and a tmux server on a socket of its own behind it,
//! reached with `ssh -F <test config> ternremote` as tern runs it.
//!
//! Skipped, with the reason printed, only when sshd, ssh, ssh-keygen or tmux are
//! missing (`scripts/test.sh` installs them).

use std::time::Duration;

use egui::accesskit::Role;
use egui::{Event, Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use tern::window::app::{Launch, TernApp};
use tern_core::model::TermSize;
use tern_core::pipeline::SpawnSpec;

mod common;
use common::Slot;
use common::sshd::{Sshd, available};
use tern::window::app::TestView as _;

const CTRL_SHIFT: Modifiers = Modifiers {
    alt: false,
    ctrl: true,
    shift: true,
    mac_cmd: false,
    command: true,
};

fn app<'a>(h: &'a Harness<'_, Slot>) -> &'a TernApp {
    h.state().as_ref().expect("the app started")
}

/// The focused pane's screen text.
fn screen(h: &Harness<'_, Slot>) -> String {
    app(h)
        .view()
        .map(|v| v.dump().rows.join("\n"))
        .unwrap_or_default()
}

fn active_group_name(h: &Harness<'_, Slot>) -> String {
    app(h)
        .core()
        .ws()
        .active_group()
        .map(|g| g.name.clone())
        .unwrap_or_default()
}

fn panes_in_tab(h: &Harness<'_, Slot>) -> usize {
    app(h)
        .core()
        .ws()
        .active_tab()
        .map_or(0, |t| t.layout.len())
}

fn step_until(
    h: &mut Harness<'_, Slot>,
    sshd: &Sshd,
    what: &str,
    done: impl Fn(&Harness<'_, Slot>) -> bool,
) {
    if common::step_until_or(h, Duration::from_secs(30), done) {
        return;
    }
    let note = app(h).core().remote_note(app(h).core().ws().active);
    let tmux_screen = std::process::Command::new("tmux")
        .arg("-S")
        .arg(sshd.socket())
        .args(["capture-pane", "-p"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    panic!(
        "{what}: group {:?}, tabs {:?}, note {note:?}, status {:?}, tmux's screen {tmux_screen:?}, remote panes {:?}, problems {:?}, focused pane {:?}, its model's screen {:?}, the model's reads {:?}, breadcrumbs {:?}, focused screen:\n{}\nsshd: {}",
        active_group_name(h),
        tab_titles(h),
        app(h).status(),
        app(h).core().remote_pane_stats(),
        app(h).core().remote_problems(),
        app(h).pane(),
        app(h)
            .pane()
            .and_then(|p| app(h).core().pipeline().dump_screen(p))
            .map(|d| d.rows.join("\n")),
        app(h)
            .core()
            .pipeline()
            .report()
            .iter()
            .map(|r| (
                r.pane,
                r.visible,
                r.bytes_read,
                r.bytes_parsed,
                r.window_bytes,
                r.paused_now
            ))
            .collect::<Vec<_>>(),
        app(h).core().pipeline().breadcrumbs(),
        screen(h),
        sshd.log()
    );
}

/// A temp dir with an sshd and a tmux session for `work` already running the marked
/// shell; the app's launch (config reaching them, a session file); the target text.
fn setup() -> (tempfile::TempDir, Sshd, Launch, String, String) {
    let dir = tempfile::Builder::new()
        .prefix("tern-app-remote")
        .tempdir()
        .expect("temp dir");
    let sshd = Sshd::start(dir.path());
    let (work_text, session_name) = sshd.agent_session(
        &dir.path().join("work"),
        "env PS1='$ ' sh -c 'echo remote-ready; exec sh'",
    );
    let config = dir.path().join("config.ron");
    std::fs::write(&config, sshd.tern_config()).expect("config");
    let mut launch = Launch::new(SpawnSpec::command("sh", &[]).size(TermSize::new(80, 24)));
    launch.config = tern::window::settings::ConfigSource::File(config);
    launch.session = Some(dir.path().join("session.ron"));
    (
        dir,
        sshd,
        launch,
        format!("ternremote:{work_text}"),
        session_name,
    )
}

fn tab_titles(h: &Harness<'_, Slot>) -> Vec<String> {
    app(h)
        .core()
        .ws()
        .active_group()
        .map(|g| g.tabs.iter().map(|t| app(h).core().tab_title(t)).collect())
        .unwrap_or_default()
}

#[test]
fn the_sidebar_adds_a_remote_whose_windows_are_tabs_and_a_lost_connection_comes_back() {
    if !available() {
        return;
    }
    let (dir, sshd, launch, target, session_name) = setup();
    // This one asks before closing (the others don't): a remote pane is always asked about.
    let config = dir.path().join("config.ron");
    let text = std::fs::read_to_string(&config).expect("config");
    std::fs::write(
        &config,
        text.replace("confirm_on_close: false", "confirm_on_close: true"),
    )
    .expect("config");
    let mut h = common::app_harness(launch, egui::vec2(1000.0, 600.0));
    step_until(&mut h, &sshd, "the local shell", |h| {
        app(h).view().is_some()
    });
    // "Add repository" in the sidebar, with the remote target typed in.
    h.key_press_modifiers(CTRL_SHIFT, Key::B);
    // The sidebar opens (its panel settles before the button is clicked).
    let last = std::cell::Cell::new(None);
    step_until(&mut h, &sshd, "the sidebar's Add button in place", |h| {
        let now = h.query_by_label("Add").map(|n| n.rect());
        now.is_some() && now == last.replace(now)
    });
    h.state_mut()
        .as_mut()
        .expect("the app")
        .sidebar_mut()
        .add_path = target.clone();
    // Through accesskit: the button is found wherever the sidebar's rows (the git
    // thread's answers for the local folder arrive any time) have moved it.
    h.get_by_label("Add").click_accesskit();
    step_until(&mut h, &sshd, "the remote tab", |h| {
        active_group_name(h) == target && screen(h).contains("remote-ready")
    });
    assert!(
        app(&h).sidebar().add_path.is_empty(),
        "the field is cleared once the remote is added"
    );
    // A new tab in the remote group is a tmux window; tmux's names are the titles,
    // in tmux's order.
    h.key_press_modifiers(CTRL_SHIFT, Key::T);
    step_until(&mut h, &sshd, "a second tab from tmux", |h| {
        tab_titles(h).len() == 2
    });
    let windows = sshd.tmux(&["list-windows", "-t", &session_name, "-F", "#{window_id}"]);
    assert_eq!(
        windows.lines().count(),
        2,
        "tmux made the window: {windows}"
    );
    sshd.tmux(&["rename-window", "-t", &format!("{session_name}:0"), "first"]);
    sshd.tmux(&[
        "rename-window",
        "-t",
        &format!("{session_name}:1"),
        "second",
    ]);
    step_until(&mut h, &sshd, "the tabs renamed", |h| {
        tab_titles(h) == ["first", "second"]
    });
    sshd.tmux(&["kill-window", "-t", &format!("{session_name}:1")]);
    step_until(&mut h, &sshd, "the closed window's tab gone", |h| {
        tab_titles(h) == ["first"]
    });

    // The server goes away: the group says so and tries again after the backoff's wait.
    sshd.tmux(&["kill-server"]);
    step_until(&mut h, &sshd, "the disconnection shown", |h| {
        app(h)
            .core()
            .remote_note(app(h).core().ws().active)
            .is_some_and(|n| n.contains("disconnected") && n.contains("reconnecting"))
    });
    // The next attempt starts a new session there (`new-session -A`): a tab again.
    step_until(&mut h, &sshd, "connected again", |h| {
        app(h)
            .core()
            .remote_note(app(h).core().ws().active)
            .is_none()
            && tab_titles(h).len() == 1
    });
    // Closing a pane in tern kills its tmux pane.
    h.key_press_modifiers(CTRL_SHIFT, Key::D);
    step_until(&mut h, &sshd, "two panes", |h| panes_in_tab(h) == 2);
    // Closing a remote pane asks first (what runs there is not seen from here); Enter
    // closes.
    h.key_press_modifiers(CTRL_SHIFT, Key::W);
    step_until(&mut h, &sshd, "the close question", |h| {
        app(h).overlay() == Some("confirm-close")
    });
    assert_eq!(panes_in_tab(&h), 2, "nothing closed before the answer");
    h.key_press(Key::Enter);
    step_until(&mut h, &sshd, "one pane again", |h| panes_in_tab(h) == 1);
    tern_testkit::eventually(
        "tmux drops the closed pane",
        Duration::from_secs(30),
        || {
            h.step();
            let panes = sshd.tmux(&["list-panes", "-t", &session_name, "-F", "#{pane_id}"]);
            (panes.lines().count() == 1)
                .then_some(())
                .ok_or_else(|| format!("tmux has {panes}"))
        },
    );
    // Forgetting the remote detaches: the group goes, tmux's pane stays.
    let key = std::path::PathBuf::from(&target);
    h.state_mut().as_mut().expect("the app").forget_remote(&key);
    h.step();
    assert!(
        app(&h).core().ws().groups.iter().all(|g| g.path != key),
        "the group is gone"
    );
    let panes = sshd.tmux(&["list-panes", "-t", &session_name, "-F", "#{pane_dead}"]);
    assert_eq!(panes.trim(), "0", "the remote program runs on");
}

#[test]
fn a_remote_that_cannot_connect_shows_ssh_s_error_and_a_missing_tmux_is_not_retried() {
    if !available() {
        return;
    }
    let (dir, sshd, launch, _target, _) = setup();
    let mut h = common::app_harness(launch.clone(), egui::vec2(1000.0, 600.0));
    step_until(&mut h, &sshd, "the local shell", |h| {
        app(h).view().is_some()
    });
    // A host the ssh config does not know and DNS cannot find: ssh's own words show.
    h.state_mut()
        .as_mut()
        .expect("the app")
        .add_remote("nosuchhost.invalid:/srv")
        .expect("a remote target");
    step_until(&mut h, &sshd, "ssh's error", |h| {
        app(h)
            .core()
            .remote_note(app(h).core().ws().active)
            .is_some_and(|n| {
                n.contains("status 255") && n.contains("nosuchhost") && n.contains("reconnecting")
            })
    });
    drop(h);

    // tmux missing on the host: said once, not retried.
    let config = dir.path().join("no-tmux.ron");
    let text = sshd
        .tern_config()
        .replace("tmux: [\"tmux\"", "tmux: [\"/nonexistent/tmux\"");
    std::fs::write(&config, text).expect("config");
    let mut launch = launch;
    launch.config = tern::window::settings::ConfigSource::File(config);
    launch.session = None;
    let mut h = common::app_harness(launch, egui::vec2(1000.0, 600.0));
    step_until(&mut h, &sshd, "the local shell", |h| {
        app(h).view().is_some()
    });
    h.state_mut()
        .as_mut()
        .expect("the app")
        .add_remote(&format!("ternremote:{}", dir.path().display()))
        .expect("a remote target");
    step_until(&mut h, &sshd, "the version problem", |h| {
        app(h)
            .core()
            .remote_note(app(h).core().ws().active)
            .is_some_and(|n| n.contains("tmux") && n.contains("not retrying"))
    });
}

#[test]
fn a_remote_worktree_shows_types_splits_detaches_and_comes_back() {
    if !available() {
        return;
    }
    // The agent: a shell already running in the session tern attaches to.
    let (dir, sshd, launch, target, session_name) = setup();
    let work = dir.path().join("work");
    let session = dir.path().join("session.ron");
    let group = target.clone();

    let mut h = common::app_harness(launch.clone(), egui::vec2(1000.0, 600.0));
    step_until(&mut h, &sshd, "the local shell", |h| {
        app(h).view().is_some()
    });
    h.state_mut()
        .as_mut()
        .expect("the app")
        .add_remote(&target)
        .expect("a remote target");
    step_until(
        &mut h,
        &sshd,
        "the remote window as a tab, its screen shown",
        |h| active_group_name(h) == group && screen(h).contains("remote-ready"),
    );

    // Typing reaches the remote shell (it writes a file and prints a marker).
    h.event(Event::Text(
        "echo $((6*7))x > typed.txt; echo done-$((6*7))".into(),
    ));
    h.key_press(Key::Enter);
    step_until(&mut h, &sshd, "the remote shell's answer", |h| {
        screen(h).contains("done-42")
    });
    assert_eq!(
        std::fs::read_to_string(work.join("typed.txt")).expect("the typed command ran"),
        "42x\n"
    );

    // A split made in tern is tmux's: two panes once tmux's layout comes.
    h.key_press_modifiers(CTRL_SHIFT, Key::D);
    step_until(&mut h, &sshd, "two panes after tmux's layout", |h| {
        panes_in_tab(h) == 2 && h.get_all_by_role(Role::Terminal).count() == 2
    });
    let listed = sshd.tmux(&["list-panes", "-t", &session_name, "-F", "#{pane_id}"]);
    assert_eq!(listed.lines().count(), 2, "tmux has the split: {listed}");
    let active = |sshd: &Sshd| {
        sshd.tmux(&["display-message", "-p", "-t", &session_name, "#{pane_id}"])
            .trim()
            .to_owned()
    };
    assert_eq!(active(&sshd), "%1", "the new pane is tmux's active one");
    // tern's focus moves tmux's.
    h.key_press_modifiers(CTRL_SHIFT, Key::ArrowLeft);
    step_until(&mut h, &sshd, "the left pane focused", |h| {
        app(h).pane() == app(h).core().ws().active_tab().map(|t| t.layout.panes()[0])
    });
    tern_testkit::eventually("tmux's focus follows", Duration::from_secs(30), || {
        h.step();
        active(&sshd) == "%0"
    });
    // The client is as big as the pane area, and follows the window's size (tmux
    // 3.3a leaves a control client's height out of its formats: the window's size).
    let client = |sshd: &Sshd| {
        sshd.tmux(&[
            "display-message",
            "-p",
            "-t",
            &session_name,
            "#{window_width} #{window_height}",
        ])
        .trim()
        .to_owned()
    };
    let area = |h: &Harness<'_, Slot>| {
        let (cols, rows) = app(h).core().area_cells().expect("drawn");
        format!("{cols} {rows}")
    };
    assert_eq!(client(&sshd), area(&h));
    h.set_size(egui::vec2(800.0, 450.0));
    h.step();
    let smaller = area(&h);
    tern_testkit::eventually(
        format!("the client {smaller}"),
        Duration::from_secs(30),
        || {
            h.step();
            let now = client(&sshd);
            (now == smaller)
                .then_some(())
                .ok_or_else(|| format!("the client is {now}"))
        },
    );

    // The session remembers the remote worktree; dropping the app detaches.
    step_until(&mut h, &sshd, "the session saved", |_| {
        std::fs::read_to_string(&session).is_ok_and(|s| s.contains(&target))
    });
    drop(h);
    let panes = sshd.panes(&session_name);
    assert!(
        panes.lines().count() == 2 && panes.starts_with("0 sh"),
        "the programs run on after the window closed: {panes}"
    );

    // A new window restored from the session attaches again: the same screen, split.
    let mut h = common::app_harness(launch, egui::vec2(1000.0, 600.0));
    step_until(&mut h, &sshd, "the remote tab again", |h| {
        active_group_name(h) == group && panes_in_tab(h) == 2
    });
    // The first pane's screen comes back (tmux's capture, written in at attach).
    step_until(&mut h, &sshd, "the first pane's screen again", |h| {
        let panes = app(h)
            .core()
            .ws()
            .active_tab()
            .map(|t| t.layout.panes())
            .unwrap_or_default();
        panes.iter().any(|p| {
            app(h)
                .pane_ui(*p)
                .and_then(|u| u.view())
                .is_some_and(|v| v.dump().rows.iter().any(|r| r.contains("done-42")))
        })
    });
}

/// Search everywhere covers a remote (tmux) pane as far as the history held here goes,
/// and says so (`tern msg search`'s reply, built by the same `MsgSearch` the socket
/// uses). Catches: remote panes left out of `search_targets`, or no note for them.
#[test]
fn search_covers_a_remote_pane_and_says_how_far() {
    use tern_core::ipc::Reply;
    use tern_core::pipeline::search_all::PanesQuery;
    use tern_core::workspace::search::{MsgSearch, SearchScope};
    if !available() {
        return;
    }
    let (_dir, sshd, launch, target, _session) = setup();
    let mut h = common::app_harness(launch, egui::vec2(1000.0, 600.0));
    step_until(&mut h, &sshd, "the local shell", |h| {
        app(h).view().is_some()
    });
    h.state_mut()
        .as_mut()
        .expect("the app")
        .add_remote(&target)
        .expect("a remote target");
    step_until(&mut h, &sshd, "the remote window's screen", |h| {
        screen(h).contains("remote-ready")
    });
    h.event(Event::Text("echo needle-$((6*7))".into()));
    h.key_press(Key::Enter);
    step_until(&mut h, &sshd, "the remote shell's answer", |h| {
        screen(h).contains("needle-42")
    });
    let core = app(&h).core();
    let targets = core
        .search_targets(&SearchScope::Everywhere, |_| None)
        .expect("panes");
    let remote: Vec<u64> = targets
        .iter()
        .filter(|t| t.remote)
        .map(|t| t.pane.0)
        .collect();
    assert_eq!(remote.len(), 1, "one remote pane among {targets:?}");
    let reply = MsgSearch::start(
        core.pipeline(),
        targets,
        &PanesQuery::new("needle-42", false),
    )
    .expect("the query compiles")
    .run()
    .expect("the search answers");
    let Reply::Matches { matches, notes, .. } = reply else {
        panic!("not a search reply: {reply:?}");
    };
    assert!(
        matches
            .iter()
            .any(|m| m.pane == remote[0] && m.text.trim_end() == "needle-42"),
        "the remote pane's output line: {matches:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains(&format!("pane {} is remote", remote[0]))
                && n.contains("history held here")),
        "{notes:?}"
    );
}
