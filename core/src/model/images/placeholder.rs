//! kitty's Unicode placeholders: an image drawn in the cells that hold U+10EEEE, so
//! that it lives in the text (tmux and TUIs that redraw keep it where they put it).
//!
//! A program makes a *virtual* placement (`U=1`: a box of `c` x `r` cells, drawn
//! nowhere by itself) and prints placeholder cells. Each cell says which part of the
//! box it shows:
//!
//! - the image id is the foreground colour (a 256-colour index, or 24-bit `r<<16 |
//!   g<<8 | b`), its high byte the third diacritic;
//! - the placement id is the underline colour (0 without one);
//! - the first diacritic is the box's row, the second its column (see [`DIACRITICS`]).
//!
//! A missing diacritic is taken from the cell on the left when that cell is a
//! placeholder of the same image and placement: the same row, the next column, the
//! same high byte (kitty's rule; chafa and timg write the first cell of a line in
//! full and the rest bare). The image is fitted into the box keeping its aspect and
//! centred, as kitty draws it; [`piece`] gives the part a run of cells shows.

use super::PlacedImage;
use crate::model::{Color, Row};

/// The placeholder character.
pub const PLACEHOLDER: char = '\u{10EEEE}';

/// The row/column diacritics as inclusive ranges of code points, in order: index `i`
/// of the list (counting through the ranges) encodes the number `i`. kitty's
/// `rowcolumn-diacritics.txt`: the combining marks of class 230 without a
/// decomposition in Unicode 6.0 (297 of them), less a few normalization fuses.
const DIACRITICS: [(u32, u32); 86] = [
    (0x0305, 0x0305),
    (0x030D, 0x030E),
    (0x0310, 0x0310),
    (0x0312, 0x0312),
    (0x033D, 0x033F),
    (0x0346, 0x0346),
    (0x034A, 0x034C),
    (0x0350, 0x0352),
    (0x0357, 0x0357),
    (0x035B, 0x035B),
    (0x0363, 0x036F),
    (0x0483, 0x0487),
    (0x0592, 0x0595),
    (0x0597, 0x0599),
    (0x059C, 0x05A1),
    (0x05A8, 0x05A9),
    (0x05AB, 0x05AC),
    (0x05AF, 0x05AF),
    (0x05C4, 0x05C4),
    (0x0610, 0x0617),
    (0x0657, 0x065B),
    (0x065D, 0x065E),
    (0x06D6, 0x06DC),
    (0x06DF, 0x06E2),
    (0x06E4, 0x06E4),
    (0x06E7, 0x06E8),
    (0x06EB, 0x06EC),
    (0x0730, 0x0730),
    (0x0732, 0x0733),
    (0x0735, 0x0736),
    (0x073A, 0x073A),
    (0x073D, 0x073D),
    (0x073F, 0x0741),
    (0x0743, 0x0743),
    (0x0745, 0x0745),
    (0x0747, 0x0747),
    (0x0749, 0x074A),
    (0x07EB, 0x07F1),
    (0x07F3, 0x07F3),
    (0x0816, 0x0819),
    (0x081B, 0x0823),
    (0x0825, 0x0827),
    (0x0829, 0x082D),
    (0x0951, 0x0951),
    (0x0953, 0x0954),
    (0x0F82, 0x0F83),
    (0x0F86, 0x0F87),
    (0x135D, 0x135F),
    (0x17DD, 0x17DD),
    (0x193A, 0x193A),
    (0x1A17, 0x1A17),
    (0x1A75, 0x1A7C),
    (0x1B6B, 0x1B6B),
    (0x1B6D, 0x1B73),
    (0x1CD0, 0x1CD2),
    (0x1CDA, 0x1CDB),
    (0x1CE0, 0x1CE0),
    (0x1DC0, 0x1DC1),
    (0x1DC3, 0x1DC9),
    (0x1DCB, 0x1DCC),
    (0x1DD1, 0x1DE6),
    (0x1DFE, 0x1DFE),
    (0x20D0, 0x20D1),
    (0x20D4, 0x20D7),
    (0x20DB, 0x20DC),
    (0x20E1, 0x20E1),
    (0x20E7, 0x20E7),
    (0x20E9, 0x20E9),
    (0x20F0, 0x20F0),
    (0x2CEF, 0x2CF1),
    (0x2DE0, 0x2DFF),
    (0xA66F, 0xA66F),
    (0xA67C, 0xA67D),
    (0xA6F0, 0xA6F1),
    (0xA8E0, 0xA8F1),
    (0xAAB0, 0xAAB0),
    (0xAAB2, 0xAAB3),
    (0xAAB7, 0xAAB8),
    (0xAABE, 0xAABF),
    (0xAAC1, 0xAAC1),
    (0xFE20, 0xFE26),
    (0x10A0F, 0x10A0F),
    (0x10A38, 0x10A38),
    (0x1D185, 0x1D189),
    (0x1D1AA, 0x1D1AD),
    (0x1D242, 0x1D244),
];

