//! `tern agents setup claude|codex [--dry-run] [--remove]`: the agent's own
//! configuration edited so that it reports to tern.
//!
//! - **Claude Code**: `settings.json` in `$CLAUDE_CONFIG_DIR` (else `~/.claude`) gets a
//!   hook per event tern reads ([`CLAUDE_EVENTS`]: `SessionStart`, `UserPromptSubmit`,
//!   `PermissionRequest` — at once when a permission dialog shows, where `Notification`
//!   comes only after 6 s without input —, `PostToolUse` — a tool ran, so the agent
//!   works again —, `Notification`, `Stop`, `SessionEnd`), each `{"hooks": [{"type": "command", "command": "TERN msg
//!   agent-event --agent claude"}]}` appended to the event's list.
//! - **Codex**: `config.toml` in `$CODEX_HOME` (else `~/.codex`) gets `notify = [TERN,
//!   "msg", "agent-event", "--agent", "codex"]` (Codex runs one notify program: one the
//!   user set is kept, and setup says how to call tern from it) and, unless set,
//!   `[tui] notifications = true`, `notification_method = "osc9"` and
//!   `notification_condition = "always"` (its approval requests then reach tern as OSC
//!   9 whether or not the window has focus; tern decides what reaches the desktop).
//!
//! The edit is merged into what the user has: their other hooks and keys stay, in
//! their order (JSON objects keep their order; TOML is edited in place with
//! `toml_edit`, comments and all). Setup is idempotent; before it changes a file it
//! keeps the old bytes beside it (`FILE.tern-backup`). `--remove` takes out exactly
//! tern's entries (a hook whose command runs `tern msg agent-event`) and, when what is
//! left is what the backup holds, puts the backup's bytes back, so a file set up and
//! removed is the user's again byte for byte. A file that does not parse is left
//! untouched, with the line and column of the problem. Writing is atomic (a temporary
//! file, then a rename, in the folder of the real file a symlink points to) and
//! happens only if the file is still what was read (two setups at once, or the agent
//! saving its settings meanwhile: the later one says so and writes nothing); the
//! folder is locked (`flock`) while a setup runs.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::AgentKind;

mod claude;
mod codex;

use claude::{claude_install, claude_remove};
use codex::{codex_install, codex_remove};

/// The Claude Code events tern's hook is installed for.
pub const CLAUDE_EVENTS: [&str; 7] = [
    "SessionStart",
    "UserPromptSubmit",
    "PermissionRequest",
    "PostToolUse",
    "Notification",
    "Stop",
    "SessionEnd",
];

/// The suffix of the backup kept beside a file setup changed.
pub const BACKUP_SUFFIX: &str = ".tern-backup";

/// Install tern's entries, or take them out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Install,
    Remove,
}

/// Where the agent's configuration is, and how the hook calls tern.
#[derive(Clone, Debug)]
pub struct SetupContext {
    /// The agent's configuration folder (`$CLAUDE_CONFIG_DIR` / `$CODEX_HOME`, else
    /// `~/.claude` / `~/.codex`).
    pub config_dir: PathBuf,
    /// The tern program the hook runs (the running binary's path).
    pub tern: String,
}

impl SetupContext {
    /// The folders as the agents find them, from the environment.
    pub fn from_env(agent: AgentKind, tern: String) -> Result<SetupContext, String> {
        let (var, default) = match agent {
            AgentKind::Claude => ("CLAUDE_CONFIG_DIR", ".claude"),
            AgentKind::Codex => ("CODEX_HOME", ".codex"),
        };
        let config_dir = match std::env::var_os(var).filter(|v| !v.is_empty()) {
            Some(dir) => PathBuf::from(dir),
            None => dirs::home_dir()
                .ok_or("no home folder (HOME is not set)")?
                .join(default),
        };
        Ok(SetupContext { config_dir, tern })
    }

    /// The file setup edits.
    pub fn file(&self, agent: AgentKind) -> PathBuf {
        match agent {
            AgentKind::Claude => self.config_dir.join("settings.json"),
            AgentKind::Codex => self.config_dir.join("config.toml"),
        }
    }

