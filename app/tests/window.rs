//! The window's behaviour with egui_kittest (headless: no display, no GPU): typing
//! reaches the pty, paste is sanitized, zoom changes the cell size.

use std::time::Duration;

use egui::{Event, Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;

mod common;
use common::{Slot, selected};
use tern::window::app::TestView as _;
use tern_testkit::eventually;

/// `tern --hold -e PROGRAM ARGS` (80x24, no config file) through the binary's start-up;
/// held, so a test can read the last screen after the program exits.
fn harness(program: &str, args: &[&str]) -> Harness<'static, Slot> {
    let config = std::env::temp_dir().join("tern-window-tests-no-config.ron");
    let mut all = vec![
        "--config",
        config.to_str().expect("utf-8"),
        "--hold",
        "--cols",
        "80",
        "--rows",
        "24",
        "-e",
        program,
    ];
    all.extend_from_slice(args);
    common::app_harness_from_args(&all, egui::vec2(800.0, 480.0))
}

/// `sh -c script` in the window, once a row reads `line` and the pane has its size.
fn sh_showing(script: &str, line: &str) -> Harness<'static, Slot> {
    let mut h = harness("sh", &["-c", script]);
    step_until(&mut h, "output", |rows| rows.iter().any(|r| r == line));
    common::wait_sized(&mut h);
    h
}

/// Carries out `command` as the key map would.
fn run(h: &mut Harness<'_, Slot>, command: tern::window::commands::Command) {
    let ctx = h.ctx.clone();
    if let Some(app) = h.state_mut().as_mut() {
        app.run_command(&ctx, command);
    }
}

/// Whether the focused pane has a selection.
fn has_selection(h: &Harness<'_, Slot>) -> bool {
    let app = h.state().as_ref().expect("app");
    app.pane()
        .and_then(|p| app.pane_ui(p))
        .is_some_and(|p| p.selection().is_some())
}

/// The rows the window shows (history lines when scrolled up).
fn screen_rows(h: &mut Harness<'static, Slot>) -> Vec<String> {
    h.state_mut()
        .as_mut()
        .map(|a| a.shown_rows())
        .unwrap_or_default()
}

fn screen(h: &Harness<'_, Slot>) -> Vec<String> {
    common::screen_rows(h)
}

/// Steps frames (with real time passing for the pty) until `done` holds.
fn step_until(h: &mut Harness<'_, Slot>, what: &str, done: impl Fn(&[String]) -> bool) {
    if common::step_until_or(h, Duration::from_secs(20), |h| done(&screen(h))) {
        return;
    }
    panic!("{what}: screen was {:#?}", screen(h));
}

#[test]
fn typing_reaches_the_pty_and_its_echo_is_drawn() {
    let mut h = harness("cat", &[]);
    step_until(&mut h, "the view appears", |_| true);
    h.event(Event::Text("hello".into()));
    h.key_press(Key::Enter);
    // The tty echoes the line and cat prints it again.
    step_until(&mut h, "echo", |rows| {
        rows.iter().filter(|r| r.as_str() == "hello").count() == 2
    });
    // Ctrl+C (a key event, no text) reaches the program as ^C and ends cat.
    h.key_press_modifiers(Modifiers::CTRL, Key::C);
    step_until(&mut h, "exit", |_| true);
    eventually("cat exits on Ctrl+C", Duration::from_secs(10), || {
        let exited = h.state().as_ref().is_some_and(|a| a.exited().is_some());
        if !exited {
            h.step();
        }
        exited
    });
}

#[test]
fn pasted_escape_sequences_never_reach_the_program() {
    let mut h = harness("cat", &["-v"]);
    step_until(&mut h, "the view appears", |_| true);
    h.event(Event::Paste("x\x1b[31my\x07z\n".into()));
    step_until(&mut h, "paste echoed", |rows| {
        rows.iter().filter(|r| r.as_str() == "x[31myz").count() == 2
    });
    assert!(
        screen(&h)
            .iter()
            .all(|r| !r.contains("^[") && !r.contains("^G")),
        "{:?}",
        screen(&h)
    );
}

