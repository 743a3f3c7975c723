//! What the window shows, read from its state: titles, working directories, badges,
//! the focused pane's view. The chrome, the pickers and the tests read these.

use tern_core::pipeline::PaneId;
use tern_core::pipeline::activity::ActivityState;
use tern_core::pipeline::delivery::PaneView;
use tern_core::workspace::Badges;

use super::overlay::Overlay;
use super::{TernApp, tilde};
use crate::window::palette::Entry;
use crate::window::pane::PaneUi;
use crate::window::render::Metrics;

impl TernApp {
    /// The diagnostics panel (the command palette toggles it).
    pub fn diagnostics_mut(&mut self) -> &mut crate::window::diagnostics::Diagnostics {
        &mut self.diagnostics
    }

    pub fn diagnostics(&self) -> &crate::window::diagnostics::Diagnostics {
        &self.diagnostics
    }

    /// The focused pane.
    pub fn pane(&self) -> Option<PaneId> {
        self.core.ws().focused_pane()
    }

    pub fn pane_ui(&self, pane: PaneId) -> Option<&PaneUi> {
        self.panes.get(&pane)
    }

    pub fn pane_ui_mut(&mut self, pane: PaneId) -> Option<&mut PaneUi> {
        self.panes.get_mut(&pane)
    }

    pub(super) fn focused_ui(&self) -> Option<&PaneUi> {
        self.panes.get(&self.core.ws().focused_pane()?)
    }

    pub(super) fn focused_ui_mut(&mut self) -> Option<&mut PaneUi> {
        let id = self.core.ws().focused_pane()?;
        self.panes.get_mut(&id)
    }

    pub fn font_size(&self) -> f32 {
        self.font_size
    }

    pub fn set_font_size(&mut self, size: f32) {
        self.font_size = size.clamp(6.0, 72.0);
    }

    pub fn view(&self) -> Option<&PaneView> {
        self.focused_ui()?.view()
    }

    pub fn scroll_offset(&self) -> usize {
        self.focused_ui().map_or(0, PaneUi::scroll_offset)
    }

    pub fn scroll_position(&self) -> f32 {
        self.focused_ui().map_or(0.0, PaneUi::scroll_position)
    }

    pub fn shown_rows(&mut self) -> Vec<String> {
        self.focused_ui_mut()
            .map(PaneUi::shown_rows)
            .unwrap_or_default()
    }

    pub fn exited(&self) -> Option<&str> {
        self.focused_ui()?.exited.as_deref()
    }

    pub fn metrics(&self, ctx: &egui::Context) -> crate::window::render::Metrics {
        Metrics::new(ctx, self.font_size)
    }

    pub fn link_at_cell(
        &mut self,
        row: usize,
        col: usize,
    ) -> Option<(crate::window::links::LinkSpans, String)> {
        self.focused_ui_mut()?.link_at_cell(row, col)
    }

    /// The tooltip the focused pane shows for the link at cell `(row, col)`.
    pub fn link_tooltip_at_cell(&mut self, row: usize, col: usize) -> Option<String> {
        self.focused_ui_mut()?.link_tooltip_at_cell(row, col)
    }

    pub fn search(&self) -> Option<&crate::window::search::SearchBar> {
        self.focused_ui()?.search()
    }

    pub fn paste_pending(&self) -> bool {
        self.focused_ui().is_some_and(PaneUi::paste_pending)
    }

    /// The message shown to the user, if any.
    pub fn status(&self) -> Option<&str> {
        self.status.as_deref()
    }

    /// Why the config file on disk is not in force, if it is not.
    pub fn config_error(&self) -> Option<&str> {
        self.settings.error.as_deref()
    }

    /// The settings in force.
    pub fn config(&self) -> &tern_core::config::Config {
        &self.settings.config
    }

    /// Which picker is open: "palette", "switcher", or `None`.
    pub fn overlay(&self) -> Option<&'static str> {
        match self.overlay {
            Some(Overlay::Palette(_)) => Some("palette"),
            Some(Overlay::Switcher(_)) => Some("switcher"),
            Some(Overlay::Rename { .. }) => Some("rename"),
            Some(Overlay::ConfirmClose { .. }) => Some("confirm-close"),
            Some(Overlay::Clipboard { .. }) => Some("clipboard"),
            Some(Overlay::Everywhere(_)) => Some("search-everywhere"),
            None => None,
        }
    }

    /// The workspace core (its journal of applied commands, for tests).
    pub fn core(&self) -> &tern_core::workspace::WorkspaceCore {
        &self.core
    }

    /// The pane's badges and its live activity (state, progress).
    pub fn pane_badges(&self, pane: PaneId) -> Badges {
        let mut b = self.panes.get(&pane).map(|p| p.badges).unwrap_or_default();
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
                    let activity = crate::window::agents::activity_suffix(self.pane_badges(pane));
                    let report = self.agents.activity.get(&pane);
                    // How long in that state, and why it waits.
                    let since = report
                        .filter(|r| r.state != ActivityState::Idle)
                        .map(|r| format!(" {}", crate::window::agents::short_age(r.since_ms)))
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

    /// Focuses the pane, in any worktree, that has waited longest for the user.
    pub fn next_waiting_pane(&mut self) -> Option<PaneId> {
        let outcome = self.exec(
            tern_core::workspace::Source::Key,
            tern_core::workspace::Command::FocusNextWaiting,
        );
        self.agents.refresh_now(&self.core);
        match outcome.ok()? {
            tern_core::workspace::Outcome::Pane(pane) => Some(pane),
            tern_core::workspace::Outcome::Done => None,
        }
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

    /// Adds the remote worktree `text` names (`ssh://host/path`, `host:path`) as a
    /// group and connects it (the sidebar's "Add repository" with such text).
    pub fn add_remote(&mut self, text: &str) -> Result<(), String> {
        let added = self.core.add_remote(text);
        self.take_effects();
        added
    }

    /// Detaches from the remote worktree keyed `key` and drops its group.
    pub fn forget_remote(&mut self, key: &std::path::Path) {
        self.core.forget_remote(key);
        self.take_effects();
    }

    /// What the tab bar shows, or `None` when it is hidden (one tab in one folder: the
    /// window is all terminal, like kitty).
    pub(super) fn tab_strip(&self) -> Option<crate::window::chrome::TabStrip> {
        let group = self.core.ws().active;
        let g = self.core.ws().groups.get(group)?;
        if g.tabs.len() <= 1 && self.core.ws().groups.len() <= 1 && !self.sidebar_open {
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
