//! Spawning a program in a pty (portable-pty), with typed errors.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::PathBuf;

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};
use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};

use crate::model::{DEFAULT_CELL_PIXELS, TermSize};

/// What to run and where.
#[derive(Clone, Debug, Default)]
pub struct SpawnSpec {
    /// Program and arguments; `None` runs the user's shell
    /// (`crate::shell_integration::login_shell`).
    pub command: Option<(String, Vec<String>)>,
    /// With no `command`: start the user's shell as a login shell (`-l`).
    pub login_shell: bool,
    /// Working directory; `None` is tern's own.
    pub cwd: Option<PathBuf>,
    pub size: Option<TermSize>,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
    /// The folder of tern's shell-integration scripts (`crate::shell_integration`);
    /// `None` starts shells untouched.
    pub shell_integration: Option<PathBuf>,
    /// The pane's key from before (a restored session's): its kept history is shown
    /// first and goes on being written under it.
    pub history_key: Option<u64>,
}

impl SpawnSpec {
    pub fn command(program: impl Into<String>, args: &[&str]) -> SpawnSpec {
        SpawnSpec {
            command: Some((program.into(), args.iter().map(|a| a.to_string()).collect())),
            ..SpawnSpec::default()
        }
    }

    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> SpawnSpec {
        self.cwd = Some(dir.into());
        self
    }

    pub fn size(mut self, size: TermSize) -> SpawnSpec {
        self.size = Some(size);
        self
    }
}

/// Why a spawn failed.
#[derive(Debug, PartialEq, Eq)]
pub enum SpawnError {
    /// The working directory does not exist or is not a directory.
    BadDirectory(PathBuf),
    /// The program could not be found or started.
    Program { program: String, reason: String },
    /// The pty could not be opened.
    Pty(String),
}

impl std::fmt::Display for SpawnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpawnError::BadDirectory(dir) => {
                write!(
                    f,
                    "working directory {} does not exist or is not a directory",
                    dir.display()
                )
            }
            SpawnError::Program { program, reason } => {
                write!(f, "cannot start {program}: {reason}")
            }
            SpawnError::Pty(reason) => write!(f, "cannot open a pty: {reason}"),
        }
    }
}

impl std::error::Error for SpawnError {}

/// A running child in a pty. `fd` is a non-blocking duplicate of the master for the
/// I/O pool; `master` stays for resizes.
pub struct Spawned {
    pub master: Box<dyn MasterPty + Send>,
    pub child: Box<dyn Child + Send + Sync>,
    pub fd: OwnedFd,
    pub pid: Option<u32>,
    /// A pidfd for the child (Linux 5.3+), opened before anyone could reap it: signals
    /// sent through it can never reach another process that reused the pid.
    pub pidfd: Option<OwnedFd>,
    /// Something the user should know about how it started (shell integration that
    /// could not be set up): one breadcrumb.
    pub note: Option<String>,
}

/// Sends SIGHUP to the child through its pidfd; a child already reaped gets nothing
/// (ESRCH). Returns false when there is no pidfd (the caller falls back to the pid).
pub fn hang_up(pidfd: Option<&OwnedFd>) -> bool {
    match pidfd {
        Some(fd) => {
            let _ = rustix::process::pidfd_send_signal(fd, rustix::process::Signal::HUP);
            true
        }
        None => false,
    }
}

/// The pty's size for `size` cells of the model's first cell size
/// ([`DEFAULT_CELL_PIXELS`]): a program started before the window says its cell size
/// (and every program in `--headless`) reads the pixel size the model answers
/// XTWINOPS 14 with, not 0 (timg, for one, asks for images only when it is not 0).
pub fn pty_size(size: TermSize) -> PtySize {
    // The model's limits, so the program and the model agree on the size.
    let size = size.clamped();
    let px = |cells: usize, cell: usize| (cells * cell).min(usize::from(u16::MAX)) as u16;
    PtySize {
        rows: size.rows as u16,
        cols: size.cols as u16,
        pixel_width: px(size.cols, DEFAULT_CELL_PIXELS.0),
        pixel_height: px(size.rows, DEFAULT_CELL_PIXELS.1),
    }
}

/// Sets the pty's window size (TIOCSWINSZ on the master; the kernel sends SIGWINCH to
/// the foreground process group when it changed).
pub fn set_winsize(fd: BorrowedFd<'_>, size: TermSize) -> std::io::Result<()> {
    let size = pty_size(size);
    let winsize = rustix::termios::Winsize {
        ws_row: size.rows,
        ws_col: size.cols,
        ws_xpixel: size.pixel_width,
        ws_ypixel: size.pixel_height,
    };
    rustix::termios::tcsetwinsize(fd, winsize)?;
    Ok(())
}

/// [`set_winsize`] with the window's size in pixels too (`ws_xpixel`, `ws_ypixel`:
/// the cells' size times their count, what programs that size images read).
pub fn set_winsize_px(
    fd: BorrowedFd<'_>,
    size: TermSize,
    cell_px: (usize, usize),
) -> std::io::Result<()> {
    let size = pty_size(size);
    let px =
        |cells: u16, cell: usize| (usize::from(cells) * cell).min(usize::from(u16::MAX)) as u16;
    let winsize = rustix::termios::Winsize {
        ws_row: size.rows,
        ws_col: size.cols,
        ws_xpixel: px(size.cols, cell_px.0),
        ws_ypixel: px(size.rows, cell_px.1),
    };
    rustix::termios::tcsetwinsize(fd, winsize)?;
    Ok(())
}

