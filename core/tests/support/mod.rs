//! A small DSL for model tests: `TestTerm::new(cols, rows).feed("...")` then assertions
//! that read like the screen.

#![allow(dead_code)]

use tern_core::model::{DumpAttrs, DumpColor, TermConfig, TermEvent, TermSize, Terminal};

pub struct TestTerm {
    pub term: Terminal,
}

impl TestTerm {
    pub fn new(cols: usize, rows: usize) -> TestTerm {
        TestTerm {
            term: Terminal::new(TermSize::new(cols, rows), TermConfig::default()),
        }
    }

    pub fn with_config(cols: usize, rows: usize, config: TermConfig) -> TestTerm {
        TestTerm {
            term: Terminal::new(TermSize::new(cols, rows), config),
        }
    }

    /// Feeds `input`, where `\e` may be written as `\x1b` in normal Rust string syntax.
    pub fn feed(&mut self, input: &str) -> &mut Self {
        self.term.advance(input.as_bytes());
        self
    }

    pub fn feed_bytes(&mut self, input: &[u8]) -> &mut Self {
        self.term.advance(input);
        self
    }

    /// Asserts the visible rows (trailing spaces trimmed; trailing empty rows may be
    /// left out of `expected`).
    pub fn assert_screen(&self, expected: &[&str]) -> &Self {
        let dump = self.term.dump();
        let mut actual: Vec<&str> = dump.rows.iter().map(String::as_str).collect();
        while actual.len() > expected.len() && actual.last() == Some(&"") {
            actual.pop();
        }
        assert_eq!(actual, expected, "\nscreen:\n{}", dump.render(true));
        self
    }

    /// Asserts the cursor at 0-based `(row, col)`.
    pub fn assert_cursor(&self, row: usize, col: usize) -> &Self {
        let c = self.term.cursor();
        assert_eq!((c.row, c.col), (row, col), "cursor");
        self
    }

    pub fn attrs(&self, row: usize, col: usize) -> DumpAttrs {
        self.term.grid().row(row).cells[col].dump_attrs()
    }

    pub fn fg(&self, row: usize, col: usize) -> DumpColor {
        self.attrs(row, col).fg
    }

    pub fn bg(&self, row: usize, col: usize) -> DumpColor {
        self.attrs(row, col).bg
    }

    /// The attribute lines of the dump, as `tern replay --attrs` prints them.
    pub fn attr_lines(&self) -> String {
        self.term.dump().render_attrs()
    }

    pub fn replies(&mut self) -> String {
        String::from_utf8_lossy(&self.term.take_replies()).into_owned()
    }

    pub fn events(&mut self) -> Vec<TermEvent> {
        self.term.drain_events().collect()
    }

    pub fn scrollback_text(&self) -> Vec<String> {
        self.term
            .scrollback()
            .iter()
            .map(|r| r.text().trim_end().to_owned())
            .collect()
    }
}
