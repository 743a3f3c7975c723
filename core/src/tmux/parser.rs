//! The streaming control-mode parser: bytes in any chunks → [`Message`]s.
//!
//! tmux writes lines. A command's reply is a block, `%begin TIME NUMBER FLAGS`, its
//! output lines as they are (not escaped), then `%end` or `%error` with the same
//! three numbers. Everything else is a notification line starting with `%`; pane
//! output is `%output %PANE DATA` or, with `pause-after` set,
//! `%extended-output %PANE AGE_MS ... : DATA`, where DATA is octal-escaped
//! ([`super::escape`]).
//!
//! Pane output is the hot path and may be long, so it is not buffered as a line: once
//! its header is read, its data is decoded and handed out as it arrives (a line cut
//! across two chunks gives two [`Message::Output`]s for the same pane, in order).
//! Every other line is buffered up to [`MAX_LINE_BYTES`], a reply up to
//! [`MAX_REPLY_BYTES`]; beyond that the rest is dropped with an error, so memory stays
//! bounded whatever the far side sends.
//!
//! Bad input never panics and never stops the stream: a line that is not a
//! notification, a known notification whose arguments do not parse, an `%end`
//! without a `%begin`, a layout that does not parse each give a
//! [`Message::Error`] and parsing goes on with the next line.
//!
//! Two things real tmux does that its manual does not say: `%pause` and `%continue`
//! can arrive *inside* the reply block of the `refresh-client -A` that caused them
//! (they are taken out of the block as notifications), and the block of the command
//! tmux was started with (`new-session`) has flags `0`, while blocks of commands this
//! client wrote have flags `1`.

use memchr::{memchr, memmem};

use super::TmuxPaneId;
use super::escape::OctalDecoder;
pub use super::notification::Notification;
use super::notification::parse_notification;
pub use super::protocol_error::{MAX_LINE_BYTES, MAX_REPLY_BYTES, ProtocolError};

/// Bytes of an offending line an error keeps, to show.
pub const MAX_ERROR_EXCERPT: usize = 256;

/// Where an output line's header must end for its data to be streamed.
const MAX_HEADER_BYTES: usize = 512;

/// `-CC` starts the stream with this DCS (`ESC P 1000 p`) ...
const DCS_START: &[u8] = b"\x1bP1000p";
/// ... and ends it with ST after `%exit`.
const DCS_END: &[u8] = b"\x1b\\";

/// One thing tmux said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// Decoded output of a pane (a whole `%output` line, or a piece of one).
    Output {
        pane: TmuxPaneId,
        /// `%extended-output`'s age: how long tmux held the output, in milliseconds.
        age_ms: Option<u64>,
        data: Vec<u8>,
    },
    Notification(Notification),
    /// A finished `%begin … %end|%error` block.
    Reply(ReplyBlock),
    Error(ProtocolError),
}

/// A command's reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplyBlock {
    pub time: u64,
    pub number: u64,
    pub flags: u32,
    /// `%end` (true) or `%error` (false).
    pub ok: bool,
    /// The output lines, as tmux wrote them (a trailing `\r` removed).
    pub lines: Vec<Vec<u8>>,
    /// Lines past [`MAX_REPLY_BYTES`] were dropped.
    pub truncated: bool,
}

impl ReplyBlock {
    /// Whether the command came from this control client (flag 1) rather than from
    /// tmux's own command line or configuration (flag 0).
    pub fn from_this_client(&self) -> bool {
        self.flags & 1 != 0
    }

    /// The lines as text (lossy UTF-8), joined with newlines: an error's message.
    pub fn text(&self) -> String {
        let lines: Vec<String> = self
            .lines
            .iter()
            .map(|l| String::from_utf8_lossy(l).into_owned())
            .collect();
        lines.join("\n")
    }
}

fn excerpt(line: &[u8]) -> Vec<u8> {
    line[..line.len().min(MAX_ERROR_EXCERPT)].to_vec()
}

#[derive(Clone, Debug)]
enum LineState {
    /// Collecting a line in `Parser::line`.
    Buffering,
    /// Dropping the rest of an over-long line.
    Skipping,
    /// Decoding the data of an output line as it arrives.
    Output {
        pane: TmuxPaneId,
        age_ms: Option<u64>,
        decoder: OctalDecoder,
    },
}

#[derive(Clone, Debug)]
struct OpenReply {
    block: ReplyBlock,
    bytes: usize,
}

/// The streaming parser. Feed it bytes as they come; call [`Parser::finish`] at the
/// end of the stream.
#[derive(Clone, Debug)]
pub struct Parser {
    line: Vec<u8>,
    state: LineState,
    reply: Option<OpenReply>,
}

impl Default for Parser {
    fn default() -> Parser {
        Parser {
            line: Vec::new(),
            state: LineState::Buffering,
            reply: None,
        }
    }
}

/// `%begin`, `%end` and `%error`'s three numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Guard {
    time: u64,
    number: u64,
    flags: u32,
}

