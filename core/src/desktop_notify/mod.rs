//! Desktop notifications on the freedesktop session bus
//! (`org.freedesktop.Notifications.Notify`, through `zbus`), sent from a thread of
//! their own so the UI never waits on the bus. Connecting happens on the first
//! notification; no session bus (or no notification server) is reported once as an
//! [`DesktopEvent::Unavailable`] (the app leaves a breadcrumb), never a hang or a
//! dialog. Where the server supports actions, a click comes back as
//! [`DesktopEvent::Clicked`] with the pane it was about.
//!
//! **Coalesced, never lost.** Each pane shows one notification per interval
//! (`notify.min_interval_ms`): a later one inside the interval replaces it on the
//! desktop (`replaces_id`), newest text first, with a count ("3 messages"). Requests
//! wait in a map of one entry per pane, merged while the sender thread is busy on the
//! bus, and a pane is updated at most once per interval ([`pacer`]): what arrives in
//! between is held, merged, and goes out as one replacement when the interval ends, so
//! a program printing OSC 9 in a loop costs one bus call per interval, and the newest
//! text always arrives. [`DesktopNotifier::calls`] counts the calls made (the
//! diagnostics panel shows it).
//!
//! **Bounded for all panes too.** At most [`GLOBAL_NEW_NOTIFICATIONS`] new
//! notifications appear per [`GLOBAL_WINDOW`], whatever the number of panes; past that,
//! one shared notification ("N more notifications") stands for the rest, replaced in
//! place. Summaries and bodies lose control and bidi characters
//! ([`crate::model::notify::sanitize`]), and a summary's markup characters become
//! look-alikes ([`plain_summary`]): the summary is a program-set tab title.

mod pacer;
mod sender;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use pacer::GLOBAL_CALLS_PER_SECOND;
use sender::{Shared, sender_thread};

use crate::model::notify::Urgency;

/// One notification for the desktop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DesktopRequest {
    /// The pane it is about (returned by a click).
    pub pane: u64,
    pub summary: String,
    pub body: String,
    pub urgency: Urgency,
}

/// What the sender thread reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DesktopEvent {
    /// The server took the notification (its id).
    Sent { pane: u64, id: u32 },
    /// The user clicked the notification of this pane.
    Clicked { pane: u64 },
    /// No session bus or no notification server: notifications are off (once).
    Unavailable(String),
    /// One call failed.
    Failed(String),
}

/// What the sender thread does with a pane's newest request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    /// The notification on the desktop this one replaces (0: a new one).
    pub replaces_id: u32,
    pub body: String,
    /// Over the global limit: this is the shared notification (summary "tern"), and
    /// its id is recorded with [`Coalescer::sent`] under [`OVERFLOW_KEY`].
    pub overflow: bool,
}

/// New notifications (not replacements) shown per [`GLOBAL_WINDOW`] for all panes
/// together.
pub const GLOBAL_NEW_NOTIFICATIONS: u32 = 8;
/// The window of [`GLOBAL_NEW_NOTIFICATIONS`].
pub const GLOBAL_WINDOW: Duration = Duration::from_secs(10);
/// The key of the shared notification in [`Coalescer::sent`].
pub const OVERFLOW_KEY: u64 = u64::MAX;

/// A program-set text as a notification's summary: control and bidi characters
/// dropped, and `<`, `>`, `&` turned into look-alikes (‹ › ＆), since some servers
/// read markup in the summary though the specification says it is plain text.
pub fn plain_summary(text: &str) -> String {
    crate::model::notify::sanitize(text)
        .chars()
        .map(|c| match c {
            '<' => '‹',
            '>' => '›',
            '&' => '＆',
            c => c,
        })
        .collect()
}

/// Decides, per pane, whether a notification is a new one or replaces the one shown
/// this interval, and counts the messages it stands for. Pure: the sender thread
/// feeds it the clock and the ids the server returns.
#[derive(Debug)]
pub struct Coalescer {
    interval: Duration,
    /// The pane's notification on the desktop: its id, when the interval began, and
    /// how many messages it stands for.
    shown: HashMap<u64, (u32, Instant, u32)>,
    /// When the current [`GLOBAL_WINDOW`] began and the new notifications shown in it.
    window: Option<(Instant, u32)>,
}

impl Coalescer {
    pub fn new(interval: Duration) -> Coalescer {
        Coalescer {
            interval,
            shown: HashMap::new(),
            window: None,
        }
    }

