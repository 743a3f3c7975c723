//! One pane in the window: its view of the model's deliveries, scrollback viewport,
//! selection, search and input. The app owns many; the workspace decides which are
//! drawn (the rest are parked and hold no view).
//!
//! This file holds the pane's state, its deliveries and the frame that ties the parts
//! together; `input` turns egui events into bytes for the program, `selection` maps
//! cells to lines and text, `paint` draws.

use std::sync::Arc;
use std::time::Instant;

use egui::Sense;
use tern_core::model::TermSize;
use tern_core::pipeline::delivery::{Delivery, PaneView};
use tern_core::pipeline::{PaneId, Pipeline};

use super::glyphs::GlyphCache;
use super::primary::Primary;
use super::render::{Metrics, RowCache};
use super::search::SearchBar;
use super::theme::Theme;
use super::trace::Trace;
use super::viewport::Viewport;

mod clip;
pub use clip::CopyTo;
mod copy;
mod found;
mod hints;
mod images;
mod input;
mod paint;
mod parts;
mod scroll;
mod selection;

use parts::KeysTo;

/// How long a frame waits for a just-revealed pane's snapshot (it is normally there in
/// well under a millisecond; a model thread busy with a flood slice takes a little
/// longer).
const REVEAL_WAIT: std::time::Duration = std::time::Duration::from_millis(4);
/// How long the frame that wrote a key waits for the program's echo, when the program
/// echoes keys at once (a pty round trip: 0.2 ms p50, 1.5 ms p90 on a loaded 2-core
/// machine). Caught, the echo is on screen one whole frame earlier: without it the
/// key's own frame is painted first and the echo's waits behind it.
const ECHO_WAIT: std::time::Duration = std::time::Duration::from_millis(3);
/// Output this soon after a key counts as its echo: the program echoes, so the next
/// key's frame waits for its echo again (after a wait that ran out, it does not).
const ECHO_SEEN_WITHIN: std::time::Duration = std::time::Duration::from_millis(50);

/// A page size the pane's program set (DECCOLM, DECSCPP, DECSLPP) while the window was
/// asked to resize for it: until the pane's rectangle changes (the window answered) or
/// `until` passes (the window manager did not), the pane keeps that size instead of
/// the one its rectangle fits, so the pty does not go back and forth.
#[derive(Clone, Copy, Debug)]
struct PageHold {
    rect_size: egui::Vec2,
    until: Instant,
}

/// What every pane draws with this frame, lent by the app.
pub struct PaneCx<'a> {
    pub metrics: &'a Metrics,
    pub theme: &'a Theme,
    /// The settings in force (a multi-line paste confirmed, hint patterns, the editor).
    pub config: &'a tern_core::config::Config,
    /// The background before a pane's first delivery.
    pub background: egui::Color32,
    /// The colour the window was cleared to this frame, if known.
    pub window_clear: Option<egui::Color32>,
    /// Rows drawn into textures kept between frames, when eframe's wgpu renderer runs.
    pub grid: Option<&'a crate::window::grid::GridGpu>,
    pub glyphs: &'a mut GlyphCache,
    pub trace: &'a mut Trace,
    /// The window has keyboard focus.
    pub window_focused: bool,
    /// The widget ids of the panes (keyboard focus on anything else is a text field).
    pub pane_ids: &'a mut std::collections::HashSet<egui::Id>,
    pub primary: &'a mut Primary,
}

/// What a pane's frame asks of the app.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PaneResponse {
    /// The user clicked into this (unfocused) pane.
    pub clicked: bool,
}

pub struct PaneUi {
    pub id: PaneId,
    pipeline: Arc<Pipeline>,
    /// The model's deliveries; `None` while parked (the view is freed).
    view: Option<PaneView>,
    viewport: Viewport,
    /// Row meshes from the last frames (only changed rows are rebuilt).
    rows: RowCache,
    /// What its program said of itself: its prompts (OSC 133) and its end.
    pub program: parts::Program,
    /// The pane's parts (`parts.rs`): its size, what it asks the app to do, its keys'
    /// timing, the pointer, its modes (search, copy mode, hints, a paste waiting) and
    /// the settings it was given.
    size: parts::Size,
    asks: parts::Asks,
    timing: parts::Timing,
    input: parts::Input,
    modes: parts::Modes,
    settings: parts::Settings,
}

