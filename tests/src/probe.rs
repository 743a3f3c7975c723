//! `tern-probe` (also `tern-bench probe`): measures a terminal from the inside.
//!
//! The probe runs as the program inside a terminal under test (its stdin and
//! stdout are the terminal's pty) and is driven by the benchmark harness, which
//! runs it inside each terminal pipeline it compares. Modes:
//!
//! - `dsr --count N --out PATH [--warmup W] [--gap-us G] [--load-file F --load-rate B]`:
//!   input latency. Puts the tty in raw mode, then W + N times writes a cursor
//!   position query (`ESC [ 6 n`, DSR) and times how long the terminal takes to
//!   answer (`ESC [ row ; col R`), sleeping G µs (default 500) between probes.
//!   The last N round trips are written to PATH, in nanoseconds, one per line.
//!   With `--load-file`, a second thread streams F to the terminal in a loop at
//!   B bytes per second meanwhile, so the latency is measured under output
//!   load. If a probe gets no reply within 10 s, the samples so far are written
//!   and the probe exits with status 3. `--trace PATH` also writes, per measured
//!   round trip, `latency_ns since_load_ns load_bytes during_bytes`: how long
//!   before the query the load last finished a write and that write's size (a
//!   query written right behind a load write waits for the terminal to consume
//!   it), and the load bytes written while the query awaited its reply.
//! - `cat-dsr --file F --out PATH`: throughput. In raw mode, writes all of F,
//!   then a DSR query, and waits for the reply: since the terminal answers only
//!   after it has parsed everything before the query, the time from the first
//!   byte written to the reply is the time the terminal took to consume F.
//!   Writes one line `BYTES NANOS` to PATH.
//! - `echo`: in raw mode with echo off, copies every byte read from stdin back
//!   to stdout at once, until it reads 0x04 (Ctrl-D) or end of input.
//! - `stream --file F --rate B [--seconds S]`: streams F in a loop at B bytes
//!   per second, for S seconds or until killed.
//! - `lines --count N [--width W] [--then-wait]`: writes N lines of build-log
//!   text, W characters each (default 57), as fast as it can, then `DONE`; with
//!   `--then-wait` it then stays alive until stdin reaches end of input.
//!
//! Streaming (in `dsr --load-file` and `stream`) is paced in 10 ms steps and
//! catches up when it falls behind. Chunks are cut only right before an ESC
//! byte (or at the end of the file), and every write to stdout goes through one
//! lock, so a probe's query never lands inside an escape sequence of the load.
//!
//! Results go to the `--out` file, never to stdout, which is the terminal under
//! test. Exit status: 0 on success, 1 on I/O errors, 2 on bad arguments, 3 when
//! the terminal did not answer a query in time.

use std::fmt::Display;
use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand};
use rustix::io::Errno;
use rustix::stdio::{stdin, stdout};
use rustix::termios::{self, OptionalActions, QueueSelector, SpecialCodeIndex, Termios};

/// The byte that starts every escape sequence; load chunks are cut only before it.
const ESC: u8 = 0x1b;
/// Device status report: "where is the cursor?". The reply ends with `R`.
const DSR_QUERY: &[u8] = b"\x1b[6n";
/// The byte that ends a DSR reply.
const DSR_REPLY_END: u8 = b'R';
/// Ctrl-D, which ends `echo` mode.
const END_OF_TRANSMISSION: u8 = 0x04;
/// How long `dsr` waits for the reply to one query.
const DSR_TIMEOUT: Duration = Duration::from_secs(10);
/// How long `cat-dsr` waits for the reply once the whole file is written.
const CAT_DSR_TIMEOUT: Duration = Duration::from_secs(60);
/// The pacing step of a stream: about rate/100 bytes are written per step.
const PACE_STEP: Duration = Duration::from_millis(10);
/// The most bytes a stream asks for in one write while catching up (a chunk is
/// still extended to the next ESC), so that the output lock is released often.
const MAX_CATCH_UP_CHUNK: u64 = 16 * 1024;
/// The write buffer of `lines` mode.
const LINES_BUFFER: usize = 64 * 1024;

#[derive(Parser)]
#[command(
    name = "tern-probe",
    about = "Measures the terminal it runs in (latency, throughput, echo, load)"
)]
struct Cli {
    #[command(subcommand)]
    mode: Mode,
}

