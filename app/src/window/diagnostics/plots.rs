//! The last minute: throughput per pane and the model thread's busy share (from the
//! pipeline's sample ring), and the reply latency and frame time histograms.

use egui_plot::{Bar, BarChart, Legend, Line, Plot, PlotPoints};
use tern_core::diagnostics::{DiagnosticsReport, HistogramReport};

use super::format;

const HEIGHT: f32 = 150.0;

pub fn ui(ui: &mut egui::Ui, report: &DiagnosticsReport) {
    let now_ms = report.uptime_ms as f64;
    ui.columns(2, |cols| {
        cols[0].label("Read per pane (bytes/s)");
        throughput(&mut cols[0], report, now_ms);
        cols[1].label("Model thread busy (%)");
        busy(&mut cols[1], report, now_ms);
    });
    ui.columns(2, |cols| {
        cols[0].label(format!(
            "Reply latency, all panes (p50 ≤ {}, p99 ≤ {})",
            format::micros(report.reply_latency_us.p50_us),
            format::micros(report.reply_latency_us.p99_us)
        ));
        histogram(&mut cols[0], "tern-diag-replies", &report.reply_latency_us);
        match &report.frame_time_us {
            Some(h) => {
                cols[1].label(format!(
                    "Window frame build (p50 ≤ {}, p99 ≤ {})",
                    format::micros(h.p50_us),
                    format::micros(h.p99_us)
                ));
                histogram(&mut cols[1], "tern-diag-frames", h);
            }
            None => {
                cols[1].label("No window frames.");
            }
        }
    });
}

/// Seconds before now, for the x axis.
fn ago(at_ms: u64, now_ms: f64) -> f64 {
    (at_ms as f64 - now_ms) / 1e3
}

fn minute_plot(id: &str) -> Plot<'static> {
    Plot::new(id)
        .height(HEIGHT)
        .allow_zoom(false)
        .allow_drag(false)
        .allow_scroll(false)
        .include_x(-60.0)
        .include_x(0.0)
        .include_y(0.0)
        .x_axis_formatter(|m, _| format!("{:.0} s", m.value))
}

fn throughput(ui: &mut egui::Ui, report: &DiagnosticsReport, now_ms: f64) {
    let label_of = |id: &str| {
        report
            .panes
            .iter()
            .find(|r| r.id == id)
            .map_or_else(|| id.to_owned(), |r| r.label.clone())
    };
    // One series per pane, in the order panes first appear.
    let mut series: Vec<(String, Vec<[f64; 2]>)> = Vec::new();
    for point in &report.throughput {
        let x = ago(point.at_ms, now_ms);
        for (id, rate) in &point.bytes_per_s {
            match series.iter_mut().find(|(i, _)| i == id) {
                Some((_, pts)) => pts.push([x, *rate]),
                None => series.push((id.clone(), vec![[x, *rate]])),
            }
        }
    }
    minute_plot("tern-diag-throughput")
        .legend(Legend::default())
        .y_axis_formatter(|m, _| format::rate(m.value))
        .show(ui, |plot| {
            for (id, pts) in series {
                plot.line(Line::new(label_of(&id), PlotPoints::from(pts)));
            }
        });
}

fn busy(ui: &mut egui::Ui, report: &DiagnosticsReport, now_ms: f64) {
    let pts: Vec<[f64; 2]> = report
        .throughput
        .iter()
        .map(|p| [ago(p.at_ms, now_ms), p.model_busy_share * 100.0])
        .collect();
    minute_plot("tern-diag-busy")
        .include_y(100.0)
        .show(ui, |plot| {
            plot.line(Line::new("busy", PlotPoints::from(pts)));
        });
}

/// Power-of-two buckets as bars, labelled by their upper bound.
fn histogram(ui: &mut egui::Ui, id: &str, h: &HistogramReport) {
    let bars: Vec<Bar> = h
        .buckets
        .iter()
        .enumerate()
        .map(|(i, &c)| Bar::new(i as f64, c as f64).width(0.9))
        .collect();
    Plot::new(id)
        .height(HEIGHT)
        .allow_zoom(false)
        .allow_drag(false)
        .allow_scroll(false)
        .include_y(0.0)
        .x_axis_formatter(|m, _| {
            let i = m.value.round();
            if (m.value - i).abs() > 1e-6 || !(0.0..32.0).contains(&i) {
                return String::new();
            }
            format!("≤{}", format::micros(1u64 << i as u32))
        })
        .show(ui, |plot| plot.bar_chart(BarChart::new("count", bars)));
}
