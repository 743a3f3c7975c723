//! The worktree sidebar: repositories and their worktrees (branch, dirty state,
//! ahead/behind, rolled-up badges), adding a repository (path field or folder dialog),
//! creating and removing worktrees. git runs on the git worker thread; this module
//! sends requests, turns replies into state, and returns what the app must do.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use egui::{Color32, RichText};
use tern_core::workspace::Badges;
use tern_core::worktree::{
    BranchSpec, GitReply, GitRequest, GitWorker, Repo, RequestId, StateStamp, Worktree,
};

/// How often each repository is checked for changes (a cheap stat of git's files on
/// the git thread; it lists again only when something changed).
const REFRESH_EVERY: Duration = Duration::from_secs(2);

/// What the app must do after the sidebar's frame.
#[derive(Clone, Debug, PartialEq)]
pub enum SidebarAction {
    /// Show the worktree at `path` (opening a tab there if it has none).
    Open {
        name: String,
        path: PathBuf,
        repo: Option<PathBuf>,
    },
    /// The worktree at `path` was removed: close its tabs.
    Removed {
        path: PathBuf,
    },
    /// A directory opened at start turned out to be (in) a repository.
    Identified {
        path: PathBuf,
        repo: PathBuf,
        name: String,
    },
    Status(String),
    /// A repository's worktrees were listed (for the trace).
    Listed {
        root: PathBuf,
        worktrees: usize,
    },
}

/// What the sidebar knows of an open group (from the workspace).
pub struct GroupInfo {
    pub name: String,
    pub path: PathBuf,
    pub repo: Option<PathBuf>,
    pub badges: Badges,
    pub tabs: usize,
    pub active: bool,
}

pub struct RepoEntry {
    pub repo: Repo,
    pub worktrees: Vec<Worktree>,
    pub error: Option<String>,
    stamp: Option<StateStamp>,
    refreshing: bool,
    checked_at: Instant,
}

enum Pending {
    Open { path: PathBuf, quiet: bool },
    List { root: PathBuf },
    Refresh { root: PathBuf },
    Add { root: PathBuf },
    Remove { root: PathBuf, path: PathBuf },
}

/// The "new worktree" form.
pub struct NewWorktree {
    root: PathBuf,
    pub branch: String,
    pub create_branch: bool,
    pub base: String,
    pub path: String,
    pub error: Option<String>,
    busy: bool,
}

/// The "remove worktree" confirmation.
pub struct RemoveWorktree {
    root: PathBuf,
    path: PathBuf,
    changed_files: usize,
    force: bool,
    error: Option<String>,
    busy: bool,
}

#[derive(Default)]
pub struct Sidebar {
    git: Option<GitWorker>,
    pub repos: Vec<RepoEntry>,
    pending: HashMap<RequestId, Pending>,
    /// The "add repository" path field.
    pub add_path: String,
    pub add_error: Option<String>,
    pub new_worktree: Option<NewWorktree>,
    pub remove: Option<RemoveWorktree>,
    folder_pick: Option<mpsc::Receiver<Option<PathBuf>>>,
}

impl Sidebar {
    fn git(&mut self, waker: &egui::Context) -> Option<&mut GitWorker> {
        if self.git.is_none() {
            let ctx = waker.clone();
            self.git =
                GitWorker::spawn(Some(std::sync::Arc::new(move || ctx.request_repaint()))).ok();
        }
        self.git.as_mut()
    }

    fn send(&mut self, ctx: &egui::Context, request: GitRequest, pending: Pending) {
        if let Some(git) = self.git(ctx) {
            let id = git.send(request);
            self.pending.insert(id, pending);
        }
    }

    /// Adds the repository at (or containing) `path`. `quiet`: a folder tern was started
    /// in, which need not be a repository (no error shown).
    pub fn add_repository(&mut self, ctx: &egui::Context, path: PathBuf, quiet: bool) {
        self.send(
            ctx,
            GitRequest::Open { path: path.clone() },
            Pending::Open { path, quiet },
        );
    }

    pub fn repo(&self, root: &Path) -> Option<&RepoEntry> {
        self.repos.iter().find(|r| r.repo.root() == root)
    }

