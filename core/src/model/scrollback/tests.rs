use super::format::{SPACER, WIDE};
use super::*;
use crate::model::cell::{Cell, Flags, Underline};

fn row_of(text: &str) -> Row {
    let mut cells: Vec<Cell> = text.chars().map(|c| Cell::BLANK.with_ch(c)).collect();
    cells.resize(20, Cell::BLANK);
    Row::from_cells(cells)
}

#[test]
fn lines_roundtrip_with_styles_wide_chars_and_extras() {
    let mut sb = Scrollback::new(10, 1 << 20);
    let mut row = row_of("plain text");
    row.cells[2] = Cell::styled(
        Color::Rgb(1, 2, 3),
        Color::Indexed(4),
        Flags::BOLD,
        Underline::Curly,
    )
    .with_ch('x');
    let mut wide = Cell::BLANK.with_ch('你');
    wide.insert_flags(Flags::WIDE);
    let mut spacer = Cell::BLANK;
    spacer.insert_flags(Flags::WIDE_SPACER);
    row.cells[12] = wide;
    row.cells[13] = spacer;
    row.push_combining(0, '\u{301}');
    row.wrapped = true;
    let mut expected = row.clone();
    expected.cells.truncate(14);
    sb.push(&row);
    assert_eq!(sb.row(0), Some(expected));
}

#[test]
fn lines_wait_to_be_encoded_until_settled_and_never_past_the_bound() {
    let mut sb = Scrollback::new(100_000, 1 << 30);
    for i in 0..10 {
        sb.push(&row_of(&format!("line {i}")));
    }
    assert_eq!((sb.unsettled(), sb.bytes()), (10, 0), "nothing encoded yet");
    assert_eq!(sb.row(9).map(|r| r.text()), Some("line 9".into()));
    assert!(!sb.settle_some(4) || sb.unsettled() == 6);
    assert!(sb.bytes() > 0);
    let wide = Row::from_cells(vec![Cell::BLANK.with_ch('w'); 200]);
    for _ in 0..1000 {
        sb.push(&wide);
        assert!(sb.fresh_cells <= FRESH_CELLS, "{}", sb.fresh_cells);
    }
    // A flood: past the bound everything is encoded, then each line as it comes.
    assert_eq!((sb.unsettled(), sb.len()), (0, 1010));
    assert!(sb.is_eager(), "until the model thread is idle");
    sb.set_eager(false);
    sb.push(&wide);
    assert_eq!(sb.unsettled(), 1, "waiting again after the flood");
    assert_eq!(sb.row(5).map(|r| r.text()), Some("line 5".into()));
}

#[test]
fn plain_text_costs_about_a_byte_per_character() {
    let mut sb = Scrollback::new(1000, 1 << 20);
    let line = "2026-12-02T13:04:35Z INFO compiling tern-core v0.1.0 (/w)";
    for _ in 0..1000 {
        sb.push(&row_of(&line[..20]));
    }
    sb.settle();
    let per_line = sb.bytes() as f64 / 1000.0;
    assert!(
        per_line < 20.0 + 4.0 + ENTRY_BYTES as f64,
        "{per_line} bytes per line"
    );
}

#[test]
fn caps_drop_the_oldest_lines() {
    let mut sb = Scrollback::new(3, 1 << 20);
    for i in 0..10 {
        sb.push(&row_of(&i.to_string()));
    }
    assert_eq!(sb.len(), 3);
    assert_eq!(sb.dropped(), 7);
    assert_eq!(sb.row(0).map(|r| r.text()), Some("7".into()));
    let mut small = Scrollback::new(1000, 200);
    for i in 0..100 {
        small.push(&row_of(&format!("line {i}")));
    }
    small.settle();
    assert!(small.bytes() <= 200, "{}", small.bytes());
    assert_eq!(small.pop_newest().map(|r| r.text()), Some("line 99".into()));
}

