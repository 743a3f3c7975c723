//! The user's shell as tern starts it (issue 51, item 5), through the binary
//! (`tern --headless`, a fresh HOME, `SHELL=/bin/bash`, a folder of tern's own on
//! `PATH`): by default an interactive shell that is not a login shell, so Debian's
//! `/etc/profile` (which sets `PATH` afresh) does not drop the folders tern was started
//! with; `shell.login: true` reads the profile and still keeps them. Integration is
//! injected either way.
//!
//! Catches: the shell started as `bash --posix --login -i` whatever the config says
//! (`which` failed for tern's own folders), and a login shell losing them to the
//! profile; each seen failing so.

mod common;

use std::path::Path;
use std::process::Stdio;

use common::headless::{Served, scratch};
use common::tern_in;

/// A folder with a `probe` program, put first on tern's `PATH`.
fn folder_with_probe(dir: &Path) -> String {
    let bin = dir.join("tern-bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let probe = bin.join("probe");
    std::fs::write(&probe, "#!/bin/sh\necho probe-ran\n").expect("probe");
    std::fs::set_permissions(&probe, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let path = std::env::var("PATH").unwrap_or_default();
    format!("{}:{path}", bin.display())
}

/// Starts headless tern with bash as the user's shell, `config` as its config file and
/// Debian's skeleton `~/.profile` (which reads `~/.bashrc`); runs a line in the first
/// pane and returns what it wrote: whether bash is a login shell, whether it read the
/// profile and the rc file, whether `probe` ran, whether integration is loaded.
fn what_the_shell_sees(name: &str, config: &str) -> String {
    let dir = scratch(name);
    let home = dir.join("home");
    let files = [
        (".config/tern/config.ron", config),
        (
            ".profile",
            "export FROM_PROFILE=yes\n[ -f \"$HOME/.bashrc\" ] && . \"$HOME/.bashrc\"\n",
        ),
        (".bashrc", "export FROM_RC=yes\n"),
    ];
    for (file, text) in files {
        let path = home.join(file);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("a HOME file");
    }
    let child = tern_in(&dir)
        .env("SHELL", "/bin/bash")
        .env("PATH", folder_with_probe(&dir))
        .env_remove("ENV")
        .arg("--headless")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tern --headless");
    let served = Served::wrap(&dir, child);
    let pane = served.list()[0]["id"].as_u64().expect("one pane");
    let out = dir.join("out.txt");
    let line = format!(
        "echo \"login=$(shopt -q login_shell && echo yes || echo no) \
         profile=$FROM_PROFILE rc=$FROM_RC probe=$(probe) \
         integration=${{__tern_integration_loaded-}}\" > {}.tmp && mv {0}.tmp {0}\n",
        out.display()
    );
    served.ok(&["send-text", "--pane", &pane.to_string(), &line]);
    tern_testkit::eventually(
        "the shell runs the line",
        common::headless::PATIENCE,
        || {
            std::fs::read_to_string(&out)
                .map(|text| text.trim_end().to_owned())
                .map_err(|_| {
                    format!(
                        "it shows:\n{}",
                        served.ok(&["get-text", "--pane", &pane.to_string()])
                    )
                })
        },
    )
}

#[test]
fn the_shell_is_not_a_login_shell_and_keeps_terns_path() {
    assert_eq!(
        what_the_shell_sees("login-off", "()"),
        "login=no profile= rc=yes probe=probe-ran integration=1"
    );
}

#[test]
fn a_login_shell_reads_the_profile_and_keeps_terns_path() {
    assert_eq!(
        what_the_shell_sees("login-on", "(shell: (login: true))"),
        "login=yes profile=yes rc=yes probe=probe-ran integration=1"
    );
}
