//! What panes and tabs are called, and where a pane sits: titles, folders and the
//! "worktree · tab · pane" label the diagnostics, notifications and pickers show.

use std::path::{Path, PathBuf};

use super::core::{WorkspaceCore, dir_name};
use crate::diagnostics::PaneLabel;
use crate::pipeline::PaneId;

impl WorkspaceCore {
    /// The pane's folder: OSC 7 when the shell reports it (only a report that named
    /// the shell's real folder is kept, [`names_real_folder`]), else the shell's own.
    pub fn pane_cwd(&self, pane: PaneId) -> Option<PathBuf> {
        let r = self.record(pane)?;
        if let Some(c) = &r.cwd_reported {
            return Some(PathBuf::from(c));
        }
        r.cwd.clone()
    }

    /// A pane's title: the program's (OSC 0/2), else the running program, else the
    /// folder.
    pub fn pane_title(&self, pane: PaneId) -> String {
        let Some(r) = self.record(pane) else {
            return "—".into();
        };
        if !r.title.is_empty() {
            return r.title.clone();
        }
        if let Some(c) = &r.foreground {
            return c.clone();
        }
        match self.pane_cwd(pane) {
            Some(dir) => dir_name(&dir),
            None => "shell".into(),
        }
    }

    /// A tab's title: the name it was given, else its focused pane's.
    pub fn tab_title(&self, tab: &super::Tab<PaneId>) -> String {
        match &tab.custom_title {
            Some(t) => t.clone(),
            None => self.pane_title(tab.focused),
        }
    }

    /// Where a pane sits: worktree, "n tab title", pane title.
    pub fn pane_label(&self, pane: PaneId) -> PaneLabel {
        let Some(at) = self.ws.locate(pane) else {
            return PaneLabel::unplaced(pane);
        };
        let group = &self.ws.groups[at.group];
        let tab = &group.tabs[at.tab];
        PaneLabel {
            worktree: group.name.clone(),
            tab: format!("{} {}", at.tab + 1, self.tab_title(tab)),
            pane: self.pane_title(pane),
            id: None,
        }
    }
}

/// Whether an OSC 7 folder is the one the pane's shell is really in (`real`, from
/// `/proc/PID/cwd`): the same path, component by component. A program (an agent, a
/// file being `cat`, the far side of `ssh` with an empty host) cannot name another
/// folder for new splits, hints or the session this way. The named path is never
/// touched (no `stat` or `canonicalize` of a path a program chose, which could hang
/// on a dead network mount or trigger an automount), so a logical path through a
/// symbolic link is not taken either: the physical one from `/proc` is used instead.
pub(super) fn names_real_folder(reported: &str, real: Option<&Path>) -> bool {
    real.is_some_and(|real| Path::new(reported) == real)
}
