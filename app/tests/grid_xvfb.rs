//! A pane's rows drawn into a texture kept between frames (issue 46 item 1), in the
//! real window: a key typed over a full screen draws the rows around its echo, not the
//! screen, while every other row stays on screen as it was; a tab shown again with
//! nothing changed draws no row at all. Read from the trace's `frame` events
//! (`rows_drawn` of `rows_in_view`) and from the screen's pixels. Needs xvfb, xdotool,
//! imagemagick.
//!
//! Catches: every row drawn again each frame (seen failing with the damage off: each
//! key's frame drew all 30 rows), a kept texture lost when its tab is hidden (seen
//! failing with `park` freeing the rows: the reveal drew every row), rows kept in the
//! texture missing from the window, and a tab whose rows changed while it was hidden
//! drawn whole when shown again instead of only those rows and their neighbours (seen
//! failing with `park` freeing the rows).

mod common;

use common::x11::*;

const ROWS: usize = 30;
/// The text of the screen: the letters typed below are in it, so typing puts no new
/// glyph in egui's atlas (a new atlas page redraws everything, rightly).
const LINE: &str = "line the quick brown fox jumps over the lazy dog 0123456789";

/// The trace's `frame` events from line `from` on, as (rows_drawn, rows_in_view,
/// panes_direct), each with whether a key's echo was shown by that frame.
fn frames(trace: &str, from: usize) -> Vec<((u64, u64, u64), bool)> {
    let mut out = Vec::new();
    let mut echo = false;
    for line in trace.lines().skip(from) {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        match v["event"].as_str() {
            Some("key_echo_frame") => echo = true,
            Some("frame") => {
                let n = |k: &str| v[k].as_u64().unwrap_or(u64::MAX);
                out.push((
                    (n("rows_drawn"), n("rows_in_view"), n("panes_direct")),
                    echo,
                ));
                echo = false;
            }
            _ => {}
        }
    }
    out
}

fn count(trace: &std::path::Path, event: &str) -> usize {
    let text = std::fs::read_to_string(trace).unwrap_or_default();
    text.matches(&format!("\"event\":\"{event}\"")).count()
}

/// tern at 80x30 running `sh -c script`, once a frame has drawn every row of the pane.
fn start_filled(
    display: &Display,
    dir: &std::path::Path,
    runtime: &std::path::Path,
    script: &str,
) -> (Killed, std::path::PathBuf) {
    let (tern, trace) = start_tern(
        display,
        dir,
        runtime,
        &["--cols", "80", "--rows", "30", "-e", "sh", "-c", script],
    );
    wait_trace(&trace, dir, "the screen never filled", |t| {
        frames(t, 0).iter().any(|((_, n, _), _)| *n >= ROWS as u64)
    });
    (tern, trace)
}

/// Presses `keys` (a tab switch) in the window and waits for the tab's reveal frame.
fn switch_tab(
    display: &Display,
    window: &str,
    trace: &std::path::Path,
    dir: &std::path::Path,
    keys: &str,
) {
    let reveals = count(trace, "reveal_frame");
    xdo(display, &["key", "--window", window, keys]);
    wait_for("the tab shown", dir, || {
        (count(trace, "reveal_frame") > reveals).then_some(())
    });
}

/// The rows of the screen (y) where `a` and `b` differ.
fn differing_rows(a: &Screen, b: &Screen) -> Vec<usize> {
    let rows = a.rgb.len().min(b.rgb.len()) / 3 / a.width.max(1);
    (0..rows)
        .filter(|&y| (0..a.width).any(|x| a.at(x, y) != b.at(x, y)))
        .collect()
}

/// The grid's shaders are compiled on a thread of their own, not in a frame: the first
/// frames, which show a shell's prompt, do not wait for the compiler (tens of ms on a
/// software renderer). Catches the compile moved back into the frame (seen failing so:
/// compiled on "main").
#[test]
fn the_grid_s_shaders_compile_off_the_ui_thread() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("grid-compile");
    let (_tern, trace) = start_tern(
        &display,
        &dir,
        &runtime,
        &["-e", "sh", "-c", "echo ready; exec cat"],
    );
    let event = "\"event\":\"grid_pipelines\"";
    wait_trace(
        &trace,
        &dir,
        "the grid's pipelines never became ready",
        |t| t.contains(event),
    );
    let text = std::fs::read_to_string(&trace).unwrap_or_default();
    let line = text.lines().find(|l| l.contains(event)).unwrap_or_default();
    let v: serde_json::Value = serde_json::from_str(line).expect("a JSON trace line");
    assert_eq!(v["compiled_on"], "tern-grid-compile", "{line}");
}

