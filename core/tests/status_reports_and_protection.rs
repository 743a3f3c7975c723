//! xterm fidelity, round 3 (issue 35): DECRQSS for every setting esctest2 asks about,
//! DECRQM for the modes xterm lets a program switch, CBT and DECSTR against the margins
//! and reverse wraparound, ISO protection (SPA/EPA). Expected values follow xterm 379's
//! source (`misc.c` do_dcs / do_dec_rqm, `charproc.c`, `util.c`, `tabs.c`) and
//! esctest2's expectations; see docs/CONFORMANCE.md.

mod support;

use support::TestTerm;
use tern_core::model::TermSize;

/// The DECRPSS reply for request `pt`, fed fresh.
fn decrqss(t: &mut TestTerm, pt: &str) -> String {
    t.feed(&format!("\x1bP$q{pt}\x1b\\"));
    t.replies()
}

fn valid(body: &str) -> String {
    format!("\x1bP1$r{body}\x1b\\")
}

const INVALID: &str = "\x1bP0$r\x1b\\";

// ---- DECRQSS ----

/// Catches a DECRQSS setting left unanswered (esctest times out) or answered in a
/// format other than xterm's.
#[test]
fn decrqss_answers_every_setting_xterm_reports() {
    let mut t = TestTerm::new(80, 25);
    t.feed("\x1b[1;31m");
    assert_eq!(decrqss(&mut t, "m"), valid("0;1;31m"));
    t.feed("\x1b[5;6r");
    assert_eq!(decrqss(&mut t, "r"), valid("5;6r"));
    t.feed("\x1b[?69h\x1b[3;4s");
    assert_eq!(decrqss(&mut t, "s"), valid("3;4s"));
    t.feed("\x1b[4 q");
    assert_eq!(decrqss(&mut t, " q"), valid("4 q"));
    t.feed("\x1b[1\"q");
    assert_eq!(decrqss(&mut t, "\"q"), valid("1\"q"));
    // Lines per page (never under 24) and per screen; columns per page.
    assert_eq!(decrqss(&mut t, "t"), valid("25t"));
    assert_eq!(decrqss(&mut t, "*|"), valid("25*|"));
    assert_eq!(decrqss(&mut t, "$|"), valid("80$|"));
    // No status line: the main display is active, the status line type is none.
    t.feed("\x1b[0$}\x1b[0$~");
    assert_eq!(decrqss(&mut t, "$}"), valid("0$}"));
    assert_eq!(decrqss(&mut t, "$~"), valid("0$~"));
    // DECSACE: the parameter as given.
    assert_eq!(decrqss(&mut t, "*x"), valid("0*x"));
    t.feed("\x1b[2*x");
    assert_eq!(decrqss(&mut t, "*x"), valid("2*x"));
    t.feed("\x1b[1*x");
    assert_eq!(decrqss(&mut t, "*x"), valid("1*x"));
    // Conformance level and 7-bit controls.
    t.feed("\x1b[64;1\"p");
    assert_eq!(decrqss(&mut t, "\"p"), valid("64;1\"p"));
    // Not a setting: invalid, and nothing of the request comes back.
    assert_eq!(decrqss(&mut t, "x"), INVALID);
    assert_eq!(decrqss(&mut t, "+q"), INVALID);
}

/// Catches DECSLPP/DECSNLS reporting a stale size, and DECSNLS doing nothing.
#[test]
fn decrqss_page_and_screen_lines_follow_decslpp_and_decsnls() {
    let mut t = TestTerm::new(80, 25);
    t.feed("\x1b[27t");
    assert_eq!(decrqss(&mut t, "t"), valid("27t"));
    t.feed("\x1b[24*|");
    assert_eq!(decrqss(&mut t, "*|"), valid("24*|"));
    assert_eq!(decrqss(&mut t, "t"), valid("24t"));
    assert_eq!(t.term.take_resize_request(), Some(TermSize::new(80, 24)));
    // Out of range: ignored.
    t.feed("\x1b[5*|\x1b[300*|");
    assert_eq!(decrqss(&mut t, "*|"), valid("24*|"));
    assert_eq!(t.term.take_resize_request(), None);
}

/// Catches DECSLRM being reported below the VT420 level, and SPA's ISO protection
/// being reported as DECSCA's.
#[test]
fn decrqss_decslrm_needs_level_4_and_decsca_reports_only_dec_protection() {
    let mut t = TestTerm::new(80, 25);
    t.feed("\x1b[63;1\"p");
    assert_eq!(decrqss(&mut t, "s"), INVALID);
    assert_eq!(decrqss(&mut t, "\"p"), valid("63;1\"p"));
    t.feed("\x1b[64;1\"p");
    assert_eq!(decrqss(&mut t, "s"), valid("1;80s"));
    t.feed("\x1bV");
    assert_eq!(decrqss(&mut t, "\"q"), valid("0\"q"));
    t.feed("\x1bW\x1b[1\"q");
    assert_eq!(decrqss(&mut t, "\"q"), valid("1\"q"));
    t.feed("\x1b[0\"q");
    assert_eq!(decrqss(&mut t, "\"q"), valid("0\"q"));
}

