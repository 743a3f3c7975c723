//! The visible grid (its rows are in `row.rs`, the scrollback in `scrollback/`).
//!
//! ```text
//!   grid (VecDeque<Row>, exactly `rows` rows of exactly `cols` cells)
//!   ┌──────────────────────────────┐
//!   │ row 0 ──▶ encoded into the   │  ◀── pop_front on a full-screen scroll
//!   │ ...       scrollback, then   │
//!   │ row n ◀── blanked and reused │  ◀── push_back (same allocation)
//!   └──────────────────────────────┘
//! ```
//!
//! The grid is a ring: a full-screen scroll moves one row handle from front to back;
//! no cells move and nothing is allocated.

use std::collections::VecDeque;

use super::cell::Color;
pub use super::row::{CellExtra, MAX_COMBINING, Row, SpareMarks};
use super::scrollback::Scrollback;

/// The visible screen: exactly `rows` rows of exactly `cols` cells.
#[derive(Clone, Debug)]
pub struct Grid {
    rows: VecDeque<Row>,
    cols: usize,
    spare_marks: SpareMarks,
}

impl Grid {
    pub fn new(cols: usize, rows: usize) -> Grid {
        Grid {
            rows: (0..rows)
                .map(|_| Row::blank(cols, Color::Default))
                .collect(),
            cols,
            spare_marks: SpareMarks::default(),
        }
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    pub fn rows(&self) -> usize {
        self.rows.len()
    }

    #[inline]
    pub fn row(&self, row: usize) -> &Row {
        &self.rows[row]
    }

    #[inline]
    pub fn row_mut(&mut self, row: usize) -> &mut Row {
        &mut self.rows[row]
    }

    /// [`Grid::row_mut`] with the mark lists kept from rows that scrolled away, for
    /// [`Row::push_combining_with`].
    #[inline]
    pub fn row_and_spare_marks_mut(&mut self, row: usize) -> (&mut Row, &mut SpareMarks) {
        (&mut self.rows[row], &mut self.spare_marks)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter()
    }

    /// Scrolls rows `top..bottom` up by `count`. When `history` is given and the region
    /// starts at the top, a trimmed copy of each row leaving the screen goes there; the
    /// row's own allocation is blanked and reused at the bottom of the region.
    pub fn scroll_up(
        &mut self,
        top: usize,
        bottom: usize,
        count: usize,
        bg: Color,
        mut history: Option<&mut Scrollback>,
    ) {
        let count = count.min(bottom.saturating_sub(top));
        let cols = self.cols;
        let full = top == 0 && bottom == self.rows.len();
        for _ in 0..count {
            let row = if full {
                self.rows.pop_front()
            } else {
                self.rows.remove(top)
            };
            let Some(row) = row else { return };
            let (mut row, used) = match history.as_deref_mut() {
                Some(sb) if top == 0 => sb.push_row(row),
                _ => (row, cols),
            };
            if !row.extras.is_empty() {
                row.recycle_extras(&mut self.spare_marks);
            }
            row.reset_used(cols, used, bg);
            if full {
                self.rows.push_back(row);
            } else {
                self.rows.insert(bottom - 1, row);
            }
        }
    }

    /// Scrolls rows `top..bottom` down by `count`, blank rows entering at the top.
    pub fn scroll_down(&mut self, top: usize, bottom: usize, count: usize, bg: Color) {
        let count = count.min(bottom.saturating_sub(top));
        let cols = self.cols;
        for _ in 0..count {
            if let Some(mut row) = self.rows.remove(bottom - 1) {
                row.reset(cols, bg);
                self.rows.insert(top, row);
            }
        }
    }

    /// Replaces all rows (used by resize and reflow).
    pub fn set_rows(&mut self, rows: VecDeque<Row>, cols: usize) {
        self.rows = rows;
        self.cols = cols;
    }

    pub fn take_rows(&mut self) -> VecDeque<Row> {
        std::mem::take(&mut self.rows)
    }

    pub fn heap_bytes(&self) -> usize {
        self.rows.iter().map(Row::heap_bytes).sum::<usize>()
            + self.rows.capacity() * std::mem::size_of::<Row>()
            + self.spare_marks.heap_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Marks on a line that scrolls away leave their lists, emptied, for the next marks
    /// written with them: a mark written then is alone on its cell, the row that came
    /// back is blank, and a row without marks leaves none.
    #[test]
    fn marks_after_a_scroll_reuse_emptied_lists() {
        let mut grid = Grid::new(4, 2);
        let top = grid.row_mut(0);
        top.push_combining(0, '\u{301}');
        top.push_combining(0, '\u{302}');
        top.push_combining(2, '\u{303}');
        grid.scroll_up(0, 2, 2, Color::Default, None);
        assert_eq!(grid.spare_marks.0.len(), 2);
        assert!(grid.iter().all(|r| *r == Row::blank(4, Color::Default)));
        let (row, spare) = grid.row_and_spare_marks_mut(1);
        row.push_combining_with(1, '\u{304}', spare);
        assert_eq!(grid.spare_marks.0.len(), 1);
        let row = grid.row(1);
        assert_eq!(
            row.extra(1).map(|e| e.combining.clone()),
            Some(vec!['\u{304}'])
        );
        assert!(row.extra(0).is_none() && row.extra(2).is_none());
        assert_eq!(row.text(), "  \u{304}  ");
    }
}
