//! The benchmark harness behind `tern-bench`: statistics, the three systems measured side
//! by side (tern, the floor, the peer), and the suites.

pub mod images;
pub mod search;
pub mod stats;
pub mod suites;
pub mod systems;
