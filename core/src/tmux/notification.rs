//! Notification lines: what they mean and how their arguments parse.

use super::layout::Layout;
use super::protocol_error::ProtocolError;
use super::{SessionId, TmuxPaneId, WindowId};

/// A notification line (never inside a reply, except `%pause`/`%continue`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notification {
    /// `%pause %P`: tmux stopped sending the pane's output (pause-after).
    Pause(TmuxPaneId),
    /// `%continue %P`: it sends it again.
    Continue(TmuxPaneId),
    /// `%pane-mode-changed %P` (copy mode and the like entered or left).
    PaneModeChanged(TmuxPaneId),
    WindowAdd(WindowId),
    WindowClose(WindowId),
    WindowRenamed {
        window: WindowId,
        name: String,
    },
    /// The `%unlinked-window-*` forms: a window of another session.
    UnlinkedWindowAdd(WindowId),
    UnlinkedWindowClose(WindowId),
    UnlinkedWindowRenamed {
        window: WindowId,
        name: String,
    },
    /// `%layout-change @W LAYOUT [VISIBLE_LAYOUT [FLAGS]]` (older tmux writes only the
    /// first two).
    LayoutChange {
        window: WindowId,
        layout: Layout,
        /// What is shown (differs from `layout` while a pane is zoomed).
        visible_layout: Option<Layout>,
        flags: Option<String>,
    },
    /// `%window-pane-changed @W %P`: the window's active pane.
    WindowPaneChanged {
        window: WindowId,
        pane: TmuxPaneId,
    },
    /// `%session-changed $S NAME`: this client now shows that session.
    SessionChanged {
        session: SessionId,
        name: String,
    },
    /// `%client-session-changed CLIENT $S NAME`: another client did.
    ClientSessionChanged {
        client: String,
        session: SessionId,
        name: String,
    },
    /// `%session-renamed [$S] NAME`.
    SessionRenamed {
        session: Option<SessionId>,
        name: String,
    },
    /// `%session-window-changed $S @W`: the session's current window.
    SessionWindowChanged {
        session: SessionId,
        window: WindowId,
    },
    /// `%sessions-changed`: a session was created or destroyed.
    SessionsChanged,
    /// `%client-detached CLIENT`.
    ClientDetached {
        client: String,
    },
    /// `%exit [REASON]`: the control client is exiting.
    Exit {
        reason: Option<String>,
    },
    /// A `%` line this parser does not know (newer tmux); kept, lossy UTF-8.
    Unknown {
        line: String,
    },
}

/// `Ok(None)`: not a notification this parser knows. `Err(None)`: malformed.
pub(super) fn parse_notification(
    word: &[u8],
    args: &[u8],
) -> Result<Option<Notification>, Option<ProtocolError>> {
    let args = String::from_utf8_lossy(args);
    let args = args.as_ref();
    let one = |text: &str| -> Result<(), Option<ProtocolError>> {
        if text.contains(' ') {
            Err(None)
        } else {
            Ok(())
        }
    };
    let pane = |text: &str| one(text).and_then(|()| TmuxPaneId::parse(text).ok_or(None));
    let window = |text: &str| one(text).and_then(|()| WindowId::parse(text).ok_or(None));
    // "ID REST": the id and the rest of the line (a name may hold spaces, or be empty).
    let id_and_rest = |text: &str| -> (String, String) {
        match text.split_once(' ') {
            Some((id, rest)) => (id.to_owned(), rest.to_owned()),
            None => (text.to_owned(), String::new()),
        }
    };
    let n = match word {
        b"%pause" => Notification::Pause(pane(args)?),
        b"%continue" => Notification::Continue(pane(args)?),
        b"%pane-mode-changed" => Notification::PaneModeChanged(pane(args)?),
        b"%window-add" => Notification::WindowAdd(window(args)?),
        b"%window-close" => Notification::WindowClose(window(args)?),
        b"%unlinked-window-add" => Notification::UnlinkedWindowAdd(window(args)?),
        b"%unlinked-window-close" => Notification::UnlinkedWindowClose(window(args)?),
        b"%window-renamed" | b"%unlinked-window-renamed" => {
            let (id, name) = id_and_rest(args);
            let window = WindowId::parse(&id).ok_or(None)?;
            if word == b"%window-renamed" {
                Notification::WindowRenamed { window, name }
            } else {
                Notification::UnlinkedWindowRenamed { window, name }
            }
        }
        b"%layout-change" => {
            let mut words = args.split(' ');
            let window = WindowId::parse(words.next().unwrap_or("")).ok_or(None)?;
            let parse = |text: &str| {
                Layout::parse(text).map_err(|error| {
                    Some(ProtocolError::BadLayout {
                        window,
                        layout: text.to_owned(),
                        error,
                    })
                })
            };
            let layout = parse(words.next().ok_or(None)?)?;
            let visible_layout = words.next().map(parse).transpose()?;
            let flags = words.next().map(str::to_owned);
            if words.next().is_some() {
                return Err(None);
            }
            Notification::LayoutChange {
                window,
                layout,
                visible_layout,
                flags,
            }
        }
        b"%window-pane-changed" => {
            let (w, p) = args.split_once(' ').ok_or(None)?;
            Notification::WindowPaneChanged {
                window: window(w)?,
                pane: pane(p)?,
            }
        }
        b"%session-changed" => {
            let (id, name) = id_and_rest(args);
            Notification::SessionChanged {
                session: SessionId::parse(&id).ok_or(None)?,
                name,
            }
        }
        b"%client-session-changed" => {
            let (client, rest) = args.split_once(' ').ok_or(None)?;
            let (id, name) = id_and_rest(rest);
            Notification::ClientSessionChanged {
                client: client.to_owned(),
                session: SessionId::parse(&id).ok_or(None)?,
                name,
            }
        }
        b"%session-renamed" => {
            let (id, name) = id_and_rest(args);
            match SessionId::parse(&id) {
                Some(session) => Notification::SessionRenamed {
                    session: Some(session),
                    name,
                },
                None => Notification::SessionRenamed {
                    session: None,
                    name: args.to_owned(),
                },
            }
        }
        b"%session-window-changed" => {
            let (s, w) = args.split_once(' ').ok_or(None)?;
            Notification::SessionWindowChanged {
                session: SessionId::parse(s).ok_or(None)?,
                window: window(w)?,
            }
        }
        b"%sessions-changed" => {
            if !args.is_empty() {
                return Err(None);
            }
            Notification::SessionsChanged
        }
        b"%client-detached" => Notification::ClientDetached {
            client: args.to_owned(),
        },
        b"%exit" => Notification::Exit {
            reason: (!args.is_empty()).then(|| args.to_owned()),
        },
        _ => return Ok(None),
    };
    Ok(Some(n))
}
