//! The pipeline between ptys and the UI (see `docs/ARCHITECTURE.md`):
//!
//! ```text
//!  child ─pty─▶ model thread (epoll: reads, credit-gated, parses) ─▶ replies straight to the pty
//!                  ▲                                               │ facts ─▶ events channel
//!  UI ─input───────┤ I/O pool (tokio, AsyncFd):                    │ deliveries ─▶ per-pane slot
//!                  └ queued writes (input, replies), child exits
//! ```

pub mod activity;
pub mod ahead;
pub mod attach;
pub mod budget;
pub(crate) mod chunk;
pub mod credit;
pub mod delivery;
pub mod diag;
pub mod facts;
pub mod io;
pub mod model_thread;
pub mod pane;
pub mod priority;
pub mod reader;
pub mod readiness;
pub mod reply_poll;
pub mod session;
pub mod throttle;

use std::collections::HashMap;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

use portable_pty::{ChildKiller, MasterPty};

use crate::model::{ScreenDump, TermConfig, TermEvent, TermSize};

pub use attach::{AttachSpec, Attached, StandIn, StandInChild};
use credit::Credit;
use delivery::{Delivery, Slot};
use diag::{APP_CRUMB, Breadcrumbs, PtyReport, PtyStats, Sample};
use io::{BufferPool, IoPool, PoolCmd, PoolShared, PtyWriter};
use model_thread::{ModelDiag, ModelThread, PaneEntry};
use pane::PaneCore;
use reader::PtyInput;
use readiness::{ModelTx, Poller};
pub use session::{SpawnError, SpawnSpec};

/// The environment variable carrying the id of the pane a program runs in (set by
/// [`Pipeline::spawn`]; `tern msg` reads it).
pub const PANE_ENV: &str = "TERN_PANE_ID";

/// Identifies a pane (one pty) for the life of the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PaneId(pub u64);

/// How a child ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExitInfo {
    pub code: i32,
    pub signal: Option<String>,
}

impl std::fmt::Display for ExitInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.signal {
            Some(s) => write!(f, "status {} ({s})", self.code),
            None => write!(f, "status {}", self.code),
        }
    }
}

/// What runs in a pane (see [`Pipeline::process_info`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessInfo {
    pub shell_pid: Option<u32>,
    /// The foreground process group's leader: the shell itself at its prompt.
    pub foreground_pid: Option<u32>,
    pub foreground_name: Option<String>,
    pub cwd: Option<std::path::PathBuf>,
}

impl ProcessInfo {
    /// A program other than the shell runs in the foreground (closing would kill it).
    pub fn runs_other_program(&self) -> bool {
        matches!((self.shell_pid, self.foreground_pid), (Some(s), Some(f)) if s != f)
    }
}

/// Called by the model thread when a delivery or event is ready (the app sets it to
/// `egui::Context::request_repaint`).
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// Facts and lifecycle events for the UI, for visible and hidden panes alike.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PaneEvent {
    Fact {
        pane: PaneId,
        event: TermEvent,
    },
    /// The child exited; every byte it wrote before has been parsed.
    Exited {
        pane: PaneId,
        exit: ExitInfo,
    },
    Error {
        pane: PaneId,
        message: String,
    },
    /// A parked pane produced output (sent once per parking).
    UnseenOutput {
        pane: PaneId,
    },
    /// The pane's program changed its page size (DECCOLM, DECSCPP, DECSLPP): the model
    /// and the pty have `size` now (the pty got it before any reply to what followed the
    /// request). The window follows, or sets the pane back to what fits
    /// ([`Pipeline::resize`]).
    Resized {
        pane: PaneId,
        size: TermSize,
    },
    /// The program asked for a size with XTWINOPS 8 (`CSI 8 ; rows ; cols t`, at most
    /// 1000x1000); nothing was resized. The app decides (config `resize_requests`).
    ResizeRequested {
        pane: PaneId,
        size: TermSize,
    },
}

