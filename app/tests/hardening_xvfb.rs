//! Hardening (issue 48) in the real window under Xvfb, driven by xdotool and read from
//! the app's trace (`TERN_TRACE`) and from what the platform opener was given: link
//! tooltips and what Ctrl+click hands on (item 6), hints on a huge screen (item 4).
//! Needs xvfb, xdotool and imagemagick. Each names the break it catches; each was seen
//! failing under it.

mod common;

use std::path::Path;

use common::x11::*;

/// The trace's events named `event`, parsed.
fn events(trace: &Path, event: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(trace)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["event"] == event)
        .collect()
}

/// A colour no theme uses: the blocks that show where the pane's cells are.
const MARK: (u8, u8, u8) = (200, 30, 150);

/// An OSC 8 link: `text` shown, `target` opened.
fn link(target: &str, text: &str) -> String {
    format!("\\033]8;;{target}\\033\\\\{text}\\033]8;;\\033\\\\")
}

/// Where the pane's cells are: the first row holds four blocks in [`MARK`] at columns
/// 0-3. Returns (left x, top y, cell width, cell height) in screen pixels.
fn cells(display: &Display, dir: &Path) -> (usize, usize, usize, usize) {
    let (x0, y0, x1, y1) = wait_for("four marked blocks on the first row", dir, || {
        Screen::grab(&display.name).bbox(MARK)
    });
    (x0, y0, (x1 - x0) / 4, y1 - y0)
}

