//! What every tern test shares, whatever it starts: one way to wait for an event
//! ([`eventually`]: a probe polled until it holds, with a bound that only fails the
//! test — never a pass/fail threshold on time) and the process's resident memory
//! ([`rss_bytes`]). The binary's own starter (`common::isolate` and `tern_cmd`: a fresh
//! HOME and runtime folder, nothing of the caller's tern) and the harness builder
//! (`common::AppHarness`) are `app/tests/common`'s, since only the app's tests have the
//! binary and the app.

use std::fmt::Display;
use std::time::{Duration, Instant};

/// What a probe of [`eventually`] says: done (with a value), or not yet (with what it
/// saw, for the failure message).
pub trait Probed<T> {
    fn probed(self) -> Result<T, Option<String>>;
}

impl Probed<()> for bool {
    fn probed(self) -> Result<(), Option<String>> {
        if self { Ok(()) } else { Err(None) }
    }
}

impl<T> Probed<T> for Option<T> {
    fn probed(self) -> Result<T, Option<String>> {
        self.ok_or(None)
    }
}

impl<T, E: Display> Probed<T> for Result<T, E> {
    fn probed(self) -> Result<T, Option<String>> {
        self.map_err(|seen| Some(seen.to_string()))
    }
}

/// Polls `probe` until it holds (`true`, `Some(value)`, `Ok(value)`) and returns its
/// value; after `within` the test fails naming `what` and the probe's last `Err`.
/// `within` is a bound for a wedged test, far above the expected wait.
pub fn eventually<T, P: Probed<T>>(
    what: impl Display,
    within: Duration,
    mut probe: impl FnMut() -> P,
) -> T {
    let deadline = Instant::now() + within;
    let mut pause = Duration::from_millis(1);
    loop {
        match probe().probed() {
            Ok(value) => return value,
            Err(seen) => {
                if Instant::now() >= deadline {
                    match seen {
                        Some(seen) => panic!("{what}: not within {within:?}; last seen: {seen}"),
                        None => panic!("{what}: not within {within:?}"),
                    }
                }
            }
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// The pty masters process `pid` holds open (`/dev/ptmx`, or `/dev/pts/ptmx`); `pid`
/// may be "self".
pub fn pty_masters(pid: impl Display) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|fds| {
            fds.flatten()
                .filter_map(|fd| std::fs::read_link(fd.path()).ok())
                .filter(|target| target.ends_with("ptmx"))
                .count()
        })
        .unwrap_or(0)
}

/// This process's resident memory in bytes (Linux `/proc/self/statm`; 0 elsewhere).
pub fn rss_bytes() -> u64 {
    rss_of("self")
}

/// The resident memory of process `pid` in bytes (0 when it cannot be read).
pub fn rss_of(pid: impl Display) -> u64 {
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    pages * page_size()
}

fn page_size() -> u64 {
    // 4 KiB on the x86-64 and most aarch64 Linux systems tern runs on; read it where
    // the platform says otherwise.
    std::env::var("TERN_TEST_PAGE_SIZE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4096)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_that_holds_returns_its_value_and_one_that_never_does_fails_naming_it() {
        let mut n = 0;
        let got = eventually("the third look", Duration::from_secs(5), || {
            n += 1;
            (n == 3).then_some(n)
        });
        assert_eq!(got, 3);
        let failed = std::panic::catch_unwind(|| {
            eventually("never", Duration::from_millis(30), || {
                Err::<(), _>("still 0")
            })
        });
        let message = failed.expect_err("fails");
        let message = message
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
        assert!(
            message.contains("never") && message.contains("still 0"),
            "{message}"
        );
    }

    #[test]
    fn this_process_has_resident_memory() {
        assert!(rss_bytes() > 0);
    }
}
