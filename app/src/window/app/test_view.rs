//! What a test reads of the window, and the few things it does to it, in one place:
//! tests ask the workspace core (`TestView::core`) or this view, not fields of the app.
//! What a test does as a person would (a key's command, the sidebar's forms) is queued
//! as that person's intent and carried out as a frame carries it out.
//! Two parts are lent mutably, each for what a user does to it: a pane (to copy its
//! selection, `pane_ui_mut`) and the sidebar (to type into its forms, `sidebar_mut`).
//! `use tern::window::app::TestView as _;` brings it in.

use tern_core::ipc::{PaneInfo, Reply, Request};
use tern_core::pipeline::PaneId;
use tern_core::pipeline::delivery::PaneView;
use tern_core::workspace::requests;

use std::path::{Path, PathBuf};

use super::TernApp;
use super::overlay::Overlay;
use crate::window::action::Action;
use crate::window::commands::Command;
use crate::window::pane::PaneUi;
use crate::window::render::Metrics;
use crate::window::sidebar::{Sidebar, SidebarAction};

/// The window as a test sees it.
pub trait TestView {
    /// The diagnostics panel (the command palette toggles it).
    fn diagnostics(&self) -> &crate::window::diagnostics::Diagnostics;
    /// The focused pane.
    fn pane(&self) -> Option<PaneId>;
    fn pane_ui(&self, pane: PaneId) -> Option<&PaneUi>;
    fn pane_ui_mut(&mut self, pane: PaneId) -> Option<&mut PaneUi>;
    fn font_size(&self) -> f32;
    fn view(&self) -> Option<&PaneView>;
    fn scroll_offset(&self) -> usize;
    fn scroll_position(&self) -> f32;
    fn shown_rows(&mut self) -> Vec<String>;
    fn exited(&self) -> Option<&str>;
    fn metrics(&self, ctx: &egui::Context) -> crate::window::render::Metrics;
    fn link_at_cell(
        &mut self,
        row: usize,
        col: usize,
    ) -> Option<(crate::window::links::LinkSpans, String)>;
    /// The tooltip the focused pane shows for the link at cell `(row, col)`.
    fn link_tooltip_at_cell(&mut self, row: usize, col: usize) -> Option<String>;
    fn paste_pending(&self) -> bool;
    /// The message shown to the user, if any.
    fn status(&self) -> Option<&str>;
    /// Why the config file on disk is not in force, if it is not.
    fn config_error(&self) -> Option<&str>;
    /// The settings in force.
    fn config(&self) -> &tern_core::config::Config;
    /// Which picker is open: "palette", "switcher", or `None`.
    fn overlay(&self) -> Option<&'static str>;
    /// The workspace core (its journal of applied commands, for tests).
    fn core(&self) -> &tern_core::workspace::WorkspaceCore;
    /// Carries out one `tern msg` request on this thread (tests; a text request reads
    /// the pane here).
    fn msg_request(&mut self, request: Request) -> Result<Reply, String>;
    /// Every pane for `tern msg list`, worktrees named as the sidebar names them.
    fn pane_infos(&self) -> Vec<PaneInfo>;
    /// Runs `command` as if its key was pressed (its intent, carried out now).
    fn run_command(&mut self, ctx: &egui::Context, command: Command);
    /// Opens the worktree at `dir` as the sidebar's click does (a tab there if it has
    /// none).
    fn open_group(&mut self, name: String, dir: PathBuf, repo: Option<PathBuf>);
    /// Adds the remote worktree `text` names (`ssh://host/path`, `host:path`) as the
    /// sidebar's "Add repository" does; `Err`: what its form says.
    fn add_remote(&mut self, text: &str) -> Result<(), String>;
    /// Forgets the remote worktree keyed `key` as the sidebar's menu does.
    fn forget_remote(&mut self, key: &Path);
    /// The sidebar: what its forms say.
    fn sidebar(&self) -> &Sidebar;
    /// The sidebar, to type into its fields as a user would.
    fn sidebar_mut(&mut self) -> &mut Sidebar;
}

impl TestView for TernApp {
    fn diagnostics(&self) -> &crate::window::diagnostics::Diagnostics {
        &self.frames.diagnostics
    }

    fn pane(&self) -> Option<PaneId> {
        self.core.ws().focused_pane()
    }

    fn pane_ui(&self, pane: PaneId) -> Option<&PaneUi> {
        self.panes.ui.get(&pane)
    }

