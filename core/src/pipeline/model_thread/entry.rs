//! One pane as the model thread holds it: its terminal, the read side of its pty, the
//! bytes read and not yet parsed, and what decides when its next frame is built.

use std::collections::VecDeque;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;
use std::time::Instant;

use crate::model::TermSize;
use crate::pipeline::ahead::AheadPane;
use crate::pipeline::chunk::Chunk;
use crate::pipeline::credit::Credit;
use crate::pipeline::delivery::Slot;
use crate::pipeline::diag::PtyStats;
use crate::pipeline::facts::FactBox;
use crate::pipeline::io::PtyWriter;
use crate::pipeline::pane::PaneCore;
use crate::pipeline::reader::{INTERACTIVE_BYTES, PtyInput};
use crate::pipeline::{PaneEvent, PaneId};

use super::FRAME_WAITS_BYTES;

pub struct PaneEntry {
    pub core: PaneCore,
    /// The pty's read side (read on this thread).
    pub(super) input: PtyInput,
    pub credit: Arc<Credit>,
    pub stats: Arc<PtyStats>,
    pub slot: Arc<Slot>,
    pub writer: Arc<PtyWriter>,
    pub(super) queue: VecDeque<Chunk>,
    pub(super) eof: bool,
    /// When the newest parsed chunk was read (carried by frames, for latency analysis).
    pub(super) last_read_at: Option<Instant>,
    /// Output while parked has been reported (once per parking, for the "unseen" badge).
    pub(super) unseen_reported: bool,
    /// The screen's edit count and cursor row when the question scan last looked: a
    /// burst that changed neither (a query answered) is not scanned again.
    pub(super) question_looked: Option<(u64, usize)>,
    /// A burst ended on a changed screen: the scan is due at the end of the round
    /// (`ModelThread::look_for_questions`), not before input that came meanwhile.
    pub(super) question_due: bool,
    /// Running / waiting / done / idle facts (`activity.rs`), shared with readers.
    pub activity: Arc<crate::pipeline::activity::ActivityCell>,
    /// The pty master, whose window size this thread alone sets (`None` in tests
    /// without a pty).
    pub(super) pty: Option<Arc<OwnedFd>>,
    /// The size the pty was last given: always the model's size after a parse step.
    pub(super) pty_size: TermSize,
    /// The cell size in pixels the pty was last given (its `ws_xpixel` over columns).
    pub(super) pty_cell_px: (usize, usize),
    /// Whether the model writes its query replies to the pty (`false` for a pane whose
    /// far side answers its program itself: a tmux pane).
    pub(super) answers_queries: bool,
    /// Bytes read directly since the last `EAGAIN`: a flood passes
    /// `ModelThread::read_ahead_after` and the pane is read ahead.
    pub(super) streak_bytes: u64,
    /// Set while the reading thread reads this pane (`ahead.rs`).
    pub(super) ahead: Option<Arc<AheadPane>>,
    /// Bytes parsed (`core.seq`) when the newest delivery was built.
    pub(super) framed_seq: u64,
    /// Bytes of the newest direct read.
    pub(super) last_read_bytes: usize,
    /// A frame waited for the next read (`frame_can_wait`): build it once that read
    /// finds the pty empty.
    pub(super) frame_owed: bool,
    /// Where a copy of each parsed piece goes (persisted scrollback), and how many
    /// of the first bytes parsed not to copy (history replayed from its own file).
    pub(super) history: Option<crate::history::Tap>,
    pub(super) untapped: u64,
    /// Parsed bytes for the history writer, sent at the end of the parse slice.
    pub(super) history_pending: Vec<u8>,
    /// What the last title sent to the UI shows ([`crate::model::title::shown`]): a
    /// title that shows the same wakes no one.
    pub(super) title_shown: String,
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
    pub(super) fn frame_can_wait(&self) -> bool {
        self.core.is_visible()
            && self.ahead.is_none()
            && self.last_read_bytes >= INTERACTIVE_BYTES
            && self.input.wants_read(&self.credit)
            && self.core.seq.saturating_sub(self.framed_seq) < FRAME_WAITS_BYTES
    }

    /// Whether the pane floods: read ahead, or direct reads brought `after_bytes` with
    /// no `EAGAIN` between. A query or a prompt does not.
    pub(super) fn floods(&self, after_bytes: u64) -> bool {
        self.ahead.is_some() || self.streak_bytes >= after_bytes
    }

    /// What the question scan depends on: the screen's edits and the cursor's row.
    pub(super) fn question_look(&self) -> Option<(u64, usize)> {
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
            pty_cell_px: core.term.cell_pixel_size(),
            core,
            answers_queries: true,
            streak_bytes: 0,
            ahead: None,
            framed_seq: 0,
            last_read_bytes: 0,
            frame_owed: false,
            history: None,
            untapped: 0,
            history_pending: Vec::new(),
            title_shown: String::new(),
        }
    }

    /// Whether the model answers the pane's queries (DSR, DA, DECRQM, OSC colours…);
    /// a remote pane's own emulator (tmux) already answers them.
    pub fn answering_queries(mut self, answers: bool) -> Self {
        self.answers_queries = answers;
        self
    }

    /// Bytes the pane's program wrote before this tern read its pty (what a keeper
    /// kept while no tern was attached): parsed first, like a read, so they count
    /// against the credit as read and come before anything read from the pty.
    pub fn with_replay(mut self, bytes: Vec<u8>, untapped: usize) -> Self {
        self.untapped = untapped as u64;
        if !bytes.is_empty() {
            self.credit.on_read(bytes.len() as u64);
            self.queue.push_back(crate::pipeline::chunk::Chunk {
                data: bytes,
                offset: 0,
                read_at: std::time::Instant::now(),
                sent_before: 0,
            });
        }
        self
    }

    /// Copies every parsed byte to the pane's history file.
    pub fn with_history(mut self, tap: Option<crate::history::Tap>) -> Self {
        self.history = tap;
        self
    }

    /// The pty master whose window size follows the model's.
    pub fn with_pty(mut self, fd: Arc<OwnedFd>) -> Self {
        self.pty = Some(fd);
        self
    }

    /// Gives the pty the model's size if it has another one (the kernel signals the
    /// child only on a change). Returns the size when it changed.
    pub(super) fn size_pty_to_model(&mut self) -> Option<TermSize> {
        let size = self.core.term.size();
        let cell_px = self.core.term.cell_pixel_size();
        if size == self.pty_size && cell_px == self.pty_cell_px {
            return None;
        }
        self.pty_size = size;
        self.pty_cell_px = cell_px;
        if let Some(fd) = &self.pty {
            // A pty whose child is gone refuses: nothing is left to tell.
            let _ = crate::pipeline::spawn::set_winsize_px(fd.as_fd(), size, cell_px);
        }
        Some(size)
    }

    /// After a parse step: a program that changed its page size (DECCOLM, DECSCPP,
    /// DECSLPP resize the model) gets the pty resized to match, and the UI is told; a
    /// size asked for with XTWINOPS 8 goes to the UI as a request. Returns whether a
    /// fact was sent.
    pub(super) fn follow_program_size(&mut self, events: &FactBox, pane: PaneId) -> bool {
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
