//! Paste: the text is sanitized (no ESC or other control characters can reach the
//! program, so a pasted `ESC[201~` cannot end bracketed paste early and run the rest as
//! typed commands), line breaks become CR, and bracketed paste wraps it when asked.

/// Removes C0 and C1 controls except tab and line breaks, and turns `\r\n` and `\n`
/// into `\r` (what the Enter key sends).
pub fn sanitize_paste(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push('\r');
            }
            '\n' => out.push('\r'),
            '\t' => out.push('\t'),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// The bytes for a paste: sanitized, and wrapped in `ESC[200~` / `ESC[201~` when the
/// program turned on bracketed paste (2004).
pub fn encode_paste(text: &str, bracketed: bool) -> Vec<u8> {
    let clean = sanitize_paste(text);
    if bracketed {
        let mut out = b"\x1b[200~".to_vec();
        out.extend_from_slice(clean.as_bytes());
        out.extend_from_slice(b"\x1b[201~");
        out
    } else {
        clean.into_bytes()
    }
}

/// Whether a paste is more than one line (the app asks before sending such a paste
/// when bracketed paste is off).
pub fn is_multiline(text: &str) -> bool {
    paste_line_count(text) > 1
}

/// The lines a paste runs as when typed: every line break kind counts (CR LF, LF and a
/// bare CR, which is what Enter sends); a trailing break ends the last line.
pub fn paste_line_count(text: &str) -> usize {
    sanitize_paste(text)
        .trim_end_matches('\r')
        .split('\r')
        .count()
}

/// The first `n` lines of a paste as the user will see them run.
pub fn paste_preview(text: &str, n: usize) -> String {
    let clean = sanitize_paste(text);
    clean.split('\r').take(n).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paste_lines_count_a_bare_cr_as_a_break() {
        assert_eq!(paste_line_count("echo hi\rrm -rf ~\r"), 2);
        assert_eq!(paste_line_count("a\r\nb\nc\n"), 3);
        assert_eq!(paste_line_count("one line\n"), 1);
        assert_eq!(paste_preview("a\rb\nc", 2), "a\nb");
    }

    #[test]
    fn control_characters_are_removed_and_line_breaks_become_cr() {
        assert_eq!(
            sanitize_paste("ls\x1b[201~; rm -rf x\n"),
            "ls[201~; rm -rf x\r"
        );
        assert_eq!(
            sanitize_paste("a\r\nb\nc\rd\te\x07\x08\u{9b}f"),
            "a\rb\rc\rd\tef"
        );
    }

    #[test]
    fn bracketed_paste_wraps_the_sanitized_text() {
        assert_eq!(
            encode_paste("echo hi\x1b[201~\n", true),
            b"\x1b[200~echo hi[201~\r\x1b[201~"
        );
        assert_eq!(encode_paste("plain", false), b"plain");
    }

    #[test]
    fn multiline_detection_ignores_a_trailing_newline() {
        assert!(!is_multiline("one line\n"));
        assert!(is_multiline("one\ntwo"));
    }
}
