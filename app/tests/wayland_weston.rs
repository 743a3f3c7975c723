//! The window on Wayland (issue 51, items 9 and 10 of the afternoon): under weston's
//! headless backend (no X server at all), a compositor that draws no decorations of
//! its own, as GNOME's, the client-side title bar winit draws must show the window's
//! title. Read from a screenshot (weston-screenshooter).
//! Needs weston (`scripts/test.sh` installs it) and imagemagick.
//!
//! Catches: winit built without `wayland-csd-adwaita`, whose fallback frame draws a
//! bar with buttons and no title; seen failing so.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::x11::{Killed, scratch, wait_for, wait_trace};

/// A colour no theme uses: blocks that show where the pane's cells are.
const MARK: (u8, u8, u8) = (200, 30, 150);

/// A screenshot (PNG) as RGB: (width, pixels).
fn rgb(png: &Path) -> (usize, Vec<u8>) {
    let size = common::x11::run(Command::new("identify").args([
        "-format",
        "%w",
        png.to_str().expect("utf-8"),
    ]));
    let width = size.trim().parse().expect("the screenshot's width");
    let out = Command::new("convert")
        .arg(png)
        .args(["-depth", "8", "rgb:-"])
        .output()
        .expect("convert (apt-get install imagemagick)");
    (width, out.stdout)
}

/// Takes a screenshot of weston's screen into `dir`; its path.
fn screenshot(dir: &Path, runtime: &Path, socket: &str) -> Option<PathBuf> {
    let shots = dir.join("shots");
    let _ = std::fs::remove_dir_all(&shots);
    std::fs::create_dir_all(&shots).ok()?;
    let ok = Command::new("weston-screenshooter")
        .current_dir(&shots)
        .env("XDG_RUNTIME_DIR", runtime)
        .env("WAYLAND_DISPLAY", socket)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then(|| {
        std::fs::read_dir(&shots)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .next()
    })?
}

#[test]
fn the_title_bar_on_wayland_shows_the_title() {
    let (dir, runtime) = scratch("wayland-title");
    let socket = "wl-tern-test";
    let _weston = Killed(
        Command::new("weston")
            .args([
                "--backend=headless-backend.so",
                "--use-pixman",
                "--debug",
                "--width=1280",
                "--height=800",
                "--idle-time=0",
            ])
            .arg(format!("--socket={socket}"))
            .env("XDG_RUNTIME_DIR", &runtime)
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("weston.log")).expect("log"))
            .spawn()
            .expect("weston (apt-get install weston)"),
    );
    wait_for("weston's socket", &dir, || {
        runtime.join(socket).exists().then_some(())
    });
    let trace = dir.join("trace.jsonl");
    let marks = "\\033[38;2;200;30;150m\\342\\226\\210\\342\\226\\210\\342\\226\\210\\342\\226\\210\\033[0m";
    let _tern = Killed(
        common::tern_in(&dir)
            .args([
                "--title",
                "Wayland probe title",
                "--cols",
                "60",
                "--rows",
                "10",
            ])
            .args([
                "-e",
                "sh",
                "-c",
                &format!("printf '\\033[?25l{marks}'; exec sleep 600"),
            ])
            .env("WAYLAND_DISPLAY", socket)
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("TERN_TRACE", &trace)
            .env("TERN_CONFIG", dir.join("no-config.ron"))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("tern.stderr")).expect("stderr"))
            .spawn()
            .expect("start tern"),
    );
    wait_trace(&trace, &dir, "no first frame on Wayland", |t| {
        t.contains("first_output_frame_built") && t.contains("\"first_frame\"")
    });
    // The pane's first cells (four blocks in MARK), from a screenshot that shows them.
    let (width, pixels, (x0, y0, x1)) =
        wait_for("the marked cells on weston's screen", &dir, || {
            let (width, pixels) = rgb(&screenshot(&dir, &runtime, socket)?);
            let at = |i: usize| (pixels[3 * i], pixels[3 * i + 1], pixels[3 * i + 2]);
            let marked: Vec<usize> = (0..pixels.len() / 3).filter(|i| at(*i) == MARK).collect();
            let (first, last) = (*marked.first()?, *marked.last()?);
            let bbox = (first % width, first / width, last % width + 1);
            Some((width, pixels, bbox))
        });
    let cell_w = (x1 - x0) / 4;
    // The title bar is right above the pane; the title is centred in it, the buttons
    // at its right end. Its text is what differs from the bar's own colour (the most
    // common one) in a band of the bar left of the buttons.
    let band: Vec<(u8, u8, u8)> = (y0.saturating_sub(22)..y0.saturating_sub(8))
        .flat_map(|y| (x0..x0 + 44 * cell_w).map(move |x| 3 * (y * width + x)))
        .map(|i| (pixels[i], pixels[i + 1], pixels[i + 2]))
        .collect();
    let mut counts = std::collections::HashMap::new();
    for c in &band {
        *counts.entry(*c).or_insert(0usize) += 1;
    }
    let bar = counts
        .into_iter()
        .max_by_key(|(_, n)| *n)
        .map(|(c, _)| c)
        .expect("a bar");
    let far = |a: u8, b: u8| a.abs_diff(b) > 60;
    let dark = band
        .iter()
        .filter(|c| far(c.0, bar.0) || far(c.1, bar.1) || far(c.2, bar.2))
        .count();
    assert!(
        dark > 40,
        "no title in the title bar ({dark} pixels unlike its colour {bar:?} above the pane at {x0},{y0}); see {}",
        dir.display()
    );
}
