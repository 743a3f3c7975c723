//! The eframe app: one pane running the user's shell (tabs, splits and worktrees come
//! with the workspace). Deliveries from the model become a `PaneView`; keys go straight
//! to the pty writer.

use std::sync::Arc;
use std::time::Instant;

use egui::{FontData, FontDefinitions, FontFamily, FontId, Sense, vec2};
use tern_core::input::{
    Key, KeyModes, MouseButton, MouseEvent, MouseEventKind, encode_focus, encode_key, encode_mouse,
    encode_paste,
};
use tern_core::model::{MouseTracking, Row};
use tern_core::model::{Palette, TermSize};
use tern_core::pipeline::delivery::{Delivery, PaneView};
use tern_core::pipeline::{PaneEvent, PaneId, Pipeline, PipelineConfig, SpawnSpec};

use super::glyphs::GlyphCache;
use super::input;
use super::render::{self, Metrics, Scene};
use super::search::{SearchAction, SearchBar};
use super::theme::Theme;
use super::trace::Trace;
use super::viewport::{Point, SelectMode, Viewport};

pub const DEFAULT_FONT_SIZE: f32 = 15.0;
const FONT_NAME: &str = "tern-mono";
const BOLD_FONT_NAME: &str = "tern-mono-bold";
/// System fonts tried as fallbacks for wide scripts (colour emoji fonts are not: egui's
/// glyph atlas here is monochrome, so their glyphs would come out blank).
const SYSTEM_FALLBACKS: &[(&str, &[&str])] = &[(
    "system-cjk",
    &[
        "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
        "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
        "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
        "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
        "/System/Library/Fonts/PingFang.ttc",
    ],
)];

/// The font families for bold, italic and bold italic text.
pub const BOLD_FAMILY: &str = "tern-bold";
pub const ITALIC_FAMILY: &str = "tern-italic";
pub const BOLD_ITALIC_FAMILY: &str = "tern-bold-italic";

/// The bundled faces: (font name, family for that face, bytes).
const FACES: [(&str, Option<&str>, &[u8]); 4] = [
    (
        FONT_NAME,
        None,
        include_bytes!("../../../assets/fonts/DejaVuSansMono.ttf"),
    ),
    (
        BOLD_FONT_NAME,
        Some(BOLD_FAMILY),
        include_bytes!("../../../assets/fonts/DejaVuSansMono-Bold.ttf"),
    ),
    (
        "tern-mono-italic",
        Some(ITALIC_FAMILY),
        include_bytes!("../../../assets/fonts/DejaVuSansMono-Oblique.ttf"),
    ),
    (
        "tern-mono-bold-italic",
        Some(BOLD_ITALIC_FAMILY),
        include_bytes!("../../../assets/fonts/DejaVuSansMono-BoldOblique.ttf"),
    ),
];

/// Installs the bundled monospace faces first, then system fallbacks for wide scripts,
/// then egui's own fonts.
pub fn install_fonts(ctx: &egui::Context) {
    let mut fonts = FontDefinitions::default();
    let egui_fallbacks = fonts
        .families
        .get(&FontFamily::Monospace)
        .cloned()
        .unwrap_or_default();
    // Wide scripts come from the system's fonts when it has them (they are too large to
    // bundle): the first of each list that exists is added as a fallback.
    let mut system: Vec<String> = Vec::new();
    for (name, candidates) in SYSTEM_FALLBACKS {
        let Some(bytes) = candidates.iter().find_map(|p| std::fs::read(p).ok()) else {
            continue;
        };
        fonts
            .font_data
            .insert((*name).to_owned(), Arc::new(FontData::from_owned(bytes)));
        system.push((*name).to_owned());
    }
    for (name, family, bytes) in FACES {
        fonts
            .font_data
            .insert(name.to_owned(), Arc::new(FontData::from_static(bytes)));
        // Each face falls back to the regular face, the system fonts, then egui's.
        let mut chain = vec![name.to_owned()];
        if name != FONT_NAME {
            chain.push(FONT_NAME.to_owned());
        }
        chain.extend(system.iter().cloned());
        chain.extend(egui_fallbacks.iter().cloned());
        let family = match family {
            None => FontFamily::Monospace,
            Some(f) => FontFamily::Name(f.into()),
        };
        fonts.families.insert(family, chain);
    }
    ctx.set_fonts(fonts);
}

