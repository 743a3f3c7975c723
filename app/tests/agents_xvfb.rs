//! Agents' needs in the real window (Xvfb, the real binary, xdotool): the kitty
//! keyboard protocol as a program reads it, and notifications reaching a private
//! session bus while the window is not focused. Needs xvfb, xdotool and dbus
//! (`dbus-run-session`, `dbus-monitor`); `scripts/test.sh` installs them.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::x11::*;

/// Waits until `path` holds what `done` wants.
fn wait_file(path: &Path, what: &str, done: impl Fn(&[u8]) -> bool) -> Vec<u8> {
    tern_testkit::eventually(what, Duration::from_secs(60), || {
        let bytes = std::fs::read(path).unwrap_or_default();
        if done(&bytes) {
            Ok(bytes)
        } else {
            Err(format!(
                "{} holds {:?}",
                path.display(),
                String::from_utf8_lossy(&bytes)
            ))
        }
    })
}

#[test]
fn a_program_that_pushes_kitty_flags_reads_the_spec_encodings() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("kitty-keys");
    let out = dir.join("keys.bin");
    // Raw mode, push "disambiguate", query, then keep every byte that arrives.
    let script = format!(
        "stty raw -echo; printf '\\033[>1u\\033[?u'; exec cat > '{}'",
        out.display()
    );
    let (_tern, trace) = start_tern(
        &display,
        &dir,
        &runtime,
        &["--cols", "40", "--rows", "10", "-e", "sh", "-c", &script],
    );
    wait_file(&out, "no answer to CSI ? u", |b| b == b"\x1b[?1u");
    // The program runs (and is answered) before the window exists: the window must
    // show its first frame, which carries the flags, before our keys come.
    wait_trace(&trace, &dir, "the first frame", |t| {
        t.contains("first_frame")
    });
    let window = tern_window(&display);
    for key in ["shift+Return", "ctrl+Return", "Escape", "Return"] {
        xdo(&display, &["key", "--window", &window, key]);
        std::thread::sleep(Duration::from_millis(150));
    }
    let expected: &[u8] = b"\x1b[?1u\x1b[13;2u\x1b[13;5u\x1b[27u\r";
    let got = wait_file(&out, "the keys did not arrive as the spec says", |b| {
        b.len() >= expected.len()
    });
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(expected)
    );
}

/// What the session bus saw while tern ran `program` with `config` (dbus-monitor's
/// text), once it holds `calls` Notify calls.
fn bus_calls_for(name: &str, config: &str, program: &str, calls: usize) -> String {
    let display = start_xvfb();
    let (dir, runtime) = scratch(name);
    let config_path = dir.join("config.ron");
    std::fs::write(&config_path, config).expect("config");
    let monitor = dir.join("monitor.txt");
    let pid_file = dir.join("tern.pid");
    // tern runs inside a private session bus with dbus-monitor watching it (stopped
    // once tern is, so that neither outlives the test).
    let inner = format!(
        "dbus-monitor --session \"interface='org.freedesktop.Notifications'\" > '{mon}' 2>&1 & m=$!; \
         sleep 1; '{tern}' --cols 40 --rows 8 -e sh -c \"{program}\" & echo $! > '{pid}'; wait $!; kill $m",
        mon = monitor.display(),
        tern = common::TERN_BIN,
        pid = pid_file.display(),
    );
    let session = Killed(
        common::isolated("dbus-run-session", &dir)
            .args(["--", "sh", "-c", &inner])
            .env("DISPLAY", &display.name)
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("TERN_CONFIG", &config_path)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("session.stderr")).expect("stderr"))
            .spawn()
            .expect("dbus-run-session (apt-get install dbus)"),
    );
    // Keep the pointer (and so X's focus) away from the window: it is not focused.
    xdo(&display, &["mousemove", "1020", "760"]);
    let text = wait_file(&monitor, "no Notify calls on the bus", |b| {
        String::from_utf8_lossy(b).matches("member=Notify").count() >= calls
    });
    let text = String::from_utf8_lossy(&text).into_owned();
    if let Ok(pid) = std::fs::read_to_string(&pid_file) {
        let _ = Command::new("kill").arg(pid.trim()).status();
    }
    // The script then stops dbus-monitor and ends, and dbus-run-session stops its bus;
    // killing dbus-run-session instead would leave the bus daemon running.
    let mut session = session;
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline && !matches!(session.0.try_wait(), Ok(Some(_))) {
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(session);
    text
}

#[test]
fn notifications_reach_the_session_bus_while_the_window_is_unfocused() {
    let program = "sleep 4; printf '\\033]9;Claude needs your permission\\007'; sleep 2; \
                   printf '\\033]777;notify;Build;finished\\007'; exec sleep 120";
    let text = bus_calls_for("notify-bus", "(notify: (min_interval_ms: 0))\n", program, 2);
    assert!(text.contains("Claude needs your permission"), "{text}");
    assert!(text.contains("Build: finished"), "{text}");
    assert!(
        text.contains("tern · "),
        "titled with worktree and tab: {text}"
    );
}

/// Two notifications from one pane a second apart, inside the default interval (5 s):
/// both reach the bus, the second standing for both ("2 messages"), replacing the first
/// where a notification server answered with its id. Catches the rate limit that
/// dropped the second (often the one that matters), seen failing so.
#[test]
fn a_second_notification_inside_the_interval_is_not_lost() {
    let program = "sleep 4; printf '\\033]9;Claude needs your permission\\007'; sleep 1; \
                   printf '\\033]9;Claude is done\\007'; exec sleep 120";
    let text = bus_calls_for("notify-coalesce", "()\n", program, 2);
    assert!(text.contains("Claude needs your permission"), "{text}");
    assert!(text.contains("Claude is done (2 messages)"), "{text}");
}