/// Links in the window: hovering one shows a tooltip that leads with the host it
/// really goes to (past 1,900 dashes of user info; Punycode for a non-ASCII host)
/// and marks user info and text that names another host; Ctrl+click hands a `mailto:`
/// to the opener without its `attach` field and refuses a `file://` link to another
/// machine.
///
/// Catches: a tooltip that led with the target as written (accounts.google.com on its
/// first line, the real host on its 15th), no mark for a link whose text names
/// another host, the mailto passed on unchanged (`attach=/etc/passwd` to the mail
/// program), and a `file://` link to another host opened; each seen failing on its own.
#[test]
fn links_show_their_real_host_and_open_only_what_is_safe() {
    let display = start_xvfb_sized("1280x800x24");
    let (dir, runtime) = scratch("links-window");
    // The platform opener (the `open` crate tries xdg-open first): records what it got.
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let opened = dir.join("opened.txt");
    std::fs::write(
        bin.join("xdg-open"),
        format!("#!/bin/sh\necho \"$@\" >> '{}'\n", opened.display()),
    )
    .expect("opener");
    std::fs::set_permissions(
        bin.join("xdg-open"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let hidden = format!(
        "https://accounts.google.com{}@evil.example/steal",
        "-".repeat(1900)
    );
    let rows = [
        "\\033[38;2;200;30;150m\\342\\226\\210\\342\\226\\210\\342\\226\\210\\342\\226\\210\\033[0m"
            .to_owned(),
        link(&hidden, "Sign in to Google"),
        link("https://evil.example/login", "www.example.com/login"),
        link("https://b\\303\\274cher.example/", "Books"),
        link(
            "mailto:help@example.com?subject=hi&attach=/etc/passwd",
            "Write to us",
        ),
        link("file://elsewhere.example/etc/passwd", "A file over there"),
    ];
    let script = format!("printf '\\033[?25l{}'; exec sleep 600", rows.join("\\n"));
    let (_tern, trace) = start_tern_with(
        &display,
        &dir,
        &runtime,
        &["--cols", "60", "--rows", "10", "-e", "sh", "-c", &script],
        &[("PATH", &path)],
    );
    wait_trace(&trace, &dir, "no first frame", |t| {
        t.contains("first_output_frame_built")
    });
    let window = tern_window(&display);
    let (x0, y0, cell_w, cell_h) = cells(&display, &dir);
    // The middle of the third cell of `row`.
    let at = |row: usize| {
        (
            (x0 + 2 * cell_w + cell_w / 2).to_string(),
            (y0 + row * cell_h + cell_h / 2).to_string(),
        )
    };
    let tooltip_over = |row: usize| {
        let (x, y) = at(row);
        xdo(&display, &["mousemove", &x, &y]);
        let pane_tip = |t: &serde_json::Value| t["tooltip"].as_str().map(str::to_owned);
        wait_for(&format!("a tooltip over row {row}"), &dir, || {
            // The latest tooltip, once it is this row's link's (its target is in it).
            let tip = events(&trace, "link_tooltip").last().and_then(pane_tip)?;
            let wanted = [
                "",
                "accounts.google",
                "evil.example/login",
                "b\u{fc}cher",
                "mailto",
                "file",
            ][row];
            tip.contains(wanted).then_some(tip)
        })
    };

    let tip = tooltip_over(1);
    let lines: Vec<&str> = tip.lines().collect();
    assert_eq!(lines[0], "→ evil.example", "{tip}");
    assert!(lines[1].starts_with("⚠ text before \"@\""), "{tip}");

    let tip = tooltip_over(2);
    assert_eq!(tip.lines().next(), Some("→ evil.example"), "{tip}");
    assert!(
        tip.contains("⚠ the text shows www.example.com, the link goes to evil.example"),
        "{tip}"
    );

    let tip = tooltip_over(3);
    assert_eq!(tip.lines().next(), Some("→ xn--bcher-kva.example"), "{tip}");

    // Ctrl+click: the mailto reaches the opener without its attachment.
    let (x, y) = at(4);
    xdo(&display, &["mousemove", &x, &y]);
    xdo(
        &display,
        &[
            "keydown", "--window", &window, "ctrl", "click", "1", "keyup", "ctrl",
        ],
    );
    let got = wait_for("the opener was run", &dir, || {
        std::fs::read_to_string(&opened)
            .ok()
            .filter(|t| !t.is_empty())
    });
    assert_eq!(got.trim_end(), "mailto:help@example.com?subject=hi");

    // A file on another machine is refused, and never reaches the opener.
    let (x, y) = at(5);
    xdo(&display, &["mousemove", &x, &y]);
    xdo(
        &display,
        &[
            "keydown", "--window", &window, "ctrl", "click", "1", "keyup", "ctrl",
        ],
    );
    let refused = wait_for("the file link was refused", &dir, || {
        events(&trace, "link_refused").pop()
    });
    assert_eq!(refused["uri"], "file://elsewhere.example/etc/passwd");
    assert!(
        events(&trace, "link_open")
            .iter()
            .all(|e| !e["uri"].as_str().unwrap_or("").starts_with("file:")),
        "{:?}",
        events(&trace, "link_open")
    );
    assert_eq!(
        std::fs::read_to_string(&opened)
            .unwrap_or_default()
            .lines()
            .count(),
        1,
        "only the mailto reached the opener"
    );
}

/// Hints (Ctrl+Shift+H) on a huge screen in a small font, one soft-wrapped run full of
/// `a/b `: the window labels as many matches as it labels at most, with work linear in
/// the screen's size (at most 8 units a cell, as the app's trace counts it). The
/// time it took is printed (for docs/SECURITY.md), not asserted.
///
/// Catches: each match's offset counted from the run's start and each candidate
/// compared with every range taken (2.77 s at 960x270, the window frozen); seen
/// failing so (the old search, its work counted the same way).
#[test]
fn hints_on_a_huge_screen_take_work_linear_in_its_size() {
    let display = start_xvfb_sized("3900x2000x24");
    let (dir, runtime) = scratch("hints-huge");
    std::fs::write(dir.join("no-config.ron"), "(font: (size: 4.0))").expect("config");
    // Once the pane is 900 columns wide or more: as many `a/b ` as fill the screen but
    // its last cell, one wrapped run.
    let script = "until set -- $(stty size); [ \"$2\" -ge 900 ]; do sleep 0.1; done; \
                  n=$(( $1 * $2 / 4 - 1 )); yes a/b | head -n $n | tr '\\n' ' '; exec sleep 600";
    let (_tern, trace) = start_tern(
        &display,
        &dir,
        &runtime,
        &["--cols", "960", "--rows", "270", "-e", "sh", "-c", script],
    );
    wait_trace(&trace, &dir, "no first frame", |t| {
        t.contains("first_frame")
    });
    let window = tern_window(&display);
    // The window as big as 960x270 cells of a 4-point font (4x7 pixels here).
    xdo(&display, &["windowsize", &window, "3880", "1960"]);
    // The whole screen parsed: its rows hold text (get-text reads the model).
    let socket = wait_for("tern msg's socket", &dir, || {
        std::fs::read_dir(runtime.join("tern"))
            .ok()?
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "sock"))
    });
    wait_for("the screen filled", &dir, || {
        let text = msg(&socket, &["get-text", "--pane", "1"]);
        let full = text.lines().filter(|l| l.len() > 900).count();
        (full >= 250).then_some(())
    });
    xdo(&display, &["key", "--window", &window, "ctrl+shift+h"]);
    let shown = wait_for("hints were shown", &dir, || events(&trace, "hints").pop());
    let (cells, work) = (
        shown["cells"].as_u64().expect("cells"),
        shown["work"].as_u64().expect("work"),
    );
    eprintln!(
        "hints over {cells} cells: {} labels, {work} units of work, {} us (debug build)",
        shown["labels"], shown["us"]
    );
    assert_eq!(
        shown["labels"], 1000,
        "as many labels as tern shows at most"
    );
    assert!(cells >= 200_000, "a huge screen: {cells} cells");
    assert!(work <= 8 * cells, "{work} units of work for {cells} cells");
}
