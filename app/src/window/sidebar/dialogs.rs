//! The sidebar's forms as modal dialogs: a new worktree, removing one. Submitting
//! sends a request to the git thread; its reply arrives in `Sidebar::poll`.

use tern_core::worktree::{BranchSpec, GitRequest};

use super::{Pending, Sidebar, default_worktree_path, expand_path};
use crate::window::theme::Theme;

impl Sidebar {
    /// The forms (new worktree, remove worktree) as modal dialogs.
    pub fn dialogs(&mut self, ctx: &egui::Context, theme: &Theme) {
        if let Some(mut form) = self.new_worktree.take() {
            let mut keep = true;
            let mut submit = false;
            egui::Modal::new(egui::Id::unique("tern-new-worktree")).show(ctx, |ui| {
                ui.heading("New worktree");
                ui.checkbox(&mut form.create_branch, "Create a new branch");
                ui.label("Branch");
                let r = ui.text_edit_singleline(&mut form.branch);
                if form.branch.is_empty() {
                    r.request_focus();
                }
                if form.create_branch {
                    ui.label("Start from (branch, tag or commit; empty: HEAD)");
                    ui.text_edit_singleline(&mut form.base);
                }
                ui.label("Folder (empty: next to the repository)");
                ui.add(
                    egui::TextEdit::singleline(&mut form.path).hint_text(
                        default_worktree_path(&form.root, &form.branch)
                            .display()
                            .to_string(),
                    ),
                );
                ui.label("Start command (optional: the first tab runs it, e.g. claude)");
                ui.add(egui::TextEdit::singleline(&mut form.start_command).hint_text("the shell"));
                if let Some(e) = &form.error {
                    ui.colored_label(theme.chrome.error, e);
                }
                ui.horizontal(|ui| {
                    let ready = !form.branch.trim().is_empty() && !form.busy;
                    let enter = ui.input(|i| i.key_pressed(egui::Key::Enter));
                    if ui.add_enabled(ready, egui::Button::new("Create")).clicked()
                        || (ready && enter)
                    {
                        submit = true;
                    }
                    if ui.button("Cancel").clicked() {
                        keep = false;
                    }
                });
            });
            if ctx.input(|i| i.key_pressed(egui::Key::Escape)) {
                keep = false;
            }
            let start = form.start_command.trim().to_owned();
            let start_words = tern_core::resume::split_command(&start);
            if submit && !start.is_empty() && start_words.is_none() {
                submit = false;
                form.error = Some("the start command has an unclosed quote".into());
            }
            if submit {
                form.busy = true;
                form.error = None;
                let branch = form.branch.trim().to_owned();
                let path = if form.path.trim().is_empty() {
                    default_worktree_path(&form.root, &branch)
                } else {
                    expand_path(form.path.trim())
                };
                let spec = if form.create_branch {
                    BranchSpec::New {
                        name: branch,
                        base: Some(form.base.trim().to_owned()).filter(|b| !b.is_empty()),
                    }
                } else {
                    BranchSpec::Existing(branch)
                };
                if let Some(repo) = self.repo(&form.root).map(|r| r.repo.clone()) {
                    let root = form.root.clone();
                    self.send(
                        ctx,
                        GitRequest::Add {
                            repo,
                            path,
                            branch: spec,
                        },
                        Pending::Add {
                            root,
                            start: start_words,
                        },
                    );
                }
            }
            if keep {
                self.new_worktree = Some(form);
            }
        }
        if let Some(mut form) = self.remove.take() {
            let mut keep = true;
            let mut submit = false;
            egui::Modal::new(egui::Id::unique("tern-remove-worktree")).show(ctx, |ui| {
                ui.heading("Remove worktree?");
                ui.label(form.path.display().to_string());
                if form.changed_files > 0 {
                    ui.colored_label(
                        theme.chrome.warning,
                        format!(
                            "It has {} changed files, which would be lost.",
                            form.changed_files
                        ),
                    );
                    ui.checkbox(&mut form.force, "Remove it anyway (force)");
                }
                ui.label("Its tabs are closed. The branch is kept.");
                if let Some(e) = &form.error {
                    ui.colored_label(theme.chrome.error, e);
                }
                ui.horizontal(|ui| {
                    if ui
                        .add_enabled(!form.busy, egui::Button::new("Remove"))
                        .clicked()
                    {
                        submit = true;
                    }
                    if ui.button("Cancel").clicked() {
                        keep = false;
                    }
                });
            });
            if ctx.input(|i| i.key_pressed(egui::Key::Escape)) {
                keep = false;
            }
            if submit && let Some(repo) = self.repo(&form.root).map(|r| r.repo.clone()) {
                form.busy = true;
                form.error = None;
                let (root, path) = (form.root.clone(), form.path.clone());
                self.send(
                    ctx,
                    GitRequest::Remove {
                        repo,
                        path: path.clone(),
                        force: form.force,
                    },
                    Pending::Remove { root, path },
                );
            }
            if keep {
                self.remove = Some(form);
            }
        }
    }
}
