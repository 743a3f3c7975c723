//! Following the desktop's light/dark preference through a fake XDG desktop portal on a
//! private session bus (`dbus-daemon`, from the `dbus` package; `scripts/test.sh`
//! installs it, `TERN_SKIP_MISSING_TOOLS=1` skips the tests without it, printed).
//! Deadlines only fail a test.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use tern_core::desktop_appearance::{Appearance, AppearanceWatcher, ColorScheme};
use zbus::zvariant::{OwnedValue, Value};

#[path = "remote_support/tools.rs"]
mod tools;

const DEADLINE: Duration = Duration::from_secs(20);
const PATH: &str = "/org/freedesktop/portal/desktop";
const SETTINGS: &str = "org.freedesktop.portal.Settings";

/// A session bus of the test's own, stopped on drop.
struct Bus {
    daemon: Child,
    address: String,
}

impl Drop for Bus {
    fn drop(&mut self) {
        let _ = self.daemon.kill();
        let _ = self.daemon.wait();
    }
}

/// `None` (after printing why) when dbus-daemon is missing and skipping is allowed.
fn private_bus() -> Option<Bus> {
    let started = Command::new("dbus-daemon")
        .args(["--session", "--nofork", "--print-address=1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let mut daemon = match started {
        Ok(d) => d,
        Err(e) => {
            tools::required(Some(format!("dbus-daemon: {e}")), "dbus")
                .then(|| panic!("dbus-daemon did not start"));
            return None;
        }
    };
    let mut line = String::new();
    let stdout = daemon.stdout.take().expect("piped stdout");
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("dbus-daemon prints its address");
    Some(Bus {
        daemon,
        address: line.trim().to_owned(),
    })
}

/// The portal's Settings interface, answering `color-scheme` with `scheme`.
struct FakeSettings {
    scheme: u32,
}

#[zbus::interface(name = "org.freedesktop.portal.Settings")]
impl FakeSettings {
    fn read_one(&self, namespace: String, key: String) -> zbus::fdo::Result<OwnedValue> {
        if namespace == "org.freedesktop.appearance" && key == "color-scheme" {
            Ok(OwnedValue::from(self.scheme))
        } else {
            Err(zbus::fdo::Error::Failed(format!("no {namespace} {key}")))
        }
    }
}

fn portal(bus: &Bus, scheme: u32) -> zbus::blocking::Connection {
    zbus::blocking::connection::Builder::address(bus.address.as_str())
        .and_then(|b| b.name("org.freedesktop.portal.Desktop"))
        .and_then(|b| b.serve_at(PATH, FakeSettings { scheme }))
        .and_then(|b| b.build())
        .expect("the fake portal takes its name")
}

fn changed(portal: &zbus::blocking::Connection, namespace: &str, key: &str, value: u32) {
    portal
        .emit_signal(
            None::<&str>,
            PATH,
            SETTINGS,
            "SettingChanged",
            &(namespace, key, Value::U32(value)),
        )
        .expect("the signal goes out");
}

/// Catches a preference not read at start, a change not followed, or another setting's
/// change taken for it: the portal says dark, then light, then (after an unrelated
/// setting) no preference, and the watcher reports exactly that.
#[test]
fn the_preference_is_read_then_followed() {
    let Some(bus) = private_bus() else {
        return;
    };
    let portal = portal(&bus, 1);
    let watcher = AppearanceWatcher::start(Some(bus.address.clone()), || {});
    let next = || watcher.next_report(DEADLINE);
    assert_eq!(next(), Some(Appearance::Scheme(ColorScheme::Dark)));
    changed(&portal, "org.freedesktop.appearance", "color-scheme", 2);
    assert_eq!(next(), Some(Appearance::Scheme(ColorScheme::Light)));
    changed(&portal, "org.freedesktop.appearance", "accent-color", 1);
    changed(&portal, "org.gnome.desktop.interface", "color-scheme", 1);
    changed(&portal, "org.freedesktop.appearance", "color-scheme", 0);
    assert_eq!(next(), Some(Appearance::Scheme(ColorScheme::NoPreference)));
}

/// A bus without a portal is no preference, said once, not a hang.
#[test]
fn no_portal_is_reported_unavailable() {
    let Some(bus) = private_bus() else {
        return;
    };
    let watcher = AppearanceWatcher::start(Some(bus.address.clone()), || {});
    match watcher.next_report(DEADLINE) {
        Some(Appearance::Unavailable(why)) => assert!(why.contains("portal"), "{why}"),
        other => panic!("expected unavailable, got {other:?}"),
    }
    let nowhere = AppearanceWatcher::start(Some("unix:path=/nonexistent/tern-bus".into()), || {});
    assert!(matches!(
        nowhere.next_report(DEADLINE),
        Some(Appearance::Unavailable(_))
    ));
}
