//! xterm-level conformance (issue 9): reports, resets, margins and rectangles, cursor
//! and editing details. Each test names the xterm behaviour it pins; where tern differs
//! on purpose the test says so. See docs/CONFORMANCE.md.

mod support;

use support::TestTerm;
use tern_core::model::TermSize;

/// xterm's default DECRQCRA checksum of the cells it counts, written with default
/// attributes: every character given, spaces included (a printed space, or the blank
/// first cell of the rectangle, counts as 0x20; other never-written blanks are left out
/// of `lines`). See `tests/fidelity.rs` for the blank-cell rules.
fn checksum_of(lines: &[&str]) -> u16 {
    let sum: u32 = lines
        .iter()
        .flat_map(|l| l.chars())
        .map(|c| c as u32 & 0xff)
        .sum();
    (sum as u16).wrapping_neg()
}

fn decrqcra(t: &mut TestTerm, id: u16, top: u16, left: u16, bottom: u16, right: u16) -> String {
    t.feed(&format!("\x1b[{id};1;{top};{left};{bottom};{right}*y"));
    t.replies()
}

// ---- reports ----

#[test]
fn decrqcra_is_the_negated_sum_of_the_characters() {
    let mut t = TestTerm::new(10, 4);
    t.feed("AB\r\nC  D");
    let expected = format!("\x1bP7!~{:04X}\x1b\\", checksum_of(&["AB", "C  D"]));
    assert_eq!(decrqcra(&mut t, 7, 1, 1, 2, 4), expected);
    // A sub-rectangle: "B", a never-written blank and the two printed spaces under them.
    assert_eq!(
        decrqcra(&mut t, 1, 1, 2, 2, 3),
        format!("\x1bP1!~{:04X}\x1b\\", checksum_of(&["B", "  "]))
    );
    // An empty screen: its first cell counts as a space (xterm 379).
    let mut blank = TestTerm::new(5, 2);
    assert_eq!(decrqcra(&mut blank, 3, 1, 1, 2, 5), "\x1bP3!~FFE0\x1b\\");
}

#[test]
fn decrqcra_adds_xterm_attribute_bits() {
    // bold 0x80, underline 0x10, inverse 0x20, blink 0x40; an invisible character
    // counts as a space; protection adds nothing (measured on xterm 379).
    let mut t = TestTerm::new(10, 1);
    t.feed("\x1b[1mA\x1b[0;4mB\x1b[0;7mC\x1b[0;5mD\x1b[0;8mE\x1b[0m\x1b[1\"qF\x1b[0\"q");
    let sum: u32 = (0x41 + 0x80) + (0x42 + 0x10) + (0x43 + 0x20) + (0x44 + 0x40) + 0x20 + 0x46;
    let expected = (sum as u16).wrapping_neg();
    assert_eq!(
        decrqcra(&mut t, 1, 1, 1, 1, 10),
        format!("\x1bP1!~{expected:04X}\x1b\\")
    );
    // Colours are not part of the checksum.
    let mut c = TestTerm::new(4, 1);
    c.feed("\x1b[31;44mA");
    assert_eq!(
        decrqcra(&mut c, 1, 1, 1, 1, 4),
        format!("\x1bP1!~{:04X}\x1b\\", checksum_of(&["A"]))
    );
}

#[test]
fn decrqcra_defaults_and_origin_mode() {
    let mut t = TestTerm::new(6, 4);
    t.feed("\x1b[3;1Hxy\x1b[4;6Hz");
    // Empty rectangle parameters: the whole screen.
    t.feed("\x1b[9;1;;;;*y");
    assert_eq!(
        t.replies(),
        format!("\x1bP9!~{:04X}\x1b\\", checksum_of(&[" ", "xy", "z"]))
    );
    // In origin mode the rectangle is relative to the scroll region.
    t.feed("\x1b[3;4r\x1b[?6h\x1b[2;1;1;1;1;2*y");
    assert_eq!(
        t.replies(),
        format!("\x1bP2!~{:04X}\x1b\\", checksum_of(&["xy"]))
    );
}

