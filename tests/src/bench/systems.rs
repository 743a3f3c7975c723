//! The three terminals every latency and throughput suite runs side by side:
//!
//! - **tern**: the real pipeline (`tern_core::pipeline`), with a UI thread that takes
//!   deliveries the way the window does;
//! - **floor**: a bare pty whose reader only scans for `ESC[6n` and answers it;
//! - **peer**: what a Rust developer would otherwise build: portable-pty, a reader
//!   thread per pty feeding `alacritty_terminal::Term` through its vte processor, and
//!   replies written back to the pty.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use alacritty_terminal::event::{Event, EventListener};
use alacritty_terminal::term::test::TermSize as AlacrittySize;
use alacritty_terminal::term::{Config as AlacrittyConfig, Term};
use alacritty_terminal::vte::ansi::Processor;
use portable_pty::{Child, CommandBuilder, PtySize, native_pty_system};
use serde::Serialize;
use tern_core::model::{TermConfig, TermSize};
use tern_core::pipeline::delivery::{Delivery, PaneView};
use tern_core::pipeline::{PaneEvent, PaneId, Pipeline, PipelineConfig, SpawnSpec};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Kind {
    Tern,
    Floor,
    Peer,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Tern, Kind::Floor, Kind::Peer];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Tern => "tern",
            Kind::Floor => "floor",
            Kind::Peer => "peer",
        }
    }
}

/// When output arrived and when it was ready to show, for one read (floor, peer) or one
/// delivery (tern).
#[derive(Clone, Copy, Debug)]
pub struct Arrival {
    /// Bytes of this pty processed so far (tern: the delivery's seq).
    pub total: u64,
    pub read_at: Instant,
    /// tern: the frame was built; peer: the bytes were parsed; floor: = read_at.
    pub ready_at: Instant,
}

/// Arrivals of one pty, with a condition variable rung on each push (so waiting for
/// one does not spin a core away from the system under test).
#[derive(Debug, Default)]
pub struct Arrivals {
    log: Mutex<Vec<Arrival>>,
    rung: Condvar,
}

impl Arrivals {
    pub fn push(&self, a: Arrival) {
        if let Ok(mut l) = self.log.lock() {
            l.push(a);
        }
        self.rung.notify_all();
    }