pub fn set_nonblocking(fd: BorrowedFd<'_>) -> std::io::Result<()> {
    let flags = fcntl_getfl(fd)?;
    fcntl_setfl(fd, flags | OFlags::NONBLOCK)?;
    Ok(())
}

/// tern's own variables (`TERN_TRACE`, `TERN_SESSION`, `TERN_CONFIG`, ...) describe this
/// tern: a nested tern or another program in a pane must not share its trace file or
/// session. Those tern sets for its children on purpose are set after this.
fn remove_inherited_tern_vars(cmd: &mut CommandBuilder) {
    for (key, _) in std::env::vars_os() {
        if key.as_encoded_bytes().starts_with(b"TERN_") {
            cmd.env_remove(key);
        }
    }
}

/// The program and arguments `spec` starts: its command, else the user's shell, as a
/// login shell (`-l`) when the spec asks for one.
fn program_and_args(spec: &SpawnSpec) -> (String, Vec<String>) {
    match &spec.command {
        Some((program, args)) => (program.clone(), args.clone()),
        None => (
            crate::shell_integration::login_shell(),
            if spec.login_shell {
                vec!["-l".to_owned()]
            } else {
                Vec::new()
            },
        ),
    }
}

/// The shell-integrated command for `spec`, if it runs an interactive bash, zsh or
/// fish.
fn integrate(
    spec: &SpawnSpec,
    dir: &std::path::Path,
) -> Option<crate::shell_integration::Injected> {
    let (program, args) = program_and_args(spec);
    let get_env = |key: &str| {
        spec.env
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(key).ok())
    };
    crate::shell_integration::inject(&program, &args, dir, &get_env)
}

pub fn spawn(spec: &SpawnSpec, default_size: TermSize) -> Result<Spawned, SpawnError> {
    if let Some(dir) = &spec.cwd
        && !dir.is_dir()
    {
        // portable-pty would silently fall back to $HOME.
        return Err(SpawnError::BadDirectory(dir.clone()));
    }
    let size = spec.size.unwrap_or(default_size);
    let pair = native_pty_system()
        .openpty(pty_size(size))
        .map_err(|e| SpawnError::Pty(e.to_string()))?;
    // The scripts are (re)written before every integrated shell starts, so a runtime
    // folder cleaned while tern runs heals itself; when they cannot be written, the
    // shell starts plain (no `--posix`, no `ENV`) rather than reading nothing.
    let mut note = None;
    let injected = match spec.shell_integration.as_deref() {
        Some(dir) => {
            integrate(spec, dir).and_then(|i| match crate::shell_integration::install(dir) {
                Ok(_) => Some(i),
                Err(e) => {
                    note = Some(format!(
                        "shell integration off for {}: cannot write its scripts to {}: {e}",
                        i.program,
                        dir.display()
                    ));
                    None
                }
            })
        }
        None => None,
    };
    let (program, args) = match &injected {
        Some(i) => (i.program.clone(), i.args.clone()),
        None => program_and_args(spec),
    };
    let mut cmd = CommandBuilder::new(&program);
    cmd.args(&args);
    // Without a directory the child starts where tern runs (portable-pty would use $HOME).
    if let Some(dir) = spec.cwd.clone().or_else(|| std::env::current_dir().ok()) {
        cmd.cwd(dir);
    }
    remove_inherited_tern_vars(&mut cmd);
    cmd.env("TERM", "xterm-256color");
    cmd.env("COLORTERM", "truecolor");
    cmd.env("TERM_PROGRAM", "tern");
    cmd.env("TERM_PROGRAM_VERSION", crate::model::VERSION);
    for (k, v) in &spec.env {
        cmd.env(k, v);
    }
    for (k, v) in injected.iter().flat_map(|i| &i.env) {
        cmd.env(k, v);
    }
    let child = pair
        .slave
        .spawn_command(cmd)
        .map_err(|e| SpawnError::Program {
            program: program.clone(),
            reason: format!("{e:#}"),
        })?;
    // The child holds its own copy of the slave; ours must go so EOF arrives on exit.
    drop(pair.slave);
    let master = pair.master;
    let raw = master
        .as_raw_fd()
        .ok_or_else(|| SpawnError::Pty("the master has no file descriptor".into()))?;
    // SAFETY: `raw` is the master's open descriptor, which `master` keeps open for the
    // duration of this borrow; we only duplicate it.
    let borrowed = unsafe { BorrowedFd::borrow_raw(raw) };
    // Close-on-exec: helpers tern starts (git, xdg-open, dialogs) must not inherit a
    // pane's master (they could read or type into it, and keep it from hanging up).
    let fd =
        rustix::io::fcntl_dupfd_cloexec(borrowed, 0).map_err(|e| SpawnError::Pty(e.to_string()))?;
    set_nonblocking(fd.as_fd()).map_err(|e| SpawnError::Pty(e.to_string()))?;
    let pid = child.process_id();
    // Nobody can have reaped the child yet (its `Child` is still here), so the pid is
    // still the child's. pidfds are always close-on-exec.
    let pidfd = pid
        .and_then(|p| rustix::process::Pid::from_raw(p as i32))
        .and_then(|p| rustix::process::pidfd_open(p, rustix::process::PidfdFlags::empty()).ok());
    Ok(Spawned {
        master,
        child,
        fd,
        pid,
        pidfd,
        note,
    })
}
