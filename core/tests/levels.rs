//! Conformance levels and identities (issue 35): tern is a level-5 terminal, a VT520 as
//! xterm with `decTerminalID: 520` (what esctest2 expects at its default
//! `--max-vt-level=5`), DECSCL picks levels 61..=65, and below a level the sequences
//! of the higher ones are ignored, as in xterm 379 (`charproc.c`: `vtXX_level`).
//! docs/CONFORMANCE.md ("Conformance levels") says why.

mod support;

use support::TestTerm;

/// Catches DECSCL 65 being refused (a VT420's answer): esctest resets every test with
/// `DECSCL 65;1`, so a level an earlier test chose (62 here) would stay and switch off
/// DECRQM for every later test.
#[test]
fn decscl_65_is_accepted_and_brings_the_higher_levels_back() {
    let mut t = TestTerm::new(80, 25);
    t.feed("\x1bP$q\"p\x1b\\");
    assert_eq!(t.replies(), "\x1bP1$r65;1\"p\x1b\\");
    t.feed("\x1b[62;1\"p\x1b[4$p");
    assert_eq!(t.replies(), "");
    t.feed("\x1b[65;1\"p\x1b[4$p\x1bP$q\"p\x1b\\");
    assert_eq!(t.replies(), "\x1b[4;2$y\x1bP1$r65;1\"p\x1b\\");
    // Above the terminal's own level: ignored, as xterm.
    t.feed("\x1b[66;1\"p\x1bP$q\"p\x1b\\");
    assert_eq!(t.replies(), "\x1bP1$r65;1\"p\x1b\\");
}

/// Catches DECRQM answering at level 2 and DECSLRM working at level 3 (esctest
/// DECSCL_Level2DoesntSupportDECRQM, DECSCL_Level3_SupportsDECRQMDoesntSupportDECSLRM):
/// xterm takes `CSI ... $` from level 3 and `CSI ... *` and DECLRMM from level 4.
#[test]
fn conformance_levels_gate_decrqm_rectangles_and_left_right_margins() {
    let mut t = TestTerm::new(80, 25);
    t.feed("\x1b[62;1\"p\x1b[4$p\x1b[?7$p\x1b[1;1;1;1;1;1*y");
    assert_eq!(t.replies(), "");
    t.feed("\x1b[63;1\"p\x1b[4$p\x1b[1;1;1;1;1;1*y\x1b[?69$p");
    assert_eq!(t.replies(), "\x1b[4;2$y\x1b[?69;0$y");
    // Level 3: ?69 is ignored, so `CSI 5;6 s` saves the cursor and text runs on.
    t.feed("\x1b[?69h\x1b[5;6s\x1b[1;5Habc\x1b[6n");
    assert_eq!(t.replies(), "\x1b[1;8R");
    t.feed("\x1b[64;1\"p\x1b[?69h\x1b[5;6s\x1b[1;5Habc\x1b[6n\x1b[1;1;1;1;1;1*y");
    assert_eq!(t.replies(), "\x1b[2;6R\x1bP1!~FFE0\x1b\\");
}

/// Catches DECIC, DECDC, DECBI and DECFI acting below level 4 (VT420 controls in
/// xterm).
#[test]
fn column_editing_needs_level_4() {
    let mut t = TestTerm::new(10, 2);
    t.feed("abcdef\x1b[63;1\"p\x1b[1;2H\x1b['}");
    t.assert_screen(&["abcdef", ""]);
    t.feed("\x1b['~");
    t.assert_screen(&["abcdef", ""]);
    t.feed("\x1b6\x1b[6n");
    assert_eq!(t.replies(), "\x1b[1;2R");
    t.feed("\x1b[64;1\"p\x1b[1;2H\x1b['}");
    t.assert_screen(&["a bcdef", ""]);
}

/// Catches DECNCSM (?95) being ignored (esctest DECSCL_Level5_SupportsDECNCSM): at
/// level 5 with it set, DECCOLM keeps the screen; at level 4 it is unknown (DECRQM 0)
/// and DECCOLM clears (DECSCL_Level4_SupportsDECSLRMDoesntSupportDECNCSM).
#[test]
fn decncsm_keeps_the_screen_through_deccolm_at_level_5() {
    let keep = "\x1b[?40h\x1b[?3l\x1b[?95h\x1b[H1\x1b[?3h\x1b[?95$p";
    let mut t = TestTerm::new(80, 25);
    t.feed(keep);
    t.assert_screen(&["1"]);
    assert_eq!(t.replies(), "\x1b[?95;1$y");
    let mut t = TestTerm::new(80, 25);
    t.feed("\x1b[64;1\"p").feed(keep);
    t.assert_screen(&[""]);
    assert_eq!(t.replies(), "\x1b[?95;0$y");
}

/// Catches the identities going back to a VT420's or tern's own version number in DA2
/// (esctest DA2 expects 64, a VT520, and a firmware version of at least 314, xterm's
/// patch level; DECDSR_DSRKeyboard and DECDSR_DECXCPR read the level from DA2). DA1
/// names level 5 and only features tern has; it does not follow DECSCL, as in xterm.
#[test]
fn da1_and_da2_identify_a_vt520() {
    let mut t = TestTerm::new(80, 25);
    t.feed("\x1b[c\x1b[>c\x1b[62;1\"p\x1b[c\x1b[>c");
    assert_eq!(
        t.replies(),
        "\x1b[?65;1;4;6;22;28c\x1b[>64;379;0c".repeat(2)
    );
}

/// Catches the DEC status reports ignoring the level: the keyboard report grows a
/// field at levels 3 and 4, DECXCPR carries the page from level 3 (a VT330 or later),
/// and the VT420 reports (macro space, data integrity) are not answered below level 4.
#[test]
fn dec_status_reports_follow_the_level() {
    let mut t = TestTerm::new(80, 25);
    t.feed("\x1b[5;6H\x1b[?26n\x1b[?6n\x1b[?75n");
    assert_eq!(t.replies(), "\x1b[?27;1;0;0n\x1b[?5;6;1R\x1b[?70n");
    t.feed("\x1b[63;1\"p\x1b[5;6H\x1b[?26n\x1b[?6n\x1b[?75n");
    assert_eq!(t.replies(), "\x1b[?27;1;0n\x1b[?5;6;1R");
    t.feed("\x1b[62;1\"p\x1b[5;6H\x1b[?26n\x1b[?6n\x1b[?75n\x1b[?15n");
    assert_eq!(t.replies(), "\x1b[?27;1n\x1b[?5;6R\x1b[?13n");
    t.feed("\x1b[61\"p\x1b[?26n\x1b[?15n\x1b[5n");
    assert_eq!(t.replies(), "\x1b[0n");
}
