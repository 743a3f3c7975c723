//! VT420 rectangular area operations (DECCRA, DECFRA, DECERA, DECSERA, DECCARA,
//! DECRARA), the DECRQCRA checksum, column insert/delete and scrolling (DECIC, DECDC,
//! DECBI, DECFI) and selective erase (DECSED, DECSEL), as xterm does them.
//!
//! Coordinates arrive 1-based and inclusive (`Pt;Pl;Pb;Pr`), relative to the margins in
//! origin mode, and are clamped like xterm's `xtermParseRect`; a rectangle that ends up
//! empty makes the operation do nothing.

use super::cell::{Cell, Color, Flags, Underline};
use super::state::State;

/// A rectangle of cells: rows `top..bottom`, columns `left..right` (0-based, end
/// exclusive, never empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    pub top: usize,
    pub left: usize,
    pub bottom: usize,
    pub right: usize,
}

impl Rect {
    /// The cells in the rectangle.
    pub fn area_cells(&self) -> usize {
        (self.bottom - self.top) * (self.right - self.left)
    }
}

/// What xterm 379's default (`csDEC`) DECRQCRA checksum adds for a cell, measured on
/// xterm itself: the character's low 8 bits plus BOLD 0x80, BLINK 0x40, INVERSE 0x20 and
/// (single) UNDERLINE 0x10. Protection, invisibility, colours and the other SGR
/// attributes add nothing; an invisible character counts as a space. The right half of
/// a wide character counts 0xFF (xterm's hidden filler) plus the attributes. A blank
/// nothing was written to (never drawn, or erased by ED, EL 0/2, DCH, IL/DL or a
/// scroll) with no counted attribute and the default background counts nothing, except
/// as the `first` cell of the rectangle, which xterm always counts (a space, 0x20).
pub fn checksum_value(cell: &Cell, first: bool) -> u32 {
    let flags = cell.flags();
    let mut attrs = 0;
    for (flag, value) in [
        (Flags::BOLD, 0x80),
        (Flags::BLINK, 0x40),
        (Flags::INVERSE, 0x20),
    ] {
        if flags.contains(flag) {
            attrs += value;
        }
    }
    if cell.underline() == Underline::Single {
        attrs += 0x10;
    }
    if flags.contains(Flags::WIDE_SPACER) {
        return 0xff + attrs;
    }
    let counted = cell.is_drawn() || attrs != 0 || cell.bg() != Color::Default;
    if !counted {
        return if first { 0x20 } else { 0 };
    }
    let ch = if flags.contains(Flags::HIDDEN) {
        0x20
    } else {
        cell.ch() as u32 & 0xff
    };
    ch + attrs
}

impl State {
    /// Counts `cells` of work that grows with the pane's area toward the pane's slice
    /// (see [`State::work_cells`]).
    pub(super) fn charge_cells(&mut self, cells: usize) {
        self.work_cells = self.work_cells.saturating_add(cells as u64);
    }

    /// Reads `Pt;Pl;Pb;Pr` (0 or missing: 1, 1, last row, last column).
    pub(super) fn rect_from(&self, p: [u16; 4]) -> Option<Rect> {
        let (row_off, col_off, max_row, max_col) = if self.modes.origin {
            (
                self.scroll_top,
                self.margin_left,
                self.scroll_bottom,
                self.margin_right,
            )
        } else {
            (0, 0, self.rows, self.cols)
        };
        let or = |v: u16, default: usize| if v == 0 { default } else { v as usize };
        let top = or(p[0], 1) + row_off;
        let left = or(p[1], 1) + col_off;
        let bottom = (or(p[2], max_row - row_off) + row_off).min(max_row);
        let right = (or(p[3], max_col - col_off) + col_off).min(max_col);
        if top > bottom || left > right {
            return None;
        }
        Some(Rect {
            top: top - 1,
            left: left - 1,
            bottom,
            right,
        })
    }

