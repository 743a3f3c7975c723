//! Pickers over a fuzzy list: the command palette (Ctrl+Shift+P) and the quick switcher
//! (Ctrl+Shift+O) that jumps to any pane of any worktree. One struct draws both; the
//! caller supplies the entries and acts on the choice.

use tern_core::workspace::fuzzy_rank;

/// One entry: what is matched and shown, a hint on the right (a key, a path) and
/// colour swatches before it (a theme's background and ANSI colours 1-6; usually none).
#[derive(Clone, Debug, PartialEq)]
pub struct Entry<T> {
    pub text: String,
    pub hint: String,
    pub swatches: Vec<egui::Color32>,
    pub value: T,
}

/// Draws `colours` as small squares side by side, the first (a background) with a
/// frame so a dark one shows on a dark popup.
fn swatches(ui: &mut egui::Ui, colours: &[egui::Color32]) {
    if colours.is_empty() {
        return;
    }
    let side = ui.text_style_height(&egui::TextStyle::Body) * 0.8;
    let (rect, _) = ui.allocate_exact_size(
        egui::vec2(side * colours.len() as f32, side),
        egui::Sense::hover(),
    );
    let painter = ui.painter();
    for (i, c) in colours.iter().enumerate() {
        let r = egui::Rect::from_min_size(
            rect.min + egui::vec2(side * i as f32, 0.0),
            egui::vec2(side, side),
        );
        painter.rect_filled(r, 0.0, *c);
    }
    painter.rect_stroke(
        rect,
        0.0,
        ui.visuals().widgets.noninteractive.bg_stroke,
        egui::StrokeKind::Outside,
    );
}

/// What the picker did this frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Picked<T> {
    None,
    Chosen(T),
    Cancelled,
}

pub struct Picker<T> {
    /// Shown as the window's heading and the accessibility label of its field.
    pub title: &'static str,
    pub query: String,
    entries: Vec<Entry<T>>,
    /// Indices into `entries`, best match first.
    ranked: Vec<usize>,
    ranked_for: Option<String>,
    pub selected: usize,
    /// The entry that stands for what is in use now (the palette's current theme):
    /// chosen first when a query shows it among the rows drawn.
    current: Option<usize>,
}

/// The rows a picker draws.
const ROWS: usize = 12;

impl<T: Clone> Picker<T> {
    pub fn new(title: &'static str, entries: Vec<Entry<T>>) -> Picker<T> {
        Picker {
            title,
            query: String::new(),
            entries,
            ranked: Vec::new(),
            ranked_for: None,
            selected: 0,
            current: None,
        }
    }

    /// Marks `entries[index]` as the one in use now.
    pub fn with_current(mut self, index: Option<usize>) -> Picker<T> {
        self.current = index;
        self
    }

    /// The entries that match the query, best first.
    pub fn matches(&mut self) -> Vec<&Entry<T>> {
        if self.ranked_for.as_deref() != Some(self.query.as_str()) {
            let texts: Vec<String> = self
                .entries
                .iter()
                .map(|e| format!("{} {}", e.text, e.hint))
                .collect();
            self.ranked = fuzzy_rank(&self.query, &texts);
            self.ranked_for = Some(self.query.clone());
            self.selected = self
                .current
                .filter(|_| !self.query.is_empty())
                .and_then(|c| self.ranked.iter().take(ROWS).position(|&i| i == c))
                .unwrap_or(0);
        }
        self.ranked.iter().map(|&i| &self.entries[i]).collect()
    }

    pub fn ui(&mut self, ctx: &egui::Context) -> Picked<T> {
        let mut picked = Picked::None;
        let (up, down, enter, escape) = ctx.input_mut(|i| {
            (
                i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowUp),
                i.consume_key(egui::Modifiers::NONE, egui::Key::ArrowDown),
                i.consume_key(egui::Modifiers::NONE, egui::Key::Enter),
                i.consume_key(egui::Modifiers::NONE, egui::Key::Escape),
            )
        });
        let title = self.title;
        let count = self.matches().len();
        if down && count > 0 {
            self.selected = (self.selected + 1) % count;
        }
        if up && count > 0 {
            self.selected = (self.selected + count - 1) % count;
        }
        if escape {
            return Picked::Cancelled;
        }
        if enter {
            let selected = self.selected;
            return match self.matches().get(selected) {
                Some(e) => Picked::Chosen(e.value.clone()),
                None => Picked::Cancelled,
            };
        }
        let width = (ctx.content_rect().width() * 0.6).clamp(320.0, 720.0);
        egui::Area::new(egui::Id::unique(("tern-picker", title)))
            .order(egui::Order::Foreground)
            .anchor(egui::Align2::CENTER_TOP, egui::vec2(0.0, 48.0))
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    ui.set_width(width);
                    ui.label(egui::RichText::new(title).strong());
                    let field = egui::TextEdit::singleline(&mut self.query)
                        .desired_width(f32::INFINITY)
                        .hint_text("type to filter");
                    let response = ui.add(field);
                    response.request_focus();
                    let selected = self.selected;
                    let rows: Vec<(String, String, Vec<egui::Color32>, T)> = self
                        .matches()
                        .into_iter()
                        .take(ROWS)
                        .map(|e| {
                            (
                                e.text.clone(),
                                e.hint.clone(),
                                e.swatches.clone(),
                                e.value.clone(),
                            )
                        })
                        .collect();
                    if rows.is_empty() {
                        ui.weak("no match");
                    }
                    for (i, (text, hint, colours, value)) in rows.into_iter().enumerate() {
                        if i == selected {
                            crate::window::trace::note_if_changed("picker_selected", title, || {
                                let row = serde_json::json!({ "text": text, "hint": hint });
                                format!("\"row\":{row}")
                            });
                        }
                        let row = ui.horizontal(|ui| {
                            let r = ui.selectable_label(i == selected, text);
                            ui.with_layout(
                                egui::Layout::right_to_left(egui::Align::Center),
                                |ui| {
                                    ui.weak(hint);
                                    swatches(ui, &colours);
                                },
                            );
                            r
                        });
                        if row.inner.clicked() {
                            picked = Picked::Chosen(value);
                        }
                    }
                });
            });
        picked
    }
}
