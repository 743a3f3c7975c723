//! The keeper process (`tern keeper --serve`): one thread, one `poll`. While a tern is
//! attached it only holds each pane's descriptors; once that tern's connection drops
//! it reads every held pty into its pane's [`Ring`] (so no program blocks on a full
//! pty) and watches each program's pidfd for its end. The next tern takes the panes
//! back ([`ToKeeper::Take`]). It exits when it holds no pane and no tern is attached.

use std::collections::HashMap;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use base64::Engine;
use rustix::event::{PollFd, PollFlags, poll};
use rustix::io::Errno;

use super::protocol::{
    self, FromKeeper, HeldPane, HeldState, MAX_REQUEST_BYTES, PROTOCOL_VERSION, ToKeeper,
};
use super::ring::{RING_CAP_BYTES, Ring};

/// Panes one keeper holds at most (each is two descriptors and a ring).
pub const MAX_HELD: usize = 1024;
/// How long a request may take to arrive whole once its first byte came.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(2);
/// A keeper nobody attached to in this long after it started goes away.
const FIRST_ATTACH: Duration = Duration::from_secs(10);
/// Largest read from one pty per wake-up (then the next pane's turn).
const READ_BYTES: usize = 64 << 10;

struct Held {
    info: HeldPane,
    master: OwnedFd,
    pidfd: Option<OwnedFd>,
    ring: Ring,
    ran_detached: bool,
    exited: bool,
    /// The pty's other side is gone (every slave descriptor closed).
    hung_up: bool,
}

impl Held {
    fn state(&self) -> HeldState {
        HeldState {
            pane: self.info.clone(),
            ran_detached: self.ran_detached,
            exited: self.exited,
            dropped_bytes: self.ring.dropped(),
            ring_bytes: self.ring.len() as u64,
        }
    }

    fn hang_up(&self) {
        if let Some(fd) = &self.pidfd {
            let _ = rustix::process::pidfd_send_signal(fd, rustix::process::Signal::HUP);
        }
    }
}

/// What the keeper is told at start.
#[derive(Clone, Debug)]
pub struct KeeperOptions {
    pub socket: PathBuf,
    pub ring_cap_bytes: usize,
}

impl KeeperOptions {
    pub fn new(socket: PathBuf) -> KeeperOptions {
        KeeperOptions {
            socket,
            ring_cap_bytes: std::env::var("TERN_KEEPER_RING_BYTES")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(RING_CAP_BYTES),
        }
    }
}

struct Keeper {
    options: KeeperOptions,
    listener: UnixListener,
    owner: Option<UnixStream>,
    held: HashMap<u64, Held>,
    ever_attached: bool,
    started: Instant,
    stop: bool,
}

