//! A read from a pty waiting to be parsed: the model thread and the reading-ahead
//! thread both hold them.

use std::collections::VecDeque;
use std::time::Instant;

use super::io::BufferPool;

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

/// Queues `chunk` behind `queue`'s others. A read that fits in the spare room of the
/// last chunk, read between the same messages (the same `sent_before`), is copied into
/// it and its buffer goes back to `buffers`: every read takes a buffer of
/// [`READ_CHUNK`](super::io::READ_CHUNK) bytes, and a pty's reads often bring 4 KiB,
/// so a queue of one buffer per read could hold up to 16 times the bytes in it (the
/// credit window counts bytes: a 1 MiB window, up to 16 MiB of buffers). Joined, the
/// bytes queued bound the memory the queue holds, as the credit window means them to.
/// The joined chunk dates from the later read (an echo in it is seen as read when it
/// was).
pub(crate) fn enqueue(queue: &mut VecDeque<Chunk>, chunk: Chunk, buffers: &BufferPool) {
    if let Some(last) = queue.back_mut()
        && last.sent_before == chunk.sent_before
        && chunk.offset == 0
        && last.data.capacity() - last.data.len() >= chunk.data.len()
    {
        last.data.extend_from_slice(&chunk.data);
        last.read_at = last.read_at.max(chunk.read_at);
        buffers.put(chunk.data);
        return;
    }
    queue.push_back(chunk);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::io::READ_CHUNK;

    fn read(buffers: &BufferPool, bytes: &[u8], sent_before: u64) -> Chunk {
        let mut data = buffers.get();
        data.extend_from_slice(bytes);
        Chunk {
            data,
            offset: 0,
            read_at: Instant::now(),
            sent_before,
        }
    }

    /// Sixty-four reads of 4 KiB between the same messages are four buffers, not 64;
    /// a read after another message starts its own chunk (a resize sent between them
    /// is handled before its bytes); the bytes stay in order.
    #[test]
    fn small_reads_join_the_last_chunk_between_the_same_messages() {
        let buffers = BufferPool::default();
        let mut queue = VecDeque::new();
        let mut want = Vec::new();
        for i in 0..64u8 {
            let bytes = vec![i; 4096];
            want.extend_from_slice(&bytes);
            enqueue(&mut queue, read(&buffers, &bytes, 1), &buffers);
        }
        assert_eq!(queue.len(), 64 * 4096 / READ_CHUNK);
        let held: usize = queue.iter().map(|c| c.data.capacity()).sum();
        assert_eq!(held, 64 * 4096, "the buffers hold what was read");
        enqueue(&mut queue, read(&buffers, b"after", 2), &buffers);
        enqueue(&mut queue, read(&buffers, b" more", 2), &buffers);
        assert_eq!(queue.len(), 64 * 4096 / READ_CHUNK + 1);
        assert_eq!(queue.back().map(|c| c.sent_before), Some(2));
        want.extend_from_slice(b"after more");
        let got: Vec<u8> = queue.iter().flat_map(|c| c.data.clone()).collect();
        assert_eq!(got, want);
    }
}
