//! One pane in the window: its view of the model's deliveries, scrollback viewport,
//! selection, search and input. The app owns many; the workspace decides which are
//! drawn (the rest are parked and hold no view).

use std::sync::Arc;
use std::time::Instant;

use egui::{FontFamily, FontId, Sense, vec2};
use tern_core::input::{
    Key, KeyModes, MouseButton, MouseEvent, MouseEventKind, encode_focus, encode_key, encode_mouse,
    encode_paste,
};
use tern_core::model::{MouseTracking, Palette, Row, TermSize};
use tern_core::pipeline::delivery::{Delivery, PaneView};
use tern_core::pipeline::{PaneId, Pipeline};
use tern_core::workspace::Badges;

use super::glyphs::GlyphCache;
use super::input;
use super::render::{self, Metrics, RowCache, Scene};
use super::search::{SearchAction, SearchBar};
use super::theme::Theme;
use super::trace::Trace;
use super::viewport::{Point, SelectMode, Viewport};

/// How long a frame waits for a just-revealed pane's snapshot (it is normally there in
/// well under a millisecond; a model thread busy with a flood slice takes a little
/// longer).
const REVEAL_WAIT: std::time::Duration = std::time::Duration::from_millis(4);

/// What every pane draws with: the pipeline, fonts, colours and the trace.
pub struct Shared {
    pub pipeline: Arc<Pipeline>,
    pub font_size: f32,
    pub theme: Theme,
    /// Colours before a pane's first delivery.
    pub palette: Palette,
    pub glyphs: GlyphCache,
    pub trace: Trace,
    /// The window has keyboard focus.
    pub window_focused: bool,
    /// Ask before an unbracketed multi-line paste.
    pub confirm_multiline_paste: bool,
    /// The widget ids of the panes (keyboard focus on anything else is a text field).
    pub pane_ids: std::collections::HashSet<egui::Id>,
    pub primary: super::primary::Primary,
    first_frame_traced: bool,
    first_output_traced: bool,
}

impl Shared {
    pub fn new(pipeline: Arc<Pipeline>, trace: Trace) -> Shared {
        Shared {
            pipeline,
            font_size: super::app::DEFAULT_FONT_SIZE,
            theme: Theme::default(),
            palette: Palette::default(),
            glyphs: GlyphCache::default(),
            trace,
            window_focused: true,
            confirm_multiline_paste: true,
            pane_ids: Default::default(),
            primary: super::primary::Primary::default(),
            first_frame_traced: false,
            first_output_traced: false,
        }
    }

    pub fn metrics(&self, ctx: &egui::Context) -> Metrics {
        let font = FontId::new(self.font_size, FontFamily::Monospace);
        let (w, h) = ctx.fonts_mut(|f| (f.glyph_width(&font, 'M'), f.row_height(&font)));
        let ppp = ctx.pixels_per_point();
        // Whole pixels, so cell edges (and box drawing) land on pixel boundaries.
        let snap = |v: f32| (v * ppp).round().max(1.0) / ppp;
        Metrics {
            font,
            cell: vec2(snap(w), snap(h)),
        }
    }

    /// Traces the first frame the window presents.
    pub fn trace_first_frame(&mut self) {
        if !self.first_frame_traced {
            self.first_frame_traced = true;
            self.trace.event_at("first_frame", Instant::now(), "");
        }
    }
}

/// What a pane's frame asks of the app.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PaneResponse {
    /// The user clicked into this (unfocused) pane.
    pub clicked: bool,
}

