//! The pipeline handle's per-pane API: input to a pane's pty, its size, visibility and
//! focus, the deliveries and events it produces, its activity, its process, and closing it.

use std::time::{Duration, Instant};

use crate::model::TermSize;

use super::delivery::Delivery;
use super::io::PoolCmd;
use super::{ModelMsg, PaneEvent, PaneId, Pipeline, ProcessInfo, activity};

impl Pipeline {
    /// Bytes for the pane's model as if its program had written them (a restored
    /// session's last screen, shown as history above the new prompt). They count as
    /// read, so the credit books stay exact.
    pub fn feed(&self, pane: PaneId, bytes: &[u8]) {
        let Some(credit) = self.with_pane(pane, |p| p.credit.clone()) else {
            return;
        };
        credit.on_read(bytes.len() as u64);
        let _ = self.model_tx.send(ModelMsg::Chunk {
            pane,
            data: bytes.to_vec(),
            read_at: Instant::now(),
        });
    }

    /// Keystrokes and paste: straight to the pty (never through the model). Counts as
    /// the user's input for the pane's activity (a waiting pane is answered).
    pub fn write(&self, pane: PaneId, bytes: &[u8]) {
        self.write_input(pane, bytes, false);
    }

    /// Like [`Pipeline::write`], and says that [`Pipeline::take_within`] for the pane
    /// comes next, without fail (the frame that writes a key, then waits for its echo):
    /// the slot hears it before the bytes go out, so an echo put before that call gets
    /// there wakes nobody (the call takes it).
    pub fn write_then_take(&self, pane: PaneId, bytes: &[u8]) {
        self.write_input(pane, bytes, true);
    }

    fn write_input(&self, pane: PaneId, bytes: &[u8], take_next: bool) {
        if let Some(w) = self.with_pane(pane, |p| {
            p.activity.on_input(Instant::now());
            if take_next {
                p.slot.expect();
            }
            p.writer.clone()
        }) {
            self.interaction.touch();
            w.write(bytes);
        }
    }

    /// Bytes the terminal itself sends (focus reports, answers the UI gives): like
    /// [`Pipeline::write`], but not the user's input.
    pub fn write_report(&self, pane: PaneId, bytes: &[u8]) {
        if let Some(w) = self.with_pane(pane, |p| p.writer.clone()) {
            w.write(bytes);
        }
    }

    /// Like [`Pipeline::write`] for a stream of any size (headless stdin): blocks the
    /// calling thread while the pane's write queue is over
    /// [`WRITE_QUEUE_HIGH_BYTES`](super::io::WRITE_QUEUE_HIGH_BYTES), so memory stays bounded.
    pub fn write_when_room(&self, pane: PaneId, bytes: &[u8]) {
        if let Some(w) = self.with_pane(pane, |p| p.writer.clone()) {
            w.write_when_room(bytes);
        }
    }

    /// Bytes waiting to be written to the pane's pty (replies and input its program has
    /// not read yet); bounded by backpressure near [`WRITE_QUEUE_HIGH_BYTES`](super::io::WRITE_QUEUE_HIGH_BYTES).
    pub fn write_queue_bytes(&self, pane: PaneId) -> Option<usize> {
        self.with_pane(pane, |p| p.writer.queued_bytes())
    }

    /// What the pane is doing now (running, waiting, done, idle), see [`activity`].
    pub fn activity(&self, pane: PaneId) -> Option<activity::ActivityReport> {
        let cell = self.with_pane(pane, |p| p.activity.clone())?;
        Some(cell.report(Instant::now()))
    }

    /// The agent's own report for the pane (its hook, `tern msg set-status`): it decides
    /// the pane's state until a newer report or its program ends. `false` when the
    /// pane is gone.
    pub fn report_activity(&self, pane: PaneId, report: activity::Report) -> bool {
        self.with_pane(pane, |p| p.activity.on_report(Instant::now(), report))
            .is_some()
    }

    /// Every pane's activity, by pane id (for `tern msg list`, the sidebar, the
    /// switcher).
    pub fn activities(&self) -> Vec<(PaneId, activity::ActivityReport)> {
        let cells: Vec<_> = self
            .panes
            .lock()
            .map(|p| p.iter().map(|(id, h)| (*id, h.activity.clone())).collect())
            .unwrap_or_default();
        let now = Instant::now();
        let mut out: Vec<_> = cells
            .into_iter()
            .map(|(id, c)| (id, c.report(now)))
            .collect();
        out.sort_by_key(|(id, _)| *id);
        out
    }