#[test]
fn window_size_reports_carry_only_numbers() {
    let mut t = TestTerm::new(80, 24);
    t.feed("\x1b[14t\x1b[16t\x1b[18t\x1b[19t");
    assert_eq!(
        t.replies(),
        "\x1b[4;384;640t\x1b[6;16;8t\x1b[8;24;80t\x1b[9;24;80t",
        "8x16 cells until the app says otherwise"
    );
    t.term.set_cell_pixel_size(10, 21);
    t.feed("\x1b[14t\x1b[16t");
    assert_eq!(t.replies(), "\x1b[4;504;800t\x1b[6;21;10t");
}

#[test]
fn resize_requests_are_queued_for_the_app_and_not_applied() {
    let mut t = TestTerm::new(80, 24);
    t.feed("\x1b[8;30;100t");
    assert_eq!(t.replies(), "");
    assert_eq!(t.term.take_resize_request(), Some(TermSize::new(100, 30)));
    assert_eq!(t.term.take_resize_request(), None, "taken once");
    assert_eq!(
        t.term.size(),
        TermSize::new(80, 24),
        "the model does not resize"
    );
    // A missing or zero dimension keeps the current one.
    t.feed("\x1b[8;;120t");
    assert_eq!(t.term.take_resize_request(), Some(TermSize::new(120, 24)));
}

#[test]
fn title_and_icon_reports_stay_refused() {
    // Deliberately unlike xterm with allowWindowOps: 20t/21t would type a title chosen
    // by one program into the input of whatever reads the reply.
    let mut t = TestTerm::new(10, 2);
    t.feed("\x1b]0;rm -rf ~\x07\x1b[20t\x1b[21t");
    assert_eq!(t.replies(), "");
}

#[test]
fn decrqss_reports_supported_settings() {
    let mut t = TestTerm::new(20, 10);
    t.feed("\x1b[1;4;31;48;5;200m\x1bP$qm\x1b\\");
    assert_eq!(t.replies(), "\x1bP1$r0;1;4;31;48;5;200m\x1b\\");
    t.feed("\x1b[0;3;7;38;2;1;2;3m\x1bP$qm\x1b\\");
    assert_eq!(t.replies(), "\x1bP1$r0;3;7;38;2;1;2;3m\x1b\\");
    t.feed("\x1b[m\x1bP$qm\x1b\\");
    assert_eq!(t.replies(), "\x1bP1$r0m\x1b\\");
    t.feed("\x1b[2;8r\x1bP$qr\x1b\\");
    assert_eq!(t.replies(), "\x1bP1$r2;8r\x1b\\");
    t.feed("\x1b[?69h\x1b[3;12s\x1bP$qs\x1b\\");
    assert_eq!(t.replies(), "\x1bP1$r3;12s\x1b\\");
    t.feed("\x1b[4 q\x1bP$q q\x1b\\");
    assert_eq!(t.replies(), "\x1bP1$r4 q\x1b\\");
    t.feed("\x1b[1\"q\x1bP$q\"q\x1b\\");
    assert_eq!(t.replies(), "\x1bP1$r1\"q\x1b\\");
    t.feed("\x1bP$q\"p\x1b\\");
    assert_eq!(t.replies(), "\x1bP1$r65;1\"p\x1b\\");
}

#[test]
fn decrqss_answers_invalid_and_never_echoes_the_request() {
    let mut t = TestTerm::new(20, 5);
    for request in [
        "\x1bP$qx\x1b\\",
        "\x1bP$qevil\r\x1b\\",
        "\x1bP$q\x1b\\",
        "\x1bP$qmm\x1b\\",
    ] {
        t.feed(request);
        assert_eq!(t.replies(), "\x1bP0$r\x1b\\", "{request:?}");
    }
    // An over-long request is invalid too, and nothing of it comes back.
    let long = format!("\x1bP$q{}m\x1b\\", "A".repeat(5000));
    t.feed(&long);
    assert_eq!(t.replies(), "\x1bP0$r\x1b\\");
}

