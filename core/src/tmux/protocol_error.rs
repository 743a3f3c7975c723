//! What the control-mode parser and the notification decoder report about a line
//! they cannot understand.

use super::WindowId;
use super::layout::LayoutError;

/// Longest buffered line (a notification, or one line of a reply).
pub const MAX_LINE_BYTES: usize = 1 << 20;
/// Most bytes of output lines one reply block keeps.
pub const MAX_REPLY_BYTES: usize = 16 << 20;

/// A line that could not be understood; the stream goes on after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtocolError {
    /// A line outside a reply that does not start with `%`.
    Garbage { line: Vec<u8> },
    /// A known notification (or `%begin`) whose arguments do not parse.
    Malformed { line: Vec<u8> },
    /// A `%layout-change` whose layout does not parse.
    BadLayout {
        window: WindowId,
        layout: String,
        error: LayoutError,
    },
    /// `%end` or `%error` with no reply open.
    UnexpectedGuard { line: Vec<u8> },
    /// A line longer than [`MAX_LINE_BYTES`]; it was dropped.
    LineTooLong { excerpt: Vec<u8> },
    /// A reply longer than [`MAX_REPLY_BYTES`]; its later lines were dropped.
    ReplyTooLong { number: u64 },
    /// The stream ended in the middle of a line.
    TruncatedLine { line: Vec<u8> },
    /// The stream ended inside a reply.
    TruncatedReply { number: u64 },
}

impl std::fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |l: &[u8]| String::from_utf8_lossy(l).escape_debug().to_string();
        match self {
            ProtocolError::Garbage { line } => {
                write!(f, "not a control-mode line: \"{}\"", show(line))
            }
            ProtocolError::Malformed { line } => {
                write!(f, "malformed notification: \"{}\"", show(line))
            }
            ProtocolError::BadLayout {
                window,
                layout,
                error,
            } => {
                write!(
                    f,
                    "layout of {window} does not parse ({error}): \"{layout}\""
                )
            }
            ProtocolError::UnexpectedGuard { line } => {
                write!(f, "reply end without a %begin: \"{}\"", show(line))
            }
            ProtocolError::LineTooLong { excerpt } => {
                write!(
                    f,
                    "line longer than {MAX_LINE_BYTES} bytes dropped: \"{}…\"",
                    show(excerpt)
                )
            }
            ProtocolError::ReplyTooLong { number } => {
                write!(f, "reply {number} longer than {MAX_REPLY_BYTES} bytes, cut")
            }
            ProtocolError::TruncatedLine { line } => {
                write!(f, "stream ended mid-line: \"{}\"", show(line))
            }
            ProtocolError::TruncatedReply { number } => {
                write!(f, "stream ended inside reply {number}")
            }
        }
    }
}

impl std::error::Error for ProtocolError {}
