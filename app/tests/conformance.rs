//! Inside-out conformance check: a program running in `tern --headless` draws with
//! left/right margins, rectangle operations, selective erase, other erases and box
//! scrolling, then reads the screen back the way a conformance tool does — DECRQCRA
//! checksums (blank cells included: never written, erased, wiped), CPR and DECRQSS
//! replies read from its own tty in raw mode — and fails on any mismatch.
//!
//! The program is this test binary itself: `screen_checks_from_inside_pass` runs
//! `tern --headless -- <this binary> --exact inside_out_probe` with `PROBE_ENV` set to a
//! report file, and `inside_out_probe` does the work only when it finds that variable,
//! writing what went wrong to the file. Expected checksums are computed here from the
//! expected text, never from tern's output.

mod common;

use std::io::{Read, Write};
use std::process::Stdio;
use std::time::Duration;

use rustix::termios::{self, OptionalActions};

// Not `TERN_…`: tern does not pass its own variables on to its children.
const PROBE_ENV: &str = "CONFORMANCE_PROBE_REPORT";
const COLS: usize = 20;
const ROWS: usize = 8;

/// What the screen must hold after the drawing (1-based row n is `EXPECTED[n - 1]`).
const EXPECTED: [&str; ROWS] = [
    "              KEEP",
    "  ijkl  op",
    "",
    "",
    "",
    "",
    "####",
    "####       abcd",
];

