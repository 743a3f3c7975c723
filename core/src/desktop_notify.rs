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
//! bus, so a program printing OSC 9 in a loop costs one bus call per round trip, not
//! one per notification, and the newest text always arrives. No timer holds anything
//! back.
//!
//! **Bounded for all panes too.** At most [`GLOBAL_NEW_NOTIFICATIONS`] new
//! notifications appear per [`GLOBAL_WINDOW`], whatever the number of panes; past that,
//! one shared notification ("N more notifications") stands for the rest, replaced in
//! place. Summaries and bodies lose control and bidi characters
//! ([`crate::model::notify::sanitize`]), and a summary's markup characters become
//! look-alikes ([`plain_summary`]): the summary is a program-set tab title.

use std::collections::HashMap;
use std::sync::mpsc::{self, Receiver, SyncSender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
        }
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
    pub fn notify(&mut self, mut request: DesktopRequest, _now: Instant) -> bool {
        request.summary = plain_summary(&request.summary);
        request.body = crate::model::notify::sanitize(&request.body);
        let queued = match self.waiting.lock() {
            Ok(mut w) => {
                let pane = request.pane;
                if let Some((req, count)) = w.requests.get_mut(&pane) {
                    *req = request;
                    *count = count.saturating_add(1);
                    true
                } else if w.requests.len() < MAX_WAITING_PANES {
                    w.requests.insert(pane, (request, 1));
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
                let started = std::thread::Builder::new()
                    .name("tern-notify".into())
                    .spawn(move || sender_thread(&name, woken, waiting, events, waker));
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

const BUS_NAME: &str = "org.freedesktop.Notifications";
const PATH: &str = "/org/freedesktop/Notifications";

/// Escapes the markup a server with `body-markup` would interpret.
fn escape_markup(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn sender_thread(
    app_name: &str,
    woken: Receiver<()>,
    waiting: Arc<Mutex<Waiting>>,
    events: mpsc::Sender<DesktopEvent>,
    waker: Arc<dyn Fn() + Send + Sync>,
) {
    let report = |e: DesktopEvent| {
        let _ = events.send(e);
        waker();
    };
    let connected = zbus::blocking::Connection::session().and_then(|conn| {
        let proxy = zbus::blocking::Proxy::new(&conn, BUS_NAME, PATH, BUS_NAME)?;
        Ok((conn, proxy))
    });
    let (conn, proxy) = match connected {
        Ok(c) => c,
        Err(e) => {
            report(DesktopEvent::Unavailable(format!("no session bus: {e}")));
            // Empty the map on every wake so it never holds more than it must; nothing
            // more is tried.
            for () in woken {
                take_waiting(&waiting);
            }
            return;
        }
    };
    let caps: Vec<String> = proxy.call("GetCapabilities", &()).unwrap_or_default();
    let actions = caps.iter().any(|c| c == "actions");
    let markup = caps.iter().any(|c| c == "body-markup");
    let ids: Arc<std::sync::Mutex<HashMap<u32, u64>>> = Arc::default();
    if actions {
        watch_clicks(&conn, ids.clone(), events.clone(), waker.clone());
    }
    let mut unavailable_told = false;
    let mut coalescer = Coalescer::new(Duration::ZERO);
    for () in woken {
        loop {
            let (batch, interval, forget) = take_waiting(&waiting);
            coalescer.interval = interval;
            for pane in forget {
                coalescer.forget(pane);
            }
            if batch.is_empty() {
                break;
            }
            for (req, messages) in batch {
                let out = coalescer.next(req.pane, &req.body, messages, Instant::now());
                let summary = if out.overflow {
                    "tern"
                } else {
                    req.summary.as_str()
                };
                let body = if markup {
                    escape_markup(&out.body)
                } else {
                    out.body.clone()
                };
                let mut hints: HashMap<&str, zbus::zvariant::Value<'_>> = HashMap::new();
                let urgency: u8 = match req.urgency {
                    Urgency::Low => 0,
                    Urgency::Normal => 1,
                    Urgency::Critical => 2,
                };
                hints.insert("urgency", urgency.into());
                hints.insert("desktop-entry", "tern".into());
                let action_list: Vec<&str> = if actions {
                    vec!["default", "Show"]
                } else {
                    Vec::new()
                };
                let sent: zbus::Result<u32> = proxy.call(
                    "Notify",
                    &(
                        app_name,
                        out.replaces_id,
                        "utilities-terminal",
                        summary,
                        body.as_str(),
                        action_list,
                        hints,
                        -1i32,
                    ),
                );
                match sent {
                    Ok(id) => {
                        if let Ok(mut ids) = ids.lock() {
                            // Bounded: only recent ids matter for clicks.
                            if ids.len() > 256 {
                                ids.clear();
                            }
                            ids.insert(id, req.pane);
                        }
                        coalescer.sent(if out.overflow { OVERFLOW_KEY } else { req.pane }, id);
                        report(DesktopEvent::Sent { pane: req.pane, id });
                    }
                    Err(e) if !unavailable_told => {
                        unavailable_told = true;
                        report(DesktopEvent::Failed(format!("Notify failed: {e}")));
                    }
                    Err(_) => {}
                }
            }
        }
    }
}

/// Listens for `ActionInvoked` on its own thread and reports clicks by pane.
fn watch_clicks(
    conn: &zbus::blocking::Connection,
    ids: Arc<std::sync::Mutex<HashMap<u32, u64>>>,
    events: mpsc::Sender<DesktopEvent>,
    waker: Arc<dyn Fn() + Send + Sync>,
) {
    let conn = conn.clone();
    let _ = std::thread::Builder::new()
        .name("tern-notify-clicks".into())
        .spawn(move || {
            let Ok(proxy) = zbus::blocking::Proxy::new(&conn, BUS_NAME, PATH, BUS_NAME) else {
                return;
            };
            let Ok(signals) = proxy.receive_signal("ActionInvoked") else {
                return;
            };
            for msg in signals {
                let Ok((id, _action)) = msg.body().deserialize::<(u32, String)>() else {
                    continue;
                };
                let pane = ids.lock().ok().and_then(|ids| ids.get(&id).copied());
                if let Some(pane) = pane {
                    if events.send(DesktopEvent::Clicked { pane }).is_err() {
                        return;
                    }
                    waker();
                }
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two notifications inside the interval: the second replaces the first on the
    /// desktop with a count (before: it was dropped, and a later one said "+1 more").
    #[test]
    fn a_notification_inside_the_interval_replaces_the_shown_one_with_a_count() {
        let mut c = Coalescer::new(Duration::from_secs(5));
        let t = Instant::now();
        let first = c.next(1, "needs permission", 1, t);
        assert_eq!(
            first,
            Outgoing {
                replaces_id: 0,
                body: "needs permission".into(),
                overflow: false,
            }
        );
        c.sent(1, 42);
        let second = c.next(1, "done", 1, t + Duration::from_secs(1));
        assert_eq!(
            second,
            Outgoing {
                replaces_id: 42,
                body: "done (2 messages)".into(),
                overflow: false,
            }
        );
        // Merged while the thread was busy: three more stand behind one call.
        let third = c.next(1, "really done", 3, t + Duration::from_secs(2));
        assert_eq!(third.body, "really done (5 messages)");
        assert_eq!(c.next(2, "other pane", 1, t).replaces_id, 0, "panes apart");
        // After the interval: a new notification.
        let later = c.next(1, "next", 1, t + Duration::from_secs(6));
        assert_eq!(later.replaces_id, 0);
        assert_eq!(later.body, "next");
        c.forget(1);
        assert_eq!(c.shown.len(), 1);
    }

    /// While the sender thread is busy, a pane's requests merge into one: the newest
    /// text, the count of all; nothing is lost and the map holds one entry per pane.
    #[test]
    fn waiting_requests_merge_per_pane_newest_first() {
        let mut n = DesktopNotifier::new("tern-test", Duration::ZERO, Arc::new(|| {}));
        // No thread yet: fill the map by hand the way notify() does, without a bus.
        n.wake = Some(mpsc::sync_channel(1).0);
        let req = |pane, body: &str| DesktopRequest {
            pane,
            summary: "s".into(),
            body: body.into(),
            urgency: Urgency::Normal,
        };
        for i in 0..10_000 {
            assert!(n.notify(req(7, &format!("message {i}")), Instant::now()));
        }
        assert!(n.notify(req(8, "other"), Instant::now()));
        let (batch, _, _) = take_waiting(&n.waiting);
        let got: Vec<(u64, String, u32)> = batch
            .into_iter()
            .map(|(r, count)| (r.pane, r.body, count))
            .collect();
        assert_eq!(
            got,
            [
                (7, "message 9999".to_owned(), 10_000),
                (8, "other".to_owned(), 1)
            ]
        );
    }

    /// A hundred panes notify at once: at most [`GLOBAL_NEW_NOTIFICATIONS`] new ones
    /// appear, and one shared notification counts the rest, replaced in place. Catches
    /// a rate limit per pane only (100 hostile remote panes gave 150 notifications in
    /// 17 s).
    #[test]
    fn many_panes_at_once_share_a_global_limit() {
        let mut c = Coalescer::new(Duration::from_secs(5));
        let t = Instant::now();
        let mut new = 0;
        let mut last = None;
        for pane in 0..100u64 {
            let out = c.next(pane, "hi", 1, t + Duration::from_millis(pane * 100));
            if out.replaces_id == 0 {
                new += 1;
            }
            if out.overflow {
                c.sent(OVERFLOW_KEY, 900);
            } else {
                c.sent(pane, 100 + pane as u32);
            }
            last = Some(out);
        }
        // Within 10 s: eight new ones and the shared one, which counts the other 92.
        assert_eq!(new, GLOBAL_NEW_NOTIFICATIONS + 1, "new notifications shown");
        let last = last.expect("some");
        assert!(last.overflow && last.replaces_id == 900, "{last:?}");
        assert!(
            last.body.starts_with("92 more notifications"),
            "{}",
            last.body
        );
        // A new window: a new notification again, and a new shared one after it.
        let next = c.next(500, "later", 1, t + GLOBAL_WINDOW + Duration::from_secs(1));
        assert!(!next.overflow && next.replaces_id == 0, "{next:?}");
    }

    /// A program-set title reaches the summary without bidi overrides, controls or
    /// markup. Catches the title passed through unfiltered.
    #[test]
    fn a_summary_loses_bidi_controls_and_markup() {
        assert_eq!(
            plain_summary("tern · a\u{202E}gnp.exe\x1b <b>x</b> & y"),
            "tern · agnp.exe ‹b›x‹/b› ＆ y"
        );
    }

    #[test]
    fn markup_is_escaped() {
        assert_eq!(escape_markup("<b>a&b</b>"), "&lt;b&gt;a&amp;b&lt;/b&gt;");
    }

    #[test]
    fn no_session_bus_is_reported_once_and_never_blocks() {
        let mut n = DesktopNotifier::new("tern-test", Duration::ZERO, Arc::new(|| {}));
        let req = |pane| DesktopRequest {
            pane,
            summary: "s".into(),
            body: "b".into(),
            urgency: Urgency::Normal,
        };
        if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() {
            return; // a real bus: covered by the window's end-to-end test
        }
        // A flood from three panes: merged, nothing waits.
        for i in 0..1000 {
            n.notify(req(i % 3), Instant::now());
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut events = Vec::new();
        while events.is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
            events = n.poll();
        }
        assert!(
            matches!(events.first(), Some(DesktopEvent::Unavailable(_))),
            "{events:?}"
        );
    }
}