/// Messages to the model thread.
pub enum ModelMsg {
    Chunk {
        pane: PaneId,
        data: Vec<u8>,
        read_at: Instant,
    },
    Eof {
        pane: PaneId,
        error: Option<String>,
    },
    Exited {
        pane: PaneId,
        exit: ExitInfo,
    },
    Add {
        pane: PaneId,
        entry: Box<PaneEntry>,
    },
    Remove {
        pane: PaneId,
    },
    /// A pane paused for its full write queue may be parsed again.
    WriteQueueDrained {
        pane: PaneId,
    },
    /// The reading thread queued bytes for a pane it reads ahead (`ahead.rs`), or gave
    /// the pane back.
    AheadData {
        pane: PaneId,
    },
    Resize {
        pane: PaneId,
        size: TermSize,
    },
    SetVisible {
        pane: PaneId,
        visible: bool,
    },
    Focus {
        pane: Option<PaneId>,
    },
    /// A new theme for every pane (config reload).
    Theme(crate::model::DynamicDefaults),
    Taken {
        pane: PaneId,
    },
    /// Scrollback lines from absolute line `first` (counted from the first line the
    /// pane ever scrolled off, so it names the same line however far the model has
    /// moved on since the asker's snapshot), at most `count`, oldest first.
    History {
        pane: PaneId,
        first: u64,
        count: usize,
        reply: Sender<HistoryPage>,
        /// Wake the UI when the page is sent (an asynchronous request).
        wake: bool,
    },
    /// Searches scrollback and screen, a slice per model-thread round.
    Search {
        pane: PaneId,
        query: crate::model::search::SearchQuery,
        reply: Sender<Result<SearchResults, String>>,
        progress: Arc<SearchProgress>,
    },
    Query {
        pane: PaneId,
        reply: Sender<ScreenDump>,
        /// Wake the UI when the dump is sent (an asynchronous request).
        wake: bool,
    },
    Shutdown,
}

/// An answer the model thread will send: [`Pending::take`] never blocks.
#[derive(Debug)]
pub struct Pending<T> {
    rx: mpsc::Receiver<T>,
}

/// Where a [`Pending`] answer is.
#[derive(Debug, PartialEq, Eq)]
pub enum Answer<T> {
    Ready(T),
    Waiting,
    /// No answer will come (the pane or the model thread is gone).
    Gone,
}

impl<T> Pending<T> {
    /// The answer, once it is there.
    pub fn poll(&self) -> Answer<T> {
        match self.rx.try_recv() {
            Ok(t) => Answer::Ready(t),
            Err(mpsc::TryRecvError::Empty) => Answer::Waiting,
            Err(mpsc::TryRecvError::Disconnected) => Answer::Gone,
        }
    }
}

/// A page of older scrollback, fetched on demand (scrolling, search).
#[derive(Clone, Debug)]
pub struct HistoryPage {
    /// Lines, oldest first.
    pub rows: Vec<crate::model::Row>,
    /// Absolute line of `rows[0]` (later than asked when older lines were dropped).
    pub first: u64,
    /// Lines the model holds in all.
    pub total: usize,
    /// Lines dropped off the scrollback before those held (the absolute line of the
    /// oldest one held).
    pub dropped: u64,
    /// `seq` the page was read at.
    pub seq: u64,
}

/// How far a search got, shared between the model thread and the asker.
#[derive(Debug, Default)]
pub struct SearchProgress {
    /// Scrollback lines searched so far.
    pub scanned: AtomicU64,
    /// Scrollback lines to search.
    pub total: AtomicU64,
    /// Set by the asker: the model thread drops the search at its next slice.
    pub cancelled: std::sync::atomic::AtomicBool,
}

/// A search running on the model thread. The asker never waits for it: it polls
/// [`SearchRequest::poll`] (the model thread wakes the UI when the answer is there),
/// shows [`SearchRequest::progress`], and cancels by [`SearchRequest::cancel`] or by
/// dropping the request.
#[derive(Debug)]
pub struct SearchRequest {
    rx: Receiver<Result<SearchResults, String>>,
    progress: Arc<SearchProgress>,
}

impl SearchRequest {
    /// The answer once it is there; `None` while the search runs.
    pub fn poll(&self) -> Option<Result<SearchResults, String>> {
        match self.rx.try_recv() {
            Ok(answer) => Some(answer),
            Err(mpsc::TryRecvError::Empty) => None,
            Err(mpsc::TryRecvError::Disconnected) => {
                Some(Err("the search was dropped (its pane is gone)".into()))
            }
        }
    }

    /// Waits up to `timeout` for the answer (tests and tools; the window polls).
    pub fn wait(&self, timeout: Duration) -> Result<SearchResults, String> {
        self.rx
            .recv_timeout(timeout)
            .map_err(|_| "the search did not finish".to_string())?
    }

    /// `(lines searched, lines to search)` of the scrollback.
    pub fn progress(&self) -> (u64, u64) {
        (
            self.progress.scanned.load(Ordering::Relaxed),
            self.progress.total.load(Ordering::Relaxed),
        )
    }