pub struct PaneUi {
    pub id: PaneId,
    pipeline: Arc<Pipeline>,
    /// The model's deliveries; `None` while parked (the view is freed).
    view: Option<PaneView>,
    grid: Option<TermSize>,
    pub exited: Option<String>,
    /// OSC 0/2 title ("" when the program cleared it).
    pub title: String,
    /// OSC 7 working directory (decoded by the model), when the shell reports it.
    pub cwd_reported: Option<String>,
    /// The shell's working directory, from the process table (refreshed now and then).
    pub cwd: Option<std::path::PathBuf>,
    /// The process table has been read for this pane at least once.
    pub looked_up: bool,
    /// The running (or last run) program other than the shell, from the process table.
    pub command: Option<String>,
    pub last_command: Option<String>,
    pub badges: Badges,
    /// Keys waiting for the frame that shows their echo: (seq before, received at).
    pending_keys: Vec<(u64, Instant)>,
    viewport: Viewport,
    /// Mouse button held for selection or reporting.
    dragging: Option<MouseButton>,
    /// Fractional wheel lines not yet scrolled.
    wheel_rest: f32,
    /// A multi-line paste waiting for the user's go-ahead (the program did not turn on
    /// bracketed paste, so each line would run as typed).
    pending_paste: Option<String>,
    /// When the user last typed: the blinking cursor restarts its phase (shown) then.
    last_key_at: Instant,
    search: Option<SearchBar>,
    /// The selection as last checked: what it was, at which `seq`, and its text.
    selection_guard: Option<(super::viewport::Selection, u64, String)>,
    /// An Alt combination was sent as a key: its text event (if any) must not follow.
    swallow_text: bool,
    /// Ask before an unbracketed multi-line paste (the config's, set every frame).
    confirm_multiline_paste: bool,
    /// Row meshes from the last frames (only changed rows are rebuilt).
    rows: RowCache,
    /// When the pane was last revealed, until a frame shows it (for the trace).
    pub revealed_at: Option<Instant>,
    /// When the model thread built the last snapshot this pane took.
    snapshot_built_at: Option<Instant>,
}

impl PaneUi {
    pub fn new(id: PaneId, pipeline: Arc<Pipeline>) -> PaneUi {
        PaneUi {
            id,
            pipeline,
            view: None,
            grid: None,
            exited: None,
            title: String::new(),
            cwd_reported: None,
            cwd: None,
            looked_up: false,
            command: None,
            last_command: None,
            badges: Badges::default(),
            pending_keys: Vec::new(),
            viewport: Viewport::default(),
            dragging: None,
            wheel_rest: 0.0,
            pending_paste: None,
            last_key_at: Instant::now(),
            search: None,
            selection_guard: None,
            swallow_text: false,
            confirm_multiline_paste: true,
            rows: RowCache::default(),
            revealed_at: None,
            snapshot_built_at: None,
        }
    }

    pub fn view(&self) -> Option<&PaneView> {
        self.view.as_ref()
    }

    pub fn grid(&self) -> Option<TermSize> {
        self.grid
    }

    pub fn scroll_offset(&self) -> usize {
        self.viewport.offset
    }

    /// Lines scrolled up, with the part of a line a touchpad scrolled.
    pub fn scroll_position(&self) -> f32 {
        self.viewport.offset as f32 + self.viewport.fraction
    }

    /// Parks the pane: its view and viewport state are freed (the model keeps running).
    pub fn park(&mut self) {
        self.view = None;
        self.viewport = Viewport::default();
        self.selection_guard = None;
        self.search = None;
        self.dragging = None;
        self.rows.clear();
    }

    /// After a reveal, once the view is back: traces how long the reveal took (the
    /// switch, the pipeline's snapshot, this frame) and the history it holds.
    pub fn trace_reveal(&mut self, sh: &mut Shared) {
        let (Some(at), Some(view)) = (self.revealed_at, self.view.as_ref()) else {
            return;
        };
        self.revealed_at = None;
        if sh.trace.enabled() {
            // Where the time went: until the model thread had built the snapshot, and
            // from then to this frame.
            let built_us = self
                .snapshot_built_at
                .map_or(0, |b| b.saturating_duration_since(at).as_micros());
            let extra = format!(
                "\"pane\":{},\"latency_us\":{},\"snapshot_built_us\":{built_us},\"scrollback_lines\":{},\"rows_rebuilt\":{}",
                self.id.0,
                at.elapsed().as_micros(),
                view.scrollback_lines,
                self.rows.rebuilt
            );
            sh.trace.event("reveal_frame", &extra);
        }
    }

    /// Rows whose mesh the last frame rebuilt (the rest came from the row cache).
    pub fn rows_rebuilt(&self) -> usize {
        self.rows.rebuilt
    }

    /// Rows rebuilt by every frame so far.
    pub fn rows_rebuilt_total(&self) -> u64 {
        self.rows.rebuilt_total
    }

    pub fn is_parked(&self) -> bool {
        self.view.is_none()
    }