#[test]
fn ctrl_plus_and_minus_zoom_the_font_and_the_grid_follows() {
    let mut h = harness("cat", &[]);
    // The pane starts at 80x24 and grows to what fits the 800x480 window.
    step_until(&mut h, "the grid fits the window", |rows| rows.len() > 24);
    let cols_before = screen(&h).len();
    let size_before = h
        .state()
        .as_ref()
        .map(|a| a.font_size())
        .unwrap_or_default();
    h.key_press_modifiers(Modifiers::CTRL, Key::Equals);
    h.key_press_modifiers(Modifiers::CTRL, Key::Equals);
    h.step();
    let size_after = h
        .state()
        .as_ref()
        .map(|a| a.font_size())
        .unwrap_or_default();
    assert_eq!(size_after, size_before + 2.0);
    // A bigger cell means fewer rows in the same window.
    step_until(&mut h, "the grid shrinks", |rows| rows.len() < cols_before);
    h.key_press_modifiers(Modifiers::CTRL, Key::Num0);
    h.step();
    assert_eq!(h.state().as_ref().map(|a| a.font_size()), Some(size_before));
}

/// Presses the left button on cell `from` (column, row), drags to `to` and releases.
fn drag_select(h: &mut Harness<'static, Slot>, from: (f32, f32), to: (f32, f32)) {
    drag_select_with(h, from, to, Modifiers::NONE);
}

fn drag_select_with(
    h: &mut Harness<'static, Slot>,
    from: (f32, f32),
    to: (f32, f32),
    modifiers: Modifiers,
) {
    let cell = h
        .state()
        .as_ref()
        .map(|a| a.metrics(&h.ctx).cell)
        .expect("metrics");
    let origin = h.get_by_label("terminal").rect().min;
    let at = |(col, row): (f32, f32)| origin + egui::vec2(col * cell.x + 1.0, row * cell.y + 1.0);
    let press = |pos, pressed| Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers,
    };
    h.event(Event::PointerMoved(at(from)));
    h.event(press(at(from), true));
    h.event(Event::PointerMoved(at(to)));
    h.event(press(at(to), false));
}

fn wheel(lines: f32) -> Event {
    Event::MouseWheel {
        unit: egui::MouseWheelUnit::Line,
        delta: egui::vec2(0.0, lines),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
        modifiers: Modifiers::NONE,
    }
}

#[test]
fn the_wheel_scrolls_through_history_paged_from_the_model() {
    let mut h = harness(
        "sh",
        &[
            "-c",
            "i=0; while [ $i -lt 100 ]; do echo line$i; i=$((i+1)); done; exec cat",
        ],
    );
    // The grid has grown to the window (so the screen does not change under us).
    step_until(&mut h, "output", |rows| {
        rows.len() > 24 && rows.iter().any(|r| r == "line99")
    });
    h.event(egui::Event::PointerMoved(egui::pos2(100.0, 100.0)));
    h.event(wheel(10.0)); // 30 lines up
    h.step();
    // The history page comes from the model thread: under load, a frame or more later.
    let shown = eventually("a history page comes", Duration::from_secs(20), || {
        let shown = screen_rows(&mut h);
        if shown.first().is_some_and(|r| r.starts_with("line")) {
            return Ok(shown);
        }
        h.step();
        Err(format!("{shown:?}"))
    });
    assert_eq!(h.state().as_ref().map(|a| a.scroll_offset()), Some(30));
    let first: usize = shown[0]
        .trim_start_matches("line")
        .parse()
        .expect("a history line on top");
    let live_first: usize = screen(&h)[0]
        .trim_start_matches("line")
        .parse()
        .expect("a line on top of the screen");
    assert_eq!(first + 30, live_first, "{shown:?}");
    // Shift+PageDown and typing return to the live screen.
    h.key_press_modifiers(Modifiers::SHIFT, Key::PageDown);
    h.step();
    assert!(h.state().as_ref().map(|a| a.scroll_offset()).unwrap_or(0) < 30);
    h.event(Event::Text("x".into()));
    h.step();
    assert_eq!(h.state().as_ref().map(|a| a.scroll_offset()), Some(0));
}

