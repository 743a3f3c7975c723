//! The window harness started from a command line through the binary's own start-up
//! (`tern::startup::WindowStart`, which `main` calls): what `main` sets up before the
//! window (settings, shell integration, the exit behaviour) holds in the harness too.

use std::time::Duration;

mod common;
use common::Slot;
use egui_kittest::Harness;
use tern::window::app::TestView as _;

fn started(args: &[&str]) -> (Harness<'static, Slot>, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("dir");
    let config = dir.path().join("no-config.ron");
    let mut all = vec!["--config", config.to_str().expect("utf-8")];
    all.extend_from_slice(args);
    (
        common::app_harness_from_args(&all, egui::vec2(800.0, 480.0)),
        dir,
    )
}

/// `tern -e bash` in the harness: bash gets tern's shell integration, as in the
/// binary, so a command run at its prompt comes back as marks (the last command and
/// its status). Catches the harness building its launch apart from `main` (no
/// integration folder: no marks), the break that shipped while this suite was green.
#[test]
fn bash_started_like_the_binary_sends_its_marks() {
    let (mut h, _dir) = started(&["-e", "bash", "--noprofile"]);
    h.step();
    let app = h.state().as_ref().expect("app");
    let pane = app.pane().expect("a pane");
    let pipeline = app.core().pipeline().clone();
    pipeline.write(pane, b"false\n");
    let last = |_: &Harness<'_, Slot>| {
        pipeline
            .activity(pane)
            .and_then(|a| a.last_command)
            .is_some_and(|c| c.exit_code == Some(1))
    };
    assert!(
        common::step_until_or(&mut h, Duration::from_secs(30), last),
        "no marks from bash: {:?}",
        pipeline.activity(pane)
    );
}

/// `-o shell_integration=false` on the command line reaches the harness's shell: no
/// marks then (after the command's output and the next prompt), the output still shown.
/// The other side of the test above. Catches integration set whatever the settings say.
#[test]
fn the_command_lines_settings_reach_the_window() {
    let (mut h, _dir) = started(&["-o", "shell_integration=false", "-e", "bash", "--noprofile"]);
    h.step();
    let app = h.state().as_ref().expect("app");
    let pane = app.pane().expect("a pane");
    let pipeline = app.core().pipeline().clone();
    pipeline.write(pane, b"echo ran; false\n");
    // The output, then the next prompt: marks would have come before it.
    assert!(
        common::step_until_or(&mut h, Duration::from_secs(30), |h| {
            let rows = common::screen_rows(h);
            rows.iter()
                .position(|r| r == "ran")
                .is_some_and(|i| rows.get(i + 1).is_some_and(|r| !r.is_empty()))
        }),
        "the command's output: {:?}",
        common::screen_rows(&h)
    );
    assert!(
        pipeline
            .activity(pane)
            .and_then(|a| a.last_command)
            .is_none(),
        "no integration, no marks"
    );
}
