//! Operating system commands: titles, cwd, hyperlinks, colours, clipboard, shell marks
//! and notifications.

use super::State;
use super::notify::{self, Notification, NotifySource};
use super::osc_params::{joined, text};
use crate::model::palette::{Rgb, SPECIAL_COLORS};
use crate::model::{ClipboardRequest, ShellMark, TermEvent};

/// Longest OSC string kept (bytes); longer ones are dropped whole.
pub const MAX_OSC_BYTES: usize = 64 * 1024;

pub fn dispatch(st: &mut State, params: &[&[u8]], bell_terminated: bool) {
    let Some(cmd) = params.first() else { return };
    let palette_before = colour_command(cmd).then(|| st.palette.clone());
    dispatch_command(st, cmd, params, bell_terminated);
    if palette_before.is_some_and(|before| before != st.palette) {
        st.palette_generation += 1;
    }
}

/// OSC 4, 5, 10-19 and their resets 104, 105, 110-119.
fn colour_command(cmd: &[u8]) -> bool {
    matches!(
        std::str::from_utf8(cmd)
            .ok()
            .and_then(|c| c.parse::<u16>().ok()),
        Some(4 | 5 | 10..=19 | 104 | 105 | 110..=119)
    )
}

fn dispatch_command(st: &mut State, cmd: &&[u8], params: &[&[u8]], bell_terminated: bool) {
    let terminator: &[u8] = if bell_terminated { b"\x07" } else { b"\x1b\\" };
    match *cmd {
        b"0" | b"2" if st.title_hex => {
            // Title mode 0: the title is hex-encoded; one that is not is ignored.
            if let Some(title) = super::reports::hex_decode(joined(params, 1).as_bytes()) {
                st.set_title(&String::from_utf8_lossy(&title));
            }
        }
        b"0" | b"2" => st.set_title(&joined(params, 1)),
        b"1" => {}
        b"4" => palette_ops(st, &params[1..], terminator),
        b"5" => special_color_ops(st, &params[1..], terminator),
        b"7" => set_cwd(st, &joined(params, 1)),
        b"8" => hyperlink(st, params),
        b"52" => clipboard(st, params),
        b"104" => reset_colors(st, &params[1..], false),
        b"105" => reset_colors(st, &params[1..], true),
        _ if colour_command(cmd) => {
            let Some(first) = std::str::from_utf8(cmd)
                .ok()
                .and_then(|s| s.parse::<u16>().ok())
            else {
                return;
            };
            if first >= 110 {
                // OSC 110-119 reset one dynamic colour each.
                st.palette.set_dynamic(first - 100, None);
                st.damage.mark_all();
                return;
            }
            // Each further parameter is the next colour (OSC 10;fg;bg ...).
            for (k, spec) in params[1..].iter().enumerate() {
                let which = first + k as u16;
                if which > 19 {
                    break;
                }
                dynamic_color(st, which, spec, terminator);
            }
        }
        b"133" => shell_mark(st, params),
        b"9" => {
            // OSC 9;4 is ConEmu's progress report, not a notification.
            if params.get(1).is_some_and(|p| *p == b"4") {
                if let Some(progress) = notify::parse_progress(params) {
                    st.events.push(TermEvent::Progress(progress));
                }
                return;
            }
            let body = joined(params, 1);
            let n = Notification::new(NotifySource::Osc9, "", &body);
            if !n.body.is_empty() {
                st.events.push(TermEvent::Notification(n));
            }
        }
        b"777" if params.get(1).is_some_and(|p| *p == b"notify") => {
            let title = params.get(2).map(|p| text(p)).unwrap_or_default();
            let body = joined(params, 3);
            let n = Notification::new(NotifySource::Osc777, &title, &body);
            st.events.push(TermEvent::Notification(n));
        }
        b"99" => notify::osc99(st, params),
        b"21337" | b"7501" => {
            let payload = joined(params, 1);
            let status = if *cmd == b"21337" {
                super::agent_status::parse_21337(payload.as_bytes())
            } else {
                super::agent_status::parse_7501(payload.as_bytes())
            };
            if let Some(status) = status {
                st.events.push(TermEvent::AgentStatus(status));
            }
        }
        _ => {}
    }
}

