//! `tern --headless --config F` applies F: scrollback, flow-control window, environment,
//! shell; and a config that cannot be read is a clear error, not a silent default.

mod common;

use std::path::PathBuf;
use std::process::Stdio;

use tern_core::diagnostics::DiagnosticsReport;

use common::tern_cmd as tern;

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("tern-hc-{}-{name}", std::process::id()))
}

#[test]
fn scrollback_window_and_environment_come_from_the_config_file() {
    let config = temp("config.ron");
    let report = temp("report.ron");
    std::fs::write(
        &config,
        r#"(scrollback_lines: 50, flow_control_window_bytes: 65536, env: {"TERN_HC_PROBE": "from-config"})"#,
    )
    .expect("write config");
    let out = tern()
        .args(["--headless", "--rows", "10", "--dump-screen", "-", "--config"])
        .arg(&config)
        .arg("--diagnostics-report")
        .arg(&report)
        .args(["--", "sh", "-c"])
        .arg("i=0; while [ $i -lt 300 ]; do echo line $i; i=$((i+1)); done; echo \"env=$TERN_HC_PROBE\"")
        .stdin(Stdio::null())
        .output()
        .expect("run tern");
    let text = std::fs::read_to_string(&report).unwrap_or_default();
    let _ = (std::fs::remove_file(&config), std::fs::remove_file(&report));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("env=from-config"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let report = DiagnosticsReport::from_ron(&text).expect("valid report");
    let pane = &report.panes[0];
    // 301 lines on a 10-row screen: 292 scrolled off, the config keeps 50 of them.
    assert_eq!(pane.pty.scrollback_lines, 50);
    assert_eq!(pane.pty.window_bytes, 65536);
}

#[test]
fn without_a_command_the_configured_shell_runs() {
    let config = temp("shell.ron");
    std::fs::write(
        &config,
        r#"(shell: (program: "sh", args: ["-c", "echo shell-from-config; exit 3"]))"#,
    )
    .expect("write config");
    let out = tern()
        .args(["--headless", "--dump-screen", "-", "--config"])
        .arg(&config)
        .stdin(Stdio::null())
        .output()
        .expect("run tern");
    let _ = std::fs::remove_file(&config);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("shell-from-config"));
}

#[test]
fn a_config_that_cannot_be_read_is_a_clear_error() {
    let broken = temp("broken.ron");
    std::fs::write(&broken, "(scrollback_lines: \"many\")").expect("write config");
    for path in [broken.clone(), temp("missing.ron")] {
        let out = tern()
            .args(["--headless", "--config"])
            .arg(&path)
            .args(["--", "sh", "-c", "echo should not run"])
            .stdin(Stdio::null())
            .output()
            .expect("run tern");
        assert_eq!(out.status.code(), Some(2), "{}", path.display());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&*path.to_string_lossy()), "{err}");
        assert!(out.stdout.is_empty());
    }
    let _ = std::fs::remove_file(&broken);
}