    fn pane_ui_mut(&mut self, pane: PaneId) -> Option<&mut PaneUi> {
        self.panes.ui.get_mut(&pane)
    }

    fn font_size(&self) -> f32 {
        self.look.font_size
    }

    fn view(&self) -> Option<&PaneView> {
        self.focused_ui()?.view()
    }

    fn scroll_offset(&self) -> usize {
        self.focused_ui().map_or(0, PaneUi::scroll_offset)
    }

    fn scroll_position(&self) -> f32 {
        self.focused_ui().map_or(0.0, PaneUi::scroll_position)
    }

    fn shown_rows(&mut self) -> Vec<String> {
        self.focused_ui_mut()
            .map(PaneUi::shown_rows)
            .unwrap_or_default()
    }

    fn exited(&self) -> Option<&str> {
        self.focused_ui()?.program.exited.as_deref()
    }

    fn metrics(&self, ctx: &egui::Context) -> crate::window::render::Metrics {
        Metrics::new(ctx, self.look.font_size)
    }

    fn link_at_cell(
        &mut self,
        row: usize,
        col: usize,
    ) -> Option<(crate::window::links::LinkSpans, String)> {
        self.focused_ui_mut()?.link_at_cell(row, col)
    }

    fn link_tooltip_at_cell(&mut self, row: usize, col: usize) -> Option<String> {
        self.focused_ui_mut()?.link_tooltip_at_cell(row, col)
    }

    fn paste_pending(&self) -> bool {
        self.focused_ui().is_some_and(PaneUi::paste_pending)
    }

    fn status(&self) -> Option<&str> {
        self.chrome.status.as_deref()
    }

    fn config_error(&self) -> Option<&str> {
        self.settings.error.as_deref()
    }

    fn config(&self) -> &tern_core::config::Config {
        &self.settings.config
    }

    fn overlay(&self) -> Option<&'static str> {
        match self.chrome.overlay {
            Some(Overlay::Palette(_)) => Some("palette"),
            Some(Overlay::Switcher(_)) => Some("switcher"),
            Some(Overlay::Rename { .. }) => Some("rename"),
            Some(Overlay::ConfirmClose { .. }) => Some("confirm-close"),
            Some(Overlay::Clipboard { .. }) => Some("clipboard"),
            Some(Overlay::Everywhere(_)) => Some("search-everywhere"),
            None => None,
        }
    }

    fn core(&self) -> &tern_core::workspace::WorkspaceCore {
        &self.core
    }

    fn msg_request(&mut self, request: Request) -> Result<Reply, String> {
        let size = self.spawn_size();
        let sidebar = &self.chrome.sidebar;
        let reply = requests::serve(&mut self.core, request, size, |path| {
            sidebar
                .worktree_at(path)
                .map(|w| (w.name(), w.branch.clone()))
        });
        self.take_effects();
        reply
    }

    fn pane_infos(&self) -> Vec<PaneInfo> {
        self.core.list(|path| {
            self.chrome
                .sidebar
                .worktree_at(path)
                .map(|w| (w.name(), w.branch.clone()))
        })
    }
    fn run_command(&mut self, ctx: &egui::Context, command: Command) {
        self.keys.intents.push_back(Action::Run(command));
        self.carry_out(ctx);
    }

    fn open_group(&mut self, name: String, path: PathBuf, repo: Option<PathBuf>) {
        self.sidebar_does(SidebarAction::Open { name, path, repo });
    }

    fn add_remote(&mut self, text: &str) -> Result<(), String> {
        self.sidebar_does(SidebarAction::AddRemote {
            target: text.to_owned(),
        });
        match self.chrome.sidebar.add_error.clone() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn forget_remote(&mut self, key: &Path) {
        self.sidebar_does(SidebarAction::ForgetRemote {
            path: key.to_path_buf(),
        });
    }

    fn sidebar(&self) -> &Sidebar {
        &self.chrome.sidebar
    }

    fn sidebar_mut(&mut self) -> &mut Sidebar {
        &mut self.chrome.sidebar
    }
}

impl TernApp {
    /// What the sidebar's panel would return for `action`, queued and carried out now.
    fn sidebar_does(&mut self, action: SidebarAction) {
        self.keys.intents.push_back(Action::Sidebar(action));
        let ctx = self.ctx.clone();
        self.carry_out(&ctx);
    }
}
