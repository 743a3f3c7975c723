//! Every glyph agents and shells print, in the real window (Xvfb): characters found
//! through fontconfig (Symbola, Nanum), symbols tern draws itself (Braille, Powerline,
//! legacy computing, rounded corners) each look different from a character no font has;
//! under mode 2027 a ZWJ family, a flag, a keycap and a skin-toned emoji each take two
//! cells and are drawn joined, not part by part. Needs xvfb, xdotool, imagemagick,
//! fontconfig, fonts-symbola, fonts-nanum and fonts-noto-color-emoji (`scripts/test.sh`
//! installs them). `TERN_SCREENSHOTS=dir` saves the screen there.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use common::x11::*;

/// What Claude Code, spinners, prompts and status lines print.
const GLYPHS: [char; 15] = [
    '⎿',
    '⠋',
    '⣿',
    '⡇',
    '\u{E0B0}',
    '\u{E0B6}',
    '한',
    '\u{1FB82}',
    '⧉',
    '⏵',
    '⏺',
    '✻',
    '✳',
    '╰',
    '❯',
];
/// A private-use character of plane 16: no font has it.
const NO_FONT: char = '\u{10FFFD}';
/// Each glyph gets three cells (한 is two wide).
const SLOT: usize = 3;

const CLUSTERS: [&str; 4] = [
    "👨\u{200D}👩\u{200D}👧",
    "🇫🇷",
    "1\u{FE0F}\u{20E3}",
    "👍\u{1F3FD}",
];
/// Each cluster gets four cells: itself, a `|` right after its two cells, a space.
const CLUSTER_SLOT: usize = 4;

/// The text `cat` prints: a red row to find the grid by, the glyphs and the character
/// no font has, then under mode 2027 the clusters and, below, each cluster's first code
/// point alone.
fn screen_text() -> String {
    let mut s = String::from("\x1b[41m          \x1b[0m\r\n");
    for (i, c) in GLYPHS.iter().chain([NO_FONT].iter()).enumerate() {
        s.push_str(&format!("\x1b[{}G{c}", 1 + i * SLOT));
    }
    s.push_str("\r\n\x1b[?2027h");
    for (i, cluster) in CLUSTERS.iter().enumerate() {
        s.push_str(&format!("\x1b[{}G{cluster}|", 1 + i * CLUSTER_SLOT));
    }
    s.push_str("\r\n");
    for (i, cluster) in CLUSTERS.iter().enumerate() {
        let first = cluster.chars().next().unwrap_or(' ');
        s.push_str(&format!("\x1b[{}G{first}", 1 + i * CLUSTER_SLOT));
    }
    s.push_str("\r\n");
    s
}

/// The grid found on a screenshot: its origin and cell size in pixels.
struct Grid {
    x0: usize,
    y0: usize,
    cell_w: usize,
    cell_h: usize,
}

impl Grid {
    /// The pixels of `cells` cells from (row, col), row by row.
    fn pixels(&self, screen: &Screen, row: usize, col: usize, cells: usize) -> Vec<(u8, u8, u8)> {
        let (x, y) = (self.x0 + col * self.cell_w, self.y0 + row * self.cell_h);
        (y..y + self.cell_h)
            .flat_map(|py| (x..x + cells * self.cell_w).map(move |px| (px, py)))
            .map(|(px, py)| screen.at(px, py))
            .collect()
    }
}

/// Starts the window (`cols` x `rows`) on a shell that `cat`s `text`, whose first row
/// is ten red cells to find the grid by; returns the window (stopped when dropped), the
/// screen once row `last_row` below the red one is drawn, and the grid.
fn show_text(
    display: &Display,
    dir: &std::path::Path,
    runtime: &std::path::Path,
    text: &str,
    (cols, rows): (u16, u16),
    last_row: usize,
) -> (Killed, Screen, Grid) {
    let path = dir.join("text.txt");
    std::fs::write(&path, text).expect("write the text");
    let (cols, rows) = (cols.to_string(), rows.to_string());
    let (tern, trace) = start_tern(
        display,
        dir,
        runtime,
        &["--cols", &cols, "--rows", &rows, "-e", "sh"],
    );
    wait_trace(&trace, dir, "no first frame with the shell's output", |t| {
        t.contains("first_output_frame_built")
    });
    let window = tern_window(display);
    type_line(display, &window, &format!("clear; cat {}", path.display()));
    let red = (0xcd, 0x00, 0x00);
    // Drawn once the shell's prompt after the text is (cat has printed all of it and
    // tern drew that output): the row below `last_row` shows the prompt.
    let (screen, grid) = tern_testkit::eventually(
        "the text and the prompt after it drawn",
        Duration::from_secs(60),
        || {
            let screen = Screen::grab(&display.name);
            let Some((x0, y0, x1, y1)) = screen.bbox(red) else {
                return Err(format!(
                    "no red row; tern said {:?}",
                    std::fs::read_to_string(dir.join("tern.stderr"))
                ));
            };
            let grid = Grid {
                x0,
                y0,
                cell_w: (x1 - x0) / 10,
                cell_h: y1 - y0,
            };
            let prompt_row = last_row + 1;
            let background = grid.pixels(&screen, prompt_row, 30, 1)[0];
            let drawn = |row| {
                grid.pixels(&screen, row, 0, 2)
                    .iter()
                    .any(|&p| p != background)
            };
            if drawn(last_row) && drawn(prompt_row) {
                Ok((screen, grid))
            } else {
                Err("the last row or the prompt not drawn yet".to_owned())
            }
        },
    );
    (tern, screen, grid)
}

