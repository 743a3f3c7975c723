//! The editor the user's shell knows, read once from their interactive shell the way
//! kitty reads its shell's environment: many people set `EDITOR` in `.bashrc` (or
//! `.zshrc`, `config.fish`), which a desktop never reads, so tern's own environment
//! lacks it (issue 51: a `path:line` hint went to the system opener instead).
//!
//! [`read_in_background`] starts `SHELL -i -c 'printf …'` on a thread of its own
//! (stdin empty, stderr dropped, killed after [`READ_TIMEOUT`]); [`editor`] gives what
//! it found, or `None` while it runs or when it found nothing. Nothing waits for it.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long the shell may take to read its startup files and answer.
pub const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// What precedes the answer, so that whatever the startup files print is skipped.
const MARK: &str = "__tern_shell_env__";

static EDITOR: OnceLock<Option<String>> = OnceLock::new();

/// Reads `$VISUAL`, else `$EDITOR`, from `shell` started as an interactive shell, on
/// a thread of its own; once per process.
pub fn read_in_background(shell: String) {
    if EDITOR.get().is_some() {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("tern-shell-env".into())
        .spawn(move || {
            let _ = EDITOR.set(read_editor(&shell, READ_TIMEOUT));
        });
    if let Err(e) = spawned {
        eprintln!("tern: cannot read the shell's environment: {e}");
    }
}

/// The editor command line the shell's environment names, once it has been read.
pub fn editor() -> Option<String> {
    EDITOR.get().cloned().flatten()
}

/// Runs `shell -i -c` printing `$VISUAL` and `$EDITOR` after [`MARK`]; the first set,
/// or `None` (nothing set, the shell failed, or it took longer than `timeout`).
pub fn read_editor(shell: &str, timeout: Duration) -> Option<String> {
    let script = format!("printf '{MARK}%s\\n%s\\n' \"$VISUAL\" \"$EDITOR\"");
    let mut child = Command::new(shell)
        .args(["-i", "-c", &script])
        .env("TERM", "dumb")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < timeout => {
                std::thread::sleep(Duration::from_millis(10));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut out = String::new();
    child.stdout.take()?.read_to_string(&mut out).ok()?;
    let (_, answer) = out.rsplit_once(MARK)?;
    answer
        .lines()
        .take(2)
        .map(str::trim)
        .find(|v| !v.is_empty())
        .map(str::to_owned)
}
