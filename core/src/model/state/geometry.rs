//! Page size a program may change, as xterm 379 does it: DECCOLM (`CSI ? 3 h/l`, only
//! while `CSI ? 40 h` allows it), DECSCPP (`CSI Pn $ |`) and DECSLPP (`CSI Pn t`, 24
//! lines or more), DECSNLS (`CSI Pn * |`); and the cursor moving back (BS, CUB) with reverse wraparound
//! (`CSI ? 45 h`).
//!
//! The model resizes itself, as xterm's window does, and leaves the new size in
//! [`crate::model::Terminal::take_resize_request`] so that an app can make the pty (and the
//! pane) follow.

use super::State;
use crate::model::TermSize;

/// Columns of DECCOLM's and DECSCPP's wide page.
pub const WIDE_COLUMNS: usize = 132;
/// Columns of the normal page.
pub const NORMAL_COLUMNS: usize = 80;
/// DECSLPP ignores fewer lines than this (xterm: they are window operations).
pub const MIN_PAGE_LINES: usize = 24;
/// The most lines DECSNLS may ask for (xterm's limit).
pub const MAX_SCREEN_LINES: usize = 255;
/// The most lines DECSLPP (and a resize request) may ask for.
pub const MAX_PAGE_LINES: usize = 1000;

impl State {
    /// Resizes the model for a program's request and tells the app about it.
    pub(in crate::model) fn program_resize(&mut self, size: TermSize) {
        self.resize(size);
        self.resize_request = Some(TermSize::new(self.cols, self.rows));
    }

    /// DECCOLM: with ?40 set, 132 (`wide`) or 80 columns; the screen is cleared, the
    /// margins reset, origin mode switched off and the cursor homed, whether the width
    /// changes or not. Without ?40 nothing happens.
    pub fn set_column_mode(&mut self, wide: bool) {
        if !self.allow_column_switch {
            return;
        }
        self.columns_132 = wide;
        let cols = if wide { WIDE_COLUMNS } else { NORMAL_COLUMNS };
        if self.no_clear_on_column_switch {
            // DECNCSM: the screen is kept (and reflowed like any resize).
            self.program_resize(TermSize::new(cols, self.rows));
        } else {
            // Clear first, with the cursor on the last row: the reflow of a resize then
            // keeps the screen blank instead of pulling history into it (which the clear
            // would then lose).
            self.clear_screen();
            self.cursor.row = self.rows - 1;
            self.program_resize(TermSize::new(cols, self.rows));
            self.clear_screen();
        }
        self.modes.origin = false;
        self.set_lr_margin_mode(self.lr_margin_mode);
        self.scroll_top = 0;
        self.scroll_bottom = self.rows;
        self.goto(0, 0);
    }

    /// DECSCPP: 132 columns for more than 80, else 80. Unlike DECCOLM it keeps the
    /// screen and the cursor (xterm), and needs no ?40.
    pub fn set_columns_per_page(&mut self, cols: u16) {
        let wide = usize::from(cols) > NORMAL_COLUMNS;
        self.columns_132 = wide;
        let cols = if wide { WIDE_COLUMNS } else { NORMAL_COLUMNS };
        self.program_resize(TermSize::new(cols, self.rows));
    }

    /// DECSLPP (`CSI Pn t` with Pn >= 24): that many lines, screen and cursor kept.
    pub fn set_lines_per_page(&mut self, lines: usize) {
        if lines < MIN_PAGE_LINES {
            return;
        }
        let rows = lines.min(MAX_PAGE_LINES);
        self.program_resize(TermSize::new(self.cols, rows));
    }

    /// DECSNLS (`CSI Pn * |`): that many lines per screen, screen and cursor kept. xterm
    /// takes 1..=255 (when window operations are allowed); tern takes the same range
    /// from DECSLPP's floor up, so that a program cannot shrink a pane to a sliver.
    pub fn set_lines_per_screen(&mut self, lines: u16) {
        if (MIN_PAGE_LINES..=MAX_SCREEN_LINES).contains(&usize::from(lines)) {
            self.program_resize(TermSize::new(self.cols, usize::from(lines)));
        }
    }

    /// BS and CUB (xterm's `CursorBack`). With reverse wraparound (?45) and autowrap on,
    /// a pending wrap uses up one step, and moving past the left margin goes on at the
    /// right margin of the line above; from the top-left of the scroll region it wraps
    /// to the bottom-right, and above the top of the screen it comes round from the
    /// bottom. Otherwise the cursor stops at the left margin (or column 1 from left of
    /// it). Either way a pending wrap is cancelled.
    pub fn cursor_back(&mut self, n: usize) {
        let reverse = self.reverse_wrap && self.modes.autowrap;
        let mut n = n;
        if reverse && self.cursor.pending_wrap {
            n = n.saturating_sub(1);
        }
        self.cursor.pending_wrap = false;
        let before = self.cursor.col;
        let left = if before < self.margin_left {
            0
        } else {
            self.margin_left
        };
        if before >= left + n {
            self.cursor.col = before - n;
            return;
        }
        if !reverse {
            self.cursor.col = left;
            return;
        }
        // Positions counted along the lines of the margin columns, as xterm does.
        let per_row = (self.margin_right - left) as i64;
        let row = self.cursor.row as i64;
        let in_box = self.col_in_margins(before)
            && self.cursor.row >= self.scroll_top
            && self.cursor.row < self.scroll_bottom;
        let mut offset = per_row * row + before as i64 - n as i64 - left as i64;
        if before == left && in_box && self.cursor.row == self.scroll_top {
            offset = self.scroll_bottom as i64 * per_row - 1;
        } else if offset < 0 {
            let length = per_row * self.rows as i64;
            offset += ((-offset) / length + 1) * length;
        }
        let row = (offset / per_row) as usize;
        let col = (offset % per_row) as usize + left;
        self.cursor.row = row.min(self.rows - 1);
        self.cursor.col = col.min(self.cols - 1);
    }
}
