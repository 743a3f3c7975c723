//! The programs some tests need (tmux, sshd): a test that needs a missing one fails
//! with the command that installs it, unless `TERN_SKIP_MISSING_TOOLS=1` says to skip
//! it, and then it prints that it was skipped. Never a quiet pass.

#![allow(dead_code)]

use tern_core::tmux::VersionError;
use tern_core::tmux::command::local_version;

/// The environment variable that lets a machine without the tools skip their tests.
pub const SKIP_VAR: &str = "TERN_SKIP_MISSING_TOOLS";

/// Whether the test may run: `true` when nothing is missing; with something missing,
/// `false` (the caller returns) only when [`SKIP_VAR`] is set, and a failure otherwise.
pub fn required(missing: Option<String>, packages: &str) -> bool {
    let Some(what) = missing else {
        return true;
    };
    let skip = std::env::var(SKIP_VAR).is_ok_and(|v| !v.is_empty() && v != "0");
    if skip {
        eprintln!("SKIPPED ({SKIP_VAR} is set): {what}");
        println!("SKIPPED ({SKIP_VAR} is set): {what}");
        return false;
    }
    panic!(
        "{what}: install it with `sudo apt-get install {packages}` (scripts/test.sh does), \
         or set {SKIP_VAR}=1 to skip the tests that need it"
    );
}

/// tmux is installed (and its version readable); see [`required`].
pub fn tmux_available() -> bool {
    match local_version("tmux".as_ref()) {
        Ok(_) => true,
        Err(e @ VersionError::Missing { .. }) => required(Some(e.to_string()), "tmux"),
        Err(e) => panic!("{e}"),
    }
}
