//! One name per worktree (issue 51, item 2), through the binary on both faces (the
//! window under Xvfb and `tern --headless`): with tabs in a repository's worktrees
//! (`proj-fix-login` holding branch `fix-login`...), `tern msg list` names each by its
//! branch, with its branch, in the sidebar's order (git's: the main worktree first,
//! then by path), whatever order the tabs were opened in; in the window,
//! Ctrl+Shift+PageDown walks the worktrees in that order.
//!
//! Catches: `"worktree": "proj-fix-login", "branch": null` in the headless list (the
//! folder's name; the window's sidebar said `fix-login`), and worktrees kept in the
//! order they were opened (the keys walked main → fix-login → docs-update →
//! feat-api); seen failing so. Tabs whose program set no title are called by the same
//! name (they said `proj-feat-api`).

mod common;

use std::path::Path;

use common::git_repo;
use common::user::{Face, Start, on_both_faces};

use common::git;

/// The scenario on one face: four worktrees of a repository, a tab in each opened in
/// another order than git lists them; `list` names each by its branch, in the
/// sidebar's order. In the window, Ctrl+Shift+PageDown walks them in that order too
/// (the window's trace says which pane, in which folder, has the keys).
fn names_and_order(face: Face) {
    let mut tern = Start::new(face, "wt-names").run();
    let repo = git_repo(&tern.dir);
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
    // Opened in another order than git lists them.
    for folder in [
        "proj",
        "proj-fix-login",
        "proj-docs-update",
        "proj-feat-api",
    ] {
        let cwd = root.join(folder);
        tern.msg(&["new-tab", "--cwd", cwd.to_str().expect("utf-8")]);
    }
    let listed: Vec<(String, String)> = tern
        .panes()
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
    let sidebar = ["main", "docs-update", "feat-api", "fix-login"];
    let pairs: Vec<(String, String)> = sidebar
        .iter()
        .map(|n| ((*n).to_owned(), (*n).to_owned()))
        .collect();
    assert_eq!(
        listed, pairs,
        "each worktree under its branch, main first, then by folder"
    );
    // A tab whose shell set no title is called by its worktree's one name too, not by
    // the folder (`proj-feat-api`).
    let titles = tern.wait_for("the tabs titled by their worktrees", |t| {
        let titles: Vec<String> = t
            .panes()
            .iter()
            .filter(|p| {
                p["worktree_path"]
                    .as_str()
                    .is_some_and(|w| w.contains("proj"))
            })
            .map(|p| p["title"].as_str().unwrap_or("?").to_owned())
            .collect();
        (titles == sidebar).then_some(titles)
    });
    assert_eq!(titles, sidebar);
    let Some(display) = tern.display.take() else {
        return;
    };
    let display = &display;
    // The worktree keys, from the last tab opened (feat-api) round the ring.
    let trace = tern.dir.join("trace.jsonl");
    let focused = |trace: &Path| -> Vec<String> {
        std::fs::read_to_string(trace)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|e| e["event"] == "focus")
            .filter_map(|e| e["cwd"].as_str().map(str::to_owned))
            .collect()
    };
    let window = common::x11::tern_window(display);
    let mut walked = Vec::new();
    for _ in 0..5 {
        let seen = focused(&trace).len();
        common::x11::xdo(display, &["key", "--window", &window, "ctrl+shift+Next"]);
        let cwd = tern.wait_for("the next worktree focused", |_| {
            focused(&trace).get(seen).cloned()
        });
        let name = Path::new(&cwd)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        match name.strip_prefix("proj") {
            Some("") => walked.push("main".to_owned()),
            Some(rest) => walked.push(rest.trim_start_matches('-').to_owned()),
            None => {} // the first tab's folder, a worktree of no repository
        }
    }
    assert_eq!(
        walked,
        ["fix-login", "main", "docs-update", "feat-api"],
        "the keys walk the sidebar's order (from feat-api)"
    );
}

on_both_faces! {
    names_and_order:
        the_window_names_worktrees_by_branch_and_its_keys_walk_the_sidebars_order,
        headless_names_worktrees_by_branch_in_the_sidebars_order;
}
