//! The `tern msg` side: send one request, read one reply.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use super::{Envelope, MAX_REQUEST_BYTES, Reply, Request, Response};

/// How long the client waits for tern (the server's own deadlines are shorter).
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(10);

/// Sends `request` to the tern listening on `socket` and returns its reply, or a
/// message naming what went wrong (no tern there, an error from tern, a reply that
/// does not parse). The socket's folder must be ours and private, and the process
/// listening must run as our uid ([`check_socket_dir`], [`check_server`]): otherwise
/// another user who made the folder first (`/tmp/tern-<uid>` when `XDG_RUNTIME_DIR`
/// is unset) would receive every `send-text` and could answer with forged pane ids.
pub fn send(socket: &Path, request: Request) -> Result<Reply, String> {
    send_within(socket, request, CLIENT_TIMEOUT).map_err(|e| e.to_string())
}

/// Why a request got no reply.
#[derive(Debug)]
pub enum SendError {
    /// Nothing listens there (tern is not running, or is gone).
    NoServer(String),
    /// Anything else: refused, an error from tern, a reply that does not parse.
    Failed(String),
}

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SendError::NoServer(m) | SendError::Failed(m) => f.write_str(m),
        }
    }
}

impl From<String> for SendError {
    fn from(m: String) -> SendError {
        SendError::Failed(m)
    }
}

/// [`send`], waiting at most `timeout` for each read and write (a hook's report must
/// not hold its agent up).
pub fn send_within(socket: &Path, request: Request, timeout: Duration) -> Result<Reply, SendError> {
    let mut stream = UnixStream::connect(socket).map_err(|e| {
        SendError::NoServer(format!("no tern listens on {}: {e}", socket.display()))
    })?;
    // Nothing is sent before both checks.
    let uid = rustix::process::getuid().as_raw();
    if let Some(dir) = socket.parent().filter(|d| !d.as_os_str().is_empty()) {
        check_socket_dir(dir, uid)?;
    }
    check_server(&stream, uid).map_err(|e| format!("{}: {e}", socket.display()))?;
    let _ = stream.set_read_timeout(Some(timeout));
    let _ = stream.set_write_timeout(Some(timeout));
    let line = Envelope::new(request).to_line();
    if line.len() > MAX_REQUEST_BYTES {
        return Err(SendError::Failed(format!(
            "the request is longer than {MAX_REQUEST_BYTES} bytes"
        )));
    }
    stream
        .write_all(line.as_bytes())
        .map_err(|e| format!("cannot send to {}: {e}", socket.display()))?;
    let mut reply = String::new();
    BufReader::new((&stream).take(64 << 20))
        .read_line(&mut reply)
        .map_err(|e| format!("no reply from {}: {e}", socket.display()))?;
    let response: Response = serde_json::from_str(&reply)
        .map_err(|e| format!("tern sent a reply this client cannot read ({e}): {reply:?}"))?;
    Ok(response.into_result()?)
}

/// Refuses a socket folder that is not a real folder (a symlink is refused), is owned
/// by another uid than `uid`, or is open to group or others (what the server makes:
/// 0700, ours).
pub fn check_socket_dir(dir: &Path, uid: u32) -> Result<(), String> {
    let refuse = |why: String| {
        Err(format!(
            "refusing to talk to tern through {}: {why}",
            dir.display()
        ))
    };
    let meta = match std::fs::symlink_metadata(dir) {
        Ok(m) => m,
        Err(e) => return refuse(e.to_string()),
    };
    if !meta.is_dir() {
        return refuse("not a folder".into());
    }
    if meta.uid() != uid {
        return refuse(format!(
            "the folder is owned by uid {}, not by you (uid {uid})",
            meta.uid()
        ));
    }
    if meta.mode() & 0o077 != 0 {
        return refuse(format!(
            "the folder's mode is {:o}; others may reach it (tern makes it 0700)",
            meta.mode() & 0o7777
        ));
    }
    Ok(())
}

/// Refuses a server that runs as another uid than `uid` (`SO_PEERCRED`, which the
/// kernel records at `listen`, so the server cannot forge it).
pub fn check_server(stream: &UnixStream, uid: u32) -> Result<(), String> {
    match super::peer_uid(stream) {
        Ok(peer) if peer == uid => Ok(()),
        Ok(peer) => Err(format!(
            "the process listening there runs as uid {peer}, not as you (uid {uid}); refusing to send"
        )),
        Err(e) => Err(format!("cannot check who listens there: {e}")),
    }
}