#[test]
fn dragging_selects_cells_and_ctrl_shift_c_copies_them() {
    let mut h = harness("sh", &["-c", "printf 'alpha beta gamma\\n'; exec cat"]);
    step_until(&mut h, "output", |rows| {
        rows.iter().any(|r| r == "alpha beta gamma")
    });
    common::wait_sized(&mut h);
    drag_select(&mut h, (6.0, 0.0), (9.0, 0.0));
    h.step();
    assert_eq!(selected(&mut h), Some("beta".to_string()));
    // Key down only: the copy command is in the output of the frame that handled it.
    let ctrl_shift = Modifiers::CTRL | Modifiers::SHIFT;
    common::key_down(&mut h, Key::C, ctrl_shift);
    let copied: Vec<String> = h
        .output()
        .platform_output
        .commands
        .iter()
        .filter_map(|c| {
            if let egui::OutputCommand::CopyText(t) = c {
                Some(t.clone())
            } else {
                None
            }
        })
        .collect();
    assert_eq!(copied, vec!["beta".to_string()]);
}

#[test]
fn a_multi_line_paste_without_bracketed_paste_asks_first() {
    let mut h = harness("cat", &[]);
    step_until(&mut h, "the view appears", |_| true);
    h.event(Event::Paste("first line\nsecond line\n".into()));
    h.step();
    h.step();
    assert_eq!(h.state().as_ref().map(|a| a.paste_pending()), Some(true));
    // A marker written to the pty after the paste: once its echo is drawn, a paste
    // sent before the answer would have been drawn before it.
    write_marker(&mut h, "marker one");
    assert!(
        !screen(&h).iter().any(|r| r == "first line"),
        "nothing is sent before the answer"
    );
    h.get_by_label("Paste").click();
    h.step();
    h.step();
    assert_eq!(h.state().as_ref().map(|a| a.paste_pending()), Some(false));
    step_until(&mut h, "pasted lines echoed", |rows| {
        rows.iter().filter(|r| r.as_str() == "second line").count() == 2
    });
    // Cancel sends nothing.
    h.event(Event::Paste("third\nfourth\n".into()));
    h.step();
    h.step();
    h.get_by_label("Cancel").click();
    h.step();
    h.step();
    write_marker(&mut h, "marker two");
    assert!(!screen(&h).iter().any(|r| r == "third"));
}

/// Writes `text` and a newline to the focused pane's pty (`cat` there) and steps until
/// both its echo and cat's copy are drawn: whatever the window wrote to the pty before
/// is on the screen by then.
fn write_marker(h: &mut Harness<'static, Slot>, text: &str) {
    let app = h.state().as_ref().expect("app");
    let pane = app.pane().expect("a focused pane");
    app.core()
        .pipeline()
        .write(pane, format!("{text}\n").as_bytes());
    step_until(h, text, |rows| {
        rows.iter().filter(|r| r.as_str() == text).count() == 2
    });
}

#[test]
fn osc8_links_and_urls_in_text_are_found_under_the_pointer() {
    let script = "printf '\\033]8;;https://tern.example/docs\\033\\\\docs\\033]8;;\\033\\\\ and https://example.org/x\\n'; exec cat";
    let mut h = harness("sh", &["-c", script]);
    step_until(&mut h, "output", |rows| {
        rows.iter().any(|r| r.starts_with("docs and"))
    });
    let app = h.state_mut().as_mut().expect("app");
    assert_eq!(
        app.link_at_cell(0, 2),
        Some((vec![(0, 0..4)], "https://tern.example/docs".to_string()))
    );
    assert_eq!(
        app.link_at_cell(0, 12),
        Some((vec![(0, 9..30)], "https://example.org/x".to_string()))
    );
    assert_eq!(app.link_at_cell(0, 6), None);
}

/// A URL with parentheses that soft-wraps at the right edge is found whole from either
/// row. Catches the old one-row scan that stopped at `(` and at the row's end.
#[test]
fn a_wrapped_url_with_parentheses_is_found_whole() {
    // Printed after the pane has its size (a resize would re-wrap the line).
    let script = "read go; cols=$(stty size | cut -d' ' -f2); printf '%*s' $((cols - 20)) ''; \
                  printf 'https://en.wikipedia.org/wiki/Rust_(programming_language).\\n'; exec cat";
    let mut h = harness("sh", &["-c", script]);
    step_until(&mut h, "the view appears", |_| true);
    common::wait_sized(&mut h);
    h.key_press(Key::Enter);
    step_until(&mut h, "wrapped url", |rows| {
        rows.iter().any(|r| r.contains("language)."))
    });
    let app = h.state_mut().as_mut().expect("app");
    let cols = app.view().map(|v| v.meta.size.cols).expect("a view");
    let row = screen(&h)
        .iter()
        .position(|r| r.contains("https://"))
        .expect("url row");
    let app = h.state_mut().as_mut().expect("app");
    let want = "https://en.wikipedia.org/wiki/Rust_(programming_language)";
    let (spans, url) = app
        .link_at_cell(row, cols - 5)
        .expect("url on its first row");
    assert_eq!(url, want);
    assert_eq!(
        spans,
        vec![(row, cols - 20..cols), (row + 1, 0..want.len() - 20)],
        "underlined on both rows"
    );
    let (_, url) = app
        .link_at_cell(row + 1, 10)
        .expect("url on its second row");
    assert_eq!(url, want);
}

