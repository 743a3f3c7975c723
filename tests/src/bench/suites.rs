//! The suites of `tern-bench`. Each prints a table and returns its JSON.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tern_core::fixtures::Fixture;
use tern_core::model::{TermConfig, TermSize, Terminal};
use tern_core::pipeline::delivery::{self, PaneView};

use super::stats::{Summary, summarize};
use super::systems::{Arrivals, Kind, PtySession, TernRig};

/// Options shared by the suites.
#[derive(Clone, Debug)]
pub struct Opts {
    pub quick: bool,
    pub hidden: usize,
    pub rate: u64,
    pub cpu_burners: usize,
    pub rounds: usize,
    pub workdir: PathBuf,
}

impl Opts {
    pub(super) fn rounds(&self) -> usize {
        if self.quick { 1 } else { self.rounds.max(1) }
    }
}

const TIMEOUT: Duration = Duration::from_secs(300);

/// The command line that runs the probe (this same executable, `probe` subcommand).
pub fn probe_argv(args: &[&str]) -> Vec<String> {
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "tern-bench".into());
    let mut v = vec![exe, "probe".to_string()];
    v.extend(args.iter().map(|a| a.to_string()));
    v
}

/// Writes a fixture file once per run.
pub fn fixture_file(
    opts: &Opts,
    fixture: Fixture,
    bytes: usize,
    cols: usize,
    rows: usize,
) -> PathBuf {
    let path = opts
        .workdir
        .join(format!("{}-{bytes}-{cols}x{rows}.bin", fixture.name()));
    if !path.exists() {
        let _ = std::fs::write(&path, fixture.generate(bytes, cols, rows));
    }
    path
}

fn rotated(round: usize) -> [Kind; 3] {
    let mut k = Kind::ALL;
    k.rotate_left(round % 3);
    k
}

/// Runs `argv` to completion in `kind`'s terminal (visible in tern).
fn run_in(kind: Kind, argv: &[String], size: TermSize) -> Result<(), String> {
    run_in_inner(kind, argv, size).map_err(|e| format!("{}: {e}", kind.name()))
}

fn run_in_inner(kind: Kind, argv: &[String], size: TermSize) -> Result<(), String> {
    match kind {
        Kind::Tern => {
            let rig = TernRig::start(TermConfig::default())?;
            let (pane, _) = rig.spawn(argv, size, true)?;
            let code = rig.wait_exit(pane, TIMEOUT)?;
            if code != 0 {
                return Err(format!("probe exited with {code}"));
            }
            Ok(())
        }
        _ => {
            let s = PtySession::spawn(kind, argv, size, false)?;
            let code = s.wait(TIMEOUT)?;
            if code != 0 {
                return Err(format!("probe exited with {code}"));
            }
            Ok(())
        }
    }
}

fn fmt_summary_us(s: &Summary) -> String {
    format!(
        "{:>8.1} {:>8.1} {:>8.1} {:>9.1}{}",
        s.p50,
        s.p95,
        s.p99,
        s.max,
        if s.bimodal { "  BIMODAL" } else { "" }
    )
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { f64::NAN }
}

// ---------------------------------------------------------------- dsr

