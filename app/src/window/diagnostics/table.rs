//! The delivery table (sortable; a click on a pane jumps to it), the breadcrumbs and the
//! environment.

use egui::{Color32, RichText};
use tern_core::diagnostics::{DiagnosticsReport, Environment, PaneRow};
use tern_core::pipeline::PaneId;

use super::format;

/// A column of the delivery table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Column {
    #[default]
    Pane,
    State,
    Read,
    Parsed,
    InFlight,
    Window,
    Paused,
    Frames,
    Replies,
    ReplyLatency,
    LastRead,
    LastFrame,
    Scrollback,
    Memory,
    Images,
}

impl Column {
    pub const ALL: [Column; 15] = [
        Column::Pane,
        Column::State,
        Column::Read,
        Column::Parsed,
        Column::InFlight,
        Column::Window,
        Column::Paused,
        Column::Frames,
        Column::Replies,
        Column::ReplyLatency,
        Column::LastRead,
        Column::LastFrame,
        Column::Scrollback,
        Column::Memory,
        Column::Images,
    ];

    /// The header, also the second half of each cell's accessible label
    /// (`"<pane> read"`).
    pub fn title(self) -> &'static str {
        match self {
            Column::Pane => "pane",
            Column::State => "state",
            Column::Read => "read",
            Column::Parsed => "parsed",
            Column::InFlight => "in flight",
            Column::Window => "window",
            Column::Paused => "paused",
            Column::Frames => "frames built / taken",
            Column::Replies => "replies",
            Column::ReplyLatency => "reply p50 / p99",
            Column::LastRead => "last read",
            Column::LastFrame => "last frame",
            Column::Scrollback => "scrollback",
            Column::Memory => "memory",
            Column::Images => "images",
        }
    }

    fn hint(self) -> &'static str {
        match self {
            Column::Pane => "worktree / tab / pane; click a pane to jump to it",
            Column::State => "visible (frames are built) or parked (parsed, no frames)",
            Column::Read => "bytes read from the pty",
            Column::Parsed => "bytes the model has parsed",
            Column::InFlight => "read, not yet parsed (read = parsed + in flight)",
            Column::Window => {
                "the most bytes in flight before reading pauses (throttled: a hidden pane's \
                 smaller share while you type)"
            }
            Column::Paused => "paused now (window full), and times paused",
            Column::Frames => "frames and snapshots built for the window / taken by it",
            Column::Replies => "query replies the model wrote (DSR, DA, OSC colours)",
            Column::ReplyLatency => "pty read to reply written",
            Column::LastRead => "time since the last read",
            Column::LastFrame => "time since the last frame was built",
            Column::Scrollback => "scrollback lines",
            Column::Memory => "model memory of the pane",
            Column::Images => {
                "the pane's images (decoded pixels, both screens, an upload in progress), part of its memory"
            }
        }
    }

    /// The value to sort by and the raw value for accessibility.
    fn key(self, r: &PaneRow) -> Key {
        match self {
            Column::Pane => Key::Text(format!("{}\u{0}{}\u{0}{}", r.worktree, r.tab, r.label)),
            Column::State => Key::Num(r.pty.visible as u64),
            Column::Read => Key::Num(r.pty.bytes_read),
            Column::Parsed => Key::Num(r.pty.bytes_parsed),
            Column::InFlight => Key::Num(r.pty.in_flight),
            Column::Window => Key::Num(r.pty.window_bytes),
            Column::Paused => Key::Num(r.pty.times_paused),
            Column::Frames => Key::Num(r.pty.frames_built),
            Column::Replies => Key::Num(r.pty.replies_sent),
            Column::ReplyLatency => Key::Num(r.pty.reply_p99_us),
            // Never is the oldest.
            Column::LastRead => Key::Num(r.pty.last_read_age_ms.unwrap_or(u64::MAX)),
            Column::LastFrame => Key::Num(r.pty.last_frame_age_ms.unwrap_or(u64::MAX)),
            Column::Scrollback => Key::Num(r.pty.scrollback_lines),
            Column::Memory => Key::Num(r.pty.heap_bytes),
            Column::Images => Key::Num(r.pty.image_bytes),
        }
    }

    fn text(self, r: &PaneRow) -> String {
        match self {
            Column::Pane => format!("{} / {} / {}", r.worktree, r.tab, r.label),
            Column::State => if r.pty.visible { "visible" } else { "parked" }.into(),
            Column::Read => format::bytes(r.pty.bytes_read),
            Column::Parsed => format::bytes(r.pty.bytes_parsed),
            Column::InFlight => format::bytes(r.pty.in_flight),
            Column::Window if r.pty.throttled => {
                format!("{}, throttled", format::bytes(r.pty.window_bytes))
            }
            Column::Window => format::bytes(r.pty.window_bytes),
            Column::Paused => format!(
                "{}{}",
                if r.pty.paused_now { "now, " } else { "" },
                r.pty.times_paused
            ),
            Column::Frames => format!("{} / {}", r.pty.frames_built, r.pty.frames_taken),
            Column::Replies => r.pty.replies_sent.to_string(),
            Column::ReplyLatency if r.pty.replies_sent == 0 => "-".into(),
            Column::ReplyLatency => format!(
                "≤{} / ≤{}",
                format::micros(r.pty.reply_p50_us),
                format::micros(r.pty.reply_p99_us)
            ),
            Column::LastRead => format::age(r.pty.last_read_age_ms),
            Column::LastFrame => format::age(r.pty.last_frame_age_ms),
            Column::Scrollback => r.pty.scrollback_lines.to_string(),
            Column::Memory => format::bytes(r.pty.heap_bytes),
            Column::Images => format::bytes(r.pty.image_bytes),
        }
    }
}

