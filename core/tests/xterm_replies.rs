//! xterm fidelity, round 2 (issue 17). Every expected reply and screen here was measured
//! on xterm 379 (Debian 12) under Xvfb with a probe that sent the sequence and read the
//! reply raw; see docs/CONFORMANCE.md.

mod support;

use support::TestTerm;
use tern_core::model::TermSize;

fn checksum(t: &mut TestTerm, top: u16, left: u16, bottom: u16, right: u16) -> String {
    t.feed(&format!("\x1b[1;1;{top};{left};{bottom};{right}*y"));
    t.replies()
}

fn dcs_checksum(value: u16) -> String {
    format!("\x1bP1!~{value:04X}\x1b\\")
}

// ---- DECRQCRA ----

#[test]
fn decrqcra_counts_a_blank_cell_as_a_space() {
    let mut t = TestTerm::new(80, 24);
    assert_eq!(checksum(&mut t, 1, 1, 1, 1), "\x1bP1!~FFE0\x1b\\");
    t.feed("\x1b[2;2HA");
    assert_eq!(checksum(&mut t, 2, 2, 2, 2), "\x1bP1!~FFBF\x1b\\");
}

#[test]
fn decrqcra_counts_never_written_blanks_only_as_the_first_cell() {
    let mut t = TestTerm::new(80, 24);
    // A 3x3 rectangle of never-written cells: only its first cell counts.
    assert_eq!(checksum(&mut t, 1, 1, 3, 3), dcs_checksum(0xffe0));
    // "  A ": the first blank and the A.
    t.feed("\x1b[1;3HA");
    assert_eq!(checksum(&mut t, 1, 1, 1, 4), dcs_checksum(0xff9f));
    // "A" over a blank: the blank is not the first cell.
    assert_eq!(checksum(&mut t, 1, 3, 2, 3), dcs_checksum(0xffbf));
    // Trailing blanks after text add nothing.
    let mut t = TestTerm::new(80, 24);
    t.feed("AB");
    assert_eq!(checksum(&mut t, 1, 1, 1, 4), dcs_checksum(0xff7d));
}

#[test]
fn decrqcra_counts_printed_spaces() {
    let mut t = TestTerm::new(80, 24);
    t.feed("A ");
    assert_eq!(checksum(&mut t, 1, 1, 1, 2), dcs_checksum(0xff9f));
    let mut t = TestTerm::new(80, 24);
    t.feed("\x1b[1;2H ");
    // [blank, printed space, blank]: the first blank and the space.
    assert_eq!(checksum(&mut t, 1, 1, 1, 3), dcs_checksum(0xffc0));
    assert_eq!(checksum(&mut t, 1, 2, 1, 3), dcs_checksum(0xffe0));
}

#[test]
fn decrqcra_counts_blanks_of_ech_el1_ich_and_decera_but_not_of_other_erases() {
    // "A" then "xyz" below it, erased by each operation; the rectangle is both rows.
    let counted = dcs_checksum(0xff5f); // A + three spaces
    let not_counted = dcs_checksum(0xffbf); // A alone
    for (erase, expected) in [
        ("\x1b[2;1H\x1b[3X", &counted),
        ("\x1b[2;3H\x1b[1K", &counted),
        ("\x1b[2;1H\x1b[80@", &counted),
        ("\x1b[2;1;2;3$z", &counted),
        ("\x1b[2;1H\x1b[K", &not_counted),
        ("\x1b[2;1H\x1b[2K", &not_counted),
        ("\x1b[2;1H\x1b[J", &not_counted),
        ("\x1b[2;1H\x1b[?2K", &not_counted),
        ("\x1b[2;1H\x1b[80P", &not_counted),
        ("\x1b[2;1H\x1b[L", &not_counted),
    ] {
        let mut t = TestTerm::new(80, 24);
        t.feed("A\x1b[2;1Hxyz").feed(erase);
        assert_eq!(&checksum(&mut t, 1, 1, 2, 3), expected, "{erase:?}");
    }
    // Blanks erased with a background colour count as spaces.
    let mut t = TestTerm::new(80, 24);
    t.feed("\x1b[44m\x1b[2J\x1b[m");
    assert_eq!(checksum(&mut t, 1, 1, 1, 3), dcs_checksum(0xffa0));
    // A line scrolled in is never written.
    let mut t = TestTerm::new(80, 24);
    t.feed("\x1b[23;1HA\x1b[24;1Hxyz\x1b[24;1H\n");
    assert_eq!(checksum(&mut t, 23, 1, 24, 3), dcs_checksum(0xfe95));
}

