//! Panes closed during this session, and the search of what their history kept.
//!
//! ```text
//!  close(pane) ─▶ History::retire: the files move to history/closed/ (removed when
//!     │           tern ends, or by the next tern's writer after a crash)
//!     └─▶ ClosedPane { pane, key, size } (the newest CLOSED_PANES_KEPT; an older one's
//!         files go)
//!  start_search_everywhere(open, closed) ─▶ "tern-search-closed" (nice 19):
//!     per closed pane: its history streamed (a buffer at a time) into a fresh model
//!     with the pane's size and the caps of a live pane, then its lines searched as
//!     an open pane's are; its answer says `closed`
//! ```
//!
//! Nothing here runs on the model thread or holds a lock it takes: the thread reads
//! files and a model of its own, at the lowest priority
//! ([`priority::lowest_for_this_thread`]) and, while a person types, at a hidden flood's
//! share (`throttle::SearchPace`), so an open pane's keys never wait on it. Memory stays that of one pane: one closed pane's model at a time, its history
//! read in pieces of [`READ_PIECE`] bytes.

use std::collections::VecDeque;
use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::Duration;

use super::pane::PaneCore;
use super::search_all::{PaneEnd, PaneFound, PanesSearchState, hit_on, line_text};
use super::throttle::SearchPace;
use super::{APP_CRUMB, PaneId, Pipeline, Waker, priority};
use crate::history::{History, Retired};
use crate::model::{TermConfig, TermSize};

/// Closed panes whose history is kept for search (the newest; an older one's goes).
pub const CLOSED_PANES_KEPT: usize = 64;
/// Bytes of history read and parsed at a time.
pub const READ_PIECE: usize = 64 << 10;
/// Lines searched between two looks at the person's keys.
const PACE_EVERY: u64 = 256;
/// Lines searched between two looks at the cancel and stop flags.
const CHECK_EVERY: u64 = 4_096;
/// The longest the search waits for a just-closed pane's files to be moved.
const RETIRE_WAIT: Duration = Duration::from_secs(5);

/// A pane closed during this session whose history is kept (in `history/closed/`).
#[derive(Clone)]
pub(super) struct ClosedPane {
    pub(super) pane: PaneId,
    key: u64,
    size: TermSize,
    term: TermConfig,
    retired: Arc<Retired>,
}

/// What the closed panes' part of a search needs.
pub(super) struct ClosedSearch {
    pub(super) panes: Vec<ClosedPane>,
    pub(super) re: regex::Regex,
    pub(super) limit: usize,
    pub(super) context_lines: usize,
    pub(super) reply: mpsc::Sender<PaneFound>,
    pub(super) state: Arc<PanesSearchState>,
}

impl Pipeline {
    /// The user closed a local pane kept under `key`: its history moves aside for
    /// search everywhere (when history is kept at all).
    pub(super) fn keep_closed(&self, pane: PaneId, key: u64, size: TermSize) {
        let Some(history) = self.history.lock().ok().and_then(|h| h.clone()) else {
            return;
        };
        let retired = history.retire(key);
        let term = self
            .new_panes
            .lock()
            .map(|n| n.0.clone())
            .unwrap_or_else(|_| self.config.term.clone());
        if let Ok(mut closed) = self.closed.lock() {
            closed.retain(|c| c.pane != pane);
            closed.push_back(ClosedPane {
                pane,
                key,
                size,
                term,
                retired,
            });
            while closed.len() > CLOSED_PANES_KEPT {
                if let Some(old) = closed.pop_front() {
                    history.forget_closed(old.key);
                }
            }
        }
    }

    /// Panes closed during this session whose history is kept, oldest first (their old
    /// ids): what search everywhere can still search of them.
    pub fn closed_panes(&self) -> Vec<PaneId> {
        self.closed
            .lock()
            .map(|c| c.iter().map(|c| c.pane).collect())
            .unwrap_or_default()
    }

    /// The kept closed panes among `panes`, in that order.
    pub(super) fn closed_to_search(&self, panes: &[PaneId]) -> Vec<ClosedPane> {
        let Ok(closed) = self.closed.lock() else {
            return Vec::new();
        };
        panes
            .iter()
            .filter_map(|p| closed.iter().find(|c| c.pane == *p).cloned())
            .collect()
    }

