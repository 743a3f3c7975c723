//! Display width of a character, looked up by code point in a two-level table that the
//! build script generates from `unicode-width` (checked equal to it for every
//! character below). The few characters the table codes as "other" (controls, and the
//! rare width-3 sign U+17D8) are asked of `unicode-width` itself.

use unicode_width::UnicodeWidthChar;

mod table {
    include!(concat!(env!("OUT_DIR"), "/width_table.rs"));
}

/// The table's code for a code point: 0, 1 or 2 columns, 3 for anything else (a
/// control, a surrogate, past U+10FFFF, or a width the code has no room for: see
/// [`code_point_width`]).
#[inline(always)]
pub fn width_code(cp: u32) -> u32 {
    let Some(&block) = table::WIDTH_BLOCKS.get((cp >> 8) as usize) else {
        return 3;
    };
    // The number of blocks is a power of two (the build script pads it), so the mask
    // keeps every block and spares a bounds check.
    const BLOCKS: usize = table::WIDTH_CODES.len();
    const _: () = assert!(BLOCKS.is_power_of_two());
    u32::from(table::WIDTH_CODES[usize::from(block) & (BLOCKS - 1)][(cp & 0xff) as usize])
}

/// Columns `c` takes: 0 for combining marks, 1 or 2, `None` for controls. Equal to
/// `UnicodeWidthChar::width` for every `char`.
#[inline]
pub fn char_width(c: char) -> Option<usize> {
    code_point_width(c as u32)
}

/// [`char_width`] of a code point that is a `char` (the text path decodes UTF-8 itself
/// and classifies the code point without making a `char` first); `None` for anything
/// else.
#[inline]
pub fn code_point_width(cp: u32) -> Option<usize> {
    match width_code(cp) {
        3 => char::from_u32(cp).and_then(|c| c.width()),
        w => Some(w as usize),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_agrees_with_unicode_width_for_every_char() {
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            assert_eq!(char_width(c), c.width(), "U+{:04X}", c as u32);
        }
        for cp in (0xd800..=0xdfff).chain([0x11_0000, 0x20_0000, u32::MAX]) {
            assert_eq!(code_point_width(cp), None, "{cp:#x}");
        }
    }
}
