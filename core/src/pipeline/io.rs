//! The I/O pool: one small tokio runtime on one thread drains every pty's write queue
//! through `AsyncFd` (non-blocking) and waits for every child's exit. No thread per
//! pty. The model thread reads the ptys itself (`reader.rs`, `readiness.rs`).

use std::collections::{HashMap, VecDeque};
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use portable_pty::Child;
use rustix::io::Errno;
use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::sync::{Notify, mpsc};
use tokio::task::JoinHandle;

use super::diag::Breadcrumbs;
use super::readiness::ModelTx;
use super::{ExitInfo, ModelMsg, PaneId};

/// How long a closed pane's program has to end after SIGHUP before its process group
/// gets SIGKILL.
pub const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// The child process of a pane, shared by its reader (which waits for it after EOF)
/// and the pool (which reaps it when the pane is closed first).
type ChildSlot = Arc<Mutex<Option<Box<dyn Child + Send + Sync>>>>;

/// Largest single read.
pub const READ_CHUNK: usize = 64 * 1024;

/// Recycled read buffers, so a steady flood allocates nothing.
#[derive(Debug, Default)]
pub struct BufferPool {
    free: Mutex<Vec<Vec<u8>>>,
}

impl BufferPool {
    const MAX_FREE: usize = 256;

    pub fn get(&self) -> Vec<u8> {
        self.free
            .lock()
            .ok()
            .and_then(|mut f| f.pop())
            .unwrap_or_else(|| Vec::with_capacity(READ_CHUNK))
    }

    pub fn put(&self, mut buf: Vec<u8>) {
        if buf.capacity() < READ_CHUNK {
            return;
        }
        buf.clear();
        if let Ok(mut f) = self.free.lock()
            && f.len() < Self::MAX_FREE
        {
            f.push(buf);
        }
    }
}

/// Past this many bytes waiting in a pty's write queue (replies and input the program
/// has not read), the model stops parsing the pane: its credit stops, so the reader
/// stops and the program blocks on its output, until the queue drains to
/// [`WRITE_QUEUE_LOW_BYTES`]. Nothing is dropped. Writers that can wait
/// ([`PtyWriter::write_when_room`]) wait at the same mark.
pub const WRITE_QUEUE_HIGH_BYTES: usize = 1 << 20;

/// Where a paused pane's parsing (and waiting writers) resume.
pub const WRITE_QUEUE_LOW_BYTES: usize = 256 * 1024;

/// Called (on the pool thread) when a pane paused for its write queue may go on.
pub type OnDrained = Box<dyn Fn() + Send + Sync>;

/// The write side of one pty: input from the UI and replies from the model share one
/// ordered queue. Whoever finds the queue empty writes straight to the pty
/// (non-blocking); what does not fit is queued for the pool's writer task. The queue is
/// bounded by backpressure, not by dropping: see [`WRITE_QUEUE_HIGH_BYTES`].
pub struct PtyWriter {
    fd: Arc<OwnedFd>,
    queue: Mutex<VecDeque<u8>>,
    wake: Notify,
    closed: AtomicBool,
    /// The model paused the pane for this queue (changed only with `queue` locked, so a
    /// drain cannot slip between the check and the pause).
    paused: AtomicBool,
    /// Signalled when the queue drains under the low-water mark or the pty closes.
    room: Condvar,
    on_drained: OnDrained,
}

