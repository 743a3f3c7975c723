//! Git worktrees through the `git` CLI (no libgit2): open a repository, list its
//! worktrees with their dirty state and ahead/behind counts, add and remove worktrees,
//! and a cheap stamp that tells when git's metadata changed.
//!
//! Every call here **blocks** on a `git` subprocess (a `list` of a large repository can
//! take a while). The app never calls them on the UI thread: it sends requests to a
//! [`GitWorker`] and polls its responses once per frame.
//!
//! ```text
//!  UI ──GitRequest{id}──▶ "tern-git" thread ── git -C <dir> ... ──▶ GitResponse{id} ──▶ UI
//!                                                                    + waker (repaint)
//! ```
//!
//! Errors a user can cause (the path exists, the branch is checked out elsewhere, the
//! worktree has changes) are checked before git runs and come back as their own
//! [`WorktreeError`] variants; anything else git refuses comes back with git's stderr.

mod diffstat;
mod error;
mod parse;
mod place;
mod worker;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::SystemTime;

pub use diffstat::{DiffStat, diff_against, parse_numstat};
pub use error::{Result, WorktreeError};
pub use parse::{WorktreeRecord, parse_status_v2, parse_worktree_list};
pub use place::{GitPlace, git_place};
pub use worker::{GitReply, GitRequest, GitResponse, GitWorker, RequestId};

/// At most this many `git status` processes run at once while listing.
const STATUS_PARALLELISM: usize = 4;

/// Commits ahead of and behind the upstream branch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AheadBehind {
    pub ahead: u32,
    pub behind: u32,
}

/// The state of a worktree's files, from one `git status` call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorktreeStatus {
    /// Changed, staged, conflicted and untracked files (ignored files do not count).
    pub changed_files: usize,
    /// `None` when the branch has no upstream (or it is gone, or HEAD is detached).
    pub ahead_behind: Option<AheadBehind>,
    /// What it changed against the repository's main branch (`None`: not known, or
    /// no main branch to compare with).
    pub diff: Option<DiffStat>,
}

impl WorktreeStatus {
    pub fn is_dirty(&self) -> bool {
        self.changed_files > 0
    }
}

/// One worktree of a repository.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Worktree {
    /// Absolute path as git reports it (symlinks resolved).
    pub path: PathBuf,
    /// The commit checked out; `None` for a bare repository's entry.
    pub head: Option<String>,
    /// Branch name without `refs/heads/`; `None` when detached or bare.
    pub branch: Option<String>,
    pub detached: bool,
    pub bare: bool,
    /// The first worktree: the repository's own working directory.
    pub is_main: bool,
    /// `Some(reason)` (possibly empty) when locked.
    pub locked: Option<String>,
    /// `Some(reason)` when its directory is gone and git would prune it.
    pub prunable: Option<String>,
    /// `None` when not computed (bare, prunable, or listed with
    /// [`Repo::list_quick`]).
    pub status: Option<WorktreeStatus>,
}

impl Worktree {
    /// A short label: the branch, else the folder name.
    pub fn name(&self) -> String {
        if let Some(b) = &self.branch {
            return b.clone();
        }
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.path.display().to_string())
    }

    pub fn is_dirty(&self) -> bool {
        self.status.as_ref().is_some_and(WorktreeStatus::is_dirty)
    }

    fn from_record(rec: WorktreeRecord, is_main: bool) -> Worktree {
        Worktree {
            branch: rec
                .branch_ref
                .as_deref()
                .map(|r| r.strip_prefix("refs/heads/").unwrap_or(r).to_owned()),
            path: rec.path,
            head: rec.head,
            detached: rec.detached,
            bare: rec.bare,
            is_main,
            locked: rec.locked,
            prunable: rec.prunable,
            status: None,
        }
    }
}

/// Which branch a new worktree checks out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BranchSpec {
    /// Create `name`, starting at `base` (a branch, tag or commit; `None`: the main
    /// worktree's HEAD).
    New { name: String, base: Option<String> },
    /// Check out the existing branch `name` (a local branch, or a branch on exactly one
    /// remote, which git then tracks).
    Existing(String),
}

