//! Images in the terminal: what the kitty graphics protocol (`kitty.rs`) and sixel
//! (`sixel.rs`) leave on a screen.
//!
//! Each screen (primary, alternate) has an [`ImageStore`]: the images a program sent
//! (decoded to RGBA, shared with the UI through an `Arc`) and their placements. A
//! placement is anchored to an absolute line (the scrollback's dropped lines + its
//! length + the screen row, as [`super::Terminal::absolute_cursor_line`] counts) and a
//! column, so it scrolls into history with its rows and goes when those rows are
//! dropped. Memory is capped per store (`quota_bytes`, the oldest unused image goes
//! first, as kitty's quota does) and in total for the process ([`TOTAL_IMAGE_BYTES`]).

mod files;
pub mod kitty;
pub(crate) mod pixels;
pub mod placeholder;
pub mod sixel;

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Widest or tallest image accepted, in pixels (kitty's limit too).
pub const MAX_IMAGE_SIDE: u32 = 10_000;
/// Most bytes one decoded image may take (RGBA): 4096x4096 pixels.
pub const MAX_IMAGE_BYTES: usize = 64 * 1024 * 1024;
/// Most decoded image bytes one screen keeps (the protocol's quota; kitty's is 320 MB).
pub const STORE_QUOTA_BYTES: usize = 128 * 1024 * 1024;
/// Most decoded image bytes all terminals of the process keep together.
pub const TOTAL_IMAGE_BYTES: usize = 512 * 1024 * 1024;
/// Most images one screen keeps (the oldest unused go first).
pub const MAX_IMAGES: usize = 1024;
/// Most placements one screen keeps (the oldest go first).
pub const MAX_PLACEMENTS: usize = 1024;

/// Pixels decoded, painted or copied that count as one cell of a terminal's work
/// ([`super::Terminal::work_cells`], the unit of a model thread's slice): a pixel is a
/// 4-byte write, a cell of an area operation a 16-byte one.
pub const PIXELS_PER_WORK_CELL: u64 = 4;

/// The cells of work `pixels` pixels count as.
pub fn pixel_work_cells(pixels: u64) -> u64 {
    pixels / PIXELS_PER_WORK_CELL
}

/// Most bytes a transmission (all its chunks, decoded from base64, or a file) may have.
pub const MAX_TRANSMISSION_BYTES: usize = MAX_IMAGE_BYTES;
/// Most cells a placement may cover in each direction.
pub const MAX_PLACEMENT_CELLS: u32 = 10_000;

/// An error reply: kitty's code and message.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub(crate) code: &'static str,
    pub(crate) message: String,
}

pub(crate) fn refuse(code: &'static str, message: impl Into<String>) -> Refusal {
    Refusal {
        code,
        message: message.into(),
    }
}

/// Decoded bytes of every live [`ImageData`] in the process.
static LIVE_IMAGE_BYTES: AtomicUsize = AtomicUsize::new(0);
/// Source of [`ImageData::key`] and of store generations (unique in the process, so
/// a screen switch or a reset never shows the UI a generation it has seen).
static NEXT_KEY: AtomicU64 = AtomicU64::new(1);

fn next_generation() -> u64 {
    NEXT_KEY.fetch_add(1, Ordering::Relaxed)
}

/// Decoded bytes of all images alive in the process (all panes).
pub fn live_image_bytes() -> usize {
    LIVE_IMAGE_BYTES.load(Ordering::Relaxed)
}

/// Decoded pixels, RGBA 8 bits a channel, rows top to bottom.
pub struct ImageData {
    /// Unique in the process for the image's life: the UI's texture cache key.
    pub key: u64,
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

impl ImageData {
    /// Takes `rgba` (exactly `width * height * 4` bytes, else `None`) and counts it in
    /// the process total.
    pub fn new(width: u32, height: u32, mut rgba: Vec<u8>) -> Option<ImageData> {
        if width == 0 || height == 0 || rgba.len() != width as usize * height as usize * 4 {
            return None;
        }
        // A transmission's buffer may be larger than its pixels: keep only them.
        rgba.shrink_to_fit();
        LIVE_IMAGE_BYTES.fetch_add(rgba.len(), Ordering::Relaxed);
        Some(ImageData {
            key: NEXT_KEY.fetch_add(1, Ordering::Relaxed),
            width,
            height,
            rgba,
        })
    }

    pub fn bytes(&self) -> usize {
        self.rgba.len()
    }
}

impl Drop for ImageData {
    fn drop(&mut self) {
        LIVE_IMAGE_BYTES.fetch_sub(self.rgba.len(), Ordering::Relaxed);
    }
}

impl std::fmt::Debug for ImageData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImageData")
            .field("key", &self.key)
            .field("width", &self.width)
            .field("height", &self.height)
            .finish_non_exhaustive()
    }
}

