//! A program's page size and the window. DECCOLM (`CSI ? 3 h/l`, allowed by
//! `CSI ? 40 h`), DECSCPP and DECSLPP resize the model, and the model thread gives the
//! pty the same size at once (`PaneEvent::Resized`); XTWINOPS 8 (`CSI 8 ; rows ; cols t`)
//! is only a request (`PaneEvent::ResizeRequested`), honoured when the config's
//! `resize_requests` is on. Then, as xterm does with its window:
//!
//! - the pane shown alone in the window (its tab has one pane, or it is zoomed) makes
//!   the window resize so its grid is the new size, within the monitor, unless the
//!   window is maximized or fullscreen; the pane keeps the new size until the window
//!   answers, then takes what its rectangle fits (the whole size, or less where the
//!   monitor or the window manager stopped it);
//! - any other pane (beside others in a split, or not shown) keeps its rectangle: the
//!   model and the pty go back to what it fits, so the other panes never move.
//!
//! So the model, the pty and the pixels agree once the window has answered.

use std::time::{Duration, Instant};

use tern_core::model::TermSize;
use tern_core::pipeline::PaneId;

use super::TernApp;
use crate::window::render::Metrics;

/// How long the window manager has to answer a window resize before the pane takes
/// what its rectangle fits (Xt gives it 5 s; without a window manager, or with one that
/// complies, the answer comes with the next frames).
pub const WINDOW_ANSWER: Duration = Duration::from_millis(500);

/// Whether the program's size was already applied to the model and the pty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PageSize {
    /// DECCOLM, DECSCPP, DECSLPP: the model and the pty have it.
    Set,
    /// XTWINOPS 8: only asked for.
    Asked,
}

impl TernApp {
    /// A program set (or asked for) its page size: the window follows, or the pane goes
    /// back to what it fits (see the module's rules).
    pub(super) fn follow_page_size(
        &mut self,
        ctx: &egui::Context,
        pane: PaneId,
        size: TermSize,
        how: PageSize,
    ) {
        let alone = self.panes.shown.len() == 1 && self.panes.shown.contains(&pane);
        if how == PageSize::Asked {
            if !self.settings.config.resize_requests {
                self.core.pipeline().breadcrumb(
                    Some(pane),
                    format!(
                        "CSI 8 t asked for {}x{}: refused (resize_requests is off)",
                        size.cols, size.rows
                    ),
                );
                return;
            }
            if !alone {
                return;
            }
            self.core.pipeline().resize(pane, size.clamped());
        }
        let metrics = Metrics::new(ctx, self.look.font_size);
        let (window, monitor, fixed) = ctx.input(|i| {
            let v = i.viewport();
            let fixed = v.maximized == Some(true) || v.fullscreen == Some(true);
            (i.viewport_rect().size(), v.monitor_size, fixed)
        });
        let Some(p) = self.panes.ui.get_mut(&pane) else {
            return;
        };
        let target = match (alone && !fixed, p.fits(), p.rect()) {
            (true, Some(fits), Some(rect)) => window_for(
                window,
                rect.size(),
                fits,
                size,
                metrics.cell,
                ctx.pixels_per_point(),
            ),
            _ => None,
        };
        // Within the monitor (xterm: within the display).
        let target = target.map(|t| monitor.map_or(t, |m| t.min(m)));
        match target {
            Some(t) if (t - window).length() >= 0.5 => {
                ctx.send_viewport_cmd(egui::ViewportCommand::InnerSize(t));
                p.hold_page(size, Instant::now() + WINDOW_ANSWER);
                ctx.request_repaint_after(WINDOW_ANSWER);
                self.core.pipeline().breadcrumb(
                    Some(pane),
                    format!(
                        "page size {}x{}: window {:.0}x{:.0} asked for",
                        size.cols, size.rows, t.x, t.y
                    ),
                );
            }
            _ => {
                p.refuse_page();
                self.core.pipeline().breadcrumb(
                    Some(pane),
                    format!(
                        "page size {}x{}: the pane keeps its rectangle",
                        size.cols, size.rows
                    ),
                );
            }
        }
    }
}

/// The window size (points) for a pane drawn `pane` big, where `fits` cells fit, to
/// hold `size` cells of `cell` points instead: each axis changes by the cells gained or
/// lost, keeping the part of a cell left over, at least one physical pixel of it so that
/// rounding to pixels cannot lose a cell. `None` when nothing changes.
fn window_for(
    window: egui::Vec2,
    pane: egui::Vec2,
    fits: TermSize,
    size: TermSize,
    cell: egui::Vec2,
    pixels_per_point: f32,
) -> Option<egui::Vec2> {
    if fits == size {
        return None;
    }
    let pixel = 1.0 / pixels_per_point.max(0.1);
    let axis = |window: f32, pane: f32, fits: usize, size: usize, cell: f32| {
        if fits == size {
            return window;
        }
        let rest = pane - fits as f32 * cell;
        window + (size as f32 - fits as f32) * cell + (pixel - rest).max(0.0)
    };
    Some(egui::vec2(
        axis(window.x, pane.x, fits.cols, size.cols, cell.x),
        axis(window.y, pane.y, fits.rows, size.rows, cell.y),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_grows_by_the_cells_the_pane_gains() {
        let cell = egui::vec2(9.0, 18.0);
        let window = egui::vec2(800.0, 480.0);
        // 800 = 88 cells and 8 points over; 480 = 26 rows and 12 over.
        let grow = |pane: egui::Vec2, size| {
            window_for(window, pane, TermSize::new(88, 26), size, cell, 1.0)
        };
        assert_eq!(
            grow(window, TermSize::new(132, 26)),
            Some(egui::vec2(800.0 + 44.0 * 9.0, 480.0))
        );
        assert_eq!(
            grow(window, TermSize::new(80, 30)),
            Some(egui::vec2(800.0 - 8.0 * 9.0, 480.0 + 4.0 * 18.0))
        );
        // No part of a cell left over: one pixel more, so rounding keeps the cell.
        assert_eq!(
            grow(egui::vec2(792.0, 468.0), TermSize::new(132, 26)),
            Some(egui::vec2(800.0 + 44.0 * 9.0 + 1.0, 480.0))
        );
        assert_eq!(grow(window, TermSize::new(88, 26)), None);
    }
}
