//! Decoding a line of the scrollback's format (`format.rs`) back into a row; damaged
//! bytes decode to some row bounded by their length.

use crate::model::cell::{Cell, Color, Flags};
use crate::model::row::{CellExtra, Row};

use super::format::{CharWidth, SPACER, WIDE};

/// A cursor over one encoded line.
pub(super) struct Reader<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
}

impl Reader<'_> {
    pub(super) fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }
    pub(super) fn byte(&mut self) -> u8 {
        let v = self.bytes.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        v
    }
    pub(super) fn varint(&mut self) -> u64 {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte();
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                break;
            }
        }
        v
    }
    pub(super) fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }
    pub(super) fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }
    /// A character stored as `width` says.
    pub(super) fn char_as(&mut self, width: CharWidth) -> char {
        let bytes = match width {
            CharWidth::Utf8 => return self.char(),
            CharWidth::Two => [self.byte(), self.byte(), 0, 0],
            CharWidth::Three => [self.byte(), self.byte(), self.byte(), 0],
        };
        char::from_u32(u32::from_le_bytes(bytes)).unwrap_or(' ')
    }
    pub(super) fn char(&mut self) -> char {
        let first = self.byte();
        let len = match first {
            0x00..=0x7f => return first as char,
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            _ => 4,
        };
        let mut buf = [first, 0, 0, 0];
        for b in buf.iter_mut().take(len).skip(1) {
            *b = self.byte();
        }
        std::str::from_utf8(&buf[..len])
            .ok()
            .and_then(|s| s.chars().next())
            .unwrap_or(' ')
    }
}

fn decode_color(r: &mut Reader<'_>) -> Option<Color> {
    if r.byte() == 0 {
        return None;
    }
    let fg = r.u32();
    Some(Cell::from_style_bits(0, fg, 0, ' ').fg())
}

pub(super) fn decode(r: &mut Reader<'_>, wrapped: bool) -> Row {
    // Every count is bounded by the bytes left, so damaged bytes cannot make decoding
    // allocate or loop without limit (each cell costs at least one byte of characters,
    // each extra at least three).
    let head = r.varint();
    let len = ((head >> 1) as usize).min(r.remaining());
    let (units, width) = if head & 1 == 1 {
        let v = r.varint();
        (((v >> 2) as usize).min(len), CharWidth::from_bits(v))
    } else {
        (len, CharWidth::Utf8)
    };
    let pairs = if head & 1 == 1 {
        let n = len.div_ceil(8).min(r.remaining());
        let all = r.bytes;
        let at = r.pos.min(all.len());
        let end = (at + n).min(all.len());
        r.pos += n;
        &all[at..end]
    } else {
        &[]
    };
    let is_pair = |cell: usize| {
        pairs
            .get(cell / 8)
            .is_some_and(|b| b >> (cell % 8) & 1 == 1)
    };
    // (units, style) runs.
    let mut styles: Vec<(usize, (u16, u32, u32))> = Vec::new();
    let mut covered = 0;
    while covered < units {
        let tag = r.byte();
        let (n, style) = if tag < 0x80 {
            (tag as usize + 1, Cell::BLANK.style_bits())
        } else {
            let n = r.varint() as usize;
            (n, (r.u16(), r.u32(), r.u32()))
        };
        let n = n.min(units - covered);
        styles.push((n, style));
        covered += n.max(1);
    }
    let mut cells = Vec::with_capacity(len);
    for (n, (flags, fg, bg)) in styles {
        for _ in 0..n {
            if cells.len() >= len {
                break;
            }
            let c = r.char_as(width);
            if is_pair(cells.len()) && cells.len() + 2 <= len {
                cells.push(Cell::from_style_bits(flags | WIDE, fg, bg, c));
                cells.push(Cell::from_style_bits(flags | SPACER, fg, bg, ' '));
            } else {
                cells.push(Cell::from_style_bits(flags, fg, bg, c));
            }
        }
    }
    let n_extras = (r.varint() as usize).min(r.remaining());
    let mut extras = Vec::with_capacity(n_extras);
    for _ in 0..n_extras {
        let col = r.varint() as u16;
        let n = (r.varint() as usize).min(r.remaining());
        let combining = (0..n).map(|_| r.char()).collect();
        let hyperlink = if r.byte() == 1 { Some(r.u32()) } else { None };
        let underline_color = decode_color(r);
        extras.push((
            col,
            CellExtra {
                combining,
                hyperlink,
                underline_color,
            },
        ));
    }
    for (col, _) in &extras {
        if let Some(cell) = cells.get_mut(*col as usize) {
            cell.insert_flags(Flags::EXTRA);
        }
    }
    Row::from_parts(cells, extras, wrapped)
}

/// Decodes one line from bytes in the scrollback's line encoding. Scrollback only ever
/// decodes what it encoded; this entry exists so that fuzzing can check that damaged
/// bytes decode to *some* row, bounded by their length, without panicking.
pub fn decode_line(bytes: &[u8], wrapped: bool) -> Row {
    decode(&mut Reader { bytes, pos: 0 }, wrapped)
}
