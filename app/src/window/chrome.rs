//! The workspace around the panes: the tab bar with badges, the worktree sidebar, the
//! split dividers, and small dialogs.

use std::path::PathBuf;

use egui::{Color32, RichText};
use tern_core::layout::{Axis, Rect};
use tern_core::pipeline::PaneId;
use tern_core::workspace::{Badges, Workspace};

use super::app::{DIVIDER, TernApp};

pub const TAB_BAR_HEIGHT: f32 = 26.0;
pub const SIDEBAR_WIDTH: f32 = 220.0;

/// The badges as short marks after a title: ⚑ bell, ✔/✖ command finished, ✉
/// notification, ● unseen output (all in the bundled font).
pub fn badge_marks(b: Badges) -> Vec<(&'static str, Color32)> {
    let mut out = super::agents::activity_marks(b);
    if b.bell {
        out.push(("⚑", Color32::from_rgb(240, 190, 60)));
    }
    match b.finished {
        Some(true) => out.push(("✔", Color32::from_rgb(90, 200, 110))),
        Some(false) => out.push(("✖", Color32::from_rgb(235, 80, 80))),
        None => {}
    }
    if b.notification {
        out.push(("✉", Color32::from_rgb(110, 160, 250)));
    }
    if b.unseen_output {
        out.push(("●", Color32::from_rgb(160, 160, 160)));
    }
    out
}

/// The words for the badges (accessibility labels and tests).
pub fn badge_words(b: Badges) -> String {
    let mut w = Vec::new();
    if b.bell {
        w.push("bell");
    }
    match b.finished {
        Some(true) => w.push("succeeded"),
        Some(false) => w.push("failed"),
        None => {}
    }
    if b.notification {
        w.push("notification");
    }
    if b.unseen_output {
        w.push("new output");
    }
    w.join(", ")
}

fn badged_text(title: &str, b: Badges, strong: bool) -> egui::text::LayoutJob {
    let mut job = egui::text::LayoutJob::default();
    let fmt = egui::TextFormat {
        font_id: egui::FontId::proportional(13.0),
        color: if strong {
            Color32::WHITE
        } else {
            Color32::from_gray(170)
        },
        ..Default::default()
    };
    job.append(title, 0.0, fmt.clone());
    for (mark, color) in badge_marks(b) {
        job.append(
            mark,
            5.0,
            egui::TextFormat {
                color,
                ..fmt.clone()
            },
        );
    }
    job
}

/// The tabs of the active worktree: click to show, drag to reorder, × to close, + for
/// a new tab. Badges show what each hidden tab has to say.
pub fn tab_bar(ui: &mut egui::Ui, app: &mut TernApp) {
    let group = app.ws.active;
    let Some(g) = app.ws.groups.get(group) else {
        return;
    };
    // One tab in one folder: no tab bar (like kitty), the window is all terminal.
    if g.tabs.len() <= 1 && app.ws.groups.len() <= 1 && !app.sidebar_open {
        return;
    }
    let tabs: Vec<_> = g
        .tabs
        .iter()
        .map(|t| {
            let badges = app.ws.tab_badges(t, |p| app.pane_badges(p));
            (t.id, app.tab_title(t), badges)
        })
        .collect();
    let active = g.active_tab;
    let group_name = g.name.clone();
    let mut select = None;
    let mut close = None;
    let mut new_tab = false;
    let mut drag: Option<(usize, f32)> = None;
    let mut rects = Vec::new();
    egui::Panel::top("tern-tabs")
        .exact_size(TAB_BAR_HEIGHT)
        .frame(
            egui::Frame::NONE
                .fill(Color32::from_gray(28))
                .inner_margin(2.0),
        )
        .show(ui, |ui| {
            ui.horizontal_centered(|ui| {
                ui.label(
                    RichText::new(&group_name)
                        .color(Color32::from_gray(120))
                        .small(),
                );
                for (i, (id, title, badges)) in tabs.iter().enumerate() {
                    let text = badged_text(title, *badges, i == active);
                    let r = ui
                        .add(
                            egui::Button::selectable(i == active, text)
                                .sense(egui::Sense::click_and_drag()),
                        )
                        .on_hover_text(format!("{title}\n{}", badge_words(*badges)));
                    let words = badge_words(*badges);
                    let activity = super::agents::activity_suffix(*badges);
                    let label = if words.is_empty() {
                        format!("tab {title}{activity}")
                    } else {
                        format!("tab {title}{activity} ({words})")
                    };
                    ui.ctx()
                        .accesskit_node_builder(r.id, |n| n.set_label(label));
                    if r.clicked() {
                        select = Some(i);
                    }
                    if r.middle_clicked() {
                        close = Some(*id);
                    }
                    if r.drag_stopped()
                        && let Some(pos) = r.interact_pointer_pos()
                    {
                        drag = Some((i, pos.x));
                    }
                    rects.push(r.rect);
                    if ui.small_button("×").on_hover_text("Close tab").clicked() {
                        close = Some(*id);
                    }
                }
                if ui
                    .button("+")
                    .on_hover_text("New tab (Ctrl+Shift+T)")
                    .clicked()
                {
                    new_tab = true;
                }
            });
        });
    if let Some(i) = select {
        app.ws.select_tab(i);
    }
    if let Some((from, x)) = drag {
        // Its place among the other tabs: after every tab whose middle it passed.
        let to = rects
            .iter()
            .enumerate()
            .filter(|(i, r)| *i != from && r.center().x < x)
            .count();
        if to != from {
            app.ws.move_tab(group, from, to);
        }
    }
    if let Some(id) = close {
        let ctx = ui.ctx().clone();
        if let Some(ti) = app.ws.groups[group].tabs.iter().position(|t| t.id == id) {
            app.ws.select_tab(ti);
            app.run_command(&ctx, super::commands::Command::CloseTab);
        }
    }
    if new_tab {
        let ctx = ui.ctx().clone();
        app.run_command(&ctx, super::commands::Command::NewTab);
    }
}

