//! The config file: defaults, partial files, errors with positions, hot reload.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tern_testkit::eventually;

use tern_core::config::themes::{self, Accents};
use tern_core::config::{
    ClipboardPolicy, Config, ConfigEvent, ConfigWatcher, CursorStyle, DEFAULT_CONFIG_RON,
    KeyBinding, KeyChord, Rgb, ThemeName,
};

fn parse(text: &str) -> Result<Config, tern_core::config::ConfigError> {
    Config::parse(text, "config.ron")
}

#[test]
fn the_documented_default_file_is_the_defaults() {
    let parsed = parse(DEFAULT_CONFIG_RON).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(parsed, Config::default());
}

/// Every field name (at any depth) of `Config` is written as `name:` in the
/// documented file, so adding an option without documenting it fails here.
#[test]
fn every_option_is_documented() {
    let field = regex::Regex::new(r"(?m)^\s*([a-z_][a-z0-9_]*):").expect("regex");
    let names = |text: &str| -> BTreeSet<String> {
        field.captures_iter(text).map(|c| c[1].to_owned()).collect()
    };
    let fields = names(&Config::default().to_ron());
    let documented = names(DEFAULT_CONFIG_RON);
    assert!(fields.len() > 30, "{fields:?}");
    let missing: Vec<_> = fields.difference(&documented).collect();
    assert!(missing.is_empty(), "not in assets/config.ron: {missing:?}");
}

#[test]
fn defaults_are_the_documented_choices() {
    let c = Config::default();
    assert_eq!(c.font.size, 15.0);
    assert_eq!(c.theme.name, ThemeName::DARK);
    assert_eq!(c.scrollback_lines, 10_000);
    assert_eq!(c.flow_control_window_bytes, 1 << 20);
    assert_eq!(c.clipboard.osc52_write, ClipboardPolicy::Allow);
    assert_eq!(c.clipboard.osc52_read, ClipboardPolicy::Deny);
    assert!(c.confirm_on_close && c.confirm_multiline_paste && !c.resize_requests);
    assert!(c.session.restore && !c.session.restore_last_screen);
    assert_eq!(c.pipeline_config().window_bytes, 1 << 20);
}

#[test]
fn a_partial_file_keeps_every_other_default() {
    let c = parse(
        r##"(
            font: (size: 12.5),
            theme: (name: Light, background: "#101820", bright: (red: "#FF5555")),
            cursor: (style: Beam),
            env: {"EDITOR": "hx"},
            key_bindings: {"new_tab": "Ctrl+Shift+T", "close_pane": "none"},
            shell: (program: "/bin/zsh", args: ["-l"]),
        )"##,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.font.size, 12.5);
    assert_eq!(c.font.family, None);
    assert_eq!(c.theme.name, ThemeName::LIGHT);
    assert_eq!(
        c.theme.background,
        Some(Rgb {
            r: 0x10,
            g: 0x18,
            b: 0x20
        })
    );
    let ansi = c.theme.ansi_overrides();
    assert_eq!(ansi[9].map(|c| c.to_string()).as_deref(), Some("#ff5555"));
    assert_eq!(ansi.iter().flatten().count(), 1);
    assert_eq!(c.cursor.style, CursorStyle::Beam);
    assert!(!c.cursor.blinking);
    assert_eq!(c.env.get("EDITOR").map(String::as_str), Some("hx"));
    assert_eq!(
        c.key_bindings.get("new_tab"),
        Some(&KeyBinding::Chord(KeyChord {
            ctrl: true,
            shift: true,
            alt: false,
            super_: false,
            key: "t".into()
        }))
    );
    assert_eq!(c.key_bindings.get("close_pane"), Some(&KeyBinding::Unbound));
    assert_eq!(c.scrollback_lines, 10_000);
    let spec = c.spawn_spec(Some("/tmp".into()));
    assert_eq!(spec.command, Some(("/bin/zsh".into(), vec!["-l".into()])));
    assert_eq!(spec.env, vec![("EDITOR".into(), "hx".into())]);
    // Explicit Some(...) is accepted too, and a blank file is the defaults.
    assert_eq!(
        parse(r#"(font: (family: Some("Iosevka")))"#)
            .expect("parses")
            .font
            .family
            .as_deref(),
        Some("Iosevka")
    );
    assert_eq!(parse("  \n").expect("blank"), Config::default());
}

#[test]
fn an_unknown_field_names_its_line_and_column() {
    let err = parse("(\n    font: (size: 14.0),\n    scrollbak_lines: 5,\n)").expect_err("typo");
    assert_eq!(err.position.map(|p| p.0), Some(3), "{err}");
    assert!(err.message.contains("scrollbak_lines"), "{err}");
    let shown = err.to_string();
    assert!(shown.starts_with("config.ron:3:"), "{shown}");
    let nested = parse("(font: (\n  familly: \"x\"))").expect_err("nested typo");
    assert_eq!(nested.position.map(|p| p.0), Some(2), "{nested}");
}

#[test]
fn a_syntax_error_names_its_line_and_column() {
    let err =
        parse("(\n  font: (size: 14.0),\n  confirm_on_close: true\n  resize_requests: false,\n)")
            .expect_err("missing comma");
    let (line, col) = err.position.expect("position");
    assert_eq!(line, 4, "{err}");
    assert!(col >= 1, "{err}");
    assert!(err.to_string().starts_with("config.ron:4:"), "{err}");
}

#[test]
fn a_bad_chord_or_colour_is_reported_where_it_is_written() {
    let err = parse("(\n  key_bindings: {\n    \"new_tab\": \"ctrl+hyper+t\",\n  },\n)")
        .expect_err("bad chord");
    assert_eq!(err.position.map(|p| p.0), Some(3), "{err}");
    assert!(err.message.contains("unknown modifier \"hyper\""), "{err}");
    let err = parse("(theme: (\n foreground: \"red\"))").expect_err("bad colour");
    assert_eq!(err.position.map(|p| p.0), Some(2), "{err}");
    assert!(err.message.contains("#rrggbb"), "{err}");
}

#[test]
fn load_reports_a_missing_file_and_load_or_default_accepts_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("config.ron");
    let err = Config::load(&path).expect_err("missing");
    assert!(err.not_found);
    assert_eq!(Config::load_or_default(&path), Ok(Config::default()));
    assert!(Config::write_default_if_missing(&path).expect("write"));
    assert!(!Config::write_default_if_missing(&path).expect("no rewrite"));
    assert_eq!(Config::load(&path), Ok(Config::default()));
}