    pub fn cancel(&self) {
        self.progress.cancelled.store(true, Ordering::Relaxed);
    }
}

impl Drop for SearchRequest {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResults {
    /// Matches in order (scrollback lines first, then the screen), at most
    /// [`crate::model::search::MAX_MATCHES`]. Lines are absolute: counted from the first
    /// line the pane ever had (scrollback `dropped + index`, then the screen).
    pub matches: Vec<crate::model::search::SearchMatch>,
    /// Absolute line of the screen's first row when the search finished.
    pub first_screen_line: usize,
}

/// Pipeline settings.
#[derive(Clone, Debug)]
pub struct PipelineConfig {
    /// Bytes in flight per pty before its reader pauses.
    pub window_bytes: u64,
    pub term: TermConfig,
    pub default_size: TermSize,
    /// Most scrollback bytes all panes hold together (each pane also has its own caps
    /// in `term`). Over it, the largest histories lose their oldest lines first (see
    /// [`budget`]).
    pub total_scrollback_bytes: usize,
    /// Bytes a pty's reads bring with no `EAGAIN` between before a second thread reads
    /// it ahead of the parser (`ahead.rs`; [`ahead::AHEAD_AFTER_BYTES`] by default).
    pub read_ahead_after_bytes: u64,
    /// The longest the model thread polls for input after a reply before it sleeps
    /// (`reply_poll.rs`; [`reply_poll::ReplyPoll::MAX`] by default, 0 never polls).
    pub reply_poll_max: std::time::Duration,
    /// Hidden floods get a smaller share while a person types or looks at a pane
    /// ([`throttle`]; on by default, `TERN_NO_THROTTLE=1` turns it off for measuring).
    pub throttle_hidden: bool,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        PipelineConfig {
            window_bytes: 1 << 20,
            read_ahead_after_bytes: ahead::AHEAD_AFTER_BYTES,
            term: TermConfig::default(),
            default_size: TermSize::new(80, 24),
            total_scrollback_bytes: 512 * 1024 * 1024,
            reply_poll_max: reply_poll::ReplyPoll::MAX,
            throttle_hidden: std::env::var_os("TERN_NO_THROTTLE").is_none_or(|v| v == "0"),
        }
    }
}

struct PaneHandle {
    master: Box<dyn MasterPty + Send>,
    killer: Box<dyn ChildKiller + Send + Sync>,
    writer: Arc<PtyWriter>,
    slot: Arc<Slot>,
    credit: Arc<Credit>,
    stats: Arc<PtyStats>,
    activity: Arc<activity::ActivityCell>,
    visible: bool,
    pid: Option<u32>,
    pidfd: Option<OwnedFd>,
}

impl PaneHandle {
    /// SIGHUP to the child, through its pidfd when there is one (never to a reused pid).
    fn hang_up(&mut self) {
        if !session::hang_up(self.pidfd.as_ref()) {
            let _ = self.killer.kill();
        }
    }
}

/// The UI's handle on the whole pipeline.
pub struct Pipeline {
    config: PipelineConfig,
    model_tx: ModelTx,
    events: Arc<facts::FactBox>,
    pool: IoPool,
    model: Option<std::thread::JoinHandle<()>>,
    panes: Mutex<HashMap<PaneId, PaneHandle>>,
    next_id: AtomicU64,
    crumbs: Arc<Breadcrumbs>,
    model_diag: Arc<ModelDiag>,
    epoch: Instant,
    /// What new panes start with: the model's settings and the flow-control window
    /// (changed by [`Pipeline::set_theme`] and [`Pipeline::set_new_pane_settings`]).
    new_panes: Mutex<(TermConfig, u64)>,
    /// Pages of history asked for with [`Pipeline::history`] (each a wait for the
    /// model thread: the window's tests count them).
    history_pages: AtomicU64,
    /// A person's last key or reveal: hidden floods are throttled for a while after it
    /// (`throttle.rs`).
    interaction: Arc<throttle::Interaction>,
}

/// Where a pane's program runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PaneOrigin {
    /// A local child on a pty of ours.
    Local,
    /// Bytes tern writes itself (a remote tmux pane, [`Pipeline::attach`]).
    Attached { answers_queries: bool },
}