impl PaneUi {
    pub fn new(id: PaneId, pipeline: Arc<Pipeline>) -> PaneUi {
        PaneUi {
            id,
            pipeline,
            view: None,
            viewport: Viewport::default(),
            rows: RowCache::default(),
            program: parts::Program::default(),
            size: parts::Size::default(),
            asks: parts::Asks::default(),
            timing: parts::Timing::new(),
            input: parts::Input::default(),
            modes: parts::Modes::default(),
            settings: parts::Settings::new(),
        }
    }

    /// The pane was revealed at `at` (the trace measures until a frame shows it).
    pub fn mark_revealed(&mut self, at: Instant) {
        self.timing.revealed_at = Some(at);
    }

    /// The pane's folder as the workspace core knows it (for paths in hints, links).
    pub fn set_cwd(&mut self, cwd: Option<std::path::PathBuf>) {
        self.settings.cwd = cwd;
    }

    /// A tmux pane: sized by tmux's layout (the core), never by its rectangle.
    pub fn set_remote(&mut self, remote: bool) {
        self.size.remote = remote;
    }

    /// Carries out what the pane's input asked while it was drawn: the new size, then
    /// the bytes typed (in the order typed), then the links to open.
    pub fn apply_output(&mut self) {
        self.carry_out(false);
    }

    /// [`PaneUi::apply_output`]; with `echo_next`, the bytes' write tells the slot that
    /// this frame takes the echo next ([`Pipeline::write_then_take`]).
    fn carry_out(&mut self, echo_next: bool) {
        if let Some(size) = self.asks.out_resize.take() {
            self.pipeline.resize(self.id, size);
        }
        if !self.asks.out.is_empty() {
            let bytes = std::mem::take(&mut self.asks.out);
            if echo_next {
                self.pipeline.write_then_take(self.id, &bytes);
            } else {
                self.pipeline.write(self.id, &bytes);
            }
        }
        for uri in std::mem::take(&mut self.asks.links_out) {
            let (pipeline, pane) = (self.pipeline.clone(), self.id);
            let opened =
                crate::window::links::open(&uri, move |why| pipeline.breadcrumb(Some(pane), why));
            if let Err(e) = opened {
                self.program.exited = Some(format!("[{e}]"));
            }
        }
    }

    /// Whether every history line the view shows has come from the model (it is asked
    /// for without waiting; tests wait for this).
    pub fn history_in_view(&self) -> bool {
        self.view
            .as_ref()
            .is_none_or(|v| self.viewport.history_in(v))
    }

    pub fn view(&self) -> Option<&PaneView> {
        self.view.as_ref()
    }

    pub fn grid(&self) -> Option<TermSize> {
        self.size.grid
    }

    pub fn scroll_offset(&self) -> usize {
        self.viewport.offset
    }

    /// Where the pane was last drawn (`None` before its first frame).
    pub fn rect(&self) -> Option<egui::Rect> {
        self.size.rect
    }

    /// The grid that fits where the pane was last drawn.
    pub fn fits(&self) -> Option<TermSize> {
        self.size.fits
    }

    /// The program set its page to `size` (the model and the pty have it) and the
    /// window was asked to resize to show it: the pane keeps `size` until its rectangle
    /// changes or `until`, then takes what its rectangle fits.
    pub fn hold_page(&mut self, size: TermSize, until: Instant) {
        self.size.grid = Some(size);
        self.size.page_hold = self.size.rect.map(|r| PageHold {
            rect_size: r.size(),
            until,
        });
    }

    /// The program set its page size but the window does not follow: the model and
    /// the pty go back to what the pane's rectangle fits (a pane never drawn takes its
    /// size when it is first drawn).
    pub fn refuse_page(&mut self) {
        self.size.page_hold = None;
        if let Some(size) = self.size.fits.or(self.size.grid) {
            self.size.grid = Some(size);
            self.asks.out_resize = Some(size);
        }
    }

