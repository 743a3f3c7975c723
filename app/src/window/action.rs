//! The window's one intent type. Chrome, sidebar, panes, pickers, dialogs, the close
//! questions and the diagnostics panel draw from shared references and return these;
//! `TernApp` queues them and carries them out at one point of the frame
//! (`app/apply.rs`), so no panel changes the workspace while it is being drawn.

use tern_core::pipeline::PaneId;
use tern_core::workspace::split_tree::NodePath;
use tern_core::workspace::{Command as WsCommand, Location, Source, TabId};

use super::commands::Command;
use super::sidebar::SidebarAction;

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// A change to the workspace as the core takes it (a confirmed close, start-up).
    Workspace {
        source: Source,
        command: WsCommand,
    },
    /// As if the command's key was pressed.
    Run(Command),
    FocusPane(PaneId),
    /// Show the active worktree's tab at this index.
    SelectTab(usize),
    MoveTab {
        group: usize,
        from: usize,
        to: usize,
    },
    /// Close this tab (and every pane in it).
    CloseTab(TabId),
    /// A divider was dragged: the split at `path` of the tab at `at` gets `ratio`.
    SetRatio {
        at: Location,
        path: NodePath,
        ratio: f32,
    },
    /// `None`: back to following the program's title.
    RenameTab {
        tab: TabId,
        name: Option<String>,
    },
    /// The user allowed a program's clipboard write.
    CopyText(String),
    /// The user allowed a program to read the clipboard.
    AnswerClipboardRead(PaneId),
    /// Close the pane without asking (the user already said yes).
    ClosePane(PaneId),
    /// A `send_text` binding's text, for the focused pane's program.
    SendText {
        pane: PaneId,
        text: String,
    },
    Sidebar(SidebarAction),
    /// Open search everywhere with this query.
    SearchEverywhere {
        text: String,
        regex: bool,
    },
    /// Reveal the pane and show a match search everywhere found.
    ShowFound(crate::window::everywhere::Shown),
    /// Search everywhere closed: its highlight goes; with `back`, focus that pane.
    EndFound {
        back: Option<PaneId>,
    },
    /// Open a tab in the active worktree running `command` in `cwd` (a hint's
    /// `path:line` in the editor).
    RunInNewTab {
        cwd: std::path::PathBuf,
        command: Vec<String>,
    },
}
