//! Tabs, split panes, the command palette, the quick switcher and badges, driven through
//! the real window code with egui_kittest (headless) and real shells.

use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui::{Event, Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use tern::window::app::{Launch, TernApp};
use tern_core::model::TermSize;
use tern_core::pipeline::{PaneId, SpawnSpec};

type Slot = Option<TernApp>;

const CTRL_SHIFT: Modifiers = Modifiers {
    alt: false,
    ctrl: true,
    shift: true,
    mac_cmd: false,
    command: true,
};

fn harness() -> Harness<'static, Slot> {
    let launch = Launch {
        spec: SpawnSpec::command("sh", &[]).size(TermSize::new(80, 24)),
    };
    Harness::builder()
        .with_size(egui::vec2(1000.0, 600.0))
        .with_max_steps(64)
        .allow_missing_glyphs()
        .build_ui_state(
            move |ui, slot: &mut Slot| {
                let app = slot.get_or_insert_with(|| TernApp::new(ui.ctx(), launch.clone()));
                app.frame(ui);
            },
            None,
        )
}

fn app<'a>(h: &'a Harness<'_, Slot>) -> &'a TernApp {
    h.state().as_ref().expect("the app started")
}

fn focused(h: &Harness<'_, Slot>) -> PaneId {
    app(h).pane().expect("a focused pane")
}

/// The focused pane's screen text.
fn screen(h: &Harness<'_, Slot>) -> String {
    app(h)
        .view()
        .map(|v| v.dump().rows.join("\n"))
        .unwrap_or_default()
}

/// Steps frames (real time passes for the ptys) until `done` holds.
fn step_until(h: &mut Harness<'_, Slot>, what: &str, done: impl Fn(&Harness<'_, Slot>) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        h.step();
        if done(h) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("{what}: focused screen was\n{}", screen(h));
}

fn type_line(h: &mut Harness<'_, Slot>, line: &str) {
    h.event(Event::Text(line.into()));
    h.key_press(Key::Enter);
    h.step();
}

fn terminals(h: &Harness<'_, Slot>) -> usize {
    h.get_all_by_role(Role::Terminal).count()
}

#[test]
fn split_panes_take_keys_and_alt_arrows_move_focus_between_them() {
    let mut h = harness();
    step_until(&mut h, "the shell's view", |h| app(h).view().is_some());
    let first = focused(&h);
    h.key_press_modifiers(CTRL_SHIFT, Key::D);
    step_until(&mut h, "two panes side by side", |h| terminals(h) == 2);
    let second = focused(&h);
    assert_ne!(first, second, "the new pane takes focus");
    // The new pane is to the right of the first.
    let left = h.get_by_label(&format!("terminal {}", first.0)).rect();
    let right = h.get_by_label("terminal").rect();
    assert!(right.left() > left.right(), "{left:?} {right:?}");
    type_line(&mut h, "echo right-$((40+2))");
    step_until(&mut h, "typed into the right pane", |h| {
        screen(h).contains("right-42")
    });
    h.key_press_modifiers(Modifiers::ALT, Key::ArrowLeft);
    h.step();
    assert_eq!(focused(&h), first, "Alt+Left focuses the left pane");
    type_line(&mut h, "echo left-$((40+3))");
    step_until(&mut h, "typed into the left pane", |h| {
        screen(h).contains("left-43")
    });
    // The right pane did not get those keys.
    let right_text = app(&h)
        .pipeline()
        .dump_screen(second)
        .map(|d| d.rows.join("\n"))
        .unwrap_or_default();
    assert!(!right_text.contains("left-43"), "{right_text}");
    h.key_press_modifiers(Modifiers::ALT, Key::ArrowRight);
    h.step();
    assert_eq!(focused(&h), second);
    // Split down from the right pane, then Alt+Up goes back to it.
    h.key_press_modifiers(CTRL_SHIFT, Key::E);
    step_until(&mut h, "three panes", |h| terminals(h) == 3);
    let third = focused(&h);
    h.key_press_modifiers(Modifiers::ALT, Key::ArrowUp);
    h.step();
    assert_eq!(focused(&h), second);
    // Zoom shows one pane; closing the third leaves two.
    h.key_press_modifiers(CTRL_SHIFT, Key::Z);
    step_until(&mut h, "zoomed", |h| terminals(h) == 1);
    h.key_press_modifiers(CTRL_SHIFT, Key::Z);
    step_until(&mut h, "unzoomed", |h| terminals(h) == 3);
    app_mut(&mut h).pipeline().close(third);
    h.key_press_modifiers(Modifiers::ALT, Key::ArrowDown);
    h.key_press_modifiers(CTRL_SHIFT, Key::W);
    step_until(&mut h, "the third pane closed", |h| terminals(h) == 2);
}

fn app_mut<'a>(h: &'a mut Harness<'_, Slot>) -> &'a mut TernApp {
    h.state_mut().as_mut().expect("the app started")
}

