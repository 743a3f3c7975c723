//! The search bar (Ctrl+Shift+F): plain text or regex, with or without case; Enter and
//! Shift+Enter (or the arrows) step through matches, which are highlighted and scrolled
//! into view. The search itself runs on the model thread over the whole history, a
//! slice per round: the bar shows its progress and can cancel it, and the window keeps
//! drawing meanwhile (it never waits for the answer; it polls for it each frame).

use std::time::Duration;

use tern_core::model::search::SearchQuery;
use tern_core::pipeline::{PaneId, Pipeline, SearchRequest, SearchResults};

use super::theme::Theme;

/// How often the progress shown is refreshed while a search runs.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

#[derive(Debug, Default)]
pub struct SearchBar {
    pub text: String,
    pub regex: bool,
    pub case_sensitive: bool,
    pub results: Option<SearchResults>,
    /// The search running on the model thread (dropping it cancels it).
    pending: Option<SearchRequest>,
    /// Index into `results.matches`.
    pub current: usize,
    pub error: Option<String>,
    focus_pending: bool,
}

/// What the bar asks the app to do after a frame.
#[derive(Debug, PartialEq, Eq)]
pub enum SearchAction {
    None,
    Close,
    /// Show this match (an index into the results).
    Show(usize),
    /// Search every pane for the query instead (the scope button).
    Everywhere,
}

impl SearchBar {
    pub fn new() -> SearchBar {
        SearchBar {
            focus_pending: true,
            ..SearchBar::default()
        }
    }

    /// Starts a search for what the bar holds (a running one is cancelled).
    pub fn run(&mut self, pipeline: &Pipeline, pane: PaneId) {
        self.results = None;
        self.error = None;
        self.pending = None;
        if self.text.is_empty() {
            return;
        }
        let query = SearchQuery {
            pattern: self.text.clone(),
            regex: self.regex,
            case_sensitive: self.case_sensitive,
        };
        self.pending = Some(pipeline.start_search(pane, &query));
    }

    /// A search is running.
    pub fn searching(&self) -> bool {
        self.pending.is_some()
    }

    /// `(lines searched, lines to search)` of the running search.
    pub fn progress(&self) -> Option<(u64, u64)> {
        self.pending.as_ref().map(SearchRequest::progress)
    }

    /// Stops the running search (its results so far are dropped).
    pub fn cancel(&mut self) {
        self.pending = None;
    }

    /// Takes the answer of the running search when it is there: the newest match is
    /// shown first, like a terminal's reverse search.
    #[must_use = "what the panel asks for happens only when applied"]
    fn poll(&mut self) -> SearchAction {
        let Some(answer) = self.pending.as_ref().and_then(SearchRequest::poll) else {
            return SearchAction::None;
        };
        self.pending = None;
        match answer {
            Ok(r) => {
                self.current = r.matches.len().saturating_sub(1);
                let found = !r.matches.is_empty();
                self.results = Some(r);
                if found {
                    return SearchAction::Show(self.current);
                }
            }
            Err(e) => self.error = Some(e),
        }
        SearchAction::None
    }

    #[must_use = "what the panel asks for happens only when applied"]
    fn step(&mut self, forward: bool) -> SearchAction {
        let Some(n) = self
            .results
            .as_ref()
            .map(|r| r.matches.len())
            .filter(|n| *n > 0)
        else {
            return SearchAction::None;
        };
        self.current = if forward {
            (self.current + 1) % n
        } else {
            (self.current + n - 1) % n
        };
        SearchAction::Show(self.current)
    }

    /// Draws the bar at the top right of `rect`.
    #[must_use = "what the panel asks for happens only when applied"]
    pub fn ui(
        &mut self,
        ctx: &egui::Context,
        rect: egui::Rect,
        pipeline: &Pipeline,
        pane: PaneId,
        theme: &Theme,
    ) -> SearchAction {
        let mut action = self.poll();
        if self.pending.is_some() {
            ctx.request_repaint_after(PROGRESS_EVERY);
        }
        // At the pane's top right, kept inside the pane: in a narrow split the field
        // shrinks and the bar stays whole rather than reaching into its neighbour.
        let field_width = (rect.width() - 250.0).clamp(60.0, 180.0);
        egui::Area::new(egui::Id::unique("tern-search"))
            .pivot(egui::Align2::RIGHT_TOP)
            .fixed_pos(rect.right_top() + egui::vec2(-4.0, 4.0))
            .constrain_to(rect)
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    ui.horizontal(|ui| {
                        let edit = ui.add(
                            egui::TextEdit::singleline(&mut self.text)
                                .hint_text("search")
                                .desired_width(field_width),
                        );
                        if self.focus_pending {
                            edit.request_focus();
                            self.focus_pending = false;
                        }
                        let case = ui
                            .toggle_value(&mut self.case_sensitive, "Aa")
                            .on_hover_text("match case");
                        let regex = ui
                            .toggle_value(&mut self.regex, ".*")
                            .on_hover_text("regular expression");
                        let enter =
                            edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                        let shift = ui.input(|i| i.modifiers.shift);
                        if edit.changed() && !enter {
                            self.results = None;
                        }
                        if enter || case.changed() || regex.changed() {
                            let fresh = self.results.is_none()
                                || case.changed()
                                || regex.changed()
                                || edit.changed();
                            if fresh || !enter {
                                self.run(pipeline, pane);
                            } else {
                                action = self.step(!shift);
                            }
                            edit.request_focus();
                        }
                        if ui
                            .button("↑")
                            .on_hover_text("previous (Shift+Enter)")
                            .clicked()
                        {
                            action = self.step(false);
                        }
                        if ui.button("↓").on_hover_text("next (Enter)").clicked() {
                            action = self.step(true);
                        }
                        if let Some((done, total)) = self.progress() {
                            let pct = (done * 100).checked_div(total).unwrap_or(0);
                            ui.label(format!("searching… {pct}%"));
                            if ui.button("Cancel").clicked() {
                                self.cancel();
                            }
                        }
                        match (&self.error, &self.results) {
                            (Some(e), _) => {
                                ui.colored_label(
                                    theme.chrome.error,
                                    e.lines().last().unwrap_or("bad pattern"),
                                );
                            }
                            (None, Some(r)) if r.matches.is_empty() => {
                                ui.label("no matches");
                            }
                            (None, Some(r)) => {
                                ui.label(format!("{}/{}", self.current + 1, r.matches.len()));
                            }
                            _ => {}
                        }
                        if ui
                            .button("all panes")
                            .on_hover_text("search everywhere (Ctrl+Shift+Alt+F)")
                            .clicked()
                        {
                            action = SearchAction::Everywhere;
                        }
                        if ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                            action = SearchAction::Close;
                        }
                    });
                });
            });
        action
    }
}