    /// The hook's command line for `agent`, as a shell reads it (Claude's hooks run
    /// through a shell) or as an argument list (Codex's `notify`).
    fn hook_words(&self, agent: AgentKind) -> Vec<String> {
        vec![
            self.tern.clone(),
            "msg".into(),
            "agent-event".into(),
            "--agent".into(),
            agent.program().into(),
        ]
    }

    fn hook_line(&self, agent: AgentKind) -> String {
        let words = self.hook_words(agent);
        shlex::try_join(words.iter().map(String::as_str)).unwrap_or_else(|_| words.join(" "))
    }
}

/// Whether a hook command (a shell line, or its words) runs `tern msg agent-event`.
pub fn is_tern_hook(words: &[String]) -> bool {
    let is_tern = words.first().is_some_and(|p| {
        Path::new(p)
            .file_name()
            .is_some_and(|n| n.to_string_lossy() == "tern")
    });
    is_tern && words.get(1..3).is_some_and(|w| w == ["msg", "agent-event"])
}

fn is_tern_line(line: &str) -> bool {
    shlex::split(line).is_some_and(|w| is_tern_hook(&w))
}

/// What a setup would do to one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The file named (as the agent reads it).
    pub file: PathBuf,
    /// The file written (the symlink's target when `file` is one).
    pub real: PathBuf,
    /// Its bytes now (`None`: no file).
    pub before: Option<Vec<u8>>,
    /// Its bytes after (`None`: the file is removed; equal to `before`: no change).
    pub after: Option<Vec<u8>>,
    /// Keep `before` as the backup (an install that changes the file).
    pub backup: bool,
    /// The backup is used up (a removal that put it back or went past it).
    pub drop_backup: bool,
    /// What the user should know (a `notify` of theirs kept, a symlink followed).
    pub notes: Vec<String>,
}

impl Plan {
    pub fn changes(&self) -> bool {
        self.before != self.after
    }

    /// The change as a unified diff of the file's lines (for `--dry-run`).
    pub fn diff(&self) -> String {
        let old = String::from_utf8_lossy(self.before.as_deref().unwrap_or_default());
        let new = String::from_utf8_lossy(self.after.as_deref().unwrap_or_default());
        let name = self.file.display().to_string();
        similar::TextDiff::from_lines(old.as_ref(), new.as_ref())
            .unified_diff()
            .header(&name, &name)
            .to_string()
    }
}

/// What a removal writes once tern's entries are out: the backup's bytes when what is
/// left means the same (`same_as`: the user's file back, byte for byte), nothing when
/// tern made the file (no backup) and nothing is left, else what is left.
fn after_removal(
    left: Vec<u8>,
    left_empty: bool,
    backup: Option<&[u8]>,
    same_as: impl Fn(&[u8]) -> bool,
) -> Option<Vec<u8>> {
    match backup {
        Some(old) if same_as(old) => Some(old.to_vec()),
        None if left_empty => None,
        _ => Some(left),
    }
}

fn backup_path(real: &Path) -> PathBuf {
    let mut name = real.as_os_str().to_owned();
    name.push(BACKUP_SUFFIX);
    PathBuf::from(name)
}

/// What `action` does to `agent`'s configuration, without writing anything.
pub fn plan(agent: AgentKind, action: Action, cx: &SetupContext) -> Result<Plan, String> {
    let file = cx.file(agent);
    let mut notes = Vec::new();
    let real = match std::fs::symlink_metadata(&file) {
        Ok(m) if m.file_type().is_symlink() => {
            let real = std::fs::canonicalize(&file)
                .map_err(|e| format!("{} is a symlink tern cannot follow: {e}", file.display()))?;
            notes.push(format!(
                "{} is a symlink: {} is edited",
                file.display(),
                real.display()
            ));
            real
        }
        _ => file.clone(),
    };
    let before = read_regular(&real)?;
    let backup = read_regular(&backup_path(&real))?;
    let text = match &before {
        Some(bytes) => Some(
            std::str::from_utf8(bytes)
                .map_err(|_| format!("{} is not UTF-8 text; left as it is", file.display()))?,
        ),
        None => None,
    };
    let after = match (agent, action) {
        (AgentKind::Claude, Action::Install) => claude_install(text, cx, &file)?,
        (AgentKind::Claude, Action::Remove) => claude_remove(text, backup.as_deref(), &file)?,
        (AgentKind::Codex, Action::Install) => codex_install(text, cx, &file, &mut notes)?,
        (AgentKind::Codex, Action::Remove) => codex_remove(text, backup.as_deref(), &file)?,
    };
    let changed = before != after;
    Ok(Plan {
        file,
        real,
        backup: action == Action::Install && changed && before.is_some(),
        drop_backup: action == Action::Remove && changed && backup.is_some(),
        before,
        after,
        notes,
    })
}

