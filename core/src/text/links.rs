//! URLs written as plain text. Detection is the `linkify` crate's (balanced
//! parentheses, trailing punctuation left out), kept to the schemes tern opens; rows a
//! long line soft-wrapped over are joined first, so a URL that wraps is found whole.
//!
//! ```text
//!  row 4  |see https://example.com/a/very/long/pa|  wrapped = true
//!  row 5  |th/to/a/page ok                       |  wrapped = false
//!          joined: "see https://example.com/a/very/long/path/to/a/page ok"
//! ```

use std::borrow::Borrow;
use std::ops::Range;

use linkify::{LinkFinder, LinkKind};

use crate::model::{Flags, Row};

/// Schemes a URL in plain text may have; others (`ssh://`, `javascript:`) are not
/// links. Opening is further checked by [`crate::security::check_link`].
pub const TEXT_URL_SCHEMES: [&str; 3] = ["https://", "http://", "file://"];

/// How many soft-wrapped rows on either side of a row are joined with it: a bound, so a
/// wrapped line of a million characters costs no more than this.
pub const MAX_JOINED_ROWS: usize = 64;

/// A URL in a run of chars: its char indexes and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UrlMatch {
    pub chars: Range<usize>,
    pub url: String,
}

/// Every URL with an allowed scheme in `text`, as char ranges, in order.
pub fn find_urls(text: &str) -> Vec<UrlMatch> {
    let mut finder = LinkFinder::new();
    finder.kinds(&[LinkKind::Url]);
    let mut out = Vec::new();
    // Byte offsets to char indexes, walked once in order.
    let mut chars_before = 0;
    let mut bytes_seen = 0;
    for link in finder.links(text) {
        let url = link.as_str();
        let lower = url.to_ascii_lowercase();
        if !TEXT_URL_SCHEMES.iter().any(|s| lower.starts_with(s)) || url.len() <= "http://".len() {
            continue;
        }
        chars_before += text[bytes_seen..link.start()].chars().count();
        bytes_seen = link.start();
        let start = chars_before;
        let end = start + url.chars().count();
        out.push(UrlMatch {
            chars: start..end,
            url: url.to_owned(),
        });
    }
    out
}

/// The URL covering char `index` of `chars`, if any.
pub fn url_at(chars: &[char], index: usize) -> Option<UrlMatch> {
    let text: String = chars.iter().collect();
    find_urls(&text)
        .into_iter()
        .find(|m| m.chars.contains(&index))
}

/// The text of rows joined across soft wraps, with the screen cell of every char.
/// A wide character's spacer cell is left out of the text.
#[derive(Clone, Debug, Default)]
pub struct JoinedRows {
    pub text: String,
    /// `(row, col)` of each char of `text`, by char index.
    pub cells: Vec<(usize, usize)>,
}

impl JoinedRows {
    /// The rows `first..=last` of `rows`, joined (the caller picks a run that wraps).
    fn of<R: Borrow<Row>>(rows: &[R], first: usize, last: usize) -> JoinedRows {
        let mut joined = JoinedRows::default();
        for (r, row) in rows.iter().enumerate().take(last + 1).skip(first) {
            for (c, cell) in row.borrow().cells.iter().enumerate() {
                if cell.flags().contains(Flags::WIDE_SPACER) {
                    continue;
                }
                let ch = cell.ch();
                joined.text.push(if ch == '\0' { ' ' } else { ch });
                joined.cells.push((r, c));
            }
        }
        joined
    }

    /// The run of rows that `row` belongs to: rows before it that wrapped into the
    /// next, and rows after it while they wrap, at most [`MAX_JOINED_ROWS`] each way.
    pub fn around<R: Borrow<Row>>(rows: &[R], row: usize) -> JoinedRows {
        if row >= rows.len() {
            return JoinedRows::default();
        }
        let mut first = row;
        while first > 0 && row - first < MAX_JOINED_ROWS && rows[first - 1].borrow().wrapped {
            first -= 1;
        }
        let mut last = row;
        while last + 1 < rows.len() && last - row < MAX_JOINED_ROWS && rows[last].borrow().wrapped {
            last += 1;
        }
        JoinedRows::of(rows, first, last)
    }

