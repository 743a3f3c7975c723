//! Behaviour of the terminal model, one case per behaviour.

mod support;

use support::TestTerm;
use tern_core::model::notify::{Notification, NotifySource, Progress, ProgressState};
use tern_core::model::{
    ClipboardRequest, DumpColor, MouseEncoding, MouseTracking, ShellMark, TermConfig, TermEvent,
    TermSize, UnderlineKind,
};

// ---- printing and wrapping ----

#[test]
fn prints_text_and_moves_cursor() {
    TestTerm::new(10, 3)
        .feed("hello")
        .assert_screen(&["hello"])
        .assert_cursor(0, 5);
}

#[test]
fn last_column_sets_wrap_pending_instead_of_wrapping() {
    let mut t = TestTerm::new(5, 3);
    t.feed("abcde")
        .assert_screen(&["abcde"])
        .assert_cursor(0, 4);
    t.feed("f")
        .assert_screen(&["abcde", "f"])
        .assert_cursor(1, 1);
    assert!(t.term.grid().row(0).wrapped, "first row is soft-wrapped");
}

#[test]
fn carriage_return_cancels_wrap_pending() {
    TestTerm::new(5, 3)
        .feed("abcde\rX")
        .assert_screen(&["Xbcde"])
        .assert_cursor(0, 1);
}

#[test]
fn autowrap_off_overwrites_last_column() {
    TestTerm::new(5, 2)
        .feed("\x1b[?7labcdefg")
        .assert_screen(&["abcdg"])
        .assert_cursor(0, 4);
}

#[test]
fn wide_characters_take_two_cells_and_wrap_whole() {
    let mut t = TestTerm::new(5, 3);
    t.feed("ab你好");
    t.assert_screen(&["ab你", "好"]).assert_cursor(1, 2);
}

#[test]
fn overwriting_half_of_a_wide_char_blanks_the_other_half() {
    TestTerm::new(6, 2)
        .feed("你好\x1b[1;2HX")
        .assert_screen(&[" X好"]);
    TestTerm::new(6, 2)
        .feed("你好\x1b[1;1HX")
        .assert_screen(&["X 好"]);
}

#[test]
fn combining_marks_join_the_previous_cell() {
    let mut t = TestTerm::new(6, 2);
    t.feed("e\u{301}x");
    t.assert_screen(&["e\u{301}x"]).assert_cursor(0, 2);
}

#[test]
fn insert_mode_shifts_the_line_right() {
    TestTerm::new(8, 2)
        .feed("abcdef\x1b[1;3H\x1b[4hXY\x1b[4lZ")
        .assert_screen(&["abXYZdef"]);
}

#[test]
fn rep_repeats_the_last_character() {
    TestTerm::new(10, 2)
        .feed("a\x1b[4b")
        .assert_screen(&["aaaaa"]);
}

// ---- cursor movement ----

#[test]
fn cup_is_one_based_and_clamped() {
    TestTerm::new(10, 5).feed("\x1b[3;4H").assert_cursor(2, 3);
    TestTerm::new(10, 5).feed("\x1b[99;99H").assert_cursor(4, 9);
    TestTerm::new(10, 5).feed("\x1b[H").assert_cursor(0, 0);
    TestTerm::new(10, 5).feed("\x1b[2;3f").assert_cursor(1, 2);
}

#[test]
fn relative_moves_stop_at_edges() {
    let mut t = TestTerm::new(10, 5);
    t.feed("\x1b[3;3H\x1b[5A").assert_cursor(0, 2);
    t.feed("\x1b[9B").assert_cursor(4, 2);
    t.feed("\x1b[20C").assert_cursor(4, 9);
    t.feed("\x1b[3D").assert_cursor(4, 6);
    t.feed("\x1b[2F").assert_cursor(2, 0);
    t.feed("\x1b[1E").assert_cursor(3, 0);
    t.feed("\x1b[7G").assert_cursor(3, 6);
    t.feed("\x1b[2d").assert_cursor(1, 6);
}

#[test]
fn index_and_reverse_index_scroll_at_margins() {
    let mut t = TestTerm::new(4, 3);
    t.feed("a\r\nb\r\nc\x1bD").assert_screen(&["b", "c", ""]);
    t.feed("\x1b[H\x1bM").assert_screen(&["", "b", "c"]);
    t.feed("\x1bEx").assert_screen(&["", "x", "c"]);
}

