//! The desktop's light/dark preference, where the platform reports it: the XDG desktop
//! portal's `org.freedesktop.appearance` `color-scheme` setting (0 no preference, 1
//! prefer dark, 2 prefer light) on the session bus, read once and then followed through
//! the portal's `SettingChanged` signal, on a thread of its own so the UI never waits on
//! the bus. No session bus or no portal means no preference, said once as an
//! [`Appearance::Unavailable`], never a hang.

use std::sync::mpsc::{self, Receiver};

use zbus::zvariant::{OwnedValue, Value};

const PORTAL: &str = "org.freedesktop.portal.Desktop";
const PATH: &str = "/org/freedesktop/portal/desktop";
const SETTINGS: &str = "org.freedesktop.portal.Settings";
const NAMESPACE: &str = "org.freedesktop.appearance";
const KEY: &str = "color-scheme";

/// The desktop's preference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorScheme {
    NoPreference,
    Dark,
    Light,
}

impl ColorScheme {
    /// The portal's number (an unknown one is no preference).
    pub fn from_portal(v: u32) -> ColorScheme {
        match v {
            1 => ColorScheme::Dark,
            2 => ColorScheme::Light,
            _ => ColorScheme::NoPreference,
        }
    }
}

/// What the watcher reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Appearance {
    /// The preference now (first the one read at start, then each change).
    Scheme(ColorScheme),
    /// No session bus, or no portal answered: no preference (said once).
    Unavailable(String),
}

/// The setting's value: `ReadOne` answers the value, the older `Read` a variant
/// holding it; both are unwrapped.
fn scheme_of(v: &Value<'_>) -> Option<ColorScheme> {
    match v {
        Value::Value(inner) => scheme_of(inner),
        Value::U32(n) => Some(ColorScheme::from_portal(*n)),
        _ => None,
    }
}

/// Follows the desktop's preference on the session bus (`address`: another bus, for
/// tests). Each report is followed by a call of `wake` (the UI repaints and reads it).
pub struct AppearanceWatcher {
    rx: Receiver<Appearance>,
}

impl AppearanceWatcher {
    pub fn start(address: Option<String>, wake: impl Fn() + Send + 'static) -> AppearanceWatcher {
        let (tx, rx) = mpsc::channel();
        let report = move |a: Appearance| {
            let sent = tx.send(a).is_ok();
            wake();
            sent
        };
        let spawned = std::thread::Builder::new()
            .name("tern-appearance".into())
            .spawn(move || follow(address, report));
        if let Err(e) = spawned {
            let (tx, rx) = mpsc::channel();
            let _ = tx.send(Appearance::Unavailable(format!("no thread: {e}")));
            return AppearanceWatcher { rx };
        }
        AppearanceWatcher { rx }
    }

    /// What was reported since the last call, oldest first.
    pub fn reports(&self) -> Vec<Appearance> {
        self.rx.try_iter().collect()
    }

    /// Waits up to `timeout` for the next report (for tests).
    pub fn next_report(&self, timeout: std::time::Duration) -> Option<Appearance> {
        self.rx.recv_timeout(timeout).ok()
    }
}

/// The watcher thread: connect, subscribe, read, then report every change until the
/// watcher is dropped (the next report fails) or the bus goes away.
fn follow(address: Option<String>, report: impl Fn(Appearance) -> bool) {
    let connected = match &address {
        Some(a) => zbus::blocking::connection::Builder::address(a.as_str()).and_then(|b| b.build()),
        None => zbus::blocking::Connection::session(),
    };
    let conn = match connected {
        Ok(c) => c,
        Err(e) => {
            report(Appearance::Unavailable(format!("no session bus: {e}")));
            return;
        }
    };
    let proxy = match zbus::blocking::Proxy::new(&conn, PORTAL, PATH, SETTINGS) {
        Ok(p) => p,
        Err(e) => {
            report(Appearance::Unavailable(format!("no desktop portal: {e}")));
            return;
        }
    };
    // Subscribe before reading, so a change in between is not lost.
    let signals = proxy.receive_signal("SettingChanged");
    let read: zbus::Result<OwnedValue> = proxy
        .call("ReadOne", &(NAMESPACE, KEY))
        .or_else(|_| proxy.call("Read", &(NAMESPACE, KEY)));
    let first = match read {
        Ok(v) => scheme_of(&v).map(Appearance::Scheme),
        Err(e) => Some(Appearance::Unavailable(format!(
            "the desktop portal has no {NAMESPACE} {KEY}: {e}"
        ))),
    };
    if let Some(first) = first
        && !report(first)
    {
        return;
    }
    let Ok(signals) = signals else {
        return;
    };
    for msg in signals {
        let Ok((namespace, key, value)) = msg.body().deserialize::<(String, String, OwnedValue)>()
        else {
            continue;
        };
        if namespace != NAMESPACE || key != KEY {
            continue;
        }
        if let Some(s) = scheme_of(&value)
            && !report(Appearance::Scheme(s))
        {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn portal_values_read_as_schemes_also_wrapped() {
        assert_eq!(scheme_of(&Value::U32(1)), Some(ColorScheme::Dark));
        assert_eq!(scheme_of(&Value::U32(2)), Some(ColorScheme::Light));
        assert_eq!(scheme_of(&Value::U32(0)), Some(ColorScheme::NoPreference));
        assert_eq!(scheme_of(&Value::U32(7)), Some(ColorScheme::NoPreference));
        let wrapped = Value::Value(Box::new(Value::Value(Box::new(Value::U32(2)))));
        assert_eq!(scheme_of(&wrapped), Some(ColorScheme::Light));
        assert_eq!(scheme_of(&Value::from("dark")), None);
    }
}
