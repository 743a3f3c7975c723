//! The small things of a day's use (issue 51, item 9) that only the window shows, in
//! the real window under Xvfb driven by xdotool and read from its trace: copy mode
//! says it is on (and which selection), and the palette marks the theme in use and
//! chooses it first when a query shows it. (The sidebar's "1 tab" is in
//! `review_changes_xvfb.rs`; `tern msg`'s words in `daily_use.rs`.) Needs xvfb and
//! xdotool.
//!
//! Catches: copy mode with no indicator, and the palette highlighting "Theme: Dark"
//! while Dracula is on; each seen failing so.

mod common;

use std::path::Path;

use common::x11::*;

/// The fields of the last `event` the trace holds for `key`.
fn last(trace: &Path, event: &str, key: &str) -> Option<serde_json::Value> {
    std::fs::read_to_string(trace)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .rfind(|e| e["event"] == event && e["key"] == key)
}

#[test]
fn copy_mode_shows_its_mode_and_the_palette_marks_the_theme_in_use() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("small-things");
    std::fs::write(dir.join("no-config.ron"), "(theme: (name: \"Dracula\"))").expect("config");
    let (_tern, trace) = start_tern(
        &display,
        &dir,
        &runtime,
        &[
            "--cols",
            "60",
            "--rows",
            "10",
            "-e",
            "sh",
            "-c",
            "printf 'one\\ntwo\\n'; exec sleep 600",
        ],
    );
    wait_trace(&trace, &dir, "no first frame", |t| {
        t.contains("first_output_frame_built")
    });
    let window = tern_window(&display);
    let shown = |want: &'static str| {
        wait_for(&format!("copy mode shows {want:?}"), &dir, || {
            let e = last(&trace, "copy_mode", "1")?;
            (e["shown"] == want).then_some(())
        })
    };

    xdo(&display, &["key", "--window", &window, "ctrl+shift+space"]);
    shown("COPY");
    xdo(&display, &["key", "--window", &window, "v"]);
    shown("COPY · VISUAL");
    xdo(&display, &["key", "--window", &window, "Escape", "Escape"]);
    shown("");

    // The palette: a query naming themes chooses the one in use, marked so.
    xdo(&display, &["key", "--window", &window, "ctrl+shift+p"]);
    xdo(
        &display,
        &["type", "--delay", "40", "--window", &window, "theme"],
    );
    // (Typed a letter at a time: the choice settles on the theme in use.)
    let row = wait_for(
        "the palette chose Theme: Dracula for \"theme\"",
        &dir,
        || {
            let e = last(&trace, "picker_selected", "Command palette")?;
            (e["row"]["text"] == "Theme: Dracula").then_some(e["row"].clone())
        },
    );
    assert!(
        row["hint"]
            .as_str()
            .is_some_and(|h| h.starts_with("in use")),
        "{row}"
    );
}
