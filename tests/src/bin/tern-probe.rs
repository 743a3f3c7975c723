//! `tern-probe`: measures a terminal from the inside (see `tern_tests::probe`).

fn main() -> std::process::ExitCode {
    tern_tests::probe::main_from(std::env::args())
}
