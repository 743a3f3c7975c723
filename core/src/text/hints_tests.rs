//! Hint matchers and labels on small screens.

use super::hints::*;
use crate::model::{Cell, Row};

fn row(text: &str, cols: usize, wrapped: bool) -> Row {
    let mut cells: Vec<Cell> = text.chars().map(|c| Cell::default().with_ch(c)).collect();
    cells.resize(cols, Cell::default().with_ch(' '));
    let mut row = Row::from_cells(cells);
    row.wrapped = wrapped;
    row
}

fn found(lines: &[&str]) -> Vec<(HintKind, String)> {
    let rows: Vec<Row> = lines.iter().map(|l| row(l, 80, false)).collect();
    find_hints(&rows, &HintPatterns::default())
        .into_iter()
        .map(|h| (h.kind, h.text))
        .collect()
}

/// Catches a matcher order that lets a path take a URL's cells, or a URL cut at `(`.
#[test]
fn urls_paths_lines_hashes_and_ips_are_found_once_each() {
    let got = found(&[
        "see https://en.wikipedia.org/wiki/Rust_(programming_language) now",
        "error at src/main.rs:12:5, also ./build.sh and ~/notes/a.md",
        "commit 3f2a9c1b merged; host 192.168.1.20 or fe80::1 port",
    ]);
    assert_eq!(
        got,
        [
            (
                HintKind::Url,
                "https://en.wikipedia.org/wiki/Rust_(programming_language)".into()
            ),
            (HintKind::PathLine, "src/main.rs:12:5".into()),
            (HintKind::Path, "./build.sh".into()),
            (HintKind::Path, "~/notes/a.md".into()),
            (HintKind::Hash, "3f2a9c1b".into()),
            (HintKind::Ip, "192.168.1.20".into()),
            (HintKind::Ip, "fe80::1".into()),
        ]
    );
}

#[test]
fn plain_words_numbers_and_bad_ips_are_not_hints() {
    assert_eq!(
        found(&["hello world 1234567 deadbeef 999.1.1.1 a:b 12:30"]),
        []
    );
    assert_eq!(
        found(&["/usr/bin/env main.rs:7"]),
        [
            (HintKind::Path, "/usr/bin/env".into()),
            (HintKind::PathLine, "main.rs:7".into())
        ]
    );
}

#[test]
fn a_wrapped_url_is_one_hint_over_two_rows() {
    let rows = [
        row("x https://example.", 18, true),
        row("com/w y", 18, false),
    ];
    let hints = find_hints(&rows, &HintPatterns::default());
    assert_eq!(hints.len(), 1);
    assert_eq!(hints[0].text, "https://example.com/w");
    assert_eq!(hints[0].spans, vec![(0, 2..18), (1, 0..5)]);
}

#[test]
fn configured_patterns_come_first_and_bad_ones_are_reported() {
    let (patterns, errors) = HintPatterns::new(&["JIRA-\\d+".into(), "(unclosed".into()]);
    assert_eq!(errors.len(), 1);
    assert!(errors[0].contains("(unclosed"), "{errors:?}");
    let rows = [row("fixes JIRA-42 in a1b2c3d", 40, false)];
    let got: Vec<_> = find_hints(&rows, &patterns)
        .into_iter()
        .map(|h| (h.kind, h.text))
        .collect();
    assert_eq!(
        got,
        [
            (HintKind::Custom, "JIRA-42".into()),
            (HintKind::Hash, "a1b2c3d".into())
        ]
    );
}

#[test]
fn a_screen_of_matches_is_bounded() {
    let line = "1.2.3.4 ".repeat(10);
    let rows: Vec<Row> = (0..200).map(|_| row(&line, 80, false)).collect();
    let hints = find_hints(&rows, &HintPatterns::default());
    assert_eq!(hints.len(), MAX_HINTS);
    let picker = HintPicker::new(hints);
    assert!(picker.hints.iter().all(|(l, _)| l.len() == 4), "9^3 < 1000");
}

/// Catches labels of mixed lengths where one is the start of another.
#[test]
fn labels_are_home_row_and_prefix_free() {
    assert_eq!(labels(3, HOME_ROW), ["a", "s", "d"]);
    assert_eq!(labels(9, HOME_ROW).len(), 9);
    let ten = labels(10, HOME_ROW);
    assert_eq!(ten[..3], ["aa", "as", "ad"]);
    assert!(ten.iter().all(|l| l.len() == 2));
    let many = labels(500, HOME_ROW);
    let unique: std::collections::HashSet<_> = many.iter().collect();
    assert_eq!(unique.len(), 500);
    for a in &many {
        assert!(many.iter().filter(|b| b.starts_with(a.as_str())).count() == 1);
    }
    assert!(labels(0, HOME_ROW).is_empty());
    assert!(labels(5, "a").is_empty(), "one letter cannot label");
}

#[test]
fn typing_a_label_chooses_its_match() {
    let rows = [row("a1b2c3d e4f5a6b /tmp/x", 40, false)];
    let mut picker = HintPicker::new(find_hints(&rows, &HintPatterns::default()));
    assert_eq!(picker.hints.len(), 3);
    match picker.key('S') {
        HintOutcome::Chosen(h) => assert_eq!(h.text, "e4f5a6b"),
        other => panic!("{other:?}"),
    }
    let mut picker = HintPicker::new(find_hints(&rows, &HintPatterns::default()));
    assert_eq!(picker.key('z'), HintOutcome::NoMatch);
}

/// A 960x270 screen (a small font on a 4K screen), one soft-wrapped run, full of
/// `text` repeated.
fn full_wrapped_screen(text: &str) -> Vec<Row> {
    let (cols, rows) = (960, 270);
    let line: String = text.chars().cycle().take(cols * rows).collect();
    let chars: Vec<char> = line.chars().collect();
    chars
        .chunks(cols)
        .enumerate()
        .map(|(i, chunk)| row(&chunk.iter().collect::<String>(), cols, i + 1 < rows))
        .collect()
}

/// Catches hints that grow with the square of the screen: each match's char offset
/// counted from the run's start, and each candidate compared with every range taken
/// (2.77 s at 960x270 before, the UI frozen). The work is counted, not timed: at most
/// a few units a cell (each kind walks the run at most once), and the labels stop at
/// [`MAX_HINTS`].
#[test]
fn hints_on_a_huge_wrapped_screen_take_work_linear_in_its_size() {
    let cells = 960 * 270;
    for text in ["a/b ", "10.0.0.1 ", "src/a.rs:1 3f2a9c1b "] {
        let screen = full_wrapped_screen(text);
        let started = std::time::Instant::now();
        let (hints, work) = find_hints_counted(&screen, &HintPatterns::default());
        // Not asserted (machines differ): printed for docs/SECURITY.md.
        eprintln!("{text:?} at 960x270: {work} units, {:?}", started.elapsed());
        assert_eq!(hints.len(), MAX_HINTS, "{text:?}");
        assert!(
            work <= 8 * cells as u64,
            "{text:?}: {work} units of work for {cells} cells"
        );
        let first = &hints[0];
        assert_eq!(
            first.spans[0],
            (0, 0..text.split(' ').next().map_or(0, str::len))
        );
    }
}
