//! Faults from outside: children that die or refuse to, ptys that fail, repositories
//! that vanish. Each must give a clear message, lose nothing and block nobody. (Disk
//! full on save: `session.rs::a_failed_save_keeps_the_previous_session`; a config file
//! removed mid-run: `config.rs::hot_reload_sees_writes_renames_errors_and_removal`.)

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use tern_testkit::eventually;

use tern_core::model::{TermEvent, TermSize};
use tern_core::pipeline::io::CLOSE_GRACE;
use tern_core::pipeline::{PaneEvent, PaneId, Pipeline, PipelineConfig, SpawnSpec};
use tern_core::worktree::{BranchSpec, Repo, WorktreeError};

fn pipeline() -> Pipeline {
    Pipeline::start(PipelineConfig::default(), std::sync::Arc::new(|| {})).expect("pipeline")
}

fn sh(script: &str) -> SpawnSpec {
    SpawnSpec::command("sh", &["-c", script]).size(TermSize::new(80, 24))
}

fn wait_screen(p: &Pipeline, pane: PaneId, want: &str) {
    eventually(
        format!("{want:?} on the screen"),
        Duration::from_secs(20),
        || {
            let rows = p.dump_screen(pane).map(|d| d.rows).unwrap_or_default();
            p.poll_events();
            rows.iter()
                .any(|r| r.contains(want))
                .then_some(())
                .ok_or_else(|| format!("{rows:?}"))
        },
    );
}

/// Whether `pid` is gone: not there at all, or a zombie whose parent is another
/// process (one tern never had to reap). A zombie whose parent is this test process is
/// a child tern failed to wait for, so it is not gone.
fn is_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => {
            let mut fields = stat.rsplit(')').next().unwrap_or("").split_whitespace();
            let state = fields.next().unwrap_or("");
            let parent: Option<u32> = fields.next().and_then(|p| p.parse().ok());
            state == "Z" && parent != Some(std::process::id())
        }
    }
}

/// Waits until `pid` [`is_gone`]; after `within` the test fails saying `what`.
fn wait_gone(pid: u32, within: Duration, what: &str) {
    eventually(what, within, || is_gone(pid));
}

#[test]
fn a_child_killed_by_a_signal_reports_it_and_keeps_its_output() {
    let p = pipeline();
    let pane = p.spawn(&sh("echo last words; kill -9 $$")).expect("spawn");
    let exit = eventually("the pane's exit", Duration::from_secs(20), || {
        match p.wait_event(Duration::from_millis(100)) {
            Some(PaneEvent::Exited { pane: id, exit }) if id == pane => Some(exit),
            _ => None,
        }
    });
    assert!(
        exit.signal
            .as_deref()
            .is_some_and(|s| s.contains("Kill") || s.contains("9")),
        "{exit:?}"
    );
    wait_screen(&p, pane, "last words");
}

#[test]
fn closing_a_pane_whose_program_ignores_sighup_still_ends_it_without_blocking() {
    if !Path::new("/proc/self/stat").exists() {
        return; // the check below reads /proc
    }
    let dir = tempfile::tempdir().expect("dir");
    let pidfile = dir.path().join("bg.pid");
    let p = pipeline();
    // The shell and a background job both ignore SIGHUP (and stay in the pane's group).
    let script = format!(
        "trap '' HUP; sleep 1000 & echo $! > '{}'; echo ready; while :; do sleep 0.05; done",
        pidfile.display()
    );
    let pane = p.spawn(&sh(&script)).expect("spawn");
    wait_screen(&p, pane, "ready");
    let shell = p.pid(pane).expect("pid");
    let job: u32 = std::fs::read_to_string(&pidfile)
        .expect("pid file")
        .trim()
        .parse()
        .expect("pid");
    p.close(pane);
    // Close does not wait: the shell ignores SIGHUP, so only the kill at the end of
    // the grace period ends it, and it still runs when close returns.
    assert!(
        !is_gone(shell),
        "close returned after the shell ended: it waited for the grace period"
    );
    let within = CLOSE_GRACE + Duration::from_secs(5);
    wait_gone(shell, within, "the shell outlived close");
    wait_gone(job, within, "its background job outlived close");
}

#[test]
fn closing_a_pane_whose_program_closed_its_tty_and_ignores_sighup_still_ends_it() {
    let p = pipeline();
    // The pty reaches end of file (no one holds the tty) while the program runs on.
    let pane = p
        .spawn(&sh(
            "trap '' HUP; echo ready; exec sleep 1000 </dev/null >/dev/null 2>&1",
        ))
        .expect("spawn");
    wait_screen(&p, pane, "ready");
    let pid = p.pid(pane).expect("pid");
    std::thread::sleep(Duration::from_millis(300));
    p.close(pane);
    wait_gone(
        pid,
        CLOSE_GRACE + Duration::from_secs(5),
        "a program without a tty outlived close",
    );
}

#[test]
fn an_exited_child_is_reaped_not_left_a_zombie() {
    let p = pipeline();
    let pane = p.spawn(&sh("echo bye")).expect("spawn");
    let pid = p.pid(pane).expect("pid");
    eventually(
        "the pane's exit",
        Duration::from_secs(20),
        || matches!(p.wait_event(Duration::from_millis(100)), Some(PaneEvent::Exited { pane: id, .. }) if id == pane),
    );
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "the exited child is still in the process table"
    );
}