    /// Blanks the halves of wide characters that a write to `left..right` of `row`
    /// would split.
    fn unsplit_wide(&mut self, row: usize, left: usize, right: usize) {
        let cols = self.cols;
        let r = self.row_mut(row);
        if left > 0 && r.cells[left].flags().contains(Flags::WIDE_SPACER) {
            let cell = &mut r.cells[left - 1];
            cell.remove_flags(Flags::WIDE);
            cell.set_ch(' ');
        }
        if right < cols && r.cells[right - 1].flags().contains(Flags::WIDE) {
            let cell = &mut r.cells[right];
            cell.remove_flags(Flags::WIDE_SPACER);
            cell.set_ch(' ');
        }
    }

    /// DECFRA: fills the rectangle with `ch` in the current pen.
    pub fn fill_rect(&mut self, ch: u16, p: [u16; 4]) {
        let Some(c) = char::from_u32(ch as u32).filter(|_| matches!(ch, 32..=126 | 160..=255))
        else {
            return;
        };
        let Some(rect) = self.rect_from(p) else {
            return;
        };
        self.charge_cells(rect.area_cells());
        let cell = self.pen.template().with_ch(self.charsets.map(c));
        let extra = self.pen.extra();
        for row in rect.top..rect.bottom {
            self.unsplit_wide(row, rect.left, rect.right);
            let r = self.row_mut(row);
            for col in rect.left..rect.right {
                r.write(col, cell, extra.as_ref());
            }
        }
    }

    /// DECERA: erases the rectangle (background colour erase), protected or not.
    pub fn erase_rect(&mut self, p: [u16; 4]) {
        let Some(rect) = self.rect_from(p) else {
            return;
        };
        self.charge_cells(rect.area_cells());
        // xterm counts DECERA's blanks in DECRQCRA as written spaces.
        let blank = self.erase_cell().with_drawn(true);
        for row in rect.top..rect.bottom {
            self.unsplit_wide(row, rect.left, rect.right);
            self.row_mut(row).fill(rect.left, rect.right, blank);
        }
    }

    /// DECSERA: turns the characters of the rectangle into spaces, keeping their
    /// attributes, and keeping DECSCA-protected characters while DEC protection is
    /// chosen (xterm's `ScrnWipeRectangle`).
    pub fn selective_erase_rect(&mut self, p: [u16; 4]) {
        let Some(rect) = self.rect_from(p) else {
            return;
        };
        self.charge_cells(rect.area_cells());
        // Only DECSCA's protection counts here; SPA's does not (xterm).
        let keep_protected = self.protection == super::state::Protection::Dec;
        for row in rect.top..rect.bottom {
            self.unsplit_wide(row, rect.left, rect.right);
            let r = self.row_mut(row);
            for col in rect.left..rect.right {
                let mut cell = r.cells[col];
                if keep_protected && cell.is_protected() {
                    continue;
                }
                if cell.flags().contains(Flags::EXTRA) {
                    r.remove_extra(col);
                    cell = r.cells[col];
                }
                cell.remove_flags(Flags::WIDE.union(Flags::WIDE_SPACER));
                r.cells[col] = cell.with_ch(' ');
            }
        }
    }

    /// DECCRA: copies the source rectangle so that its top-left corner lands on
    /// `(dst_top, dst_left)` (1-based, origin-relative), clipped to the screen.
    pub fn copy_rect(&mut self, src: [u16; 4], dst_top: u16, dst_left: u16) {
        let Some(rect) = self.rect_from(src) else {
            return;
        };
        let Some(dst) = self.rect_from([dst_top, dst_left, 0, 0]) else {
            return;
        };
        let rows = (rect.bottom - rect.top).min(dst.bottom - dst.top);
        let cols = (rect.right - rect.left).min(dst.right - dst.left);
        // The source rows are cloned whole, then `cols` cells of each copied.
        self.charge_cells(rows * (self.cols + cols));
        // Read everything first: the two rectangles may overlap.
        let copied: Vec<_> = (0..rows)
            .map(|i| self.grid().row(rect.top + i).clone())
            .collect();
        for (i, from) in copied.iter().enumerate() {
            let row = dst.top + i;
            self.unsplit_wide(row, dst.left, dst.left + cols);
            let r = self.row_mut(row);
            for j in 0..cols {
                r.copy_cell_from(dst.left + j, from, rect.left + j);
            }
        }
    }

