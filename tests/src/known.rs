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
            b"\x1b8" => s.oracle.origin_mode() != s.saved_origin,
            b"\x1b[?1049l" => {
                s.oracle.alt_screen() && s.oracle.origin_mode() != s.saved_origin_main
            }
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
        name: "irm-wide-at-margin",
        reason: "in insert mode alacritty rotates the cells pushed off the right margin back \
                 under the cursor, and when that is half of a wide character it blanks the \
                 character left of the cursor; xterm and tern drop the pushed-off cells.",
        applies: |item, s| {
            if !s.oracle.insert_mode() || !prints(item) {
                return false;
            }
            let row = s.oracle.cursor().0;
            item.bytes.iter().any(|&b| b >= 0x80)
                || (row..row + 4).any(|r| s.oracle.row_has_wide(r))
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
}

/// Follows a stream item by item in the reference emulator to decide whether a known
/// difference applies to the next item.
pub struct Tracker {
    oracle: Oracle,
    /// Saved DECOM per screen: `[main, alternate]`.
    saved_origin: [bool; 2],
}

impl Tracker {
    pub fn new(cols: usize, rows: usize) -> Tracker {
        Tracker {
            oracle: Oracle::new(cols, rows),
            saved_origin: [false; 2],
        }
    }

    /// The first known difference feeding `item` next would show.
    pub fn hit(&self, item: &Item) -> Option<&'static KnownDifference> {
        let situation = Situation {
            oracle: &self.oracle,
            saved_origin: self.saved_origin[usize::from(self.oracle.alt_screen())],
            saved_origin_main: self.saved_origin[0],
        };
        KNOWN_DIFFERENCES
            .iter()
            .find(|known| (known.applies)(item, &situation))
    }

    /// Feeds `item`.
    pub fn advance(&mut self, item: &Item) {
        let screen = usize::from(self.oracle.alt_screen());
        let origin = self.oracle.origin_mode();
        match item.bytes.as_slice() {
            b"\x1b7" => self.saved_origin[screen] = origin,
            b"\x1b[?1049h" if screen == 0 => self.saved_origin[0] = origin,
            _ => {}
        }
        self.oracle.advance(&item.bytes);
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
    let rest = item.bytes.strip_prefix(b"\x1b[")?;
    let (&last, params) = rest.split_last()?;
    let params = std::str::from_utf8(params).ok()?;
    Some((params, char::from(last)))
}

/// The first numeric parameter of a CSI item, with the usual default for an omitted or
/// zero parameter.
pub fn first_param(params: &str, default: usize) -> usize {
    let first = params.split([';', ':']).next().unwrap_or("");
    match first.parse::<usize>() {
        Ok(0) | Err(_) => default,
        Ok(n) => n,
    }
}

/// Whether an item prints characters.
pub fn prints(item: &Item) -> bool {
    matches!(
        item.construct,
        Construct::Text
            | Construct::WrapText
            | Construct::Wide
            | Construct::Combining
            | Construct::Repeat
    )
}
