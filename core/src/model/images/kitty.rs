//! The kitty graphics protocol (`ESC _ G keys ; payload ESC \`), as kitty documents it
//! (sw.kovidgoyal.net/kitty/graphics-protocol): transmission direct, chunked (`m=1`),
//! from a file (`t=f`) or a temporary file (`t=t`); formats RGB (`f=24`), RGBA (`f=32`)
//! and PNG (`f=100`), zlib-compressed (`o=z`) or not; placement at the cursor (`a=T`,
//! `a=p`) with cropping, a size in cells, a z-index; deletion (`a=d`); the query
//! (`a=q`); replies and quiet modes.
//!
//! Every size is checked before memory is taken: a PNG's header is read before its
//! pixels, chunks stop being kept past [`MAX_TRANSMISSION_BYTES`], a file is read only
//! if it is a regular file of at most that size.

use std::io::Read;

use base64::Engine;

use super::{MAX_TRANSMISSION_BYTES, Refusal, files, refuse};

/// A chunked transmission (`m=1`) still receiving chunks.
#[derive(Debug)]
pub struct Upload {
    pub(crate) cmd: Command,
    /// Base64 characters of the last chunk that did not make a group of four.
    pub(crate) b64_rest: Vec<u8>,
    pub(crate) data: Vec<u8>,
    /// More than [`MAX_TRANSMISSION_BYTES`] came: the rest is dropped and the end
    /// answered with an error.
    pub(crate) too_big: bool,
    pub(crate) bad_base64: bool,
}

impl Upload {
    pub fn heap_bytes(&self) -> usize {
        self.data.capacity() + self.b64_rest.capacity()
    }
}

/// One command's keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Command {
    pub(crate) action: u8,
    pub(crate) quiet: u32,
    pub(crate) format: u32,
    pub(crate) medium: u8,
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) size: u32,
    pub(crate) offset: u32,
    pub(crate) id: u32,
    pub(crate) number: u32,
    pub(crate) placement: u32,
    pub(crate) compressed: bool,
    pub(crate) more: bool,
    pub(crate) src_x: u32,
    pub(crate) src_y: u32,
    pub(crate) src_w: u32,
    pub(crate) src_h: u32,
    pub(crate) cols: u32,
    pub(crate) rows: u32,
    pub(crate) x_off: u32,
    pub(crate) y_off: u32,
    pub(crate) cursor_stays: bool,
    pub(crate) z: i32,
    pub(crate) delete: u8,
    /// `U=1`: a virtual placement, shown by Unicode placeholders.
    pub(crate) virtual_placement: bool,
}

impl Default for Command {
    fn default() -> Self {
        Command {
            action: b't',
            quiet: 0,
            format: 32,
            medium: b'd',
            width: 0,
            height: 0,
            size: 0,
            offset: 0,
            id: 0,
            number: 0,
            placement: 0,
            compressed: false,
            more: false,
            src_x: 0,
            src_y: 0,
            src_w: 0,
            src_h: 0,
            cols: 0,
            rows: 0,
            x_off: 0,
            y_off: 0,
            cursor_stays: false,
            z: 0,
            delete: b'a',
            virtual_placement: false,
        }
    }
}

pub(crate) fn parse_keys(keys: &[u8]) -> Result<Command, Refusal> {
    let mut cmd = Command::default();
    for pair in keys.split(|&b| b == b',') {
        if pair.is_empty() {
            continue;
        }
        let Some(eq) = pair.iter().position(|&b| b == b'=') else {
            return Err(refuse("EINVAL", "a key without a value"));
        };
        let (key, value) = (&pair[..eq], &pair[eq + 1..]);
        let [key] = key else {
            return Err(refuse("EINVAL", "a key of more than one letter"));
        };
        let letter = || match value {
            [c] if c.is_ascii_alphanumeric() => Ok(*c),
            _ => Err(refuse("EINVAL", format!("bad value for {}", *key as char))),
        };
        let number = || -> Result<u32, Refusal> {
            std::str::from_utf8(value)
                .ok()
                .and_then(|v| v.parse::<u32>().ok())
                .ok_or_else(|| refuse("EINVAL", format!("bad number for {}", *key as char)))
        };
        match key {
            b'a' => cmd.action = letter()?,
            b'q' => cmd.quiet = number()?,
            b'f' => cmd.format = number()?,
            b't' => cmd.medium = letter()?,
            b's' => cmd.width = number()?,
            b'v' => cmd.height = number()?,
            b'S' => cmd.size = number()?,
            b'O' => cmd.offset = number()?,
            b'i' => cmd.id = number()?,
            b'I' => cmd.number = number()?,
            b'p' => cmd.placement = number()?,
            b'o' => cmd.compressed = letter()? == b'z',
            b'm' => cmd.more = number()? == 1,
            b'x' => cmd.src_x = number()?,
            b'y' => cmd.src_y = number()?,
            b'w' => cmd.src_w = number()?,
            b'h' => cmd.src_h = number()?,
            b'c' => cmd.cols = number()?,
            b'r' => cmd.rows = number()?,
            b'X' => cmd.x_off = number()?,
            b'Y' => cmd.y_off = number()?,
            b'C' => cmd.cursor_stays = number()? == 1,
            b'z' => {
                cmd.z = std::str::from_utf8(value)
                    .ok()
                    .and_then(|v| v.parse::<i32>().ok())
                    .ok_or_else(|| refuse("EINVAL", "bad number for z"))?;
            }
            b'd' => cmd.delete = letter()?,
            b'U' => cmd.virtual_placement = number()? == 1,
            // Animation and relative placements: keys read and not acted on.
            _ => {}
        }
    }
    Ok(cmd)
}

