//! Panes whose programs another tern started: taken back from the keeper after a
//! crash, a kill or an upgrade ([`Pipeline::adopt`]), and the pipeline's side of the
//! keeper ([`Pipeline::set_keeper`], [`Pipeline::detach`]).
//!
//! An adopted program is not this tern's child, so `waitid` cannot say how it ended:
//! its pidfd says *that* it ended, and how is read from the kernel through the same
//! pidfd once whoever is its parent now reaped it (`PIDFD_GET_INFO`, Linux 6.15+);
//! where the kernel has no answer (an older kernel, a parent that does not reap) the
//! exit is shown as "status unknown" (see `docs/architecture/keeper.md` for why the
//! keeper does not fork the programs).

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use portable_pty::{Child, ChildKiller, ExitStatus, MasterPty, PtySize};

use super::spawn::{SpawnError, Spawned, set_nonblocking, set_winsize};
use super::{PaneId, Pipeline};
use crate::model::TermSize;

/// A pane as the pipeline hands it to whoever keeps programs alive past tern (the
/// keeper's link, `crate::keeper::link`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptPane {
    pub key: u64,
    pub pane: u64,
    pub pid: Option<u32>,
    pub what: String,
}

/// What keeps programs alive past tern ([`Pipeline::set_keeper`]): told of each local
/// pane (with duplicates of its descriptors) and each pane closed. The pipeline knows
/// it only through this, so the keeper's module sits above the pipeline.
pub trait Keep: Send {
    fn hold(&self, pane: KeptPane, master: OwnedFd, pidfd: Option<OwnedFd>);
    fn release(&self, key: u64);
    /// Every pane released (their programs end with tern); waits.
    fn end(self: Box<Self>);
    /// Every pane left held (their programs outlive tern); waits.
    fn detach(self: Box<Self>);
}

/// Breadcrumbs from other threads (the keeper's link, the history writer).
pub type CrumbSink = std::sync::Arc<dyn Fn(String) + Send + Sync>;

/// A fresh key naming a pane across terns (its keeper entry, its history file).
pub fn new_pane_key() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    h.finish().max(1)
}

/// How an adopted program's end is reported when the kernel cannot say how it ended.
pub const UNKNOWN_STATUS: &str = "ended while tern was away or not its parent: status unknown";

/// How long after its end an adopted program's status is waited for (its new parent,
/// the init or the session's subreaper, reaps it; the kernel keeps the status then).
const REAP_GRACE: Duration = Duration::from_secs(1);

/// How the process behind `pidfd` ended, as the kernel keeps it for every holder of a
/// pidfd once the process was reaped (`PIDFD_GET_INFO` with `PIDFD_INFO_EXIT`, Linux
/// 6.15+). `None`: not ended or not reaped yet, or a kernel without it.
pub fn pidfd_exit_status(pidfd: BorrowedFd<'_>) -> Option<ExitStatus> {
    // SAFETY: `pidfd_info` is plain integers, for which all zeroes is a valid value.
    let mut info: libc::pidfd_info = unsafe { std::mem::zeroed() };
    info.mask = libc::PIDFD_INFO_EXIT.into();
    // SAFETY: `info` is a live, writable `struct pidfd_info` of the size the request
    // encodes; the kernel writes at most that many bytes into it and keeps no pointer.
    let r = unsafe {
        libc::ioctl(
            pidfd.as_raw_fd(),
            libc::PIDFD_GET_INFO,
            &mut info as *mut libc::pidfd_info,
        )
    };
    if r != 0 || info.mask & u64::from(libc::PIDFD_INFO_EXIT) == 0 {
        return None;
    }
    use std::os::unix::process::ExitStatusExt;
    Some(std::process::ExitStatus::from_raw(info.exit_code).into())
}

/// A pane taken back from the keeper, ready for [`Pipeline::adopt`].
#[derive(Debug)]
pub struct Reattach {
    pub key: u64,
    /// Its id in the tern that started it (kept when free: `TERN_PANE_ID` says it).
    pub old_pane: u64,
    pub pid: Option<u32>,
    pub what: String,
    pub master: OwnedFd,
    pub pidfd: Option<OwnedFd>,
    /// What the keeper's ring kept, replayed before anything read from the pty.
    pub bytes: Vec<u8>,
    /// Output came while no tern was attached.
    pub ran_detached: bool,
    /// Its program ended while no tern was attached.
    pub exited: bool,
}

/// The master of an adopted pane's pty (portable-pty's own cannot be made from a
/// descriptor).
#[derive(Debug)]
struct AdoptedMaster(OwnedFd);

