//! Searching many panes at once ("search everywhere", `tern msg search`): one request
//! for a list of panes; the model thread copies their lines a chunk at a time
//! (`model_thread/search_all.rs`) to the search's matcher, a thread at the lowest
//! priority (`search_match.rs`), which sends each pane's matching lines as soon as that
//! pane is done, so the asker shows results while the rest are searched. Panes closed
//! during this session are searched in their kept history on another such thread
//! (`closed.rs`).
//!
//! ```text
//!  asker ── start_search_everywhere(open, closed, query)
//!    │        ├─▶ model thread: pane 1 ▸ copy ▸ copy ▸ … ─chunks─▶ "tern-search-match"
//!    │        └─▶ "tern-search-closed": closed pane ▸ history parsed ▸ searched      │
//!    ▲                                                                              │
//!    └──── PaneFound (a pane, as it is done; the closed ones say so) ◀── waker ─────┘
//! ```
//!
//! Bounded three ways: the `regex` crate matches in linear time and refuses a pattern
//! whose compiled form is too large ([`SearchQuery::compile_checked`]); at most
//! `limit` matching lines are kept, both parts together (past it the search stops and
//! says after how many); and a chunk is bounded in lines, at most a few wait for the
//! matcher, and a copy is charged to the hidden panes' share while a person types
//! (`throttle.rs`), so the visible pane stays first.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use crate::model::search::{SearchMatch, SearchQuery, search_row};
use crate::model::{Row, Terminal};

use super::PaneId;

/// Most matching lines a search keeps when the asker names no limit.
pub const DEFAULT_LIMIT: usize = 1_000;
/// Most matching lines any search keeps.
pub const MAX_LIMIT: usize = 100_000;
/// Most lines of context kept before and after a matching line.
pub const MAX_CONTEXT_LINES: usize = 3;
/// Most characters kept of a matching line's text (and of each context line).
pub const MAX_LINE_CHARS: usize = 2_000;

/// What to search for, and how much to keep.
#[derive(Clone, Debug)]
pub struct PanesQuery {
    pub query: SearchQuery,
    /// Most matching lines in all panes together (at most [`MAX_LIMIT`]).
    pub limit: usize,
    /// Lines kept before and after each matching line (at most [`MAX_CONTEXT_LINES`]).
    pub context_lines: usize,
}

impl PanesQuery {
    /// A case-smart plain or regex query with the default limit and one line of context.
    pub fn new(pattern: &str, regex: bool) -> PanesQuery {
        PanesQuery {
            query: SearchQuery::case_smart(pattern, regex),
            limit: DEFAULT_LIMIT,
            context_lines: 1,
        }
    }
}

/// One matching line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineHit {
    /// The line's absolute number: counted from the first line the pane ever had
    /// (history first, then the screen), so later output does not shift it. While no
    /// history was dropped it is the line's index in `get-text --scrollback`.
    pub line: u64,
    /// The line's text (trailing blanks trimmed, at most [`MAX_LINE_CHARS`]).
    pub text: String,
    /// The matches' cell columns (end exclusive), for highlighting.
    pub cols: Vec<Range<usize>>,
    /// Up to `context_lines` lines before and after, nearest last and first.
    pub before: Vec<String>,
    pub after: Vec<String>,
}

/// How a pane's search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaneEnd {
    /// Every line it held was searched.
    Done,
    /// The search reached its limit in this pane: later lines were not searched.
    Stopped,
    /// The pane closed before or while it was searched.
    Closed,
}

/// What one pane gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaneFound {
    pub pane: PaneId,
    pub hits: Vec<LineHit>,
    /// Lines searched (history and screen).
    pub lines_searched: u64,
    /// Lines that had dropped off the pane's history before they could be searched.
    pub dropped: u64,
    /// Absolute line of the screen's first row when the pane was done.
    pub first_screen_line: u64,
    pub end: PaneEnd,
    /// A pane closed during this session: what was searched is its kept history
    /// (`pane` is its old id).
    pub closed: bool,
}

/// Shared between the asker and the model thread.
#[derive(Debug, Default)]
pub struct PanesSearchState {
    /// Set by the asker (or a drop): the model thread drops the search at its next slice.
    pub cancelled: AtomicBool,
    /// Matching lines found so far, all panes.
    pub matches: AtomicU64,
    /// Panes answered so far.
    pub panes_done: AtomicUsize,
    /// Lines searched so far, all panes.
    pub lines_searched: AtomicU64,
    /// The limit was reached: the search stopped there.
    pub stopped: AtomicBool,
    /// Every pane answered (or the search stopped).
    pub finished: AtomicBool,
    /// Slices the model thread ran for this search.
    pub slices: AtomicU64,
    /// Parts still working: the open panes' (the matcher's) and the closed panes'.
    parts: AtomicUsize,
    /// Chunks the model thread copied that the matcher has not taken yet
    /// (`search_match.rs`).
    pub(crate) in_flight: AtomicUsize,
}

impl PanesSearchState {
    pub(crate) fn new(parts: usize) -> PanesSearchState {
        PanesSearchState {
            parts: AtomicUsize::new(parts),
            ..PanesSearchState::default()
        }
    }

