//! The model thread: reads every pty itself (`readiness.rs`: it sleeps in `epoll` on the
//! pty masters and a message bell; a flooding one is read ahead by `tern-read` for a
//! while, `ahead.rs`), owns every pane's `Terminal`, parses all bytes of
//! all ptys with a fair scheduler (bounded slices, the focused pane first), answers
//! queries straight to the pty, reports facts, and delivers to visible panes one credit
//! at a time.

use std::collections::{HashMap, VecDeque};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Sender, TryRecvError};
use std::time::Instant;

use crate::model::{TermEvent, TermSize};

use super::ahead::{AHEAD_AFTER_BYTES, AheadPane, ReadAhead};
use super::chunk::Chunk;
use super::credit::Credit;
use super::delivery::Slot;
use super::diag::{Breadcrumbs, ModelStats, PaneSample, PtyStats, Sample, SampleRing};
use super::facts::FactBox;
use super::io::{BufferPool, PtyWriter};
use super::pane::PaneCore;
use super::reader::{INTERACTIVE_BYTES, PtyInput, ReadOutcome};
use super::readiness::{ModelTx, Poller};
use super::reply_poll::ReplyPoll;
use super::throttle::{HiddenPace, Interaction};
use super::{ModelMsg, PaneEvent, PaneId, Waker};

mod ahead;

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
/// [`Terminal::work_cells`]: crate::model::Terminal::work_cells
pub const SLICE_WORK_CELLS: u64 = 64 * 1024;

/// Most bytes a visible pane parses past its last frame while its pty still has input
/// (the frame waits for the read that finds the pty empty; see [`PaneEntry::frame_can_wait`]).
pub const FRAME_WAITS_BYTES: u64 = 16 * 1024;

/// Scrollback lines encoded between two looks for input while this thread is otherwise
/// idle (a few µs: a query that arrives meanwhile waits at most that long).
const SETTLE_LINES: usize = 8;

pub struct PaneEntry {
    pub core: PaneCore,
    /// The pty's read side (read on this thread).
    input: PtyInput,
    pub credit: Arc<Credit>,
    pub stats: Arc<PtyStats>,
    pub slot: Arc<Slot>,
    pub writer: Arc<PtyWriter>,
    queue: VecDeque<Chunk>,
    eof: bool,
    /// When the newest parsed chunk was read (carried by frames, for latency analysis).
    last_read_at: Option<Instant>,
    /// Output while parked has been reported (once per parking, for the "unseen" badge).
    unseen_reported: bool,
    /// The screen's edit count and cursor row when the question scan last looked: a
    /// burst that changed neither (a query answered) is not scanned again.
    question_looked: Option<(u64, usize)>,
    /// A burst ended on a changed screen: the scan is due at the end of the round
    /// (`ModelThread::look_for_questions`), not before input that came meanwhile.
    question_due: bool,
    /// Running / waiting / done / idle facts (`activity.rs`), shared with readers.
    pub activity: Arc<super::activity::ActivityCell>,
    /// The pty master, whose window size this thread alone sets (`None` in tests
    /// without a pty).
    pty: Option<Arc<OwnedFd>>,
    /// The size the pty was last given: always the model's size after a parse step.
    pty_size: TermSize,
    /// Whether the model writes its query replies to the pty (`false` for a pane whose
    /// far side answers its program itself: a tmux pane).
    answers_queries: bool,
    /// Bytes read directly since the last `EAGAIN`: a flood passes
    /// `ModelThread::read_ahead_after` and the pane is read ahead.
    streak_bytes: u64,
    /// Set while the reading thread reads this pane (`ahead.rs`).
    ahead: Option<Arc<AheadPane>>,
    /// Bytes parsed (`core.seq`) when the newest delivery was built.
    framed_seq: u64,
    /// Bytes of the newest direct read.
    last_read_bytes: usize,
    /// A frame waited for the next read (`frame_can_wait`): build it once that read
    /// finds the pty empty.
    frame_owed: bool,
}

impl PaneEntry {
    /// Whether the next frame waits: a read just brought a burst's bytes (not
    /// [`INTERACTIVE_BYTES`]: an echo or a prompt is framed at once, as the read that
    /// would find the pty empty can wait for the kernel's push of a write still in
    /// progress, milliseconds when busy threads hold the cores) and the next read of the
    /// pty (at once, in the next round) may bring more. The rest of a burst is parsed
    /// before the screen is copied out and the UI woken, so a query at the end of a
    /// burst (a program's 10 KB redraw, then a cursor report) is not answered behind
    /// frames of the redraw's first half, and the UI never shows a redraw half done.
    /// Never past [`FRAME_WAITS_BYTES`], and never for a pane read ahead (a flood is
    /// framed per slice). A hidden pane has no frames to wait.
    fn frame_can_wait(&self) -> bool {
        self.core.is_visible()
            && self.ahead.is_none()
            && self.last_read_bytes >= INTERACTIVE_BYTES
            && self.input.wants_read(&self.credit)
            && self.core.seq.saturating_sub(self.framed_seq) < FRAME_WAITS_BYTES
    }

    /// Whether the pane floods: read ahead, or direct reads brought `after_bytes` with
    /// no `EAGAIN` between. A query or a prompt does not.
    fn floods(&self, after_bytes: u64) -> bool {
        self.ahead.is_some() || self.streak_bytes >= after_bytes
    }

