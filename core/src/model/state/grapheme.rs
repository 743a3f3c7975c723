//! Grapheme clusters (mode 2027): a code point that continues the cluster in the cell
//! before the cursor joins that cell instead of taking cells of its own.
//!
//! With the mode off (the default) each code point takes its wcwidth, as programs that
//! count columns with `wcwidth(3)` expect; zero-width code points still join the cell
//! before them. With it on, a ZWJ sequence (👨‍👩‍👧), a flag (🇫🇷), a keycap (1️⃣) or a
//! skin-toned emoji (👍🏽) is one cell of the cluster's width:
//!
//! - the width of its first code point,
//! - 2 when it holds VS16 (U+FE0F) after an emoji, or is a pair of regional indicators.
//!
//! The cluster's tail lives in the row's side table like combining marks, capped at
//! [`MAX_COMBINING`](crate::model::grid::MAX_COMBINING) code points (the rest are dropped).

use unicode_properties::UnicodeEmoji as _;
use unicode_segmentation::GraphemeCursor;

use super::State;
use crate::model::cell::Flags;
use crate::model::grid::MAX_COMBINING;

const VS16: char = '\u{FE0F}';

fn is_regional_indicator(c: char) -> bool {
    ('\u{1F1E6}'..='\u{1F1FF}').contains(&c)
}

/// Whether `c` continues the cluster `base` + `tail` (no grapheme boundary before it,
/// per UAX #29 extended grapheme clusters).
pub fn continues(base: char, tail: &[char], c: char) -> bool {
    // Enough for the capped cluster and `c`, UTF-8 encoded: no allocation.
    let mut buf = [0u8; 4 * (MAX_COMBINING + 2)];
    let mut len = 0;
    for ch in std::iter::once(base).chain(tail.iter().copied()) {
        len += ch.encode_utf8(&mut buf[len..]).len();
    }
    let before = len;
    len += c.encode_utf8(&mut buf[len..]).len();
    let Ok(text) = std::str::from_utf8(&buf[..len]) else {
        return false;
    };
    let mut cursor = GraphemeCursor::new(before, len, true);
    matches!(cursor.is_boundary(text, 0), Ok(false))
}

/// Whether the cluster `base` + `tail` is two cells wide under mode 2027 although its
/// first code point is one: emoji presentation by VS16, or a regional-indicator pair.
pub fn widens(base: char, tail: &[char]) -> bool {
    (tail.contains(&VS16) && base.is_emoji_char())
        || (is_regional_indicator(base) && tail.iter().copied().any(is_regional_indicator))
}

impl State {
    /// Mode 2027: joins `c` to the cluster in the cell before the cursor when it
    /// continues it (widening the cell when the cluster asks for two). False when `c`
    /// starts a cluster of its own.
    pub(in crate::model) fn join_cluster(&mut self, c: char) -> bool {
        let row = self.cursor.row;
        let mut col = self.cursor.col;
        if !self.cursor.pending_wrap {
            let Some(before) = col.checked_sub(1) else {
                return false;
            };
            col = before;
        }
        let r = self.grid().row(row);
        if r.cells[col].flags().contains(Flags::WIDE_SPACER) {
            let Some(before) = col.checked_sub(1) else {
                return false;
            };
            col = before;
        }
        let cell = r.cells[col];
        let tail: &[char] = r.extra(col).map_or(&[], |e| &e.combining);
        if !continues(cell.ch(), tail, c) {
            return false;
        }
        let narrow = !cell.flags().contains(Flags::WIDE);
        let widen = {
            let r = self.row_mut(row);
            r.push_combining(col, c);
            narrow && widens(cell.ch(), r.extra(col).map_or(&[][..], |e| &e.combining))
        };
        if widen && !self.cursor.pending_wrap {
            // The cursor is on the cell after the cluster: it becomes the spacer.
            let cols = self.right_edge();
            self.row_mut(row).cells[col].insert_flags(Flags::WIDE);
            self.write_cell(' ', Flags::WIDE_SPACER);
            if self.cursor.col + 1 < cols {
                self.cursor.col += 1;
            } else {
                self.cursor.pending_wrap = true;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emoji_sequences_continue_and_new_characters_do_not() {
        // ZWJ then a pictograph; a skin tone; VS16 and the keycap mark.
        assert!(continues('👨', &['\u{200D}'], '👩'));
        assert!(continues('👍', &[], '\u{1F3FD}'));
        assert!(continues('1', &[VS16], '\u{20E3}'));
        // Regional indicators pair up, two by two.
        assert!(continues('🇫', &[], '🇷'));
        assert!(!continues('🇫', &['🇷'], '🇩'));
        // Unrelated characters start their own cluster.
        assert!(!continues('a', &[], 'b'));
        assert!(!continues('日', &[], '本'));
        assert!(!continues('👨', &[], '👩'));
    }

    #[test]
    fn vs16_and_flags_widen_narrow_bases() {
        assert!(widens('1', &[VS16, '\u{20E3}']));
        assert!(widens('❤', &[VS16]));
        assert!(widens('🇫', &['🇷']));
        assert!(!widens('a', &['\u{301}']));
        assert!(!widens('❤', &['\u{FE0E}']));
    }
}
