//! How the window's frames reach the screen (`present_mode` in the config).
//!
//! eframe's default queues up to two frames ahead of the screen on a vsynced FIFO: a
//! key's echo then waits behind the frames already queued. tern asks for at most one
//! frame in flight and, by default, the surface's lowest-latency mode.

use eframe::egui_wgpu::SurfaceConfig;
use eframe::wgpu::PresentMode as WgpuPresentMode;
use tern_core::config::PresentMode;

/// The surface configuration for `mode`. wgpu falls back on its own where the surface
/// lacks a mode: `AutoNoVsync` tries Immediate, then Mailbox, then FIFO (always
/// offered); `AutoVsync` tries relaxed FIFO, then FIFO.
pub fn surface_config(mode: PresentMode) -> SurfaceConfig {
    SurfaceConfig {
        present_mode: match mode {
            PresentMode::LowLatency => WgpuPresentMode::AutoNoVsync,
            PresentMode::Vsync => WgpuPresentMode::AutoVsync,
        },
        desired_maximum_frame_latency: Some(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Catches a return to eframe's default (two frames queued ahead, vsync): both
    /// modes keep one frame in flight, and the default mode is the no-vsync one.
    #[test]
    fn one_frame_in_flight_and_no_vsync_by_default() {
        let default = surface_config(PresentMode::default());
        assert_eq!(default.present_mode, WgpuPresentMode::AutoNoVsync);
        assert_eq!(default.desired_maximum_frame_latency, Some(1));
        let vsync = surface_config(PresentMode::Vsync);
        assert_eq!(vsync.present_mode, WgpuPresentMode::AutoVsync);
        assert_eq!(vsync.desired_maximum_frame_latency, Some(1));
    }
}
