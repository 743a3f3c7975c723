//! Cells, lines and text: which cell is under the pointer, what the window shows,
//! the selection's text (and clearing it when its content changes), links.

use tern_core::model::{Row, TermSize};
use tern_core::pipeline::delivery::PaneView;
use tern_core::pipeline::{Answer, HistoryPage, Pending};

use super::PaneUi;
use crate::window::render::Metrics;
use crate::window::viewport::{Selection, selected_piece};

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

    /// The selection, if any (absolute lines).
    pub fn selection(&self) -> Option<Selection> {
        self.viewport.selection
    }

    /// The selected text, from what the window holds: the screen and the history
    /// lines around the view. `None` without a selection or when a line of it is not
    /// held (copying asks the model for those: [`PaneUi::copy_selection`]).
    pub fn selection_text(&self) -> Option<String> {
        let view = self.view.as_ref()?;
        self.viewport
            .selected_text(|line| self.held_row(view, line).cloned())
    }

    /// Absolute line `line` if the window holds it: on the screen, or in the page of
    /// history around the view.
    pub(super) fn held_row<'a>(&'a self, view: &'a PaneView, line: usize) -> Option<&'a Row> {
        let screen = first_screen_line(view);
        match line.checked_sub(screen) {
            Some(row) => view.rows.get(row),
            None => self.viewport.cached_row(line as u64),
        }
    }

    /// The hyperlink (OSC 8, or a URL in the text) at a cell of what the window shows.
    pub fn link_at_cell(
        &mut self,
        row: usize,
        col: usize,
    ) -> Option<(crate::window::links::LinkSpans, String)> {
        let (pane, view) = (self.id, self.view.as_ref()?);
        self.viewport.refresh(&self.pipeline, pane, view);
        let rows = self.viewport.rows(view);
        crate::window::links::link_at(&rows, row, col, |id| view.links.get(&id).cloned())
    }

    /// The link at cell `(row, col)`, its cells and its tooltip: the parsed host
    /// first, marked when user info or the link's text hides it
    /// ([`tern_core::text::link_target::tooltip`]).
    pub fn link_tooltip_at_cell(&mut self, row: usize, col: usize) -> Option<String> {
        let (spans, uri) = self.link_at_cell(row, col)?;
        let text = self.text_of_spans(&spans);
        Some(tern_core::text::link_target::tooltip(&uri, &text))
    }

    /// The text shown in `spans` (a link's cells), rows joined.
    fn text_of_spans(&mut self, spans: &crate::window::links::LinkSpans) -> String {
        let (pane, Some(view)) = (self.id, self.view.as_ref()) else {
            return String::new();
        };
        self.viewport.refresh(&self.pipeline, pane, view);
        let rows = self.viewport.rows(view);
        let mut text = String::new();
        for (row, cols) in spans {
            let Some(line) = rows.get(*row) else { continue };
            let cells = line.cells.get(cols.clone()).unwrap_or_default();
            text.extend(cells.iter().map(|c| c.ch()).filter(|c| *c != '\0'));
        }
        text
    }

    /// Asks for `uri` to be opened: a refused scheme is an error at once; an allowed
    /// one is opened off the UI thread when the pane's output is carried out
    /// ([`PaneUi::apply_output`]), and an opener that is missing leaves a breadcrumb
    /// (Diagnostics) for this pane.
    pub fn open_link(&mut self, uri: &str) -> Result<(), String> {
        let uri_json = super::paint::json(uri);
        if let Err(why) = crate::window::links::allowed(uri) {
            let extra = format!(
                "\"pane\":{},\"uri\":{uri_json},\"refused\":{}",
                self.id.0,
                super::paint::json(&why)
            );
            self.note_trace("link_refused", extra);
            return Err(why);
        }
        let given = tern_core::security::link_for_opener(uri);
        let extra = format!(
            "\"pane\":{},\"uri\":{uri_json},\"opener_gets\":{}",
            self.id.0,
            super::paint::json(&given)
        );
        self.note_trace("link_open", extra);
        self.asks.links_out.push(uri.to_owned());
        Ok(())
    }

    /// The cell under `pos` in `rect` (clamped to the grid).
    pub(super) fn cell_at(&self, pos: egui::Pos2, rect: egui::Rect, m: &Metrics) -> (usize, usize) {
        let size = self.size.grid.unwrap_or(TermSize::new(80, 24));
        let col = ((pos.x - rect.left()) / m.cell.x).floor().max(0.0) as usize;
        let row = ((pos.y - rect.top()) / m.cell.y).floor().max(0.0) as usize;
        (
            row.min(size.rows.saturating_sub(1)),
            col.min(size.cols.saturating_sub(1)),
        )
    }

    /// Keeps the selection while its text is unchanged (output that scrolls it is fine)
    /// and clears it when the selected content changes or scrolls off the scrollback.
    /// Lines in the scrollback never change, so only the selected lines that were on the
    /// screen are compared: against the new screen where they still are, and against
    /// the model's history (one page, at most a screen's lines) where they scrolled to.
    /// That page is asked for without waiting: the selection stands until it comes
    /// (its arrival wakes the window), then is kept or cleared.
    pub(super) fn check_selection(&mut self) {
        let (Some(sel), Some(view)) = (self.viewport.selection, self.view.as_ref()) else {
            self.input.selection_guard = None;
            return;
        };
        let guard = match self.input.selection_guard.take() {
            Some(g) if g.selection == sel && g.seq == view.seq && g.cols == view.meta.size.cols => {
                Some(g)
            }
            Some(mut g) if g.selection == sel => {
                let (start, _) = sel.span();
                // A new width re-wraps lines (reflow): their numbers no longer name them.
                if (start.line as u64) < view.meta.scrollback_dropped
                    || g.cols != view.meta.size.cols
                {
                    None
                } else {
                    match self.pieces_unchanged(&mut g, view) {
                        Some(true) => Some(SelectionGuard::take(sel, view)),
                        Some(false) => None,
                        // The history page is on its way: the selection stands.
                        None => Some(g),
                    }
                }
            }
            // A new or changed selection: remember what it holds on the screen now.
            _ => Some(SelectionGuard::take(sel, view)),
        };
        if guard.is_none() {
            self.viewport.selection = None;
        }
        self.input.selection_guard = guard;
    }

    /// Whether the pieces `guard` kept still read the same in `view` (or, for lines
    /// that scrolled off the screen since, in the model's history); `None` while the
    /// history page they need is on its way (asked for here, once).
    fn pieces_unchanged(&self, guard: &mut SelectionGuard, view: &PaneView) -> Option<bool> {
        let screen = first_screen_line(view);
        let scrolled: Vec<usize> = guard
            .pieces
            .iter()
            .map(|(line, _)| *line)
            .filter(|line| *line < screen)
            .collect();
        let history = match (scrolled.first(), scrolled.last()) {
            (Some(&first), Some(&last)) => {
                let want = (first as u64, last + 1 - first);
                let page = match &guard.asked {
                    Some((asked, pending)) if *asked == want => pending.poll(),
                    _ => {
                        let pending = self.pipeline.request_history(self.id, want.0, want.1);
                        guard.asked = Some((want, pending));
                        return None;
                    }
                };
                match page {
                    Answer::Ready(page) if page.first == want.0 => page.rows,
                    // Lines dropped off the scrollback meanwhile, or the pane is gone.
                    Answer::Ready(_) | Answer::Gone => return Some(false),
                    Answer::Waiting => return None,
                }
            }
            _ => Vec::new(),
        };
        let first_scrolled = scrolled.first().copied().unwrap_or(0);
        Some(guard.pieces.iter().all(|(line, piece)| {
            let row = if *line >= screen {
                view.rows.get(line - screen)
            } else {
                history.get(line - first_scrolled)
            };
            row.is_some_and(|row| selected_piece(&guard.selection, *line, row) == *piece)
        }))
    }
}