#[derive(Subcommand)]
enum Mode {
    /// Time DSR (cursor position query) round trips, optionally under output load.
    Dsr(DsrArgs),
    /// Time how long the terminal takes to consume a file, fenced by a DSR query.
    CatDsr {
        /// Terminal output to write.
        #[arg(long)]
        file: PathBuf,
        /// Where to write `BYTES NANOS`.
        #[arg(long)]
        out: PathBuf,
    },
    /// Echo stdin back to stdout byte by byte, until Ctrl-D or end of input.
    Echo,
    /// Stream a file in a loop at a fixed rate.
    Stream {
        /// Terminal output to stream.
        #[arg(long)]
        file: PathBuf,
        /// Bytes per second.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        rate: u64,
        /// Stop after this many seconds (default: run until killed).
        #[arg(long, value_parser = parse_seconds)]
        seconds: Option<Duration>,
    },
    /// Write build-log lines as fast as possible, then `DONE`.
    Lines {
        /// Number of lines.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        count: u64,
        /// Characters per line.
        #[arg(long, default_value_t = 57, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        width: u32,
        /// After `DONE`, stay alive until stdin reaches end of input.
        #[arg(long)]
        then_wait: bool,
    },
}

#[derive(Args)]
struct DsrArgs {
    /// Number of measured round trips.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    count: u64,
    /// Where to write the latencies (nanoseconds, one per line).
    #[arg(long)]
    out: PathBuf,
    /// Round trips to run, and discard, before the measured ones.
    #[arg(long, default_value_t = 0)]
    warmup: u64,
    /// Pause between round trips, in microseconds.
    #[arg(long, default_value_t = 500)]
    gap_us: u64,
    /// Terminal output to stream in a loop while measuring.
    #[arg(long, requires = "load_rate")]
    load_file: Option<PathBuf>,
    /// Bytes per second of the load stream.
    #[arg(long, requires = "load_file", value_parser = clap::value_parser!(u64).range(1..))]
    load_rate: Option<u64>,
    /// Also write, per measured round trip, its latency, how long before the query
    /// the load last finished a write, and the size of that write (ns ns bytes).
    #[arg(long)]
    trace: Option<PathBuf>,
}

/// Why the probe failed; each kind has its own exit status.
enum Failure {
    /// A bad argument, such as an unreadable or empty input file (status 2).
    Usage(String),
    /// Reading or writing failed (status 1).
    Io(String),
    /// The terminal did not answer a query in time (status 3).
    Timeout(String),
}

impl Failure {
    fn exit_code(&self) -> u8 {
        match self {
            Failure::Io(_) => 1,
            Failure::Usage(_) => 2,
            Failure::Timeout(_) => 3,
        }
    }

    fn message(&self) -> &str {
        match self {
            Failure::Usage(m) | Failure::Io(m) | Failure::Timeout(m) => m,
        }
    }
}

/// Turns an I/O error into a [`Failure::Io`] that says what was being done.
fn io_failure<E: Into<io::Error>>(context: impl Display) -> impl FnOnce(E) -> Failure {
    move |e| Failure::Io(format!("{context}: {}", e.into()))
}

/// Runs the probe with these arguments (the first is the program name).
pub fn main_from<I: IntoIterator<Item = String>>(args: I) -> ExitCode {
    let cli = Cli::parse_from(args);
    let result = match cli.mode {
        Mode::Dsr(args) => run_dsr(&args),
        Mode::CatDsr { file, out } => run_cat_dsr(&file, &out),
        Mode::Echo => run_echo(),
        Mode::Stream {
            file,
            rate,
            seconds,
        } => run_stream(&file, rate, seconds),
        Mode::Lines {
            count,
            width,
            then_wait,
        } => run_lines(count, width as usize, then_wait),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("tern-probe: {}", failure.message());
            ExitCode::from(failure.exit_code())
        }
    }
}

fn parse_seconds(arg: &str) -> Result<Duration, String> {
    let seconds: f64 = arg
        .parse()
        .map_err(|_| format!("`{arg}` is not a number of seconds"))?;
    if seconds <= 0.0 {
        return Err(format!("`{arg}` is not a positive number of seconds"));
    }
    Duration::try_from_secs_f64(seconds).map_err(|e| format!("`{arg}`: {e}"))
}

