//! The state's side of images (`model/images/`): the kitty graphics protocol's
//! actions (transmit, put, delete, query, replies) and a finished sixel image placed,
//! on the store of the screen in use; and the terminal's image accessors.

use crate::model::images::kitty::{Command, Upload, load, parse_keys};
use crate::model::images::pixels::decode;
use crate::model::images::placeholder;
use crate::model::images::sixel::Decoder;
use crate::model::images::{
    ImageLayer, ImageStore, MAX_PLACEMENT_CELLS, PixelRect, Placement, Refusal, StoreError,
    pixel_work_cells, refuse,
};
use crate::model::{TermEvent, Terminal};

use super::State;

/// Handles one APC whose body starts with `G`; `truncated`: it went over its cap and
/// only its start is here (answered `EFBIG`, and a chunked transmission fails).
pub(in crate::model) fn kitty_apc(st: &mut State, body: &[u8], truncated: bool) {
    let body = &body[1..];
    let (keys, payload) = match body.iter().position(|&b| b == b';') {
        Some(i) => (&body[..i], &body[i + 1..]),
        None => (body, &[][..]),
    };
    // A chunked transmission takes every graphics command as its next chunk; only `m`
    // and `q` of its keys count.
    if let Some(mut upload) = st.kitty_upload.take().map(|u| *u) {
        let next = parse_keys(keys).unwrap_or_default();
        if truncated {
            upload.too_big = true;
            upload.data = Vec::new();
        }
        upload.push(payload);
        if next.quiet != 0 {
            upload.cmd.quiet = next.quiet;
        }
        if next.more {
            st.kitty_upload = Some(Box::new(upload));
        } else {
            let (cmd, data) = upload.finish();
            transmitted(st, &cmd, data);
        }
        return;
    }
    let cmd = match parse_keys(keys) {
        Ok(cmd) => cmd,
        Err(refusal) => {
            // Answer with the ids if they could be read.
            let mut cmd = Command::default();
            for pair in keys.split(|&b| b == b',') {
                if let Some(v) = pair.strip_prefix(b"i=") {
                    cmd.id = std::str::from_utf8(v)
                        .ok()
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(0);
                }
            }
            reply(st, &cmd, Err(refusal));
            return;
        }
    };
    match cmd.action {
        b't' | b'T' | b'q' => {
            let mut upload = Upload::new(cmd);
            upload.too_big = truncated;
            upload.push(payload);
            if upload.cmd.more && upload.cmd.medium == b'd' {
                st.kitty_upload = Some(Box::new(upload));
            } else {
                let (cmd, data) = upload.finish();
                transmitted(st, &cmd, data);
            }
        }
        b'p' => {
            let result = put(st, &cmd);
            reply(st, &cmd, result);
        }
        b'd' => delete(st, &cmd),
        _ => reply(
            st,
            &cmd,
            Err(refuse("EINVAL", "this action is not supported")),
        ),
    }
}

/// The command's data is all here (`data`: the payload decoded, or why not).
fn transmitted(st: &mut State, cmd: &Command, data: Result<Vec<u8>, Refusal>) {
    let result = data
        .and_then(|data| load(cmd, data))
        .and_then(|data| decode(cmd.format, cmd.width, cmd.height, data));
    let image = match result {
        Ok(image) => image,
        Err(refusal) => {
            reply(st, cmd, Err(refusal));
            return;
        }
    };
    st.work_cells += pixel_work_cells(u64::from(image.width) * u64::from(image.height));
    if cmd.action == b'q' {
        // A query checks that the image could be loaded and keeps nothing.
        reply(st, cmd, Ok(()));
        return;
    }
    let store = st.images_mut();
    let id = if cmd.id != 0 {
        cmd.id
    } else {
        store.fresh_id()
    };
    if store.insert(id, cmd.number, image) == Err(StoreError::NoSpace) {
        reply(
            st,
            cmd,
            Err(refuse("ENOSPC", "the image storage quota is exceeded")),
        );
        return;
    }
    let mut answered = cmd.clone();
    answered.id = id;
    let result = if cmd.action == b'T' {
        put(st, &answered)
    } else {
        Ok(())
    };
    // kitty answers an image sent with neither id nor number not at all.
    if cmd.id != 0 || cmd.number != 0 {
        reply(st, &answered, result);
    }
}

