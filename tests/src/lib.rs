//! End-to-end test support for tern.
//!
//! - [`oracle`]: alacritty_terminal behind the model's small surface, dumping the same
//!   neutral [`ScreenDump`](tern_core::model::ScreenDump).
//! - [`probe`]: the program `tern-probe` that measures a terminal from the inside.
//! - [`streams`]: the seeded generator of random TUI-like byte streams.
//! - [`known`]: the intentional differences from alacritty, which the generator avoids.
//! - [`bench`]: the benchmark harness behind `tern-bench`.
//! - [`compare`]: running a stream through both emulators, describing the first
//!   difference, and shrinking a differing stream.

pub mod bench;
pub mod compare;
pub mod known;
pub mod oracle;
pub mod probe;
pub mod streams;
