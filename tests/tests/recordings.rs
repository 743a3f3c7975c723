//! Recordings of real programs (vim, less, htop, git log --graph, man, dialog, progress
//! bars, CJK and emoji at the margin; `core/tests/recordings`) replayed through tern and
//! through `alacritty_terminal`: the screens must match at every point the stream is
//! looked at, not only at the end (most of these programs leave the alternate screen
//! when they quit).

use std::path::Path;

use tern_core::model::{TermConfig, TermSize, Terminal};
use tern_tests::compare::first_difference;
use tern_tests::oracle::Oracle;

/// Bytes between comparisons.
const STEP: usize = 97;

#[test]
fn recordings_match_the_reference_throughout() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/recordings");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("recordings dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 10, "found {} recordings", paths.len());
    let mut failures = Vec::new();
    for path in &paths {
        let bytes = std::fs::read(path).expect("read recording");
        let mut tern = Terminal::new(TermSize::new(80, 24), TermConfig::default());
        let mut oracle = Oracle::new(80, 24);
        let mut at = 0;
        while at < bytes.len() {
            let end = (at + STEP).min(bytes.len());
            tern.advance(&bytes[at..end]);
            oracle.advance(&bytes[at..end]);
            at = end;
            if let Some(diff) = first_difference(&oracle.dump(), &tern.dump()) {
                failures.push(format!("{}: after {at} bytes: {diff}", path.display()));
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
