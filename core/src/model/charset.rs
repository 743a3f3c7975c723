//! Character sets: G0..G3 designations and the DEC special graphics set.

/// A designated character set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Charset {
    #[default]
    Ascii,
    /// DEC special graphics (line drawing), `ESC ( 0`.
    DecSpecial,
}

impl Charset {
    #[inline]
    pub fn map(self, c: char) -> char {
        match self {
            Charset::Ascii => c,
            Charset::DecSpecial => dec_special(c),
        }
    }
}

/// G0..G3 and which one is invoked into GL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Charsets {
    pub slots: [Charset; 4],
    pub active: usize,
}

impl Charsets {
    #[inline]
    pub fn map(&self, c: char) -> char {
        match self.slots[self.active] {
            Charset::Ascii => c,
            other => other.map(c),
        }
    }
}

fn dec_special(c: char) -> char {
    match c {
        '_' => ' ',
        '`' => '◆',
        'a' => '▒',
        'b' => '␉',
        'c' => '␌',
        'd' => '␍',
        'e' => '␊',
        'f' => '°',
        'g' => '±',
        'h' => '␤',
        'i' => '␋',
        'j' => '┘',
        'k' => '┐',
        'l' => '┌',
        'm' => '└',
        'n' => '┼',
        'o' => '⎺',
        'p' => '⎻',
        'q' => '─',
        'r' => '⎼',
        's' => '⎽',
        't' => '├',
        'u' => '┤',
        'v' => '┴',
        'w' => '┬',
        'x' => '│',
        'y' => '≤',
        'z' => '≥',
        '{' => 'π',
        '|' => '≠',
        '}' => '£',
        '~' => '·',
        other => other,
    }
}
