//! Encoding a row into the scrollback's line format (`format.rs`): one pass over the
//! cells, the one-style fast path first, into reusable buffers (pushing allocates
//! nothing).

use crate::model::cell::{Cell, Color, Flags};
use crate::model::row::Row;

use super::format::{CharWidth, NOT_STYLE, SPACER, TAG_STYLED, WIDE, WIDE_LAYOUT};

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

/// Reusable buffers for encoding one line (kept so that pushing allocates nothing). The
/// loops write `chars` and `pairs` by index into buffers kept at least as long as the
/// longest line needs, and record how much of each they used.
#[derive(Clone, Debug, Default)]
pub(super) struct Scratch {
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
    pub(super) fn start(&mut self, len: usize) {
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
    pub(super) fn len(&self) -> usize {
        self.head.len() + self.pairs_len + self.runs.len() + self.chars_len + self.extras.len()
    }
    pub(super) fn append_to(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.head);
        // Most lines have no pairs: no `memcpy` call for nothing.
        if self.pairs_len > 0 {
            out.extend_from_slice(&self.pairs[..self.pairs_len]);
        }
        out.extend_from_slice(&self.runs);
        out.extend_from_slice(&self.chars[..self.chars_len]);
        out.extend_from_slice(&self.extras);
    }
    pub(super) fn heap_bytes(&self) -> usize {
        self.head.capacity()
            + self.pairs.capacity()
            + self.runs.capacity()
            + self.chars.capacity()
            + self.extras.capacity()
    }
    /// Writes the header for `len` cells in `units` units, and keeps the pair bits when
    /// there is a pair (the characters then written as `chars`; without a pair they are
    /// UTF-8).
    pub(super) fn finish(&mut self, len: usize, units: usize, any_pair: bool, chars: CharWidth) {
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
pub(super) fn encode(row: &Row, len: usize, s: &mut Scratch) {
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

/// Length of `cells` without its trailing default blanks, found 16 cells at a time.
#[inline(always)]
pub(super) fn used_len(cells: &[Cell]) -> usize {
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
