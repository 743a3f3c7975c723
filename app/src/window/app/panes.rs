//! The panes: starting and closing them, parking the ones that left the screen, and
//! drawing the active tab's split tree.

use std::collections::HashSet;
use std::time::Instant;

use tern_core::pipeline::PaneId;
use tern_core::workspace::split_tree::Rect;
use tern_core::workspace::{Command as WsCommand, Source};

use super::TernApp;
use super::apply::Change;
use super::overlay::Overlay;
use crate::window::action::Action;
use crate::window::chrome::{self, DIVIDER};
use crate::window::pane::PaneCx;
use crate::window::render::Metrics;
use crate::window::theme::rgb;

/// What parked panes may keep of their drawn rows (meshes and grid textures) in all,
/// so that switching back to a recent tab draws only what changed: a 100x30 pane keeps
/// ~2 MB, a full-screen pane on a 4K monitor ~35 MB.
pub const KEPT_ROWS_BYTES: usize = 64 << 20;

impl TernApp {
    /// Keeps the rows and textures of the panes parked most recently, up to
    /// [`KEPT_ROWS_BYTES`] in all; the others' are freed.
    fn trim_kept_rows(&mut self) {
        let mut kept: Vec<(Instant, usize, PaneId)> = self
            .panes
            .ui
            .iter()
            .filter_map(|(id, p)| p.kept_rows().map(|(at, bytes)| (at, bytes, *id)))
            .collect();
        kept.sort_by_key(|k| std::cmp::Reverse(k.0));
        let mut total = 0;
        for (_, bytes, id) in kept {
            total += bytes;
            if total > KEPT_ROWS_BYTES
                && let Some(p) = self.panes.ui.get_mut(&id)
            {
                p.drop_kept_rows();
            }
        }
    }

    /// Parks panes that left the screen and reveals the ones that came on it.
    pub(super) fn sync_visibility(&mut self) {
        let now: HashSet<PaneId> = self.core.ws().visible_panes().into_iter().collect();
        for gone in self.panes.shown.difference(&now) {
            self.core.pipeline().set_visible(*gone, false);
            if let Some(p) = self.panes.ui.get_mut(gone) {
                p.park();
            }
        }
        self.trim_kept_rows();
        for new in now.difference(&self.panes.shown) {
            self.core.pipeline().set_visible(*new, true);
            if let Some(p) = self.panes.ui.get_mut(new) {
                p.mark_revealed(Instant::now());
            }
        }
        self.panes.shown = now;
        // The core clears the badges of panes that came on screen.
        self.core
            .set_seen(self.chrome.window_focused, self.panes.shown.iter().copied());
        let focused = self.core.ws().focused_pane();
        if focused != self.panes.focused_last {
            self.core.pipeline().set_focus(focused);
            self.panes.focused_last = focused;
            if self.frames.trace.enabled()
                && let Some(p) = focused
            {
                // Which pane has the keys now, and where its shell runs.
                let cwd = self
                    .core
                    .pipeline()
                    .process_info(p)
                    .and_then(|i| i.cwd)
                    .map(|d| d.display().to_string())
                    .unwrap_or_default();
                let cwd = cwd.replace('\\', "\\\\").replace('"', "\\\"");
                self.frames
                    .trace
                    .event("focus", &format!("\"pane\":{},\"cwd\":\"{cwd}\"", p.0));
            }
        }
        // Revealed panes: trace when the frame showing their snapshot is drawn.
        for p in &self.panes.shown {
            if let Some(u) = self.panes.ui.get_mut(p) {
                u.trace_reveal(&mut self.frames.trace);
            }
        }
    }

    /// Closes a pane, asking first when a program other than the shell runs in it,
    /// or always for a remote pane (what runs there is not seen from here, and closing
    /// it ends its tmux pane on the host): the close, when nothing is to be asked.
    #[must_use = "the workspace change happens only when dispatched"]
    pub(super) fn request_close(&mut self, pane: PaneId) -> Option<Change> {
        match self.core.programs_to_confirm(&[pane], true).pop() {
            Some(program) => {
                self.chrome.overlay = Some(Overlay::ConfirmClose { pane, program });
                None
            }
            None => Some((Source::Key, WsCommand::Close(pane))),
        }
    }

