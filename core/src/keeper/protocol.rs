//! The keeper's protocol: length-prefixed JSON frames on a private Unix socket, with
//! file descriptors (a pane's pty master and its program's pidfd) passed beside a frame
//! as `SCM_RIGHTS`.
//!
//! ```text
//!  frame = u32 little-endian length N (at most MAX_FRAME_BYTES) ++ N bytes of JSON
//!          (+ up to MAX_FDS descriptors on the frame's first byte)
//! ```
//!
//! Every request from tern gets exactly one answer. The first request on a connection
//! is [`ToKeeper::Hello`] (or [`ToKeeper::Stop`]); the answer says the keeper's
//! protocol version. Unknown fields are ignored both ways, so a newer tern or keeper
//! may add fields without a new version; a change that an older side would misread
//! raises [`PROTOCOL_VERSION`]. See `docs/architecture/keeper.md`.

use std::io::{IoSlice, IoSliceMut, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// This build's protocol version (both sides). A tern speaks to a keeper of this
/// version or an older one down to [`OLDEST_PROTOCOL`].
pub const PROTOCOL_VERSION: u32 = 1;
/// The oldest keeper protocol this tern can take panes from.
pub const OLDEST_PROTOCOL: u32 = 1;
/// The largest frame either side reads (a ring's bytes travel base64-encoded).
pub const MAX_FRAME_BYTES: usize = 16 << 20;
/// The largest request frame the keeper reads (requests are small).
pub const MAX_REQUEST_BYTES: usize = 64 << 10;
/// Descriptors passed with one frame at most.
pub const MAX_FDS: usize = 2;

/// One pane as tern hands it to the keeper.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct HeldPane {
    /// Names the pane across terns (saved in the session beside the pane).
    pub key: u64,
    /// The pane's `tern msg` id in the tern that handed it over.
    pub pane: u64,
    pub pid: Option<u32>,
    /// What runs there (a breadcrumb's words).
    #[serde(default)]
    pub what: String,
    #[serde(default)]
    pub cwd: Option<PathBuf>,
}

/// What the keeper knows of a held pane.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct HeldState {
    pub pane: HeldPane,
    /// Output came while no tern was attached.
    #[serde(default)]
    pub ran_detached: bool,
    /// The program ended while no tern was attached (its pidfd said so).
    #[serde(default)]
    pub exited: bool,
    /// Bytes the ring dropped (oldest first) past its cap.
    #[serde(default)]
    pub dropped_bytes: u64,
    /// Bytes waiting in the ring.
    #[serde(default)]
    pub ring_bytes: u64,
}

/// Requests from tern.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ToKeeper {
    /// The first request: tern becomes the keeper's one attached tern.
    Hello { protocol: u32, tern: String },
    /// Hold this pane (descriptors: its pty master, then its pidfd if any).
    Hold { pane: HeldPane },
    /// Forget a pane (tern closed it): the keeper closes its descriptors.
    Release { key: u64 },
    /// A duplicate of a held pane's descriptors and the bytes its ring kept; the
    /// keeper goes on holding it for the attached tern.
    Take { key: u64 },
    /// Hang up every held program and exit (`tern keeper --stop`).
    Stop,
}

/// Answers from the keeper.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum FromKeeper {
    Welcome {
        protocol: u32,
        keeper: String,
        panes: Vec<HeldState>,
    },
    Refused {
        reason: String,
    },
    Done,
    /// The answer to [`ToKeeper::Take`] (descriptors: master, then pidfd if any).
    Taken {
        state: HeldState,
        /// The ring's bytes, base64 (with the dropped-bytes marker first if any).
        bytes: String,
    },
    Error {
        message: String,
    },
}

/// Writes one frame with `fds` attached.
pub fn send<T: Serialize>(stream: &UnixStream, message: &T, fds: &[RawFd]) -> std::io::Result<()> {
    let body = serde_json::to_vec(message).map_err(std::io::Error::other)?;
    if body.len() > MAX_FRAME_BYTES {
        return Err(std::io::Error::other("frame over the cap"));
    }
    let mut frame = Vec::with_capacity(4 + body.len());
    frame.extend_from_slice(&(body.len() as u32).to_le_bytes());
    frame.extend_from_slice(&body);
    let first = send_with_fds(stream, &frame, fds)?;
    let mut rest = &frame[first..];
    let mut w = stream;
    while !rest.is_empty() {
        let n = w.write(rest)?;
        if n == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        rest = &rest[n..];
    }
    Ok(())
}

