//! Where a remote repository lives, and the commands that reach its tmux.
//!
//! A [`RemoteTarget`] is written `ssh://[user@]host[:port]/path` or, scp-like, with an
//! OpenSSH `Host` alias: `[user@]alias:path` (the alias's `HostName`, `Port`, `User`,
//! keys and jumps come from the user's ssh config). A path starting with `~` or not
//! starting with `/` is under the remote home; in the `ssh://` form `/~/x` is `~/x`
//! (so a folder named `~` at the root is written scp-like: `host:/~`).
//!
//! [`Transport`] turns a target into processes: `ssh -T … host -- tmux -V` for the
//! version check and `ssh -T … host -- tmux -C new-session -A -s NAME -c PATH` for the
//! control client. The remote command line is read by the remote user's shell, so
//! every word tern puts in it is single-quoted. [`Transport::Local`] runs the same tmux
//! commands here (tests, and a local tmux server).

use std::fmt;
use std::process::Command as Process;

/// A repository on another machine, reached with the system `ssh`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteTarget {
    pub user: Option<String>,
    /// A host name, an address, or an OpenSSH `Host` alias.
    pub host: String,
    pub port: Option<u16>,
    /// The folder on the remote host (`~/…` for one under the home).
    pub path: String,
}

/// Why a target did not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetError {
    /// Neither `ssh://…` nor `host:path`.
    Form,
    /// An empty host, or one ssh would read as an option or that holds spaces or
    /// control characters.
    Host(String),
    User(String),
    Port(String),
    /// A path with a control character.
    Path(String),
}

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetError::Form => write!(
                f,
                "a remote is written ssh://[user@]host[:port]/path or [user@]host:path"
            ),
            TargetError::Host(h) => write!(f, "{h:?} is not a host name"),
            TargetError::User(u) => write!(f, "{u:?} is not a user name"),
            TargetError::Port(p) => write!(f, "{p:?} is not a port (1–65535)"),
            TargetError::Path(p) => write!(f, "the path {p:?} holds a control character"),
        }
    }
}

impl std::error::Error for TargetError {}

fn host_ok(host: &str) -> bool {
    !host.is_empty()
        && !host.starts_with('-')
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':' | '%'))
}

fn user_ok(user: &str) -> bool {
    !user.is_empty()
        && !user.starts_with('-')
        && user
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
}

impl RemoteTarget {
    pub fn parse(text: &str) -> Result<RemoteTarget, TargetError> {
        let (authority, path) = if let Some(rest) = text.strip_prefix("ssh://") {
            match rest.find('/') {
                Some(i) => (&rest[..i], rest[i..].to_owned()),
                None => (rest, String::new()),
            }
        } else {
            // scp-like: the first ':' that is not inside [v6] ends the host.
            let from = text.find(']').map_or(0, |i| i + 1);
            let colon = text[from..].find(':').ok_or(TargetError::Form)? + from;
            let (authority, path) = (&text[..colon], &text[colon + 1..]);
            if authority.contains('/') {
                return Err(TargetError::Form);
            }
            (authority, path.to_owned())
        };
        let (user, hostport) = match authority.rsplit_once('@') {
            Some((user, hostport)) => {
                if !user_ok(user) {
                    return Err(TargetError::User(user.to_owned()));
                }
                (Some(user.to_owned()), hostport)
            }
            None => (None, authority),
        };
        let scheme = text.starts_with("ssh://");
        let (host, port) = if let Some(v6) = hostport.strip_prefix('[') {
            let (host, after) = v6
                .split_once(']')
                .ok_or_else(|| TargetError::Host(hostport.to_owned()))?;
            match after.strip_prefix(':') {
                Some(port) if scheme => (host, Some(port)),
                None if after.is_empty() => (host, None),
                _ => return Err(TargetError::Host(hostport.to_owned())),
            }
        } else if scheme {
            match hostport.rsplit_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (hostport, None),
            }
        } else {
            (hostport, None)
        };
        if !host_ok(host) {
            return Err(TargetError::Host(host.to_owned()));
        }
        let port = match port {
            Some(p) => Some(
                p.parse::<u16>()
                    .ok()
                    .filter(|p| *p != 0)
                    .ok_or_else(|| TargetError::Port(p.to_owned()))?,
            ),
            None => None,
        };
        if path.chars().any(char::is_control) {
            return Err(TargetError::Path(path));
        }
        // `ssh://host/~/src` is under the home, as is scp's `host:src`.
        let path = match path.strip_prefix("/~") {
            Some(rest) if scheme && (rest.is_empty() || rest.starts_with('/')) => {
                format!("~{rest}")
            }
            _ if !scheme
                && !path.is_empty()
                && !path.starts_with('/')
                && !path.starts_with('~') =>
            {
                format!("~/{path}")
            }
            _ => path,
        };
        Ok(RemoteTarget {
            user,
            host: host.to_owned(),
            port,
            path,
        })
    }

    /// `user@host` or `host`, what ssh is given.
    pub fn destination(&self) -> String {
        match &self.user {
            Some(user) => format!("{user}@{}", self.host),
            None => self.host.clone(),
        }
    }
}