fn base64_engine() -> base64::engine::GeneralPurpose {
    base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    )
}

impl Upload {
    pub(crate) fn new(cmd: Command) -> Upload {
        Upload {
            cmd,
            b64_rest: Vec::new(),
            data: Vec::new(),
            too_big: false,
            bad_base64: false,
        }
    }

    /// Decodes a chunk's base64 onto the data, whole groups of four at a time.
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        if self.too_big || self.bad_base64 {
            return;
        }
        let mut text = std::mem::take(&mut self.b64_rest);
        text.extend(chunk.iter().copied().filter(|b| !b.is_ascii_whitespace()));
        // Padding ends a group early: everything up to it is decoded now.
        let whole = if text.contains(&b'=') {
            text.len()
        } else {
            text.len() - text.len() % 4
        };
        let need = self.data.len() + whole / 4 * 3;
        if need > MAX_TRANSMISSION_BYTES {
            self.too_big = true;
            self.data = Vec::new();
            return;
        }
        // Grow by doubling, but never past the cap (a doubling past it would hold
        // twice the cap at the peak).
        if need > self.data.capacity() {
            let target = need
                .max(self.data.capacity() * 2)
                .min(MAX_TRANSMISSION_BYTES);
            self.data.reserve_exact(target - self.data.len());
        }
        match base64_engine().decode_vec(&text[..whole], &mut self.data) {
            Ok(()) => self.b64_rest = text[whole..].to_vec(),
            Err(_) => {
                self.bad_base64 = true;
                self.data = Vec::new();
            }
        }
    }

    pub(crate) fn finish(mut self) -> (Command, Result<Vec<u8>, Refusal>) {
        if !self.b64_rest.is_empty() && !self.too_big && !self.bad_base64 {
            let rest = std::mem::take(&mut self.b64_rest);
            if base64_engine().decode_vec(&rest, &mut self.data).is_err() {
                self.bad_base64 = true;
            }
        }
        let result = if self.too_big {
            Err(refuse("EFBIG", "the transmission is too large"))
        } else if self.bad_base64 {
            Err(refuse("EINVAL", "the payload is not valid base64"))
        } else {
            Ok(self.data)
        };
        (self.cmd, result)
    }
}

/// Gets the bytes of the transmission: the payload itself, or the file it names.
pub(crate) fn load(cmd: &Command, payload: Vec<u8>) -> Result<Vec<u8>, Refusal> {
    let bytes = match cmd.medium {
        b'd' => payload,
        b'f' | b't' => {
            let path = String::from_utf8(payload)
                .map_err(|_| refuse("EINVAL", "the file name is not UTF-8"))?;
            let bytes = files::read(&path, cmd.medium == b't', cmd.offset, cmd.size)?;
            if cmd.medium == b't' {
                // read_file checked that it is a temporary file of ours.
                let _ = std::fs::remove_file(&path);
            }
            bytes
        }
        b's' => return Err(refuse("EINVAL", "shared memory is not supported")),
        _ => return Err(refuse("EINVAL", "unknown transmission medium")),
    };
    if !cmd.compressed {
        return Ok(bytes);
    }
    let mut out = Vec::new();
    let decoder = flate2::read::ZlibDecoder::new(&bytes[..]);
    decoder
        .take(MAX_TRANSMISSION_BYTES as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|_| refuse("EINVAL", "the data is not valid zlib"))?;
    if out.len() > MAX_TRANSMISSION_BYTES {
        return Err(refuse("EFBIG", "the decompressed data is too large"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_read_with_their_defaults() {
        let cmd = parse_keys(b"a=T,f=100,i=7,q=2,z=-5,C=1").unwrap();
        assert_eq!(cmd.action, b'T');
        assert_eq!(cmd.format, 100);
        assert_eq!(cmd.id, 7);
        assert_eq!(cmd.quiet, 2);
        assert_eq!(cmd.z, -5);
        assert!(cmd.cursor_stays);
        assert_eq!(cmd.medium, b'd');
        assert!(
            parse_keys(b"i=4294967296").is_err(),
            "an id over u32 is refused"
        );
        assert!(parse_keys(b"i=-1").is_err());
    }

    #[test]
    fn chunks_decode_across_groups_of_four() {
        let mut up = Upload::new(Command::default());
        let text = base64::engine::general_purpose::STANDARD.encode(b"hello, images");
        let (a, b) = text.as_bytes().split_at(5);
        up.push(a);
        up.push(b);
        let (_, data) = up.finish();
        assert_eq!(data.unwrap(), b"hello, images");
    }
}
