//! The command line through the real binary, where a user first meets it: a mistyped
//! flag, value or subcommand is an error (exit 2) that names what was wrong and what
//! would be right; the help, the version and the subcommands that need no window say
//! what they should; with no display the window's error says how to run without one.

mod common;

use std::path::Path;
use std::process::Output;

/// `tern ARGS` with no config file, no socket and no display, in a scratch folder.
fn tern(args: &[&str]) -> Output {
    let dir = tempfile::tempdir().expect("dir");
    tern_in(dir.path(), args)
}

fn tern_in(dir: &Path, args: &[&str]) -> Output {
    common::tern_in(dir)
        .args(args)
        .current_dir(dir)
        .env("TERN_CONFIG", dir.join("no-config.ron"))
        .output()
        .expect("runs tern")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Exit status 2 and every `wants` in what it printed to stderr.
fn usage_error(args: &[&str], wants: &[&str]) {
    let out = tern(args);
    assert_eq!(
        out.status.code(),
        Some(2),
        "tern {args:?}: {}",
        stderr(&out)
    );
    let err = stderr(&out);
    for want in wants {
        assert!(err.contains(want), "tern {args:?}: no {want:?} in {err}");
    }
    assert!(
        stdout(&out).is_empty(),
        "nothing on stdout: {}",
        stdout(&out)
    );
}

#[test]
fn an_unknown_flag_is_named_with_the_way_to_pass_it_to_a_program() {
    usage_error(
        &["--bogus"],
        &["unexpected argument '--bogus'", "-- --bogus", "Usage: tern"],
    );
}

#[test]
fn a_size_that_is_not_a_number_is_named() {
    usage_error(&["--cols", "wide"], &["invalid value 'wide'", "--cols"]);
    usage_error(&["--rows=-3"], &["invalid value '-3'", "--rows"]);
}

#[test]
fn a_window_size_over_the_limits_is_refused_before_any_window() {
    usage_error(
        &["--cols", "5000", "-e", "true"],
        &["--cols 5000", "at most 2000 columns and 1000 rows"],
    );
}

#[test]
fn dash_e_without_a_program_is_an_error() {
    usage_error(&["-e"], &["a value is required for '--command"]);
}

#[test]
fn msg_without_an_action_lists_the_actions() {
    let out = tern(&["msg"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    for action in [
        "new-tab",
        "split",
        "send-text",
        "focus",
        "close",
        "list",
        "wait",
    ] {
        assert!(err.contains(action), "{action} not listed: {err}");
    }
}

#[test]
fn msg_focus_and_close_need_a_pane() {
    usage_error(&["msg", "focus"], &["--pane <ID>", "Usage: tern msg focus"]);
    usage_error(&["msg", "close"], &["--pane <ID>", "Usage: tern msg close"]);
}

#[test]
fn msg_wait_names_the_states_it_knows() {
    usage_error(
        &["msg", "wait", "--for", "bogus"],
        &["invalid value 'bogus'", "waiting, idle, done, exit"],
    );
    usage_error(&["msg", "wait"], &["--for <STATE>"]);
}

#[test]
fn msg_split_names_the_directions() {
    usage_error(
        &["msg", "split", "--direction", "diagonal"],
        &["invalid value 'diagonal'", "right, down"],
    );
}

#[test]
fn msg_pane_ids_are_numbers() {
    usage_error(
        &["msg", "focus", "--pane", "first"],
        &["invalid value 'first' for '--pane <ID>'"],
    );
}

#[test]
fn an_unknown_subcommand_of_config_is_named() {
    usage_error(&["config", "frob"], &["unrecognized subcommand 'frob'"]);
}

#[test]
fn version_prints_the_packages_version() {
    let out = tern(&["--version"]);
    assert!(out.status.success());
    assert_eq!(
        stdout(&out).trim(),
        format!("tern {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn help_names_the_faces_and_the_subcommands() {
    let out = tern(&["--help"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let help = stdout(&out);
    for want in [
        "--headless",
        "--hold",
        "--dump-screen",
        "-e, --command",
        "msg",
        "config",
        "replay",
        "session.sock",
    ] {
        assert!(help.contains(want), "{want} not in the help: {help}");
    }
}

#[test]
fn msg_help_names_each_action_with_its_purpose() {
    let out = tern(&["msg", "--help"]);
    assert!(out.status.success());
    let help = stdout(&out);
    assert!(help.contains("Open a tab"), "{help}");
    assert!(help.contains("--socket <PATH>"), "{help}");
}

#[test]
fn replay_refuses_a_zero_or_huge_size() {
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("out.bin");
    std::fs::write(&file, b"hi").expect("write");
    let file = file.to_str().expect("utf-8");
    let zero = tern(&["replay", "--cols", "0", file]);
    assert_eq!(zero.status.code(), Some(2));
    assert!(stderr(&zero).contains("at least 1"), "{}", stderr(&zero));
    let huge = tern(&["replay", "--rows", "100000", file]);
    assert_eq!(huge.status.code(), Some(2));
    assert!(stderr(&huge).contains("at most"), "{}", stderr(&huge));
}

#[test]
fn replay_draws_wide_characters_and_overwrites() {
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("out.bin");
    std::fs::write(&file, "日本\r\nabc\rX\n".as_bytes()).expect("write");
    let out = tern(&[
        "replay",
        "--cols",
        "10",
        "--rows",
        "3",
        file.to_str().expect("utf-8"),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let screen = stdout(&out);
    let rows: Vec<&str> = screen.lines().collect();
    assert_eq!(rows[0].trim_end(), "日本", "{screen}");
    assert_eq!(rows[1].trim_end(), "Xbc", "{screen}");
}

#[test]
fn the_man_page_goes_to_a_closed_pipe_without_an_error() {
    let mut child = common::tern_cmd()
        .arg("man")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    // `tern man | head -c 10`: the reader goes away early.
    let mut out = child.stdout.take().expect("stdout");
    let mut first = [0u8; 10];
    std::io::Read::read_exact(&mut out, &mut first).expect("the page starts");
    drop(out);
    let done = child.wait_with_output().expect("waits");
    assert!(done.status.success(), "{}", stderr(&done));
    assert!(stderr(&done).is_empty(), "{}", stderr(&done));
}

#[test]
fn with_no_display_the_window_says_how_to_run_without_one() {
    let out = tern(&["-e", "true"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("cannot open a window"), "{err}");
    assert!(err.contains("tern --headless -- CMD"), "{err}");
}

#[test]
fn msg_to_a_file_that_is_not_a_socket_names_it() {
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("plain.txt");
    std::fs::write(&file, "not a socket").expect("write");
    let out = tern(&["msg", "--socket", file.to_str().expect("utf-8"), "list"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("plain.txt"), "{}", stderr(&out));
}

#[test]
fn msg_to_a_socket_nobody_listens_on_any_more_says_so() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("stale.sock");
    drop(std::os::unix::net::UnixListener::bind(&path).expect("bind"));
    assert!(path.exists(), "the stale socket file stays");
    let out = tern(&["msg", "--socket", path.to_str().expect("utf-8"), "list"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("no tern listens on") && err.contains("stale.sock"),
        "{err}"
    );
}

#[test]
fn msg_finds_the_session_socket_under_xdg_runtime_dir() {
    let dir = tempfile::tempdir().expect("dir");
    let out = tern_in(dir.path(), &["msg", "list"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    // The kit's runtime dir (`common::isolate`).
    let expected = dir.path().join("run").join("tern").join("session.sock");
    assert!(
        err.contains(expected.to_str().expect("utf-8")),
        "looked elsewhere: {err}"
    );
}

#[test]
fn completions_for_an_unknown_shell_list_the_known_ones() {
    usage_error(
        &["completions", "tcsh"],
        &["invalid value 'tcsh'", "bash", "zsh", "fish"],
    );
}
