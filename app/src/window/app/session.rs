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
                // The core restarts the panes and reconnects remote worktrees.
                self.core
                    .restore(&state, self.settings.config.session.restore_last_screen);
                self.take_effects();
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

    /// The core's session, each pane's last screen as `screen` has it.
    fn session_state_with(
        &self,
        screen: impl Fn(PaneId) -> Option<Vec<String>>,
    ) -> tern_core::session::SessionState {
        self.core.session_state_with(screen)
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
