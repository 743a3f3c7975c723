//! Places where tern deliberately behaves differently from alacritty, and the means for the
//! stream generator to steer around them.
//!
//! Every entry of [`KNOWN_DIFFERENCES`] has a predicate over the item about to be
//! generated and the state of the reference emulator at that point ([`Situation`]). The
//! generator keeps a [`Tracker`] (an [`Oracle`] fed with the stream so far) and drops any
//! item a known difference applies to, so that the fuzzer only reports new differences.
//! The minimiser uses the same check, so shrinking never walks into a known difference.

use crate::oracle::Oracle;
use crate::streams::{Construct, Item};

/// One intentional difference from the reference emulator.
#[derive(Clone, Copy, Debug)]
pub struct KnownDifference {
    /// A short name for reports.
    pub name: &'static str,
    /// What alacritty does, what tern does, and why tern's behaviour is the one we want.
    pub reason: &'static str,
    /// Whether feeding `item` in this situation would show the difference.
    pub applies: fn(&Item, &Situation<'_>) -> bool,
}

/// Intentional differences from alacritty. Start of each reason: alacritty's behaviour;
/// then tern's (xterm's) behaviour.
pub const KNOWN_DIFFERENCES: &[KnownDifference] = &[
    KnownDifference {
        name: "sgr-blink",
        reason: "alacritty does not implement blinking text and drops SGR 5 and 6; tern keeps \
                 the attribute (the renderer decides how to show it).",
        applies: |item, _| sgr_flag_params(item).any(|p| p == "5" || p == "6"),
    },
    KnownDifference {
        name: "sgr-21-double-underline",
        reason: "alacritty reads SGR 21 as \"bold off\"; ECMA-48, xterm and tern read it as \
                 double underline.",
        applies: |item, _| sgr_flag_params(item).any(|p| p == "21"),
    },
    KnownDifference {
        name: "lnm-line-feed",
        reason: "alacritty ignores LNM for LF, VT and FF (only its NEL path looks at it); xterm \
                 and tern return to the first column after them while LNM is set.",
        applies: |item, s| {
            s.oracle.newline_mode() && item.bytes.iter().any(|b| matches!(b, b'\n' | 0x0b | 0x0c))
        },
    },
    KnownDifference {
        name: "decom-reset-homes",
        reason: "alacritty leaves the cursor where it is when origin mode is switched off; \
                 xterm (and tern) home the cursor on both DECSET and DECRST 6.",
        applies: |item, s| {
            csi(item) == Some(("?6", 'l'))
                && (s.oracle.cursor() != (0, 0) || s.oracle.pending_wrap())
        },
    },
    KnownDifference {
        name: "decrc-restores-decom",
        reason: "alacritty's DECSC/DECRC (and 1049 h/l) do not save and restore origin mode; \
                 DEC terminals, xterm and tern do.",
        applies: |item, s| match item.bytes.as_slice() {
            b"\x1b8" | b"\x1b[u" => s.oracle.origin_mode() != s.saved_origin,
            b"\x1b[?1049l" => {
                s.oracle.alt_screen() && s.oracle.origin_mode() != s.saved_origin_main
            }
            _ => false,
        },
    },
    KnownDifference {
        name: "decrc-restores-shift-state",
        reason: "alacritty's DECSC/DECRC (and 1049 h/l) keep the SO/SI shift state out of the \
                 saved cursor; DEC terminals, xterm and tern save and restore it with the \
                 character sets.",
        applies: |item, s| match item.bytes.as_slice() {
            b"\x1b8" | b"\x1b[u" => s.shifted != s.saved_shifted,
            b"\x1b[?1049l" => s.oracle.alt_screen() && s.shifted != s.saved_shifted_main,
            _ => false,
        },
    },
    KnownDifference {
        name: "dch-past-margin",
        reason: "alacritty's DCH with a count past the right margin also blanks cells left of \
                 the cursor (it clears the last `count` columns of the row); xterm and tern \
                 only clear from the cursor to the margin.",
        applies: |item, s| match csi(item) {
            Some((params, 'P')) => {
                let (cols, _) = s.oracle.size();
                first_param(params, 1) > cols - s.oracle.cursor().1
            }
            _ => false,
        },
    },
    KnownDifference {
        name: "el-at-pending-wrap",
        reason: "alacritty ignores EL 0 while a wrap is pending, keeping the character in the \
                 last column; xterm and tern erase from the cursor (the last column) on.",
        applies: |item, s| match csi(item) {
            Some((params, 'K')) => first_param(params, 0) == 0 && s.oracle.pending_wrap(),
            _ => false,
        },
    },
    KnownDifference {
        name: "pending-wrap-cancelled",
        reason: "alacritty keeps a pending wrap through LF, VT, FF, IND, RI, ICH, DCH, ECH, \
                 EL, ED, IL and DL, so the next character starts the line after; xterm (379, \
                 measured) and tern cancel it: after a full line, LF then a character writes \
                 it in the last column of the next line, and after ICH, DCH, ECH, EL or ED \
                 in the last column of the same line.",
        applies: |item, s| {
            if !s.oracle.pending_wrap() {
                return false;
            }
            // LF, VT and FF also execute inside an interrupted sequence.
            item.bytes.iter().any(|b| matches!(b, b'\n' | 0x0b | 0x0c))
                || matches!(item.bytes.as_slice(), b"\x1bD" | b"\x1bM")
                || matches!(
                    csi(item),
                    Some((_, '@' | 'P' | 'X' | 'K' | 'J' | 'L' | 'M'))
                )
        },
    },
    KnownDifference {
        name: "il-dl-home-column",
        reason: "IL and DL move the cursor to the left margin on DEC terminals and in xterm \
                 (and tern) when they act (cursor inside the scroll region); alacritty leaves \
                 the column alone.",
        applies: |item, s| {
            let row = s.oracle.cursor().0;
            matches!(csi(item), Some((_, 'L' | 'M')))
                && row >= s.region.0
                && row <= s.region.1
                && s.oracle.cursor().1 != 0
        },
    },
    KnownDifference {
        name: "ed-above-from-row-1",
        reason: "alacritty's ED 1 with the cursor on the second row leaves the first row \
                 (it only clears whole rows above when the cursor row is > 1); xterm and \
                 tern clear it.",
        applies: |item, s| match csi(item) {
            Some((params, 'J')) => first_param(params, 0) == 1 && s.oracle.cursor().0 == 1,
            _ => false,
        },
    },
    KnownDifference {
        name: "relative-moves-in-origin-mode",
        reason: "in origin mode alacritty adds the top margin twice for CUU, CUD, CNL, CPL, \
                 CHA, VPR and HPA (it passes the absolute row to its origin-relative goto); \
                 xterm and tern move relative to the cursor.",
        applies: |item, s| {
            matches!(
                csi(item),
                Some((_, 'A' | 'B' | 'E' | 'F' | 'G' | 'e' | '`'))
            ) && s.oracle.origin_mode()
                && s.region.0 > 0
        },
    },
    KnownDifference {
        name: "vertical-moves-stop-at-margins",
        reason: "alacritty's CUU, CUD, CNL, CPL and VPR only stop at the screen edges; xterm \
                 and tern stop at the top (bottom) margin when the cursor starts inside the \
                 scroll region.",
        applies: |item, s| {
            let Some((params, action)) = csi(item) else {
                return false;
            };
            let (row, count) = (s.oracle.cursor().0, first_param(params, 1));
            let (top, bottom) = s.region;
            match action {
                'A' | 'F' => row >= top && row < top.saturating_add(count) && top > 0,
                'B' | 'E' | 'e' => {
                    let last = s.oracle.size().1.saturating_sub(1);
                    row <= bottom && row.saturating_add(count) > bottom && bottom < last
                }
                _ => false,
            }
        },
    },
    KnownDifference {
        name: "cpr-in-origin-mode",
        reason: "alacritty reports the absolute cursor row to DSR 6 in origin mode; xterm and \
                 tern report it relative to the top margin.",
        applies: |item, s| {
            csi(item) == Some(("6", 'n')) && s.oracle.origin_mode() && s.region.0 > 0
        },
    },
    KnownDifference {
        name: "tab-at-pending-wrap",
        reason: "alacritty treats HT with a wrap pending as a line break; xterm and tern keep \
                 the cursor in the last column.",
        applies: |item, s| {
            // HT also executes inside an interrupted sequence.
            (item.construct == Construct::Tab || item.bytes.contains(&b'\t'))
                && s.oracle.pending_wrap()
        },
    },
    KnownDifference {
        name: "cbt-without-stop",
        reason: "alacritty's CBT stops at the leftmost tab stop, or does not move at all, when \
                 it runs out of tab stops; xterm and tern go on to the first column.",
        applies: |item, s| match csi(item) {
            Some((params, 'Z')) => {
                let col = s.oracle.cursor().1;
                let stops = s.tab_stops.iter().take(col).filter(|&&stop| stop).count();
                col > 0
                    && stops < first_param(params, 1)
                    && !s.tab_stops.first().copied().unwrap_or(false)
            }
            _ => false,
        },
    },
    KnownDifference {
        name: "decaln-homes",
        reason: "alacritty's DECALN fills the screen but leaves the cursor and the margins \
                 alone; DEC terminals, xterm and tern also reset the margins and home the \
                 cursor.",
        applies: |item, s| {
            item.construct == Construct::Decaln
                && (s.oracle.cursor() != (0, 0)
                    || s.oracle.pending_wrap()
                    || s.has_region()
                    || s.oracle.origin_mode())
        },
    },
    KnownDifference {
        name: "ich-wide-at-margin",
        reason: "alacritty's ICH can push a wide character half past the right margin and \
                 leaves its first half in the last column, which a later write there turns \
                 into blanking the cell before; xterm and tern erase the split character.",
        applies: |item, s| {
            matches!(csi(item), Some((_, '@'))) && s.oracle.row_has_wide(s.oracle.cursor().0)
        },
    },
    KnownDifference {
        name: "irm-wide-at-margin",
        reason: "in insert mode alacritty rotates the cells pushed off the right margin back \
                 under the cursor, and when that is half of a wide character it blanks the \
                 character left of the cursor; xterm and tern drop the pushed-off cells.",
        applies: |item, s| {
            if !s.oracle.insert_mode() || !prints(item) {
                return false;
            }
            // The rows the item's characters can reach: a few, or as many as a long REP
            // wraps through (it stays on the last row once it gets there).
            let (cols, rows) = s.oracle.size();
            let rep = item.bytes.iter().position(|&b| b == 0x1b);
            let chars = match rep.and_then(|at| csi_of(&item.bytes[at..])) {
                Some((params, 'b')) => first_param(params, 1).saturating_add(1),
                _ => item.bytes.len(),
            };
            let row = s.oracle.cursor().0;
            let reach = (chars / cols.max(1)).saturating_add(2).max(4);
            item.bytes.iter().any(|&b| b >= 0x80)
                || (row..row.saturating_add(reach).min(rows)).any(|r| s.oracle.row_has_wide(r))
        },
    },
];

/// The reference emulator's state before an item, plus what the tracker records itself.
pub struct Situation<'a> {
    pub oracle: &'a Oracle,
    /// DECOM as the last DECSC (or entering the alternate screen) on the current screen
    /// saved it.
    pub saved_origin: bool,
    /// DECOM as saved on entering the alternate screen, restored on leaving it.
    pub saved_origin_main: bool,
    /// The scroll region (DECSTBM) as 0-based, inclusive `(top, bottom)` rows.
    pub region: (usize, usize),
    /// The tab stops, one flag per column.
    pub tab_stops: &'a [bool],
    /// Whether SO has shifted G1 into GL (SI shifts G0 back).
    pub shifted: bool,
    /// The shift state as the last DECSC (or entering the alternate screen) on the current
    /// screen saved it.
    pub saved_shifted: bool,
    /// The shift state as saved on entering the alternate screen.
    pub saved_shifted_main: bool,
}