    /// A part of the search has ended: once none is left, the search has finished.
    pub(crate) fn part_done(&self) {
        if self.parts.fetch_sub(1, Ordering::AcqRel) <= 1 {
            self.finished.store(true, Ordering::Release);
        }
    }

    /// Counts the matching line just pushed on `hits` (all parts together); at the
    /// limit the search stops (past it, as when two parts reach it together, the line
    /// is taken back). Whether the search is full.
    pub(crate) fn keep_one(&self, limit: usize, hits: &mut Vec<LineHit>) -> bool {
        let kept = self.matches.fetch_add(1, Ordering::AcqRel) + 1;
        if kept > limit as u64 {
            self.matches.fetch_sub(1, Ordering::AcqRel);
            hits.pop();
        }
        if kept >= limit as u64 {
            self.stopped.store(true, Ordering::Release);
            return true;
        }
        false
    }
}

/// A search of many panes. The asker never waits: [`PanesSearch::poll`] takes what the
/// panes answered so far (the model thread wakes the face as each pane answers); a new
/// query replaces it (dropping cancels).
#[derive(Debug)]
pub struct PanesSearch {
    rx: Receiver<PaneFound>,
    state: Arc<PanesSearchState>,
    panes: usize,
    limit: usize,
    started: Instant,
}

impl PanesSearch {
    /// A search of `panes` panes answered on `rx` (`search_start.rs` starts the parts).
    pub(crate) fn new(
        rx: Receiver<PaneFound>,
        state: Arc<PanesSearchState>,
        panes: usize,
        limit: usize,
    ) -> PanesSearch {
        PanesSearch {
            rx,
            state,
            panes,
            limit,
            started: Instant::now(),
        }
    }

    /// The panes that answered since the last poll, in the order they answered.
    pub fn poll(&self) -> Vec<PaneFound> {
        self.rx.try_iter().collect()
    }

    /// Waits until every pane answered, or `timeout` passed (tools and tests; the window
    /// polls). Returns what came meanwhile.
    pub fn wait_all(&self, timeout: Duration) -> Result<Vec<PaneFound>, String> {
        let deadline = Instant::now() + timeout;
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(found) => out.push(found),
                // The model thread dropped the job's sender: all is sent.
                Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(out),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    return Err(format!(
                        "the search did not finish in {} s ({} of {} panes answered)",
                        timeout.as_secs(),
                        self.state.panes_done.load(Ordering::Relaxed),
                        self.panes
                    ));
                }
            }
        }
    }

    /// Every pane answered or the search stopped at its limit.
    pub fn is_finished(&self) -> bool {
        self.state.finished.load(Ordering::Acquire)
    }

    /// The limit, when the search stopped at it ("stopped after N matches").
    pub fn stopped_after(&self) -> Option<usize> {
        self.state
            .stopped
            .load(Ordering::Acquire)
            .then_some(self.limit)
    }

    /// `(panes answered, panes asked)`.
    pub fn progress(&self) -> (usize, usize) {
        (self.state.panes_done.load(Ordering::Relaxed), self.panes)
    }

    pub fn state(&self) -> &PanesSearchState {
        &self.state
    }

    /// When the search was asked for.
    pub fn started(&self) -> Instant {
        self.started
    }

    pub fn cancel(&self) {
        self.state.cancelled.store(true, Ordering::Relaxed);
    }
}

impl Drop for PanesSearch {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// The text of the pane's absolute line `abs` (history, then the screen), if held.
pub(crate) fn line_text(term: &Terminal, abs: u64) -> Option<String> {
    let sb = term.scrollback();
    let dropped = sb.dropped();
    let end_of_history = dropped + sb.len() as u64;
    let text = if abs < dropped {
        return None;
    } else if abs < end_of_history {
        sb.row((abs - dropped) as usize)?.text()
    } else {
        let r = (abs - end_of_history) as usize;
        let grid = term.grid();
        (r < grid.rows()).then(|| grid.row(r).text())?
    };
    Some(clip(text.trim_end()))
}

fn clip(text: &str) -> String {
    match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((at, _)) => text[..at].to_owned(),
        None => text.to_owned(),
    }
}

/// A line's text as a match shows it (trailing blanks trimmed, clipped).
pub(crate) fn line_of(row: &Row) -> String {
    clip(row.text().trim_end())
}

/// Searches one line; on a match keeps it (text, columns, and the context `text` gives
/// by absolute line) in `found` and returns true.
pub(crate) fn hit_on(
    text: &dyn Fn(u64) -> Option<String>,
    re: &regex::Regex,
    line: (&Row, u64),
    context: usize,
    found: &mut PaneFound,
    matches: &mut Vec<SearchMatch>,
) -> bool {
    let (row, abs) = line;
    matches.clear();
    // `search_row` numbers lines as `usize`; the number is not used here.
    search_row(re, 0, row, matches);
    if matches.is_empty() {
        return false;
    }
    let before = (abs.saturating_sub(context as u64)..abs)
        .filter_map(text)
        .collect();
    let after = (abs + 1..abs + 1 + context as u64)
        .filter_map(text)
        .collect();
    found.hits.push(LineHit {
        line: abs,
        text: line_of(row),
        cols: matches.iter().map(|m| m.cols.clone()).collect(),
        before,
        after,
    });
    true
}
