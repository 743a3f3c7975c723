//! The text path for UTF-8: decodes the input bytes and classifies each code point's
//! width in one pass, writing cells straight into the row.
//!
//! ```text
//!   bytes ──▶ next_char: printable ASCII, or a valid UTF-8 sequence (checked as
//!             │          `str::from_utf8` checks it) ──▶ code point
//!             ▼
//!           code_point_width: the common scripts by range, the rest from the table
//!             │
//!             ├─ 1 or 2, free cells, room on the row ──▶ template cell(s) written in place
//!             └─ anything else (combining mark, C1 control, a wide character at the
//!                edge, a wide half or side-table entry in the way) ──▶ State::print
//! ```
//!
//! It stops at a control byte, DEL, ESC, or bytes that are not valid UTF-8, and leaves
//! them to the caller (the ground-state fast path, which hands them to vte).

use super::State;
use crate::model::cell::{Cell, Flags};
use crate::model::width::code_point_width;

/// The printable character at the start of `bytes` (ASCII `0x20..=0x7e`, or a complete,
/// valid UTF-8 sequence) as a code point and its length in bytes; `None` for a control,
/// DEL, an invalid or cut sequence, or no bytes.
#[inline(always)]
fn next_char(bytes: &[u8]) -> Option<(u32, usize)> {
    let b0 = u32::from(*bytes.first()?);
    let cont = |i: usize| {
        bytes
            .get(i)
            .map(|&b| u32::from(b))
            .filter(|b| b & 0xc0 == 0x80)
            .map(|b| b & 0x3f)
    };
    match b0 {
        0x20..=0x7e => Some((b0, 1)),
        0xc2..=0xdf => Some(((b0 & 0x1f) << 6 | cont(1)?, 2)),
        0xe0..=0xef => {
            let cp = (b0 & 0x0f) << 12 | cont(1)? << 6 | cont(2)?;
            // Overlong forms and surrogates are not valid UTF-8.
            (cp >= 0x800 && !(0xd800..=0xdfff).contains(&cp)).then_some((cp, 3))
        }
        0xf0..=0xf4 => {
            let cp = (b0 & 0x07) << 18 | cont(1)? << 12 | cont(2)? << 6 | cont(3)?;
            (0x1_0000..=0x10_ffff).contains(&cp).then_some((cp, 4))
        }
        _ => None,
    }
}

impl State {
    /// Prints the printable text at the start of `bytes` (ASCII and valid UTF-8, up to a
    /// control, DEL, ESC or invalid UTF-8); returns how many bytes it took. While
    /// [`State::plain_printing`] holds, narrow and wide characters are written straight
    /// into the row; anything else (combining marks, a wide character at the edge,
    /// controls, and every character with grapheme clustering, mode 2027, on) goes
    /// through [`State::print`].
    pub fn print_utf8(&mut self, bytes: &[u8]) -> usize {
        let plain = self.plain_printing() && !self.modes.grapheme_clusters;
        let special = Flags::WIDE.union(Flags::WIDE_SPACER).union(Flags::EXTRA);
        let template = self.template;
        let cols = self.cols;
        let mut i = 0;
        while let Some((first, first_len)) = next_char(&bytes[i..]) {
            // Looked up only where the fast path may take it (`print` looks it up itself).
            let width = if plain { code_point_width(first) } else { None };
            // Only a character that takes cells may wrap a pending line (as in `print`).
            if !matches!(width, Some(1 | 2)) {
                self.print(char::from_u32(first).unwrap_or(char::REPLACEMENT_CHARACTER));
                i += first_len;
                continue;
            }
            if self.cursor.pending_wrap {
                self.wrap_line();
            }
            let (row, start) = (self.cursor.row, self.cursor.col);
            let grid = if self.modes.alt_screen {
                &mut self.alt
            } else {
                &mut self.primary
            };
            let cells = &mut grid.row_mut(row).cells;
            let (mut cp, mut len, mut width) = (first, first_len, width);
            let mut col = start;
            let mut last = None;
            let mut slow = false;
            loop {
                let free = |cells: &[Cell], i: usize| {
                    cells.get(i).is_some_and(|x| !x.flags().intersects(special))
                };
                match width {
                    Some(1) if free(cells, col) => {
                        cells[col] = template.with_code_point(cp);
                        col += 1;
                    }
                    Some(2) if free(cells, col) && free(cells, col + 1) => {
                        let mut wide = template.with_code_point(cp);
                        wide.insert_flags(Flags::WIDE);
                        let mut spacer = template.with_ch(' ');
                        spacer.insert_flags(Flags::WIDE_SPACER);
                        cells[col] = wide;
                        cells[col + 1] = spacer;
                        col += 2;
                    }
                    _ => {
                        slow = true;
                        break;
                    }
                }
                last = Some(cp);
                i += len;
                if col >= cols {
                    break;
                }
                match next_char(&bytes[i..]) {
                    Some((c, l)) => {
                        (cp, len, width) = (c, l, code_point_width(c));
                    }
                    None => break,
                }
            }
            if col > start {
                self.damage.mark(row);
                if col >= cols {
                    self.cursor.col = cols - 1;
                    self.cursor.pending_wrap = true;
                } else {
                    self.cursor.col = col;
                }
            }
            if let Some(cp) = last {
                self.last_printed = char::from_u32(cp);
            }
            if slow {
                self.print(char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER));
                i += len;
            }
        }
        i
    }
}
