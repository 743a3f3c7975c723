//! What a pane has to say while it is hidden (bell, a finished command, a
//! notification, unseen output), as marks after a title and as words. The tab bar and
//! the sidebar both draw them from here.

use egui::Color32;
use tern_core::workspace::Badges;

use super::theme::Theme;

/// The badges as short marks after a title: ⚑ bell, ✔/✖ command finished, ✉
/// notification, ● unseen output (all in the bundled font).
pub fn badge_marks(b: Badges, theme: &Theme) -> Vec<(&'static str, Color32)> {
    let c = &theme.chrome;
    let mut out = super::activity::activity_marks(b);
    if b.bell {
        out.push(("⚑", c.badges.bell));
    }
    match b.finished {
        Some(true) => out.push(("✔", c.badges.succeeded)),
        Some(false) => out.push(("✖", c.badges.failed)),
        None => {}
    }
    if b.notification {
        out.push(("✉", c.badges.notification));
    }
    if b.unseen_output {
        out.push(("●", c.badges.unseen));
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

/// `title` followed by its badge marks, in `font` and `color`.
pub fn badged_title(
    title: &str,
    b: Badges,
    font: egui::FontId,
    color: Color32,
    theme: &Theme,
) -> egui::text::LayoutJob {
    let mut job = egui::text::LayoutJob::default();
    let fmt = egui::TextFormat {
        font_id: font,
        color,
        ..Default::default()
    };
    job.append(title, 0.0, fmt.clone());
    for (mark, color) in badge_marks(b, theme) {
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

/// "tab build" or "tab build (bell, failed)": the accessibility label of a row.
pub fn labelled(kind: &str, name: &str, b: Badges) -> String {
    let words = badge_words(b);
    let activity = super::activity::activity_suffix(b);
    if words.is_empty() {
        format!("{kind} {name}{activity}")
    } else {
        format!("{kind} {name}{activity} ({words})")
    }
}
