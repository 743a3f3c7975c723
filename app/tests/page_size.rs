//! A program's page size in the window (egui_kittest, which carries out the app's
//! `ViewportCommand::InnerSize` by resizing its window): DECCOLM in a pane shown alone
//! makes the window hold 132 columns; in a split the pane keeps its rectangle and the
//! program gets what fits; a maximized window does not move; `CSI 8 t` is refused
//! unless the config allows it. Each time `stty size` inside agrees with the pixels.

use std::time::Duration;

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use tern::window::app::Launch;
use tern_core::model::TermSize;
use tern_core::pipeline::SpawnSpec;

mod common;
use common::Slot;
use tern::window::app::TestView as _;

const WINDOW: egui::Vec2 = egui::vec2(800.0, 480.0);

/// A pane running `sh -c script` in an 800x480 window.
fn harness(script: &str) -> Harness<'static, Slot> {
    let launch = Launch::new(SpawnSpec::command("sh", &["-c", script]).size(TermSize::new(80, 24)));
    common::app_harness(launch, WINDOW)
}

/// Waits for a line, sends `request`, then prints `stty size` for each line typed.
fn script(request: &str) -> String {
    format!("read l; printf '{request}'; while read l; do stty size; done")
}

fn screen(h: &Harness<'_, Slot>) -> Vec<String> {
    common::screen_rows(h)
}

/// The focused pane's grid (the size the model and the pty were given).
fn grid(h: &Harness<'_, Slot>) -> Option<TermSize> {
    let app = h.state().as_ref()?;
    app.pane_ui(app.pane()?)?.grid()
}

/// What the focused pane's rectangle fits.
fn fits(h: &Harness<'_, Slot>) -> Option<TermSize> {
    let app = h.state().as_ref()?;
    app.pane_ui(app.pane()?)?.fits()
}

fn window(h: &Harness<'_, Slot>) -> egui::Vec2 {
    h.ctx.viewport_rect().size()
}

/// Steps frames (with real time passing for the pty) until `done` holds.
fn step_until(
    h: &mut Harness<'static, Slot>,
    what: &str,
    done: impl Fn(&Harness<'static, Slot>) -> bool,
) {
    if common::step_until_or(h, Duration::from_secs(20), done) {
        return;
    }
    panic!(
        "{what}: grid {:?}, fits {:?}, window {:?}, screen {:#?}",
        grid(h),
        fits(h),
        window(h),
        screen(h)
    );
}

fn enter(h: &mut Harness<'static, Slot>) {
    h.key_press(Key::Enter);
    h.step();
}

/// Types Enter until the program's `stty size` says `size`.
fn stty_says(h: &mut Harness<'static, Slot>, size: TermSize) {
    let line = format!("{} {}", size.rows, size.cols);
    tern_testkit::eventually(
        format!("stty size says {line}"),
        Duration::from_secs(20),
        || {
            if screen(h).contains(&line) {
                return Ok(());
            }
            let seen = format!("{:#?}", screen(h));
            enter(h);
            Err(seen)
        },
    );
}

/// The pane fits its rectangle, which holds more than 80x24 in 800x480.
fn settled(h: &mut Harness<'static, Slot>) -> TermSize {
    step_until(h, "the pane fits the window", |h| {
        grid(h).is_some_and(|g| g.rows > 24) && grid(h) == fits(h)
    });
    grid(h).expect("grid")
}

#[test]
fn deccolm_in_a_pane_alone_resizes_the_window_to_132_columns_and_back() {
    let mut h = harness(
        "read l; printf '\\033[?40h\\033[?3h'; read l; stty size; \
         read l; printf '\\033[?3l'; while read l; do stty size; done",
    );
    let before = settled(&mut h);
    enter(&mut h);
    step_until(&mut h, "132 columns", |h| {
        grid(h).is_some_and(|g| g.cols == 132) && grid(h) == fits(h)
    });
    let rows = grid(&h).expect("grid").rows;
    assert_eq!(rows, before.rows, "DECCOLM keeps the rows");
    assert!(window(&h).x > WINDOW.x, "the window grew: {:?}", window(&h));
    assert_eq!(window(&h).y, WINDOW.y, "only the width changed");
    enter(&mut h);
    let wide = format!("{rows} 132");
    step_until(&mut h, "stty size says 132", |h| screen(h).contains(&wide));
    // DECCOLM off: 80 columns, and the window narrows to them.
    enter(&mut h);
    step_until(&mut h, "80 columns", |h| {
        grid(h).is_some_and(|g| g.cols == 80) && grid(h) == fits(h)
    });
    assert!(
        window(&h).x < WINDOW.x,
        "the window narrowed: {:?}",
        window(&h)
    );
    stty_says(&mut h, TermSize::new(80, rows));
}

#[test]
fn decslpp_and_decscpp_in_a_pane_alone_resize_the_window() {
    // 30 lines, then 132 columns per page.
    let mut h = harness(&script("\\033[30t\\033[132$|"));
    settled(&mut h);
    enter(&mut h);
    step_until(&mut h, "132x30", |h| {
        grid(h) == Some(TermSize::new(132, 30)) && fits(h) == grid(h)
    });
    stty_says(&mut h, TermSize::new(132, 30));
}

#[test]
fn in_a_split_the_pane_keeps_its_rectangle_and_the_program_gets_what_fits() {
    let mut h = harness(
        "read l; stty size; read l; printf '\\033[?40h\\033[?3h'; \
         while read l; do stty size; done",
    );
    settled(&mut h);
    h.key_press_modifiers(Modifiers::CTRL | Modifiers::SHIFT, Key::D);
    step_until(&mut h, "two panes", |h| {
        h.state()
            .as_ref()
            .is_some_and(|a| a.core().ws().visible_panes().len() == 2)
    });
    // Back to the left pane, whose program now asks for 132 columns.
    h.key_press_modifiers(Modifiers::CTRL | Modifiers::SHIFT, Key::ArrowLeft);
    step_until(&mut h, "the left pane fits its half", |h| {
        grid(h).is_some_and(|g| g.cols < 60) && grid(h) == fits(h)
    });
    let half = grid(&h).expect("grid");
    // The pty has the half before DECCOLM (which clears the screen).
    enter(&mut h);
    let line = format!("{} {}", half.rows, half.cols);
    step_until(&mut h, "stty size says the half", |h| {
        screen(h).contains(&line)
    });
    enter(&mut h);
    step_until(&mut h, "DECCOLM cleared the screen", |h| {
        !screen(h).contains(&line)
    });
    // The pty said 132 for a moment; it ends at what the half fits.
    stty_says(&mut h, half);
    assert_eq!(grid(&h), Some(half));
    assert_eq!(window(&h), WINDOW, "the window did not move");
}

#[test]
fn a_maximized_window_does_not_move_and_the_pane_keeps_what_fits() {
    let mut h = harness(&script("\\033[?40h\\033[?3h"));
    let before = settled(&mut h);
    h.input_mut()
        .viewports
        .entry(egui::ViewportId::ROOT)
        .or_default()
        .maximized = Some(true);
    enter(&mut h);
    stty_says(&mut h, before);
    assert_eq!(grid(&h), Some(before));
    assert_eq!(window(&h), WINDOW);
}

#[test]
fn csi_8_t_does_not_resize_the_window_unless_the_config_allows_it() {
    let mut h = harness(&script("\\033[8;30;100t"));
    let before = settled(&mut h);
    enter(&mut h);
    stty_says(&mut h, before);
    for _ in 0..5 {
        h.step();
    }
    assert_eq!(grid(&h), Some(before));
    assert_eq!(window(&h), WINDOW);
}
