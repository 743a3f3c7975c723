//! Pickers and dialogs over the panes: the command palette, the pane switcher,
//! renaming a tab, confirming a close or a program's clipboard access.

use tern_core::pipeline::PaneId;
use tern_core::workspace::TabId;

use super::TernApp;

/// A picker or dialog over the panes.
pub(super) enum Overlay {
    Palette(Picker<Command>),
    Switcher(Picker<PaneId>),
    Rename {
        tab: TabId,
        text: String,
    },
    /// Close a pane where a program other than the shell runs?
    ConfirmClose {
        pane: PaneId,
        program: String,
    },
    /// A program asked to set (write) or read the clipboard and the policy is "ask".
    Clipboard {
        pane: PaneId,
        write: Option<String>,
    },
    /// Search everywhere (`everywhere.rs`).
    Everywhere(Box<Everywhere>),
}
use crate::window::action::Action;
use crate::window::commands::{COMMANDS, Command};
use crate::window::dialogs;
use crate::window::everywhere::{Everywhere, EverywhereOut, Shown};
use crate::window::palette::{Entry, Picked, Picker};
use tern_core::workspace::search::SearchScope;

impl TernApp {
    pub(super) fn open_palette(&mut self) {
        // The theme in use: its entry says so, and is the one chosen when a query
        // shows it (not "Theme: Dark" while Dracula is on).
        let in_use = current_theme(&self.settings.config.theme.name);
        let entries: Vec<Entry<Command>> = COMMANDS
            .iter()
            .map(|c| Entry {
                text: c.title.to_owned(),
                hint: self
                    .keys
                    .map
                    .chord_of(c.command)
                    .map(|k| k.label())
                    .unwrap_or_default(),
                swatches: Vec::new(),
                value: c.command,
            })
            .chain(
                tern_core::config::themes::built_in_names()
                    .enumerate()
                    .map(|(i, name)| Entry {
                        text: format!("Theme: {name}"),
                        hint: if Some(i) == in_use {
                            format!("in use · {}", theme_hint(name))
                        } else {
                            theme_hint(name)
                        },
                        swatches: theme_swatches(name),
                        value: Command::Theme(i as u8),
                    }),
            )
            .collect();
        let current = in_use.map(|i| COMMANDS.len() + i);
        self.chrome.overlay = Some(Overlay::Palette(
            Picker::new("Command palette", entries).with_current(current),
        ));
    }

    pub(super) fn open_switcher(&mut self) {
        let entries = self.switcher_entries();
        self.chrome.overlay = Some(Overlay::Switcher(Picker::new("Go to pane", entries)));
    }

