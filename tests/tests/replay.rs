//! Replays one stream through both emulators and prints both screens: a tool for
//! looking at a reproduction the differential test reported.
//!
//! ```text
//! REPLAY='\e[4hab\e[2Dc' REPLAY_SIZE=20x5 \
//!     cargo test -p tern-tests --test replay -- --ignored --nocapture
//! ```
//!
//! - `REPLAY`: the stream in the escaped form the differential test prints (`\e`, `\r`,
//!   `\n`, `\t`, `\b`, `\\`, `\xNN`).
//! - `REPLAY_SIZE`: `COLSxROWS` (default 80x24).
//! - `REPLAY_FEED`: how tern gets the bytes: `whole` (default), `bytewise`, `tail:N` (two
//!   calls, the second with the last N bytes) or `splits:A,B,...` (split before these
//!   offsets).

use tern_tests::compare::{Feed, quiet_caught_panics, run_both};
use tern_tests::streams::unescape;

fn feed_from_env() -> Feed {
    let spec = std::env::var("REPLAY_FEED").unwrap_or_else(|_| "whole".to_string());
    let number = |n: &str| -> usize { n.trim().parse().expect("REPLAY_FEED offset") };
    match spec.split_once(':') {
        None if spec == "whole" => Feed::Whole,
        None if spec == "bytewise" => Feed::Bytewise,
        Some(("tail", n)) => Feed::SplitBeforeEnd(number(n)),
        Some(("splits", list)) => Feed::Splits(list.split(',').map(number).collect()),
        _ => panic!("REPLAY_FEED={spec}: expected whole, bytewise, tail:N or splits:A,B"),
    }
}

#[test]
#[ignore = "a tool: needs REPLAY, run with --ignored --nocapture"]
fn replay() {
    let stream = std::env::var("REPLAY").expect("set REPLAY to an escaped stream");
    let bytes = unescape(&stream).expect("REPLAY is not a valid escaped stream");
    let size = std::env::var("REPLAY_SIZE").unwrap_or_else(|_| "80x24".to_string());
    let (cols, rows) = size.split_once('x').expect("REPLAY_SIZE is COLSxROWS");
    let cols: usize = cols.parse().expect("REPLAY_SIZE columns");
    let rows: usize = rows.parse().expect("REPLAY_SIZE rows");

    quiet_caught_panics();
    let outcome = run_both(cols, rows, &bytes, &feed_from_env());
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