/// The absolute line of `view`'s first screen row (lines scrolled off before it are
/// numbered from the first line the pane ever had).
pub(super) fn first_screen_line(view: &PaneView) -> usize {
    (view.meta.scrollback_dropped + view.meta.scrollback_lines) as usize
}

/// What a selection held on the screen when last checked.
#[derive(Debug)]
pub struct SelectionGuard {
    selection: Selection,
    /// The `seq` of the frame it was taken from.
    seq: u64,
    /// The screen's width then.
    cols: usize,
    /// Absolute line and selected text of each selected line that was on the screen.
    pieces: Vec<(usize, String)>,
    /// The history lines (first, count) asked for to check the pieces that scrolled
    /// off the screen, and the page on its way.
    asked: Option<((u64, usize), Pending<HistoryPage>)>,
}

impl SelectionGuard {
    fn take(selection: Selection, view: &PaneView) -> SelectionGuard {
        let (start, end) = selection.span();
        let screen = first_screen_line(view);
        let pieces = (start.line.max(screen)..=end.line)
            .filter_map(|line| {
                let row = view.rows.get(line - screen)?;
                Some((line, selected_piece(&selection, line, row)))
            })
            .collect();
        SelectionGuard {
            selection,
            seq: view.seq,
            cols: view.meta.size.cols,
            pieces,
            asked: None,
        }
    }
}
