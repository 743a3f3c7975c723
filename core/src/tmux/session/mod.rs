//! [`ControlSession`]: one control-mode client's view of a tmux session.
//!
//! It owns no thread and no transport. Its owner reads tmux's bytes from wherever they
//! come (a local `tmux -C` child's stdout, later `ssh`'s) and hands them to
//! [`ControlSession::feed`]; commands go out through the writer it was given. What
//! it keeps: the windows (index, name, layout, active pane), the panes (window,
//! paused), the session's id and name, the commands waiting for their replies.
//!
//! **Pane output** goes to that pane's own [`PaneSink`], made by the factory the
//! session was given when the pane first appears in a layout, so each pane's bytes
//! can go through tern's model exactly like a pty's.
//!
//! **Nothing is asked before the client is attached.** tmux may run a control client's
//! first lines before the command it was started with attaches it, and then
//! `refresh-client` fails with "no current client" (seen with tmux 3.3a on a loaded
//! machine): the configured flags and size go out at the first `%session-changed`,
//! before the window list.
//!
//! **What tmux says is authoritative.** The window list is learnt with `list-windows`
//! (sent once tmux says the client is attached — `%session-changed` — and again when a
//! window appears that the session has not seen or the attached session changes; tmux
//! may run a control client's first lines before the command it was started with, and
//! output a pane makes before the client is attached never reaches the client, so a
//! screen read then would miss it); panes are the leaves of the windows' layouts, from
//! those replies and from `%layout-change`. Output can arrive before the layout that
//! names its pane (tmux sends `%output` for a new window's pane before anything else
//! about it), so output for a pane not known yet is held (at most
//! [`MAX_HELD_BYTES`]) until the next `list-windows` reply: then it goes to the pane's
//! sink, in order, or, if tmux does not list that pane, is dropped with
//! [`SessionError::UnknownPane`]. A `list-windows` reply that arrives after the line
//! that raised the question was run after it, so one request in flight answers every
//! question raised while it is out.
//!
//! **Replies** are matched to commands in order (tmux runs a client's commands one
//! after another and answers each with one block); blocks with flags 0 (the command
//! tmux was started with) belong to no command of ours and are skipped.

use std::collections::{BTreeMap, VecDeque};
use std::io::Write;

use super::command::{Command, WindowInfo};
pub use super::events::{
    CommandId, Event, MAX_HELD_BYTES, ReplyError, Response, SendError, SessionError,
};
use super::events::{ReplyKind, parse_response};
use super::layout::Layout;
use super::parser::{Message, Notification, Parser, ReplyBlock};
use super::{SessionId, TmuxPaneId, WindowId};

mod replies;

/// What one held pane costs besides its bytes, in the count against
/// [`MAX_HELD_BYTES`].
const HELD_ENTRY_BYTES: usize = 64;

/// Where a pane's decoded output goes.
pub trait PaneSink: Send {
    fn output(&mut self, bytes: &[u8]);
}

impl<F: FnMut(&[u8]) + Send> PaneSink for F {
    fn output(&mut self, bytes: &[u8]) {
        self(bytes)
    }
}

/// Makes the sink of a pane when it first appears.
pub type SinkFactory = Box<dyn FnMut(TmuxPaneId) -> Box<dyn PaneSink> + Send>;

/// What the session asks of tmux when it starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionConfig {
    /// `refresh-client -f pause-after=N`: tmux pauses a pane whose output is this
    /// many seconds behind (and sends `%extended-output`).
    pub pause_after_secs: Option<u32>,
    /// `refresh-client -C COLSxROWS`: the size this client gives its windows.
    pub size: Option<(u16, u16)>,
}

/// A window as the session knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowState {
    pub id: WindowId,
    /// Unknown until `list-windows` answers.
    pub index: Option<u32>,
    pub name: String,
    /// Unknown for a window just added, until its layout arrives.
    pub layout: Option<Layout>,
    /// What is shown (only the zoomed pane while one is zoomed).
    pub visible_layout: Option<Layout>,
    pub active_pane: Option<TmuxPaneId>,
}

