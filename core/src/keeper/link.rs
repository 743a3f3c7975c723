//! The thread that keeps tern's keeper up to date (`tern-keeper`): each pane started
//! is handed over (a duplicate of its pty master and its pidfd), each pane closed is
//! released. It is never on the data path: the pipeline only queues a command here.
//! When the keeper goes away while tern runs, a new one is started and takes every
//! pane over; when none can be had, tern runs as it would without (a breadcrumb) and
//! tries again, less and less often (a keeper killed before tern attached, a start
//! that lost a race, a runtime folder briefly unusable).

use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, poll};

use super::client::{self, AttachError, Attached};
use super::protocol::HeldPane;

/// Writes a breadcrumb (the pipeline's ring).
pub type Note = crate::pipeline::CrumbSink;

/// The first wait before trying again for a keeper; each failure doubles it.
const FIRST_RETRY: Duration = Duration::from_millis(250);
/// The longest wait between tries.
const LAST_RETRY: Duration = Duration::from_secs(30);

/// Where the keeper is and how to start one.
pub struct LinkConfig {
    pub socket: PathBuf,
    /// The `tern` binary that starts a keeper (`None`: attach only, never start one).
    pub exe: Option<PathBuf>,
    pub note: Note,
}

enum LinkCmd {
    Hold {
        pane: HeldPane,
        master: OwnedFd,
        pidfd: Option<OwnedFd>,
    },
    Release(u64),
    /// Release everything and stop (tern ends its programs).
    End,
    /// Leave everything with the keeper and stop (programs outlive tern).
    Detach,
}