/// When any of these files or directories changes, git's view of the worktrees may
/// have changed: compare two stamps to decide whether to list again. Covers HEADs,
/// indexes, refs, `packed-refs`, `FETCH_HEAD`, the config (upstreams), the worktree
/// registrations and whether each registered worktree's folder exists. It does not see
/// edits to working files (the dirty state): list again when a pane reports a command
/// finished, or on focus.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StateStamp(Vec<(PathBuf, Option<(SystemTime, u64)>)>);

/// An opened repository.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repo {
    root: PathBuf,
    common_dir: PathBuf,
}

impl Repo {
    /// Opens the repository that contains `path` (the main worktree, a linked worktree,
    /// any folder or file inside one).
    pub fn open(path: impl AsRef<Path>) -> Result<Repo> {
        let given = path.as_ref();
        if !given.exists() {
            return Err(WorktreeError::NotFound {
                path: given.to_owned(),
            });
        }
        let path = match given.parent() {
            Some(parent) if !given.is_dir() => parent,
            _ => given,
        };
        let out = run_raw(
            path,
            ["rev-parse", "--path-format=absolute", "--git-common-dir"],
        )?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            if stderr.contains("not a git repository") {
                return Err(WorktreeError::NotARepository {
                    path: given.to_owned(),
                });
            }
            return Err(git_failure(&["rev-parse"], &out));
        }
        let common_dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim_end());
        let records = list_records(path)?;
        let root = records.first().map(|r| r.path.clone()).ok_or_else(|| {
            WorktreeError::NotARepository {
                path: path.to_owned(),
            }
        })?;
        Ok(Repo { root, common_dir })
    }

    /// The main worktree's folder (for a bare repository: the repository itself).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The shared `.git` directory.
    pub fn common_dir(&self) -> &Path {
        &self.common_dir
    }

    /// The folder name of the main worktree, for the sidebar.
    pub fn name(&self) -> String {
        self.root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.root.display().to_string())
    }

    /// The worktrees with their status (one `git status` and one `git diff` against
    /// the main worktree's branch per worktree, a few at once).
    pub fn list(&self) -> Result<Vec<Worktree>> {
        let mut worktrees = self.list_quick()?;
        let base = worktrees.first().and_then(|w| w.branch.clone());
        let wanted: Vec<usize> = (0..worktrees.len())
            .filter(|&i| {
                let w = &worktrees[i];
                !w.bare && w.prunable.is_none() && w.path.is_dir()
            })
            .collect();
        for batch in wanted.chunks(STATUS_PARALLELISM) {
            let results: Vec<(usize, Result<WorktreeStatus>)> = std::thread::scope(|s| {
                let handles: Vec<_> = batch
                    .iter()
                    .map(|&i| {
                        let path = worktrees[i].path.clone();
                        let base = base.clone();
                        (
                            i,
                            s.spawn(move || {
                                let mut found = status(&path)?;
                                found.diff = base.and_then(|b| diff_against(&path, &b).ok());
                                Ok(found)
                            }),
                        )
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|(i, h)| {
                        let r = h.join().unwrap_or_else(|_| {
                            Err(WorktreeError::GitUnavailable {
                                message: "the status thread panicked".into(),
                            })
                        });
                        (i, r)
                    })
                    .collect()
            });
            for (i, r) in results {
                // A worktree removed while listing has no status; that is not an error.
                worktrees[i].status = r.ok();
            }
        }
        Ok(worktrees)
    }

    /// The worktrees without status: one git call.
    pub fn list_quick(&self) -> Result<Vec<Worktree>> {
        Ok(list_records(&self.root)?
            .into_iter()
            .enumerate()
            .map(|(i, rec)| Worktree::from_record(rec, i == 0))
            .collect())
    }

    /// Adds a worktree at `path` (relative paths are taken from the main worktree's
    /// folder) and returns it with its status.
    pub fn add(&self, path: impl AsRef<Path>, branch: BranchSpec) -> Result<Worktree> {
        let path = self.absolute(path.as_ref());
        if path.exists() && !is_empty_dir(&path) {
            return Err(WorktreeError::PathExists { path });
        }
        let current = self.list_quick()?;
        let name;
        let mut args: Vec<&OsStr> = vec!["worktree".as_ref(), "add".as_ref()];
        match &branch {
            BranchSpec::New { name: n, base } => {
                name = normalize_branch(n);
                self.check_branch_name(&name)?;
                if self.local_branch_exists(&name)? {
                    return Err(WorktreeError::BranchExists { branch: name });
                }
                args.extend(["-b".as_ref(), name.as_ref(), path.as_os_str()]);
                if let Some(base) = base {
                    args.push(base.as_ref());
                }
            }
            BranchSpec::Existing(n) => {
                name = normalize_branch(n);
                self.check_branch_name(&name)?;
                if let Some(w) = current
                    .iter()
                    .find(|w| w.branch.as_deref() == Some(name.as_str()))
                {
                    return Err(WorktreeError::BranchTaken {
                        branch: name,
                        worktree: w.path.clone(),
                    });
                }
                if !self.local_branch_exists(&name)? && self.remote_branches(&name)? != 1 {
                    return Err(WorktreeError::BranchMissing { branch: name });
                }
                args.extend([path.as_os_str(), name.as_ref()]);
            }
        }
        self.git_ok(&args)?;
        let target = canonical(&path);
        let mut added = self
            .list_quick()?
            .into_iter()
            .find(|w| canonical(&w.path) == target)
            .ok_or_else(|| WorktreeError::NotAWorktree { path: path.clone() })?;
        added.status = status(&added.path).ok();
        Ok(added)
    }

    /// Removes the worktree at `path` (its folder and git's registration; the branch
    /// stays). Refuses the main worktree, a locked one, and one with changes unless
    /// `force`.
    pub fn remove(&self, path: impl AsRef<Path>, force: bool) -> Result<()> {
        let path = self.absolute(path.as_ref());
        let target = canonical(&path);
        let worktree = self
            .list_quick()?
            .into_iter()
            .find(|w| canonical(&w.path) == target || w.path == path)
            .ok_or_else(|| WorktreeError::NotAWorktree { path: path.clone() })?;
        if worktree.is_main || worktree.bare {
            return Err(WorktreeError::MainWorktree {
                path: worktree.path,
            });
        }
        if let Some(reason) = worktree.locked {
            return Err(WorktreeError::Locked {
                path: worktree.path,
                reason,
            });
        }
        if !force && worktree.path.is_dir() {
            let st = status(&worktree.path)?;
            if st.is_dirty() {
                return Err(WorktreeError::Dirty {
                    path: worktree.path,
                    changed_files: st.changed_files,
                });
            }
        }
        let mut args: Vec<&OsStr> = vec!["worktree".as_ref(), "remove".as_ref()];
        if force {
            args.push("--force".as_ref());
        }
        args.push(worktree.path.as_os_str());
        self.git_ok(&args)?;
        Ok(())
    }

    /// Forgets worktrees whose folders were deleted by hand.
    pub fn prune(&self) -> Result<()> {
        self.git_ok(&["worktree", "prune"])?;
        Ok(())
    }

    /// Modification times of git's metadata; see [`StateStamp`]. Only `stat`s (and one
    /// small read per linked worktree): cheap enough to poll.
    pub fn state_stamp(&self) -> StateStamp {
        let c = &self.common_dir;
        let mut paths: Vec<PathBuf> = [
            "HEAD",
            "index",
            "packed-refs",
            "FETCH_HEAD",
            "config",
            "worktrees",
            "reftable",
        ]
        .iter()
        .map(|p| c.join(p))
        .collect();
        // A ref update renames `x.lock` onto `x`, which changes its directory's mtime.
        collect_dirs(&c.join("refs"), &mut paths, 0);
        if let Ok(entries) = std::fs::read_dir(c.join("worktrees")) {
            let mut admin: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            admin.sort();
            for dir in admin {
                paths.push(dir.join("HEAD"));
                paths.push(dir.join("index"));
                paths.push(dir.join("locked"));
                if let Ok(gitdir) = std::fs::read_to_string(dir.join("gitdir")) {
                    // The worktree's folder (its `.git` file): gone means prunable.
                    paths.push(PathBuf::from(gitdir.trim_end()));
                }
            }
        }
        StateStamp(
            paths
                .into_iter()
                .map(|p| {
                    let meta = std::fs::metadata(&p).ok();
                    let stamp = meta.and_then(|m| Some((m.modified().ok()?, m.len())));
                    (p, stamp)
                })
                .collect(),
        )
    }

    fn absolute(&self, path: &Path) -> PathBuf {
        if path.is_absolute() {
            path.to_owned()
        } else {
            self.root.join(path)
        }
    }

    fn git_ok<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<Output> {
        let out = run_raw(&self.root, args)?;
        if out.status.success() {
            Ok(out)
        } else {
            Err(git_failure(args, &out))
        }
    }

    fn check_branch_name(&self, name: &str) -> Result<()> {
        let out = run_raw(&self.root, ["check-ref-format", "--branch", name])?;
        if out.status.success() && !name.is_empty() {
            Ok(())
        } else {
            Err(WorktreeError::InvalidBranchName {
                branch: name.to_owned(),
            })
        }
    }

    fn local_branch_exists(&self, name: &str) -> Result<bool> {
        let out = run_raw(
            &self.root,
            [
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("refs/heads/{name}"),
            ],
        )?;
        Ok(out.status.success())
    }

    /// How many remotes have a branch called `name`.
    fn remote_branches(&self, name: &str) -> Result<usize> {
        let out = self.git_ok(&["for-each-ref", "--format=%(refname)", "refs/remotes/"])?;
        let suffix = format!("/{name}");
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|r| r.strip_prefix("refs/remotes/"))
            .filter(|r| {
                r.strip_suffix(&suffix)
                    .is_some_and(|remote| !remote.is_empty() && !remote.contains('/'))
            })
            .count())
    }
}