#[test]
fn decrqm_covers_every_implemented_mode() {
    let mut t = TestTerm::new(10, 2);
    t.feed("\x1b[?69$p\x1b[?69h\x1b[?69$p\x1b[?5$p\x1b[?7$p\x1b[4h\x1b[4$p\x1b[3$p");
    assert_eq!(
        t.replies(),
        "\x1b[?69;2$y\x1b[?69;1$y\x1b[?5;2$y\x1b[?7;1$y\x1b[4;1$y\x1b[3;4$y"
    );
    let modes = [
        1, 6, 7, 9, 12, 25, 47, 66, 69, 1000, 1002, 1003, 1004, 1005, 1006, 1007, 1015, 1047, 1048,
        1049, 2004, 2026,
    ];
    for mode in modes {
        t.feed(&format!("\x1b[?{mode}$p"));
        let reply = t.replies();
        assert!(
            !reply.ends_with(";0$y"),
            "mode {mode} is implemented: {reply:?}"
        );
    }
}

#[test]
fn device_attributes_and_version() {
    let mut t = TestTerm::new(10, 2);
    t.feed("\x1b[c\x1b[0c\x1bZ");
    assert_eq!(t.replies(), "\x1b[?65;1;4;6;22;28c".repeat(3));
    t.feed("\x1b[=c");
    assert_eq!(t.replies(), "\x1bP!|00000000\x1b\\");
    t.feed("\x1b[>c\x1b[>q");
    let r = t.replies();
    assert!(
        r.starts_with("\x1b[>64;379;0c") && r.contains("\x1bP>|tern "),
        "{r:?}"
    );
}

#[test]
fn osc_colour_queries_reply_with_colour_values_only() {
    let mut t = TestTerm::new(10, 2);
    t.feed("\x1b]10;?;?;?\x07");
    assert_eq!(
        t.replies(),
        "\x1b]10;rgb:d8d8/d8d8/d8d8\x07\x1b]11;rgb:1818/1818/1818\x07\x1b]12;rgb:d8d8/d8d8/d8d8\x07"
    );
    for (osc, value) in [
        (13, "d8d8/d8d8/d8d8"),
        (14, "1818/1818/1818"),
        (15, "d8d8/d8d8/d8d8"),
        (16, "1818/1818/1818"),
        (17, "d8d8/d8d8/d8d8"),
        (18, "d8d8/d8d8/d8d8"),
        (19, "1818/1818/1818"),
    ] {
        t.feed(&format!("\x1b]{osc};?\x1b\\"));
        assert_eq!(t.replies(), format!("\x1b]{osc};rgb:{value}\x1b\\"));
    }
    t.feed("\x1b]5;0;?\x07\x1b]4;9;?\x07");
    assert_eq!(
        t.replies(),
        "\x1b]5;0;rgb:d8d8/d8d8/d8d8\x07\x1b]4;9;rgb:ffff/0000/0000\x07"
    );
    // Anything but a number where the index goes gets no answer (nothing to echo).
    t.feed("\x1b]4;evil;?\x07\x1b]5;9;?\x07\x1b]4;300;?\x07");
    assert_eq!(t.replies(), "");
}

#[test]
fn xtgettcap_answers_a_fixed_set() {
    let hex = |s: &str| -> String { s.bytes().map(|b| format!("{b:02X}")).collect() };
    let mut t = TestTerm::new(10, 2);
    t.feed(&format!("\x1bP+q{}\x1b\\", hex("TN")));
    assert_eq!(
        t.replies(),
        format!("\x1bP1+r{}={}\x1b\\", hex("TN"), hex("xterm-256color"))
    );
    t.feed(&format!("\x1bP+q{};{}\x1b\\", hex("Co"), hex("RGB")));
    assert_eq!(
        t.replies(),
        format!(
            "\x1bP1+r{}={}\x1b\\\x1bP1+r{}={}\x1b\\",
            hex("Co"),
            hex("256"),
            hex("RGB"),
            hex("8/8/8")
        )
    );
    // Lower-case hex is decoded too; unknown names get the failure reply, no echo.
    t.feed("\x1bP+q636f6c6f7273\x1b\\");
    assert_eq!(
        t.replies(),
        format!("\x1bP1+r{}={}\x1b\\", hex("colors"), hex("256"))
    );
    t.feed(&format!("\x1bP+q{}\x1b\\\x1bP+qZZ\x1b\\", hex("evil")));
    assert_eq!(t.replies(), "\x1bP0+r\x1b\\\x1bP0+r\x1b\\");
}

