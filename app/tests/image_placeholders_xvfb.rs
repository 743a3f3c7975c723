//! kitty's Unicode placeholders inside tmux, in the real window (issue 49): a program
//! in tmux sends a virtual placement through tmux's passthrough and prints placeholder
//! cells, which tmux keeps and redraws as its own text; tern draws the image's four
//! quadrants in those cells, moves it when tmux scrolls them, and draws nothing once
//! tmux clears them. Needs xvfb, xdotool, imagemagick, tmux.
//!
//! Catches: placeholder cells not read (nothing drawn, or the tofu of U+10EEEE), a
//! wrong part of the image in a cell (the row/column diacritics or their inference from
//! the left cell misread: quadrants swapped or repeated), an image stretched to the box
//! (its aspect not kept), an image that stays when its cells scroll or go.

mod common;

use std::path::PathBuf;
use std::process::Command;

use base64::Engine;
use common::x11::*;
use tern_core::model::images::placeholder::{PLACEHOLDER, diacritic};

const MAGENTA: (u8, u8, u8) = (255, 0, 255);
const GREEN: (u8, u8, u8) = (0, 255, 0);
const BLUE: (u8, u8, u8) = (0, 0, 255);
const YELLOW: (u8, u8, u8) = (255, 255, 0);

/// The tmux server of the test, killed when the test ends (it would outlive tern).
struct TmuxServer(PathBuf);

impl Drop for TmuxServer {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(&self.0)
            .arg("kill-server")
            .output();
    }
}

/// 32x32 pixels: magenta, green on top, blue, yellow below.
fn quadrants() -> Vec<u8> {
    let mut rgb = Vec::with_capacity(32 * 32 * 3);
    for y in 0..32 {
        for x in 0..32 {
            let (r, g, b) = match (x >= 16, y >= 16) {
                (false, false) => MAGENTA,
                (true, false) => GREEN,
                (false, true) => BLUE,
                (true, true) => YELLOW,
            };
            rgb.extend_from_slice(&[r, g, b]);
        }
    }
    rgb
}

type Box4 = (usize, usize, usize, usize);

fn near(a: usize, b: usize, by: usize) -> bool {
    a.abs_diff(b) <= by
}

#[test]
fn unicode_placeholders_inside_tmux_show_the_right_pixels_scroll_and_go() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("image-placeholders-xvfb");
    let socket = dir.join("tmux.sock");
    let _server = TmuxServer(socket.clone());
    // The virtual placement, 4x2 cells, sent through tmux's passthrough (each ESC of
    // the command doubled inside `ESC P tmux; ... ESC \`).
    let payload = base64::engine::general_purpose::STANDARD.encode(quadrants());
    let apc = format!("\x1b_Ga=T,U=1,f=24,s=32,v=32,i=42,c=4,r=2,q=2;{payload}\x1b\\");
    let wrapped = format!("\x1bPtmux;{}\x1b\\", apc.replace('\x1b', "\x1b\x1b"));
    std::fs::write(dir.join("kitty.bin"), wrapped).expect("kitty.bin");
    // Image 42 as a 256-colour foreground; the first row's cells say row and column,
    // the second row's first cell only its row, the rest of each row nothing (the
    // column follows the cell on the left).
    let mark = |v: u32| diacritic(v).expect("a diacritic");
    let p = PLACEHOLDER;
    let row0: String = [p, mark(0), mark(0), p, mark(0), mark(1), p, p]
        .iter()
        .collect();
    let row1: String = [p, mark(1), p, p, p].iter().collect();
    std::fs::write(
        dir.join("cells.txt"),
        format!("\x1b[38;5;42m{row0}\r\n{row1}\x1b[m\r\n"),
    )
    .expect("cells");
    std::fs::write(
        dir.join("tmux.conf"),
        "set -g allow-passthrough on\nset -g status off\n",
    )
    .expect("tmux.conf");
    let d = dir.display();
    std::fs::write(
        dir.join("inner.sh"),
        format!(
            "printf '\\033[?25l\\033[H\\033[2J\\n\\n'; cat {d}/kitty.bin; cat {d}/cells.txt; \
             read x; printf '\\033[8H\\n'; read x; printf '\\033[H\\033[2J'; exec sleep 600"
        ),
    )
    .expect("inner.sh");
    std::fs::write(
        dir.join("outer.sh"),
        format!(
            "unset TMUX; export LC_ALL=C.UTF-8; exec tmux -u -S {d}/tmux.sock -f {d}/tmux.conf \
             new-session -x 40 -y 8 'sh {d}/inner.sh'"
        ),
    )
    .expect("outer.sh");
    let outer = dir.join("outer.sh");
    let (_tern, _trace) = start_script(&display, &dir, &runtime, (40, 8), &outer);
    let [m, g, b, y]: [Box4; 4] = wait_for("the four quadrants through tmux", &dir, || {
        let screen = Screen::grab(&display.name);
        Some([
            screen.bbox(MAGENTA)?,
            screen.bbox(GREEN)?,
            screen.bbox(BLUE)?,
            screen.bbox(YELLOW)?,
        ])
    });
    let size = |q: Box4| (q.2 - q.0, q.3 - q.1);
    // Each quadrant where it belongs (bboxes are exclusive; the texture's filtering
    // may blend a pixel at each inner edge).
    assert!(
        near(g.0, m.2, 2) && near(g.1, m.1, 1),
        "green right of magenta: {m:?} {g:?}"
    );
    assert!(
        near(b.1, m.3, 2) && near(b.0, m.0, 1),
        "blue below magenta: {m:?} {b:?}"
    );
    assert!(
        near(y.0, b.2, 2) && near(y.1, g.3, 2),
        "yellow below green, right of blue: {g:?} {b:?} {y:?}"
    );
    // The square image keeps its aspect in its 4x2-cell box, and is not a sliver.
    let (w, h) = (y.2 - m.0, y.3 - m.1);
    assert!(near(w, h, 3), "the image is {w}x{h} pixels, not square");
    assert!(w >= 20, "the image is {w} pixels wide");
    for q in [m, g, b, y] {
        let (qw, qh) = size(q);
        assert!(near(qw, qh, 3), "a quadrant of {qw}x{qh} pixels");
    }
    // tmux scrolls its pane by one row: the cells, and so the image, move up a row.
    let window = tern_window(&display);
    xdo(&display, &["key", "--window", &window, "Return"]);
    let moved = wait_for("the image one row up", &dir, || {
        Screen::grab(&display.name)
            .bbox(MAGENTA)
            .filter(|q| q.1 + 5 < m.1)
    });
    assert!(
        (8..=48).contains(&(m.1 - moved.1)),
        "moved {} pixels for one row",
        m.1 - moved.1
    );
    assert_eq!(moved.0, m.0, "the same column");
    // tmux clears its pane: no placeholder cell is left, so no image.
    xdo(&display, &["key", "--window", &window, "Return"]);
    wait_for("the image gone with its cells", &dir, || {
        let screen = Screen::grab(&display.name);
        [MAGENTA, GREEN, BLUE, YELLOW]
            .iter()
            .all(|&c| screen.bbox(c).is_none())
            .then_some(())
    });
}
