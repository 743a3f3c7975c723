//! The real binary in a real X server (Xvfb): start both, type into the window, read
//! its pixels. Needs xvfb, xdotool and imagemagick (`scripts/test.sh` installs them).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tern_testkit::eventually;

pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        // SIGTERM first, so Xvfb removes its lock and socket.
        let _ = Command::new("kill").arg(self.0.id().to_string()).status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A display number no other server (or other test in this process) uses.
pub fn free_display() -> u32 {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(90);
    loop {
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        assert!(n < 400, "no free X display number");
        if !Path::new(&format!("/tmp/.X{n}-lock")).exists()
            && !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
        {
            return n;
        }
    }
}

/// Whether the X server on `display` answers.
pub fn server_up(display: &str) -> bool {
    Command::new("xdotool")
        .env("DISPLAY", display)
        .arg("getmouselocation")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

pub fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e} (is it installed? see scripts/test.sh)"));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The colour of the screen pixel at (x, y), via ImageMagick.
pub fn pixel(display: &str, x: u32, y: u32) -> (u8, u8, u8) {
    let text = run(Command::new("import").args([
        "-display",
        display,
        "-window",
        "root",
        "-crop",
        &format!("1x1+{x}+{y}"),
        "-depth",
        "8",
        "txt:-",
    ]));
    // "0,0: (205,0,0)  #CD0000  srgb(205,0,0)"
    let rgb = text
        .split("srgb(")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap_or("0,0,0");
    let v: Vec<u8> = rgb
        .split(',')
        .map(|c| c.trim().parse().unwrap_or(0))
        .collect();
    (
        v.first().copied().unwrap_or(0),
        v.get(1).copied().unwrap_or(0),
        v.get(2).copied().unwrap_or(0),
    )
}

/// A screenshot of the whole screen as RGB.
pub struct Screen {
    pub width: usize,
    pub rgb: Vec<u8>,
}

impl Screen {
    pub fn grab(display: &str) -> Screen {
        let size = run(Command::new("xdotool")
            .env("DISPLAY", display)
            .arg("getdisplaygeometry"));
        let width = size
            .split_whitespace()
            .next()
            .and_then(|w| w.parse().ok())
            .expect("display width");
        let out = Command::new("import")
            .args([
                "-display", display, "-window", "root", "-depth", "8", "rgb:-",
            ])
            .output()
            .expect("import (apt-get install imagemagick)");
        Screen {
            width,
            rgb: out.stdout,
        }
    }

    pub fn at(&self, x: usize, y: usize) -> (u8, u8, u8) {
        let i = 3 * (y * self.width + x);
        match self.rgb.get(i..i + 3) {
            Some(p) => (p[0], p[1], p[2]),
            None => (0, 0, 0),
        }
    }

    /// The bounding box (x0, y0, x1, y1), exclusive, of the pixels of colour `c`.
    pub fn bbox(&self, c: (u8, u8, u8)) -> Option<(usize, usize, usize, usize)> {
        let height = self.rgb.len() / 3 / self.width.max(1);
        let mut b: Option<(usize, usize, usize, usize)> = None;
        for y in 0..height {
            for x in 0..self.width {
                if self.at(x, y) == c {
                    b = Some(match b {
                        None => (x, y, x + 1, y + 1),
                        Some((x0, y0, x1, y1)) => {
                            (x0.min(x), y0.min(y), x1.max(x + 1), y1.max(y + 1))
                        }
                    });
                }
            }
        }
        b
    }
}

/// Clearly coloured (not grey, not the theme's greys): the emoji's pixels.
pub fn coloured((r, g, b): (u8, u8, u8)) -> bool {
    r.max(g).max(b) - r.min(g).min(b) > 80
}

/// A running Xvfb on a free display. One at a time: software rendering on two cores
/// is slow enough without three windows competing.
pub struct Display {
    pub name: String,
    _server: Killed,
    _serial: std::sync::MutexGuard<'static, ()>,
}

pub static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub fn start_xvfb() -> Display {
    start_xvfb_sized("1024x768x24")
}

pub fn start_xvfb_sized(screen: &str) -> Display {
    start_xvfb_with(screen, &[])
}

