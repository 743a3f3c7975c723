//! What the remote-pane tests share: a tmux server of the test's own (a socket in a temp
//! dir, killed at the end), test programs, and a connection whose events are collected
//! while the test waits for the pipeline's screens.
//!
//! Deadlines only fail a test; nothing waits on a timer to move on.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tern_core::pipeline::{PaneEvent, PaneId, Pipeline, PipelineConfig};
use tern_core::tmux::{
    ConnectSpec, Connection, DisconnectReason, RemoteEvent, TmuxPaneId, Transport,
};

pub mod tools;
pub use tools::tmux_available;

pub const DEADLINE: Duration = Duration::from_secs(30);

/// Puts its terminal in raw mode, says `ready `, then writes each byte it reads as two
/// hex digits and a space.
pub const HEX_ECHO: &str = r#"system("stty raw -echo -iexten") == 0 or die "stty";
$| = 1;
print "ready ";
while (sysread(STDIN, my $c, 1)) { printf "%02x ", ord $c }
"#;

/// Asks for the cursor position (DSR 6), collects every byte that comes back until
/// two seconds pass without any, and shows them in hex.
pub const ASK_CURSOR: &str = r#"system("stty raw -echo -iexten") == 0 or die "stty";
$| = 1;
print "ask\e[6n";
my $got = "";
my $rin = "";
vec($rin, fileno(STDIN), 1) = 1;
while (select(my $r = $rin, undef, undef, 2.0)) {
    sysread(STDIN, my $c, 64) or last;
    $got .= $c;
}
printf "\r\ngot %s.\r\n", join(" ", map { sprintf "%02x", ord } split //, $got);
sleep 1000;
"#;

/// A tmux server of the test's own.
pub struct Server {
    pub dir: tempfile::TempDir,
}

impl Server {
    pub fn new() -> Server {
        let dir = tempfile::Builder::new()
            .prefix("tern-remote")
            .tempdir()
            .expect("temp dir");
        for (name, text) in [("hex.pl", HEX_ECHO), ("ask.pl", ASK_CURSOR)] {
            std::fs::write(dir.path().join(name), text).expect("write a test program");
        }
        Server { dir }
    }

    pub fn socket(&self) -> PathBuf {
        self.dir.path().join("sock")
    }

    pub fn script(&self, name: &str) -> String {
        format!("perl {}", self.dir.path().join(name).display())
    }

    /// The tmux words a connection runs: this server, no user config.
    pub fn tmux_words(&self) -> Vec<String> {
        vec![
            "tmux".into(),
            "-S".into(),
            self.socket().display().to_string(),
            "-f".into(),
            "/dev/null".into(),
        ]
    }

    /// `tmux ARGS` on this server, its stdout.
    pub fn tmux(&self, args: &[&str]) -> String {
        let out = Process::new("tmux")
            .arg("-S")
            .arg(self.socket())
            .args(["-f", "/dev/null"])
            .args(args)
            .env_remove("TMUX")
            .stderr(Stdio::inherit())
            .output()
            .expect("run tmux");
        assert!(out.status.success(), "tmux {args:?} failed");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A detached session of 80x24 running `program`.
    pub fn new_session(&self, name: &str, program: &str) {
        self.tmux(&[
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            "80",
            "-y",
            "24",
            program,
        ]);
    }

    /// The pane's visible screen as tmux has it (`capture-pane -p`), trailing blank
    /// lines and spaces trimmed.
    pub fn capture(&self, pane: TmuxPaneId) -> Vec<String> {
        trim_screen(
            self.tmux(&["capture-pane", "-p", "-t", &pane.to_string()])
                .lines()
                .map(str::to_owned)
                .collect(),
        )
    }

    pub fn spec(&self, session: &str) -> ConnectSpec {
        let mut spec = ConnectSpec::new(Transport::Local, session);
        spec.tmux = self.tmux_words();
        spec
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Process::new("tmux")
            .arg("-S")
            .arg(self.socket())
            .arg("kill-server")
            .stderr(Stdio::null())
            .status();
    }
}

pub fn trim_screen(mut rows: Vec<String>) -> Vec<String> {
    for row in &mut rows {
        row.truncate(row.trim_end().len());
    }
    while rows.last().is_some_and(String::is_empty) {
        rows.pop();
    }
    rows
}

pub fn pipeline() -> Arc<Pipeline> {
    pipeline_with(PipelineConfig::default())
}

pub fn pipeline_with(config: PipelineConfig) -> Arc<Pipeline> {
    Arc::new(Pipeline::start(config, Arc::new(|| {})).expect("pipeline"))
}

/// A connection and every event it sent so far.
pub struct Remote {
    pub pipeline: Arc<Pipeline>,
    pub conn: Connection,
    pub events: Vec<RemoteEvent>,
}

impl Remote {
    pub fn connect(pipeline: Arc<Pipeline>, spec: ConnectSpec) -> Remote {
        let conn = Connection::start(spec, pipeline.clone(), Arc::new(|| {})).expect("start");
        Remote {
            pipeline,
            conn,
            events: Vec::new(),
        }
    }

    /// Collects events until `done` holds; false if `within` passed first.
    pub fn until(&mut self, within: Duration, mut done: impl FnMut(&Remote) -> bool) -> bool {
        let deadline = Instant::now() + within;
        loop {
            self.events.extend(self.conn.poll_events());
            if done(self) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            if let Some(e) = self.conn.wait_event(Duration::from_millis(20)) {
                self.events.push(e);
            }
        }
    }

    /// The tern pane of a tmux pane, once attached.
    pub fn pane_of(&self, remote: TmuxPaneId) -> Option<PaneId> {
        self.events.iter().find_map(|e| match e {
            RemoteEvent::PaneAttached {
                remote: r, pane, ..
            } if *r == remote => Some(*pane),
            _ => None,
        })
    }

    pub fn wait_pane(&mut self, remote: TmuxPaneId) -> PaneId {
        let found = self.until(DEADLINE, |r| r.pane_of(remote).is_some());
        assert!(found, "{remote} never attached; events: {:#?}", self.events);
        self.pane_of(remote).unwrap()
    }

    pub fn screen(&self, pane: PaneId) -> Vec<String> {
        trim_screen(
            self.pipeline
                .dump_screen(pane)
                .map(|d| d.rows)
                .unwrap_or_default(),
        )
    }

    /// Waits until the pane's first rows satisfy `done`.
    pub fn wait_screen(&mut self, pane: PaneId, what: &str, done: impl Fn(&[String]) -> bool) {
        let ok = self.until(DEADLINE, |r| done(&r.screen(pane)));
        assert!(
            ok,
            "waiting for {what}; the screen: {:#?}\nevents: {:#?}",
            self.screen(pane),
            self.events
        );
    }

    pub fn disconnected(&self) -> Option<&DisconnectReason> {
        self.events.iter().find_map(|e| match e {
            RemoteEvent::Disconnected(reason) => Some(reason),
            _ => None,
        })
    }

    /// Detaches and waits for the end.
    pub fn detach(mut self) -> DisconnectReason {
        self.conn.send(tern_core::tmux::RemoteCommand::Detach);
        let ended = self.until(DEADLINE, |r| r.disconnected().is_some());
        assert!(ended, "no disconnect; events: {:#?}", self.events);
        self.disconnected().cloned().unwrap()
    }
}

/// Waits for the pane's `Exited` event from the pipeline.
pub fn wait_exited(pipeline: &Pipeline, pane: PaneId) -> tern_core::pipeline::ExitInfo {
    let deadline = Instant::now() + DEADLINE;
    while Instant::now() < deadline {
        if let Some(PaneEvent::Exited { pane: p, exit }) =
            pipeline.wait_event(Duration::from_millis(100))
            && p == pane
        {
            return exit;
        }
    }
    panic!("{pane:?} never exited")
}

pub fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn path_str(p: &Path) -> String {
    p.display().to_string()
}