// ---- DECRQM ----

fn decrqm_private(t: &mut TestTerm, mode: u16) -> String {
    t.feed(&format!("\x1b[?{mode}$p"));
    t.replies()
}

fn decrqm_ansi(t: &mut TestTerm, mode: u16) -> String {
    t.feed(&format!("\x1b[{mode}$p"));
    t.replies()
}

/// Catches the modes xterm lets a program switch being answered "permanently reset"
/// (4): esctest sets and resets each and expects 1 then 2.
#[test]
fn decrqm_modes_xterm_switches_report_what_was_set() {
    let mut t = TestTerm::new(80, 25);
    // Power-on values measured on xterm 379: all reset but font shifting (?35).
    for (mode, initial) in [(4, 2), (5, 2), (18, 2), (19, 2), (35, 1), (42, 2), (67, 2)] {
        assert_eq!(
            decrqm_private(&mut t, mode),
            format!("\x1b[?{mode};{initial}$y")
        );
        t.feed(&format!("\x1b[?{mode}h"));
        assert_eq!(decrqm_private(&mut t, mode), format!("\x1b[?{mode};1$y"));
        t.feed(&format!("\x1b[?{mode}l"));
        assert_eq!(decrqm_private(&mut t, mode), format!("\x1b[?{mode};2$y"));
    }
    // KAM starts reset, SRM set (xterm's power-on state).
    assert_eq!(decrqm_ansi(&mut t, 2), "\x1b[2;2$y");
    assert_eq!(decrqm_ansi(&mut t, 12), "\x1b[12;1$y");
    t.feed("\x1b[2h\x1b[12l");
    assert_eq!(decrqm_ansi(&mut t, 2), "\x1b[2;1$y");
    assert_eq!(decrqm_ansi(&mut t, 12), "\x1b[12;2$y");
    // DECSTR unlocks the keyboard; RIS restores both.
    t.feed("\x1b[!p");
    assert_eq!(decrqm_ansi(&mut t, 2), "\x1b[2;2$y");
    t.feed("\x1b[2h\x1bc");
    assert_eq!(decrqm_ansi(&mut t, 2), "\x1b[2;2$y");
    assert_eq!(decrqm_ansi(&mut t, 12), "\x1b[12;1$y");
    // Horizontal cursor coupling: permanently reset, as esctest expects.
    assert_eq!(decrqm_private(&mut t, 60), "\x1b[?60;4$y");
}

// ---- CBT, DECSTR, reverse wraparound ----

/// Catches CBT stopping at the left margin outside origin mode (esctest
/// CBT_IgnoresRegion) and going past it in origin mode.
#[test]
fn cbt_ignores_the_left_margin_except_in_origin_mode() {
    let mut t = TestTerm::new(80, 25);
    t.feed("\x1b[?69h\x1b[5;30s\x1b[9;7H\x1b[2Z");
    t.assert_cursor(8, 0);
    t.feed("\x1b[?6h\x1b[1;5H\x1b[5Z");
    t.assert_cursor(0, 4);
}

/// Catches DECSTR leaving reverse wraparound on (esctest DECSTR_ReverseWraparound) or
/// the program's cursor style in place.
#[test]
fn decstr_turns_reverse_wraparound_off_and_restores_the_cursor_style() {
    let mut t = TestTerm::new(80, 25);
    t.feed("\x1b[?45h\x1b[3 q\x1b[!p\x1b[2;1H\x08\x1b[6n\x1b[?45$p");
    assert_eq!(t.replies(), "\x1b[2;1R\x1b[?45;2$y");
    assert_eq!(decrqss(&mut t, " q"), valid("2 q"));
}

// ---- ISO protection ----

/// Catches SPA/EPA not protecting against ED, EL and ECH (esctest *_respectsISOProtection).
#[test]
fn spa_protected_cells_survive_ed_el_and_ech() {
    let mut t = TestTerm::new(10, 3);
    t.feed("ab\x1bVc\x1bWd\x1b[1;1H\x1b[J");
    t.assert_screen(&["  c"]);
    let mut t = TestTerm::new(10, 3);
    t.feed("ab\x1bVc\x1bWd\x1b[1;1H\x1b[K");
    t.assert_screen(&["  c"]);
    let mut t = TestTerm::new(10, 3);
    t.feed("ab\x1bVc\x1bWd\x1b[1;1H\x1b[4X");
    t.assert_screen(&["  c"]);
    let mut t = TestTerm::new(10, 3);
    t.feed("ab\x1bVc\x1bWd\nxyz\x1b[2J");
    t.assert_screen(&["  c"]);
}

