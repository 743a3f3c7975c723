//! The text path for UTF-8: decodes the input bytes and classifies each code point's
//! width in one pass, writing cells straight into the row.
//!
//! ```text
//!   bytes ──▶ next_char: printable ASCII, or a valid UTF-8 sequence (checked as
//!             │          `str::from_utf8` checks it) ──▶ code point
//!             ▼
//!           width_code: a two-level table indexed by code point
//!             │
//!             ├─ 1 or 2, free cells, room on the row ──▶ template cell(s) written in place
//!             └─ anything else (combining mark, C1 control, a wide character at the
//!                edge, a wide half or side-table entry in the way) ──▶ State::print
//! ```
//!
//! It stops at a control byte, DEL, ESC, or bytes that are not valid UTF-8, and leaves
//! them to the caller (the ground-state fast path, which hands them to vte).

use super::State;
use super::ground::printable_ascii_len;
use crate::model::cell::{BOUND, Cell, Flags, write_ascii};
use crate::model::grid::{Row, SpareMarks};
use crate::model::width::width_code;

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

/// [`next_char`] at `bytes[i..]`, with the width code of the character (see
/// [`width_code`]; 1 for ASCII without a look-up). Where four bytes are left it reads
/// them as one word and checks the continuation bytes together.
#[inline(always)]
fn next_at(bytes: &[u8], i: usize) -> Option<(u32, usize, u32)> {
    let Some(&word) = bytes.get(i..).and_then(|b| b.first_chunk::<4>()) else {
        let (cp, len) = next_char(bytes.get(i..)?)?;
        let code = if cp < 0x80 { 1 } else { width_code(cp) };
        return Some((cp, len, code));
    };
    let w = u32::from_le_bytes(word);
    let b0 = w & 0xff;
    let (cp, len) = if b0 < 0x80 {
        if !(0x20..0x7f).contains(&b0) {
            return None;
        }
        return Some((b0, 1, 1));
    } else if b0 < 0xe0 {
        if b0 < 0xc2 || w & 0xc000 != 0x8000 {
            return None;
        }
        ((b0 & 0x1f) << 6 | (w >> 8) & 0x3f, 2)
    } else if b0 < 0xf0 {
        let cp = (b0 & 0x0f) << 12 | (w >> 2) & 0xfc0 | (w >> 16) & 0x3f;
        // Overlong forms (under U+0800) and surrogates (U+D800..U+DFFF) are not valid
        // UTF-8: `cp ^ 0xd800` maps each range onto the other, so the smaller of the two
        // is under U+0800 exactly for either (one compare instead of two).
        if w & 0xc0_c000 != 0x80_8000 || cp.min(cp ^ 0xd800) < 0x800 {
            return None;
        }
        (cp, 3)
    } else {
        let cp = (b0 & 0x07) << 18 | (w << 4) & 0x3_f000 | (w >> 10) & 0xfc0 | (w >> 24) & 0x3f;
        if b0 > 0xf4 || w & 0xc0c0_c000 != 0x8080_8000 || !(0x1_0000..=0x10_ffff).contains(&cp) {
            return None;
        }
        (cp, 4)
    };
    Some((cp, len, width_code(cp)))
}

/// Fewest printable ASCII characters after a space that `write_run` writes as one run.
const ASCII_RUN_MIN: usize = 3;

/// Writes the run of printable ASCII at the start of `bytes` into `cells` ([`write_ascii`]);
/// returns how many. Out of line: the text loop's registers stay its own.
#[inline(never)]
fn write_ascii_word(cells: &mut [Cell], bytes: &[u8], pen: Cell) -> usize {
    write_ascii(cells, &bytes[..printable_ascii_len(bytes)], pen)
}

/// The cells the text path writes: the pen's cell for a narrow character, and its
/// wide and spacer forms for a wide one.
struct Pens {
    narrow: Cell,
    wide: Cell,
    spacer: Cell,
}