/// A pane as the session knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaneState {
    pub id: TmuxPaneId,
    pub window: WindowId,
    /// tmux sends none of its output until continued.
    pub paused: bool,
}

struct PaneEntry {
    state: PaneState,
    sink: Box<dyn PaneSink>,
}

#[derive(Default)]
struct Held {
    bytes: Vec<u8>,
    dropped: usize,
}

struct Pending {
    id: CommandId,
    kind: ReplyKind,
    /// Sent by the session for itself (this command line): no [`Event::Reply`].
    internal: Option<String>,
    /// The first of commands sent on one line ([`ControlSession::send_together`]):
    /// when it fails tmux runs none after it, so the next one fails with it.
    then_next: bool,
}

/// How a command's reply is parsed.
fn reply_kind(command: &Command) -> ReplyKind {
    match command {
        Command::CapturePane { .. } => ReplyKind::Screen,
        Command::ListWindows => ReplyKind::Windows,
        Command::ListPanes { .. } => ReplyKind::Panes,
        Command::SplitWindow { .. } => ReplyKind::NewPane,
        Command::NewWindow { .. } => ReplyKind::NewWindow,
        _ => ReplyKind::Done,
    }
}

/// One control-mode client. See the module documentation.
pub struct ControlSession {
    parser: Parser,
    writer: Box<dyn Write + Send>,
    sinks: SinkFactory,
    pending: VecDeque<Pending>,
    next_id: u64,
    windows: BTreeMap<WindowId, WindowState>,
    panes: BTreeMap<TmuxPaneId, PaneEntry>,
    held: BTreeMap<TmuxPaneId, Held>,
    /// What `held` costs against [`MAX_HELD_BYTES`]: every entry's bytes plus
    /// [`HELD_ENTRY_BYTES`], counted when the entry is made.
    held_bytes: usize,
    /// Output for new panes that found no room to be held: (panes, bytes), reported
    /// once when the held output is released.
    held_refused: (usize, usize),
    syncs_in_flight: usize,
    session: Option<(SessionId, String)>,
    /// The configured flags and size, sent once the client is attached.
    on_attach: Vec<Command>,
    active_window: Option<WindowId>,
    exit: Option<Option<String>>,
    messages: Vec<Message>,
    /// Parsed and not handled yet (see [`ControlSession::push`]).
    queue: VecDeque<Message>,
}

impl ControlSession {
    /// Starts a session over `writer` (tmux's stdin): the configured flags and size,
    /// then the window list, are asked for once tmux says the client is attached.
    pub fn new(
        writer: Box<dyn Write + Send>,
        config: &SessionConfig,
        sinks: SinkFactory,
    ) -> Result<ControlSession, SendError> {
        let mut session = ControlSession {
            parser: Parser::new(),
            writer,
            sinks,
            pending: VecDeque::new(),
            next_id: 0,
            windows: BTreeMap::new(),
            panes: BTreeMap::new(),
            held: BTreeMap::new(),
            held_bytes: 0,
            held_refused: (0, 0),
            syncs_in_flight: 0,
            session: None,
            on_attach: Vec::new(),
            active_window: None,
            exit: None,
            messages: Vec::new(),
            queue: VecDeque::new(),
        };
        if let Some(seconds) = config.pause_after_secs {
            session.on_attach.push(Command::PauseAfter { seconds });
        }
        if let Some((cols, rows)) = config.size {
            session.on_attach.push(Command::ResizeClient { cols, rows });
        }
        for command in &session.on_attach {
            // Said now rather than when it would be sent.
            command.line().map_err(SendError::Command)?;
        }
        Ok(session)
    }