/// Sends `OSC prefix rgb:rrrr/gggg/bbbb` with the query's terminator.
fn color_reply(st: &mut State, prefix: &str, rgb: Rgb, terminator: &[u8]) {
    let mut reply = format!("\x1b]{prefix};{}", rgb.to_xparse()).into_bytes();
    reply.extend_from_slice(terminator);
    st.reply(&reply);
}

fn number(bytes: &[u8]) -> Option<usize> {
    std::str::from_utf8(bytes).ok()?.parse().ok()
}

/// OSC 4 ; index ; spec ... : 0..255 the palette, 256..260 the special colours (as xterm
/// numbers them). `?` queries, anything else sets; a spec that does not parse is
/// skipped.
fn palette_ops(st: &mut State, pairs: &[&[u8]], terminator: &[u8]) {
    for pair in pairs.chunks(2) {
        let [index, spec] = pair else { return };
        let Some(i) = number(index).filter(|i| *i < 256 + SPECIAL_COLORS) else {
            continue;
        };
        if *spec == b"?" {
            let rgb = match u8::try_from(i) {
                Ok(i) => Some(st.palette.indexed(i)),
                Err(_) => st.palette.special(i - 256),
            };
            if let Some(rgb) = rgb {
                color_reply(st, &format!("4;{i}"), rgb, terminator);
            }
        } else if let Some(rgb) = std::str::from_utf8(spec).ok().and_then(Rgb::parse) {
            match u8::try_from(i) {
                Ok(i) => st.palette.set_indexed(i, Some(rgb)),
                Err(_) => {
                    st.palette.set_special(i - 256, Some(rgb));
                }
            }
            st.damage.mark_all();
        }
    }
}

/// OSC 5 ; c ; spec ... : the special colours (0 bold, 1 underline, 2 blink, 3 reverse,
/// 4 italic), queried or set. Unset they are the text colour, which is how tern draws
/// them (and what xterm reports with its default resources).
fn special_color_ops(st: &mut State, pairs: &[&[u8]], terminator: &[u8]) {
    for pair in pairs.chunks(2) {
        let [index, spec] = pair else { return };
        let Some(i) = number(index) else { continue };
        if *spec == b"?" {
            if let Some(rgb) = st.palette.special(i) {
                color_reply(st, &format!("5;{i}"), rgb, terminator);
            }
        } else if let Some(rgb) = std::str::from_utf8(spec).ok().and_then(Rgb::parse) {
            st.palette.set_special(i, Some(rgb));
        }
    }
}

/// OSC 104 (`special` false) and OSC 105 (`special` true): reset the listed colours, or
/// with no list all of them. OSC 104 numbers the special colours 256..260, as OSC 4.
fn reset_colors(st: &mut State, list: &[&[u8]], special: bool) {
    let all = list.iter().all(|p| p.is_empty());
    if all {
        if special {
            for i in 0..SPECIAL_COLORS {
                st.palette.set_special(i, None);
            }
        } else {
            st.palette.reset_all_indexed();
        }
    }
    for i in list.iter().filter_map(|p| number(p)) {
        match (special, u8::try_from(i)) {
            (true, _) => {
                st.palette.set_special(i, None);
            }
            (false, Ok(i)) => st.palette.set_indexed(i, None),
            (false, Err(_)) => {
                st.palette.set_special(i.wrapping_sub(256), None);
            }
        }
    }
    st.damage.mark_all();
}

/// OSC 10..19: set or query the text, background and cursor colours (10, 11, 12), the
/// pointer colours (13, 14), the Tektronix colours (15, 16, 18) and the highlight
/// colours (17, 19). The window draws with 10, 11 and 12.
fn dynamic_color(st: &mut State, which: u16, spec: &[u8], terminator: &[u8]) {
    if spec == b"?" {
        if let Some(rgb) = st.palette.dynamic(which) {
            color_reply(st, &which.to_string(), rgb, terminator);
        }
        return;
    }
    let Some(rgb) = std::str::from_utf8(spec).ok().and_then(Rgb::parse) else {
        return;
    };
    st.palette.set_dynamic(which, Some(rgb));
    st.damage.mark_all();
}

