//! The settings in force: applied at start and again whenever the config file changes.

use tern_core::desktop_appearance::{Appearance, AppearanceWatcher};

use super::TernApp;
use crate::window::commands::KeyMap;
use crate::window::settings::ConfigChange;

impl TernApp {
    /// Applies the settings in force (at start, `old` is `None`; on reload, the
    /// previous ones, so only what changed is redone: a reload does not undo zoom).
    pub(super) fn apply_config(
        &mut self,
        ctx: &egui::Context,
        old: Option<&tern_core::config::Config>,
    ) {
        let new = self.settings.config.clone();
        // New panes and the exit policy follow the new settings.
        self.core.set_config(new.clone());
        let mut problems: Vec<String> = Vec::new();
        if old.is_none_or(|o| !same_faces(&o.font, &new.font))
            && let Err(e) = crate::window::glyphs::fonts::install_fonts_with(ctx, &new.font)
        {
            problems.push(e);
        }
        crate::window::render::CellScale {
            height: new.font.line_height.get(),
            width: new.font.cell_width.get(),
        }
        .set(ctx);
        if old.is_none_or(|o| o.font.size != new.font.size) {
            self.set_font_size(new.font.size);
        }
        // Following the desktop's light/dark preference starts with the first config
        // that asks for it (`theme.light` / `theme.dark`): no bus otherwise.
        if (new.theme.light.is_some() || new.theme.dark.is_some()) && self.look.appearance.is_none()
        {
            let wake = ctx.clone();
            self.look.appearance = Some(AppearanceWatcher::start(None, move || {
                wake.request_repaint()
            }));
        }
        self.apply_theme(old.is_some_and(|o| o.theme != new.theme));
        let (keymap, errors) = KeyMap::from_config(&new);
        self.keys.map = keymap;
        problems.extend(errors);
        self.core
            .pipeline()
            .set_new_pane_settings(new.term_config(), new.flow_control_window_bytes);
        let (send_text, errors) = crate::window::activity::send_text_chords(&new.send_text);
        self.keys.send_text = send_text;
        problems.extend(errors);
        // What `tern config check` also says (a missing font family is reported where the
        // fonts are installed).
        for (key, _, e) in new.theme.unknown_names() {
            problems.push(format!("{key}: {e}"));
        }
        if let Some(program) = &new.shell.program
            && !tern_core::resume::installed(program, std::env::var_os("PATH").as_deref())
        {
            problems.push(format!(
                "shell.program: {program:?} is not an executable file or on PATH"
            ));
        }
        if !problems.is_empty() {
            self.chrome.status = Some(problems.join("; "));
        }
    }

    /// The theme in force: `theme.name`, or `theme.light` / `theme.dark` for the
    /// desktop's preference; `to_panes`: the panes take its colours too.
    fn apply_theme(&mut self, to_panes: bool) {
        let chosen = self
            .settings
            .config
            .theme
            .for_scheme(self.look.desktop_scheme);
        let defaults = chosen.palette_defaults();
        self.look.palette = tern_core::model::Palette::new(defaults);
        if to_panes {
            self.core.pipeline().set_theme(defaults);
        }
        self.look.theme = crate::window::theme::Theme::from_config(&chosen);
    }

    /// Follows a change of the desktop's light/dark preference.
    fn poll_appearance(&mut self) {
        let Some(watcher) = &self.look.appearance else {
            return;
        };
        for report in watcher.reports() {
            match report {
                Appearance::Scheme(s) if s != self.look.desktop_scheme => {
                    let before = self
                        .settings
                        .config
                        .theme
                        .for_scheme(self.look.desktop_scheme);
                    self.look.desktop_scheme = s;
                    let after = self.settings.config.theme.for_scheme(s);
                    self.core
                        .pipeline()
                        .breadcrumb(None, format!("desktop colour scheme: {s:?}"));
                    self.apply_theme(before != after);
                }
                Appearance::Scheme(_) => {}
                Appearance::Unavailable(why) => {
                    self.core
                        .pipeline()
                        .breadcrumb(None, format!("desktop colour scheme unknown: {why}"));
                }
            }
        }
    }

    /// Reloads the config when its file changed.
    pub(super) fn poll_config(&mut self, ctx: &egui::Context) {
        self.poll_appearance();
        let mut in_force = self.settings.config.clone();
        while let Some(change) = self.settings.poll() {
            match change {
                ConfigChange::Reloaded => {
                    self.apply_config(ctx, Some(&in_force));
                    in_force = self.settings.config.clone();
                    self.core.pipeline().breadcrumb(None, "config reloaded");
                    self.chrome.status = Some("config reloaded".into());
                }
                ConfigChange::Failed => {
                    let e = self.settings.error.clone().unwrap_or_default();
                    self.core
                        .pipeline()
                        .breadcrumb(None, format!("config error: {e}"));
                }
                ConfigChange::Removed => {
                    self.chrome.status =
                        Some("the config file is gone; keeping the settings in force".into());
                }
            }
        }
    }
}

/// Whether two font settings install the same fonts (size and cell scales aside).
fn same_faces(a: &tern_core::config::FontConfig, b: &tern_core::config::FontConfig) -> bool {
    a.family == b.family
        && a.bold == b.bold
        && a.italic == b.italic
        && a.bold_italic == b.bold_italic
        && a.ligatures == b.ligatures
        && a.features == b.features
}
