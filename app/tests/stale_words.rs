//! Words that end with their state (issue 51, item 3), in the window's own code
//! (egui_kittest, a real pty): a program's notification with an empty title is not
//! left in the status line that a worktree with no tab shows, with a stray colon,
//! after its tab is gone or its question answered.
//!
//! Catches: every notification copied to the status line as "title: body" (an empty
//! OSC 777 title gave ": askagent needs your permission", shown on the emptied
//! worktree long after), seen failing so.

use std::time::Duration;

use tern::window::app::Launch;
use tern::window::app::TestView as _;
use tern_core::model::TermSize;
use tern_core::pipeline::SpawnSpec;

mod common;

#[test]
fn a_notification_leaves_no_words_behind_in_the_status_line() {
    let launch = Launch::new(
        SpawnSpec::command(
            "sh",
            &[
                "-c",
                "printf '\\033]777;notify;;askagent needs your permission\\007'; exec cat",
            ],
        )
        .size(TermSize::new(80, 24)),
    );
    let mut h = common::app_harness(launch, egui::vec2(800.0, 480.0));
    let arrived = common::step_until_or(&mut h, Duration::from_secs(20), |h| {
        let app = h.state().as_ref().expect("app");
        app.pane().is_some_and(|pane| {
            app.core()
                .pipeline()
                .activity(pane)
                .is_some_and(|r| r.last_notification.is_some())
        })
    });
    assert!(arrived, "the notification reached the pane");
    for _ in 0..5 {
        h.step();
    }
    let status = h
        .state()
        .as_ref()
        .and_then(|a| a.status().map(str::to_owned));
    assert_eq!(status, None, "the status line keeps no notification");
}