impl fmt::Display for RemoteTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ssh://")?;
        if let Some(user) = &self.user {
            write!(f, "{user}@")?;
        }
        if self.host.contains(':') {
            write!(f, "[{}]", self.host)?;
        } else {
            write!(f, "{}", self.host)?;
        }
        if let Some(port) = self.port {
            write!(f, ":{port}")?;
        }
        match self.path.strip_prefix('~') {
            Some(rest) => write!(f, "/~{rest}"),
            None => write!(f, "{}", self.path),
        }
    }
}

/// A tmux session name for a worktree folder: `tern-<folder name>-<hash of the path>`,
/// letters, digits, `-` and `_` only (tmux refuses `:` and `.` in names), so two
/// worktrees with the same folder name in different places get different sessions.
pub fn session_name(path: &str) -> String {
    let trimmed = path.trim_end_matches('/');
    let base = trimmed.rsplit('/').next().unwrap_or("");
    let mut name: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(40)
        .collect();
    if name.trim_matches('-').is_empty() {
        name = String::from("home");
    }
    // FNV-1a, folded to 16 bits: stable across runs and machines.
    let hash = trimmed.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    format!("tern-{name}-{:04x}", (hash >> 16) ^ (hash & 0xffff))
}

/// POSIX shell single quoting (for the remote command line ssh hands to a shell).
pub fn shell_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=%@:+,".contains(&b))
    {
        return word.to_owned();
    }
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// A remote path for the shell: `~` and `~/` stay unquoted so the shell expands them.
fn shell_path(path: &str) -> String {
    match path.strip_prefix("~/") {
        Some(rest) if !rest.is_empty() => format!("~/{}", shell_quote(rest)),
        Some(_) => String::from("~/"),
        None if path == "~" => String::from("~"),
        None => shell_quote(path),
    }
}

/// How the system `ssh` is run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SshOptions {
    /// The program (`ssh`).
    pub program: String,
    /// Options before the destination (`-F file`, `-o Option=value`, `-J jump`).
    pub extra_args: Vec<String>,
    /// `-o BatchMode=yes`: fail instead of asking for a password or a host key. Off by
    /// default: ssh then asks through its askpass or the terminal tern was started
    /// from (stdin is the control channel; tern never answers a prompt).
    pub batch_mode: bool,
}

impl Default for SshOptions {
    fn default() -> SshOptions {
        SshOptions {
            program: String::from("ssh"),
            extra_args: Vec::new(),
            batch_mode: false,
        }
    }
}

/// How tern reaches tmux.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    /// tmux runs on the target's host, through `ssh -T`.
    Ssh {
        target: RemoteTarget,
        ssh: SshOptions,
    },
    /// tmux runs here (tests; a local tmux server).
    Local,
}