    pub fn len(&self) -> usize {
        self.log.lock().map(|l| l.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn max_total(&self) -> u64 {
        self.log
            .lock()
            .map(|l| l.iter().map(|a| a.total).max().unwrap_or(0))
            .unwrap_or(0)
    }

    /// Waits until `pick` finds an arrival, or the deadline passes.
    pub fn wait_for(
        &self,
        deadline: Instant,
        pick: impl Fn(&[Arrival]) -> Option<Arrival>,
    ) -> Option<Arrival> {
        let mut log = self.log.lock().ok()?;
        loop {
            if let Some(a) = pick(&log) {
                return Some(a);
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            log = self.rung.wait_timeout(log, deadline - now).ok()?.0;
        }
    }
}

pub type ArrivalLog = Arc<Arrivals>;

/// A bare pty session (floor or peer) with its reader thread.
pub struct PtySession {
    child: Box<dyn Child + Send + Sync>,
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    reader: Option<JoinHandle<()>>,
    pub arrivals: ArrivalLog,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

struct Replies(Arc<Mutex<Vec<u8>>>);

impl EventListener for Replies {
    fn send_event(&self, event: Event) {
        if let Event::PtyWrite(text) = event
            && let Ok(mut r) = self.0.lock()
        {
            r.extend_from_slice(text.as_bytes());
        }
    }
}

const DSR: &[u8] = b"\x1b[6n";

fn size_of(size: TermSize) -> PtySize {
    PtySize {
        rows: size.rows as u16,
        cols: size.cols as u16,
        pixel_width: 0,
        pixel_height: 0,
    }
}

impl PtySession {
    pub fn spawn(
        kind: Kind,
        argv: &[String],
        size: TermSize,
        record: bool,
    ) -> Result<PtySession, String> {
        let pair = native_pty_system()
            .openpty(size_of(size))
            .map_err(|e| e.to_string())?;
        let mut cmd = CommandBuilder::new(&argv[0]);
        cmd.args(&argv[1..]);
        cmd.env("TERM", "xterm-256color");
        let child = pair
            .slave
            .spawn_command(cmd)
            .map_err(|e| format!("{e:#}"))?;
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().map_err(|e| e.to_string())?;
        // One writer (portable-pty hands it out once), shared by input and replies.
        let writer: Arc<Mutex<Box<dyn Write + Send>>> = Arc::new(Mutex::new(
            pair.master.take_writer().map_err(|e| e.to_string())?,
        ));
        let reply_writer = writer.clone();
        let arrivals: ArrivalLog = Arc::new(Arrivals::default());
        let log = arrivals.clone();
        let thread = std::thread::Builder::new()
            .name(format!("{}-reader", kind.name()))
            .spawn(move || {
                let out = reply_writer;
                let mut buf = vec![0u8; 64 * 1024];
                let mut total = 0u64;
                let mut tail: Vec<u8> = Vec::new();
                let replies = Arc::new(Mutex::new(Vec::new()));
                let mut peer = (kind == Kind::Peer).then(|| {
                    let term = Term::new(
                        AlacrittyConfig::default(),
                        &AlacrittySize::new(size.cols, size.rows),
                        Replies(replies.clone()),
                    );
                    (
                        term,
                        Processor::<alacritty_terminal::vte::ansi::StdSyncHandler>::new(),
                    )
                });
                loop {
                    let n = match reader.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    let read_at = Instant::now();
                    total += n as u64;
                    let mut reply: Vec<u8> = Vec::new();
                    match &mut peer {
                        None => {
                            // The floor: find ESC[6n (also across reads) and answer it.
                            tail.extend_from_slice(&buf[..n]);
                            let hits = memchr::memmem::find_iter(&tail, DSR).count();
                            for _ in 0..hits {
                                reply.extend_from_slice(b"\x1b[1;1R");
                            }
                            let keep = tail.len().min(DSR.len() - 1);
                            tail.drain(..tail.len() - keep);
                        }
                        Some((term, processor)) => {
                            processor.advance(term, &buf[..n]);
                            if let Ok(mut r) = replies.lock() {
                                reply.append(&mut r);
                            }
                        }
                    }
                    if !reply.is_empty()
                        && let Ok(mut w) = out.lock()
                    {
                        let _ = w.write_all(&reply);
                        let _ = w.flush();
                    }
                    if record {
                        log.push(Arrival {
                            total,
                            read_at,
                            ready_at: Instant::now(),
                        });
                    }
                }
            })
            .map_err(|e| e.to_string())?;
        Ok(PtySession {
            child,
            writer,
            reader: Some(thread),
            arrivals,
            _master: pair.master,
        })
    }

    pub fn write(&self, bytes: &[u8]) {
        if let Ok(mut w) = self.writer.lock() {
            let _ = w.write_all(bytes);
            let _ = w.flush();
        }
    }

    /// Waits for the child and for its reader to drain the pty.
    pub fn wait(mut self, timeout: Duration) -> Result<i32, String> {
        let deadline = Instant::now() + timeout;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    if let Some(t) = self.reader.take() {
                        let _ = t.join();
                    }
                    return Ok(status.exit_code() as i32);
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(2))
                }
                Ok(None) => {
                    let _ = self.child.kill();
                    return Err("timed out".into());
                }
                Err(e) => return Err(e.to_string()),
            }
        }
    }

    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The tern pipeline plus a UI thread that takes deliveries of visible panes as soon as
/// the model wakes it, keeps a `PaneView` per pane and logs every delivery.
pub struct TernRig {
    pub pipeline: Arc<Pipeline>,
    visible: Arc<Mutex<HashMap<PaneId, ArrivalLog>>>,
    ui: Option<JoinHandle<()>>,
    wake: SyncSender<()>,
    stopping: Arc<AtomicBool>,
}

impl TernRig {
    pub fn start(term: TermConfig) -> Result<TernRig, String> {
        let (wake_tx, wake_rx): (SyncSender<()>, Receiver<()>) = mpsc::sync_channel(1);
        let waker_tx = wake_tx.clone();
        let config = PipelineConfig {
            term,
            ..PipelineConfig::default()
        };
        let pipeline = Arc::new(
            Pipeline::start(
                config,
                Arc::new(move || {
                    let _ = waker_tx.try_send(());
                }),
            )
            .map_err(|e| e.to_string())?,
        );
        // `TERN_BENCH_HISTORY=DIR`: every pane's output also goes to a history file in
        // DIR, as in a face that owns the session (the only part of the keeper's work
        // on the model thread), for a before/after of the data path.
        if let Some(dir) = std::env::var_os("TERN_BENCH_HISTORY").filter(|d| !d.is_empty()) {
            let history = tern_core::history::History::start(dir.into(), pipeline.crumb_sink())
                .map_err(|e| format!("history: {e}"))?;
            pipeline.set_history(history);
        }
        let visible: Arc<Mutex<HashMap<PaneId, ArrivalLog>>> = Arc::new(Mutex::new(HashMap::new()));
        let stopping = Arc::new(AtomicBool::new(false));
        let (p, v, stop) = (pipeline.clone(), visible.clone(), stopping.clone());
        let ui = std::thread::Builder::new()
            .name("bench-ui".into())
            .spawn(move || {
                let mut views: HashMap<PaneId, Option<PaneView>> = HashMap::new();
                while wake_rx.recv().is_ok() {
                    if stop.load(Ordering::Acquire) {
                        return;
                    }
                    let panes: Vec<(PaneId, ArrivalLog)> = v
                        .lock()
                        .map(|m| m.iter().map(|(k, l)| (*k, l.clone())).collect())
                        .unwrap_or_default();
                    for (pane, log) in panes {
                        while let Some(d) = p.take(pane) {
                            let arrival = match &d {
                                Delivery::Frame(f) => Arrival {
                                    total: f.seq,
                                    read_at: f.read_at.unwrap_or(f.built_at),
                                    ready_at: f.built_at,
                                },
                                Delivery::Snapshot(s) => Arrival {
                                    total: s.seq,
                                    read_at: s.built_at,
                                    ready_at: s.built_at,
                                },
                            };
                            PaneView::apply_delivery(views.entry(pane).or_default(), d);
                            log.push(arrival);
                        }
                    }
                }
            })
            .map_err(|e| e.to_string())?;
        Ok(TernRig {
            pipeline,
            visible,
            ui: Some(ui),
            wake: wake_tx,
            stopping,
        })
    }

