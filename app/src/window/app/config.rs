//! The settings in force: applied at start and again whenever the config file changes.

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
        let theme = new.theme.palette_defaults();
        self.palette = tern_core::model::Palette::new(theme);
        if old.is_some_and(|o| o.theme != new.theme) {
            self.pipeline.set_theme(theme);
        }
        self.theme = crate::window::theme::Theme::from_config(&new.theme);
        let (keymap, errors) = KeyMap::from_config(&new);
        self.keymap = keymap;
        problems.extend(errors);
        self.pipeline
            .set_new_pane_settings(new.term_config(), new.flow_control_window_bytes);
        let (send_text, errors) = crate::window::agents::send_text_chords(&new.send_text);
        self.send_text = send_text;
        problems.extend(errors);
        // What `tern config check` also says (a missing font family is reported where the
        // fonts are installed).
        if let Err(e) = new.theme.scheme() {
            problems.push(format!("theme.name: {e}"));
        }
        if let Some(program) = &new.shell.program
            && !tern_core::resume::installed(program, std::env::var_os("PATH").as_deref())
        {
            problems.push(format!(
                "shell.program: {program:?} is not an executable file or on PATH"
            ));
        }
        if old.is_some_and(|o| o.notify != new.notify) {
            self.agents.set_config(&new.notify);
        }
        if !problems.is_empty() {
            self.status = Some(problems.join("; "));
        }
    }

    /// Reloads the config when its file changed.
    pub(super) fn poll_config(&mut self, ctx: &egui::Context) {
        let mut in_force = self.settings.config.clone();
        while let Some(change) = self.settings.poll() {
            match change {
                ConfigChange::Reloaded => {
                    self.apply_config(ctx, Some(&in_force));
                    in_force = self.settings.config.clone();
                    self.pipeline.breadcrumb(None, "config reloaded");
                    self.status = Some("config reloaded".into());
                }
                ConfigChange::Failed => {
                    let e = self.settings.error.clone().unwrap_or_default();
                    self.pipeline.breadcrumb(None, format!("config error: {e}"));
                }
                ConfigChange::Removed => {
                    self.status =
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