impl Situation<'_> {
    /// Whether the scroll region is smaller than the screen.
    pub fn has_region(&self) -> bool {
        self.region != (0, self.oracle.size().1.saturating_sub(1))
    }
}

/// Follows a stream item by item in the reference emulator to decide whether a known
/// difference applies to the next item.
///
/// An item may end in the middle of a UTF-8 sequence (`\xc3`, say). The parser then
/// holds those bytes back, and the next item's first byte decides: a continuation byte
/// goes on with the sequence, anything else cuts it off and prints one U+FFFD *before*
/// that item acts. So the state an item meets is not the state after the previous
/// item: [`Tracker::hit`] judges such an item against a copy of the emulator in which
/// the U+FFFD has been printed (the cursor has moved, a wrap may be pending).
pub struct Tracker {
    oracle: Oracle,
    /// Every byte fed so far, to build that copy from.
    fed: Vec<u8>,
    /// The copy with the cut-off sequence printed as U+FFFD, once built (cleared by
    /// [`Tracker::advance`]).
    settled: Option<Oracle>,
    /// Saved DECOM per screen: `[main, alternate]`.
    saved_origin: [bool; 2],
    /// See [`Situation::region`].
    region: (usize, usize),
    /// See [`Situation::tab_stops`].
    tab_stops: Vec<bool>,
    /// See [`Situation::shifted`].
    shifted: bool,
    /// Saved shift state per screen: `[main, alternate]`.
    saved_shifted: [bool; 2],
}