/// The pipeline's handle on the `tern-keeper` thread.
pub struct Link {
    tx: mpsc::Sender<LinkCmd>,
    wake: UnixStream,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Link {
    /// Starts the thread, on `attached` when tern attached already (a start that took
    /// panes back).
    pub fn start(config: LinkConfig, attached: Option<Attached>) -> std::io::Result<Link> {
        let (tx, rx) = mpsc::channel();
        let (wake, woken) = UnixStream::pair()?;
        let thread = std::thread::Builder::new()
            .name("tern-keeper".into())
            .spawn(move || {
                Worker {
                    config,
                    conn: attached,
                    held: HashMap::new(),
                    retry: None,
                }
                .run(rx, woken)
            })?;
        Ok(Link {
            tx,
            wake,
            thread: Some(thread),
        })
    }

    fn send(&self, cmd: LinkCmd) {
        if self.tx.send(cmd).is_ok() {
            let _ = (&self.wake).write(&[1]);
        }
    }

    pub fn hold(&self, pane: HeldPane, master: OwnedFd, pidfd: Option<OwnedFd>) {
        self.send(LinkCmd::Hold {
            pane,
            master,
            pidfd,
        });
    }

    pub fn release(&self, key: u64) {
        self.send(LinkCmd::Release(key));
    }

    /// Releases every pane (their programs end with tern) and waits for the thread.
    pub fn end(mut self) {
        self.send(LinkCmd::End);
        self.join();
    }

    /// Leaves every pane with the keeper (their programs outlive tern) and waits.
    pub fn detach(mut self) {
        self.send(LinkCmd::Detach);
        self.join();
    }

    fn join(&mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl crate::pipeline::Keep for Link {
    fn hold(&self, pane: crate::pipeline::KeptPane, master: OwnedFd, pidfd: Option<OwnedFd>) {
        let held = HeldPane {
            key: pane.key,
            pane: pane.pane,
            pid: pane.pid,
            what: pane.what,
            cwd: None,
        };
        Link::hold(self, held, master, pidfd);
    }

    fn release(&self, key: u64) {
        Link::release(self, key);
    }

    fn end(self: Box<Self>) {
        Link::end(*self);
    }

    fn detach(self: Box<Self>) {
        Link::detach(*self);
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        if self.thread.is_some() {
            self.send(LinkCmd::End);
            self.join();
        }
    }
}

struct Worker {
    config: LinkConfig,
    conn: Option<Attached>,
    held: HashMap<u64, (HeldPane, OwnedFd, Option<OwnedFd>)>,
    /// With no keeper and panes to hand over: when to try again, and the wait after.
    retry: Option<(Instant, Duration)>,
}

impl Worker {
    fn run(mut self, rx: mpsc::Receiver<LinkCmd>, woken: UnixStream) {
        loop {
            let (wake, gone) = {
                let mut fds = vec![PollFd::new(&woken, PollFlags::IN)];
                if let Some(c) = &self.conn {
                    fds.push(PollFd::new(c.stream(), PollFlags::IN));
                }
                let timeout = self.retry.map(|(at, _)| {
                    let left = at.saturating_duration_since(Instant::now());
                    rustix::event::Timespec {
                        tv_sec: left.as_secs() as i64,
                        tv_nsec: i64::from(left.subsec_nanos()),
                    }
                });
                if poll(&mut fds, timeout.as_ref()).is_err() {
                    continue;
                }
                (
                    !fds[0].revents().is_empty(),
                    fds.get(1).is_some_and(|f| !f.revents().is_empty()),
                )
            };
            if gone {
                // The keeper never speaks first: readable means it went away.
                self.conn = None;
                (self.config.note)("keeper: it went away; a new one takes the panes over".into());
                self.reconnect();
            }
            if self.conn.is_none() && self.retry.is_some_and(|(at, _)| Instant::now() >= at) {
                self.reconnect();
            }
            if wake {
                let mut buf = [0u8; 64];
                let _ = (&woken).read(&mut buf);
            }
            while let Ok(cmd) = rx.try_recv() {
                match cmd {
                    LinkCmd::Hold {
                        pane,
                        master,
                        pidfd,
                    } => {
                        let key = pane.key;
                        let sent = match &self.conn {
                            Some(c) => c.hold(&pane, &master, pidfd.as_ref()),
                            None => Err("no keeper".into()),
                        };
                        self.held.insert(key, (pane, master, pidfd));
                        if sent.is_err() {
                            self.conn = None;
                            self.reconnect();
                        }
                    }
                    LinkCmd::Release(key) => {
                        self.held.remove(&key);
                        if let Some(c) = &self.conn
                            && c.release(key).is_err()
                        {
                            self.conn = None;
                            self.reconnect();
                        }
                    }
                    LinkCmd::End => {
                        if let Some(c) = &self.conn {
                            for key in self.held.keys() {
                                if c.release(*key).is_err() {
                                    break;
                                }
                            }
                        }
                        return;
                    }
                    LinkCmd::Detach => return,
                }
            }
        }
    }

    /// Attaches to the keeper (starting one when none runs) and hands it every pane;
    /// when that fails, sets when to try again.
    fn reconnect(&mut self) {
        if self.held.is_empty() {
            self.retry = None;
            return; // the next pane started brings it back
        }
        match self.try_reconnect() {
            Ok(()) => self.retry = None,
            Err(why) => {
                let after = match self.retry {
                    None => {
                        (self.config.note)(format!(
                            "keeper: none ({why}); programs end with this tern unless one \
                             can be had: trying again"
                        ));
                        FIRST_RETRY
                    }
                    Some((_, after)) => after,
                };
                self.retry = Some((Instant::now() + after, (after * 2).min(LAST_RETRY)));
            }
        }
    }

    fn try_reconnect(&mut self) -> Result<(), String> {
        let attached = match client::attach(&self.config.socket) {
            Err(AttachError::NoKeeper) => match &self.config.exe {
                Some(exe) => client::start_keeper(exe, &self.config.socket)
                    .map_err(AttachError::Refused)
                    .and_then(|()| client::attach(&self.config.socket)),
                None => Err(AttachError::NoKeeper),
            },
            other => other,
        };
        let conn = attached.map_err(|e| e.to_string())?;
        for (pane, master, pidfd) in self.held.values() {
            conn.hold(pane, master, pidfd.as_ref())
                .map_err(|e| format!("cannot hand pane {} over: {e}", pane.pane))?;
        }
        (self.config.note)(format!("keeper: holds {} panes", self.held.len()));
        self.conn = Some(conn);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keeper::protocol::{
        self, FromKeeper, MAX_REQUEST_BYTES, PROTOCOL_VERSION, ToKeeper,
    };
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::net::UnixListener;
    use std::sync::{Arc, Mutex};

    /// A keeper that cannot be had (its start fails: killed before tern attached, a
    /// runtime folder briefly unusable) is tried again, each failed start said at
    /// once rather than after the start's deadline, until one holds every pane.
    #[test]
    fn a_keeper_that_cannot_be_had_at_first_is_tried_again_until_one_holds_the_panes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let socket = dir.path().join("keeper.sock");
        let tries = dir.path().join("tries");
        let exe = dir.path().join("a-tern-whose-keeper-fails");
        std::fs::write(
            &exe,
            format!("#!/bin/sh\necho try >> '{}'\nexit 1\n", tries.display()),
        )
        .unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let notes = Arc::new(Mutex::new(Vec::<String>::new()));
        let note: Note = {
            let notes = notes.clone();
            Arc::new(move |n| notes.lock().unwrap().push(n))
        };
        let link = Link::start(
            LinkConfig {
                socket: socket.clone(),
                exe: Some(exe),
                note,
            },
            None,
        )
        .unwrap();
        let pane = HeldPane {
            key: 77,
            pane: 3,
            pid: None,
            what: "sh".into(),
            cwd: None,
        };
        let master: OwnedFd = std::fs::File::open("/dev/null").unwrap().into();
        link.hold(pane, master, None);
        let tried = || {
            std::fs::read_to_string(&tries)
                .map(|t| t.lines().count())
                .unwrap_or(0)
        };
        // Three starts within far less than one start's deadline (30 s).
        let began = Instant::now();
        while tried() < 3 {
            assert!(
                began.elapsed() < Duration::from_secs(20),
                "tried {} times in {:?}; notes: {:?}",
                tried(),
                began.elapsed(),
                notes.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(
            notes
                .lock()
                .unwrap()
                .iter()
                .filter(|n| n.contains("trying again"))
                .count(),
            1,
            "the failure is said once: {:?}",
            notes.lock().unwrap()
        );
        // A keeper comes: the next try attaches and hands the pane over.
        let listener = UnixListener::bind(&socket).unwrap();
        std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600)).unwrap();
        // (A start under way when it came probes it with a connection that says nothing.)
        let stream = loop {
            let (stream, _) = listener.accept().unwrap();
            match protocol::recv::<ToKeeper>(&stream, MAX_REQUEST_BYTES) {
                Ok((ToKeeper::Hello { .. }, _)) => break stream,
                Ok((other, _)) => panic!("not a hello: {other:?}"),
                Err(_) => continue,
            }
        };
        let welcome = FromKeeper::Welcome {
            protocol: PROTOCOL_VERSION,
            keeper: "test".into(),
            panes: Vec::new(),
        };
        protocol::send(&stream, &welcome, &[]).unwrap();
        let (hold, fds) = protocol::recv::<ToKeeper>(&stream, MAX_REQUEST_BYTES).unwrap();
        match hold {
            ToKeeper::Hold { pane } => assert_eq!(pane.key, 77),
            other => panic!("not a hold: {other:?}"),
        }
        assert_eq!(fds.len(), 1, "the pty master comes with it");
        protocol::send(&stream, &FromKeeper::Done, &[]).unwrap();
        let began = Instant::now();
        while !notes
            .lock()
            .unwrap()
            .iter()
            .any(|n| n == "keeper: holds 1 panes")
        {
            assert!(
                began.elapsed() < Duration::from_secs(20),
                "{:?}",
                notes.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        link.detach();
    }
}
