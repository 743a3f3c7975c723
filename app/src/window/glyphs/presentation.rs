//! Which characters are drawn as colour emoji: Unicode's presentation rules
//! (`Emoji_Presentation`, the variation selectors VS15 and VS16, keycaps), with no font.
//! A leaf: the emoji font (`emoji.rs`) and the system fonts' fallback
//! (`system_fonts.rs`) both ask it.

use unicode_properties::{EmojiStatus, UnicodeEmoji as _};

/// Whether a cell holding `c` (with the combining marks and variation selectors in
/// `marks`) asks for a colour emoji: the character is presented as emoji by default
/// (`Emoji_Presentation=Yes`) or is an emoji followed by VS16 (U+FE0F). VS15 (U+FE0E)
/// asks for text. ASCII digits, `#` and `*` stay text unless they are a keycap (VS16
/// and U+20E3 after them).
pub fn wants_colour(c: char, marks: &[char]) -> bool {
    if marks.contains(&'\u{FE0E}') {
        return false;
    }
    if c.is_ascii() {
        return marks.contains(&'\u{FE0F}') && marks.contains(&'\u{20E3}');
    }
    if marks.contains(&'\u{FE0F}') && c.is_emoji_char() {
        return true;
    }
    emoji_presentation(c)
}

/// Whether `c` is presented as an emoji without a variation selector
/// (`Emoji_Presentation=Yes`).
pub fn emoji_presentation(c: char) -> bool {
    matches!(
        c.emoji_status(),
        EmojiStatus::EmojiPresentation
            | EmojiStatus::EmojiPresentationAndModifierBase
            | EmojiStatus::EmojiPresentationAndEmojiComponent
            | EmojiStatus::EmojiPresentationAndModifierAndEmojiComponent
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emoji_presentation_and_vs16_ask_for_colour_vs15_and_ascii_do_not() {
        assert!(wants_colour('😀', &[]));
        assert!(wants_colour('🚀', &[]));
        assert!(wants_colour('⌚', &[]));
        // Text by default; colour with VS16; text again with VS15.
        assert!(!wants_colour('❤', &[]));
        assert!(wants_colour('❤', &['\u{FE0F}']));
        assert!(!wants_colour('😀', &['\u{FE0E}']));
        assert!(wants_colour('1', &['\u{FE0F}', '\u{20E3}']), "a keycap");
        assert!(!wants_colour('1', &['\u{FE0F}']));
        assert!(!wants_colour('a', &[]));
        assert!(!wants_colour('日', &[]));
        assert!(!wants_colour('─', &[]));
        assert!(!wants_colour('\u{23FA}', &[]), "⏺ is text by default");
        assert!(wants_colour('\u{23FA}', &['\u{FE0F}']));
    }
}
