//! A tmux control-mode client (`tmux -C` / `tmux -CC`), without a window. Its protocol
//! half has no transport: it is handed the bytes tmux writes and a writer for the
//! commands it sends, so the same code serves a local `tmux -C` child and `ssh host
//! tmux -C`.
//!
//! - [`escape`]: tmux's octal escaping of pane output, decoded to exact bytes.
//! - [`layout`]: layout strings (`8205,80x24,0,0{…}`) as a split tree.
//! - [`notification`]: notification lines (`%window-add @1`, `%layout-change …`).
//! - [`parser`]: the streaming protocol parser: command reply blocks
//!   (`%begin … %end|%error`), pane output, notifications, typed errors.
//! - [`command`]: the commands tern sends, built so that no argument can break the
//!   command line, their replies parsed; the tmux version check.
//! - [`events`]: what a session reports (replies, changes, errors).
//! - [`session`]: [`ControlSession`], the state (windows, panes, layouts, paused
//!   panes) kept from what tmux says, each pane's bytes handed to its own sink, each
//!   reply matched to the command that caused it.
//!
//! And the transport, on top of those:
//!
//! - [`target`]: [`RemoteTarget`] (`ssh://user@host:port/path`, `alias:path`), session
//!   names, and the `ssh` / local `tmux` processes ([`Transport`]).
//! - [`flow`]: [`PaneFlow`], one remote pane's output mapped onto tern's credit
//!   (pause, keep, drop, continue with a repaint), pure.
//! - [`connection`]: [`Connection`], a thread per connection that runs the process,
//!   feeds the session, and shows each tmux pane as a pane of the
//!   [`crate::pipeline::Pipeline`] ([`crate::pipeline::Pipeline::attach`]).
//! - [`backoff`]: [`Backoff`], when to connect again.
//!
//! Control mode needs no terminal with `-C` (pipes are enough); `-CC` insists on one
//! (`tcgetattr failed` otherwise), wraps the stream in `ESC P 1000 p … ESC \` and, over
//! a pty, ends lines in `\r\n`. The parser accepts both forms.

pub mod backoff;
mod channel;
pub mod command;
pub mod connection;
pub mod escape;
pub mod events;
pub mod flow;
pub mod layout;
pub mod notification;
pub mod parser;
mod protocol_error;
pub mod session;
pub mod target;
mod worker;

use std::fmt;

pub use backoff::Backoff;
pub use command::{Command, FlowAction, PaneCursor, SplitDirection, TmuxVersion, VersionError};
pub use connection::{
    CommandTx, ConnectSpec, Connection, DisconnectReason, RemoteCommand, RemoteEvent,
    RemotePaneStats,
};
pub use events::{CommandId, Event, ReplyError, Response, SendError, SessionError};
pub use flow::{FlowConfig, FlowStats, FlowStep, PaneFlow};
pub use layout::{CellContent, Layout, LayoutCell, LayoutError};
pub use parser::{Message, Notification, Parser, ProtocolError, ReplyBlock};
pub use session::{ControlSession, PaneSink, PaneState, SessionConfig, WindowState};
pub use target::{RemoteTarget, SshOptions, TargetError, Transport, session_name};
pub use worker::{
    DETACH_GRACE, DETACH_LONGEST, MAX_REMOTE_PANE_COLS, MAX_REMOTE_PANE_ROWS, MAX_REMOTE_PANES,
    repaint_bytes,
};

/// A tmux pane id (`%3` is `TmuxPaneId(3)`): unique in the server, never reused. Not
/// the local [`crate::pipeline::PaneId`] tern gives the pane that shows it: the two
/// are paired where a remote pane is attached (`channel::RemoteEvent::PaneAttached`,
/// `Layout::panes`) and neither converts into the other:
///
/// ```compile_fail
/// let local: tern_core::pipeline::PaneId = tern_core::tmux::TmuxPaneId(3).into();
/// ```
///
/// ```compile_fail
/// let remote: tern_core::tmux::TmuxPaneId = tern_core::pipeline::PaneId(3).into();
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TmuxPaneId(pub u32);

/// A tmux window id (`@2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WindowId(pub u32);

/// A tmux session id (`$1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SessionId(pub u32);

macro_rules! sigil_id {
    ($ty:ident, $sigil:literal) => {
        impl $ty {
            /// Parses the id as tmux writes it, sigil first.
            pub fn parse(text: &str) -> Option<$ty> {
                let digits = text.strip_prefix($sigil)?;
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                digits.parse().ok().map($ty)
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($sigil, "{}"), self.0)
            }
        }
    };
}

sigil_id!(TmuxPaneId, "%");
sigil_id!(WindowId, "@");
sigil_id!(SessionId, "$");
