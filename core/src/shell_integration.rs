//! Shell integration without touching the user's files, the way kitty and Ghostty do
//! it: the scripts in `assets/shell/` (built into the binary) are written to a private
//! folder, and a bash, zsh or fish started as an interactive shell is pointed at them
//! through `ENV` (bash in POSIX mode), `ZDOTDIR` (zsh) or `XDG_DATA_DIRS` (fish). Each
//! script reads the user's own startup files first, then installs hooks that print
//! OSC 133 A/B/C/D (prompt, input, output, finished with status) and OSC 7 (host and
//! directory). Any other program, or a shell given a script or `-c`, runs untouched.

use std::io;
use std::path::{Path, PathBuf};

const BASH: &str = include_str!("../assets/shell/bash/tern.bash");
const ZSH_ENV: &str = include_str!("../assets/shell/zsh/.zshenv");
const ZSH: &str = include_str!("../assets/shell/zsh/tern-integration.zsh");
const FISH: &str = include_str!("../assets/shell/fish/vendor_conf.d/tern-integration.fish");

/// The files, relative to the integration folder.
const FILES: [(&str, &str); 4] = [
    ("bash/tern.bash", BASH),
    ("zsh/.zshenv", ZSH_ENV),
    ("zsh/tern-integration.zsh", ZSH),
    ("fish/vendor_conf.d/tern-integration.fish", FISH),
];

/// Shells tern integrates with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

impl Shell {
    /// Recognizes a shell by its program's file name (`/usr/bin/zsh`, `-bash`).
    pub fn detect(program: &str) -> Option<Shell> {
        let name = Path::new(program).file_name()?.to_str()?;
        match name.trim_start_matches('-') {
            "bash" => Some(Shell::Bash),
            "zsh" => Some(Shell::Zsh),
            "fish" => Some(Shell::Fish),
            _ => None,
        }
    }
}

/// The folder the scripts are written to: `$XDG_RUNTIME_DIR/tern/shell-<version>`
/// (private to the user), else the cache folder.
pub fn default_dir() -> Option<PathBuf> {
    let base = dirs::runtime_dir().or_else(dirs::cache_dir)?;
    Some(
        base.join("tern")
            .join(format!("shell-{}", crate::model::VERSION)),
    )
}

/// Writes the scripts under `dir` (atomically, only what differs) and returns `dir`.
/// The folder must be the user's own and not writable by others, since shells will
/// run what is in it.
pub fn install(dir: &Path) -> io::Result<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let meta = std::fs::metadata(dir)?;
    if meta.uid() != rustix::process::getuid().as_raw() || meta.permissions().mode() & 0o022 != 0 {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} is not a private folder of this user; shell integration is off",
                dir.display()
            ),
        ));
    }
    for (rel, text) in FILES {
        let path = dir.join(rel);
        if std::fs::read(&path).is_ok_and(|old| old == text.as_bytes()) {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(parent)?;
        }
        crate::atomic_file::write_atomic(&path, text.as_bytes())?;
    }
    Ok(dir.to_owned())
}

/// A program, its arguments and the environment it needs, after injection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Injected {
    pub program: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// Whether `args` start an interactive shell (no script, no `-c`): only flags such as
/// `-l`, `--login`, `-i`.
fn interactive_args(args: &[String]) -> bool {
    args.iter().all(|a| {
        matches!(
            a.as_str(),
            "-l" | "--login" | "-i" | "--interactive" | "--norc" | "--noprofile" | "-il" | "-li"
        )
    })
}

