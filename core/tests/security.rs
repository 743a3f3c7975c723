//! Echo-back holes and other ways a program's output could act outside its pane. Each
//! test feeds attack bytes and asserts exactly what the model would write to the pty
//! (its reply bytes) and what it reports upward. Policies: `docs/SECURITY.md`.

mod support;

use support::TestTerm;
use tern_core::model::notify::MAX_NOTIFY_CHARS;
use tern_core::model::state::MAX_URI_BYTES;
use tern_core::model::{ClipboardRequest, TermEvent};

/// A marker planted in every attacker-controlled string: it must never come back.
const MARK: &str = "PWNED";
/// The marker hex-encoded (XTGETTCAP names travel hex-encoded).
const MARK_HEX: &str = "50574E4544";

fn assert_no_echo(replies: &str) {
    assert!(
        !replies.contains(MARK) && !replies.to_ascii_uppercase().contains(MARK_HEX),
        "attacker bytes echoed back: {replies:?}"
    );
}

#[test]
fn title_and_icon_reports_are_never_answered() {
    // CVE-2003-0063 class: set a title, then ask the terminal to type it back.
    let mut t = TestTerm::new(20, 2);
    t.feed("\x1b]0;PWNED\rrm -rf ~\r\x07\x1b]1;PWNED\x07\x1b]2;PWNED\x07");
    t.feed("\x1b[20t\x1b[21t\x1b[21;0t\x1b[20;1t\x1b[22t\x1b[23t\x1b[21t");
    assert_eq!(t.replies(), "");
}

#[test]
fn font_queries_are_not_answered() {
    // CVE-2022-45063 (xterm OSC 50): a font name set by the program echoed by a query.
    let mut t = TestTerm::new(20, 2);
    t.feed("\x1b]50;PWNED\rid\r\x07\x1b]50;?\x07\x1b]50;#+1\x07\x1b]50;?\x1b\\");
    assert_eq!(t.replies(), "");
}

#[test]
fn colour_query_replies_carry_only_parsed_colours() {
    let mut t = TestTerm::new(20, 2);
    // Settings that are not colours are ignored, so a query answers the old colour.
    t.feed("\x1b]10;PWNED\x07\x1b]11;rgb:PWNED\x07\x1b]4;1;PWNED\x07\x1b]12;\x1b[31m\x07");
    t.feed("\x1b]10;?\x07\x1b]11;?\x07\x1b]4;1;?\x07\x1b]12;?\x07\x1b]5;0;?\x07");
    t.feed("\x1b]4;PWNED;?\x07\x1b]4;999;?\x07\x1b]17;?;PWNED\x07");
    let replies = t.replies();
    assert_no_echo(&replies);
    assert_eq!(
        replies,
        concat!(
            "\x1b]10;rgb:d8d8/d8d8/d8d8\x07",
            "\x1b]11;rgb:1818/1818/1818\x07",
            "\x1b]4;1;rgb:cdcd/0000/0000\x07",
            "\x1b]12;rgb:d8d8/d8d8/d8d8\x07",
            "\x1b]5;0;rgb:d8d8/d8d8/d8d8\x07",
            "\x1b]17;rgb:d8d8/d8d8/d8d8\x07",
        )
    );
    // Every byte between the fixed prefix and the terminator is a hex digit, `/`, `:`.
    for reply in replies.split('\x07').filter(|r| !r.is_empty()) {
        let colour = reply.rsplit(';').next().unwrap_or_default();
        assert!(
            colour.starts_with("rgb:")
                && colour[4..]
                    .chars()
                    .all(|c| c.is_ascii_hexdigit() || c == '/'),
            "{reply:?}"
        );
    }
}

#[test]
fn decrqss_answers_known_settings_and_never_reflects_the_request() {
    let mut t = TestTerm::new(20, 2);
    t.feed("\x1b[1;31m\x1bP$qm\x1b\\");
    assert_eq!(t.replies(), "\x1bP1$r0;1;31m\x1b\\");
    for request in [
        "\x1bP$qPWNED\x1b\\",
        "\x1bP$qm\rPWNED\x1b\\",
        "\x1bP$q\x1b]0;PWNED\x07\x1b\\",
        "\x1bP$q\"pPWNED\x1b\\",
        "\x1bP$q\x1b\\",
    ] {
        t.feed(request);
        assert_eq!(t.replies(), "\x1bP0$r\x1b\\", "{request:?}");
    }
    // A request over the DCS cap is invalid, not truncated into a known one.
    t.feed(&format!("\x1bP$qm{}\x1b\\", "m".repeat(1000)));
    assert_eq!(t.replies(), "\x1bP0$r\x1b\\");
}

