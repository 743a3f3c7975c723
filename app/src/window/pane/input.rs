//! A pane's input: egui's key, text, paste, pointer and wheel events turned into bytes
//! for the program (or into scrolling and selection), and the multi-line paste check.

use std::time::Instant;

use tern_core::input::{
    Key, KeyModes, MouseButton, MouseEvent, MouseEventKind, encode_key, encode_paste, focus_report,
    mouse_report,
};
use tern_core::model::MouseTracking;

use super::PaneUi;
use crate::window::input;
use crate::window::primary::Primary;
use crate::window::render::Metrics;
use crate::window::viewport::{Point, SelectMode};

impl PaneUi {
    /// Sends pasted text (asking first for an unbracketed multi-line paste).
    pub fn paste(&mut self, text: String) {
        let bracketed = self
            .view
            .as_ref()
            .is_some_and(|v| v.meta.modes.bracketed_paste);
        if !bracketed
            && self.settings.confirm_multiline_paste
            && tern_core::input::paste::is_multiline(&text)
        {
            self.modes.pending_paste = Some(text);
        } else {
            self.pipeline
                .write(self.id, &encode_paste(&text, bracketed));
            self.viewport.to_bottom();
        }
    }

    /// One key press or release (releases and repeats are here for protocols that
    /// report them; the legacy encoding sends presses and repeats only).
    pub(super) fn key_event(
        &mut self,
        key: egui::Key,
        pressed: bool,
        _repeat: bool,
        modifiers: egui::Modifiers,
        key_modes: KeyModes,
        seq: u64,
    ) {
        if !pressed || input::is_text_key(key, modifiers) {
            return; // a text key's text arrives as a text event
        }
        if let Some(k) = input::key(key)
            && let Some(bytes) = encode_key(k, input::mods(modifiers), key_modes)
        {
            // Alt+character is sent here (ESC prefix); the text event that may follow
            // it must not be typed as well.
            self.input.swallow_text = modifiers.alt && !modifiers.ctrl;
            self.write_key_bytes(&bytes, seq);
        }
    }

    pub(super) fn write_key_bytes(&mut self, bytes: &[u8], seq: u64) {
        self.timing.last_key_at = Instant::now();
        self.asks.out.extend_from_slice(bytes);
        self.timing.pending_keys.push((seq, Instant::now()));
        self.timing.key_this_frame = true;
        self.viewport.to_bottom();
    }

    /// Types the keys, text and composed text of `events` into the program now, as
    /// [`PaneUi::handle_input`] would in the frame (the window's `raw_input_hook`,
    /// before egui's pass; see `TernApp::type_now`); other events are left alone.
    pub fn type_now(&mut self, events: &[egui::Event]) {
        let modes = self.view.as_ref().map(|v| v.meta.modes).unwrap_or_default();
        let key_modes = KeyModes::from_modes(&modes);
        let seq = self.view.as_ref().map_or(0, |v| v.seq);
        for event in events {
            self.type_event(event, modes.keyboard_flags, key_modes, seq);
        }
        // The frame that follows takes the echo (`take_echo`), as one that typed would.
        self.carry_out(self.awaits_echo());
    }

    /// One key, text or composed-text event typed into the program; false for any other
    /// event.
    fn type_event(
        &mut self,
        event: &egui::Event,
        keyboard_flags: u8,
        key_modes: KeyModes,
        seq: u64,
    ) -> bool {
        match event {
            // The kitty keyboard protocol: presses, repeats and releases.
            &egui::Event::Key {
                key,
                pressed,
                repeat,
                modifiers,
                ..
            } if keyboard_flags != 0 => {
                let out = crate::window::kitty_keys::encode(
                    key,
                    pressed,
                    repeat,
                    modifiers,
                    keyboard_flags,
                    key_modes,
                );
                if let Some(bytes) = out.bytes {
                    self.input.swallow_text = out.swallow_text;
                    self.write_key_bytes(&bytes, seq);
                }
            }
            &egui::Event::Key {
                key,
                pressed,
                repeat,
                modifiers,
                ..
            } => self.key_event(key, pressed, repeat, modifiers, key_modes, seq),
            egui::Event::Text(text) => {
                if !std::mem::take(&mut self.input.swallow_text) {
                    self.write_key_bytes(text.as_bytes(), seq)
                }
            }
            // Composed text from an input method (the preedit is the IME's to show).
            egui::Event::Ime(egui::ImeEvent::Commit(text)) => {
                self.write_key_bytes(text.as_bytes(), seq)
            }
            _ => return false,
        }
        true
    }

