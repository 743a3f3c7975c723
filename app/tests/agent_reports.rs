//! Agents speak for themselves, through the real binary: a program's OSC 21337, Claude
//! Code's hooks and Codex's `notify` as `tern agents setup` writes them, run by
//! stand-ins with the JSON the agents' documentation gives, decide the pane's state in
//! `tern msg list` and in the window's marks (the same at every step), and the
//! conversation they report comes back after a restart (`claude --resume ID`, `codex
//! resume ID`). Each scenario runs in the window (Xvfb) and headless.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use common::user::{Face, Start, Tern};

const SESSION: &str = "3f0c2a9e-1b2c-4d5e-8f90-123456789abc";
const THREAD: &str = "b5f6c1c2-1111-2222-3333-444455556666";

/// The pane's `list` entry.
fn entry(t: &Tern, pane: u64) -> serde_json::Value {
    t.pane(pane)
        .unwrap_or_else(|| panic!("no pane {pane} in {:?}", t.panes()))
}

/// The window's mark for `pane` as its trace last said (`None` headless, or before the
/// first frame drew it).
fn window_mark(t: &Tern, pane: u64) -> Option<String> {
    let trace = std::fs::read_to_string(t.dir.join("trace.jsonl")).unwrap_or_default();
    trace
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .rfind(|v| v["event"] == "marks")
        .and_then(|v| v["marks"][pane.to_string()].as_str().map(str::to_owned))
}

/// Waits until `list` says `state` for `pane` (and `check` holds for its entry), and in
/// the window until its mark says the same; then `list` must still agree. One rule for
/// one pane: a face that drew another state fails here.
fn reaches(
    t: &mut Tern,
    face: Face,
    pane: u64,
    state: &str,
    check: impl Fn(&serde_json::Value) -> bool,
) {
    let info = t.wait_for(&format!("pane {pane} {state} in list"), |t| {
        let e = entry(t, pane);
        (e["activity"] == state && check(&e)).then_some(e)
    });
    if face == Face::Window {
        t.wait_for(&format!("pane {pane} {state} in the window's marks"), |t| {
            (window_mark(t, pane).as_deref() == Some(state)).then_some(())
        });
        assert_eq!(
            entry(t, pane)["activity"],
            state,
            "list and the window disagree after {info}"
        );
    }
}

/// Now, in ms since the Unix epoch (the clock of `list`'s `activity_since`).
fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A file the stand-in waits for before its next step.
fn step(dir: &Path, n: u32) {
    std::fs::write(dir.join(format!("step{n}")), "").expect("step file");
}

/// Shell lines that wait for step `n`.
fn wait_step(dir: &Path, n: u32) -> String {
    format!(
        "while [ ! -e '{}' ]; do sleep 0.05; done\n",
        dir.join(format!("step{n}")).display()
    )
}

/// A program printing OSC 21337 Waiting → Working → Idle is waiting (with its detail as
/// the reason), running, then done, in `list` and in the window alike. Catches a face
/// that reads the screen or the output's pace over the program's own word.
fn osc_21337_waiting_working_idle(face: Face) {
    let mut t = Start::new(face, "osc21337").run();
    let dir = t.home.join("agent");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let script = format!(
        "printf '\\033]21337;status=Waiting;indicator=#5f87ff;detail=Allow Bash: cargo test?\\033\\\\'\n\
         {}printf '\\033]21337;status=Working;detail=\\033\\\\'\n\
         {}printf '\\033]21337;status=Idle\\033\\\\'\n\
         exec sleep 600\n",
        wait_step(&dir, 1),
        wait_step(&dir, 2)
    );
    let pane = t.new_tab(&script);
    reaches(&mut t, face, pane, "waiting", |e| {
        e["wait_reason"] == "Allow Bash: cargo test?" && e["activity_source"] == "osc-21337"
    });
    step(&dir, 1);
    reaches(&mut t, face, pane, "running", |e| {
        e["activity_source"] == "osc-21337" && e["wait_reason"].is_null()
    });
    // Silent for longer than the quiet rule: still running, the agent said so. Read
    // once the entry itself shows the report older than the rule (`activity_since`:
    // when tern says the pane entered the activity), not after a sleep of the test's.
    let quiet_ms = tern_core::pipeline::activity::QUIET_MS;
    let past_quiet = t.wait_for("the report stands past the quiet rule", |t| {
        let asked_ms = unix_ms();
        let e = entry(t, pane);
        let since_ms = e["activity_since"].as_u64()?;
        (asked_ms.saturating_sub(since_ms) > quiet_ms).then_some(e)
    });
    assert_eq!(past_quiet["activity"], "running", "{past_quiet}");
    step(&dir, 2);
    reaches(&mut t, face, pane, "done", |e| {
        e["activity_source"] == "osc-21337"
    });
}