    /// The rows the window shows now (history lines when scrolled up).
    pub fn shown_rows(&mut self) -> Vec<String> {
        let Some(view) = self.view.as_ref() else {
            return Vec::new();
        };
        self.viewport.refresh(&self.pipeline, self.id, view);
        self.viewport
            .rows(view)
            .iter()
            .map(|r| r.text().trim_end().to_owned())
            .collect()
    }

    /// The selected text, if any.
    pub fn selection_text(&self) -> Option<String> {
        let (pane, view) = (self.id, self.view.as_ref()?);
        let total = view.scrollback_lines as usize;
        let dropped = view.scrollback_dropped as usize;
        self.viewport.selected_text(|abs| {
            // Lines that dropped off the scrollback are gone.
            let line = abs.checked_sub(dropped)?;
            if line >= total {
                view.rows.get(line - total).cloned()
            } else {
                self.pipeline
                    .history(pane, total - 1 - line, 1)
                    .and_then(|p| p.rows.into_iter().next())
            }
        })
    }

    /// Takes what the model delivered.
    pub fn take_deliveries(&mut self, sh: &mut Shared) {
        // Just revealed: the snapshot is a viewport's copy away on the model thread;
        // wait that long (bounded) rather than draw an empty pane for a frame.
        if self.view.is_none()
            && self.revealed_at.is_some()
            && let Some(d) = self.pipeline.take_within(self.id, REVEAL_WAIT)
        {
            self.apply(sh, d);
        }
        while let Some(d) = self.pipeline.take(self.id) {
            self.apply(sh, d);
        }
    }

    fn apply(&mut self, sh: &mut Shared, d: Delivery) {
        // The shell's first output may arrive in a frame or already in the snapshot.
        let (seq, read_at, built_at) = match &d {
            Delivery::Frame(f) => (f.seq, f.read_at, f.built_at),
            Delivery::Snapshot(sn) => (sn.seq, None, sn.built_at),
        };
        if matches!(d, Delivery::Snapshot(_)) {
            self.snapshot_built_at = Some(built_at);
        }
        if seq > 0 && !sh.first_output_traced {
            sh.first_output_traced = true;
            if let Some(read_at) = read_at {
                sh.trace.event_at("first_output_read", read_at, "");
            }
            sh.trace.event_at("first_output_frame_built", built_at, "");
        }
        PaneView::apply_delivery(&mut self.view, d);
    }

    /// Scrolls the history by pages (negative: down) or to an end.
    pub fn scroll_pages(&mut self, pages: isize) {
        let rows = self.grid.map_or(24, |g| g.rows) as isize;
        if let Some(v) = &self.view {
            self.viewport.scroll_by(pages * (rows - 1), v);
        }
    }

    pub fn scroll_to_top(&mut self) {
        if let Some(v) = &self.view {
            self.viewport.offset = v.scrollback_lines as usize;
        }
    }

    pub fn scroll_to_bottom(&mut self) {
        self.viewport.to_bottom();
    }

    pub fn open_search(&mut self) {
        self.search = Some(SearchBar::new());
    }

    /// Sends pasted text (asking first for an unbracketed multi-line paste).
    pub fn paste(&mut self, text: String) {
        let bracketed = self.view.as_ref().is_some_and(|v| v.modes.bracketed_paste);
        if !bracketed
            && self.confirm_multiline_paste
            && tern_core::input::paste::is_multiline(&text)
        {
            self.pending_paste = Some(text);
        } else {
            self.pipeline
                .write(self.id, &encode_paste(&text, bracketed));
            self.viewport.to_bottom();
        }
    }

    /// The hyperlink (OSC 8, or a URL in the text) at a cell of what the window shows.
    pub fn link_at_cell(
        &mut self,
        row: usize,
        col: usize,
    ) -> Option<(std::ops::Range<usize>, String)> {
        let (pane, view) = (self.id, self.view.as_ref()?);
        self.viewport.refresh(&self.pipeline, pane, view);
        let rows = self.viewport.rows(view);
        super::links::link_at(rows.get(row)?, col, |id| view.links.get(&id).cloned())
    }