#[test]
fn text_composed_by_an_input_method_reaches_the_pty() {
    let mut h = harness("cat", &[]);
    step_until(&mut h, "the view appears", |_| true);
    h.event(Event::Ime(egui::ImeEvent::Commit("日本語".into())));
    h.key_press(Key::Enter);
    step_until(&mut h, "echo", |rows| {
        rows.iter().filter(|r| r.as_str() == "日本語").count() == 2
    });
}

#[test]
fn ctrl_shift_f_finds_text_in_history_and_scrolls_to_it() {
    let script = "i=0; while [ $i -lt 120 ]; do if [ $i -eq 30 ]; then echo needle here; else echo line$i; fi; i=$((i+1)); done; exec cat";
    let mut h = harness("sh", &["-c", script]);
    step_until(&mut h, "output", |rows| rows.iter().any(|r| r == "line119"));
    let ctrl_shift = Modifiers::CTRL | Modifiers::SHIFT;
    common::key_down(&mut h, Key::F, ctrl_shift);
    h.step();
    assert!(
        h.state().as_ref().is_some_and(|a| a.search().is_some()),
        "the search bar opened"
    );
    h.event(Event::Text("needle".into()));
    h.step();
    h.key_press(Key::Enter);
    // The search runs on the model thread; the window keeps drawing and takes the
    // answer on a later frame.
    eventually("the search's answer", Duration::from_secs(10), || {
        h.step();
        h.state()
            .as_ref()
            .and_then(|a| a.search())
            .is_some_and(|s| s.results.is_some() && !s.searching())
    });
    h.step();
    let app = h.state().as_ref().expect("app");
    let found = app
        .search()
        .and_then(|s| s.results.as_ref())
        .map(|r| r.matches.len());
    assert_eq!(found, Some(1));
    assert!(app.scroll_offset() > 0, "scrolled to the match");
    // The history lines in view are asked for without waiting: a frame or more.
    common::wait_history_in_view(&mut h);
    let shown = screen_rows(&mut h);
    assert!(shown.iter().any(|r| r == "needle here"), "{shown:?}");
    h.key_press(Key::Escape);
    h.step();
    assert!(
        h.state().as_ref().is_some_and(|a| a.search().is_none()),
        "Escape closes the bar"
    );
}

/// Ctrl+Shift+C on a selection whose line scrolled into the history (the view at the
/// bottom holds none of it): the page is asked for between frames and the copy comes a
/// frame or more later, with no call that waits for the model. Catches the copy that
/// read the history with `Pipeline::history` on the key press (`ui_waits` grew).
#[test]
fn copying_a_selection_in_the_history_does_not_wait_for_the_model() {
    let script = "stty -echo; printf 'alpha beta gamma\\n'; read x; i=0; while [ $i -lt 40 ]; do echo more$i; i=$((i+1)); done; exec cat";
    let mut h = sh_showing(script, "alpha beta gamma");
    drag_select(&mut h, (6.0, 0.0), (9.0, 0.0));
    h.step();
    h.key_press(Key::Enter);
    step_until(&mut h, "scrolled", |rows| {
        rows.iter().any(|r| r == "more39")
    });
    h.step();
    assert!(has_selection(&h), "the selection stays on its line");
    let pipeline = h.state().as_ref().expect("app").core().pipeline().clone();
    common::key_down(&mut h, Key::C, Modifiers::CTRL | Modifiers::SHIFT);
    assert_eq!(common::step_until_copied(&mut h, "Ctrl+Shift+C"), ["beta"]);
    assert_eq!(pipeline.ui_waits(), 0, "the copy waited for the model");
}