/// Reads a whole input file, which must not be empty.
fn read_input(path: &Path) -> Result<Vec<u8>, Failure> {
    let data = fs::read(path)
        .map_err(|e| Failure::Usage(format!("cannot read {}: {e}", path.display())))?;
    if data.is_empty() {
        return Err(Failure::Usage(format!("{} is empty", path.display())));
    }
    Ok(data)
}

fn write_output(path: &Path, text: &str) -> Result<(), Failure> {
    fs::write(path, text).map_err(io_failure(format_args!("cannot write {}", path.display())))
}

// ---------------------------------------------------------------------------
// The terminal: raw mode, reads and writes on the pty.

/// How reads from stdin behave in raw mode.
#[derive(Clone, Copy)]
enum Reads {
    /// A read waits for at least one byte.
    Blocking,
    /// A read returns 0 when no byte arrives within 0.1 s, so callers can
    /// keep a deadline.
    Timed,
}

/// Raw mode on stdin for as long as it lives; the saved settings come back on
/// drop, on success and on error alike.
struct RawMode {
    saved: Termios,
}

impl RawMode {
    fn enter(reads: Reads) -> Result<Self, Failure> {
        let saved = termios::tcgetattr(stdin()).map_err(io_failure(
            "cannot read the terminal settings of stdin (is it a tty?)",
        ))?;
        let mut raw = saved.clone();
        raw.make_raw();
        if let Reads::Timed = reads {
            raw.special_codes[SpecialCodeIndex::VMIN] = 0;
            raw.special_codes[SpecialCodeIndex::VTIME] = 1;
        }
        termios::tcsetattr(stdin(), OptionalActions::Now, &raw)
            .map_err(io_failure("cannot put stdin in raw mode"))?;
        let guard = RawMode { saved };
        // Whatever was typed before does not belong to any reply.
        termios::tcflush(stdin(), QueueSelector::IFlush)
            .map_err(io_failure("cannot discard pending input"))?;
        Ok(guard)
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        // Nothing useful is left to do if this fails while exiting.
        let _ = termios::tcsetattr(stdin(), OptionalActions::Now, &self.saved);
    }
}

/// Unbuffered stdout: every `write` is one `write(2)` on the pty.
struct RawStdout;

impl Write for RawStdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // `Errno::INTR` becomes `ErrorKind::Interrupted`, which `write_all` retries.
        rustix::io::write(stdout(), buf).map_err(io::Error::from)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Reads stdin into `buf`. `Ok(0)` means no input: end of input, or, in
/// [`Reads::Timed`] mode, 0.1 s went by without a byte.
fn read_stdin(buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match rustix::io::read(stdin(), &mut *buf) {
            Err(Errno::INTR) => continue,
            result => return result.map_err(io::Error::from),
        }
    }
}

/// Whether a read failed because the terminal went away: a pty whose other
/// side is closed answers reads with `EIO`.
fn hung_up(error: &io::Error) -> bool {
    error.raw_os_error() == Some(Errno::IO.raw_os_error())
}

/// Reads stdin until it ends or the terminal goes away.
fn read_until_end() -> Result<(), Failure> {
    let mut buf = [0u8; 1024];
    loop {
        match read_stdin(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(_) => {}
            Err(e) if hung_up(&e) => return Ok(()),
            Err(e) => return Err(io_failure("cannot read stdin")(e)),
        }
    }
}

