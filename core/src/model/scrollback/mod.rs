//! Scrollback: lines that scrolled off the top of the primary screen, oldest first,
//! stored encoded in a ring of byte blocks.
//!
//! ```text
//!   index:  VecDeque<LineEntry>   one per line: block, offset, length, wrapped
//!   blocks: VecDeque<Block>       64 KiB byte blocks; lines never straddle two
//!           ┌──────────────┬──────────────┬─────┬──────────────┐
//!           │ line k, k+1..│ ...          │ ... │ ..., newest  │ ◀── push appends here
//!           └──────────────┴──────────────┴─────┴──────────────┘
//!             ▲ pop: drop lines from the front; a block with no live line is recycled
//! ```
//!
//! A line is encoded as: varint `cells << 1 | has_pairs`; with pairs, varint `units << 2
//! | char_width` and one bit per cell (set where a wide pair starts); style runs over units
//! (a byte `0..=0x7f` = that many+1 default-style units; `0x80` = varint count, flags u16,
//! fg u32, bg u32); one character per unit, as UTF-8 (`char_width` 0, and always in a
//! line without pairs) or as its code point in `char_width` (2 or 3) little-endian bytes;
//! varint extra count and the extras. A unit is a cell,
//! or a wide pair: a `WIDE` cell and its `WIDE_SPACER` space, alike apart from those two
//! flags, stored as the wide cell's character and style without the layout flags. A
//! line of CJK, emoji and narrow text in one style is thus one style run, one character
//! per unit and a bit per unit; its characters are stored at a fixed width (two bytes
//! each when all are in the BMP, else three), which the one-style loop writes without
//! a branch per character (UTF-8 would take a third of its time). Plain text costs about
//! one byte per character, and
//! pushing a line allocates nothing once the blocks exist. Encoding is one pass over the
//! cells (a vectorisable check first finds the line in one style, ASCII or not, with
//! perhaps a last cell of its own, which is then written without per-cell checks).

use std::collections::VecDeque;

use super::cell::{Cell, Color, Flags};
use super::row::{CellExtra, Row};

#[derive(Clone, Copy, Debug)]
struct LineEntry {
    /// Absolute block number (see `Scrollback::first_block`).
    block: u64,
    start: u32,
    len: u32,
    wrapped: bool,
}

#[derive(Clone, Debug, Default)]
struct Block {
    bytes: Vec<u8>,
    live_lines: u32,
}

const BLOCK_BYTES: usize = 64 * 1024;

/// Lines above the screen, capped by count and by bytes.
#[derive(Clone, Debug)]
pub struct Scrollback {
    index: VecDeque<LineEntry>,
    blocks: VecDeque<Block>,
    /// Absolute number of `blocks[0]`.
    first_block: u64,
    /// Encoded bytes of the lines kept.
    used: usize,
    spare: Option<Block>,
    max_lines: usize,
    max_bytes: usize,
    /// Lines ever dropped off the front (so absolute line numbers stay stable).
    dropped: u64,
    scratch: Scratch,
    /// The newest lines, pushed but not yet encoded (after every encoded line): the
    /// grid's row that scrolled off waits here ([`Scrollback::push_row`]) and is encoded
    /// later ([`Scrollback::settle_some`], when the model thread has nothing else to
    /// do), so a burst that scrolls is parsed, and a query behind it answered, without
    /// encoding its lines on the way.
    /// Reading a line here gives exactly what its encoding would decode to.
    fresh: VecDeque<FreshLine>,
    /// Cells held in `fresh` (at most [`FRESH_CELLS`]).
    fresh_cells: usize,
    /// Rows of `fresh` already encoded, kept for reuse (by the grid, which takes one
    /// for each row it hands over: [`Scrollback::push_row`]).
    fresh_spare: Vec<FreshLine>,
    /// Cells of the rows in `fresh_spare` (at most [`FRESH_CELLS`]).
    spare_cells: usize,
    /// Heap bytes of `fresh` and `fresh_spare`, kept as they change: `heap_bytes` is
    /// read after every parse step.
    fresh_heap: usize,
    /// Lines are encoded as they are pushed ([`Scrollback::set_eager`]): during a flood
    /// the queue would only add work (the model thread sets it for a pane read ahead,
    /// and the queue's overflow sets it until the thread is idle again).
    eager: bool,
}

/// A line waiting to be encoded: a row whose cells from `len` on are default blanks.
#[derive(Clone, Debug)]
struct FreshLine {
    row: Row,
    len: usize,
}

impl FreshLine {
    fn heap_bytes(&self) -> usize {
        self.row.heap_bytes() + std::mem::size_of::<FreshLine>()
    }
}

/// Most cells of lines waiting to be encoded (96 KiB): about 100 lines of 80 columns,
/// more than a 10 KB burst of a TUI scrolls. Past it they are all encoded, and so is
/// every line after them until the model thread is idle (`eager`).
pub const FRESH_CELLS: usize = 8 * 1024;