impl Tracker {
    pub fn new(cols: usize, rows: usize) -> Tracker {
        Tracker {
            oracle: Oracle::new(cols, rows),
            fed: Vec::new(),
            settled: None,
            saved_origin: [false; 2],
            region: (0, rows.saturating_sub(1)),
            // Every eighth column, the first included, as alacritty starts.
            tab_stops: (0..cols).map(|col| col % 8 == 0).collect(),
            shifted: false,
            saved_shifted: [false; 2],
        }
    }

    /// The first known difference feeding `item` next would show.
    pub fn hit(&mut self, item: &Item) -> Option<&'static KnownDifference> {
        let cuts_off = item.bytes.first().is_some_and(|&b| !is_continuation(b));
        let pending = incomplete_utf8_len(&self.fed);
        let oracle = if cuts_off && pending > 0 {
            let (cols, rows) = self.oracle.size();
            let fed = &self.fed[..self.fed.len() - pending];
            self.settled.get_or_insert_with(|| {
                let mut settled = Oracle::new(cols, rows);
                settled.advance(fed);
                settled.advance("\u{fffd}".as_bytes());
                settled
            })
        } else {
            &self.oracle
        };
        let situation = Situation {
            oracle,
            saved_origin: self.saved_origin[usize::from(self.oracle.alt_screen())],
            saved_origin_main: self.saved_origin[0],
            region: self.region,
            tab_stops: &self.tab_stops,
            shifted: self.shifted,
            saved_shifted: self.saved_shifted[usize::from(self.oracle.alt_screen())],
            saved_shifted_main: self.saved_shifted[0],
        };
        KNOWN_DIFFERENCES
            .iter()
            .find(|known| (known.applies)(item, &situation))
    }

    /// Feeds `item`.
    pub fn advance(&mut self, item: &Item) {
        let screen = usize::from(self.oracle.alt_screen());
        let origin = self.oracle.origin_mode();
        let col = self.oracle.cursor().1;
        match item.bytes.as_slice() {
            b"\x1b7" | b"\x1b[s" => {
                self.saved_origin[screen] = origin;
                self.saved_shifted[screen] = self.shifted;
            }
            b"\x1b[?1049h" if screen == 0 => {
                self.saved_origin[0] = origin;
                self.saved_shifted[0] = self.shifted;
            }
            b"\x1bH" => self.set_tab_stop(col, true),
            b"\x1b[g" | b"\x1b[0g" => self.set_tab_stop(col, false),
            b"\x1b[3g" => self.tab_stops.fill(false),
            b"\x1bc" => {
                let (cols, rows) = self.oracle.size();
                *self = Tracker {
                    oracle: std::mem::replace(&mut self.oracle, Oracle::new(1, 1)),
                    fed: std::mem::take(&mut self.fed),
                    ..Tracker::new(cols, rows)
                };
            }
            _ => {}
        }
        // SO and SI only occur on their own, never inside another sequence.
        if let Some(&last) = item.bytes.iter().rev().find(|&&b| b == 0x0e || b == 0x0f) {
            self.shifted = last == 0x0e;
        }
        if let Some((params, 'r')) = csi(item) {
            // DECSTBM as alacritty (and xterm) take it: an omitted or 0 bottom and one past
            // the screen mean the last row; a region of less than two rows is ignored.
            let rows = self.oracle.size().1;
            let top = first_param(params, 1);
            let bottom = match params.split(';').nth(1).map(|p| p.parse::<usize>()) {
                Some(Ok(bottom)) if bottom != 0 => bottom.min(rows),
                _ => rows,
            };
            if top < bottom {
                self.region = (top - 1, bottom - 1);
            }
        }
        self.oracle.advance(&item.bytes);
        self.fed.extend_from_slice(&item.bytes);
        self.settled = None;
    }

    fn set_tab_stop(&mut self, col: usize, on: bool) {
        if let Some(stop) = self.tab_stops.get_mut(col) {
            *stop = on;
        }
    }
}