/// Reads stdin (in [`Reads::Timed`] raw mode) until a DSR reply ends, dropping
/// every other byte. Returns false when `deadline` passes first.
fn await_dsr_reply(deadline: Instant) -> Result<bool, Failure> {
    let mut buf = [0u8; 256];
    while Instant::now() < deadline {
        let n = read_stdin(&mut buf).map_err(|e| {
            if hung_up(&e) {
                Failure::Io("the terminal went away while awaiting a DSR reply".to_owned())
            } else {
                io_failure("cannot read stdin")(e)
            }
        })?;
        if buf[..n].contains(&DSR_REPLY_END) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Stdout shared by the probe and a load stream. One lock orders all writes;
/// a waiting probe goes before the next load chunk.
struct SharedOut {
    lock: Mutex<()>,
    probe_waiting: AtomicBool,
    epoch: Instant,
    /// When the load last finished a write (ns since `epoch`) and its size.
    load_done_ns: AtomicU64,
    load_done_bytes: AtomicU64,
    /// Bytes the load has written in all.
    load_total: AtomicU64,
}

impl Default for SharedOut {
    fn default() -> Self {
        SharedOut {
            lock: Mutex::default(),
            probe_waiting: AtomicBool::default(),
            epoch: Instant::now(),
            load_done_ns: AtomicU64::default(),
            load_done_bytes: AtomicU64::default(),
            load_total: AtomicU64::default(),
        }
    }
}

impl SharedOut {
    fn write_probe(&self, bytes: &[u8]) -> io::Result<()> {
        self.probe_waiting.store(true, Ordering::SeqCst);
        let _guard = self.lock();
        self.probe_waiting.store(false, Ordering::SeqCst);
        RawStdout.write_all(bytes)
    }

    fn write_load(&self, bytes: &[u8]) -> io::Result<()> {
        // The lock is not fair: without this a stream that is catching up
        // could take it again and again while a probe waits.
        while self.probe_waiting.load(Ordering::SeqCst) {
            thread::yield_now();
        }
        let _guard = self.lock();
        self.load_total
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        RawStdout.write_all(bytes)?;
        let done = self.epoch.elapsed().as_nanos() as u64;
        self.load_done_ns.store(done, Ordering::Relaxed);
        self.load_done_bytes
            .store(bytes.len() as u64, Ordering::Relaxed);
        Ok(())
    }

    fn lock(&self) -> MutexGuard<'_, ()> {
        // The lock guards no data, so a panic elsewhere cannot leave it inconsistent.
        self.lock
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

// ---------------------------------------------------------------------------
// Paced streaming.

/// Walks a file in a loop, handing out chunks that end right before an ESC
/// byte or at the end of the file, so no chunk ends inside an escape sequence.
struct Chunker {
    data: Vec<u8>,
    pos: usize,
}

impl Chunker {
    /// `data` must not be empty.
    fn new(data: Vec<u8>) -> Self {
        Chunker { data, pos: 0 }
    }

    /// The next chunk: at least `min_len` bytes (fewer only at the end of the
    /// file), extended to the next ESC or to the end of the file.
    fn next_chunk(&mut self, min_len: usize) -> &[u8] {
        let start = self.pos;
        let len = self.data.len();
        let target = start.saturating_add(min_len.max(1)).min(len);
        let end = self.data[target..]
            .iter()
            .position(|&b| b == ESC)
            .map_or(len, |offset| target + offset);
        self.pos = if end == len { 0 } else { end };
        &self.data[start..end]
    }
}

/// Bytes that should have been written `elapsed` after a stream at `rate` began.
fn bytes_due(rate: u64, elapsed: Duration) -> u64 {
    let due = u128::from(rate) * elapsed.as_nanos() / 1_000_000_000;
    u64::try_from(due).unwrap_or(u64::MAX)
}

/// Streams `chunker` to `out` at `rate` bytes per second until `stop` is set
/// or `limit` has passed.
///
/// Steps are [`PACE_STEP`] apart on a fixed schedule; each writes what the
/// stream owes at its scheduled time, so a stream that fell behind (its writes
/// blocked) catches up, step by step, without sleeping.
fn stream_paced(
    out: &SharedOut,
    chunker: &mut Chunker,
    rate: u64,
    stop: &AtomicBool,
    limit: Option<Duration>,
) -> io::Result<()> {
    let start = Instant::now();
    let end = limit.map(|limit| start + limit);
    let mut step_time = start;
    let mut sent: u64 = 0;
    loop {
        step_time += PACE_STEP;
        let wake = end.map_or(step_time, |end| step_time.min(end));
        thread::sleep(wake.saturating_duration_since(Instant::now()));
        if stop.load(Ordering::Relaxed) || end.is_some_and(|end| step_time > end) {
            return Ok(());
        }
        let due = bytes_due(rate, step_time - start);
        while sent < due {
            let owed = (due - sent).min(MAX_CATCH_UP_CHUNK);
            let chunk = chunker.next_chunk(usize::try_from(owed).unwrap_or(usize::MAX));
            out.write_load(chunk)?;
            sent += chunk.len() as u64;
        }
    }
}

// ---------------------------------------------------------------------------
// The modes.

fn run_dsr(args: &DsrArgs) -> Result<(), Failure> {
    use std::fmt::Write as _;

    let load = match (&args.load_file, args.load_rate) {
        (Some(path), Some(rate)) => Some((read_input(path)?, rate)),
        _ => None,
    };
    let gap = Duration::from_micros(args.gap_us);
    let total = args.warmup.saturating_add(args.count);

    let out = Arc::new(SharedOut::default());
    let raw = RawMode::enter(Reads::Timed)?;

    let stop = Arc::new(AtomicBool::new(false));
    let loader = load.map(|(data, rate)| {
        let out = Arc::clone(&out);
        let stop = Arc::clone(&stop);
        thread::spawn(move || stream_paced(&out, &mut Chunker::new(data), rate, &stop, None))
    });

    let mut samples: Vec<u128> = Vec::new();
    let mut traced = String::new();
    let mut outcome = Ok(());
    for i in 0..total {
        let t0 = Instant::now();
        if let Err(e) = out.write_probe(DSR_QUERY) {
            outcome = Err(io_failure("cannot write the DSR query")(e));
            break;
        }
        let written_ns = out.epoch.elapsed().as_nanos() as u64;
        let load = (
            out.load_done_ns.load(Ordering::Relaxed),
            out.load_done_bytes.load(Ordering::Relaxed),
        );
        let total_before = out.load_total.load(Ordering::Relaxed);
        match await_dsr_reply(t0 + DSR_TIMEOUT) {
            Ok(true) => {}
            Ok(false) => {
                outcome = Err(Failure::Timeout(format!(
                    "no reply to DSR query {} of {total} within {} s",
                    i + 1,
                    DSR_TIMEOUT.as_secs()
                )));
                break;
            }
            Err(failure) => {
                outcome = Err(failure);
                break;
            }
        }
        let elapsed = t0.elapsed();
        if i >= args.warmup {
            samples.push(elapsed.as_nanos());
            let since_load = written_ns.saturating_sub(load.0);
            let during = out.load_total.load(Ordering::Relaxed) - total_before;
            let _ = writeln!(
                traced,
                "{} {since_load} {} {during}",
                elapsed.as_nanos(),
                load.1
            );
        }
        if i + 1 < total {
            thread::sleep(gap);
        }
    }

    stop.store(true, Ordering::Relaxed);
    if let Some(loader) = loader {
        // After a failure the terminal may be stuck, and the load thread with
        // it in a write; it ends with the process then.
        if outcome.is_ok() {
            outcome = match loader.join() {
                Ok(result) => result.map_err(io_failure("the load stream failed")),
                Err(_) => Err(Failure::Io("the load stream panicked".to_owned())),
            };
        }
    }
    drop(raw);

    let text = samples.iter().fold(String::new(), |mut text, nanos| {
        let _ = writeln!(text, "{nanos}"); // Writing to a String cannot fail.
        text
    });
    let mut written = write_output(&args.out, &text);
    if let Some(path) = &args.trace {
        written = written.and(write_output(path, &traced));
    }
    outcome.and(written)
}

fn run_cat_dsr(file: &Path, out: &Path) -> Result<(), Failure> {
    let data = read_input(file)?;
    let raw = RawMode::enter(Reads::Timed)?;

    let t0 = Instant::now();
    RawStdout
        .write_all(&data)
        .and_then(|()| RawStdout.write_all(DSR_QUERY))
        .map_err(io_failure("cannot write to stdout"))?;
    let answered = await_dsr_reply(Instant::now() + CAT_DSR_TIMEOUT)?;
    let elapsed = t0.elapsed();
    drop(raw);

    if !answered {
        return Err(Failure::Timeout(format!(
            "no reply to the DSR query within {} s of writing {}",
            CAT_DSR_TIMEOUT.as_secs(),
            file.display()
        )));
    }
    write_output(out, &format!("{} {}\n", data.len(), elapsed.as_nanos()))
}

fn run_echo() -> Result<(), Failure> {
    let _raw = RawMode::enter(Reads::Blocking)?;
    let mut buf = [0u8; 4096];
    loop {
        let n = match read_stdin(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if hung_up(&e) => return Ok(()),
            Err(e) => return Err(io_failure("cannot read stdin")(e)),
        };
        let input = &buf[..n];
        let end = input.iter().position(|&b| b == END_OF_TRANSMISSION);
        RawStdout
            .write_all(&input[..end.unwrap_or(n)])
            .map_err(io_failure("cannot write to stdout"))?;
        if end.is_some() {
            return Ok(());
        }
    }
}

fn run_stream(file: &Path, rate: u64, seconds: Option<Duration>) -> Result<(), Failure> {
    let mut chunker = Chunker::new(read_input(file)?);
    let never = AtomicBool::new(false);
    stream_paced(&SharedOut::default(), &mut chunker, rate, &never, seconds)
        .map_err(io_failure("cannot write to stdout"))
}

fn run_lines(count: u64, width: usize, then_wait: bool) -> Result<(), Failure> {
    let mut out = BufWriter::with_capacity(LINES_BUFFER, RawStdout);
    let mut log = BuildLog::new();
    let mut line = String::new();
    for number in 1..=count {
        log.line(number, width, &mut line);
        line.push_str("\r\n");
        out.write_all(line.as_bytes())
            .map_err(io_failure("cannot write to stdout"))?;
    }
    out.write_all(b"DONE\r\n")
        .and_then(|()| out.flush())
        .map_err(io_failure("cannot write to stdout"))?;

    if then_wait {
        // Keeps the pane alive until its input ends (or the probe is killed).
        read_until_end()?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Build-log text for `lines`.

/// Words for crate and module names.
const WORDS: &str = "serde tokio core util json macros derive sync io net http proto codec \
    futures parser render layout unicode width terminal grid cell buffer config log trace \
    atomic channel crossbeam regex syntax build shim sys alloc hash bytes stream signal time";

const VERBS: &[&str] = &[
    "Compiling",
    "Checking",
    "Fresh",
    "Building",
    "Running",
    "Linking",
    "Documenting",
];

/// A deterministic source of varied build-log lines.
struct BuildLog {
    state: u64,
    words: Vec<&'static str>,
}

impl BuildLog {
    fn new() -> Self {
        BuildLog {
            state: 0x9e37_79b9_7f4a_7c15,
            words: WORDS.split_whitespace().collect(),
        }
    }

    /// xorshift64: plenty for picking words.
    fn next(&mut self) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state
    }

    fn pick(&mut self, items: &[&'static str]) -> &'static str {
        items[(self.next() % items.len() as u64) as usize]
    }

    fn word(&mut self) -> &'static str {
        let index = (self.next() % self.words.len() as u64) as usize;
        self.words[index]
    }

    /// Replaces `line` with log line `number`, exactly `width` characters
    /// long (all ASCII), such as
    /// `[     12] Compiling serde-json v1.2.3 (/src/serde-json/io) ...... 12.3s`.
    /// The source path is shortened or left out, and the leader dots stretched,
    /// to fit; a line too long even so is cut.
    fn line(&mut self, number: u64, width: usize, line: &mut String) {
        /// The least room the leader needs: a space, three dots and a space.
        const MIN_LEADER: usize = 5;
        use std::fmt::Write as _;

        let verb = self.pick(VERBS);
        let crate_name = format!("{}-{}", self.word(), self.word());
        let (major, minor, patch) = (self.next() % 3, self.next() % 40, self.next() % 20);
        let module = self.word();
        let tenths = self.next() % 600;
        let took = format!("{}.{}s", tenths / 10, tenths % 10);

        line.clear();
        // Writing to a String cannot fail.
        let _ = write!(
            line,
            "[{number:>7}] {verb} {crate_name} v{major}.{minor}.{patch}"
        );
        let room = width.saturating_sub(line.len() + MIN_LEADER + took.len());
        let source = [
            format!(" (/src/{crate_name}/{module})"),
            format!(" ({module})"),
        ]
        .into_iter()
        .find(|source| source.len() <= room);
        if let Some(source) = source {
            line.push_str(&source);
        }
        let dots = width.saturating_sub(line.len() + 2 + took.len()).max(3);
        line.push(' ');
        line.extend(std::iter::repeat_n('.', dots));
        line.push(' ');
        line.push_str(&took);
        line.truncate(width);
    }
}
