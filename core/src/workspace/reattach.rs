//! Taking programs back from the keeper at start-up: each saved pane the keeper still
//! holds comes back as it is (the same program, pid and, where free, `tern msg` id,
//! with what it printed meanwhile replayed), instead of being started again; panes
//! the session does not name come back as tabs of the group they run in.

use std::collections::HashMap;
use std::path::PathBuf;

use super::command::Effect;
use super::core::{WorkspaceCore, group_identity};
use crate::pipeline::{PaneId, Reattach};
use crate::session::SavedPane;

impl WorkspaceCore {
    /// The panes taken back from the keeper ([`crate::keeper::start`]), for
    /// [`WorkspaceCore::restore`] (call it first).
    pub fn set_reattach(&mut self, panes: Vec<Reattach>) {
        self.reattach = panes
            .into_iter()
            .map(|r| (r.key, r))
            .collect::<HashMap<_, _>>();
    }

    /// The saved pane `saved`, if the keeper holds it under `key`: registered again.
    pub(super) fn reattach_saved(&mut self, key: u64, saved: &SavedPane) -> Option<PaneId> {
        let r = self.reattach.remove(&key)?;
        let pane = self.reattach_one(r)?;
        if let Some(rec) = self.record_mut(pane) {
            rec.launched = saved.command.clone();
            rec.explicit = saved.command.is_some();
            rec.agent = saved.agent.clone();
            rec.started_in = Some(saved.cwd.clone());
        }
        Some(pane)
    }

    fn reattach_one(&mut self, r: Reattach) -> Option<PaneId> {
        let ran_detached = r.ran_detached;
        let pane = match self.pipeline.adopt(r) {
            Ok(p) => p,
            Err(e) => {
                self.effects
                    .push(Effect::Status(format!("a program the keeper held: {e}")));
                return None;
            }
        };
        self.adopt(pane, None);
        if let Some(rec) = self.record_mut(pane) {
            rec.ran_detached = ran_detached;
        }
        Some(pane)
    }

    /// Panes the keeper held that the session did not name (it was not saved since
    /// they opened): each a tab in the group it runs in (by its folder), else the
    /// first group, else a new group at its folder.
    pub(super) fn reattach_leftovers(&mut self) {
        let mut left: Vec<Reattach> = self.reattach.drain().map(|(_, r)| r).collect();
        left.sort_by_key(|r| r.old_pane);
        for r in left {
            let cwd: Option<PathBuf> = r
                .pid
                .and_then(|pid| std::fs::read_link(format!("/proc/{pid}/cwd")).ok());
            let Some(pane) = self.reattach_one(r) else {
                continue;
            };
            let group = cwd
                .as_ref()
                .and_then(|c| {
                    self.ws
                        .groups
                        .iter()
                        .enumerate()
                        .filter(|(_, g)| c.starts_with(&g.path))
                        .max_by_key(|(_, g)| g.path.as_os_str().len())
                        .map(|(i, _)| i)
                })
                .or_else(|| (!self.ws.groups.is_empty()).then_some(0))
                .unwrap_or_else(|| {
                    let dir = cwd.clone().unwrap_or_else(|| PathBuf::from("/"));
                    let (name, repo) = group_identity(&dir);
                    self.ws.add_group(name, dir, repo)
                });
            self.ws.add_tab(group, pane);
        }
    }
}
