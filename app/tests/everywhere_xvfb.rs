//! Search everywhere in the real window under Xvfb (issue 47): 12 panes in 4
//! worktrees, a needle printed once in pane 9's history 50,000 lines up. Searching
//! everywhere (Ctrl+Shift+Alt+F) lists it, and only it (near misses in other panes are
//! not listed); Enter reveals pane 9 (another worktree) scrolled to the match; `n`
//! walks the matches across panes; Escape goes back to the pane the search started
//! from; and none of the keys typed while the overlay is open reach a pane. Needs xvfb
//! and xdotool. `TERN_SHOT=FILE` keeps a screenshot of the revealed match.
//!
//! Catches: Enter that does not reveal the pane or scroll it (no `found_shown` with
//! the line in view), a query that lists other panes' near misses, keys reaching the
//! pane under the overlay.

mod common;

use std::path::Path;
use std::process::Command;

use common::x11::*;

/// The trace's events named `event`, parsed.
fn events(trace: &Path, event: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(trace)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["event"] == event)
        .collect()
}

/// The last `everywhere_done` for `query`.
fn done_for(trace: &Path, dir: &Path, query: &str) -> serde_json::Value {
    wait_for(
        &format!("search everywhere for {query:?} done"),
        dir,
        || {
            events(trace, "everywhere_done")
                .into_iter()
                .rfind(|v| v["query"] == query)
        },
    )
}

/// The `n`-th `found_shown` (0 first).
fn shown(trace: &Path, dir: &Path, n: usize) -> serde_json::Value {
    wait_for(&format!("match {n} shown"), dir, || {
        events(trace, "found_shown").get(n).cloned()
    })
}

fn focused(socket: &Path) -> u64 {
    let list: serde_json::Value = serde_json::from_str(&msg(socket, &["list"])).expect("JSON");
    list.as_array()
        .expect("array")
        .iter()
        .find(|p| p["focused"] == true)
        .and_then(|p| p["id"].as_u64())
        .expect("a focused pane")
}

fn key(display: &Display, window: &str, keys: &[&str]) {
    let mut args = vec!["key", "--delay", "40", "--window", window];
    args.extend_from_slice(keys);
    xdo(display, &args);
}

