//! The check behind the `keeper` fuzz target (`fuzz/fuzz_targets/keeper.rs`), replayed
//! over `tests/fuzz-corpus/keeper/` by `fuzz_regressions.rs`: the pty keeper's messages
//! (length-prefixed JSON frames on its socket, `tern_core::keeper::protocol`) and the
//! ring that keeps a detached pane's output.
//!
//! Input: one header byte (bit 0: read as the keeper reads tern's requests, else as tern
//! reads the keeper's answers; bits 1–7: the ring's cap in 16-byte steps), then the
//! bytes that come on the socket. Checks: no panic; a frame over its side's cap is
//! refused before its body is read; every frame that parses is one the other side
//! writes back the same; the ring holds at most its cap, counts every byte it dropped,
//! and gives back the newest bytes in order, after a marker when it dropped any.

use std::io::Write;
use std::os::unix::net::UnixStream;

use tern_core::keeper::protocol::{
    FromKeeper, MAX_FRAME_BYTES, MAX_REQUEST_BYTES, ToKeeper, recv, send,
};
use tern_core::keeper::ring::Ring;

/// Most bytes of one input written to the socket (a socket pair's buffer holds them).
const MAX_INPUT: usize = 64 << 10;

fn frames<T>(bytes: &[u8], cap: usize)
where
    T: serde::Serialize + for<'de> serde::Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    let (mut tx, rx) = UnixStream::pair().expect("a socket pair");
    tx.write_all(bytes)
        .expect("the bytes fit the pair's buffer");
    drop(tx);
    loop {
        match recv::<T>(&rx, cap) {
            Ok((message, fds)) => {
                assert!(fds.is_empty(), "no descriptor came with the bytes");
                let (a, b) = UnixStream::pair().expect("a socket pair");
                send(&a, &message, &[]).expect("a parsed frame is written back");
                let (again, _) = recv::<T>(&b, MAX_FRAME_BYTES).expect("and read back");
                assert_eq!(again, message, "a frame reads back as written");
            }
            Err(e) => {
                let text = e.to_string();
                assert!(
                    text.chars().count() <= 4096,
                    "an error of {} chars",
                    text.len()
                );
                return;
            }
        }
    }
}

pub fn keeper(data: &[u8]) {
    let Some((&header, rest)) = data.split_first() else {
        return;
    };
    let rest = &rest[..rest.len().min(MAX_INPUT)];
    if header & 1 == 1 {
        frames::<ToKeeper>(rest, MAX_REQUEST_BYTES);
    } else {
        frames::<FromKeeper>(rest, MAX_FRAME_BYTES);
    }
    // The ring, fed the same bytes in pieces the bytes themselves choose.
    let cap = usize::from(header >> 1) * 16 + 1;
    let mut ring = Ring::new(cap);
    let mut fed: Vec<u8> = Vec::new();
    let mut at = 0;
    while at < rest.len() {
        let n = (usize::from(rest[at]) % 97 + 1).min(rest.len() - at);
        ring.push(&rest[at..at + n]);
        fed.extend_from_slice(&rest[at..at + n]);
        at += n;
        assert!(
            ring.len() <= cap,
            "the ring holds {} of cap {cap}",
            ring.len()
        );
        assert_eq!(
            ring.len() as u64 + ring.dropped(),
            fed.len() as u64,
            "every byte kept or counted"
        );
    }
    let dropped = ring.dropped();
    let out = ring.take();
    let kept = &fed[fed.len() - (fed.len().min(cap))..];
    assert!(out.ends_with(kept), "the newest bytes, in order");
    if dropped > 0 {
        assert!(out.len() > kept.len(), "a marker before the kept bytes");
        let marker = String::from_utf8_lossy(&out[..out.len() - kept.len()]).into_owned();
        assert!(
            marker.contains(&dropped.to_string()),
            "the marker counts {dropped}: {marker:?}"
        );
    } else {
        assert_eq!(out, kept);
    }
    assert!(
        ring.is_empty() && ring.dropped() == 0,
        "taken empties the ring"
    );
}
