//! What the core keeps beside the tree: one [`PaneRecord`] per pane (whatever face
//! shows it), and what the person sees and the desktop notifier said (`notices.rs`).

use std::collections::HashSet;
use std::path::PathBuf;

use crate::pipeline::{ExitInfo, PaneId};

/// What the core knows of one pane, whatever face shows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PaneRecord {
    /// The program's title (OSC 0/2); empty when it set none.
    pub title: String,
    /// The folder the shell reported (OSC 7), as the model decoded it.
    pub cwd_reported: Option<String>,
    /// The shell's folder from the process table (looked up once a second).
    pub cwd: Option<PathBuf>,
    /// The folder tern started it in (the worktree, `--cwd`, a restored tab's): where
    /// a resumed program starts again, whatever folder it names later.
    pub started_in: Option<PathBuf>,
    /// The process table was read for it at least once.
    pub looked_up: bool,
    /// The program in front of the shell, when it is not the shell.
    pub foreground: Option<String>,
    /// The last program seen in front of the shell.
    pub last_foreground: Option<String>,
    /// The command line it was started with, when not the configured shell (kept for
    /// the session: a known agent is resumed after a restart).
    pub launched: Option<Vec<String>>,
    /// Started with an explicit program: it runs until it exits.
    pub explicit: bool,
    /// How its program ended (the pane is held).
    pub exit: Option<ExitInfo>,
    /// It shows a program that runs elsewhere (a tmux pane on a remote host): its end
    /// is the host's news, not this pane's exit.
    pub remote: bool,
    /// The agent conversation running here, as the agent reported it (its hooks): a
    /// restored tab resumes exactly this one.
    pub agent: Option<crate::agent::AgentSession>,
    /// What it has to tell the user, collected while no face shows it (`badges.rs`).
    pub badges: super::tree::Badges,
    /// Taken back from the keeper after it printed while no tern was attached.
    pub ran_detached: bool,
}

/// What the person sees, as the face last said (for notifications, `notices.rs`).
#[derive(Debug, Default)]
pub(super) struct Seen {
    pub window_focused: bool,
    pub shown: HashSet<PaneId>,
}

/// The desktop notifier (started with the first notification) and what it said.
#[derive(Default)]
pub(super) struct Notices {
    pub notifier: Option<crate::desktop_notify::DesktopNotifier>,
    /// Notifications the desktop could not take are said once (breadcrumb).
    pub unavailable: Option<String>,
    pub seen: Seen,
    /// Notifications handed to the desktop notifier.
    pub sent: u64,
}

/// A pane closed during this session, as it was last known: search everywhere still
/// searches the history kept of it (`search.rs`), while the pipeline keeps it.
#[derive(Clone, Debug)]
pub struct ClosedPane {
    pub pane: PaneId,
    /// The worktree's name as the sidebar had it, and its folder (named again when
    /// searched, as `list` would).
    pub worktree: String,
    pub path: PathBuf,
    /// The group's index in the sidebar and the tab's in its group, then.
    pub group: usize,
    pub tab: usize,
    /// The tab's title, then.
    pub title: String,
}
