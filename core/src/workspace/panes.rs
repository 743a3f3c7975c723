//! Starting programs and registering panes: a pane started in a folder with the
//! config's shell or a program, one started elsewhere adopted (the window's first pane,
//! a remote pane), and what each pane runs, looked up from the process table.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::command::Effect;
use super::core::{PROCESS_REFRESH, PaneRecord, WorkspaceCore};
use crate::model::TermSize;
use crate::pipeline::{PaneId, SpawnSpec};

impl WorkspaceCore {
    /// Starts `program` (empty: the configured shell) in `dir` at `size` (`None`: the
    /// pipeline's default), hidden until shown.
    pub(super) fn spawn_in(
        &mut self,
        dir: &Path,
        program: &[String],
        size: Option<TermSize>,
    ) -> Result<PaneId, String> {
        if !dir.is_dir() {
            return Err(format!("{} is not a folder", dir.display()));
        }
        let mut spec = self.config.spawn_spec(Some(dir.to_path_buf()));
        if let Some((p, args)) = program.split_first() {
            spec.command = Some((p.clone(), args.to_vec()));
        }
        spec.size = size;
        self.spawn(spec)
    }

    /// Starts `spec` with the core's environment added; the pane is registered (a
    /// program other than the configured shell is remembered for the session).
    pub fn spawn(&mut self, mut spec: SpawnSpec) -> Result<PaneId, String> {
        spec.env.extend(self.env.iter().cloned());
        spec.history_key = self.resume_key.take();
        let shell = self.config.spawn_spec(None).command;
        let id = self
            .pipeline
            .spawn(&spec)
            .map_err(|e| format!("cannot start a shell: {e}"))?;
        let other = spec.command.is_some() && spec.command != shell;
        let started_in = spec.cwd.clone();
        self.adopt(
            id,
            other.then(|| {
                spec.command
                    .iter()
                    .flat_map(|(p, args)| std::iter::once(p.clone()).chain(args.iter().cloned()))
                    .collect()
            }),
        );
        if let Some(r) = self.panes.get_mut(&id) {
            r.started_in = started_in;
        }
        Ok(id)
    }

    /// Registers a pane started elsewhere (the window's first pane, started before the
    /// window) with the command line it runs when that is not the shell.
    pub fn adopt(&mut self, pane: PaneId, launched: Option<Vec<String>>) {
        let record = PaneRecord {
            explicit: launched.is_some(),
            launched,
            ..PaneRecord::default()
        };
        self.panes.insert(pane, record);
        self.effects.push(Effect::Opened(pane));
    }

    /// Registers a pane that shows a remote program (tmux): its program's end does not
    /// follow the exit policy (the remote worktree closes it). A pane known already
    /// is left as it is.
    pub fn adopt_remote(&mut self, pane: PaneId) {
        if self.panes.contains_key(&pane) {
            return;
        }
        let record = PaneRecord {
            remote: true,
            ..PaneRecord::default()
        };
        self.panes.insert(pane, record);
        self.effects.push(Effect::Opened(pane));
    }

    /// Looks up what each pane runs (for titles, the switcher and close questions), at
    /// most once per [`PROCESS_REFRESH`] unless a pane was never looked up; called on
    /// a wake-up something else caused (no timer).
    pub fn refresh_processes(&mut self) {
        let new_pane = self.panes.values().any(|p| !p.looked_up);
        if self
            .processes_at
            .is_some_and(|at| at.elapsed() < PROCESS_REFRESH)
            && !new_pane
        {
            return;
        }
        self.processes_at = Some(Instant::now());
        for (id, r) in self.panes.iter_mut() {
            r.looked_up = true;
            let Some(info) = self.pipeline.process_info(*id) else {
                continue;
            };
            r.foreground = info
                .runs_other_program()
                .then(|| info.foreground_name.clone())
                .flatten();
            if info.cwd.is_some() {
                r.cwd = info.cwd.clone();
            }
            if r.foreground.is_some() {
                r.last_foreground = r.foreground.clone();
            }
        }
    }

    /// What closing `panes` would end that the person may want to keep, when the
    /// config asks first (`confirm_on_close`): the program in front of each pane's
    /// shell, and with `remote` each remote pane's tmux pane (closing a pane or a tab
    /// ends it on the host; closing the window only detaches, so it leaves them out).
    /// Panes whose program exited ask nothing. Empty: close without asking.
    pub fn programs_to_confirm(&self, panes: &[PaneId], remote: bool) -> Vec<String> {
        if !self.config.confirm_on_close {
            return Vec::new();
        }
        panes
            .iter()
            .filter(|p| self.panes.get(p).is_some_and(|r| r.exit.is_none()))
            .filter_map(|p| match self.remote_program(*p) {
                Some(program) => remote.then_some(program),
                None => {
                    let info = self.pipeline.process_info(*p)?;
                    info.runs_other_program()
                        .then(|| info.foreground_name.unwrap_or_else(|| "a program".into()))
                }
            })
            .collect()
    }
}

impl WorkspaceCore {
    pub(super) fn group_path_of(&self, pane: PaneId) -> Option<PathBuf> {
        let at = self.ws.locate(pane)?;
        Some(self.ws.groups[at.group].path.clone())
    }

    /// The group whose folder holds `dir` (the deepest), or an index past the end when
    /// none does (the caller makes one).
    pub(super) fn group_for(&self, dir: &Path) -> usize {
        self.ws
            .groups
            .iter()
            .enumerate()
            .filter(|(_, g)| dir.starts_with(&g.path))
            .max_by_key(|(_, g)| g.path.components().count())
            .map(|(i, _)| i)
            .unwrap_or(self.ws.groups.len())
    }
}
