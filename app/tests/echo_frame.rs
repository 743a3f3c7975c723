//! A typed key's echo in the frame that wrote the key (egui_kittest, headless).

use std::time::Duration;

use egui::Event;
use egui_kittest::Harness;
use tern::window::app::Launch;
use tern_core::model::TermSize;
use tern_core::pipeline::SpawnSpec;

mod common;
use common::Slot;
use tern::window::app::TestView as _;

fn shown(h: &mut Harness<'static, Slot>) -> Vec<String> {
    h.state_mut()
        .as_mut()
        .map(|a| a.shown_rows())
        .unwrap_or_default()
}

/// `cat` in raw mode echoes each key within a pty round trip; the frame that wrote the
/// key waits that long for it, so that frame already shows it. Catches the echo left
/// to the next frame (one whole frame later on screen: the key's own frame is painted
/// first). The echo's timing is the machine's, so the test asks for it in at least one
/// of 20 keys (without the wait it is in none: the key is written after the frame took
/// its deliveries); each key's echo is then awaited before the next.
#[test]
fn a_quick_echo_is_shown_by_the_frame_that_wrote_the_key() {
    let mut h = ready("exec cat");
    let mut typed = String::from("ready");
    let mut in_own_frame = 0;
    for c in "abcdefghijklmnopqrst".chars() {
        typed.push(c);
        h.event(Event::Text(c.to_string()));
        h.step();
        if shown(&mut h).first() == Some(&typed) {
            in_own_frame += 1;
        }
        let echoed = |h: &Harness<'_, Slot>| {
            common::screen_rows(h).first().map(String::as_str) == Some(typed.as_str())
        };
        assert!(
            common::step_until_or(&mut h, Duration::from_secs(10), echoed),
            "cat never echoed {c:?}: {:#?}",
            common::screen_rows(&h)
        );
    }
    assert!(
        in_own_frame >= 1,
        "no key's echo was in the frame that wrote it (20 keys)"
    );
}

/// The window (80x24 cells) running `PROGRAM` in raw mode, once it printed "ready" and
/// has its size.
fn ready(program: &str) -> Harness<'static, Slot> {
    let script = format!("stty raw -echo; printf ready; {program}");
    let spec = SpawnSpec::command("sh", &["-c", &script]).size(TermSize::new(80, 24));
    let mut h = common::app_harness(Launch::new(spec), egui::vec2(800.0, 480.0));
    let started = |h: &Harness<'_, Slot>| common::screen_rows(h).iter().any(|r| r == "ready");
    assert!(
        common::step_until_or(&mut h, Duration::from_secs(20), started),
        "{program} never started: {:#?}",
        common::screen_rows(&h)
    );
    common::wait_sized(&mut h);
    h
}

fn key(key: egui::Key, modifiers: egui::Modifiers) -> Event {
    tern::window::input::key_event(key, true, modifiers)
}

