//! `tern-bench images`: the flood and reveal figures with an image-heavy hidden pane
//! (issue 49: "the flood and reveal benchmarks unchanged").
//!
//! The same rig as `typing` and `reveal`, in alternating rounds, in four variants:
//! **text** (the benchmark as it is), **+text** (one more hidden pane streaming the
//! same text: the load of a pane, without images), **+kitty** (one more hidden pane streaming kitty
//! graphics transmissions, 64x64 RGB with ids cycling 1..50, each placed) and
//! **+sixel** (one more hidden pane streaming 64x64 sixel images, each a new image, so
//! the store's quota evicts). The image panes stream at the text floods' rate. Each
//! variant's figures are printed with their ratio to **text** in the same run.
//!
//! - typing: key → echo parsed → frame ready in a visible echo pane while `hidden`
//!   panes stream the agent-TUI fixture (plus the image pane);
//! - reveal: reveal request → snapshot ready of a parked pane of 100,000 lines
//!   (idle), while the image pane streams;
//! - slice: each hidden stream (+text, +kitty, +sixel; and full-screen DECFRA, area
//!   work alone, for scale) parsed in process in the model thread's slices, each
//!   slice's time (what a key that comes during one waits), and a reveal's snapshot
//!   of a pane holding the store's 1024 placements against a text pane's.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};
use tern_core::fixtures::Fixture;
use tern_core::model::{TermConfig, TermSize};

use super::stats::{Summary, summarize};
use super::suites::{Opts, fixture_file, probe_argv, type_keys};
use super::systems::TernRig;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    Text,
    /// One more hidden pane streaming text: the same load as an image pane's, without
    /// images.
    MoreText,
    Kitty,
    Sixel,
}

impl Variant {
    const ALL: [Variant; 4] = [
        Variant::Text,
        Variant::MoreText,
        Variant::Kitty,
        Variant::Sixel,
    ];

    fn name(self) -> &'static str {
        match self {
            Variant::Text => "text",
            Variant::MoreText => "+text",
            Variant::Kitty => "+kitty",
            Variant::Sixel => "+sixel",
        }
    }
}