/// A rectangle of an image in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelRect {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

/// One image shown on a screen.
#[derive(Clone, Debug)]
pub struct Placement {
    /// The store's key of the image (kitty's `i`, or one the store chose).
    pub image_id: u32,
    /// kitty's `p` (0: none given).
    pub placement_id: u32,
    /// Absolute line of the top row (see the module's doc).
    pub line: u64,
    pub col: usize,
    /// Cells covered.
    pub cols: usize,
    pub rows: usize,
    /// The part of the image shown, scaled to the cells.
    pub source: PixelRect,
    /// Where the image starts inside the first cell, in cells (kitty's `X`, `Y`
    /// pixels over the cell's size when it was placed).
    pub offset: (f32, f32),
    /// The drawn size in cells (fractions where the image ends inside a cell): the
    /// source rectangle is scaled to it.
    pub extent: (f32, f32),
    /// Below text when negative (kitty: below -1,073,741,824 also below cell
    /// backgrounds; tern draws every negative one under the text).
    pub z: i32,
    /// kitty's `U=1`: a box of `cols` x `rows` cells drawn only where the text holds
    /// its Unicode placeholders (`placeholder.rs`), anchored nowhere (`line`, `col` 0).
    pub is_virtual: bool,
}

impl Placement {
    /// The absolute line after the last row it covers.
    pub fn end_line(&self) -> u64 {
        self.line + self.rows as u64
    }
}

struct StoredImage {
    data: Arc<ImageData>,
    /// kitty's `I` the image was sent with (0: none).
    number: u32,
    /// The store's clock when it was last sent or placed (least recently used first).
    used: u64,
}

/// What a screen shows of its images, handed to the UI: each placement with its pixels.
#[derive(Clone, Debug, Default)]
pub struct ImageLayer {
    pub placements: Vec<PlacedImage>,
}

impl ImageLayer {
    /// Whether any placement is virtual (so the rows' placeholders are worth reading).
    pub fn has_virtual(&self) -> bool {
        self.placements.iter().any(|p| p.placement.is_virtual)
    }

    /// The virtual placement placeholder cells of `image_id` and `placement_id` show
    /// (0: the image's newest virtual placement).
    pub fn virtual_placement(&self, image_id: u32, placement_id: u32) -> Option<&PlacedImage> {
        self.placements.iter().rev().find(|p| {
            let p = &p.placement;
            p.is_virtual
                && p.image_id == image_id
                && (placement_id == 0 || p.placement_id == placement_id)
        })
    }
}

/// A placement with the image it shows.
#[derive(Clone, Debug)]
pub struct PlacedImage {
    pub placement: Placement,
    pub image: Arc<ImageData>,
}

/// The images of one screen and their placements.
pub struct ImageStore {
    images: BTreeMap<u32, StoredImage>,
    /// Each image's id by its `used` clock, least recently used first (an eviction
    /// takes the first, instead of looking through every image).
    lru: BTreeMap<u64, u32>,
    /// Oldest first (the cap drops the front; evicting the least recently used image
    /// most often takes the front too).
    placements: VecDeque<Placement>,
    /// Decoded bytes held by `images`.
    bytes: usize,
    quota_bytes: usize,
    clock: u64,
    /// Bumped on every change the UI must see.
    generation: u64,
    /// Next id the store gives an image sent with a number (`I`) or none (sixel).
    next_id: u32,
}

impl Default for ImageStore {
    fn default() -> Self {
        ImageStore::new(STORE_QUOTA_BYTES)
    }
}

impl std::fmt::Debug for ImageStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImageStore")
            .field("images", &self.images.len())
            .field("placements", &self.placements.len())
            .field("bytes", &self.bytes)
            .finish_non_exhaustive()
    }
}

/// Why an image was not stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreError {
    /// Over the screen's quota or the process total even with every unused image gone.
    NoSpace,
}

impl ImageStore {
    pub fn new(quota_bytes: usize) -> ImageStore {
        ImageStore {
            images: BTreeMap::new(),
            lru: BTreeMap::new(),
            placements: VecDeque::new(),
            bytes: 0,
            quota_bytes,
            clock: 0,
            generation: next_generation(),
            next_id: 1 << 31,
        }
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub fn is_empty(&self) -> bool {
        self.images.is_empty() && self.placements.is_empty()
    }

    /// Decoded bytes this store holds.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn image_count(&self) -> usize {
        self.images.len()
    }