// ---- resets ----

#[test]
fn decstr_resets_xterms_list_and_keeps_the_screen() {
    let mut t = TestTerm::new(10, 5);
    t.feed("abc\x1b[?69h\x1b[2;5s\x1b[2;4r\x1b[?6h\x1b[4h\x1b[?7l\x1b[?25l\x1b[1;31m\x1b[1\"q");
    t.feed("\x1b[2;2H\x1b7\x1b(0\x1b[!p");
    let m = t.term.modes();
    assert!(!m.insert && !m.origin && m.autowrap && m.show_cursor);
    assert_eq!(t.term.scroll_region(), 0..5);
    assert_eq!(t.term.lr_margins(), 0..10);
    assert!(!t.term.lr_margin_mode(), "xterm's resetMarginMode");
    assert_eq!(*t.term.pen(), Default::default(), "SGR and DECSCA");
    t.assert_cursor(2, 2);
    t.feed("q\x1b8");
    t.assert_screen(&["abc", "", "  q"]).assert_cursor(0, 0);
}

#[test]
fn ris_resets_margins_and_level_but_keeps_what_the_app_told() {
    let mut t = TestTerm::new(10, 3);
    t.term.set_cell_pixel_size(9, 18);
    t.feed("\x1b[?69h\x1b[3;6s\x1b[62;1\"p\x1bc\x1bP$q\"p\x1b\\\x1b[16t");
    assert_eq!(t.term.lr_margins(), 0..10);
    assert!(!t.term.lr_margin_mode());
    assert_eq!(t.replies(), "\x1bP1$r65;1\"p\x1b\\\x1b[6;18;9t");
}

#[test]
fn decscl_sets_the_level_with_a_soft_reset() {
    let mut t = TestTerm::new(10, 3);
    t.feed("\x1b[4h\x1b[2;3r\x1b[63;1\"p\x1bP$q\"p\x1b\\");
    assert_eq!(t.replies(), "\x1bP1$r63;1\"p\x1b\\");
    assert!(!t.term.modes().insert);
    assert_eq!(t.term.scroll_region(), 0..3);
    // Out of range levels are ignored.
    t.feed("\x1b[4h\x1b[70\"p");
    assert!(t.term.modes().insert);
}

#[test]
fn decaln_resets_all_margins() {
    let mut t = TestTerm::new(4, 2);
    t.feed("\x1b[?69h\x1b[2;3s\x1b[2;2r\x1b#8");
    t.assert_screen(&["EEEE", "EEEE"]).assert_cursor(0, 0);
    assert_eq!(t.term.lr_margins(), 0..4);
    assert_eq!(t.term.scroll_region(), 0..2);
}

// ---- margins ----

#[test]
fn csi_s_is_scosc_without_declrmm_and_decslrm_with_it() {
    let mut t = TestTerm::new(10, 3);
    t.feed("\x1b[2;3H\x1b[3;6s\x1b[H\x1b[u");
    t.assert_cursor(1, 2);
    assert_eq!(t.term.lr_margins(), 0..10);
    t.feed("\x1b[?69h\x1b[3;6s");
    assert_eq!(t.term.lr_margins(), 2..6);
    t.assert_cursor(0, 0);
    // A pair narrower than two columns is ignored.
    t.feed("\x1b[4;4s");
    assert_eq!(t.term.lr_margins(), 2..6);
    // Resetting DECLRMM resets the margins.
    t.feed("\x1b[?69l");
    assert_eq!(t.term.lr_margins(), 0..10);
}

#[test]
fn printing_wraps_at_the_right_margin_to_the_left_margin() {
    let mut t = TestTerm::new(8, 3);
    t.feed("\x1b[?69h\x1b[3;5s\x1b[1;3Habcdefg");
    t.assert_screen(&["  abc", "  def", "  g"])
        .assert_cursor(2, 3);
}

