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

use std::os::fd::OwnedFd;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustix::event::{EventfdFlags, eventfd};

use super::command::SplitDirection;
use super::flow::{FlowConfig, FlowStats};
use super::layout::Layout;
use super::target::Transport;
use super::{PaneId as TmuxPane, SessionId, VersionError, WindowId};
use crate::pipeline::{PaneId, Pipeline, Waker};

/// What to connect to and how.
#[derive(Clone, Debug)]
pub struct ConnectSpec {
    pub transport: Transport,
    /// The tmux program and its options, as words (`["tmux"]`; tests add
    /// `-S SOCKET -f /dev/null`). Over ssh each word is quoted for the remote shell.
    pub tmux: Vec<String>,
    /// The session to attach, made if it does not exist (`new-session -A -s`); see
    /// [`super::target::session_name`].
    pub session_name: String,
    /// Where the session's first window starts (`-c`); `None`: the transport's path.
    pub start_dir: Option<String>,
    /// The client's size (`refresh-client -C`): the area tern gives the session.
    pub size: (u16, u16),
    /// `refresh-client -f pause-after=N`: tmux pauses a pane whose output is this
    /// many seconds behind (the stream is slower than the pane's output).
    pub pause_after_secs: u32,
    pub flow: FlowConfig,
}

impl ConnectSpec {
    pub fn new(transport: Transport, session_name: impl Into<String>) -> ConnectSpec {
        ConnectSpec {
            transport,
            tmux: vec![String::from("tmux")],
            session_name: session_name.into(),
            start_dir: None,
            size: (80, 24),
            pause_after_secs: 5,
            flow: FlowConfig::default(),
        }
    }
}

/// What the app asks of a connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RemoteCommand {
    /// The area tern gives the session (`refresh-client -C`); tmux lays its windows
    /// out in it and the panes follow their layout.
    ResizeClient {
        cols: u16,
        rows: u16,
    },
    SplitPane {
        pane: TmuxPane,
        direction: SplitDirection,
    },
    NewWindow {
        cwd: Option<String>,
    },
    KillPane(TmuxPane),
    SelectWindow(WindowId),
    SelectPane(TmuxPane),
    /// Reads the pane's screen again and writes it in (a repaint).
    Repaint(TmuxPane),
    /// Closes the control client's stdin: the client exits, the session runs on.
    Detach,
}

/// Why a connection ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DisconnectReason {
    /// [`RemoteCommand::Detach`] (or dropping the [`Connection`]) ended it.
    Detached,
    /// tmux ended the control client (`%exit`): the session was killed, the server
    /// exited, or another client detached this one.
    Exited { reason: Option<String> },
    /// The stream ended without `%exit` (the network, ssh, a tmux crash), or ssh
    /// failed before tmux ran (authentication, unknown host): its status and its last
    /// line on stderr.
    Lost {
        status: Option<i32>,
        stderr: Option<String>,
    },
    /// tmux is missing or older than 3.2.
    Version(VersionError),
    /// The process could not be started.
    Start(String),
}

impl std::fmt::Display for DisconnectReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DisconnectReason::Detached => write!(f, "detached"),
            DisconnectReason::Exited { reason: Some(r) } => write!(f, "tmux ended: {r}"),
            DisconnectReason::Exited { reason: None } => write!(f, "tmux ended the client"),
            DisconnectReason::Lost { status, stderr } => {
                write!(f, "connection lost")?;
                if let Some(s) = status {
                    write!(f, " (status {s})")?;
                }
                if let Some(line) = stderr {
                    write!(f, ": {line}")?;
                }
                Ok(())
            }
            DisconnectReason::Version(e) => write!(f, "{e}"),
            DisconnectReason::Start(e) => write!(f, "cannot start: {e}"),
        }
    }
}

/// What a connection reports, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RemoteEvent {
    /// tmux attached the client to the session.
    Connected {
        session: SessionId,
        name: String,
    },
    /// A window, once its index is known (before its first `Layout`).
    WindowAdded {
        window: WindowId,
        index: Option<u32>,
        name: String,
    },
    WindowClosed(WindowId),
    WindowRenamed {
        window: WindowId,
        name: String,
    },
    /// A window's layout, new or changed, with the tern pane of each tmux pane
    /// attached so far (the panes of a layout are attached before it is reported).
    Layout {
        window: WindowId,
        index: Option<u32>,
        layout: Layout,
        panes: Vec<(TmuxPane, PaneId)>,
    },
    /// A tmux pane is shown by a tern pane (hidden until the app reveals it).
    PaneAttached {
        remote: TmuxPane,
        pane: PaneId,
        window: WindowId,
    },
    /// A tmux pane is gone; its tern pane gets its end of file (then `Exited`).
    PaneGone {
        remote: TmuxPane,
        pane: PaneId,
    },
    ActiveWindow(WindowId),
    ActivePane {
        window: WindowId,
        remote: TmuxPane,
        pane: Option<PaneId>,
    },
    /// A line ssh (or tmux) wrote on stderr.
    Stderr(String),
    /// A command the app asked for failed.
    CommandFailed {
        command: String,
        message: String,
    },
    /// Something the connection could not make sense of and went past (bad lines,
    /// output for unknown panes); also in the pipeline's breadcrumbs.
    Problem(String),
    /// The connection ended; its panes got their end of file. Nothing follows.
    Disconnected(DisconnectReason),
}

/// Sends commands to a connection's thread (the kill hooks of its panes hold one).
#[derive(Clone)]
pub struct CommandTx {
    tx: Sender<RemoteCommand>,
    bell: Arc<OwnedFd>,
}

impl CommandTx {
    /// False once the connection's thread is gone.
    pub fn send(&self, command: RemoteCommand) -> bool {
        if self.tx.send(command).is_err() {
            return false;
        }
        let _ = rustix::io::write(&*self.bell, &1u64.to_ne_bytes());
        true
    }
}

/// The flow counters of one remote pane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemotePaneStats {
    pub remote: TmuxPane,
    pub pane: Option<PaneId>,
    pub kept_bytes: usize,
    pub paused: bool,
    pub flow: FlowStats,
}

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