/// The number diacritic `c` encodes, if it is one of kitty's.
pub fn diacritic_value(c: char) -> Option<u32> {
    let cp = c as u32;
    let mut index = 0;
    for &(lo, hi) in &DIACRITICS {
        if cp < lo {
            return None;
        }
        if cp <= hi {
            return Some(index + cp - lo);
        }
        index += hi - lo + 1;
    }
    None
}

/// The diacritic that encodes `value` (`None` past the table's 297 entries).
pub fn diacritic(value: u32) -> Option<char> {
    let mut index = 0;
    for &(lo, hi) in &DIACRITICS {
        let len = hi - lo + 1;
        if value < index + len {
            return char::from_u32(lo + value - index);
        }
        index += len;
    }
    None
}

/// A run of placeholder cells in a row showing consecutive columns of one row of one
/// image's box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlaceholderRun {
    /// The row's first cell of the run and how many cells it has.
    pub col: usize,
    pub len: usize,
    pub image_id: u32,
    /// 0: any virtual placement of the image.
    pub placement_id: u32,
    /// The box's row and the column of the run's first cell.
    pub box_row: u32,
    pub box_col: u32,
}

/// A colour as an id: a 256-colour index, a 24-bit colour's value, 0 for the default.
fn colour_id(c: Color) -> u32 {
    match c {
        Color::Default => 0,
        Color::Indexed(i) => u32::from(i),
        Color::Rgb(r, g, b) => u32::from(r) << 16 | u32::from(g) << 8 | u32::from(b),
    }
}

/// The row's placeholder cells as runs (none when it has no U+10EEEE): each cell
/// decoded, a missing diacritic taken from the cell on its left, and cells that
/// continue the run on their left (same image, placement, row, the next column)
/// joined to it.
pub fn runs(row: &Row) -> Vec<PlaceholderRun> {
    let mut out: Vec<PlaceholderRun> = Vec::new();
    // The decoded cell just left of the current one: (col, image low bits, placement,
    // row, column, high byte).
    let mut left: Option<(usize, u32, u32, u32, u32, u32)> = None;
    for (col, cell) in row.cells.iter().enumerate() {
        if cell.ch() != PLACEHOLDER {
            continue;
        }
        let extra = row.extra(col);
        let low = colour_id(cell.fg());
        let placement = extra.and_then(|e| e.underline_color).map_or(0, colour_id);
        let mut marks = extra
            .map_or(&[][..], |e| &e.combining[..])
            .iter()
            .map(|&c| diacritic_value(c));
        let (r, c, high) = (marks.next(), marks.next(), marks.next());
        // The left cell continues into this one when it is the same image and
        // placement, right next to it, and agrees on what this cell does say.
        let from_left = left.filter(|l| {
            l.0 + 1 == col
                && l.1 == low
                && l.2 == placement
                && r.is_none_or(|r| r == Some(l.3))
                && c.is_none_or(|c| c == Some(l.4 + 1))
        });
        let value = |d: Option<Option<u32>>, inferred: Option<u32>| match d {
            Some(v) => v,
            None => inferred.or(Some(0)),
        };
        let (Some(box_row), Some(box_col), Some(high)) = (
            value(r, from_left.map(|l| l.3)),
            value(c, from_left.map(|l| l.4 + 1)),
            value(high, from_left.map(|l| l.5)),
        ) else {
            // A mark that is not one of the diacritics: not a cell of any image.
            left = None;
            continue;
        };
        left = Some((col, low, placement, box_row, box_col, high));
        let image_id = low | high.min(255) << 24;
        if image_id == 0 {
            continue;
        }
        match out.last_mut() {
            Some(run)
                if run.col + run.len == col
                    && run.image_id == image_id
                    && run.placement_id == placement
                    && run.box_row == box_row
                    && run.box_col + run.len as u32 == box_col =>
            {
                run.len += 1;
            }
            _ => out.push(PlaceholderRun {
                col,
                len: 1,
                image_id,
                placement_id: placement,
                box_row,
                box_col,
            }),
        }
    }
    out
}

