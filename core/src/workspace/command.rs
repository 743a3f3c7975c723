//! What can change the workspace, who asked, and what a face must do afterwards.
//!
//! Every change to the workspace — a key, a palette entry, a click on the chrome, a
//! `tern msg` request, a program exiting — is a [`Command`] applied by
//! [`super::WorkspaceCore::apply`] in one place. The core does what needs no face
//! itself (spawning, closing, writing to a pane) and returns the rest as [`Effect`]s
//! for the face that runs it (the window, or `tern --headless`).

use std::path::PathBuf;

use super::tree::{Location, TabId};
use crate::model::TermSize;
use crate::pipeline::PaneId;
use crate::session::SessionState;
use crate::tmux::RemoteEvent;
use crate::workspace::split_tree::{Axis, Direction};

/// One change to the workspace.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// A tab in `group`, else the group that holds `cwd` (a new group for a folder no
    /// group holds; the active group, in its folder, without one), running `program`
    /// (empty: the configured shell), named `title` when given, at `size` (see
    /// [`Command::sized`]).
    NewTab {
        group: Option<usize>,
        cwd: Option<PathBuf>,
        title: Option<String>,
        program: Vec<String>,
        size: Option<TermSize>,
    },
    /// Splits `pane` (the focused one without it) along `axis`; the new pane starts in
    /// `cwd`, else the split pane's folder, at `size`.
    Split {
        pane: Option<PaneId>,
        axis: Axis,
        cwd: Option<PathBuf>,
        program: Vec<String>,
        size: Option<TermSize>,
    },
    /// Types `text` into the pane's program.
    SendText {
        pane: PaneId,
        text: String,
    },
    /// Shows the pane: its group, its tab, focused.
    Focus(PaneId),
    /// Shows the pane, in any worktree, that has waited longest for the user
    /// ([`super::WorkspaceCore::longest_waiting`]); `Outcome::Pane` names it.
    FocusNextWaiting,
    /// Closes the pane, without asking (a face asks before it sends this).
    Close(PaneId),
    /// Closes every pane of the active tab, without asking.
    CloseTab,
    /// The next (`1`) or previous (`-1`) tab of the active group.
    CycleTab(isize),
    /// The active group's tab at this index.
    SelectTab(usize),
    /// Moves the active tab one place left (`-1`) or right (`1`).
    MoveTab(isize),
    /// Moves a tab of `group` from one place to another (a drag on the tab bar).
    MoveTabTo {
        group: usize,
        from: usize,
        to: usize,
    },
    /// Names a tab (`None`: it shows its pane's title again).
    RenameTab {
        tab: TabId,
        name: Option<String>,
    },
    /// Sets the share of the split at `path` in the tab at `at` (a divider dragged).
    SetRatio {
        at: Location,
        path: Vec<bool>,
        ratio: f32,
    },
    /// Focus moves to the pane beside the focused one.
    FocusDirection(Direction),
    /// Moves the focused pane's edge by a share of the split.
    Resize(Direction, f32),
    ToggleZoom,
    Equalize,
    /// The next (`1`) or previous (`-1`) worktree group.
    CycleGroup(isize),
    /// A worktree group at `path` (made unless one is there), active, with a first tab
    /// running `start` (else the shell) at `size` when it has none.
    OpenGroup {
        name: String,
        path: PathBuf,
        repo: Option<PathBuf>,
        start: Option<Vec<String>>,
        size: Option<TermSize>,
    },
    /// The group at `path` belongs to the repository at `repo` (the sidebar found it
    /// among that repository's worktrees), so a new worktree is added there.
    SetRepo {
        path: PathBuf,
        repo: PathBuf,
    },
    /// Closes every pane of the group at `path` and removes it.
    RemoveGroup(PathBuf),
    /// A pane the face started before the workspace was there (the window's first,
    /// started while the window opens) joins the group at `path` (made unless one is
    /// there) as a tab; `launched`: the program it runs when not the shell.
    Adopt {
        pane: PaneId,
        path: PathBuf,
        launched: Option<Vec<String>>,
    },
    /// The agent in `pane` said what it does (its hook through `tern msg agent-event`,
    /// or `tern msg set-status`): its state until a newer report or its program ends,
    /// and its conversation (resumed after a restart).
    Report {
        pane: PaneId,
        report: crate::agent::AgentReport,
    },
    /// The remote worktree the text names (`ssh://host/path`, `host:path`) becomes a
    /// group and connects; one already open is shown (and reconnected if it is down).
    AddRemote(String),
    /// Detaches from the remote worktree keyed `host:path` and drops its group: its
    /// programs run on in tmux, and the session no longer lists it.
    ForgetRemote(PathBuf),
    /// A remote worktree's tmux told what changed there (windows, layouts, panes,
    /// focus, the connection's state): the group keyed `remote` follows it.
    Tmux {
        remote: PathBuf,
        event: RemoteEvent,
    },
    /// Start-up, the same for both faces: the saved session restored when there is
    /// one; else (or when it restored nothing) a first tab in `dir`.
    Start(Box<Start>),
}

