//! Search everywhere (Ctrl+Shift+Alt+F, the palette, or the scope button of the search
//! bar): one query over every pane's history and screen, answered off the window's thread
//! pane by pane (`tern_core::pipeline::search_all`), the results grouped by worktree and
//! tab as they stream in. Typing searches again (the running search is dropped);
//! Enter shows the selected match in its pane (revealed, scrolled to it, highlighted)
//! and then `n` / `N` walk the matches across panes; Escape goes back where you were.
//! The overlay owns the keyboard: no key reaches a pane while it is open.
//!
//! Panes closed during this session are searched too, in the history kept of them until
//! tern exits (`tern_core::pipeline::closed`), listed last in a group of their own. There
//! is no pane to reveal: Enter or a click on one of their lines copies the line to the
//! clipboard and says so (`n` / `N` select them without revealing anything).

use tern_core::pipeline::PaneId;
use tern_core::pipeline::search_all::{PaneEnd, PaneFound, PanesQuery, PanesSearch};
use tern_core::workspace::search::{SearchTarget, split_targets};

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
    /// A closed pane's line was chosen: copy it to the clipboard.
    CopyClosed {
        pane: PaneId,
        text: String,
    },
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
    /// What the last choice of a closed pane's line did.
    note: Option<String>,
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
            note: None,
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
        self.note = None;
        if self.text.is_empty() {
            return;
        }
        let query = PanesQuery {
            context_lines: CONTEXT_LINES,
            ..PanesQuery::new(&self.text, self.regex)
        };
        let (panes, closed) = split_targets(&targets);
        self.targets = targets;
        match pipeline.start_search_everywhere(&panes, &closed, &query) {
            Ok(s) => self.search = Some(s),
            Err(e) => self.error = Some(e.to_string()),
        }
    }

    /// The panes that answered since the last frame, kept in the sidebar's order (the
    /// closed ones last); returns them (for the trace): pane, matches, closed.
    pub fn poll(&mut self) -> Vec<(PaneId, usize, bool)> {
        let Some(s) = &self.search else {
            return Vec::new();
        };
        let came = s.poll();
        let news = came
            .iter()
            .map(|f| (f.pane, f.hits.len(), f.closed))
            .collect();
        for f in came {
            let Some(t) = self
                .targets
                .iter()
                .position(|t| t.pane == f.pane && t.closed == f.closed)
            else {
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

    /// The panes with a match, whether each is closed, and how many, in the sidebar's
    /// order.
    pub fn per_pane(&self) -> impl Iterator<Item = (PaneId, bool, usize)> + '_ {
        self.found
            .iter()
            .filter(|(_, f)| !f.hits.is_empty())
            .map(|(_, f)| (f.pane, f.closed, f.hits.len()))
    }

    fn shown(&self, at: usize) -> Option<Shown> {
        let (fi, hi) = *self.flat.get(at)?;
        let (_, f) = self.found.get(fi)?;
        let hit = f.hits.get(hi)?;
        (!f.closed).then(|| Shown {
            pane: f.pane,
            line: hit.line,
            cols: hit.cols.clone(),
        })
    }

    /// What choosing match `at` does: an open pane's is revealed; a closed pane's line
    /// is copied (there is no pane to show), and the overlay says so.
    fn choose(&mut self, at: usize) -> EverywhereOut {
        if let Some(shown) = self.shown(at) {
            self.ui.walking = true;
            return EverywhereOut::Reveal(shown);
        }
        let Some((fi, hi)) = self.flat.get(at).copied() else {
            return EverywhereOut::None;
        };
        let Some((f, hit)) = self
            .found
            .get(fi)
            .and_then(|(_, f)| Some((f, f.hits.get(hi)?)))
        else {
            return EverywhereOut::None;
        };
        self.note = Some(format!(
            "pane {} was closed: its line {} is copied",
            f.pane.0, hit.line
        ));
        EverywhereOut::CopyClosed {
            pane: f.pane,
            text: hit.text.clone(),
        }
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
            if enter {
                *out = self.choose(self.selected);
                if !self.ui.walking {
                    // Nothing to reveal: the field keeps the keyboard.
                    edit.request_focus();
                }
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
                    if let Some(note) = &self.note {
                        text = format!("{note} · {text}");
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
                let mut last_group: Option<(usize, usize, bool)> = None;
                let mut at = 0usize;
                for (fi, (ti, f)) in self.found.iter().enumerate() {
                    let Some(t) = self.targets.get(*ti) else {
                        continue;
                    };
                    if f.hits.is_empty() && f.end != PaneEnd::Closed && !t.remote {
                        continue;
                    }
                    if f.closed && f.hits.is_empty() {
                        continue;
                    }
                    if f.closed && !last_group.is_some_and(|g| g.2) {
                        // Closed panes: one group of their own, last.
                        ui.add_space(4.0);
                        ui.strong("closed · history kept until tern exits");
                        last_group = Some((t.group, t.tab, true));
                    } else if !f.closed && last_group != Some((t.group, t.tab, false)) {
                        ui.add_space(4.0);
                        ui.strong(format!("{} › tab {} · {}", t.worktree, t.tab + 1, t.title));
                        last_group = Some((t.group, t.tab, false));
                    }
                    let n = f.hits.len();
                    let mut about = format!(
                        "pane {} · {n} match{}",
                        t.pane.0,
                        if n == 1 { "" } else { "es" }
                    );
                    if f.closed {
                        about = format!(
                            "{about} · was in {} › tab {} · {} · Enter copies the line",
                            t.worktree,
                            t.tab + 1,
                            t.title
                        );
                    } else if f.end == PaneEnd::Closed {
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
        if let Some(at) = clicked {
            self.selected = at;
            *out = self.choose(at);
        }
    }
}
