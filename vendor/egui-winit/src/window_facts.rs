//! tern's patch (see `PATCHES.md`): the window facts that winit asks the X server for
//! on every call — `inner_size`, `inner_position`, `outer_position`, `outer_size`,
//! `is_minimized`, `is_maximized`, each a synchronous round trip on X11 — are read once
//! and kept until a window event that can change them arrives. egui-winit and eframe
//! asked for them on every frame (about ten round trips before a frame could begin,
//! each one waiting for the X server to finish whatever it was doing for other
//! clients).

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use winit::dpi::{PhysicalPosition, PhysicalSize};
use winit::event::WindowEvent;
use winit::window::{Window, WindowId};

/// What a window's geometry and state were when last asked.
#[derive(Clone, Copy, Debug)]
pub struct WindowFacts {
    pub inner_size: PhysicalSize<u32>,
    pub outer_size: PhysicalSize<u32>,
    pub inner_position: Option<PhysicalPosition<i32>>,
    pub outer_position: Option<PhysicalPosition<i32>>,
    pub minimized: Option<bool>,
    pub maximized: bool,
}

static FACTS: Mutex<Option<HashMap<WindowId, WindowFacts>>> = Mutex::new(None);

fn with_map<R>(f: impl FnOnce(&mut HashMap<WindowId, WindowFacts>) -> R) -> R {
    let mut guard = FACTS.lock().unwrap_or_else(|e| e.into_inner());
    f(guard.get_or_insert_with(HashMap::new))
}

/// The window's facts: the kept ones, or asked now (and kept) when none are.
pub fn facts(window: &Window) -> WindowFacts {
    if let Some(f) = with_map(|m| m.get(&window.id()).copied()) {
        return f;
    }
    let f = WindowFacts {
        inner_size: window.inner_size(),
        outer_size: window.outer_size(),
        inner_position: window.inner_position().ok(),
        outer_position: window.outer_position().ok(),
        minimized: window.is_minimized(),
        maximized: window.is_maximized(),
    };
    with_map(|m| m.insert(window.id(), f));
    f
}

/// Forgets what is kept for `window`, so that the next frame asks again.
pub fn forget(window: WindowId) {
    with_map(|m| m.remove(&window));
}

/// Whether `event` may change a window's geometry or state: every event but input and
/// the redraw request. (A window manager that maximizes, moves, resizes, minimizes or
/// restores a window sends a configure, focus, visibility or property change, which
/// winit reports as one of the events kept here.)
pub fn may_change_facts(event: &WindowEvent) -> bool {
    !matches!(
        event,
        WindowEvent::KeyboardInput { .. }
            | WindowEvent::ModifiersChanged(_)
            | WindowEvent::Ime(_)
            | WindowEvent::CursorMoved { .. }
            | WindowEvent::CursorEntered { .. }
            | WindowEvent::CursorLeft { .. }
            | WindowEvent::MouseWheel { .. }
            | WindowEvent::MouseInput { .. }
            | WindowEvent::PinchGesture { .. }
            | WindowEvent::PanGesture { .. }
            | WindowEvent::DoubleTapGesture { .. }
            | WindowEvent::RotationGesture { .. }
            | WindowEvent::TouchpadPressure { .. }
            | WindowEvent::AxisMotion { .. }
            | WindowEvent::Touch(_)
            | WindowEvent::RedrawRequested
    )
}

/// Whether a key event is a modifier key alone (Ctrl, Shift, Alt, Super…): egui sees
/// the modifiers with the next key or pointer event, so it asks no frame of its own.
pub fn is_modifier_key(event: &winit::event::KeyEvent) -> bool {
    use winit::keyboard::{KeyCode, NamedKey, PhysicalKey};
    matches!(
        event.physical_key,
        PhysicalKey::Code(
            KeyCode::ControlLeft
                | KeyCode::ControlRight
                | KeyCode::ShiftLeft
                | KeyCode::ShiftRight
                | KeyCode::AltLeft
                | KeyCode::AltRight
                | KeyCode::SuperLeft
                | KeyCode::SuperRight
                | KeyCode::Meta
                | KeyCode::Hyper
        )
    ) || matches!(
        event.logical_key,
        winit::keyboard::Key::Named(
            NamedKey::Control
                | NamedKey::Shift
                | NamedKey::Alt
                | NamedKey::AltGraph
                | NamedKey::Super
                | NamedKey::Meta
                | NamedKey::Hyper
        )
    )
}

static KEY_RELEASES_WANTED: AtomicBool = AtomicBool::new(false);

/// Says whether the app reads key releases as they come (tern: the focused pane's
/// program asked the kitty keyboard protocol for event types). When it does not, a
/// key's release asks no frame of its own; egui sees it with the next frame.
pub fn set_key_releases_wanted(wanted: bool) {
    KEY_RELEASES_WANTED.store(wanted, Ordering::Relaxed);
}

/// Whether a key's release asks for a frame (see [`set_key_releases_wanted`]).
pub fn key_releases_wanted() -> bool {
    KEY_RELEASES_WANTED.load(Ordering::Relaxed)
}
