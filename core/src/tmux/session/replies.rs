//! Replies to the commands a [`ControlSession`] sent for itself (`list-windows`,
//! `list-panes`) and the window and pane state they bring.

use super::*;

impl ControlSession {
    pub(super) fn reply(&mut self, block: ReplyBlock, events: &mut Vec<Event>) {
        if !block.from_this_client() {
            return;
        }
        let Some(pending) = self.pending.pop_front() else {
            events.push(Event::Error(SessionError::UnexpectedReply {
                number: block.number,
            }));
            return;
        };
        if let Some(command) = pending.internal {
            self.own_reply(&command, pending.kind, block, events);
            return;
        }
        let result = if block.ok {
            parse_response(pending.kind, block.lines)
        } else {
            Err(ReplyError::Failed {
                message: block.text(),
            })
        };
        if let Ok(Response::Windows(infos)) = &result {
            self.apply_windows(infos, events);
        }
        // tmux ran none of the line after a command that failed.
        let skipped = match &result {
            Err(e) if pending.then_next => {
                self.pending.pop_front().map(|next| (next.id, e.clone()))
            }
            _ => None,
        };
        events.push(Event::Reply {
            id: pending.id,
            result,
        });
        if let Some((id, e)) = skipped {
            events.push(Event::Reply { id, result: Err(e) });
        }
    }

    /// A reply to the session's own command: a window list is applied line by line
    /// (a line that does not parse is reported and skipped, the rest still counts).
    pub(super) fn own_reply(
        &mut self,
        command: &str,
        kind: ReplyKind,
        block: ReplyBlock,
        events: &mut Vec<Event>,
    ) {
        let failed = |message: String| {
            Event::Error(SessionError::OwnCommandFailed {
                command: command.to_owned(),
                message,
            })
        };
        if !block.ok {
            events.push(failed(block.text()));
        } else if kind == ReplyKind::Windows {
            let mut infos = Vec::new();
            for line in &block.lines {
                match WindowInfo::parse(line) {
                    Some(info) => infos.push(info),
                    None => events.push(failed(format!(
                        "unreadable line {:?}",
                        String::from_utf8_lossy(line)
                    ))),
                }
            }
            self.apply_windows(&infos, events);
        }
        if kind == ReplyKind::Windows {
            self.syncs_in_flight = self.syncs_in_flight.saturating_sub(1);
            if self.syncs_in_flight == 0 {
                self.release_held(events);
            }
        }
    }

    /// The window list tmux gave is the truth: windows it does not list are gone.
    pub(super) fn apply_windows(&mut self, infos: &[WindowInfo], events: &mut Vec<Event>) {
        let listed: Vec<WindowId> = infos.iter().map(|i| i.window).collect();
        let gone: Vec<WindowId> = self
            .windows
            .keys()
            .copied()
            .filter(|w| !listed.contains(w))
            .collect();
        for window in gone {
            self.windows.remove(&window);
            events.push(Event::WindowClosed(window));
        }
        for info in infos {
            self.add_window(info.window, events);
            if let Some(w) = self.windows.get_mut(&info.window) {
                w.index = Some(info.index);
                w.name.clone_from(&info.name);
                w.layout = Some(info.layout.clone());
                w.visible_layout = Some(info.visible_layout.clone());
            }
            if info.active {
                self.active_window = Some(info.window);
            }
        }
        self.update_panes(events);
    }

    /// Panes are the leaves of the windows' layouts: make sinks for new ones, drop
    /// those of panes gone, and hand held output to panes now known.
    pub(super) fn update_panes(&mut self, events: &mut Vec<Event>) {
        let mut wanted = BTreeMap::new();
        for w in self.windows.values() {
            if let Some(layout) = &w.layout {
                for pane in layout.panes() {
                    wanted.insert(pane, w.id);
                }
            }
        }
        let gone: Vec<TmuxPaneId> = self
            .panes
            .keys()
            .copied()
            .filter(|p| !wanted.contains_key(p))
            .collect();
        for pane in gone {
            self.panes.remove(&pane);
            events.push(Event::PaneClosed(pane));
        }
        for (pane, window) in wanted {
            if let Some(entry) = self.panes.get_mut(&pane) {
                entry.state.window = window;
                continue;
            }
            let mut sink = (self.sinks)(pane);
            if let Some(held) = self.held.remove(&pane) {
                self.held_bytes = self
                    .held_bytes
                    .saturating_sub(held.bytes.len() + HELD_ENTRY_BYTES);
                if !held.bytes.is_empty() {
                    sink.output(&held.bytes);
                }
                if held.dropped > 0 {
                    events.push(Event::Error(SessionError::HeldOutputDropped {
                        pane,
                        bytes: held.dropped,
                    }));
                }
            }
            self.panes.insert(
                pane,
                PaneEntry {
                    state: PaneState {
                        id: pane,
                        window,
                        paused: false,
                    },
                    sink,
                },
            );
            events.push(Event::PaneAdded { pane, window });
        }
    }

    /// No list is coming: output still held is for panes tmux does not have.
    pub(super) fn release_held(&mut self, events: &mut Vec<Event>) {
        for (pane, held) in std::mem::take(&mut self.held) {
            events.push(Event::Error(SessionError::UnknownPane {
                pane,
                bytes: held.bytes.len() + held.dropped,
            }));
        }
        self.held_bytes = 0;
        let (panes, bytes) = std::mem::take(&mut self.held_refused);
        if panes > 0 {
            events.push(Event::Error(SessionError::HeldOutputOverCap {
                panes,
                bytes,
            }));
        }
    }
}