#[test]
fn the_command_palette_finds_and_runs_a_command() {
    let mut h = harness();
    step_until(&mut h, "the shell's view", |h| app(h).view().is_some());
    h.key_press_modifiers(CTRL_SHIFT, Key::P);
    h.step();
    assert_eq!(app(&h).overlay(), Some("palette"));
    // Keys go to the palette, not the shell.
    h.event(Event::Text("split down".into()));
    h.step();
    h.get_by_label_contains("Split down");
    h.key_press(Key::Enter);
    step_until(&mut h, "two panes, one above the other", |h| {
        terminals(h) == 2
    });
    assert_eq!(app(&h).overlay(), None);
    let panes = app(&h).workspace().visible_panes();
    let top = h.get_by_label(&format!("terminal {}", panes[0].0)).rect();
    let bottom = h.get_by_label("terminal").rect();
    assert!(bottom.top() > top.bottom(), "{top:?} {bottom:?}");
    assert!(
        !screen(&h).contains("split down"),
        "the query never reached the shell"
    );
    // Escape closes the palette without running anything.
    h.key_press_modifiers(CTRL_SHIFT, Key::P);
    h.step();
    h.key_press(Key::Escape);
    h.step();
    assert_eq!(app(&h).overlay(), None);
    assert_eq!(terminals(&h), 2);
}

#[test]
fn the_quick_switcher_jumps_to_a_pane_in_another_tab_by_its_title() {
    let mut h = harness();
    step_until(&mut h, "the shell's view", |h| app(h).view().is_some());
    let first = focused(&h);
    h.key_press_modifiers(CTRL_SHIFT, Key::T);
    step_until(&mut h, "a second tab", |h| focused(h) != first);
    let second = focused(&h);
    step_until(&mut h, "its view", |h| app(h).view().is_some());
    type_line(&mut h, "printf '\\033]2;needle-in-tab-two\\007'");
    step_until(&mut h, "the title arrives", |h| {
        app(h).pane_title(second) == "needle-in-tab-two"
    });
    h.key_press_modifiers(Modifiers::CTRL, Key::Tab);
    h.step();
    assert_eq!(focused(&h), first, "Ctrl+Tab cycles to the first tab");
    assert!(
        app(&h).pane_ui(second).is_some_and(|p| p.is_parked()),
        "the hidden tab's pane is parked"
    );
    h.key_press_modifiers(CTRL_SHIFT, Key::O);
    h.step();
    assert_eq!(app(&h).overlay(), Some("switcher"));
    h.event(Event::Text("needle".into()));
    h.step();
    h.key_press(Key::Enter);
    step_until(&mut h, "the switcher jumped", |h| focused(h) == second);
    step_until(&mut h, "the revealed pane shows its screen", |h| {
        screen(h).contains("needle-in-tab-two")
    });
    assert!(app(&h).pane_ui(first).is_some_and(|p| p.is_parked()));
}

#[test]
fn a_hidden_tab_shows_badges_for_its_bell_failed_command_and_output() {
    let mut h = harness();
    step_until(&mut h, "the shell's view", |h| app(h).view().is_some());
    let first = focused(&h);
    // In a moment, ring the bell and report a failed command (OSC 133 D;1).
    type_line(
        &mut h,
        "sleep 1; printf '\\007\\033]133;D;1\\007'; echo more output",
    );
    h.key_press_modifiers(CTRL_SHIFT, Key::T);
    step_until(&mut h, "a second tab", |h| focused(h) != first);
    step_until(&mut h, "badges on the hidden tab", |h| {
        let b = app(h).pane_badges(first);
        b.bell && b.finished == Some(false) && b.unseen_output
    });
    // The tab bar says so, in words for accessibility and as marks.
    step_until(&mut h, "the tab label shows the badges", |h| {
        h.query_by_label_contains("(bell, failed, new output)")
            .is_some()
    });
    // The worktree entry rolls them up when the sidebar is open.
    h.key_press_modifiers(CTRL_SHIFT, Key::B);
    step_until(&mut h, "the worktree entry shows them", |h| {
        // The tab's label and the worktree's.
        h.query_all_by_label_contains("bell, failed").count() == 2
            && h.query_by_label_contains("worktree").is_some()
    });
    // Revealing the tab clears them.
    h.key_press_modifiers(Modifiers::ALT, Key::Num1);
    step_until(&mut h, "back on the first tab", |h| focused(h) == first);
    h.step();
    assert!(app(&h).pane_badges(first).is_empty());
    // Alt+1 was a command: nothing of it reached the shell's input line.
    type_line(&mut h, "echo after-$((1+1))");
    step_until(&mut h, "the shell answers", |h| {
        screen(h).contains("after-2")
    });
    assert!(!screen(&h).contains("1echo"), "{}", screen(&h));
}