    /// The cells DECCARA/DECRARA touch: the rectangle (DECSACE 2), or the stream of
    /// characters from its first to its last position within the margins.
    fn attr_extent(&self, rect: Rect) -> Vec<(usize, usize, usize)> {
        (rect.top..rect.bottom)
            .map(|row| {
                if self.attr_change_extent == 2 {
                    (row, rect.left, rect.right)
                } else {
                    let left = if row == rect.top {
                        rect.left
                    } else {
                        self.margin_left
                    };
                    let right = if row + 1 == rect.bottom {
                        rect.right
                    } else {
                        self.margin_right
                    };
                    (row, left, right)
                }
            })
            .collect()
    }

    /// DECCARA (`reverse` false) and DECRARA (`reverse` true): set, clear or toggle
    /// bold (1), underline (4), blink (5), inverse (7) and invisible (8); colours and
    /// characters are kept.
    pub fn change_rect_attrs(&mut self, p: [u16; 4], attrs: &[u16], reverse: bool) {
        let Some(rect) = self.rect_from(p) else {
            return;
        };
        let attrs: Vec<u16> = if attrs.is_empty() {
            vec![0]
        } else {
            attrs.to_vec()
        };
        let extent = self.attr_extent(rect);
        let cells: usize = extent.iter().map(|&(_, l, r)| r.saturating_sub(l)).sum();
        self.charge_cells(cells.saturating_mul(attrs.len()));
        for (row, left, right) in extent {
            let r = self.row_mut(row);
            for cell in &mut r.cells[left.min(right)..right] {
                for &a in &attrs {
                    apply_attr(cell, a, reverse);
                }
            }
        }
    }

    /// DECRQCRA: xterm's default checksum of the rectangle, negated, 16 bits.
    pub fn rect_checksum(&self, p: [u16; 4]) -> u16 {
        let Some(rect) = self.rect_from(p) else {
            return 0;
        };
        let mut total: u32 = 0;
        let mut first = true;
        for row in rect.top..rect.bottom {
            let r = self.grid().row(row);
            for cell in &r.cells[rect.left..rect.right] {
                total = total.wrapping_add(checksum_value(cell, first));
                first = false;
            }
        }
        (total as u16).wrapping_neg()
    }

    /// True when the cursor is inside the scroll region and the left/right margins.
    fn cursor_in_box(&self) -> bool {
        let row = self.cursor.row;
        row >= self.scroll_top && row < self.scroll_bottom && self.col_in_margins(self.cursor.col)
    }

    /// DECIC: inserts `n` blank columns at the cursor column, inside the margin box.
    pub fn insert_columns(&mut self, n: usize) {
        if !self.cursor_in_box() {
            return;
        }
        let col = self.cursor.col;
        self.shift_box_columns(col, n, true);
    }

    /// DECDC: deletes `n` columns at the cursor column, inside the margin box.
    pub fn delete_columns(&mut self, n: usize) {
        if !self.cursor_in_box() {
            return;
        }
        let col = self.cursor.col;
        self.shift_box_columns(col, n, false);
    }

    /// Inserts (`right` true: content moves right) or deletes `n` columns at `col` in
    /// every row of the scroll region, up to the right margin.
    fn shift_box_columns(&mut self, col: usize, n: usize, right: bool) {
        let blank = self.erase_cell();
        let end = self.margin_right;
        self.charge_cells((self.scroll_bottom - self.scroll_top) * end.saturating_sub(col));
        for row in self.scroll_top..self.scroll_bottom {
            let r = self.row_mut(row);
            if right {
                r.insert_cells_before(col, end, n, blank);
            } else {
                r.delete_cells_before(col, end, n, blank);
            }
        }
    }

