//! The real binary started the way a user starts it, for scenario tests: a fresh HOME
//! (its config and state folders inside it, so the user's own files are never read),
//! its own XDG runtime dir (so its `tern msg` socket is its own), `SHELL=/bin/sh`, and a
//! face: the window under Xvfb, or `tern --headless` with no program (the same
//! workspace with no window, served over `tern msg`), so one scenario written against
//! [`Tern`] runs on either (`app/tests/scenarios.rs`). `common::headless::Served` is
//! the headless face's own helper, with `get-text`.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

use tern_testkit::eventually;

use super::x11::{Display, start_xvfb};

/// Which face of tern a scenario drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Face {
    /// The window, on a private Xvfb display.
    Window,
    /// `tern --headless` with no program: no display.
    Headless,
}

/// How to start tern: the face, its arguments, its environment, files in its HOME.
pub struct Start {
    face: Face,
    name: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    files: Vec<(String, String)>,
    wait_for_socket: bool,
    reuse: Option<PathBuf>,
    display: Option<Display>,
}

impl Start {
    pub fn new(face: Face, name: &str) -> Start {
        Start {
            face,
            name: name.to_owned(),
            args: Vec::new(),
            env: Vec::new(),
            files: Vec::new(),
            wait_for_socket: true,
            reuse: None,
            display: None,
        }
    }

    /// The window, as a user starts it from a desktop.
    pub fn window(name: &str) -> Start {
        Start::new(Face::Window, name)
    }

    pub fn args(mut self, args: &[&str]) -> Start {
        self.args.extend(args.iter().map(|a| (*a).to_owned()));
        self
    }

    pub fn env(mut self, key: &str, value: &str) -> Start {
        self.env.push((key.to_owned(), value.to_owned()));
        self
    }

    /// A file in the fresh HOME before tern starts (`.config/tern/config.ron`, an rc
    /// file).
    pub fn home_file(mut self, path: &str, text: &str) -> Start {
        self.files.push((path.to_owned(), text.to_owned()));
        self
    }

    /// The window on `display` (one the test prepared: a window manager on it).
    pub fn on_display(mut self, display: Display) -> Start {
        self.display = Some(display);
        self
    }

    /// Do not wait for the `tern msg` socket (a start that is expected to end early,
    /// or to run without one).
    pub fn no_socket(mut self) -> Start {
        self.wait_for_socket = false;
        self
    }

    /// Starts again in the HOME of a tern that ran before (its config, state and
    /// session), as a user starts tern the next day, on the same display (one display
    /// at a time). `before` is stopped first if it still runs.
    pub fn again(mut self, mut before: Tern) -> Start {
        self.reuse = Some(before.dir.clone());
        self.display = before.display.take();
        before.keep_dir = true;
        self
    }

