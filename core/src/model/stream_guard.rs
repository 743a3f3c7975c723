//! What the terminal checks in the byte stream before vte sees it: the OSC length
//! guard's view of vte's state, and a UTF-8 sequence split across two reads.

/// Where the OSC length guard is in the byte stream. It mirrors the part of vte's state
/// machine that leads into an OSC string: vte enters its Escape state on every ESC, from
/// any state, and stays there on another ESC, on C0 controls other than CAN/SUB, on DEL
/// and on bytes of 0x80 and up; only `]` from Escape starts an OSC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum OscGuard {
    /// vte is in a state from which only an ESC can lead to an OSC.
    Outside,
    /// vte is in its Escape state (the last ESC has not been followed by a byte that
    /// leaves it).
    Escape,
    /// Inside an OSC body with this many bytes so far.
    Inside(usize),
    /// Inside an OSC that went over the cap: bytes are skipped until its terminator.
    Skipping,
    /// Inside an APC string (`ESC _`): its bytes are kept for the kitty graphics
    /// protocol (up to `MAX_APC_BYTES`) and not handed to vte, which ignores them.
    Apc,
}

/// What a byte does to vte's Escape state, as far as the OSC guard cares.
pub(super) enum AfterEscape {
    /// Still in Escape (ESC, C0 other than CAN/SUB, DEL, 0x80 and up).
    Stays,
    /// `]`: an OSC string starts; `_`: an APC string.
    Osc,
    /// Any other state (dispatch, CSI, DCS, SOS/PM/APC, intermediates, CAN/SUB).
    Leaves,
}

pub(super) fn after_escape(byte: u8) -> AfterEscape {
    match byte {
        b']' | b'_' => AfterEscape::Osc,
        0x18 | 0x1a | 0x20..=0x7e => AfterEscape::Leaves,
        _ => AfterEscape::Stays,
    }
}

/// An APC string being received: kept only if it is a kitty graphics command (its
/// first byte `G`), at most [`super::MAX_APC_BYTES`].
#[derive(Debug, Default)]
pub(super) struct ApcCapture {
    pub(super) bytes: Vec<u8>,
    /// It went over the cap: only its start is kept.
    pub(super) truncated: bool,
    /// Not a graphics command: nothing of it is kept.
    foreign: bool,
}

/// Longest APC string kept (a kitty graphics command: programs send chunks of 4 KiB).
pub const MAX_APC_BYTES: usize = 1024 * 1024;

/// APC buffer capacity kept between commands.
const MAX_IDLE_APC_BYTES: usize = 64 * 1024;

impl ApcCapture {
    pub(super) fn start(&mut self) {
        self.bytes.clear();
        self.truncated = false;
        self.foreign = false;
    }

    pub(super) fn keep(&mut self, bytes: &[u8]) {
        if self.foreign {
            return;
        }
        if self.bytes.is_empty() && bytes.first().is_some_and(|&b| b != b'G') {
            self.foreign = true;
            return;
        }
        let room = MAX_APC_BYTES - self.bytes.len();
        if bytes.len() > room {
            self.truncated = true;
        }
        self.bytes
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// Reads the string's bytes up to its end: how many it took, and whether it ended
    /// (`Some(true)`: an ESC, ST's first byte, completes it; `Some(false)`: CAN or SUB
    /// cancelled it). The terminator itself is left for vte.
    pub(super) fn read(&mut self, bytes: &[u8]) -> (usize, Option<bool>) {
        match memchr::memchr3(0x18, 0x1a, 0x1b, bytes) {
            Some(i) => {
                self.keep(&bytes[..i]);
                (i, Some(bytes[i] == 0x1b))
            }
            None => {
                self.keep(bytes);
                (bytes.len(), None)
            }
        }
    }

    /// The graphics command received, if it is one.
    pub(super) fn command(&self) -> Option<&[u8]> {
        (!self.foreign && self.bytes.first() == Some(&b'G')).then_some(&self.bytes[..])
    }

    /// Forgets the command (keeping a small buffer for the next).
    pub(super) fn done(&mut self) {
        self.bytes.clear();
        if self.bytes.capacity() > MAX_IDLE_APC_BYTES {
            self.bytes = Vec::new();
        }
    }

    pub(super) fn capacity(&self) -> usize {
        self.bytes.capacity()
    }
}

/// Where [`scan_for_osc`] found the stream going.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum OscScan {
    /// The `]` (or `_`) at this offset starts an OSC (an APC): it is read in vte's
    /// Escape state.
    StartsAt(usize),
    /// No OSC starts in the bytes; after them vte is in Escape or not.
    Ends { in_escape: bool },
}

