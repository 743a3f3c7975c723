//! The matching half of a search of open panes. The model thread owns the panes'
//! lines, so it hands them out: each round of a search it copies one chunk of a pane's
//! history as stored (encoded: a `memcpy`, a fraction of decoding and matching it,
//! [`Scrollback::copy_lines`]) and sends it here; this thread, "tern-search-match", at
//! the lowest priority ([`priority::lowest_for_this_thread`]), decodes and matches it and
//! answers the asker pane by pane. So the model thread, which parses the visible pane's
//! echo, spends only the copies on a search; and while a person types the matcher takes
//! a hidden flood's share (`throttle::SearchPace`), so that the CPU it burns does not
//! count against tern's share of the machine when a key comes.
//!
//! ```text
//!  model thread: pane 1 ▸ copy ▸ copy ▸ …   (≤ MAX_IN_FLIGHT chunks ahead of the matcher;
//!        │ Chunk { lines, the range to search, the screen at the end }   it wakes the
//!        ▼                                                              model thread
//!  "tern-search-match": decode, match, context ─▶ PaneFound ─▶ asker    when it takes one)
//! ```
//!
//! [`Scrollback::copy_lines`]: crate::model::Scrollback::copy_lines

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, Sender};

use super::search_all::{PaneEnd, PaneFound, PanesSearchState, hit_on, line_of};
use super::throttle::{Interaction, SearchPace};
use super::{PaneId, Waker, priority};
use crate::model::Row;
use crate::model::scrollback::LineCopy;

/// Chunks the model thread copies ahead of the matcher at most.
pub const MAX_IN_FLIGHT: usize = 4;

/// What the model thread gets for a search of many panes: the panes whose lines it
/// copies, chunk by chunk, to the matcher (`search_match.rs`).
pub struct PanesJobSpec {
    pub panes: Vec<PaneId>,
    /// Lines of context the matcher keeps around a match (copied with each chunk).
    pub context_lines: usize,
    pub chunks: Sender<Chunk>,
    pub state: Arc<PanesSearchState>,
}

/// A piece of one pane's lines, to search.
pub struct Chunk {
    pub pane: PaneId,
    /// The absolute line of `lines`' first line.
    pub first: u64,
    /// History lines as stored: the lines to search and up to the context's lines on
    /// either side.
    pub lines: LineCopy,
    /// The absolute lines to search.
    pub search: Range<u64>,
    /// The pane's last chunk: its screen's rows, the first at this absolute line.
    pub screen: Option<(u64, Vec<Row>)>,
    /// Lines that had dropped off the pane's history when it was copied.
    pub dropped: u64,
    /// The pane's last chunk: how its search ended (`Done`, or `Closed` with no lines).
    pub end: Option<PaneEnd>,
}

impl Chunk {
    /// The text of absolute line `abs` if the chunk holds it.
    fn text(&self, abs: u64) -> Option<String> {
        if abs >= self.first && abs < self.first + self.lines.len() as u64 {
            return self
                .lines
                .row((abs - self.first) as usize)
                .map(|r| line_of(&r));
        }
        let (top, rows) = self.screen.as_ref()?;
        let r = abs.checked_sub(*top)?;
        rows.get(r as usize).map(line_of)
    }
}

/// What the matcher needs.
pub struct Matcher {
    pub rx: Receiver<Chunk>,
    pub re: regex::Regex,
    pub limit: usize,
    pub context_lines: usize,
    pub reply: Sender<PaneFound>,
    pub state: Arc<PanesSearchState>,
    /// Wakes the face (a pane answered).
    pub waker: Waker,
    /// Wakes the model thread (a chunk was taken: it may copy the next).
    pub wake_model: Box<dyn Fn() + Send>,
    /// A person's keys: the matcher's share is a hidden flood's while they type.
    pub interaction: Arc<Interaction>,
}

/// Lines matched between two looks at the person's keys.
const PACE_EVERY: u64 = 256;

/// Starts the matcher's thread.
pub fn start(m: Matcher) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("tern-search-match".into())
        .spawn(move || {
            priority::lowest_for_this_thread();
            run(&m);
        })
        .map(|_| ())
}

fn run(m: &Matcher) {
    let state = &m.state;
    let mut found: Option<PaneFound> = None;
    let mut full = false;
    let mut matches = Vec::new();
    let mut pace = SearchPace::new(m.interaction.clone());
    let over = || state.cancelled.load(Ordering::Relaxed);
    // The model thread drops its sender when it has sent the last chunk (or stops).
    while let Ok(chunk) = m.rx.recv() {
        if state.in_flight.fetch_sub(1, Ordering::AcqRel) >= MAX_IN_FLIGHT {
            (m.wake_model)();
        }
        if state.cancelled.load(Ordering::Relaxed) {
            return; // dropped: nobody is told
        }
        if full {
            continue;
        }
        let f = found.get_or_insert_with(|| PaneFound {
            pane: chunk.pane,
            hits: Vec::new(),
            lines_searched: 0,
            dropped: chunk.dropped,
            first_screen_line: 0,
            end: PaneEnd::Done,
            closed: false,
        });
        let lookup = |abs: u64| chunk.text(abs);
        let history = chunk.search.clone().filter_map(|abs| {
            let row = chunk.lines.row(abs.checked_sub(chunk.first)? as usize)?;
            Some((row, abs))
        });
        let screen = chunk.screen.iter().flat_map(|(top, rows)| {
            rows.iter()
                .enumerate()
                .map(move |(r, row)| (row.clone(), top + r as u64))
        });
        for (row, abs) in history.chain(screen) {
            if f.lines_searched % PACE_EVERY == 0 {
                pace.between(over);
            }
            f.lines_searched += 1;
            state.lines_searched.fetch_add(1, Ordering::Relaxed);
            if hit_on(
                &lookup,
                &m.re,
                (&row, abs),
                m.context_lines,
                f,
                &mut matches,
            ) && state.keep_one(m.limit, &mut f.hits)
            {
                full = true;
                break;
            }
        }
        if let Some((top, _)) = &chunk.screen {
            f.first_screen_line = *top;
        }
        let end = if full {
            Some(PaneEnd::Stopped)
        } else {
            chunk.end
        };
        if let Some(end) = end
            && let Some(mut f) = found.take()
        {
            f.end = end;
            let _ = m.reply.send(f);
            state.panes_done.fetch_add(1, Ordering::Relaxed);
            // The asker shows each pane's answer as it comes.
            (m.waker)();
        }
    }
    // The search stopped (the closed panes' part reached the limit) mid-pane: what
    // this pane gave is still said.
    if let Some(mut f) = found.take()
        && !state.cancelled.load(Ordering::Relaxed)
    {
        f.end = PaneEnd::Stopped;
        let _ = m.reply.send(f);
        state.panes_done.fetch_add(1, Ordering::Relaxed);
    }
    state.part_done();
    (m.waker)();
}
