//! Scheduling hints for the threads on a keystroke's path (the model thread here; the
//! app may ask the same for its UI thread).
//!
//! Without privileges a `SCHED_OTHER` thread can only lower its priority (a higher nice
//! value), which does not help it against busy neighbours. What an unprivileged thread
//! *can* ask on Linux 6.12 and later is a shorter time slice (`sched_setattr` with
//! `sched_runtime` on a fair policy, EEVDF's custom slice): its virtual deadline comes
//! sooner, so when it wakes it may preempt a thread that has been running (the kernel's
//! `PREEMPT_SHORT`) instead of waiting for that thread's slice to end. Its share of the
//! CPU stays the same. On older kernels the call fails and nothing changes.

/// The slice asked for the threads on a keystroke's path. The kernel accepts 0.1 ms to
/// 100 ms; its default is 0.75 ms times a factor for the number of CPUs.
pub const LATENCY_SLICE_NS: u64 = 100_000;

/// `struct sched_attr` (include/uapi/linux/sched/types.h), version 1 (56 bytes).
#[cfg(target_os = "linux")]
#[repr(C)]
#[derive(Default)]
struct SchedAttr {
    size: u32,
    sched_policy: u32,
    sched_flags: u64,
    sched_nice: i32,
    sched_priority: u32,
    sched_runtime: u64,
    sched_deadline: u64,
    sched_period: u64,
    sched_util_min: u32,
    sched_util_max: u32,
}

/// Asks for a short time slice ([`LATENCY_SLICE_NS`]) for the calling thread, keeping
/// its policy (`SCHED_OTHER`) and nice value. Returns whether the kernel took it
/// (Linux 6.12+; needs no privilege). Set `TERN_NO_SHORT_SLICE=1` to skip it (for
/// measuring what it brings).
pub fn ask_short_slice() -> bool {
    if std::env::var_os("TERN_NO_SHORT_SLICE").is_some_and(|v| v != "0") {
        return false;
    }
    short_slice_for_this_thread(LATENCY_SLICE_NS)
}

/// The nice value of the threads that search for a person (search everywhere's matcher,
/// the closed panes' search): the lowest there is.
pub const SEARCH_NICE: i32 = 19;

/// Puts the calling thread behind the others: nice [`SEARCH_NICE`] (Linux: per thread),
/// for work nobody waits on as they type (search everywhere's matching). Needs no
/// privilege. A woken thread on a keystroke's path preempts it (its weight is 15 against
/// a nice-0 thread's 1024, and the model thread asks for a short slice).
/// `SCHED_IDLE` would yield still sooner, but a thread at it gets about 0.3% of a CPU
/// beside each busy thread of normal priority, so a search would all but stop while a
/// build runs in another pane; `TERN_SEARCH_SCHED_IDLE=1` asks for it (for measuring).
/// Returns whether the priority was set.
pub fn lowest_for_this_thread() -> bool {
    #[cfg(target_os = "linux")]
    if std::env::var_os("TERN_SEARCH_SCHED_IDLE").is_some_and(|v| v != "0") {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: `sched_setscheduler` reads only the `sched_param` we pass, which lives
        // across the call; pid 0 is the calling thread.
        if unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) } == 0 {
            return true;
        }
    }
    rustix::process::setpriority_process(None, SEARCH_NICE).is_ok()
}

#[cfg(target_os = "linux")]
fn short_slice_for_this_thread(slice_ns: u64) -> bool {
    // SAFETY: `sched_getattr` and `sched_setattr` read and write only the struct whose
    // address and size we pass; it is `repr(C)` with the kernel's version-1 layout and
    // lives across the calls. Pid 0 is the calling thread.
    unsafe {
        let mut attr = SchedAttr::default();
        let size = std::mem::size_of::<SchedAttr>() as u32;
        let got = libc::syscall(
            libc::SYS_sched_getattr,
            0,
            &mut attr as *mut SchedAttr,
            size,
            0,
        );
        // Only a fair policy (SCHED_OTHER or SCHED_BATCH) takes a custom slice.
        if got != 0
            || !matches!(
                attr.sched_policy as i32,
                libc::SCHED_OTHER | libc::SCHED_BATCH
            )
        {
            return false;
        }
        attr.size = size;
        attr.sched_runtime = slice_ns;
        attr.sched_flags = 0;
        libc::syscall(libc::SYS_sched_setattr, 0, &mut attr as *mut SchedAttr, 0) == 0
    }
}

#[cfg(not(target_os = "linux"))]
fn short_slice_for_this_thread(_slice_ns: u64) -> bool {
    false
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// On a kernel with custom slices the thread gets the slice asked for and keeps its
    /// policy; elsewhere the call says no and changes nothing.
    #[test]
    fn a_short_slice_keeps_the_policy() {
        std::thread::spawn(|| {
            let took = short_slice_for_this_thread(LATENCY_SLICE_NS);
            let mut attr = SchedAttr::default();
            // SAFETY: as in `short_slice_for_this_thread`.
            let got = unsafe {
                libc::syscall(
                    libc::SYS_sched_getattr,
                    0,
                    &mut attr as *mut SchedAttr,
                    std::mem::size_of::<SchedAttr>() as u32,
                    0,
                )
            };
            assert_eq!(got, 0);
            assert_eq!(attr.sched_policy as i32, libc::SCHED_OTHER);
            if took {
                assert_eq!(attr.sched_runtime, LATENCY_SLICE_NS);
            }
        })
        .join()
        .expect("thread");
    }
}
