//! The screen rule's reading: whether the rows at the cursor (on the alternate
//! screen, its lowest rows) ask the user something. The phrases and where they come
//! from: the module's comment in `mod.rs`.

use std::sync::OnceLock;

use super::{ALT_SCREEN_ROWS, QUESTION_ROWS};

fn question_pattern() -> &'static regex::Regex {
    static PATTERN: OnceLock<regex::Regex> = OnceLock::new();
    PATTERN.get_or_init(|| {
        // ASCII classes and case folding: the phrases are English, and Unicode word
        // boundaries would push the search off the fast automaton (35 µs a scan of 12
        // ASCII rows, 350 µs of CJK ones; 10 µs both now).
        regex::RegexBuilder::new(concat!(
            r"(?i)\[y/n\]|\(y/n\)|\(y\)es/\(n\)o|\byes \(y\)|",
            r"do you want to|would you like to|allow (this|execution|command)|",
            r"apply this change|needs your (permission|input|attention)|",
            r"waiting for (your|user) (input|confirmation|approval)|",
            r"press enter to continue|tell \w+ what to do differently",
        ))
        .unicode(false)
        .build()
        .expect("the question pattern is a valid constant")
    })
}

/// Whether these lines (the rows at and above the cursor) ask the user something.
pub fn asks_question<'a>(lines: impl IntoIterator<Item = &'a str>) -> bool {
    let pattern = question_pattern();
    lines.into_iter().any(|l| pattern.is_match(l))
}

/// The line at or above the terminal's cursor that asks the user a question, if any
/// (the lowest one). Only rows printed since the running command started (OSC 133 C)
/// are read, when the shell marks its commands.
pub fn screen_asks_question(term: &crate::model::Terminal) -> Option<String> {
    let grid = term.grid();
    let bottom = grid.rows().saturating_sub(1);
    // A full-screen program (the alternate screen) parks its cursor anywhere (Codex:
    // on the last row, its question nine rows above): its whole screen is what it
    // shows now, so the rows read are the screen's lowest ALT_SCREEN_ROWS.
    let (last, reach) = if term.modes().alt_screen {
        (bottom, ALT_SCREEN_ROWS)
    } else {
        (term.cursor().row.min(bottom), QUESTION_ROWS)
    };
    let mut first = last.saturating_sub(reach - 1);
    if let Some(from) = term.output_start_row() {
        first = first.max(from);
    }
    if first > last {
        return None;
    }
    // One haystack, one search: no pattern matches across a line break.
    let mut text = String::with_capacity((last - first + 1) * (grid.cols() + 1));
    for r in first..=last {
        text.push_str(&grid.row(r).text());
        text.push('\n');
    }
    let found = question_pattern().find_iter(&text).last()?;
    let start = text[..found.start()].rfind('\n').map_or(0, |i| i + 1);
    let end = text[found.end()..]
        .find('\n')
        .map_or(text.len(), |i| found.end() + i);
    Some(text[start..end].trim().chars().take(200).collect())
}
