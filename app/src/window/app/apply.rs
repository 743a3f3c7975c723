//! The window's one intent queue, carried out at one point, and the one way the window
//! changes the workspace ([`TernApp::dispatch`]).
//!
//! The parts (keys, overlays, chrome, panes, sidebar, diagnostics, the close questions)
//! queue [`Action`]s in `keys.intents`; [`TernApp::carry_out`] takes them in order once
//! per frame and turns each into at most one workspace [`WsCommand`], which `dispatch`
//! alone hands to `WorkspaceCore::apply` (with the size a new pane starts at), then
//! carrying out the core's effects.

use tern_core::workspace::{Command as WsCommand, Outcome, Source};

use super::TernApp;
use crate::window::action::Action;
use crate::window::commands::Command;
use crate::window::pane::PaneUi;
use crate::window::sidebar::SidebarAction;

/// A change to the workspace and who asked for it.
pub(super) type Change = (Source, WsCommand);

impl TernApp {
    /// The window's one point where intents are carried out: every queued [`Action`],
    /// in order, until the queue is empty (what one asks for joins it). `draw` calls it
    /// once per frame, after this frame's keys and overlay picks are queued (so a key's
    /// command shows in the frame that read it) and before the chrome and panes are
    /// drawn; `start` once, before the first frame.
    pub(super) fn carry_out(&mut self, ctx: &egui::Context) {
        if !self.keys.intents.is_empty() {
            // The next frame shows what they changed.
            ctx.request_repaint();
        }
        while let Some(action) = self.keys.intents.pop_front() {
            if let Some((source, command)) = self.intent(ctx, action) {
                // A refusal (the tab is first already, a folder that is gone) is shown
                // on the status line by `take_effects`.
                let _ = self.dispatch(source, command);
            }
        }
        self.adopt_groups();
    }

    /// The one place the window changes the workspace: `command` applied by the core,
    /// a new pane sized as the focused one (the size travels in the command, so the
    /// journal replays it), then what the core asks of the window.
    fn dispatch(&mut self, source: Source, command: WsCommand) -> Result<Outcome, String> {
        let size = self.spawn_size();
        let result = self.core.apply(source, command.sized(size));
        self.take_effects();
        // A command may change a pane's activity (the next waiting pane, now seen).
        self.agents.refresh_now(&self.core);
        result
    }

    /// Carries out one intent: what only the window does, done here; the workspace
    /// change it asks for, returned.
    #[must_use = "the workspace change happens only when dispatched"]
    fn intent(&mut self, ctx: &egui::Context, action: Action) -> Option<Change> {
        let chrome = |command| Some((Source::Chrome, command));
        match action {
            Action::Workspace { source, command } => Some((source, command)),
            Action::Run(command) => self.run(ctx, command),
            Action::FocusPane(pane) => chrome(WsCommand::Focus(pane)),
            Action::RunInNewTab { cwd, command } => chrome(WsCommand::NewTab {
                group: Some(self.core.ws().active),
                cwd: Some(cwd),
                title: None,
                program: command,
                size: None,
            }),
            Action::SelectTab(i) => chrome(WsCommand::SelectTab(i)),
            Action::MoveTab { group, from, to } => chrome(WsCommand::MoveTabTo { group, from, to }),
            Action::CloseTab(id) => {
                // That tab shown, then closed as Ctrl+Shift+W closes the shown one.
                let group = self.core.ws().active;
                let ti = self
                    .core
                    .ws()
                    .groups
                    .get(group)
                    .and_then(|g| g.tabs.iter().position(|t| t.id == id))?;
                self.dispatch(Source::Chrome, WsCommand::SelectTab(ti))
                    .ok()?;
                self.run(ctx, Command::CloseTab)
            }
            Action::SetRatio { at, path, ratio } => chrome(WsCommand::SetRatio { at, path, ratio }),
            Action::RenameTab { tab, name } => chrome(WsCommand::RenameTab { tab, name }),
            Action::SearchEverywhere { text, regex } => {
                self.open_everywhere(text, regex);
                None
            }
            Action::ShowFound(shown) => {
                let pane = shown.pane;
                self.show_found(shown);
                chrome(WsCommand::Focus(pane))
            }
            Action::EndFound { back } => {
                self.end_found(back);
                back.and_then(|pane| chrome(WsCommand::Focus(pane)))
            }
            Action::CopyText(text) => {
                ctx.copy_text(text);
                None
            }
            Action::AnswerClipboardRead(pane) => {
                self.answer_clipboard_read(pane);
                None
            }
            Action::ClosePane(pane) => chrome(WsCommand::Close(pane)),
            Action::SendText { pane, text } => {
                Some((Source::Key, WsCommand::SendText { pane, text }))
            }
            Action::Sidebar(a) => self.sidebar_intent(a),
        }
    }

