//! The model thread's own readiness loop: it waits in `epoll` on every pty master it
//! reads (edge-triggered) and on an `eventfd` that messages ring, so a pty's output
//! wakes the thread that parses it and answers its queries: one wake-up from a query
//! to its reply, with no hop through another thread.
//!
//! ```text
//!   pty masters (EPOLLIN | EPOLLET) ─┐
//!                                    ├─▶ epoll ─▶ model thread: read, parse, reply
//!   ModelTx::send ─▶ eventfd ────────┘            (the eventfd is written only while
//!                                                  the model thread sleeps)
//! ```

use std::mem::MaybeUninit;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering, fence};
use std::sync::mpsc::{self, Receiver, SendError, Sender, TryRecvError};
use std::time::Instant;

use rustix::event::{EventfdFlags, epoll, eventfd};
use rustix::io::Errno;

use super::{ModelMsg, PaneId};

/// The epoll data of the message bell (pane ids start at 1 and never reach it).
const BELL: u64 = u64::MAX;

/// Rung by senders while the model thread sleeps in `epoll_wait`.
#[derive(Debug)]
pub struct Bell {
    fd: OwnedFd,
    /// The model thread is about to wait, or waits, in `epoll_wait`.
    sleeping: AtomicBool,
    /// Messages sent so far, counted before each is queued (see [`Poller::sent`]).
    sent: AtomicU64,
}

impl Bell {
    fn ring_if_sleeping(&self) {
        // Pairs with the fence in `Poller::wait`: either the model thread sees the
        // message the caller just queued, or this sees it sleeping and rings.
        fence(Ordering::SeqCst);
        if self.sleeping.load(Ordering::Relaxed) {
            let _ = rustix::io::write(&self.fd, &1u64.to_ne_bytes());
        }
    }
}

/// The sending side of the model thread's messages: queues the message and wakes the
/// model thread if it sleeps (an atomic load otherwise).
#[derive(Clone, Debug)]
pub struct ModelTx {
    tx: Sender<ModelMsg>,
    bell: Arc<Bell>,
}

impl ModelTx {
    pub fn send(&self, msg: ModelMsg) -> Result<(), SendError<ModelMsg>> {
        self.bell.sent.fetch_add(1, Ordering::SeqCst);
        self.tx.send(msg)?;
        self.bell.ring_if_sleeping();
        Ok(())
    }

    /// Messages sent so far (see [`Poller::sent`]), for a thread that reads for the
    /// model thread.
    pub fn sent(&self) -> u64 {
        self.bell.sent.load(Ordering::SeqCst)
    }
}

/// A new `epoll` set holding a new non-blocking `eventfd` (edge-triggered, reported
/// with `token`): a thread's wait that other threads can ring.
pub fn epoll_with_bell(token: u64) -> std::io::Result<(OwnedFd, OwnedFd)> {
    let epoll = epoll::create(epoll::CreateFlags::CLOEXEC)?;
    let bell = eventfd(0, EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK)?;
    epoll::add(
        &epoll,
        &bell,
        epoll::EventData::new_u64(token),
        epoll::EventFlags::IN | epoll::EventFlags::ET,
    )?;
    Ok((epoll, bell))
}

/// What the model thread waits on: its messages and its ptys.
#[derive(Debug)]
pub struct Poller {
    rx: Receiver<ModelMsg>,
    epoll: OwnedFd,
    bell: Arc<Bell>,
}

impl Poller {
    /// A poller and the sender whose messages wake it.
    pub fn new() -> std::io::Result<(Poller, ModelTx)> {
        let (tx, rx) = mpsc::channel();
        let (epoll, fd) = epoll_with_bell(BELL)?;
        let bell = Arc::new(Bell {
            fd,
            sleeping: AtomicBool::new(false),
            sent: AtomicU64::new(0),
        });
        let poller = Poller {
            rx,
            epoll,
            bell: bell.clone(),
        };
        Ok((poller, ModelTx { tx, bell }))
    }

    /// Watches a pty master for input (edge-triggered: the caller reads until `EAGAIN`
    /// before it counts on the next wake-up).
    pub fn add(&self, pane: PaneId, fd: impl AsFd) -> std::io::Result<()> {
        epoll::add(
            &self.epoll,
            fd,
            epoll::EventData::new_u64(pane.0),
            epoll::EventFlags::IN | epoll::EventFlags::RDHUP | epoll::EventFlags::ET,
        )?;
        Ok(())
    }

    /// How many messages had been sent when this was called. A chunk read after this
    /// returned `n` may hold bytes the child wrote after the sender of message `n + 1`
    /// acted (a resize sends its message before it resizes the pty), so it must not be
    /// parsed before that message is handled; a chunk stamped below `n + 1` holds only
    /// bytes written before.
    pub fn sent(&self) -> u64 {
        self.bell.sent.load(Ordering::SeqCst)
    }

    pub fn remove(&self, fd: impl AsFd) {
        let _ = epoll::delete(&self.epoll, fd);
    }

    /// Panes that became readable since the last call, without waiting.
    pub fn poll(&mut self, ready: &mut Vec<PaneId>) {
        let zero = rustix::event::Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        self.collect(Some(&zero), ready);
    }

    /// The next message, without waiting.
    pub fn try_recv(&self) -> Result<ModelMsg, TryRecvError> {
        self.rx.try_recv()
    }