impl Pipeline {
    pub fn start(config: PipelineConfig, waker: Waker) -> std::io::Result<Pipeline> {
        let epoch = Instant::now();
        let (poller, model_tx) = Poller::new()?;
        let events = Arc::new(facts::FactBox::default());
        let buffers = Arc::new(BufferPool::default());
        let crumbs = Arc::new(Breadcrumbs::new(epoch, 512));
        let model_diag = Arc::new(ModelDiag::default());
        let mut thread = ModelThread::new(
            poller,
            events.clone(),
            waker,
            buffers.clone(),
            crumbs.clone(),
            model_diag.clone(),
            epoch,
        )
        .with_scrollback_budget(config.total_scrollback_bytes)
        .with_reply_poll_max(config.reply_poll_max);
        // `TERN_NO_READ_AHEAD=1` reads floods on the model thread too (for measuring).
        if std::env::var_os("TERN_NO_READ_AHEAD").is_none_or(|v| v == "0") {
            thread = thread.with_read_ahead(model_tx.clone(), config.read_ahead_after_bytes);
        }
        let interaction = Arc::new(throttle::Interaction::new(epoch));
        if config.throttle_hidden {
            thread = thread.with_interaction(interaction.clone());
        }
        let model_crumbs = crumbs.clone();
        let model = std::thread::Builder::new()
            .name("tern-model".into())
            .spawn(move || {
                // On a keystroke's path: wake ahead of busy neighbours (see `priority`).
                if !priority::ask_short_slice() {
                    model_crumbs.push(APP_CRUMB, "model thread: no short time slice");
                }
                thread.run()
            })?;
        let pool = IoPool::start(PoolShared {
            model: model_tx.clone(),
            buffers,
            crumbs: crumbs.clone(),
            epoch,
        })?;
        Ok(Pipeline {
            new_panes: Mutex::new((config.term.clone(), config.window_bytes)),
            config,
            model_tx,
            events,
            pool,
            model: Some(model),
            panes: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            crumbs,
            model_diag,
            epoch,
            history_pages: AtomicU64::new(0),
            interaction,
        })
    }

    /// Settings for panes started from now on (scrollback, cursor, flow-control window);
    /// running panes keep theirs. The theme is kept (see [`Pipeline::set_theme`]).
    pub fn set_new_pane_settings(&self, term: TermConfig, window_bytes: u64) {
        if let Ok(mut n) = self.new_panes.lock() {
            let palette = n.0.palette;
            *n = (TermConfig { palette, ..term }, window_bytes.max(4096));
        }
    }

    /// Changes the theme of every pane, now and for panes started later.
    pub fn set_theme(&self, theme: crate::model::DynamicDefaults) {
        if let Ok(mut t) = self.new_panes.lock() {
            t.0.palette = theme;
        }
        let _ = self.model_tx.send(ModelMsg::Theme(theme));
    }

    /// Starts a program in a new pane (hidden until [`Pipeline::set_visible`]).
    /// The program gets `TERN_PANE_ID` (its pane's id, for `tern msg`).
    pub fn spawn(&self, spec: &SpawnSpec) -> Result<PaneId, SpawnError> {
        let pane = PaneId(self.next_id.fetch_add(1, Ordering::Relaxed));
        let mut spec = spec.clone();
        spec.env.push((PANE_ENV.to_owned(), pane.0.to_string()));
        let spawned = session::spawn(&spec, self.config.default_size)?;
        let size = spec.size.unwrap_or(self.config.default_size);
        let what = match spawned.pid {
            Some(pid) => format!("spawned pid {pid}"),
            None => "spawned".to_owned(),
        };
        self.register(pane, spawned, size, PaneOrigin::Local, what);
        Ok(pane)
    }

    /// A pane whose bytes come from tern itself instead of a local child (a tmux pane
    /// through a control-mode connection): tern opens a pty pair, keeps the master like
    /// a spawned pane's, and hands the caller the slave ([`Attached::slave`], raw:
    /// bytes pass unchanged both ways). What the caller writes into the slave is read,
    /// credited, parsed, parked and snapshotted exactly like a program's output;
    /// [`Pipeline::write`] comes out of the slave. When the slave cannot take more
    /// (`EAGAIN`), the model is behind: the caller holds back (see `tmux::flow`).
    /// Hidden until [`Pipeline::set_visible`].
    pub fn attach(&self, spec: AttachSpec) -> Result<Attached, SpawnError> {
        let pane = PaneId(self.next_id.fetch_add(1, Ordering::Relaxed));
        let size = spec.size.unwrap_or(self.config.default_size);
        let (spawned, slave) = attach::open_attached(size, spec.child)?;
        let origin = PaneOrigin::Attached {
            answers_queries: spec.answers_queries,
        };
        self.register(pane, spawned, size, origin, spec.label);
        Ok(Attached { pane, slave })
    }

