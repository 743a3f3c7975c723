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

use super::files;
use super::pixels::decode;
use super::{ImageStore, MAX_IMAGE_BYTES, PixelRect, Placement, StoreError};
use crate::model::state::State;

/// Most bytes a transmission (all its chunks, decoded from base64, or a file) may have.
pub const MAX_TRANSMISSION_BYTES: usize = MAX_IMAGE_BYTES;
/// Most cells a placement may cover in each direction.
pub const MAX_PLACEMENT_CELLS: u32 = 10_000;

/// A chunked transmission (`m=1`) still receiving chunks.
#[derive(Debug)]
pub struct Upload {
    cmd: Command,
    /// Base64 characters of the last chunk that did not make a group of four.
    b64_rest: Vec<u8>,
    data: Vec<u8>,
    /// More than [`MAX_TRANSMISSION_BYTES`] came: the rest is dropped and the end
    /// answered with an error.
    too_big: bool,
    bad_base64: bool,
}

impl Upload {
    pub fn heap_bytes(&self) -> usize {
        self.data.capacity() + self.b64_rest.capacity()
    }
}

/// One command's keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Command {
    action: u8,
    quiet: u32,
    pub(super) format: u32,
    medium: u8,
    pub(super) width: u32,
    pub(super) height: u32,
    size: u32,
    offset: u32,
    id: u32,
    number: u32,
    placement: u32,
    compressed: bool,
    more: bool,
    src_x: u32,
    src_y: u32,
    src_w: u32,
    src_h: u32,
    cols: u32,
    rows: u32,
    x_off: u32,
    y_off: u32,
    cursor_stays: bool,
    z: i32,
    delete: u8,
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
        }
    }
}

/// An error reply: kitty's code and message.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Refusal {
    pub(super) code: &'static str,
    pub(super) message: String,
}

pub(super) fn refuse(code: &'static str, message: impl Into<String>) -> Refusal {
    Refusal {
        code,
        message: message.into(),
    }
}