    /// What the question scan depends on: the screen's edits and the cursor's row.
    fn question_look(&self) -> Option<(u64, usize)> {
        let term = &self.core.term;
        Some((term.damage().edits(), term.cursor().row))
    }

    pub fn new(
        core: PaneCore,
        input: PtyInput,
        credit: Arc<Credit>,
        stats: Arc<PtyStats>,
        slot: Arc<Slot>,
        writer: Arc<PtyWriter>,
    ) -> Self {
        PaneEntry {
            input,
            credit,
            stats,
            slot,
            writer,
            queue: VecDeque::new(),
            eof: false,
            last_read_at: None,
            unseen_reported: false,
            question_looked: None,
            question_due: false,
            activity: Arc::default(),
            pty: None,
            pty_size: core.term.size(),
            core,
            answers_queries: true,
            streak_bytes: 0,
            ahead: None,
            framed_seq: 0,
            last_read_bytes: 0,
            frame_owed: false,
        }
    }

    /// Whether the model answers the pane's queries (DSR, DA, DECRQM, OSC colours…);
    /// a remote pane's own emulator (tmux) already answers them.
    pub fn answering_queries(mut self, answers: bool) -> Self {
        self.answers_queries = answers;
        self
    }

    /// The pty master whose window size follows the model's.
    pub fn with_pty(mut self, fd: Arc<OwnedFd>) -> Self {
        self.pty = Some(fd);
        self
    }

    /// Gives the pty the model's size if it has another one (the kernel signals the
    /// child only on a change). Returns the size when it changed.
    fn size_pty_to_model(&mut self) -> Option<TermSize> {
        let size = self.core.term.size();
        if size == self.pty_size {
            return None;
        }
        self.pty_size = size;
        if let Some(fd) = &self.pty {
            // A pty whose child is gone refuses: nothing is left to tell.
            let _ = super::session::set_winsize(fd.as_fd(), size);
        }
        Some(size)
    }

    /// After a parse step: a program that changed its page size (DECCOLM, DECSCPP,
    /// DECSLPP resize the model) gets the pty resized to match, and the UI is told; a
    /// size asked for with XTWINOPS 8 goes to the UI as a request. Returns whether a
    /// fact was sent.
    fn follow_program_size(&mut self, events: &FactBox, pane: PaneId) -> bool {
        let requested = self.core.term.take_resize_request();
        let mut told = false;
        if let Some(size) = self.size_pty_to_model() {
            told = true;
            let _ = events.send(PaneEvent::Resized { pane, size });
        }
        if let Some(size) = requested
            && size != self.core.term.size()
        {
            told = true;
            let _ = events.send(PaneEvent::ResizeRequested { pane, size });
        }
        told
    }
}

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
    /// Hidden floods' share while a person interacts (`throttle.rs`).
    pace: HiddenPace,
}

/// The model thread's diagnostics: its busy time and the last minute of samples.
#[derive(Debug, Default)]
pub struct ModelDiag {
    pub stats: ModelStats,
    pub samples: SampleRing,
}

/// Lines of history one search step scans before the scheduler goes back to parsing.
pub const SEARCH_SLICE_LINES: usize = 20_000;

/// A search being worked through, in absolute line numbers (so output that scrolls or
/// drops lines meanwhile does not shift its results).
struct SearchJob {
    pane: PaneId,
    re: regex::Regex,
    /// The next absolute line to scan.
    next_abs: usize,
    matches: Vec<crate::model::search::SearchMatch>,
    reply: Sender<Result<super::SearchResults, String>>,
    progress: Arc<super::SearchProgress>,
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
            reply_poll: ReplyPoll::default(),
            focused: None,
            pending_exits: HashMap::new(),
            searches: VecDeque::new(),
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

    /// Throttles hidden floods while `interaction` says a person types or looks at a
    /// pane (`throttle.rs`).
    pub fn with_interaction(mut self, interaction: Arc<Interaction>) -> ModelThread {
        self.pace = HiddenPace::new(interaction);
        self
    }

    /// Starts or ends the throttle of hidden floods as the interaction begins or ends
    /// (at the start of each round).
    fn update_throttle(&mut self, now: Instant) {
        if self.pace.update(now) {
            for p in self.panes.values() {
                p.credit.set_limit(self.pace.limit_for(p.core.is_visible()));
            }
        }
    }

