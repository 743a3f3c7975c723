//! Compact cells: 12 bytes each, rare attributes stored out of line.
//!
//! ```text
//!  ch  (u32): bits 0..21 code point | bits 21..32 flags (bold, dim, ..., wide, extra)
//!  fg  (u32): bits 0..24 value      | bits 24..26 colour kind | bits 26..29 underline style
//!  bg  (u32): bits 0..24 value      | bits 24..26 colour kind | bit 26 protected (DECSCA)
//!                                                              | bit 27 drawn (xterm's CHARDRAWN)
//! ```
//!
//! A cell whose `EXTRA` flag is set has an entry in its row's side table (combining marks,
//! hyperlink, underline colour); see [`super::grid::Row`].

use super::dump::{DumpAttrs, DumpColor, UnderlineKind};

/// A colour as set by SGR: default, palette index, or 24-bit RGB.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Color {
    #[default]
    Default,
    Indexed(u8),
    Rgb(u8, u8, u8),
}

impl Color {
    const KIND_SHIFT: u32 = 24;
    const VALUE_MASK: u32 = 0x00ff_ffff;

    #[inline]
    const fn pack(self) -> u32 {
        match self {
            Color::Default => 0,
            Color::Indexed(i) => (1 << Self::KIND_SHIFT) | i as u32,
            Color::Rgb(r, g, b) => {
                (2 << Self::KIND_SHIFT) | ((r as u32) << 16) | ((g as u32) << 8) | b as u32
            }
        }
    }

    #[inline]
    const fn unpack(bits: u32) -> Color {
        let value = bits & Self::VALUE_MASK;
        match (bits >> Self::KIND_SHIFT) & 0b11 {
            0 => Color::Default,
            1 => Color::Indexed(value as u8),
            _ => Color::Rgb((value >> 16) as u8, (value >> 8) as u8, value as u8),
        }
    }

    pub fn to_dump(self) -> DumpColor {
        match self {
            Color::Default => DumpColor::Default,
            Color::Indexed(i) => DumpColor::Indexed(i),
            Color::Rgb(r, g, b) => DumpColor::Rgb(r, g, b),
        }
    }
}

/// Cell flags, stored in the top 11 bits of [`Cell::ch`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Flags(u16);

impl Flags {
    pub const BOLD: Flags = Flags(1 << 0);
    pub const DIM: Flags = Flags(1 << 1);
    pub const ITALIC: Flags = Flags(1 << 2);
    pub const BLINK: Flags = Flags(1 << 3);
    pub const INVERSE: Flags = Flags(1 << 4);
    pub const HIDDEN: Flags = Flags(1 << 5);
    pub const STRIKE: Flags = Flags(1 << 6);
    /// The first cell of a double-width character.
    pub const WIDE: Flags = Flags(1 << 7);
    /// The second cell of a double-width character.
    pub const WIDE_SPACER: Flags = Flags(1 << 8);
    /// The row's side table has an entry for this cell.
    pub const EXTRA: Flags = Flags(1 << 9);
    /// A blank left at the end of a row because a wide character did not fit.
    pub const LEADING_SPACER: Flags = Flags(1 << 10);

    /// The flags that SGR sets (the pen's part).
    pub const SGR_MASK: Flags = Flags(0x7f);

    pub const fn empty() -> Flags {
        Flags(0)
    }
    #[inline]
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }
    #[inline]
    pub const fn intersects(self, other: Flags) -> bool {
        self.0 & other.0 != 0
    }
    #[inline]
    pub fn insert(&mut self, other: Flags) {
        self.0 |= other.0;
    }
    #[inline]
    pub fn remove(&mut self, other: Flags) {
        self.0 &= !other.0;
    }
    #[inline]
    pub fn set(&mut self, other: Flags, on: bool) {
        if on {
            self.insert(other)
        } else {
            self.remove(other)
        }
    }
    #[inline]
    pub const fn bits(self) -> u16 {
        self.0
    }
    #[inline]
    pub const fn union(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }
    #[inline]
    pub const fn intersection(self, other: Flags) -> Flags {
        Flags(self.0 & other.0)
    }
}

/// Underline style, 3 bits in the fg word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum Underline {
    #[default]
    None = 0,
    Single = 1,
    Double = 2,
    Curly = 3,
    Dotted = 4,
    Dashed = 5,
}

impl Underline {
    fn from_bits(bits: u32) -> Underline {
        match bits {
            1 => Underline::Single,
            2 => Underline::Double,
            3 => Underline::Curly,
            4 => Underline::Dotted,
            5 => Underline::Dashed,
            _ => Underline::None,
        }
    }

