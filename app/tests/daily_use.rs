//! The small things a day of real use met (issue 51, item 9), through the binary:
//! `tern msg list` names the program a tab was opened with, `tern msg wait` says in
//! plain words what did not happen, and the help of `tern msg` says only what is true
//! of it.

mod common;

use common::headless::{Served, pane_id, scratch};
use common::tern_in;

/// Catches `command: null` for a tab opened with `new-tab -- CMD` (the program is the
/// pane's own child, never "in front of the shell"), seen failing so.
#[test]
fn a_tab_opened_with_a_program_lists_it_as_its_command() {
    let dir = scratch("daily-command");
    let served = Served::start(&dir, &[]);
    let tab = pane_id(&served.ok(&["new-tab", "--", "sleep", "600"]));
    let listed = served
        .list()
        .into_iter()
        .find(|p| p["id"] == tab)
        .expect("the new tab is listed");
    assert_eq!(listed["command"], "sleep", "{listed}");
}

/// Catches "did not reach Waiting in time" (a Rust enum's name and no time), seen
/// failing so.
#[test]
fn a_wait_that_times_out_says_what_did_not_happen_and_when() {
    let dir = scratch("daily-wait");
    let served = Served::start(&dir, &[]);
    let pane = served.list()[0]["id"]
        .as_u64()
        .expect("one pane")
        .to_string();
    let out = served.msg(&[
        "wait",
        "--pane",
        &pane,
        "--for",
        "waiting",
        "--timeout",
        "0.2",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        format!("tern msg: pane {pane} was not waiting within 0.2 s")
    );
}

/// Catches `tern msg --help` promising that `--config` is "watched and reloaded when
/// saved" (nothing of `msg` reloads), and `msg wait --pane` with no help; seen failing
/// so.
#[test]
fn msg_help_says_only_what_is_true_of_it() {
    let dir = scratch("daily-help");
    let help = |args: &[&str]| {
        let out = tern_in(&dir).args(args).output().expect("tern runs");
        assert!(out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let msg = help(&["msg", "--help"]);
    assert!(!msg.contains("reloaded"), "{msg}");
    let wait = help(&["msg", "wait", "--help"]);
    let pane = wait
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("--pane"))
        .take(2)
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        pane.contains("The pane to wait for (default: the pane this runs in"),
        "{wait}"
    );
}
