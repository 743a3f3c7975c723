//! Saving and restoring the workspace core: the tree with each pane's folder, the
//! program it was started with, and (when asked) its last screen. Remote worktrees
//! (tmux) are saved as their targets. [`SaveSchedule`] says when a save is due.

use std::collections::HashMap;
use std::path::Path;

use super::command::{Command, Outcome, Start};
use super::core::WorkspaceCore;
use super::tree::Workspace;
use crate::agent::AgentSession;
use crate::model::ScreenDump;
use crate::pipeline::{Answer, PaneId, Pending};
use crate::resume::{Restore, installed, plan};
use crate::session::{SavedPane, SessionState};

impl WorkspaceCore {
    /// [`Command::Start`](super::Command::Start): the saved session restored when there
    /// is one; a first tab in `dir` when that restored nothing (the face's pane when it
    /// started one, else one started here). A pane the face started is closed when the
    /// session brought its own.
    pub(super) fn start(&mut self, start: Start) -> Result<Outcome, String> {
        let Start {
            session,
            last_screen,
            dir,
            started,
            program,
            size,
        } = start;
        if let Some(state) = &session {
            self.restore(state, last_screen, size);
        }
        if !self.ws.groups.is_empty() {
            if let Some((pane, _)) = started {
                self.adopt(pane, None);
                self.run(Command::Close(pane)).map(|_| Outcome::Done)
            } else {
                Ok(Outcome::Done)
            }
        } else if let Some((pane, launched)) = started {
            self.run(Command::Adopt {
                pane,
                path: dir,
                launched,
            })
        } else {
            self.run(Command::OpenGroup {
                name: super::dir_name(&dir),
                path: dir,
                repo: None,
                start: (!program.is_empty()).then_some(program),
                size,
            })
        }
    }

    /// Rebuilds the saved workspace: each pane restarted in its folder (the home
    /// folder when that is gone), a known agent resumed, any other program replaced
    /// by a shell with a line saying what ran there, and with `last_screen` the old
    /// screen printed above the new prompt. Each pane starts at its share of the panes'
    /// area when the face knows it, else at `size`. Replaces the tree (call it on an
    /// empty one).
    pub(super) fn restore(
        &mut self,
        state: &SessionState,
        last_screen: bool,
        size: Option<crate::model::TermSize>,
    ) {
        let area = self.area_cells;
        let fallback = size;
        let tree = Workspace::from_session_sized(state, area, |p, size| {
            let dir = if p.cwd.is_dir() {
                p.cwd.clone()
            } else {
                dirs::home_dir().unwrap_or_else(|| "/".into())
            };
            let size = size
                .map(|(cols, rows)| crate::model::TermSize::new(cols.into(), rows.into()))
                .or(fallback);
            // Still running, held by the keeper: taken back as it is.
            if let Some(pane) = p.keeper.and_then(|key| self.reattach_saved(key, p)) {
                return Some(pane);
            }
            self.resume_key = p.keeper;
            let resumed = p
                .agent
                .as_ref()
                .and_then(|a| self.restore_agent((&dir, size), a, p.command.as_deref()));
            let pane = match (resumed, &p.command) {
                (Some(pane), _) => Some(pane),
                (None, Some(command)) => self.restore_command((&dir, size), command),
                (None, None) => self.spawn_in(&dir, &[], size).ok(),
            };
            self.resume_key = None;
            let pane = pane?;
            if let (Some(screen), true) = (&p.last_screen, last_screen) {
                // The old screen, as history above the new prompt.
                let mut text = String::new();
                for line in screen {
                    text.push_str(line);
                    text.push_str("\r\n");
                }
                self.pipeline().feed(pane, text.as_bytes());
            }
            Some(pane)
        });
        self.ws = tree;
        self.reattach_leftovers();
        // Remote worktrees connect again; one added last takes the front only if it
        // had it.
        let active_before = self.ws.active;
        let mut front = None;
        for saved in &state.remotes {
            match self.add_remote(&saved.target) {
                Ok(()) if saved.active => front = Some(self.ws.active),
                Ok(()) => {}
                Err(e) => self.effects.push(super::Effect::Status(format!(
                    "a saved remote worktree: {e}"
                ))),
            }
        }
        self.ws.active = front.unwrap_or(active_before);
    }

    /// A pane whose agent reported its conversation: that conversation resumed in
    /// `dir` (`claude --resume ID`, `codex resume ID`), with the program the tab was
    /// opened with when it is that agent. `None` when the agent is not installed now
    /// (the caller falls back to the tab's command, or a shell).
    fn restore_agent(
        &mut self,
        (dir, size): (&Path, Option<crate::model::TermSize>),
        session: &AgentSession,
        command: Option<&[String]>,
    ) -> Option<PaneId> {
        let name = session.agent.program();
        let program = command
            .and_then(|c| c.first())
            .filter(|p| Path::new(p).file_name().is_some_and(|n| n == name))
            .cloned()
            .unwrap_or_else(|| name.to_owned());
        let path = std::env::var_os("PATH");
        if !installed(&program, path.as_deref()) {
            return None;
        }
        // Checked again: the id came from a file.
        let session = AgentSession::new(session.agent, &session.id)?;
        let mut again = vec![program];
        again.extend(session.agent.resume_args(&session.id));
        let pane = self.spawn_in(dir, &again, size).ok()?;
        if let Some(r) = self.record_mut(pane) {
            r.launched = command.map(<[String]>::to_vec);
            r.agent = Some(session);
        }
        self.pipeline()
            .breadcrumb(Some(pane), format!("resumed: {}", again.join(" ")));
        Some(pane)
    }