/// The worktree sidebar (see `sidebar.rs`) in a panel on the left.
pub fn sidebar(ui: &mut egui::Ui, app: &mut TernApp) {
    let groups = app.group_infos();
    let mut actions = Vec::new();
    egui::Panel::left("tern-sidebar")
        .exact_size(SIDEBAR_WIDTH)
        .resizable(false)
        .show(ui, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                actions = app.sidebar.ui(ui, &groups);
            });
        });
    app.sidebar_actions(actions);
}

/// Draggable dividers between split panes.
pub fn dividers(ui: &mut egui::Ui, ws: &mut Workspace<PaneId>, area: Rect) {
    let Some(tab) = ws.active_tab() else {
        return;
    };
    let divs = tab.layout.dividers(area, DIVIDER);
    let at = tern_core::workspace::Location {
        group: ws.active,
        tab: ws.groups[ws.active].active_tab,
    };
    for d in divs {
        let rect = egui::Rect::from_min_size(
            egui::pos2(d.rect.x, d.rect.y),
            egui::vec2(d.rect.w, d.rect.h),
        );
        let id = egui::Id::unique(("tern-divider", &d.path));
        let r = ui.interact(rect.expand(2.0), id, egui::Sense::drag());
        let color = if r.hovered() || r.dragged() {
            Color32::from_rgb(90, 140, 230)
        } else {
            Color32::from_gray(50)
        };
        ui.painter().rect_filled(rect, 0.0, color);
        if r.hovered() || r.dragged() {
            ui.ctx().set_cursor_icon(match d.axis {
                Axis::Horizontal => egui::CursorIcon::ResizeHorizontal,
                Axis::Vertical => egui::CursorIcon::ResizeVertical,
            });
        }
        if r.dragged()
            && let Some(pos) = r.interact_pointer_pos()
            && let Some(tab) = ws.tab_mut(at)
        {
            let ratio = match d.axis {
                Axis::Horizontal => (pos.x - d.parent.x) / d.parent.w.max(1.0),
                Axis::Vertical => (pos.y - d.parent.y) / d.parent.h.max(1.0),
            };
            tab.layout.set_ratio(&d.path, ratio);
        }
    }
}

/// A modal with `body`, a `yes` button and Cancel: `Some(true)` for `yes` (or Enter when
/// `enter_confirms`), `Some(false)` for Cancel or Escape, `None` while it stays open.
fn dialog(
    ctx: &egui::Context,
    title: &str,
    yes: &str,
    enter_confirms: bool,
    body: impl FnOnce(&mut egui::Ui),
) -> Option<bool> {
    let mut result = None;
    egui::Modal::new(egui::Id::unique(("tern-dialog", title))).show(ctx, |ui| {
        ui.heading(title);
        body(ui);
        ui.horizontal(|ui| {
            if ui.button(yes).clicked() {
                result = Some(true);
            }
            if ui.button("Cancel").clicked() {
                result = Some(false);
            }
        });
    });
    let (enter, escape) = ctx.input(|i| {
        (
            i.key_pressed(egui::Key::Enter),
            i.key_pressed(egui::Key::Escape),
        )
    });
    if enter && enter_confirms {
        result = Some(true);
    }
    if escape {
        result = Some(false);
    }
    result
}

/// Rename a tab: `Some(true)` to apply, `Some(false)` to cancel, `None` while open.
pub fn rename_dialog(ctx: &egui::Context, text: &mut String) -> Option<bool> {
    dialog(ctx, "Rename tab", "Rename", true, |ui| {
        ui.label("Tab name (empty: follow the program's title)");
        ui.text_edit_singleline(text).request_focus();
    })
}

/// A yes/no question (Enter does not answer it: a stray key must not allow anything).
pub fn confirm_dialog(ctx: &egui::Context, title: &str, question: &str, yes: &str) -> Option<bool> {
    dialog(ctx, title, yes, false, |ui| {
        ui.label(question);
    })
}

/// Close a pane where a program still runs? (Enter closes.)
pub fn confirm_close_dialog(ctx: &egui::Context, program: &str) -> Option<bool> {
    dialog(ctx, "Close this pane?", "Close", true, |ui| {
        ui.label(format!(
            "`{program}` is still running in it and will be ended."
        ));
    })
}

/// A directory chosen in the sidebar's path field, expanded (`~`).
pub fn expand_path(text: &str) -> PathBuf {
    match text.strip_prefix("~") {
        Some(rest) => {
            let home = std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_default();
            home.join(rest.trim_start_matches('/'))
        }
        None => PathBuf::from(text),
    }
}