#[test]
fn decrqcra_attribute_bits_are_bold_blink_inverse_and_single_underline() {
    for (sgr, expected) in [
        ("1", 0xff3f),   // A + 0x80
        ("4", 0xffaf),   // A + 0x10
        ("5", 0xff7f),   // A + 0x40
        ("7", 0xff9f),   // A + 0x20
        ("2", 0xffbf),   // dim: nothing
        ("3", 0xffbf),   // italic: nothing
        ("9", 0xffbf),   // strike: nothing
        ("21", 0xffbf),  // double underline: nothing
        ("4:3", 0xffbf), // curly underline: nothing
        ("31", 0xffbf),  // colours: nothing
    ] {
        let mut t = TestTerm::new(80, 24);
        t.feed(&format!("\x1b[{sgr}mA\x1b[m"));
        assert_eq!(
            checksum(&mut t, 1, 1, 1, 1),
            dcs_checksum(expected),
            "SGR {sgr}"
        );
    }
    // DECSCA protection adds nothing.
    let mut t = TestTerm::new(80, 24);
    t.feed("\x1b[1\"qF\x1b[0\"q");
    assert_eq!(checksum(&mut t, 1, 1, 1, 1), dcs_checksum(0xffba));
}

#[test]
fn decrqcra_counts_an_invisible_character_as_a_space_with_its_attributes() {
    let mut t = TestTerm::new(80, 24);
    t.feed("B\x1b[8mA\x1b[m");
    assert_eq!(checksum(&mut t, 1, 1, 1, 2), dcs_checksum(0xff9e));
    let mut t = TestTerm::new(80, 24);
    t.feed("B\x1b[8;1mA\x1b[m");
    assert_eq!(checksum(&mut t, 1, 1, 1, 2), dcs_checksum(0xff1e));
}

#[test]
fn decrqcra_blank_cells_with_attributes_count() {
    // DECCARA inverse over three never-written cells: each is a space plus 0x20.
    let mut t = TestTerm::new(80, 24);
    t.feed("\x1b[1;1;1;3;7$r");
    assert_eq!(checksum(&mut t, 1, 1, 1, 3), dcs_checksum(0xff40));
    assert_eq!(checksum(&mut t, 1, 2, 1, 2), dcs_checksum(0xffc0));
    // Invisible alone does not make a blank count.
    let mut t = TestTerm::new(80, 24);
    t.feed("B\x1b[1;2;1;2;8$r");
    assert_eq!(checksum(&mut t, 1, 1, 1, 2), dcs_checksum(0xffbe));
}

#[test]
fn decrqcra_wide_characters_count_their_right_half_as_ff() {
    let mut t = TestTerm::new(80, 24);
    t.feed("中"); // U+4E2D: 0x2D, then the filler 0xFF
    assert_eq!(checksum(&mut t, 1, 1, 1, 1), dcs_checksum(0xffd3));
    assert_eq!(checksum(&mut t, 1, 2, 1, 2), dcs_checksum(0xff01));
    assert_eq!(checksum(&mut t, 1, 1, 1, 3), dcs_checksum(0xfed4));
    let mut t = TestTerm::new(80, 24);
    t.feed("\x1b[1m中\x1b[m");
    assert_eq!(checksum(&mut t, 1, 1, 1, 2), dcs_checksum(0xfdd4));
}

#[test]
fn decrqcra_after_decsera_counts_the_wiped_cell_as_a_space() {
    let mut t = TestTerm::new(80, 24);
    t.feed("AB\x1b[1;2;1;2${");
    assert_eq!(checksum(&mut t, 1, 1, 1, 2), dcs_checksum(0xff9f));
}

// ---- the pending wrap ----

