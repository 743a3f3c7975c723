//! The control-mode client against a real tmux: a `tmux -C` child on a socket of its
//! own (in a temp dir), its stdin and stdout as the transport, exactly as `ssh` will be.
//!
//! Without tmux each test fails with the command that installs it (CI installs it:
//! `scripts/test.sh`); `TERN_SKIP_MISSING_TOOLS=1` skips them instead, printed.
//! Deadlines only fail a test; nothing waits on a timer to move on.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Process, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tern_core::tmux::{
    CellContent, Command, ControlSession, Event, FlowAction, Response, SessionConfig,
    SplitDirection, TmuxPaneId,
};

#[path = "remote_support/tools.rs"]
mod tools;
use tools::tmux_available;

const DEADLINE: Duration = Duration::from_secs(30);

/// Puts its terminal in raw mode, says `ready `, then writes each byte it reads as two
/// hex digits and a space.
const HEX_ECHO: &str = r#"system("stty raw -echo -iexten") == 0 or die "stty";
$| = 1;
print "ready ";
while (sysread(STDIN, my $c, 1)) { printf "%02x ", ord $c }
"#;

type Outputs = Arc<Mutex<BTreeMap<TmuxPaneId, Vec<u8>>>>;

/// One `tmux -C` client and what it said.
struct Client {
    child: Child,
    chunks: Receiver<Vec<u8>>,
    session: ControlSession,
    outputs: Outputs,
    events: Vec<Event>,
    ended: bool,
}

