//! The check behind the `tmux` fuzz target (`fuzz/fuzz_targets/tmux.rs`), replayed over
//! `tests/fuzz-corpus/tmux/` by `fuzz_regressions.rs`.
//!
//! Input: one header byte (the chunk size, 0 read as 1), then the bytes tmux would
//! write. Checks: neither the parser nor a session panics; the parser gives the same
//! messages fed in chunks as in one piece (output pieces of a pane merged); decoded
//! output is never longer than what carried it; every error's excerpt is bounded;
//! every layout it accepted prints and parses back the same.

use std::io::Write;

use tern_core::tmux::parser::{MAX_ERROR_EXCERPT, Message, Notification, Parser, ProtocolError};
use tern_core::tmux::{Command, ControlSession, Layout, SessionConfig};

struct Discard;

impl Write for Discard {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn merged(messages: Vec<Message>) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::new();
    for m in messages {
        if let (
            Some(Message::Output {
                pane: p0,
                age_ms: a0,
                data: d0,
            }),
            Message::Output { pane, age_ms, data },
        ) = (out.last_mut(), &m)
        {
            if p0 == pane && a0 == age_ms {
                d0.extend_from_slice(data);
                continue;
            }
        }
        out.push(m);
    }
    out
}

fn check_layout(layout: &Layout) {
    let text = layout.to_string();
    let again = Layout::parse(&text).unwrap_or_else(|e| panic!("{text} does not parse back: {e}"));
    assert_eq!(&again, layout, "{text}");
}

pub fn tmux(data: &[u8]) {
    let Some((&chunk, stream)) = data.split_first() else {
        return;
    };
    let chunk = usize::from(chunk).max(1);

    let mut whole = Vec::new();
    let mut parser = Parser::new();
    parser.feed(stream, &mut whole);
    parser.finish(&mut whole);

    let mut pieces = Vec::new();
    let mut parser = Parser::new();
    for piece in stream.chunks(chunk) {
        parser.feed(piece, &mut pieces);
    }
    parser.finish(&mut pieces);

    let decoded: usize = pieces
        .iter()
        .map(|m| match m {
            Message::Output { data, .. } => data.len(),
            _ => 0,
        })
        .sum();
    assert!(
        decoded <= stream.len(),
        "{decoded} bytes decoded from {}",
        stream.len()
    );
    for m in &whole {
        match m {
            Message::Error(
                ProtocolError::Garbage { line }
                | ProtocolError::Malformed { line }
                | ProtocolError::UnexpectedGuard { line }
                | ProtocolError::TruncatedLine { line }
                | ProtocolError::LineTooLong { excerpt: line },
            ) => assert!(line.len() <= MAX_ERROR_EXCERPT),
            Message::Notification(Notification::LayoutChange {
                layout,
                visible_layout,
                ..
            }) => {
                check_layout(layout);
                if let Some(v) = visible_layout {
                    check_layout(v);
                }
            }
            _ => {}
        }
    }
    assert_eq!(
        merged(pieces),
        merged(whole),
        "chunks of {chunk} differ from one piece"
    );

    let mut session = ControlSession::new(
        Box::new(Discard),
        &SessionConfig {
            pause_after_secs: Some(1),
            size: Some((80, 24)),
        },
        Box::new(|_| Box::new(|_: &[u8]| {})),
    )
    .expect("a session over a sink that takes everything");
    for piece in stream.chunks(chunk) {
        session.feed(piece);
        if piece.first() == Some(&b'!') {
            session.send(Command::ListWindows).expect("send");
        }
    }
    session.finish();
}