#[test]
fn lf_cancels_the_pending_wrap_and_keeps_the_column() {
    let mut t = TestTerm::new(80, 3);
    t.feed(&"a".repeat(80)).feed("\nx");
    t.assert_cursor(1, 79);
    assert_eq!(t.term.dump().rows[1], format!("{}x", " ".repeat(79)));
    // VT, FF and IND too; RI goes up.
    for control in ["\x0b", "\x0c", "\x1bD"] {
        let mut t = TestTerm::new(10, 3);
        t.feed(&"a".repeat(10)).feed(control).feed("x");
        t.assert_screen(&["aaaaaaaaaa", "         x"]);
    }
    let mut t = TestTerm::new(10, 3);
    t.feed("\x1b[2;1H").feed(&"a".repeat(10)).feed("\x1bMx");
    t.assert_screen(&["         x", "aaaaaaaaaa"]);
}

#[test]
fn ich_cancels_the_pending_wrap() {
    let mut t = TestTerm::new(80, 3);
    t.feed(&"g".repeat(80)).feed("\x1b[2@I");
    t.assert_screen(&[&format!("{}I", "g".repeat(79))]);
    t.assert_cursor(0, 79);
}

#[test]
fn il_and_dl_go_to_the_left_margin_where_they_act() {
    let mut t = TestTerm::new(80, 24);
    t.feed("\x1b[5;10H\x1b[L\x1b[6n\x1b[5;10H\x1b[M\x1b[6n");
    t.feed("\x1b[?69h\x1b[5;20s\x1b[5;10H\x1b[L\x1b[6n\x1b[5;30H\x1b[L\x1b[6n");
    t.feed("\x1b[5;3H\x1b[M\x1b[6n\x1b[?69l\x1b[5;10r\x1b[20;10H\x1b[L\x1b[6n");
    assert_eq!(
        t.replies(),
        "\x1b[5;1R\x1b[5;1R\x1b[5;5R\x1b[5;30R\x1b[5;3R\x1b[20;10R"
    );
}

#[test]
fn rep_repeats_only_a_character_printed_right_before_it() {
    let mut t = TestTerm::new(10, 12);
    t.feed("a\x1b[C\x1b[b\x1b[2;1Hb\r\x1b[2b\x1b[3;1Hc\n\x1b[b\x1b[5;1Hd\x1b[1m\x1b[b\x1b[m");
    t.feed("\x1b[6;1He\x1b[0b\x1b[7;1Hf\x1b]2;x\x07\x1b[b\x1b[8;1Hg\x1b7\x1b8\x1b[b");
    t.feed("\x1b[9;1Hh\x1b[b\x1b[b\x1b[10;1H中\x1b[b");
    t.assert_screen(&["a", "b", "c", "", "d", "ee", "f", "g", "hh", "中中"]);
    // After a wrap it still repeats, on the next line.
    let mut t = TestTerm::new(4, 3);
    t.feed("abcd\x1b[b");
    t.assert_screen(&["abcd", "d"]);
}

// ---- reverse wraparound ----

#[test]
fn reverse_wraparound_moves_bs_and_cub_back_over_lines() {
    let mut t = TestTerm::new(80, 24);
    t.feed("\x1b[?45h\x1b[3;1H\x08\x1b[6n\x1b[1;1H\x08\x1b[6n");
    t.feed("\x1b[5;1H")
        .feed(&"a".repeat(80))
        .feed("b\x1b[6;2H\x08\x08\x1b[6n");
    t.feed("\x1b[?7l\x1b[3;1H\x08\x1b[6n\x1b[?7h");
    t.feed("\x1b[8;1H")
        .feed(&"a".repeat(80))
        .feed("\x08\x1b[6n");
    t.feed("\x1b[9;1H")
        .feed(&"a".repeat(80))
        .feed("\x1b[D\x1b[6n");
    t.feed("\x1b[9;1H\x1b[4D\x1b[6n\x1b[?45$p\x1b[?45l\x1b[?45$p");
    assert_eq!(
        t.replies(),
        "\x1b[2;80R\x1b[24;80R\x1b[5;80R\x1b[3;1R\x1b[8;80R\x1b[9;80R\x1b[8;77R\
         \x1b[?45;1$y\x1b[?45;2$y"
    );
}

