//! Ending tern from outside without losing the session: SIGTERM and SIGHUP (logout,
//! shutdown, `kill`) close the window the ordinary way, so the session is saved, the
//! children get SIGHUP and tern exits 0; a panic (an X server error inside winit, for
//! one) first writes the last session it knew.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use signal_hook::consts::{SIGHUP, SIGTERM};
use signal_hook::iterator::Signals;
use tern_core::session::{SessionState, SessionStore};

/// How long the window has to close after a signal before tern exits without it.
pub const CLOSE_DEADLINE: Duration = Duration::from_secs(5);

// A remote whose ssh does not exit takes up to `DETACH_LONGEST` to detach while the
// window closes: it must end inside the deadline (it was 5 s + 5 s against 5 s).
const _: () = assert!(
    tern_core::tmux::DETACH_LONGEST.as_millis() + 1000 < CLOSE_DEADLINE.as_millis(),
    "remote detach grace periods must fit inside the close deadline"
);

static TERMINATION: AtomicBool = AtomicBool::new(false);

/// The newest session state and where it goes, for the panic hook.
static LAST_SESSION: Mutex<Option<(SessionStore, SessionState)>> = Mutex::new(None);

/// True once SIGTERM or SIGHUP arrived: the window closes without asking.
pub fn termination_requested() -> bool {
    TERMINATION.load(Ordering::Acquire)
}

/// Catches SIGTERM and SIGHUP from now on (call before the window opens). Each signal
/// runs `close` once on a watcher thread; if tern is still running
/// [`CLOSE_DEADLINE`] after the first, it exits with status 143.
pub fn on_termination(close: impl Fn() + Send + 'static) -> std::io::Result<()> {
    let mut signals = Signals::new([SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("tern-signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                let first = !TERMINATION.swap(true, Ordering::AcqRel);
                eprintln!("tern: signal {signal}: saving the session and closing");
                close();
                if first {
                    std::thread::spawn(|| {
                        std::thread::sleep(CLOSE_DEADLINE);
                        eprintln!("tern: the window did not close in time; exiting");
                        std::process::exit(143);
                    });
                }
            }
        })?;
    Ok(())
}

/// Remembers the newest session state (the app calls this whenever it changes).
pub fn remember_session(store: &SessionStore, state: &SessionState) {
    if let Ok(mut last) = LAST_SESSION.lock() {
        *last = Some((store.clone(), state.clone()));
    }
}

/// Installs a panic hook that saves the remembered session before the default report.
pub fn save_session_on_panic() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // `try_lock`: the panic may have happened while the lock was held.
        if let Ok(last) = LAST_SESSION.try_lock()
            && let Some((store, state)) = last.as_ref()
        {
            match store.save(state) {
                Ok(()) => eprintln!(
                    "tern: crashed; the session was saved to {}",
                    store.path().display()
                ),
                Err(e) => eprintln!("tern: crashed, and the session could not be saved: {e}"),
            }
        }
        previous(info);
    }));
}
