//! Checks the oracle wrapper itself on inputs whose screens are known, independent of
//! tern's model.

use tern_core::model::{AttrRun, DumpAttrs, DumpColor, UnderlineKind};
use tern_tests::oracle::Oracle;

fn oracle(cols: usize, rows: usize, bytes: &[u8]) -> Oracle {
    let mut oracle = Oracle::new(cols, rows);
    oracle.advance(bytes);
    oracle
}

#[test]
fn plain_text() {
    let dump = oracle(80, 24, b"hello").dump();
    assert_eq!(dump.rows.len(), 24);
    assert_eq!(dump.rows[0], "hello");
    assert!(dump.rows[1..].iter().all(String::is_empty));
    assert_eq!(dump.cursor, (0, 5));
    assert!(dump.runs.iter().all(Vec::is_empty));
}

#[test]
fn indexed_foreground() {
    let dump = oracle(80, 24, b"\x1b[31mred\x1b[0m plain").dump();
    assert_eq!(dump.rows[0], "red plain");
    let red = DumpAttrs {
        fg: DumpColor::Indexed(1),
        ..DumpAttrs::default()
    };
    assert_eq!(
        dump.runs[0],
        vec![AttrRun {
            start: 0,
            end: 3,
            attrs: red
        }]
    );
}

#[test]
fn colours_and_flags() {
    let dump = oracle(
        80,
        24,
        b"\x1b[91;1ma\x1b[0;38;5;200;48:2::1:2:3mb\x1b[0;4:3;7;9mc\x1b[0;2;3;8md\x1b[0;4:2me",
    )
    .dump();
    assert_eq!(dump.rows[0], "abcde");
    let attrs: Vec<DumpAttrs> = dump.runs[0].iter().map(|run| run.attrs).collect();
    let default = DumpAttrs::default();
    assert_eq!(
        attrs,
        vec![
            DumpAttrs {
                fg: DumpColor::Indexed(9),
                bold: true,
                ..default
            },
            DumpAttrs {
                fg: DumpColor::Indexed(200),
                bg: DumpColor::Rgb(1, 2, 3),
                ..default
            },
            DumpAttrs {
                underline: UnderlineKind::Curly,
                inverse: true,
                strike: true,
                ..default
            },
            DumpAttrs {
                dim: true,
                italic: true,
                hidden: true,
                ..default
            },
            DumpAttrs {
                underline: UnderlineKind::Double,
                ..default
            },
        ]
    );
}

#[test]
fn wide_and_combining_characters() {
    let dump = oracle(10, 3, "中x\u{301}文".as_bytes()).dump();
    assert_eq!(dump.rows[0], "中x\u{301}文");
    assert_eq!(dump.cursor, (0, 5));
}

#[test]
fn wide_character_at_the_margin_leaves_a_blank() {
    // The wide character does not fit in the last column, so it moves to the next row.
    let dump = oracle(5, 3, "abcd中".as_bytes()).dump();
    assert_eq!(dump.rows[0], "abcd");
    assert_eq!(dump.rows[1], "中");
    assert_eq!(dump.cursor, (1, 2));
}

#[test]
fn tabs_show_as_blanks() {
    let dump = oracle(20, 3, b"a\tb").dump();
    assert_eq!(dump.rows[0], "a       b");
    assert_eq!(dump.cursor, (0, 9));
}

#[test]
fn trailing_spaces_are_trimmed_but_attributes_kept() {
    let dump = oracle(10, 3, b"\x1b[44mab  \x1b[0m  ").dump();
    assert_eq!(dump.rows[0], "ab");
    let blue = DumpAttrs {
        bg: DumpColor::Indexed(4),
        ..DumpAttrs::default()
    };
    assert_eq!(
        dump.runs[0],
        vec![AttrRun {
            start: 0,
            end: 4,
            attrs: blue
        }]
    );
    assert_eq!(dump.cursor, (0, 6));
}

#[test]
fn cursor_moves_and_scrolling() {
    let dump = oracle(10, 3, b"\x1b[3;4Hx\r\n\r\ny").dump();
    assert_eq!(dump.rows, vec!["   x", "", "y"]);
    assert_eq!(dump.cursor, (2, 1));
    let dump = oracle(10, 3, b"1\r\n2\r\n3\r\n4").dump();
    assert_eq!(dump.rows, vec!["2", "3", "4"]);
}

#[test]
fn pending_wrap_keeps_the_cursor_in_the_last_column() {
    let dump = oracle(5, 3, b"abcde").dump();
    assert_eq!(dump.rows[0], "abcde");
    assert_eq!(dump.cursor, (0, 4));
}

#[test]
fn cursor_position_report() {
    let mut oracle = oracle(10, 5, b"\x1b[2;3H\x1b[6n");
    assert_eq!(oracle.take_replies(), b"\x1b[2;3R");
    assert!(oracle.take_replies().is_empty());
}

#[test]
fn alternate_screen() {
    let mut oracle = oracle(10, 3, b"main\x1b[?1049halt");
    let dump = oracle.dump();
    assert_eq!(dump.rows[0], "    alt");
    oracle.advance(b"\x1b[?1049l");
    let dump = oracle.dump();
    assert_eq!(dump.rows[0], "main");
    assert_eq!(dump.cursor, (0, 4));
}
