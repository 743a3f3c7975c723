//! The model thread's reads: each readable pty once per look (at most its room and one
//! buffer), a flood handed to the reading thread, and a pty's end.

use std::sync::atomic::Ordering;

use crate::pipeline::PaneEvent;
use crate::pipeline::PaneId;
use crate::pipeline::chunk::Chunk;
use crate::pipeline::reader::ReadOutcome;

use super::ModelThread;

impl ModelThread {
    /// Takes the panes the poller reports readable (without waiting), then reads each
    /// readable pane once (at most its room and one buffer): queries and keystrokes'
    /// echoes get in between parse slices, and a flood cannot make a round long.
    pub(super) fn read_ptys(&mut self) {
        let mut woken = std::mem::take(&mut self.woken);
        self.poller.poll(&mut woken);
        self.mark_readable(&mut woken);
        self.woken = woken;
        let mut i = 0;
        while let Some(&pane) = self.readable.get(i) {
            // Bytes read and not yet parsed: the read that brought them kicked the
            // tty's flush work, and a read now would wait for it (in `n_tty_read`,
            // asleep, and woken again); after the parse it finds the bytes there.
            if self.panes.get(&pane).is_some_and(|p| !p.queue.is_empty()) {
                i += 1;
                continue;
            }
            let still = self.read_pane(pane);
            if still {
                i += 1;
            } else {
                self.readable.remove(i);
            }
        }
        let mut i = 0;
        while let Some(&pane) = self.ahead_panes.get(i) {
            self.take_ahead(pane);
            if self.ahead_panes.get(i) == Some(&pane) {
                i += 1;
            }
        }
    }

    pub(super) fn mark_readable(&mut self, woken: &mut Vec<PaneId>) {
        for pane in woken.drain(..) {
            if let Some(p) = self.panes.get_mut(&pane)
                && p.input.open
                && !p.input.readable
                && p.ahead.is_none()
            {
                p.input.readable = true;
                self.readable.push(pane);
            }
        }
    }

    /// One read of the pane's pty; returns whether it may hold more input.
    pub(super) fn read_pane(&mut self, pane: PaneId) -> bool {
        let Some(p) = self.panes.get_mut(&pane) else {
            return false;
        };
        if p.ahead.is_some() {
            self.take_ahead(pane);
            return false;
        }
        let sent_before = self.poller.sent();
        match p
            .input
            .read_once(pane, &p.credit, &self.buffers, &self.crumbs)
        {
            ReadOutcome::Data(data, read_at) => {
                p.stats
                    .last_read_ns
                    .store(self.epoch.elapsed().as_nanos() as u64, Ordering::Relaxed);
                p.streak_bytes += data.len() as u64;
                p.last_read_bytes = data.len();
                let flood = p.streak_bytes >= self.read_ahead_after;
                p.queue.push_back(Chunk {
                    data,
                    offset: 0,
                    read_at,
                    sent_before,
                });
                !(flood && self.hand_over(pane))
            }
            ReadOutcome::Nothing => {
                if !p.input.readable {
                    p.streak_bytes = 0;
                }
                p.input.readable
            }
            ReadOutcome::End(error) => {
                self.poller.remove(p.input.fd());
                self.pty_ended(pane, error);
                false
            }
        }
    }

    /// The pane's pty reached its end (`error` if another error than the child's
    /// closing ended it).
    pub(super) fn pty_ended(&mut self, pane: PaneId, error: Option<String>) {
        if let Some(p) = self.panes.get_mut(&pane) {
            p.eof = true;
        }
        if let Some(e) = error {
            self.crumbs.push(pane.0, format!("read error: {e}"));
            let _ = self.events.send(PaneEvent::Error { pane, message: e });
            (self.waker)();
        }
    }

    /// Reads what the pane's pty holds now, as far as the window allows (before a
    /// query of the whole screen).
    pub(super) fn read_pane_now(&mut self, pane: PaneId) {
        self.take_back(pane);
        let mut woken = std::mem::take(&mut self.woken);
        self.poller.poll(&mut woken);
        self.mark_readable(&mut woken);
        self.woken = woken;
        while self.read_pane(pane) {
            if !self
                .panes
                .get(&pane)
                .is_some_and(|p| p.input.wants_read(&p.credit))
            {
                break;
            }
        }
        self.readable.retain(|id| {
            self.panes
                .get(id)
                .is_some_and(|p| p.input.readable && p.input.open)
        });
    }
}
