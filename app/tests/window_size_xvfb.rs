//! The window's size comes back after a restart (issue 51, item 4), through the
//! binary under Xvfb, started as a user starts it (a fresh HOME, a plain start that
//! saves and restores the session): a window resized to 700x450 and closed (SIGTERM,
//! as a logout does) opens at 700x450 the next time. Needs xvfb and xdotool.
//!
//! Catches: the session keeping no window size (1400x900 came back at the size of an
//! 80x24 grid), seen failing so.

mod common;

use std::process::Command;
use std::time::Duration;

use common::user::{Start, Tern};
use common::x11::{run, tern_window, xdo};
use tern_testkit::eventually;

/// `WIDTHxHEIGHT` of an X window, as xdotool says it.
fn geometry(display: &str, window: &str) -> String {
    let out = run(Command::new("xdotool")
        .env("DISPLAY", display)
        .args(["getwindowgeometry", window]));
    out.lines()
        .find_map(|l| l.trim().strip_prefix("Geometry: "))
        .unwrap_or_default()
        .to_owned()
}

/// Waits until the window has noted `width`x`height` as the size the next session opens
/// at (its `session_window` trace event, written by a frame drawn at that size).
fn wait_noted(t: &mut Tern, (width, height): (f64, f64)) {
    t.wait_for(
        &format!("the window noted {width}x{height} for the next session"),
        |t| {
            let trace = std::fs::read_to_string(t.dir.join("trace.jsonl")).unwrap_or_default();
            let noted = trace
                .lines()
                .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                .rfind(|v| v["event"] == "session_window")?;
            (noted["width"].as_f64() == Some(width) && noted["height"].as_f64() == Some(height))
                .then_some(())
        },
    );
}

#[test]
fn the_windows_size_comes_back_after_a_restart() {
    let mut first = Start::window("winsize").run();
    let display = first.display.as_ref().expect("a display").name.clone();
    let window = tern_window(first.display.as_ref().expect("a display"));
    xdo(
        first.display.as_ref().expect("a display"),
        &["windowsize", "--sync", &window, "700", "450"],
    );
    assert_eq!(geometry(&display, &window), "700x450");
    // The window has seen its new size once a frame was drawn at it.
    wait_noted(&mut first, (700.0, 450.0));
    first.sigterm();
    let status = first.wait_exit("tern after SIGTERM");
    assert!(status.success(), "{status}");

    let again = Start::window("winsize").again(first).run();
    let window = tern_window(again.display.as_ref().expect("the display"));
    assert_eq!(geometry(&display, &window), "700x450");
}

/// The size each restored shell starts at (its `$ENV` file writes `stty size` as it
/// starts, before any resize reaches it).
fn sizes_at_start(home: &std::path::Path) -> Vec<(u32, u32)> {
    let mut sizes: Vec<(u32, u32)> = std::fs::read_dir(home)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("size."))
        .filter_map(|e| {
            let text = std::fs::read_to_string(e.path()).ok()?;
            let mut words = text.split_whitespace().map(|w| w.parse().ok());
            Some((words.next()??, words.next()??))
        })
        .collect();
    sizes.sort();
    sizes
}

/// Split panes restored in a 700x450 window start at their share of it (about 40
/// columns each), not at 80x24 to be resized a moment later (issue 51: the narrow
/// panes then showed a cut prompt twice). Catches panes started at the default size,
/// seen failing so.
#[test]
fn restored_split_panes_start_at_their_share_of_the_window() {
    let rc = "stty size > \"$HOME/size.$$\"\n";
    let mut first = Start::window("splitsize")
        .home_file(".shrc", rc)
        .env("ENV", "")
        .run();
    let window = tern_window(first.display.as_ref().expect("a display"));
    xdo(
        first.display.as_ref().expect("a display"),
        &["windowsize", "--sync", &window, "700", "450"],
    );
    wait_noted(&mut first, (700.0, 450.0));
    first.msg(&["split", "--direction", "right"]);
    first.wait_for("two panes", |t| (t.panes().len() == 2).then_some(()));
    first.sigterm();
    let status = first.wait_exit("tern after SIGTERM");
    assert!(status.success(), "{status}");
    for e in std::fs::read_dir(&first.home).expect("home").flatten() {
        if e.file_name().to_string_lossy().starts_with("size.") {
            std::fs::remove_file(e.path()).expect("rm");
        }
    }
    let home = first.home.clone();
    let mut again = Start::window("splitsize")
        .env("ENV", home.join(".shrc").to_str().expect("utf-8"))
        .again(first)
        .run();
    let sizes = again.wait_for("both restored shells wrote their size", |_| {
        let sizes = sizes_at_start(&home);
        (sizes.len() == 2).then_some(sizes)
    });
    for (rows, cols) in &sizes {
        assert!(
            (30..=50).contains(cols) && *rows > 10,
            "each pane starts at about half the window's width: {sizes:?}"
        );
    }
}

/// A window saved maximized comes back maximized (under a window manager, openbox).
/// Catches the saved state not asked for at start, seen failing so.
#[test]
fn a_window_saved_maximized_comes_back_maximized() {
    let display = common::x11::start_xvfb();
    let openbox = common::x11::start_window_manager(&display.name);
    let name = display.name.clone();
    let tern = Start::window("maximized")
        .on_display(display)
        .home_file(
            ".local/state/tern/session.ron",
            "(version: 1, window: Some((width: 500.0, height: 300.0, maximized: true)))",
        )
        .run();
    let window = tern_window(tern.display.as_ref().expect("the display"));
    eventually(
        "the window comes back maximized",
        Duration::from_secs(20),
        || {
            let state = run(Command::new("xprop").env("DISPLAY", &name).args([
                "-id",
                &window,
                "_NET_WM_STATE",
            ]));
            if state.contains("_NET_WM_STATE_MAXIMIZED_VERT")
                && state.contains("_NET_WM_STATE_MAXIMIZED_HORZ")
            {
                return Ok(());
            }
            Err(format!(
                "{state}; the window is {}; tern said {}",
                geometry(&name, &window),
                tern.stderr()
            ))
        },
    );
    drop(tern);
    drop(openbox);
}