#[test]
fn screen_checks_from_inside_pass() {
    if std::env::var_os(PROBE_ENV).is_some() {
        return;
    }
    let exe = std::env::current_exe().expect("test binary path");
    let report = std::env::temp_dir().join(format!("tern-conformance-{}.txt", std::process::id()));
    let _ = std::fs::remove_file(&report);
    let out = common::tern_cmd()
        .args([
            "--headless",
            "--cols",
            &COLS.to_string(),
            "--rows",
            &ROWS.to_string(),
        ])
        .args(["--dump-screen", "-", "--"])
        .arg(exe)
        .args([
            "--exact",
            "inside_out_probe",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(PROBE_ENV, &report)
        .stdin(Stdio::null())
        .output()
        .expect("run tern");
    let screen = String::from_utf8_lossy(&out.stdout);
    let failures = std::fs::read_to_string(&report).unwrap_or_default();
    let _ = std::fs::remove_file(&report);
    assert!(
        out.status.success() && failures.is_empty(),
        "the probe failed inside tern ({:?}):\n{failures}\nits screen:\n{screen}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(screen.contains("KEEP"), "the probe ran: {screen}");
}

/// Blank cells that xterm counts in DECRQCRA as written spaces (1-based row, columns):
/// "gone" wiped by DECSERA, "mn" erased by DECERA (then scrolled up a row) and "xyz"
/// erased by ECH. Every other blank was never written or was erased by ED or EL 2, and
/// counts only as the first cell of a rectangle.
const COUNTED_BLANKS: [(usize, std::ops::RangeInclusive<usize>); 3] =
    [(1, 1..=4), (2, 7..=8), (5, 12..=14)];

/// xterm 379's default DECRQCRA checksum of rows `first_row..` of the expected text over
/// columns `left..=right` (1-based): the negated 16-bit sum of each character's low 8
/// bits (protection adds nothing), a space (0x20) for each blank in `COUNTED_BLANKS`,
/// and a space for the rectangle's first cell if it is any other blank.
fn expected_checksum(rows: &[&str], first_row: usize, left: usize, right: usize) -> u16 {
    let mut sum: u32 = 0;
    let mut first = true;
    for (r, text) in rows.iter().enumerate() {
        let row = first_row + r;
        for col in left..=right {
            let c = text.chars().nth(col - 1).unwrap_or(' ');
            let counted_blank = COUNTED_BLANKS
                .iter()
                .any(|(r, cols)| *r == row && cols.contains(&col));
            if c != ' ' || counted_blank || first {
                sum += c as u32 & 0xff;
            }
            first = false;
        }
    }
    (sum as u16).wrapping_neg()
}

/// The probe's end of the tty: raw mode, writes, and replies read up to a terminator.
struct Tty {
    input: std::io::Stdin,
    output: std::io::Stdout,
}

impl Tty {
    fn send(&mut self, bytes: &str) {
        self.output.write_all(bytes.as_bytes()).expect("write");
        self.output.flush().expect("flush");
    }

    /// Reads one reply: bytes up to and including `end`.
    fn reply(&mut self, end: &[u8]) -> String {
        let mut got = Vec::new();
        let mut byte = [0u8; 1];
        while !got.ends_with(end) {
            match self.input.read(&mut byte) {
                Ok(1) => got.push(byte[0]),
                _ => break,
            }
        }
        String::from_utf8_lossy(&got).into_owned()
    }

    fn query(&mut self, request: &str, end: &[u8]) -> String {
        self.send(request);
        self.reply(end)
    }
}

fn run_probe(tty: &mut Tty) -> Vec<String> {
    let mut failures = Vec::new();
    let mut check = |what: &str, got: String, want: String| {
        if got != want {
            failures.push(format!("{what}: got {got:?}, want {want:?}"));
        }
    };
    // Draw. Margins: columns 3..10, rows 2..6.
    tty.send("\x1b[2J\x1b[H\x1b[?69h\x1b[3;10s\x1b[2;6r");
    tty.send("\x1b[2;3Habcdefghijklmnop"); // wraps at the right margin to the left one
    tty.send("\x1b[35;7;1;8;4$x"); // DECFRA '#'
    tty.send("\x1b[2;3;2;6;1;8;12;1$v"); // DECCRA "abcd" to row 8, column 12
    tty.send("\x1b[1;15H\x1b[1\"qKEEP\x1b[0\"q\x1b[1;1Hgone"); // DECSCA
    tty.send("\x1b[1;1;1;20${"); // DECSERA: only "KEEP" stays
    tty.send("\x1b[3;7;3;8$z"); // DECERA "mn"
    tty.send("\x1b[6;5H\n"); // LF at the bottom margin scrolls the box only

    // CPR: the line feed scrolled instead of moving the cursor.
    check(
        "CPR after LF",
        tty.query("\x1b[6n", b"R"),
        "\x1b[6;5R".into(),
    );
    // Origin mode homes to the margin box's corner, reported as 1;1.
    check(
        "CPR in origin mode",
        tty.query("\x1b[?6h\x1b[6n", b"R"),
        "\x1b[1;1R".into(),
    );
    tty.send("\x1b[?6l");
    check(
        "DECRQSS DECSTBM",
        tty.query("\x1bP$qr\x1b\\", b"\x1b\\"),
        "\x1bP1$r2;6r\x1b\\".into(),
    );
    check(
        "DECRQSS DECSLRM",
        tty.query("\x1bP$qs\x1b\\", b"\x1b\\"),
        "\x1bP1$r3;10s\x1b\\".into(),
    );
    // Deliberately unlike xterm: title reports (21t) are refused, so the next reply the
    // program reads is the CPR it asked for after it.
    check(
        "21t refused (security)",
        tty.query("\x1b[21t\x1b[H\x1b[6n", b"R"),
        "\x1b[1;1R".into(),
    );
    // Erase some more outside the margins: "uvw" by EL 2 (a never-written row again),
    // "xyz" by ECH (blanks xterm counts).
    tty.send("\x1b[4;12Huvw\x1b[2K\x1b[5;12Hxyz\x1b[5;12H\x1b[3X");
    // Blank cells: never written, erased by ED 2 or EL 2 (only the first cell of a
    // rectangle counts), wiped by DECSERA, DECERA or ECH (all count as spaces).
    for (what, request, (top, left, bottom, right)) in [
        ("never written, 1x1", "\x1b[7;1;6;8;6;8*y", (6, 8, 6, 8)),
        ("never written, 3x3", "\x1b[7;1;4;3;6;5*y", (4, 3, 6, 5)),
        ("erased by EL 2", "\x1b[7;1;4;12;4;14*y", (4, 12, 4, 14)),
        ("erased by ED 2", "\x1b[7;1;3;11;3;20*y", (3, 11, 3, 20)),
        ("erased by ECH", "\x1b[7;1;5;11;5;14*y", (5, 11, 5, 14)),
        ("wiped by DECSERA", "\x1b[7;1;1;1;1;6*y", (1, 1, 1, 6)),
        ("erased by DECERA", "\x1b[7;1;2;7;2;8*y", (2, 7, 2, 8)),
    ] {
        let rows = &EXPECTED[top - 1..bottom];
        let want = format!(
            "\x1bP7!~{:04X}\x1b\\",
            expected_checksum(rows, top, left, right)
        );
        check(
            &format!("DECRQCRA {what}"),
            tty.query(request, b"\x1b\\"),
            want,
        );
    }
    // DECRQCRA row by row, a sub-rectangle and the whole screen.
    for (i, row) in EXPECTED.iter().enumerate() {
        let n = i + 1;
        let want = format!(
            "\x1bP{n}!~{:04X}\x1b\\",
            expected_checksum(&[row], n, 1, COLS)
        );
        let got = tty.query(&format!("\x1b[{n};1;{n};1;{n};{COLS}*y"), b"\x1b\\");
        check(&format!("DECRQCRA row {n}"), got, want);
    }
    let want = format!(
        "\x1bP42!~{:04X}\x1b\\",
        expected_checksum(&EXPECTED[1..2], 2, 3, 6)
    );
    check(
        "DECRQCRA row 2, columns 3..6",
        tty.query("\x1b[42;1;2;3;2;6*y", b"\x1b\\"),
        want,
    );
    let want = format!(
        "\x1bP99!~{:04X}\x1b\\",
        expected_checksum(&EXPECTED, 1, 1, COLS)
    );
    check(
        "DECRQCRA whole screen",
        tty.query("\x1b[99;1;1;1;8;20*y", b"\x1b\\"),
        want,
    );
    failures
}

#[test]
fn inside_out_probe() {
    let Some(report) = std::env::var_os(PROBE_ENV) else {
        return;
    };
    // A reply that never comes must fail the run, not hang it.
    std::thread::spawn(|| {
        std::thread::sleep(Duration::from_secs(30));
        eprintln!("probe: timed out waiting for a reply");
        std::process::exit(3);
    });
    let stdin = std::io::stdin();
    let saved = termios::tcgetattr(&stdin).expect("the probe runs on a tty");
    let mut raw = saved.clone();
    raw.make_raw();
    termios::tcsetattr(&stdin, OptionalActions::Now, &raw).expect("raw mode");
    let mut tty = Tty {
        input: stdin,
        output: std::io::stdout(),
    };
    let failures = run_probe(&mut tty);
    let _ = termios::tcsetattr(&tty.input, OptionalActions::Now, &saved);
    if !failures.is_empty() {
        let text: String = failures
            .iter()
            .map(|f| format!("{}\n", f.escape_debug()))
            .collect();
        std::fs::write(&report, text).expect("write the report");
        panic!("{} conformance checks failed", failures.len());
    }
}
