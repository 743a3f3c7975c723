//! Parses one fixture repeatedly, for profilers: `cargo run --release -p tern-core
//! --example parse_profile -- unicode 20`.

use tern_core::fixtures::Fixture;
use tern_core::model::{TermConfig, TermSize, Terminal};

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "unicode".into());
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(10);
    let Some(fixture) = Fixture::ALL.into_iter().find(|f| f.name() == name) else {
        eprintln!("unknown fixture {name}; one of dense, scrolling, agent-tui, unicode");
        std::process::exit(2);
    };
    let data = fixture.generate(10 << 20, 120, 40);
    let start = std::time::Instant::now();
    for _ in 0..rounds {
        let mut t = Terminal::new(TermSize::new(120, 40), TermConfig::default());
        for chunk in data.chunks(64 * 1024) {
            t.advance(chunk);
        }
        std::hint::black_box(t.cursor());
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{name}: {:.1} MB/s",
        (data.len() * rounds) as f64 / secs / 1e6
    );
}