/// Xvfb with `screen` and further server arguments (say `-extension MIT-SHM`).
///
/// Another process (another test binary, a benchmark) may take the same free number at
/// the same moment: the display is used only once its lock file names this Xvfb, else
/// the next number is tried (an answer on the display may be the other server's).
pub fn start_xvfb_with(screen: &str, args: &[&str]) -> Display {
    let serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let n = free_display();
        let display = format!(":{n}");
        let mut server = Killed(
            Command::new("Xvfb")
                .args([display.as_str(), "-screen", "0", screen, "-nolisten", "tcp"])
                .args(args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("Xvfb (apt-get install xvfb)"),
        );
        let ours = || {
            std::fs::read_to_string(format!("/tmp/.X{n}-lock"))
                .ok()
                .and_then(|pid| pid.trim().parse::<u32>().ok())
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        let up = loop {
            if let Ok(Some(_)) = server.0.try_wait() {
                break false; // another server holds the number
            }
            if server_up(&display) {
                break ours() == Some(server.0.id());
            }
            assert!(Instant::now() < deadline, "Xvfb did not start");
            std::thread::sleep(Duration::from_millis(50));
        };
        if up {
            return Display {
                name: display,
                _server: server,
                _serial: serial,
            };
        }
    }
}

/// A window manager (openbox) managing `display`, as a desktop has: returned once it
/// has taken the screen (it sets the current desktop, which `xdotool get_desktop` reads).
/// An openbox that exits before that (on a loaded machine it can lose the race for the
/// screen) is started again; its messages are in the panic if it never takes it.
pub fn start_window_manager(display: &str) -> Killed {
    let log = std::env::temp_dir().join(format!(
        "tern-openbox-{}-{}.log",
        std::process::id(),
        display.trim_start_matches(':')
    ));
    let deadline = Instant::now() + Duration::from_secs(90);
    for _attempt in 0..3 {
        let mut wm = Killed(
            Command::new("openbox")
                .env("DISPLAY", display)
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(&log).expect("openbox's log"))
                .spawn()
                .expect("openbox (apt-get install openbox)"),
        );
        loop {
            let managed = Command::new("xdotool")
                .env("DISPLAY", display)
                .arg("get_desktop")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if managed {
                return wm;
            }
            if let Ok(Some(_)) = wm.0.try_wait() {
                break; // it exited: start it again
            }
            assert!(
                Instant::now() < deadline,
                "openbox did not take the screen within 90 s: {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    panic!(
        "openbox exited three times before taking the screen: {}",
        std::fs::read_to_string(&log).unwrap_or_default()
    )
}

/// A scratch folder for one test (`super::scratch`) and its runtime dir, the one
/// [`super::isolate`] gives.
pub fn scratch(name: &str) -> (PathBuf, PathBuf) {
    let dir = super::scratch(name);
    let runtime = dir.join("run");
    std::fs::create_dir_all(&runtime).expect("runtime dir");
    let _ = std::fs::set_permissions(
        &runtime,
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    );
    (dir, runtime)
}

/// The real binary on `display`, tracing to `dir/trace.jsonl`.
pub fn start_tern(
    display: &Display,
    dir: &Path,
    runtime: &Path,
    args: &[&str],
) -> (Killed, PathBuf) {
    start_tern_with(display, dir, runtime, args, &[])
}

pub fn start_tern_with(
    display: &Display,
    dir: &Path,
    runtime: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> (Killed, PathBuf) {
    let trace = dir.join("trace.jsonl");
    let stderr = std::fs::File::create(dir.join("tern.stderr")).expect("stderr file");
    let tern = Killed(
        super::tern_in(dir)
            .args(args)
            .env("DISPLAY", &display.name)
            .env("XDG_RUNTIME_DIR", runtime)
            .env("TERN_TRACE", &trace)
            .env("TERN_CONFIG", dir.join("no-config.ron"))
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .expect("start tern"),
    );
    (tern, trace)
}

/// The real binary on `display` in a `cols`x`rows` window running `sh SCRIPT`, tracing
/// to `dir/trace.jsonl`.
pub fn start_script(
    display: &Display,
    dir: &Path,
    runtime: &Path,
    (cols, rows): (u16, u16),
    script: &Path,
) -> (Killed, PathBuf) {
    let (cols, rows) = (cols.to_string(), rows.to_string());
    let script = script.to_str().expect("a UTF-8 script path");
    let args = ["--cols", &cols, "--rows", &rows, "-e", "sh", script];
    start_tern_with(display, dir, runtime, &args, &[])
}

pub fn wait_trace(trace: &Path, dir: &Path, what: &str, done: impl Fn(&str) -> bool) {
    eventually(what, Duration::from_secs(60), || {
        let text = std::fs::read_to_string(trace).unwrap_or_default();
        if done(&text) {
            return Ok(());
        }
        Err(format!(
            "trace {text}, tern said {:?}",
            std::fs::read_to_string(dir.join("tern.stderr"))
        ))
    });
}

/// The tern window, focused.
pub fn tern_window(display: &Display) -> String {
    // Only a mapped window: focusing one that is not yet mapped does not hold, and
    // `xdotool key --window` then falls back to synthetic events, which the window
    // ignores (the keys are lost; seen under load, when the window maps late).
    let window = run(Command::new("xdotool").env("DISPLAY", &display.name).args([
        "search",
        "--sync",
        "--onlyvisible",
        "--class",
        "tern",
    ]));
    let window = window.lines().last().expect("the tern window").to_owned();
    run(Command::new("xdotool").env("DISPLAY", &display.name).args([
        "windowfocus",
        "--sync",
        &window,
    ]));
    window
}

pub fn xdo(display: &Display, args: &[&str]) {
    run(Command::new("xdotool")
        .env("DISPLAY", &display.name)
        .args(args));
}

/// Types `text` and presses Return.
pub fn type_line(display: &Display, window: &str, text: &str) {
    xdo(
        display,
        &["type", "--delay", "15", "--window", window, text],
    );
    xdo(display, &["key", "--window", window, "Return"]);
}

/// `tern msg --socket S ARGS`: stdout, or a panic with stderr.
pub fn msg(socket: &Path, args: &[&str]) -> String {
    let out = super::msg_cmd(socket)
        .args(args)
        .output()
        .expect("tern msg runs");
    assert!(
        out.status.success(),
        "tern msg {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Waits (60 s at most) until `done` gives a value; a failure says `what` and what
/// tern printed to `dir/tern.stderr`.
pub fn wait_for<T>(what: &str, dir: &Path, mut done: impl FnMut() -> Option<T>) -> T {
    eventually(what, Duration::from_secs(60), || {
        done().ok_or_else(|| {
            format!(
                "tern said {:?}",
                std::fs::read_to_string(dir.join("tern.stderr"))
            )
        })
    })
}