    /// The char index of the cell at `(row, col)` (a wide char's spacer maps to the char).
    pub fn index_of(&self, row: usize, col: usize) -> Option<usize> {
        let after = self.cells.partition_point(|&cell| cell <= (row, col));
        let index = after.checked_sub(1)?;
        (self.cells[index].0 == row).then_some(index)
    }
}

/// A URL on the screen: the columns it covers on each row, and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScreenUrl {
    /// `(row, columns)` for each row the URL is on, top to bottom.
    pub spans: Vec<(usize, Range<usize>)>,
    pub url: String,
}

impl ScreenUrl {
    /// The columns it covers on `row` (empty when not on it).
    pub fn cols_on(&self, row: usize) -> Range<usize> {
        self.spans
            .iter()
            .find(|(r, _)| *r == row)
            .map_or(0..0, |(_, cols)| cols.clone())
    }
}

/// The URL written at cell `(row, col)` of `rows`, found whole when it wraps.
pub fn url_at_cell<R: Borrow<Row>>(rows: &[R], row: usize, col: usize) -> Option<ScreenUrl> {
    let joined = JoinedRows::around(rows, row);
    let index = joined.index_of(row, col)?;
    let found = find_urls(&joined.text)
        .into_iter()
        .find(|m| m.chars.contains(&index))?;
    Some(screen_url(&joined, found))
}

/// The screen `rows` as runs of rows joined across soft wraps, top to bottom.
pub fn wrapped_runs<R: Borrow<Row>>(rows: &[R]) -> Vec<JoinedRows> {
    let mut out = Vec::new();
    let mut first = 0;
    while first < rows.len() {
        let mut last = first;
        while last + 1 < rows.len() && rows[last].borrow().wrapped {
            last += 1;
        }
        out.push(JoinedRows::of(rows, first, last));
        first = last + 1;
    }
    out
}

/// Every URL on the screen `rows`, each found whole across soft wraps.
pub fn urls_on_screen<R: Borrow<Row>>(rows: &[R]) -> Vec<ScreenUrl> {
    wrapped_runs(rows)
        .iter()
        .flat_map(|joined| {
            find_urls(&joined.text)
                .into_iter()
                .map(|m| screen_url(joined, m))
        })
        .collect()
}

/// The cells of chars `chars` of `joined`: `(row, columns)` per row, top to bottom.
pub fn spans_of(joined: &JoinedRows, chars: Range<usize>) -> Vec<(usize, Range<usize>)> {
    let mut spans: Vec<(usize, Range<usize>)> = Vec::new();
    for &(r, c) in joined.cells.get(chars).unwrap_or_default() {
        match spans.last_mut() {
            Some((row, cols)) if *row == r => cols.end = c + 1,
            _ => spans.push((r, c..c + 1)),
        }
    }
    spans
}