/// Reads one frame of at most `cap` bytes and the descriptors that came with it.
pub fn recv<T: for<'de> Deserialize<'de>>(
    stream: &UnixStream,
    cap: usize,
) -> std::io::Result<(T, Vec<OwnedFd>)> {
    let mut header = [0u8; 4];
    let (got, fds) = recv_with_fds(stream, &mut header)?;
    if got == 0 {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    let mut r = stream;
    r.read_exact(&mut header[got..])?;
    let len = u32::from_le_bytes(header) as usize;
    if len > cap {
        return Err(std::io::Error::other(format!(
            "a frame of {len} bytes is over the cap of {cap}"
        )));
    }
    let mut body = vec![0u8; len];
    r.read_exact(&mut body)?;
    let message = serde_json::from_slice(&body)
        .map_err(|e| std::io::Error::other(format!("a frame that does not parse: {e}")))?;
    Ok((message, fds))
}

/// One `sendmsg` with `fds` as `SCM_RIGHTS`; the bytes it placed.
fn send_with_fds(stream: &UnixStream, bytes: &[u8], fds: &[RawFd]) -> std::io::Result<usize> {
    if fds.is_empty() {
        let mut w = stream;
        return w.write(bytes);
    }
    let fds = &fds[..fds.len().min(MAX_FDS)];
    let payload = std::mem::size_of_val(fds);
    // SAFETY: CMSG_SPACE only computes a size.
    let space = unsafe { libc::CMSG_SPACE(payload as u32) } as usize;
    let mut control = vec![0u8; space];
    let iov = [IoSlice::new(bytes)];
    // SAFETY: `msg` points at `iov` and `control`, both alive for the call; the control
    // buffer is CMSG_SPACE(payload) bytes, so the one header CMSG_FIRSTHDR returns and
    // the `payload` bytes copied after CMSG_DATA fit in it. The descriptors are only
    // read by the kernel (it duplicates them into the peer).
    let sent = unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = iov.as_ptr() as *mut libc::iovec;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(payload as u32) as _;
        std::ptr::copy_nonoverlapping(fds.as_ptr().cast::<u8>(), libc::CMSG_DATA(cmsg), payload);
        libc::sendmsg(stream.as_raw_fd(), &msg, libc::MSG_NOSIGNAL)
    };
    if sent < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(sent as usize)
}

/// One `recvmsg` into `buf`, taking any descriptors that came (close-on-exec).
fn recv_with_fds(stream: &UnixStream, buf: &mut [u8]) -> std::io::Result<(usize, Vec<OwnedFd>)> {
    // SAFETY: CMSG_SPACE only computes a size.
    let space = unsafe { libc::CMSG_SPACE((MAX_FDS * std::mem::size_of::<RawFd>()) as u32) };
    let mut control = vec![0u8; space as usize];
    let mut iov = [IoSliceMut::new(buf)];
    loop {
        // SAFETY: `msg` points at `iov` and `control`, alive for the call and sized as
        // given. Each descriptor the kernel put in the control data is a new one of
        // this process's, owned by nobody else: wrapped in `OwnedFd` exactly once.
        // CMSG_NXTHDR stops at the end of what the kernel wrote (msg_controllen).
        let (n, fds) = unsafe {
            let mut msg: libc::msghdr = std::mem::zeroed();
            msg.msg_iov = iov.as_mut_ptr().cast();
            msg.msg_iovlen = 1;
            msg.msg_control = control.as_mut_ptr().cast();
            msg.msg_controllen = control.len() as _;
            let n = libc::recvmsg(stream.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC);
            if n < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            let mut fds = Vec::new();
            let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
            while !cmsg.is_null() {
                if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                    let data = libc::CMSG_DATA(cmsg);
                    let len = (*cmsg).cmsg_len as usize - libc::CMSG_LEN(0) as usize;
                    let count = len / std::mem::size_of::<RawFd>();
                    for i in 0..count {
                        let fd = std::ptr::read_unaligned(data.cast::<RawFd>().add(i));
                        fds.push(OwnedFd::from_raw_fd(fd));
                    }
                }
                cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
            }
            (n as usize, fds)
        };
        return Ok((n, fds));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    #[test]
    fn a_frame_carries_its_message_and_descriptors() {
        let (a, b) = UnixStream::pair().unwrap();
        let (r, w) = UnixStream::pair().unwrap();
        let hold = ToKeeper::Hold {
            pane: HeldPane {
                key: 7,
                pane: 3,
                pid: Some(42),
                what: "sh".into(),
                cwd: None,
            },
        };
        send(&a, &hold, &[w.as_raw_fd()]).unwrap();
        let (got, fds): (ToKeeper, _) = recv(&b, MAX_REQUEST_BYTES).unwrap();
        assert_eq!(got, hold);
        assert_eq!(fds.len(), 1);
        // The descriptor passed is the same socket: what is written on it reaches `r`.
        rustix::io::write(fds[0].as_fd(), b"x").unwrap();
        let mut buf = [0u8; 1];
        (&r).read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"x");
    }

    #[test]
    fn a_frame_over_the_cap_is_refused() {
        let (a, b) = UnixStream::pair().unwrap();
        (&a).write_all(&(1u32 << 30).to_le_bytes()).unwrap();
        let got = recv::<ToKeeper>(&b, MAX_REQUEST_BYTES);
        assert!(got.unwrap_err().to_string().contains("over the cap"));
    }
}
