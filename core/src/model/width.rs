//! Display width of a character: the common scripts from a few ranges, everything else
//! from `unicode-width` (the ranges are checked against it for every character).

use unicode_width::UnicodeWidthChar;

/// Columns `c` takes: 0 for combining marks, 1 or 2, `None` for controls. Equal to
/// `UnicodeWidthChar::width` for every `char`.
#[inline]
pub fn char_width(c: char) -> Option<usize> {
    match c as u32 {
        0x20..=0x7e => Some(1),
        // Latin-1 letters and symbols, Latin Extended, IPA (the soft hyphen, U+00AD, is
        // zero width).
        0xa0..=0xac | 0xae..=0x2ff => Some(1),
        // Greek and Cyrillic letters (not the Cyrillic combining marks U+0483..U+0489).
        0x370..=0x482 | 0x48a..=0x52f => Some(1),
        // Arrows; box drawing and block elements.
        0x2190..=0x21ff | 0x2500..=0x259f => Some(1),
        // CJK unified ideographs, Hangul syllables, fullwidth forms, emoticons and the
        // skin-tone modifiers.
        0x4e00..=0x9fff | 0xac00..=0xd7a3 | 0xff01..=0xff60 | 0x1f600..=0x1f64f => Some(2),
        0x1f3fb..=0x1f3ff => Some(2),
        _ => c.width(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_ranges_agree_with_unicode_width_for_every_char() {
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            assert_eq!(char_width(c), c.width(), "U+{:04X}", c as u32);
        }
    }
}
