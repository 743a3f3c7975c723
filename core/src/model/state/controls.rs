//! C0 controls and cursor movement.

use super::*;

impl State {
    // ---- C0 controls ----

    /// LF, IND (and the line feed of NEL and of a wrap): down one line, scrolling at the
    /// bottom margin. The column stays and a pending wrap is cancelled (xterm: after a
    /// full line, LF then a character writes it in the last column of the next line).
    pub fn linefeed(&mut self) {
        self.cursor.pending_wrap = false;
        let next = self.cursor.row + 1;
        if next == self.scroll_bottom {
            // Outside the left/right margins the cursor stays and nothing scrolls.
            if self.col_in_margins(self.cursor.col) {
                self.scroll_up(1);
            }
        } else if next < self.rows {
            self.cursor.row = next;
        }
    }

    /// LF, VT, FF: a line feed, plus a carriage return in LNM.
    pub fn newline(&mut self) {
        self.linefeed();
        if self.modes.newline {
            self.carriage_return();
        }
    }

    /// CR: to the left margin, or to column 0 from left of it.
    pub fn carriage_return(&mut self) {
        self.cursor.col = self.left_edge();
        self.cursor.pending_wrap = false;
    }

    /// BS: one column back (see [`State::cursor_back`] for the margins and reverse
    /// wraparound).
    pub fn backspace(&mut self) {
        self.cursor_back(1);
    }

    /// HT: to the next tab stop (or the last column), `count` times. With ?41 and
    /// autowrap on, a pending wrap is carried out first (index, column 0), as xterm's
    /// `TabNext` does for each step.
    pub fn tab_forward(&mut self, count: usize) {
        let edge = self.right_edge();
        if self.tab_wraps_pending && self.cursor.pending_wrap && self.modes.autowrap {
            self.index();
            self.cursor.col = 0;
            self.cursor.pending_wrap = false;
        }
        for _ in 0..count {
            if self.cursor.col + 1 >= edge {
                break;
            }
            let mut col = self.cursor.col + 1;
            while col + 1 < edge && !self.tabs[col] {
                col += 1;
            }
            self.cursor.col = col;
        }
    }

    /// CBT: to the previous tab stop (or column 0), `count` times. Like xterm it
    /// ignores the margins, except that in origin mode it stops at the left margin.
    pub fn tab_backward(&mut self, count: usize) {
        let edge = if self.modes.origin {
            self.margin_left
        } else {
            0
        };
        for _ in 0..count {
            if self.cursor.col <= edge {
                break;
            }
            let mut col = self.cursor.col - 1;
            while col > edge && !self.tabs[col] {
                col -= 1;
            }
            self.cursor.col = col;
        }
        self.cursor.pending_wrap = false;
    }

    pub fn set_tab_stop(&mut self) {
        let col = self.cursor.col;
        self.tabs[col] = true;
    }

    /// TBC: 0 clears the stop at the cursor, 3 clears all.
    pub fn clear_tab_stops(&mut self, mode: u16) {
        match mode {
            0 => {
                let col = self.cursor.col;
                self.tabs[col] = false;
            }
            3 => self.tabs.iter_mut().for_each(|t| *t = false),
            _ => {}
        }
    }

    pub fn bell(&mut self) {
        self.events.push(TermEvent::Bell);
    }

    // ---- cursor movement ----

    /// CUP/HVP with 0-based coordinates, relative to the scroll region in origin mode.
    /// In origin mode also relative to the left margin, and kept inside the margins.
    pub fn goto(&mut self, row: usize, col: usize) {
        let (offset, max_row, col_offset, max_col) = if self.modes.origin {
            (
                self.scroll_top,
                self.scroll_bottom - 1,
                self.margin_left,
                self.margin_right - 1,
            )
        } else {
            (0, self.rows - 1, 0, self.cols - 1)
        };
        self.cursor.row = (row.saturating_add(offset)).min(max_row);
        self.cursor.col = (col.saturating_add(col_offset)).min(max_col);
        self.cursor.pending_wrap = false;
    }

    /// Cursor column relative to the origin (what `goto` takes).
    pub(in crate::model) fn origin_col(&self) -> usize {
        if self.modes.origin {
            self.cursor.col.saturating_sub(self.margin_left)
        } else {
            self.cursor.col
        }
    }

    /// Cursor row relative to the origin (what `goto` takes).
    pub(in crate::model) fn origin_row(&self) -> usize {
        if self.modes.origin {
            self.cursor.row.saturating_sub(self.scroll_top)
        } else {
            self.cursor.row
        }
    }

    pub fn goto_row(&mut self, row: usize) {
        let col = self.origin_col();
        self.goto(row, col);
    }

    pub fn goto_col(&mut self, col: usize) {
        let row = self.origin_row();
        self.goto(row, col);
    }

    /// CUU (and CPL): stops at the top margin when starting inside the scroll region
    /// (or in origin mode), else at the top of the screen.
    pub fn move_up(&mut self, n: usize) {
        let origin = self.modes.origin;
        let top = if origin || self.cursor.row >= self.scroll_top {
            self.scroll_top
        } else {
            0
        };
        let mut row = self.cursor.row.saturating_sub(n).max(top);
        if origin {
            row = row.min(self.scroll_bottom - 1);
        }
        self.cursor.row = row;
        self.cursor.pending_wrap = false;
    }

    /// CUD (and CNL, VPR): stops at the bottom margin when starting inside the scroll
    /// region (or in origin mode), else at the bottom of the screen.
    pub fn move_down(&mut self, n: usize) {
        let origin = self.modes.origin;
        let bottom = if origin || self.cursor.row < self.scroll_bottom {
            self.scroll_bottom - 1
        } else {
            self.rows - 1
        };
        let mut row = self.cursor.row.saturating_add(n).min(bottom);
        if origin {
            row = row.max(self.scroll_top);
        }
        self.cursor.row = row;
        self.cursor.pending_wrap = false;
    }

    /// CUF: stops at the right margin from inside the margins, else at the edge.
    pub fn move_forward(&mut self, n: usize) {
        let last = self.right_edge() - 1;
        self.cursor.col = self.cursor.col.saturating_add(n).min(last);
        self.cursor.pending_wrap = false;
    }

    /// CUB: stops at the left margin from inside the margins, else at column 0 (or
    /// wraps back with ?45, see [`State::cursor_back`]).
    pub fn move_backward(&mut self, n: usize) {
        self.cursor_back(n);
    }

    /// IND
    pub fn index(&mut self) {
        self.linefeed();
    }

    /// RI: up one line, scrolling down at the top margin; cancels a pending wrap.
    pub fn reverse_index(&mut self) {
        self.cursor.pending_wrap = false;
        if self.cursor.row == self.scroll_top {
            if self.col_in_margins(self.cursor.col) {
                self.scroll_down(1);
            }
        } else {
            self.cursor.row = self.cursor.row.saturating_sub(1);
        }
    }
}
