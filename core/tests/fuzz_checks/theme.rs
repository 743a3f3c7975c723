//! The check behind the `theme` fuzz target (`fuzz/fuzz_targets/theme.rs`), replayed over
//! `tests/fuzz-corpus/theme/` by `fuzz_regressions.rs`.
//!
//! Input: one header byte choosing the format (0: Ghostty, 1: kitty, 2: Alacritty's
//! TOML, by the byte mod 3), then the file's bytes (read as text, invalid UTF-8
//! replaced). Checks: no parser panics; parsing is a function of the text (twice, the
//! same answer); an error is one bounded message, never the whole file echoed.

use tern_core::config::themes::{parse_alacritty, parse_ghostty, parse_kitty};

/// The longest error a theme file may give (a line number and a short reason; TOML's
/// errors quote one line).
const MAX_ERROR_CHARS: usize = 4096;

pub fn theme(data: &[u8]) {
    let Some((&format, body)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(body);
    let parse = match format % 3 {
        0 => parse_ghostty,
        1 => parse_kitty,
        _ => parse_alacritty,
    };
    let first = parse(&text);
    assert_eq!(first, parse(&text), "the same text parses the same");
    if let Err(e) = first {
        assert!(
            e.chars().count()
                <= MAX_ERROR_CHARS.max(text.lines().map(str::len).max().unwrap_or(0) + 256),
            "an error of {} characters",
            e.chars().count()
        );
    }
}
