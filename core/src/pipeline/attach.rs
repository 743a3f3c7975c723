//! Panes fed by tern itself instead of a local child (remote panes: a tmux pane's
//! output arrives over a control-mode connection). tern opens a pty pair and keeps the
//! master exactly like a spawned pane's, so the model thread reads, credits, parses,
//! parks and snapshots the pane with the same code; the slave goes to whoever feeds
//! the pane. The slave is raw (no echo, no line editing, no signals, no output
//! processing), so bytes pass through it unchanged in both directions:
//!
//! ```text
//!  feeder ─write─▶ slave ═pty═▶ master ─▶ model thread (as a program's output)
//!  feeder ◀─read── slave ◀═pty═ master ◀─ Pipeline::write (keystrokes, paste)
//! ```
//!
//! There is no process: a [`StandInChild`] takes its place. Its `wait` returns once the
//! feeder says the pane is gone ([`StandIn::exited`]), and its `kill` (closing the
//! pane) calls the feeder's hook once (unless the pane already ended), which asks the
//! far side to end the pane.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use portable_pty::{Child, ChildKiller, ExitStatus, native_pty_system};
use rustix::fs::{Mode, OFlags};

use super::PaneId;
use super::spawn::{SpawnError, Spawned, pty_size, set_nonblocking};
use crate::model::TermSize;

/// What [`super::Pipeline::attach`] needs.
pub struct AttachSpec {
    /// The model's size (the far side's pane size); `None` is the pipeline's default.
    pub size: Option<TermSize>,
    /// Stands in for the child (see [`StandIn::child`]).
    pub child: StandInChild,
    /// Whether the model answers the pane's queries (DSR, DA, DECRQM, OSC colours…).
    /// `false` when something on the far side already answers them (tmux's own
    /// emulator answers its programs; a second answer would reach the program twice).
    pub answers_queries: bool,
    /// A breadcrumb for the diagnostics ring (`attached tmux %3`).
    pub label: String,
}

/// A pane made by [`super::Pipeline::attach`].
#[derive(Debug)]
pub struct Attached {
    pub pane: PaneId,
    /// The pty's slave: raw, non-blocking, close-on-exec. Bytes written into it are the
    /// pane's output; bytes read from it are its input. Dropping it (with the stand-in
    /// told first) ends the pane like a child closing its terminal.
    pub slave: OwnedFd,
}

type KillHook = Box<dyn Fn() + Send + Sync>;

struct StandInState {
    exit: Mutex<Option<ExitStatus>>,
    on_kill: KillHook,
    /// The hook runs once (a close hangs up, then the reaper kills after its grace).
    killed: AtomicBool,
}

/// The feeder's handle on the stand-in: it tells it when the pane is gone.
#[derive(Clone)]
pub struct StandIn {
    state: Arc<StandInState>,
}

impl std::fmt::Debug for StandIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StandIn")
            .field("exit", &self.state.exit.lock().ok().and_then(|e| e.clone()))
            .finish()
    }
}

impl StandIn {
    /// A stand-in whose `kill` calls `on_kill` (for a tmux pane: ask the connection to
    /// kill the remote pane).
    pub fn new(on_kill: impl Fn() + Send + Sync + 'static) -> StandIn {
        StandIn {
            state: Arc::new(StandInState {
                exit: Mutex::new(None),
                on_kill: Box::new(on_kill),
                killed: AtomicBool::new(false),
            }),
        }
    }

    /// The `Child` for [`AttachSpec::child`].
    pub fn child(&self) -> StandInChild {
        StandInChild {
            state: self.state.clone(),
        }
    }

    /// The pane ended with `status`. Call it before dropping the slave: the pool asks
    /// the stand-in once the model read the pty's end.
    pub fn exited(&self, status: ExitStatus) {
        if let Ok(mut exit) = self.state.exit.lock() {
            exit.get_or_insert(status);
        }
    }
}

/// Takes a child's place for a pane without a local process.
pub struct StandInChild {
    state: Arc<StandInState>,
}

impl std::fmt::Debug for StandInChild {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StandInChild").finish_non_exhaustive()
    }
}

impl ChildKiller for StandInChild {
    fn kill(&mut self) -> std::io::Result<()> {
        let ended = self.state.exit.lock().map(|e| e.is_some()).unwrap_or(true);
        if !ended && !self.state.killed.swap(true, Ordering::AcqRel) {
            (self.state.on_kill)();
        }
        Ok(())
    }

    fn clone_killer(&self) -> Box<dyn ChildKiller + Send + Sync> {
        Box::new(StandInChild {
            state: self.state.clone(),
        })
    }
}