    /// Takes the git thread's replies and the folder dialog's answer; asks for a
    /// refresh of repositories not checked lately.
    pub fn poll(&mut self, ctx: &egui::Context) -> Vec<SidebarAction> {
        let mut actions = Vec::new();
        if let Some(rx) = &self.folder_pick
            && let Ok(picked) = rx.try_recv()
        {
            self.folder_pick = None;
            if let Some(path) = picked {
                self.add_path = path.display().to_string();
                self.add_repository(ctx, path, false);
            }
        }
        let replies: Vec<_> = match &self.git {
            Some(git) => std::iter::from_fn(|| git.try_recv()).collect(),
            None => Vec::new(),
        };
        for response in replies {
            let Some(pending) = self.pending.remove(&response.id) else {
                continue;
            };
            self.on_reply(ctx, pending, response.reply, &mut actions);
        }
        let due: Vec<(Repo, Option<StateStamp>)> = self
            .repos
            .iter_mut()
            .filter(|r| !r.refreshing && r.checked_at.elapsed() >= REFRESH_EVERY)
            .map(|r| {
                r.refreshing = true;
                (r.repo.clone(), r.stamp.clone())
            })
            .collect();
        for (repo, since) in due {
            let root = repo.root().to_path_buf();
            self.send(
                ctx,
                GitRequest::Refresh { repo, since },
                Pending::Refresh { root },
            );
        }
        if !self.repos.is_empty() {
            ctx.request_repaint_after(REFRESH_EVERY);
        }
        actions
    }

    fn on_reply(
        &mut self,
        ctx: &egui::Context,
        pending: Pending,
        reply: GitReply,
        actions: &mut Vec<SidebarAction>,
    ) {
        match (pending, reply) {
            (Pending::Open { path, quiet }, GitReply::Opened(result)) => match result {
                Ok(repo) => {
                    let root = repo.root().to_path_buf();
                    if quiet {
                        actions.push(SidebarAction::Identified {
                            path,
                            repo: root.clone(),
                            name: repo.name(),
                        });
                    }
                    self.add_error = None;
                    if self.repo(&root).is_none() {
                        self.repos.push(RepoEntry {
                            repo: repo.clone(),
                            worktrees: Vec::new(),
                            error: None,
                            stamp: None,
                            refreshing: true,
                            checked_at: Instant::now(),
                        });
                        self.send(ctx, GitRequest::List { repo }, Pending::List { root });
                    }
                }
                Err(e) if !quiet => self.add_error = Some(e.to_string()),
                Err(_) => {}
            },
            (Pending::List { root } | Pending::Refresh { root }, reply) => {
                let Some(entry) = self.repos.iter_mut().find(|r| r.repo.root() == root) else {
                    return;
                };
                entry.refreshing = false;
                entry.checked_at = Instant::now();
                let listed = match reply {
                    GitReply::Listed(l) => Some(l),
                    GitReply::Refreshed { stamp, worktrees } => {
                        entry.stamp = Some(stamp);
                        worktrees
                    }
                    _ => None,
                };
                match listed {
                    Some(Ok(w)) => {
                        actions.push(SidebarAction::Listed {
                            root: root.clone(),
                            worktrees: w.len(),
                        });
                        entry.worktrees = w;
                        entry.error = None;
                    }
                    // The repository went away (deleted while open): say so, keep the
                    // tabs; they still run in whatever is left.
                    Some(Err(e)) => entry.error = Some(e.to_string()),
                    None => {}
                }
            }
            (Pending::Add { root }, GitReply::Added(result)) => match result {
                Ok(w) => {
                    self.new_worktree = None;
                    actions.push(SidebarAction::Open {
                        name: w.name(),
                        path: w.path.clone(),
                        repo: Some(root.clone()),
                    });
                    self.refresh_now(ctx, &root);
                }
                Err(e) => {
                    if let Some(form) = self.new_worktree.as_mut() {
                        form.error = Some(e.to_string());
                        form.busy = false;
                    }
                }
            },
            (Pending::Remove { root, path }, GitReply::Removed(result)) => match result {
                Ok(()) => {
                    self.remove = None;
                    actions.push(SidebarAction::Removed { path: path.clone() });
                    actions.push(SidebarAction::Status(format!(
                        "removed the worktree at {}",
                        path.display()
                    )));
                    self.refresh_now(ctx, &root);
                }
                Err(e) => {
                    if let Some(form) = self.remove.as_mut() {
                        form.error = Some(e.to_string());
                        form.busy = false;
                    }
                }
            },
            _ => {}
        }
    }

    /// Lists a repository's worktrees again now (after a command finished in one of
    /// its panes, say: the stamp does not see edits to working files).
    pub fn refresh_now(&mut self, ctx: &egui::Context, root: &Path) {
        if let Some(entry) = self.repos.iter_mut().find(|r| r.repo.root() == root)
            && !entry.refreshing
        {
            entry.refreshing = true;
            let repo = entry.repo.clone();
            let root = root.to_path_buf();
            self.send(ctx, GitRequest::List { repo }, Pending::List { root });
        }
    }

