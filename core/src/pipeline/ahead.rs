//! Reading ahead of the parser while a pty floods.
//!
//! The model thread reads its ptys itself (`reader.rs`): a query and its answer take one
//! wake-up of one thread. Under a flood that costs throughput: a pty read returns at
//! most the line discipline's 4 KiB and costs about as much kernel time as parsing what
//! it returns, and the model thread did both in turn while the other core idled. So a
//! pane whose reads keep coming back full ([`AHEAD_AFTER_BYTES`] read with no `EAGAIN`
//! in between) is handed to this thread, which only reads: into the pane's inbox,
//! within the same credit window, while the model thread parses what came before.
//!
//! ```text
//!   direct:  pty ──read──▶ model thread: parse, reply          (one wake-up)
//!   ahead:   pty ──read──▶ tern-read ──inbox──▶ model thread: parse, reply
//!                            │  AheadData (only when the model has emptied the inbox)
//!                            └─ hands the pane back on the first small burst
//! ```
//!
//! The pane comes back to the model thread when a burst (the bytes from a wake-up to
//! `EAGAIN`) is under [`INTERACTIVE_BYTES`]: the flood is over and what comes now is
//! interactive (an echo, a prompt, a query), which the direct path answers in one
//! wake-up again. The model thread can also take it back at any time
//! ([`AheadPane::stop`]): it waits for a read in progress, so no byte is read by both
//! threads or queued out of order.

use std::collections::{HashMap, VecDeque};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering, fence};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Instant;

use rustix::event::epoll;
use rustix::io::Errno;

use super::chunk::Chunk;
use super::credit::Credit;
use super::io::{BufferPool, READ_CHUNK};
use super::reader::{INTERACTIVE_BYTES, end_error, read_appending};
use super::readiness::{ModelTx, epoll_with_bell};
use super::{ModelMsg, PaneId};

/// Bytes a pane's direct reads bring with no `EAGAIN` in between before it is read
/// ahead: sixteen full reads of the line discipline's 4 KiB buffer. Interactive output
/// (a prompt, an echo, a screen redraw, a query's burst) stays far under it.
pub const AHEAD_AFTER_BYTES: u64 = 64 * 1024;

/// A new read goes into the inbox's newest chunk while that has this much room left
/// (and no message came between), so a window of in-flight bytes is a few buffers, not
/// one 64 KiB buffer per 4 KiB read.
const APPEND_ROOM: usize = 4096;

/// The epoll data of the thread's bell.
const BELL: u64 = u64::MAX;

/// What the model thread takes out of a pane's inbox.
#[derive(Default)]
pub(crate) struct Taken {
    /// Bytes read ahead, in the order they were read.
    pub chunks: Vec<Chunk>,
    /// The pty ended while read ahead (end of file, or the error that ended it).
    pub ended: Option<Option<String>>,
    /// The pane is no longer read ahead: the model thread reads it again.
    pub back: bool,
}

#[derive(Default)]
struct Inbox {
    chunks: VecDeque<Chunk>,
    ended: Option<Option<String>>,
}

