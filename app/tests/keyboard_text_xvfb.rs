//! Text taken by keys in the real window (Xvfb, the real binary, xdotool): copy mode
//! selects a block in the scrollback and `y` puts it on the X clipboard; hints label
//! a URL that wraps (with parentheses), a `path:line` and a hash, and a typed label
//! copies one. The clipboard is read back with `xclip -o`. Needs xvfb, xdotool and
//! xclip (`scripts/test.sh` installs them).
//!
//! Catches: keys that reach the program instead of copy mode or the hints, a yank that
//! never reaches the X clipboard, a URL cut at its wrap or its parenthesis.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::x11::*;
use tern_testkit::eventually;

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

fn keys(display: &Display, window: &str, keys: &[&str]) {
    for key in keys {
        xdo(display, &["key", "--window", window, key]);
        std::thread::sleep(Duration::from_millis(150));
    }
}

/// Saves the screen as `dir/NAME.png` (ImageMagick's `import`), for a person to look
/// at; a failure to save is not the test's.
fn screenshot(display: &Display, dir: &Path, name: &str) {
    let path = dir.join(format!("{name}.png"));
    let _ = Command::new("import")
        .args(["-display", &display.name, "-window", "root"])
        .arg(&path)
        .status();
    eprintln!("screenshot: {}", path.display());
}

fn wait_clipboard(display: &Display, dir: &Path, want: &str) {
    eventually(
        format!("the clipboard holds {want:?}"),
        Duration::from_secs(20),
        || {
            let now = clipboard(display);
            if now.as_deref() == Some(want) {
                return Ok(());
            }
            Err(format!(
                "it held {now:?}; tern said {:?}",
                std::fs::read_to_string(dir.join("tern.stderr"))
            ))
        },
    );
}

#[test]
fn copy_mode_yanks_a_scrollback_block_and_hints_copy_a_wrapped_url() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("keyboard-text");
    let marker = dir.join("printed");
    let script = format!(
        "i=1; while [ $i -le 60 ]; do echo \"line $i\"; i=$((i+1)); done; \
         echo 'see https://en.wikipedia.org/wiki/Rust_(programming_language).'; \
         echo 'src/main.rs:12 3f2a9c1b'; touch '{}'; exec cat",
        marker.display()
    );
    let (_tern, trace) = start_tern(
        &display,
        &dir,
        &runtime,
        &["--cols", "40", "--rows", "10", "-e", "sh", "-c", &script],
    );
    wait_for("the lines were printed", &dir, || {
        marker.exists().then_some(())
    });
    wait_trace(&trace, &dir, "the first frame", |t| {
        t.contains("first_frame")
    });
    let window = tern_window(&display);
    std::thread::sleep(Duration::from_millis(500));
    // Copy mode: top of the scrollback, the number column of three lines as a block.
    keys(
        &display,
        &window,
        &["ctrl+shift+space", "g", "g", "w", "ctrl+v", "j", "j"],
    );
    screenshot(&display, &dir, "copy-mode-block");
    keys(&display, &window, &["y"]);
    wait_clipboard(&display, &dir, "1\n2\n3");
    // Hints: a is the URL (wrapped over two rows at 40 columns), s the path:line.
    keys(&display, &window, &["ctrl+shift+h"]);
    screenshot(&display, &dir, "hints");
    keys(&display, &window, &["a"]);
    wait_clipboard(
        &display,
        &dir,
        "https://en.wikipedia.org/wiki/Rust_(programming_language)",
    );
    keys(&display, &window, &["ctrl+shift+h", "s"]);
    wait_clipboard(&display, &dir, "src/main.rs:12");
    keys(&display, &window, &["ctrl+shift+h", "d"]);
    wait_clipboard(&display, &dir, "3f2a9c1b");
}
