//! bash, zsh and fish with tern's injected integration, through the real pipeline:
//! each reports prompts (OSC 133 A), commands (C) and exit status (D) and its folder
//! with the host (OSC 7), while the user's own startup files are still read and left
//! unchanged. Needs bash, zsh and fish (`scripts/test.sh` installs them); a shell that
//! is missing fails the test with that message.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tern_testkit::eventually;

use tern_core::model::{ShellMark, TermEvent, TermSize};
use tern_core::pipeline::activity::ActivityState;
use tern_core::pipeline::{PaneEvent, PaneId, Pipeline, PipelineConfig, SpawnSpec};

struct Home {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    scripts: PathBuf,
}

/// A home folder with the user's own startup files (each prints a marker), and the
/// integration scripts installed next to it.
fn home() -> Home {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(home.join(".config/fish")).expect("mkdir");
    let files = [
        (".bashrc", "echo USER-BASHRC-READ\n"),
        (".bash_profile", "echo USER-PROFILE-READ\n"),
        (".zshrc", "echo USER-ZSHRC-READ\n"),
        (".zshenv", "echo USER-ZSHENV-READ\n"),
        (".config/fish/config.fish", "echo USER-FISH-CONFIG-READ\n"),
    ];
    for (name, text) in files {
        std::fs::write(home.join(name), text).expect("write rc");
    }
    let scripts =
        tern_core::shell_integration::install(&tmp.path().join("integration")).expect("install");
    Home {
        _tmp: tmp,
        home,
        scripts,
    }
}

fn snapshot(home: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for name in [
        ".bashrc",
        ".bash_profile",
        ".zshrc",
        ".zshenv",
        ".config/fish/config.fish",
    ] {
        let path = home.join(name);
        let bytes = std::fs::read(&path).unwrap_or_default();
        out.push((path, bytes));
    }
    out
}

fn spawn(p: &Pipeline, h: &Home, program: &str, args: &[&str]) -> PaneId {
    assert!(
        which(program),
        "{program} is not installed (scripts/test.sh installs bash, zsh and fish)"
    );
    let mut spec = SpawnSpec::command(program, args)
        .size(TermSize::new(100, 30))
        .cwd(&h.home);
    spec.env = vec![
        ("HOME".into(), h.home.display().to_string()),
        (
            "XDG_CONFIG_HOME".into(),
            h.home.join(".config").display().to_string(),
        ),
        ("ZDOTDIR".into(), h.home.display().to_string()),
        ("PS1".into(), "$ ".into()),
    ];
    spec.shell_integration = Some(h.scripts.clone());
    p.spawn(&spec).expect("spawn")
}

