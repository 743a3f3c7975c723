//! `model_parse`: MB/s of the tern model on the four fixtures and an underscore-heavy
//! text (`underscores`), beside a raw `vte::Parser`
//! with a no-op performer (the floor of parsing alone) and `alacritty_terminal::Term` (the
//! peer), all in the same run.
//!
//! `cargo bench -p tern-core --bench model_parse` runs criterion's per-engine
//! measurements and then an interleaved summary (engines alternate within each round so
//! drift hits all alike) that prints a table of medians with ratios and writes JSON to
//! `target/model_parse.json` (or `$MODEL_PARSE_JSON`). `MODEL_PARSE_QUICK=1` uses 1 MB
//! fixtures and skips criterion. `MODEL_PARSE_PROFILE=fixture` (e.g. `dense`) only
//! parses that fixture with tern (or `MODEL_PARSE_ENGINE`), `MODEL_PARSE_ITERS` times (default 20), for a profiler
//! (`perf record`, or `valgrind --tool=cachegrind` for instruction counts that do not
//! depend on the machine's load).

use std::hint::black_box;
use std::time::Instant;

use alacritty_terminal::event::VoidListener;
use alacritty_terminal::term::test::TermSize as AlacrittySize;
use alacritty_terminal::term::{Config as AlacrittyConfig, Term};
use alacritty_terminal::vte::ansi::Processor;
use criterion::{Criterion, Throughput};
use tern_core::fixtures::Fixture;
use tern_core::model::{TermConfig, TermSize, Terminal};

const COLS: usize = 120;
const ROWS: usize = 40;
/// Bytes handed over per call, like one pty read.
const CHUNK: usize = 64 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Engine {
    Tern,
    Vte,
    Alacritty,
}

impl Engine {
    const ALL: [Engine; 3] = [Engine::Tern, Engine::Vte, Engine::Alacritty];
    fn name(self) -> &'static str {
        match self {
            Engine::Tern => "tern",
            Engine::Vte => "vte-noop",
            Engine::Alacritty => "alacritty_terminal",
        }
    }
}

struct Noop;
impl vte::Perform for Noop {}

/// Parses all of `data` with a fresh engine; returns a value to keep the work alive.
fn run(engine: Engine, data: &[u8]) -> usize {
    match engine {
        Engine::Tern => {
            let mut t = Terminal::new(TermSize::new(COLS, ROWS), TermConfig::default());
            for chunk in data.chunks(CHUNK) {
                t.advance(chunk);
            }
            t.cursor().col
        }
        Engine::Vte => {
            let mut p = vte::Parser::new();
            let mut n = Noop;
            for chunk in data.chunks(CHUNK) {
                p.advance(&mut n, chunk);
            }
            0
        }
        Engine::Alacritty => {
            let mut term = Term::new(
                AlacrittyConfig::default(),
                &AlacrittySize::new(COLS, ROWS),
                VoidListener,
            );
            let mut p: Processor = Processor::new();
            for chunk in data.chunks(CHUNK) {
                p.advance(&mut term, chunk);
            }
            term.grid().cursor.point.column.0
        }
    }
}

/// `size` bytes of underscore-heavy output (snake_case names, `__dunder__` files,
/// `____` rules, coloured): the stream guard's scan stops at every `_` (a `_` after
/// ESC starts an APC), so this is its worst text.
fn underscores(size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(size + 256);
    let mut i = 0usize;
    while out.len() < size {
        let line = match i % 4 {
            0 => format!(
                "\x1b[1;31merror\x1b[0m: unused variable `some_long_snake_case_name_{i}` in \
                 fn `do_the_thing_{}` at src/my_module/sub_mod_{}/file_name.rs:{i}:{}\r\n",
                i % 97,
                i % 13,
                i % 80
            ),
            1 => format!(
                "  File \"/usr/lib/python3/dist_packages/pkg_{}/__init__.py\", line {i}, \
                 in __getattr__ __dict__ _private_{}\r\n",
                i % 31,
                i % 7
            ),
            2 => "________________________________________________________________\r\n".to_owned(),
            _ => format!("MAX_RETRY_COUNT={i} HTTP_PROXY_URL=http_x DEBUG_LOG_LEVEL=snake_{i}\r\n"),
        };
        out.extend_from_slice(line.as_bytes());
        i += 1;
    }
    out.truncate(size);
    out
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let idx = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[idx]
}

