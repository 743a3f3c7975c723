//! The worktree sidebar: repositories and their worktrees (branch, dirty state,
//! ahead/behind, rolled-up badges), adding a repository (path field or folder dialog),
//! creating and removing worktrees. git runs on the git worker thread; this module
//! sends requests, turns replies into state, and returns what the app must do.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use egui::RichText;
use tern_core::workspace::Badges;
use tern_core::worktree::{GitReply, GitRequest, GitWorker, Repo, RequestId, StateStamp, Worktree};

use super::theme::Theme;

mod dialogs;
mod rows;

use rows::{group_row, worktree_row};

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
    /// A worktree was created: show it, its first tab running `start` (else the shell).
    Created {
        name: String,
        path: PathBuf,
        repo: PathBuf,
        start: Option<Vec<String>>,
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
    /// "Add repository" named a remote worktree (`ssh://host/path`, `host:path`).
    AddRemote {
        target: String,
    },
    /// Detach from the remote worktree at `path` and drop it from the sidebar (its
    /// programs run on in tmux).
    ForgetRemote {
        path: PathBuf,
    },
    /// "Review changes" from a worktree's menu: a tab there running `review_command`.
    Review {
        path: PathBuf,
        repo: PathBuf,
    },
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
    /// A remote worktree: its connection's note (empty while connected).
    pub remote: Option<String>,
    /// Why one of its panes waits, and its progress.
    pub attention: crate::window::activity::Attention,
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
    Open {
        path: PathBuf,
        quiet: bool,
    },
    List {
        root: PathBuf,
    },
    Refresh {
        root: PathBuf,
    },
    Add {
        root: PathBuf,
        start: Option<Vec<String>>,
    },
    Remove {
        root: PathBuf,
        path: PathBuf,
    },
}

/// The "new worktree" form.
pub struct NewWorktree {
    root: PathBuf,
    pub branch: String,
    pub create_branch: bool,
    pub base: String,
    pub path: String,
    /// What the first tab runs (empty: the shell), e.g. `claude`.
    pub start_command: String,
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

    /// The git worktree at `path`, among the repositories the sidebar knows.
    pub fn worktree_at(&self, path: &Path) -> Option<&Worktree> {
        self.repos
            .iter()
            .flat_map(|r| &r.worktrees)
            .find(|w| w.path == path)
    }

    pub fn repo(&self, root: &Path) -> Option<&RepoEntry> {
        self.repos.iter().find(|r| r.repo.root() == root)
    }