/// Catches DECSCA protection being honoured by ED/EL/ECH (only the selective erases
/// keep it), and DECSED/DECSEL ignoring SPA protection (xterm keeps it, and esctest
/// lists that as xterm's known behaviour).
#[test]
fn decsca_protection_is_only_for_selective_erases_spa_for_both() {
    let mut t = TestTerm::new(10, 3);
    t.feed("a\x1b[1\"qb\x1b[0\"qc\x1b[1;1H\x1b[K");
    t.assert_screen(&[""]);
    let mut t = TestTerm::new(10, 3);
    t.feed("a\x1b[1\"qb\x1b[0\"qc\x1b[1;1H\x1b[?K");
    t.assert_screen(&[" b"]);
    let mut t = TestTerm::new(10, 3);
    t.feed("a\x1bVb\x1bWc\x1b[?2J");
    t.assert_screen(&[" b"]);
    let mut t = TestTerm::new(10, 3);
    t.feed("a\x1bVb\x1bWc\x1b[?2K");
    t.assert_screen(&[" b"]);
}

/// Catches DECSTR keeping the protection mode: afterwards no erase keeps the cells
/// written protected before (xterm's protected_mode goes back to off).
#[test]
fn decstr_ends_protection_for_every_erase() {
    let mut t = TestTerm::new(10, 3);
    t.feed("a\x1bVb\x1bWc\x1b[!p\x1b[1;1H\x1b[K");
    t.assert_screen(&[""]);
    let mut t = TestTerm::new(10, 3);
    t.feed("a\x1b[1\"qb\x1b[!p\x1b[?2K");
    t.assert_screen(&[""]);
}

/// Catches DECCOLM and the alternate screen keeping ISO-protected cells: their clears
/// are not ED.
#[test]
fn full_screen_clears_ignore_protection() {
    let mut t = TestTerm::new(80, 3);
    t.feed("\x1bVp\x1bW\x1b[?40h\x1b[?3h\x1b[?3l");
    t.assert_screen(&[""]);
    let mut t = TestTerm::new(10, 3);
    t.feed("\x1b[?1049h\x1bVp\x1bW\x1b[?1049l\x1b[?1049h");
    t.assert_screen(&[""]);
}

/// Catches DECSERA keeping SPA-protected cells (esctest DECSERA_doesNotRespectISOProtect):
/// it keeps only DECSCA's.
#[test]
fn decsera_keeps_only_decsca_protected_cells() {
    let mut t = TestTerm::new(10, 3);
    t.feed("a\x1bVb\x1bW\x1b[1;1;1;2${");
    t.assert_screen(&[""]);
    let mut t = TestTerm::new(10, 3);
    t.feed("a\x1b[1\"qb\x1b[0\"q\x1b[1;1;1;2${");
    t.assert_screen(&[" b"]);
}

// ---- colour specifications ----

/// Catches the Xcms colour spaces being ignored (the colour stayed as it was, and
/// esctest's ChangeColor/ChangeDynamicColor/ChangeSpecialColor tests read back the old
/// colour) through OSC 4, OSC 5 and OSC 10.
#[test]
fn xcms_colour_specifications_set_colours_through_osc_4_5_and_10() {
    let mut t = TestTerm::new(80, 25);
    t.feed("\x1b]4;1;CIELab:100/0/0\x1b\\\x1b]4;1;?\x1b\\");
    assert_eq!(t.replies(), "\x1b]4;1;rgb:ffff/ffff/ffff\x1b\\");
    t.feed("\x1b]5;0;CIExyY:0.3127/0.3290/1\x1b\\\x1b]5;0;?\x1b\\");
    assert_eq!(t.replies(), "\x1b]5;0;rgb:ffff/ffff/ffff\x1b\\");
    // xterm 379 under Xvfb: Xlib's default characterization, not sRGB (7777/7777/7777).
    t.feed("\x1b]10;TekHVC:0/50/0\x1b\\\x1b]10;?\x1b\\");
    assert_eq!(t.replies(), "\x1b]10;rgb:8383/7d7d/7e7e\x1b\\");
    // A malformed one changes nothing.
    t.feed("\x1b]10;CIEXYZ:1/x/1\x1b\\\x1b]10;?\x1b\\");
    assert_eq!(t.replies(), "\x1b]10;rgb:8383/7d7d/7e7e\x1b\\");
}

