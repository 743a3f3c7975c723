//! Helpers shared by the window's test files.
#![allow(dead_code)] // each test file uses some of them

pub mod headless;
pub mod sshd;
pub mod user;
pub mod x11;

use std::path::{Path, PathBuf};

use std::process::Command;

use egui_kittest::Harness;
use tern::window::app::TestView as _;
use tern::window::app::{Launch, TernApp};

pub type Slot = Option<TernApp>;

pub use headless::scratch;

/// The binary under test. Only for a wrapper's command line (`dbus-run-session -- sh -c
/// '... TERN_BIN ...'`, `tini -- TERN_BIN`), whose own command is made by [`isolated`],
/// and for a program in a pane (which has the pane's environment); everything else
/// starts it with [`tern_cmd`] or [`tern_in`].
pub const TERN_BIN: &str = env!("CARGO_BIN_EXE_tern");

/// The one isolation of the kit: `cmd` runs as a fresh user in the scratch folder `dir`
/// — HOME `dir/home` (its XDG config, state, data and cache folders inside it), the
/// runtime dir `dir/run` (0700; so its `tern msg` socket and keeper are its own), the
/// session file `dir/session.ron`, `SHELL=/bin/sh` with `PS1='$ '` and no `$ENV` file,
/// the working folder `dir/home` — and nothing inherited that would make it another
/// tern's or the caller's: no `TERN_*` variable (socket, pane, config, trace…), no
/// display (`DISPLAY`, `WAYLAND_DISPLAY`: a window test sets its own), no session bus,
/// no agents' settings (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`). A test sets what it needs
/// after this call (a later `env` replaces these).
pub fn isolate<'a>(cmd: &'a mut Command, dir: &Path) -> &'a mut Command {
    let home = dir.join("home");
    let run = dir.join("run");
    std::fs::create_dir_all(&home).expect("home dir");
    std::fs::create_dir_all(&run).expect("runtime dir");
    let _ = std::fs::set_permissions(&run, std::os::unix::fs::PermissionsExt::from_mode(0o700));
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("TERN_") {
            cmd.env_remove(key);
        }
    }
    cmd.env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("XDG_RUNTIME_DIR", &run)
        .env("TERN_SESSION", dir.join("session.ron"))
        .env("SHELL", "/bin/sh")
        .env("PS1", "$ ")
        .env("ENV", "")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .current_dir(&home)
}

/// `program` (the binary, a copy of it, or a wrapper that starts it) with the
/// isolation of [`isolate`] in `dir`.
pub fn isolated(program: impl AsRef<std::ffi::OsStr>, dir: &Path) -> Command {
    let mut cmd = Command::new(program);
    isolate(&mut cmd, dir);
    cmd
}

/// `tern` isolated ([`isolate`]) in the scratch folder `dir`, one the test keeps (its
/// `home/`, `run/`, `session.ron`).
pub fn tern_in(dir: &Path) -> Command {
    isolated(TERN_BIN, dir)
}

/// The one way a test starts the binary: `tern` as a fresh user starts it
/// ([`isolate`]) in a scratch folder of its own. [`tern_in`] is the same in a folder
/// the test keeps; a window test sets `DISPLAY` on it.
pub fn tern_cmd() -> Command {
    static STARTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = STARTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    tern_in(&scratch(&format!("cmd{n}")))
}

/// `tern msg --socket SOCKET`, a client of a running tern started the kit's way.
pub fn msg_cmd(socket: &Path) -> Command {
    let mut cmd = tern_cmd();
    cmd.arg("msg").arg("--socket").arg(socket);
    cmd
}