/// Whether `byte` can only continue a UTF-8 sequence.
fn is_continuation(byte: u8) -> bool {
    byte & 0xc0 == 0x80
}

/// How many bytes at the end of `bytes` are the start of a UTF-8 sequence still waiting
/// for its continuation bytes (0 when the last sequence is complete or invalid).
fn incomplete_utf8_len(bytes: &[u8]) -> usize {
    // A sequence is at most 4 bytes long, so an incomplete one starts in the last 3.
    let tail_start = bytes.len().saturating_sub(3);
    let Some(lead) = bytes[tail_start..]
        .iter()
        .rposition(|&b| !is_continuation(b))
        .map(|at| tail_start + at)
    else {
        return 0;
    };
    match std::str::from_utf8(&bytes[lead..]) {
        // Valid so far but cut short: no error length.
        Err(error) if error.valid_up_to() == 0 && error.error_len().is_none() => bytes.len() - lead,
        _ => 0,
    }
}

/// The first known difference a whole list of items runs into, fed in order on a `cols` x
/// `rows` screen.
pub fn first_hit(items: &[Item], cols: usize, rows: usize) -> Option<&'static KnownDifference> {
    let mut tracker = Tracker::new(cols, rows);
    for item in items {
        if let Some(known) = tracker.hit(item) {
            return Some(known);
        }
        tracker.advance(item);
    }
    None
}

