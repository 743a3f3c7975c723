//! The session: restored at start, saved when it changes and on exit.

use std::path::PathBuf;

use tern_core::pipeline::PaneId;

use super::TernApp;
use crate::window::action::Action;
use tern_core::session::{LoadOutcome, SessionState};
use tern_core::session_file::SessionFile;

impl TernApp {
    /// Start-up through the core (`Command::Start`), as in the headless face: the
    /// saved session, else a first tab — `first` when it was started before the
    /// window; then the worktrees' repositories in the sidebar. The command is queued
    /// and carried out at once (before the first frame), as every intent is.
    pub(super) fn start(&mut self, ctx: &egui::Context, first: Option<Result<PaneId, String>>) {
        let saved = self
            .launch
            .session
            .clone()
            .and_then(|path| self.load_session(path));
        let restoring = saved.is_some();
        let dir = self
            .launch
            .spec
            .cwd
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("/"));
        let spec = self.launch.spec.clone();
        let launched = spec.command.as_ref().map(super::command_line);
        let started = match first {
            Some(Ok(pane)) => Some((pane, launched.clone())),
            Some(Err(e)) => {
                self.chrome.status = Some(format!("cannot start a shell: {e}"));
                None
            }
            None => None,
        };
        // Start-up is the core's, as in the headless face: the session, else a first
        // tab (the pane started before the window, or one started now).
        let start = tern_core::workspace::Start {
            session: saved,
            last_screen: self.settings.config.session.restore_last_screen,
            dir: dir.clone(),
            started,
            program: launched.unwrap_or_default(),
            size: spec.size,
        };
        // A refusal is on the status line (`take_effects`).
        self.keys.intents.push_back(Action::Workspace {
            source: tern_core::workspace::Source::Start,
            command: tern_core::workspace::Command::Start(Box::new(start)),
        });
        self.carry_out(ctx);
        if restoring && !self.core.ws().groups.is_empty() {
            // The restored worktrees' repositories show in the sidebar.
            let repos: Vec<PathBuf> = self
                .core
                .ws()
                .groups
                .iter()
                .filter_map(|g| g.repo.clone())
                .collect();
            for repo in repos {
                self.chrome.sidebar.add_repository(ctx, repo, true);
            }
            self.chrome.sidebar_open = self.core.ws().groups.len() > 1;
        } else {
            // If the folder is in a repository, its worktrees show in the sidebar.
            self.chrome.sidebar.add_repository(ctx, dir, true);
        }
    }

    /// Loads the saved session for [`Command::Start`](tern_core::workspace::Command)
    /// (a corrupt file is kept aside and reported) and keeps the file to save to; the
    /// panes' area is set first, so restored panes start at their share of it.
    pub(super) fn load_session(&mut self, path: PathBuf) -> Option<SessionState> {
        let mut file = SessionFile::new(path).remembering(crate::signals::remember_session);
        let mut restored = None;
        match file.load() {
            LoadOutcome::Restored(state) => {
                file.window = state.window;
                file.maximize_pending = state.window.is_some_and(|w| w.maximized);
                // The panes' area before the first frame measures it: the window's
                // grid as `main` sized it from the saved window.
                if self.core.area_cells().is_none()
                    && let Some(size) = self.launch.spec.size
                {
                    let cells = |n: usize| u16::try_from(n).unwrap_or(u16::MAX);
                    self.core
                        .set_area_cells((cells(size.cols), cells(size.rows)));
                }
                restored = Some(state);
            }
            LoadOutcome::Corrupt { kept_aside, error } => {
                self.chrome.status = Some(format!(
                    "the saved session could not be read ({error}); it was kept as {}",
                    kept_aside.display()
                ));
            }
            LoadOutcome::Unreadable { error } => {
                // Saving would replace a file that may be fine: this run keeps no session.
                self.chrome.status = Some(format!("the saved session was left alone: {error}"));
                return None;
            }
            LoadOutcome::Fresh => {}
        }
        self.saving.file = Some(file);
        restored
    }

    /// What a restart would need, from what the window has now (the last screens
    /// waited for: for the exit, when the window is going anyway).
    pub fn session_state(&self) -> tern_core::session::SessionState {
        let screens = self.settings.config.session.restore_last_screen;
        let mut state = self.session_state_with(|p| {
            screens
                .then(|| self.core.pipeline().dump_screen(p).map(|d| d.rows))
                .flatten()
        });
        state.window = self.saving.file.as_ref().and_then(|f| f.window);
        state
    }

    /// The core's session, each pane's last screen as `screen` has it.
    fn session_state_with(
        &self,
        screen: impl Fn(PaneId) -> Option<Vec<String>>,
    ) -> tern_core::session::SessionState {
        self.core.session_state_with(screen)
    }

    /// Saves the session when it is due (`tern_core::workspace::SaveSchedule`: its layout, folders or
    /// tabs changed, and with `restore_last_screen` every pane's screen came).
    /// Also keeps the window's size, maximized state and place for the next start
    /// (saved with the next save, and at exit; a resize alone saves nothing).
    pub(super) fn save_session_if_due(&mut self, ctx: &egui::Context) {
        let Some(file) = self.saving.file.as_mut() else {
            return;
        };
        if std::mem::take(&mut file.maximize_pending) {
            ctx.send_viewport_cmd(egui::ViewportCommand::Maximized(true));
        }
        file.window = note_window(ctx, file.window);
        if let Some(mut state) = self.saving.schedule.due(&self.core) {
            state.window = file.window;
            file.save_if_changed(state);
        }
    }
}

/// The window now, from egui's viewport facts: a maximized window keeps the size it
/// had before (to come back to when it is restored), and its place where known.
fn note_window(
    ctx: &egui::Context,
    before: Option<tern_core::session::SavedWindow>,
) -> Option<tern_core::session::SavedWindow> {
    let (inner, outer, maximized) = ctx.input(|i| {
        let v = i.viewport();
        (v.inner_rect, v.outer_rect, v.maximized.unwrap_or(false))
    });
    let inner = inner?;
    let (width, height) = match (maximized, before) {
        (true, Some(b)) => (b.width, b.height),
        _ => (inner.width(), inner.height()),
    };
    let position = match (maximized, before) {
        (true, Some(b)) => b.position,
        _ => outer.map(|r| (r.min.x, r.min.y)),
    };
    // What the next session will open at, for a test through the binary (written when
    // it changes; app/tests/window_size_xvfb.rs).
    crate::window::trace::note_if_changed("session_window", "", || {
        format!("\"width\":{width},\"height\":{height},\"maximized\":{maximized}")
    });
    Some(tern_core::session::SavedWindow {
        width,
        height,
        maximized,
        position,
    })
}