/// The part of an image a run of placeholder cells shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Piece {
    /// Where it starts from the run's first cell, and its size, in cells.
    pub at: (f32, f32),
    pub size: (f32, f32),
    /// The part of the image, in pixels of the image (x, y, width, height).
    pub source: (f32, f32, f32, f32),
}

/// What `run` shows of `placed` (a virtual placement: its `cols` x `rows` box, the
/// image fitted in it keeping its aspect and centred), with cells of `cell_px`
/// (width, height) pixels; `None` when the run shows none of the image (a cell of the
/// box's margin, or outside the box).
pub fn piece(placed: &PlacedImage, run: &PlaceholderRun, cell_px: (f32, f32)) -> Option<Piece> {
    let p = &placed.placement;
    let (cw, ch) = (cell_px.0.max(1.0), cell_px.1.max(1.0));
    let s = p.source;
    let (src_w, src_h) = (s.width.max(1) as f32, s.height.max(1) as f32);
    // The box and the fitted image, in cells.
    let (box_w, box_h) = (p.cols as f32, p.rows as f32);
    let scale = (box_w * cw / src_w).min(box_h * ch / src_h);
    let (img_w, img_h) = (src_w * scale / cw, src_h * scale / ch);
    let (img_x, img_y) = ((box_w - img_w) / 2.0, (box_h - img_h) / 2.0);
    // The run's cells in the box, clipped to the box and to the image.
    let (run_x0, run_y0) = (run.box_col as f32, run.box_row as f32);
    let x0 = run_x0.max(img_x);
    let x1 = (run_x0 + run.len as f32).min(img_x + img_w).min(box_w);
    let y0 = run_y0.max(img_y);
    let y1 = (run_y0 + 1.0).min(img_y + img_h).min(box_h);
    if x1 <= x0 || y1 <= y0 {
        return None;
    }
    let to_src_x = |x: f32| (x - img_x) / img_w * src_w;
    let to_src_y = |y: f32| (y - img_y) / img_h * src_h;
    Some(Piece {
        at: (x0 - run_x0, y0 - run_y0),
        size: (x1 - x0, y1 - y0),
        source: (
            s.x as f32 + to_src_x(x0),
            s.y as f32 + to_src_y(y0),
            to_src_x(x1) - to_src_x(x0),
            to_src_y(y1) - to_src_y(y0),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_kittys_297_diacritics_in_order() {
        let count: u32 = DIACRITICS.iter().map(|(lo, hi)| hi - lo + 1).sum();
        assert_eq!(count, 297);
        assert_eq!(diacritic(0), Some('\u{0305}'));
        assert_eq!(diacritic(16), Some('\u{035B}'));
        assert_eq!(diacritic(296), Some('\u{1D244}'));
        assert_eq!(diacritic(297), None);
        for v in 0..297 {
            let c = diacritic(v).expect("in the table");
            assert_eq!(diacritic_value(c), Some(v), "{c:?}");
        }
        assert_eq!(diacritic_value('a'), None);
        assert_eq!(diacritic_value('\u{0300}'), None);
    }
}