/// A key whose echo changes the selected cells: the frame that wrote the key waited for
/// the echo and drew it, and no wake-up follows that delivery (`Slot::put`), so that
/// same frame drops the selection, as a frame that takes a delivery does. Each key
/// here rewrites the first line with a new number, under the selection.
#[test]
fn a_selection_the_keys_echo_changes_is_dropped_in_the_keys_frame() {
    let script = r#"stty raw -echo; printf 'count0'; exec bash -c 'n=0; while IFS= read -r -n1 c; do n=$((n+1)); printf "\r\033[2Kcount%s" $n; done'"#;
    let mut h = sh_showing(script, "count0");
    // The echo is caught by the key's frame when it comes within the echo wait (3 ms);
    // a slow machine may miss it now and then: try a few keys.
    for n in 1..=10 {
        drag_select(&mut h, (5.0, 0.0), (5.0, 0.0));
        h.step();
        h.step();
        assert!(has_selection(&h), "the digit is selected");
        h.event(Event::Text("a".into()));
        h.step();
        if screen(&h)
            .first()
            .is_some_and(|r| *r == format!("count{n}"))
        {
            assert!(
                !has_selection(&h),
                "the frame that drew the key's echo kept a selection over changed cells"
            );
            return;
        }
        step_until(&mut h, "the echo", |rows| {
            rows.first().is_some_and(|r| *r == format!("count{n}"))
        });
    }
    panic!("no key's echo came within its frame's wait in ten keys");
}

#[test]
fn a_selection_follows_its_text_as_output_scrolls_and_clears_when_the_text_changes() {
    // No echo: the Enter keys must not scroll the screen themselves.
    let script = "stty -echo; printf 'alpha beta gamma\\n'; read x; i=0; while [ $i -lt 40 ]; do echo more$i; i=$((i+1)); done; \
                  read y; i=0; while [ $i -lt 30 ]; do echo later$i; i=$((i+1)); done; \
                  read z; printf '\\033[1;1H\\033[2Kchanged\\n'; exec cat";
    let mut h = sh_showing(script, "alpha beta gamma");
    drag_select(&mut h, (6.0, 0.0), (9.0, 0.0));
    h.step();
    h.step();
    assert_eq!(selected(&mut h), Some("beta".to_string()));
    // 40 more lines push "alpha beta gamma" into the scrollback: the selection stays on it.
    h.key_press(Key::Enter);
    step_until(&mut h, "scrolled", |rows| {
        rows.iter().any(|r| r == "more39")
    });
    // The selected row is in the scrollback now: its text comes from the model's history
    // a frame or more later (the window never waits for it).
    assert_eq!(selected(&mut h), Some("beta".to_string()));
    // The model runs ahead of the frame the window holds: 30 more lines are parsed
    // while no frame is taken. The selection's line is still the same line (history is
    // asked for by absolute line, not by distance from the model's newest line, which
    // read "later…" here and cleared the selection on the next frame).
    let (pipeline, pane) = {
        let app = h.state().as_ref().expect("app");
        (app.core().pipeline().clone(), app.pane().expect("pane"))
    };
    // Typed straight to the pty, so that no frame is taken until the test says.
    pipeline.write(pane, b"\r");
    let newest = |pipeline: &tern_core::pipeline::Pipeline| {
        pipeline
            .history(pane, 0, 0)
            .map_or(0, |p| p.dropped + p.total as u64)
    };
    let shown = h
        .state()
        .as_ref()
        .and_then(|a| a.view())
        .map_or(0, |v| v.meta.scrollback_dropped + v.meta.scrollback_lines);
    eventually("the model runs ahead", Duration::from_secs(10), || {
        let newest = newest(&pipeline);
        if newest >= shown + 30 {
            return Ok(());
        }
        Err(format!(
            "its newest line {newest}, the frame's {shown}, screen {:?}",
            screen(&h)
        ))
    });
    assert_eq!(
        selected(&mut h),
        Some("beta".to_string()),
        "read from a stale frame"
    );
    // Frames of new output do not ask the model for the selection's text: its line is
    // in the scrollback, which does not change (a screenful of selected lines would
    // be a page per frame, a whole selection before).
    let pages = pipeline.history_pages();
    step_until(&mut h, "more output", |rows| {
        rows.iter().any(|r| r == "later29")
    });
    h.step();
    assert_eq!(
        pipeline.history_pages(),
        pages,
        "history asked for while drawing"
    );
    assert_eq!(
        selected(&mut h),
        Some("beta".to_string()),
        "after the frames caught up"
    );
    // Select on the screen, then the program rewrites that row: the selection goes.
    drag_select(&mut h, (0.0, 0.0), (3.0, 0.0));
    h.step();
    h.step();
    let before = selected(&mut h);
    assert!(
        before.as_deref().is_some_and(|t| t.starts_with("late")),
        "{before:?}"
    );
    h.key_press(Key::Enter);
    step_until(&mut h, "rewritten", |rows| {
        rows.first().is_some_and(|r| r == "changed")
    });
    h.step();
    h.step();
    assert_eq!(selected(&mut h), None);
}

