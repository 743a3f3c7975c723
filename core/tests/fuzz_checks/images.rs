//! The checks behind the `kitty_graphics` and `sixel` fuzz targets
//! (`fuzz/fuzz_targets/`), replayed over `tests/fuzz-corpus/{kitty_graphics,sixel}/` by
//! `fuzz_regressions.rs`.
//!
//! - `kitty_graphics`: one header byte (bit 0: the part after each command's `;` is
//!   base64-encoded here, so the fuzzer reaches the decoders; bits 1–7: where the
//!   stream is split in two reads, in 64ths), then commands separated by `\n`, each
//!   sent as `ESC _ G command ESC \`.
//!   A command that starts with `#` is text instead (kitty's Unicode placeholders):
//!   `%` is U+10EEEE, a byte from 0x80 one of the row/column diacritics (its value
//!   less 0x80), `{` / `[` / `~` start a 256-colour foreground / 24-bit foreground /
//!   256-colour underline colour (`ESC [ 38;5;`, `38;2;`, `58;5;`) that the next `m`
//!   ends; each run of placeholder cells must show a part of its image that lies
//!   inside the image and the run.
//! - `sixel`: one header byte (the background select `P2`, and the split point as
//!   above; an odd split point sets DECSDM first), then the sixel data, sent as
//!   `ESC P 0 ; P2 q data ESC \`.
//!
//! ESC, CAN and SUB in the data become `?` (they would end the string: what follows
//! it is the `model` target's). Checks: no panic; the same replies and placements whether the stream came in one
//! read, in two, or in parses stopped for work every few cells (inside a sixel image
//! too) and resumed; replies are only `ESC _ G keys ; message ESC \` with digits in the keys
//! and printable ASCII in the message (never a request's bytes); image memory within
//! the quota of both screens plus one image in transit; the cursor on the screen.

use base64::Engine;
use tern_core::model::images::placeholder::{self, PLACEHOLDER};
use tern_core::model::images::{MAX_IMAGE_BYTES, STORE_QUOTA_BYTES};
use tern_core::model::{TermConfig, TermSize, Terminal};

fn fresh() -> Terminal {
    let mut t = Terminal::new(TermSize::new(20, 6), TermConfig::default());
    t.set_cell_pixel_size(10, 20);
    t
}

/// What a terminal shows of its images and answered, to compare two runs.
fn outcome(t: &mut Terminal) -> (Vec<u8>, Vec<String>, String) {
    let replies = t.take_replies();
    let placements = t
        .images()
        .placements()
        .iter()
        .map(|p| format!("{p:?}"))
        .collect();
    (replies, placements, format!("{:?}", t.dump()))
}

fn check(stream: &[u8], split_64ths: u8) {
    let mut whole = fresh();
    whole.advance(stream);
    let mut split = fresh();
    let at = stream.len() * usize::from(split_64ths) / 64;
    split.advance(&stream[..at.min(stream.len())]);
    split.advance(&stream[at.min(stream.len())..]);
    for t in [&whole, &split] {
        let bytes = t.image_heap_bytes();
        assert!(
            bytes <= 2 * STORE_QUOTA_BYTES + 2 * MAX_IMAGE_BYTES + (1 << 20),
            "image memory {bytes}"
        );
        let c = t.cursor();
        assert!(c.row < t.size().rows && c.col < t.size().cols);
    }
    // Stopped for work every few cells (inside a sixel image too) and resumed.
    let mut bounded = fresh();
    let budget = 1 + u64::from(split_64ths) * 16;
    let mut rest = stream;
    while !rest.is_empty() {
        let took = bounded.advance_bounded(rest, bounded.work_cells() + budget);
        assert!(took > 0, "a bounded parse made no progress");
        rest = &rest[took..];
    }
    assert_eq!(whole.work_cells(), bounded.work_cells(), "work differs");
    let a = outcome(&mut whole);
    let b = outcome(&mut split);
    assert_eq!(a.1, b.1, "placements differ with the split");
    assert_eq!(a.2, b.2, "screens differ with the split");
    assert_eq!(a.0, b.0, "replies differ with the split");
    assert_eq!(a, outcome(&mut bounded), "a parse stopped for work differs");
    assert_replies_clean(&a.0);
}

fn assert_replies_clean(replies: &[u8]) {
    let text = std::str::from_utf8(replies).expect("replies are ASCII");
    for reply in text.split_terminator("\x1b\\") {
        let body = reply.strip_prefix("\x1b_G").expect("a graphics reply");
        let (keys, message) = body.split_once(';').expect("keys;message");
        assert!(
            keys.bytes()
                .all(|b| b.is_ascii_digit() || b"iIp=,".contains(&b)),
            "keys {keys:?}"
        );
        assert!(
            message.bytes().all(|b| (0x20..0x7f).contains(&b)),
            "message {message:?}"
        );
    }
}