pub fn dsr(opts: &Opts) -> Result<Value, String> {
    let per_round = if opts.quick { 200 } else { 250 };
    let rounds = if opts.quick { 1 } else { opts.rounds.max(2) };
    let agent = fixture_file(opts, Fixture::AgentTui, 4 << 20, 80, 24);
    let mut out = Vec::new();
    println!(
        "\n== dsr: ESC[6n round trips from inside the terminal ({} probes per system and case)",
        per_round * rounds
    );
    println!(
        "{:<6} {:<6} {:>8} {:>8} {:>8} {:>9}   (µs)",
        "case", "system", "p50", "p95", "p99", "max"
    );
    for loaded in [false, true] {
        let case = if loaded { "load" } else { "idle" };
        let mut samples: std::collections::HashMap<Kind, Vec<f64>> = Default::default();
        let mut behind: std::collections::HashMap<Kind, Vec<f64>> = Default::default();
        for round in 0..rounds {
            for kind in rotated(round) {
                let path = opts
                    .workdir
                    .join(format!("dsr-{}-{case}-{round}.txt", kind.name()));
                let count = per_round.to_string();
                let out_s = path.display().to_string();
                let agent_s = agent.display().to_string();
                let rate = opts.rate.to_string();
                let mut args = vec!["dsr", "--count", &count, "--warmup", "20", "--out", &out_s];
                if loaded {
                    args.extend(["--load-file", &agent_s, "--load-rate", &rate]);
                }
                let trace = opts
                    .workdir
                    .join(format!("dsr-{}-{case}-{round}.trace", kind.name()));
                let trace_s = trace.display().to_string();
                if loaded {
                    args.extend(["--trace", &trace_s]);
                }
                run_in(kind, &probe_argv(&args), TermSize::new(80, 24))?;
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                if loaded {
                    let traced = std::fs::read_to_string(&trace)
                        .map_err(|e| format!("{}: {e}", trace.display()))?;
                    behind
                        .entry(kind)
                        .or_default()
                        .extend(behind_a_load_step(&traced));
                }
                samples.entry(kind).or_default().extend(
                    text.lines()
                        .filter_map(|l| l.trim().parse::<f64>().ok())
                        .map(|ns| ns / 1000.0),
                );
            }
        }
        let sums: Vec<(Kind, Summary)> = Kind::ALL
            .iter()
            .map(|k| {
                (
                    *k,
                    summarize(samples.get(k).map(Vec::as_slice).unwrap_or(&[])),
                )
            })
            .collect();
        for (k, s) in &sums {
            println!("{:<6} {:<6} {}", case, k.name(), fmt_summary_us(s));
        }
        let (t, f, p) = (&sums[0].1, &sums[1].1, &sums[2].1);
        println!(
            "{case}: tern p99 / floor p99 = {:.2}x (target ≤ 1.2x), tern p99 / peer p99 = {:.2}x; p50 {:.2}x the floor's",
            ratio(t.p99, f.p99),
            ratio(t.p99, p.p99),
            ratio(t.p50, f.p50)
        );
        let behind: Vec<(Kind, Summary)> = Kind::ALL
            .iter()
            .filter_map(|k| Some((*k, summarize(behind.get(k)?))))
            .collect();
        for (k, s) in &behind {
            println!(
                "{case}: queries written right behind a load step, {:<5} n {:>3}  p50 {:>7.1}  p95 {:>7.1}  max {:>8.1}",
                k.name(),
                s.n,
                s.p50,
                s.p95,
                s.max
            );
        }
        let behind: serde_json::Map<String, Value> = behind
            .iter()
            .map(|(k, s)| (k.name().to_owned(), json!(s)))
            .collect();
        out.push(json!({
            "case": case,
            "unit": "us",
            "tern": t, "floor": f, "peer": p,
            "p99_tern_over_floor": ratio(t.p99, f.p99),
            "p99_tern_over_peer": ratio(t.p99, p.p99),
            "p50_tern_over_floor": ratio(t.p50, f.p50),
            "behind_a_load_step": behind,
        }));
    }
    Ok(json!({ "suite": "dsr", "cases": out }))
}

/// A query written this soon after the load finished a write waits in the pty behind
/// that write (a 10 KB step of the load), which the terminal must parse first.
const BEHIND_NS: u64 = 300_000;

/// The round trips (µs) of a probe's `--trace` whose query was written right behind a
/// load write (lines: latency ns, ns since the load's last write, its bytes, load bytes
/// written during the round trip).
fn behind_a_load_step(trace: &str) -> Vec<f64> {
    trace
        .lines()
        .filter_map(|line| {
            let mut v = line.split_whitespace().map(|x| x.parse::<u64>().ok());
            let (latency, since) = (v.next()??, v.next()??);
            (since < BEHIND_NS).then_some(latency as f64 / 1000.0)
        })
        .collect()
}

// ---------------------------------------------------------------- throughput

