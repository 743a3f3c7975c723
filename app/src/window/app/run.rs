//! Commands carried out: the key map's, the palette's and the chrome's.

use std::path::PathBuf;

use tern_core::layout::{Axis, Direction};
use tern_core::pipeline::PaneId;

use super::overlay::Overlay;
use super::{RESIZE_STEP, TernApp};
use crate::window::commands::Command;
use crate::window::pane::PaneUi;

impl TernApp {
    /// Carries out one command.
    pub fn run(&mut self, ctx: &egui::Context, command: Command) {
        let focused = self.ws.focused_pane();
        match command {
            Command::NewTab if self.remote_new_tab() => {}
            Command::NewTab => {
                let group = self.ws.active;
                let dir = self
                    .ws
                    .active_group()
                    .map(|g| g.path.clone())
                    .unwrap_or_else(|| PathBuf::from("/"));
                if let Some(pane) = self.spawn_shell(&dir) {
                    self.ws.add_tab(group, pane);
                }
            }
            Command::ClosePane => {
                if let Some(pane) = focused {
                    self.request_close(pane);
                }
            }
            Command::CloseTab => self.request_close_tab(),
            Command::NextTab => self.ws.cycle_tab(1),
            Command::PreviousTab => self.ws.cycle_tab(-1),
            Command::Tab(n) => {
                self.ws.select_tab(n as usize);
            }
            Command::MoveTabLeft | Command::MoveTabRight => {
                if let Some(g) = self.ws.active_group() {
                    let from = g.active_tab;
                    let to = if command == Command::MoveTabLeft {
                        from.checked_sub(1)
                    } else {
                        Some(from + 1)
                    };
                    if let Some(to) = to {
                        self.ws.move_tab(self.ws.active, from, to);
                    }
                }
            }
            Command::RenameTab => {
                if let Some(tab) = self.ws.active_tab() {
                    let text = self.tab_title(tab);
                    self.overlay = Some(Overlay::Rename { tab: tab.id, text });
                }
            }
            Command::SplitRight | Command::SplitDown
                if focused.is_some_and(|p| {
                    let direction = if command == Command::SplitRight {
                        tern_core::tmux::SplitDirection::Right
                    } else {
                        tern_core::tmux::SplitDirection::Down
                    };
                    self.remote_split(p, direction)
                }) => {}
            Command::SplitRight | Command::SplitDown => {
                let dir = focused
                    .and_then(|p| self.pane_cwd(p))
                    .or_else(|| self.ws.active_group().map(|g| g.path.clone()))
                    .unwrap_or_else(|| PathBuf::from("/"));
                if let Some(pane) = self.spawn_shell(&dir) {
                    let axis = if command == Command::SplitRight {
                        Axis::Horizontal
                    } else {
                        Axis::Vertical
                    };
                    if !self.ws.split_focused(axis, pane) {
                        self.close_pane(pane);
                    }
                }
            }
            Command::FocusLeft => {
                self.ws.focus_direction(Direction::Left);
            }
            Command::FocusRight => {
                self.ws.focus_direction(Direction::Right);
            }
            Command::FocusUp => {
                self.ws.focus_direction(Direction::Up);
            }
            Command::FocusDown => {
                self.ws.focus_direction(Direction::Down);
            }
            Command::ResizeLeft => {
                self.ws.resize_focused(Direction::Left, RESIZE_STEP);
            }
            Command::ResizeRight => {
                self.ws.resize_focused(Direction::Right, RESIZE_STEP);
            }
            Command::ResizeUp => {
                self.ws.resize_focused(Direction::Up, RESIZE_STEP);
            }
            Command::ResizeDown => {
                self.ws.resize_focused(Direction::Down, RESIZE_STEP);
            }
            Command::ZoomPane => self.ws.toggle_zoom(),
            Command::Equalize => self.ws.equalize(),
            Command::NextWorktree => {
                self.ws.cycle_group(1);
            }
            Command::PreviousWorktree => {
                self.ws.cycle_group(-1);
            }
            Command::QuickSwitcher => self.open_switcher(),
            Command::CommandPalette => self.open_palette(),
            Command::ToggleSidebar => self.sidebar_open = !self.sidebar_open,
            Command::AddRepository => {
                self.sidebar_open = true;
                self.status = Some("type a repository's path in the sidebar, or Browse…".into());
            }
            Command::NewWorktree => match self.ws.active_group().and_then(|g| g.repo.clone()) {
                Some(root) => {
                    self.sidebar_open = true;
                    self.sidebar.start_new_worktree(root);
                }
                None => {
                    self.status = Some(
                        "this tab's folder is not a git repository: add one in the sidebar".into(),
                    )
                }
            },
            Command::Copy => {
                if let Some(text) = self.selection_text() {
                    ctx.copy_text(text);
                }
            }
            Command::Paste => ctx.send_viewport_cmd(egui::ViewportCommand::RequestPaste),
            Command::Search => {
                if let Some(p) = self.focused_ui_mut() {
                    p.open_search();
                }
            }
            Command::ScrollPageUp | Command::ScrollPageDown => {
                let pages = if command == Command::ScrollPageUp {
                    1
                } else {
                    -1
                };
                if let Some(p) = self.focused_ui_mut() {
                    p.scroll_pages(pages);
                }
            }
            Command::ScrollToTop => {
                if let Some(p) = self.focused_ui_mut() {
                    p.scroll_to_top();
                }
            }
            Command::ScrollToBottom => {
                if let Some(p) = self.focused_ui_mut() {
                    p.scroll_to_bottom();
                }
            }
            Command::FontBigger => self.set_font_size(self.font_size + 1.0),
            Command::FontSmaller => self.set_font_size(self.font_size - 1.0),
            // Back to the configured size (not the built-in one).
            Command::FontReset => self.font_size = self.settings.config.font.size,
            Command::SaveScrollback => {
                if let Some(pane) = focused {
                    match self.scrollback_text(pane) {
                        Ok(text) => {
                            self.save_text(text, &format!("tern-scrollback-{}.txt", pane.0))
                        }
                        Err(e) => self.status = Some(format!("cannot save the scrollback: {e}")),
                    }
                }
            }
            Command::Diagnostics => self.diagnostics.toggle(),
            Command::Theme(n) => {
                let Some(name) = tern_core::config::themes::built_in_names().nth(n as usize) else {
                    return;
                };
                let name = match name {
                    "Dark" => tern_core::config::ThemeName::DARK,
                    "Light" => tern_core::config::ThemeName::LIGHT,
                    other => tern_core::config::ThemeName::Named(other.to_owned()),
                };
                let old = self.settings.config.clone();
                self.settings.config.theme.name = name;
                self.apply_config(ctx, Some(&old));
                self.status = Some(format!(
                    "theme: {} (set theme.name in the config to keep it)",
                    tern_core::config::themes::built_in_names()
                        .nth(n as usize)
                        .unwrap_or_default()
                ));
            }
            Command::PreviousPrompt | Command::NextPrompt => {
                let forward = command == Command::NextPrompt;
                let found = self
                    .focused_ui_mut()
                    .is_some_and(|p| p.jump_to_prompt(forward));
                if !found {
                    self.status = Some(no_marks("prompt"));
                }
            }
            Command::SelectLastOutput | Command::CopyLastOutput => {
                let found = self
                    .focused_ui_mut()
                    .is_some_and(|p| p.select_last_output());
                if !found {
                    self.status = Some(no_marks("finished command with output"));
                } else if command == Command::CopyLastOutput
                    && let Some(text) = self.selection_text()
                {
                    ctx.copy_text(text);
                }
            }
            Command::NextWaitingPane => {
                if self.next_waiting_pane().is_none() {
                    self.status = Some("no pane is waiting".into());
                }
            }
        }
    }