/// Whether an OSC 7 host names this machine: empty, `localhost`, or its host name.
fn is_local_host(host: &str) -> bool {
    if host.is_empty() || host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    let uname = rustix::system::uname();
    let name = uname.nodename().to_string_lossy();
    host.eq_ignore_ascii_case(&name)
        || name
            .split('.')
            .next()
            .is_some_and(|short| host.eq_ignore_ascii_case(short))
}

/// OSC 7: `file://host/path` with percent-encoding. A path on another host (a shell
/// over ssh) is not a local folder: it is kept as a remote hint only.
fn set_cwd(st: &mut State, uri: &str) {
    let Some(rest) = uri.strip_prefix("file://") else {
        return;
    };
    let (host, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => return,
    };
    let bytes = percent_decode(path.as_bytes());
    let path = String::from_utf8_lossy(&bytes).into_owned();
    if path.len() > super::MAX_URI_BYTES || host.len() > 255 {
        return;
    }
    if st.config.far_side || !is_local_host(host) {
        st.remote_cwd = Some((host.to_owned(), path));
        return;
    }
    st.remote_cwd = None;
    if st.cwd.as_deref() != Some(path.as_str()) {
        st.cwd = Some(path.clone());
        st.events.push(TermEvent::Cwd(path));
    }
}

/// A command line as facts carry it: at most [`MAX_COMMAND_BYTES`], cut at a
/// character boundary.
fn cap_command(text: &str) -> String {
    if text.len() <= MAX_COMMAND_BYTES {
        return text.to_owned();
    }
    let mut end = MAX_COMMAND_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

/// The most of a command line kept (the rest of a huge paste is not a name).
pub const MAX_COMMAND_BYTES: usize = 1024;

fn percent_decode(input: &[u8]) -> Vec<u8> {
    percent_encoding::percent_decode(input).collect()
}

/// OSC 8 ; params ; uri — an empty uri ends the link.
fn hyperlink(st: &mut State, params: &[&[u8]]) {
    if params.len() < 3 {
        st.pen.hyperlink = None;
        st.pen_changed();
        return;
    }
    let uri = joined(params, 2);
    if uri.is_empty() {
        st.pen.hyperlink = None;
    } else {
        let link_params = text(params[1]);
        let id = link_params.split(':').find_map(|kv| kv.strip_prefix("id="));
        st.pen.hyperlink = st.intern_hyperlink(id, &uri);
    }
    st.pen_changed();
}

fn clipboard(st: &mut State, params: &[&[u8]]) {
    let (Some(selection), Some(data)) = (params.get(1), params.get(2)) else {
        return;
    };
    let selection = text(selection);
    let request = if *data == b"?" {
        ClipboardRequest::Read { selection }
    } else {
        ClipboardRequest::Write {
            selection,
            base64: text(data),
        }
    };
    st.events.push(TermEvent::Clipboard(request));
}

/// OSC 133: FinalTerm / iTerm2 shell integration marks.
fn shell_mark(st: &mut State, params: &[&[u8]]) {
    let Some(kind) = params.get(1) else { return };
    let line = st.absolute_cursor_line();
    let mark = match kind.first() {
        Some(b'A') => {
            st.input_start = None;
            st.output_start = None;
            ShellMark::PromptStart
        }
        Some(b'B') => {
            st.input_start = Some((line, st.cursor.col));
            ShellMark::CommandStart
        }
        Some(b'C') => {
            // The command line: as the shell says it (kitty's `cmdline=` and
            // `cmdline_url=`), else the text typed between the prompt's end and here.
            let said = params[2..].iter().find_map(|p| {
                p.strip_prefix(b"cmdline_url=")
                    .map(percent_decode)
                    .or_else(|| p.strip_prefix(b"cmdline=").map(<[u8]>::to_vec))
            });
            let text = match said {
                Some(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
                None => st.input_text(),
            };
            st.input_start = None;
            st.output_start = Some(line);
            if let Some(text) = text.map(|t| cap_command(t.trim()))
                && !text.is_empty()
            {
                st.events.push(TermEvent::Command(text));
            }
            ShellMark::CommandExecuted
        }
        Some(b'D') => {
            let exit = params
                .get(2)
                .and_then(|p| std::str::from_utf8(p).ok())
                .and_then(|s| s.parse::<i32>().ok());
            ShellMark::CommandFinished { exit_code: exit }
        }
        _ => return,
    };
    st.events.push(TermEvent::Shell { mark, line });
}