    /// The shared second half of [`Pipeline::spawn`] and [`Pipeline::attach`]: the
    /// model thread reads the master from here on; the pool writes to it and waits for
    /// the child once the model read its end of file.
    fn register(
        &self,
        pane: PaneId,
        spawned: session::Spawned,
        size: TermSize,
        origin: PaneOrigin,
        what: String,
    ) {
        let answers_queries = match origin {
            PaneOrigin::Local => true,
            PaneOrigin::Attached { answers_queries } => answers_queries,
        };
        let fd: Arc<OwnedFd> = Arc::new(spawned.fd);
        let model_tx = self.model_tx.clone();
        let writer = Arc::new(PtyWriter::new(
            fd.clone(),
            Box::new(move || {
                let _ = model_tx.send(ModelMsg::WriteQueueDrained { pane });
            }),
        ));
        let (term, window_bytes) = self
            .new_panes
            .lock()
            .map(|n| n.clone())
            .unwrap_or_else(|_| (self.config.term.clone(), self.config.window_bytes));
        // An attached pane's program runs on another machine: its OSC 7 stays remote.
        let term = TermConfig {
            far_side: matches!(origin, PaneOrigin::Attached { .. }),
            ..term
        };
        let credit = Arc::new(Credit::new(window_bytes));
        let stats = Arc::new(PtyStats::default());
        let slot = Arc::new(Slot::default());
        let killer = spawned.child.clone_killer();
        let ended = Arc::new(Notify::new());
        let entry = PaneEntry::new(
            PaneCore::new(size, term),
            PtyInput::new(fd.clone(), ended.clone()),
            credit.clone(),
            stats.clone(),
            slot.clone(),
            writer.clone(),
        )
        .with_pty(fd.clone())
        .answering_queries(answers_queries);
        let activity = entry.activity.clone();
        let _ = self.model_tx.send(ModelMsg::Add {
            pane,
            entry: Box::new(entry),
        });
        self.pool.send(PoolCmd::Add {
            pane,
            fd,
            ended,
            writer: writer.clone(),
            child: spawned.child,
            // The pool learns of the exit from it (readable when the child ends).
            exited: spawned.pidfd.as_ref().and_then(|fd| fd.try_clone().ok()),
        });
        self.crumbs.push(pane.0, what);
        if let Some(note) = &spawned.note {
            self.crumbs.push(pane.0, note.clone());
            warn_once(note);
        }
        if let Ok(mut panes) = self.panes.lock() {
            panes.insert(
                pane,
                PaneHandle {
                    master: spawned.master,
                    killer,
                    writer,
                    slot,
                    credit,
                    stats,
                    activity,
                    visible: false,
                    pid: spawned.pid,
                    pidfd: spawned.pidfd,
                },
            );
        }
    }

    fn with_pane<R>(&self, pane: PaneId, f: impl FnOnce(&mut PaneHandle) -> R) -> Option<R> {
        self.panes
            .lock()
            .ok()
            .and_then(|mut p| p.get_mut(&pane).map(f))
    }

    /// Bytes for the pane's model as if its program had written them (a restored
    /// session's last screen, shown as history above the new prompt). They count as
    /// read, so the credit books stay exact.
    pub fn feed(&self, pane: PaneId, bytes: &[u8]) {
        let Some(credit) = self.with_pane(pane, |p| p.credit.clone()) else {
            return;
        };
        credit.on_read(bytes.len() as u64);
        let _ = self.model_tx.send(ModelMsg::Chunk {
            pane,
            data: bytes.to_vec(),
            read_at: Instant::now(),
        });
    }

    /// Keystrokes and paste: straight to the pty (never through the model). Counts as
    /// the user's input for the pane's activity (a waiting pane is answered).
    pub fn write(&self, pane: PaneId, bytes: &[u8]) {
        if let Some(w) = self.with_pane(pane, |p| {
            p.activity.on_input(Instant::now());
            p.writer.clone()
        }) {
            self.interaction.touch();
            w.write(bytes);
        }
    }

    /// Bytes the terminal itself sends (focus reports, answers the UI gives): like
    /// [`Pipeline::write`], but not the user's input.
    pub fn write_report(&self, pane: PaneId, bytes: &[u8]) {
        if let Some(w) = self.with_pane(pane, |p| p.writer.clone()) {
            w.write(bytes);
        }
    }