impl std::fmt::Debug for PtyWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PtyWriter")
            .field("queued_bytes", &self.queued_bytes())
            .field("paused", &self.paused.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl PtyWriter {
    pub fn new(fd: Arc<OwnedFd>, on_drained: OnDrained) -> PtyWriter {
        PtyWriter {
            fd,
            queue: Mutex::new(VecDeque::new()),
            wake: Notify::new(),
            closed: AtomicBool::new(false),
            paused: AtomicBool::new(false),
            room: Condvar::new(),
            on_drained,
        }
    }

    /// Writes `bytes` in order after anything already queued. Never blocks on the pty.
    pub fn write(&self, bytes: &[u8]) {
        if bytes.is_empty() || self.closed.load(Ordering::Acquire) {
            return;
        }
        let Ok(mut queue) = self.queue.lock() else {
            return;
        };
        let mut rest = bytes;
        if queue.is_empty() {
            while !rest.is_empty() {
                match rustix::io::write(self.fd.as_fd(), rest) {
                    Ok(n) => rest = &rest[n..],
                    Err(Errno::INTR) => continue,
                    Err(_) => break, // EAGAIN (full) or closed: the writer task retries
                }
            }
        }
        if !rest.is_empty() {
            queue.extend(rest);
            drop(queue);
            self.wake.notify_one();
        }
    }

    /// Like [`PtyWriter::write`], but first blocks the calling thread while the queue is
    /// over [`WRITE_QUEUE_HIGH_BYTES`] (for streams such as headless stdin, which may be
    /// any size: memory stays bounded and the program reads at its own pace).
    pub fn write_when_room(&self, bytes: &[u8]) {
        let Ok(mut queue) = self.queue.lock() else {
            return;
        };
        while queue.len() >= WRITE_QUEUE_HIGH_BYTES && !self.closed.load(Ordering::Acquire) {
            // `drained_to` and `close` (which sets `closed` first) notify `room`.
            queue = match self.room.wait(queue) {
                Ok(q) => q,
                Err(_) => return,
            };
        }
        drop(queue);
        self.write(bytes);
    }

    /// Whether the queue is over the high-water mark; if so the pane counts as paused
    /// until the queue drains (then `on_drained` runs).
    pub fn over_high_water(&self) -> bool {
        let Ok(queue) = self.queue.lock() else {
            return false;
        };
        let over = queue.len() >= WRITE_QUEUE_HIGH_BYTES && !self.closed.load(Ordering::Acquire);
        if over {
            self.paused.store(true, Ordering::Release);
        }
        over
    }

    /// The model paused the pane for this queue and it has not drained yet.
    pub fn is_paused(&self) -> bool {
        self.paused.load(Ordering::Acquire)
    }

    pub fn queued_bytes(&self) -> usize {
        self.queue.lock().map(|q| q.len()).unwrap_or(0)
    }

    /// After the queue shrank (to `queued` bytes, still locked by the caller): wakes
    /// waiting writers and a paused pane's model once under the low-water mark.
    fn drained_to(&self, queued: usize) {
        if queued > WRITE_QUEUE_LOW_BYTES {
            return;
        }
        self.room.notify_all();
        if self.paused.swap(false, Ordering::AcqRel) {
            (self.on_drained)();
        }
    }

    fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.wake.notify_one();
        if let Ok(mut queue) = self.queue.lock() {
            queue.clear();
            self.drained_to(0);
        }
    }
}

/// Commands to the pool thread.
pub enum PoolCmd {
    Add {
        pane: PaneId,
        fd: Arc<OwnedFd>,
        /// Notified by the model thread when the pty reached end of file.
        ended: Arc<Notify>,
        writer: Arc<PtyWriter>,
        child: Box<dyn Child + Send + Sync>,
        /// The child's pidfd (a copy), readable once it exited; `None` before Linux 5.3.
        exited: Option<OwnedFd>,
    },
    Remove(PaneId),
    /// Stop watching a pane whose program the keeper keeps (no hang-up, no reaping).
    Forget(PaneId),
}

struct PaneTasks {
    /// Waits for end of file, then for the child, and reports the exit.
    watcher: JoinHandle<()>,
    writer: JoinHandle<()>,
    writer_state: Arc<PtyWriter>,
    child: ChildSlot,
}

/// Handle to the pool thread.
pub struct IoPool {
    tx: mpsc::UnboundedSender<PoolCmd>,
    thread: Option<std::thread::JoinHandle<()>>,
}

pub struct PoolShared {
    pub model: ModelTx,
    pub buffers: Arc<BufferPool>,
    pub crumbs: Arc<Breadcrumbs>,
    pub epoch: Instant,
}