/// Shows a stored image at the cursor (`a=p`, and `a=T` after its transmission).
fn put(st: &mut State, cmd: &Command) -> Result<(), Refusal> {
    let id = if cmd.id != 0 {
        cmd.id
    } else if cmd.number != 0 {
        st.images()
            .id_of_number(cmd.number)
            .ok_or_else(|| refuse("ENOENT", "no image with this number"))?
    } else {
        return Err(refuse("EINVAL", "no image id or number"));
    };
    let Some(image) = st.images().image(id) else {
        return Err(refuse(
            "ENOENT",
            format!("put command refers to non-existent image with id: {id}"),
        ));
    };
    let (img_w, img_h) = (image.width, image.height);
    // The source rectangle, clipped to the image.
    let x = cmd.src_x.min(img_w - 1);
    let y = cmd.src_y.min(img_h - 1);
    let w = if cmd.src_w == 0 {
        img_w - x
    } else {
        cmd.src_w.min(img_w - x)
    };
    let h = if cmd.src_h == 0 {
        img_h - y
    } else {
        cmd.src_h.min(img_h - y)
    };
    let (cell_w, cell_h) = (st.cell_pixels.0 as u32, st.cell_pixels.1 as u32);
    let x_off = cmd.x_off.min(cell_w.saturating_sub(1));
    let y_off = cmd.y_off.min(cell_h.saturating_sub(1));
    if cmd.cols > MAX_PLACEMENT_CELLS || cmd.rows > MAX_PLACEMENT_CELLS {
        return Err(refuse("EINVAL", "the placement is too large"));
    }
    // The drawn size in pixels: the cells asked for (one of them alone keeps the
    // image's aspect), else the image's own size.
    let (draw_w, draw_h) = match (cmd.cols, cmd.rows) {
        (0, 0) => (u64::from(w), u64::from(h)),
        (c, 0) => {
            let dw = u64::from(c) * u64::from(cell_w);
            (dw, dw * u64::from(h) / u64::from(w))
        }
        (0, r) => {
            let dh = u64::from(r) * u64::from(cell_h);
            (dh * u64::from(w) / u64::from(h), dh)
        }
        (c, r) => (
            u64::from(c) * u64::from(cell_w),
            u64::from(r) * u64::from(cell_h),
        ),
    };
    let cols = (draw_w + u64::from(x_off)).div_ceil(u64::from(cell_w));
    let rows = (draw_h + u64::from(y_off)).div_ceil(u64::from(cell_h));
    if cols > u64::from(MAX_PLACEMENT_CELLS) || rows > u64::from(MAX_PLACEMENT_CELLS) {
        return Err(refuse("EINVAL", "the placement is too large"));
    }
    let extent = (draw_w as f32 / cell_w as f32, draw_h as f32 / cell_h as f32);
    let (cols, rows) = (cols.max(1) as usize, rows.max(1) as usize);
    let source = PixelRect {
        x,
        y,
        width: w,
        height: h,
    };
    if cmd.virtual_placement {
        // Drawn only where placeholder cells ask for it: anchored nowhere, and the
        // cursor stays.
        st.images_mut().place(Placement {
            image_id: id,
            placement_id: cmd.placement,
            line: 0,
            col: 0,
            cols,
            rows,
            source,
            offset: (0.0, 0.0),
            extent,
            z: cmd.z,
            is_virtual: true,
        });
        st.damage.mark_all();
        return Ok(());
    }
    let line = st.image_line_base() + st.cursor.row as u64;
    let col = st.cursor.col;
    st.images_mut().place(Placement {
        image_id: id,
        placement_id: cmd.placement,
        line,
        col,
        cols,
        rows,
        source,
        offset: (x_off as f32 / cell_w as f32, y_off as f32 / cell_h as f32),
        extent,
        z: cmd.z,
        is_virtual: false,
    });
    let first = st.cursor.row;
    for r in first..(first + rows).min(st.rows) {
        st.damage.mark(r);
    }
    if !cmd.cursor_stays {
        // kitty: the cursor goes to the cell after the image's last column, on its last
        // row, scrolling if the image reaches below the screen.
        for _ in 1..rows {
            st.linefeed();
        }
        st.cursor.col = (col + cols).min(st.cols - 1);
        st.cursor.pending_wrap = false;
    }
    Ok(())
}

