//! Flow control of one remote pane: tmux's output for it, mapped onto tern's credit.
//!
//! One ssh stream carries every pane of a connection, so a pane whose model is behind
//! must never stop the stream (that would stall every other pane). The pane's bytes
//! go into the slave of its pty pair (`pipeline::attach`); the model thread reads the
//! master under the pane's credit window, so when the model is behind, the slave stops
//! taking bytes (`EAGAIN`). Then:
//!
//! ```text
//!  output ─▶ slave takes it? ─yes─▶ written
//!                 │ no (EAGAIN: blocked until writable)
//!                 ▼
//!           kept (≤ keep_max_bytes; beyond: dropped, counted)
//!                 │ kept > keep_high_bytes and not paused
//!                 ▼
//!           Pause: `refresh-client -A '%N:pause'` (tmux sends nothing more for it)
//!  writable ─▶ kept written; all of it written and paused
//!                 ▼
//!           ContinueAndRepaint: `capture-pane -p -e`, the cursor, then
//!           `refresh-client -A '%N:continue'`; the captured screen is written as a
//!           repaint before anything that follows the continue.
//! ```
//!
//! tmux drops a paused pane's output (it only keeps its screen up to date), so every
//! pause ends with a repaint, whoever paused (tern, or tmux itself with
//! `pause-after` when the stream fell behind). The one difference from a local pane:
//! what the program wrote while paused is not in tern's scrollback.
//!
//! [`PaneFlow`] makes the decisions and owns no descriptor: its caller passes the
//! write (a closure over the slave), so it is tested without a pty.

use std::collections::VecDeque;
use std::io;

/// When a remote pane is paused and how much of its output is kept meanwhile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowConfig {
    /// Kept bytes past which the pane is paused in tmux.
    pub keep_high_bytes: usize,
    /// Most bytes kept; output beyond it (tmux's bytes already on the way when the
    /// pause was asked) is dropped, and the repaint that follows makes up for it.
    pub keep_max_bytes: usize,
}

impl Default for FlowConfig {
    fn default() -> FlowConfig {
        FlowConfig {
            keep_high_bytes: 256 * 1024,
            keep_max_bytes: 1 << 20,
        }
    }
}

/// What the caller must ask tmux.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowStep {
    /// `refresh-client -A '%N:pause'`.
    Pause,
    /// `capture-pane -p -e`, `display-message` for the cursor, then
    /// `refresh-client -A '%N:continue'`; the repaint built from the replies goes
    /// through [`PaneFlow::repaint`].
    ContinueAndRepaint,
}

/// Counters of one pane's flow (cumulative).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowStats {
    /// Pauses tern asked.
    pub pauses_asked: u64,
    /// Pauses tmux made on its own (`pause-after`).
    pub tmux_pauses: u64,
    /// Continues (each with a repaint).
    pub continues: u64,
    pub bytes_written: u64,
    pub bytes_dropped: u64,
    /// Most bytes ever kept at once.
    pub max_kept_bytes: usize,
}

/// One pane's flow state. See the module documentation.
#[derive(Debug)]
pub struct PaneFlow {
    config: FlowConfig,
    kept: VecDeque<u8>,
    /// The last write found the slave full; nothing is written until it is writable.
    blocked: bool,
    /// tmux sends nothing for the pane until tern continues it.
    paused: bool,
    /// `%pause` notifications still to come for pauses tern asked.
    pause_acks_due: u32,
    /// The slave is gone: everything is discarded.
    closed: bool,
    stats: FlowStats,
}

impl PaneFlow {
    pub fn new(config: FlowConfig) -> PaneFlow {
        PaneFlow {
            config: FlowConfig {
                keep_high_bytes: config.keep_high_bytes.min(config.keep_max_bytes),
                ..config
            },
            kept: VecDeque::new(),
            blocked: false,
            paused: false,
            pause_acks_due: 0,
            closed: false,
            stats: FlowStats::default(),
        }
    }