#[test]
fn search_everywhere_finds_the_needle_in_pane_9_and_reveals_it() {
    let display = start_xvfb_sized("1280x800x24");
    let (dir, runtime) = scratch("everywhere");
    let (_tern, trace) = start_tern(
        &display,
        &dir,
        &runtime,
        &[
            "-o",
            "scrollback_lines=100000",
            "--cols",
            "100",
            "--rows",
            "30",
        ],
    );
    wait_trace(&trace, &dir, "no first frame", |t| {
        t.contains("first_output_frame_built")
    });
    let socket = runtime.join("tern").join("session.sock");
    wait_for("the socket", &dir, || socket.exists().then_some(()));
    let first = focused(&socket);
    let mut panes = Vec::new();
    for k in 1..=12u32 {
        let wt = dir.join(format!("wt-{}", (k - 1) / 3 + 1));
        std::fs::create_dir_all(&wt).expect("worktree folder");
        // Pane 9: the needle, then 50,000 lines. The others: near misses.
        let body = match k {
            9 => "echo 'build log: xyzzy-4711 failed'; \
                  awk 'BEGIN { for (i = 0; i < 50000; i++) print \"filler \" i }'"
                .to_owned(),
            3 | 7 => format!(
                "echo 'pair-marker in pane {k}'; \
                 awk 'BEGIN {{ for (i = 0; i < 300; i++) print \"xyzzy-471 \" i \" near\" }}'"
            ),
            _ => format!(
                "awk 'BEGIN {{ for (i = 0; i < 2000; i++) print \"pane {k} xyzzy-4712 \" i }}'"
            ),
        };
        let script = format!("{body}; echo READY-{k}; exec sleep 600");
        let reply = msg(
            &socket,
            &[
                "new-tab",
                "--cwd",
                wt.to_str().expect("utf-8"),
                "--",
                "sh",
                "-c",
                &script,
            ],
        );
        let pane: u64 = reply.trim().parse().expect("a pane id");
        panes.push(pane);
    }
    for (k, pane) in panes.iter().enumerate() {
        let ready = format!("READY-{}", k + 1);
        wait_for(&format!("pane {pane} printed"), &dir, || {
            msg(&socket, &["get-text", "--pane", &pane.to_string()])
                .contains(&ready)
                .then_some(())
        });
    }
    // Start from pane 1 (worktree 1); the first shell goes, so 12 panes are left.
    msg(&socket, &["close", "--pane", &first.to_string()]);
    msg(&socket, &["focus", "--pane", &panes[0].to_string()]);
    let window = tern_window(&display);
    wait_for("pane 1 focused", &dir, || {
        (focused(&socket) == panes[0]).then_some(())
    });

    key(&display, &window, &["ctrl+shift+alt+f"]);
    xdo(
        &display,
        &["type", "--delay", "30", "--window", &window, "xyzzy-4711"],
    );
    let done = done_for(&trace, &dir, "xyzzy-4711");
    let want = serde_json::json!({ panes[8].to_string(): 1 });
    assert_eq!(done["hits"], want, "only pane 9's line: {done}");
    assert_eq!(done["matches"], 1, "{done}");

    key(&display, &window, &["Return"]);
    let at = shown(&trace, &dir, 0);
    assert_eq!(at["pane"], panes[8], "{at}");
    assert_eq!(at["line"], 0, "the needle is pane 9's first line: {at}");
    let (top, rows) = (
        at["top"].as_i64().expect("top"),
        at["rows"].as_i64().expect("rows"),
    );
    assert!(
        top <= 0 && 0 < top + rows,
        "line 0 in view (top {top}, {rows} rows)"
    );
    wait_for("pane 9 focused", &dir, || {
        (focused(&socket) == panes[8]).then_some(())
    });
    if let Some(shot) = std::env::var_os("TERN_SHOT") {
        // A few frames for the history page under the viewport.
        std::thread::sleep(std::time::Duration::from_millis(1500));
        let _ = Command::new("import")
            .env("DISPLAY", &display.name)
            .args(["-window", "root"])
            .arg(shot)
            .status();
    }

    // Walk across panes: a query found in panes 3 and 7, Enter then `n`.
    // `/`: a new query.
    key(&display, &window, &["slash"]);
    xdo(
        &display,
        &["type", "--delay", "30", "--window", &window, "pair-marker"],
    );
    let done = done_for(&trace, &dir, "pair-marker");
    assert_eq!(
        done["hits"],
        serde_json::json!({ panes[2].to_string(): 1, panes[6].to_string(): 1 }),
        "{done}"
    );
    key(&display, &window, &["Return"]);
    assert_eq!(shown(&trace, &dir, 1)["pane"], panes[2]);
    key(&display, &window, &["n"]);
    assert_eq!(shown(&trace, &dir, 2)["pane"], panes[6]);
    key(&display, &window, &["shift+n"]);
    assert_eq!(shown(&trace, &dir, 3)["pane"], panes[2]);

    // Escape: back where the search started.
    key(&display, &window, &["Escape"]);
    wait_for("back in pane 1", &dir, || {
        (focused(&socket) == panes[0]).then_some(())
    });
    // Nothing typed into the overlay reached a pane (the tty would echo it).
    for pane in &panes {
        let text = msg(&socket, &["get-text", "--pane", &pane.to_string()]);
        assert!(
            !text.contains("pair-markerpair") && !text.contains("xyzzy-4711xyzzy"),
            "keys reached pane {pane}: {text}"
        );
    }
    let pane1 = msg(&socket, &["get-text", "--pane", &panes[0].to_string()]);
    assert!(
        !pane1.contains("pair-marker") && !pane1.lines().any(|l| l.trim() == "xyzzy-4711"),
        "the overlay's keys reached pane 1: {pane1}"
    );
}
