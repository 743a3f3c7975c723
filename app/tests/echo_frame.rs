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
    let spec = SpawnSpec::command("sh", &["-c", "stty raw -echo; printf ready; exec cat"])
        .size(TermSize::new(80, 24));
    let mut h = common::app_harness(Launch::new(spec), egui::vec2(800.0, 480.0));
    let ready = |h: &Harness<'_, Slot>| common::screen_rows(h).iter().any(|r| r == "ready");
    assert!(
        common::step_until_or(&mut h, Duration::from_secs(20), ready),
        "cat never started: {:#?}",
        common::screen_rows(&h)
    );
    common::wait_sized(&mut h);
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
