//! A window's geometry and state, kept between frames: on X11 winit asks the server for
//! each on every call (a synchronous round trip), and egui-winit and eframe asked for
//! them every frame. They are kept until a window event that may change them.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

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

static FACTS: LazyLock<Mutex<HashMap<WindowId, WindowFacts>>> = LazyLock::new(Default::default);

fn with_map<R>(f: impl FnOnce(&mut HashMap<WindowId, WindowFacts>) -> R) -> R {
    f(&mut FACTS.lock().unwrap_or_else(|e| e.into_inner()))
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
/// the redraw request.
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