    /// The open picker or dialog, if any; what the user chose comes back as actions.
    #[must_use = "what the panel asks for happens only when applied"]
    pub(super) fn overlay_ui(&mut self, ctx: &egui::Context) -> Vec<Action> {
        let Some(overlay) = self.chrome.overlay.take() else {
            return Vec::new();
        };
        let (keep, action) = match overlay {
            Overlay::Palette(mut picker) => match picker.ui(ctx) {
                Picked::None => (Some(Overlay::Palette(picker)), None),
                Picked::Cancelled => (None, None),
                Picked::Chosen(c) => (None, Some(Action::Run(c))),
            },
            Overlay::Switcher(mut picker) => match picker.ui(ctx) {
                Picked::None => (Some(Overlay::Switcher(picker)), None),
                Picked::Cancelled => (None, None),
                Picked::Chosen(pane) => (None, Some(Action::FocusPane(pane))),
            },
            Overlay::Rename { tab, mut text } => match dialogs::rename_dialog(ctx, &mut text) {
                None => (Some(Overlay::Rename { tab, text }), None),
                Some(false) => (None, None),
                Some(true) => {
                    let name = text.trim();
                    let name = (!name.is_empty()).then(|| name.to_owned());
                    (None, Some(Action::RenameTab { tab, name }))
                }
            },
            Overlay::Clipboard { pane, write } => {
                let name = self.core.pane_title(pane);
                let question = match &write {
                    Some(text) => format!(
                        "{name} wants to set the clipboard to {} characters:\n{}",
                        text.chars().count(),
                        text.chars().take(200).collect::<String>()
                    ),
                    None => format!("{name} wants to read the clipboard."),
                };
                match dialogs::confirm_dialog(ctx, "Clipboard", &question, "Allow") {
                    None => (Some(Overlay::Clipboard { pane, write }), None),
                    Some(false) => (None, None),
                    Some(true) => match write {
                        Some(text) => (None, Some(Action::CopyText(text))),
                        None => (None, Some(Action::AnswerClipboardRead(pane))),
                    },
                }
            }
            Overlay::Everywhere(mut e) => {
                let out = self.everywhere_frame(ctx, &mut e);
                match out {
                    EverywhereOut::Close { back } => (
                        None,
                        Some(Action::EndFound {
                            back: if back { e.return_to } else { None },
                        }),
                    ),
                    EverywhereOut::Reveal(shown) => {
                        (Some(Overlay::Everywhere(e)), Some(Action::ShowFound(shown)))
                    }
                    EverywhereOut::CopyClosed { pane, text } => {
                        self.frames
                            .trace
                            .event("found_copied", &format!("\"pane\":{}", pane.0));
                        (Some(Overlay::Everywhere(e)), Some(Action::CopyText(text)))
                    }
                    EverywhereOut::None | EverywhereOut::Search => {
                        (Some(Overlay::Everywhere(e)), None)
                    }
                }
            }
            Overlay::ConfirmClose { pane, program } => {
                match dialogs::confirm_close_dialog(ctx, &program) {
                    None => (Some(Overlay::ConfirmClose { pane, program }), None),
                    Some(false) => (None, None),
                    Some(true) => (None, Some(Action::ClosePane(pane))),
                }
            }
        };
        self.chrome.overlay = keep;
        action.into_iter().collect()
    }
}

impl TernApp {
    /// Opens search everywhere with `text` (searched at once when not empty).
    pub(super) fn open_everywhere(&mut self, text: String, regex: bool) {
        let back = self.core.ws().focused_pane();
        let mut e = Everywhere::new(text, regex, back);
        if !e.text.is_empty() {
            self.search_everywhere(&mut e);
        }
        self.chrome.overlay = Some(Overlay::Everywhere(Box::new(e)));
    }

    /// Starts `e`'s query over every pane, named as the sidebar names them.
    fn search_everywhere(&self, e: &mut Everywhere) {
        let sidebar = &self.chrome.sidebar;
        let targets = self
            .core
            .search_targets(&SearchScope::Everywhere, |path| {
                sidebar
                    .worktree_at(path)
                    .map(|w| (w.name(), w.branch.clone()))
            })
            .unwrap_or_default();
        e.start(self.core.pipeline(), targets);
    }

    /// One frame of search everywhere: the panes' answers so far, the overlay, a new
    /// search when the query changed.
    fn everywhere_frame(&mut self, ctx: &egui::Context, e: &mut Everywhere) -> EverywhereOut {
        for (pane, hits, closed) in e.poll() {
            self.frames.trace.event(
                "everywhere_pane",
                &format!("\"pane\":{},\"hits\":{hits},\"closed\":{closed}", pane.0),
            );
        }
        if e.take_finished() && self.frames.trace.enabled() {
            let (matches, _) = e.counts();
            let hits: serde_json::Map<String, serde_json::Value> = e
                .per_pane()
                .map(|(pane, closed, n)| {
                    let key = if closed {
                        format!("closed-{}", pane.0)
                    } else {
                        pane.0.to_string()
                    };
                    (key, n.into())
                })
                .collect();
            let query = serde_json::Value::from(e.text.as_str());
            self.frames.trace.event(
                "everywhere_done",
                &format!(
                    "\"query\":{query},\"matches\":{matches},\"hits\":{}",
                    serde_json::Value::Object(hits)
                ),
            );
        }
        let out = e.ui(ctx, &self.look.theme);
        if out == EverywhereOut::Search {
            self.search_everywhere(e);
        }
        out
    }