const ENTRY_BYTES: usize = std::mem::size_of::<LineEntry>();

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// A cursor over one encoded line.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }
    fn byte(&mut self) -> u8 {
        let v = self.bytes.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        v
    }
    fn varint(&mut self) -> u64 {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte();
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                break;
            }
        }
        v
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }
    /// A character stored as `width` says.
    fn char_as(&mut self, width: CharWidth) -> char {
        let bytes = match width {
            CharWidth::Utf8 => return self.char(),
            CharWidth::Two => [self.byte(), self.byte(), 0, 0],
            CharWidth::Three => [self.byte(), self.byte(), self.byte(), 0],
        };
        char::from_u32(u32::from_le_bytes(bytes)).unwrap_or(' ')
    }
    fn char(&mut self) -> char {
        let first = self.byte();
        let len = match first {
            0x00..=0x7f => return first as char,
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            _ => 4,
        };
        let mut buf = [first, 0, 0, 0];
        for b in buf.iter_mut().take(len).skip(1) {
            *b = self.byte();
        }
        std::str::from_utf8(&buf[..len])
            .ok()
            .and_then(|s| s.chars().next())
            .unwrap_or(' ')
    }
}

fn encode_color(c: Option<Color>, out: &mut Vec<u8>) {
    // Reuse the cell packing through a styled cell.
    match c {
        None => out.push(0),
        Some(color) => {
            out.push(1);
            let (_, fg, _) = Cell::styled(
                color,
                Color::Default,
                Default::default(),
                Default::default(),
            )
            .style_bits();
            out.extend_from_slice(&fg.to_le_bytes());
        }
    }
}

fn decode_color(r: &mut Reader<'_>) -> Option<Color> {
    if r.byte() == 0 {
        return None;
    }
    let fg = r.u32();
    Some(Cell::from_style_bits(0, fg, 0, ' ').fg())
}

const TAG_STYLED: u8 = 0x80;
const WIDE_LAYOUT: u16 = Flags::WIDE.union(Flags::WIDE_SPACER).bits();
const WIDE: u16 = Flags::WIDE.bits();
const SPACER: u16 = Flags::WIDE_SPACER.bits();
/// Flags a style run does not store: the wide layout (in the pair bits) and `EXTRA` (set
/// again on decoding for every cell with an extra).
const NOT_STYLE: u16 = WIDE_LAYOUT | Flags::EXTRA.bits();

/// Reusable buffers for encoding one line (kept so that pushing allocates nothing). The
/// loops write `chars` and `pairs` by index into buffers kept at least as long as the
/// longest line needs, and record how much of each they used.
#[derive(Clone, Debug, Default)]
struct Scratch {
    /// Header: varint `cells << 1 | has_pairs`, then (with pairs) varint unit count.
    head: Vec<u8>,
    /// Bit `i` set when cell `i` starts a wide pair (only when the line has one).
    pairs: Vec<u8>,
    pairs_len: usize,
    /// Style runs over units.
    runs: Vec<u8>,
    /// One character per unit as UTF-8.
    chars: Vec<u8>,
    chars_len: usize,
    /// The extras.
    extras: Vec<u8>,
}

impl Scratch {
    /// Clears every part and makes room for a line of `len` cells.
    fn start(&mut self, len: usize) {
        self.head.clear();
        self.runs.clear();
        self.extras.clear();
        if self.chars.len() < len * 4 {
            self.chars.resize(len * 4, 0);
        }
        if self.pairs.len() < len.div_ceil(8) {
            self.pairs.resize(len.div_ceil(8), 0);
        }
        self.chars_len = 0;
        self.pairs_len = 0;
    }
    fn len(&self) -> usize {
        self.head.len() + self.pairs_len + self.runs.len() + self.chars_len + self.extras.len()
    }
    fn append_to(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.head);
        // Most lines have no pairs: no `memcpy` call for nothing.
        if self.pairs_len > 0 {
            out.extend_from_slice(&self.pairs[..self.pairs_len]);
        }
        out.extend_from_slice(&self.runs);
        out.extend_from_slice(&self.chars[..self.chars_len]);
        out.extend_from_slice(&self.extras);
    }
    fn heap_bytes(&self) -> usize {
        self.head.capacity()
            + self.pairs.capacity()
            + self.runs.capacity()
            + self.chars.capacity()
            + self.extras.capacity()
    }
    /// Writes the header for `len` cells in `units` units, and keeps the pair bits when
    /// there is a pair (the characters then written as `chars`; without a pair they are
    /// UTF-8).
    fn finish(&mut self, len: usize, units: usize, any_pair: bool, chars: CharWidth) {
        if any_pair {
            self.pairs_len = len.div_ceil(8);
            put_varint(&mut self.head, (len as u64) << 1 | 1);
            put_varint(&mut self.head, (units as u64) << 2 | chars as u64);
        } else {
            self.pairs_len = 0;
            put_varint(&mut self.head, (len as u64) << 1);
        }
    }
}

/// How a line with wide pairs stores its characters (the low two bits of its unit
/// count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CharWidth {
    /// UTF-8.
    Utf8 = 0,
    /// Two little-endian bytes of the code point (every character in the BMP).
    Two = 2,
    /// Three little-endian bytes of the code point.
    Three = 3,
}