fn parse_keys(keys: &[u8]) -> Result<Command, Refusal> {
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
            // Animation, relative placements, Unicode placeholders: keys read and not
            // acted on.
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
    fn new(cmd: Command) -> Upload {
        Upload {
            cmd,
            b64_rest: Vec::new(),
            data: Vec::new(),
            too_big: false,
            bad_base64: false,
        }
    }

    /// Decodes a chunk's base64 onto the data, whole groups of four at a time.
    fn push(&mut self, chunk: &[u8]) {
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

    fn finish(mut self) -> (Command, Result<Vec<u8>, Refusal>) {
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

/// Handles one APC whose body starts with `G`; `truncated`: it went over its cap and
/// only its start is here (answered `EFBIG`, and a chunked transmission fails).
pub(in crate::model) fn apc(st: &mut State, body: &[u8], truncated: bool) {
    let body = &body[1..];
    let (keys, payload) = match body.iter().position(|&b| b == b';') {
        Some(i) => (&body[..i], &body[i + 1..]),
        None => (body, &[][..]),
    };
    // A chunked transmission takes every graphics command as its next chunk; only `m`
    // and `q` of its keys count.
    if let Some(mut upload) = st.kitty_upload.take().map(|u| *u) {
        let next = parse_keys(keys).unwrap_or_default();
        if truncated {
            upload.too_big = true;
            upload.data = Vec::new();
        }
        upload.push(payload);
        if next.quiet != 0 {
            upload.cmd.quiet = next.quiet;
        }
        if next.more {
            st.kitty_upload = Some(Box::new(upload));
        } else {
            let (cmd, data) = upload.finish();
            transmitted(st, &cmd, data);
        }
        return;
    }
    let cmd = match parse_keys(keys) {
        Ok(cmd) => cmd,
        Err(refusal) => {
            // Answer with the ids if they could be read.
            let mut cmd = Command::default();
            for pair in keys.split(|&b| b == b',') {
                if let Some(v) = pair.strip_prefix(b"i=") {
                    cmd.id = std::str::from_utf8(v)
                        .ok()
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(0);
                }
            }
            reply(st, &cmd, Err(refusal));
            return;
        }
    };
    match cmd.action {
        b't' | b'T' | b'q' => {
            let mut upload = Upload::new(cmd);
            upload.too_big = truncated;
            upload.push(payload);
            if upload.cmd.more && upload.cmd.medium == b'd' {
                st.kitty_upload = Some(Box::new(upload));
            } else {
                let (cmd, data) = upload.finish();
                transmitted(st, &cmd, data);
            }
        }
        b'p' => {
            let result = put(st, &cmd);
            reply(st, &cmd, result);
        }
        b'd' => delete(st, &cmd),
        _ => reply(
            st,
            &cmd,
            Err(refuse("EINVAL", "this action is not supported")),
        ),
    }
}

/// The command's data is all here (`data`: the payload decoded, or why not).
fn transmitted(st: &mut State, cmd: &Command, data: Result<Vec<u8>, Refusal>) {
    let result = data
        .and_then(|data| load(cmd, data))
        .and_then(|data| decode(cmd, data));
    let image = match result {
        Ok(image) => image,
        Err(refusal) => {
            reply(st, cmd, Err(refusal));
            return;
        }
    };
    st.work_cells += u64::from(image.width) * u64::from(image.height) / 16;
    if cmd.action == b'q' {
        // A query checks that the image could be loaded and keeps nothing.
        reply(st, cmd, Ok(()));
        return;
    }
    let store = st.images_mut();
    let id = if cmd.id != 0 {
        cmd.id
    } else {
        store.fresh_id()
    };
    if store.insert(id, cmd.number, image) == Err(StoreError::NoSpace) {
        reply(
            st,
            cmd,
            Err(refuse("ENOSPC", "the image storage quota is exceeded")),
        );
        return;
    }
    let mut answered = cmd.clone();
    answered.id = id;
    let result = if cmd.action == b'T' {
        put(st, &answered)
    } else {
        Ok(())
    };
    // kitty answers an image sent with neither id nor number not at all.
    if cmd.id != 0 || cmd.number != 0 {
        reply(st, &answered, result);
    }
}

/// Gets the bytes of the transmission: the payload itself, or the file it names.
fn load(cmd: &Command, payload: Vec<u8>) -> Result<Vec<u8>, Refusal> {
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

/// Shows a stored image at the cursor (`a=p`, and `a=T` after its transmission).
fn put(st: &mut State, cmd: &Command) -> Result<(), Refusal> {
    let id = if cmd.id != 0 {
        cmd.id
    } else if cmd.number != 0 {
        st.images()
            .id_of_number(cmd.number)
            .ok_or_else(|| refuse("ENOENT", "no image with this number"))?
    } else {
        return Err(refuse("EINVAL", "no image id or number"));
    };
    let Some(image) = st.images().image(id) else {
        return Err(refuse(
            "ENOENT",
            format!("put command refers to non-existent image with id: {id}"),
        ));
    };
    let (img_w, img_h) = (image.width, image.height);
    // The source rectangle, clipped to the image.
    let x = cmd.src_x.min(img_w - 1);
    let y = cmd.src_y.min(img_h - 1);
    let w = if cmd.src_w == 0 {
        img_w - x
    } else {
        cmd.src_w.min(img_w - x)
    };
    let h = if cmd.src_h == 0 {
        img_h - y
    } else {
        cmd.src_h.min(img_h - y)
    };
    let (cell_w, cell_h) = (st.cell_pixels.0 as u32, st.cell_pixels.1 as u32);
    let x_off = cmd.x_off.min(cell_w.saturating_sub(1));
    let y_off = cmd.y_off.min(cell_h.saturating_sub(1));
    if cmd.cols > MAX_PLACEMENT_CELLS || cmd.rows > MAX_PLACEMENT_CELLS {
        return Err(refuse("EINVAL", "the placement is too large"));
    }
    // The drawn size in pixels: the cells asked for (one of them alone keeps the
    // image's aspect), else the image's own size.
    let (draw_w, draw_h) = match (cmd.cols, cmd.rows) {
        (0, 0) => (u64::from(w), u64::from(h)),
        (c, 0) => {
            let dw = u64::from(c) * u64::from(cell_w);
            (dw, dw * u64::from(h) / u64::from(w))
        }
        (0, r) => {
            let dh = u64::from(r) * u64::from(cell_h);
            (dh * u64::from(w) / u64::from(h), dh)
        }
        (c, r) => (
            u64::from(c) * u64::from(cell_w),
            u64::from(r) * u64::from(cell_h),
        ),
    };
    let cols = (draw_w + u64::from(x_off)).div_ceil(u64::from(cell_w));
    let rows = (draw_h + u64::from(y_off)).div_ceil(u64::from(cell_h));
    if cols > u64::from(MAX_PLACEMENT_CELLS) || rows > u64::from(MAX_PLACEMENT_CELLS) {
        return Err(refuse("EINVAL", "the placement is too large"));
    }
    let extent = (draw_w as f32 / cell_w as f32, draw_h as f32 / cell_h as f32);
    let (cols, rows) = (cols.max(1) as usize, rows.max(1) as usize);
    let line = st.image_line_base() + st.cursor.row as u64;
    let col = st.cursor.col;
    st.images_mut().place(Placement {
        image_id: id,
        placement_id: cmd.placement,
        line,
        col,
        cols,
        rows,
        source: PixelRect {
            x,
            y,
            width: w,
            height: h,
        },
        offset: (x_off as f32 / cell_w as f32, y_off as f32 / cell_h as f32),
        extent,
        z: cmd.z,
    });
    let first = st.cursor.row;
    for r in first..(first + rows).min(st.rows) {
        st.damage.mark(r);
    }
    if !cmd.cursor_stays {
        // kitty: the cursor goes to the cell after the image's last column, on its last
        // row, scrolling if the image reaches below the screen.
        for _ in 1..rows {
            st.linefeed();
        }
        st.cursor.col = (col + cols).min(st.cols - 1);
        st.cursor.pending_wrap = false;
    }
    Ok(())
}

/// `a=d`: lower-case specifiers remove placements, upper-case ones also free the
/// images left without a placement.
fn delete(st: &mut State, cmd: &Command) {
    let free = cmd.delete.is_ascii_uppercase();
    let base = st.image_line_base();
    let cursor_line = base + st.cursor.row as u64;
    let cursor_col = st.cursor.col;
    // `x`, `y` are 1-based cells in the delete keys.
    let cell_col = cmd.src_x.saturating_sub(1) as usize;
    let cell_line = base + u64::from(cmd.src_y.saturating_sub(1));
    let covers = |p: &Placement, line: u64, col: usize| {
        (p.line..p.end_line()).contains(&line) && (p.col..p.col + p.cols).contains(&col)
    };
    let screen = base..base + st.rows as u64;
    let on_screen = |p: &Placement| p.line < screen.end && p.end_line() > screen.start;
    let id = if cmd.id == 0 && cmd.number != 0 {
        st.images().id_of_number(cmd.number).unwrap_or(0)
    } else {
        cmd.id
    };
    let store = st.images_mut();
    match cmd.delete.to_ascii_lowercase() {
        b'a' => store.delete_where(free, on_screen),
        b'i' | b'n' if id != 0 => {
            store.delete_where(free, |p| {
                p.image_id == id && (cmd.placement == 0 || p.placement_id == cmd.placement)
            });
            if free && cmd.placement == 0 {
                store.remove_image(id);
            }
        }
        b'c' => store.delete_where(free, |p| covers(p, cursor_line, cursor_col)),
        b'p' => store.delete_where(free, |p| covers(p, cell_line, cell_col)),
        b'q' => store.delete_where(free, |p| covers(p, cell_line, cell_col) && p.z == cmd.z),
        b'x' => store.delete_where(free, |p| (p.col..p.col + p.cols).contains(&cell_col)),
        b'y' => store.delete_where(free, |p| (p.line..p.end_line()).contains(&cell_line)),
        b'z' => store.delete_where(free, |p| p.z == cmd.z),
        b'r' => {
            let (lo, hi) = (cmd.src_x, cmd.src_y);
            store.delete_where(free, |p| (lo..=hi).contains(&p.image_id));
        }
        // Animation frames: nothing to delete.
        _ => {}
    }
    st.damage.mark_all();
}

/// Answers a command: `ESC _ G i=..[,I=..][,p=..];OK ESC \` or the error, unless the
/// command has no id (kitty answers those not at all) or asked for quiet.
fn reply(st: &mut State, cmd: &Command, result: Result<(), Refusal>) {
    if cmd.id == 0 && cmd.number == 0 {
        return;
    }
    let message = match &result {
        Ok(()) if cmd.quiet >= 1 => return,
        Err(_) if cmd.quiet >= 2 => return,
        Ok(()) => "OK".to_owned(),
        Err(r) => format!("{}:{}", r.code, r.message),
    };
    let mut out = String::from("\x1b_G");
    let mut keys = Vec::new();
    if cmd.id != 0 {
        keys.push(format!("i={}", cmd.id));
    }
    if cmd.number != 0 {
        keys.push(format!("I={}", cmd.number));
    }
    if cmd.placement != 0 {
        keys.push(format!("p={}", cmd.placement));
    }
    out.push_str(&keys.join(","));
    out.push(';');
    // Messages are built from fixed text and numbers only, never from request bytes
    // (a file name or payload is not echoed).
    out.push_str(&message);
    out.push_str("\x1b\\");
    st.replies.extend_from_slice(out.as_bytes());
}

impl State {
    /// The store of the screen in use.
    pub(in crate::model) fn images(&self) -> &ImageStore {
        if self.modes.alt_screen {
            &self.images_alt
        } else {
            &self.images_primary
        }
    }

    pub(in crate::model) fn images_mut(&mut self) -> &mut ImageStore {
        if self.modes.alt_screen {
            &mut self.images_alt
        } else {
            &mut self.images_primary
        }
    }

    /// The absolute line of the screen's first row, as placements count lines: the
    /// scrollback's on the primary screen, the lines scrolled off the top on the
    /// alternate one.
    pub(in crate::model) fn image_line_base(&self) -> u64 {
        if self.modes.alt_screen {
            self.alt_scrolled_lines
        } else {
            self.scrollback.dropped() + self.scrollback.len() as u64
        }
    }
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
