//! End-to-end test support for tern: the reference emulator wrapper used as an oracle
//! and the random stream generator the differential tests feed to both emulators.

pub mod compare;
pub mod known;
pub mod oracle;
pub mod streams;
