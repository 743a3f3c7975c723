//! What the worker does with the control session's events: replies to its own
//! commands, panes attached to the pipeline as tmux reports them, and layouts
//! reported to the app.

use super::*;

impl Worker {
    pub(super) fn handle(&self, live: &mut Live, events: Vec<Event>) {
        let changed = !events.is_empty();
        for event in events {
            self.event(live, event);
        }
        self.flow_steps(live);
        if changed {
            self.report_layouts(live);
        }
    }

    pub(super) fn event(&self, live: &mut Live, event: Event) {
        match event {
            Event::Reply { id, result } => self.reply(live, id, result),
            Event::WindowClosed(window) => {
                live.reported.remove(&window);
                if live.announced.remove(&window) {
                    self.emit(RemoteEvent::WindowClosed(window));
                }
            }
            Event::WindowRenamed { window, name } => {
                self.emit(RemoteEvent::WindowRenamed { window, name })
            }
            Event::PaneAdded { pane, window } => self.attach(live, pane, window),
            Event::PaneClosed(remote) => {
                if let Some(r) = live.remotes.remove(&remote) {
                    if let Some(slave) = r.io.lock().ok().and_then(|io| io.slave.clone()) {
                        let _ = epoll::delete(&live.epoll, &*slave);
                    }
                    self.end_pane(&r, ExitStatus::with_exit_code(0));
                    if let Some(pane) = r.pane {
                        self.emit(RemoteEvent::PaneGone { remote, pane });
                    }
                }
                if let Ok(mut reg) = self.parts.registry.lock() {
                    reg.remove(&remote);
                }
            }
            Event::ActivePaneChanged { window, pane } => {
                let tern = live.remotes.get(&pane).and_then(|r| r.pane);
                self.emit(RemoteEvent::ActivePane {
                    window,
                    remote: pane,
                    pane: tern,
                });
            }
            Event::ActiveWindowChanged(window) => self.emit(RemoteEvent::ActiveWindow(window)),
            Event::PanePaused(remote) => {
                if let Some(r) = live.remotes.get(&remote)
                    && let Ok(mut io) = r.io.lock()
                {
                    io.step(|flow, _| flow.tmux_paused());
                }
            }
            Event::SessionChanged { session, name } => {
                if !live.connected {
                    live.connected = true;
                    self.crumb(format!("remote {name}: connected"));
                }
                self.emit(RemoteEvent::Connected { session, name });
            }
            Event::Exit { reason } => live.exit = Some(reason),
            Event::Error(e) => {
                let what = format!("remote {}: {e}", self.parts.spec.session_name);
                self.crumb(what.clone());
                self.emit(RemoteEvent::Problem(what));
            }
            Event::WindowAdded(_)
            | Event::PaneContinued(_)
            | Event::PaneModeChanged(_)
            | Event::LayoutChanged(_)
            | Event::SessionsChanged
            | Event::ClientDetached { .. }
            | Event::Other(_) => {}
        }
    }

    pub(super) fn reply(
        &self,
        live: &mut Live,
        id: CommandId,
        result: Result<Response, super::super::events::ReplyError>,
    ) {
        let Some(purpose) = live.purposes.remove(&id) else {
            return;
        };
        match (purpose, result) {
            (Purpose::Capture(pane), Ok(Response::Screen { rows })) => {
                if let Some(r) = live.remotes.get_mut(&pane) {
                    r.captured = Some(rows);
                }
            }
            (Purpose::Cursor(pane), Ok(Response::Done { lines })) => {
                let cursor = lines.first().and_then(|l| PaneCursor::parse(l));
                if let Some(r) = live.remotes.get_mut(&pane)
                    && let Some(rows) = r.captured.take()
                {
                    let bytes = repaint_bytes(&rows, cursor);
                    if let Ok(mut io) = r.io.lock() {
                        io.step(|flow, slave| flow.repaint(&bytes, |b| write_slave(slave, b)));
                    }
                }
            }
            (Purpose::App(command), Err(e)) => {
                self.emit(RemoteEvent::CommandFailed {
                    command,
                    message: format!("{e:?}"),
                });
            }
            (Purpose::Capture(pane) | Purpose::Cursor(pane), Err(e)) => {
                // The pane went away meanwhile, most likely.
                if let Some(r) = live.remotes.get_mut(&pane) {
                    r.captured = None;
                }
                self.crumb(format!("remote {pane}: repaint failed: {e:?}"));
            }
            _ => {}
        }
    }

