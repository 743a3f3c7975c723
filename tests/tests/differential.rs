//! Differential fuzzing of tern's terminal model against alacritty_terminal.
//!
//! For every seed a random screen size and a random "TUI-like" byte stream are drawn
//! (see `tern_tests::streams`); the stream goes to alacritty in one piece and to tern's
//! model in random chunks (so escape sequences and UTF-8 get split), and the two screens
//! (text, attributes, cursor) and the replies must agree. For a differing seed the test
//! prints the first difference, the stream, the shortest differing prefix and a
//! minimised reproduction with both screens, then fails listing the seeds.
//!
//! Environment:
//!
//! - `FUZZ_ITERATIONS=n`: seeds `0..n` (default 500).
//! - `FUZZ_SEED=s`: replay exactly seed `s` (with the same `FUZZ_WEIGHTS` as the run that
//!   found it: the weights shape the stream), printing its whole stream.
//! - `FUZZ_WEIGHTS=spec`: adjust what the streams contain, e.g. `sgr=0`, `only=cursor+erase`
//!   or `only=text,wide=20` (names and groups in `tern_tests::streams::Construct`).
//! - `FUZZ_REPORT=n`: how many failing seeds to minimise and describe in full (default 10).
//!
//! The summary groups the minimised seeds by signature (the kind of difference and the
//! constructs of the minimised stream): one signature is usually one bug. Where alacritty
//! rather than tern is wrong, add an entry to `tern_tests::known::KNOWN_DIFFERENCES` so the
//! generator stops producing it. A reported stream can be replayed and looked at with the
//! `replay` test (see `tests/replay.rs`).
//!
//! Replay one seed:
//!
//! ```text
//! FUZZ_SEED=123 cargo test -p tern-tests --test differential
//! ```
//!
//! Deep run:
//!
//! ```text
//! FUZZ_ITERATIONS=20000 cargo test --release -p tern-tests --test differential
//! ```

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tern_tests::compare::{
    Difference, DifferenceKind, Feed, items_of_prefix, minimize, quiet_caught_panics, run_both,
    shortest_differing_prefix,
};
use tern_tests::known;
use tern_tests::streams::{self, Item, Stream, StreamConfig, Weights, escape, escape_shortened};

const DEFAULT_ITERATIONS: u64 = 500;
const DEFAULT_REPORTS: usize = 10;
/// Failing seeds listed in the final message.
const LISTED_FAILURES: usize = 20;

/// Everything one seed decides.
struct Case {
    seed: u64,
    cols: usize,
    rows: usize,
    stream: Stream,
    bytes: Vec<u8>,
    feed: Feed,
}

impl Case {
    fn new(seed: u64, weights: &Weights) -> Case {
        // Sizes and chunking come from their own generator so that the stream of a seed
        // does not change when they do.
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x7465_726e_5f73_697a);
        let cols = rng.random_range(10..=100);
        let rows = rng.random_range(3..=30);
        let config = StreamConfig {
            weights: weights.clone(),
            ..StreamConfig::new(cols, rows)
        };
        let stream = streams::generate(seed, &config);
        let bytes = stream.bytes();
        let mut splits = Vec::new();
        let mut offset = 0;
        while offset < bytes.len() {
            offset += rng.random_range(1..=64);
            splits.push(offset);
        }
        Case {
            seed,
            cols,
            rows,
            stream,
            bytes,
            feed: Feed::Splits(splits),
        }
    }

    fn differs(&self, bytes: &[u8], feed: &Feed) -> bool {
        run_both(self.cols, self.rows, bytes, feed).differs()
    }
}

/// What a failing seed is reported as.
struct Failure {
    seed: u64,
    /// What kind of difference the minimised stream shows and which constructs it is made
    /// of: seeds with the same signature are most likely the same bug.
    signature: String,
    report: String,
}

fn feed_name(feed: &Feed) -> String {
    match feed {
        Feed::Whole => "whole".to_string(),
        Feed::Bytewise => "byte by byte".to_string(),
        Feed::Splits(_) => "the seed's random splits only".to_string(),
        Feed::SplitBeforeEnd(tail) => format!("split once, {tail} bytes before the end"),
    }
}