impl CharWidth {
    fn from_bits(bits: u64) -> CharWidth {
        match bits & 3 {
            2 => CharWidth::Two,
            3 => CharWidth::Three,
            _ => CharWidth::Utf8,
        }
    }
}

fn put_style(out: &mut Vec<u8>, style: (u16, u32, u32)) {
    let mut bytes = [0u8; 10];
    bytes[..2].copy_from_slice(&style.0.to_le_bytes());
    bytes[2..6].copy_from_slice(&style.1.to_le_bytes());
    bytes[6..].copy_from_slice(&style.2.to_le_bytes());
    out.extend_from_slice(&bytes);
}

/// Appends a run of `n` units in `style` (its `EXTRA` flag dropped).
fn put_run(out: &mut Vec<u8>, mut n: usize, style: (u16, u32, u32)) {
    let style = (style.0 & !Flags::EXTRA.bits(), style.1, style.2);
    if style == Cell::BLANK.style_bits() {
        while n > 0 {
            let k = n.min(128);
            out.push((k - 1) as u8);
            n -= k;
        }
    } else if n > 0 {
        out.push(TAG_STYLED);
        put_varint(out, n as u64);
        put_style(out, style);
    }
}

/// Writes code point `cp` (a valid `char`, as cells store) as UTF-8 at the start of
/// `out` (all four bytes are written; those past the length are left for the next
/// character); returns its length.
#[inline(always)]
fn put_utf8(out: &mut [u8; 4], cp: u32) -> usize {
    let (word, len) = if cp < 0x80 {
        (cp, 1)
    } else if cp < 0x800 {
        (0x80c0 | cp >> 6 | (cp & 0x3f) << 8, 2)
    } else if cp < 0x1_0000 {
        (
            0x80_80e0 | cp >> 12 | (cp >> 6 & 0x3f) << 8 | (cp & 0x3f) << 16,
            3,
        )
    } else {
        (
            0x8080_80f0
                | cp >> 18
                | (cp >> 12 & 0x3f) << 8
                | (cp >> 6 & 0x3f) << 16
                | (cp & 0x3f) << 24,
            4,
        )
    };
    *out = word.to_le_bytes();
    len
}

/// The four bytes of `chars` at `at` (the buffer holds four per cell, so they exist).
#[inline(always)]
fn char_slot(chars: &mut [u8], at: usize) -> &mut [u8; 4] {
    let slot: &mut [u8] = &mut chars[at..at + 4];
    slot.try_into().expect("a slice of four bytes")
}

/// Encodes `cells[..len]` and `extras` of a row into `s` (see the module docs).
#[inline(always)]
fn encode(row: &Row, len: usize, s: &mut Scratch) {
    s.start(len);
    let cells = &row.cells[..len];
    if !encode_one_style(cells, s) {
        s.start(len);
        encode_units(cells, s);
    }
    encode_extras(row, len, &mut s.extras);
}

/// What [`scan_one_style`] found in a line whose cells share one style.
struct OneStyle {
    /// Some cell has a wide layout flag.
    any_pair: bool,
    /// Every character is ASCII.
    ascii: bool,
    /// Every character is in the BMP (below U+10000).
    bmp: bool,
    /// The last cell's style differs from the others' (a `LEADING_SPACER` blank left
    /// where a wide character did not fit, usually): it is a run of its own.
    last_differs: bool,
}

/// For `cells`, word by word (`ch`, `fg`, `bg`), the OR over every cell of `(word ^
/// pattern) & mask` and the OR of `word & keep`, computed on the flat words
/// ([`Cell::words`]) four cells (three 128-bit vectors) at a time.
#[inline(always)]
fn fold_words(
    cells: &[Cell],
    pattern: [u32; 3],
    mask: [u32; 3],
    keep: [u32; 3],
) -> ([u32; 3], [u32; 3]) {
    let spread = |w: [u32; 3]| -> [u32; 12] { std::array::from_fn(|j| w[j % 3]) };
    let (pattern, mask, keep) = (spread(pattern), spread(mask), spread(keep));
    let (mut diff, mut kept) = ([0u32; 12], [0u32; 12]);
    let words = fold_groups(
        Cell::words(cells),
        &pattern,
        &mask,
        &keep,
        &mut diff,
        &mut kept,
    );
    fold_scalar(words, &pattern, &mask, &keep, &mut diff, &mut kept);
    let fold = |v: [u32; 12]| -> [u32; 3] {
        std::array::from_fn(|k| v[k] | v[k + 3] | v[k + 6] | v[k + 9])
    };
    (fold(diff), fold(kept))
}

