//! The sidebar's rows: a worktree (branch, changed files, ahead/behind, the open
//! group's badges) and a plain folder group.

use egui::Color32;
use tern_core::worktree::Worktree;

use super::GroupInfo;
use crate::window::badges::{badge_marks, badge_words, labelled};
use crate::window::theme::Theme;

/// One worktree: name, dirty and ahead/behind marks, and the open group's badges.
pub(super) fn worktree_row(
    ui: &mut egui::Ui,
    w: &Worktree,
    group: Option<&GroupInfo>,
    theme: &Theme,
) -> egui::Response {
    let colors = &theme.chrome;
    let mut job = egui::text::LayoutJob::default();
    let base = egui::TextFormat {
        font_id: egui::FontId::proportional(13.5),
        color: if group.is_some_and(|g| g.active) {
            colors.text_strong
        } else {
            colors.text
        },
        ..Default::default()
    };
    let small = |color: Color32| egui::TextFormat {
        font_id: egui::FontId::proportional(11.5),
        color,
        ..Default::default()
    };
    job.append(&w.name(), 0.0, base);
    let mut words = Vec::new();
    if let Some(s) = &w.status {
        if s.changed_files > 0 {
            job.append(
                &format!("±{}", s.changed_files),
                6.0,
                small(colors.changes.changed),
            );
            words.push(format!("{} changed", s.changed_files));
        }
        // What its agent changed against the main branch: files, +added −removed.
        if let Some(d) = s.diff.filter(|d| !d.is_empty()) {
            let files = match d.files {
                1 => "1 file".to_owned(),
                n => format!("{n} files"),
            };
            job.append(&files, 6.0, small(colors.text_dim));
            job.append(&format!("+{}", d.added), 4.0, small(colors.changes.ahead));
            job.append(
                &format!("−{}", d.removed),
                3.0,
                small(colors.changes.behind),
            );
            words.push(format!("{files} +{} −{}", d.added, d.removed));
        }
        if let Some(ab) = s.ahead_behind {
            if ab.ahead > 0 {
                job.append(&format!("↑{}", ab.ahead), 4.0, small(colors.changes.ahead));
                words.push(format!("{} ahead", ab.ahead));
            }
            if ab.behind > 0 {
                job.append(
                    &format!("↓{}", ab.behind),
                    4.0,
                    small(colors.changes.behind),
                );
                words.push(format!("{} behind", ab.behind));
            }
        }
    }
    if w.prunable.is_some() {
        job.append("missing", 6.0, small(colors.error));
        words.push("folder missing".into());
    }
    if let Some(g) = group {
        for (mark, color) in badge_marks(g.badges, theme) {
            job.append(mark, 5.0, small(color));
        }
        let b = badge_words(g.badges);
        if !b.is_empty() {
            words.push(b);
        }
        if let Some(state) = g.badges.activity {
            words.push(state.label().to_owned());
        }
        let tabs = match g.tabs {
            1 => "1 tab".to_owned(),
            n => format!("{n} tabs"),
        };
        job.append(&tabs, 6.0, small(colors.text_dim));
        words.push(tabs);
    }
    let r = ui
        .add(egui::Button::selectable(
            group.is_some_and(|g| g.active),
            job,
        ))
        .on_hover_text(hover(&w.path, group));
    if let Some(p) = group.and_then(|g| g.attention.progress) {
        crate::window::activity::progress_bar(ui.painter(), r.rect, p, theme);
    }
    let why = group.map(|g| g.attention.suffix()).unwrap_or_default();
    let label = if words.is_empty() {
        format!("worktree {}{why}", w.name())
    } else {
        format!("worktree {} ({}){why}", w.name(), words.join(", "))
    };
    let path = w.path.display().to_string();
    crate::window::trace::note_if_changed("sidebar_row", &path, || {
        format!("\"label\":{}", serde_json::Value::from(label.as_str()))
    });
    ui.ctx()
        .accesskit_node_builder(r.id, |n| n.set_label(label));
    r
}

/// A folder group (not a repository).
pub(super) fn group_row(
    ui: &mut egui::Ui,
    name: &str,
    g: &GroupInfo,
    theme: &Theme,
) -> egui::Response {
    let colors = &theme.chrome;
    let mut job = egui::text::LayoutJob::default();
    job.append(
        name,
        0.0,
        egui::TextFormat {
            font_id: egui::FontId::proportional(13.5),
            color: if g.active {
                colors.text_strong
            } else {
                colors.text
            },
            ..Default::default()
        },
    );
    for (mark, color) in badge_marks(g.badges, theme) {
        job.append(
            mark,
            5.0,
            egui::TextFormat {
                color,
                ..Default::default()
            },
        );
    }
    let r = ui
        .add(egui::Button::selectable(g.active, job))
        .on_hover_text(hover(&g.path, Some(g)));
    if let Some(p) = g.attention.progress {
        crate::window::activity::progress_bar(ui.painter(), r.rect, p, theme);
    }
    let label = labelled("worktree", name, g.badges) + &g.attention.suffix();
    ui.ctx()
        .accesskit_node_builder(r.id, |n| n.set_label(label));
    r
}

/// A row's tooltip: its folder, and why one of its panes waits.
fn hover(path: &std::path::Path, group: Option<&GroupInfo>) -> String {
    match group.and_then(|g| g.attention.why.as_deref()) {
        Some(why) => format!("{}\nwaiting: {why}", path.display()),
        None => path.display().to_string(),
    }
}
