//! A detached pane's output while no tern is attached: a byte ring with a cap. Past
//! the cap the oldest bytes go, and the ring counts them, so the replay starts with a
//! visible marker ("N bytes dropped") instead of silently missing text.
//!
//! ```text
//!   dropped: 1200 ┆ oldest kept byte ··· newest byte │ ← push
//!                 └──────────── ≤ cap bytes ─────────┘
//! ```

use std::collections::VecDeque;

/// Bytes a pane's ring keeps by default.
pub const RING_CAP_BYTES: usize = 4 << 20;

#[derive(Debug)]
pub struct Ring {
    bytes: VecDeque<u8>,
    cap: usize,
    dropped: u64,
}

impl Ring {
    pub fn new(cap: usize) -> Ring {
        Ring {
            bytes: VecDeque::new(),
            cap: cap.max(1),
            dropped: 0,
        }
    }

    /// Appends `data`, dropping the oldest bytes past the cap.
    pub fn push(&mut self, data: &[u8]) {
        let data = if data.len() > self.cap {
            self.dropped += (data.len() - self.cap) as u64;
            &data[data.len() - self.cap..]
        } else {
            data
        };
        let over = (self.bytes.len() + data.len()).saturating_sub(self.cap);
        if over > 0 {
            self.bytes.drain(..over);
            self.dropped += over as u64;
        }
        self.bytes.extend(data);
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Everything kept, with the marker first when bytes were dropped; the ring is
    /// empty afterwards.
    pub fn take(&mut self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bytes.len() + 80);
        if self.dropped > 0 {
            out.extend_from_slice(marker(self.dropped).as_bytes());
        }
        out.extend(self.bytes.drain(..));
        self.dropped = 0;
        self.bytes.shrink_to_fit();
        out
    }
}

/// The line a replay starts with when the ring dropped bytes.
pub fn marker(dropped: u64) -> String {
    format!("\r\n\x1b[0;2m[tern] {dropped} bytes dropped while no window was attached\x1b[0m\r\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn under_the_cap_every_byte_comes_back_in_order() {
        let mut ring = Ring::new(16);
        ring.push(b"abc");
        ring.push(b"def");
        assert_eq!(ring.take(), b"abcdef");
        assert!(ring.is_empty());
    }

    #[test]
    fn past_the_cap_the_oldest_go_and_the_marker_counts_them() {
        let mut ring = Ring::new(4);
        ring.push(b"abc");
        ring.push(b"def");
        assert_eq!(ring.len(), 4);
        assert_eq!(ring.dropped(), 2);
        ring.push(b"0123456789");
        assert_eq!(ring.dropped(), 12);
        let out = ring.take();
        assert!(out.ends_with(b"6789"));
        assert!(String::from_utf8_lossy(&out).contains("12 bytes dropped"));
    }
}