/// `row` pushed into a fresh scrollback and read back.
fn pushed_and_read_back(row: &Row) -> Option<Row> {
    let mut sb = Scrollback::new(4, 1 << 20);
    sb.push(row);
    let fresh = sb.row(0);
    sb.settle();
    let settled = sb.row(0);
    assert_eq!(fresh, settled, "a line reads the same before it is encoded");
    settled
}

/// What the scrollback keeps of `row`: its cells up to the last non-blank one.
fn trimmed(mut row: Row) -> Option<Row> {
    let keep = row
        .cells
        .iter()
        .rposition(|c| !c.is_default_blank())
        .map_or(0, |i| i + 1);
    row.cells.truncate(keep);
    Some(row)
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config {
        rng_seed: proptest::test_runner::RngSeed::Fixed(7),
        failure_persistence: None,
        ..Default::default()
    })]
    #[test]
    fn any_row_roundtrips(
        cells in proptest::collection::vec((proptest::char::any(), 0u16..0x7ff, proptest::num::u32::ANY, proptest::num::u32::ANY), 0..60),
        wrapped in proptest::bool::ANY,
    ) {
        let row_cells: Vec<Cell> = cells
            .iter()
            .map(|(c, flags, fg, bg)| Cell::from_style_bits(*flags & !Flags::EXTRA.bits(), *fg, *bg, *c))
            .collect();
        let mut row = Row::from_cells(row_cells);
        row.wrapped = wrapped;
        proptest::prop_assert_eq!(pushed_and_read_back(&row), trimmed(row));
    }

    #[test]
    fn rows_of_wide_pairs_roundtrip(
        pieces in proptest::collection::vec((0u8..5, 0u16..4, 0u32..3), 0..40),
    ) {
        // Wide pairs in a few styles, mixed with narrow cells, lone halves and
        // pairs whose halves differ in style.
        let style = |k: u16, c: u32| ((k & 1) | ((k & 2) << 3), c << 24 | c, 0);
        let mut cells = Vec::new();
        for (kind, flags, colour) in pieces {
            let (f, fg, bg) = style(flags, colour);
            let wide = Flags::WIDE.bits();
            let spacer = Flags::WIDE_SPACER.bits();
            match kind {
                0 => cells.push(Cell::from_style_bits(f, fg, bg, 'a')),
                1 | 2 => {
                    cells.push(Cell::from_style_bits(f | wide, fg, bg, '日'));
                    cells.push(Cell::from_style_bits(f | spacer, fg, bg, ' '));
                }
                3 => cells.push(Cell::from_style_bits(f | wide, fg, bg, '😀')),
                _ => {
                    cells.push(Cell::from_style_bits(f | wide, fg, bg, '한'));
                    cells.push(Cell::from_style_bits(spacer, fg, bg ^ 1, ' '));
                }
            }
        }
        let row = Row::from_cells(cells);
        proptest::prop_assert_eq!(pushed_and_read_back(&row), trimmed(row));
    }
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config {
        rng_seed: proptest::test_runner::RngSeed::Fixed(11),
        failure_persistence: None,
        ..Default::default()
    })]
    /// Lines in one style (what the one-style encoder takes), ASCII or not, with wide
    /// pairs, marks in the side table, and an end that may break the pattern: a
    /// `LEADING_SPACER` blank, a last cell in another style, a pair whose spacer
    /// differs, a wide cell without its spacer, a lone spacer.
    #[test]
    fn one_style_lines_roundtrip(
        pieces in proptest::collection::vec((0u8..5, 0usize..6), 0..50),
        style in (0u16..4, 0u32..3),
        end in 0u8..7,
        marks in proptest::collection::vec(0usize..60, 0..3),
    ) {
        let chars = ['a', 'é', 'Ж', '─', '日', '😀'];
        let (f, c) = ((style.0 & 1) | ((style.0 & 2) << 3), style.1);
        let (fg, bg) = (c << 24 | c, 0);
        let (wide, spacer) = (Flags::WIDE.bits(), Flags::WIDE_SPACER.bits());
        let mut cells = Vec::new();
        for (kind, ch) in pieces {
            let ch = chars[ch];
            if kind < 3 {
                cells.push(Cell::from_style_bits(f, fg, bg, ch));
            } else {
                cells.push(Cell::from_style_bits(f | wide, fg, bg, ch));
                cells.push(Cell::from_style_bits(f | spacer, fg, bg, ' '));
            }
        }
        let leading = Flags::LEADING_SPACER.bits();
        match end {
            0 => cells.push(Cell::from_style_bits(f | leading, fg, bg, ' ')),
            1 => cells.push(Cell::from_style_bits(f ^ 1, fg, bg, 'z')),
            2 => {
                cells.push(Cell::from_style_bits(f | wide, fg, bg, '日'));
                cells.push(Cell::from_style_bits(f ^ 1 | spacer, fg, bg, ' '));
            }
            3 => cells.push(Cell::from_style_bits(f | wide, fg, bg, '日')),
            4 => cells.push(Cell::from_style_bits(f | spacer, fg, bg, ' ')),
            5 => cells.push(Cell::from_style_bits(f | leading | wide, fg, bg, ' ')),
            _ => {}
        }
        let mut row = Row::from_cells(cells);
        for col in marks {
            if col < row.cells.len() {
                row.push_combining(col, '\u{301}');
            }
        }
        proptest::prop_assert_eq!(pushed_and_read_back(&row), trimmed(row));
    }
}