/// A regular file's bytes (`None` when there is none). A FIFO, a device or a folder is
/// refused before it is opened for reading; more than 4 MiB is refused.
fn read_regular(path: &Path) -> Result<Option<Vec<u8>>, String> {
    const MAX_BYTES: u64 = 4 << 20;
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        Ok(m) if !m.is_file() => Err(format!(
            "{} is not a regular file; left as it is",
            path.display()
        )),
        Ok(m) if m.len() > MAX_BYTES => Err(format!(
            "{} is over {MAX_BYTES} bytes; left as it is",
            path.display()
        )),
        Ok(_) => std::fs::read(path)
            .map(Some)
            .map_err(|e| format!("cannot read {}: {e}", path.display())),
    }
}

// --- Writing -------------------------------------------------------------------------

/// Carries out `plan`: the backup first, then the file, atomically, and only if it is
/// still what the plan read. The folder is locked for the whole check-and-write.
pub fn apply(plan: &Plan) -> Result<(), String> {
    if !plan.changes() {
        return Ok(());
    }
    let dir = plan
        .real
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    let _lock = DirLock::take(dir)?;
    let now = read_regular(&plan.real)?;
    if now != plan.before {
        return Err(format!(
            "{} changed while tern was editing it (another setup, or the agent saving its \
             settings); nothing written, run it again",
            plan.file.display()
        ));
    }
    if plan.before.is_some()
        && let Ok(m) = std::fs::metadata(&plan.real)
        && m.permissions().readonly()
    {
        return Err(format!(
            "{} is read-only; nothing written",
            plan.file.display()
        ));
    }
    let backup = backup_path(&plan.real);
    if plan.backup
        && let Some(before) = &plan.before
    {
        write_atomic(&backup, before, None)?;
    }
    let mode = std::fs::metadata(&plan.real)
        .ok()
        .map(|m| std::os::unix::fs::PermissionsExt::mode(&m.permissions()));
    match &plan.after {
        Some(bytes) => write_atomic(&plan.real, bytes, mode)?,
        None => std::fs::remove_file(&plan.real)
            .map_err(|e| format!("cannot remove {}: {e}", plan.file.display()))?,
    }
    if plan.drop_backup {
        let _ = std::fs::remove_file(&backup);
    }
    Ok(())
}

/// Writes `bytes` to a temporary file beside `path`, then renames it over `path`.
fn write_atomic(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<(), String> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| format!("cannot write in {}: {e}", dir.display()))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    if let Some(mode) = mode {
        use std::os::unix::fs::PermissionsExt as _;
        let _ = tmp
            .as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode));
    }
    tmp.persist(path)
        .map(|_| ())
        .map_err(|e| format!("cannot write {}: {}", path.display(), e.error))
}

/// An exclusive `flock` on a folder, held while it lives.
struct DirLock(std::fs::File);

impl DirLock {
    fn take(dir: &Path) -> Result<DirLock, String> {
        let f =
            std::fs::File::open(dir).map_err(|e| format!("cannot open {}: {e}", dir.display()))?;
        rustix::fs::flock(&f, rustix::fs::FlockOperation::LockExclusive)
            .map_err(|e| format!("cannot lock {}: {e}", dir.display()))?;
        Ok(DirLock(f))
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        let _ = rustix::fs::flock(&self.0, rustix::fs::FlockOperation::Unlock);
    }
}

#[cfg(test)]
mod tests;