pub fn throughput(opts: &Opts) -> Result<Value, String> {
    let bytes = if opts.quick { 2 << 20 } else { 10 << 20 };
    let size = TermSize::new(120, 40);
    println!(
        "\n== throughput: pty → model, MB/s, fenced by a DSR ({} MB per fixture, {} rounds)",
        bytes >> 20,
        opts.rounds()
    );
    println!(
        "{:<10} {:>10} {:>10} {:>10} | {:>10} {:>10}",
        "fixture", "tern", "floor", "peer", "tern/floor", "tern/peer"
    );
    let mut out = Vec::new();
    for fixture in Fixture::ALL {
        let file = fixture_file(opts, fixture, bytes, size.cols, size.rows);
        let mut samples: std::collections::HashMap<Kind, Vec<f64>> = Default::default();
        for round in 0..opts.rounds() {
            for kind in rotated(round) {
                let path =
                    opts.workdir
                        .join(format!("tp-{}-{}-{round}.txt", fixture.name(), kind.name()));
                let (f, o) = (file.display().to_string(), path.display().to_string());
                run_in(
                    kind,
                    &probe_argv(&["cat-dsr", "--file", &f, "--out", &o]),
                    size,
                )?;
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                let mut it = text
                    .split_whitespace()
                    .filter_map(|v| v.parse::<f64>().ok());
                if let (Some(b), Some(ns)) = (it.next(), it.next()) {
                    samples.entry(kind).or_default().push(b / (ns / 1e9) / 1e6);
                }
            }
        }
        let med = |k: Kind| summarize(samples.get(&k).map(Vec::as_slice).unwrap_or(&[])).p50;
        let (t, f, p) = (med(Kind::Tern), med(Kind::Floor), med(Kind::Peer));
        println!(
            "{:<10} {:>10.1} {:>10.1} {:>10.1} | {:>9.2}x {:>9.2}x",
            fixture.name(),
            t,
            f,
            p,
            ratio(t, f),
            ratio(t, p)
        );
        out.push(json!({
            "fixture": fixture.name(), "bytes": bytes, "unit": "MB/s",
            "tern": t, "floor": f, "peer": p,
            "tern_over_floor": ratio(t, f), "tern_over_peer": ratio(t, p),
            "samples": { "tern": samples.get(&Kind::Tern), "floor": samples.get(&Kind::Floor), "peer": samples.get(&Kind::Peer) },
        }));
    }
    println!("target: tern ≥ 0.9x the floor");
    Ok(json!({ "suite": "throughput", "results": out }))
}

// ---------------------------------------------------------------- typing

struct Burners {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Burners {
    fn start(n: usize) -> Burners {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..n)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = std::hint::black_box(
                            x.wrapping_mul(6364136223846793005).wrapping_add(1),
                        );
                    }
                })
            })
            .collect();
        Burners { stop, threads }
    }
}