/// `a=d`: lower-case specifiers remove placements, upper-case ones also free the
/// images left without a placement.
fn delete(st: &mut State, cmd: &Command) {
    let free = cmd.delete.is_ascii_uppercase();
    let base = st.image_line_base();
    let cursor_line = base + st.cursor.row as u64;
    let cursor_col = st.cursor.col;
    // `x`, `y` are 1-based cells in the delete keys.
    let cell_col = cmd.src_x.saturating_sub(1) as usize;
    let cell_line = base + u64::from(cmd.src_y.saturating_sub(1));
    // A virtual placement is anchored nowhere: only deletes by id, number, range and
    // z reach it (as in kitty).
    let covers = |p: &Placement, line: u64, col: usize| {
        !p.is_virtual
            && (p.line..p.end_line()).contains(&line)
            && (p.col..p.col + p.cols).contains(&col)
    };
    let screen = base..base + st.rows as u64;
    let on_screen =
        |p: &Placement| !p.is_virtual && p.line < screen.end && p.end_line() > screen.start;
    let id = if cmd.id == 0 && cmd.number != 0 {
        st.images().id_of_number(cmd.number).unwrap_or(0)
    } else {
        cmd.id
    };
    let store = st.images_mut();
    match cmd.delete.to_ascii_lowercase() {
        b'a' => store.delete_where(free, on_screen),
        b'i' | b'n' if id != 0 => {
            store.delete_where(free, |p| {
                p.image_id == id && (cmd.placement == 0 || p.placement_id == cmd.placement)
            });
            if free && cmd.placement == 0 {
                store.remove_image(id);
            }
        }
        b'c' => store.delete_where(free, |p| covers(p, cursor_line, cursor_col)),
        b'p' => store.delete_where(free, |p| covers(p, cell_line, cell_col)),
        b'q' => store.delete_where(free, |p| covers(p, cell_line, cell_col) && p.z == cmd.z),
        b'x' => store.delete_where(free, |p| {
            !p.is_virtual && (p.col..p.col + p.cols).contains(&cell_col)
        }),
        b'y' => store.delete_where(free, |p| {
            !p.is_virtual && (p.line..p.end_line()).contains(&cell_line)
        }),
        b'z' => store.delete_where(free, |p| p.z == cmd.z),
        b'r' => {
            let (lo, hi) = (cmd.src_x, cmd.src_y);
            store.delete_where(free, |p| (lo..=hi).contains(&p.image_id));
        }
        // Animation frames: nothing to delete.
        _ => {}
    }
    st.damage.mark_all();
}

/// Answers a command: `ESC _ G i=..[,I=..][,p=..];OK ESC \` or the error, unless the
/// command has no id (kitty answers those not at all) or asked for quiet.
fn reply(st: &mut State, cmd: &Command, result: Result<(), Refusal>) {
    if cmd.id == 0 && cmd.number == 0 {
        return;
    }
    let message = match &result {
        Ok(()) if cmd.quiet >= 1 => return,
        Err(_) if cmd.quiet >= 2 => return,
        Ok(()) => "OK".to_owned(),
        Err(r) => format!("{}:{}", r.code, r.message),
    };
    let mut out = String::from("\x1b_G");
    let mut keys = Vec::new();
    if cmd.id != 0 {
        keys.push(format!("i={}", cmd.id));
    }
    if cmd.number != 0 {
        keys.push(format!("I={}", cmd.number));
    }
    if cmd.placement != 0 {
        keys.push(format!("p={}", cmd.placement));
    }
    out.push_str(&keys.join(","));
    out.push(';');
    // Messages are built from fixed text and numbers only, never from request bytes
    // (a file name or payload is not echoed).
    out.push_str(&message);
    out.push_str("\x1b\\");
    st.replies.extend_from_slice(out.as_bytes());
}