/// One pane read ahead: shared by the model thread and the reading thread.
pub struct AheadPane {
    pane: PaneId,
    fd: Arc<OwnedFd>,
    credit: Arc<Credit>,
    /// Whether this thread reads the pane. Held across each read, so the model thread
    /// setting it false ([`AheadPane::stop`]) waits for a read in progress.
    reading: Mutex<bool>,
    inbox: Mutex<Inbox>,
    /// An `AheadData` message is on its way (or the model thread has not yet emptied
    /// the inbox since the last): no other is sent.
    told: AtomicBool,
    /// The reading thread stopped because the window was full; the model thread rings
    /// it once the window has room (see [`AheadPane::starved_with_room`]).
    starved: AtomicBool,
    /// The reading thread gave the pane back (or its pty ended); set after its last
    /// chunk was queued.
    back: AtomicBool,
    /// The reading thread's last read found the pty empty: the flood paused (set before
    /// it waits, cleared when a read brings bytes). The model thread catching up with
    /// the reading thread is not a pause: it parses faster than the kernel hands over.
    paused: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Neither lock is held across anything that can panic half-way.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl AheadPane {
    pub fn new(pane: PaneId, fd: Arc<OwnedFd>, credit: Arc<Credit>) -> Arc<AheadPane> {
        Arc::new(AheadPane {
            pane,
            fd,
            credit,
            reading: Mutex::new(true),
            inbox: Mutex::default(),
            told: AtomicBool::new(false),
            starved: AtomicBool::new(false),
            back: AtomicBool::new(false),
            paused: AtomicBool::new(false),
        })
    }

    /// Everything read ahead so far, and whether the reading thread gave the pane back.
    /// The model thread calls this on `AheadData` and once per round; it never waits for
    /// a read in progress.
    pub(crate) fn take(&self) -> Taken {
        // Cleared before emptying: a chunk queued after this is told again.
        self.told.store(false, Ordering::SeqCst);
        // Looked at before emptying: once set, every chunk is already in the inbox.
        let back = self.back.load(Ordering::SeqCst);
        let mut inbox = lock(&self.inbox);
        Taken {
            chunks: inbox.chunks.drain(..).collect(),
            ended: inbox.ended.take(),
            back,
        }
    }

    /// Stops reading ahead: returns once no read is in progress and none will start, so
    /// the inbox ([`AheadPane::take`]) then holds every byte read here.
    pub fn stop(&self) {
        *lock(&self.reading) = false;
        self.back.store(true, Ordering::SeqCst);
    }

    /// The reading thread waits for room that the model thread's parsing has now made:
    /// clears the flag so that exactly one caller rings the thread.
    /// Whether the reading thread found the pty empty since its last bytes (see
    /// `paused`).
    pub fn is_paused(&self) -> bool {
        self.paused.load(Ordering::Relaxed)
    }

    pub fn starved_with_room(&self) -> bool {
        fence(Ordering::SeqCst);
        self.starved.load(Ordering::SeqCst)
            && self.credit.room() > 0
            && self.starved.swap(false, Ordering::SeqCst)
    }

    fn queue(&self, data: Vec<u8>, read_at: Instant, sent_before: u64) {
        lock(&self.inbox).chunks.push_back(Chunk {
            data,
            offset: 0,
            read_at,
            sent_before,
        });
    }

    /// The inbox's newest chunk if a read may go on filling it.
    fn reopen_newest(&self, sent: u64) -> Option<Chunk> {
        let mut inbox = lock(&self.inbox);
        let newest = inbox.chunks.back()?;
        let room = newest.data.capacity() - newest.data.len();
        if newest.sent_before != sent || room < APPEND_ROOM {
            return None;
        }
        inbox.chunks.pop_back()
    }
}

struct Shared {
    epoll: OwnedFd,
    bell: OwnedFd,
    /// Panes handed over since the thread last looked.
    new: Mutex<Vec<Arc<AheadPane>>>,
    stop: AtomicBool,
}

impl Shared {
    fn ring(&self) {
        let _ = rustix::io::write(&self.bell, &1u64.to_ne_bytes());
    }
}

/// The reading thread (`tern-read`), started when a pane first floods. Dropping this
/// stops it.
pub struct ReadAhead {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl ReadAhead {
    pub fn start(model: ModelTx, buffers: Arc<BufferPool>) -> std::io::Result<ReadAhead> {
        let (epoll, bell) = epoll_with_bell(BELL)?;
        let shared = Arc::new(Shared {
            epoll,
            bell,
            new: Mutex::default(),
            stop: AtomicBool::new(false),
        });
        let reader = Reader {
            shared: shared.clone(),
            model,
            buffers,
            panes: HashMap::new(),
        };
        let thread = std::thread::Builder::new()
            .name("tern-read".into())
            .spawn(move || reader.run())?;
        Ok(ReadAhead {
            shared,
            thread: Some(thread),
        })
    }

    /// Starts reading `pane` ahead (the caller no longer reads it).
    pub fn hand_over(&self, pane: Arc<AheadPane>) {
        lock(&self.shared.new).push(pane);
        self.shared.ring();
    }

