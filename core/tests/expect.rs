//! Expected-screen cases: each file in `tests/cases/` holds raw input (with escapes
//! written as `\e`, `\r`, `\n`, `\t`, `\a`, `\xNN`, `\u{...}`, `\\`) and the screen it
//! must produce, as `tern replay --attrs` prints it. Recordings of real programs in
//! `tests/recordings/*.bin` have their expected screens in `*.expected`.
//!
//! Regenerate after an intended change with `UPDATE_EXPECT=1 cargo test -p tern-core
//! --test expect`, then review the diff.

use std::fs;
use std::path::{Path, PathBuf};

use tern_core::escapes::unescape;
use tern_core::model::{TermConfig, TermSize, Terminal};

const EXPECTED_MARKER: &str = "--- expected";

fn update_mode() -> bool {
    std::env::var_os("UPDATE_EXPECT").is_some_and(|v| v != "0")
}

struct Case {
    header: String,
    size: TermSize,
    input: Vec<u8>,
    expected: String,
}

fn parse_case(text: &str) -> Result<Case, String> {
    let (head, expected) = text.split_once(EXPECTED_MARKER).unwrap_or((text, ""));
    let mut size = TermSize::new(80, 24);
    let mut input = Vec::new();
    for line in head.lines() {
        if let Some(v) = line.strip_prefix("size:") {
            let (c, r) = v.trim().split_once('x').ok_or("size must be COLSxROWS")?;
            size = TermSize::new(
                c.parse().map_err(|e| format!("cols: {e}"))?,
                r.parse().map_err(|e| format!("rows: {e}"))?,
            );
        } else if let Some(v) = line.strip_prefix("input:") {
            input.extend(unescape(v.strip_prefix(' ').unwrap_or(v))?);
        }
    }
    Ok(Case {
        header: head.to_owned(),
        size,
        input,
        expected: expected.strip_prefix('\n').unwrap_or(expected).to_owned(),
    })
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    v.sort();
    v
}

fn check(path: &Path, actual: &str, expected: &str, rewrite: impl FnOnce(&str)) -> Option<String> {
    if actual == expected {
        return None;
    }
    if update_mode() {
        rewrite(actual);
        return None;
    }
    Some(format!(
        "{}: screen differs\n--- expected\n{expected}--- actual\n{actual}",
        path.display()
    ))
}

#[test]
fn escape_sequence_cases() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut failures = Vec::new();
    let paths = files(&dir, "case");
    assert!(
        paths.len() >= 30,
        "expected the case collection, found {}",
        paths.len()
    );
    for path in paths {
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let case = parse_case(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut term = Terminal::new(case.size, TermConfig::default());
        term.advance(&case.input);
        let actual = term.dump().render(true);
        let header = case.header.trim_end_matches('\n').to_owned();
        if let Some(f) = check(&path, &actual, &case.expected, |actual| {
            let _ = fs::write(&path, format!("{header}\n{EXPECTED_MARKER}\n{actual}"));
        }) {
            failures.push(f);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The screen of a recording at the moment before it leaves the alternate screen for the
/// last time (what the user saw), and at the end.
fn recording_screens(bytes: &[u8]) -> String {
    let leave = b"\x1b[?1049l";
    let last_leave = bytes.windows(leave.len()).rposition(|w| w == leave);
    let mut out = String::new();
    let mut term = Terminal::new(TermSize::new(80, 24), TermConfig::default());
    if let Some(at) = last_leave {
        term.advance(&bytes[..at]);
        out.push_str("== before leaving the alternate screen\n");
        out.push_str(&term.dump().render(true));
        term.advance(&bytes[at..]);
    } else {
        term.advance(bytes);
    }
    out.push_str("== end\n");
    out.push_str(&term.dump().render(true));
    out
}

#[test]
fn recordings_of_real_programs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/recordings");
    let mut failures = Vec::new();
    let paths = files(&dir, "bin");
    assert!(
        paths.len() >= 8,
        "expected the recordings, found {}",
        paths.len()
    );
    for path in paths {
        let bytes = fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let actual = recording_screens(&bytes);
        let expected_path = path.with_extension("expected");
        let expected = fs::read_to_string(&expected_path).unwrap_or_default();
        if let Some(f) = check(&path, &actual, &expected, |actual| {
            let _ = fs::write(&expected_path, actual);
        }) {
            failures.push(f);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
