//! Small modal dialogs: each returns `Some(true)` when confirmed, `Some(false)` when
//! cancelled and `None` while it stays open; the caller decides what follows. While
//! one is open the window gives no pane a key (`TernApp::modal_open`).

/// The keys a dialog answers, taken out of the frame's input so that nothing under it
/// sees them.
struct DialogKeys {
    enter: bool,
    escape: bool,
    next: bool,
    previous: bool,
}

impl DialogKeys {
    /// Enter, Escape, Tab / Shift+Tab, and the arrows unless a field has the keyboard
    /// (the rename dialog's text moves its cursor with them).
    fn take(ctx: &egui::Context) -> DialogKeys {
        use egui::{Key, Modifiers};
        let arrows = ctx.memory(|m| m.focused().is_none());
        ctx.input_mut(|i| {
            let mut take = |m: Modifiers, k: Key| i.consume_key(m, k);
            let enter = take(Modifiers::NONE, Key::Enter);
            let escape = take(Modifiers::NONE, Key::Escape);
            let tab = take(Modifiers::NONE, Key::Tab);
            let back = take(Modifiers::SHIFT, Key::Tab);
            let (right, left) = if arrows {
                (
                    take(Modifiers::NONE, Key::ArrowRight) | take(Modifiers::NONE, Key::ArrowDown),
                    take(Modifiers::NONE, Key::ArrowLeft) | take(Modifiers::NONE, Key::ArrowUp),
                )
            } else {
                (false, false)
            };
            DialogKeys {
                enter,
                escape,
                next: tab || right,
                previous: back || left,
            }
        })
    }
}

/// The dialog's two buttons, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Button {
    Yes,
    Cancel,
}

impl Button {
    fn other(self) -> Button {
        match self {
            Button::Yes => Button::Cancel,
            Button::Cancel => Button::Yes,
        }
    }
}

/// A modal with `body`, a `yes` button and Cancel. It owns the keyboard while open:
/// Escape cancels, Tab / Shift+Tab and the arrows move between the buttons (the
/// chosen one is drawn selected), Enter presses the chosen one: `yes` at first when
/// `enter_confirms`, none at first otherwise (Enter then does nothing). `Some(true)`
/// for `yes`, `Some(false)` for Cancel, `None` while it stays open.
#[must_use = "what the panel asks for happens only when applied"]
pub fn dialog(
    ctx: &egui::Context,
    title: &str,
    yes: &str,
    enter_confirms: bool,
    body: impl FnOnce(&mut egui::Ui),
) -> Option<bool> {
    let id = egui::Id::unique(("tern-dialog", title));
    let first = enter_confirms.then_some(Button::Yes);
    let mut chosen: Option<Button> = ctx.data(|d| d.get_temp(id)).unwrap_or(first);
    let keys = DialogKeys::take(ctx);
    if keys.next {
        chosen = Some(chosen.map_or(Button::Yes, Button::other));
    }
    if keys.previous {
        chosen = Some(chosen.map_or(Button::Cancel, Button::other));
    }
    let mut result = None;
    egui::Modal::new(id.with("modal")).show(ctx, |ui| {
        ui.heading(title);
        body(ui);
        ui.horizontal(|ui| {
            let yes_button = egui::Button::new(yes).selected(chosen == Some(Button::Yes));
            if ui.add(yes_button).clicked() {
                result = Some(true);
            }
            let cancel = egui::Button::new("Cancel").selected(chosen == Some(Button::Cancel));
            if ui.add(cancel).clicked() {
                result = Some(false);
            }
        });
    });
    if keys.enter {
        match chosen {
            Some(Button::Yes) => result = Some(true),
            Some(Button::Cancel) => result = Some(false),
            None => {}
        }
    }
    if keys.escape {
        result = Some(false);
    }
    ctx.data_mut(|d| match result {
        Some(_) => d.remove::<Option<Button>>(id),
        None => {
            d.insert_temp(id, chosen);
        }
    });
    result
}

/// Rename a tab: `Some(true)` to apply, `Some(false)` to cancel, `None` while open.
#[must_use = "what the panel asks for happens only when applied"]
pub fn rename_dialog(ctx: &egui::Context, text: &mut String) -> Option<bool> {
    dialog(ctx, "Rename tab", "Rename", true, |ui| {
        ui.label("Tab name (empty: follow the program's title)");
        ui.text_edit_singleline(text).request_focus();
    })
}

/// A yes/no question (Enter does not answer it: a stray key must not allow anything).
#[must_use = "what the panel asks for happens only when applied"]
pub fn confirm_dialog(ctx: &egui::Context, title: &str, question: &str, yes: &str) -> Option<bool> {
    dialog(ctx, title, yes, false, |ui| {
        ui.label(question);
    })
}

/// Close a pane where a program still runs? (Enter closes.)
#[must_use = "what the panel asks for happens only when applied"]
pub fn confirm_close_dialog(ctx: &egui::Context, program: &str) -> Option<bool> {
    dialog(ctx, "Close this pane?", "Close", true, |ui| {
        ui.label(format!(
            "`{program}` is still running in it and will be ended."
        ));
    })
}

/// Asks before closing a tab or the window over running programs.
#[must_use = "what the panel asks for happens only when applied"]
pub fn confirm_close_many_dialog(
    ctx: &egui::Context,
    title: &str,
    programs: &[String],
) -> Option<bool> {
    dialog(ctx, title, "Close", true, |ui| {
        let list = programs
            .iter()
            .map(|p| format!("`{p}`"))
            .collect::<Vec<_>>()
            .join(", ");
        ui.label(format!("Still running, and will be ended: {list}."));
    })
}

/// The answer to [`keep_or_end_dialog`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeepOrEnd {
    /// Close the window; the keeper holds the programs for the next start.
    Keep,
    /// Close the window and end the programs.
    End,
    Cancel,
}

/// Closing the window over running programs when a keeper can hold them: keep them
/// running (like detaching tmux), end them, or cancel. Enter keeps, Escape cancels.
pub fn keep_or_end_dialog(ctx: &egui::Context, programs: &[String]) -> Option<KeepOrEnd> {
    let keys = DialogKeys::take(ctx);
    let mut result = None;
    egui::Modal::new(egui::Id::unique("tern-keep-or-end")).show(ctx, |ui| {
        ui.heading("Close the window?");
        let list = programs
            .iter()
            .map(|p| format!("`{p}`"))
            .collect::<Vec<_>>()
            .join(", ");
        ui.label(format!(
            "Still running: {list}. Keep them running for the next start, or end them?"
        ));
        ui.horizontal(|ui| {
            if ui
                .add(egui::Button::new("Keep running").selected(true))
                .clicked()
            {
                result = Some(KeepOrEnd::Keep);
            }
            if ui.button("End them").clicked() {
                result = Some(KeepOrEnd::End);
            }
            if ui.button("Cancel").clicked() {
                result = Some(KeepOrEnd::Cancel);
            }
        });
    });
    if keys.enter {
        result = Some(KeepOrEnd::Keep);
    }
    if keys.escape {
        result = Some(KeepOrEnd::Cancel);
    }
    result
}
