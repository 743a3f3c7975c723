//! "Export report": a redacted RON report through rfd's save dialog (on a worker thread,
//! so the window never blocks), or straight to the default place when no dialog can be
//! shown; "Copy report" puts the same RON on the clipboard.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, TryRecvError};

use tern_core::diagnostics::{DiagnosticsReport, default_report_path, write_report};

/// What the last export did, shown under the buttons.
#[derive(Default)]
pub struct Export {
    /// A save dialog is open on a worker thread.
    pending: Option<Receiver<Outcome>>,
    status: Option<String>,
    /// A report kept after the dialog was cancelled, for "save to the default place".
    cancelled: Option<DiagnosticsReport>,
}

enum Outcome {
    Written(PathBuf),
    /// No file chosen: the user cancelled, or no dialog could be shown.
    NoFile(Box<DiagnosticsReport>),
    Failed(String),
}

/// Whether a save dialog can appear: rfd uses the XDG desktop portal (over the session
/// D-Bus) and falls back to zenity; with neither it returns `None` at once.
pub(crate) fn dialog_possible() -> bool {
    if !cfg!(target_os = "linux") {
        return true;
    }
    let bus = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some()
        || std::env::var_os("XDG_RUNTIME_DIR")
            .is_some_and(|d| PathBuf::from(d).join("bus").exists());
    let zenity = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join("zenity").is_file()));
    bus || zenity
}

fn written(path: &std::path::Path) -> String {
    format!(
        "Report written to {}",
        tern_core::diagnostics::Redactor::from_env().path(path)
    )
}

impl Export {
    /// The buttons and the status line. `make` builds the (redacted) report when a
    /// button is clicked.
    pub fn ui(&mut self, ui: &mut egui::Ui, make: impl Fn() -> DiagnosticsReport) {
        self.poll();
        ui.horizontal_wrapped(|ui| {
            let busy = self.pending.is_some();
            if ui
                .add_enabled(!busy, egui::Button::new("Export report…"))
                .on_hover_text("Save the whole report as RON (pane ids and home paths shortened)")
                .clicked()
            {
                self.start(make());
            }
            if ui
                .button("Copy report")
                .on_hover_text("Copy the same RON to the clipboard")
                .clicked()
            {
                match make().to_ron() {
                    Ok(text) => {
                        ui.ctx().copy_text(text);
                        self.status = Some("Report copied to the clipboard".into());
                    }
                    Err(e) => self.status = Some(e),
                }
            }
            if busy {
                ui.spinner();
                ui.label("waiting for the save dialog…");
                ui.ctx()
                    .request_repaint_after(std::time::Duration::from_millis(100));
            }
            if let Some(report) = self.cancelled.clone() {
                let default = default_report_path(report.created_unix_s);
                if ui
                    .button(format!(
                        "Save to {}",
                        tern_core::diagnostics::Redactor::from_env().path(&default)
                    ))
                    .clicked()
                {
                    self.cancelled = None;
                    self.status = Some(match write_report(&report, None) {
                        Ok(p) => written(&p),
                        Err(e) => e,
                    });
                }
            }
            if let Some(s) = &self.status {
                ui.label(s);
            }
        });
    }

    fn start(&mut self, report: DiagnosticsReport) {
        self.cancelled = None;
        if !dialog_possible() {
            self.status = Some(match write_report(&report, None) {
                Ok(p) => format!("No save dialog on this system. {}", written(&p)),
                Err(e) => e,
            });
            return;
        }
        let (tx, rx) = mpsc::channel();
        let name = format!("tern-diagnostics-{}.ron", report.created_unix_s);
        let spawned = std::thread::Builder::new()
            .name("tern-export".into())
            .spawn(move || {
                let chosen = rfd::FileDialog::new()
                    .set_title("Export tern diagnostics report")
                    .set_file_name(name)
                    .add_filter("RON", &["ron"])
                    .save_file();
                let outcome = match chosen {
                    Some(path) => match write_report(&report, Some(&path)) {
                        Ok(p) => Outcome::Written(p),
                        Err(e) => Outcome::Failed(e),
                    },
                    None => Outcome::NoFile(Box::new(report)),
                };
                let _ = tx.send(outcome);
            });
        match spawned {
            Ok(_) => {
                self.pending = Some(rx);
                self.status = None;
            }
            Err(e) => self.status = Some(format!("cannot open the save dialog: {e}")),
        }
    }

    fn poll(&mut self) {
        let Some(rx) = &self.pending else { return };
        let outcome = match rx.try_recv() {
            Ok(o) => o,
            Err(TryRecvError::Empty) => return,
            Err(TryRecvError::Disconnected) => Outcome::Failed("the save dialog failed".into()),
        };
        self.pending = None;
        match outcome {
            Outcome::Written(p) => self.status = Some(written(&p)),
            Outcome::Failed(e) => self.status = Some(e),
            Outcome::NoFile(report) => {
                self.status = Some("No file chosen (or no dialog could be shown).".into());
                self.cancelled = Some(*report);
            }
        }
    }
}