impl IoPool {
    pub fn start(shared: PoolShared) -> io::Result<IoPool> {
        let (tx, mut rx) = mpsc::unbounded_channel::<PoolCmd>();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()?;
        let thread = std::thread::Builder::new()
            .name("tern-io".into())
            .spawn(move || {
                let shared = Arc::new(shared);
                rt.block_on(async move {
                    let mut tasks: HashMap<PaneId, PaneTasks> = HashMap::new();
                    while let Some(cmd) = rx.recv().await {
                        match cmd {
                            PoolCmd::Add {
                                pane,
                                fd,
                                ended,
                                writer,
                                child,
                                exited,
                            } => {
                                let child: ChildSlot = Arc::new(Mutex::new(Some(child)));
                                let ends = ChildEnds {
                                    slot: child.clone(),
                                    exited,
                                };
                                let (watcher, writer_task) =
                                    add_pane(&shared, pane, fd, ended, writer.clone(), ends);
                                tasks.insert(
                                    pane,
                                    PaneTasks {
                                        watcher,
                                        writer: writer_task,
                                        writer_state: writer,
                                        child,
                                    },
                                );
                            }
                            PoolCmd::Forget(pane) => {
                                if let Some(t) = tasks.remove(&pane) {
                                    t.watcher.abort();
                                    t.writer.abort();
                                }
                            }
                            PoolCmd::Remove(pane) => {
                                if let Some(t) = tasks.remove(&pane) {
                                    t.writer_state.close();
                                    t.watcher.abort();
                                    t.writer.abort();
                                    reap_after_close(&shared, pane, &t.child, CLOSE_GRACE);
                                }
                            }
                        }
                    }
                    // Shutting down: the children got SIGHUP; give those still running
                    // a short grace, then kill them, so none outlives tern.
                    let reapers: Vec<_> = tasks
                        .into_iter()
                        .filter_map(|(pane, t)| {
                            t.watcher.abort();
                            t.writer.abort();
                            reap_after_close(&shared, pane, &t.child, Duration::from_millis(500))
                        })
                        .collect();
                    for r in reapers {
                        let _ = r.await;
                    }
                });
            })?;
        Ok(IoPool {
            tx,
            thread: Some(thread),
        })
    }

    pub fn send(&self, cmd: PoolCmd) {
        let _ = self.tx.send(cmd);
    }
}

impl Drop for IoPool {
    fn drop(&mut self) {
        // Closing the channel ends the pool's loop; its tasks are dropped with the runtime.
        let (dead_tx, _) = mpsc::unbounded_channel();
        drop(std::mem::replace(&mut self.tx, dead_tx));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

type Tasks = (JoinHandle<()>, JoinHandle<()>);

fn add_pane(
    shared: &Arc<PoolShared>,
    pane: PaneId,
    fd: Arc<OwnedFd>,
    ended: Arc<Notify>,
    writer: Arc<PtyWriter>,
    child: ChildEnds,
) -> Tasks {
    let watcher = tokio::spawn(watch_exit(shared.clone(), pane, ended, child));
    let writer_task = tokio::spawn(write_loop(fd, writer));
    (watcher, writer_task)
}

/// After the model thread read the pty's end of file: waits for the child and reports
/// its exit (the model reports it once every byte read before is parsed).
async fn watch_exit(shared: Arc<PoolShared>, pane: PaneId, ended: Arc<Notify>, child: ChildEnds) {
    ended.notified().await;
    let Some(status) = wait_in_slot(child).await else {
        return; // closed meanwhile: the pool reaps it
    };
    let exit = match status {
        Ok(s) => ExitInfo {
            code: s.exit_code() as i32,
            signal: s.signal().map(str::to_owned),
        },
        Err(e) => ExitInfo {
            code: -1,
            signal: Some(format!("wait failed: {e}")),
        },
    };
    let _ = shared.model.send(ModelMsg::Exited { pane, exit });
}

/// A pane's child as the reader sees it: the slot the pool reaps from, and its pidfd.
struct ChildEnds {
    slot: ChildSlot,
    exited: Option<OwnedFd>,
}

/// Waits for the child after its pty reached end of file, leaving it in the slot: a
/// program that closed its tty but keeps running is still there for the close
/// escalation (SIGHUP, grace, SIGKILL) to find. Returns `None` when the pane was closed
/// meanwhile (the pool took the child to reap it). With a pidfd the wait is for its
/// readiness (the kernel says when the child ended); without one (Linux < 5.3) the
/// child is polled, 5 ms doubling to 250 ms.
async fn wait_in_slot(ends: ChildEnds) -> Option<io::Result<portable_pty::ExitStatus>> {
    let child = &ends.slot;
    // SAFETY: the `AsyncFd` owns the `OwnedFd`, so the descriptor stays open (and is the
    // same pidfd) for the `AsyncFd`'s whole life.
    let mut exited = ends
        .exited
        .and_then(|fd| unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }.ok());
    let mut pause = Duration::from_millis(5);
    loop {
        {
            let mut slot = child.lock().ok()?;
            let outcome = slot.as_mut()?.try_wait();
            match outcome {
                Ok(None) => {}
                Ok(Some(status)) => {
                    slot.take();
                    return Some(Ok(status));
                }
                Err(e) => {
                    slot.take();
                    return Some(Err(e));
                }
            }
        }
        match exited.take() {
            // Readable for good once the child ended: the next try_wait reaps it (if it
            // does not, the polling below takes over rather than spin on the readiness).
            Some(fd) => drop(fd.readable().await.ok()?),
            None => {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_millis(250));
            }
        }
    }
}