    /// Like [`Pipeline::write`] for a stream of any size (headless stdin): blocks the
    /// calling thread while the pane's write queue is over
    /// [`io::WRITE_QUEUE_HIGH_BYTES`], so memory stays bounded.
    pub fn write_when_room(&self, pane: PaneId, bytes: &[u8]) {
        if let Some(w) = self.with_pane(pane, |p| p.writer.clone()) {
            w.write_when_room(bytes);
        }
    }

    /// Bytes waiting to be written to the pane's pty (replies and input its program has
    /// not read yet); bounded by backpressure near [`io::WRITE_QUEUE_HIGH_BYTES`].
    pub fn write_queue_bytes(&self, pane: PaneId) -> Option<usize> {
        self.with_pane(pane, |p| p.writer.queued_bytes())
    }

    /// What the pane is doing now (running, waiting, done, idle), see [`activity`].
    pub fn activity(&self, pane: PaneId) -> Option<activity::ActivityReport> {
        let cell = self.with_pane(pane, |p| p.activity.clone())?;
        Some(cell.report(Instant::now()))
    }

    /// Every pane's activity, by pane id (for `tern msg list`, the sidebar, the
    /// switcher).
    pub fn activities(&self) -> Vec<(PaneId, activity::ActivityReport)> {
        let cells: Vec<_> = self
            .panes
            .lock()
            .map(|p| p.iter().map(|(id, h)| (*id, h.activity.clone())).collect())
            .unwrap_or_default();
        let now = Instant::now();
        let mut out: Vec<_> = cells
            .into_iter()
            .map(|(id, c)| (id, c.report(now)))
            .collect();
        out.sort_by_key(|(id, _)| *id);
        out
    }

    /// Resizes the pane's model and pty. The model thread does both (the model first,
    /// so every byte the child writes after its SIGWINCH is parsed at the new size), so
    /// it is the pty's only resizer and a program's own resize (DECCOLM) cannot leave
    /// the pty and the model apart.
    pub fn resize(&self, pane: PaneId, size: TermSize) {
        let _ = self.model_tx.send(ModelMsg::Resize { pane, size });
    }

    /// Shows (reveal: a snapshot, then frames) or parks a pane.
    pub fn set_visible(&self, pane: PaneId, visible: bool) {
        self.with_pane(pane, |p| {
            p.visible = visible;
            p.slot.clear();
            if visible {
                p.activity.on_seen(Instant::now());
            }
        });
        if visible {
            self.interaction.touch();
        }
        let _ = self.model_tx.send(ModelMsg::SetVisible { pane, visible });
    }

    pub fn set_focus(&self, pane: Option<PaneId>) {
        let _ = self.model_tx.send(ModelMsg::Focus { pane });
    }

    /// Takes the pane's pending delivery, returning the credit to the model.
    pub fn take(&self, pane: PaneId) -> Option<Delivery> {
        let slot = self.with_pane(pane, |p| p.slot.clone())?;
        let d = slot.take()?;
        let _ = self.model_tx.send(ModelMsg::Taken { pane });
        Some(d)
    }

    /// Like [`Pipeline::take`], waiting up to `timeout` for the delivery. For a pane
    /// just revealed: its snapshot is one viewport's copy away, and waiting that long
    /// beats showing an empty pane for a whole frame (invariant 5 allows the UI to
    /// wait for the model that long, no longer).
    pub fn take_within(&self, pane: PaneId, timeout: Duration) -> Option<Delivery> {
        let slot = self.with_pane(pane, |p| p.slot.clone())?;
        let d = slot.take_within(timeout)?;
        let _ = self.model_tx.send(ModelMsg::Taken { pane });
        Some(d)
    }

    /// Facts and exits since the last call.
    pub fn poll_events(&self) -> Vec<PaneEvent> {
        self.events.drain()
    }

    /// Waits up to `timeout` for the next event.
    pub fn wait_event(&self, timeout: Duration) -> Option<PaneEvent> {
        self.events.recv_timeout(timeout)
    }

    /// The model's current screen of a pane, after parsing everything read so far.
    pub fn dump_screen(&self, pane: PaneId) -> Option<ScreenDump> {
        let (tx, rx) = mpsc::channel();
        self.model_tx
            .send(ModelMsg::Query {
                pane,
                reply: tx,
                wake: false,
            })
            .ok()?;
        rx.recv_timeout(Duration::from_secs(10)).ok()
    }