impl Drop for Burners {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Per key: total latency, input half, output half (µs).
#[derive(Default)]
pub(super) struct KeySamples {
    pub(super) total: Vec<f64>,
    input: Vec<f64>,
    output: Vec<f64>,
}

/// Types `keys` keys into the echo pane and times each until `log` shows its echo.
pub(super) fn type_keys(
    keys: usize,
    write: &dyn Fn(&[u8]),
    log: &Arrivals,
    base: u64,
) -> Result<KeySamples, String> {
    let mut s = KeySamples::default();
    let mut rng = tern_core::fixtures::XorShift(0x7e77);
    for i in 0..keys {
        let want = base + i as u64 + 1;
        let key = [b'a' + (i % 26) as u8];
        let t0 = Instant::now();
        write(&key);
        let deadline = t0 + Duration::from_secs(10);
        let hit = log.wait_for(deadline, |l| {
            l.iter()
                .rev()
                .find(|a| a.total >= want && a.ready_at >= t0)
                .copied()
        });
        let Some(a) = hit else {
            return Err(format!("key {i} never echoed"));
        };
        s.total.push((a.ready_at - t0).as_secs_f64() * 1e6);
        s.input
            .push(a.read_at.saturating_duration_since(t0).as_secs_f64() * 1e6);
        s.output.push(
            a.ready_at
                .saturating_duration_since(a.read_at)
                .as_secs_f64()
                * 1e6,
        );
        // A typist's pace, jittered: 5–15 ms.
        std::thread::sleep(Duration::from_micros(5000 + (rng.next_u64() % 10_000)));
    }
    Ok(s)
}

fn typing_case(
    opts: &Opts,
    kind: Kind,
    hidden: usize,
    rate: u64,
    burners: usize,
    keys: usize,
) -> Result<KeySamples, String> {
    let agent = fixture_file(opts, Fixture::AgentTui, 4 << 20, 80, 24);
    let (a, r) = (agent.display().to_string(), rate.to_string());
    let stream = probe_argv(&["stream", "--file", &a, "--rate", &r]);
    let echo = probe_argv(&["echo"]);
    let size = TermSize::new(80, 24);
    let _burn = Burners::start(burners);
    match kind {
        Kind::Tern => {
            let rig = TernRig::start(TermConfig::default())?;
            let floods: Vec<_> = (0..hidden)
                .map(|_| rig.spawn(&stream, size, false))
                .collect::<Result<_, _>>()?;
            let (pane, log) = rig.spawn(&echo, size, true)?;
            std::thread::sleep(Duration::from_millis(300));
            let base = log.max_total();
            let p = rig.pipeline.clone();
            let result = type_keys(keys, &|k| p.write(pane, k), &log, base);
            for (f, _) in floods {
                rig.pipeline.close(f);
            }
            rig.pipeline.close(pane);
            result
        }
        _ => {
            let floods: Vec<PtySession> = (0..hidden)
                .map(|_| PtySession::spawn(kind, &stream, size, false))
                .collect::<Result<_, _>>()?;
            let s = PtySession::spawn(kind, &echo, size, true)?;
            std::thread::sleep(Duration::from_millis(300));
            let base = s.arrivals.max_total();
            let result = type_keys(keys, &|k| s.write(k), &s.arrivals, base);
            for f in floods {
                f.kill();
            }
            s.kill();
            result
        }
    }
}

pub fn typing(opts: &Opts) -> Result<Value, String> {
    let keys = if opts.quick { 60 } else { 300 };
    let cases = [
        (
            format!("{}x{}KB/s", opts.hidden, opts.rate / 1000),
            opts.hidden,
            opts.rate,
            0,
        ),
        ("4x256KB/s".to_string(), 4, 256_000, 0),
        (
            format!(
                "{}x{}KB/s+{}burners",
                opts.hidden,
                opts.rate / 1000,
                opts.cpu_burners
            ),
            opts.hidden,
            opts.rate,
            opts.cpu_burners,
        ),
    ];
    println!(
        "\n== typing: keystroke → echo parsed → frame ready (tern), with hidden panes streaming ({keys} keys per system)"
    );
    println!(
        "{:<24} {:<6} {:>8} {:>8} {:>8} {:>9} | {:>9} {:>9}   (µs)",
        "case", "system", "p50", "p95", "p99", "max", "in p50", "out p50"
    );
    let mut out = Vec::new();
    for (name, hidden, rate, burners) in cases {
        let mut per: std::collections::HashMap<Kind, KeySamples> = Default::default();
        for round in 0..opts.rounds() {
            for kind in rotated(round) {
                let s = typing_case(
                    opts,
                    kind,
                    hidden,
                    rate,
                    burners,
                    keys / opts.rounds().max(1),
                )?;
                let e = per.entry(kind).or_default();
                e.total.extend(s.total);
                e.input.extend(s.input);
                e.output.extend(s.output);
            }
        }
        let mut case_json = serde_json::Map::new();
        for kind in Kind::ALL {
            let s = per.get(&kind).map(|k| {
                (
                    summarize(&k.total),
                    summarize(&k.input),
                    summarize(&k.output),
                )
            });
            if let Some((t, i, o)) = s {
                println!(
                    "{:<24} {:<6} {} | {:>9.1} {:>9.1}",
                    name,
                    kind.name(),
                    fmt_summary_us(&t),
                    i.p50,
                    o.p50
                );
                case_json.insert(
                    kind.name().into(),
                    json!({ "total": t, "input_half": i, "output_half": o }),
                );
            }
        }
        out.push(json!({ "case": name, "unit": "us", "systems": case_json }));
    }
    println!(
        "target (tern): p50 < 2000 µs, p99 < 5000 µs; floor and peer have no frames (peer: parsed; floor: read)"
    );
    Ok(json!({ "suite": "typing", "cases": out }))
}

// ---------------------------------------------------------------- reveal

pub fn reveal(opts: &Opts) -> Result<Value, String> {
    let histories: Vec<usize> = if opts.quick {
        vec![1_000, 100_000]
    } else {
        vec![1_000, 100_000, 1_000_000]
    };
    let reveals = if opts.quick { 15 } else { 40 };
    let agent = fixture_file(opts, Fixture::AgentTui, 4 << 20, 80, 24);
    println!(
        "\n== reveal: reveal request → snapshot ready, by scrollback length ({reveals} reveals each)"
    );
    println!(
        "{:<10} {:<9} {:>8} {:>8} {:>8} {:>9}   (µs)",
        "history", "pane", "p50", "p95", "p99", "max"
    );
    let mut out = Vec::new();
    for &lines in &histories {
        for streaming in [false, true] {
            let config = TermConfig {
                scrollback_lines: lines + 100,
                scrollback_bytes: 4 << 30,
                ..TermConfig::default()
            };
            let rig = TernRig::start(config)?;
            let count = lines.to_string();
            let probe = probe_argv(&["lines", "--count", &count, "--then-wait"]);
            let argv = if streaming {
                let a = agent.display().to_string();
                let stream = probe_argv(&["stream", "--file", &a, "--rate", "1000000"]);
                let script = format!(
                    "{} && exec {}",
                    shell_join(&probe_argv(&["lines", "--count", &count])),
                    shell_join(&stream)
                );
                vec!["sh".to_string(), "-c".to_string(), script]
            } else {
                probe
            };
            let size = TermSize::new(120, 40);
            let (pane, log) = rig.spawn(&argv, size, false)?;
            rig.wait_history(pane, lines, Instant::now() + TIMEOUT)?;
            let samples = rig.reveal_times(pane, &log, reveals)?;
            rig.pipeline.close(pane);
            let s = summarize(&samples);
            let what = if streaming { "streaming" } else { "idle" };
            println!("{:<10} {:<9} {}", lines, what, fmt_summary_us(&s));
            out.push(json!({ "history_lines": lines, "pane": what, "unit": "us", "reveal": s }));
        }
    }
    println!(
        "target: under 2000 µs at 1,000,000 lines, flat in history length, also while streaming"
    );
    Ok(json!({ "suite": "reveal", "results": out }))
}

fn shell_join(argv: &[String]) -> String {
    argv.iter()
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect::<Vec<_>>()
        .join(" ")
}

// ---------------------------------------------------------------- memory

/// Realistic build-log lines of about 57 bytes.
pub fn log_lines(n: usize) -> Vec<u8> {
    let mut rng = tern_core::fixtures::XorShift(0x10c);
    let crates = [
        "serde",
        "tokio",
        "tern-core",
        "vte",
        "wgpu-hal",
        "egui",
        "portable-pty",
        "memchr",
        "unicode-width",
    ];
    let mut out = Vec::with_capacity(n * 60);
    for i in 0..n {
        let c = crates[rng.below(crates.len())];
        let line = format!(
            "[{:>7}] Compiling {c} v0.{}.{} (/src/{c}) {:>4}ms\r\n",
            i,
            rng.below(40),
            rng.below(20),
            rng.below(9999)
        );
        out.extend_from_slice(line.as_bytes());
    }
    out
}

pub use tern_testkit::rss_bytes;

/// Runs in a child process (`tern-bench worker ...`) so each measurement starts clean.
pub fn memory_worker(args: &[String]) -> Result<Value, String> {
    let what = args.first().map(String::as_str).unwrap_or("");
    let n: usize = args.get(2).and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let system = args.get(1).map(String::as_str).unwrap_or("tern");
    match what {
        "scrollback" => {
            let data = log_lines(n);
            let raw_per_line = data.len() as f64 / n as f64 - 2.0;
            let before = rss_bytes();
            let (rss, heap) = match system {
                "tern" => {
                    let mut t = Terminal::new(
                        TermSize::new(120, 40),
                        TermConfig {
                            scrollback_lines: n + 100,
                            scrollback_bytes: 8 << 30,
                            ..TermConfig::default()
                        },
                    );
                    for chunk in data.chunks(64 * 1024) {
                        t.advance(chunk);
                    }
                    let heap = t.heap_bytes() as u64;
                    (rss_bytes().saturating_sub(before), heap)
                }
                _ => {
                    use alacritty_terminal::event::VoidListener;
                    use alacritty_terminal::term::test::TermSize as ASize;
                    let config = alacritty_terminal::term::Config {
                        scrolling_history: n + 100,
                        ..Default::default()
                    };
                    let mut t =
                        alacritty_terminal::Term::new(config, &ASize::new(120, 40), VoidListener);
                    let mut p: alacritty_terminal::vte::ansi::Processor =
                        alacritty_terminal::vte::ansi::Processor::new();
                    for chunk in data.chunks(64 * 1024) {
                        p.advance(&mut t, chunk);
                    }
                    std::hint::black_box(&t);
                    (rss_bytes().saturating_sub(before), 0)
                }
            };
            drop(data);
            Ok(
                json!({ "lines": n, "raw_bytes_per_line": raw_per_line, "rss_bytes": rss, "heap_bytes": heap }),
            )
        }
        "idle-panes" => {
            let before = rss_bytes();
            let argv = vec!["sh".to_string(), "-c".to_string(), "read x".to_string()];
            let size = TermSize::new(120, 40);
            let rss = match system {
                "tern" => {
                    let rig = TernRig::start(TermConfig::default())?;
                    let panes: Vec<_> = (0..n)
                        .map(|_| rig.spawn(&argv, size, false))
                        .collect::<Result<_, _>>()?;
                    std::thread::sleep(Duration::from_millis(500));
                    let rss = rss_bytes().saturating_sub(before);
                    for (p, _) in panes {
                        rig.pipeline.close(p);
                    }
                    rss
                }
                _ => {
                    let kind = if system == "peer" {
                        Kind::Peer
                    } else {
                        Kind::Floor
                    };
                    let s: Vec<PtySession> = (0..n)
                        .map(|_| PtySession::spawn(kind, &argv, size, false))
                        .collect::<Result<_, _>>()?;
                    std::thread::sleep(Duration::from_millis(500));
                    let rss = rss_bytes().saturating_sub(before);
                    for x in s {
                        x.kill();
                    }
                    rss
                }
            };
            Ok(json!({ "panes": n, "rss_bytes": rss }))
        }
        other => Err(format!("unknown worker {other}")),
    }
}

fn run_worker(args: &[&str]) -> Result<Value, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = std::process::Command::new(exe)
        .arg("worker")
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "worker {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("worker output: {e}"))
}

