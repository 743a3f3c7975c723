//! Hyperlinks under the pointer: OSC 8 links (by id, URIs from the model) and URLs
//! written as plain text. Ctrl+click opens them with the platform opener.

use std::ops::Range;

use tern_core::model::{Flags, Row};

use super::viewport::cell_chars;

/// Whether tern hands `uri` to the platform opener: the policy is
/// [`tern_core::security::check_link`] (http, https, mailto, and file links that name
/// this machine).
pub fn openable(uri: &str) -> bool {
    check(uri).is_ok()
}

fn check(uri: &str) -> Result<(), tern_core::security::LinkRefusal> {
    static HOST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let host = HOST.get_or_init(tern_core::security::local_host_name);
    tern_core::security::check_link(uri, host)
}

/// The link at `col` of `row`: the cells it covers and its target.
pub fn link_at(
    row: &Row,
    col: usize,
    uri_of: impl Fn(u32) -> Option<String>,
) -> Option<(Range<usize>, String)> {
    let cell = row.cells.get(col)?;
    if cell.flags().contains(Flags::EXTRA)
        && let Some(id) = row.extra(col).and_then(|e| e.hyperlink)
        && let Some(uri) = uri_of(id)
    {
        let same = |c: usize| row.extra(c).and_then(|e| e.hyperlink) == Some(id);
        let mut start = col;
        while start > 0 && same(start - 1) {
            start -= 1;
        }
        let mut end = col + 1;
        while end < row.cells.len() && same(end) {
            end += 1;
        }
        return Some((start..end, uri));
    }
    detect_url(&cell_chars(row), col)
}

/// A URL written as text around `col` (scheme://... up to a space or a bracket).
pub fn detect_url(chars: &[char], col: usize) -> Option<(Range<usize>, String)> {
    let stop = |c: char| c.is_whitespace() || c == '\0' || "<>\"'`()[]{}".contains(c);
    if chars.get(col).is_none_or(|c| stop(*c)) {
        return None;
    }
    let mut start = col;
    while start > 0 && !stop(chars[start - 1]) {
        start -= 1;
    }
    let mut end = col + 1;
    while end < chars.len() && !stop(chars[end]) {
        end += 1;
    }
    let token: String = chars[start..end].iter().collect();
    let offset = ["https://", "http://", "file://"]
        .iter()
        .filter_map(|s| token.find(s))
        .min()?;
    let url = token[offset..]
        .trim_end_matches(['.', ',', ';', ':', '!', '?'])
        .to_owned();
    let first = start + token[..offset].chars().count();
    if col < first || url.len() <= "http://".len() {
        return None;
    }
    Some((first..first + url.chars().count(), url))
}

/// Opens `uri` with the platform opener, for the schemes tern allows.
pub fn open(uri: &str) -> Result<(), String> {
    if let Err(why) = check(uri) {
        return Err(format!("not opening {uri:?}: {why}"));
    }
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    tern_core::helper::spawn_reaped(std::process::Command::new(opener).arg(uri))
        .map(|_| ())
        .map_err(|e| format!("cannot run {opener}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn urls_in_text_are_found_around_the_pointer() {
        let line = chars("see https://example.com/a?b=1, then (http://x.org/y).");
        assert_eq!(
            detect_url(&line, 10),
            Some((4..29, "https://example.com/a?b=1".into()))
        );
        assert_eq!(
            detect_url(&line, 40),
            Some((37..51, "http://x.org/y".into()))
        );
        assert_eq!(detect_url(&line, 0), None);
        assert_eq!(detect_url(&chars("plain words"), 3), None);
    }

    #[test]
    fn only_safe_schemes_open() {
        assert!(openable("https://example.com"));
        assert!(!openable("javascript:alert(1)"));
        assert!(open("ssh://host").is_err());
        assert!(
            !openable("file:///etc/passwd"),
            "a file link without a host"
        );
        assert!(!openable("file://elsewhere.example/etc/passwd"));
        assert!(openable("file://localhost/tmp"));
    }
}