fn screen_url(joined: &JoinedRows, found: UrlMatch) -> ScreenUrl {
    ScreenUrl {
        spans: spans_of(joined, found.chars),
        url: found.url,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Cell;

    fn row(text: &str, cols: usize, wrapped: bool) -> Row {
        let mut cells: Vec<Cell> = text.chars().map(|c| Cell::default().with_ch(c)).collect();
        cells.resize(cols, Cell::default().with_ch(' '));
        let mut row = Row::from_cells(cells);
        row.wrapped = wrapped;
        row
    }

    fn urls(text: &str) -> Vec<String> {
        find_urls(text).into_iter().map(|m| m.url).collect()
    }

    /// Catches the old hand-written scan, which stopped at the first parenthesis.
    #[test]
    fn wikipedia_url_keeps_its_balanced_parentheses() {
        let text = "see https://en.wikipedia.org/wiki/Rust_(programming_language).";
        assert_eq!(
            urls(text),
            ["https://en.wikipedia.org/wiki/Rust_(programming_language)"]
        );
        assert_eq!(
            urls("(see https://example.com/a_(b))"),
            ["https://example.com/a_(b)"],
            "the closing parenthesis that is not the URL's is left out"
        );
    }

    #[test]
    fn trailing_punctuation_is_left_out() {
        assert_eq!(
            urls("go to https://example.com/a?b=1, then http://x.org/y. Or 'https://q.io/z'!"),
            [
                "https://example.com/a?b=1",
                "http://x.org/y",
                "https://q.io/z"
            ]
        );
    }

    #[test]
    fn only_allowed_schemes_are_links() {
        assert_eq!(
            urls("ssh://host/x javascript:alert(1) ftp://f.org/a file:///tmp/a HTTPS://E.COM/A"),
            ["file:///tmp/a", "HTTPS://E.COM/A"]
        );
        assert!(urls("plain words, example.com, http://").is_empty());
    }

    #[test]
    fn char_ranges_count_chars_not_bytes() {
        let found = find_urls("héllo → https://example.com/ü ok");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].chars, 8..29);
        let chars: Vec<char> = "héllo → https://example.com/ü ok".chars().collect();
        assert_eq!(
            url_at(&chars, 10).map(|m| m.url),
            Some(found[0].url.clone())
        );
        assert_eq!(url_at(&chars, 2), None);
    }

    /// Catches a scan of one row: the URL that soft-wraps is cut at the row's end.
    #[test]
    fn wrapped_url_is_found_whole_from_either_row() {
        let rows = [
            row("first line", 20, false),
            row("see https://example.", 20, true),
            row("com/a/b/c done", 20, false),
        ];
        let want = "https://example.com/a/b/c";
        let from_top = url_at_cell(&rows, 1, 6).expect("found from the first row");
        assert_eq!(from_top.url, want);
        assert_eq!(from_top.spans, vec![(1, 4..20), (2, 0..9)]);
        assert_eq!(
            url_at_cell(&rows, 2, 3).map(|u| u.url).as_deref(),
            Some(want)
        );
        assert_eq!(url_at_cell(&rows, 2, 12), None, "past the URL");
        assert_eq!(url_at_cell(&rows, 0, 2), None);
        assert_eq!(from_top.cols_on(2), 0..9);
        assert_eq!(from_top.cols_on(0), 0..0);
    }

    #[test]
    fn rows_that_did_not_wrap_are_not_joined() {
        let rows = [
            row("see https://example.", 20, false),
            row("com/a/b/c done", 20, false),
        ];
        assert_eq!(
            url_at_cell(&rows, 0, 6).map(|u| u.url).as_deref(),
            Some("https://example")
        );
        assert_eq!(url_at_cell(&rows, 1, 2), None);
    }

    #[test]
    fn every_url_on_the_screen_is_listed_once() {
        let rows = [
            row("a http://a.org/1 b", 20, false),
            row("x https://example.", 18, true),
            row("com/w y http://c.de", 19, false),
        ];
        let found: Vec<String> = urls_on_screen(&rows).into_iter().map(|u| u.url).collect();
        assert_eq!(
            found,
            ["http://a.org/1", "https://example.com/w", "http://c.de"]
        );
    }

    #[test]
    fn a_long_wrapped_line_is_bounded() {
        let rows: Vec<Row> = (0..1000).map(|_| row("abcdefghij", 10, true)).collect();
        let joined = JoinedRows::around(&rows, 500);
        assert!(joined.cells.len() <= (2 * MAX_JOINED_ROWS + 1) * 10);
        assert_eq!(url_at_cell(&rows, 500, 3), None);
        assert_eq!(url_at_cell(&rows, 5000, 3), None, "a row past the end");
    }
}
