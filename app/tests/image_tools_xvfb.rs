//! Real image tools in the real window (issue 49): Debian's `chafa` (sixel and the
//! kitty protocol) and `timg` (the kitty protocol) draw a picture with a magenta left
//! half and a green right half, and tern shows those pixels where they belong, at the
//! size the tools chose from the pty's pixel size. Needs xvfb, xdotool, imagemagick,
//! chafa, timg.
//!
//! Debian 12's chafa (1.12) and timg (1.4.5) choose their graphics from `TERM` alone
//! (`xterm-kitty`: kitty's protocol), never from the terminal's answers, so the test
//! names the format; `docs/architecture/images.md` lists the answers newer versions
//! read.
//!
//! Catches: a tool's output not drawn (a sixel or kitty transmission it uses that tern
//! refuses), the halves swapped or stretched, a pty without a pixel size (the tools
//! then size the picture wrongly or not at all).

mod common;

use common::x11::*;

const MAGENTA: (u8, u8, u8) = (255, 0, 255);
const GREEN: (u8, u8, u8) = (0, 255, 0);

/// A 64x64 binary PPM (both tools read it), magenta on the left half, green on the
/// right.
fn halves_ppm() -> Vec<u8> {
    let mut out = b"P6\n64 64\n255\n".to_vec();
    for _ in 0..64 {
        for x in 0..64 {
            out.extend_from_slice(if x < 32 { &[255, 0, 255] } else { &[0, 255, 0] });
        }
    }
    out
}

type Box4 = (usize, usize, usize, usize);

/// Both halves on screen, side by side, each as tall as the other and half as wide as
/// the picture is tall (the picture is square).
fn assert_halves(what: &str, m: Box4, g: Box4) {
    let (mw, mh) = (m.2 - m.0, m.3 - m.1);
    let (gw, gh) = (g.2 - g.0, g.3 - g.1);
    assert!(
        g.0.abs_diff(m.2) <= 3 && g.1.abs_diff(m.1) <= 2,
        "{what}: green not right of magenta: {m:?} {g:?}"
    );
    assert!(
        mh.abs_diff(gh) <= 2 && mw.abs_diff(gw) <= 3,
        "{what}: halves of different sizes: {m:?} {g:?}"
    );
    let (w, h) = (g.2 - m.0, mh);
    assert!(
        w.abs_diff(h) <= 6 && h >= 24,
        "{what}: a picture of {w}x{h} pixels, not a square"
    );
}

#[test]
fn chafa_and_timg_pictures_show_their_pixels() {
    for tool in ["chafa", "timg"] {
        let found = std::process::Command::new(tool).arg("--version").output();
        assert!(
            found.is_ok_and(|o| o.status.success()),
            "{tool} is needed (apt-get install chafa timg)"
        );
    }
    let display = start_xvfb();
    let (dir, runtime) = scratch("image-tools-xvfb");
    let picture = dir.join("halves.ppm");
    std::fs::write(&picture, halves_ppm()).expect("ppm");
    let p = picture.display();
    // Each picture after a Return (the first once the window has told the pty its
    // cell size), each somewhere else; the screen cleared between them (which takes
    // the images away).
    let script = format!(
        "printf '\\033[?25l'; read x; printf '\\033[2;1H'; \
         chafa -f sixel --dither none -s 10x5 {p}; read x; \
         printf '\\033[H\\033[2J\\033[3;6H'; chafa -f kitty -s 10x5 {p}; read x; \
         printf '\\033[H\\033[2J\\033[1;12H'; timg -pk -g 10x5 {p}; exec sleep 600"
    );
    std::fs::write(dir.join("show.sh"), script).expect("script");
    let show = dir.join("show.sh");
    let (_tern, trace) = start_script(&display, &dir, &runtime, (40, 10), &show);
    wait_trace(&trace, &dir, "no first frame", |t| {
        t.contains("first_output_frame_built")
    });
    let window = tern_window(&display);
    let mut previous: Option<Box4> = None;
    for what in ["chafa -f sixel", "chafa -f kitty", "timg -pk"] {
        xdo(&display, &["key", "--window", &window, "Return"]);
        let (m, g) = wait_for(&format!("{what}: both halves"), &dir, || {
            let screen = Screen::grab(&display.name);
            let (m, g) = (screen.bbox(MAGENTA)?, screen.bbox(GREEN)?);
            // This tool's picture, not the last one's (each is somewhere else).
            (Some(m) != previous).then_some((m, g))
        });
        assert_halves(what, m, g);
        previous = Some(m);
    }
}
