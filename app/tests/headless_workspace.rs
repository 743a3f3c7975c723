//! `tern --headless` with no program, through the binary as a user starts it: the
//! workspace served over `tern msg` with no display — tabs, splits, text typed and
//! read back, history, closing, bad requests, SIGTERM saving the session and the next
//! start restoring it.

mod common;

use common::headless::{Served, pane_id, scratch};

#[test]
fn a_headless_workspace_opens_tabs_and_reads_their_text() {
    let dir = scratch("hw-tabs");
    let served = Served::start(&dir, &["--cols", "80", "--rows", "24"]);
    let panes = served.list();
    assert_eq!(panes.len(), 1, "one shell at start: {panes:?}");
    let first = panes[0]["id"].as_u64().expect("id");
    assert_eq!(panes[0]["focused"], true);

    // Typed text reaches the shell, and its screen reads back as text.
    served.ok(&[
        "send-text",
        "--pane",
        &first.to_string(),
        "echo hello-$((6*7))\n",
    ]);
    // (Typed before the shell's first prompt, the output may follow that prompt on
    // its line: "# hello-42".)
    served.wait_text(first, &[], |t| {
        t.lines()
            .any(|l| l.trim_end().ends_with(" hello-42") || l == "hello-42")
    });

    // A tab running a program: its history, and its last lines.
    let tab = pane_id(&served.ok(&[
        "new-tab",
        "--title",
        "numbers",
        "--",
        "sh",
        "-c",
        "seq 1 3000; exec sleep 600",
    ]));
    let all = served.wait_text(tab, &["--scrollback"], |t| t.lines().any(|l| l == "3000"));
    let numbers: Vec<u32> = all.lines().filter_map(|l| l.parse().ok()).collect();
    assert_eq!(
        numbers,
        (1..=3000).collect::<Vec<_>>(),
        "every line, oldest first"
    );
    let last = served.ok(&["get-text", "--pane", &tab.to_string(), "--lines", "40"]);
    let tail: Vec<&str> = last.lines().collect();
    assert_eq!(tail.len(), 40, "{last}");
    assert_eq!(
        (tail[0], tail[39]),
        ("2961", "3000"),
        "the last 40 reach into history"
    );

    let panes = served.list();
    let listed = panes
        .iter()
        .find(|p| p["id"] == tab)
        .expect("the new tab is listed");
    assert_eq!(listed["title"], "numbers");
    assert_eq!(listed["tab"], 1);
    assert_eq!(listed["focused"], true, "a new tab takes the focus");
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn splits_close_and_bad_requests_change_nothing_else() {
    let dir = scratch("hw-split");
    let served = Served::start(&dir, &[]);
    let first = served.list()[0]["id"].as_u64().expect("id");
    let split =
        pane_id(&served.ok(&["split", "--pane", &first.to_string(), "--direction", "down"]));
    let panes = served.list();
    assert_eq!(panes.len(), 2);
    assert!(
        panes.iter().all(|p| p["tab"] == 0),
        "a split stays in its tab: {panes:?}"
    );

    // Requests naming a pane that is not there: a clear error, nothing changed.
    for args in [
        vec!["get-text", "--pane", "999"],
        vec!["focus", "--pane", "999"],
        vec!["send-text", "--pane", "999", "x"],
        vec!["split", "--pane", "999"],
    ] {
        let out = served.msg(&args);
        assert!(!out.status.success(), "{args:?} was accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("no pane 999"), "{args:?}: {err}");
    }
    let out = served.msg(&["new-tab", "--cwd", "/nonexistent/folder"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a folder"));
    assert_eq!(
        served.list().len(),
        2,
        "the refused requests changed nothing"
    );

    served.ok(&["close", "--pane", &split.to_string()]);
    let panes = served.list();
    assert_eq!(panes.len(), 1);
    assert_eq!(panes[0]["id"], first);
    let out = served.msg(&["get-text", "--pane", &split.to_string()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("no pane {split}")));
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn sigterm_saves_the_workspace_and_the_next_start_restores_it() {
    let dir = scratch("hw-restore");
    let work = dir.join("home/work");
    std::fs::create_dir_all(&work).expect("work folder");
    let served = Served::start(&dir, &[]);
    let work_s = work.display().to_string();
    served.ok(&["new-tab", "--cwd", &work_s]);
    served.ok(&["new-tab", "--cwd", &work_s]);
    let before = served.list();
    assert_eq!(before.len(), 3);
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err}");
    let session = std::fs::read_to_string(dir.join("session.ron")).expect("session saved");
    assert!(session.contains(&work_s), "{session}");

    let again = Served::start(&dir, &[]);
    let after = again.list();
    let folders = |panes: &[serde_json::Value]| {
        let mut f: Vec<String> = panes
            .iter()
            .map(|p| p["worktree_path"].as_str().unwrap_or_default().to_owned())
            .collect();
        f.sort();
        f
    };
    assert_eq!(
        folders(&after),
        folders(&before),
        "the same worktrees and tabs"
    );
    let (code, err) = again.stop();
    assert_eq!(code, Some(0), "{err}");
}

/// `tern msg wait --for exit` on `pane` (20 s at most).
fn wait_exit(served: &Served, pane: u64) {
    served.ok(&[
        "wait",
        "--pane",
        &pane.to_string(),
        "--for",
        "exit",
        "--timeout",
        "20",
    ]);
}

#[test]
fn a_program_that_exits_closes_its_pane_and_hold_keeps_it() {
    let dir = scratch("hw-exit");
    let served = Served::start(&dir, &[]);
    let quick = pane_id(&served.ok(&["new-tab", "--", "sh", "-c", "exit 3"]));
    wait_exit(&served, quick);
    let panes = served.list();
    assert!(panes.iter().all(|p| p["id"] != quick), "closed: {panes:?}");
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err}");

    let dir = scratch("hw-hold");
    let served = Served::start(&dir, &["--hold"]);
    let quick = pane_id(&served.ok(&["new-tab", "--", "sh", "-c", "echo bye; exit 3"]));
    wait_exit(&served, quick);
    let panes = served.list();
    let held = panes.iter().find(|p| p["id"] == quick).expect("held");
    assert_eq!(held["exit_status"], 3);
    assert_eq!(held["activity"], "exited");
    served.wait_text(quick, &[], |t| t.contains("bye"));
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn a_second_headless_workspace_on_the_same_session_is_refused() {
    let dir = scratch("hw-twice");
    let served = Served::start(&dir, &[]);
    let out = common::tern_in(&dir)
        .arg("--headless")
        .output()
        .expect("run a second tern");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("already serves the session"), "{err}");
    assert_eq!(served.list().len(), 1, "the first one goes on");
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err}");
}

/// The headless face sends notifications to the desktop as the window does: no pane is
/// seen there, so OSC 9 and OSC 777 from a pane reach the session bus (`tern --headless`
/// inside a private bus, dbus-monitor watching it), titled with worktree and tab.
/// Catches a face that routes no notifications (the window did it; seen failing so
/// before the core took the routing over).
#[test]
fn a_headless_workspace_sends_notifications_to_the_desktop() {
    use std::process::Command;
    let dir = scratch("hw-notify");
    let monitor = dir.join("monitor.txt");
    let pid_file = dir.join("tern.pid");
    let served = common::headless::served_on_a_private_bus(&dir);
    let pane = pane_id(&served.ok(&[
        "new-tab",
        "--title",
        "agent",
        "--",
        "sh",
        "-c",
        "printf '\\033]9;Agent needs your permission\\007'; sleep 1; \
         printf '\\033]777;notify;Build;finished\\007'; exec sleep 600",
    ]));
    let text = tern_testkit::eventually(
        format!("two Notify calls on the bus from pane {pane}"),
        common::headless::PATIENCE,
        || {
            let text = std::fs::read_to_string(&monitor).unwrap_or_default();
            if text.matches("member=Notify").count() >= 2 {
                Ok(text)
            } else {
                Err(text)
            }
        },
    );
    assert!(text.contains("Agent needs your permission"), "{text}");
    assert!(text.contains("Build: finished"), "{text}");
    assert!(
        text.contains("tern · home · 2 agent"),
        "worktree and tab: {text}"
    );
    // SIGTERM to tern; the script then stops dbus-monitor and the bus ends with it.
    let pid = std::fs::read_to_string(&pid_file).expect("tern's pid");
    let _ = Command::new("kill").args(["-TERM", pid.trim()]).status();
    let (code, err) = served.wait_out();
    assert_eq!(code, Some(0), "{err}");
}

/// A remote worktree restored by `tern --headless`: the headless face applies tmux's
/// news as the window does, so the remote window's pane shows in `tern msg list` and
/// `get-text` reads what its program printed (a real sshd and tmux of the test's own).
/// Catches a face that reconnects the remote but never reads its events (seen: the
/// headless loop did not poll remote worktrees, so their tabs never came).
#[test]
fn a_restored_remote_worktree_is_served_headless() {
    if !common::sshd::available() {
        return;
    }
    let dir = scratch("hw-remote");
    let sshd = common::sshd::Sshd::start(&dir);
    let (work_text, _session) = sshd.agent_session(
        &dir.join("work"),
        "sh -c 'echo remote-ready-$((6*7)); exec sleep 600'",
    );
    let config_dir = dir.join("home/.config/tern");
    std::fs::create_dir_all(&config_dir).expect("config dir");
    std::fs::write(config_dir.join("config.ron"), sshd.tern_config()).expect("config");
    let state = tern_core::session::SessionState {
        remotes: vec![tern_core::session::SavedRemote {
            target: format!("ternremote:{work_text}"),
            active: true,
        }],
        ..Default::default()
    };
    tern_core::session::SessionStore::new(dir.join("session.ron"))
        .save(&state)
        .expect("save the session");
    let served = Served::start(&dir, &["--cols", "100", "--rows", "30"]);
    let started = std::time::Instant::now();
    let remote = loop {
        let panes = served.list();
        if let Some(p) = panes.iter().find(|p| {
            p["worktree_path"]
                .as_str()
                .is_some_and(|w| w.contains("ternremote"))
        }) {
            break p["id"].as_u64().expect("id");
        }
        assert!(
            started.elapsed() < common::headless::PATIENCE * 3,
            "the remote window's pane never came: {panes:?}; sshd: {}",
            sshd.log()
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    served.wait_text(remote, &[], |t| t.contains("remote-ready-42"));
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err}");
}
