//! The real binary as `tern --headless` with no program: the workspace served over
//! `tern msg`, no display needed. Each [`Served`] has its own HOME, runtime folder
//! (so its own session socket) and session file; `msg` runs `tern msg` against it.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use tern_testkit::eventually;

use super::{TERN_BIN, isolated, tern_in};

/// How long a served workspace may take to open its socket or reach a state.
pub const PATIENCE: Duration = Duration::from_secs(20);

pub struct Served {
    pub child: Child,
    /// Leave the keeper (and the programs it holds) when this is dropped: a test of
    /// programs outliving tern ([`Served::crash`]).
    keep_keeper: bool,
    /// The scratch folder holding home/, run/ and session.ron.
    pub dir: PathBuf,
    pub home: PathBuf,
    pub socket: PathBuf,
}

/// A scratch folder for one test: `<tmp>/tern-<name>-<pid>`, emptied.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tern-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("home")).expect("scratch home");
    dir
}

/// `tern --headless` in `dir` inside a private session bus (`dbus-run-session`), with
/// `dbus-monitor` writing the notification server's calls to `dir/monitor.txt` and
/// tern's pid in `dir/tern.pid` (SIGTERM to it ends tern, the monitor and the bus).
pub fn served_on_a_private_bus(dir: &Path) -> Served {
    let inner = format!(
        "dbus-monitor --session \"interface='org.freedesktop.Notifications'\" > '{mon}' 2>&1 & m=$!; \
         sleep 1; '{tern}' --headless & echo $! > '{pid}'; wait $!; kill $m",
        mon = dir.join("monitor.txt").display(),
        tern = TERN_BIN,
        pid = dir.join("tern.pid").display(),
    );
    let child = isolated("dbus-run-session", dir)
        .args(["--", "sh", "-c", &inner])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("dbus-run-session (apt-get install dbus)");
    Served::wrap(dir, child)
}

impl Served {
    /// Starts `tern --headless [args]` in `dir` and waits for its socket.
    pub fn start(dir: &Path, args: &[&str]) -> Served {
        let child = tern_in(dir)
            .arg("--headless")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start tern --headless");
        Served::wrap(dir, child)
    }

    /// A workspace served by `child` (a wrapper that starts `tern --headless` in `dir`'s
    /// environment); waits for its socket.
    pub fn wrap(dir: &Path, child: Child) -> Served {
        let served = Served {
            child,
            keep_keeper: false,
            dir: dir.to_path_buf(),
            home: dir.join("home"),
            socket: dir.join("run/tern/session.sock"),
        };
        served.wait_socket();
        served
    }

    fn wait_socket(&self) {
        eventually(
            format!("tern --headless opens {}", self.socket.display()),
            PATIENCE,
            || self.socket.exists(),
        );
    }

    /// `tern msg ARGS` against this workspace.
    pub fn msg(&self, args: &[&str]) -> Output {
        tern_in(&self.dir)
            .arg("msg")
            .args(args)
            .output()
            .expect("run tern msg")
    }

    /// `tern msg ARGS`, which must succeed; its stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.msg(args);
        assert!(
            out.status.success(),
            "tern msg {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Every pane, as `tern msg list` prints them.
    pub fn list(&self) -> Vec<serde_json::Value> {
        serde_json::from_str(&self.ok(&["list"])).expect("list is JSON")
    }

    /// Waits until `get-text ARGS` (for `pane`) satisfies `done`; its last text.
    pub fn wait_text(&self, pane: u64, args: &[&str], done: impl Fn(&str) -> bool) -> String {
        let id = pane.to_string();
        let mut full = vec!["get-text", "--pane", &id];
        full.extend_from_slice(args);
        eventually(
            format!("pane {pane} shows what was waited for"),
            PATIENCE,
            || {
                let text = self.ok(&full);
                if done(&text) {
                    Ok(text)
                } else {
                    Err(format!("it shows:\n{text}"))
                }
            },
        )
    }

    /// SIGTERM, then the exit status and stderr.
    pub fn stop(self) -> (Option<i32>, String) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status();
        assert!(sent.is_ok_and(|s| s.success()), "kill -TERM {pid}");
        self.wait_out()
    }

    /// Waits for the served process to end: its exit status and stderr.
    pub fn wait_out(mut self) -> (Option<i32>, String) {
        let out = std::mem::replace(
            &mut self.child,
            Command::new("true").spawn().expect("placeholder"),
        )
        .wait_with_output()
        .expect("wait for tern");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

impl Served {
    /// `kill -9` of tern, as a crash: its programs go on with the keeper (stopped when
    /// the next `Served` in this folder is dropped, or by [`stop_keeper`]).
    pub fn crash(mut self) {
        self.keep_keeper = true;
        let _ = self.child.kill();
        let _ = self.child.wait();
        // As a killed tern leaves it (the next start replaces it); gone here so that
        // the next `Served` waits for its own.
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// Ends the scratch folder's keeper when dropped, also when a test fails half way.
pub struct KeeperGuard(pub PathBuf);

impl Drop for KeeperGuard {
    fn drop(&mut self) {
        stop_keeper(&self.0);
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if !self.keep_keeper {
            stop_keeper(&self.dir);
        }
    }
}

/// Ends the keeper of the scratch folder `dir` (and the programs it holds), if one
/// runs: a test that kills tern leaves nothing behind.
pub fn stop_keeper(dir: &Path) {
    if dir.join("run/tern/keeper.sock").exists() {
        let _ = tern_in(dir).args(["keeper", "--stop"]).output();
    }
}

/// The numeric id in a `new-tab`/`split` reply.
pub fn pane_id(reply: &str) -> u64 {
    reply
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("not a pane id: {reply:?}"))
}
