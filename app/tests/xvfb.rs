//! The real binary in a real X server (Xvfb, Mesa's software Vulkan or GL): xdotool types
//! a command, the startup trace says when the window drew the echo, and a screenshot
//! must show the coloured block the command printed, in the right cells. A blank or
//! garbled window fails. Needs xvfb, xdotool and imagemagick (`scripts/test.sh`
//! installs them).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Killed(Child);

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

fn free_display() -> u32 {
    (90..200)
        .find(|n| {
            !Path::new(&format!("/tmp/.X{n}-lock")).exists()
                && !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
        })
        .expect("a free X display number")
}

/// Whether the X server on `display` answers.
fn server_up(display: &str) -> bool {
    Command::new("xdotool")
        .env("DISPLAY", display)
        .arg("getmouselocation")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e} (is it installed? see scripts/test.sh)"));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The colour of the screen pixel at (x, y), via ImageMagick.
fn pixel(display: &str, x: u32, y: u32) -> (u8, u8, u8) {
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

fn trace_has(path: &PathBuf, event: &str) -> bool {
    std::fs::read_to_string(path).is_ok_and(|t| t.contains(&format!("\"event\":\"{event}\"")))
}

#[test]
fn typed_command_output_appears_in_the_real_window() {
    let n = free_display();
    let display = format!(":{n}");
    let _xvfb = Killed(
        Command::new("Xvfb")
            .args([
                display.as_str(),
                "-screen",
                "0",
                "1024x768x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb (apt-get install xvfb)"),
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while !server_up(&display) {
        assert!(Instant::now() < deadline, "Xvfb did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let dir = std::env::temp_dir().join(format!("tern-xvfb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let runtime = dir.join("xdg");
    std::fs::create_dir_all(&runtime).expect("runtime dir");
    let _ = std::fs::set_permissions(
        &runtime,
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    );
    let trace = dir.join("trace.jsonl");
    let stderr_path = dir.join("tern.stderr");
    let stderr = std::fs::File::create(&stderr_path).expect("stderr file");
    let _tern = Killed(
        Command::new(env!("CARGO_BIN_EXE_tern"))
            .args(["--cols", "40", "--rows", "10", "-e", "sh"])
            .env("DISPLAY", &display)
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("TERN_TRACE", &trace)
            .env("PS1", "$ ")
            .env_remove("WAYLAND_DISPLAY")
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .expect("start tern"),
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    while !trace_has(&trace, "first_output_frame_built") {
        assert!(
            Instant::now() < deadline,
            "no first frame with the shell's output: trace {:?}, tern said {:?}",
            std::fs::read_to_string(&trace),
            std::fs::read_to_string(&stderr_path)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(300));
    let window = run(Command::new("xdotool")
        .env("DISPLAY", &display)
        .args(["search", "--sync", "--name", "^tern"]));
    let window = window.lines().next().expect("the tern window").to_owned();
    run(Command::new("xdotool")
        .env("DISPLAY", &display)
        .args(["windowfocus", "--sync", &window]));
    // Row 5 (1-based) becomes 40 cells of red background; the rest is cleared.
    let command = "clear; printf '\\033[5;1H\\033[41m%40s\\033[0m' ''";
    run(Command::new("xdotool")
        .env("DISPLAY", &display)
        .args(["type", "--delay", "15", "--window", &window, command]));
    run(Command::new("xdotool")
        .env("DISPLAY", &display)
        .args(["key", "--window", &window, "Return"]));
    let deadline = Instant::now() + Duration::from_secs(60);
    while !trace_has(&trace, "key_echo_frame") {
        assert!(
            Instant::now() < deadline,
            "typed keys never came back as a drawn echo: {:?}",
            std::fs::read_to_string(&trace)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Cells are about 9 x 17.5 px at the default size: row 5 spans y ≈ 70..88.
    let red = (0xcd, 0x00, 0x00);
    let mut last = ((0, 0, 0), (0, 0, 0));
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let in_row5 = pixel(&display, 180, 79);
        let in_row2 = pixel(&display, 180, 27);
        if in_row5 == red && in_row2 != red && in_row2 != (0, 0, 0) {
            break;
        }
        last = (in_row5, in_row2);
        assert!(
            Instant::now() < deadline,
            "row 5 is not red, or the window is blank: row 5 {:?}, row 2 {:?}",
            last.0,
            last.1
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let _ = last;
    let _ = std::fs::remove_dir_all(&dir);
}
