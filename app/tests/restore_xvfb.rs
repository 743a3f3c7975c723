//! Agents come back after a restart, through the binary as a user runs it: a tab opened
//! with `tern msg new-tab --cwd DIR -- claude` is started again as `claude --continue`
//! in DIR after SIGTERM and a plain start. The `claude` here is a stand-in on `PATH`
//! that records its arguments and folder. Needs xvfb (`scripts/test.sh` installs it).
//!
//! Catches: a session that saved only folders (the tab came back as a bare shell and
//! the stand-in ran once), seen failing so.

mod common;

use std::process::Command;

use common::x11::*;

#[test]
fn an_agents_tab_is_resumed_after_sigterm_and_a_plain_start() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("restore-agent");
    let bin = dir.join("bin");
    let work = dir.join("worktree");
    std::fs::create_dir_all(&bin).expect("bin");
    std::fs::create_dir_all(&work).expect("worktree");
    let record = dir.join("claude-runs.txt");
    let claude = bin.join("claude");
    std::fs::write(
        &claude,
        format!(
            "#!/bin/sh\necho \"args=[$*] cwd=$(pwd)\" >> '{}'\nexec sleep 600\n",
            record.display()
        ),
    )
    .expect("stand-in");
    std::fs::set_permissions(&claude, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let socket = runtime.join("tern").join("session.sock");
    let env = [("PATH", path.as_str())];
    let (first, _) = start_tern_with(&display, &dir, &runtime, &[], &env);
    wait_for("no session socket", &dir, || socket.exists().then_some(()));
    msg(
        &socket,
        &[
            "new-tab",
            "--cwd",
            work.to_str().expect("utf-8"),
            "--",
            "claude",
        ],
    );
    let runs = |want: usize| {
        let text = std::fs::read_to_string(&record).unwrap_or_default();
        (text.lines().count() >= want).then_some(text)
    };
    wait_for("the stand-in ran", &dir, || runs(1));
    // SIGTERM: the window saves the session and exits.
    let mut first = first;
    let _ = Command::new("kill").arg(first.0.id().to_string()).status();
    wait_for("tern ended on SIGTERM", &dir, || {
        first.0.try_wait().ok().flatten()
    });
    wait_for("the socket went away", &dir, || {
        (!socket.exists()).then_some(())
    });
    // A plain start brings the tab back, running the agent resumed.
    let (_second, _) = start_tern_with(&display, &dir, &runtime, &[], &env);
    let text = wait_for("the agent was started again", &dir, || runs(2));
    let lines: Vec<&str> = text.lines().collect();
    let cwd = work.to_str().expect("utf-8");
    assert_eq!(lines[0], format!("args=[] cwd={cwd}"));
    assert_eq!(lines[1], format!("args=[--continue] cwd={cwd}"));
    assert_eq!(lines.len(), 2, "started once more, not twice: {text}");
}
