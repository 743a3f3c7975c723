//! The model thread's deliveries: a frame or snapshot put in a visible pane's slot when
//! the UI holds the credit (or held back while a burst goes on), and exits reported
//! once their pane parsed every byte read before them.

use std::sync::atomic::Ordering;
use std::time::Instant;

use crate::pipeline::{PaneEvent, PaneId};

use super::ModelThread;

impl ModelThread {
    /// Delivers, unless the frame can wait for the next read ([`PaneEntry::frame_can_wait`]);
    /// wakes the UI now or when the round ends ([`ModelThread::wake_due`]).
    pub(super) fn deliver_unless_more(&mut self, pane: PaneId, wake_now: bool) {
        let Some(p) = self.panes.get_mut(&pane) else {
            return;
        };
        p.frame_owed = p.frame_can_wait();
        if !p.frame_owed && self.put_delivery(pane) {
            if wake_now {
                (self.waker)();
            } else {
                self.wake_due = true;
            }
        }
    }

    /// Builds the next delivery for a visible pane if the UI holds the credit.
    pub(super) fn deliver(&mut self, pane: PaneId) {
        if self.put_delivery(pane) {
            (self.waker)();
        }
    }

    /// Puts the next delivery for a visible pane in its slot if the UI holds the credit;
    /// returns whether the UI must be woken for it: it was put, and no frame was
    /// waiting for it or about to (a frame that wrote a key waits for the echo in
    /// `Slot::take_within` and draws it; a wake-up would only cost an empty frame).
    pub(super) fn put_delivery(&mut self, pane: PaneId) -> bool {
        let Some(p) = self.panes.get_mut(&pane) else {
            return false;
        };
        let started = Instant::now();
        if let Some(mut d) = p.core.next_delivery() {
            p.framed_seq = p.core.seq;
            p.stats
                .last_frame_ns
                .store(self.epoch.elapsed().as_nanos() as u64, Ordering::Relaxed);
            match &mut d {
                crate::pipeline::delivery::Delivery::Snapshot(s) => {
                    p.stats.snapshots_built.fetch_add(1, Ordering::Relaxed);
                    self.crumbs.push(
                        pane.0,
                        format!(
                            "snapshot seq {} ({} rows, {} history) built in {} µs",
                            s.seq,
                            s.rows.len(),
                            s.history.len(),
                            s.built_at.saturating_duration_since(started).as_micros()
                        ),
                    );
                }
                crate::pipeline::delivery::Delivery::Frame(f) => {
                    f.read_at = p.last_read_at;
                    p.stats.frames_built.fetch_add(1, Ordering::Relaxed);
                }
            }
            return !p.slot.put(d);
        }
        false
    }

    /// Reports exits whose pane has parsed every byte read before the exit.
    pub(super) fn flush_exits(&mut self) {
        let ready: Vec<PaneId> = self
            .pending_exits
            .keys()
            .copied()
            .filter(|pane| self.panes.get(pane).is_none_or(|p| p.queue.is_empty()))
            .collect();
        for pane in ready {
            if let Some(exit) = self.pending_exits.remove(&pane) {
                if let Some(p) = self.panes.get_mut(&pane) {
                    // Nothing is left to pop the program's keyboard flags.
                    p.core.term.reset_keyboard_flags();
                    p.activity.on_exit(Instant::now(), exit.code);
                    p.stats
                        .heap_bytes
                        .store(p.core.term.heap_bytes() as u64, Ordering::Relaxed);
                    p.stats
                        .image_bytes
                        .store(p.core.term.image_heap_bytes() as u64, Ordering::Relaxed);
                }
                self.deliver(pane);
                let _ = self.events.send(PaneEvent::Exited { pane, exit });
                (self.waker)();
            }
        }
    }
}
