//! What programs draw with escape sequences, through the binary: `tern --headless
//! --dump-screen - -- printf BYTES` and the screen it prints. Each test is one
//! behaviour a full-screen program relies on (editors, pagers, shells' line editors),
//! checked end to end: the pty, the pipeline, the model and the dump, as a user's
//! program meets them.

mod common;

use std::process::Stdio;

/// The screen (`cols` x `rows`, trailing blanks trimmed) after a program prints
/// `bytes` (a `printf` format: `\033` for ESC) and exits.
fn screen(cols: usize, rows: usize, bytes: &str) -> Vec<String> {
    let dir = tempfile::tempdir().expect("dir");
    let out = common::tern_cmd()
        .args(["--headless", "--cols", &cols.to_string(), "--rows"])
        .arg(rows.to_string())
        .args(["--dump-screen", "-", "--", "printf", bytes])
        .env("TERN_CONFIG", dir.path().join("no-config.ron"))
        .stdin(Stdio::null())
        .output()
        .expect("runs tern");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim_end().to_owned())
        .collect()
}

#[test]
fn cursor_position_moves_to_row_and_column() {
    assert_eq!(screen(10, 3, "\\033[2;4Hx\\033[1;1Hy"), ["y", "   x", ""]);
}

#[test]
fn cursor_up_down_forward_back_move_relative() {
    assert_eq!(
        screen(10, 3, "\\033[3;5H\\033[2Aa\\033[1Bb\\033[3Dc\\033[4Cd"),
        ["    a", "   c b  d", ""]
    );
}

#[test]
fn erase_in_line_clears_to_the_end_the_start_or_all() {
    assert_eq!(
        screen(
            10,
            3,
            "abcdef\\033[3G\\033[K\\r\\nabcdef\\033[3G\\033[1K\\r\\nabcdef\\033[2K"
        ),
        ["ab", "   def", ""]
    );
}

#[test]
fn erase_in_display_below_clears_the_rest_of_the_screen() {
    assert_eq!(
        screen(6, 3, "aaaaaa\\r\\nbbbbbb\\r\\ncccccc\\033[2;3H\\033[J"),
        ["aaaaaa", "bb", ""]
    );
}

#[test]
fn insert_and_delete_characters_shift_the_rest_of_the_line() {
    assert_eq!(
        screen(
            10,
            2,
            "abcdef\\033[3G\\033[2@XY\\r\\nabcdef\\033[2G\\033[2P"
        ),
        ["abXYcdef", "adef"]
    );
}

#[test]
fn erase_characters_blanks_without_shifting() {
    assert_eq!(screen(10, 1, "abcdef\\033[2G\\033[3X"), ["a   ef"]);
}

#[test]
fn insert_and_delete_lines_move_the_lines_below() {
    assert_eq!(
        screen(5, 4, "1\\r\\n2\\r\\n3\\r\\n4\\033[2H\\033[L"),
        ["1", "", "2", "3"]
    );
    assert_eq!(
        screen(5, 4, "1\\r\\n2\\r\\n3\\r\\n4\\033[2H\\033[M"),
        ["1", "3", "4", ""]
    );
}

#[test]
fn a_scroll_region_scrolls_only_its_lines() {
    // Lines 2-3 are the region; a newline at its bottom scrolls it, not line 1 or 4.
    assert_eq!(
        screen(5, 4, "top\\033[4Hbot\\033[2;3r\\033[2Ha\\r\\nb\\r\\nc"),
        ["top", "b", "c", "bot"]
    );
}

#[test]
fn reverse_index_at_the_top_scrolls_down() {
    assert_eq!(screen(5, 3, "1\\r\\n2\\033[H\\033M0"), ["0", "1", "2"]);
}

#[test]
fn scroll_up_and_down_move_the_whole_screen() {
    assert_eq!(screen(5, 3, "1\\r\\n2\\r\\n3\\033[S"), ["2", "3", ""]);
    assert_eq!(screen(5, 3, "1\\r\\n2\\r\\n3\\033[T"), ["", "1", "2"]);
}

#[test]
fn save_and_restore_cursor_return_to_the_saved_place() {
    assert_eq!(
        screen(10, 2, "ab\\0337\\033[2;5Hxy\\0338c"),
        ["abc", "    xy"]
    );
}

#[test]
fn repeat_prints_the_last_character_again() {
    assert_eq!(screen(10, 1, "x\\033[4b"), ["xxxxx"]);
}

#[test]
fn the_alignment_test_fills_the_screen_with_e() {
    assert_eq!(screen(3, 2, "\\033#8"), ["EEE", "EEE"]);
}

