//! Display width of a character: the common scripts from a few ranges, everything else
//! from `unicode-width` (the ranges are checked against it for every character).

use unicode_width::UnicodeWidthChar;

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
    // ASCII first, on its own: the compiler lowers the ranges below to a search tree.
    if (0x20..=0x7e).contains(&cp) {
        return Some(1);
    }
    match cp {
        // Latin-1 letters and symbols, Latin Extended, IPA (the soft hyphen, U+00AD, is
        // zero width).
        0xa0..=0xac | 0xae..=0x2ff => Some(1),
        // Combining diacritical marks.
        0x300..=0x36f => Some(0),
        // Greek and Cyrillic letters (not the Cyrillic combining marks U+0483..U+0489).
        0x370..=0x482 | 0x48a..=0x52f => Some(1),
        // Arrows; box drawing and block elements; the dingbats from ✌ to ✧ (check marks,
        // crosses, stars; ✅ ✊ ✋ ✨ around them are wide).
        0x2190..=0x21ff | 0x2500..=0x259f | 0x270c..=0x2727 => Some(1),
        // CJK unified ideographs, Hangul syllables, fullwidth forms, emoticons and the
        // skin-tone modifiers.
        0x4e00..=0x9fff | 0xac00..=0xd7a3 | 0xff01..=0xff60 | 0x1f600..=0x1f64f => Some(2),
        0x1f3fb..=0x1f3ff => Some(2),
        // Emoji presentation: animals, people and objects (not 🐿 U+1F43F, 👁 U+1F441 or
        // 📽 U+1F4FD), transport and map symbols up to 🛅.
        0x1f400..=0x1f43e | 0x1f442..=0x1f4fc | 0x1f680..=0x1f6c5 => Some(2),
        _ => char::from_u32(cp).and_then(|c| c.width()),
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
