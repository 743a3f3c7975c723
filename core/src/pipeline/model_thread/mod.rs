//! The model thread: reads every pty itself (`readiness.rs`: it sleeps in `epoll` on the
//! pty masters and a message bell; a flooding one is read ahead by `tern-read` for a
//! while, `ahead.rs`), owns every pane's `Terminal`, parses all bytes of
//! all ptys with a fair scheduler (bounded slices, the focused pane first), answers
//! queries straight to the pty, reports facts, and delivers to visible panes one credit
//! at a time.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Instant;

use super::ahead::{AHEAD_AFTER_BYTES, ReadAhead};
use super::diag::{Breadcrumbs, ModelStats, SampleRing};
use super::facts::FactBox;
use super::io::BufferPool;
use super::readiness::{ModelTx, Poller};
use super::reply_poll::ReplyPoll;
use super::throttle::{HiddenPace, Interaction};
use super::{PaneId, Waker};

mod ahead;
mod deliver;
mod entry;
mod messages;
mod parse;
mod read;
mod requests;
mod round;
mod search_all;
mod throttle;

pub use entry::PaneEntry;
pub use requests::SEARCH_SLICE_LINES;
use requests::SearchJob;
pub use search_all::SLICE_LINES;

/// Most bytes parsed for one pane before the scheduler looks at the others (and at new
/// input). Small enough that a round over many flooding panes stays short.
pub const SLICE_BYTES: usize = 16 * 1024;

/// Most time one slice may take: a few bytes can cost much (REP repeats a character
/// 65535 times in 8 bytes, DECFRA fills the screen), so a slice is parsed in pieces
/// of [`SLICE_PIECE_BYTES`] and ends early once this much time went by.
pub const SLICE_TIME: std::time::Duration = std::time::Duration::from_millis(2);

/// The piece a slice checks its time after.
pub const SLICE_PIECE_BYTES: usize = 2048;

/// Most cells one slice may touch with operations whose cost grows with the pane's
/// area (a DECFRA over the whole screen, DECCRA, DECIC, REP…; see
/// [`Terminal::work_cells`]): the slice ends after the sequence that reaches it, so a
/// pane that asks for much work in few bytes yields to the others between two
/// sequences. One sequence is at most one screen ([`TermSize::MAX_COLS`] x
/// [`TermSize::MAX_ROWS`] for a local pane, less for a remote one).
///
/// At most the cells a slice of text writes ([`SLICE_BYTES`], a byte a cell at most),
/// so a pane of rectangle operations or images holds the thread no longer than a pane
/// of text: at 64 Ki cells a hidden pane's sixel slice took 230 µs against a text
/// slice's 48 µs, and a key in the visible pane waited for it (`tern-bench images`).
///
/// [`Terminal::work_cells`]: crate::model::Terminal::work_cells
/// [`TermSize::MAX_COLS`]: crate::model::TermSize::MAX_COLS
/// [`TermSize::MAX_ROWS`]: crate::model::TermSize::MAX_ROWS
pub const SLICE_WORK_CELLS: u64 = SLICE_BYTES as u64;

/// Most bytes a visible pane parses past its last frame while its pty still has input
/// (the frame waits for the read that finds the pty empty; see [`PaneEntry::frame_can_wait`]).
pub const FRAME_WAITS_BYTES: u64 = 16 * 1024;

/// Scrollback lines encoded between two looks for input while this thread is otherwise
/// idle (a few µs: a query that arrives meanwhile waits at most that long).
const SETTLE_LINES: usize = 8;