/// The whole 12-word groups of [`fold_words`]; returns the words left over. On x86_64
/// with SSE2 (LLVM's own vectorising of the plain loop runs across groups and gathers
/// each word with scalar loads, slower than scalar code), elsewhere a word at a time.
#[inline(always)]
fn fold_groups<'a>(
    mut words: &'a [u32],
    pattern: &[u32; 12],
    mask: &[u32; 12],
    keep: &[u32; 12],
    diff: &mut [u32; 12],
    kept: &mut [u32; 12],
) -> &'a [u32] {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of the x86_64 baseline. Every load reads 16 bytes inside a
    // `[u32; 12]` (offsets 0, 16 and 32 of 48 bytes) and every store writes 16 bytes
    // inside one; unaligned loads and stores are used, so alignment does not matter.
    unsafe {
        use std::arch::x86_64::{
            __m128i, _mm_and_si128, _mm_loadu_si128, _mm_or_si128, _mm_storeu_si128, _mm_xor_si128,
        };
        let load = |a: &[u32; 12], k: usize| _mm_loadu_si128(a.as_ptr().cast::<__m128i>().add(k));
        let (p, m, kp) = (
            [load(pattern, 0), load(pattern, 1), load(pattern, 2)],
            [load(mask, 0), load(mask, 1), load(mask, 2)],
            [load(keep, 0), load(keep, 1), load(keep, 2)],
        );
        let mut d = [load(diff, 0), load(diff, 1), load(diff, 2)];
        let mut kd = [load(kept, 0), load(kept, 1), load(kept, 2)];
        while let Some((group, rest)) = words.split_first_chunk::<12>() {
            for k in 0..3 {
                let w = load(group, k);
                d[k] = _mm_or_si128(d[k], _mm_and_si128(_mm_xor_si128(w, p[k]), m[k]));
                kd[k] = _mm_or_si128(kd[k], _mm_and_si128(w, kp[k]));
            }
            words = rest;
        }
        for k in 0..3 {
            _mm_storeu_si128(diff.as_mut_ptr().cast::<__m128i>().add(k), d[k]);
            _mm_storeu_si128(kept.as_mut_ptr().cast::<__m128i>().add(k), kd[k]);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    while let Some((group, rest)) = words.split_first_chunk::<12>() {
        fold_scalar(group, pattern, mask, keep, diff, kept);
        words = rest;
    }
    words
}

/// [`fold_words`] over at most 12 words, one at a time.
#[inline(always)]
fn fold_scalar(
    words: &[u32],
    pattern: &[u32; 12],
    mask: &[u32; 12],
    keep: &[u32; 12],
    diff: &mut [u32; 12],
    kept: &mut [u32; 12],
) {
    for (j, w) in words.iter().enumerate() {
        diff[j] |= (w ^ pattern[j]) & mask[j];
        kept[j] |= w & keep[j];
    }
}

/// Checks, 64 cells at a time without a branch per cell (stopping at the first group
/// that fails), that `cells` are one style apart from the wide layout and `EXTRA` flags
/// (the last cell may differ); `None` otherwise. Whether the wide layout is whole is
/// left to [`put_pairs_and_chars`], and only where there is one.
#[inline]
fn scan_one_style(cells: &[Cell]) -> Option<OneStyle> {
    let (first, last) = (cells.first()?, cells.last()?);
    let style = Cell::style_words_mask(NOT_STYLE);
    let keep = Cell::char_words_mask(WIDE_LAYOUT);
    let first_words = first.to_words();
    let mut chars = 0;
    for chunk in cells[..cells.len() - 1].chunks(64) {
        let (diff, kept) = fold_words(chunk, first_words, style, keep);
        if diff != [0; 3] {
            return None;
        }
        chars |= kept[0];
    }
    let (diff, kept) = fold_words(std::slice::from_ref(last), first_words, style, keep);
    let last_differs = diff != [0; 3];
    chars |= kept[0];
    let any_pair = chars & Cell::diff_flags_mask(WIDE_LAYOUT) != 0;
    Some(OneStyle {
        any_pair,
        ascii: chars < 0x80,
        bmp: chars & Cell::char_words_mask(0)[0] < 0x1_0000,
        last_differs,
    })
}

/// Writes one character per unit of `cells` (its code point in `W` little-endian bytes,
/// into `s.chars`) and the pair bits (into `s.pairs`), a unit at a time; returns the
/// number of units, or `None` when the wide layout is not whole: a `WIDE` cell not
/// followed by its `WIDE_SPACER` space (or one that is both), or a spacer where a unit
/// starts, that is, not after a wide cell (what was written is then left for the caller
/// to overwrite). Kept out of line so that its loop has the registers to itself.
#[inline(never)]
fn put_pairs_and_chars<const W: usize>(cells: &[Cell], s: &mut Scratch) -> Option<usize> {
    const { assert!(W == 2 || W == 3) };
    let n = cells.len();
    let pairs = &mut s.pairs[..n.div_ceil(8)];
    pairs.fill(0);
    let chars = &mut s.chars[..4 * n];
    let whole_spacer = Cell::BLANK.with_ch(' ').to_words()[0] | Cell::diff_flags_mask(SPACER);
    let [spacer_mask, ..] = Cell::char_words_mask(WIDE_LAYOUT);
    let [code_mask, ..] = Cell::char_words_mask(0);
    // `starts`: every word where a unit starts, ORed (none may be a spacer).
    let (mut at, mut starts, mut bad, mut i) = (0, 0, 0, 0);
    while let Some(cell) = cells.get(i) {
        let [word, ..] = cell.to_words();
        starts |= word;
        if cell.wide_layout() & 1 != 0 {
            // Its spacer: exactly a space with the spacer flag (a missing one reads as
            // a blank, which is not).
            let next = cells.get(i + 1).map_or(0, |c| c.to_words()[0]);
            bad |= (next & spacer_mask) ^ whole_spacer;
            pairs[i / 8] |= 1 << (i % 8);
            i += 1;
        }
        // SAFETY: `at` is `W` bytes for each unit written before this one, and each took
        // at least one cell before `i < n`, so `at <= W * (n - 1)` and, with `W <= 3`,
        // `at + 4 <= 4 * n = chars.len()`: the four bytes written (the code point; the
        // byte past `W` is overwritten by the next unit or ignored) are inside `chars`.
        unsafe {
            let slot = chars.as_mut_ptr().add(at).cast::<[u8; 4]>();
            slot.write_unaligned((word & code_mask).to_le_bytes());
        }
        at += W;
        i += 1;
    }
    if bad != 0 || starts & Cell::diff_flags_mask(SPACER) != 0 {
        return None;
    }
    s.chars_len = at;
    Some(at / W)
}

/// A line whose cells share one style apart from the wide layout and `EXTRA` flags
/// (the usual line of CJK or emoji; plain ASCII), the last cell perhaps in a style of
/// its own: one run (or two), the characters written in one pass; false (the caller
/// starts again with [`encode_units`]) for anything else.
fn encode_one_style(cells: &[Cell], s: &mut Scratch) -> bool {
    let len = cells.len();
    let Some(scan) = scan_one_style(cells) else {
        return false;
    };
    let units = if scan.ascii {
        // One byte a cell, no pairs (the scan found no layout flags).
        for (byte, cell) in s.chars.iter_mut().zip(cells) {
            *byte = cell.code_point() as u8;
        }
        s.chars_len = len;
        len
    } else if scan.any_pair {
        // A pair's halves are one style, so a spacer at the end takes the line's.
        if scan.last_differs && cells[len - 1].wide_bits().1 != 0 {
            return false;
        }
        let put = if scan.bmp {
            put_pairs_and_chars::<2>
        } else {
            put_pairs_and_chars::<3>
        };
        let Some(units) = put(cells, s) else {
            return false;
        };
        units
    } else {
        let mut at = 0;
        for cell in cells {
            at += put_utf8(char_slot(&mut s.chars, at), cell.code_point());
        }
        s.chars_len = at;
        len
    };
    let width = match (scan.any_pair, scan.bmp) {
        (false, _) => CharWidth::Utf8,
        (true, true) => CharWidth::Two,
        (true, false) => CharWidth::Three,
    };
    s.finish(len, units, scan.any_pair, width);
    let (first, last) = (cells[0].style_bits(), cells[len - 1].style_bits());
    let strip = |(flags, fg, bg): (u16, u32, u32)| (flags & !NOT_STYLE, fg, bg);
    if scan.last_differs {
        put_run(&mut s.runs, units - 1, strip(first));
        put_run(&mut s.runs, 1, strip(last));
    } else {
        put_run(&mut s.runs, units, strip(first));
    }
    true
}

/// The general case of [`encode`]: a unit is a cell, or a wide pair (a cell whose only
/// layout flag is `WIDE`, then a space whose only layout flag is `WIDE_SPACER`, both
/// otherwise alike), which is stored as one character and one bit.
fn encode_units(cells: &[Cell], s: &mut Scratch) {
    let len = cells.len();
    s.pairs[..len.div_ceil(8)].fill(0);
    let mut run_style = Cell::BLANK.style_bits();
    let (mut run_units, mut units, mut at, mut any_pair) = (0, 0, 0, false);
    let mut i = 0;
    while let Some(cell) = cells.get(i) {
        let mut style = cell.style_bits();
        style.0 &= !Flags::EXTRA.bits();
        let mut pair = false;
        if style.0 & WIDE_LAYOUT == WIDE
            && let Some(next) = cells.get(i + 1)
            && next.code_point() == ' ' as u32
            && next.style_bits() == (style.0 ^ WIDE_LAYOUT, style.1, style.2)
        {
            pair = true;
            style.0 ^= WIDE;
        }
        if style != run_style {
            put_run(&mut s.runs, run_units, run_style);
            run_style = style;
            run_units = 0;
        }
        run_units += 1;
        s.pairs[i / 8] |= u8::from(pair) << (i % 8);
        any_pair |= pair;
        at += put_utf8(char_slot(&mut s.chars, at), cell.code_point());
        units += 1;
        i += 1 + usize::from(pair);
    }
    put_run(&mut s.runs, run_units, run_style);
    s.chars_len = at;
    s.finish(len, units, any_pair, CharWidth::Utf8);
}

fn encode_extras(row: &Row, len: usize, out: &mut Vec<u8>) {
    let extras = row.extras();
    let n = extras
        .iter()
        .take_while(|(c, _)| (*c as usize) < len)
        .count();
    put_varint(out, n as u64);
    let mut buf = [0u8; 4];
    for (col, extra) in &extras[..n] {
        put_varint(out, *col as u64);
        put_varint(out, extra.combining.len() as u64);
        for c in &extra.combining {
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
        match extra.hyperlink {
            None => out.push(0),
            Some(id) => {
                out.push(1);
                out.extend_from_slice(&id.to_le_bytes());
            }
        }
        encode_color(extra.underline_color, out);
    }
}

fn decode(r: &mut Reader<'_>, wrapped: bool) -> Row {
    // Every count is bounded by the bytes left, so damaged bytes cannot make decoding
    // allocate or loop without limit (each cell costs at least one byte of characters,
    // each extra at least three).
    let head = r.varint();
    let len = ((head >> 1) as usize).min(r.remaining());
    let (units, width) = if head & 1 == 1 {
        let v = r.varint();
        (((v >> 2) as usize).min(len), CharWidth::from_bits(v))
    } else {
        (len, CharWidth::Utf8)
    };
    let pairs = if head & 1 == 1 {
        let n = len.div_ceil(8).min(r.remaining());
        let all = r.bytes;
        let at = r.pos.min(all.len());
        let end = (at + n).min(all.len());
        r.pos += n;
        &all[at..end]
    } else {
        &[]
    };
    let is_pair = |cell: usize| {
        pairs
            .get(cell / 8)
            .is_some_and(|b| b >> (cell % 8) & 1 == 1)
    };
    // (units, style) runs.
    let mut styles: Vec<(usize, (u16, u32, u32))> = Vec::new();
    let mut covered = 0;
    while covered < units {
        let tag = r.byte();
        let (n, style) = if tag < 0x80 {
            (tag as usize + 1, Cell::BLANK.style_bits())
        } else {
            let n = r.varint() as usize;
            (n, (r.u16(), r.u32(), r.u32()))
        };
        let n = n.min(units - covered);
        styles.push((n, style));
        covered += n.max(1);
    }
    let mut cells = Vec::with_capacity(len);
    for (n, (flags, fg, bg)) in styles {
        for _ in 0..n {
            if cells.len() >= len {
                break;
            }
            let c = r.char_as(width);
            if is_pair(cells.len()) && cells.len() + 2 <= len {
                cells.push(Cell::from_style_bits(flags | WIDE, fg, bg, c));
                cells.push(Cell::from_style_bits(flags | SPACER, fg, bg, ' '));
            } else {
                cells.push(Cell::from_style_bits(flags, fg, bg, c));
            }
        }
    }
    let n_extras = (r.varint() as usize).min(r.remaining());
    let mut extras = Vec::with_capacity(n_extras);
    for _ in 0..n_extras {
        let col = r.varint() as u16;
        let n = (r.varint() as usize).min(r.remaining());
        let combining = (0..n).map(|_| r.char()).collect();
        let hyperlink = if r.byte() == 1 { Some(r.u32()) } else { None };
        let underline_color = decode_color(r);
        extras.push((
            col,
            CellExtra {
                combining,
                hyperlink,
                underline_color,
            },
        ));
    }
    for (col, _) in &extras {
        if let Some(cell) = cells.get_mut(*col as usize) {
            cell.insert_flags(Flags::EXTRA);
        }
    }
    Row::from_parts(cells, extras, wrapped)
}

/// Decodes one line from bytes in the scrollback's line encoding. Scrollback only ever
/// decodes what it encoded; this entry exists so that fuzzing can check that damaged
/// bytes decode to *some* row, bounded by their length, without panicking.
pub fn decode_line(bytes: &[u8], wrapped: bool) -> Row {
    decode(&mut Reader { bytes, pos: 0 }, wrapped)
}

/// Length of `cells` without its trailing default blanks, found 16 cells at a time.
#[inline(always)]
fn used_len(cells: &[Cell]) -> usize {
    // A full row, the common case in a stream of long lines.
    if cells.last().is_some_and(|c| c.blank_diff() != 0) {
        return cells.len();
    }
    let blank = Cell::BLANK.to_words();
    let mut len = cells.len();
    for chunk in cells.rchunks(16) {
        if fold_words(chunk, blank, Cell::ALL_BUT_DRAWN, [0; 3]).0 != [0; 3] {
            let blanks = chunk
                .iter()
                .rev()
                .take_while(|c| c.blank_diff() == 0)
                .count();
            return len - blanks;
        }
        len -= chunk.len();
    }
    0
}

impl Scrollback {
    pub fn new(max_lines: usize, max_bytes: usize) -> Scrollback {
        Scrollback {
            index: VecDeque::new(),
            blocks: VecDeque::new(),
            first_block: 0,
            used: 0,
            spare: None,
            max_lines,
            max_bytes,
            dropped: 0,
            scratch: Scratch::default(),
            fresh: VecDeque::new(),
            fresh_cells: 0,
            fresh_spare: Vec::new(),
            spare_cells: 0,
            fresh_heap: 0,
            eager: false,
        }
    }

    /// Lines kept, encoded or not.
    pub fn len(&self) -> usize {
        self.index.len() + self.fresh.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held: the encoded lines plus the index (lines not yet encoded count once
    /// they are, [`Scrollback::unsettled`]).
    pub fn bytes(&self) -> usize {
        self.used + self.index.len() * ENTRY_BYTES
    }

    /// Lines pushed and not yet encoded.
    pub fn unsettled(&self) -> usize {
        self.fresh.len()
    }

    /// Encodes lines as they are pushed (`true`: the queue is encoded first), or lets
    /// them wait again.
    pub fn set_eager(&mut self, eager: bool) {
        if eager {
            self.settle();
        }
        self.eager = eager;
    }

    pub fn is_eager(&self) -> bool {
        self.eager
    }

    /// Encodes up to `lines` of the lines not yet encoded, oldest first (dropping the
    /// oldest lines over the byte cap as each is encoded, as pushing did before
    /// encoding was deferred); returns whether some remain.
    pub fn settle_some(&mut self, lines: usize) -> bool {
        for _ in 0..lines {
            let Some(line) = self.fresh.pop_front() else {
                break;
            };
            self.fresh_cells -= line.row.cells.len();
            self.append_encoded(&line.row, line.len);
            while self.bytes() > self.max_bytes && self.index.len() > 1 {
                self.pop_oldest();
            }
            // Kept for reuse up to as many cells as the queue holds, so that the next
            // burst takes back a row for each it hands over instead of allocating one
            // (and freeing it when it is encoded).
            let cells = line.row.cells.len();
            if self.spare_cells + cells <= FRESH_CELLS {
                self.spare_cells += cells;
                self.fresh_spare.push(line);
            } else {
                self.fresh_heap -= line.heap_bytes();
            }
        }
        !self.fresh.is_empty()
    }

    /// Encodes every line not yet encoded.
    pub fn settle(&mut self) {
        self.settle_some(usize::MAX);
    }

    /// Prefetches the cells the next scroll rewrites in the spare row it takes back
    /// (its used part, which [`Row::reset_used`] blanks).
    fn prefetch_spare(&self) {
        if let Some(next) = self.fresh_spare.last() {
            let used = next.len.min(next.row.cells.len());
            super::prefetch::prefetch_cells(&next.row.cells[..used]);
        }
    }

    /// A spare row to reuse, no longer counted in `fresh_heap`.
    fn take_spare(&mut self) -> Option<FreshLine> {
        let line = self.fresh_spare.pop()?;
        self.spare_cells -= line.row.cells.len();
        self.fresh_heap -= line.heap_bytes();
        Some(line)
    }

    /// Bytes reserved (capacity), for memory reports.
    pub fn heap_bytes(&self) -> usize {
        self.blocks
            .iter()
            .chain(self.spare.iter())
            .map(|b| b.bytes.capacity())
            .sum::<usize>()
            + self.index.capacity() * ENTRY_BYTES
            + self.scratch.heap_bytes()
            + self.fresh_heap
    }

    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    pub fn max_lines(&self) -> usize {
        self.max_lines
    }

    fn line_bytes(&self, entry: &LineEntry) -> &[u8] {
        let block = &self.blocks[(entry.block - self.first_block) as usize];
        &block.bytes[entry.start as usize..(entry.start + entry.len) as usize]
    }

    /// Line `i` (0 = oldest kept), decoded.
    pub fn row(&self, i: usize) -> Option<Row> {
        let Some(entry) = self.index.get(i) else {
            // Not encoded yet: what its encoding would decode to.
            let line = self.fresh.get(i - self.index.len())?;
            let mut scratch = Scratch::default();
            encode(&line.row, line.len, &mut scratch);
            let mut bytes = Vec::with_capacity(scratch.len());
            scratch.append_to(&mut bytes);
            return Some(decode(
                &mut Reader {
                    bytes: &bytes,
                    pos: 0,
                },
                line.row.wrapped,
            ));
        };
        Some(decode(
            &mut Reader {
                bytes: self.line_bytes(entry),
                pos: 0,
            },
            entry.wrapped,
        ))
    }

    /// All lines, oldest first, decoded one at a time.
    pub fn iter(&self) -> impl Iterator<Item = Row> + '_ {
        (0..self.len()).filter_map(|i| self.row(i))
    }

    /// Appends `row` without its trailing default blanks, then drops the oldest lines
    /// over the caps. Returns the length kept (every cell from there on is a default
    /// blank).
    pub fn push(&mut self, row: &Row) -> usize {
        let len = used_len(&row.cells);
        if self.took_at_once(row, len) {
            return len;
        }
        let mut line = self.take_spare().unwrap_or(FreshLine {
            row: Row::default(),
            len: 0,
        });
        line.row.copy_used_from(row, len);
        line.len = len;
        self.queue_fresh(line);
        len
    }

    /// [`Scrollback::push`] of a row the caller gives up (the grid's row scrolled off):
    /// it waits to be encoded as it is, no copy. Returns a row for the caller to reuse
    /// and how many of its first cells may not be default blanks (the rest are).
    pub fn push_row(&mut self, row: Row) -> (Row, usize) {
        let len = used_len(&row.cells);
        if self.took_at_once(&row, len) {
            return (row, len);
        }
        let spare = self.take_spare();
        // The next scroll's row loads while this one is written.
        self.prefetch_spare();
        let cols = row.cells.len();
        self.queue_fresh(FreshLine { row, len });
        match spare {
            Some(line) => (line.row, line.len),
            None => (Row::blank(cols, Color::Default), 0),
        }
    }

    /// Takes a pushed line at once, without the queue, where nothing is kept (it is
    /// dropped) or encoding is eager (it is encoded); returns whether it did.
    #[inline(always)]
    fn took_at_once(&mut self, row: &Row, len: usize) -> bool {
        if self.max_lines == 0 {
            self.dropped += 1;
        } else if self.eager {
            self.append_line(row, len);
        } else {
            return false;
        }
        true
    }

    fn queue_fresh(&mut self, line: FreshLine) {
        self.fresh_cells += line.row.cells.len();
        self.fresh_heap += line.heap_bytes();
        self.fresh.push_back(line);
        while self.len() > self.max_lines {
            if self.index.is_empty() {
                if let Some(old) = self.fresh.pop_front() {
                    self.fresh_cells -= old.row.cells.len();
                    self.fresh_heap -= old.heap_bytes();
                    self.dropped += 1;
                }
            } else {
                self.pop_oldest();
            }
        }
        if self.fresh_cells > FRESH_CELLS {
            self.set_eager(true);
        }
    }

    /// Encodes a line at once and drops the oldest over the caps (the queue is empty).
    #[inline(always)]
    fn append_line(&mut self, row: &Row, len: usize) {
        self.append_encoded(row, len);
        while self.index.len() > self.max_lines
            || (self.bytes() > self.max_bytes && self.index.len() > 1)
        {
            self.pop_oldest();
        }
    }

    /// Encodes `row`'s first `len` cells at the end of the newest block.
    #[inline(always)]
    fn append_encoded(&mut self, row: &Row, len: usize) {
        encode(row, len, &mut self.scratch);
        let line_len = self.scratch.len();
        let fits = self
            .blocks
            .back()
            .is_some_and(|b| b.bytes.len() + line_len <= b.bytes.capacity());
        if !fits {
            let mut block = self.spare.take().unwrap_or_default();
            block.bytes.clear();
            block.bytes.reserve_exact(BLOCK_BYTES.max(line_len));
            block.live_lines = 0;
            self.blocks.push_back(block);
        }
        let block_no = self.first_block + self.blocks.len() as u64 - 1;
        if let Some(block) = self.blocks.back_mut() {
            let start = block.bytes.len() as u32;
            self.scratch.append_to(&mut block.bytes);
            block.live_lines += 1;
            self.index.push_back(LineEntry {
                block: block_no,
                start,
                len: line_len as u32,
                wrapped: row.wrapped,
            });
        }
        self.used += line_len;
    }

    fn pop_oldest(&mut self) {
        let Some(entry) = self.index.pop_front() else {
            return;
        };
        self.used -= entry.len as usize;
        self.dropped += 1;
        let idx = (entry.block - self.first_block) as usize;
        if let Some(block) = self.blocks.get_mut(idx) {
            block.live_lines -= 1;
        }
        // Recycle empty blocks at the front (never the one being written).
        while self.blocks.len() > 1 && self.blocks.front().is_some_and(|b| b.live_lines == 0) {
            if let Some(block) = self.blocks.pop_front() {
                self.first_block += 1;
                if block.bytes.capacity() == BLOCK_BYTES {
                    self.spare = Some(block);
                }
            }
        }
    }

    /// Drops the oldest lines until at most `max_bytes` are held (the pipeline's
    /// budget for all panes uses this). Returns the bytes freed.
    pub fn trim_to_bytes(&mut self, max_bytes: usize) -> usize {
        self.settle();
        let before = self.bytes();
        while self.bytes() > max_bytes && !self.index.is_empty() {
            self.pop_oldest();
        }
        before - self.bytes()
    }

    /// Removes and returns the newest line.
    pub fn pop_newest(&mut self) -> Option<Row> {
        self.settle();
        let row = self.row(self.len().checked_sub(1)?)?;
        if let Some(entry) = self.index.pop_back() {
            self.used -= entry.len as usize;
            let idx = (entry.block - self.first_block) as usize;
            if let Some(block) = self.blocks.get_mut(idx) {
                block.bytes.truncate(entry.start as usize);
                block.live_lines -= 1;
                if block.live_lines == 0 && idx + 1 == self.blocks.len() {
                    self.blocks.pop_back();
                }
            }
        }
        Some(row)
    }

    /// Takes every line out (oldest first), leaving the scrollback empty.
    pub fn take_all(&mut self) -> Vec<Row> {
        self.settle();
        let rows: Vec<Row> = self.iter().collect();
        self.reset_storage();
        rows
    }

    pub fn clear(&mut self) {
        self.dropped += self.len() as u64;
        self.reset_storage();
        self.blocks.shrink_to_fit();
        self.index.shrink_to_fit();
        self.spare = None;
        self.fresh_spare = Vec::new();
        self.spare_cells = 0;
        self.fresh_heap = 0;
    }

    fn reset_storage(&mut self) {
        self.first_block += self.blocks.len() as u64;
        self.blocks.clear();
        self.index.clear();
        self.used = 0;
        self.fresh.clear();
        self.fresh_cells = 0;
        self.fresh_heap = self.fresh_spare.iter().map(FreshLine::heap_bytes).sum();
    }
}

#[cfg(test)]
mod tests;