/// How to start `program args` with integration from `dir`, or `None` when it is not
/// an interactive bash, zsh or fish. `get_env` reads the environment the child would
/// inherit (tests pass their own).
pub fn inject(
    program: &str,
    args: &[String],
    dir: &Path,
    get_env: &dyn Fn(&str) -> Option<String>,
) -> Option<Injected> {
    let shell = Shell::detect(program)?;
    if !interactive_args(args) {
        return None;
    }
    let dir_str = dir.to_str()?.to_owned();
    let mut env = vec![("TERN_SHELL_INTEGRATION_DIR".to_owned(), dir_str.clone())];
    let mut new_args = Vec::new();
    match shell {
        Shell::Bash => {
            // `--posix` makes bash read $ENV and nothing else; the script leaves POSIX
            // mode and reads the usual files itself. bash wants long options first.
            let flags: Vec<&str> = args
                .iter()
                .map(String::as_str)
                .filter(|a| matches!(*a, "--norc" | "--noprofile"))
                .collect();
            env.push(("TERN_BASH_INJECT".into(), format!("1 {}", flags.join(" "))));
            if let Some(old) = get_env("ENV") {
                env.push(("TERN_BASH_ENV".into(), old));
            }
            if get_env("HISTFILE").is_none() {
                // POSIX mode would default to ~/.sh_history.
                let home = get_env("HOME").unwrap_or_default();
                env.push(("HISTFILE".into(), format!("{home}/.bash_history")));
                env.push(("TERN_BASH_UNEXPORT_HISTFILE".into(), "1".into()));
            }
            env.push(("ENV".into(), format!("{dir_str}/bash/tern.bash")));
            new_args.push("--posix".to_owned());
            let login = args
                .iter()
                .any(|a| matches!(a.as_str(), "-l" | "--login" | "-il" | "-li"));
            if login {
                new_args.push("--login".to_owned());
                // Debian's /etc/profile sets PATH afresh: the script puts tern's own
                // folders back (at the end) after the profile.
                if let Some(path) = get_env("PATH") {
                    env.push(("TERN_BASH_PATH".into(), path));
                }
            }
            new_args.push("-i".to_owned());
        }
        Shell::Zsh => {
            if let Some(old) = get_env("ZDOTDIR") {
                env.push(("TERN_ZSH_ZDOTDIR".into(), old));
            }
            env.push(("ZDOTDIR".into(), format!("{dir_str}/zsh")));
            new_args.extend(args.iter().cloned());
        }
        Shell::Fish => {
            let rest = get_env("XDG_DATA_DIRS")
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| "/usr/local/share:/usr/share".into());
            env.push(("XDG_DATA_DIRS".into(), format!("{dir_str}:{rest}")));
            new_args.extend(args.iter().cloned());
        }
    }
    Some(Injected {
        program: program.to_owned(),
        args: new_args,
        env,
    })
}

/// The user's login shell, as portable-pty finds it: an executable `$SHELL`, else the
/// password database's entry, else `/bin/sh`.
pub fn login_shell() -> String {
    portable_pty::CommandBuilder::new_default_prog().get_shell()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn only_interactive_shells_are_touched() {
        let dir = Path::new("/run/t");
        assert!(inject("/usr/bin/python3", &[], dir, &no_env).is_none());
        assert!(inject("bash", &["-c".into(), "ls".into()], dir, &no_env).is_none());
        assert!(inject("zsh", &["script.zsh".into()], dir, &no_env).is_none());
        assert!(inject("/bin/fish", &["-l".into()], dir, &no_env).is_some());
    }

    #[test]
    fn bash_runs_in_posix_mode_with_env_and_keeps_its_login() {
        let env = |k: &str| match k {
            "ENV" => Some("/home/u/.shrc".to_owned()),
            "HOME" => Some("/home/u".to_owned()),
            _ => None,
        };
        let i = inject("/bin/bash", &["--login".into()], Path::new("/d"), &env).unwrap();
        assert_eq!(i.args, ["--posix", "--login", "-i"]);
        let get = |k: &str| i.env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("ENV"), Some("/d/bash/tern.bash"));
        assert_eq!(get("TERN_BASH_ENV"), Some("/home/u/.shrc"));
        assert_eq!(get("HISTFILE"), Some("/home/u/.bash_history"));
    }

    #[test]
    fn zsh_gets_zdotdir_and_fish_gets_data_dirs_first() {
        let env = |k: &str| match k {
            "ZDOTDIR" => Some("/home/u/zsh".to_owned()),
            "XDG_DATA_DIRS" => Some("/opt/share".to_owned()),
            _ => None,
        };
        let z = inject("zsh", &[], Path::new("/d"), &env).unwrap();
        assert!(z.env.contains(&("ZDOTDIR".into(), "/d/zsh".into())));
        assert!(
            z.env
                .contains(&("TERN_ZSH_ZDOTDIR".into(), "/home/u/zsh".into()))
        );
        let f = inject("fish", &[], Path::new("/d"), &env).unwrap();
        assert!(
            f.env
                .contains(&("XDG_DATA_DIRS".into(), "/d:/opt/share".into()))
        );
    }

    #[test]
    fn install_writes_private_files_once() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("shell");
        install(&dir).unwrap();
        let script = dir.join("bash/tern.bash");
        assert_eq!(std::fs::read_to_string(&script).unwrap(), BASH);
        let mtime = std::fs::metadata(&script).unwrap().modified().unwrap();
        install(&dir).unwrap();
        assert_eq!(
            std::fs::metadata(&script).unwrap().modified().unwrap(),
            mtime
        );
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(
            install(&dir).is_err(),
            "a folder others can write is refused"
        );
    }
}
