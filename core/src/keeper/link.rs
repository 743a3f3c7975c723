//! The thread that keeps tern's keeper up to date (`tern-keeper`): each pane started
//! is handed over (a duplicate of its pty master and its pidfd), each pane closed is
//! released. It is never on the data path: the pipeline only queues a command here.
//! When the keeper goes away while tern runs, a new one is started and takes every
//! pane over; when none can be had, tern runs as it would without (a breadcrumb).

use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::mpsc;

use rustix::event::{PollFd, PollFlags, poll};

use super::client::{self, AttachError, Attached};
use super::protocol::HeldPane;

/// Writes a breadcrumb (the pipeline's ring).
pub type Note = crate::pipeline::CrumbSink;

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
}

impl Worker {
    fn run(mut self, rx: mpsc::Receiver<LinkCmd>, woken: UnixStream) {
        loop {
            let (wake, gone) = {
                let mut fds = vec![PollFd::new(&woken, PollFlags::IN)];
                if let Some(c) = &self.conn {
                    fds.push(PollFd::new(c.stream(), PollFlags::IN));
                }
                if poll(&mut fds, None).is_err() {
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

    /// Attaches to the keeper (starting one when none runs) and hands it every pane.
    fn reconnect(&mut self) {
        if self.held.is_empty() {
            return; // the next pane started brings it back
        }
        let attached = match client::attach(&self.config.socket) {
            Err(AttachError::NoKeeper) => match &self.config.exe {
                Some(exe) => client::start_keeper(exe, &self.config.socket)
                    .map_err(AttachError::Refused)
                    .and_then(|()| client::attach(&self.config.socket)),
                None => Err(AttachError::NoKeeper),
            },
            other => other,
        };
        let conn = match attached {
            Ok(c) => c,
            Err(e) => {
                (self.config.note)(format!("keeper: none ({e}); programs end with this tern"));
                return;
            }
        };
        for (pane, master, pidfd) in self.held.values() {
            if let Err(e) = conn.hold(pane, master, pidfd.as_ref()) {
                (self.config.note)(format!("keeper: cannot hand pane {} over: {e}", pane.pane));
                return;
            }
        }
        (self.config.note)(format!("keeper: holds {} panes", self.held.len()));
        self.conn = Some(conn);
    }
}
