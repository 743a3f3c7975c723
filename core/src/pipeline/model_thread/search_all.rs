//! The model thread's side of a search of many panes (`pipeline/search_all.rs`): one
//! job at a time, a pane at a time, one chunk per round: at most [`SLICE_LINES`] history
//! lines copied as stored (and the screen's rows with a pane's last chunk) and sent to
//! the search's matcher (`pipeline/search_match.rs`), which decodes and matches them on
//! a thread of its own at the lowest priority. At most [`MAX_IN_FLIGHT`] chunks wait for
//! the matcher (it wakes this thread when it takes one), so memory stays bounded and a
//! slow matcher only slows the search. While hidden floods are throttled the copies
//! count as hidden work ([`HiddenPace::ran`]) and rest with them.
//!
//! [`HiddenPace::ran`]: crate::pipeline::throttle::HiddenPace::ran
//! [`MAX_IN_FLIGHT`]: crate::pipeline::search_match::MAX_IN_FLIGHT

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::time::Instant;

use crate::model::scrollback::LineCopy;
use crate::pipeline::PaneId;
use crate::pipeline::search_all::PaneEnd;
use crate::pipeline::search_match::{Chunk, MAX_IN_FLIGHT, PanesJobSpec};

use super::ModelThread;

/// Most history lines one chunk copies.
pub const SLICE_LINES: usize = 4_096;

/// A search of many panes being worked through.
pub(super) struct PanesJob {
    spec: PanesJobSpec,
    /// Panes still to copy, the current one first.
    todo: VecDeque<PaneId>,
    /// The current pane's next absolute history line.
    next_abs: Option<u64>,
}

impl PanesJob {
    pub(super) fn new(spec: PanesJobSpec) -> PanesJob {
        PanesJob {
            todo: spec.panes.iter().copied().collect(),
            spec,
            next_abs: None,
        }
    }
}

impl ModelThread {
    /// Queues a search of many panes (after the ones already queued).
    pub(super) fn start_search_panes(&mut self, spec: PanesJobSpec) {
        self.panes_searches.push_back(PanesJob::new(spec));
    }

    /// Whether a search of many panes has a chunk to copy now (not while hidden work
    /// rests for a person's keys, nor while the matcher has enough waiting).
    pub(super) fn panes_search_due(&self, now: Instant) -> bool {
        let Some(job) = self.panes_searches.front() else {
            return false;
        };
        let state = &job.spec.state;
        let over = state.cancelled.load(Ordering::Relaxed) || state.stopped.load(Ordering::Relaxed);
        // `resting` is only ever true while throttling.
        (over || state.in_flight.load(Ordering::Acquire) < MAX_IN_FLIGHT) && !self.pace.resting(now)
    }

    /// One chunk of the oldest search of many panes.
    pub(super) fn search_panes_step(&mut self) {
        let started = Instant::now();
        if !self.panes_search_due(started) {
            return;
        }
        let Some(mut job) = self.panes_searches.pop_front() else {
            return;
        };
        let state = job.spec.state.clone();
        if state.cancelled.load(Ordering::Relaxed) || state.stopped.load(Ordering::Acquire) {
            // Dropped, or full: the matcher sees the chunks' sender go.
            return;
        }
        state.slices.fetch_add(1, Ordering::Relaxed);
        let finished = self.copy_chunk(&mut job);
        if self.pace.throttling() {
            self.pace.ran(started, Instant::now());
        }
        if !finished {
            self.panes_searches.push_front(job);
        }
    }

    /// Sends the job's next chunk to the matcher; returns whether the job is done.
    fn copy_chunk(&mut self, job: &mut PanesJob) -> bool {
        let Some(&pane) = job.todo.front() else {
            return true;
        };
        let context = job.spec.context_lines as u64;
        let chunk = match self.panes.get(&pane) {
            // Closed before or while it was searched: said so, with what it gave.
            None => Chunk {
                pane,
                first: 0,
                lines: LineCopy::default(),
                search: 0..0,
                screen: None,
                dropped: 0,
                end: Some(PaneEnd::Closed),
            },
            Some(p) => {
                let term = &p.core.term;
                let sb = term.scrollback();
                let dropped = sb.dropped();
                let end_of_history = dropped + sb.len() as u64;
                // Lines that dropped off the front meanwhile are gone.
                let from = job.next_abs.unwrap_or(dropped).max(dropped);
                let stop = end_of_history.min(from + SLICE_LINES as u64);
                let last = stop >= end_of_history;
                let copy_from = from.saturating_sub(context).max(dropped);
                let copy_to = (stop + context).min(end_of_history);
                let grid = term.grid();
                Chunk {
                    pane,
                    first: copy_from,
                    lines: sb
                        .copy_lines((copy_from - dropped) as usize, (copy_to - dropped) as usize),
                    search: from..stop,
                    screen: last.then(|| {
                        let rows = (0..grid.rows()).map(|r| grid.row(r).clone()).collect();
                        (end_of_history, rows)
                    }),
                    dropped,
                    end: last.then_some(PaneEnd::Done),
                }
            }
        };
        let last = chunk.end.is_some();
        job.next_abs = Some(chunk.search.end);
        job.spec.state.in_flight.fetch_add(1, Ordering::AcqRel);
        let _ = job.spec.chunks.send(chunk);
        if last {
            job.todo.pop_front();
            job.next_abs = None;
        }
        job.todo.is_empty()
    }
}