    /// Whether the pane's bytes wait now: a hidden flood while hidden floods rest.
    fn rests(&self, p: &PaneEntry, resting: bool) -> bool {
        resting && !p.core.is_visible() && p.floods(self.read_ahead_after)
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

    /// Cuts the largest histories when all panes together hold more than the budget.
    fn enforce_scrollback_budget(&mut self) {
        // Cheap per round: one sum, no allocation unless over the budget.
        let total: usize = self
            .panes
            .values()
            .map(|p| p.core.term.scrollback().bytes())
            .sum();
        if total <= self.scrollback_budget {
            return;
        }
        let freed = super::budget::enforce(
            self.panes.values_mut().map(|p| &mut p.core.term),
            self.scrollback_budget,
        );
        if freed > 0 {
            for p in self.panes.values() {
                p.stats
                    .scrollback_lines
                    .store(p.core.term.scrollback().len() as u64, Ordering::Relaxed);
            }
        }
    }

    fn has_work(&self) -> bool {
        self.has_input()
            || !self.searches.is_empty()
            || self
                .panes
                .values()
                .any(|p| p.frame_owed && !p.frame_can_wait())
    }

    /// Bytes wait to be parsed, or a pty with room may hold some (and will be read:
    /// not while bytes read from it wait, see [`ModelThread::read_ptys`]; a pane paused
    /// for its writes is neither parsed nor read until they drain).
    fn has_input(&self) -> bool {
        let resting = self.pace.resting(Instant::now());
        self.panes
            .values()
            .any(|p| !p.queue.is_empty() && !p.writer.is_paused() && !self.rests(p, resting))
            || self.readable.iter().any(|id| {
                self.panes
                    .get(id)
                    .is_some_and(|p| p.queue.is_empty() && p.input.wants_read(&p.credit))
            })
    }

    /// Takes the panes the poller reports readable (without waiting), then reads each
    /// readable pane once (at most its room and one buffer): queries and keystrokes'
    /// echoes get in between parse slices, and a flood cannot make a round long.
    fn read_ptys(&mut self) {
        let mut woken = std::mem::take(&mut self.woken);
        self.poller.poll(&mut woken);
        self.mark_readable(&mut woken);
        self.woken = woken;
        let mut i = 0;
        while let Some(&pane) = self.readable.get(i) {
            // Bytes read and not yet parsed: the read that brought them kicked the
            // tty's flush work, and a read now would wait for it (in `n_tty_read`,
            // asleep, and woken again); after the parse it finds the bytes there.
            if self.panes.get(&pane).is_some_and(|p| !p.queue.is_empty()) {
                i += 1;
                continue;
            }
            let still = self.read_pane(pane);
            if still {
                i += 1;
            } else {
                self.readable.remove(i);
            }
        }
        let mut i = 0;
        while let Some(&pane) = self.ahead_panes.get(i) {
            self.take_ahead(pane);
            if self.ahead_panes.get(i) == Some(&pane) {
                i += 1;
            }
        }
    }

    fn mark_readable(&mut self, woken: &mut Vec<PaneId>) {
        for pane in woken.drain(..) {
            if let Some(p) = self.panes.get_mut(&pane)
                && p.input.open
                && !p.input.readable
                && p.ahead.is_none()
            {
                p.input.readable = true;
                self.readable.push(pane);
            }
        }
    }

    /// One read of the pane's pty; returns whether it may hold more input.
    fn read_pane(&mut self, pane: PaneId) -> bool {
        let Some(p) = self.panes.get_mut(&pane) else {
            return false;
        };
        if p.ahead.is_some() {
            self.take_ahead(pane);
            return false;
        }
        let sent_before = self.poller.sent();
        match p
            .input
            .read_once(pane, &p.credit, &self.buffers, &self.crumbs)
        {
            ReadOutcome::Data(data, read_at) => {
                p.stats
                    .last_read_ns
                    .store(self.epoch.elapsed().as_nanos() as u64, Ordering::Relaxed);
                p.streak_bytes += data.len() as u64;
                p.last_read_bytes = data.len();
                let flood = p.streak_bytes >= self.read_ahead_after;
                p.queue.push_back(Chunk {
                    data,
                    offset: 0,
                    read_at,
                    sent_before,
                });
                !(flood && self.hand_over(pane))
            }
            ReadOutcome::Nothing => {
                if !p.input.readable {
                    p.streak_bytes = 0;
                }
                p.input.readable
            }
            ReadOutcome::End(error) => {
                self.poller.remove(p.input.fd());
                self.pty_ended(pane, error);
                false
            }
        }
    }

    /// The pane's pty reached its end (`error` if another error than the child's
    /// closing ended it).
    fn pty_ended(&mut self, pane: PaneId, error: Option<String>) {
        if let Some(p) = self.panes.get_mut(&pane) {
            p.eof = true;
        }
        if let Some(e) = error {
            self.crumbs.push(pane.0, format!("read error: {e}"));
            let _ = self.events.send(PaneEvent::Error { pane, message: e });
            (self.waker)();
        }
    }

    /// Reads what the pane's pty holds now, as far as the window allows (before a
    /// query of the whole screen).
    fn read_pane_now(&mut self, pane: PaneId) {
        self.take_back(pane);
        let mut woken = std::mem::take(&mut self.woken);
        self.poller.poll(&mut woken);
        self.mark_readable(&mut woken);
        self.woken = woken;
        while self.read_pane(pane) {
            if !self
                .panes
                .get(&pane)
                .is_some_and(|p| p.input.wants_read(&p.credit))
            {
                break;
            }
        }
        self.readable.retain(|id| {
            self.panes
                .get(id)
                .is_some_and(|p| p.input.readable && p.input.open)
        });
    }

    /// One slice of the oldest search: scrollback lines first, then (at the end) the
    /// screen, all numbered from the first line the pane ever had.
    fn search_step(&mut self) {
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
        let _ = job.reply.send(Ok(super::SearchResults {
            matches: job.matches,
            first_screen_line: end_of_history,
        }));
        // The asker polls for the answer on its next frame.
        (self.waker)();
    }

    pub fn run(mut self) {
        // One clock read per busy round: it ends this round's busy time, dates the
        // sample, and starts the next round.
        let mut busy_from = Instant::now();
        loop {
            // Block only when idle; wake at once on any message or pty input.
            if !self.has_work() && !self.idle_work() {
                self.sample_if_due(Instant::now(), SampleRing::IDLE_EVERY_NS);
                let mut woken = std::mem::take(&mut self.woken);
                let first = match self.poll_after_reply(&mut woken) {
                    Some(first) => first,
                    None => {
                        let first = match self.pace.wake_at() {
                            Some(at) => self.poller.wait_until(at, &mut woken),
                            None => self.poller.wait(&mut woken),
                        };
                        self.reply_poll.woke(Instant::now());
                        first
                    }
                };
                busy_from = Instant::now();
                self.mark_readable(&mut woken);
                self.woken = woken;
                let go_on = match first {
                    Ok(msg) => self.handle(msg),
                    Err(TryRecvError::Empty) => true,
                    Err(TryRecvError::Disconnected) => false,
                };
                if !go_on {
                    return;
                }
            }
            self.parsed_in_round = false;
            loop {
                match self.poller.try_recv() {
                    Ok(msg) => {
                        if !self.handle(msg) {
                            return;
                        }
                    }
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => return,
                }
            }
            self.update_throttle(Instant::now());
            self.read_ptys();
            self.schedule_round();
            // A frame built in a round that parsed nothing waits for the idle work only
            // if the thread is about to be idle (a search in steps is not).
            if self.parsed_in_round || self.has_work() {
                self.flush_wake();
            }
            if self.shutting_down {
                return;
            }
            let now = Instant::now();
            let stats = &self.diag.stats;
            stats.busy_ns.fetch_add(
                now.duration_since(busy_from).as_nanos() as u64,
                Ordering::Relaxed,
            );
            stats.rounds.fetch_add(1, Ordering::Relaxed);
            self.sample_if_due(now, SampleRing::BUSY_EVERY_NS);
            busy_from = now;
        }
    }

    /// The longest poll after a reply ([`ReplyPoll::MAX`] by default).
    pub(super) fn with_reply_poll_max(mut self, max: std::time::Duration) -> Self {
        self.reply_poll = ReplyPoll::with_max(max);
        self
    }

    /// After a reply, polls the ptys and messages instead of sleeping, until input
    /// comes ([`Poller::poll_until`]) or the window ends (`None`: the caller sleeps),
    /// and counts it. See [`ReplyPoll`].
    fn poll_after_reply(
        &mut self,
        woken: &mut Vec<PaneId>,
    ) -> Option<Result<ModelMsg, TryRecvError>> {
        let started = Instant::now();
        let until = self.reply_poll.poll_until(started)?;
        let stats = &self.diag.stats;
        stats.polls.fetch_add(1, Ordering::Relaxed);
        let got = self.poller.poll_until(until, woken);
        if got.is_some() {
            self.reply_poll.caught();
            stats.polls_caught.fetch_add(1, Ordering::Relaxed);
        }
        stats
            .poll_ns
            .fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        got
    }

    /// Adds a [`Sample`] of the cumulative counters if `every_ns` passed since the last.
    fn sample_if_due(&mut self, now: Instant, every_ns: u64) {
        let now_ns = now.saturating_duration_since(self.epoch).as_nanos() as u64;
        if self
            .last_sample_ns
            .is_some_and(|last| now_ns.saturating_sub(last) < every_ns)
        {
            return;
        }
        self.last_sample_ns = Some(now_ns);
        let panes = self
            .order
            .iter()
            .filter_map(|id| {
                let p = self.panes.get(id)?;
                // Parsed first: read can only have grown since, so read >= parsed.
                let bytes_parsed = p.credit.parsed_total();
                Some(PaneSample {
                    pane: id.0,
                    bytes_read: p.credit.read_total(),
                    bytes_parsed,
                    frames_built: p.stats.frames_built.load(Ordering::Relaxed),
                })
            })
            .collect();
        self.diag.samples.push(Sample {
            at_ns: now_ns,
            model_busy_ns: self.diag.stats.busy_ns.load(Ordering::Relaxed),
            panes,
        });
    }

    /// Returns false on shutdown.
    fn handle(&mut self, msg: ModelMsg) -> bool {
        self.received += 1;
        match msg {
            ModelMsg::Chunk {
                pane,
                data,
                read_at,
            } => {
                if let Some(p) = self.panes.get_mut(&pane) {
                    p.stats
                        .last_read_ns
                        .store(self.epoch.elapsed().as_nanos() as u64, Ordering::Relaxed);
                    p.queue.push_back(Chunk {
                        data,
                        offset: 0,
                        read_at,
                        sent_before: self.received - 1,
                    });
                } else {
                    self.buffers.put(data);
                }
            }
            ModelMsg::Eof { pane, error } => {
                if let Some(p) = self.panes.get_mut(&pane) {
                    p.eof = true;
                }
                if let Some(e) = error {
                    self.crumbs.push(pane.0, format!("read error: {e}"));
                    let _ = self.events.send(PaneEvent::Error { pane, message: e });
                }
            }
            ModelMsg::Exited { pane, exit } => {
                self.crumbs.push(pane.0, format!("child exited: {exit}"));
                self.pending_exits.insert(pane, exit);
                self.flush_exits();
            }
            ModelMsg::Add { pane, mut entry } => {
                // Readable from the start: output written before the pty was watched
                // raised no edge.
                if let Err(e) = self.poller.add(pane, entry.input.fd()) {
                    let _ = entry.input.end(&entry.credit, None);
                    entry.eof = true;
                    let message = format!("cannot watch the pty: {e}");
                    self.crumbs.push(pane.0, message.clone());
                    let _ = self.events.send(PaneEvent::Error { pane, message });
                    (self.waker)();
                } else {
                    self.readable.push(pane);
                }
                // A pane added while a person types starts throttled (it is hidden).
                entry
                    .credit
                    .set_limit(self.pace.limit_for(entry.core.is_visible()));
                self.panes.insert(pane, *entry);
                self.order.push(pane);
            }
            // Nothing to do: the next round parses the pane again.
            ModelMsg::WriteQueueDrained { .. } => {}
            ModelMsg::AheadData { pane } => self.take_ahead(pane),
            ModelMsg::Remove { pane } => {
                self.take_back(pane);
                if let Some(p) = self.panes.remove(&pane) {
                    if p.input.open {
                        self.poller.remove(p.input.fd());
                    }
                    p.slot.clear();
                    for c in p.queue {
                        self.buffers.put(c.data);
                    }
                }
                self.order.retain(|p| *p != pane);
                self.readable.retain(|p| *p != pane);
                self.pending_exits.remove(&pane);
            }
            ModelMsg::Resize { pane, size } => {
                // A read in progress on the reading thread may hold bytes for the old
                // size: wait for it (the flood is read here again, then ahead again).
                self.take_back(pane);
                if let Some(p) = self.panes.get_mut(&pane) {
                    // Bytes read before this resize was sent were produced for the old
                    // size: parse them first. Later reads wait for the new size.
                    let this = self.received;
                    Self::drain_queue(p, this, &self.buffers, &self.events, self.epoch, pane);
                    p.core.resize(size);
                    p.size_pty_to_model();
                    self.crumbs
                        .push(pane.0, format!("resize {}x{}", size.cols, size.rows));
                    self.deliver(pane);
                }
            }
            ModelMsg::SetVisible { pane, visible } => {
                if let Some(p) = self.panes.get_mut(&pane) {
                    if p.core.is_visible() != visible {
                        self.crumbs
                            .push(pane.0, if visible { "reveal" } else { "park" });
                    }
                    p.core.set_visible(visible);
                    p.credit.set_limit(self.pace.limit_for(visible));
                    p.unseen_reported = false;
                    p.slot.clear();
                }
                self.deliver(pane);
            }
            ModelMsg::Focus { pane } => self.focused = pane,
            ModelMsg::Theme(theme) => {
                let panes: Vec<PaneId> = self.panes.keys().copied().collect();
                for pane in panes {
                    if let Some(p) = self.panes.get_mut(&pane) {
                        p.core.term.set_palette_defaults(theme);
                    }
                    self.deliver(pane);
                }
            }
            ModelMsg::Taken { pane } => {
                if let Some(p) = self.panes.get_mut(&pane) {
                    p.core.on_taken();
                    p.stats.frames_taken.fetch_add(1, Ordering::Relaxed);
                }
                self.deliver_unless_more(pane, true);
            }
            ModelMsg::Query { pane, reply, wake } => {
                self.read_pane_now(pane);
                if let Some(p) = self.panes.get_mut(&pane) {
                    Self::drain_queue(p, u64::MAX, &self.buffers, &self.events, self.epoch, pane);
                    let _ = reply.send(p.core.term.dump());
                }
                if wake {
                    (self.waker)();
                }
            }
            ModelMsg::History {
                pane,
                first,
                count,
                reply,
                wake,
            } => {
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
                    let _ = reply.send(super::HistoryPage {
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
            ModelMsg::Search {
                pane,
                query,
                reply,
                progress,
            } => {
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
            ModelMsg::Shutdown => {
                self.shutting_down = true;
                return false;
            }
        }
        true
    }

    /// One pass: the focused pane first, then every other pane once (round-robin), each
    /// for at most one slice. New messages are looked at between panes.
    fn schedule_round(&mut self) {
        if let Some(f) = self.focused {
            self.run_slice(f);
        }
        let n = self.order.len();
        for k in 0..n {
            let idx = (self.next_rr + k) % n;
            let Some(&pane) = self.order.get(idx) else {
                break;
            };
            if Some(pane) == self.focused {
                continue;
            }
            self.run_slice(pane);
            // Keystrokes' echoes, queries and credits must not wait for a whole round.
            self.read_ptys();
            if let Some(f) = self.focused
                && self.panes.get(&f).is_some_and(|p| !p.queue.is_empty())
            {
                self.run_slice(f);
            }
            while let Ok(msg) = self.poller.try_recv() {
                if !self.handle(msg) {
                    return;
                }
            }
        }
        self.next_rr = if n == 0 { 0 } else { (self.next_rr + 1) % n };
        self.ring_starved();
        self.look_for_questions(false);
        self.search_step();
        self.flush_exits();
        self.enforce_scrollback_budget();
    }

    /// Scans the screens whose burst ended on a change for a question (the waiting
    /// state), each once its queue is still empty after a fresh look at the ptys: input
    /// that came meanwhile (a query) is parsed and answered first, the scan waits for
    /// the round after it. A pane read ahead (a flood) empties its queue whenever this
    /// thread catches up with the reading thread, so it is scanned only when this
    /// thread has nothing else to do (`idle`): the flood has paused or ended. And when no
    /// input waits at all the scans are left to that idle phase too, which first encodes
    /// scrollback a little at a time with looks for input between: a query written
    /// right behind a burst is answered before the scan (10-90 µs) instead of after.
    fn look_for_questions(&mut self, idle: bool) {
        if !self.panes.values().any(|p| p.question_due) {
            return;
        }
        self.read_ptys();
        if !idle && !self.has_input() {
            // This thread is about to be idle: `scan_before_sleeping` scans then.
            return;
        }
        for p in self.panes.values_mut() {
            let flooding = p.ahead.as_ref().is_some_and(|a| !idle || !a.is_paused());
            if !p.question_due || !p.queue.is_empty() || flooding {
                continue;
            }
            p.question_due = false;
            p.question_looked = p.question_look();
            p.stats.question_scans.fetch_add(1, Ordering::Relaxed);
            let asks = super::activity::screen_asks_question(&p.core.term);
            p.activity.on_screen_checked(Instant::now(), asks);
        }
    }

    /// Runs the question scans that waited for this thread to be idle (panes read
    /// ahead); returns whether there were any (the caller looks for work again before it
    /// sleeps).
    fn scan_before_sleeping(&mut self) -> bool {
        // Only scans that can run now: a pane with bytes queued (paused for its writes)
        // would keep this thread from ever sleeping.
        if !self.panes.values().any(|p| {
            p.question_due && p.queue.is_empty() && p.ahead.as_ref().is_none_or(|a| a.is_paused())
        }) {
            return false;
        }
        self.look_for_questions(true);
        true
    }

    /// The work put off until no input waits; returns whether it did any (the caller
    /// looks for input before more, or sleeps). First scrollback encoding, a little at a
    /// time with a look for input between (a query that arrives meanwhile goes first),
    /// then the UI is woken for a frame built since (a keystroke's echo is not kept
    /// behind a scan), then the question scans.
    fn idle_work(&mut self) -> bool {
        if self.settle_before_sleeping() {
            return true;
        }
        self.flush_wake();
        self.scan_before_sleeping()
    }

    /// Encodes a few scrollback lines of one pane whose encoding was deferred
    /// ([`crate::model::Scrollback::settle_some`]: lines scrolled off by a burst are
    /// encoded after it, once this thread has nothing else to do); returns whether there
    /// were any (the caller looks for input before it encodes more or sleeps).
    fn settle_before_sleeping(&mut self) -> bool {
        let mut due = None;
        for (&pane, p) in self.panes.iter_mut() {
            // A burst that overflowed the queue encoded eagerly; the next one waits
            // again (a pane read ahead stays eager: its flood goes on).
            if p.ahead.is_none() && p.core.term.scrollback().is_eager() {
                p.core.term.set_scrollback_eager(false);
            }
            if due.is_none() && p.core.term.scrollback().unsettled() > 0 {
                due = Some(pane);
            }
        }
        let Some((pane, p)) = due.and_then(|pane| Some((pane, self.panes.get_mut(&pane)?))) else {
            return false;
        };
        let dropped = p.core.term.scrollback().dropped();
        p.core.term.settle_scrollback(SETTLE_LINES);
        if p.core.term.scrollback().dropped() != dropped {
            // The byte cap dropped old lines: the UI's scrollback counts changed.
            self.deliver(pane);
        }
        true
    }

    fn run_slice(&mut self, pane: PaneId) {
        let Some(p) = self.panes.get_mut(&pane) else {
            return;
        };
        if p.queue.is_empty() || Self::paused_for_writes(p, &self.crumbs, pane) {
            if p.frame_owed {
                self.deliver_unless_more(pane, false);
            }
            return;
        }
        let paced =
            self.pace.throttling() && !p.core.is_visible() && p.floods(self.read_ahead_after);
        let started = Instant::now();
        if paced && self.pace.resting(started) {
            p.stats.slices_rested.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let replies = p.stats.replies_sent.load(Ordering::Relaxed);
        let told = Self::parse_some(
            p,
            SLICE_BYTES,
            &self.buffers,
            &self.events,
            self.epoch,
            pane,
        );
        if p.stats.replies_sent.load(Ordering::Relaxed) != replies {
            self.reply_poll.replied(Instant::now());
        }
        if told {
            (self.waker)();
        }
        if paced {
            self.pace.ran(started, Instant::now());
        }
        self.parsed_in_round = true;
        self.deliver_unless_more(pane, false);
    }

    /// Delivers, unless the frame can wait for the next read ([`PaneEntry::frame_can_wait`]);
    /// wakes the UI now or when the round ends ([`ModelThread::wake_due`]).
    fn deliver_unless_more(&mut self, pane: PaneId, wake_now: bool) {
        let Some(p) = self.panes.get_mut(&pane) else {
            return;
        };
        p.frame_owed = p.frame_can_wait();
        if !p.frame_owed && self.put_delivery(pane) {
            if wake_now {
                (self.waker)();
            } else {
                self.wake_due = true;
            }
        }
    }

    fn flush_wake(&mut self) {
        if std::mem::take(&mut self.wake_due) {
            (self.waker)();
        }
    }

    /// Backpressure: while the pty's write queue is over its high-water mark (a program
    /// that asks and does not read the answers), the pane is not parsed, so its credit
    /// stops and the program blocks on output. `WriteQueueDrained` resumes it.
    fn paused_for_writes(p: &PaneEntry, crumbs: &Breadcrumbs, pane: PaneId) -> bool {
        let was_paused = p.writer.is_paused();
        let paused = p.writer.over_high_water();
        if paused && !was_paused {
            crumbs.push(
                pane.0,
                format!(
                    "paused parsing: {} bytes wait to be written (the program does not read its input)",
                    p.writer.queued_bytes()
                ),
            );
        }
        paused
    }

    fn drain_queue(
        p: &mut PaneEntry,
        sent_before: u64,
        buffers: &BufferPool,
        events: &FactBox,
        epoch: Instant,
        pane: PaneId,
    ) {
        // Chunk by chunk, so that a drain up to a message stops at the first chunk read
        // after it was sent.
        while let Some(c) = p.queue.front().filter(|c| c.sent_before < sent_before) {
            let left = c.data.len() - c.offset;
            // Callers wake the UI after draining (a close or an exit follows).
            let _ = Self::parse_some(p, left, buffers, events, epoch, pane);
        }
    }

    /// Parses up to `budget` bytes of the pane's queue; credits, replies and facts go
    /// out after each chunk piece. Returns whether an event was sent (the UI must wake:
    /// a parked pane's bell or title changes no frame).
    fn parse_some(
        p: &mut PaneEntry,
        budget: usize,
        buffers: &BufferPool,
        events: &FactBox,
        epoch: Instant,
        pane: PaneId,
    ) -> bool {
        let mut told = false;
        if !p.core.is_visible() && !p.unseen_reported && !p.queue.is_empty() {
            p.unseen_reported = true;
            told = true;
            let _ = events.send(PaneEvent::UnseenOutput { pane });
        }
        let mut left = budget;
        let timed = budget != usize::MAX;
        let started = Instant::now();
        let work_start = p.core.term.work_cells();
        let until_work_cells = if timed {
            work_start.saturating_add(SLICE_WORK_CELLS)
        } else {
            u64::MAX
        };
        while left > 0 {
            if timed && left != budget && started.elapsed() >= SLICE_TIME {
                break;
            }
            if p.core.term.work_cells() >= until_work_cells {
                break;
            }
            let Some(chunk) = p.queue.front_mut() else {
                break;
            };
            let piece = if timed {
                left.min(SLICE_PIECE_BYTES)
            } else {
                left
            };
            let end = chunk.data.len().min(chunk.offset.saturating_add(piece));
            let parsed = p
                .core
                .parse_bounded(&chunk.data[chunk.offset..end], until_work_cells);
            left -= parsed.consumed;
            chunk.offset += parsed.consumed;
            let read_at = chunk.read_at;
            if chunk.offset == chunk.data.len()
                && let Some(done) = p.queue.pop_front()
            {
                buffers.put(done.data);
            }
            p.credit.on_parsed(p.core.seq);
            let now = Instant::now();
            p.stats.last_parse_ns.store(
                now.saturating_duration_since(epoch).as_nanos() as u64,
                Ordering::Relaxed,
            );
            // Before the replies: a program that asks CPR after DECCOLM and then reads
            // TIOCGWINSZ sees the new size.
            told |= p.follow_program_size(events, pane);
            if !parsed.replies.is_empty() && p.answers_queries {
                p.writer.write(&parsed.replies);
                p.stats.replies_sent.fetch_add(1, Ordering::Relaxed);
                p.stats
                    .reply_bytes
                    .fetch_add(parsed.replies.len() as u64, Ordering::Relaxed);
                p.stats.reply_latency.record(read_at.elapsed());
            }
            let facts = coalesce(parsed.events);
            p.activity.on_output(now, &facts);
            for event in facts {
                told = true;
                let _ = events.send(PaneEvent::Fact { pane, event });
            }
            p.last_read_at = Some(read_at);
            if p.queue.is_empty() {
                // The burst ended: does the screen now ask the user something? Only if
                // it changed (the scan, a dozen rows through a regex, came right after
                // each answered query), and at the end of the round.
                p.question_due |= p.question_look() != p.question_looked;
            }
        }
        p.stats.slice_work_cells_max.fetch_max(
            p.core.term.work_cells().saturating_sub(work_start),
            Ordering::Relaxed,
        );
        p.stats
            .heap_bytes
            .store(p.core.term.heap_bytes() as u64, Ordering::Relaxed);
        p.stats
            .scrollback_lines
            .store(p.core.term.scrollback().len() as u64, Ordering::Relaxed);
        told
    }

    /// Builds the next delivery for a visible pane if the UI holds the credit.
    fn deliver(&mut self, pane: PaneId) {
        if self.put_delivery(pane) {
            (self.waker)();
        }
    }

    /// Puts the next delivery for a visible pane in its slot if the UI holds the credit;
    /// returns whether it did (the caller wakes the UI).
    fn put_delivery(&mut self, pane: PaneId) -> bool {
        let Some(p) = self.panes.get_mut(&pane) else {
            return false;
        };
        let started = Instant::now();
        if let Some(mut d) = p.core.next_delivery() {
            p.framed_seq = p.core.seq;
            p.stats
                .last_frame_ns
                .store(self.epoch.elapsed().as_nanos() as u64, Ordering::Relaxed);
            match &mut d {
                super::delivery::Delivery::Snapshot(s) => {
                    p.stats.snapshots_built.fetch_add(1, Ordering::Relaxed);
                    self.crumbs.push(
                        pane.0,
                        format!(
                            "snapshot seq {} ({} rows, {} history) built in {} µs",
                            s.seq,
                            s.rows.len(),
                            s.history.len(),
                            s.built_at.saturating_duration_since(started).as_micros()
                        ),
                    );
                }
                super::delivery::Delivery::Frame(f) => {
                    f.read_at = p.last_read_at;
                    p.stats.frames_built.fetch_add(1, Ordering::Relaxed);
                }
            }
            p.slot.put(d);
            return true;
        }
        false
    }

    /// Reports exits whose pane has parsed every byte read before the exit.
    fn flush_exits(&mut self) {
        let ready: Vec<PaneId> = self
            .pending_exits
            .keys()
            .copied()
            .filter(|pane| self.panes.get(pane).is_none_or(|p| p.queue.is_empty()))
            .collect();
        for pane in ready {
            if let Some(exit) = self.pending_exits.remove(&pane) {
                if let Some(p) = self.panes.get_mut(&pane) {
                    // Nothing is left to pop the program's keyboard flags.
                    p.core.term.reset_keyboard_flags();
                    p.activity.on_exit(Instant::now(), exit.code);
                    p.stats
                        .heap_bytes
                        .store(p.core.term.heap_bytes() as u64, Ordering::Relaxed);
                }
                self.deliver(pane);
                let _ = self.events.send(PaneEvent::Exited { pane, exit });
                (self.waker)();
            }
        }
    }
}

/// Collapses runs of the same kind of fact from one parse step: bells become one, and
/// only the last title, cwd, progress and notification count (a program printing OSC 9
/// in a loop sends one a step, and the app rate-limits what reaches the desktop).
fn coalesce(events: Vec<TermEvent>) -> Vec<TermEvent> {
    if events.len() < 2 {
        return events;
    }
    let mut out: Vec<TermEvent> = Vec::with_capacity(events.len());
    let last_title = events
        .iter()
        .rposition(|e| matches!(e, TermEvent::Title(_)));
    let last_cwd = events.iter().rposition(|e| matches!(e, TermEvent::Cwd(_)));
    // Each clipboard write replaces the one before, and one read answers them all: a
    // flood of 64 KiB requests must not pile up in the facts channel.
    let last_write = events.iter().rposition(|e| {
        matches!(
            e,
            TermEvent::Clipboard(crate::model::ClipboardRequest::Write { .. })
        )
    });
    let last_read = events.iter().rposition(|e| {
        matches!(
            e,
            TermEvent::Clipboard(crate::model::ClipboardRequest::Read { .. })
        )
    });
    let last_progress = events
        .iter()
        .rposition(|e| matches!(e, TermEvent::Progress(_)));
    let last_notification = events
        .iter()
        .rposition(|e| matches!(e, TermEvent::Notification(_)));
    // A program printing OSC 133 B..C in a loop: the last command line is enough.
    let last_command = events
        .iter()
        .rposition(|e| matches!(e, TermEvent::Command(_)));
    let mut bell = false;
    for (i, e) in events.into_iter().enumerate() {
        match e {
            TermEvent::Bell if bell => {}
            TermEvent::Bell => {
                bell = true;
                out.push(e);
            }
            TermEvent::Title(_) if Some(i) != last_title => {}
            TermEvent::Cwd(_) if Some(i) != last_cwd => {}
            TermEvent::Clipboard(crate::model::ClipboardRequest::Write { .. })
                if Some(i) != last_write => {}
            TermEvent::Clipboard(crate::model::ClipboardRequest::Read { .. })
                if Some(i) != last_read => {}
            TermEvent::Progress(_) if Some(i) != last_progress => {}
            TermEvent::Notification(_) if Some(i) != last_notification => {}
            TermEvent::Command(_) if Some(i) != last_command => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(body: &str) -> crate::model::notify::Notification {
        use crate::model::notify::{Notification, NotifySource};
        Notification::new(NotifySource::Osc9, "", body)
    }

    fn note(body: &str) -> TermEvent {
        TermEvent::Notification(n(body))
    }

    #[test]
    fn coalescing_keeps_the_last_clipboard_write_and_one_read() {
        use crate::model::ClipboardRequest;
        let write = |b: &str| {
            TermEvent::Clipboard(ClipboardRequest::Write {
                selection: "c".into(),
                base64: b.into(),
            })
        };
        let read = || {
            TermEvent::Clipboard(ClipboardRequest::Read {
                selection: "c".into(),
            })
        };
        let out = coalesce(vec![write("a"), read(), write("b"), read(), write("c")]);
        assert_eq!(out, vec![read(), write("c")]);
    }

    #[test]
    fn coalescing_keeps_one_bell_and_the_last_title() {
        let out = coalesce(vec![
            TermEvent::Bell,
            TermEvent::Title("a".into()),
            TermEvent::Bell,
            TermEvent::Title("b".into()),
            note("m"),
            TermEvent::Notification(n("n")),
        ]);
        assert_eq!(
            out,
            vec![
                TermEvent::Bell,
                TermEvent::Title("b".into()),
                TermEvent::Notification(n("n"))
            ]
        );
    }
}
