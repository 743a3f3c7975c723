//! Hardening (issue 48), through the binary as a user starts it: what a program in a
//! pane can make tern do at the next start, with files it points tern at, and with
//! floods. Each test names the break it catches; each was seen failing under it.

mod common;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::headless::{Served, pane_id, scratch};
use common::tern_in;
use tern::window::app::TestView as _;

/// A stand-in `claude` in `bin` that records its arguments and folder in `record`,
/// then runs `then` (shell) and sleeps.
fn stand_in_agent(bin: &Path, record: &Path, then: &str) {
    std::fs::create_dir_all(bin).expect("bin");
    let claude = bin.join("claude");
    std::fs::write(
        &claude,
        format!(
            "#!/bin/sh\necho \"args=[$*] cwd=$(pwd)\" >> '{}'\n{then}\nexec sleep 600\n",
            record.display()
        ),
    )
    .expect("stand-in");
    std::fs::set_permissions(&claude, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
}

/// `tern --headless` in `dir` with `bin` first on PATH.
fn serve_with_path(dir: &Path, bin: &Path) -> Served {
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let child = tern_in(dir)
        .env("PATH", path)
        .arg("--headless")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tern --headless");
    Served::wrap(dir, child)
}

/// The folder `tern msg list` shows for `pane`.
fn listed_cwd(served: &Served, pane: u64) -> String {
    served
        .list()
        .iter()
        .find(|p| p["id"].as_u64() == Some(pane))
        .map(|p| p["cwd"].to_string())
        .unwrap_or_default()
}

fn folder(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join("home").join(name);
    std::fs::create_dir_all(&path).expect("folder");
    path
}

/// An agent that names another folder with OSC 7 (an empty host, as the far side of
/// ssh could send it), and then really moves there, is resumed at the next start where
/// it was started; `list` never shows the folder it only named.
///
/// Catches: OSC 7 taken as the pane's folder whatever it names (`list` showed
/// `elsewhere`), and a session that saved the folder the program was in or named
/// (the agent ran again in `elsewhere`, among that folder's project files); each seen
/// failing on its own.
#[test]
fn an_agent_is_resumed_where_it_was_started_not_where_it_pointed() {
    let dir = scratch("harden-resume");
    let bin = dir.join("bin");
    let record = dir.join("claude-runs.txt");
    let work = folder(&dir, "work");
    let elsewhere = folder(&dir, "elsewhere");
    let osc7 = format!(
        "printf '\\033]7;file://%s\\033\\\\' '{}'",
        elsewhere.display()
    );
    stand_in_agent(
        &bin,
        &record,
        &format!(
            "{osc7}\necho named\nread line\ncd '{}'\n{osc7}\necho moved",
            elsewhere.display()
        ),
    );
    let served = serve_with_path(&dir, &bin);
    let work_s = work.display().to_string();
    let pane = pane_id(&served.ok(&["new-tab", "--cwd", &work_s, "--", "claude"]));
    served.wait_text(pane, &[], |t| t.contains("named"));
    let cwd = listed_cwd(&served, pane);
    assert!(!cwd.contains("elsewhere"), "list shows {cwd}");
    // Now it moves there for real, and says so.
    served.ok(&["send-text", "--pane", &pane.to_string(), "go\r"]);
    served.wait_text(pane, &[], |t| t.contains("moved"));
    tern_testkit::eventually(
        "the pane's real folder is listed",
        common::headless::PATIENCE,
        || listed_cwd(&served, pane).contains("elsewhere"),
    );
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err}");

    let again = serve_with_path(&dir, &bin);
    let runs = tern_testkit::eventually(
        "the agent is started again",
        common::headless::PATIENCE,
        || {
            let text = std::fs::read_to_string(&record).unwrap_or_default();
            if text.lines().count() >= 2 {
                Ok(text)
            } else {
                Err(text)
            }
        },
    );
    let lines: Vec<&str> = runs.lines().collect();
    assert_eq!(lines[0], format!("args=[] cwd={work_s}"));
    assert_eq!(lines[1], format!("args=[--continue] cwd={work_s}"));
    let (code, err) = again.stop();
    assert_eq!(code, Some(0), "{err}");
}