/// `tern agents setup AGENT` with `t`'s HOME: its output.
fn setup(home: &Path, args: &[&str]) -> Output {
    common::tern_cmd()
        .arg("agents")
        .arg("setup")
        .args(args)
        .env("HOME", home)
        .output()
        .expect("tern agents setup runs")
}

/// A folder of stand-in agents on PATH: `claude` and `codex` print their arguments and
/// wait (what a restored tab runs).
fn fake_agents(home: &Path) -> PathBuf {
    let bin = home.join("bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    for name in ["claude", "codex"] {
        let path = bin.join(name);
        std::fs::write(
            &path,
            format!("#!/bin/sh\necho \"fake {name}: $*\"\nexec sleep 600\n"),
        )
        .expect("fake agent");
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    bin
}

fn path_with(bin: &Path) -> String {
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// With a fresh HOME: `tern agents setup claude`; a stand-in runs the configured hook
/// commands with Claude Code's JSON for SessionStart, Notification (permission_prompt)
/// and Stop: the pane is idle, waiting with the message, then done, in the agent's
/// conversation; after a restart the tab runs `claude --resume <that session_id>`.
fn claude_hooks_decide_and_the_session_is_resumed(face: Face) {
    let bins = common::headless::scratch(&format!("claude-bins-{face:?}"));
    let bin = fake_agents(&bins);
    let mut t = Start::new(face, "claude-hooks")
        .env("PATH", &path_with(&bin))
        .run();
    let out = setup(&t.home, &["claude"]);
    assert!(out.status.success(), "{out:?}");
    let settings: serde_json::Value = serde_json::from_slice(
        &std::fs::read(t.home.join(".claude/settings.json")).expect("settings.json"),
    )
    .expect("settings.json is JSON");
    // The command each event runs, as Claude Code would run it (through a shell).
    let hook = |event: &str| {
        settings["hooks"][event][0]["hooks"][0]["command"]
            .as_str()
            .unwrap_or_else(|| panic!("no {event} hook in {settings}"))
            .to_owned()
    };
    let dir = t.home.join("standin");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let base =
        format!(r#""session_id":"{SESSION}","transcript_path":"/t/{SESSION}.jsonl","cwd":"/w""#);
    let run_hook = |event: &str, json: String| format!("printf '%s' '{json}' | {}\n", hook(event));
    let script = format!(
        "{}echo 'claude stand-in: ready'\n{}{}{}{}exec sleep 600\n",
        run_hook(
            "SessionStart",
            format!(r#"{{{base},"hook_event_name":"SessionStart","source":"startup"}}"#)
        ),
        wait_step(&dir, 1),
        run_hook(
            "Notification",
            format!(
                r#"{{{base},"hook_event_name":"Notification","message":"Claude needs your permission to use Bash","notification_type":"permission_prompt"}}"#
            )
        ),
        wait_step(&dir, 2),
        run_hook(
            "Stop",
            format!(r#"{{{base},"hook_event_name":"Stop","stop_hook_active":false}}"#)
        ),
    );
    let pane = t.new_tab(&script);
    reaches(&mut t, face, pane, "idle", |e| {
        e["activity_source"] == "hook" && e["agent_session"]["id"] == SESSION
    });
    step(&dir, 1);
    reaches(&mut t, face, pane, "waiting", |e| {
        e["wait_reason"] == "Claude needs your permission to use Bash"
    });
    step(&dir, 2);
    reaches(&mut t, face, pane, "done", |e| {
        e["activity_source"] == "hook"
    });
    // Saved with its conversation; the next start resumes exactly that one.
    let session = t.home.join(".local/state/tern/session.ron");
    t.wait_for("the session saved with the conversation", |_| {
        std::fs::read_to_string(&session)
            .ok()
            .filter(|s| s.contains(&format!("id: \"{SESSION}\"")))
    });
    let t = Start::new(face, "claude-hooks")
        .env("PATH", &path_with(&bin))
        .again(t)
        .run();
    let expected = format!("fake claude: --resume {SESSION}");
    resumed(t, &expected);
    let _ = std::fs::remove_dir_all(&bins);
}

/// Some pane of `t` shows `line` (a restored agent's first words).
fn resumed(mut t: Tern, line: &str) {
    let shows = |t: &Tern| {
        t.panes()
            .iter()
            .filter_map(|p| p["id"].as_u64())
            .find(|id| {
                t.msg_output(&["get-text", "--pane", &id.to_string()])
                    .stdout
                    .windows(line.len())
                    .any(|w| w == line.as_bytes())
            })
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while shows(&t).is_none() {
        if Instant::now() > deadline {
            let texts: Vec<String> = t
                .panes()
                .iter()
                .filter_map(|p| p["id"].as_u64())
                .map(|id| {
                    let out = t.msg_output(&["get-text", "--pane", &id.to_string()]);
                    format!("pane {id}: {}", String::from_utf8_lossy(&out.stdout))
                })
                .collect();
            panic!(
                "no pane shows {line:?}: {:?} {texts:?}; tern said {}",
                t.panes(),
                t.stderr()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    t.wait_for("tern still runs", |_| Some(()));
}

/// The same for Codex: `tern agents setup codex` sets `notify`; a stand-in runs it with
/// the `agent-turn-complete` JSON as its last argument, as Codex does: done, in thread
/// `thread-id`, resumed as `codex resume <thread-id>`.
fn codex_notify_decides_and_the_thread_is_resumed(face: Face) {
    let bins = common::headless::scratch(&format!("codex-bins-{face:?}"));
    let bin = fake_agents(&bins);
    let mut t = Start::new(face, "codex-notify")
        .env("PATH", &path_with(&bin))
        .run();
    let out = setup(&t.home, &["codex"]);
    assert!(out.status.success(), "{out:?}");
    let config = std::fs::read_to_string(t.home.join(".codex/config.toml")).expect("config.toml");
    // `notify = ["…/tern", "msg", "agent-event", "--agent", "codex"]`, read as Codex
    // reads an argument list.
    let notify_line = config
        .lines()
        .find(|l| l.starts_with("notify"))
        .unwrap_or_else(|| panic!("no notify in {config}"));
    let argv: Vec<String> = notify_line
        .split_once('=')
        .map(|(_, v)| v.trim().trim_start_matches('[').trim_end_matches(']'))
        .unwrap_or_default()
        .split(',')
        .map(|w| w.trim().trim_matches('"').to_owned())
        .collect();
    assert_eq!(
        argv[1..],
        ["msg", "agent-event", "--agent", "codex"],
        "{config}"
    );
    let payload = format!(
        r#"{{"type":"agent-turn-complete","thread-id":"{THREAD}","turn-id":"12345","cwd":"/w","client":"codex-tui","input-messages":["Rename foo"],"last-assistant-message":"Renamed."}}"#
    );
    let words: Vec<String> = argv.iter().map(|w| format!("'{w}'")).collect();
    let script = format!(
        "{} '{payload}' </dev/null >/dev/null 2>&1\nexec sleep 600\n",
        words.join(" ")
    );
    let pane = t.new_tab(&script);
    reaches(&mut t, face, pane, "done", |e| {
        e["activity_source"] == "hook" && e["agent_session"]["id"] == THREAD
    });
    let session = t.home.join(".local/state/tern/session.ron");
    t.wait_for("the session saved with the thread", |_| {
        std::fs::read_to_string(&session)
            .ok()
            .filter(|s| s.contains(&format!("id: \"{THREAD}\"")))
    });
    let t = Start::new(face, "codex-notify")
        .env("PATH", &path_with(&bin))
        .again(t)
        .run();
    resumed(t, &format!("fake codex: resume {THREAD}"));
    let _ = std::fs::remove_dir_all(&bins);
}

common::user::on_both_faces! {
    osc_21337_waiting_working_idle: osc_21337_waiting_working_idle_in_the_window, osc_21337_waiting_working_idle_headless;
    claude_hooks_decide_and_the_session_is_resumed: claude_hooks_decide_and_the_session_is_resumed_in_the_window, claude_hooks_decide_and_the_session_is_resumed_headless;
    codex_notify_decides_and_the_thread_is_resumed: codex_notify_decides_and_the_thread_is_resumed_in_the_window, codex_notify_decides_and_the_thread_is_resumed_headless;
}

const USER_SETTINGS: &str = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"~/bin/ding\"\n          }\n        ]\n      }\n    ]\n  }\n}\n";

/// Setup twice changes nothing the second time; `--dry-run` writes nothing;
/// `--remove` leaves the user's file as it was, byte for byte; a file that is not
/// JSON is left untouched with an error naming where.
#[test]
fn setup_is_idempotent_dry_runs_write_nothing_and_remove_restores_the_users_file() {
    let home = common::headless::scratch("setup");
    let file = home.join(".claude/settings.json");
    std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
    std::fs::write(&file, USER_SETTINGS).expect("settings");
    let dry = setup(&home, &["claude", "--dry-run"]);
    assert!(dry.status.success(), "{dry:?}");
    let said = String::from_utf8_lossy(&dry.stdout);
    assert!(said.contains("+") && said.contains("agent-event"), "{said}");
    assert_eq!(std::fs::read_to_string(&file).expect("read"), USER_SETTINGS);
    assert!(setup(&home, &["claude"]).status.success());
    let once = std::fs::read(&file).expect("read");
    assert_ne!(once, USER_SETTINGS.as_bytes());
    let again = setup(&home, &["claude"]);
    assert!(String::from_utf8_lossy(&again.stdout).contains("nothing changed"));
    assert_eq!(std::fs::read(&file).expect("read"), once);
    assert!(setup(&home, &["claude", "--remove"]).status.success());
    assert_eq!(std::fs::read_to_string(&file).expect("read"), USER_SETTINGS);
    // Not JSON: an error with the line, and the file as it was.
    std::fs::write(&file, "{\n  \"model\": \"opus\",,\n}\n").expect("write");
    let bad = setup(&home, &["claude"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("settings.json:2:"),
        "{bad:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&file).expect("read"),
        "{\n  \"model\": \"opus\",,\n}\n"
    );
    // Codex: a file tern made goes again on removal.
    assert!(setup(&home, &["codex"]).status.success());
    assert!(home.join(".codex/config.toml").exists());
    assert!(setup(&home, &["codex", "--remove"]).status.success());
    assert!(!home.join(".codex/config.toml").exists());
    let _ = std::fs::remove_dir_all(&home);
}

/// The hook on the agent's path: outside tern, with tern gone, or with input that is
/// not a hook's, it prints nothing and exits 0 at once (Claude Code reads exit status 2
/// as "block this", and a SessionStart hook's stdout as context for the model).
#[test]
fn the_hook_command_is_silent_and_succeeds_whatever_happens() {
    let dir = common::headless::scratch("hook-silent");
    let hook = |env: &[(&str, &str)], args: &[&str], stdin: &str| {
        use std::io::Write as _;
        let mut cmd = common::tern_cmd();
        cmd.args(["msg", "agent-event"])
            .args(args)
            .envs(env.iter().copied())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().expect("tern runs");
        let _ = child
            .stdin
            .take()
            .expect("stdin")
            .write_all(stdin.as_bytes());
        child.wait_with_output().expect("tern ends")
    };
    let gone = dir.join("gone.sock");
    let stop = r#"{"session_id":"x","hook_event_name":"Stop"}"#;
    let big = format!(
        r#"{{"hook_event_name":"UserPromptSubmit","prompt":"{}"}}"#,
        "p".repeat(3 << 20)
    );
    type Case<'a> = (Vec<(&'a str, &'a str)>, Vec<&'a str>, &'a str);
    let cases: Vec<Case> = vec![
        (vec![], vec!["--agent", "claude"], stop),
        (
            vec![
                ("TERN_SOCKET", gone.to_str().expect("utf-8")),
                ("TERN_PANE_ID", "1"),
            ],
            vec!["--agent", "claude"],
            stop,
        ),
        (
            vec![
                ("TERN_SOCKET", gone.to_str().expect("utf-8")),
                ("TERN_PANE_ID", "1"),
            ],
            vec![],
            "not json {",
        ),
        (vec![], vec!["--agent", "claude", "--no-such-flag"], stop),
        (vec![], vec![], &big),
    ];
    for (env, args, stdin) in cases {
        let out = hook(&env, &args, stdin);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        assert!(
            out.stdout.is_empty() && out.stderr.is_empty(),
            "{args:?}: {out:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
