//! Search everywhere in the real window under Xvfb also lists the panes closed during
//! this session (issue 47), from the history kept of them until tern exits: in a group
//! of their own after the open panes. There is no pane to reveal, so Enter on a closed
//! pane's line copies it to the clipboard (read back with `xclip -o`) and the focus
//! stays where it was. Needs xvfb, xdotool and xclip.
//!
//! Catches: a closed pane's history not searched (only the open pane listed), Enter on a
//! closed pane's line revealing some other pane, or doing nothing.

mod common;

use std::path::Path;
use std::process::Command;

use common::x11::*;

/// The trace's events named `event`, parsed.
fn events(trace: &Path, event: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(trace)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["event"] == event)
        .collect()
}

fn focused(socket: &Path) -> u64 {
    let list: serde_json::Value = serde_json::from_str(&msg(socket, &["list"])).expect("JSON");
    list.as_array()
        .expect("array")
        .iter()
        .find(|p| p["focused"] == true)
        .and_then(|p| p["id"].as_u64())
        .expect("a focused pane")
}

/// The X CLIPBOARD's text (`xclip -o`), or `None` when it is empty.
fn clipboard(display: &Display) -> Option<String> {
    let out = Command::new("xclip")
        .args(["-selection", "clipboard", "-o"])
        .env("DISPLAY", &display.name)
        .output()
        .unwrap_or_else(|e| panic!("xclip: {e} (apt-get install xclip)"));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (!text.is_empty()).then_some(text)
}

/// A tab printing `needle` 2,000 lines up, then READY-`name`; waits for it.
fn printer(socket: &Path, dir: &Path, name: &str, needle: &str) -> u64 {
    let script = format!(
        "echo '{needle}'; awk 'BEGIN {{ for (i = 0; i < 2000; i++) print \"filler \" i }}'; \
         echo READY-{name}; exec sleep 600"
    );
    let pane: u64 = msg(socket, &["new-tab", "--", "sh", "-c", &script])
        .trim()
        .parse()
        .expect("a pane id");
    let ready = format!("READY-{name}");
    wait_for(&format!("pane {pane} printed"), dir, || {
        msg(socket, &["get-text", "--pane", &pane.to_string()])
            .contains(&ready)
            .then_some(())
    });
    pane
}

#[test]
fn search_everywhere_lists_a_closed_panes_line_and_copies_it() {
    let display = start_xvfb_sized("1280x800x24");
    let (dir, runtime) = scratch("everywhere-closed");
    let (_tern, trace) = start_tern(&display, &dir, &runtime, &["--cols", "100"]);
    wait_trace(&trace, &dir, "no first frame", |t| {
        t.contains("first_output_frame_built")
    });
    let socket = runtime.join("tern").join("session.sock");
    wait_for("the socket", &dir, || socket.exists().then_some(()));
    let gone = printer(&socket, &dir, "gone", "plover-31 was here");
    let open = printer(&socket, &dir, "open", "plover-32 stays");
    msg(&socket, &["close", "--pane", &gone.to_string()]);
    wait_for("the pane closed", &dir, || {
        let list: serde_json::Value = serde_json::from_str(&msg(&socket, &["list"])).expect("JSON");
        let ids: Vec<u64> = list
            .as_array()
            .expect("array")
            .iter()
            .filter_map(|p| p["id"].as_u64())
            .collect();
        (!ids.contains(&gone)).then_some(())
    });
    let window = tern_window(&display);
    wait_for("the open pane focused", &dir, || {
        (focused(&socket) == open).then_some(())
    });

    xdo(
        &display,
        &[
            "key",
            "--delay",
            "40",
            "--window",
            &window,
            "ctrl+shift+alt+f",
        ],
    );
    xdo(
        &display,
        &["type", "--delay", "30", "--window", &window, "plover-3"],
    );
    let done = wait_for("search everywhere for plover-3 done", &dir, || {
        events(&trace, "everywhere_done")
            .into_iter()
            .rfind(|v| v["query"] == "plover-3")
    });
    let want = serde_json::json!({
        open.to_string(): 1,
        format!("closed-{gone}"): 1,
    });
    assert_eq!(
        done["hits"], want,
        "the open pane's line and the closed one's: {done}"
    );

    // The closed pane's line is listed second (its group comes last): Down, Enter.
    xdo(
        &display,
        &[
            "key", "--delay", "80", "--window", &window, "Down", "Return",
        ],
    );
    let copied = wait_for("the closed pane's line copied", &dir, || {
        events(&trace, "found_copied").into_iter().next()
    });
    assert_eq!(copied["pane"], gone, "{copied}");
    let text = wait_for("the clipboard holds the line", &dir, || {
        clipboard(&display).filter(|t| t.contains("plover"))
    });
    assert_eq!(text.trim_end(), "plover-31 was here");
    assert!(
        events(&trace, "found_shown").is_empty(),
        "no pane was revealed for a closed pane's line"
    );
    assert_eq!(focused(&socket), open, "the focus stays");
    if let Some(shot) = std::env::var_os("TERN_SHOT") {
        let _ = Command::new("import")
            .env("DISPLAY", &display.name)
            .args(["-window", "root"])
            .arg(shot)
            .status();
    }
}
