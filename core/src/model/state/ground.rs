//! The ground-state fast path: while vte would be in its ground state, the model reads
//! the bytes itself instead of going through vte's per-character callbacks.
//!
//! ```text
//!   bytes ──▶ printable ASCII run ───────────▶ State::print_ascii_run (a slice, no copy)
//!         ├─▶ C0 control (not ESC) ──────────▶ perform::execute
//!         ├─▶ text with UTF-8 (valid) ───────▶ State::print_utf8 (decodes, classifies
//!         │                                    widths and writes cells in one pass;
//!         │                                    the hook for grapheme clustering)
//!         ├─▶ ESC [ digits/';' final m, H, f, K ─▶ sgr_groups / goto / erase_in_line
//!         └─▶ anything else (other escapes, invalid UTF-8, a sequence cut by the end of
//!             the input) ──▶ handed to vte, which keeps it until a dispatch returns it
//!             to ground (`Performer::back_to_ground`)
//! ```
//!
//! Every byte this path takes is one vte would have dispatched in exactly the same way
//! from ground, so the result is the same as with vte alone (the differential tests
//! check both paths against each other on random input).

use super::State;
use super::{perform, sgr};

/// Most parameters the fast path parses in one CSI; longer sequences go to vte.
const MAX_FAST_PARAMS: usize = 16;
/// Most digits per parameter (so no value can overflow `u16`); longer go to vte.
const MAX_FAST_DIGITS: usize = 4;

/// Handles as much of `bytes` as the fast path can, starting in ground; returns how many
/// bytes it took. The byte at the returned offset (if any) must go to vte.
pub(in crate::model) fn advance(st: &mut State, bytes: &[u8]) -> usize {
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            0x20..=0x7e => {
                let end = i + printable_ascii_len(&bytes[i..]);
                st.print_ascii_run(&bytes[i..end]);
                i = end;
            }
            0x1b => match csi(st, &bytes[i..]) {
                Some(n) => i += n,
                None => return i,
            },
            0x00..=0x1f => {
                perform::execute(st, b);
                i += 1;
            }
            // DEL prints nothing (vte hands it to `print`, which has no width for it).
            0x7f => i += 1,
            _ => {
                // Text with UTF-8 in it, decoded and written in one pass up to the next
                // control or invalid byte. C1 controls (U+0080..U+009F) are not acted on
                // in a UTF-8 stream (see `perform::execute`); `print` drops them.
                let took = st.print_utf8(&bytes[i..]);
                if took == 0 {
                    return i;
                }
                i += took;
            }
        }
    }
    i
}

/// Length of the run of printable ASCII (`0x20..=0x7e`) at the start of `bytes`, eight
/// bytes at a time.
#[inline]
pub(crate) fn printable_ascii_len(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        // Whether any byte is outside the range: its high bit is set, or it is below
        // 0x20, or it is 0x7f (the classic "has less than" and "has zero byte" tests,
        // exact for "any"; the scalar scan below then finds which).
        let below = w.wrapping_sub(0x20 * ONES) & !w;
        let x = w ^ (0x7f * ONES);
        let is_del = x.wrapping_sub(ONES) & !x;
        if (w | below | is_del) & HIGH != 0 {
            break;
        }
        i += 8;
    }
    i + bytes[i..]
        .iter()
        .position(|b| !(0x20..=0x7e).contains(b))
        .unwrap_or(bytes.len() - i)
}

/// Parses and applies `ESC [ params final` at the start of `bytes` when it is one of the
/// plain forms the fast path knows (parameters of digits and `;` only, final `m`, `H`,
/// `f` or `K`); returns its length, or `None` to leave it to vte.
#[inline]
fn csi(st: &mut State, bytes: &[u8]) -> Option<usize> {
    if bytes.get(1) != Some(&b'[') {
        return None;
    }
    let mut values = [0u16; MAX_FAST_PARAMS];
    let mut count = 0;
    let mut digits = 0;
    let mut i = 2;
    let action = loop {
        let b = *bytes.get(i)?;
        i += 1;
        match b {
            b'0'..=b'9' => {
                digits += 1;
                if digits > MAX_FAST_DIGITS {
                    return None;
                }
                values[count] = values[count] * 10 + u16::from(b - b'0');
            }
            b';' => {
                count += 1;
                digits = 0;
                if count == MAX_FAST_PARAMS {
                    return None;
                }
            }
            b'm' | b'H' | b'f' | b'K' => break b,
            _ => return None,
        }
    };
    // vte always pushes the parameter in progress at the final byte.
    let values = &values[..count + 1];
    let or_one = |v: u16| usize::from(v.max(1));
    // As in `csi_dispatch`: a CSI ends what REP may repeat.
    st.last_printed = None;
    match action {
        b'm' => sgr::sgr_groups(st, &sgr::Singles(values)),
        b'H' | b'f' => {
            let col = values.get(1).copied().unwrap_or(0);
            st.goto(or_one(values[0]) - 1, or_one(col) - 1);
        }
        _ => st.erase_in_line(values[0]),
    }
    Some(i)
}
