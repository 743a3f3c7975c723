//! Every problem of a config file in one run (`tern config check`): RON's parser stops
//! at the first error, so each error's entry (`name: value,` or `"key": value,`) is
//! blanked out — spaces, newlines kept, so later positions stay true — and the text
//! parsed again, until it parses or an error has no entry to blank (a syntax error:
//! the check stops there and says so).

use std::path::Path;

use super::{Config, ConfigError};

/// Parses at most this many times (a file with more problems reports the first ones).
const MAX_PASSES: usize = 64;

/// The settings parsed once every erring entry is left out, and each error, in the
/// order of the file.
pub fn parse_reporting_all(text: &str, path: &Path) -> (Config, Vec<ConfigError>) {
    let mut text = text.to_owned();
    let mut errors: Vec<ConfigError> = Vec::new();
    for _ in 0..MAX_PASSES {
        match Config::parse_settings(&text, path) {
            Ok(config) => {
                errors.sort_by_key(|e| e.position);
                return (config, errors);
            }
            Err(e) => {
                let entry = e
                    .position
                    .and_then(|(line, col)| offset_of(&text, line, col))
                    .and_then(|at| entry_around(&text, at));
                let repeated = errors.iter().any(|o| o.position == e.position);
                errors.push(e);
                match entry {
                    Some((start, end)) if !repeated => blank(&mut text, start, end),
                    _ => break,
                }
            }
        }
    }
    if let Some(last) = errors.last_mut() {
        last.message
            .push_str(" (the check stops here: what follows was not read)");
    }
    errors.sort_by_key(|e| e.position);
    (Config::default(), errors)
}

/// The byte offset of 1-based `line`, `col` (a column counts characters).
fn offset_of(text: &str, line: usize, col: usize) -> Option<usize> {
    let start = if line <= 1 {
        0
    } else {
        text.match_indices('\n').nth(line - 2)?.0 + 1
    };
    let rest = &text[start..];
    let within = rest
        .char_indices()
        .nth(col.saturating_sub(1))
        .map_or(rest.len(), |(i, _)| i);
    Some(start + within)
}

/// The entry `at` lies in: from its name (`ident` or a string, then `:`) to the end of
/// its value and the comma after it. `at` may point at the name or into the value.
fn entry_around(text: &str, at: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    // Is `at` on a name followed by a colon? Else walk back to the nearest `name:`
    // at this nesting depth.
    let name_start = if let Some(end) = name_end(bytes, at)
        && next_non_space(bytes, end).is_some_and(|i| bytes[i] == b':')
    {
        at
    } else {
        name_before_colon(bytes, at)?
    };
    let colon = next_non_space(bytes, name_end(bytes, name_start)?)?;
    let value_end = value_end(bytes, colon + 1)?;
    let end = match next_non_space(bytes, value_end) {
        Some(i) if bytes[i] == b',' => i + 1,
        _ => value_end,
    };
    Some((name_start, end))
}

/// The end of an identifier or a string starting at `at`.
fn name_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => skip_string(bytes, at),
        c if c.is_ascii_alphabetic() || *c == b'_' => Some(
            at + bytes[at..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                .count(),
        ),
        _ => None,
    }
}

fn next_non_space(bytes: &[u8], from: usize) -> Option<usize> {
    (from..bytes.len()).find(|&i| !bytes[i].is_ascii_whitespace())
}

/// Walking back from `at` (inside a value): the start of the nearest `name:` before it
/// at the value's own depth.
fn name_before_colon(bytes: &[u8], at: usize) -> Option<usize> {
    let mut i = at.min(bytes.len());
    while i > 0 {
        i -= 1;
        if bytes[i] == b':' {
            // The name right before the colon.
            let mut j = i;
            while j > 0 && bytes[j - 1].is_ascii_whitespace() {
                j -= 1;
            }
            if j > 0 && bytes[j - 1] == b'"' {
                let close = j - 1;
                let open = bytes[..close].iter().rposition(|&c| c == b'"')?;
                return (name_end(bytes, open) == Some(close + 1)).then_some(open);
            }
            let end = j;
            while j > 0 && (bytes[j - 1].is_ascii_alphanumeric() || bytes[j - 1] == b'_') {
                j -= 1;
            }
            if j < end && (bytes[j].is_ascii_alphabetic() || bytes[j] == b'_') {
                return Some(j);
            }
            return None;
        }
        if matches!(bytes[i], b'(' | b'[' | b'{' | b',') {
            return None;
        }
    }
    None
}

/// The end of the string starting at `at` (`"`), escapes skipped.
fn skip_string(bytes: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The end of the value starting after `from`: up to the first `,` or closing bracket
/// at depth 0, strings, chars and comments skipped.
fn value_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = from;
    let mut last = from;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i = skip_string(bytes, i)?;
                last = i;
                continue;
            }
            b'\'' => {
                let close = bytes[i + 1..].iter().take(6).position(|&c| c == b'\'')?;
                i += close + 2;
                last = i;
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i += bytes[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .unwrap_or(bytes.len() - i);
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2 + bytes[i + 2..].windows(2).position(|w| w == b"*/")? + 2;
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                if depth == 0 {
                    return Some(last);
                }
                depth -= 1;
            }
            b',' if depth == 0 => return Some(last),
            _ => {}
        }
        if !bytes[i].is_ascii_whitespace() {
            last = i + 1;
        }
        i += 1;
    }
    (depth == 0).then_some(last)
}

/// Spaces over `text[start..end]`, its newlines kept.
fn blank(text: &mut String, start: usize, end: usize) {
    let blanked: String = text[start..end]
        .chars()
        .map(|c| if c == '\n' { '\n' } else { ' ' })
        .collect();
    text.replace_range(start..end, &blanked);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) -> Vec<String> {
        parse_reporting_all(text, Path::new("c.ron"))
            .1
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn every_misspelt_key_and_bad_value_is_reported_with_its_place_in_one_run() {
        let text = "(\n    font_sise: 13.0,\n    scrollback_lines: \"many\",\n    cursor: (\n        blinkin: true,\n        style: Beam,\n    ),\n    themee: (name: \"x\"),\n    scrollback_lines: 500,\n)\n";
        let got = check(text);
        assert_eq!(got.len(), 4, "{got:#?}");
        assert!(
            got[0].starts_with("c.ron:2:5: ") && got[0].contains("font_sise"),
            "{got:#?}"
        );
        assert!(
            got[0].contains("did you mean `font`"),
            "a suggestion: {got:#?}"
        );
        assert!(got[1].starts_with("c.ron:3:"), "{got:#?}");
        assert!(
            got[2].starts_with("c.ron:5:9: ") && got[2].contains("blinking"),
            "{got:#?}"
        );
        assert!(
            got[3].starts_with("c.ron:8:5: ") && got[3].contains("theme"),
            "{got:#?}"
        );
    }

    #[test]
    fn what_parses_once_the_erring_entries_are_left_out_is_kept() {
        let text = "(font_sise: 13.0, scrollback_lines: 777, nonsense: [1, (2, \"a,b)\"), {3: 4}])";
        let (config, errors) = parse_reporting_all(text, Path::new("c.ron"));
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert_eq!(config.scrollback_lines, 777);
    }

    #[test]
    fn a_syntax_error_stops_the_check_and_says_so() {
        let got = check("(font_sise: 13.0,\n scrollback_lines 5,\n themee: 1)");
        assert_eq!(got.len(), 2, "{got:#?}");
        assert!(got[1].contains("the check stops here"), "{got:#?}");
    }
}