// ---- DECRQM ----

#[test]
fn decrqm_answers_every_mode_xterm_knows() {
    let mut t = TestTerm::new(80, 24);
    let ansi: String = (0..=21).map(|m| format!("\x1b[{m}$p")).collect();
    t.feed(&ansi);
    let expected: String = [
        (0, 0),
        (1, 4),
        (2, 2),
        (3, 4),
        (4, 2),
        (5, 4),
        (6, 0),
        (7, 4),
        (8, 0),
        (9, 0),
        (10, 4),
        (11, 4),
        (12, 1),
        (13, 4),
        (14, 4),
        (15, 4),
        (16, 4),
        (17, 4),
        (18, 4),
        (19, 4),
        (20, 2),
        (21, 0),
    ]
    .iter()
    .map(|(m, v)| format!("\x1b[{m};{v}$y"))
    .collect();
    assert_eq!(t.replies(), expected);
    // Private modes with xterm 379's power-on values (tern: 3 or 4 for the ones it
    // cannot switch, where xterm says 1 or 2; the modes tern records say 1 or 2).
    for (mode, value) in [
        (1, 2),
        (2, 3),
        (3, 2),
        (4, 2),
        (5, 2),
        (6, 2),
        (7, 1),
        (8, 4),
        (9, 2),
        (12, 2),
        (14, 3),
        (25, 1),
        (40, 2),
        (45, 2),
        (47, 2),
        (66, 2),
        (69, 2),
        (1000, 2),
        (1001, 4),
        (1004, 2),
        (1006, 2),
        (1046, 3),
        (1048, 1),
        (1049, 2),
        (2004, 2),
        (2026, 2),
        (8452, 4),
        (10, 0),
        (1045, 0),
        (9999, 0),
    ] {
        t.feed(&format!("\x1b[?{mode}$p"));
        assert_eq!(t.replies(), format!("\x1b[?{mode};{value}$y"), "?{mode}");
    }
}

// ---- DSR, XTWINOPS, DA1, DECSCL, S8C1T ----

#[test]
fn dsr_variants_answer_as_xterm() {
    let mut t = TestTerm::new(80, 24);
    t.feed("\x1b[?15n\x1b[?25n\x1b[?26n\x1b[?53n\x1b[?55n\x1b[?56n\x1b[?62n\x1b[?63;1n");
    t.feed("\x1b[?63n\x1b[?75n\x1b[?85n\x1b[?6n\x1b[5n\x1b[6n\x1b[?5n\x1b[?10n\x1b[?50n");
    assert_eq!(
        t.replies(),
        "\x1b[?13n\x1b[?20n\x1b[?27;1;0;0n\x1b[?53n\x1b[?53n\x1b[?57;0n\x1b[0000*{\
         \x1bP1!~0000\x1b\\\x1bP0!~0000\x1b\\\x1b[?70n\x1b[?83n\x1b[?1;1;1R\x1b[0n\
         \x1b[1;1R\x1b[?0n"
    );
}

#[test]
fn xtwinops_state_position_and_title_stack_by_type() {
    let mut t = TestTerm::new(80, 24);
    t.feed("\x1b[11t\x1b[13t\x1b[13;2t\x1b[15t");
    assert_eq!(
        t.replies(),
        "\x1b[1t\x1b[3;0;0t\x1b[3;0;0t\x1b[5;384;640t",
        "position 0,0; the screen is the text area"
    );
    // 23;1 pops the entry 22;2 pushed without restoring the title; 23;2 then has
    // nothing left.
    t.feed("\x1b]2;first\x07\x1b[22;2t\x1b]2;new\x07\x1b[23;1t");
    assert_eq!(t.term.title(), "new");
    t.feed("\x1b[23;2t");
    assert_eq!(t.term.title(), "new");
    t.feed("\x1b[22;0t\x1b]2;other\x07\x1b[23;0t");
    assert_eq!(t.term.title(), "new");
    // Title reports stay refused.
    t.feed("\x1b[20t\x1b[21t");
    assert_eq!(t.replies(), "");
}

