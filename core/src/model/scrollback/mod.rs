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
//! Each line is stored in the format described in `format.rs`, written by `encode.rs`
//! and read by `decode.rs`; this file keeps the ring, the caps and the lines that wait
//! to be encoded.

use std::collections::VecDeque;

use super::cell::Color;
use super::row::Row;

mod decode;
mod encode;
mod format;

pub use decode::decode_line;
use decode::{Reader, decode};
use encode::{Scratch, encode, used_len};

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

/// Lines of a scrollback as stored (encoded), owned: read on another thread.
#[derive(Clone, Debug, Default)]
pub struct LineCopy {
    bytes: Vec<u8>,
    /// Per line: start in `bytes`, length, wrapped.
    lines: Vec<(u32, u32, bool)>,
}

impl LineCopy {
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Line `i` of the copy, decoded.
    pub fn row(&self, i: usize) -> Option<Row> {
        let &(start, len, wrapped) = self.lines.get(i)?;
        let bytes = self.bytes.get(start as usize..(start + len) as usize)?;
        Some(decode_line(bytes, wrapped))
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity() + self.lines.capacity() * std::mem::size_of::<(u32, u32, bool)>()
    }
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

    /// Copies lines `from..to` (0 = oldest kept) as they are stored, for another
    /// thread to decode ([`LineCopy::row`]): a copy of their encoded bytes, which costs
    /// a fraction of decoding them (lines not encoded yet are encoded into the copy).
    pub fn copy_lines(&self, from: usize, to: usize) -> LineCopy {
        let to = to.min(self.len());
        let mut copy = LineCopy::default();
        let mut scratch = Scratch::default();
        for i in from..to {
            let start = copy.bytes.len() as u32;
            let wrapped = match self.index.get(i) {
                Some(entry) => {
                    copy.bytes.extend_from_slice(self.line_bytes(entry));
                    entry.wrapped
                }
                None => {
                    let Some(line) = self.fresh.get(i - self.index.len()) else {
                        break;
                    };
                    encode(&line.row, line.len, &mut scratch);
                    scratch.append_to(&mut copy.bytes);
                    line.row.wrapped
                }
            };
            let len = copy.bytes.len() as u32 - start;
            copy.lines.push((start, len, wrapped));
        }
        copy
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