#[test]
fn scrolling_stays_inside_the_margin_box_and_skips_the_scrollback() {
    let mut t = TestTerm::new(6, 3);
    t.feed("111111\r\n222222\r\n333333");
    t.feed("\x1b[?69h\x1b[2;4s\x1b[3;2H\n");
    t.assert_screen(&["122211", "233322", "3   33"]);
    assert!(t.scrollback_text().is_empty(), "{:?}", t.scrollback_text());
    // RI at the top margin, SD and SU move only the box.
    t.feed("\x1b[1;2H\x1bM");
    t.assert_screen(&["1   11", "222222", "333333"]);
    t.feed("\x1b[2S");
    t.assert_screen(&["133311", "2   22", "3   33"]);
    t.feed("\x1b[1T");
    t.assert_screen(&["1   11", "233322", "3   33"]);
}

#[test]
fn line_feed_outside_the_margins_does_not_scroll() {
    let mut t = TestTerm::new(6, 2);
    t.feed("abcdef\r\nghijkl\x1b[?69h\x1b[2;4s\x1b[2;6H\n");
    t.assert_screen(&["abcdef", "ghijkl"]).assert_cursor(1, 5);
}

#[test]
fn insert_and_delete_respect_the_margins() {
    let mut t = TestTerm::new(8, 3);
    t.feed("abcdefgh\r\nABCDEFGH\r\n12345678");
    t.feed("\x1b[?69h\x1b[2;6s\x1b[1;3H\x1b[2@");
    t.assert_screen(&["ab  cdgh", "ABCDEFGH", "12345678"]);
    t.feed("\x1b[2;3H\x1b[P");
    t.assert_screen(&["ab  cdgh", "ABDEF GH", "12345678"]);
    // IL/DL move only the columns inside the margins.
    t.feed("\x1b[2;2H\x1b[L");
    t.assert_screen(&["ab  cdgh", "A     GH", "1BDEF 78"]);
    t.feed("\x1b[M");
    t.assert_screen(&["ab  cdgh", "ABDEF GH", "1     78"]);
    // Outside the margins ICH, DCH, IL and DL do nothing.
    t.feed("\x1b[1;8H\x1b[@\x1b[P\x1b[L\x1b[M");
    t.assert_screen(&["ab  cdgh", "ABDEF GH", "1     78"]);
    // ECH is not bound by the margins.
    t.feed("\x1b[1;5H\x1b[4X");
    t.assert_screen(&["ab", "ABDEF GH", "1     78"]);
}

#[test]
fn cursor_movement_respects_the_margins() {
    let mut t = TestTerm::new(10, 3);
    t.feed("\x1b[?69h\x1b[3;6s\x1b[1;5H\r");
    t.assert_cursor(0, 2);
    t.feed("\x1b[1;2H\r");
    t.assert_cursor(0, 0);
    t.feed("\x1b[1;4H\x1b[20C");
    t.assert_cursor(0, 5);
    t.feed("\x1b[20D");
    t.assert_cursor(0, 2);
    t.feed("\x08");
    t.assert_cursor(0, 2);
    t.feed("\x1b[1;8H\x1b[20C");
    t.assert_cursor(0, 9);
    t.feed("\x1b[1;8H\x1b[20D");
    t.assert_cursor(0, 2);
}

#[test]
fn origin_mode_is_relative_to_the_margin_box() {
    let mut t = TestTerm::new(10, 6);
    t.feed("\x1b[?69h\x1b[2;5r\x1b[4;8s\x1b[?6h\x1b[1;1HX\x1b[9;9HY\x1b[6n");
    t.assert_screen(&["", "   X", "", "", "       Y"]);
    assert_eq!(t.replies(), "\x1b[4;5R");
    t.feed("\x1b[2d");
    t.assert_cursor(2, 7);
}

#[test]
fn decic_and_decdc_shift_columns_in_the_box() {
    let mut t = TestTerm::new(6, 3);
    t.feed("abcdef\r\nghijkl\r\nmnopqr\x1b[1;2r\x1b[1;2H\x1b[2'}");
    t.assert_screen(&["a  bcd", "g  hij", "mnopqr"]);
    t.feed("\x1b[3'~");
    t.assert_screen(&["acd", "gij", "mnopqr"]);
}