    /// Takes the git thread's replies and the folder dialog's answer; while the
    /// sidebar is `shown`, asks for a refresh of repositories not checked lately (a
    /// hidden sidebar wakes nothing: it catches up when it opens).
    #[must_use = "what the panel asks for happens only when applied"]
    pub fn poll(&mut self, ctx: &egui::Context, shown: bool) -> Vec<SidebarAction> {
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
            .filter(|r| shown && !r.refreshing && r.checked_at.elapsed() >= REFRESH_EVERY)
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
        if shown && !self.repos.is_empty() {
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
            (Pending::Add { root, start }, GitReply::Added(result)) => match result {
                Ok(w) => {
                    self.new_worktree = None;
                    actions.push(SidebarAction::Created {
                        name: w.name(),
                        path: w.path.clone(),
                        repo: root.clone(),
                        start: start.clone(),
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
            start_command: String::new(),
            create_branch: true,
            base: String::new(),
            path: String::new(),
            error: None,
            busy: false,
        });
    }

    /// The sidebar's contents. `groups`: what the workspace has open.
    #[must_use = "what the panel asks for happens only when applied"]
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        groups: &[GroupInfo],
        theme: &Theme,
    ) -> Vec<SidebarAction> {
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
                    .on_hover_text("New worktree… (Ctrl+Shift+Alt+N)")
                    .clicked()
                {
                    new_for = Some(entry.repo.root().to_path_buf());
                }
            });
            if let Some(e) = &entry.error {
                ui.colored_label(theme.chrome.error, e);
            }
            for w in entry.worktrees.iter().filter(|w| !w.bare) {
                let group = groups.iter().find(|g| g.path == w.path);
                let row = worktree_row(ui, w, group, theme);
                if row.clicked() {
                    actions.push(SidebarAction::Open {
                        name: w.name(),
                        path: w.path.clone(),
                        repo: Some(entry.repo.root().to_path_buf()),
                    });
                }
                row.context_menu(|ui| {
                    if ui.button("Review changes").clicked() {
                        actions.push(SidebarAction::Review {
                            path: w.path.clone(),
                            repo: entry.repo.root().to_path_buf(),
                        });
                        ui.close();
                    }
                    if !w.is_main && ui.button("Remove worktree…").clicked() {
                        remove = Some((entry.repo.root().to_path_buf(), w.clone()));
                        ui.close();
                    }
                });
            }
        }
        // Folders that are not repositories.
        let loose: Vec<&GroupInfo> = groups
            .iter()
            .filter(|g| {
                g.remote.is_none()
                    && (g.repo.is_none()
                        || self
                            .repo(g.repo.as_deref().unwrap_or(Path::new("")))
                            .is_none())
            })
            .collect();
        if !loose.is_empty() {
            ui.separator();
            ui.label(RichText::new("Folders").strong());
            for g in loose {
                let r = group_row(ui, &g.name, g, theme);
                if r.clicked() {
                    actions.push(SidebarAction::Open {
                        name: g.name.clone(),
                        path: g.path.clone(),
                        repo: g.repo.clone(),
                    });
                }
            }
        }
        let remotes: Vec<&GroupInfo> = groups.iter().filter(|g| g.remote.is_some()).collect();
        if !remotes.is_empty() {
            ui.separator();
            ui.label(RichText::new("Remote").strong());
            for g in remotes {
                let row = group_row(ui, &g.name, g, theme);
                if row.clicked() {
                    actions.push(SidebarAction::Open {
                        name: g.name.clone(),
                        path: g.path.clone(),
                        repo: None,
                    });
                }
                row.context_menu(|ui| {
                    if ui
                        .button("Detach and forget")
                        .on_hover_text("Its programs run on in tmux")
                        .clicked()
                    {
                        actions.push(SidebarAction::ForgetRemote {
                            path: g.path.clone(),
                        });
                        ui.close();
                    }
                });
                if let Some(note) = g.remote.as_deref().filter(|n| !n.is_empty()) {
                    ui.colored_label(theme.chrome.error, note);
                }
            }
        }
        ui.separator();
        ui.label("Add repository");
        // Ids of their own: the rows above come and go as git answers, and the field's and
        // the button's ids must not move with them (a click or an accesskit action
        // aimed at the button would miss it).
        ui.push_id("tern-add-repository", |ui| {
            ui.horizontal(|ui| {
                let field = ui.add(
                    egui::TextEdit::singleline(&mut self.add_path)
                        .hint_text("a repository's path, or host:path")
                        .desired_width(SIDEBAR_FIELD_WIDTH),
                );
                let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                if ui.button("Add").clicked() || enter {
                    let text = self.add_path.trim().to_owned();
                    if tern_core::workspace::remote::parse_target(&text).is_some() {
                        // The group's row shows how connecting goes from here on.
                        actions.push(SidebarAction::AddRemote { target: text });
                        self.add_path.clear();
                        self.add_error = None;
                    } else {
                        self.add_repository(&ctx, expand_path(&text), false);
                    }
                }
            })
        });
        if ui
            .button("Browse…")
            .on_hover_text("Choose a folder (needs a desktop portal or zenity)")
            .clicked()
        {
            self.pick_folder();
        }
        if let Some(e) = &self.add_error {
            ui.colored_label(theme.chrome.error, e);
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

/// A directory typed in the sidebar's path fields, expanded (`~`).
pub fn expand_path(text: &str) -> PathBuf {
    match text.strip_prefix("~") {
        Some(rest) => {
            let home = dirs::home_dir().unwrap_or_default();
            home.join(rest.trim_start_matches('/'))
        }
        None => PathBuf::from(text),
    }
}
