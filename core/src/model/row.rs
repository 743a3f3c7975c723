//! A row of cells and its side table of combining marks (`CellExtra`): what the grid
//! shows and the scrollback encodes.

use super::cell::{Cell, Color, Flags, fill_cells};

/// Most combining marks (or code points of a grapheme cluster after its first) kept on
/// one cell; more are dropped. The longest emoji ZWJ sequences have ten code points.
pub const MAX_COMBINING: usize = 16;

/// Rare per-cell data, kept out of line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CellExtra {
    pub combining: Vec<char>,
    pub hyperlink: Option<u32>,
    pub underline_color: Option<Color>,
}

impl CellExtra {
    pub fn is_empty(&self) -> bool {
        self.combining.is_empty() && self.hyperlink.is_none() && self.underline_color.is_none()
    }
}

/// At most this many emptied mark lists are kept for reuse per grid (a screen of text
/// with marks scrolls a few away a line; a flood of nothing but marks does not need
/// them all kept).
const MAX_SPARE_MARKS: usize = 64;

/// Emptied mark lists ([`CellExtra::combining`]) of rows that scrolled away, for the
/// next marks the text path writes: a mark otherwise costs an allocation, and a free
/// when its line scrolls away and the row is reused. Spare capacity only, so a clone
/// starts without any.
#[derive(Default)]
pub struct SpareMarks(pub(super) Vec<Vec<char>>);

impl Clone for SpareMarks {
    fn clone(&self) -> SpareMarks {
        SpareMarks::default()
    }
}

impl std::fmt::Debug for SpareMarks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} spare mark lists", self.0.len())
    }
}

impl SpareMarks {
    pub(super) fn heap_bytes(&self) -> usize {
        self.0.capacity() * std::mem::size_of::<Vec<char>>()
            + self.0.iter().map(|m| m.capacity() * 4).sum::<usize>()
    }
}

/// The side-table entry of `col` in `extras`, added (empty) when there is none.
fn extra_in(extras: &mut Vec<(u16, CellExtra)>, col: usize) -> &mut CellExtra {
    let key = col as u16;
    let idx = match extras.binary_search_by_key(&key, |(c, _)| *c) {
        Ok(i) => i,
        Err(i) => {
            extras.insert(i, (key, CellExtra::default()));
            i
        }
    };
    &mut extras[idx].1
}

/// One line of cells. `wrapped` means the line continues on the next row (soft wrap).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Row {
    pub cells: Vec<Cell>,
    /// Side table for cells with [`Flags::EXTRA`], sorted by column.
    pub(super) extras: Vec<(u16, CellExtra)>,
    pub wrapped: bool,
}

impl Row {
    pub fn blank(cols: usize, bg: Color) -> Row {
        Row {
            cells: vec![Cell::blank_with_bg(bg); cols],
            extras: Vec::new(),
            wrapped: false,
        }
    }

    pub fn from_cells(cells: Vec<Cell>) -> Row {
        Row {
            cells,
            extras: Vec::new(),
            wrapped: false,
        }
    }

    /// Blanks the whole row with `bg`, keeping its allocation.
    pub fn reset(&mut self, cols: usize, bg: Color) {
        if self.cells.len() == cols {
            fill_cells(&mut self.cells, Cell::blank_with_bg(bg));
        } else {
            self.cells.clear();
            self.cells.resize(cols, Cell::blank_with_bg(bg));
        }
        self.extras.clear();
        self.wrapped = false;
    }