/// 50 kitty transmissions of 64x64 RGB (ids 1..=50, each put at the cursor), one a line.
fn kitty_stream() -> Vec<u8> {
    let mut out = Vec::new();
    for id in 1..=50u32 {
        let rgb: Vec<u8> = (0..64 * 64)
            .flat_map(|i| [(i * 3 + id) as u8, (i / 64) as u8, (id * 5) as u8])
            .collect();
        let b64 = base64::engine::general_purpose::STANDARD.encode(&rgb);
        // Chunked as programs send it (4096 base64 bytes a command).
        for (n, chunk) in b64.as_bytes().chunks(4096).enumerate() {
            let more = u8::from((n + 1) * 4096 < b64.len());
            let keys = if n == 0 {
                format!("a=T,f=24,s=64,v=64,i={id},q=2,m={more}")
            } else {
                format!("m={more}")
            };
            out.extend_from_slice(format!("\x1b_G{keys};").as_bytes());
            out.extend_from_slice(chunk);
            out.extend_from_slice(b"\x1b\\");
        }
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// 50 sixel images of 64x64 pixels, four colours in bands, one a line.
fn sixel_stream() -> Vec<u8> {
    let mut out = Vec::new();
    for n in 0..50u32 {
        out.extend_from_slice(b"\x1bPq\"1;1;64;64");
        for c in 0..4u32 {
            out.extend_from_slice(
                format!("#{c};2;{};{};{}", (n * 2 + c * 20) % 100, c * 25, 50).as_bytes(),
            );
        }
        for band in 0..11u32 {
            let c = (band + n) % 4;
            out.extend_from_slice(format!("#{c}!64~").as_bytes());
            out.push(if band < 10 { b'-' } else { b'\x1b' });
        }
        out.extend_from_slice(b"\\\r\n");
    }
    out
}

fn image_file(opts: &Opts, variant: Variant) -> Option<PathBuf> {
    let (name, bytes) = match variant {
        Variant::Text => return None,
        Variant::MoreText => return Some(fixture_file(opts, Fixture::AgentTui, 4 << 20, 80, 24)),
        Variant::Kitty => ("images-kitty.bin", kitty_stream()),
        Variant::Sixel => ("images-sixel.bin", sixel_stream()),
    };
    let path = opts.workdir.join(name);
    if !path.exists() {
        std::fs::write(&path, bytes).ok()?;
    }
    Some(path)
}

fn stream_argv(file: &Path, rate: u64) -> Vec<String> {
    let (f, r) = (file.display().to_string(), rate.to_string());
    probe_argv(&["stream", "--file", &f, "--rate", &r])
}

/// Keys into a visible echo pane while `hidden` panes stream text and, for the image
/// variants, one more streams images.
fn typing_round(opts: &Opts, variant: Variant, keys: usize) -> Result<Vec<f64>, String> {
    let agent = fixture_file(opts, Fixture::AgentTui, 4 << 20, 80, 24);
    let size = TermSize::new(80, 24);
    let rig = TernRig::start(TermConfig::default())?;
    let mut floods = Vec::new();
    for _ in 0..opts.hidden {
        floods.push(rig.spawn(&stream_argv(&agent, opts.rate), size, false)?.0);
    }
    let images = match image_file(opts, variant) {
        Some(file) => Some(rig.spawn(&stream_argv(&file, opts.rate), size, false)?.0),
        None => None,
    };
    let (pane, log) = rig.spawn(&probe_argv(&["echo"]), size, true)?;
    std::thread::sleep(Duration::from_millis(300));
    let base = log.max_total();
    let p = rig.pipeline.clone();
    let result = type_keys(keys, &|k| p.write(pane, k), &log, base);
    // What the image pane held at the end: proof that it drew images all along.
    let held = images
        .and_then(|i| rig.pipeline.stats(i))
        .map_or(0, |s| s.image_bytes.load(Ordering::Relaxed));
    for f in floods.into_iter().chain(images) {
        rig.pipeline.close(f);
    }
    rig.pipeline.close(pane);
    if held > 0 {
        println!(
            "  ({} pane: {} KiB of images held)",
            variant.name(),
            held / 1024
        );
    }
    Ok(result?.total)
}

/// Reveals of a parked pane of `lines` lines while the image pane (if any) streams.
fn reveal_round(
    opts: &Opts,
    variant: Variant,
    lines: usize,
    reveals: usize,
) -> Result<Vec<f64>, String> {
    let config = TermConfig {
        scrollback_lines: lines + 100,
        scrollback_bytes: 4 << 30,
        ..TermConfig::default()
    };
    let rig = TernRig::start(config)?;
    let size = TermSize::new(120, 40);
    let count = lines.to_string();
    let (pane, log) = rig.spawn(
        &probe_argv(&["lines", "--count", &count, "--then-wait"]),
        size,
        false,
    )?;
    let images = match image_file(opts, variant) {
        Some(file) => Some(rig.spawn(&stream_argv(&file, opts.rate), size, false)?.0),
        None => None,
    };
    rig.wait_history(pane, lines, Instant::now() + Duration::from_secs(300))?;
    let samples = rig.reveal_times(pane, &log, reveals)?;
    if let Some(p) = images {
        rig.pipeline.close(p);
    }
    rig.pipeline.close(pane);
    Ok(samples)
}

fn print_rows(what: &str, per: &[(Variant, Vec<f64>)]) -> Vec<Value> {
    let sorted = |samples: &[f64]| {
        let mut sorted = samples.to_vec();
        sorted.sort_by(|a, b| a.total_cmp(b));
        sorted
    };
    // p50 and p90 of a variant's samples.
    let peer = |variant: Variant| {
        per.iter().find(|(v, _)| *v == variant).map(|(_, s)| {
            let sorted = sorted(s);
            (
                super::stats::quantile(&sorted, 0.5),
                super::stats::quantile(&sorted, 0.9),
            )
        })
    };
    let (text, more_text) = (peer(Variant::Text), peer(Variant::MoreText));
    let ratio = |a: f64, b: Option<f64>| match b {
        Some(b) if b > 0.0 => a / b,
        _ => f64::NAN,
    };
    let mut out = Vec::new();
    for (variant, samples) in per {
        let s: Summary = summarize(samples);
        let q90 = super::stats::quantile(&sorted(samples), 0.9);
        let over_text = (
            ratio(s.p50, text.map(|t| t.0)),
            ratio(q90, text.map(|t| t.1)),
        );
        // Over +text: what images cost beyond the load of one more pane.
        let over_more = (
            ratio(s.p50, more_text.map(|t| t.0)),
            ratio(q90, more_text.map(|t| t.1)),
        );
        println!(
            "{:<8} {:<7} n={:<4} p50 {:>8.1} p90 {:>8.1} p99 {:>9.1} max {:>9.1} | over text p50 {:>5.2}x p90 {:>5.2}x | over +text p50 {:>5.2}x p90 {:>5.2}x",
            what,
            variant.name(),
            s.n,
            s.p50,
            q90,
            s.p99,
            s.max,
            over_text.0,
            over_text.1,
            over_more.0,
            over_more.1,
        );
        out.push(json!({
            "case": what,
            "variant": variant.name(),
            "unit": "us",
            "summary": s,
            "p90": q90,
            "p50_over_text": over_text.0,
            "p90_over_text": over_text.1,
            "p50_over_more_text": over_more.0,
            "p90_over_more_text": over_more.1,
        }));
    }
    out
}

/// One hidden pane's stream parsed in process as the model thread parses it: slices of
/// up to `SLICE_BYTES` in pieces of `SLICE_PIECE_BYTES`, ended early by the work bound
/// or the time bound, each followed by the memory counts the thread takes. Returns
/// each slice's time in µs and the bytes parsed. A key that reaches the model thread
/// while a hidden pane's slice runs waits for that slice's end: this is what a hidden
/// image pane adds to the visible pane's key.
fn slice_times(stream: &[u8], passes: usize) -> (Vec<f64>, usize) {
    use tern_core::pipeline::model_thread::{
        SLICE_BYTES, SLICE_PIECE_BYTES, SLICE_TIME, SLICE_WORK_CELLS,
    };
    use tern_core::pipeline::pane::PaneCore;
    let mut pane = PaneCore::new(TermSize::new(80, 24), TermConfig::default());
    // A first pass fills the image store, as a pane that has streamed a while.
    pane.parse(stream);
    let mut times = Vec::new();
    let mut bytes = 0;
    for _ in 0..passes {
        let mut at = 0;
        while at < stream.len() {
            let started = Instant::now();
            let until = pane.term.work_cells().saturating_add(SLICE_WORK_CELLS);
            let mut left = SLICE_BYTES;
            while left > 0 && at < stream.len() {
                if left != SLICE_BYTES && started.elapsed() >= SLICE_TIME {
                    break;
                }
                if pane.term.work_cells() >= until {
                    break;
                }
                let end = stream.len().min(at + left.min(SLICE_PIECE_BYTES));
                let parsed = pane.parse_bounded(&stream[at..end], until);
                at += parsed.consumed;
                left -= parsed.consumed;
                bytes += parsed.consumed;
            }
            std::hint::black_box((pane.term.heap_bytes(), pane.term.image_heap_bytes()));
            times.push(started.elapsed().as_secs_f64() * 1e6);
        }
    }
    (times, bytes)
}

/// The model thread's slices of each hidden pane's stream, in process (see
/// [`slice_times`]): µs a slice, and MB/s.
fn slice_rows(opts: &Opts) -> Vec<Value> {
    let text = Fixture::AgentTui.generate(1 << 20, 80, 24);
    // For scale: area work alone, full-screen DECFRA (the slice's work bound ends it).
    let fills: Vec<u8> = (0..20_000)
        .flat_map(|i| format!("\x1b[{};1;1;24;80$x", 65 + i % 26).into_bytes())
        .collect();
    let streams = [
        (Variant::MoreText.name(), text),
        (Variant::Kitty.name(), kitty_stream()),
        (Variant::Sixel.name(), sixel_stream().repeat(64)),
        ("decfra", fills),
    ];
    let passes = if opts.quick { 2 } else { 6 };
    let mut out = Vec::new();
    println!("slices of each hidden stream, in process (µs a slice; MB/s):");
    for (name, stream) in streams {
        let started = Instant::now();
        let (times, bytes) = slice_times(&stream, passes);
        let mb_s = bytes as f64 / started.elapsed().as_secs_f64() / 1e6;
        let s: Summary = summarize(&times);
        let mut sorted = times.clone();
        sorted.sort_by(|a, b| a.total_cmp(b));
        let q90 = super::stats::quantile(&sorted, 0.9);
        println!(
            "slice    {:<7} n={:<5} p50 {:>8.1} p90 {:>8.1} p99 {:>9.1} max {:>9.1} | {:>6.0} B a slice, {:>6.1} MB/s",
            name,
            s.n,
            s.p50,
            q90,
            s.p99,
            s.max,
            bytes as f64 / times.len().max(1) as f64,
            mb_s
        );
        out.push(json!({
            "case": "slice",
            "variant": name,
            "unit": "us",
            "summary": s,
            "p90": q90,
            "bytes_per_slice": bytes as f64 / times.len().max(1) as f64,
            "mb_per_s": mb_s,
        }));
    }
    out.extend(snapshot_rows(opts));
    out
}

/// A reveal's snapshot (on the model thread) of a pane whose history holds 1024 sixel
/// placements (the store's cap), against one of the same size that holds text: the
/// image layer it carries is every placement's `Arc`, never a pixel copied.
fn snapshot_rows(opts: &Opts) -> Vec<Value> {
    use tern_core::pipeline::delivery::snapshot;
    use tern_core::pipeline::pane::PaneCore;
    let times = if opts.quick { 100 } else { 400 };
    let mut panes = Vec::new();
    for (name, stream) in [
        ("text", Fixture::Scrolling.generate(1 << 20, 80, 24)),
        ("sixel", sixel_stream().repeat(40)),
    ] {
        let mut pane = PaneCore::new(TermSize::new(80, 24), TermConfig::default());
        pane.parse(&stream);
        panes.push((name, pane));
    }
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); panes.len()];
    for _ in 0..times {
        // Alternating, so drift hits both alike.
        for (i, (_, pane)) in panes.iter().enumerate() {
            let started = Instant::now();
            std::hint::black_box(snapshot(&pane.term, 0));
            samples[i].push(started.elapsed().as_secs_f64() * 1e6);
        }
    }
    let text_p50 = summarize(&samples[0]).p50;
    let mut out = Vec::new();
    for ((name, pane), samples) in panes.iter().zip(&samples) {
        let s: Summary = summarize(samples);
        println!(
            "snapshot {:<7} n={:<5} p50 {:>8.1} p99 {:>9.1} | p50 {:>5.2}x | {} placements, {} history lines",
            name,
            s.n,
            s.p50,
            s.p99,
            s.p50 / text_p50,
            pane.term.images().placements().len(),
            pane.term.scrollback().len()
        );
        out.push(json!({
            "case": "snapshot",
            "variant": name,
            "unit": "us",
            "summary": s,
            "p50_over_text": s.p50 / text_p50,
        }));
    }
    out
}

