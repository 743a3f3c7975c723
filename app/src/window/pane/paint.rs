//! Drawing a pane: its rows (through the row cache), search matches, the search bar,
//! the link under the pointer, and where an input method composes.

use std::time::{Duration, Instant};

use tern_core::model::Row;

use super::{PaneCx, PaneUi};
use crate::window::render::{self, Metrics, Scene};
use crate::window::search::SearchAction;
use crate::window::theme::Theme;
use crate::window::trace::{Trace, since_start_us, woken_us};
use crate::window::viewport::cell_chars;

/// DECSCUSR / ?12 blinking: on for 530 ms, off for 530 ms, restarting on each key.
const BLINK_MS: u128 = 530;

impl PaneUi {
    /// The terminal's rows, cursor and selection (or the background while parked).
    pub(super) fn paint_terminal(
        &mut self,
        ctx: &egui::Context,
        painter: &egui::Painter,
        rect: egui::Rect,
        cx: &mut PaneCx<'_>,
        focused: bool,
    ) {
        let Some(view) = &self.view else {
            painter.rect_filled(rect, 0.0, cx.background);
            return;
        };
        let m = cx.metrics;
        let offset = self.viewport.offset;
        let total = view.meta.scrollback_lines;
        // Part of a line scrolled into view: one more row on top, all of them
        // drawn that much lower (pixel-smooth scrolling).
        let extra = self.viewport.extra_row(view);
        let first_line = (view.meta.scrollback_dropped as usize + total as usize)
            .saturating_sub(offset + usize::from(extra));
        let draw_rect = if extra {
            let shift = (1.0 - self.viewport.fraction) * m.cell.y;
            let snap = |v: f32| (v * ctx.pixels_per_point()).round() / ctx.pixels_per_point();
            egui::Rect::from_min_size(
                rect.min - egui::vec2(0.0, snap(shift)),
                rect.size() + egui::vec2(0.0, m.cell.y),
            )
        } else {
            rect
        };
        self.viewport.refresh(&self.pipeline, self.id, view);
        let viewport = &self.viewport;
        let shown: Vec<&Row> = viewport.rows(view);
        let selected = |r: usize, c: usize| {
            viewport.is_selected(first_line + r, c, || {
                shown.get(r).map(|row| cell_chars(row)).unwrap_or_default()
            })
        };
        let blink_on = if view.meta.modes.cursor_blink && focused {
            let ms = self.timing.last_key_at.elapsed().as_millis();
            ctx.request_repaint_after(Duration::from_millis((BLINK_MS - ms % BLINK_MS) as u64));
            (ms / BLINK_MS) % 2 == 0
        } else {
            true
        };
        let cursor = (offset == 0 && !extra && view.meta.modes.show_cursor && blink_on)
            .then_some((view.meta.cursor, view.meta.cursor_shape));
        let top_image_line = view.meta.image_base as i64 - (offset + usize::from(extra)) as i64;
        let images = self
            .rows
            .images
            .quads(ctx, &view.images, top_image_line, &shown, m.cell);
        let scene = Scene {
            rows: &shown,
            cursor,
            selected: &selected,
            any_selected: viewport.selection.is_some(),
            scroll: (total, offset),
            images: &images,
        };
        let style = render::Style {
            metrics: m,
            palette: &view.palette,
            theme: cx.theme,
            focused,
            window_clear: cx.window_clear,
            grid: cx.grid,
        };
        render::paint(
            painter,
            cx.glyphs,
            &mut self.rows,
            draw_rect,
            &scene,
            &style,
        );
    }

    /// Highlights the search matches in view (results are in absolute lines).
    pub(super) fn paint_search_matches(
        &self,
        painter: &egui::Painter,
        rect: egui::Rect,
        m: &Metrics,
        theme: &Theme,
    ) {
        let (Some(bar), Some(view)) = (self.modes.search.as_ref(), self.view.as_ref()) else {
            return;
        };
        let Some(results) = &bar.results else {
            return;
        };
        let first_line = (view.meta.scrollback_dropped + view.meta.scrollback_lines) as isize
            - self.viewport.offset as isize;
        for (i, hit) in results.matches.iter().enumerate() {
            let row = hit.line as isize - first_line;
            if row < 0 || row >= view.rows.len() as isize {
                continue;
            }
            let r = egui::Rect::from_min_size(
                rect.min + egui::vec2(hit.cols.start as f32 * m.cell.x, row as f32 * m.cell.y),
                egui::vec2(hit.cols.len() as f32 * m.cell.x, m.cell.y),
            );
            let color = if i == bar.current {
                theme.search_current
            } else {
                theme.search_match
            };
            painter.rect_filled(r, 0.0, color);
        }
    }

