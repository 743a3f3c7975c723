//! The thread of a [`super::connection::Connection`]: one `epoll` loop over the
//! control client's pipes, every remote pane's slave and the app's command bell.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::io::{self, Write};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, OwnedFd};
use std::process::{Child, Stdio};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::ExitStatus;
use rustix::event::epoll;
use rustix::io::Errno;

use super::channel::{
    CommandTx, ConnectSpec, DisconnectReason, RemoteCommand, RemoteEvent, RemotePaneStats,
};
use super::command::{Command, PaneCursor, check_version};
use super::events::{CommandId, Event, Response};
use super::flow::{FlowStep, PaneFlow};
use super::layout::{CellContent, Layout, LayoutCell};
use super::session::{ControlSession, PaneSink, SessionConfig};
use super::{FlowAction, TmuxPaneId, VersionError, WindowId};
use crate::model::TermSize;
use crate::pipeline::{AttachSpec, PaneId, Pipeline, StandIn, Waker};

mod reads;
mod tmux_events;

pub use tmux_events::repaint_bytes;

/// Commands queued for tmux past which the slaves' keystrokes wait (the stream is
/// slower than the typing or the paste).
const OUT_HIGH_BYTES: usize = 1 << 20;
/// Most bytes read from a slave at once (keystrokes, paste).
const KEYS_READ_BYTES: usize = 4096;
/// How long a detached client has to end before its process is killed, and again
/// for it to be gone after the kill.
pub const DETACH_GRACE: Duration = Duration::from_millis(1500);
/// The longest a detach takes: the grace, the kill, the grace again. The app's close
/// deadline after SIGTERM (5 s) must hold it, or a remote whose ssh does not exit
/// turns a clean close into "window did not close in time", exit 143.
pub const DETACH_LONGEST: Duration = Duration::from_millis(2 * 1500);
/// Most bytes read from tmux's stream at once.
const STDOUT_READ_BYTES: usize = 64 * 1024;
/// Longest stderr line kept.
const STDERR_LINE_BYTES: usize = 1024;

const BELL: u64 = 0;
const STDOUT: u64 = 1;
const STDERR: u64 = 2;
const STDIN: u64 = 3;
/// Slaves are `PANE_BASE + tmux pane id`.
const PANE_BASE: u64 = 16;

/// Most tmux panes one remote session shows (each is a pty pair and a model); panes
/// past it are not shown, and the user is told once.
pub const MAX_REMOTE_PANES: usize = 64;
/// Most columns and rows a remote pane's model has, whatever size tmux gives it (a
/// 4K screen in a small font is about 550x150): a host cannot make tern hold twenty
/// 2000x1000 screens, and one rectangle operation touches at most this many cells.
pub const MAX_REMOTE_PANE_COLS: usize = 640;
pub const MAX_REMOTE_PANE_ROWS: usize = 240;

/// What the sink of a pane and the loop share: the slave and the flow state.
pub(super) struct PaneIo {
    slave: Option<Arc<OwnedFd>>,
    flow: PaneFlow,
    /// Decided inside `ControlSession::feed` (by the sink), sent after it returns.
    steps: Vec<FlowStep>,
    pane: Option<PaneId>,
}

pub(super) type Registry = Arc<Mutex<BTreeMap<TmuxPaneId, Arc<Mutex<PaneIo>>>>>;

pub(super) fn stats(registry: &Registry) -> Vec<RemotePaneStats> {
    let Ok(panes) = registry.lock() else {
        return Vec::new();
    };
    panes
        .iter()
        .filter_map(|(remote, io)| {
            let io = io.lock().ok()?;
            Some(RemotePaneStats {
                remote: *remote,
                pane: io.pane,
                kept_bytes: io.flow.kept_bytes(),
                paused: io.flow.is_paused(),
                flow: io.flow.stats(),
            })
        })
        .collect()
}

