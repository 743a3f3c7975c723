//! tmux's escaping of pane output in `%output` and `%extended-output` lines.
//!
//! tmux writes every byte below 0x20 and the backslash as a three-digit octal escape
//! (`\033`, `\134`); every other byte, UTF-8 or not, is sent as it is. The decoder
//! also accepts `\\` for a backslash, and keeps anything else that starts with a
//! backslash (`\9`, `\1` at the end of a line, `\777`) as the literal bytes it read,
//! so no input is ever lost or rejected.
//!
//! [`OctalDecoder`] is streaming: a line may arrive in any number of pieces and an
//! escape may be cut anywhere; the decoded bytes are the same.

use memchr::memchr2;

/// Escapes `bytes` the way tmux does for `%output`: bytes below 0x20 and `\` as
/// `\ooo`, everything else as it is.
pub fn encode_output(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for &b in bytes {
        if b < 0x20 || b == b'\\' {
            out.push(b'\\');
            out.push(b'0' + (b >> 6));
            out.push(b'0' + ((b >> 3) & 7));
            out.push(b'0' + (b & 7));
        } else {
            out.push(b);
        }
    }
    out
}

/// Decodes one whole escaped value (the data of one `%output` line).
pub fn decode_output(escaped: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(escaped.len());
    let mut decoder = OctalDecoder::default();
    decoder.decode(escaped, &mut out);
    decoder.finish_line(&mut out);
    out
}

/// Streaming decoder for the data of one line at a time.
///
/// A `\r` is held back until the next byte: over a pty tmux's lines end in `\r\n`,
/// and a raw `\r` right before the line's end is that line ending, not data (tmux
/// escapes every `\r` of real output as `\015`).
#[derive(Clone, Debug, Default)]
pub struct OctalDecoder {
    /// A backslash and up to two octal digits read so far.
    pending: [u8; 3],
    pending_len: u8,
    /// A raw `\r` not yet known to be data.
    held_cr: bool,
}

impl OctalDecoder {
    /// Decodes `input`, appending the bytes it stands for to `out`. Bytes of an
    /// escape cut at the end of `input` wait for the next call.
    pub fn decode(&mut self, input: &[u8], out: &mut Vec<u8>) {
        let mut rest = input;
        while !rest.is_empty() {
            if self.held_cr {
                self.held_cr = false;
                out.push(b'\r');
            }
            if self.pending_len > 0 {
                let b = rest[0];
                rest = &rest[1..];
                self.escape_byte(b, out);
                continue;
            }
            match memchr2(b'\\', b'\r', rest) {
                None => {
                    out.extend_from_slice(rest);
                    rest = &[];
                }
                Some(i) => {
                    out.extend_from_slice(&rest[..i]);
                    if rest[i] == b'\\' {
                        self.pending[0] = b'\\';
                        self.pending_len = 1;
                    } else {
                        self.held_cr = true;
                    }
                    rest = &rest[i + 1..];
                }
            }
        }
    }

    /// The line ended: an escape cut short is kept as the literal bytes read, and a
    /// held `\r` is dropped (it was the line ending).
    pub fn finish_line(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.pending[..usize::from(self.pending_len)]);
        self.pending_len = 0;
        self.held_cr = false;
    }

    fn escape_byte(&mut self, b: u8, out: &mut Vec<u8>) {
        let len = usize::from(self.pending_len);
        if len == 1 && b == b'\\' {
            out.push(b'\\');
            self.pending_len = 0;
            return;
        }
        if (b'0'..=b'7').contains(&b) {
            if len == 3 {
                let digit = |d: u8| u32::from(d - b'0');
                let value = digit(self.pending[1]) * 64 + digit(self.pending[2]) * 8 + digit(b);
                self.pending_len = 0;
                match u8::try_from(value) {
                    Ok(byte) => out.push(byte),
                    Err(_) => {
                        out.extend_from_slice(&self.pending);
                        out.push(b);
                    }
                }
                return;
            }
            self.pending[len] = b;
            self.pending_len += 1;
            return;
        }
        // Not an escape after all: the bytes read stay as they were.
        out.extend_from_slice(&self.pending[..len]);
        self.pending_len = 0;
        if b == b'\\' {
            self.pending[0] = b'\\';
            self.pending_len = 1;
        } else if b == b'\r' {
            self.held_cr = true;
        } else {
            out.push(b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_round_trips() {
        for b in 0..=255u8 {
            let escaped = encode_output(&[b]);
            assert_eq!(decode_output(&escaped), vec![b], "byte {b:#04x}");
        }
    }

    #[test]
    fn tmux_escapes_control_bytes_and_backslash_only() {
        assert_eq!(
            encode_output(b"a\\\x1b[m\r\n\x7f\xff"),
            b"a\\134\\033[m\\015\\012\x7f\xff"
        );
    }

    #[test]
    fn double_backslash_is_one_backslash() {
        assert_eq!(decode_output(b"a\\\\b"), b"a\\b");
    }

    #[test]
    fn malformed_escapes_stay_literal() {
        assert_eq!(decode_output(b"\\9x"), b"\\9x");
        assert_eq!(decode_output(b"\\01x"), b"\\01x");
        assert_eq!(decode_output(b"\\777"), b"\\777");
        assert_eq!(decode_output(b"end\\1"), b"end\\1");
        assert_eq!(decode_output(b"end\\"), b"end\\");
        assert_eq!(decode_output(b"\\0\\101"), b"\\0A");
    }

    #[test]
    fn trailing_cr_is_the_line_ending_but_an_inner_cr_is_data() {
        assert_eq!(decode_output(b"abc\r"), b"abc");
        assert_eq!(decode_output(b"a\rb"), b"a\rb");
        assert_eq!(decode_output(b"\\1\rb"), b"\\1\rb");
    }

    #[test]
    fn an_escape_cut_anywhere_decodes_the_same() {
        let escaped = b"x\\033[1;31m\\134y\\\\z\\015\\012";
        let whole = decode_output(escaped);
        for cut in 0..=escaped.len() {
            let mut decoder = OctalDecoder::default();
            let mut out = Vec::new();
            decoder.decode(&escaped[..cut], &mut out);
            decoder.decode(&escaped[cut..], &mut out);
            decoder.finish_line(&mut out);
            assert_eq!(out, whole, "cut at {cut}");
        }
    }
}