impl MasterPty for AdoptedMaster {
    fn resize(&self, size: PtySize) -> Result<(), anyhow::Error> {
        set_winsize(
            self.0.as_fd(),
            TermSize::new(size.cols.into(), size.rows.into()),
        )?;
        Ok(())
    }

    fn get_size(&self) -> Result<PtySize, anyhow::Error> {
        let w = rustix::termios::tcgetwinsize(&self.0)?;
        Ok(PtySize {
            rows: w.ws_row,
            cols: w.ws_col,
            pixel_width: w.ws_xpixel,
            pixel_height: w.ws_ypixel,
        })
    }

    fn try_clone_reader(&self) -> Result<Box<dyn std::io::Read + Send>, anyhow::Error> {
        anyhow::bail!("an adopted pane is read by the pipeline only")
    }

    fn take_writer(&self) -> Result<Box<dyn std::io::Write + Send>, anyhow::Error> {
        anyhow::bail!("an adopted pane is written by the pipeline only")
    }

    fn process_group_leader(&self) -> Option<libc::pid_t> {
        rustix::termios::tcgetpgrp(&self.0)
            .ok()
            .map(|p| p.as_raw_nonzero().get())
    }

    fn as_raw_fd(&self) -> Option<RawFd> {
        Some(self.0.as_raw_fd())
    }

    fn tty_name(&self) -> Option<std::path::PathBuf> {
        None
    }
}

/// An adopted program: watched through its pidfd (or its pid on an old kernel).
#[derive(Debug)]
struct AdoptedChild {
    pid: Option<u32>,
    pidfd: Option<std::sync::Arc<OwnedFd>>,
    /// When it was first seen ended (its status is waited for [`REAP_GRACE`]).
    ended_at: Option<Instant>,
}

impl AdoptedChild {
    fn ended(&self) -> bool {
        match &self.pidfd {
            Some(fd) => {
                let mut fds = [rustix::event::PollFd::new(
                    &**fd,
                    rustix::event::PollFlags::IN,
                )];
                let zero = rustix::event::Timespec {
                    tv_sec: 0,
                    tv_nsec: 0,
                };
                rustix::event::poll(&mut fds, Some(&zero)).is_ok_and(|n| n > 0)
            }
            None => self
                .pid
                .and_then(|p| rustix::process::Pid::from_raw(p as i32))
                .is_none_or(|p| rustix::process::test_kill_process(p).is_err()),
        }
    }
}

impl ChildKiller for AdoptedChild {
    fn kill(&mut self) -> std::io::Result<()> {
        if let Some(fd) = &self.pidfd {
            let _ = rustix::process::pidfd_send_signal(&**fd, rustix::process::Signal::HUP);
        }
        Ok(())
    }

    fn clone_killer(&self) -> Box<dyn ChildKiller + Send + Sync> {
        Box::new(AdoptedChild {
            pid: self.pid,
            pidfd: self.pidfd.clone(),
            ended_at: None,
        })
    }
}

impl Child for AdoptedChild {
    fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        if !self.ended() {
            return Ok(None);
        }
        if let Some(status) = self
            .pidfd
            .as_deref()
            .and_then(|fd| pidfd_exit_status(fd.as_fd()))
        {
            return Ok(Some(status));
        }
        let since = *self.ended_at.get_or_insert_with(Instant::now);
        Ok((self.pidfd.is_none() || since.elapsed() >= REAP_GRACE)
            .then(|| ExitStatus::with_signal(UNKNOWN_STATUS)))
    }

    fn wait(&mut self) -> std::io::Result<ExitStatus> {
        loop {
            if let Some(s) = self.try_wait()? {
                return Ok(s);
            }
            if self.ended_at.is_some() {
                // Ended, its status not kept yet: its new parent reaps it soon.
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
            match &self.pidfd {
                Some(fd) => {
                    let mut fds = [rustix::event::PollFd::new(
                        &**fd,
                        rustix::event::PollFlags::IN,
                    )];
                    let _ = rustix::event::poll(&mut fds, None);
                }
                None => std::thread::sleep(std::time::Duration::from_millis(100)),
            }
        }
    }

    fn process_id(&self) -> Option<u32> {
        self.pid
    }
}

