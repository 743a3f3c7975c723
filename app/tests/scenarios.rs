//! What a user does first, through the real binary: start tern with a fresh HOME, open
//! tabs and splits, move the focus and close panes with `tern msg`, let programs end,
//! stop tern and start it again, get a bad config reported. Each scenario runs on
//! both faces (`common::user::Face`): the window under Xvfb (`…_in_the_window`, needs
//! xvfb: `scripts/test.sh` installs it) and `tern --headless` serving the same
//! workspace with no display (`…_headless`). A few are the window's alone.

mod common;

use std::path::Path;
use std::process::{Child, Command, ExitStatus};
use std::time::Duration;

use common::user::{Face, Start, Tern};

/// A pane's field from `tern msg list`.
fn field(t: &Tern, pane: u64, name: &str) -> serde_json::Value {
    t.pane(pane)
        .unwrap_or_else(|| panic!("no pane {pane} in {:?}", t.panes()))[name]
        .clone()
}

fn ids(t: &Tern) -> Vec<u64> {
    t.panes().iter().filter_map(|p| p["id"].as_u64()).collect()
}

fn focused(t: &Tern) -> Vec<u64> {
    t.panes()
        .iter()
        .filter(|p| p["focused"] == true)
        .filter_map(|p| p["id"].as_u64())
        .collect()
}

fn dir_in(t: &Tern, name: &str) -> std::path::PathBuf {
    let d = t.home.join(name);
    std::fs::create_dir_all(&d).expect("mkdir");
    d.canonicalize().expect("canonical")
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("utf-8")
}

/// A plain start with an empty HOME: one shell, in HOME, focused, with its pid; the
/// session is saved under `$XDG_STATE_HOME/tern/`. Catches a first start that needs a
/// config file or a state folder to exist.
fn a_fresh_home_starts_one_shell_in_home_and_saves_the_session(face: Face) {
    let mut t = Start::new(face, "fresh-home").run();
    let panes = t.panes();
    assert_eq!(panes.len(), 1, "{panes:?}");
    let home = t.home.canonicalize().expect("canonical");
    assert_eq!(panes[0]["cwd"], path_str(&home), "{panes:?}");
    assert_eq!(panes[0]["focused"], true);
    assert!(panes[0]["pid"].as_u64().is_some(), "{panes:?}");
    assert!(t.socket.ends_with("tern/session.sock"), "{:?}", t.socket);
    let session = t.home.join(".local/state/tern/session.ron");
    t.wait_for("the session saved in the state folder", |_| {
        session.exists().then_some(())
    });
}

/// `tern msg new-tab --cwd D --title T -- CMD`: a second tab, its program running in
/// D, with the asked title, focused.
fn a_tab_opened_by_msg_runs_its_program_in_its_folder_with_its_title(face: Face) {
    let mut t = Start::new(face, "new-tab").run();
    let work = dir_in(&t, "work");
    let pane: u64 = t
        .msg(&[
            "new-tab",
            "--cwd",
            path_str(&work),
            "--title",
            "builds",
            "--",
            "sh",
            "-c",
            "pwd > where.txt; exec sleep 60",
        ])
        .trim()
        .parse()
        .expect("a pane id");
    let wrote = t.wait_file(&work.join("where.txt"));
    assert_eq!(wrote.trim(), path_str(&work));
    assert_eq!(field(&t, pane, "tab"), 1);
    assert_eq!(field(&t, pane, "title"), "builds");
    assert_eq!(focused(&t), [pane]);
    assert_eq!(t.panes().len(), 2);
}

/// `tern msg split` right and down: each new pane is in the split pane's tab, starts
/// in the folder asked for, and gets the focus.
fn splits_by_msg_stay_in_the_tab_and_take_the_focus(face: Face) {
    let mut t = Start::new(face, "split").run();
    let first = ids(&t)[0];
    let right: u64 = t
        .msg(&["split", "--direction", "right"])
        .trim()
        .parse()
        .expect("id");
    let side = dir_in(&t, "side");
    let down: u64 = t
        .msg(&[
            "split",
            "--pane",
            &right.to_string(),
            "--direction",
            "down",
            "--cwd",
            path_str(&side),
            "--",
            "sh",
            "-c",
            "pwd > here.txt; exec sleep 60",
        ])
        .trim()
        .parse()
        .expect("id");
    assert_eq!(t.wait_file(&side.join("here.txt")).trim(), path_str(&side));
    for pane in [first, right, down] {
        assert_eq!(field(&t, pane, "tab"), 0, "pane {pane}");
    }
    assert_eq!(focused(&t), [down]);
}

