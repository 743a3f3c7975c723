//! Scrolling: the scroll region, index and reverse index, scrolling up and down.

use super::*;

impl State {
    // ---- scrolling ----

    /// SU and the scroll of a line feed at the bottom margin.
    pub fn scroll_up(&mut self, n: usize) {
        let top = self.scroll_top;
        self.scroll_up_from(top, n);
    }

    pub fn scroll_down(&mut self, n: usize) {
        let top = self.scroll_top;
        self.scroll_down_from(top, n);
    }

    pub(in crate::model) fn scroll_up_from(&mut self, top: usize, n: usize) {
        let bottom = self.scroll_bottom;
        let bg = self.pen.bg;
        if self.has_lr_margins() {
            // Only the margin box moves, and nothing goes to the scrollback.
            let (left, right) = (self.margin_left, self.margin_right);
            self.shift_box_rows(top, bottom, left, right, n, true);
            return;
        }
        // Only a screen with placements needs its first line before the scroll.
        let base = if self.images().placements().is_empty() {
            0
        } else {
            self.image_line_base()
        };
        if self.modes.alt_screen {
            if top == 0 {
                self.alt_scrolled_lines += n.min(bottom) as u64;
            }
            self.alt.scroll_up(top, bottom, n, bg, None);
        } else {
            let keep = top == 0;
            let sb = if keep {
                Some(&mut self.scrollback)
            } else {
                None
            };
            self.primary.scroll_up(top, bottom, n, bg, sb);
        }
        if !self.images().placements().is_empty() {
            self.images_follow_scroll(base, top, bottom, n, true);
        }
        self.damage.mark_all();
    }

    /// Keeps image placements on their rows when a scroll moved only some rows: those
    /// of a region that does not start at the top move with its rows (cropped or gone
    /// at its edges), and those below a region that does (whose lines went to the
    /// history, moving every line number) stay where they are. `base`: the screen's
    /// first absolute line before the scroll.
    fn images_follow_scroll(&mut self, base: u64, top: usize, bottom: usize, n: usize, up: bool) {
        let n = n.min(bottom.saturating_sub(top)) as u64;
        let rows = self.rows as u64;
        let (top, bottom) = (top as u64, bottom as u64);
        let now = self.image_line_base();
        let store = self.images_mut();
        if now != base {
            // The region's lines went up into the history and numbering: the rows
            // below it did not move.
            let moved = (now - base) as i64;
            store.shift(base + bottom..base + rows, moved, 0, u64::MAX);
        } else if up {
            store.shift(base + top..base + bottom, -(n as i64), base + top, u64::MAX);
        } else {
            store.shift(base + top..base + bottom, n as i64, 0, base + bottom);
        }
    }

    pub(in crate::model) fn scroll_down_from(&mut self, top: usize, n: usize) {
        let bottom = self.scroll_bottom;
        let bg = self.pen.bg;
        if self.has_lr_margins() {
            let (left, right) = (self.margin_left, self.margin_right);
            self.shift_box_rows(top, bottom, left, right, n, false);
            return;
        }
        self.grid_mut().scroll_down(top, bottom, n, bg);
        if !self.images().placements().is_empty() {
            let base = self.image_line_base();
            self.images_follow_scroll(base, top, bottom, n, false);
        }
        self.damage.mark_all();
    }

    /// Moves the cells of columns `left..right` in rows `top..bottom` up (or down) by
    /// `n` rows, blanks (current background) entering at the other end.
    pub(in crate::model) fn shift_box_rows(
        &mut self,
        top: usize,
        bottom: usize,
        left: usize,
        right: usize,
        n: usize,
        up: bool,
    ) {
        if top >= bottom || left >= right {
            return;
        }
        let n = n.min(bottom - top);
        let blank = self.erase_cell();
        let order: Vec<usize> = if up {
            (top..bottom).collect()
        } else {
            (top..bottom).rev().collect()
        };
        // Every line feed at the bottom margin comes here while DECLRMM narrows the box,
        // so the band moves as a slice plus its side-table entries: a flood of line
        // feeds must cost a copy per row, not a lookup per cell.
        let mut band: Vec<Cell> = Vec::with_capacity(right - left);
        for dst in order {
            let src = if up { dst + n } else { dst.wrapping_sub(n) };
            let inside = if up { src < bottom } else { dst >= top + n };
            if inside {
                let from = self.grid().row(src);
                band.clear();
                band.extend_from_slice(&from.cells[left..right]);
                let extras = from.extras_in(left..right);
                self.row_mut(dst).set_band(left, &band, extras);
            } else {
                self.row_mut(dst).fill(left, right, blank);
            }
        }
        self.damage.mark_all();
    }

    /// DECSTBM with 1-based inclusive bounds (0 or missing = default).
    pub fn set_scroll_region(&mut self, top: usize, bottom: Option<usize>) {
        let bottom = bottom
            .filter(|b| *b > 0)
            .unwrap_or(self.rows)
            .min(self.rows);
        let top = top.max(1);
        if top >= bottom {
            return;
        }
        self.scroll_top = top - 1;
        self.scroll_bottom = bottom;
        self.goto(0, 0);
    }

    /// DECSLRM with 1-based inclusive columns (0 or missing = default); only while
    /// DECLRMM is set. A margin pair narrower than two columns is ignored (xterm).
    pub fn set_lr_margins(&mut self, left: usize, right: Option<usize>) {
        if !self.lr_margin_mode {
            return;
        }
        let right = right.filter(|r| *r > 0).unwrap_or(self.cols).min(self.cols);
        let left = left.max(1);
        if left >= right {
            return;
        }
        self.margin_left = left - 1;
        self.margin_right = right;
        self.goto(0, 0);
    }

    /// DECLRMM (?69): switching it either way resets the left/right margins.
    pub fn set_lr_margin_mode(&mut self, on: bool) {
        self.lr_margin_mode = on;
        self.margin_left = 0;
        self.margin_right = self.cols;
    }
}