    /// The panes of the active tab, each in its rectangle, and the dividers to drag.
    #[must_use = "what the panel asks for happens only when applied"]
    pub(super) fn panes_ui(&mut self, ui: &mut egui::Ui) -> Vec<Action> {
        let mut actions = Vec::new();
        let full = ui.available_rect_before_wrap();
        // Window padding (`padding`): the panes sit inside it, on their background.
        let pad = self
            .settings
            .config
            .padding
            .max(0.0)
            .min(full.width().min(full.height()) / 4.0);
        let area = full.shrink(pad);
        if pad > 0.0 {
            ui.painter_at(full)
                .rect_filled(full, 0.0, rgb(self.look.palette.background()));
        }
        let metrics = Metrics::new(ui.ctx(), self.look.font_size);
        self.core.set_area_cells((
            (area.width() / metrics.cell.x).floor().clamp(2.0, 1000.0) as u16,
            (area.height() / metrics.cell.y).floor().clamp(1.0, 1000.0) as u16,
        ));
        let Some(tab) = self.core.ws().active_tab().cloned() else {
            let painter = ui.painter_at(area);
            painter.rect_filled(area, 0.0, rgb(self.look.palette.background()));
            let msg = self
                .core
                .remote_note(self.core.ws().active)
                .or_else(|| self.chrome.status.clone())
                .unwrap_or_else(|| "No tabs here: Ctrl+Shift+T opens one.".into());
            crate::window::trace::note_if_changed("empty_worktree", "", || {
                format!("\"text\":{}", serde_json::Value::from(msg.as_str()))
            });
            painter.text(
                area.center(),
                egui::Align2::CENTER_CENTER,
                msg,
                egui::FontId::proportional(15.0),
                self.look.theme.chrome.empty,
            );
            return actions;
        };
        let area_c = Rect::new(area.left(), area.top(), area.width(), area.height());
        let rects = if tab.zoomed {
            vec![(tab.focused, area_c)]
        } else {
            tab.layout.rects(area_c, DIVIDER)
        };
        let overlay_open = self.modal_open();
        let mut cx = PaneCx {
            metrics: &metrics,
            theme: &self.look.theme,
            config: &self.settings.config,
            background: rgb(self.look.palette.background()),
            window_clear: self.look.window_clear,
            grid: self.look.grid.get(),
            glyphs: &mut self.look.glyphs,
            trace: &mut self.frames.trace,
            window_focused: self.chrome.window_focused,
            pane_ids: &mut self.panes.ids,
            primary: &mut self.panes.primary,
        };
        for (pane, r) in rects {
            let rect = egui::Rect::from_min_size(egui::pos2(r.x, r.y), egui::vec2(r.w, r.h));
            let Some(p) = self.panes.ui.get_mut(&pane) else {
                continue;
            };
            p.set_cwd(self.core.pane_cwd(pane));
            let keyboard = pane == tab.focused && !overlay_open;
            let response = p.frame(ui, rect, &mut cx, keyboard);
            if response.clicked {
                actions.push(Action::FocusPane(pane));
            }
            if let Some((text, regex)) = p.take_everywhere_request() {
                actions.push(Action::SearchEverywhere { text, regex });
            }
            if let Some((cwd, command)) = p.take_edit_request() {
                actions.push(Action::RunInNewTab { cwd, command });
            }
            if pane == tab.focused && tab.layout.len() > 1 && !tab.zoomed {
                ui.painter().rect_stroke(
                    rect,
                    0.0,
                    egui::Stroke::new(1.0, self.look.theme.focus_ring),
                    egui::StrokeKind::Inside,
                );
            }
        }
        if !tab.zoomed {
            actions.extend(chrome::dividers(
                ui,
                self.core.ws(),
                area_c,
                &self.look.theme,
            ));
        }
        self.look.glyphs.end_frame(ui.ctx());
        actions
    }
}
