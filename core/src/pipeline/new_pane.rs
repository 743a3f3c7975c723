//! Starting a pane: a spawned program ([`Pipeline::spawn`]) or bytes tern writes itself
//! ([`Pipeline::attach`]), registered with the model thread and the I/O pool.

use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::sync::Notify;

use crate::model::{TermConfig, TermSize};

use super::credit::Credit;
use super::delivery::Slot;
use super::diag::PtyStats;
use super::io::{PoolCmd, PtyWriter};
use super::model_thread::PaneEntry;
use super::pane::PaneCore;
use super::reader::PtyInput;
use super::{
    AttachSpec, Attached, ModelMsg, PANE_ENV, PaneHandle, PaneId, Pipeline, SpawnError, SpawnSpec,
    attach, spawn,
};

/// Where a pane's program runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PaneOrigin {
    /// A local child on a pty of ours.
    Local,
    /// Bytes tern writes itself (a remote tmux pane, [`Pipeline::attach`]).
    Attached { answers_queries: bool },
}

impl Pipeline {
    /// Starts a program in a new pane (hidden until [`Pipeline::set_visible`]).
    /// The program gets `TERN_PANE_ID` (its pane's id, for `tern msg`).
    pub fn spawn(&self, spec: &SpawnSpec) -> Result<PaneId, SpawnError> {
        let pane = PaneId(self.next_id.fetch_add(1, Ordering::Relaxed));
        let mut spec = spec.clone();
        spec.env.push((PANE_ENV.to_owned(), pane.0.to_string()));
        let spawned = spawn::spawn(&spec, self.config.default_size)?;
        let size = spec.size.unwrap_or(self.config.default_size);
        let what = match spawned.pid {
            Some(pid) => format!("spawned pid {pid}"),
            None => "spawned".to_owned(),
        };
        // A pane started again after its program was gone (a reboot): its history
        // first, then a line saying so, and it goes on under the same key.
        let extra = match spec.history_key {
            Some(key) => {
                let mut replay = self.history_of(key);
                if !replay.is_empty() {
                    replay.extend_from_slice(RESUMED_AFTER_HISTORY);
                }
                Extra {
                    untapped: replay.len(),
                    replay,
                    key: Some(key),
                }
            }
            None => Extra::default(),
        };
        self.register(pane, spawned, size, PaneOrigin::Local, what, extra);
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
        self.register(pane, spawned, size, origin, spec.label, Extra::default());
        Ok(Attached { pane, slave })
    }

    /// [`Pipeline::adopt`]'s registration: a local pane with bytes to replay first and
    /// the key the keeper holds it under.
    pub(super) fn register_with(
        &self,
        pane: PaneId,
        spawned: spawn::Spawned,
        size: TermSize,
        what: String,
        extra: Extra,
    ) {
        self.register(pane, spawned, size, PaneOrigin::Local, what, extra);
    }

    /// The shared second half of [`Pipeline::spawn`] and [`Pipeline::attach`]: the
    /// model thread reads the master from here on; the pool writes to it and waits for
    /// the child once the model read its end of file. A local pane is handed to the
    /// keeper when there is one.
    fn register(
        &self,
        pane: PaneId,
        spawned: spawn::Spawned,
        size: TermSize,
        origin: PaneOrigin,
        what: String,
        extra: Extra,
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
        // A local pane has a key when a keeper holds it or its history is kept.
        let local = origin == PaneOrigin::Local;
        let key = extra
            .key
            .or_else(|| (local && self.keeps_panes()).then(super::new_pane_key));
        let history = key.and_then(|k| self.history_tap(k));
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
        .answering_queries(answers_queries)
        .with_replay(extra.replay, extra.untapped)
        .with_history(history);
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
        if let (Some(key), Some(raw)) = (key, spawned.master.as_raw_fd()) {
            self.keep(pane, key, spawned.pid, &what, raw, spawned.pidfd.as_ref());
        }
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
                    local,
                    keeper_key: key,
                },
            );
        }
    }
}

/// After a pane's history and before its program starts again: the modes a
/// full-screen program left are reset, and a dim line says what happened.
const RESUMED_AFTER_HISTORY: &[u8] =
    b"\x1b[?1049l\x1b[?25h\x1b[0m\r\n\x1b[2m[tern] the history above is \
    from before; the program started again\x1b[0m\r\n";

/// What a registration brings besides the program: bytes to parse first, and the key
/// a keeper holds the pane under already.
#[derive(Default)]
pub(super) struct Extra {
    pub(super) replay: Vec<u8>,
    /// The first bytes of `replay` already in the history file.
    pub(super) untapped: usize,
    pub(super) key: Option<u64>,
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