#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Num(u64),
    Text(String),
}

impl Key {
    fn raw(&self) -> String {
        match self {
            Key::Num(n) => n.to_string(),
            Key::Text(t) => t.replace('\u{0}', " / "),
        }
    }
}

/// How the table is sorted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sort {
    pub column: Column,
    pub descending: bool,
}

impl Sort {
    /// Clicking a header: sort by it, or flip the order if it already is. Numbers start
    /// largest first.
    pub fn click(&mut self, column: Column) {
        if self.column == column {
            self.descending = !self.descending;
        } else {
            self.column = column;
            self.descending = column != Column::Pane;
        }
    }

    pub fn order<'a>(&self, rows: &'a [PaneRow]) -> Vec<&'a PaneRow> {
        let mut out: Vec<&PaneRow> = rows.iter().collect();
        out.sort_by(|a, b| {
            let o = self.column.key(a).cmp(&self.column.key(b));
            let o = if self.descending { o.reverse() } else { o };
            o.then(a.pty.pane.cmp(&b.pty.pane))
        });
        out
    }
}

/// Makes a cell an accessible table cell labelled `"<pane> <column>"` whose value is the
/// raw number, so tests and screen readers can read the table.
fn describe(ui: &egui::Ui, response: &egui::Response, label: String, value: String) {
    ui.ctx().accesskit_node_builder(response.id, |n| {
        n.set_role(egui::accesskit::Role::Cell);
        n.set_label(label);
        n.set_value(value);
    });
}

/// The delivery table. Returns the pane whose name was clicked.
#[must_use = "what the panel asks for happens only when applied"]
pub fn ui(ui: &mut egui::Ui, rows: &[PaneRow], sort: &mut Sort) -> Option<PaneId> {
    let mut clicked = None;
    if rows.is_empty() {
        ui.label("No ptys.");
        return None;
    }
    egui::ScrollArea::horizontal()
        .id_salt("tern-diag-table")
        .show(ui, |ui| {
            egui::Grid::new("tern-diag-grid")
                .striped(true)
                .spacing([12.0, 4.0])
                .show(ui, |ui| {
                    for column in Column::ALL {
                        let arrow = match (sort.column == column, sort.descending) {
                            (true, true) => " ⬇",
                            (true, false) => " ⬆",
                            _ => "",
                        };
                        let text = RichText::new(format!("{}{arrow}", column.title())).strong();
                        if ui
                            .selectable_label(sort.column == column, text)
                            .on_hover_text(column.hint())
                            .clicked()
                        {
                            sort.click(column);
                        }
                    }
                    ui.end_row();
                    for row in sort.order(rows) {
                        for column in Column::ALL {
                            let key = column.key(row);
                            let text = column.text(row);
                            let response = if column == Column::Pane {
                                let r = ui
                                    .selectable_label(false, text)
                                    .on_hover_text(format!("id {}: click to jump", row.id));
                                if r.clicked() {
                                    clicked = Some(PaneId(row.pty.pane));
                                }
                                r
                            } else if column == Column::Paused && row.pty.paused_now {
                                ui.colored_label(Color32::from_rgb(255, 170, 60), text)
                            } else {
                                ui.label(text)
                            };
                            if column != Column::Pane {
                                describe(
                                    ui,
                                    &response,
                                    format!("{} {}", row.label, column.title()),
                                    key.raw(),
                                );
                            }
                        }
                        ui.end_row();
                    }
                });
        });
    clicked
}