    pub fn to_dump(self) -> UnderlineKind {
        match self {
            Underline::None => UnderlineKind::None,
            Underline::Single => UnderlineKind::Single,
            Underline::Double => UnderlineKind::Double,
            Underline::Curly => UnderlineKind::Curly,
            Underline::Dotted => UnderlineKind::Dotted,
            Underline::Dashed => UnderlineKind::Dashed,
        }
    }
}

const CH_MASK: u32 = 0x1f_ffff;
const FLAG_SHIFT: u32 = 21;
const UNDERLINE_SHIFT: u32 = 26;
const COLOR_MASK: u32 = (1 << UNDERLINE_SHIFT) - 1;
/// DECSCA protection lives in the bg word (the 11 flag bits in `ch` are all taken).
const PROTECTED_BIT: u32 = 1 << 26;
/// xterm's `CHARDRAWN`: something was written here. Only DECRQCRA reads it; it stays out
/// of [`Cell::style_bits`] (so scrollback never stores it) and of
/// [`Cell::is_default_blank`].
const DRAWN_BIT: u32 = 1 << 27;

/// One grid cell. See the module docs for the layout. `repr(C)`: three `u32` words,
/// no padding, so that a row can be scanned as words ([`Cell::words`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct Cell {
    ch: u32,
    fg: u32,
    bg: u32,
}

/// Sets every cell of `cells` to `cell`, four cells (48 bytes, three 16-byte stores) at a
/// time: `<[Cell]>::fill` writes a 12-byte cell as an 8- and a 4-byte store, one cell a
/// step, and erasing lines (`ESC[K` after each redrawn line of a TUI) was a tenth of
/// parsing one.
pub fn fill_cells(cells: &mut [Cell], cell: Cell) {
    let four = [cell; 4];
    let mut chunks = cells.chunks_exact_mut(4);
    for chunk in &mut chunks {
        if let Ok(chunk) = <&mut [Cell; 4]>::try_from(chunk) {
            *chunk = four;
        }
    }
    chunks.into_remainder().fill(cell);
}

/// Flags that make a cell more than a character in a pen: half of a wide character, or
/// an entry in the row's side table. Text is written straight over a cell only when it
/// has none of them; otherwise the careful path fixes up what it overwrites.
pub const BOUND: Flags = Flags::WIDE.union(Flags::WIDE_SPACER).union(Flags::EXTRA);

/// Writes the printable ASCII `bytes` into `cells` in the pen `pen`, from the first of
/// each, up to the end of either or the first cell with a [`BOUND`] flag; returns how
/// many were written. The cells' flags are looked at together first (an OR over the
/// words, no branch a cell), since a run almost never meets a bound cell.
#[inline]
pub fn write_ascii(cells: &mut [Cell], bytes: &[u8], pen: Cell) -> usize {
    let n = cells.len().min(bytes.len());
    let cells = &mut cells[..n];
    let bound = u32::from(BOUND.bits()) << FLAG_SHIFT;
    let free = if cells.iter().fold(0, |any, c| any | c.ch) & bound == 0 {
        n
    } else {
        cells.iter().position(|c| c.ch & bound != 0).unwrap_or(n)
    };
    for (cell, &b) in cells[..free].iter_mut().zip(&bytes[..free]) {
        *cell = pen.with_code_point(u32::from(b));
    }
    free
}

impl Default for Cell {
    fn default() -> Self {
        Cell::BLANK
    }
}

impl std::fmt::Debug for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Cell({:?} {:?} {:?} {:?})",
            self.ch(),
            self.fg(),
            self.bg(),
            self.flags()
        )
    }
}

impl Cell {
    /// A space with default colours and no attributes.
    pub const BLANK: Cell = Cell {
        ch: ' ' as u32,
        fg: 0,
        bg: 0,
    };

    /// A blank with the given background (erase with background colour erase).
    #[inline]
    pub const fn blank_with_bg(bg: Color) -> Cell {
        Cell {
            ch: ' ' as u32,
            fg: 0,
            bg: bg.pack(),
        }
    }

    /// The template cell the pen writes with (character replaced per print).
    pub fn styled(fg: Color, bg: Color, flags: Flags, underline: Underline) -> Cell {
        Cell {
            ch: ' ' as u32 | ((flags.bits() as u32) << FLAG_SHIFT),
            fg: fg.pack() | ((underline as u32) << UNDERLINE_SHIFT),
            bg: bg.pack(),
        }
    }

