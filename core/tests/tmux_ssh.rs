//! Remote panes end to end over a real ssh: an `sshd` of the test's own on a free port
//! of 127.0.0.1 (its host key, a user key and its config in a temp dir), reached with
//! `ssh -F <test config> ternremote` exactly as tern runs it, and tmux on a socket of
//! the test's own behind it.
//!
//! Without sshd, ssh, ssh-keygen or tmux each test fails with the command that
//! installs them (CI installs them: `scripts/test.sh`); `TERN_SKIP_MISSING_TOOLS=1`
//! skips them instead, printed.

mod remote_support;

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Process, Stdio};
use std::time::{Duration, Instant};

use remote_support::tools::required;
use remote_support::*;
use tern_core::tmux::{
    ConnectSpec, DisconnectReason, RemoteTarget, SshOptions, TmuxPaneId, Transport,
};

const SSHD: &str = "/usr/sbin/sshd";

fn found(program: &str) -> bool {
    if Path::new(program).is_absolute() {
        return Path::new(program).exists();
    }
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

fn available() -> bool {
    let missing = [SSHD, "ssh", "ssh-keygen"]
        .into_iter()
        .find(|p| !found(p))
        .map(|p| format!("{p} is not installed"));
    required(missing, "openssh-server openssh-client") && tmux_available()
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

/// An sshd of the test's own, killed at the end.
struct Sshd {
    child: Child,
    dir: PathBuf,
    port: u16,
}

impl Sshd {
    fn start(dir: &Path) -> Sshd {
        keygen(&dir.join("host_key"));
        keygen(&dir.join("user_key"));
        std::fs::copy(dir.join("user_key.pub"), dir.join("authorized_keys"))
            .expect("authorized_keys");
        // A free port: bound, then let go for sshd (it binds it next).
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
        if rustix::process::geteuid().is_root() {
            // Its privilege separation directory.
            let _ = std::fs::create_dir_all("/run/sshd");
        }
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
        let deadline = Instant::now() + DEADLINE;
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = sshd.child.try_wait() {
                panic!("sshd ended ({status}): {}", sshd.log());
            }
            assert!(
                Instant::now() < deadline,
                "sshd never listened: {}",
                sshd.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
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

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("sshd.log")).unwrap_or_default()
    }

    /// A connection to `session` through `ssh -F <config> ternremote`, the remote folder
    /// `path`.
    fn spec(&self, server: &Server, session: &str, path: &str) -> ConnectSpec {
        let target = RemoteTarget::parse(&format!("ternremote:{path}")).expect("target");
        let mut spec = ConnectSpec::new(
            Transport::Ssh {
                target,
                ssh: SshOptions {
                    extra_args: vec![
                        "-F".into(),
                        self.dir.join("ssh_config").display().to_string(),
                    ],
                    batch_mode: true,
                    ..SshOptions::default()
                },
            },
            session,
        );
        spec.tmux = server.tmux_words();
        spec
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_remote_pane_over_ssh_runs_types_detaches_and_comes_back() {
    if !available() {
        return;
    }
    let server = Server::new();
    let sshd = Sshd::start(server.dir.path());
    let dir = server.dir.path().display().to_string();
    server.new_session("s", &server.script("hex.pl"));
    let pipeline = pipeline();

    let mut first = Remote::connect(pipeline.clone(), sshd.spec(&server, "s", &dir));
    let found = first.until(DEADLINE, |r| r.pane_of(TmuxPaneId(0)).is_some());
    assert!(
        found,
        "no pane over ssh; events: {:#?}\nsshd: {}",
        first.events,
        sshd.log()
    );
    let pane = first.pane_of(TmuxPaneId(0)).unwrap();
    first.wait_screen(pane, "the prompt", |rows| {
        rows.first().is_some_and(|r| r.starts_with("ready"))
    });
    pipeline.write(pane, b"hi\x1b");
    first.wait_screen(pane, "the typed bytes", |rows| {
        rows.first().is_some_and(|r| r == "ready 68 69 1b")
    });
    assert_eq!(first.detach(), DisconnectReason::Detached);
    assert!(
        server
            .tmux(&[
                "list-panes",
                "-t",
                "s",
                "-F",
                "#{pane_dead} #{pane_current_command}"
            ])
            .starts_with("0 perl"),
        "the program runs on after the connection ended"
    );

    let mut second = Remote::connect(pipeline.clone(), sshd.spec(&server, "s", &dir));
    let again = second.wait_pane(TmuxPaneId(0));
    second.wait_screen(again, "the screen again", |rows| {
        rows.first().is_some_and(|r| r == "ready 68 69 1b")
    });
    pipeline.write(again, b"!");
    second.wait_screen(again, "the same program", |rows| {
        rows.first().is_some_and(|r| r == "ready 68 69 1b 21")
    });
    drop(second);
}

#[test]
fn a_new_session_starts_in_the_remote_folder_and_ssh_failures_are_reported() {
    if !available() {
        return;
    }
    let server = Server::new();
    let sshd = Sshd::start(server.dir.path());
    let folder = server.dir.path().join("my repo");
    std::fs::create_dir(&folder).expect("folder");
    let mut remote = Remote::connect(
        pipeline(),
        sshd.spec(&server, "fresh", &folder.display().to_string()),
    );
    remote.wait_pane(TmuxPaneId(0));
    let cwd = server.tmux(&["display-message", "-p", "-t", "%0", "#{pane_current_path}"]);
    assert_eq!(cwd.trim(), folder.display().to_string());
    drop(remote);

    // A host key that changed: ssh refuses (BatchMode, strict checking), and says why.
    let known = sshd.dir.join("known_hosts");
    std::fs::write(
        &known,
        format!(
            "[127.0.0.1]:{} ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKmE6M7pXDaGMS8nLdMT8Eqbkpxq1hO9aC2S9r0m3Z2l\n",
            sshd.port
        ),
    )
    .expect("known_hosts");
    let mut refused = Remote::connect(pipeline(), sshd.spec(&server, "fresh", "/"));
    assert!(refused.until(DEADLINE, |r| r.disconnected().is_some()));
    match refused.disconnected() {
        Some(DisconnectReason::Lost {
            status: Some(255),
            stderr: Some(line),
        }) => assert!(!line.is_empty()),
        other => panic!("{other:?}; events: {:#?}", refused.events),
    }
}
