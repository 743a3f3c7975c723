//! The session: restored at start, saved when it changes and on exit.

use std::path::PathBuf;

use super::TernApp;
use crate::window::settings::SessionFile;

impl TernApp {
    /// Restores the saved session (a corrupt file is kept aside and reported): the
    /// core restarts the panes; remote worktrees reconnect here.
    pub(super) fn restore_session(&mut self, path: PathBuf) {
        let mut file = SessionFile::new(path);
        match file.load() {
            tern_core::session::LoadOutcome::Restored(state) => {
                self.core.spawn_size = None;
                self.core
                    .restore(&state, self.settings.config.session.restore_last_screen);
                self.take_effects();
                let active_before = self.core.ws.active;
                let mut front = None;
                for saved in &state.remotes {
                    match self.add_remote(&saved.target) {
                        Ok(()) if saved.active => front = Some(self.core.ws.active),
                        Ok(()) => {}
                        Err(e) => self.status = Some(format!("a saved remote worktree: {e}")),
                    }
                }
                // A remote group added last takes the front only if it had it.
                match front {
                    Some(group) => self.core.ws.active = group,
                    None => self.core.ws.active = active_before,
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

    /// What a restart would need, from what the window has now.
    pub fn session_state(&self) -> tern_core::session::SessionState {
        self.session_state_with(self.settings.config.session.restore_last_screen)
    }

    /// The core's session with the remote groups saved as their targets; with
    /// `screens`, each pane's last screen too (a round trip to the model thread per
    /// pane, so only when a save is due).
    fn session_state_with(&self, screens: bool) -> tern_core::session::SessionState {
        let mut state = self.core.session_state(screens);
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
