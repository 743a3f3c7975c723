//! The model thread's side of reading ahead (`pipeline::ahead`): handing a flooding
//! pane to the reading thread, taking what it read, and taking the pane back.

use std::sync::atomic::Ordering;

use crate::pipeline::PaneId;
use crate::pipeline::ahead::{AheadPane, ReadAhead};
use crate::pipeline::diag::APP_CRUMB;
use crate::pipeline::reader::ReadOutcome;

use super::ModelThread;

impl ModelThread {
    /// A flood: the reading thread reads the pane from now on, while this thread parses
    /// (`ahead.rs`). Returns false if it cannot (no reading thread), and the pane is
    /// read here as before.
    pub(super) fn hand_over(&mut self, pane: PaneId) -> bool {
        if self.read_ahead.is_none() {
            let Some(tx) = self.read_ahead_tx.take() else {
                return false;
            };
            match ReadAhead::start(tx, self.buffers.clone()) {
                Ok(r) => self.read_ahead = Some(r),
                Err(e) => {
                    self.crumbs.push(
                        APP_CRUMB,
                        format!("floods are read on the model thread: no reading thread ({e})"),
                    );
                    return false;
                }
            }
        }
        let (Some(reader), Some(p)) = (&self.read_ahead, self.panes.get_mut(&pane)) else {
            return false;
        };
        let ahead = AheadPane::new(pane, p.input.shared_fd(), p.credit.clone());
        self.poller.remove(p.input.fd());
        p.streak_bytes = 0;
        // A flood: its scrollback lines are encoded as they come (no queue).
        p.core.term.set_scrollback_eager(true);
        p.ahead = Some(ahead.clone());
        p.stats.read_ahead_spells.fetch_add(1, Ordering::Relaxed);
        p.stats.reading_ahead.store(true, Ordering::Relaxed);
        self.ahead_panes.push(pane);
        reader.hand_over(ahead);
        true
    }

    /// Queues what the reading thread read for the pane; takes the pane back when that
    /// thread gave it back or its pty ended; rings the thread if it waits for room this
    /// thread's parsing made.
    pub(super) fn take_ahead(&mut self, pane: PaneId) {
        let Some(p) = self.panes.get_mut(&pane) else {
            return;
        };
        let Some(ahead) = p.ahead.clone() else {
            return;
        };
        let taken = ahead.take();
        if !taken.chunks.is_empty() {
            p.stats
                .last_read_ns
                .store(self.epoch.elapsed().as_nanos() as u64, Ordering::Relaxed);
        }
        p.queue.extend(taken.chunks);
        if !taken.back {
            if ahead.starved_with_room()
                && let Some(reader) = &self.read_ahead
            {
                reader.ring();
            }
            return;
        }
        p.ahead = None;
        p.stats.reading_ahead.store(false, Ordering::Relaxed);
        self.ahead_panes.retain(|id| *id != pane);
        if let Some(error) = taken.ended {
            let error = match p.input.end(&p.credit, error) {
                ReadOutcome::End(error) => error,
                _ => None,
            };
            self.pty_ended(pane, error);
        } else if let Err(e) = self.poller.add(pane, p.input.fd()) {
            let _ = p.input.end(&p.credit, None);
            self.pty_ended(pane, Some(format!("cannot watch the pty: {e}")));
        } else {
            // Bytes may wait whose edge the reading thread took.
            p.input.readable = true;
            if !self.readable.contains(&pane) {
                self.readable.push(pane);
            }
        }
    }

    /// Stops reading the pane ahead and takes everything read so far (before a query
    /// of the whole screen, or a close).
    pub(super) fn take_back(&mut self, pane: PaneId) {
        if let Some(ahead) = self.panes.get(&pane).and_then(|p| p.ahead.as_ref()) {
            ahead.stop();
            if let Some(reader) = &self.read_ahead {
                reader.ring();
            }
            self.take_ahead(pane);
        }
    }

    /// Rings the reading thread for panes whose window this thread's parsing emptied.
    pub(super) fn ring_starved(&self) {
        let starved = self.ahead_panes.iter().any(|id| {
            self.panes
                .get(id)
                .and_then(|p| p.ahead.as_ref())
                .is_some_and(|a| a.starved_with_room())
        });
        if starved && let Some(reader) = &self.read_ahead {
            reader.ring();
        }
    }
}