#[test]
fn a_key_over_a_full_screen_draws_its_rows_and_a_tab_shown_again_draws_none() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("grid-rows");
    let script = format!(
        "i=0; while [ $i -lt 40 ]; do printf '{LINE} %02d\\n' $i; i=$((i+1)); done; \
         printf '\\033[H\\033[?25l'; exec cat"
    );
    let (_tern, trace) = start_filled(&display, &dir, &runtime, &script);
    let window = tern_window(&display);
    // The screen as the full text left it: every row of text on it.
    let text_rows = |s: &Screen| {
        let bg = s.at(0, s.rgb.len() / 3 / s.width - 1);
        let rows = s.rgb.len() / 3 / s.width;
        (0..rows)
            .filter(|&y| (0..s.width).any(|x| s.at(x, y) != bg))
            .count()
    };
    // Settled: the window shows its first frame, and that one may hold only part of the
    // text (eframe 0002), so the same picture twice, 150 ms apart.
    let before = wait_for("the full screen painted", &dir, || {
        let s = Screen::grab(&display.name);
        std::thread::sleep(std::time::Duration::from_millis(150));
        let again = Screen::grab(&display.name);
        (text_rows(&s) > ROWS * 5 && differing_rows(&s, &again).is_empty()).then_some(again)
    });
    let from = std::fs::read_to_string(&trace)
        .unwrap_or_default()
        .lines()
        .count();
    let echoes = count(&trace, "key_echo_frame");
    for key in ["q", "u", "i"] {
        xdo(&display, &["key", "--window", &window, key]);
    }
    wait_for("the keys' echoes", &dir, || {
        (count(&trace, "key_echo_frame") >= echoes + 3).then_some(())
    });
    let text = std::fs::read_to_string(&trace).unwrap_or_default();
    let typed = frames(&text, from);
    let echo_frames: Vec<_> = typed.iter().filter(|(_, echo)| *echo).collect();
    assert!(
        !echo_frames.is_empty(),
        "no frame showed an echo: {typed:?}"
    );
    for ((drawn, in_view, direct), _) in &typed {
        assert_eq!(*direct, 0, "the pane drawn without its texture: {typed:?}");
        assert!(*in_view >= ROWS as u64, "{typed:?}");
        assert!(
            *drawn <= 3,
            "a frame after a key drew {drawn} rows of {in_view} (the echo's row and its \
             neighbours at most): {typed:?}"
        );
    }
    assert!(
        echo_frames.iter().all(|((drawn, _, _), _)| *drawn >= 1),
        "an echo's frame drew no row: {typed:?}"
    );
    // On screen: the echo's row changed, every other row is as it was.
    let after = wait_for("the echo painted", &dir, || {
        let s = Screen::grab(&display.name);
        (!differing_rows(&before, &s).is_empty()).then_some(s)
    });
    let changed = differing_rows(&before, &after);
    let cell_h = text_rows(&before) / ROWS + 2;
    assert!(
        changed.last().unwrap_or(&0) - changed.first().unwrap_or(&0) <= cell_h,
        "only the first row changes on screen, but pixel rows {changed:?} did"
    );
    assert_eq!(text_rows(&after), text_rows(&before), "rows of text lost");

    // A second tab (the tab bar makes both panes smaller: each is drawn once at the
    // new size), then back and forth: the first tab's texture is kept while hidden.
    let switch = |keys: &str| switch_tab(&display, &window, &trace, &dir, keys);
    switch("ctrl+shift+t");
    switch("ctrl+Tab");
    switch("ctrl+Tab");
    let from = std::fs::read_to_string(&trace)
        .unwrap_or_default()
        .lines()
        .count();
    let reveals = count(&trace, "reveal_frame");
    xdo(&display, &["key", "--window", &window, "ctrl+Tab"]);
    wait_for("the first tab shown again", &dir, || {
        (count(&trace, "reveal_frame") > reveals).then_some(())
    });
    let text = std::fs::read_to_string(&trace).unwrap_or_default();
    let ((drawn, in_view, direct), _) = reveal(&text, from, 1);
    assert_eq!(direct, 0);
    assert!(in_view > 20, "the first tab's rows in view: {in_view}");
    assert_eq!(
        drawn, 0,
        "the tab shown again drew {drawn} rows of {in_view}, though nothing changed"
    );
}

