//! `tern-bench SUITE [--json PATH] [--quick]`: tern's numbers, each measured side by side
//! with a floor (a bare pty that only answers `ESC[6n`) and a peer (portable-pty plus
//! `alacritty_terminal` on a reader thread) in the same run, alternating between them.
//!
//! Suites: `dsr`, `throughput`, `typing`, `reveal`, `memory`, `frame`, `search`,
//! `images` (typing and reveal beside an image-heavy hidden pane), `image-slices` (its
//! in-process slice times alone), `all`.
//! `cargo run --release -p tern-tests --bin tern-bench -- all --quick --json out.json`

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use serde_json::{Value, json};
use tern_tests::bench::suites::{self, Opts};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Suite {
    Dsr,
    Throughput,
    Typing,
    Reveal,
    Memory,
    Frame,
    Search,
    Images,
    /// Only the images suite's in-process slice times (seconds, no ptys).
    ImageSlices,
    All,
}

#[derive(Parser, Debug)]
#[command(
    name = "tern-bench",
    about = "tern's benchmarks, beside a floor and a peer in the same run"
)]
struct Cli {
    suite: Suite,
    /// Also write the results as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Smaller inputs and fewer rounds (all suites in under 3 minutes).
    #[arg(long)]
    quick: bool,
    /// Hidden panes streaming during `typing`.
    #[arg(long, default_value_t = 12)]
    hidden: usize,
    /// Bytes per second each hidden pane streams during `typing`.
    #[arg(long, default_value_t = 1_000_000)]
    rate: u64,
    /// Busy threads in the third `typing` case.
    #[arg(long, default_value_t = 2)]
    cpu_burners: usize,
    /// Alternating rounds per suite (tern, floor, peer in turn).
    #[arg(long, default_value_t = 3)]
    rounds: usize,
}

fn machine() -> Value {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_default();
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    json!({ "cpu": cpu, "cores": cores, "os": std::env::consts::OS })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    // Internal modes: this executable is also the probe and the memory worker.
    match args.get(1).map(String::as_str) {
        Some("probe") => {
            let probe_args =
                std::iter::once("tern-probe".to_string()).chain(args[2..].iter().cloned());
            return tern_tests::probe::main_from(probe_args);
        }
        // `tern-bench floor [--] PROGRAM ARGS...`: runs a program in the floor (a bare
        // pty whose reader only answers `ESC[6n`), for scripts that compare the binary
        // with it in the same run (scripts/headless-dsr.sh).
        Some("floor") => {
            let argv: Vec<String> = args[2..]
                .iter()
                .skip_while(|a| a.as_str() == "--")
                .cloned()
                .collect();
            if argv.is_empty() {
                eprintln!("tern-bench floor: no program given");
                return ExitCode::FAILURE;
            }
            let run = tern_tests::bench::systems::PtySession::spawn(
                tern_tests::bench::systems::Kind::Floor,
                &argv,
                tern_core::model::TermSize::new(80, 24),
                false,
            )
            .and_then(|s| s.wait(std::time::Duration::from_secs(600)));
            return match run {
                Ok(0) => ExitCode::SUCCESS,
                Ok(code) => {
                    eprintln!("tern-bench floor: the program exited with {code}");
                    ExitCode::FAILURE
                }
                Err(e) => {
                    eprintln!("tern-bench floor: {e}");
                    ExitCode::FAILURE
                }
            };
        }
        // `tern-bench fixture NAME BYTES PATH`: writes a workload fixture (80x24), e.g.
        // the agent-TUI load of `dsr`, for scripts.
        Some("fixture") => {
            let fixture = args.get(2).and_then(|n| {
                tern_core::fixtures::Fixture::ALL
                    .into_iter()
                    .find(|f| f.name() == n.as_str())
            });
            let bytes = args.get(3).and_then(|b| b.parse::<usize>().ok());
            let (Some(fixture), Some(bytes), Some(path)) = (fixture, bytes, args.get(4)) else {
                eprintln!("usage: tern-bench fixture dense|scrolling|agent-tui|unicode BYTES PATH");
                return ExitCode::FAILURE;
            };
            return match std::fs::write(path, fixture.generate(bytes, 80, 24)) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("tern-bench fixture: {path}: {e}");
                    ExitCode::FAILURE
                }
            };
        }
        Some("worker") => {
            return match suites::memory_worker(&args[2..]) {
                Ok(v) => {
                    println!("{v}");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("tern-bench worker: {e}");
                    ExitCode::FAILURE
                }
            };
        }
        _ => {}
    }
    let cli = Cli::parse();
    let workdir = suites::workdir();
    let opts = Opts {
        quick: cli.quick,
        hidden: cli.hidden,
        rate: cli.rate,
        cpu_burners: cli.cpu_burners,
        rounds: cli.rounds,
        workdir: workdir.clone(),
    };
    println!(
        "tern-bench: {:?}{} on {}",
        cli.suite,
        if cli.quick { " (quick)" } else { "" },
        machine()
    );
    type SuiteFn = fn(&Opts) -> Result<Value, String>;
    let run: Vec<(&str, SuiteFn)> = match cli.suite {
        Suite::Dsr => vec![("dsr", suites::dsr)],
        Suite::Throughput => vec![("throughput", suites::throughput)],
        Suite::Typing => vec![("typing", suites::typing)],
        Suite::Reveal => vec![("reveal", suites::reveal)],
        Suite::Memory => vec![("memory", suites::memory)],
        Suite::Frame => vec![("frame", suites::frame)],
        Suite::Search => vec![("search", tern_tests::bench::search::search)],
        Suite::Images => vec![("images", tern_tests::bench::images::images)],
        Suite::ImageSlices => vec![("image-slices", tern_tests::bench::images::image_slices)],
        Suite::All => vec![
            ("frame", suites::frame),
            ("dsr", suites::dsr),
            ("throughput", suites::throughput),
            ("typing", suites::typing),
            ("reveal", suites::reveal),
            ("memory", suites::memory),
            ("search", tern_tests::bench::search::search),
        ],
    };
    let started = std::time::Instant::now();
    let mut results = Vec::new();
    let mut failed = false;
    for (name, f) in run {
        match f(&opts) {
            Ok(v) => results.push(v),
            Err(e) => {
                eprintln!("tern-bench: {name} failed: {e}");
                failed = true;
            }
        }
    }
    println!("\ntotal time: {:.1} s", started.elapsed().as_secs_f64());
    let doc = json!({ "machine": machine(), "quick": cli.quick, "results": results });
    if let Some(path) = cli.json {
        match std::fs::write(
            &path,
            serde_json::to_string_pretty(&doc).unwrap_or_default(),
        ) {
            Ok(()) => println!("wrote {}", path.display()),
            Err(e) => eprintln!("tern-bench: cannot write {}: {e}", path.display()),
        }
    }
    suites::cleanup(&workdir);
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
