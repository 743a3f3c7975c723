//! What image tools ask before they draw, through `tern --headless` (issue 49): the
//! pty's size in pixels from the start (timg asks for graphics only when it is not
//! 0), and the answers to the probes timg and chafa send, compared with what kitty
//! 0.26 and xterm 379 answer (`docs/architecture/images.md` has the whole table).

mod common;

use std::process::Stdio;

use common::tern_cmd as tern;

/// Runs `script` in `tern --headless` (80x24) and gives back the dumped screen.
fn headless(script: &str) -> String {
    let out = tern()
        .args([
            "--headless",
            "--cols",
            "80",
            "--rows",
            "24",
            "--dump-screen",
            "-",
        ])
        .args(["--", "sh", "-c", script])
        .stdin(Stdio::null())
        .output()
        .expect("run tern");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Catches a pty without a pixel size until a window says its cell size (headless
/// never does): what `CSI 14 t` answers, 8x16 cells, from the first byte.
#[test]
fn the_pty_has_a_pixel_size_from_the_start() {
    // TIOCGWINSZ (0x5413) read with perl, which every Debian has.
    let screen = headless(
        "perl -e 'ioctl(STDIN, 0x5413, $w = \"\\0\" x 8) or die; \
         printf \"winsize %d %d %d %d\\n\", unpack(\"S4\", $w)'",
    );
    assert!(screen.contains("winsize 24 80 640 384"), "{screen}");
}

/// timg's probes (its `term-query.cc`): the version, then kitty's graphics query,
/// each followed by DSR 5; and XTSMGRAPHICS and DA1 for sixel (newer chafa and timg).
/// A missing answer ends the read after 30 s (the assertion then says which).
#[test]
fn the_probes_image_tools_send_are_answered() {
    let screen = headless(
        "stty raw -echo; \
         printf '\\033_Ga=q,i=42,s=1,v=1,t=d,f=24;AAAA\\033\\\\\\033[5n'; \
         r=$(timeout --foreground 30 dd bs=1 count=16 2>/dev/null); \
         printf '\\033[?2;1;0S\\033[?1;1;0S\\033[c'; \
         s=$(timeout --foreground 30 dd bs=1 count=45 2>/dev/null); \
         stty sane; printf '%s%s' \"$r\" \"$s\" | od -An -c | tr -s ' ' | tr -d '\\n'; echo",
    );
    // The od line is longer than the screen: its rows joined, spaces dropped.
    let compact: String = screen.split_whitespace().collect();
    assert!(
        compact.contains("033_Gi=42;OK033\\033[0n"),
        "kitty's query is answered OK, then DSR: {compact}"
    );
    assert!(
        compact.contains("033[?2;0;640;384S033[?1;0;1024S"),
        "XTSMGRAPHICS as xterm: {compact}"
    );
    assert!(compact.contains(";4;"), "DA1 says sixel: {compact}");
}

/// The tools' own output, named formats: each leaves an image where the dump says.
#[test]
fn chafa_and_timg_output_is_an_image_headless() {
    for tool in ["chafa", "timg"] {
        let found = std::process::Command::new(tool).arg("--version").output();
        assert!(
            found.is_ok_and(|o| o.status.success()),
            "{tool} is needed (apt-get install chafa timg)"
        );
    }
    let dir = common::headless::scratch("image-probes");
    let ppm = dir.join("square.ppm");
    let mut bytes = b"P6\n32 32\n255\n".to_vec();
    bytes.extend(std::iter::repeat_n([255u8, 0, 255], 32 * 32).flatten());
    std::fs::write(&ppm, bytes).expect("ppm");
    let p = ppm.display();
    for (tool, cells) in [
        (format!("chafa -f sixel -s 10x5 {p}"), "10x5 cells"),
        (format!("chafa -f kitty -s 10x5 {p}"), "10x5 cells"),
        // timg does not scale a picture up: 32x32 pixels in 4x2 cells of 8x16.
        (
            format!("timg -pk -g 10x5 {p}"),
            "32x32 px at row 0 col 0, 4x2 cells",
        ),
    ] {
        let screen = headless(&tool);
        assert!(
            screen
                .lines()
                .any(|l| l.starts_with("[image ") && l.contains(cells)),
            "{tool}: {screen}"
        );
    }
}