/// The first `frame` event of `text` from line `from` on that precedes pane `pane`'s
/// `reveal_frame` (the reveal is traced at the start of the frame after the one that
/// showed it), and that `reveal_frame` event.
fn reveal(text: &str, from: usize, pane: u64) -> ((u64, u64, u64), serde_json::Value) {
    let (at, line) = text
        .lines()
        .enumerate()
        .skip(from)
        .find(|(_, l)| {
            l.contains("\"event\":\"reveal_frame\",") && l.contains(&format!("\"pane\":{pane},"))
        })
        .expect("the reveal");
    let shown: String = text.lines().take(at).map(|l| format!("{l}\n")).collect();
    let (frame, _) = *frames(&shown, from)
        .last()
        .expect("the frame that showed it");
    (
        frame,
        serde_json::from_str(line).expect("a JSON trace line"),
    )
}

/// The rows a frame draws for `changed` rows of `n`: each with its neighbours, as
/// `app/src/window/grid/mod.rs` draws them (a glyph may reach into the next row).
fn with_neighbours(changed: &[usize], n: usize) -> usize {
    let mut marked = vec![false; n];
    for &r in changed {
        marked[r.saturating_sub(1)..(r + 2).min(n)].fill(true);
    }
    marked.iter().filter(|m| **m).count()
}

#[test]
fn a_tab_changed_while_hidden_draws_only_its_changed_rows_when_shown_again() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("grid-parked");
    // A full screen, then on each `goN` file: its text written over three rows at fixed
    // places (1-based 5, 13 and 21), the cursor hidden, nothing else printed.
    const CHANGED: [usize; 3] = [4, 12, 20];
    let script = format!(
        "i=0; while [ $i -lt 40 ]; do printf '{LINE} %02d\\n' $i; i=$((i+1)); done; \
         printf '\\033[?25l'; \
         for n in 1 2; do \
           while [ ! -e '{d}/go'$n ]; do sleep 0.05; done; t=$(cat '{d}/go'$n); \
           for r in 5 13 21; do printf '\\033[%d;1H%s' $r \"$t\"; done; \
         done; exec cat",
        d = dir.display()
    );
    let (_tern, trace) = start_filled(&display, &dir, &runtime, &script);
    let window = tern_window(&display);
    let socket = wait_for("tern msg's socket", &dir, || common::find_socket(&runtime));
    let switch = |keys: &str| switch_tab(&display, &window, &trace, &dir, keys);
    // A second tab (the tab bar makes the first pane smaller: it is drawn once at its
    // new size), the first again, then the second: the first is hidden, its texture kept.
    switch("ctrl+shift+t");
    switch("ctrl+Tab");
    switch("ctrl+Tab");
    // Its rows change while it is hidden, as the model has them (`get-text`). The first
    // round puts what the tab bar shows for such a tab (its badges) in the glyph atlas,
    // whose growth redraws every row, rightly; the second is the one measured. The
    // texts use only the screen's letters, so the rows put no new glyph there either.
    for (n, text) in [(1, "over the lazy dog 1111"), (2, "quick brown fox 2222")] {
        std::fs::write(dir.join(format!("go{n}.tmp")), text).expect("go file");
        std::fs::rename(dir.join(format!("go{n}.tmp")), dir.join(format!("go{n}")))
            .expect("go file");
        wait_for("the hidden tab's rows changed", &dir, || {
            let out = common::msg_cmd(&socket)
                .args(["get-text", "--pane", "1"])
                .output()
                .ok()?;
            (String::from_utf8_lossy(&out.stdout).matches(text).count() == CHANGED.len())
                .then_some(())
        });
        let from = std::fs::read_to_string(&trace)
            .unwrap_or_default()
            .lines()
            .count();
        switch("ctrl+Tab");
        if n == 1 {
            switch("ctrl+Tab");
            continue;
        }
        let traced = std::fs::read_to_string(&trace).unwrap_or_default();
        let ((drawn, in_view, direct), event) = reveal(&traced, from, 1);
        assert_eq!(direct, 0, "the pane drawn without its texture");
        assert!(in_view > 21, "the first tab's rows in view: {in_view}");
        let expected = with_neighbours(&CHANGED, in_view as usize) as u64;
        assert_eq!(
            drawn,
            expected,
            "the tab shown again drew {drawn} rows of {in_view}; {} rows changed while it \
             was hidden, {expected} with their neighbours",
            CHANGED.len()
        );
        assert_eq!(
            event["rows_rebuilt"].as_u64(),
            Some(CHANGED.len() as u64),
            "the rows rebuilt when the tab was shown again: {event}"
        );
    }
}

