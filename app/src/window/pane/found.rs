//! A match that search everywhere showed in this pane: the pane scrolls to it once its
//! view is there (a revealed tab's first frame) and highlights it until the overlay
//! closes or another match is shown.

use std::ops::Range;

use super::PaneUi;
use crate::window::render::Metrics;
use crate::window::theme::Theme;
use crate::window::trace::Trace;

/// The match to show: its absolute line and cell columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub line: u64,
    pub cols: Vec<Range<usize>>,
    /// The viewport was scrolled to it.
    placed: bool,
}

impl PaneUi {
    /// Scrolls to absolute `line` on the next frame that has the view, and highlights
    /// `cols` there.
    pub fn show_found(&mut self, line: u64, cols: Vec<Range<usize>>) {
        self.modes.found = Some(Found {
            line,
            cols,
            placed: false,
        });
    }

    pub fn clear_found(&mut self) {
        self.modes.found = None;
    }

    /// Scrolls to the match (once, when the view is there), then highlights it.
    pub(super) fn paint_found(
        &mut self,
        painter: &egui::Painter,
        rect: egui::Rect,
        m: &Metrics,
        theme: &Theme,
        trace: &mut Trace,
    ) {
        let (Some(found), Some(view)) = (self.modes.found.as_mut(), self.view.as_ref()) else {
            return;
        };
        let dropped = view.meta.scrollback_dropped;
        let total = view.meta.scrollback_lines;
        let rows = view.rows.len() as u64;
        if !found.placed {
            found.placed = true;
            // The match's index in the scrollback now; in the middle of the window
            // when history allows (as the one-pane search does).
            let line = found.line.saturating_sub(dropped);
            self.viewport.offset = if line >= total {
                0
            } else {
                (total - line + rows / 2).min(total) as usize
            };
            let top = (dropped + total) as i64 - self.viewport.offset as i64;
            trace.event(
                "found_shown",
                &format!(
                    "\"pane\":{},\"line\":{},\"top\":{top},\"rows\":{rows}",
                    self.id.0, found.line
                ),
            );
        }
        let top = (dropped + total) as i64 - self.viewport.offset as i64;
        let row = found.line as i64 - top;
        if row < 0 || row >= rows as i64 {
            return;
        }
        for c in &found.cols {
            let r = egui::Rect::from_min_size(
                rect.min + egui::vec2(c.start as f32 * m.cell.x, row as f32 * m.cell.y),
                egui::vec2(c.len() as f32 * m.cell.x, m.cell.y),
            );
            painter.rect_filled(r, 0.0, theme.search_current);
        }
    }
}
