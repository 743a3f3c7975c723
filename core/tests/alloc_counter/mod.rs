//! A global allocator that counts the bytes each thread has live on the heap, so a test
//! sees every allocation (vte's buffers included), not only what
//! `Terminal::heap_bytes` accounts for. A test binary that includes this module counts
//! all its allocations; the count is per thread, so tests running in parallel do not
//! disturb each other.

struct Counting;

thread_local! {
    static LIVE: std::cell::Cell<isize> = const { std::cell::Cell::new(0) };
}

// SAFETY: forwards to the system allocator unchanged; the counter is a const-initialized
// thread local without a destructor, so touching it never allocates.
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        LIVE.with(|l| l.set(l.get() + layout.size() as isize));
        // SAFETY: same contract as ours.
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        LIVE.with(|l| l.set(l.get() - layout.size() as isize));
        // SAFETY: same contract as ours.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Bytes this thread has allocated and not yet freed (negative when it freed memory
/// another thread allocated).
pub fn live_bytes() -> isize {
    LIVE.with(|l| l.get())
}