    /// The search bar, and scrolling to the match it shows.
    pub(super) fn search_bar(&mut self, ctx: &egui::Context, rect: egui::Rect, theme: &Theme) {
        let Some(mut bar) = self.modes.search.take() else {
            return;
        };
        match bar.ui(ctx, rect, &self.pipeline, self.id, theme) {
            SearchAction::Close => return,
            SearchAction::Everywhere => {
                self.asks.everywhere_request = Some((bar.text.clone(), bar.regex));
                return;
            }
            SearchAction::None => {}
            SearchAction::Show(i) => {
                if let Some(results) = &bar.results
                    && let Some(hit) = results.matches.get(i)
                {
                    let at = tern_core::text::copy_mode::CopyPoint {
                        line: hit.line as u64,
                        col: hit.cols.start,
                    };
                    self.copy_search_shown(at, &results.matches);
                }
                if let (Some(hit), Some(view)) = (
                    bar.results.as_ref().and_then(|r| r.matches.get(i)),
                    &self.view,
                ) {
                    let total = view.meta.scrollback_lines as usize;
                    // The match's index in the scrollback now (lines may have dropped).
                    let line = hit
                        .line
                        .saturating_sub(view.meta.scrollback_dropped as usize);
                    let rows = view.rows.len();
                    // Put the match in the middle of the window when history allows.
                    self.viewport.offset = if line >= total {
                        0
                    } else {
                        (total - line + rows / 2).min(total)
                    };
                }
            }
        }
        self.modes.search = Some(bar);
    }

    /// Input methods compose at the cursor.
    pub(super) fn place_ime(&self, ctx: &egui::Context, rect: egui::Rect, m: &Metrics) {
        let Some(v) = &self.view else {
            return;
        };
        if !crate::window::glyphs::fonts::ime_configured() {
            return;
        }
        let cursor_rect = egui::Rect::from_min_size(
            rect.min
                + egui::vec2(
                    v.meta.cursor.col as f32 * m.cell.x,
                    v.meta.cursor.row as f32 * m.cell.y,
                ),
            m.cell,
        );
        ctx.output_mut(|o| {
            o.ime = Some(egui::output::IMEOutput {
                purpose: egui::IMEPurpose::Terminal,
                rect,
                cursor_rect,
                should_interrupt_composition: false,
            })
        });
    }

    /// A link under the pointer: underlined, its target in a tooltip, Ctrl+click opens.
    pub(super) fn paint_link_hover(
        &mut self,
        ctx: &egui::Context,
        painter: &egui::Painter,
        rect: egui::Rect,
        m: &Metrics,
        cx: &mut PaneCx<'_>,
        response: &egui::Response,
    ) {
        let theme = cx.theme;
        let Some(pos) = ctx
            .input(|i| i.pointer.hover_pos())
            .filter(|p| rect.contains(*p))
        else {
            return;
        };
        let (row, col) = self.cell_at(pos, rect, m);
        if let Some((spans, _)) = self.link_at_cell(row, col) {
            for (row, cells) in spans {
                let y = rect.top() + (row + 1) as f32 * m.cell.y - 1.0;
                let x0 = rect.left() + cells.start as f32 * m.cell.x;
                let x1 = rect.left() + cells.end as f32 * m.cell.x;
                painter.hline(x0..=x1, y, egui::Stroke::new(1.0, theme.link));
            }
            if let Some(tip) = self.link_tooltip_at_cell(row, col) {
                if cx.trace.enabled() {
                    let extra = format!("\"pane\":{},\"tooltip\":{}", self.id.0, json(&tip));
                    cx.trace.event_if_changed("link_tooltip", &extra);
                }
                response.clone().on_hover_text_at_pointer(tip);
            }
        }
    }

    /// Keeps an event for the trace, while tracing (written at the end of the frame).
    pub(super) fn note_trace(&mut self, event: &'static str, extra: String) {
        if crate::window::trace::tracing() && self.asks.trace_notes.len() < TRACE_NOTES_MAX {
            self.asks.trace_notes.push((event, extra));
        }
    }

    /// Writes the events kept for the trace.
    pub(super) fn write_trace_notes(&mut self, trace: &mut Trace) {
        for (event, extra) in self.asks.trace_notes.drain(..) {
            trace.event(event, &extra);
        }
    }

    /// Trace: keys whose echo this frame shows.
    pub(super) fn trace_key_echoes(&mut self, trace: &mut Trace) {
        let now = Instant::now();
        let Some(v) = self.view.as_ref().filter(|_| trace.enabled()) else {
            self.timing.pending_keys.clear();
            return;
        };
        let seq = v.seq;
        let (shown, waiting): (Vec<_>, Vec<_>) = self
            .timing
            .pending_keys
            .drain(..)
            .partition(|(before, _)| seq > *before);
        // The steps after the key was written: the echo read from the pty and its
        // delivery built (the last delivery this frame took), the UI woken, this frame
        // started (-1: not known). The frame's painting is in the next `frame` event.
        let us = |at: Option<Instant>| at.map_or(-1, |t| since_start_us(t) as i64);
        let (read, built) = self.timing.delivered_at.unwrap_or((None, now));
        let steps = format!(
            "\"echo_read_us\":{},\"echo_built_us\":{},\"woken_us\":{},\"frame_started_us\":{}",
            us(read),
            us(Some(built)),
            woken_us(),
            us(trace.frame_started)
        );
        for (_, received) in shown {
            let extra = format!(
                "\"received_us\":{},\"latency_us\":{},{steps}",
                since_start_us(received),
                now.duration_since(received).as_micros()
            );
            trace.event_at("key_echo_frame", now, &extra);
        }
        self.timing.pending_keys = waiting;
    }
}

/// The most trace events a pane keeps between two of its frames.
pub(super) const TRACE_NOTES_MAX: usize = 64;

/// `text` as a JSON string.
pub(super) fn json(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}