#[test]
fn a_selection_in_the_scrollback_goes_when_a_new_width_rewraps_the_lines() {
    // Long lines above the selected one: a narrower screen re-wraps them, and the
    // selected line's number moves.
    let script = "stty -echo; i=0; while [ $i -lt 10 ]; do printf 'top%02d-%060d\\n' $i 0; i=$((i+1)); done; \
                  printf 'alpha beta gamma\\n'; i=0; while [ $i -lt 40 ]; do echo \"$(printf 'row%02d-%060d' $i 0)\"; i=$((i+1)); done; exec cat";
    let mut h = harness("sh", &["-c", script]);
    step_until(&mut h, "output", |rows| {
        rows.iter().any(|r| r.starts_with("row39"))
    });
    common::wait_sized(&mut h);
    // Scroll up to the top and select "beta" on the short line.
    for _ in 0..40 {
        h.event(wheel(3.0));
        h.step();
    }
    let row = screen_rows(&mut h)
        .iter()
        .position(|r| r == "alpha beta gamma")
        .expect("the short line in view");
    drag_select(&mut h, (6.0, row as f32), (9.0, row as f32));
    h.step();
    assert_eq!(selected(&mut h), Some("beta".to_string()));
    // Narrower: the lines re-wrap; the selection's line numbers no longer name its text.
    h.set_size(egui::vec2(500.0, 480.0));
    common::step_until_or(&mut h, Duration::from_secs(10), |h| !has_selection(h));
    assert_eq!(selected(&mut h), None, "the selection went with the width");
}

#[test]
fn only_changed_rows_are_rebuilt_between_frames() {
    // A screenful of text, then one row changes every half second.
    let mut h = harness(
        "sh",
        &[
            "-c",
            "seq 1 20; i=0; while [ $i -lt 100 ]; do printf '\\r%s' $i; i=$((i+1)); sleep 0.5; done",
        ],
    );
    step_until(&mut h, "the numbers", |rows| rows.iter().any(|r| r == "20"));
    // That resize redraws every row, so the count starts after it.
    common::wait_sized(&mut h);
    // The first frame with everything drawn rebuilds every row; later frames only the
    // changed ones.
    let rows = screen(&h).len();
    let mut rebuilt = Vec::new();
    for _ in 0..20 {
        h.step();
        let app = h.state().as_ref().expect("app");
        let pane = app.pane().expect("pane");
        rebuilt.push(app.pane_ui(pane).map_or(usize::MAX, |p| p.rows_rebuilt()));
        std::thread::sleep(Duration::from_millis(60));
    }
    assert!(
        rebuilt.iter().all(|&n| n <= 2),
        "rebuilt rows per frame: {rebuilt:?} of {rows}"
    );
    // Zooming invalidates every row.
    let total = |h: &Harness<'static, Slot>| {
        let app = h.state().as_ref().expect("app");
        app.pane_ui(app.pane().expect("pane"))
            .map_or(0, |p| p.rows_rebuilt_total())
    };
    let before = total(&h);
    h.key_press_modifiers(Modifiers::CTRL, Key::Equals);
    h.step();
    assert!(
        total(&h) - before >= 20,
        "{} rows rebuilt",
        total(&h) - before
    );
}

#[test]
fn alt_drag_selects_a_block_of_columns() {
    let mut h = harness(
        "sh",
        &[
            "-c",
            "printf 'id  name   size\\n01  alpha  10\\n02  beta   200\\n'; exec cat",
        ],
    );
    step_until(&mut h, "output", |rows| {
        rows.iter().any(|r| r == "02  beta   200")
    });
    // Columns 4..=8 of the three rows: the name column.
    drag_select_with(&mut h, (4.0, 0.0), (8.0, 2.0), Modifiers::ALT);
    h.step();
    assert_eq!(selected(&mut h), Some("name\nalpha\nbeta".to_string()));
    // Without Alt the same drag selects running text.
    drag_select(&mut h, (4.0, 0.0), (8.0, 2.0));
    h.step();
    assert_eq!(
        selected(&mut h),
        Some("name   size\n01  alpha  10\n02  beta".to_string())
    );
}

