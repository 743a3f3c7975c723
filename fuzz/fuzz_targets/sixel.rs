#![no_main]
//! See `core/tests/fuzz_checks/images.rs` for the input format and the invariants.

#[path = "../../core/tests/fuzz_checks/images.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::sixel(data));