#[test]
fn the_config_round_trips_through_ron() {
    let mut c = Config::default();
    c.font.family = Some("Iosevka Term".into());
    c.theme.cursor = Some(Rgb { r: 1, g: 2, b: 3 });
    c.key_bindings
        .insert("split_right".into(), "super+d".parse().expect("chord"));
    c.clipboard.osc52_write = ClipboardPolicy::Ask;
    assert_eq!(parse(&c.to_ron()), Ok(c));
}

/// Waits (generously) for an event matching `want`, skipping others (editors and file
/// systems may produce intermediate ones). Never asserts how long it took.
fn wait_for(w: &ConfigWatcher, what: &str, want: impl Fn(&ConfigEvent) -> bool) -> ConfigEvent {
    let mut seen = Vec::new();
    eventually(
        format!("a {what} event"),
        Duration::from_secs(30),
        || match w.recv_timeout(Duration::from_millis(200)) {
            Some(ev) if want(&ev) => Ok(ev),
            Some(ev) => {
                seen.push(ev);
                Err(format!("saw {seen:?}"))
            }
            None => Err(format!("saw {seen:?}")),
        },
    )
}

fn font_size_is(size: f32) -> impl Fn(&ConfigEvent) -> bool {
    move |ev| matches!(ev, ConfigEvent::Reloaded(c) if c.font.size == size)
}

fn write_atomically(path: &Path, text: &str) {
    let tmp = path.with_file_name(".config.ron.swp");
    std::fs::write(&tmp, text).expect("write temp");
    std::fs::rename(&tmp, path).expect("rename over");
}

#[test]
fn hot_reload_sees_writes_renames_errors_and_removal() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("tern").join("config.ron");
    let wakes = Arc::new(AtomicUsize::new(0));
    let w = wakes.clone();
    let (watcher, initial) = ConfigWatcher::start(
        &path,
        Some(Arc::new(move || {
            w.fetch_add(1, Ordering::Relaxed);
        })),
    )
    .expect("watch");
    assert_eq!(initial, ConfigEvent::Removed, "no file yet");
    assert_eq!(watcher.path(), path);

    std::fs::write(&path, "(font: (size: 11.0))").expect("write");
    wait_for(&watcher, "reload after a write", font_size_is(11.0));

    write_atomically(&path, "(font: (size: 12.0))");
    wait_for(&watcher, "reload after a rename", font_size_is(12.0));

    std::fs::write(&path, "(font: (size: 12.0),\n nonsense)").expect("write");
    let ev = wait_for(&watcher, "error", |e| matches!(e, ConfigEvent::Error(_)));
    let ConfigEvent::Error(err) = ev else {
        unreachable!()
    };
    assert_eq!(err.position.map(|p| p.0), Some(2), "{err}");

    write_atomically(&path, "(font: (size: 13.0))");
    wait_for(&watcher, "reload after fixing", font_size_is(13.0));

    std::fs::remove_file(&path).expect("remove");
    wait_for(&watcher, "removal", |e| *e == ConfigEvent::Removed);

    std::fs::write(&path, "(font: (size: 14.0))").expect("write");
    wait_for(&watcher, "reload after re-creating", font_size_is(14.0));
    // The waker runs right after each event is queued: wait for the last one.
    eventually("the sixth wake", Duration::from_secs(30), || {
        wakes.load(Ordering::Relaxed) >= 6
    });
}

