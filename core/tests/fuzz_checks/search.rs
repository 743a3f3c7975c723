//! The check behind the `search` fuzz target (`fuzz/fuzz_targets/search.rs`), replayed
//! over `tests/fuzz-corpus/search/` by `fuzz_regressions.rs`: the query parser of
//! search across panes (`tern msg search`, the window's search everywhere).
//!
//! Input: one header byte (bit 0: a regex, else plain), then the pattern up to the first
//! newline, then the text a pane shows (fed to a 40x8 model). Checks: no panic; a query
//! compiles the same twice; a refusal is bounded and points inside the pattern; every
//! match lies on the row, with its end after its start; a plain case-sensitive match
//! covers cells that read as the pattern.

use tern_core::model::search::{MAX_MATCHES, SearchMatch, SearchQuery, search_row};
use tern_core::model::{TermConfig, TermSize, Terminal};

/// The longest refusal a query may give.
const MAX_ERROR_CHARS: usize = 512;

pub fn search(data: &[u8]) {
    let Some((&header, rest)) = data.split_first() else {
        return;
    };
    let regex = header & 1 == 1;
    let (pattern, text) = match rest.iter().position(|&b| b == b'\n') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let pattern = String::from_utf8_lossy(pattern);
    let query = SearchQuery::case_smart(&pattern, regex);
    let first = query.compile_checked();
    let second = query.compile_checked();
    assert_eq!(
        first
            .as_ref()
            .map(|r| r.as_str().to_owned())
            .map_err(Clone::clone),
        second
            .as_ref()
            .map(|r| r.as_str().to_owned())
            .map_err(Clone::clone),
        "the same query compiles the same"
    );
    let re = match first {
        Ok(re) => re,
        Err(e) => {
            assert!(
                e.message.chars().count() <= MAX_ERROR_CHARS,
                "a refusal of {} characters",
                e.message.chars().count()
            );
            if let Some(at) = e.position {
                assert!(
                    at <= pattern.chars().count(),
                    "position {at} past the pattern"
                );
            }
            return;
        }
    };
    let (cols, rows) = (40, 8);
    let mut term = Terminal::new(TermSize::new(cols, rows), TermConfig::default());
    term.advance(text);
    let grid = term.grid();
    let mut out: Vec<SearchMatch> = Vec::new();
    for r in 0..grid.rows() {
        let before = out.len();
        search_row(&re, r, grid.row(r), &mut out);
        assert!(out.len() <= MAX_MATCHES);
        for m in &out[before..] {
            assert_eq!(m.line, r);
            assert!(
                m.cols.start < m.cols.end && m.cols.end <= cols,
                "a match off its row: {:?}",
                m.cols
            );
            if !regex && query.case_sensitive {
                let read: String = grid.row(r).cells[m.cols.clone()]
                    .iter()
                    .filter(|c| !c.flags().contains(tern_core::model::Flags::WIDE_SPACER))
                    .map(|c| c.ch())
                    .collect();
                assert_eq!(read, *pattern, "a plain match reads as its pattern");
            }
        }
    }
}
