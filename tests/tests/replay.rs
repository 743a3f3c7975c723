//! Replays one stream through both emulators and prints both screens: a tool for
//! looking at a reproduction the differential test reported.
//!
//! ```text
//! REPLAY='\e[4hab\e[2Dc' REPLAY_SIZE=20x5 cargo test -p tern-tests --test replay -- --ignored --nocapture
//! ```
//!
//! `REPLAY` uses the escaped form the differential test prints (`\e`, `\r`, `\n`, `\t`,
//! `\b`, `\\`, `\xNN`); `REPLAY_SIZE` is `COLSxROWS` (default 80x24).

use tern_tests::compare::{Feed, run_both};
use tern_tests::streams::unescape;

#[test]
#[ignore = "a tool: needs REPLAY, run with --ignored --nocapture"]
fn replay() {
    let stream = std::env::var("REPLAY").expect("set REPLAY to an escaped stream");
    let bytes = unescape(&stream).expect("REPLAY is not a valid escaped stream");
    let size = std::env::var("REPLAY_SIZE").unwrap_or_else(|_| "80x24".to_string());
    let (cols, rows) = size.split_once('x').expect("REPLAY_SIZE is COLSxROWS");
    let cols: usize = cols.parse().expect("REPLAY_SIZE columns");
    let rows: usize = rows.parse().expect("REPLAY_SIZE rows");

    let outcome = run_both(cols, rows, &bytes, &Feed::Whole);
    println!(
        "--- alacritty:\n{}--- tern:\n{}",
        outcome.oracle.render(),
        outcome.model.render()
    );
    match outcome.difference() {
        Some(difference) => println!("difference: {difference}"),
        None => println!("the screens agree"),
    }
}
