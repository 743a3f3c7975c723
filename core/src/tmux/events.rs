//! What a [`super::ControlSession`] reports: replies, events, errors.

use std::fmt;
use std::io;

use super::command::{CommandError, PaneInfo, WindowInfo};
use super::parser::{Notification, ProtocolError};
use super::{SessionId, TmuxPaneId, WindowId};

/// Most bytes of output held for panes not known yet (all such panes together).
pub const MAX_HELD_BYTES: usize = 4 << 20;

/// Names a command sent with [`ControlSession::send`](super::ControlSession::send), to match its [`Event::Reply`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CommandId(pub u64);

/// A successful reply, parsed for the command that caused it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Response {
    /// Any other command: its output lines, as tmux wrote them.
    Done {
        lines: Vec<Vec<u8>>,
    },
    /// `capture-pane`: one line per screen row (escape sequences for attributes).
    Screen {
        rows: Vec<Vec<u8>>,
    },
    Windows(Vec<WindowInfo>),
    Panes(Vec<PaneInfo>),
    /// `split-window`.
    NewPane {
        pane: TmuxPaneId,
    },
    /// `new-window`.
    NewWindow {
        window: WindowId,
        pane: TmuxPaneId,
    },
}

/// A command that did not succeed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplyError {
    /// tmux answered `%error` with this message.
    Failed { message: String },
    /// The reply's lines are not in the format asked for.
    Malformed { line: Vec<u8> },
    /// The stream ended before the reply came.
    Disconnected,
}

/// A command that could not be sent.
#[derive(Debug)]
pub enum SendError {
    Command(CommandError),
    Io(io::Error),
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendError::Command(e) => write!(f, "{e}"),
            SendError::Io(e) => write!(f, "writing to tmux: {e}"),
        }
    }
}

impl std::error::Error for SendError {}

impl From<io::Error> for SendError {
    fn from(e: io::Error) -> SendError {
        SendError::Io(e)
    }
}

/// Something the session could not make sense of; it goes on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionError {
    Protocol(ProtocolError),
    /// Output for a pane tmux does not list; `bytes` were dropped.
    UnknownPane {
        pane: TmuxPaneId,
        bytes: usize,
    },
    /// Output held for a pane not known yet went past [`MAX_HELD_BYTES`]; `bytes`
    /// of it were dropped.
    HeldOutputDropped {
        pane: TmuxPaneId,
        bytes: usize,
    },
    /// Output for `panes` panes not known yet found the held output at
    /// [`MAX_HELD_BYTES`]; their `bytes` were dropped.
    HeldOutputOverCap {
        panes: usize,
        bytes: usize,
    },
    /// A reply to a command this client did not send.
    UnexpectedReply {
        number: u64,
    },
    /// A command the session sent for itself (`list-windows`, the configured
    /// `refresh-client`) failed, or a line of its reply did not parse.
    OwnCommandFailed {
        command: String,
        message: String,
    },
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionError::Protocol(e) => write!(f, "{e}"),
            SessionError::UnknownPane { pane, bytes } => {
                write!(f, "output for unknown pane {pane} ({bytes} bytes dropped)")
            }
            SessionError::HeldOutputDropped { pane, bytes } => {
                write!(
                    f,
                    "output of pane {pane} arrived before its window; {bytes} bytes dropped"
                )
            }
            SessionError::HeldOutputOverCap { panes, bytes } => write!(
                f,
                "output for {panes} panes tmux had not listed yet went past the {} MiB held \
                 for such panes; {bytes} bytes dropped",
                MAX_HELD_BYTES >> 20
            ),
            SessionError::UnexpectedReply { number } => {
                write!(f, "reply {number} to no command sent")
            }
            SessionError::OwnCommandFailed { command, message } => {
                write!(f, "`{command}` failed: {message}")
            }
        }
    }
}

impl std::error::Error for SessionError {}

/// What changed, in the order tmux said it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    Reply {
        id: CommandId,
        result: Result<Response, ReplyError>,
    },
    WindowAdded(WindowId),
    WindowClosed(WindowId),
    WindowRenamed {
        window: WindowId,
        name: String,
    },
    /// The window's layout is new (read it with [`ControlSession::window`](super::ControlSession::window)).
    LayoutChanged(WindowId),
    ActivePaneChanged {
        window: WindowId,
        pane: TmuxPaneId,
    },
    ActiveWindowChanged(WindowId),
    /// A pane appeared; its sink is made.
    PaneAdded {
        pane: TmuxPaneId,
        window: WindowId,
    },
    /// A pane is gone; its sink is dropped.
    PaneClosed(TmuxPaneId),
    PaneModeChanged(TmuxPaneId),
    /// tmux stopped sending the pane's output (pause-after, or a `Pause` asked).
    PanePaused(TmuxPaneId),
    PaneContinued(TmuxPaneId),
    SessionChanged {
        session: SessionId,
        name: String,
    },
    SessionsChanged,
    ClientDetached {
        client: String,
    },
    /// The control client is exiting (`%exit`); nothing more will come.
    Exit {
        reason: Option<String>,
    },
    /// A notification the session keeps no state for (other sessions' windows,
    /// other clients, ones this parser does not know).
    Other(Notification),
    Error(SessionError),
}

/// What a command's reply is parsed as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ReplyKind {
    Done,
    Screen,
    Windows,
    Panes,
    NewPane,
    NewWindow,
}

pub(super) fn parse_response(kind: ReplyKind, lines: Vec<Vec<u8>>) -> Result<Response, ReplyError> {
    fn each<T>(
        lines: &[Vec<u8>],
        parse: impl Fn(&[u8]) -> Option<T>,
    ) -> Result<Vec<T>, ReplyError> {
        lines
            .iter()
            .map(|l| parse(l).ok_or_else(|| ReplyError::Malformed { line: l.clone() }))
            .collect()
    }
    let single = |lines: &[Vec<u8>]| -> Result<String, ReplyError> {
        match lines {
            [line] => Ok(String::from_utf8_lossy(line).into_owned()),
            _ => Err(ReplyError::Malformed {
                line: lines.concat(),
            }),
        }
    };
    Ok(match kind {
        ReplyKind::Done => Response::Done { lines },
        ReplyKind::Screen => Response::Screen { rows: lines },
        ReplyKind::Windows => Response::Windows(each(&lines, WindowInfo::parse)?),
        ReplyKind::Panes => Response::Panes(each(&lines, PaneInfo::parse)?),
        ReplyKind::NewPane => {
            let line = single(&lines)?;
            let pane = TmuxPaneId::parse(&line).ok_or_else(|| ReplyError::Malformed {
                line: line.clone().into_bytes(),
            })?;
            Response::NewPane { pane }
        }
        ReplyKind::NewWindow => {
            let line = single(&lines)?;
            let malformed = || ReplyError::Malformed {
                line: line.clone().into_bytes(),
            };
            let (window, pane) = line.split_once(' ').ok_or_else(malformed)?;
            Response::NewWindow {
                window: WindowId::parse(window).ok_or_else(malformed)?,
                pane: TmuxPaneId::parse(pane).ok_or_else(malformed)?,
            }
        }
    })
}