#[test]
fn xtgettcap_never_reflects_unknown_names() {
    let mut t = TestTerm::new(20, 2);
    t.feed(&format!(
        "\x1bP+q{MARK_HEX}\x1b\\\x1bP+q544E;{MARK_HEX}\x1b\\"
    ));
    let replies = t.replies();
    assert_no_echo(&replies);
    assert_eq!(
        replies,
        "\x1bP0+r\x1b\\\x1bP1+r544E=787465726D2D323536636F6C6F72\x1b\\\x1bP0+r\x1b\\"
    );
}

#[test]
fn osc52_read_is_only_reported_and_nothing_reaches_the_pty() {
    let mut t = TestTerm::new(20, 2);
    t.feed("\x1b]52;c;?\x07\x1b]52;p;?\x1b\\");
    assert_eq!(t.replies(), "", "the model never answers a clipboard read");
    assert_eq!(
        t.events(),
        vec![
            TermEvent::Clipboard(ClipboardRequest::Read {
                selection: "c".into()
            }),
            TermEvent::Clipboard(ClipboardRequest::Read {
                selection: "p".into()
            }),
        ]
    );
}

#[test]
fn osc52_write_is_only_reported_and_bounded() {
    let mut t = TestTerm::new(20, 2);
    t.feed("\x1b]52;c;UFdORUQ=\x07");
    assert_eq!(t.replies(), "");
    assert_eq!(
        t.events(),
        vec![TermEvent::Clipboard(ClipboardRequest::Write {
            selection: "c".into(),
            base64: "UFdORUQ=".into()
        })]
    );
    // Over the OSC cap the whole request is dropped, never delivered truncated.
    let huge = "A".repeat(tern_core::model::MAX_OSC_BYTES + 10);
    t.feed(&format!("\x1b]52;c;{huge}\x07after"));
    let events = t.events();
    assert!(
        !events.iter().any(|e| matches!(e, TermEvent::Clipboard(_))),
        "{} events",
        events.len()
    );
    assert_eq!(t.replies(), "");
    t.assert_screen(&["after"]);
}