fn which(program: &str) -> bool {
    std::process::Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Collects the pane's facts until `done` holds for them (or a minute passes).
fn facts_until(
    p: &Pipeline,
    pane: PaneId,
    facts: &mut Vec<TermEvent>,
    what: &str,
    done: impl Fn(&[TermEvent]) -> bool,
) {
    eventually(what, Duration::from_secs(60), || {
        if done(facts) {
            return Ok(());
        }
        if let Some(PaneEvent::Fact { pane: id, event }) = p.wait_event(Duration::from_millis(200))
            && id == pane
        {
            facts.push(event);
        }
        Err(format!(
            "facts {facts:?}\nscreen {:?}",
            p.dump_screen(pane).map(|d| d.rows)
        ))
    });
}

fn finished(facts: &[TermEvent]) -> Vec<Option<i32>> {
    facts
        .iter()
        .filter_map(|e| match e {
            TermEvent::Shell {
                mark: ShellMark::CommandFinished { exit_code },
                ..
            } => Some(*exit_code),
            _ => None,
        })
        .collect()
}

fn has(facts: &[TermEvent], mark: ShellMark) -> bool {
    facts
        .iter()
        .any(|e| matches!(e, TermEvent::Shell { mark: m, .. } if *m == mark))
}

/// The scenario for one shell: a prompt, `true`, `false`, an empty line, `cd /`.
fn reports_prompts_and_status(program: &str, args: &[&str], rc_marker: &str) {
    let h = home();
    let before = snapshot(&h.home);
    let p =
        Pipeline::start(PipelineConfig::default(), std::sync::Arc::new(|| {})).expect("pipeline");
    let pane = spawn(&p, &h, program, args);
    let mut facts = Vec::new();
    facts_until(&p, pane, &mut facts, "no first prompt", |f| {
        has(f, ShellMark::PromptStart)
    });
    facts_until(&p, pane, &mut facts, "no OSC 7", |f| {
        f.iter().any(|e| matches!(e, TermEvent::Cwd(_)))
    });
    p.write(pane, b"true\r");
    facts_until(&p, pane, &mut facts, "true: no D;0", |f| {
        finished(f) == [Some(0)]
    });
    assert!(
        has(&facts, ShellMark::CommandExecuted),
        "C before D: {facts:?}"
    );
    p.write(pane, b"\r");
    p.write(pane, b"false\r");
    facts_until(&p, pane, &mut facts, "false: no D;1", |f| {
        finished(f) == [Some(0), Some(1)]
    });
    let report = p.activity(pane).expect("activity");
    assert_eq!(report.exit_code, Some(1));
    assert_ne!(report.state, ActivityState::Waiting);
    p.write(pane, b"cd /\r");
    facts_until(&p, pane, &mut facts, "no OSC 7 for /", |f| {
        f.iter().any(|e| *e == TermEvent::Cwd("/".into()))
    });
    let screen = p.dump_screen(pane).expect("dump").rows.join("\n");
    assert!(
        screen.contains(rc_marker),
        "the user's own startup file was read: {screen}"
    );
    assert_eq!(snapshot(&h.home), before, "no startup file changed");
}

#[test]
fn bash_reports_prompts_and_exit_status() {
    reports_prompts_and_status("bash", &[], "USER-BASHRC-READ");
}

#[test]
fn bash_as_a_login_shell_reads_the_profile() {
    reports_prompts_and_status("bash", &["--login"], "USER-PROFILE-READ");
}

#[test]
fn zsh_reports_prompts_and_exit_status() {
    reports_prompts_and_status("zsh", &[], "USER-ZSHRC-READ");
}

#[test]
fn fish_reports_prompts_and_exit_status() {
    reports_prompts_and_status("fish", &[], "USER-FISH-CONFIG-READ");
}

#[test]
fn integration_off_leaves_the_shell_untouched() {
    let h = home();
    let p =
        Pipeline::start(PipelineConfig::default(), std::sync::Arc::new(|| {})).expect("pipeline");
    let mut spec = SpawnSpec::command("bash", &["-c", "echo ENV=${ENV-unset}; exit 4"])
        .size(TermSize::new(80, 5));
    spec.env = vec![("HOME".into(), h.home.display().to_string())];
    spec.shell_integration = Some(h.scripts.clone());
    let pane = p.spawn(&spec).expect("spawn");
    let exit = eventually("bash -c exits", Duration::from_secs(30), || {
        match p.wait_event(Duration::from_millis(200)) {
            Some(PaneEvent::Exited { pane: id, exit }) if id == pane => Some(exit),
            _ => None,
        }
    });
    assert_eq!(exit.code, 4);
    let screen = p.dump_screen(pane).expect("dump").rows.join("\n");
    assert!(
        screen.contains("ENV=unset"),
        "bash -c is not injected: {screen}"
    );
}

/// A runtime folder where the scripts cannot be written (here: a file stands where the
/// folder should be): bash starts plain, not in POSIX mode with an `ENV` that names
/// nothing, still reads the user's `.bashrc`, and one breadcrumb says why. Catches
/// injecting without the scripts (bash then read no file at all), seen failing so.
#[test]
fn scripts_that_cannot_be_written_leave_the_shell_plain_with_a_breadcrumb() {
    let h = home();
    let blocked = h.home.join("not-a-folder");
    std::fs::write(&blocked, "a file where the folder would go").expect("write");
    let p =
        Pipeline::start(PipelineConfig::default(), std::sync::Arc::new(|| {})).expect("pipeline");
    let mut spec = SpawnSpec::command("bash", &[])
        .size(TermSize::new(100, 10))
        .cwd(&h.home);
    spec.env = vec![
        ("HOME".into(), h.home.display().to_string()),
        ("PS1".into(), "$ ".into()),
    ];
    spec.shell_integration = Some(blocked.join("shell"));
    let pane = p.spawn(&spec).expect("a plain shell starts");
    p.write(
        pane,
        b"echo posix=$(set -o | grep -c 'posix.*on') env=${ENV-unset}\r",
    );
    let screen = eventually("the shell's answer", Duration::from_secs(30), || {
        let _ = p.wait_event(Duration::from_millis(100));
        let screen = p.dump_screen(pane).expect("dump").rows.join("\n");
        if screen.lines().any(|l| l.starts_with("posix=")) {
            Ok(screen)
        } else {
            Err(screen)
        }
    });
    assert!(screen.contains("USER-BASHRC-READ"), "{screen}");
    assert!(screen.contains("posix=0 env=unset"), "{screen}");
    let crumbs: Vec<String> = p
        .breadcrumbs()
        .into_iter()
        .filter(|c| c.pane == pane.0)
        .map(|c| c.what)
        .collect();
    assert_eq!(
        crumbs
            .iter()
            .filter(|c| c.contains("shell integration off"))
            .count(),
        1,
        "{crumbs:?}"
    );
}
