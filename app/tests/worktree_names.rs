//! One name per worktree (issue 51, item 2), through the binary: `tern --headless`
//! with tabs in a repository's worktrees (`proj-fix-login` holding branch
//! `fix-login`...) lists each under its branch, with its branch, in the sidebar's
//! order (git's: the main worktree first, then by path), whatever order the tabs were
//! opened in. The worktree keys walk the core's order, so they walk this one.
//!
//! Catches: `"worktree": "proj-fix-login", "branch": null` in the headless list (the
//! folder's name; the window's sidebar said `fix-login`), and worktrees kept in the
//! order they were opened; seen failing so.

mod common;

use std::path::Path;

use common::git_repo;
use common::headless::{Served, pane_id, scratch};

fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

#[test]
fn every_face_names_a_worktree_by_its_branch_in_the_sidebars_order() {
    let dir = scratch("wt-names");
    let repo = git_repo(&dir);
    let root = repo.parent().expect("a parent").to_path_buf();
    for branch in ["fix-login", "docs-update", "feat-api"] {
        let folder = root.join(format!("proj-{branch}"));
        git(
            &repo,
            &[
                "worktree",
                "add",
                "-q",
                "-b",
                branch,
                folder.to_str().expect("utf-8"),
            ],
        );
    }
    let served = Served::start(&dir, &[]);
    // Opened in another order than git lists them.
    for folder in [
        "proj",
        "proj-fix-login",
        "proj-docs-update",
        "proj-feat-api",
    ] {
        let cwd = root.join(folder);
        pane_id(&served.ok(&["new-tab", "--cwd", cwd.to_str().expect("utf-8")]));
    }
    let listed: Vec<(String, String)> = served
        .list()
        .iter()
        .filter(|p| {
            p["worktree_path"]
                .as_str()
                .is_some_and(|w| w.contains("proj"))
        })
        .map(|p| {
            (
                p["worktree"].as_str().unwrap_or("?").to_owned(),
                p["branch"].as_str().unwrap_or("null").to_owned(),
            )
        })
        .collect();
    let pairs = |names: &[&str]| -> Vec<(String, String)> {
        names
            .iter()
            .map(|n| ((*n).to_owned(), (*n).to_owned()))
            .collect()
    };
    assert_eq!(
        listed,
        pairs(&["main", "docs-update", "feat-api", "fix-login"]),
        "each worktree under its branch, main first, then by folder"
    );
}