impl Pipeline {
    /// A pane whose program another tern started (taken back from the keeper): its
    /// ring's bytes parsed first, then the pty read as for any pane; the program is
    /// told to repaint (SIGWINCH to its foreground group). Keeps the old `tern msg`
    /// id when no pane has it.
    pub fn adopt(&self, r: Reattach) -> Result<PaneId, SpawnError> {
        let pty = |e: &dyn std::fmt::Display| SpawnError::Pty(e.to_string());
        let old = PaneId(r.old_pane);
        let free = r.old_pane > 0 && self.with_pane(old, |_| ()).is_none();
        // Free and kept for it, or above every id handed out so far.
        let keep_old = free
            && (r.old_pane < self.reserved_below.load(Ordering::Relaxed)
                || self.next_id.fetch_max(r.old_pane + 1, Ordering::Relaxed) <= r.old_pane);
        let pane = if keep_old {
            old
        } else {
            PaneId(self.next_id.fetch_add(1, Ordering::Relaxed))
        };
        let size = rustix::termios::tcgetwinsize(&r.master)
            .ok()
            .filter(|w| w.ws_col > 0 && w.ws_row > 0)
            .map(|w| TermSize::new(w.ws_col.into(), w.ws_row.into()))
            .unwrap_or(self.config.default_size);
        let fd = rustix::io::fcntl_dupfd_cloexec(&r.master, 0).map_err(|e| pty(&e))?;
        set_nonblocking(fd.as_fd()).map_err(|e| pty(&e))?;
        let pidfd_for_child = r
            .pidfd
            .as_ref()
            .and_then(|p| p.try_clone().ok())
            .map(std::sync::Arc::new);
        let foreground = rustix::termios::tcgetpgrp(&r.master).ok();
        let spawned = Spawned {
            master: Box::new(AdoptedMaster(r.master)),
            child: Box::new(AdoptedChild {
                pid: r.pid,
                pidfd: pidfd_for_child,
                ended_at: None,
            }),
            fd,
            pid: r.pid,
            pidfd: r.pidfd,
            note: None,
        };
        let what = format!(
            "reattached pid {} ({}){}",
            r.pid.map_or("?".into(), |p| p.to_string()),
            r.what,
            if r.ran_detached {
                ", it ran while no tern was attached"
            } else {
                ""
            }
        );
        // Its history first (already in its file), then what the keeper kept.
        let mut replay = self.history_of(r.key);
        let untapped = replay.len();
        replay.extend_from_slice(&r.bytes);
        let extra = super::new_pane::Extra {
            replay,
            untapped,
            key: Some(r.key),
        };
        self.register_with(pane, spawned, size, what, extra);
        if let Some(pgrp) = foreground {
            // Full-screen programs repaint for the size they have.
            let _ = rustix::process::kill_process_group(pgrp, rustix::process::Signal::WINCH);
        }
        Ok(pane)
    }

    /// Ids below `below` are kept for panes [`Pipeline::adopt`] takes back (call it
    /// before starting any pane).
    pub fn reserve_ids_below(&self, below: u64) {
        self.next_id.fetch_max(below, Ordering::Relaxed);
        self.reserved_below.fetch_max(below, Ordering::Relaxed);
    }

    /// Hands every local pane, now and from now on, to the keeper behind `link`.
    pub fn set_keeper(&self, link: Box<dyn Keep>) {
        let Ok(mut slot) = self.keeper.lock() else {
            return;
        };
        if let Ok(mut panes) = self.panes.lock() {
            for (pane, h) in panes.iter_mut() {
                let Some(raw) = h.master.as_raw_fd() else {
                    continue;
                };
                if h.local {
                    let key = *h.keeper_key.get_or_insert_with(new_pane_key);
                    hand_over(
                        link.as_ref(),
                        key,
                        *pane,
                        h.pid,
                        String::new(),
                        raw,
                        h.pidfd.as_ref(),
                    );
                }
            }
        }
        *slot = Some(link);
    }

    /// The pane's key (saved with the session): the keeper holds its program under it
    /// and its history file is named by it.
    pub fn keeper_key(&self, pane: PaneId) -> Option<u64> {
        self.with_pane(pane, |p| p.keeper_key).flatten()
    }

    /// A sink for breadcrumbs from other threads (the keeper's link).
    pub fn crumb_sink(&self) -> CrumbSink {
        let crumbs = self.crumbs.clone();
        std::sync::Arc::new(move |m: String| crumbs.push(super::diag::APP_CRUMB, m))
    }

    /// Whether a keeper link is set.
    pub fn has_keeper(&self) -> bool {
        self.keeper.lock().is_ok_and(|k| k.is_some())
    }

    /// Gives the keeper a new local pane (called by `register`).
    pub(super) fn keep(
        &self,
        pane: PaneId,
        key: u64,
        pid: Option<u32>,
        what: &str,
        master: RawFd,
        pidfd: Option<&OwnedFd>,
    ) {
        if let Ok(keeper) = self.keeper.lock()
            && let Some(link) = keeper.as_ref()
        {
            hand_over(
                link.as_ref(),
                key,
                pane,
                pid,
                what.to_owned(),
                master,
                pidfd,
            );
        }
    }