#[test]
fn decbi_and_decfi_scroll_columns_at_the_margins() {
    let mut t = TestTerm::new(6, 2);
    t.feed("abcdef\r\nghijkl\x1b[?69h\x1b[2;5s\x1b[1;2H\x1b6");
    t.assert_screen(&["a bcdf", "g hijl"]).assert_cursor(0, 1);
    t.feed("\x1b[1;5H\x1b9");
    t.assert_screen(&["abcd f", "ghij l"]).assert_cursor(0, 4);
    // Away from the margins they just move the cursor.
    t.feed("\x1b[1;3H\x1b6");
    t.assert_cursor(0, 1);
    t.feed("\x1b9");
    t.assert_cursor(0, 2);
}

// ---- rectangles ----

#[test]
fn decfra_fills_with_the_pen_and_decera_erases() {
    let mut t = TestTerm::new(6, 3);
    t.feed("\x1b[1m\x1b[88;2;2;3;4$x\x1b[m");
    t.assert_screen(&["", " XXX", " XXX"]);
    assert!(t.attrs(1, 2).bold);
    t.feed("\x1b[2;3;3;3$z");
    t.assert_screen(&["", " X X", " X X"]);
    // Characters outside 32..126 and 160..255 are ignored.
    t.feed("\x1b[10;1;1;1;1$x");
    t.assert_screen(&["", " X X", " X X"]);
}

#[test]
fn deccra_copies_a_rectangle_even_onto_itself() {
    let mut t = TestTerm::new(6, 3);
    t.feed("abc\r\ndef\x1b[1;1;2;3;1;2;2;1$v");
    t.assert_screen(&["abc", "dabc", " def"]);
    // Clipped at the screen edge.
    t.feed("\x1b[1;1;1;3;1;3;5;1$v");
    t.assert_screen(&["abc", "dabc", " defab"]);
}

#[test]
fn decsera_keeps_protected_characters_and_attributes() {
    let mut t = TestTerm::new(6, 1);
    t.feed("ab\x1b[1\"qcd\x1b[0\"q\x1b[4mef");
    t.feed("\x1b[1;1;1;6${");
    t.assert_screen(&["  cd"]);
    assert!(
        t.attrs(0, 5).underline != tern_core::model::UnderlineKind::None,
        "DECSERA keeps attributes"
    );
    // DECERA ignores protection.
    t.feed("\x1b[$z");
    t.assert_screen(&[""]);
}

#[test]
fn deccara_and_decrara_change_attributes_by_stream_or_rectangle() {
    let mut t = TestTerm::new(4, 3);
    t.feed("abcd\r\nefgh\r\nijkl");
    // Stream extent (the default): from (1,2) to (2,3) through the line ends.
    t.feed("\x1b[1;2;2;3;1$r");
    let bold: Vec<bool> = (0..4).map(|c| t.attrs(0, c).bold).collect();
    assert_eq!(bold, [false, true, true, true]);
    let bold: Vec<bool> = (0..4).map(|c| t.attrs(1, c).bold).collect();
    assert_eq!(bold, [true, true, true, false]);
    // DECSACE 2: the exact rectangle. DECRARA toggles.
    t.feed("\x1b[2*x\x1b[1;2;3;3;7$t");
    let inverse: Vec<bool> = (0..4).map(|c| t.attrs(2, c).inverse).collect();
    assert_eq!(inverse, [false, true, true, false]);
    t.feed("\x1b[1;2;3;3;7$t");
    assert!(!t.attrs(2, 1).inverse);
    // DECCARA 0 clears, 4 underlines; characters stay.
    t.feed("\x1b[1;1;3;4;0;4$r");
    assert!(!t.attrs(0, 3).bold);
    assert_eq!(
        t.attrs(0, 0).underline,
        tern_core::model::UnderlineKind::Single
    );
    t.assert_screen(&["abcd", "efgh", "ijkl"]);
}

