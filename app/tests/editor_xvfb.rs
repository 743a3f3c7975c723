//! The editor the user's shell knows (issue 51, item 6), in the real window under
//! Xvfb: `EDITOR` is set only in `~/.bashrc` (as many people set it; a desktop never
//! reads that file), tern's own environment has none and the config names none; a
//! `path:line` hint opened with Shift+label must run that editor in a tern tab, at the
//! line. Needs xvfb, xdotool and bash.
//!
//! Catches: the editor looked up in tern's environment alone (the hint went to the
//! system opener, a separate window not at the line), seen failing so.

mod common;

use common::x11::*;

#[test]
fn a_path_line_hint_opens_the_editor_set_in_bashrc_at_its_line() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("editor-bashrc");
    let home = dir.join("home");
    std::fs::create_dir_all(dir.join("src")).expect("mkdir");
    std::fs::create_dir_all(&home).expect("home");
    std::fs::write(dir.join("src/main.rs"), "fn main() {}\n").expect("file");
    let record = dir.join("editor-args.txt");
    let editor = dir.join("editor.sh");
    std::fs::write(
        &editor,
        format!(
            "#!/bin/sh\necho \"$@\" > '{}'\nexec sleep 60\n",
            record.display()
        ),
    )
    .expect("editor");
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    std::fs::write(
        home.join(".bashrc"),
        format!("export EDITOR='{}'\n", editor.display()),
    )
    .expect(".bashrc");
    let (_tern, trace) = start_tern_with(
        &display,
        &dir,
        &runtime,
        &[
            "--cols",
            "60",
            "--rows",
            "8",
            "--working-directory",
            dir.to_str().expect("utf-8"),
            "-e",
            "sh",
            "-c",
            "printf 'error at src/main.rs:12 here\\n'; exec cat",
        ],
        &[
            ("HOME", home.to_str().expect("utf-8")),
            ("SHELL", "/bin/bash"),
            ("EDITOR", ""),
            ("VISUAL", ""),
        ],
    );
    wait_trace(&trace, &dir, "no first frame", |t| {
        t.contains("first_output_frame_built")
    });
    let window = tern_window(&display);
    // Hints (Ctrl+Shift+H) label the one match `a`; Shift+A opens it.
    xdo(&display, &["key", "--window", &window, "ctrl+shift+h"]);
    std::thread::sleep(std::time::Duration::from_millis(300));
    xdo(&display, &["key", "--window", &window, "A"]);
    let want = format!("+12 {}", dir.join("src/main.rs").display());
    let got = wait_for("the editor from .bashrc ran", &dir, || {
        std::fs::read_to_string(&record).ok()
    });
    assert_eq!(got.trim_end(), want);
}
