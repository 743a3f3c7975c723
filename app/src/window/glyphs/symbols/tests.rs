use super::*;

/// Cell sizes of the bundled font at 15 pt, at scale 1, 1.5 and 2.
const CELLS: [CellPx; 3] = [
    CellPx {
        width_px: 9,
        height_px: 18,
    },
    CellPx {
        width_px: 14,
        height_px: 27,
    },
    CellPx {
        width_px: 18,
        height_px: 35,
    },
];

fn every_drawn_char() -> impl Iterator<Item = char> {
    ('\u{2500}'..='\u{2BFF}')
        .chain('\u{E0B0}'..='\u{E0BF}')
        .chain('\u{1FB00}'..='\u{1FBFF}')
        .filter(|&c| draws(c))
}

#[test]
fn every_symbol_fills_exactly_its_cell_at_scale_1_1_5_and_2() {
    let mut count = 0;
    for cell in CELLS {
        for c in every_drawn_char() {
            let m = mask(c, cell).unwrap_or_else(|| panic!("no mask for {c:?}"));
            assert_eq!((m.width_px, m.height_px), (cell.width_px, cell.height_px));
            assert_eq!(m.alpha.len(), (cell.width_px * cell.height_px) as usize);
            // Something, and not the whole cell (no symbol here is a full block),
            // except the blank Braille pattern.
            let covered = m.covered_px();
            let area = (cell.width_px * cell.height_px) as f32;
            if c == '\u{2800}' {
                assert_eq!(covered, 0.0);
            } else {
                assert!(
                    covered > 0.0 && covered < area,
                    "{c:?}: {covered} of {area}"
                );
            }
            count += 1;
        }
    }
    // 256 Braille + 16 Powerline + 19 box + 175 legacy computing, three times.
    assert_eq!(count, 3 * (256 + 16 + 19 + 175));
}

#[test]
fn fonts_keep_everything_else() {
    for c in [
        'a',
        '─',
        '│',
        '█',
        '日',
        '⎿',
        '\u{1FB93}',
        '\u{1FBB0}',
        '\u{E0A0}',
    ] {
        assert!(mask(c, CELLS[0]).is_none(), "{c:?}");
    }
}

/// The centre of Braille dot `n` (1–8) in a cell.
fn dot_centre(cell: CellPx, n: usize) -> (u32, u32) {
    let (col, row) = [
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 0),
        (1, 1),
        (1, 2),
        (0, 3),
        (1, 3),
    ][n - 1];
    let (w, h) = (cell.width_px as f32 / 2.0, cell.height_px as f32 / 4.0);
    (
        (col as f32 * w + w / 2.0) as u32,
        (row as f32 * h + h / 2.0) as u32,
    )
}

#[test]
fn braille_dots_are_where_the_pattern_says() {
    for cell in CELLS {
        // ⠋ is dots 1, 2 and 4.
        let m = mask('⠋', cell).expect("braille");
        for n in 1..=8 {
            let (x, y) = dot_centre(cell, n);
            let on = [1, 2, 4].contains(&n);
            assert_eq!(m.at(x, y) == 255, on, "dot {n} in {cell:?}");
        }
        // ⣿ has all eight dots, separate (gaps between them), ⡇ the left column.
        let all = mask('⣿', cell).expect("braille");
        let left = mask('⡇', cell).expect("braille");
        for n in 1..=8 {
            let (x, y) = dot_centre(cell, n);
            assert_eq!(all.at(x, y), 255);
            assert_eq!(left.at(x, y) == 255, [1, 2, 3, 7].contains(&n));
        }
        assert_eq!(all.at(cell.width_px / 2, 0), 0, "a gap between the columns");
        assert!((all.covered_px() - 2.0 * left.covered_px()).abs() < 0.5);
    }
}

#[test]
fn powerline_triangle_and_half_circle_point_the_right_way() {
    for cell in CELLS {
        let (w, h) = (cell.width_px, cell.height_px);
        let tri = mask('\u{E0B0}', cell).expect("E0B0");
        assert_eq!(tri.at(0, h / 2), 255, "the base is the left edge");
        assert_eq!(tri.at(w - 1, 0), 0, "the top right is empty");
        assert_eq!(tri.at(w - 1, h - 1), 0);
        let area = (w * h) as f32;
        assert!((tri.covered_px() - area / 2.0).abs() < area * 0.05);
        // The left half circle E0B6 is flat on the right edge, round to the left.
        let half = mask('\u{E0B6}', cell).expect("E0B6");
        assert_eq!(half.at(w - 1, 0), 255);
        assert_eq!(half.at(w - 1, h - 1), 255);
        assert_eq!(half.at(0, 0), 0);
        assert_eq!(half.at(0, h / 2), 255);
        let quarter_pi = std::f32::consts::PI / 4.0;
        assert!((half.covered_px() - area * quarter_pi).abs() < area * 0.05);
    }
}

