//! Grapheme clusters and mode 2027: with the mode on, an emoji sequence is one cell of
//! its cluster's width; with it off, every code point takes its wcwidth.

mod support;

use support::TestTerm;
use tern_core::model::grid::MAX_COMBINING;
use unicode_width::UnicodeWidthChar;

const FAMILY: &str = "👨\u{200D}👩\u{200D}👧";
const FLAG_FR: &str = "🇫🇷";
const KEYCAP_1: &str = "1\u{FE0F}\u{20E3}";
const THUMB_MEDIUM: &str = "👍\u{1F3FD}";
const ON: &str = "\x1b[?2027h";

/// Columns a program summing `wcwidth` over the code points would count.
fn wcswidth(s: &str) -> usize {
    s.chars().map(|c| c.width().unwrap_or(0)).sum()
}

fn cluster_of(t: &TestTerm, row: usize, col: usize) -> String {
    let r = t.term.grid().row(row);
    let mut s = r.cells[col].ch().to_string();
    if let Some(e) = r.extra(col) {
        s.extend(e.combining.iter());
    }
    s
}

fn is_wide(t: &TestTerm, row: usize, col: usize) -> bool {
    let flags = t.term.grid().row(row).cells[col].flags();
    flags.contains(tern_core::model::Flags::WIDE)
}

#[test]
fn without_mode_2027_each_code_point_takes_its_wcwidth() {
    for s in [FAMILY, FLAG_FR, KEYCAP_1, THUMB_MEDIUM] {
        let mut t = TestTerm::new(20, 2);
        t.feed(s).feed("x");
        t.assert_screen(&[&format!("{s}x")])
            .assert_cursor(0, wcswidth(s) + 1);
    }
}

#[test]
fn with_mode_2027_each_emoji_sequence_is_one_cluster_two_cells_wide() {
    for s in [FAMILY, FLAG_FR, KEYCAP_1, THUMB_MEDIUM] {
        let mut t = TestTerm::new(20, 2);
        t.feed(ON).feed(s).feed("x");
        t.assert_screen(&[&format!("{s}x")]).assert_cursor(0, 3);
        assert_eq!(cluster_of(&t, 0, 0), s, "the cell holds the whole cluster");
        assert!(is_wide(&t, 0, 0), "{s:?} is two cells wide");
        assert_eq!(cluster_of(&t, 0, 2), "x");
    }
}

#[test]
fn regional_indicators_pair_up_two_by_two() {
    let mut t = TestTerm::new(20, 2);
    t.feed(ON).feed("🇫🇷🇩🇪🇮");
    assert_eq!(cluster_of(&t, 0, 0), "🇫🇷");
    assert_eq!(cluster_of(&t, 0, 2), "🇩🇪");
    assert_eq!(cluster_of(&t, 0, 4), "🇮");
}

#[test]
fn decrqm_reports_mode_2027_as_it_is_set_reset_and_after_a_full_reset() {
    let mut t = TestTerm::new(10, 2);
    t.feed("\x1b[?2027$p");
    assert_eq!(t.replies(), "\x1b[?2027;2$y");
    t.feed("\x1b[?2027h\x1b[?2027$p");
    assert_eq!(t.replies(), "\x1b[?2027;1$y");
    t.feed("\x1b[?2027l\x1b[?2027$p");
    assert_eq!(t.replies(), "\x1b[?2027;2$y");
    t.feed("\x1b[?2027h\x1bc\x1b[?2027$p");
    assert_eq!(t.replies(), "\x1b[?2027;2$y");
}

#[test]
fn resetting_mode_2027_goes_back_to_wcwidth() {
    let mut t = TestTerm::new(20, 2);
    t.feed(ON).feed(FLAG_FR).feed("\x1b[?2027l").feed(FLAG_FR);
    t.assert_cursor(0, 2 + wcswidth(FLAG_FR));
}

#[test]
fn a_cluster_of_thousands_of_zwjs_is_capped_in_one_cell() {
    let mut t = TestTerm::new(10, 2);
    t.feed(ON).feed("👨");
    for _ in 0..5000 {
        t.feed("\u{200D}");
    }
    t.feed("x");
    t.assert_cursor(0, 3);
    let tail = t
        .term
        .grid()
        .row(0)
        .extra(0)
        .map_or(0, |e| e.combining.len());
    assert_eq!(tail, MAX_COMBINING);
}

#[test]
fn a_cluster_that_widens_in_the_last_column_stays_in_its_cell() {
    let mut t = TestTerm::new(4, 2);
    t.feed(ON).feed("abc").feed(KEYCAP_1);
    assert_eq!(cluster_of(&t, 0, 3), KEYCAP_1);
    assert!(!is_wide(&t, 0, 3));
    t.feed("z").assert_screen(&[&format!("abc{KEYCAP_1}"), "z"]);
}

#[test]
fn writing_over_a_cluster_replaces_the_whole_cluster() {
    let mut t = TestTerm::new(10, 2);
    t.feed(ON).feed(FAMILY).feed("\r").feed("ab");
    t.assert_screen(&["ab"]);
    assert_eq!(cluster_of(&t, 0, 0), "a");
}

#[test]
fn unrelated_wide_characters_keep_their_own_cells_with_the_mode_on() {
    let mut t = TestTerm::new(10, 2);
    t.feed(ON).feed("日本e\u{301}");
    t.assert_screen(&["日本e\u{301}"]).assert_cursor(0, 5);
}
