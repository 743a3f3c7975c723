//! Search through scrollback and screen: plain text or a regular expression, with or
//! without case. Runs on the model thread over decoded lines; results are cell ranges.

use regex::{Regex, RegexBuilder};

use super::{Flags, Row};

/// What to look for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchQuery {
    pub pattern: String,
    pub regex: bool,
    pub case_sensitive: bool,
}

/// One match: `line` is the line number the caller gave the row (the pipeline uses
/// absolute lines); `cols` are cell columns (end exclusive).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchMatch {
    pub line: usize,
    pub cols: std::ops::Range<usize>,
}

/// Most matches one search returns.
pub const MAX_MATCHES: usize = 10_000;

/// Most bytes the compiled form of one query may take (`regex`'s size limit): a
/// pattern past it is refused, never built.
pub const COMPILED_SIZE_LIMIT: usize = 1 << 20;

/// Why a query was refused: the message, and for a pattern that does not parse, the
/// character (0-based, counted in `char`s of the pattern) where the error is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryError {
    pub message: String,
    pub position: Option<usize>,
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.position {
            Some(at) => write!(f, "invalid regex at character {}: {}", at + 1, self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl SearchQuery {
    /// A case-smart query: a pattern with no upper-case letter ignores case, one with an
    /// upper-case letter keeps it (in a regex, an escape such as `\S` or `\P{..}` is no
    /// letter of the text).
    pub fn case_smart(pattern: &str, regex: bool) -> SearchQuery {
        let mut upper = false;
        let mut chars = pattern.chars();
        while let Some(c) = chars.next() {
            if regex && c == '\\' {
                chars.next();
                continue;
            }
            upper |= c.is_uppercase();
        }
        SearchQuery {
            pattern: pattern.to_owned(),
            regex,
            case_sensitive: upper,
        }
    }

    /// Compiles the query, or says why not: an empty pattern, a regex that does not
    /// parse (with its position) or one whose compiled form is over
    /// [`COMPILED_SIZE_LIMIT`]. The `regex` crate matches in time linear in the text,
    /// whatever the pattern.
    pub fn compile_checked(&self) -> Result<Regex, QueryError> {
        if self.pattern.is_empty() {
            return Err(QueryError {
                message: "the query is empty".into(),
                position: None,
            });
        }
        if self.regex
            && let Err(e) = regex_syntax::ParserBuilder::new()
                .case_insensitive(!self.case_sensitive)
                .build()
                .parse(&self.pattern)
        {
            let (kind, span) = match &e {
                regex_syntax::Error::Parse(e) => (e.kind().to_string(), *e.span()),
                regex_syntax::Error::Translate(e) => (e.kind().to_string(), *e.span()),
                other => (
                    other.to_string(),
                    regex_syntax::ast::Span::splat(regex_syntax::ast::Position::new(0, 1, 1)),
                ),
            };
            let offset = span.start.offset.min(self.pattern.len());
            let position = self.pattern.get(..offset).map(|s| s.chars().count());
            return Err(QueryError {
                message: kind,
                position,
            });
        }
        self.compile().map_err(|message| QueryError {
            message: if message.contains("size limit") {
                format!(
                    "the pattern is too large: its compiled form is over {} KiB",
                    COMPILED_SIZE_LIMIT / 1024
                )
            } else {
                message
            },
            position: None,
        })
    }

    pub fn compile(&self) -> Result<Regex, String> {
        let pattern = if self.regex {
            self.pattern.clone()
        } else {
            regex::escape(&self.pattern)
        };
        RegexBuilder::new(&pattern)
            .case_insensitive(!self.case_sensitive)
            .size_limit(COMPILED_SIZE_LIMIT)
            .dfa_size_limit(COMPILED_SIZE_LIMIT)
            .build()
            .map_err(|e| e.to_string())
    }
}

/// Finds the matches in one row (as text, spacers of wide characters skipped).
pub fn search_row(re: &Regex, line: usize, row: &Row, out: &mut Vec<SearchMatch>) {
    let mut text = String::with_capacity(row.cells.len());
    // Byte offset in `text` → cell column.
    let mut cols: Vec<usize> = Vec::with_capacity(row.cells.len() + 1);
    // A line ends at its last non-blank cell (screen rows are padded; `$` must match
    // there, as it does for trimmed scrollback lines).
    let used = row
        .cells
        .iter()
        .rposition(|c| c.ch() != ' ')
        .map_or(0, |i| i + 1);
    for (col, cell) in row.cells[..used].iter().enumerate() {
        if cell.flags().contains(Flags::WIDE_SPACER) {
            continue;
        }
        let c = cell.ch();
        for _ in 0..c.len_utf8() {
            cols.push(col);
        }
        text.push(c);
    }
    cols.push(used);
    for m in re.find_iter(&text) {
        if m.start() == m.end() || out.len() >= MAX_MATCHES {
            continue;
        }
        let start = cols[m.start()];
        let last = cols[m.end() - 1];
        let end = if row
            .cells
            .get(last)
            .is_some_and(|c| c.flags().contains(Flags::WIDE))
        {
            last + 2
        } else {
            last + 1
        };
        out.push(SearchMatch {
            line,
            cols: start..end,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{TermConfig, TermSize, Terminal};

    fn find(term: &Terminal, q: SearchQuery) -> Vec<SearchMatch> {
        let re = q.compile().expect("compiles");
        let mut out = Vec::new();
        let sb = term.scrollback();
        for i in 0..sb.len() {
            if let Some(row) = sb.row(i) {
                search_row(&re, i, &row, &mut out);
            }
        }
        for (r, row) in term.grid().iter().enumerate() {
            search_row(&re, sb.len() + r, row, &mut out);
        }
        out
    }

    fn q(pattern: &str, regex: bool, case_sensitive: bool) -> SearchQuery {
        SearchQuery {
            pattern: pattern.into(),
            regex,
            case_sensitive,
        }
    }

    #[test]
    fn plain_regex_and_case() {
        let mut t = Terminal::new(TermSize::new(20, 3), TermConfig::default());
        t.advance(b"one Needle\r\ntwo\r\nthree needle\r\nfour\r\nneedle+x");
        assert_eq!(find(&t, q("needle", false, false)).len(), 3);
        assert_eq!(
            find(&t, q("needle", false, true)),
            vec![
                SearchMatch {
                    line: 2,
                    cols: 6..12
                },
                SearchMatch {
                    line: 4,
                    cols: 0..6
                }
            ]
        );
        assert_eq!(
            find(&t, q("needle+", false, true)),
            vec![SearchMatch {
                line: 4,
                cols: 0..7
            }]
        );
        assert_eq!(find(&t, q("t[wh]", true, true)).len(), 2);
        // `$` matches at the end of a padded screen row as in trimmed history.
        assert_eq!(find(&t, q("needle$", true, false)).len(), 2);
        assert!(q("(", true, true).compile().is_err());
    }

    #[test]
    fn columns_count_wide_characters_as_two_cells() {
        let mut t = Terminal::new(TermSize::new(20, 2), TermConfig::default());
        t.advance("日本語 text".as_bytes());
        assert_eq!(
            find(&t, q("text", false, true)),
            vec![SearchMatch {
                line: 0,
                cols: 7..11
            }]
        );
        assert_eq!(
            find(&t, q("本", false, true)),
            vec![SearchMatch {
                line: 0,
                cols: 2..4
            }]
        );
    }
}