    #[inline]
    pub fn ch(&self) -> char {
        char::from_u32(self.ch & CH_MASK).unwrap_or(' ')
    }

    /// The character's code point as stored (no validity check: for byte encoders).
    #[inline]
    pub fn code_point(&self) -> u32 {
        self.ch & CH_MASK
    }

    #[inline]
    pub fn set_ch(&mut self, c: char) {
        self.ch = (self.ch & !CH_MASK) | c as u32;
    }

    /// Same template with another character.
    #[inline]
    pub fn with_ch(mut self, c: char) -> Cell {
        self.set_ch(c);
        self
    }

    /// Same template with the character of code point `cp`, which must be a `char`'s
    /// (the text path has decoded and validated it; anything else reads back as ' ').
    #[inline]
    pub fn with_code_point(mut self, cp: u32) -> Cell {
        self.ch = (self.ch & !CH_MASK) | (cp & CH_MASK);
        self
    }

    #[inline]
    pub fn flags(&self) -> Flags {
        Flags((self.ch >> FLAG_SHIFT) as u16)
    }

    #[inline]
    pub fn set_flags(&mut self, flags: Flags) {
        self.ch = (self.ch & CH_MASK) | ((flags.bits() as u32) << FLAG_SHIFT);
    }

    #[inline]
    pub fn insert_flags(&mut self, flags: Flags) {
        self.ch |= (flags.bits() as u32) << FLAG_SHIFT;
    }

    #[inline]
    pub fn remove_flags(&mut self, flags: Flags) {
        self.ch &= !((flags.bits() as u32) << FLAG_SHIFT);
    }

    /// True when DECSCA protected this cell from selective erase.
    #[inline]
    pub fn is_protected(&self) -> bool {
        self.bg & PROTECTED_BIT != 0
    }

    #[inline]
    pub fn set_protected(&mut self, on: bool) {
        if on {
            self.bg |= PROTECTED_BIT;
        } else {
            self.bg &= !PROTECTED_BIT;
        }
    }

    /// True when a character was written here (a printed space too) or an erase that
    /// xterm counts as writing spaces (ECH, EL 1, ICH, DECERA) blanked it: what xterm
    /// calls `CHARDRAWN`, which decides whether DECRQCRA counts a blank.
    #[inline]
    pub fn is_drawn(&self) -> bool {
        self.bg & DRAWN_BIT != 0
    }

    /// Same cell marked as drawn (or not).
    #[inline]
    pub fn with_drawn(mut self, on: bool) -> Cell {
        if on {
            self.bg |= DRAWN_BIT;
        } else {
            self.bg &= !DRAWN_BIT;
        }
        self
    }

    /// Same cell with the protection bit set as given.
    #[inline]
    pub fn with_protected(mut self, on: bool) -> Cell {
        self.set_protected(on);
        self
    }

    #[inline]
    pub fn fg(&self) -> Color {
        Color::unpack(self.fg & COLOR_MASK)
    }

    #[inline]
    pub fn bg(&self) -> Color {
        Color::unpack(self.bg)
    }

    #[inline]
    pub fn underline(&self) -> Underline {
        Underline::from_bits((self.fg >> UNDERLINE_SHIFT) & 0b111)
    }

    #[inline]
    pub fn set_underline(&mut self, underline: Underline) {
        self.fg = (self.fg & !(0b111 << UNDERLINE_SHIFT)) | ((underline as u32) << UNDERLINE_SHIFT);
    }

    /// True for a space with default colours and no flags: what trimming may drop.
    #[inline]
    pub fn is_default_blank(&self) -> bool {
        self.with_drawn(false) == Cell::BLANK
    }

    /// `cells` as their words, `ch`, `fg`, `bg` for each cell in turn: row scans that
    /// compare every cell with one pattern run on these a vector at a time (on the
    /// cells themselves they would first have to pull the fields apart).
    #[inline]
    pub fn words(cells: &[Cell]) -> &[u32] {
        // SAFETY: `Cell` is `repr(C)` with three `u32` fields and no padding (size 12,
        // alignment 4, checked below), so `n` cells are `3 n` initialised `u32`s, and the
        // slice borrows them immutably for as long as `cells`.
        const _: () =
            assert!(std::mem::size_of::<Cell>() == 12 && std::mem::align_of::<Cell>() == 4);
        unsafe { std::slice::from_raw_parts(cells.as_ptr().cast::<u32>(), cells.len() * 3) }
    }