    /// DECBI: back index. At the left margin the box content moves right one column;
    /// elsewhere the cursor moves left.
    pub fn back_index(&mut self) {
        if self.cursor.col == self.margin_left {
            let row = self.cursor.row;
            if row >= self.scroll_top && row < self.scroll_bottom {
                let left = self.margin_left;
                self.shift_box_columns(left, 1, true);
            }
        } else {
            self.move_backward(1);
        }
    }

    /// DECFI: forward index. At the right margin the box content moves left one
    /// column; elsewhere the cursor moves right.
    pub fn forward_index(&mut self) {
        if self.cursor.col + 1 == self.margin_right {
            let row = self.cursor.row;
            if row >= self.scroll_top && row < self.scroll_bottom {
                let left = self.margin_left;
                self.shift_box_columns(left, 1, false);
            }
        } else {
            self.move_forward(1);
        }
    }

    /// Erases the unprotected cells of `start..end` on `row` (all of them while no
    /// protection is chosen: after DECSTR or RIS, xterm's DECSED/DECSEL erase
    /// everything, protected bits or not).
    fn selective_erase_cells(&mut self, row: usize, start: usize, end: usize) {
        self.charge_cells(end.saturating_sub(start));
        let blank = self.erase_cell();
        let keep_protected = self.protection != super::state::Protection::Off;
        let r = self.row_mut(row);
        for col in start..end.min(r.cells.len()) {
            if !(keep_protected && r.cells[col].is_protected()) {
                r.fill(col, col + 1, blank);
            }
        }
    }

    /// DECSEL: EL that keeps protected characters (DECSCA's, and SPA's as in xterm).
    pub fn selective_erase_line(&mut self, mode: u16) {
        self.cursor.pending_wrap = false;
        let (row, col, cols) = (self.cursor.row, self.cursor.col, self.cols);
        let (start, end) = match mode {
            0 => (col, cols),
            1 => (0, col + 1),
            2 => (0, cols),
            _ => return,
        };
        self.selective_erase_cells(row, start, end);
    }

    /// DECSED: ED that keeps protected characters (DECSCA's, and SPA's as in xterm).
    pub fn selective_erase_display(&mut self, mode: u16) {
        self.cursor.pending_wrap = false;
        let (row, rows, cols) = (self.cursor.row, self.rows, self.cols);
        match mode {
            0 => {
                self.selective_erase_line(0);
                for r in row + 1..rows {
                    self.selective_erase_cells(r, 0, cols);
                }
            }
            1 => {
                for r in 0..row {
                    self.selective_erase_cells(r, 0, cols);
                }
                self.selective_erase_line(1);
            }
            2 => {
                for r in 0..rows {
                    self.selective_erase_cells(r, 0, cols);
                }
            }
            _ => {}
        }
    }
}

fn apply_attr(cell: &mut Cell, attr: u16, reverse: bool) {
    let flag = match attr {
        1 | 22 => Some(Flags::BOLD),
        5 | 25 => Some(Flags::BLINK),
        7 | 27 => Some(Flags::INVERSE),
        8 | 28 => Some(Flags::HIDDEN),
        _ => None,
    };
    if reverse {
        match attr {
            4 => {
                let next = if cell.underline() == Underline::None {
                    Underline::Single
                } else {
                    Underline::None
                };
                cell.set_underline(next);
            }
            1 | 5 | 7 | 8 => {
                if let Some(f) = flag {
                    let mut flags = cell.flags();
                    flags.set(f, !flags.contains(f));
                    cell.set_flags(flags);
                }
            }
            _ => {}
        }
        return;
    }
    match attr {
        0 => {
            let mut flags = cell.flags();
            flags.remove(Flags::SGR_MASK);
            cell.set_flags(flags);
            cell.set_underline(Underline::None);
        }
        4 => cell.set_underline(Underline::Single),
        24 => cell.set_underline(Underline::None),
        1 | 5 | 7 | 8 => cell.insert_flags(flag.unwrap_or(Flags::empty())),
        22 | 25 | 27 | 28 => cell.remove_flags(flag.unwrap_or(Flags::empty())),
        _ => {}
    }
}
