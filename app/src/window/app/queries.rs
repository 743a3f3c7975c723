//! What the window shows, read from its state: titles, working directories, badges,
//! the focused pane's view. The chrome and the pickers read these (tests read the
//! window through `TestView`). Nothing here changes the workspace.

use tern_core::pipeline::PaneId;
use tern_core::pipeline::activity::ActivityState;
use tern_core::workspace::Badges;

use super::{TernApp, tilde};
use crate::window::palette::Entry;
use crate::window::pane::PaneUi;

impl TernApp {
    pub(super) fn focused_ui(&self) -> Option<&PaneUi> {
        self.panes.ui.get(&self.core.ws().focused_pane()?)
    }

    pub(super) fn focused_ui_mut(&mut self) -> Option<&mut PaneUi> {
        let id = self.core.ws().focused_pane()?;
        self.panes.ui.get_mut(&id)
    }

    pub fn search(&self) -> Option<&crate::window::search::SearchBar> {
        self.focused_ui()?.search()
    }

    /// The pane's badges and its live activity (state, progress).
    pub fn pane_badges(&self, pane: PaneId) -> Badges {
        let mut b = self.core.record(pane).map(|r| r.badges).unwrap_or_default();
        b.activity = self.agents.state(pane);
        b.progress = self.agents.progress(pane);
        b.indicator = self.agents.indicator(pane);
        b
    }

    /// Every pane of every worktree: "worktree · title · cwd · last command".
    pub fn switcher_entries(&self) -> Vec<Entry<PaneId>> {
        let home = dirs::home_dir();
        let mut out = Vec::new();
        for g in &self.core.ws().groups {
            for tab in &g.tabs {
                for pane in tab.layout.panes() {
                    let cwd = self
                        .core
                        .pane_cwd(pane)
                        .map(|d| tilde(&d, home.as_deref()))
                        .unwrap_or_default();
                    let last = self
                        .core
                        .record(pane)
                        .and_then(|r| r.last_foreground.clone())
                        .unwrap_or_default();
                    let state = self.agents.state(pane);
                    let activity = crate::window::activity::activity_suffix(self.pane_badges(pane));
                    let report = self.agents.activity.get(&pane);
                    // How long in that state, and why it waits.
                    let since = report
                        .filter(|r| r.state != ActivityState::Idle)
                        .map(|r| format!(" {}", crate::window::activity::short_age(r.since_ms)))
                        .unwrap_or_default();
                    // The reason only while it waits: answered, it is gone.
                    let why = report
                        .filter(|r| r.state == ActivityState::Waiting)
                        .and_then(|r| r.wait_text.as_deref())
                        .map(|w| format!(" — {w}"))
                        .unwrap_or_default();
                    out.push((
                        state,
                        Entry {
                            text: format!(
                                "{} · {}{activity}{since}{why}",
                                g.name,
                                self.core.pane_title(pane)
                            ),
                            hint: format!("{cwd} {last}").trim().to_owned(),
                            swatches: Vec::new(),
                            value: pane,
                        },
                    ));
                }
            }
        }
        // Waiting first, then running, done, idle (a stable sort keeps the order
        // within each).
        out.sort_by_key(|(state, _)| state.unwrap_or(ActivityState::Idle));
        out.into_iter().map(|(_, e)| e).collect()
    }

    /// What the sidebar shows of the open groups.
    pub(crate) fn group_infos(&self) -> Vec<crate::window::sidebar::GroupInfo> {
        self.core
            .ws()
            .groups
            .iter()
            .enumerate()
            .map(|(gi, g)| crate::window::sidebar::GroupInfo {
                name: g.name.clone(),
                path: g.path.clone(),
                repo: g.repo.clone(),
                badges: self.core.ws().group_badges(gi, |p| self.pane_badges(p)),
                tabs: g.tabs.len(),
                active: gi == self.core.ws().active,
                remote: self
                    .core
                    .remote_of_group(gi)
                    .map(|_| self.core.remote_note(gi).unwrap_or_default()),
                attention: self
                    .agents
                    .attention(g.tabs.iter().flat_map(|t| t.layout.panes())),
            })
            .collect()
    }

    /// What the tab bar shows, or `None` when it is hidden (one tab in one folder: the
    /// window is all terminal, like kitty).
    pub(super) fn tab_strip(&self) -> Option<crate::window::chrome::TabStrip> {
        let group = self.core.ws().active;
        let g = self.core.ws().groups.get(group)?;
        if g.tabs.len() <= 1 && self.core.ws().groups.len() <= 1 && !self.chrome.sidebar_open {
            return None;
        }
        let tabs = g
            .tabs
            .iter()
            .map(|t| crate::window::chrome::TabEntry {
                id: t.id,
                title: self.core.tab_title(t),
                badges: self.core.ws().tab_badges(t, |p| self.pane_badges(p)),
                attention: self.agents.attention(t.layout.panes()),
            })
            .collect();
        Some(crate::window::chrome::TabStrip {
            group,
            group_name: g.name.clone(),
            tabs,
            active: g.active_tab,
        })
    }
}
