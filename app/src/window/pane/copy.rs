//! Copy mode in the window: keys go to `tern_core::text::copy_mode::CopyMode`, whose
//! cursor is drawn over the text and whose selection is the viewport's selection, so
//! `y` copies exactly what is highlighted (clipboard and PRIMARY). The view follows
//! the cursor. Lines above the screen come from the history around the view or from
//! pages asked of the model without waiting: a key that needs a line not yet held
//! waits (with the keys after it) until its page comes, then runs.

use std::collections::{HashMap, VecDeque};

use tern_core::pipeline::delivery::PaneView;
use tern_core::pipeline::{Answer, HistoryPage, Pending};
use tern_core::text::copy_mode::{
    CopyAction, CopyBounds, CopyKey, CopyMode, CopyPoint, CopySelectMode, LineText, next_match,
};

use super::PaneUi;
use crate::window::render::Metrics;
use crate::window::viewport::{Point, SelectMode, Viewport, cell_chars};

/// Lines asked of the model at once when copy mode reads above the held history.
const HISTORY_PAGE_LINES: usize = 256;
/// History lines copy mode keeps between keys (bounded memory: past this it starts over).
const LINES_KEPT: usize = 16 * HISTORY_PAGE_LINES;

/// History lines copy mode read from the model, by absolute line. Lines in the
/// scrollback never change; a new width re-wraps them (reflow), so they are kept for
/// one width.
#[derive(Default)]
pub(super) struct CopyLines {
    cols: usize,
    lines: HashMap<u64, Vec<char>>,
    /// Lines before this one dropped off the scrollback (the model said so).
    gone_before: u64,
}

/// Keys waiting for a page of history, in the order typed, and the page on its way.
pub(super) struct CopyWait {
    keys: VecDeque<CopyKey>,
    page: Pending<HistoryPage>,
    /// The line the first key needed.
    line: u64,
}

/// The pane's lines for copy mode: the screen, the history around the view, and
/// the pages copy mode read. A line in none of them is noted as missing.
struct PaneText<'a> {
    view: &'a PaneView,
    viewport: &'a Viewport,
    read: &'a CopyLines,
    missing: Option<u64>,
}

impl LineText for PaneText<'_> {
    fn line(&mut self, line: u64) -> Option<Vec<char>> {
        let screen = self.view.meta.scrollback_dropped + self.view.meta.scrollback_lines;
        if line >= screen {
            let row = self.view.rows.get(usize::try_from(line - screen).ok()?)?;
            return Some(cell_chars(row));
        }
        if line < self.view.meta.scrollback_dropped.max(self.read.gone_before) {
            return None;
        }
        if let Some(row) = self.viewport.cached_row(line) {
            return Some(cell_chars(row));
        }
        if let Some(chars) = self.read.lines.get(&line) {
            return Some(chars.clone());
        }
        self.missing.get_or_insert(line);
        None
    }
}

impl PaneUi {
    /// Enters copy mode at the terminal's cursor, or leaves it.
    pub fn toggle_copy_mode(&mut self) {
        if self.modes.copy.is_some() {
            self.leave_copy_mode();
            return;
        }
        let Some(v) = &self.view else {
            return;
        };
        let screen = v.meta.scrollback_dropped + v.meta.scrollback_lines;
        self.modes.copy = Some(CopyMode::new(CopyPoint {
            line: screen + v.meta.cursor.row as u64,
            col: v.meta.cursor.col,
        }));
    }

    /// Leaves copy mode: its selection goes, and the view goes back to the live screen
    /// (as tmux does), where the program's output is.
    fn leave_copy_mode(&mut self) {
        self.modes.copy = None;
        self.modes.copy_wait = None;
        self.modes.copy_lines = CopyLines::default();
        self.modes.copy_matches.clear();
        self.viewport.selection = None;
        self.viewport.to_bottom();
    }

    /// The copy-mode state, while copy mode is on.
    pub fn copy_mode(&self) -> Option<&CopyMode> {
        self.modes.copy.as_ref()
    }

    fn copy_bounds(&self, v: &PaneView) -> CopyBounds {
        let screen = v.meta.scrollback_dropped + v.meta.scrollback_lines;
        let offset = self.viewport.offset.min(v.meta.scrollback_lines as usize) as u64;
        CopyBounds {
            first_line: v.meta.scrollback_dropped,
            last_line: screen + (v.rows.len() as u64).saturating_sub(1),
            view_top: screen - offset,
            view_rows: v.rows.len(),
            cols: v.meta.size.cols,
        }
    }