#[test]
fn a_line_of_wide_characters_costs_one_style_run() {
    let mut sb = Scrollback::new(4, 1 << 20);
    let mut cells = Vec::new();
    for _ in 0..40 {
        let (wide, spacer) = (Flags::WIDE.bits(), Flags::WIDE_SPACER.bits());
        cells.push(Cell::from_style_bits(wide, 0, 0, '日'));
        cells.push(Cell::from_style_bits(spacer, 0, 0, ' '));
    }
    sb.push(&Row::from_cells(cells));
    sb.settle();
    // Header (count; units and width), a pair bit per cell (10 bytes), one style
    // run, 40 two-byte characters (all in the BMP) and no spacers, no extras.
    assert_eq!(sb.used, 2 + 2 + 10 + 1 + 40 * 2 + 1);
}

/// A one-style line of `text`, its ASCII narrow and everything else wide.
fn pairs_line(text: &str) -> Row {
    let mut cells = Vec::new();
    for c in text.chars() {
        if c.is_ascii() {
            cells.push(Cell::BLANK.with_ch(c));
        } else {
            cells.push(Cell::from_style_bits(WIDE, 0, 0, c));
            cells.push(Cell::from_style_bits(SPACER, 0, 0, ' '));
        }
    }
    Row::from_cells(cells)
}

#[test]
fn lines_with_pairs_store_characters_at_two_bytes_in_the_bmp_else_three() {
    // 4 units (2 pairs): head, units and width, a pair byte, one run, then the
    // characters, no extras.
    for (text, width) in [("日a本b", 2), ("日a😀b", 3), ("\u{ffff}a\u{10000}b", 3)] {
        let row = pairs_line(text);
        let mut sb = Scrollback::new(4, 1 << 20);
        sb.push(&row);
        sb.settle();
        assert_eq!(sb.used, 1 + 1 + 1 + 1 + 4 * width + 1, "{text}");
        assert_eq!(sb.row(0), Some(row), "{text}");
    }
}