    /// The newest of `messages` requests from `pane` (merged while waiting).
    pub fn next(&mut self, pane: u64, body: &str, messages: u32, now: Instant) -> Outgoing {
        let replaces = self
            .shown
            .get(&pane)
            .is_some_and(|(_, began, _)| now.saturating_duration_since(*began) < self.interval);
        if !replaces && !self.take_new(now) {
            return self.overflow(messages, now);
        }
        let (replaces_id, total) = match self.shown.get_mut(&pane) {
            Some((id, _, count)) if replaces => {
                *count = count.saturating_add(messages);
                (*id, *count)
            }
            _ => {
                self.shown.insert(pane, (0, now, messages));
                (0, messages)
            }
        };
        let body = if total > 1 {
            format!("{body} ({total} messages)")
        } else {
            body.to_owned()
        };
        Outgoing {
            replaces_id,
            body,
            overflow: false,
        }
    }

    /// Whether a new notification fits in the global window (counting it if so).
    fn take_new(&mut self, now: Instant) -> bool {
        let (began, shown) = match self.window {
            Some((began, shown)) if now.saturating_duration_since(began) < GLOBAL_WINDOW => {
                (began, shown)
            }
            _ => (now, 0),
        };
        let fits = shown < GLOBAL_NEW_NOTIFICATIONS;
        self.window = Some((began, shown + u32::from(fits)));
        fits
    }

    /// The shared notification that stands for those over the global limit: replaced
    /// in place while the window lasts, with a count.
    fn overflow(&mut self, messages: u32, now: Instant) -> Outgoing {
        let window_began = self.window.map_or(now, |(began, _)| began);
        let (replaces_id, total) = match self.shown.get_mut(&OVERFLOW_KEY) {
            Some((id, began, count)) if *began >= window_began => {
                *count = count.saturating_add(messages);
                (*id, *count)
            }
            _ => {
                self.shown.insert(OVERFLOW_KEY, (0, now, messages));
                (0, messages)
            }
        };
        Outgoing {
            replaces_id,
            body: format!("{total} more notifications (too many at once)"),
            overflow: true,
        }
    }

    /// The newest of `messages` requests from `pane` that waited for the pane's
    /// interval to end ([`pacer`]): it replaces the pane's notification on the desktop
    /// with the count of all, and a new interval begins.
    pub fn next_held(&mut self, pane: u64, body: &str, messages: u32, now: Instant) -> Outgoing {
        let Some((id, began, count)) = self.shown.get_mut(&pane) else {
            return self.next(pane, body, messages, now);
        };
        *count = count.saturating_add(messages);
        *began = now;
        let body = if *count > 1 {
            format!("{body} ({count} messages)")
        } else {
            body.to_owned()
        };
        Outgoing {
            replaces_id: *id,
            body,
            overflow: false,
        }
    }

    /// The server showed the pane's notification as `id`.
    pub fn sent(&mut self, pane: u64, id: u32) {
        if let Some(entry) = self.shown.get_mut(&pane) {
            entry.0 = id;
        }
    }

    /// A closed pane's entry goes (memory stays bounded by the panes that exist).
    pub fn forget(&mut self, pane: u64) {
        self.shown.remove(&pane);
    }
}

/// Panes with a request waiting at most (a flood of new panes beyond it is dropped
/// and counted).
pub const MAX_WAITING_PANES: usize = 1024;

/// What the UI hands the sender thread: the newest request per pane and how many it
/// stands for, in the order the panes first asked.
#[derive(Default)]
struct Waiting {
    requests: HashMap<u64, (DesktopRequest, u32)>,
    order: std::collections::VecDeque<u64>,
    interval: Duration,
    forget: Vec<u64>,
}

/// The UI's handle: queue requests, read events.
pub struct DesktopNotifier {
    /// Wakes the sender thread (a token; one waiting is enough).
    wake: Option<SyncSender<()>>,
    waiting: Arc<Mutex<Waiting>>,
    events: Receiver<DesktopEvent>,
    events_tx: mpsc::Sender<DesktopEvent>,
    waker: Arc<dyn Fn() + Send + Sync>,
    app_name: String,
    /// Requests dropped because [`MAX_WAITING_PANES`] panes were already waiting.
    pub dropped: u64,
    /// Calls made to the notification server.
    calls: Arc<AtomicU64>,
}

