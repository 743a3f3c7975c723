//! Cells, lines and text: which cell is under the pointer, what the window shows,
//! the selection's text (and clearing it when its content changes), links.

use tern_core::model::TermSize;

use super::PaneUi;
use crate::window::render::Metrics;

impl PaneUi {
    /// The rows the window shows now (history lines when scrolled up).
    pub fn shown_rows(&mut self) -> Vec<String> {
        let Some(view) = self.view.as_ref() else {
            return Vec::new();
        };
        self.viewport.refresh(&self.pipeline, self.id, view);
        self.viewport
            .rows(view)
            .iter()
            .map(|r| r.text().trim_end().to_owned())
            .collect()
    }

    /// The selected text, if any. Lines in the scrollback come from the model in one
    /// page, asked for by absolute line (the model may have scrolled on since the
    /// snapshot the window draws).
    pub fn selection_text(&self) -> Option<String> {
        let (pane, view) = (self.id, self.view.as_ref()?);
        let sel = self.viewport.selection?;
        let (start, end) = sel.span();
        let dropped = view.scrollback_dropped as usize;
        // Absolute line of the first screen row in this snapshot.
        let screen = dropped + view.scrollback_lines as usize;
        let history = if start.line < screen {
            let count = end.line.min(screen - 1) + 1 - start.line;
            let page = self.pipeline.history(pane, start.line as u64, count)?;
            (page.first == start.line as u64).then_some(page.rows)?
        } else {
            Vec::new()
        };
        self.viewport.selected_text(|abs| {
            if abs >= screen {
                view.rows.get(abs - screen).cloned()
            } else {
                // Lines that dropped off the scrollback are gone.
                history.get(abs.checked_sub(start.line)?).cloned()
            }
        })
    }

    /// The hyperlink (OSC 8, or a URL in the text) at a cell of what the window shows.
    pub fn link_at_cell(
        &mut self,
        row: usize,
        col: usize,
    ) -> Option<(std::ops::Range<usize>, String)> {
        let (pane, view) = (self.id, self.view.as_ref()?);
        self.viewport.refresh(&self.pipeline, pane, view);
        let rows = self.viewport.rows(view);
        crate::window::links::link_at(rows.get(row)?, col, |id| view.links.get(&id).cloned())
    }

    /// The cell under `pos` in `rect` (clamped to the grid).
    pub(super) fn cell_at(&self, pos: egui::Pos2, rect: egui::Rect, m: &Metrics) -> (usize, usize) {
        let size = self.grid.unwrap_or(TermSize::new(80, 24));
        let col = ((pos.x - rect.left()) / m.cell.x).floor().max(0.0) as usize;
        let row = ((pos.y - rect.top()) / m.cell.y).floor().max(0.0) as usize;
        (
            row.min(size.rows.saturating_sub(1)),
            col.min(size.cols.saturating_sub(1)),
        )
    }

    /// Keeps the selection while its text is unchanged (output that scrolls it is fine)
    /// and clears it when the selected content changes or scrolls off the scrollback.
    pub(super) fn check_selection(&mut self) {
        let Some(sel) = self.viewport.selection else {
            self.selection_guard = None;
            return;
        };
        let seq = self.view.as_ref().map_or(0, |v| v.seq);
        match &self.selection_guard {
            Some((s, q, _)) if *s == sel && *q == seq => {}
            Some((s, _, text)) if *s == sel => {
                let now = self.selection_text();
                if now.as_deref() != Some(text.as_str()) {
                    self.viewport.selection = None;
                    self.selection_guard = None;
                } else {
                    self.selection_guard = Some((sel, seq, text.clone()));
                }
            }
            _ => {
                // A new or changed selection: remember what it holds now.
                self.selection_guard = self.selection_text().map(|t| (sel, seq, t));
            }
        }
    }
}
