//! The `tern msg` side: send one request, read one reply.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use super::{Envelope, MAX_REQUEST_BYTES, Reply, Request, Response};

/// How long the client waits for tern (the server's own deadlines are shorter).
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(10);

/// Sends `request` to the tern listening on `socket` and returns its reply, or a
/// message naming what went wrong (no tern there, an error from tern, a reply that
/// does not parse).
pub fn send(socket: &Path, request: Request) -> Result<Reply, String> {
    let mut stream = UnixStream::connect(socket)
        .map_err(|e| format!("no tern listens on {}: {e}", socket.display()))?;
    let _ = stream.set_read_timeout(Some(CLIENT_TIMEOUT));
    let _ = stream.set_write_timeout(Some(CLIENT_TIMEOUT));
    let line = Envelope::new(request).to_line();
    if line.len() > MAX_REQUEST_BYTES {
        return Err(format!(
            "the request is longer than {MAX_REQUEST_BYTES} bytes"
        ));
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
    response.into_result()
}
