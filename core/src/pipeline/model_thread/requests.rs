//! The model thread's answers to the UI's requests: a screen dump (after reading what
//! the pty holds), a page of history, and searches worked through a slice per round.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::Sender;

use crate::model::ScreenDump;
use crate::model::search::SearchQuery;
use crate::pipeline::{HistoryPage, PaneId, SearchProgress, SearchResults};

use super::ModelThread;

/// Lines of history one search step scans before the scheduler goes back to parsing.
pub const SEARCH_SLICE_LINES: usize = 20_000;

/// A search being worked through, in absolute line numbers (so output that scrolls or
/// drops lines meanwhile does not shift its results).
pub(super) struct SearchJob {
    pane: PaneId,
    re: regex::Regex,
    /// The next absolute line to scan.
    next_abs: usize,
    matches: Vec<crate::model::search::SearchMatch>,
    reply: Sender<Result<SearchResults, String>>,
    progress: Arc<SearchProgress>,
}

impl ModelThread {
    /// Reads what the pane's pty holds, parses all of it, and sends the screen.
    pub(super) fn answer_dump(&mut self, pane: PaneId, reply: Sender<ScreenDump>, wake: bool) {
        self.read_pane_now(pane);
        if let Some(p) = self.panes.get_mut(&pane) {
            Self::drain_queue(p, u64::MAX, &self.buffers, &self.events, self.epoch, pane);
            let _ = reply.send(p.core.term.dump());
        }
        if wake {
            (self.waker)();
        }
    }

    /// Sends `count` lines of history from absolute line `first` (those still held).
    pub(super) fn answer_history(
        &mut self,
        pane: PaneId,
        first: u64,
        count: usize,
        reply: Sender<HistoryPage>,
        wake: bool,
    ) {
        if let Some(p) = self.panes.get(&pane) {
            let sb = p.core.term.scrollback();
            let (total, dropped) = (sb.len(), sb.dropped());
            let from = first.max(dropped);
            let end = first
                .saturating_add(count as u64)
                .min(dropped + total as u64);
            let rows = (from..end.max(from))
                .filter_map(|abs| sb.row((abs - dropped) as usize))
                .collect();
            let _ = reply.send(HistoryPage {
                rows,
                first: from,
                total,
                dropped,
                seq: p.core.seq,
            });
        }
        if wake {
            (self.waker)();
        }
    }

    /// Parses what the pane has queued, then queues the search (worked on by
    /// [`ModelThread::search_step`]); a query that does not compile is answered at once.
    pub(super) fn start_search(
        &mut self,
        pane: PaneId,
        query: SearchQuery,
        reply: Sender<Result<SearchResults, String>>,
        progress: Arc<SearchProgress>,
    ) {
        if let Some(p) = self.panes.get_mut(&pane) {
            Self::drain_queue(p, u64::MAX, &self.buffers, &self.events, self.epoch, pane);
            match query.compile() {
                Ok(re) => {
                    let sb = p.core.term.scrollback();
                    progress.total.store(sb.len() as u64, Ordering::Relaxed);
                    self.searches.push_back(SearchJob {
                        pane,
                        re,
                        next_abs: sb.dropped() as usize,
                        matches: Vec::new(),
                        reply,
                        progress,
                    });
                }
                Err(e) => {
                    let _ = reply.send(Err(e));
                    (self.waker)();
                }
            }
        }
    }

    /// One slice of the oldest search: scrollback lines first, then (at the end) the
    /// screen, all numbered from the first line the pane ever had.
    pub(super) fn search_step(&mut self) {
        let Some(mut job) = self.searches.pop_front() else {
            return;
        };
        if job.progress.cancelled.load(Ordering::Relaxed) {
            return; // the asker gave up: the job is dropped, no answer
        }
        let Some(p) = self.panes.get(&job.pane) else {
            return;
        };
        let term = &p.core.term;
        let sb = term.scrollback();
        let dropped = sb.dropped() as usize;
        let end_of_history = dropped + sb.len();
        // Lines that dropped off the front while we searched are gone.
        job.next_abs = job.next_abs.max(dropped);
        let stop = end_of_history.min(job.next_abs + SEARCH_SLICE_LINES);
        for abs in job.next_abs..stop {
            if let Some(row) = sb.row(abs - dropped) {
                crate::model::search::search_row(&job.re, abs, &row, &mut job.matches);
            }
        }
        job.next_abs = stop;
        job.progress
            .scanned
            .store((stop - dropped.min(stop)) as u64, Ordering::Relaxed);
        job.progress.total.store(sb.len() as u64, Ordering::Relaxed);
        if stop < end_of_history && job.matches.len() < crate::model::search::MAX_MATCHES {
            self.searches.push_back(job);
            return;
        }
        for (r, row) in term.grid().iter().enumerate() {
            crate::model::search::search_row(&job.re, end_of_history + r, row, &mut job.matches);
        }
        let _ = job.reply.send(Ok(crate::pipeline::SearchResults {
            matches: job.matches,
            first_screen_line: end_of_history,
        }));
        // The asker polls for the answer on its next frame.
        (self.waker)();
    }
}