    /// [`Pipeline::dump_screen`] without waiting: the dump arrives in the returned
    /// [`Pending`] and the waker runs when it does. For the window, which never waits
    /// on the model thread (invariant 5).
    pub fn request_dump(&self, pane: PaneId) -> Pending<ScreenDump> {
        let (tx, rx) = mpsc::channel();
        let _ = self.model_tx.send(ModelMsg::Query {
            pane,
            reply: tx,
            wake: true,
        });
        Pending { rx }
    }

    /// [`Pipeline::history`] without waiting (see [`Pipeline::request_dump`]).
    pub fn request_history(&self, pane: PaneId, first: u64, count: usize) -> Pending<HistoryPage> {
        self.history_pages.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel();
        let _ = self.model_tx.send(ModelMsg::History {
            pane,
            first,
            count,
            reply: tx,
            wake: true,
        });
        Pending { rx }
    }

    /// Pages older scrollback: up to `count` lines from absolute line `first` (see
    /// [`HistoryPage::first`]; a snapshot's `scrollback_dropped + scrollback_lines` is
    /// the line just below its history). Cost is O(count), whatever the history length.
    pub fn history(&self, pane: PaneId, first: u64, count: usize) -> Option<HistoryPage> {
        self.history_pages.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel();
        self.model_tx
            .send(ModelMsg::History {
                pane,
                first,
                count,
                reply: tx,
                wake: false,
            })
            .ok()?;
        rx.recv_timeout(Duration::from_secs(10)).ok()
    }

    /// How many pages [`Pipeline::history`] was asked for (by anyone, since the start).
    pub fn history_pages(&self) -> u64 {
        self.history_pages.load(Ordering::Relaxed)
    }

    /// Starts a search of the pane's scrollback and screen (on the model thread, after
    /// parsing what has been read); returns at once.
    pub fn start_search(
        &self,
        pane: PaneId,
        query: &crate::model::search::SearchQuery,
    ) -> SearchRequest {
        let (tx, rx) = mpsc::channel();
        let progress = Arc::new(SearchProgress::default());
        // A model thread that is gone drops `tx`: `poll` then says so.
        let _ = self.model_tx.send(ModelMsg::Search {
            pane,
            query: query.clone(),
            reply: tx,
            progress: progress.clone(),
        });
        SearchRequest { rx, progress }
    }

    /// Searches and waits for the answer (for tools and tests; the window uses
    /// [`Pipeline::start_search`]).
    pub fn search(
        &self,
        pane: PaneId,
        query: &crate::model::search::SearchQuery,
    ) -> Result<SearchResults, String> {
        self.start_search(pane, query).wait(Duration::from_secs(30))
    }

    /// Kills the child (if still running) and forgets the pane.
    pub fn close(&self, pane: PaneId) {
        if let Some(mut handle) = self.panes.lock().ok().and_then(|mut p| p.remove(&pane)) {
            handle.hang_up();
        }
        self.pool.send(PoolCmd::Remove(pane));
        let _ = self.model_tx.send(ModelMsg::Remove { pane });
        self.crumbs.push(pane.0, "closed");
    }

    pub fn pid(&self, pane: PaneId) -> Option<u32> {
        self.with_pane(pane, |p| p.pid).flatten()
    }