#[test]
fn closing_a_pane_whose_program_exits_on_sighup_is_quick() {
    let p = pipeline();
    let pane = p.spawn(&sh("echo ready; exec sleep 1000")).expect("spawn");
    wait_screen(&p, pane, "ready");
    let pid = p.pid(pane).expect("pid");
    p.close(pane);
    wait_gone(pid, CLOSE_GRACE / 2, "SIGHUP ends a default program");
}

#[test]
fn writes_resizes_and_deliveries_after_the_pty_fails_are_harmless() {
    // After the child exits the master's reads and writes fail with EIO: the pane must
    // report the exit once, keep its screen, and ignore later input.
    let p = pipeline();
    let pane = p.spawn(&sh("printf 'done'")).expect("spawn");
    p.set_visible(pane, true);
    let mut exits = 0;
    let mut errors = Vec::new();
    eventually("the pane's exit", Duration::from_secs(20), || {
        for e in p.poll_events() {
            match e {
                PaneEvent::Exited { .. } => exits += 1,
                PaneEvent::Error { message, .. } => errors.push(message),
                _ => {}
            }
        }
        exits > 0
    });
    assert_eq!(exits, 1);
    for i in 0..200 {
        p.write(pane, format!("input {i}\r").as_bytes());
        p.resize(pane, TermSize::new(40 + i % 40, 10 + i % 10));
    }
    p.write(pane, &vec![b'x'; 1 << 20]);
    let _ = p.take(pane);
    // A second pane spawned after all that: by its exit, the pool and the model thread
    // have handled every write and resize sent before it, and a second exit of the
    // first pane would have been reported first.
    let marker = p.spawn(&sh("exit 0")).expect("spawn");
    eventually("the marker pane's exit", Duration::from_secs(20), || {
        let mut marker_exited = false;
        for e in p.poll_events() {
            if let PaneEvent::Exited { pane: exited, .. } = e {
                assert_ne!(exited, pane, "one exit only");
                marker_exited |= exited == marker;
            }
        }
        marker_exited
    });
    assert!(errors.is_empty(), "EIO at exit is not an error: {errors:?}");
    wait_screen(&p, pane, "done");
    // Unknown panes are ignored too.
    p.write(PaneId(999_999), b"x");
    p.close(PaneId(999_999));
    assert!(p.dump_screen(PaneId(999_999)).is_none());
}

#[test]
fn facts_from_a_dying_child_arrive_before_its_exit() {
    let p = pipeline();
    let pane = p
        .spawn(&sh("printf '\\033]2;bye\\007'; exit 3"))
        .expect("spawn");
    let mut title = false;
    eventually("the pane's exit", Duration::from_secs(20), || {
        match p.wait_event(Duration::from_millis(100)) {
            Some(PaneEvent::Fact {
                event: TermEvent::Title(t),
                ..
            }) if t == "bye" => title = true,
            Some(PaneEvent::Exited { pane: id, exit }) if id == pane => {
                assert_eq!(exit.code, 3);
                return true;
            }
            _ => {}
        }
        false
    });
    assert!(title, "the title came before the exit");
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t.invalid")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .expect("git runs")
        .success();
    assert!(ok, "git {args:?}");
}

#[test]
fn a_repository_deleted_while_open_gives_clear_errors() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path().canonicalize().expect("canonical").join("repo");
    std::fs::create_dir(&root).expect("mkdir");
    git(&root, &["init", "-q", "-b", "main"]);
    std::fs::write(root.join("f"), "x").expect("write");
    git(&root, &["add", "f"]);
    git(&root, &["commit", "-q", "-m", "one"]);
    let repo = Repo::open(&root).expect("open");
    assert_eq!(repo.list().expect("list").len(), 1);
    std::fs::remove_dir_all(&root).expect("delete the repository");

    let errors: Vec<(&str, WorktreeError)> = vec![
        ("list", repo.list().expect_err("list")),
        ("list_quick", repo.list_quick().expect_err("list_quick")),
        (
            "add",
            repo.add(
                dir.path().join("wt"),
                BranchSpec::New {
                    name: "x".into(),
                    base: None,
                },
            )
            .expect_err("add"),
        ),
        ("remove", repo.remove(&root, false).expect_err("remove")),
        ("prune", repo.prune().expect_err("prune")),
        (
            "status",
            tern_core::worktree::status(&root).expect_err("status"),
        ),
        ("open", Repo::open(&root).expect_err("open")),
    ];
    for (what, e) in errors {
        assert_eq!(
            e,
            WorktreeError::NotFound { path: root.clone() },
            "{what}: {e}"
        );
        assert_eq!(e.to_string(), format!("{} does not exist.", root.display()));
    }
    // The stamp used to notice changes is still computable.
    let _ = repo.state_stamp();
}

#[test]
fn helpers_started_without_waiting_are_reaped() {
    let pid =
        tern_core::helper::spawn_reaped(Command::new("sh").args(["-c", "exit 3"])).expect("spawn");
    wait_gone(pid, Duration::from_secs(5), "the helper was left a zombie");
}