    /// Lines scrolled up, with the part of a line a touchpad scrolled.
    pub fn scroll_position(&self) -> f32 {
        self.viewport.offset as f32 + self.viewport.fraction
    }

    /// Parks the pane: its view and viewport state are freed (the model keeps running);
    /// its drawn rows are kept, within the window's cap (`KEPT_ROWS_BYTES`).
    pub fn park(&mut self) {
        self.view = None;
        self.viewport = Viewport::default();
        self.input.selection_guard = None;
        self.modes.search = None;
        self.input.dragging = None;
        self.rows.park();
    }

    /// Since when the pane is parked with its rows kept, and their bytes.
    pub fn kept_rows(&self) -> Option<(Instant, usize)> {
        Some((self.rows.kept_since?, self.rows.bytes()))
    }

    /// Frees the rows and texture a parked pane kept.
    pub fn drop_kept_rows(&mut self) {
        if self.is_parked() {
            self.rows.clear();
        }
    }

    /// Rows the last frame drew into the pane's texture, of those in view (`None`:
    /// drawn directly, without a texture).
    pub fn rows_drawn(&self) -> Option<(usize, usize)> {
        self.rows.grid.last
    }

    /// After a reveal, once the view is back: traces how long the reveal took (the
    /// switch, the pipeline's snapshot, this frame) and the history it holds.
    pub fn trace_reveal(&mut self, trace: &mut Trace) {
        let (Some(at), Some(view)) = (self.timing.revealed_at, self.view.as_ref()) else {
            return;
        };
        self.timing.revealed_at = None;
        if trace.enabled() {
            // Where the time went: until the model thread had built the snapshot, and
            // from then to this frame.
            let built_us = self
                .timing
                .snapshot_built_at
                .map_or(0, |b| b.saturating_duration_since(at).as_micros());
            let extra = format!(
                "\"pane\":{},\"latency_us\":{},\"snapshot_built_us\":{built_us},\"scrollback_lines\":{},\"rows_rebuilt\":{}",
                self.id.0,
                at.elapsed().as_micros(),
                view.meta.scrollback_lines,
                self.rows.rebuilt
            );
            trace.event("reveal_frame", &extra);
        }
    }

    /// Rows whose mesh the last frame rebuilt (the rest came from the row cache).
    pub fn rows_rebuilt(&self) -> usize {
        self.rows.rebuilt
    }

    /// Rows rebuilt by every frame so far.
    pub fn rows_rebuilt_total(&self) -> u64 {
        self.rows.rebuilt_total
    }

    pub fn is_parked(&self) -> bool {
        self.view.is_none()
    }

    /// Takes what the model delivered.
    pub fn take_deliveries(&mut self, trace: &mut Trace) {
        // Just revealed: the snapshot is a viewport's copy away on the model thread;
        // wait that long (bounded) rather than draw an empty pane for a frame.
        if self.view.is_none()
            && self.timing.revealed_at.is_some()
            && let Some(d) = self.pipeline.take_within(self.id, REVEAL_WAIT)
        {
            self.apply(trace, d);
        }
        while let Some(d) = self.pipeline.take(self.id) {
            self.apply(trace, d);
        }
    }

    fn apply(&mut self, trace: &mut Trace, d: Delivery) {
        // The shell's first output may arrive in a frame or already in the snapshot.
        let (seq, read_at, built_at) = match &d {
            Delivery::Frame(f) => (f.seq, f.read_at, f.built_at),
            Delivery::Snapshot(sn) => (sn.seq, None, sn.built_at),
        };
        if matches!(d, Delivery::Snapshot(_)) {
            self.timing.snapshot_built_at = Some(built_at);
        }
        if seq > 0 {
            trace.first_output(read_at, built_at);
        }
        self.timing.delivered_at = Some((read_at, built_at));
        // Read from the pty soon after the last key: the program echoes keys. (When
        // it was read, not when this frame applies it: frames may be far apart.)
        let read = read_at.unwrap_or(built_at);
        if read >= self.timing.last_key_at && read - self.timing.last_key_at < ECHO_SEEN_WITHIN {
            self.timing.echoes = true;
        }
        PaneView::apply_delivery(&mut self.view, d);
    }