/// The parameters and final character of an item that is exactly one CSI sequence.
pub fn csi(item: &Item) -> Option<(&str, char)> {
    csi_of(&item.bytes)
}

/// The parameters and final character of bytes that are exactly one CSI sequence.
fn csi_of(bytes: &[u8]) -> Option<(&str, char)> {
    let rest = bytes.strip_prefix(b"\x1b[")?;
    let (&last, params) = rest.split_last()?;
    let params = std::str::from_utf8(params).ok()?;
    Some((params, char::from(last)))
}

/// The first numeric parameter of a CSI item, with the usual default for an omitted or
/// zero parameter; one too large for a `usize` counts as `usize::MAX` (the parser
/// saturates too).
pub fn first_param(params: &str, default: usize) -> usize {
    let first = params.split([';', ':']).next().unwrap_or("");
    if first.is_empty() || !first.bytes().all(|b| b.is_ascii_digit()) {
        return default;
    }
    match first.parse::<usize>() {
        Ok(0) => default,
        Ok(n) => n,
        Err(_) => usize::MAX,
    }
}

/// The parameters of an SGR item made of flags only (no colours, whose sub-parameters
/// would look like flags).
fn sgr_flag_params(item: &Item) -> impl Iterator<Item = &str> {
    let params = match csi(item) {
        Some((params, 'm')) if item.construct == Construct::SgrFlags => params,
        _ => "",
    };
    params.split(';').filter(|p| !p.is_empty())
}

/// Whether an item may print characters (an interrupted sequence may: CAN leaves the rest
/// of it to be printed).
pub fn prints(item: &Item) -> bool {
    matches!(
        item.construct,
        Construct::Text
            | Construct::WrapText
            | Construct::Wide
            | Construct::Combining
            | Construct::Repeat
            | Construct::Charset
            | Construct::Interrupted
            | Construct::InvalidUtf8
    )
}