#[test]
fn a_touchpad_scrolls_history_by_pixels_showing_part_of_a_line() {
    let mut h = harness(
        "sh",
        &[
            "-c",
            "i=0; while [ $i -lt 100 ]; do echo line$i; i=$((i+1)); done; exec cat",
        ],
    );
    step_until(&mut h, "output", |rows| {
        rows.len() > 24 && rows.iter().any(|r| r == "line99")
    });
    let cell = h
        .state()
        .as_ref()
        .map(|a| a.metrics(&h.ctx).cell)
        .expect("metrics");
    let live_first: usize = screen(&h)[0]
        .trim_start_matches("line")
        .parse()
        .expect("a line on top of the screen");
    let rows = screen(&h).len();
    h.event(egui::Event::PointerMoved(egui::pos2(100.0, 100.0)));
    // Two and a half lines' worth of points, in five touchpad events.
    for _ in 0..5 {
        h.event(Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, cell.y / 2.0),
            modifiers: Modifiers::NONE,
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Trackpad,
        });
    }
    h.step();
    let position = h
        .state()
        .as_ref()
        .map(|a| a.scroll_position())
        .unwrap_or(0.0);
    assert!((position - 2.5).abs() < 0.01, "{position}");
    // The history rows come from the model thread: under load, a frame or more later.
    let shown = eventually("the history rows come", Duration::from_secs(20), || {
        let shown = screen_rows(&mut h);
        if shown.first().is_some_and(|r| r.starts_with("line")) {
            return Ok(shown);
        }
        h.step();
        Err(format!("{shown:?}"))
    });
    assert_eq!(shown.len(), rows + 1, "a partly shown line on top");
    assert_eq!(shown[0], format!("line{}", live_first - 3));
    // Half a line back down: whole lines again.
    h.event(Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, -cell.y / 2.0),
        modifiers: Modifiers::NONE,
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Trackpad,
    });
    h.step();
    let position = h
        .state()
        .as_ref()
        .map(|a| a.scroll_position())
        .unwrap_or(0.0);
    assert!((position - 2.0).abs() < 0.01, "{position}");
}

/// Invariant 5 at the window: through a session of scrolling far into a long history,
/// selecting and copying there, copy mode, saving the scrollback and opening a tab,
/// the window's thread makes no call that waits for the model thread (`ui_waits`,
/// counted by the pipeline for the thread the window marked). Catches any of those
/// paths reading history or a screen with the waiting `Pipeline::history` /
/// `dump_screen` (each seen failing so: the copy, copy mode's reader).
#[test]
fn nothing_the_window_does_waits_for_the_model() {
    let script = "i=1; while [ $i -le 3000 ]; do echo \"line $i\"; i=$((i+1)); done; exec cat";
    let mut h = sh_showing(script, "line 3000");
    let pipeline = h.state().as_ref().expect("app").core().pipeline().clone();
    // Far up the history, a page at a time.
    for _ in 0..40 {
        h.event(wheel(40.0));
        h.step();
    }
    common::wait_history_in_view(&mut h);
    assert!(h.state().as_ref().is_some_and(|a| a.scroll_offset() > 1000));
    // Select two rows there and copy them.
    drag_select(&mut h, (0.0, 2.0), (6.0, 3.0));
    h.step();
    common::key_down(&mut h, Key::C, Modifiers::CTRL | Modifiers::SHIFT);
    let copied = common::step_until_copied(&mut h, "Ctrl+Shift+C in the history");
    assert!(copied[0].starts_with("line "), "{copied:?}");
    // Copy mode from the live screen to the top of the history and back.
    common::key_down(&mut h, Key::Space, Modifiers::CTRL | Modifiers::SHIFT);
    for c in "ggvey".chars() {
        h.event(Event::Text(c.to_string()));
        h.step();
    }
    let copied = common::step_until_copied(&mut h, "copy mode's yank at the top");
    assert_eq!(copied, ["line"]);
    // Save the scrollback (read on the save's own thread) and open a tab.
    run(&mut h, tern::window::commands::Command::SaveScrollback);
    run(&mut h, tern::window::commands::Command::NewTab);
    for _ in 0..5 {
        h.step();
    }
    assert_eq!(pipeline.ui_waits(), 0, "the window waited for the model");
}