    /// Sleeps until a pty is readable or a message is sent. Returns the first message
    /// if one was there when the thread announced it sleeps (a message queued before
    /// that did not ring, so it is looked for then); `Empty` after a wake-up (the
    /// messages it may bring are read with [`Poller::try_recv`]).
    pub fn wait(&mut self, ready: &mut Vec<PaneId>) -> Result<ModelMsg, TryRecvError> {
        self.wait_until(None, ready)
    }

    /// Like [`Poller::wait`], but wakes by `deadline` at the latest when there is one
    /// (then `Empty`, and nothing is ready): the end of a hidden flood's rest
    /// (`throttle.rs`), or just before a reply's next input is due (`reply_poll.rs`).
    pub fn wait_until(
        &mut self,
        deadline: Option<Instant>,
        ready: &mut Vec<PaneId>,
    ) -> Result<ModelMsg, TryRecvError> {
        self.bell.sleeping.store(true, Ordering::Relaxed);
        fence(Ordering::SeqCst);
        let first = self.rx.try_recv();
        if matches!(first, Err(TryRecvError::Empty)) {
            let timeout = deadline.map(|d| {
                let left = d.saturating_duration_since(Instant::now());
                rustix::event::Timespec {
                    tv_sec: left.as_secs() as i64,
                    tv_nsec: i64::from(left.subsec_nanos()),
                }
            });
            self.collect(timeout.as_ref(), ready);
        }
        self.bell.sleeping.store(false, Ordering::Relaxed);
        first
    }

    /// Polls (without sleeping) until a pty is readable or a message comes, returned
    /// as [`Poller::wait`] returns them, or until `until` (`None`: nothing came). Between
    /// looks it gives way to whatever else waits for this core: often the tty's flush
    /// worker about to hand over the very input polled for (`reply_poll.rs`).
    pub fn poll_until(
        &mut self,
        until: Instant,
        ready: &mut Vec<PaneId>,
    ) -> Option<Result<ModelMsg, TryRecvError>> {
        loop {
            self.poll(ready);
            if !ready.is_empty() {
                return Some(Err(TryRecvError::Empty));
            }
            match self.rx.try_recv() {
                Err(TryRecvError::Empty) => {}
                other => return Some(other),
            }
            if Instant::now() >= until {
                return None;
            }
            std::thread::yield_now();
        }
    }

    fn collect(&mut self, timeout: Option<&rustix::event::Timespec>, ready: &mut Vec<PaneId>) {
        // More ready ptys than this stay in epoll's ready list for the next call.
        let mut events = [const { MaybeUninit::<epoll::Event>::uninit() }; 64];
        let got = loop {
            match epoll::wait(&self.epoll, &mut events, timeout) {
                Err(Errno::INTR) => continue,
                Ok((got, _)) => break &*got,
                Err(_) => break &[],
            }
        };
        for event in got {
            match event.data.u64() {
                BELL => {
                    let mut count = [0u8; 8];
                    let _ = rustix::io::read(&self.bell.fd, &mut count);
                }
                pane => ready.push(PaneId(pane)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A message sent while the model thread sleeps wakes it (the bell rings), and one
    /// sent before it goes to sleep is seen without waiting: no wake-up is lost.
    #[test]
    fn messages_wake_the_poller_and_none_is_lost() {
        let (mut poller, model_tx) = Poller::new().expect("poller");
        let mut ready = Vec::new();

        model_tx.send(ModelMsg::Shutdown).expect("send");
        assert_eq!(poller.sent(), 1);
        assert!(
            poller.wait(&mut ready).is_ok(),
            "the message queued before the wait is seen"
        );

        let sender = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            model_tx.send(ModelMsg::Shutdown).expect("send");
        });
        // Without the bell this would sleep for ever.
        let got = match poller.wait(&mut ready) {
            Ok(_) => true, // the sender was quicker than the wait
            Err(_) => poller.try_recv().is_ok(),
        };
        assert!(got, "woken by the bell: the message is there");
        assert!(ready.is_empty());
        sender.join().expect("sender");
    }

    /// Polling ends with nothing at its deadline, and at once with a message sent
    /// meanwhile (no bell is rung while the thread polls).
    #[test]
    fn polling_ends_at_its_deadline_or_with_a_message() {
        let (mut poller, model_tx) = Poller::new().expect("poller");
        let mut ready = Vec::new();
        let started = Instant::now();
        let until = started + Duration::from_millis(2);
        assert!(poller.poll_until(until, &mut ready).is_none());
        assert!(Instant::now() >= until && ready.is_empty());
        model_tx.send(ModelMsg::Shutdown).expect("send");
        let got = poller.poll_until(Instant::now() + Duration::from_secs(60), &mut ready);
        assert!(
            matches!(got, Some(Ok(ModelMsg::Shutdown))),
            "the message ends the poll"
        );
    }

    /// A watched pipe that gets bytes is reported readable, once per edge.
    #[test]
    fn a_readable_pty_is_reported_with_its_pane() {
        let (mut poller, _model_tx) = Poller::new().expect("poller");
        let (reader, mut writer) = std::io::pipe().expect("pipe");
        let reader = OwnedFd::from(reader);
        poller.add(PaneId(7), &reader).expect("add");
        let mut ready = Vec::new();
        poller.poll(&mut ready);
        assert!(ready.is_empty());
        std::io::Write::write_all(&mut writer, b"\x1b[6n").expect("write");
        assert!(poller.wait(&mut ready).is_err());
        assert_eq!(ready, vec![PaneId(7)]);
        ready.clear();
        poller.poll(&mut ready);
        assert!(ready.is_empty(), "edge-triggered: reported once until read");
    }
}
