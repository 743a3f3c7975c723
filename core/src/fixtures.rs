//! Deterministic byte streams that stand for real workloads, shared by the parse
//! benchmark and the end-to-end benchmarks: dense coloured full-screen redraws, plain
//! scrolling lines, an agent-style TUI with spinners and CR/EL redraws, and unicode
//! text with CJK and emoji.

use std::fmt::Write as _;

/// The four workloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fixture {
    Dense,
    Scrolling,
    AgentTui,
    Unicode,
}

impl Fixture {
    pub const ALL: [Fixture; 4] = [
        Fixture::Dense,
        Fixture::Scrolling,
        Fixture::AgentTui,
        Fixture::Unicode,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Fixture::Dense => "dense",
            Fixture::Scrolling => "scrolling",
            Fixture::AgentTui => "agent-tui",
            Fixture::Unicode => "unicode",
        }
    }

    /// At least `min_bytes` of this workload for a `cols` x `rows` screen.
    pub fn generate(self, min_bytes: usize, cols: usize, rows: usize) -> Vec<u8> {
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15 ^ self as u64);
        let mut out = String::with_capacity(min_bytes + 64 * 1024);
        let mut frame = 0usize;
        while out.len() < min_bytes {
            match self {
                Fixture::Dense => dense_frame(&mut out, &mut rng, cols, rows),
                Fixture::Scrolling => scrolling_line(&mut out, &mut rng, frame),
                Fixture::AgentTui => agent_step(&mut out, &mut rng, frame, cols),
                Fixture::Unicode => unicode_line(&mut out, &mut rng, cols),
            }
            frame += 1;
        }
        out.into_bytes()
    }
}

/// A tiny deterministic generator (no dependency, same stream everywhere).
pub struct XorShift(pub u64);

impl XorShift {
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

const WORDS: &[&str] = &[
    "cargo",
    "build",
    "warning",
    "error",
    "compiling",
    "tern",
    "model",
    "parser",
    "the",
    "of",
    "src/main.rs",
    "fn",
    "let",
    "Ok(())",
    "agent",
    "tool",
    "call",
    "diff",
    "+++",
    "---",
    "test",
    "passed",
    "0.37",
    "wgpu",
    "render",
    "frame",
    "queue",
    "pty",
    "credit",
    "window",
];

fn word(rng: &mut XorShift) -> &'static str {
    WORDS[rng.below(WORDS.len())]
}

fn dense_frame(out: &mut String, rng: &mut XorShift, cols: usize, rows: usize) {
    out.push_str("\x1b[?2026h\x1b[H");
    for row in 0..rows {
        let _ = write!(out, "\x1b[{};1H", row + 1);
        let mut col = 0;
        while col < cols {
            let run = (4 + rng.below(12)).min(cols - col);
            match rng.below(4) {
                0 => {
                    let _ = write!(out, "\x1b[38;5;{}m", rng.below(256));
                }
                1 => {
                    let _ = write!(
                        out,
                        "\x1b[38;2;{};{};{}m",
                        rng.below(256),
                        rng.below(256),
                        rng.below(256)
                    );
                }
                2 => {
                    let _ = write!(out, "\x1b[{};{}m", 30 + rng.below(8), 40 + rng.below(8));
                }
                _ => out.push_str("\x1b[1;4m"),
            }
            for _ in 0..run {
                out.push((b'!' + rng.below(94) as u8) as char);
            }
            out.push_str("\x1b[0m");
            col += run;
        }
    }
    out.push_str("\x1b[?2026l");
}

fn scrolling_line(out: &mut String, rng: &mut XorShift, n: usize) {
    let _ = write!(out, "[{n:>7}] ");
    let words = 4 + rng.below(10);
    for i in 0..words {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word(rng));
    }
    out.push_str("\r\n");
}

fn agent_step(out: &mut String, rng: &mut XorShift, n: usize, cols: usize) {
    const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
    match n % 8 {
        0..=4 => {
            // Spinner line redrawn in place.
            let _ = write!(
                out,
                "\r\x1b[K\x1b[36m{}\x1b[0m Thinking… \x1b[2m({}s · esc to interrupt)\x1b[0m",
                SPINNER[n % SPINNER.len()],
                n / 8
            );
        }
        5 => {
            // A tool call result: a few lines of diff.
            out.push_str("\r\x1b[K");
            for _ in 0..3 {
                let sign = if rng.below(2) == 0 {
                    "\x1b[32m+"
                } else {
                    "\x1b[31m-"
                };
                let _ = write!(out, "{sign} ");
                let mut len = 2;
                while len < cols.saturating_sub(12) {
                    let w = word(rng);
                    out.push_str(w);
                    out.push(' ');
                    len += w.len() + 1;
                }
                out.push_str("\x1b[0m\r\n");
            }
        }
        6 => {
            // Status box at the bottom: save cursor, draw, restore.
            let _ = write!(
                out,
                "\x1b7\x1b[999;1H\x1b[7m {:<width$}\x1b[0m\x1b8",
                "model · 42k tokens",
                width = cols.saturating_sub(2)
            );
        }
        _ => {
            out.push_str("\r\x1b[K\x1b[1m● \x1b[0m");
            for _ in 0..8 {
                out.push_str(word(rng));
                out.push(' ');
            }
            out.push_str("\r\n");
        }
    }
}

fn unicode_line(out: &mut String, rng: &mut XorShift, cols: usize) {
    const PIECES: &[&str] = &[
        "日本語",
        "中文字符",
        "한국어",
        "😀",
        "🚀",
        "👍🏽",
        "e\u{301}",
        "naïve",
        "Ωμέγα",
        "Привет",
        "│",
        "─",
        "✓",
        "→",
        "ｆｕｌｌ",
        "abc",
        " ",
    ];
    let mut width = 0;
    while width < cols + cols / 2 {
        let p = PIECES[rng.below(PIECES.len())];
        out.push_str(p);
        width += p.chars().count() * 2;
    }
    out.push_str("\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixtures_are_deterministic_and_big_enough() {
        for f in Fixture::ALL {
            let a = f.generate(100_000, 120, 40);
            let b = f.generate(100_000, 120, 40);
            assert!(a.len() >= 100_000, "{}", f.name());
            assert_eq!(a, b, "{}", f.name());
        }
    }
}