    /// Opens the "new worktree" form for a repository.
    pub fn start_new_worktree(&mut self, root: PathBuf) {
        self.new_worktree = Some(NewWorktree {
            root,
            branch: String::new(),
            create_branch: true,
            base: String::new(),
            path: String::new(),
            error: None,
            busy: false,
        });
    }

    /// The sidebar's contents. `groups`: what the workspace has open.
    pub fn ui(&mut self, ui: &mut egui::Ui, groups: &[GroupInfo]) -> Vec<SidebarAction> {
        let mut actions = Vec::new();
        let ctx = ui.ctx().clone();
        ui.heading("Worktrees");
        let mut new_for: Option<PathBuf> = None;
        let mut remove: Option<(PathBuf, Worktree)> = None;
        for entry in &self.repos {
            ui.separator();
            ui.horizontal(|ui| {
                ui.label(RichText::new(entry.repo.name()).strong());
                if ui
                    .small_button("+")
                    .on_hover_text("New worktree… (Ctrl+Shift+N)")
                    .clicked()
                {
                    new_for = Some(entry.repo.root().to_path_buf());
                }
            });
            if let Some(e) = &entry.error {
                ui.colored_label(Color32::from_rgb(235, 110, 90), e);
            }
            for w in entry.worktrees.iter().filter(|w| !w.bare) {
                let group = groups.iter().find(|g| g.path == w.path);
                let row = worktree_row(ui, w, group);
                if row.clicked() {
                    actions.push(SidebarAction::Open {
                        name: w.name(),
                        path: w.path.clone(),
                        repo: Some(entry.repo.root().to_path_buf()),
                    });
                }
                if !w.is_main {
                    row.context_menu(|ui| {
                        if ui.button("Remove worktree…").clicked() {
                            remove = Some((entry.repo.root().to_path_buf(), w.clone()));
                            ui.close();
                        }
                    });
                }
            }
        }
        // Folders that are not repositories.
        let loose: Vec<&GroupInfo> = groups
            .iter()
            .filter(|g| {
                g.repo.is_none()
                    || self
                        .repo(g.repo.as_deref().unwrap_or(Path::new("")))
                        .is_none()
            })
            .collect();
        if !loose.is_empty() {
            ui.separator();
            ui.label(RichText::new("Folders").strong());
            for g in loose {
                let r = group_row(ui, &g.name, g);
                if r.clicked() {
                    actions.push(SidebarAction::Open {
                        name: g.name.clone(),
                        path: g.path.clone(),
                        repo: g.repo.clone(),
                    });
                }
            }
        }
        ui.separator();
        ui.label("Add repository");
        ui.horizontal(|ui| {
            let field = ui.add(
                egui::TextEdit::singleline(&mut self.add_path)
                    .hint_text("path to a git repository")
                    .desired_width(SIDEBAR_FIELD_WIDTH),
            );
            let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if ui.button("Add").clicked() || enter {
                let path = super::chrome::expand_path(self.add_path.trim());
                self.add_repository(&ctx, path, false);
            }
        });
        if ui
            .button("Browse…")
            .on_hover_text("Choose a folder (needs a desktop portal or zenity)")
            .clicked()
        {
            self.pick_folder();
        }
        if let Some(e) = &self.add_error {
            ui.colored_label(Color32::from_rgb(235, 110, 90), e);
        }
        if let Some(root) = new_for {
            self.start_new_worktree(root);
        }
        if let Some((root, w)) = remove {
            self.remove = Some(RemoveWorktree {
                root,
                changed_files: w.status.as_ref().map_or(0, |s| s.changed_files),
                path: w.path,
                force: false,
                error: None,
                busy: false,
            });
        }
        actions
    }

    /// Asks for a folder in a dialog on its own thread (the answer arrives in `poll`).
    /// Without a portal or zenity the dialog returns nothing; the path field stays.
    fn pick_folder(&mut self) {
        let (tx, rx) = mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("tern-dialog".into())
            .spawn(move || {
                let _ = tx.send(rfd::FileDialog::new().pick_folder());
            });
        if spawned.is_ok() {
            self.folder_pick = Some(rx);
        } else {
            self.add_error = Some("no folder dialog here; type the path".into());
        }
    }