#[test]
fn the_watcher_reports_the_file_as_it_was_at_start_and_ignores_same_content() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("config.ron");
    std::fs::write(&path, "(font: (size: 16.0))").expect("write");
    let (watcher, initial) = ConfigWatcher::start(&path, None).expect("watch");
    assert!(font_size_is(16.0)(&initial), "{initial:?}");
    // Rewriting the same text (an editor's plain save) sends nothing; the next real
    // change is the first event.
    std::fs::write(&path, "(font: (size: 16.0))").expect("same");
    std::fs::write(&path, "(font: (size: 17.0))").expect("change");
    let ev = wait_for(&watcher, "the change", |_| true);
    assert!(font_size_is(17.0)(&ev), "{ev:?}");
}

#[cfg(unix)]
#[test]
fn a_symlinked_config_reloads_when_its_target_changes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dotfiles = dir.path().join("dotfiles");
    let config_dir = dir.path().join("config");
    std::fs::create_dir_all(&dotfiles).expect("mkdir");
    std::fs::create_dir_all(&config_dir).expect("mkdir");
    let target = dotfiles.join("tern.ron");
    std::fs::write(&target, "(font: (size: 10.0))").expect("write");
    let link = config_dir.join("config.ron");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    let (watcher, initial) = ConfigWatcher::start(&link, None).expect("watch");
    assert!(font_size_is(10.0)(&initial), "{initial:?}");
    write_atomically(&target, "(font: (size: 18.0))");
    wait_for(&watcher, "reload through the link", font_size_is(18.0));
}

/// The theme and cursor reach the model: programs asking for colours get the theme's,
/// OSC 104 resets to it, DECSCUSR 0 returns to the configured cursor, and a live theme
/// change recolours what no program set.
#[test]
fn theme_and_cursor_settings_reach_the_model() {
    use tern_core::model::{CursorShape, DynamicDefaults, TermSize, Terminal};
    let config = parse(
        r##"(
            theme: (name: Light, normal: (red: "#aa0011")),
            cursor: (style: Beam, blinking: true),
        )"##,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut term = Terminal::new(TermSize::new(20, 4), config.term_config());
    let ask = |term: &mut Terminal, q: &str| {
        term.advance(q.as_bytes());
        String::from_utf8(term.take_replies()).expect("utf-8")
    };
    assert_eq!(
        ask(&mut term, "\x1b]4;1;?\x07"),
        "\x1b]4;1;rgb:aaaa/0000/1111\x07",
        "the override"
    );
    let light = DynamicDefaults::light();
    let bg = ask(&mut term, "\x1b]11;?\x07");
    assert!(
        bg.contains(&light.background.to_xparse()),
        "the light theme's background: {bg:?}"
    );
    ask(&mut term, "\x1b]4;1;#00ff00\x07\x1b]104;1\x07");
    assert_eq!(
        ask(&mut term, "\x1b]4;1;?\x07"),
        "\x1b]4;1;rgb:aaaa/0000/1111\x07",
        "OSC 104 resets to the theme, not to xterm's red"
    );
    assert_eq!(term.cursor_shape(), CursorShape::Beam);
    term.advance(b"\x1b[2 q");
    assert_eq!(term.cursor_shape(), CursorShape::Block);
    term.advance(b"\x1b[0 q");
    assert_eq!(
        term.cursor_shape(),
        CursorShape::Beam,
        "DECSCUSR 0: the config's"
    );
    // A new theme (config reload) applies to colours no program set.
    term.set_palette_defaults(DynamicDefaults::dark());
    assert_eq!(
        ask(&mut term, "\x1b]4;1;?\x07"),
        format!(
            "\x1b]4;1;{}\x07",
            DynamicDefaults::dark().ansi[1].to_xparse()
        )
    );
}