/// Whether an input method is set up (X11: `XMODIFIERS=@im=...`; Wayland's text input
/// is always there; `TERN_IME=1` forces it on, `TERN_IME=0` off). On X11 without an
/// input method server, asking winit for IME makes key events slow to arrive.
fn ime_configured() -> bool {
    static CONFIGURED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *CONFIGURED.get_or_init(|| match std::env::var("TERN_IME").as_deref() {
        Ok("1") => true,
        Ok("0") => false,
        _ => {
            let xim = std::env::var("XMODIFIERS")
                .is_ok_and(|m| m.contains("@im=") && !m.contains("@im=none"));
            xim || std::env::var_os("WAYLAND_DISPLAY").is_some()
        }
    })
}

/// What the app was asked to start.
#[derive(Clone, Debug, Default)]
pub struct Launch {
    pub spec: SpawnSpec,
}

pub struct TernApp {
    pipeline: Arc<Pipeline>,
    pane: Option<PaneId>,
    spawn_error: Option<String>,
    view: Option<PaneView>,
    grid: Option<TermSize>,
    pub font_size: f32,
    palette: Palette,
    theme: Theme,
    focused: bool,
    exited: Option<String>,
    title: String,
    trace: Trace,
    first_frame_traced: bool,
    first_output_traced: bool,
    /// Keys waiting for the frame that shows their echo: (seq before, received at).
    pending_keys: Vec<(u64, Instant)>,
    viewport: Viewport,
    /// Mouse button held for selection or reporting.
    dragging: Option<MouseButton>,
    /// Fractional wheel lines not yet scrolled.
    wheel_rest: f32,
    glyphs: GlyphCache,
    /// A multi-line paste waiting for the user's go-ahead (the program did not turn on
    /// bracketed paste, so each line would run as typed).
    pending_paste: Option<String>,
    /// When the user last typed: the blinking cursor restarts its phase (shown) then.
    last_key_at: Instant,
    search: Option<SearchBar>,
    /// The selection as last checked: what it was, at which `seq`, and its text.
    selection_guard: Option<(super::viewport::Selection, u64, String)>,
    /// The diagnostics panel (Ctrl+Shift+G) and the frame time histogram.
    diagnostics: super::diagnostics::Diagnostics,
}

impl TernApp {
    pub fn new(ctx: &egui::Context, launch: Launch) -> TernApp {
        install_fonts(ctx);
        // Zoom and quit keys are tern's to handle (Ctrl+=/-/0), or the program's.
        ctx.options_mut(|o| {
            o.zoom_with_keyboard = false;
            o.quit_shortcuts.clear();
        });
        let mut trace = Trace::from_env();
        trace.event("window_created", "");
        let repaint = ctx.clone();
        let config = PipelineConfig {
            default_size: launch.spec.size.unwrap_or(TermSize::new(80, 24)),
            ..PipelineConfig::default()
        };
        let pipeline = Pipeline::start(config, Arc::new(move || repaint.request_repaint()))
            .map(Arc::new)
            .unwrap_or_else(|e| panic!("cannot start the pipeline: {e}"));
        let (pane, spawn_error) = match pipeline.spawn(&launch.spec) {
            Ok(p) => {
                pipeline.set_visible(p, true);
                pipeline.set_focus(Some(p));
                (Some(p), None)
            }
            Err(e) => (None, Some(e.to_string())),
        };
        TernApp {
            pipeline,
            pane,
            spawn_error,
            view: None,
            grid: launch.spec.size,
            font_size: DEFAULT_FONT_SIZE,
            palette: Palette::default(),
            theme: Theme::default(),
            focused: true,
            exited: None,
            title: "tern".into(),
            trace,
            first_frame_traced: false,
            first_output_traced: false,
            pending_keys: Vec::new(),
            viewport: Viewport::default(),
            dragging: None,
            wheel_rest: 0.0,
            glyphs: GlyphCache::default(),
            pending_paste: None,
            last_key_at: Instant::now(),
            search: None,
            selection_guard: None,
            diagnostics: super::diagnostics::Diagnostics::new(
                &format!("DejaVu Sans Mono (bundled), {DEFAULT_FONT_SIZE} pt"),
                super::diagnostics::default_config_path(),
            ),
        }
    }