fn parse_guard(args: &[u8]) -> Option<Guard> {
    let text = std::str::from_utf8(args).ok()?;
    let mut words = text.split(' ');
    let guard = Guard {
        time: words.next()?.parse().ok()?,
        number: words.next()?.parse().ok()?,
        flags: words.next()?.parse().ok()?,
    };
    words.next().is_none().then_some(guard)
}

/// Removes what `-CC` wraps the stream in, and a `\r` line ending.
fn unwrap_line(mut line: &[u8]) -> &[u8] {
    if let Some(rest) = line.strip_prefix(DCS_START) {
        line = rest;
    }
    if let Some(rest) = line.strip_prefix(DCS_END) {
        line = rest;
    }
    line
}

/// Where an output line's data starts, if `line` is a complete output header
/// (`Ok(None)`: not an output line, or its header not complete yet).
fn output_header(line: &[u8], whole: bool) -> Result<Option<(TmuxPaneId, Option<u64>, usize)>, ()> {
    if let Some(rest) = line.strip_prefix(b"%output ") {
        let Some(space) = memchr(b' ', rest) else {
            return if whole { Err(()) } else { Ok(None) };
        };
        let pane = std::str::from_utf8(&rest[..space])
            .ok()
            .and_then(TmuxPaneId::parse)
            .ok_or(())?;
        return Ok(Some((pane, None, 8 + space + 1)));
    }
    if let Some(rest) = line.strip_prefix(b"%extended-output ") {
        let prefix = 17;
        let (header, data_start) = match memmem::find(rest, b" : ") {
            Some(i) => (&rest[..i], prefix + i + 3),
            None if whole && rest.ends_with(b" :") => (&rest[..rest.len() - 2], line.len()),
            None if whole => return Err(()),
            None => {
                // Give up waiting for a header that cannot be one.
                return Ok(None);
            }
        };
        let header = std::str::from_utf8(header).map_err(|_| ())?;
        let mut words = header.split(' ');
        let pane = words.next().and_then(TmuxPaneId::parse).ok_or(())?;
        let age_ms = words.next().and_then(|w| w.parse().ok()).ok_or(())?;
        return Ok(Some((pane, Some(age_ms), data_start)));
    }
    Ok(None)
}

impl Parser {
    pub fn new() -> Parser {
        Parser::default()
    }

    /// Whether a reply block is open (its `%end` not seen yet).
    pub fn in_reply(&self) -> bool {
        self.reply.is_some()
    }

    /// Parses `input`, appending what it completes to `out`.
    pub fn feed(&mut self, mut input: &[u8], out: &mut Vec<Message>) {
        while !input.is_empty() {
            let newline = memchr(b'\n', input);
            let (piece, ended) = match newline {
                Some(i) => (&input[..i], true),
                None => (input, false),
            };
            input = match newline {
                Some(i) => &input[i + 1..],
                None => &[],
            };
            match &mut self.state {
                LineState::Output { .. } => self.stream_piece(piece, ended, out),
                LineState::Skipping => {
                    if ended {
                        self.state = LineState::Buffering;
                    }
                }
                LineState::Buffering => {
                    let room = MAX_LINE_BYTES - self.line.len();
                    if piece.len() > room {
                        self.line.extend_from_slice(&piece[..room]);
                        if !self.try_stream(out) {
                            out.push(Message::Error(ProtocolError::LineTooLong {
                                excerpt: excerpt(&self.line),
                            }));
                            self.line.clear();
                            self.state = LineState::Skipping;
                            if ended {
                                self.state = LineState::Buffering;
                            }
                            continue;
                        }
                        // Streaming now: hand it the rest of the piece.
                        self.stream_piece(&piece[room..], ended, out);
                        continue;
                    }
                    self.line.extend_from_slice(piece);
                    if ended {
                        let line = std::mem::take(&mut self.line);
                        self.handle_line(&line, out);
                        self.line = line;
                        self.line.clear();
                    } else {
                        self.try_stream(out);
                    }
                }
            }
        }
    }

    /// Decodes `piece` of the `%output` line being streamed (`ended`: the line's end came
    /// with it), handing out what it decodes; back to buffering at the line's end.
    fn stream_piece(&mut self, piece: &[u8], ended: bool, out: &mut Vec<Message>) {
        if let LineState::Output {
            pane,
            age_ms,
            decoder,
        } = &mut self.state
        {
            let mut data = Vec::with_capacity(piece.len());
            decoder.decode(piece, &mut data);
            if ended {
                decoder.finish_line(&mut data);
            }
            if !data.is_empty() {
                out.push(Message::Output {
                    pane: *pane,
                    age_ms: *age_ms,
                    data,
                });
            }
        }
        if ended {
            self.state = LineState::Buffering;
        }
    }