/// Catches the tab bar drawn again in every frame (each glyph of its titles re-shaded
/// on a software renderer, ~1 ms a key with 32 tabs): seen failing with
/// `KeptShapes::show` leaving the bar to egui (every frame `direct`).
#[test]
fn keys_typed_with_tabs_open_leave_the_tab_bar_as_it_was_drawn() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("grid-bar");
    // No echo: the keys change nothing on screen, so neither the pane nor the bar (its
    // activity marks follow output) has anything to draw again.
    let (_tern, trace) = start_tern(
        &display,
        &dir,
        &runtime,
        &[
            "--cols",
            "80",
            "--rows",
            "24",
            "-e",
            "sh",
            "-c",
            "printf '\\033]2;the first tab\\007'; stty -echo; exec cat",
        ],
    );
    wait_trace(&trace, &dir, "the first frame", |t| {
        t.contains("first_frame")
    });
    let window = tern_window(&display);
    let switch = |keys: &str| switch_tab(&display, &window, &trace, &dir, keys);
    switch("ctrl+shift+t");
    switch("ctrl+Tab");
    // The second tab's shell printed its prompt: its mark on the bar says so until its
    // output has been quiet a while (then the bar is drawn again, rightly).
    wait_for("the tabs' activity marks settled", &dir, || {
        let text = std::fs::read_to_string(&trace).unwrap_or_default();
        let marks = text.lines().rfind(|l| l.contains("\"event\":\"marks\""))?;
        (marks.contains("\"2\":") && !marks.contains("running")).then_some(())
    });
    // The bar's titles on screen: its top rows hold more than the background.
    let bar_pixels = |s: &Screen| -> Vec<(u8, u8, u8)> {
        (0..20)
            .flat_map(|y| (0..s.width).map(move |x| (x, y)))
            .map(|(x, y)| s.at(x, y))
            .collect()
    };
    let before = wait_for("the tab bar painted", &dir, || {
        let s = Screen::grab(&display.name);
        let bg = s.at(s.width - 1, 30);
        (bar_pixels(&s).iter().filter(|p| **p != bg).count() > 200).then_some(s)
    });
    let from = std::fs::read_to_string(&trace)
        .unwrap_or_default()
        .lines()
        .count();
    for key in ["q", "u", "i", "c", "k"] {
        xdo(&display, &["key", "--window", &window, key]);
    }
    // The keys reach cat (and this window's frames for them are over) once they are
    // read back from the pty: `get-text` would not show them (no echo), so count the
    // frames egui asks for each key (its press and its release).
    wait_for("the keys' frames", &dir, || {
        let text = std::fs::read_to_string(&trace).unwrap_or_default();
        (text
            .lines()
            .skip(from)
            .filter(|l| l.contains("\"event\":\"frame\""))
            .count()
            >= 5)
            .then_some(())
    });
    let text = std::fs::read_to_string(&trace).unwrap_or_default();
    let bars: Vec<String> = text
        .lines()
        .skip(from)
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["event"] == "frame")
        .map(|v| v["bar"].as_str().unwrap_or("missing").to_owned())
        .collect();
    assert!(
        bars.iter().all(|b| b == "kept"),
        "the frames after the keys drew the tab bar so (kept: copied from its texture): {bars:?}"
    );
    let after = Screen::grab(&display.name);
    assert!(
        bar_pixels(&after) == bar_pixels(&before),
        "the tab bar on screen changed though nothing in it did"
    );
}
