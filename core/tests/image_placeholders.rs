//! kitty's Unicode placeholders in the model: a virtual placement (`U=1`) is drawn
//! only where the text holds U+10EEEE cells, which say (by colour and diacritics)
//! which image and which part of its box they show.

use base64::Engine;
use tern_core::model::images::placeholder::{self, PLACEHOLDER, PlaceholderRun, diacritic};
use tern_core::model::{TermConfig, TermSize, Terminal};

fn term(cols: usize, rows: usize) -> Terminal {
    let mut t = Terminal::new(TermSize::new(cols, rows), TermConfig::default());
    t.set_cell_pixel_size(10, 20);
    t
}

fn apc(keys: &str, payload: &[u8]) -> Vec<u8> {
    let text = base64::engine::general_purpose::STANDARD.encode(payload);
    format!("\x1b_G{keys};{text}\x1b\\").into_bytes()
}

/// A placeholder cell with `marks` diacritics (row, column, high byte of the id).
fn cell(marks: &[u32]) -> String {
    let mut s = String::from(PLACEHOLDER);
    s.extend(marks.iter().map(|&v| diacritic(v).expect("a diacritic")));
    s
}

fn runs(t: &Terminal, row: usize) -> Vec<PlaceholderRun> {
    placeholder::runs(t.grid().row(row))
}

fn run(col: usize, len: usize, image_id: u32, box_row: u32, box_col: u32) -> PlaceholderRun {
    PlaceholderRun {
        col,
        len,
        image_id,
        placement_id: 0,
        box_row,
        box_col,
    }
}

#[test]
fn a_virtual_placement_is_drawn_nowhere_and_leaves_the_cursor() {
    let mut t = term(20, 5);
    t.advance(b"ab");
    // 40x20 pixels in a box of 4x2 cells.
    let rgb = vec![9u8; 40 * 20 * 3];
    t.advance(&apc("a=T,U=1,f=24,s=40,v=20,i=42,c=4,r=2,q=2", &rgb));
    let layer = t.image_layer().expect("the virtual placement");
    let p = &layer.placements[0].placement;
    assert!(p.is_virtual);
    assert_eq!((p.cols, p.rows), (4, 2));
    assert_eq!((t.cursor().row, t.cursor().col), (0, 2), "the cursor stays");
    assert!(
        t.dump().images.is_empty(),
        "nothing is on screen without placeholders: {:?}",
        t.dump().images
    );
    // Neither clearing the screen nor scrolling it all away takes it (it is anchored
    // nowhere); a delete by id does.
    t.advance(b"\x1b[2J");
    t.advance(&b"\n".repeat(50));
    t.settle_images();
    assert!(t.images().virtual_placement_count() == 1);
    t.advance(b"\x1b_Ga=d,d=a\x1b\\");
    assert!(
        t.images().virtual_placement_count() == 1,
        "d=a is for the screen's"
    );
    t.advance(b"\x1b_Ga=d,d=i,i=42\x1b\\");
    assert_eq!(t.images().virtual_placement_count(), 0);
}

#[test]
fn cells_say_image_row_and_column_and_bare_ones_continue_on_the_left() {
    let mut t = term(20, 5);
    // 256-colour id 42: row 0 written in full, row 1 with the row only on its first
    // cell, then bare cells.
    let line0: String = (0..3).map(|c| cell(&[0, c])).collect();
    let line1 = format!("{}{}{}", cell(&[1]), cell(&[]), cell(&[]));
    t.advance(format!("\x1b[38;5;42m{line0}\r\n{line1}\x1b[m").as_bytes());
    assert_eq!(runs(&t, 0), vec![run(0, 3, 42, 0, 0)]);
    assert_eq!(runs(&t, 1), vec![run(0, 3, 42, 1, 0)]);
    // A 24-bit colour is a 24-bit id; the third diacritic its high byte.
    t.advance(format!("\x1b[3H\x1b[38;2;1;2;3m{}\x1b[m", cell(&[2, 5, 7])).as_bytes());
    assert_eq!(runs(&t, 2), vec![run(0, 1, 7 << 24 | 0x010203, 2, 5)]);
    // The underline colour is the placement id; a gap or another image starts a new run.
    t.advance(
        format!(
            "\x1b[4H\x1b[38;5;9;58;5;3m{}{} \x1b[38;5;8m{}\x1b[m",
            cell(&[0, 0]),
            cell(&[]),
            cell(&[0, 2])
        )
        .as_bytes(),
    );
    let r = runs(&t, 3);
    assert_eq!(r.len(), 2);
    assert_eq!((r[0].image_id, r[0].placement_id, r[0].len), (9, 3, 2));
    assert_eq!((r[1].col, r[1].image_id, r[1].box_col), (3, 8, 2));
}

#[test]
fn a_run_shows_its_part_of_the_fitted_centred_image() {
    let mut t = term(20, 5);
    // 40x20 pixels (2:1) in a 4x4 box of 10x20 cells (40x80 px): fitted 40x20 px,
    // centred: rows 1.5..2.5 of the box hold it.
    let rgb = vec![9u8; 40 * 20 * 3];
    t.advance(&apc("a=T,U=1,f=24,s=40,v=20,i=5,c=4,r=4,q=2", &rgb));
    let layer = t.image_layer().unwrap();
    let placed = layer.virtual_placement(5, 0).expect("found by id");
    let piece = |box_row, box_col, len| {
        placeholder::piece(placed, &run(0, len, 5, box_row, box_col), (10.0, 20.0))
    };
    assert_eq!(piece(0, 0, 4), None, "the box's margin shows nothing");
    let top = piece(1, 0, 4).expect("the image's top half");
    assert_eq!((top.at, top.size), ((0.0, 0.5), (4.0, 0.5)));
    assert_eq!(top.source, (0.0, 0.0, 40.0, 10.0));
    let right = piece(2, 2, 2).expect("the bottom right quarter");
    assert_eq!((right.at, right.size), ((0.0, 0.0), (2.0, 0.5)));
    assert_eq!(right.source, (20.0, 10.0, 20.0, 10.0));
    assert!(layer.virtual_placement(6, 0).is_none());
}

#[test]
fn the_headless_dump_says_where_placeholders_show_an_image() {
    let mut t = term(20, 5);
    t.advance(&apc(
        "a=T,U=1,f=24,s=10,v=20,i=7,c=2,r=1,q=2",
        &[1u8; 10 * 20 * 3],
    ));
    t.advance(format!("x\x1b[38;5;7m{}{}\x1b[m", cell(&[0, 0]), cell(&[])).as_bytes());
    assert_eq!(
        t.dump().images,
        vec!["placeholder of image 7: box row 0 cols 0..2 at row 0 col 1".to_owned()]
    );
}