/// eframe gives the window its input through `raw_input_hook` before each pass: keys
/// that only go to the program are written there, before the pass's egui and `logic`
/// work, and the program has them with no frame run at all. A key bound to a command,
/// or typed while copy mode takes the keys, is held for the frame as before: the
/// command runs there and the program gets nothing.
///
/// Catches: typed keys held for the frame's `draw` (the program got nothing until a
/// frame ran), and a bound chord or a copy-mode key typed into the program by the
/// early path.
#[test]
fn keys_for_the_program_are_written_before_the_pass_and_commands_wait_for_it() {
    use eframe::App as _;
    let dir = tempfile::tempdir().expect("dir");
    let got = dir.path().join("got");
    let program = format!("exec tee '{}'", got.display());
    let mut h = ready(&program);
    let received = || std::fs::read_to_string(&got).unwrap_or_default();
    // What eframe does before a pass, and no pass after it.
    let hook = |h: &mut Harness<'static, Slot>, events: Vec<Event>| {
        let ctx = h.ctx.clone();
        let mut raw = egui::RawInput {
            events,
            ..Default::default()
        };
        let app = h.state_mut().as_mut().expect("the app");
        app.raw_input_hook(&ctx, &mut raw);
        raw.events
    };
    let left = hook(
        &mut h,
        vec![
            key(egui::Key::A, egui::Modifiers::NONE),
            Event::Text("a".into()),
            Event::Text("bc".into()),
            key(egui::Key::Enter, egui::Modifiers::NONE),
        ],
    );
    assert!(left.is_empty(), "the keys are the program's: {left:?}");
    tern_testkit::eventually(
        "the program has the keys, no frame run",
        Duration::from_secs(10),
        || received() == "abc\r",
    );

    // Ctrl+Shift+T is bound (a new tab): held, and carried out by the frame.
    let ctrl_shift = egui::Modifiers::CTRL | egui::Modifiers::SHIFT;
    let tabs = |h: &Harness<'_, Slot>| h.state().as_ref().map_or(0, |a| a.pane_infos().len());
    let before = tabs(&h);
    hook(&mut h, vec![key(egui::Key::T, ctrl_shift)]);
    assert!(
        common::step_until_or(&mut h, Duration::from_secs(10), |h| tabs(h) == before + 1),
        "the bound chord opened no tab"
    );
    // The new tab has the keyboard; back to the first (Ctrl+Shift+Tab is bound too,
    // and goes through the frame as the chord did).
    hook(&mut h, vec![key(egui::Key::Tab, ctrl_shift)]);
    let first = |h: &Harness<'_, Slot>| {
        common::screen_rows(h)
            .first()
            .is_some_and(|r| r.starts_with("ready"))
    };
    assert!(
        common::step_until_or(&mut h, Duration::from_secs(10), first),
        "back in the first tab: {:#?}",
        common::screen_rows(&h)
    );
    // Copy mode takes the keys: `j` moves its cursor and reaches no program; Escape
    // leaves it, and `z` goes to the program again, right after the `abc` Enter.
    hook(&mut h, vec![key(egui::Key::Space, ctrl_shift)]);
    h.step();
    for events in [
        vec![
            key(egui::Key::J, egui::Modifiers::NONE),
            Event::Text("j".into()),
        ],
        vec![key(egui::Key::Escape, egui::Modifiers::NONE)],
    ] {
        let left = hook(&mut h, events);
        assert!(left.is_empty(), "held out of egui's pass: {left:?}");
        h.step();
    }
    hook(&mut h, vec![Event::Text("z".into())]);
    h.step();
    tern_testkit::eventually("z after the copy mode", Duration::from_secs(10), || {
        received().len() > 4
    });
    assert_eq!(received(), "abc\rz", "what the program got");
}

/// The release of a key typed into the program asks no frame (eframe's patch 0003 asks
/// the app, `needs_pass_for_input`): it would paint the same picture again. A press, a
/// modifier's release (a link may be underlined while Ctrl is down) and a release
/// while copy mode has the keys each ask theirs.
///
/// Catches: a release that asked its frame (every typed key painted twice), and a
/// skipped frame that had something to show.
#[cfg(feature = "egui-patches")]
#[test]
fn a_typed_keys_release_asks_no_frame_and_other_input_does() {
    use eframe::App as _;
    let mut h = ready("exec cat");
    let release = |key| tern::window::input::key_event(key, false, egui::Modifiers::NONE);
    let asks = |h: &mut Harness<'static, Slot>, events: Vec<Event>| {
        let ctx = h.ctx.clone();
        let pending = egui::RawInput {
            events,
            ..Default::default()
        };
        let app = h.state_mut().as_mut().expect("the app");
        app.needs_pass_for_input(&ctx, &pending)
    };
    assert!(
        !asks(&mut h, vec![release(egui::Key::X)]),
        "a typed key's release"
    );
    assert!(
        asks(&mut h, vec![key(egui::Key::X, egui::Modifiers::NONE)]),
        "a press"
    );
    assert!(
        asks(&mut h, vec![release(egui::Key::ControlLeft)]),
        "Ctrl's release"
    );
    assert!(
        asks(
            &mut h,
            vec![
                release(egui::Key::X),
                Event::PointerMoved(egui::pos2(5.0, 5.0))
            ]
        ),
        "a release with the pointer moved"
    );
    // Copy mode has the keys.
    let ctrl_shift = egui::Modifiers::CTRL | egui::Modifiers::SHIFT;
    h.event(key(egui::Key::Space, ctrl_shift));
    h.step();
    h.step();
    assert!(
        asks(&mut h, vec![release(egui::Key::X)]),
        "a release while copy mode has the keys"
    );
}