    /// Runs `command` as if its key was pressed (for tests and the palette).
    pub fn run_command(&mut self, ctx: &egui::Context, command: Command) {
        self.run(ctx, command);
    }

    /// The pane's whole history and screen as text, oldest line first.
    pub fn scrollback_text(&self, pane: PaneId) -> Result<String, String> {
        let view = self
            .panes
            .get(&pane)
            .and_then(PaneUi::view)
            .ok_or("the pane is not shown")?;
        // Pages by absolute line, up to the line just above this snapshot's screen.
        let end = view.scrollback_dropped + view.scrollback_lines;
        let mut out = String::new();
        const PAGE: usize = 4096;
        let mut next = view.scrollback_dropped;
        while next < end {
            let count = PAGE.min((end - next) as usize);
            let page = self
                .pipeline
                .history(pane, next, count)
                .ok_or("the pane is gone")?;
            for row in &page.rows {
                out.push_str(row.text().trim_end());
                out.push('\n');
            }
            // The page starts later when lines dropped meanwhile: they are gone.
            next += count as u64;
        }
        for row in &view.rows {
            out.push_str(row.text().trim_end());
            out.push('\n');
        }
        Ok(out)
    }

    /// Saves `text` where the user says (rfd's save dialog on its own thread), or in
    /// tern's state folder when no dialog can be shown; the status line says where.
    pub(super) fn save_text(&mut self, text: String, name: &str) {
        let (tx, rx) = std::sync::mpsc::channel();
        let name = name.to_owned();
        let fallback = tern_core::diagnostics::default_report_dir().join(&name);
        let use_dialog = crate::window::diagnostics::dialog_possible();
        let spawned = std::thread::Builder::new()
            .name("tern-save".into())
            .spawn(move || {
                let path = if use_dialog {
                    rfd::FileDialog::new().set_file_name(&name).save_file()
                } else {
                    Some(fallback)
                };
                let result = match path {
                    None => Err("not saved (cancelled)".to_owned()),
                    Some(p) => tern_core::diagnostics::write_atomic(&p, &text)
                        .map(|()| p.clone())
                        .map_err(|e| format!("cannot write {}: {e}", p.display())),
                };
                let _ = tx.send(result);
            });
        match spawned {
            Ok(_) => self.saving = Some(rx),
            Err(e) => self.status = Some(format!("cannot save: {e}")),
        }
    }

    /// The save in progress, if it finished: the status line says where it went.
    pub(super) fn poll_saving(&mut self) {
        if let Some(rx) = &self.saving
            && let Ok(result) = rx.try_recv()
        {
            self.saving = None;
            self.status = Some(match result {
                Ok(p) => format!("saved to {}", p.display()),
                Err(e) => e,
            });
        }
    }
}

/// The status line when the marks have nothing to go to.
fn no_marks(what: &str) -> String {
    format!("no {what} here (it needs shell integration: OSC 133 marks)")
}