#[test]
fn notifications_are_data_and_bounded() {
    let mut t = TestTerm::new(20, 2);
    let long = "x".repeat(MAX_NOTIFY_CHARS * 3);
    t.feed(&format!(
        "\x1b]9;$(PWNED)\x07\x1b]777;notify;`PWNED`;{long}\x07"
    ));
    assert_eq!(t.replies(), "");
    let events = t.events();
    assert_eq!(events.len(), 2);
    match &events[1] {
        TermEvent::Notification(n) => {
            assert_eq!(n.title, "`PWNED`");
            assert_eq!(n.body.chars().count(), MAX_NOTIFY_CHARS);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn hyperlink_targets_are_kept_verbatim_and_capped() {
    let mut t = TestTerm::new(20, 2);
    t.feed("\x1b]8;;file:///etc/passwd\x07text\x1b]8;;\x07");
    let id = t.term.grid().row(0).extra(0).and_then(|e| e.hyperlink);
    let uri = id.and_then(|id| t.term.hyperlink_uri(id));
    assert_eq!(uri, Some("file:///etc/passwd"), "the target the UI shows");
    assert!(
        tern_core::security::check_link("file:///etc/passwd", "box").is_err(),
        "but a file link without a host does not open"
    );
    let long = format!("https://x/{}", "a".repeat(MAX_URI_BYTES));
    t.feed(&format!("\r\n\x1b]8;;{long}\x07y\x1b]8;;\x07"));
    assert_eq!(
        t.term.grid().row(1).extra(0).and_then(|e| e.hyperlink),
        None,
        "a URI over the cap makes no link"
    );
    assert_eq!(t.replies(), "");
}

#[test]
fn reports_built_from_numbers_never_carry_text() {
    let mut t = TestTerm::new(20, 2);
    t.feed("\x1b]0;PWNED\x07\x1b[6n\x1b[?6n\x1b[c\x1b[>c\x1b[>q\x1b[5n\x1b[?2004$p");
    t.feed("\x1b[14t\x1b[16t\x1b[18t\x1b[19t\x1b[1;1;1;1;1*y\x1b[?PWNED$p");
    let replies = t.replies();
    assert_no_echo(&replies);
    let version = tern_core::model::VERSION;
    assert!(replies.contains(&format!("\x1bP>|tern {version}\x1b\\")));
    // Everything except XTVERSION's fixed text is ESC, brackets, digits, the hex digits
    // of DECRQCRA's checksum (a blank cell counts as a space: FFE0) and finals.
    let without_version = replies.replace(&format!("tern {version}"), "");
    assert!(
        without_version
            .chars()
            .all(|c| c == '\x1b' || c.is_ascii_hexdigit() || "[?;>|$!~Pyctnx\\R".contains(c)),
        "{without_version:?}"
    );
}

#[test]
fn resize_requests_are_capped() {
    let mut t = TestTerm::new(20, 2);
    t.feed("\x1b[8;65535;65535t");
    let request = t.term.take_resize_request().expect("a request");
    assert!(request.cols <= 1000 && request.rows <= 1000);
    assert_eq!(t.term.size().cols, 20, "the model never resizes itself");
}

#[test]
fn a_flood_of_every_query_kind_gets_bounded_replies() {
    // Reply amplification: replies stay within a small factor of the query bytes.
    let mut t = TestTerm::new(80, 24);
    let query = "\x1b[6n\x1b[c\x1b]4;1;?\x07\x1bP$qm\x1b\\\x1b[18t";
    let input = query.repeat(2000);
    t.feed(&input);
    let replies = t.replies();
    assert!(
        replies.len() <= 4 * input.len(),
        "{} reply bytes for {} query bytes",
        replies.len(),
        input.len()
    );
}

// ---- paste ----

use tern_core::input::paste::{encode_paste, is_multiline, sanitize_paste};

/// What a program reading the paste would see between the brackets.
fn bracket_body(bytes: &[u8]) -> &[u8] {
    assert!(bytes.starts_with(b"\x1b[200~") && bytes.ends_with(b"\x1b[201~"));
    &bytes[6..bytes.len() - 6]
}

#[test]
fn bracketed_paste_cannot_be_ended_early() {
    for attack in [
        "safe\x1b[201~rm -rf ~\n",                     // the end marker itself
        "safe\u{9b}201~rm -rf ~\n",                    // C1 CSI, UTF-8 encoded (U+009B)
        "safe\x1b\x1b[201~\x1b[201~x",                 // doubled
        "safe\u{1b}[20\u{1b}1~",                       // split by another ESC
        "a\x00b\x03c\x04d\x1ae\x18f\x7fg",             // NUL, ^C, ^D, SUB, CAN, DEL
        "\u{85}\u{8d}\u{90}\u{9c}\u{9d}\u{9e}\u{9f}x", // NEL, RI, DCS, ST, OSC, PM, APC
    ] {
        let bytes = encode_paste(attack, true);
        let body = bracket_body(&bytes);
        assert!(
            !body.windows(6).any(|w| w == b"\x1b[201~"),
            "{attack:?} ends the bracket"
        );
        assert!(
            !body
                .iter()
                .any(|&b| b == 0x1b || b == 0x7f || (b < 0x20 && b != b'\t' && b != b'\r')),
            "{attack:?} keeps a C0 control: {body:?}"
        );
        let text = std::str::from_utf8(body).expect("UTF-8");
        assert!(
            !text.chars().any(|c| ('\u{80}'..='\u{9f}').contains(&c)),
            "{attack:?} keeps a C1 control"
        );
    }
    assert_eq!(
        encode_paste("safe\u{9b}201~rm\n", true),
        b"\x1b[200~safe201~rm\r\x1b[201~"
    );
}

#[test]
fn unbracketed_paste_is_sanitized_the_same_way() {
    assert_eq!(
        encode_paste("echo \x1b]52;c;?\x07\u{9b}6n ok", false),
        b"echo ]52;c;?6n ok"
    );
}

#[test]
fn multiline_detection_sees_every_line_break_kind() {
    assert!(is_multiline("ls\nrm -rf ~"));
    assert!(is_multiline("ls\rrm -rf ~"));
    assert!(is_multiline("ls\r\nrm -rf ~\r\n"));
    // Controls removed by sanitizing cannot hide or fake a line break.
    assert!(!is_multiline("ls\x0b\x0c -la"));
    assert!(is_multiline("ls\x1b\nrm"));
    assert!(
        !is_multiline("one line\n"),
        "a trailing newline alone is one line"
    );
    assert_eq!(
        sanitize_paste("a\u{2028}b"),
        "a\u{2028}b",
        "not a shell line break"
    );
}

/// Helpers tern starts (git, xdg-open, dialogs) inherit no pane's pty: every
/// descriptor tern opens is close-on-exec.
#[test]
fn helpers_inherit_no_pty_master() {
    use std::process::{Command, Stdio};
    use std::time::Duration;
    use tern_core::pipeline::{Pipeline, PipelineConfig, SpawnSpec};

    let p =
        Pipeline::start(PipelineConfig::default(), std::sync::Arc::new(|| {})).expect("pipeline");
    let panes: Vec<_> = (0..2)
        .map(|_| {
            p.spawn(&SpawnSpec::command("sleep", &["30"]))
                .expect("spawn")
        })
        .collect();
    // The pool has registered the panes' descriptors once their pids are known.
    tern_testkit::eventually("the panes' pids", Duration::from_secs(60), || {
        panes.iter().all(|&pane| p.pid(pane).is_some())
    });
    let out = Command::new("ls")
        .args(["-l", "/proc/self/fd/"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .expect("run ls");
    let listing = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{listing}");
    assert!(
        !listing.contains("/dev/ptmx") && !listing.contains("/dev/pts/"),
        "a helper inherited a pty: {listing}"
    );
    for pane in panes {
        p.close(pane);
    }
}

/// DECRQCRA reads the screen: a 1x1 checksum tells which character a cell holds. It is
/// on by default (conformance suites need it); the switch turns every answer to 0000.
#[test]
fn rect_checksums_reveal_cells_unless_switched_off() {
    use tern_core::model::{TermConfig, TermSize, Terminal};
    let ask = |reports: bool, secret: &[u8]| {
        let config = TermConfig {
            rect_checksum_reports: reports,
            ..TermConfig::default()
        };
        let mut t = Terminal::new(TermSize::new(10, 2), config);
        t.advance(secret);
        t.advance(b"\x1b[1;1;1;1;1;1*y");
        String::from_utf8_lossy(&t.take_replies()).into_owned()
    };
    assert_ne!(
        ask(true, b"A"),
        ask(true, b"B"),
        "the checksum tells A from B"
    );
    assert_eq!(ask(false, b"A"), "\x1bP1!~0000\x1b\\");
    assert_eq!(ask(false, b"B"), ask(false, b"A"));
}

/// OSC 7 from another host (a shell over ssh) names a folder on that host: it must not
/// become the local folder for new splits or the session; it is kept as a hint.
#[test]
fn a_cwd_reported_for_another_host_is_only_a_remote_hint() {
    use tern_core::model::{TermConfig, TermEvent, TermSize, Terminal};
    let mut t = Terminal::new(TermSize::new(20, 2), TermConfig::default());
    t.advance(b"\x1b]7;file:///tmp/here\x07");
    assert_eq!(t.cwd(), Some("/tmp/here"));
    t.advance(b"\x1b]7;file://build-box.example.org/etc/secret\x07");
    assert_eq!(t.cwd(), Some("/tmp/here"), "a remote path became local");
    assert_eq!(
        t.remote_cwd(),
        Some(("build-box.example.org", "/etc/secret"))
    );
    let events: Vec<TermEvent> = t.drain_events().collect();
    assert_eq!(events, vec![TermEvent::Cwd("/tmp/here".into())]);
    t.advance(b"\x1b]7;file://localhost/var\x07");
    assert_eq!(t.cwd(), Some("/var"));
    assert_eq!(t.remote_cwd(), None);
    let host = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned();
    t.advance(format!("\x1b]7;file://{host}/usr\x07").as_bytes());
    assert_eq!(t.cwd(), Some("/usr"));
}

/// A remote (tmux) pane's OSC 7 naming this machine's host name is still a path on
/// the remote machine (which may share the name): kept as a hint, never the local
/// folder (`tern msg list` showed it as local). Catches the host name check alone
/// deciding for far-side panes.
#[test]
fn a_far_side_panes_cwd_is_always_a_remote_hint() {
    use tern_core::model::{TermConfig, TermSize, Terminal};
    let config = TermConfig {
        far_side: true,
        ..TermConfig::default()
    };
    let mut t = Terminal::new(TermSize::new(20, 2), config);
    let host = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned();
    t.advance(format!("\x1b]7;file://{host}/srv/remote\x07").as_bytes());
    assert_eq!(t.cwd(), None, "a remote pane's path became local");
    assert_eq!(t.remote_cwd(), Some((host.as_str(), "/srv/remote")));
    assert_eq!(t.drain_events().count(), 0);
}
