//! Applying what the panels asked for, after the frame that drew them.

use tern_core::workspace::{Command as WsCommand, Source};

use super::TernApp;
use crate::window::action::Action;
use crate::window::commands::Command;
use crate::window::sidebar::SidebarAction;

impl TernApp {
    /// Carries out what this frame's panels returned, in order.
    pub(super) fn apply(&mut self, ctx: &egui::Context, actions: Vec<Action>) {
        if !actions.is_empty() {
            // The next frame shows what they changed.
            ctx.request_repaint();
        }
        for action in actions {
            match action {
                Action::Run(command) => self.run(ctx, command),
                Action::FocusPane(pane) => {
                    let _ = self.exec(Source::Chrome, WsCommand::Focus(pane));
                }
                Action::RunInNewTab { cwd, command } => {
                    let _ = self.exec(
                        Source::Chrome,
                        WsCommand::NewTab {
                            group: Some(self.core.ws().active),
                            cwd: Some(cwd),
                            title: None,
                            program: command,
                            size: None,
                        },
                    );
                }
                Action::SelectTab(i) => {
                    let _ = self.exec(Source::Chrome, WsCommand::SelectTab(i));
                }
                Action::MoveTab { group, from, to } => {
                    let _ = self.exec(Source::Chrome, WsCommand::MoveTabTo { group, from, to });
                }
                Action::CloseTab(id) => {
                    let group = self.core.ws().active;
                    if let Some(ti) = self
                        .core
                        .ws()
                        .groups
                        .get(group)
                        .and_then(|g| g.tabs.iter().position(|t| t.id == id))
                    {
                        let _ = self.exec(Source::Chrome, WsCommand::SelectTab(ti));
                        self.run(ctx, Command::CloseTab);
                    }
                }
                Action::SetRatio { at, path, ratio } => {
                    let _ = self.exec(Source::Chrome, WsCommand::SetRatio { at, path, ratio });
                }
                Action::RenameTab { tab, name } => {
                    let _ = self.exec(Source::Chrome, WsCommand::RenameTab { tab, name });
                }
                Action::SearchEverywhere { text, regex } => {
                    self.open_everywhere(text, regex);
                }
                Action::ShowFound(shown) => self.show_found(shown),
                Action::EndFound { back } => self.end_found(back),
                Action::CopyText(text) => ctx.copy_text(text),
                Action::AnswerClipboardRead(pane) => self.answer_clipboard_read(pane),
                Action::ClosePane(pane) => self.close_pane(Source::Chrome, pane),
                Action::SendText { pane, text } => {
                    let _ = self.exec(Source::Key, WsCommand::SendText { pane, text });
                }
                Action::Sidebar(a) => self.sidebar_actions(vec![a]),
            }
        }
    }

    /// What the sidebar asked for (its panel's clicks and its git thread's news).
    pub(super) fn sidebar_actions(&mut self, actions: Vec<SidebarAction>) {
        for action in actions {
            match action {
                SidebarAction::Open { name, path, repo } => {
                    self.open_group(name, path, repo);
                }
                SidebarAction::Created {
                    name,
                    path,
                    repo,
                    start,
                } => {
                    self.open_group_with(name, path, Some(repo), start);
                }
                SidebarAction::Removed { path } => self.remove_group_at(&path),
                SidebarAction::Review { path, repo } => self.review_changes(path, Some(repo)),
                SidebarAction::Identified { path, repo, .. } => {
                    // The repository's own folder; linked worktrees are matched when
                    // their list arrives (`adopt_groups`).
                    if path == repo {
                        let _ = self.core.apply(
                            tern_core::workspace::Source::Chrome,
                            tern_core::workspace::Command::SetRepo { path, repo },
                        );
                    }
                }
                SidebarAction::Status(s) => self.chrome.status = Some(s),
                SidebarAction::ForgetRemote { path } => self.forget_remote(&path),
                SidebarAction::AddRemote { target } => match self.add_remote(&target) {
                    Ok(()) => self.chrome.sidebar.add_error = None,
                    Err(e) => self.chrome.sidebar.add_error = Some(e),
                },
                SidebarAction::Listed { root, worktrees } => {
                    if self.frames.trace.enabled() {
                        let root = root.display().to_string().replace(['"', '\\'], "_");
                        self.frames.trace.event(
                            "worktrees",
                            &format!("\"repo\":\"{root}\",\"count\":{worktrees}"),
                        );
                    }
                }
            }
        }
    }

    /// Groups opened in a folder that turns out to be a listed worktree belong to its
    /// repository (so Ctrl+Shift+N knows where to add one).
    pub(super) fn adopt_groups(&mut self) {
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
            let _ = self.core.apply(
                tern_core::workspace::Source::Chrome,
                tern_core::workspace::Command::SetRepo { path, repo },
            );
        }
    }
}