#[test]
fn tabs_stop_every_eight_columns_and_can_be_set_and_cleared() {
    let mut t = TestTerm::new(30, 2);
    t.feed("\tA").assert_cursor(0, 9);
    t.feed("\x1b[3g\x1b[1;5H\x1bH\r\tB")
        .assert_screen(&["    B   A"]);
    t.feed("\x1b[1;20H\x1b[1Z").assert_cursor(0, 4);
    t.feed("\x1b[1Z").assert_cursor(0, 0);
    t.feed("\x1b[H\x1b[2I").assert_cursor(0, 29);
}

// ---- scroll regions and origin mode ----

#[test]
fn scroll_region_confines_line_feeds() {
    let mut t = TestTerm::new(5, 5);
    t.feed("1\r\n2\r\n3\r\n4\r\n5\x1b[2;4r\x1b[4;1H\nX");
    t.assert_screen(&["1", "3", "4", "X", "5"]);
}

#[test]
fn origin_mode_makes_cup_relative_to_the_region() {
    let mut t = TestTerm::new(10, 6);
    t.feed("\x1b[3;5r\x1b[?6h\x1b[1;1HA\x1b[9;1HB");
    t.assert_screen(&["", "", "A", "", "B"]);
    t.feed("\x1b[6n");
    assert_eq!(t.replies(), "\x1b[3;2R", "CPR honours origin mode");
}

#[test]
fn su_and_sd_scroll_the_region() {
    let mut t = TestTerm::new(3, 4);
    t.feed("a\r\nb\r\nc\r\nd\x1b[2S")
        .assert_screen(&["c", "d", "", ""]);
    t.feed("\x1b[1T").assert_screen(&["", "c", "d", ""]);
}

#[test]
fn lines_scrolled_off_the_top_go_to_scrollback() {
    let mut t = TestTerm::new(5, 2);
    t.feed("one\r\ntwo\r\nthree\r\nfour");
    t.assert_screen(&["three", "four"]);
    assert_eq!(t.scrollback_text(), vec!["one", "two"]);
}

#[test]
fn scrollback_keeps_at_most_its_line_limit() {
    let config = TermConfig {
        scrollback_lines: 3,
        ..TermConfig::default()
    };
    let mut t = TestTerm::with_config(5, 2, config);
    for i in 0..10 {
        t.feed(&format!("{i}\r\n"));
    }
    assert_eq!(t.scrollback_text(), vec!["6", "7", "8"]);
}

// ---- erase and edit ----

#[test]
fn erase_in_line_keeps_background() {
    let mut t = TestTerm::new(6, 2);
    t.feed("abcdef\x1b[1;3H\x1b[41m\x1b[K");
    t.assert_screen(&["ab"]);
    assert_eq!(t.bg(0, 2), DumpColor::Indexed(1));
    assert_eq!(t.bg(0, 1), DumpColor::Default);
}

#[test]
fn erase_in_line_left_and_all() {
    TestTerm::new(6, 1)
        .feed("abcdef\x1b[1;3H\x1b[1K")
        .assert_screen(&["   def"]);
    TestTerm::new(6, 1)
        .feed("abcdef\x1b[2K")
        .assert_screen(&[""]);
}

#[test]
fn erase_in_display_below_above_all() {
    let fill = "aaa\r\nbbb\r\nccc\x1b[2;2H";
    TestTerm::new(3, 3)
        .feed(fill)
        .feed("\x1b[J")
        .assert_screen(&["aaa", "b"]);
    TestTerm::new(3, 3)
        .feed(fill)
        .feed("\x1b[1J")
        .assert_screen(&["", "  b", "ccc"]);
    TestTerm::new(3, 3)
        .feed(fill)
        .feed("\x1b[2J")
        .assert_screen(&["", "", ""])
        .assert_cursor(1, 1);
}

#[test]
fn ed3_clears_scrollback_only() {
    let mut t = TestTerm::new(3, 1);
    t.feed("a\r\nb\r\nc\x1b[3J");
    assert!(t.scrollback_text().is_empty());
    t.assert_screen(&["c"]);
}