/// Minimises a differing case and describes it.
fn investigate(case: &Case, difference: &Difference, shorten_to: usize) -> Failure {
    let mut report = format!(
        "=== seed {} ({}x{}, {} bytes): {difference}\nstream: {}\n",
        case.seed,
        case.cols,
        case.rows,
        case.bytes.len(),
        escape_shortened(&case.bytes, shorten_to),
    );

    // Prefer a feed that does not depend on the chunking; only if the difference needs
    // the particular splits keep them.
    let feed = [Feed::Whole, Feed::Bytewise]
        .into_iter()
        .find(|feed| case.differs(&case.bytes, feed))
        .unwrap_or_else(|| case.feed.clone());
    let run = |bytes: &[u8], feed: &Feed| run_both(case.cols, case.rows, bytes, feed);
    let prefix = shortest_differing_prefix(&case.bytes, |bytes| run(bytes, &feed).differs());
    // A difference that needs the seed's splits most likely needs just one of them: the
    // one closest to the end of the shortest prefix.
    let feed = match feed {
        Feed::Splits(_) => (1..prefix.min(64))
            .map(Feed::SplitBeforeEnd)
            .find(|feed| run(&case.bytes[..prefix], feed).differs())
            .unwrap_or(feed),
        feed => feed,
    };
    let outcome = |bytes: &[u8]| run(bytes, &feed);
    let prefix_difference = outcome(&case.bytes[..prefix]).difference();
    let prefix_items = items_of_prefix(&case.stream.items, prefix);
    let trigger = prefix_items
        .last()
        .map_or("nothing", |item| item.construct.name());
    report.push_str(&format!(
        "feed: {}\nshortest differing prefix: {prefix} bytes, ends in {trigger}: {}\n  \
         difference: {}\n",
        feed_name(&feed),
        escape_shortened(&case.bytes[..prefix], shorten_to),
        prefix_difference
            .as_ref()
            .map_or_else(|| "(none?)".to_string(), Difference::to_string),
    ));

    let kind = prefix_difference.map(|difference| difference.kind);
    if matches!(feed, Feed::Splits(_)) || kind.is_none() {
        let signature = format!("{kind:?} after {trigger}, needs the seed's splits");
        return Failure {
            seed: case.seed,
            signature,
            report,
        };
    }
    // Keep the kind of difference while shrinking, so that the minimiser does not wander
    // off to another bug, and stay clear of the known differences.
    let same_kind = |items: &[Item]| {
        known::first_hit(items, case.cols, case.rows).is_none()
            && outcome(&streams::join(items)).difference().map(|d| d.kind) == kind
    };
    let minimal = minimize(prefix_items, same_kind);
    let bytes = streams::join(&minimal);
    let result = outcome(&bytes);
    let mut constructs: Vec<&str> = minimal.iter().map(|item| item.construct.name()).collect();
    report.push_str(&format!(
        "minimised ({} bytes; {}; feed: {}): {}\n  difference: {}\n--- alacritty:\n{}--- tern:\n{}",
        bytes.len(),
        constructs.join(" "),
        feed_name(&feed),
        escape(&bytes),
        result
            .difference()
            .map_or_else(|| "(none?)".to_string(), |d| d.to_string()),
        result.oracle.render(),
        result.model.render(),
    ));
    constructs.sort_unstable();
    constructs.dedup();
    let split = match feed {
        Feed::SplitBeforeEnd(_) => ", fed in two pieces",
        _ => "",
    };
    let signature = format!(
        "{:?} from {}{split}",
        kind.unwrap_or(DifferenceKind::Panic),
        constructs.join("+")
    );
    Failure {
        seed: case.seed,
        signature,
        report,
    }
}

fn env_number(name: &str) -> Option<u64> {
    let value = std::env::var(name).ok()?;
    Some(
        value
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={value} is not a number")),
    )
}

#[test]
fn model_matches_alacritty() {
    let weights = Weights::from_env("FUZZ_WEIGHTS").unwrap_or_else(|e| panic!("FUZZ_WEIGHTS: {e}"));
    let seeds: Vec<u64> = match env_number("FUZZ_SEED") {
        Some(seed) => vec![seed],
        None => (0..env_number("FUZZ_ITERATIONS").unwrap_or(DEFAULT_ITERATIONS)).collect(),
    };
    let reports = env_number("FUZZ_REPORT").map_or(DEFAULT_REPORTS, |n| n as usize);

    // The model may panic on some streams; those panics are caught and reported as
    // differences, so keep the hook from printing each one (the minimiser provokes many).
    quiet_caught_panics();
    // A single replayed seed gets its stream printed in full.
    let shorten_to = if seeds.len() == 1 { usize::MAX } else { 400 };

    let mut failing = Vec::new();
    let mut unexplained = 0;
    let mut signatures: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for &seed in &seeds {
        let case = Case::new(seed, &weights);
        let Some(difference) = run_both(case.cols, case.rows, &case.bytes, &case.feed).difference()
        else {
            continue;
        };
        failing.push(seed);
        if failing.len() <= reports {
            let failure = investigate(&case, &difference, shorten_to);
            println!("{}", failure.report);
            signatures
                .entry(failure.signature)
                .or_default()
                .push(failure.seed);
        } else {
            unexplained += 1;
        }
    }

    if failing.is_empty() {
        return;
    }
    let listed: Vec<String> = failing
        .iter()
        .take(LISTED_FAILURES)
        .map(u64::to_string)
        .collect();
    let more = if failing.len() > LISTED_FAILURES {
        ", ..."
    } else {
        ""
    };
    let mut message = format!(
        "{} of {} seeds differ from alacritty: {}{more}\nminimised seeds by signature:\n",
        failing.len(),
        seeds.len(),
        listed.join(", "),
    );
    for (signature, seeds) in &signatures {
        message.push_str(&format!("  {signature}: seeds {seeds:?}\n"));
    }
    if unexplained > 0 {
        message.push_str(&format!(
            "  ({unexplained} more not minimised; raise FUZZ_REPORT)\n"
        ));
    }
    message.push_str("replay one with FUZZ_SEED=<seed>");
    panic!("{message}");
}