fn write_slave(slave: Option<&OwnedFd>, bytes: &[u8]) -> io::Result<usize> {
    match slave {
        None => Err(io::ErrorKind::WouldBlock.into()),
        Some(fd) => rustix::io::write(fd, bytes).map_err(io::Error::from),
    }
}

impl PaneIo {
    fn step(&mut self, f: impl FnOnce(&mut PaneFlow, Option<&OwnedFd>) -> Option<FlowStep>) {
        let slave = self.slave.clone();
        if let Some(step) = f(&mut self.flow, slave.as_deref()) {
            self.steps.push(step);
        }
    }
}

/// tmux's commands, queued: the session writes here, the loop writes to the pipe as
/// it takes them.
#[derive(Clone, Default)]
struct OutQueue(Arc<Mutex<VecDeque<u8>>>);

impl Write for OutQueue {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| io::Error::other("poisoned"))?
            .extend(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl OutQueue {
    fn len(&self) -> usize {
        self.0.lock().map(|q| q.len()).unwrap_or(0)
    }
}

/// What a reply is for.
enum Purpose {
    Capture(TmuxPaneId),
    Cursor(TmuxPaneId),
    /// A command of the app's: only a failure is reported.
    App(String),
}

/// The loop's own view of a pane.
struct Remote {
    io: Arc<Mutex<PaneIo>>,
    pane: Option<PaneId>,
    stand_in: Option<StandIn>,
    /// Keystrokes may wait in the slave (edge-triggered: read until `EAGAIN`).
    keys_readable: bool,
    /// The captured screen, waiting for the cursor's reply.
    captured: Option<Vec<Vec<u8>>>,
}

pub(super) struct WorkerParts {
    pub spec: ConnectSpec,
    pub pipeline: Arc<Pipeline>,
    pub events: Sender<RemoteEvent>,
    pub waker: Waker,
    pub commands: Receiver<RemoteCommand>,
    pub commands_tx: CommandTx,
    pub bell: Arc<OwnedFd>,
    pub registry: Registry,
}

pub(super) struct Worker {
    parts: WorkerParts,
}

/// The running loop's state.
struct Live {
    epoll: OwnedFd,
    child: Child,
    stdin: Option<OwnedFd>,
    stdout: Option<OwnedFd>,
    stderr: Option<OwnedFd>,
    out: OutQueue,
    session: ControlSession,
    remotes: BTreeMap<TmuxPaneId, Remote>,
    purposes: HashMap<CommandId, Purpose>,
    /// The layout last reported per window.
    reported: BTreeMap<WindowId, Layout>,
    /// Windows reported with [`RemoteEvent::WindowAdded`].
    announced: BTreeSet<WindowId>,
    /// Panes over [`MAX_REMOTE_PANE_COLS`] x [`MAX_REMOTE_PANE_ROWS`] the user was told
    /// about.
    oversize_told: BTreeSet<TmuxPaneId>,
    /// Panes not shown for [`MAX_REMOTE_PANES`].
    refused_panes: usize,
    connected: bool,
    detaching: Option<Instant>,
    exit: Option<Option<String>>,
    stderr_line: Vec<u8>,
    last_stderr: Option<String>,
    /// What tmux's stream is read into (kept between reads).
    read_buf: Vec<u8>,
}

impl Worker {
    pub(super) fn new(parts: WorkerParts) -> Worker {
        Worker { parts }
    }

    pub(super) fn name(&self) -> &str {
        &self.parts.spec.session_name
    }

    fn emit(&self, event: RemoteEvent) {
        let _ = self.parts.events.send(event);
    }

    fn crumb(&self, what: String) {
        self.parts.pipeline.breadcrumb(None, what);
    }

    pub(super) fn run(self) {
        let reason = match self.check_version().and_then(|()| self.start()) {
            Err(reason) => reason,
            Ok(live) => self.serve(live),
        };
        self.crumb(format!(
            "remote {}: disconnected: {reason}",
            self.parts.spec.session_name
        ));
        self.emit(RemoteEvent::Disconnected(reason));
        (self.parts.waker)();
    }

    /// `tmux -V` over the transport, checked against 3.2.
    fn check_version(&self) -> Result<(), DisconnectReason> {
        let spec = &self.parts.spec;
        let program = spec.tmux.first().cloned().unwrap_or_else(|| "tmux".into());
        let output = spec
            .transport
            .command(&spec.tmux, &["-V"])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| match spec.transport {
                super::target::Transport::Local => {
                    DisconnectReason::Version(VersionError::Missing {
                        program: program.clone(),
                        error: e.to_string(),
                    })
                }
                _ => DisconnectReason::Start(e.to_string()),
            })?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last_line = stderr.lines().rev().find(|l| !l.trim().is_empty());
        for line in stderr.lines().filter(|l| !l.trim().is_empty()) {
            self.emit(RemoteEvent::Stderr(line.to_owned()));
        }
        if !output.status.success() {
            let ssh = matches!(spec.transport, super::target::Transport::Ssh { .. });
            return Err(match output.status.code() {
                // ssh's own failure (authentication, host unreachable).
                Some(255) if ssh => DisconnectReason::Lost {
                    status: Some(255),
                    stderr: last_line.map(str::to_owned),
                },
                // The remote shell found no such program.
                Some(127) => DisconnectReason::Version(VersionError::Missing {
                    program,
                    error: last_line.unwrap_or("command not found").to_owned(),
                }),
                _ => DisconnectReason::Version(VersionError::Failed {
                    program,
                    message: last_line.unwrap_or("").to_owned(),
                }),
            });
        }
        check_version(&String::from_utf8_lossy(&output.stdout))
            .map(drop)
            .map_err(DisconnectReason::Version)
    }

    fn start(&self) -> Result<Live, DisconnectReason> {
        let spec = &self.parts.spec;
        // tmux expands `-s` and `-c` of new-session as formats: `#` is doubled in both.
        let name = super::command::format_literal(&spec.session_name);
        let dir = spec
            .start_dir
            .as_deref()
            .or_else(|| spec.transport.path())
            .map(super::command::format_literal);
        let mut args = vec!["-C", "new-session", "-A", "-s", name.as_str()];
        if let Some(dir) = &dir {
            args.extend(["-c", dir.as_str()]);
        }
        let mut child = spec
            .transport
            .command(&spec.tmux, &args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| DisconnectReason::Start(e.to_string()))?;
        let start = |e: io::Error| DisconnectReason::Start(e.to_string());
        let stdin: OwnedFd = child
            .stdin
            .take()
            .ok_or_else(|| start(io::Error::other("stdin")))?
            .into();
        let stdout: OwnedFd = child
            .stdout
            .take()
            .ok_or_else(|| start(io::Error::other("stdout")))?
            .into();
        let stderr: OwnedFd = child
            .stderr
            .take()
            .ok_or_else(|| start(io::Error::other("stderr")))?
            .into();
        for fd in [&stdin, &stdout, &stderr] {
            crate::pipeline::spawn::set_nonblocking(fd.as_fd()).map_err(start)?;
        }
        let epoll = epoll::create(epoll::CreateFlags::CLOEXEC).map_err(|e| start(e.into()))?;
        let watch = |fd: &OwnedFd, token: u64, flags: epoll::EventFlags| {
            epoll::add(&epoll, fd, epoll::EventData::new_u64(token), flags)
                .map_err(|e| start(e.into()))
        };
        let inp = epoll::EventFlags::IN | epoll::EventFlags::RDHUP | epoll::EventFlags::ET;
        watch(&self.parts.bell, BELL, inp)?;
        watch(&stdout, STDOUT, inp)?;
        watch(&stderr, STDERR, inp)?;
        watch(
            &stdin,
            STDIN,
            epoll::EventFlags::OUT | epoll::EventFlags::ET,
        )?;
        let out = OutQueue::default();
        let registry = self.parts.registry.clone();
        let flow = spec.flow;
        let sinks = Box::new(move |remote: TmuxPaneId| -> Box<dyn PaneSink> {
            let io = Arc::new(Mutex::new(PaneIo {
                slave: None,
                flow: PaneFlow::new(flow),
                steps: Vec::new(),
                pane: None,
            }));
            if let Ok(mut r) = registry.lock() {
                r.insert(remote, io.clone());
            }
            Box::new(move |bytes: &[u8]| {
                if let Ok(mut io) = io.lock() {
                    io.step(|flow, slave| flow.output(bytes, |b| write_slave(slave, b)));
                }
            })
        });
        // The session sets the flags and the size once tmux says the client is
        // attached (tmux 3.3a may read the first lines before: `no current client`);
        // a failure comes back as its `Event::Error`.
        let config = SessionConfig {
            pause_after_secs: Some(spec.pause_after_secs),
            size: Some(spec.size),
        };
        let session = ControlSession::new(Box::new(out.clone()), &config, sinks)
            .map_err(|e| DisconnectReason::Start(e.to_string()))?;
        self.crumb(format!("remote {}: started", spec.session_name));
        Ok(Live {
            epoll,
            child,
            stdin: Some(stdin),
            stdout: Some(stdout),
            stderr: Some(stderr),
            out,
            session,
            remotes: BTreeMap::new(),
            purposes: HashMap::new(),
            reported: BTreeMap::new(),
            announced: BTreeSet::new(),
            oversize_told: BTreeSet::new(),
            refused_panes: 0,
            connected: false,
            detaching: None,
            exit: None,
            stderr_line: Vec::new(),
            last_stderr: None,
            read_buf: Vec::new(),
        })
    }

    /// The loop, until tmux's stdout ends.
    fn serve(&self, mut live: Live) -> DisconnectReason {
        let mut ready: Vec<u64> = Vec::new();
        while live.stdout.is_some() {
            self.flush_out(&mut live);
            self.read_keys(&mut live);
            self.flush_out(&mut live);
            if live.stdout.is_none() {
                break;
            }
            let timeout = live.detaching.map(|since| {
                let left = DETACH_GRACE.saturating_sub(since.elapsed());
                rustix::event::Timespec {
                    tv_sec: left.as_secs() as i64,
                    tv_nsec: i64::from(left.subsec_nanos()),
                }
            });
            if live
                .detaching
                .is_some_and(|since| since.elapsed() >= DETACH_GRACE)
            {
                // It did not end after its stdin closed: end it (nothing is recovered).
                let _ = live.child.kill();
                live.detaching = Some(Instant::now());
            }
            ready.clear();
            let mut events = [const { MaybeUninit::<epoll::Event>::uninit() }; 32];
            match epoll::wait(&live.epoll, &mut events, timeout.as_ref()) {
                Ok((got, _)) => ready.extend(got.iter().map(|e| e.data.u64())),
                Err(Errno::INTR) => continue,
                Err(e) => {
                    self.emit(RemoteEvent::Problem(format!("epoll: {e}")));
                    break;
                }
            }
            for &token in &ready {
                match token {
                    BELL => {
                        let mut count = [0u8; 8];
                        let _ = rustix::io::read(&*self.parts.bell, &mut count);
                        self.commands(&mut live);
                    }
                    STDOUT => self.read_stdout(&mut live),
                    STDERR => self.read_stderr(&mut live),
                    STDIN => {} // flushed at the top of the loop
                    pane => self.slave_ready(&mut live, TmuxPaneId((pane - PANE_BASE) as u32)),
                }
            }
            (self.parts.waker)();
        }
        self.finish(live)
    }

    fn finish(&self, mut live: Live) -> DisconnectReason {
        // What is left on stderr says why ssh ended.
        self.read_stderr(&mut live);
        live.stdin = None;
        let deadline = Instant::now() + DETACH_GRACE;
        let status = loop {
            match live.child.try_wait() {
                Ok(Some(status)) => break status.code(),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                Ok(None) => {
                    let _ = live.child.kill();
                    break live.child.wait().ok().and_then(|s| s.code());
                }
                Err(_) => break None,
            }
        };
        for (_, remote) in std::mem::take(&mut live.remotes) {
            self.end_pane(&remote, ExitStatus::with_signal("disconnected"));
        }
        if let Ok(mut r) = self.parts.registry.lock() {
            r.clear();
        }
        match live.exit {
            Some(_) if live.detaching.is_some() => DisconnectReason::Detached,
            Some(reason) => DisconnectReason::Exited { reason },
            None if live.detaching.is_some() && status == Some(0) => DisconnectReason::Detached,
            None => DisconnectReason::Lost {
                status,
                stderr: live.last_stderr.take(),
            },
        }
    }

    fn end_pane(&self, remote: &Remote, status: ExitStatus) {
        if let Some(stand_in) = &remote.stand_in {
            stand_in.exited(status);
        }
        if let Ok(mut io) = remote.io.lock() {
            io.flow.close();
            io.slave = None; // the master reads its end of file
        }
    }

    fn flush_out(&self, live: &mut Live) {
        let Ok(mut queue) = live.out.0.lock() else {
            return;
        };
        let mut broken = false;
        match &live.stdin {
            Some(stdin) => {
                while !queue.is_empty() {
                    let (front, _) = queue.as_slices();
                    match rustix::io::write(stdin, front) {
                        Ok(n) => {
                            queue.drain(..n);
                        }
                        Err(Errno::INTR) => {}
                        Err(Errno::AGAIN) => break,
                        Err(_) => {
                            broken = true;
                            break;
                        }
                    }
                }
            }
            None => broken = true,
        }
        if broken {
            queue.clear();
        }
        // Detaching: once its stdin closes, the control client exits; the session
        // runs on.
        if broken || (queue.is_empty() && live.detaching.is_some()) {
            drop(queue);
            live.stdin = None;
        }
    }

    fn commands(&self, live: &mut Live) {
        while let Ok(command) = self.parts.commands.try_recv() {
            let sent = match command {
                RemoteCommand::Detach => {
                    live.detaching.get_or_insert_with(Instant::now);
                    continue;
                }
                RemoteCommand::Repaint(pane) => {
                    self.repaint(live, pane);
                    continue;
                }
                RemoteCommand::ResizeClient { cols, rows } => Command::ResizeClient { cols, rows },
                RemoteCommand::SplitPane { pane, direction } => {
                    Command::SplitWindow { pane, direction }
                }
                RemoteCommand::NewWindow { cwd } => Command::NewWindow { cwd },
                RemoteCommand::KillPane(pane) => Command::KillPane { pane },
                RemoteCommand::SelectWindow(window) => Command::SelectWindow { window },
                RemoteCommand::SelectPane(pane) => Command::SelectPane { pane },
            };
            let line = sent.line().unwrap_or_default();
            self.send(live, sent, Purpose::App(line));
        }
    }

    fn send(&self, live: &mut Live, command: Command, purpose: Purpose) {
        let what = command.line().unwrap_or_default();
        match live.session.send(command) {
            Ok(id) => {
                live.purposes.insert(id, purpose);
            }
            Err(e) => self.emit(RemoteEvent::CommandFailed {
                command: what,
                message: e.to_string(),
            }),
        }
    }

    /// Reads the pane's screen and cursor; the repaint is written when both answered.
    /// Both on one line: output between the two replies would be written before the
    /// repaint and then painted over by the screen read before it.
    fn repaint(&self, live: &mut Live, pane: TmuxPaneId) {
        let both = live
            .session
            .send_together(Command::CapturePane { pane }, Command::PaneCursor { pane });
        match both {
            Ok((capture, cursor)) => {
                live.purposes.insert(capture, Purpose::Capture(pane));
                live.purposes.insert(cursor, Purpose::Cursor(pane));
            }
            Err(e) => self.emit(RemoteEvent::CommandFailed {
                command: format!("capture-pane -t {pane}"),
                message: e.to_string(),
            }),
        }
    }
}