    /// The stream ended: reports a line or reply cut short and resets.
    pub fn finish(&mut self, out: &mut Vec<Message>) {
        match std::mem::replace(&mut self.state, LineState::Buffering) {
            LineState::Output {
                pane,
                age_ms,
                mut decoder,
            } => {
                let mut data = Vec::new();
                decoder.finish_line(&mut data);
                if !data.is_empty() {
                    out.push(Message::Output { pane, age_ms, data });
                }
                out.push(Message::Error(ProtocolError::TruncatedLine {
                    line: b"%output".to_vec(),
                }));
            }
            LineState::Skipping => {}
            LineState::Buffering => {
                let line = unwrap_line(&self.line);
                if !line.is_empty() {
                    out.push(Message::Error(ProtocolError::TruncatedLine {
                        line: excerpt(line),
                    }));
                }
            }
        }
        self.line.clear();
        if let Some(open) = self.reply.take() {
            out.push(Message::Error(ProtocolError::TruncatedReply {
                number: open.block.number,
            }));
        }
    }

    /// If the buffered (incomplete) line is pane output with its header read, starts
    /// streaming it. Returns whether it did.
    fn try_stream(&mut self, out: &mut Vec<Message>) -> bool {
        if self.reply.is_some() {
            return false;
        }
        let line = unwrap_line(&self.line);
        // Headers are short: look at the start only, so a long line fed a byte at a
        // time costs no more per byte.
        let head = &line[..line.len().min(MAX_HEADER_BYTES)];
        let Ok(Some((pane, age_ms, start))) = output_header(head, false) else {
            return false;
        };
        let mut decoder = OctalDecoder::default();
        let mut data = Vec::new();
        decoder.decode(&line[start..], &mut data);
        if !data.is_empty() {
            out.push(Message::Output { pane, age_ms, data });
        }
        self.line.clear();
        self.state = LineState::Output {
            pane,
            age_ms,
            decoder,
        };
        true
    }

    fn handle_line(&mut self, raw: &[u8], out: &mut Vec<Message>) {
        // Output keeps its `\r`: the decoder tells a line ending from data.
        let unwrapped = unwrap_line(raw);
        let line = unwrapped.strip_suffix(b"\r").unwrap_or(unwrapped);
        if let Some(open) = &mut self.reply {
            if let Some((word, args)) = split_word(line) {
                if matches!(word, b"%end" | b"%error")
                    && parse_guard(args)
                        .is_some_and(|g| g.time == open.block.time && g.number == open.block.number)
                {
                    let mut open = self.reply.take().expect("checked above");
                    open.block.ok = word == b"%end";
                    out.push(Message::Reply(open.block));
                    return;
                }
                if matches!(word, b"%pause" | b"%continue") {
                    if let Ok(Some(n)) = parse_notification(word, args) {
                        out.push(Message::Notification(n));
                        return;
                    }
                }
            }
            if open.bytes + line.len() > MAX_REPLY_BYTES {
                if !open.block.truncated {
                    open.block.truncated = true;
                    out.push(Message::Error(ProtocolError::ReplyTooLong {
                        number: open.block.number,
                    }));
                }
                return;
            }
            open.bytes += line.len();
            open.block.lines.push(line.to_vec());
            return;
        }
        if line.is_empty() {
            return;
        }
        let Some((word, args)) = split_word(line).filter(|(w, _)| w.first() == Some(&b'%')) else {
            out.push(Message::Error(ProtocolError::Garbage {
                line: excerpt(line),
            }));
            return;
        };
        match word {
            b"%begin" => match parse_guard(args) {
                Some(g) => {
                    self.reply = Some(OpenReply {
                        block: ReplyBlock {
                            time: g.time,
                            number: g.number,
                            flags: g.flags,
                            ok: false,
                            lines: Vec::new(),
                            truncated: false,
                        },
                        bytes: 0,
                    });
                }
                None => out.push(Message::Error(ProtocolError::Malformed {
                    line: excerpt(line),
                })),
            },
            b"%end" | b"%error" => {
                out.push(Message::Error(ProtocolError::UnexpectedGuard {
                    line: excerpt(line),
                }));
            }
            b"%output" | b"%extended-output" => match output_header(unwrapped, true) {
                Ok(Some((pane, age_ms, start))) => {
                    let data_escaped = &unwrapped[start.min(unwrapped.len())..];
                    let mut decoder = OctalDecoder::default();
                    let mut data = Vec::with_capacity(data_escaped.len());
                    decoder.decode(data_escaped, &mut data);
                    decoder.finish_line(&mut data);
                    if !data.is_empty() {
                        out.push(Message::Output { pane, age_ms, data });
                    }
                }
                _ => out.push(Message::Error(ProtocolError::Malformed {
                    line: excerpt(line),
                })),
            },
            _ => match parse_notification(word, args) {
                Ok(Some(n)) => out.push(Message::Notification(n)),
                Ok(None) => out.push(Message::Notification(Notification::Unknown {
                    line: String::from_utf8_lossy(line).into_owned(),
                })),
                Err(e) => out.push(Message::Error(e.unwrap_or_else(|| {
                    ProtocolError::Malformed {
                        line: excerpt(line),
                    }
                }))),
            },
        }
    }
}

/// The first word and the rest after one space.
fn split_word(line: &[u8]) -> Option<(&[u8], &[u8])> {
    if line.is_empty() {
        return None;
    }
    Some(match memchr(b' ', line) {
        Some(i) => (&line[..i], &line[i + 1..]),
        None => (line, &[][..]),
    })
}