#[test]
fn title_mode_zero_takes_titles_in_hex() {
    let mut t = TestTerm::new(80, 24);
    t.feed("\x1b[>0t\x1b]2;414243\x1b\\");
    assert_eq!(t.term.title(), "ABC");
    t.feed("\x1b]2;4G\x1b\\");
    assert_eq!(t.term.title(), "ABC", "not hex: ignored");
    t.feed("\x1b[>0T\x1b]2;4142\x1b\\");
    assert_eq!(t.term.title(), "4142");
}

#[test]
fn da1_stays_the_same_whatever_decscl_selects() {
    let mut t = TestTerm::new(80, 24);
    for level in [61, 62, 63, 64, 65] {
        t.feed(&format!("\x1b[{level};1\"p\x1b[c\x1bP$q\"p\x1b\\"));
        let decrqss = if level == 61 {
            String::new() // a VT100 has no DECRQSS
        } else {
            format!("\x1bP1$r{level};1\"p\x1b\\")
        };
        assert_eq!(t.replies(), format!("\x1b[?65;1;4;6;22;28c{decrqss}"));
    }
    // A level above the VT520 is ignored.
    t.feed("\x1b[66;1\"p\x1bP$q\"p\x1b\\");
    assert_eq!(t.replies(), "\x1bP1$r65;1\"p\x1b\\");
}

#[test]
fn s8c1t_sends_replies_with_8_bit_controls() {
    let mut t = TestTerm::new(80, 24);
    t.feed("\x1b G\x1b[6n\x1bP$qm\x1b\\\x1b]10;?\x1b\\\x1b[?6n\x1bP$q\"p\x1b\\\x1b F\x1b[6n");
    let replies = t.term.take_replies();
    let fg = "rgb:d8d8/d8d8/d8d8";
    let mut expected = b"\x9b1;1R\x901$r0m\x9c\x9d10;".to_vec();
    expected.extend_from_slice(fg.as_bytes());
    expected.extend_from_slice(b"\x9c\x9b?1;1;1R\x901$r65;0\"p\x9c\x1b[1;1R");
    assert_eq!(replies, expected);
    // DECSCL picks 8-bit controls with 0, 2 or no second parameter, 7-bit with 1.
    t.feed("\x1b[62\"p\x1b[6n\x1b[62;1\"p\x1b[6n\x1b[62;2\"p\x1b[6n\x1b[61\"p\x1b G\x1b[6n");
    assert_eq!(t.term.take_replies(), b"\x9b1;1R\x1b[1;1R\x9b1;1R\x1b[1;1R");
}

#[test]
fn s8c1t_makes_keys_send_8_bit_controls() {
    use tern_core::input::{Key, KeyModes, Mods, encode_key};
    let mut t = TestTerm::new(80, 24);
    let up = |t: &TestTerm| encode_key(Key::Up, Mods::NONE, KeyModes::from_modes(t.term.modes()));
    assert_eq!(up(&t), Some(b"\x1b[A".to_vec()));
    t.feed("\x1b G");
    assert_eq!(up(&t), Some(b"\x9bA".to_vec()));
    t.feed("\x1b F");
    assert_eq!(up(&t), Some(b"\x1b[A".to_vec()));
    // DECSCL with 8-bit controls too; at level 61 (a VT100) never.
    t.feed("\x1b[62;0\"p");
    assert_eq!(up(&t), Some(b"\x9bA".to_vec()));
    t.feed("\x1b[61\"p\x1b G");
    assert_eq!(up(&t), Some(b"\x1b[A".to_vec()));
}

// ---- DECCOLM, DECSCPP, DECSLPP ----

