//! Hints in the window: one key labels every match on the shown rows
//! (`tern_core::text::hints`); typing a label in lower case copies the match
//! (clipboard and PRIMARY), in upper case (Shift) opens it (a URL in the browser, a path
//! with the platform opener), and with Ctrl types it into the program. Escape, or a
//! key no label starts with, leaves.

use std::path::{Path, PathBuf};

use tern_core::text::hints::{Hint, HintKind, HintOutcome, HintPicker, find_hints_counted};

use super::PaneUi;
use crate::window::render::Metrics;

/// What is done with the chosen match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HintAction {
    Copy,
    Open,
    Type,
}

impl PaneUi {
    /// Labels the matches on the shown rows, or takes the labels away.
    pub fn toggle_hints(&mut self) {
        if self.modes.hints.take().is_some() {
            return;
        }
        let Some(view) = &self.view else {
            return;
        };
        self.viewport.refresh(&self.pipeline, self.id, view);
        let rows = self.viewport.rows(view);
        let started = std::time::Instant::now();
        let (hints, work) = find_hints_counted(&rows, &self.settings.hint_patterns.1);
        // The work done and the time taken, for the trace: linear in the screen's size.
        let cells: usize = rows.iter().map(|r| r.cells.len()).sum();
        let extra = format!(
            "\"pane\":{},\"labels\":{},\"cells\":{cells},\"work\":{work},\"us\":{}",
            self.id.0,
            hints.len(),
            started.elapsed().as_micros()
        );
        self.note_trace("hints", extra);
        // Nothing to label: no mode to leave.
        if !hints.is_empty() {
            self.modes.hints = Some(HintPicker::new(hints));
        }
    }

    /// The labels and what has been typed, while hints are shown.
    pub fn hint_picker(&self) -> Option<&HintPicker> {
        self.modes.hints.as_ref()
    }

    /// This frame's keys, for the hints (nothing reaches the program meanwhile).
    pub(super) fn hints_input(&mut self, ctx: &egui::Context) {
        let events = ctx.input(|i| i.events.clone());
        for event in events {
            let (c, action) = match event {
                egui::Event::Text(text) => match text.chars().next() {
                    Some(c) if c.is_uppercase() => (c, HintAction::Open),
                    Some(c) => (c, HintAction::Copy),
                    None => continue,
                },
                egui::Event::Key {
                    key,
                    pressed: true,
                    modifiers,
                    ..
                } if modifiers.ctrl && key.name().len() == 1 => match key.name().chars().next() {
                    Some(c) => (c.to_ascii_lowercase(), HintAction::Type),
                    None => continue,
                },
                egui::Event::Key {
                    key: egui::Key::Escape,
                    pressed: true,
                    ..
                } => {
                    self.modes.hints = None;
                    return;
                }
                _ => continue,
            };
            let Some(picker) = self.modes.hints.as_mut() else {
                return;
            };
            match picker.key(c) {
                HintOutcome::Pending => {}
                HintOutcome::NoMatch => {
                    self.modes.hints = None;
                    return;
                }
                HintOutcome::Chosen(hint) => {
                    self.modes.hints = None;
                    self.act_on_hint(&hint, action);
                    return;
                }
            }
        }
    }

    fn act_on_hint(&mut self, hint: &Hint, action: HintAction) {
        match action {
            HintAction::Copy => self
                .asks
                .copied
                .push((hint.text.clone(), super::CopyTo::BOTH)),
            HintAction::Type => {
                let bracketed = self
                    .view
                    .as_ref()
                    .is_some_and(|v| v.meta.modes.bracketed_paste);
                self.asks
                    .out
                    .extend_from_slice(&tern_core::input::encode_paste(&hint.text, bracketed));
            }
            HintAction::Open => {
                let result = match hint.kind {
                    HintKind::Url => self.open_link(&hint.text),
                    // `path:line` in the editor ($VISUAL, else $EDITOR) at that line, in
                    // a new tab; without one, the file with the platform opener.
                    HintKind::PathLine if self.editor_command().is_some() => {
                        self.edit_at_line(&hint.text)
                    }
                    HintKind::Path | HintKind::PathLine => self.open_path(&hint.text),
                    _ => Err(format!("{:?} is not something to open: copied", hint.text)),
                };
                if let Err(e) = result {
                    self.asks
                        .copied
                        .push((hint.text.clone(), super::CopyTo::BOTH));
                    self.program.exited = Some(format!("[{e}]"));
                }
            }
        }
    }

