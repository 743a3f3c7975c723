//! `tern --headless` end to end: the whole pipeline with no window.

mod common;

use std::io::Write;
use std::process::Stdio;

use common::tern_cmd as tern;

#[test]
fn cursor_position_queries_are_answered_and_the_exit_status_passes_through() {
    let out = tern()
        .args(["--headless", "--cols", "40", "--rows", "5", "--dump-screen", "-", "--"])
        .args(["sh", "-c", "stty raw -echo; printf '\\033[6n'; r=$(dd bs=1 count=6 2>/dev/null); stty sane; printf '%s' \"$r\" | od -An -c; exit 7"])
        .stdin(Stdio::null())
        .output()
        .expect("run tern");
    assert_eq!(out.status.code(), Some(7));
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(screen.contains("033   [   1   ;   1   R"), "{screen}");
    assert_eq!(screen.lines().count(), 5, "the dump is the 40x5 screen");
}

#[test]
fn stdin_is_forwarded_and_the_screen_can_be_written_to_a_file() {
    let path = std::env::temp_dir().join(format!("tern-headless-{}.txt", std::process::id()));
    let mut child = tern()
        .args(["--headless", "--dump-screen"])
        .arg(&path)
        .args(["--", "sh", "-c", "read line; echo \"got $line\""])
        .stdin(Stdio::piped())
        .spawn()
        .expect("run tern");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"hello there\n")
        .expect("write");
    let status = child.wait().expect("wait");
    assert!(status.success());
    let screen = std::fs::read_to_string(&path).expect("dump file");
    assert!(screen.contains("got hello there"), "{screen}");
    let _ = std::fs::remove_file(&path);
}

#[test]
fn the_session_outlives_stdin_until_the_child_exits() {
    let out = tern()
        .args([
            "--headless",
            "--dump-screen",
            "-",
            "--",
            "sh",
            "-c",
            "sleep 0.3; echo late output",
        ])
        .stdin(Stdio::null())
        .output()
        .expect("run tern");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("late output"));
}

#[test]
fn a_program_that_cannot_start_is_a_clear_error() {
    let out = tern()
        .args(["--headless", "--", "/nonexistent/prog"])
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot start /nonexistent/prog"));
    let out = tern()
        .args([
            "--headless",
            "--working-directory",
            "/nonexistent/dir",
            "--",
            "sh",
        ])
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/dir does not exist"));
}

#[test]
fn the_diagnostics_report_is_written_when_the_child_exits() {
    let path = std::env::temp_dir().join(format!("tern-diag-{}.ron", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let out = tern()
        .args(["--headless", "--diagnostics-report"])
        .arg(&path)
        .args(["--", "sh", "-c", "yes | head -n 1000; exit 4"])
        .stdin(Stdio::null())
        .output()
        .expect("run tern");
    assert_eq!(
        out.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&path).expect("the report file");
    let _ = std::fs::remove_file(&path);
    let report = tern_core::diagnostics::DiagnosticsReport::from_ron(&text).expect("valid RON");
    assert_eq!(report.environment.mode, "headless");
    assert_eq!(report.panes.len(), 1);
    let row = &report.panes[0];
    // 1,000 lines of "y\r\n", every byte parsed before the exit was reported.
    assert_eq!(
        (row.pty.bytes_read, row.pty.bytes_parsed, row.pty.in_flight),
        (3000, 3000, 0)
    );
    assert!(
        report
            .breadcrumbs
            .iter()
            .any(|c| c.what.starts_with("child exited")),
        "{text}"
    );
    if let Ok(home) = std::env::var("HOME")
        && home.len() > 1
    {
        assert!(!text.contains(&format!("{home}/")), "{text}");
    }
}

#[test]
fn sizes_over_the_limits_are_a_clear_error() {
    let out = tern()
        .args([
            "--headless",
            "--cols",
            "100000",
            "--rows",
            "100000",
            "--",
            "true",
        ])
        .stdin(Stdio::null())
        .output()
        .expect("run tern");
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("at most 2000 columns and 1000 rows"),
        "{said}"
    );
}

#[test]
fn tern_variables_are_not_inherited_by_children() {
    let session = std::env::temp_dir().join(format!("tern-inherit-{}.ron", std::process::id()));
    let out = tern()
        .args([
            "--headless",
            "--cols",
            "60",
            "--rows",
            "6",
            "--dump-screen",
            "-",
            "--",
        ])
        .args([
            "sh",
            "-c",
            "env | grep -c -e TERN_SESSION -e TERN_PROBE; echo listed",
        ])
        .env("TERN_SESSION", &session)
        .env("TERN_PROBE", "from-outside")
        .env("NOT_TERN_PROBE", "kept")
        .stdin(Stdio::null())
        .output()
        .expect("run tern");
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(screen.contains("listed"), "{screen}");
    assert_eq!(screen.lines().next().map(str::trim), Some("1"), "{screen}");
}

#[test]
fn deccolm_gives_the_pty_132_columns_in_headless_mode() {
    let out = tern()
        .args(["--headless", "--cols", "80", "--rows", "24", "--dump-screen", "-", "--"])
        .args(["sh", "-c", "stty raw -echo; printf '\\033[?40h\\033[?3h\\033[6n'; dd bs=1 count=6 >/dev/null 2>&1; stty sane; echo; stty size"])
        .stdin(Stdio::null())
        .output()
        .expect("run tern");
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(screen.contains("24 132"), "{screen}");
}