    /// Resizes the pane's model and pty. The model thread does both (the model first,
    /// so every byte the child writes after its SIGWINCH is parsed at the new size), so
    /// it is the pty's only resizer and a program's own resize (DECCOLM) cannot leave
    /// the pty and the model apart.
    pub fn resize(&self, pane: PaneId, size: TermSize) {
        let _ = self.model_tx.send(ModelMsg::Resize { pane, size });
    }

    /// Tells the model the window's cell size in physical pixels: programs learn it
    /// (XTWINOPS 14/16, the pty's pixel size) and images are sized in cells with it.
    pub fn set_cell_pixels(&self, pane: PaneId, width_px: u16, height_px: u16) {
        let _ = self.model_tx.send(ModelMsg::CellPixels {
            pane,
            width_px,
            height_px,
        });
    }

    /// Shows (reveal: a snapshot, then frames) or parks a pane.
    pub fn set_visible(&self, pane: PaneId, visible: bool) {
        self.with_pane(pane, |p| {
            p.visible = visible;
            p.slot.clear();
            if visible {
                p.activity.on_seen(Instant::now());
            }
        });
        if visible {
            self.interaction.touch();
        }
        let _ = self.model_tx.send(ModelMsg::SetVisible { pane, visible });
    }

    /// A person typed or looked at a pane now (keys and reveals count already): hidden
    /// floods get a smaller share for [`super::throttle::INTERACTION_MS`].
    pub fn note_interaction(&self) {
        self.interaction.touch();
    }

    /// Keys and reveals noted so far ([`Pipeline::note_interaction`]).
    pub fn interactions(&self) -> u64 {
        self.interaction.count()
    }

    pub fn set_focus(&self, pane: Option<PaneId>) {
        let _ = self.model_tx.send(ModelMsg::Focus { pane });
    }

    /// Takes the pane's pending delivery, returning the credit to the model.
    pub fn take(&self, pane: PaneId) -> Option<Delivery> {
        let slot = self.with_pane(pane, |p| p.slot.clone())?;
        let d = slot.take()?;
        let _ = self.model_tx.send(ModelMsg::Taken { pane });
        Some(d)
    }

    /// Like [`Pipeline::take`], waiting up to `timeout` for the delivery. For a pane
    /// just revealed: its snapshot is one viewport's copy away, and waiting that long
    /// beats showing an empty pane for a whole frame (invariant 5 allows the UI to
    /// wait for the model that long, no longer).
    pub fn take_within(&self, pane: PaneId, timeout: Duration) -> Option<Delivery> {
        let slot = self.with_pane(pane, |p| p.slot.clone())?;
        let d = slot.take_within(timeout)?;
        let _ = self.model_tx.send(ModelMsg::Taken { pane });
        Some(d)
    }

    /// Facts and exits since the last call.
    pub fn poll_events(&self) -> Vec<PaneEvent> {
        self.events.drain()
    }

    /// Waits up to `timeout` for the next event.
    pub fn wait_event(&self, timeout: Duration) -> Option<PaneEvent> {
        self.events.recv_timeout(timeout)
    }

    /// Kills the child (if still running) and forgets the pane.
    pub fn close(&self, pane: PaneId) {
        if let Some(mut handle) = self.panes.lock().ok().and_then(|mut p| p.remove(&pane)) {
            handle.hang_up();
            let size = handle
                .master
                .get_size()
                .ok()
                .filter(|s| s.cols > 0 && s.rows > 0)
                .map_or(self.config.default_size, |s| {
                    crate::model::TermSize::new(s.cols.into(), s.rows.into())
                });
            self.unkeep(pane, handle.keeper_key, size);
        }
        self.pool.send(PoolCmd::Remove(pane));
        let _ = self.model_tx.send(ModelMsg::Remove { pane });
        self.crumbs.push(pane.0, "closed");
    }

    pub fn pid(&self, pane: PaneId) -> Option<u32> {
        self.with_pane(pane, |p| p.pid).flatten()
    }

    /// What runs in the pane now: the shell's pid, the foreground process group's
    /// leader and its name, and the shell's working directory (Linux `/proc`; `None`
    /// parts elsewhere). Cheap enough for a tab title refresh now and then.
    pub fn process_info(&self, pane: PaneId) -> Option<ProcessInfo> {
        let (shell, fg) = self.with_pane(pane, |p| (p.pid, p.master.process_group_leader()))?;
        let foreground = fg.and_then(|pid| u32::try_from(pid).ok());
        let name = |pid: u32| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .ok()
                .map(|s| s.trim_end().to_owned())
        };
        Some(ProcessInfo {
            shell_pid: shell,
            foreground_pid: foreground,
            foreground_name: foreground.and_then(name),
            cwd: shell.and_then(|pid| std::fs::read_link(format!("/proc/{pid}/cwd")).ok()),
        })
    }
}