/// Steps the harness until `done` holds or `timeout` has passed; whether it held.
pub fn step_until_or<'a, S>(
    h: &mut Harness<'a, S>,
    timeout: std::time::Duration,
    done: impl Fn(&Harness<'a, S>) -> bool,
) -> bool {
    let deadline = std::time::Instant::now() + timeout;
    while std::time::Instant::now() < deadline {
        h.step();
        if done(h) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    false
}

/// The focused pane's screen rows, as the model's view has them.
pub fn screen_rows(h: &Harness<'_, Slot>) -> Vec<String> {
    h.state()
        .as_ref()
        .and_then(|a| a.view())
        .map(|v| v.dump().rows)
        .unwrap_or_default()
}

/// Steps until the model has the pane's size. The pty starts at 80x24 and takes the
/// pane's size a few frames later (under load, after the program's first output): that
/// resize redraws every row and re-wraps the lines (a selection made before it is
/// cleared, its lines renumbered).
pub fn wait_sized(h: &mut Harness<'_, Slot>) {
    let sized = |h: &Harness<'_, Slot>| {
        let app = h.state().as_ref().expect("app");
        let grid = app
            .pane()
            .and_then(|p| app.pane_ui(p))
            .and_then(|p| p.grid());
        grid.is_some() && app.view().map(|v| v.meta.size) == grid
    };
    assert!(
        step_until_or(h, std::time::Duration::from_secs(10), sized),
        "the model never took the pane's size"
    );
    h.step();
}

/// The one harness builder: the app in a headless egui_kittest harness (800x480
/// points at 1 pixel per point unless told), started from `launch` as the window
/// starts it.
pub struct AppHarness {
    launch: Launch,
    size: egui::Vec2,
    pixels_per_point: f32,
}

impl AppHarness {
    pub fn new(launch: Launch) -> AppHarness {
        AppHarness {
            launch,
            size: egui::vec2(800.0, 480.0),
            pixels_per_point: 1.0,
        }
    }

    /// The harness's size in points.
    pub fn size(mut self, size: egui::Vec2) -> AppHarness {
        self.size = size;
        self
    }

    /// A display scale (HiDPI).
    pub fn pixels_per_point(mut self, pixels_per_point: f32) -> AppHarness {
        self.pixels_per_point = pixels_per_point;
        self
    }

    pub fn build(self) -> Harness<'static, Slot> {
        let launch = without_startup_files(self.launch);
        Harness::builder()
            .with_size(self.size)
            .with_pixels_per_point(self.pixels_per_point)
            .with_max_steps(64)
            .allow_missing_glyphs()
            .build_ui_state(
                move |ui, slot: &mut Slot| {
                    let app = slot.get_or_insert_with(|| TernApp::new(ui.ctx(), launch.clone()));
                    app.frame(ui);
                },
                None,
            )
    }
}

/// `launch` with its shell as [`isolate`] gives the binary: where neither the first
/// pane's spec nor the config names a program, `/bin/sh` (not the caller's `$SHELL`),
/// and `ENV` empty, so a pane's shell reads no startup file of the user's (a `pyenv
/// init` in `~/.bashrc` once left a lock that made later bash panes wait 60 s). Set
/// through the launch (overrides, the spec), not the process's environment: tests run
/// in parallel threads.
fn without_startup_files(mut launch: Launch) -> Launch {
    const SHELL: &str = "/bin/sh";
    let config = match &launch.config {
        tern::window::settings::ConfigSource::BuiltIn => Some(tern_core::config::Config::default()),
        tern::window::settings::ConfigSource::Platform => tern_core::config::Config::default_path()
            .and_then(|p| tern_core::config::Config::load_or_default(&p).ok()),
        tern::window::settings::ConfigSource::File(p) => {
            tern_core::config::Config::load_or_default(p).ok()
        }
    }
    .map(|c| c.with_overrides(&launch.desktop.overrides).0);
    let desktop = &mut launch.desktop.overrides;
    if config.is_some_and(|c| c.shell.program.is_none()) {
        desktop.push(format!("shell.program={SHELL}"));
    }
    desktop.push("env.ENV=".to_owned());
    let spec = &mut launch.spec;
    if spec.command.is_none() {
        spec.command = Some((SHELL.to_owned(), Vec::new()));
    }
    if !spec.env.iter().any(|(k, _)| k == "ENV") {
        spec.env.push(("ENV".to_owned(), String::new()));
    }
    launch
}

/// The app in a headless egui_kittest harness of `size` points ([`AppHarness`]).
pub fn app_harness(launch: Launch, size: egui::Vec2) -> Harness<'static, Slot> {
    AppHarness::new(launch).size(size).build()
}