    /// The diagnostics panel: the command palette calls `toggle` on it.
    pub fn diagnostics_mut(&mut self) -> &mut super::diagnostics::Diagnostics {
        &mut self.diagnostics
    }

    pub fn diagnostics(&self) -> &super::diagnostics::Diagnostics {
        &self.diagnostics
    }

    pub fn pane(&self) -> Option<PaneId> {
        self.pane
    }

    pub fn view(&self) -> Option<&PaneView> {
        self.view.as_ref()
    }

    pub fn pipeline(&self) -> &Arc<Pipeline> {
        &self.pipeline
    }

    pub fn scroll_offset(&self) -> usize {
        self.viewport.offset
    }

    /// The rows the window shows now (history lines when scrolled up).
    pub fn shown_rows(&mut self) -> Vec<String> {
        let (Some(pane), Some(view)) = (self.pane, self.view.as_ref()) else {
            return Vec::new();
        };
        self.viewport.refresh(&self.pipeline, pane, view);
        self.viewport
            .rows(view)
            .iter()
            .map(|r| r.text().trim_end().to_owned())
            .collect()
    }

    /// The selected text, if any.
    pub fn selection_text(&self) -> Option<String> {
        let (pane, view) = (self.pane?, self.view.as_ref()?);
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

    pub fn exited(&self) -> Option<&str> {
        self.exited.as_deref()
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

    /// Takes what the model delivered and the facts it reported.
    fn poll(&mut self, ctx: &egui::Context) {
        for event in self.pipeline.poll_events() {
            match event {
                PaneEvent::Fact {
                    event: tern_core::model::TermEvent::Title(t),
                    ..
                } => {
                    self.title = if t.is_empty() { "tern".into() } else { t };
                    ctx.send_viewport_cmd(egui::ViewportCommand::Title(self.title.clone()));
                }
                PaneEvent::Exited { exit, .. } => {
                    self.exited = Some(format!("[process exited with {exit}]"));
                }
                PaneEvent::Error { message, .. } => {
                    self.exited = Some(format!("[error: {message}]"))
                }
                _ => {}
            }
        }
        let Some(pane) = self.pane else { return };
        while let Some(d) = self.pipeline.take(pane) {
            // The shell's first output may arrive in a frame or already in the snapshot.
            let (seq, read_at, built_at) = match &d {
                Delivery::Frame(f) => (f.seq, f.read_at, f.built_at),
                Delivery::Snapshot(sn) => (sn.seq, None, sn.built_at),
            };
            if seq > 0 && !self.first_output_traced {
                self.first_output_traced = true;
                if let Some(read_at) = read_at {
                    self.trace.event_at("first_output_read", read_at, "");
                }
                self.trace
                    .event_at("first_output_frame_built", built_at, "");
            }
            PaneView::apply_delivery(&mut self.view, d);
        }
    }

    /// The hyperlink (OSC 8, or a URL in the text) at a cell of what the window shows.
    pub fn link_at_cell(
        &mut self,
        row: usize,
        col: usize,
    ) -> Option<(std::ops::Range<usize>, String)> {
        let (pane, view) = (self.pane?, self.view.as_ref()?);
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
    ) {
        let Some(pane) = self.pane else { return };
        let modes = self.view.as_ref().map(|v| v.modes).unwrap_or_default();
        let key_modes = KeyModes::from_modes(&modes);
        let events = ctx.input(|i| i.events.clone());
        let seq = self.view.as_ref().map_or(0, |v| v.seq);
        let rows = self.grid.map_or(24, |g| g.rows) as isize;
        for event in events {
            match event {
                egui::Event::Key {
                    key,
                    pressed: true,
                    modifiers,
                    ..
                } => {
                    if modifiers.ctrl && modifiers.shift {
                        // Ctrl+Shift combinations are tern's own shortcuts.
                        match key {
                            egui::Key::V => {
                                ctx.send_viewport_cmd(egui::ViewportCommand::RequestPaste)
                            }
                            egui::Key::C => {
                                if let Some(text) = self.selection_text() {
                                    ctx.copy_text(text);
                                }
                            }
                            egui::Key::Home => {
                                if let Some(v) = &self.view {
                                    self.viewport.offset = v.scrollback_lines as usize;
                                }
                            }
                            egui::Key::End => self.viewport.to_bottom(),
                            egui::Key::F => self.search = Some(SearchBar::new()),
                            _ => {}
                        }
                        continue;
                    }
                    if modifiers.shift
                        && !modifiers.ctrl
                        && matches!(key, egui::Key::PageUp | egui::Key::PageDown)
                    {
                        if let Some(v) = &self.view {
                            let page = if key == egui::Key::PageUp {
                                rows - 1
                            } else {
                                1 - rows
                            };
                            self.viewport.scroll_by(page, v);
                        }
                        continue;
                    }
                    if modifiers.ctrl
                        && !modifiers.shift
                        && matches!(key, egui::Key::Equals | egui::Key::Plus)
                    {
                        self.font_size = (self.font_size + 1.0).min(72.0);
                        continue;
                    }
                    if modifiers.ctrl && !modifiers.shift && key == egui::Key::Minus {
                        self.font_size = (self.font_size - 1.0).max(6.0);
                        continue;
                    }
                    if modifiers.ctrl && !modifiers.shift && key == egui::Key::Num0 {
                        self.font_size = DEFAULT_FONT_SIZE;
                        continue;
                    }
                    if input::is_text_key(key, modifiers) {
                        continue; // its text arrives as a text event
                    }
                    if let Some(k) = input::key(key)
                        && let Some(bytes) = encode_key(k, input::mods(modifiers), key_modes)
                    {
                        self.write_key_bytes(pane, &bytes, seq);
                    }
                }
                egui::Event::Text(text) => self.write_key_bytes(pane, text.as_bytes(), seq),
                // Composed text from an input method (the preedit is the IME's to show).
                egui::Event::Ime(egui::ImeEvent::Commit(text)) => {
                    self.write_key_bytes(pane, text.as_bytes(), seq)
                }
                egui::Event::Paste(text) => {
                    if !modes.bracketed_paste && tern_core::input::paste::is_multiline(&text) {
                        self.pending_paste = Some(text);
                    } else {
                        self.pipeline
                            .write(pane, &encode_paste(&text, modes.bracketed_paste));
                        self.viewport.to_bottom();
                    }
                }
                egui::Event::WindowFocused(focused) => {
                    self.focused = focused;
                    if modes.focus_events {
                        self.pipeline.write(pane, encode_focus(focused));
                    }
                }
                egui::Event::PointerButton {
                    pos,
                    button,
                    pressed,
                    modifiers,
                } if rect.contains(pos) || !pressed => {
                    let (row, col) = self.cell_at(pos, rect, m);
                    let b = match button {
                        egui::PointerButton::Primary => MouseButton::Left,
                        egui::PointerButton::Middle => MouseButton::Middle,
                        egui::PointerButton::Secondary => MouseButton::Right,
                        _ => continue,
                    };
                    self.dragging = if pressed { Some(b) } else { None };
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
                            } else {
                                self.viewport.start_selection(at, SelectMode::Cells, v.seq);
                            }
                        }
                    } else if pressed && b == MouseButton::Middle {
                        ctx.send_viewport_cmd(egui::ViewportCommand::RequestPaste);
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
                } => {
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
            if go && let Some(pane) = self.pane {
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

    /// One frame of the window.
    pub fn frame(&mut self, ui: &mut egui::Ui) {
        let frame_started = Instant::now();
        let ctx = ui.ctx().clone();
        self.poll(&ctx);
        if let Some(v) = &self.view {
            self.viewport.on_content(v);
        }
        self.check_selection();
        let m = self.metrics(&ctx);
        let rect = ui.available_rect_before_wrap();
        let response = ui.allocate_rect(rect, Sense::click_and_drag());
        // The terminal holds keyboard focus unless the search bar is open.
        if self.search.is_none() {
            response.request_focus();
        }
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
            n.set_label("terminal");
        });
        if self.pending_paste.is_some() {
            self.confirm_paste(&ctx);
        } else if self.search.is_some() {
            // Keys go to the search bar while it is open.
        } else {
            self.handle_input(&ctx, rect, &m, &response);
        }
        let cols = ((rect.width() / m.cell.x).floor() as usize).max(2);
        let rows = ((rect.height() / m.cell.y).floor() as usize).max(1);
        let size = TermSize::new(cols, rows);
        if self.grid != Some(size)
            && let Some(pane) = self.pane
        {
            self.grid = Some(size);
            self.pipeline.resize(pane, size);
        }
        let painter = ui.painter_at(rect);
        match (&self.view, self.pane) {
            (Some(view), Some(pane)) => {
                let offset = self.viewport.offset;
                let total = view.scrollback_lines;
                let first_line =
                    (view.scrollback_dropped as usize + total as usize).saturating_sub(offset);
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
                let blink_on = if view.modes.cursor_blink && self.focused {
                    let ms = self.last_key_at.elapsed().as_millis();
                    ctx.request_repaint_after(std::time::Duration::from_millis(
                        (BLINK_MS - ms % BLINK_MS) as u64,
                    ));
                    (ms / BLINK_MS) % 2 == 0
                } else {
                    true
                };
                let cursor = (offset == 0 && view.modes.show_cursor && blink_on)
                    .then_some((view.cursor, view.cursor_shape));
                let scene = Scene {
                    rows: &shown,
                    cursor,
                    selected: &selected,
                    scroll: (total, offset),
                };
                let style = render::Style {
                    metrics: &m,
                    palette: &view.palette,
                    theme: &self.theme,
                    focused: self.focused,
                };
                render::paint(&painter, &mut self.glyphs, rect, &scene, &style);
            }
            _ => {
                painter.rect_filled(rect, 0.0, super::theme::rgb(self.palette.background()));
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
        if let (Some(pane), Some(mut bar)) = (self.pane, self.search.take()) {
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
        if self.focused
            && ime_configured()
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
        if let Some(msg) = self.exited.as_ref().or(self.spawn_error.as_ref()) {
            painter.text(
                rect.left_bottom(),
                egui::Align2::LEFT_BOTTOM,
                msg,
                m.font.clone(),
                egui::Color32::LIGHT_RED,
            );
        }
        // Trace: first frame, and keys whose echo this frame shows.
        let now = Instant::now();
        if !self.first_frame_traced {
            self.first_frame_traced = true;
            self.trace.event_at("first_frame", now, "");
        }
        if self.trace.enabled()
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
                self.trace.event_at("key_echo_frame", now, &extra);
            }
            self.pending_keys = waiting;
        } else {
            self.pending_keys.clear();
        }
        // ---- diagnostics panel (issue 7): frame time, Ctrl+Shift+G, jump to a pane ----
        self.diagnostics.record_frame(frame_started.elapsed());
        let (main, title) = (self.pane, &self.title);
        let labels = |p: PaneId| {
            if Some(p) == main {
                tern_core::diagnostics::PaneLabel {
                    worktree: "(no worktrees yet)".into(),
                    tab: "tab 1".into(),
                    pane: title.clone(),
                    id: None,
                }
            } else {
                tern_core::diagnostics::PaneLabel::unplaced(p)
            }
        };
        if let Some(jump) = self.diagnostics.show(&ctx, &self.pipeline, &labels)
            && Some(jump) == self.pane
        {
            self.pipeline.set_focus(Some(jump));
        }
        // ---- end diagnostics panel ----
    }
}

impl eframe::App for TernApp {
    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        self.diagnostics.note_frame(frame);
        egui::CentralPanel::default()
            .frame(egui::Frame::NONE)
            .show(ui, |ui| self.frame(ui));
    }
}
