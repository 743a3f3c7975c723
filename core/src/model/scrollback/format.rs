//! The scrollback's line format, shared by `encode.rs` and `decode.rs`.
//!
//! A line is encoded as: varint `cells << 1 | has_pairs`; with pairs, varint `units << 2
//! | char_width` and one bit per cell (set where a wide pair starts); style runs over units
//! (a byte `0..=0x7f` = that many+1 default-style units; `0x80` = varint count, flags u16,
//! fg u32, bg u32); one character per unit, as UTF-8 (`char_width` 0, and always in a
//! line without pairs) or as its code point in `char_width` (2 or 3) little-endian bytes;
//! varint extra count and the extras. A unit is a cell,
//! or a wide pair: a `WIDE` cell and its `WIDE_SPACER` space, alike apart from those two
//! flags, stored as the wide cell's character and style without the layout flags. A
//! line of CJK, emoji and narrow text in one style is thus one style run, one character
//! per unit and a bit per unit; its characters are stored at a fixed width (two bytes
//! each when all are in the BMP, else three), which the one-style loop writes without
//! a branch per character (UTF-8 would take a third of its time). Plain text costs about
//! one byte per character, and
//! pushing a line allocates nothing once the blocks exist. Encoding is one pass over the
//! cells (a vectorisable check first finds the line in one style, ASCII or not, with
//! perhaps a last cell of its own, which is then written without per-cell checks).

use crate::model::cell::Flags;

pub(super) const TAG_STYLED: u8 = 0x80;
pub(super) const WIDE_LAYOUT: u16 = Flags::WIDE.union(Flags::WIDE_SPACER).bits();
pub(super) const WIDE: u16 = Flags::WIDE.bits();
pub(super) const SPACER: u16 = Flags::WIDE_SPACER.bits();

/// Flags a style run does not store: the wide layout (in the pair bits) and `EXTRA` (set
/// again on decoding for every cell with an extra).
pub(super) const NOT_STYLE: u16 = WIDE_LAYOUT | Flags::EXTRA.bits();

/// How a line with wide pairs stores its characters (the low two bits of its unit
/// count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CharWidth {
    /// UTF-8.
    Utf8 = 0,
    /// Two little-endian bytes of the code point (every character in the BMP).
    Two = 2,
    /// Three little-endian bytes of the code point.
    Three = 3,
}

impl CharWidth {
    pub(super) fn from_bits(bits: u64) -> CharWidth {
        match bits & 3 {
            2 => CharWidth::Two,
            3 => CharWidth::Three,
            _ => CharWidth::Utf8,
        }
    }
}
