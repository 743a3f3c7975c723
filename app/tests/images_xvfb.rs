//! Images in the real window (issue 49): a kitty graphics protocol image and a sixel
//! image, sent by a shell script, are painted in their colours at their cells, scroll
//! with their text, and go when deleted. Needs xvfb, xdotool, imagemagick.
//!
//! Catches: placements not drawn (no texture uploaded, the layer not delivered), an
//! image that stays where it was when its rows scroll (anchored to the screen, not to
//! the line), a deleted image still drawn (a stale layer or texture).

mod common;

use base64::Engine;
use common::x11::*;

const MAGENTA: (u8, u8, u8) = (255, 0, 255);
const GREEN: (u8, u8, u8) = (0, 255, 0);

#[test]
fn kitty_and_sixel_images_are_drawn_scroll_and_go() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("images-xvfb");
    // 64x32 magenta pixels: 8x2 cells of the model's 8x16.
    let rgb: Vec<u8> = std::iter::repeat_n([255u8, 0, 255], 64 * 32)
        .flatten()
        .collect();
    let payload = base64::engine::general_purpose::STANDARD.encode(&rgb);
    let mut kitty = Vec::new();
    for (n, chunk) in payload.as_bytes().chunks(4096).enumerate() {
        let more = u8::from((n + 1) * 4096 < payload.len());
        let keys = if n == 0 {
            format!("a=T,f=24,s=64,v=32,i=7,q=2,m={more}")
        } else {
            format!("m={more}")
        };
        kitty.extend_from_slice(format!("\x1b_G{keys};").as_bytes());
        kitty.extend_from_slice(chunk);
        kitty.extend_from_slice(b"\x1b\\");
    }
    std::fs::write(dir.join("kitty.bin"), &kitty).expect("kitty.bin");
    std::fs::write(
        dir.join("sixel.bin"),
        b"\x1bPq#1;2;0;100;0#1!64~-!64~-!64~\x1b\\",
    )
    .expect("sixel.bin");
    let script = format!(
        "printf ready; read x; printf '\\033[?25l\\033[H\\033[2J\\n\\n\\n'; cat {d}/kitty.bin; read x; printf '\\n\\n\\n'; \
         read x; printf '\\033_Ga=d,d=A\\033\\\\'; read x; cat {d}/sixel.bin; exec sleep 600",
        d = dir.display()
    );
    std::fs::write(dir.join("show.sh"), script).expect("script");
    let show = dir.join("show.sh");
    let (_tern, trace) = start_script(&display, &dir, &runtime, (40, 8), &show);
    wait_trace(&trace, &dir, "no first frame", |t| {
        t.contains("first_output_frame_built")
    });
    // The first Return once the window is up (it told the model its cell size).
    let window = tern_window(&display);
    xdo(&display, &["key", "--window", &window, "Return"]);
    let (x0, y0, x1, y1) = wait_for("the kitty image in magenta", &dir, || {
        Screen::grab(&display.name).bbox(MAGENTA)
    });
    // bbox gives the last pixel, inclusive.
    let (w, h) = (x1 - x0 + 1, y1 - y0 + 1);
    // The window told the model its cell size, so the image is its own size on
    // screen (with 8x16 assumed it would be scaled to 8x2 of the window's cells).
    assert!(
        w.abs_diff(64) <= 1 && h.abs_diff(32) <= 1,
        "an image of {w}x{h} pixels, not 64x32"
    );
    xdo(&display, &["key", "--window", &window, "Return"]);
    // The echoed line feed and three more: the screen scrolls by one row.
    let moved = wait_for("the image one row up", &dir, || {
        Screen::grab(&display.name)
            .bbox(MAGENTA)
            .filter(|b| b.1 + 5 < y0)
    });
    assert!(
        (8..=48).contains(&(y0 - moved.1)),
        "moved {} pixels for one row",
        y0 - moved.1
    );
    assert_eq!(moved.0, x0, "the same column");
    xdo(&display, &["key", "--window", &window, "Return"]);
    wait_for("the deleted image gone", &dir, || {
        Screen::grab(&display.name)
            .bbox(MAGENTA)
            .is_none()
            .then_some(())
    });
    xdo(&display, &["key", "--window", &window, "Return"]);
    let (gx0, gy0, gx1, gy1) = wait_for("the sixel image in green", &dir, || {
        Screen::grab(&display.name).bbox(GREEN)
    });
    // 64x18 pixels, drawn at that size.
    let (gw, gh) = (gx1 - gx0 + 1, gy1 - gy0 + 1);
    assert!(
        gw.abs_diff(64) <= 1 && gh.abs_diff(18) <= 1,
        "sixel {gw}x{gh}, not 64x18"
    );
}