#[test]
fn upper_one_quarter_block_covers_the_top_quarter_on_whole_pixels() {
    for cell in CELLS {
        let m = mask('\u{1FB82}', cell).expect("1FB82");
        let rows = (cell.height_px as f32 / 4.0).round() as u32;
        for y in 0..cell.height_px {
            for x in 0..cell.width_px {
                assert_eq!(m.at(x, y), if y < rows { 255 } else { 0 }, "({x}, {y})");
            }
        }
    }
}

#[test]
fn sextants_and_wedges_follow_the_chart() {
    let cell = CELLS[2];
    let (w, h) = (cell.width_px, cell.height_px);
    // 1FB00 is the upper left sextant alone; 1FB3B, the last, all but the upper left.
    let first = mask('\u{1FB00}', cell).expect("sextant");
    assert_eq!(first.at(1, 1), 255);
    assert_eq!(first.at(w - 2, 1), 0);
    assert_eq!(first.at(1, h / 2), 0);
    let last = mask('\u{1FB3B}', cell).expect("sextant");
    assert_eq!(last.at(1, 1), 0);
    assert_eq!(last.at(w - 2, 1), 255);
    assert_eq!(last.at(1, h - 2), 255);
    // A wedge and its complement cover the cell once between them.
    for (a, b) in [('\u{1FB3C}', '\u{1FB52}'), ('\u{1FB51}', '\u{1FB67}')] {
        let (ma, mb) = (mask(a, cell).expect("wedge"), mask(b, cell).expect("wedge"));
        let area = (w * h) as f32;
        assert!((ma.covered_px() + mb.covered_px() - area).abs() < area * 0.03);
        assert!(
            ma.at(0, h - 1) == 255 && mb.at(0, h - 1) < 255,
            "{a:?} is lower left"
        );
    }
}

#[test]
fn rounded_corners_join_the_renderers_straight_lines() {
    for cell in CELLS {
        let (w, h) = (cell.width_px, cell.height_px);
        let t = (h as f32 / 14.0).round().max(1.0) as u32;
        let x0 = (w as f32 / 2.0 - t as f32 / 2.0).round() as u32;
        let y0 = (h as f32 / 2.0 - t as f32 / 2.0).round() as u32;
        // ╰ goes up and right: at the top edge exactly │'s columns, at the right edge
        // exactly ─'s rows.
        let m = mask('╰', cell).expect("rounded corner");
        for x in 0..w {
            assert_eq!(
                m.at(x, 0) == 255,
                (x0..x0 + t).contains(&x),
                "top edge x={x} {cell:?}"
            );
        }
        for y in 0..h {
            assert_eq!(
                m.at(w - 1, y) == 255,
                (y0..y0 + t).contains(&y),
                "right edge y={y}"
            );
        }
        assert_eq!(m.at(0, h - 1), 0);
        assert_eq!(m.at(w / 2, h - 1), 0, "nothing goes down");
    }
}

#[test]
fn dashed_lines_have_their_number_of_dashes() {
    for cell in CELLS {
        for (c, dashes) in [('┄', 3), ('┈', 4), ('╌', 2)] {
            let m = mask(c, cell).expect("dashed");
            let y = (cell.height_px as f32 / 2.0) as u32;
            let mut runs = 0;
            let mut on = false;
            for x in 0..cell.width_px {
                let now = m.at(x, y) == 255;
                if now && !on {
                    runs += 1;
                }
                on = now;
            }
            assert_eq!(runs, dashes, "{c:?} in {cell:?}");
        }
    }
}

#[test]
fn diagonals_run_corner_to_corner() {
    let cell = CELLS[1];
    let (w, h) = (cell.width_px, cell.height_px);
    let m = mask('╱', cell).expect("diagonal");
    assert!(m.at(w - 1, 0) > 0 && m.at(0, h - 1) > 0);
    assert_eq!(m.at(0, 0), 0);
    let x = mask('╳', cell).expect("diagonal");
    assert!(x.at(0, 0) > 0 && x.at(w - 1, 0) > 0 && x.at(w / 2, h / 2) > 0);
}
