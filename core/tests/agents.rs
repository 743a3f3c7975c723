//! What agents rely on in the model: the kitty keyboard protocol's flags, and
//! notifications and progress (OSC 9, 9;4, 777, 99), including bad input.

mod support;

use support::TestTerm;
use tern_core::model::TermEvent;
use tern_core::model::kitty::KEYBOARD_STACK_DEPTH;
use tern_core::model::notify::{MAX_NOTIFY_CHARS, Notification, NotifySource, Urgency};

fn flags(t: &mut TestTerm) -> String {
    t.feed("\x1b[?u");
    t.replies()
}

fn notifications(t: &mut TestTerm) -> Vec<Notification> {
    t.events()
        .into_iter()
        .filter_map(|e| match e {
            TermEvent::Notification(n) => Some(n),
            _ => None,
        })
        .collect()
}

// ---- kitty keyboard flags ----

#[test]
fn push_then_query_reads_back_the_flags() {
    let mut t = TestTerm::new(10, 2);
    assert_eq!(flags(&mut t), "\x1b[?0u");
    t.feed("\x1b[>1u");
    assert_eq!(flags(&mut t), "\x1b[?1u");
    assert_eq!(t.term.modes().keyboard_flags, 1, "frames carry the flags");
    t.feed("\x1b[>31u");
    assert_eq!(flags(&mut t), "\x1b[?31u");
    t.feed("\x1b[<u");
    assert_eq!(flags(&mut t), "\x1b[?1u");
    t.feed("\x1b[<u");
    assert_eq!(flags(&mut t), "\x1b[?0u");
}

#[test]
fn set_replaces_adds_and_removes_bits() {
    let mut t = TestTerm::new(10, 2);
    t.feed("\x1b[=5u");
    assert_eq!(flags(&mut t), "\x1b[?5u", "mode 1 is the default");
    t.feed("\x1b[=2;2u");
    assert_eq!(flags(&mut t), "\x1b[?7u");
    t.feed("\x1b[=1;3u");
    assert_eq!(flags(&mut t), "\x1b[?6u");
}

#[test]
fn main_and_alternate_screens_keep_their_own_stacks() {
    let mut t = TestTerm::new(10, 2);
    t.feed("\x1b[>1u\x1b[?1049h");
    assert_eq!(flags(&mut t), "\x1b[?0u");
    t.feed("\x1b[>11u");
    assert_eq!(t.term.modes().keyboard_flags, 11);
    t.feed("\x1b[?1049l");
    assert_eq!(flags(&mut t), "\x1b[?1u");
    assert_eq!(t.term.modes().keyboard_flags, 1);
    t.feed("\x1b[?1049h");
    assert_eq!(flags(&mut t), "\x1b[?11u");
}

#[test]
fn reset_and_exit_return_to_legacy_keys() {
    let mut t = TestTerm::new(10, 2);
    t.feed("\x1b[>1u\x1bc");
    assert_eq!(flags(&mut t), "\x1b[?0u", "RIS");
    t.feed("\x1b[>1u\x1b[?1049h\x1b[>3u");
    t.term.reset_keyboard_flags();
    assert_eq!(flags(&mut t), "\x1b[?0u", "exit: the alternate screen");
    t.feed("\x1b[?1049l");
    assert_eq!(flags(&mut t), "\x1b[?0u", "exit: the main screen");
}

#[test]
fn malformed_keyboard_requests_change_nothing_they_do_not_name() {
    let mut t = TestTerm::new(10, 2);
    t.feed("\x1b[>1u");
    t.feed("\x1b[=1;7u"); // unknown mode
    t.feed("\x1b[=65535;9u");
    assert_eq!(flags(&mut t), "\x1b[?1u");
    t.feed("\x1b[>65535u");
    assert_eq!(flags(&mut t), "\x1b[?31u", "only the spec's five bits");
    t.feed("\x1b[<99999u");
    assert_eq!(flags(&mut t), "\x1b[?0u", "over-popping resets");
    t.feed("\x1b[>1;2;3;4;5;6;7;8;9u\x1b[?5u");
    assert_eq!(t.replies(), "\x1b[?1u", "extra parameters are ignored");
    t.assert_screen(&["", ""]);
}

#[test]
fn a_stack_pushed_without_end_stays_capped() {
    let mut t = TestTerm::new(10, 2);
    let pushes = "\x1b[>1u".repeat(100_000);
    t.feed(&pushes);
    let before = t.term.heap_bytes();
    t.feed(&pushes);
    assert_eq!(t.term.heap_bytes(), before);
    t.feed(&"\x1b[<u".repeat(KEYBOARD_STACK_DEPTH - 1));
    assert_eq!(flags(&mut t), "\x1b[?1u");
    t.feed("\x1b[<u");
    assert_eq!(
        flags(&mut t),
        "\x1b[?1u",
        "the oldest saved entry was the 1"
    );
    t.feed("\x1b[<u");
    assert_eq!(flags(&mut t), "\x1b[?0u");
}

#[test]
fn the_csi_u_cursor_restore_still_works() {
    let mut t = TestTerm::new(10, 3);
    t.feed("ab\x1b[sxy\r\n\x1b[uZ");
    t.assert_screen(&["abZy", "", ""]);
}

// ---- notifications ----