#[test]
fn every_glyph_is_drawn_as_itself_and_emoji_sequences_as_one() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("glyphs");
    let (_tern, screen, grid) = show_text(&display, &dir, &runtime, &screen_text(), (64, 10), 3);
    if let Some(shots) = std::env::var_os("TERN_SCREENSHOTS") {
        run(Command::new("import")
            .args(["-display", &display.name, "-window", "root", "-crop"])
            .arg(format!(
                "{}x{}+{}+{}",
                64 * grid.cell_w + 16,
                5 * grid.cell_h + 16,
                grid.x0.saturating_sub(8),
                grid.y0.saturating_sub(8)
            ))
            .arg(PathBuf::from(shots).join("glyphs-xvfb.png")));
    }
    let background = screen.at(grid.x0, grid.y0 + 5 * grid.cell_h);
    // Row 1: each glyph (two cells, for 한) against the box of the character no font has.
    let missing = grid.pixels(&screen, 1, GLYPHS.len() * SLOT, 2);
    assert!(
        missing.iter().any(|&p| p != background),
        "the missing-glyph box is not drawn"
    );
    let mut boxes = Vec::new();
    for (i, c) in GLYPHS.iter().enumerate() {
        let drawn = grid.pixels(&screen, 1, i * SLOT, 2);
        if drawn == missing || drawn.iter().all(|&p| p == background) {
            boxes.push(format!("{c} U+{:04X}", *c as u32));
        }
    }
    assert!(
        boxes.is_empty(),
        "drawn as the missing-glyph box or blank: {boxes:?}"
    );
    // Rows 2 and 3: each cluster in two cells, its `|` right after them, and not drawn
    // like its first code point alone.
    let fg_in = |row: usize, col: usize| {
        grid.pixels(&screen, row, col, 1)
            .iter()
            .any(|&p| p != background)
    };
    for (i, cluster) in CLUSTERS.iter().enumerate() {
        let col = i * CLUSTER_SLOT;
        let joined = grid.pixels(&screen, 2, col, 2);
        let first_alone = grid.pixels(&screen, 3, col, 2);
        assert!(
            joined.iter().filter(|&&p| p != background).count() * 8 > joined.len(),
            "{cluster:?} is (nearly) blank"
        );
        assert_ne!(joined, first_alone, "{cluster:?} is drawn part by part");
        assert!(
            fg_in(2, col + 2),
            "no `|` right after the two cells of {cluster:?}"
        );
        assert!(!fg_in(2, col + 3), "{cluster:?} spills past its cells");
        let spilled = grid
            .pixels(&screen, 2, col + 2, 2)
            .iter()
            .filter(|&&p| coloured(p))
            .count();
        assert_eq!(spilled, 0, "{cluster:?} colours the cells after it");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// ⏺ (U+23FA, Emoji_Presentation=No), which Claude Code prints in its own colour before
/// each tool call: drawn as text in the cell's colour (green here), as kitty and
/// Ghostty do, not as the colour emoji font's square; with VS16 it asks for the emoji.
/// Catches: the colour emoji font in the text fallback chain ahead of the system's
/// text fonts (⏺ was a blue and orange square), seen failing so.
#[test]
fn a_text_presentation_symbol_is_drawn_in_its_cells_colour() {
    let display = start_xvfb();
    let (dir, runtime) = scratch("text-presentation");
    let text = "\x1b[41m          \x1b[0m\r\n\x1b[32m\u{23FA} \u{23FA} \u{23FA}\x1b[0m\r\n\x1b[32m\u{23FA}\u{FE0F}\x1b[0m\r\n";
    let (_tern, screen, grid) = show_text(&display, &dir, &runtime, text, (40, 8), 2);
    if let Some(shots) = std::env::var_os("TERN_SCREENSHOTS") {
        run(Command::new("import")
            .args(["-display", &display.name, "-window", "root", "-crop"])
            .arg(format!(
                "{}x{}+{}+{}",
                12 * grid.cell_w,
                4 * grid.cell_h,
                grid.x0.saturating_sub(8),
                grid.y0.saturating_sub(8)
            ))
            .arg(PathBuf::from(shots).join("text-presentation-xvfb.png")));
    }
    let background = screen.at(grid.x0, grid.y0 + 4 * grid.cell_h);
    let green = |(r, g, b): (u8, u8, u8)| g as i32 > r as i32 + 30 && g as i32 > b as i32 + 30;
    let ink: Vec<_> = grid
        .pixels(&screen, 1, 0, 5)
        .into_iter()
        .filter(|&p| p != background)
        .collect();
    assert!(ink.len() > 20, "⏺ is (nearly) blank: {} pixels", ink.len());
    let off_colour: Vec<_> = ink.iter().filter(|&&p| coloured(p) && !green(p)).collect();
    assert!(
        off_colour.is_empty(),
        "⏺ has ink that is not the cell's green ({} of {}): {:?}",
        off_colour.len(),
        ink.len(),
        &off_colour[..off_colour.len().min(8)]
    );
    // With VS16 the emoji is asked for: colours other than green appear.
    let emoji = grid.pixels(&screen, 2, 0, 2);
    assert!(
        emoji.iter().any(|&p| coloured(p) && !green(p)),
        "⏺ with VS16 is drawn as the colour emoji"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