/// The breadcrumb ring, newest first.
pub fn breadcrumbs(ui: &mut egui::Ui, report: &DiagnosticsReport) {
    if report.breadcrumbs.is_empty() {
        ui.label("Nothing yet.");
        return;
    }
    let label_of = |id: &str| {
        report
            .panes
            .iter()
            .find(|r| r.id == id)
            .map_or_else(|| format!("pane {id} (closed)"), |r| r.label.clone())
    };
    // Only the rows in view are laid out (the ring holds up to 512).
    let row_height = ui.text_style_height(&egui::TextStyle::Body) + ui.spacing().item_spacing.y;
    let crumbs = &report.breadcrumbs;
    egui::ScrollArea::vertical()
        .id_salt("tern-diag-crumbs")
        .max_height(220.0)
        .auto_shrink([false, true])
        .show_rows(ui, row_height, crumbs.len(), |ui, range| {
            for c in crumbs.iter().rev().skip(range.start).take(range.len()) {
                ui.horizontal(|ui| {
                    ui.monospace(format!("{:>9.3} s", c.at_ms as f64 / 1e3));
                    ui.label(c.pane.as_deref().map_or("app".into(), label_of));
                    ui.add(egui::Label::new(&c.what).truncate());
                });
            }
        });
}

/// What tern runs on.
pub fn environment(ui: &mut egui::Ui, env: &Environment) {
    egui::Grid::new("tern-diag-env").show(ui, |ui| {
        let mut row = |k: &str, v: String| {
            ui.label(k);
            ui.label(v);
            ui.end_row();
        };
        row("tern", env.tern_version.clone());
        row("OS", format!("{} ({})", env.os, env.arch));
        match &env.adapter {
            Some(a) => {
                row(
                    "adapter",
                    format!(
                        "{} ({}, {}){}",
                        a.name,
                        a.backend,
                        a.device_type,
                        if a.software {
                            " — software rendering: slow"
                        } else {
                            ""
                        }
                    ),
                );
                row("driver", format!("{} {}", a.driver, a.driver_info));
            }
            None => row("adapter", "unknown (no wgpu render state)".into()),
        }
        row(
            "display scale",
            env.pixels_per_point
                .map_or("unknown".into(), |p| format!("{p} px per point")),
        );
        row("font", env.font.clone().unwrap_or_else(|| "-".into()));
        row(
            "config",
            env.config_path.clone().unwrap_or_else(|| "-".into()),
        );
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(pane: u64, read: u64) -> PaneRow {
        PaneRow {
            label: format!("pane {pane}"),
            pty: tern_core::pipeline::diag::PtyReport {
                pane,
                bytes_read: read,
                ..Default::default()
            },
            ..PaneRow::default()
        }
    }

    /// The throttle of a hidden flood shows in the window column (`pipeline::throttle`).
    #[test]
    fn a_throttled_row_says_so_in_the_window_column() {
        let mut throttled = row(1, 0);
        throttled.pty.window_bytes = 16 * 1024;
        throttled.pty.throttled = true;
        assert_eq!(Column::Window.text(&throttled), "16.0 KiB, throttled");
        assert!(!Column::Window.text(&row(2, 0)).contains("throttled"));
    }

    #[test]
    fn sorting_is_by_value_and_a_second_click_flips_it() {
        let rows = [row(1, 2048), row(2, 10), row(3, 1 << 20)];
        let mut sort = Sort::default();
        sort.click(Column::Read);
        let order: Vec<u64> = sort.order(&rows).iter().map(|r| r.pty.pane).collect();
        assert_eq!(order, [3, 1, 2], "largest first");
        sort.click(Column::Read);
        let order: Vec<u64> = sort.order(&rows).iter().map(|r| r.pty.pane).collect();
        assert_eq!(order, [2, 1, 3]);
    }
}