/// `tern config check` on a config whose `theme.dark` is a FIFO, a link to /dev/zero
/// or a 2 MB file: each ends at once (it is killed after 20 s otherwise) with an error
/// naming the theme file.
///
/// Catches: the check hanging in `open` on the FIFO and reading /dev/zero until memory
/// ran out (seen so before `settings_file`).
#[test]
fn config_check_names_a_theme_that_is_a_fifo_a_device_or_huge_and_ends() {
    let dir = scratch("harden-theme");
    let config_dir = dir.join("home/.config/tern");
    let themes = config_dir.join("themes");
    std::fs::create_dir_all(&themes).expect("themes");
    let made = std::process::Command::new("mkfifo")
        .arg(themes.join("Pipe"))
        .status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    std::os::unix::fs::symlink("/dev/zero", themes.join("Zero")).expect("symlink");
    std::fs::write(themes.join("Huge"), "# padding\n".repeat(200_000)).expect("huge");
    for (name, says) in [
        ("Pipe", "a FIFO"),
        ("Zero", "a device"),
        ("Huge", "larger than 1024 KiB"),
    ] {
        std::fs::write(
            config_dir.join("config.ron"),
            format!("(theme: (dark: {name:?}))"),
        )
        .expect("config");
        let mut child = tern_in(&dir)
            .args(["config", "check"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("tern config check");
        let started = std::time::Instant::now();
        while child.try_wait().ok().flatten().is_none() {
            if started.elapsed() > common::headless::PATIENCE {
                let _ = child.kill();
                panic!("tern config check hangs on a theme that is {says}");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let out = child.wait_with_output().expect("output");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{name}: the check fails");
        assert!(
            err.contains(&themes.join(name).display().to_string()) && err.contains(says),
            "{name}: {err}"
        );
    }
}

/// The window's tooltip for an OSC 8 link shown as "Sign in to Google" whose target
/// hides its host behind 1,900 dashes of user info: it leads with the real host and
/// marks the user info.
///
/// Catches: the tooltip that began with the target as written (accounts.google.com on
/// its first line, the real host on its 15th), seen failing so.
#[test]
fn a_link_tooltip_leads_with_the_real_host() {
    let config = std::env::temp_dir().join("tern-hardening-no-config.ron");
    let target = format!(
        "https://accounts.google.com{}@evil.example/steal",
        "-".repeat(1900)
    );
    let script = format!(
        "printf '\\033]8;;{target}\\033\\\\Sign in to Google\\033]8;;\\033\\\\\\n'; exec cat"
    );
    let args = [
        "--config",
        config.to_str().expect("utf-8"),
        "--hold",
        "--cols",
        "80",
        "--rows",
        "24",
        "-e",
        "sh",
        "-c",
        &script,
    ];
    let mut h = common::app_harness_from_args(&args, egui::vec2(800.0, 480.0));
    let shown = |h: &egui_kittest::Harness<'_, common::Slot>| {
        common::screen_rows(h)
            .first()
            .is_some_and(|r| r.starts_with("Sign in to Google"))
    };
    assert!(
        common::step_until_or(&mut h, common::headless::PATIENCE, shown),
        "the link was never shown"
    );
    let app = h.state_mut().as_mut().expect("app");
    let tip = app
        .link_tooltip_at_cell(0, 3)
        .expect("a link under the pointer");
    let mut lines = tip.lines();
    assert_eq!(lines.next(), Some("→ evil.example"), "{tip}");
    assert!(
        lines.next().is_some_and(|l| l.starts_with('⚠')),
        "the user info is marked: {tip}"
    );
}

/// A pane printing 2,000 OSC 9 notifications as fast as it can, on a session bus of the
/// test's own (dbus-monitor counts the `Notify` calls): a pane is updated once per
/// `min_interval_ms` (1 s here), and the last update carries the last text and the
/// count of all 2,001.
///
/// Catches: one call per round trip to the bus (about 1,270 a second before) and two
/// notifications in one read counted as one; seen failing so.
#[test]
fn a_notification_flood_costs_one_call_per_interval_and_keeps_the_count() {
    use std::process::Command;
    use std::time::Instant;
    let dir = scratch("harden-notify");
    let config = dir.join("home/.config/tern/config.ron");
    std::fs::create_dir_all(config.parent().expect("parent")).expect("config folder");
    std::fs::write(&config, "(notify: (min_interval_ms: 1000))").expect("config");
    let monitor = dir.join("monitor.txt");
    let pid_file = dir.join("tern.pid");
    let served = common::headless::served_on_a_private_bus(&dir);
    let started = Instant::now();
    served.ok(&[
        "new-tab",
        "--",
        "sh",
        "-c",
        "i=0; while [ $i -lt 2000 ]; do printf '\\033]9;n%d\\007' $i; i=$((i+1)); done; \
         printf '\\033]9;last\\007'; exec sleep 600",
    ]);
    let text = tern_testkit::eventually(
        "the last text with the count",
        common::headless::PATIENCE,
        || {
            let text = std::fs::read_to_string(&monitor).unwrap_or_default();
            if text.contains("last (2001 messages)") {
                Ok(text)
            } else {
                Err(text)
            }
        },
    );
    let calls = text.matches("member=Notify").count();
    let seconds = started.elapsed().as_secs() + 1;
    assert!(
        calls as u64 <= seconds + 1,
        "{calls} Notify calls in about {seconds} s with a 1 s interval"
    );
    eprintln!("{calls} Notify calls in about {seconds} s for 2,001 notifications");
    let pid = std::fs::read_to_string(&pid_file).expect("tern's pid");
    let _ = Command::new("kill").args(["-TERM", pid.trim()]).status();
    let (code, err) = served.wait_out();
    assert_eq!(code, Some(0), "{err}");
}

/// What a program in pane A can do to pane B over `tern msg`, and to its own pane:
/// `(stderr and status of get-text B, of send-text B), stdout of get-text A`.
fn pane_a_reaches_for_pane_b(config: Option<&str>) -> (String, String, String) {
    let dir = scratch(if config.is_some() {
        "harden-rc-all"
    } else {
        "harden-rc-own"
    });
    if let Some(text) = config {
        let path = dir.join("home/.config/tern/config.ron");
        std::fs::create_dir_all(path.parent().expect("parent")).expect("config folder");
        std::fs::write(&path, text).expect("config");
    }
    let served = Served::start(&dir, &[]);
    let b = pane_id(&served.ok(&["new-tab", "--", "sh", "-c", "echo secret-in-b; exec cat"]));
    served.wait_text(b, &[], |t| t.contains("secret-in-b"));
    let out = dir.join("out");
    std::fs::create_dir_all(&out).expect("out");
    let script = format!(
        "t='{tern}'; o='{o}'; echo a-start; \
         \"$t\" msg get-text --pane {b} > \"$o/other\" 2>&1; echo \"rc=$?\" >> \"$o/other\"; \
         \"$t\" msg send-text --pane {b} 'typed-by-a' > \"$o/typed\" 2>&1; echo \"rc=$?\" >> \"$o/typed\"; \
         \"$t\" msg get-text --pane \"$TERN_PANE_ID\" > \"$o/own\" 2>&1; \
         echo a-done; exec sleep 600",
        // Run by a program in a pane: the pane's environment, not the kit's.
        tern = common::TERN_BIN,
        o = out.display(),
    );
    let a = pane_id(&served.ok(&["new-tab", "--", "sh", "-c", &script]));
    served.wait_text(a, &[], |t| t.contains("a-done"));
    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap_or_default();
    let result = (read("other"), read("typed"), read("own"));
    let (code, err) = served.stop();
    assert_eq!(code, Some(0), "{err}");
    result
}

/// A program in a pane may read its own pane but not another's, nor type into it,
/// unless the config consents (`pane_remote_control: AllPanes`); the error names the
/// setting. `tern msg` from outside any pane (every other test here) may do all.
///
/// Catches: any pane's program reading another pane's history and typing raw input
/// into it, on by default (seen failing so before `remote_policy`).
#[test]
fn a_panes_program_reaches_other_panes_only_with_consent() {
    let (other, typed, own) = pane_a_reaches_for_pane_b(None);
    assert!(
        other.contains("may not read pane") && other.contains("pane_remote_control"),
        "{other}"
    );
    assert!(
        !other.contains("secret-in-b") && !other.contains("rc=0"),
        "{other}"
    );
    assert!(
        typed.contains("may not type into pane") && !typed.contains("rc=0"),
        "{typed}"
    );
    assert!(own.contains("a-start"), "its own pane: {own}");
    let (other, typed, _) = pane_a_reaches_for_pane_b(Some("(pane_remote_control: AllPanes)"));
    assert!(
        other.contains("secret-in-b") && other.contains("rc=0"),
        "{other}"
    );
    assert!(typed.contains("rc=0"), "{typed}");
}

/// The window starts, and shows its first frame, with `theme.dark` naming a theme that
/// is a FIFO (on the defaults, the error naming the file). Needs xvfb.
///
/// Catches: the main thread blocked in `open` on the FIFO, the window never shown
/// (seen so before `settings_file`).
#[test]
fn the_window_starts_with_a_theme_that_is_a_fifo() {
    use common::x11::{start_tern_with, start_xvfb, wait_trace};
    let display = start_xvfb();
    let (dir, runtime) = common::x11::scratch("harden-fifo-window");
    std::fs::create_dir_all(dir.join("themes")).expect("themes");
    let made = std::process::Command::new("mkfifo")
        .arg(dir.join("themes/Pipe"))
        .status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let config = dir.join("config.ron");
    std::fs::write(&config, r#"(theme: (name: "Pipe"))"#).expect("config");
    let config = config.display().to_string();
    let (_tern, trace) = start_tern_with(
        &display,
        &dir,
        &runtime,
        &["-e", "sh"],
        &[("TERN_CONFIG", config.as_str())],
    );
    wait_trace(&trace, &dir, "the first frame", |t| {
        t.contains("first_frame")
    });
    let said = std::fs::read_to_string(dir.join("tern.stderr")).unwrap_or_default();
    assert!(
        said.contains("themes/Pipe") && said.contains("a FIFO"),
        "{said}"
    );
}

/// The diagnostics panel's first line says how many notifications went to the desktop
/// notifier and how many calls it made to the notification server.
///
/// Catches: the calls made nowhere to be seen (issue 48 asks for them in the panel).
#[test]
fn the_diagnostics_panel_shows_the_notification_calls() {
    use egui_kittest::kittest::Queryable as _;
    let launch = tern::window::app::Launch::new(
        tern_core::pipeline::SpawnSpec::command("cat", &[])
            .size(tern_core::model::TermSize::new(80, 24)),
    );
    let mut h = common::app_harness(launch, egui::vec2(1200.0, 800.0));
    h.step();
    h.key_press_modifiers(egui::Modifiers::CTRL | egui::Modifiers::SHIFT, egui::Key::G);
    h.step();
    h.step();
    assert!(
        h.query_by_label_contains("desktop notifications 0 (0 notification server calls)")
            .is_some(),
        "no line for the notification calls"
    );
}