impl State {
    /// The store of the screen in use.
    pub(in crate::model) fn images(&self) -> &ImageStore {
        if self.modes.alt_screen {
            &self.images_alt
        } else {
            &self.images_primary
        }
    }

    pub(in crate::model) fn images_mut(&mut self) -> &mut ImageStore {
        if self.modes.alt_screen {
            &mut self.images_alt
        } else {
            &mut self.images_primary
        }
    }

    /// The absolute line of the screen's first row, as placements count lines: the
    /// scrollback's on the primary screen, the lines scrolled off the top on the
    /// alternate one.
    pub(in crate::model) fn image_line_base(&self) -> u64 {
        if self.modes.alt_screen {
            self.alt_scrolled_lines
        } else {
            self.scrollback.dropped() + self.scrollback.len() as u64
        }
    }
}

impl State {
    /// A sixel image ended (its DCS was terminated or cancelled). As xterm draws it:
    /// with sixel scrolling (DECSDM reset) at the cursor, above the text, the screen
    /// scrolled until the row below the image's last row is on it, and the cursor on
    /// that last row in the same column; in sixel display mode (DECSDM set) at the
    /// screen's top-left corner, cut at its bottom, the cursor where it was.
    pub(in crate::model) fn sixel_done(&mut self, decoder: Decoder) {
        let Some(image) = decoder.finish() else {
            return;
        };
        let (width, height) = (image.width, image.height);
        // Its pixels were counted as they were painted; now each is copied once more.
        self.work_cells += pixel_work_cells(u64::from(width) * u64::from(height));
        let (cell_w, cell_h) = (self.cell_pixels.0 as u32, self.cell_pixels.1 as u32);
        let cols = width.div_ceil(cell_w).max(1) as usize;
        let mut rows = height.div_ceil(cell_h).max(1) as usize;
        let mut source = PixelRect {
            x: 0,
            y: 0,
            width,
            height,
        };
        let (first, col) = if self.sixel_display_mode {
            // Cut at the screen's bottom edge.
            if rows > self.rows {
                rows = self.rows;
                source.height = height.min(self.rows as u32 * cell_h);
            }
            (0, 0)
        } else {
            (self.cursor.row, self.cursor.col)
        };
        let store = self.images_mut();
        let id = store.fresh_id();
        if store.insert(id, 0, image).is_err() {
            self.events.push(TermEvent::Dropped {
                what: "sixel image over the image quota",
            });
            return;
        }
        let line = self.image_line_base() + first as u64;
        self.images_mut().place(Placement {
            image_id: id,
            placement_id: 0,
            line,
            col,
            cols,
            rows,
            source,
            offset: (0.0, 0.0),
            extent: (
                source.width as f32 / cell_w as f32,
                source.height as f32 / cell_h as f32,
            ),
            z: 0,
            is_virtual: false,
        });
        for r in first..(first + rows).min(self.rows) {
            self.damage.mark(r);
        }
        if !self.sixel_display_mode {
            // Down to the row after the image, scrolling (the placement, anchored to
            // its line, scrolls with the text), then back up onto its last row.
            for _ in 0..rows {
                self.linefeed();
            }
            self.cursor.row = self.cursor.row.saturating_sub(1);
            self.cursor.col = col;
            self.cursor.pending_wrap = false;
        }
    }
}

