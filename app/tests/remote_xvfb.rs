//! A remote worktree in the real binary under Xvfb: a session file naming a remote
//! target (a real sshd of the test's own, tmux on its own socket behind it) brings the
//! remote tab back at start; the screenshot must show the red bar the remote program
//! printed before tern attached (tmux's capture, written in), keys typed with xdotool
//! must run there, and killing tern leaves the program running. Needs xvfb, xdotool,
//! imagemagick, openssh-server, openssh-client and tmux (`scripts/test.sh`); skipped with
//! a message when sshd, ssh or tmux are missing. `TERN_REMOTE_SHOT=PATH` keeps the
//! screenshot.

mod common;

use std::process::Command;
use std::time::Duration;

use tern_testkit::eventually;

use common::sshd::{Sshd, available};
use common::x11::*;

#[test]
fn a_restored_remote_worktree_shows_in_the_real_window_and_outlives_it() {
    if !available() {
        return;
    }
    let display = start_xvfb();
    let (dir, runtime) = scratch("remote");
    let sshd = Sshd::start(&dir);
    let work = dir.join("work");
    let (work_text, session_name) = sshd.agent_session(
        &work,
        "env PS1='$ ' sh -c \"printf '\\033[41m%30s\\033[0m\\n' ''; echo remote-ready; exec sh\"",
    );
    std::fs::write(dir.join("no-config.ron"), sshd.tern_config()).expect("config");
    let target = format!("ternremote:{work_text}");
    let state = tern_core::session::SessionState {
        remotes: vec![tern_core::session::SavedRemote {
            target: target.clone(),
            active: true,
        }],
        ..Default::default()
    };
    tern_core::session::SessionStore::new(dir.join("session.ron"))
        .save(&state)
        .expect("save the session");
    let (tern, trace) = start_tern(&display, &dir, &runtime, &["--cols", "100", "--rows", "30"]);
    wait_trace(&trace, &dir, "no first frame", |t| {
        t.contains("first_frame")
    });

    // The red bar: 30 cells of the theme's red, one row high, in the remote tab.
    let red = (0xcd, 0x00, 0x00);
    let bar = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        eventually(
            "a red bar from the remote program",
            Duration::from_secs(60),
            || {
                Screen::grab(&display.name)
                    .bbox(red)
                    .filter(|&(x0, y0, x1, y1)| x1 - x0 > 200 && y1 - y0 < 30)
                    .ok_or_else(|| {
                        format!(
                            "tern said {:?}; sshd: {}",
                            std::fs::read_to_string(dir.join("tern.stderr")),
                            sshd.log()
                        )
                    })
            },
        )
    }))
    .unwrap_or_else(|failed| {
        shot(&display, "no-red-bar");
        std::panic::resume_unwind(failed)
    });
    if let Some(path) = std::env::var_os("TERN_REMOTE_SHOT") {
        run(Command::new("import")
            .env("DISPLAY", &display.name)
            .args(["-window", "root"])
            .arg(&path));
        eprintln!(
            "red bar at {bar:?}; screenshot in {}",
            path.to_string_lossy()
        );
    }

    // Keys typed into the real window run in the remote shell.
    let window = tern_window(&display);
    type_line(&display, &window, "echo typed-$((6*7)) > typed.txt");
    eventually(
        "the typed line runs remotely",
        Duration::from_secs(60),
        || {
            (std::fs::read_to_string(work.join("typed.txt")).unwrap_or_default() == "typed-42\n")
                .then_some(())
                .ok_or_else(|| {
                    format!(
                        "tern said {:?}",
                        std::fs::read_to_string(dir.join("tern.stderr"))
                    )
                })
        },
    );

    // tern goes (SIGTERM); the remote shell stays.
    drop(tern);
    let panes = sshd.panes(&session_name);
    assert!(panes.starts_with("0 sh"), "the remote shell ended: {panes}");
    drop(sshd);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Keeps a screenshot in `$TERN_REMOTE_SHOT` (with `suffix` before the extension).
fn shot(display: &Display, suffix: &str) {
    if let Ok(path) = std::env::var("TERN_REMOTE_SHOT") {
        let path = match suffix {
            "" => path,
            s => format!("{path}.{s}.png"),
        };
        run(Command::new("import")
            .env("DISPLAY", &display.name)
            .args(["-window", "root", &path]));
        eprintln!("screenshot in {path}");
    }
}