    /// Wakes the thread: a window has room again, or a pane was stopped.
    pub fn ring(&self) {
        self.shared.ring();
    }
}

impl Drop for ReadAhead {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.shared.ring();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

struct Watched {
    pane: Arc<AheadPane>,
    /// epoll reported input and no read has hit `EAGAIN` since.
    readable: bool,
    /// Bytes read since the last `EAGAIN`.
    burst: usize,
}

/// What one read ahead did.
enum Step {
    Read,
    /// Drained (`EAGAIN`), the window is full, or the pane is no longer read here.
    Wait,
    Drop,
}

struct Reader {
    shared: Arc<Shared>,
    model: ModelTx,
    buffers: Arc<BufferPool>,
    panes: HashMap<u64, Watched>,
}

impl Reader {
    fn run(mut self) {
        let mut events = [const { MaybeUninit::<epoll::Event>::uninit() }; 64];
        while !self.shared.stop.load(Ordering::SeqCst) {
            let got = match epoll::wait(&self.shared.epoll, &mut events, None) {
                Ok((got, _)) => &*got,
                Err(Errno::INTR) => continue,
                Err(_) => return,
            };
            let mut rung = false;
            for event in got {
                match event.data.u64() {
                    BELL => rung = true,
                    id => {
                        if let Some(w) = self.panes.get_mut(&id) {
                            w.readable = true;
                        }
                    }
                }
            }
            if rung {
                let mut count = [0u8; 8];
                let _ = rustix::io::read(&self.shared.bell, &mut count);
                self.adopt();
            }
            self.read_all();
        }
    }

    fn adopt(&mut self) {
        let new = std::mem::take(&mut *lock(&self.shared.new));
        for pane in new {
            let id = pane.pane.0;
            let added = epoll::add(
                &self.shared.epoll,
                pane.fd.as_fd(),
                epoll::EventData::new_u64(id),
                epoll::EventFlags::IN | epoll::EventFlags::RDHUP | epoll::EventFlags::ET,
            );
            if added.is_err() {
                // Give it back: the model thread reads it directly again.
                pane.stop();
                Self::tell_model(&self.model, &pane);
                continue;
            }
            self.panes.insert(
                id,
                Watched {
                    pane,
                    // Bytes may wait that raised their edge before the pane came here.
                    readable: true,
                    burst: 0,
                },
            );
        }
    }

    fn read_all(&mut self) {
        let mut gone = Vec::new();
        for (&id, w) in &mut self.panes {
            loop {
                match Self::read_one(w, &self.model, &self.buffers) {
                    Step::Read => {}
                    Step::Wait => {
                        // The flood paused: the model thread may scan the screen now
                        // (a question at its end), so it hears of it.
                        if w.pane.is_paused() {
                            Self::tell_model(&self.model, &w.pane);
                        }
                        break;
                    }
                    Step::Drop => {
                        gone.push(id);
                        break;
                    }
                }
                Self::tell_model(&self.model, &w.pane);
            }
        }
        for id in gone {
            if let Some(w) = self.panes.remove(&id) {
                let _ = epoll::delete(&self.shared.epoll, w.pane.fd.as_fd());
                Self::tell_model(&self.model, &w.pane);
            }
        }
    }

    /// Tells the model thread the inbox has something, unless it was told already.
    fn tell_model(model: &ModelTx, pane: &AheadPane) {
        if !pane.told.swap(true, Ordering::SeqCst) {
            let _ = model.send(ModelMsg::AheadData { pane: pane.pane });
        }
    }

