//! The diagnostics panel (Ctrl+Shift+G): the per-pty delivery table, plots of the last
//! minute, latency histograms, the breadcrumb ring, the environment, and the report
//! export.
//!
//! Closed, it costs the window one histogram record per frame ([`Diagnostics::record_frame`])
//! and a key check; everything else is read from counters the pipeline keeps anyway and
//! built only while the panel is open.
//!
//! The app owns one [`Diagnostics`] and, each frame:
//!
//! ```ignore
//! diagnostics.record_frame(frame_started.elapsed());
//! if let Some(pane) = diagnostics.show(ctx, &pipeline, &|p| label_of(p)) {
//!     focus(pane); // a row was clicked
//! }
//! ```
//!
//! The command table's `diagnostics` command (Ctrl+Shift+G) calls [`Diagnostics::toggle`].

mod export;
pub(crate) use export::dialog_possible;
mod format;
mod plots;
mod table;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use tern_core::diagnostics::{
    AdapterInfo, DiagnosticsReport, Environment, PaneLabel, Redactor, ReportInputs,
};
use tern_core::pipeline::diag::Histogram;
use tern_core::pipeline::{PaneId, Pipeline};

pub use table::{Column, Sort};

/// The panel's state and the window-side counters it shows.
pub struct Diagnostics {
    open: bool,
    /// The window's frame build time, recorded every frame (open or not).
    frame_times: Histogram,
    /// The panel's own build time, recorded while it is open.
    panel_times: Histogram,
    last_panel_build: Duration,
    environment: Environment,
    adapter_known: bool,
    sort: Sort,
    export: export::Export,
    /// Bells and notifications handed to the desktop notifier, and the calls it made
    /// to the notification server (the core's counts, set by the app each frame).
    notifications: (u64, u64),
}

impl Diagnostics {
    /// `font` and `config_path` go to the environment section as given.
    pub fn new(font: &str, config_path: Option<PathBuf>) -> Diagnostics {
        let mut environment = Environment::current("window");
        environment.font = Some(font.to_owned());
        environment.config_path = config_path.map(|p| {
            let shown = p.display().to_string();
            if p.exists() {
                shown
            } else {
                format!("{shown} (not present)")
            }
        });
        Diagnostics {
            open: false,
            frame_times: Histogram::default(),
            panel_times: Histogram::default(),
            last_panel_build: Duration::ZERO,
            environment,
            adapter_known: false,
            sort: Sort::default(),
            export: export::Export::default(),
            notifications: (0, 0),
        }
    }

    pub fn is_open(&self) -> bool {
        self.open
    }

    pub fn set_open(&mut self, open: bool) {
        self.open = open;
    }

    /// Opens or closes the panel (the command palette's action).
    pub fn toggle(&mut self) {
        self.open = !self.open;
    }

    /// The desktop notifications so far: handed to the notifier, and the calls it made
    /// to the notification server (shown in the panel's first line).
    pub fn set_notifications(&mut self, handed: u64, calls: u64) {
        self.notifications = (handed, calls);
    }

    /// The window's frame build time: one lock-free histogram record.
    pub fn record_frame(&self, took: Duration) {
        self.frame_times.record(took);
    }

    pub fn frame_times(&self) -> &Histogram {
        &self.frame_times
    }

    /// How long the panel took to build, each frame it was open.
    pub fn panel_build_times(&self) -> &Histogram {
        &self.panel_times
    }

    /// Records the wgpu adapter the first time eframe has one (call from
    /// `eframe::App::ui` with its `Frame`).
    pub fn note_frame(&mut self, frame: &eframe::Frame) {
        if self.adapter_known {
            return;
        }
        self.adapter_known = true;
        if let Some(rs) = frame.wgpu_render_state() {
            let info = rs.adapter.get_info();
            self.set_adapter(AdapterInfo {
                software: AdapterInfo::is_software(&info.name, &format!("{:?}", info.device_type)),
                name: info.name,
                backend: format!("{:?}", info.backend),
                device_type: format!("{:?}", info.device_type),
                driver: info.driver,
                driver_info: info.driver_info,
            });
        }
    }

    pub fn set_adapter(&mut self, adapter: AdapterInfo) {
        self.adapter_known = true;
        self.environment.adapter = Some(adapter);
    }