    /// The cell under `pos` in `rect` (clamped to the grid).
    fn cell_at(&self, pos: egui::Pos2, rect: egui::Rect, m: &Metrics) -> (usize, usize) {
        let size = self.grid.unwrap_or(TermSize::new(80, 24));
        let col = ((pos.x - rect.left()) / m.cell.x).floor().max(0.0) as usize;
        let row = ((pos.y - rect.top()) / m.cell.y).floor().max(0.0) as usize;
        (
            row.min(size.rows.saturating_sub(1)),
            col.min(size.cols.saturating_sub(1)),
        )
    }

    fn write_key_bytes(&mut self, pane: PaneId, bytes: &[u8], seq: u64) {
        self.last_key_at = Instant::now();
        self.pipeline.write(pane, bytes);
        self.pending_keys.push((seq, Instant::now()));
        self.viewport.to_bottom();
    }

    fn handle_input(
        &mut self,
        ctx: &egui::Context,
        rect: egui::Rect,
        m: &Metrics,
        response: &egui::Response,
        primary: &mut super::primary::Primary,
    ) {
        let pane = self.id;
        let modes = self.view.as_ref().map(|v| v.modes).unwrap_or_default();
        let key_modes = KeyModes::from_modes(&modes);
        let events = ctx.input(|i| i.events.clone());
        let seq = self.view.as_ref().map_or(0, |v| v.seq);
        let rows = self.grid.map_or(24, |g| g.rows) as isize;
        for event in events {
            match event {
                // The kitty keyboard protocol: presses, repeats and releases.
                egui::Event::Key {
                    key,
                    pressed,
                    repeat,
                    modifiers,
                    ..
                } if modes.keyboard_flags != 0 => {
                    let flags = modes.keyboard_flags;
                    let out = super::kitty_keys::encode(
                        key, pressed, repeat, modifiers, flags, key_modes,
                    );
                    if let Some(bytes) = out.bytes {
                        self.swallow_text = out.swallow_text;
                        self.write_key_bytes(pane, &bytes, seq);
                    }
                }
                egui::Event::Key {
                    key,
                    pressed: true,
                    modifiers,
                    ..
                } => {
                    if input::is_text_key(key, modifiers) {
                        continue; // its text arrives as a text event
                    }
                    if let Some(k) = input::key(key)
                        && let Some(bytes) = encode_key(k, input::mods(modifiers), key_modes)
                    {
                        // Alt+character is sent here (ESC prefix); the text event that
                        // may follow it must not be typed as well.
                        self.swallow_text = modifiers.alt && !modifiers.ctrl;
                        self.write_key_bytes(pane, &bytes, seq);
                    }
                }
                egui::Event::Text(text) => {
                    if std::mem::take(&mut self.swallow_text) {
                        continue;
                    }
                    self.write_key_bytes(pane, text.as_bytes(), seq)
                }
                // Composed text from an input method (the preedit is the IME's to show).
                egui::Event::Ime(egui::ImeEvent::Commit(text)) => {
                    self.write_key_bytes(pane, text.as_bytes(), seq)
                }
                egui::Event::Paste(text) => self.paste(text),
                egui::Event::WindowFocused(focused) if modes.focus_events => {
                    self.pipeline.write_report(pane, encode_focus(focused));
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
                    let was_dragging = self.dragging;
                    self.dragging = if pressed { Some(b) } else { None };
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
                        if let Some(bytes) = encode_mouse(ev, modes.mouse, modes.mouse_encoding) {
                            self.pipeline.write(pane, &bytes);
                        }
                    } else if pressed && b == MouseButton::Left && modifiers.ctrl {
                        if let Some((_, uri)) = self.link_at_cell(row, col)
                            && let Err(e) = super::links::open(&uri)
                        {
                            self.exited = Some(format!("[{e}]"));
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
                    } else if !pressed
                        && b == MouseButton::Left
                        && let Some(text) = self.selection_text().filter(|t| !t.is_empty())
                    {
                        // Selecting is copying to PRIMARY (X11).
                        primary.set(&text);
                    }
                }
                egui::Event::PointerMoved(pos) => {
                    let (row, col) = self.cell_at(pos, rect, m);
                    if modes.mouse != MouseTracking::Off {
                        let button = self.dragging.unwrap_or(MouseButton::None);
                        let ev = MouseEvent {
                            kind: MouseEventKind::Motion,
                            button,
                            col,
                            row,
                            mods: tern_core::input::Mods::NONE,
                        };
                        if rect.contains(pos)
                            && let Some(bytes) = encode_mouse(ev, modes.mouse, modes.mouse_encoding)
                        {
                            self.pipeline.write(pane, &bytes);
                        }
                    } else if self.dragging == Some(MouseButton::Left)
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
                    } + self.wheel_rest;
                    let whole = lines.trunc();
                    self.wheel_rest = lines - whole;
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
                            if let Some(bytes) = encode_mouse(ev, modes.mouse, modes.mouse_encoding)
                            {
                                self.pipeline.write(pane, &bytes);
                            }
                        }
                    } else if modes.alt_screen && modes.alternate_scroll {
                        let k = if steps > 0 { Key::Up } else { Key::Down };
                        for _ in 0..steps.unsigned_abs() {
                            if let Some(bytes) =
                                encode_key(k, tern_core::input::Mods::NONE, key_modes)
                            {
                                self.pipeline.write(pane, &bytes);
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
            if let Some(text) = self.selection_text() {
                primary.set(&text);
            }
        }
    }

    /// Asks before sending a multi-line paste that is not bracketed.
    fn confirm_paste(&mut self, ctx: &egui::Context) {
        let Some(text) = self.pending_paste.clone() else {
            return;
        };
        let lines = text.trim_end_matches(['\n', '\r']).lines().count();
        let mut decision: Option<bool> = None;
        egui::Modal::new(egui::Id::unique("tern-paste-confirm")).show(ctx, |ui| {
            ui.heading(format!("Paste {lines} lines?"));
            ui.label(
                "The program has not turned on bracketed paste, so each line will run as if typed.",
            );
            let preview: String = text.lines().take(5).collect::<Vec<_>>().join("\n");
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
            self.pending_paste = None;
            if go {
                let pane = self.id;
                self.pipeline.write(pane, &encode_paste(&text, false));
                self.viewport.to_bottom();
            }
        }
    }

    /// Keeps the selection while its text is unchanged (output that scrolls it is fine)
    /// and clears it when the selected content changes or scrolls off the scrollback.
    fn check_selection(&mut self) {
        let Some(sel) = self.viewport.selection else {
            self.selection_guard = None;
            return;
        };
        let seq = self.view.as_ref().map_or(0, |v| v.seq);
        match &self.selection_guard {
            Some((s, q, _)) if *s == sel && *q == seq => {}
            Some((s, _, text)) if *s == sel => {
                let now = self.selection_text();
                if now.as_deref() != Some(text.as_str()) {
                    self.viewport.selection = None;
                    self.selection_guard = None;
                } else {
                    self.selection_guard = Some((sel, seq, text.clone()));
                }
            }
            _ => {
                // A new or changed selection: remember what it holds now.
                self.selection_guard = self.selection_text().map(|t| (sel, seq, t));
            }
        }
    }

    /// The search bar's state, when it is open.
    pub fn search(&self) -> Option<&SearchBar> {
        self.search.as_ref()
    }

    pub fn paste_pending(&self) -> bool {
        self.pending_paste.is_some()
    }

    /// Draws the pane into `rect` for one frame. `keyboard`: this is the focused pane
    /// (keys, paste and the pointer go to it); other panes only notice a click.
    pub fn frame(
        &mut self,
        ui: &mut egui::Ui,
        rect: egui::Rect,
        sh: &mut Shared,
        keyboard: bool,
    ) -> PaneResponse {
        let ctx = ui.ctx().clone();
        let mut out = PaneResponse::default();
        self.confirm_multiline_paste = sh.confirm_multiline_paste;
        self.take_deliveries(sh);
        if let Some(v) = &self.view {
            self.viewport.on_content(v);
        }
        self.check_selection();
        let m = sh.metrics(&ctx);
        let response = ui.interact(
            rect,
            egui::Id::unique(("tern-pane", self.id.0)),
            Sense::click_and_drag(),
        );
        // The focused terminal holds keyboard focus unless the search bar is open or
        // the user is typing in another field (the sidebar's, say); a click on the
        // terminal takes it back.
        sh.pane_ids.insert(response.id);
        let other_field = ctx
            .memory(|m| m.focused())
            .is_some_and(|id| !sh.pane_ids.contains(&id));
        if keyboard
            && self.search.is_none()
            && (!other_field || response.is_pointer_button_down_on())
        {
            response.request_focus();
        }
        let takes_keys = keyboard && (!other_field || response.is_pointer_button_down_on());
        if !keyboard && response.is_pointer_button_down_on() {
            out.clicked = true;
        }
        let focused = keyboard && sh.window_focused;
        ui.memory_mut(|mem| {
            mem.set_focus_lock_filter(
                response.id,
                egui::EventFilter {
                    tab: true,
                    horizontal_arrows: true,
                    vertical_arrows: true,
                    escape: true,
                },
            )
        });
        ctx.accesskit_node_builder(response.id, |n| {
            n.set_role(egui::accesskit::Role::Terminal);
            // The focused pane is "terminal"; the others say which pane they are.
            if keyboard {
                n.set_label("terminal");
            } else {
                n.set_label(format!("terminal {}", self.id.0));
            }
        });
        if !keyboard {
            // Only the focused pane takes input.
        } else if self.pending_paste.is_some() {
            self.confirm_paste(&ctx);
        } else if self.search.is_some() || !takes_keys {
            // Keys go to the search bar, or to the field the user is typing in.
        } else {
            self.handle_input(&ctx, rect, &m, &response, &mut sh.primary);
        }
        let cols = ((rect.width() / m.cell.x).floor() as usize).max(2);
        let rows = ((rect.height() / m.cell.y).floor() as usize).max(1);
        let size = TermSize::new(cols, rows);
        if self.grid != Some(size) {
            self.grid = Some(size);
            self.pipeline.resize(self.id, size);
        }
        let painter = ui.painter_at(rect);
        let pane = self.id;
        match &self.view {
            Some(view) => {
                let offset = self.viewport.offset;
                let total = view.scrollback_lines;
                // Part of a line scrolled into view: one more row on top, all of them
                // drawn that much lower (pixel-smooth scrolling).
                let extra = self.viewport.extra_row(view);
                let first_line = (view.scrollback_dropped as usize + total as usize)
                    .saturating_sub(offset + usize::from(extra));
                let draw_rect = if extra {
                    let shift = (1.0 - self.viewport.fraction) * m.cell.y;
                    let snap =
                        |v: f32| (v * ctx.pixels_per_point()).round() / ctx.pixels_per_point();
                    egui::Rect::from_min_size(
                        rect.min - egui::vec2(0.0, snap(shift)),
                        rect.size() + egui::vec2(0.0, m.cell.y),
                    )
                } else {
                    rect
                };
                self.viewport.refresh(&self.pipeline, pane, view);
                let viewport = &self.viewport;
                let shown: Vec<&Row> = viewport.rows(view);
                let selected = |r: usize, c: usize| {
                    viewport.is_selected(first_line + r, c, || {
                        shown
                            .get(r)
                            .map(|row| super::viewport::cell_chars(row))
                            .unwrap_or_default()
                    })
                };
                // DECSCUSR / ?12 blinking: on for 530 ms, off for 530 ms, restarting on each key.
                const BLINK_MS: u128 = 530;
                let blink_on = if view.modes.cursor_blink && focused {
                    let ms = self.last_key_at.elapsed().as_millis();
                    ctx.request_repaint_after(std::time::Duration::from_millis(
                        (BLINK_MS - ms % BLINK_MS) as u64,
                    ));
                    (ms / BLINK_MS) % 2 == 0
                } else {
                    true
                };
                let cursor = (offset == 0 && !extra && view.modes.show_cursor && blink_on)
                    .then_some((view.cursor, view.cursor_shape));
                let scene = Scene {
                    rows: &shown,
                    cursor,
                    selected: &selected,
                    any_selected: viewport.selection.is_some(),
                    scroll: (total, offset),
                };
                let style = render::Style {
                    metrics: &m,
                    palette: &view.palette,
                    theme: &sh.theme,
                    focused,
                };
                render::paint(
                    &painter,
                    &mut sh.glyphs,
                    &mut self.rows,
                    draw_rect,
                    &scene,
                    &style,
                );
            }
            None => {
                painter.rect_filled(rect, 0.0, super::theme::rgb(sh.palette.background()));
            }
        }
        // Search: highlight the matches in view, draw the bar, show the chosen match.
        if let (Some(bar), Some(view)) = (self.search.as_ref(), self.view.as_ref())
            && let Some(results) = &bar.results
        {
            // Results are in absolute lines, like the view's rows.
            let first_line = (view.scrollback_dropped + view.scrollback_lines) as isize
                - self.viewport.offset as isize;
            for (i, hit) in results.matches.iter().enumerate() {
                let row = hit.line as isize - first_line;
                if row < 0 || row >= view.rows.len() as isize {
                    continue;
                }
                let r = egui::Rect::from_min_size(
                    rect.min + egui::vec2(hit.cols.start as f32 * m.cell.x, row as f32 * m.cell.y),
                    egui::vec2(hit.cols.len() as f32 * m.cell.x, m.cell.y),
                );
                let color = if i == bar.current {
                    egui::Color32::from_rgba_unmultiplied(255, 140, 0, 110)
                } else {
                    egui::Color32::from_rgba_unmultiplied(255, 220, 0, 70)
                };
                painter.rect_filled(r, 0.0, color);
            }
        }
        if let Some(mut bar) = self.search.take() {
            match bar.ui(&ctx, rect, &self.pipeline, pane) {
                SearchAction::Close => {}
                SearchAction::None => self.search = Some(bar),
                SearchAction::Show(i) => {
                    if let (Some(hit), Some(view)) = (
                        bar.results.as_ref().and_then(|r| r.matches.get(i)),
                        &self.view,
                    ) {
                        let total = view.scrollback_lines as usize;
                        // The match's index in the scrollback now (lines may have dropped).
                        let line = hit.line.saturating_sub(view.scrollback_dropped as usize);
                        let rows = view.rows.len();
                        // Put the match in the middle of the window when history allows.
                        self.viewport.offset = if line >= total {
                            0
                        } else {
                            (total - line + rows / 2).min(total)
                        };
                    }
                    self.search = Some(bar);
                }
            }
        }
        // Input methods compose at the cursor.
        if focused
            && super::app::ime_configured()
            && let Some(v) = &self.view
        {
            let cursor_rect = egui::Rect::from_min_size(
                rect.min
                    + egui::vec2(
                        v.cursor.col as f32 * m.cell.x,
                        v.cursor.row as f32 * m.cell.y,
                    ),
                m.cell,
            );
            ctx.output_mut(|o| {
                o.ime = Some(egui::output::IMEOutput {
                    purpose: egui::IMEPurpose::Terminal,
                    rect,
                    cursor_rect,
                    should_interrupt_composition: false,
                })
            });
        }
        // A link under the pointer: underlined, its target in a tooltip, Ctrl+click opens.
        let hover = ctx
            .input(|i| i.pointer.hover_pos())
            .filter(|p| rect.contains(*p));
        if let Some(pos) = hover {
            let (row, col) = self.cell_at(pos, rect, &m);
            if let Some((cells, uri)) = self.link_at_cell(row, col) {
                let y = rect.top() + (row + 1) as f32 * m.cell.y - 1.0;
                let x0 = rect.left() + cells.start as f32 * m.cell.x;
                let x1 = rect.left() + cells.end as f32 * m.cell.x;
                painter.hline(
                    x0..=x1,
                    y,
                    egui::Stroke::new(1.0, egui::Color32::from_rgb(120, 170, 255)),
                );
                response
                    .clone()
                    .on_hover_text_at_pointer(format!("{uri}\nCtrl+click to open"));
            }
        }
        if let Some(msg) = self.exited.as_ref() {
            painter.text(
                rect.left_bottom(),
                egui::Align2::LEFT_BOTTOM,
                msg,
                m.font.clone(),
                egui::Color32::LIGHT_RED,
            );
        }
        // Trace: keys whose echo this frame shows.
        let now = Instant::now();
        if sh.trace.enabled()
            && let Some(v) = &self.view
        {
            let seq = v.seq;
            let (shown, waiting): (Vec<_>, Vec<_>) = self
                .pending_keys
                .drain(..)
                .partition(|(before, _)| seq > *before);
            for (_, received) in shown {
                let extra = format!(
                    "\"received_us\":{},\"latency_us\":{}",
                    super::trace::since_start_us(received),
                    now.duration_since(received).as_micros()
                );
                sh.trace.event_at("key_echo_frame", now, &extra);
            }
            self.pending_keys = waiting;
        } else {
            self.pending_keys.clear();
        }
        out
    }
}
