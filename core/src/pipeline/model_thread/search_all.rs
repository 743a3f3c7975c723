//! The model thread's side of a search of many panes (`pipeline/search_all.rs`): one
//! job at a time, a pane at a time, one bounded slice per round (at most
//! [`SLICE_LINES`] lines and [`SLICE_BUDGET`], a quarter of it while a person types),
//! each pane's matching lines sent when the pane is done. While hidden floods are
//! throttled the slices count as hidden work ([`HiddenPace::ran`]) and rest with them,
//! so the visible pane's echo never waits behind a search.
//!
//! [`HiddenPace::ran`]: crate::pipeline::throttle::HiddenPace::ran

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::model::search::SearchMatch;
use crate::pipeline::PaneId;
use crate::pipeline::search_all::{PaneEnd, PaneFound, PanesJobSpec, hit_on};

use super::ModelThread;

/// Most lines one slice searches.
pub const SLICE_LINES: usize = 4_096;
/// Longest one slice runs when nobody types (checked every [`CLOCK_EVERY`] lines).
pub const SLICE_BUDGET: Duration = Duration::from_millis(1);
/// Lines between two looks at the clock.
const CLOCK_EVERY: usize = 64;

/// A search of many panes being worked through.
pub(super) struct PanesJob {
    spec: PanesJobSpec,
    /// Panes still to search, the current one first.
    todo: VecDeque<PaneId>,
    /// Where the current pane is: the next absolute history line, and what it gave.
    next_abs: Option<u64>,
    found: Option<PaneFound>,
}

impl PanesJob {
    pub(super) fn new(spec: PanesJobSpec) -> PanesJob {
        PanesJob {
            todo: spec.panes.iter().copied().collect(),
            spec,
            next_abs: None,
            found: None,
        }
    }
}

/// A pane that closed before it was searched.
fn closed(pane: PaneId) -> PaneFound {
    PaneFound {
        pane,
        hits: Vec::new(),
        lines_searched: 0,
        dropped: 0,
        first_screen_line: 0,
        end: PaneEnd::Closed,
        closed: false,
    }
}

impl ModelThread {
    /// Queues a search of many panes (after the ones already queued).
    pub(super) fn start_search_panes(&mut self, spec: PanesJobSpec) {
        self.panes_searches.push_back(PanesJob::new(spec));
    }

    /// Whether a search of many panes has a slice to run now (not while hidden work
    /// rests for a person's keys).
    pub(super) fn panes_search_due(&self, now: Instant) -> bool {
        // `resting` is only ever true while throttling.
        !self.panes_searches.is_empty() && !self.pace.resting(now)
    }

    /// One slice of the oldest search of many panes.
    pub(super) fn search_panes_step(&mut self) {
        let started = Instant::now();
        if !self.panes_search_due(started) {
            return;
        }
        let Some(mut job) = self.panes_searches.pop_front() else {
            return;
        };
        if job.spec.state.cancelled.load(Ordering::Relaxed) {
            return; // dropped: the asker's receiver sees the sender go
        }
        if job.spec.state.stopped.load(Ordering::Acquire) {
            // The search of closed panes reached the limit: this part ends too.
            if let Some(mut found) = job.found.take() {
                found.end = PaneEnd::Stopped;
                let _ = job.spec.reply.send(found);
            }
            job.spec.state.part_done();
            (self.waker)();
            return;
        }
        let budget = if self.pace.throttling() {
            SLICE_BUDGET / 4
        } else {
            SLICE_BUDGET
        };
        job.spec.state.slices.fetch_add(1, Ordering::Relaxed);
        let finished = self.search_slice(&mut job, started, budget);
        if self.pace.throttling() {
            self.pace.ran(started, Instant::now());
        }
        if finished {
            job.spec.state.part_done();
            (self.waker)();
        } else {
            self.panes_searches.push_front(job);
        }
    }

    /// Searches the job's current pane for at most `budget`; returns whether the whole
    /// job is done.
    fn search_slice(&mut self, job: &mut PanesJob, started: Instant, budget: Duration) -> bool {
        let state = job.spec.state.clone();
        let Some(&pane) = job.todo.front() else {
            return true;
        };
        let Some(p) = self.panes.get(&pane) else {
            // Closed before or while it was searched: said so, with what it gave.
            let mut found = job.found.take().unwrap_or_else(|| closed(pane));
            found.end = PaneEnd::Closed;
            return self.pane_answered(job, found);
        };
        let term = &p.core.term;
        let sb = term.scrollback();
        let dropped = sb.dropped();
        let end_of_history = dropped + sb.len() as u64;
        let found = job.found.get_or_insert_with(|| PaneFound {
            pane,
            hits: Vec::new(),
            lines_searched: 0,
            dropped,
            first_screen_line: end_of_history,
            end: PaneEnd::Done,
            closed: false,
        });
        // Lines that dropped off the front meanwhile are gone.
        let from = job.next_abs.unwrap_or(dropped).max(dropped);
        let stop = end_of_history.min(from + SLICE_LINES as u64);
        let mut matches: Vec<SearchMatch> = Vec::new();
        let mut abs = from;
        let mut full = false;
        while abs < stop {
            if let Some(row) = sb.row((abs - dropped) as usize) {
                if hit_on(
                    term,
                    &job.spec.re,
                    (&row, abs),
                    job.spec.context_lines,
                    found,
                    &mut matches,
                ) {
                    full = state.keep_one(job.spec.limit, &mut found.hits);
                    if full {
                        abs += 1;
                        break;
                    }
                }
            }
            abs += 1;
            if (abs - from) as usize % CLOCK_EVERY == 0 && started.elapsed() >= budget {
                break;
            }
        }
        found.lines_searched += abs - from;
        state
            .lines_searched
            .fetch_add(abs - from, Ordering::Relaxed);
        job.next_abs = Some(abs);
        if !full && abs < end_of_history {
            return false;
        }
        if !full {
            // History done: the screen, in this slice (a screen's rows).
            let grid = term.grid();
            for r in 0..grid.rows() {
                let line = end_of_history + r as u64;
                if hit_on(
                    term,
                    &job.spec.re,
                    (grid.row(r), line),
                    job.spec.context_lines,
                    found,
                    &mut matches,
                ) && state.keep_one(job.spec.limit, &mut found.hits)
                {
                    full = true;
                    break;
                }
            }
            found.lines_searched += grid.rows() as u64;
            state
                .lines_searched
                .fetch_add(grid.rows() as u64, Ordering::Relaxed);
            found.first_screen_line = end_of_history;
        }
        let Some(mut found) = job.found.take() else {
            return self.pane_answered(job, closed(pane));
        };
        if full {
            found.end = PaneEnd::Stopped;
            state.stopped.store(true, Ordering::Release);
            job.todo.clear();
            let _ = job.spec.reply.send(found);
            state.panes_done.fetch_add(1, Ordering::Relaxed);
            return true;
        }
        self.pane_answered(job, found)
    }

    /// Sends a pane's answer and moves to the next pane; returns whether none is left.
    fn pane_answered(&mut self, job: &mut PanesJob, found: PaneFound) -> bool {
        let _ = job.spec.reply.send(found);
        job.spec.state.panes_done.fetch_add(1, Ordering::Relaxed);
        job.todo.pop_front();
        job.next_abs = None;
        job.found = None;
        // The asker shows each pane's answer as it comes.
        (self.waker)();
        job.todo.is_empty()
    }
}