#[test]
fn ech_ich_dch() {
    TestTerm::new(8, 1)
        .feed("abcdefgh\x1b[1;3H\x1b[2X")
        .assert_screen(&["ab  efgh"]);
    TestTerm::new(8, 1)
        .feed("abcdefgh\x1b[1;3H\x1b[2@")
        .assert_screen(&["ab  cdef"]);
    TestTerm::new(8, 1)
        .feed("abcdefgh\x1b[1;3H\x1b[2P")
        .assert_screen(&["abefgh"]);
    TestTerm::new(8, 1)
        .feed("abcdefgh\x1b[1;3H\x1b[99P")
        .assert_screen(&["ab"]);
}

#[test]
fn il_and_dl_work_inside_the_region() {
    let fill = "1\r\n2\r\n3\r\n4\x1b[2;1H";
    TestTerm::new(3, 4)
        .feed(fill)
        .feed("\x1b[L")
        .assert_screen(&["1", "", "2", "3"]);
    TestTerm::new(3, 4)
        .feed(fill)
        .feed("\x1b[M")
        .assert_screen(&["1", "3", "4", ""]);
}

#[test]
fn decaln_fills_with_e() {
    TestTerm::new(3, 2)
        .feed("\x1b#8")
        .assert_screen(&["EEE", "EEE"])
        .assert_cursor(0, 0);
}

// ---- SGR ----

#[test]
fn sgr_basic_flags_and_resets() {
    let mut t = TestTerm::new(20, 1);
    t.feed("\x1b[1;2;3;4;5;7;8;9mX\x1b[22;23;24;25;27;28;29mY");
    let x = t.attrs(0, 0);
    assert!(x.bold && x.dim && x.italic && x.blink && x.inverse && x.hidden && x.strike);
    assert_eq!(x.underline, UnderlineKind::Single);
    assert!(t.attrs(0, 1).is_default());
}

#[test]
fn sgr_colors_in_all_forms() {
    let mut t = TestTerm::new(20, 1);
    t.feed("\x1b[31mA\x1b[92mB\x1b[38;5;200mC\x1b[38;2;1;2;3mD\x1b[38:2::4:5:6mE\x1b[38:5:7mF");
    t.feed("\x1b[44;103mG\x1b[48:2:9:8:7mH\x1b[39;49mI");
    assert_eq!(t.fg(0, 0), DumpColor::Indexed(1));
    assert_eq!(t.fg(0, 1), DumpColor::Indexed(10));
    assert_eq!(t.fg(0, 2), DumpColor::Indexed(200));
    assert_eq!(t.fg(0, 3), DumpColor::Rgb(1, 2, 3));
    assert_eq!(t.fg(0, 4), DumpColor::Rgb(4, 5, 6));
    assert_eq!(t.fg(0, 5), DumpColor::Indexed(7));
    assert_eq!(t.bg(0, 6), DumpColor::Indexed(11));
    assert_eq!(t.bg(0, 7), DumpColor::Rgb(9, 8, 7));
    assert!(t.attrs(0, 8).is_default());
}

#[test]
fn sgr_underline_styles_and_color() {
    let mut t = TestTerm::new(10, 1);
    t.feed("\x1b[4:3mA\x1b[21mB\x1b[4:4mC\x1b[4:5mD\x1b[58;5;1;4:0mE");
    assert_eq!(t.attrs(0, 0).underline, UnderlineKind::Curly);
    assert_eq!(t.attrs(0, 1).underline, UnderlineKind::Double);
    assert_eq!(t.attrs(0, 2).underline, UnderlineKind::Dotted);
    assert_eq!(t.attrs(0, 3).underline, UnderlineKind::Dashed);
    assert_eq!(t.attrs(0, 4).underline, UnderlineKind::None);
    let extra = t.term.grid().row(0).extra(4).cloned().unwrap_or_default();
    assert_eq!(
        extra.underline_color,
        Some(tern_core::model::Color::Indexed(1))
    );
}

#[test]
fn sgr_zero_and_empty_reset_everything() {
    let mut t = TestTerm::new(4, 1);
    t.feed("\x1b[1;31mA\x1b[mB\x1b[1;31mC\x1b[0mD");
    assert!(t.attrs(0, 1).is_default());
    assert!(t.attrs(0, 3).is_default());
}

// ---- save/restore, alternate screen, charsets, resets ----

