//! Changes at a glance (issue 51, item 10), in the window's own code (egui_kittest,
//! real ptys, real git): a worktree whose branch committed a file and changed another
//! shows, on its sidebar row, what it changed against the main branch (files, +added
//! −removed: committed and uncommitted, counted by the sidebar's git thread), and
//! "Review changes" (Ctrl+Shift+Alt+D) opens a tab there running `review_command`
//! with `{base}` as the main branch.
//!
//! Catches: no diff on the row, and no review command; seen failing so (the row's
//! label had no "+4 −1", the key did nothing).

use std::time::Duration;

use egui::{Key, Modifiers};
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use tern::window::app::Launch;
use tern::window::app::TestView as _;
use tern_core::model::TermSize;
use tern_core::pipeline::SpawnSpec;

mod common;

use common::git;

#[test]
fn a_worktrees_row_shows_its_changes_and_review_opens_a_tab_on_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = common::git_repo(dir.path());
    let feat = dir.path().join("proj-feat");
    git(
        &repo,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "feat",
            feat.to_str().expect("utf-8"),
        ],
    );
    // Committed: a new file of 3 lines; not committed: README's line changed.
    std::fs::write(feat.join("a.txt"), "one\ntwo\nthree\n").expect("write");
    git(&feat, &["add", "a.txt"]);
    git(&feat, &["commit", "-q", "-m", "a"]);
    std::fs::write(feat.join("README"), "hello\n").expect("write");

    let record = dir.path().join("review.txt");
    let config = dir.path().join("config.ron");
    std::fs::write(
        &config,
        format!(
            "(review_command: Some(\"echo base={{base}} > '{}'; exec sleep 60\"))",
            record.display()
        ),
    )
    .expect("config");
    let mut launch = Launch::new(
        SpawnSpec::command("sh", &[])
            .cwd(&feat)
            .size(TermSize::new(80, 24)),
    );
    launch.config = tern::window::settings::ConfigSource::File(config);
    let mut h = common::app_harness(launch, egui::vec2(1000.0, 600.0));
    let ctrl_shift = Modifiers::CTRL | Modifiers::SHIFT;
    h.key_press_modifiers(ctrl_shift, Key::B);
    let shown = common::step_until_or(&mut h, Duration::from_secs(30), |h| {
        h.query_all_by_label_contains("worktree feat").any(|n| {
            n.accesskit_node()
                .label()
                .is_some_and(|l| l.contains("2 files +4 −1"))
        })
    });
    let labels: Vec<String> = h
        .query_all_by_label_contains("worktree ")
        .filter_map(|n| n.accesskit_node().label())
        .collect();
    assert!(shown, "the row says what feat changed: {labels:?}");

    h.key_press_modifiers(ctrl_shift | Modifiers::ALT, Key::D);
    let reviewed = common::step_until_or(&mut h, Duration::from_secs(30), |_| {
        std::fs::read_to_string(&record).is_ok_and(|t| t == "base=main\n")
    });
    assert!(
        reviewed,
        "the review command ran against main: {:?}",
        std::fs::read_to_string(&record)
    );
    let app = h.state().as_ref().expect("app");
    let group = app.core().ws().active_group().expect("a group");
    assert_eq!(group.path, feat.canonicalize().expect("canonical"));
    assert_eq!(group.tabs.len(), 2, "the review is a tab of the worktree");
}