/// Runs the keeper until it has nothing left to hold. Binding is refused when the
/// socket's folder is not the user's own and private, and when a live keeper answers
/// there already (then this one just ends).
pub fn run(options: KeeperOptions) -> Result<(), String> {
    let _ = rustix::process::setsid();
    // A write to a tern that is gone must be an error, not the end of the keeper.
    // SAFETY: setting a signal's disposition to ignore runs no handler code.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        libc::signal(libc::SIGHUP, libc::SIG_IGN);
    }
    let path = &options.socket.clone();
    if let Some(dir) = path.parent() {
        crate::ipc::server::private_dir(dir).map_err(|e| e.to_string())?;
    }
    if path.exists() {
        if UnixStream::connect(path).is_ok() {
            return Ok(()); // another keeper serves this folder
        }
        std::fs::remove_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let listener =
        crate::ipc::server::bind_listening(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let pid_file = pid_file(path);
    let _ = crate::atomic_file::write_atomic(&pid_file, std::process::id().to_string().as_bytes());
    let mut keeper = Keeper {
        options,
        listener,
        owner: None,
        held: HashMap::new(),
        ever_attached: false,
        started: Instant::now(),
        stop: false,
    };
    keeper.serve();
    // Only our own socket: a newer keeper may have bound the path meanwhile.
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_file(&pid_file);
    Ok(())
}

/// Where the keeper writes its process id (beside its socket).
pub fn pid_file(socket: &Path) -> PathBuf {
    socket.with_extension("pid")
}

impl Keeper {
    fn serve(&mut self) {
        loop {
            if self.stop {
                for h in self.held.values() {
                    h.hang_up();
                }
                return;
            }
            if self.owner.is_none() && self.held.is_empty() {
                let waited = self.started.elapsed();
                if self.ever_attached || waited >= FIRST_ATTACH {
                    return;
                }
            }
            self.round();
        }
    }

    /// One poll and what it found.
    fn round(&mut self) {
        let detached = self.owner.is_none();
        // Indices into `keys` for the held panes polled this round.
        let mut keys = Vec::new();
        let ready: Vec<(usize, PollFlags)> = {
            let mut fds = vec![PollFd::new(&self.listener, PollFlags::IN)];
            if let Some(owner) = &self.owner {
                fds.push(PollFd::new(owner, PollFlags::IN));
            }
            if detached {
                for (key, h) in &self.held {
                    if !h.hung_up {
                        fds.push(PollFd::new(&h.master, PollFlags::IN));
                        keys.push((*key, false));
                    }
                    if let (Some(pidfd), false) = (&h.pidfd, h.exited) {
                        fds.push(PollFd::new(pidfd, PollFlags::IN));
                        keys.push((*key, true));
                    }
                }
            }
            // Nobody attached yet: wake up to give up after FIRST_ATTACH.
            let timeout = (!self.ever_attached).then(|| {
                let left = FIRST_ATTACH.saturating_sub(self.started.elapsed());
                rustix::event::Timespec {
                    tv_sec: left.as_secs() as i64,
                    tv_nsec: i64::from(left.subsec_nanos()),
                }
            });
            match poll(&mut fds, timeout.as_ref()) {
                Ok(_) => {}
                Err(Errno::INTR) => return,
                Err(_) => {
                    std::thread::sleep(Duration::from_millis(10));
                    return;
                }
            }
            fds.iter()
                .enumerate()
                .filter(|(_, f)| !f.revents().is_empty())
                .map(|(i, f)| (i, f.revents()))
                .collect()
        };
        let first_pane = if detached { 1 } else { 2 };
        for (i, flags) in ready {
            match i {
                0 => self.accept(),
                1 if !detached => self.serve_owner(),
                i => {
                    let (key, is_pidfd) = keys[i - first_pane];
                    if is_pidfd {
                        if let Some(h) = self.held.get_mut(&key) {
                            h.exited = true;
                        }
                    } else {
                        self.read_pane(key, flags);
                    }
                }
            }
        }
    }

    fn read_pane(&mut self, key: u64, flags: PollFlags) {
        let Some(h) = self.held.get_mut(&key) else {
            return;
        };
        let mut buf = vec![0u8; READ_BYTES];
        match rustix::io::read(&h.master, &mut buf) {
            Ok(0) => h.hung_up = true,
            Ok(n) => {
                h.ring.push(&buf[..n]);
                h.ran_detached = true;
            }
            Err(Errno::AGAIN) | Err(Errno::INTR) => {
                if flags.contains(PollFlags::HUP) {
                    h.hung_up = true;
                }
            }
            // EIO: the program closed its terminal (it ended).
            Err(_) => h.hung_up = true,
        }
    }

    fn accept(&mut self) {
        let Ok((stream, _)) = self.listener.accept() else {
            return;
        };
        let uid = rustix::process::getuid().as_raw();
        match crate::ipc::peer_uid(&stream) {
            Ok(u) if u == uid => {}
            Ok(u) => {
                let reason = format!("uid {u} may not use this keeper");
                let _ = protocol::send(&stream, &FromKeeper::Refused { reason }, &[]);
                return;
            }
            Err(_) => return,
        }
        let _ = stream.set_read_timeout(Some(REQUEST_TIMEOUT));
        let _ = stream.set_write_timeout(Some(REQUEST_TIMEOUT));
        let Ok((request, _fds)) = protocol::recv::<ToKeeper>(&stream, MAX_REQUEST_BYTES) else {
            return;
        };
        match request {
            ToKeeper::Hello { .. } if self.owner.is_some() => {
                let reason = "another tern is attached to this keeper".to_owned();
                let _ = protocol::send(&stream, &FromKeeper::Refused { reason }, &[]);
            }
            ToKeeper::Hello { .. } => {
                let mut panes: Vec<HeldState> = self.held.values().map(Held::state).collect();
                panes.sort_by_key(|s| s.pane.pane);
                let welcome = FromKeeper::Welcome {
                    protocol: PROTOCOL_VERSION,
                    keeper: crate::model::VERSION.to_owned(),
                    panes,
                };
                if protocol::send(&stream, &welcome, &[]).is_ok() {
                    self.owner = Some(stream);
                    self.ever_attached = true;
                }
            }
            ToKeeper::Stop => {
                let _ = protocol::send(&stream, &FromKeeper::Done, &[]);
                self.stop = true;
            }
            _ => {
                let message = "say hello first".to_owned();
                let _ = protocol::send(&stream, &FromKeeper::Error { message }, &[]);
            }
        }
    }

    fn serve_owner(&mut self) {
        let Some(owner) = self.owner.take() else {
            return;
        };
        let (request, mut fds) = match protocol::recv::<ToKeeper>(&owner, MAX_REQUEST_BYTES) {
            Ok(r) => r,
            // The tern is gone (or spoke garbage): detached from now on.
            Err(_) => return,
        };
        let (answer, pass) = match request {
            ToKeeper::Hold { pane } => {
                if fds.is_empty() {
                    (error("a pane comes with its pty"), Vec::new())
                } else if self.held.len() >= MAX_HELD && !self.held.contains_key(&pane.key) {
                    (
                        error("the keeper holds as many panes as it may"),
                        Vec::new(),
                    )
                } else {
                    let master = fds.remove(0);
                    let pidfd = (!fds.is_empty()).then(|| fds.remove(0));
                    let held = Held {
                        info: pane.clone(),
                        master,
                        pidfd,
                        ring: Ring::new(self.options.ring_cap_bytes),
                        ran_detached: false,
                        exited: false,
                        hung_up: false,
                    };
                    self.held.insert(pane.key, held);
                    (FromKeeper::Done, Vec::new())
                }
            }
            ToKeeper::Release { key } => {
                self.held.remove(&key);
                (FromKeeper::Done, Vec::new())
            }
            ToKeeper::Take { key } => match self.held.get_mut(&key) {
                Some(h) => {
                    let state = h.state();
                    let bytes = base64::engine::general_purpose::STANDARD.encode(h.ring.take());
                    h.ran_detached = false;
                    let mut pass = vec![h.master.as_raw_fd()];
                    pass.extend(h.pidfd.as_ref().map(|p| p.as_fd().as_raw_fd()));
                    (FromKeeper::Taken { state, bytes }, pass)
                }
                None => (error("no such pane"), Vec::new()),
            },
            ToKeeper::Stop => {
                self.stop = true;
                (FromKeeper::Done, Vec::new())
            }
            ToKeeper::Hello { .. } => (error("hello was said already"), Vec::new()),
        };
        if protocol::send(&owner, &answer, &pass).is_ok() {
            self.owner = Some(owner);
        }
    }
}

fn error(message: &str) -> FromKeeper {
    FromKeeper::Error {
        message: message.to_owned(),
    }
}