/// `tern msg focus` moves the focus between tabs and splits; one pane has it at a
/// time.
fn focus_by_msg_moves_the_focus_to_the_pane(face: Face) {
    let t = Start::new(face, "focus").run();
    let first = ids(&t)[0];
    let tab = t.new_tab("exec sleep 60");
    assert_eq!(focused(&t), [tab]);
    t.msg(&["focus", "--pane", &first.to_string()]);
    assert_eq!(focused(&t), [first]);
    t.msg(&["focus", "--pane", &tab.to_string()]);
    assert_eq!(focused(&t), [tab]);
}

/// `tern msg close` ends the pane's program and removes the pane; the focus goes to a
/// pane that is left.
fn close_by_msg_ends_the_program_and_removes_the_pane(face: Face) {
    let mut t = Start::new(face, "close").run();
    let first = ids(&t)[0];
    let tab = t.new_tab("exec sleep 60");
    let pid = t.wait_for("the tab's pid", |t| field(t, tab, "pid").as_u64());
    t.msg(&["close", "--pane", &tab.to_string()]);
    assert_eq!(ids(&t), [first]);
    assert_eq!(focused(&t), [first]);
    t.wait_for("the closed pane's program ended", |_| {
        (!Path::new(&format!("/proc/{pid}")).exists()).then_some(())
    });
}

/// Closing the last pane by `tern msg` leaves the window (its sidebar keeps the
/// worktree group, as Ctrl+Shift+W does), and a new tab can be opened in it.
fn closing_the_last_pane_by_msg_leaves_a_window_that_takes_a_new_tab(face: Face) {
    let mut t = Start::new(face, "close-last").run();
    let only = ids(&t)[0];
    t.msg(&["close", "--pane", &only.to_string()]);
    assert!(ids(&t).is_empty());
    let out = t.home.join("again.txt");
    t.new_tab(&format!("echo again > '{}'; exec sleep 60", out.display()));
    assert_eq!(t.wait_file(&out).trim(), "again");
    assert!(t.running());
}

/// A pane that does not exist is an error naming it, for each action that takes one.
fn msg_actions_on_a_pane_that_does_not_exist_name_it(face: Face) {
    let t = Start::new(face, "no-pane").run();
    for args in [
        &["focus", "--pane", "4242"][..],
        &["close", "--pane", "4242"],
        &["send-text", "--pane", "4242", "x"],
        &["split", "--pane", "4242"],
    ] {
        let out = t.msg_output(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("no pane 4242"), "{args:?}: {err}");
    }
}

/// A program in a pane drives tern through `TERN_SOCKET`, as an agent does: the tab
/// it opens runs, and `send-text` with no `--pane` types into its own pane
/// (`TERN_PANE_ID`).
fn a_program_in_a_pane_drives_tern_through_its_socket(face: Face) {
    // Run by a program in a pane: the pane's environment, not the kit's.
    let bin = common::TERN_BIN;
    let mut t = Start::new(face, "inside").env("BIN_UNDER_TEST", bin).run();
    let out = t.home.join("typed.txt");
    let script = format!(
        "\"$BIN_UNDER_TEST\" msg new-tab -- sh -c 'echo opened > opened.txt; exec sleep 60'; \
         \"$BIN_UNDER_TEST\" msg send-text 'typed by myself\n'; read line; echo \"$line\" > '{}'; \
         exec sleep 60",
        out.display()
    );
    t.new_tab(&script);
    assert_eq!(t.wait_file(&out).trim(), "typed by myself");
    assert_eq!(t.wait_file(&t.home.join("opened.txt")).trim(), "opened");
    assert_eq!(t.panes().len(), 3);
}

/// What a program in a tab finds: a 256-colour truecolour terminal, its pane id and
/// tern's socket.
fn a_program_in_a_tab_sees_a_terminal_its_pane_and_the_socket(face: Face) {
    let mut t = Start::new(face, "env").run();
    let out = t.home.join("env.txt");
    let pane = t.new_tab(&format!(
        "echo \"$TERM $COLORTERM $TERN_PANE_ID $TERN_SOCKET\" > '{}'; exec sleep 60",
        out.display()
    ));
    let seen = t.wait_file(&out);
    assert_eq!(
        seen.trim(),
        format!("xterm-256color truecolor {pane} {}", t.socket.display())
    );
}

