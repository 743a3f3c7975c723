//! What panes and tabs are called, and where a pane sits: titles, folders and the
//! "worktree · tab · pane" label the diagnostics, notifications and pickers show.

use std::path::PathBuf;

use super::core::{WorkspaceCore, dir_name};
use crate::diagnostics::PaneLabel;
use crate::pipeline::PaneId;

/// A worktree as the face names it: its name and branch (the window's sidebar knows
/// git; without it, the group's name stands).
pub type WorktreeName = (String, Option<String>);

impl WorkspaceCore {
    /// The pane's folder: OSC 7 when the shell reports it (only a report that named
    /// the shell's real folder is kept, `core::names_real_folder`), else the shell's
    /// own.
    pub fn pane_cwd(&self, pane: PaneId) -> Option<PathBuf> {
        let r = self.record(pane)?;
        if let Some(c) = &r.cwd_reported {
            return Some(PathBuf::from(c));
        }
        r.cwd.clone()
    }

    /// A pane's title: the program's (OSC 0/2, without a spinner frame:
    /// [`crate::model::title::shown`]), else the running program, else the
    /// folder — its worktree's one name (the branch) when it is the worktree's own
    /// folder, as the sidebar, the switcher and `list` say it.
    pub fn pane_title(&self, pane: PaneId) -> String {
        let Some(r) = self.record(pane) else {
            return "—".into();
        };
        let shown = crate::model::title::shown(&r.title);
        if !shown.is_empty() {
            return shown.to_owned();
        }
        if let Some(c) = &r.foreground {
            return c.clone();
        }
        match self.pane_cwd(pane) {
            Some(dir) => match self.ws.locate(pane).map(|at| &self.ws.groups[at.group]) {
                Some(group) if group.path == dir => group.name.clone(),
                _ => dir_name(&dir),
            },
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
