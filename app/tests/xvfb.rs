//! The real binary in a real X server (Xvfb, Mesa's software Vulkan or GL): xdotool types
//! a command, the startup trace says when the window drew the echo, and a screenshot
//! must show the coloured block the command printed, in the right cells. A blank or
//! garbled window fails. At scale 2 (`WINIT_X11_SCALE_FACTOR`), an emoji must come out
//! in colour inside its cells and a box-drawing line must be crisp. Needs xvfb, xdotool,
//! imagemagick and fonts-noto-color-emoji (`scripts/test.sh` installs them).

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

fn trace_has(path: &PathBuf, event: &str) -> bool {
    std::fs::read_to_string(path).is_ok_and(|t| t.contains(&format!("\"event\":\"{event}\"")))
}

/// A screenshot of the whole screen as RGB.
struct Screen {
    width: usize,
    rgb: Vec<u8>,
}

impl Screen {
    fn grab(display: &str) -> Screen {
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

    fn at(&self, x: usize, y: usize) -> (u8, u8, u8) {
        let i = 3 * (y * self.width + x);
        match self.rgb.get(i..i + 3) {
            Some(p) => (p[0], p[1], p[2]),
            None => (0, 0, 0),
        }
    }

    /// The bounding box (x0, y0, x1, y1), exclusive, of the pixels of colour `c`.
    fn bbox(&self, c: (u8, u8, u8)) -> Option<(usize, usize, usize, usize)> {
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
fn coloured((r, g, b): (u8, u8, u8)) -> bool {
    r.max(g).max(b) - r.min(g).min(b) > 80
}

/// Xvfb and tern in it, typing into tern's window.
struct Session {
    display: String,
    dir: PathBuf,
    trace: PathBuf,
    stderr_path: PathBuf,
    window: String,
    // Dropped in this order: tern, the server, then the next test may start.
    _tern: Killed,
    _xvfb: Killed,
    _serial: std::sync::MutexGuard<'static, ()>,
}

/// One X server at a time: tests in parallel would pick the same free display number
/// (and share two cores with software rendering).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl Session {
    /// Starts Xvfb with a `screen` (e.g. "1024x768x24") and tern (40x10, sh) at X11
    /// `scale`, and waits for the first frame with the shell's output.
    fn start(screen: &str, scale: &str) -> Session {
        let serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let n = free_display();
        let display = format!(":{n}");
        let xvfb = Killed(
            Command::new("Xvfb")
                .args([display.as_str(), "-screen", "0", screen, "-nolisten", "tcp"])
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
        let dir = std::env::temp_dir().join(format!("tern-xvfb-{}-{n}", std::process::id()));
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
        let tern = Killed(
            Command::new(env!("CARGO_BIN_EXE_tern"))
                .args(["--cols", "40", "--rows", "10", "-e", "sh"])
                .env("DISPLAY", &display)
                .env("XDG_RUNTIME_DIR", &runtime)
                .env("TERN_TRACE", &trace)
                .env("WINIT_X11_SCALE_FACTOR", scale)
                .env("PS1", "$ ")
                .env_remove("WAYLAND_DISPLAY")
                .env_remove("TERN_EMOJI_FONT")
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
        // By pid: the window title is the pane's (its directory, then its program).
        let window = run(Command::new("timeout").env("DISPLAY", &display).args([
            "30",
            "xdotool",
            "search",
            "--sync",
            "--pid",
            &tern.0.id().to_string(),
        ]));
        let window = window.lines().next().expect("the tern window").to_owned();
        run(Command::new("xdotool").env("DISPLAY", &display).args([
            "windowfocus",
            "--sync",
            &window,
        ]));
        Session {
            display,
            dir,
            trace,
            stderr_path,
            window,
            _tern: tern,
            _xvfb: xvfb,
            _serial: serial,
        }
    }

    /// Types `command` and Return, and waits until the echo was drawn.
    fn type_line(&self, command: &str) {
        run(Command::new("xdotool").env("DISPLAY", &self.display).args([
            "type",
            "--delay",
            "15",
            "--window",
            &self.window,
            command,
        ]));
        run(Command::new("xdotool").env("DISPLAY", &self.display).args([
            "key",
            "--window",
            &self.window,
            "Return",
        ]));
        let deadline = Instant::now() + Duration::from_secs(60);
        while !trace_has(&self.trace, "key_echo_frame") {
            assert!(
                Instant::now() < deadline,
                "typed keys never came back as a drawn echo: {:?}, tern said {:?}",
                std::fs::read_to_string(&self.trace),
                std::fs::read_to_string(&self.stderr_path)
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn typed_command_output_appears_in_the_real_window() {
    let s = Session::start("1024x768x24", "1");
    // Row 5 (1-based) becomes 40 cells of red background; the rest is cleared.
    s.type_line("clear; printf '\\033[5;1H\\033[41m%40s\\033[0m' ''");
    // Found by colour (the tab bar above the pane moves it): one row of 40 whole cells,
    // under four rows of a window that is not blank.
    let red = (0xcd, 0x00, 0x00);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let screen = Screen::grab(&s.display);
        if let Some((x0, y0, x1, y1)) = screen.bbox(red) {
            let (cell_w, cell_h) = ((x1 - x0) / 40, y1 - y0);
            let above = screen.at(x0 + 5, y0.saturating_sub(3 * cell_h));
            assert!(
                (x1 - x0) % 40 == 0 && (7..=12).contains(&cell_w) && (14..=22).contains(&cell_h),
                "the red row is {}x{} px",
                x1 - x0,
                y1 - y0
            );
            assert!(
                above != red && above != (0, 0, 0),
                "the window above the red row is {above:?}"
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no red row; tern said {:?}",
            std::fs::read_to_string(&s.stderr_path)
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn at_scale_2_an_emoji_is_coloured_in_its_cells_and_box_lines_are_crisp() {
    let s = Session::start("1600x1000x24", "2");
    // Row 1: ten red cells (to find the grid); row 2: U+1F600 U+1F680 (two wide cells
    // each); row 3: four light horizontal box lines.
    s.type_line(
        "clear; printf '\\033[41m%10s\\033[0m\\n\\360\\237\\230\\200\\360\\237\\232\\200\\n\\342\\224\\200\\342\\224\\200\\342\\224\\200\\342\\224\\200\\n' ''",
    );
    let red = (0xcd, 0x00, 0x00);
    let deadline = Instant::now() + Duration::from_secs(60);
    let (screen, (x0, y0, x1, y1)) = loop {
        let screen = Screen::grab(&s.display);
        // The emoji row is drawn in the same frame as the red row.
        if let Some(b) = screen.bbox(red) {
            let emoji_row = (b.0..b.2).any(|x| coloured(screen.at(x, b.3 + (b.3 - b.1) / 2)));
            if emoji_row {
                break (screen, b);
            }
        }
        assert!(
            Instant::now() < deadline,
            "no red row with emoji under it; tern said {:?}",
            std::fs::read_to_string(&s.stderr_path)
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    // The grid in physical pixels: whole-pixel cells, twice the size of scale 1's (9x18).
    let (cell_w, cell_h) = ((x1 - x0) / 10, y1 - y0);
    assert_eq!((x1 - x0) % 10, 0, "ten cells are {} px wide", x1 - x0);
    assert!(
        (16..=20).contains(&cell_w) && (32..=40).contains(&cell_h),
        "cell {cell_w}x{cell_h} px at scale 2"
    );
    // The emoji: mostly coloured pixels in their four cells, none in the rows around.
    let row = |r: usize| y0 + r * cell_h..y0 + (r + 1) * cell_h;
    let count = |rows: std::ops::Range<usize>, cols: std::ops::Range<usize>| {
        rows.flat_map(|y| cols.clone().map(move |x| (x, y)))
            .filter(|&(x, y)| coloured(screen.at(x, y)))
            .count()
    };
    let emoji_cells = x0..x0 + 4 * cell_w;
    let inside = count(row(1), emoji_cells.clone());
    let area = 4 * cell_w * cell_h;
    assert!(
        inside * 4 > area,
        "{inside} coloured pixels of {area} in the emoji cells"
    );
    let outside =
        count(row(2), x0..x0 + 10 * cell_w) + count(row(1), x0 + 4 * cell_w..x0 + 10 * cell_w);
    assert_eq!(outside, 0, "coloured pixels outside the emoji cells");
    // The box line: down the middle of a cell only two colours (background and line,
    // no blended edge), and the line is at least two pixels thick.
    let column: Vec<(u8, u8, u8)> = row(2)
        .map(|y| screen.at(x0 + cell_w + cell_w / 2, y))
        .collect();
    let background = column[0];
    let mut colours: Vec<(u8, u8, u8)> = column.clone();
    colours.sort();
    colours.dedup();
    let thick = column.iter().filter(|&&c| c != background).count();
    assert!(
        colours.len() == 2 && thick >= 2,
        "box line column {column:?}: colours {colours:?}, {thick} px thick"
    );
    // And unbroken across its four cells.
    let line_y = y0 + 2 * cell_h + column.iter().position(|&c| c != background).unwrap_or(0);
    let gaps = (x0..x0 + 4 * cell_w)
        .filter(|&x| screen.at(x, line_y) == background)
        .count();
    assert_eq!(gaps, 0, "gaps in the box line at y {line_y}");
}
