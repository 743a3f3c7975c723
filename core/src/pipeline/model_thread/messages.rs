//! What each message to the model thread does (`ModelMsg`): panes added and removed,
//! resizes, visibility, focus, theme, credits taken back, and the UI's requests.

use std::sync::atomic::Ordering;

use crate::pipeline::chunk::Chunk;
use crate::pipeline::{ModelMsg, PaneEvent, PaneId};

use super::ModelThread;

impl ModelThread {
    /// Returns false on shutdown.
    pub(super) fn handle(&mut self, msg: ModelMsg) -> bool {
        self.received += 1;
        match msg {
            ModelMsg::Chunk {
                pane,
                data,
                read_at,
            } => {
                if let Some(p) = self.panes.get_mut(&pane) {
                    p.stats
                        .last_read_ns
                        .store(self.epoch.elapsed().as_nanos() as u64, Ordering::Relaxed);
                    p.queue.push_back(Chunk {
                        data,
                        offset: 0,
                        read_at,
                        sent_before: self.received - 1,
                    });
                } else {
                    self.buffers.put(data);
                }
            }
            ModelMsg::Eof { pane, error } => {
                if let Some(p) = self.panes.get_mut(&pane) {
                    p.eof = true;
                }
                if let Some(e) = error {
                    self.crumbs.push(pane.0, format!("read error: {e}"));
                    let _ = self.events.send(PaneEvent::Error { pane, message: e });
                }
            }
            ModelMsg::Exited { pane, exit } => {
                self.crumbs.push(pane.0, format!("child exited: {exit}"));
                self.pending_exits.insert(pane, exit);
                self.flush_exits();
            }
            ModelMsg::Add { pane, mut entry } => {
                // Readable from the start: output written before the pty was watched
                // raised no edge.
                if let Err(e) = self.poller.add(pane, entry.input.fd()) {
                    let _ = entry.input.end(&entry.credit, None);
                    entry.eof = true;
                    let message = format!("cannot watch the pty: {e}");
                    self.crumbs.push(pane.0, message.clone());
                    let _ = self.events.send(PaneEvent::Error { pane, message });
                    (self.waker)();
                } else {
                    self.readable.push(pane);
                }
                // A pane added while a person types starts throttled (it is hidden).
                entry
                    .credit
                    .set_limit(self.pace.limit_for(entry.core.is_visible()));
                self.panes.insert(pane, *entry);
                self.order.push(pane);
            }
            // Nothing to do: the next round parses the pane again.
            ModelMsg::WriteQueueDrained { .. } => {}
            ModelMsg::AheadData { pane } => self.take_ahead(pane),
            ModelMsg::Remove { pane } => {
                self.take_back(pane);
                if let Some(p) = self.panes.remove(&pane) {
                    if p.input.open {
                        self.poller.remove(p.input.fd());
                    }
                    p.slot.clear();
                    for c in p.queue {
                        self.buffers.put(c.data);
                    }
                }
                self.order.retain(|p| *p != pane);
                self.readable.retain(|p| *p != pane);
                self.pending_exits.remove(&pane);
            }
            ModelMsg::Resize { pane, size } => {
                // A read in progress on the reading thread may hold bytes for the old
                // size: wait for it (the flood is read here again, then ahead again).
                self.take_back(pane);
                if let Some(p) = self.panes.get_mut(&pane) {
                    // Bytes read before this resize was sent were produced for the old
                    // size: parse them first. Later reads wait for the new size.
                    let this = self.received;
                    Self::drain_queue(p, this, &self.buffers, &self.events, self.epoch, pane);
                    p.core.resize(size);
                    p.size_pty_to_model();
                    self.crumbs
                        .push(pane.0, format!("resize {}x{}", size.cols, size.rows));
                    self.deliver(pane);
                }
            }
            ModelMsg::CellPixels {
                pane,
                width_px,
                height_px,
            } => {
                if let Some(p) = self.panes.get_mut(&pane) {
                    p.core
                        .term
                        .set_cell_pixel_size(usize::from(width_px), usize::from(height_px));
                    p.size_pty_to_model();
                }
            }
            ModelMsg::SetVisible { pane, visible } => {
                if let Some(p) = self.panes.get_mut(&pane) {
                    if p.core.is_visible() != visible {
                        self.crumbs
                            .push(pane.0, if visible { "reveal" } else { "park" });
                    }
                    p.core.set_visible(visible);
                    p.credit.set_limit(self.pace.limit_for(visible));
                    p.unseen_reported = false;
                    p.slot.clear();
                }
                self.deliver(pane);
            }
            ModelMsg::Focus { pane } => self.focused = pane,
            ModelMsg::Theme(theme) => {
                let panes: Vec<PaneId> = self.panes.keys().copied().collect();
                for pane in panes {
                    if let Some(p) = self.panes.get_mut(&pane) {
                        p.core.term.set_palette_defaults(theme);
                    }
                    self.deliver(pane);
                }
            }
            ModelMsg::Taken { pane } => {
                if let Some(p) = self.panes.get_mut(&pane) {
                    p.core.on_taken();
                    p.stats.frames_taken.fetch_add(1, Ordering::Relaxed);
                }
                self.deliver_unless_more(pane, true);
            }
            ModelMsg::Query { pane, reply, wake } => self.answer_dump(pane, reply, wake),
            ModelMsg::History {
                pane,
                first,
                count,
                reply,
                wake,
            } => self.answer_history(pane, first, count, reply, wake),
            ModelMsg::Search {
                pane,
                query,
                reply,
                progress,
            } => self.start_search(pane, query, reply, progress),
            ModelMsg::SearchPanes { job } => self.start_search_panes(*job),
            ModelMsg::SearchCredit => {}
            ModelMsg::Shutdown => {
                self.shutting_down = true;
                return false;
            }
        }
        true
    }
}