impl Transport {
    /// The process that runs `tmux` (its words, e.g. `["tmux", "-S", "/tmp/sock"]`)
    /// with `args`, over this transport.
    pub fn command(&self, tmux: &[String], args: &[&str]) -> Process {
        match self {
            Transport::Local => {
                let (program, rest) = tmux
                    .split_first()
                    .map_or(("tmux", &[][..]), |(p, r)| (p.as_str(), r));
                let mut process = Process::new(program);
                process.args(rest).args(args).env_remove("TMUX");
                process
            }
            Transport::Ssh { target, ssh } => {
                let mut process = Process::new(&ssh.program);
                process.arg("-T");
                if let Some(port) = target.port {
                    process.arg("-p").arg(port.to_string());
                }
                if ssh.batch_mode {
                    process.args(["-o", "BatchMode=yes"]);
                }
                process.args(&ssh.extra_args);
                process.arg(target.destination()).arg("--");
                let mut line: Vec<String> = if tmux.is_empty() {
                    vec![String::from("tmux")]
                } else {
                    tmux.iter().map(|w| shell_quote(w)).collect()
                };
                let mut args = args.iter();
                while let Some(arg) = args.next() {
                    line.push(shell_quote(arg));
                    // The folder of `-c` keeps its `~` for the remote shell.
                    if *arg == "-c"
                        && let Some(path) = args.next()
                    {
                        line.push(shell_path(path));
                    }
                }
                process.arg(line.join(" "));
                process
            }
        }
    }

    /// The folder tmux's first window starts in.
    pub fn path(&self) -> Option<&str> {
        match self {
            Transport::Ssh { target, .. } if !target.path.is_empty() => Some(&target.path),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(text: &str) -> RemoteTarget {
        RemoteTarget::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn targets_parse() {
        assert_eq!(
            target("ssh://me@build.example:2222/srv/repo"),
            RemoteTarget {
                user: Some("me".into()),
                host: "build.example".into(),
                port: Some(2222),
                path: "/srv/repo".into()
            }
        );
        assert_eq!(target("ssh://box/~/src/tern").path, "~/src/tern");
        assert_eq!(target("devbox:src/tern").path, "~/src/tern");
        assert_eq!(target("devbox:/srv/x").path, "/srv/x");
        assert_eq!(target("me@devbox:~/x").user.as_deref(), Some("me"));
        assert_eq!(target("ssh://[::1]:22/x").host, "::1");
        assert_eq!(target("ssh://[::1]:22/x").port, Some(22));
        assert_eq!(RemoteTarget::parse("devbox"), Err(TargetError::Form));
        assert!(matches!(
            RemoteTarget::parse("-oProxyCommand=x:/"),
            Err(TargetError::Host(_))
        ));
        assert!(matches!(
            RemoteTarget::parse("ssh://h:0/x"),
            Err(TargetError::Port(_))
        ));
        assert!(matches!(
            RemoteTarget::parse("h:/a\nb"),
            Err(TargetError::Path(_))
        ));
    }

    #[test]
    fn session_names_are_tmux_safe_and_differ_by_path() {
        let a = session_name("/w/repo.git/feature:x");
        assert!(a.starts_with("tern-feature-x-"), "{a}");
        assert!(!a.contains(['.', ':']));
        assert_ne!(session_name("/a/main"), session_name("/b/main"));
        assert_eq!(session_name("/a/main/"), session_name("/a/main"));
        assert!(session_name("/").starts_with("tern-home-"));
    }

    #[test]
    fn the_ssh_command_quotes_every_remote_word() {
        let transport = Transport::Ssh {
            target: target("ssh://me@h:2200/~/my repo"),
            ssh: SshOptions {
                extra_args: vec!["-F".into(), "/tmp/cfg".into()],
                batch_mode: true,
                ..SshOptions::default()
            },
        };
        let command = transport.command(
            &["tmux".into(), "-S".into(), "/tmp/s ock".into()],
            &["-C", "new-session", "-A", "-s", "tern-x", "-c", "~/my repo"],
        );
        let args: Vec<String> = command
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            args,
            [
                "-T",
                "-p",
                "2200",
                "-o",
                "BatchMode=yes",
                "-F",
                "/tmp/cfg",
                "me@h",
                "--",
                "tmux -S '/tmp/s ock' -C new-session -A -s tern-x -c ~/'my repo'"
            ]
        );
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
    }
}