#[test]
fn decsc_decrc_restore_position_and_pen() {
    let mut t = TestTerm::new(10, 3);
    t.feed("\x1b[2;3H\x1b[31m\x1b7\x1b[H\x1b[0mA\x1b8B");
    t.assert_screen(&["A", "  B"]);
    assert_eq!(t.fg(1, 2), DumpColor::Indexed(1));
    t.feed("\x1b[3;5H\x1b[s\x1b[H\x1b[uC")
        .assert_screen(&["A", "  B", "    C"]);
}

#[test]
fn alternate_screen_1049_saves_and_restores() {
    let mut t = TestTerm::new(6, 2);
    t.feed("main\x1b[?1049h")
        .assert_screen(&["", ""])
        .assert_cursor(0, 4);
    t.feed("\x1b[Halt").assert_screen(&["alt"]);
    t.feed("\x1b[?1049l")
        .assert_screen(&["main"])
        .assert_cursor(0, 4);
    assert!(t.scrollback_text().is_empty());
}

#[test]
fn alternate_screen_47_and_1047() {
    let mut t = TestTerm::new(6, 2);
    t.feed("x\x1b[?47hy\x1b[?47l").assert_screen(&["x"]);
    t.feed("\x1b[?1047hz\x1b[?1047l\x1b[?1047h")
        .assert_screen(&[""]);
}

#[test]
fn dec_special_graphics_via_g0_and_g1() {
    TestTerm::new(10, 1)
        .feed("\x1b(0lqk\x1b(Bq")
        .assert_screen(&["┌─┐q"]);
    TestTerm::new(10, 1)
        .feed("\x1b)0a\x0eq\x0fq")
        .assert_screen(&["a─q"]);
}

#[test]
fn ris_resets_everything() {
    let mut t = TestTerm::new(5, 2);
    t.feed("\x1b[31mab\x1b[?7l\x1b]2;t\x07\x1bc");
    t.assert_screen(&["", ""]).assert_cursor(0, 0);
    assert!(t.term.modes().autowrap);
    assert_eq!(t.term.title(), "");
}

#[test]
fn decstr_resets_modes_but_keeps_the_screen() {
    let mut t = TestTerm::new(5, 3);
    t.feed("ab\x1b[2;3r\x1b[?6h\x1b[4h\x1b[1m\x1b[!p");
    t.assert_screen(&["ab"]);
    assert!(!t.term.modes().origin && !t.term.modes().insert);
    assert_eq!(t.term.scroll_region(), 0..3);
    assert!(t.term.pen().flags.bits() == 0);
}

// ---- modes ----

#[test]
fn private_modes_set_and_reset() {
    let mut t = TestTerm::new(5, 2);
    t.feed("\x1b[?1h\x1b[?25l\x1b[?2004h\x1b[?1004h\x1b[?2026h\x1b[?1002h\x1b[?1006h\x1b=");
    let m = *t.term.modes();
    assert!(m.app_cursor_keys && !m.show_cursor && m.bracketed_paste && m.focus_events);
    assert!(m.synchronized_output && m.app_keypad);
    assert_eq!(m.mouse, MouseTracking::ButtonMotion);
    assert_eq!(m.mouse_encoding, MouseEncoding::Sgr);
    t.feed("\x1b[?1002l\x1b[?1006l\x1b>\x1b[?1003h\x1b[?1015h");
    assert_eq!(t.term.modes().mouse, MouseTracking::AnyMotion);
    assert_eq!(t.term.modes().mouse_encoding, MouseEncoding::Urxvt);
    assert!(!t.term.modes().app_keypad);
    t.feed("\x1b[?9h\x1b[?1005h");
    assert_eq!(t.term.modes().mouse, MouseTracking::X10);
    assert_eq!(t.term.modes().mouse_encoding, MouseEncoding::Utf8);
    t.feed("\x1b[?1000h");
    assert_eq!(t.term.modes().mouse, MouseTracking::Normal);
}

#[test]
fn decrqm_reports_mode_state() {
    let mut t = TestTerm::new(5, 2);
    t.feed("\x1b[?2004h\x1b[?2004$p\x1b[?25$p\x1b[?1$p\x1b[?9999$p\x1b[4$p");
    assert_eq!(
        t.replies(),
        "\x1b[?2004;1$y\x1b[?25;1$y\x1b[?1;2$y\x1b[?9999;0$y\x1b[4;2$y"
    );
}

