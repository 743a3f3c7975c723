//! Images and the screen around them: sixel scrolling and display mode (DECSDM, ?80)
//! as xterm 379 draws them, XTSMGRAPHICS as xterm answers it, placements inside a
//! scroll region that does not start at the top, and placements through a reflow.
//! The xterm figures were read from xterm 379 (`xterm -ti vt340`, 6x13 cells) with
//! CPR after each image; the test cells are 10x20.

use tern_core::model::images::Placement;
use tern_core::model::{TermConfig, TermSize, Terminal};

fn term(cols: usize, rows: usize) -> Terminal {
    let mut t = Terminal::new(TermSize::new(cols, rows), TermConfig::default());
    t.set_cell_pixel_size(10, 20);
    t
}

/// A sixel image of `w` x `6 * bands` pixels.
fn sixel(w: usize, bands: usize) -> Vec<u8> {
    let mut s = b"\x1bPq#1;2;100;0;0#1".to_vec();
    for b in 0..bands {
        s.extend_from_slice(format!("!{w}~").as_bytes());
        if b + 1 < bands {
            s.push(b'-');
        }
    }
    s.extend_from_slice(b"\x1b\\");
    s
}

fn replies(t: &mut Terminal) -> String {
    String::from_utf8_lossy(&t.take_replies()).into_owned()
}

/// The placements' (screen row, column, rows) on the screen.
fn on_screen(t: &Terminal) -> Vec<(i64, usize, usize)> {
    let base = t.image_line_base() as i64;
    t.images()
        .placements()
        .iter()
        .map(|p: &Placement| (p.line as i64 - base, p.col, p.rows))
        .collect()
}

#[test]
fn sixel_scrolling_leaves_a_row_below_the_image_and_the_cursor_on_its_last_row() {
    // xterm: an image at row 24 of 24 (one text row tall) scrolls the screen by one
    // and leaves the cursor on row 23; one on rows 21..22 leaves it on row 22.
    let mut t = term(20, 6);
    t.advance(b"\x1b[6;11H");
    t.advance(&sixel(30, 3)); // 18 px: one row
    assert_eq!((t.cursor().row, t.cursor().col), (4, 10));
    assert_eq!(on_screen(&t), vec![(4, 10, 1)], "scrolled up with its text");
    let mut t = term(20, 6);
    t.advance(b"\x1b[3;5H");
    t.advance(&sixel(30, 6)); // 36 px: two rows
    assert_eq!((t.cursor().row, t.cursor().col), (3, 4));
    assert_eq!(on_screen(&t), vec![(2, 4, 2)]);
}

#[test]
fn sixel_display_mode_draws_at_the_top_left_and_leaves_the_cursor() {
    let mut t = term(20, 6);
    t.advance(b"\x1b[?80$p");
    assert_eq!(replies(&mut t), "\x1b[?80;2$y", "reset, as xterm starts");
    t.advance(b"\x1b[?80h\x1b[?80$p");
    assert_eq!(replies(&mut t), "\x1b[?80;1$y");
    t.advance(b"\x1b[4;7H");
    // 200 px tall on a 120 px screen: cut at its bottom, nothing scrolls.
    t.advance(&sixel(30, 34));
    assert_eq!((t.cursor().row, t.cursor().col), (3, 6), "the cursor stays");
    assert_eq!(on_screen(&t), vec![(0, 0, 6)]);
    let p = &t.images().placements()[0];
    assert_eq!(p.source.height, 120, "cut at the screen's bottom");
    assert_eq!(t.scrollback().len(), 0);
    // Reset: back to scrolling at the cursor.
    t.advance(b"\x1b[?80l");
    t.advance(&sixel(10, 1));
    assert_eq!(on_screen(&t)[1], (3, 6, 1));
}

#[test]
fn xtsmgraphics_answers_as_xterm_does_for_sixel() {
    let mut t = term(80, 24);
    t.advance(b"\x1b[?1;1;0S\x1b[?1;4;0S\x1b[?1;3;256S");
    assert_eq!(
        replies(&mut t),
        "\x1b[?1;0;1024S\x1b[?1;0;1024S\x1b[?1;0;1024S",
        "1024 colour registers, fixed"
    );
    // The sixel geometry: the screen in pixels; its most, the largest image.
    t.advance(b"\x1b[?2;1;0S\x1b[?2;4;0S");
    assert_eq!(replies(&mut t), "\x1b[?2;0;800;480S\x1b[?2;0;4096;4096S");
    // ReGIS and unknown items: error in Pi; unknown actions: error in Pa.
    t.advance(b"\x1b[?3;1;0S\x1b[?1;9;0S");
    assert_eq!(replies(&mut t), "\x1b[?3;1;0S\x1b[?1;2;0S");
}

/// Catches placements anchored only to absolute lines: a region that does not start
/// at the top scrolls its rows without moving a line number.
#[test]
fn a_placement_moves_with_its_rows_in_a_scroll_region_and_is_cropped_at_its_top() {
    let mut t = term(20, 10);
    // A 3-row image (10x60 px) at row 4, inside the region rows 3..8 (1-based 3;8).
    t.advance(b"\x1b[5;1H");
    t.advance(&sixel(10, 10));
    assert_eq!(on_screen(&t), vec![(4, 0, 3)]);
    t.advance(b"\x1b[3;8r");
    // Two lines up: rows 4..6 go to 2..4.
    t.advance(b"\x1b[2S");
    assert_eq!(on_screen(&t), vec![(2, 0, 3)]);
    // One more: the top row leaves the region and is cut off; the image's source
    // starts 20 px lower.
    t.advance(b"\x1b[1S");
    assert_eq!(on_screen(&t), vec![(2, 0, 2)]);
    assert_eq!(t.images().placements()[0].source.y, 20);
    // Down four: it moves down, its lowest row past the region's bottom.
    t.advance(b"\x1b[4T");
    assert_eq!(on_screen(&t), vec![(6, 0, 2)]);
    // Down two more: it starts at the region's bottom edge and goes.
    t.advance(b"\x1b[2T");
    assert!(on_screen(&t).is_empty());
    // Outside the region nothing moves.
    let mut t = term(20, 10);
    t.advance(b"\x1b[9;1H");
    t.advance(&sixel(10, 1));
    t.advance(b"\x1b[1;5r\x1b[3S");
    assert_eq!(on_screen(&t), vec![(8, 0, 1)], "below a region at the top");
}

/// Catches a placement left on its old line number when a reflow moves its text.
#[test]
fn a_placement_follows_its_text_through_a_reflow() {
    let mut t = term(20, 6);
    // A 20-column line that wraps to two rows at width 10; the image is placed on
    // the row after it, at column 4.
    t.advance(b"abcdefghijklmnopqrst\r\n\x1b[5C");
    t.advance(&sixel(10, 1));
    let before = on_screen(&t);
    assert_eq!(before, vec![(1, 5, 1)]);
    t.resize(TermSize::new(10, 6));
    // The long line now takes rows 0 and 1: the image's row is 2, its column kept.
    assert_eq!(on_screen(&t), vec![(2, 5, 1)]);
    assert_eq!(t.dump().rows[2].trim_end(), "");
    t.resize(TermSize::new(20, 6));
    assert_eq!(on_screen(&t), before, "and back");
}