#[test]
fn selective_erase_keeps_protected_characters() {
    let mut t = TestTerm::new(6, 3);
    t.feed("ab\x1b[1\"qcd\x1b[0\"qef\r\ngh\x1b[1\"qij\x1b[0\"qkl\r\nmnopqr");
    t.feed("\x1b[1;4H\x1b[?K");
    t.assert_screen(&["abcd", "ghijkl", "mnopqr"]);
    t.feed("\x1b[1;4H\x1b[?1K");
    t.assert_screen(&["  cd", "ghijkl", "mnopqr"]);
    t.feed("\x1b[2;1H\x1b[?J");
    t.assert_screen(&["  cd", "  ij"]);
    // ED and EL erase protected characters (DEC protection binds only DECSED/DECSEL).
    t.feed("\x1b[2K");
    t.assert_screen(&["  cd"]);
    t.feed("\x1b[?2J");
    t.assert_screen(&["  cd"]);
    t.feed("\x1b[2J");
    t.assert_screen(&[""]);
}

// ---- cursor and editing details ----

#[test]
fn backspace_from_wrap_pending_moves_off_the_last_column() {
    let mut t = TestTerm::new(5, 2);
    t.feed("abcde\x08X");
    t.assert_screen(&["abcXe"]).assert_cursor(0, 4);
}

#[test]
fn autowrap_off_then_on_with_a_pending_wrap() {
    let mut t = TestTerm::new(5, 2);
    t.feed("abcde\x1b[?7lX");
    t.assert_screen(&["abcdX"]);
    t.feed("\x1b[?7hY");
    t.assert_screen(&["abcdX", "Y"]);
}

#[test]
fn insert_mode_with_a_pending_wrap_wraps_first() {
    let mut t = TestTerm::new(5, 2);
    t.feed("abcde\x1b[4hX");
    t.assert_screen(&["abcde", "X"]);
}

#[test]
fn decrc_restores_a_pending_wrap() {
    // xterm saves do_wrap with the cursor (sc->wrap_flag).
    let mut t = TestTerm::new(5, 3);
    t.feed("abcde\x1b7\x1b[3;1H\x1b8X");
    t.assert_screen(&["abcde", "X"]);
}

#[test]
fn decrc_restores_origin_mode_and_the_pen() {
    let mut t = TestTerm::new(10, 5);
    t.feed("\x1b[2;4r\x1b[?6h\x1b[1m\x1b7\x1b[?6l\x1b[m\x1b8\x1b[1;1HA");
    assert!(t.term.modes().origin);
    t.assert_screen(&["", "A"]);
    assert!(t.attrs(1, 0).bold);
}

#[test]
fn cht_stops_at_the_right_margin_and_cbt_ignores_the_left_one() {
    let mut t = TestTerm::new(20, 1);
    t.feed("\x1b[3I");
    t.assert_cursor(0, 19);
    t.feed("\x1b[2Z");
    t.assert_cursor(0, 8);
    t.feed("\x1b[?69h\x1b[3;12s\x1b[1;4H\x1b[5I");
    t.assert_cursor(0, 11);
    // CBT ignores the left margin outside origin mode (xterm's TabToPrevStop, esctest
    // CBT_IgnoresRegion).
    t.feed("\x1b[5Z");
    t.assert_cursor(0, 0);
}

#[test]
fn rep_after_a_wide_character_repeats_it_whole() {
    let mut t = TestTerm::new(7, 2);
    t.feed("你\x1b[2b");
    t.assert_screen(&["你你你"]).assert_cursor(0, 6);
    // A second REP repeats nothing: only a character printed right before it counts.
    t.feed("\x1b[b");
    t.assert_screen(&["你你你"]);
    t.feed("\x1b[H\x1b[2J你\x1b[3b");
    t.assert_screen(&["你你你", "你"]);
}

#[test]
fn ich_dch_ech_at_and_past_the_right_edge() {
    let mut t = TestTerm::new(5, 1);
    t.feed("abcde\x1b[1;5H\x1b[9@");
    t.assert_screen(&["abcd"]);
    t.feed("\x1b[1;1Habcde\x1b[1;5H\x1b[9P");
    t.assert_screen(&["abcd"]);
    t.feed("\x1b[1;1Habcde\x1b[1;4H\x1b[9X");
    t.assert_screen(&["abc"]);
    // At a pending wrap they act on the last column.
    t.feed("\x1b[1;1Habcde\x1b[X");
    t.assert_screen(&["abcd"]);
}