    /// A pane that ran `command` before the restart: a known agent resumed in `dir`,
    /// else a shell with a dim line saying what ran there.
    fn restore_command(
        &mut self,
        (dir, size): (&Path, Option<crate::model::TermSize>),
        command: &[String],
    ) -> Option<PaneId> {
        let path = std::env::var_os("PATH");
        let rules = self.config().session.resume.clone();
        match plan(command, &rules, |p| installed(p, path.as_deref())) {
            Restore::Resume(again) => {
                let pane = self.spawn_in(dir, &again, size).ok()?;
                // Remembered as first run, so the next restart resumes it again.
                if let Some(r) = self.record_mut(pane) {
                    r.launched = Some(command.to_vec());
                }
                self.pipeline()
                    .breadcrumb(Some(pane), format!("resumed: {}", again.join(" ")));
                Some(pane)
            }
            Restore::Shell { note } => {
                let pane = self.spawn_in(dir, &[], size).ok()?;
                self.pipeline().breadcrumb(Some(pane), note.clone());
                // The note holds a command line from the session file: shown, never
                // obeyed (its control characters are replaced).
                let line = format!(
                    "\x1b[2m[tern] {}\x1b[0m\r\n",
                    crate::resume::printable(&note)
                );
                self.pipeline().feed(pane, line.as_bytes());
                Some(pane)
            }
        }
    }

    /// What a restart needs. With `screens`, each pane's last screen too: a round trip
    /// to the model thread per pane, waited for (a face that must not wait asks with
    /// `Pipeline::request_dump` and passes the answers to [`Self::session_state_with`]).
    pub fn session_state(&self, screens: bool) -> SessionState {
        self.session_state_with(|p| {
            screens
                .then(|| self.pipeline().dump_screen(p).map(|d| d.rows))
                .flatten()
        })
    }

    /// What a restart needs, each pane's last screen as `screen` has it; remote
    /// groups are saved as their targets (tmux keeps their windows).
    pub fn session_state_with(
        &self,
        screen: impl Fn(PaneId) -> Option<Vec<String>>,
    ) -> SessionState {
        let mut state = self.ws.to_session(|p| SavedPane {
            // A program tern resumes starts again where it was started, never in a
            // folder it named (OSC 7) or moved to; a shell comes back in its folder.
            cwd: self
                .record(p)
                .filter(|r| r.launched.is_some())
                .and_then(|r| r.started_in.clone())
                .or_else(|| self.pane_cwd(p))
                .or_else(|| {
                    self.ws
                        .locate(p)
                        .map(|at| self.ws.groups[at.group].path.clone())
                })
                .unwrap_or_default(),
            last_screen: screen(p),
            command: self.record(p).and_then(|r| r.launched.clone()),
            agent: self.record(p).and_then(|r| r.agent.clone()),
            keeper: self.pipeline().keeper_key(p),
        });
        let remote_keys: Vec<&Path> = self.remotes.iter().map(|r| r.key.as_path()).collect();
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
}

/// When the session is saved, for either face: when its layout, folders or tabs
/// changed (not every wake-up). With `session.restore_last_screen` each pane's screen
/// is asked for then, without waiting; the state is due once every answer is in (the
/// answers wake the face). A newer layout replaces a save still waiting for screens.
#[derive(Default)]
pub struct SaveSchedule {
    /// The session without screens as last made due.
    layout: Option<SessionState>,
    /// Screens asked for the save in waiting, and those answered.
    asked: Vec<(PaneId, Pending<ScreenDump>)>,
    answers: HashMap<PaneId, Vec<String>>,
    waiting: bool,
}

impl SaveSchedule {
    /// The state to save now, if one is due. Never waits for the model.
    pub fn due(&mut self, core: &WorkspaceCore) -> Option<SessionState> {
        let layout = core.session_state_with(|_| None);
        if self.layout.as_ref() != Some(&layout) {
            self.layout = Some(layout.clone());
            if !core.config().session.restore_last_screen {
                return Some(layout);
            }
            self.asked = core
                .ws
                .all_panes()
                .into_iter()
                .map(|p| (p, core.pipeline().request_dump(p)))
                .collect();
            self.answers.clear();
            self.waiting = true;
        }
        if !self.waiting {
            return None;
        }
        let answers = &mut self.answers;
        self.asked.retain(|(pane, pending)| match pending.poll() {
            Answer::Ready(dump) => {
                answers.insert(*pane, dump.rows);
                false
            }
            Answer::Waiting => true,
            Answer::Gone => false,
        });
        if !self.asked.is_empty() {
            return None;
        }
        self.waiting = false;
        Some(core.session_state_with(|p| self.answers.get(&p).cloned()))
    }
}
