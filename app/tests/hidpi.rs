//! HiDPI with egui_kittest (headless): at 2 and 1.5 pixels per point the cells are
//! whole physical pixels and the grid is computed in points, so the same window holds
//! the same grid at every scale.

mod common;

use std::time::Duration;

use common::Slot;
use egui_kittest::Harness;
use tern::window::app::Launch;
use tern::window::app::TestView as _;
use tern_core::model::TermSize;
use tern_core::pipeline::SpawnSpec;
use tern_testkit::eventually;

fn harness(pixels_per_point: f32) -> Harness<'static, Slot> {
    let launch = Launch::new(SpawnSpec::command("cat", &[]).size(TermSize::new(80, 24)));
    common::AppHarness::new(launch)
        .size(egui::vec2(800.0, 480.0))
        .pixels_per_point(pixels_per_point)
        .build()
}

/// The grid the pane settled on (the pty is resized to what fits the window), and the
/// cell size in points.
fn settled_grid(pixels_per_point: f32) -> (TermSize, egui::Vec2) {
    let mut h = harness(pixels_per_point);
    let mut last = None;
    eventually(
        format!("the grid settles at {pixels_per_point}x"),
        Duration::from_secs(20),
        || {
            h.step();
            let size = h
                .state()
                .as_ref()
                .and_then(|a| a.view())
                .map(|v| v.meta.size);
            // The view starts at 80x24 and follows the resize to the window's grid.
            let settled = size.filter(|&s| s != TermSize::new(80, 24) && size == last);
            last = size;
            match settled {
                Some(settled) => {
                    let cell = h.state().as_ref().expect("app").metrics(&h.ctx).cell;
                    Ok((settled, cell))
                }
                None => Err(format!("{last:?}")),
            }
        },
    )
}

#[test]
fn cells_are_whole_pixels_and_the_grid_fits_the_window_at_every_scale() {
    let (grid_1x, cell_1x) = settled_grid(1.0);
    for ppp in [1.5, 2.0] {
        let (grid, cell) = settled_grid(ppp);
        let px = cell * ppp;
        assert!(
            (px.x - px.x.round()).abs() < 1e-3 && (px.y - px.y.round()).abs() < 1e-3,
            "cell {cell:?} pt is {px:?} px at {ppp}x"
        );
        // The grid fits the 800x480 pt window...
        assert!(
            grid.cols as f32 * cell.x <= 800.0 && grid.rows as f32 * cell.y <= 480.0,
            "{grid:?} of {cell:?} pt overflows 800x480 at {ppp}x"
        );
        // ...and is the 1x grid, give or take the rounding of the cell to pixels.
        assert!(
            grid.cols.abs_diff(grid_1x.cols) <= grid_1x.cols / 20 + 1
                && grid.rows.abs_diff(grid_1x.rows) <= 1,
            "{grid:?} at {ppp}x ({cell:?} pt) vs {grid_1x:?} at 1x ({cell_1x:?} pt)"
        );
    }
}
