//! A read from a pty waiting to be parsed: the model thread and the reading-ahead
//! thread both hold them.

use std::time::Instant;

/// Bytes read from a pty and not yet parsed (by this thread or the reading thread).
pub(crate) struct Chunk {
    pub(crate) data: Vec<u8>,
    /// How far the parser got.
    pub(crate) offset: usize,
    pub(crate) read_at: Instant,
    /// Messages sent before the read began ([`Poller::sent`](super::readiness::Poller::sent)); a resize numbered above
    /// it may have come first, so the chunk waits for that resize.
    pub(crate) sent_before: u64,
}
