//! tern's side of the keeper's socket: attaching (with the checks `tern msg` makes on
//! its socket: the folder ours and private, the socket file ours and 0600, the process
//! listening ours by `SO_PEERCRED`), taking held panes back, starting a keeper, and
//! stopping one.

use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use base64::Engine;

use super::protocol::{
    self, FromKeeper, HeldPane, HeldState, MAX_FRAME_BYTES, OLDEST_PROTOCOL, PROTOCOL_VERSION,
    ToKeeper,
};

/// How long tern waits for any one answer of the keeper.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a started keeper may take to answer on its socket.
pub const START_TIMEOUT: Duration = Duration::from_secs(30);

/// Why tern has no keeper.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttachError {
    /// Nobody listens there.
    NoKeeper,
    /// A keeper is there and may not be used (another user's, another tern attached,
    /// a protocol this tern cannot read): its programs are left running.
    Refused(String),
}

impl std::fmt::Display for AttachError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AttachError::NoKeeper => f.write_str("no keeper runs"),
            AttachError::Refused(why) => f.write_str(why),
        }
    }
}

/// A connection to a keeper, attached (the keeper only holds while it lasts).
#[derive(Debug)]
pub struct Attached {
    stream: UnixStream,
    /// The keeper's protocol version and build.
    pub protocol: u32,
    pub keeper: String,
    /// What it held when tern attached, with each pane's state.
    pub panes: Vec<HeldState>,
}

/// A held pane taken back: duplicates of its descriptors and what its ring kept.
#[derive(Debug)]
pub struct Taken {
    pub state: HeldState,
    pub bytes: Vec<u8>,
    pub master: OwnedFd,
    pub pidfd: Option<OwnedFd>,
}

/// Refuses a socket whose folder or file is not the user's own and private.
pub fn check_socket(socket: &Path) -> Result<(), String> {
    let uid = rustix::process::getuid().as_raw();
    if let Some(dir) = socket.parent().filter(|d| !d.as_os_str().is_empty()) {
        crate::ipc::client::check_socket_dir(dir, uid)?;
    }
    let meta = std::fs::symlink_metadata(socket).map_err(|e| e.to_string())?;
    if meta.uid() != uid {
        return Err(format!(
            "refusing the keeper at {}: owned by uid {}, not by you (uid {uid})",
            socket.display(),
            meta.uid()
        ));
    }
    if meta.mode() & 0o077 != 0 {
        return Err(format!(
            "refusing the keeper at {}: its mode is {:o}, open to others",
            socket.display(),
            meta.mode() & 0o777
        ));
    }
    Ok(())
}

fn connect(socket: &Path) -> Result<UnixStream, AttachError> {
    if !socket.exists() {
        return Err(AttachError::NoKeeper);
    }
    check_socket(socket).map_err(AttachError::Refused)?;
    let stream = UnixStream::connect(socket).map_err(|_| AttachError::NoKeeper)?;
    let uid = rustix::process::getuid().as_raw();
    crate::ipc::client::check_server(&stream, uid).map_err(AttachError::Refused)?;
    let _ = stream.set_read_timeout(Some(ANSWER_TIMEOUT));
    let _ = stream.set_write_timeout(Some(ANSWER_TIMEOUT));
    Ok(stream)
}

/// Attaches to the keeper at `socket`: from now until the connection drops it only
/// holds.
pub fn attach(socket: &Path) -> Result<Attached, AttachError> {
    let stream = connect(socket)?;
    let hello = ToKeeper::Hello {
        protocol: PROTOCOL_VERSION,
        tern: crate::model::VERSION.to_owned(),
    };
    let refused =
        |e: std::io::Error| AttachError::Refused(format!("the keeper did not answer: {e}"));
    protocol::send(&stream, &hello, &[]).map_err(refused)?;
    let (answer, _) = protocol::recv::<FromKeeper>(&stream, MAX_FRAME_BYTES).map_err(refused)?;
    match answer {
        FromKeeper::Welcome {
            protocol,
            keeper,
            panes,
        } => {
            if !(OLDEST_PROTOCOL..=PROTOCOL_VERSION).contains(&protocol) {
                return Err(AttachError::Refused(format!(
                    "the keeper (tern {keeper}) speaks protocol {protocol}; this tern reads \
                     {OLDEST_PROTOCOL} to {PROTOCOL_VERSION}: its programs are left running"
                )));
            }
            Ok(Attached {
                stream,
                protocol,
                keeper,
                panes,
            })
        }
        FromKeeper::Refused { reason } => Err(AttachError::Refused(reason)),
        other => Err(AttachError::Refused(format!(
            "the keeper answered {other:?}"
        ))),
    }
}

