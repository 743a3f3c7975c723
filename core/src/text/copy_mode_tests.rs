//! Copy-mode motions, on a small text: each test names the key and where it lands.

use super::copy_mode::*;
use crate::model::ShellMark;
use crate::model::marks::PromptMarks;

/// Lines 10.. of a pane (0..10 dropped off the scrollback), 20 columns.
struct Text(Vec<&'static str>);

const FIRST: u64 = 10;

impl LineText for Text {
    fn line(&mut self, line: u64) -> Option<Vec<char>> {
        let i = usize::try_from(line.checked_sub(FIRST)?).ok()?;
        let mut chars: Vec<char> = self.0.get(i)?.chars().collect();
        chars.resize(20, ' ');
        Some(chars)
    }
}

fn text() -> Text {
    Text(vec![
        "fn main() {",          // 10
        "    let x = foo.bar;", // 11
        "",                     // 12
        "    call(x, y)",       // 13
        "}",                    // 14
        "",                     // 15
        "$ cargo test",         // 16
        "ok",                   // 17
    ])
}

fn bounds() -> CopyBounds {
    CopyBounds {
        first_line: FIRST,
        last_line: FIRST + 7,
        view_top: FIRST + 2,
        view_rows: 5,
        cols: 20,
    }
}

fn at(line: u64, col: usize) -> CopyPoint {
    CopyPoint { line, col }
}

/// Feeds `keys` (chars; `^X` spelled as `Ctrl('x')` via `ctrl`) from `from`.
fn run(from: CopyPoint, keys: &str) -> (CopyMode, Vec<CopyAction>) {
    let mut marks = PromptMarks::default();
    marks.record(ShellMark::PromptStart, 11);
    marks.record(ShellMark::PromptStart, 16);
    let mut mode = CopyMode::new(from);
    let mut t = text();
    let actions = keys
        .chars()
        .map(|c| mode.key(CopyKey::Char(c), &bounds(), &mut t, &marks))
        .collect();
    (mode, actions)
}

fn lands(from: CopyPoint, keys: &str) -> CopyPoint {
    run(from, keys).0.cursor()
}

#[test]
fn h_j_k_l_move_one_cell_and_stop_at_the_edges() {
    assert_eq!(lands(at(11, 4), "l"), at(11, 5));
    assert_eq!(lands(at(11, 4), "hh"), at(11, 2));
    assert_eq!(lands(at(11, 0), "h"), at(11, 0));
    assert_eq!(lands(at(11, 19), "l"), at(11, 19));
    assert_eq!(lands(at(11, 4), "j"), at(12, 4));
    assert_eq!(
        lands(at(11, 4), "kkk"),
        at(10, 4),
        "stops at the first kept line"
    );
    assert_eq!(lands(at(16, 4), "jjj"), at(17, 4), "stops at the last line");
    assert_eq!(lands(at(11, 4), "3l"), at(11, 7), "a count repeats");
}

#[test]
fn line_motions_0_caret_dollar() {
    assert_eq!(lands(at(11, 9), "0"), at(11, 0));
    assert_eq!(lands(at(11, 0), "^"), at(11, 4));
    assert_eq!(lands(at(11, 0), "$"), at(11, 19));
    assert_eq!(lands(at(13, 0), "$"), at(13, 13));
}

#[test]
fn word_motions_cross_punctuation_and_lines() {
    // "    let x = foo.bar;"
    assert_eq!(lands(at(11, 4), "w"), at(11, 8));
    assert_eq!(lands(at(11, 12), "w"), at(11, 15), "foo, then the dot");
    assert_eq!(lands(at(11, 15), "w"), at(11, 16));
    assert_eq!(
        lands(at(11, 16), "ww"),
        at(13, 4),
        "over the line end and a blank line"
    );
    assert_eq!(lands(at(11, 4), "e"), at(11, 6));
    assert_eq!(lands(at(11, 6), "e"), at(11, 8));
    assert_eq!(lands(at(11, 8), "b"), at(11, 4));
    assert_eq!(
        lands(at(11, 13), "b"),
        at(11, 12),
        "inside a word: its start"
    );
    assert_eq!(
        lands(at(13, 4), "b"),
        at(11, 19),
        "back over the blank line to `;`"
    );
    assert_eq!(
        lands(at(10, 0), "b"),
        at(10, 0),
        "nothing before the first line"
    );
}

#[test]
fn gg_and_g_go_to_the_ends_and_h_m_l_to_the_view() {
    assert_eq!(lands(at(13, 3), "gg"), at(10, 3));
    assert_eq!(lands(at(13, 3), "G"), at(17, 3));
    assert_eq!(lands(at(16, 0), "H"), at(12, 0));
    assert_eq!(lands(at(16, 0), "M"), at(14, 0));
    assert_eq!(lands(at(10, 0), "L"), at(16, 0));
    let (mode, actions) = run(at(13, 3), "gx");
    assert_eq!(mode.cursor(), at(13, 3), "g then not g: no motion");
    assert_eq!(actions[1], CopyAction::Ignored);
}

#[test]
fn ctrl_u_d_b_f_move_by_half_and_whole_views() {
    let marks = PromptMarks::default();
    let mut mode = CopyMode::new(at(13, 0));
    let mut t = text();
    let mut key = |mode: &mut CopyMode, c| {
        mode.key(CopyKey::Ctrl(c), &bounds(), &mut t, &marks);
        mode.cursor().line
    };
    assert_eq!(key(&mut mode, 'u'), 11, "half of 5 rows is 2");
    assert_eq!(key(&mut mode, 'd'), 13);
    assert_eq!(key(&mut mode, 'f'), 17, "clamped at the last line");
    assert_eq!(key(&mut mode, 'b'), 12);
    assert_eq!(key(&mut mode, 'b'), 10);
}

#[test]
fn braces_go_to_blank_lines_between_paragraphs() {
    assert_eq!(lands(at(10, 3), "}"), at(12, 0));
    assert_eq!(lands(at(10, 3), "}}"), at(15, 0));
    assert_eq!(
        lands(at(10, 3), "}}}"),
        at(17, 0),
        "no blank line after: the last line"
    );
    assert_eq!(lands(at(16, 2), "{"), at(15, 0));
    assert_eq!(lands(at(14, 0), "{"), at(12, 0));
}

#[test]
fn f_and_t_find_a_char_on_the_line() {
    // "    let x = foo.bar;"
    assert_eq!(lands(at(11, 0), "f."), at(11, 15));
    assert_eq!(lands(at(11, 0), "t."), at(11, 14));
    assert_eq!(lands(at(11, 19), "Fx"), at(11, 8));
    assert_eq!(lands(at(11, 19), "Tx"), at(11, 9));
    assert_eq!(
        lands(at(11, 0), "fz"),
        at(11, 0),
        "not on the line: no motion"
    );
}

#[test]
fn brackets_jump_between_prompt_marks() {
    assert_eq!(lands(at(17, 1), "[["), at(16, 0));
    assert_eq!(lands(at(17, 1), "[[[["), at(11, 0));
    assert_eq!(lands(at(10, 1), "]]"), at(11, 0));
    assert_eq!(lands(at(11, 0), "]]"), at(16, 0));
    assert_eq!(lands(at(16, 3), "]]"), at(16, 3), "no prompt below");
    assert_eq!(
        lands(at(16, 3), "[]"),
        at(16, 3),
        "mixed brackets do nothing"
    );
}

/// Catches a yank that reports the anchor and cursor unordered or loses the mode.
#[test]
fn v_selects_and_y_yanks_in_reading_order() {
    let (mode, actions) = run(at(13, 4), "vkkey");
    assert_eq!(mode.selection().map(|s| s.2), Some(CopySelectMode::Cells));
    assert_eq!(
        actions.last(),
        Some(&CopyAction::Yank {
            start: at(11, 6),
            end: at(13, 4),
            mode: CopySelectMode::Cells
        })
    );
    let (_, actions) = run(at(11, 4), "Vjy");
    assert!(matches!(
        actions.last(),
        Some(CopyAction::Yank {
            mode: CopySelectMode::Lines,
            ..
        })
    ));
    let (mode, _) = run(at(11, 4), "vv");
    assert_eq!(mode.selection(), None, "v again ends the selection");
    let (_, actions) = run(at(11, 4), "y");
    assert_eq!(
        actions,
        [CopyAction::Ignored],
        "nothing selected: nothing yanked"
    );
}

#[test]
fn ctrl_v_selects_a_block() {
    let marks = PromptMarks::default();
    let mut mode = CopyMode::new(at(11, 4));
    let mut t = text();
    mode.key(CopyKey::Ctrl('v'), &bounds(), &mut t, &marks);
    mode.key(CopyKey::Char('j'), &bounds(), &mut t, &marks);
    mode.key(CopyKey::Char('l'), &bounds(), &mut t, &marks);
    assert_eq!(
        mode.selection(),
        Some((at(11, 4), at(12, 5), CopySelectMode::Block))
    );
    mode.key(CopyKey::Char('v'), &bounds(), &mut t, &marks);
    assert_eq!(
        mode.selection().map(|s| s.2),
        Some(CopySelectMode::Cells),
        "another mode's key switches the mode and keeps the anchor"
    );
}

#[test]
fn search_keys_ask_the_window_and_n_repeats_the_direction() {
    let (mut mode, actions) = run(at(11, 4), "/?");
    assert_eq!(
        actions,
        [
            CopyAction::AskSearch(SearchDirection::Down),
            CopyAction::AskSearch(SearchDirection::Up)
        ]
    );
    mode.search_found(at(16, 2), SearchDirection::Up);
    assert_eq!(mode.cursor(), at(16, 2));
    let mut t = text();
    let marks = PromptMarks::default();
    let mut key = |c| mode.key(CopyKey::Char(c), &bounds(), &mut t, &marks);
    assert_eq!(key('n'), CopyAction::SearchAgain(SearchDirection::Up));
    assert_eq!(key('N'), CopyAction::SearchAgain(SearchDirection::Down));
}

#[test]
fn escape_and_q_leave_and_dropped_lines_clamp_the_cursor() {
    let (_, actions) = run(at(11, 4), "q");
    assert_eq!(actions, [CopyAction::Exit]);
    let mut mode = CopyMode::new(at(3, 40));
    mode.clamp(&bounds());
    assert_eq!(mode.cursor(), at(10, 19));
    let mut t = text();
    let marks = PromptMarks::default();
    assert_eq!(
        mode.key(CopyKey::Escape, &bounds(), &mut t, &marks),
        CopyAction::Exit
    );
}

#[test]
fn a_huge_count_is_bounded() {
    assert_eq!(lands(at(11, 4), "99999999999j"), at(17, 4));
    assert_eq!(lands(at(11, 4), "99999999999w"), at(17, 0));
    assert_eq!(lands(at(17, 1), "99999999999b"), at(10, 0));
}

/// The match after (`Down`) or before (`Up`) the cursor, as the window picks it for
/// `n`/`N` from the last search's matches.
#[test]
fn next_match_goes_past_the_cursor_either_way() {
    let matches = [at(11, 8), at(13, 4), at(16, 2)];
    assert_eq!(
        next_match(&matches, at(13, 4), SearchDirection::Down),
        Some(at(16, 2))
    );
    assert_eq!(
        next_match(&matches, at(13, 4), SearchDirection::Up),
        Some(at(11, 8))
    );
    assert_eq!(next_match(&matches, at(16, 2), SearchDirection::Down), None);
    assert_eq!(
        next_match(&matches, at(10, 0), SearchDirection::Down),
        Some(at(11, 8))
    );
    assert_eq!(next_match(&[], at(10, 0), SearchDirection::Up), None);
}