    /// Shows the match in its pane (which `Action::ShowFound` reveals: its worktree
    /// and tab too); another pane's highlight goes.
    pub(super) fn show_found(&mut self, shown: Shown) {
        for (id, p) in self.panes.ui.iter_mut() {
            if *id == shown.pane {
                p.show_found(shown.line, shown.cols.clone());
            } else {
                p.clear_found();
            }
        }
    }

    /// Search everywhere closed: highlights go; `back` (which `Action::EndFound`
    /// focuses again) scrolls back to its bottom.
    pub(super) fn end_found(&mut self, back: Option<PaneId>) {
        for p in self.panes.ui.values_mut() {
            p.clear_found();
        }
        if let Some(p) = back.and_then(|pane| self.panes.ui.get_mut(&pane)) {
            p.scroll_to_bottom();
        }
    }
}

/// Which built-in theme (its index among `built_in_names`) `name` is, if one.
fn current_theme(name: &tern_core::config::ThemeName) -> Option<usize> {
    use tern_core::config::{BaseTheme, ThemeName, themes};
    themes::built_in_names().position(|built_in| match name {
        ThemeName::Base(BaseTheme::Dark) => built_in == "Dark",
        ThemeName::Base(BaseTheme::Light) => built_in == "Light",
        ThemeName::Named(n) => {
            !matches!(built_in, "Dark" | "Light")
                && themes::find(n, None).ok() == themes::find(built_in, None).ok()
        }
    })
}

/// A theme's look in words for its palette entry: dark or light, and its background.
/// A theme's colours for its palette entry: background, then ANSI red, green, yellow,
/// blue, magenta, cyan and the foreground.
pub(crate) fn theme_swatches(name: &str) -> Vec<egui::Color32> {
    let theme = tern_core::config::ThemeConfig {
        name: match name {
            "Dark" => tern_core::config::ThemeName::DARK,
            "Light" => tern_core::config::ThemeName::LIGHT,
            other => tern_core::config::ThemeName::Named(other.to_owned()),
        },
        ..Default::default()
    };
    let d = theme.palette_defaults();
    let rgb = |c: tern_core::model::Rgb| egui::Color32::from_rgb(c.r, c.g, c.b);
    std::iter::once(d.background)
        .chain(d.ansi[1..7].iter().copied())
        .chain(std::iter::once(d.foreground))
        .map(rgb)
        .collect()
}

fn theme_hint(name: &str) -> String {
    match tern_core::config::themes::find(name, None) {
        Ok(s) => format!(
            "{} #{:02x}{:02x}{:02x}",
            if s.is_dark() { "dark" } else { "light" },
            s.background.r,
            s.background.g,
            s.background.b
        ),
        Err(_) if name == "Light" => "light".into(),
        Err(_) => "dark".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Catches a palette entry without the theme's colours, or with another theme's:
    /// Dracula's row shows its background #282a36, red #ff5555 and foreground.
    #[test]
    fn theme_entries_carry_their_colours() {
        let dracula = theme_swatches("Dracula");
        assert_eq!(dracula.len(), 8);
        assert_eq!(dracula[0], egui::Color32::from_rgb(0x28, 0x2a, 0x36));
        assert_eq!(dracula[1], egui::Color32::from_rgb(0xff, 0x55, 0x55));
        assert_eq!(dracula[7], egui::Color32::from_rgb(0xf8, 0xf8, 0xf2));
        assert_ne!(theme_swatches("Light")[0], theme_swatches("Dark")[0]);
    }
}
