//! A real `sshd` of the test's own on a free port of 127.0.0.1 (its host key, a user key
//! and its configs in a temp dir), reached with `ssh -F <dir>/ssh_config ternremote`,
//! and a tmux server on a socket in the same dir. Copied from
//! `core/tests/tmux_ssh.rs`, which has the same setup for the core's tests.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Process, Stdio};
use std::time::Duration;

pub const SSHD: &str = "/usr/sbin/sshd";

fn found(program: &str) -> bool {
    if Path::new(program).is_absolute() {
        return Path::new(program).exists();
    }
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// Whether sshd, ssh, ssh-keygen and tmux are installed. One that is missing fails
/// the test with the command that installs it, unless `TERN_SKIP_MISSING_TOOLS=1`
/// says to skip it (then `false`, printed): never a quiet pass.
pub fn available() -> bool {
    let Some(program) = [SSHD, "ssh", "ssh-keygen", "tmux"]
        .into_iter()
        .find(|p| !found(p))
    else {
        return true;
    };
    let skip = std::env::var("TERN_SKIP_MISSING_TOOLS").is_ok_and(|v| !v.is_empty() && v != "0");
    if skip {
        eprintln!("SKIPPED (TERN_SKIP_MISSING_TOOLS is set): {program} is not installed");
        println!("SKIPPED (TERN_SKIP_MISSING_TOOLS is set): {program} is not installed");
        return false;
    }
    panic!(
        "{program} is not installed: install it with `sudo apt-get install openssh-server \
         openssh-client tmux` (scripts/test.sh does), or set TERN_SKIP_MISSING_TOOLS=1 to \
         skip the tests that need it"
    );
}

fn keygen(path: &Path) {
    let status = Process::new("ssh-keygen")
        .args(["-q", "-N", "", "-t", "ed25519", "-f"])
        .arg(path)
        .stdin(Stdio::null())
        .status()
        .expect("ssh-keygen");
    assert!(status.success(), "ssh-keygen -f {}", path.display());
}

/// An sshd of the test's own, killed at the end, and a tmux server (killed too).
pub struct Sshd {
    child: Child,
    pub dir: PathBuf,
    pub port: u16,
}

impl Sshd {
    pub fn start(dir: &Path) -> Sshd {
        keygen(&dir.join("host_key"));
        keygen(&dir.join("user_key"));
        std::fs::copy(dir.join("user_key.pub"), dir.join("authorized_keys"))
            .expect("authorized_keys");
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let user = std::env::var("USER").unwrap_or_else(|_| String::from("root"));
        // SetEnv: the login user's own shell set-up stays out of the test. bash, run by
        // sshd for a command, reads ~/.bashrc only as a top-level shell (SHLVL 1 makes
        // it the second level), and tmux servers started over ssh give new windows
        // SHELL. On these machines root's ~/.bashrc runs `pyenv rehash`, whose lock,
        // left behind by a login the test ended, made every later login wait 60 s.
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {dir}/host_key\n\
             AuthorizedKeysFile {dir}/authorized_keys\nStrictModes no\nUsePAM no\n\
             PidFile {dir}/sshd.pid\nPermitRootLogin prohibit-password\n\
             PasswordAuthentication no\nKbdInteractiveAuthentication no\nAllowUsers {user}\n\
             SetEnv SHLVL=1 SHELL=/bin/sh\n",
            dir = dir.display()
        );
        std::fs::write(dir.join("sshd_config"), config).expect("sshd_config");
        // Its privilege separation directory (only root can make it; others need none).
        let _ = std::fs::create_dir_all("/run/sshd");
        let child = Process::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(dir.join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("sshd.log")).expect("sshd.log"))
            .spawn()
            .expect("start sshd");
        let mut sshd = Sshd {
            child,
            dir: dir.to_owned(),
            port,
        };
        tern_testkit::eventually("sshd listens", Duration::from_secs(30), || {
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Ok(());
            }
            if let Ok(Some(status)) = sshd.child.try_wait() {
                panic!("sshd ended ({status}): {}", sshd.log());
            }
            Err(sshd.log())
        });
        let client = format!(
            "Host ternremote\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n\
             IdentityFile {dir}/user_key\n  IdentitiesOnly yes\n\
             UserKnownHostsFile {dir}/known_hosts\n  StrictHostKeyChecking accept-new\n\
             BatchMode yes\n  LogLevel ERROR\n",
            dir = dir.display()
        );
        std::fs::write(dir.join("ssh_config"), client).expect("ssh_config");
        sshd
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("sshd.log")).unwrap_or_default()
    }

    pub fn ssh_config(&self) -> PathBuf {
        self.dir.join("ssh_config")
    }

    /// The tmux server's socket.
    pub fn socket(&self) -> PathBuf {
        self.dir.join("tmux.sock")
    }

    /// Runs `tmux -S <socket> -f /dev/null ARGS` here; its stdout.
    pub fn tmux(&self, args: &[&str]) -> String {
        let out = Process::new("tmux")
            .arg("-S")
            .arg(self.socket())
            .args(["-f", "/dev/null"])
            .args(args)
            .env_remove("TMUX")
            .env("SHELL", "/bin/sh")
            .stdin(Stdio::null())
            .output()
            .expect("tmux runs");
        assert!(out.status.success(), "tmux {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Each pane of `session` as `DEAD COMMAND` (`0 sh` for a live shell), a line each.
    pub fn panes(&self, session: &str) -> String {
        self.tmux(&[
            "list-panes",
            "-t",
            session,
            "-F",
            "#{pane_dead} #{pane_current_command}",
        ])
    }

    /// The folder `work` (made here) and a 100x30 tmux session for it, named as tern
    /// names it, already running `program`: the agent tern attaches to. Returns the
    /// folder as text and the session's name.
    pub fn agent_session(&self, work: &Path, program: &str) -> (String, String) {
        std::fs::create_dir_all(work).expect("mkdir");
        let work_text = work.display().to_string();
        let session_name = tern_core::tmux::session_name(&work_text);
        self.tmux(&[
            "new-session",
            "-d",
            "-s",
            &session_name,
            "-x",
            "100",
            "-y",
            "30",
            "-c",
            &work_text,
            program,
        ]);
        (work_text, session_name)
    }

    /// A tern config that reaches this sshd and this tmux server.
    pub fn tern_config(&self) -> String {
        format!(
            "(remote: (ssh_options: [\"-F\", \"{}\"], batch_mode: true, \
             tmux: [\"tmux\", \"-S\", \"{}\", \"-f\", \"/dev/null\"]), confirm_on_close: false)",
            self.ssh_config().display(),
            self.socket().display()
        )
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = Process::new("tmux")
            .arg("-S")
            .arg(self.socket())
            .arg("kill-server")
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
