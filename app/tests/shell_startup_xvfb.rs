//! A user's shell in the real window, started the way a user starts tern: the binary,
//! a plain start, a fresh HOME holding their kind of startup files, `SHELL` naming
//! bash, zsh or fish. The shell must read those files (a variable each sets, and a
//! `PATH` entry, the way Claude Code's installer adds `~/.local/bin`), leave POSIX mode
//! and tern's variables behind, and send its OSC 133 marks: `tern msg list` shows the
//! last command and its exit status. Needs xvfb, bash, zsh and fish
//! (`scripts/test.sh` installs them).
//!
//! Catches: the binary not writing the integration scripts before the first shell
//! (bash then read no rc file and stayed in POSIX mode, zsh read none of ZDOTDIR's
//! files, and no marks came), seen failing so.

mod common;

use std::path::{Path, PathBuf};

use common::x11::*;

/// The shell's path, or a failure saying how to install it (never a quiet pass).
fn shell_path(name: &str) -> PathBuf {
    for dir in ["/usr/bin", "/bin", "/usr/local/bin"] {
        let p = Path::new(dir).join(name);
        if p.exists() {
            return p;
        }
    }
    panic!("{name} is not installed: apt-get install {name}");
}

/// A fresh HOME with the user's startup files for `shell`: a login file that sets
/// `FROM_LOGIN` (not read: the shell is not a login shell by default), an interactive
/// file that sets `FROM_RC` and puts `~/.local/bin` on
/// `PATH`, where `probe` lives.
fn home_for(shell: &str, dir: &Path) -> PathBuf {
    let home = dir.join("home");
    let bin = home.join(".local/bin");
    std::fs::create_dir_all(&bin).expect("home");
    let probe = bin.join("probe");
    std::fs::write(&probe, "#!/bin/sh\necho probe-ran\n").expect("probe");
    std::fs::set_permissions(&probe, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let files: &[(&str, &str)] = match shell {
        // Debian's skeleton: ~/.profile sources ~/.bashrc.
        "bash" => &[
            (
                ".profile",
                "export FROM_LOGIN=yes\n[ -f \"$HOME/.bashrc\" ] && . \"$HOME/.bashrc\"\n",
            ),
            (
                ".bashrc",
                "export FROM_RC=yes\nPATH=\"$HOME/.local/bin:$PATH\"\n",
            ),
        ],
        "zsh" => &[
            (".zprofile", "export FROM_LOGIN=yes\n"),
            (
                ".zshrc",
                "export FROM_RC=yes\npath=(\"$HOME/.local/bin\" $path)\n",
            ),
        ],
        "fish" => &[(
            ".config/fish/config.fish",
            "status is-login; and set -gx FROM_LOGIN yes\nset -gx FROM_RC yes\nset -gx PATH $HOME/.local/bin $PATH\n",
        )],
        _ => unreachable!("a shell of this test"),
    };
    for (name, text) in files {
        let path = home.join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("rc file");
    }
    home
}

/// A plain start of the binary with the user's HOME and login shell, as a desktop
/// starts it; returns tern and its session socket, once it listens.
fn start_as_a_user(
    display: &Display,
    dir: &Path,
    runtime: &Path,
    home: &Path,
    shell: &Path,
) -> (Killed, PathBuf) {
    let (tern, _trace) = start_tern_with(
        display,
        dir,
        runtime,
        &[],
        &[
            ("HOME", home.to_str().expect("utf-8")),
            ("SHELL", shell.to_str().expect("utf-8")),
            (
                "XDG_CONFIG_HOME",
                home.join(".config").to_str().expect("utf-8"),
            ),
            ("ENV", ""),
        ],
    );
    let socket = runtime.join("tern").join("session.sock");
    wait_for("no session socket", dir, || socket.exists().then_some(()));
    (tern, socket)
}

fn the_users_shell_reads_its_files_and_sends_marks(shell: &str) {
    let program = shell_path(shell);
    let display = start_xvfb();
    let (dir, runtime) = scratch(&format!("startup-{shell}"));
    let home = home_for(shell, &dir);
    let (_tern, socket) = start_as_a_user(&display, &dir, &runtime, &home, &program);
    let list: serde_json::Value = serde_json::from_str(&msg(&socket, &["list"])).expect("JSON");
    let pane = list[0]["id"].as_u64().expect("one pane");
    // Once the first prompt has come (the marks are in), run what the user would.
    let out = home.join("out.txt");
    let line = format!(
        "echo \"login=$FROM_LOGIN rc=$FROM_RC env=$ENV dir=$TERN_SHELL_INTEGRATION_DIR\" > {out}; \
         probe >> {out}; false\n",
        out = out.display()
    );
    msg(&socket, &["send-text", "--pane", &pane.to_string(), &line]);
    let text = wait_for("the command line ran", &dir, || {
        std::fs::read_to_string(&out)
            .ok()
            .filter(|t| t.contains("probe-ran"))
    });
    assert!(
        text.starts_with("login= rc=yes env= dir=\n"),
        "{shell} (not a login shell: `shell.login` is off by default) read the user's \
         rc file and kept none of tern's variables: {text:?}"
    );
    let last = wait_for("the marks say `false` failed", &dir, || {
        let list: serde_json::Value = serde_json::from_str(&msg(&socket, &["list"])).expect("JSON");
        let last = list[0]["last_command"].clone();
        (last["exit_code"] == 1).then_some(last)
    });
    assert!(
        last["command"]
            .as_str()
            .is_some_and(|c| c.ends_with("false")),
        "the command line as typed: {last}"
    );
    assert!(last["finished_at"].as_u64() >= last["started_at"].as_u64());
}

#[test]
fn bash_in_the_window_reads_the_users_files_and_sends_marks() {
    the_users_shell_reads_its_files_and_sends_marks("bash");
}

#[test]
fn zsh_in_the_window_reads_the_users_files_and_sends_marks() {
    the_users_shell_reads_its_files_and_sends_marks("zsh");
}

#[test]
fn fish_in_the_window_reads_the_users_files_and_sends_marks() {
    the_users_shell_reads_its_files_and_sends_marks("fish");
}

/// `tern msg wait --pane ID --for STATE --timeout S` through the binary: its exit
/// status.
fn wait_state(socket: &Path, pane: u64, state: &str, timeout_s: u32) -> Option<i32> {
    common::msg_cmd(socket)
        .args([
            "wait",
            "--pane",
            &pane.to_string(),
            "--for",
            state,
            "--timeout",
            &timeout_s.to_string(),
        ])
        .status()
        .expect("tern msg wait runs")
        .code()
}

fn activity(socket: &Path) -> serde_json::Value {
    let list: serde_json::Value = serde_json::from_str(&msg(socket, &["list"])).expect("JSON");
    list[0].clone()
}

/// Activity from the shell's marks, through the binary and `tern msg`: a question
/// echoed at a prompt is not "waiting"; an agent that asks is "waiting" (with the
/// question as its reason), "running" after the answer, and not "waiting" once back at
/// the prompt. Catches the old rule (any question in the 12 rows above the cursor,
/// cleared only by typing), seen failing so.
#[test]
fn waiting_follows_the_marks_through_tern_msg() {
    let program = shell_path("bash");
    let display = start_xvfb();
    let (dir, runtime) = scratch("activity-marks");
    let home = home_for("bash", &dir);
    let agent = home.join("agent.sh");
    std::fs::write(
        &agent,
        "printf 'Do you want to proceed? [y/N] '; read a; echo \"got $a\"; sleep 2; echo finished\n",
    )
    .expect("agent");
    let (_tern, socket) = start_as_a_user(&display, &dir, &runtime, &home, &program);
    let pane = activity(&socket)["id"].as_u64().expect("a pane");
    let id = pane.to_string();
    msg(
        &socket,
        &[
            "send-text",
            "--pane",
            &id,
            "echo 'would you like to enable telemetry?'\n",
        ],
    );
    assert_eq!(
        wait_state(&socket, pane, "done", 30),
        Some(0),
        "echo finished"
    );
    // Quiet for longer than the question rule waits: still not waiting.
    assert_eq!(
        wait_state(&socket, pane, "waiting", 3),
        Some(2),
        "an echoed question is not waiting: {}",
        activity(&socket)
    );
    msg(&socket, &["send-text", "--pane", &id, "sh ~/agent.sh\n"]);
    assert_eq!(
        wait_state(&socket, pane, "waiting", 30),
        Some(0),
        "the agent asks: {}",
        activity(&socket)
    );
    let info = activity(&socket);
    assert_eq!(
        info["wait_reason"], "Do you want to proceed? [y/N]",
        "{info}"
    );
    msg(&socket, &["send-text", "--pane", &id, "y\n"]);
    wait_for("running after the answer", &dir, || {
        (activity(&socket)["activity"] == "running").then_some(())
    });
    assert_eq!(wait_state(&socket, pane, "done", 30), Some(0));
    let info = activity(&socket);
    assert_eq!(info["last_command"]["command"], "sh ~/agent.sh", "{info}");
    assert_eq!(info["last_command"]["exit_code"], 0, "{info}");
    assert_eq!(
        wait_state(&socket, pane, "waiting", 3),
        Some(2),
        "back at the prompt: not waiting: {}",
        activity(&socket)
    );
}
