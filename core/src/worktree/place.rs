//! Where a folder stands in git, read from git's own files without running git (so the
//! workspace core may ask on any thread, at once): the branch checked out there and
//! the repository it belongs to. A folder that is no worktree's top gives `None`.
//!
//! ```text
//!  main worktree   <dir>/.git/            HEAD: "ref: refs/heads/main"
//!  linked worktree <dir>/.git  (a file)   "gitdir: <repo>/.git/worktrees/<name>"
//!                  <repo>/.git/worktrees/<name>/HEAD, commondir ("../..")
//! ```

use std::io::Read;
use std::path::{Path, PathBuf};

/// The most of a git metadata file read (HEAD and `.git` files are a line).
const SMALL_FILE_BYTES: u64 = 4096;

/// A worktree's branch and repository.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GitPlace {
    /// The branch checked out, without `refs/heads/`; `None` when detached.
    pub branch: Option<String>,
    /// The repository's own working folder (its main worktree), symlinks resolved as
    /// git reports it.
    pub repo: PathBuf,
}

/// The first line of a small file.
fn first_line(path: &Path) -> Option<String> {
    let mut text = String::new();
    std::fs::File::open(path)
        .ok()?
        .take(SMALL_FILE_BYTES)
        .read_to_string(&mut text)
        .ok()?;
    Some(text.lines().next().unwrap_or_default().trim().to_owned())
}

/// Where `dir` stands in git, when it is the top of a worktree.
pub fn git_place(dir: &Path) -> Option<GitPlace> {
    let dot_git = dir.join(".git");
    let meta = std::fs::metadata(&dot_git).ok()?;
    let (git_dir, repo) = if meta.is_dir() {
        (
            dot_git,
            dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf()),
        )
    } else {
        let line = first_line(&dot_git)?;
        let target = PathBuf::from(line.strip_prefix("gitdir:")?.trim());
        let git_dir = if target.is_absolute() {
            target
        } else {
            dir.join(target)
        };
        // `commondir` points from the worktree's folder in .git/worktrees/ to .git.
        let common = first_line(&git_dir.join("commondir"))
            .map(|c| git_dir.join(c))
            .unwrap_or_else(|| git_dir.clone());
        let common = common.canonicalize().unwrap_or(common);
        let repo = common.parent()?.to_path_buf();
        (git_dir, repo)
    };
    let head = first_line(&git_dir.join("HEAD"))?;
    let branch = head
        .strip_prefix("ref:")
        .map(str::trim)
        .and_then(|r| r.strip_prefix("refs/heads/"))
        .map(str::to_owned);
    Some(GitPlace { branch, repo })
}
