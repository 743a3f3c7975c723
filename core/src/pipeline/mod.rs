//! The pipeline between ptys and the UI (see `docs/ARCHITECTURE.md`):
//!
//! ```text
//!  child ─pty─▶ model thread (epoll: reads, credit-gated, parses) ─▶ replies straight to the pty
//!                  ▲                                               │ facts ─▶ events channel
//!  UI ─input───────┤ I/O pool (tokio, AsyncFd):                    │ deliveries ─▶ per-pane slot
//!                  └ queued writes (input, replies), child exits
//! ```

pub mod activity;
mod adopt;
pub mod ahead;
pub mod attach;
pub mod budget;
pub(crate) mod chunk;
mod closed;
pub mod credit;
pub mod delivery;
pub mod diag;
pub mod facts;
pub mod io;
pub mod model_thread;
mod new_pane;
pub mod pane;
mod pane_api;
pub mod priority;
pub mod reader;
pub mod readiness;
pub mod reply_poll;
mod reports;
mod requests;
pub mod search_all;
mod search_match;
mod search_start;
pub mod spawn;
pub mod throttle;

use std::collections::HashMap;
use std::os::fd::OwnedFd;
use std::sync::atomic::AtomicU64;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use portable_pty::{ChildKiller, MasterPty};

use crate::model::{ScreenDump, TermConfig, TermEvent, TermSize};

pub use adopt::{
    CrumbSink, Keep, KeptPane, Reattach, UNKNOWN_STATUS, new_pane_key, pidfd_exit_status,
};
pub use attach::{AttachSpec, Attached, StandIn, StandInChild};
use credit::Credit;
use delivery::Slot;
use diag::{APP_CRUMB, Breadcrumbs, PtyStats};
use io::{BufferPool, IoPool, PoolShared, PtyWriter};
use model_thread::{ModelDiag, ModelThread, PaneEntry};
use readiness::{ModelTx, Poller};
pub use requests::{Answer, HistoryPage, Pending, SearchProgress, SearchRequest, SearchResults};
pub use spawn::{SpawnError, SpawnSpec};

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
    /// The window's cell size in physical pixels (XTWINOPS 14/16, the pty's pixel
    /// size, images' sizes in cells).
    CellPixels {
        pane: PaneId,
        width_px: u16,
        height_px: u16,
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
    /// Searches many panes, one bounded slice per round (`search_all.rs`).
    SearchPanes {
        job: Box<search_match::PanesJobSpec>,
    },
    /// The search's matcher took a chunk: the next may be copied (wakes the thread).
    SearchCredit,
    Query {
        pane: PaneId,
        reply: Sender<ScreenDump>,
        /// Wake the UI when the dump is sent (an asynchronous request).
        wake: bool,
    },
    Shutdown,
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
    /// (`reply_poll.rs`; [`reply_poll::ReplyPoll::MAX`] by default, 0 never polls;
    /// `TERN_REPLY_POLL_MAX_US` sets another default, for measuring).
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
            reply_poll_max: std::env::var("TERN_REPLY_POLL_MAX_US")
                .ok()
                .and_then(|v| v.parse().ok())
                .map_or(reply_poll::ReplyPoll::MAX, std::time::Duration::from_micros),
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
    /// A program on a pty of ours (not a remote pane's stand-in).
    local: bool,
    /// The key the keeper holds it under.
    keeper_key: Option<u64>,
}

impl PaneHandle {
    /// SIGHUP to the child, through its pidfd when there is one (never to a reused pid).
    fn hang_up(&mut self) {
        if !spawn::hang_up(self.pidfd.as_ref()) {
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
    /// The face's UI thread ([`Pipeline::mark_ui_thread`]), and the calls made on it
    /// that waited for the model thread's answer ([`Pipeline::history`],
    /// [`Pipeline::dump_screen`]): invariant 5 says none.
    ui_thread: Mutex<Option<std::thread::ThreadId>>,
    ui_waits: AtomicU64,
    /// A person's last key or reveal: hidden floods are throttled for a while after it
    /// ([`throttle`]).
    interaction: Arc<throttle::Interaction>,
    /// The keeper that holds every local pane's pty ([`Pipeline::set_keeper`]).
    keeper: Mutex<Option<Box<dyn adopt::Keep>>>,
    /// Where each local pane's output is kept ([`Pipeline::set_history`]).
    history: Mutex<Option<Arc<crate::history::History>>>,
    /// Ids below it are kept for panes taken back from the keeper.
    reserved_below: AtomicU64,
    /// Panes closed during this session whose history is kept (`closed.rs`).
    closed: Mutex<closed::ClosedPanes>,
    /// Wakes the face (a search of closed panes answered).
    waker: Waker,
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
            waker.clone(),
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
            ui_thread: Mutex::new(None),
            ui_waits: AtomicU64::new(0),
            interaction,
            keeper: Mutex::new(None),
            history: Mutex::new(None),
            reserved_below: AtomicU64::new(0),
            closed: Mutex::default(),
            waker,
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

    fn with_pane<R>(&self, pane: PaneId, f: impl FnOnce(&mut PaneHandle) -> R) -> Option<R> {
        self.panes
            .lock()
            .ok()
            .and_then(|mut p| p.get_mut(&pane).map(f))
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        if let Ok(mut panes) = self.panes.lock() {
            for (_, mut p) in panes.drain() {
                p.hang_up();
            }
        }
        // Programs end with tern: the keeper lets go of them too.
        self.end_keeper();
        let _ = self.model_tx.send(ModelMsg::Shutdown);
        if let Some(t) = self.model.take() {
            let _ = t.join();
        }
    }
}
