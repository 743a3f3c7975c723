//! Programs outlive tern in either face (issue 50's first "Done when", the window under
//! Xvfb and `tern --headless`): a loop printing numbered ticks, `kill -9` of tern, the
//! loop still running with the same pid, plain `tern` again: the pane is back on the
//! same pid with every tick in order, those printed before the kill (its history) and
//! those printed while no tern ran (the keeper's ring).

mod common;

use std::path::Path;
use std::time::Duration;

use common::user::{Face, Start, Tern, on_both_faces};
use tern_testkit::eventually;

fn ticks_in(text: &str) -> Vec<u64> {
    text.lines()
        .filter_map(|l| l.trim_end().strip_prefix("tick ")?.parse().ok())
        .collect()
}

fn count_of(path: &Path) -> u64 {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0)
}

/// Ends the keeper (and its programs) when the test ends, passed or not.
struct StopKeeper(std::path::PathBuf);

impl Drop for StopKeeper {
    fn drop(&mut self) {
        if self.0.exists() {
            let _ = common::tern_cmd()
                .args(["keeper", "--stop", "--socket"])
                .arg(&self.0)
                .output();
        }
    }
}

fn text(tern: &Tern, pane: u64, scrollback: bool) -> String {
    let id = pane.to_string();
    let mut args = vec!["get-text", "--pane", id.as_str()];
    if scrollback {
        args.push("--scrollback");
    }
    tern.msg(&args)
}

fn a_killed_tern_gives_its_programs_back(face: Face) {
    let mut tern = Start::new(face, "keeper-face").run();
    let count = tern.dir.join("ticks.txt");
    let c = count.display().to_string();
    let ticks = tern.new_tab(&format!(
        "i=0; while true; do while [ -e '{c}.hold' ]; do : > '{c}.held'; sleep 0.02; done; \
         i=$((i+1)); echo tick $i; echo $i > '{c}'; sleep 0.1; done"
    ));
    tern.wait_for("five ticks", |t| {
        (ticks_in(&text(t, ticks, false)).len() >= 5).then_some(())
    });
    let pid = tern
        .pane(ticks)
        .and_then(|p| p["pid"].as_u64())
        .expect("a pid");
    let session = tern.home.join(".local/state/tern/session.ron");
    tern.wait_for("the session saved with the pane's key", |_| {
        std::fs::read_to_string(&session)
            .is_ok_and(|s| s.matches("keeper: Some(").count() == 2)
            .then_some(())
    });
    // Between two ticks, once tern parsed the last (see keeper.rs).
    std::fs::write(format!("{c}.hold"), "").expect("hold");
    tern.wait_for("the ticker holds", |_| {
        Path::new(&format!("{c}.held")).exists().then_some(())
    });
    let held_at = count_of(&count);
    tern.wait_for("the last tick shown", |t| {
        (ticks_in(&text(t, ticks, false)).last() == Some(&held_at)).then_some(())
    });
    let _keeper = StopKeeper(tern.runtime.join("tern/keeper.sock"));
    tern.crash();
    std::fs::remove_file(format!("{c}.hold")).expect("tick on");
    eventually("ticks while no tern runs", Duration::from_secs(30), || {
        count_of(&count) >= held_at + 5
    });
    assert!(
        Path::new(&format!("/proc/{pid}")).exists(),
        "the loop outlived tern"
    );

    let mut tern = Start::new(face, "keeper-face").again(tern).run();
    let back = tern.wait_for("the pane back", |t| t.pane(ticks));
    assert_eq!(back["pid"], pid, "attached to the same pid: {back}");
    assert_eq!(back["ran_detached"], true, "{back}");
    let goal = count_of(&count);
    let all = tern.wait_for("every tick up to now", |t| {
        let all = text(t, ticks, true);
        ticks_in(&all)
            .last()
            .is_some_and(|&n| n >= goal)
            .then_some(all)
    });
    let got = ticks_in(&all);
    let last = *got.last().expect("ticks");
    assert_eq!(got, (1..=last).collect::<Vec<_>>(), "every tick, in order");
    assert!(last > held_at + 4, "ticks from while no tern ran");
}

