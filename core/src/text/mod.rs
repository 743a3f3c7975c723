//! Text found on the screen: URLs written as plain text ([`links`]), with soft-wrapped
//! rows joined so a URL that wraps is found whole.

pub mod copy_mode;
#[cfg(test)]
mod copy_mode_tests;
pub mod hints;
#[cfg(test)]
mod hints_tests;
pub mod link_target;
pub mod links;
mod punycode;
