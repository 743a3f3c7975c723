//! The real binary in a real X server (Xvfb, Mesa's software Vulkan or GL): xdotool types
//! a command, the startup trace says when the window drew the echo, and a screenshot
//! must show the coloured block the command printed, in the right cells. A blank or
//! garbled window fails. At scale 2 (`WINIT_X11_SCALE_FACTOR`), an emoji must come out
//! in colour inside its cells and a box-drawing line must be crisp. Two worktrees made
//! from the keyboard run their shells in their folders. Needs xvfb, xdotool,
//! imagemagick, git and fonts-noto-color-emoji (`scripts/test.sh` installs them).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use tern_testkit::eventually;

use common::x11::*;

#[test]
fn typed_command_output_appears_in_the_real_window() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("xvfb");
    let (_tern, trace) = shell_40x10(&display, &dir, &runtime, &[]);
    // The shell was started before the window existed (while eframe made the window and
    // the GPU device), not after.
    let text = std::fs::read_to_string(&trace).expect("trace");
    let at = |event: &str| {
        text.lines()
            .find(|l| l.contains(&format!("\"event\":\"{event}\"")))
            .and_then(|l| l.split("\"t_us\":").nth(1))
            .and_then(|r| r.split([',', '}']).next())
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("no {event} in the trace:\n{text}"))
    };
    let (spawned, created) = (at("first_pane_spawned"), at("window_created"));
    assert!(
        spawned < created,
        "the shell started at {spawned} µs, after the window ({created} µs)"
    );
    std::thread::sleep(Duration::from_millis(300));
    let window = tern_window(&display);
    // Row 5 (1-based) becomes 40 cells of red background; the rest is cleared.
    type_line(
        &display,
        &window,
        "clear; printf '\\033[5;1H\\033[41m%40s\\033[0m' ''",
    );
    wait_trace(
        &trace,
        &dir,
        "typed keys never came back as a drawn echo",
        |t| t.contains("key_echo_frame"),
    );
    // Cells are about 9 x 17.5 px at the default size: row 5 spans y ≈ 70..88.
    let red = (0xcd, 0x00, 0x00);
    eventually("row 5 red, row 2 drawn", Duration::from_secs(60), || {
        let in_row5 = pixel(&display.name, 180, 79);
        let in_row2 = pixel(&display.name, 180, 27);
        (in_row5 == red && in_row2 != red && in_row2 != (0, 0, 0))
            .then_some(())
            .ok_or_else(|| format!("row 5 {in_row5:?}, row 2 {in_row2:?}"))
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// tern running `sh` in a 40x10 window, once it has drawn the shell's first output.
fn shell_40x10(
    display: &Display,
    dir: &Path,
    runtime: &Path,
    env: &[(&str, &str)],
) -> (Killed, PathBuf) {
    let (tern, trace) = start_tern_with(
        display,
        dir,
        runtime,
        &["--cols", "40", "--rows", "10", "-e", "sh"],
        env,
    );
    wait_trace(&trace, dir, "no first frame with the shell's output", |t| {
        t.contains("first_output_frame_built")
    });
    (tern, trace)
}

/// The cwd of the last `focus` event in the trace.
fn focused_cwd(trace: &str) -> Option<String> {
    trace
        .lines()
        .rfind(|l| l.contains("\"event\":\"focus\""))
        .and_then(|l| l.split("\"cwd\":\"").nth(1))
        .and_then(|rest| rest.split('"').next())
        .map(str::to_owned)
}

/// Two worktrees made from the keyboard, tabs in each, switching between them with
/// Ctrl+Shift+PageUp/PageDown: every pane's shell runs in its own worktree (the trace
/// says where the focused pane's shell is; `pwd` written to a file says it too).
#[test]
fn worktrees_and_tabs_in_the_real_window_run_in_their_folders() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("worktrees");
    let repo = common::git_repo(&dir);
    let repo_arg = repo.display().to_string();
    let (_tern, trace) = start_tern(
        &display,
        &dir,
        &runtime,
        &[
            "--cols",
            "100",
            "--rows",
            "30",
            "--working-directory",
            &repo_arg,
        ],
    );
    wait_trace(&trace, &dir, "first frame", |t| {
        t.contains("first_output_frame_built")
    });
    wait_trace(&trace, &dir, "the repository is listed", |t| {
        t.contains("\"event\":\"worktrees\"")
    });
    let window = tern_window(&display);
    let wt_a = dir.join("proj-wt-a").display().to_string();
    let wt_b = dir.join("proj-wt-b").display().to_string();
    // New worktree wt-a (Ctrl+Shift+Alt+N, branch name, Return): a tab opens in it.
    xdo(&display, &["key", "--window", &window, "ctrl+shift+alt+n"]);
    std::thread::sleep(Duration::from_millis(300));
    type_line(&display, &window, "wt-a");
    wait_trace(&trace, &dir, "focus in wt-a", |t| {
        focused_cwd(t).as_deref() == Some(wt_a.as_str())
    });
    // A second tab in wt-a starts there too.
    xdo(&display, &["key", "--window", &window, "ctrl+shift+t"]);
    wait_trace(&trace, &dir, "second tab in wt-a", |t| {
        t.matches(&format!("\"cwd\":\"{wt_a}\"")).count() >= 2
    });
    // New worktree wt-b.
    xdo(&display, &["key", "--window", &window, "ctrl+shift+alt+n"]);
    std::thread::sleep(Duration::from_millis(300));
    type_line(&display, &window, "wt-b");
    wait_trace(&trace, &dir, "focus in wt-b", |t| {
        focused_cwd(t).as_deref() == Some(wt_b.as_str())
    });
    let out_b = dir.join("out-b.txt");
    type_line(&display, &window, &format!("pwd > {}", out_b.display()));
    // Back to wt-a with the keyboard, and the shell there says where it is.
    xdo(&display, &["key", "--window", &window, "ctrl+shift+Prior"]);
    wait_trace(&trace, &dir, "back in wt-a", |t| {
        focused_cwd(t).as_deref() == Some(wt_a.as_str())
    });
    let out_a = dir.join("out-a.txt");
    type_line(&display, &window, &format!("pwd > {}", out_a.display()));
    // And on to the repository's own folder, one more step back.
    xdo(&display, &["key", "--window", &window, "ctrl+shift+Prior"]);
    wait_trace(&trace, &dir, "back in the repository", |t| {
        focused_cwd(t).as_deref() == Some(repo_arg.as_str())
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    let read = |p: &Path| {
        std::fs::read_to_string(p)
            .unwrap_or_default()
            .trim()
            .to_owned()
    };
    while (read(&out_a).is_empty() || read(&out_b).is_empty()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    if read(&out_a).is_empty() || read(&out_b).is_empty() {
        // Kept for a look: what the window showed, beside the trace (the folder stays).
        run(Command::new("import")
            .args(["-display", &display.name, "-window", "root"])
            .arg(dir.join("failed.png")));
    }
    assert_eq!(read(&out_a), wt_a, "see {}", dir.display());
    assert_eq!(read(&out_b), wt_b, "see {}", dir.display());
    if let Some(shots) = std::env::var_os("TERN_SCREENSHOTS") {
        xdo(&display, &["key", "--window", &window, "ctrl+shift+b"]);
        std::thread::sleep(Duration::from_millis(800));
        run(Command::new("import")
            .args(["-display", &display.name, "-window", "root"])
            .arg(PathBuf::from(shots).join("worktrees-xvfb.png")));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn at_scale_2_an_emoji_is_coloured_in_its_cells_and_box_lines_are_crisp() {
    let display = start_xvfb_sized("1600x1000x24");
    let (dir, runtime) = scratch("hidpi");
    let (_tern, _trace) = shell_40x10(&display, &dir, &runtime, &[("WINIT_X11_SCALE_FACTOR", "2")]);
    std::thread::sleep(Duration::from_millis(300));
    let window = tern_window(&display);
    // Row 1: ten red cells (to find the grid); row 2: U+1F600 U+1F680 (two wide cells
    // each); row 3: four light horizontal box lines.
    type_line(
        &display,
        &window,
        "clear; printf '\\033[41m%10s\\033[0m\\n\\360\\237\\230\\200\\360\\237\\232\\200\\n\\342\\224\\200\\342\\224\\200\\342\\224\\200\\342\\224\\200\\n' ''",
    );
    let red = (0xcd, 0x00, 0x00);
    let deadline = Instant::now() + Duration::from_secs(60);
    let (screen, (x0, y0, x1, y1)) = loop {
        let screen = Screen::grab(&display.name);
        // The emoji row is drawn in the same frame as the red row.
        if let Some(b) = screen.bbox(red) {
            let emoji_row = (b.0..b.2).any(|x| coloured(screen.at(x, b.3 + (b.3 - b.1) / 2)));
            if emoji_row {
                // The first frame with the emoji may still be settling their size (a
                // glyph too big for its cells is rasterized again): look once more.
                std::thread::sleep(Duration::from_millis(600));
                let screen = Screen::grab(&display.name);
                match screen.bbox(red) {
                    Some(b) => break (screen, b),
                    None => continue,
                }
            }
        }
        assert!(
            Instant::now() < deadline,
            "no red row with emoji under it; tern said {:?}",
            std::fs::read_to_string(dir.join("tern.stderr"))
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    // The grid in physical pixels: whole-pixel cells, twice the size of scale 1's (9x18).
    let (cell_w, cell_h) = ((x1 - x0) / 10, y1 - y0);
    assert_eq!((x1 - x0) % 10, 0, "ten cells are {} px wide", x1 - x0);
    assert!(
        (16..=20).contains(&cell_w) && (32..=40).contains(&cell_h),
        "cell {cell_w}x{cell_h} px at scale 2"
    );
    // The emoji: mostly coloured pixels in their four cells, none in the rows around.
    let row = |r: usize| y0 + r * cell_h..y0 + (r + 1) * cell_h;
    let count = |rows: std::ops::Range<usize>, cols: std::ops::Range<usize>| {
        rows.flat_map(|y| cols.clone().map(move |x| (x, y)))
            .filter(|&(x, y)| coloured(screen.at(x, y)))
            .count()
    };
    let emoji_cells = x0..x0 + 4 * cell_w;
    let inside = count(row(1), emoji_cells.clone());
    let area = 4 * cell_w * cell_h;
    assert!(
        inside * 4 > area,
        "{inside} coloured pixels of {area} in the emoji cells"
    );
    let outside =
        count(row(2), x0..x0 + 10 * cell_w) + count(row(1), x0 + 4 * cell_w..x0 + 10 * cell_w);
    assert_eq!(outside, 0, "coloured pixels outside the emoji cells");
    // The box line: down the middle of a cell only two colours (background and line,
    // no blended edge), and the line is at least two pixels thick.
    let column: Vec<(u8, u8, u8)> = row(2)
        .map(|y| screen.at(x0 + cell_w + cell_w / 2, y))
        .collect();
    let background = column[0];
    let mut colours: Vec<(u8, u8, u8)> = column.clone();
    colours.sort();
    colours.dedup();
    let thick = column.iter().filter(|&&c| c != background).count();
    assert!(
        colours.len() == 2 && thick >= 2,
        "box line column {column:?}: colours {colours:?}, {thick} px thick"
    );
    // And unbroken across its four cells.
    let line_y = y0 + 2 * cell_h + column.iter().position(|&c| c != background).unwrap_or(0);
    let gaps = (x0..x0 + 4 * cell_w)
        .filter(|&x| screen.at(x, line_y) == background)
        .count();
    assert_eq!(gaps, 0, "gaps in the box line at y {line_y}");
}

/// Processes whose parent is `pid` (from /proc).
fn children_of(pid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|s| {
                s.rsplit(')')
                    .next()
                    .and_then(|r| r.split_whitespace().nth(1))
                    == Some(pid.to_string().as_str())
            })
        })
        .collect()
}

#[test]
fn sigterm_saves_the_session_hangs_up_the_children_and_exits_cleanly() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("sigterm");
    // A plain start keeps a session.
    let (mut tern, trace) = start_tern(&display, &dir, &runtime, &["--cols", "40", "--rows", "10"]);
    wait_trace(&trace, &dir, "first frame", |t| {
        t.contains("first_output_frame_built")
    });
    let session = dir.join("session.ron");
    eventually("the session saved", Duration::from_secs(30), || {
        session.exists()
    });
    // Nothing changes from here on, so only a save at exit writes it again.
    std::thread::sleep(Duration::from_millis(500));
    std::fs::remove_file(&session).expect("remove the session file");
    let shells = children_of(tern.0.id());
    assert!(!shells.is_empty(), "tern has no child shell");
    let status = Command::new("kill")
        .args(["-TERM", &tern.0.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let exit = eventually("tern exits on SIGTERM", Duration::from_secs(15), || {
        tern.0.try_wait().ok().flatten()
    });
    let said = std::fs::read_to_string(dir.join("tern.stderr")).unwrap_or_default();
    assert!(exit.success(), "{exit:?}: {said}");
    let saved = std::fs::read_to_string(&session).unwrap_or_default();
    assert!(
        saved.contains("tabs"),
        "no session saved at SIGTERM: {saved:?} ({said})"
    );
    for shell in shells {
        // Gone, or a zombie of whoever inherited it.
        eventually(
            format!("shell {shell} ends with tern"),
            Duration::from_secs(10),
            || {
                !std::fs::read_to_string(format!("/proc/{shell}/stat")).is_ok_and(|s| {
                    s.rsplit(')')
                        .next()
                        .and_then(|r| r.split_whitespace().next())
                        != Some("Z")
                })
            },
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The window system resizes the window (`xdotool windowsize`, as a window manager or
/// a person dragging its edge would): the pane's grid follows, the next frame too (the
/// window's size is kept between frames and asked again only after such an event:
/// vendor/egui-winit's patch, issue 32), and a program in the pane sees the new size.
#[test]
fn a_window_resized_by_the_window_system_resizes_the_pane() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("resize");
    let (_tern, _trace) = shell_40x10(&display, &dir, &runtime, &[]);
    std::thread::sleep(Duration::from_millis(300));
    let window = tern_window(&display);
    let size_file = dir.join("size");
    // The pane's size as `stty size` in it says, after the window is made `px` (none:
    // as it started).
    let size_after = |px: Option<(&str, &str)>| {
        if let Some((w, h)) = px {
            xdo(&display, &["windowsize", "--sync", &window, w, h]);
            std::thread::sleep(Duration::from_millis(500));
        }
        let _ = std::fs::remove_file(&size_file);
        type_line(
            &display,
            &window,
            &format!("stty size > {}", size_file.display()),
        );
        wait_for("stty size in the pane", &dir, || {
            let text = std::fs::read_to_string(&size_file).ok()?;
            let mut it = text.split_whitespace().map(|n| n.parse::<u32>().ok());
            Some((it.next()??, it.next()??))
        })
    };
    assert_eq!(
        size_after(None),
        (10, 40),
        "the size asked on the command line"
    );
    // About twice as wide and three times as tall (cells are about 9 x 17.5 px).
    let (rows, cols) = size_after(Some(("760", "540")));
    assert!(
        rows >= 25 && cols >= 75,
        "the pane did not follow the window to 760x540 px: {rows} rows, {cols} columns"
    );
    // And back: smaller again.
    let (rows, cols) = size_after(Some(("400", "250")));
    assert!(
        rows <= 14 && cols <= 44,
        "the pane did not follow the window back to 400x250 px: {rows} rows, {cols} columns"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// With no Vulkan driver the start-up probe finds no adapter and eframe opens GL as well
/// (`gpu::backends_for`): the window still comes up and draws the shell's output
/// (a machine whose GPU has only a GL driver).
#[test]
fn without_a_vulkan_driver_the_window_draws_through_gl() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("gl-only");
    let (_tern, trace) = shell_40x10(
        &display,
        &dir,
        &runtime,
        &[("VK_ICD_FILENAMES", "/nonexistent/icd.json")],
    );
    let text = std::fs::read_to_string(&trace).expect("trace");
    assert!(text.contains("first_output_frame_built"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Vulkan asked for (`WGPU_BACKEND`) where there is no Vulkan driver: tern says why it
/// cannot open a window — eframe's own error, logged, and its summary — and exits 2.
#[test]
fn a_gpu_device_that_cannot_be_made_is_said_with_its_cause() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("no-device");
    let out = common::tern_in(&dir)
        .args(["-e", "true"])
        .env("DISPLAY", &display.name)
        .env("XDG_RUNTIME_DIR", &runtime)
        .env("TERN_CONFIG", dir.join("no-config.ron"))
        .env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
        .env("WGPU_BACKEND", "vulkan")
        .output()
        .expect("tern runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot open a window"), "{err}");
    assert!(err.contains("WGPU error"), "eframe's cause is said: {err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A key echoed by `cat` costs the window one frame: the press's, which writes the key
/// and, waiting for the echo, draws it. Not one for the release (egui-winit asks a frame
/// for every key event; with eframe's patch 0003 tern says a typed key's release needs
/// none: without the series, two frames a key), nor the frames egui makes for a wake-up
/// ("two repaints, to let things settle"), nor one for the echo's delivery that the key's
/// frame already drew (`Slot::put` says when a frame waited for it, or was about to: an
/// echo built before the frame reaches its wait, on two busy cores, did). Before: four
/// frames a key, each a whole paint on a software renderer. An echo that comes after the
/// key's frame stopped waiting for it (a loaded machine) is drawn by the frame its
/// delivery asks: one more for that key.
#[test]
fn a_key_echoed_by_cat_costs_its_press_frame_and_no_more() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("frames-per-key");
    let (_tern, trace) = script_40x10(
        &display,
        &dir,
        &runtime,
        "printf ready; stty raw -echo; exec cat",
    );
    let window = tern_window(&display);
    std::thread::sleep(Duration::from_millis(500));
    let frames = || {
        std::fs::read_to_string(&trace)
            .unwrap_or_default()
            .matches("\"event\":\"frame\"")
            .count()
    };
    // Keys whose echo was drawn, and those whose echo the key's own frame drew: that
    // frame started before the key was received (a later frame, woken by the echo's
    // delivery, started after).
    let echoes = || {
        let text = std::fs::read_to_string(&trace).unwrap_or_default();
        let drawn: Vec<serde_json::Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|e| e["event"] == "key_echo_frame")
            .collect();
        let own = drawn
            .iter()
            .filter(|e| {
                matches!(
                    (e["frame_started_us"].as_i64(), e["received_us"].as_i64()),
                    (Some(started), Some(received)) if (0..=received).contains(&started)
                )
            })
            .count();
        (drawn.len(), own)
    };
    let (frames_before, (drawn_before, own_before)) = (frames(), echoes());
    let keys = 10;
    for _ in 0..keys {
        xdo(&display, &["key", "--window", &window, "x"]);
        std::thread::sleep(Duration::from_millis(150));
    }
    std::thread::sleep(Duration::from_millis(500));
    let (drawn, own) = echoes();
    let (painted, drawn, own) = (
        frames() - frames_before,
        drawn - drawn_before,
        own - own_before,
    );
    assert!(
        drawn >= keys / 2,
        "the keys' echoes were not drawn: {drawn}"
    );
    // A key whose echo came after its frame stopped waiting for it (a loaded machine)
    // costs one more: the frame its delivery asks.
    let late = keys - own.min(keys);
    let each = if cfg!(feature = "egui-patches") { 1 } else { 2 };
    assert!(
        painted <= each * keys + late + 2,
        "{painted} frames for {keys} keys, {late} of whose echoes came after their frame \
         ({each} each, one more for a late echo, and the activity's going quiet)"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// tern running `sh -c SCRIPT` in a 40x10 window with a steady cursor (no blink frames),
/// once it has drawn a frame.
fn script_40x10(display: &Display, dir: &Path, runtime: &Path, script: &str) -> (Killed, PathBuf) {
    let (tern, trace) = start_tern(
        display,
        dir,
        runtime,
        &[
            "-o",
            "cursor.blinking=false",
            "--cols",
            "40",
            "--rows",
            "10",
            "-e",
            "sh",
            "-c",
            script,
        ],
    );
    wait_trace(&trace, dir, "no first frame", |t| {
        t.contains("\"event\":\"frame\"")
    });
    (tern, trace)
}

/// A program that asked the kitty keyboard protocol for key releases (`CSI > 2 u`: event
/// types) gets each release when it happens, with no other event to carry it: the
/// release's own frame encodes it.
#[test]
fn a_program_that_asked_for_key_releases_gets_them_at_once() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("key-releases");
    let got = dir.join("got");
    let program = format!(
        "printf '\\033[>2u'; stty raw -echo; exec cat > {}",
        got.display()
    );
    let (_tern, trace) = script_40x10(&display, &dir, &runtime, &program);
    let window = tern_window(&display);
    std::thread::sleep(Duration::from_millis(500));
    let read = || std::fs::read_to_string(&got).unwrap_or_default();
    // The window at rest first: no frame drawn for 1.5 s, so nothing (the pane's
    // activity state, a blink) will ask one. The key is then pressed and released
    // within the X server's repeat delay (no repeat comes between), and the release is
    // the only thing left that can ask a frame: if it asks none, it never reaches the
    // program.
    let frames = || {
        std::fs::read_to_string(&trace)
            .map(|t| t.matches("\"event\":\"frame\"").count())
            .unwrap_or(0)
    };
    let (mut seen, mut since) = (frames(), Instant::now());
    tern_testkit::eventually("the window at rest", Duration::from_secs(60), || {
        let now = frames();
        if now != seen {
            (seen, since) = (now, Instant::now());
        }
        since.elapsed() >= Duration::from_millis(1500)
    });
    xdo(&display, &["keydown", "--window", &window, "x"]);
    wait_for("the key's press in the program's input", &dir, || {
        read().starts_with('x').then_some(())
    });
    xdo(&display, &["keyup", "--window", &window, "x"]);
    // The release: 'x' (120), no modifiers, event type 3.
    tern_testkit::eventually(
        "the release in the program's input, with no other frame asked",
        Duration::from_secs(30),
        || read().contains("x\u{1b}[120;1:3u"),
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Typing into the window asks the X server nothing on the way to each frame: winit asks
/// the server on every call for the window's size, position and minimized state (each a
/// synchronous round trip, waiting behind whatever the server does for other clients),
/// and egui-winit and eframe asked every frame and after every event (tern's patch
/// series, `patches/`). What is left is the driver's: Mesa's software swapchain asks the
/// window's size once a frame it presents. tern talks to Xvfb through a proxy that counts
/// its requests while a command is typed; the command's output must be drawn.
#[test]
fn typing_asks_the_x_server_nothing_beyond_the_drivers_frames() {
    let (requests, said) = requests_while_typing(start_xvfb(), "x-requests", &[]);
    asks_nothing_beyond_the_drivers_frames(&requests, &said);
}

/// `present_mode: Vsync` (the driver's FIFO mode): the same.
#[test]
fn with_vsync_typing_asks_the_x_server_nothing_beyond_the_drivers_frames() {
    let (requests, said) = requests_while_typing(
        start_xvfb(),
        "x-requests-vsync",
        &["-o", "present_mode=Vsync"],
    );
    asks_nothing_beyond_the_drivers_frames(&requests, &said);
}

/// An X server without MIT-SHM (as a remote display is, to a client on another machine):
/// the frames still come and show what was typed, and tern asks nothing more.
#[test]
fn without_mit_shm_typing_is_drawn_and_asks_nothing_beyond_the_drivers_frames() {
    let display = start_xvfb_with("1024x768x24", &["-extension", "MIT-SHM"]);
    let (requests, said) = requests_while_typing(display, "x-requests-no-shm", &[]);
    asks_nothing_beyond_the_drivers_frames(&requests, &said);
}

/// On X11 a frame put into a window that is not mapped yet is lost (the window keeps no
/// contents): the first frame tern painted never showed, and its output appeared only with
/// the next frame, 10-20 ms later. The window is mapped before the first frame's pixels
/// are put (eframe's patch 0002), so the first frame is the one seen. Checked in the
/// order of tern's requests through an X proxy: `MapWindow` before the first `PutImage`
/// the size of a frame (the driver's software swapchain puts each frame so on Xvfb).
#[test]
fn the_window_is_mapped_before_its_first_frame_is_put() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("x-map-first");
    let proxy = XProxy::start(&display);
    let argv = ["--cols", "40", "--rows", "10", "-e", "sh"];
    let (_tern, trace) =
        start_tern_with(&display, &dir, &runtime, &argv, &[("DISPLAY", &proxy.name)]);
    wait_trace(&trace, &dir, "no first frame", |t| {
        t.contains("first_frame")
    });
    // A frame is 40x10 cells of at least 4 bytes a pixel: far more than any other request.
    const FRAME_BYTES: usize = 64 << 10;
    let order = eventually("a frame put to the window", Duration::from_secs(20), || {
        let order = proxy.order();
        order
            .iter()
            .any(|&(op, len)| op == 72 && len >= FRAME_BYTES)
            .then_some(order)
    });
    let first =
        |wanted: &dyn Fn(u8, usize) -> bool| order.iter().position(|&(op, len)| wanted(op, len));
    let map = first(&|op, _| op == 8);
    let put = first(&|op, len| op == 72 && len >= FRAME_BYTES);
    let said = format!(
        "MapWindow at request {map:?}, the first frame's PutImage at {put:?}, of {}",
        order.len()
    );
    eprintln!("{said}");
    let _ = std::fs::remove_dir_all(&dir);
    if !cfg!(feature = "egui-patches") {
        return;
    }
    assert!(
        map.is_some_and(|m| Some(m) < put),
        "the window was mapped after its first frame was put, which was lost: {said}"
    );
}

/// No minimized state or position asked while typing, and the window's size at most once
/// a frame (the driver's swapchain). Without tern's patch series: about five a frame,
/// and a `GetProperty` after every event (only checked with the series on).
fn asks_nothing_beyond_the_drivers_frames(requests: &Requests, said: &str) {
    assert!(requests.frames > 0, "no frame was painted: {said}");
    if !cfg!(feature = "egui-patches") {
        return;
    }
    assert_eq!(
        requests.get_property, 0,
        "the minimized state was asked: {said}"
    );
    assert_eq!(
        requests.translate, 0,
        "the window's position was asked: {said}"
    );
    assert!(
        requests.get_geometry <= requests.frames,
        "the window's size was asked beyond the driver's once a frame: {said}"
    );
}

/// The requests tern sent while a command was typed into its window.
struct Requests {
    get_property: u64,
    get_geometry: u64,
    translate: u64,
    /// The frames tern painted meanwhile (its trace).
    frames: u64,
}

/// Starts tern on `display` (with `args` before its `-e sh`) through an [`XProxy`], types a command
/// that writes a file, and counts what tern asked the X server meanwhile; the command's
/// output must be drawn in the window (read from the real display).
fn requests_while_typing(display: Display, name: &str, args: &[&str]) -> (Requests, String) {
    let (dir, runtime) = scratch(name);
    let proxy = XProxy::start(&display);
    let mut argv = args.to_vec();
    argv.extend(["--cols", "40", "--rows", "10", "-e", "sh"]);
    let (_tern, trace) =
        start_tern_with(&display, &dir, &runtime, &argv, &[("DISPLAY", &proxy.name)]);
    wait_trace(
        &trace,
        &dir,
        "no first frame with the shell's output",
        |t| t.contains("first_output_frame_built"),
    );
    std::thread::sleep(Duration::from_millis(500));
    let window = tern_window(&display);
    std::thread::sleep(Duration::from_millis(300));
    let frames = || {
        let trace = std::fs::read_to_string(&trace).unwrap_or_default();
        trace.matches("\"event\":\"frame\"").count() as u64
    };
    let (before, frames_before) = (proxy.counts(), frames());
    let typed = dir.join("typed");
    // Prints a row of red cells on the first line, and writes the file.
    type_line(
        &display,
        &window,
        &format!(
            "clear; printf '\\033[41m%20s\\033[0m' ''; echo 12345 > {}",
            typed.display()
        ),
    );
    wait_for("the typed command's file", &dir, || {
        std::fs::read_to_string(&typed)
            .ok()
            .filter(|t| t.contains("12345"))
    });
    wait_trace(&trace, &dir, "the typed keys were never drawn", |t| {
        t.contains("key_echo_frame")
    });
    let red = (0xcd, 0x00, 0x00);
    wait_for("the red row drawn in the window", &dir, || {
        (pixel(&display.name, 90, 8) == red).then_some(())
    });
    std::thread::sleep(Duration::from_millis(300));
    let (after, frames_after) = (proxy.counts(), frames());
    let asked = |opcode: u8| after[opcode as usize] - before[opcode as usize];
    let requests = Requests {
        get_property: asked(20),
        get_geometry: asked(14),
        translate: asked(40),
        frames: frames_after - frames_before,
    };
    let said = format!(
        "while a command was typed: GetProperty {}, GetGeometry {}, TranslateCoordinates {}, \
         PutImage {} for {} frames",
        requests.get_property,
        requests.get_geometry,
        requests.translate,
        asked(72),
        requests.frames
    );
    eprintln!("{said}");
    let _ = std::fs::remove_dir_all(&dir);
    (requests, said)
}

/// An X display that forwards every connection to `display` and keeps the requests
/// its clients send, in order.
struct XProxy {
    name: String,
    /// Every request forwarded, in the order it came (major opcode, length in bytes),
    /// all clients together.
    order: std::sync::Arc<std::sync::Mutex<Vec<(u8, usize)>>>,
    path: PathBuf,
}

impl XProxy {
    fn start(display: &Display) -> XProxy {
        use std::os::unix::net::{UnixListener, UnixStream};
        let n = free_display();
        let path = PathBuf::from(format!("/tmp/.X11-unix/X{n}"));
        let listener = UnixListener::bind(&path).expect("the proxy's X socket");
        let server = PathBuf::from(format!(
            "/tmp/.X11-unix/X{}",
            display.name.trim_start_matches(':')
        ));
        let order = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let c = order.clone();
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let Ok(upstream) = UnixStream::connect(&server) else {
                    continue;
                };
                let (down, up) = (
                    upstream.try_clone().expect("clone"),
                    client.try_clone().expect("clone"),
                );
                std::thread::spawn(move || while forward(&down, &up).is_some() {});
                let c = c.clone();
                std::thread::spawn(move || count_requests(client, upstream, &c));
            }
        });
        XProxy {
            name: format!(":{n}"),
            order,
            path,
        }
    }

    /// How many requests of each major opcode so far.
    fn counts(&self) -> [u64; 256] {
        let mut by_opcode = [0; 256];
        for &(op, _) in self.order.lock().unwrap().iter() {
            by_opcode[op as usize] += 1;
        }
        by_opcode
    }

    /// The requests so far, in order (opcode, length in bytes).
    fn order(&self) -> Vec<(u8, usize)> {
        self.order.lock().unwrap().clone()
    }
}

impl Drop for XProxy {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Forwards what one read of `from` gives to `to`, with the file descriptors passed
/// along (a client gives the X server its shared-memory segments that way): the bytes,
/// or `None` when `from` closed.
fn forward(
    from: &std::os::unix::net::UnixStream,
    to: &std::os::unix::net::UnixStream,
) -> Option<Vec<u8>> {
    use rustix::net::{
        RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer,
        SendAncillaryMessage, SendFlags, recvmsg, sendmsg,
    };
    use std::io::{IoSlice, IoSliceMut};
    use std::mem::MaybeUninit;
    use std::os::fd::AsFd;
    let mut buf = vec![0u8; 65536];
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(16))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let got = recvmsg(
        from,
        &mut [IoSliceMut::new(&mut buf)],
        &mut control,
        RecvFlags::CMSG_CLOEXEC,
    )
    .ok()?;
    if got.bytes == 0 {
        return None;
    }
    buf.truncate(got.bytes);
    let mut fds = Vec::new();
    for message in control.drain() {
        if let RecvAncillaryMessage::ScmRights(rights) = message {
            fds.extend(rights);
        }
    }
    let borrowed: Vec<_> = fds.iter().map(|f| f.as_fd()).collect();
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(16))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    if !borrowed.is_empty() {
        control.push(SendAncillaryMessage::ScmRights(&borrowed));
    }
    let mut sent = sendmsg(to, &[IoSlice::new(&buf)], &mut control, SendFlags::empty()).ok()?;
    while sent < buf.len() {
        let mut none = SendAncillaryBuffer::default();
        sent += sendmsg(
            to,
            &[IoSlice::new(&buf[sent..])],
            &mut none,
            SendFlags::empty(),
        )
        .ok()?;
    }
    Some(buf)
}

/// Forwards a client's byte stream to the server, noting each request's major
/// opcode: after the connection set-up (12 bytes, then the authorization's name and
/// data, each padded to 4), a request is an opcode, a byte, and its length in 4-byte
/// units (0: BIG-REQUESTS, the length in the next 4 bytes).
fn count_requests(
    client: std::os::unix::net::UnixStream,
    server: std::os::unix::net::UnixStream,
    order: &std::sync::Mutex<Vec<(u8, usize)>>,
) {
    let mut buf = Vec::new();
    let mut set_up = false;
    let mut skip = 0usize;
    while let Some(chunk) = forward(&client, &server) {
        let mut data = &chunk[..];
        let dropped = skip.min(data.len());
        skip -= dropped;
        data = &data[dropped..];
        buf.extend_from_slice(data);
        loop {
            if !set_up {
                if buf.len() < 12 {
                    break;
                }
                let little = buf[0] == b'l';
                let u16_at = |i: usize| {
                    let b = [buf[i], buf[i + 1]];
                    (if little {
                        u16::from_le_bytes(b)
                    } else {
                        u16::from_be_bytes(b)
                    }) as usize
                };
                let len = 12 + u16_at(6).next_multiple_of(4) + u16_at(8).next_multiple_of(4);
                if buf.len() < len {
                    break;
                }
                buf.drain(..len);
                set_up = true;
                continue;
            }
            if buf.len() < 4 {
                break;
            }
            // X clients on this machine are little-endian (set-up byte 'l').
            let short = u16::from_le_bytes([buf[2], buf[3]]) as usize * 4;
            let len = if short > 0 {
                short
            } else if buf.len() >= 8 {
                u32::from_le_bytes([buf[4], buf[5], buf[6], buf[7]]) as usize * 4
            } else {
                break;
            };
            order.lock().unwrap().push((buf[0], len));
            if buf.len() >= len {
                buf.drain(..len);
            } else {
                // A big request (a frame's PutImage): skip the rest as it comes.
                skip = len - buf.len();
                buf.clear();
                break;
            }
        }
    }
}