    /// Asks the app for a tab running the editor at `path:line[:col]` (`EDITOR +LINE
    /// PATH`, which vi, vim, nvim, emacs, nano, micro, kak and helix all take).
    fn edit_at_line(&mut self, text: &str) -> Result<(), String> {
        let mut parts = text.split(':');
        let path = parts.next().unwrap_or(text);
        let line = parts
            .next()
            .and_then(|l| l.parse::<u64>().ok())
            .unwrap_or(1);
        let cwd = self.settings.cwd.clone();
        let full = resolve(path, cwd.as_deref());
        if !full.exists() {
            return Err(format!("{} does not exist", full.display()));
        }
        let mut command = self
            .editor_command()
            .ok_or("no editor: set editor in the config, or $VISUAL or $EDITOR")?;
        command.push(format!("+{line}"));
        command.push(full.display().to_string());
        let dir = full
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("/"));
        self.asks.edit_request = Some((cwd.unwrap_or(dir), command));
        Ok(())
    }

    /// The editor and its arguments: the config's, else `$VISUAL`, else `$EDITOR`.
    fn editor_command(&self) -> Option<Vec<String>> {
        self.settings
            .editor
            .as_deref()
            .and_then(tern_core::resume::split_command)
            .or_else(editor)
    }

    /// A tab the app should open for the editor (taken once).
    #[must_use = "what the panel asks for happens only when applied"]
    pub fn take_edit_request(&mut self) -> Option<(PathBuf, Vec<String>)> {
        self.asks.edit_request.take()
    }

    /// Opens a path (`path:line` opens the file) with the platform opener, resolved
    /// against the pane's folder; one that does not exist is an error at once.
    fn open_path(&mut self, text: &str) -> Result<(), String> {
        let path = text.split(':').next().unwrap_or(text);
        let full = resolve(path, self.settings.cwd.as_deref());
        if !full.exists() {
            return Err(format!("{} does not exist", full.display()));
        }
        let host = tern_core::security::local_host_name();
        self.open_link(&format!("file://{host}{}", full.display()))
    }

    /// Draws each label over the start of its match.
    pub(super) fn paint_hints(
        &self,
        painter: &egui::Painter,
        rect: egui::Rect,
        m: &Metrics,
        colors: (egui::Color32, egui::Color32),
    ) {
        let Some(picker) = &self.modes.hints else {
            return;
        };
        let (bg, fg) = colors;
        for (label, hint) in &picker.hints {
            if !label.starts_with(&picker.typed) {
                continue;
            }
            for (row, cols) in &hint.spans {
                let y = rect.top() + (*row + 1) as f32 * m.cell.y - 1.0;
                let x0 = rect.left() + cols.start as f32 * m.cell.x;
                let x1 = rect.left() + cols.end as f32 * m.cell.x;
                painter.hline(x0..=x1, y, egui::Stroke::new(1.0, bg));
            }
            let Some((row, cols)) = hint.spans.first() else {
                continue;
            };
            let min = rect.min + egui::vec2(cols.start as f32 * m.cell.x, *row as f32 * m.cell.y);
            let size = egui::vec2(label.chars().count() as f32 * m.cell.x, m.cell.y);
            painter.rect_filled(egui::Rect::from_min_size(min, size), 2.0, bg);
            painter.text(min, egui::Align2::LEFT_TOP, label, m.font.clone(), fg);
        }
    }
}

/// `path` as an absolute path: `~` is the home folder, a relative path is under `cwd`.
fn resolve(path: &str, cwd: Option<&Path>) -> PathBuf {
    if let Some(rest) = path.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME").map(PathBuf::from)
    {
        return home.join(rest);
    }
    let p = Path::new(path);
    match cwd {
        Some(dir) if p.is_relative() => dir.join(p),
        _ => p.to_path_buf(),
    }
}

/// The environment's editor and its arguments: `$VISUAL`, else `$EDITOR` (split like a
/// shell would), else the one the user's interactive shell names
/// (`tern_core::shell_env`, read once at start); `None` when none does.
fn editor() -> Option<Vec<String>> {
    ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|k| {
            std::env::var(k)
                .ok()
                .and_then(|v| tern_core::resume::split_command(&v))
        })
        .or_else(|| {
            tern_core::shell_env::editor().and_then(|v| tern_core::resume::split_command(&v))
        })
}
