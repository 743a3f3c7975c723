//! Search everywhere covers the panes closed during this session (issue 47): their
//! history, kept beside the session file, is searched by `tern msg search` (every pane,
//! or a worktree; not `--pane`), each line labelled `closed` with the pane's old id,
//! worktree, tab and title as last known, its line numbers those `get-text
//! --scrollback` gave while it was open. That history is kept only until tern ends
//! (removed at the end, and after a crash by the next start). Through the binary, in
//! the window (Xvfb) and headless.
//!
//! Catches: a closed pane's history removed at the close (nothing found), a closed pane
//! left out of `--worktree` or listed under another worktree, a closed pane's history
//! kept after tern ends or after a crash and a new start.

mod common;

use std::path::{Path, PathBuf};

use common::user::{Face, Start, Tern};

/// `tern msg search ARGS` as JSON values, one per match.
fn search(t: &Tern, args: &[&str]) -> Vec<serde_json::Value> {
    let mut all = vec!["search"];
    all.extend_from_slice(args);
    t.msg(&all)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// The folder of the history of panes closed in this session.
fn closed_dir(t: &Tern) -> PathBuf {
    t.home.join(".local/state/tern/history/closed")
}

/// Files under `dir` (none when it is not there).
fn files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// A pane in `dir` that prints `needle` on line `at` of 3,000 lines, then READY-`name`.
fn printer(t: &mut Tern, dir: &Path, name: &str, needle: &str) -> u64 {
    std::fs::create_dir_all(dir).expect("worktree folder");
    let script = format!(
        "awk 'BEGIN {{ for (i = 0; i < 3000; i++) \
           if (i == 1234) print \"{needle} in {name}\"; else print \"filler \" i }}'; \
         echo READY-{name}; exec sleep 600"
    );
    let pane: u64 = t
        .msg(&[
            "new-tab",
            "--cwd",
            dir.to_str().expect("utf-8"),
            "--title",
            &format!("tab-{name}"),
            "--",
            "sh",
            "-c",
            &script,
        ])
        .trim()
        .parse()
        .expect("a pane id");
    let ready = format!("READY-{name}");
    t.wait_for(&format!("pane {pane} printed"), |t| {
        t.msg(&["get-text", "--pane", &pane.to_string()])
            .contains(&ready)
            .then_some(())
    });
    pane
}

/// The 0-based line of `text` in the pane's `get-text --scrollback`.
fn line_of(t: &Tern, pane: u64, text: &str) -> u64 {
    let all = t.msg(&["get-text", "--pane", &pane.to_string(), "--scrollback"]);
    all.lines()
        .position(|l| l.trim_end() == text)
        .expect("the line is in the pane") as u64
}

fn closed_panes_are_searched_until_tern_ends(face: Face) {
    let mut t = Start::new(face, "search-closed").run();
    let (wt_a, wt_b) = (t.dir.join("wt-a"), t.dir.join("wt-b"));
    let gone = printer(&mut t, &wt_a, "gone", "needle-7");
    let open = printer(&mut t, &wt_b, "open", "needle-7");
    let gone_line = line_of(&t, gone, "needle-7 in gone");
    let open_line = line_of(&t, open, "needle-7 in open");
    let listed = t.pane(gone).expect("listed");
    t.msg(&["close", "--pane", &gone.to_string()]);
    t.wait_for("the pane closed", |t| t.pane(gone).is_none().then_some(()));

    // Every pane: the open one's line, and the closed one's from its kept history.
    let hits = search(&t, &["needle-7"]);
    assert_eq!(hits.len(), 2, "{hits:?}");
    let live = &hits[0];
    assert_eq!(live["pane"], open, "{live}");
    assert_eq!(live["closed"], false, "{live}");
    assert_eq!(live["line"], open_line, "{live}");
    let closed = &hits[1];
    assert_eq!(closed["pane"], gone, "the old id: {closed}");
    assert_eq!(closed["closed"], true, "{closed}");
    assert_eq!(closed["text"], "needle-7 in gone", "{closed}");
    assert_eq!(
        closed["line"], gone_line,
        "as get-text numbered it: {closed}"
    );
    assert_eq!(
        closed["worktree"], listed["worktree"],
        "{closed} vs {listed}"
    );
    assert_eq!(closed["worktree"], "wt-a", "{closed}");
    assert_eq!(closed["tab"], listed["tab"], "{closed} vs {listed}");
    assert_eq!(closed["title"], "tab-gone", "{closed}");
    // Its last screen too (the line after the needle's 1,765 lines of filler).
    let last = search(&t, &["READY-gone"]);
    assert_eq!(last.len(), 1, "{last:?}");
    assert_eq!(last[0]["closed"], true);

    // A worktree: the closed pane is in its own worktree, not in the other.
    let a = search(&t, &["needle-7", "--worktree", "wt-a"]);
    assert_eq!(a.len(), 1, "{a:?}");
    assert_eq!(a[0]["closed"], true);
    let b = search(&t, &["needle-7", "--worktree", "wt-b"]);
    assert_eq!(b.len(), 1, "{b:?}");
    assert_eq!(b[0]["pane"], open);
    // `--pane` names an open pane only.
    let out = t.msg_output(&["search", "needle-7", "--pane", &gone.to_string()]);
    assert!(!out.status.success(), "a closed pane by id");

    // Kept only until tern ends.
    assert!(!files(&closed_dir(&t)).is_empty(), "kept while tern runs");
    t.sigterm();
    t.wait_exit("tern ends on SIGTERM");
    assert_eq!(
        files(&closed_dir(&t)),
        Vec::<String>::new(),
        "the closed pane's history outlived tern"
    );
}

common::user::on_both_faces! {
    closed_panes_are_searched_until_tern_ends:
        closed_panes_are_searched_in_the_window, closed_panes_are_searched_headless;
}

/// A tern killed with a closed pane's history kept: the next start removes it (it is
/// never kept past its session), and finds nothing of it.
#[test]
fn a_crash_leaves_no_closed_history_past_the_next_start() {
    let mut t = Start::new(Face::Headless, "search-closed-crash").run();
    let dir = t.dir.join("wt-a");
    let gone = printer(&mut t, &dir, "gone", "needle-9");
    t.msg(&["close", "--pane", &gone.to_string()]);
    t.wait_for("the pane closed", |t| t.pane(gone).is_none().then_some(()));
    assert_eq!(search(&t, &["needle-9"]).len(), 1);
    assert!(!files(&closed_dir(&t)).is_empty(), "kept while tern runs");
    t.crash();
    assert!(
        !files(&closed_dir(&t)).is_empty(),
        "a crash removes nothing"
    );
    let mut t = Start::new(Face::Headless, "search-closed-crash")
        .again(t)
        .run();
    t.wait_for("the killed tern's closed history removed", |t| {
        files(&closed_dir(t)).is_empty().then_some(())
    });
    let out = t.msg_output(&["search", "needle-9"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).trim().is_empty(),
        "{out:?}"
    );
}