    pub fn stats(&self) -> FlowStats {
        self.stats
    }

    pub fn kept_bytes(&self) -> usize {
        self.kept.len()
    }

    pub fn is_paused(&self) -> bool {
        self.paused
    }

    pub fn is_blocked(&self) -> bool {
        self.blocked
    }

    /// Output from tmux for the pane: written now if nothing waits before it and the
    /// slave takes it, else kept (up to the cap; the rest dropped).
    pub fn output<W>(&mut self, bytes: &[u8], write: W) -> Option<FlowStep>
    where
        W: FnMut(&[u8]) -> io::Result<usize>,
    {
        self.push(bytes, write, false)
    }

    /// A repaint (after [`FlowStep::ContinueAndRepaint`]): like output, but never
    /// dropped (it is one screen, and it is what makes up for what was dropped).
    pub fn repaint<W>(&mut self, bytes: &[u8], write: W) -> Option<FlowStep>
    where
        W: FnMut(&[u8]) -> io::Result<usize>,
    {
        self.push(bytes, write, true)
    }

    /// The slave takes bytes again: writes what was kept; once all of it is written, a
    /// paused pane is continued.
    pub fn writable<W>(&mut self, mut write: W) -> Option<FlowStep>
    where
        W: FnMut(&[u8]) -> io::Result<usize>,
    {
        if self.closed {
            return None;
        }
        self.blocked = false;
        self.drain(&mut write);
        self.continue_if_drained()
    }

    /// tmux said `%pause`: the answer to tern's pause, or tmux's own (`pause-after`),
    /// which is continued as soon as nothing is kept.
    pub fn tmux_paused(&mut self) -> Option<FlowStep> {
        if self.pause_acks_due > 0 {
            self.pause_acks_due -= 1;
            return None;
        }
        if self.paused || self.closed {
            return None;
        }
        self.stats.tmux_pauses += 1;
        self.paused = true;
        self.continue_if_drained()
    }

    /// The slave is gone: nothing more is written or kept.
    pub fn close(&mut self) {
        self.closed = true;
        self.kept = VecDeque::new();
    }

    fn push<W>(&mut self, bytes: &[u8], mut write: W, force: bool) -> Option<FlowStep>
    where
        W: FnMut(&[u8]) -> io::Result<usize>,
    {
        if self.closed || bytes.is_empty() {
            return None;
        }
        let mut rest = bytes;
        if self.kept.is_empty() && !self.blocked {
            let n = self.write_some(rest, &mut write);
            rest = &rest[n..];
        }
        if !rest.is_empty() {
            let room = if force {
                rest.len()
            } else {
                self.config.keep_max_bytes.saturating_sub(self.kept.len())
            };
            let keep = room.min(rest.len());
            self.kept.extend(&rest[..keep]);
            self.stats.bytes_dropped += (rest.len() - keep) as u64;
            self.stats.max_kept_bytes = self.stats.max_kept_bytes.max(self.kept.len());
        }
        if self.kept.len() > self.config.keep_high_bytes && !self.paused {
            self.paused = true;
            self.pause_acks_due += 1;
            self.stats.pauses_asked += 1;
            return Some(FlowStep::Pause);
        }
        None
    }

    fn continue_if_drained(&mut self) -> Option<FlowStep> {
        if self.paused && self.kept.is_empty() && !self.blocked && !self.closed {
            self.paused = false;
            self.stats.continues += 1;
            return Some(FlowStep::ContinueAndRepaint);
        }
        None
    }

    fn drain<W>(&mut self, write: &mut W)
    where
        W: FnMut(&[u8]) -> io::Result<usize>,
    {
        while !self.kept.is_empty() && !self.blocked && !self.closed {
            let (front, _) = self.kept.as_slices();
            let front = front.to_vec();
            let n = self.write_some(&front, write);
            self.kept.drain(..n);
            if n < front.len() {
                break;
            }
        }
    }

