//! Generates the display-width table (`width_table.rs` in `OUT_DIR`) from `unicode-width`,
//! so that `model::width` looks a code point's width up by index instead of searching
//! ranges. Two levels: `WIDTH_BLOCKS[cp >> 8]` names a block of 256 code points, whose
//! widths are in `WIDTH_CODES`, a byte each: 0, 1, 2 columns, or 3 for anything else
//! (controls, surrogates, and the one character `unicode-width` gives three columns,
//! which `model::width` asks `unicode-width` about). About 28 KB; a text's characters
//! touch the few blocks of its scripts.

use std::collections::HashMap;
use std::fmt::Write as _;
use unicode_width::UnicodeWidthChar;

const BLOCK: u32 = 256;
const PLANES_END: u32 = 0x11_0000;

fn code(cp: u32) -> u8 {
    match char::from_u32(cp).map(|c| c.width()) {
        Some(Some(0)) => 0,
        Some(Some(1)) => 1,
        Some(Some(2)) => 2,
        _ => 3,
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let mut blocks: Vec<[u8; BLOCK as usize]> = Vec::new();
    let mut seen: HashMap<[u8; BLOCK as usize], usize> = HashMap::new();
    let mut index = Vec::new();
    for hi in 0..PLANES_END / BLOCK {
        let mut packed = [0u8; BLOCK as usize];
        for lo in 0..BLOCK {
            packed[lo as usize] = code(hi * BLOCK + lo);
        }
        let n = *seen.entry(packed).or_insert_with(|| {
            blocks.push(packed);
            blocks.len() - 1
        });
        index.push(n);
    }
    assert!(
        blocks.len() <= 256,
        "{} blocks do not fit a u8 index",
        blocks.len()
    );
    // Padded to a power of two, so that the look-up masks the block number instead of
    // checking it against the length.
    while !blocks.len().is_power_of_two() {
        blocks.push([3; BLOCK as usize]);
    }
    let mut out = String::new();
    writeln!(out, "/// Block of each 256 code points (`cp >> 8`).").unwrap();
    writeln!(out, "pub static WIDTH_BLOCKS: [u8; {}] = [", index.len()).unwrap();
    for chunk in index.chunks(32) {
        let line: Vec<String> = chunk.iter().map(|n| n.to_string()).collect();
        writeln!(out, "    {},", line.join(", ")).unwrap();
    }
    writeln!(out, "];").unwrap();
    writeln!(
        out,
        "/// Width code of each code point of each block (a power of two of them)."
    )
    .unwrap();
    writeln!(
        out,
        "pub static WIDTH_CODES: [[u8; {}]; {}] = [",
        BLOCK,
        blocks.len()
    )
    .unwrap();
    for block in &blocks {
        let line: Vec<String> = block.iter().map(|b| b.to_string()).collect();
        writeln!(out, "    [{}],", line.join(", ")).unwrap();
    }
    writeln!(out, "];").unwrap();
    let path = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("width_table.rs");
    std::fs::write(path, out).unwrap();
}