/// The status of one worktree (`git status --porcelain=v2 --branch`, without taking
/// the index lock, so a background refresh never collides with the user's git).
pub fn status(worktree: &Path) -> Result<WorktreeStatus> {
    let args = [
        "status",
        "--porcelain=v2",
        "--branch",
        "-z",
        "--untracked-files=normal",
    ];
    let out = run_raw(worktree, args)?;
    if !out.status.success() {
        return Err(git_failure(&args, &out));
    }
    Ok(parse_status_v2(&out.stdout))
}

fn list_records(dir: &Path) -> Result<Vec<WorktreeRecord>> {
    let args = ["worktree", "list", "--porcelain", "-z"];
    let out = run_raw(dir, args)?;
    if !out.status.success() {
        return Err(git_failure(&args, &out));
    }
    Ok(parse_worktree_list(&out.stdout))
}

/// Runs `git -C dir args...` with a clean environment: no inherited `GIT_DIR` and
/// friends (tern may be started from a git hook), no prompts, no optional locks, C
/// locale (stable messages).
fn run_raw<I, S>(dir: &Path, args: I) -> Result<Output>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    // A folder deleted while open (a repository removed behind tern's back) says so,
    // rather than through git's "cannot change to" message.
    if !dir.is_dir() {
        return Err(WorktreeError::NotFound {
            path: dir.to_owned(),
        });
    }
    let mut cmd = Command::new("git");
    cmd.arg("-C").arg(dir).args(args);
    for var in [
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_COMMON_DIR",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_PREFIX",
        "GIT_NAMESPACE",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C")
        .stdin(Stdio::null());
    cmd.output().map_err(|e| WorktreeError::GitUnavailable {
        message: e.to_string(),
    })
}

fn git_failure<S: AsRef<OsStr>>(args: &[S], out: &Output) -> WorktreeError {
    let mut command = String::from("git");
    for a in args {
        command.push(' ');
        command.push_str(&a.as_ref().to_string_lossy());
    }
    WorktreeError::Git {
        command,
        stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
    }
}

fn normalize_branch(name: &str) -> String {
    name.strip_prefix("refs/heads/").unwrap_or(name).to_owned()
}

fn is_empty_dir(path: &Path) -> bool {
    std::fs::read_dir(path).is_ok_and(|mut d| d.next().is_none())
}

/// The canonical form of a path that may not exist yet (its parent is resolved).
fn canonical(path: &Path) -> PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => parent
            .canonicalize()
            .map(|p| p.join(name))
            .unwrap_or_else(|_| path.to_owned()),
        _ => path.to_owned(),
    }
}

fn collect_dirs(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    // Branch names nest (`feature/x`); 8 levels is far beyond real use.
    if depth > 8 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    out.push(dir.to_owned());
    let mut subdirs: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    subdirs.sort();
    for d in subdirs {
        collect_dirs(&d, out, depth + 1);
    }
}
