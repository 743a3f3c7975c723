//! [`WorktreeError`]: what can go wrong with worktrees, each with a sentence for the UI.

use std::fmt;
use std::path::PathBuf;

/// What can go wrong; `Display` is a sentence for the UI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorktreeError {
    /// The path does not exist.
    NotFound { path: PathBuf },
    /// The path exists but is not inside a git repository.
    NotARepository { path: PathBuf },
    /// `git` could not be started (not installed, not on `PATH`).
    GitUnavailable { message: String },
    /// The new worktree's path already exists (and is not an empty directory).
    PathExists { path: PathBuf },
    /// The branch is checked out in another worktree.
    BranchTaken { branch: String, worktree: PathBuf },
    /// A new branch was asked for, but a branch of that name exists.
    BranchExists { branch: String },
    /// An existing branch was asked for, but there is none (locally, or on exactly one
    /// remote).
    BranchMissing { branch: String },
    /// Git does not accept the name as a branch name.
    InvalidBranchName { branch: String },
    /// The path is not one of this repository's worktrees.
    NotAWorktree { path: PathBuf },
    /// The main worktree cannot be removed.
    MainWorktree { path: PathBuf },
    /// The worktree has uncommitted changes or untracked files (remove with `force`).
    Dirty { path: PathBuf, changed_files: usize },
    /// The worktree is locked (`git worktree unlock` first).
    Locked { path: PathBuf, reason: String },
    /// Git refused; its message as it printed it.
    Git { command: String, stderr: String },
}

impl fmt::Display for WorktreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use WorktreeError::*;
        match self {
            NotFound { path } => write!(f, "{} does not exist.", path.display()),
            NotARepository { path } => {
                write!(f, "{} is not inside a git repository.", path.display())
            }
            GitUnavailable { message } => write!(f, "Could not run git: {message}."),
            PathExists { path } => write!(
                f,
                "{} already exists; choose another folder for the worktree.",
                path.display()
            ),
            BranchTaken { branch, worktree } => write!(
                f,
                "Branch {branch} is already checked out in {}.",
                worktree.display()
            ),
            BranchExists { branch } => write!(
                f,
                "A branch named {branch} already exists; pick another name or use the existing branch."
            ),
            BranchMissing { branch } => write!(f, "There is no branch named {branch}."),
            InvalidBranchName { branch } => {
                write!(f, "{branch:?} is not a valid branch name.")
            }
            NotAWorktree { path } => write!(
                f,
                "{} is not a worktree of this repository.",
                path.display()
            ),
            MainWorktree { path } => write!(
                f,
                "{} is the repository's main worktree and cannot be removed.",
                path.display()
            ),
            Dirty {
                path,
                changed_files,
            } => write!(
                f,
                "{} has {changed_files} changed or untracked file{}; commit or stash them, or remove it anyway.",
                path.display(),
                if *changed_files == 1 { "" } else { "s" }
            ),
            Locked { path, reason } => {
                write!(f, "{} is locked", path.display())?;
                if !reason.is_empty() {
                    write!(f, " ({reason})")?;
                }
                write!(f, "; unlock it with `git worktree unlock` first.")
            }
            Git { command, stderr } => {
                let msg = stderr.trim();
                if msg.is_empty() {
                    write!(f, "`{command}` failed.")
                } else {
                    write!(f, "`{command}` failed: {msg}")
                }
            }
        }
    }
}

impl std::error::Error for WorktreeError {}

pub type Result<T, E = WorktreeError> = std::result::Result<T, E>;
