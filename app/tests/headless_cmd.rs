//! `tern --headless -- CMD` through the binary, as a script or CI job uses it: the
//! program's exit status and final screen come back, its pty has the asked size and
//! folder, its environment is a terminal's, its questions are answered, and bad
//! arguments are clear errors.

mod common;

use std::process::{Output, Stdio};

/// `tern --headless --cols C --rows R --dump-screen - -- sh -c SCRIPT`, no config file.
fn headless(cols: usize, rows: usize, script: &str) -> Output {
    headless_args(&[
        "--cols",
        &cols.to_string(),
        "--rows",
        &rows.to_string(),
        "--dump-screen",
        "-",
        "--",
        "sh",
        "-c",
        script,
    ])
}

fn headless_args(args: &[&str]) -> Output {
    let dir = tempfile::tempdir().expect("dir");
    common::tern_cmd()
        .arg("--headless")
        .args(args)
        .env("TERN_CONFIG", dir.path().join("no-config.ron"))
        .stdin(Stdio::null())
        .output()
        .expect("runs tern")
}

/// The dumped screen's rows, trailing blanks trimmed.
fn rows(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim_end().to_owned())
        .collect()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_successful_program_exits_0_and_a_failing_one_with_its_status() {
    assert_eq!(headless(20, 3, "exit 0").status.code(), Some(0));
    assert_eq!(headless(20, 3, "exit 42").status.code(), Some(42));
    assert_eq!(headless(20, 3, "exit 255").status.code(), Some(255));
}

#[test]
fn a_program_killed_by_a_signal_is_a_failure() {
    let out = headless(20, 3, "kill -TERM $$");
    assert!(!out.status.success(), "{:?}", out.status);
}

#[test]
fn the_pty_has_the_asked_size() {
    let out = headless(40, 5, "stty size; tput cols; tput lines");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(rows(&out)[..3], ["5 40", "40", "5"]);
    assert_eq!(rows(&out).len(), 5, "the dump is the 5-row screen");
}

