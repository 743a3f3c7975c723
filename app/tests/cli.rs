//! The command line through the real binary: completions and the man page generate,
//! `tern config check|show` report the effective settings and name bad `-o` overrides,
//! `tern msg` without a running tern says where it looked.

mod common;

use std::process::Output;

fn tern(args: &[&str], config: &std::path::Path) -> Output {
    common::tern_cmd()
        .args(args)
        .env("TERN_CONFIG", config)
        .output()
        .expect("runs tern")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn completions_generate_for_bash_zsh_and_fish() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("config.ron");
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef tern"),
        ("fish", "complete -c tern"),
    ] {
        let out = tern(&["completions", shell], &config);
        assert!(out.status.success(), "{shell}: {}", text(&out.stderr));
        let script = text(&out.stdout);
        assert!(script.contains(marker), "{shell} script lacks {marker:?}");
        // Subcommands and their flags are in the script.
        assert!(
            script.contains("new-tab") && script.contains("send-text"),
            "{shell}"
        );
        assert!(script.contains("hold"), "{shell}");
    }
    let out = tern(&["completions", "tcsh"], &config);
    assert!(!out.status.success(), "an unknown shell is an error");
}

#[test]
fn the_man_page_documents_every_flag() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = tern(&["man"], &dir.path().join("config.ron"));
    assert!(out.status.success());
    let page = text(&out.stdout);
    assert!(
        page.starts_with(".ie") || page.contains(".TH tern"),
        "{page:.200}"
    );
    for flag in ["\\-\\-title", "\\-\\-class", "\\-\\-hold", "\\-\\-option"] {
        assert!(page.contains(flag), "man page lacks {flag}");
    }
    // Sections of its own, and no references to pages that do not exist.
    for section in [
        ".SH SUBCOMMANDS",
        ".SH KEYS",
        ".SH FILES",
        ".SH ENVIRONMENT",
    ] {
        assert!(page.contains(section), "man page lacks {section}");
    }
    assert!(
        !page.contains("tern\\-msg(1)"),
        "a page that does not exist"
    );
    for entry in [
        "tern msg wait",
        "ctrl+shift+t",
        "TERN_SOCKET",
        "session.ron",
    ] {
        let entry = entry.replace('-', "\\-");
        assert!(page.contains(&entry), "man page lacks {entry}");
    }
}

#[test]
fn config_show_prints_the_file_with_overrides_on_top() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("config.ron");
    std::fs::write(&config, "(font: (size: 12.5), scrollback_lines: 777)").unwrap();
    let out = tern(
        &[
            "config",
            "show",
            "-o",
            "font.size=18",
            "-o",
            "exit_behavior=Hold",
        ],
        &config,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(shown.contains("size: 18.0"), "{shown}");
    assert!(shown.contains("scrollback_lines: 777"), "{shown}");
    assert!(shown.contains("exit_behavior: Hold"), "{shown}");
    // What it prints is a config tern reads back as the same settings.
    let parsed = tern_core::config::Config::parse(&shown, "shown").expect("parses");
    assert_eq!(parsed.font.size, 18.0);
}

#[test]
fn config_check_names_each_problem_and_fails() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("config.ron");
    std::fs::write(&config, "(font: (size: 12.5))").unwrap();
    let ok = tern(&["config", "check"], &config);
    assert!(ok.status.success(), "{}", text(&ok.stderr));
    assert!(text(&ok.stdout).contains(": ok"));

    let bad = tern(
        &[
            "config",
            "check",
            "-o",
            "font.sise=3",
            "-o",
            "font.size=big",
        ],
        &config,
    );
    assert_eq!(bad.status.code(), Some(1));
    let err = text(&bad.stderr);
    assert!(
        err.contains("-o font.sise=3: there is no setting \"font.sise\""),
        "{err}"
    );
    assert!(err.contains("-o font.size=big: font.size:"), "{err}");

    // What the window would refuse: an unknown action, a font family the system does
    // not have, a shell that is not installed (before: "ok"). A bad chord is a parse
    // error with its line and column.
    std::fs::write(
        &config,
        "(font: (family: Some(\"No Such Font Tern\"), bold: \"No Such Bold Tern\", italic: \"/no/such/italic.ttf\"),\n shell: (program: Some(\"/no/such/shell\")),\n key_bindings: {\"new_tabb\": \"ctrl+shift+t\"})",
    )
    .unwrap();
    let deep = tern(&["config", "check"], &config);
    assert_eq!(deep.status.code(), Some(1), "{}", text(&deep.stdout));
    let err = text(&deep.stderr);
    for want in [
        "unknown command `new_tabb`",
        "No Such Font Tern",
        "font.bold: no font family \"No Such Bold Tern\"",
        "font.italic: /no/such/italic.ttf",
        "/no/such/shell",
    ] {
        assert!(err.contains(want), "{want}: {err}");
    }
    // A missing file is the defaults, and says so.
    let missing = tern(&["config", "check"], &dir.path().join("none.ron"));
    assert!(missing.status.success());
    assert!(
        text(&missing.stdout).contains("no such file; using the defaults"),
        "{}",
        text(&missing.stdout)
    );

    std::fs::write(&config, "(font: (size: 12.5),\n  colour: 3)").unwrap();
    let broken = tern(&["config", "check"], &config);
    assert_eq!(broken.status.code(), Some(1));
    let err = text(&broken.stderr);
    assert!(
        err.contains("config.ron:2:"),
        "the file's line is named: {err}"
    );
    // A font feature or cell scale that cannot work, at its line.
    for (file, want) in [
        (
            "(font: (\n  features: [\"ss01\", \"ligatures\"]))",
            "font feature \"ligatures\"",
        ),
        ("(font: (\n  line_height: 0.0))", "not a cell scale"),
    ] {
        std::fs::write(&config, file).unwrap();
        let bad = tern(&["config", "check"], &config);
        assert_eq!(bad.status.code(), Some(1));
        let err = text(&bad.stderr);
        assert!(err.contains("config.ron:2:") && err.contains(want), "{err}");
    }
}

/// A hint pattern that does not compile is named by `tern config check` (the window
/// leaves it out); a good one passes. Catches a check that does not look at them.
#[test]
fn config_check_names_a_hint_pattern_that_does_not_compile() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("config.ron");
    std::fs::write(&config, "(hint_patterns: [\"JIRA-\\\\d+\"])").unwrap();
    let ok = tern(&["config", "check"], &config);
    assert!(ok.status.success(), "{}", text(&ok.stderr));
    std::fs::write(&config, "(hint_patterns: [\"JIRA-\\\\d+\", \"(unclosed\"])").unwrap();
    let bad = tern(&["config", "check"], &config);
    assert_eq!(bad.status.code(), Some(1));
    let err = text(&bad.stderr);
    assert!(
        err.contains("hint_patterns: hint pattern \"(unclosed\" does not compile"),
        "{err}"
    );
}

#[test]
fn msg_without_a_running_tern_says_where_it_looked() {
    let dir = tempfile::tempdir().expect("temp dir");
    let socket = dir.path().join("nobody.sock");
    let out = common::msg_cmd(&socket).arg("list").output().expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("no tern listens on") && err.contains("nobody.sock"),
        "{err}"
    );
    // send-text needs a pane: from --pane or $TERN_PANE_ID.
    let out = common::tern_cmd()
        .args(["msg", "send-text", "hi"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("--pane"),
        "{}",
        text(&out.stderr)
    );
}
