//! Text taken by keys alone in the window (egui_kittest, headless). Copy mode: the vi
//! motions move a cursor over the screen and the scrollback, `v`/Ctrl+V select, `y`
//! copies and leaves. Hints: one key labels the matches, a typed label copies one, a
//! Ctrl+label types it into the program.

use std::time::Duration;

use egui::{Event, Key, Modifiers};
use egui_kittest::Harness;
use tern::window::app::Launch;
use tern_core::model::TermSize;
use tern_core::pipeline::SpawnSpec;

mod common;
use common::Slot;
use tern::window::app::TestView as _;

fn harness(program: &str, args: &[&str]) -> Harness<'static, Slot> {
    let launch = Launch::new(SpawnSpec::command(program, args).size(TermSize::new(80, 24)));
    common::app_harness(launch, egui::vec2(800.0, 480.0))
}

fn screen(h: &Harness<'_, Slot>) -> Vec<String> {
    common::screen_rows(h)
}

/// The rows the window shows (history lines when scrolled up).
fn shown(h: &mut Harness<'static, Slot>) -> Vec<String> {
    h.state_mut()
        .as_mut()
        .map(|a| a.shown_rows())
        .unwrap_or_default()
}

fn step_until(h: &mut Harness<'_, Slot>, what: &str, done: impl Fn(&[String]) -> bool) {
    if common::step_until_or(h, Duration::from_secs(20), |h| done(&screen(h))) {
        return;
    }
    panic!("{what}: screen was {:#?}", screen(h));
}

fn in_copy_mode(h: &Harness<'_, Slot>) -> bool {
    let app = h.state().as_ref().expect("app");
    app.pane()
        .and_then(|p| app.pane_ui(p))
        .is_some_and(|p| p.copy_mode().is_some())
}

/// Presses the copy-mode key (Ctrl+Shift+Space; key down only, as a user's press).
fn enter_copy_mode(h: &mut Harness<'static, Slot>) {
    h.event(Event::Key {
        key: Key::Space,
        physical_key: None,
        pressed: true,
        repeat: false,
        modifiers: Modifiers::CTRL | Modifiers::SHIFT,
    });
    h.step();
    assert!(in_copy_mode(h), "Ctrl+Shift+Space enters copy mode");
}

/// Types `keys` into copy mode, one frame each, and steps while a key waits for
/// history lines from the model; returns what those frames copied.
fn keys(h: &mut Harness<'static, Slot>, keys: &str) -> Vec<String> {
    let mut copied = Vec::new();
    for c in keys.chars() {
        h.event(Event::Text(c.to_string()));
        h.step();
        copied.extend(common::copied_now(h));
    }
    let waits = |h: &Harness<'static, Slot>| {
        let app = h.state().as_ref().expect("app");
        app.pane()
            .and_then(|p| app.pane_ui(p))
            .is_some_and(|p| p.waits_for_history())
    };
    tern_testkit::eventually("the history page", Duration::from_secs(10), || {
        if !waits(h) {
            return true;
        }
        h.step();
        copied.extend(common::copied_now(h));
        false
    });
    copied
}

fn ctrl(h: &mut Harness<'static, Slot>, key: Key) {
    h.event(Event::Key {
        key,
        physical_key: None,
        pressed: true,
        repeat: false,
        modifiers: Modifiers::CTRL,
    });
    h.step();
}

/// k, w, v, e, y select a word on the screen and copy it; the program gets none of
/// those keys. Catches keys that still reach the pty, or a yank of the wrong cells.
#[test]
fn copy_mode_selects_a_word_by_keys_and_y_copies_it() {
    let script = "printf 'alpha one\\nbeta two\\ngamma three\\n'; exec cat";
    let mut h = harness("sh", &["-c", script]);
    step_until(&mut h, "output", |rows| {
        rows.iter().any(|r| r == "gamma three")
    });
    common::wait_sized(&mut h);
    enter_copy_mode(&mut h);
    assert_eq!(keys(&mut h, "kwve"), Vec::<String>::new());
    assert_eq!(keys(&mut h, "y"), ["three"]);
    assert!(!in_copy_mode(&h), "y leaves copy mode");
    // Nothing typed in copy mode reached cat (it would echo it).
    h.step();
    assert!(
        !screen(&h).iter().any(|r| r.contains("kwve")),
        "{:#?}",
        screen(&h)
    );
}