#[test]
fn lnm_makes_line_feed_return_the_carriage() {
    TestTerm::new(5, 2)
        .feed("\x1b[20hab\ncd")
        .assert_screen(&["ab", "cd"]);
}

// ---- replies ----

#[test]
fn device_status_and_attributes() {
    let mut t = TestTerm::new(10, 5);
    t.feed("\x1b[5n\x1b[2;4H\x1b[6n\x1b[c\x1b[>c\x1b[>q\x1b[?6n");
    let version = tern_core::model::VERSION;
    let replies = t.replies();
    assert!(
        replies.starts_with("\x1b[0n\x1b[2;4R\x1b[?65;1;4;6;22;28c\x1b[>64;379;0c"),
        "{replies:?}"
    );
    assert!(
        replies.contains(&format!("\x1bP>|tern {version}\x1b\\")),
        "{replies:?}"
    );
    assert!(
        replies.ends_with("\x1b[?2;4;1R"),
        "DECXCPR carries the page: {replies:?}"
    );
}

#[test]
fn osc_color_queries_answer_with_the_request_terminator() {
    let mut t = TestTerm::new(5, 1);
    t.feed("\x1b]11;?\x07\x1b]10;?\x1b\\\x1b]4;1;?\x07");
    let r = t.replies();
    assert_eq!(
        r,
        "\x1b]11;rgb:1818/1818/1818\x07\x1b]10;rgb:d8d8/d8d8/d8d8\x1b\\\x1b]4;1;rgb:cdcd/0000/0000\x07"
    );
    t.feed("\x1b]4;1;#102030\x07\x1b]4;1;?\x07\x1b]104\x07\x1b]4;1;?\x07");
    assert_eq!(
        t.replies(),
        "\x1b]4;1;rgb:1010/2020/3030\x07\x1b]4;1;rgb:cdcd/0000/0000\x07"
    );
    t.feed("\x1b]11;rgb:ff/00/00\x07\x1b]11;?\x07\x1b]111\x07\x1b]11;?\x07");
    assert_eq!(
        t.replies(),
        "\x1b]11;rgb:ffff/0000/0000\x07\x1b]11;rgb:1818/1818/1818\x07"
    );
}

#[test]
fn title_reports_are_not_answered() {
    // Deliberately unlike xterm with allowWindowOps: 20t/21t could echo attacker bytes.
    let mut t = TestTerm::new(5, 1);
    t.feed("\x1b]2;evil\x07\x1b[21t\x1b[20t");
    assert_eq!(t.replies(), "", "title reports could echo attacker bytes");
}

// ---- OSC facts ----

#[test]
fn titles_cwd_and_notifications_become_events() {
    let mut t = TestTerm::new(5, 1);
    t.feed("\x1b]0;hello;world\x07\x1b]7;file://localhost/tmp/a%20b\x1b\\\x07");
    t.feed("\x1b]9;done\x07\x1b]777;notify;Build;ok\x07\x1b]9;4;1;50\x07");
    let events = t.events();
    assert_eq!(
        events,
        vec![
            TermEvent::Title("hello;world".into()),
            TermEvent::Cwd("/tmp/a b".into()),
            TermEvent::Bell,
            TermEvent::Notification(Notification::new(NotifySource::Osc9, "", "done")),
            TermEvent::Notification(Notification::new(NotifySource::Osc777, "Build", "ok")),
            TermEvent::Progress(Progress {
                state: ProgressState::Normal,
                percent: Some(50)
            }),
        ]
    );
    assert_eq!(t.term.cwd(), Some("/tmp/a b"));
}

