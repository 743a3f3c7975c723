//! Invariant 3: query authority. Every reply a pane's program gets equals what an
//! always-visible reference terminal (alacritty's, apart from tern's model) answers
//! at that byte, for a hidden pane, with the stream parsed in the model thread's
//! slices.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use alacritty_terminal::Term;
use alacritty_terminal::event::{Event, EventListener};
use alacritty_terminal::term::Config;
use alacritty_terminal::term::test::TermSize as RefSize;
use alacritty_terminal::vte::ansi::Processor;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tern_core::model::TermSize;
use tern_core::pipeline::{Pipeline, PipelineConfig, SpawnSpec};

/// How long a wait for the replies may take before the test fails with a message.
const EVENT_BOUND: Duration = Duration::from_secs(60);

#[derive(Clone, Default)]
struct Replies(Rc<RefCell<Vec<u8>>>);

impl EventListener for Replies {
    fn send_event(&self, event: Event) {
        if let Event::PtyWrite(text) = event {
            self.0.borrow_mut().extend_from_slice(text.as_bytes());
        }
    }
}

/// The reference's replies to `stream`, fed one byte at a time (each answer is the
/// one at its byte).
fn reference_replies(cols: usize, rows: usize, stream: &[u8]) -> Vec<u8> {
    let replies = Replies::default();
    let mut term = Term::new(
        Config::default(),
        &RefSize::new(cols, rows),
        replies.clone(),
    );
    let mut parser: Processor = Processor::new();
    for b in stream {
        parser.advance(&mut term, std::slice::from_ref(b));
    }
    replies.0.take()
}

/// Output that moves the cursor everywhere (text, wraps, scrolling, absolute and
/// relative moves, erases), with a cursor position report (CPR) or a status report
/// after most steps, so that each answer is one only the cursor at that byte gives.
fn stream(seed: u64, steps: usize, cols: usize, rows: usize) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..steps {
        let step = match rng.random_range(0..8) {
            0 => format!(
                "\x1b[{};{}H",
                rng.random_range(1..=rows),
                rng.random_range(1..=cols)
            ),
            1 => "word ".repeat(rng.random_range(1..30)),
            2 => "\r\n".repeat(rng.random_range(1..4)),
            3 => format!("\x1b[{}C", rng.random_range(1..cols)),
            4 => format!("\x1b[{}A", rng.random_range(1..rows)),
            5 => format!("\x1b[{}D\x1b[K", rng.random_range(1..cols)),
            6 => format!("\x1b[{}B", rng.random_range(1..rows)),
            _ => "x".repeat(rng.random_range(1..cols * 2)),
        };
        out.extend_from_slice(step.as_bytes());
        if rng.random_range(0..4) != 0 {
            out.extend_from_slice(b"\x1b[6n");
        } else if rng.random_range(0..4) == 0 {
            out.extend_from_slice(b"\x1b[5n");
        }
    }
    out
}

/// A hidden pane is fed ~100 KB of cursor movement with ~3,000 queries in one chunk
/// (parsed in the model thread's 2 KiB pieces and 16 KiB slices); its program writes
/// what it reads (the replies) to a file; those bytes must equal the reference's
/// answers byte for byte. Catches: a reply computed from a stale cursor (CPRs
/// answered from the cursor at the end of each `Terminal::advance` call instead of at
/// the query's byte; seen: "reply 0 differs: got ESC[23;37R, the reference answers
/// ESC[10;1R"). `TERN_QUERY_SEED` replays another stream.
#[test]
fn invariant_3_every_reply_equals_the_reference_at_its_byte() {
    let (cols, rows) = (80, 24);
    let seed = std::env::var("TERN_QUERY_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x3a11);
    let input = stream(seed, 4000, cols, rows);
    let expected = reference_replies(cols, rows, &input);
    assert!(expected.len() > 10_000, "the stream asks enough");
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("replies");
    let p = Pipeline::start(PipelineConfig::default(), Arc::new(|| {})).expect("pipeline");
    let script = format!("stty raw -echo; exec cat > '{}'", out.display());
    let pane = p
        .spawn(&SpawnSpec::command("sh", &["-c", &script]).size(TermSize::new(cols, rows)))
        .expect("spawn");
    // The file exists once `stty raw -echo` is done and `cat` runs.
    let deadline = Instant::now() + EVENT_BOUND;
    while !out.exists() {
        assert!(Instant::now() < deadline, "the program never started");
        std::thread::sleep(Duration::from_millis(5));
    }
    p.feed(pane, &input);
    let mut got = Vec::new();
    while got.len() < expected.len() {
        assert!(
            Instant::now() < deadline,
            "{} of {} reply bytes arrived (seed {seed})",
            got.len(),
            expected.len()
        );
        std::thread::sleep(Duration::from_millis(5));
        got = std::fs::read(&out).unwrap_or_default();
    }
    if got != expected {
        let split = |b: &[u8]| -> Vec<String> {
            String::from_utf8_lossy(b)
                .split_inclusive(['R', 'n'])
                .map(str::to_owned)
                .collect()
        };
        let (g, e) = (split(&got), split(&expected));
        let at = g.iter().zip(&e).position(|(a, b)| a != b).unwrap_or(0);
        panic!(
            "reply {at} differs (seed {seed}): got {:?}, the reference answers {:?}",
            g.get(at),
            e.get(at)
        );
    }
    p.close(pane);
}