pub fn memory(opts: &Opts) -> Result<Value, String> {
    let lines = if opts.quick { 100_000 } else { 1_000_000 };
    println!("\n== memory");
    let n = lines.to_string();
    let tern = run_worker(&["scrollback", "tern", &n])?;
    let peer = run_worker(&["scrollback", "peer", &n])?;
    let raw = tern["raw_bytes_per_line"].as_f64().unwrap_or(f64::NAN);
    let per = |v: &Value, key: &str| v[key].as_f64().unwrap_or(f64::NAN) / lines as f64;
    println!(
        "scrollback, {lines} build-log lines of {raw:.0} B at 120 cols: tern {:.0} B/line heap ({:.0} B/line RSS, {:.2}x raw; target ≤ 2x), alacritty_terminal {:.0} B/line RSS",
        per(&tern, "heap_bytes"),
        per(&tern, "rss_bytes"),
        per(&tern, "heap_bytes") / raw,
        per(&peer, "rss_bytes")
    );
    // A parked pane's view: the UI drops it; a visible 200x60 dense view costs this much.
    let mut t = Terminal::new(TermSize::new(200, 60), TermConfig::default());
    t.advance(&Fixture::Dense.generate(64 * 1024, 200, 60));
    let view = PaneView::from_snapshot(delivery::snapshot(&t, 0));
    let view_bytes = view.heap_bytes();
    drop(view);
    println!(
        "view of a visible 200x60 pane: {view_bytes} B (with its {} history lines); parked: 0 B (the view is dropped)",
        delivery::SNAPSHOT_HISTORY_LINES
    );
    let idle = if opts.quick { "20" } else { "50" };
    let it = run_worker(&["idle-panes", "tern", idle])?;
    let ip = run_worker(&["idle-panes", "peer", idle])?;
    println!(
        "RSS for {idle} idle panes (this process only; the shells are separate): tern {:.1} MB, peer {:.1} MB",
        it["rss_bytes"].as_f64().unwrap_or(0.0) / 1e6,
        ip["rss_bytes"].as_f64().unwrap_or(0.0) / 1e6
    );
    Ok(json!({
        "suite": "memory",
        "scrollback": { "tern": tern, "peer": peer },
        "visible_view_bytes_200x60": view_bytes,
        "parked_view_bytes": 0,
        "idle_panes": { "tern": it, "peer": ip },
    }))
}

