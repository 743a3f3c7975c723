use super::*;

#[test]
fn fill_cells_sets_exactly_the_slice_whatever_its_length_and_start() {
    let mark = Cell::BLANK.with_ch('x');
    let red = Cell::BLANK.with_ch('r');
    for start in 0..5 {
        for len in 0..14 {
            let mut cells = vec![mark; start + len + 3];
            fill_cells(&mut cells[start..start + len], red);
            let mut want = vec![mark; start + len + 3];
            want[start..start + len].fill(red);
            assert!(cells == want, "start {start} len {len}");
        }
    }
}

#[test]
fn cell_is_twelve_bytes() {
    assert_eq!(std::mem::size_of::<Cell>(), 12);
}

#[test]
fn packing_roundtrips_every_field() {
    let mut flags = Flags::BOLD;
    flags.insert(Flags::STRIKE);
    flags.insert(Flags::WIDE);
    let cell = Cell::styled(
        Color::Rgb(1, 2, 3),
        Color::Indexed(200),
        flags,
        Underline::Curly,
    )
    .with_ch('\u{10FFFF}');
    assert_eq!(cell.ch(), '\u{10FFFF}');
    assert_eq!(cell.fg(), Color::Rgb(1, 2, 3));
    assert_eq!(cell.bg(), Color::Indexed(200));
    assert_eq!(cell.flags(), flags);
    assert_eq!(cell.underline(), Underline::Curly);
}

#[test]
fn protection_is_kept_apart_from_the_background() {
    let mut cell = Cell::blank_with_bg(Color::Rgb(0xff, 0xff, 0xff)).with_protected(true);
    assert!(cell.is_protected());
    assert_eq!(cell.bg(), Color::Rgb(0xff, 0xff, 0xff));
    cell.set_protected(false);
    assert_eq!(cell, Cell::blank_with_bg(Color::Rgb(0xff, 0xff, 0xff)));
}

#[test]
fn the_drawn_mark_is_neither_style_nor_content() {
    let printed = Cell::BLANK.with_drawn(true);
    assert!(printed.is_drawn() && !Cell::BLANK.is_drawn());
    assert!(
        printed.is_default_blank(),
        "trimming treats a printed space as blank"
    );
    assert_eq!(printed.style_bits(), Cell::BLANK.style_bits());
    assert_eq!(printed.bg(), Color::Default);
    assert!(!printed.with_protected(true).with_drawn(false).is_drawn());
}

#[test]
fn blank_with_default_bg_is_default_blank() {
    assert!(Cell::blank_with_bg(Color::Default).is_default_blank());
    assert!(!Cell::blank_with_bg(Color::Indexed(1)).is_default_blank());
}

#[test]
fn words_are_the_fields_in_order() {
    let cells = [
        Cell::styled(
            Color::Indexed(3),
            Color::Rgb(1, 2, 3),
            Flags::BOLD,
            Underline::None,
        )
        .with_ch('x'),
        Cell::BLANK.with_drawn(true),
    ];
    let words: Vec<u32> = cells.iter().flat_map(|c| c.to_words()).collect();
    assert_eq!(Cell::words(&cells), &words[..]);
    assert_eq!(words[0], cells[0].ch);
    assert_eq!(words[4], cells[1].fg);
}

#[test]
fn blank_diff_is_zero_exactly_for_default_blanks() {
    let cells = [
        Cell::BLANK,
        Cell::BLANK.with_drawn(true),
        Cell::BLANK.with_protected(true),
        Cell::BLANK.with_ch('x'),
        Cell::blank_with_bg(Color::Indexed(0)),
        Cell::styled(
            Color::Indexed(0),
            Color::Default,
            Flags::empty(),
            Underline::None,
        ),
        Cell::styled(
            Color::Default,
            Color::Default,
            Flags::WIDE_SPACER,
            Underline::None,
        ),
        Cell::styled(
            Color::Default,
            Color::Default,
            Flags::empty(),
            Underline::Single,
        ),
    ];
    for cell in cells {
        assert_eq!(cell.blank_diff() == 0, cell.is_default_blank(), "{cell:?}");
    }
}
