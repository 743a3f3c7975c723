//! Loading cells a burst of output is about to write before the parse reaches them.
//!
//! A model thread that waited for a program's next burst finds its caches cold: on the
//! shared 2-vCPU machines here a 10 KB agent-TUI step costs ~75 µs after 10 ms away
//! (sleeping or spinning alike: the host, not this process, evicts it) against ~24 µs
//! back to back (`examples/step_cost.rs`). Part of the difference is the spare rows that
//! scrolling takes back from the scrollback's queue (encoded and put back while the
//! thread was idle): each scroll asks for the row after the one it takes
//! (`Scrollback::push_row`), which loads while the current row is
//! written (step: ~78 → ~71 µs p50 over eight alternating runs).
//!
//! Measured and not done: prefetching the screen's cells when a slice starts saved
//! another ~1 µs in `step_cost`, but through `tern --headless` a query behind a 10 KB
//! step got slower (p50 89 → 98 µs, four alternating runs; probably 23 KB pulled into
//! the first-level cache ahead of what the parse needs first). Prefetching the parse's
//! code (its ~20 hot functions linked side by side into one section, prefetched into
//! the second-level cache) made no difference in `step_cost` that the noise could show;
//! running a parse elsewhere first saves ~14 µs, so what the code loses while the thread
//! waits is more the branch predictors' state than the instruction cache.

/// Bytes of one cache line.
const LINE: usize = 64;

/// Asks the CPU to load `cells` into its first-level cache (a hint: it changes nothing
/// the program sees).
#[inline]
pub(super) fn prefetch_cells<T>(cells: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        let base = cells.as_ptr().cast::<i8>();
        for off in (0..std::mem::size_of_val(cells)).step_by(LINE) {
            // SAFETY: a prefetch reads nothing the program sees and cannot fault, whatever
            // the address; SSE (which has it) is part of the x86_64 baseline.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                    base.wrapping_add(off),
                )
            };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = cells;
}
