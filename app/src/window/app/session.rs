//! The session: restored at start, saved when it changes and on exit.

use std::path::PathBuf;

use tern_core::pipeline::PaneId;
use tern_core::workspace::Workspace;

use super::TernApp;
use crate::window::settings::SessionFile;

impl TernApp {
    /// Restores the saved session (a corrupt file is kept aside and reported).
    pub(super) fn restore_session(&mut self, path: PathBuf) {
        let mut file = SessionFile::new(path);
        match file.load() {
            tern_core::session::LoadOutcome::Restored(state) => {
                let ws = Workspace::from_session(&state, |p| {
                    let dir = if p.cwd.is_dir() {
                        p.cwd.clone()
                    } else {
                        dirs::home_dir().unwrap_or_else(|| "/".into())
                    };
                    let pane = match &p.command {
                        Some(command) => self.restore_command(&dir, command)?,
                        None => self.spawn_shell(&dir)?,
                    };
                    if let (Some(screen), true) = (
                        &p.last_screen,
                        self.settings.config.session.restore_last_screen,
                    ) {
                        // The old screen, as history above the new prompt.
                        let mut text = String::new();
                        for line in screen {
                            text.push_str(line);
                            text.push_str("\r\n");
                        }
                        self.pipeline.feed(pane, text.as_bytes());
                    }
                    Some(pane)
                });
                self.ws = ws;
                let active_before = self.ws.active;
                let mut front = None;
                for saved in &state.remotes {
                    match self.add_remote(&saved.target) {
                        Ok(()) if saved.active => front = Some(self.ws.active),
                        Ok(()) => {}
                        Err(e) => self.status = Some(format!("a saved remote worktree: {e}")),
                    }
                }
                // A remote group added last takes the front only if it had it.
                match front {
                    Some(group) => self.ws.active = group,
                    None => self.ws.active = active_before,
                }
            }
            tern_core::session::LoadOutcome::Corrupt { kept_aside, error } => {
                self.status = Some(format!(
                    "the saved session could not be read ({error}); it was kept as {}",
                    kept_aside.display()
                ));
            }
            tern_core::session::LoadOutcome::Unreadable { error } => {
                // Saving would replace a file that may be fine: this run keeps no session.
                self.status = Some(format!("the saved session was left alone: {error}"));
                return;
            }
            tern_core::session::LoadOutcome::Fresh => {}
        }
        self.session = Some(file);
    }

    /// A pane that ran `command` before the restart: a known agent resumed in `dir`,
    /// else a shell with a dim line saying what ran there.
    fn restore_command(&mut self, dir: &std::path::Path, command: &[String]) -> Option<PaneId> {
        use tern_core::resume::{Restore, installed, plan};
        let path = std::env::var_os("PATH");
        let rules = self.settings.config.session.resume.clone();
        match plan(command, &rules, |p| installed(p, path.as_deref())) {
            Restore::Resume(again) => {
                let pane = self.spawn_command(dir, &again[0], &again[1..])?;
                // Remembered as first run, so the next restart resumes it again.
                if let Some(ui) = self.panes.get_mut(&pane) {
                    ui.launched = Some(command.to_vec());
                }
                self.pipeline
                    .breadcrumb(Some(pane), format!("resumed: {}", again.join(" ")));
                Some(pane)
            }
            Restore::Shell { note } => {
                let pane = self.spawn_shell(dir)?;
                self.pipeline.breadcrumb(Some(pane), note.clone());
                let line = format!("\x1b[2m[tern] {note}\x1b[0m\r\n");
                self.pipeline.feed(pane, line.as_bytes());
                Some(pane)
            }
        }
    }

    /// What a restart would need, from what the window has now.
    pub fn session_state(&self) -> tern_core::session::SessionState {
        self.session_state_with(self.settings.config.session.restore_last_screen)
    }

    /// The session as the window's own state has it; with `screens`, each pane's last
    /// screen too (a round trip to the model thread per pane, so only when a save is
    /// due).
    fn session_state_with(&self, keep_screen: bool) -> tern_core::session::SessionState {
        let mut state = self.ws.to_session(|p| tern_core::session::SavedPane {
            cwd: self
                .panes
                .get(&p)
                .and_then(|u| u.cwd.clone())
                .or_else(|| {
                    self.ws
                        .locate(p)
                        .map(|at| self.ws.groups[at.group].path.clone())
                })
                .unwrap_or_default(),
            last_screen: keep_screen
                .then(|| self.pipeline.dump_screen(p).map(|d| d.rows))
                .flatten(),
            command: self.panes.get(&p).and_then(|u| u.launched.clone()),
        });
        // Remote groups are saved as their targets (tmux keeps their windows).
        let remote_keys: Vec<&std::path::Path> =
            self.remotes.iter().map(|r| r.key.as_path()).collect();
        let front = state
            .active_worktree
            .and_then(|i| state.worktrees.get(i))
            .map(|w| w.path.clone());
        state
            .worktrees
            .retain(|w| !remote_keys.contains(&w.path.as_path()));
        state.active_worktree = front
            .and_then(|p| state.worktrees.iter().position(|w| w.path == p))
            .or((!state.worktrees.is_empty()).then_some(0));
        state.remotes = self.saved_remotes();
        state
    }

    /// Saves the session when its layout, folders or tabs changed. The last screens
    /// (`restore_last_screen`) are dumped only then, not every frame.
    pub(super) fn save_session_if_due(&mut self) {
        if self.session.is_none() {
            return;
        }
        let layout = self.session_state_with(false);
        if self.session_layout.as_ref() == Some(&layout) {
            return;
        }
        let state = if self.settings.config.session.restore_last_screen {
            self.session_state()
        } else {
            layout.clone()
        };
        self.session_layout = Some(layout);
        if let Some(file) = self.session.as_mut() {
            file.save_if_changed(state);
        }
    }
}