    /// The forms (new worktree, remove worktree) as modal dialogs.
    pub fn dialogs(&mut self, ctx: &egui::Context) {
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
                if let Some(e) = &form.error {
                    ui.colored_label(Color32::from_rgb(235, 110, 90), e);
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
            if submit {
                form.busy = true;
                form.error = None;
                let branch = form.branch.trim().to_owned();
                let path = if form.path.trim().is_empty() {
                    default_worktree_path(&form.root, &branch)
                } else {
                    super::chrome::expand_path(form.path.trim())
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
                        Pending::Add { root },
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
                        Color32::from_rgb(240, 190, 60),
                        format!(
                            "It has {} changed files, which would be lost.",
                            form.changed_files
                        ),
                    );
                    ui.checkbox(&mut form.force, "Remove it anyway (force)");
                }
                ui.label("Its tabs are closed. The branch is kept.");
                if let Some(e) = &form.error {
                    ui.colored_label(Color32::from_rgb(235, 110, 90), e);
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

    pub fn dialog_open(&self) -> bool {
        self.new_worktree.is_some() || self.remove.is_some()
    }
}

const SIDEBAR_FIELD_WIDTH: f32 = 140.0;

/// `<parent of repo>/<repo name>-<branch>` with `/` in the branch made `-`.
pub fn default_worktree_path(root: &Path, branch: &str) -> PathBuf {
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".into());
    let branch: String = branch
        .trim()
        .chars()
        .map(|c| {
            if c == '/' || c.is_whitespace() {
                '-'
            } else {
                c
            }
        })
        .collect();
    root.parent().unwrap_or(root).join(format!(
        "{name}-{}",
        if branch.is_empty() { "new" } else { &branch }
    ))
}

/// One worktree: name, dirty and ahead/behind marks, and the open group's badges.
fn worktree_row(ui: &mut egui::Ui, w: &Worktree, group: Option<&GroupInfo>) -> egui::Response {
    let mut job = egui::text::LayoutJob::default();
    let base = egui::TextFormat {
        font_id: egui::FontId::proportional(13.5),
        color: if group.is_some_and(|g| g.active) {
            Color32::WHITE
        } else {
            Color32::from_gray(190)
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
                small(Color32::from_rgb(230, 180, 80)),
            );
            words.push(format!("{} changed", s.changed_files));
        }
        if let Some(ab) = s.ahead_behind {
            if ab.ahead > 0 {
                job.append(
                    &format!("↑{}", ab.ahead),
                    4.0,
                    small(Color32::from_rgb(120, 200, 140)),
                );
                words.push(format!("{} ahead", ab.ahead));
            }
            if ab.behind > 0 {
                job.append(
                    &format!("↓{}", ab.behind),
                    4.0,
                    small(Color32::from_rgb(230, 130, 110)),
                );
                words.push(format!("{} behind", ab.behind));
            }
        }
    }
    if w.prunable.is_some() {
        job.append("missing", 6.0, small(Color32::from_rgb(235, 110, 90)));
        words.push("folder missing".into());
    }
    if let Some(g) = group {
        for (mark, color) in super::chrome::badge_marks(g.badges) {
            job.append(mark, 5.0, small(color));
        }
        let b = super::chrome::badge_words(g.badges);
        if !b.is_empty() {
            words.push(b);
        }
        if let Some(state) = g.badges.activity {
            words.push(state.label().to_owned());
        }
        job.append(
            &format!("{} tabs", g.tabs),
            6.0,
            small(Color32::from_gray(120)),
        );
    }
    let r = ui
        .add(egui::Button::selectable(
            group.is_some_and(|g| g.active),
            job,
        ))
        .on_hover_text(w.path.display().to_string());
    let label = if words.is_empty() {
        format!("worktree {}", w.name())
    } else {
        format!("worktree {} ({})", w.name(), words.join(", "))
    };
    ui.ctx()
        .accesskit_node_builder(r.id, |n| n.set_label(label));
    r
}

/// A folder group (not a repository).
fn group_row(ui: &mut egui::Ui, name: &str, g: &GroupInfo) -> egui::Response {
    let mut job = egui::text::LayoutJob::default();
    job.append(
        name,
        0.0,
        egui::TextFormat {
            font_id: egui::FontId::proportional(13.5),
            color: if g.active {
                Color32::WHITE
            } else {
                Color32::from_gray(190)
            },
            ..Default::default()
        },
    );
    for (mark, color) in super::chrome::badge_marks(g.badges) {
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
        .on_hover_text(g.path.display().to_string());
    let words = super::chrome::badge_words(g.badges);
    let activity = super::agents::activity_suffix(g.badges);
    let label = if words.is_empty() {
        format!("worktree {name}{activity}")
    } else {
        format!("worktree {name}{activity} ({words})")
    };
    ui.ctx()
        .accesskit_node_builder(r.id, |n| n.set_label(label));
    r
}
