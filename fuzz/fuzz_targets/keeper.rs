#![no_main]
//! See `core/tests/fuzz_checks/keeper.rs` for the input format and the invariants.

#[path = "../../core/tests/fuzz_checks/keeper.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::keeper(data));