impl DesktopNotifier {
    /// `waker` is called when an event is ready (the app's repaint request).
    pub fn new(
        app_name: &str,
        interval: Duration,
        waker: Arc<dyn Fn() + Send + Sync>,
    ) -> DesktopNotifier {
        let (events_tx, events) = mpsc::channel();
        DesktopNotifier {
            wake: None,
            waiting: Arc::new(Mutex::new(Waiting {
                interval,
                ..Waiting::default()
            })),
            events,
            events_tx,
            waker,
            app_name: app_name.to_owned(),
            dropped: 0,
            calls: Arc::default(),
        }
    }

    /// How many calls were made to the notification server (each one a notification
    /// shown or replaced on the desktop).
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }

    /// The interval within which a pane's notifications replace each other.
    pub fn set_interval(&self, interval: Duration) {
        if let Ok(mut w) = self.waiting.lock() {
            w.interval = interval;
        }
    }

    /// A closed pane: its entries go.
    pub fn forget(&self, pane: u64) {
        if let Ok(mut w) = self.waiting.lock() {
            w.requests.remove(&pane);
            w.order.retain(|p| *p != pane);
            if w.forget.len() < MAX_WAITING_PANES {
                w.forget.push(pane);
            }
        }
    }

    /// Queues a notification: merged into the pane's waiting one if the sender thread
    /// has not taken that yet (the newest text wins, the count grows). Returns whether
    /// it was queued. The thread starts with the first one.
    pub fn notify(&mut self, request: DesktopRequest, now: Instant) -> bool {
        self.notify_count(request, 1, now)
    }

    /// [`Self::notify`] for a request that stands for `count` notifications (those
    /// merged before it, in the same read).
    pub fn notify_count(&mut self, mut request: DesktopRequest, count: u32, _now: Instant) -> bool {
        let count = count.max(1);
        request.summary = plain_summary(&request.summary);
        request.body = crate::model::notify::sanitize(&request.body);
        let queued = match self.waiting.lock() {
            Ok(mut w) => {
                let pane = request.pane;
                if let Some((req, merged)) = w.requests.get_mut(&pane) {
                    *req = request;
                    *merged = merged.saturating_add(count);
                    true
                } else if w.requests.len() < MAX_WAITING_PANES {
                    w.requests.insert(pane, (request, count));
                    w.order.push_back(pane);
                    true
                } else {
                    false
                }
            }
            Err(_) => false,
        };
        if !queued {
            self.dropped += 1;
            return false;
        }
        let wake = match &self.wake {
            Some(wake) => wake.clone(),
            None => {
                let (wake, woken) = mpsc::sync_channel(1);
                let events = self.events_tx.clone();
                let waker = self.waker.clone();
                let name = self.app_name.clone();
                let waiting = self.waiting.clone();
                let calls = self.calls.clone();
                let started = std::thread::Builder::new()
                    .name("tern-notify".into())
                    .spawn(move || {
                        let shared = Shared {
                            waiting,
                            events,
                            waker,
                            calls,
                        };
                        sender_thread(&name, woken, shared)
                    });
                if let Err(e) = started {
                    let _ = self.events_tx.send(DesktopEvent::Unavailable(format!(
                        "no notifier thread: {e}"
                    )));
                    return false;
                }
                self.wake = Some(wake.clone());
                wake
            }
        };
        // Full: a wake-up is already on its way, and it takes what is waiting.
        let _ = wake.try_send(());
        true
    }

    /// Events since the last call.
    pub fn poll(&self) -> Vec<DesktopEvent> {
        let mut out = Vec::new();
        loop {
            match self.events.try_recv() {
                Ok(e) => out.push(e),
                Err(TryRecvError::Empty) | Err(TryRecvError::Disconnected) => return out,
            }
        }
    }
}

/// Takes every waiting request (oldest pane first), the interval and the panes to
/// forget.
fn take_waiting(waiting: &Mutex<Waiting>) -> (Vec<(DesktopRequest, u32)>, Duration, Vec<u64>) {
    let Ok(mut w) = waiting.lock() else {
        return (Vec::new(), Duration::ZERO, Vec::new());
    };
    let order = std::mem::take(&mut w.order);
    let mut requests = std::mem::take(&mut w.requests);
    let batch = order
        .into_iter()
        .filter_map(|pane| requests.remove(&pane))
        .collect();
    (batch, w.interval, std::mem::take(&mut w.forget))
}

/// Escapes the markup a server with `body-markup` would interpret.
fn escape_markup(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests;
