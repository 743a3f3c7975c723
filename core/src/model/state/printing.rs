//! Printing: characters written at the cursor, with wrap, insert mode and wide cells.

use super::*;

impl State {
    // ---- printing ----

    pub fn print(&mut self, c: char) {
        let width = if (c as u32) < 0x7f {
            1
        } else {
            match char_width(c) {
                Some(w) => w,
                None => return,
            }
        };
        if self.modes.grapheme_clusters && c as u32 >= 0x7f && self.join_cluster(c) {
            return;
        }
        if width == 0 {
            self.push_combining(c);
            return;
        }
        self.last_printed = Some(c);
        if self.cursor.pending_wrap {
            self.wrap_line();
        }
        let cols = self.right_edge();
        if self.modes.insert && self.cursor.col + width < cols {
            let (row, col, blank) = (self.cursor.row, self.cursor.col, self.erase_cell());
            self.row_mut(row)
                .insert_cells_before(col, cols, width, blank);
        }
        let c = self.charsets.map(c);
        if width == 1 {
            self.write_cell(c, Flags::empty());
        } else {
            if self.cursor.col + 1 >= cols {
                if self.modes.autowrap {
                    self.write_cell(' ', Flags::LEADING_SPACER);
                    self.wrap_line();
                } else {
                    self.cursor.pending_wrap = true;
                    return;
                }
            }
            self.write_cell(c, Flags::WIDE);
            self.cursor.col += 1;
            self.write_cell(' ', Flags::WIDE_SPACER);
        }
        if self.cursor.col + 1 < cols {
            self.cursor.col += 1;
        } else {
            self.cursor.pending_wrap = true;
        }
    }

    /// Prints a run of printable ASCII: a row slice at a time when nothing special is
    /// in effect, else character by character through [`State::print`].
    pub fn print_ascii_run(&mut self, text: &[u8]) {
        if self.plain_printing() {
            self.print_ascii(text);
        } else {
            for &b in text {
                self.print(b as char);
            }
        }
    }

    /// True when text can be written straight into the cells: autowrap on, no insert
    /// mode, no left/right margins, no out-of-line pen attributes, the ASCII charset.
    #[inline]
    pub(in crate::model) fn plain_printing(&self) -> bool {
        !self.modes.insert
            && !self.has_lr_margins()
            && self.modes.autowrap
            && self.pen_extra.is_none()
            && self.charsets.slots[self.charsets.active] == Charset::Ascii
    }

    /// Writes printable ASCII with autowrap on, no insert mode, the ASCII charset and no
    /// out-of-line pen attributes.
    pub(super) fn print_ascii(&mut self, mut bytes: &[u8]) {
        let cols = self.cols;
        let template = self.template;
        while !bytes.is_empty() {
            if self.cursor.pending_wrap {
                self.wrap_line();
            }
            let (row, col) = (self.cursor.row, self.cursor.col);
            let n = bytes.len().min(cols - col);
            let r = self.row_mut(row);
            // A narrow character over the left half of a wide one orphans its spacer:
            // with a spacer after the run, every character takes the careful path.
            let spacer_after =
                col + n < cols && r.cells[col + n].flags().contains(Flags::WIDE_SPACER);
            let free = if spacer_after {
                0
            } else {
                write_ascii(&mut r.cells[col..col + n], &bytes[..n], template)
            };
            if free > 0 {
                self.last_printed = Some(bytes[free - 1] as char);
                if col + free >= cols {
                    self.cursor.col = cols - 1;
                    self.cursor.pending_wrap = true;
                } else {
                    self.cursor.col = col + free;
                }
            }
            // From the first cell that is not free (a wide half or side-table entry in
            // the way), the careful path.
            for &b in &bytes[free..n] {
                self.print(b as char);
            }
            bytes = &bytes[n..];
        }
    }

    /// Writes one cell at the cursor with the pen, fixing up any wide character it
    /// overwrites half of.
    #[inline]
    pub(super) fn write_cell(&mut self, c: char, extra_flags: Flags) {
        let (row, col) = (self.cursor.row, self.cursor.col);
        let mut cell = self.template.with_ch(c);
        cell.insert_flags(extra_flags);
        self.damage.mark(row);
        let grid = if self.modes.alt_screen {
            &mut self.alt
        } else {
            &mut self.primary
        };
        let target = &mut grid.row_mut(row).cells[col];
        if self.pen_extra.is_none() && !target.flags().intersects(BOUND) {
            *target = cell;
            return;
        }
        self.write_cell_slow(cell);
    }

    pub(super) fn write_cell_slow(&mut self, cell: Cell) {
        let (row, col, cols) = (self.cursor.row, self.cursor.col, self.cols);
        let pen_extra = self.pen_extra.take();
        let grid = if self.modes.alt_screen {
            &mut self.alt
        } else {
            &mut self.primary
        };
        let r = grid.row_mut(row);
        let old = r.cells[col].flags();
        if old.intersects(Flags::WIDE.union(Flags::WIDE_SPACER)) {
            if old.contains(Flags::WIDE) && col + 1 < cols {
                r.cells[col + 1].remove_flags(Flags::WIDE_SPACER);
            } else if old.contains(Flags::WIDE_SPACER) && col > 0 {
                let left = &mut r.cells[col - 1];
                left.remove_flags(Flags::WIDE);
                left.set_ch(' ');
                if left.flags().contains(Flags::EXTRA) {
                    r.remove_extra(col - 1);
                }
            }
            if col <= 1 && row > 0 {
                grid.row_mut(row - 1).cells[cols - 1].remove_flags(Flags::LEADING_SPACER);
            }
        }
        grid.row_mut(row).write(col, cell, pen_extra.as_ref());
        self.pen_extra = pen_extra;
    }

    pub(super) fn push_combining(&mut self, c: char) {
        let row = self.cursor.row;
        let mut col = self.cursor.col;
        if !self.cursor.pending_wrap {
            col = col.saturating_sub(1);
        }
        if self.grid().row(row).cells[col]
            .flags()
            .contains(Flags::WIDE_SPACER)
        {
            col = col.saturating_sub(1);
        }
        self.row_mut(row).push_combining(col, c);
    }

    /// REP: repeat the last printed character.
    pub fn repeat_last(&mut self, count: usize) {
        if let Some(c) = self.last_printed {
            self.charge_cells(count.min(u16::MAX as usize));
            for _ in 0..count.min(u16::MAX as usize) {
                self.print(c);
            }
        }
    }

    pub(in crate::model) fn wrap_line(&mut self) {
        if !self.modes.autowrap {
            return;
        }
        let row = self.cursor.row;
        if !self.has_lr_margins() {
            self.row_mut(row).wrapped = true;
        }
        if self.cursor.row + 1 >= self.scroll_bottom {
            self.linefeed();
        } else {
            self.cursor.row += 1;
        }
        self.cursor.col = self.margin_left;
        self.cursor.pending_wrap = false;
    }
}
