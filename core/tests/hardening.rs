//! Hardening (issue 48) in the core: theme and config files that are FIFOs, devices or
//! huge, theme files read once while unchanged, and two guards of the pipeline (a pane
//! closed while read ahead is freed; a hidden pane answers DA1). Policies:
//! `docs/SECURITY.md`. No other test in this file opens a pty (one counts them).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tern_core::config::{Config, ConfigEvent, ConfigWatcher, theme_files_read};
use tern_core::desktop_appearance::ColorScheme;
use tern_core::pipeline::{Pipeline, PipelineConfig, SpawnSpec};
use tern_testkit::{eventually, pty_masters};

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
}

/// A Ghostty theme file with background `bg` (`rrggbb`).
fn ghostty_theme(bg: &str) -> String {
    let mut text = format!("background = #{bg}\nforeground = #808080\n");
    for i in 0..16 {
        text.push_str(&format!("palette = {i}=#{i:02x}{i:02x}{i:02x}\n"));
    }
    text
}

/// Catches: a theme re-read (opened and parsed) on every light/dark flip of the
/// desktop (40,834 opens in a 20 s flood of portal signals before), and a saved
/// theme file never read again. Seen failing without `theme_cache`.
#[test]
fn a_light_dark_flip_reads_no_theme_file_and_a_saved_theme_is_read_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("themes")).expect("themes");
    std::fs::write(dir.path().join("themes/Night"), ghostty_theme("101010")).expect("night");
    std::fs::write(dir.path().join("themes/Day"), ghostty_theme("fafafa")).expect("day");
    let config = Config::parse(
        r#"(theme: (light: "Day", dark: "Night"))"#,
        dir.path().join("config.ron"),
    )
    .expect("parses");
    let background = |s: ColorScheme| config.theme.for_scheme(s).palette_defaults().background;
    assert_eq!(background(ColorScheme::Dark).r, 0x10);
    let before = theme_files_read();
    for _ in 0..1000 {
        assert_eq!(background(ColorScheme::Light).r, 0xfa);
        assert_eq!(background(ColorScheme::Dark).r, 0x10);
    }
    // Other tests in this binary read a few theme files meanwhile; a read per flip
    // would be 2,000.
    let read = theme_files_read() - before;
    assert!(read < 100, "2,000 flips read {read} theme files");
    std::fs::write(dir.path().join("themes/Night"), ghostty_theme("202020")).expect("save");
    assert_eq!(
        background(ColorScheme::Dark).r,
        0x20,
        "the saved theme is used"
    );
}

/// Catches: a theme (or config) that is a FIFO blocking the reader in `open` (the
/// window never appeared), `/dev/zero` read until memory ran out (8.4 GB at start-up),
/// a huge file read whole. Each is an error naming the file, at once.
#[test]
fn a_theme_that_is_a_fifo_a_device_or_huge_is_an_error_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let themes = dir.path().join("themes");
    std::fs::create_dir_all(&themes).expect("themes");
    mkfifo(&themes.join("Pipe"));
    std::os::unix::fs::symlink("/dev/zero", themes.join("Zero")).expect("symlink");
    std::fs::write(themes.join("Huge"), "# padding\n".repeat(200_000)).expect("huge");
    for (name, says) in [
        ("Pipe", "a FIFO"),
        ("Zero", "a device"),
        ("Huge", "larger than 1024 KiB"),
    ] {
        let err = Config::parse(
            &format!("(theme: (dark: {name:?}))"),
            dir.path().join("config.ron"),
        )
        .expect_err("a theme that is not read");
        let text = err.to_string();
        assert!(
            text.contains(&themes.join(name).display().to_string()) && text.contains(says),
            "{text}"
        );
    }
    mkfifo(&dir.path().join("fifo.ron"));
    let err = Config::load(dir.path().join("fifo.ron")).expect_err("a FIFO config");
    assert!(err.to_string().contains("a FIFO"), "{err}");
}