#[test]
fn shell_marks_carry_exit_status() {
    let mut t = TestTerm::new(10, 3);
    t.feed("\x1b]133;A\x07$ \x1b]133;B\x07ls\r\n\x1b]133;C\x07out\r\n\x1b]133;D;2\x07");
    let marks: Vec<ShellMark> = t
        .events()
        .into_iter()
        .filter_map(|e| {
            if let TermEvent::Shell { mark, .. } = e {
                Some(mark)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(
        marks,
        vec![
            ShellMark::PromptStart,
            ShellMark::CommandStart,
            ShellMark::CommandExecuted,
            ShellMark::CommandFinished { exit_code: Some(2) },
        ]
    );
}

/// The command line comes with OSC 133 C: what was typed after the prompt's end (B),
/// a wrapped line joined whole, or what the shell said in `cmdline_url=`.
#[test]
fn the_command_line_comes_with_its_start_mark() {
    let commands = |t: &mut TestTerm| -> Vec<String> {
        t.events()
            .into_iter()
            .filter_map(|e| match e {
                TermEvent::Command(c) => Some(c),
                _ => None,
            })
            .collect()
    };
    let mut t = TestTerm::new(10, 4);
    t.feed("\x1b]133;A\x07$ \x1b]133;B\x07echo abcdefgh\r\n\x1b]133;C\x07");
    assert_eq!(commands(&mut t), ["echo abcdefgh"]);
    t.feed("\x1b]133;A\x07$ \x1b]133;B\x07\r\n\x1b]133;C;cmdline_url=git%20log\x07");
    assert_eq!(commands(&mut t), ["git log"]);
    // No B: nothing to read.
    t.feed("\x1b]133;A\x07\x1b]133;C\x07");
    assert!(commands(&mut t).is_empty());
}

#[test]
fn osc52_is_kept_as_a_request() {
    let mut t = TestTerm::new(5, 1);
    t.feed("\x1b]52;c;aGk=\x07\x1b]52;c;?\x07");
    assert_eq!(
        t.events(),
        vec![
            TermEvent::Clipboard(ClipboardRequest::Write {
                selection: "c".into(),
                base64: "aGk=".into()
            }),
            TermEvent::Clipboard(ClipboardRequest::Read {
                selection: "c".into()
            }),
        ]
    );
    assert_eq!(
        t.replies(),
        "",
        "the model never answers a clipboard read itself"
    );
}

#[test]
fn osc8_hyperlinks_mark_cells() {
    let mut t = TestTerm::new(10, 1);
    t.feed("\x1b]8;id=x;https://example.com\x1b\\link\x1b]8;;\x1b\\ no");
    let row = t.term.grid().row(0);
    let id = row.extra(0).and_then(|e| e.hyperlink).expect("linked");
    assert_eq!(t.term.hyperlink_uri(id), Some("https://example.com"));
    assert_eq!(row.extra(3).and_then(|e| e.hyperlink), Some(id));
    assert!(row.extra(5).is_none());
}

// ---- bounded input ----

#[test]
fn over_long_osc_is_dropped_and_parsing_continues() {
    let mut t = TestTerm::new(10, 1);
    let mut input = b"\x1b]2;".to_vec();
    input.extend(std::iter::repeat_n(
        b'x',
        tern_core::model::MAX_OSC_BYTES * 3,
    ));
    input.extend_from_slice(b"\x07ok");
    // Split into odd chunks so the guard sees every boundary.
    for chunk in input.chunks(4093) {
        t.feed_bytes(chunk);
    }
    t.assert_screen(&["ok"]);
    assert_eq!(t.term.title(), "");
    assert!(t.events().contains(&TermEvent::Dropped {
        what: "over-long OSC string"
    }));
}

#[test]
fn titles_are_capped() {
    let mut t = TestTerm::new(10, 1);
    t.feed(&format!("\x1b]2;{}\x07", "t".repeat(5000)));
    assert_eq!(t.term.title().len(), 1024);
}

#[test]
fn malformed_sequences_are_ignored() {
    let mut t = TestTerm::new(10, 2);
    t.feed_bytes(
        b"\x1b[999999999999;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;Ha",
    );
    t.feed_bytes(b"\xff\xfe\x1b[38;2m\x1b[38;5m\x1b]\x07\x1bP\x1b\\b");
    let dump = t.term.dump();
    assert!(dump.rows[0].ends_with('b'), "{:?}", dump.rows);
}

// ---- resize and reflow ----

#[test]
fn narrowing_reflows_wrapped_lines() {
    let mut t = TestTerm::new(10, 4);
    t.feed("abcdefghij\r\nxy");
    t.term.resize(TermSize::new(5, 4));
    t.assert_screen(&["abcde", "fghij", "xy"])
        .assert_cursor(2, 2);
}

#[test]
fn widening_joins_soft_wrapped_lines() {
    let mut t = TestTerm::new(4, 4);
    t.feed("abcdefgh\r\nxy");
    t.assert_screen(&["abcd", "efgh", "xy"]);
    t.term.resize(TermSize::new(10, 4));
    t.assert_screen(&["abcdefgh", "xy"]).assert_cursor(1, 2);
}

#[test]
fn shrinking_rows_pushes_top_lines_to_scrollback_and_growing_pulls_them_back() {
    let mut t = TestTerm::new(5, 4);
    t.feed("1\r\n2\r\n3\r\n4");
    t.term.resize(TermSize::new(5, 2));
    t.assert_screen(&["3", "4"]).assert_cursor(1, 1);
    assert_eq!(t.scrollback_text(), vec!["1", "2"]);
    t.term.resize(TermSize::new(5, 4));
    t.assert_screen(&["1", "2", "3", "4"]).assert_cursor(3, 1);
}

#[test]
fn reflow_keeps_wide_chars_whole() {
    let mut t = TestTerm::new(6, 3);
    t.feed("ab你好c");
    t.term.resize(TermSize::new(3, 3));
    t.assert_screen(&["ab", "你", "好c"]).assert_cursor(2, 2);
    t.feed("d").assert_screen(&["你", "好c", "d"]);
}

// ---- damage ----

#[test]
fn damage_tracks_written_rows() {
    let mut t = TestTerm::new(5, 4);
    t.term.take_damage();
    t.feed("\x1b[3;1Hx");
    assert_eq!(t.term.take_damage(), vec![2]);
    assert_eq!(t.term.take_damage(), Vec::<usize>::new());
}

#[test]
fn a_character_split_across_reads_loses_nothing() {
    // vte 0.15 on its own drops the 'a' here when the input is cut after 0xcc.
    let bytes = "e\u{301}a你z".as_bytes();
    for cut in 1..bytes.len() {
        let mut t = TestTerm::new(10, 1);
        t.feed_bytes(&bytes[..cut]).feed_bytes(&bytes[cut..]);
        t.assert_screen(&["e\u{301}a你z"]);
    }
    let mut t = TestTerm::new(10, 1);
    for b in bytes {
        t.feed_bytes(std::slice::from_ref(b));
    }
    t.assert_screen(&["e\u{301}a你z"]);
}

#[test]
fn del_is_ignored() {
    TestTerm::new(10, 1)
        .feed("a\x7fb")
        .assert_screen(&["ab"])
        .assert_cursor(0, 2);
}

#[test]
fn text_area_size_is_reported() {
    let mut t = TestTerm::new(80, 24);
    t.feed("\x1b[18t\x1b[19t");
    assert_eq!(t.replies(), "\x1b[8;24;80t\x1b[9;24;80t");
}

#[test]
fn raw_c1_bytes_are_not_controls_in_utf8() {
    TestTerm::new(20, 3)
        .feed_bytes(b"a\x85X")
        .assert_screen(&["aX"]);
    TestTerm::new(20, 3)
        .feed_bytes(b"a\x88\r\tX")
        .assert_screen(&["a       X"]);
}

#[test]
fn a_reset_keeps_replies_to_earlier_queries() {
    let mut t = TestTerm::new(10, 3);
    t.feed("\x1b[2;3H\x1b[6n\x1bc");
    assert_eq!(t.replies(), "\x1b[2;3R");
}

#[test]
fn vertical_moves_stop_at_the_margins_from_inside_the_region() {
    let mut t = TestTerm::new(10, 10);
    t.feed("\x1b[3;6r\x1b[5;1H\x1b[9A").assert_cursor(2, 0);
    t.feed("\x1b[9B").assert_cursor(5, 0);
    t.feed("\x1b[8;1H\x1b[9B").assert_cursor(9, 0);
    t.feed("\x1b[2;1H\x1b[9A").assert_cursor(0, 0);
    t.feed("\x1b[4;1H\x1b[9F").assert_cursor(2, 0);
}

#[test]
fn relative_moves_in_origin_mode_bring_the_cursor_into_the_region() {
    let mut t = TestTerm::new(10, 8);
    // DECRC may leave the cursor outside a region set after DECSC.
    t.feed("\x1b[?6h\x1b[8;9H\x1b7\x1b[1;2r\x1b8")
        .assert_cursor(7, 8);
    t.feed("\x1b[e").assert_cursor(1, 8);
}
