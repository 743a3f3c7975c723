//! What a program's title (OSC 0/2) shows: the tab bar, the sidebar, the switcher and
//! the window's own title all say [`shown`], never the raw title.
//!
//! Coding agents animate a spinner at the start of the title while they work (Claude
//! Code `⠋ Claude Code` → `⠙ Claude Code` 10 times a second, later `◐`–`◓`; Codex and
//! pi-tui the Braille frames). kitty, WezTerm and Ghostty show each frame, so 32 such
//! agents in hidden tabs repaint the whole window hundreds of times a second, and the
//! tab's width jitters with each glyph (claude-code issue 17887). tern drops the
//! spinner frame from what it shows, as some agent terminals do: the tab's activity
//! mark (▶ running, from the pane's output) already says the program works, in one
//! place for every agent. A title change that leaves [`shown`] the same changes nothing
//! on screen, so it wakes no one (`pipeline/model_thread/parse.rs`).

/// The title without a leading spinner frame (and the spaces after it): a run of
/// Braille patterns (U+2800–28FF) or circle quarters (◐◑◒◓ U+25D0–25D3, ◴◵◶◷
/// U+25F4–25F7) at the start, followed by a space, or one such frame alone. Other leading
/// marks stay (Claude Code's idle `✳`, a `*` of a modified file, `-` of a dash).
pub fn shown(title: &str) -> &str {
    let rest = title.trim_start_matches(is_spinner_frame);
    if rest.len() == title.len() {
        return title;
    }
    if rest.is_empty() {
        // One frame alone is a spinner; a run of Braille alone is text.
        return if title.chars().nth(1).is_none() {
            rest
        } else {
            title
        };
    }
    if rest.starts_with(char::is_whitespace) {
        return rest.trim_start();
    }
    // Braille as text ("⠓⠑⠇⠇⠕"), not a spinner before a word.
    title
}

/// A glyph agents animate as a spinner.
pub fn is_spinner_frame(c: char) -> bool {
    matches!(c, '\u{2800}'..='\u{28FF}' | '\u{25D0}'..='\u{25D3}' | '\u{25F4}'..='\u{25F7}')
}

#[cfg(test)]
mod tests {
    use super::shown;

    #[test]
    fn a_leading_spinner_frame_is_not_shown() {
        assert_eq!(shown("⠋ Claude Code"), "Claude Code");
        assert_eq!(shown("⠙ Claude Code"), "Claude Code");
        assert_eq!(shown("◐ Claude Code"), "Claude Code");
        assert_eq!(shown("⠋⠙  build"), "build");
        assert_eq!(shown("⠋"), "");
    }

    #[test]
    fn other_titles_are_shown_as_they_are() {
        assert_eq!(shown("✳ Claude Code"), "✳ Claude Code");
        assert_eq!(shown("vim main.rs"), "vim main.rs");
        assert_eq!(shown("- dash"), "- dash");
        assert_eq!(shown("⠓⠑⠇⠇⠕"), "⠓⠑⠇⠇⠕");
        assert_eq!(shown("⠓⠑⠇⠇⠕x"), "⠓⠑⠇⠇⠕x");
        assert_eq!(shown("build ⠋"), "build ⠋");
        assert_eq!(shown(""), "");
    }
}