    /// Writes as much of `bytes` as the slave takes; sets `blocked` on `EAGAIN`, closes
    /// on any other error.
    fn write_some<W>(&mut self, bytes: &[u8], write: &mut W) -> usize
    where
        W: FnMut(&[u8]) -> io::Result<usize>,
    {
        let mut done = 0;
        while done < bytes.len() {
            match write(&bytes[done..]) {
                Ok(0) => {
                    self.blocked = true;
                    break;
                }
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.blocked = true;
                    break;
                }
                Err(_) => {
                    self.close();
                    return bytes.len();
                }
            }
        }
        self.stats.bytes_written += done as u64;
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A slave that takes `room` bytes, then says `EAGAIN`.
    struct Slave {
        got: Vec<u8>,
        room: usize,
    }

    impl Slave {
        fn write(&mut self) -> impl FnMut(&[u8]) -> io::Result<usize> + '_ {
            |bytes| {
                if self.room == 0 {
                    return Err(io::ErrorKind::WouldBlock.into());
                }
                let n = bytes.len().min(self.room);
                self.room -= n;
                self.got.extend_from_slice(&bytes[..n]);
                Ok(n)
            }
        }
    }

    const SMALL: FlowConfig = FlowConfig {
        keep_high_bytes: 10,
        keep_max_bytes: 20,
    };

    #[test]
    fn a_slave_that_keeps_up_gets_everything_and_no_pause() {
        let mut flow = PaneFlow::new(SMALL);
        let mut slave = Slave {
            got: Vec::new(),
            room: usize::MAX,
        };
        for i in 0..100u8 {
            assert_eq!(flow.output(&[i; 7], slave.write()), None);
        }
        assert_eq!(slave.got.len(), 700);
        assert_eq!(flow.stats().pauses_asked, 0);
    }

    #[test]
    fn a_full_slave_keeps_then_pauses_then_drops_then_continues_with_a_repaint() {
        let mut flow = PaneFlow::new(SMALL);
        let mut slave = Slave {
            got: Vec::new(),
            room: 4,
        };
        assert_eq!(flow.output(b"abcdefgh", slave.write()), None);
        assert_eq!((slave.got.as_slice(), flow.kept_bytes()), (&b"abcd"[..], 4));
        assert!(flow.is_blocked());
        assert_eq!(
            flow.output(b"ijklmno", slave.write()),
            Some(FlowStep::Pause)
        );
        assert_eq!(flow.output(b"0123456789", slave.write()), None, "once");
        assert_eq!(flow.kept_bytes(), 20);
        assert_eq!(flow.stats().bytes_dropped, 1);
        assert_eq!(flow.tmux_paused(), None, "the answer to our pause");
        slave.room = 15;
        assert_eq!(flow.writable(slave.write()), None, "5 bytes still kept");
        slave.room = 100;
        assert_eq!(
            flow.writable(slave.write()),
            Some(FlowStep::ContinueAndRepaint)
        );
        assert_eq!(slave.got, b"abcdefghijklmno012345678");
        assert_eq!(flow.repaint(b"[screen]", slave.write()), None);
        assert!(slave.got.ends_with(b"[screen]"));
        assert!(!flow.is_paused());
    }

    #[test]
    fn tmux_pausing_on_its_own_is_continued_once_nothing_is_kept() {
        let mut flow = PaneFlow::new(SMALL);
        let mut slave = Slave {
            got: Vec::new(),
            room: 0,
        };
        flow.output(b"xy", slave.write());
        assert_eq!(flow.tmux_paused(), None, "blocked: wait");
        slave.room = 10;
        assert_eq!(
            flow.writable(slave.write()),
            Some(FlowStep::ContinueAndRepaint)
        );
        assert_eq!(flow.tmux_paused(), Some(FlowStep::ContinueAndRepaint));
        assert_eq!(flow.stats().tmux_pauses, 2);
    }
}