/// Looks for the start of an OSC in `bytes`, read from outside one (`in_escape`: vte is
/// in its Escape state before the first byte). An OSC starts only at a `]` read in
/// Escape, and vte is in Escape at a byte exactly when an ESC comes before it with only
/// [`AfterEscape::Stays`] bytes between: so the scan jumps from `]` to `]` (rare in
/// output) and looks back from each over the bytes that stay, instead of stepping from
/// ESC to ESC (every few bytes in a TUI's output: a search call each). A `]` or `_`
/// that starts nothing is followed by a jump to the next ESC (no OSC can start before
/// it), so text full of `_` costs a search per ESC, not per `_`. Each look back stops
/// at a byte that leaves Escape or at the ESC the search went on from, so no byte is
/// looked at twice.
pub(super) fn scan_for_osc(in_escape: bool, bytes: &[u8]) -> OscScan {
    // Whether vte is in Escape right before `bytes[at]`, looking back no further than
    // `from` (where the state is `in_escape` if `from` is 0, and not Escape after a `]`
    // that started nothing).
    let escape_before = |from: usize, at: usize| {
        for &b in bytes[from..at].iter().rev() {
            if b == 0x1b {
                return true;
            }
            if !matches!(after_escape(b), AfterEscape::Stays) {
                return false;
            }
        }
        from == 0 && in_escape
    };
    let mut from = 0;
    while let Some(i) = memchr::memchr2(b']', b'_', &bytes[from..]) {
        let at = from + i;
        if escape_before(from, at) {
            return OscScan::StartsAt(at);
        }
        // vte is not in Escape after this byte, and only an ESC enters it: nothing
        // starts before the next ESC, so the search goes on from there (a run of
        // snake_case words or a `____` rule is one jump, not a search per `_`).
        match memchr::memchr(0x1b, &bytes[at + 1..]) {
            Some(e) => from = at + 1 + e,
            None => return OscScan::Ends { in_escape: false },
        }
    }
    OscScan::Ends {
        in_escape: escape_before(from, bytes.len()),
    }
}

/// The encoded length a UTF-8 lead byte announces (1 for anything else).
pub(super) fn utf8_len(lead: u8) -> usize {
    match lead {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => 1,
    }
}

/// The length of an incomplete UTF-8 sequence at the end of `bytes` (0 if none).
pub(super) fn incomplete_utf8_tail(bytes: &[u8]) -> usize {
    let len = bytes.len();
    for back in 1..=len.min(3) {
        let b = bytes[len - back];
        if b & 0xc0 == 0x80 {
            continue; // continuation byte: keep looking for the lead
        }
        let need = utf8_len(b);
        return if need > back { back } else { 0 };
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngSeed};

    /// The guard's scan as it was first written: one byte at a time through vte's
    /// Escape state (an ESC enters it, `Stays` bytes keep it, `]` in it starts an OSC).
    fn scan_bytewise(mut in_escape: bool, bytes: &[u8]) -> OscScan {
        for (at, &b) in bytes.iter().enumerate() {
            if !in_escape {
                in_escape = b == 0x1b;
                continue;
            }
            match after_escape(b) {
                AfterEscape::Stays => {}
                AfterEscape::Leaves => in_escape = false,
                AfterEscape::Osc => return OscScan::StartsAt(at),
            }
        }
        OscScan::Ends { in_escape }
    }

    fn config() -> Config {
        let mut c = Config::default();
        if matches!(c.rng_seed, RngSeed::Random) {
            c.rng_seed = RngSeed::Fixed(0x05c_5ca1);
        }
        c.failure_persistence = None;
        c
    }

    proptest! {
        #![proptest_config(config())]
        /// The scan that jumps from `]` to `]` finds the same OSC start, and leaves vte in
        /// the same state, as stepping through every byte: for bytes drawn mostly from
        /// those that matter to it (ESC, `]`, C0 that stays or leaves, DEL, UTF-8 lead
        /// and continuation bytes, printable ASCII), from either state.
        /// `PROPTEST_CASES` and `PROPTEST_RNG_SEED` deepen or move a run.
        #[test]
        fn jumping_scan_matches_the_bytewise_scan(
            in_escape in any::<bool>(),
            bytes in proptest::collection::vec(
                prop_oneof![
                    Just(0x1bu8), Just(b']'), Just(b'_'), Just(b'['), Just(0x07), Just(0x18), Just(0x1a),
                    Just(0x7f), Just(b'\n'), Just(0x00), 0x80u8..=0xff, 0x20u8..=0x7e, any::<u8>(),
                ],
                0..64,
            ),
        ) {
            prop_assert_eq!(scan_for_osc(in_escape, &bytes), scan_bytewise(in_escape, &bytes));
        }
    }
}
