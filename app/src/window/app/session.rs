//! The session: restored at start, saved when it changes and on exit.

use std::collections::HashMap;
use std::path::PathBuf;

use tern_core::model::ScreenDump;
use tern_core::pipeline::{Answer, PaneId, Pending};

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

    /// What a restart would need, from what the window has now (the last screens
    /// waited for: for the exit, when the window is going anyway).
    pub fn session_state(&self) -> tern_core::session::SessionState {
        let screens = self.settings.config.session.restore_last_screen;
        self.session_state_with(|p| {
            screens
                .then(|| self.pipeline.dump_screen(p).map(|d| d.rows))
                .flatten()
        })
    }

    /// The core's session with the remote groups saved as their targets, each pane's
    /// last screen as `screen` has it.
    fn session_state_with(
        &self,
        screen: impl Fn(PaneId) -> Option<Vec<String>>,
    ) -> tern_core::session::SessionState {
        let mut state = self.core.session_state_with(screen);
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

    /// Saves the session when its layout, folders or tabs changed. With
    /// `restore_last_screen` each pane's screen is asked for then (not every frame),
    /// without waiting: the save is written once every answer is in.
    pub(super) fn save_session_if_due(&mut self) {
        if self.session.is_none() {
            return;
        }
        let layout = self.session_state_with(|_| None);
        if self.session_layout.as_ref() != Some(&layout) {
            if self.settings.config.session.restore_last_screen {
                let asked = self
                    .core
                    .ws
                    .all_panes()
                    .into_iter()
                    .map(|p| (p, self.pipeline.request_dump(p)))
                    .collect();
                // A newer layout replaces a save still waiting for its screens.
                self.saving_screens = Some(ScreensAsked {
                    asked,
                    answers: HashMap::new(),
                });
            } else if let Some(file) = self.session.as_mut() {
                file.save_if_changed(layout.clone());
            }
            self.session_layout = Some(layout);
        }
        self.save_when_screens_are_in();
    }

    /// Writes the save waiting for its panes' screens once the model thread answered
    /// them all (its answers wake the window).
    fn save_when_screens_are_in(&mut self) {
        let Some(mut waiting) = self.saving_screens.take() else {
            return;
        };
        waiting
            .asked
            .retain(|(pane, pending)| match pending.poll() {
                Answer::Ready(dump) => {
                    waiting.answers.insert(*pane, dump.rows);
                    false
                }
                Answer::Waiting => true,
                Answer::Gone => false,
            });
        if !waiting.asked.is_empty() {
            self.saving_screens = Some(waiting);
            return;
        }
        let state = self.session_state_with(|p| waiting.answers.get(&p).cloned());
        if let Some(file) = self.session.as_mut() {
            file.save_if_changed(state);
        }
    }
}

/// A session save asked each pane's screen and waits for the answers.
pub(super) struct ScreensAsked {
    asked: Vec<(PaneId, Pending<ScreenDump>)>,
    answers: HashMap<PaneId, Vec<String>>,
}
