//! Where the view is in the history: scrolling by pages and to the ends, jumping to
//! the previous or next prompt (OSC 133 marks), selecting the last command's output.

use super::PaneUi;

impl PaneUi {
    /// Scrolls the history by pages (negative: down) or to an end.
    pub fn scroll_pages(&mut self, pages: isize) {
        let rows = self.size.grid.map_or(24, |g| g.rows) as isize;
        if let Some(v) = &self.view {
            self.viewport.scroll_by(pages * (rows - 1), v);
        }
    }

    /// Scrolls so the previous (`forward`: next) prompt is the top row; the next one
    /// past the last is the bottom. Returns whether there was one.
    pub fn jump_to_prompt(&mut self, forward: bool) -> bool {
        let Some(v) = &self.view else {
            return false;
        };
        let screen = v.meta.scrollback_dropped + v.meta.scrollback_lines;
        let top = screen - self.viewport.offset.min(v.meta.scrollback_lines as usize) as u64;
        let target = if forward {
            self.program.marks.next(top)
        } else {
            // Lines that dropped off the scrollback cannot be shown.
            self.program
                .marks
                .previous(top)
                .filter(|l| *l >= v.meta.scrollback_dropped)
        };
        let Some(line) = target else {
            return false;
        };
        self.viewport.offset = screen.saturating_sub(line).min(v.meta.scrollback_lines) as usize;
        self.viewport.fraction = 0.0;
        true
    }

    /// Selects the last finished command's output (whole lines) and scrolls to its
    /// start when that is above the screen. Returns whether there was one.
    pub fn select_last_output(&mut self) -> bool {
        let Some(v) = &self.view else {
            return false;
        };
        let Some((first, last)) = self.program.marks.last_output() else {
            return false;
        };
        let first = first.max(v.meta.scrollback_dropped);
        if first > last {
            return false;
        }
        let cols = v.meta.size.cols.saturating_sub(1);
        let seq = v.seq;
        self.viewport.start_selection(
            viewport_point(first, 0),
            crate::window::viewport::SelectMode::Lines,
            seq,
        );
        self.viewport.extend_selection(viewport_point(last, cols));
        let screen = v.meta.scrollback_dropped + v.meta.scrollback_lines;
        let top = screen - self.viewport.offset.min(v.meta.scrollback_lines as usize) as u64;
        if first < top {
            self.viewport.offset = (screen - first).min(v.meta.scrollback_lines) as usize;
            self.viewport.fraction = 0.0;
        }
        true
    }

    pub fn scroll_to_top(&mut self) {
        if let Some(v) = &self.view {
            self.viewport.offset = v.meta.scrollback_lines as usize;
        }
    }

    pub fn scroll_to_bottom(&mut self) {
        self.viewport.to_bottom();
    }
}

fn viewport_point(line: u64, col: usize) -> crate::window::viewport::Point {
    crate::window::viewport::Point {
        line: line as usize,
        col,
    }
}