    /// The words of this cell as [`Cell::words`] lays them out.
    #[inline]
    pub const fn to_words(self) -> [u32; 3] {
        [self.ch, self.fg, self.bg]
    }

    /// Masks over [`Cell::to_words`]: the style bits [`Cell::style_diff`] compares,
    /// without `flags`; and the bits of the `DRAWN` mark (not style, not content).
    pub const fn style_words_mask(flags: u16) -> [u32; 3] {
        [!CH_MASK & !((flags as u32) << FLAG_SHIFT), !0, !DRAWN_BIT]
    }

    /// Mask over [`Cell::to_words`] of the character and `flags`.
    pub const fn char_words_mask(flags: u16) -> [u32; 3] {
        [CH_MASK | ((flags as u32) << FLAG_SHIFT), 0, 0]
    }

    /// Mask over [`Cell::to_words`] of everything but the `DRAWN` mark.
    pub const ALL_BUT_DRAWN: [u32; 3] = [!0, !0, !DRAWN_BIT];

    /// Zero exactly when [`Cell::is_default_blank`] holds; branch-free, so a scan of a
    /// row with it vectorises.
    #[inline]
    pub fn blank_diff(&self) -> u32 {
        (self.ch ^ Cell::BLANK.ch) | self.fg | (self.bg & !DRAWN_BIT)
    }

    /// Bits that differ between the styles of `self` and `other` (zero when
    /// [`Cell::style_bits`] are equal), flags in bits 21..32. Branch-free, so a scan of a
    /// row with it vectorises.
    #[inline]
    pub fn style_diff(&self, other: &Cell) -> u32 {
        ((self.ch ^ other.ch) & !CH_MASK)
            | (self.fg ^ other.fg)
            | ((self.bg ^ other.bg) & !DRAWN_BIT)
    }

    /// Whether the cell is the first half of a wide character (`WIDE`) and whether it is
    /// the second (`WIDE_SPACER`), as 0 or 1 each, without branches.
    #[inline]
    pub fn wide_bits(&self) -> (u32, u32) {
        let flags = self.ch >> FLAG_SHIFT;
        (
            (flags >> Flags::WIDE.0.trailing_zeros()) & 1,
            (flags >> Flags::WIDE_SPACER.0.trailing_zeros()) & 1,
        )
    }

    /// The wide layout as two bits: 1 for a `WIDE` cell, 2 for a `WIDE_SPACER`, 3 for a
    /// cell that claims to be both, 0 for neither.
    #[inline]
    pub fn wide_layout(&self) -> u32 {
        const _: () = assert!(Flags::WIDE_SPACER.0 == Flags::WIDE.0 << 1);
        (self.ch >> (FLAG_SHIFT + Flags::WIDE.0.trailing_zeros())) & 3
    }

    /// The bits of `flags` in a [`Cell::style_diff`].
    #[inline]
    pub const fn diff_flags_mask(flags: u16) -> u32 {
        (flags as u32) << FLAG_SHIFT
    }

    /// The style part of the cell (flags, colours, underline) without the character:
    /// `(flags, fg word, bg word)`. Two cells with equal styles differ only in `ch`.
    #[inline]
    pub fn style_bits(&self) -> (u16, u32, u32) {
        (self.flags().bits(), self.fg, self.bg & !DRAWN_BIT)
    }

    /// Rebuilds a cell from [`Cell::style_bits`] and a character.
    #[inline]
    pub fn from_style_bits(flags: u16, fg: u32, bg: u32, c: char) -> Cell {
        Cell {
            ch: (c as u32 & CH_MASK) | ((flags as u32) << FLAG_SHIFT),
            fg,
            bg: bg & !DRAWN_BIT,
        }
    }

    /// Attributes for the neutral dump.
    pub fn dump_attrs(&self) -> DumpAttrs {
        let flags = self.flags();
        DumpAttrs {
            fg: self.fg().to_dump(),
            bg: self.bg().to_dump(),
            bold: flags.contains(Flags::BOLD),
            dim: flags.contains(Flags::DIM),
            italic: flags.contains(Flags::ITALIC),
            underline: self.underline().to_dump(),
            blink: flags.contains(Flags::BLINK),
            inverse: flags.contains(Flags::INVERSE),
            hidden: flags.contains(Flags::HIDDEN),
            strike: flags.contains(Flags::STRIKE),
        }
    }
}

#[cfg(test)]
mod tests;