/// `tern-bench image-slices`: only the in-process slice times of [`images`].
pub fn image_slices(opts: &Opts) -> Result<Value, String> {
    println!("\n== image-slices");
    Ok(json!({ "suite": "image-slices", "results": slice_rows(opts) }))
}

pub fn images(opts: &Opts) -> Result<Value, String> {
    let rounds = opts.rounds().max(1);
    let keys = if opts.quick { 60 } else { 300 } / rounds;
    let (lines, reveals) = if opts.quick {
        (20_000, 15)
    } else {
        (100_000, 40)
    };
    println!(
        "\n== images: typing with {} hidden panes at {} KB/s and reveal of {lines} lines, \
         beside one more hidden pane streaming images ({rounds} alternating rounds; µs)",
        opts.hidden,
        opts.rate / 1000
    );
    let mut typing: Vec<(Variant, Vec<f64>)> =
        Variant::ALL.iter().map(|v| (*v, Vec::new())).collect();
    let mut reveal = typing.clone();
    for round in 0..rounds {
        // Rotate the order so drift in the machine's load hits every variant alike.
        for k in 0..Variant::ALL.len() {
            let i = (round + k) % Variant::ALL.len();
            let variant = Variant::ALL[i];
            typing[i].1.extend(typing_round(opts, variant, keys)?);
            reveal[i]
                .1
                .extend(reveal_round(opts, variant, lines, reveals)?);
        }
    }
    let mut out = slice_rows(opts);
    out.extend(print_rows("typing", &typing));
    out.extend(print_rows("reveal", &reveal));
    println!("(ratios: each variant over text, and over +text, in the same run)");
    Ok(json!({ "suite": "images", "results": out }))
}