pub struct ModelThread {
    /// Messages and pty readiness.
    poller: Poller,
    /// Panes whose pty may hold input (`PtyInput::readable`), oldest first.
    readable: Vec<PaneId>,
    /// Scratch for the panes the poller reports.
    woken: Vec<PaneId>,
    events: Arc<FactBox>,
    waker: Waker,
    /// A frame built while parsing waits to wake the UI until the round ends, or, when
    /// the round parsed nothing (the frame a burst owed, built once the pty was found
    /// empty) and nothing else waits, until the idle work's first step is done: the
    /// woken UI thread tends to take this core at once, and a query written right
    /// behind the burst would wait for it.
    wake_due: bool,
    /// Some pane was parsed in this round.
    parsed_in_round: bool,
    /// Hidden panes' title changes, woken for at a bounded rate.
    title_wake: parse::TitleWake,
    /// Whether to poll for input before sleeping, after a reply.
    reply_poll: ReplyPoll,
    buffers: Arc<BufferPool>,
    crumbs: Arc<Breadcrumbs>,
    diag: Arc<ModelDiag>,
    /// When the last [`Sample`] was taken (ns since the epoch).
    last_sample_ns: Option<u64>,
    epoch: Instant,
    panes: HashMap<PaneId, PaneEntry>,
    order: Vec<PaneId>,
    next_rr: usize,
    focused: Option<PaneId>,
    /// Exits seen while the pane still had bytes queued.
    pending_exits: HashMap<PaneId, super::ExitInfo>,
    /// Searches in progress, worked on a slice at a time between parse rounds.
    searches: VecDeque<SearchJob>,
    /// Searches of many panes (`search_all.rs`), the oldest worked on first.
    panes_searches: VecDeque<search_all::PanesJob>,
    /// Shutdown was received (possibly in the middle of a round).
    shutting_down: bool,
    /// Scrollback bytes all panes may hold together (see `budget`).
    scrollback_budget: usize,
    /// Messages received so far (the one being handled is number `received`).
    received: u64,
    /// For starting the reading thread (`None`: floods are read here too).
    read_ahead_tx: Option<ModelTx>,
    /// A pane's direct reads bring this much with no `EAGAIN` between: it is read ahead.
    read_ahead_after: u64,
    /// The reading thread, started by the first flood.
    read_ahead: Option<ReadAhead>,
    /// Panes the reading thread reads.
    ahead_panes: Vec<PaneId>,
    /// Hidden floods' share while a person interacts (`pipeline/throttle.rs`).
    pace: HiddenPace,
}

/// The model thread's diagnostics: its busy time and the last minute of samples.
#[derive(Debug, Default)]
pub struct ModelDiag {
    pub stats: ModelStats,
    pub samples: SampleRing,
}

impl ModelThread {
    pub fn new(
        poller: Poller,
        events: Arc<FactBox>,
        waker: Waker,
        buffers: Arc<BufferPool>,
        crumbs: Arc<Breadcrumbs>,
        diag: Arc<ModelDiag>,
        epoch: Instant,
    ) -> ModelThread {
        ModelThread {
            poller,
            readable: Vec::new(),
            woken: Vec::new(),
            events,
            waker,
            buffers,
            crumbs,
            diag,
            last_sample_ns: None,
            epoch,
            panes: HashMap::new(),
            order: Vec::new(),
            next_rr: 0,
            wake_due: false,
            parsed_in_round: false,
            title_wake: Default::default(),
            reply_poll: ReplyPoll::default(),
            focused: None,
            pending_exits: HashMap::new(),
            searches: VecDeque::new(),
            panes_searches: VecDeque::new(),
            shutting_down: false,
            scrollback_budget: usize::MAX,
            received: 0,
            read_ahead_tx: None,
            read_ahead_after: AHEAD_AFTER_BYTES,
            read_ahead: None,
            ahead_panes: Vec::new(),
            pace: HiddenPace::new(Arc::new(Interaction::new(epoch))),
        }
    }

    /// Lets floods be read ahead by a second thread (`ahead.rs`), which tells this one
    /// through `tx`, once a pane's reads brought `after_bytes` with no `EAGAIN` between.
    pub fn with_read_ahead(mut self, tx: ModelTx, after_bytes: u64) -> ModelThread {
        self.read_ahead_tx = Some(tx);
        self.read_ahead_after = after_bytes.max(1);
        self
    }

    /// Sets the scrollback budget for all panes together.
    pub fn with_scrollback_budget(mut self, bytes: usize) -> ModelThread {
        self.scrollback_budget = bytes;
        self
    }
}

#[cfg(test)]
mod tests;
