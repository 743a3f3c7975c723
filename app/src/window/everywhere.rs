//! Search everywhere (Ctrl+Shift+Alt+F, the palette, or the scope button of the search
//! bar): one query over every pane's history and screen, answered on the model thread
//! pane by pane (`tern_core::pipeline::search_all`), the results grouped by worktree and
//! tab as they stream in. Typing searches again (the running search is dropped);
//! Enter shows the selected match in its pane (revealed, scrolled to it, highlighted)
//! and then `n` / `N` walk the matches across panes; Escape goes back where you were.
//! The overlay owns the keyboard: no key reaches a pane while it is open.

use tern_core::pipeline::PaneId;
use tern_core::pipeline::search_all::{PaneEnd, PaneFound, PanesQuery, PanesSearch};
use tern_core::workspace::search::SearchTarget;

use super::theme::Theme;

/// Lines of context shown around each matching line.
const CONTEXT_LINES: usize = 1;

/// One match the person can go to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    pub pane: PaneId,
    pub line: u64,
    pub cols: Vec<std::ops::Range<usize>>,
}

/// What the overlay asks of the app after a frame.
#[derive(Debug, PartialEq, Eq)]
pub enum EverywhereOut {
    None,
    /// The query changed: search these panes again ([`Everywhere::start`]).
    Search,
    /// Reveal the pane and show the match.
    Reveal(Shown),
    /// Close; with `back`, focus the pane the person was in before.
    Close {
        back: bool,
    },
}

pub struct Everywhere {
    pub text: String,
    pub regex: bool,
    search: Option<PanesSearch>,
    targets: Vec<SearchTarget>,
    /// Each pane's answer, in the sidebar's order (an index into `targets`).
    found: Vec<(usize, PaneFound)>,
    /// Every match in that order: (index into `found`, index into its hits).
    flat: Vec<(usize, usize)>,
    pub selected: usize,
    error: Option<String>,
    /// The pane the person was in when the overlay opened.
    pub return_to: Option<PaneId>,
    ui: UiState,
}

/// Where the overlay's keys and focus are, and what it has told already.
#[derive(Default)]
struct UiState {
    /// Enter was pressed: keys walk the matches (the field is not focused).
    walking: bool,
    focus_field: bool,
    scroll_to_selected: bool,
    finished_told: bool,
}

impl Everywhere {
    pub fn new(text: String, regex: bool, return_to: Option<PaneId>) -> Everywhere {
        Everywhere {
            text,
            regex,
            search: None,
            targets: Vec::new(),
            found: Vec::new(),
            flat: Vec::new(),
            selected: 0,
            error: None,
            return_to,
            ui: UiState {
                focus_field: true,
                ..UiState::default()
            },
        }
    }

    /// True once when the running search has finished (for the trace).
    pub fn take_finished(&mut self) -> bool {
        if self.finished() && !self.ui.finished_told {
            self.ui.finished_told = true;
            return true;
        }
        false
    }

    /// Starts a search of `targets` for the query (the running one is dropped, so
    /// cancelled); an empty query clears the results, a bad one shows its error.
    pub fn start(&mut self, pipeline: &tern_core::pipeline::Pipeline, targets: Vec<SearchTarget>) {
        self.search = None;
        self.ui.finished_told = false;
        self.found.clear();
        self.flat.clear();
        self.selected = 0;
        self.error = None;
        if self.text.is_empty() {
            return;
        }
        let query = PanesQuery {
            context_lines: CONTEXT_LINES,
            ..PanesQuery::new(&self.text, self.regex)
        };
        let panes: Vec<PaneId> = targets.iter().map(|t| t.pane).collect();
        self.targets = targets;
        match pipeline.start_search_panes(&panes, &query) {
            Ok(s) => self.search = Some(s),
            Err(e) => self.error = Some(e.to_string()),
        }
    }

    /// The panes that answered since the last frame, kept in the sidebar's order;
    /// returns them (for the trace).
    pub fn poll(&mut self) -> Vec<(PaneId, usize)> {
        let Some(s) = &self.search else {
            return Vec::new();
        };
        let came = s.poll();
        let news = came.iter().map(|f| (f.pane, f.hits.len())).collect();
        for f in came {
            let Some(t) = self.targets.iter().position(|t| t.pane == f.pane) else {
                continue;
            };
            let at = self.found.partition_point(|(i, _)| *i < t);
            self.found.insert(at, (t, f));
        }
        self.flat = self
            .found
            .iter()
            .enumerate()
            .flat_map(|(fi, (_, f))| (0..f.hits.len()).map(move |hi| (fi, hi)))
            .collect();
        news
    }