#[test]
fn osc_9_777_and_99_become_notifications_with_their_source() {
    let mut t = TestTerm::new(10, 2);
    t.feed("\x1b]9;needs your permission\x07");
    t.feed("\x1b]777;notify;Claude;waiting for input\x1b\\");
    t.feed("\x1b]99;i=1:d=0;Build\x1b\\\x1b]99;i=1:p=body:u=2;failed\x1b\\");
    let got = notifications(&mut t);
    let summary: Vec<_> = got
        .iter()
        .map(|n| (n.source, n.title.as_str(), n.body.as_str(), n.urgency))
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                NotifySource::Osc9,
                "",
                "needs your permission",
                Urgency::Normal
            ),
            (
                NotifySource::Osc777,
                "Claude",
                "waiting for input",
                Urgency::Normal
            ),
            (NotifySource::Osc99, "Build", "failed", Urgency::Critical),
        ]
    );
    assert_eq!(got[2].id.as_deref(), Some("1"));
}

#[test]
fn osc_99_parts_wait_for_done_and_decode_base64() {
    let mut t = TestTerm::new(10, 2);
    t.feed("\x1b]99;i=a:d=0:e=1;SGVsbG8=\x1b\\");
    assert!(notifications(&mut t).is_empty(), "d=0: more parts follow");
    t.feed("\x1b]99;i=a:p=body;world\x1b\\");
    let got = notifications(&mut t);
    assert_eq!(got.len(), 1);
    assert_eq!(
        (got[0].title.as_str(), got[0].body.as_str()),
        ("Hello", "world")
    );
    t.feed("\x1b]99;;plain title\x1b\\");
    assert_eq!(notifications(&mut t)[0].title, "plain title");
    t.feed("\x1b]99;p=icon;xxxx\x1b\\\x1b]99;e=1;!!notbase64\x1b\\");
    assert!(
        notifications(&mut t).is_empty(),
        "icons and bad base64 show nothing"
    );
}

#[test]
fn osc_99_with_huge_payloads_is_capped() {
    let mut t = TestTerm::new(10, 2);
    let chunk = "y".repeat(4000);
    for _ in 0..200 {
        t.feed(&format!("\x1b]99;i=big:d=0:p=body;{chunk}\x1b\\"));
    }
    let held = t.term.heap_bytes();
    for _ in 0..200 {
        t.feed(&format!("\x1b]99;i=big:d=0:p=body;{chunk}\x1b\\"));
    }
    assert_eq!(t.term.heap_bytes(), held);
    t.feed("\x1b]99;i=big:p=body;end\x1b\\");
    let got = notifications(&mut t);
    assert_eq!(got[0].body.chars().count(), MAX_NOTIFY_CHARS);
    let long_id = "i".repeat(500);
    t.feed(&format!("\x1b]99;i={long_id};x\x1b\\"));
    assert_eq!(
        notifications(&mut t)[0].id,
        None,
        "an over-long id is dropped"
    );
}

#[test]
fn notification_text_loses_control_and_bidi_characters() {
    let mut t = TestTerm::new(10, 2);
    t.feed("\x1b]777;notify;a\u{202E}b;c\u{2067}d\u{85}e\x07");
    let got = notifications(&mut t);
    assert_eq!((got[0].title.as_str(), got[0].body.as_str()), ("ab", "cde"));
}

#[test]
fn an_osc_9_loop_keeps_memory_flat() {
    let mut t = TestTerm::new(10, 2);
    let burst = "\x1b]9;again\x07".repeat(10_000);
    t.feed(&burst);
    t.events();
    let held = t.term.heap_bytes();
    t.feed(&burst);
    t.events();
    assert_eq!(t.term.heap_bytes(), held);
}

#[test]
fn progress_reports_are_not_notifications() {
    let mut t = TestTerm::new(10, 2);
    t.feed("\x1b]9;4;1;30\x07\x1b]9;4;4;30\x07\x1b]9;4;7;1\x07");
    let events = t.events();
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(events.iter().all(|e| matches!(e, TermEvent::Progress(_))));
}

// ---- the question rule on a real agent's screen ----

/// Codex 0.171's TUI (`npm install @openai/codex`, started without an account in a
/// 100x30 tmux pane, recorded with `script -q -f -c codex`, its header line cut): its
/// sign-in screen ends with "Press enter
/// to continue", which the screen scan finds as the line that asks; the rows above it
/// (menu items) do not.
#[test]
fn codex_sign_in_screen_asks() {
    let bytes = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/recordings/agents/codex-0.171-sign-in.bin"),
    )
    .expect("the recording");
    let mut term = tern_core::model::Terminal::new(
        tern_core::model::TermSize::new(100, 30),
        tern_core::model::TermConfig::default(),
    );
    // Up to where it leaves the alternate screen on its way out (the recording ends
    // when its pane was closed).
    let leave = b"\x1b[?1049l";
    let end = bytes
        .windows(leave.len())
        .rposition(|w| w == leave)
        .unwrap_or(bytes.len());
    term.advance(&bytes[..end]);
    let screen = term.dump().render(false);
    assert!(
        screen.contains("Choose how you want to use Codex."),
        "{screen}"
    );
    assert_eq!(
        tern_core::pipeline::activity::screen_asks_question(&term).as_deref(),
        Some("Press enter to continue")
    );
}
