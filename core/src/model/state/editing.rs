//! Editing: erasing, inserting and deleting characters and lines.

use super::*;

impl State {
    // ---- editing ----

    /// True when the cursor is inside the scroll region and the left/right margins,
    /// where IL and DL act.
    pub(super) fn cursor_in_line_box(&self) -> bool {
        let row = self.cursor.row;
        row >= self.scroll_top && row < self.scroll_bottom && self.col_in_margins(self.cursor.col)
    }

    /// IL and DL move the cursor to the left margin (DEC, xterm), cancelling a pending
    /// wrap.
    pub(super) fn line_edit_home(&mut self) {
        self.cursor.col = self.margin_left;
        self.cursor.pending_wrap = false;
    }

    /// IL
    pub fn insert_lines(&mut self, n: usize) {
        let row = self.cursor.row;
        if self.cursor_in_line_box() {
            self.line_edit_home();
            self.scroll_down_from(row, n);
        }
    }

    /// DL
    pub fn delete_lines(&mut self, n: usize) {
        let row = self.cursor.row;
        if self.cursor_in_line_box() && n > 0 {
            self.line_edit_home();
            let bottom = self.scroll_bottom;
            if self.has_lr_margins() {
                let (left, right) = (self.margin_left, self.margin_right);
                self.shift_box_rows(row, bottom, left, right, n, true);
                return;
            }
            let bg = self.pen.bg;
            self.grid_mut().scroll_up(row, bottom, n, bg, None);
            self.damage.mark_all();
        }
    }

    /// ICH: inside the margins it shifts only up to the right margin; outside them it
    /// does nothing. Like xterm it cancels a pending wrap, and DECRQCRA counts its
    /// blanks as written spaces.
    pub fn insert_blanks(&mut self, n: usize) {
        self.cursor.pending_wrap = false;
        let (row, col) = (self.cursor.row, self.cursor.col);
        let blank = self.erase_cell().with_drawn(true);
        if !self.col_in_margins(col) {
            return;
        }
        let end = self.margin_right;
        self.row_mut(row).insert_cells_before(col, end, n, blank);
    }

    /// DCH: like ICH, bounded by the right margin.
    pub fn delete_chars(&mut self, n: usize) {
        self.cursor.pending_wrap = false;
        let (row, col, blank) = (self.cursor.row, self.cursor.col, self.erase_cell());
        if !self.col_in_margins(col) {
            return;
        }
        let end = self.margin_right;
        self.row_mut(row).delete_cells_before(col, end, n, blank);
    }

    /// ECH. Cancels a pending wrap; DECRQCRA counts its blanks as written spaces.
    pub fn erase_chars(&mut self, n: usize) {
        self.cursor.pending_wrap = false;
        let (row, col) = (self.cursor.row, self.cursor.col);
        let blank = self.erase_cell().with_drawn(true);
        let end = col.saturating_add(n.max(1));
        self.erase_span(row, col, end, blank);
    }

    /// Fills `start..end` of `row` with `blank` for ED, EL and ECH: under ISO
    /// protection (SPA) protected cells are kept, as in xterm.
    pub(super) fn erase_span(&mut self, row: usize, start: usize, end: usize, blank: Cell) {
        let keep_protected = self.protection == Protection::Iso;
        let r = self.row_mut(row);
        if !keep_protected {
            r.fill(start, end, blank);
            return;
        }
        for col in start..end.min(r.cells.len()) {
            if !r.cells[col].is_protected() {
                r.fill(col, col + 1, blank);
            }
        }
    }

    /// EL: 0 right of the cursor, 1 left of it, 2 the whole line. Cancels a pending
    /// wrap; DECRQCRA counts the blanks of EL 1 (only) as written spaces, as xterm does.
    pub fn erase_in_line(&mut self, mode: u16) {
        self.cursor.pending_wrap = false;
        let (row, col, cols) = (self.cursor.row, self.cursor.col, self.cols);
        let blank = self.erase_cell().with_drawn(mode == 1);
        let (start, end) = match mode {
            0 => (col, cols),
            1 => (0, col + 1),
            2 => (0, cols),
            _ => return,
        };
        self.erase_span(row, start, end, blank);
        if end == cols {
            self.row_mut(row).wrapped = false;
        }
    }

    /// ED: 0 below, 1 above, 2 all, 3 scrollback.
    pub fn erase_in_display(&mut self, mode: u16) {
        if mode <= 2 {
            self.cursor.pending_wrap = false;
        }
        let (row, rows, blank) = (self.cursor.row, self.rows, self.erase_cell());
        match mode {
            0 => {
                self.erase_in_line(0);
                for r in row + 1..rows {
                    self.erase_row(r, blank);
                }
            }
            1 => {
                for r in 0..row {
                    self.erase_row(r, blank);
                }
                self.erase_in_line(1);
            }
            2 => {
                for r in 0..rows {
                    self.erase_row(r, blank);
                }
                // As kitty does, clearing the screen takes its images away.
                let base = self.image_line_base();
                let end = base + rows as u64;
                if !self.images().placements().is_empty() {
                    self.images_mut().delete_where(false, |p| {
                        !p.is_virtual && p.line < end && p.end_line() > base
                    });
                }
            }
            3 => {
                self.scrollback.clear();
                self.events.push(TermEvent::ScrollbackCleared);
            }
            _ => {}
        }
    }

    /// Blanks a whole row, protected cells included.
    pub(super) fn reset_row(&mut self, row: usize, blank: Cell) {
        let cols = self.cols;
        let r = self.row_mut(row);
        r.fill(0, cols, blank);
        r.wrapped = false;
    }

    /// Blanks a whole row for ED (see [`State::erase_span`]).
    pub(super) fn erase_row(&mut self, row: usize, blank: Cell) {
        let cols = self.cols;
        self.erase_span(row, 0, cols, blank);
        self.row_mut(row).wrapped = false;
    }

    /// Blanks the whole screen, protected cells included (DECCOLM, as xterm's
    /// `ClearScreen`).
    pub(in crate::model) fn clear_screen(&mut self) {
        self.cursor.pending_wrap = false;
        let blank = self.erase_cell();
        for r in 0..self.rows {
            self.reset_row(r, blank);
        }
    }

    /// DECALN: fill the screen with 'E', reset margins, home the cursor.
    pub fn screen_alignment(&mut self) {
        let cols = self.cols;
        self.charge_cells(cols * self.rows);
        for r in 0..self.rows {
            let row = self.row_mut(r);
            row.fill(0, cols, Cell::BLANK.with_ch('E').with_drawn(true));
            row.wrapped = false;
        }
        self.scroll_top = 0;
        self.scroll_bottom = self.rows;
        self.margin_left = 0;
        self.margin_right = self.cols;
        self.cursor = Cursor::default();
    }
}