    pub fn placements(&self) -> &VecDeque<Placement> {
        &self.placements
    }

    /// Placements made with `U=1` (shown by Unicode placeholders).
    pub fn virtual_placement_count(&self) -> usize {
        self.placements.iter().filter(|p| p.is_virtual).count()
    }

    pub fn image(&self, id: u32) -> Option<&Arc<ImageData>> {
        self.images.get(&id).map(|i| &i.data)
    }

    /// The id of the newest image sent with number `number`.
    pub fn id_of_number(&self, number: u32) -> Option<u32> {
        self.images
            .iter()
            .filter(|(_, i)| i.number == number)
            .max_by_key(|(_, i)| i.used)
            .map(|(id, _)| *id)
    }

    /// An id no image has, for an image sent without one.
    pub fn fresh_id(&mut self) -> u32 {
        loop {
            let id = self.next_id;
            self.next_id = self.next_id.wrapping_add(1).max(1 << 31);
            if !self.images.contains_key(&id) {
                return id;
            }
        }
    }

    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// Stores an image under `id` (replacing one with that id and its placements, as
    /// kitty does), making room by dropping the least recently used images.
    pub fn insert(&mut self, id: u32, number: u32, data: ImageData) -> Result<(), StoreError> {
        self.remove_image(id);
        let need = data.bytes();
        if need > self.quota_bytes {
            return Err(StoreError::NoSpace);
        }
        while self.bytes + need > self.quota_bytes
            || self.images.len() >= MAX_IMAGES
            || live_image_bytes() > TOTAL_IMAGE_BYTES
        {
            if !self.evict_one() {
                break;
            }
        }
        if self.bytes + need > self.quota_bytes || live_image_bytes() > TOTAL_IMAGE_BYTES {
            return Err(StoreError::NoSpace);
        }
        let used = self.tick();
        self.bytes += need;
        self.lru.insert(used, id);
        self.images.insert(
            id,
            StoredImage {
                data: Arc::new(data),
                number,
                used,
            },
        );
        self.generation = next_generation();
        Ok(())
    }

    /// Drops the least recently used image (with its placements); false if none.
    fn evict_one(&mut self) -> bool {
        let Some((_, &id)) = self.lru.first_key_value() else {
            return false;
        };
        self.remove_image(id);
        true
    }

    /// Removes an image and its placements.
    pub fn remove_image(&mut self, id: u32) -> bool {
        let Some(img) = self.images.remove(&id) else {
            return false;
        };
        self.lru.remove(&img.used);
        self.bytes -= img.data.bytes();
        // The front first: the oldest placement's image is the one an eviction takes
        // most often, and a retain would move every other placement.
        while self.placements.front().is_some_and(|p| p.image_id == id) {
            self.placements.pop_front();
        }
        if self.placements.iter().any(|p| p.image_id == id) {
            self.placements.retain(|p| p.image_id != id);
        }
        self.generation = next_generation();
        true
    }

    /// Adds a placement of a stored image (replacing the one with the same image and
    /// placement id when that is not 0).
    pub fn place(&mut self, placement: Placement) {
        let used = self.tick();
        if let Some(img) = self.images.get_mut(&placement.image_id) {
            self.lru.remove(&img.used);
            self.lru.insert(used, placement.image_id);
            img.used = used;
        }
        if placement.placement_id != 0 {
            self.placements.retain(|p| {
                !(p.image_id == placement.image_id && p.placement_id == placement.placement_id)
            });
        }
        if self.placements.len() >= MAX_PLACEMENTS {
            self.placements.pop_front();
        }
        self.placements.push_back(placement);
        self.generation = next_generation();
    }

    /// Removes the placements `doomed` says yes to; with `free`, also the images left
    /// with no placement among those it removed (kitty's upper-case deletes).
    pub fn delete_where(&mut self, free: bool, mut doomed: impl FnMut(&Placement) -> bool) {
        let mut touched = Vec::new();
        self.placements.retain(|p| {
            let gone = doomed(p);
            if gone {
                touched.push(p.image_id);
            }
            !gone
        });
        if !touched.is_empty() {
            self.generation = next_generation();
        }
        if free {
            for id in touched {
                if !self.placements.iter().any(|p| p.image_id == id) {
                    self.remove_image(id);
                }
            }
        }
    }

    /// Drops every image and placement.
    pub fn clear(&mut self) {
        if !self.is_empty() {
            self.images.clear();
            self.lru.clear();
            self.placements.clear();
            self.bytes = 0;
            self.generation = next_generation();
        }
    }