    /// Sends `command`; its reply comes as an [`Event::Reply`] with the returned id.
    pub fn send(&mut self, command: Command) -> Result<CommandId, SendError> {
        self.write_command(&command, reply_kind(&command), false)
    }

    /// Sends two commands on one line (`A ; B`): tmux runs them back to back, with no
    /// pane output between their replies (two lines may reach tmux in two reads, and
    /// output read between them comes between the replies). Each has its own reply;
    /// when the first fails, tmux runs not the second, and it fails too.
    pub fn send_together(
        &mut self,
        first: Command,
        second: Command,
    ) -> Result<(CommandId, CommandId), SendError> {
        let a = first.line().map_err(SendError::Command)?;
        let b = second.line().map_err(SendError::Command)?;
        self.writer.write_all(format!("{a} ; {b}\n").as_bytes())?;
        self.writer.flush()?;
        let ids = (CommandId(self.next_id), CommandId(self.next_id + 1));
        self.next_id += 2;
        self.pending.push_back(Pending {
            id: ids.0,
            kind: reply_kind(&first),
            internal: None,
            then_next: true,
        });
        self.pending.push_back(Pending {
            id: ids.1,
            kind: reply_kind(&second),
            internal: None,
            then_next: false,
        });
        Ok(ids)
    }

    /// Sends `bytes` to the pane's program, in as many `send-keys` as it takes.
    pub fn send_keys(
        &mut self,
        pane: TmuxPaneId,
        bytes: &[u8],
    ) -> Result<Vec<CommandId>, SendError> {
        Command::send_keys(pane, bytes)
            .into_iter()
            .map(|c| self.send(c))
            .collect()
    }

    /// Parses `bytes` from tmux: output goes to the panes' sinks, the rest comes back
    /// as events (all of the chunk's events after all of its output: an owner that
    /// writes something of its own per event, in order with the output, uses
    /// [`ControlSession::push`] and [`ControlSession::step`]).
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Event> {
        self.push(bytes);
        self.step_all()
    }

    /// Parses `bytes` from tmux; nothing is handled until [`ControlSession::step`].
    pub fn push(&mut self, bytes: &[u8]) {
        self.parser.feed(bytes, &mut self.messages);
        self.queue.extend(self.messages.drain(..));
    }

    /// Handles the next message pushed: output goes to its pane's sink, anything else
    /// comes back as events (often none). `None` when every message is handled. An
    /// owner that writes into a pane's stream on an event (a repaint on a reply) does it
    /// before the next step, so it lands between the output before and after it.
    pub fn step(&mut self) -> Option<Vec<Event>> {
        let message = self.queue.pop_front()?;
        let mut events = Vec::new();
        self.handle_one(message, &mut events);
        Some(events)
    }

    /// The stream ended: what was cut short is reported, commands still waiting get
    /// [`ReplyError::Disconnected`], held output is dropped.
    pub fn finish(&mut self) -> Vec<Event> {
        let mut messages = std::mem::take(&mut self.messages);
        self.parser.finish(&mut messages);
        self.queue.extend(messages.drain(..));
        self.messages = messages;
        let mut events = self.step_all();
        for pending in std::mem::take(&mut self.pending) {
            if pending.internal.is_none() {
                events.push(Event::Reply {
                    id: pending.id,
                    result: Err(ReplyError::Disconnected),
                });
            }
        }
        self.syncs_in_flight = 0;
        self.release_held(&mut events);
        events
    }

    pub fn windows(&self) -> impl Iterator<Item = &WindowState> {
        self.windows.values()
    }

    pub fn window(&self, id: WindowId) -> Option<&WindowState> {
        self.windows.get(&id)
    }

    pub fn panes(&self) -> impl Iterator<Item = &PaneState> {
        self.panes.values().map(|p| &p.state)
    }

    pub fn pane(&self, id: TmuxPaneId) -> Option<&PaneState> {
        self.panes.get(&id).map(|p| &p.state)
    }

