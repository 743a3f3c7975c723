//! The eframe app: one pane running the user's shell (tabs, splits and worktrees come
//! with the workspace). Deliveries from the model become a `PaneView`; keys go straight
//! to the pty writer.

use std::sync::Arc;
use std::time::Instant;

use egui::{FontData, FontDefinitions, FontFamily, FontId, Sense, vec2};
use tern_core::input::{KeyModes, encode_focus, encode_key, encode_paste};
use tern_core::model::{Palette, TermSize};
use tern_core::pipeline::delivery::{Delivery, PaneView};
use tern_core::pipeline::{PaneEvent, PaneId, Pipeline, PipelineConfig, SpawnSpec};

use super::input;
use super::render::{self, Metrics};
use super::theme::Theme;
use super::trace::Trace;

pub const DEFAULT_FONT_SIZE: f32 = 15.0;
const FONT_NAME: &str = "tern-mono";

/// Installs the bundled monospace font first, egui's fonts as fallbacks (emoji, CJK).
pub fn install_fonts(ctx: &egui::Context) {
    let mut fonts = FontDefinitions::default();
    fonts.font_data.insert(
        FONT_NAME.to_owned(),
        Arc::new(FontData::from_static(include_bytes!(
            "../../../assets/fonts/DejaVuSansMono.ttf"
        ))),
    );
    if let Some(mono) = fonts.families.get_mut(&FontFamily::Monospace) {
        mono.insert(0, FONT_NAME.to_owned());
    }
    ctx.set_fonts(fonts);
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
        }
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
            if let Delivery::Frame(f) = &d
                && f.seq > 0
                && !self.first_output_traced
            {
                self.first_output_traced = true;
                if let Some(read_at) = f.read_at {
                    self.trace.event_at("first_output_read", read_at, "");
                }
                self.trace
                    .event_at("first_output_frame_built", f.built_at, "");
            }
            PaneView::apply_delivery(&mut self.view, d);
        }
    }

    fn handle_input(&mut self, ctx: &egui::Context) {
        let Some(pane) = self.pane else { return };
        let modes = self.view.as_ref().map(|v| v.modes).unwrap_or_default();
        let key_modes = KeyModes::from_modes(&modes);
        let events = ctx.input(|i| i.events.clone());
        let seq = self.view.as_ref().map_or(0, |v| v.seq);
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
                        if key == egui::Key::V {
                            ctx.send_viewport_cmd(egui::ViewportCommand::RequestPaste);
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
                        self.pipeline.write(pane, &bytes);
                        self.pending_keys.push((seq, Instant::now()));
                    }
                }
                egui::Event::Text(text) => {
                    self.pipeline.write(pane, text.as_bytes());
                    self.pending_keys.push((seq, Instant::now()));
                }
                egui::Event::Paste(text) => {
                    self.pipeline
                        .write(pane, &encode_paste(&text, modes.bracketed_paste));
                }
                egui::Event::WindowFocused(focused) => {
                    self.focused = focused;
                    if modes.focus_events {
                        self.pipeline.write(pane, encode_focus(focused));
                    }
                }
                _ => {}
            }
        }
    }

    /// One frame of the window.
    pub fn frame(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        self.poll(&ctx);
        self.handle_input(&ctx);
        let m = self.metrics(&ctx);
        let rect = ui.available_rect_before_wrap();
        let response = ui.allocate_rect(rect, Sense::click_and_drag());
        response.request_focus();
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
        match &self.view {
            Some(view) => render::paint(
                &painter,
                rect,
                view,
                &m,
                &self.palette,
                &self.theme,
                self.focused,
            ),
            None => {
                painter.rect_filled(rect, 0.0, super::theme::rgb(self.palette.background()));
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
    }
}

impl eframe::App for TernApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        egui::CentralPanel::default()
            .frame(egui::Frame::NONE)
            .show(ui, |ui| self.frame(ui));
    }
}