// ---------------------------------------------------------------- frame

/// One frame-building scenario: how the screen changes each frame, and whether rows
/// keep their meshes between frames.
struct FrameCase {
    name: &'static str,
    key: &'static str,
    /// Only two rows change per frame (an agent's spinner and status line).
    two_rows: bool,
    row_cache: bool,
}

pub fn frame(opts: &Opts) -> Result<Value, String> {
    use tern::window::render::{self, Metrics, RowCache, Scene};
    let iters = if opts.quick { 300 } else { 2000 };
    let size = TermSize::new(200, 60);
    let dense = Fixture::Dense.generate(8 << 20, size.cols, size.rows);
    // One full dense redraw per iteration: split the fixture at its frame starts.
    let starts: Vec<usize> = memchr::memmem::find_iter(&dense, b"\x1b[?2026h").collect();
    let ctx = egui::Context::default();
    tern::window::app::install_fonts(&ctx);
    // TERN_BENCH_FONT="Fira Code": the same frames in a ligature font (runs of
    // punctuation shaped, see app/src/window/glyphs/shaping.rs).
    if let Ok(family) = std::env::var("TERN_BENCH_FONT") {
        let config = tern_core::config::FontConfig {
            family: Some(family),
            ..Default::default()
        };
        tern::window::glyphs::fonts::install_fonts_with(&ctx, &config)?;
    }
    let theme = tern::window::theme::Theme::default();
    let font = egui::FontId::new(15.0, egui::FontFamily::Monospace);
    let input = || egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1900.0, 1100.0),
        )),
        ..Default::default()
    };
    // Warm the font atlas and layout caches once.
    ctx.run_ui(input(), |_| {}).textures_delta.clear();
    let metrics = ctx.fonts_mut(|f| Metrics {
        font: font.clone(),
        cell: egui::vec2(f.glyph_width(&font, 'M'), f.row_height(&font)),
        inset: egui::Vec2::ZERO,
    });
    let cases = [
        FrameCase {
            name: "every row changes",
            key: "full",
            two_rows: false,
            row_cache: true,
        },
        FrameCase {
            name: "two rows change, row cache",
            key: "two_rows",
            two_rows: true,
            row_cache: true,
        },
        FrameCase {
            name: "two rows change, no row cache",
            key: "two_rows_uncached",
            two_rows: true,
            row_cache: false,
        },
    ];
    let mut out = serde_json::Map::new();
    out.insert("suite".into(), json!("frame"));
    out.insert("unit".into(), json!("us"));
    let mut totals = Vec::new();
    for case in &cases {
        let mut t = Terminal::new(size, TermConfig::default());
        t.advance(&dense[starts[0]..starts[1]]);
        let mut view = PaneView::from_snapshot(delivery::snapshot(&t, 0));
        let mut glyphs = tern::window::glyphs::GlyphCache::default();
        let mut cache = RowCache::default();
        let (mut model, mut ui_build, mut tess, mut total, mut rebuilt) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), 0usize);
        for i in 0..iters {
            if case.two_rows {
                let status =
                    format!("\x1b[1;1H\x1b[33m{i:>8}\x1b[m\x1b[60;1Hworking… step {i} of {iters}");
                t.advance(status.as_bytes());
            } else {
                let k = i % (starts.len() - 1);
                t.advance(&dense[starts[k]..starts[k + 1]]);
            }
            if !case.row_cache {
                cache.clear();
            }
            let t0 = Instant::now();
            let f = delivery::frame(&mut t, i as u64);
            view.apply(f);
            let t1 = Instant::now();
            let rows: Vec<&tern_core::model::Row> = view.rows.iter().collect();
            let none = |_: usize, _: usize| false;
            let scene = Scene {
                rows: &rows,
                cursor: Some((view.meta.cursor, view.meta.cursor_shape)),
                selected: &none,
                any_selected: false,
                scroll: (0, 0),
                images: &[],
            };
            let rect = egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(metrics.cell.x * 200.0, metrics.cell.y * 60.0),
            );
            let mut shapes = ctx.run_ui(input(), |ui| {
                let style = render::Style {
                    metrics: &metrics,
                    palette: &view.palette,
                    theme: &theme,
                    focused: true,
                    window_clear: None,
                    // The frame suite measures the direct path's mesh build.
                    grid: None,
                };
                render::paint(ui.painter(), &mut glyphs, &mut cache, rect, &scene, &style)
            });
            // A window would upload new glyphs to the GPU; here they are dropped.
            shapes.textures_delta.clear();
            let t2 = Instant::now();
            let prims = ctx.tessellate(shapes.shapes, shapes.pixels_per_point);
            let t3 = Instant::now();
            std::hint::black_box(&prims);
            rebuilt += cache.rebuilt;
            let us = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e6;
            model.push(us(t0, t1));
            ui_build.push(us(t1, t2));
            tess.push(us(t2, t3));
            total.push(us(t0, t3));
        }
        let (m, u, te, to) = (
            summarize(&model),
            summarize(&ui_build),
            summarize(&tess),
            summarize(&total),
        );
        println!(
            "\n== frame: 200x60, {} ({iters} frames, {:.1} rows rebuilt per frame)",
            case.name,
            rebuilt as f64 / iters as f64
        );
        println!(
            "{:<34} {:>8} {:>8} {:>8} {:>9}   (µs)",
            "", "p50", "p95", "p99", "max"
        );
        println!("{:<34} {}", "model frame + view apply", fmt_summary_us(&m));
        println!("{:<34} {}", "UI: paint (row meshes)", fmt_summary_us(&u));
        println!(
            "{:<34} {}",
            "tessellate (meshes for the GPU)",
            fmt_summary_us(&te)
        );
        println!("{:<34} {}", "total CPU per frame", fmt_summary_us(&to));
        totals.push(to.p50);
        out.insert(
            case.key.into(),
            json!({ "model": m, "ui_paint": u, "tessellate": te, "total": to,
                    "rows_rebuilt_per_frame": rebuilt as f64 / iters as f64 }),
        );
    }
    println!(
        "\nrow cache: two-row frames take {:.2}x the time of rebuilding every row (p50, same run)",
        totals[1] / totals[2]
    );
    println!("target: under 2000 µs CPU per frame (total)");
    out.insert(
        "two_rows_cached_over_uncached_p50".into(),
        json!(totals[1] / totals[2]),
    );
    Ok(Value::Object(out))
}

pub fn workdir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tern-bench-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    dir
}

pub fn cleanup(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
}