on_both_faces! {
    a_killed_tern_gives_its_programs_back:
        a_killed_window_gives_its_programs_back,
        a_killed_headless_tern_gives_its_programs_back;
}

/// Asks the window to close as a window manager's close button does (a
/// `WM_DELETE_WINDOW` client message; Xvfb here runs no window manager).
fn close_window(display: &common::x11::Display) {
    use x11rb::connection::Connection;
    use x11rb::protocol::xproto::{ClientMessageEvent, ConnectionExt, EventMask};
    let window: u32 = common::x11::tern_window(display)
        .trim()
        .parse()
        .expect("a window id");
    let (conn, _) = x11rb::connect(Some(&display.name)).expect("the X server");
    let atom = |name: &[u8]| {
        conn.intern_atom(false, name)
            .expect("intern")
            .reply()
            .expect("an atom")
            .atom
    };
    let (protocols, delete) = (atom(b"WM_PROTOCOLS"), atom(b"WM_DELETE_WINDOW"));
    let event = ClientMessageEvent::new(32, window, protocols, [delete, 0, 0, 0, 0]);
    conn.send_event(false, window, EventMask::NO_EVENT, event)
        .expect("send");
    conn.flush().expect("flush");
}

#[test]
fn closing_the_window_with_keep_running_leaves_the_programs_for_the_next_start() {
    let args = ["-o", "session.on_close=KeepRunning"];
    let mut tern = Start::window("keeper-close").args(&args).run();
    let count = tern.dir.join("ticks.txt");
    let c = count.display().to_string();
    let ticks = tern.new_tab(&format!(
        "i=0; while true; do i=$((i+1)); echo tick $i; echo $i > '{c}'; sleep 0.1; done"
    ));
    tern.wait_for("three ticks", |t| {
        (ticks_in(&text(t, ticks, false)).len() >= 3).then_some(())
    });
    let pid = tern
        .pane(ticks)
        .and_then(|p| p["pid"].as_u64())
        .expect("a pid");
    let _keeper = StopKeeper(tern.runtime.join("tern/keeper.sock"));
    // As a person clicks the close button again when a first click came too early
    // (a message before the window handles events is lost).
    let started = std::time::Instant::now();
    while tern.running() {
        assert!(started.elapsed().as_secs() < 60, "the window never closed");
        close_window(tern.display.as_ref().expect("a display"));
        let click = std::time::Instant::now();
        while tern.running() && click.elapsed().as_secs() < 2 {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
    let status = tern.wait_exit("the window closes");
    assert!(status.success(), "{status:?}: {}", tern.stderr());
    assert!(
        tern.stderr().contains("the programs keep running"),
        "{}",
        tern.stderr()
    );
    assert!(
        Path::new(&format!("/proc/{pid}")).exists(),
        "the loop runs on"
    );
    let closed_at = count_of(&count);
    eventually("ticks after the close", Duration::from_secs(30), || {
        count_of(&count) >= closed_at + 5
    });

    tern.leave_keeper();
    let mut tern = Start::window("keeper-close").args(&args).again(tern).run();
    let back = tern.wait_for("the pane back", |t| t.pane(ticks));
    assert_eq!(back["pid"], pid, "attached to the same pid: {back}");
    let goal = count_of(&count);
    let all = tern.wait_for("every tick up to now", |t| {
        let all = text(t, ticks, true);
        ticks_in(&all)
            .last()
            .is_some_and(|&n| n >= goal)
            .then_some(all)
    });
    let got = ticks_in(&all);
    let last = *got.last().expect("ticks");
    assert_eq!(got, (1..=last).collect::<Vec<_>>(), "every tick, in order");
}