    /// After this frame wrote a key: takes the program's echo if it comes within
    /// [`ECHO_WAIT`], so this frame shows it. Not for a program that did not echo the
    /// last key in time (it would wait for nothing on each key).
    fn take_echo(&mut self, trace: &mut Trace) {
        let awaits = self.awaits_echo();
        self.timing.key_this_frame = false;
        if !awaits || self.echo_taken() {
            return;
        }
        match self.pipeline.take_within(self.id, ECHO_WAIT) {
            Some(d) => {
                self.apply(trace, d);
                // No wake-up follows this delivery: this frame does what the next would.
                self.follow_content();
            }
            None => self.timing.echoes = false,
        }
    }

    /// Whether the view already holds output read after the last key: a key typed
    /// before the pass (`type_now`) is often echoed by the time the pane takes its
    /// deliveries, and nothing more is coming to wait for.
    fn echo_taken(&self) -> bool {
        self.timing
            .delivered_at
            .is_some_and(|(read, built)| read.unwrap_or(built) >= self.timing.last_key_at)
    }

    /// Whether this frame wrote a key whose echo it waits for ([`PaneUi::take_echo`]).
    fn awaits_echo(&self) -> bool {
        self.timing.key_this_frame && self.timing.echoes && self.view.is_some()
    }

    /// After a delivery: the viewport follows the content, and a selection over cells
    /// that changed is dropped.
    fn follow_content(&mut self) {
        if let Some(v) = &self.view {
            self.viewport.on_content(v);
        }
        self.check_selection();
    }

    /// The search bar's query, when it asked to search everywhere instead.
    pub fn take_everywhere_request(&mut self) -> Option<(String, bool)> {
        self.asks.everywhere_request.take()
    }

    pub fn open_search(&mut self) {
        self.modes.search = Some(SearchBar::new());
    }

    /// The search bar's state, when it is open.
    pub fn search(&self) -> Option<&SearchBar> {
        self.modes.search.as_ref()
    }

    /// Whether keys typed now go straight to the program, as the frame would send them
    /// (`TernApp::type_now`): the pane shows its program's screen at the bottom, with no
    /// search bar, hints, copy mode or paste question taking the keys.
    pub fn types_keys(&self) -> bool {
        self.view.is_some()
            && self.viewport.offset == 0
            && self.viewport.fraction == 0.0
            && self.modes.keys_to() == KeysTo::Program
    }

    pub fn paste_pending(&self) -> bool {
        self.modes.pending_paste.is_some()
    }