/// gg goes to the top of the scrollback (the view follows), Ctrl+V and j select a
/// block, y copies it. Catches a view that stays at the bottom, a block copied as
/// whole lines, or a key that waits for a page of history (`Pipeline::history` in
/// copy mode's line reader: `ui_waits` grows).
#[test]
fn copy_mode_selects_a_block_in_the_scrollback() {
    let script = "i=1; while [ $i -le 100 ]; do echo \"line $i\"; i=$((i+1)); done; exec cat";
    let mut h = harness("sh", &["-c", script]);
    step_until(&mut h, "output", |rows| {
        rows.iter().any(|r| r == "line 100")
    });
    common::wait_sized(&mut h);
    let pipeline = h.state().as_ref().expect("app").core().pipeline().clone();
    enter_copy_mode(&mut h);
    keys(&mut h, "ggw");
    assert_eq!(
        shown(&mut h).first().map(String::as_str),
        Some("line 1"),
        "the view follows the cursor to the top"
    );
    ctrl(&mut h, Key::V);
    assert_eq!(keys(&mut h, "jjy"), ["1\n2\n3"]);
    assert!(!in_copy_mode(&h));
    assert_eq!(
        shown(&mut h)
            .iter()
            .rev()
            .find(|r| !r.is_empty())
            .map(String::as_str),
        Some("line 100"),
        "leaving copy mode goes back to the live screen"
    );
    // The lines above the screen came as pages asked for between frames: no key
    // waited for the model.
    assert_eq!(
        pipeline.ui_waits(),
        0,
        "a copy-mode key waited for the model"
    );
}

/// Copy mode says so on the pane (issue 51: no mode indicator), and what it selects:
/// the pane's label (and the badge drawn at its top right) follows `v` and Escape.
#[test]
fn copy_mode_shows_its_mode_on_the_pane() {
    use egui_kittest::kittest::Queryable as _;
    let mut h = harness("cat", &[]);
    step_until(&mut h, "the view appears", |_| true);
    common::wait_sized(&mut h);
    assert!(h.query_by_label("terminal (COPY)").is_none());
    enter_copy_mode(&mut h);
    h.step();
    assert!(h.query_by_label("terminal (COPY)").is_some());
    keys(&mut h, "v");
    h.step();
    assert!(h.query_by_label("terminal (COPY · VISUAL)").is_some());
    h.key_press(Key::Escape);
    h.step();
    h.step();
    assert!(
        h.query_by_label("terminal").is_some(),
        "no mode once it is left"
    );
}

/// Escape leaves copy mode and clears its selection; keys reach the program again.
#[test]
fn escape_leaves_copy_mode() {
    let mut h = harness("cat", &[]);
    step_until(&mut h, "the view appears", |_| true);
    common::wait_sized(&mut h);
    enter_copy_mode(&mut h);
    keys(&mut h, "v");
    h.key_press(Key::Escape);
    h.step();
    assert!(!in_copy_mode(&h));
    h.event(Event::Text("hello".into()));
    h.key_press(Key::Enter);
    step_until(&mut h, "echo", |rows| {
        rows.iter().filter(|r| r.as_str() == "hello").count() == 2
    });
}

fn hint_labels(h: &Harness<'_, Slot>) -> Vec<(String, String)> {
    let app = h.state().as_ref().expect("app");
    app.pane()
        .and_then(|p| app.pane_ui(p))
        .and_then(|p| p.hint_picker())
        .map(|picker| {
            picker
                .hints
                .iter()
                .map(|(label, hint)| (label.clone(), hint.text.clone()))
                .collect()
        })
        .unwrap_or_default()
}

fn show_hints(h: &mut Harness<'static, Slot>) {
    h.event(Event::Key {
        key: Key::H,
        physical_key: None,
        pressed: true,
        repeat: false,
        modifiers: Modifiers::CTRL | Modifiers::SHIFT,
    });
    h.step();
}

/// Ctrl+Shift+H labels a URL with parentheses, a `path:line` and a hash; typing a
/// label copies its match and Ctrl+label types it into the program. Catches labels
/// that are not routed (the letters would reach cat) and a URL cut at `(`.
#[test]
fn hints_label_matches_and_a_typed_label_copies_or_types_it() {
    let script = "printf 'see https://en.wikipedia.org/wiki/Rust_(programming_language) at src/main.rs:12 in 3f2a9c1b\\n'; exec cat";
    let mut h = harness("sh", &["-c", script]);
    step_until(&mut h, "output", |rows| {
        rows.iter().any(|r| r.starts_with("see https"))
    });
    common::wait_sized(&mut h);
    show_hints(&mut h);
    assert_eq!(
        hint_labels(&h),
        [
            (
                "a".to_string(),
                "https://en.wikipedia.org/wiki/Rust_(programming_language)".to_string()
            ),
            ("s".to_string(), "src/main.rs:12".to_string()),
            ("d".to_string(), "3f2a9c1b".to_string()),
        ]
    );
    assert_eq!(keys(&mut h, "s"), ["src/main.rs:12"]);
    assert!(hint_labels(&h).is_empty(), "a chosen label ends the hints");
    show_hints(&mut h);
    ctrl(&mut h, Key::D);
    h.key_press(Key::Enter);
    step_until(&mut h, "the hash typed into cat", |rows| {
        rows.iter().filter(|r| r.as_str() == "3f2a9c1b").count() == 2
    });
    show_hints(&mut h);
    assert!(!hint_labels(&h).is_empty());
    h.key_press(Key::Escape);
    h.step();
    assert!(hint_labels(&h).is_empty(), "Escape takes the labels away");
}

fn copy_cursor_line(h: &Harness<'_, Slot>) -> Option<u64> {
    let app = h.state().as_ref().expect("app");
    app.pane()
        .and_then(|p| app.pane_ui(p))
        .and_then(|p| p.copy_mode())
        .map(|m| m.cursor().line)
}