#[test]
fn an_action_takes_several_chords_from_a_list() {
    let c = parse(
        r#"(key_bindings: {"focus_left": ["ctrl+shift+left", "super+h"], "new_tab": "ctrl+t"})"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let chords: Vec<String> = c.key_bindings["focus_left"]
        .chords()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(chords, ["ctrl+shift+left", "super+h"]);
    assert_eq!(c.key_bindings["new_tab"].chords().len(), 1);
    // Written back and read again, the list stays a list.
    assert_eq!(parse(&c.to_ron()).expect("round trip"), c);
    let err = parse(r#"(key_bindings: {"focus_left": ["ctrl+shift+left", "hyper+h"]})"#)
        .expect_err("a bad chord in the list");
    assert!(err.to_string().contains("hyper"), "{err}");
}

/// A scheme by name reaches the model (a program asking OSC 11 and OSC 4 gets its
/// colours), with the config's overrides on top; a name that names nothing is an error
/// of the file at its line and column.
#[test]
fn a_named_scheme_reaches_the_model_and_an_unknown_one_is_an_error_where_written() {
    use tern_core::model::{TermSize, Terminal};
    let config = parse(
        r##"(
            theme: (name: "catppuccin-mocha", normal: (red: "#aa0011")),
        )"##,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut term = Terminal::new(TermSize::new(20, 4), config.term_config());
    term.advance(b"\x1b]11;?\x07\x1b]4;1;?\x07\x1b]4;2;?\x07");
    let replies = String::from_utf8(term.take_replies()).expect("utf-8");
    assert!(
        replies.contains("rgb:1e1e/1e1e/2e2e"),
        "Mocha's base: {replies:?}"
    );
    assert!(
        replies.contains("4;1;rgb:aaaa/0000/1111"),
        "the override: {replies:?}"
    );
    assert!(
        replies.contains("4;2;rgb:a6a6/e3e3/a1a1"),
        "Mocha's green: {replies:?}"
    );
    let err = parse("(\n  theme: (name: \"Purple Haze\"),\n)").unwrap_err();
    assert_eq!(err.position, Some((2, 17)), "{err}");
    assert!(
        err.to_string().contains("no theme \"Purple Haze\""),
        "{err}"
    );
}

/// Remote control is on unless the file says `remote_control: false` (then the app
/// binds no socket and sets no `TERN_SOCKET`, app/src/main.rs). Catches the switch
/// missing or defaulting off.
#[test]
fn remote_control_is_on_by_default_and_can_be_switched_off() {
    assert!(Config::default().remote_control);
    let c = parse("(remote_control: false)").unwrap_or_else(|e| panic!("{e}"));
    assert!(!c.remote_control);
    assert_eq!(
        Config {
            remote_control: true,
            ..c
        },
        Config::default()
    );
}

/// Catches a theme file's cursor text, selection, link or search colours read
/// nowhere (issue 51: Dracula's selection), one case per format.
#[test]
fn each_format_gives_the_window_colours_it_names() {
    let palette = |line: &dyn Fn(usize) -> String| (0..16).map(line).collect::<Vec<_>>().join("\n");
    let ghostty = format!(
        "background = #000000\nforeground = #ffffff\ncursor-text = #010101\n\
         selection-background = #020202\nselection-foreground = #030303\n{}",
        palette(&|i| format!("palette = {i}=#101010"))
    );
    let kitty = format!(
        "background #000000\nforeground #ffffff\ncursor_text_color #010101\n\
         selection_background #020202\nselection_foreground #030303\nurl_color #040404\n{}",
        palette(&|i| format!("color{i} #101010"))
    );
    let names = [
        "black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
    ];
    let table = names.map(|n| format!("{n} = '#101010'")).join("\n");
    let alacritty = format!(
        "[colors.primary]\nbackground = '#000000'\nforeground = '#ffffff'\n\
         [colors.cursor]\ntext = '#010101'\ncursor = 'CellForeground'\n\
         [colors.selection]\nbackground = '#020202'\ntext = '#030303'\n\
         [colors.search.matches]\nbackground = '#050505'\n\
         [colors.search.focused_match]\nbackground = '#060606'\n\
         [colors.normal]\n{table}\n[colors.bright]\n{table}\n"
    );
    let grey = |v: u8| Some(Rgb { r: v, g: v, b: v });
    let common = Accents {
        cursor_text: grey(1),
        selection_background: grey(2),
        selection_foreground: grey(3),
        ..Accents::default()
    };
    assert_eq!(themes::parse_ghostty(&ghostty).unwrap().accents, common);
    let kitty = themes::parse_kitty(&kitty).unwrap();
    assert_eq!(
        kitty.accents,
        Accents {
            url: grey(4),
            ..common.clone()
        }
    );
    let alacritty = themes::parse_alacritty(&alacritty).unwrap();
    assert_eq!(
        alacritty.cursor, None,
        "CellForeground: the cell's own colour"
    );
    assert_eq!(
        alacritty.accents,
        Accents {
            search_match: grey(5),
            search_focused: grey(6),
            ..common
        }
    );
    let dracula = themes::find("Dracula", None).unwrap();
    assert_eq!(
        dracula.accents.selection_background,
        Some(Rgb {
            r: 0x44,
            g: 0x47,
            b: 0x5a
        })
    );
}