    /// The attached session's id and name, once tmux said.
    pub fn session(&self) -> Option<(SessionId, &str)> {
        self.session.as_ref().map(|(id, name)| (*id, name.as_str()))
    }

    pub fn active_window(&self) -> Option<WindowId> {
        self.active_window
    }

    /// `Some(reason)` once tmux sent `%exit`.
    pub fn exit(&self) -> Option<Option<&str>> {
        self.exit.as_ref().map(Option::as_deref)
    }

    /// Output held for panes not known yet: the panes, and the bytes counted against
    /// [`MAX_HELD_BYTES`] (each pane's entry included).
    pub fn held_output(&self) -> (usize, usize) {
        (self.held.len(), self.held_bytes)
    }

    /// Commands sent whose replies have not come (the session's own included).
    pub fn commands_in_flight(&self) -> usize {
        self.pending.len()
    }

    fn send_internal(
        &mut self,
        command: &Command,
        kind: ReplyKind,
    ) -> Result<CommandId, SendError> {
        self.write_command(command, kind, true)
    }

    fn write_command(
        &mut self,
        command: &Command,
        kind: ReplyKind,
        internal: bool,
    ) -> Result<CommandId, SendError> {
        let mut line = command.line().map_err(SendError::Command)?;
        line.push('\n');
        self.writer.write_all(line.as_bytes())?;
        self.writer.flush()?;
        let id = CommandId(self.next_id);
        self.next_id += 1;
        line.pop();
        let internal = internal.then_some(line);
        self.pending.push_back(Pending {
            id,
            kind,
            internal,
            then_next: false,
        });
        Ok(id)
    }

    /// Asks for the window list unless a request is already out (its reply, coming
    /// after whatever raised the question, answers it too).
    fn sync(&mut self) -> Result<(), SendError> {
        if self.syncs_in_flight == 0 {
            self.send_internal(&Command::ListWindows, ReplyKind::Windows)?;
            self.syncs_in_flight += 1;
        }
        Ok(())
    }

    fn request_sync(&mut self, events: &mut Vec<Event>) {
        if let Err(e) = self.sync() {
            events.push(Event::Error(SessionError::OwnCommandFailed {
                command: String::from("list-windows"),
                message: e.to_string(),
            }));
        }
    }

    /// Every message pushed, handled; their events in order.
    fn step_all(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        while let Some(message) = self.queue.pop_front() {
            self.handle_one(message, &mut events);
        }
        events
    }

    fn handle_one(&mut self, message: Message, events: &mut Vec<Event>) {
        match message {
            Message::Output { pane, data, .. } => self.output(pane, &data, events),
            Message::Notification(n) => self.notification(n, events),
            Message::Reply(block) => self.reply(block, events),
            Message::Error(e) => events.push(Event::Error(SessionError::Protocol(e))),
        }
    }

    fn output(&mut self, pane: TmuxPaneId, data: &[u8], events: &mut Vec<Event>) {
        if let Some(entry) = self.panes.get_mut(&pane) {
            entry.sink.output(data);
            return;
        }
        match self.held.get_mut(&pane) {
            Some(held) if self.held_bytes + data.len() > MAX_HELD_BYTES => {
                held.dropped += data.len();
            }
            Some(held) => {
                held.bytes.extend_from_slice(data);
                self.held_bytes += data.len();
            }
            // A pane not seen yet costs its entry too, counted when it is made; with no
            // room for that, nothing is made (a host naming a new pane on every line
            // would otherwise grow the map without bound).
            None if self.held_bytes + HELD_ENTRY_BYTES + data.len() > MAX_HELD_BYTES => {
                self.held_refused.0 += 1;
                self.held_refused.1 += data.len();
            }
            None => {
                self.held.insert(
                    pane,
                    Held {
                        bytes: data.to_vec(),
                        dropped: 0,
                    },
                );
                self.held_bytes += HELD_ENTRY_BYTES + data.len();
            }
        }
        self.request_sync(events);
    }