    /// Every pane answered (or the search stopped at its limit).
    pub fn finished(&self) -> bool {
        self.search.as_ref().is_some_and(PanesSearch::is_finished)
    }

    /// Matching lines found, and panes with one.
    pub fn counts(&self) -> (usize, usize) {
        let panes = self
            .found
            .iter()
            .filter(|(_, f)| !f.hits.is_empty())
            .count();
        (self.flat.len(), panes)
    }

    /// The panes with a match, and how many, in the sidebar's order.
    pub fn per_pane(&self) -> impl Iterator<Item = (PaneId, usize)> + '_ {
        self.found
            .iter()
            .filter(|(_, f)| !f.hits.is_empty())
            .map(|(_, f)| (f.pane, f.hits.len()))
    }

    fn shown(&self, at: usize) -> Option<Shown> {
        let (fi, hi) = *self.flat.get(at)?;
        let (_, f) = self.found.get(fi)?;
        let hit = f.hits.get(hi)?;
        Some(Shown {
            pane: f.pane,
            line: hit.line,
            cols: hit.cols.clone(),
        })
    }

    fn step(&mut self, forward: bool) -> EverywhereOut {
        let n = self.flat.len();
        if n == 0 {
            return EverywhereOut::None;
        }
        self.selected = if forward {
            (self.selected + 1) % n
        } else {
            (self.selected + n - 1) % n
        };
        self.ui.scroll_to_selected = true;
        self.shown(self.selected)
            .map_or(EverywhereOut::None, EverywhereOut::Reveal)
    }

    /// The keys of the walking mode: `n` / Down next, `N` / Up previous, Enter stays at
    /// the match and closes, `/` starts a new query.
    fn walk_keys(&mut self, ctx: &egui::Context) -> EverywhereOut {
        let (next, prev, enter, edit) = ctx.input_mut(|i| {
            let shift_n = i.consume_key(egui::Modifiers::SHIFT, egui::Key::N);
            (
                i.consume_key(egui::Modifiers::NONE, egui::Key::N)
                    || i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowDown),
                shift_n || i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowUp),
                i.consume_key(egui::Modifiers::NONE, egui::Key::Enter),
                i.consume_key(egui::Modifiers::NONE, egui::Key::Slash),
            )
        });
        if edit {
            // A new query; the `/` itself is no part of it.
            self.ui.walking = false;
            self.ui.focus_field = true;
            self.text.clear();
            ctx.input_mut(|i| {
                if let Some(at) = i
                    .events
                    .iter()
                    .position(|e| matches!(e, egui::Event::Text(t) if t == "/"))
                {
                    i.events.remove(at);
                }
            });
            return EverywhereOut::Search;
        }
        if enter {
            return EverywhereOut::Close { back: false };
        }
        if next || prev {
            return self.step(next);
        }
        EverywhereOut::None
    }

    /// Text typed in the frame that asks the field for focus (it has it only from the
    /// next frame on): added to the query, so no key typed right after the chord or
    /// `/` is lost. Returns whether there was any.
    fn take_typed_ahead(&mut self, ctx: &egui::Context) -> bool {
        let typed = ctx.input_mut(|i| {
            let mut typed = String::new();
            i.events.retain(|e| match e {
                egui::Event::Text(t) => {
                    typed.push_str(t);
                    false
                }
                _ => true,
            });
            typed
        });
        self.text.push_str(&typed);
        !typed.is_empty()
    }

    /// Draws the overlay at the top right of the window.
    #[must_use = "what the overlay asks for happens only when applied"]
    pub fn ui(&mut self, ctx: &egui::Context, theme: &Theme) -> EverywhereOut {
        if ctx.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Escape)) {
            return EverywhereOut::Close { back: true };
        }
        let mut out = if self.ui.walking {
            self.walk_keys(ctx)
        } else {
            EverywhereOut::None
        };
        if self.ui.focus_field && self.take_typed_ahead(ctx) {
            out = EverywhereOut::Search;
        }
        let screen = ctx.content_rect();
        egui::Window::new("Search everywhere")
            .id(egui::Id::unique("tern-search-everywhere"))
            .anchor(egui::Align2::RIGHT_TOP, egui::vec2(-8.0, 8.0))
            .collapsible(false)
            .resizable(false)
            .default_width((screen.width() * 0.55).min(720.0))
            .show(ctx, |ui| {
                ui.set_max_height(screen.height() * 0.7);
                self.query_row(ui, theme, &mut out);
                ui.separator();
                self.results(ui, &mut out);
                ui.separator();
                ui.weak(if self.ui.walking {
                    "n / ↓ next · N / ↑ previous · Enter stay here · / new query · Esc back"
                } else {
                    "Enter show · ↓ ↑ choose · Esc back"
                });
            });
        out
    }

    fn query_row(&mut self, ui: &mut egui::Ui, theme: &Theme, out: &mut EverywhereOut) {
        ui.horizontal(|ui| {
            let edit = ui.add(
                egui::TextEdit::singleline(&mut self.text)
                    .hint_text("search every pane")
                    .desired_width(260.0),
            );
            if std::mem::take(&mut self.ui.focus_field) {
                edit.request_focus();
            }
            let regex = ui
                .toggle_value(&mut self.regex, ".*")
                .on_hover_text("regular expression (a query with no capital ignores case)");
            if edit.changed() || regex.changed() {
                *out = EverywhereOut::Search;
                self.ui.walking = false;
            }
            if edit.has_focus() {
                let (down, up) = ui.input_mut(|i| {
                    (
                        i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowDown),
                        i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowUp),
                    )
                });
                if (down || up) && !self.flat.is_empty() {
                    let n = self.flat.len();
                    self.selected = if down {
                        (self.selected + 1) % n
                    } else {
                        (self.selected + n - 1) % n
                    };
                    self.ui.scroll_to_selected = true;
                }
            }
            let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if enter && let Some(shown) = self.shown(self.selected) {
                self.ui.walking = true;
                *out = EverywhereOut::Reveal(shown);
            } else if enter {
                edit.request_focus();
            }
            let (matches, panes) = self.counts();
            let status = match (&self.error, &self.search) {
                (Some(e), _) => {
                    ui.colored_label(theme.chrome.error, e);
                    return;
                }
                (None, None) => String::new(),
                (None, Some(s)) => {
                    let (done, all) = s.progress();
                    let mut text = format!("{matches} in {panes} panes");
                    if !s.is_finished() {
                        text.push_str(&format!(" · searching {done}/{all}"));
                    }
                    if let Some(n) = s.stopped_after() {
                        text = format!("stopped after {n} matches · {text}");
                    }
                    text
                }
            };
            ui.label(status);
        });
    }

    fn results(&mut self, ui: &mut egui::Ui, out: &mut EverywhereOut) {
        let mono = egui::TextStyle::Monospace;
        let mut clicked = None;
        egui::ScrollArea::vertical()
            .auto_shrink([false, true])
            .max_height(ui.available_height().max(200.0))
            .show(ui, |ui| {
                let mut last_group: Option<(usize, usize)> = None;
                let mut at = 0usize;
                for (fi, (ti, f)) in self.found.iter().enumerate() {
                    let Some(t) = self.targets.get(*ti) else {
                        continue;
                    };
                    if f.hits.is_empty() && f.end != PaneEnd::Closed && !t.remote {
                        continue;
                    }
                    if last_group != Some((t.group, t.tab)) {
                        ui.add_space(4.0);
                        ui.strong(format!("{} › tab {} · {}", t.worktree, t.tab + 1, t.title));
                        last_group = Some((t.group, t.tab));
                    }
                    let n = f.hits.len();
                    let mut about = format!(
                        "pane {} · {n} match{}",
                        t.pane.0,
                        if n == 1 { "" } else { "es" }
                    );
                    if f.end == PaneEnd::Closed {
                        about.push_str(" · closed");
                    }
                    if t.remote {
                        about.push_str(" · remote: the history held here");
                    }
                    ui.weak(about);
                    for (hi, hit) in f.hits.iter().enumerate() {
                        debug_assert_eq!(self.flat.get(at), Some(&(fi, hi)));
                        let selected = at == self.selected;
                        for c in &hit.before {
                            ui.label(
                                egui::RichText::new(format!("{:>8}  {c}", ""))
                                    .text_style(mono.clone())
                                    .weak(),
                            );
                        }
                        let row = ui.selectable_label(
                            selected,
                            egui::RichText::new(format!("{:>8}  {}", hit.line, hit.text))
                                .text_style(mono.clone()),
                        );
                        for c in &hit.after {
                            ui.label(
                                egui::RichText::new(format!("{:>8}  {c}", ""))
                                    .text_style(mono.clone())
                                    .weak(),
                            );
                        }
                        if selected && self.ui.scroll_to_selected {
                            row.scroll_to_me(Some(egui::Align::Center));
                        }
                        if row.clicked() {
                            clicked = Some(at);
                        }
                        at += 1;
                    }
                }
                if self.search.is_some() && self.finished() && self.flat.is_empty() {
                    ui.label("no matches");
                }
            });
        self.ui.scroll_to_selected = false;
        if let Some(at) = clicked
            && let Some(shown) = self.shown(at)
        {
            self.selected = at;
            self.ui.walking = true;
            *out = EverywhereOut::Reveal(shown);
        }
    }
}
