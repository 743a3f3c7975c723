//! Telling the model the pane's cell size in physical pixels (images are sized in
//! cells with it; XTWINOPS 14/16 and the pty's pixel size carry it).

use super::PaneUi;

impl PaneUi {
    /// Tells the model the cell size in physical pixels when it changed (XTWINOPS
    /// 14/16 answer it, the pty carries it, images are sized in cells with it).
    pub(super) fn tell_cell_size(&mut self, ppp: f32, cell: egui::Vec2) {
        let px = |v: f32| (v * ppp).round().clamp(1.0, 1000.0) as u16;
        let cell_px = (px(cell.x), px(cell.y));
        if self.size.cell_px != Some(cell_px) {
            self.size.cell_px = Some(cell_px);
            self.pipeline.set_cell_pixels(self.id, cell_px.0, cell_px.1);
        }
    }
}