impl Pens {
    fn new(template: Cell) -> Pens {
        let mut wide = template;
        wide.insert_flags(Flags::WIDE);
        let mut spacer = template.with_ch(' ');
        spacer.insert_flags(Flags::WIDE_SPACER);
        Pens {
            narrow: template,
            wide,
            spacer,
        }
    }
}

/// Where a run of text is written: the row, and the mark lists kept from rows that
/// scrolled away, for the marks joined in the run.
struct Dest<'a> {
    row: &'a mut Row,
    spare_marks: &'a mut SpareMarks,
}

/// Writes the characters of `bytes` from `i` (the first, `first`, already decoded:
/// code point, length, width code) into `dest.row` from column `start`, while each is
/// narrow or wide and its cells are free (no wide half, no side-table entry) and there
/// is room before the edge (`cols`), or is a zero-width character after one written
/// here (joined to it); stops at the first character it cannot write, or the end of
/// the text. Returns the column reached, the offset reached and, when the character there
/// is for `State::print` (not merely one past a full row, which the caller wraps and
/// decodes again), its code point and length. Kept out of line so that its loop has the
/// registers to itself.
#[inline(never)]
fn write_run(
    dest: Dest<'_>,
    start: usize,
    cols: usize,
    bytes: &[u8],
    mut i: usize,
    first: (u32, usize, u32),
    pens: &Pens,
) -> (usize, usize, Option<(u32, usize)>) {
    let Dest { row, spare_marks } = dest;
    let (mut cp, mut len, mut code) = first;
    let mut col = start;
    // The cells up to the edge as a slice held across the loop (taken again after a
    // mark is joined), so that their address and length stay in registers and the
    // bounds check of each write is also the check for the edge.
    let edge = cols.min(row.cells.len());
    let mut cells: &mut [Cell] = &mut row.cells[..edge];
    loop {
        if code == 1
            && let Some(cell) = cells.get_mut(col)
            && !cell.flags().intersects(BOUND)
        {
            *cell = pens.narrow.with_code_point(cp);
            col += 1;
            if cp == u32::from(b' ')
                && bytes
                    .get(i + 1..i + 1 + ASCII_RUN_MIN)
                    .is_some_and(|next| next.iter().all(|b| (0x20..0x7f).contains(b)))
            {
                // A word of printable ASCII after a space (text after `…` or `·`) in one
                // loop, up to the edge or the first cell that is not free (a wide half,
                // a side-table entry), where the steps below take over. Other characters
                // look no further: between words of another script a letter or two of
                // ASCII is cheaper a character at a time.
                let free = write_ascii_word(&mut cells[col..], &bytes[i + 1..], pens.narrow);
                col += free;
                i += free;
            }
        } else if code == 2
            && let Some([a, b]) = cells
                .get_mut(col..col + 2)
                .and_then(|c| c.first_chunk_mut::<2>())
            && !a.flags().union(b.flags()).intersects(BOUND)
        {
            *a = pens.wide.with_code_point(cp);
            *b = pens.spacer;
            col += 2;
        } else if code == 0 && col > start {
            // A combining mark on the character just written (as `print` puts it: on
            // the cell before the cursor, or before its spacer).
            let at = col - 1 - usize::from(cells[col - 1].flags().contains(Flags::WIDE_SPACER));
            row.push_combining_with(at, char::from_u32(cp).unwrap_or(' '), spare_marks);
            cells = &mut row.cells[..edge];
        } else if col >= cols && col > start && code != 0 {
            // The row is full: the caller wraps and starts again at this character.
            return (col, i, None);
        } else {
            return (col, i, Some((cp, len)));
        }
        i += len;
        match next_at(bytes, i) {
            Some((c, l, w)) => (cp, len, code) = (c, l, w),
            None => return (col, i, None),
        }
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
        let pens = Pens::new(self.template);
        let cols = self.cols;
        let mut i = 0;
        while let Some((first, first_len, first_code)) = next_at(bytes, i) {
            // Only a character that takes cells may wrap a pending line (as in `print`).
            if !plain || !matches!(first_code, 1 | 2) {
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
            let (r, spare_marks) = grid.row_and_spare_marks_mut(row);
            let (col, next, slow) = write_run(
                Dest {
                    row: r,
                    spare_marks,
                },
                start,
                cols,
                bytes,
                i,
                (first, first_len, first_code),
                &pens,
            );
            i = next;
            if col > start {
                // The last character written: the cell before `col`, or before its
                // spacer.
                let at =
                    col - 1 - usize::from(r.cells[col - 1].flags().contains(Flags::WIDE_SPACER));
                self.last_printed = Some(r.cells[at].ch());
                self.damage.mark(row);
                if col >= cols {
                    self.cursor.col = cols - 1;
                    self.cursor.pending_wrap = true;
                } else {
                    self.cursor.col = col;
                }
            }
            if let Some((cp, len)) = slow {
                self.print(char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER));
                i += len;
            }
        }
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time decoder takes exactly what the byte-at-a-time one takes, for
    /// every first and second byte and a spread of third and fourth bytes (boundaries of
    /// the continuation range, ASCII, controls), and with the sequence cut short.
    #[test]
    fn next_at_decodes_as_next_char_does() {
        let edges = [
            0x00, 0x1b, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xe0,
        ];
        for b0 in 0..=255u8 {
            for b1 in 0..=255u8 {
                for &b2 in &edges {
                    for &b3 in &edges {
                        let bytes = [b0, b1, b2, b3];
                        for len in 1..=4 {
                            let bytes = &bytes[..len];
                            let want = next_char(bytes).map(|(cp, n)| {
                                let code = if cp < 0x80 { 1 } else { width_code(cp) };
                                (cp, n, code)
                            });
                            assert_eq!(next_at(bytes, 0), want, "{bytes:02x?}");
                        }
                    }
                }
            }
        }
        assert_eq!(next_at(b"abc", 3), None);
    }

    /// What the text path leaves at the right edge (a row filled to the last column,
    /// then a narrow, wide, zero-width, C1 or control character; a wide character that
    /// does not fit; a full row of wide characters, then a mark) equals what `print`
    /// alone leaves, for every width from one to nine columns: screen, history and
    /// cursor. `write_run` stops one past a full row without taking the character there
    /// and the caller wraps and decodes it again; a mark there joins the last cell.
    #[test]
    fn the_text_path_at_the_right_edge_matches_print() {
        use crate::model::{TermConfig, TermSize, Terminal};
        let inputs = [
            "abcdefghijklmnopq",
            "abcd日本語xyz日本",
            "日本語中文字符한국어",
            "abc日e\u{301}\u{301}fgh",
            "日本語\u{301}日本語\u{301}x",
            "ab\u{85}cdefgh日\u{9b}本",
            "abcdefgh\r\nabcdefgh\ty",
            "😀🚀👍🏽Ωμέγα naïve─│✓→ｆｕｌｌ",
            "e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}",
            // Runs of ASCII (a word after a symbol and a space, a line's start) written
            // again over wide characters and marks after a carriage return.
            "日本語e\u{301}日本語\r· abcdefgh",
            "… word run\r· esc to interrupt)\r日本 abc",
            "日本語日本語\r· abc",
            "e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}\r… xyz",
            "xy日本語\rabcde",
        ];
        for text in inputs {
            // Long enough to scroll lines into the history on the narrow screens.
            let bytes = text.repeat(3).into_bytes();
            for cols in 1..=9 {
                let size = TermSize::new(cols, 3);
                let mut print_only = Terminal::new(size, TermConfig::default());
                print_only.set_fast_path(false);
                print_only.advance(&bytes);
                let mut fast = Terminal::new(size, TermConfig::default());
                fast.advance(&bytes);
                let what = format!("{text:?} in {cols} columns");
                assert_eq!(print_only.dump(), fast.dump(), "{what}");
                assert_eq!(print_only.cursor(), fast.cursor(), "{what}");
                let history = |t: &Terminal| t.scrollback().iter().collect::<Vec<_>>();
                assert_eq!(history(&print_only), history(&fast), "{what}");
            }
        }
    }
}
