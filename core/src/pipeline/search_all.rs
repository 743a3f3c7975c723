//! Searching many panes at once ("search everywhere", `tern msg search`): one request
//! for a list of panes, worked through on the model thread a bounded slice at a time
//! (`model_thread/search_all.rs`), each pane's matching lines sent as soon as that pane
//! is done, so the asker shows results while the rest are searched.
//!
//! ```text
//!  asker ── start_search_panes(panes, query) ──▶ model thread: pane 1 ▸ slice ▸ slice ▸ …
//!    ▲                                              (≤ SLICE_LINES lines and ≤ a time budget
//!    └──── PaneFound (pane 1) ◀── waker ─────────    per round; parsing goes on between)
//!    └──── PaneFound (pane 2) ◀── …                pane 2 ▸ …   until the limit: "stopped"
//! ```
//!
//! Bounded three ways: the `regex` crate matches in linear time and refuses a pattern
//! whose compiled form is too large ([`SearchQuery::compile_checked`]); at most
//! `limit` matching lines are kept (past it the search stops and says after how many);
//! and a slice is bounded in lines and time, charged to the hidden panes' share while a
//! person types (`throttle.rs`), so the visible pane stays first.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use crate::model::search::{QueryError, SearchQuery};

use super::{ModelMsg, PaneId, Pipeline};

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

impl Pipeline {
    /// Starts a search of `panes` (in that order) on the model thread and returns at
    /// once; a query that does not compile is refused here, with its position.
    pub fn start_search_panes(
        &self,
        panes: &[PaneId],
        query: &PanesQuery,
    ) -> Result<PanesSearch, QueryError> {
        let re = query.query.compile_checked()?;
        let limit = query.limit.clamp(1, MAX_LIMIT);
        let (tx, rx) = mpsc::channel();
        let state = Arc::new(PanesSearchState::default());
        // A model thread that is gone drops `tx`: `wait_all` then returns at once.
        let _ = self.model_tx.send(ModelMsg::SearchPanes {
            job: Box::new(PanesJobSpec {
                panes: panes.to_vec(),
                re,
                limit,
                context_lines: query.context_lines.min(MAX_CONTEXT_LINES),
                reply: tx,
                state: state.clone(),
            }),
        });
        Ok(PanesSearch {
            rx,
            state,
            panes: panes.len(),
            limit,
            started: Instant::now(),
        })
    }
}

/// What the model thread gets for a search of many panes.
pub struct PanesJobSpec {
    pub panes: Vec<PaneId>,
    pub re: regex::Regex,
    pub limit: usize,
    pub context_lines: usize,
    pub reply: mpsc::Sender<PaneFound>,
    pub state: Arc<PanesSearchState>,
}