    /// This frame's keys, for copy mode (nothing reaches the program meanwhile).
    pub(super) fn copy_input(&mut self, ctx: &egui::Context) {
        self.poll_copy_wait();
        let events = ctx.input(|i| i.events.clone());
        for event in events {
            let key = match event {
                egui::Event::Text(text) => {
                    for c in text.chars() {
                        self.copy_key(CopyKey::Char(c));
                    }
                    continue;
                }
                egui::Event::Key {
                    key: egui::Key::Escape,
                    pressed: true,
                    ..
                } => CopyKey::Escape,
                egui::Event::Key {
                    key,
                    pressed: true,
                    modifiers,
                    ..
                } if modifiers.ctrl && !modifiers.shift => {
                    match key.name().chars().next().filter(|_| key.name().len() == 1) {
                        Some(c) => CopyKey::Ctrl(c.to_ascii_lowercase()),
                        None => continue,
                    }
                }
                _ => continue,
            };
            self.copy_key(key);
        }
    }

    /// Runs a copy-mode key, or queues it behind a key that waits for history.
    fn copy_key(&mut self, key: CopyKey) {
        if let Some(wait) = self.modes.copy_wait.as_mut() {
            wait.keys.push_back(key);
            return;
        }
        let Some(v) = self.view.as_ref() else {
            return;
        };
        let bounds = self.copy_bounds(v);
        let Some(mode) = self.modes.copy.as_mut() else {
            return;
        };
        if self.modes.copy_lines.cols != v.meta.size.cols {
            self.modes.copy_lines = CopyLines {
                cols: v.meta.size.cols,
                ..CopyLines::default()
            };
        }
        let before = mode.clone();
        let mut text = PaneText {
            view: v,
            viewport: &self.viewport,
            read: &self.modes.copy_lines,
            missing: None,
        };
        let action = mode.key(key, &bounds, &mut text, &self.program.marks);
        if let Some(line) = text.missing {
            // The key needs a line not held: undone, it runs again when the page comes.
            *mode = before;
            let screen = v.meta.scrollback_dropped + v.meta.scrollback_lines;
            let first = line.saturating_sub(HISTORY_PAGE_LINES as u64 / 2);
            let count = HISTORY_PAGE_LINES.min(usize::try_from(screen - first).unwrap_or(0));
            self.modes.copy_wait = Some(CopyWait {
                keys: VecDeque::from([key]),
                page: self.pipeline.request_history(self.id, first, count),
                line,
            });
            return;
        }
        let seq = v.seq;
        match action {
            CopyAction::Exit => {
                self.leave_copy_mode();
                return;
            }
            CopyAction::Yank { .. } => {
                self.mirror_copy_selection(seq);
                self.copy_selection(super::CopyTo::BOTH);
                self.leave_copy_mode();
                return;
            }
            CopyAction::AskSearch(_) => self.open_search(),
            CopyAction::SearchAgain(direction) => {
                let from = mode.cursor();
                if let Some(at) = next_match(&self.modes.copy_matches, from, direction) {
                    mode.move_to(at);
                }
            }
            CopyAction::Moved | CopyAction::Ignored => {}
        }
        self.mirror_copy_selection(seq);
        self.follow_copy_cursor();
    }

    /// Takes the page copy mode waits for, if it came, and runs the keys that waited.
    fn poll_copy_wait(&mut self) {
        let Some(wait) = self.modes.copy_wait.as_ref() else {
            return;
        };
        let page = match wait.page.poll() {
            Answer::Waiting => return,
            Answer::Gone => {
                self.modes.copy_wait = None;
                return;
            }
            Answer::Ready(page) => page,
        };
        let Some(wait) = self.modes.copy_wait.take() else {
            return;
        };
        let read = &mut self.modes.copy_lines;
        if read.lines.len() + page.rows.len() > LINES_KEPT {
            read.lines.clear();
        }
        for (i, row) in page.rows.iter().enumerate() {
            read.lines.insert(page.first + i as u64, cell_chars(row));
        }
        if !read.lines.contains_key(&wait.line) {
            // The line dropped off the scrollback meanwhile.
            read.gone_before = read.gone_before.max(wait.line + 1);
        }
        for key in wait.keys {
            self.copy_key(key);
        }
    }

