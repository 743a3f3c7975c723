//! The socket server: a thread that accepts connections in a 0700 folder, checks each
//! peer's uid, reads one request line (with a deadline) and hands it to the app as a
//! [`IpcCall`]. The app answers on the call's reply channel from its own loop; the
//! connection's thread waits for that answer (with a deadline), writes it and closes.
//!
//! Nothing here blocks the app: a client that connects and never writes times out on
//! its own thread, and at most [`MAX_CONNECTIONS`] are served at once (the rest are
//! told to retry).

use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use super::{MAX_REQUEST_BYTES, Request, Response, parse_request};

/// Connections served at once.
pub const MAX_CONNECTIONS: usize = 16;
/// How long a client may take to send its request line.
pub const READ_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a connection waits for the app's answer.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);

/// A request for the app, and where its answer goes.
#[derive(Debug)]
pub struct IpcCall {
    pub request: Request,
    pub reply: mpsc::Sender<Response>,
    /// The caller's process id (SO_PEERCRED), for the policy on what a pane's program
    /// may do (`workspace::remote_policy`); `None` when the kernel did not say.
    pub caller_pid: Option<u32>,
}

impl IpcCall {
    /// Answers the client (a client that has gone is no error).
    pub fn answer(self, response: Response) {
        let _ = self.reply.send(response);
    }
}