    pub(super) fn handle_input(
        &mut self,
        ctx: &egui::Context,
        rect: egui::Rect,
        m: &Metrics,
        response: &egui::Response,
        primary: &mut Primary,
    ) {
        let pane = self.id;
        let modes = self.view.as_ref().map(|v| v.meta.modes).unwrap_or_default();
        let key_modes = KeyModes::from_modes(&modes);
        let events = ctx.input(|i| i.events.clone());
        let seq = self.view.as_ref().map_or(0, |v| v.seq);
        let rows = self.size.grid.map_or(24, |g| g.rows) as isize;
        for event in events {
            if self.type_event(&event, modes.keyboard_flags, key_modes, seq) {
                continue;
            }
            match event {
                egui::Event::Paste(text) => self.paste(text),
                egui::Event::WindowFocused(focused) if modes.focus_events => {
                    self.pipeline
                        .write_report(pane, &focus_report(focused, modes.eight_bit_controls));
                }
                egui::Event::PointerButton {
                    pos,
                    button,
                    pressed,
                    modifiers,
                } if rect.contains(pos) || !pressed => {
                    // Clicks land on whole rows: a half-scrolled line settles first.
                    if pressed {
                        self.viewport.fraction = 0.0;
                    }
                    let (row, col) = self.cell_at(pos, rect, m);
                    let b = match button {
                        egui::PointerButton::Primary => MouseButton::Left,
                        egui::PointerButton::Middle => MouseButton::Middle,
                        egui::PointerButton::Secondary => MouseButton::Right,
                        _ => continue,
                    };
                    let was_dragging = self.input.dragging;
                    self.input.dragging = if pressed { Some(b) } else { None };
                    if !pressed && was_dragging != Some(b) {
                        continue;
                    }
                    if modes.mouse != MouseTracking::Off && !modifiers.shift {
                        let kind = if pressed {
                            MouseEventKind::Press
                        } else {
                            MouseEventKind::Release
                        };
                        let ev = MouseEvent {
                            kind,
                            button: b,
                            col,
                            row,
                            mods: input::mods(modifiers),
                        };
                        if let Some(bytes) = mouse_report(
                            ev,
                            modes.mouse,
                            modes.mouse_encoding,
                            modes.eight_bit_controls,
                        ) {
                            self.asks.out.extend_from_slice(&bytes);
                        }
                    } else if pressed && b == MouseButton::Left && modifiers.ctrl {
                        if let Some((_, uri)) = self.link_at_cell(row, col)
                            && let Err(e) = self.open_link(&uri)
                        {
                            self.program.exited = Some(format!("[{e}]"));
                        }
                    } else if pressed && b == MouseButton::Left {
                        if let Some(v) = &self.view {
                            let line = self.viewport.line_of_row(v, row);
                            let at = Point { line, col };
                            if modifiers.shift && self.viewport.selection.is_some() {
                                self.viewport.extend_selection(at);
                            } else if modifiers.alt {
                                self.viewport.start_selection(at, SelectMode::Block, v.seq);
                            } else {
                                self.viewport.start_selection(at, SelectMode::Cells, v.seq);
                            }
                        }
                    } else if pressed && b == MouseButton::Middle {
                        match primary.get() {
                            Some(text) => self.paste(text),
                            None => ctx.send_viewport_cmd(egui::ViewportCommand::RequestPaste),
                        }
                    } else if !pressed && b == MouseButton::Left {
                        // Selecting is copying to PRIMARY (X11).
                        self.copy_selection(super::CopyTo::PRIMARY);
                    }
                }
                egui::Event::PointerMoved(pos) => {
                    let (row, col) = self.cell_at(pos, rect, m);
                    if modes.mouse != MouseTracking::Off {
                        let button = self.input.dragging.unwrap_or(MouseButton::None);
                        let ev = MouseEvent {
                            kind: MouseEventKind::Motion,
                            button,
                            col,
                            row,
                            mods: tern_core::input::Mods::NONE,
                        };
                        if rect.contains(pos)
                            && let Some(bytes) = mouse_report(
                                ev,
                                modes.mouse,
                                modes.mouse_encoding,
                                modes.eight_bit_controls,
                            )
                        {
                            self.asks.out.extend_from_slice(&bytes);
                        }
                    } else if self.input.dragging == Some(MouseButton::Left)
                        && let Some(v) = &self.view
                    {
                        let line = self.viewport.line_of_row(v, row);
                        self.viewport.extend_selection(Point { line, col });
                    }
                }
                egui::Event::MouseWheel {
                    unit,
                    delta,
                    modifiers,
                    ..
                } if unit != egui::MouseWheelUnit::Point
                    || (modes.mouse != MouseTracking::Off && !modifiers.shift)
                    || modes.alt_screen =>
                {
                    let lines = match unit {
                        egui::MouseWheelUnit::Line => delta.y * 3.0,
                        egui::MouseWheelUnit::Page => delta.y * rows as f32,
                        egui::MouseWheelUnit::Point => delta.y / m.cell.y,
                    } + self.input.wheel_rest;
                    let whole = lines.trunc();
                    self.input.wheel_rest = lines - whole;
                    let steps = whole as isize;
                    if steps == 0 {
                        continue;
                    }
                    let pos = ctx.input(|i| i.pointer.hover_pos()).unwrap_or(rect.min);
                    let (row, col) = self.cell_at(pos, rect, m);
                    if modes.mouse != MouseTracking::Off && !modifiers.shift {
                        let button = if steps > 0 {
                            MouseButton::WheelUp
                        } else {
                            MouseButton::WheelDown
                        };
                        for _ in 0..steps.unsigned_abs() {
                            let ev = MouseEvent {
                                kind: MouseEventKind::Press,
                                button,
                                col,
                                row,
                                mods: input::mods(modifiers),
                            };
                            if let Some(bytes) = mouse_report(
                                ev,
                                modes.mouse,
                                modes.mouse_encoding,
                                modes.eight_bit_controls,
                            ) {
                                self.asks.out.extend_from_slice(&bytes);
                            }
                        }
                    } else if modes.alt_screen && modes.alternate_scroll {
                        let k = if steps > 0 { Key::Up } else { Key::Down };
                        for _ in 0..steps.unsigned_abs() {
                            if let Some(bytes) =
                                encode_key(k, tern_core::input::Mods::NONE, key_modes)
                            {
                                self.asks.out.extend_from_slice(&bytes);
                            }
                        }
                    } else if !modes.alt_screen
                        && let Some(v) = &self.view
                    {
                        self.viewport.scroll_by(steps, v);
                    }
                }
                // Pixel-precise wheels (touchpads) scroll history smoothly.
                egui::Event::MouseWheel {
                    unit: egui::MouseWheelUnit::Point,
                    delta,
                    modifiers,
                    ..
                } if (modes.mouse == MouseTracking::Off || modifiers.shift)
                    && !modes.alt_screen =>
                {
                    if let Some(v) = &self.view {
                        self.viewport.scroll_smooth(delta.y / m.cell.y, v);
                    }
                }
                _ => {}
            }
        }
        // Double and triple clicks select words and lines.
        if modes.mouse == MouseTracking::Off
            && (response.double_clicked() || response.triple_clicked())
            && let (Some(pos), Some(v)) = (response.interact_pointer_pos(), &self.view)
        {
            let (row, col) = self.cell_at(pos, rect, m);
            let at = Point {
                line: self.viewport.line_of_row(v, row),
                col,
            };
            let mode = if response.triple_clicked() {
                SelectMode::Lines
            } else {
                SelectMode::Words
            };
            self.viewport.start_selection(at, mode, v.seq);
            self.copy_selection(super::CopyTo::PRIMARY);
        }
    }

    /// Asks before sending a multi-line paste that is not bracketed.
    pub(super) fn confirm_paste(&mut self, ctx: &egui::Context) {
        let Some(text) = self.modes.pending_paste.clone() else {
            return;
        };
        let lines = tern_core::input::paste_line_count(&text);
        let mut decision: Option<bool> = None;
        egui::Modal::new(egui::Id::unique("tern-paste-confirm")).show(ctx, |ui| {
            ui.heading(format!("Paste {lines} lines?"));
            ui.label(
                "The program has not turned on bracketed paste, so each line will run as if typed.",
            );
            let preview = tern_core::input::paste_preview(&text, 5);
            ui.monospace(preview);
            ui.horizontal(|ui| {
                if ui.button("Paste").clicked() {
                    decision = Some(true);
                }
                if ui.button("Cancel").clicked() {
                    decision = Some(false);
                }
            });
        });
        if ctx.input(|i| i.key_pressed(egui::Key::Escape)) {
            decision = Some(false);
        }
        if let Some(go) = decision {
            self.modes.pending_paste = None;
            if go {
                self.asks.out.extend_from_slice(&encode_paste(&text, false));
                self.viewport.to_bottom();
            }
        }
    }
}
