//! The worker's reads: tmux's stdout and stderr, keys typed into the panes' slaves,
//! and the flow steps that pause and resume panes.

use super::*;

impl Worker {
    pub(super) fn read_stdout(&self, live: &mut Live) {
        // One buffer for the connection's life, not 64 KiB allocated per wake-up.
        let mut buf = std::mem::take(&mut live.read_buf);
        buf.resize(STDOUT_READ_BYTES, 0);
        self.read_stdout_into(live, &mut buf);
        live.read_buf = buf;
    }

    pub(super) fn read_stdout_into(&self, live: &mut Live, buf: &mut [u8]) {
        loop {
            let Some(stdout) = &live.stdout else { return };
            match rustix::io::read(stdout, &mut *buf) {
                Ok(0) => {
                    let events = live.session.finish();
                    self.handle(live, events);
                    live.stdout = None;
                    return;
                }
                Ok(n) => {
                    // One message at a time: a repaint written on a reply must land
                    // after the output before the reply and before the output after
                    // it (with the chunk's output all written first, the repaint
                    // painted over output tmux sent after the screen it read).
                    live.session.push(&buf[..n]);
                    while let Some(events) = live.session.step() {
                        if !events.is_empty() {
                            self.handle(live, events);
                        }
                    }
                    self.flow_steps(live);
                }
                Err(Errno::INTR) => {}
                Err(Errno::AGAIN) => return,
                Err(e) => {
                    self.emit(RemoteEvent::Problem(format!("reading tmux: {e}")));
                    let events = live.session.finish();
                    self.handle(live, events);
                    live.stdout = None;
                    return;
                }
            }
        }
    }

    pub(super) fn read_stderr(&self, live: &mut Live) {
        let mut buf = [0u8; 4096];
        loop {
            let Some(stderr) = &live.stderr else { return };
            let n = match rustix::io::read(stderr, &mut buf) {
                Ok(0) | Err(Errno::AGAIN) => return,
                Err(Errno::INTR) => continue,
                Err(_) => {
                    live.stderr = None;
                    return;
                }
                Ok(n) => n,
            };
            for &b in &buf[..n] {
                if b == b'\n' {
                    let line = String::from_utf8_lossy(&live.stderr_line)
                        .trim_end_matches('\r')
                        .to_owned();
                    live.stderr_line.clear();
                    if !line.trim().is_empty() {
                        live.last_stderr = Some(line.clone());
                        self.emit(RemoteEvent::Stderr(line));
                    }
                } else if live.stderr_line.len() < STDERR_LINE_BYTES {
                    live.stderr_line.push(b);
                }
            }
        }
    }

    /// Keystrokes waiting in the slaves become `send-keys`, while tmux's queue has room.
    pub(super) fn read_keys(&self, live: &mut Live) {
        let panes: Vec<TmuxPaneId> = live
            .remotes
            .iter()
            .filter(|(_, r)| r.keys_readable)
            .map(|(p, _)| *p)
            .collect();
        let mut buf = [0u8; KEYS_READ_BYTES];
        for remote in panes {
            loop {
                if live.out.len() >= OUT_HIGH_BYTES {
                    return; // the pane stays readable; read after the queue drains
                }
                let Some(r) = live.remotes.get_mut(&remote) else {
                    break;
                };
                let slave = r.io.lock().ok().and_then(|io| io.slave.clone());
                let Some(slave) = slave else {
                    r.keys_readable = false;
                    break;
                };
                match rustix::io::read(&*slave, &mut buf) {
                    Ok(n @ 1..) => {
                        if let Err(e) = live.session.send_keys(remote, &buf[..n]) {
                            self.emit(RemoteEvent::Problem(format!("keys for {remote}: {e}")));
                        }
                    }
                    Err(Errno::INTR) => {}
                    Err(Errno::AGAIN) => {
                        r.keys_readable = false;
                        break;
                    }
                    // End of file or EIO: tern closed the pane (its master is gone).
                    Ok(0) | Err(_) => {
                        r.keys_readable = false;
                        let _ = epoll::delete(&live.epoll, &*slave);
                        if let Ok(mut io) = r.io.lock() {
                            io.flow.close();
                            io.slave = None;
                        }
                        break;
                    }
                }
            }
        }
    }

    pub(super) fn slave_ready(&self, live: &mut Live, remote: TmuxPaneId) {
        let Some(r) = live.remotes.get_mut(&remote) else {
            return;
        };
        r.keys_readable = true;
        if let Ok(mut io) = r.io.lock() {
            io.step(|flow, slave| flow.writable(|b| write_slave(slave, b)));
        }
        self.flow_steps(live);
    }

    /// Sends what the panes' flow decided.
    pub(super) fn flow_steps(&self, live: &mut Live) {
        let mut steps = Vec::new();
        for (remote, r) in &live.remotes {
            if let Ok(mut io) = r.io.lock() {
                steps.extend(io.steps.drain(..).map(|s| (*remote, s)));
            }
        }
        for (pane, step) in steps {
            match step {
                FlowStep::Pause => {
                    self.crumb(format!("remote {pane}: paused (its model is behind)"));
                    let flow = Command::PaneFlow {
                        pane,
                        action: FlowAction::Pause,
                    };
                    self.send(live, flow, Purpose::App(String::from("pause")));
                }
                FlowStep::ContinueAndRepaint => {
                    self.repaint(live, pane);
                    let flow = Command::PaneFlow {
                        pane,
                        action: FlowAction::Continue,
                    };
                    self.send(live, flow, Purpose::App(String::from("continue")));
                }
            }
        }
    }
}
