//! Each row's mesh as last built, reused while the row, its selected cells, the pane's
//! position, the metrics, the palette and the glyph atlas stay the same: a frame
//! rebuilds only the rows that changed (an agent's status line, a prompt). With the
//! grid texture (`grid.rs`), which the cache holds too, only those rows are drawn
//! again; drawn directly, an unchanged row costs a compare and a copy of its vertices.

use egui::{Color32, Mesh, Pos2};
use tern_core::model::{Palette, Row};

use super::grid::GridTexture;
use super::metrics::Metrics;
use super::quads;

#[derive(Default)]
pub struct RowCache {
    key: Option<CacheKey>,
    rows: Vec<Option<CachedRow>>,
    /// Rows rebuilt by the last paint, and by all paints (for benchmarks and tests).
    pub rebuilt: usize,
    pub rebuilt_total: u64,
    /// Textures of the images in view (`quads.rs`).
    pub images: quads::ImageTextures,
    /// The rows drawn into a texture kept between frames.
    pub grid: GridTexture,
    /// Since when the pane is parked with its rows and texture kept (`park`).
    pub kept_since: Option<std::time::Instant>,
}

/// What every cached row was built for.
#[derive(PartialEq)]
pub struct CacheKey {
    pub metrics: Metrics,
    pub origin: Pos2,
    pub atlas: u64,
    pub palette: Palette,
    pub selection: Color32,
    pub selection_text: Option<Color32>,
}

struct CachedRow {
    row: Row,
    /// Selected column ranges of the row when it was built.
    selected: Vec<(usize, usize)>,
    /// The cursor's column when it was in the row and split a shaped run there.
    cursor_col: Option<usize>,
    mesh: Mesh,
}

/// What a row is drawn with besides its cells.
pub struct RowState {
    pub selected: Vec<(usize, usize)>,
    pub cursor_col: Option<usize>,
}

impl RowCache {
    pub fn clear(&mut self) {
        self.key = None;
        self.rows.clear();
        self.images.clear();
        self.grid = GridTexture::default();
        self.kept_since = None;
    }

    /// The pane left the screen: its rows and texture are kept, so that showing it
    /// again costs only the rows that changed meanwhile (until the window's cap on kept
    /// panes drops them, `app/panes.rs`); images are freed.
    pub fn park(&mut self) {
        self.images.clear();
        self.kept_since = Some(std::time::Instant::now());
    }

    /// Starts a frame of `rows` rows built for `key`: every row is dropped when the key
    /// changed (returns whether it did).
    pub fn begin(&mut self, key: CacheKey, rows: usize) -> bool {
        self.kept_since = None;
        let changed = self.key.as_ref() != Some(&key);
        if changed {
            self.rows.clear();
            self.key = Some(key);
        }
        self.rows.resize_with(rows, || None);
        self.rebuilt = 0;
        changed
    }

    /// Row `r`'s mesh: the one built before when `row` and `state` are as then, else
    /// `build`'s (returns whether it was rebuilt).
    pub fn update(
        &mut self,
        r: usize,
        row: &Row,
        state: RowState,
        build: impl FnOnce(&RowState) -> Mesh,
    ) -> bool {
        let fresh = self.rows[r].as_ref().is_some_and(|c| {
            c.row == *row && c.selected == state.selected && c.cursor_col == state.cursor_col
        });
        if !fresh {
            let mesh = build(&state);
            self.rebuilt += 1;
            self.rebuilt_total += 1;
            self.rows[r] = Some(CachedRow {
                row: row.clone(),
                selected: state.selected,
                cursor_col: state.cursor_col,
                mesh,
            });
        }
        !fresh
    }

    /// The rows' meshes, top to bottom.
    pub fn meshes(&self) -> Vec<&Mesh> {
        self.rows.iter().flatten().map(|c| &c.mesh).collect()
    }

    /// The rows' meshes and the texture they are drawn into.
    pub fn meshes_and_grid(&mut self) -> (Vec<&Mesh>, &mut GridTexture) {
        let meshes = self.rows.iter().flatten().map(|c| &c.mesh).collect();
        (meshes, &mut self.grid)
    }

    /// About what the cache holds, in bytes: the rows, their meshes and the texture.
    pub fn bytes(&self) -> usize {
        let rows: usize = self
            .rows
            .iter()
            .flatten()
            .map(|c| {
                c.row.cells.len() * std::mem::size_of::<tern_core::model::Cell>()
                    + c.mesh.vertices.len() * std::mem::size_of::<egui::epaint::Vertex>()
                    + c.mesh.indices.len() * 4
            })
            .sum();
        rows + self.grid.bytes()
    }
}