    /// Forgets placements wholly above absolute line `first_kept` (their rows were
    /// dropped from the history or scrolled off a screen without one). Images stay
    /// until the quota needs their room.
    pub fn prune_above(&mut self, first_kept: u64) {
        let gone = |p: &Placement| !p.is_virtual && p.end_line() <= first_kept;
        if self.placements.iter().any(gone) {
            self.placements.retain(|p| !gone(p));
            self.generation = next_generation();
        }
    }

    /// Moves the placements (not virtual ones) whose top row is on an absolute line
    /// in `lines` by `delta` lines: rows scrolled inside a scroll region. One moved
    /// to start above `floor` loses the rows above it (cropped, as kitty clips an
    /// image at a margin; wholly above, it goes); one moved to start at `ceiling` or
    /// below goes.
    pub fn shift(&mut self, lines: std::ops::Range<u64>, delta: i64, floor: u64, ceiling: u64) {
        // A scroll of the whole screen moves no placement (each line feed at the bottom
        // of a screen with images comes here).
        if lines.is_empty() {
            return;
        }
        let before = self.placements.len();
        let mut moved = false;
        self.placements.retain_mut(|p| {
            if p.is_virtual || !lines.contains(&p.line) {
                return true;
            }
            moved = true;
            let signed = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
            let line = signed(p.line).saturating_add(delta);
            if line >= signed(ceiling) || line.saturating_add(p.rows as i64) <= signed(floor) {
                return false;
            }
            let cut = (signed(floor) - line).max(0);
            p.line = (line + cut) as u64;
            if cut > 0 {
                crop_top(p, cut as usize);
            }
            true
        });
        if moved || self.placements.len() != before {
            self.generation = next_generation();
        }
    }

    /// Lets `f` move each placement (given its index in [`ImageStore::placements`]):
    /// a reflow puts them where their first cells went.
    pub fn reanchor(&mut self, mut f: impl FnMut(usize, &mut Placement)) {
        for (i, p) in self.placements.iter_mut().enumerate() {
            if !p.is_virtual {
                f(i, p);
            }
        }
        self.generation = next_generation();
    }

    /// What the UI draws: every placement with its pixels.
    pub fn layer(&self) -> ImageLayer {
        ImageLayer {
            placements: self
                .placements
                .iter()
                .filter_map(|p| {
                    let image = self.images.get(&p.image_id)?.data.clone();
                    Some(PlacedImage {
                        placement: p.clone(),
                        image,
                    })
                })
                .collect(),
        }
    }

    /// Heap bytes (decoded pixels and tables).
    pub fn heap_bytes(&self) -> usize {
        self.bytes
            + self.images.len() * 96
            + self.placements.capacity() * std::mem::size_of::<Placement>()
    }
}

/// Takes the top `rows` rows of cells off a placement (the part of the source image
/// they showed goes with them).
fn crop_top(p: &mut Placement, rows: usize) {
    let rows = rows.min(p.rows);
    // The image's drawn rows start `offset.1` into the first cell.
    let cut = (rows as f32 - p.offset.1).max(0.0).min(p.extent.1);
    let px_per_cell = p.source.height as f32 / p.extent.1.max(f32::EPSILON);
    let cut_px = ((cut * px_per_cell).round() as u32).min(p.source.height);
    p.source.y += cut_px;
    p.source.height -= cut_px;
    p.extent.1 -= cut;
    p.offset.1 = (p.offset.1 - rows as f32).max(0.0);
    p.rows -= rows;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pixels(w: u32, h: u32) -> ImageData {
        ImageData::new(w, h, vec![0; (w * h * 4) as usize]).unwrap()
    }

    #[test]
    fn the_least_recently_used_image_goes_first_when_the_quota_is_full() {
        let mut store = ImageStore::new(3 * 400);
        for id in 1..=3 {
            store.insert(id, 0, pixels(10, 10)).unwrap();
        }
        // Image 1 is used again, so 2 is the oldest.
        store.place(Placement {
            image_id: 1,
            placement_id: 0,
            line: 0,
            col: 0,
            cols: 1,
            rows: 1,
            source: PixelRect {
                x: 0,
                y: 0,
                width: 10,
                height: 10,
            },
            offset: (0.0, 0.0),
            extent: (1.0, 1.0),
            z: 0,
            is_virtual: false,
        });
        store.insert(4, 0, pixels(10, 10)).unwrap();
        assert!(store.image(2).is_none());
        assert!(store.image(1).is_some() && store.image(3).is_some());
        assert_eq!(store.bytes(), 1200);
        assert_eq!(
            store.insert(5, 0, pixels(20, 20)),
            Err(StoreError::NoSpace),
            "an image over the whole quota is refused"
        );
    }
}