    /// What the sidebar asked for (its panel's clicks and its git thread's news).
    #[must_use = "the workspace change happens only when dispatched"]
    fn sidebar_intent(&mut self, action: SidebarAction) -> Option<Change> {
        let chrome = |command| Some((Source::Chrome, command));
        match action {
            SidebarAction::Open { name, path, repo } => chrome(WsCommand::OpenGroup {
                name,
                path,
                repo,
                start: None,
                size: None,
            }),
            SidebarAction::Created {
                name,
                path,
                repo,
                start,
            } => chrome(WsCommand::OpenGroup {
                name,
                path,
                repo: Some(repo),
                start,
                size: None,
            }),
            SidebarAction::Removed { path } => chrome(WsCommand::RemoveGroup(path)),
            SidebarAction::Review { path, repo } => self.review_changes(path, Some(repo)),
            // The repository's own folder; linked worktrees are matched when their
            // list arrives (`adopt_groups`).
            SidebarAction::Identified { path, repo, .. } => {
                (path == repo).then_some((Source::Chrome, WsCommand::SetRepo { path, repo }))
            }
            SidebarAction::Status(s) => {
                self.chrome.status = Some(s);
                None
            }
            SidebarAction::ForgetRemote { path } => chrome(WsCommand::ForgetRemote(path)),
            SidebarAction::AddRemote { target } => {
                // The sidebar's form says why a target was refused.
                let added = self.dispatch(Source::Chrome, WsCommand::AddRemote(target));
                self.chrome.sidebar.add_error = added.err();
                None
            }
            SidebarAction::Listed { root, worktrees } => {
                if self.frames.trace.enabled() {
                    let root = root.display().to_string().replace(['"', '\\'], "_");
                    self.frames.trace.event(
                        "worktrees",
                        &format!("\"repo\":\"{root}\",\"count\":{worktrees}"),
                    );
                }
                None
            }
        }
    }

    /// Groups opened in a folder that turns out to be a listed worktree belong to its
    /// repository (so Ctrl+Shift+N knows where to add one).
    fn adopt_groups(&mut self) {
        let found: Vec<(std::path::PathBuf, std::path::PathBuf)> = self
            .core
            .ws()
            .groups
            .iter()
            .filter(|g| g.repo.is_none())
            .filter_map(|g| {
                let r = self
                    .chrome
                    .sidebar
                    .repos
                    .iter()
                    .find(|r| r.worktrees.iter().any(|w| w.path == g.path))?;
                Some((g.path.clone(), r.repo.root().to_path_buf()))
            })
            .collect();
        for (path, repo) in found {
            let _ = self.dispatch(Source::Chrome, WsCommand::SetRepo { path, repo });
        }
    }

    /// The size a new pane starts at: the focused pane's grid (`None` before any is
    /// drawn: the pipeline's default).
    pub(super) fn spawn_size(&self) -> Option<tern_core::model::TermSize> {
        self.focused_ui().and_then(PaneUi::grid)
    }
}