    /// The search bar showed match `at` (absolute line, column): in copy mode the
    /// cursor goes there, and the search's matches are kept for `n`/`N`.
    pub(super) fn copy_search_shown(
        &mut self,
        at: CopyPoint,
        matches: &[tern_core::model::search::SearchMatch],
    ) {
        let Some(mode) = self.modes.copy.as_mut() else {
            return;
        };
        let direction = mode.search_direction();
        mode.search_found(at, direction);
        self.modes.copy_matches = matches
            .iter()
            .map(|m| CopyPoint {
                line: m.line as u64,
                col: m.cols.start,
            })
            .collect();
        let seq = self.view.as_ref().map_or(0, |v| v.seq);
        self.mirror_copy_selection(seq);
    }

    /// The copy-mode selection, as the viewport's (which draws and copies it).
    fn mirror_copy_selection(&mut self, seq: u64) {
        let Some(mode) = &self.modes.copy else {
            return;
        };
        let point = |p: CopyPoint| Point {
            line: p.line as usize,
            col: p.col,
        };
        match mode.selection() {
            Some((anchor, cursor, kind)) => {
                let kind = match kind {
                    CopySelectMode::Cells => SelectMode::Cells,
                    CopySelectMode::Lines => SelectMode::Lines,
                    CopySelectMode::Block => SelectMode::Block,
                };
                self.viewport.start_selection(point(anchor), kind, seq);
                self.viewport.extend_selection(point(cursor));
            }
            None => self.viewport.selection = None,
        }
    }

    /// Scrolls so the copy-mode cursor's line is shown.
    fn follow_copy_cursor(&mut self) {
        let (Some(v), Some(mode)) = (&self.view, &self.modes.copy) else {
            return;
        };
        let b = self.copy_bounds(v);
        let line = mode.cursor().line;
        let screen = v.meta.scrollback_dropped + v.meta.scrollback_lines;
        let bottom = b.view_top + (b.view_rows as u64).saturating_sub(1);
        let top = if line < b.view_top {
            line
        } else if line > bottom {
            line + 1 - b.view_rows as u64
        } else {
            return;
        };
        self.viewport.offset = screen.saturating_sub(top).min(v.meta.scrollback_lines) as usize;
        self.viewport.fraction = 0.0;
    }

    /// Draws the copy-mode cursor (a hollow box) where it is in view.
    pub(super) fn paint_copy_cursor(
        &self,
        painter: &egui::Painter,
        rect: egui::Rect,
        m: &Metrics,
        color: egui::Color32,
    ) {
        let (Some(v), Some(mode)) = (&self.view, &self.modes.copy) else {
            return;
        };
        let b = self.copy_bounds(v);
        let at = mode.cursor();
        let Some(row) = at.line.checked_sub(b.view_top) else {
            return;
        };
        if row >= b.view_rows as u64 {
            return;
        }
        let min = rect.min + egui::vec2(at.col as f32 * m.cell.x, row as f32 * m.cell.y);
        let cell = egui::Rect::from_min_size(min, m.cell);
        painter.rect_stroke(
            cell,
            0.0,
            egui::Stroke::new(2.0, color),
            egui::StrokeKind::Inside,
        );
    }

    /// What copy mode says of itself at the pane's top right, and in its accessible
    /// label: `COPY`, then the selection's kind once one is started.
    pub fn copy_mode_words(&self) -> Option<&'static str> {
        use tern_core::text::copy_mode::CopySelectMode;
        let mode = self.modes.copy.as_ref()?;
        Some(match mode.selection().map(|(_, _, kind)| kind) {
            None => "COPY",
            Some(CopySelectMode::Cells) => "COPY · VISUAL",
            Some(CopySelectMode::Lines) => "COPY · VISUAL LINE",
            Some(CopySelectMode::Block) => "COPY · VISUAL BLOCK",
        })
    }

    /// Draws the mode indicator (issue 51: copy mode showed none) in the pane's top
    /// right corner: the link colour behind the pane's background colour.
    pub(super) fn paint_copy_indicator(
        &self,
        painter: &egui::Painter,
        rect: egui::Rect,
        (accent, background): (egui::Color32, egui::Color32),
    ) {
        let words = self.copy_mode_words();
        crate::window::trace::note_if_changed("copy_mode", &self.id.0.to_string(), || {
            format!("\"shown\":{}", super::paint::json(words.unwrap_or("")))
        });
        let Some(words) = words else {
            return;
        };
        let font = egui::FontId::proportional(12.0);
        let galley = painter.layout_no_wrap(words.to_owned(), font, background);
        let pad = egui::vec2(6.0, 2.0);
        let size = galley.size() + 2.0 * pad;
        let at = egui::pos2(rect.right() - size.x - 4.0, rect.top() + 4.0);
        painter.rect_filled(egui::Rect::from_min_size(at, size), 3.0, accent);
        painter.galley(at + pad, galley, background);
    }
}
