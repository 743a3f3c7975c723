//! Two guards of the pipeline (issue 48, item 7), through the binary: a pane closed
//! with `tern msg close` while its flood is read ahead gives its pty back and its
//! program gets SIGHUP; a hidden pane's program gets the same DA1 answer as a shown
//! one's. Each names the break it catches; each was seen failing under it.

mod common;

use std::path::Path;

use common::headless::{PATIENCE, Served, pane_id, scratch};
use common::user::{Face, Start, Tern, on_both_faces};
use tern_testkit::{eventually, pty_masters};

/// How many of process `pid`'s threads are named `name`.
fn threads_named(pid: u32, name: &str) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|tasks| {
            tasks
                .flatten()
                .filter(|t| {
                    std::fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.trim() == name)
                })
                .count()
        })
        .unwrap_or(0)
}

/// The bytes process `pid` has written so far (`wchar` in `/proc/PID/io`).
fn bytes_written(pid: &str) -> Option<u64> {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
    io.lines()
        .find_map(|l| l.strip_prefix("wchar:"))
        .and_then(|n| n.trim().parse().ok())
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// A headless tern's pane floods (a shell loop printing text and DSR queries it never
/// reads) until tern stops parsing it and the program blocks writing; `tern msg close`
/// then gives its pty master back (tern's `/proc/PID/fd` holds as many as before the
/// pane) and the program gets SIGHUP (its trap writes a file). Three floods, one after
/// the other: where the close lands in the reading thread's work varies.
///
/// Catches: a close that left a read-ahead pane with the reading thread (the model
/// thread's Remove without `take_back`): the master stayed open, the program blocked
/// until the grace period's SIGKILL. Seen failing so (at least one of the three each
/// time; one flood alone caught it two times in three).
#[test]
fn closing_a_flooding_pane_gives_its_pty_back_and_hangs_up_its_program() {
    let dir = scratch("close-flood");
    let served = Served::start(&dir, &[]);
    let tern = served.child.id();
    // A pane that stays: the count of masters is taken with the workspace up.
    let stays = pane_id(&served.ok(&["new-tab", "--", "sh", "-c", "exec sleep 600"]));
    let before = pty_masters(tern);
    assert!(before >= 1, "tern holds the first pane's master");
    for round in 0..3 {
        let started = dir.join(format!("started-{round}"));
        let hup = dir.join(format!("hup-{round}"));
        // `printf` is the shell's own: a write interrupted by SIGHUP runs the trap. Each
        // line asks for the cursor 16 times: the queue of unread answers (a MiB) fills
        // after about 8,000 lines, not 130,000 (one query a line took over 20 s on a
        // loaded CI machine).
        let script = format!(
            "stty raw -echo; trap 'echo hup > {hup}; exit 0' HUP; echo $$ > {started}; \
             q='\\033[6n\\033[6n\\033[6n\\033[6n'; q=\"$q$q$q$q\"; \
             while :; do printf \"flood %s$q\\n\" 0123456789abcdef0123456789abcdef; done",
            hup = hup.display(),
            started = started.display()
        );
        let flood = pane_id(&served.ok(&["new-tab", "--", "sh", "-c", &script]));
        eventually("the flooding program started", PATIENCE, || {
            started.exists()
        });
        let pid = read(&started).trim().to_owned();
        // Once tern's queue of unread answers is full the pane is not parsed (their
        // backpressure), the read-ahead window fills and the program blocks writing:
        // its bytes written no longer grow.
        eventually("the flood fills its window", 3 * PATIENCE, || {
            let written = bytes_written(&pid);
            std::thread::sleep(std::time::Duration::from_millis(500));
            written.is_some() && bytes_written(&pid) == written
        });
        assert_eq!(
            threads_named(tern, "tern-read"),
            1,
            "the flood is read ahead"
        );
        assert!(pty_masters(tern) > before, "the flooding pane's master");
        served.ok(&["close", "--pane", &flood.to_string()]);
        eventually(
            format!("round {round}: the closed pane's pty master closes in tern"),
            PATIENCE,
            || pty_masters(tern) == before,
        );
        eventually(format!("round {round}: SIGHUP"), PATIENCE, || {
            read(&hup).trim() == "hup"
        });
        let left: Vec<u64> = served
            .list()
            .iter()
            .filter_map(|p| p["id"].as_u64())
            .collect();
        assert!(
            left.contains(&stays) && !left.contains(&flood),
            "the closed pane is gone, the other stays: {left:?}"
        );
    }
}

/// Two tabs whose programs ask DA1 (`ESC [ c`) at once: the first tab's pane is
/// hidden behind the second (in the window; headless no pane is ever shown). Each
/// program reads the same answer, tern's DA1.
///
/// Catches: a break that dropped only hidden panes' DA1 replies (parse.rs writing no
/// reply for a hidden pane's `ESC [ c`), which only an unrelated test's 120 s deadline
/// noticed before. Seen failing so, in both faces.
fn a_hidden_pane_answers_da1_like_a_shown_one(face: Face) {
    let mut tern = Start::new(face, "da1-hidden").run();
    let go = tern.dir.join("go");
    let asks = |out: &Path| {
        format!(
            "stty raw -echo; until [ -e '{go}' ]; do sleep 0.05; done; printf '\\033[c'; exec cat > '{out}'",
            go = go.display(),
            out = out.display()
        )
    };
    let (hidden_out, shown_out) = (tern.dir.join("hidden"), tern.dir.join("shown"));
    tern.new_tab(&asks(&hidden_out));
    let shown_pane = tern.new_tab(&asks(&shown_out));
    if face == Face::Window {
        // The window shows the second tab (its pane set visible, then traced as
        // focused): the first tab's pane is hidden.
        let focused = "\"event\":\"focus\",\"t_us\"";
        let pane = format!("\"pane\":{shown_pane},");
        tern.wait_for("the second tab shown", |t| {
            let trace = read(&t.dir.join("trace.jsonl"));
            trace
                .lines()
                .any(|l| l.contains(focused) && l.contains(&pane))
                .then_some(())
        });
    }
    std::fs::write(&go, "").expect("go");
    let answer = |tern: &mut Tern, out: &Path| {
        tern.wait_for(&format!("a DA1 answer in {}", out.display()), |_| {
            let got = read(out);
            got.ends_with('c').then_some(got)
        })
    };
    let shown = answer(&mut tern, &shown_out);
    let hidden = answer(&mut tern, &hidden_out);
    assert_eq!(shown, "\x1b[?65;1;4;6;22;28c", "tern's DA1");
    assert_eq!(hidden, shown, "the hidden pane's answer");
}

on_both_faces! {
    a_hidden_pane_answers_da1_like_a_shown_one:
        a_hidden_pane_answers_da1_in_the_window, a_hidden_pane_answers_da1_headless;
}
