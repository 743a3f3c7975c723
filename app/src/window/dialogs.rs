//! Small modal dialogs: each returns `Some(true)` when confirmed, `Some(false)` when
//! cancelled and `None` while it stays open; the caller decides what follows.

/// A modal with `body`, a `yes` button and Cancel: `Some(true)` for `yes` (or Enter when
/// `enter_confirms`), `Some(false)` for Cancel or Escape, `None` while it stays open.
#[must_use = "what the panel asks for happens only when applied"]
pub fn dialog(
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