/// Catches: the config watcher's thread blocked on a theme FIFO, so that later saves
/// were never applied. A save naming a FIFO is an error; the next save applies.
#[test]
fn after_a_save_naming_a_fifo_theme_later_saves_still_apply() {
    let dir = tempfile::tempdir().expect("tempdir");
    let themes = dir.path().join("themes");
    std::fs::create_dir_all(&themes).expect("themes");
    mkfifo(&themes.join("Pipe"));
    let path = dir.path().join("config.ron");
    std::fs::write(&path, "(font: (size: 11.0))").expect("write");
    let (watcher, initial) = ConfigWatcher::start(&path, None).expect("watch");
    assert!(matches!(initial, ConfigEvent::Reloaded(_)), "{initial:?}");
    std::fs::write(&path, r#"(theme: (dark: "Pipe"))"#).expect("write");
    let next = |what: &str| {
        watcher
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|| panic!("no event after {what}: the watcher is stuck"))
    };
    match next("the FIFO save") {
        ConfigEvent::Error(e) => assert!(e.to_string().contains("a FIFO"), "{e}"),
        other => panic!("an error naming the FIFO, not {other:?}"),
    }
    std::fs::write(&path, "(font: (size: 15.0))").expect("write");
    match next("the good save") {
        ConfigEvent::Reloaded(c) => assert_eq!(c.font.size, 15.0),
        other => panic!("the good save applied, not {other:?}"),
    }
}

/// A pane read ahead whose window is full (its program floods cursor position queries
/// and never reads the answers, so the model stops parsing it and the reading thread
/// waits) is closed: its pty master is freed at once.
///
/// Catches: a close that leaves the pane with the reading thread (it waited forever on
/// the full window, the master still open 13 s after close; no test failed). Seen
/// failing with `take_back` left out of `ModelMsg::Remove`.
#[test]
fn closing_a_pane_while_it_is_read_ahead_frees_its_pty() {
    let window = 64 * 1024;
    let p = Pipeline::start(
        PipelineConfig {
            window_bytes: window,
            read_ahead_after_bytes: 1,
            ..PipelineConfig::default()
        },
        Arc::new(|| {}),
    )
    .expect("pipeline");
    let before = pty_masters("self");
    let pane = p
        .spawn(&SpawnSpec::command(
            "sh",
            &["-c", "exec yes \"$(printf '\\033[6n')\""],
        ))
        .expect("spawn");
    let stats = p.stats(pane).expect("stats");
    let credit = p.credit(pane).expect("credit");
    eventually(
        "the flood is read ahead and its window fills",
        Duration::from_secs(60),
        || {
            stats
                .read_ahead_spells
                .load(std::sync::atomic::Ordering::Relaxed)
                >= 1
                && credit.in_flight() >= window * 3 / 4
        },
    );
    assert!(pty_masters("self") > before, "the pane holds a master");
    p.close(pane);
    eventually(
        "the pane's pty master is closed after close",
        Duration::from_secs(5),
        || pty_masters("self") == before,
    );
}

/// A hidden pane's program asking DA1 (`ESC [ c`) gets the same answer as a visible
/// pane's, without the pane being shown.
///
/// Catches: a break that dropped only hidden panes' DA1 replies, which only an
/// unrelated test's 120 s deadline noticed. Seen failing so.
#[test]
fn a_hidden_pane_answers_da1_like_a_visible_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = Pipeline::start(PipelineConfig::default(), Arc::new(|| {})).expect("pipeline");
    let ask = |name: &str, visible: bool| {
        let out = dir.path().join(name);
        let script = format!(
            "stty raw -echo; printf '\\033[c'; exec cat > '{}'",
            out.display()
        );
        let pane = p
            .spawn(&SpawnSpec::command("sh", &["-c", &script]))
            .expect("spawn");
        p.set_visible(pane, visible);
        (pane, out)
    };
    let (shown, shown_out) = ask("visible", true);
    let (hidden, hidden_out) = ask("hidden", false);
    let answer = |out: &Path| {
        eventually(
            format!("a DA1 answer in {}", out.display()),
            Duration::from_secs(20),
            || {
                let got = std::fs::read(out).unwrap_or_default();
                if got.ends_with(b"c") {
                    Ok(got)
                } else {
                    Err(format!("{:?}", String::from_utf8_lossy(&got)))
                }
            },
        )
    };
    let visible_answer = answer(&shown_out);
    assert!(visible_answer.starts_with(b"\x1b[?"), "{visible_answer:?}");
    assert_eq!(answer(&hidden_out), visible_answer);
    p.close(shown);
    p.close(hidden);
}