#[test]
fn lines_with_pairs_in_several_styles_keep_utf8() {
    let mut row = pairs_line("日a本b");
    row.cells[2] = Cell::from_style_bits(Flags::BOLD.bits(), 0, 0, 'a');
    let mut sb = Scrollback::new(4, 1 << 20);
    sb.push(&row);
    sb.settle();
    // Head, units and width, a pair byte; three runs (one styled: tag, count, 10
    // bytes); 3 + 1 + 3 + 1 bytes of UTF-8; no extras.
    assert_eq!(sb.used, 1 + 1 + 1 + (1 + 12 + 1) + 8 + 1);
    assert_eq!(sb.row(0), Some(row));
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config {
        rng_seed: proptest::test_runner::RngSeed::Fixed(13),
        failure_persistence: None,
        ..Default::default()
    })]
    /// Deferring the encoding changes nothing a reader sees: lines pushed with
    /// encoding settled at random points (or never, or past `FRESH_CELLS`) read as
    /// when each line is encoded as it is pushed, and once settled they count and
    /// drop the same under both caps (lines over the byte cap are dropped as the
    /// lines after them are encoded: until then more may be kept).
    #[test]
    fn deferred_encoding_reads_and_drops_as_encoding_at_once(
        lines in proptest::collection::vec((0usize..90, 0u8..4, proptest::bool::ANY, proptest::bool::ANY), 1..400),
        max_lines in 1usize..300,
        max_bytes in 40usize..6000,
        settles in proptest::collection::vec(0usize..12, 1..400),
    ) {
        let mut lazy = Scrollback::new(max_lines, max_bytes);
        let mut eager = Scrollback::new(max_lines, max_bytes);
        let chars = ['a', 'é', '日', '😀'];
        for (i, (len, ch, wrapped, owned)) in lines.iter().enumerate() {
            let text: String = (0..*len).map(|k| chars[(*ch as usize + k / 7) % 4]).collect();
            let mut row = row_of(&text);
            row.set_len(90);
            row.wrapped = *wrapped;
            if *owned {
                // The grid's way: the row handed over, a row to reuse handed back
                // whose cells past `used` are blanks.
                let (back, used) = lazy.push_row(row.clone());
                proptest::prop_assert!(back.cells[used.min(back.cells.len())..].iter().all(|c| c.is_default_blank()));
            } else {
                lazy.push(&row);
            }
            eager.push(&row);
            eager.settle();
            lazy.settle_some(settles[i % settles.len()]);
            let counted: usize = lazy.fresh.iter().chain(&lazy.fresh_spare).map(FreshLine::heap_bytes).sum();
            proptest::prop_assert_eq!(lazy.fresh_heap, counted);
            let spare: usize = lazy.fresh_spare.iter().map(|l| l.row.cells.len()).sum();
            proptest::prop_assert_eq!(lazy.spare_cells, spare);
            proptest::prop_assert!(spare <= FRESH_CELLS);
            proptest::prop_assert!(lazy.len() >= eager.len());
            for back in 1..=eager.len().min(3) {
                proptest::prop_assert_eq!(
                    lazy.row(lazy.len() - back),
                    eager.row(eager.len() - back)
                );
            }
        }
        lazy.settle();
        proptest::prop_assert_eq!(lazy.len(), eager.len());
        proptest::prop_assert_eq!(lazy.dropped(), eager.dropped());
        proptest::prop_assert_eq!(lazy.bytes(), eager.bytes());
        proptest::prop_assert!(lazy.iter().eq(eager.iter()));
    }
}

/// A copy of lines as stored (for search everywhere's matcher) decodes to exactly what
/// [`Scrollback::row`] gives, for encoded lines and for lines still waiting to be
/// encoded; a range past the end is cut.
#[test]
fn a_copy_of_lines_decodes_as_the_scrollback_reads_them() {
    let mut sb = Scrollback::new(100_000, 1 << 30);
    for i in 0..50 {
        let mut row = row_of(&format!("line {i} 你"));
        row.wrapped = i % 3 == 0;
        sb.push(&row);
    }
    sb.settle_some(30);
    assert!(sb.unsettled() > 0, "some lines still wait to be encoded");
    let copy = sb.copy_lines(10, 60);
    assert_eq!(copy.len(), 40);
    for i in 0..40 {
        assert_eq!(copy.row(i), sb.row(10 + i), "line {}", 10 + i);
    }
    assert!(copy.row(40).is_none());
}