/// Ctrl+click on a hyperlink asks for it to be opened (the pane queues it; it is
/// opened off the UI thread when the pane's output is carried out). A link whose
/// scheme is refused (`javascript:`) is said in the pane at once and never queued.
/// Catches a refused link taken as any other, or a Ctrl+click that does nothing.
#[test]
fn ctrl_click_opens_a_link_and_a_refused_scheme_is_said() {
    let script =
        "printf '\\033]8;;javascript:alert(1)\\033\\\\bad link\\033]8;;\\033\\\\\\n'; exec cat";
    let mut h = sh_showing(script, "bad link");
    drag_select_with(&mut h, (1.0, 0.0), (1.0, 0.0), Modifiers::CTRL);
    h.step();
    h.step();
    let said = h
        .state()
        .as_ref()
        .and_then(|a| a.exited().map(str::to_owned));
    assert!(
        said.as_deref().is_some_and(|s| s.contains("not opening")),
        "{said:?}"
    );
}

/// The tab bar's full-width fill in the frame's shapes, if any (`theme.chrome.tab_bar`,
/// a bar `TAB_BAR_HEIGHT` tall across the window).
fn tab_bar_fill(h: &Harness<'_, Slot>) -> Option<egui::Rect> {
    let fill = tern::window::theme::Theme::default().chrome.tab_bar;
    h.output().shapes.iter().find_map(|cs| match &cs.shape {
        egui::Shape::Rect(r)
            if r.fill == fill
                && r.rect.height() <= tern::window::chrome::TAB_BAR_HEIGHT
                && r.rect.width() >= 700.0 =>
        {
            Some(r.rect)
        }
        _ => None,
    })
}

/// With tabs, the tab bar sits on a dark terminal background without a fill of its own
/// (issue 32: the fill cost a software renderer ~1.2 ms a frame), and keeps its dark
/// fill on a light background, where the chrome's light text needs it.
#[test]
fn the_tab_bar_is_filled_only_on_a_light_background() {
    for (theme, filled) in [(None, false), (Some("theme.name=Light"), true)] {
        let config = std::env::temp_dir().join("tern-window-tests-no-config.ron");
        let mut args = vec!["--config", config.to_str().expect("utf-8")];
        if let Some(o) = theme {
            args.extend(["-o", o]);
        }
        args.extend(["--cols", "80", "--rows", "24", "-e", "sh"]);
        let mut h = common::app_harness_from_args(&args, egui::vec2(800.0, 480.0));
        h.step();
        run(&mut h, tern::window::commands::Command::NewTab);
        for _ in 0..5 {
            h.step();
        }
        assert_eq!(
            tab_bar_fill(&h).is_some(),
            filled,
            "theme {theme:?}: tab bar fill {:?}",
            tab_bar_fill(&h)
        );
    }
}

/// The search bar stays inside a narrow pane (a 40-column split): its field and its
/// buttons whole, none of it left of the pane.
#[test]
fn the_search_bar_fits_a_narrow_pane() {
    let config = std::env::temp_dir().join("tern-window-tests-no-config.ron");
    let args = [
        "--config",
        config.to_str().expect("utf-8"),
        "--cols",
        "40",
        "--rows",
        "10",
        "-e",
        "sh",
        "-c",
        "echo ready; exec cat",
    ];
    let mut h = common::app_harness_from_args(&args, egui::vec2(360.0, 200.0));
    step_until(&mut h, "output", |rows| rows.iter().any(|r| r == "ready"));
    run(&mut h, tern::window::commands::Command::Search);
    h.run_steps(3);
    let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(360.0, 200.0));
    for label in ["Aa", ".*", "all panes"] {
        let rect = h.get_by_label(label).rect();
        assert!(
            window.contains_rect(rect),
            "{label} at {rect:?}, outside the 360-point window"
        );
    }
    let field = h.get_by_role(egui::accesskit::Role::TextInput).rect();
    assert!(field.left() >= 0.0, "the search field at {field:?}");
}
