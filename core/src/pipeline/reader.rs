//! Reading one pty master on the model thread: credit-gated, non-blocking reads into
//! recycled buffers, driven by the edge-triggered readiness `readiness.rs` collects.
//! The I/O pool keeps the writes and the child's reaping; reading here means a query's
//! bytes and its answer take one wake-up of one thread. A flooding pty is read ahead by
//! another thread for a while (`ahead.rs`).

use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;
use std::time::Instant;

use rustix::io::Errno;
use tokio::sync::Notify;

use super::PaneId;
use super::credit::Credit;
use super::diag::Breadcrumbs;
use super::io::{BufferPool, READ_CHUNK};

/// Output under this much at a time is interactive (an echo, a prompt, a query's
/// answer) rather than a program drawing or flooding: a read this small is framed at
/// once (`PaneEntry::frame_can_wait`), and a burst this small while a pane is read
/// ahead gives it back (`ahead.rs`).
pub const INTERACTIVE_BYTES: usize = 1024;

/// What one read gave.
pub enum ReadOutcome {
    /// A chunk (at most the credit's room), and when it was read.
    Data(Vec<u8>, Instant),
    /// Nothing now: the pty is drained (`EAGAIN`), or the window is full.
    Nothing,
    /// End of file (or `EIO`: the child closed its side), with the error if another
    /// one ended it. The pty is no longer watched.
    End(Option<String>),
}

/// The read side of one pty, owned by the model thread.
pub struct PtyInput {
    fd: Arc<OwnedFd>,
    /// epoll reported input and no read has hit `EAGAIN` since (edge-triggered: until
    /// then the pty may hold bytes without another wake-up).
    pub readable: bool,
    /// Watched by the poller, not at end of file.
    pub open: bool,
    notes: PauseNotes,
    /// Told at end of file: the pool then waits for the child and reports its exit.
    ended: Arc<Notify>,
}

impl PtyInput {
    /// `ended` is notified at end of file (the pool's exit watcher waits on it).
    pub fn new(fd: Arc<OwnedFd>, ended: Arc<Notify>) -> PtyInput {
        PtyInput {
            fd,
            // Output written before the pty was watched raised no edge.
            readable: true,
            open: true,
            notes: PauseNotes::default(),
            ended,
        }
    }

    pub fn fd(&self) -> impl AsFd + '_ {
        self.fd.as_fd()
    }

    /// The master itself, for the thread that reads it ahead during a flood.
    pub fn shared_fd(&self) -> Arc<OwnedFd> {
        self.fd.clone()
    }

    /// Whether a read now could bring bytes (readable, open, room in the window).
    pub fn wants_read(&self, credit: &Credit) -> bool {
        self.readable && self.open && credit.room() > 0
    }

    /// One read of at most the credit's room and [`READ_CHUNK`]. Records pauses (the
    /// window full while the pty has input) and resumes in `credit` and, rarely, in
    /// the breadcrumbs.
    pub fn read_once(
        &mut self,
        pane: PaneId,
        credit: &Credit,
        buffers: &BufferPool,
        crumbs: &Breadcrumbs,
    ) -> ReadOutcome {
        if !self.readable || !self.open {
            return ReadOutcome::Nothing;
        }
        let room = credit.room() as usize;
        if room == 0 {
            if credit.set_paused(true) {
                self.notes.paused(crumbs, pane);
            }
            return ReadOutcome::Nothing;
        }
        if credit.set_paused(false) {
            self.notes.resumed(crumbs, pane);
        }
        let mut buf = buffers.get();
        match read_appending(self.fd.as_fd(), &mut buf, room.min(READ_CHUNK)) {
            Ok(0) => {
                buffers.put(buf);
                self.end(credit, None)
            }
            Ok(n) => {
                credit.on_read(n as u64);
                ReadOutcome::Data(buf, Instant::now())
            }
            Err(Errno::AGAIN) => {
                buffers.put(buf);
                self.readable = false;
                ReadOutcome::Nothing
            }
            Err(e) => {
                buffers.put(buf);
                self.end(credit, end_error(e))
            }
        }
    }

    /// The end of this pty's output (also when it could not be watched).
    pub fn end(&mut self, credit: &Credit, error: Option<String>) -> ReadOutcome {
        credit.set_paused(false);
        self.open = false;
        self.readable = false;
        self.ended.notify_one();
        ReadOutcome::End(error)
    }
}