    /// The user closed the pane: the keeper lets its program go, and its history is
    /// kept only for search everywhere until tern ends (`closed.rs`).
    pub(super) fn unkeep(&self, pane: PaneId, key: Option<u64>, size: TermSize) {
        let Some(key) = key else {
            return;
        };
        if let Ok(keeper) = self.keeper.lock()
            && let Some(link) = keeper.as_ref()
        {
            link.release(key);
        }
        self.keep_closed(pane, key, size);
    }

    /// Keeps every local pane's output in the state folder from now on
    /// ([`crate::history`]); call it before starting panes.
    pub fn set_history(&self, history: crate::history::History) {
        if let Ok(mut h) = self.history.lock() {
            *h = Some(std::sync::Arc::new(history));
        }
    }

    /// Whether local panes get a key (a keeper holds them or their history is kept).
    pub(super) fn keeps_panes(&self) -> bool {
        self.has_keeper() || self.history.lock().is_ok_and(|h| h.is_some())
    }

    pub(super) fn history_tap(&self, key: u64) -> Option<crate::history::Tap> {
        self.history.lock().ok()?.as_ref().map(|h| h.tap(key))
    }

    /// What the pane under `key` printed before, as its history file kept it.
    pub fn history_of(&self, key: u64) -> Vec<u8> {
        self.history
            .lock()
            .ok()
            .and_then(|h| h.as_ref().map(|h| h.read(key)))
            .unwrap_or_default()
    }

    /// Leaves every pane's program running with the keeper and forgets the panes
    /// (tern ends next: its window was closed with its programs kept). Without a
    /// keeper, nothing happens (the programs end with tern as always); false then.
    pub fn detach(&self) -> bool {
        let Some(link) = self.keeper.lock().ok().and_then(|mut k| k.take()) else {
            return false;
        };
        if let Ok(mut panes) = self.panes.lock() {
            for (pane, _) in panes.drain() {
                self.pool.send(super::io::PoolCmd::Forget(pane));
            }
        }
        link.detach();
        true
    }

    /// Releases every pane from the keeper (their programs end with tern).
    pub(super) fn end_keeper(&self) {
        if let Some(link) = self.keeper.lock().ok().and_then(|mut k| k.take()) {
            link.end();
        }
    }
}

fn hand_over(
    link: &dyn Keep,
    key: u64,
    pane: PaneId,
    pid: Option<u32>,
    what: String,
    master: RawFd,
    pidfd: Option<&OwnedFd>,
) {
    // SAFETY: `master` is the open descriptor of a pane's master, kept open by its
    // handle for the duration of this borrow; it is only duplicated.
    let borrowed = unsafe { std::os::fd::BorrowedFd::borrow_raw(master) };
    let Ok(master) = rustix::io::fcntl_dupfd_cloexec(borrowed, 0) else {
        return;
    };
    let pidfd = pidfd.and_then(|p| p.try_clone().ok());
    let held = KeptPane {
        key,
        pane: pane.0,
        pid,
        what,
    };
    link.hold(held, master, pidfd);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Linux 6.15 or later (`PIDFD_INFO_EXIT`).
    fn kernel_keeps_exit_status() -> bool {
        let release = rustix::system::uname()
            .release()
            .to_string_lossy()
            .into_owned();
        let mut parts = release.split(|c: char| !c.is_ascii_digit());
        let major: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        let minor: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        (major, minor) >= (6, 15)
    }

    /// A process's exit status read through a pidfd once it was reaped (here by its
    /// parent, this test; for an adopted program, by its new parent).
    #[test]
    fn a_reaped_process_s_exit_status_is_read_through_its_pidfd() {
        for (script, code, signal) in [("exit 3", 3, None), ("kill -TERM $$", 1, Some(()))] {
            let mut child = std::process::Command::new("sh")
                .args(["-c", &format!("read _; {script}")])
                .stdin(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            let pid = rustix::process::Pid::from_child(&child);
            let pidfd =
                rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).unwrap();
            assert!(pidfd_exit_status(pidfd.as_fd()).is_none(), "still running");
            drop(child.stdin.take());
            child.wait().unwrap();
            let status = pidfd_exit_status(pidfd.as_fd());
            if !kernel_keeps_exit_status() {
                assert!(status.is_none());
                continue;
            }
            let status = status.expect("the kernel keeps the status");
            assert_eq!(status.exit_code(), code, "{script}");
            assert_eq!(
                status.signal().is_some(),
                signal.is_some(),
                "{script}: {status:?}"
            );
        }
    }
}