    pub fn environment(&self) -> &Environment {
        &self.environment
    }

    /// The report as the panel shows it (not redacted).
    pub fn report(
        &self,
        pipeline: &Pipeline,
        labels: &dyn Fn(PaneId) -> PaneLabel,
    ) -> DiagnosticsReport {
        let mut environment = self.environment.clone();
        environment.missing_glyph_chars = crate::window::glyphs::system_fonts::SystemFonts::open()
            .map_or(0, |f| f.missing_chars());
        collect(pipeline, labels, &environment, &self.frame_times)
    }

    /// Draws the panel as a window if it is open (the command table's Ctrl+Shift+G
    /// toggles it). Returns the pane whose row was clicked (the app focuses it).
    #[must_use = "what the panel asks for happens only when applied"]
    pub fn show(
        &mut self,
        ctx: &egui::Context,
        pipeline: &Pipeline,
        labels: &dyn Fn(PaneId) -> PaneLabel,
    ) -> Option<PaneId> {
        if !self.open {
            return None;
        }
        let mut open = true;
        let mut clicked = None;
        egui::Window::new("Diagnostics")
            .open(&mut open)
            .default_size([960.0, 640.0])
            .vscroll(true)
            .show(ctx, |ui| clicked = self.ui(ui, pipeline, labels));
        self.open &= open;
        clicked
    }

    /// The panel's contents, for an app that hosts it somewhere other than a window.
    #[must_use = "what the panel asks for happens only when applied"]
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        pipeline: &Pipeline,
        labels: &dyn Fn(PaneId) -> PaneLabel,
    ) -> Option<PaneId> {
        let started = Instant::now();
        self.environment.pixels_per_point = Some(ui.ctx().pixels_per_point());
        let report = self.report(pipeline, labels);
        ui.horizontal_wrapped(|ui| {
            ui.label(format!(
                "tern {} · {} panes · model busy {:.0}% (last minute) · polled after replies {} ({} of {} saw input) · images {} in all · this panel {}",
                report.environment.tern_version,
                report.panes.len(),
                report.model.busy_share_last_minute * 100.0,
                format::micros(report.model.reply_poll_ns / 1000),
                report.model.reply_polls_caught,
                report.model.reply_polls,
                format::bytes(report.model.image_bytes_total),
                format::micros(self.last_panel_build.as_micros() as u64),
            ));
            let (handed, calls) = self.notifications;
            ui.label(format!(
                "desktop notifications {handed} ({calls} notification server calls)"
            ));
            if report
                .environment
                .adapter
                .as_ref()
                .is_some_and(|a| a.software)
            {
                ui.colored_label(egui::Color32::LIGHT_RED, "software renderer");
            }
        });
        let (environment, frame_times) = (&self.environment, &self.frame_times);
        self.export.ui(ui, || {
            collect(pipeline, labels, environment, frame_times).redacted(&Redactor::from_env())
        });
        ui.separator();
        let clicked = egui::CollapsingHeader::new("Delivery")
            .default_open(true)
            .show(ui, |ui| table::ui(ui, &report.panes, &mut self.sort))
            .body_returned
            .flatten();
        egui::CollapsingHeader::new("Last minute")
            .default_open(true)
            .show(ui, |ui| plots::ui(ui, &report));
        egui::CollapsingHeader::new("Breadcrumbs")
            .default_open(true)
            .show(ui, |ui| table::breadcrumbs(ui, &report));
        egui::CollapsingHeader::new("Environment")
            .default_open(true)
            .show(ui, |ui| table::environment(ui, &report.environment));
        self.last_panel_build = started.elapsed();
        self.panel_times.record(self.last_panel_build);
        // Counters move without an event to wake the window: look again soon.
        ui.ctx().request_repaint_after(Duration::from_millis(250));
        clicked
    }
}

fn collect(
    pipeline: &Pipeline,
    labels: &dyn Fn(PaneId) -> PaneLabel,
    environment: &Environment,
    frame_times: &Histogram,
) -> DiagnosticsReport {
    DiagnosticsReport::collect(
        pipeline,
        &ReportInputs {
            labels,
            environment,
            frame_times: Some(frame_times),
        },
    )
}