/// One read of `fd` straight into `buf`'s spare capacity after its bytes (no
/// zero-filling), at most `want` bytes and the capacity left; `EINTR` is retried.
/// Returns the bytes read (0 at end of file), now part of `buf`.
pub fn read_appending(fd: impl AsFd, buf: &mut Vec<u8>, want: usize) -> Result<usize, Errno> {
    let start = buf.len();
    let want = want.min(buf.capacity() - start);
    loop {
        let spare = &mut buf.spare_capacity_mut()[..want];
        match rustix::io::read(&fd, spare) {
            Ok((read, _)) => {
                let n = read.len();
                // SAFETY: the read initialised the `n` bytes after the buffer's length.
                unsafe { buf.set_len(start + n) };
                return Ok(n);
            }
            Err(Errno::INTR) => {}
            Err(e) => return Err(e),
        }
    }
}

/// The error a failed read ends a pty with: none for `EIO`, which Linux returns once
/// the child closed its side (an ordinary end).
pub fn end_error(e: Errno) -> Option<String> {
    (e != Errno::IO).then(|| e.to_string())
}

/// Pausing is rare for an interactive pane but happens thousands of times a second under
/// a flood: the breadcrumb ring hears of it at most once a second per pane (with a count
/// of the pauses in between), so floods do not push the rare transitions out of it.
#[derive(Default)]
struct PauseNotes {
    last_noted: Option<Instant>,
    unnoted: u64,
    /// The last pause was noted, so its resume is too.
    pause_noted: bool,
}

impl PauseNotes {
    const EVERY: std::time::Duration = std::time::Duration::from_secs(1);

    fn paused(&mut self, crumbs: &Breadcrumbs, pane: PaneId) {
        if self.last_noted.is_some_and(|t| t.elapsed() < Self::EVERY) {
            self.unnoted += 1;
            self.pause_noted = false;
            return;
        }
        let what = match self.unnoted {
            0 => "paused reading (window full)".to_owned(),
            n => format!("paused reading (window full); {n} pauses since the last note"),
        };
        crumbs.push(pane.0, what);
        self.last_noted = Some(Instant::now());
        self.unnoted = 0;
        self.pause_noted = true;
    }

    fn resumed(&mut self, crumbs: &Breadcrumbs, pane: PaneId) {
        if std::mem::take(&mut self.pause_noted) {
            crumbs.push(pane.0, "resumed reading (credit returned)");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn pipe_input() -> (PtyInput, std::io::PipeWriter, Arc<Notify>) {
        let (reader, writer) = std::io::pipe().expect("pipe");
        let fd = OwnedFd::from(reader);
        rustix::io::ioctl_fionbio(&fd, true).expect("non-blocking");
        let ended = Arc::new(Notify::new());
        (PtyInput::new(Arc::new(fd), ended.clone()), writer, ended)
    }

    /// Reads never take more than the window's room; a full window pauses the pty
    /// (counted once) and the room coming back resumes it; EAGAIN ends readability.
    #[test]
    fn reads_stay_within_the_credit_window() {
        let (mut input, mut writer, _ended) = pipe_input();
        let (credit, buffers) = (Credit::new(10), BufferPool::default());
        let crumbs = Breadcrumbs::new(Instant::now(), 16);
        writer.write_all(&[b'x'; 25]).expect("write");
        let ReadOutcome::Data(first, _) = input.read_once(PaneId(1), &credit, &buffers, &crumbs)
        else {
            panic!("no data");
        };
        assert_eq!(first.len(), 10);
        assert!(matches!(
            input.read_once(PaneId(1), &credit, &buffers, &crumbs),
            ReadOutcome::Nothing
        ));
        assert!(credit.is_paused() && input.readable);
        assert!(!input.wants_read(&credit));
        credit.on_parsed(10);
        assert!(input.wants_read(&credit));
        let mut total = 10;
        while let ReadOutcome::Data(d, _) = input.read_once(PaneId(1), &credit, &buffers, &crumbs) {
            total += d.len();
            credit.on_parsed(total as u64);
        }
        assert_eq!(total, 25);
        assert!(!input.readable, "drained: EAGAIN");
        assert_eq!(credit.times_paused(), 1);
        assert!(!credit.is_paused());
        assert_eq!(credit.read_total(), 25);
    }

    /// End of file stops reading and tells the pool (which then waits for the child).
    #[test]
    fn end_of_file_tells_the_pool() {
        let (mut input, writer, ended) = pipe_input();
        let (credit, buffers) = (Credit::new(1 << 20), BufferPool::default());
        let crumbs = Breadcrumbs::new(Instant::now(), 16);
        drop(writer);
        assert!(matches!(
            input.read_once(PaneId(1), &credit, &buffers, &crumbs),
            ReadOutcome::End(None)
        ));
        assert!(!input.open && !input.wants_read(&credit));
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        // The permit was stored: this returns at once.
        rt.block_on(ended.notified());
    }
}