    /// Spawns `argv`; visible panes get a UI view and an arrival log.
    pub fn spawn(
        &self,
        argv: &[String],
        size: TermSize,
        visible: bool,
    ) -> Result<(PaneId, ArrivalLog), String> {
        let args: Vec<&str> = argv[1..].iter().map(String::as_str).collect();
        let spec = SpawnSpec::command(argv[0].clone(), &args).size(size);
        let pane = self.pipeline.spawn(&spec).map_err(|e| e.to_string())?;
        let log: ArrivalLog = Arc::new(Arrivals::default());
        if visible {
            if let Ok(mut v) = self.visible.lock() {
                v.insert(pane, log.clone());
            }
            self.pipeline.set_visible(pane, true);
            self.pipeline.set_focus(Some(pane));
        }
        Ok((pane, log))
    }

    /// Waits until `pane`'s history holds about `lines` lines (the 40-row screen aside).
    pub fn wait_history(
        &self,
        pane: PaneId,
        lines: usize,
        deadline: Instant,
    ) -> Result<(), String> {
        loop {
            let filled = self
                .pipeline
                .stats(pane)
                .map(|s| s.scrollback_lines.load(Ordering::Relaxed))
                .unwrap_or(0);
            if filled as usize + 41 >= lines {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!("history of {lines} lines never filled ({filled})"));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Reveals and hides `pane` `reveals` times: µs from each reveal to the delivery of
    /// its snapshot.
    pub fn reveal_times(
        &self,
        pane: PaneId,
        log: &ArrivalLog,
        reveals: usize,
    ) -> Result<Vec<f64>, String> {
        let mut samples = Vec::new();
        for _ in 0..reveals {
            let before = log.len();
            let t0 = Instant::now();
            self.set_visible(pane, true, log);
            let Some(first) =
                log.wait_for(t0 + Duration::from_secs(10), |l| l.get(before).copied())
            else {
                return Err("reveal never delivered a snapshot".into());
            };
            samples.push(first.ready_at.saturating_duration_since(t0).as_secs_f64() * 1e6);
            self.set_visible(pane, false, log);
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(samples)
    }

    pub fn set_visible(&self, pane: PaneId, visible: bool, log: &ArrivalLog) {
        if let Ok(mut v) = self.visible.lock() {
            if visible {
                v.insert(pane, log.clone());
            } else {
                v.remove(&pane);
            }
        }
        self.pipeline.set_visible(pane, visible);
    }

    pub fn wait_exit(&self, pane: PaneId, timeout: Duration) -> Result<i32, String> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Some(PaneEvent::Exited { pane: id, exit }) =
                self.pipeline.wait_event(Duration::from_millis(100))
                && id == pane
            {
                return Ok(exit.code);
            }
        }
        Err(format!("pane {pane:?} did not exit in time"))
    }
}

impl Drop for TernRig {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::Release);
        let _ = self.wake.try_send(());
        if let Some(ui) = self.ui.take() {
            let _ = ui.join();
        }
    }
}