/// Waits (60 s at most) for a child process (`tern msg wait`) to exit.
fn wait_child(child: &mut Child, what: &str) -> ExitStatus {
    tern_testkit::eventually(format!("{what}: the exit"), Duration::from_secs(60), || {
        child.try_wait().ok().flatten()
    })
}

/// `tern msg wait ARGS`, started (it ends by itself: its state, its timeout, or tern
/// gone).
fn msg_wait(t: &Tern, args: &[&str]) -> Child {
    common::msg_cmd(&t.socket)
        .arg("wait")
        .args(args)
        .spawn()
        .expect("tern msg wait runs")
}

/// `tern msg wait --for exit` returns 0 once the pane's program ends (held by
/// `--hold`), not before, and `tern msg list` then shows its status.
fn msg_wait_returns_when_the_program_exits(face: Face) {
    let mut t = Start::new(face, "wait-exit").args(&["--hold"]).run();
    let pane = t.new_tab("read line; exit 3");
    let mut waiter = msg_wait(&t, &["--pane", &pane.to_string(), "--for", "exit"]);
    // Still waiting while the program waits for its line: a list answered after the
    // wait was asked shows the program running.
    assert_eq!(field(&t, pane, "exit_status"), serde_json::Value::Null);
    assert!(matches!(waiter.try_wait(), Ok(None)), "wait returned early");
    t.msg(&["send-text", "--pane", &pane.to_string(), "\n"]);
    let status = wait_child(&mut waiter, "tern msg wait --for exit");
    assert!(status.success(), "{status}");
    assert_eq!(field(&t, pane, "exit_status"), 3);
    assert!(t.running(), "--hold keeps tern and the pane");
}

/// `tern msg wait --timeout` gives up with status 2 when the state does not come.
fn msg_wait_gives_up_with_status_2_after_its_timeout(face: Face) {
    let t = Start::new(face, "wait-timeout").run();
    let pane = ids(&t)[0];
    let mut waiter = msg_wait(
        &t,
        &[
            "--pane",
            &pane.to_string(),
            "--for",
            "exit",
            "--timeout",
            "0.2",
        ],
    );
    let status = wait_child(&mut waiter, "tern msg wait --timeout 0.2");
    assert_eq!(status.code(), Some(2));
}

/// Without `--hold`, a pane whose program ends closes; with other panes left, tern
/// runs on.
fn a_tab_whose_program_ends_closes_and_tern_runs_on(face: Face) {
    let mut t = Start::new(face, "tab-ends").run();
    let first = ids(&t)[0];
    let tab = t.new_tab("read line; exit 0");
    t.msg(&["send-text", "--pane", &tab.to_string(), "\n"]);
    t.wait_for("the ended tab closed", |t| {
        (ids(t) == [first]).then_some(())
    });
    assert!(t.running());
}

/// `exit_behavior: Hold` from `-o` keeps a pane whose program failed, like `--hold`.
fn exit_behavior_hold_from_an_override_keeps_the_pane(face: Face) {
    let mut t = Start::new(face, "hold-config")
        .args(&["-o", "exit_behavior=Hold"])
        .run();
    let pane = t.new_tab("exit 7");
    t.wait_for("the exit shown", |t| {
        (field(t, pane, "exit_status") == 7).then_some(())
    });
    assert_eq!(field(&t, pane, "activity"), "exited");
    assert_eq!(t.panes().len(), 2, "the held pane stays beside the shell");
    assert!(t.running());
}

/// The shell of a plain start ends (`exit 5`): the window closes and tern exits with
/// its status.
#[test]
fn the_shell_of_a_plain_start_exits_and_the_window_with_it() {
    let mut t = Start::window("shell-exit").run();
    let pane = ids(&t)[0];
    t.msg(&["send-text", "--pane", &pane.to_string(), "exit 5\n"]);
    let status = t.wait_exit("tern after its shell exited");
    assert_eq!(status.code(), Some(5), "{status}");
}

/// Headless, the workspace is served until SIGTERM: its last shell ending leaves it
/// listening with no pane, and a new tab runs in it; SIGTERM then ends it cleanly.
#[test]
fn the_headless_workspace_outlives_its_last_shell() {
    let mut t = Start::new(Face::Headless, "headless-outlives").run();
    let pane = ids(&t)[0];
    t.msg(&["send-text", "--pane", &pane.to_string(), "exit 5\n"]);
    t.wait_for("the shell's pane gone", |t| ids(t).is_empty().then_some(()));
    let out = t.home.join("again.txt");
    t.new_tab(&format!("echo again > '{}'; exec sleep 60", out.display()));
    assert_eq!(t.wait_file(&out).trim(), "again");
    t.sigterm();
    let status = t.wait_exit("tern --headless after SIGTERM");
    assert!(status.success(), "{status}");
}

