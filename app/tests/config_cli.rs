//! `tern config check` and `tern config show` through the binary, as a user checks the
//! file they just edited: which file is read (`--config`, then `$TERN_CONFIG`, then
//! `$XDG_CONFIG_HOME/tern/config.ron`), what each problem says (the file, line and
//! column), and that what `show` prints is a config `check` accepts.

mod common;

use std::path::Path;
use std::process::Output;

/// `tern ARGS` with HOME and XDG_CONFIG_HOME in `home` and `TERN_CONFIG` as given.
fn tern(home: &Path, tern_config: Option<&Path>, args: &[&str]) -> Output {
    let mut cmd = common::tern_cmd();
    cmd.args(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"));
    if let Some(path) = tern_config {
        cmd.env("TERN_CONFIG", path);
    }
    cmd.output().expect("runs tern")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn user_config(home: &Path, text: &str) -> std::path::PathBuf {
    let path = home.join(".config/tern/config.ron");
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(&path, text).expect("config");
    path
}

#[test]
fn with_no_file_check_names_where_it_looked_and_passes_on_the_defaults() {
    let home = tempfile::tempdir().expect("home");
    let out = tern(home.path(), None, &["config", "check"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let expected = home.path().join(".config/tern/config.ron");
    assert_eq!(
        stdout(&out).trim(),
        format!(
            "{}: no such file; using the defaults: ok",
            expected.display()
        )
    );
}

#[test]
fn check_reads_the_file_in_the_config_home_and_names_its_line_and_column() {
    let home = tempfile::tempdir().expect("home");
    let path = user_config(home.path(), "(font: (size: \"big\"))");
    let out = tern(home.path(), None, &["config", "check"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!("{}:1:14:", path.display())),
        "{}",
        stderr(&out)
    );
}

#[test]
fn tern_config_wins_over_the_config_home() {
    let home = tempfile::tempdir().expect("home");
    user_config(home.path(), "(font: (size: \"big\"))");
    let other = home.path().join("other.ron");
    std::fs::write(&other, "(scrollback_lines: 5)").expect("write");
    let out = tern(home.path(), Some(&other), &["config", "check"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), format!("{}: ok", other.display()));
}

#[test]
fn dash_dash_config_wins_over_tern_config() {
    let home = tempfile::tempdir().expect("home");
    let good = home.path().join("good.ron");
    std::fs::write(&good, "(scrollback_lines: 5)").expect("write");
    let bad = home.path().join("bad.ron");
    std::fs::write(&bad, "(scrollback_lines: \"many\")").expect("write");
    let out = tern(
        home.path(),
        Some(&good),
        &["config", "check", "--config", bad.to_str().expect("utf-8")],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("bad.ron:1:"), "{}", stderr(&out));
}

#[test]
fn a_config_path_that_is_a_folder_is_named() {
    let home = tempfile::tempdir().expect("home");
    let dir = home.path().to_str().expect("utf-8");
    let out = tern(home.path(), None, &["config", "check", "--config", dir]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!("{dir}: Is a directory")),
        "{}",
        stderr(&out)
    );
}

#[test]
fn what_show_prints_with_no_file_is_a_config_check_accepts() {
    let home = tempfile::tempdir().expect("home");
    let shown = tern(home.path(), None, &["config", "show"]);
    assert!(shown.status.success(), "{}", stderr(&shown));
    let path = home.path().join("shown.ron");
    std::fs::write(&path, &shown.stdout).expect("write");
    let out = tern(
        home.path(),
        None,
        &["config", "check", "--config", path.to_str().expect("utf-8")],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), format!("{}: ok", path.display()));
}

#[test]
fn show_names_a_bad_override_and_fails_but_prints_the_rest() {
    let home = tempfile::tempdir().expect("home");
    let out = tern(
        home.path(),
        None,
        &[
            "config",
            "show",
            "-o",
            "font.size=big",
            "-o",
            "scrollback_lines=321",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("-o font.size=big: font.size:"),
        "{}",
        stderr(&out)
    );
    assert!(
        stdout(&out).contains("scrollback_lines: 321"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn an_override_that_is_not_key_equals_value_is_named() {
    let home = tempfile::tempdir().expect("home");
    let out = tern(home.path(), None, &["config", "check", "-o", "font.size"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("-o font.size"), "{}", stderr(&out));
}

/// Issue 51: a misspelt theme no longer hides the rest. One run names every problem
/// where it is written, with the nearest name for a near miss.
#[test]
fn check_names_every_problem_in_one_run_with_where_and_a_suggestion() {
    let home = tempfile::tempdir().expect("home");
    let path = user_config(
        home.path(),
        "(\n    theme: (name: \"Dracla\"),\n    font: (family: \"No Such Family Anywhere\"),\n    \
         key_bindings: { \"splt_right\": \"ctrl+shift+d\" },\n    scrollbak_lines: 5,\n    \
         cursor: (blinkin: true, style: Beam),\n    confirm_on_close: \"yes\",\n)\n",
    );
    let out = tern(home.path(), None, &["config", "check"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    let at = |line_col: &str, text: &str| format!("tern: {}:{line_col}: {text}", path.display());
    for expected in [
        at(
            "2:19",
            "theme.name: no theme \"Dracla\" (did you mean `Dracula`?)",
        ),
        at(
            "3:20",
            "font.family: no font family \"No Such Family Anywhere\"",
        ),
        at(
            "4:21",
            "key_bindings: key binding for unknown command `splt_right` (did you mean `split_right`?)",
        ),
        // The file's own errors do not stop the check: each is left out, the rest read.
        at("5:5", "Unexpected field named `scrollbak_lines`"),
        at("6:14", "Unexpected field named `blinkin`"),
        at("7:22", "Expected boolean"),
    ] {
        assert!(
            err.lines().any(|l| l.starts_with(&expected)),
            "no line starting {expected:?} in:\n{err}"
        );
    }
}

/// A misspelt setting or key name is named where it is written, with what was meant.
#[test]
fn check_offers_the_nearest_setting_and_key_name() {
    let home = tempfile::tempdir().expect("home");
    for (text, expected) in [
        (
            "(scrollbak_lines: 5)",
            "1:2: Unexpected field named `scrollbak_lines`",
        ),
        (
            "(key_bindings: { \"new_tab\": \"ctrl+shft+t\" })",
            "(did you mean `shift`?)",
        ),
        (
            "(key_bindings: { \"new_tab\": \"ctrl+shift+pagedwn\" })",
            "(did you mean `pagedown`?)",
        ),
    ] {
        user_config(home.path(), text);
        let out = tern(home.path(), None, &["config", "check"]);
        assert_eq!(out.status.code(), Some(1));
        let err = stderr(&out);
        assert!(err.contains(expected), "{text}: {err}");
    }
    user_config(home.path(), "(scrollbak_lines: 5)");
    let err = stderr(&tern(home.path(), None, &["config", "check"]));
    assert!(err.contains("(did you mean `scrollback_lines`?)"), "{err}");
}