#[test]
fn deccolm_needs_mode_40_then_switches_clears_and_homes() {
    let mut t = TestTerm::new(80, 24);
    t.feed("\x1b[2;5r\x1b[10;10HX\x1b[?3h\x1b[18t\x1b[6n\x1b[?3$p");
    assert_eq!(t.replies(), "\x1b[8;24;80t\x1b[10;11R\x1b[?3;2$y");
    t.feed("\x1b[?40h\x1b[10;10HX\x1b[2;5r\x1b[?6h\x1b[?3h\x1b[18t\x1b[6n");
    t.feed("\x1b[?6$p\x1bP$qr\x1b\\\x1b[?3$p");
    assert_eq!(
        t.replies(),
        "\x1b[8;24;132t\x1b[1;1R\x1b[?6;2$y\x1bP1$r1;24r\x1b\\\x1b[?3;1$y"
    );
    t.assert_screen(&[]);
    assert_eq!(t.term.take_resize_request(), Some(TermSize::new(132, 24)));
    t.feed("\x1b[10;10HY\x1b[?3l\x1b[18t\x1b[6n");
    assert_eq!(t.replies(), "\x1b[8;24;80t\x1b[1;1R");
    t.assert_screen(&[]);
    // Switching ?40 off again freezes the width.
    t.feed("\x1b[?3h\x1b[?40l\x1b[?3l\x1b[18t");
    assert_eq!(t.replies(), "\x1b[8;24;132t");
}

#[test]
fn deccolm_keeps_history_out_of_the_cleared_screen() {
    let mut t = TestTerm::new(80, 4);
    for i in 0..10 {
        t.feed(&format!("line {i}\r\n"));
    }
    let history = t.scrollback_text();
    t.feed("\x1b[?40h\x1b[?3h");
    t.assert_screen(&[]);
    assert_eq!(t.scrollback_text(), history);
}

#[test]
fn decscpp_and_decslpp_resize_keeping_screen_and_cursor() {
    let mut t = TestTerm::new(80, 24);
    t.feed("\x1b[10;10HX\x1b[2;5r\x1b[10;10H\x1b[132$|\x1b[18t\x1b[6n\x1b[?3$p\x1bP$qr\x1b\\");
    assert_eq!(
        t.replies(),
        "\x1b[8;24;132t\x1b[10;10R\x1b[?3;1$y\x1bP1$r1;24r\x1b\\"
    );
    assert_eq!(t.term.dump().rows[9].trim_end(), "         X");
    t.feed("\x1b[80$|\x1b[30t\x1b[18t\x1b[24t\x1b[18t\x1b[10t\x1b[18t");
    assert_eq!(t.replies(), "\x1b[8;30;80t\x1b[8;24;80t\x1b[8;24;80t");
    assert_eq!(t.term.take_resize_request(), Some(TermSize::new(80, 24)));
}

// ---- colours ----

#[test]
fn osc4_sets_and_queries_several_pairs_in_every_colour_form() {
    let mut t = TestTerm::new(80, 24);
    t.feed("\x1b]4;1;red\x1b\\\x1b]4;1;?\x1b\\\x1b]4;2;rgb:1234/5678/9abc\x1b\\\x1b]4;2;?\x07");
    t.feed("\x1b]4;3;#abc\x1b\\\x1b]4;3;?\x1b\\");
    t.feed("\x1b]4;3;#aabbcc;4;#aaabbbccc;5;DarkSlateGray4\x1b\\\x1b]4;3;?;4;?;5;?\x1b\\");
    t.feed("\x1b]4;1;nosuchcolor\x1b\\\x1b]4;1;?\x1b\\\x1b]4;1;Alice Blue\x1b\\\x1b]4;1;?\x1b\\");
    assert_eq!(
        t.replies(),
        "\x1b]4;1;rgb:ffff/0000/0000\x1b\\\x1b]4;2;rgb:1212/5656/9a9a\x07\
         \x1b]4;3;rgb:a0a0/b0b0/c0c0\x1b\\\x1b]4;3;rgb:aaaa/bbbb/cccc\x1b\\\
         \x1b]4;4;rgb:aaaa/bbbb/cccc\x1b\\\x1b]4;5;rgb:5252/8b8b/8b8b\x1b\\\
         \x1b]4;1;rgb:ffff/0000/0000\x1b\\\x1b]4;1;rgb:f0f0/f8f8/ffff\x1b\\"
    );
    // rgbi: linear intensities through Xlib's default screen characterization, as
    // xterm 379 under Xvfb answers.
    t.feed("\x1b]4;6;rgbi:1/0.5/0\x1b\\\x1b]4;6;?\x1b\\");
    assert_eq!(t.replies(), "\x1b]4;6;rgb:ffff/bbbb/0000\x1b\\");
}