/// Writes what [`PtyWriter::write`] could not (the pty was full). The master is in the
/// pool's epoll only while bytes wait: registered for its whole life, edge-triggered
/// `EPOLLOUT` fired on every read and write of the pty (the model thread's reads and
/// replies, the program's reads), waking the pool's thread twice per keystroke or query
/// on the cores the model thread and the program need.
async fn write_loop(fd: Arc<OwnedFd>, writer: Arc<PtyWriter>) {
    loop {
        writer.wake.notified().await;
        if writer.closed.load(Ordering::Acquire) {
            return;
        }
        // SAFETY: `fd` is an `Arc<OwnedFd>`: it is open, `as_raw_fd` always returns the
        // same descriptor, and the `AsyncFd` holds one of the Arcs, so the descriptor
        // stays open (and refers to the same pty master) for the `AsyncFd`'s whole life.
        // Registering reports the master writable at once if it is.
        let registered = unsafe { AsyncFd::register_with_interest(fd.clone(), Interest::WRITABLE) };
        let Ok(afd) = registered else {
            // Nothing can wait for the pty to take bytes: they are dropped, as for a
            // broken pty, rather than kept to pause the pane for good.
            if let Ok(mut queue) = writer.queue.lock() {
                queue.clear();
                writer.drained_to(0);
            }
            return;
        };
        if !drain_queue(&afd, &writer).await {
            return;
        }
        // Dropping `afd` takes the master out of the epoll set until the next wait.
    }
}

/// Writes the queue out as the master takes it; false when the pty is closed or broken
/// (the writer is done), true once the queue is empty.
async fn drain_queue(afd: &AsyncFd<Arc<OwnedFd>>, writer: &PtyWriter) -> bool {
    loop {
        if writer.closed.load(Ordering::Acquire) {
            return false;
        }
        let Ok(mut guard) = afd.writable().await else {
            return false;
        };
        let Ok(mut queue) = writer.queue.lock() else {
            return false;
        };
        if queue.is_empty() {
            return true;
        }
        // The other side hung up (the child is gone): a write can only fail with
        // EAGAIN or EIO from now on, while the hang-up keeps the fd "writable".
        // Retrying would spin the pool thread that serves every pty.
        if guard.ready().is_write_closed() {
            queue.clear();
            writer.drained_to(0);
            return false;
        }
        let (front, _) = queue.as_slices();
        match guard
            .try_io(|fd| rustix::io::write(fd.get_ref().as_fd(), front).map_err(io::Error::from))
        {
            Ok(Ok(n)) => {
                queue.drain(..n);
                writer.drained_to(queue.len());
            }
            Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
            Ok(Err(_)) => {
                queue.clear();
                writer.drained_to(0);
                return false;
            }
            Err(_would_block) => {}
        }
    }
}

/// Reaps a closed pane's child without blocking anyone: it already got SIGHUP; if it is
/// still running after `grace` (it ignores or handles SIGHUP and stays), its process
/// group gets SIGKILL. Waiting on the child keeps its pid (and so its group id) from
/// being reused until then, so the signal cannot reach an unrelated process.
fn reap_after_close(
    shared: &Arc<PoolShared>,
    pane: PaneId,
    child: &ChildSlot,
    grace: Duration,
) -> Option<JoinHandle<()>> {
    let mut child = child.lock().ok()?.take()?;
    let crumbs = shared.crumbs.clone();
    Some(tokio::spawn(async move {
        let deadline = Instant::now() + grace;
        loop {
            match child.try_wait() {
                Ok(None) => {}
                Ok(Some(_)) | Err(_) => return,
            }
            if Instant::now() >= deadline {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        if let Some(pid) = child
            .process_id()
            .and_then(|p| rustix::process::Pid::from_raw(p as i32))
        {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
        crumbs.push(
            pane.0,
            "killed: still running after SIGHUP and the grace period",
        );
        let _ = tokio::task::spawn_blocking(move || {
            let _ = child.kill();
            child.wait()
        })
        .await;
    }))
}
