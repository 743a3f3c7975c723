//! What one 10 KB step of agent-TUI output costs the model, parsed in the model
//! thread's 2 KiB pieces with the scrollback's encoding left for after the step (as the
//! model thread leaves it for when it is idle), and how much more it costs when the
//! thread was away before it (cold caches and branch predictors on a shared machine).
//!
//! ```sh
//! cargo run --release -p tern-core --example step_cost -- 10000   # 10 ms away
//! cargo run --release -p tern-core --example step_cost -- 0       # back to back
//! ```
//!
//! `STEP_COST_SPIN=1` spins instead of sleeping while away; `STEP_COST_STEPS=N` (400).
//! Prints p50/p90/p99 of a whole step and of its first piece, in µs. For instructions,
//! run it under callgrind and read `Terminal::advance`'s inclusive cost.

use std::time::{Duration, Instant};
use tern_core::fixtures::Fixture;
use tern_core::model::{TermConfig, TermSize, Terminal};

const STEP: usize = 10_000;
const PIECE: usize = 2048;

fn main() {
    let away_us: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let steps: usize = std::env::var("STEP_COST_STEPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let spin = std::env::var_os("STEP_COST_SPIN").is_some();
    let data = Fixture::AgentTui.generate(8 << 20, 80, 24);
    let mut term = Terminal::new(TermSize::new(80, 24), TermConfig::default());
    let (mut whole, mut first) = (Vec::new(), Vec::new());
    let mut pos = 0;
    for _ in 0..steps {
        let away = Duration::from_micros(away_us);
        if spin {
            let until = Instant::now() + away;
            while Instant::now() < until {
                std::hint::spin_loop();
            }
        } else if away_us > 0 {
            std::thread::sleep(away);
        }
        let step = &data[pos..pos + STEP];
        pos = (pos + STEP) % (data.len() - STEP);
        let start = Instant::now();
        for (i, piece) in step.chunks(PIECE).enumerate() {
            term.advance(piece);
            if i == 0 {
                first.push(start.elapsed().as_micros() as u64);
            }
        }
        whole.push(start.elapsed().as_micros() as u64);
        std::hint::black_box(term.cursor());
        // What the model thread does once no input waits.
        term.settle_scrollback(usize::MAX);
        term.set_scrollback_eager(false);
    }
    if whole.is_empty() {
        return;
    }
    whole.sort_unstable();
    first.sort_unstable();
    let q = |v: &[u64], p: f64| v[((v.len() as f64 * p) as usize).min(v.len() - 1)];
    println!(
        "away {away_us} µs ({}): step p50 {} p90 {} p99 {} | first piece p50 {} p90 {}",
        if spin { "spinning" } else { "sleeping" },
        q(&whole, 0.5),
        q(&whole, 0.9),
        q(&whole, 0.99),
        q(&first, 0.5),
        q(&first, 0.9)
    );
}