    /// Starts tern; returns once its `tern msg` socket listens (unless
    /// [`Start::no_socket`]).
    pub fn run(mut self) -> Tern {
        let dir = match &self.reuse {
            Some(dir) => dir.clone(),
            None => {
                let dir = std::env::temp_dir().join(format!(
                    "tern-{}-{}-{}",
                    self.name,
                    std::process::id(),
                    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                ));
                let _ = std::fs::remove_dir_all(&dir);
                dir
            }
        };
        let home = dir.join("home");
        let runtime = dir.join("run");
        // The kit's one isolation (`common::isolate`), made first so that the files
        // below land in its HOME.
        let mut cmd = super::tern_in(&dir);
        for (path, text) in &self.files {
            let path = home.join(path);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(&path, text).expect("a HOME file");
        }
        // A socket left by the tern before (killed) is not this one's.
        if let Ok(entries) = std::fs::read_dir(runtime.join("tern")) {
            for e in entries.flatten() {
                // (The keeper's is: it holds the programs for this start.)
                if e.path().extension().is_some_and(|x| x == "sock")
                    && e.file_name() != "keeper.sock"
                {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        let display = match self.display.take() {
            Some(d) => Some(d),
            None => (self.face == Face::Window).then(start_xvfb),
        };
        let stderr = std::fs::File::create(dir.join("tern.stderr")).expect("stderr file");
        if self.face == Face::Headless {
            cmd.arg("--headless");
        }
        // As a user starts it: the session file where tern keeps it (in the HOME's
        // state folder), and a trace for the window's marks.
        cmd.args(&self.args)
            .env("TERN_TRACE", dir.join("trace.jsonl"))
            .env_remove("TERN_SESSION");
        match &display {
            Some(d) => cmd.env("DISPLAY", &d.name),
            None => cmd.env_remove("DISPLAY"),
        };
        let child = cmd
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .expect("start tern");
        let mut tern = Tern {
            child,
            dir,
            home,
            runtime,
            socket: PathBuf::new(),
            display,
            keep_dir: false,
            keep_keeper: false,
        };
        if self.wait_for_socket {
            tern.socket = tern.wait_for("tern msg socket", |t| t.find_socket());
        }
        tern
    }
}

static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// A running tern.
pub struct Tern {
    child: std::process::Child,
    /// The scratch folder: `home/`, `xdg/`, `tern.stderr`, `trace.jsonl`.
    pub dir: PathBuf,
    pub home: PathBuf,
    pub runtime: PathBuf,
    /// Its `tern msg` socket (the session's for a plain start, its own otherwise).
    pub socket: PathBuf,
    pub display: Option<Display>,
    /// Kept for a next start ([`Start::again`]); else removed when this is dropped.
    keep_dir: bool,
    /// Leave the keeper running when dropped (after [`Tern::crash`]).
    keep_keeper: bool,
}

impl Drop for Tern {
    fn drop(&mut self) {
        // tern first (SIGTERM, so it saves and removes its socket; a kill after 5 s),
        // only while it is not reaped (a reaped pid may be another process's now),
        // then its scratch folder.
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = Command::new("kill")
                .arg(self.child.id().to_string())
                .status();
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline && matches!(self.child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        // A keeper left by a tern that had to be killed: it and its programs end
        // (unless the next start is to take them back).
        if !self.keep_keeper && self.runtime.join("tern/keeper.sock").exists() {
            let _ = super::tern_in(&self.dir)
                .args(["keeper", "--stop", "--socket"])
                .arg(self.runtime.join("tern/keeper.sock"))
                .output();
        }
        if !self.keep_dir {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

impl Tern {
    /// Leaves the keeper (and the programs it holds) running when this is dropped, for
    /// the next start ([`Start::again`]) to take back.
    pub fn leave_keeper(&mut self) {
        self.keep_keeper = true;
    }

    /// `kill -9` of tern, as a crash: its programs go on with the keeper, for the
    /// next start ([`Start::again`]) to take back.
    pub fn crash(&mut self) {
        self.keep_keeper = true;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The socket tern listens on, when there is one.
    pub fn find_socket(&self) -> Option<PathBuf> {
        super::find_socket(&self.runtime)
    }

    /// What tern printed to stderr so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(self.dir.join("tern.stderr")).unwrap_or_default()
    }

    /// `tern msg --socket S ARGS` as this user runs it from outside tern (isolated in
    /// this tern's folder: no `TERN_PANE_ID`, nobody else's socket): its output.
    pub fn msg_output(&self, args: &[&str]) -> Output {
        super::tern_in(&self.dir)
            .arg("msg")
            .arg("--socket")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tern msg runs")
    }

    /// `tern msg ARGS`: its stdout; a failure panics with its stderr and tern's.
    pub fn msg(&self, args: &[&str]) -> String {
        let out = self.msg_output(args);
        assert!(
            out.status.success(),
            "tern msg {args:?}: {}; tern said {}",
            String::from_utf8_lossy(&out.stderr),
            self.stderr()
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// `tern msg list`, parsed.
    pub fn panes(&self) -> Vec<serde_json::Value> {
        let list: serde_json::Value =
            serde_json::from_str(&self.msg(&["list"])).expect("list is JSON");
        list.as_array().cloned().expect("list is an array")
    }

    /// The pane `id` as `tern msg list` shows it.
    pub fn pane(&self, id: u64) -> Option<serde_json::Value> {
        self.panes().into_iter().find(|p| p["id"] == id)
    }

    /// Opens a tab running `sh -c SCRIPT`; its pane id.
    pub fn new_tab(&self, script: &str) -> u64 {
        self.msg(&["new-tab", "--", "sh", "-c", script])
            .trim()
            .parse()
            .expect("a pane id")
    }

    /// Waits (60 s at most) until `done` gives a value; a failure says `what` and
    /// what tern printed. tern exiting meanwhile fails it at once.
    pub fn wait_for<T>(&mut self, what: &str, mut done: impl FnMut(&Tern) -> Option<T>) -> T {
        eventually(what, Duration::from_secs(60), || {
            if let Some(v) = done(self) {
                return Ok(v);
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("{what}: tern exited ({status}); it said {}", self.stderr());
            }
            Err(format!("tern said {}", self.stderr()))
        })
    }

    /// Waits (60 s at most) for tern to exit; its status.
    pub fn wait_exit(&mut self, what: &str) -> ExitStatus {
        eventually(
            format!("{what}: tern exits"),
            Duration::from_secs(60),
            || match self.child.try_wait() {
                Ok(Some(status)) => Ok(status),
                _ => Err(format!("it still runs; it said {}", self.stderr())),
            },
        )
    }

    /// Whether tern still runs.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Sends SIGTERM to tern.
    pub fn sigterm(&self) {
        let ok = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(ok.success());
    }

    /// A file written by a program in a pane, once it holds text.
    pub fn wait_file(&mut self, path: &Path) -> String {
        self.wait_for(&format!("{} written", path.display()), |_| {
            std::fs::read_to_string(path)
                .ok()
                .filter(|t| !t.trim().is_empty())
        })
    }
}

/// Each scenario `fn(Face)` as two tests: in the window, and headless
/// (`on_both_faces! { scenario: test_in_the_window, test_headless; }`).
#[allow(unused_macros)]
macro_rules! on_both_faces {
    ($($scenario:ident: $window:ident, $headless:ident;)*) => {$(
        #[test]
        fn $window() {
            $scenario($crate::common::user::Face::Window);
        }

        #[test]
        fn $headless() {
            $scenario($crate::common::user::Face::Headless);
        }
    )*};
}
#[allow(unused_imports)]
pub(crate) use on_both_faces;