    fn read_one(w: &mut Watched, model: &ModelTx, buffers: &BufferPool) -> Step {
        let pane = &w.pane;
        // Held to the end: `AheadPane::stop` waits for this read and its chunk.
        let mut reading = lock(&pane.reading);
        if !*reading {
            return Step::Drop;
        }
        if !w.readable {
            return Step::Wait;
        }
        let mut room = pane.credit.room() as usize;
        if room == 0 {
            pane.starved.store(true, Ordering::SeqCst);
            fence(Ordering::SeqCst);
            room = pane.credit.room() as usize;
            if room == 0 || !pane.starved.swap(false, Ordering::SeqCst) {
                // The model thread rings once it has parsed (`starved_with_room`).
                pane.credit.set_paused(true);
                return Step::Wait;
            }
        }
        pane.credit.set_paused(false);
        let sent = model.sent();
        let (mut buf, read_at, sent_before) = match pane.reopen_newest(sent) {
            Some(c) => (c.data, c.read_at, c.sent_before),
            None => (buffers.get(), Instant::now(), sent),
        };
        let mut ended = None;
        let step = match read_appending(pane.fd.as_fd(), &mut buf, room.min(READ_CHUNK)) {
            Ok(0) => {
                ended = Some(None);
                Step::Drop
            }
            Ok(n) => {
                pane.credit.on_read(n as u64);
                pane.paused.store(false, Ordering::Relaxed);
                w.burst += n;
                Step::Read
            }
            Err(Errno::AGAIN) => {
                w.readable = false;
                pane.paused.store(true, Ordering::Relaxed);
                if std::mem::take(&mut w.burst) < INTERACTIVE_BYTES {
                    // The flood is over: the model thread reads the pane again.
                    Step::Drop
                } else {
                    Step::Wait
                }
            }
            Err(e) => {
                ended = Some(end_error(e));
                Step::Drop
            }
        };
        if buf.is_empty() {
            buffers.put(buf);
        } else {
            pane.queue(buf, read_at, sent_before);
        }
        if ended.is_some() {
            lock(&pane.inbox).ended = ended;
        }
        if matches!(step, Step::Drop) {
            // After the last chunk is queued, under the reading lock.
            *reading = false;
            pane.back.store(true, Ordering::SeqCst);
        }
        step
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::readiness::Poller;
    use std::io::Write;
    use std::time::Duration;

    /// A pipe whose read end is non-blocking and holds up to 1 MiB (so a test can
    /// write its whole flood before the reading starts: no `EAGAIN` half-way).
    fn big_pipe() -> (Arc<OwnedFd>, std::io::PipeWriter) {
        let (reader, writer) = std::io::pipe().expect("pipe");
        let fd = OwnedFd::from(reader);
        rustix::pipe::fcntl_setpipe_size(&fd, 1 << 20).expect("pipe size");
        rustix::io::ioctl_fionbio(&fd, true).expect("non-blocking");
        (Arc::new(fd), writer)
    }

    /// Waits (at most 10 s) for the reading thread's next `AheadData`.
    fn wait_told(poller: &mut Poller) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(ModelMsg::AheadData { .. }) = poller.try_recv() {
                return;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        panic!("the reading thread told nothing for 10 s");
    }

    /// A flood read ahead through a small window: every byte arrives once and in
    /// order, no more than the window is ever in flight (the thread waits for room and
    /// is rung when parsing made some), and the end of the pty gives the pane back.
    #[test]
    fn a_flood_arrives_whole_and_in_order_within_the_window() {
        let (mut poller, tx) = Poller::new().expect("poller");
        let (fd, mut writer) = big_pipe();
        let flood: Vec<u8> = (0..600_000u32).map(|i| (i % 251) as u8).collect();
        writer.write_all(&flood).expect("write");
        drop(writer);
        let credit = Arc::new(Credit::new(8192));
        let reader = ReadAhead::start(tx, Arc::new(BufferPool::default())).expect("thread");
        let pane = AheadPane::new(PaneId(3), fd, credit.clone());
        reader.hand_over(pane.clone());
        let mut got = Vec::new();
        let mut max_in_flight = 0;
        let ended = loop {
            wait_told(&mut poller);
            max_in_flight = max_in_flight.max(credit.in_flight());
            let taken = pane.take();
            for chunk in taken.chunks {
                got.extend_from_slice(&chunk.data);
            }
            // "Parsed": the window has room again.
            credit.on_parsed(got.len() as u64);
            if pane.starved_with_room() {
                reader.ring();
            }
            if let Some(end) = taken.ended {
                assert!(taken.back, "an ended pty is given back");
                break end;
            }
            assert!(!taken.back, "a flood is not given back before its end");
        };
        assert_eq!(ended, None, "end of file, no error");
        assert!(
            got == flood,
            "{} bytes of {} arrived in order",
            got.len(),
            flood.len()
        );
        assert!(max_in_flight <= 8192, "in flight {max_in_flight}");
        assert!(
            credit.times_paused() > 0,
            "the window filled and was waited for"
        );
    }

    /// After the flood, the first small burst gives the pane back to the model thread
    /// with that burst in the inbox; `stop` takes a pane back at once.
    #[test]
    fn a_small_burst_after_a_flood_gives_the_pane_back() {
        let (mut poller, tx) = Poller::new().expect("poller");
        let (fd, mut writer) = big_pipe();
        writer.write_all(&[b'x'; 100_000]).expect("write");
        let credit = Arc::new(Credit::new(1 << 20));
        let reader = ReadAhead::start(tx, Arc::new(BufferPool::default())).expect("thread");
        let pane = AheadPane::new(PaneId(4), fd, credit.clone());
        reader.hand_over(pane.clone());
        let mut flood = 0;
        while flood < 100_000 {
            wait_told(&mut poller);
            let taken = pane.take();
            assert!(!taken.back, "a big burst keeps the pane");
            flood += taken.chunks.iter().map(|c| c.data.len()).sum::<usize>();
        }
        assert_eq!(flood, 100_000);
        // The thread reads the whole flood in one loop and hits EAGAIN right after
        // (`is_paused`). No clock: a pane handed over next is read in a later pass, so
        // once it is read, the pass that met the EAGAIN is over and a pane given back
        // would say so.
        let deadline = Instant::now() + Duration::from_secs(10);
        while !pane.is_paused() {
            assert!(Instant::now() < deadline, "the flood never drained");
            std::thread::yield_now();
        }
        let (fd, mut marker_writer) = big_pipe();
        marker_writer.write_all(b"marker").expect("write");
        let marker_credit = Arc::new(Credit::new(1 << 20));
        reader.hand_over(AheadPane::new(PaneId(7), fd, marker_credit.clone()));
        while marker_credit.read_total() < 6 {
            assert!(Instant::now() < deadline, "the marker pane was never read");
            std::thread::yield_now();
        }
        assert!(
            !pane.take().back,
            "drained after a big burst: still read ahead"
        );
        writer.write_all(b"$ prompt").expect("write");
        let mut echo = Vec::new();
        // Told once for the bytes and once more when the `EAGAIN` after them gives the
        // pane back (if the model thread emptied the inbox in between).
        loop {
            wait_told(&mut poller);
            let taken = pane.take();
            echo.extend(taken.chunks.into_iter().flat_map(|c| c.data));
            if taken.back {
                break;
            }
        }
        assert_eq!(
            echo, b"$ prompt",
            "the small burst, then the pane is given back"
        );
        assert_eq!(credit.read_total(), 100_008);

        // Taken back by the model thread: nothing more is read ahead.
        let (fd, mut writer) = big_pipe();
        let other_credit = Arc::new(Credit::new(1 << 20));
        let other = AheadPane::new(PaneId(5), fd, other_credit.clone());
        reader.hand_over(other.clone());
        other.stop();
        writer.write_all(&[b'y'; 5000]).expect("write");
        // No clock: a third pane handed over after the write is read by a pass of the
        // thread that also finds the stopped one's bytes; once that pass has read the
        // third, the stopped one was passed over.
        let (fd, mut third_writer) = big_pipe();
        third_writer.write_all(&[b'z'; 5000]).expect("write");
        let third_credit = Arc::new(Credit::new(1 << 20));
        let third = AheadPane::new(PaneId(6), fd, third_credit.clone());
        reader.hand_over(third.clone());
        let deadline = Instant::now() + Duration::from_secs(10);
        while third_credit.read_total() < 5000 {
            assert!(Instant::now() < deadline, "the third pane was never read");
            std::thread::yield_now();
        }
        assert_eq!(other_credit.read_total(), 0, "stopped: not read here");
        let taken = other.take();
        assert!(
            taken.back && taken.chunks.is_empty(),
            "stopped: not read here"
        );
    }
}