    /// Draws the pane into `rect` for one frame. `keyboard`: this is the focused pane
    /// (keys, paste and the pointer go to it); other panes only notice a click.
    #[must_use = "what the panel asks for happens only when applied"]
    pub fn frame(
        &mut self,
        ui: &mut egui::Ui,
        rect: egui::Rect,
        cx: &mut PaneCx<'_>,
        keyboard: bool,
    ) -> PaneResponse {
        let ctx = ui.ctx().clone();
        let mut out = PaneResponse::default();
        self.settings.confirm_multiline_paste = cx.config.confirm_multiline_paste;
        if self.settings.editor != cx.config.editor {
            self.settings.editor = cx.config.editor.clone();
        }
        if self.settings.hint_patterns.0 != cx.config.hint_patterns {
            let patterns = &cx.config.hint_patterns;
            let (compiled, _) = tern_core::text::hints::HintPatterns::new(patterns);
            self.settings.hint_patterns = (patterns.clone(), compiled);
        }
        self.take_deliveries(cx.trace);
        self.follow_content();
        let m = cx.metrics;
        let response = ui.interact(
            rect,
            egui::Id::unique(("tern-pane", self.id.0)),
            Sense::click_and_drag(),
        );
        // The focused terminal holds keyboard focus unless the search bar is open or
        // the user is typing in another field (the sidebar's, say); a click on the
        // terminal takes it back.
        cx.pane_ids.insert(response.id);
        let other_field = ctx
            .memory(|m| m.focused())
            .is_some_and(|id| !cx.pane_ids.contains(&id));
        if keyboard
            && self.modes.search.is_none()
            && (!other_field || response.is_pointer_button_down_on())
        {
            response.request_focus();
        }
        let takes_keys = keyboard && (!other_field || response.is_pointer_button_down_on());
        if !keyboard && response.is_pointer_button_down_on() {
            out.clicked = true;
        }
        let focused = keyboard && cx.window_focused;
        ui.memory_mut(|mem| {
            mem.set_focus_lock_filter(
                response.id,
                egui::EventFilter {
                    tab: true,
                    horizontal_arrows: true,
                    vertical_arrows: true,
                    escape: true,
                },
            )
        });
        ctx.accesskit_node_builder(response.id, |n| {
            n.set_role(egui::accesskit::Role::Terminal);
            // The focused pane is "terminal"; the others say which pane they are.
            let label = if keyboard {
                "terminal".to_owned()
            } else {
                format!("terminal {}", self.id.0)
            };
            match self.copy_mode_words() {
                Some(mode) => n.set_label(format!("{label} ({mode})")),
                None => n.set_label(label),
            }
        });
        match self.modes.keys_to() {
            // Only the focused pane takes input.
            _ if !keyboard => {}
            KeysTo::PasteQuestion => self.confirm_paste(&ctx),
            // Keys go to the search bar, or to the field the user is typing in.
            KeysTo::SearchBar => {}
            _ if !takes_keys => {}
            KeysTo::Hints => self.hints_input(&ctx),
            KeysTo::CopyMode => self.copy_input(&ctx),
            KeysTo::Program => {
                self.handle_input(&ctx, rect, m, &response, cx.primary);
                // The keys go to the program before this pane is painted, so the frame
                // that wrote a key can show its echo. The write tells the slot that this
                // frame takes the echo (`take_echo`): one quicker than the frame gets
                // there (the write hands the core to the program) wakes nobody.
                self.carry_out(self.awaits_echo());
                self.take_echo(cx.trace);
            }
        }
        let cols = ((rect.width() / m.cell.x).floor() as usize).max(2);
        let rows = ((rect.height() / m.cell.y).floor() as usize).max(1);
        let size = TermSize::new(cols, rows);
        self.size.rect = Some(rect);
        self.size.fits = Some(size);
        if let Some(hold) = self.size.page_hold
            && (hold.rect_size != rect.size() || Instant::now() >= hold.until)
        {
            self.size.page_hold = None;
        }
        self.tell_cell_size(ctx.pixels_per_point(), m.cell);
        if self.size.page_hold.is_none() && self.size.grid != Some(size) && !self.size.remote {
            self.size.grid = Some(size);
            self.asks.out_resize = Some(size);
        }
        let painter = ui.painter_at(rect);
        self.paint_terminal(&ctx, &painter, rect, cx, focused);
        self.paint_search_matches(&painter, rect, m, cx.theme);
        self.paint_found(&painter, rect, m, cx.theme, cx.trace);
        self.paint_copy_cursor(&painter, rect, m, cx.theme.link);
        self.paint_copy_indicator(&painter, rect, (cx.theme.link, cx.background));
        self.paint_hints(&painter, rect, m, (cx.theme.link, cx.background));
        self.search_bar(&ctx, rect, cx.theme);
        if focused {
            self.place_ime(&ctx, rect, m);
        }
        self.paint_link_hover(&ctx, &painter, rect, m, cx, &response);
        if let Some(msg) = self.program.exited.as_ref() {
            painter.text(
                rect.left_bottom(),
                egui::Align2::LEFT_BOTTOM,
                msg,
                m.font.clone(),
                cx.theme.pane_note,
            );
        }
        self.trace_key_echoes(cx.trace);
        self.write_trace_notes(cx.trace);
        out
    }
}