/// SIGTERM saves the session; the next start in the same HOME brings back the tabs,
/// the split and each pane's folder.
fn tabs_splits_and_folders_come_back_after_sigterm(face: Face) {
    let mut t = Start::new(face, "restore").run();
    let a = dir_in(&t, "a");
    let b = dir_in(&t, "b");
    t.msg(&["new-tab", "--cwd", path_str(&a)]);
    t.msg(&["split", "--direction", "down", "--cwd", path_str(&b)]);
    let mut before: Vec<(serde_json::Value, serde_json::Value)> = t
        .panes()
        .iter()
        .map(|p| (p["tab"].clone(), p["cwd"].clone()))
        .collect();
    before.sort_by_key(|(tab, cwd)| format!("{tab}{cwd}"));
    t.sigterm();
    let status = t.wait_exit("tern after SIGTERM");
    assert!(status.success(), "{status}");
    let t2 = Start::new(face, "restore").again(t).run();
    let mut after: Vec<(serde_json::Value, serde_json::Value)> = t2
        .panes()
        .iter()
        .map(|p| (p["tab"].clone(), p["cwd"].clone()))
        .collect();
    after.sort_by_key(|(tab, cwd)| format!("{tab}{cwd}"));
    assert_eq!(after, before);
    assert_eq!(after.len(), 3);
}

/// A config file that does not parse is reported with its line and column, and the
/// window runs on the defaults.
fn a_config_that_does_not_parse_is_reported_and_the_window_runs(face: Face) {
    let t = Start::new(face, "bad-config")
        .home_file(
            ".config/tern/config.ron",
            "(font: (size: 12.5),\n  colour: 3)",
        )
        .run();
    assert_eq!(t.panes().len(), 1, "the window runs");
    let err = t.stderr();
    assert!(err.contains("config.ron:2:"), "{err}");
}

/// A bad `-o` is named and the rest of the settings apply.
fn a_bad_override_is_named_and_the_window_runs(face: Face) {
    let mut t = Start::new(face, "bad-override")
        .args(&["-o", "font.sise=3", "-o", "env.GREETING=hi"])
        .run();
    assert!(t.stderr().contains("font.sise"), "{}", t.stderr());
    let out = t.home.join("greeting.txt");
    t.new_tab(&format!(
        "echo \"$GREETING\" > '{}'; exec sleep 60",
        out.display()
    ));
    assert_eq!(t.wait_file(&out).trim(), "hi");
}

/// The config in `$XDG_CONFIG_HOME/tern/config.ron` is read: its environment reaches
/// the programs.
fn the_config_in_the_config_home_is_read(face: Face) {
    let mut t = Start::new(face, "config-home")
        .home_file(
            ".config/tern/config.ron",
            "(env: {\"FROM_CONFIG\": \"yes\"})",
        )
        .run();
    let out = t.home.join("from.txt");
    t.new_tab(&format!(
        "echo \"config=$FROM_CONFIG\" > '{}'; exec sleep 60",
        out.display()
    ));
    assert_eq!(t.wait_file(&out).trim(), "config=yes");
}

/// `--working-directory D`: the one pane starts in D, and no session is restored or
/// saved over (it is not a plain start).
#[test]
fn working_directory_starts_the_pane_there_and_leaves_the_session_alone() {
    // A session with two tabs first.
    let first = Start::window("workdir").run();
    first.new_tab("exec sleep 60");
    let there = dir_in(&first, "there");
    let t = Start::window("workdir")
        .again(first)
        .args(&["--working-directory", path_str(&there)])
        .run();
    let panes = t.panes();
    assert_eq!(panes.len(), 1);
    assert_eq!(panes[0]["cwd"], path_str(&there));
    assert!(
        t.socket.file_name().is_some_and(|n| n != "session.sock"),
        "{:?}",
        t.socket
    );
}

