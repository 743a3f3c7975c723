//! Helper programs tern starts and does not wait on itself (the link opener): each is
//! reaped by a small thread, so none is left a zombie. Descriptors tern opens are
//! close-on-exec, so a helper inherits only its standard streams.

use std::io;
use std::process::{Command, Stdio};

/// Starts `cmd` with its standard streams on `/dev/null` and reaps it in the
/// background when it exits. Returns its pid.
pub fn spawn_reaped(cmd: &mut Command) -> io::Result<u32> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let pid = child.id();
    std::thread::Builder::new()
        .name("tern-reaper".into())
        .spawn(move || {
            let _ = child.wait();
        })?;
    Ok(pid)
}