impl Client {
    /// `tmux -S SOCKET -C new-session -A -s test [PROGRAM]`: a new session running
    /// `program`, or the existing one.
    fn attach(socket: &Path, program: Option<&str>, config: &SessionConfig) -> Client {
        let mut tmux = Process::new("tmux");
        tmux.arg("-S").arg(socket).args([
            "-f",
            "/dev/null",
            "-C",
            "new-session",
            "-A",
            "-s",
            "test",
        ]);
        tmux.args(["-x", "80", "-y", "24"]).args(program);
        tmux.env_remove("TMUX")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = tmux.spawn().expect("spawn tmux");
        let mut stdout = child.stdout.take().expect("stdout");
        let stdin = child.stdin.take().expect("stdin");
        // A one-chunk channel: when the test stops reading, tmux's writes back up.
        let (tx, chunks) = sync_channel(1);
        std::thread::spawn(move || {
            let mut buf = vec![0; 64 * 1024];
            while let Ok(n @ 1..) = stdout.read(&mut buf) {
                if tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        let outputs: Outputs = Arc::default();
        let sinks = outputs.clone();
        let session = ControlSession::new(
            Box::new(stdin),
            config,
            Box::new(move |pane| {
                let sinks = sinks.clone();
                Box::new(move |bytes: &[u8]| {
                    sinks
                        .lock()
                        .unwrap()
                        .entry(pane)
                        .or_default()
                        .extend_from_slice(bytes)
                })
            }),
        )
        .expect("start the session");
        Client {
            child,
            chunks,
            session,
            outputs,
            events: Vec::new(),
            ended: false,
        }
    }

    /// Feeds what tmux says until `done` holds; false if the deadline passed first.
    fn until(&mut self, within: Duration, mut done: impl FnMut(&Client) -> bool) -> bool {
        let deadline = Instant::now() + within;
        loop {
            if done(self) {
                return true;
            }
            if self.ended {
                return false;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.chunks.recv_timeout(left) {
                Ok(bytes) => {
                    let events = self.session.feed(&bytes);
                    self.events.extend(events);
                }
                Err(RecvTimeoutError::Timeout) => return done(self),
                Err(RecvTimeoutError::Disconnected) => {
                    let events = self.session.finish();
                    self.events.extend(events);
                    self.ended = true;
                }
            }
        }
    }

    fn output(&self, pane: TmuxPaneId) -> Vec<u8> {
        self.outputs
            .lock()
            .unwrap()
            .get(&pane)
            .cloned()
            .unwrap_or_default()
    }

    fn reply(&mut self, command: Command) -> Response {
        let id = self.session.send(command.clone()).expect("send");
        let mut found = None;
        let arrived = self.until(DEADLINE, |c| {
            found = c.events.iter().find_map(|e| match e {
                Event::Reply { id: got, result } if *got == id => Some(result.clone()),
                _ => None,
            });
            found.is_some()
        });
        assert!(
            arrived,
            "no reply to {command:?}; events: {:?}",
            self.events
        );
        found
            .unwrap()
            .unwrap_or_else(|e| panic!("{command:?} failed: {e:?}"))
    }

    fn wait_for_pane(&mut self, pane: TmuxPaneId) {
        let known = self.until(DEADLINE, |c| c.session.pane(pane).is_some());
        assert!(known, "{pane} never appeared; events: {:?}", self.events);
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A tmux server of the test's own, killed at the end.
struct Server {
    dir: tempfile::TempDir,
}

impl Server {
    fn new() -> Server {
        let dir = tempfile::Builder::new()
            .prefix("tern-tmux")
            .tempdir()
            .expect("temp dir");
        std::fs::write(dir.path().join("hex.pl"), HEX_ECHO).expect("write hex.pl");
        Server { dir }
    }

    fn socket(&self) -> PathBuf {
        self.dir.path().join("sock")
    }

    fn hex_echo(&self) -> String {
        format!("perl {}", self.dir.path().join("hex.pl").display())
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

/// Waits for the hex echo to have its terminal raw: typing before would be cooked.
fn wait_until_ready(client: &mut Client, pane: TmuxPaneId) {
    let ready = client.until(DEADLINE, |c| c.output(pane).starts_with(b"ready "));
    assert!(
        ready,
        "the program did not start: {:?}",
        String::from_utf8_lossy(&client.output(pane))
    );
}

fn hex(bytes: &[u8]) -> Vec<u8> {
    bytes
        .iter()
        .flat_map(|b| format!("{b:02x} ").into_bytes())
        .collect()
}

#[test]
fn send_keys_reaches_the_program_byte_exact_and_its_output_arrives_decoded() {
    if !tmux_available() {
        return;
    }
    let server = Server::new();
    let mut client = Client::attach(
        &server.socket(),
        Some(&server.hex_echo()),
        &SessionConfig::default(),
    );
    let pane = TmuxPaneId(0);
    client.wait_for_pane(pane);
    wait_until_ready(&mut client, pane);
    // Every byte, five times: more than one send-keys command.
    let input: Vec<u8> = (0..5).flat_map(|_| 0..=255u8).collect();
    let ids = client.session.send_keys(pane, &input).expect("send keys");
    assert_eq!(ids.len(), 2);
    let expected = [b"ready ".as_slice(), &hex(&input)].concat();
    let arrived = client.until(DEADLINE, |c| c.output(pane).len() >= expected.len());
    let got = client.output(pane);
    assert!(
        arrived,
        "got {} of {} bytes: {:?}",
        got.len(),
        expected.len(),
        String::from_utf8_lossy(&got)
    );
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&expected)
    );
}

#[test]
fn a_split_arrives_as_a_layout_change_parsed_into_the_tree() {
    if !tmux_available() {
        return;
    }
    let server = Server::new();
    let mut client = Client::attach(&server.socket(), Some("cat"), &SessionConfig::default());
    client.wait_for_pane(TmuxPaneId(0));
    let window = client.session.pane(TmuxPaneId(0)).unwrap().window;

    let Response::NewPane { pane: right } = client.reply(Command::SplitWindow {
        pane: TmuxPaneId(0),
        direction: SplitDirection::Right,
    }) else {
        panic!("split-window's reply")
    };
    client.wait_for_pane(right);
    assert!(
        client.events.contains(&Event::LayoutChanged(window)),
        "{:?}",
        client.events
    );
    let root = client
        .session
        .window(window)
        .unwrap()
        .layout
        .clone()
        .unwrap()
        .root;
    assert_eq!((root.width, root.height), (80, 24));
    let CellContent::LeftRight(children) = &root.content else {
        panic!("{root:?}")
    };
    assert_eq!(children.len(), 2);
    assert_eq!(children[0].content, CellContent::Pane(Some(TmuxPaneId(0))));
    assert_eq!(children[1].content, CellContent::Pane(Some(right)));
    assert_eq!(
        children[0].width + 1 + children[1].width,
        80,
        "two panes and a divider"
    );
    assert_eq!(children[1].x, children[0].width + 1);

    let Response::NewPane { pane: below } = client.reply(Command::SplitWindow {
        pane: right,
        direction: SplitDirection::Down,
    }) else {
        panic!("split-window's reply")
    };
    client.wait_for_pane(below);
    let layout = client
        .session
        .window(window)
        .unwrap()
        .layout
        .clone()
        .unwrap();
    assert_eq!(layout.panes(), vec![TmuxPaneId(0), right, below]);
    let CellContent::LeftRight(children) = &layout.root.content else {
        panic!("{layout}")
    };
    let CellContent::TopBottom(column) = &children[1].content else {
        panic!("{layout}")
    };
    assert_eq!(column[0].height + 1 + column[1].height, 24);
}

#[test]
fn detaching_and_attaching_again_finds_the_program_still_running() {
    if !tmux_available() {
        return;
    }
    let server = Server::new();
    let pane = TmuxPaneId(0);
    let mut first = Client::attach(
        &server.socket(),
        Some(&server.hex_echo()),
        &SessionConfig::default(),
    );
    first.wait_for_pane(pane);
    wait_until_ready(&mut first, pane);
    first.session.send_keys(pane, b"ab").unwrap();
    assert!(first.until(DEADLINE, |c| c.output(pane).ends_with(b"61 62 ")));
    first.reply(Command::DetachClient);
    let exited = first.until(DEADLINE, |c| c.ended);
    assert!(
        exited,
        "the client should exit once detached: {:?}",
        first.events
    );
    assert!(
        first.events.iter().any(|e| matches!(e, Event::Exit { .. })),
        "{:?}",
        first.events
    );
    assert!(first.child.wait().unwrap().success());

    let mut second = Client::attach(&server.socket(), None, &SessionConfig::default());
    second.wait_for_pane(pane);
    let Response::Screen { rows } = second.reply(Command::CapturePane { pane }) else {
        panic!()
    };
    assert!(
        rows[0].trim_ascii_end() == b"ready 61 62",
        "the screen survives: {:?}",
        String::from_utf8_lossy(&rows.concat())
    );
    second.session.send_keys(pane, b"c").unwrap();
    let echoed = second.until(DEADLINE, |c| c.output(pane).ends_with(b"63 "));
    assert!(
        echoed,
        "the same program answers: {:?}",
        String::from_utf8_lossy(&second.output(pane))
    );
}

#[test]
fn pause_after_pauses_a_flooding_pane_and_continue_resumes_it() {
    if !tmux_available() {
        return;
    }
    let server = Server::new();
    let pane = TmuxPaneId(0);
    let config = SessionConfig {
        pause_after_secs: Some(1),
        size: None,
    };
    let mut client = Client::attach(&server.socket(), Some("yes"), &config);
    client.wait_for_pane(pane);
    // Stop reading: tmux's writes back up and its output for the pane ages. The
    // `%pause` comes after what tmux had queued before it, which the client must read
    // through; on a loaded machine that took more than ten rounds of a second's reading
    // (CI, once): up to 90 s of rounds, each 2 s unread and then 3 s read.
    let started = std::time::Instant::now();
    let mut paused = false;
    while !paused && started.elapsed() < Duration::from_secs(90) {
        std::thread::sleep(Duration::from_secs(2));
        paused = client.until(Duration::from_secs(3), |c| {
            c.events.contains(&Event::PanePaused(pane))
        });
    }
    assert!(
        paused,
        "tmux never paused the pane; events: {:?}",
        client.events
    );
    // Everything in flight before the pause has come in; nothing more comes until
    // continued.
    assert!(client.session.pane(pane).unwrap().paused);
    let screen = client.reply(Command::CapturePane { pane });
    let Response::Screen { rows } = screen else {
        panic!()
    };
    assert!(
        rows.iter().any(|r| r == b"y"),
        "a paused pane's screen is still there to re-read"
    );
    let before = client.output(pane).len();
    client.reply(Command::PaneFlow {
        pane,
        action: FlowAction::Continue,
    });
    assert!(
        client.events.contains(&Event::PaneContinued(pane)),
        "{:?}",
        client.events
    );
    assert!(!client.session.pane(pane).unwrap().paused);
    let resumed = client.until(DEADLINE, |c| c.output(pane).len() > before + 64 * 1024);
    assert!(resumed, "output did not resume");
}