/// `/` searches the scrollback (the asynchronous search bar); the match it shows moves
/// the copy cursor, Escape returns to copy mode there, and `n`/`N` go through the
/// other matches. Catches a search whose result never reaches the copy cursor.
#[test]
fn copy_mode_search_moves_the_cursor_and_n_goes_on() {
    let script = "i=1; while [ $i -le 100 ]; do echo \"line $i\"; i=$((i+1)); done; exec cat";
    let mut h = harness("sh", &["-c", script]);
    step_until(&mut h, "output", |rows| {
        rows.iter().any(|r| r == "line 100")
    });
    common::wait_sized(&mut h);
    enter_copy_mode(&mut h);
    let start = copy_cursor_line(&h).expect("in copy mode");
    keys(&mut h, "/");
    h.step();
    h.event(Event::Text("line 4".into()));
    h.step();
    h.key_press(Key::Enter);
    let moved = common::step_until_or(&mut h, Duration::from_secs(10), |h| {
        copy_cursor_line(h).is_some_and(|l| l != start)
    });
    assert!(moved, "the search's match never moved the copy cursor");
    h.key_press(Key::Escape);
    h.step();
    h.step();
    assert!(
        in_copy_mode(&h),
        "Escape closes the search bar, not copy mode"
    );
    let first = copy_cursor_line(&h).expect("in copy mode");
    keys(&mut h, "N");
    let other = copy_cursor_line(&h).expect("in copy mode");
    if other == first {
        keys(&mut h, "n");
    }
    let last = copy_cursor_line(&h).expect("in copy mode");
    assert_ne!(last, first, "n or N goes to another match");
    let yanked = keys(&mut h, "0v$y");
    assert_eq!(yanked.len(), 1);
    assert!(yanked[0].starts_with("line 4"), "{yanked:?}");
}

/// Shift+label opens; a path that does not exist is refused at once with a note on the
/// pane (no opener runs, nothing waits), and the match is copied instead. Catches an
/// open that hands a missing file to the opener or loses the match.
#[test]
fn opening_a_hint_for_a_missing_path_says_so_and_copies_it() {
    let script = "printf 'see ./no/such/file.rs:3 here\\n'; exec cat";
    let mut h = harness("sh", &["-c", script]);
    step_until(&mut h, "output", |rows| {
        rows.iter().any(|r| r.starts_with("see ./no"))
    });
    common::wait_sized(&mut h);
    show_hints(&mut h);
    assert_eq!(
        hint_labels(&h),
        [("a".to_string(), "./no/such/file.rs:3".to_string())]
    );
    assert_eq!(keys(&mut h, "A"), ["./no/such/file.rs:3"]);
    let note = h
        .state()
        .as_ref()
        .and_then(|a| a.exited().map(str::to_owned));
    assert!(
        note.as_deref()
            .is_some_and(|n| n.contains("does not exist")),
        "{note:?}"
    );
}

/// Shift+label on a `path:line` that exists opens the configured editor at that line in
/// a new tab (`EDITOR +LINE PATH`; a stand-in records its arguments). Catches the
/// platform opener used instead (the file, not the line), seen failing so.
#[test]
fn a_path_line_hint_opens_the_editor_at_its_line_in_a_new_tab() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("src")).expect("mkdir");
    std::fs::write(dir.path().join("src/main.rs"), "fn main() {}\n").expect("file");
    let record = dir.path().join("editor-args.txt");
    let editor = dir.path().join("editor.sh");
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
    let config = dir.path().join("config.ron");
    std::fs::write(&config, format!("(editor: Some(\"{}\"))", editor.display())).expect("config");
    let mut launch = Launch::new(
        SpawnSpec::command(
            "sh",
            &["-c", "printf 'error at src/main.rs:12 here\\n'; exec cat"],
        )
        .cwd(dir.path())
        .size(TermSize::new(80, 24)),
    );
    launch.config = tern::window::settings::ConfigSource::File(config);
    let mut h = common::app_harness(launch, egui::vec2(800.0, 480.0));
    step_until(&mut h, "output", |rows| {
        rows.iter().any(|r| r.starts_with("error at"))
    });
    common::wait_sized(&mut h);
    show_hints(&mut h);
    assert_eq!(
        hint_labels(&h),
        [("a".to_string(), "src/main.rs:12".to_string())]
    );
    keys(&mut h, "A");
    let want = format!("+12 {}\n", dir.path().join("src/main.rs").display());
    let opened = common::step_until_or(&mut h, Duration::from_secs(20), |_| {
        std::fs::read_to_string(&record).is_ok_and(|t| t == want)
    });
    assert!(
        opened,
        "the editor got {:?}, not {want:?}",
        std::fs::read_to_string(&record)
    );
    let tabs = h
        .state()
        .as_ref()
        .and_then(|a| a.core().ws().active_group().map(|g| g.tabs.len()));
    assert_eq!(tabs, Some(2), "the editor runs in a new tab");
}