#[test]
fn the_program_runs_in_the_working_directory() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().canonicalize().expect("canonical");
    let out = headless_args(&[
        "--working-directory",
        path.to_str().expect("utf-8"),
        "--dump-screen",
        "-",
        "--",
        "pwd",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(rows(&out)[0], path.to_str().expect("utf-8"));
}

#[test]
fn a_missing_working_directory_is_a_clear_error() {
    let out = headless_args(&["--working-directory", "/no/such/dir", "--", "true"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("/no/such/dir does not exist or is not a directory"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_dump_path_that_cannot_be_written_is_a_clear_error() {
    let out = headless_args(&["--dump-screen", "/no/such/dir/screen.txt", "--", "true"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot write /no/such/dir/screen.txt"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_program_sees_a_256_colour_truecolour_terminal() {
    let out = headless(60, 4, "echo \"$TERM $COLORTERM\"; tput colors");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(rows(&out)[..2], ["xterm-256color truecolor", "256"]);
}

#[test]
fn the_program_gets_its_pane_id_and_a_controlling_tty() {
    let out = headless(60, 4, "echo \"pane=$TERN_PANE_ID\"; tty -s && echo tty");
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = rows(&out);
    assert!(
        rows[0].starts_with("pane=") && rows[0].len() > "pane=".len(),
        "{rows:?}"
    );
    assert_eq!(rows[1], "tty");
}

#[test]
fn a_long_line_wraps_at_the_columns() {
    let out = headless(10, 3, "printf abcdefghijklmno");
    assert_eq!(rows(&out), ["abcdefghij", "klmno", ""]);
}

#[test]
fn carriage_returns_and_tabs_move_the_cursor() {
    let out = headless(20, 2, "printf 'abcdef\\rXY\\tZ\\n'");
    assert_eq!(rows(&out)[0], "XYcdef  Z");
}

#[test]
fn wide_characters_take_two_cells() {
    let out = headless(6, 2, "printf '日本語x'");
    assert_eq!(rows(&out), ["日本語", "x"]);
}

#[test]
fn bytes_that_are_not_utf8_become_replacement_characters() {
    let out = headless(20, 2, "printf '\\377ok'");
    assert_eq!(rows(&out)[0], "\u{fffd}ok");
}

#[test]
fn a_program_that_clears_the_screen_leaves_only_what_came_after() {
    let out = headless(20, 4, "echo before; printf '\\033[H\\033[2J'; echo after");
    assert_eq!(rows(&out), ["after", "", "", ""]);
}

#[test]
fn the_alternate_screen_is_left_behind_when_the_program_returns() {
    let out = headless(
        20,
        3,
        "echo main; printf '\\033[?1049h'; echo full-screen; printf '\\033[?1049l'",
    );
    assert_eq!(rows(&out), ["main", "", ""]);
}

#[test]
fn output_scrolls_and_the_last_rows_are_dumped() {
    let out = headless(20, 3, "seq 1 1000");
    assert_eq!(rows(&out), ["999", "1000", ""]);
}

#[test]
fn a_megabyte_of_output_arrives_whole() {
    // 40,000 lines of 25 x's, then "end" on the last row.
    let out = headless(
        30,
        2,
        "head -c 1000000 /dev/zero | tr '\\0' x | fold -w 25; echo; printf end",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(rows(&out), ["x".repeat(25), "end".to_owned()]);
}

/// Replies read back by the program, one query each: `stty raw` so the answer is not
/// echoed, `dd` reads as many bytes as the answer has.
fn answer(query: &str, bytes: usize) -> String {
    let script = format!(
        "stty raw -echo; printf '{query}'; r=$(dd bs=1 count={bytes} 2>/dev/null); stty sane; \
         printf '%s' \"$r\" | od -An -c | tr -s ' '"
    );
    let out = headless(80, 4, &script);
    assert!(out.status.success(), "{}", stderr(&out));
    rows(&out).join(" ").trim().to_owned()
}

#[test]
fn device_attributes_are_answered() {
    // ESC [ ? 6 2 ; ... c: a VT220-class terminal.
    let got = answer("\\033[c", 4);
    assert!(got.starts_with("033 [ ?"), "{got}");
}

#[test]
fn the_cursor_position_is_answered_after_output() {
    let script = "stty raw -echo; printf 'abc\\033[6n'; r=$(dd bs=1 count=6 2>/dev/null); \
                  stty sane; echo; printf '%s' \"$r\" | od -An -c | tr -s ' '";
    let out = headless(80, 4, script);
    let text = rows(&out).join(" ");
    assert!(text.contains("033 [ 1 ; 4 R"), "{text}");
}

#[test]
fn the_background_colour_query_is_answered() {
    let got = answer("\\033]11;?\\033\\\\", 8);
    assert!(got.starts_with("033 ] 1 1 ; r g b"), "{got}");
}

#[test]
fn the_version_query_names_tern() {
    let got = answer("\\033[>q", 10);
    assert!(got.contains("t e r n"), "{got}");
}

#[test]
fn a_program_that_leaves_a_child_running_ends_the_session_with_its_own_status() {
    let out = headless(20, 3, "sleep 30 & echo started; exit 4");
    assert_eq!(out.status.code(), Some(4));
    assert_eq!(rows(&out)[0], "started");
}

#[test]
fn the_screen_is_written_to_a_file_when_asked() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("screen.txt");
    let out = headless_args(&[
        "--cols",
        "12",
        "--rows",
        "2",
        "--dump-screen",
        path.to_str().expect("utf-8"),
        "--",
        "echo",
        "to a file",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stdout.is_empty(), "nothing on stdout");
    let screen = std::fs::read_to_string(&path).expect("the dump");
    assert_eq!(screen.lines().next().map(str::trim_end), Some("to a file"));
}

#[test]
fn without_a_dump_nothing_is_printed() {
    let out = headless_args(&["--", "echo", "quiet"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        out.stdout.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn an_option_override_reaches_the_program() {
    let out = headless_args(&[
        "-o",
        "env.GREETING=hello from -o",
        "--dump-screen",
        "-",
        "--",
        "sh",
        "-c",
        "echo \"$GREETING\"",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(rows(&out)[0], "hello from -o");
}

#[test]
fn a_bad_option_override_is_named_and_the_program_still_runs() {
    let out = headless_args(&[
        "-o",
        "no.such.key=1",
        "--dump-screen",
        "-",
        "--",
        "echo",
        "ran",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("no.such.key"), "{}", stderr(&out));
    assert_eq!(rows(&out)[0], "ran");
}