    /// Starts the closed panes' part of a search on a thread of its own.
    pub(super) fn search_closed(&self, part: ClosedSearch) -> std::io::Result<()> {
        let Some(history) = self.history.lock().ok().and_then(|h| h.clone()) else {
            return Err(std::io::Error::other("no history is kept"));
        };
        let waker = self.waker.clone();
        let crumbs = self.crumbs.clone();
        let interaction = self.interaction.clone();
        std::thread::Builder::new()
            .name("tern-search-closed".into())
            .spawn(move || {
                if !priority::lowest_for_this_thread() {
                    crumbs.push(
                        APP_CRUMB,
                        "search: closed panes searched at normal priority",
                    );
                }
                let mut pace = SearchPace::new(interaction);
                run(&part, &history, &waker, &mut pace);
            })
            .map(|_| ())
    }
}

/// Searches each closed pane in turn and answers it; the part ends (cancelled, at the
/// limit, or done).
fn run(part: &ClosedSearch, history: &History, waker: &Waker, pace: &mut SearchPace) {
    let state = &part.state;
    for closed in &part.panes {
        if state.cancelled.load(Ordering::Relaxed) {
            return; // dropped: nobody is told
        }
        if state.stopped.load(Ordering::Acquire) {
            break;
        }
        let found = search_one(part, closed, history, pace);
        let _ = part.reply.send(found);
        state.panes_done.fetch_add(1, Ordering::Relaxed);
        waker();
    }
    state.part_done();
    waker();
}

/// One closed pane: its history parsed into a model of its own, then searched.
fn search_one(
    part: &ClosedSearch,
    closed: &ClosedPane,
    history: &History,
    pace: &mut SearchPace,
) -> PaneFound {
    let state = &part.state;
    let over = || state.cancelled.load(Ordering::Relaxed);
    let mut found = PaneFound {
        pane: closed.pane,
        hits: Vec::new(),
        lines_searched: 0,
        dropped: 0,
        first_screen_line: 0,
        end: PaneEnd::Done,
        closed: true,
    };
    // Moved by the history thread just after the close: wait for it (this thread only).
    closed.retired.wait(RETIRE_WAIT);
    let mut core = PaneCore::new(closed.size, closed.term.clone());
    let mut reader = history.closed_reader(closed.key);
    let mut buf = vec![0u8; READ_PIECE];
    loop {
        if state.cancelled.load(Ordering::Relaxed) || state.stopped.load(Ordering::Acquire) {
            found.end = PaneEnd::Stopped;
            return found;
        }
        pace.between(over);
        match reader.read(&mut buf) {
            Ok(0) | Err(_) => break,
            // Replies and facts of a closed pane go nowhere.
            Ok(n) => drop(core.parse(&buf[..n])),
        }
    }
    let term = &core.term;
    let sb = term.scrollback();
    let dropped = sb.dropped();
    let end_of_history = dropped + sb.len() as u64;
    found.dropped = dropped;
    found.first_screen_line = end_of_history;
    let grid = term.grid();
    let lines = (dropped..end_of_history).filter_map(|abs| {
        let row = sb.row((abs - dropped) as usize)?;
        Some((row, abs))
    });
    let screen = (0..grid.rows()).map(|r| (grid.row(r).clone(), end_of_history + r as u64));
    let mut matches = Vec::new();
    let text = |l: u64| line_text(term, l);
    for (row, abs) in lines.chain(screen) {
        found.lines_searched += 1;
        state.lines_searched.fetch_add(1, Ordering::Relaxed);
        if found.lines_searched % PACE_EVERY == 0 {
            pace.between(over);
        }
        if found.lines_searched % CHECK_EVERY == 0
            && (state.cancelled.load(Ordering::Relaxed) || state.stopped.load(Ordering::Acquire))
        {
            found.end = PaneEnd::Stopped;
            return found;
        }
        if hit_on(
            &text,
            &part.re,
            (&row, abs),
            part.context_lines,
            &mut found,
            &mut matches,
        ) && state.keep_one(part.limit, &mut found.hits)
        {
            found.end = PaneEnd::Stopped;
            return found;
        }
    }
    found
}

/// The closed panes kept, newest last (for the pipeline's field).
pub(super) type ClosedPanes = VecDeque<ClosedPane>;