/// The body with the bytes that would end the string (ESC, CAN, SUB) replaced: the
/// targets fuzz what is inside one command, not the sequences after it.
fn inside(body: &[u8]) -> Vec<u8> {
    body.iter()
        .map(|&b| {
            if matches!(b, 0x18 | 0x1a | 0x1b) {
                b'?'
            } else {
                b
            }
        })
        .collect()
}

pub fn kitty_graphics(data: &[u8]) {
    let Some((&header, body)) = data.split_first() else {
        return;
    };
    let body = inside(body);
    let mut stream = Vec::new();
    for command in body.split(|&b| b == b'\n') {
        if let Some(text) = command.strip_prefix(b"#") {
            placeholder_text(&mut stream, text);
            continue;
        }
        stream.extend_from_slice(b"\x1b_G");
        match command.iter().position(|&b| b == b';') {
            Some(i) if header & 1 == 1 => {
                stream.extend_from_slice(&command[..=i]);
                let encoded = base64::engine::general_purpose::STANDARD.encode(&command[i + 1..]);
                stream.extend_from_slice(encoded.as_bytes());
            }
            _ => stream.extend_from_slice(command),
        }
        stream.extend_from_slice(b"\x1b\\");
    }
    check(&stream, header >> 2);
    let mut t = fresh();
    t.advance(&stream);
    check_placeholders(&t);
}

/// Writes a `#` command's text (see the module's doc). A colour's parameters are the
/// digits and `;` after its introducer, always ended by `m` (so the text makes no
/// other sequence: a `c` there would be a DA1 query); C0 controls other than BS, CR
/// and VT become `?` (ENQ and the like are the `model` target's).
fn placeholder_text(stream: &mut Vec<u8>, text: &[u8]) {
    let mut buf = [0u8; 4];
    let mut in_colour = false;
    for &b in text {
        if in_colour {
            if b.is_ascii_digit() || b == b';' {
                stream.push(b);
                continue;
            }
            stream.push(b'm');
            in_colour = false;
            if b == b'm' {
                continue;
            }
        }
        match b {
            b'%' => stream.extend_from_slice(PLACEHOLDER.encode_utf8(&mut buf).as_bytes()),
            b'{' | b'[' | b'~' => {
                stream.extend_from_slice(match b {
                    b'{' => b"\x1b[38;5;",
                    b'[' => b"\x1b[38;2;",
                    _ => b"\x1b[58;5;",
                });
                in_colour = true;
            }
            0x80.. => {
                if let Some(c) = placeholder::diacritic(u32::from(b - 0x80)) {
                    stream.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
            }
            0x08 | 0x0b | b'\r' => stream.push(b),
            ..0x20 | 0x7f => stream.push(b'?'),
            _ => stream.push(b),
        }
    }
    if in_colour {
        stream.push(b'm');
    }
}

/// Every run of placeholder cells shows a part of its image inside the image, drawn
/// inside the run's cells.
fn check_placeholders(t: &Terminal) {
    let Some(layer) = t.image_layer() else {
        return;
    };
    for row in 0..t.size().rows {
        for run in placeholder::runs(t.grid().row(row)) {
            assert!(run.len >= 1 && run.col + run.len <= t.size().cols);
            let Some(placed) = layer.virtual_placement(run.image_id, run.placement_id) else {
                continue;
            };
            let Some(piece) = placeholder::piece(placed, &run, (10.0, 20.0)) else {
                continue;
            };
            let (w, h) = (placed.image.width as f32, placed.image.height as f32);
            let (x, y, sw, sh) = piece.source;
            let eps = 1e-3;
            assert!(x >= -eps && y >= -eps && sw > 0.0 && sh > 0.0, "{piece:?}");
            assert!(
                x + sw <= w + eps && y + sh <= h + eps,
                "{piece:?} of {w}x{h}"
            );
            assert!(piece.at.0 >= 0.0 && piece.at.1 >= 0.0, "{piece:?}");
            assert!(
                piece.at.0 + piece.size.0 <= run.len as f32 + eps,
                "{piece:?}"
            );
            assert!(piece.at.1 + piece.size.1 <= 1.0 + eps, "{piece:?}");
        }
    }
}

pub fn sixel(data: &[u8]) {
    let Some((&header, body)) = data.split_first() else {
        return;
    };
    // An odd split point sets sixel display mode (DECSDM) first.
    let sdm = if (header >> 2) & 1 == 1 {
        "\x1b[?80h"
    } else {
        ""
    };
    let mut stream = format!("{sdm}\x1bP0;{}q", header % 3).into_bytes();
    stream.extend_from_slice(&inside(body));
    stream.extend_from_slice(b"\x1b\\");
    check(&stream, header >> 2);
}
