//! A live connection to a tmux session: its process (`ssh host tmux -C …`, or a local
//! `tmux -C`), its thread, and each tmux pane as a tern pane of the [`Pipeline`].
//!
//! ```text
//!  ssh stdout ─▶ ControlSession::feed ─%output─▶ PaneFlow ─write─▶ slave ═pty═▶ master ─▶ model thread
//!  ssh stdin  ◀─ one command a line ◀─ send-keys -H ◀─ read ─ slave ◀═pty═ master ◀─ Pipeline::write
//!              ◀─ refresh-client -C / split / kill … ◀─ RemoteCommand (from the app)
//!  events ─▶ RemoteEvent channel + waker (connected, windows, layouts, panes, stderr, disconnected)
//! ```
//!
//! One thread per connection (`tern-remote-NAME`) waits in `epoll` on ssh's stdout,
//! stderr and stdin (when commands are queued), every pane's slave, and a bell the
//! app's commands ring. Nothing on it blocks: the slaves are written without blocking
//! (see [`super::flow`] for a pane whose model is behind), and commands for tmux are
//! queued and written as ssh takes them.
//!
//! Each tmux pane becomes a pane made by [`Pipeline::attach`]: the model thread
//! parses it like a local one, but does not answer its queries (tmux's own emulator
//! answers its programs). Its size follows tmux's layout; the app sizes the client
//! (`RemoteCommand::ResizeClient`), not the panes. When a pane is attached (and after
//! every pause) its screen is read with `capture-pane` and written in as a repaint,
//! since tmux sends an attaching client nothing of what is already on the screens.

use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustix::event::{EventfdFlags, eventfd};

use crate::pipeline::{Pipeline, Waker};

pub use super::channel::{
    CommandTx, ConnectSpec, DisconnectReason, RemoteCommand, RemoteEvent, RemotePaneStats,
};

/// A connection: its thread runs until the stream ends. Dropping it detaches (the
/// session runs on) and waits for the thread.
pub struct Connection {
    commands: CommandTx,
    events: Receiver<RemoteEvent>,
    thread: Option<std::thread::JoinHandle<()>>,
    panes: super::worker::Registry,
}

impl Connection {
    /// Starts the connection's thread: it checks tmux's version, starts the control
    /// client, and attaches each tmux pane to `pipeline` as it appears. Everything
    /// after this is reported as [`RemoteEvent`]s (`waker` is called after each batch).
    pub fn start(
        spec: ConnectSpec,
        pipeline: Arc<Pipeline>,
        waker: Waker,
    ) -> std::io::Result<Connection> {
        let bell = Arc::new(eventfd(0, EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK)?);
        let (tx, rx) = mpsc::channel();
        let commands = CommandTx {
            tx,
            bell: bell.clone(),
        };
        let (events_tx, events) = mpsc::channel();
        let panes: super::worker::Registry = Arc::new(Mutex::new(Default::default()));
        let worker = super::worker::Worker::new(super::worker::WorkerParts {
            spec,
            pipeline,
            events: events_tx,
            waker,
            commands: rx,
            commands_tx: commands.clone(),
            bell,
            registry: panes.clone(),
        });
        let name = format!("tern-remote-{}", worker.name());
        let thread = std::thread::Builder::new()
            .name(name)
            .spawn(move || worker.run())?;
        Ok(Connection {
            commands,
            events,
            thread: Some(thread),
            panes,
        })
    }

    /// Sends a command to the connection's thread; false once it ended.
    pub fn send(&self, command: RemoteCommand) -> bool {
        self.commands.send(command)
    }

    /// A sender for other threads.
    pub fn commands(&self) -> CommandTx {
        self.commands.clone()
    }

    /// Events since the last call.
    pub fn poll_events(&self) -> Vec<RemoteEvent> {
        self.events.try_iter().collect()
    }

    /// Waits up to `timeout` for the next event.
    pub fn wait_event(&self, timeout: Duration) -> Option<RemoteEvent> {
        self.events.recv_timeout(timeout).ok()
    }

    /// Each remote pane's flow counters (for diagnostics).
    pub fn pane_stats(&self) -> Vec<RemotePaneStats> {
        super::worker::stats(&self.panes)
    }

    /// Whether the connection's thread has ended.
    pub fn is_finished(&self) -> bool {
        self.thread.as_ref().is_none_or(|t| t.is_finished())
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.commands.send(RemoteCommand::Detach);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