#[test]
fn without_autowrap_the_last_column_is_overwritten() {
    assert_eq!(screen(5, 2, "\\033[?7labcdefg"), ["abcdg", ""]);
}

#[test]
fn insert_mode_pushes_text_right() {
    assert_eq!(screen(10, 1, "abc\\033[2G\\033[4hXY\\033[4l"), ["aXYbc"]);
}

#[test]
fn tab_stops_can_be_set_and_cleared() {
    // Clear all stops, set one at column 4: a tab goes there, then to the last column.
    assert_eq!(
        screen(12, 2, "\\033[3g\\033[4G\\033H\\r\\ta\\tb"),
        ["   a       b", ""]
    );
}

#[test]
fn column_and_line_absolute_positions() {
    assert_eq!(screen(10, 3, "\\033[3dx\\033[6`y"), ["", "", "x    y"]);
}

#[test]
fn backspace_stops_at_the_left_margin() {
    assert_eq!(screen(5, 1, "ab\\b\\b\\b\\bX"), ["Xb"]);
}

#[test]
fn the_dec_line_drawing_set_draws_boxes() {
    assert_eq!(screen(5, 1, "\\033(0lqk\\033(Bx"), ["┌─┐x"]);
}

#[test]
fn a_full_reset_clears_the_screen_and_homes_the_cursor() {
    assert_eq!(screen(5, 2, "abc\\r\\ndef\\033cX"), ["X", ""]);
}

#[test]
fn combining_marks_join_the_character_before() {
    assert_eq!(screen(5, 1, "e\\314\\201x"), ["e\u{301}x"]);
}

#[test]
fn next_and_previous_line_go_to_the_first_column() {
    assert_eq!(screen(5, 3, "abc\\033[2Ex\\033[1Fy"), ["abc", "y", "x"]);
}

#[test]
fn back_tab_moves_to_the_previous_stop() {
    assert_eq!(
        screen(30, 1, "\\033[20G\\033[Zx"),
        [format!("{}x", " ".repeat(16))]
    );
}

#[test]
fn a_wide_character_at_the_last_column_wraps_whole() {
    assert_eq!(screen(5, 2, "abcd日"), ["abcd", "日"]);
}

#[test]
fn origin_mode_addresses_the_scroll_region() {
    assert_eq!(
        screen(5, 4, "\\033[2;3r\\033[?6h\\033[1;1Hx"),
        ["", "x", "", ""]
    );
}

#[test]
fn deleting_a_line_in_a_scroll_region_leaves_the_lines_below_it() {
    assert_eq!(
        screen(5, 4, "1\\r\\n2\\r\\n3\\r\\n4\\033[1;3r\\033[1H\\033[M"),
        ["2", "3", "", "4"]
    );
}

#[test]
fn erase_in_display_above_clears_up_to_the_cursor() {
    assert_eq!(
        screen(3, 3, "aaa\\r\\nbbb\\r\\nccc\\033[2;2H\\033[1J"),
        ["", "  b", "ccc"]
    );
}

#[test]
fn a_hyperlink_shows_its_text_only() {
    assert_eq!(
        screen(
            20,
            1,
            "\\033]8;;http://example.com/\\033\\\\link\\033]8;;\\033\\\\ after"
        ),
        ["link after"]
    );
}

#[test]
fn a_title_sequence_leaves_nothing_on_the_screen() {
    assert_eq!(screen(10, 1, "\\033]2;my title\\007text"), ["text"]);
}

#[test]
fn unknown_sequences_and_strings_are_dropped_whole() {
    assert_eq!(
        screen(10, 1, "a\\033[999zb\\033Pjunk\\033\\\\c\\033_apc\\033\\\\d"),
        ["abcd"]
    );
}

/// Issue 49: a kitty graphics image and a sixel image are listed after the rows, at
/// their cells; the rows' text holds neither (so `tern msg get-text` and copy skip
/// them).
#[test]
fn images_are_listed_after_the_text_and_never_in_it() {
    let s = screen(
        20,
        3,
        "ab\\033_Ga=T,f=24,s=1,v=1,i=3,q=2;AAAA\\033\\\\cd\\n\\033Pq#1!8~\\033\\\\",
    );
    assert_eq!(s[..3], ["ab cd", "", ""]);
    assert_eq!(s[3], "[image 3: 1x1 px at row 0 col 2, 1x1 cells, z 0]");
    assert!(
        s[4].starts_with("[image ") && s[4].ends_with(": 8x6 px at row 1 col 0, 1x1 cells, z 0]"),
        "{s:?}"
    );
}