    fn notification(&mut self, n: Notification, events: &mut Vec<Event>) {
        match n {
            Notification::Pause(pane) | Notification::Continue(pane) => {
                let paused = matches!(n, Notification::Pause(_));
                if let Some(entry) = self.panes.get_mut(&pane) {
                    entry.state.paused = paused;
                }
                events.push(if paused {
                    Event::PanePaused(pane)
                } else {
                    Event::PaneContinued(pane)
                });
            }
            Notification::PaneModeChanged(pane) => events.push(Event::PaneModeChanged(pane)),
            Notification::WindowAdd(window) => {
                self.add_window(window, events);
                self.request_sync(events);
            }
            // tmux 3.3a says `%unlinked-window-close` for a window of the attached
            // session killed by another client (it is unlinked by the time it tells):
            // a window this session knows is closed either way.
            Notification::WindowClose(window) | Notification::UnlinkedWindowClose(window) => {
                if self.windows.remove(&window).is_some() {
                    events.push(Event::WindowClosed(window));
                    self.update_panes(events);
                }
            }
            Notification::WindowRenamed { window, name } => {
                if let Some(w) = self.windows.get_mut(&window) {
                    w.name.clone_from(&name);
                }
                events.push(Event::WindowRenamed { window, name });
            }
            Notification::LayoutChange {
                window,
                layout,
                visible_layout,
                ..
            } => {
                if !self.windows.contains_key(&window) {
                    self.add_window(window, events);
                    self.request_sync(events);
                }
                if let Some(w) = self.windows.get_mut(&window) {
                    w.visible_layout = Some(visible_layout.unwrap_or_else(|| layout.clone()));
                    w.layout = Some(layout);
                }
                events.push(Event::LayoutChanged(window));
                self.update_panes(events);
            }
            Notification::WindowPaneChanged { window, pane } => {
                if let Some(w) = self.windows.get_mut(&window) {
                    w.active_pane = Some(pane);
                    events.push(Event::ActivePaneChanged { window, pane });
                }
            }
            Notification::SessionWindowChanged { session, window } => {
                if self.session.as_ref().is_some_and(|(id, _)| *id == session) {
                    self.active_window = Some(window);
                    events.push(Event::ActiveWindowChanged(window));
                }
            }
            Notification::SessionChanged { session, name } => {
                let changed = self.session.as_ref().is_none_or(|(id, _)| *id != session);
                self.session = Some((session, name.clone()));
                events.push(Event::SessionChanged { session, name });
                for command in std::mem::take(&mut self.on_attach) {
                    if let Err(e) = self.send_internal(&command, ReplyKind::Done) {
                        events.push(Event::Error(SessionError::OwnCommandFailed {
                            command: command.line().unwrap_or_default(),
                            message: e.to_string(),
                        }));
                    }
                }
                if changed {
                    self.request_sync(events);
                }
            }
            Notification::SessionRenamed { session, name } => {
                if let Some((id, current)) = &mut self.session {
                    if session.is_none_or(|s| s == *id) {
                        current.clone_from(&name);
                    }
                }
                events.push(Event::Other(Notification::SessionRenamed { session, name }));
            }
            Notification::SessionsChanged => events.push(Event::SessionsChanged),
            Notification::ClientDetached { client } => {
                events.push(Event::ClientDetached { client })
            }
            Notification::Exit { reason } => {
                self.exit = Some(reason.clone());
                events.push(Event::Exit { reason });
            }
            other => events.push(Event::Other(other)),
        }
    }

    fn add_window(&mut self, window: WindowId, events: &mut Vec<Event>) {
        if self.windows.contains_key(&window) {
            return;
        }
        self.windows.insert(
            window,
            WindowState {
                id: window,
                index: None,
                name: String::new(),
                layout: None,
                visible_layout: None,
                active_pane: None,
            },
        );
        events.push(Event::WindowAdded(window));
    }
}