#[test]
fn osc104_resets_one_several_or_all_colours() {
    let mut t = TestTerm::new(80, 24);
    t.feed("\x1b]4;1;#111111;2;#222222;3;#333333\x1b\\\x1b]104;1;2\x1b\\");
    t.feed("\x1b]4;1;?;2;?;3;?\x1b\\\x1b]104\x1b\\\x1b]4;3;?\x1b\\");
    assert_eq!(
        t.replies(),
        "\x1b]4;1;rgb:cdcd/0000/0000\x1b\\\x1b]4;2;rgb:0000/cdcd/0000\x1b\\\
         \x1b]4;3;rgb:3333/3333/3333\x1b\\\x1b]4;3;rgb:cdcd/cdcd/0000\x1b\\"
    );
}

#[test]
fn special_colours_are_settable_through_osc5_and_osc4_256_up() {
    let mut t = TestTerm::new(80, 24);
    let fg = "rgb:d8d8/d8d8/d8d8";
    t.feed("\x1b]4;256;?\x1b\\\x1b]4;256;red\x1b\\\x1b]5;0;?\x1b\\\x1b]4;260;?;261;?\x1b\\");
    t.feed("\x1b]5;1;green\x1b\\\x1b]5;1;?\x1b\\\x1b]105;1\x1b\\\x1b]5;1;?\x1b\\");
    t.feed("\x1b]4;256;?\x1b\\\x1b]105\x1b\\\x1b]4;256;?\x1b\\");
    assert_eq!(
        t.replies(),
        format!(
            "\x1b]4;256;{fg}\x1b\\\x1b]5;0;rgb:ffff/0000/0000\x1b\\\x1b]4;260;{fg}\x1b\\\
             \x1b]5;1;rgb:0000/ffff/0000\x1b\\\x1b]5;1;{fg}\x1b\\\
             \x1b]4;256;rgb:ffff/0000/0000\x1b\\\x1b]4;256;{fg}\x1b\\"
        )
    );
}

#[test]
fn dynamic_colours_10_to_19_set_query_and_reset() {
    let mut t = TestTerm::new(80, 24);
    let (fg, bg) = ("rgb:d8d8/d8d8/d8d8", "rgb:1818/1818/1818");
    t.feed("\x1b]10;?;?\x1b\\\x1b]10;red;blue\x1b\\\x1b]10;?;?;?\x1b\\");
    assert_eq!(
        t.replies(),
        format!(
            "\x1b]10;{fg}\x1b\\\x1b]11;{bg}\x1b\\\x1b]10;rgb:ffff/0000/0000\x1b\\\
             \x1b]11;rgb:0000/0000/ffff\x1b\\\x1b]12;{fg}\x1b\\"
        )
    );
    t.feed("\x1b]110\x1b\\\x1b]111\x1b\\\x1b]10;?;?\x1b\\");
    assert_eq!(t.replies(), format!("\x1b]10;{fg}\x1b\\\x1b]11;{bg}\x1b\\"));
    // Pointer, Tektronix and highlight colours: defaults, set, reset.
    t.feed("\x1b]13;?;?;?;?;?;?;?\x1b\\");
    assert_eq!(
        t.replies(),
        [13, 14, 15, 16, 17, 18, 19]
            .iter()
            .zip([fg, bg, fg, bg, fg, fg, bg])
            .map(|(n, c)| format!("\x1b]{n};{c}\x1b\\"))
            .collect::<String>()
    );
    t.feed("\x1b]17;red\x1b\\\x1b]17;?\x1b\\\x1b]117\x1b\\\x1b]17;?\x1b\\");
    assert_eq!(
        t.replies(),
        format!("\x1b]17;rgb:ffff/0000/0000\x1b\\\x1b]17;{fg}\x1b\\")
    );
    t.feed("\x1b]11;#123\x1b\\\x1b]11;?\x07");
    assert_eq!(t.replies(), "\x1b]11;rgb:1010/2020/3030\x07");
}