/// `--title` names the window and `--class` sets its X11 class (WM_CLASS's class
/// part, what window rules and a desktop file's StartupWMClass match).
#[test]
fn title_and_class_reach_the_x11_window() {
    let mut t = Start::window("title")
        .args(&[
            "--title",
            "my tern",
            "--class",
            "ternclass",
            "-e",
            "sleep",
            "60",
        ])
        .run();
    let display = t.display.as_ref().expect("a display").name.clone();
    let found = move |args: &[&str]| {
        let out = Command::new("xdotool")
            .env("DISPLAY", &display)
            .args(["search", "--onlyvisible"])
            .args(args)
            .output()
            .expect("xdotool (apt-get install xdotool)");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    let by_class = t.wait_for("a window of class ternclass", |_| {
        Some(found(&["--class", "^ternclass$"])).filter(|w| !w.is_empty())
    });
    assert_eq!(
        found(&["--name", "^my tern$"]),
        by_class,
        "the titled window is the classed one"
    );
}

common::user::on_both_faces! {
    a_fresh_home_starts_one_shell_in_home_and_saves_the_session: a_fresh_home_starts_one_shell_in_home_and_saves_the_session_in_the_window, a_fresh_home_starts_one_shell_in_home_and_saves_the_session_headless;
    a_tab_opened_by_msg_runs_its_program_in_its_folder_with_its_title: a_tab_opened_by_msg_runs_its_program_in_its_folder_with_its_title_in_the_window, a_tab_opened_by_msg_runs_its_program_in_its_folder_with_its_title_headless;
    splits_by_msg_stay_in_the_tab_and_take_the_focus: splits_by_msg_stay_in_the_tab_and_take_the_focus_in_the_window, splits_by_msg_stay_in_the_tab_and_take_the_focus_headless;
    focus_by_msg_moves_the_focus_to_the_pane: focus_by_msg_moves_the_focus_to_the_pane_in_the_window, focus_by_msg_moves_the_focus_to_the_pane_headless;
    close_by_msg_ends_the_program_and_removes_the_pane: close_by_msg_ends_the_program_and_removes_the_pane_in_the_window, close_by_msg_ends_the_program_and_removes_the_pane_headless;
    closing_the_last_pane_by_msg_leaves_a_window_that_takes_a_new_tab: closing_the_last_pane_by_msg_leaves_a_window_that_takes_a_new_tab_in_the_window, closing_the_last_pane_by_msg_leaves_a_window_that_takes_a_new_tab_headless;
    msg_actions_on_a_pane_that_does_not_exist_name_it: msg_actions_on_a_pane_that_does_not_exist_name_it_in_the_window, msg_actions_on_a_pane_that_does_not_exist_name_it_headless;
    a_program_in_a_pane_drives_tern_through_its_socket: a_program_in_a_pane_drives_tern_through_its_socket_in_the_window, a_program_in_a_pane_drives_tern_through_its_socket_headless;
    a_program_in_a_tab_sees_a_terminal_its_pane_and_the_socket: a_program_in_a_tab_sees_a_terminal_its_pane_and_the_socket_in_the_window, a_program_in_a_tab_sees_a_terminal_its_pane_and_the_socket_headless;
    msg_wait_returns_when_the_program_exits: msg_wait_returns_when_the_program_exits_in_the_window, msg_wait_returns_when_the_program_exits_headless;
    msg_wait_gives_up_with_status_2_after_its_timeout: msg_wait_gives_up_with_status_2_after_its_timeout_in_the_window, msg_wait_gives_up_with_status_2_after_its_timeout_headless;
    a_tab_whose_program_ends_closes_and_tern_runs_on: a_tab_whose_program_ends_closes_and_tern_runs_on_in_the_window, a_tab_whose_program_ends_closes_and_tern_runs_on_headless;
    exit_behavior_hold_from_an_override_keeps_the_pane: exit_behavior_hold_from_an_override_keeps_the_pane_in_the_window, exit_behavior_hold_from_an_override_keeps_the_pane_headless;
    tabs_splits_and_folders_come_back_after_sigterm: tabs_splits_and_folders_come_back_after_sigterm_in_the_window, tabs_splits_and_folders_come_back_after_sigterm_headless;
    a_config_that_does_not_parse_is_reported_and_the_window_runs: a_config_that_does_not_parse_is_reported_and_the_window_runs_in_the_window, a_config_that_does_not_parse_is_reported_and_the_window_runs_headless;
    a_bad_override_is_named_and_the_window_runs: a_bad_override_is_named_and_the_window_runs_in_the_window, a_bad_override_is_named_and_the_window_runs_headless;
    the_config_in_the_config_home_is_read: the_config_in_the_config_home_is_read_in_the_window, the_config_in_the_config_home_is_read_headless;
}
