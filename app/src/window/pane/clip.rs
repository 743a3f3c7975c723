//! Copying the selection. Its text comes from what the window holds (the screen and
//! the history lines around the view); lines it does not hold are asked of the model
//! without waiting, and the copy is made when they come (the answer wakes the
//! window). The app puts copied text on the clipboard after the panes are drawn.

use tern_core::model::Row;
use tern_core::pipeline::{Answer, HistoryPage, Pending};

use super::PaneUi;
use super::selection::first_screen_line;
use crate::window::viewport::{Selection, text_of_selection};

/// Where copied text goes: the clipboard, X11's PRIMARY selection, or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyTo {
    pub clipboard: bool,
    pub primary: bool,
}

impl CopyTo {
    pub const CLIPBOARD: CopyTo = CopyTo {
        clipboard: true,
        primary: false,
    };
    pub const PRIMARY: CopyTo = CopyTo {
        clipboard: false,
        primary: true,
    };
    pub const BOTH: CopyTo = CopyTo {
        clipboard: true,
        primary: true,
    };
}

/// A copy waiting for the history lines of its selection.
pub(super) struct CopyJob {
    selection: Selection,
    to: CopyTo,
    /// The absolute line of the screen's first row when the copy was asked, and the
    /// selected screen rows from there (the screen may scroll on meanwhile).
    screen_first: usize,
    screen: Vec<Row>,
    /// The history lines asked for: from the selection's first line to the screen.
    page: Pending<HistoryPage>,
}

/// What the pane copied and where it goes, waiting for the app.
pub(super) type Copied = (String, CopyTo);

impl PaneUi {
    /// Copies the selection to `to`: now when the window holds all its lines, else as
    /// soon as the model's page of history comes. An empty selection copies nothing.
    pub fn copy_selection(&mut self, to: CopyTo) {
        if let Some(text) = self.selection_text() {
            if !text.is_empty() {
                self.asks.copied.push((text, to));
            }
            return;
        }
        let (Some(view), Some(selection)) = (self.view.as_ref(), self.viewport.selection) else {
            return;
        };
        let (start, end) = selection.span();
        let screen_first = first_screen_line(view);
        let screen = (start.line.max(screen_first)..=end.line)
            .filter_map(|line| view.rows.get(line - screen_first).cloned())
            .collect();
        let count = screen_first.min(end.line + 1).saturating_sub(start.line);
        let page = self
            .pipeline
            .request_history(self.id, start.line as u64, count);
        self.asks.copy_jobs.push(CopyJob {
            selection,
            to,
            screen_first,
            screen,
            page,
        });
    }

    /// Finishes the copies whose history came (each frame; never waits).
    pub(super) fn poll_copies(&mut self) {
        let mut waiting = Vec::new();
        for job in std::mem::take(&mut self.asks.copy_jobs) {
            match job.page.poll() {
                Answer::Waiting => waiting.push(job),
                Answer::Ready(page) => {
                    let (start, _) = job.selection.span();
                    // Lines that dropped off the scrollback meanwhile: nothing to copy.
                    if page.first != start.line as u64 {
                        continue;
                    }
                    let text = text_of_selection(&job.selection, |line| {
                        match line.checked_sub(job.screen_first) {
                            Some(i) => job.screen.get(i).cloned(),
                            None => page.rows.get(line - start.line).cloned(),
                        }
                    });
                    if let Some(text) = text.filter(|t| !t.is_empty()) {
                        self.asks.copied.push((text, job.to));
                    }
                }
                Answer::Gone => {}
            }
        }
        self.asks.copy_jobs = waiting;
    }

    /// Text copied since last asked, and where each goes.
    pub fn take_copied(&mut self) -> Vec<Copied> {
        self.poll_copies();
        std::mem::take(&mut self.asks.copied)
    }

    /// Whether a copy, or a copy-mode key, waits for history lines from the model.
    pub fn waits_for_history(&self) -> bool {
        !self.asks.copy_jobs.is_empty() || self.modes.copy_wait.is_some()
    }
}