/// What [`Command::Start`] starts from.
#[derive(Clone, Debug, PartialEq)]
pub struct Start {
    /// The saved session (`None`: none, or it could not be read).
    pub session: Option<SessionState>,
    /// Each restored pane's last screen printed above its new prompt.
    pub last_screen: bool,
    /// The folder of a first tab when nothing was restored.
    pub dir: PathBuf,
    /// The first tab's pane when the face started it already (the window starts it
    /// while the window opens), with the program it runs when not the shell; a
    /// restored session closes it.
    pub started: Option<(PaneId, Option<Vec<String>>)>,
    /// What a first tab started here runs (empty: the shell).
    pub program: Vec<String>,
    /// The size the first panes start at where the saved layout gives none (`None`:
    /// the pipeline's default).
    pub size: Option<TermSize>,
}

impl Command {
    /// The command's name, as the journal and errors say it.
    pub fn name(&self) -> &'static str {
        match self {
            Command::NewTab { .. } => "new-tab",
            Command::Split { .. } => "split",
            Command::SendText { .. } => "send-text",
            Command::Focus(_) => "focus",
            Command::FocusNextWaiting => "focus-next-waiting",
            Command::Close(_) => "close",
            Command::CloseTab => "close-tab",
            Command::CycleTab(_) => "cycle-tab",
            Command::SelectTab(_) => "select-tab",
            Command::MoveTab(_) | Command::MoveTabTo { .. } => "move-tab",
            Command::RenameTab { .. } => "rename-tab",
            Command::SetRatio { .. } => "set-ratio",
            Command::FocusDirection(_) => "focus-direction",
            Command::Resize(..) => "resize",
            Command::ToggleZoom => "toggle-zoom",
            Command::Equalize => "equalize",
            Command::CycleGroup(_) => "cycle-group",
            Command::OpenGroup { .. } => "open-group",
            Command::RemoveGroup(_) => "remove-group",
            Command::SetRepo { .. } => "set-repo",
            Command::Adopt { .. } => "adopt",
            Command::Report { .. } => "report",
            Command::AddRemote(_) => "add-remote",
            Command::ForgetRemote(_) => "forget-remote",
            Command::Tmux { .. } => "tmux",
            Command::Start(_) => "start",
        }
    }
}

impl Command {
    /// The command with the size its new pane starts at, when it starts one and names
    /// no size yet (a tab, a split, a group's first tab, start-up): the face's focused
    /// pane's grid, so a program's first screen fits where it is shown. The size is
    /// part of the command, so the journal replays it as it ran; `None` leaves the
    /// pipeline's default.
    pub fn sized(mut self, size: Option<TermSize>) -> Command {
        match &mut self {
            Command::NewTab { size: s, .. }
            | Command::Split { size: s, .. }
            | Command::OpenGroup { size: s, .. }
                if s.is_none() =>
            {
                *s = size;
            }
            Command::Start(start) if start.size.is_none() => start.size = size,
            _ => {}
        }
        self
    }

    /// The command as the journal keeps it: what it typed into a pane cut to its first
    /// 4 KiB (a paste can be large, and typing changes no workspace), so 256 entries
    /// stay small.
    pub fn for_journal(&self) -> Command {
        match self {
            Command::SendText { pane, text } if text.len() > JOURNAL_TEXT => {
                let mut end = JOURNAL_TEXT;
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                Command::SendText {
                    pane: *pane,
                    text: text[..end].to_owned(),
                }
            }
            other => other.clone(),
        }
    }
}

/// The most of a `SendText` the journal keeps.
const JOURNAL_TEXT: usize = 4096;

/// Who asked for a command (kept in the journal; the rules do not depend on it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// A key binding or a palette entry.
    Key,
    /// A click on the tab bar, the sidebar or a divider.
    Chrome,
    /// A `tern msg` request.
    Msg,
    /// A clicked desktop notification.
    Notification,
    /// A pane's program exiting (the exit policy).
    Exit,
    /// A remote worktree's tmux telling what changed there.
    Tmux,
    /// Start-up and session restore.
    Start,
}

/// What a command produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A pane was started (new tab, split, a group's first tab).
    Pane(PaneId),
    Done,
}

/// What a face does after the core changed the workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// A pane was started: the face may give it a view.
    Opened(PaneId),
    /// A pane was closed (its program hung up): the face drops what it kept for it.
    Closed(PaneId),
    /// The last pane closed because its program exited: a window closes and
    /// `tern -e` exits with `code`.
    LastExited { code: i32 },
    /// A message for the user (a spawn that failed, a refused command).
    Status(String),
    /// A notification went to the desktop while the window was unfocused: the face
    /// asks for the user's attention (the window's urgency hint).
    Attention { critical: bool },
    /// A clicked desktop notification focused its pane: the face comes to the front.
    Raise,
    /// A program set the clipboard (OSC 52) and the config allows it (`ask`: the face
    /// asks the user first).
    SetClipboard {
        pane: PaneId,
        text: String,
        ask: bool,
    },
    /// A program asked to read the clipboard and the config allows it: the face
    /// answers the pane with its contents (`ask`: once the user agrees).
    ReadClipboard { pane: PaneId, ask: bool },
}

/// One command as applied, for the journal.
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    pub source: Source,
    /// Its name ([`Command::name`]).
    pub command: &'static str,
    /// The whole command, so the journal replays into a fresh core
    /// ([`Command::for_journal`]: text typed into a pane kept to its first 4 KiB).
    pub change: Command,
    /// `Err` with the message the asker got.
    pub result: Result<(), String>,
}