fn main() {
    let quick = std::env::var_os("MODEL_PARSE_QUICK").is_some();
    let size = if quick { 1 << 20 } else { 10 << 20 };
    let mut fixtures: Vec<(&str, Vec<u8>)> = Fixture::ALL
        .iter()
        .map(|f| (f.name(), f.generate(size, COLS, ROWS)))
        .collect();
    fixtures.push(("underscore", underscores(size)));

    if let Ok(name) = std::env::var("MODEL_PARSE_PROFILE") {
        for (fixture, data) in fixtures.iter().filter(|(f, _)| *f == name) {
            let iters: u32 = std::env::var("MODEL_PARSE_ITERS")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(20);
            let start = Instant::now();
            let engine = match std::env::var("MODEL_PARSE_ENGINE").as_deref() {
                Ok("alacritty_terminal") => Engine::Alacritty,
                Ok("vte-noop") => Engine::Vte,
                _ => Engine::Tern,
            };
            for _ in 0..iters {
                black_box(run(engine, data));
            }
            let mbps = f64::from(iters) * data.len() as f64 / start.elapsed().as_secs_f64() / 1e6;
            println!("{fixture}: {} {mbps:.1} MB/s", engine.name());
        }
        return;
    }

    if !quick {
        let mut c = Criterion::default().sample_size(10).configure_from_args();
        for (fixture, data) in &fixtures {
            let mut group = c.benchmark_group(format!("model_parse/{fixture}"));
            group.throughput(Throughput::Bytes(data.len() as u64));
            for engine in Engine::ALL {
                group.bench_function(engine.name(), |b| b.iter(|| black_box(run(engine, data))));
            }
            group.finish();
        }
    }

    // Interleaved summary.
    let rounds = if quick { 3 } else { 9 };
    println!(
        "\nmodel_parse summary: {COLS}x{ROWS}, {rounds} interleaved rounds, {CHUNK}-byte chunks"
    );
    println!(
        "{:<11} {:>8} | {:>10} {:>10} {:>10} | {:>9} {:>9} | {:>10}",
        "fixture", "MB", "tern MB/s", "vte MB/s", "alac MB/s", "tern/alac", "tern/vte", "tern p99"
    );
    let mut json_rows = Vec::new();
    for (fixture, data) in &fixtures {
        let mut samples: [Vec<f64>; 3] = Default::default();
        for _ in 0..rounds {
            for (i, engine) in Engine::ALL.iter().enumerate() {
                let start = Instant::now();
                black_box(run(*engine, data));
                let secs = start.elapsed().as_secs_f64();
                samples[i].push(data.len() as f64 / secs / 1e6);
            }
        }
        for s in samples.iter_mut() {
            s.sort_by(|a, b| a.total_cmp(b));
        }
        let med: Vec<f64> = samples.iter().map(|s| percentile(s, 0.5)).collect();
        // The slowest run is the p99 of throughput (1% worst).
        let p99: Vec<f64> = samples.iter().map(|s| percentile(s, 0.01)).collect();
        let mb = data.len() as f64 / 1e6;
        println!(
            "{:<11} {:>8.1} | {:>10.1} {:>10.1} {:>10.1} | {:>8.2}x {:>8.2}x | {:>10.1}",
            fixture,
            mb,
            med[0],
            med[1],
            med[2],
            med[0] / med[2],
            med[0] / med[1],
            p99[0]
        );
        let spread = |s: &Vec<f64>| {
            format!(
                "[{}]",
                s.iter()
                    .map(|v| format!("{v:.1}"))
                    .collect::<Vec<_>>()
                    .join(",")
            )
        };
        json_rows.push(format!(
            "{{\"fixture\":\"{}\",\"bytes\":{},\"tern_mbps\":{:.2},\"vte_mbps\":{:.2},\"alacritty_mbps\":{:.2},\"tern_over_alacritty\":{:.3},\"tern_over_vte\":{:.3},\"samples\":{{\"tern\":{},\"vte\":{},\"alacritty\":{}}}}}",
            fixture,
            data.len(),
            med[0],
            med[1],
            med[2],
            med[0] / med[2],
            med[0] / med[1],
            spread(&samples[0]),
            spread(&samples[1]),
            spread(&samples[2])
        ));
    }
    let json = format!(
        "{{\"bench\":\"model_parse\",\"cols\":{COLS},\"rows\":{ROWS},\"rounds\":{rounds},\"results\":[{}]}}\n",
        json_rows.join(",")
    );
    let path = std::env::var("MODEL_PARSE_JSON")
        .unwrap_or_else(|_| format!("{}/../target/model_parse.json", env!("CARGO_MANIFEST_DIR")));
    match std::fs::write(&path, json) {
        Ok(()) => println!("wrote {path}"),
        Err(e) => eprintln!("could not write {path}: {e}"),
    }
}