impl Terminal {
    /// One cell's size in pixels as the model knows it (`width, height`).
    pub fn cell_pixel_size(&self) -> (usize, usize) {
        self.st.cell_pixels
    }

    /// Heap bytes of images: both screens' stores, a transmission or sixel image being
    /// received.
    pub fn image_heap_bytes(&self) -> usize {
        self.st.images_primary.heap_bytes()
            + self.st.images_alt.heap_bytes()
            + self.st.kitty_upload.as_ref().map_or(0, |u| u.heap_bytes())
            + self.st.sixel.as_ref().map_or(0, |s| s.heap_bytes())
    }

    /// Forgets placements whose rows are gone (dropped from the history, or scrolled
    /// off the alternate screen); returns the active screen's image generation, which
    /// changes whenever what its images show changes.
    pub fn settle_images(&mut self) -> u64 {
        let dropped = self.st.scrollback.dropped();
        self.st.images_primary.prune_above(dropped);
        let alt_top = self.st.alt_scrolled_lines;
        self.st.images_alt.prune_above(alt_top);
        self.st.images().generation()
    }

    /// The active screen's placements with their pixels (`None`: it has none).
    pub fn image_layer(&self) -> Option<ImageLayer> {
        let store = self.st.images();
        (!store.placements().is_empty()).then(|| store.layer())
    }

    /// The active screen's image store (images, placements, memory).
    pub fn images(&self) -> &ImageStore {
        self.st.images()
    }

    /// The absolute line of the active screen's first row, as placements count lines.
    pub fn image_line_base(&self) -> u64 {
        self.st.image_line_base()
    }

    /// After the APC guard read bytes (`ApcCapture::read`): at the string's end the
    /// guard goes back outside, and a complete one is dispatched.
    pub(in crate::model) fn end_apc(&mut self, end: Option<bool>) {
        if let Some(complete) = end {
            self.guard = crate::model::stream_guard::OscGuard::Outside;
            if complete {
                self.dispatch_apc();
            }
        }
    }

    /// An APC string ended: a kitty graphics command (`G`) goes to the image code,
    /// anything else is ignored.
    fn dispatch_apc(&mut self) {
        if let Some(command) = self.apc.command() {
            if self.apc.truncated {
                self.st.events.push(TermEvent::Dropped {
                    what: "graphics command over its cap",
                });
            }
            kitty_apc(&mut self.st, command, self.apc.truncated);
        }
        self.apc.done();
    }

    /// One line for each placement on the screen (see [`ScreenDump::images`]), then
    /// one for each run of Unicode placeholder cells that shows a virtual placement.
    pub(in crate::model) fn image_dump(&self) -> Vec<String> {
        let mut lines = self.placed_dump();
        let layer = self.st.images().layer();
        if layer.has_virtual() {
            for row in 0..self.st.rows {
                for run in placeholder::runs(self.st.grid().row(row)) {
                    let shown = layer.virtual_placement(run.image_id, run.placement_id);
                    lines.push(format!(
                        "placeholder of image {}: box row {} cols {}..{} at row {row} col {}{}",
                        run.image_id,
                        run.box_row,
                        run.box_col,
                        run.box_col + run.len as u32,
                        run.col,
                        if shown.is_some() {
                            ""
                        } else {
                            " (no placement)"
                        },
                    ));
                }
            }
        }
        lines
    }

    fn placed_dump(&self) -> Vec<String> {
        let store = self.st.images();
        let base = self.st.image_line_base();
        let end = base + self.st.rows as u64;
        store
            .placements()
            .iter()
            .filter(|p| !p.is_virtual && p.line < end && p.end_line() > base)
            .map(|p| {
                let row = p.line as i64 - base as i64;
                let (w, h) = store
                    .image(p.image_id)
                    .map_or((0, 0), |i| (i.width, i.height));
                format!(
                    "image {}: {w}x{h} px at row {row} col {}, {}x{} cells, z {}",
                    p.image_id, p.col, p.cols, p.rows, p.z
                )
            })
            .collect()
    }
}
