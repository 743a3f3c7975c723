//! What part of a pane's history the window shows, and the selection.
//!
//! `offset` counts lines scrolled up from the live screen (0 = live). Lines above the
//! screen are paged from the model on demand without waiting for it
//! (`Pipeline::request_history`): the lines in view and a screen's worth on each side,
//! so scrolling rarely reaches lines not in yet (those draw blank for the frame or two
//! until the page comes; its arrival wakes the window). Selection points are absolute lines, counted from the first line the pane ever
//! had: `dropped + i` for scrollback line `i`, then the screen's rows, so a selection
//! stays on its text while output scrolls it.

use tern_core::model::Row;
use tern_core::pipeline::delivery::PaneView;
use tern_core::pipeline::{Answer, HistoryPage, PaneId, Pending, Pipeline};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Point {
    pub line: usize,
    pub col: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelectMode {
    Cells,
    Words,
    Lines,
    /// A rectangle of columns (Alt+drag): the same columns on every line.
    Block,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Selection {
    pub anchor: Point,
    pub head: Point,
    pub mode: SelectMode,
}

impl Selection {
    /// The block's columns, first to last inclusive.
    fn columns(&self) -> (usize, usize) {
        (
            self.anchor.col.min(self.head.col),
            self.anchor.col.max(self.head.col),
        )
    }

    /// Ordered (start, end), end inclusive.
    pub fn span(&self) -> (Point, Point) {
        if self.anchor <= self.head {
            (self.anchor, self.head)
        } else {
            (self.head, self.anchor)
        }
    }
}

#[derive(Debug, Default)]
pub struct Viewport {
    pub offset: usize,
    /// Absolute index of the first screen line when last seen (to keep scrolled
    /// content still).
    last_total: u64,
    /// History lines around the view, oldest first, from absolute line `cache_first`,
    /// paged at width `cache_cols` (a reflow renumbers lines: the cache goes).
    cache: Vec<Row>,
    cache_first: u64,
    cache_cols: usize,
    /// The lines asked for last (first, count), and the page on its way.
    asked: Option<(u64, usize)>,
    pending: Option<Pending<HistoryPage>>,
    /// Drawn for a history line not in yet, or dropped off the scrollback.
    blank: Row,
    pub selection: Option<Selection>,
    /// `seq` the selection was made at: new output clears it.
    selection_seq: u64,
    /// Pixel-smooth scrolling: how much of the line above `offset` is in view, as a
    /// share of a line in `0.0..1.0` (touchpads scroll by points, not lines).
    pub fraction: f32,
}

/// One char per cell (a wide character's spacer is `'\0'`), so indexes are columns.
pub fn cell_chars(row: &Row) -> Vec<char> {
    row.cells
        .iter()
        .map(|c| {
            if c.flags().contains(tern_core::model::Flags::WIDE_SPACER) {
                '\0'
            } else {
                c.ch()
            }
        })
        .collect()
}

fn word_char(c: char) -> bool {
    c.is_alphanumeric() || "_-./~:@%+".contains(c)
}

impl Viewport {
    /// New output arrived: while scrolled, keep the same lines in view (also when the
    /// scrollback is full and old lines drop off the front).
    pub fn on_content(&mut self, view: &PaneView) {
        let end = view.meta.scrollback_dropped + view.meta.scrollback_lines;
        if self.offset > 0 && end > self.last_total {
            self.offset += (end - self.last_total) as usize;
        }
        self.offset = self.offset.min(view.meta.scrollback_lines as usize);
        self.last_total = end;
    }

    pub fn scroll_by(&mut self, lines: isize, view: &PaneView) {
        let max = view.meta.scrollback_lines as isize;
        self.offset = (self.offset as isize + lines).clamp(0, max) as usize;
        self.fraction = 0.0;
    }

    /// Scrolls by a fraction of lines (positive: up into history), keeping the part of
    /// a line that is left over for a pixel-smooth view.
    pub fn scroll_smooth(&mut self, lines: f32, view: &PaneView) {
        let max = view.meta.scrollback_lines as f32;
        let at = (self.offset as f32 + self.fraction + lines).clamp(0.0, max);
        self.offset = at.floor() as usize;
        self.fraction = at - at.floor();
        if self.offset as u64 >= view.meta.scrollback_lines {
            self.fraction = 0.0;
        }
    }

    /// Whether a partly scrolled line shows above the rows (pixel-smooth scrolling).
    pub fn extra_row(&self, view: &PaneView) -> bool {
        self.fraction > 0.0 && (self.offset as u64) < view.meta.scrollback_lines
    }

    pub fn to_bottom(&mut self) {
        self.offset = 0;
        self.fraction = 0.0;
    }

    /// The history lines the view needs: the absolute first line and how many.
    fn needed(&self, view: &PaneView) -> Option<(u64, usize)> {
        let extra = usize::from(self.extra_row(view));
        let top = self.offset + extra;
        let from_history = top.min(view.rows.len() + extra);
        if from_history == 0 {
            return None;
        }
        // Absolute line of the top row: the model may have scrolled on since this
        // snapshot, so lines are asked for by line, not by distance from the newest.
        let first =
            (view.meta.scrollback_dropped + view.meta.scrollback_lines).saturating_sub(top as u64);
        Some((first, from_history))
    }

    /// Takes a page that arrived, and asks for the lines around the view when it
    /// needs some that are not in (never waits for the model).
    pub fn refresh(&mut self, pipeline: &Pipeline, pane: PaneId, view: &PaneView) {
        let cols = view.meta.size.cols;
        if cols != self.cache_cols {
            self.cache.clear();
            self.asked = None;
            self.pending = None;
            self.cache_cols = cols;
            self.blank = Row::blank(cols, tern_core::model::Color::Default);
        }
        if let Some(pending) = &self.pending {
            match pending.poll() {
                Answer::Ready(page) => {
                    self.cache_first = page.first;
                    self.cache = page.rows;
                    self.pending = None;
                }
                Answer::Waiting => {}
                Answer::Gone => self.pending = None,
            }
        }
        let Some((first, count)) = self.needed(view) else {
            return;
        };
        let covered = self
            .asked
            .is_some_and(|(a, n)| first >= a && first + count as u64 <= a + n as u64);
        if !covered {
            // A screen's worth on each side, so the next steps of a scroll are in.
            let from = first.saturating_sub(count as u64);
            let n = (first - from) as usize + 2 * count;
            self.pending = Some(pipeline.request_history(pane, from, n));
            self.asked = Some((from, n));
        }
    }

    /// The rows to draw, top to bottom (call [`Viewport::refresh`] first): history
    /// lines not in yet, or dropped since the snapshot, are blank.
    pub fn rows<'a>(&'a self, view: &'a PaneView) -> Vec<&'a Row> {
        let Some((first, from_history)) = self.needed(view) else {
            return view.rows.iter().collect();
        };
        let extra = usize::from(self.extra_row(view));
        let rows = view.rows.len() + extra;
        let mut out: Vec<&Row> = (first..first + from_history as u64)
            .map(|line| {
                line.checked_sub(self.cache_first)
                    .and_then(|i| self.cache.get(usize::try_from(i).ok()?))
                    .unwrap_or(&self.blank)
            })
            .collect();
        let rest = rows - out.len();
        out.extend(view.rows.iter().take(rest));
        out
    }

    /// Whether every history line in view is in (tests wait for it).
    pub fn history_in(&self, view: &PaneView) -> bool {
        self.needed(view).is_none_or(|(first, n)| {
            first >= self.cache_first
                && first + n as u64 <= self.cache_first + self.cache.len() as u64
        })
    }

    /// The absolute line (counted from the first line ever, so it stays with its
    /// content as lines scroll and drop) of row `r` of the current view.
    pub fn line_of_row(&self, view: &PaneView, r: usize) -> usize {
        (view.meta.scrollback_dropped as usize + view.meta.scrollback_lines as usize + r)
            .saturating_sub(self.offset)
    }

    pub fn start_selection(&mut self, at: Point, mode: SelectMode, seq: u64) {
        self.selection = Some(Selection {
            anchor: at,
            head: at,
            mode,
        });
        self.selection_seq = seq;
    }

    pub fn extend_selection(&mut self, to: Point) {
        if let Some(s) = self.selection.as_mut() {
            s.head = to;
        }
    }

    /// Whether the cell at absolute `line`, `col` is selected.
    pub fn is_selected(&self, line: usize, col: usize, row_text: impl Fn() -> Vec<char>) -> bool {
        let Some(sel) = self.selection else {
            return false;
        };
        let (start, end) = sel.span();
        if line < start.line || line > end.line {
            return false;
        }
        match sel.mode {
            SelectMode::Lines => true,
            SelectMode::Block => {
                let (a, b) = sel.columns();
                (a..=b).contains(&col)
            }
            SelectMode::Cells => {
                (line > start.line || col >= start.col) && (line < end.line || col <= end.col)
            }
            SelectMode::Words => {
                let (s, e) = self.word_bounds(start, end, &row_text);
                (line > start.line || col >= s) && (line < end.line || col <= e)
            }
        }
    }

    fn word_bounds(
        &self,
        start: Point,
        end: Point,
        row_text: &impl Fn() -> Vec<char>,
    ) -> (usize, usize) {
        let text: Vec<char> = row_text();
        let mut s = start.col;
        while s > 0
            && text.get(s - 1).is_some_and(|c| word_char(*c))
            && text.get(s).is_some_and(|c| word_char(*c))
        {
            s -= 1;
        }
        let mut e = end.col;
        while text.get(e + 1).is_some_and(|c| word_char(*c))
            && text.get(e).is_some_and(|c| word_char(*c))
        {
            e += 1;
        }
        (s, e)
    }

    /// The selected text (see [`text_of_selection`]).
    pub fn selected_text(&self, line_row: impl Fn(usize) -> Option<Row>) -> Option<String> {
        text_of_selection(&self.selection?, line_row)
    }

    /// The history line `line` (absolute) if the view's page of history holds it.
    pub fn cached_row(&self, line: u64) -> Option<&Row> {
        let i = line.checked_sub(self.cache_first)?;
        self.cache.get(usize::try_from(i).ok()?)
    }
}

/// The text `sel` selects: lines joined with `\n` (soft-wrapped lines joined without
/// one), trailing spaces trimmed, words and lines widened as the mode says. `None` when
/// `line_row` lacks a line of it.
pub fn text_of_selection(
    sel: &Selection,
    line_row: impl Fn(usize) -> Option<Row>,
) -> Option<String> {
    let (start, end) = sel.span();
    let mut out = String::new();
    for line in start.line..=end.line {
        let row = line_row(line)?;
        out.push_str(&selected_piece(sel, line, &row));
        // A block is always one line per row; other modes join soft-wrapped rows.
        if line != end.line && (!row.wrapped || sel.mode == SelectMode::Block) {
            out.push('\n');
        }
    }
    Some(out)
}

/// The part of absolute line `line` (whose content is `row`) that `sel` selects,
/// trailing spaces trimmed.
pub fn selected_piece(sel: &Selection, line: usize, row: &Row) -> String {
    let (start, end) = sel.span();
    let chars = cell_chars(row);
    let (from, to) = match sel.mode {
        SelectMode::Lines => (0, chars.len()),
        SelectMode::Block => {
            let (a, b) = sel.columns();
            (a.min(chars.len()), (b + 1).min(chars.len()))
        }
        SelectMode::Cells | SelectMode::Words => {
            let mut from = if line == start.line { start.col } else { 0 };
            let mut to = if line == end.line {
                (end.col + 1).min(chars.len())
            } else {
                chars.len()
            };
            if sel.mode == SelectMode::Words {
                while from > 0
                    && chars.get(from - 1).is_some_and(|c| word_char(*c))
                    && chars.get(from).is_some_and(|c| word_char(*c))
                {
                    from -= 1;
                }
                while to < chars.len()
                    && chars.get(to).is_some_and(|c| word_char(*c))
                    && to > 0
                    && chars.get(to - 1).is_some_and(|c| word_char(*c))
                {
                    to += 1;
                }
            }
            (from.min(chars.len()), to.max(from.min(chars.len())))
        }
    };
    let piece: String = chars[from..to].iter().filter(|c| **c != '\0').collect();
    piece.trim_end().to_owned()
}
