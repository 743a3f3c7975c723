//! What passes between the app, a [`super::Connection`] and its worker thread: what to
//! connect to, the commands the app sends, the events and stats that come back, and
//! why a connection ended.

use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::sync::mpsc::Sender;

use super::command::SplitDirection;
use super::flow::{FlowConfig, FlowStats};
use super::layout::Layout;
use super::target::Transport;
use super::{SessionId, TmuxPaneId, VersionError, WindowId};
use crate::pipeline::PaneId;

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
        pane: TmuxPaneId,
        direction: SplitDirection,
    },
    NewWindow {
        cwd: Option<String>,
    },
    KillPane(TmuxPaneId),
    SelectWindow(WindowId),
    SelectPane(TmuxPaneId),
    /// Reads the pane's screen again and writes it in (a repaint).
    Repaint(TmuxPaneId),
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
        panes: Vec<(TmuxPaneId, PaneId)>,
    },
    /// A tmux pane is shown by a tern pane (hidden until the app reveals it).
    PaneAttached {
        remote: TmuxPaneId,
        pane: PaneId,
        window: WindowId,
    },
    /// A tmux pane is gone; its tern pane gets its end of file (then `Exited`).
    PaneGone {
        remote: TmuxPaneId,
        pane: PaneId,
    },
    ActiveWindow(WindowId),
    ActivePane {
        window: WindowId,
        remote: TmuxPaneId,
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
    pub(super) tx: Sender<RemoteCommand>,
    pub(super) bell: Arc<OwnedFd>,
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
    pub remote: TmuxPaneId,
    pub pane: Option<PaneId>,
    pub kept_bytes: usize,
    pub paused: bool,
    pub flow: FlowStats,
}