    /// What runs in the pane now: the shell's pid, the foreground process group's
    /// leader and its name, and the shell's working directory (Linux `/proc`; `None`
    /// parts elsewhere). Cheap enough for a tab title refresh now and then.
    pub fn process_info(&self, pane: PaneId) -> Option<ProcessInfo> {
        let (shell, fg) = self.with_pane(pane, |p| (p.pid, p.master.process_group_leader()))?;
        let foreground = fg.and_then(|pid| u32::try_from(pid).ok());
        let name = |pid: u32| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .ok()
                .map(|s| s.trim_end().to_owned())
        };
        Some(ProcessInfo {
            shell_pid: shell,
            foreground_pid: foreground,
            foreground_name: foreground.and_then(name),
            cwd: shell.and_then(|pid| std::fs::read_link(format!("/proc/{pid}/cwd")).ok()),
        })
    }

    /// A person typed or looked at a pane now (keys and reveals count already): hidden
    /// floods get a smaller share for [`throttle::INTERACTION_MS`].
    pub fn note_interaction(&self) {
        self.interaction.touch();
    }

    /// Keys and reveals noted so far ([`Pipeline::note_interaction`]).
    pub fn interactions(&self) -> u64 {
        self.interaction.count()
    }

    pub fn credit(&self, pane: PaneId) -> Option<Arc<Credit>> {
        self.with_pane(pane, |p| p.credit.clone())
    }

    pub fn stats(&self, pane: PaneId) -> Option<Arc<PtyStats>> {
        self.with_pane(pane, |p| p.stats.clone())
    }

    pub fn breadcrumbs(&self) -> Vec<diag::Breadcrumb> {
        self.crumbs.snapshot()
    }

    /// Adds the app's own rare transition (config reload, an error) to the breadcrumb
    /// ring, for a pane or (`None`) for the app.
    pub fn breadcrumb(&self, pane: Option<PaneId>, what: impl Into<String>) {
        self.crumbs.push(pane.map_or(APP_CRUMB, |p| p.0), what);
    }

    /// The model thread's busy time (ns) and rounds, cumulative.
    pub fn model_busy(&self) -> (u64, u64) {
        let s = &self.model_diag.stats;
        (
            s.busy_ns.load(Ordering::Relaxed),
            s.rounds.load(Ordering::Relaxed),
        )
    }

    /// The model thread's polls after replies ([`reply_poll`]), cumulative.
    pub fn model_reply_polls(&self) -> diag::ReplyPolls {
        self.model_diag.stats.reply_polls()
    }

    /// The last minute of counter samples, oldest first.
    pub fn samples(&self) -> Vec<Sample> {
        self.model_diag.samples.snapshot()
    }

    /// Time since the pipeline started (the clock of breadcrumbs and samples).
    pub fn uptime(&self) -> Duration {
        self.epoch.elapsed()
    }

    /// The delivery table, built now from the counters.
    pub fn report(&self) -> Vec<PtyReport> {
        let now_ns = self.epoch.elapsed().as_nanos() as u64;
        let age = |ns: u64| {
            if ns == 0 {
                None
            } else {
                Some(now_ns.saturating_sub(ns) / 1_000_000)
            }
        };
        let Ok(panes) = self.panes.lock() else {
            return Vec::new();
        };
        let mut rows: Vec<PtyReport> = panes
            .iter()
            .map(|(id, p)| {
                let s = &p.stats;
                // Parsed first: read can only have grown since, so the row holds
                // read = parsed + in flight exactly.
                let bytes_parsed = p.credit.parsed_total();
                let bytes_read = p.credit.read_total();
                PtyReport {
                    pane: id.0,
                    visible: p.visible,
                    bytes_read,
                    bytes_parsed,
                    in_flight: bytes_read.saturating_sub(bytes_parsed),
                    window: p.credit.window_bytes(),
                    throttled: p.credit.is_limited(),
                    slices_rested: s.slices_rested.load(Ordering::Relaxed),
                    paused_now: p.credit.is_paused(),
                    times_paused: p.credit.times_paused(),
                    frames_built: s.frames_built.load(Ordering::Relaxed),
                    frames_taken: s.frames_taken.load(Ordering::Relaxed),
                    snapshots_built: s.snapshots_built.load(Ordering::Relaxed),
                    replies_sent: s.replies_sent.load(Ordering::Relaxed),
                    reply_p50_us: s.reply_latency.quantile_us(0.5),
                    reply_p99_us: s.reply_latency.quantile_us(0.99),
                    last_read_age_ms: age(s.last_read_ns.load(Ordering::Relaxed)),
                    last_parse_age_ms: age(s.last_parse_ns.load(Ordering::Relaxed)),
                    last_frame_age_ms: age(s.last_frame_ns.load(Ordering::Relaxed)),
                    reply_latency_buckets: s.reply_latency.buckets(),
                    heap_bytes: s.heap_bytes.load(Ordering::Relaxed),
                    scrollback_lines: s.scrollback_lines.load(Ordering::Relaxed),
                }
            })
            .collect();
        rows.sort_by_key(|r| r.pane);
        rows
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        if let Ok(mut panes) = self.panes.lock() {
            for (_, mut p) in panes.drain() {
                p.hang_up();
            }
        }
        let _ = self.model_tx.send(ModelMsg::Shutdown);
        if let Some(t) = self.model.take() {
            let _ = t.join();
        }
    }
}

/// Prints a start-up problem to stderr once per run (each pane's breadcrumb still says
/// it): a hundred shells that could not get their integration are one line, not a
/// hundred.
fn warn_once(note: &str) {
    static WARNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if !WARNED.swap(true, Ordering::Relaxed) {
        eprintln!("tern: {note}");
    }
}