/// Why the server did not start.
#[derive(Debug)]
pub enum BindError {
    /// Another live tern listens on that path (the caller may talk to it instead).
    InUse(PathBuf),
    /// The socket folder is not ours or not private, and could not be made so.
    UnsafeDir { dir: PathBuf, reason: String },
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl std::fmt::Display for BindError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BindError::InUse(p) => write!(f, "another tern listens on {}", p.display()),
            BindError::UnsafeDir { dir, reason } => {
                write!(f, "refusing socket folder {}: {reason}", dir.display())
            }
            BindError::Io { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for BindError {}

/// A listening socket; dropping it stops the thread and removes the socket file.
pub struct IpcServer {
    path: PathBuf,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl IpcServer {
    /// Binds `path` (its folder made 0700 if missing; refused if owned by someone else
    /// or open to others). A socket file left by a tern that died is replaced; one a
    /// live tern answers on is [`BindError::InUse`]. Each call is sent on `calls`, then
    /// `wake` runs (the app's repaint request).
    pub fn bind(
        path: &Path,
        calls: mpsc::Sender<IpcCall>,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> Result<IpcServer, BindError> {
        if let Some(dir) = path.parent() {
            private_dir(dir)?;
        }
        let io = |error| BindError::Io {
            path: path.to_owned(),
            error,
        };
        if path.exists() {
            if UnixStream::connect(path).is_ok() {
                return Err(BindError::InUse(path.to_owned()));
            }
            // Nobody answers: a tern that died left it.
            std::fs::remove_file(path).map_err(io)?;
        }
        let listener = bind_listening(path).map_err(io)?;
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let stop = stop.clone();
            std::thread::Builder::new()
                .name("tern-ipc".into())
                .spawn(move || accept_loop(listener, calls, wake, stop))
                .map_err(io)?
        };
        Ok(IpcServer {
            path: path.to_owned(),
            stop,
            thread: Some(thread),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for IpcServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the blocking accept so the thread sees the flag.
        let _ = UnixStream::connect(&self.path);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Binds `path` so that its file appears only once it listens and is 0600: bound
/// under a name of this process's, made private, then linked into place (a client
/// that connects the moment it sees the file is answered, never refused between
/// `bind` and `listen`). The link fails if the path was taken meanwhile, as `bind`
/// there would: a second tern started at the same moment does not take the first's.
pub(crate) fn bind_listening(path: &Path) -> std::io::Result<UnixListener> {
    let mut name = std::ffi::OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(format!(".{}.binding", std::process::id()));
    let staged = path.with_file_name(name);
    let _ = std::fs::remove_file(&staged);
    let listener = match UnixListener::bind(&staged) {
        Ok(l) => l,
        // The staged name is over the socket path limit where `path` is not: bound in
        // place (the file then shows a moment before it listens).
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
            let listener = UnixListener::bind(path)?;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
            return Ok(listener);
        }
        Err(e) => return Err(e),
    };
    let placed = std::fs::set_permissions(&staged, std::fs::Permissions::from_mode(0o600))
        .and_then(|()| std::fs::hard_link(&staged, path));
    let _ = std::fs::remove_file(&staged);
    placed.map(|()| listener)
}

/// Makes `dir` (0700) or checks that it is ours and private (fixing the mode of our
/// own folder).
pub(crate) fn private_dir(dir: &Path) -> Result<(), BindError> {
    let unsafe_dir = |reason: String| BindError::UnsafeDir {
        dir: dir.to_owned(),
        reason,
    };
    match std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
    {
        Ok(()) => {}
        Err(e) => return Err(unsafe_dir(e.to_string())),
    }
    let meta = std::fs::symlink_metadata(dir).map_err(|e| unsafe_dir(e.to_string()))?;
    if !meta.is_dir() {
        return Err(unsafe_dir("not a folder".into()));
    }
    let uid = rustix::process::getuid().as_raw();
    if meta.uid() != uid {
        return Err(unsafe_dir(format!(
            "owned by uid {}, not {uid}",
            meta.uid()
        )));
    }
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| unsafe_dir(format!("cannot make it private: {e}")))?;
    }
    Ok(())
}

fn accept_loop(
    listener: UnixListener,
    calls: mpsc::Sender<IpcCall>,
    wake: Arc<dyn Fn() + Send + Sync>,
    stop: Arc<AtomicBool>,
) {
    let active = Arc::new(AtomicUsize::new(0));
    for conn in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(mut stream) = conn else { continue };
        if active.load(Ordering::SeqCst) >= MAX_CONNECTIONS {
            let _ = stream.write_all(
                Response::error("tern is busy; try again")
                    .to_line()
                    .as_bytes(),
            );
            continue;
        }
        active.fetch_add(1, Ordering::SeqCst);
        let (calls, wake, done) = (calls.clone(), wake.clone(), active.clone());
        let spawned = std::thread::Builder::new()
            .name("tern-ipc-conn".into())
            .spawn(move || {
                let response = serve(&stream, &calls, &*wake);
                let _ = stream.write_all(response.to_line().as_bytes());
                done.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            active.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// Reads one request line before `deadline`: a deadline for the whole request, not
/// per `read()`, so a client that sends a byte now and then cannot hold a slot longer
/// than [`READ_TIMEOUT`]. The error is the response that says why.
fn read_request_line(mut stream: &UnixStream, deadline: Instant) -> Result<String, Response> {
    let late = || {
        Response::error(format!(
            "no request line within {} s",
            READ_TIMEOUT.as_secs()
        ))
    };
    let mut line = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(late());
        }
        let _ = stream.set_read_timeout(Some(left));
        let n = match stream.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err(late());
            }
            Err(e) => return Err(Response::error(format!("cannot read the request: {e}"))),
        };
        if n == 0 {
            if line.is_empty() {
                return Err(Response::error("no request was sent"));
            }
            break;
        }
        let got = &buf[..n];
        if let Some(end) = got.iter().position(|&b| b == b'\n') {
            line.extend_from_slice(&got[..=end]);
            break;
        }
        line.extend_from_slice(got);
        if line.len() > MAX_REQUEST_BYTES {
            break;
        }
    }
    if line.len() > MAX_REQUEST_BYTES {
        return Err(Response::error(format!(
            "the request is longer than {MAX_REQUEST_BYTES} bytes"
        )));
    }
    String::from_utf8(line).map_err(|_| Response::error("cannot read the request: it is not UTF-8"))
}

/// Reads, checks and forwards one request; the response to write back.
fn serve(stream: &UnixStream, calls: &mpsc::Sender<IpcCall>, wake: &dyn Fn()) -> Response {
    let caller_pid = match super::peer_cred(stream) {
        Ok(c) if c.uid == rustix::process::getuid().as_raw() => u32::try_from(c.pid).ok(),
        Ok(c) => return Response::error(format!("uid {} may not control this tern", c.uid)),
        Err(e) => return Response::error(format!("cannot check the caller: {e}")),
    };
    let _ = stream.set_write_timeout(Some(READ_TIMEOUT));
    let line = match read_request_line(stream, Instant::now() + READ_TIMEOUT) {
        Ok(line) => line,
        Err(response) => return response,
    };
    let request = match parse_request(&line) {
        Ok(r) => r,
        Err(e) => return Response::error(e),
    };
    let (tx, rx) = mpsc::channel();
    let timeout = request.answer_timeout();
    let call = IpcCall {
        request,
        reply: tx,
        caller_pid,
    };
    if calls.send(call).is_err() {
        return Response::error("tern is shutting down");
    }
    wake();
    rx.recv_timeout(timeout)
        .unwrap_or_else(|_| Response::error("tern did not answer in time"))
}