    /// [`Row::reset`] for a row whose cells from `used` on are known to be default
    /// blanks: with the default background only the used part is written.
    pub fn reset_used(&mut self, cols: usize, used: usize, bg: Color) {
        if bg != Color::Default || self.cells.len() != cols || used > cols {
            self.reset(cols, bg);
            return;
        }
        fill_cells(&mut self.cells[..used], Cell::BLANK);
        self.extras.clear();
        self.wrapped = false;
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    pub fn extra(&self, col: usize) -> Option<&CellExtra> {
        self.extras
            .binary_search_by_key(&(col as u16), |(c, _)| *c)
            .ok()
            .map(|i| &self.extras[i].1)
    }

    /// Becomes a copy of `src`'s first `len` cells, their extras and its wrap flag,
    /// reusing this row's buffers.
    pub fn copy_used_from(&mut self, src: &Row, len: usize) {
        self.cells.clear();
        self.cells.extend_from_slice(&src.cells[..len]);
        self.extras.clear();
        self.extras.extend(
            src.extras
                .iter()
                .filter(|(c, _)| (*c as usize) < len)
                .cloned(),
        );
        self.wrapped = src.wrapped;
    }

    pub fn extras(&self) -> &[(u16, CellExtra)] {
        &self.extras
    }

    fn extra_mut(&mut self, col: usize) -> &mut CellExtra {
        extra_in(&mut self.extras, col)
    }

    /// Writes `cell` at `col`, dropping any side-table entry the old cell had and adding
    /// one when the pen carries rare attributes.
    #[inline]
    pub fn write(&mut self, col: usize, cell: Cell, pen_extra: Option<&CellExtra>) {
        let old = &mut self.cells[col];
        if old.flags().contains(Flags::EXTRA) {
            self.remove_extra(col);
        }
        self.cells[col] = cell;
        if let Some(extra) = pen_extra {
            self.cells[col].insert_flags(Flags::EXTRA);
            *self.extra_mut(col) = extra.clone();
        }
    }

    /// Adds a combining mark to the cell at `col`.
    pub fn push_combining(&mut self, col: usize, c: char) {
        self.push_combining_with(col, c, &mut SpareMarks::default());
    }

    /// [`Row::push_combining`], the cell's first mark going into a list from `spare`
    /// when it has one.
    pub fn push_combining_with(&mut self, col: usize, c: char, spare: &mut SpareMarks) {
        let Some(cell) = self.cells.get_mut(col) else {
            return;
        };
        cell.insert_flags(Flags::EXTRA);
        let extra = extra_in(&mut self.extras, col);
        if extra.combining.capacity() == 0
            && let Some(marks) = spare.0.pop()
        {
            extra.combining = marks;
        }
        if extra.combining.len() < MAX_COMBINING {
            extra.combining.push(c);
        }
    }

    /// Drops every side-table entry, keeping their mark lists (emptied) in `spare`.
    /// Kept out of line: most rows have no entries.
    #[inline(never)]
    pub(super) fn recycle_extras(&mut self, spare: &mut SpareMarks) {
        for (_, extra) in self.extras.drain(..) {
            let mut marks = extra.combining;
            if marks.capacity() != 0 && spare.0.len() < MAX_SPARE_MARKS {
                marks.clear();
                spare.0.push(marks);
            }
        }
    }

    pub fn remove_extra(&mut self, col: usize) {
        if let Ok(i) = self.extras.binary_search_by_key(&(col as u16), |(c, _)| *c) {
            self.extras.remove(i);
        }
        if let Some(cell) = self.cells.get_mut(col) {
            cell.remove_flags(Flags::EXTRA);
        }
    }

    /// Fills `start..end` with `cell` (clamped), clearing side-table entries there.
    pub fn fill(&mut self, start: usize, end: usize, cell: Cell) {
        let end = end.min(self.cells.len());
        if start >= end {
            return;
        }
        fill_cells(&mut self.cells[start..end], cell);
        if !self.extras.is_empty() {
            self.extras
                .retain(|(c, _)| !((start..end).contains(&(*c as usize))));
        }
    }

    /// Inserts `count` copies of `blank` at `col`, shifting the rest right (cells pushed
    /// past the end are lost).
    pub fn insert_cells(&mut self, col: usize, count: usize, blank: Cell) {
        let len = self.cells.len();
        self.insert_cells_before(col, len, count, blank);
    }

    /// Inserts `count` blanks at `col`, shifting `col..end` right; cells pushed to `end`
    /// or beyond are lost and nothing at or after `end` moves (a right margin).
    pub fn insert_cells_before(&mut self, col: usize, end: usize, count: usize, blank: Cell) {
        let end = end.min(self.cells.len());
        if col >= end {
            return;
        }
        let count = count.min(end - col);
        self.cells[col..end].rotate_right(count);
        fill_cells(&mut self.cells[col..col + count], blank);
        if !self.extras.is_empty() {
            self.extras.retain_mut(|(c, _)| {
                let c_us = *c as usize;
                if c_us < col || c_us >= end {
                    return true;
                }
                if c_us + count >= end {
                    return false;
                }
                *c = (c_us + count) as u16;
                true
            });
        }
    }

    /// Deletes `count` cells at `col`, shifting the rest left and filling the end with
    /// `blank`.
    pub fn delete_cells(&mut self, col: usize, count: usize, blank: Cell) {
        let len = self.cells.len();
        self.delete_cells_before(col, len, count, blank);
    }

    /// Deletes `count` cells at `col`, shifting `col..end` left and filling up to `end`
    /// with `blank`; nothing at or after `end` moves (a right margin).
    pub fn delete_cells_before(&mut self, col: usize, end: usize, count: usize, blank: Cell) {
        let end = end.min(self.cells.len());
        if col >= end {
            return;
        }
        let count = count.min(end - col);
        self.cells[col..end].rotate_left(count);
        fill_cells(&mut self.cells[end - count..end], blank);
        if !self.extras.is_empty() {
            self.extras.retain_mut(|(c, _)| {
                let c_us = *c as usize;
                if c_us < col || c_us >= end {
                    true
                } else if c_us < col + count {
                    false
                } else {
                    *c = (c_us - count) as u16;
                    true
                }
            });
        }
    }

    /// Copies cell `src` of `from` (with its side-table entry) to `col` of this row.
    pub fn copy_cell_from(&mut self, col: usize, from: &Row, src: usize) {
        let mut cell = from.cells[src];
        let extra = if cell.flags().contains(Flags::EXTRA) {
            from.extra(src).cloned()
        } else {
            None
        };
        cell.remove_flags(Flags::EXTRA);
        self.write(col, cell, extra.as_ref());
    }

    /// Whether a side-table entry lies in `cols`.
    pub fn has_extras_in(&self, cols: std::ops::Range<usize>) -> bool {
        self.extras
            .iter()
            .any(|(c, _)| cols.contains(&(*c as usize)))
    }

    /// The side-table entries of the cells in `cols` (no allocation when there are none).
    pub fn extras_in(&self, cols: std::ops::Range<usize>) -> Vec<(u16, CellExtra)> {
        self.extras
            .iter()
            .filter(|(c, _)| cols.contains(&(*c as usize)))
            .cloned()
            .collect()
    }

    /// Overwrites the cells from `col` on with `cells` and their side-table entries
    /// `extras` (as [`Row::extras_in`] gave them), in one pass: the entries of the cells
    /// replaced go.
    pub fn set_band(&mut self, col: usize, cells: &[Cell], extras: Vec<(u16, CellExtra)>) {
        let band = col..col + cells.len();
        self.cells[band.clone()].copy_from_slice(cells);
        if self.has_extras_in(band.clone()) {
            self.extras.retain(|(c, _)| !band.contains(&(*c as usize)));
        }
        if !extras.is_empty() {
            self.extras.extend(extras);
            self.extras.sort_by_key(|(c, _)| *c);
        }
    }

    /// Pads or cuts to exactly `cols` cells.
    pub fn set_len(&mut self, cols: usize) {
        self.cells.resize(cols, Cell::BLANK);
        self.extras.retain(|(c, _)| (*c as usize) < cols);
    }

    /// Approximate heap bytes held by this row.
    pub fn heap_bytes(&self) -> usize {
        self.cells.capacity() * std::mem::size_of::<Cell>()
            + self.extras.capacity() * std::mem::size_of::<(u16, CellExtra)>()
            + self
                .extras
                .iter()
                .map(|(_, e)| e.combining.capacity() * 4)
                .sum::<usize>()
    }

    /// The text of the row: spacers skipped, combining marks after their base.
    pub fn text(&self) -> String {
        self.text_from(0)
    }

    /// The text of the row from column `from` on.
    pub fn text_from(&self, from: usize) -> String {
        let mut s = String::with_capacity(self.cells.len());
        for (col, cell) in self.cells.iter().enumerate().skip(from) {
            if cell.flags().contains(Flags::WIDE_SPACER) {
                continue;
            }
            s.push(cell.ch());
            if cell.flags().contains(Flags::EXTRA)
                && let Some(extra) = self.extra(col)
            {
                s.extend(extra.combining.iter());
            }
        }
        s
    }
}

impl Row {
    /// Builds a row from cells and side-table entries (`(column, extra)`, any order).
    pub fn from_parts(cells: Vec<Cell>, mut extras: Vec<(u16, CellExtra)>, wrapped: bool) -> Row {
        extras.sort_by_key(|(c, _)| *c);
        Row {
            cells,
            extras,
            wrapped,
        }
    }

    /// Moves the cells and side-table entries out.
    pub fn into_parts(self) -> (Vec<Cell>, Vec<(u16, CellExtra)>) {
        (self.cells, self.extras)
    }
}