/// Catches DECSTR keeping the OSC 4 palette and RIS dropping the special and dynamic
/// colours: xterm 379 (measured) resets the ANSI colours on both and keeps OSC 5 and
/// 10-19 through both.
#[test]
fn decstr_and_ris_reset_the_ansi_colours_and_keep_the_dynamic_ones() {
    let set = "\x1b]4;1;#111111\x1b\\\x1b]5;0;#222222\x1b\\\x1b]10;#333333\x1b\\\
               \x1b]11;#444444\x1b\\\x1b]12;#555555\x1b\\";
    let query = "\x1b]4;1;?\x1b\\\x1b]5;0;?\x1b\\\x1b]10;?\x1b\\\x1b]11;?\x1b\\\x1b]12;?\x1b\\";
    let mut fresh = TestTerm::new(80, 25);
    fresh.feed(query);
    let ansi_1 = fresh
        .replies()
        .split("\x1b\\")
        .next()
        .unwrap_or("")
        .to_string();
    let kept = "\x1b]5;0;rgb:2222/2222/2222\x1b\\\x1b]10;rgb:3333/3333/3333\x1b\\\
                \x1b]11;rgb:4444/4444/4444\x1b\\\x1b]12;rgb:5555/5555/5555\x1b\\";
    for reset in ["\x1b[!p", "\x1bc"] {
        let mut t = TestTerm::new(80, 25);
        t.feed(set).feed(reset).feed(query);
        assert_eq!(t.replies(), format!("{ansi_1}\x1b\\{kept}"), "{reset:?}");
    }
}

// ---- more(1) fix, RIS and DECCOLM ----

/// Catches ?41 being ignored (esctest DECSET_MoreFix): with it a tab after a full line
/// wraps first and lands on the next line's first tab stop; without it the tab stays
/// in the last column.
#[test]
fn more_fix_makes_a_tab_after_a_full_line_wrap_first() {
    let mut t = TestTerm::new(20, 4);
    t.feed("\x1b[?41h\x1b[?41$p")
        .feed(&"x".repeat(20))
        .feed("\t1");
    assert_eq!(t.replies(), "\x1b[?41;1$y");
    t.assert_screen(&["xxxxxxxxxxxxxxxxxxxx", "        1"]);
    t.feed("\x1b[?41l\x1b[3;1H")
        .feed(&"y".repeat(20))
        .feed("\t");
    t.assert_cursor(2, 19);
}

/// Catches RIS leaving 132 columns in place (esctest RIS_ResetDECCOLM): with ?40 set
/// and DECCOLM selected, RIS goes back to 80 columns and asks the app to follow.
#[test]
fn ris_goes_back_to_80_columns_after_deccolm() {
    let mut t = TestTerm::new(80, 25);
    t.feed("\x1b[?40h\x1b[?3h");
    assert_eq!(t.term.take_resize_request(), Some(TermSize::new(132, 25)));
    t.feed("\x1bc\x1b[18t");
    assert_eq!(t.replies(), "\x1b[8;25;80t");
    assert_eq!(t.term.take_resize_request(), Some(TermSize::new(80, 25)));
    // Without DECCOLM, RIS keeps whatever size the pane has.
    let mut t = TestTerm::new(100, 25);
    t.feed("\x1bc\x1b[18t");
    assert_eq!(t.replies(), "\x1b[8;25;100t");
}

// ---- XTSAVE / XTRESTORE ----

/// Catches XTSAVE/XTRESTORE (`CSI ? Pm s`, `CSI ? Pm r`) being ignored (esctest
/// XtermSave_SaveSetState, XtermSave_SaveResetState): each saved mode comes back as it
/// was, set or reset; an unsaved or unknown mode is left alone.
#[test]
fn xtsave_and_xtrestore_bring_private_modes_back() {
    let mut t = TestTerm::new(80, 25);
    t.feed("\x1b[?7;45;2004h\x1b[?7;45;2004;9999s\x1b[?7;45;2004l\x1b[?1h");
    t.feed("\x1b[?7;45;2004;1;9999r");
    t.feed("\x1b[?7$p\x1b[?45$p\x1b[?2004$p\x1b[?1$p");
    assert_eq!(
        t.replies(),
        "\x1b[?7;1$y\x1b[?45;1$y\x1b[?2004;1$y\x1b[?1;1$y"
    );
    // Saved reset, restored reset; a second save replaces the first.
    t.feed("\x1b[?7l\x1b[?7s\x1b[?7h\x1b[?7r\x1b[?7$p");
    assert_eq!(t.replies(), "\x1b[?7;2$y");
    t.feed("\x1b[?7h\x1b[?7s\x1b[?7l\x1b[?7r\x1b[?7$p");
    assert_eq!(t.replies(), "\x1b[?7;1$y");
}