impl Attached {
    /// Takes a held pane back (the keeper goes on holding it for this tern).
    pub fn take(&self, key: u64) -> Result<Taken, String> {
        let (answer, mut fds) = self.ask(&ToKeeper::Take { key }, &[])?;
        match answer {
            FromKeeper::Taken { state, bytes } if !fds.is_empty() => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(bytes)
                    .map_err(|e| format!("the keeper sent bytes that do not decode: {e}"))?;
                let master = fds.remove(0);
                let pidfd = (!fds.is_empty()).then(|| fds.remove(0));
                Ok(Taken {
                    state,
                    bytes,
                    master,
                    pidfd,
                })
            }
            other => Err(format!(
                "the keeper did not hand pane {key} over: {other:?}"
            )),
        }
    }

    /// Hands a pane to the keeper.
    pub fn hold(
        &self,
        pane: &HeldPane,
        master: &OwnedFd,
        pidfd: Option<&OwnedFd>,
    ) -> Result<(), String> {
        let mut fds = vec![master.as_raw_fd()];
        fds.extend(pidfd.map(|p| p.as_raw_fd()));
        self.done(&ToKeeper::Hold { pane: pane.clone() }, &fds)
    }

    pub fn release(&self, key: u64) -> Result<(), String> {
        self.done(&ToKeeper::Release { key }, &[])
    }

    fn done(&self, request: &ToKeeper, fds: &[std::os::fd::RawFd]) -> Result<(), String> {
        match self.ask(request, fds)?.0 {
            FromKeeper::Done => Ok(()),
            FromKeeper::Error { message } | FromKeeper::Refused { reason: message } => Err(message),
            other => Err(format!("the keeper answered {other:?}")),
        }
    }

    fn ask(
        &self,
        request: &ToKeeper,
        fds: &[std::os::fd::RawFd],
    ) -> Result<(FromKeeper, Vec<OwnedFd>), String> {
        protocol::send(&self.stream, request, fds).map_err(|e| format!("the keeper: {e}"))?;
        protocol::recv(&self.stream, MAX_FRAME_BYTES).map_err(|e| format!("the keeper: {e}"))
    }

    /// The connection (readable only when the keeper went away).
    pub fn stream(&self) -> &UnixStream {
        &self.stream
    }
}

/// Starts a keeper (`exe keeper --serve`) for `socket`, in a session of its own with
/// its standard streams on /dev/null, and waits until it answers there.
pub fn start_keeper(exe: &Path, socket: &Path) -> Result<(), String> {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    let mut cmd = Command::new(exe);
    cmd.args(["keeper", "--serve", "--socket"])
        .arg(socket)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .current_dir("/");
    // SAFETY: the closure runs in the child between fork and exec and calls only
    // setsid(2), which is async-signal-safe; it allocates nothing and takes no lock.
    unsafe {
        cmd.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start the keeper ({}): {e}", exe.display()))?;
    let deadline = Instant::now() + START_TIMEOUT;
    let outcome = loop {
        if socket.exists() && UnixStream::connect(socket).is_ok() {
            break Ok(());
        }
        // It ended without opening the socket (it could not bind, or found another
        // keeper that has just gone): say so now rather than at the deadline.
        if let Ok(Some(status)) = child.try_wait() {
            break if UnixStream::connect(socket).is_ok() {
                Ok(())
            } else {
                Err(format!(
                    "the keeper ended at start ({status}) without opening {}",
                    socket.display()
                ))
            };
        }
        if Instant::now() >= deadline {
            break Err(format!(
                "the keeper did not open {} in {START_TIMEOUT:?}",
                socket.display()
            ));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // Reaped by a thread of its own whenever it ends (it outlives this tern if it must).
    let _ = std::thread::Builder::new()
        .name("tern-keeper-reap".into())
        .spawn(move || {
            let _ = child.wait();
        });
    outcome
}

/// Asks the keeper at `socket` to hang up every program it holds and exit.
pub fn stop(socket: &Path) -> Result<(), String> {
    let stream = connect(socket).map_err(|e| e.to_string())?;
    protocol::send(&stream, &ToKeeper::Stop, &[]).map_err(|e| e.to_string())?;
    match protocol::recv::<FromKeeper>(&stream, MAX_FRAME_BYTES) {
        Ok((FromKeeper::Done, _)) => Ok(()),
        Ok((other, _)) => Err(format!("the keeper answered {other:?}")),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::net::UnixListener;

    /// A stand-in keeper answering hello with `protocol`.
    fn keeper_speaking(protocol: u32) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let socket = dir.path().join("keeper.sock");
        let listener = UnixListener::bind(&socket).unwrap();
        std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            let _ = protocol::recv::<ToKeeper>(&stream, MAX_FRAME_BYTES);
            let welcome = FromKeeper::Welcome {
                protocol,
                keeper: "9.9.9".into(),
                panes: Vec::new(),
            };
            protocol::send(&stream, &welcome, &[]).unwrap();
        });
        (dir, socket)
    }

    #[test]
    fn a_keeper_speaking_a_protocol_this_tern_cannot_read_is_refused_with_the_reason() {
        let (_dir, socket) = keeper_speaking(PROTOCOL_VERSION + 1);
        match attach(&socket) {
            Err(AttachError::Refused(why)) => {
                assert!(why.contains("tern 9.9.9"), "{why}");
                assert!(why.contains("left running"), "{why}");
            }
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn a_keeper_of_a_readable_protocol_is_attached() {
        let (_dir, socket) = keeper_speaking(OLDEST_PROTOCOL);
        let attached = attach(&socket).expect("attached");
        assert_eq!(attached.protocol, OLDEST_PROTOCOL);
        assert_eq!(attached.keeper, "9.9.9");
    }

    #[test]
    fn a_keeper_socket_open_to_others_is_refused_before_anything_is_sent() {
        let (_dir, socket) = keeper_speaking(PROTOCOL_VERSION);
        std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o666)).unwrap();
        match attach(&socket) {
            Err(AttachError::Refused(why)) => assert!(why.contains("open to others"), "{why}"),
            other => panic!("not refused: {other:?}"),
        }
    }
}
