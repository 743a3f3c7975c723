//! `tern replay` end to end: the binary reads a file and prints the screen.

mod common;

use common::tern_cmd as tern;

fn temp_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tern-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write input");
    path
}

#[test]
fn prints_rows_cursor_and_attributes() {
    let path = temp_file("in.bin", b"hello   \r\n\x1b[1;31mred\x1b[m\x1b[3;2H");
    let out = tern()
        .args(["replay", "--cols", "10", "--rows", "3", "--attrs"])
        .arg(&path)
        .output()
        .expect("run tern");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "hello\nred\n\ncursor: 3 2\nrow 2: 1-3 fg=1 bold\n"
    );
}

#[test]
fn defaults_to_80_by_24() {
    let path = temp_file("wide.bin", "x".repeat(100).as_bytes());
    let out = tern().arg("replay").arg(&path).output().expect("run tern");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 25, "24 rows and the cursor line");
    assert_eq!(lines[0].len(), 80);
    assert_eq!(lines[1].len(), 20);
    assert_eq!(lines[24], "cursor: 2 21");
}

#[test]
fn a_missing_file_is_a_clear_error() {
    let out = tern()
        .args(["replay", "/nonexistent/tern-input"])
        .output()
        .expect("run tern");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot read /nonexistent/tern-input"), "{err}");
}