    /// A tmux pane appeared: a tern pane of its size, its slave watched, its screen
    /// read (an attaching client is sent nothing of what is already there).
    pub(super) fn attach(&self, live: &mut Live, remote: TmuxPaneId, window: WindowId) {
        let Some(io) = self
            .parts
            .registry
            .lock()
            .ok()
            .and_then(|r| r.get(&remote).cloned())
        else {
            return;
        };
        if live.remotes.len() >= MAX_REMOTE_PANES {
            live.refused_panes += 1;
            let what = format!(
                "remote {}: pane {remote} not shown: a remote session shows at most \
                 {MAX_REMOTE_PANES} panes ({} refused)",
                self.parts.spec.session_name, live.refused_panes
            );
            self.crumb(what.clone());
            if live.refused_panes == 1 {
                self.emit(RemoteEvent::Problem(what));
            }
            return;
        }
        let size = live
            .session
            .window(window)
            .and_then(|w| w.layout.as_ref())
            .and_then(|l| pane_size(&l.root, remote))
            .map(|size| self.capped_size(live, remote, size));
        let kill = self.parts.commands_tx.clone();
        let stand_in = StandIn::new(move || {
            kill.send(RemoteCommand::KillPane(remote));
        });
        let attached = self.parts.pipeline.attach(AttachSpec {
            size,
            child: stand_in.child(),
            answers_queries: false,
            label: format!("attached tmux {remote} of {}", self.parts.spec.session_name),
        });
        let attached = match attached {
            Ok(a) => a,
            Err(e) => {
                self.emit(RemoteEvent::Problem(format!("cannot attach {remote}: {e}")));
                return;
            }
        };
        let slave = Arc::new(attached.slave);
        let flags = epoll::EventFlags::IN
            | epoll::EventFlags::OUT
            | epoll::EventFlags::RDHUP
            | epoll::EventFlags::ET;
        if let Err(e) = epoll::add(
            &live.epoll,
            &*slave,
            epoll::EventData::new_u64(PANE_BASE + u64::from(remote.0)),
            flags,
        ) {
            self.emit(RemoteEvent::Problem(format!("cannot watch {remote}: {e}")));
        }
        if let Ok(mut io) = io.lock() {
            io.slave = Some(slave);
            io.pane = Some(attached.pane);
            io.step(|flow, slave| flow.writable(|b| write_slave(slave, b)));
        }
        live.remotes.insert(
            remote,
            Remote {
                io,
                pane: Some(attached.pane),
                stand_in: Some(stand_in),
                keys_readable: true,
                captured: None,
            },
        );
        self.emit(RemoteEvent::PaneAttached {
            remote,
            pane: attached.pane,
            window,
        });
        self.repaint(live, remote);
    }

    /// `size` within [`MAX_REMOTE_PANE_COLS`] x [`MAX_REMOTE_PANE_ROWS`]; the first
    /// time a pane is over, the user is told.
    pub(super) fn capped_size(
        &self,
        live: &mut Live,
        remote: TmuxPaneId,
        size: TermSize,
    ) -> TermSize {
        let capped = TermSize::new(
            size.cols.min(MAX_REMOTE_PANE_COLS),
            size.rows.min(MAX_REMOTE_PANE_ROWS),
        );
        if capped != size && live.oversize_told.insert(remote) {
            let what = format!(
                "remote {}: pane {remote} is {}x{} in tmux; shown as {}x{} (the most for \
                 a remote pane), what lies past that is cut",
                self.parts.spec.session_name, size.cols, size.rows, capped.cols, capped.rows
            );
            self.crumb(what.clone());
            self.emit(RemoteEvent::Problem(what));
        }
        capped
    }

    /// Announces each window once its index is known (`list-windows` answered), then
    /// reports each window whose layout is new or changed, and sizes its panes' models
    /// to their cells.
    pub(super) fn report_layouts(&self, live: &mut Live) {
        let windows: Vec<(WindowId, u32, String, Option<Layout>)> = live
            .session
            .windows()
            .filter_map(|w| Some((w.id, w.index?, w.name.clone(), w.layout.clone())))
            .collect();
        for (window, index, name, layout) in windows {
            if live.announced.insert(window) {
                self.emit(RemoteEvent::WindowAdded {
                    window,
                    index: Some(index),
                    name,
                });
            }
            let Some(layout) = layout else { continue };
            let index = Some(index);
            if live.reported.get(&window) == Some(&layout) {
                continue;
            }
            let mut panes = Vec::new();
            for remote in layout.panes() {
                let Some(pane) = live.remotes.get(&remote).and_then(|r| r.pane) else {
                    continue;
                };
                if let Some(size) = pane_size(&layout.root, remote) {
                    let size = self.capped_size(live, remote, size);
                    self.parts.pipeline.resize(pane, size);
                }
                panes.push((remote, pane));
            }
            live.reported.insert(window, layout.clone());
            self.emit(RemoteEvent::Layout {
                window,
                index,
                layout,
                panes,
            });
        }
    }
}

/// The size of `pane`'s cell in a layout.
fn pane_size(cell: &LayoutCell, pane: TmuxPaneId) -> Option<TermSize> {
    match &cell.content {
        CellContent::Pane(Some(id)) if *id == pane => Some(TermSize::new(
            cell.width.clamp(1, 10_000) as usize,
            cell.height.clamp(1, 10_000) as usize,
        )),
        CellContent::Pane(_) => None,
        CellContent::LeftRight(children) | CellContent::TopBottom(children) => {
            children.iter().find_map(|c| pane_size(c, pane))
        }
    }
}

/// The bytes that redraw a pane from `capture-pane -p -e` rows and its cursor: the
/// right screen (main or alternate), cleared, the rows, the cursor placed.
pub fn repaint_bytes(rows: &[Vec<u8>], cursor: Option<PaneCursor>) -> Vec<u8> {
    let mut out = Vec::new();
    let alternate = cursor.is_some_and(|c| c.alternate);
    out.extend_from_slice(if alternate {
        b"\x1b[?1049h"
    } else {
        b"\x1b[?1049l"
    });
    out.extend_from_slice(b"\x1b[0m\x1b[r\x1b[H\x1b[2J");
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(row);
    }
    out.extend_from_slice(b"\x1b[0m");
    if let Some(c) = cursor {
        out.extend_from_slice(format!("\x1b[{};{}H", c.y + 1, c.x + 1).as_bytes());
    }
    out
}