/// The app in a harness of `size` points, started from the command line `args` (after
/// `tern`) through the binary's own start-up ([`tern::startup::WindowStart`]): settings,
/// shell integration, session and exit behaviour as `main` sets them. No `tern msg`
/// socket (the harness has no second process to answer).
pub fn app_harness_from_args(args: &[&str], size: egui::Vec2) -> Harness<'static, Slot> {
    use clap::Parser as _;
    let cli = tern::cli::Cli::try_parse_from(std::iter::once("tern").chain(args.iter().copied()))
        .unwrap_or_else(|e| panic!("tern {args:?}: {e}"));
    let start = tern::startup::WindowStart::from_cli(cli);
    assert!(start.problems.is_empty(), "{:?}", start.problems);
    app_harness(start.launch(None), size)
}

/// A git repository `proj` in `dir` with one commit on `main`.
pub fn git_repo(dir: &Path) -> PathBuf {
    let repo = dir.join("proj");
    std::fs::create_dir_all(&repo).expect("mkdir");
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("README"), "hi\n").expect("write");
    git(&repo, &["add", "README"]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    repo.canonicalize().expect("canonical")
}

/// `git ARGS` in `dir` with a fixed author; a failure fails the test with git's output.
pub fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// What the last frame put on the clipboard.
pub fn copied_now<S>(h: &Harness<'_, S>) -> Vec<String> {
    h.output()
        .platform_output
        .commands
        .iter()
        .filter_map(|c| match c {
            egui::OutputCommand::CopyText(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

/// Steps until a frame puts text on the clipboard (a copy that reaches into the
/// history waits for the model's page: a frame or more later); that text.
pub fn step_until_copied(h: &mut Harness<'_, Slot>, what: &str) -> Vec<String> {
    tern_testkit::eventually(
        format!("{what}: something copied"),
        std::time::Duration::from_secs(10),
        || {
            let now = copied_now(h);
            if now.is_empty() {
                h.step();
            }
            (!now.is_empty()).then_some(now)
        },
    )
}

/// The focused pane's selected text as copying reads it, without a frame: the held
/// lines at once, lines in the history from the model's page (asked for, then
/// polled). `None` without a selection or when its lines dropped off meanwhile.
pub fn selected(h: &mut Harness<'_, Slot>) -> Option<String> {
    let app = h.state_mut().as_mut()?;
    let pane = app.pane()?;
    let ui = app.pane_ui_mut(pane)?;
    ui.selection()?;
    ui.copy_selection(tern::window::pane::CopyTo::CLIPBOARD);
    tern_testkit::eventually(
        "the history page comes",
        std::time::Duration::from_secs(10),
        || {
            let copied = ui.take_copied();
            if let Some((text, _)) = copied.into_iter().next() {
                return Some(Some(text));
            }
            // An empty selection copies nothing; a page whose lines dropped neither.
            (!ui.waits_for_history()).then(|| ui.selection_text())
        },
    )
}

/// A key pressed (down only: a step runs a frame per queued event, and the output a
/// test reads is the last frame's), then one frame.
pub fn key_down(h: &mut Harness<'_, Slot>, key: egui::Key, modifiers: egui::Modifiers) {
    h.event(egui::Event::Key {
        key,
        physical_key: None,
        pressed: true,
        repeat: false,
        modifiers,
    });
    h.step();
}

/// Steps until every history line the focused pane shows has come from the model
/// (asked for without waiting: a frame or more); whether they came.
pub fn wait_history_in_view(h: &mut Harness<'_, Slot>) -> bool {
    step_until_or(h, std::time::Duration::from_secs(10), |h| {
        let app = h.state().as_ref().expect("app");
        app.pane()
            .and_then(|p| app.pane_ui(p))
            .is_some_and(|p| p.history_in_view())
    })
}

/// The socket a tern started with this runtime folder listens on, once it does (not the
/// keeper's).
pub fn find_socket(runtime: &Path) -> Option<PathBuf> {
    std::fs::read_dir(runtime.join("tern"))
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.extension().is_some_and(|x| x == "sock")
                && p.file_name().is_some_and(|n| n != "keeper.sock")
        })
}