impl Child for StandInChild {
    fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        Ok(self.state.exit.lock().ok().and_then(|e| e.clone()))
    }

    /// Never blocks (the pool reaps on its own thread and must not hang on a far side
    /// that is gone): the status if the feeder gave one, else "killed" (a closed pane
    /// whose far side ends on its own time).
    fn wait(&mut self) -> std::io::Result<ExitStatus> {
        Ok(self
            .try_wait()?
            .unwrap_or_else(|| ExitStatus::with_signal("killed")))
    }

    fn process_id(&self) -> Option<u32> {
        None
    }
}

/// Opens a pty pair for an attached pane: the master as for a spawned child, the
/// slave raw, non-blocking and close-on-exec for the feeder.
pub(super) fn open_attached(
    size: TermSize,
    child: StandInChild,
) -> Result<(Spawned, OwnedFd), SpawnError> {
    let pty = |e: &dyn std::fmt::Display| SpawnError::Pty(e.to_string());
    let pair = native_pty_system()
        .openpty(pty_size(size))
        .map_err(|e| pty(&e))?;
    let name = pair
        .master
        .tty_name()
        .ok_or_else(|| SpawnError::Pty("the pty has no slave name".into()))?;
    // Our own descriptor of the slave: portable-pty's slave has no way to lend its
    // descriptor, and ours can be close-on-exec and non-blocking from the start.
    let slave = rustix::fs::open(
        &name,
        OFlags::RDWR | OFlags::NOCTTY | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| pty(&e))?;
    drop(pair.slave);
    make_raw(slave.as_fd()).map_err(|e| pty(&e))?;
    let master = pair.master;
    let raw = master
        .as_raw_fd()
        .ok_or_else(|| SpawnError::Pty("the master has no file descriptor".into()))?;
    // SAFETY: `raw` is the master's open descriptor, which `master` keeps open for the
    // duration of this borrow; we only duplicate it.
    let borrowed = unsafe { BorrowedFd::borrow_raw(raw) };
    let fd = rustix::io::fcntl_dupfd_cloexec(borrowed, 0).map_err(|e| pty(&e))?;
    set_nonblocking(fd.as_fd()).map_err(|e| pty(&e))?;
    Ok((
        Spawned {
            master,
            child: Box::new(child),
            fd,
            pid: None,
            pidfd: None,
            note: None,
        },
        slave,
    ))
}

/// cfmakeraw: no echo, no canonical mode, no signals, no CR/NL translation either way,
/// eight-bit characters. What the master writes is read from the slave unchanged, and
/// what the slave writes is read from the master unchanged.
fn make_raw(fd: BorrowedFd<'_>) -> std::io::Result<()> {
    use rustix::termios::{OptionalActions, tcgetattr, tcsetattr};
    let mut termios = tcgetattr(fd)?;
    termios.make_raw();
    tcsetattr(fd, OptionalActions::Now, &termios)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pair_passes_every_byte_unchanged_both_ways() {
        let stand_in = StandIn::new(|| {});
        let (spawned, slave) = open_attached(TermSize::new(80, 24), stand_in.child()).unwrap();
        let all: Vec<u8> = (0..=255u8).collect();
        let read_all = |fd: BorrowedFd<'_>, want: usize| {
            let mut got = Vec::new();
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
            while got.len() < want && std::time::Instant::now() < deadline {
                let mut buf = [0u8; 512];
                match rustix::io::read(fd, &mut buf) {
                    Ok(n) => got.extend_from_slice(&buf[..n]),
                    Err(_) => std::thread::sleep(std::time::Duration::from_millis(5)),
                }
            }
            got
        };
        // Output: slave → master (no ONLCR: \n stays \n).
        assert_eq!(rustix::io::write(&slave, &all).unwrap(), all.len());
        assert_eq!(read_all(spawned.fd.as_fd(), all.len()), all);
        // Input: master → slave (no ICRNL, no ^C signal, no echo back).
        assert_eq!(rustix::io::write(&spawned.fd, &all).unwrap(), all.len());
        assert_eq!(read_all(slave.as_fd(), all.len()), all);
        let mut buf = [0u8; 16];
        assert!(
            rustix::io::read(&spawned.fd, &mut buf).is_err(),
            "nothing echoed"
        );
    }

    #[test]
    fn the_stand_in_reports_what_the_feeder_said_and_kill_calls_the_hook() {
        let kills = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let k = kills.clone();
        let stand_in = StandIn::new(move || {
            k.fetch_add(1, Ordering::SeqCst);
        });
        let mut child = stand_in.child();
        assert!(child.try_wait().unwrap().is_none());
        child.clone_killer().kill().unwrap();
        child.kill().unwrap();
        assert_eq!(kills.load(Ordering::SeqCst), 1, "the hook runs once");
        assert!(!child.wait().unwrap().success(), "killed, never blocks");
        stand_in.exited(ExitStatus::with_exit_code(0));
        assert!(child.try_wait().unwrap().unwrap().success());
        assert_eq!(child.process_id(), None);
    }
}
