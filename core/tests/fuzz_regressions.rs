//! Replays the kept fuzz corpus (`tests/fuzz-corpus/<target>/*`: inputs that once
//! failed, and a minimized slice of each campaign's corpus) through the same checks the
//! cargo-fuzz targets in `fuzz/` run, so CI covers them without cargo-fuzz or nightly.

mod fuzz_checks;

use std::path::PathBuf;

fn replay(target: &str, check: fn(&[u8])) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz-corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("corpus entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no corpus in {}", dir.display());
    for file in files {
        let data = std::fs::read(&file).expect("corpus file");
        let outcome = std::panic::catch_unwind(|| check(&data));
        assert!(outcome.is_ok(), "fuzz regression: {}", file.display());
    }
}

#[test]
fn model_corpus_keeps_caps_and_chunking_invariance() {
    replay("model", fuzz_checks::model);
}

#[test]
fn snapshot_corpus_views_equal_the_model_and_rows_roundtrip() {
    replay("snapshot", fuzz_checks::snapshot_roundtrip);
}

#[test]
fn config_corpus_parses_or_errors_and_roundtrips() {
    replay("config", fuzz_checks::config);
}

#[test]
fn input_corpus_encodes_without_panics_or_escapes() {
    replay("input", fuzz_checks::input);
}

#[path = "fuzz_checks/tmux.rs"]
mod tmux_checks;

#[test]
fn tmux_corpus_parses_alike_in_any_chunks_without_panics() {
    replay("tmux", tmux_checks::tmux);
}

#[path = "fuzz_checks/theme.rs"]
mod theme_checks;

#[test]
fn theme_corpus_parses_or_errors_without_panics() {
    replay("theme", theme_checks::theme);
}

#[path = "fuzz_checks/agents.rs"]
mod agent_checks;

#[test]
fn agent_status_corpus_is_bounded_clean_and_alike_in_any_split() {
    replay("agent_status", agent_checks::agent_status);
}

#[test]
fn hooks_corpus_reads_to_reports_the_socket_accepts() {
    replay("hooks", agent_checks::hooks);
}

#[path = "fuzz_checks/search.rs"]
mod search_checks;

#[test]
fn search_corpus_compiles_bounded_and_matches_on_the_row() {
    replay("search", search_checks::search);
}

#[path = "fuzz_checks/keeper.rs"]
mod keeper_checks;

#[test]
fn keeper_corpus_frames_read_back_and_the_ring_keeps_its_cap() {
    replay("keeper", keeper_checks::keeper);
}

#[path = "fuzz_checks/images.rs"]
mod image_checks;

#[test]
fn kitty_graphics_corpus_answers_cleanly_alike_in_any_split() {
    replay("kitty_graphics", image_checks::kitty_graphics);
}

#[test]
fn sixel_corpus_is_bounded_and_alike_in_any_split() {
    replay("sixel", image_checks::sixel);
}
